r"""Private ERM algorithms of Talwar, Thakurta & Zhang (arXiv:1411.5417, 2014; NeurIPS 2015).

* :func:`private_frank_wolfe` — private Frank–Wolfe over a polytope conv(S) given by its
  vertices (Algorithm 2 of §5): at every step and for every vertex s a fresh Laplace(λ) is
  added to the score ⟨s, ∇L(θ_t)⟩, the vertex with the smallest noisy score is taken and
  θ_{t+1} = (1 − μ_t)θ_t + μ_t s with μ_t = 2/(t + 2), t = 1, …, T − 1; the output is θ_T.
  :func:`private_fw_lasso` is the same algorithm for LASSO over the ℓ1 ball (vertices ±e_j)
  on the sufficient statistics A = XᵀX/n, c = Xᵀy/n, with the gradient 2(Aθ − c) updated in
  O(p) per step.  Both run ``n_rep`` independent chains at once (vectorised) and draw the noise
  in the same order, so they agree exactly on the same generator.
* :func:`private_mirror_descent` — Algorithm 1 of §3 with Gaussian noise N(0, σ²I) on each
  gradient: ``geometry="l2"`` (Ψ = ‖θ‖²/2: projected gradient over the ℓ2 ball), ``"l1"``
  (entropy over 2p weights, θ = R(w₊ − w₋): the ±e_j doubling trick) or ``"simplex"``
  (entropy); the output is the average iterate.
* Noise: the algorithms take their noise scale (Laplace λ, Gaussian σ) as an argument; the
  paper's calibrations, which read its statements (the Frank–Wolfe Laplace scale, stated or
  derived, and σ of the Gaussian mechanism in zCDP with T-fold composition and conversion to
  (ε, δ), Bun & Steinke 2016, Prop. 1.3/1.6 and Lemma 1.7), live with the paper's trials.
  :func:`md_step_size` is the step that minimises the mirror-descent bound.
* Exact minimisers: :func:`lasso_l1_solve` (FISTA with Euclidean projection onto the ℓ1 ball,
  certified by the Frank–Wolfe gap max_s ⟨θ − s, ∇L(θ)⟩ ≥ L(θ) − L*).
* Gaussian widths: :func:`gaussian_width_mc` (Monte Carlo with a Student-t interval); the
  exact widths and the paper's bounds live with the paper's trials.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1, 1, (500, 5)); y = np.clip(X[:, 0] * 0.8, -1, 1)
>>> A, c, yy = lasso_stats(X, y)
>>> sol = lasso_l1_solve(A, c, yy)
>>> sol.certificate.ok, bool(sol.gap <= 1e-9)
(True, True)
>>> th = private_fw_lasso(A, c, T=50, scale=0.01, rng=rng, n_rep=4)
>>> th.shape, bool(np.all(np.abs(th).sum(axis=1) <= 1 + 1e-12))
((4, 5), True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from numbers import Integral, Real
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from .solvers import Certificate, CertificateError

FloatArray = NDArray[np.float64]


def _check_release(who: str, algorithm: str, rng: Any = None, **params: Any) -> None:
    """Validate the parameters of a private release; a ValueError names the parameter, the algorithm
    whose calibration assumes it (the paper's statement is the caller's) and the assumption.  ``params``: name -> (value, kind) with kind
    ``"count"`` (an int ≥ 1), ``"reps"`` (an int ≥ 0), ``"positive"`` (a finite real > 0) or
    ``"noise"`` (a finite real ≥ 0; 0 is the non-private algorithm)."""
    what = {"count": "an int ≥ 1", "reps": "an int ≥ 0 (independent chains)", "positive": "a finite real > 0",
            "noise": "a finite real ≥ 0 (0 is the non-private algorithm)"}
    for name, (value, kind) in params.items():
        if kind in ("count", "reps"):
            ok = isinstance(value, Integral) and not isinstance(value, bool) and value >= (1 if kind == "count" else 0)
        else:
            ok = isinstance(value, Real) and not isinstance(value, bool) and math.isfinite(float(value)) and (
                value > 0 if kind == "positive" else value >= 0)
        if not ok:
            raise ValueError(f"{who}: parameter {name!r} = {value!r} must be {what[kind]} (assumption of "
                             f"{algorithm} and of its noise calibration)")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ValueError(f"{who}: parameter 'rng' = {rng!r} must be a numpy Generator (from a SeedSequence)")

__all__ = [
    "md_step_size",
    "lasso_stats",
    "lasso_loss",
    "lasso_grad",
    "project_l1_ball",
    "project_l2_ball",
    "LassoSolution",
    "lasso_l1_solve",
    "fw_gap_l1",
    "private_frank_wolfe",
    "private_fw_lasso",
    "private_mirror_descent",
    "private_mirror_descent_linear",
    "gaussian_width_mc",
    "l1_vertices",
]


# --------------------------------------------------------------------------------------
# step size
# --------------------------------------------------------------------------------------
def md_step_size(D2: float, Lstar: float, sigma: float, G: float, r: float, T: int) -> float:
    """The step η = √(D²/(T(L*² + σ²(G² + r²)))) that minimises the mirror-descent regret bound
    D²/(2ηT) + η(L*² + σ²(G² + r²))/2 (Talwar, Thakurta & Zhang, Theorem 3.2 with explicit constants)."""
    return math.sqrt(D2 / (T * (Lstar**2 + sigma**2 * (G**2 + r**2))))


# --------------------------------------------------------------------------------------
# LASSO over the ℓ1 ball
# --------------------------------------------------------------------------------------
def lasso_stats(X: FloatArray, y: FloatArray) -> tuple[FloatArray, FloatArray, float]:
    """Sufficient statistics (A = XᵀX/n, c = Xᵀy/n, mean y²) of L(θ) = (1/n)Σ(y_i − ⟨x_i, θ⟩)²."""
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    n_ = X.shape[0]
    return X.T @ X / n_, X.T @ y / n_, float(y @ y / n_)


def lasso_loss(theta: FloatArray, A: FloatArray, c: FloatArray, yy: float) -> FloatArray:
    """L(θ) = θᵀAθ − 2cᵀθ + mean y², for one θ (p,) or a batch (R, p)."""
    th = np.asarray(theta, dtype=float)
    return np.einsum("...i,ij,...j->...", th, A, th) - 2 * th @ c + yy


def lasso_grad(theta: FloatArray, A: FloatArray, c: FloatArray) -> FloatArray:
    """∇L(θ) = 2(Aθ − c) (row-wise for a batch)."""
    return 2 * (np.asarray(theta, dtype=float) @ A - c)


def fw_gap_l1(theta: FloatArray, grad: FloatArray, radius: float = 1.0) -> FloatArray:
    """Frank–Wolfe gap max_{s ∈ rB₁} ⟨θ − s, g⟩ = ⟨θ, g⟩ + r‖g‖_∞ (≥ L(θ) − L* for convex L)."""
    return np.sum(theta * grad, axis=-1) + radius * np.max(np.abs(grad), axis=-1)


def project_l1_ball(v: FloatArray, radius: float = 1.0) -> FloatArray:
    """Euclidean projection onto {‖θ‖₁ ≤ r}, row-wise (Duchi, Shalev-Shwartz, Singer & Chandra 2008).

    Examples
    --------
    >>> project_l1_ball(np.array([2.0, 0.0, -1.0]))
    array([ 1.,  0., -0.])
    """
    v = np.asarray(v, dtype=float)
    x = np.atleast_2d(v)
    a = np.abs(x)
    inside = a.sum(axis=1) <= radius
    u = -np.sort(-a, axis=1)
    css = np.cumsum(u, axis=1) - radius
    j = np.arange(1, x.shape[1] + 1)
    cond = u - css / j > 0
    rho = x.shape[1] - 1 - np.argmax(cond[:, ::-1], axis=1)
    tau = css[np.arange(x.shape[0]), rho] / (rho + 1)
    out = np.sign(x) * np.maximum(a - tau[:, None], 0.0)
    out[inside] = x[inside]
    return out.reshape(v.shape)


def project_l2_ball(v: FloatArray, radius: float = 1.0) -> FloatArray:
    """Euclidean projection onto {‖θ‖₂ ≤ r}, row-wise."""
    v = np.asarray(v, dtype=float)
    nrm = np.linalg.norm(v, axis=-1, keepdims=True)
    return v * np.minimum(1.0, radius / np.maximum(nrm, 1e-300))


@dataclass(frozen=True)
class LassoSolution:
    """Exact minimiser of L over the ℓ1 ball, with its Frank–Wolfe-gap certificate."""

    theta: FloatArray
    loss: float
    gap: float
    iterations: int
    certificate: Certificate


def lasso_l1_solve(A: FloatArray, c: FloatArray, yy: float, radius: float = 1.0, tol: float = 1e-10,
                   max_iter: int = 200_000) -> LassoSolution:
    """min_{‖θ‖₁ ≤ r} θᵀAθ − 2cᵀθ + yy by FISTA with restarts, to a Frank–Wolfe gap ≤ ``tol``.

    The gap max_s⟨θ − s, ∇L(θ)⟩ bounds L(θ) − L* from above, so ``loss − gap ≤ L* ≤ loss``.

    Raises
    ------
    CertificateError
        When the gap is above ``tol`` after ``max_iter`` iterations.
    """
    A = np.asarray(A, dtype=float)
    c = np.asarray(c, dtype=float)
    Lg = 2 * float(np.linalg.eigvalsh(A)[-1]) + 1e-12
    x = np.zeros_like(c)
    z = x.copy()
    tk = 1.0
    gap = math.inf
    it = 0
    for it in range(1, max_iter + 1):
        g = 2 * (A @ z - c)
        x_new = project_l1_ball(z - g / Lg, radius)
        t_new = (1 + math.sqrt(1 + 4 * tk * tk)) / 2
        if (x_new - x) @ (z - x_new) > 0:  # gradient restart (O'Donoghue & Candès 2015)
            t_new, z = 1.0, x_new.copy()
        else:
            z = x_new + (tk - 1) / t_new * (x_new - x)
        x, tk = x_new, t_new
        if it % 10 == 0 or it == max_iter:
            gap = float(fw_gap_l1(x, 2 * (A @ x - c), radius))
            if gap <= tol:
                break
    cert = Certificate("frank_wolfe_gap", gap, tol, bool(gap <= tol), solver="lasso_l1_solve",
                       details={"iterations": it})
    sol = LassoSolution(x, float(lasso_loss(x, A, c, yy)), gap, it, cert)
    if not cert.ok:
        raise CertificateError(cert, sol)
    return sol


def l1_vertices(p: int, radius: float = 1.0) -> FloatArray:
    """The 2p vertices ±r e_j of the ℓ1 ball, in the order e_1..e_p, −e_1..−e_p."""
    eye = radius * np.eye(p)
    return np.vstack([eye, -eye])


# --------------------------------------------------------------------------------------
# private Frank–Wolfe
# --------------------------------------------------------------------------------------
def private_frank_wolfe(grad: Callable[[FloatArray], FloatArray], vertices: FloatArray, T: int, scale: float,
                        rng: np.random.Generator, n_rep: int = 1, theta0: FloatArray | None = None) -> FloatArray:
    """Private Frank–Wolfe over conv(vertices) (Algorithm 2 of §5), ``n_rep`` independent chains.

    Parameters
    ----------
    grad : callable
        (R, p) → (R, p): ∇L(θ; D) row-wise.
    vertices : array (k, p)
        The finite set S with C = conv(S).
    T : int
        Output θ_T after T − 1 updates (t = 1, …, T − 1, μ_t = 2/(t + 2)).
    scale : float
        Laplace scale λ of every noisy score (0 gives the non-private algorithm).
    rng : Generator
        Draws one (R, k) Laplace array per step.
    theta0 : array (p,), optional
        θ₁ (default: the first vertex's zero vector, i.e. 0 when 0 ∈ C).

    Returns
    -------
    array (n_rep, p)
    """
    _check_release("private_frank_wolfe", "private Frank–Wolfe", rng, T=(T, "count"), scale=(scale, "noise"),
                   n_rep=(n_rep, "reps"))
    V = np.asarray(vertices, dtype=float)
    if V.ndim != 2 or V.shape[0] == 0 or not np.all(np.isfinite(V)):
        raise ValueError(f"private_frank_wolfe: parameter 'vertices' must be a finite non-empty (k, p) array "
                         f"(got shape {V.shape}); assumption: C = conv(vertices) is a polytope")
    k_, p_ = V.shape
    th = np.zeros((n_rep, p_)) if theta0 is None else np.tile(np.asarray(theta0, dtype=float), (n_rep, 1))
    for t in range(1, T):
        scores = grad(th) @ V.T
        if scale > 0:
            scores = scores + rng.laplace(0.0, scale, (n_rep, k_))
        j = np.argmin(scores, axis=1)
        mu = 2.0 / (t + 2)
        th = (1 - mu) * th + mu * V[j]
    return th


#: Laplace draws per block of steps of the compiled :func:`private_fw_lasso` (memory 8 bytes each)
FW_NOISE_BLOCK = 1 << 18


def private_fw_lasso(A: FloatArray, c: FloatArray, T: int, scale: float, rng: np.random.Generator,
                     n_rep: int = 1, radius: float = 1.0, compiled: bool = True) -> FloatArray:
    """:func:`private_frank_wolfe` for LASSO over rB₁ from θ₁ = 0, on sufficient statistics, O(p) per step.

    Scores: ⟨±r e_j, 2(Aθ − c)⟩ = ±2r(Aθ − c)_j, noise drawn as (n_rep, 2p) per step in the vertex order
    of :func:`l1_vertices`, so the result equals ``private_frank_wolfe`` on the same generator.
    ``compiled`` (default) runs the steps in :func:`simulations._loops_numba.fw_l1_steps` with the
    noise of many steps drawn at once (the same numbers, in the same order, from the generator);
    ``compiled=False`` is the NumPy loop, kept as the reference (the results are bit-identical).

    Examples
    --------
    >>> import numpy as np
    >>> A, c = np.eye(2), np.array([0.5, -0.2])
    >>> th = private_fw_lasso(A, c, 50, 0.01, np.random.default_rng(0), n_rep=3)
    >>> th2 = private_fw_lasso(A, c, 50, 0.01, np.random.default_rng(0), n_rep=3, compiled=False)
    >>> bool(np.array_equal(th, th2)), th.shape
    (True, (3, 2))
    """
    _check_release("private_fw_lasso", "private Frank–Wolfe on the LASSO", rng, T=(T, "count"), scale=(scale, "noise"),
                   n_rep=(n_rep, "reps"), radius=(radius, "positive"))
    A = np.ascontiguousarray(A, dtype=float)
    c = np.ascontiguousarray(c, dtype=float)
    p_ = c.size
    if c.ndim != 1 or A.shape != (p_, p_) or not (np.all(np.isfinite(A)) and np.all(np.isfinite(c))):
        raise ValueError(f"private_fw_lasso: parameters 'A' and 'c' must be finite of shapes (p, p) and (p,) "
                         f"(got {A.shape} and {c.shape}); assumption: the LASSO's sufficient statistics")
    th = np.zeros((n_rep, p_))
    u = np.zeros((n_rep, p_))  # Aθ, row-wise
    if compiled:
        from ._loops_numba import fw_l1_steps

        # the noise of a block of steps in one draw: the generator fills (steps, n_rep, 2p) in C
        # order, i.e. the per-step (n_rep, 2p) draws one after the other, as the loop below
        block = max(1, FW_NOISE_BLOCK // max(1, n_rep * 2 * p_))
        empty = np.zeros((0, n_rep, 2 * p_))
        buf = np.empty((min(block, max(T - 1, 0)), n_rep, 2 * p_)) if scale > 0 else empty
        t = 1
        while t < T:
            steps = min(block, T - t)
            noise = _laplace_into(rng, float(scale), buf[:steps]) if scale > 0 else empty
            fw_l1_steps(th, u, A, c, noise, t, steps, float(radius), scale > 0)
            t += steps
        return th
    rows = np.arange(n_rep)
    for t in range(1, T):
        g = 2 * radius * (u - c)
        scores = np.concatenate([g, -g], axis=1)
        if scale > 0:
            scores += rng.laplace(0.0, scale, (n_rep, 2 * p_))
        j = np.argmin(scores, axis=1)
        sign = np.where(j < p_, radius, -radius)
        jj = j % p_
        mu = 2.0 / (t + 2)
        th *= 1 - mu
        th[rows, jj] += mu * sign
        u = (1 - mu) * u + mu * sign[:, None] * A[jj]
    return th


def _laplace_into(rng: np.random.Generator, scale: float, out: FloatArray) -> FloatArray:
    """``rng.laplace(0.0, scale, out.shape)`` written into ``out`` (C-contiguous), to the bit and with the
    generator left in the same state.

    ``Generator.laplace`` calls a C function per value (one uniform, a branch, libm's ``log``); drawing
    the uniforms with ``Generator.random`` and transforming them in
    :func:`simulations._loops_numba.laplace_from_uniform` costs a third as much.  ``laplace`` rejects a
    uniform equal to 0 and draws again, which shifts the stream: if a 0 is drawn (probability 2⁻⁵³ per
    value) the generator is rewound and ``laplace`` itself fills ``out``.  Where the compiled ``log`` is
    not libm's (:func:`_laplace_compiled_ok`, checked once per process), ``laplace`` fills ``out`` always.

    Examples
    --------
    >>> out = _laplace_into(np.random.default_rng(3), 0.5, np.empty((4, 3)))
    >>> bool(np.array_equal(out, np.random.default_rng(3).laplace(0.0, 0.5, (4, 3))))
    True
    """
    if not (isinstance(out, np.ndarray) and out.dtype == np.float64 and out.flags.c_contiguous
            and out.flags.writeable):
        raise ValueError("_laplace_into: parameter 'out' must be a writeable C-contiguous float64 array "
                         f"(got {type(out).__name__} {getattr(out, 'dtype', None)}, "
                         f"C-contiguous={getattr(getattr(out, 'flags', None), 'c_contiguous', None)}); "
                         "assumption: the uniforms are drawn into it in C order, as Generator.laplace fills its result")
    if not _laplace_compiled_ok():
        out[...] = rng.laplace(0.0, scale, out.shape)
        return out
    return _laplace_into_compiled(rng, scale, out)


def _laplace_into_compiled(rng: np.random.Generator, scale: float, out: FloatArray) -> FloatArray:
    """:func:`_laplace_into` by uniforms and the compiled transform (no probe; ``out`` checked by the caller)."""
    from ._loops_numba import laplace_from_uniform

    state = rng.bit_generator.state
    flat = out.reshape(-1)
    rng.random(out=flat)
    if flat.size and not flat.min() > 0.0:
        rng.bit_generator.state = state
        out[...] = rng.laplace(0.0, scale, out.shape)
        return out
    laplace_from_uniform(flat, 0.0, scale)
    return out


_LAPLACE_OK: list[bool] = []

#: uniforms at the edges of ``laplace_from_uniform``'s branches and range (multiples of 2⁻⁵³ in (0, 1), as
#: ``Generator.random`` draws them)
_LAPLACE_EDGE_U = (2.0**-53, 2.0**-52, 3 * 2.0**-53, 2.0**-30, 0.125, 0.25 - 2.0**-54, 0.25, 0.5 - 2.0**-53,
                   0.5, 0.5 + 2.0**-53, 0.75, 1 - 2.0**-30, 1 - 2.0**-52, 1 - 2.0**-53)


def _laplace_compiled_ok() -> bool:
    """Whether :func:`_laplace_into`'s compiled transform gives ``Generator.laplace``'s bits here (once per process).

    NumPy's ``random_laplace`` calls libm's ``log``; numba calls libm's too, except where it uses Intel SVML
    (``numba.config.USING_SVML``: then the NumPy path is kept without a probe).  The probe draws 10⁵ values
    both ways from one seed (two scales) and compares them bit for bit, and the edge uniforms
    ``_LAPLACE_EDGE_U`` against NumPy's formula with CPython's ``math.log`` (libm's).
    """
    if not _LAPLACE_OK:
        from ._loops_numba import laplace_from_uniform, numba_uses_svml

        ok = not numba_uses_svml()
        if ok:

            for seed, scale, n in ((20241129, 1.0, 60_000), (7, 0.37, 40_000)):
                got = _laplace_into_compiled(np.random.default_rng(seed), scale, np.empty(n))
                ok = ok and got.tobytes() == np.random.default_rng(seed).laplace(0.0, scale, n).tobytes()
            u = np.array(_LAPLACE_EDGE_U)
            got = u.copy()
            laplace_from_uniform(got, 0.0, 1.7)
            ref = np.array([0.0 - 1.7 * math.log(2.0 - x - x) if x >= 0.5 else 0.0 + 1.7 * math.log(x + x) for x in u])
            ok = ok and got.tobytes() == ref.tobytes()
        _LAPLACE_OK.append(bool(ok))
    return _LAPLACE_OK[0]


# --------------------------------------------------------------------------------------
# private mirror descent
# --------------------------------------------------------------------------------------
def private_mirror_descent(grad: Callable[[FloatArray], FloatArray], p: int, geometry: str, T: int, eta: float,
                           sigma: float, rng: np.random.Generator, n_rep: int = 1,
                           radius: float = 1.0) -> FloatArray:
    """Noisy mirror descent (Algorithm 1 of §3), ``n_rep`` chains; returns the average of θ_1..θ_T.

    ``geometry``:

    ``"l2"``
        Ψ = ‖θ‖²/2 on the ℓ2 ball of radius r: θ ← Π(θ − η(∇L(θ) + b)), θ₁ = 0.
    ``"l1"``
        entropy on 2p weights w (θ = r(w₊ − w₋)): w ∝ w·exp(−η r(g, −g)), w₁ uniform (θ₁ = 0).
    ``"simplex"``
        entropy on p weights (θ = w), w₁ uniform.

    b ~ N(0, σ²I_p) is drawn fresh for every step and chain.
    """
    if geometry not in ("l2", "l1", "simplex"):
        raise ValueError(f"parameter 'geometry' = {geometry!r} must be 'l2', 'l1' or 'simplex'")
    _check_release("private_mirror_descent", "noisy mirror descent", rng, p=(p, "count"), T=(T, "count"),
                   eta=(eta, "positive"), sigma=(sigma, "noise"), n_rep=(n_rep, "reps"), radius=(radius, "positive"))
    if geometry == "l2":
        th = np.zeros((n_rep, p))
        acc = np.zeros((n_rep, p))
        for _ in range(T):
            acc += th
            g = grad(th) + sigma * rng.standard_normal((n_rep, p))
            th = project_l2_ball(th - eta * g, radius)
        return acc / T
    m = 2 * p if geometry == "l1" else p
    logw = np.full((n_rep, m), -math.log(m))

    def theta_of(lw: FloatArray) -> FloatArray:
        w = np.exp(lw)
        return radius * (w[:, :p] - w[:, p:]) if geometry == "l1" else w

    acc = np.zeros((n_rep, p))
    for _ in range(T):
        th = theta_of(logw)
        acc += th
        g = grad(th) + sigma * rng.standard_normal((n_rep, p))
        gw = radius * np.concatenate([g, -g], axis=1) if geometry == "l1" else g
        logw = logw - eta * gw
        mx = logw.max(axis=1, keepdims=True)
        logw -= mx + np.log(np.exp(logw - mx).sum(axis=1, keepdims=True))
    return acc / T


#: standard normal draws per block of steps of the compiled :func:`private_mirror_descent_linear`
MD_NOISE_BLOCK = 1 << 18

_MD_GEOMETRY = {"l2": 0, "l1": 1, "simplex": 2}


def private_mirror_descent_linear(G: FloatArray, geometry: str, T: int, eta: float, sigma: float,
                                  rng: np.random.Generator, radius: float = 1.0,
                                  compiled: bool = True) -> FloatArray:
    """:func:`private_mirror_descent` for linear losses: chain r has the constant gradient ``G[r]``.

    The result equals ``private_mirror_descent(lambda th: G, G.shape[1], geometry, T, eta, sigma, rng,
    n_rep=G.shape[0], radius=radius)`` to the bit, and the generator ends in the same state.
    ``compiled`` (default) runs the steps in :func:`simulations._loops_numba.md_linear_steps` with
    the noise of many steps drawn at once (the same numbers in the same order); the entropy
    geometries (``l1``, ``simplex``) use libm's ``exp`` and ``log`` there, so they are compiled only
    where NumPy's ``np.exp`` / ``np.log`` give libm's values (:func:`_md_entropy_compiled_ok`, checked
    once per process); elsewhere, and with ``compiled=False``, the NumPy loop runs.

    Examples
    --------
    >>> G = np.zeros((3, 4)); G[:, 0] = -0.5
    >>> a = private_mirror_descent_linear(G, "l1", 20, 0.1, 0.3, np.random.default_rng(0))
    >>> b = private_mirror_descent(lambda th: G, 4, "l1", 20, 0.1, 0.3, np.random.default_rng(0), n_rep=3)
    >>> bool(np.array_equal(a, b)), a.shape
    (True, (3, 4))
    """
    G = np.ascontiguousarray(G, dtype=float)
    if G.ndim != 2 or G.shape[1] == 0:
        raise ValueError(f"private_mirror_descent_linear: parameter 'G' must be a (n_rep, p) array of gradient rows "
                         f"(got shape {G.shape}); assumption: a linear loss, one constant gradient per chain")
    n_rep, p = G.shape
    if geometry not in _MD_GEOMETRY:
        raise ValueError(f"parameter 'geometry' = {geometry!r} must be 'l2', 'l1' or 'simplex'")
    if not compiled or (geometry != "l2" and not _md_entropy_compiled_ok()):
        return private_mirror_descent(lambda th: G, p, geometry, T, eta, sigma, rng, n_rep=n_rep, radius=radius)
    _check_release("private_mirror_descent", "noisy mirror descent", rng, p=(p, "count"), T=(T, "count"),
                   eta=(eta, "positive"), sigma=(sigma, "noise"), n_rep=(n_rep, "reps"), radius=(radius, "positive"))
    from ._loops_numba import md_linear_steps

    if geometry == "l2":
        state = np.zeros((n_rep, p))
    else:
        m = 2 * p if geometry == "l1" else p
        state = np.full((n_rep, m), -math.log(m))
    acc = np.zeros((n_rep, p))
    block = max(1, MD_NOISE_BLOCK // max(1, n_rep * p))
    buf = np.empty((min(block, T), n_rep, p))
    t = 0
    while t < T:
        steps = min(block, T - t)
        z = buf[:steps]
        rng.standard_normal(out=z)       # the per-step (n_rep, p) draws one after the other
        md_linear_steps(state, acc, G, z, steps, float(eta), float(sigma), float(radius), _MD_GEOMETRY[geometry])
        t += steps
    return acc / T


_MD_ENTROPY_OK: list[bool] = []


def _md_entropy_compiled_ok() -> bool:
    """Whether the compiled entropy steps give NumPy's bits on this machine (once per process).

    NumPy's ``np.exp`` / ``np.log`` of float64 are libm's on most x86-64 builds (AVX2), but an AVX-512
    build has its own vectorised versions whose last bits differ; the compiled loop calls libm (Intel SVML
    where numba uses it: then the NumPy loop is kept without a probe).  The probe runs both ways and
    compares exactly: 8 chains, p = 64, 40 steps, both entropy geometries (about 60 000 values of ``exp``
    of moderate log-weights), then 3 steps whose gradients ``_MD_PROBE_EXTREME`` (times η = 1) put the
    log-weights at −690…−760 (``exp`` subnormal, 0 below −745.13), −708.4, −709.8, −10³ … −3·10³, tiny
    and 0 (``exp(+0.0)``), in each geometry; two of its rows make ℓ1's θ_j subnormal (the weights of both
    signs subnormal), where a subnormal ``exp`` reaches the result.  Positive arguments are out of reach (log-weights ≤ 0 after
    the normalisation, ``logw − max ≤ 0``); ``log`` sees the sums in [1, 2p].
    """
    if not _MD_ENTROPY_OK:
        from ._loops_numba import md_linear_steps, numba_uses_svml

        ok = not numba_uses_svml()
        if ok:
            G = np.linspace(-1.0, 1.0, 8 * 64).reshape(8, 64)
            z = np.random.default_rng(12345).standard_normal((40, 8, 64))
            E = np.array(_MD_PROBE_EXTREME)
            # rows 4, 5: one gradient 725 / 730, the others in (0, 17]: in the ℓ1 geometry both weights of those
            # coordinates are subnormal, and so is θ_j = w₊ − w₋ (visible in the average, which starts at 0)
            Gx = np.vstack([E[None, :] + np.array([0.0, 0.173, 1.25, 2.0**-20])[:, None],
                            np.append(np.linspace(0.25, 17.0, 63), 725.0), np.append(np.linspace(0.1, 12.0, 63), 730.0)])
            zx = np.random.default_rng(54321).standard_normal((3,) + Gx.shape)
            for G_, z_, eta, sigma in ((G, z, 0.7, 1.3), (Gx, zx, 1.0, 1e-3)):
                R, p = G_.shape
                T = z_.shape[0]
                for geometry, m in (("l1", 2 * p), ("simplex", p)):
                    state = np.full((R, m), -math.log(m))
                    acc = np.zeros((R, p))
                    md_linear_steps(state, acc, G_, z_, T, eta, sigma, 1.0, _MD_GEOMETRY[geometry])
                    ref = private_mirror_descent(lambda th, G_=G_: G_, p, geometry, T, eta, sigma, _Replay(z_),
                                                 n_rep=R)
                    ok = ok and (acc / T).tobytes() == ref.tobytes()
        _MD_ENTROPY_OK.append(bool(ok))
    return _MD_ENTROPY_OK[0]


#: gradients of the probe's extreme steps: with η = 1 the log-weights move by about −g per step
_MD_PROBE_EXTREME = tuple(np.linspace(690.0, 760.0, 36).tolist()) + (
    0.0, 2.0**-60, 1e-300, 0.5, 1.0, 30.0, 700.0, 708.39, 708.4, 709.78, 709.79, 744.44, 745.13, 745.14, 746.0,
    1e3, 1.5e3, 2e3, 1e4, 5.0, 50.0, 100.0, 300.0, 600.0, 650.0, 680.0, 720.5, 740.0)


class _Replay(np.random.Generator):
    """A generator whose ``standard_normal`` returns the given per-step draws in turn (for the probe)."""

    def __init__(self, z: FloatArray) -> None:
        super().__init__(np.random.PCG64(0))
        self._z = iter(z)

    def standard_normal(self, size: Any = None, *args: Any, **kwargs: Any) -> FloatArray:  # type: ignore[override]
        return next(self._z).copy()


# --------------------------------------------------------------------------------------
# Gaussian widths
# --------------------------------------------------------------------------------------
def _sup(set_: str, G: FloatArray, dims: tuple[int, ...]) -> FloatArray:
    if set_ == "l2":
        return np.linalg.norm(G, axis=1)
    if set_ == "l1":
        return np.max(np.abs(G), axis=1)
    if set_ == "simplex":
        return np.max(G, axis=1)
    if set_ == "group":
        s_, ng_ = dims
        return np.max(np.linalg.norm(G.reshape(-1, ng_, s_), axis=2), axis=1)
    if set_ == "nuclear":
        p1_, p2_ = dims
        return np.linalg.norm(G.reshape(-1, p1_, p2_), ord=2, axis=(1, 2))
    raise ValueError(f"unknown set {set_!r}; known: l2, l1, simplex, group, nuclear")


def gaussian_width_mc(set_: str, dims: tuple[int, ...], n_mc: int, rng: np.random.Generator,
                      confidence: float = 0.95, batch: int = 4096) -> tuple[float, float, float]:
    """Monte Carlo estimate of the Gaussian width E sup_C⟨θ, g⟩ with a Student-t interval.

    Parameters
    ----------
    set_ : {"l2", "l1", "simplex", "group", "nuclear"}
        Unit ℓ2 ball, unit ℓ1 ball, simplex (``dims = (p,)``), grouped ℓ1/ℓ2 unit ball
        (``dims = (s, n_groups)``) or unit nuclear-norm ball (``dims = (p1, p2)``).
    n_mc : int
        Number of Gaussian draws (≥ 2).

    Returns
    -------
    (mean, lo, hi)

    Examples
    --------
    >>> m, lo, hi = gaussian_width_mc("l2", (10,), 20000, np.random.default_rng(1))
    >>> bool(lo < stats.chi(10).mean() < hi)           # the width of the unit ℓ2 ball: E‖g‖ (chi mean)
    True
    """
    D = int(np.prod(dims))
    vals = []
    left = n_mc
    while left > 0:
        b = min(batch, left)
        vals.append(_sup(set_, rng.standard_normal((b, D)), dims))
        left -= b
    v = np.concatenate(vals)
    m = float(v.mean())
    se = float(v.std(ddof=1) / math.sqrt(v.size))
    q = float(stats.t.ppf(0.5 + confidence / 2, v.size - 1))
    return m, m - q * se, m + q * se
