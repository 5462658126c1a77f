"""Private kernel learning at scale: random Fourier features + certified streamed solvers + CMS noise.

The exact kernel estimators (:mod:`simulations.estimators`) need an m×m Gram matrix and release a whole
function with one scalar of noise (not private).  This module maps x to D random Fourier features
(Rahimi & Recht 2007), fits an L2-regularised linear model on them with a *streamed* solver (features
computed chunk by chunk, never the whole m×D matrix) and releases the weight vector by output
perturbation (Algorithm 1 of Chaudhuri, Monteleoni & Sarwate 2011) or objective perturbation
(their Algorithm 2), with every noise parameter taken from the calibrating statements of the
declared mechanisms (:func:`simulations.mechanisms.mechanisms`; the algorithms ``"rff_output"`` and
``"rff_objective"``).

Feature map (:class:`RandomFourierFeatures`): z(x) = s·[cos Wx, sin Wx], W ∈ R^{(D/2)×d} with rows
ω_j ~ N(0, 2γI) (the Gaussian kernel exp(−γ‖x − y‖²), scikit-learn's ``RBFSampler`` convention),
s = √(2/D)/(1 + 1e−5).  ‖z(x)‖² = (2/D)Σ(cos² + sin²) = 1 for every x in exact arithmetic.  The
shipped map rounds each angle ωᵀx to float32 and evaluates cos and sin in float32 (five times faster
than float64 on the benchmark machine; the angle rounding makes it another deterministic map of
each record, whose kernel is the same up to ~1e-7 relative on the angle); angles beyond 2^20 in absolute
value are first reduced modulo 2π in float64 and non-finite ones (an input near 1e308) are mapped to the
angle 0, so that no input gives a NaN feature (again a map of each record alone); the factor 1/(1 + 1e−5)
absorbs the few float32 ulps of cos and sin, so the computed features have norm ≤ 1 (R = 1): the premise ‖z‖ ≤ 1 of the privacy theorems holds for every input, with no clipping.
(``data_norm`` optionally clips x into a ball first; that changes what the kernel sees, not the privacy.)

Objective (CMS's convention), ℓ the loss of the margin:
J(w) = (1/n)Σ ℓ(y_i, wᵀz_i) + (Λ/2)‖w‖²; squared loss ℓ = (y − wᵀz)²/2 (so Ridge with α = nΛ);
logistic ℓ = log(1 + e^{−y wᵀz}); Huber of width h (CMS's smoothed hinge).

Solvers:

* :func:`ridge_streamed` accumulates ZᵀZ (BLAS ``syrk``) and Zᵀy chunk by chunk, solves by Cholesky;
* :func:`glm_streamed` runs Newton's method with one streamed pass per iterate (value, gradient and
  Hessian ZᵀSZ together), with backtracking.

Certificate: J is Λ-strongly convex, so ‖w − w*‖ ≤ ‖∇J(w)‖/Λ.  The gradient is computed in floating
point; :func:`gradient_error_bound` bounds its error rigorously (standard dot-product error bounds
γ_k = ku/(1 − ku), Cauchy–Schwarz with ‖z‖ ≤ 1), and the certified distance is
τ̂ = ((1 + γ_D)‖ĝ‖ + E)/Λ.  The privacy statements assume the exact minimiser; the release is calibrated
to the sensitivity 2LR/(nΛ) + 2τ of a minimiser certified within τ = ``tol``·2LR/(nΛ), fixed before the
data are seen (``cms.rff.sensitivity_inexact``).  Whether a fit is refused never depends on the data: the
estimators first bound the rounding floor of τ̂ at its worst (:func:`certification_floor`: max|ℓ'| = L, ‖w‖ at
the a-priori bound √(2ℓ(0)/Λ) of strong convexity, M/√Λ for ridge) from public quantities only and refuse a
``tol`` whose floor exceeds τ/2 (naming the smallest admissible tol); then the solver iterates (Newton, or
iterative refinement for ridge) until τ̂ ≤ τ, which the floor makes reachable.  For objective perturbation
the floor uses a public quantile (1 − 1e-12) of ‖b‖'s Γ(D, 1/rate) law, never the drawn b.  Where μ is
below the float32 Hessian's rounding (about 2⁻²³·D·c) the Newton matrix is damped by 2⁻²⁰·D·c, a public
amount.  Limits: the floor shows that certification is reachable in floating point, not that Newton's
method reaches it within its iteration cap for every data set; such a failure (a RuntimeError, never met
in the tests, including replace-one neighbours at Λ ≈ 1.7e-9) depends on the data and is outside the
privacy claim, as is a refusal caused by a drawn ‖b‖ beyond the quantile (probability 1e-12).  The fitted estimator exposes only data-independent
attributes (τ, the rates, ``certified_``); the solver's data-dependent diagnostics are behind
``private_diagnostics_unsafe()``, which is NOT private.  Objective perturbation gets the same treatment by
spending a share ρ of ε on an extra noise b′ of rate ρε/(2τ) (``cms.rff.amp_rate``,
``cms.rff.amp_privacy``, approximate minima perturbation in a pure-ε form); it is refused for the
squared loss, which is Lipschitz only on a bounded set that the perturbed objective does not respect.

Labels and targets: the classifier maps the two labels of its ``classes`` parameter, fixed in advance, to ±1
(``classes=None`` takes them from the data, which releases the label set: a :class:`PrivacyLeakWarning`); the
regressor clips y into
[−M, M] (clipping one record is a function of that record, so the neighbour relation and the
sensitivity are preserved; refusing would leak whether a large |y| is present).

Examples
--------
>>> import numpy as np
>>> from simulations.random_features import DPRandomFeatureRegressor
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-1, 1, (2000, 2)); y = np.sin(2 * X[:, 0])
>>> est = DPRandomFeatureRegressor(epsilon=1.0, lam=1e-2, n_components=64, random_state=0).fit(X, y)
>>> est.coef_.shape, est.certified_
((64,), True)
>>> bool(est.sensitivity_ > 0 and est.noise_scale_ == est.sensitivity_ / 1.0)
True
"""

from __future__ import annotations

import math
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy.linalg import LinAlgError, cho_factor, cho_solve
from scipy.linalg.blas import dsyrk, ssyrk
from scipy.special import expit
from scipy.stats import gamma as gamma_dist
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._available_if import available_if
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_is_fitted, validate_data

from bounds.core import Statement

from . import privacy_rules
from .estimators import BinaryClassifierMixin, PrivacyLeakWarning
from .mechanisms import Mechanism, mechanisms
from .solvers import Certificate, CertificateError

FloatArray = NDArray[np.float64]

__all__ = [
    "EXPECTED_FAILED_CHECKS",
    "RFF_ALGORITHM",
    "check_norm_law",
    "FEATURE_SLACK",
    "DPLinearClassifier",
    "DPRandomFeatureClassifier",
    "DPRandomFeatureRegressor",
    "RandomFourierFeatures",
    "StreamedFit",
    "VectorMechanism",
    "apriori_norm",
    "certification_floor",
    "glm_streamed",
    "gradient_error_bound",
    "loss_at_zero",
    "min_tol",
    "ridge_streamed",
    "sample_norm_noise",
]

#: rounding allowance of the feature scale (the same constant as the calibrating statement's map): the
#: features are float32 cos/sin (a few float32 ulps, 2^-24 each) of float32-rounded angles, stored in float64
FEATURE_SLACK = 1e-5
#: Newton's Hessian is recomputed at the next iterate when the gradient norm fell by less than this factor
H_REFRESH = 0.25
#: whether the first Newton iterate gets its own Hessian (else the one at w = 0 is reused once)
NEED_H0 = True
#: angles |ωᵀx| above this are reduced modulo 2π in float64 before the float32 cast (and non-finite ones are
#: mapped to 0): float32 would overflow to inf at 3.4e38 and cos(inf) is NaN; below it the map is unchanged
ANGLE_REDUCE = 2.0**20
#: Newton iterations of the estimators' solver (the a-priori floor check makes certification reachable)
GLM_MAX_ITER = 200
#: steps of iterative refinement of the ridge solve (each one solve with the same Cholesky factor)
REFINE_STEPS = 5
#: unit roundoff of float64
U = float(np.finfo(np.float64).eps) / 2
#: feature-matrix bytes per chunk (the only m-dependent memory is X itself)
CHUNK_BYTES = 16 * 2**20
#: what the estimators fit, as the calibrating statements' premises name it (``Statement.premises["algorithm"]``)
RFF_ALGORITHM = ("L2-regularised ERM without offset on random features of norm <= 1, released at a minimiser certified "
                 "within tau")
