"""Distributions with a known truth, and two bundled real data sets.

The learning-theory setting of the kernel papers (Nie & Wang 2017, J. Inequal.
Appl., §4–§5; Nie & Wang 2017, J. Appl. Math. Phys., §4.2): inputs x in a compact X, outputs |y| ≤ M, a
Mercer kernel K with κ = sup sqrt(K), the integral operator
L_K f(t) = ∫ f(x) K(x, t) dρ_X(x), the regularity assumption f_ρ ∈ L_K^r(L²_ρX),
the regularised target f_λ = (L_K + λI)^(−1) L_K f_ρ, the least-squares
approximation error D(λ) = ‖f_λ − f_ρ‖²_ρ + λ‖f_λ‖²_K and, for the square
loss, E(f) − E(f_ρ) = ‖f − f_ρ‖²_ρ.

:class:`CircleRegression`
    x uniform on the circle [0, 1), the periodic Sobolev kernel of
    :mod:`simulations.kernels`, f_ρ = L_K^r g with an explicit g, bounded
    uniform noise; f_ρ, f_λ, D(λ), excess risks and RKHS norms are exact
    spectral sums.
:class:`BinaryClassification`
    x uniform on [0, 1), a closed-form η(x) = P(y = 1 | x) with a single Bayes
    boundary; exact misclassification excess, hinge risk by high-order quadrature.
:class:`RealDataset` (:func:`load_real_dataset`)
    scikit-learn's bundled *diabetes* (regression) and *breast_cancer*
    (binary) data, scaled into the unit ball, with a seeded train/held-out split.

Randomness: every ``sample(m, rng)`` takes ``rng`` as a
:class:`numpy.random.Generator`, a :class:`numpy.random.SeedSequence` or an
int seed (turned into a Generator by :func:`numpy.random.default_rng`, i.e.
through ``SeedSequence``); the same seed gives the same numbers.  Samples are
returned as ``X`` of shape ``(m, d)`` (``d = 1`` for the synthetic problems) and
``y`` of shape ``(m,)``.

Callables passed to the risk functions (``excess_risk``, ``hinge_risk``, ...)
are called with an array of shape ``(n, 1)`` and must return ``n`` values (a
:class:`~simulations.kernels.KernelExpansion` does).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .kernels import CircleKernelBase, KernelExpansion, PeriodicSobolevKernel

__all__ = [
    "RNGLike",
    "as_generator",
    "TrigSeries",
    "evaluate_series",
    "CircleRegression",
    "BinaryClassification",
    "RealDataset",
    "load_real_dataset",
]

RNGLike = np.random.Generator | np.random.SeedSequence | int
FunctionLike = Callable[[NDArray[np.float64]], ArrayLike]

_SQRT2 = math.sqrt(2.0)
#: largest level j (frequency 2^j) of the default f_ρ: for x on the 2^-53 grid
#: of ``Generator.random`` the phases 2^j x mod 1 still take 2^(53−j) ≥ 8192 values.
_MAX_LEVEL = 40


def as_generator(rng: RNGLike) -> np.random.Generator:
    """A numpy Generator from a Generator (returned as is), a SeedSequence or an int seed.

    Examples
    --------
    >>> float(as_generator(7).random()) == float(as_generator(np.random.SeedSequence(7)).random())
    True
    """
    if isinstance(rng, np.random.Generator):
        return rng
    if isinstance(rng, np.random.SeedSequence | int | np.integer):
        return np.random.default_rng(rng)
    raise TypeError(f"rng must be a numpy Generator, SeedSequence or int seed, got {type(rng)!r}")


def _points_1d(x: ArrayLike) -> NDArray[np.float64]:
    a = np.asarray(x, dtype=float)
    if a.ndim == 2 and a.shape[1] == 1:
        a = a[:, 0]
    elif a.ndim == 0:
        a = a.reshape(1)
    elif a.ndim != 1:
        raise ValueError(f"expected points of shape (n,) or (n, 1), got {a.shape}")
    return a


def _call(f: FunctionLike, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """Evaluate a user callable at 1-D points passed as shape (n, 1)."""
    v = np.asarray(f(x[:, None]), dtype=float).reshape(-1)
    if v.shape[0] != x.shape[0]:
        raise ValueError(f"callable returned {v.shape[0]} values for {x.shape[0]} points")
    return v


# ---------------------------------------------------------------------------
# trigonometric series on the circle
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class TrigSeries:
    """A finite trigonometric series in the orthonormal basis of L²([0, 1)).

    f(x) = Σ_i [a_i φ_{k_i,c}(x) + b_i φ_{k_i,s}(x)] with φ_{0,c} = 1, φ_{0,s} = 0,
    φ_{k,c} = √2 cos(2πk·), φ_{k,s} = √2 sin(2πk·) (k ≥ 1), so that
    ‖f‖²_ρ = Σ (a_i² + b_i²) for ρ_X uniform.

    Parameters
    ----------
    freqs : array of int
        Distinct frequencies k_i ≥ 0 (stored sorted).
    cos, sin : array of float
        Coefficients a_i and b_i (b_i must be 0 where k_i = 0).

    Examples
    --------
    >>> import numpy as np
    >>> f = TrigSeries([0, 1], cos=[0.5, 1.0], sin=[0.0, 0.0])
    >>> bool(np.isclose(f(np.array([0.25]))[0], 0.5))   # 0.5 + √2 cos(π/2)
    True
    >>> f.norm_sq()
    1.25
    """

    freqs: NDArray[np.int64]
    cos: NDArray[np.float64]
    sin: NDArray[np.float64]

    def __post_init__(self) -> None:
        k = np.asarray(self.freqs, dtype=np.int64).reshape(-1)
        a = np.asarray(self.cos, dtype=float).reshape(-1)
        b = np.asarray(self.sin, dtype=float).reshape(-1)
        if not (k.shape == a.shape == b.shape):
            raise ValueError("freqs, cos and sin must have the same length")
        if np.any(k < 0) or np.unique(k).size != k.size:
            raise ValueError("freqs must be distinct integers ≥ 0")
        if np.any(b[k == 0] != 0):
            raise ValueError("the sine coefficient of frequency 0 must be 0")
        order = np.argsort(k)
        object.__setattr__(self, "freqs", k[order])
        object.__setattr__(self, "cos", a[order])
        object.__setattr__(self, "sin", b[order])

    def __call__(self, x: ArrayLike, chunk: int = 65536) -> NDArray[np.float64]:
        """Values at points x (shape (n,) or (n, 1)); phases 2πk x are reduced mod 2π exactly."""
        return evaluate_series([self], x, chunk)[0]

    def weights(self) -> NDArray[np.float64]:
        """a_i² + b_i², the squared L²_ρ mass at each frequency."""
        return self.cos**2 + self.sin**2

    def norm_sq(self) -> float:
        """‖f‖²_ρ = Σ (a_i² + b_i²)."""
        return float(math.fsum(self.weights()))

    def sup_bound(self) -> float:
        """Σ |a_0| + √2 Σ_{k≥1} (|a_k| + |b_k|) ≥ sup |f|."""
        w = np.where(self.freqs == 0, 1.0, _SQRT2)
        return float(math.fsum(w * (np.abs(self.cos) + np.abs(self.sin))))

    def multiply(self, factor: ArrayLike) -> TrigSeries:
        """The series with coefficients of frequency k_i multiplied by factor[i] (a spectral multiplier)."""
        f = np.asarray(factor, dtype=float)
        return TrigSeries(self.freqs, self.cos * f, self.sin * f)

    def __sub__(self, other: TrigSeries) -> TrigSeries:
        k = np.union1d(self.freqs, other.freqs)
        a = np.zeros(k.size)
        b = np.zeros(k.size)
        i = np.searchsorted(k, self.freqs)
        a[i] += self.cos
        b[i] += self.sin
        j = np.searchsorted(k, other.freqs)
        a[j] -= other.cos
        b[j] -= other.sin
        return TrigSeries(k, a, b)


def evaluate_series(series: list[TrigSeries] | tuple[TrigSeries, ...], x: ArrayLike,
                    chunk: int = 65536) -> list[NDArray[np.float64]]:
    """Values of several :class:`TrigSeries` at the same points x: ``[s(x) for s in series]``, bit for bit.

    Series with the same frequencies as the first (f_ρ, f_λ and L_K f_ρ of one problem, say)
    share the cosines and sines of the phases, which dominate the cost; each value is then
    formed by the operations of a lone call, in the same order and with the same array shapes.

    Examples
    --------
    >>> import numpy as np
    >>> f = TrigSeries([0, 1, 3], cos=[0.5, 1.0, 0.2], sin=[0.0, -0.3, 0.1])
    >>> x = np.random.default_rng(0).random(5)
    >>> a, b = evaluate_series([f, f.multiply([1.0, 0.5, 0.25])], x)
    >>> bool(np.array_equal(a, f(x))), bool(np.array_equal(b, f.multiply([1.0, 0.5, 0.25])(x)))
    (True, True)
    """
    t = _points_1d(x)
    outs: list[NDArray[np.float64]] = []
    groups: list[tuple[TrigSeries, list[int]]] = []
    for j, f in enumerate(series):
        outs.append(np.empty_like(t))
        for head, members in groups:
            if head.freqs.shape == f.freqs.shape and np.array_equal(head.freqs, f.freqs):
                members.append(j)
                break
        else:
            groups.append((f, [j]))
    # the compiled table for finite points and products t·k only (a NaN's sign and payload may differ from
    # NumPy's: np.mod(inf, 1.0) is −NaN, the compiled % +NaN)
    compiled = (t.size * len(groups) >= _TRIG_COMPILED_MIN and _products_finite(t, [h.freqs for h, _ in groups])
                and _trig_compiled_ok())
    for head, members in groups:
        k = head.freqs.astype(float)
        w = np.where(head.freqs == 0, 1.0, _SQRT2)
        coef = [(w * series[j].cos, w * series[j].sin) for j in members]
        for i in range(0, t.size, chunk):
            c, s_ = _trig_table(t[i : i + chunk], k, compiled)
            for j, (wc, ws) in zip(members, coef, strict=True):
                outs[j][i : i + chunk] = c @ wc + s_ @ ws
    return outs


#: points × groups from which :func:`evaluate_series` builds its cos/sin table in the compiled loop (below,
#: the NumPy steps: same bits, and no probe for a one-off evaluation)
_TRIG_COMPILED_MIN = 64


def _trig_table(t: NDArray[np.float64], k: NDArray[np.float64], compiled: bool
                ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(cos, sin) of the phases 2π(t_i k_j mod 1), (len(t), len(k)) C-contiguous: NumPy's steps, or
    :func:`simulations._loops_numba.trig_phase_table` (the same bits where :func:`_trig_compiled_ok`)."""
    if not compiled:
        ph = 2 * math.pi * np.mod(np.outer(t, k), 1.0)
        return np.cos(ph), np.sin(ph)
    from ._loops_numba import trig_phase_table

    c = np.empty((t.size, k.size))
    s_ = np.empty((t.size, k.size))
    trig_phase_table(np.ascontiguousarray(t), np.ascontiguousarray(k), c, s_)
    return c, s_


