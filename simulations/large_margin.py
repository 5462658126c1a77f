r"""The large-margin multiclass Gaussian classifier and its objective perturbation.

Pathak & Raj, PSDML 2010 (LNCS 6549), §3–§4.  One
(d+1)×(d+1) positive semidefinite matrix Φ_c per class c = 0..K−1, the score
x̃ᵀΦ_c x̃ with x̃ = (x, 1) (equations (1)–(3)), the decision rule
y = argmin_c x̃ᵀΦ_c x̃, and the objective (5)/(8)

.. math::  J(Φ) = \sum_i \sum_{c \ne y_i} \ell_h(u_{ic}) + λ \sum_c \mathrm{tr}(I_Φ Φ_c I_Φ),
           \qquad u_{ic} = x̃_i^T(Φ_{y_i} − Φ_c)x̃_i,

.. math::  J_p(Φ) = J(Φ) + \sum_c \sum_{ij} b_{ij} Φ_{cij}
                  = L(Φ) + \sum_c ⟨B, Φ_c⟩,\qquad B = λ I_Φ + (b + b^T)/2.

Losses (``loss=``):

``"corrected"`` (default)
    the derived form of (6) in ``pr.eq6.huber``: Chapelle's C¹ smoothing of [u]₊,
    0 for u < −h, (u + h)²/(4h) on |u| ≤ h, u for u > h (convex, 0 ≤ ℓ' ≤ 1, ℓ'' ≤ 1/(2h)).
``"margin"``
    the same smoothing of the hinge [1 + u]₊ of (4) (the margin that (6) drops): ℓ(u + 1).
``"paper"``
    (6) exactly as printed: 0 for u < −h, (h − u)²/(4h) on |u| ≤ h, −u for u > h.  It is
    discontinuous and decreasing for u > h, so J itself is unbounded below
    (:func:`paper_loss_unbounded_ray`); the solver refuses it.

Solver (:func:`solve`).  J_p is bounded below on the PSD cone **iff B ⪰ 0**:
the loss is invariant under the common shift Φ_c → Φ_c + A (all c), so for
vᵀBv < 0 the ray Φ_c = t·vvᵀ gives J_p = L(0) + tK·vᵀBv → −∞ (an exact witness);
conversely B ⪰ 0 gives J_p ≥ L ≥ 0.  Since B_{d+1,d+1} = b_{d+1,d+1} and the noise
is symmetric, P[bounded] ≤ 1/2 for every ε and λ.  For B ⪰ 0 the solver runs
accelerated projected gradient (FISTA with backtracking and adaptive restart;
projection = eigenvalue clipping of each Φ_c) and certifies the value with a
Fenchel dual lower bound: ℓ(u) = max_{a∈[0,1]} a(u + m) + h·a(1 − a) (m = 0, or 1
for ``margin``) gives

.. math::  \inf_{Φ ⪰ 0} J_p ≥ D(α) = \sum_{ic} [α_{ic} m + h α_{ic}(1 − α_{ic})]
           \quad\text{whenever } S_c(α) = B + \sum_i W_{ic}(α) x̃_i x̃_i^T ⪰ 0\ \forall c,

with W_{ic} = 1[y_i = c] Σ_{c'} α_{ic'} − α_{ic} (S_c(ℓ'(u(Φ))) is ∂J_p/∂Φ_c).  The
dual point is α = t·ℓ'(u(Φ)) with the largest t ∈ [0, 1] keeping every S_c ⪰ 0
(bisection).  For b = 0, B = λI_Φ is singular: Σ_c S_c = KλI_Φ forces the last
row and column of every S_c to vanish, so α is first moved onto those linear
equalities (alternating projections with the box).  The certificate is the
relative duality gap (J_p(Φ) − D(α))/max(1, |J_p(Φ)|): a rigorous bound on the
sub-optimality of the returned *value*.  A run that does not reach the
tolerance raises :class:`~simulations.solvers.CertificateError` (or returns a
result with ``status="not_converged"``); a truncated iterate is never returned
as a solution.

Batched solver (:func:`solve_batch`): the m noise draws of one data set solved as one vectorised
problem (batch axis, per-problem step sizes, restarts and convergence), problem j bit for bit the
iteration and certificate of ``solve(..., b=b[j])``.

Compiled solver (``solve(..., compiled=True)``, ``solve_batch(..., compiled=True)``;
:mod:`simulations._large_margin_numba`): the same iteration and dual bound in nopython mode, one
problem after another (Jacobi eigendecompositions, packed symmetric storage, lazily evaluated
gradients), 20–70× faster per iteration than :func:`solve` on these (d+1)×(d+1) problems.  Its
iterates equal :func:`solve`'s up to rounding, not bit for bit; since the adaptive restarts and
the certificate of a stalled run react to rounding, a problem whose certified gap stalls near
``tol`` may be certified by one engine and not the other (as it may by :func:`solve` itself when b
moves by one ulp).  Every ``"optimal"`` result is certified by its own dual bound.  The NumPy
paths stay the reference (default ``compiled=False``).

Noise (§4, (7)): b has density ∝ exp(−ε‖b‖_F/2) on (d+1)×(d+1) matrices; exactly,
‖b‖_F ~ Γ((d+1)², 2/ε) (``pr.s4.norm_law``) and b/‖b‖_F uniform on the sphere.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X, y = gaussian_classes(30, d=1, K=2, rng=rng)
>>> res = solve(X, y, K=2, lam=1.0, h=0.5, cone="closure")   # inf of J (non-private) over the PSD cone
>>> res.status, res.certificate.ok
('optimal', True)
>>> try:                                               # on the PSD cone itself inf J is not attained
...     solve(X, y, K=2, lam=1.0, h=0.5, max_iter=1000)
... except CertificateError as err:
...     print(err.result.status, err.result.Phi)
not_converged None
>>> b = -np.eye(2)                                     # b_(d+1,d+1) < 0: J_p unbounded below
>>> r2 = solve(X, y, K=2, lam=1.0, h=0.5, b=b)
>>> r2.status, r2.slope < 0
('unbounded', True)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from types import ModuleType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .solvers import Certificate, CertificateError

Loss = Literal["corrected", "margin", "paper"]
LOSSES: tuple[str, ...] = ("corrected", "margin", "paper")
FloatArray = NDArray[np.float64]

__all__ = [
    "LOSSES", "LMResult", "huber", "huber_prime", "augment", "scores", "margins", "loss_value",
    "loss_grad", "objective", "perturbed_objective", "regulariser", "sym", "b_matrix",
    "is_bounded_below", "unbounded_direction", "dual_lower_bound", "solve", "solve_batch",
    "predict",
    "sample_perturbation", "norm_law", "gaussian_classes", "paper_loss_unbounded_ray",
    "per_example_class_grad", "random_psd", "kkt_residual", "i_phi",
]


# --------------------------------------------------------------------------- the loss (6)
def _margin_shift(loss: str) -> float:
    if loss not in LOSSES:
        raise ValueError(f"parameter 'loss' = {loss!r} is not one of {LOSSES}")
    return 1.0 if loss == "margin" else 0.0


def huber(u: ArrayLike, h: float, loss: Loss = "corrected") -> FloatArray:
    """The Huber-smoothed hinge ℓ_h(u) of Pathak & Raj §3, equation (6).

    Parameters
    ----------
    u : array
        Margins u = x̃ᵀ(Φ_y − Φ_c)x̃.
    h : float
        Half-width of the smoothing (> 0).
    loss : {"corrected", "margin", "paper"}
        See the module docstring; ``"paper"`` is (6) as printed.

    Examples
    --------
    >>> [float(v) for v in huber([-1.0, 0.0, 0.25, 2.0], 0.5)]
    [0.0, 0.125, 0.28125, 2.0]
    >>> [float(v) for v in huber([-1.0, 0.0, 2.0], 0.5, loss="paper")]   # printed (6): −u for u > h
    [0.0, 0.125, -2.0]
    """
    uu = np.asarray(u, dtype=float)
    if loss == "paper":
        return np.where(uu < -h, 0.0, np.where(uu > h, -uu, (h - uu) ** 2 / (4 * h)))
    v = uu + _margin_shift(loss)
    return np.where(v < -h, 0.0, np.where(v > h, v, (v + h) ** 2 / (4 * h)))


def huber_prime(u: ArrayLike, h: float, loss: Loss = "corrected") -> FloatArray:
    """ℓ_h'(u) (Pathak & Raj, (6); for ``"paper"`` the derivative of each printed piece).

    Examples
    --------
    >>> [float(v) for v in huber_prime([-1.0, 0.0, 2.0], 0.5)]
    [0.0, 0.5, 1.0]
    """
    uu = np.asarray(u, dtype=float)
    if loss == "paper":
        return np.where(uu < -h, 0.0, np.where(uu > h, -1.0, -(h - uu) / (2 * h)))
    v = uu + _margin_shift(loss)
    return np.clip((v + h) / (2 * h), 0.0, 1.0)


# --------------------------------------------------------------------------- the model (1)–(5)
def augment(X: ArrayLike) -> FloatArray:
    """x̃ = (x, 1) for every row (Pathak & Raj, §3, after (2))."""
    Xa = np.atleast_2d(np.asarray(X, dtype=float))
    return np.hstack([Xa, np.ones((Xa.shape[0], 1))])


def sym(b: ArrayLike) -> FloatArray:
    """(b + bᵀ)/2: ⟨b, Φ⟩ = ⟨sym(b), Φ⟩ for symmetric Φ."""
    bb = np.asarray(b, dtype=float)
    return 0.5 * (bb + np.swapaxes(bb, -1, -2))


def i_phi(d: int) -> FloatArray:
    """I_Φ: the (d+1)×(d+1) identity with its last diagonal entry set to zero (Pathak & Raj, (5))."""
    return np.diag([1.0] * d + [0.0])


def b_matrix(lam: float, b: ArrayLike | None, d: int) -> FloatArray:
    """B = λI_Φ + sym(b): the gradient of the linear part of J_p (Pathak & Raj, (9))."""
    B = lam * i_phi(d)
    return B if b is None else B + sym(b)


def scores(Phi: ArrayLike, X: ArrayLike) -> FloatArray:
    """x̃_iᵀΦ_c x̃_i, shape (n, K) (Pathak & Raj, (3))."""
    Xt = augment(X)
    return np.einsum("ni,kij,nj->nk", Xt, np.asarray(Phi, dtype=float), Xt)


def predict(Phi: ArrayLike, X: ArrayLike) -> NDArray[np.int64]:
    """The decision rule (3): argmin_c x̃ᵀΦ_c x̃."""
    return np.argmin(scores(Phi, X), axis=1)


def margins(Phi: ArrayLike, X: ArrayLike, y: ArrayLike) -> tuple[FloatArray, NDArray[np.bool_]]:
    """u_ic = x̃_iᵀ(Φ_{y_i} − Φ_c)x̃_i (n, K) and the mask c ≠ y_i."""
    q = scores(Phi, X)
    yy = np.asarray(y, dtype=int)
    u = q[np.arange(q.shape[0]), yy][:, None] - q
    mask = np.ones_like(u, dtype=bool)
    mask[np.arange(q.shape[0]), yy] = False
    return u, mask


def loss_value(Phi: ArrayLike, X: ArrayLike, y: ArrayLike, h: float, loss: Loss = "corrected") -> float:
    """L(Φ) = Σ_i Σ_{c≠y_i} ℓ_h(u_ic) (Pathak & Raj, (5), with the loss of (6))."""
    u, mask = margins(Phi, X, y)
    return float(np.sum(huber(u, h, loss)[mask]))


def _weights(alpha: FloatArray, y: NDArray[np.int64]) -> FloatArray:
    """W_ic = 1[y_i = c]·Σ_{c'} α_ic' − α_ic (α zero on the mask c = y_i)."""
    W = -alpha.copy()
    W[np.arange(alpha.shape[0]), y] += alpha.sum(axis=1)
    return W


def _outer(X: ArrayLike) -> FloatArray:
    Xt = augment(X)
    return np.einsum("ni,nj->nij", Xt, Xt)


def loss_grad(Phi: ArrayLike, X: ArrayLike, y: ArrayLike, h: float, loss: Loss = "corrected") -> FloatArray:
    """∂L/∂Φ_c for every c, shape (K, d+1, d+1) (Pathak & Raj, proof of Lemma 1, summed over i).

    Examples
    --------
    >>> import numpy as np
    >>> G = loss_grad(np.zeros((2, 2, 2)), np.array([[0.5]]), np.array([0]), h=0.5)
    >>> np.allclose(G.sum(axis=0), 0)          # L is invariant under a common shift of all Φ_c
    True
    """
    yy = np.asarray(y, dtype=int)
    u, mask = margins(Phi, X, yy)
    a = np.where(mask, huber_prime(u, h, loss), 0.0)
    return np.einsum("nc,nij->cij", _weights(a, yy), _outer(X))


def per_example_class_grad(Phi: ArrayLike, x: ArrayLike, y: int, c: int, h: float,
                           loss: Loss = "corrected") -> FloatArray:
    """∂/∂Φ_c of one example's loss Σ_{c'≠y} ℓ_h(x̃ᵀ(Φ_y − Φ_c')x̃) (the object of Pathak & Raj, Lemma 1)."""
    return loss_grad(Phi, np.atleast_2d(np.asarray(x, dtype=float)), np.array([int(y)]), h, loss)[int(c)]


def regulariser(Phi: ArrayLike, lam: float) -> float:
    """N(Φ) = λ Σ_c trace(I_Φ Φ_c I_Φ) (Pathak & Raj, (5)): λ times the traces of the upper-left d×d blocks."""
    P = np.asarray(Phi, dtype=float)
    return float(lam * np.einsum("kii->", P[:, :-1, :-1]))


def objective(Phi: ArrayLike, X: ArrayLike, y: ArrayLike, lam: float, h: float, loss: Loss = "corrected") -> float:
    """J(Φ) = L(Φ) + N(Φ) (Pathak & Raj, (5) with (6))."""
    return loss_value(Phi, X, y, h, loss) + regulariser(Phi, lam)


def perturbed_objective(Phi: ArrayLike, X: ArrayLike, y: ArrayLike, lam: float, h: float, b: ArrayLike,
                        loss: Loss = "corrected") -> float:
    """J_p(Φ) = J(Φ) + Σ_c Σ_ij b_ij Φ_cij (Pathak & Raj, (8))."""
    P = np.asarray(Phi, dtype=float)
    return objective(P, X, y, lam, h, loss) + float(np.einsum("ij,kij->", np.asarray(b, dtype=float), P))


# --------------------------------------------------------------------------- boundedness
def is_bounded_below(lam: float, b: ArrayLike | None, d: int, tol: float = 0.0) -> bool:
    """J_p bounded below on the PSD cone ⟺ λI_Φ + sym(b) ⪰ 0 (see the module docstring).

    Examples
    --------
    >>> import numpy as np
    >>> is_bounded_below(1.0, np.diag([0.5, 0.1]), 1), is_bounded_below(1.0, np.diag([0.5, -0.1]), 1)
    (True, False)
    """
    return bool(np.linalg.eigvalsh(b_matrix(lam, b, d))[0] >= -tol)


def unbounded_direction(lam: float, b: ArrayLike | None, d: int, K: int) -> tuple[FloatArray, float]:
    """A PSD direction D (the same vvᵀ for every class) and the exact slope dJ_p(Φ + tD)/dt = K·vᵀBv.

    Along D every margin u_ic is unchanged, so the loss is constant and J_p decreases linearly when the
    slope is negative.
    """
    w, V = np.linalg.eigh(b_matrix(lam, b, d))
    v = V[:, 0]
    D = np.broadcast_to(np.outer(v, v), (K, d + 1, d + 1)).copy()
    return D, float(K * w[0])


def paper_loss_unbounded_ray(X: ArrayLike, y: ArrayLike, K: int, lam: float, h: float,
                             t: float = 1e3) -> tuple[float, float]:
    """J with the printed (6) at Φ = 0 and along Φ_{y_0} = t·e_{d+1}e_{d+1}ᵀ (every other Φ_c = 0).

    All examples of class y_0 get u = t > h (loss −t each), the others u = −t < −h (loss 0), and the
    regulariser does not see the last diagonal entry: J → −∞ linearly.  Returns (J(0), J(ray)).
    """
    Xa = np.atleast_2d(np.asarray(X, dtype=float))
    d = Xa.shape[1]
    yy = np.asarray(y, dtype=int)
    Phi = np.zeros((K, d + 1, d + 1))
    j0 = objective(Phi, Xa, yy, lam, h, loss="paper")
    Phi[yy[0], d, d] = t
    return j0, objective(Phi, Xa, yy, lam, h, loss="paper")


# --------------------------------------------------------------------------- the dual certificate
def _min_eig(S: FloatArray) -> float:
    return float(np.min(np.linalg.eigvalsh(S)))


def _repair_equalities(alpha: FloatArray, mask: NDArray[np.bool_], y: NDArray[np.int64], Xt: FloatArray,
                       iters: int = 50) -> FloatArray:
    """Move α onto {Σ_i W_ic(α) x̃_i = 0 ∀c} ∩ [0, 1]: least-norm corrections of the entries strictly
    inside the box (then of all entries), clipped, until the residual is at rounding level."""
    n, K = alpha.shape
    idx = np.flatnonzero(mask.ravel())
    # linear map α (masked entries) → stacked Σ_i W_ic x̃_i, c = 0..K−1
    A = np.zeros((K * Xt.shape[1], idx.size))
    for col, flat in enumerate(idx):
        i, c = divmod(int(flat), K)
        A[c * Xt.shape[1]:(c + 1) * Xt.shape[1], col] -= Xt[i]
        A[y[i] * Xt.shape[1]:(y[i] + 1) * Xt.shape[1], col] += Xt[i]
    a = alpha.ravel()[idx].copy()
    scale = 1e-14 * max(1.0, float(np.abs(A).sum()))
    for _ in range(iters):
        r = A @ a
        if np.linalg.norm(r) <= scale:
            break
        free = (a > 1e-12) & (a < 1 - 1e-12)  # move the entries strictly inside the box first
        if free.any() and np.linalg.matrix_rank(A[:, free]) == np.linalg.matrix_rank(A):
            a[free] -= np.linalg.pinv(A[:, free]) @ r
        else:
            a -= np.linalg.pinv(A) @ r
        a = np.clip(a, 0.0, 1.0)
    out = np.zeros(n * K)
    out[idx] = a
    return out.reshape(n, K)


def dual_lower_bound(Phi: ArrayLike, X: ArrayLike, y: ArrayLike, K: int, lam: float, h: float,
                     b: ArrayLike | None = None, loss: Loss = "corrected") -> tuple[float, dict]:
    """A certified lower bound D(α) ≤ inf_{Φ⪰0} J_p from the primal point Φ (module docstring).

    Returns
    -------
    (D, info)
        ``info`` has ``t`` (the scaling of ℓ'(u(Φ)) that made the dual point feasible),
        ``min_eig`` (the smallest eigenvalue of the S_c at the dual point) and ``repaired``.
    """
    if loss == "paper":
        raise ValueError("the printed (6) is not convex: no dual bound (use loss='corrected' or 'margin')")
    Xa = np.atleast_2d(np.asarray(X, dtype=float))
    yy = np.asarray(y, dtype=int)
    d = Xa.shape[1]
    B = b_matrix(lam, b, d)
    u, mask = margins(Phi, Xa, yy)
    alpha = np.where(mask, huber_prime(u, h, loss), 0.0)
    Xt = augment(Xa)
    XX = _outer(Xa)
    repaired = False
    scaleB = max(1.0, float(np.max(np.abs(B))))
    tol = 1e-11 * scaleB * max(1, Xa.shape[0])
    if _min_eig(B) <= tol:  # B singular (b = 0): S_c ⪰ 0 needs the last rows to vanish
        alpha = _repair_equalities(alpha, mask, yy, Xt)
        repaired = True
    M = np.einsum("nc,nij->cij", _weights(alpha, yy), XX)

    def feasible(t: float) -> bool:
        return all(_min_eig(B + t * M[c]) >= -tol for c in range(K))

    if feasible(1.0):
        t = 1.0
    elif not feasible(0.0):
        return -math.inf, {"t": 0.0, "min_eig": _min_eig(B), "repaired": repaired}
    else:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = 0.5 * (lo + hi)
            if feasible(mid):
                lo = mid
            else:
                hi = mid
        t = lo
    a = t * alpha[mask]
    m = _margin_shift(loss)
    D = float(np.sum(a * m + h * a * (1 - a)))
    me = min(_min_eig(B + t * M[c]) for c in range(K))
    return D, {"t": t, "min_eig": me, "repaired": repaired}


# --------------------------------------------------------------------------- the solver
@dataclass
class LMResult:
    """Outcome of :func:`solve`.

    Attributes
    ----------
    status : str
        ``"optimal"`` (certified), ``"unbounded"`` (J_p unbounded below; exact witness in
        ``direction``/``slope``) or ``"not_converged"`` (only with ``on_failure="return"``).
    Phi : array (K, d+1, d+1) or None
        The certified iterate (``None`` when unbounded; the uncertified last iterate is in
        ``details["last_iterate"]`` when not converged, never here).
    value : float
        J_p(Φ) at the returned iterate (−inf when unbounded).
    lower : float
        The dual lower bound on inf J_p.
    certificate : Certificate
        Relative duality gap, tolerance, iterations (``details``).
    direction, slope
        For ``"unbounded"``: D (same vvᵀ in every class) and dJ_p(tD)/dt < 0.
    """

    status: str
    Phi: FloatArray | None
    value: float
    lower: float
    certificate: Certificate
    direction: FloatArray | None = None
    slope: float = 0.0
    details: dict = field(default_factory=dict)


def _project_psd(P: FloatArray) -> FloatArray:
    """Euclidean projection of each Φ_c onto the PSD cone (eigenvalue clipping)."""
    w, V = np.linalg.eigh(0.5 * (P + np.swapaxes(P, -1, -2)))
    return np.einsum("kij,kj,klj->kil", V, np.maximum(w, 0.0), V)


def _project_closure(P: FloatArray) -> FloatArray:
    """Projection onto {Φ_c symmetric: upper-left d×d block ⪰ 0} (last row and column free)."""
    Q = 0.5 * (P + np.swapaxes(P, -1, -2))
    Q[:, :-1, :-1] = _project_psd(Q[:, :-1, :-1])
    return Q


# --------------------------------------------------------------------------- the compiled path
def _numba_kernels() -> ModuleType | None:
    """:mod:`simulations._large_margin_numba` (:func:`simulations._compiled.compiled_module`), or None: NumPy path."""
    from ._compiled import compiled_module

    return compiled_module("_large_margin_numba")


def _run_compiled(nbk: ModuleType, Xa: FloatArray, yy: NDArray[np.int64], K: int, h: float,
                  loss: str, Bm: FloatArray, P0: FloatArray, cone: str, tol: float,
                  max_iter: int, check_every: int) -> dict:
    """Run :func:`simulations._large_margin_numba.solve_problems` on the m problems B_j = ``Bm[j]``
    (bounded: B_j ⪰ 0) from the projected starts ``P0`` (m, K, d+1, d+1); the raw arrays.

    The dual's tolerance and the choice of the equality repair (λ_min(B_j) ≤ tol) are made here
    exactly as :func:`dual_lower_bound` makes them (LAPACK's eigvalsh of B_j).
    """
    n, d = Xa.shape
    D1, m = d + 1, Bm.shape[0]
    pi, qi = np.triu_indices(D1)
    Xt = augment(Xa)
    XXu = np.ascontiguousarray(Xt[:, pi] * Xt[:, qi])
    XXw = np.ascontiguousarray(XXu * np.where(pi == qi, 1.0, 2.0))
    Bp = np.ascontiguousarray(Bm[:, pi, qi])
    tolB = 1e-11 * np.maximum(1.0, np.max(np.abs(Bm), axis=(1, 2))) * max(1, n)
    repair = np.ascontiguousarray(np.linalg.eigvalsh(Bm)[:, 0] <= tolB)
    mask = np.ones((n, K), dtype=bool)
    mask[np.arange(n), yy] = False
    idx_i, idx_c = (np.ascontiguousarray(v, dtype=np.int64) for v in np.nonzero(mask))
    if repair.any():  # the linear map of _repair_equalities, its pseudo-inverse and rank
        Arep = np.zeros((K * D1, idx_i.size))
        for col, (i, c) in enumerate(zip(idx_i, idx_c, strict=True)):
            Arep[c * D1:(c + 1) * D1, col] -= Xt[i]
            Arep[yy[i] * D1:(yy[i] + 1) * D1, col] += Xt[i]
        pinvA, rankA = np.linalg.pinv(Arep), int(np.linalg.matrix_rank(Arep))
        rscale = 1e-14 * max(1.0, float(np.abs(Arep).sum()))
    else:
        Arep, pinvA, rankA, rscale = np.zeros((1, 1)), np.zeros((1, 1)), 0, 0.0
    x0 = np.ascontiguousarray(P0[:, :, pi, qi])
    lip0 = max(1e-3, float(np.sum(_outer(Xa) ** 2)) / (2 * h * max(1, n)))
    S = pi.size
    out_x, out_g = np.empty((m, K, S)), np.empty((m, K, S))
    out_s = np.empty((m, nbk.N_SCALARS))
    out_hist = np.full((m, max(1, max_iter // check_every), 4), np.nan)
    nbk.solve_problems(np.ascontiguousarray(XXw.T), XXu, np.ascontiguousarray(yy, dtype=np.int64),
                       float(h), _margin_shift(loss), Bp, tolB, repair, idx_i, idx_c, Arep, pinvA,
                       rankA, rscale, x0, D1 if cone == "psd" else d, lip0, float(tol),
                       int(max_iter), int(check_every), out_x, out_g, out_s, out_hist)
    Phi = np.empty((m, K, D1, D1))
    Phi[:, :, pi, qi] = out_x
    Phi[:, :, qi, pi] = out_x
    return {"Phi": Phi, "scalars": out_s, "hist": out_hist}


def _compiled_result(raw: dict, j: int, tol: float, solver: str, cone: str, lambda_min_B: float,
                     extra: dict | None = None) -> LMResult:
    """The :class:`LMResult` of problem j of :func:`_run_compiled`, with the details and flags
    of :func:`solve` (``details["engine"] = "numba"``)."""
    nbk = _numba_kernels()
    sc = raw["scalars"][j]
    fx, lower = float(sc[nbk.S_VALUE]), float(sc[nbk.S_LOWER])
    x = raw["Phi"][j].copy()
    nh = int(sc[nbk.S_NHIST])
    history = [(int(r[0]), float(r[1]), float(r[2]), float(r[3])) for r in raw["hist"][j, :nh]]
    info = ({} if nh == 0 else {"t": float(sc[nbk.S_T]), "min_eig": float(sc[nbk.S_MINEIG]),
                                "repaired": bool(sc[nbk.S_REPAIRED])})
    gap = (fx - lower) / max(1.0, abs(fx)) if math.isfinite(lower) else math.inf
    details = {"iterations": int(sc[nbk.S_ITERS]), "lipschitz_estimate": float(sc[nbk.S_LIP]),
               "projected_gradient_norm": float(sc[nbk.S_PG]), "lambda_min_B": lambda_min_B,
               "norm_Phi": float(np.linalg.norm(x)), "dual": info, "cone": cone,
               "history_tail": history[-5:], **(extra or {}), "engine": "numba"}
    cert = Certificate("relative_duality_gap", float(gap), tol, bool(gap <= tol), solver=solver,
                       details=details)
    if cert.ok:
        return LMResult("optimal", x, fx, lower, cert, details=details)
    details["last_iterate"] = x
    norms = [hh[3] for hh in history[-8:]]
    vals = [hh[1] for hh in history[-8:]]
    details["diverging_norm"] = bool(
        len(norms) >= 4
        and all(b_ > a_ for a_, b_ in zip(norms[:-1], norms[1:], strict=True))
        and all(b_ <= a_ for a_, b_ in zip(vals[:-1], vals[1:], strict=True))
        and norms[-1] > 1.05 * norms[0])
    return LMResult("not_converged", None, fx, lower, cert, details=details)


def solve(X: ArrayLike, y: ArrayLike, K: int, lam: float, h: float, b: ArrayLike | None = None, *,
          loss: Loss = "corrected", tol: float = 1e-8, max_iter: int = 20000, check_every: int = 25,
          Phi0: ArrayLike | None = None, on_failure: Literal["raise", "return"] = "raise",
          cone: Literal["psd", "closure"] = "psd", compiled: bool = False) -> LMResult:
    """Minimise J_p (or J for ``b=None``) over Φ_1..Φ_K ⪰ 0 with a duality-gap certificate.

    Pathak & Raj 2010, §4, equation (8) (b = None: equation (5)).

    The unperturbed J usually has **no minimiser** on the PSD cone: the regulariser only
    charges tr Ψ_c, so a linear score term 2φ_cᵀx costs nothing in the limit Ψ_c → 0,
    Φ_c,(d+1,d+1) → ∞ (PSD needs |φ_i|² ≤ Ψ_ii Φ_(d+1,d+1)).  Since the loss only sees
    score differences (Φ_c → Φ_c + tE for all c changes nothing), inf over the PSD cone =
    min over its closure modulo common shifts, {Φ_c symmetric: upper-left d×d block ⪰ 0};
    ``cone="closure"`` (only for ``b=None``) solves that problem, whose minimum is attained
    for data that are not linearly separable.  The dual certificate is the same.

    Parameters
    ----------
    X : array (n, d)
        Inputs (Pathak & Raj assume ‖x_i‖ ≤ 1).
    y : array (n,)
        Labels in 0..K−1.
    K : int
        Number of classes (the paper's C).
    lam, h : float
        Regularisation weight λ and Huber half-width h.
    b : array (d+1, d+1), optional
        The perturbation matrix; ``None`` for the non-private objective J.
    loss : {"corrected", "margin"}
        The convex forms of (6) (``"paper"`` raises ``ValueError``).
    tol : float
        Tolerance on the relative duality gap (J_p(Φ) − D)/max(1, |J_p(Φ)|).
    max_iter, check_every : int
        Iteration budget of FISTA and how often the dual bound is evaluated.
    Phi0 : array, optional
        Warm start (projected onto the PSD cone).
    on_failure : {"raise", "return"}
        Without convergence: raise :class:`CertificateError` (default) or return
        ``status="not_converged"`` with ``Phi=None``; ``details["diverging_norm"]`` then says
        whether the iterates' norm grew while the objective fell over the last checks (an
        infimum approached at infinity, as for J on the PSD cone).
    compiled : bool
        Run the iteration and the dual bound in compiled code
        (:mod:`simulations._large_margin_numba`: the same algorithm, iterates equal up to
        rounding, ~20–70× faster per iteration; ``details["engine"] = "numba"``).  The
        default ``False`` is this NumPy implementation, the reference; without numba the
        NumPy path is used.

    Returns
    -------
    LMResult

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X, y = gaussian_classes(30, d=2, K=3, rng=rng)
    >>> b = sample_perturbation(2, 1.0, rng)
    >>> b = b + b.T + 30 * np.eye(3)                     # a bounded draw
    >>> r0 = solve(X, y, 3, lam=1.0, h=0.5, b=b, tol=1e-8)
    >>> r1 = solve(X, y, 3, lam=1.0, h=0.5, b=b, tol=1e-8, compiled=True)
    >>> r1.status, r1.certificate.ok, abs(r1.value - r0.value) <= 1e-8 * max(1, abs(r0.value))
    ('optimal', True, True)
    """
    if loss == "paper":
        raise ValueError("loss='paper' (printed (6)) is discontinuous and makes J unbounded below "
                         "(paper_loss_unbounded_ray); solve the 'corrected' or 'margin' loss")
    _margin_shift(loss)
    Xa = np.atleast_2d(np.asarray(X, dtype=float))
    yy = np.asarray(y, dtype=int)
    n, d = Xa.shape
    if yy.shape != (n,) or yy.min() < 0 or yy.max() >= K:
        raise ValueError(f"parameter 'y' must hold n = {n} labels in 0..{K - 1}")
    if lam < 0 or h <= 0:
        raise ValueError("parameters 'lam' ≥ 0 and 'h' > 0 are required")
    if cone not in ("psd", "closure"):
        raise ValueError(f"parameter 'cone' = {cone!r} is not 'psd' or 'closure'")
    if cone == "closure" and b is not None:
        raise ValueError("cone='closure' is for the unperturbed J only (b=None)")
    project = _project_psd if cone == "psd" else _project_closure
    B = b_matrix(lam, b, d)
    wmin = float(np.linalg.eigvalsh(B)[0])
    if wmin < -1e-12 * max(1.0, float(np.max(np.abs(B)))):
        D, slope = unbounded_direction(lam, b, d, K)
        L0 = loss_value(np.zeros((K, d + 1, d + 1)), Xa, yy, h, loss)
        cert = Certificate("unbounded_ray_slope", slope, 0.0, True, solver="large_margin.solve",
                           details={"lambda_min_B": wmin, "L0": L0})
        return LMResult("unbounded", None, -math.inf, -math.inf, cert, D, slope,
                        {"lambda_min_B": wmin, "L0": L0})

    nbk = _numba_kernels() if compiled else None
    if nbk is not None:
        P0 = np.zeros((1, K, d + 1, d + 1)) if Phi0 is None else project(np.asarray(Phi0, dtype=float))[None]
        raw = _run_compiled(nbk, Xa, yy, K, h, loss, B[None], P0, cone, tol, max_iter, check_every)
        res = _compiled_result(raw, 0, tol, "large_margin.solve", cone, wmin)
        if res.status != "optimal" and on_failure == "raise":
            raise CertificateError(res.certificate, res)
        return res

    XX = _outer(Xa)
    mask_rows = np.arange(n)

    def f_and_grad(P: FloatArray) -> tuple[float, FloatArray]:
        q = np.einsum("nij,kij->nk", XX, P)
        u = q[mask_rows, yy][:, None] - q
        u[mask_rows, yy] = -np.inf
        val = float(np.sum(huber(u, h, loss)[np.isfinite(u)]))
        a = huber_prime(u, h, loss)
        a[mask_rows, yy] = 0.0
        G = np.einsum("nc,nij->cij", _weights(a, yy), XX) + B[None]
        return val + float(np.einsum("ij,kij->", B, P)), G

    x = np.zeros((K, d + 1, d + 1)) if Phi0 is None else project(np.asarray(Phi0, dtype=float))
    fx, gx = f_and_grad(x)
    z, tk = x.copy(), 1.0
    Lip = max(1e-3, float(np.sum(XX**2)) / (2 * h * max(1, n)))  # initial guess; backtracking adapts
    best_gap, lower, it, info = math.inf, -math.inf, 0, {}
    history = []
    for it in range(1, max_iter + 1):
        fz, gz = f_and_grad(z)
        while True:
            x_new = project(z - gz / Lip)
            diff = x_new - z
            f_new, g_new = f_and_grad(x_new)
            if f_new <= fz + float(np.sum(gz * diff)) + 0.5 * Lip * float(np.sum(diff**2)) + 1e-12 * abs(fz):
                break
            Lip *= 2.0
        if f_new > fx:  # adaptive restart (O'Donoghue & Candès)
            tk = 1.0
            z = x.copy()
            Lip *= 0.95
            if it % check_every:
                continue
        else:
            t_next = 0.5 * (1 + math.sqrt(1 + 4 * tk * tk))
            z = x_new + ((tk - 1) / t_next) * (x_new - x)
            x, fx, gx, tk = x_new, f_new, g_new, t_next
            Lip *= 0.98
        if it % check_every == 0:
            lower, info = dual_lower_bound(x, Xa, yy, K, lam, h, b, loss)
            gap = (fx - lower) / max(1.0, abs(fx))
            best_gap = min(best_gap, gap)
            history.append((it, fx, gap, float(np.linalg.norm(x))))
            if gap <= tol:
                break
    gap = (fx - lower) / max(1.0, abs(fx)) if math.isfinite(lower) else math.inf
    pg = float(np.linalg.norm(x - project(x - gx)))  # norm of the projected-gradient mapping (step 1)
    details = {"iterations": it, "lipschitz_estimate": Lip, "projected_gradient_norm": pg,
               "lambda_min_B": wmin, "norm_Phi": float(np.linalg.norm(x)), "dual": info, "cone": cone,
               "history_tail": history[-5:]}
    cert = Certificate("relative_duality_gap", float(gap), tol, bool(gap <= tol), solver="large_margin.solve",
                       details=details)
    if not cert.ok:
        details["last_iterate"] = x
        norms = [hh[3] for hh in history[-8:]]
        vals = [hh[1] for hh in history[-8:]]
        # the infimum is approached at infinity: the iterates' norm keeps growing while J_p keeps falling
        details["diverging_norm"] = bool(len(norms) >= 4 and all(b_ > a_ for a_, b_ in zip(norms[:-1], norms[1:], strict=True))
                                         and all(b_ <= a_ for a_, b_ in zip(vals[:-1], vals[1:], strict=True))
                                         and norms[-1] > 1.05 * norms[0])
        res = LMResult("not_converged", None, fx, lower, cert, details=details)
        if on_failure == "raise":
            raise CertificateError(cert, res)
        return res
    return LMResult("optimal", x, fx, lower, cert, details=details)


# --------------------------------------------------------------------------- the batched solver
# solve_batch reproduces the arithmetic of solve problem by problem: every per-problem sum is
# evaluated in the order in which solve's NumPy calls evaluate it, so problem j follows solve's
# iterates bit for bit (up to the sign of zero).  Inside the iteration the arrays are laid out
# "batch last", (K, d+1, d+1, m): the elementwise work then runs over the m problems in NumPy's
# inner loops.  solve's einsum contractions are emulated by explicit products and accumulations in
# einsum's own order (its contiguous sum-of-products kernel: two SIMD lanes unrolled by four
# vectors; its strided kernel: left to right); _fast_kernels_exact() checks the emulation against
# solve's own code once per process, and solve_batch falls back to a batched np.einsum (slower)
# if it does not match.
def _lane_sum(p: FloatArray, axis: int) -> FloatArray:
    """Σ of the products p along ``axis`` in the order of einsum's contiguous sum-of-products
    kernel (two accumulators over alternate entries, blocks of eight added from the back, then
    a0 + a1)."""
    L = p.shape[axis]
    pre = (slice(None),) * axis
    term = [p[(*pre, t)] for t in range(L)]
    a0 = a1 = None
    i = 0
    while L - i >= 8:
        b0, b1 = a0, a1
        for v in (3, 2, 1, 0):
            b0 = term[i + 2 * v] if b0 is None else term[i + 2 * v] + b0
            b1 = term[i + 2 * v + 1] if b1 is None else term[i + 2 * v + 1] + b1
        a0, a1 = b0, b1
        i += 8
    while i < L:
        a0 = term[i] if a0 is None else term[i] + a0
        if i + 1 < L:
            a1 = term[i + 1] if a1 is None else term[i + 1] + a1
        i += 2
    return a0 if a1 is None else a0 + a1


_SOA = {k: (*range(1, k), 0) for k in range(1, 6)}
_AOS = {k: (k - 1, *range(k - 1)) for k in range(1, 6)}


def _to_soa(P: FloatArray) -> FloatArray:
    """(m, …) → (…, m), contiguous."""
    return np.ascontiguousarray(P.transpose(_SOA[P.ndim]))


def _to_aos(P: FloatArray) -> FloatArray:
    """(…, m) → (m, …), contiguous."""
    return np.ascontiguousarray(P.transpose(_AOS[P.ndim]))


def _rowsum(A: FloatArray) -> FloatArray:
    """Σ over all axes but the first, each row summed exactly as ``np.sum`` sums it alone
    (pairwise, on a C-contiguous copy)."""
    A = np.ascontiguousarray(A)
    return np.add.reduce(A.reshape(A.shape[0], math.prod(A.shape[1:])), axis=1)


def _norms(A: FloatArray) -> FloatArray:
    """``np.linalg.norm(A[j])`` for every j, computed as that function computes it (√(v·v))."""
    return np.sqrt([v.dot(v) for v in A.reshape(A.shape[0], math.prod(A.shape[1:]))])


def _soa_rowsum(A: FloatArray) -> FloatArray:
    """:func:`_rowsum` of a batch-last array (…, m): each problem's entries in row-major order."""
    return np.add.reduce(_to_aos(A).reshape(A.shape[-1], math.prod(A.shape[:-1])), axis=1)


class _Batch:
    """The data shared by the m problems of :func:`solve_batch` (one X, y; m matrices B)."""

    def __init__(self, Xa: FloatArray, yy: NDArray[np.int64], K: int, h: float, loss: str,
                 fast: bool) -> None:
        self.Xa, self.yy, self.K, self.h, self.loss, self.fast = Xa, yy, K, h, loss, fast
        self.n, self.D1 = Xa.shape[0], Xa.shape[1] + 1
        self.L = self.D1 * self.D1
        self.rows = np.arange(self.n)
        self.Xt = augment(Xa)
        self.XX = _outer(Xa)
        self.XXf = self.XX.reshape(self.n, -1)
        self.XXq = self.XXf[:, None, :, None]  # (n, 1, L, 1) against P (K, L, m)
        self.XXg = self.XXq
        self.mask = np.ones((self.n, K), dtype=bool)
        self.mask[self.rows, yy] = False
        flat = np.arange(self.n * K).reshape(self.n, K)
        self.im = flat[self.mask]  # flat (i, c), c ≠ y_i, row-major
        self.iy1 = flat[self.rows, yy]  # flat (i, y_i)
        self.iy = np.repeat(self.iy1, K - 1)
        self.shift = _margin_shift(loss)

    # ---- batch-last kernels (P, G: (K, D1, D1, m); B: (D1, D1, m))
    def f_and_grad(self, P: FloatArray, B: FloatArray) -> tuple[FloatArray, FloatArray]:
        """J_p(Φ_m) (m,) and ∂J_p/∂Φ_m: :func:`solve`'s ``f_and_grad`` for every problem."""
        if not self.fast:
            val, G = self._f_and_grad_einsum(_to_aos(P), _to_aos(B))
            return val, _to_soa(G)
        K, m = self.K, P.shape[-1]
        Pf = P.reshape(K, self.L, m)
        q = _lane_sum(self.XXq * Pf, axis=2).reshape(self.n * K, m)  # einsum("nij,kij->nk")
        # u_ic for c ≠ y_i only, (i, c) row-major (n(K−1), m); huber and huber_prime fused
        v = q[self.iy] - q[self.im]
        if self.shift:
            v = v + self.shift
        h = self.h
        vh = v + h
        hv = np.where(v < -h, 0.0, np.where(v > h, v, vh**2 / (4 * h)))
        val = np.add.reduce(_to_aos(hv), axis=1)  # solve's order of the sum
        a = np.minimum(np.maximum(vh / (2 * h), 0.0), 1.0)
        W = np.empty((self.n * K, m))  # _weights: −α_ic off the label, Σ_c α_ic (in order) on
        W[self.im] = -a
        W[self.iy1] = np.add.reduce(a.reshape(self.n, K - 1, m), axis=1) if K > 2 else a
        G = np.add.reduce(W.reshape(self.n, K, 1, m) * self.XXg, axis=0)  # einsum("nc,nij->cij")
        Bf = B.reshape(self.L, m)
        lin = _lane_sum(Bf * Pf, axis=1)  # einsum("ij,kij->"): per class, then Σ_k
        tot = lin[0]
        for k in range(1, K):
            tot = tot + lin[k]
        return val + tot, G.reshape(P.shape) + B[None]

    def project(self, P: FloatArray) -> FloatArray:
        """:func:`_project_psd` of every problem (batch last)."""
        w, V = np.linalg.eigh((0.5 * (P + P.transpose(0, 2, 1, 3))).transpose(3, 0, 1, 2))
        w = np.maximum(w, 0.0)
        if not self.fast:
            return _to_soa(np.einsum("...ij,...j,...lj->...il", V, w, V))
        Vs, ws = _to_soa(V), _to_soa(w)  # (K, D1, D1, m), (K, D1, m)
        out = None
        for j in range(self.D1):  # einsum("kij,kj,klj->kil"): left to right over j
            term = (Vs[:, :, None, j] * ws[:, None, None, j]) * Vs[:, None, :, j]
            out = term if out is None else out + term
        return out

    # ---- the reference contractions (batch first), for the fallback and the dual bound
    def _margins(self, q: FloatArray) -> FloatArray:
        return q[:, self.rows, self.yy][:, :, None] - q

    def _weights(self, a: FloatArray) -> FloatArray:
        W = -a
        W[:, self.rows, self.yy] += a.sum(axis=2)
        return W

    def _f_and_grad_einsum(self, P: FloatArray, B: FloatArray) -> tuple[FloatArray, FloatArray]:
        u = self._margins(np.einsum("nij,mkij->mnk", self.XX, P))
        val = _rowsum(huber(u[:, self.mask], self.h, self.loss))
        a = np.where(self.mask, huber_prime(u, self.h, self.loss), 0.0)
        G = np.einsum("mnc,nij->mcij", self._weights(a), self.XX) + B[:, None]
        return val + np.einsum("mij,mkij->m", B, P), G

    def dual(self, P: FloatArray, B: FloatArray, lam: float,
             b: FloatArray) -> tuple[FloatArray, list[dict]]:
        """:func:`dual_lower_bound` of every problem at once (batch first; same dual point,
        bisection and tolerances).  The bisection on t runs on the stacked matrices
        B_m + t_m M_mc; problems whose B is singular (the equality repair of the scalar function)
        are handed to :func:`dual_lower_bound` itself."""
        m, n = P.shape[0], self.n
        q = np.einsum("ni,mkij,nj->mnk", self.Xt, P, self.Xt)
        alpha = np.where(self.mask, huber_prime(self._margins(q), self.h, self.loss), 0.0)
        scaleB = np.maximum(1.0, np.max(np.abs(B), axis=(1, 2)))
        tol = 1e-11 * scaleB * max(1, n)
        eB = np.linalg.eigvalsh(B)[:, 0]
        M = np.einsum("mnc,nij->mcij", self._weights(alpha), self.XX)

        def min_eig(t: FloatArray, sel: NDArray[np.intp]) -> FloatArray:
            S = B[sel, None] + t[:, None, None, None] * M[sel]
            return np.linalg.eigvalsh(S).min(axis=(1, 2))

        def feasible_bis(mids: FloatArray) -> NDArray[np.bool_]:  # (s, k) → ∀c: λ_min ≥ −tol
            S = Bb + mids[:, :, None, None, None] * Mb
            return np.linalg.eigvalsh(S).min(axis=(2, 3)) >= -tolb

        D = np.full(m, -math.inf)
        t = np.zeros(m)
        me = eB.copy()
        rep = eB <= tol
        reg = np.flatnonzero(~rep)
        ok1 = min_eig(np.ones(reg.size), reg) >= -tol[reg]
        t[reg[ok1]] = 1.0
        need = reg[~ok1]
        feas0 = min_eig(np.zeros(need.size), need) >= -tol[need]
        bis = need[feas0]  # the others keep D = −inf, t = 0, min_eig = λ_min(B), as in the original
        Bb, Mb, tolb = B[bis, None, None], M[bis][:, None], tol[bis, None]
        t[bis] = _bisect(feasible_bis, bis.size, 60)
        fin = np.concatenate([reg[ok1], bis])
        a = t[fin, None] * alpha[fin][:, self.mask]
        D[fin] = _rowsum(a * self.shift + self.h * a * (1 - a))
        me[fin] = min_eig(t[fin], fin)
        info = [{"t": float(t[j]), "min_eig": float(me[j]), "repaired": False} for j in range(m)]
        for j in np.flatnonzero(rep):  # B singular: the scalar function with its equality repair
            D[j], info[j] = dual_lower_bound(P[j], self.Xa, self.yy, self.K, lam, self.h, b[j],
                                             self.loss)
        return D, info


def _bisect(feasible: Callable[[FloatArray], NDArray[np.bool_]], s: int, steps: int) -> FloatArray:
    """The bisection of :func:`dual_lower_bound` (lo, hi = 0, 1; mid = (lo + hi)/2; lo = mid if
    feasible else hi = mid; ``steps`` times) for s problems at once, returning lo.

    ``feasible`` maps mids (s, k) to booleans (s, k).  Every problem visits exactly the mids of its
    own scalar bisection.  To save calls when s is small, the mids of the next r levels of each
    problem's bisection tree (2^r − 1 of them, r such that s(2^r − 1) ≤ 64) are evaluated in one
    call and the path is then followed down the tree.
    """
    lo, hi = np.zeros(s), np.ones(s)
    if s == 0:
        return lo
    rows = np.arange(s)
    r = max(1, int(math.log2(64 / s + 1)))
    done = 0
    while done < steps:
        r = min(r, steps - done)
        if r == 1:
            mid = 0.5 * (lo + hi)
            f = feasible(mid[:, None])[:, 0]
            lo = np.where(f, mid, lo)
            hi = np.where(f, hi, mid)
            done += 1
            continue
        L, H, mids = lo[:, None], hi[:, None], []
        for _ in range(r):  # level order: node j has children 2j (infeasible), 2j + 1 (feasible)
            mid = 0.5 * (L + H)
            mids.append(mid)
            L = np.stack([L, mid], axis=-1).reshape(s, -1)
            H = np.stack([mid, H], axis=-1).reshape(s, -1)
        allm = np.concatenate(mids, axis=1)  # (s, 2^r − 1)
        feas = feasible(allm)
        node = np.zeros(s, dtype=np.intp)
        for depth in range(r):
            col = (1 << depth) - 1 + node
            f, mid = feas[rows, col], allm[rows, col]
            lo = np.where(f, mid, lo)
            hi = np.where(f, hi, mid)
            node = 2 * node + f
        done += r
    return lo


def _solve_f_and_grad(P: FloatArray, XX: FloatArray, y: NDArray[np.int64], B: FloatArray, h: float,
                      loss: str) -> tuple[float, FloatArray]:
    """``f_and_grad`` of :func:`solve`, verbatim (the reference of :func:`_fast_kernels_exact`)."""
    rows = np.arange(XX.shape[0])
    q = np.einsum("nij,kij->nk", XX, P)
    u = q[rows, y][:, None] - q
    u[rows, y] = -np.inf
    val = float(np.sum(huber(u, h, loss)[np.isfinite(u)]))
    a = huber_prime(u, h, loss)
    a[rows, y] = 0.0
    G = np.einsum("nc,nij->cij", _weights(a, y), XX) + B[None]
    return val + float(np.einsum("ij,kij->", B, P)), G


@lru_cache(maxsize=1)
def _fast_kernels_exact() -> bool:
    """Whether the batch-last kernels of :class:`_Batch` reproduce :func:`solve`'s ``f_and_grad``
    and :func:`_project_psd` bit for bit on this machine (checked once per process on random
    problems)."""
    rng = np.random.default_rng(20100004)
    for n, d, K, loss in ((7, 1, 2, "corrected"), (40, 2, 3, "margin"), (13, 4, 3, "corrected"),
                          (9, 5, 2, "corrected"), (30, 1, 4, "margin")):
        D1, m = d + 1, 3
        X = rng.uniform(-1, 1, (n, d)) / math.sqrt(d)
        y = rng.integers(0, K, n)
        P = rng.standard_normal((m, K, D1, D1)) * 10.0 ** rng.uniform(-3, 3, (m, K, 1, 1))
        P = P + np.swapaxes(P, -1, -2)
        B = 10.0 ** rng.uniform(-2, 2) * np.eye(D1) + sym(rng.standard_normal((m, D1, D1)))
        fast = _Batch(X, y, K, 0.5, loss, True)
        val, G = fast.f_and_grad(_to_soa(P), _to_soa(B))
        G, Pr = _to_aos(G), _to_aos(fast.project(_to_soa(P)))
        for j in range(m):
            vs, Gs = _solve_f_and_grad(P[j], fast.XX, y, B[j], 0.5, loss)
            if not (val[j] == vs and np.array_equal(G[j], Gs)
                    and np.array_equal(Pr[j], _project_psd(P[j]))):
                return False
    return True


#: the largest number of problems iterated together (arrays of ~n·K·(d+1)²·_MAX_BATCH doubles)
_MAX_BATCH = 4096


def solve_batch(X: ArrayLike, y: ArrayLike, K: int, lam: float, h: float, b: ArrayLike, *,
                loss: Loss = "corrected", tol: float = 1e-8, max_iter: int = 20000,
                check_every: int = 25, Phi0: ArrayLike | None = None,
                on_failure: Literal["raise", "return"] = "raise",
                compiled: bool = False) -> list[LMResult]:
    """Minimise J_p for m perturbations b_1..b_m of one data set at once: :func:`solve`, vectorised.

    Pathak & Raj 2010 (seed ``004_69734a6b7aad1d0d.txt``), §4, equation (8): the perturbed
    objective J_p(Φ) = J(Φ) + Σ_c ⟨b, Φ_c⟩ over Φ_1..Φ_K ⪰ 0, with the noise b of (7); the
    certificate is the Fenchel dual bound of :func:`dual_lower_bound` (the gradient (9) at the
    dual point must be PSD).  The m problems share X and y, so the iteration of :func:`solve`
    runs on all of them with a batch axis: one stacked ``eigh`` projects every iterate, and
    each problem keeps its own FISTA state (iterate, momentum, Lipschitz estimate with
    backtracking, adaptive restart).  The dual bound of every active problem is evaluated
    every ``check_every`` iterations, exactly when :func:`solve` evaluates it (its bisection on
    the stacked matrices), and a problem leaves the batch when its relative duality gap
    reaches ``tol``.

    Equivalence with :func:`solve`: every per-problem sum is evaluated in the order in which
    :func:`solve`'s NumPy calls evaluate it, so result j is bit for bit ``solve(X, y, K, lam, h,
    b=b[j], ...)`` (status, Φ, value, lower bound, certificate, iterations, diagnostics) — up to
    the sign of zero, and provided the one-off self-check of the emulated einsum orders passes
    on the machine (it does on x86-64 NumPy 2.x; otherwise a batched ``np.einsum`` is used and the
    results agree to rounding, each still certified by its own dual bound).  Unbounded problems
    (λI_Φ + sym(b_j) not PSD) get the exact ray of :func:`solve`; a problem without a
    certificate after ``max_iter`` iterations is flagged as :func:`solve` flags it
    (``status="not_converged"``, ``Phi=None``, ``details["last_iterate"]``,
    ``details["diverging_norm"]``).  The batch pays when many problems are active: it is
    slower than :func:`solve` per iteration for one problem, ~15× faster per problem for
    hundreds (``bench/bench_large_margin.py``).

    Parameters
    ----------
    X, y, K, lam, h, loss, tol, max_iter, check_every
        As in :func:`solve` (``loss="paper"`` raises ``ValueError``; the PSD cone only).
    b : array (m, d+1, d+1)
        The m perturbation matrices (m ≥ 1), e.g. m single draws of :func:`sample_perturbation`.
    Phi0 : array (K, d+1, d+1) or (m, K, d+1, d+1), optional
        Warm start(s), projected onto the PSD cone.
    on_failure : {"raise", "return"}
        ``"raise"`` (as :func:`solve`): after the whole batch, raise :class:`CertificateError`
        for the first uncertified problem (``err.result``; all results in ``err.results``);
        ``"return"``: return the flagged results.
    compiled : bool
        Solve the bounded problems one after the other in compiled code
        (:func:`simulations._large_margin_numba.solve_problems`: :func:`solve`'s iteration and dual
        bound in nopython mode, each problem with its own state, so a few slow problems do not
        keep a vectorised batch alive).  The iterates are those of :func:`solve` up to rounding
        (not bit for bit: Jacobi instead of LAPACK eigendecompositions, packed storage);
        statuses, diagnostics and certificates are :func:`solve`'s, every ``"optimal"``
        result certified by its own dual bound (``details["engine"] = "numba"``).  The
        default ``False`` is the vectorised NumPy iteration above, bit for bit :func:`solve`;
        without numba it is used in any case.

    Returns
    -------
    list of LMResult
        One per b_j, in order; ``details["batch_index"]`` = j and the certificate's solver is
        ``"large_margin.solve_batch"``.

    Raises
    ------
    ValueError
        Bad input, naming the parameter (``X``, ``y``, ``K``, ``lam``/``h``, ``b``, ``tol``,
        ``max_iter``/``check_every``, ``Phi0``, ``on_failure``, ``loss``).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X, y = gaussian_classes(30, d=1, K=2, rng=rng)
    >>> b = np.stack([np.diag([0.5, 2.0]), -np.eye(2), [[0.2, 0.3], [-0.1, 1.0]], 0.3 * np.eye(2)])
    >>> res = solve_batch(X, y, K=2, lam=1.0, h=0.5, b=b, max_iter=3000, on_failure="return")
    >>> [r.status for r in res]
    ['optimal', 'unbounded', 'optimal', 'not_converged']
    >>> ref = solve(X, y, K=2, lam=1.0, h=0.5, b=b[2], max_iter=3000)
    >>> bool(np.array_equal(res[2].Phi, ref.Phi)), res[2].value == ref.value, res[2].certificate.ok
    (True, True, True)
    >>> fast = solve_batch(X, y, K=2, lam=1.0, h=0.5, b=b[:3], max_iter=3000, compiled=True)
    >>> [r.status for r in fast], abs(fast[2].value - ref.value) <= 1e-8 * max(1, abs(ref.value))
    (['optimal', 'unbounded', 'optimal'], True)
    """
    if loss == "paper":
        raise ValueError("loss='paper' (printed (6)) is discontinuous and makes J unbounded below "
                         "(paper_loss_unbounded_ray); solve the 'corrected' or 'margin' loss")
    _margin_shift(loss)
    Xa = np.atleast_2d(np.asarray(X, dtype=float))
    if Xa.ndim != 2 or not np.all(np.isfinite(Xa)):
        raise ValueError("parameter 'X' must be a finite (n, d) array")
    n, d = Xa.shape
    if isinstance(K, bool) or not isinstance(K, (int, np.integer)) or K < 1:
        raise ValueError(f"parameter 'K' = {K!r} must be a positive integer")
    K = int(K)
    yy = np.asarray(y)
    if (yy.shape != (n,) or not np.all(np.isfinite(yy)) or not np.all(yy == np.round(yy))
            or yy.min() < 0 or yy.max() >= K):
        raise ValueError(f"parameter 'y' must hold n = {n} labels in 0..{K - 1}")
    yy = yy.astype(int)
    if not (np.isfinite(lam) and lam >= 0) or not (np.isfinite(h) and h > 0):
        raise ValueError("parameters 'lam' ≥ 0 and 'h' > 0 are required")
    bb = np.asarray(b, dtype=float)
    if (bb.ndim != 3 or bb.shape[0] < 1 or bb.shape[1:] != (d + 1, d + 1)
            or not np.all(np.isfinite(bb))):
        raise ValueError(f"parameter 'b' must be a finite (m, {d + 1}, {d + 1}) array with "
                         f"m ≥ 1, got shape {bb.shape}")
    if not (tol > 0):
        raise ValueError(f"parameter 'tol' = {tol!r} must be > 0")
    for name, v in (("max_iter", max_iter), ("check_every", check_every)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
            raise ValueError(f"parameter {name!r} = {v!r} must be an integer ≥ 1")
    if on_failure not in ("raise", "return"):
        raise ValueError(f"parameter 'on_failure' = {on_failure!r} is not 'raise' or 'return'")
    max_iter, check_every = int(max_iter), int(check_every)
    m, D1 = bb.shape[0], d + 1
    P0 = None if Phi0 is None else np.asarray(Phi0, dtype=float)
    if P0 is not None and (P0.shape not in ((K, D1, D1), (m, K, D1, D1))
                           or not np.all(np.isfinite(P0))):
        raise ValueError(f"parameter 'Phi0' must be finite with shape ({K}, {D1}, {D1}) or "
                         f"({m}, {K}, {D1}, {D1})")
    if m > _MAX_BATCH:  # bounded memory: consecutive sub-batches (the problems are independent)
        out: list[LMResult] = []
        for s0 in range(0, m, _MAX_BATCH):
            sub = solve_batch(Xa, yy, K, lam, h, bb[s0:s0 + _MAX_BATCH], loss=loss, tol=tol,
                              max_iter=max_iter, check_every=check_every,
                              Phi0=P0 if P0 is None or P0.ndim == 3 else P0[s0:s0 + _MAX_BATCH],
                              on_failure="return", compiled=compiled)
            for r in sub:
                r.details["batch_index"] += s0
            out.extend(sub)
        return _finish(out, on_failure)

    Bm = lam * i_phi(d)[None] + sym(bb)  # b_matrix for every draw
    wmin = np.linalg.eigvalsh(Bm)[:, 0]
    unb = wmin < -1e-12 * np.maximum(1.0, np.max(np.abs(Bm), axis=(1, 2)))
    results: list[LMResult | None] = [None] * m
    if unb.any():
        L0 = loss_value(np.zeros((K, D1, D1)), Xa, yy, h, loss)
        for j in np.flatnonzero(unb):
            Dir, slope = unbounded_direction(lam, bb[j], d, K)
            det = {"lambda_min_B": float(wmin[j]), "L0": L0, "batch_index": int(j)}
            cert = Certificate("unbounded_ray_slope", slope, 0.0, True,
                               solver="large_margin.solve_batch", details=det)
            results[j] = LMResult("unbounded", None, -math.inf, -math.inf, cert, Dir, slope, det)

    idx = np.flatnonzero(~unb)  # the active problems (batch positions), compacted as they converge
    if idx.size == 0:
        return _finish(results, on_failure)
    nbk = _numba_kernels() if compiled else None
    if nbk is not None:  # one problem after another, in compiled code
        if P0 is None:
            starts = np.zeros((idx.size, K, D1, D1))
        elif P0.ndim == 3:
            starts = np.repeat(_project_psd(P0)[None], idx.size, axis=0)
        else:
            starts = np.stack([_project_psd(P0[j]) for j in idx])
        raw = _run_compiled(nbk, Xa, yy, K, h, loss, Bm[idx], starts, "psd", tol, max_iter,
                            check_every)
        for r_, j in enumerate(idx):
            results[j] = _compiled_result(raw, r_, tol, "large_margin.solve_batch", "psd",
                                          float(wmin[j]), {"batch_index": int(j)})
        return _finish(results, on_failure)
    bat = _Batch(Xa, yy, K, h, loss, _fast_kernels_exact())
    nb = idx.size
    B = _to_soa(Bm[idx])  # (D1, D1, nb)
    if P0 is None:
        x = np.zeros((K, D1, D1, nb))
    elif P0.ndim == 3:
        x = np.repeat(_project_psd(P0)[..., None], nb, axis=-1)
    else:
        x = bat.project(_to_soa(P0[idx]))
    fx, gx = bat.f_and_grad(x, B)
    z, tk = x.copy(), np.ones(nb)
    z_is_x = np.ones(nb, dtype=bool)
    Lip0 = max(1e-3, float(np.sum(bat.XX**2)) / (2 * h * max(1, n)))
    Lip = np.full(nb, Lip0)
    lower = np.full(nb, -math.inf)
    info: list[dict] = [{} for _ in range(nb)]
    hist = np.full((nb, max(1, max_iter // check_every), 4), np.nan)  # (it, J_p, gap, ‖Φ‖)
    k_hist = 0
    final: dict[int, tuple] = {}  # batch position → (it, x, fx, gx, Lip, lower, info, hist)

    def retire(sel: NDArray[np.intp], it: int) -> None:
        xs, gs = _to_aos(x[..., sel]), _to_aos(gx[..., sel])
        for r_, s in enumerate(sel):
            final[int(idx[s])] = (it, xs[r_], fx[s], gs[r_], Lip[s], lower[s], info[s],
                                  hist[s, :k_hist].copy())

    it = 0
    for it in range(1, max_iter + 1):
        if idx.size == 0:
            break
        if z_is_x.all():  # every problem restarted (z = x): f(z), ∇f(z) are fx, gx bit for bit
            fz, gz = fx, gx
        else:
            fz, gz = bat.f_and_grad(z, B)
        x_new = bat.project(z - gz / Lip)
        f_new, g_new = bat.f_and_grad(x_new, B)
        diff = x_new - z
        rhs = fz + _soa_rowsum(gz * diff) + 0.5 * Lip * _soa_rowsum(diff**2) + 1e-12 * np.abs(fz)
        pend = np.flatnonzero(~(f_new <= rhs))
        while pend.size:  # backtracking, per problem: double L until the descent condition holds
            Lip[pend] *= 2.0
            zp, gp, fp = z[..., pend], gz[..., pend], fz[pend]
            xp = bat.project(zp - gp / Lip[pend])
            f_p, g_p = bat.f_and_grad(xp, B[..., pend])
            x_new[..., pend], f_new[pend], g_new[..., pend] = xp, f_p, g_p
            diff = xp - zp
            rhs = (fp + _soa_rowsum(gp * diff) + 0.5 * Lip[pend] * _soa_rowsum(diff**2)
                   + 1e-12 * np.abs(fp))
            pend = pend[~(f_p <= rhs)]
        rs = f_new > fx  # adaptive restart (O'Donoghue & Candès)
        t_next = 0.5 * (1 + np.sqrt(1 + 4 * tk * tk))
        z_acc = x_new + ((tk - 1) / t_next) * (x_new - x)
        if rs.any():
            z = np.where(rs, x, z_acc)
            x, gx = np.where(rs, x, x_new), np.where(rs, gx, g_new)
            fx, tk = np.where(rs, fx, f_new), np.where(rs, 1.0, t_next)
            Lip = Lip * np.where(rs, 0.95, 0.98)
        else:
            z, x, fx, gx, tk = z_acc, x_new, f_new, g_new, t_next
            Lip = Lip * 0.98
        z_is_x = rs
        if it % check_every == 0:
            lower, info = bat.dual(_to_aos(x), _to_aos(B), lam, bb[idx])
            gap = (fx - lower) / np.maximum(1.0, np.abs(fx))
            hist[:, k_hist, 0], hist[:, k_hist, 1], hist[:, k_hist, 2] = it, fx, gap
            hist[:, k_hist, 3] = _norms(_to_aos(x))
            k_hist += 1
            done = gap <= tol
            if done.any():
                retire(np.flatnonzero(done), it)
                keep = ~done
                idx, fx, tk, Lip = idx[keep], fx[keep], tk[keep], Lip[keep]
                lower, hist, z_is_x = lower[keep], hist[keep], z_is_x[keep]
                B, x, gx, z = B[..., keep], x[..., keep], gx[..., keep], z[..., keep]
                info = [i_ for i_, k_ in zip(info, keep, strict=True) if k_]
    retire(np.arange(idx.size), it)

    pos = np.array(sorted(final), dtype=int)
    if pos.size:
        xs = np.stack([final[j][1] for j in pos], axis=-1)
        gs = np.stack([final[j][3] for j in pos], axis=-1)
        pgs = _norms(_to_aos(xs - bat.project(xs - gs)))
    for r_, j in enumerate(pos):
        it_j, xj, fxj, _, Lj, lowj, infj, hj = final[j]
        fxj, lowj = float(fxj), float(lowj)
        gap = (fxj - lowj) / max(1.0, abs(fxj)) if math.isfinite(lowj) else math.inf
        history = [(int(row[0]), float(row[1]), float(row[2]), float(row[3])) for row in hj]
        details = {"iterations": int(it_j), "lipschitz_estimate": float(Lj),
                   "projected_gradient_norm": float(pgs[r_]), "lambda_min_B": float(wmin[j]),
                   "norm_Phi": float(np.linalg.norm(xj)), "dual": infj, "cone": "psd",
                   "history_tail": history[-5:], "batch_index": int(j)}
        cert = Certificate("relative_duality_gap", float(gap), tol, bool(gap <= tol),
                           solver="large_margin.solve_batch", details=details)
        if cert.ok:
            results[j] = LMResult("optimal", xj.copy(), fxj, lowj, cert, details=details)
            continue
        details["last_iterate"] = xj.copy()
        norms = [hh[3] for hh in history[-8:]]
        vals = [hh[1] for hh in history[-8:]]
        details["diverging_norm"] = bool(
            len(norms) >= 4
            and all(b_ > a_ for a_, b_ in zip(norms[:-1], norms[1:], strict=True))
            and all(b_ <= a_ for a_, b_ in zip(vals[:-1], vals[1:], strict=True))
            and norms[-1] > 1.05 * norms[0])
        results[j] = LMResult("not_converged", None, fxj, lowj, cert, details=details)
    return _finish(results, on_failure)


def _finish(results: list, on_failure: str) -> list[LMResult]:
    """The results of :func:`solve_batch`; with ``on_failure="raise"`` a CertificateError for the
    first uncertified problem (``err.result``; every result in ``err.results``)."""
    out = list(results)
    if on_failure == "raise":
        for r in out:
            if r.status == "not_converged":
                err = CertificateError(r.certificate, r)
                err.results = out  # type: ignore[attr-defined]
                raise err
    return out


# --------------------------------------------------------------------------- noise (7)
def norm_law(d: int, eps: float) -> tuple[int, float]:
    """(shape, scale) of the law of ‖b‖_F: Γ((d+1)², 2/ε) (Pathak & Raj, §4; ``pr.s4.norm_law``)."""
    return (d + 1) ** 2, 2.0 / eps


def sample_perturbation(d: int, eps: float, rng: np.random.Generator, size: int | None = None) -> FloatArray:
    """Exact draws of b with density ∝ exp(−ε‖b‖_F/2) on (d+1)×(d+1) matrices (Pathak & Raj, (7)).

    The norm is Γ((d+1)², 2/ε) (polar coordinates: the radial density is ∝ r^{D−1}e^{−εr/2},
    D = (d+1)²) and the direction is a normalised standard Gaussian (uniform on the sphere).

    Examples
    --------
    >>> import numpy as np
    >>> b = sample_perturbation(1, 0.5, np.random.default_rng(0), size=20000)
    >>> b.shape, round(float(np.linalg.norm(b, axis=(1, 2)).mean()) / 16, 1)   # E‖b‖ = 2D/ε = 16
    ((20000, 2, 2), 1.0)
    """
    shape, scale = norm_law(d, eps)
    k = 1 if size is None else int(size)
    r = rng.gamma(shape, scale, size=k)
    g = rng.standard_normal((k, shape))
    g /= np.linalg.norm(g, axis=1, keepdims=True)
    out = (r[:, None] * g).reshape(k, d + 1, d + 1)
    return out[0] if size is None else out


# --------------------------------------------------------------------------- data
def gaussian_classes(n: int, d: int, K: int, rng: np.random.Generator, radius: float = 0.5,
                     sigma: float = 0.35) -> tuple[FloatArray, NDArray[np.int64]]:
    """n points in the unit ball: labels uniform, x ~ N(μ_y, σ²I) projected into the ball.

    The K centres lie on a circle of the given radius in the first two coordinates (on a
    segment when d = 1); with the default σ the classes overlap, so the data are not
    separable (the unperturbed J then has a minimiser).
    """
    y = rng.integers(0, K, n)
    ang = 2 * np.pi * np.arange(K) / K
    C = np.zeros((K, d))
    if d == 1:
        C[:, 0] = radius * np.linspace(-1, 1, K)
    else:
        C[:, 0], C[:, 1] = radius * np.cos(ang), radius * np.sin(ang)
    X = C[y] + sigma * rng.standard_normal((n, d))
    nrm = np.linalg.norm(X, axis=1, keepdims=True)
    X = X / np.maximum(1.0, nrm)
    return X, y


def random_psd(K: int, d: int, rng: np.random.Generator, scale: float = 1.0) -> FloatArray:
    """K random PSD (d+1)×(d+1) matrices AAᵀ·scale/(d+1)."""
    A = rng.standard_normal((K, d + 1, d + 1))
    return scale * np.einsum("kij,klj->kil", A, A) / (d + 1)


# --------------------------------------------------------------------------- the first-order conditions (9)
def kkt_residual(Phi: ArrayLike, X: ArrayLike, y: ArrayLike, h: float, loss: Loss = "corrected",
                 rank_tol: float = 1e-7) -> float:
    """min over symmetric B of Σ_c ‖(B + ∂L/∂Φ_c(Φ; X, y))P_c‖²_F, P_c the projector onto range(Φ_c).

    For the minimiser Φ^p of J_p on data (X, y) the KKT conditions of (8)–(9) on the PSD cone are
    B + ∂L/∂Φ_c = Z_c ⪰ 0 with Z_cΦ_c = 0, B = λI_Φ + sym(b): the residual is 0 (up to the
    solver's accuracy) on the data set that produced Φ^p and, generically, positive on a
    neighbouring one whenever the equations outnumber the (d+1)(d+2)/2 entries of B.  Because
    one b is shared by all classes, the released Φ^p lies on a data-dependent set: this is the
    statistic of the privacy audit (Pathak & Raj, Theorem 5.1).
    """
    P = np.asarray(Phi, dtype=float)
    K, D1 = P.shape[0], P.shape[1]
    G = loss_grad(P, X, y, h, loss)
    iu = np.triu_indices(D1)
    basis = []
    for i, j in zip(*iu, strict=True):
        E = np.zeros((D1, D1))
        E[i, j] = E[j, i] = 1.0
        basis.append(E)
    rows, rhs = [], []
    scale = max(1.0, float(np.max(np.abs(P))))
    for c in range(K):
        w, V = np.linalg.eigh(P[c])
        U = V[:, w > rank_tol * scale]
        if U.shape[1] == 0:
            continue
        rows.append(np.stack([(E @ U).ravel() for E in basis], axis=1))
        rhs.append(-(G[c] @ U).ravel())
    if not rows:
        return 0.0
    A, r = np.vstack(rows), np.concatenate(rhs)
    beta, *_ = np.linalg.lstsq(A, r, rcond=None)
    return float(np.sum((A @ beta - r) ** 2))
