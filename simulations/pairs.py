"""Hardest neighbouring pairs of the output-perturbed kernel algorithms, for privacy audits.

Each search fits the algorithm on a data set drawn from a distribution with known truth
(:class:`~simulations.data.CircleRegression`, reproducible from ``seed`` through
``SeedSequence([seed, m])``), scans every index and a grid of replacement points with the
extreme labels, and returns the pair whose fitted functions differ most, as arrays on an
evaluation grid: ``grid``, ``f0`` (f_z), ``f1`` (f_z̄), ``index``, ``replacement``, ``note``.
A paper's trial module wraps a search as a trial whose outputs are these artefacts, so an
audit reuses the pair the trial found (and the trial cache keeps it).

Examples
--------
>>> p = kls_pair(m=20, lam=0.1, n_cand=4, n_grid=16)
>>> p["f0"].shape, p["f1"].shape, 0 <= p["index"] < 20
((16,), (16,), True)
"""

from __future__ import annotations

import numpy as np

from .data import CircleRegression
from .kernels import PeriodicSobolevKernel
from .online import online_kernel_regression
from .solvers import KLSFactor, neighbour_scan, require_certificate, svm_fit


def _pair(grid: np.ndarray, f0: np.ndarray, f1: np.ndarray, index: int, replacement: tuple[float, float],
          note: str) -> dict:
    d = f1 - f0
    return {"grid": grid, "f0": f0, "f1": f1, "index": int(index), "replacement": replacement, "note": note,
            "value_point": int(np.argmax(np.abs(d))), "function_points": (int(np.argmin(d)), int(np.argmax(d))),
            "max_abs_diff": float(np.max(np.abs(d)))}


def circle_regression() -> CircleRegression:
    """The problem the audit pairs are drawn from: f_ρ ∈ L_K^{1/2}, Sobolev kernel s = 1, noise 0.1."""
    return CircleRegression(r=0.5, s=1, sigma=0.1)


def _problem(m: int, seed: int) -> tuple[CircleRegression, np.ndarray, np.ndarray]:
    P = circle_regression()
    X, y = P.sample(m, np.random.default_rng(np.random.SeedSequence([seed, m])))
    return P, X[:, 0], y


def kls_pair(m: int = 100, lam: float = 0.1, seed: int = 0, n_cand: int = 64, n_grid: int = 128,
             clip: float | None = None) -> dict:
    """Hardest neighbour of kernel least squares on the circle, by the rank-2 neighbour scan.

    Candidates: ``n_cand`` inputs on a regular grid with labels ±M; every index
    j; the pair maximising the range of π(f_z̄) − π(f_z) over ``n_grid`` points
    (π = clipping to [−clip, clip] when given).
    """
    P, x, y = _problem(m, seed)
    k = P.kernel
    grid = (np.arange(n_grid) + 0.5) / n_grid
    xc = np.repeat(np.arange(n_cand) / n_cand, 2)
    yc = np.tile([-P.M, P.M], n_cand)
    F = KLSFactor(k(x[:, None]), lam)
    require_certificate(F.fit(y).certificate)
    scan = neighbour_scan(F, y, lam, k(xc[:, None], x[:, None]), k.diag(xc[:, None]), yc,
                          K_eval=k(grid[:, None], x[:, None]), K_eval_cand=k(grid[:, None], xc[:, None]),
                          return_eval=True)
    f0 = scan.f_eval_z
    f1 = scan.f_eval
    if clip is not None:
        f0, f1 = np.clip(f0, -clip, clip), np.clip(f1, -clip, clip)
    d = f1 - f0[None, None, :]
    rng_ = d.max(axis=2) - d.min(axis=2)
    j, c = np.unravel_index(int(np.argmax(rng_)), rng_.shape)
    return _pair(grid, f0, f1[j, c], int(j), (float(xc[c]), float(yc[c])),
                 f"m={m}, λ={lam}, circle regression r=1/2, s=1; {m}×{2 * n_cand} neighbours scanned")


def svm_pair(m: int = 100, lam: float = 0.1, seed: int = 0, n_cand: int = 16, n_grid: int = 128) -> dict:
    """Hardest neighbour of the offset-free kernel SVM: exact refits (duality gap ≤ 1e-10).

    Labels y = sgn(f_ρ(x) + noise) of the circle problem; candidates: the 16
    indices with the largest |α_j| and 16 spread indices, ``n_cand`` inputs on a
    grid, labels ±1.
    """
    P, x, yr = _problem(m, seed)
    y = np.where(yr >= 0, 1.0, -1.0)
    k = P.kernel
    K = k(x[:, None])
    grid = (np.arange(n_grid) + 0.5) / n_grid
    Kg = k(grid[:, None], x[:, None])
    res = svm_fit(K, y, lam)
    f0 = Kg @ res.alpha
    idx = np.unique(np.concatenate([np.argsort(-np.abs(res.alpha))[:16], np.linspace(0, m - 1, 16).astype(int)]))
    best = (-1.0, None)
    for j in idx:
        for xc in np.arange(n_cand) / n_cand:
            for yc in (-1.0, 1.0):
                x2, y2 = x.copy(), y.copy()
                x2[j], y2[j] = xc, yc
                r2 = svm_fit(k(x2[:, None]), y2, lam, alpha0=res.alpha)
                f1 = k(grid[:, None], x2[:, None]) @ r2.alpha
                spread = float(np.ptp(f1 - f0))
                if spread > best[0]:
                    best = (spread, (int(j), float(xc), yc, f1))
    j, xc, yc, f1 = best[1]
    return _pair(grid, f0, f1, j, (xc, yc), f"m={m}, λ={lam}, labels sgn(y) of the circle problem; "
                 f"{idx.size}×{2 * n_cand} neighbours refitted")


def online_pair(T: int = 100, kappa: float = 2.0, theta: float = 0.75, seed: int = 0, n_cand: int = 16,
                n_grid: int = 128, M: float = 1.0) -> dict:
    """Hardest neighbour of online kernel regression (every index, every candidate, rerun exactly)."""
    k = PeriodicSobolevKernel.with_kappa(s=1, kappa=kappa)
    t0 = float((kappa**2 + 1) ** (1 / theta))          # smallest t₀ with t₀^θ ≥ κ² + 1 (Theorem 1)
    rng = np.random.default_rng(np.random.SeedSequence([seed, T]))
    x = rng.random(T)
    y = np.clip(np.sin(2 * np.pi * x) + rng.uniform(-0.1, 0.1, T), -M, M)
    grid = (np.arange(n_grid) + 0.5) / n_grid
    a0 = online_kernel_regression(k(x[:, None]), y, theta, t0)
    f0 = k(grid[:, None], x[:, None]) @ a0
    best = (-1.0, None)
    for i in range(T):
        for xc in np.arange(n_cand) / n_cand:
            for yc in (-M, M):
                x2, y2 = x.copy(), y.copy()
                x2[i], y2[i] = xc, yc
                a1 = online_kernel_regression(k(x2[:, None]), y2, theta, t0)
                f1 = k(grid[:, None], x2[:, None]) @ a1
                spread = float(np.max(np.abs(f1 - f0)))
                if spread > best[0]:
                    best = (spread, (i, float(xc), yc, f1))
    i, xc, yc, f1 = best[1]
    out = _pair(grid, f0, f1, i, (xc, yc), f"T={T}, κ={kappa}, θ={theta}, t₀={t0:.3g}; {T}×{2 * n_cand} "
                "neighbours rerun")
    out["values"] = {"kappa": kappa, "M": M, "t": T, "t0": t0, "theta": theta}
    return out