def _products_finite(t: NDArray[np.float64], freqs: list[NDArray[Any]]) -> bool:
    """Whether every t_i·k_j is finite (max |t| · max |k| finite: rounding is monotone)."""
    if t.size == 0:
        return True
    tmax = float(np.max(np.abs(t)))
    kmax = max((float(np.max(np.abs(k.astype(float)))) for k in freqs if k.size), default=0.0)
    return math.isfinite(tmax) and math.isfinite(tmax * kmax)


_TRIG_OK: list[bool] = []


def _trig_compiled_ok() -> bool:
    """Whether the compiled cos/sin table equals NumPy's on this machine (checked once per process).

    NumPy's float64 ``np.cos``/``np.sin`` are libm's on AVX2 builds, as the compiled loop's; an AVX-512 build
    has its own vectorised versions whose last bits differ; where numba uses Intel SVML the NumPy steps are
    kept without a probe.  A probe of 4120 points × 41 frequencies (uniform points, multiples of 2⁻⁵³, 0, −0,
    ¼, ½, ¾ and their neighbours, subnormal and tiny points — phases from 0 to just below 2π, the cos/sin
    arguments' whole range —, negative, large and huge points with finite products) is computed both ways
    and compared exactly; any difference keeps the NumPy steps.
    """
    if not _TRIG_OK:
        from ._loops_numba import numba_uses_svml

        if numba_uses_svml():
            _TRIG_OK.append(False)
            return False
        g = np.random.default_rng(2024)
        edges = [0.0, -0.0, 0.5, 0.25, 0.75, 0.125, 1 / 3, 1 - 2.0**-53, 1 - 2.0**-40, 2.0**-53, 5e-324, 1e-310, 1e-300,
                 2.0**-1000, np.nextafter(0.25, 1), np.nextafter(0.5, 0), np.nextafter(0.75, 0), np.nextafter(0.75, 1),
                 -0.3, -2.0**-53, -5e-324, 1e6 + 0.1, 123.456, 1e15 + 0.5, 1e290, -1e290]
        t = np.concatenate([g.random(4000), edges, g.uniform(-4.0, 4.0, 88), g.uniform(-1e9, 1e9, 6)])
        k = np.concatenate([np.arange(33.0), 2.0 ** np.arange(33, 41)])
        c0, s0 = _trig_table(t, k, False)
        c1, s1 = _trig_table(t, k, True)
        _TRIG_OK.append(bool(c0.tobytes() == c1.tobytes() and s0.tobytes() == s1.tobytes()))
    return _TRIG_OK[0]


