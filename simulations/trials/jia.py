"""Trial functions and adversarial neighbour searches for seed 000 (Nie & Wang, JIA 2017).

Seed file ``000_c13e7e0f812f87df.txt``.  The algorithm is output perturbation of
regularised kernel ERM, equation (2): f_zA = f_z + b with f_z the minimiser of
(1/m)Σ L(f(x_i), y_i) + λ‖f‖²_K (equation (1), Ω = ‖·‖²_K, γ = 2) and b one real
Laplace variable.  Two instances are simulated, both with exact population risks:

least squares (§5.1)
    :class:`~simulations.data.CircleRegression` (x uniform on the circle, periodic
    Sobolev kernel, f_ρ ∈ L_K^r known exactly).  The excess risk of f_z + b is
    ‖f_z − f_ρ‖²_ρ + 2b(∫f_z − ∫f_ρ) + b², a quadratic in b, so the n_noise noise
    draws of one fitted model are averaged in closed form from their first two
    moments; f_λ = (L_K + λI)⁻¹L_K f_ρ and D(λ) are exact.
SVM (§5.2)
    :class:`~simulations.data.BinaryClassification` on [0, 1) with the periodic
    Sobolev kernel of smoothness 1 scaled to κ = 1 (so the circle is the input
    space; the Bayes rule then has a second jump at the wrap point 0 ≡ 1).  Hinge
    and misclassification risks of f_z + b are integrals over x; they are computed
    on a midpoint grid of ``N_QUAD`` nodes where f_z is evaluated once, and for all
    noise draws at once by sorting the node values of f_z (prefix sums), so each
    draw costs O(log N).  The stepping stone f_λ of (3) is not computable for the
    hinge loss, so the trial uses an explicit g_λ ∈ H_K (a periodic trapezoid equal
    to the Bayes rule f_c outside two linear ramps, widths optimised for each λ):
    (3) holds for any f_λ ∈ H_K, and D_g(λ) = E(g_λ) − E(f_c) + λ‖g_λ‖²_K ≥ D(λ) is
    exact (closed form), so it is a valid (slightly pessimistic) approximation error.

Every trial draws one sample z, fits f_z exactly (the solver's certificate is
checked; :class:`~simulations.solvers.CertificateError` propagates and the
runner rejects the trial), draws ``n_noise`` noise values and returns averages
over the draws of R₁, R₂, the excess risk, etc. (the terms of (3)).

The sensitivity searches (:func:`ls_worst_neighbour`, :func:`svm_worst_neighbour`)
maximise ‖f_z − f_z̄‖_K and ‖f_z − f_z̄‖_∞ over the replaced index j and the
replacement (x̄, ȳ): a screening of every j against a grid of candidates
x̄ and the extreme labels, then a local refinement of the best candidates, then a
verification by an independent certified refit on the reported worst pair.  A large
least-squares search is split into index blocks of j, one executor task each
(:func:`ls_search_blocks`, :func:`ls_screen_block`, :func:`ls_reduce_blocks`,
:func:`ls_sensitivity_refine_trial`); its result is the unsplit search's, bit for bit.

Examples
--------
>>> import numpy as np
>>> cfg = dict(m=40, lam=0.1, eps=0.5, calibration="derived", n_noise=50)
>>> out = ls_risk_trial(cfg, np.random.default_rng(0))
>>> bool(abs(out["R1"] + out["R2"] + out["S"] + out["D"] - out["excess"]
...          - cfg["lam"] * out["omega_z"] - out["gap"]) < 1e-9)
True
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize_scalar

from bounds.papers.jia import PROP1_SCALE, S5_1_SCALE, S5_2_SCALE
from simulations._compiled import compiled_module
from simulations.data import BinaryClassification, CircleRegression
from simulations.kernels import KernelExpansion, PeriodicSobolevKernel
from simulations.mechanisms import Mechanism, UtilitySetup
from simulations.runner import trial, trial_seeds
from simulations.solvers import (
    KLSFactor,
    KLSResult,
    _cand_norms,
    kls_fit,
    replace_point,
    svm_fit,
    union_rkhs_distance,
)

__all__ = [
    "LS_DEFAULTS",
    "SVM_DEFAULTS",
    "N_QUAD",
    "circle_problem",
    "binary_problem",
    "ls_constants",
    "svm_constants",
    "ramp_stepping_stone",
    "ls_risk_trial",
    "svm_risk_trial",
    "WorstNeighbour",
    "ls_worst_neighbour",
    "svm_worst_neighbour",
    "ls_sensitivity_trial",
    "BLOCK_KEYS",
    "LS_BLOCK_WORK",
    "ls_search_blocks",
    "ls_screen_block",
    "ls_reduce_blocks",
    "ls_refine_screen",
    "ls_sensitivity_refine_trial",
    "svm_sensitivity_trial",
]

FloatArray = NDArray[np.float64]

#: default least-squares problem: f_ρ ∈ L_K^r, r = 1/4 (β = d_exponent = 0.6), κ = 1
LS_DEFAULTS: dict[str, Any] = {"r": 0.25, "s": 1, "sigma": 0.1, "kappa": 1.0}
#: default classification problem: Bayes boundary t₀ = ½, |2η − 1| ≤ a, margin exponent 1
SVM_DEFAULTS: dict[str, Any] = {"t0": 0.5, "a": 0.8, "margin": 1.0, "kappa": 1.0}
#: midpoint nodes of the x-integrals of the SVM trials
N_QUAD = 2**13
#: 40-point Gauss–Legendre nodes and weights on [−1, 1] of :func:`_ramp_loss_integral`, computed once
#: (recomputing them on every integrand call made ``svm_constants`` cost 2.1 s instead of 0.08 s)
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(40)


def _get(config: Mapping[str, Any], defaults: Mapping[str, Any], key: str) -> Any:
    return config[key] if key in config else defaults[key]


# ---------------------------------------------------------------------------
# problems and their constants
# ---------------------------------------------------------------------------


@lru_cache(maxsize=16)
def circle_problem(r: float = 0.25, s: int = 1, sigma: float = 0.1, kappa: float = 1.0) -> CircleRegression:
    """The circle regression problem with its Sobolev kernel scaled to sup sqrt(K) = κ.

    Examples
    --------
    >>> P = circle_problem()
    >>> round(P.kappa, 12), round(P.M, 12), P.d_exponent
    (1.0, 1.1, 0.6)
    """
    k = PeriodicSobolevKernel.with_kappa(s=int(s), kappa=float(kappa))
    return CircleRegression(r=float(r), s=int(s), sigma=float(sigma), mu0=k.mu0, scale=k.scale)


@lru_cache(maxsize=16)
def binary_problem(t0: float = 0.5, a: float = 0.8, margin: float = 1.0,
                   kappa: float = 1.0) -> tuple[BinaryClassification, PeriodicSobolevKernel]:
    """The classification problem and its kernel (periodic Sobolev, s = 1, sup sqrt(K) = κ)."""
    return (BinaryClassification(t0=float(t0), a=float(a), gamma=float(margin)),
            PeriodicSobolevKernel.with_kappa(s=1, kappa=float(kappa)))


def _ls_problem(config: Mapping[str, Any]) -> CircleRegression:
    return circle_problem(*(_get(config, LS_DEFAULTS, k) for k in ("r", "s", "sigma", "kappa")))


def _svm_problem(config: Mapping[str, Any]) -> tuple[BinaryClassification, PeriodicSobolevKernel]:
    return binary_problem(*(_get(config, SVM_DEFAULTS, k) for k in ("t0", "a", "margin", "kappa")))


_LAM_GRID = np.logspace(-10, 0, 401)


def ls_constants(config: Mapping[str, Any] | None = None) -> dict[str, float]:
    """Constants of the bounds for the least-squares problem, computed from the distribution.

    * κ = sup sqrt(K) of the kernel; M = bound on |y| (``CircleRegression.M``);
    * γ = 2 (Ω = ‖·‖²_K, ``jia.s5_1.gamma``), Ω(0) = 0, B₀ = M² (E_z(0) = mean y² ≤ M²);
    * B_ρ = 4M² (§5.1; valid because ‖f_λ‖_∞ ≤ Σ√2|coef(f_λ)| ≤ Σ√2|coef(f_ρ)| ≤ M, so
      (f_λ(x) − y)² ≤ 4M²);
    * β = ``d_exponent`` = min{2(r + η), 1} and c_β = max over λ ∈ [1e-10, 1] (401
      log-spaced points) of D(λ)/λ^β with the exact D(λ).

    Examples
    --------
    >>> c = ls_constants()
    >>> c["beta"], round(c["M"], 6), c["B_rho"] == 4 * c["M"] ** 2
    (0.6, 1.1, True)
    """
    P = _ls_problem(config or {})
    beta = float(P.d_exponent)
    D = np.asarray(P.approximation_error(_LAM_GRID))
    M = float(P.M)
    return {"kappa": float(P.kappa), "M": M, "gamma": 2.0, "B0": M * M, "Omega0": 0.0,
            "B_rho": 4 * M * M, "beta": beta, "c_beta": float(np.max(D / _LAM_GRID**beta)),
            "sigma": float(P.sigma)}


def _ramp_loss_integral(P: BinaryClassification, lo: float, hi: float, w: float, center: float,
                        sign: float) -> float:
    """∫ |2η − 1|(1 − |x − center|·2/w) over [lo, hi] (Gauss–Legendre, smooth integrand)."""
    if hi <= lo:
        return 0.0
    x = (hi + lo) / 2 + (hi - lo) / 2 * _GL_NODES
    wts = (hi - lo) / 2 * _GL_WEIGHTS
    t = np.mod(x, 1.0)
    return float(np.sum(wts * np.abs(P.margin(t)) * (1 - 2 * np.abs(x - center) / w)))


@lru_cache(maxsize=256)
def ramp_stepping_stone(t0: float, a: float, margin: float, kappa: float, lam: float) -> dict[str, float]:
    """The explicit stepping stone g_λ of the SVM trials and its exact D_g(λ).

    g is 1-periodic, equals the Bayes rule f_c (−1 on [0, t₀), +1 on [t₀, 1)) except on
    two linear ramps: width w₁ centred at t₀ and width w₂ centred at the wrap point 0 ≡ 1,
    where it goes linearly through 0.  Because |g| ≤ 1 and sign g = f_c,
    E_h(g) − E_h(f_c) = ∫ |2η − 1|(1 − |g|) (ramps only), and with the s = 1 Sobolev norm
    ‖g‖²_K = (∫g)²/μ₀ + ∫g'²/(2π²c) = (1 − 2t₀)²/μ₀ + (4/w₁ + 4/w₂)/(2π²c).  The widths
    minimise D_g(λ) = E_h(g) − E_h(f_c) + λ‖g‖²_K (separable in w₁, w₂).

    Returns
    -------
    dict
        w1, w2, excess (E_h(g) − E_h(f_c)), norm2 (‖g‖²_K), D (= D_g(λ) ≥ D(λ)), sup (‖g‖_∞ = 1).
    """
    P, K = binary_problem(t0, a, margin, kappa)
    wmax = min(t0, 1 - t0)
    cn = 4.0 / (2 * math.pi**2 * K.scale)

    def part1(w: float) -> float:
        return (_ramp_loss_integral(P, t0 - w / 2, t0, w, t0, 1) + _ramp_loss_integral(P, t0, t0 + w / 2, w, t0, 1)
                + lam * cn / w)

    def part2(w: float) -> float:
        return (_ramp_loss_integral(P, -w / 2, 0.0, w, 0.0, 1) + _ramp_loss_integral(P, 0.0, w / 2, w, 0.0, 1)
                + lam * cn / w)

    out = {}
    for name, fn in (("w1", part1), ("w2", part2)):
        res = minimize_scalar(lambda u, fn=fn: fn(math.exp(u)), bounds=(math.log(1e-9), math.log(wmax)),
                              method="bounded", options={"xatol": 1e-10})
        out[name] = math.exp(float(res.x))
    w1, w2 = out["w1"], out["w2"]
    excess = part1(w1) + part2(w2) - lam * cn * (1 / w1 + 1 / w2)
    norm2 = (1 - 2 * t0) ** 2 / K.mu0 + cn * (1 / w1 + 1 / w2)
    return {"w1": w1, "w2": w2, "excess": excess, "norm2": norm2, "D": excess + lam * norm2, "sup": 1.0}


def _ramp_values(x: FloatArray, t0: float, w1: float, w2: float) -> FloatArray:
    """g(x) of :func:`ramp_stepping_stone` (x reduced modulo 1)."""
    t = np.mod(x, 1.0)
    up = np.clip(2 * (t - t0) / w1, -1.0, 1.0)
    d0 = np.where(t < 0.5, t, t - 1.0)              # signed distance to the wrap point
    down = np.clip(2 * d0 / w2, -1.0, 1.0)            # +1 just before 1, −1 just after 0
    return np.where(np.abs(t - t0) <= w1 / 2, up, np.where(np.abs(d0) <= w2 / 2, -down,
                                                            np.where(t >= t0, 1.0, -1.0)))


def svm_constants(config: Mapping[str, Any] | None = None, beta: float = 0.5) -> dict[str, float]:
    """Constants of the bounds for the SVM problem.

    κ of the kernel (1 by default), M = 1 (y = ±1), C_L = 1 (``jia.s5_2.C_L``), γ = 2,
    B₀ = 1 (E_z(0) = 1), Ω(0) = 0, B_ρ = (M + 1)² = 4 (``jia.s5_2.B_rho``; g_λ has
    |g| ≤ 1, so its hinge loss is ≤ 2 ≤ 4); β = 1/2 (the wrap-point ramp gives
    D_g(λ) ~ λ^{1/2}) and c_β = max over λ ∈ [1e-6, 1] (61 log-spaced points) of
    D_g(λ)/λ^β.
    """
    cfg = dict(config or {})
    vals = [_get(cfg, SVM_DEFAULTS, k) for k in ("t0", "a", "margin", "kappa")]
    lams = np.logspace(-6, 0, 61)
    D = np.array([ramp_stepping_stone(*vals, float(lv))["D"] for lv in lams])
    return {"kappa": float(vals[3]), "M": 1.0, "C_L": 1.0, "gamma": 2.0, "B0": 1.0, "Omega0": 0.0,
            "B_rho": 4.0, "beta": float(beta), "c_beta": float(np.max(D / lams**beta))}


# ---------------------------------------------------------------------------
# risk trials
# ---------------------------------------------------------------------------


def _scale(config: Mapping[str, Any], mechanism: Mechanism, algorithm: str, **values: float) -> float:
    if "scale" in config and config["scale"] is not None:
        return float(config["scale"])
    mechanism.require(algorithm, f"the {algorithm} risk trial of jia")
    # through the mechanism's inputs: a relaxed premise not given (τ) is the paper's value
    return mechanism.scale(config.get("calibration", "derived"), **values)


def _ls_risk_cost(m: int) -> float:
    """CPU seconds of one :func:`ls_risk_trial` at sample size m (2-core machine, Nov 2026: 0.43 s at
    m = 1600, 0.74 s at 3200, 3.7 s at 6400; the m³ Cholesky dominates beyond): sizes the runner's
    tasks (``trial(cost=...)``), never a result."""
    return 0.2 + 3.5 * (m / 6400) ** 3


def _svm_risk_cost(m: int) -> float:
    """CPU seconds of one :func:`svm_risk_trial` on the Theorem 4 schedule (2-core machine, Nov 2026:
    0.12 s at m = 1600, 0.6–0.9 s at 3200, 4.2–5.0 s for the dual solve at 6400 and 40 s at 12800,
    where the free set exceeds 1000 coefficients and the solver takes LAPACK Newton steps on it):
    sizes the runner's tasks, never a result."""
    if m <= 3200:
        return 0.85 * (m / 3200) ** 2.25
    return 0.85 + 4.5 * ((m - 3200) / 3200) ** 2.1


