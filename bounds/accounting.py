r"""Exact Gaussian-mechanism privacy and a tight composition accountant.

Two tools for noise calibration, shared by every paper module that composes mechanisms:

**The exact (analytic) Gaussian mechanism.**  Releasing f(D) + N(0, σ²I) for an f of ℓ2
sensitivity Δ is (ε, δ)-DP if and only if

    δ ≥ δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)

(Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy: analytical
calibration and optimal denoising", ICML, Theorem 8).  :func:`gaussian_delta` evaluates δ(ε)
without cancellation or overflow for every finite input: with μ = Δ/σ, a = μ/2, b = ε/μ,
x = b − a, the identity e^ε φ(a + b) = φ(a − b) gives e^ε Φ(−a − b) = ½ e^{−x²/2} erfcx((a + b)/√2),
so for x ≥ 0

    δ(ε) = ½ e^{−x²/2} [erfcx(x/√2) − erfcx((x + μ)/√2)],

whose bracket is the integral of −erfcx′ over [x/√2, (x + μ)/√2] (Gauss–Legendre when the
interval is short, an asymptotic series of −erfcx′ beyond 7), and for x < 0 δ(ε) is the sum of
two erf terms minus a term at most 0.4 of them, or 1 − (two positive terms) when δ is near 1.
Every evaluation carries a running error bound (the roundoff of each step and the conditioning
on the float inputs); :func:`gaussian_eps` and :func:`gaussian_sigma` return the smallest float
ε (resp. σ) at which δ(ε) + that bound ≤ δ, found by bisection on the floats themselves (at
most 64 steps): they round toward privacy, rigorously, for every input.  T Gaussian steps of
sensitivity Δ and noise σ (adaptive or not) compose to *one* Gaussian of noise σ/√T at
sensitivity Δ (their privacy-loss distributions are Gaussian and add).

**A tight composition accountant.**  :func:`pld_epsilon` composes privacy-loss distributions
(PLDs).  Where the composition has a closed form it is used, with the same rigorous rounding:

* Gaussian steps only: one Gaussian with 1/σ² = Σ count·(Δ/σ)² (exact).
* ε₀-DP and (ε₀, δ₀)-DP steps of one common ε₀: the worst case is T-fold ε₀-randomised
  response (Kairouz, Oh & Viswanath 2015, Theorem 3.3), whose PLD is a binomial:
  δ(ε) = 1 − Π(1 − δ₀)^count · (1 − Σ_k B(k; T, 1/(1 + e^{ε₀}))·(1 − e^{ε − (T − 2k)ε₀})₊).
  The binomial probabilities are computed in log space by Loader's saddle-point formula
  (Loader 2000, "Fast and accurate computation of binomial probabilities"; relative error
  ~1e-14 where ``gammaln`` differences lose 1e-8 at T = 1e7) over the window of k that
  matters, the mass outside the window bounded by geometric series and added (pessimistic).
  When that window would exceed 10⁶ terms (T·p(1 − p) ≳ 1.5e8) Hoeffding's inequality gives
  the valid bound Tε₀·tanh(ε₀/2) + ε₀√(2T ln(1/δ)).

Other mixtures (Laplace steps, distinct ε₀) go through Google's ``dp-accounting`` library
(``dp_accounting.pld``; Koskela, Jälkö & Honkela 2020 for FFT composition of PLDs; Doroshenko,
Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the dots: tighter discrete approximations of
privacy loss distributions", PETS, for the discretisation) with the *pessimistic* estimate
(every discretisation error rounds toward more privacy loss), after three exact reductions:
the Gaussians fold into one, a step whose loss is bounded by w > 700 (where the library
overflows) becomes the constant loss w (stochastically larger: basic composition for that step),
and the grid interval is widened so that the grid has at most 2²¹ points (still pessimistic).
A group of more than 64 Laplace steps of one Δ/b = w enters instead as w-randomised response (which
dominates each Laplace step: valid, looser), composed exactly by the binomial windows above, rather
than as an FFT power whose round-off bound grows with the count.
The FFT round-off is bounded (Higham 2002, Theorem 24.2: ‖error‖₂ ≤ 7u·log₂N per transform)
and subtracted from δ before inverting.  When the library cannot be used (a folded Gaussian of
μ = Δ/σ > 1e4 or < 1e-6, or δ below that round-off), the groups are composed by the basic
composition theorem with δ split equally among them (valid, looser).

Why ``dp-accounting`` and not ``prv-accountant``: both are on PyPI; dp-accounting (0.6.0, Google)
is actively maintained, offers Gaussian, Laplace and generic (ε, δ) PLDs with pessimistic and
optimistic estimates and the connect-the-dots discretisation, and composes heterogeneous
mechanisms; prv-accountant (0.2.0, Microsoft; Gopi, Lee & Wutschitz 2021) is less active and
reports an error interval rather than a one-sided (pessimistic) bound.  ``dp_accounting`` costs
about 0.8 s to import, so it is imported inside the functions that need it.

Calibrations for T-step algorithms ("tight" = the smallest noise the accountant certifies):
:func:`tight_pure_step_eps` (the largest per-step ε₀ of T ε₀-DP steps) and
:func:`tight_gaussian_sigma` (the smallest σ of T Gaussian steps).

Bad input (a non-real, nan or ±inf, a value outside its domain) raises ``ValueError`` naming
the parameter; so does a result outside the float range (e.g. σ/Δ = 1e-300 has ε ≈ 5e599).

Examples
--------
>>> round(gaussian_eps(3.7, 1e-5), 4)
1.0091
>>> round(gaussian_sigma(1.0, 1e-5), 4)
3.7306
>>> abs(pld_epsilon([("gaussian", 3.7 * math.sqrt(20), 1.0, 20)], 1e-5) / gaussian_eps(3.7, 1e-5) - 1) < 1e-12
True
"""

from __future__ import annotations

import functools
import math
import numbers
import struct
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from scipy import special

__all__ = [
    "gaussian_delta",
    "log_gaussian_delta",
    "gaussian_eps",
    "gaussian_sigma",
    "pld_epsilon",
    "tight_pure_step_eps",
    "tight_gaussian_sigma",
    "accountant_name",
    "zcdp_eps",
    "zcdp_delta",
    "zcdp_rho",
]

#: default discretisation interval of the privacy-loss grid (in units of ε), used where the
#: composition is computed numerically (mixtures with Laplace steps or distinct ε₀)
DISCRETIZATION = 1e-4

_U = 2.0**-52  # double-precision machine epsilon (2 × unit roundoff)
_LN2 = math.log(2.0)
_SQRT2 = math.sqrt(2.0)
_TWO_OVER_SQRTPI = 2.0 / math.sqrt(math.pi)
_LN_SQRT_2PI = 0.5 * math.log(2 * math.pi)
_MAX = float(np.finfo(float).max)
_TINY = 5e-324  # smallest positive (subnormal) double
_GL_X, _GL_W = np.polynomial.legendre.leggauss(20)
_GL_T, _GL_W = (_GL_X + 1) / 2, _GL_W / 2  # nodes and weights on [0, 1]
_ASYMPTOTIC_FROM = 7.0  # −erfcx′ by its asymptotic series from here (smallest term < 1e-21)
#: largest window of binomial terms summed exactly (beyond: Hoeffding's bound)
_BINOMIAL_WINDOW = 1_000_000
#: largest loss bound of one step handed to dp-accounting (it overflows at e^{709})
_LIBRARY_MAX_LOSS = 700.0
#: most points of the dp-accounting grid (the interval is widened to stay below)
_GRID_POINTS = 2**21
#: most Laplace steps of one kind composed by dp-accounting's FFT power (beyond: as randomised response)
_LAPLACE_SELF_COMPOSE = 64


# --------------------------------------------------------------------------- validation
def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"parameter {name!r} = {value!r} must be a real number")
    try:
        v = float(value)
    except (OverflowError, ValueError) as exc:
        raise ValueError(f"parameter {name!r} = {value!r} lies outside the float range") from exc
    if not math.isfinite(v):
        raise ValueError(f"parameter {name!r} = {value!r} must be finite")
    return v


def _positive(name: str, value: Any) -> float:
    v = _real(name, value)
    if v <= 0:
        raise ValueError(f"parameter {name!r} = {value!r} must be > 0")
    return v


def _nonneg(name: str, value: Any) -> float:
    v = _real(name, value)
    if v < 0:
        raise ValueError(f"parameter {name!r} = {value!r} must be ≥ 0")
    return v


def _unit(name: str, value: Any) -> float:
    v = _real(name, value)
    if not 0 < v < 1:
        raise ValueError(f"parameter {name!r} = {value!r} must lie in (0, 1)")
    return v


def _count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise ValueError(f"parameter {name!r} = {value!r} must be an integer ≥ 1")
    if int(value) > 2**1000:
        raise ValueError(f"parameter {name!r} = {value!r} must be ≤ 2**1000 (float range)")
    return int(value)


