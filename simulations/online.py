"""Online kernel regression (equation (3) of “A Study on Differential Private Online Learning”, J. Comput. Commun. 2017) in coefficient form.

Seed ``/work/shared/seeds/003_8ef3daf3084cc981.txt``, equation (3):

f_{t+1} = f_t − η_t[(f_t(x_t) − y_t) K_{x_t} + λ_t f_t],  f_0 = 0,
η_t = (t + t₀)^{−θ},  λ_t = (t + t₀)^{θ−1}

(ibid., (3) and Theorem 1).  Writing f_t = Σ_{s<t} a_s K(x_s, ·),
one step scales every coefficient by (1 − η_tλ_t) and appends
a_t = −η_t (f_t(x_t) − y_t); f_t(x_t) = Σ_{s<t} a_s K(x_s, x_t).  The cost is O(T²)
for T steps on a precomputed Gram matrix (:func:`online_kernel_regression`, the reference).

Without the Gram matrix (:func:`online_kernel_regression_stream`)
-----------------------------------------------------------------
With c_t = 1 − η_tλ_t (c_0 scales nothing and is taken as 1), P_t = Π_{r<t} c_r and the
coefficient of x_s in f_t equal to β_s P_t, the step t reads β_t = a_t/P_{t+1}, so that no
coefficient is ever rescaled (one running scale instead).  For a block of steps
k ≤ t < e the coefficients β_k, …, β_{e−1} solve the unit lower-triangular system

    β_t + w_t Σ_{k≤s<t} K(x_s, x_t) β_s = −w_t (C_t − y_t/P_t),   w_t = η_t/c_t,

with C_t = Σ_{s<k} β_s K(x_s, x_t) the part of f_t(x_t)/P_t due to the earlier blocks:
forward substitution of this system *is* the recursion, so the block solve gives the same
numbers (to rounding).  Only C needs the earlier points:

* for the periodic Sobolev kernel with s = 1 (:class:`~simulations.kernels.PeriodicSobolevKernel`),
  K(z, x) = A + cπ²(x − z + σ)², A = μ₀ − cπ²/12, σ = −½ if z ≤ x and +½ if z > x (x, z in
  [0, 1)): a quadratic in x whose coefficients are sums of β_s, β_s z_s, β_s z_s² over the
  earlier points on either side of x, i.e. prefix sums over the sorted order of the stream.
  One cumulative sum per block: O(T·T/B + T·B) = O(T^{3/2}) work with B ~ √T, O(T) memory;
* for any other kernel (a callable ``kernel(X, Y)`` returning K(X_i, Y_j)): the rows
  K(x_t, x_{<e}) of the block, O(T²) kernel evaluations but O(B·T) memory.

:func:`kernel_expansion_values` (f(z) for f = Σ a_s K(x_s, ·)) and
:func:`kernel_quadratic_form` (aᵀGa = ‖f‖²_K) use the same prefix sums after one sort,
O((n + m) log n) for s = 1.

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

import math
from collections.abc import Callable

import numpy as np
from scipy.linalg import solve_triangular

from simulations.kernels import PeriodicSobolevKernel

#: a kernel as a callable: ``kernel(X, Y)`` is the matrix K(X_i, Y_j)
KernelFn = Callable[[np.ndarray, np.ndarray], np.ndarray]


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


def _is_sobolev1(kernel: object) -> bool:
    """True for the periodic Sobolev kernel with s = 1 (piecewise quadratic in x − z)."""
    return isinstance(kernel, PeriodicSobolevKernel) and kernel.s == 1


def _sobolev1_block(kernel: PeriodicSobolevKernel, x: np.ndarray, z: np.ndarray) -> np.ndarray:
    """K(x_i, z_j) = μ₀ − cπ²/12 + cπ²(d − ½)², d = (x − z) mod 1 (s = 1; small blocks)."""
    d = np.subtract.outer(x, z)
    d -= np.floor(d)
    d -= 0.5
    c = kernel.scale * math.pi**2
    return (kernel.mu0 - c / 12.0) + c * d * d


class _SortedSums:
    """Σ_s β_s z_s^j (j = 0, 1, 2) over the inserted points z_s ≤ x and z_s > x (s = 1 kernel).

    The points of the whole stream are known in advance: their sorted order fixes one slot per
    point, a query at x reads the cumulative sums up to the slot of the last point ≤ x (every
    inserted point equal to x is on the "≤" side, as d = 0 in the Gram matrix).
    """

    def __init__(self, kernel: PeriodicSobolevKernel, z: np.ndarray) -> None:
        self.z = z
        order = np.argsort(z, kind="stable")
        self.slot = np.empty(z.size, dtype=np.intp)
        self.slot[order] = np.arange(z.size)
        self.zs = z[order]
        self.vals = np.zeros((3, z.size))
        self.cs = np.zeros((3, z.size + 1))
        self.c = kernel.scale * math.pi**2
        self.A = kernel.mu0 - self.c / 12.0

    def insert(self, idx: slice, beta: np.ndarray) -> None:
        zi = self.z[idx]
        sl = self.slot[idx]
        self.vals[0, sl] = beta
        self.vals[1, sl] = beta * zi
        self.vals[2, sl] = beta * zi * zi
        np.cumsum(self.vals, axis=1, out=self.cs[:, 1:])

    def query(self, x: np.ndarray) -> np.ndarray:
        """Σ_s β_s K(z_s, x) over the inserted points, for x in [0, 1]."""
        p = np.searchsorted(self.zs, x, side="right")
        L = self.cs[:, p]
        tot = self.cs[:, -1:]
        R = tot - L
        u, v = x - 0.5, x + 0.5   # x − z − ½ on the left (z ≤ x), x − z + ½ on the right
        quad = u * u * L[0] + v * v * R[0] - 2.0 * (u * L[1] + v * R[1]) + tot[2]
        return self.A * tot[0] + self.c * quad


def online_kernel_regression_stream(
    x: np.ndarray,
    y: np.ndarray,
    theta: float,
    t0: float,
    kernel: PeriodicSobolevKernel | KernelFn,
    T: int | None = None,
    block: int | None = None,
) -> np.ndarray:
    """Coefficients of f_T after T steps of recursion (3), without the T × T Gram matrix.

    Same result as ``online_kernel_regression(kernel(x), y, theta, t0, T)`` (to rounding;
    seed ``003_8ef3daf3084cc981.txt``, equation (3)), computed by blocks of B steps, each a
    unit lower-triangular solve with the earlier blocks entering through C (module
    docstring).  For the periodic Sobolev kernel with s = 1, C comes from prefix sums over
    the sorted stream: O(T^{3/2}) work, O(T) memory.  For any other kernel, from the rows
    K(x_t, x_{<e}) of the current block: O(T²) kernel evaluations, O(B·T) memory.

    Parameters
    ----------
    x : array, shape (n,) or (n, d)
        The inputs of the stream, in order (points of the circle for the Sobolev kernel,
        reduced modulo 1).
    y : array, shape (n,)
        Labels, |y| ≤ M.
    theta, t0 : float
        Schedule parameters (1/2 < θ < 1 and t₀^θ ≥ κ² + 1 for Theorem 1).
    kernel : PeriodicSobolevKernel or callable
        The kernel; a callable ``kernel(X, Y)`` must return the matrix K(X_i, Y_j).
    T : int, optional
        Number of steps (default n).
    block : int, optional
        Steps per block B (default ~√(6T) for s = 1, 256 otherwise).

    Returns
    -------
    array, shape (T,)
        a with f_T = Σ_s a_s K(x_s, ·).

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.kernels import PeriodicSobolevKernel
    >>> K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)
    >>> rng = np.random.default_rng(0)
    >>> x, y = rng.random(500), rng.choice([-1.0, 1.0], 500)
    >>> t0 = 2.0 ** (1 / 0.75)
    >>> a = online_kernel_regression_stream(x, y, 0.75, t0, K)
    >>> ref = online_kernel_regression(K(x), y, 0.75, t0)
    >>> bool(np.abs(a - ref).max() <= 1e-12 * np.abs(ref).max())
    True
    """
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float).reshape(-1)
    n = y.size
    T = n if T is None else int(T)
    if x.shape[0] != n or not 0 <= T <= n:
        raise ValueError(
            f"parameter 'x' must have {n} points and 0 ≤ T ≤ {n}; got {x.shape}, T = {T}"
        )
    eta, lam = schedules(T, theta, t0)
    c = 1.0 - eta * lam
    if T:
        c[0] = 1.0  # step 0 scales the empty expansion
    w = eta / c
    beta = np.empty(T)
    sob = _is_sobolev1(kernel)
    if sob:
        xr = np.mod(x.reshape(-1)[:T], 1.0)
        sums = _SortedSums(kernel, xr)  # type: ignore[arg-type]
        B = int(block) if block else int(min(512, max(32, math.sqrt(6.0 * T))))
    else:
        xr = x[:T]
        B = int(block) if block else 256
    if B < 1:
        raise ValueError(f"parameter 'block' = {block!r} must be ≥ 1")
    # η_tλ_t = 1/(t + t₀), so P_t = Π_{1≤r<t} (r + t₀ − 1)/(r + t₀) = t₀/(t − 1 + t₀) ≥ t₀/(T + t₀)
    # (t ≥ 1): the running scale neither underflows nor lets β = a/P overflow, no renormalisation
    q = 1.0  # P_k
    for k in range(0, T, B):
        e = min(k + B, T)
        qb = q * np.cumprod(np.concatenate([[1.0], c[k:e]]))  # P_t, t = k, …, e
        if sob:
            xb = xr[k:e]
            C = sums.query(xb)
            Kb = _sobolev1_block(kernel, xb, xb)  # type: ignore[arg-type]
        else:
            rows = np.asarray(kernel(xr[k:e], xr[:e]), dtype=float)
            C = rows[:, :k] @ beta[:k]
            Kb = rows[:, k:e]
        Lb = np.tril(Kb, -1)
        Lb *= w[k:e, None]
        rhs = -w[k:e] * (C - y[k:e] / qb[:-1])
        beta[k:e] = solve_triangular(Lb, rhs, lower=True, unit_diagonal=True, check_finite=False)
        if sob:
            sums.insert(slice(k, e), beta[k:e])
        q = float(qb[-1])
    return beta * q


def kernel_expansion_values(
    kernel: PeriodicSobolevKernel | KernelFn,
    centers: np.ndarray,
    a: np.ndarray,
    points: np.ndarray,
    block: int = 1024,
) -> np.ndarray:
    """f(z) for f = Σ_s a_s K(c_s, ·) at every point z, without the m × n kernel matrix.

    For the periodic Sobolev kernel with s = 1: one sort of the centres and prefix sums of
    a_s, a_s c_s, a_s c_s² (module docstring), O((n + m) log n).  Otherwise
    ``kernel(points, centers) @ a`` by blocks of ``block`` points (O(block·n) memory).

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.kernels import PeriodicSobolevKernel
    >>> K = PeriodicSobolevKernel(s=1)
    >>> c, a, z = np.array([0.1, 0.5, 0.9]), np.array([1.0, -2.0, 0.5]), np.array([0.0, 0.5, 0.95])
    >>> bool(np.allclose(kernel_expansion_values(K, c, a, z), K(z, c) @ a, rtol=0, atol=1e-13))
    True
    """
    a = np.asarray(a, dtype=float).reshape(-1)
    if _is_sobolev1(kernel):
        cr = np.mod(np.asarray(centers, dtype=float).reshape(-1), 1.0)
        zr = np.mod(np.asarray(points, dtype=float).reshape(-1), 1.0)
        sums = _SortedSums(kernel, cr)  # type: ignore[arg-type]
        sums.insert(slice(0, cr.size), a)
        return sums.query(zr)
    centers = np.asarray(centers, dtype=float)
    points = np.asarray(points, dtype=float)
    out = np.empty(points.shape[0])
    for i in range(0, points.shape[0], block):
        out[i : i + block] = np.asarray(kernel(points[i : i + block], centers), dtype=float) @ a
    return out


def kernel_quadratic_form(
    kernel: PeriodicSobolevKernel | KernelFn, centers: np.ndarray, a: np.ndarray
) -> float:
    """aᵀGa = ‖Σ_s a_s K(c_s, ·)‖²_K with G = K(c, c), without forming G.

    Σ_s a_s f(c_s) with :func:`kernel_expansion_values`: O(n log n) for the periodic Sobolev
    kernel with s = 1.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.kernels import PeriodicSobolevKernel
    >>> K = PeriodicSobolevKernel(s=1)
    >>> c, a = np.array([0.1, 0.5, 0.9]), np.array([1.0, -2.0, 0.5])
    >>> bool(np.isclose(kernel_quadratic_form(K, c, a), a @ K(c) @ a, rtol=1e-13))
    True
    """
    a = np.asarray(a, dtype=float).reshape(-1)
    return float(a @ kernel_expansion_values(kernel, centers, a, centers))


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