@trial(requires=('eps', 'lam', 'm'),
       optional=('scale', 'calibration', 'n_noise', 'r', 's', 'sigma', 'kappa', 'problem', 'sched'),  # problem, sched: labels
       cost=lambda c: _ls_risk_cost(int(c["m"])))
def ls_risk_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One trial of DP least squares (§5.1) on the circle: the terms of (3), averaged over noise.

    Parameters
    ----------
    config : dict
        ``m``, ``lam``, ``eps``, ``n_noise``; ``calibration`` ("derived"/"stated", used when
        ``scale`` is absent) or ``scale`` (the Laplace scale, computed by the caller);
        problem parameters ``r``, ``s``, ``sigma``, ``kappa`` (defaults :data:`LS_DEFAULTS`).
    rng : numpy Generator
        Draws the sample (x, then label noise) and then the ``n_noise`` Laplace variables.

    Returns
    -------
    dict
        Averages over the noise draws b of: ``excess`` = E(f_z + b) − E(f_ρ), ``R1`` =
        E(f_z + b) − E_z(f_z + b), ``R2`` = E_z(f_z + b) − E_z(f_z); per sample: ``S`` =
        E_z(f_λ) − E(f_λ), ``D`` = D(λ), ``omega_z`` = ‖f_z‖²_K, ``gap`` =
        [E_z(f_λ) + λ‖f_λ‖²_K] − [E_z(f_z) + λ‖f_z‖²_K] ≥ 0, ``excess_fz`` (no noise),
        ``Eb2``, ``Eabsb`` (noise moments), ``scale``, ``cert``.  Identity (3):
        R1 + R2 + S + D = excess + λ·omega_z + gap.
    """
    P = _ls_problem(config)
    m, lam, eps = int(config["m"]), float(config["lam"]), float(config["eps"])
    fl = P.f_lambda(lam)
    # f_ρ, L_K f_ρ and f_λ at the sample's x in one pass (shared cosines; each the bits of its own call)
    X, y, (_, lk_x, fl_x) = P.sample_with(m, rng, (P.lk_series(), fl))
    G = P.kernel(X)
    res = KLSFactor(G, lam).fit(y)                      # raises CertificateError
    alpha = res.alpha
    fx = G @ alpha
    scale = _scale(config, S5_1, "kls", M=P.M, kappa=P.kappa, lam=lam, m=m, eps=eps)
    b = rng.laplace(0.0, scale, int(config.get("n_noise", 1)))
    mb, mb2 = float(b.mean()), float(np.mean(b * b))
    ex0 = P.excess_risk(KernelExpansion(P.kernel, X, alpha), lk_values=lk_x)
    fr = P.f_rho_series
    a0 = float(fr.cos[fr.freqs == 0].sum())            # ∫ f_ρ
    mean_f = P.kernel.mu0 * float(alpha.sum())           # ∫ f_z = μ₀ Σα
    excess = ex0 + 2 * mb * (mean_f - a0) + mb2
    emp0 = float(np.mean((fx - y) ** 2))
    emp = emp0 + 2 * mb * float(np.mean(fx - y)) + mb2
    risk = excess + P.bayes_risk
    emp_l = float(np.mean((fl_x - y) ** 2))
    risk_l = P.excess_risk(fl) + P.bayes_risk
    omega_z = float(alpha @ fx)
    omega_l = P.norm_K(fl) ** 2
    return {
        "excess": excess, "R1": risk - emp, "R2": emp - emp0, "S": emp_l - risk_l,
        "D": float(P.approximation_error(lam)), "omega_z": omega_z,
        "gap": (emp_l + lam * omega_l) - (emp0 + lam * omega_z),
        "excess_fz": ex0, "emp_fz": emp0, "Eb2": mb2, "Eabsb": float(np.mean(np.abs(b))),
        "scale": scale, "cert": res.certificate.value,
    }


def _quad_nodes() -> FloatArray:
    return (np.arange(N_QUAD) + 0.5) / N_QUAD


def _eval_chunked(kernel: PeriodicSobolevKernel, T: FloatArray, X: FloatArray, alpha: FloatArray,
                  chunk: int = 2048) -> FloatArray:
    """f(t) = Σ α_i K(x_i, t) at many points t (exact O((m + n) log m) form for s = 1)."""
    if isinstance(kernel, PeriodicSobolevKernel) and kernel.s == 1:
        return _eval_s1(kernel, np.asarray(T, float).reshape(-1), np.asarray(X, float).reshape(-1), alpha)
    out = np.empty(T.shape[0])
    for i in range(0, T.shape[0], chunk):
        out[i:i + chunk] = kernel(T[i:i + chunk], X) @ alpha
    return out


def _eval_s1(kernel: PeriodicSobolevKernel, t: FloatArray, x: FloatArray, alpha: FloatArray) -> FloatArray:
    """Σ α_i K(x_i, t) for the s = 1 kernel μ₀ + cπ²(d² − d + 1/6), d = (t − x_i) mod 1.

    With u_i = t − x_i: d² − d = u² − u if x_i ≤ t and u² + u if x_i > t, so the sum is
    a quadratic in t plus prefix sums over the x_i ≤ t (sorted x); exact up to rounding.
    """
    t = np.mod(t, 1.0)
    x = np.mod(x, 1.0)
    order = np.argsort(x, kind="stable")
    xs, a = x[order], alpha[order]
    A, B, C = float(a.sum()), float(a @ xs), float(a @ xs**2)
    cA = np.concatenate(([0.0], np.cumsum(a)))
    cB = np.concatenate(([0.0], np.cumsum(a * xs)))
    k = np.searchsorted(xs, t, side="right")            # x_i ≤ t
    Ale, Ble = cA[k], cB[k]
    lin = -(t * Ale - Ble) + (t * (A - Ale) - (B - Ble))
    quad = t * t * A - 2 * t * B + C
    cpi = kernel.scale * math.pi**2
    return (kernel.mu0 + cpi / 6) * A + cpi * (quad + lin)


def _hinge_and_misclass(P: BinaryClassification, f: FloatArray, b: FloatArray
                        ) -> tuple[FloatArray, FloatArray]:
    """Midpoint-rule E_h(f + b) and R(sgn(f + b)) − R(f_c) for every b (f on the nodes)."""
    t = _quad_nodes()
    eta = P.eta(t)
    w = 1.0 / N_QUAD
    order = np.argsort(f, kind="stable")
    fs, es = f[order], eta[order]
    # Σ_{f < 1−b} η(1 − f − b) and Σ_{f > −1−b} (1 − η)(1 + f + b)
    ce, cef = np.concatenate(([0.0], np.cumsum(es))), np.concatenate(([0.0], np.cumsum(es * fs)))
    ne = 1 - es
    ne_rev, nef_rev = np.cumsum(ne[::-1]), np.cumsum((ne * fs)[::-1])
    ne_rev, nef_rev = np.concatenate(([0.0], ne_rev)), np.concatenate(([0.0], nef_rev))
    k1 = np.searchsorted(fs, 1 - b, side="left")        # nodes with f < 1 − b
    k2 = N_QUAD - np.searchsorted(fs, -1 - b, side="right")   # nodes with f > −1 − b
    hinge = w * ((1 - b) * ce[k1] - cef[k1] + (1 + b) * ne_rev[k2] + nef_rev[k2])
    # misclassification: sign(f + b) with sign(0) = +1 against f_c
    am = np.abs(P.margin(t))
    pos = t >= P.t0
    ip = np.argsort(f[pos], kind="stable")
    fp = f[pos][ip]
    ap = np.concatenate(([0.0], np.cumsum(am[pos][ip])))
    fneg = f[~pos]
    ineg = np.argsort(fneg, kind="stable")
    fn, an = fneg[ineg], am[~pos][ineg]
    an_rev = np.concatenate(([0.0], np.cumsum(an[::-1])))
    wrong_pos = ap[np.searchsorted(fp, -b, side="left")]          # f + b < 0 where f_c = +1
    wrong_neg = an_rev[fn.size - np.searchsorted(fn, -b, side="left")]   # f + b ≥ 0 where f_c = −1
    return hinge, w * (wrong_pos + wrong_neg)


@trial(requires=('eps', 'lam', 'm'),
       optional=('scale', 'calibration', 'n_noise', 't0', 'a', 'margin', 'kappa', 'problem', 'sched'),  # problem, sched: labels
       cost=lambda c: _svm_risk_cost(int(c["m"])))
def svm_risk_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One trial of the DP SVM (§5.2): terms of (3) for the hinge loss and the misclassification excess.

    Parameters
    ----------
    config : dict
        ``m``, ``lam``, ``eps``, ``n_noise``, ``calibration`` or ``scale``; problem
        parameters ``t0``, ``a``, ``margin``, ``kappa`` (defaults :data:`SVM_DEFAULTS`).
    rng : numpy Generator

    Returns
    -------
    dict
        Averages over the noise draws of ``excess`` (hinge, E_h(f_z + b) − E_h(f_c)),
        ``misclass`` (R(sgn(f_z + b)) − R(f_c)), ``R1``, ``R2``; per sample ``S``, ``D``
        (for the stepping stone g_λ of :func:`ramp_stepping_stone`), ``omega_z``, ``gap``
        (= J_z(g_λ) − J_z(f_z) ≥ 0), ``excess_fz``, ``misclass_fz``, ``Eabsb``, ``scale``,
        ``cert`` (relative duality gap).  Identity: R1 + R2 + S + D = excess + λ·omega_z + gap.
        Integrals over x use the midpoint rule on :data:`N_QUAD` nodes; E_h(f_c) is exact.
    """
    P, K = _svm_problem(config)
    m, lam, eps = int(config["m"]), float(config["lam"]), float(config["eps"])
    X, y = P.sample(m, rng)
    G = K(X)
    fit = svm_fit(G, y, lam)                           # raises CertificateError
    alpha = fit.alpha
    fx = G @ alpha
    scale = _scale(config, S5_2, "svm", kappa=K.kappa, lam=lam, m=m, eps=eps)
    b = rng.laplace(0.0, scale, int(config.get("n_noise", 1)))
    f_nodes = _eval_chunked(K, _quad_nodes(), X, alpha)
    hinge, mis = _hinge_and_misclass(P, f_nodes, np.concatenate(([0.0], b)))
    h0, mis0 = float(hinge[0]), float(mis[0])
    hinge, mis = hinge[1:], mis[1:]
    emp0 = float(np.mean(np.maximum(0.0, 1 - y * fx)))
    nb = compiled_module("_loops_numba")
    if nb is not None:        # the NumPy line below, row by row without (n_noise × m) temporaries: same bits
        emp = nb.hinge_row_means(np.ascontiguousarray(y, dtype=float), np.ascontiguousarray(fx, dtype=float),
                                 np.ascontiguousarray(b, dtype=float))
    else:
        emp = np.mean(np.maximum(0.0, 1 - y[None, :] * (fx[None, :] + b[:, None])), axis=1)
    vals = [_get(config, SVM_DEFAULTS, k) for k in ("t0", "a", "margin", "kappa")]
    st = ramp_stepping_stone(*vals, lam)
    g_x = _ramp_values(X[:, 0], P.t0, st["w1"], st["w2"])
    emp_g = float(np.mean(np.maximum(0.0, 1 - y * g_x)))
    risk_g = P.bayes_hinge_risk + st["excess"]
    omega_z = float(alpha @ fx)
    return {
        "excess": float(np.mean(hinge)) - P.bayes_hinge_risk, "misclass": float(np.mean(mis)),
        "R1": float(np.mean(hinge - emp)), "R2": float(np.mean(emp)) - emp0,
        "S": emp_g - risk_g, "D": st["D"], "omega_z": omega_z,
        "gap": (emp_g + lam * st["norm2"]) - (emp0 + lam * omega_z),
        "excess_fz": h0 - P.bayes_hinge_risk, "misclass_fz": mis0,
        "Eabsb": float(np.mean(np.abs(b))), "scale": scale, "cert": fit.certificate.value,
    }