def _log1mexp(x: float) -> float:
    """log(1 − eˣ) for x ≤ 0, accurate on both sides of −ln 2 (Mächler 2012); −inf at x = 0."""
    if x >= 0:
        return -math.inf
    return math.log(-math.expm1(x)) if x > -_LN2 else math.log1p(-math.exp(x))


def _exp(x: float) -> float:
    return math.exp(x) if x < 709.0 else math.inf


# --------------------------------------------------------------------------- float bisection
def _f2i(x: float) -> int:
    return struct.unpack("<q", struct.pack("<d", x))[0]


def _i2f(i: int) -> float:
    return struct.unpack("<d", struct.pack("<q", i))[0]


def _first_true(pred: Callable[[float], bool], lo: float, hi: float, rtol: float = 0.0) -> float:
    """Smallest float x in (lo, hi] with pred(x), for pred monotone (false at lo, true at hi).

    Bisection on the bit patterns of non-negative doubles (ordered like the integers): at most
    64 evaluations reach adjacent floats; with rtol > 0 it stops once hi ≤ lo·(1 + rtol).
    """
    a, b = _f2i(lo), _f2i(hi)
    while b - a > 1:
        if rtol > 0 and _i2f(b) <= _i2f(a) * (1 + rtol):
            break
        m = (a + b) // 2
        if pred(_i2f(m)):
            b = m
        else:
            a = m
    return _i2f(b)


def _last_true(pred: Callable[[float], bool], lo: float, hi: float, rtol: float = 0.0) -> float:
    """Largest float x in [lo, hi) with pred(x), for pred monotone (true at lo, false at hi)."""
    a, b = _f2i(lo), _f2i(hi)
    while b - a > 1:
        if rtol > 0 and _i2f(b) <= _i2f(a) * (1 + rtol):
            break
        m = (a + b) // 2
        if pred(_i2f(m)):
            a = m
        else:
            b = m
    return _i2f(a)


# --------------------------------------------------------------------------- exact Gaussian
def _log_neg_erfcx_prime(t: np.ndarray) -> tuple[np.ndarray, float]:
    """ln g(t), g(t) = −erfcx′(t) = 2/√π − 2t·erfcx(t) > 0 for t ≥ 0, and a bound on g's relative error.

    Below 7 directly (erfcx within 2 ulps; the cancellation amplifies by (2/√π)/g ≤ 100);
    from 7 on by the asymptotic series g = (2/√π) Σ_{n≥1} (−1)^{n+1} (2n − 1)!!/(2t²)ⁿ, summed as
    t²·Σ (no underflow up to t = 1e308) and truncated after 44 terms (alternating: the error is
    below the first omitted term, < 1e-21 relative).
    """
    t = np.asarray(t, dtype=float)
    lg = np.empty_like(t)
    rel = 0.0
    small = t < _ASYMPTOTIC_FROM
    if small.any():
        ts = t[small]
        gs = _TWO_OVER_SQRTPI - 2 * ts * special.erfcx(ts)
        lg[small] = np.log(gs)
        rel = float(np.max(6 * _U * _TWO_OVER_SQRTPI / gs))
    if (~small).any():
        tl = t[~small]
        with np.errstate(over="ignore", under="ignore"):
            y = (0.5 / tl) / tl
        term = np.full_like(tl, 0.5)  # t²·(first term)
        s = term.copy()
        for n in range(1, 45):
            term = -term * (2 * n + 1) * y
            s += term
        lg[~small] = math.log(_TWO_OVER_SQRTPI) + np.log(s) - 2 * np.log(tl)
        rel = max(rel, float(np.max(np.abs(term) * 91 * y / s)) + 50 * _U)
    return lg, rel


def _gauss_log_delta(eps: float, lm: float, lm_err: float = 0.0) -> tuple[float, float]:
    """(ln δ(ε), a bound on its absolute error) for the Gaussian mechanism with ln μ = lm, μ = Δ/σ.

    ``lm_err`` bounds the absolute error of ``lm`` itself (it is computed from float inputs).
    The bound adds the roundoff of each step and the conditioning of δ on a = μ/2 and b = ε/μ
    (∂δ/∂a = 2φ(a − b) − 2b·e^εΦ(−a − b), ∂δ/∂b = −2a·e^εΦ(−a − b)).  ln δ = −inf only when
    it lies below −1.8e308.
    """
    a = _exp(lm) / 2
    e_a = lm_err + 2 * _U  # relative error of a
    if eps > 0:
        le = math.log(eps)
        lb = le - lm
        b = _exp(lb)
        e_b = lm_err + _U * (abs(le) + abs(lb) + 2)
    else:
        b, e_b = 0.0, 0.0
    x = b - a
    if x == math.inf:
        return -math.inf, 0.0
    if x >= 0:  # ε ≥ μ²/2: δ = ½ e^{−x²/2} D, D = erfcx(x/√2) − erfcx((x + μ)/√2)
        u = x / _SQRT2
        lh = lm - 0.5 * _LN2  # ln h, h = μ/√2
        h = _exp(lh)
        e2 = float(special.erfcx(u + h))  # erfcx((a + b)/√2)
        if h >= 0.5 * max(1.0, u):
            e1 = float(special.erfcx(u))
            d = e1 - e2  # erfcx(u + h)/erfcx(u) ≤ 0.75 here: the difference keeps its digits
            lnd = math.log(d)
            rel = 4 * _U * (e1 + e2) / d
            ratio = 2 * ((e_a * (2 * a / math.sqrt(2 * math.pi) + eps * e2 / 2) + e_b * eps * e2 / 2) / d)
        else:  # short interval: D = h ∫₀¹ g(u + hτ) dτ by 20-point Gauss–Legendre (g entire, h ≤ scale/2)
            lg, relg = _log_neg_erfcx_prime(u + h * _GL_T)
            top = float(np.max(lg))
            ls = top + math.log(float(np.dot(_GL_W, np.exp(lg - top))))  # ln ∫₀¹ g
            lnd = lh + ls
            rel = relg + 30 * _U + 1e-18  # quadrature error < 1e-20 relative (see above)
            # the conditioning divided by D = h·∫g without underflow: a/h = 1/√2, ε/h = √2·b
            num = e_a * (2 / _SQRT2 / math.sqrt(2 * math.pi) + _SQRT2 * b * e2 / 2) + e_b * _SQRT2 * b * e2 / 2
            ratio = 2 * _exp(math.log(num) - ls)
        with np.errstate(over="ignore"):
            val = -_LN2 - 0.5 * x * x + lnd
        if val == -math.inf:
            return val, 0.0
        return val, rel + ratio + 4 * _U * (abs(val) + 1) + 4 * _U * x * x
    # ε < μ²/2: y = a − b > 0
    y = -x
    if a < 1e-150:  # then b < a and ε = 2ab < 1e-300: δ = a√(2/π)(1 + O(a²)) − ab(1 + O(ε))
        val = math.log(a) + math.log(math.sqrt(2 / math.pi) - b)
        return val, e_a + e_b + 1e-290 + 4 * _U * (abs(val) + 1)
    s_ = (a + b) / _SQRT2
    ey = math.exp(-0.5 * y * y)
    ex = ey * float(special.erfcx(s_)) if ey > 0 else 0.0  # 2·e^ε Φ(−a − b)
    one_minus = 0.5 * math.erfc(y / _SQRT2) + 0.5 * ex  # 1 − δ, a sum of positive terms
    if one_minus <= 0.25:
        val = math.log1p(-one_minus)
        rel = 6 * _U * one_minus / (1 - one_minus)
        delta = 1 - one_minus
    else:
        big = 0.5 * (math.erf(y / _SQRT2) + math.erf(s_))
        f = -math.expm1(-eps) * 0.5 * ex  # ≤ 0.4·big
        delta = big - f
        val = math.log(delta)
        rel = 6 * _U * (big + f) / delta
    phi_term = 2 * a * ey / math.sqrt(2 * math.pi) if ey > 0 else 0.0  # a may be inf where ey = 0
    cond = e_a * (phi_term + eps * ex / 2) + e_b * eps * ex / 2
    return val, rel + cond / delta + 4 * _U * (abs(val) + 1)


def _ln_mu(sigma: float, sensitivity: float) -> tuple[float, float]:
    """ln(Δ/σ) and a bound on its absolute error."""
    ls, ld = math.log(sigma), math.log(sensitivity)
    lm = ld - ls
    return lm, _U * (abs(ls) + abs(ld) + abs(lm))


def _gauss_group_lm(group: Sequence[tuple[float, float, int]]) -> tuple[float, float]:
    """ln μ of the Gaussian equivalent to the composition of (σ, Δ, count) steps: μ² = Σ count·(Δ/σ)²."""
    if len(group) == 1 and group[0][2] == 1:
        return _ln_mu(group[0][0], group[0][1])
    terms, errs = [], []
    for sigma, sens, c in group:
        lm, e = _ln_mu(sigma, sens)
        lc = math.log(c)
        terms.append(lc + 2 * lm)
        errs.append(2 * e + _U * (abs(lc) + 2 * abs(lm)))
    top = max(terms)
    s = math.fsum(math.exp(t - top) for t in terms)
    lm2 = top + math.log(s)
    return lm2 / 2, (max(errs) + _U * (abs(lm2) + 2 * len(terms))) / 2 + _U * abs(lm2)


