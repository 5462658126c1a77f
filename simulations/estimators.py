"""Output-perturbed kernel algorithms as scikit-learn estimators.

Each estimator fits the exact non-private solution (with its optimality
certificate), then draws the output-perturbation noise of a declared
:class:`~simulations.mechanisms.Mechanism` once, with the scale taken from
:mod:`bounds` (``calibration="derived"`` by default, or the paper's
``"stated"`` one where they differ).  The ``mechanism`` parameter names the
paper's mechanism (``<paper id>.<label>``; see
:func:`simulations.mechanisms.mechanisms`); whether the function is clipped
first comes from the mechanism's declaration.  ``random_state`` is an int (fed
to a SeedSequence) or a numpy Generator; the same seed gives the same release.

``DPKernelLeastSquares`` (kernel least squares + b), ``DPKernelSVM``
(offset-free SVM, output sgn(f_z + b)) and ``DPOnlineKernelRegression``
(online kernel regression f_T + b_T).

All three release a *whole function* with one scalar of noise, as the papers do: differences
f(x) − f(x′) of the release carry no noise, so the released function is not ε-DP (the project's
audits find ε_lower ≈ 10 against a claimed 0.5).  Fitting therefore emits a
:class:`PrivacyLeakWarning` (as diffprivlib's warning of the same name) naming the private
alternatives: release one value f(x*) + b per ε (the ``value`` release model of
:mod:`verify.audit`), or the Gaussian-process release f + σ·G with G ~ GP(0, K) (Hall, Rinaldo &
Wasserman 2013, Cor. 9; :func:`verify.audit.gp_function`, audited under ``jia.s5_1.scale``).

Examples
--------
>>> import numpy as np
>>> from simulations.estimators import DPKernelLeastSquares
>>> from simulations.trials.utility import utility_setups
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-0.5, 0.5, (200, 2)); y = np.clip(X[:, 0] + 0.1 * rng.normal(size=200), -1, 1)
>>> ls = next(s.mechanism for s in utility_setups().values() if s.fit == "kls")   # a least-squares mechanism
>>> est = DPKernelLeastSquares(mechanism=ls, lam=0.1, eps=0.5, random_state=1).fit(X, y)
>>> est.predict(X[:3]).shape
(3,)
>>> est.noise_scale_ > 0 and est.certificate_.ok
True
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_array, check_is_fitted, check_X_y

from .kernels import GaussianKernel, Kernel
from .mechanisms import Mechanism, get_mechanism
from .online import online_kernel_regression
from .solvers import kls_fit, svm_fit


class PrivacyLeakWarning(UserWarning):
    """A release whose privacy guarantee does not cover what the estimator exposes."""


#: what the warning says: the leak and the alternatives
FUNCTION_LEAK = ("{name} releases the whole function f + b with ONE scalar b: differences f(x) − f(x′) carry "
                 "no noise, so the released function is not ε-DP (its audit finds ε_lower ≫ ε). Private "
                 "alternatives: release a single value f(x*) + b (each further value costs another ε), or the "
                 "Gaussian-process release f + σG, G ~ GP(0, K) (Hall, Rinaldo & Wasserman 2013, Cor. 9; "
                 "verify.audit.gp_function).")


def _rng(random_state: int | np.random.Generator | None) -> np.random.Generator:
    if isinstance(random_state, np.random.Generator):
        return random_state
    return np.random.default_rng(np.random.SeedSequence(random_state))


class _DPBase(BaseEstimator):
    """Shared fit-then-perturb logic."""

    def _kernel(self) -> Kernel:
        return GaussianKernel(1.0) if self.kernel is None else self.kernel

    def _mechanism(self) -> Mechanism:
        if self.mechanism is None:
            from .mechanisms import mechanisms

            raise ValueError(f"parameter 'mechanism' of {type(self).__name__} must name a declared mechanism: "
                             f"{', '.join(mechanisms())}")
        return get_mechanism(self.mechanism)

    def _draw(self, scale: float) -> float:
        import warnings

        warnings.warn(FUNCTION_LEAK.format(name=type(self).__name__), PrivacyLeakWarning, stacklevel=3)
        return float(_rng(self.random_state).laplace(0.0, scale))

    def decision_function(self, X) -> np.ndarray:
        """The released function f + b at X (before any sign or clipping)."""
        check_is_fitted(self, "alpha_")
        X = check_array(X)
        f = self.kernel_(X, self.X_fit_) @ self.alpha_
        if getattr(self, "clip_", None) is not None:
            f = np.clip(f, -self.clip_, self.clip_)
        return f + self.noise_


class DPKernelLeastSquares(RegressorMixin, _DPBase):
    """Output-perturbed kernel least squares (optionally clipped to [−M, M] before the noise).

    Parameters
    ----------
    lam : float
        Regularisation λ > 0 (objective (1/m)Σ(f(x_i) − y_i)² + λ‖f‖²_K).
    eps : float
        Privacy parameter ε > 0.
    kernel : Kernel, optional
        A :class:`simulations.kernels.Kernel` (default Gaussian, κ = 1).
    M : float
        Bound on |y| (the papers' M); targets outside [−M, M] are rejected.
    mechanism : str
        A declared mechanism (its noise scale statement, and whether it clips).
    calibration : {"derived", "stated"}
        Noise scale from the toolkit's derivation or as the paper prints it.
    random_state : int, Generator or None

    Attributes
    ----------
    alpha_, X_fit_, noise_scale_, noise_, certificate_, kernel_, clip_
    """

    def __init__(self, mechanism=None, lam=0.1, eps=0.5, kernel=None, M=1.0, calibration="derived",
                 random_state=None):
        self.mechanism = mechanism
        self.lam = lam
        self.eps = eps
        self.kernel = kernel
        self.M = M
        self.calibration = calibration
        self.random_state = random_state

    def fit(self, X, y):
        X, y = check_X_y(X, y, y_numeric=True)
        if np.max(np.abs(y)) > self.M:
            raise ValueError(f"parameter 'y' exceeds M = {self.M} (|y| ≤ M is assumed by the mechanism)")
        mech = self._mechanism()
        k = self._kernel()
        res = kls_fit(k(X, X), y, self.lam)
        self.noise_scale_ = mech.scale(self.calibration, kappa=k.kappa, lam=self.lam, m=len(y), eps=self.eps, M=self.M)
        self.clip_ = float(self.M) if mech.clip else None
        self.kernel_, self.X_fit_, self.alpha_ = k, X, res.alpha
        self.certificate_ = res.certificate
        self.noise_ = self._draw(self.noise_scale_)
        return self

    def predict(self, X) -> np.ndarray:
        """The released function f_z + b (or π(f_z) + b) at X."""
        return self.decision_function(X)


class DPKernelSVM(ClassifierMixin, _DPBase):
    """Output-perturbed offset-free kernel SVM; predicts sgn(f_z + b).

    Parameters
    ----------
    mechanism, lam, eps, kernel, calibration, random_state
        As in :class:`DPKernelLeastSquares`.
    """

    def __init__(self, mechanism=None, lam=0.1, eps=0.5, kernel=None, calibration="derived", random_state=None):
        self.mechanism = mechanism
        self.lam = lam
        self.eps = eps
        self.kernel = kernel
        self.calibration = calibration
        self.random_state = random_state

    def fit(self, X, y):
        X, y = check_X_y(X, y)
        self.classes_ = np.unique(y)
        if len(self.classes_) != 2:
            raise ValueError("parameter 'y' must have exactly two classes (the SVM is binary)")
        ys = np.where(y == self.classes_[1], 1.0, -1.0)
        k = self._kernel()
        res = svm_fit(k(X, X), ys, self.lam)
        self.noise_scale_ = self._mechanism().scale(self.calibration, kappa=k.kappa, lam=self.lam, m=len(y),
                                                     eps=self.eps)
        self.kernel_, self.X_fit_, self.alpha_, self.clip_ = k, X, res.alpha, None
        self.certificate_ = res.certificate
        self.noise_ = self._draw(self.noise_scale_)
        return self

    def predict(self, X) -> np.ndarray:
        d = self.decision_function(X)
        return np.where(d >= 0, self.classes_[1], self.classes_[0])


class DPOnlineKernelRegression(RegressorMixin, _DPBase):
    """Online kernel regression released with one Laplace scalar after T = m steps.

    Parameters
    ----------
    theta : float
        Step exponent, 1/2 < θ < 1.
    t0 : float or None
        Offset; default the smallest admissible, t₀ = (κ² + 1)^{1/θ}.
    mechanism, eps, kernel, M, calibration, random_state
        As in :class:`DPKernelLeastSquares`.
    """

    def __init__(self, mechanism=None, theta=0.75, t0=None, eps=0.5, kernel=None, M=1.0, calibration="derived",
                 random_state=None):
        self.mechanism = mechanism
        self.theta = theta
        self.t0 = t0
        self.eps = eps
        self.kernel = kernel
        self.M = M
        self.calibration = calibration
        self.random_state = random_state

    def fit(self, X, y):
        X, y = check_X_y(X, y, y_numeric=True)
        if np.max(np.abs(y)) > self.M:
            raise ValueError(f"parameter 'y' exceeds M = {self.M} (the mechanism assumes y ∈ [−M, M])")
        k = self._kernel()
        t0 = (k.kappa**2 + 1) ** (1 / self.theta) * (1 + 1e-12) if self.t0 is None else self.t0
        a = online_kernel_regression(k(X, X), y, self.theta, t0)
        self.t0_ = t0
        self.noise_scale_ = self._mechanism().scale(self.calibration, kappa=k.kappa, M=self.M, m=len(y), t0=t0,
                                                     theta=self.theta, eps=self.eps)
        self.kernel_, self.X_fit_, self.alpha_, self.clip_ = k, X, a, None
        self.noise_ = self._draw(self.noise_scale_)
        return self

    def predict(self, X) -> np.ndarray:
        return self.decision_function(X)
