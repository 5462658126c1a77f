r"""Exact Gaussian-mechanism privacy and a tight composition accountant.

Two tools for noise calibration, shared by every paper module that composes mechanisms:

**The exact (analytic) Gaussian mechanism.**  Releasing f(D) + N(0, σ²I) for an f of ℓ2
sensitivity Δ is (ε, δ)-DP if and only if

    δ ≥ δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)

(Balle & Wang 2018, "Improving the Gaussian mechanism for differential privacy: analytical
calibration and optimal denoising", ICML, Theorem 8).  :func:`gaussian_delta` evaluates δ(ε)
in log space (``scipy.special.log_ndtr`` and a stable log(1 − eˣ)), so neither e^ε nor the
Gaussian tails overflow or underflow; :func:`gaussian_eps` and :func:`gaussian_sigma` invert it
exactly by root finding in log δ (in ε, resp. log σ).  T Gaussian steps of sensitivity Δ and
noise σ (adaptive or not) compose to *one* Gaussian of sensitivity Δ√T, i.e. of noise σ/√T at
sensitivity Δ (their privacy-loss distributions are Gaussian and add).

**A tight numerical accountant.**  :func:`pld_epsilon` composes privacy-loss distributions (PLDs)
with Google's ``dp-accounting`` library (``dp_accounting.pld``; Koskela, Jälkö & Honkela 2020 for
FFT composition of PLDs; Doroshenko, Ghazi, Kamath, Kumar & Manurangsi 2022, "Connect the dots:
tighter discrete approximations of privacy loss distributions", PETS, for the discretisation).
With the *pessimistic* estimate every discretisation error rounds toward more privacy loss, so
the returned ε is a valid upper bound; connect-the-dots makes it tight to about the
discretisation interval.  A generic ε₀-DP step enters through its worst-case PLD, that of
randomised response (Kairouz, Oh & Viswanath 2015): ``from_privacy_parameters(ε₀, 0)``.

Why ``dp-accounting`` and not ``prv-accountant``: both are on PyPI; dp-accounting (0.6.0, Google)
is actively maintained, offers Gaussian, Laplace and generic (ε, δ) PLDs with pessimistic and
optimistic estimates and the connect-the-dots discretisation, and composes heterogeneous
mechanisms; prv-accountant (0.2.0, Microsoft; Gopi, Lee & Wutschitz 2021) is less active and
reports an error interval rather than a one-sided (pessimistic) bound.  ``dp_accounting`` costs
about 0.8 s to import, so it is imported inside the functions that need it.

Calibrations for T-step algorithms ("tight" = the smallest noise the accountant certifies):
:func:`tight_pure_step_eps` (the largest per-step ε₀ of T ε₀-DP steps) and
:func:`tight_gaussian_sigma` (the smallest σ of T Gaussian steps).

Examples
--------
>>> round(gaussian_eps(3.7, 1e-5), 4)
1.0091
>>> round(gaussian_sigma(1.0, 1e-5), 4)
3.7306
>>> abs(pld_epsilon([("gaussian", 3.7, 1.0, 1)], 1e-5) / gaussian_eps(3.7, 1e-5) - 1) < 1e-6
True
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy import optimize, special

__all__ = [
    "gaussian_delta",
    "log_gaussian_delta",
    "gaussian_eps",
    "gaussian_sigma",
    "pld_epsilon",
    "tight_pure_step_eps",
    "tight_gaussian_sigma",
    "accountant_name",
]

#: default discretisation interval of the privacy-loss grid (in units of ε)
DISCRETIZATION = 1e-4


# --------------------------------------------------------------------------- validation
def _real(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"parameter {name!r} = {value!r} must be a real number")
    v = float(value)
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
    return int(value)


def _log1mexp(x: float) -> float:
    """log(1 − eˣ) for x ≤ 0, accurate on both sides of −ln 2 (Mächler 2012); −inf at x = 0."""
    if x >= 0:
        return -math.inf
    return math.log(-math.expm1(x)) if x > -math.log(2) else math.log1p(-math.exp(x))


# --------------------------------------------------------------------------- exact Gaussian
def _log_delta(eps: float, sigma: float, sensitivity: float) -> float:
    a = sensitivity / (2 * sigma)
    b = eps * sigma / sensitivity
    lp = float(special.log_ndtr(a - b))
    lq = float(special.log_ndtr(-a - b))
    return lp + _log1mexp(eps + lq - lp)


def log_gaussian_delta(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    r"""ln δ(ε) of the Gaussian mechanism (Balle & Wang 2018, Theorem 8), computed in log space.

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) is written as
    ln Φ(a − b) + ln(1 − exp(ε + ln Φ(−a − b) − ln Φ(a − b))) with a = Δ/(2σ), b = εσ/Δ.

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
        ln δ(ε) (−inf when δ(ε) underflows even in log space, which needs ε ≫ Δ²/σ²).

    Raises
    ------
    ValueError
        For ε < 0, σ ≤ 0, Δ ≤ 0 or a non-finite argument.

    Examples
    --------
    >>> round(log_gaussian_delta(1.0, 3.7306316), 6) == round(math.log(1e-5), 6)
    True
    >>> log_gaussian_delta(5e5, 1e-3) > -math.inf      # no overflow of e^ε
    True
    """
    return _log_delta(_nonneg("eps", eps), _positive("sigma", sigma), _positive("sensitivity", sensitivity))


def gaussian_delta(eps: float, sigma: float, sensitivity: float = 1.0) -> float:
    r"""Exact δ(ε) of the Gaussian mechanism N(0, σ²) on a function of ℓ2 sensitivity Δ.

    δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ) (Balle & Wang 2018, Theorem 8): the smallest δ
    for which the mechanism is (ε, δ)-DP.  Computed as exp(:func:`log_gaussian_delta`).

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
        δ(ε) ∈ [0, 1).

    Raises
    ------
    ValueError
        For ε < 0, σ ≤ 0 or Δ ≤ 0.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> abs(gaussian_delta(0.0, 1.0) - (2 * float(norm.cdf(0.5)) - 1)) < 1e-15   # δ(0) = 2Φ(Δ/2σ) − 1
    True
    >>> gaussian_delta(1.0, 3.0) > gaussian_delta(2.0, 3.0) > gaussian_delta(2.0, 4.0)
    True
    """
    return math.exp(log_gaussian_delta(eps, sigma, sensitivity))


def _eps_upper(mu: float, delta: float) -> float:
    # the privacy loss of the Gaussian is N(μ²/2, μ²) (μ = Δ/σ) and δ(ε) ≤ P[loss > ε]
    z = -float(special.ndtri(delta))
    return max(mu * mu / 2 + mu * z, 0.0) + mu + 1e-300


def gaussian_eps(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    r"""Exact smallest ε with δ(ε) ≤ δ for the Gaussian mechanism (0 when δ(0) ≤ δ).

    Root of ln δ(ε) = ln δ (Brent's method on [0, ε₊], ε₊ = μ²/2 + μΦ⁻¹(1 − δ) + μ, μ = Δ/σ, an
    upper bound since δ(ε) ≤ P[N(μ²/2, μ²) > ε]); the root is moved up by ulps until δ(ε) ≤ δ
    holds in floating point (rounding toward privacy).  Stable for σ/Δ ∈ [1e-3, 1e3] and
    δ ∈ [1e-12, 0.5] (at σ/Δ = 1e-3, ε ≈ 5e5: no overflow).

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
        ε ≥ 0.

    Raises
    ------
    ValueError
        For σ ≤ 0, Δ ≤ 0 or δ ∉ (0, 1).

    Examples
    --------
    >>> e = gaussian_eps(2.0, 1e-6)
    >>> gaussian_delta(e, 2.0) <= 1e-6 < gaussian_delta(e * (1 - 1e-9), 2.0)
    True
    >>> gaussian_eps(100.0, 0.5)    # δ(0) ≈ 0.004 ≤ 0.5
    0.0
    """
    sigma, delta = _positive("sigma", sigma), _unit("delta", delta)
    sens = _positive("sensitivity", sensitivity)
    ld = math.log(delta)

    def f(e: float) -> float:
        return _log_delta(e, sigma, sens) - ld

    if f(0.0) <= 0:
        return 0.0
    hi = _eps_upper(sens / sigma, delta)
    while f(hi) > 0:  # never needed in exact arithmetic; guards the floating-point tail
        hi *= 2
    r = float(optimize.brentq(f, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500))
    for i in range(64):
        if f(r) <= 0:
            return r
        r = math.nextafter(r, math.inf) if i < 8 else r * (1 + 1e-15)
    return hi


def gaussian_sigma(eps: float, delta: float, sensitivity: float = 1.0) -> float:
    r"""Exact smallest σ for which the Gaussian mechanism is (ε, δ)-DP (Balle & Wang's analytic calibration).

    Root of ln δ(ε; σ) = ln δ in ln σ (δ(ε; σ) decreases in σ); for ε = 0 the closed form
    σ = Δ/(2Φ⁻¹((1 + δ)/2)).  The root is moved up until δ(ε; σ) ≤ δ holds in floating point; it
    inverts :func:`gaussian_eps` to about 1e-12 relative.

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
        σ > 0.

    Raises
    ------
    ValueError
        For ε < 0, Δ ≤ 0 or δ ∉ (0, 1).

    Examples
    --------
    >>> s = gaussian_sigma(1.0, 1e-5)
    >>> abs(gaussian_eps(s, 1e-5) - 1.0) < 1e-9
    True
    >>> gaussian_sigma(1.0, 1e-5) < math.sqrt(2 * math.log(1.25 / 1e-5))   # below the classical calibration
    True
    """
    eps, delta = _nonneg("eps", eps), _unit("delta", delta)
    sens = _positive("sensitivity", sensitivity)
    if eps == 0:
        return sens / (2 * float(special.ndtri((1 + delta) / 2)))
    ld = math.log(delta)

    def g(s: float) -> float:
        return _log_delta(eps, math.exp(s), sens) - ld

    z = -float(special.ndtri(delta))
    mu = -z + math.sqrt(z * z + 2 * eps)  # μ²/2 + μz = ε: P[N(μ²/2, μ²) > ε] = δ, so δ(ε; Δ/μ) ≤ δ
    hi = math.log(sens / mu)
    while g(hi) > 0:
        hi += 0.5
    lo = hi - 1.0
    while g(lo) <= 0:
        lo -= 1.0
    s = float(optimize.brentq(g, lo, hi, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500))
    for i in range(64):
        if g(s) <= 0:
            return math.exp(s)
        s = math.nextafter(s, math.inf) if i < 8 else s + 1e-15 * max(1.0, abs(s))
    return math.exp(hi)


# --------------------------------------------------------------------------- PLD accountant
def accountant_name(discretization: float | None = DISCRETIZATION) -> str:
    """A short description of the accountant (library, version, estimate, discretisation).

    Examples
    --------
    >>> accountant_name(1e-4).startswith("dp-accounting")
    True
    """
    try:
        from importlib.metadata import version

        ver = version("dp-accounting")
    except Exception:  # pragma: no cover - metadata missing
        ver = "?"
    grid = "interval ε₀ (exact)" if discretization is None else f"interval {discretization:g}"
    return f"dp-accounting {ver} PLD, pessimistic, connect-the-dots, {grid}"


def _step_pld(step: Sequence[Any], h: float) -> Any:
    from dp_accounting.pld import common
    from dp_accounting.pld import privacy_loss_distribution as pld

    if not isinstance(step, (tuple, list)) or not step or not isinstance(step[0], str):
        raise ValueError(f"parameter 'steps': entry {step!r} must be a tuple (kind, …, count)")
    kind = step[0]
    if kind in ("gaussian", "laplace"):
        noise = "sigma" if kind == "gaussian" else "scale"
        if len(step) != 4:
            raise ValueError(f"parameter 'steps': {step!r} must be ({kind!r}, {noise}, sensitivity, count)")
        s, d, c = _positive(noise, step[1]), _positive("sensitivity", step[2]), _count("count", step[3])
        make = pld.from_gaussian_mechanism if kind == "gaussian" else pld.from_laplace_mechanism
        one = make(s, sensitivity=d, pessimistic_estimate=True, value_discretization_interval=h,
                   use_connect_dots=True)
    elif kind == "pure":
        if len(step) != 3:
            raise ValueError(f"parameter 'steps': {step!r} must be ('pure', eps0, count)")
        e0, c = _nonneg("eps0", step[1]), _count("count", step[2])
        one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e0, 0.0),
                                          value_discretization_interval=h)
    elif kind == "approx":
        if len(step) != 4:
            raise ValueError(f"parameter 'steps': {step!r} must be ('approx', eps0, delta0, count)")
        e0, d0, c = _nonneg("eps0", step[1]), _real("delta0", step[2]), _count("count", step[3])
        if not 0 <= d0 < 1:
            raise ValueError(f"parameter 'delta0' = {step[2]!r} must lie in [0, 1)")
        one = pld.from_privacy_parameters(common.DifferentialPrivacyParameters(e0, d0),
                                          value_discretization_interval=h)
    else:
        raise ValueError(f"parameter 'steps': unknown mechanism kind {kind!r} "
                         "(expected 'gaussian', 'laplace', 'pure' or 'approx')")
    return one.self_compose(c) if c > 1 else one


def pld_epsilon(steps: Sequence[Sequence[Any]], delta: float, *, discretization: float = DISCRETIZATION) -> float:
    r"""ε at δ of the composition of the listed mechanisms (dp-accounting PLD, pessimistic).

    Each mechanism's privacy-loss distribution is discretised (pessimistic estimate, connect-the-dots
    where the library offers it), self-composed ``count`` times (FFT) and composed with the others;
    the result is the smallest ε whose hockey-stick divergence is ≤ δ, an upper bound on the exact
    ε of the composition (adaptive composition included).

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
        Interval of the privacy-loss grid (default 1e-4).  A pure step of ε₀ a multiple of the
        interval is represented exactly.

    Returns
    -------
    float
        ε ≥ 0 (``inf`` when no finite ε reaches δ).

    Raises
    ------
    ValueError
        For δ ∉ (0, 1), a non-positive interval, an empty list or a malformed step.

    Notes
    -----
    The FFT composition carries a round-off of about 1e-15 in δ (absolute), and the library moves
    a tail mass of 1e-15 to +∞: against the exact optimal composition of pure steps (Kairouz, Oh &
    Viswanath 2015) the ε agrees to about 1e-8 relative at δ = 1e-8 (either side) and is
    pessimistic by up to 3e-5 relative at δ = 1e-12.

    Examples
    --------
    >>> import math
    >>> e = pld_epsilon([("gaussian", 3.7 * math.sqrt(20), 1.0, 20)], 1e-5)   # = one Gaussian of σ = 3.7
    >>> abs(e / gaussian_eps(3.7, 1e-5) - 1) < 1e-6
    True
    >>> pld_epsilon([("pure", 0.1, 1)], 1e-9, discretization=0.1) <= 0.1
    True
    """
    delta = _unit("delta", delta)
    h = _positive("discretization", discretization)
    if isinstance(steps, (str, bytes)) or not isinstance(steps, Sequence) or len(steps) == 0:
        raise ValueError(f"parameter 'steps' = {steps!r} must be a non-empty list of mechanism tuples")
    total = None
    for st in steps:
        one = _step_pld(st, h)
        total = one if total is None else total.compose(one)
    return float(total.get_epsilon_for_delta(delta))


# --------------------------------------------------------------------------- calibrations
@functools.lru_cache(maxsize=512)
def _pure_eps_exact(eps0: float, T: int, delta: float) -> float:
    # the interval ε₀ represents the worst-case PLD {±ε₀} exactly: no discretisation error at all
    return pld_epsilon([("pure", eps0, T)], delta, discretization=eps0)


def tight_pure_step_eps(eps: float, delta: float, T: int, *, discretization: float | None = None,
                        rtol: float = 1e-10) -> float:
    r"""Largest per-step ε₀ such that T adaptive ε₀-DP steps are (ε, δ)-DP by the PLD accountant.

    Bisection on ln ε₀ of ``pld_epsilon([("pure", ε₀, T)], δ) ≤ ε`` (monotone in ε₀), started from
    basic composition ε₀ = ε/T (always certified).  The returned ε₀ satisfies the inequality
    (rounding toward privacy).  With ``discretization=None`` (default) the privacy-loss grid has
    interval ε₀ itself, on which the worst-case PLD {±ε₀} of an ε₀-DP step is exact: the answer
    is then the optimal composition of Kairouz, Oh & Viswanath (2015) for pure steps.

    Parameters
    ----------
    eps : float
        Total ε > 0.
    delta : float
        Total δ ∈ (0, 1).
    T : int
        Number of steps ≥ 1.
    discretization : float or None, optional
        Fixed grid interval, or None for the exact grid ε₀.
    rtol : float, optional
        Relative width of the final bisection bracket in ε₀.

    Returns
    -------
    float
        ε₀ > 0.

    Raises
    ------
    ValueError
        For ε ≤ 0, δ ∉ (0, 1) or T < 1.

    Examples
    --------
    >>> e0 = tight_pure_step_eps(0.5, 1e-8, 737)
    >>> pld_epsilon([("pure", e0, 737)], 1e-8, discretization=e0) <= 0.5
    True
    >>> e0 > 0.5 / math.sqrt(8 * 737 * math.log(1e8))   # larger than advanced composition's ε₀ (Cor. 3.21)
    True
    """
    eps, delta, T = _positive("eps", eps), _unit("delta", delta), _count("T", T)
    h = None if discretization is None else _positive("discretization", discretization)
    return _tight_pure(eps, delta, T, h, float(rtol))


@functools.lru_cache(maxsize=256)
def _tight_pure(eps: float, delta: float, T: int, h: float | None, rtol: float) -> float:
    def total(e0: float) -> float:
        return _pure_eps_exact(e0, T, delta) if h is None else pld_epsilon([("pure", e0, T)], delta, discretization=h)

    lo = eps / T  # basic composition: T·ε₀ = ε
    while total(lo) > eps:  # only possible through a coarse fixed grid
        lo /= 2
    hi = lo * 2
    while total(hi) <= eps:
        lo, hi = hi, hi * 2
    while hi / lo - 1 > rtol:
        mid = math.sqrt(lo * hi)
        if total(mid) <= eps:
            lo = mid
        else:
            hi = mid
    return lo


def tight_gaussian_sigma(eps: float, delta: float, T: int, sensitivity: float = 1.0, *,
                         discretization: float = DISCRETIZATION, rtol: float = 1e-9) -> float:
    r"""Smallest per-step σ such that T Gaussian steps of ℓ2 sensitivity Δ are (ε, δ)-DP (PLD accountant).

    The accountant's value: Brent's method on ln σ of ``pld_epsilon([("gaussian", σ, Δ, T)], δ) − ε``,
    bracketed around the exact answer √T·:func:`gaussian_sigma` (T Gaussians compose to one of
    σ/√T) and then moved up until the accountant certifies ε (rounding toward privacy).  With the
    default interval 1e-4 it agrees with the exact value to about 1e-6 relative (the test suite
    checks it).

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
    discretization : float, optional
        PLD grid interval (default 1e-4).
    rtol : float, optional
        Relative tolerance of the root in σ.

    Returns
    -------
    float
        σ > 0.

    Raises
    ------
    ValueError
        For ε ≤ 0, δ ∉ (0, 1), T < 1 or Δ ≤ 0.

    Examples
    --------
    >>> s = tight_gaussian_sigma(1.0, 1e-5, 20)
    >>> abs(s / (gaussian_sigma(1.0, 1e-5) * math.sqrt(20)) - 1) < 1e-5
    True
    """
    eps, delta, T = _positive("eps", eps), _unit("delta", delta), _count("T", T)
    sens = _positive("sensitivity", sensitivity)
    h = _positive("discretization", discretization)
    return _tight_gauss(eps, delta, T, sens, h, float(rtol))


@functools.lru_cache(maxsize=256)
def _tight_gauss(eps: float, delta: float, T: int, sens: float, h: float, rtol: float) -> float:
    @functools.cache
    def f(s: float) -> float:
        return pld_epsilon([("gaussian", math.exp(s), sens, T)], delta, discretization=h) - eps

    guess = math.log(gaussian_sigma(eps, delta, sens) * math.sqrt(T))
    lo, hi = guess - 0.01, guess + 0.01
    while f(hi) > 0:
        lo, hi = hi, hi + 0.1
    while f(lo) <= 0:
        lo, hi = lo - 0.1, lo
    s = float(optimize.brentq(f, lo, hi, xtol=rtol / 4, rtol=4 * np.finfo(float).eps, maxiter=200))
    step = rtol / 4
    for _ in range(64):
        if f(s) <= 0:
            return math.exp(s)
        s = min(s + step, hi)
        step *= 2
    return math.exp(hi)