def _gauss_eps(lm: float, lm_err: float, delta: float, name: str = "sigma") -> float:
    """Smallest float ε with ln δ(ε) + its error bound ≤ ln δ (0 if ε = 0 qualifies)."""
    ld = math.log(delta)

    def ok(e: float) -> bool:
        v, err = _gauss_log_delta(e, lm, lm_err)
        return v + err <= ld

    if ok(0.0):
        return 0.0
    if not ok(_MAX):
        raise ValueError(f"parameter {name!r}: the noise is so small (Δ/σ = e^{lm:.6g}) that ε at "
                         f"δ = {delta:g} exceeds the float range (≈ μ²/2)")
    return _first_true(ok, 0.0, _MAX)


def log_gaussian_delta(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    r"""ln δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Theorem 8), for every finite input.

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ), evaluated without cancellation or overflow
    (module docstring): relative error ≲ 1e-13 plus the conditioning on the float inputs.

    Parameters
    ----------
    eps : float
        ε ≥ 0.
    sigma : float
        Standard deviation σ > 0 of the Gaussian noise.
    sensitivity : float, optional
        ℓ2 sensitivity Δ > 0 of the released function (default 1).

    Returns
    -------
    float
        ln δ(ε) ≤ 0, finite.

    Raises
    ------
    ValueError
        For ε < 0, σ ≤ 0, Δ ≤ 0, a non-finite argument, or when ln δ(ε) lies below the float
        range (ε ≫ Δ²/σ², e.g. ε = 1e300 at σ = Δ: ln δ ≈ −5e599; :func:`gaussian_delta` is 0).

    Examples
    --------
    >>> round(log_gaussian_delta(1.0, 3.7306316), 6) == round(math.log(1e-5), 6)
    True
    >>> -1 < log_gaussian_delta(5e5, 1e-3) < 0        # no overflow of e^ε
    True
    >>> log_gaussian_delta(1e6, 1.0) < -4.9e11        # δ ≈ 10^(−2.2e11), far below the float range
    True
    """
    eps, sigma = _nonneg("eps", eps), _positive("sigma", sigma)
    sensitivity = _positive("sensitivity", sensitivity)
    lm, lm_err = _ln_mu(sigma, sensitivity)
    val, _ = _gauss_log_delta(eps, lm, lm_err)
    if val == -math.inf:
        raise ValueError(f"parameters 'eps' = {eps!r}, 'sigma' = {sigma!r}, 'sensitivity' = {sensitivity!r}: "
                         "ln δ(ε) lies below −1.8e308, outside the float range (gaussian_delta gives 0.0)")
    return val


def gaussian_delta(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    r"""δ(ε) of the Gaussian mechanism N(0, σ²) on a function of ℓ2 sensitivity Δ (the exact formula, in floats).

    The value is the nearest float computation of the exact δ(ε), within the running error bound of the
    module docstring (not correctly rounded); the calibrations add that bound before comparing with δ.

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (Balle & Wang 2018, Theorem 8): the smallest δ
    for which the mechanism is (ε, δ)-DP.  exp of the log-space value (module docstring); 0.0
    where δ(ε) underflows.

    Parameters
    ----------
    eps : float
        ε ≥ 0.
    sigma : float
        Noise standard deviation σ > 0.
    sensitivity : float, optional
        ℓ2 sensitivity Δ > 0 (default 1).

    Returns
    -------
    float
        δ(ε) ∈ [0, 1].

    Raises
    ------
    ValueError
        For ε < 0, σ ≤ 0, Δ ≤ 0 or a non-finite argument.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> abs(gaussian_delta(0.0, 1.0) - (2 * float(norm.cdf(0.5)) - 1)) < 1e-15   # δ(0) = 2Φ(Δ/2σ) − 1
    True
    >>> gaussian_delta(1.0, 3.0) > gaussian_delta(2.0, 3.0) > gaussian_delta(2.0, 4.0)
    True
    >>> gaussian_delta(1.0, 1e300), gaussian_delta(1e300, 1.0)
    (0.0, 0.0)
    """
    eps, sigma = _nonneg("eps", eps), _positive("sigma", sigma)
    sensitivity = _positive("sensitivity", sensitivity)
    lm, lm_err = _ln_mu(sigma, sensitivity)
    return math.exp(_gauss_log_delta(eps, lm, lm_err)[0])


def gaussian_eps(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    r"""Exact smallest ε with δ(ε) ≤ δ for the Gaussian mechanism (0 when δ(0) ≤ δ), rounded up.

    The smallest float ε at which ln δ(ε) plus its error bound is ≤ ln δ (bisection on the
    floats, ≤ 64 evaluations): δ(ε) ≤ δ holds for the returned ε despite rounding, and ε exceeds
    the exact root by about 1e-13 relative at most (more only where δ(ε) is ill-conditioned).

    Parameters
    ----------
    sigma : float
        Noise standard deviation σ > 0.
    delta : float
        Target δ ∈ (0, 1).
    sensitivity : float, optional
        ℓ2 sensitivity Δ > 0 (default 1).

    Returns
    -------
    float
        ε ≥ 0, finite.

    Raises
    ------
    ValueError
        For σ ≤ 0, Δ ≤ 0, δ ∉ (0, 1), a non-finite argument, or ε beyond the float range
        (Δ/σ ≳ 1.8e154).

    Examples
    --------
    >>> e = gaussian_eps(2.0, 1e-6)
    >>> gaussian_delta(e, 2.0) <= 1e-6 < gaussian_delta(e * (1 - 1e-9), 2.0)
    True
    >>> gaussian_eps(100.0, 0.5)    # δ(0) ≈ 0.004 ≤ 0.5
    0.0
    >>> round(gaussian_eps(1e-100, 1e-5) / 5e199, 9)   # ≈ μ²/2 for μ = Δ/σ = 1e100
    1.0
    """
    sigma, delta = _positive("sigma", sigma), _unit("delta", delta)
    sens = _positive("sensitivity", sensitivity)
    lm, lm_err = _ln_mu(sigma, sens)
    return _gauss_eps(lm, lm_err, delta)


def _gauss_sigma(eps: float, delta: float, sens: float, count: int = 1) -> float:
    """Smallest float σ with certified δ(ε) ≤ δ for ``count`` composed steps of (σ, Δ)."""
    ld = math.log(delta)

    def ok(s: float) -> bool:
        v, err = _gauss_log_delta(eps, *_gauss_group_lm([(s, sens, count)]))
        return v + err <= ld

    if ok(_TINY):
        return _TINY
    if not ok(_MAX):
        raise ValueError(f"parameters 'eps' = {eps!r}, 'delta' = {delta!r}, 'sensitivity' = {sens!r}: the "
                         "noise σ they need exceeds the float range")
    return _first_true(ok, _TINY, _MAX)


def gaussian_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    r"""Exact smallest σ for which the Gaussian mechanism is (ε, δ)-DP (Balle & Wang's analytic calibration).

    The smallest float σ at which ln δ(ε; σ) plus its error bound is ≤ ln δ (bisection on the
    floats; δ(ε; σ) decreases in σ): rounded toward privacy; it inverts :func:`gaussian_eps` to
    about 1e-12 relative.  A σ below the smallest positive float comes back as 5e-324.

    Parameters
    ----------
    eps : float
        ε ≥ 0.
    delta : float
        δ ∈ (0, 1).
    sensitivity : float, optional
        ℓ2 sensitivity Δ > 0 (default 1).

    Returns
    -------
    float
        σ > 0, finite.

    Raises
    ------
    ValueError
        For ε < 0, Δ ≤ 0, δ ∉ (0, 1), a non-finite argument, or σ beyond the float range.

    Examples
    --------
    >>> s = gaussian_sigma(1.0, 1e-5)
    >>> abs(gaussian_eps(s, 1e-5) - 1.0) < 1e-9
    True
    >>> gaussian_sigma(1.0, 1e-5) < math.sqrt(2 * math.log(1.25 / 1e-5))   # below the classical calibration
    True
    >>> round(gaussian_sigma(1e-300, 1e-5) * 1e-5 * math.sqrt(2 * math.pi), 9)   # ε → 0: δ ≈ Δ/(σ√(2π))
    1.0
    """
    eps, delta = _nonneg("eps", eps), _unit("delta", delta)
    sens = _positive("sensitivity", sensitivity)
    return _gauss_sigma(eps, delta, sens)


# --------------------------------------------------------------------------- T-fold randomised response
def _softplus(x: float) -> float:
    """ln(1 + eˣ) without overflow."""
    return x + math.log1p(math.exp(-x)) if x > 0 else math.log1p(math.exp(x))


def _stirlerr(n: np.ndarray) -> np.ndarray:
    """ln n! − (n + ½) ln n + n − ln √(2π) for n ≥ 1 (Loader 2000: a 5-term series above 15)."""
    out = np.empty_like(n)
    big = n > 15
    nb = n[big]
    nn = nb * nb
    out[big] = (1 / 12 - (1 / 360 - (1 / 1260 - (1 / 1680 - 1 / (1188 * nn)) / nn) / nn) / nn) / nb
    ns = n[~big]
    out[~big] = special.gammaln(ns + 1) - (ns + 0.5) * np.log(ns) + ns - _LN_SQRT_2PI
    return out


def _bd0(x: np.ndarray, m: np.ndarray, lnm: np.ndarray, rel_m: float) -> tuple[np.ndarray, np.ndarray]:
    """x ln(x/M) + M − x ≥ 0 (Loader's deviance term) and a bound on its absolute error.

    Near x = M by the series (x − M)v + 2x Σ_{j≥1} v^{2j+1}/(2j + 1), v = (x − M)/(x + M), |v| < 0.1
    (12 terms: the remainder is below 1e-24 relative); elsewhere directly (ln M given separately so
    that M may underflow).  ``rel_m`` bounds the relative error of M (∂bd0/∂M = 1 − x/M).
    """
    d = x - m
    near = np.abs(d) < 0.1 * (x + m)
    out = np.empty_like(x)
    err = np.empty_like(x)
    if near.any():
        xn, dn = x[near], d[near]
        v = dn / (x[near] + m[near])
        r = dn * v
        ej = 2 * xn * v
        v2 = v * v
        for j in range(1, 13):
            ej = ej * v2
            r = r + ej / (2 * j + 1)
        out[near] = r
        err[near] = 8 * _U * np.abs(r) + _U
    far = ~near
    if far.any():
        xf = x[far]
        lx = np.log(xf)
        out[far] = xf * (lx - lnm[far]) + m[far] - xf
        err[far] = 4 * _U * (xf * (np.abs(lx) + np.abs(lnm[far])) + m[far] + xf)
    return out, err + np.abs(d) * rel_m


def _two_product(a: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """p = fl(a·b) and the exact rounding error e (a·b = p + e; Dekker 1971), nan where splitting overflows."""
    a = np.asarray(a, dtype=float)
    p = a * b
    with np.errstate(over="ignore", invalid="ignore"):
        ca = 134217729.0 * a
        ahi = ca - (ca - a)
        alo = a - ahi
        cb = 134217729.0 * b
        bhi = cb - (cb - b)
        blo = b - bhi
        e = ((ahi * bhi - p) + ahi * blo + alo * bhi) + alo * blo
    e = np.where(np.isfinite(e) & (np.abs(p) < 1e300), e, np.nan)
    return p, e


class _RR:
    """The privacy-loss distribution of T-fold ε₀-randomised response: L = (T − 2k)ε₀ with
    k ~ Binomial(T, q), q = 1/(1 + e^{ε₀}) (k = the number of low-loss outcomes)."""

    def __init__(self, e0: float, T: int):
        self.e0, self.T = e0, T
        self.Tf = float(T)
        self.lq = -_softplus(e0)  # ln q
        self.lp = -_softplus(-e0)  # ln p
        self.q, self.p = float(special.expit(-e0)), float(special.expit(e0))
        self.mode = min(float(T), math.floor((self.Tf + 1) * self.q))
        self.sd = math.sqrt(self.Tf * self.p * self.q)
        lt = math.log(self.Tf)
        # relative error of M = T·q (resp. T·p) computed as exp(ln T + ln q)
        self.rel_m = 4 * _U * (abs(lt) + abs(self.lq) + abs(self.lp) + 2)

    def logpmf(self, k: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """ln P[K = k] (Loader's saddle-point form, exact up to rounding) and a bound on its error."""
        T, Tf = self.T, self.Tf
        lp = np.empty_like(k)
        err = np.empty_like(k)
        lo, hi = k == 0, k == Tf
        lp[lo] = Tf * self.lp
        err[lo] = 4 * _U * abs(Tf * self.lp) + Tf * 4 * _U * abs(self.lp)
        lp[hi] = Tf * self.lq
        err[hi] = 4 * _U * abs(Tf * self.lq) + Tf * 4 * _U * abs(self.lq)
        mid = ~(lo | hi)
        if mid.any():
            km = k[mid]
            rest = Tf - km
            lt = math.log(Tf)
            lnm1 = np.full_like(km, lt + self.lq)
            lnm2 = np.full_like(km, lt + self.lp)
            m1, m2 = np.exp(lnm1), np.exp(lnm2)
            b1, e1 = _bd0(km, m1, lnm1, self.rel_m)
            b2, e2 = _bd0(rest, m2, lnm2, self.rel_m)
            st = _stirlerr(np.array([Tf]))[0] - _stirlerr(km) - _stirlerr(rest)
            half = 0.5 * (lt - math.log(2 * math.pi) - np.log(km) - np.log(rest))
            lp[mid] = st - b1 - b2 + half
            err[mid] = e1 + e2 + 8 * _U * (np.abs(st) + np.abs(half) + 1) + 1e-15 * (km <= 15) + 1e-15 * (rest <= 15)
        del T
        return lp, err

    def window(self, ld: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, float] | None:
        """Terms k ∈ [k_lo, k_hi] around the mode with (ln pmf, error) and a bound on the mass outside,
        at most e^{−40}·δ for target ln δ = ld; None when more than the window's 10⁶ terms are needed.

        The mass outside is bounded by geometric series: the ratios P[k − 1]/P[k] below the mode
        and P[k + 1]/P[k] above it decrease outward.
        """
        z = math.sqrt(2 * (46 - min(ld, 0.0))) + 3
        extra = 2
        for _ in range(40):
            klo = max(0.0, math.floor(self.mode - z * self.sd) - extra)
            khi = min(self.Tf, math.ceil(self.mode + z * self.sd) + extra)
            if khi - klo + 1 > _BINOMIAL_WINDOW or self.Tf > 2.0**52:
                return None
            k = np.arange(klo, khi + 1, dtype=float)
            lp, err = self.logpmf(k)
            tail = -math.inf
            if klo > 0:  # mass of k < k_lo
                lr = math.log(klo) - math.log(self.Tf - klo + 1) + self.e0  # ln P[klo − 1]/P[klo]
                tail = lr - _log1mexp(lr) + lp[0] + err[0] if lr < 0 else math.inf
            if khi < self.Tf:  # mass of k > k_hi
                lr = math.log(self.Tf - khi) - math.log(khi + 1) - self.e0
                t2 = lr - _log1mexp(lr) + lp[-1] + err[-1] if lr < 0 else math.inf
                tail = max(tail, t2) + _LN2
            if tail <= ld - 40:
                return k, lp, err, (math.exp(tail) if tail > -math.inf else 0.0)
            z *= 1.25
            extra *= 2
        return None

    def log_delta_upper(self, eps: float, win: tuple[np.ndarray, np.ndarray, np.ndarray, float]) -> float:
        """An upper bound on ln δ(ε) = ln Σ_k P[k]·(1 − e^{ε − (T − 2k)ε₀})₊ (computed sum + rounding + tails)."""
        k, lp, err, tail = win
        loss, loss_lo = _two_product(self.Tf - 2 * k, self.e0)  # loss + loss_lo = (T − 2k)ε₀ exactly
        lo_ok = np.isfinite(loss_lo)
        lo_c = np.where(lo_ok, loss_lo, 0.0)
        # terms whose exact loss exceeds ε (a prefix: the loss decreases in k); where the exact
        # product is not available, every term that might
        inc = (loss > eps) | ((loss == eps) & (lo_c > 0)) | (~lo_ok & (loss >= eps - _U * np.abs(loss)))
        n = int(np.count_nonzero(inc))
        if n == 0:
            return math.log(tail) if tail > 0 else -math.inf
        lpn, lo_ok = lp[:n] + err[:n], lo_ok[:n]  # upper bounds of ln pmf
        arg = np.minimum((eps - loss[:n]) - lo_c[:n], 0.0)  # ε − loss within 2u|arg| (+u|loss| if not lo_ok)
        top = float(np.max(lpn))
        w = np.exp(lpn - top)  # within a relative 2u(|lpn − top| + 1)
        s = float(np.sum(w * -np.expm1(arg) * (1 + 2 * _U * (np.abs(lpn - top) + 2))))
        # 1 − e^{arg}: expm1 within 1 ulp, the argument within 2u|arg| (+ u|loss| where the exact
        # product was not available), i.e. an absolute error e^{arg}·Δarg
        darg = 2 * _U * np.abs(arg) + np.where(lo_ok, 0.0, _U * np.abs(loss[:n]))
        abs_w = float(np.sum(w * np.exp(arg) * darg)) * 2
        # the sum of n positive terms (pairwise: ≤ (log₂n + 1)u relative; counted generously)
        total = (s + abs_w) * (1 + _U * (math.log2(n) + 12))
        if total <= 0:
            return math.log(tail) if tail > 0 else -math.inf
        lt = math.log(total)
        up = top + lt
        up += _U * (abs(top) + abs(lt) + abs(up))  # the roundings of ln and of the addition
        return float(np.logaddexp(up, math.log(tail))) if tail > 0 else up

    def hoeffding_eps(self, delta: float) -> float:
        """Tε₀·tanh(ε₀/2) + ε₀√(2T ln(1/δ)) (≤ Tε₀): Hoeffding's bound on P[L > ε] ≥ δ(ε)."""
        e0, Tf = self.e0, self.Tf
        e = min(Tf * e0, Tf * e0 * math.tanh(e0 / 2) + e0 * math.sqrt(2 * Tf * -math.log(delta)))
        return e * (1 + 16 * _U)


def _basic_up(e0: float, T: int) -> float:
    """T·ε₀ rounded up to a float (basic composition of T ε₀-DP steps: ε = T·ε₀ at δ = 0), exactly."""
    from fractions import Fraction

    x = T * e0
    if math.isfinite(x) and Fraction(x) < Fraction(T) * Fraction(e0):
        x = math.nextafter(x, math.inf)
    return x


def _rr_eps(e0: float, T: int, delta: float) -> float:
    """Smallest float ε with δ(ε) ≤ δ (certified) for T-fold ε₀-randomised response, and never above
    basic composition's T·ε₀ (which the rounding of the windows could exceed by a few ulps)."""
    if T * e0 > _MAX:
        raise ValueError(f"parameters 'eps0' = {e0!r}, 'count' = {T!r}: the composed ε (≈ count·eps0) "
                         "exceeds the float range")
    return min(_rr_eps_windows(e0, T, delta), _basic_up(e0, T))


def _rr_eps_windows(e0: float, T: int, delta: float) -> float:
    rr = _RR(e0, T)
    ld = math.log(delta)
    win = rr.window(ld)
    if win is None:
        return rr.hoeffding_eps(delta)

    def ok(e: float) -> bool:
        return rr.log_delta_upper(e, win) <= ld

    if ok(0.0):
        return 0.0
    hi = min(rr.Tf * e0 * (1 + 4 * _U), _MAX)
    if not ok(hi):  # only where T·ε₀ overflows the floats (the largest loss is then not representable)
        raise ValueError(f"parameter 'eps0' = {e0!r}: the composed loss of {rr.Tf:g} steps exceeds the float range")
    return _first_true(ok, 0.0, hi)


# --------------------------------------------------------------------------- the accountant
def accountant_name(discretization: float | None = DISCRETIZATION) -> str:
    """A short description of the accountant (exact forms where they exist, else dp-accounting).

    Examples
    --------
    >>> accountant_name(1e-4).startswith("exact Gaussian / randomised-response composition")
    True
    """
    try:
        from importlib.metadata import version

        ver = version("dp-accounting")
    except Exception:  # pragma: no cover - metadata missing
        ver = "?"
    grid = "interval ε₀ (exact)" if discretization is None else f"interval {discretization:g}"
    return ("exact Gaussian / randomised-response composition, rounded up; other mixtures: "
            f"dp-accounting {ver} PLD, pessimistic, connect-the-dots, {grid}")


def _parse_steps(steps: Any) -> tuple[list, list, dict, tuple[float, list]]:
    """Validate ``steps``; return Gaussian (σ, Δ, c), Laplace (Δ/b, c), ε₀ → total count, and
    (Σ count·ln(1 − δ₀), the (δ₀, count) pairs): the mass the (ε₀, δ₀) steps move to +∞."""
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence) or len(steps) == 0:
        raise ValueError(f"parameter 'steps' = {steps!r} must be a non-empty list of mechanism tuples")
    gauss: list[tuple[float, float, int]] = []
    lap: list[tuple[float, int]] = []
    rr: dict[float, int] = {}
    log_keep = 0.0
    approx: list[tuple[float, int]] = []
    for step in steps:
        if not isinstance(step, (tuple, list)) or not step or not isinstance(step[0], str):
            raise ValueError(f"parameter 'steps': entry {step!r} must be a tuple (kind, …, count)")
        kind = step[0]
        if kind in ("gaussian", "laplace"):
            noise = "sigma" if kind == "gaussian" else "scale"
            if len(step) != 4:
                raise ValueError(f"parameter 'steps': {step!r} must be ({kind!r}, {noise}, sensitivity, count)")
            s, d, c = _positive(noise, step[1]), _positive("sensitivity", step[2]), _count("count", step[3])
            if kind == "gaussian":
                gauss.append((s, d, c))
            else:
                w = d / s if math.log(d) - math.log(s) < 709 else math.inf
                if w == math.inf:
                    raise ValueError(f"parameter 'scale' = {step[1]!r}: sensitivity/scale exceeds the float range")
                if w > 0:
                    lap.append((w, c))
        elif kind == "pure":
            if len(step) != 3:
                raise ValueError(f"parameter 'steps': {step!r} must be ('pure', eps0, count)")
            e0, c = _nonneg("eps0", step[1]), _count("count", step[2])
            if e0 > 0:
                rr[e0] = rr.get(e0, 0) + c
        elif kind == "approx":
            if len(step) != 4:
                raise ValueError(f"parameter 'steps': {step!r} must be ('approx', eps0, delta0, count)")
            e0, d0, c = _nonneg("eps0", step[1]), _real("delta0", step[2]), _count("count", step[3])
            if not 0 <= d0 < 1:
                raise ValueError(f"parameter 'delta0' = {step[2]!r} must lie in [0, 1)")
            if e0 > 0:
                rr[e0] = rr.get(e0, 0) + c
            log_keep += c * math.log1p(-d0)
            if d0 > 0:
                approx.append((d0, c))
        else:
            raise ValueError(f"parameter 'steps': unknown mechanism kind {kind!r} "
                             "(expected 'gaussian', 'laplace', 'pure' or 'approx')")
    return gauss, lap, rr, (log_keep, approx)


def _finite_target(delta: float, keep: tuple[float, list]) -> float:
    """δ_f with (1 − a) + a·δ_f ≤ δ, a = Π(1 − δ₀)^count: rounded down; 0.0 when 1 − a = δ exactly
    (then only δ_f = 0 qualifies); −1.0 when 1 − a > δ (no finite ε).

    1 − a = −expm1(Σ count·ln(1 − δ₀)) within 8u relative; when that cannot decide against δ, and
    the counts add up to at most 64, 1 − a is computed exactly in rationals (else: −1, pessimistic).
    """
    log_keep, approx = keep
    if not approx:
        return delta
    oma = -math.expm1(log_keep)
    if oma * (1 + 16 * _U) + _TINY < delta:
        return (delta - oma * (1 + 16 * _U) - _TINY) / (1 - oma) * (1 - 8 * _U)
    if oma * (1 - 16 * _U) > delta or sum(c for _, c in approx) > 64:
        return -1.0
    from fractions import Fraction

    keep_exact = Fraction(1)
    for d0, c in approx:
        keep_exact *= (1 - Fraction(d0)) ** c
    rest = Fraction(delta) - (1 - keep_exact)
    if rest < 0:
        return -1.0
    return float(rest / keep_exact) * (1 - 4 * _U) if rest > 0 else 0.0


def _up(x: float, n: int = 4) -> float:
    return x * (1 + n * _U) if x > 0 else x


def _sides(d: Any) -> list[np.ndarray]:
    out = []
    for side in (d._pmf_remove, d._pmf_add):
        probs = getattr(side, "_probs", None)
        if probs is None:
            probs = np.fromiter(getattr(side, "_loss_probs", {}).values(), dtype=float)
        out.append(np.asarray(probs, dtype=float))
    return out


def _l2(d: Any) -> float:
    """The largest 2-norm of a dp-accounting PLD's probability vectors (remove / add adjacency)."""
    return max(float(np.sqrt(np.sum(p * p))) for p in _sides(d))


def _size(d: Any) -> int:
    return max(len(p) for p in _sides(d))


def _count_above(d: Any, eps: float) -> int:
    """How many grid losses of a dp-accounting PLD exceed ε (an upper bound for sparse PMFs)."""
    n = 0
    for side in (d._pmf_remove, d._pmf_add):
        probs = getattr(side, "_probs", None)
        if probs is None:
            n = max(n, len(getattr(side, "_loss_probs", {})))
            continue
        upper = side._lower_loss + len(probs) - 1
        n = max(n, min(len(probs), max(0, int(upper - math.floor(eps / side._discretization)) + 1)))
    return max(n, 1)


def _library_eps(gauss_lm: float | None, lap: list, rr: dict, delta: float, h: float) -> float | None:
    """ε at δ from dp-accounting (pessimistic PLDs, connect-the-dots), rounded up by the FFT round-off
    bound; None when δ is below that bound.  Gaussians arrive folded into one of ln μ = gauss_lm."""
    from dp_accounting.pld import common, pld_pmf
    from dp_accounting.pld import privacy_loss_distribution as pld

    # the c-fold compositions of the randomised-response groups directly: binomial PLDs over their
    # windows (no FFT power), each probability at its upper bound, the mass outside the window at +∞
    wins = {}
    for e0, c in rr.items():
        if c > 1:
            rrc = _RR(e0, c)
            win = rrc.window(math.log(delta) - 10)
            if win is None:  # beyond 10⁶ binomial terms: the caller falls back to basic composition
                return None
            wins[e0] = (rrc, win)
    # the grid: at most _GRID_POINTS points over the composed loss range (a window spans
    # 2ε₀·(its number of terms); one step of loss bounded by w spans 2w, c Laplace steps ≤ 17√c·w
    # after the library's tail truncation; the Gaussian ≈ 20μ + μ²/2)
    width = 1.0
    if gauss_lm is not None:
        width += 20 * math.exp(gauss_lm) + math.exp(2 * gauss_lm) / 2
    for w, c in lap:
        width += min(c * 2 * w, 17 * math.sqrt(c) * w)
    for e0 in rr:
        width += 2 * e0 * (len(wins[e0][1][0]) if e0 in wins else 1)
    h = max(h, width / _GRID_POINTS)
    parts = []
    if gauss_lm is not None:
        parts.append((pld.from_gaussian_mechanism(1.0, sensitivity=math.exp(gauss_lm), pessimistic_estimate=True,
                                                  value_discretization_interval=h, use_connect_dots=True), 1))
    for w, c in lap:
        parts.append((pld.from_laplace_mechanism(1.0, sensitivity=w, pessimistic_estimate=True,
                                                 value_discretization_interval=h, use_connect_dots=True), c))
    for e0 in rr:
        if e0 not in wins:
            parts.append((pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e0, 0.0),
                                                      value_discretization_interval=h), 1))
            continue
        rrc, (k, lp, err, tail) = wins[e0]
        # each loss (c − 2k)ε₀ rounded up to the grid
        idx = np.ceil((rrc.Tf - 2 * k) * e0 / h * (1 + 4 * _U * np.sign(rrc.Tf - 2 * k)) + 1e-9).astype(np.int64)
        lower = int(idx.min())
        probs = np.bincount(idx - lower, weights=np.exp(lp + err) * (1 + 4 * _U))
        parts.append((pld.PrivacyLossDistribution(pld_pmf.DensePLDPmf(h, lower, probs, tail, True)), 1))
    # FFT round-off, tracked in the 2-norm (Higham 2002, Thm 24.2: a transform of length L errs by
    # ≤ η·log₂L·‖x‖₂√L, η = 7u): a convolution of probability vectors x, y → z (|fft| ≤ ‖·‖₁ = 1)
    # errs by ≤ η·log₂L·(‖x‖₂ + ‖y‖₂ + ‖z‖₂), a c-th power by ≤ c(η·log₂L·‖x‖₂ + u) + η·log₂L·‖z‖₂;
    # earlier errors pass through later convolutions unamplified (Young: ‖e ⊛ y‖₂ ≤ ‖e‖₂‖y‖₁).
    eta = 7 * _U
    total, err2 = None, 0.0
    for one, c in parts:
        if c > 1:
            x2 = _l2(one)
            one = one.self_compose(c)
            size = _size(one)
            err2 += c * (eta * math.log2(size) * x2 + _U) + eta * math.log2(size) * _l2(one)
        if total is None:
            total = one
        else:
            x2, y2 = _l2(total), _l2(one)
            total = total.compose(one)
            err2 += eta * math.log2(max(_size(total), 2)) * (x2 + y2 + _l2(total))
    n = max(_size(total), 2)
    # δ(ε) = Σ_{ℓ>ε} p_ℓ(1 − e^{ε−ℓ}) errs by ≤ ‖Δp‖₂·√(number of grid losses above ε); the sums
    # of positive terms add a relative n·u
    base = delta * (1 - 4 * n * _U)
    e_hat = float(total.get_epsilon_for_delta(base))
    if not math.isfinite(e_hat):
        return None
    margin = err2 * math.sqrt(_count_above(total, e_hat))
    target = base - margin
    if target <= delta / 2:
        return None
    e = float(total.get_epsilon_for_delta(target))
    return _up(e, 16) if math.isfinite(e) else None


def _basic_split(gauss: tuple[float, float] | None, lap: list, rr: dict, delta: float) -> float:
    """Basic composition of the groups with δ split equally: Σ ε_i(δ/g) (valid, looser).  A Laplace
    step of Δ/b = w is w-DP, so it enters as ε₀ = w randomised response."""
    groups = len(rr) + len(lap) + (gauss is not None)
    d = delta / groups * (1 - 8 * _U)
    total = _gauss_eps(gauss[0], gauss[1], d) if gauss is not None else 0.0
    merged = dict(rr)
    for w, c in lap:
        merged[w] = merged.get(w, 0) + c
    for e0, c in merged.items():
        total += _rr_eps(e0, c, d)
    return _up(total, 2 * groups + 2)


def pld_epsilon(steps: Sequence[Sequence[Any]], delta: float, *, discretization: float = DISCRETIZATION) -> float:
    r"""ε at δ of the composition of the listed mechanisms (adaptive composition included), an upper bound.

    Exact where a closed form exists (module docstring), rounded up with a computed error bound:
    Gaussian steps only (one Gaussian), or ε₀-DP / (ε₀, δ₀)-DP steps of one common ε₀ (T-fold
    randomised response, a binomial).  Other mixtures: dp-accounting's pessimistic PLDs on a grid
    of interval ``discretization`` (widened to at most 2²¹ points), self-composed ``count`` times
    (FFT) and composed, δ reduced by the FFT round-off bound; steps whose loss is bounded by
    w > 700 enter as the constant loss w; where the library cannot be used, basic composition of
    the groups with δ split equally.  Every branch returns an upper bound on the exact ε.

    Parameters
    ----------
    steps : sequence of tuples
        ``("gaussian", sigma, sensitivity, count)`` — Gaussian noise σ on an ℓ2-sensitivity-Δ query;
        ``("laplace", scale, sensitivity, count)`` — Laplace noise on an ℓ1-sensitivity-Δ query;
        ``("pure", eps0, count)`` — any ε₀-DP mechanism (worst-case PLD: randomised response);
        ``("approx", eps0, delta0, count)`` — any (ε₀, δ₀)-DP mechanism.
    delta : float
        δ ∈ (0, 1).
    discretization : float, optional
        Interval of the privacy-loss grid where dp-accounting is used (default 1e-4).

    Returns
    -------
    float
        ε ≥ 0, finite; ``inf`` only when no finite ε reaches δ (the (ε₀, δ₀) steps alone put
        more than δ of mass at infinite loss: 1 − Π(1 − δ₀)^count > δ).

    Raises
    ------
    ValueError
        For δ ∉ (0, 1), a non-positive interval, an empty list, a malformed step, or a composed
        ε beyond the float range.

    Examples
    --------
    >>> import math
    >>> e = pld_epsilon([("gaussian", 3.7 * math.sqrt(20), 1.0, 20)], 1e-5)   # = one Gaussian of σ = 3.7
    >>> abs(e / gaussian_eps(3.7, 1e-5) - 1) < 1e-12
    True
    >>> pld_epsilon([("pure", 0.1, 1)], 1e-9) <= 0.1
    True
    >>> round((1e6 - pld_epsilon([("pure", 1e6, 1)], 1e-5)) / 1e-5, 4)   # ε = ln(e^ε₀ − δ(1 + e^ε₀)) = ε₀ − δ
    1.0
    >>> round(pld_epsilon([("gaussian", 1.0, 1.0, 10**7)], 1e-5) / 5e6, 3)   # one Gaussian of μ = √10⁷: ≈ μ²/2 + μz
    1.003
    """
    delta = _unit("delta", delta)
    h = _positive("discretization", discretization)
    gauss, lap, rr, keep = _parse_steps(steps)
    d = _finite_target(delta, keep)
    if d < 0 or (d == 0 and gauss):
        return math.inf
    if d == 0:  # the finite part must have δ(ε) = 0: ε at least its largest loss, Σ count·w (basic composition)
        top = math.fsum(c * w for w, c in lap) + math.fsum(c * e0 for e0, c in rr.items())
        if top > _MAX:
            raise ValueError("parameter 'steps': the composed ε exceeds the float range")
        return _up(top, 2 * (len(lap) + len(rr)) + 2)
    g = _gauss_group_lm(gauss) if gauss else None
    if g is None and not lap and not rr:
        return 0.0
    if not lap and not rr:
        return _gauss_eps(g[0], g[1], d)
    if g is None and not lap and len(rr) == 1:
        (e0, c), = rr.items()
        return _rr_eps(e0, c, d)
    # steps of loss bounded by w > 700 (beyond the library) become the constant loss w
    shift = 0.0
    for e0 in [e for e in rr if e > _LIBRARY_MAX_LOSS]:
        shift += rr.pop(e0) * e0
    heavy = [(w, c) for w, c in lap if w > _LIBRARY_MAX_LOSS]
    lap = [(w, c) for w, c in lap if w <= _LIBRARY_MAX_LOSS]
    shift += sum(w * c for w, c in heavy)
    # a Laplace step of Δ/b = w is w-DP: past _LAPLACE_SELF_COMPOSE steps its group enters as w-randomised
    # response (the worst case of w-DP steps: valid, looser), whose c-fold composition is exact, instead
    # of an FFT power whose round-off bound grows with c
    for w, c in [(w, c) for w, c in lap if c > _LAPLACE_SELF_COMPOSE]:
        rr[w] = rr.get(w, 0) + c
    lap = [(w, c) for w, c in lap if c <= _LAPLACE_SELF_COMPOSE]
    if shift > _MAX:
        raise ValueError("parameter 'steps': the composed ε exceeds the float range")
    if not lap and not rr:
        rest = _gauss_eps(g[0], g[1], d) if g is not None else 0.0
    elif g is None and not lap and len(rr) == 1:
        (e0, c), = rr.items()
        rest = _rr_eps(e0, c, d)
    else:
        rest = None
        if g is None or -6 * math.log(10) <= g[0] <= 4 * math.log(10):
            try:
                rest = _library_eps(None if g is None else g[0], lap, rr, d, h)
            except (OverflowError, MemoryError, ValueError, FloatingPointError):  # pragma: no cover - guarded above
                rest = None
        if rest is None:
            rest = _basic_split(g, lap, rr, d)
    total = _up(rest + shift, 4) if shift else rest
    if total > _MAX:
        raise ValueError("parameter 'steps': the composed ε exceeds the float range")
    return total


# --------------------------------------------------------------------------- calibrations
def tight_pure_step_eps(eps: float, delta: float, T: int, *, discretization: float | None = None,
                        rtol: float = 1e-10) -> float:
    r"""Largest per-step ε₀ such that T adaptive ε₀-DP steps are (ε, δ)-DP (optimal composition).

    The worst case of T ε₀-DP steps is T-fold ε₀-randomised response (Kairouz, Oh & Viswanath
    2015), whose δ(ε) is computed exactly (a binomial sum, with a rigorous error bound:
    :func:`pld_epsilon`); bisection on the floats ε₀ of "δ(ε; ε₀) + bound ≤ δ" (monotone in ε₀),
    started from basic composition ε₀ = ε/T, until the bracket is within ``rtol``.  The returned
    ε₀ is certified: ``pld_epsilon([("pure", ε₀, T)], δ) ≤ ε``.  Beyond 10⁶ binomial terms
    (T·p(1 − p) ≳ 1.5e8) Hoeffding's bound is inverted instead (valid, looser).  Where the
    accountant switches between the two, its certified ε is not monotone in ε₀, so the answer is
    the largest certified ε₀ of the bracket found, which can lie a few 1e-6 (relative) below the
    largest certified one there (e.g. ε = 6.6e12, T = 1e12); it is always certified.

    Parameters
    ----------
    eps : float
        Total ε > 0.
    delta : float
        Total δ ∈ (0, 1).
    T : int
        Number of steps ≥ 1.
    discretization : float or None, optional
        Accepted for compatibility and validated; unused (the composition is exact).
    rtol : float, optional
        Relative width of the final bracket in ε₀ (≥ 0; 0 = adjacent floats).

    Returns
    -------
    float
        ε₀ > 0, finite.

    Raises
    ------
    ValueError
        For ε ≤ 0, δ ∉ (0, 1), T < 1, a bad ``discretization`` or ``rtol``, a non-finite argument,
        or an ε so small that no positive float ε₀ is certified (``eps`` is named).

    Examples
    --------
    >>> e0 = tight_pure_step_eps(0.5, 1e-8, 737)
    >>> pld_epsilon([("pure", e0, 737)], 1e-8) <= 0.5
    True
    >>> e0 > 0.5 / math.sqrt(8 * 737 * math.log(1e8))   # larger than advanced composition's ε₀ (Cor. 3.21)
    True
    >>> tight_pure_step_eps(1e6, 1e-5, 10) >= 1e5      # at least basic composition's ε/T
    True
    """
    eps, delta, T = _positive("eps", eps), _unit("delta", delta), _count("T", T)
    if discretization is not None:
        _positive("discretization", discretization)
    rtol = _nonneg("rtol", rtol)
    return _tight_pure(eps, delta, T, rtol)


@functools.lru_cache(maxsize=256)
def _tight_pure(eps: float, delta: float, T: int, rtol: float) -> float:
    ld = math.log(delta)

    def ok(e0: float) -> bool:
        if _basic_up(e0, T) <= eps:  # basic composition
            return True
        rr = _RR(e0, T)
        win = rr.window(ld)
        if win is None:
            return rr.hoeffding_eps(delta) <= eps
        return rr.log_delta_upper(eps, win) <= ld

    lo = eps / T  # basic composition: the largest float with T·ε₀ ≤ ε (the product taken exactly)
    while lo > 0 and _basic_up(lo, T) > eps:
        lo = math.nextafter(lo, 0.0)
    lo = max(lo, _TINY)
    while not ok(lo):  # pragma: no cover - basic composition is always certified
        lo /= 2
    # exponential search in the floats' bit order (a step of 2⁵² is a factor 2; the steps double, so the
    # ratio squares): O(log log) calls of ok from the subnormal end, where plain doubling took ~1000
    cap = _MAX / (4.0 * T)   # beyond, the composed loss T·ε₀ leaves the floats: basic composition answers
    if lo >= cap:
        return lo
    a, top, step = _f2i(lo), _f2i(cap), 1 << 52
    while True:
        b = min(a + step, top)
        if not ok(_i2f(b)):
            break
        if b == top:
            a = b
            break
        a, step = b, step * 2
    lo, hi = _i2f(a), _i2f(b)
    e0 = hi if a == top else _last_true(ok, lo, hi, rtol)   # at the cap: certified below, or stepped down
    for _ in range(64):  # the certificate callers check: pld_epsilon(ε₀) ≤ ε
        if e0 > 0 and _rr_eps(e0, T, delta) <= eps:
            return e0
        if e0 <= 0:
            break
        e0 = math.nextafter(e0, 0.0)
    if lo > 0 and _rr_eps(lo, T, delta) <= eps:
        return lo  # pragma: no cover
    # e.g. ε = 5e-324 over T = 1e12 steps: the accountant's bound (Hoeffding's there) exceeds ε at every float ε₀
    raise ValueError(f"parameter 'eps' = {eps!r} is too small for T = {T} steps at delta = {delta!r}: no positive "
                     "float ε₀ is certified (the accountant's certified bound for the smallest one exceeds eps)")


def tight_gaussian_sigma(eps: float, delta: float, T: int, sensitivity: float = 1.0, *,
                         discretization: float = DISCRETIZATION, rtol: float = 1e-9) -> float:
    r"""Smallest per-step σ such that T Gaussian steps of ℓ2 sensitivity Δ are (ε, δ)-DP.

    T Gaussian steps compose to one Gaussian of noise σ/√T (exact), so this is √T times
    :func:`gaussian_sigma`, found as the smallest float σ at which the composition's δ(ε) plus its
    error bound is ≤ δ (the value :func:`pld_epsilon` certifies: ``pld_epsilon([("gaussian", σ,
    Δ, T)], δ) ≤ ε``).

    Parameters
    ----------
    eps : float
        Total ε > 0.
    delta : float
        Total δ ∈ (0, 1).
    T : int
        Number of Gaussian steps ≥ 1.
    sensitivity : float, optional
        Per-step ℓ2 sensitivity Δ > 0 (default 1).
    discretization, rtol : float, optional
        Accepted for compatibility and validated; unused (the composition is exact and the
        answer is found to adjacent floats).

    Returns
    -------
    float
        σ > 0, finite.

    Raises
    ------
    ValueError
        For ε ≤ 0, δ ∉ (0, 1), T < 1, Δ ≤ 0, a non-finite argument, or σ beyond the float range.

    Examples
    --------
    >>> s = tight_gaussian_sigma(1.0, 1e-5, 20)
    >>> abs(s / (gaussian_sigma(1.0, 1e-5) * math.sqrt(20)) - 1) < 1e-12
    True
    >>> z = 4.264890793922825                        # Φ⁻¹(1 − 1e-5); μ²/2 + μz = ε at μ = √(z² + 2ε) − z
    >>> round(tight_gaussian_sigma(1e3, 1e-5, 10) * (math.sqrt(z * z + 2e3) - z) / math.sqrt(10), 2)
    1.0
    """
    eps, delta, T = _positive("eps", eps), _unit("delta", delta), _count("T", T)
    sens = _positive("sensitivity", sensitivity)
    _positive("discretization", discretization)
    _nonneg("rtol", rtol)
    return _tight_gauss(eps, delta, T, sens)


@functools.lru_cache(maxsize=256)
def _tight_gauss(eps: float, delta: float, T: int, sens: float) -> float:
    s = _gauss_sigma(eps, delta, sens, T)
    for _ in range(64):
        if pld_epsilon([("gaussian", s, sens, T)], delta) <= eps:
            return s
        s = math.nextafter(s, math.inf)
    return s  # pragma: no cover


# --------------------------------------------------------------------------- zCDP → (ε, δ)
def _zcdp_terms(u: float, rho: float, ld: float) -> tuple[float, float]:
    """ε_α(ρ, δ) at α = 1 + u and a bound on its absolute rounding error (Canonne, Kamath & Steinke 2020).

    ε_α = αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), written with u = α − 1 > 0 as
    (1 + u)ρ + ln u − ln(1 + u) − (ln δ + ln(1 + u))/u (no cancellation in 1 − 1/α near α = 1).
    """
    lu, l1u = math.log(u), math.log1p(u)
    a = (1 + u) * rho
    b = (ld + l1u) / u
    val = a + lu - l1u - b
    err = 8 * _U * (abs(a) + abs(lu) + abs(l1u) + abs(b) + abs(val))
    return val, err


def _zcdp_rho_at(u: float, eps: float, ld: float) -> float:
    """The largest ρ whose ε_α (α = 1 + u) is ≤ ε: ε_α is linear in ρ."""
    lu, l1u = math.log(u), math.log1p(u)
    return (eps - lu + l1u + (ld + l1u) / u) / (1 + u)


def _golden_min(f: Callable[[float], float], lo: float, hi: float, n_grid: int = 361) -> float:
    """A minimiser of f on [lo, hi]: a grid, then golden-section search between the best point's neighbours.

    Deterministic (a fixed number of evaluations); any point it returns gives a valid bound, the
    search only makes it tighter.
    """
    xs = np.linspace(lo, hi, n_grid)
    vals = [f(float(x)) for x in xs]
    i = int(np.argmin(vals))
    a, b = float(xs[max(i - 1, 0)]), float(xs[min(i + 1, n_grid - 1)])
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(80):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(d)
    best = min((vals[i], float(xs[i])), (fc, c), (fd, d))
    return best[1]


#: range of t = ln(α − 1) searched by the zCDP conversions (α from 1 + e^-30 to 1 + e^60)
_ZCDP_T = (-30.0, 60.0)


def zcdp_eps(rho: float, delta: float) -> float:
    r"""The smallest ε at δ that ρ-zCDP certifies by the optimal conversion of Canonne, Kamath & Steinke (2020).

    ρ-zCDP (Bun & Steinke 2016: (α, αρ)-Rényi DP for every α > 1) implies (ε, δ)-DP with

        ε = inf_{α>1} αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1)

    (Canonne, Kamath & Steinke 2020, "The discrete Gaussian for differential privacy", NeurIPS,
    Proposition 12 applied to every order, Corollary 13:
    δ = inf_α e^{(α−1)(αρ−ε)}/(α − 1)·(1 − 1/α)^α; the ε above is that δ solved for ε).  Every α gives a
    valid ε, so the value returned, at the α found by a grid and golden-section search over
    ln(α − 1) ∈ [−30, 60] and rounded up by its rounding-error bound, is certified; it is never above
    Bun & Steinke's ρ + 2√(ρ ln(1/δ)) (Proposition 1.3), which is taken where it is smaller.  Where
    δ² ≥ 1 − e^{−ρ} the total variation bound √(1 − e^{−KL}) ≤ δ (KL ≤ ρ) gives ε = 0.

    Parameters
    ----------
    rho : float
        ρ ≥ 0.
    delta : float
        δ ∈ (0, 1).

    Returns
    -------
    float
        ε ≥ 0.

    Raises
    ------
    ValueError
        For ρ < 0, δ ∉ (0, 1) or a non-finite argument.

    Examples
    --------
    >>> rho = 0.5 / 3.0 ** 2                          # the Gaussian mechanism N(0, σ² = 9), Δ = 1
    >>> e = zcdp_eps(rho, 1e-5)
    >>> gaussian_eps(3.0, 1e-5) < e < rho + 2 * math.sqrt(rho * math.log(1e5))
    True
    """
    rho, delta = _nonneg("rho", rho), _unit("delta", delta)
    if rho == 0 or delta * delta >= -math.expm1(-rho):
        return 0.0
    ld = math.log(delta)
    bs = rho + 2 * math.sqrt(rho * -ld)
    t = _golden_min(lambda t: _zcdp_terms(math.exp(t), rho, ld)[0], *_ZCDP_T)
    val, err = _zcdp_terms(math.exp(t), rho, ld)
    e = val + err
    return max(0.0, min(e, _up(bs, 8)))


def zcdp_delta(rho: float, eps: float) -> float:
    r"""The smallest δ at ε that ρ-zCDP certifies (Canonne, Kamath & Steinke 2020, Corollary 13).

    δ = inf_{α>1} exp((α − 1)(αρ − ε))/(α − 1)·(1 − 1/α)^α, searched over ln(α − 1) as in
    :func:`zcdp_eps` and rounded up (any α gives a valid δ); at most 1.

    Parameters
    ----------
    rho : float
        ρ ≥ 0.
    eps : float
        ε ≥ 0.

    Returns
    -------
    float
        δ ∈ [0, 1].

    Examples
    --------
    >>> d = zcdp_delta(0.05, 1.0)
    >>> abs(zcdp_eps(0.05, d) - 1.0) < 1e-6
    True
    """
    rho, eps = _nonneg("rho", rho), _nonneg("eps", eps)
    if rho == 0:
        return 0.0

    def logd(t: float) -> float:
        u = math.exp(t)
        lu, l1u = math.log(u), math.log1p(u)
        return u * ((1 + u) * rho - eps) - lu + (1 + u) * (lu - l1u)

    t = _golden_min(logd, *_ZCDP_T)
    v = logd(t)
    u = math.exp(t)
    err = 8 * _U * (abs(u * (1 + u) * rho) + abs(u * eps) + abs(t) * (2 + u) + abs(v))
    return min(1.0, _exp(v + err))


def zcdp_rho(eps: float, delta: float) -> float:
    r"""The largest ρ such that ρ-zCDP is (ε, δ)-DP by the conversion of :func:`zcdp_eps` (certified).

    For each α the conversion's ε is linear in ρ, so the largest ρ is sup_α ρ_α with
    ρ_α = (ε − ln(1 − 1/α) + (ln δ + ln α)/(α − 1))/α, searched over
    ln(α − 1) ∈ [−30, 60].  The ρ returned is certified (``zcdp_eps(ρ, δ) ≤ ε``) and at least Bun &
    Steinke's ρ* = (√(ln(1/δ) + ε) − √ln(1/δ))² (the largest ρ with ρ + 2√(ρ ln(1/δ)) ≤ ε, which
    :func:`zcdp_eps` always certifies, up to a few ulps of rounding): if the search's ρ is not certified
    (its relative rounding error exceeds the gap to ε, as for small ε), the largest certified ρ between ρ*
    and it is found by bisection, and ρ* is the fallback.

    Parameters
    ----------
    eps : float
        ε > 0.
    delta : float
        δ ∈ (0, 1).

    Returns
    -------
    float
        ρ > 0.

    Raises
    ------
    ValueError
        For ε ≤ 0, δ ∉ (0, 1) or a non-finite argument, and where even ρ* underflows to 0 in double
        precision (ρ* ≈ ε²/(4 ln(1/δ)): no positive double ρ is certified, e.g. ε = δ = 1e-300; at δ = 1e-5 even ε = 1e-300 is answered).

    Examples
    --------
    >>> L = math.log(1e6)
    >>> zcdp_rho(1.0, 1e-6) > (math.sqrt(L + 1) - math.sqrt(L)) ** 2     # more ρ than Bun & Steinke's
    True
    >>> zcdp_eps(zcdp_rho(1.0, 1e-6), 1e-6) <= 1.0
    True
    >>> zcdp_eps(zcdp_rho(1e-6, 1e-10), 1e-10) <= 1e-6                   # small ε: still certified
    True
    """
    eps, delta = _positive("eps", eps), _unit("delta", delta)
    ld = math.log(delta)

    def ok(r: float) -> bool:
        return r > 0 and zcdp_eps(r, delta) <= eps

    t = _golden_min(lambda t: -_zcdp_rho_at(math.exp(t), eps, ld), *_ZCDP_T)
    hi = _zcdp_rho_at(math.exp(t), eps, ld)
    if ok(hi):
        return hi
    lo = (eps / (math.sqrt(-ld + eps) + math.sqrt(-ld))) ** 2   # ρ* = (√(L + ε) − √L)², without cancellation
    for _ in range(64):                                          # ρ* up to its rounding: a few ulps down
        if lo <= 0 or ok(lo):
            break
        lo = math.nextafter(lo, 0.0) if lo < 1e-300 else lo * (1 - 4 * _U)
    if not ok(lo):                                               # ρ* underflows: step down from the search's ρ
        lo = next((r for r in (hi * (1 - 2.0**-k) for k in range(48, 0, -1)) if ok(r)), 0.0)
    if not ok(lo):
        raise ValueError(f"parameters 'eps' = {eps!r}, 'delta' = {delta!r}: no positive double ρ is certified "
                         "(Bun & Steinke's ρ* = (√(ln(1/δ) + ε) − √ln(1/δ))² underflows or is not certified)")
    if hi > lo:
        for _ in range(200):                                     # keep lo certified; hi is not
            mid = lo + (hi - lo) / 2
            if not lo < mid < hi:
                break
            lo, hi = (mid, hi) if ok(mid) else (lo, mid)
    return lo