# ---------------------------------------------------------------------------
# adversarial neighbour searches
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class WorstNeighbour:
    """The worst neighbouring pair found for one norm.

    Attributes
    ----------
    norm : str
        ``"rkhs"`` (‖f_z − f_z̄‖_K) or ``"sup"`` (max over an evaluation grid of |f_z − f_z̄|).
    value : float
        The distance recomputed from an independent certified refit on z̄.
    search_value : float
        The distance the search itself found (rank-2 update or warm-started refit).
    j : int
        Index of the replaced point.
    x_bar, y_bar : float
        The replacement point.
    cert_error : float
        Certified bound on |value − exact distance| (sum of the two fits' certified
        errors; for ``sup`` multiplied by κ, since ‖·‖_∞ ≤ κ‖·‖_K).
    n_pairs : int
        Number of (j, x̄, ȳ) neighbours evaluated.
    n_refits : int
        Number of exact refits done by the search (SVM) or 0 (least squares).
    """

    norm: str
    value: float
    search_value: float
    j: int
    x_bar: float
    y_bar: float
    cert_error: float
    n_pairs: int
    n_refits: int = 0

    def as_dict(self, prefix: str) -> dict[str, float]:
        return {f"{prefix}_{k}": float(v) for k, v in asdict(self).items() if k != "norm"}


