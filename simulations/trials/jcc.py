"""Trial functions and adversarial neighbour searches for seed 003 (online kernel regression).

Seed ``003_8ef3daf3084cc981.txt`` (J. Comput. Commun. 5 (2017) 28–33) runs the online
recursion (3), f_{t+1} = f_t − η_t[(f_t(x_t) − y_t)K_{x_t} + λ_t f_t], f_0 = 0, with the
schedules of Theorem 1, η_t = (t+t₀)^{−θ}, λ_t = (t+t₀)^{θ−1}, and releases f_t + b_t (6).
Everything here is on the circle [0, 1) with x uniform and the periodic Sobolev kernel of
:mod:`simulations.kernels` normalised to a chosen κ (``PeriodicSobolevKernel.with_kappa``),
so that f_ρ, ‖·‖_K and ‖·‖_∞ are exact.

All-index sensitivity (Theorem 1, (15)–(17))
-------------------------------------------
Replace the point of index i < t of a stream z = (x_s, y_s)_{s<t} by (x', y') (a neighbour
in the Hamming sense of (4); Definition 2 only replaces the *last* point, i = t − 1).  Both
runs agree up to step i, so with j = i + 1 the difference at step j is

    f̄_j − f_j = g = u K_{x_i} − v K_{x'},   u = η_i(f_i(x_i) − y_i),  v = η_i(f_i(x') − y'),

and afterwards it obeys the *linear* recursion D_{s+1} = A_s D_s, A_s = (1 − η_sλ_s)I − η_s L_s
(L_s h = h(x_s)K_{x_s}), which depends on the later inputs x_s only, not on any label.  With
c_s = 1 − η_sλ_s, P_s = Π_{r<s} c_r, w_s = η_s/c_s and the unit lower-triangular
L = I + N, N_{sq} = w_q K(x_q, x_s) (q < s), R = L^{−1}, one gets (:func:`pair_difference`)

    f̄_t − f_t = D_t = (P_t/P_j) [g − Σ_{q≥j} w_q ê_q K_{x_q}],   ê = R[j:, j:] g(x_{j:}).

Because the inverse of a trailing block of a triangular matrix is the trailing block of its
inverse, *one* R serves every index.  Hence, for every i and every candidate x' at once
(:func:`all_index_sensitivity`),

    ‖D_t‖²_K = (P_t/P_j)² [‖g‖²_K + g_jᵀ Q[j:, j:] g_j],  Q = (WR)ᵀG(WR) − WR − (WR)ᵀ,

which is a quadratic form in (u, v); and on evaluation points e,
D_t(e) = (P_t/P_j)[u U_{ie} − v W_{ie}(x')] with V = (WR)ᵀK(x, e), U = K(x_i, e) −
Σ_{s>i} K(x_i, x_s)V_{se}, W = K(x', e) − Σ_{s>i} K(x_s, x')V_{se} (suffix sums).  Both
norms are convex in (u, v), which are affine in (y_i, y'); so the worst labels are
y_i, y' ∈ {−M, +M} and the search is over the index i, the input x' and four sign pairs.
The cost is O(t³ + t²·n_cand + t·n_cand·n_eval) instead of O(t³·n_cand) for reruns;
:func:`rerun_difference` is the reference (two full runs of
:func:`simulations.online.online_kernel_regression`) used by the tests.

Exact error of the release (Theorem 2)
--------------------------------------
For f = Σ a_s K_{x_s} and a constant b (the noise of (6) is one real number added to the
function), with ⟨K_c, 1⟩_K = 1, ‖1‖²_K = 1/μ₀ and ⟨1, f_ρ⟩_K = â₀/μ₀ (â₀ the mean of f_ρ),

    ‖f + b − f_ρ‖²_K = aᵀGa − 2 Σ a_s f_ρ(x_s) + ‖f_ρ‖²_K + 2b(Σ a_s − â₀/μ₀) + b²/μ₀

(:func:`release_error_sq`), a quadratic in b: the conditional law of the error given the data
is exact in the Laplace CDF (:func:`conditional_exceedance`).  :func:`thm2_trial` forms no
T × T Gram matrix: f_T from :func:`simulations.online.online_kernel_regression_stream` (the
s = 1 kernel is a quadratic in x − z on either side of the branch x = z, so the recursion
needs prefix sums over the sorted stream only) and aᵀGa from
:func:`simulations.online.kernel_quadratic_form`.  E f_t − f_ρ follows the
deterministic recursion m_{t+1} = (I − η_t(λ_t I + L_K))m_t − η_tλ_t f_ρ (x_t is independent
of f_t), diagonal in the Fourier basis (:func:`mean_error_norm`); by Jensen
E‖f_{t,A} − f_ρ‖_K ≥ ‖E f_t − f_ρ‖_K.

Examples
--------
>>> import numpy as np
>>> from simulations.trials.jcc import sobolev, min_t0, all_index_sensitivity, pair_difference
>>> K = sobolev(1.0)
>>> rng = np.random.default_rng(0)
>>> x, y = rng.random(20), rng.choice([-1.0, 1.0], 20)
>>> t0 = min_t0(1.0, 0.75)
>>> out = all_index_sensitivity(x, y, K, 0.75, t0, np.linspace(0, 1, 8, endpoint=False), M=1.0)
>>> out["knorm"].shape          # (index i, candidate x', sign of y_i, sign of y')
(20, 8, 2, 2)
>>> c, a = pair_difference(x, y, K, 0.75, t0, i=5, xprime=0.25, yi=1.0, yprime=-1.0)
>>> bool(np.isclose(np.sqrt(a @ K(c) @ a), out["knorm"][5, 2, 1, 0]))
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import optimize
from scipy.linalg import solve_triangular

from bounds.papers.jcc import THM1_C_T, THM1_DENSITY
from simulations._compiled import compiled_module
from simulations.data import CircleRegression, TrigSeries
from simulations.kernels import PeriodicSobolevKernel
from simulations.mechanisms import Mechanism
from simulations.online import (
    kernel_quadratic_form,
    online_kernel_regression,
    online_kernel_regression_stream,
    schedules,
)
from simulations.runner import trial

__all__ = [
    "sobolev",
    "min_t0",
    "gram",
    "sup_abs",
    "all_index_sensitivity",
    "pair_difference",
    "rerun_difference",
    "base_stream",
    "sensitivity_trial",
    "problem",
    "release_error_sq",
    "conditional_exceedance",
    "mean_error_norm",
    "thm2_trial",
]

Array = NDArray[np.float64]


# --------------------------------------------------------------------------- basics
def sobolev(kappa: float, s: int = 1) -> PeriodicSobolevKernel:
    """The periodic Sobolev kernel with sup sqrt(K) = κ (μ₀ = c = κ²/(1 + ζ(2s)))."""
    return PeriodicSobolevKernel.with_kappa(s=s, kappa=kappa)


def min_t0(kappa: float, theta: float) -> float:
    """Smallest admissible offset of Theorem 1, t₀ = (κ² + 1)^{1/θ} (times 1 + 1e−12 for rounding)."""
    return (kappa**2 + 1) ** (1 / theta) * (1 + 1e-12)


def gram(kernel: PeriodicSobolevKernel, x: Array, z: Array | None = None, out: Array | None = None,
         compiled: bool = True) -> Array:
    """Gram matrix K(x_i, z_j); for s = 1 from K = μ₀ − cπ²/12 + cπ²(d − ½)², d = (x − z) mod 1.

    Same values as ``kernel(x, z)`` (to rounding), computed in blocks of 64 rows that stay
    in cache, into ``out`` (a flat float buffer of size ≥ len(x)·len(z), reused across
    trials so that a T × T matrix for T in the thousands does not page-fault every time).
    ``compiled`` (default): one pass of :func:`simulations._loops_numba.sobolev1_gram_into` (the
    same operations per element, bit-identical); ``False``: the NumPy blocks (the reference).

    Examples
    --------
    >>> import numpy as np
    >>> K = sobolev(2.0); x = np.random.default_rng(1).random(5)
    >>> bool(np.allclose(gram(K, x), K(x), rtol=0, atol=1e-13))
    True
    """
    x = np.asarray(x, dtype=float).reshape(-1)
    z = x if z is None else np.asarray(z, dtype=float).reshape(-1)
    if kernel.s != 1:
        return kernel(x, z)
    G = np.empty((x.size, z.size)) if out is None else out[: x.size * z.size].reshape(x.size, z.size)
    c = kernel.scale * math.pi**2
    nb = compiled_module("_loops_numba") if compiled else None
    if nb is not None and G.flags.c_contiguous:   # the steps below element by element: the same bits
        nb.sobolev1_gram_into(G, np.ascontiguousarray(x), np.ascontiguousarray(z), c, kernel.mu0 - c / 12.0)
        return G
    B = 64
    tmp = np.empty((min(B, x.size), z.size))
    for i in range(0, x.size, B):
        D = tmp[: min(B, x.size - i)]
        np.subtract.outer(x[i : i + B], z, out=D)
        D -= np.floor(D)
        D -= 0.5
        np.square(D, out=D)
        D *= c
        D += kernel.mu0 - c / 12.0
        G[i : i + B] = D
    return G


def sup_abs(kernel: PeriodicSobolevKernel, centers: Array, alpha: Array, n_grid: int = 8192) -> float:
    """sup_x |Σ α_i K(c_i, x)| on the circle.

    For s = 1 it is exact: between consecutive centres the expansion is a quadratic with
    leading coefficient cπ²Σα, so the maximum of |f| is at a centre or at the vertex of one
    of these arcs.  For s > 1: the maximum over a grid of ``n_grid`` points and the centres
    (a lower bound).

    Examples
    --------
    >>> import numpy as np
    >>> K = sobolev(1.0)
    >>> c, a = np.array([0.1, 0.5, 0.8]), np.array([1.0, -2.0, 0.5])
    >>> grid = np.linspace(0, 1, 200001)
    >>> exact, dense = sup_abs(K, c, a), np.abs(K(grid, c) @ a).max()
    >>> bool(dense <= exact + 1e-12 and exact - dense < 1e-8)
    True
    """
    c = np.mod(np.asarray(centers, dtype=float).reshape(-1), 1.0)
    a = np.asarray(alpha, dtype=float).reshape(-1)
    if kernel.s != 1:
        pts = np.concatenate([c, np.arange(n_grid) / n_grid])
        return float(np.abs(gram(kernel, pts, c) @ a).max())
    u = np.unique(c)
    left = u
    right = np.append(u[1:], u[0] + 1.0)
    mid = 0.5 * (left + right)
    h = 0.5 * (right - left)
    fl = gram(kernel, left, c) @ a
    fm = gram(kernel, mid, c) @ a
    fr = np.append(fl[1:], fl[0])
    best = float(np.abs(fl).max())
    A = kernel.scale * math.pi**2 * float(a.sum())
    if A != 0.0:
        beta = (fr - fl) / (2 * h)
        tau = -beta / (2 * A)
        inside = np.abs(tau) < h
        if np.any(inside):
            vert = fm[inside] - beta[inside] ** 2 / (4 * A)
            best = max(best, float(np.abs(vert).max()))
    return best


# --------------------------------------------------------------------------- sensitivity
def _prefix_state(x: Array, y: Array, kernel: PeriodicSobolevKernel, theta: float, t0: float) -> dict[str, Any]:
    """Base run of (3) on the stream and the matrices shared by all indices (see module docstring)."""
    x = np.asarray(x, dtype=float).reshape(-1)
    y = np.asarray(y, dtype=float).reshape(-1)
    t = x.size
    G = gram(kernel, x)
    eta, lam = schedules(t, theta, t0)
    c = 1.0 - eta * lam
    P = np.concatenate([[1.0], np.cumprod(c)])
    w = eta / c
    a = online_kernel_regression(G, y, theta, t0)
    # f_i(z) = (P_i/P_t) Σ_{s<i} a_s K(x_s, z): prefix values at the stream's own points
    fx = (P[:t] / P[t]) * np.triu(a[:, None] * G, 1).sum(axis=0)
    L = np.eye(t) + np.tril(G, -1) * w[None, :]
    R = solve_triangular(L, np.eye(t), lower=True, unit_diagonal=True)
    return dict(x=x, y=y, t=t, G=G, eta=eta, P=P, w=w, a=a, fx=fx, R=R, kernel=kernel)


def _prefix_values(st: Mapping[str, Any], Kc: Array) -> Array:
    """f_i(x'_c) for every i < t and candidate c (rows of Kc = K(x_s, x'_c))."""
    t = st["t"]
    S = np.cumsum(st["a"][:, None] * Kc, axis=0)
    S = np.vstack([np.zeros((1, Kc.shape[1])), S[:-1]])
    return (st["P"][:t] / st["P"][t])[:, None] * S


def _suffix_sums(a: Array) -> Array:
    """S[j] = Σ_{s ≥ j} a[s] along axis 0, added in the order of ``np.cumsum(a[::-1], axis=0)[::-1]``.

    Bit for bit that expression (each column is summed from the last row up, one addition per
    row), but one vectorised addition per row instead of NumPy's strided accumulate, which is
    several times slower when the rows are wide.
    """
    out = np.empty(a.shape)
    out[-1] = a[-1]
    for j in range(a.shape[0] - 2, -1, -1):
        np.add(out[j + 1], a[j], out=out[j])
    return out


def all_index_sensitivity(
    x: Array,
    y: Array,
    kernel: PeriodicSobolevKernel,
    theta: float,
    t0: float,
    candidates: Array,
    M: float,
    n_eval: int = 0,
    chunk: int = 16,
    state: Mapping[str, Any] | None = None,
    compiled: bool = True,
) -> dict[str, Array]:
    """‖f_t − f_t̄‖_K (and, on a grid, ‖f_t − f_t̄‖_∞) for every neighbour of one stream.

    The neighbours replace the point of index i (every i < t) by (x'_c, y') for every
    candidate x'_c, with y_i and y' ∈ {−M, +M} (the maximisers, see the module docstring).

    Parameters
    ----------
    x, y : array, shape (t,)
        The stream (labels only enter through the prefix f_i; |y| ≤ M).
    kernel : PeriodicSobolevKernel
    theta, t0 : float
        Schedule of Theorem 1.
    candidates : array, shape (n_c,)
        Replacement inputs x'.
    M : float
        Label bound.
    n_eval : int
        Evaluation grid size for the sup norm (0: skip it).
    chunk : int
        Candidates per block of the sup-norm computation (memory t·chunk·n_eval).
    state : dict, optional
        The base run (``_prefix_state``) if already computed.
    compiled : bool
        Compute the sup-norm grid in one compiled pass
        (:func:`simulations._loops_numba.online_sup_grid`, the same operations in the same order:
        bit-identical) instead of the chunked NumPy code, kept as the reference.

    Returns
    -------
    dict
        ``knorm`` and (if n_eval) ``supgrid``, arrays of shape (t, n_c, 2, 2) indexed by
        (i, c, [y_i = −M, +M], [y' = −M, +M]); ``fx`` (f_i(x_i)), ``fc`` (f_i(x'_c)).
    """
    st = _prefix_state(x, y, kernel, theta, t0) if state is None else state
    t, G, R, w, P, eta = st["t"], st["G"], st["R"], st["w"], st["P"], st["eta"]
    xc = np.asarray(candidates, dtype=float).reshape(-1)
    Kc = gram(kernel, st["x"], xc)  # (t, n_c)
    kcc = np.full(xc.size, kernel.kappa**2)
    fc = _prefix_values(st, Kc)
    WR = w[:, None] * R
    Q = WR.T @ G @ WR - WR - WR.T
    B = np.triu(G, 1)
    H = B @ Q
    q_aa = np.einsum("ij,ij->i", H, B)
    q_ak = np.triu(H, 1) @ Kc
    Z = np.triu(Q, 1) @ Kc
    term = Kc * (np.diag(Q)[:, None] * Kc + 2 * Z)
    S = _suffix_sums(term)  # S[j] = Σ_{s≥j}
    q_kk = np.vstack([S[1:], np.zeros((1, xc.size))])  # index i uses j = i + 1
    scale = P[t] / P[1 : t + 1]  # P_t / P_{i+1}
    signs = np.array([-1.0, 1.0])
    u = eta[:, None] * (st["fx"][:, None] - signs[None, :] * M)  # (t, 2)
    v = eta[:, None, None] * (fc[:, :, None] - signs[None, None, :] * M)  # (t, n_c, 2)
    Aa = np.diag(G) + q_aa  # (t,)
    Ak = Kc + q_ak  # (t, n_c)
    Ck = kcc[None, :] + q_kk
    uu = u[:, None, :, None]
    vv = v[:, :, None, :]
    n2 = uu**2 * Aa[:, None, None, None] - 2 * uu * vv * Ak[:, :, None, None] + vv**2 * Ck[:, :, None, None]
    out = {"knorm": scale[:, None, None, None] * np.sqrt(np.maximum(n2, 0.0)), "fx": st["fx"], "fc": fc}
    if n_eval:
        E = (np.arange(n_eval) + 0.5) / n_eval
        KE = gram(kernel, st["x"], E)  # (t, n_e)
        V = WR.T @ KE
        U = KE - B @ V  # (t, n_e)
        kE = gram(kernel, xc, E)  # (n_c, n_e)
        if compiled and t > 0 and xc.size > 0:
            from .._loops_numba import online_sup_grid

            out["supgrid"] = online_sup_grid(np.ascontiguousarray(Kc), np.ascontiguousarray(V),
                                             np.ascontiguousarray(kE), np.ascontiguousarray(U),
                                             np.ascontiguousarray(scale, dtype=float), np.ascontiguousarray(u),
                                             np.ascontiguousarray(v))
            return out
        sup = np.empty((t, xc.size, 2, 2))
        uU = [scale[:, None] * u[:, k : k + 1] * U for k in range(2)]
        for c0 in range(0, xc.size, chunk):
            cs = slice(c0, min(c0 + chunk, xc.size))
            T3 = Kc[:, cs].T[:, :, None] * V[None, :, :]  # (cc, t, n_e)
            suf = _suffix_sums(T3.transpose(1, 0, 2)).transpose(1, 0, 2)
            Wt = kE[cs][:, None, :] - np.concatenate([suf[:, 1:], np.zeros_like(suf[:, :1])], axis=1)
            Wt *= scale[None, :, None]
            for kp in range(2):
                vW = v[:, cs, kp].T[:, :, None] * Wt  # (cc, t, n_e)
                for k in range(2):
                    sup[:, cs, k, kp] = np.abs(uU[k][None] - vW).max(axis=2).T
        out["supgrid"] = sup
    return out


def pair_difference(
    x: Array,
    y: Array,
    kernel: PeriodicSobolevKernel,
    theta: float,
    t0: float,
    i: int,
    xprime: float,
    yi: float,
    yprime: float,
    state: Mapping[str, Any] | None = None,
) -> tuple[Array, Array]:
    """f_t − f_t̄ as a kernel expansion (centres, coefficients), by the linear propagation.

    z has (x_i, ``yi``) at index i (its other labels are ``y``), z̄ has (``xprime``, ``yprime``).
    ``state`` (from a previous call's ``_prefix_state``) can be passed to reuse R.
    """
    st = _prefix_state(x, y, kernel, theta, t0) if state is None else state
    t, G, R, w, P, eta = st["t"], st["G"], st["R"], st["w"], st["P"], st["eta"]
    i = int(i)
    j = i + 1
    kp = gram(kernel, st["x"], np.array([xprime]))[:, 0]
    f_xp = float(_prefix_values(st, kp[:, None])[i, 0])
    u = eta[i] * (st["fx"][i] - yi)
    v = eta[i] * (f_xp - yprime)
    gj = u * G[i, j:] - v * kp[j:]
    e = R[j:, j:] @ gj
    s = P[t] / P[j]
    centers = np.concatenate([[st["x"][i], xprime], st["x"][j:]])
    alpha = -s * np.concatenate([[u, -v], -w[j:] * e])  # f_t − f_t̄ = −(propagated u K_{x_i} − v K_{x'})
    return centers, alpha


def rerun_difference(
    x: Array, y: Array, kernel: PeriodicSobolevKernel, theta: float, t0: float,
    i: int, xprime: float, yi: float, yprime: float,
) -> tuple[Array, Array]:
    """Reference for :func:`pair_difference`: two full runs of recursion (3), differenced.

    Returns the centres (x_0, …, x_{t−1}, x') and the coefficient difference on them.
    """
    x = np.asarray(x, dtype=float).copy()
    y = np.asarray(y, dtype=float).copy()
    t = x.size
    y[i] = yi
    x2, y2 = x.copy(), y.copy()
    x2[i], y2[i] = xprime, yprime
    a = online_kernel_regression(gram(kernel, x), y, theta, t0)
    a2 = online_kernel_regression(gram(kernel, x2), y2, theta, t0)
    d = np.zeros(t + 1)
    d[:t] = a
    d[:t] -= np.where(np.arange(t) == i, 0.0, a2)
    d[t] = -a2[i]
    return np.append(x, xprime), d


def base_stream(family: str, t: int, M: float, rng: np.random.Generator) -> tuple[Array, Array]:
    """A base stream for the adversarial search.

    ``rademacher``: x uniform, y = ±M at random; ``wave``: x uniform, y = M·sign(cos 2πx),
    which drives f towards ±M on half-circles (large |f_i(x) − y| for a flipped label);
    ``cluster``: x within 0.05 of 0, y = +M (f_i ≈ M near 0, so a replacement far away with
    y' = −M and a flipped y_i both give large residuals).
    """
    if family == "rademacher":
        return rng.random(t), rng.choice([-M, M], t)
    if family == "wave":
        x = rng.random(t)
        return x, np.where(np.cos(2 * np.pi * x) >= 0, M, -M)
    if family == "cluster":
        return np.mod(rng.uniform(-0.05, 0.05, t), 1.0), np.full(t, M)
    raise ValueError(f"unknown family {family!r} (rademacher, wave, cluster)")


def _refine(f, x0: float, h: float) -> tuple[float, float]:
    """Maximise f on [x0 − h, x0 + h] (bounded Brent); returns (x, value), never below f(x0)."""
    v0 = f(x0)
    res = optimize.minimize_scalar(lambda z: -f(z), bounds=(x0 - h, x0 + h), method="bounded",
                                   options={"xatol": 1e-7, "maxiter": 40})
    if -res.fun > v0:
        return float(np.mod(res.x, 1.0)), float(-res.fun)
    return x0, v0


@trial(requires=('M', 'family', 'kappa', 'n_search', 't', 'theta'), optional=('n_eval', 'n_refine', 't0'))
def sensitivity_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Adversarial search for max ‖f_t − f_t̄‖_K and max ‖f_t − f_t̄‖_∞ over neighbours of one stream.

    Config: ``kappa``, ``theta``, ``t``, ``M``, ``family`` (:func:`base_stream`), ``n_search``
    (candidates x', a shifted uniform grid on the circle), ``n_eval`` (sup-norm grid),
    ``n_refine`` (best coarse pairs refined in x' by bounded Brent, exact sup norm).
    Returns the worst values found (each attained by an explicit neighbouring pair), the
    worst restricted to the last index (Definition 2), the argmax index and x', and
    ``lemma2`` = max_i ‖f_i‖_K λ_i/(κM) (Lemma 2 says ≤ 1).
    """
    kappa, theta, t, M = float(config["kappa"]), float(config["theta"]), int(config["t"]), float(config["M"])
    K = sobolev(kappa)
    t0 = min_t0(kappa, theta)
    x, y = base_stream(str(config["family"]), t, M, rng)
    n_c = int(config["n_search"])
    xc = np.mod((np.arange(n_c) + rng.random()) / n_c, 1.0)
    st = _prefix_state(x, y, K, theta, t0)
    out = all_index_sensitivity(x, y, K, theta, t0, xc, M, n_eval=int(config.get("n_eval", 256)), state=st)
    kn, sg = out["knorm"], out["supgrid"]
    res: dict[str, float] = {
        "knorm_coarse": float(kn.max()), "sup_coarse": float(sg.max()),
        "knorm_last": float(kn[-1].max()), "sup_last_coarse": float(sg[-1].max()),
        "n_pairs": float(kn.size),
    }
    signs = (-M, M)
    n_ref = int(config.get("n_refine", 3))
    h = 1.0 / n_c

    def knorm_at(i, si, sp_, z):
        c, a = pair_difference(x, y, K, theta, t0, i, z, signs[si], signs[sp_], state=st)
        return float(np.sqrt(max(a @ gram(K, c) @ a, 0.0)))

    def sup_at(i, si, sp_, z):
        c, a = pair_difference(x, y, K, theta, t0, i, z, signs[si], signs[sp_], state=st)
        return sup_abs(K, c, a)

    best_k = (res["knorm_coarse"], -1, math.nan)
    best_s = (0.0, -1, math.nan)
    best_s_last = 0.0
    for arr, fn, which in ((kn, knorm_at, "k"), (sg, sup_at, "s")):
        flat = np.argsort(arr, axis=None)[::-1][:n_ref]
        idx = [np.unravel_index(f, arr.shape) for f in flat]
        if which == "s":  # also refine the best last-index pair (Definition 2)
            last = np.unravel_index(np.argmax(arr[-1]), arr[-1].shape)
            idx.append((t - 1, *last))
        for i, c, si, sp_ in idx:
            z, val = _refine(lambda zz, i=i, si=si, sp_=sp_, fn=fn: fn(int(i), si, sp_, zz), float(xc[c]), h)
            if which == "k" and val > best_k[0]:
                best_k = (val, int(i), z)
            if which == "s":
                if val > best_s[0]:
                    best_s = (val, int(i), z)
                if i == t - 1:
                    best_s_last = max(best_s_last, val)
    if best_k[1] < 0:
        i, c = np.unravel_index(np.argmax(kn), kn.shape)[:2]
        best_k = (res["knorm_coarse"], int(i), float(xc[c]))
    norm_t = math.sqrt(max(float(st["a"] @ st["G"] @ st["a"]), 0.0))
    res.update(
        knorm=best_k[0], i_knorm=float(best_k[1]), x_knorm=best_k[2],
        sup=max(best_s[0], res["sup_coarse"]), i_sup=float(best_s[1]), x_sup=best_s[2],
        sup_last=max(best_s_last, res["sup_last_coarse"]),
        lemma2=norm_t * (t + t0) ** (theta - 1) / (kappa * M),
    )
    return res


# --------------------------------------------------------------------------- Theorem 2
@lru_cache(maxsize=16)
def problem(kind: str, kappa: float, r: float = 1.0, sigma: float = 0.1, freq: int = 16) -> CircleRegression:
    """The distributions of the Theorem 2 checks (x uniform on the circle, y = f_ρ(x) + U[−σ, σ]).

    ``smooth``: the lacunary default of :class:`~simulations.data.CircleRegression` with
    f_ρ = A L_K^r g (r ≥ 1/2 puts f_ρ in H_K; ‖L_K^{−r} f_ρ‖_ρ finite), sup bound 1;
    ``highfreq``: f_ρ = A√2 cos(2π·freq·x), sup bound 1, whose K-norm is large
    (≈ freq·√(1+ζ(2))/κ) compared with M = 1 + σ.  The kernel is ``sobolev(kappa)``.
    """
    v = kappa**2 / (1.0 + math.pi**2 / 6)
    if kind == "smooth":
        return CircleRegression(r=r, s=1, sigma=sigma, mu0=v, scale=v)
    if kind == "highfreq":
        return CircleRegression(r=0.5, s=1, sigma=sigma, mu0=v, scale=v,
                                g=TrigSeries([int(freq)], [1.0], [0.0]))
    raise ValueError(f"unknown problem {kind!r} (smooth, highfreq)")


def _problem_of(config: Mapping[str, Any]) -> CircleRegression:
    return problem(str(config["problem"]), float(config["kappa"]), float(config.get("r", 1.0)),
                   float(config.get("sigma", 0.1)), int(config.get("freq", 16)))


def release_error_sq(
    P: CircleRegression, x: Array, a: Array, G: Array | None = None, f_x: Array | None = None
) -> tuple[float, float, float]:
    """(e₀², c₁, 1/μ₀) with ‖f + b − f_ρ‖²_K = e₀² + 2c₁b + b²/μ₀ for f = Σ a_s K_{x_s}.

    See the module docstring; e₀ = ‖f − f_ρ‖_K is the error without noise.  aᵀGa is
    ``a @ G @ a`` if the Gram matrix ``G`` is given, else
    :func:`simulations.online.kernel_quadratic_form` (no T × T matrix; O(T log T) for s = 1).
    ``f_x``: f_ρ at x if already computed (:meth:`~simulations.data.CircleRegression.sample_with`).
    """
    fr = P.f_rho_series
    fn2 = P.norm_K(fr) ** 2
    a0 = float(fr.cos[fr.freqs == 0].sum())
    mu0 = P.kernel.mu0
    aGa = float(a @ G @ a) if G is not None else kernel_quadratic_form(P.kernel, x, a)
    fx = P.f_rho(x) if f_x is None else f_x
    e0 = aGa - 2 * float(a @ fx) + fn2
    return max(e0, 0.0), float(a.sum()) - a0 / mu0, 1.0 / mu0


def conditional_exceedance(e0sq: float, c1: float, inv_mu0: float, scale: float, level: float) -> float:
    """P_b(‖f + b − f_ρ‖_K > level) for b ~ Laplace(0, scale), exactly (quadratic in b)."""
    # e0² + 2c1 b + b²/μ0 ≤ level²  ⇔  b in [b−, b+]
    A, Bq, C = inv_mu0, 2 * c1, e0sq - level**2
    disc = Bq * Bq - 4 * A * C
    if disc <= 0:
        return 1.0
    r = math.sqrt(disc)
    lo, hi = (-Bq - r) / (2 * A), (-Bq + r) / (2 * A)

    def cdf(z: float) -> float:  # P(b < z), accurate in the lower tail
        return 0.5 * math.exp(z / scale) if z < 0 else 1 - 0.5 * math.exp(-z / scale)

    def sf(z: float) -> float:  # P(b > z), accurate in the upper tail
        return 0.5 * math.exp(-z / scale) if z > 0 else 1 - 0.5 * math.exp(z / scale)

    return float(min(1.0, cdf(lo) + sf(hi)))


def mean_error_norm(P: CircleRegression, T: int, theta: float, t0: float) -> float:
    """‖E f_T − f_ρ‖_K exactly, from the deterministic mean recursion (module docstring).

    A lower bound on E‖f_{T,A} − f_ρ‖_K for every calibration of b (E b = 0, Jensen).

    Examples
    --------
    >>> P = problem("highfreq", 1.0)
    >>> m = mean_error_norm(P, 1000, 0.95, min_t0(1.0, 0.95))
    >>> bool(0.9 * P.norm_K(P.f_rho_series) < m < P.norm_K(P.f_rho_series))
    True
    """
    fr = P.f_rho_series
    tau = P.kernel.eigenvalue(fr.freqs)
    eta, lam = schedules(int(T), theta, t0)
    m = -np.stack([fr.cos, fr.sin])  # m_0 = f_0 − f_ρ, per frequency (cos, sin)
    fh = np.stack([fr.cos, fr.sin])
    for k in range(int(T)):
        m = (1 - eta[k] * (lam[k] + tau)) * m - eta[k] * lam[k] * fh
    return float(math.sqrt(float(((m**2).sum(axis=0) / tau).sum())))


@trial(requires=('T', 'kappa', 'problem', 'scale', 't0', 'theta'),
       optional=('freq', 'levels', 'n_noise', 'r', 'sigma', 'scale_alt'))
def thm2_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """One run of the private online algorithm (6) and its exact K-norm error (Theorem 2).

    Config: ``problem``, ``kappa`` (and ``r``, ``sigma``, ``freq``) for :func:`problem`;
    ``theta``, ``t0``, ``T`` (steps, so the output is f_T = f_{t+1} with t = T − 1);
    ``scale`` (Laplace scale of b_T, C_T/ε as calibrated by the check) and optionally
    ``scale_alt`` (the other calibration); ``n_noise`` draws of b for the conditional mean;
    ``levels``: list of bound values.  Returns ``err`` (one draw b ~ Laplace(scale), the
    independent draw used for the violation count), ``err0`` (no noise), ``err_mean``
    (mean over ``n_noise`` draws), and for every level k ``exceed_k`` (err > level) and
    ``pexc_k`` (exact P_b(error > level | data)), ``pexc_alt_k`` with ``scale_alt``; and the
    coefficients ``e0sq``, ``c1``, ``inv_mu0`` of the error as a quadratic in b.
    """
    P = _problem_of(config)
    T = int(config["T"])
    X, y, (f_x,) = P.sample_with(T, rng)             # f_ρ(x) kept for the error below
    x = X[:, 0]
    if np.max(np.abs(y)) > P.M:
        raise ValueError("label outside [−M, M]")
    # recursion (3) and aᵀGa without the T × T Gram matrix (O(T^{3/2}) for the s = 1 kernel)
    a = online_kernel_regression_stream(x, y, float(config["theta"]), float(config["t0"]), P.kernel)
    e0sq, c1, im = release_error_sq(P, x, a, f_x=f_x)
    scale = float(config["scale"])
    b = rng.laplace(0.0, scale)
    bn = rng.laplace(0.0, scale, int(config.get("n_noise", 1)))

    def err(bb):
        return np.sqrt(np.maximum(e0sq + 2 * c1 * bb + im * bb * bb, 0.0))

    out = {"err": float(err(b)), "err0": math.sqrt(e0sq), "err_mean": float(err(bn).mean()),
           "e0sq": e0sq, "c1": c1, "inv_mu0": im, "b": float(b)}
    for k, lev in enumerate(config.get("levels", [])):
        out[f"exceed_{k}"] = float(out["err"] > lev)
        out[f"pexc_{k}"] = conditional_exceedance(e0sq, c1, im, scale, float(lev))
        if "scale_alt" in config:
            out[f"pexc_alt_{k}"] = conditional_exceedance(e0sq, c1, im, float(config["scale_alt"]), float(lev))
    return out


@trial(requires=("T", "kappa", "theta", "data_seed"), optional=("n_cand", "n_grid", "M"), artefacts=("pair",))
def audit_pair_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, Any]:
    """The hardest neighbouring stream of the online algorithm (3) for the audit of Theorem 1, as an artefact.

    Deterministic: the stream comes from ``SeedSequence([data_seed, T])`` (:mod:`simulations.pairs`).
    ``pair["values"]`` holds κ, M, t, t₀, θ for the noise calibration (t₀ the smallest with t₀^θ ≥ κ² + 1).
    """
    from simulations.pairs import online_pair

    kw = {k: config[k] for k in ("n_cand", "n_grid", "M") if k in config}
    pair = online_pair(int(config["T"]), float(config["kappa"]), float(config["theta"]), int(config["data_seed"]),
                       **kw)
    return {"pair": pair, "max_abs_diff": pair["max_abs_diff"]}


def _thm1_inputs(v: Mapping[str, float]) -> dict[str, float]:
    """Theorem 1's parameters from the problem: T = m steps, C_T at t = T, divided by ε."""
    return {"kappa": v["kappa"], "M": v["M"], "t": v["m"], "t0": v["t0"], "theta": v["theta"], "eps": v["eps"]}


#: the paper's mechanism (discovered by simulations.mechanisms.mechanisms)
THM1 = Mechanism("jcc.thm1", THM1_C_T, algorithms=("online_kls",), per_eps=True, inputs=_thm1_inputs,
                 release="f_T + b_T, b_T ~ Laplace(C_T/ε) (Theorem 1, (6))", claims=(THM1_DENSITY,))
MECHANISMS = (THM1,)
