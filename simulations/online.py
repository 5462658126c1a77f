"""Online kernel regression (equation (3) of “A Study on Differential Private Online Learning”, J. Comput. Commun. 2017) in coefficient form.

f_{t+1} = f_t − η_t[(f_t(x_t) − y_t) K_{x_t} + λ_t f_t],  f_0 = 0,
η_t = (t + t₀)^{−θ},  λ_t = (t + t₀)^{θ−1}

(ibid., (3) and Theorem 1).  Writing f_t = Σ_{s<t} a_s K(x_s, ·),
one step scales every coefficient by (1 − η_tλ_t) and appends
a_t = −η_t (f_t(x_t) − y_t); f_t(x_t) = Σ_{s<t} a_s K(x_s, x_t).  The cost is O(T²)
for T steps on a precomputed Gram matrix.

Examples
--------
>>> import numpy as np
>>> from simulations.online import online_kernel_regression, rkhs_norm
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1, 1, (50, 2)); y = np.sign(X[:, 0])
>>> G = X @ X.T                      # linear kernel
>>> a = online_kernel_regression(G, y, theta=0.75, t0=2.0 ** (1 / 0.75))
>>> bool(rkhs_norm(a, G) <= 1 * 1 / (50 + 2.0 ** (1 / 0.75)) ** (0.75 - 1))   # Lemma 2: ‖f_T‖ ≤ κM/λ_T
True
"""

from __future__ import annotations

import numpy as np


def schedules(T: int, theta: float, t0: float) -> tuple[np.ndarray, np.ndarray]:
    """η_t and λ_t for t = 0, …, T−1 (the step sizes and regularisation of Theorem 1)."""
    if not 0 < theta < 1:
        raise ValueError(f"parameter 'theta' = {theta!r} violates 0 < theta < 1")
    if not t0 > 0:
        raise ValueError(f"parameter 't0' = {t0!r} violates t0 > 0")
    t = np.arange(T, dtype=float)
    return (t + t0) ** (-theta), (t + t0) ** (theta - 1)


def online_kernel_regression(
    G: np.ndarray, y: np.ndarray, theta: float, t0: float, T: int | None = None
) -> np.ndarray:
    """Coefficients of f_T after T steps of recursion (3) over the first T points.

    Parameters
    ----------
    G : array, shape (n, n)
        Gram matrix K(x_s, x_t) of the stream, in order.
    y : array, shape (n,)
        Labels, |y| ≤ M.
    theta, t0 : float
        Schedule parameters (1/2 < θ < 1 and t₀^θ ≥ κ² + 1 for Theorem 1).
    T : int, optional
        Number of steps (default n).

    Returns
    -------
    array, shape (T,)
        a with f_T = Σ_s a_s K(x_s, ·).
    """
    G = np.asarray(G, dtype=float)
    y = np.asarray(y, dtype=float)
    n = len(y)
    T = n if T is None else int(T)
    if G.shape != (n, n) or T > n:
        raise ValueError(f"parameter 'G' must be ({n}, {n}) and T ≤ {n}; got {G.shape}, T = {T}")
    eta, lam = schedules(T, theta, t0)
    a = np.zeros(T)
    for t in range(T):
        ft = a[:t] @ G[t, :t]          # row read (G symmetric): contiguous, faster than the column
        a[:t] *= 1.0 - eta[t] * lam[t]
        a[t] = -eta[t] * (ft - y[t])
    return a


def rkhs_norm(a: np.ndarray, G: np.ndarray) -> float:
    """‖Σ_s a_s K(x_s, ·)‖_K = sqrt(aᵀ G a) for the first len(a) points."""
    k = len(a)
    return float(np.sqrt(max(a @ G[:k, :k] @ a, 0.0)))


def last_point_difference(
    G_union: np.ndarray, y: np.ndarray, y_bar: float, theta: float, t0: float
) -> tuple[float, np.ndarray]:
    """‖f_t − f_t̄‖_K when the last of t points is replaced, and the coefficient difference.

    ``G_union`` is the Gram matrix of the t points followed by the replacement
    point x̄ (shape (t+1, t+1)); ``y`` has the t labels; ``y_bar`` is ȳ.  Both
    runs share the first t−1 steps (ibid., (13)–(15)).
    """
    t = len(y)
    a = online_kernel_regression(G_union[:t, :t], y, theta, t0)
    idx = list(range(t - 1)) + [t]
    y2 = np.concatenate([y[:-1], [y_bar]])
    abar = online_kernel_regression(G_union[np.ix_(idx, idx)], y2, theta, t0)
    # difference on the union basis: points 0..t−2 shared, x_{t−1} only in f_t, x̄ only in f_t̄
    d = np.zeros(t + 1)
    d[: t - 1] = a[: t - 1] - abar[: t - 1]
    d[t - 1] = a[t - 1]
    d[t] = -abar[t - 1]
    return float(np.sqrt(max(d @ G_union @ d, 0.0))), d