def _eval_grid(n_eval: int, *extra: FloatArray) -> FloatArray:
    return np.unique(np.mod(np.concatenate([(np.arange(n_eval) + 0.5) / n_eval, *extra]), 1.0))


def _top_pairs(D: FloatArray, xc: FloatArray, k: int) -> list[tuple[int, int]]:
    """Indices (j, c) of the k largest entries with distinct (j, x̄)."""
    out: list[tuple[int, int]] = []
    seen: set[tuple[int, float]] = set()
    for flat in np.argsort(D.ravel(), kind="stable")[::-1]:
        j, c = np.unravel_index(int(flat), D.shape)
        key = (int(j), float(xc[c]))
        if key in seen:
            continue
        seen.add(key)
        out.append((int(j), int(c)))
        if len(out) >= k:
            break
    return out


def ls_worst_neighbour(X: FloatArray, y: FloatArray, lam: float, kernel: PeriodicSobolevKernel, M: float,
                       n_search: int = 64, n_refine: int = 4, rounds: int = 3, n_eval: int = 256
                       ) -> dict[str, WorstNeighbour]:
    """Adversarial search of max ‖f_z − f_z̄‖_K and max |f_z − f_z̄| for kernel least squares.

    1. screening: every index j against ``n_search`` replacement inputs x̄ spread
       uniformly over the circle (for the K-norm also the ``n_search`` data points x_i with
       the largest |α_i|), each with
       ȳ = +M and ȳ = −M.  f_z̄ is affine in ȳ, so
       for fixed (j, x̄) both distances are convex in ȳ and maximal at ȳ = ±M: the
       extreme labels are the only ones needed.  One factorisation of K + λmI serves
       all (j, x̄, ȳ) through :meth:`~simulations.solvers.KLSFactor.neighbour_scan`
       (rank-2 updates); the sup-norm is the max over a grid of ``n_eval`` points plus
       the data and candidate points;
    2. refinement: for the ``n_refine`` best (j, x̄) of the K-norm (half as many, with one
       round less, for the sup-norm, whose scans cost O(Gm²)), ``rounds`` rounds of a local
       grid (9 points, ±h, h shrinking 4× per round) around x̄, again for every j;
    3. verification: a cold refit (:func:`~simulations.solvers.kls_fit`) on the worst z̄
       and the brute-force distance (:func:`~simulations.solvers.union_rkhs_distance`;
       the sup on the grid plus a fine grid around x_j and x̄).

    Step 1 dominates the cost (its sup-norm loop is O(m·G·C)); :func:`ls_screen_block` runs it
    for one block of indices j and :func:`ls_refine_screen` runs steps 2–3 from the merged
    blocks, with the same result.

    Returns
    -------
    dict
        ``{"rkhs": WorstNeighbour, "sup": WorstNeighbour}``.
    """
    x = np.mod(np.asarray(X, float).reshape(-1), 1.0)
    y = np.asarray(y, float)
    F = KLSFactor(kernel(x), lam)
    res = F.fit(y)                                    # raises CertificateError
    xc, yc, xd, yd = _ls_candidates(x, res.alpha, M, n_search)
    sc = _ls_scan(F, x, y, kernel, xc, yc, n_eval)
    # the K-norm screening also tries data points as x̄ (no grid needed: O(m²) each)
    scd = _ls_scan(F, x, y, kernel, xd, yd, None)
    n_pairs = x.size * (xc.size + xd.size)
    screen: dict[str, tuple[tuple[float, int, float, float], list[tuple[int, float]]]] = {}
    for norm in ("rkhs", "sup"):
        if norm == "rkhs":
            xc, yc = np.concatenate([xc, xd]), np.concatenate([yc, yd])
            D = np.concatenate([sc.rkhs_dist, scd.rkhs_dist], axis=1)
        else:
            xc, yc = xc[: 2 * n_search], yc[: 2 * n_search]
            D = sc.sup_dist
        j, c = np.unravel_index(int(np.argmax(D)), D.shape)
        starts = _top_pairs(D, xc, _ls_starts(norm, n_refine))
        screen[norm] = ((float(D[j, c]), int(j), float(xc[c]), float(yc[c])),
                        [(j0, float(xc[c0])) for j0, c0 in starts])
    return _ls_refine(F, res, x, y, lam, kernel, M, screen, n_search=n_search, rounds=rounds,
                      n_eval=n_eval, n_pairs=n_pairs)


def _ls_candidates(x: FloatArray, alpha: FloatArray, M: float, n_search: int
                   ) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray]:
    """The screening's candidates (x̄, ȳ): a uniform grid of ``n_search`` points, and the
    ``n_search`` data points with the largest |α_i| (K-norm only), each with ȳ = +M and −M."""
    x0 = (np.arange(n_search) + 0.5) / n_search
    xc = np.concatenate([x0, x0])
    yc = np.concatenate([np.full(n_search, M), np.full(n_search, -M)])
    top = x[np.argsort(-np.abs(alpha), kind="stable")[:n_search]]   # most influential points
    xd = np.concatenate([top, top])
    yd = np.concatenate([np.full(top.size, M), np.full(top.size, -M)])
    return xc, yc, xd, yd


def _ls_scan(F: KLSFactor, x: FloatArray, y: FloatArray, kernel: PeriodicSobolevKernel, xc: FloatArray,
             yc: FloatArray, n_grid: int | None):
    """:meth:`KLSFactor.neighbour_scan` of the candidates (x̄, ȳ) = (xc, yc), with the sup-norm on
    the grid ``_eval_grid(n_grid, x, xc)`` unless ``n_grid`` is None."""
    if n_grid is None:
        return F.neighbour_scan(y, kernel(xc, x), kernel.diag(xc), yc)
    grid = _eval_grid(n_grid, x, xc)
    return F.neighbour_scan(y, kernel(xc, x), kernel.diag(xc), yc,
                            K_eval=kernel(grid, x), K_eval_cand=kernel(grid, xc))