#: what objective perturbation perturbs, as the residual-noise statement's premises name it
RFF_OBJECTIVE = "perturbed by b/n with b from Algorithm 2"
#: sampler → the (D, scale) pairs whose law passed :func:`check_norm_law` (weak keys: no reuse after collection)
_LAW_OK: weakref.WeakKeyDictionary[Callable[..., Any], set[tuple[int, float]]] = weakref.WeakKeyDictionary()


def check_norm_law(sampler: Callable[..., FloatArray], D: int, *, who: str, scale: float = 1.0) -> float:
    """Refuse a vector sampler whose norms are not Γ(D, scale) or whose directions are not uniform.

    The rule of :func:`simulations.privacy_rules.check_sampler_law` (its sample size, level and fixed seed)
    applied to the law of the vector noise ∝ exp(−‖b‖/scale) at the ``scale`` the release uses: two
    Kolmogorov–Smirnov tests, of the norms against Γ(D, scale) and (D ≥ 2) of the projection u = vᵀb/‖b‖ of
    the direction onto a fixed unit vector v (drawn from the same fixed seed), whose law for a uniform direction
    is (u + 1)/2 ~ Beta((D − 1)/2, (D − 1)/2).  Bonferroni: each test at half the level, so a correct sampler is
    refused with probability ≤ :data:`~simulations.privacy_rules.LAW_LEVEL`.  The returned p-value is the
    Bonferroni-adjusted one, min(1, 2·min p).  A pass is remembered per (sampler, D, scale) for the sampler's
    lifetime (a weak reference: a new function at a recycled address is tested afresh).

    Examples
    --------
    >>> check_norm_law(sample_norm_noise, 3, who="demo", scale=0.5) > 1e-6
    True
    >>> check_norm_law(lambda rng, s, size: sample_norm_noise(rng, 2 * s, size), 3, who="demo")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: demo: the noise sampler does not draw from the law it declares, ...
    """
    from scipy import stats

    key = (int(D), float(scale))
    try:
        passed = _LAW_OK.setdefault(sampler, set())
    except TypeError:                  # not weak-referenceable: tested at every call
        passed = set()
    if key in passed:
        return 1.0
    rng = np.random.default_rng(np.random.SeedSequence(privacy_rules.LAW_ENTROPY).spawn(1)[0])
    n = privacy_rules.LAW_SAMPLES
    b = np.asarray(sampler(rng, float(scale), (n, D)), dtype=np.float64)
    if b.shape != (n, D) or not np.all(np.isfinite(b)):
        raise ValueError(f"{who}: the noise sampler returned an array of shape {b.shape}, not ({n}, {D}) finite draws")
    nrm = np.linalg.norm(b, axis=1)
    ps = [float(stats.kstest(nrm, stats.gamma(a=D, scale=float(scale)).cdf, method="asymp").pvalue)]
    if D >= 2:
        v = rng.standard_normal(D)
        v /= np.linalg.norm(v)
        u = np.clip((b @ v) / np.where(nrm > 0, nrm, 1.0), -1.0, 1.0)
        ps.append(float(stats.kstest((u + 1) / 2, stats.beta((D - 1) / 2, (D - 1) / 2).cdf,
                                     method="asymp").pvalue))
    p = min(1.0, len(ps) * min(ps))         # Bonferroni over the tests
    if not p >= privacy_rules.LAW_LEVEL:
        raise ValueError(f"{who}: the noise sampler does not draw from the law it declares, ‖b‖ ~ Γ({D}, {scale:.6g}) "
                         f"with a uniform direction: Kolmogorov–Smirnov p = {p:.3g} (Bonferroni over {len(ps)} tests) "
                         f"< {privacy_rules.LAW_LEVEL:g}; its release would not have the privacy the rate is "
                         "calibrated for")
    passed.add(key)
    return p


def _gamma(k: float) -> float:
    """γ_k = ku/(1 − ku), the relative error bound of a k-term floating-point sum of products."""
    ku = k * U
    if ku >= 0.5:
        return math.inf
    return ku / (1 - ku)


# --------------------------------------------------------------------------- noise
def sample_norm_noise(rng: np.random.Generator, scale: float, size: int | tuple[int, ...]) -> FloatArray:
    """Exact draws from the density ∝ exp(−‖b‖/scale) on R^D (one vector per leading index).

    ``size`` is D (one vector) or (k, D).  The norm is Γ(D, scale) (polar coordinates) and the
    direction uniform on the sphere (a normalised Gaussian vector).

    Examples
    --------
    >>> b = sample_norm_noise(np.random.default_rng(0), 0.5, (20000, 4))
    >>> b.shape, bool(abs(np.linalg.norm(b, axis=1).mean() - 2.0) < 0.03)
    ((20000, 4), True)
    """
    if not (isinstance(scale, Real) and math.isfinite(scale) and scale > 0):
        raise ValueError(f"sample_norm_noise: parameter 'scale' = {scale!r} must be positive and finite; "
                         "assumption: the density ∝ exp(−‖b‖/scale) is proper")
    shape = (size,) if isinstance(size, Integral) else tuple(size)
    g = rng.standard_normal(shape)
    nrm = np.linalg.norm(g, axis=-1, keepdims=True)
    return g / nrm * rng.gamma(shape=shape[-1], scale=scale, size=shape[:-1] + (1,))


@dataclass(frozen=True, eq=False, repr=False)
class VectorMechanism(Mechanism):
    """A mechanism releasing a vector w̃ + b, b ∝ exp(−rate‖b‖), calibrated by several statements.

    ``calibrator(**problem) -> dict`` returns at least ``rate`` (of the main noise), ``tau`` (the
    certified solver distance the calibration assumes), ``sensitivity`` (of the released minimiser),
    ``eps_spent`` and, for objective perturbation, ``delta`` (extra regulariser Δ), ``c`` and
    ``residual_rate`` (rate of the residual noise b′).  ``extra`` lists the other calibrating statements.
    """

    calibrator: Callable[..., dict[str, float]] | None = None
    extra: tuple[Statement, ...] = field(default=())

    @property
    def statements(self) -> tuple[Statement, ...]:
        return (self.statement, *self.extra)

    def calibrate(self, **problem: Any) -> dict[str, float]:
        """The noise parameters at the problem's values (see the class docstring)."""
        if self.calibrator is None:
            raise ValueError(f"mechanism {self.name!r} declares no calibrator")
        return self.calibrator(**problem)


