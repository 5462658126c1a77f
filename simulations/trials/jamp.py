r"""Trials of seed 001 (Nie & Wang, JAMP 2017, ``001_5df6aa3916744408.txt``): clipped least squares.

The algorithm (equation (2)) releases f_z,A = π(f_z,λ) + b: the kernel least-squares fit
f_z,λ = argmin (1/m)Σ(f(x_i) − y_i)² + λ‖f‖²_K (equation (1)), clipped to [−M, M] by π, plus
one Laplace variable b of scale ``jamp.prop1.scale`` (Proposition 1) with R = M/√λ (proof of
Theorem 3).  Everything here runs on :class:`~simulations.data.CircleRegression`: x uniform on
the circle, the periodic Sobolev kernel of smoothness s = 1 normalised to κ = 1, f_ρ = L_K^r g
known exactly (so E(f_ρ) = σ²/3, f_λ, D(λ) and ‖L_K^{−r} f_ρ‖_ρ are exact).

Two kinds of trial functions (module level, picklable, for :mod:`simulations.runner`):

:func:`risk_trial`
    one sample z, the exact fit (certificate checked), ``n_noise`` noise draws; returns the
    per-trial averages of R₁, R₂, S, D(λ), the excess risk and E(f_zA) − (1+2ε)E(f_ρ)
    (§4, decomposition (3)).
:func:`sensitivity_trial`
    one base data set and an adversarial search (:func:`adversarial_search`) over the
    replaced index j and the replacement point (x', y'); returns the worst ‖f_z − f_z̄‖_K,
    ‖f_z − f_z̄‖_∞ and ‖π(f_z) − π(f_z̄)‖_∞ found (Lemma 2), each verified by a full refit.

Exact arithmetic for s = 1
--------------------------
For the s = 1 kernel K(t, x) = μ₀ + cπ²B₂((t − x) mod 1) and t, x ∈ [0, 1),
B₂((t − x) mod 1) = u² − |u| + 1/6 with u = t − x.  Hence Σ α_i K(x_i, t) is a polynomial in t
plus Σ α_i|t − x_i|, which prefix sums over the sorted centres evaluate exactly in
O((m + n) log m) (:func:`sobolev1_eval`).  Between consecutive centres such a function is a
quadratic, and |∂_t K| ≤ cπ², so ‖f'‖_∞ ≤ cπ²‖α‖₁: this bounds what a grid misses of a sup.
For m above ``dense_max`` the fit is solved by conjugate gradients with this exact O(m log m)
product (:func:`sobolev1_kls_fit`), certified like :class:`~simulations.solvers.KLSFactor` by
the relative KKT residual ‖(K + λmI)α − y‖/‖y‖ ≤ 1e-10 (plus dense rows as a spot check);
below it :class:`~simulations.solvers.KLSFactor` (Cholesky) is used.

Population risks of the clipped function
----------------------------------------
π(f) is not a kernel expansion, so ‖π(f) + b − f_ρ‖²_ρ is computed by the midpoint rule on
``n_quad`` = 2^14 points (ρ_X is uniform).  For fixed f it is quadratic in b:
‖π(f) − f_ρ‖² + 2b⟨π(f) − f_ρ, 1⟩ + b², so all noise draws reuse two integrals.  The
integrand is periodic and continuous, smooth except for kinks at the m centres and at the
clipping crossings, so the rule's error is O(n_quad^(−2)): about 1e-8 relative (3e-10
absolute) here, far below the Monte Carlo error.  The tests compare it with the exact
:meth:`~simulations.data.CircleRegression.excess_risk` of the unclipped expansion and, with
clipping active, with 2^17 points.  f_ρ has frequencies < 2^12 ≤ n_quad/4, so it is
represented exactly on the grid.

Reproducibility: the trials run BLAS single-threaded (``threadpoolctl``; a transitive
dependency through scikit-learn), so their numbers are bit-identical on every executor.

Examples
--------
>>> import numpy as np
>>> from simulations.trials.jamp import risk_trial, default_config
>>> cfg = default_config(m=40, lam=0.3, eps=0.5, n_noise=50)
>>> out = risk_trial(cfg, np.random.default_rng(0))
>>> sorted(out)[:4]
['D', 'Eb2', 'R1', 'R1_given_z']
>>> out["gap"] >= 0          # R₁ + R₂ + S + D(λ) ≥ E(f_zA) − E(f_ρ), decomposition (3)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.sparse.linalg import LinearOperator, cg
from threadpoolctl import ThreadpoolController

from bounds.papers.jamp import PROP1_SCALE
from simulations._compiled import compiled_module
from simulations.data import CircleRegression
from simulations.kernels import PeriodicSobolevKernel
from simulations.mechanisms import Mechanism, UtilitySetup
from simulations.runner import trial
from simulations.solvers import (
    Certificate,
    CertificateError,
    KLSFactor,
    kls_fit,
    neighbour_grid_sup,
    neighbour_scan,
    replace_point,
    union_rkhs_distance,
)

__all__ = [
    "PROBLEM_DEFAULTS",
    "default_config",
    "problem",
    "sobolev1_eval",
    "sobolev1_kls_fit",
    "clipped_risk_coefficients",
    "risk_trial",
    "SearchResult",
    "adversarial_search",
    "sensitivity_trial",
]

FloatArray = NDArray[np.float64]

#: the distribution of every seed-001 trial: r = 1/2 (both min{·} of Theorems 2–3 are at
#: their kink), κ = 1, noise U[−0.1, 0.1], 12 lacunary levels (frequencies ≤ 2048)
PROBLEM_DEFAULTS: dict[str, Any] = {"r": 0.5, "s": 1, "sigma": 0.1, "eta": 0.05, "n_levels": 12,
                                    "kappa": 1.0}
N_QUAD = 2**14
DENSE_MAX = 400
TOL = 1e-10


@lru_cache(maxsize=1)
def _controller() -> ThreadpoolController:
    return ThreadpoolController()


def _one_blas_thread():
    """Context manager: BLAS single-threaded (bit-identical results on every executor)."""
    return _controller().limit(limits=1, user_api="blas")


def default_config(**changes: Any) -> dict[str, Any]:
    """A JSON-able trial configuration: the problem defaults plus ``changes``.

    For :func:`risk_trial` give ``m``, ``lam``, ``eps`` and ``n_noise`` (``scale`` is
    computed from ``jamp.prop1.scale`` with R = M/√λ when absent).

    Examples
    --------
    >>> default_config(m=10)["r"], default_config(m=10)["m"]
    (0.5, 10)
    """
    cfg = dict(PROBLEM_DEFAULTS)
    cfg.update(n_quad=N_QUAD, dense_max=DENSE_MAX)
    cfg.update(changes)
    return cfg


@lru_cache(maxsize=16)
def _problem(r: float, s: int, sigma: float, eta: float, n_levels: int, kappa: float
             ) -> CircleRegression:
    k = PeriodicSobolevKernel.with_kappa(s=s, kappa=kappa)
    return CircleRegression(r=r, s=s, sigma=sigma, eta=eta, n_levels=n_levels, mu0=k.mu0,
                            scale=k.scale)


def problem(config: Mapping[str, Any]) -> CircleRegression:
    """The :class:`CircleRegression` of a configuration (cached per process).

    Examples
    --------
    >>> P = problem(default_config())
    >>> round(P.kappa, 12), round(P.M, 12), P.r
    (1.0, 1.1, 0.5)
    """
    c = {**PROBLEM_DEFAULTS, **{k: config[k] for k in PROBLEM_DEFAULTS if k in config}}
    return _problem(float(c["r"]), int(c["s"]), float(c["sigma"]), float(c["eta"]),
                    int(c["n_levels"]), float(c["kappa"]))


@lru_cache(maxsize=8)
def _quad_grid(r: float, s: int, sigma: float, eta: float, n_levels: int, kappa: float,
               n_quad: int) -> tuple[FloatArray, FloatArray]:
    P = _problem(r, s, sigma, eta, n_levels, kappa)
    if P.f_rho_series.freqs.max() >= n_quad // 4:
        raise ValueError(f"n_quad = {n_quad} does not resolve f_ρ (frequency "
                         f"{P.f_rho_series.freqs.max()}); use n_quad > 4 × that")
    t = (np.arange(n_quad) + 0.5) / n_quad
    return t, P.f_rho(t)


def _quad(config: Mapping[str, Any]) -> tuple[FloatArray, FloatArray]:
    c = {**PROBLEM_DEFAULTS, **{k: config[k] for k in PROBLEM_DEFAULTS if k in config}}
    return _quad_grid(float(c["r"]), int(c["s"]), float(c["sigma"]), float(c["eta"]),
                      int(c["n_levels"]), float(c["kappa"]), int(config.get("n_quad", N_QUAD)))


# --------------------------------------------------------------------------------------
# exact O(m log m) arithmetic for the s = 1 periodic Sobolev kernel
# --------------------------------------------------------------------------------------


def _check_s1(kernel: PeriodicSobolevKernel) -> None:
    if not (isinstance(kernel, PeriodicSobolevKernel) and kernel.s == 1):
        raise ValueError(f"parameter 'kernel' must be a PeriodicSobolevKernel with s = 1, got {kernel!r}")


def _sobolev1_plan(centers: FloatArray, t: FloatArray) -> tuple[NDArray[np.intp], FloatArray, FloatArray,
                                                                 NDArray[np.intp]]:
    """What :func:`sobolev1_eval` computes from the points alone: (order, sorted centres, t mod 1, ranks)."""
    x = np.mod(np.asarray(centers, dtype=float).reshape(-1), 1.0)
    order = np.argsort(x, kind="stable")
    xs = x[order]
    tt = np.mod(np.asarray(t, dtype=float).reshape(-1), 1.0)
    return order, xs, tt, np.searchsorted(xs, tt, side="right")


def sobolev1_eval(kernel: PeriodicSobolevKernel, centers: FloatArray, alpha: FloatArray,
                  t: FloatArray, plan: tuple | None = None, compiled: bool = True) -> FloatArray:
    """Σ_i α_i K(c_i, t) for the s = 1 periodic Sobolev kernel, exactly, in O((m + n) log m).

    Uses K(t, c) = μ₀ + cπ²(u² − |u| + 1/6), u = t − c, for t, c ∈ [0, 1) (module docstring):
    Σα_i u_i² expands into three moments and Σα_i|u_i| is two prefix sums over the sorted
    centres.

    Parameters
    ----------
    kernel : PeriodicSobolevKernel
        With ``s == 1``.
    centers, alpha : arrays of shape (m,)
    t : array of shape (n,)
        Evaluation points (reduced modulo 1).
    plan : tuple, optional
        ``_sobolev1_plan(centers, t)``, computed once for many ``alpha`` on the same points (the
        conjugate-gradient products of :func:`sobolev1_kls_fit`): the sort and the ranks are then
        not redone; the result is the same to the bit.
    compiled : bool
        Run the arithmetic in :func:`simulations._loops_numba.sobolev1_eval_sorted` (default; the
        NumPy code's operations in its order, one pass without temporaries: bit-identical), or in
        NumPy (the reference; also when numba is unavailable).

    Examples
    --------
    >>> import numpy as np
    >>> K = PeriodicSobolevKernel(s=1)
    >>> c, a, t = np.array([0.1, 0.7, 0.4]), np.array([1.0, -2.0, 0.5]), np.linspace(0, 1, 7)
    >>> bool(np.allclose(sobolev1_eval(K, c, a, t), K(t, c) @ a, rtol=1e-13, atol=1e-13))
    True
    """
    _check_s1(kernel)
    order, xs, tt, k = _sobolev1_plan(centers, t) if plan is None else plan
    a = np.asarray(alpha, dtype=float).reshape(-1)
    nb = compiled_module("_loops_numba") if compiled else None
    if nb is not None:
        return nb.sobolev1_eval_sorted(order, xs, tt, k, np.ascontiguousarray(a), kernel.mu0,
                                       kernel.scale * math.pi**2)
    a_s = a[order]
    ca = np.concatenate(([0.0], np.cumsum(a_s)))
    cax = np.concatenate(([0.0], np.cumsum(a_s * xs)))
    A0, A1, A2 = ca[-1], cax[-1], float(np.sum(a_s * xs * xs))
    le = tt * ca[k] - cax[k]                          # Σ_{c ≤ t} α (t − c)
    gt = (A1 - cax[k]) - tt * (A0 - ca[k])            # Σ_{c > t} α (c − t)
    quad = tt * (tt * A0 - 2.0 * A1) + A2             # Σ α (t − c)²
    return kernel.mu0 * A0 + kernel.scale * math.pi**2 * (quad - (le + gt) + A0 / 6.0)


@dataclass
class FitResult:
    """The fit used by a trial: coefficients, f_z on the data, certificate, RKHS error bound."""

    alpha: FloatArray
    f_data: FloatArray
    certificate: Certificate
    rkhs_error: float
    solver: str


def sobolev1_kls_fit(kernel: PeriodicSobolevKernel, x: FloatArray, y: FloatArray, lam: float, *,
                     tol: float = TOL, n_check: int = 32) -> FitResult:
    """Kernel least squares α = (K + λmI)⁻¹y by conjugate gradients with the exact O(m log m) product.

    The certificate is the relative KKT residual ‖(K + λmI)α − y‖/‖y‖ computed with
    :func:`sobolev1_eval`, maximised with the same residual on ``n_check`` rows computed from
    the dense closed-form kernel (an independent spot check).  The RKHS error bound is
    ‖∇J‖_K/(2λ) ≤ (2/m)·‖r‖·√(‖K‖)/(2λ) with ‖K‖ ≤ mκ² (trace bound).

    Raises
    ------
    CertificateError
        When the certificate is above ``tol``.

    Examples
    --------
    >>> import numpy as np
    >>> K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)
    >>> x = np.random.default_rng(0).random(300); y = np.sin(2 * np.pi * x)
    >>> fit = sobolev1_kls_fit(K, x, y, 0.05)
    >>> ref = kls_fit(K(x), y, 0.05).alpha
    >>> fit.certificate.ok, bool(np.allclose(fit.alpha, ref, rtol=1e-8, atol=1e-10))
    (True, True)
    """
    _check_s1(kernel)
    x = np.mod(np.asarray(x, dtype=float).reshape(-1), 1.0)
    y = np.asarray(y, dtype=float).reshape(-1)
    m = x.size
    mu = lam * m

    plan = _sobolev1_plan(x, x)        # the points are the same in every product

    def mv(v: FloatArray) -> FloatArray:
        v = np.asarray(v, dtype=float).reshape(-1)
        return sobolev1_eval(kernel, x, v, x, plan=plan) + mu * v

    A = LinearOperator((m, m), matvec=mv, dtype=float)
    alpha, info = cg(A, y, rtol=1e-14, atol=0.0, maxiter=20 * m + 100)
    for _ in range(2):                                 # iterative refinement
        d, _ = cg(A, y - mv(alpha), rtol=1e-14, atol=0.0, maxiter=20 * m + 100)
        alpha = alpha + d
    r = mv(alpha) - y
    ynorm = float(np.linalg.norm(y)) or 1.0
    rel = float(np.linalg.norm(r)) / ynorm
    rows = np.unique(np.linspace(0, m - 1, min(m, n_check)).astype(np.intp))
    r_dense = kernel(x[rows], x) @ alpha + mu * alpha[rows] - y[rows]
    spot = float(np.linalg.norm(r_dense)) * math.sqrt(m / rows.size) / ynorm
    value = max(rel, spot)
    cert = Certificate("relative_kkt_residual", value, tol, bool(value <= tol),
                       solver="sobolev1_kls_fit(cg)",
                       details={"lam": lam, "m": m, "cg_info": int(info), "fast": rel, "spot": spot})
    if not cert.ok:
        raise CertificateError(cert)
    gnorm = (2.0 / m) * float(np.linalg.norm(r)) * math.sqrt(m) * kernel.kappa
    return FitResult(alpha, mv(alpha) - mu * alpha, cert, gnorm / (2 * lam), "cg")


def _fit(kernel: PeriodicSobolevKernel, x: FloatArray, y: FloatArray, lam: float,
         dense_max: int, tol: float = TOL) -> FitResult:
    """Dense Cholesky (:class:`KLSFactor`) for m ≤ dense_max, else :func:`sobolev1_kls_fit`."""
    if x.size <= dense_max:
        K = kernel(x)
        res = KLSFactor(K, lam).fit(y, tol=tol)      # raises CertificateError
        return FitResult(res.alpha, K @ res.alpha, res.certificate, float(res.rkhs_error_bound),
                         "cholesky")
    return sobolev1_kls_fit(kernel, x, y, lam, tol=tol)


def clipped_risk_coefficients(f_grid: FloatArray, f_rho_grid: FloatArray, M: float
                              ) -> tuple[float, float]:
    """(‖π(f) − f_ρ‖²_ρ, ⟨π(f) − f_ρ, 1⟩_ρ) by the midpoint rule (values on the midpoints).

    Then ‖π(f) + b − f_ρ‖²_ρ = A₀ + 2bA₁ + b² for every real b.

    Examples
    --------
    >>> import numpy as np
    >>> t = (np.arange(8) + 0.5) / 8
    >>> clipped_risk_coefficients(np.full(8, 3.0), np.zeros(8), M=1.0)
    (1.0, 1.0)
    """
    d = np.clip(f_grid, -M, M) - f_rho_grid
    return float(np.mean(d * d)), float(np.mean(d))


# --------------------------------------------------------------------------------------
# risk trial
# --------------------------------------------------------------------------------------


def noise_scale(config: Mapping[str, Any], which: str = "derived") -> float:
    """Laplace scale of Proposition 1 (``jamp.prop1.scale``) with R = M/√λ at the config's m, λ, ε."""
    P = problem(config)
    return PROP1.scale(which, M=P.M, kappa=P.kappa, lam=float(config["lam"]), m=int(config["m"]),
                       eps=float(config["eps"]))