# ---------------------------------------------------------------------------
# regression on the circle
# ---------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class CircleRegression:
    """Least-squares regression on the circle with an exactly known f_ρ ∈ L_K^r.

    Model.  x ~ U[0, 1), y = f_ρ(x) + e, e ~ U[−σ, σ] independent of x, so
    E(f_ρ) = Var(e) = σ²/3 (the Bayes risk) and |y| ≤ M = Σ|coefficients of f_ρ|·√2 + σ
    (``M = f_rho_series.sup_bound() + sigma``, an upper bound for ‖f_ρ‖_∞ + σ).
    The kernel is ``PeriodicSobolevKernel(s, mu0, scale)``:
    L_K has eigenvalues τ_0 = μ_0, τ_k = c k^(−2s)/2 on √2 cos(2πk·), √2 sin(2πk·).

    Truth.  f_ρ = A · L_K^r g, i.e. the coefficient of f_ρ on φ_{k,·} is
    A τ_k^r ĝ_k, so ‖L_K^(−r) f_ρ‖_ρ = A‖g‖_ρ (``source_norm``) is finite by
    construction.  The constant A makes ``f_rho_series.sup_bound()`` equal
    ``f_sup`` (A = 1 when ``f_sup`` is None).  The default g is lacunary: level
    j = 0, ..., n_levels − 1 sits on frequency k_j = 2^j (on √2 cos for even j,
    on √2 sin for odd j) with ĝ_{k_j} = 2^(−2sηj).  Then the coefficients of f_ρ
    decay geometrically, f_ρ(x) is a fast exact finite sum, and the infinite
    version (n_levels → ∞) lies in L_K^(r') exactly for r' < r + η; η > 0 is the
    margin that keeps ‖L_K^(−r) f_ρ‖ finite.

    Exact formulas (sums over the frequencies of f_ρ, w_k = a_k² + b_k² its
    squared coefficients):

    * f_λ = (L_K + λI)^(−1) L_K f_ρ has coefficients τ_k/(τ_k + λ) · (a_k, b_k);
    * ‖f_λ − f_ρ‖²_ρ = Σ w_k λ²/(τ_k + λ)²,  λ‖f_λ‖²_K = Σ w_k λτ_k/(τ_k + λ)²;
    * D(λ) = ‖f_λ − f_ρ‖²_ρ + λ‖f_λ‖²_K = Σ w_k λ/(τ_k + λ) = λ⟨(L_K + λ)^(−1) f_ρ, f_ρ⟩.

    Decay of D.  With the default g, D(q^n λ)/D(λ) → q^(2(r+η)) (q = 2^(−2s), the
    ratio of consecutive eigenvalues) while 2(r + η) < 1, and D(λ) ~ λ Σ w_k/τ_k
    when 2(r + η) > 1: ``d_exponent`` = min{2(r + η), 1}, which is ≥ the
    exponent min{2r, 1} of Nie & Wang 2017 (J. Appl. Math. Phys.), Proposition 4.  Because the series is finite,
    D(λ)/λ → Σ w_k/τ_k for λ far below ``lambda_floor`` (the smallest τ_k):
    the exponent is that of the infinite construction on λ ≫ ``lambda_floor``.

    Parameters
    ----------
    r : float
        Regularity exponent r > 0 (f_ρ ∈ L_K^r).
    s : int
        Kernel smoothness (positive integer).
    sigma : float
        Noise half-width σ ≥ 0.
    eta : float
        Regularity margin η > 0 of the default g.
    f_sup : float or None
        Target value of the bound Σ√2|coef| on sup|f_ρ| (default 1); None: A = 1.
    n_levels : int
        Number of lacunary levels of the default g (1 ≤ n_levels ≤ 41).
    mu0, scale : float
        μ_0 and c of the kernel.
    g : TrigSeries or None
        A user-chosen g instead of the lacunary default (``d_exponent`` is then
        None).

    Examples
    --------
    >>> import numpy as np
    >>> P = CircleRegression(r=0.25, s=1, sigma=0.1)
    >>> X, y = P.sample(1000, rng=0)
    >>> X.shape, bool(np.all(np.abs(y) <= P.M)), round(P.M, 12)
    ((1000, 1), True, 1.1)
    >>> bool(np.isclose(P.bayes_risk, 0.1 ** 2 / 3))
    True
    >>> lam = 1e-3
    >>> fl = P.f_lambda(lam)
    >>> d = P.excess_risk(fl) + lam * P.norm_K(fl) ** 2
    >>> bool(np.isclose(d, P.approximation_error(lam)))
    True
    >>> P.d_exponent
    0.6
    """

    r: float = 0.5
    s: int = 1
    sigma: float = 0.1
    eta: float = 0.05
    f_sup: float | None = 1.0
    n_levels: int = 31
    mu0: float = 1.0
    scale: float = 1.0
    g: TrigSeries | None = None
    kernel: PeriodicSobolevKernel = field(init=False)
    g_series: TrigSeries = field(init=False)
    f_rho_series: TrigSeries = field(init=False)
    amplitude: float = field(init=False)

    def __post_init__(self) -> None:
        if not (self.r > 0 and math.isfinite(self.r)):
            raise ValueError(f"r must be positive, got {self.r}")
        if not (self.sigma >= 0 and math.isfinite(self.sigma)):
            raise ValueError(f"sigma must be ≥ 0, got {self.sigma}")
        kernel = PeriodicSobolevKernel(s=self.s, mu0=self.mu0, scale=self.scale)
        if self.g is None:
            if not (self.eta > 0 and math.isfinite(self.eta)):
                raise ValueError(f"eta must be positive, got {self.eta}")
            if not (1 <= self.n_levels <= _MAX_LEVEL + 1):
                raise ValueError(f"n_levels must be in [1, {_MAX_LEVEL + 1}], got {self.n_levels}")
            j = np.arange(self.n_levels)
            coef = 2.0 ** (-2.0 * kernel.s * self.eta * j)
            even = j % 2 == 0
            g = TrigSeries(2**j, np.where(even, coef, 0.0), np.where(even, 0.0, coef))
        else:
            g = self.g
        tau = kernel.eigenvalue(g.freqs)
        if np.any(tau <= 0):
            raise ValueError("g has mass on a zero eigenvalue")
        f0 = g.multiply(tau**self.r)
        if self.f_sup is None:
            A = 1.0
        else:
            if not (self.f_sup > 0 and math.isfinite(self.f_sup)):
                raise ValueError(f"f_sup must be positive, got {self.f_sup}")
            A = self.f_sup / f0.sup_bound()
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "g_series", g.multiply(np.full(g.freqs.size, A)))
        object.__setattr__(self, "f_rho_series", f0.multiply(np.full(g.freqs.size, A)))
        object.__setattr__(self, "amplitude", float(A))

    # -- constants ---------------------------------------------------------

    @property
    def kappa(self) -> float:
        """κ of the kernel, sqrt(μ_0 + c ζ(2s))."""
        return self.kernel.kappa

    @property
    def M(self) -> float:
        """Bound on |y|: ``f_rho_series.sup_bound() + sigma``."""
        return self.f_rho_series.sup_bound() + self.sigma

    @property
    def noise_variance(self) -> float:
        """Var(e) = σ²/3 for e ~ U[−σ, σ]."""
        return self.sigma**2 / 3.0

    @property
    def bayes_risk(self) -> float:
        """E(f_ρ) = E(y − f_ρ(x))² = σ²/3."""
        return self.noise_variance

    @property
    def source_norm(self) -> float:
        """‖L_K^(−r) f_ρ‖_ρ = A‖g‖_ρ."""
        return math.sqrt(self.g_series.norm_sq())

    @property
    def d_exponent(self) -> float | None:
        """min{2(r + η), 1} for the default g (see the class docstring); None for a user g."""
        if self.g is not None:
            return None
        return min(2.0 * (self.r + self.eta), 1.0)

    @property
    def lambda_floor(self) -> float:
        """The smallest eigenvalue τ_k among the frequencies of f_ρ."""
        return float(self._tau().min())

    def _tau(self) -> NDArray[np.float64]:
        return self.kernel.eigenvalue(self.f_rho_series.freqs)

    # -- truth ---------------------------------------------------------------

    def f_rho(self, x: ArrayLike) -> NDArray[np.float64]:
        """The regression function f_ρ(x) = E[y | x] at points x (shape (n,) or (n, 1))."""
        return self.f_rho_series(x)

    def f_lambda(self, lam: float) -> TrigSeries:
        """f_λ = (L_K + λI)^(−1) L_K f_ρ: coefficients τ_k/(τ_k + λ) times those of f_ρ."""
        if not lam > 0:
            raise ValueError("lam must be positive")
        tau = self._tau()
        return self.f_rho_series.multiply(tau / (tau + lam))

    def approximation_error_parts(
        self, lam: ArrayLike
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(‖f_λ − f_ρ‖²_ρ, λ‖f_λ‖²_K) = (Σ w λ²/(τ+λ)², Σ w λτ/(τ+λ)²), vectorised in λ."""
        lam = np.asarray(lam, dtype=float)
        tau = self._tau()
        w = self.f_rho_series.weights()
        L = lam[..., None]
        fit = (w * (L / (tau + L)) ** 2).sum(axis=-1)
        pen = (w * L * tau / (tau + L) ** 2).sum(axis=-1)
        return fit, pen

    def approximation_error(self, lam: ArrayLike) -> NDArray[np.float64] | float:
        """D(λ) = ‖f_λ − f_ρ‖²_ρ + λ‖f_λ‖²_K = Σ_k w_k λ/(τ_k + λ), exact, vectorised in λ."""
        lam_a = np.asarray(lam, dtype=float)
        if np.any(lam_a <= 0):
            raise ValueError("lam must be positive")
        tau = self._tau()
        w = self.f_rho_series.weights()
        L = lam_a[..., None]
        out = (w * L / (tau + L)).sum(axis=-1)
        return float(out) if out.ndim == 0 else out

    # -- risks and norms -------------------------------------------------------

    def _check_circle_expansion(self, f: KernelExpansion) -> CircleKernelBase:
        if not isinstance(f.kernel, CircleKernelBase):
            raise TypeError("exact formulas need a kernel expansion on a circle kernel")
        return f.kernel

    def lk_series(self, kernel: CircleKernelBase | None = None) -> TrigSeries:
        """L_K' f_ρ as a series (K' = ``kernel``, default the problem's): the function whose values at an
        expansion's centres :meth:`excess_risk` needs."""
        K = self.kernel if kernel is None else kernel
        fr = self.f_rho_series
        return fr.multiply(K.eigenvalue(fr.freqs))

    def excess_risk(
        self, f: TrigSeries | KernelExpansion | FunctionLike, n_grid: int = 2**16,
        lk_values: NDArray[np.float64] | None = None,
    ) -> float:
        """E(f) − E(f_ρ) = ‖f − f_ρ‖²_ρ.

        * :class:`TrigSeries`: exact (Parseval).
        * :class:`~simulations.kernels.KernelExpansion` on any circle kernel K'
          (h = Σ α_i K'(c_i, ·), f = h + b): exact, from
          ‖f − f_ρ‖² = α^T G₂ α + 2bμ'_0 Σα_i + b² − 2[Σ α_i (L_K' f_ρ)(c_i) + b â_0] + ‖f_ρ‖²,
          where G₂ is the Gram matrix of the kernel of L_K'² (closed form for
          the Sobolev kernels) and â_0 the mean of f_ρ.  Rounding: absolute
          error about 1e-16 × (α^T G₂ α + ‖f_ρ‖²).
        * any other callable: numerical.  f is evaluated at the n_grid midpoints
          (i + ½)/n_grid and compared with the part of f_ρ of frequency
          < n_grid/4 (midpoint rule: spectrally accurate for smooth periodic f,
          O(n_grid^(−2)) for smooth f); the higher part of f_ρ contributes
          its exact ‖·‖², the cross term ⟨f, f_ρ^high⟩ is neglected.

        ``lk_values``: for a kernel expansion, (L_K' f_ρ)(c_i) at its centres if already computed
        (``self.lk_series(K')`` evaluated there, e.g. by :meth:`sample_with`); the result is the same.
        """
        fr = self.f_rho_series
        if isinstance(f, TrigSeries):
            return (f - fr).norm_sq()
        if isinstance(f, KernelExpansion) and isinstance(f.kernel, CircleKernelBase):
            K = f.kernel
            c = f.centers
            a = f.alpha
            b = f.offset
            G2 = K.squared()(c)
            if lk_values is None:
                LKf = self.lk_series(K)(c)
            else:
                LKf = np.asarray(lk_values, dtype=float)
                if LKf.shape != (c.shape[0],):
                    raise ValueError(f"parameter 'lk_values' must have one value per centre ({c.shape[0]}), "
                                     f"got shape {LKf.shape}")
            a0 = float(fr.cos[fr.freqs == 0].sum())
            mu0 = float(K.mu(0))
            terms = [
                float(a @ G2 @ a),
                2 * b * mu0 * float(a.sum()),
                b * b,
                -2 * float(a @ LKf),
                -2 * b * a0,
                fr.norm_sq(),
            ]
            return max(math.fsum(terms), 0.0)
        if not callable(f):
            raise TypeError(f"cannot compute the excess risk of {type(f)!r}")
        x = (np.arange(n_grid) + 0.5) / n_grid
        low = fr.freqs < n_grid // 4
        f_low = TrigSeries(fr.freqs[low], fr.cos[low], fr.sin[low])
        e = _call(f, x) - f_low(x)
        high = math.fsum(fr.weights()[~low])
        return float(np.mean(e**2)) + high

    def risk(self, f: TrigSeries | KernelExpansion | FunctionLike, n_grid: int = 2**16) -> float:
        """E(f) = ∫ (f(x) − y)² dρ = ‖f − f_ρ‖²_ρ + σ²/3."""
        return self.excess_risk(f, n_grid=n_grid) + self.bayes_risk

    def norm_K(self, f: TrigSeries | KernelExpansion) -> float:
        """‖f‖_K in the RKHS of ``self.kernel`` (not squared).

        TrigSeries: sqrt(Σ (a_k² + b_k²)/τ_k).  KernelExpansion on ``self.kernel``
        (f = Σ α_i K(c_i, ·) + b; constants lie in H_K since μ_0 > 0):
        ‖f‖²_K = α^T K α + 2b Σ α_i + b²/μ_0 (using ⟨K_c, 1⟩_K = 1, ‖1‖²_K = 1/μ_0).
        """
        if isinstance(f, TrigSeries):
            tau = self.kernel.eigenvalue(f.freqs)
            w = f.weights()
            if np.any((tau <= 0) & (w > 0)):
                return math.inf
            return math.sqrt(math.fsum(w[w > 0] / tau[w > 0]))
        if isinstance(f, KernelExpansion):
            if f.kernel != self.kernel:
                raise ValueError("the expansion's kernel is not this problem's kernel")
            b = f.offset
            v = f.rkhs_norm_sq() + 2 * b * float(f.alpha.sum()) + b * b / self.kernel.mu0
            return math.sqrt(max(v, 0.0))
        raise TypeError(f"cannot compute the RKHS norm of {type(f)!r}")

    # -- sampling ------------------------------------------------------------

    def sample(self, m: int, rng: RNGLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """m i.i.d. pairs: X of shape (m, 1) uniform on [0, 1), y = f_ρ(x) + U[−σ, σ].

        The Generator draws ``random(m)`` for x first, then ``uniform(−σ, σ, m)``.
        """
        X, y, _ = self.sample_with(m, rng)
        return X, y

    def sample_with(self, m: int, rng: RNGLike, series: tuple[TrigSeries, ...] = ()
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64], list[NDArray[np.float64]]]:
        """:meth:`sample` (the same draws and numbers), with the values at the sample's x of f_ρ and of
        each of ``series``: ``(X, y, [f_ρ(x), s_1(x), …])``.

        The series are evaluated with f_ρ by :func:`evaluate_series` (shared cosines and sines), each
        value bit-identical to a separate call ``s(x)``.

        Examples
        --------
        >>> P = CircleRegression(r=1.0, s=1)
        >>> X, y, (fx, fl) = P.sample_with(50, 3, (P.f_lambda(0.1),))
        >>> X2, y2 = P.sample(50, 3)
        >>> bool(np.array_equal(y, y2)), bool(np.array_equal(fx, P.f_rho(X))), bool(np.array_equal(fl, P.f_lambda(0.1)(X)))
        (True, True, True)
        """
        gen = as_generator(rng)
        x = gen.random(m)
        e = gen.uniform(-self.sigma, self.sigma, m)
        values = evaluate_series([self.f_rho_series, *series], x)
        y = values[0] + e
        return x[:, None], y, values


# ---------------------------------------------------------------------------
# binary classification with a known Bayes classifier
# ---------------------------------------------------------------------------

# Gauss–Legendre rule used for the quadratures
_GL_ORDER = 10
_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(_GL_ORDER)


def _crossings(
    f: FunctionLike, level: float, grid: NDArray[np.float64], iters: int = 64
) -> NDArray[np.float64]:
    """Points where the predicate f(x) ≥ level changes between consecutive grid points (bisection)."""
    v = _call(f, grid) >= level
    idx = np.nonzero(v[1:] != v[:-1])[0]
    if idx.size == 0:
        return np.empty(0)
    lo, hi, vlo = grid[idx].copy(), grid[idx + 1].copy(), v[idx]
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        same = (_call(f, mid) >= level) == vlo
        lo = np.where(same, mid, lo)
        hi = np.where(same, hi, mid)
        if np.all(hi - lo <= 4 * np.finfo(float).eps * np.maximum(1.0, np.abs(hi))):
            break
    return 0.5 * (lo + hi)


def _gauss_legendre(edges: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes and weights of the composite Gauss–Legendre rule on the cells of ``edges``."""
    a, b = edges[:-1], edges[1:]
    half = (b - a)[:, None] / 2
    nodes = (a + b)[:, None] / 2 + half * _GL_NODES[None, :]
    weights = half * _GL_WEIGHTS[None, :]
    return nodes.reshape(-1), weights.reshape(-1)


@dataclass(frozen=True)
class BinaryClassification:
    """Binary classification on [0, 1) with η(x) = P(y = 1 | x) in closed form.

    Model.  x ~ U[0, 1), y ∈ {−1, +1} with

        2η(x) − 1 = a · sign(x − t₀) · (|x − t₀| / L)^γ,   L = max(t₀, 1 − t₀),

    so |2η − 1| ≤ a ≤ 1, the Bayes classifier is f_c(x) = +1 for x ≥ t₀ and −1
    for x < t₀, and γ sets the behaviour near the boundary (γ = 0: Massart
    margin |2η − 1| = a; larger γ: fewer points far from 1/2; Tsybakov
    exponent 1/γ).  With H(x) = ∫₀^x |2η − 1| = a/(L^γ(γ+1)) · [G(x) − G(0)],
    G(x) = sign(x − t₀)|x − t₀|^(γ+1):

    * Bayes risk R(f_c) = ∫ min(η, 1 − η) = ½ − ½ H(1);
    * R(sign f) − R(f_c) = ∫ |2η − 1| 1[sign f ≠ f_c] = Σ over the intervals
      where sign f ≠ f_c of increments of H (exact once the sign changes of f
      are located; they are found on a grid of ``n_grid`` cells and refined
      by bisection to machine precision);
    * hinge risk E_h(f) = ∫ [η(1 − f)_+ + (1 − η)(1 + f)_+] dx, minimised by
      f_ρ^h = f_c with E_h(f_c) = 1 − H(1) = 2R(f_c).  ``hinge_risk`` uses a
      composite 10-point Gauss–Legendre rule on ``n_grid`` cells with extra
      breakpoints at t₀, on a geometric mesh t₀ ± 2^(−i)/n_grid (i < 60)
      that resolves the |x − t₀|^γ singularity of η, and at the points where
      f crosses ±1, so the integrand is smooth on every cell when f is.

    A prediction is sign f(x) with sign(0) = +1 (as f_c at the boundary).

    Parameters
    ----------
    t0 : float
        Bayes boundary, in (0, 1).
    a : float
        Largest |2η − 1|, in (0, 1].
    gamma : float
        Margin exponent γ ≥ 0.

    Examples
    --------
    >>> import numpy as np
    >>> P = BinaryClassification(t0=0.5, a=0.8, gamma=1.0)
    >>> round(P.bayes_risk, 12)            # ½ − ½ · 0.8/2
    0.3
    >>> P.misclassification_excess(P.bayes_classifier)
    0.0
    >>> round(P.misclassification_excess(lambda x: -np.ones(len(x))), 12)   # always −1
    0.2
    >>> bool(np.isclose(P.hinge_risk(P.bayes_classifier), P.bayes_hinge_risk))
    True
    >>> X, y = P.sample(5, rng=1)
    >>> X.shape, sorted(set(y.tolist())) <= [-1.0, 1.0]
    ((5, 1), True)
    """

    t0: float = 0.5
    a: float = 0.8
    gamma: float = 1.0

    def __post_init__(self) -> None:
        if not 0 < self.t0 < 1:
            raise ValueError("t0 must lie in (0, 1)")
        if not 0 < self.a <= 1:
            raise ValueError("a must lie in (0, 1]")
        if not (self.gamma >= 0 and math.isfinite(self.gamma)):
            raise ValueError("gamma must be ≥ 0")

    @property
    def _L(self) -> float:
        return max(self.t0, 1.0 - self.t0)

    def eta(self, x: ArrayLike) -> NDArray[np.float64]:
        """η(x) = P(y = 1 | x)."""
        return (1.0 + self.margin(x)) / 2.0

    def margin(self, x: ArrayLike) -> NDArray[np.float64]:
        """2η(x) − 1 = a sign(x − t₀)(|x − t₀|/L)^γ (with sign(0) = +1 when γ = 0)."""
        t = _points_1d(x)
        d = t - self.t0
        sgn = np.where(d >= 0, 1.0, -1.0)
        return self.a * sgn * (np.abs(d) / self._L) ** self.gamma

    def bayes_classifier(self, x: ArrayLike) -> NDArray[np.float64]:
        """f_c(x) = +1 if η(x) ≥ ½ (x ≥ t₀), else −1; also the hinge-optimal f_ρ^h."""
        t = _points_1d(x)
        return np.where(t >= self.t0, 1.0, -1.0)

    def _H(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """H(x) = ∫_0^x |2η − 1| du (exact)."""
        g1 = self.gamma + 1.0

        def G(u: NDArray[np.float64]) -> NDArray[np.float64]:
            d = u - self.t0
            return np.sign(d) * np.abs(d) ** g1

        c = self.a / (self._L**self.gamma * g1)
        return c * (G(x) - G(np.zeros_like(x)))

    @property
    def mean_abs_margin(self) -> float:
        """∫ |2η − 1| dx = H(1)."""
        return float(self._H(np.array([1.0]))[0])

    @property
    def bayes_risk(self) -> float:
        """R(f_c) = ½ − ½ ∫|2η − 1|."""
        return 0.5 - 0.5 * self.mean_abs_margin

    @property
    def bayes_hinge_risk(self) -> float:
        """E_h(f_c) = 1 − ∫|2η − 1| = 2R(f_c) (the minimal hinge risk)."""
        return 1.0 - self.mean_abs_margin

    def misclassification_excess(self, f: FunctionLike, n_grid: int = 2**14) -> float:
        """R(sign f) − R(f_c) = ∫ |2η − 1| 1[sign f ≠ f_c] dx (see the class docstring).

        Sign changes of f closer together than 1/n_grid may be missed.
        """
        grid = np.linspace(0.0, 1.0, n_grid + 1)
        pts = np.concatenate(([0.0, self.t0, 1.0], _crossings(f, 0.0, grid)))
        edges = np.unique(np.clip(pts, 0.0, 1.0))
        mids = 0.5 * (edges[:-1] + edges[1:])
        pred = np.where(_call(f, mids) >= 0, 1.0, -1.0)
        wrong = pred != self.bayes_classifier(mids)
        inc = np.diff(self._H(edges))
        return float(math.fsum(inc[wrong]))

    def misclassification_risk(self, f: FunctionLike, n_grid: int = 2**14) -> float:
        """R(sign f) = R(f_c) + misclassification excess."""
        return self.bayes_risk + self.misclassification_excess(f, n_grid=n_grid)

    def hinge_risk(self, f: FunctionLike, n_grid: int = 2**12) -> float:
        """E_h(f) = ∫ [η(1 − f)_+ + (1 − η)(1 + f)_+] dx by composite Gauss–Legendre quadrature."""
        grid = np.linspace(0.0, 1.0, n_grid + 1)
        # geometric grading towards t₀, where η has the singularity |x − t₀|^γ
        graded = self.t0 + np.outer([-1.0, 1.0], 2.0 ** -np.arange(60) / n_grid).ravel()
        pts = [grid, [self.t0], graded, _crossings(f, 1.0, grid), _crossings(f, -1.0, grid)]
        edges = np.unique(np.clip(np.concatenate(pts), 0.0, 1.0))
        x, w = _gauss_legendre(edges)
        v = _call(f, x)
        e = self.eta(x)
        integrand = e * np.maximum(0.0, 1.0 - v) + (1.0 - e) * np.maximum(0.0, 1.0 + v)
        return float(math.fsum(w * integrand))

    def hinge_excess(self, f: FunctionLike, n_grid: int = 2**12) -> float:
        """E_h(f) − E_h(f_ρ^h) with f_ρ^h = f_c."""
        return self.hinge_risk(f, n_grid=n_grid) - self.bayes_hinge_risk

    def sample(self, m: int, rng: RNGLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """m i.i.d. pairs: X of shape (m, 1) uniform on [0, 1), y = +1 with probability η(x), else −1.

        The Generator draws ``random(m)`` for x, then ``random(m)`` = u and sets y = +1 iff u < η(x).
        """
        gen = as_generator(rng)
        x = gen.random(m)
        u = gen.random(m)
        y = np.where(u < self.eta(x), 1.0, -1.0)
        return x[:, None], y


# ---------------------------------------------------------------------------
# real data
# ---------------------------------------------------------------------------

Loss = Literal["square", "hinge", "zero_one"]


@dataclass(frozen=True, eq=False)
class RealDataset:
    """A bundled scikit-learn data set, scaled into the unit ball, with a seeded split.

    Built by :func:`load_real_dataset`.  There is no population distribution:
    ``sample`` draws from the training part and population risks are
    *estimated* on the held-out part (``heldout_risk``), an unbiased estimate
    for any f chosen without looking at the held-out rows.

    Attributes
    ----------
    name : str
        ``"diabetes"`` or ``"breast_cancer"``.
    task : str
        ``"regression"`` or ``"classification"``.
    X_train, y_train, X_test, y_test : arrays
        Scaled features (rows of Euclidean norm ≤ 1) and targets
        (|y| ≤ 1 for regression, y ∈ {−1, +1} for classification).
    M : float
        1.0, the bound on |y|.
    radius : float
        1.0, the radius of the ball containing every row (κ = 1 for the
        linear kernel on it; the Gaussian kernel has κ = 1 anyway).
    seed : int
        The seed of the split.
    feature_mean, feature_std : arrays
        The standardisation used (computed on all rows).
    norm_scale : float
        The divisor applied after standardising.
    target_center, target_scale : float
        y_scaled = (y − target_center)/target_scale (regression); 0.5 and 0.5 for classification.
    """

    name: str
    task: Literal["regression", "classification"]
    X_train: NDArray[np.float64]
    y_train: NDArray[np.float64]
    X_test: NDArray[np.float64]
    y_test: NDArray[np.float64]
    seed: int
    feature_mean: NDArray[np.float64]
    feature_std: NDArray[np.float64]
    norm_scale: float
    target_center: float
    target_scale: float
    M: float = 1.0
    radius: float = 1.0

    @property
    def n_train(self) -> int:
        return int(self.X_train.shape[0])

    @property
    def n_test(self) -> int:
        return int(self.X_test.shape[0])

    @property
    def dim(self) -> int:
        return int(self.X_train.shape[1])

    def sample(self, m: int, rng: RNGLike) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """m rows of the training part drawn without replacement (``Generator.choice``)."""
        if not 0 <= m <= self.n_train:
            raise ValueError(f"m must be in [0, {self.n_train}], got {m}")
        idx = as_generator(rng).choice(self.n_train, size=m, replace=False)
        return self.X_train[idx], self.y_train[idx]

    def heldout_risk(
        self, f: Callable[[NDArray[np.float64]], ArrayLike], loss: Loss = "square"
    ) -> float:
        """Held-out estimate of the population risk of f: the mean loss over (X_test, y_test).

        ``loss``: ``"square"`` (f(x) − y)², ``"hinge"`` (1 − y f(x))_+,
        ``"zero_one"`` 1[sign f(x) ≠ y] with sign(0) = +1.  f is called with
        X_test (shape (n_test, d)).
        """
        v = np.asarray(f(self.X_test), dtype=float).reshape(-1)
        y = self.y_test
        if loss == "square":
            return float(np.mean((v - y) ** 2))
        if loss == "hinge":
            return float(np.mean(np.maximum(0.0, 1.0 - y * v)))
        if loss == "zero_one":
            return float(np.mean(np.where(v >= 0, 1.0, -1.0) != y))
        raise ValueError(f"unknown loss {loss!r}")


def load_real_dataset(
    name: Literal["diabetes", "breast_cancer"], seed: int = 0, test_fraction: float = 0.3
) -> RealDataset:
    """Load a bundled scikit-learn data set (no download), scaled and split.

    Preprocessing, exactly (X raw of shape (n, d), all n rows):

    1. standardise: Z = (X − mean)/std, column mean and population std
       (ddof = 0) over all n rows (a column of std 0 is divided by 1);
    2. scale into the unit ball: X̃ = Z / (R (1 + 1e−12)), R = max_i ‖Z_i‖₂, so
       every row has ‖X̃_i‖ < 1 (the factor absorbs rounding);
    3. targets: diabetes (``load_diabetes(scaled=False)``, y in [25, 346]):
       ỹ = (y − (max + min)/2)/((max − min)/2) ∈ [−1, 1], M = 1;
       breast_cancer (t = 1 benign, 0 malignant): ỹ = 2t − 1 ∈ {−1, +1};
    4. split: a permutation from ``default_rng(SeedSequence(seed))``; its first
       round(test_fraction · n) indices are held out, the rest is training.

    The statistics of steps 1–3 use the held-out rows too, so that every row
    lies in the ball the theory assumes; this preprocessing is treated as
    public knowledge of the domain and is not privacy-accounted.

    Examples
    --------
    >>> D = load_real_dataset("diabetes", seed=0)
    >>> D.n_train + D.n_test, D.dim, D.task
    (442, 10, 'regression')
    >>> bool(np.all(np.linalg.norm(D.X_train, axis=1) <= 1.0)), bool(np.abs(D.y_train).max() <= 1.0)
    (True, True)
    """
    from sklearn import datasets  # local import: only the real-data loaders need scikit-learn

    if name == "diabetes":
        bunch = datasets.load_diabetes(scaled=False)
        task: Literal["regression", "classification"] = "regression"
    elif name == "breast_cancer":
        bunch = datasets.load_breast_cancer()
        task = "classification"
    else:
        raise ValueError(f"unknown data set {name!r} (diabetes, breast_cancer)")
    if not 0 < test_fraction < 1:
        raise ValueError("test_fraction must lie in (0, 1)")
    X = np.asarray(bunch.data, dtype=float)
    t = np.asarray(bunch.target, dtype=float)
    mean = X.mean(axis=0)
    std = X.std(axis=0)
    std = np.where(std > 0, std, 1.0)
    Z = (X - mean) / std
    R = float(np.linalg.norm(Z, axis=1).max())
    scale = R * (1.0 + 1e-12)
    Xs = Z / scale
    if task == "regression":
        center = (t.max() + t.min()) / 2.0
        half = (t.max() - t.min()) / 2.0
        y = (t - center) / half
    else:
        center, half = 0.5, 0.5
        y = 2.0 * t - 1.0
    n = X.shape[0]
    perm = np.random.default_rng(np.random.SeedSequence(seed)).permutation(n)
    n_test = int(round(test_fraction * n))
    test, train = perm[:n_test], perm[n_test:]
    return RealDataset(
        name=name,
        task=task,
        X_train=Xs[train],
        y_train=y[train],
        X_test=Xs[test],
        y_test=y[test],
        seed=int(seed),
        feature_mean=mean,
        feature_std=std,
        norm_scale=scale,
        target_center=float(center),
        target_scale=float(half),
    )