# --------------------------------------------------------------------------- feature map
class RandomFourierFeatures:
    """z(x) = √(2/D)/(1 + FEATURE_SLACK)·[cos ω_jᵀx, sin ω_jᵀx]_{j ≤ D/2}, ω_j ~ N(0, 2γI).

    Parameters
    ----------
    n_features_in : int
        Input dimension d.
    n_components : int
        D: D/2 frequencies for an even D (‖z(x)‖ = 1 up to the slack); for an odd D the last of the
        (D + 1)/2 frequencies keeps its cosine only and the scale is √(2/(D + 1)), so ‖z(x)‖ ≤ 1 still
        (the privacy premise) but the kernel estimate is biased (scikit-learn's checks use D = 1).
    gamma : float
        γ of the Gaussian kernel exp(−γ‖x − y‖²).
    rng : numpy Generator
        Draws the frequencies (independent of the data).
    data_norm : float or None
        If given, each x is clipped into the ball ‖x‖ ≤ data_norm before the map.

    Examples
    --------
    >>> fm = RandomFourierFeatures(3, 8, 0.5, np.random.default_rng(0))
    >>> Z = fm.transform(np.ones((2, 3)))
    >>> Z.shape, bool(np.all(np.linalg.norm(Z, axis=1) <= 1.0))
    ((2, 8), True)
    """

    def __init__(self, n_features_in: int, n_components: int, gamma: float, rng: np.random.Generator,
                 data_norm: float | None = None) -> None:
        if n_components < 1:
            raise ValueError(f"parameter 'n_components' = {n_components} must be a positive integer")
        self.n_components = int(n_components)
        self.gamma = float(gamma)
        self.data_norm = data_norm
        h = (self.n_components + 1) // 2          # odd D: the last frequency keeps its cosine only
        self.W = rng.standard_normal((h, n_features_in)) * math.sqrt(2.0 * gamma)
        self.scale = math.sqrt(1.0 / h) / (1.0 + FEATURE_SLACK)

    def _clip(self, X: FloatArray) -> FloatArray:
        if self.data_norm is None:
            return X
        nrm = np.linalg.norm(X, axis=1)
        f = np.minimum(1.0, self.data_norm / np.maximum(nrm, 1e-300))
        return X * f[:, None]

    def transform_T(self, X: FloatArray) -> FloatArray:
        """The features transposed, shape (D, n), C-contiguous (so its transpose is Fortran-ordered for BLAS)."""
        with np.errstate(over="ignore", invalid="ignore"):     # inputs near 1e308 overflow: handled below
            A64 = self.W @ self._clip(X).T
            big = ~(np.abs(A64) <= ANGLE_REDUCE)               # huge or non-finite angles (NaN compares False)
            if big.any():                                      # reduced modulo 2π in float64 before the float32 cast
                red = np.remainder(A64[big], 2 * math.pi)
                A64[big] = np.where(np.isfinite(red), red, 0.0)    # ±inf (or inf − inf) angles: a fixed angle 0
        A = A64.astype(np.float32)      # angles rounded to float32 (a per-record map)
        h = self.W.shape[0]
        ZT = np.empty((self.n_components, X.shape[0]))
        ZT[:h] = np.cos(A)                # float32 cos/sin: 5x faster than float64, within a few float32 ulps
        ZT[h:] = np.sin(A[: self.n_components - h])
        ZT *= self.scale
        return ZT

    def transform(self, X: FloatArray) -> FloatArray:
        """The features, shape (n, D)."""
        return self.transform_T(X).T

    def chunk_rows(self, chunk_size: int | None = None) -> int:
        """Rows per chunk: ``chunk_size`` or as many as fit in :data:`CHUNK_BYTES`."""
        return int(chunk_size) if chunk_size else max(64, CHUNK_BYTES // (8 * self.n_components))

    def chunks(self, X: FloatArray, chunk_size: int | None = None) -> Iterator[tuple[slice, FloatArray]]:
        """(rows, features transposed) chunk by chunk."""
        step = self.chunk_rows(chunk_size)
        for s in range(0, X.shape[0], step):
            sl = slice(s, min(s + step, X.shape[0]))
            yield sl, self.transform_T(X[sl])


# --------------------------------------------------------------------------- certificates
def gradient_error_bound(n: int, D: int, w_norm: float, g_norm: float, mu: float, vmax: float, curv: float,
                         R: float = 1.0, lin_norm: float = 0.0) -> float:
    """A rigorous bound on ‖ĝ − ∇J(w)‖ for the gradient ĝ computed in float64 by :func:`glm_streamed`.

    ∇J(w) = (1/n)Σ v_i z_i + μw + b/n with v_i = ∂ℓ/∂(wᵀz_i).  Margins wᵀz_i are D-term dot products
    (error ≤ γ_D R‖w‖), so |v̂_i − v_i| ≤ curv·γ_D R‖w‖ + 4u (ℓ' Lipschitz with constant curv, and its
    evaluation within 4 ulps of a value ≤ 1); the n-term sum (1/n)Zᵀv̂ errs by ≤ γ_n R·max|v̂|
    (‖|Z|ᵀ|v|‖ ≤ ‖Z‖_F‖v‖ ≤ n·R·max|v|); the remaining additions and scalings by ≤ 4u per term.

    Examples
    --------
    >>> e = gradient_error_bound(10**6, 256, 10.0, 1e-9, 1e-3, 1.0, 0.25)
    >>> 1e-12 < e < 1e-9
    True
    """
    e_v = curv * _gamma(D + 1) * R * w_norm + 4 * U
    return (R * e_v + _gamma(n + 1) * R * vmax
            + 4 * U * (g_norm + mu * w_norm + R * vmax + lin_norm / max(n, 1)))


def _certificate(solver: str, g_norm: float, err: float, mu: float, D: int, tau: float,
                 **details: Any) -> tuple[Certificate, float]:
    dist = ((1 + _gamma(D + 1)) * g_norm + err) / mu
    cert = Certificate("certified_distance", float(dist), float(tau), bool(math.isfinite(dist)), solver=solver,
                       details={"dist_bound": float(dist), "grad_norm": g_norm, "grad_error_bound": err, **details})
    return cert, dist


def loss_at_zero(loss: str, h: float = 0.5, M: float = 1.0) -> float:
    """sup over labels of ℓ at w = 0: log 2 (logistic), 1 or (1 + h)²/(4h) (Huber of width h), M²/2 (squared).

    Examples
    --------
    >>> round(loss_at_zero("logistic"), 6), loss_at_zero("huber", 0.5), loss_at_zero("squared", M=2.0)
    (0.693147, 1.0, 2.0)
    """
    if loss == "logistic":
        return math.log(2.0)
    if loss == "huber":
        return 1.0 if h < 1 else (1 + h) ** 2 / (4 * h)
    if loss == "squared":
        return M * M / 2
    raise ValueError(f"loss_at_zero: parameter 'loss' = {loss!r} is not 'logistic', 'huber' or 'squared'")


def apriori_norm(loss: str, mu: float, h: float = 0.5, M: float = 1.0, lin_norm: float = 0.0, n: int = 1) -> float:
    """A bound on ‖w‖ for every iterate with F(w) ≤ F(0), F = (1/n)Σℓ + (μ/2)‖w‖² + bᵀw/n, ℓ ≥ 0, from public
    quantities only: (μ/2)‖w‖² − (‖b‖/n)‖w‖ ≤ F(0) = ℓ(0) gives ‖w‖ ≤ (a + √(a² + 2μℓ(0)))/μ, a = ‖b‖/n
    (M/√Λ for ridge, √(2 log 2/Λ) for logistic when b = 0).  Times 1.01: Newton's Armijo test allows a
    rounding-size increase of F.

    Examples
    --------
    >>> round(apriori_norm("squared", 0.01, M=1.0), 6)
    10.1
    """
    a = lin_norm / max(n, 1)
    return 1.01 * (a + math.sqrt(a * a + 2 * mu * loss_at_zero(loss, h, M))) / mu


def certification_floor(n: int, D: int, lam: float, loss: str, h: float = 0.5, M: float = 1.0, delta: float = 0.0,
                        lin_norm: float = 0.0) -> float:
    """The worst-case floating-point floor of the certified distance, from public quantities only.

    The certificate ((1 + γ_D)‖ĝ‖ + E)/μ of :func:`ridge_streamed` / :func:`glm_streamed` with ‖ĝ‖ = 0 and the
    error bound E at its worst: max|ℓ'| = 1 (logistic, Huber), ‖w‖ at :func:`apriori_norm`.  The estimators refuse
    a tolerance τ with floor + 4uτ > τ/2 *before* seeing the data, so that the refusal reveals nothing; above it
    the solver certifies once ‖ĝ‖ ≲ τμ/2, which Newton's method (and, for ridge, iterative refinement) reaches.

    Examples
    --------
    >>> f = certification_floor(3000, 64, 1e-3, "logistic")
    >>> 1e-10 < f < 1e-9
    True
    """
    mu = lam + delta
    W = apriori_norm(loss, mu, h, M, lin_norm, n)
    if loss == "squared":
        err = (_gamma(n + 1) * (W + M) + _gamma(D + 1) * (1 + _gamma(n + 1)) * W + 4 * U * (lam * W + W + M))
    else:
        err = gradient_error_bound(n, D, W, 0.0, mu, 1.0, curvature(loss, h), 1.0, lin_norm)
    return err / mu


def min_tol(floor: float, sensitivity: float) -> float:
    """The smallest tol = τ/sensitivity with floor + 4uτ ≤ τ/2 (rounded up in the last place)."""
    return float(np.nextafter(floor / (0.5 - 4 * U) / sensitivity, math.inf))


@dataclass(frozen=True)
class StreamedFit:
    """A certified minimiser: ``w``, the distance bound ``dist_bound`` ≥ ‖w − w*‖ and its certificate."""

    w: FloatArray
    dist_bound: float
    certificate: Certificate
    passes: int


# --------------------------------------------------------------------------- ridge
def ridge_streamed(fmap: RandomFourierFeatures, X: FloatArray, y: FloatArray, lam: float, tau: float,
                   M: float, chunk_size: int | None = None) -> StreamedFit:
    """Minimise J(w) = (1/(2n))Σ(y_i − wᵀz_i)² + (Λ/2)‖w‖² with ZᵀZ and Zᵀy accumulated chunk by chunk.

    One pass over the data computes the features once per chunk; the solve is a Cholesky
    factorisation of ZᵀZ/n + ΛI.  Certificate: ĝ = (Âw − b̂)/n + Λw from the accumulated Â = fl(ZᵀZ),
    b̂ = fl(Zᵀy), with the accumulation error bounded by γ_{n+1}(R²‖w‖ + R·M) and the product by
    γ_{D+1}(1 + γ_{n+1})R²‖w‖ (‖|Z|ᵀ|Z|‖ ≤ nR², ‖|Z|ᵀ|y|‖ ≤ nRM), so that it bounds the gradient of the
    objective on the computed features.  Raises :class:`CertificateError` if the distance bound exceeds ``tau``.

    Examples
    --------
    >>> rng = np.random.default_rng(1)
    >>> X = rng.normal(size=(500, 3)); y = np.tanh(X[:, 0])
    >>> fm = RandomFourierFeatures(3, 40, 0.5, rng)
    >>> fit = ridge_streamed(fm, X, y, 0.01, 1e-6, 1.0)
    >>> Z = fm.transform(X)
    >>> ref = np.linalg.solve(Z.T @ Z / 500 + 0.01 * np.eye(40), Z.T @ y / 500)
    >>> bool(np.linalg.norm(fit.w - ref) <= fit.dist_bound + 1e-12)
    True
    """
    n = X.shape[0]
    D = fmap.n_components
    A = np.zeros((D, D))
    b = np.zeros(D)
    for sl, ZT in fmap.chunks(X, chunk_size):
        A += dsyrk(1.0, ZT.T, trans=1, lower=0)          # upper triangle (a fresh syrk: faster than beta = 1)
        b += ZT @ y[sl]
    A = np.triu(A) + np.triu(A, 1).T
    H = A / n + lam * np.eye(D)
    try:
        w = cho_solve(cho_factor(H, lower=False, check_finite=True), b / n)
    except LinAlgError as err:       # ZᵀZ/n + ΛI is positive definite: only float64 can fail here
        raise CertificateError(Certificate("certified_distance", math.nan, tau, False, solver="ridge_streamed",
                                           details={"error": str(err)})) from err
    fact = cho_factor(H, lower=False)
    for _refine in range(REFINE_STEPS + 1):       # iterative refinement until the certificate holds
        g = (A @ w - b) / n + lam * w
        wn, gn = float(np.linalg.norm(w)), float(np.linalg.norm(g))
        err = (_gamma(n + 1) * (wn + M) + _gamma(D + 1) * (1 + _gamma(n + 1)) * wn
               + 4 * U * (gn + lam * wn + wn + M))
        cert, dist = _certificate("ridge_streamed", gn, err, lam, D, tau, passes=1)
        if cert.ok:
            return StreamedFit(w, dist, cert, 1)
        w = w - cho_solve(fact, g)
    raise CertificateError(cert, w)


# --------------------------------------------------------------------------- smooth classification losses
def _loss_parts(loss: str, h: float, m: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """ℓ, ℓ' and ℓ'' at the margins m = y·wᵀz (logistic, or CMS's Huber of width h)."""
    if loss == "logistic":
        return np.logaddexp(0.0, -m), -expit(-m), expit(m) * expit(-m)
    a = 1 + h - m
    mid = (m >= 1 - h) & (m <= 1 + h)
    lo = m < 1 - h
    val = np.where(lo, 1 - m, np.where(mid, a * a / (4 * h), 0.0))
    d1 = np.where(lo, -1.0, np.where(mid, -a / (2 * h), 0.0))
    d2 = np.where(mid, 1 / (2 * h), 0.0)
    return val, d1, d2


def curvature(loss: str, h: float) -> float:
    """sup ℓ'' of the loss (1/4 logistic, 1/(2h) Huber): the Lipschitz constant of ℓ' in the error bound."""
    return 0.25 if loss == "logistic" else 1 / (2 * h)


def _glm_pass(fmap: RandomFourierFeatures, X: FloatArray, ys: FloatArray, w: FloatArray, loss: str, h: float,
              chunk_size: int | None, hessian: bool) -> tuple[float, FloatArray, FloatArray | None, float]:
    """One streamed pass: (1/n)Σℓ, (1/n)Σℓ'·y z, (1/n)Σℓ''zzᵀ (upper triangle) and max|ℓ'|."""
    n, D = X.shape[0], fmap.n_components
    val, grad, vmax = 0.0, np.zeros(D), 0.0
    H = np.zeros((D, D)) if hessian else None
    for sl, ZT in fmap.chunks(X, chunk_size):
        yc = ys[sl]
        m = (w @ ZT) * yc
        f, d1, d2 = _loss_parts(loss, h, m)
        val += float(f.sum())
        grad += ZT @ (d1 * yc)
        vmax = max(vmax, float(np.max(np.abs(d1))) if d1.size else 0.0)
        if hessian:
            # the Hessian only steers Newton's steps (the certificate uses the gradient): float32 syrk per chunk,
            # summed in float64
            S = (ZT * np.sqrt(d2)).astype(np.float32)
            H += ssyrk(1.0, S.T, trans=1, lower=0)
    return val / n, grad / n, (H / n if H is not None else None), vmax


def glm_streamed(fmap: RandomFourierFeatures, X: FloatArray, ys: FloatArray, lam: float, tau: float,
                 loss: str = "logistic", h: float = 0.5, b_lin: FloatArray | None = None, delta: float = 0.0,
                 chunk_size: int | None = None, max_iter: int = 60) -> StreamedFit:
    """Minimise F(w) = (1/n)Σℓ(y_i wᵀz_i) + ((Λ+Δ)/2)‖w‖² + (1/n)b_linᵀw by Newton's method, streamed.

    Each iterate costs one pass over the data, which returns the value, the gradient and, while the
    gradient falls by less than 20× per step, the Hessian (1/n)ZᵀSZ (``syrk`` on √S·Z) at the same
    point (else the last Hessian is reused); a step that does not decrease F (Armijo, with an allowance
    for rounding) is halved.  Stops when the certified distance ((1 + γ_D)‖ĝ‖ + E)/(Λ + Δ)
    (:func:`gradient_error_bound`) is ≤ ``tau``; raises :class:`CertificateError` if it cannot be reached.

    Examples
    --------
    >>> rng = np.random.default_rng(2)
    >>> X = rng.normal(size=(400, 2)); ys = np.where(X[:, 0] + 0.3 * rng.normal(size=400) > 0, 1.0, -1.0)
    >>> fm = RandomFourierFeatures(2, 30, 1.0, rng)
    >>> fit = glm_streamed(fm, X, ys, 0.01, 1e-8)
    >>> fit.certificate.ok and fit.dist_bound <= 1e-8
    True
    """
    n, D = X.shape[0], fmap.n_components
    mu = lam + delta
    bl = np.zeros(D) if b_lin is None else np.asarray(b_lin, dtype=float)
    bl_n = float(np.linalg.norm(bl))
    c = curvature(loss, h)

    def full(wv: FloatArray, hessian: bool) -> tuple[float, FloatArray, FloatArray | None, float]:
        v, g, H, vmax = _glm_pass(fmap, X, ys, wv, loss, h, chunk_size, hessian)
        F = v + mu / 2 * float(wv @ wv) + float(bl @ wv) / n
        return F, g + mu * wv + bl / n, H, vmax

    # the loss Hessian (1/n)Σℓ''zzᵀ has eigenvalues in [0, c] (‖z‖ ≤ 1); its float32 sums can be off by about
    # 2⁻²³·D·c, so where μ is smaller than that the Newton matrix may not factor: then it is damped by that public
    # amount (a function of c and D only, never of the data).  The damping only steers the steps; the
    # certificate uses the gradient alone.
    damp = max(mu, 2.0 ** -20 * D * c)

    def factor(H: FloatArray) -> Any:
        A = np.triu(H) + np.triu(H, 1).T
        try:
            return cho_factor(A + mu * np.eye(D), lower=False)
        except LinAlgError:
            return cho_factor(A + damp * np.eye(D), lower=False)

    w = np.zeros(D)
    F, g, H, vmax = full(w, True)
    passes = 1
    cert = None
    try:
        fact = factor(H)
    except LinAlgError as exc:
        raise CertificateError(Certificate("certified_distance", math.nan, tau, False, solver="glm_streamed"),
                               w) from exc
    # the Hessian (an n·D² syrk, the costliest part of a pass) is refreshed only while the gradient falls
    # slowly: a stale one still gives a descent direction, and the certificate uses the gradient alone
    need_h = NEED_H0
    for _ in range(max_iter):
        gn, wn = float(np.linalg.norm(g)), float(np.linalg.norm(w))
        err = gradient_error_bound(n, D, wn, gn, mu, vmax, c, 1.0, bl_n)
        cert, dist = _certificate("glm_streamed", gn, err, mu, D, tau, passes=passes, loss=loss)
        if cert.ok:
            return StreamedFit(w, dist, cert, passes)
        p = -cho_solve(fact, g)
        slope = float(g @ p)
        t = 1.0
        for _ls in range(30):
            Fn, gn_, Hn, vn = full(w + t * p, need_h)
            passes += 1
            if Fn <= F + 1e-4 * t * slope + 64 * U * (1.0 + abs(F)) or t < 1e-6:
                break
            t /= 2
        ratio = float(np.linalg.norm(gn_)) / max(gn, 1e-300)
        w, F, g, vmax = w + t * p, Fn, gn_, vn
        if Hn is not None:
            try:
                fact = factor(Hn)
            except LinAlgError as exc:
                raise CertificateError(cert, w) from exc
        need_h = ratio > H_REFRESH or t < 1.0
    gn, wn = float(np.linalg.norm(g)), float(np.linalg.norm(w))
    err = gradient_error_bound(n, D, wn, gn, mu, vmax, c, 1.0, bl_n)
    cert, dist = _certificate("glm_streamed", gn, err, mu, D, tau, passes=passes, loss=loss)
    if not cert.ok:
        raise CertificateError(cert, w)
    return StreamedFit(w, dist, cert, passes)


# --------------------------------------------------------------------------- estimators
_POSITIVE = Interval(Real, 0, math.inf, closed="neither")

_ASSUMPTIONS: dict[str, str] = {
    "epsilon": "the privacy parameter ε is positive and finite",
    "lam": "the regularisation Λ is positive (the sensitivity 2LR/(nΛ) grows like 1/Λ)",
    "n_components": "D is a positive integer (even: D/2 frequencies, a cosine and a sine each)",
    "gamma": "γ of the Gaussian kernel exp(−γ‖x − y‖²) is positive",
    "loss": "'logistic' or 'huber' (convex, |ℓ'| ≤ 1, ℓ'' ≤ c)",
    "huber_width": "the Huber width h is positive (c = 1/(2h))",
    "M": "the bound M on |y| is positive and finite (targets are clipped into [−M, M])",
    "mechanism": "'output' (Algorithm 1) or 'objective' (Algorithm 2)",
    "calibration": "'derived' (the toolkit's, tight Jacobian factor) or 'stated' (as printed)",
    "tol": "the solver tolerance τ/Δ is in (0, 0.5]: the release is calibrated to Δ(1 + 2·tol)",
    "data_norm": "None, or a positive radius the inputs are clipped to",
    "chunk_size": "None or a positive number of rows per chunk",
    "random_state": "a non-negative int seed, a numpy Generator or None",
    "allow_unverified": "a bool: compute with a calibration whose form is not established (with a warning)",
    "classes": "None (the label set taken from the data, with a PrivacyLeakWarning) or two labels fixed in advance",
}

#: checks of sklearn.utils.estimator_checks.check_estimator that fail by design (with the reason)
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "DPRandomFeatureClassifier": {
        "check_classifiers_train": (
            "requires training accuracy > 0.83, but the ε-DP release adds to w* a noise vector of mean norm "
            "D·2/(nΛε) (ε = 1, Λ = 1e-3, D = 256: about 1700 at the check's n ≈ 300), which dominates w*; "
            "the same instance passes at ε = 1e12 (tests/test_random_features.py)"),
    },
    "DPRandomFeatureRegressor": {
        "check_regressors_train": (
            "requires a training R² > 0.5, but the ε-DP release adds a noise vector of mean norm "
            "D·2L/(nΛε) with L = M(1 + 1/√Λ) (ε = 1, M ≥ 138 fixed in advance for the check's targets): R² ≪ 0; "
            "at ε = 1e12 the check passes (with γ = 0.05, D = 256, Λ = 1e-6, which fit its linear targets; "
            "tests/test_random_features.py)"),
    },
}


def expected_failed_checks(estimator: BaseEstimator) -> dict[str, str]:
    """The entry of :data:`EXPECTED_FAILED_CHECKS` for ``estimator``.

    Examples
    --------
    >>> sorted(expected_failed_checks(DPRandomFeatureRegressor()))
    ['check_regressors_train']
    """
    return dict(EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))