@trial(requires=('eps', 'lam', 'm'),
       optional=('scale', 'dense_max', 'n_noise', 'n_quad', 'tol', *PROBLEM_DEFAULTS))
def risk_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One sample, the exact fit, ``n_noise`` releases π(f_z,λ) + b; per-trial averages.

    BLAS runs single-threaded inside the trial (``threadpoolctl``), so that the numbers are
    bit-identical on every executor and the process pool does not oversubscribe the cores.

    Configuration: ``m``, ``lam``, ``eps``, ``n_noise``, optionally ``scale`` (the Laplace
    scale; default ``jamp.prop1.scale`` derived, R = M/√λ), ``n_quad``, ``dense_max``, ``tol``
    (certificate tolerance, default 1e-10) and the problem keys of :data:`PROBLEM_DEFAULTS`.

    Returns (averages over the noise draws b₁..b_n of the quantities of decomposition (3),
    001 §4, with f = f_z,λ, g = π(f)):

    ``R1``
        E(g + b) − E_z(g + b);
    ``R2``
        E_z(g + b) − E_z(g) = b² + 2b·mean_i(g(x_i) − y_i) (Proposition 3's identity);
    ``S``
        E_z(f_λ) − E(f_λ) (the sign of decomposition (3)); ``D``: D(λ) exact; ``SD`` = S + D;
    ``excess``
        E(g + b) − E(f_ρ) = ‖g + b − f_ρ‖²_ρ (the quantity of Theorem 3);
    ``q2``
        E(g + b) − (1 + 2ε)E(f_ρ) (the quantity of Theorem 2);
    ``Eb2``, ``mean_b``
        moments of the draws; ``*_given_z``: the same quantities averaged exactly over b
        (E b = 0, E b² = 2·scale²), for diagnostics;
    ``gap``
        R₁ + R₂ + S + D − (E(g + b) − E(f_ρ)) = E_z(f_λ) + λ‖f_λ‖²_K − E_z(g) ≥ 0 (independent of b);
    ``clip_frac``
        fraction of the quadrature grid where π is active; ``cert``: the fit's certificate.

    Raises
    ------
    CertificateError
        If the fit's certificate fails (the runner marks the trial rejected).
    """
    with _one_blas_thread():
        return _risk_trial(config, rng)


def _risk_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    P = problem(config)
    m, lam, eps = int(config["m"]), float(config["lam"]), float(config["eps"])
    n_noise = int(config.get("n_noise", 100))
    scale = float(config["scale"]) if config.get("scale") is not None else noise_scale(config)
    M = P.M
    fl = P.f_lambda(lam)
    X, y, (_, fl_x) = P.sample_with(m, rng, (fl,))     # f_ρ and f_λ at x, shared cosines, same bits
    x = X[:, 0]
    fit = _fit(P.kernel, x, y, lam, int(config.get("dense_max", DENSE_MAX)),
               float(config.get("tol", TOL)))
    b = rng.laplace(0.0, scale, n_noise)
    mb, mb2 = float(b.mean()), float(np.mean(b * b))
    t, fr = _quad(config)
    f_grid = sobolev1_eval(P.kernel, x, fit.alpha, t)
    A0, A1 = clipped_risk_coefficients(f_grid, fr, M)
    g = np.clip(fit.f_data, -M, M)
    res_z = g - y
    Ez_g = float(np.mean(res_z * res_z))
    mres = float(np.mean(res_z))
    bayes = P.bayes_risk
    E_g = A0 + bayes
    # averages over draws of quadratics in b
    E_rel = E_g + 2 * mb * A1 + mb2                   # mean E(g + b)
    Ez_rel = Ez_g + 2 * mb * mres + mb2               # mean E_z(g + b)
    R1 = E_rel - Ez_rel
    R2 = mb2 + 2 * mb * mres
    Ez_fl = float(np.mean((fl_x - y) ** 2))
    E_fl = P.excess_risk(fl) + bayes
    S = Ez_fl - E_fl
    D = float(P.approximation_error(lam))
    excess = E_rel - bayes
    Eb2_exact = 2 * scale * scale
    gap = Ez_fl + lam * P.norm_K(fl) ** 2 - Ez_g
    return {
        "R1": R1, "R2": R2, "S": S, "D": D, "SD": S + D,
        "excess": excess, "q2": excess - 2 * eps * bayes,
        "Eb2": mb2, "mean_b": mb,
        "R1_given_z": E_g - Ez_g, "R2_given_z": Eb2_exact,
        "excess_given_z": A0 + Eb2_exact, "q2_given_z": A0 + Eb2_exact - 2 * eps * bayes,
        "gap": gap, "clip_frac": float(np.mean(np.abs(f_grid) > M)),
        "cert": float(fit.certificate.value), "scale": scale,
    }


# --------------------------------------------------------------------------------------
# adversarial neighbour search (Lemma 2)
# --------------------------------------------------------------------------------------

CRITERIA = ("rkhs", "sup", "clip")


@dataclass
class SearchResult:
    """Outcome of :func:`adversarial_search`.

    Attributes
    ----------
    worst : dict
        For each criterion (``rkhs`` = ‖f_z − f_z̄‖_K, ``sup`` = ‖f_z − f_z̄‖_∞,
        ``clip`` = ‖π(f_z) − π(f_z̄)‖_∞): a dict with the refit-verified ``value``, the value
        the scan found (``scan``), the pair (``j``, ``x``, ``y``), the certified solver
        error ``err`` (‖·‖_K errors of both fits; times κ for the sup norms) and ``disc``
        (largest amount the fine grid can miss of a sup; 0 for ``rkhs``).
    clip_ratio : float
        Largest ‖π(f_z) − π(f_z̄)‖/‖f_z − f_z̄‖ on the search grid over all pairs searched whose
        distance is at least 1e-3 of the round's largest (≤ 1 up to rounding, about 1e-13).
    n_pairs : int
        Number of (index, candidate) pairs evaluated.
    consistency : float
        Largest |own grid sup − :func:`neighbour_scan` grid sup| in round 0 (the grid
        distances are computed here from the same rank-2 formulas; this checks they agree).
    """

    worst: dict[str, dict[str, float]]
    clip_ratio: float
    n_pairs: int
    consistency: float
    details: dict = field(default_factory=dict)
    """``fit_cert``, ``max_resid`` and ``clip_active`` (fraction of the pairs in ``clip_ratio``
    where π changed the distance by more than 1e-9 relative)."""


def _scan_round(F: KLSFactor, x: FloatArray, y: FloatArray, kernel: PeriodicSobolevKernel, M: float,
                cx: FloatArray, cy: FloatArray, n_grid: int, engine_sup: bool,
                compiled: bool = True) -> dict[str, FloatArray]:
    """Distances for every index j and candidate (cx[c], cy[c]); all (m, C) arrays.

    ‖·‖_K and the replacement residuals come from :func:`neighbour_scan`; the grid sups
    (clipped and not) from the same rank-2 formulas evaluated here
    (:func:`~simulations.solvers.neighbour_grid_sup`: compiled, or with ``compiled=False`` the
    NumPy loop; the results are bit-identical).  With ``engine_sup`` the scan's own grid sup is
    computed too (key ``sup_engine``), to cross-check.
    """
    kap2 = kernel.kappa**2
    Kc = kernel(cx, x)                                 # (C, m)
    grid = np.unique(np.concatenate(((np.arange(n_grid) + 0.5) / n_grid, x, cx)))
    Ke = kernel(grid, x)                               # (G, m)
    Kec = kernel(grid, cx)                             # (G, C)
    grid_kw = {"K_eval": Ke, "K_eval_cand": Kec} if engine_sup else {}
    scan = neighbour_scan(F, y, F.lam, Kc, kap2, cy, compiled=compiled, **grid_kw)
    # clipped distances from the same rank-2 update (see neighbour_scan's Notes)
    P, mu = F.inverse, F.mu
    D = mu * np.diag(P)
    e = mu * scan.alpha
    Q = Ke @ P
    QK = Q @ Kc.T
    pC = P @ Kc.T
    fz = Ke @ scan.alpha
    sup, clip = neighbour_grid_sup(Q, Kec, QK, mu, e, scan.residual_cand, pC, D, fz, M,
                                   compiled=compiled)
    out = {"rkhs": scan.rkhs_dist, "sup": sup, "clip": clip}
    if engine_sup:
        out["sup_engine"] = scan.sup_dist
    return out


def _verify_pair(K: FloatArray, x: FloatArray, y: FloatArray, lam: float, alpha: FloatArray,
                 err_z: float, kernel: PeriodicSobolevKernel, M: float, j: int, xc: float,
                 yc: float, n_fine: int) -> dict[str, float]:
    """Full refit on z̄ (kls_fit on the replaced Gram matrix): the three distances, verified."""
    kap2 = kernel.kappa**2
    kc = kernel(np.array([xc]), x)[0]
    ybar = y.copy()
    ybar[j] = yc
    fb = kls_fit(replace_point(K, j, kc, kap2), ybar, lam, tol=TOL)   # raises CertificateError
    abar = fb.alpha
    rk = union_rkhs_distance(K, kc, kap2, j, alpha, abar)
    xbar = x.copy()
    xbar[j] = xc
    T = np.unique(np.concatenate(((np.arange(n_fine) + 0.5) / n_fine, x, [xc], [0.0])))
    f = sobolev1_eval(kernel, x, alpha, T)
    g = sobolev1_eval(kernel, xbar, abar, T)
    sup = float(np.max(np.abs(f - g)))
    csup = float(np.max(np.abs(np.clip(f, -M, M) - np.clip(g, -M, M))))
    h = float(max(np.max(np.diff(T)), 1.0 + T[0] - T[-1]))
    lip = kernel.scale * math.pi**2                    # sup |∂_t K| for s = 1
    delta = alpha - abar
    delta[j] = alpha[j]
    l_diff = lip * (float(np.sum(np.abs(delta))) + abs(float(abar[j])))
    l_clip = max(l_diff, lip * float(np.sum(np.abs(alpha))), lip * float(np.sum(np.abs(abar))))
    err = err_z + float(fb.rkhs_error_bound)
    return {"rkhs": rk, "sup": sup, "clip": csup, "err": err, "disc_sup": h / 2 * l_diff,
            "disc_clip": h / 2 * l_clip, "cert": max(float(fb.certificate.value), 0.0)}


def adversarial_search(x: FloatArray, y: FloatArray, lam: float, kernel: PeriodicSobolevKernel,
                       M: float, n_search: int, *, n_grid: int = 256, rounds: int = 3, top: int = 3,
                       n_local: int = 7, n_fine: int = 2**15, compiled: bool = True) -> SearchResult:
    """Adversarial search for the neighbour z̄ of z maximising each distance of Lemma 2.

    z̄ = z with point j replaced by (x', y').  Round 0 scans every index j against
    ``n_search`` candidates: n_search/2 points x' spread evenly over the circle, each with
    y' = −M and y' = +M, plus x' = x_j for the ``top`` indices with the largest residuals.
    Only y' = ±M is needed: f_z̄ is affine in y' (Sherman–Morrison), so each distance (a norm,
    or a max of |clip(affine) − const|) is quasi-convex in y' and maximal at an end of
    [−M, M].  Each of ``rounds`` refinements takes, for every criterion, the ``top``
    candidates with the largest distance (over j) and scans ``n_local`` points x' in a
    window around each (the window shrinks fourfold per round), again with y' = ±M, plus
    x' = x_j of their worst index.  All scans use :func:`~simulations.solvers.neighbour_scan`
    on one :class:`~simulations.solvers.KLSFactor` (no refits); sup norms are taken on a grid
    of ``n_grid`` points plus all data and candidate points.  The best pair of each criterion
    is then refitted from scratch (:func:`~simulations.solvers.kls_fit`) and its distances
    recomputed on a fine grid of ``n_fine`` points plus the knots.

    Parameters
    ----------
    x, y : arrays of shape (m,)
        The base data set (x on the circle, |y| ≤ M).
    lam : float
        λ of equation (1).
    kernel : PeriodicSobolevKernel
        s = 1.
    M : float
        Bound on |y| and the clipping level of π.
    n_search : int
        Candidates per index in round 0.
    compiled : bool
        Grid maxima in the compiled loop (default) or, with ``False``, in the NumPy reference loop
        (:func:`~simulations.solvers.neighbour_grid_sup`); the results are bit-identical.

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> import numpy as np
    >>> K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)
    >>> rng = np.random.default_rng(0)
    >>> x = rng.random(20); y = np.clip(np.sin(2 * np.pi * x), -1, 1)
    >>> res = adversarial_search(x, y, 0.1, K, 1.0, n_search=8, rounds=1)
    >>> w = res.worst["rkhs"]
    >>> abs(w["value"] - w["scan"]) < 1e-8, res.clip_ratio <= 1 + 1e-10
    (True, True)
    """
    _check_s1(kernel)
    x = np.mod(np.asarray(x, dtype=float).reshape(-1), 1.0)
    y = np.asarray(y, dtype=float).reshape(-1)
    K = kernel(x)
    F = KLSFactor(K, lam)
    fit = F.fit(y, tol=TOL)                            # raises CertificateError
    alpha = fit.alpha
    resid = np.abs(y - K @ alpha)
    nx = max(n_search // 2, 1)
    xs = (np.arange(nx) + 0.5) / nx
    top_j = np.argsort(-resid, kind="stable")[:top]
    cx = np.concatenate((np.repeat(xs, 2), np.repeat(x[top_j], 2)))
    cy = np.tile([-M, M], nx + top_j.size)
    best: dict[str, tuple[float, int, float, float]] = {c: (-1.0, 0, 0.0, 0.0) for c in CRITERIA}
    ratio, consistency, n_pairs, n_active, n_big = 0.0, 0.0, 0, 0, 0
    width = 1.0 / nx
    seen: set[tuple[float, float]] = set()
    for rnd in range(rounds + 1):
        keep = [i for i in range(cx.size) if (round(cx[i], 15), cy[i]) not in seen]
        cx, cy = cx[keep], cy[keep]
        if cx.size == 0:
            break
        seen.update((round(a, 15), b) for a, b in zip(cx, cy, strict=True))
        out = _scan_round(F, x, y, kernel, M, cx, cy, n_grid, engine_sup=rnd == 0, compiled=compiled)
        n_pairs += out["rkhs"].size
        if rnd == 0:
            consistency = float(np.max(np.abs(out["sup_engine"] - out["sup"])))
        sup_own = out["sup"]
        big = sup_own >= 1e-3 * float(sup_own.max())   # ratios of rounding-level distances are noise
        rr = out["clip"][big] / sup_own[big]
        ratio = max(ratio, float(np.max(rr)))
        n_active += int(np.count_nonzero(rr < 1.0 - 1e-9))
        n_big += int(rr.size)
        new_x, new_y = [], []
        for crit in CRITERIA:
            Dm = out[crit]
            j, c = np.unravel_index(int(np.argmax(Dm)), Dm.shape)
            if Dm[j, c] > best[crit][0]:
                best[crit] = (float(Dm[j, c]), int(j), float(cx[c]), float(cy[c]))
            if rnd == rounds:
                continue
            colmax = Dm.max(axis=0)
            for c in np.argsort(-colmax, kind="stable")[:top]:
                jj = int(np.argmax(Dm[:, c]))
                loc = np.mod(cx[c] + np.linspace(-width, width, n_local), 1.0)
                pts = np.concatenate((loc, [x[jj]]))
                new_x.append(np.repeat(pts, 2))
                new_y.append(np.tile([-M, M], pts.size))
        if rnd < rounds:
            cx, cy = np.concatenate(new_x), np.concatenate(new_y)
            width /= 4.0
    worst: dict[str, dict[str, float]] = {}
    for crit in CRITERIA:
        val, j, xc, yc = best[crit]
        v = _verify_pair(K, x, y, lam, alpha, float(fit.rkhs_error_bound), kernel, M, j, xc, yc,
                         n_fine)
        kap = kernel.kappa
        worst[crit] = {"value": v[crit], "scan": val, "j": float(j), "x": xc, "y": yc,
                       "err": v["err"] * (1.0 if crit == "rkhs" else kap),
                       "disc": 0.0 if crit == "rkhs" else v["disc_" + crit],
                       "refit_cert": v["cert"]}
    return SearchResult(worst, ratio, n_pairs, consistency,
                        {"fit_cert": float(fit.certificate.value), "max_resid": float(resid.max()),
                         "clip_active": n_active / max(n_big, 1)})


@trial(requires=('lam', 'm', 'n_search'),
       optional=('base', 'n_fine', 'n_grid', 'rounds', 'dense_max', 'n_quad', *PROBLEM_DEFAULTS))
def sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One base data set of size ``m`` and :func:`adversarial_search` at ``lam``.

    ``base = "sample"`` draws z from the problem; ``base = "extreme"`` keeps the sampled x
    and sets y_i = ±M with independent fair signs (the largest residuals).  Returns, per
    criterion c ∈ {rkhs, sup, clip}: ``c`` (verified worst distance), ``c_scan``, ``c_err``,
    ``c_disc``, ``c_j``, ``c_x``, ``c_y``, ``c_refit_cert``; and ``clip_ratio``, ``clip_active``,
    ``n_pairs``, ``consistency``, ``fit_cert``.  BLAS is single-threaded inside the trial (as in
    :func:`risk_trial`).
    """
    with _one_blas_thread():
        return _sensitivity_trial(config, rng)