def _ls_starts(norm: str, n_refine: int) -> int:
    """Number of refinement starts of a norm (the sup-norm scans cost O(Gm²): half as many)."""
    return n_refine if norm == "rkhs" else max(1, n_refine // 2)


def _ls_refine(F: KLSFactor, res: KLSResult, x: FloatArray, y: FloatArray, lam: float,
               kernel: PeriodicSobolevKernel, M: float,
               screen: Mapping[str, tuple[tuple[float, int, float, float], Sequence[tuple[int, float]]]],
               *, n_search: int, rounds: int, n_eval: int, n_pairs: int) -> dict[str, WorstNeighbour]:
    """Steps 2–3 of :func:`ls_worst_neighbour` from the screening's result.

    ``screen[norm]`` is ``((value, j, x̄, ȳ), starts)``: the screening's best pair (the first
    maximum in (j, c) order) and the refinement starts (j₀, x̄₀) (:func:`_top_pairs`);
    ``n_pairs`` counts the screened pairs.  Shared by the whole search and the reduction of a
    search split into index blocks (:func:`ls_refine_screen`), so both refine alike.
    """
    best: dict[str, tuple[float, int, float, float]] = {}
    for norm in ("rkhs", "sup"):
        best[norm], starts = screen[norm]
        n_rounds = rounds if norm == "rkhs" else max(1, rounds - 1)
        for j0, xb0 in starts:
            xb, h = float(xb0), 1.0 / n_search
            for _ in range(n_rounds):
                xl = np.mod(xb + np.linspace(-h, h, 9), 1.0)
                xs, ys = np.concatenate([xl, xl]), np.concatenate([np.full(9, M), np.full(9, -M)])
                s2 = _ls_scan(F, x, y, kernel, xs, ys, max(64, n_eval // 2) if norm == "sup" else None)
                n_pairs += x.size * xs.size
                D2 = s2.rkhs_dist if norm == "rkhs" else s2.sup_dist
                jj, cc = np.unravel_index(int(np.argmax(D2)), D2.shape)
                if D2[jj, cc] > best[norm][0]:
                    best[norm] = (float(D2[jj, cc]), int(jj), float(xs[cc]), float(ys[cc]))
                # continue the local search around this start's best x̄ for index j0
                xb = float(xs[int(np.argmax(D2[j0]))])
                h /= 4
    out = {}
    for norm, (val, j, xb, yb) in best.items():
        kc = kernel(np.array([xb]), x)[0]
        kap = float(kernel.diag(np.array([xb]))[0])
        Gb = replace_point(F.K, j, kc, kap)
        yy = y.copy()
        yy[j] = yb
        rb = kls_fit(Gb, yy, lam)
        dK = union_rkhs_distance(F.K, kc, kap, j, res.alpha, rb.alpha)
        xbar = x.copy()
        xbar[j] = xb
        fine = np.concatenate([x[j] + np.linspace(-0.02, 0.02, 401), xb + np.linspace(-0.02, 0.02, 401)])
        grid = _eval_grid(n_eval, x, np.array([xb]), fine)
        dsup = float(np.max(np.abs(kernel(grid, x) @ res.alpha - kernel(grid, xbar) @ rb.alpha)))
        errK = float(res.rkhs_error_bound) + float(rb.rkhs_error_bound)
        out[norm] = WorstNeighbour(norm, dK if norm == "rkhs" else dsup, val, j, xb, yb,
                                   errK if norm == "rkhs" else kernel.kappa * errK, n_pairs)
    return out


# ---------------------------------------------------------------------------
# the least-squares search split into index blocks (one executor task each)
# ---------------------------------------------------------------------------

#: configuration keys of one index block of a split least-squares search (:func:`ls_sensitivity_trial`)
BLOCK_KEYS = ("block", "n_blocks")
#: work of one index block: (scanned indices j) × (grid points) × (candidates) of the sup-norm
#: screening loop.  Measured on one core at m = 2000, n_search = 512 (5.7e9 in all): the blocks'
#: loop does about 5 ns per unit (the unsplit ``neighbour_scan`` loop about 11) and every block
#: repeats about 2.5 s of shared products, so 2e9 is about 10–12 s a block (3 blocks there)
LS_BLOCK_WORK = 2.0e9
#: columns of Q (indices j) per pass of the sup-norm screening loop (a (G, 64) slab stays in cache)
_SUP_CHUNK = 64


def ls_search_blocks(m: int, n_search: int, n_eval: int = 256, work: float = LS_BLOCK_WORK) -> int:
    """Number of index blocks a least-squares search of this size is split into.

    The screening's cost is dominated by its sup-norm loop, m·G·C element operations with
    G ≈ n_eval + m + n_search grid points and C = 2·n_search candidates; each block gets at most
    ``work`` of them (plus an O(m³ + Gm²) share that every block repeats), and there are at
    most m blocks.

    Examples
    --------
    >>> [ls_search_blocks(m, 128) for m in (50, 200, 800)]      # the default profile: unsplit
    [1, 1, 1]
    >>> [ls_search_blocks(m, 512) for m in (50, 200, 800, 2000)]    # the full profile
    [1, 1, 1, 3]
    """
    ops = float(m) * (n_eval + m + n_search) * 2 * n_search
    return int(min(max(1, math.ceil(ops / work)), m))


def _block_rows(m: int, block: int, n_blocks: int) -> tuple[int, int]:
    """Rows [lo, hi) of index block ``block`` of ``n_blocks`` (as :func:`numpy.array_split`).

    Examples
    --------
    >>> [_block_rows(10, b, 3) for b in range(3)]
    [(0, 4), (4, 7), (7, 10)]
    """
    if not 1 <= n_blocks <= m:
        raise ValueError(f"parameter 'n_blocks' = {n_blocks!r} must be between 1 and m = {m}")
    if not 0 <= block < n_blocks:
        raise ValueError(f"parameter 'block' = {block!r} must be between 0 and n_blocks - 1 = {n_blocks - 1}")
    q, r = divmod(m, n_blocks)
    lo = block * q + min(block, r)
    return lo, lo + q + (block < r)


def _ls_scan_rows(F: KLSFactor, y: FloatArray, Kc: FloatArray, kap: FloatArray, yc: FloatArray,
                  lo: int, hi: int, Ke: FloatArray | None = None, Kec: FloatArray | None = None
                  ) -> tuple[FloatArray, FloatArray | None]:
    """Rows j ∈ [lo, hi) of ``neighbour_scan(...).rkhs_dist`` and ``.sup_dist``, bit for bit.

    The same floating-point operations as :func:`simulations.solvers.neighbour_scan`: every
    product over all rows or all candidates (P = (K + λmI)⁻¹, P k̄, P² k̄, Q = K_eval P, Q K_candᵀ)
    is computed whole, exactly as there, and only the elementwise formulas and the maxima over
    the grid (which are exact) are restricted to the block's rows; so each block costs the
    shared O(m³ + Gm² + GmC) products plus its share of the O(GmC) sup-norm loop.

    Examples
    --------
    >>> import numpy as np
    >>> P = circle_problem()
    >>> X, y = P.sample(30, 0)
    >>> x, xc = X[:, 0], np.linspace(0, 1, 5)
    >>> F = KLSFactor(P.kernel(x), 0.1)
    >>> full = F.neighbour_scan(y, P.kernel(xc, x), P.kernel.diag(xc), 1.1 * np.ones(5))
    >>> rk, _ = _ls_scan_rows(F, y, P.kernel(xc, x), P.kernel.diag(xc), 1.1 * np.ones(5), 7, 19)
    >>> rk.tobytes() == full.rkhs_dist[7:19].tobytes()
    True
    """
    # the following lines repeat neighbour_scan's arithmetic (rows r only where it is elementwise)
    mu = F.mu
    P = F.inverse
    Pd = np.diag(P).copy()
    P2d = F._inverse_sq_diag
    alpha = P @ y
    e = mu * alpha
    D = mu * Pd
    r_jj = Pd - mu * P2d
    pC = P @ Kc.T
    ppC = P @ pC
    fz_c = Kc @ alpha
    s_cc, r_cc = _cand_norms(F.K, Kc, kap, pC, mu)
    r = slice(lo, hi)
    e, D, r_jj, pC, ppC = e[r], D[r], r_jj[r], pC[r], ppC[r]
    Dj = D[:, None]
    s_jc = pC
    ww_jj = (r_jj / D**2)[:, None]
    ww_jc = (ppC + r_jj[:, None] * s_jc / Dj) / Dj
    ww_cc = r_cc[None, :] + 2 * s_jc * ppC / Dj + s_jc**2 * r_jj[:, None] / Dj**2
    s_cc_j = s_cc[None, :] + s_jc**2 / Dj
    h_c = fz_c[None, :] - e[:, None] * s_jc / Dj
    b = (yc[None, :] - h_c) / (1.0 + s_cc_j)
    ej = e[:, None]
    d2 = ej**2 * ww_jj - 2 * ej * b * ww_jc + b**2 * ww_cc
    rkhs = np.sqrt(np.maximum(d2, 0.0))
    if Ke is None or Kec is None:
        return rkhs, None
    Q = Ke @ P
    QK = Q @ Kc.T
    vc = (Kec - QK) / mu                                  # v_x̄(t_g), all candidates
    coef = (e[:, None] - b * s_jc) / Dj                   # (rows, C)
    sup = np.empty_like(rkhs)
    for a in range(0, hi - lo, _SUP_CHUNK):               # a slab of Q's columns, all candidates
        z = slice(a, min(a + _SUP_CHUNK, hi - lo))
        Qz = np.ascontiguousarray(Q[:, lo + z.start:lo + z.stop])
        for c in range(Kc.shape[0]):
            diff = Qz * coef[z, c][None, :] - vc[:, c][:, None] * b[z, c][None, :]   # f_z − f_z̄
            sup[z, c] = np.max(np.abs(diff), axis=0)
    return rkhs, sup


def _data_hash(x: FloatArray, y: FloatArray) -> float:
    """A 48-bit fingerprint of a data set (exact as a float), to check that blocks scanned the same one."""
    digest = hashlib.sha256(np.ascontiguousarray(x, np.float64).tobytes()
                            + np.ascontiguousarray(y, np.float64).tobytes()).digest()
    return float(int.from_bytes(digest[:6], "little"))


_FIELDS = ("value", "j", "c", "x_bar", "y_bar")


def _block_summary(D: FloatArray, lo: int, xc: FloatArray, yc: FloatArray, k: int, prefix: str
                   ) -> dict[str, float]:
    """The rows ``D`` (global rows lo, lo + 1, …) of a screening, summarised for :func:`ls_reduce_blocks`.

    ``{prefix}_best_{f}``: the first maximum in (j, c) order (what ``np.argmax`` of the whole
    matrix returns, if it lies in these rows); ``{prefix}_top{i}_{f}``, i < k: the entries
    :func:`_top_pairs` keeps among these rows (descending value, ties by descending (j, c), one
    per (j, x̄)), padded with value nan; f ∈ value, j, c, x_bar, y_bar.  Blocks of rows split
    the indices j, so no (j, x̄) is in two blocks and the global top k (:func:`_top_pairs` of
    the whole matrix) is the first k of the union of the blocks' lists in that order.

    Examples
    --------
    >>> D = np.array([[1.0, 3.0], [3.0, 0.0]])
    >>> s = _block_summary(D, 10, np.array([0.2, 0.7]), np.array([1.0, -1.0]), 1, "p")
    >>> s["p_best_j"], s["p_best_c"], s["p_top0_j"], s["p_top0_c"]     # argmax: first; top: last
    (10.0, 1.0, 11.0, 0.0)
    """
    def entry(j: int, c: int) -> tuple[float, ...]:
        return (float(D[j, c]), float(lo + j), float(c), float(xc[c]), float(yc[c]))

    j, c = np.unravel_index(int(np.argmax(D)), D.shape)
    ents = {"best": entry(int(j), int(c))}
    top = _top_pairs(D, xc, k)
    for i in range(k):
        ents[f"top{i}"] = entry(*top[i]) if i < len(top) else (math.nan, -1.0, -1.0, math.nan, math.nan)
    return {f"{prefix}_{name}_{f}": v for name, ent in ents.items() for f, v in zip(_FIELDS, ent, strict=True)}


def ls_screen_block(X: FloatArray, y: FloatArray, lam: float, kernel: PeriodicSobolevKernel, M: float,
                    n_search: int = 64, block: int = 0, n_blocks: int = 1, n_refine: int = 4,
                    n_eval: int = 256) -> dict[str, float]:
    """Step 1 (screening) of :func:`ls_worst_neighbour` for the indices j of one block.

    The data set, the fit, the candidates and the evaluation grid are those of the whole search
    (the grid holds every candidate), and the distances are bit for bit those of the whole
    screening (:func:`_ls_scan_rows`); only the rows j ∈ [lo, hi) of ``n_blocks`` contiguous
    blocks are scanned.  :func:`ls_reduce_blocks` merges the blocks.

    Returns
    -------
    dict of float
        ``screen_{norm}_best_{f}`` and ``screen_{norm}_top{i}_{f}`` (f ∈ value, j, c, x_bar,
        y_bar; i < number of refinement starts of the norm; a missing entry has value nan) for
        norm ∈ rkhs, sup (the rkhs columns c index [grid candidates, data candidates], the sup
        ones the grid candidates, as in :func:`ls_worst_neighbour`); ``screen_block``,
        ``screen_n_blocks``, ``screen_lo``, ``screen_hi``, ``screen_data_hash``.

    Examples
    --------
    >>> P = circle_problem()
    >>> X, y = P.sample(30, 0)
    >>> out = ls_screen_block(X, y, 0.1, P.kernel, P.M, n_search=8, block=1, n_blocks=3)
    >>> out["screen_lo"], out["screen_hi"], 10 <= out["screen_rkhs_best_j"] < 20
    (10.0, 20.0, True)
    """
    x = np.mod(np.asarray(X, float).reshape(-1), 1.0)
    y = np.asarray(y, float)
    lo, hi = _block_rows(x.size, int(block), int(n_blocks))
    F = KLSFactor(kernel(x), lam)
    res = F.fit(y)                                    # raises CertificateError
    xc, yc, xd, yd = _ls_candidates(x, res.alpha, M, n_search)
    grid = _eval_grid(n_eval, x, xc)
    rk, sup = _ls_scan_rows(F, y, kernel(xc, x), kernel.diag(xc), yc, lo, hi,
                            Ke=kernel(grid, x), Kec=kernel(grid, xc))
    rkd, _ = _ls_scan_rows(F, y, kernel(xd, x), kernel.diag(xd), yd, lo, hi)
    mats = {"rkhs": (np.concatenate([rk, rkd], axis=1), np.concatenate([xc, xd]), np.concatenate([yc, yd])),
            "sup": (sup, xc, yc)}
    out = {"screen_block": float(block), "screen_n_blocks": float(n_blocks), "screen_lo": float(lo),
           "screen_hi": float(hi), "screen_data_hash": _data_hash(x, y)}
    for norm, (D, cx, cy) in mats.items():
        out.update(_block_summary(D, lo, cx, cy, _ls_starts(norm, n_refine), f"screen_{norm}"))
    return out


def _entries(blocks: Sequence[Mapping[str, Any]], prefix: str) -> list[tuple[float, int, int, float, float]]:
    """The entries (value, j, c, x̄, ȳ) named ``prefix`` of the blocks' rows (missing ones skipped)."""
    got = []
    for b in blocks:
        v = float(b[f"{prefix}_value"])
        if not math.isnan(v):
            got.append((v, int(b[f"{prefix}_j"]), int(b[f"{prefix}_c"]), float(b[f"{prefix}_x_bar"]),
                        float(b[f"{prefix}_y_bar"])))
    return got


def ls_reduce_blocks(blocks: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Merge the outputs of :func:`ls_screen_block` for every block of one search.

    ``best``: the largest value, ties to the smallest (j, c) (``np.argmax`` of the whole
    matrix); ``starts``: the first k distinct (j, x̄) in descending value, ties to the largest
    (j, c) (:func:`_top_pairs` of the whole matrix).  So the result is what the whole screening
    gives, whatever the split.

    Parameters
    ----------
    blocks : sequence of mapping
        One output (a trial row) per block, in any order; a ``trial`` entry, when present, is
        the trial index (the same in every block).

    Returns
    -------
    dict
        JSON-able: ``{"rkhs": {"best": [value, j, x̄, ȳ], "starts": [[j, x̄], …]}, "sup": …,
        "data_hash": …, "trial": …}`` (the ``screen`` of
        :func:`ls_sensitivity_refine_trial`).

    Raises
    ------
    ValueError
        When a block is missing or repeated, or the blocks scanned different data sets.

    Examples
    --------
    >>> P = circle_problem()
    >>> X, y = P.sample(30, 0)
    >>> parts = [ls_screen_block(X, y, 0.1, P.kernel, P.M, 8, b, 3) for b in (2, 0, 1)]
    >>> whole = ls_screen_block(X, y, 0.1, P.kernel, P.M, 8)
    >>> ls_reduce_blocks(parts) == ls_reduce_blocks([whole])
    True
    """
    if not blocks:
        raise ValueError("parameter 'blocks' is empty")
    nb = {int(b["screen_n_blocks"]) for b in blocks}
    ids = sorted(int(b["screen_block"]) for b in blocks)
    if len(nb) != 1 or ids != list(range(nb.pop())):
        raise ValueError(f"blocks {ids} are not every block 0..n_blocks-1 exactly once")
    hashes = {float(b["screen_data_hash"]) for b in blocks}
    trials = {int(b.get("trial", 0)) for b in blocks}
    if len(hashes) != 1 or len(trials) != 1:
        raise ValueError("the blocks scanned different data sets (different data hashes or trial indices)")
    out: dict[str, Any] = {"data_hash": hashes.pop(), "trial": trials.pop()}
    for norm in ("rkhs", "sup"):
        k = sum(1 for key in blocks[0] if key.startswith(f"screen_{norm}_top") and key.endswith("_value"))
        v, j, _, xb, yb = min(_entries(blocks, f"screen_{norm}_best"), key=lambda t: (-t[0], t[1], t[2]))
        # a pair (j, x̄) lies in one block only (blocks split j), so the blocks' lists need no
        # further deduplication: the first k of their union in _top_pairs' order are its top k
        tops = sorted((t for i in range(k) for t in _entries(blocks, f"screen_{norm}_top{i}")),
                      key=lambda t: (-t[0], -t[1], -t[2]))[:k]
        out[norm] = {"best": [v, j, xb, yb], "starts": [[t[1], t[3]] for t in tops]}
    return out


def ls_refine_screen(X: FloatArray, y: FloatArray, lam: float, kernel: PeriodicSobolevKernel, M: float,
                     screen: Mapping[str, Any], n_search: int = 64, rounds: int = 3, n_eval: int = 256
                     ) -> dict[str, WorstNeighbour]:
    """Steps 2–3 of :func:`ls_worst_neighbour` (refinement, verification) from a reduced screening.

    ``screen`` is :func:`ls_reduce_blocks`' output for this data set; the result is what
    :func:`ls_worst_neighbour` returns for it (same arguments), number for number.

    Raises
    ------
    ValueError
        When ``screen`` was computed on another data set.

    Examples
    --------
    >>> P = circle_problem()
    >>> X, y = P.sample(30, 0)
    >>> parts = [ls_screen_block(X, y, 0.1, P.kernel, P.M, 8, b, 4) for b in range(4)]
    >>> w = ls_refine_screen(X, y, 0.1, P.kernel, P.M, ls_reduce_blocks(parts), n_search=8)
    >>> w == ls_worst_neighbour(X, y, 0.1, P.kernel, P.M, n_search=8)
    True
    """
    x = np.mod(np.asarray(X, float).reshape(-1), 1.0)
    y = np.asarray(y, float)
    if float(screen["data_hash"]) != _data_hash(x, y):
        raise ValueError("the screening was computed on another data set (data hash differs)")
    F = KLSFactor(kernel(x), lam)
    res = F.fit(y)                                    # raises CertificateError
    n_pairs = x.size * 2 * (n_search + min(n_search, x.size))     # the screening's pairs
    sc = {norm: ((float(s["best"][0]), int(s["best"][1]), float(s["best"][2]), float(s["best"][3])),
                 [(int(j0), float(xb0)) for j0, xb0 in s["starts"]])
          for norm, s in ((n, screen[n]) for n in ("rkhs", "sup"))}
    return _ls_refine(F, res, x, y, lam, kernel, M, sc, n_search=n_search, rounds=rounds, n_eval=n_eval,
                      n_pairs=n_pairs)


def _unsplit_rng(config: Mapping[str, Any], rng: np.random.Generator, drop: Sequence[str],
                 index: int | None = None) -> np.random.Generator:
    """The generator the runner gives trial ``index`` of ``config`` without the keys ``drop``.

    The runner seeds trial i of a configuration with ``trial_seeds(config, ·, seed)[i]``, a
    function of the whole configuration; a block (or reduction) of a split search must draw
    the data set of the unsplit configuration instead.  When ``rng`` is the runner's
    generator of trial i of ``config`` (root seed s), returns the generator of trial ``index``
    (default i) of the configuration without ``drop``, root seed s; any other generator (a
    direct call) is returned unchanged: the caller chose the data set's generator.
    """
    ss = getattr(rng.bit_generator, "seed_seq", None)
    if not isinstance(ss, np.random.SeedSequence) or len(ss.spawn_key) != 2 or not isinstance(ss.entropy, int):
        return rng
    i = int(ss.spawn_key[1])
    if trial_seeds(config, i + 1, ss.entropy)[i].spawn_key != ss.spawn_key:
        return rng
    t = i if index is None else int(index)
    base = {k: v for k, v in config.items() if k not in drop}
    return np.random.default_rng(trial_seeds(base, t + 1, ss.entropy)[t])


def _svm_distances(kernel: PeriodicSobolevKernel, x: FloatArray, G: FloatArray, alpha: FloatArray,
                   j: int, xb: float, abar: FloatArray, grid: FloatArray) -> tuple[float, float]:
    kc = kernel(np.array([xb]), x)[0]
    kap = float(kernel.diag(np.array([xb]))[0])
    dK = union_rkhs_distance(G, kc, kap, j, alpha, abar)
    xbar = x.copy()
    xbar[j] = xb
    g = np.concatenate([grid, [xb, x[j]]])
    dsup = float(np.max(np.abs(kernel(g, x) @ alpha - kernel(g, xbar) @ abar)))
    return dK, dsup


def svm_worst_neighbour(X: FloatArray, y: FloatArray, lam: float, kernel: PeriodicSobolevKernel,
                        n_search: int = 64, n_refit: int = 8, rounds: int = 2, n_eval: int = 512,
                        tol: float = 1e-10) -> dict[str, WorstNeighbour]:
    """Adversarial search of max ‖f_z − f_z̄‖_K and max |f_z − f_z̄| for the offset-free SVM.

    1. screening (no refit): for every index j and every candidate (x̄, ȳ) with x̄ on a
       uniform grid of ``n_search`` points and ȳ = ±1, the first-order estimate
       ‖α_j K_{x_j} − β̄ K_{x̄}‖_K, where α_j is the coefficient of the removed point and
       β̄ = ȳ/(2λm) if ȳ f_z(x̄) < 1 (the new point enters the margin at its box bound)
       else 0;
    2. exact refits (:func:`~simulations.solvers.svm_fit`, warm-started, duality-gap
       certificate) of the ``n_refit`` best screened pairs;
    3. refinement: for the best pair of each norm, ``rounds`` rounds of 4 nearby x̄
       (±h, ±h/2, h shrinking 4×) with both labels, refitted;
    4. the distances are computed exactly from the two coefficient vectors
       (:func:`~simulations.solvers.union_rkhs_distance`; sup over a grid of ``n_eval``
       points plus x_j and x̄).

    Returns
    -------
    dict
        ``{"rkhs": WorstNeighbour, "sup": WorstNeighbour}``; ``value`` is recomputed from a
        cold-started refit on the reported pair.
    """
    x = np.mod(np.asarray(X, float).reshape(-1), 1.0)
    y = np.asarray(y, float)
    m = x.size
    G = kernel(x)
    fit = svm_fit(G, y, lam, tol=tol)                  # raises CertificateError
    alpha = fit.alpha
    Cbox = 1.0 / (2 * lam * m)
    x0 = np.concatenate([(np.arange(n_search) + 0.5) / n_search, x])
    xc = np.concatenate([x0, x0])
    yc = np.concatenate([np.ones(x0.size), -np.ones(x0.size)])
    Kc = kernel(xc, x)                                  # (C, m)
    fzc = Kc @ alpha
    bc = np.where(yc * fzc < 1, yc * Cbox, 0.0)
    kapc = kernel.diag(xc)
    score2 = (alpha**2 * np.diag(G))[:, None] - 2 * alpha[:, None] * bc[None, :] * Kc.T + (bc**2 * kapc)[None, :]
    grid = _eval_grid(n_eval, x)
    n_pairs = score2.size
    n_refits = 0
    cache: dict[tuple[int, float, float], tuple[float, float, float]] = {}

    def refit(j: int, xb: float, yb: float) -> tuple[float, float, float]:
        nonlocal n_refits
        key = (j, round(xb, 15), yb)
        if key in cache:
            return cache[key]
        kc = kernel(np.array([xb]), x)[0]
        Gb = replace_point(G, j, kc, float(kernel.diag(np.array([xb]))[0]))
        yy = y.copy()
        yy[j] = yb
        a0 = alpha.copy()
        a0[j] = yb * Cbox if yb * (kc @ alpha) < 1 else 0.0
        fb = svm_fit(Gb, yy, lam, tol=tol, alpha0=a0)
        n_refits += 1
        dK, dsup = _svm_distances(kernel, x, G, alpha, j, xb, fb.alpha, grid)
        cache[key] = (dK, dsup, fb.rkhs_error_bound)
        return cache[key]

    best: dict[str, tuple[float, int, float, float]] = {"rkhs": (-1.0, 0, 0.0, 0.0), "sup": (-1.0, 0, 0.0, 0.0)}

    def consider(j: int, xb: float, yb: float) -> None:
        dK, dsup, _ = refit(j, xb, yb)
        for norm, v in (("rkhs", dK), ("sup", dsup)):
            if v > best[norm][0]:
                best[norm] = (v, j, xb, yb)

    for j, c in _top_pairs(np.sqrt(np.maximum(score2, 0.0)), xc, n_refit):
        consider(j, float(xc[c]), float(yc[c]))
    for norm in ("rkhs", "sup"):
        h = 1.0 / n_search
        for _ in range(rounds):
            _, j, xb, _yb = best[norm]
            for dx in (-h, -h / 2, h / 2, h):
                for yb in (1.0, -1.0):
                    consider(j, float(np.mod(xb + dx, 1.0)), yb)
            h /= 4
    out = {}
    for norm, (val, j, xb, yb) in best.items():
        kc = kernel(np.array([xb]), x)[0]
        Gb = replace_point(G, j, kc, float(kernel.diag(np.array([xb]))[0]))
        yy = y.copy()
        yy[j] = yb
        fb = svm_fit(Gb, yy, lam, tol=tol)             # cold start: independent verification
        dK, dsup = _svm_distances(kernel, x, G, alpha, j, xb, fb.alpha, grid)
        errK = fit.rkhs_error_bound + fb.rkhs_error_bound
        out[norm] = WorstNeighbour(norm, dK if norm == "rkhs" else dsup, val, j, xb, yb,
                                   errK if norm == "rkhs" else kernel.kappa * errK, n_pairs + n_refits,
                                   n_refits)
    return out


@trial(requires=('lam', 'm'), optional=('n_search', 'r', 's', 'sigma', 'kappa', 'block', 'n_blocks'))
def ls_sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Draw z from the circle problem and run :func:`ls_worst_neighbour` (config: m, lam, n_search).

    With ``block`` and ``n_blocks`` (:data:`BLOCK_KEYS`), one task of the search split into
    index blocks: only the screening of that block (:func:`ls_screen_block`), on the data set
    of the configuration without these keys (:func:`_unsplit_rng`: trial i of every block
    draws what trial i of the unsplit configuration draws).  :func:`ls_reduce_blocks` merges
    the blocks and :func:`ls_sensitivity_refine_trial` finishes the search; the result is the
    unsplit trial's, number for number, whatever ``n_blocks``.

    Examples
    --------
    >>> import numpy as np
    >>> cfg = {"m": 30, "lam": 0.1, "n_search": 8}
    >>> parts = [ls_sensitivity_trial({**cfg, "block": b, "n_blocks": 2}, np.random.default_rng(1))
    ...          for b in range(2)]
    >>> screen = ls_reduce_blocks(parts)
    >>> out = ls_sensitivity_refine_trial({**cfg, "screen": screen}, np.random.default_rng(1))
    >>> out == ls_sensitivity_trial(cfg, np.random.default_rng(1))
    True
    """
    P = _ls_problem(config)
    m, lam = int(config["m"]), float(config["lam"])
    split = any(k in config for k in BLOCK_KEYS)
    if split:
        rng = _unsplit_rng(config, rng, BLOCK_KEYS)
    X, y = P.sample(m, rng)
    n_search = int(config.get("n_search", 64))
    if split:
        return ls_screen_block(X, y, lam, P.kernel, P.M, n_search=n_search, block=int(config["block"]),
                               n_blocks=int(config["n_blocks"]))
    w = ls_worst_neighbour(X, y, lam, P.kernel, P.M, n_search=n_search)
    return {**w["rkhs"].as_dict("rkhs"), **w["sup"].as_dict("sup")}


@trial(requires=('lam', 'm', 'screen'), optional=('n_search', 'r', 's', 'sigma', 'kappa'))
def ls_sensitivity_refine_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Finish a least-squares search split into index blocks: refinement and verification.

    ``screen`` is :func:`ls_reduce_blocks` of the blocks' rows (:func:`ls_sensitivity_trial`
    with ``block``, ``n_blocks``); the data set is that of trial ``screen["trial"]`` of the
    configuration without ``screen`` (:func:`_unsplit_rng`).  Returns the unsplit trial's row.

    Raises
    ------
    ValueError
        When ``screen`` was computed on another data set.
    """
    P = _ls_problem(config)
    m, lam = int(config["m"]), float(config["lam"])
    screen = config["screen"]
    X, y = P.sample(m, _unsplit_rng(config, rng, ("screen",), index=int(screen.get("trial", 0))))
    w = ls_refine_screen(X, y, lam, P.kernel, P.M, screen, n_search=int(config.get("n_search", 64)))
    return {**w["rkhs"].as_dict("rkhs"), **w["sup"].as_dict("sup")}


@trial(requires=('lam', 'm'), optional=('n_refit', 'n_search', 't0', 'a', 'margin', 'kappa'))
def svm_sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Draw z from the classification problem and run :func:`svm_worst_neighbour`."""
    P, K = _svm_problem(config)
    m, lam = int(config["m"]), float(config["lam"])
    X, y = P.sample(m, rng)
    w = svm_worst_neighbour(X, y, lam, K, n_search=int(config.get("n_search", 64)),
                            n_refit=int(config.get("n_refit", 8)))
    return {**w["rkhs"].as_dict("rkhs"), **w["sup"].as_dict("sup")}


# ---------------------------------------------------------------------------
# hardest neighbouring pairs for the privacy audits (artefacts, reused by verify/empirical/jia.py)
# ---------------------------------------------------------------------------


@trial(requires=("algorithm", "m", "lam", "data_seed"), optional=("n_cand", "n_grid"), artefacts=("pair",))
def audit_pair_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The hardest neighbouring pair of §5.1 (``algorithm="kls"``) or §5.2 (``"svm"``), as an artefact.

    The data set is drawn from ``SeedSequence([data_seed, m])`` (:mod:`simulations.pairs`), not from
    ``rng``, so that the audited pair is the one the earlier reports audited; the trial is
    deterministic.  Returns ``pair`` (grid, f_z, f_z̄, index, replacement) and its largest difference.
    """
    from simulations.pairs import kls_pair, svm_pair

    kw = {k: int(config[k]) for k in ("n_cand", "n_grid") if k in config}
    alg = str(config["algorithm"])
    if alg not in ("kls", "svm"):
        raise ValueError(f"parameter 'algorithm' = {alg!r} of audit_pair_trial is not 'kls' or 'svm'")
    fn = kls_pair if alg == "kls" else svm_pair
    pair = fn(int(config["m"]), float(config["lam"]), int(config["data_seed"]), **kw)
    return {"pair": pair, "max_abs_diff": pair["max_abs_diff"]}


def relaxed_inputs(st, v: Mapping[str, Any]) -> dict[str, Any]:
    """The statement's parameters from the problem, each relaxed premise the problem leaves out at the paper's value.

    Examples
    --------
    >>> relaxed_inputs(S5_2_SCALE, {"kappa": 1, "lam": 0.1, "m": 100, "eps": 0.5, "M": 1})["tau"]
    0
    """
    out = {k: v[k] for k in st.params if k in v}
    missing = [k for k in st.params if k not in out and k not in st.relaxes]
    if missing:
        raise KeyError(missing[0])
    return st.paper_values(out)


def _s5_1_inputs(v: Mapping[str, Any]) -> dict[str, Any]:
    return relaxed_inputs(S5_1_SCALE, v)


def _s5_2_inputs(v: Mapping[str, Any]) -> dict[str, Any]:
    return relaxed_inputs(S5_2_SCALE, v)


#: the paper's mechanisms (discovered by simulations.mechanisms.mechanisms); a relaxed premise (the optimisation
#: tolerance τ of jia.s5_*.scale) the problem does not give is the paper's value (the exact minimiser, τ = 0)
PROP1 = Mechanism("jia.prop1", PROP1_SCALE, algorithms=("erm",),
                  release="f_z + b (Proposition 1, regularised kernel ERM with a C_L-Lipschitz loss)")
S5_1 = Mechanism("jia.s5_1", S5_1_SCALE, algorithms=("kls",), inputs=_s5_1_inputs,
                 release="f_z^ls + b (§5.1, least squares)")
S5_2 = Mechanism("jia.s5_2", S5_2_SCALE, algorithms=("svm",), output="sign", inputs=_s5_2_inputs,
                 release="sgn(f_z^h + b) (§5.2, SVM)")
MECHANISMS = (PROP1, S5_1, S5_2)


#: privacy–utility setups on bundled real data (discovered by simulations.trials.utility.utility_setups)
UTILITY_SETUPS = (
    UtilitySetup("kls_jia", "diabetes", "kls", S5_1, "square", "held-out squared error"),
    UtilitySetup("svm", "breast_cancer", "svm", S5_2, "zero_one", "held-out misclassification rate"),
)