def _declared(algorithm: str, who: str) -> VectorMechanism:
    found = [m for m in mechanisms().values() if m.applies_to(algorithm) and isinstance(m, VectorMechanism)]
    if not found:
        raise ValueError(f"{who}: no mechanism of algorithm {algorithm!r} is declared (simulations.trials.<id>."
                         "MECHANISMS); the noise cannot be calibrated")
    return found[0]


class _RFFBase(BaseEstimator):
    """Shared validation, feature map, calibration and release."""

    _regression: ClassVar[bool] = False

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "epsilon": [_POSITIVE],
        "lam": [_POSITIVE],
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "gamma": [_POSITIVE],
        "mechanism": [StrOptions({"output", "objective"})],
        "calibration": [StrOptions({"derived", "stated"})],
        "tol": [Interval(Real, 0, 0.5, closed="right")],
        "data_norm": [_POSITIVE, None],
        "chunk_size": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "allow_unverified": ["boolean"],
    }

    def _fail(self, message: str) -> ValueError:
        return ValueError(f"{type(self).__name__}: {message}")

    def _validate_params(self) -> None:
        from sklearn.utils._param_validation import (
            InvalidParameterError,
            validate_parameter_constraints,
        )

        params = self.get_params(deep=False)
        name = type(self).__name__
        for key, constraints in self._parameter_constraints.items():
            try:
                validate_parameter_constraints({key: constraints}, {key: params[key]}, caller_name=name)
            except InvalidParameterError as err:
                raise InvalidParameterError(f"{err} Assumption: {_ASSUMPTIONS[key]}.") from None

    def _rngs(self) -> tuple[np.random.Generator, np.random.Generator]:
        rs = self.random_state
        ss = np.random.SeedSequence(int(rs.integers(2**63)) if isinstance(rs, np.random.Generator) else rs)
        a, b = ss.spawn(2)
        return np.random.default_rng(a), np.random.default_rng(b)

    def _fit_release(self, X: FloatArray, ys: FloatArray, problem: dict[str, Any]) -> None:
        n, d = X.shape
        who = type(self).__name__
        algorithm = f"rff_{self.mechanism}"
        if self._regression and self.mechanism == "objective":
            raise self._fail("parameter 'mechanism' = 'objective' is refused for the squared loss: Algorithm 2 "
                             "needs |ℓ'| ≤ L everywhere, and the squared loss is Lipschitz only on the set "
                             "‖w‖ ≤ M/√Λ that its minimiser reaches, which the perturbed objective does not respect; "
                             "use mechanism='output'")
        mech = _declared(algorithm, who)
        task = "regressor" if self._regression else "classifier"
        allow = bool(self.allow_unverified)
        for st in mech.statements:            # every calibrating statement's form must be established
            b = privacy_rules.established_form(st, self.calibration, who=f"{who} (mechanism {mech.name!r})",
                                               task=task, allow_unverified=allow)
            if b.warning:
                warnings.warn(f"{who}: {b.warning}", UserWarning, stacklevel=4)
        L_own = problem.pop("L")            # the loss's own Lipschitz constant (the estimator's, not a statement's)
        try:
            cal = mech.calibrate(n=n, lam=float(self.lam), eps=float(self.epsilon), tol=float(self.tol),
                                 which=self.calibration, **problem)
        except ValueError as err:
            raise self._fail(f"with mechanism {mech.name!r}: {err}") from None
        # premises: checked on the calibrating statement (mech.statement) only, as simulations.estimators does; the
        # other statements are checked for their established form above.  The Lipschitz premise compares the
        # loss's own constant with the C_L the calibration used (from cms.lipschitz / cms.rff.sq_lipschitz)
        satisfied = {"algorithm": RFF_ALGORITHM, "lipschitz": L_own}
        if self.mechanism == "objective":
            satisfied["objective"] = RFF_OBJECTIVE
        values = {"C_L": cal["L"], "R_z": cal["R"], "n": n, "Lam": float(self.lam), "eps": float(self.epsilon)}
        warn = privacy_rules.check_premises(mech.statement, satisfied, values, who=who, mechanism=mech.name,
                                            allow_unverified=allow)
        if warn:
            warnings.warn(warn, UserWarning, stacklevel=4)
        rng_f, rng_b = self._rngs()
        D = int(self.n_components)
        tau = cal["tau"]
        loss = "squared" if self._regression else self.loss
        h, M = float(getattr(self, "huber_width", 0.5)), float(getattr(self, "M", 1.0))
        scales = [1.0 / cal["rate"]] + ([1.0 / cal["residual_rate"]] if self.mechanism == "objective" else [])
        for sc in scales:
            check_norm_law(mech.sampler, D, who=who, scale=sc)
        b_obj = mech.sampler(rng_b, 1.0 / cal["rate"], D) if self.mechanism == "objective" else None
        # refusal decided before the data are read, from public quantities only (n, D, Λ, Δ, L, M, tol): the
        # worst-case floating-point floor of the certificate must be ≤ τ/2.  For objective perturbation the norm
        # of b enters the floor; a public quantile of its Γ(D, 1/rate) law stands for it (never the drawn b,
        # whose norm a refusal would reveal); b beyond it (probability 1e-12) is not refused either
        b_pub = float(gamma_dist.ppf(1 - 1e-12, D, scale=1.0 / cal["rate"])) if b_obj is not None else 0.0
        floor = certification_floor(n, D, float(self.lam), loss, h, M, float(cal.get("delta", 0.0)), b_pub)
        if not floor + 4 * U * tau <= tau / 2:
            raise self._fail(f"parameter 'tol' = {float(self.tol)!r} is below what float64 can certify for every data "
                             f"set of this size: the worst-case rounding floor of the certified distance is "
                             f"{floor:.3g} > τ/2 = {tau / 2:.3g} (n = {n}, D = {D}, Λ = {float(self.lam):g}); use "
                             f"tol ≥ {min_tol(floor, tau / float(self.tol)):.6g} "
                             "(decided from public quantities only, before the data are read)")
        fmap = RandomFourierFeatures(d, D, float(self.gamma), rng_f, self.data_norm)
        try:
            if self._regression:
                fit = ridge_streamed(fmap, X, ys, float(self.lam), tau, M, self.chunk_size)
            elif self.mechanism == "output":
                fit = glm_streamed(fmap, X, ys, float(self.lam), tau, self.loss, h, chunk_size=self.chunk_size,
                                   max_iter=GLM_MAX_ITER)
            else:
                fit = glm_streamed(fmap, X, ys, float(self.lam), tau, self.loss, h, b_lin=b_obj,
                                   delta=cal["delta"], chunk_size=self.chunk_size, max_iter=GLM_MAX_ITER)
        except CertificateError as err:
            # Not ruled out in general: the a-priori floor shows certification is reachable in floating point, not
            # that Newton's method (or refinement) reaches it within its iteration cap for every data set.  Such
            # an error depends on the data, so it is outside the privacy claim (see the module doc, "Limits").
            raise RuntimeError(f"{who}: the solver did not certify ‖w̃ − w*‖ ≤ τ = {tau:.3g} within its iteration "
                               "cap; this failure depends on the data and is not covered by the privacy claim: do "
                               "not retry on the same data with other settings chosen from this message") from err
        w = fit.w
        if self.mechanism == "output":
            noise = mech.sampler(rng_b, 1.0 / cal["rate"], D)
            self.noise_scale_ = 1.0 / cal["rate"]
        else:
            noise = mech.sampler(rng_b, 1.0 / cal["residual_rate"], D)
            self.noise_scale_ = 1.0 / cal["rate"]
            self.residual_scale_ = 1.0 / cal["residual_rate"]
        coef = w + noise
        self.feature_map_ = fmap
        self.coef_ = np.nan_to_num(coef)     # inf (a noise scale beyond float64) → ±max float: post-processing, no refusal
        self.sensitivity_ = cal["sensitivity"]
        self.tau_ = tau
        self.certified_ = True
        self.eps_ = cal["eps_spent"]
        self.delta_ = cal.get("delta", 0.0)
        self.mechanism_ = mech
        self._diagnostics = {"dist_bound": fit.dist_bound, "certificate": fit.certificate, "n_passes": fit.passes}

    def __getstate__(self) -> dict[str, Any]:
        # the solver's diagnostics are not private: they never leave the process with a pickled model
        state = dict(super().__getstate__())
        state.pop("_diagnostics", None)
        return state

    def private_diagnostics_unsafe(self) -> dict[str, Any]:
        """The solver's diagnostics: the certified distance, its certificate (gradient norm, error bound) and the
        number of passes.  NOT PRIVATE: they are functions of the data with no noise (neighbouring data sets give
        different values); do not release them.  Only ``certified_`` (always True after a fit: the release is
        certified within ``tau_``) is part of the private output.

        Returns
        -------
        dict
            ``dist_bound``, ``certificate``, ``n_passes``.
        """
        check_is_fitted(self, "coef_")
        return dict(self._diagnostics)

    def _decision(self, X: Any) -> FloatArray:
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        out = np.empty(X.shape[0])
        for sl, ZT in self.feature_map_.chunks(X, self.chunk_size):
            out[sl] = self.coef_ @ ZT
        return out


