"""Reproducing kernels for the simulations: Gram matrices, diagonals and κ.

Every kernel is a small frozen object with

``kernel(X, Y=None)``
    the Gram matrix ``G[i, j] = K(X[i], Y[j])`` (``Y=None`` means ``Y = X``),
    computed in one vectorised pass;
``kernel.diag(X)``
    the vector ``K(X[i], X[i])``;
``kernel.kappa``
    κ = sup_{x, x' ∈ X} sqrt(K(x, x')) on the kernel's domain X (for a positive
    semi-definite kernel this is sup_x sqrt(K(x, x)), by Cauchy–Schwarz).  This
    is the κ of the kernel papers (e.g. Nie & Wang 2017, J. Inequal. Appl., §5:
    ‖f‖_∞ ≤ κ‖f‖_K, ‖L_K‖ ≤ κ²).

Inputs are arrays of shape ``(n, d)``; a 1-D array of shape ``(n,)`` is read as
``n`` points in dimension 1.  The circle kernels take scalar points in
``[0, 1)`` (any real number is reduced modulo 1).

Kernels provided
----------------
:class:`GaussianKernel`
    K(x, x') = exp(−‖x − x'‖² / (2 σ²)) on R^d, κ = 1.
:class:`LinearKernel`
    K(x, x') = ⟨x, x'⟩ on the closed ball of radius R, κ = R.
:class:`CircleKernel`
    a translation-invariant kernel on the circle [0, 1) given by a finite
    Fourier cosine series.
:class:`PeriodicSobolevKernel`
    the same with infinitely many terms μ_k = c k^(−2s), evaluated in closed
    form through Bernoulli polynomials.

Fourier normalisation of the circle kernels
-------------------------------------------
A circle kernel is ``K(x, x') = μ_0 + Σ_{k≥1} μ_k cos(2πk(x − x'))`` with
μ_k ≥ 0 and Σ μ_k < ∞.  With ρ_X the uniform distribution on [0, 1) the
functions

    φ_0 = 1,  φ_{k,c}(x) = √2 cos(2πkx),  φ_{k,s}(x) = √2 sin(2πkx)   (k ≥ 1)

form an orthonormal basis of L²_ρX and, because
cos(2πk(x − x')) = ½[φ_{k,c}(x)φ_{k,c}(x') + φ_{k,s}(x)φ_{k,s}(x')],

    K(x, x') = μ_0 φ_0(x)φ_0(x') + Σ_{k≥1} (μ_k/2)[φ_{k,c}(x)φ_{k,c}(x') + φ_{k,s}(x)φ_{k,s}(x')].

Hence L_K φ_0 = μ_0 φ_0 and L_K φ_{k,c} = (μ_k/2) φ_{k,c}, L_K φ_{k,s} = (μ_k/2) φ_{k,s}:
the eigenvalue attached to frequency k is τ_0 = μ_0 and τ_k = μ_k/2 (k ≥ 1,
multiplicity two); ``eigenvalue(k)`` returns τ_k.  κ² = K(x, x) = μ_0 + Σ μ_k =
trace(L_K).  A function with orthonormal coefficients
f = a_0 φ_0 + Σ (a_k φ_{k,c} + b_k φ_{k,s}) has ‖f‖²_ρ = a_0² + Σ (a_k² + b_k²) and
‖f‖²_K = a_0²/τ_0 + Σ (a_k² + b_k²)/τ_k; in the raw basis
f = A_0 + Σ (A_k cos + B_k sin) (A_k = √2 a_k) this is
‖f‖²_K = A_0²/μ_0 + Σ (A_k² + B_k²)/μ_k.

The kernel of L_K² (``squared()``) is Σ τ_ℓ² φ_ℓ(x)φ_ℓ(x') = μ_0² + Σ (μ_k²/2) cos(2πk(x − x')),
so ∫ K(x, t) K(x', t) dt is again a circle kernel: this is what makes the
L²_ρ norm of a kernel expansion computable exactly.

Examples
--------
>>> import numpy as np
>>> from simulations.kernels import GaussianKernel, PeriodicSobolevKernel
>>> K = GaussianKernel(sigma=0.5)
>>> G = K(np.array([[0.0], [1.0]]))
>>> np.allclose(G, [[1.0, np.exp(-2.0)], [np.exp(-2.0), 1.0]])
True
>>> S = PeriodicSobolevKernel(s=1)
>>> round(S.kappa ** 2, 12) == round(1 + np.pi ** 2 / 6, 12)
True
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.spatial.distance import cdist

__all__ = [
    "Kernel",
    "GaussianKernel",
    "LinearKernel",
    "CircleKernelBase",
    "CircleKernel",
    "PeriodicSobolevKernel",
    "KernelExpansion",
    "bernoulli_polynomial",
    "cosine_series_closed_form",
]

#: largest p for which Σ cos(2πkx)/k^(2p) is evaluated from the Bernoulli
#: polynomial; above it the (then very fast) series is summed directly.
_MAX_CLOSED_FORM_P = 6


def _as_2d(X: ArrayLike) -> NDArray[np.float64]:
    """Points as a float array of shape (n, d); 1-D input is n points in R^1."""
    A = np.asarray(X, dtype=float)
    if A.ndim == 0:
        return A.reshape(1, 1)
    if A.ndim == 1:
        return A[:, None]
    if A.ndim == 2:
        return A
    raise ValueError(f"points must be an array of shape (n,) or (n, d), got shape {A.shape}")


def _as_circle(X: ArrayLike) -> NDArray[np.float64]:
    """Scalar points on the circle as a 1-D float array reduced into [0, 1)."""
    A = np.asarray(X, dtype=float)
    if A.ndim == 2:
        if A.shape[1] != 1:
            raise ValueError(f"circle points must have shape (n,) or (n, 1), got {A.shape}")
        A = A[:, 0]
    elif A.ndim == 0:
        A = A.reshape(1)
    elif A.ndim != 1:
        raise ValueError(f"circle points must have shape (n,) or (n, 1), got {A.shape}")
    return np.mod(A, 1.0)


class Kernel(ABC):
    """Interface of a reproducing kernel (see the module docstring).

    Subclasses implement :meth:`__call__`, :meth:`diag` and the attribute/property
    ``kappa`` = sup sqrt(K) over the kernel's domain.
    """

    kappa: float

    @abstractmethod
    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        """Gram matrix ``K(X[i], Y[j])`` of shape ``(len(X), len(Y))``."""

    @abstractmethod
    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        """The vector ``K(X[i], X[i])``."""


@dataclass(frozen=True)
class GaussianKernel(Kernel):
    """Gaussian RBF kernel ``K(x, x') = exp(−‖x − x'‖² / (2 σ²))`` on R^d.

    Parameters
    ----------
    sigma : float
        Bandwidth σ > 0.

    Attributes
    ----------
    kappa : float
        κ = 1 (K(x, x) = 1 for every x).

    Examples
    --------
    >>> import numpy as np
    >>> K = GaussianKernel(sigma=1.0)
    >>> X = np.array([[0.0, 0.0], [3.0, 4.0]])
    >>> G = K(X)
    >>> G.shape, float(G[0, 1]) == float(np.exp(-12.5)), K.diag(X).tolist(), K.kappa
    ((2, 2), True, [1.0, 1.0], 1.0)
    """

    sigma: float = 1.0
    kappa: float = field(default=1.0, init=False)

    def __post_init__(self) -> None:
        if not (self.sigma > 0 and math.isfinite(self.sigma)):
            raise ValueError(f"sigma must be a positive finite number, got {self.sigma}")

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        A = _as_2d(X)
        B = A if Y is None else _as_2d(Y)
        if A.shape[1] != B.shape[1]:
            raise ValueError(f"dimension mismatch: {A.shape[1]} vs {B.shape[1]}")
        D2 = cdist(A, B, metric="sqeuclidean")
        # in place: one Gram-sized array (not three), the same operations hence the same bits as
        # np.exp(-D2 / (2σ²))
        np.negative(D2, out=D2)
        np.divide(D2, 2.0 * self.sigma**2, out=D2)
        return np.exp(D2, out=D2)

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        return np.ones(_as_2d(X).shape[0])


@dataclass(frozen=True)
class LinearKernel(Kernel):
    """Linear kernel ``K(x, x') = ⟨x, x'⟩`` on the closed ball {‖x‖ ≤ R} of R^d.

    The RKHS is the space of linear functions f_w(x) = ⟨w, x⟩ with ‖f_w‖_K = ‖w‖.

    Parameters
    ----------
    radius : float
        Radius R > 0 of the input ball (default 1, the unit ball).
    check : bool
        If true (default), raise ``ValueError`` when a point lies outside the
        ball (tolerance 1e-9 relative), since κ would then be wrong.

    Attributes
    ----------
    kappa : float
        κ = R (sup over the ball of sqrt⟨x, x⟩).

    Examples
    --------
    >>> import numpy as np
    >>> K = LinearKernel()
    >>> X = np.array([[0.6, 0.8], [1.0, 0.0]])
    >>> K(X).round(12).tolist(), K.diag(X).round(12).tolist(), K.kappa
    ([[1.0, 0.6], [0.6, 1.0]], [1.0, 1.0], 1.0)
    """

    radius: float = 1.0
    check: bool = True

    def __post_init__(self) -> None:
        if not (self.radius > 0 and math.isfinite(self.radius)):
            raise ValueError(f"radius must be a positive finite number, got {self.radius}")

    @property
    def kappa(self) -> float:  # type: ignore[override]
        return float(self.radius)

    def _checked(self, X: ArrayLike) -> NDArray[np.float64]:
        A = _as_2d(X)
        if self.check and A.size:
            norms = np.linalg.norm(A, axis=1)
            if norms.max() > self.radius * (1.0 + 1e-9):
                raise ValueError(
                    f"point of norm {norms.max():.6g} outside the ball of radius {self.radius}"
                )
        return A

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        A = self._checked(X)
        B = A if Y is None else self._checked(Y)
        return A @ B.T

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        A = self._checked(X)
        return np.einsum("ij,ij->i", A, A)


# ---------------------------------------------------------------------------
# circle kernels
# ---------------------------------------------------------------------------


@lru_cache(maxsize=64)
def _bernoulli_numbers(n: int) -> tuple[Fraction, ...]:
    """Exact Bernoulli numbers B_0..B_n (convention B_1 = −1/2)."""
    B: list[Fraction] = []
    for m in range(n + 1):
        if m == 0:
            B.append(Fraction(1))
            continue
        s = sum((math.comb(m + 1, j) * B[j] for j in range(m)), Fraction(0))
        B.append(-s / (m + 1))
    return tuple(B)


def _bernoulli_coeffs(n: int) -> list[float]:
    """Coefficients C(n, j) B_j of x^(n−j), j = 0..n, as floats (Horner order)."""
    Bn = _bernoulli_numbers(n)
    return [float(math.comb(n, j) * Bn[j]) for j in range(n + 1)]


def _closed_form_prefactor(p: int) -> float:
    """(−1)^(p+1) (2π)^(2p) / (2 (2p)!) of :func:`cosine_series_closed_form`."""
    return (-1) ** (p + 1) * (2 * math.pi) ** (2 * p) / (2 * math.factorial(2 * p))


def bernoulli_polynomial(n: int, x: ArrayLike) -> NDArray[np.float64]:
    """Bernoulli polynomial ``B_n(x) = Σ_j C(n, j) B_j x^(n−j)`` (B_1 = −1/2).

    Coefficients are exact rationals, the evaluation is Horner's rule in float.

    Examples
    --------
    >>> import numpy as np
    >>> bernoulli_polynomial(2, np.array([0.0, 0.5, 1.0])).round(12).tolist()
    [0.166666666667, -0.083333333333, 0.166666666667]
    """
    if n < 0:
        raise ValueError("n must be ≥ 0")
    coeffs = _bernoulli_coeffs(n)  # of x^(n-j)
    x = np.asarray(x, dtype=float)
    out = np.zeros_like(x)
    for c in coeffs:
        out = out * x + c
    return out


def cosine_series_closed_form(d: ArrayLike, p: int) -> NDArray[np.float64]:
    """``S_p(d) = Σ_{k≥1} cos(2πkd) / k^(2p)`` for integer p ≥ 1, any real d.

    Uses the Fourier series of the Bernoulli polynomials: for 0 ≤ x ≤ 1,

        Σ_{k≥1} cos(2πkx)/k^(2p) = (−1)^(p+1) (2π)^(2p) B_{2p}(x) / (2 (2p)!),

    e.g. p = 1: π²(x² − x + 1/6); p = 2: −(π⁴/3)(x⁴ − 2x³ + x² − 1/30).  d is
    reduced modulo 1 and folded into [0, 1/2] (B_{2p}(1 − x) = B_{2p}(x)) to
    limit cancellation.  For p > 6 the series itself is summed (its tail
    after N terms is below N^(1−2p)/(2p−1) < 1e-17).

    Examples
    --------
    >>> import numpy as np
    >>> bool(np.isclose(cosine_series_closed_form(0.0, 1), np.pi ** 2 / 6, rtol=1e-15))
    True
    """
    if int(p) != p or p < 1:
        raise ValueError(f"p must be a positive integer, got {p}")
    p = int(p)
    x = np.mod(np.asarray(d, dtype=float), 1.0)
    x = np.minimum(x, 1.0 - x)
    if p <= _MAX_CLOSED_FORM_P:
        return _closed_form_prefactor(p) * bernoulli_polynomial(2 * p, x)
    n_terms = 1
    while n_terms ** (1 - 2 * p) / (2 * p - 1) > 1e-18:
        n_terms += 1
    k = np.arange(1, n_terms + 1, dtype=float)
    # sum smallest terms first
    out = np.zeros_like(x)
    for kk in k[::-1]:
        out = out + np.cos(2 * math.pi * kk * x) / kk ** (2 * p)
    return out


def _chebyshev_cosine_sum(d: NDArray[np.float64], mu: NDArray[np.float64]) -> NDArray[np.float64]:
    """Σ_{k=0}^{N} mu[k] cos(2πk d) via Clenshaw on T_k(cos 2πd) = cos(2πk d)."""
    return np.polynomial.chebyshev.chebval(np.cos(2 * math.pi * d), mu)


class CircleKernelBase(Kernel):
    """Common code of the translation-invariant circle kernels."""

    def _profile(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        """k(d) with K(x, x') = k(x − x')."""
        raise NotImplementedError

    def mu(self, k: ArrayLike) -> NDArray[np.float64]:
        """Fourier cosine coefficients μ_k (μ_0 for k = 0)."""
        raise NotImplementedError

    def eigenvalue(self, k: ArrayLike) -> NDArray[np.float64]:
        """Eigenvalue τ_k of L_K (ρ_X uniform) for frequency k: τ_0 = μ_0, τ_k = μ_k/2."""
        k = np.asarray(k)
        mu = self.mu(k)
        return np.where(k == 0, mu, mu / 2.0)

    def profile(self, d: ArrayLike) -> NDArray[np.float64]:
        """The function k(d) = K(x, x − d) (any shape; d reduced modulo 1)."""
        return self._profile(np.mod(np.asarray(d, dtype=float), 1.0))

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        a = _as_circle(X)
        b = a if Y is None else _as_circle(Y)
        return self._profile(np.mod(a[:, None] - b[None, :], 1.0))

    def diag(self, X: ArrayLike) -> NDArray[np.float64]:
        return np.full(_as_circle(X).shape[0], self.kappa**2)


@dataclass(frozen=True, eq=True)
class CircleKernel(CircleKernelBase):
    """Circle kernel with a finite Fourier series ``K(x, x') = Σ_{k=0}^{N} μ_k cos(2πk(x − x'))``.

    See the module docstring for the eigen-decomposition (τ_0 = μ_0, τ_k = μ_k/2).

    Parameters
    ----------
    mus : tuple of float
        (μ_0, μ_1, ..., μ_N), all ≥ 0 (so that K is positive semi-definite).

    Attributes
    ----------
    kappa : float
        sqrt(Σ μ_k) = sqrt(K(x, x)).

    Examples
    --------
    >>> import numpy as np
    >>> K = CircleKernel((1.0, 0.5))          # 1 + 0.5 cos(2π(x − x'))
    >>> K(np.array([0.0, 0.5])).round(12).tolist()
    [[1.5, 0.5], [0.5, 1.5]]
    >>> K.eigenvalue([0, 1]).tolist(), round(K.kappa ** 2, 12)
    ([1.0, 0.25], 1.5)
    """

    mus: tuple[float, ...]

    def __post_init__(self) -> None:
        mus = tuple(float(m) for m in self.mus)
        if not mus or any(not (m >= 0 and math.isfinite(m)) for m in mus):
            raise ValueError("mus must be a non-empty sequence of finite numbers ≥ 0")
        object.__setattr__(self, "mus", mus)

    @property
    def kappa(self) -> float:  # type: ignore[override]
        return math.sqrt(math.fsum(self.mus))

    def mu(self, k: ArrayLike) -> NDArray[np.float64]:
        k = np.asarray(k, dtype=np.int64)
        table = np.asarray(self.mus)
        out = np.zeros(k.shape)
        inside = (k >= 0) & (k < table.size)
        out[inside] = table[k[inside]]
        return out

    def _profile(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        return _chebyshev_cosine_sum(d, np.asarray(self.mus))

    def squared(self) -> CircleKernel:
        """Kernel of L_K²: μ'_0 = μ_0², μ'_k = μ_k²/2 (see the module docstring)."""
        m = np.asarray(self.mus)
        return CircleKernel(tuple([m[0] ** 2, *(m[1:] ** 2 / 2.0)]))


@dataclass(frozen=True, eq=True)
class PeriodicSobolevKernel(CircleKernelBase):
    """Periodic Sobolev kernel ``K(x, x') = μ_0 + c Σ_{k≥1} k^(−2s) cos(2πk(x − x'))``.

    The cosine coefficients are μ_0 and μ_k = c k^(−2s) (k ≥ 1); the L_K
    eigenvalues (ρ_X uniform on [0, 1)) are τ_0 = μ_0 and τ_k = c k^(−2s)/2 with
    eigenfunctions √2 cos(2πk·), √2 sin(2πk·).  The RKHS is the periodic Sobolev
    space H^s with ‖f‖²_K = A_0²/μ_0 + Σ k^(2s)(A_k² + B_k²)/c for
    f = A_0 + Σ (A_k cos + B_k sin); for s = 1, μ_0 = c = 1 this is
    (∫f)² + ∫ f'² / (2π²).  Evaluated in closed form,
    K(x, x') = μ_0 + c S_s(x − x') with S_s from :func:`cosine_series_closed_form`
    (s = 1: μ_0 + c π²(d² − d + 1/6), d = (x − x') mod 1).

    Parameters
    ----------
    s : int
        Smoothness, a positive integer.
    mu0 : float
        μ_0 > 0 (the eigenvalue of the constants).
    scale : float
        c > 0.

    Attributes
    ----------
    kappa : float
        sqrt(μ_0 + c ζ(2s)).

    Examples
    --------
    >>> import numpy as np
    >>> K = PeriodicSobolevKernel(s=1, mu0=1.0, scale=1.0)
    >>> x = np.array([0.0, 0.25])
    >>> G = K(x)
    >>> bool(np.isclose(G[0, 1], 1 + np.pi ** 2 * (0.25 ** 2 - 0.25 + 1 / 6)))
    True
    >>> K.eigenvalue([0, 1, 2]).tolist()
    [1.0, 0.5, 0.125]
    >>> K1 = PeriodicSobolevKernel.with_kappa(s=2, kappa=1.0)
    >>> round(K1.kappa, 12)
    1.0
    """

    s: int = 1
    mu0: float = 1.0
    scale: float = 1.0

    def __post_init__(self) -> None:
        if int(self.s) != self.s or self.s < 1:
            raise ValueError(f"s must be a positive integer, got {self.s}")
        object.__setattr__(self, "s", int(self.s))
        if not (self.mu0 > 0 and math.isfinite(self.mu0)):
            raise ValueError("mu0 must be positive and finite")
        if not (self.scale > 0 and math.isfinite(self.scale)):
            raise ValueError("scale must be positive and finite")
        object.__setattr__(self, "mu0", float(self.mu0))
        object.__setattr__(self, "scale", float(self.scale))

    @classmethod
    def with_kappa(cls, s: int = 1, kappa: float = 1.0) -> PeriodicSobolevKernel:
        """The kernel with μ_0 = c = κ²/(1 + ζ(2s)), so that sup sqrt(K) = κ."""
        z = _zeta_even(s)
        v = kappa**2 / (1.0 + z)
        return cls(s=s, mu0=v, scale=v)

    @property
    def kappa(self) -> float:  # type: ignore[override]
        return math.sqrt(self.mu0 + self.scale * _zeta_even(self.s))

    def mu(self, k: ArrayLike) -> NDArray[np.float64]:
        k = np.asarray(k)
        kf = np.where(k == 0, 1.0, np.abs(k).astype(float))
        return np.where(k == 0, self.mu0, self.scale * kf ** (-2.0 * self.s))

    def _profile(self, d: NDArray[np.float64]) -> NDArray[np.float64]:
        return self.mu0 + self.scale * cosine_series_closed_form(d, self.s)

    def __call__(self, X: ArrayLike, Y: ArrayLike | None = None) -> NDArray[np.float64]:
        """Gram matrix; for s ≤ 6 one compiled pass (:func:`simulations._loops_numba.sobolev_gram`).

        The compiled pass performs the operations of the NumPy path (``_profile`` of the
        difference reduced modulo 1) in the same order, so the two agree bit for bit.
        """
        if self.s > _MAX_CLOSED_FORM_P:
            return super().__call__(X, Y)
        from ._loops_numba import sobolev_gram

        a = np.ascontiguousarray(_as_circle(X))
        b = a if Y is None else np.ascontiguousarray(_as_circle(Y))
        coeffs = np.array(_bernoulli_coeffs(2 * self.s))
        return sobolev_gram(a, b, coeffs, _closed_form_prefactor(self.s), self.mu0, self.scale)

    def series(
        self, X: ArrayLike, Y: ArrayLike | None = None, n_terms: int = 1000
    ) -> NDArray[np.float64]:
        """Gram matrix from the series truncated after ``n_terms`` frequencies (for testing).

        The truncation error is at most c Σ_{k>n} k^(−2s) ≤ c n^(1−2s)/(2s − 1).
        """
        a = _as_circle(X)
        b = a if Y is None else _as_circle(Y)
        d = np.mod(a[:, None] - b[None, :], 1.0)
        mu = self.mu(np.arange(n_terms + 1))
        return _chebyshev_cosine_sum(d, mu)

    def squared(self) -> PeriodicSobolevKernel:
        """Kernel of L_K²: ``PeriodicSobolevKernel(2s, μ_0², c²/2)``."""
        return PeriodicSobolevKernel(s=2 * self.s, mu0=self.mu0**2, scale=self.scale**2 / 2.0)


def _zeta_even(s: int) -> float:
    """ζ(2s) = Σ_{k≥1} k^(−2s) = S_s(0)."""
    return float(cosine_series_closed_form(0.0, s))


# ---------------------------------------------------------------------------
# kernel expansions
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class KernelExpansion:
    """A function ``f(x) = Σ_i α_i K(c_i, x) + b`` (kernel expansion plus a constant offset).

    This is the form of every regularised kernel ERM solution (representer
    theorem) and, with ``offset`` = the Laplace noise b, of the output
    perturbation f_z + b of the seed papers.

    Parameters
    ----------
    kernel : Kernel
    centers : array, shape (n,) or (n, d)
    alpha : array, shape (n,)
    offset : float
        The constant b (default 0).

    Examples
    --------
    >>> import numpy as np
    >>> f = KernelExpansion(GaussianKernel(1.0), np.array([[0.0]]), np.array([2.0]), offset=0.5)
    >>> f(np.array([[0.0], [1.0]])).round(6).tolist()
    [2.5, 1.713061]
    >>> round(f.rkhs_norm_sq(), 12)   # α^T K α, the offset is not included
    4.0
    """

    kernel: Kernel
    centers: NDArray[np.float64]
    alpha: NDArray[np.float64]
    offset: float = 0.0

    def __post_init__(self) -> None:
        alpha = np.asarray(self.alpha, dtype=float).reshape(-1)
        centers = np.asarray(self.centers, dtype=float)
        if centers.shape[0] != alpha.shape[0]:
            raise ValueError(f"{centers.shape[0]} centers but {alpha.shape[0]} coefficients")
        object.__setattr__(self, "alpha", alpha)
        object.__setattr__(self, "centers", centers)
        object.__setattr__(self, "offset", float(self.offset))

    def __call__(self, X: ArrayLike) -> NDArray[np.float64]:
        """Values f(X[i]); shape (len(X),)."""
        return self.kernel(X, self.centers) @ self.alpha + self.offset

    def rkhs_norm_sq(self) -> float:
        """‖Σ α_i K(c_i, ·)‖²_K = α^T K(C, C) α (offset excluded)."""
        return float(self.alpha @ self.kernel(self.centers) @ self.alpha)