def _sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    P = problem(config)
    m, lam = int(config["m"]), float(config["lam"])
    X, y = P.sample(m, rng)
    if config.get("base", "sample") == "extreme":
        y = P.M * np.where(rng.random(m) < 0.5, -1.0, 1.0)
    res = adversarial_search(X[:, 0], y, lam, P.kernel, P.M, int(config["n_search"]),
                             n_grid=int(config.get("n_grid", 256)),
                             rounds=int(config.get("rounds", 3)),
                             n_fine=int(config.get("n_fine", 2**15)))
    out: dict[str, float] = {}
    for crit, w in res.worst.items():
        out[crit] = w["value"]
        for k in ("scan", "err", "disc", "j", "x", "y", "refit_cert"):
            out[f"{crit}_{k}"] = w[k]
    out.update(clip_ratio=res.clip_ratio, n_pairs=float(res.n_pairs), consistency=res.consistency,
               fit_cert=res.details["fit_cert"], clip_active=res.details["clip_active"])
    return out


@trial(requires=("m", "lam", "data_seed", "clip"), optional=("n_cand", "n_grid"), artefacts=("pair",))
def audit_pair_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The hardest neighbouring pair of the clipped release π(f_z,λ) (equation (2)), as an artefact.

    Deterministic: the data set comes from ``SeedSequence([data_seed, m])`` (:mod:`simulations.pairs`).
    """
    from simulations.pairs import kls_pair

    kw = {k: int(config[k]) for k in ("n_cand", "n_grid") if k in config}
    pair = kls_pair(int(config["m"]), float(config["lam"]), int(config["data_seed"]), clip=float(config["clip"]), **kw)
    return {"pair": pair, "max_abs_diff": pair["max_abs_diff"]}


def _prop1_inputs(v: Mapping[str, float]) -> dict[str, float]:
    """Proposition 1's parameters from the problem: R = M/√λ (proof of Lemma 2, needs λ ≤ 1); the optimisation
    tolerance τ (a relaxed premise of jamp.prop1.scale) at the problem's value, else the paper's (exact fit, τ = 0)."""
    out = {"R": float(v["M"]) / math.sqrt(float(v["lam"])), "kappa": v["kappa"], "lam": v["lam"], "m": v["m"],
           "eps": v["eps"]}
    if "tau" in v:
        out["tau"] = v["tau"]
    return PROP1_SCALE.paper_values(out)


#: the paper's mechanism (discovered by simulations.mechanisms.mechanisms)
PROP1 = Mechanism("jamp.prop1", PROP1_SCALE, algorithms=("kls",), clip=True, inputs=_prop1_inputs,
                  release="π(f_z,λ) + b (Proposition 1, equation (2), clipped to [−M, M])")
MECHANISMS = (PROP1,)


#: privacy–utility setup on bundled real data (discovered by simulations.trials.utility.utility_setups)
UTILITY_SETUPS = (UtilitySetup("kls_jamp", "diabetes", "kls", PROP1, "square", "held-out squared error"),)
