r"""Exact solvers for regularised kernel ERM, with optimality certificates.

Every solver here minimises, over the RKHS :math:`\mathcal H_K`,

.. math::  J_{\mathbf z}(f) = \frac1m \sum_{i=1}^m L(f(x_i), y_i) + \lambda \|f\|_K^2

(Nie & Wang 2017, J. Inequal. Appl., §2 eq. (1) with Ω = ‖·‖²_K, γ = 2, §5: **no** factor ½ in front of the
regulariser and **no** offset/bias term).  By the representer theorem
:math:`f_{\mathbf z} = \sum_i \alpha_i K(x_i, \cdot)`, so the solvers take a precomputed
Gram matrix ``K[i, j] = K(x_i, x_j)`` and return the coefficient vector α; they never see
the points and are kernel-agnostic.  Values on new points are ``K_eval @ alpha`` with
``K_eval[g, i] = K(t_g, x_i)``, and ‖f‖²_K = αᵀKα.

Every solver returns a :class:`Certificate` (kind, value, tolerance, converged) and by
default raises :class:`CertificateError` rather than hand back an iterate whose
certificate is above tolerance.

Least squares (§5.1), L(t, y) = (t − y)²
    The first-order condition in the RKHS is
    ∇J(f) = (2/m) Σ_i (f(x_i) − y_i) K_{x_i} + 2λ f = (2/m) Σ_i r_i K_{x_i} with
    r = (K + λmI)α − y, so α = (K + λmI)⁻¹ y (the same α as scikit-learn's
    ``KernelRidge(alpha=λm, kernel="precomputed")``).  :class:`KLSFactor` keeps the Cholesky
    factor of K + λmI, so many right-hand sides (noise draws, many y) reuse it.
    Certificate: the relative KKT residual ‖(K + λmI)α − y‖₂/‖y‖₂; the RKHS gradient norm
    ‖∇J(f)‖_K = (2/m)·sqrt(rᵀKr) is reported too (J is 2λ-strongly convex, so
    ‖f − f_z‖_K ≤ ‖∇J(f)‖_K/(2λ) and J(f) − J(f_z) ≤ ‖∇J(f)‖²_K/(4λ)).

Neighbouring data sets (§2, Theorems 1–2)
    :func:`neighbour_scan` computes ‖f_z − f_z̄‖_K (and optionally max over a grid of
    |f_z − f_z̄|) for every index j and every candidate replacement (x̄, ȳ) without refitting,
    in O(m²) per candidate after one O(m³) inverse.  The derivation is in the docstring of
    :func:`neighbour_scan`.

Offset-free SVM (§5.2), L(t, y) = (1 − y t)₊, y ∈ {−1, +1}
    With C = 1/(2λm), the Lagrangian dual of
    min_f (1/m)Σ ξ_i + λ‖f‖²_K s.t. ξ_i ≥ 1 − y_i f(x_i), ξ_i ≥ 0 is

        max_β  Σ_i β_i − (1/(4λ)) Σ_{ij} β_i β_j y_i y_j K_ij,   0 ≤ β_i ≤ 1/m,

    with f = (1/(2λ)) Σ β_i y_i K_{x_i}: stationarity in ξ_i gives β_i + η_i = 1/m, in f gives
    2λ f = Σ β_i y_i K_{x_i}.  There is no equality constraint Σ β_i y_i = 0 because there
    is no offset.  In the coefficients α_i = β_i y_i/(2λ) of f this is

        D(α) = 2λ (yᵀα − ½ αᵀKα),   min(0, y_i C) ≤ α_i ≤ max(0, y_i C),

    i.e. scikit-learn's SVC dual with its C = 1/(2λm) minus the equality constraint.
Pinball loss (quantile regression, τ ∈ (0, 1)), L(t, y) = ρ_τ(y − t), ρ_τ(r) = max(τr, (τ−1)r)
    From ρ_τ(r) = max_{β∈[τ−1, τ]} β r and the same computation,
    f = (1/(2λm)) Σ β_i K_{x_i}, and with α = β/(2λm) the dual is again

        D(α) = 2λ (yᵀα − ½ αᵀKα),   (τ − 1) C ≤ α_i ≤ τ C,   C = 1/(2λm),

    a box-constrained QP with no equality constraint.

Duality gap of the box dual
    For both losses, with g = Kα − y (so f(x_i) = g_i + y_i) and α feasible,

        J(f_α) − D(α) = 2λ Σ_i [(α_i − lo_i) g_i⁺ + (hi_i − α_i) g_i⁻] ≥ 0,

    a sum of non-negative terms (g⁺ = max(g, 0), g⁻ = max(−g, 0)), and it is zero exactly
    at the optimum (these are the KKT conditions).  By weak duality
    J(f_α) − J(f_z) ≤ J(f_α) − D(α) and, by 2λ-strong convexity,
    ‖f_α − f_z‖²_K ≤ (J(f_α) − D(α))/λ.  The certificate is the relative gap
    (J(f_α) − D(α))/J(f_α) with J and D both computed from their definitions.

Examples
--------
>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> X = rng.standard_normal((40, 2))
>>> K = np.exp(-((X[:, None, :] - X[None, :, :]) ** 2).sum(-1) / 2)
>>> y = np.sign(X[:, 0] + 0.3 * rng.standard_normal(40))
>>> fit = svm_fit(K, y, lam=0.05)
>>> fit.certificate.converged, fit.certificate.value <= 1e-10
(True, True)
>>> ls = KLSFactor(K, lam=0.05).fit(y)
>>> bool(ls.certificate.value < 1e-12)
True
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from types import ModuleType
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.linalg import blas, cho_factor, cho_solve, lapack

__all__ = [
    "Certificate",
    "CertificateError",
    "require_certificate",
    "KLSFactor",
    "KLSResult",
    "kls_fit",
    "kls_objective",
    "NeighbourScan",
    "NeighbourFit",
    "neighbour_scan",
    "neighbour_grid_sup",
    "neighbour_fit",
    "replace_point",
    "union_rkhs_distance",
    "DualResult",
    "svm_fit",
    "pinball_fit",
    "hinge_primal",
    "hinge_dual",
    "pinball_primal",
    "pinball_dual",
    "duality_gap",
]

FloatArray = NDArray[np.float64]
OnFailure = Literal["raise", "warn", "return"]


# --------------------------------------------------------------------------------------
# certificates
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Certificate:
    """Evidence that a solver's output is optimal up to a stated tolerance.

    Attributes
    ----------
    kind : str
        What ``value`` measures: ``"relative_kkt_residual"`` (least squares),
        ``"relative_duality_gap"`` (SVM, pinball).
    value : float
        The measured quantity (smaller is better; NaN if it could not be computed).
    tolerance : float
        The threshold the solver was asked to reach.
    converged : bool
        ``value <= tolerance`` and the solver terminated normally.
    solver : str
        Name of the solver that produced it (used in error messages).
    details : dict
        Extra diagnostics (iterations, primal/dual values, gradient norms, ...).

    Examples
    --------
    >>> c = Certificate("relative_duality_gap", 3e-12, 1e-10, True, solver="svm_fit")
    >>> c.ok
    True
    >>> require_certificate(c) is c
    True
    """

    kind: str
    value: float
    tolerance: float
    converged: bool
    solver: str = ""
    details: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """``True`` when the solver converged and ``value <= tolerance``."""
        return bool(self.converged and self.value <= self.tolerance)

    def describe(self) -> str:
        """One line: solver, kind, value and tolerance.

        Examples
        --------
        >>> Certificate("relative_duality_gap", 0.5, 1e-10, False, solver="svm_fit").describe()
        'svm_fit: relative_duality_gap = 0.5 > tolerance 1e-10 (not converged)'
        """
        rel = "<=" if self.value <= self.tolerance else ">"
        state = "converged" if self.converged else "not converged"
        return (f"{self.solver or 'solver'}: {self.kind} = {self.value:.3g} {rel} "
                f"tolerance {self.tolerance:.3g} ({state})")


class CertificateError(RuntimeError):
    """Raised when a solver's certificate is above tolerance.

    The offending :class:`Certificate` is ``err.certificate`` and, when a solver raised it,
    its (uncertified) result is ``err.result``.
    """

    def __init__(self, certificate: Certificate, result: object | None = None) -> None:
        super().__init__(
            f"optimality certificate rejected: {certificate.describe()}"
        )
        self.certificate = certificate
        self.result = result


def require_certificate(cert: Certificate, *, result: object | None = None) -> Certificate:
    """Return ``cert`` if it certifies convergence, else raise :class:`CertificateError`.

    The error message names the solver, the kind of certificate, its value and the tolerance.

    Examples
    --------
    >>> bad = Certificate("relative_kkt_residual", 1e-3, 1e-10, False, solver="KLSFactor.fit")
    >>> require_certificate(bad)
    Traceback (most recent call last):
    ...
    simulations.solvers.CertificateError: optimality certificate rejected: KLSFactor.fit: relative_kkt_residual = 0.001 > tolerance 1e-10 (not converged)
    """
    if not cert.ok:
        raise CertificateError(cert, result)
    return cert


def _handle(cert: Certificate, result: object, on_failure: OnFailure) -> None:
    if cert.ok:
        return
    if on_failure == "raise":
        raise CertificateError(cert, result)
    if on_failure == "warn":
        warnings.warn(f"optimality certificate rejected: {cert.describe()}", RuntimeWarning,
                      stacklevel=3)
    elif on_failure != "return":
        raise ValueError(f"on_failure must be 'raise', 'warn' or 'return', got {on_failure!r}")


# --------------------------------------------------------------------------------------
# input checks
# --------------------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _check_rows(m: int) -> NDArray[np.intp]:
    """The (at most 64) rows on which :func:`_gram` checks symmetry; the same for every matrix of size m."""
    rows = np.unique(np.linspace(0, m - 1, min(m, 64)).astype(np.intp))
    rows.setflags(write=False)
    return rows


def _gram(K: ArrayLike, name: str = "K") -> FloatArray:
    K = np.asarray(K, dtype=np.float64)
    if K.ndim != 2 or K.shape[0] != K.shape[1]:
        raise ValueError(f"{name} must be a square Gram matrix, got shape {K.shape}")
    if K.shape[0] == 0:
        raise ValueError(f"{name} is empty")
    # cheap checks (a full pass over an m x m matrix would cost as much as a solve):
    # NaN/inf propagate through the sum; symmetry is checked on at most 64 rows.
    if not math.isfinite(float(K.sum())) and not np.all(np.isfinite(K)):
        raise ValueError(f"{name} has non-finite entries")
    m = K.shape[0]
    rows = _check_rows(m)
    scale = max(float(np.max(np.abs(np.diag(K)))), float(np.max(np.abs(K[rows]))), 1e-300)
    asym = float(np.max(np.abs(K[rows, :] - K[:, rows].T)))
    if asym > 1e-10 * scale:
        raise ValueError(f"{name} is not symmetric (max |K - K.T| = {asym:.3g})")
    return K


def _positive(x: float, name: str) -> float:
    x = float(x)
    if not (x > 0 and math.isfinite(x)):
        raise ValueError(f"{name} must be a positive finite number, got {x!r}")
    return x


def _vector(y: ArrayLike, m: int, name: str = "y") -> FloatArray:
    y = np.asarray(y, dtype=np.float64)
    if y.shape != (m,):
        raise ValueError(f"{name} must have shape ({m},), got {y.shape}")
    if not np.all(np.isfinite(y)):
        raise ValueError(f"{name} has non-finite entries")
    return y


# --------------------------------------------------------------------------------------
# kernel least squares
# --------------------------------------------------------------------------------------


@dataclass
class KLSResult:
    """Solution of kernel least squares.

    Attributes
    ----------
    alpha : ndarray, shape (m,) or (m, k)
        Coefficients, f = Σ α_i K(x_i, ·) (one column per right-hand side).
    certificate : Certificate
        ``kind="relative_kkt_residual"``: max over columns of ‖(K + λmI)α − y‖/‖y‖.
    gradient_norm : ndarray, shape () or (k,)
        ‖∇J(f)‖_K = (2/m) sqrt(rᵀKr) per column.
    objective : ndarray, shape () or (k,)
        J(f) = (1/m)‖Kα − y‖² + λαᵀKα per column.
    """

    alpha: FloatArray
    certificate: Certificate
    gradient_norm: FloatArray
    objective: FloatArray

    @property
    def rkhs_error_bound(self) -> FloatArray:
        """Upper bound on ‖f − f_z‖_K from strong convexity: ‖∇J(f)‖_K/(2λ)."""
        return self.gradient_norm / (2.0 * self.certificate.details["lam"])


class KLSFactor:
    """Cholesky factorisation of K + λmI for kernel least squares.

    Factor once, then solve for as many right-hand sides as needed; the explicit inverse
    (needed for neighbour scans) is computed on first use and cached.

    Parameters
    ----------
    K : array_like, shape (m, m)
        Symmetric positive semi-definite Gram matrix ``K[i, j] = K(x_i, x_j)``.
    lam : float
        Regularisation λ > 0 of (1/m)Σ(f(x_i) − y_i)² + λ‖f‖²_K.

    Attributes
    ----------
    m : int
    lam : float
    mu : float
        λm, the ridge added to K.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(0, 1, 30)[:, None]
    >>> K = np.exp(-(X - X.T) ** 2 / 0.1)
    >>> y = np.sin(6 * X[:, 0])
    >>> F = KLSFactor(K, lam=1e-3)
    >>> res = F.fit(y)
    >>> bool(np.allclose((K + 1e-3 * 30 * np.eye(30)) @ res.alpha, y))
    True
    >>> A = F.solve(np.stack([y, 2 * y], axis=1))      # several right-hand sides at once
    >>> bool(np.allclose(A[:, 1], 2 * res.alpha))
    True
    """

    def __init__(self, K: ArrayLike, lam: float) -> None:
        self.K = _gram(K)
        self.m = self.K.shape[0]
        self.lam = _positive(lam, "lam")
        self.mu = self.lam * self.m
        # one copy, in Fortran order: LAPACK factors it in place (a C-ordered copy would be copied again by the
        # wrapper: three Gram-sized arrays instead of two); the same values, hence the same factor
        A = np.array(self.K, order="F")
        A.flat[:: self.m + 1] += self.mu
        try:
            self._cho = cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
        except np.linalg.LinAlgError as exc:  # pragma: no cover - needs an indefinite K
            raise np.linalg.LinAlgError(
                f"KLSFactor: K + lam*m*I is not positive definite (lam*m = {self.mu:.3g}); "
                "is K a positive semi-definite Gram matrix?"
            ) from exc

    # -- solves ------------------------------------------------------------------------
    def _apply_A(self, alpha: FloatArray) -> FloatArray:
        return self.K @ alpha + self.mu * alpha

    def solve(self, y: ArrayLike, *, refine: bool = True) -> FloatArray:
        """α = (K + λmI)⁻¹ y for a vector or for each column of a matrix ``y``.

        With ``refine=True`` one step of iterative refinement is taken (it costs one
        product with K and one triangular solve pair).
        """
        y = np.asarray(y, dtype=np.float64)
        if y.shape[0] != self.m or y.ndim not in (1, 2):
            raise ValueError(f"y must have shape ({self.m},) or ({self.m}, k), got {y.shape}")
        alpha = cho_solve(self._cho, y, check_finite=False)
        if refine:
            alpha = alpha + cho_solve(self._cho, y - self._apply_A(alpha), check_finite=False)
        return alpha

    def fit(self, y: ArrayLike, *, tol: float = 1e-10,
            on_failure: OnFailure = "raise") -> KLSResult:
        """Solve and certify: α with its KKT residual, RKHS gradient norm and objective.

        Parameters
        ----------
        y : array_like, shape (m,) or (m, k)
        tol : float
            Largest accepted relative KKT residual ‖(K + λmI)α − y‖/‖y‖.
        on_failure : {"raise", "warn", "return"}
            What to do when the residual is above ``tol``.
        """
        y = np.asarray(y, dtype=np.float64)
        alpha = self.solve(y)
        cert, gnorm = self._certify(alpha, y, tol)
        res = KLSResult(alpha, cert, gnorm, kls_objective(self.K, y, self.lam, alpha))
        _handle(cert, res, on_failure)
        return res

    def certificate(self, alpha: ArrayLike, y: ArrayLike, *, tol: float = 1e-10) -> Certificate:
        """Certificate of an arbitrary α (for instance one computed elsewhere)."""
        return self._certify(np.asarray(alpha, float), np.asarray(y, float), tol)[0]

    def _certify(self, alpha: FloatArray, y: FloatArray, tol: float
                 ) -> tuple[Certificate, FloatArray]:
        r = self._apply_A(alpha) - y
        ynorm = np.linalg.norm(y, axis=0)
        rnorm = np.linalg.norm(r, axis=0)
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(ynorm > 0, rnorm / np.where(ynorm > 0, ynorm, 1.0),
                           np.where(rnorm > 0, np.inf, 0.0))
        rKr = np.einsum("i...,i...->...", r, self.K @ r)
        gnorm = (2.0 / self.m) * np.sqrt(np.maximum(rKr, 0.0))
        value = float(np.max(rel))
        cert = Certificate("relative_kkt_residual", value, float(tol), bool(value <= tol),
                           solver="KLSFactor.fit",
                           details={"lam": self.lam, "m": self.m, "gradient_norm": gnorm,
                                    "residual_norm": rnorm})
        return cert, gnorm

    # -- inverse and neighbours --------------------------------------------------------
    @cached_property
    def inverse(self) -> FloatArray:
        """(K + λmI)⁻¹, computed from the Cholesky factor (LAPACK ``potri``) and cached."""
        c, lower = self._cho
        inv, info = lapack.dpotri(c, lower=int(lower))
        if info != 0:  # pragma: no cover - the factor exists, so potri cannot fail
            raise np.linalg.LinAlgError(f"dpotri failed with info={info}")
        inv = np.tril(inv) if lower else np.triu(inv)
        return inv + inv.T - np.diag(np.diag(inv))

    @cached_property
    def _inverse_sq_diag(self) -> FloatArray:
        P = self.inverse
        return np.einsum("ij,ij->j", P, P)

    def neighbour_scan(self, y: ArrayLike, K_cand: ArrayLike, kappa_cand: ArrayLike,
                       y_cand: ArrayLike, **kwargs: object) -> NeighbourScan:
        """:func:`neighbour_scan` reusing this factorisation."""
        return neighbour_scan(self, y, self.lam, K_cand, kappa_cand, y_cand, **kwargs)


def kls_fit(K: ArrayLike, y: ArrayLike, lam: float, *, tol: float = 1e-10,
            on_failure: OnFailure = "raise") -> KLSResult:
    """Kernel least squares α = (K + λmI)⁻¹y with its certificate (one-shot).

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> res = kls_fit(K, [1.0, -1.0], lam=0.25)        # (K + 0.5 I) α = y
    >>> np.round(res.alpha, 12).tolist()
    [1.0, -1.0]
    """
    return KLSFactor(K, lam).fit(y, tol=tol, on_failure=on_failure)


def kls_objective(K: ArrayLike, y: ArrayLike, lam: float, alpha: ArrayLike) -> FloatArray:
    """J(f) = (1/m) Σ (f(x_i) − y_i)² + λ‖f‖²_K for f = Σ α_i K(x_i, ·).

    Works column-wise when ``y`` and ``alpha`` are (m, k).

    Examples
    --------
    >>> import numpy as np
    >>> float(kls_objective(np.eye(2), [1.0, 1.0], 0.5, [0.0, 0.0]))
    1.0
    """
    K = np.asarray(K, float)
    y = np.asarray(y, float)
    alpha = np.asarray(alpha, float)
    f = K @ alpha
    m = K.shape[0]
    return np.sum((f - y) ** 2, axis=0) / m + lam * np.einsum("i...,i...->...", alpha, f)


# --------------------------------------------------------------------------------------
# neighbouring data sets for least squares
# --------------------------------------------------------------------------------------


@dataclass
class NeighbourScan:
    """Sensitivities of kernel least squares to replacing one point.

    For the data set z and the neighbour z̄ = z with (x_j, y_j) replaced by candidate c.

    Attributes
    ----------
    rkhs_dist : ndarray, shape (m, C)
        ‖f_z − f_z̄‖_K for every index j (rows) and candidate c (columns).
    sup_dist : ndarray, shape (m, C) or None
        max over the evaluation grid of |f_z − f_z̄| (when a grid was given).
    alpha : ndarray, shape (m,)
        Coefficients of f_z.
    residual : ndarray, shape (m,)
        y_j − f_z(x_j) (= λm α_j).
    residual_cand : ndarray, shape (m, C)
        ȳ_c − f_z̄(x̄_c): the replacement point's own residual in the neighbour fit
        (so the coefficient of K(x̄_c, ·) in f_z̄ is residual_cand/(λm)).
    f_eval : ndarray, shape (m, C, G) or None
        f_z̄ on the grid for every (j, c) (only with ``return_eval=True``).
    f_eval_z : ndarray, shape (G,) or None
        f_z on the grid.
    """

    rkhs_dist: FloatArray
    sup_dist: FloatArray | None
    alpha: FloatArray
    residual: FloatArray
    residual_cand: FloatArray
    f_eval: FloatArray | None = None
    f_eval_z: FloatArray | None = None

    def argmax(self, which: Literal["rkhs", "sup"] = "rkhs") -> tuple[int, int]:
        """(j, c) of the largest distance."""
        D = self.rkhs_dist if which == "rkhs" else self.sup_dist
        if D is None:
            raise ValueError("no evaluation grid was given to neighbour_scan")
        j, c = np.unravel_index(int(np.argmax(D)), D.shape)
        return int(j), int(c)


@dataclass
class NeighbourFit:
    """The least-squares fit on one neighbour z̄ (index ``j`` replaced by the candidate).

    Attributes
    ----------
    alpha_bar : ndarray, shape (m,)
        Coefficients of f_z̄ on z̄'s own points: entry j multiplies K(x̄, ·), the others
        K(x_i, ·).
    rkhs_dist : float
        ‖f_z − f_z̄‖_K.
    f_eval : ndarray or None
        f_z̄ on the evaluation grid.
    sup_dist : float or None
        max over the grid of |f_z − f_z̄|.
    """

    alpha_bar: FloatArray
    rkhs_dist: float
    f_eval: FloatArray | None
    sup_dist: float | None


def _as_factor(Kfull: KLSFactor | ArrayLike, lam: float) -> KLSFactor:
    if isinstance(Kfull, KLSFactor):
        if not math.isclose(Kfull.lam, float(lam), rel_tol=1e-14, abs_tol=0.0):
            raise ValueError(f"the factor was built with lam={Kfull.lam}, not lam={lam}")
        return Kfull
    return KLSFactor(Kfull, lam)


def _cand_arrays(F: KLSFactor, K_cand: ArrayLike, kappa_cand: ArrayLike, y_cand: ArrayLike
                 ) -> tuple[FloatArray, FloatArray, FloatArray]:
    Kc = np.atleast_2d(np.asarray(K_cand, dtype=np.float64))
    if Kc.shape[1] != F.m:
        raise ValueError(f"K_cand must have shape (C, {F.m}) (candidate rows against the data),"
                         f" got {Kc.shape}")
    C = Kc.shape[0]
    kap = np.broadcast_to(np.asarray(kappa_cand, dtype=np.float64), (C,)).copy()
    yc = np.broadcast_to(np.asarray(y_cand, dtype=np.float64), (C,)).copy()
    for name, arr in (("K_cand", Kc), ("kappa_cand", kap), ("y_cand", yc)):
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"{name} has non-finite entries")
    return Kc, kap, yc


def neighbour_scan(Kfull: KLSFactor | ArrayLike, y: ArrayLike, lam: float, K_cand: ArrayLike,
                   kappa_cand: ArrayLike, y_cand: ArrayLike, *,
                   K_eval: ArrayLike | None = None, K_eval_cand: ArrayLike | None = None,
                   return_eval: bool = False, compiled: bool = True) -> NeighbourScan:
    r"""‖f_z − f_z̄‖_K for every index j and every candidate replacement, without refitting.

    Parameters
    ----------
    Kfull : ndarray (m, m) or KLSFactor
        Gram matrix of the data set z (or its :class:`KLSFactor`, reused).
    y : array_like, shape (m,)
        Labels of z.
    lam : float
        λ of (1/m)Σ(f(x_i) − y_i)² + λ‖f‖²_K (both data sets have m points, so the ridge
        λm is the same).
    K_cand : array_like, shape (C, m)
        ``K_cand[c, i] = K(x̄_c, x_i)``, the candidates' kernel rows against the data.
    kappa_cand : array_like, shape (C,) or scalar
        Self-kernels K(x̄_c, x̄_c).
    y_cand : array_like, shape (C,) or scalar
        Labels ȳ_c of the candidates.
    K_eval : array_like, shape (G, m), optional
        ``K_eval[g, i] = K(t_g, x_i)`` for grid points t_g; with ``K_eval_cand`` (shape
        (G, C), ``K(t_g, x̄_c)``) the maximum of |f_z − f_z̄| over the grid is returned too.
    return_eval : bool
        Also return f_z̄ on the grid for every (j, c) (an (m, C, G) array).
    compiled : bool
        Take the grid maxima in the compiled loop of :func:`neighbour_grid_sup` (default; the
        results are bit-identical); ``False`` is the NumPy loop, kept as the reference.  With
        ``return_eval`` the NumPy loop is used.

    Returns
    -------
    NeighbourScan

    Notes
    -----
    Work in the RKHS with μ = λm and the operators T = Σ_i K_{x_i}⊗K_{x_i} + μI (data set z)
    and T_j = T − K_{x_j}⊗K_{x_j} (z without x_j).  Then f_z = T⁻¹ Σ y_i K_{x_i}.  Let
    h = T_j⁻¹ Σ_{i≠j} y_i K_{x_i} be the fit without point j (still with ridge μ) and
    w_u = T_j⁻¹K_u.  Sherman–Morrison gives

        f_z = h + e_j w_{x_j},        e_j = y_j − f_z(x_j) = μ α_j,
        f_z̄ = h + b w_{x̄},           b = (ȳ − h(x̄)) / (1 + ⟨K_x̄, w_x̄⟩) = ȳ − f_z̄(x̄),

    so f_z − f_z̄ = e_j w_{x_j} − b w_{x̄} and
    ‖f_z − f_z̄‖²_K = e_j²‖w_j‖² − 2 e_j b ⟨w_j, w_x̄⟩ + b²‖w_x̄‖².  This is the RKHS norm of
    a function supported on the union of z and z̄ (the point x̄ is not in z), so it is not
    (α − ᾱ)ᵀK(α − ᾱ) on either data set alone.

    Every inner product reduces to P = (K + μI)⁻¹ and p = P k̄ (k̄ = ``K_cand[c]``): by
    the push-through identity T⁻¹ = (I − S*PS)/μ (S the sampling operator),
    v_u = T⁻¹K_u has ⟨K_{x_i}, v_{x_l}⟩ = δ_il − μP_il, ⟨K_{x_j}, v_x̄⟩ = p_j,
    ⟨K_x̄, v_x̄⟩ = (κ̄ − k̄ᵀp)/μ, ⟨v_{x_j}, v_{x_j}⟩ = P_jj − μ(P²)_jj,
    ⟨v_{x_j}, v_x̄⟩ = (Pp)_j, ⟨v_x̄, v_x̄⟩ = (⟨K_x̄, v_x̄⟩ − pᵀp)/μ, and the rank-one
    downdate T_j⁻¹ = T⁻¹ + v_{x_j}⊗v_{x_j}/(μP_jj) turns them into the w's.  The cost is
    O(m³) once for P and O(m²) per candidate (two products with P) for all j at once; with
    a grid of G points, O(Gm) more per candidate.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(1)
    >>> X, Xc = rng.uniform(-1, 1, (25, 1)), rng.uniform(-1, 1, (3, 1))
    >>> k = lambda A, B: np.exp(-(A - B.T) ** 2)
    >>> y, yc = np.sin(3 * X[:, 0]), np.array([1.0, -1.0, 0.0])
    >>> scan = neighbour_scan(k(X, X), y, 0.01, k(Xc, X), np.ones(3), yc)
    >>> j, c = 4, 2                                     # compare with one brute-force refit
    >>> Kbar = replace_point(k(X, X), j, k(Xc, X)[c], 1.0)
    >>> ybar = y.copy(); ybar[j] = yc[c]
    >>> abar = kls_fit(Kbar, ybar, 0.01).alpha
    >>> d = union_rkhs_distance(k(X, X), k(Xc, X)[c], 1.0, j, scan.alpha, abar)
    >>> bool(np.isclose(scan.rkhs_dist[j, c], d, rtol=1e-8))
    True
    """
    F = _as_factor(Kfull, lam)
    y = _vector(y, F.m)
    Kc, kap, yc = _cand_arrays(F, K_cand, kappa_cand, y_cand)
    mu = F.mu
    P = F.inverse
    Pd = np.diag(P).copy()
    P2d = F._inverse_sq_diag
    alpha = P @ y
    e = mu * alpha                                       # y - f_z(x), exact identity
    D = mu * Pd                                          # 1 - leverage_j
    r_jj = Pd - mu * P2d                                 # <v_j, v_j>
    pC = P @ Kc.T                                        # (m, C): p = P k̄
    ppC = P @ pC                                         # (m, C): P p
    fz_c = Kc @ alpha                                    # f_z(x̄_c)
    s_cc, r_cc = _cand_norms(F.K, Kc, kap, pC, mu)
    Dj = D[:, None]
    s_jc = pC
    ww_jj = (r_jj / D**2)[:, None]
    ww_jc = (ppC + r_jj[:, None] * s_jc / Dj) / Dj
    ww_cc = r_cc[None, :] + 2 * s_jc * ppC / Dj + s_jc**2 * r_jj[:, None] / Dj**2
    s_cc_j = s_cc[None, :] + s_jc**2 / Dj                # <K_x̄, w_x̄>
    h_c = fz_c[None, :] - e[:, None] * s_jc / Dj         # h(x̄)
    b = (yc[None, :] - h_c) / (1.0 + s_cc_j)
    ej = e[:, None]
    d2 = ej**2 * ww_jj - 2 * ej * b * ww_jc + b**2 * ww_cc
    rkhs = np.sqrt(np.maximum(d2, 0.0))
    sup = None
    if K_eval is not None or K_eval_cand is not None:
        Ke, Kec = _grid_arrays(F, K_eval, K_eval_cand, Kc.shape[0])
        Q = Ke @ P                                       # (G, m): v_j(t_g)
        QK = Q @ Kc.T                                    # (G, C): k_gᵀ p
        fz_g = Ke @ alpha
        if not return_eval:
            sup, _ = neighbour_grid_sup(Q, Kec, QK, mu, e, b, s_jc, D, compiled=compiled)
            return NeighbourScan(rkhs, sup, alpha, e, b, None, fz_g)
        sup = np.empty_like(rkhs)
        f_eval = np.empty((F.m, Kc.shape[0], Ke.shape[0]))
        for c in range(Kc.shape[0]):
            vc = (Kec[:, c] - QK[:, c]) / mu             # v_x̄(t_g)
            coef = (e - b[:, c] * s_jc[:, c]) / D        # (m,)
            diff = Q * coef[None, :] - vc[:, None] * b[None, :, c]   # (G, m): f_z − f_z̄
            sup[:, c] = np.max(np.abs(diff), axis=0)
            f_eval[:, c, :] = fz_g[None, :] - diff.T
        return NeighbourScan(rkhs, sup, alpha, e, b, f_eval, fz_g)
    if return_eval:
        raise ValueError("return_eval needs K_eval and K_eval_cand")
    return NeighbourScan(rkhs, sup, alpha, e, b)


def neighbour_grid_sup(Q: FloatArray, K_eval_cand: FloatArray, QK: FloatArray, mu: float,
                       e: FloatArray, b: FloatArray, s: FloatArray, D: FloatArray,
                       fz: FloatArray | None = None, M: float | None = None, *,
                       compiled: bool = True) -> tuple[FloatArray, FloatArray | None]:
    r"""Grid maxima of |f_z − f_z̄| (and of |π(f_z̄) − π(f_z)|) for every index j and candidate c.

    The candidate loop of :func:`neighbour_scan` (notation of its Notes): with
    v_c = (K_eval_cand[:, c] − QK[:, c])/μ and coef_c = (e − b[:, c]·s[:, c])/D,
    f_z − f_z̄ = Q·coef_c − v_c b[:, c]ᵀ on the grid, a (G, m) array per candidate.

    Parameters
    ----------
    Q : ndarray (G, m)
        K_eval·P.
    K_eval_cand, QK : ndarray (G, C)
        K(t_g, x̄_c) and Q·K_candᵀ.
    mu : float
        λm.
    e, D : ndarray (m,)
        The residuals μα and μ·diag(P).
    b, s : ndarray (m, C)
        The replacement residuals (``NeighbourScan.residual_cand``) and P·K_candᵀ.
    fz : ndarray (G,), optional
        f_z on the grid; with ``M`` the clipped distance (π = clipping to [−M, M]) is returned too.
    compiled : bool
        The compiled loop (:func:`simulations._scan_numba.neighbour_grid_sup`; no (G, m)
        temporaries) or, with ``False``, the NumPy loop (the reference).  Both perform the same
        floating-point operations and the maxima are exact, so the results are bit-identical; the
        compiled loop declines (and the NumPy loop runs) where a NaN could arise (a non-finite
        factor or a product that could overflow), and numba missing means the NumPy loop.

    Returns
    -------
    (sup, clip) : ndarray (m, C), and ndarray (m, C) or None

    Examples
    --------
    >>> import numpy as np
    >>> r = np.random.default_rng(0)
    >>> G, m, C = 7, 5, 3
    >>> args = (r.random((G, m)), r.random((G, C)), r.random((G, C)), 0.5, r.random(m),
    ...         r.random((m, C)), r.random((m, C)), 1.0 + r.random(m), r.random(G), 0.6)
    >>> a = neighbour_grid_sup(*args)
    >>> b = neighbour_grid_sup(*args, compiled=False)
    >>> a[0].tobytes() == b[0].tobytes() and a[1].tobytes() == b[1].tobytes()
    True
    """
    clip = fz is not None and M is not None
    m, C = b.shape
    if compiled and Q.shape[0] > 0:
        from ._compiled import compiled_module

        nb = compiled_module("_scan_numba")
        if nb is not None:
            f64 = np.float64
            sup = np.empty((m, C))
            csup = np.empty((m, C)) if clip else np.empty((0, 0))
            fzc = np.ascontiguousarray(fz, dtype=f64) if clip else np.empty(0)
            if nb.neighbour_grid_sup(np.ascontiguousarray(Q, dtype=f64),
                                     np.ascontiguousarray(K_eval_cand, dtype=f64),
                                     np.ascontiguousarray(QK, dtype=f64), float(mu),
                                     np.ascontiguousarray(e, dtype=f64), np.ascontiguousarray(b, dtype=f64),
                                     np.ascontiguousarray(s, dtype=f64), np.ascontiguousarray(D, dtype=f64),
                                     fzc, float(M) if clip else 0.0, clip, sup, csup):
                return sup, (csup if clip else None)
    return _neighbour_grid_sup_numpy(Q, K_eval_cand, QK, mu, e, b, s, D, fz if clip else None, M)


def _neighbour_grid_sup_numpy(Q: FloatArray, Kec: FloatArray, QK: FloatArray, mu: float, e: FloatArray,
                              b: FloatArray, s: FloatArray, D: FloatArray, fz: FloatArray | None,
                              M: float | None) -> tuple[FloatArray, FloatArray | None]:
    """The NumPy reference of :func:`neighbour_grid_sup` (the loop of :func:`neighbour_scan`)."""
    m, C = b.shape
    sup = np.empty((m, C))
    clip = np.empty((m, C)) if fz is not None else None
    pz = np.clip(fz, -M, M) if fz is not None else None
    for c in range(C):
        vc = (Kec[:, c] - QK[:, c]) / mu                 # v_x̄(t_g)
        coef = (e - b[:, c] * s[:, c]) / D               # (m,)
        diff = Q * coef[None, :] - vc[:, None] * b[None, :, c]   # (G, m): f_z − f_z̄
        sup[:, c] = np.max(np.abs(diff), axis=0)
        if clip is not None:
            fbar = np.clip(fz[:, None] - diff, -M, M)
            clip[:, c] = np.max(np.abs(fbar - pz[:, None]), axis=0)
    return sup, clip


def _cand_norms(K: FloatArray, Kc: FloatArray, kap: FloatArray, pC: FloatArray, mu: float
                ) -> tuple[FloatArray, FloatArray]:
    """⟨K_x̄, T⁻¹K_x̄⟩ and ‖T⁻¹K_x̄‖²_K per candidate, in forms stationary in p = P k̄.

    With ρ = ‖K_x̄ − Σ p_i K_{x_i}‖²_K = κ̄ − 2k̄ᵀp + pᵀKp one has
    ⟨K_x̄, T⁻¹K_x̄⟩ = (ρ + μ pᵀp)/μ (= (κ̄ − k̄ᵀp)/μ at the exact p) and ‖T⁻¹K_x̄‖² = ρ/μ².
    Both are minima of quadratics in p, so an O(ε) error in p changes them only at O(ε²);
    the textbook form (κ̄ − k̄ᵀp)/μ would lose about cond(K + μI) · ε relative accuracy.
    """
    kp = np.einsum("cm,mc->c", Kc, pC)
    pKp = np.einsum("mc,mc->c", pC, K @ pC)
    pp = np.einsum("mc,mc->c", pC, pC)
    rho = np.maximum(kap - 2.0 * kp + pKp, 0.0)
    return (rho + mu * pp) / mu, rho / mu**2


def _grid_arrays(F: KLSFactor, K_eval: ArrayLike | None, K_eval_cand: ArrayLike | None,
                 C: int) -> tuple[FloatArray, FloatArray]:
    if K_eval is None or K_eval_cand is None:
        raise ValueError("give both K_eval (G, m) and K_eval_cand (G, C) for grid distances")
    Ke = np.atleast_2d(np.asarray(K_eval, dtype=np.float64))
    Kec = np.asarray(K_eval_cand, dtype=np.float64)
    if Kec.ndim == 1:
        Kec = Kec[:, None]
    if Ke.shape[1] != F.m or Kec.shape != (Ke.shape[0], C):
        raise ValueError(f"K_eval must be (G, {F.m}) and K_eval_cand (G, {C}); got "
                         f"{Ke.shape} and {Kec.shape}")
    return Ke, Kec


def neighbour_fit(Kfull: KLSFactor | ArrayLike, y: ArrayLike, lam: float, j: int,
                  k_cand: ArrayLike, kappa_cand: float, y_cand: float, *,
                  K_eval: ArrayLike | None = None, k_eval_cand: ArrayLike | None = None,
                  ) -> NeighbourFit:
    """The fit on one neighbour z̄ (point j replaced) by a rank-one update, O(m²).

    Same notation as :func:`neighbour_scan`; returns the neighbour's coefficients on its
    own points, ‖f_z − f_z̄‖_K and optionally f_z̄ on a grid (``K_eval`` (G, m),
    ``k_eval_cand`` (G,) = K(t_g, x̄)).  The coefficients are
    ᾱ = α − e_j P_{·j}/(μP_jj) + b(−p/μ + P_{·j} p_j/(μP_jj)) on the old points (entry j
    vanishes) and b/μ on x̄, stored in position j.

    Examples
    --------
    >>> import numpy as np
    >>> K = np.array([[1.0, 0.3, 0.1], [0.3, 1.0, 0.2], [0.1, 0.2, 1.0]])
    >>> kc = np.array([0.5, 0.1, 0.4])                 # K(x̄, x_i), K(x̄, x̄) = 1
    >>> nf = neighbour_fit(K, [1.0, 0.0, -1.0], 0.1, 1, kc, 1.0, 2.0)
    >>> ref = kls_fit(replace_point(K, 1, kc, 1.0), [1.0, 2.0, -1.0], 0.1).alpha
    >>> bool(np.allclose(nf.alpha_bar, ref))
    True
    """
    F = _as_factor(Kfull, lam)
    y = _vector(y, F.m)
    if not 0 <= j < F.m:
        raise IndexError(f"j={j} out of range for m={F.m}")
    kc = _vector(np.asarray(k_cand, dtype=np.float64).ravel(), F.m, "k_cand")
    mu = F.mu
    P = F.inverse
    alpha = P @ y
    e_j = mu * alpha[j]
    Pj = P[:, j]
    D = mu * Pj[j]
    p = P @ kc
    s_jc = p[j]
    s_cc_a, r_cc_a = _cand_norms(F.K, kc[None, :], np.array([float(kappa_cand)]), p[:, None], mu)
    s_cc, r_cc = float(s_cc_a[0]), float(r_cc_a[0])
    h_c = kc @ alpha - e_j * s_jc / D
    b = (float(y_cand) - h_c) / (1.0 + s_cc + s_jc**2 / D)
    abar = alpha - e_j * Pj / D + b * (-p / mu + Pj * s_jc / D)
    abar[j] = b / mu
    # distance through the 2x2 Gram matrix of (w_j, w_x̄), as in neighbour_scan
    pp = P @ p
    r_jj = Pj[j] - mu * (Pj @ Pj)
    ww_jj = r_jj / D**2
    ww_jc = (pp[j] + r_jj * s_jc / D) / D
    ww_cc = r_cc + 2 * s_jc * pp[j] / D + s_jc**2 * r_jj / D**2
    d2 = e_j**2 * ww_jj - 2 * e_j * b * ww_jc + b**2 * ww_cc
    f_eval = sup = None
    if K_eval is not None or k_eval_cand is not None:
        Ke, Kec = _grid_arrays(F, K_eval, None if k_eval_cand is None
                               else np.asarray(k_eval_cand, float).reshape(-1, 1), 1)
        fz = Ke @ alpha
        Kb = Ke.copy()
        Kb[:, j] = Kec[:, 0]
        f_eval = Kb @ abar
        sup = float(np.max(np.abs(fz - f_eval)))
    return NeighbourFit(abar, float(math.sqrt(max(d2, 0.0))), f_eval, sup)


def replace_point(K: ArrayLike, j: int, k_cand: ArrayLike, kappa_cand: float) -> FloatArray:
    """Gram matrix of z̄: row and column j of ``K`` replaced by the candidate's.

    ``k_cand[i] = K(x̄, x_i)`` (its entry j, K(x̄, x_j), is not used) and the new diagonal
    entry is ``kappa_cand`` = K(x̄, x̄).  A rank-two symmetric change of K.

    Examples
    --------
    >>> import numpy as np
    >>> replace_point(np.eye(3), 0, [9.0, 0.5, 0.25], 2.0).tolist()
    [[2.0, 0.5, 0.25], [0.5, 1.0, 0.0], [0.25, 0.0, 1.0]]
    """
    Kb = np.array(K, dtype=np.float64, copy=True)
    kc = np.asarray(k_cand, dtype=np.float64)
    Kb[j, :] = kc
    Kb[:, j] = kc
    Kb[j, j] = float(kappa_cand)
    return Kb


def union_rkhs_distance(K: ArrayLike, k_cand: ArrayLike, kappa_cand: float, j: int,
                        alpha: ArrayLike, alpha_bar: ArrayLike) -> float:
    """‖Σ_i α_i K(x_i, ·) − Σ_i ᾱ_i K(x̄_i, ·)‖_K for z and its neighbour z̄ (O(m²)).

    z̄ has x̄ in position j; both functions live on the m + 1 points x_1..x_m, x̄, whose
    Gram matrix is [[K, k̄], [k̄ᵀ, κ̄]].  With δ = α − ᾱ off j, δ_j = α_j, and the
    coefficient −ᾱ_j on x̄ the squared distance is δᵀKδ − 2ᾱ_j δᵀk̄ + ᾱ_j²κ̄.
    This is the brute-force reference for :func:`neighbour_scan`.

    Examples
    --------
    >>> import numpy as np
    >>> union_rkhs_distance(np.eye(2), [0.0, 0.0], 1.0, 0, [1.0, 0.0], [1.0, 0.0])  # orthogonal
    1.4142135623730951
    """
    K = np.asarray(K, float)
    kc = np.asarray(k_cand, float)
    a = np.asarray(alpha, float)
    ab = np.asarray(alpha_bar, float)
    delta = a - ab
    delta[j] = a[j]
    c = ab[j]
    d2 = delta @ K @ delta - 2 * c * (delta @ kc) + c * c * float(kappa_cand)
    return float(math.sqrt(max(d2, 0.0)))


# --------------------------------------------------------------------------------------
# box-constrained duals: SVM (hinge) and quantile regression (pinball)
# --------------------------------------------------------------------------------------


@dataclass
class DualResult:
    """Solution of an offset-free kernel SVM or kernel quantile regression.

    Attributes
    ----------
    alpha : ndarray, shape (m,)
        Coefficients, f = Σ α_i K(x_i, ·).  Feasible for the dual box.
    primal : float
        J(f) computed from its definition.
    dual : float
        D(α) = 2λ(yᵀα − ½αᵀKα).
    gap : float
        primal − dual ≥ 0 (up to rounding).
    iterations : int
        Outer iterations of the solver.
    certificate : Certificate
        ``kind="relative_duality_gap"``, value (primal − dual)/primal.
    lower, upper : ndarray
        The dual box.
    loss : str
    lam : float
    """

    alpha: FloatArray
    primal: float
    dual: float
    gap: float
    iterations: int
    certificate: Certificate
    lower: FloatArray
    upper: FloatArray
    loss: str
    lam: float

    @property
    def free(self) -> NDArray[np.bool_]:
        """Mask of coefficients strictly inside the box (margin / interpolated points)."""
        return (self.alpha > self.lower) & (self.alpha < self.upper)

    @property
    def rkhs_error_bound(self) -> float:
        """Bound on ‖f − f_z‖_K from 2λ-strong convexity: sqrt(gap/λ)."""
        return math.sqrt(max(self.gap, 0.0) / self.lam)


def duality_gap(K: ArrayLike, y: ArrayLike, alpha: ArrayLike, lower: ArrayLike,
                upper: ArrayLike, lam: float) -> float:
    """2λ Σ [(α_i − lo_i) g_i⁺ + (hi_i − α_i) g_i⁻] with g = Kα − y (see the module notes).

    Equals J(f_α) − D(α) for the hinge and the pinball duals of this module.
    """
    K = np.asarray(K, float)
    a = np.asarray(alpha, float)
    g = K @ a - np.asarray(y, float)
    lo, hi = np.asarray(lower, float), np.asarray(upper, float)
    return float(2 * lam * np.sum((a - lo) * np.maximum(g, 0) + (hi - a) * np.maximum(-g, 0)))


def _hinge_loss(f: FloatArray, y: FloatArray) -> FloatArray:
    return np.maximum(0.0, 1.0 - y * f)


def _pinball_loss(tau: float) -> Callable[[FloatArray, FloatArray], FloatArray]:
    def loss(f: FloatArray, y: FloatArray) -> FloatArray:
        r = y - f
        return np.maximum(tau * r, (tau - 1.0) * r)

    return loss


def hinge_primal(K: ArrayLike, y: ArrayLike, lam: float, alpha: ArrayLike) -> float:
    """(1/m) Σ (1 − y_i f(x_i))₊ + λ‖f‖²_K for f = Σ α_i K(x_i, ·).

    Examples
    --------
    >>> import numpy as np
    >>> hinge_primal(np.eye(2), [1.0, -1.0], 0.1, [0.0, 0.0])
    1.0
    """
    K = np.asarray(K, float)
    a = np.asarray(alpha, float)
    f = K @ a
    return float(np.mean(_hinge_loss(f, np.asarray(y, float))) + lam * a @ f)


def hinge_dual(K: ArrayLike, y: ArrayLike, lam: float, alpha: ArrayLike) -> float:
    """D(α) = 2λ(yᵀα − ½αᵀKα); a lower bound on the primal optimum for every α with
    min(0, y_iC) ≤ α_i ≤ max(0, y_iC), C = 1/(2λm) (not checked here).

    Examples
    --------
    >>> import numpy as np
    >>> hinge_dual(np.eye(2), [1.0, -1.0], 0.25, [1.0, -1.0])   # = 2·0.25·(2 − 1)
    0.5
    """
    K = np.asarray(K, float)
    a = np.asarray(alpha, float)
    return float(2 * lam * (np.asarray(y, float) @ a - 0.5 * a @ K @ a))


def pinball_primal(K: ArrayLike, y: ArrayLike, lam: float, tau: float,
                   alpha: ArrayLike) -> float:
    """(1/m) Σ ρ_τ(y_i − f(x_i)) + λ‖f‖²_K for f = Σ α_i K(x_i, ·).

    Examples
    --------
    >>> import numpy as np
    >>> pinball_primal(np.eye(2), [1.0, -1.0], 0.1, 0.25, [0.0, 0.0])  # (0.25 + 0.75)/2
    0.5
    """
    K = np.asarray(K, float)
    a = np.asarray(alpha, float)
    f = K @ a
    return float(np.mean(_pinball_loss(tau)(f, np.asarray(y, float))) + lam * a @ f)


def pinball_dual(K: ArrayLike, y: ArrayLike, lam: float, alpha: ArrayLike) -> float:
    """D(α) = 2λ(yᵀα − ½αᵀKα), the pinball dual (the same expression as :func:`hinge_dual`).

    A lower bound on the primal optimum for every α with (τ − 1)C ≤ α_i ≤ τC,
    C = 1/(2λm) (not checked here).

    Examples
    --------
    >>> import numpy as np
    >>> pinball_dual(np.eye(2), [1.0, -1.0], 0.25, [1.0, -1.0])
    0.5
    """
    return hinge_dual(K, y, lam, alpha)


def svm_fit(K: ArrayLike, y: ArrayLike, lam: float, *, tol: float = 1e-10,
            max_iter: int = 20_000, alpha0: ArrayLike | None = None,
            on_failure: OnFailure = "raise", block: int = 200,
            continuation: bool = True) -> DualResult:
    """Offset-free kernel SVM (Nie & Wang 2017, J. Inequal. Appl., §5.2), solved exactly through its box dual.

    Minimises (1/m) Σ (1 − y_i f(x_i))₊ + λ‖f‖²_K over H_K (no offset) by maximising
    D(α) = 2λ(yᵀα − ½αᵀKα) over min(0, y_iC) ≤ α_i ≤ max(0, y_iC), C = 1/(2λm), until the
    relative duality gap (J(f) − D(α))/J(f) is at most ``tol``.

    Parameters
    ----------
    K : array_like, shape (m, m)
        Gram matrix.
    y : array_like, shape (m,)
        Labels in {−1, +1}.
    lam : float
        λ > 0.
    tol : float
        Relative duality gap to reach (default 1e-10).
    max_iter : int
        Iteration budget: coordinate-descent sweeps plus face-Newton steps (compiled path),
        or outer iterations of the block coordinate / face-Newton method (NumPy path).
    alpha0 : array_like, optional
        Warm start (projected onto the box).
    on_failure : {"raise", "warn", "return"}
        If the gap is above ``tol`` when the solver stops: raise :class:`CertificateError`
        (default; the result is ``err.result``), warn, or return with
        ``certificate.converged = False``.
    block : int
        Working-set size of the NumPy path's coordinate-descent phase (a speed knob only,
        default 200; unused by the compiled path).
    continuation : bool
        When the dual box is wide (C·max K_ii > 0.5 on the NumPy path, > 20 on the compiled
        path), first solve a short path of larger λ (×4 apart, loose tolerance) and
        warm-start from it (a speed knob only: the returned solution is always certified at
        the requested λ).  Ignored when ``alpha0`` is given.

    Returns
    -------
    DualResult

    Notes
    -----
    With numba installed (a declared dependency) the solver is the compiled path of
    :mod:`simulations._svm_numba`: rounds of (i) exact single-coordinate descent in random
    order (the dual has no equality constraint, so one coordinate at a time is exact), with
    LIBLINEAR-style shrinking and a running gradient of all m coordinates, until the largest
    projected-gradient violation is below a threshold ε that shrinks tenfold per round, and
    (ii) a Newton step on the current face (coefficients strictly inside the box; the others
    fixed), cut back to the box and line-searched, which lands on the exact optimum once the
    face is the optimal one.  The duality gap is evaluated from the running gradient once
    per phase (O(m)) and, once within ``tol``, recomputed from a fresh f = Kα.  Degenerate
    problems (low-rank K, tiny λ: singular faces in round after round) are handed over to the
    NumPy path below, from the current α (``certificate.details["engine"]`` then reads
    ``"numba+numpy"``).  Compilation
    happens once and is cached on disk; a new process pays about 0.25 s on its first call
    (importing numba and loading the cache).  Speed: within 2× of scikit-learn's SVC (which
    has an offset) for m = 500–5000 and λ = 10⁻⁴ … m^(−4/9) (bench/bench_solvers.py).

    Without numba, the NumPy path alternates (i) exact coordinate descent (clipped Newton
    steps, several sweeps) on a working set of the ``block`` coordinates with the largest
    exact one-dimensional gain, and (ii) every third iteration the face-Newton step.  Both
    paths decrease the dual objective at every step, and a final Newton "polish" step is kept
    only if it lowers the gap.  Convergence is only ever declared from the duality gap,
    recomputed from a fresh gradient.  A run that stops improving ("stalled") or exhausts
    ``max_iter`` is reported as not converged.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(3)
    >>> X = rng.standard_normal((60, 2)); y = np.where(X[:, 0] > 0, 1.0, -1.0)
    >>> K = (1 + X @ X.T) ** 2
    >>> res = svm_fit(K, y, lam=0.01)
    >>> res.certificate.ok, bool(res.gap <= 1e-10 * res.primal)
    (True, True)
    >>> margin = y * (K @ res.alpha)                    # KKT: α_i = 0 ⇒ y_i f(x_i) ≥ 1
    >>> bool(np.all(margin[res.alpha == 0] >= 1 - 1e-8))
    True
    """
    K = _gram(K)
    m = K.shape[0]
    y = _vector(y, m)
    if not np.all(np.abs(y) == 1.0):
        raise ValueError("svm_fit: labels y must be -1 or +1")
    lam = _positive(lam, "lam")
    C = 1.0 / (2.0 * lam * m)
    lo = np.minimum(0.0, y * C)
    hi = np.maximum(0.0, y * C)
    return _fit_box_dual(K, y, lam, lo, hi, _hinge_loss, "hinge", "svm_fit", tol, max_iter,
                         alpha0, on_failure, block, continuation)


def pinball_fit(K: ArrayLike, y: ArrayLike, lam: float, tau: float, *, tol: float = 1e-10,
                max_iter: int = 20_000, alpha0: ArrayLike | None = None,
                on_failure: OnFailure = "raise", block: int = 200,
                continuation: bool = True) -> DualResult:
    """Kernel quantile regression with the pinball loss, solved exactly through its box dual.

    Minimises (1/m) Σ ρ_τ(y_i − f(x_i)) + λ‖f‖²_K, ρ_τ(r) = max(τr, (τ − 1)r), by maximising
    D(α) = 2λ(yᵀα − ½αᵀKα) over (τ − 1)C ≤ α_i ≤ τC, C = 1/(2λm).  Parameters, method and
    certificate as in :func:`svm_fit`.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(4)
    >>> x = rng.uniform(0, 1, 80); y = np.sin(5 * x) + 0.3 * rng.standard_normal(80)
    >>> K = np.exp(-(x[:, None] - x[None, :]) ** 2 / 0.05)
    >>> res = pinball_fit(K, y, lam=1e-3, tau=0.9)
    >>> res.certificate.ok
    True
    >>> r = y - K @ res.alpha                          # KKT: α_i = τC where r_i > 0, (τ−1)C where r_i < 0
    >>> C = 1 / (2 * 1e-3 * 80)
    >>> bool(np.allclose(res.alpha[r > 1e-9], 0.9 * C) and np.allclose(res.alpha[r < -1e-9], -0.1 * C))
    True
    """
    K = _gram(K)
    m = K.shape[0]
    y = _vector(y, m)
    lam = _positive(lam, "lam")
    tau = float(tau)
    if not 0.0 < tau < 1.0:
        raise ValueError(f"pinball_fit: tau must lie in (0, 1), got {tau!r}")
    C = 1.0 / (2.0 * lam * m)
    lo = np.full(m, (tau - 1.0) * C)
    hi = np.full(m, tau * C)
    return _fit_box_dual(K, y, lam, lo, hi, _pinball_loss(tau), f"pinball(tau={tau:g})",
                         "pinball_fit", tol, max_iter, alpha0, on_failure, block, continuation,
                         init="sign")


def _fit_box_dual(K: FloatArray, y: FloatArray, lam: float, lo: FloatArray, hi: FloatArray,
                  loss: Callable[[FloatArray, FloatArray], FloatArray], loss_name: str,
                  solver: str, tol: float, max_iter: int, alpha0: ArrayLike | None,
                  on_failure: OnFailure, block: int, continuation: bool = True,
                  init: Literal["zero", "sign"] = "zero",
                  engine: Literal["auto", "numba", "numpy"] = "auto") -> DualResult:
    tol = float(tol)
    if not tol >= 0:
        raise ValueError(f"{solver}: tol must be >= 0, got {tol!r}")
    if int(max_iter) < 1:
        raise ValueError(f"{solver}: max_iter must be >= 1, got {max_iter!r}")
    m = K.shape[0]
    block = max(1, int(block))
    max_iter = int(max_iter)
    nb = _numba_kernels() if engine != "numpy" else None
    if engine == "numba" and nb is None:
        raise RuntimeError(f"{solver}: numba is not available")

    engines = []

    def stage(lam_k: float, lo_k: FloatArray, hi_k: FloatArray, tol_k: float, budget: int,
              a_k: FloatArray, certify: bool = True
              ) -> tuple[FloatArray, int, str, FloatArray | None]:
        nonlocal nb
        it_k = 0
        if nb is not None:
            engines.append("numba")
            a_k, it_k, status_k, f_k = _box_dual_fast(nb, K, y, lam_k, lo_k, hi_k, loss, tol_k,
                                                      budget, a_k, certify)
            if status_k != "handover":
                return a_k, it_k, status_k, f_k
            nb = None                # degenerate faces: the NumPy path from here on
            if it_k >= budget:
                return a_k, it_k, "max_iter", None
        engines.append("numpy")
        a_k, it_np, status_k = _box_dual(K, y, lam_k, lo_k, hi_k, loss, tol_k, budget - it_k,
                                         a_k, block)
        return a_k, it_k + it_np, status_k, None

    def start(lo_k: FloatArray, hi_k: FloatArray) -> FloatArray:
        if alpha0 is not None:
            return np.clip(_vector(alpha0, m, "alpha0"), lo_k, hi_k)
        if init == "sign":  # the loss subgradient at f = 0 (pinball: residual y_i)
            return np.where(y > 0, hi_k, np.where(y < 0, lo_k, 0.0))
        return np.clip(np.zeros(m), lo_k, hi_k)

    iters = 0
    a = None
    # Continuation in λ when the box is wide (C·max K_ii large): the problem is then close to
    # a hard-margin / interpolation problem on which coordinate descent is slow, while a path
    # of warm starts from a larger λ converges quickly.  Intermediate stages are solved to a
    # loose tolerance and certify nothing; only the last stage (the requested λ) does.
    width = float(np.max(hi - lo)) * float(np.max(np.diag(K)))
    # (the compiled path needs it only for much wider boxes, and starts it wider: bench)
    trigger, cont_width = (_CONT_WIDTH, _CONT_WIDTH) if nb is None else _CONT_NUMBA
    if continuation and alpha0 is None and width > trigger:
        lam_k = lam * width / cont_width
        lo_p = hi_p = None
        while lam_k > lam * 1.5 and iters < max_iter:
            s = lam / lam_k                             # the stage's box is s times λ's box
            lo_k, hi_k = lo * s, hi * s
            a = start(lo_k, hi_k) if a is None else _rescale_to_box(a, lo_p, hi_p, lo_k, hi_k)
            a, it_k, _, _ = stage(lam_k, lo_k, hi_k, _CONT_TOL, max_iter - iters, a, False)
            iters += it_k
            lo_p, hi_p = lo_k, hi_k
            lam_k /= _CONT_FACTOR
        if a is not None:
            a = _rescale_to_box(a, lo_p, hi_p, lo, hi)
    if a is None:
        a = start(lo, hi)
    status = "max_iter"
    f = None
    if iters < max_iter:
        a, it_last, status, f = stage(lam, lo, hi, tol, max_iter - iters, a)
        iters += it_last
    if f is None:
        f = K @ a
    primal = float(np.mean(loss(f, y)) + lam * (a @ f))
    dual = float(2 * lam * (y @ a - 0.5 * (a @ f)))
    g = f - y
    gap_sum = float(2 * lam * np.sum((a - lo) * np.maximum(g, 0) + (hi - a) * np.maximum(-g, 0)))
    gap = primal - dual
    value = max(gap, gap_sum) / primal if primal > 0 else (0.0 if max(gap, gap_sum) <= 0 else math.inf)
    converged = status == "converged" and value <= tol
    cert = Certificate("relative_duality_gap", value, tol, converged, solver=solver,
                       details={"primal": primal, "dual": dual, "gap": gap,
                                "gap_from_kkt": gap_sum, "iterations": iters, "status": status,
                                "n_free": int(np.count_nonzero((a > lo) & (a < hi))),
                                "engine": "+".join(dict.fromkeys(engines)) or "numpy"})
    res = DualResult(a, primal, dual, gap, iters, cert, lo, hi, loss_name, lam)
    _handle(cert, res, on_failure)
    return res


_CONT_WIDTH = 0.5     # continuation starts where C·max K_ii = 0.5
_CONT_FACTOR = 4.0    # λ decreases by this factor per stage
_CONT_TOL = 1e-4      # relative gap of the intermediate stages
_CONT_NUMBA = (20.0, 5.0)  # compiled path: continuation where C·max K_ii > 20, from 5


def _rescale_to_box(a: FloatArray, lo_old: FloatArray, hi_old: FloatArray, lo: FloatArray,
                    hi: FloatArray) -> FloatArray:
    """Warm start for a new box: coefficients at a bound move to the same bound of the new box."""
    out = np.where(a <= lo_old, lo, np.where(a >= hi_old, hi, a))
    return np.clip(out, lo, hi)


def _psd_solve(H: FloatArray, b: FloatArray) -> tuple[FloatArray, FloatArray | None]:
    """Solve H x = b for symmetric positive semi-definite H.

    Returns ``(x, n)``: with a well-conditioned Cholesky factor, the solution and ``None``;
    otherwise (singular or nearly singular H) the minimum-norm solution on the range of H
    (eigen-decomposition) and the component ``n`` of b in the (numerical) null space, or
    ``None`` if that component is negligible.
    """
    n = H.shape[0]
    if n == 0:
        return np.zeros(0), None
    hmax = max(float(np.max(np.diag(H))), 1e-300)
    c, info = lapack.dpotrf(H, lower=1, clean=0)
    if info == 0 and float(np.min(np.diag(c))) ** 2 >= 1e-12 * hmax:
        x, info = lapack.dpotrs(c, b, lower=1)
        if info == 0 and np.all(np.isfinite(x)):
            return x, None
    w, V = np.linalg.eigh(H)
    rng_ = w > 1e-12 * max(float(w[-1]), hmax)
    Vr = V[:, rng_]
    x = Vr @ ((Vr.T @ b) / w[rng_])
    Vn = V[:, ~rng_]
    nb = Vn @ (Vn.T @ b)
    if float(np.linalg.norm(nb)) <= 1e-12 * max(float(np.linalg.norm(b)), 1e-300):
        return x, None
    return x, nb


def _cd_block(H: FloatArray, mu: FloatArray, z: FloatArray, lo: FloatArray, hi: FloatArray,
              dinv: FloatArray, sweeps: int, tiny: float) -> FloatArray:
    """Exact cyclic coordinate descent on min ½zᵀHz + (mu − Hz₀)ᵀz over the box.

    ``mu`` (the gradient on the block) is updated in place with BLAS axpy.
    """
    zl = z.tolist()
    lol = lo.tolist()
    hil = hi.tolist()
    dl = dinv.tolist()
    q = len(zl)
    daxpy = blas.daxpy
    for _ in range(sweeps):
        maxd = 0.0
        for i in range(q):
            zi = zl[i]
            new = zi - mu[i] * dl[i]
            if new < lol[i]:
                new = lol[i]
            elif new > hil[i]:
                new = hil[i]
            d = new - zi
            if d != 0.0:
                zl[i] = new
                daxpy(H[i], mu, a=d)
                if abs(d) > maxd:
                    maxd = abs(d)
        if maxd <= tiny:
            break
    return np.array(zl)


def _box_dual(K: FloatArray, y: FloatArray, lam: float, lo: FloatArray, hi: FloatArray,
              loss: Callable[[FloatArray, FloatArray], FloatArray], tol: float, max_iter: int,
              a: FloatArray, block: int, sweeps: int = 10, newton_every: int = 3,
              newton_cap: int = 800, refresh: int = 50, stall: int = 50
              ) -> tuple[FloatArray, int, str]:
    """min ½αᵀKα − yᵀα over lo ≤ α ≤ hi until 2λ·gap/J ≤ tol. Returns (α, iterations, status)."""
    m = K.shape[0]
    d = np.maximum(np.diag(K).copy(), 1e-300 * max(1.0, float(np.max(np.abs(K)))))
    dinv = 1.0 / d
    span = float(np.max(hi - lo))
    tiny = 1e-15 * span
    a = a.copy()
    g = K @ a - y
    best = math.inf
    since_best = 0
    it = 0
    for it in range(1, max_iter + 1):
        gp = np.maximum(g, 0.0)
        gm = np.maximum(-g, 0.0)
        gap = 2 * lam * float(np.sum((a - lo) * gp + (hi - a) * gm))
        f = g + y
        primal = float(np.mean(loss(f, y)) + lam * (a @ f))
        if gap <= tol * primal:
            g = K @ a - y                              # never trust the running gradient
            gp = np.maximum(g, 0.0)
            gm = np.maximum(-g, 0.0)
            f = g + y
            gap = 2 * lam * float(np.sum((a - lo) * gp + (hi - a) * gm))
            primal = float(np.mean(loss(f, y)) + lam * (a @ f))
            direct = primal - 2 * lam * (float(y @ a) - 0.5 * float(a @ f))   # J − D as such
            if max(gap, direct) <= tol * primal:
                return _polish(K, y, lam, lo, hi, loss, a, g, gap), it - 1, "converged"
        elif it % refresh == 0:
            g = K @ a - y
        obj = 0.5 * float(a @ g) - 0.5 * float(y @ a)    # ½αᵀKα − yᵀα
        if not math.isfinite(best) or obj < best - 1e-15 * abs(best):
            best = obj
            since_best = 0
        else:
            since_best += 1
            if since_best >= stall:
                return a, it, "stalled"
        free = (a > lo) & (a < hi)
        nfree = int(np.count_nonzero(free))
        if it % newton_every == 0 and 0 < nfree <= newton_cap:
            moved = _newton_step(K, a, g, lo, hi, free)
            if moved is not None:
                a, g = moved
                continue
        # coordinate-descent phase on the coordinates with the largest exact 1-D gain
        step = np.clip(a - g * dinv, lo, hi) - a
        gain = -(g * step + 0.5 * d * step * step)
        nv = int(np.count_nonzero(gain > 0))
        if nv == 0:
            # no coordinate can improve: only the Newton step can (or we are at rounding level)
            moved = _newton_step(K, a, g, lo, hi, free) if nfree else None
            if moved is not None:
                a, g = moved
            else:
                g = K @ a - y
            continue
        k = min(block, nv)
        W = np.argpartition(gain, m - k)[m - k:]
        W = W[np.argsort(-gain[W], kind="stable")]
        KW = K[W]
        H = KW[:, W]
        zW = a[W]
        mu = g[W].copy()
        z = _cd_block(H, mu, zW, lo[W], hi[W], dinv[W], sweeps, tiny)
        delta = z - zW
        nz = np.flatnonzero(delta)
        if len(nz):
            g += delta[nz] @ KW[nz]
            a[W] = z
    return a, it, "max_iter"


def _numba_kernels() -> ModuleType | None:
    """:mod:`simulations._svm_numba` (:func:`simulations._compiled.compiled_module`), or None: NumPy path."""
    from ._compiled import compiled_module

    return compiled_module("_svm_numba")


def _box_dual_fast(nb: ModuleType, K: FloatArray, y: FloatArray, lam: float, lo: FloatArray,
                   hi: FloatArray, loss: Callable[[FloatArray, FloatArray], FloatArray],
                   tol: float, max_iter: int, a: FloatArray, certify: bool = True,
                   eps0: float = 1e-2, eps_factor: float = 10.0,
                   round_sweeps: tuple[int, int, int] = (50, 200, 400), newton_cap: int = 800,
                   stall: int = 3, handover: tuple[int, int] = (10, 1000)
                   ) -> tuple[FloatArray, int, str, FloatArray | None]:
    """:func:`_box_dual` with the compiled kernels of :mod:`simulations._svm_numba` (``nb``).

    Rounds alternate (i) exact coordinate descent in random order with shrinking and a
    running gradient of all m coordinates (``nb.cd_sweeps``) until the largest
    projected-gradient violation max|PG| is at most ε or a budget of sweeps is used up
    (``round_sweeps`` = (min, start, max); halved when the following Newton step gained more
    than an average sweep, doubled otherwise), and (ii) a
    monotone Newton step on the face of the free coordinates (``nb.face_newton``, or
    :func:`_newton_step` if the face's Gram block is numerically singular; above
    ``newton_cap`` free coordinates, :func:`_newton_step`'s "shrink" step, on LAPACK).  Coordinate descent
    identifies the optimal face quickly but converges slowly on it when its Gram block is
    ill-conditioned (small λ); the Newton step then lands on the exact optimum.  ε starts at
    ``eps0``·max|y| and is divided by ``eps_factor`` after every round in which coordinate
    descent reached it, never below the ε at which max|PG| ≤ ε alone certifies the requested
    gap (gap ≤ 2λ Σ(hi − lo)·ε).  Iterations count sweeps plus Newton steps.

    The duality gap is evaluated from the running gradient after every phase (O(m)); with
    ``certify`` a gap within ``tol`` is accepted only after it is recomputed, with J − D,
    from a fresh f = Kα (one pass over K), exactly as the final certificate computes it, and
    a point reached by coordinate descent gets one more face-Newton step ("polish", kept if
    it lowers that certificate).  Without ``certify`` (continuation stages) the running
    gradient is trusted.  No progress over ``stall`` rounds at the smallest ε: "stalled".

    Degenerate problems (low-rank K with many coordinates free, tiny λ) give singular face
    blocks on which coordinate descent drifts and every Newton step frees only a few
    coordinates; after ``handover[0]`` singular faces and ``handover[1]`` iterations without
    convergence the status is "handover" and the caller continues with the NumPy path
    (:func:`_box_dual`, whose greedy working sets handle them), from the current α.

    Returns ``(α, iterations, status, f)`` with f = Kα freshly computed, or None.
    """
    Kr = K if K.flags.c_contiguous else (K.T if K.flags.f_contiguous else np.ascontiguousarray(K))
    y = np.ascontiguousarray(y, dtype=np.float64)
    lo = np.ascontiguousarray(lo, dtype=np.float64)
    hi = np.ascontiguousarray(hi, dtype=np.float64)
    d = np.ascontiguousarray(np.diag(K), dtype=np.float64)
    a = np.array(a, dtype=np.float64)
    f = nb.kdot(Kr, a)                  # running gradient g = Kα − y (only rows with α_i ≠ 0)
    g = f - y
    fresh = False                       # True while g is exactly K @ a − y
    box = 2.0 * lam * float(np.sum(hi - lo))
    scale = float(np.max(np.abs(y))) or 1.0
    floor = 1e-15 * scale
    eps = eps0 * scale
    it = rnd = since = singular = 0
    budget = round_sweeps[1]
    last = "start"
    phase_cd = True
    cd_status = nb.CONVERGED
    stuck = False
    best = math.inf
    while True:
        _, gsum, nfree = nb.kkt_violation(a, g, lo, hi)
        gap = 2.0 * lam * gsum
        fa = f if fresh else g + y
        primal = float(np.mean(loss(fa, y)) + lam * (a @ fa))
        if gap <= tol * primal:
            if not certify:
                return a, it, "converged", None
            if not fresh:                             # never trust the running gradient
                f = K @ a
                g = f - y
                fresh = True
                continue
            dual = 2.0 * lam * (float(y @ a) - 0.5 * float(a @ f))
            if max(primal - dual, gap) <= tol * primal:
                if last == "cd" and 0 < nfree <= newton_cap and gap > 0.0:
                    a, f = _polish_fast(K, y, lam, lo, hi, loss, a, g, f, primal, dual, gap)
                return a, it, "converged", f
        if it >= max_iter:
            return a, it, "max_iter", f if fresh else None
        if phase_cd:
            # (i) coordinate descent to max|PG| <= eps
            phase_cd = False
            dual = 2.0 * lam * (float(y @ a) - 0.5 * float(a @ fa))
            lowest = max(tol * max(dual, 0.0) / box if box > 0 else 0.0, floor)
            eps_k = max(eps, lowest)
            obj_cd = 0.5 * float(a @ g) - 0.5 * float(y @ a)      # ½αᵀKα − yᵀα
            sweeps, updates, cd_status = nb.cd_sweeps(Kr, y, lo, hi, d, a, g, eps_k,
                                                      min(budget, max_iter - it), rnd)
            obj_nt = 0.5 * float(a @ g) - 0.5 * float(y @ a)
            rnd += 1
            it += sweeps
            if updates:
                fresh = False
                last = "cd"
            stuck = cd_status == nb.STALLED or (cd_status == nb.CONVERGED and eps_k <= lowest)
            if cd_status == nb.CONVERGED:
                eps = max(eps / eps_factor, floor)
            continue
        # (ii) a Newton step on the face of the free coordinates
        phase_cd = True
        if nfree > newton_cap:
            # a large face (small λ, large m): LAPACK's blocked Cholesky instead of the compiled
            # one, and only the "shrink" step (a few factorisations; the ratio-test variant
            # refactorises per bound hit: 74 of 104 s at m = 12800); without a Newton step
            # coordinate descent alone crawls on such faces
            it += 1
            moved = _newton_step(K, a, g, lo, hi, (a > lo) & (a < hi), ("shrink",))
            if moved is not None:
                a, g = moved
                fresh = False
                last = "newton"
        elif 0 < nfree:
            it += 1
            st = nb.face_newton(Kr, a, g, lo, hi, 8)
            if st == nb.NEWTON_SINGULAR:              # singular face block: the LAPACK path
                singular += 1
                if singular >= handover[0] and it >= handover[1]:
                    return a, it, "handover", None
                moved = _newton_step(K, a, g, lo, hi, (a > lo) & (a < hi))
                if moved is not None:
                    a, g = moved
                    st = nb.NEWTON_OK
            if st == nb.NEWTON_OK:
                fresh = False
                last = "newton"
        obj = 0.5 * float(a @ g) - 0.5 * float(y @ a)
        if cd_status == nb.MAX_SWEEPS:
            # sweeps per round: fewer when the Newton step gained more than one sweep did on
            # average (ill-conditioned or singular faces), more when it did not
            if obj_nt - obj > (obj_cd - obj_nt) / max(sweeps, 1):
                budget = max(round_sweeps[0], budget // 2)
            else:
                budget = min(round_sweeps[2], 2 * budget)
        if obj < best - 1e-15 * abs(best) or not math.isfinite(best):
            best = obj
            since = 0
        elif stuck:
            since += 1
            if since >= stall:
                return a, it, "stalled", f if fresh else None


def _polish_fast(K: FloatArray, y: FloatArray, lam: float, lo: FloatArray, hi: FloatArray,
                 loss: Callable[[FloatArray, FloatArray], FloatArray], a: FloatArray,
                 g: FloatArray, f: FloatArray, primal: float, dual: float, gap: float
                 ) -> tuple[FloatArray, FloatArray]:
    """:func:`_polish` comparing the full certificate (KKT gap and J − D) of both points."""
    free = (a > lo) & (a < hi)
    s = _face_newton_ratio(K, a, g, lo, hi, free)
    if not np.any(s):
        return a, f
    b = a + s
    np.clip(b, lo, hi, out=b)
    fb = K @ b
    gb = fb - y
    gap_b = 2 * lam * float(np.sum((b - lo) * np.maximum(gb, 0) + (hi - b) * np.maximum(-gb, 0)))
    primal_b = float(np.mean(loss(fb, y)) + lam * (b @ fb))
    dual_b = 2.0 * lam * (float(y @ b) - 0.5 * float(b @ fb))
    if primal_b > 0 and primal > 0 and (max(gap_b, primal_b - dual_b) / primal_b
                                        < max(gap, primal - dual) / primal):
        return b, fb
    return a, f


def _polish(K: FloatArray, y: FloatArray, lam: float, lo: FloatArray, hi: FloatArray,
            loss: Callable[[FloatArray, FloatArray], FloatArray], a: FloatArray, g: FloatArray,
            gap: float) -> FloatArray:
    """One Newton step on the final face; kept only if the recomputed duality gap shrinks.

    Coordinate descent stops as soon as the gap is below tolerance; when the free set is the
    optimal one this step moves to the exact optimum (gap at rounding level).
    """
    free = (a > lo) & (a < hi)
    if not free.any() or gap == 0.0:
        return a
    s = _face_newton_ratio(K, a, g, lo, hi, free)
    if not np.any(s):
        return a
    b = a + s
    np.clip(b, lo, hi, out=b)
    gb = K @ b - y
    gap_b = 2 * lam * float(np.sum((b - lo) * np.maximum(gb, 0) + (hi - b) * np.maximum(-gb, 0)))
    return b if gap_b < gap else a


def _newton_step(K: FloatArray, a: FloatArray, g: FloatArray, lo: FloatArray, hi: FloatArray,
                 free: NDArray[np.bool_], kinds: tuple[str, ...] = ("shrink", "ratio")
                 ) -> tuple[FloatArray, FloatArray] | None:
    """A monotone Newton step on the current face, or ``None`` if it cannot decrease.

    Tries the cheap "shrinking" face step first (all coordinates that leave the box are fixed
    at once); if the exact line search along it stops short, the active-set (ratio-test)
    variant, which is slower but never stalls on ill-conditioned faces, is tried too and the
    better of the two is taken.
    """
    best = None
    for kind in kinds:
        s = (_face_newton_shrink if kind == "shrink" else _face_newton_ratio)(K, a, g, lo, hi, free)
        gs = float(g @ s)
        if not gs < 0:
            continue
        nz = np.flatnonzero(s)
        Ks = s[nz] @ K[nz]
        sKs = float(s @ Ks)
        t = 1.0 if sKs <= 0 else min(1.0, -gs / sKs)
        dec = t * gs + 0.5 * t * t * sKs
        if best is None or dec < best[0]:
            best = (dec, t, s, Ks)
        if t >= 1.0:
            break
    if best is None:
        return None
    _, t, s, Ks = best
    return np.clip(a + t * s, lo, hi), g + t * Ks


def _face_newton_shrink(K: FloatArray, a: FloatArray, g: FloatArray, lo: FloatArray,
                        hi: FloatArray, free: NDArray[np.bool_], max_shrink: int = 8
                        ) -> FloatArray:
    """Newton direction on the face, shrunk to the box.

    Solves K_FF s_F = −g_F; coordinates whose Newton point leaves the box are fixed at the
    bound they cross and the system is re-solved on the smaller face (a few rounds).  Returns
    s with α + s feasible (not necessarily a descent step: the caller line-searches).
    """
    Fi = np.flatnonzero(free)
    target = a.copy()
    for _ in range(max_shrink):
        if len(Fi) == 0:
            break
        dB = target - a
        dB[Fi] = 0.0
        nzb = np.flatnonzero(dB)
        r = g[Fi] + (dB[nzb] @ K[np.ix_(nzb, Fi)] if len(nzb) else 0.0)
        x, _ = _psd_solve(K[np.ix_(Fi, Fi)], -r)
        x = a[Fi] + x
        below = x < lo[Fi]
        above = x > hi[Fi]
        target[Fi] = x
        if not (below.any() or above.any()):
            break
        target[Fi[below]] = lo[Fi[below]]
        target[Fi[above]] = hi[Fi[above]]
        Fi = Fi[~(below | above)]
    return np.clip(target, lo, hi) - a


def _face_newton_ratio(K: FloatArray, a: FloatArray, g: FloatArray, lo: FloatArray,
                       hi: FloatArray, free: NDArray[np.bool_], max_rounds: int = 8
                       ) -> FloatArray:
    """Active-set Newton steps on the face {α_i fixed for i not free}.

    Each round solves K_FF s_F = −g_F at the current point and moves along s up to the first
    bound (ratio test); a blocked coordinate leaves the face and the next round re-solves on
    the smaller face.  A full step (no blocking) reaches the exact minimiser of the face.
    Every round decreases the dual objective.  If K_FF is singular and −g_F has a component
    in its null space, the objective is linear and decreasing along it: the round follows that
    component to the first bound instead.  Returns s with α + s feasible.
    """
    Fi = np.flatnonzero(free)
    x = a.copy()
    gx = g.copy()
    for _ in range(max_rounds):
        if len(Fi) == 0:
            break
        step, null = _psd_solve(K[np.ix_(Fi, Fi)], -gx[Fi])
        if null is not None:
            step = null
        xF, loF, hiF = x[Fi], lo[Fi], hi[Fi]
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(step > 0, (hiF - xF) / step,
                         np.where(step < 0, (loF - xF) / step, np.inf))
        tmax = float(np.min(t)) if len(t) else math.inf
        full = null is None and tmax >= 1.0
        tt = 1.0 if full else tmax
        if not math.isfinite(tt) or tt <= 0.0 and not np.any(t <= 0.0):
            break
        dF = tt * step
        x[Fi] = np.clip(xF + dF, loF, hiF)
        if full:
            break
        blocked = t <= tmax * (1 + 1e-12)
        x[Fi[blocked & (step > 0)]] = hiF[blocked & (step > 0)]
        x[Fi[blocked & (step < 0)]] = loF[blocked & (step < 0)]
        dF = x[Fi] - xF
        gx += dF @ K[Fi]
        Fi = Fi[~blocked]
    return x - a