class DPRandomFeatureRegressor(RegressorMixin, _RFFBase):
    """ε-DP kernel ridge regression on random Fourier features (output perturbation, CMS Algorithm 1).

    Objective J(w) = (1/(2n))Σ(y_i − wᵀz(x_i))² + (Λ/2)‖w‖² (Ridge with α = nΛ on the features);
    targets clipped into [−M, M]; release w̃ + b, b ∝ exp(−β‖b‖), β = ε/(2LR/(nΛ) + 2τ) with
    L = M(1 + 1/√Λ) (``cms.rff.sq_lipschitz``), R = 1, τ = tol·2LR/(nΛ).

    Parameters
    ----------
    epsilon : float
        ε > 0.
    lam : float
        Λ > 0.
    n_components : int
        D (even).
    gamma : float
        γ of the Gaussian kernel.
    M : float
        Bound on |y| (targets are clipped).
    mechanism : {"output"}
        "objective" is refused for the squared loss (the reason is in the error).
    calibration : {"derived", "stated"}
    tol : float
        τ/Δ, the certified solver distance as a share of the sensitivity.
    data_norm : float or None
        Optional radius the inputs are clipped to (does not affect the privacy: ‖z(x)‖ ≤ 1 always).
    chunk_size : int or None
        Rows per chunk (default: 16 MB of features).
    random_state : int, Generator or None
    allow_unverified : bool
        Fit even when a calibrating statement's form is not established or declares no premises
        (:mod:`simulations.privacy_rules`; a warning is emitted).  As in :mod:`simulations.estimators`, the
        premises are checked on the calibrating statement ``mechanism.statement`` (``cms.rff.beta``,
        ``cms.rff.amp_rate``) only, and the established form on every statement of ``mechanism.statements``.
        The Lipschitz premise compares the loss's own constant (1 for logistic and Huber, M(1 + 1/√Λ) for the
        squared loss, computed by the estimator) with the C_L the calibration took from its statements.

    Attributes
    ----------
    coef_, feature_map_, noise_scale_ (1/β), sensitivity_ (Δ + 2τ), tau_, certified_ (True: the release is
    certified within tau_), eps_, mechanism_, n_features_in_; all data-independent except the noisy coef_.
    The solver's diagnostics (not private) are in :meth:`private_diagnostics_unsafe`.

    Examples
    --------
    >>> import numpy as np
    >>> X = np.linspace(-1, 1, 300)[:, None]; y = X[:, 0] ** 2
    >>> est = DPRandomFeatureRegressor(epsilon=1e9, lam=1e-4, n_components=100, random_state=0).fit(X, y)
    >>> bool(est.score(X, y) > 0.9)
    True
    >>> DPRandomFeatureRegressor(mechanism="objective").fit(X, y)
    Traceback (most recent call last):
    ...
    ValueError: DPRandomFeatureRegressor: parameter 'mechanism' = 'objective' is refused for the squared loss: \
Algorithm 2 needs |ℓ'| ≤ L everywhere, and the squared loss is Lipschitz only on the set ‖w‖ ≤ M/√Λ \
that its minimiser reaches, which the perturbed objective does not respect; use mechanism='output'
    """

    _regression: ClassVar[bool] = True
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {**_RFFBase._parameter_constraints, "M": [_POSITIVE]}

    def __init__(self, epsilon=1.0, lam=1e-3, n_components=256, gamma=1.0, M=1.0, mechanism="output",
                 calibration="derived", tol=1e-3, data_norm=None, chunk_size=None, random_state=None,
                 allow_unverified=False):
        self.epsilon = epsilon
        self.lam = lam
        self.n_components = n_components
        self.gamma = gamma
        self.M = M
        self.mechanism = mechanism
        self.calibration = calibration
        self.tol = tol
        self.data_norm = data_norm
        self.chunk_size = chunk_size
        self.random_state = random_state
        self.allow_unverified = allow_unverified

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> DPRandomFeatureRegressor:
        """Fit on (X, y), |y| clipped to M, and draw the release's noise.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)

        Returns
        -------
        self
        """
        try:
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=True)
        except ValueError as err:
            raise self._fail(f"parameter 'X' or 'y': {err}") from err
        y = np.clip(np.asarray(y, dtype=np.float64), -float(self.M), float(self.M))
        L = float(self.M) * (1 + 1 / math.sqrt(float(self.lam)))     # |ℓ'| on the reachable set ‖w‖ ≤ M/√Λ
        self._fit_release(X, y, {"loss": "squared", "M": float(self.M), "L": L})
        return self

    def predict(self, X) -> FloatArray:
        """The released linear function (w̃ + b)ᵀz(x) clipped to [−M, M] (post-processing of the release:
        free in privacy, and never worse for targets in [−M, M]), shape (n_samples,)."""
        return np.clip(self._decision(X), -float(self.M), float(self.M))


def _binary_classes_from_data(y: Any, fail: Callable[[str], ValueError]) -> NDArray:
    """The two labels of ``y`` (a fit given ``classes=None``), or ``fail``'s ValueError naming parameter ``y``:
    a target scikit-learn cannot classify, one class only, or more than two."""
    try:
        check_classification_targets(y)
        y_type = type_of_target(y, input_name="y")
    except ValueError as err:
        raise fail(f"parameter 'y': {err}") from err
    classes = np.unique(y)
    if len(classes) < 2:
        raise fail(f"parameter 'y' has only one class ({classes.tolist()[0]!r}): a classifier needs two")
    if y_type != "binary":
        raise fail(f"parameter 'y': Only binary classification is supported. The type of the target "
                   f"is {y_type} ({len(classes)} classes).")
    return classes


class DPRandomFeatureClassifier(BinaryClassifierMixin, ClassifierMixin, _RFFBase):
    """ε-DP kernel logistic regression / Huber SVM on random Fourier features (CMS Algorithms 1 and 2).

    Binary: the two labels of ``classes`` (fixed in advance) map to −1 and +1.  ``mechanism="output"``: the
    certified minimiser + b, b ∝ exp(−β‖b‖), β of ``cms.rff.beta`` (L = R = 1).  ``mechanism="objective"``:
    Algorithm 2 at ε₁ = (1 − ρ)ε (ε′ and Δ from ``cms.alg2.eps_prime`` / ``cms.alg2.delta`` with c = 1/4
    or 1/(2h)), then the residual noise of rate ρε/(2τ) (``cms.rff.amp_rate``).

    Parameters
    ----------
    epsilon, lam, n_components, gamma, mechanism, calibration, tol, data_norm, chunk_size, random_state,
    allow_unverified
        As in :class:`DPRandomFeatureRegressor` (``mechanism`` may be "objective").
    loss : {"logistic", "huber"}
    huber_width : float
        h of the Huber loss.
    classes : array-like of two labels or None
        [negative, positive], fixed in advance (public).  A label outside it is refused (a test of that record's
        own value against a public set: the data universe, not a property of the data set).  None takes the
        sorted labels present in ``y`` (the former behaviour; it releases the label set and refuses data sets
        without exactly two labels: a :class:`PrivacyLeakWarning`).

    Attributes
    ----------
    classes_ (the ``classes`` parameter), coef_, feature_map_, noise_scale_, sensitivity_, tau_, certified_, eps_,
    delta_, mechanism_, n_features_in_ (the diagnostics: :meth:`private_diagnostics_unsafe`, not private)

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2)); y = np.where(X[:, 0] > 0, "b", "a")
    >>> clf = DPRandomFeatureClassifier(epsilon=1e9, lam=1e-3, n_components=64, random_state=0, classes=["a", "b"])
>>> clf = clf.fit(X, y)
    >>> clf.classes_.tolist(), bool(clf.score(X, y) > 0.9), clf.predict_proba(X[:2]).shape
    (['a', 'b'], True, (2, 2))
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_RFFBase._parameter_constraints, "loss": [StrOptions({"logistic", "huber"})], "huber_width": [_POSITIVE],
        "classes": ["array-like", None]}

    def __init__(self, epsilon=1.0, lam=1e-3, n_components=256, gamma=1.0, loss="logistic", huber_width=0.5,
                 mechanism="output", calibration="derived", tol=1e-3, data_norm=None, chunk_size=None,
                 random_state=None, allow_unverified=False, classes=None):
        self.classes = classes
        self.epsilon = epsilon
        self.lam = lam
        self.n_components = n_components
        self.gamma = gamma
        self.loss = loss
        self.huber_width = huber_width
        self.mechanism = mechanism
        self.calibration = calibration
        self.tol = tol
        self.data_norm = data_norm
        self.chunk_size = chunk_size
        self.random_state = random_state
        self.allow_unverified = allow_unverified

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> DPRandomFeatureClassifier:
        """Fit on (X, y) (two classes) and release the perturbed weights.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)

        Returns
        -------
        self
        """
        try:
            X, y = validate_data(self, X, y, dtype=np.float64)
        except ValueError as err:
            raise self._fail(f"parameter 'X' or 'y': {err}") from err
        if self.classes is None:
            warnings.warn(f"{type(self).__name__}: classes=None takes the label set from the data (np.unique(y)), "
                          "which the fit then releases as classes_ and refuses when it is not two labels: not "
                          "private; pass classes=[negative, positive] fixed in advance", PrivacyLeakWarning,
                          stacklevel=3)
            classes = _binary_classes_from_data(y, self._fail)
        else:
            classes = np.asarray(self.classes)
            if classes.ndim != 1 or len(classes) != 2 or classes[0] == classes[1]:
                raise self._fail(f"parameter 'classes' = {self.classes!r} must be two distinct labels "
                                 "[negative, positive] fixed in advance (assumption: the label set is public)")
            # a label outside the public set is outside the data universe the mechanism is defined on: refused
            # by a test of each record's own value against a public set (never by a property of the whole data,
            # such as how many classes are present)
            outside = ~((y == classes[0]) | (y == classes[1]))
            if np.any(outside):
                raise self._fail(f"parameter 'y' has a label outside parameter 'classes' = {classes.tolist()!r} "
                                 "(assumption: every label is one of the two public classes)")
        ys = np.where(y == classes[1], 1.0, -1.0)
        # sup|ℓ'| = 1 for the logistic loss (ℓ' = −σ(−z) ∈ (−1, 0)) and the Huber loss (ℓ' ∈ [−1, 0])
        self._fit_release(X, ys, {"loss": self.loss, "h": float(self.huber_width), "L": 1.0})
        self.classes_ = classes
        return self

    def decision_function(self, X) -> FloatArray:
        """(w̃ + b)ᵀz(x), shape (n_samples,); positive means ``classes_[1]``."""
        return self._decision(X)

    def predict(self, X) -> NDArray[Any]:
        """``classes_[1]`` where the decision function is ≥ 0, else ``classes_[0]``."""
        return np.where(self.decision_function(X) >= 0, self.classes_[1], self.classes_[0])

    def _has_proba(self) -> bool:
        return self.loss == "logistic"

    @available_if(_has_proba)
    def predict_proba(self, X) -> FloatArray:
        """σ(decision) for ``classes_[1]`` (logistic loss only), shape (n_samples, 2)."""
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])


# --------------------------------------------------------------------------- linear output perturbation (issue 34)
def _logistic_newton(Z: FloatArray, ys: FloatArray, lam: float, tol: float,
                     max_iter: int = GLM_MAX_ITER) -> tuple[FloatArray, float, float]:
    """Newton's method for J(w) = (1/n)Σ log(1 + exp(−y_i wᵀz_i)) + (Λ/2)‖w‖² until the computed gradient norm
    plus an a-priori bound on its rounding error is ≤ tol.  Returns (w, computed ‖∇J(w)‖, rounding bound)."""
    n, d = Z.shape
    w = np.zeros(d)
    q = float(np.max(np.linalg.norm(Z, axis=1))) if n else 0.0
    for _ in range(max_iter):
        m = ys * (Z @ w)
        s = expit(-m)                                     # −ℓ'(m) ∈ (0, 1)
        g = -(Z.T @ (s * ys)) / n + lam * w
        # rounding of the gradient: n-term sums of products of size ≤ q (|ℓ'| ≤ 1), plus Λ‖w‖ (relative γ_2)
        err = 2 * _gamma(n + d + 2) * (q * math.sqrt(d) + lam * float(np.linalg.norm(w)))
        gn = float(np.linalg.norm(g))
        if gn + err <= tol:
            return w, gn, err
        H = (Z.T * (s * (1 - s))) @ Z / n + lam * np.eye(d)
        w = w - np.linalg.solve(H, g)
    raise CertificateError(f"Newton's method did not reach ‖∇J‖ + rounding ≤ tol = {tol:g} in {max_iter} steps")


class DPLinearClassifier(BinaryClassifierMixin, ClassifierMixin, BaseEstimator):
    """ε-DP L2-regularised logistic regression by output perturbation (CMS Algorithm 1), with the premises that
    implementations relax as parameters (issue 34): the feature norm bound, an intercept, the solver tolerance.

    J(w) = (1/n)Σ log(1 + exp(−y_i wᵀx_i)) + (Λ/2)‖w‖²; the release is w̃ + b, b ∝ exp(−β‖b‖), with β read from
    ``cms.alg1.beta`` through the declared mechanism ``cms.linear_output`` at q = ``data_norm``, L = 1 (logistic
    loss) and tol: β = nΛε/(2(q + n·tol)) (the paper's nΛε/2 at q = 1, tol = 0).

    Parameters
    ----------
    epsilon : float
        Privacy parameter ε > 0.
    lam : float
        Λ > 0.
    data_norm : float
        The premise ‖x‖ ≤ data_norm (the paper: 1), fixed in advance.  A row of X beyond it is refused (ValueError):
        the certificate does not hold for it.  (A refusal is a function of the data: choose data_norm from the
        data's public range, not from the data set.)
    fit_intercept : bool
        Fit a *regularised* intercept, as a feature of constant 1: the norm bound becomes √(data_norm² + 1).  An
        unregularised intercept is not offered: J would not be strongly convex along it (no certificate).
    tol : float
        The released w̃ satisfies ‖∇J(w̃)‖ ≤ tol (certified, with floating-point rounding bounded); the sensitivity
        grows by 2·tol/Λ (``cms.alg1.sensitivity``).
    classes : array-like of two labels or None
        [negative, positive], fixed in advance; None takes the sorted labels of ``y`` (a PrivacyLeakWarning).
    random_state : int, numpy Generator or None
        Seed of the noise (a SeedSequence).

    Attributes
    ----------
    coef_, intercept_, classes_, noise_scale_ (1/β), sensitivity_, data_norm_ (the q used), eps_, mechanism_,
    n_features_in_

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(20000, 2)); X *= 20 / np.maximum(20, np.linalg.norm(X, axis=1))[:, None]
    >>> y = np.where(X[:, 0] > 0, 1, 0)
    >>> clf = DPLinearClassifier(epsilon=1.0, lam=0.01, data_norm=20.0, classes=[0, 1], random_state=0).fit(X, y)
    >>> round(clf.noise_scale_, 6), clf.data_norm_      # 1/β = 2(q + n·tol)/(nΛε) = 2(20 + 2e-4)/200
    (0.200002, 20.0)
    >>> bool(clf.score(X, y) > 0.9)
    True
    >>> DPLinearClassifier(data_norm=1.0, classes=[0, 1]).fit(X, y)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: DPLinearClassifier: parameter 'data_norm' = 1.0: X has a row of norm above it, outside the premise ...
    """

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "epsilon": [_POSITIVE],
        "lam": [_POSITIVE],
        "data_norm": [_POSITIVE],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "calibration": [StrOptions({"derived", "stated"})],
        "classes": ["array-like", None],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "allow_unverified": ["boolean"],
    }

    def __init__(self, epsilon=1.0, lam=1e-2, data_norm=1.0, fit_intercept=False, tol=1e-8, calibration="derived",
                 classes=None, random_state=None, allow_unverified=False):
        self.epsilon = epsilon
        self.lam = lam
        self.data_norm = data_norm
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.calibration = calibration
        self.classes = classes
        self.random_state = random_state
        self.allow_unverified = allow_unverified

    def _fail(self, message: str) -> ValueError:
        return ValueError(f"{type(self).__name__}: {message}")

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> DPLinearClassifier:
        """Fit on (X, y) and release w̃ + b.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features), rows of norm ≤ ``data_norm``
        y : array-like, shape (n_samples,), two labels

        Returns
        -------
        self
        """
        who = type(self).__name__
        try:
            X, y = validate_data(self, X, y, dtype=np.float64)
        except ValueError as err:
            raise self._fail(f"parameter 'X' or 'y': {err}") from err
        if self.classes is None:
            warnings.warn(f"{who}: classes=None takes the label set from the data (np.unique(y)): not private; pass "
                          "classes=[negative, positive] fixed in advance", PrivacyLeakWarning, stacklevel=3)
            classes = _binary_classes_from_data(y, self._fail)
        else:
            classes = np.asarray(self.classes)
            if classes.ndim != 1 or len(classes) != 2 or classes[0] == classes[1]:
                raise self._fail(f"parameter 'classes' = {self.classes!r} must be two distinct labels")
            if np.any(~((y == classes[0]) | (y == classes[1]))):
                raise self._fail(f"parameter 'y' has a label outside parameter 'classes' = {classes.tolist()!r}")
        q = float(self.data_norm)
        mech = _declared("linear_output", who)
        st = mech.statement
        if np.any(np.linalg.norm(X, axis=1) > q):
            raise self._fail(f"parameter 'data_norm' = {q!r}: X has a row of norm above it, outside the premise "
                             f"{st.relaxes['q'][1]} of statement {st.key} ({st.label}) that calibrates the noise; "
                             "raise data_norm (to a bound fixed in advance) or scale X")
        Z = np.hstack([X, np.ones((X.shape[0], 1))]) if self.fit_intercept else X
        q_eff = math.hypot(q, 1.0) if self.fit_intercept else q   # a regularised intercept: a feature of constant 1
        n, d = Z.shape
        allow = bool(self.allow_unverified)
        for s in mech.statements:
            b = privacy_rules.established_form(s, self.calibration, who=f"{who} (mechanism {mech.name!r})",
                                               task="classifier", allow_unverified=allow)
            if b.warning:
                warnings.warn(f"{who}: {b.warning}", UserWarning, stacklevel=3)
        try:
            cal = mech.calibrate(n=n, lam=float(self.lam), eps=float(self.epsilon), q=q_eff, tol=float(self.tol),
                                 L=1.0, which=self.calibration)
        except ValueError as err:
            raise self._fail(f"with mechanism {mech.name!r}: {err}") from None
        satisfied = {"algorithm": st.premises["algorithm"], "lipschitz": 1.0, "features": st.premises["features"]}
        privacy_rules.check_premises(st, satisfied, {"C_L": 1.0, "q": q_eff, "n": n, "Lam": float(self.lam),
                                                     "eps": float(self.epsilon), "tol": float(self.tol)},
                                     who=who, mechanism=mech.name, allow_unverified=allow)
        ys = np.where(y == classes[1], 1.0, -1.0)
        try:
            w, _, _ = _logistic_newton(Z, ys, float(self.lam), float(self.tol))
        except CertificateError as err:
            raise RuntimeError(f"{who}: the solver did not certify ‖∇J(w̃)‖ ≤ tol; this failure depends on the data "
                               "and is not covered by the privacy claim") from err
        rs = self.random_state
        rng = np.random.default_rng(np.random.SeedSequence(int(rs.integers(2**63)) if isinstance(rs, np.random.Generator)
                                                           else rs))
        coef = w + mech.sampler(rng, 1.0 / cal["rate"], d)
        self.coef_ = coef[:-1] if self.fit_intercept else coef
        self.intercept_ = float(coef[-1]) if self.fit_intercept else 0.0
        self.classes_ = classes
        self.noise_scale_ = 1.0 / cal["rate"]
        self.sensitivity_ = cal["sensitivity"]
        self.data_norm_ = q_eff
        self.eps_ = cal["eps_spent"]
        self.mechanism_ = mech
        return self

    def decision_function(self, X) -> FloatArray:
        """(w̃ + b)ᵀx (+ intercept), shape (n_samples,); positive means ``classes_[1]``."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return X @ self.coef_ + self.intercept_

    def predict(self, X) -> NDArray[Any]:
        """``classes_[1]`` where the decision function is ≥ 0, else ``classes_[0]``."""
        return np.where(self.decision_function(X) >= 0, self.classes_[1], self.classes_[0])
