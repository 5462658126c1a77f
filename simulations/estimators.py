"""Output-perturbed kernel algorithms as scikit-learn estimators.

Each estimator fits the exact non-private solution (with its optimality
certificate), then draws the output-perturbation noise of a
:class:`~simulations.mechanisms.Mechanism` once, with the scale taken from
:mod:`bounds` (``calibration="derived"`` by default, or the paper's
``"stated"`` one where they differ).  The ``mechanism`` parameter is the paper's
mechanism object (``simulations.trials.jia.S5_1``; its name ``"jia.s5_1"`` is a
convenience resolved to the same object, see :func:`simulations.mechanisms.mechanisms`).
Whether the function is clipped first comes from the mechanism's declaration.  ``random_state`` is a non-negative
int (fed to a SeedSequence), a numpy Generator or RandomState, or None; the same
seed gives the same release.

``DPKernelLeastSquares`` (kernel least squares + b), ``DPKernelSVM``
(offset-free SVM, output sgn(f_z + b)) and ``DPOnlineKernelRegression``
(online kernel regression f_T + b_T).

Before anything is allocated, ``fit`` applies the rules of :mod:`simulations.privacy_rules`, the same
for every paper and mechanism:

* the mechanism applies: its calibrating statement's *premises* (``Statement.premises``: loss,
  algorithm, labels, Lipschitz constant, RKHS-norm bound) are those the estimator establishes
  (:meth:`DPKernelLeastSquares.premises` and the like), decided by the proof's premises and never by a
  name; a mismatch is a ``ValueError`` naming both, and a statement declaring none is refused unless
  ``allow_unverified=True``;
* the form used is established by the statement's one verdict (:func:`bounds.pick.basis`, the rule of
  ``python -m bounds calibrate``), else :class:`bounds.pick.UnverifiedError` naming the private
  alternative (``simulations.random_features.DPRandomFeatureRegressor`` / ``...Classifier``), unless
  ``allow_unverified=True``: then a :class:`PrivacyLeakWarning` at *every* such fit names what is
  unverified;
* the Gram matrices fit in the available memory (else a ``ValueError`` naming ``X``, the bytes
  needed and available);
* the mechanism's sampler draws from the law it declares (a Kolmogorov–Smirnov test at level 1e-6 on
  10,000 deterministic draws, :func:`simulations.privacy_rules.check_sampler_law`).

The linear algebra of ``fit`` and ``predict`` runs on one BLAS thread unless the user set
``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS`` / ``MKL_NUM_THREADS`` (the rule of
:func:`bounds.pick.single_blas_thread`); the Gram matrix is built by blocks of rows, so a fit holds at
most two Gram-sized arrays (the Gram and its Cholesky factor for least squares).

The estimators follow scikit-learn's conventions: parameters are declared in
``_parameter_constraints`` and checked when ``fit`` is called (an invalid one raises
:class:`~sklearn.utils._param_validation.InvalidParameterError`, a ``ValueError``, naming the
parameter, the estimator and the assumption it violates); ``fit`` sets ``n_features_in_``;
the classifier takes any two labels (``classes_``, mapped to ±1) and alone has
``decision_function``; ``kernel`` is a :class:`~simulations.kernels.Kernel` or a name of
:data:`KERNELS`.  They pass :func:`sklearn.utils.estimator_checks.check_estimator` except
for the checks of :data:`EXPECTED_FAILED_CHECKS` (each contradicts differential privacy by
design; the reason is given there).

All three release a *whole function* with one scalar of noise, as the papers do: differences
f(x) − f(x′) of the release carry no noise, so the released function is not ε-DP (the project's
audits find ε_lower ≈ 10 against a claimed 0.5).  Fitting therefore also emits a short
:class:`PrivacyLeakWarning` (as diffprivlib's warning of the same name), once per estimator class
per process (:func:`reset_privacy_warnings` re-arms it), naming the private alternatives: release one value f(x*) + b per ε (the ``value`` release model of
:mod:`verify.audit`), or the Gaussian-process release f + σ·G with G ~ GP(0, K) (Hall, Rinaldo &
Wasserman 2013, Cor. 9; :func:`verify.audit.gp_function`, audited under ``jia.s5_1.scale``).

Examples
--------
>>> import warnings
>>> import numpy as np
>>> from simulations.estimators import DPKernelLeastSquares
>>> from simulations.trials.jia import S5_1, S5_2       # the least-squares and SVM mechanisms of §5
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-0.5, 0.5, (200, 2)); y = np.clip(X[:, 0] + 0.1 * rng.normal(size=200), -1, 1)
>>> DPKernelLeastSquares(mechanism=S5_1, lam=0.1, eps=0.5).fit(X, y)    # doctest: +ELLIPSIS
Traceback (most recent call last):
...
bounds.pick.UnverifiedError: DPKernelLeastSquares: parameter 'mechanism' = 'jia.s5_1' (derived calibration): statement jia.s5_1.scale (Section 5.1): no form of it is established (...); a private alternative the toolkit provides: simulations.random_features.DPRandomFeatureRegressor (...)
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     est = DPKernelLeastSquares(mechanism=S5_1, lam=0.1, eps=0.5, random_state=1,
...                                allow_unverified=True).fit(X, y)
>>> any("unverified: no form of jia.s5_1.scale" in str(w.message) for w in caught)
True
>>> est.predict(X[:3]).shape, est.n_features_in_
((3,), 2)
>>> est.noise_scale_ > 0 and est.certificate_.ok
True
>>> DPKernelLeastSquares(mechanism=S5_2).fit(X, y)        # doctest: +ELLIPSIS
Traceback (most recent call last):
...
ValueError: DPKernelLeastSquares: parameter 'mechanism' = 'jia.s5_2': DPKernelLeastSquares does not satisfy the premises of statement jia.s5_2.scale (Section 5.2) of mechanism 'jia.s5_2': loss: the statement assumes 'hinge', DPKernelLeastSquares has 'square'; ...
>>> DPKernelLeastSquares(mechanism=S5_1, eps=0).fit(X, y)
Traceback (most recent call last):
...
sklearn.utils._param_validation.InvalidParameterError: The 'eps' parameter of DPKernelLeastSquares must be \
a float in the range (0.0, inf). Got 0 instead. Assumption: the privacy parameter ε is positive and \
finite (ε = ∞ would be no privacy). Statement: jia.s5_1.scale (mechanism jia.s5_1).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from numbers import Integral, Real
from typing import Any, ClassVar

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, _fit_context
from sklearn.utils._param_validation import (
    Interval,
    InvalidParameterError,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils.multiclass import check_classification_targets, type_of_target
from sklearn.utils.validation import check_array, check_is_fitted, validate_data

from . import privacy_rules
from .kernels import GaussianKernel, Kernel, LinearKernel, PeriodicSobolevKernel
from .mechanisms import Mechanism, MissingParameterError, get_mechanism, mechanisms
from .online import online_kernel_regression
from .solvers import CertificateError, kls_fit, svm_fit

__all__ = [
    "DPKernelLeastSquares",
    "DPKernelSVM",
    "DPOnlineKernelRegression",
    "EXPECTED_FAILED_CHECKS",
    "FitCertificateError",
    "KERNELS",
    "PrivacyLeakWarning",
    "expected_failed_checks",
    "reset_privacy_warnings",
]


class BinaryClassifierMixin:
    """Tells scikit-learn's estimator checks that a classifier takes two classes only (the papers' and CMS's
    classifiers release one weight vector or function for labels ±1)."""

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        return tags


class PrivacyLeakWarning(UserWarning):
    """A release whose privacy guarantee does not cover what the estimator exposes.

    The estimators release the whole function f + b with ONE scalar b: differences f(x) − f(x′)
    carry no noise, so the released function is not ε-DP (its audit finds ε_lower ≫ ε).  Private
    alternatives: release a single value f(x*) + b (each further value costs another ε), or the
    Gaussian-process release f + σG, G ~ GP(0, K) (Hall, Rinaldo & Wasserman 2013, Cor. 9;
    ``verify.audit.gp_function``).  The warning itself is one short line (:data:`FUNCTION_LEAK`),
    emitted once per estimator class per process (:data:`_WARNED`).
    """


class FitCertificateError(CertificateError, ValueError):
    """The solver could not certify the fit at the given parameters (a :class:`CertificateError`).

    Also a ``ValueError``: the parameters (typically a tiny ``lam``) are outside what a float64
    solve can certify.  ``err.certificate`` and ``err.result`` are those of the solver's error.
    """

    def __init__(self, message: str, certificate: Any, result: object | None = None) -> None:
        super().__init__(certificate, result)
        self.args = (message,)


#: what the warning says (≤ 160 characters with any class name; the details are in PrivacyLeakWarning's doc)
FUNCTION_LEAK = ("{name}: f + b with one scalar b leaves f(x) − f(x′) noiseless, so the function is not ε-DP; "
                 "release f(x*) + b or a Gaussian-process release")

#: the algorithms the estimators fit, as the calibrating statements' premises name them (``Statement.premises``)
ERM = "regularised kernel ERM (exact minimiser, no offset)"
ONLINE = "online kernel regression (recursion (3), one pass)"

#: the estimator classes that have warned in this process (explicit: pytest resets the warnings filters)
_WARNED: set[str] = set()


def reset_privacy_warnings() -> None:
    """Forget which classes have warned, so each warns again at its next fit (for tests).

    Examples
    --------
    >>> from simulations.estimators import reset_privacy_warnings
    >>> reset_privacy_warnings()
    """
    _WARNED.clear()

#: kernels by name (the ``kernel`` parameter may be one of these names or a Kernel object)
KERNELS: dict[str, Callable[[], Kernel]] = {
    "gaussian": lambda: GaussianKernel(1.0),            # σ = 1, κ = 1 on R^d
    "linear": lambda: LinearKernel(1.0),                # the unit ball, κ = 1 (points outside are rejected)
    "periodic_sobolev": lambda: PeriodicSobolevKernel(s=1),   # the circle [0, 1), one feature
}

#: The scikit-learn checks (:func:`sklearn.utils.estimator_checks.check_estimator`) each estimator fails
#: by design, with the reason; pass ``expected_failed_checks(est)`` as ``expected_failed_checks``.
#: Reasons are stated for an instance given a ``mechanism`` of its algorithm and, for the regressors, a
#: bound ``M`` covering the targets sklearn's checks use (|y| up to ≈ 138, so ``M=1000``): M is the
#: a-priori bound |y| ≤ M of the sensitivity, and targets beyond it are rejected, never clipped, so
#: with the default M = 1 about 25 checks stop at "parameter 'y' exceeds M".  Each reason is
#: confirmed by tests/test_sklearn_conformance.py (the check fails at ε = 0.5, and the stated cause
#: is the only one: everything else in the check passes, and the ε → ∞ limit passes or is shown to be
#: the paper's algorithm).
EXPECTED_FAILED_CHECKS: dict[str, dict[str, str]] = {
    "DPKernelLeastSquares": {
        "check_regressors_train": (
            "requires a training R² > 0.5, but the ε-DP release adds to f_z one Laplace scalar of scale "
            "∝ M/(λmε) (Jia §5.1: 2Mκ(κ/√λ + 1)/(λmε)), with M ≥ 138 fixed in advance to bound the "
            "targets of every check; on this check's m = 200 standardised targets that noise exceeds "
            "their spread by orders of magnitude at ε = 0.5 (R² ≪ 0). The same instance passes the "
            "check at ε = 1e12 (given a λ that fits these data, e.g. 1e-3: at the default λ = 0.1 "
            "the non-private fit has R² ≈ 0.11 on them)"),
    },
    "DPKernelSVM": {},
    "DPOnlineKernelRegression": {
        "check_regressors_train": (
            "requires a training R² > 0.5, but the ε-DP release adds to f_T one Laplace scalar b_T of scale "
            "C_T/ε ∝ M/ε (Theorem 1), with M ≥ 138 fixed in advance to bound the targets of every check "
            "(R² ≪ 0 at ε = 0.5); and Theorem 1's one-pass recursion, whose regularisation "
            "λ_t = (t + t₀)^(θ−1) is what bounds its sensitivity (‖f_T‖_K ≤ κM/λ_T), under-fits this "
            "check's 200 samples even without noise (R² ≈ 0.03 at ε = 1e12 and the defaults, below 0.4 "
            "over θ, t₀ and Gaussian widths); its coefficients are those of the paper's recursion (3)"),
    },
}


def expected_failed_checks(estimator: BaseEstimator) -> dict[str, str]:
    """The entry of :data:`EXPECTED_FAILED_CHECKS` for ``estimator`` (for ``parametrize_with_checks``).

    Examples
    --------
    >>> from simulations.estimators import DPKernelSVM, expected_failed_checks
    >>> isinstance(expected_failed_checks(DPKernelSVM()), dict)
    True
    """
    return dict(EXPECTED_FAILED_CHECKS.get(type(estimator).__name__, {}))


def _rng(random_state: int | np.random.Generator | np.random.RandomState | None
         ) -> np.random.Generator | np.random.RandomState:
    if isinstance(random_state, np.random.Generator | np.random.RandomState):
        return random_state
    return np.random.default_rng(np.random.SeedSequence(random_state))


_POSITIVE = Interval(Real, 0, math.inf, closed="neither")

#: the assumption behind each parameter's constraint (appended to the error message)
_ASSUMPTIONS: dict[str, str] = {
    "mechanism": "a simulations.mechanisms.Mechanism (or the name of a declared one) whose calibrating "
                 "statement's premises this estimator satisfies",
    "lam": "the regularisation λ is positive and finite (the noise scale grows like 1/λ)",
    "eps": "the privacy parameter ε is positive and finite (ε = ∞ would be no privacy)",
    "kernel": f"a simulations.kernels.Kernel or one of the names {sorted(KERNELS)}",
    "M": "the bound M ≥ |y| the mechanism's sensitivity assumes is positive and finite",
    "theta": "the step exponent of Theorem 1 satisfies 1/2 < θ < 1",
    "t0": "the offset t₀ of Theorem 1 is positive and finite (with t₀^θ ≥ κ² + 1), or None for the "
          "smallest admissible one",
    "calibration": "'derived' (the toolkit's noise scale) or 'stated' (the paper's)",
    "allow_unverified": "a bool: fit with a calibration no verdict establishes, or whose statement declares no "
                        "premises (a PrivacyLeakWarning at every fit)",
    "random_state": "a non-negative int seed, a numpy Generator or RandomState, or None",
}


#: the parameters a mechanism's noise calibration uses (their errors name its statement)
_CALIBRATED = frozenset({"eps", "lam", "M", "theta", "t0", "kernel"})


def _culprit(X: Any, err: Exception) -> str:
    """Which of X and y sklearn's validation rejected (its messages do not always say)."""
    if "inconsistent numbers of samples" in str(err):
        return "parameters 'X' and 'y'"
    try:
        check_array(X, dtype=np.float64)
    except (ValueError, TypeError):
        return "parameter 'X'"
    return "parameter 'y'"


#: the most entries of one block of kernel evaluations (2²² float64 = 32 MB): the Gram is filled, and the
#: released function evaluated, by blocks of rows of at most this size, so that a kernel's temporaries stay
#: block-sized; a problem of at most this many entries is one call, as before
_BLOCK = 1 << 22

#: what a mechanism's problem value is in terms of the estimator (for error messages)
_MEANING: dict[str, str] = {"m": "n_samples", "kappa": "κ of parameter 'kernel'"}


class _DPBase(BaseEstimator):
    """Shared validation and fit-then-perturb logic."""

    #: the algorithm this estimator fits (a mechanism must list it in its ``algorithms``)
    algorithm: ClassVar[str] = ""

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "mechanism": [str, Mechanism, None],
        "eps": [_POSITIVE],
        "kernel": [StrOptions(set(KERNELS)), Kernel, None],
        "calibration": [StrOptions({"derived", "stated"})],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.RandomState,
                         np.random.Generator, None],
        "allow_unverified": ["boolean"],
    }

    # -- validation -----------------------------------------------------------------------
    def _statement_note(self, key: str) -> str:
        """`` Statement: <key> (mechanism <name>).`` for a parameter the mechanism's calibration uses."""
        if key not in _CALIBRATED:
            return ""
        try:
            mech = get_mechanism(self.mechanism)
        except ValueError:            # no usable mechanism: its own error comes next
            return ""
        return f" Statement: {mech.statement.key} (mechanism {mech.name})."

    def _validate_params(self) -> None:
        """sklearn's parameter validation, one parameter at a time, with the assumption it violates
        and, for a parameter the noise calibration uses, the statement that calibrates it."""
        params = self.get_params(deep=False)
        name = type(self).__name__
        for key, constraints in self._parameter_constraints.items():
            try:
                validate_parameter_constraints({key: constraints}, {key: params[key]}, caller_name=name)
            except InvalidParameterError as err:
                raise InvalidParameterError(f"{err} Assumption: {_ASSUMPTIONS[key]}."
                                            f"{self._statement_note(key)}") from None
            value = params[key]
            if key != "random_state" and isinstance(value, Real):
                try:
                    float(value)
                except OverflowError:
                    raise InvalidParameterError(f"The {key!r} parameter of {name} = {str(value)[:12]}… is not "
                                                f"representable as a float. Assumption: {_ASSUMPTIONS[key]}."
                                                f"{self._statement_note(key)}") from None

    def _fail(self, message: str) -> ValueError:
        return ValueError(f"{type(self).__name__}: {message}")

    def _check_data(self, X: Any, y: Any, *, regression: bool) -> tuple[np.ndarray, np.ndarray]:
        try:
            X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=regression)
        except ValueError as err:
            raise self._fail(f"{_culprit(X, err)}: {err}") from err
        except TypeError as err:       # sklearn's convention (e.g. sparse input, unconvertible objects)
            raise TypeError(f"{type(self).__name__}: {_culprit(X, err)}: {err}") from err
        if regression:
            try:        # numeric strings are read as numbers, as sklearn does for object arrays
                y = np.asarray(y, dtype=np.float64) if y.dtype.kind in "biufUS" else None
            except ValueError as err:
                raise self._fail(f"parameter 'y' must be real numbers for a regressor ({err})") from err
            if y is None or not np.all(np.isfinite(y)):
                raise self._fail("parameter 'y' must be finite real numbers for a regressor")
            top = float(np.max(np.abs(y)))
            if top > self.M:
                raise self._fail(f"parameter 'y' exceeds M = {self.M} (max |y| = {top:.6g}; the mechanism "
                                 "assumes |y| ≤ M: raise M or rescale y)")
        return X, y

    def _check_X(self, X: Any) -> np.ndarray:
        check_is_fitted(self, "alpha_")
        try:
            return validate_data(self, X, dtype=np.float64, reset=False)
        except ValueError as err:
            raise self._fail(f"parameter 'X': {err}") from err
        except TypeError as err:
            raise TypeError(f"{type(self).__name__}: parameter 'X': {err}") from err

    # -- pieces of the fit ----------------------------------------------------------------
    #: Gram-sized (m × m) arrays the fit holds at once (:func:`~simulations.privacy_rules.check_memory`)
    _GRAMS: ClassVar[int] = 2
    #: which private alternative a refusal names (:data:`simulations.privacy_rules.ALTERNATIVES`)
    _TASK: ClassVar[str] = "regressor"

    def premises(self, **problem: float) -> dict[str, Any]:
        """The premises this estimator establishes at the problem's values (compared with the calibrating
        statement's ``premises`` by :func:`simulations.privacy_rules.check_premises`)."""
        raise NotImplementedError

    def _kernel(self) -> Kernel:
        k = self.kernel
        if k is None:
            return GaussianKernel(1.0)
        if isinstance(k, str):
            if k not in KERNELS:
                raise self._fail(f"parameter 'kernel' = {k!r} is not one of {sorted(KERNELS)}")
            return KERNELS[k]()
        return k

    def _gram(self, kernel: Kernel, A: np.ndarray, B: np.ndarray) -> np.ndarray:
        """K(A, B), filled by blocks of rows of at most :data:`_BLOCK` entries: one array of its size, whatever
        temporaries the kernel makes (one block when it fits, as one call)."""
        rows = max(1, _BLOCK // max(len(B), 1))
        G: np.ndarray | None = None
        for i in range(0, max(len(A), 1), rows):
            try:
                part = np.asarray(kernel(A[i:i + rows], B), dtype=np.float64)
            except ValueError as err:
                raise self._fail(f"X is outside the domain of parameter 'kernel' = {kernel!r}: {err}") from err
            n_i = len(A[i:i + rows])
            if part.shape != (n_i, len(B)) or not (math.isfinite(float(part.sum())) or np.all(np.isfinite(part))):
                raise self._fail(f"parameter 'kernel' = {kernel!r} gave a Gram matrix that is not finite of shape "
                                 f"({len(A)}, {len(B)}) on X")
            if rows >= len(A):
                return part
            if G is None:
                G = np.empty((len(A), len(B)))
            G[i:i + n_i] = part
            del part
        assert G is not None
        return G

    def _mechanism(self) -> Mechanism:
        """The mechanism (resolved from its name if given one); whether it applies is decided by its premises."""
        name = type(self).__name__
        if self.mechanism is None:
            fits = [n for n, m in mechanisms().items() if m.applies_to(self.algorithm)]
            raise ValueError(f"parameter 'mechanism' of {name} must be a Mechanism whose statement's premises it "
                             f"satisfies (declared for {self.algorithm!r}: {', '.join(fits) or 'none'})")
        try:
            return get_mechanism(self.mechanism)
        except ValueError as err:
            raise self._fail(f"parameter 'mechanism': {err}") from None

    def _calibrate(self, mech: Mechanism, **problem: float) -> tuple[float, list[str]]:
        """The rules before anything is allocated: the calibrating statement applies to this estimator (its
        premises), its form is established (its verdict), the noise scale is finite, the Gram fits in memory.

        Returns the scale and the warnings to emit at the end of a successful fit (``allow_unverified``).
        """
        name = type(self).__name__
        what = "; ".join(f"{k} = " + (f"{_MEANING[k]} = " if k in _MEANING else "") + f"{v!r}" for k, v in problem.items())
        try:
            values = mech.statement_values(problem)
        except MissingParameterError as err:
            values, missing = {}, [err.parameter]
        else:
            missing = [p for p in mech.statement.params if p not in values]
        warn: list[str] = []
        allow = bool(self.allow_unverified)
        for st in (mech.statement,):   # premises are the calibration's; claims are checked as established below
            try:
                w = privacy_rules.check_premises(st, self.premises(**problem), {**problem, **values}, who=name,
                                                 mechanism=mech.name, allow_unverified=allow)
            except ValueError as err:
                fits = self._satisfiable(problem, exclude=mech.name)
                raise self._fail(f"parameter 'mechanism' = {mech.name!r}: {err}"
                                 + (f" (declared: {', '.join(fits)})" if fits else "")) from None
            if w:
                warn.append(w)
        if missing:
            raise self._fail(f"parameter 'mechanism' = {mech.name!r} does not apply to {name}: its noise scale "
                             f"({mech.scale_key}) needs {', '.join(map(repr, missing))}, which {name} does not "
                             f"define (it has {what}); use a mechanism of this estimator's algorithm")
        # before anything large is read or built (the report's evidence, the Gram)
        privacy_rules.check_memory(int(problem["m"]), self._GRAMS, who=name, task=self._TASK)
        for st in mech.statements:
            b = privacy_rules.established_form(st, self.calibration, who=f"{name}: parameter 'mechanism' = "
                                               f"{mech.name!r} ({self.calibration} calibration)",
                                               task=self._TASK, allow_unverified=allow)
            if b.warning:
                warn.append(f"{name}: {b.warning}; a private alternative: {privacy_rules.ALTERNATIVES[self._TASK]}")
        try:
            scale = mech.scale(self.calibration, **problem)
        except ValueError as err:
            raise self._fail(f"with mechanism {mech.name!r}: {err} [here {what}]") from None
        if not (math.isfinite(scale) and scale >= 0):
            raise self._fail(f"the noise scale of mechanism {mech.name!r} is {scale!r}, not a finite number "
                             f"[here {what}]: the parameters are outside float64's range")
        return scale, warn

    def _satisfiable(self, problem: dict[str, float], exclude: str = "") -> list[str]:
        """The declared mechanisms whose statements' premises this estimator satisfies at the problem."""
        out = []
        try:
            declared = mechanisms()
        except ValueError:
            return out
        for n, m in declared.items():
            if n == exclude:
                continue
            try:
                values = {**problem, **m.statement_values(problem)}
                for st in (m.statement,):
                    privacy_rules.check_premises(st, self.premises(**problem), values, who="", mechanism=n)
            except (ValueError, KeyError):
                continue
            out.append(n)
        return out

    def _solve(self, fit: Callable[..., Any], G: np.ndarray, y: np.ndarray, lam: float) -> Any:
        try:
            return fit(G, y, lam)
        except np.linalg.LinAlgError as err:       # K + λmI singular in float64 (tiny λ, repeated points)
            raise self._fail(f"the fit's linear system is singular in float64 at lam = {lam!r} ({err}); increase "
                             "lam") from err
        except CertificateError as err:
            raise FitCertificateError(
                f"{type(self).__name__}: the fit could not be certified at lam = {lam!r} ({err.certificate.describe()});"
                " lam is too small, or the data too degenerate, for a float64 solve: increase lam",
                err.certificate, err.result) from err

    def _draw(self, mech: Mechanism, scale: float) -> float:
        """One draw of the mechanism's noise, after its sampler has passed the law test at this scale."""
        try:
            privacy_rules.check_sampler_law(lambda rng, size: mech.noise(scale, size, rng), scale,
                                            who=f"mechanism {mech.name!r}", key=mech.sampler)
        except ValueError as err:
            raise self._fail(f"parameter 'mechanism': {err}") from None
        out = mech.noise(scale, None, _rng(self.random_state))
        try:
            noise = float(np.asarray(out, dtype=np.float64).reshape(()))
        except (TypeError, ValueError):
            raise self._fail(f"parameter 'mechanism': mechanism {mech.name!r}'s sampler returned {out!r} for one "
                             "draw, not one real number") from None
        if not math.isfinite(noise):
            raise self._fail(f"parameter 'mechanism': mechanism {mech.name!r}'s sampler drew {noise}, not finite")
        return noise

    def _release(self, mech: Mechanism, kernel: Kernel, X: np.ndarray, alpha: np.ndarray, scale: float,
                 clip: float | None, **fitted: Any) -> None:
        """Draw the noise and store the released function (and ``fitted`` attributes), all or nothing.

        A function float64 cannot evaluate everywhere is rejected: |K(x, x′)| ≤ κ², so every
        prediction is at most κ²Σ|α_i| + |b| in absolute value, which must be finite.
        """
        alpha = np.asarray(alpha)
        if not np.all(np.isfinite(alpha)):
            raise self._fail("the fitted coefficients are not finite: the parameters or the data are outside "
                             "float64's range (rescale y and M, or increase lam)")
        noise = self._draw(mech, scale)
        with np.errstate(over="ignore"):
            bound = float(kernel.kappa) ** 2 * float(np.sum(np.abs(alpha))) + abs(noise)
        if not math.isfinite(bound):
            raise self._fail(f"the released function is not representable in float64 (κ²Σ|α| + |b| = {bound}); "
                             "rescale y and M, or increase lam or eps")
        for key, value in fitted.items():
            setattr(self, key, value)
        self.kernel_, self.X_fit_, self.alpha_, self.clip_ = kernel, X, alpha, clip
        self.noise_scale_, self.noise_ = scale, noise

    def _warn(self, unverified: list[str]) -> None:
        """The warnings of a successful fit: every unverified premise or form (each fit), the function leak
        (once per class per process).  Called from ``fit`` (stack: _warn ← fit ← _fit_context ← the caller)."""
        for text in unverified:
            warnings.warn(text, PrivacyLeakWarning, stacklevel=4)
        name = type(self).__name__
        if name not in _WARNED:
            _WARNED.add(name)
            warnings.warn(FUNCTION_LEAK.format(name=name), PrivacyLeakWarning, stacklevel=4)

    def _released(self, X: Any) -> np.ndarray:
        """The released function f + b (or π(f) + b) at X, by blocks of rows (one BLAS thread)."""
        X = self._check_X(X)
        return privacy_rules.one_blas_thread(self._released_at)(X)

    def _released_at(self, X: np.ndarray) -> np.ndarray:
        rows = max(1, _BLOCK // max(len(self.X_fit_), 1))
        f = np.concatenate([self._gram(self.kernel_, X[i:i + rows], self.X_fit_) @ self.alpha_
                            for i in range(0, len(X), rows)]) if len(X) > rows else \
            self._gram(self.kernel_, X, self.X_fit_) @ self.alpha_
        if self.clip_ is not None:
            f = np.clip(f, -self.clip_, self.clip_)
        out = f + self.noise_
        if not np.all(np.isfinite(out)):
            raise self._fail(f"the released function is not finite at X (kernel {self.kernel_!r})")
        return out


class DPKernelLeastSquares(RegressorMixin, _DPBase):
    """Output-perturbed kernel least squares (optionally clipped to [−M, M] before the noise).

    Parameters
    ----------
    mechanism : Mechanism or str
        A mechanism whose calibrating statement's premises kernel least squares satisfies (:meth:`premises`):
        its noise scale statement, and whether it clips (e.g. ``simulations.trials.jia.S5_1`` or
        ``simulations.trials.jamp.PROP1``; a declared name such as ``"jia.s5_1"`` is resolved to the object).
    lam : float
        Regularisation λ > 0 (objective (1/m)Σ(f(x_i) − y_i)² + λ‖f‖²_K).
    eps : float
        Privacy parameter ε > 0.
    kernel : Kernel or str, default "gaussian"
        A :class:`simulations.kernels.Kernel` or a name of :data:`KERNELS` (None: Gaussian, κ = 1).
    M : float
        Bound on |y| (the papers' M); targets outside [−M, M] are rejected.
    calibration : {"derived", "stated"}
        Noise scale from the toolkit's derivation or as the paper prints it; refused at ``fit`` when the
        calibrating statement's verdict establishes no such form (the rule of ``bounds calibrate``).
    random_state : int, Generator, RandomState or None
    allow_unverified : bool, default False
        Fit anyway with a form no verdict establishes, or with a statement that declares no premises:
        a :class:`PrivacyLeakWarning` at every such fit names what is unverified.

    Attributes
    ----------
    alpha_, X_fit_, noise_scale_, noise_, certificate_, kernel_, clip_, n_features_in_

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from simulations.estimators import DPKernelLeastSquares
    >>> from simulations.trials.jia import S5_1
    >>> X = np.linspace(-1, 1, 40)[:, None]; y = 0.5 * X[:, 0]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     est = DPKernelLeastSquares(mechanism=S5_1, lam=0.1, random_state=0, allow_unverified=True).fit(X, y)
    >>> est.predict(X[:2]).shape, est.n_features_in_
    ((2,), 1)
    >>> hasattr(est, "decision_function")      # a regressor
    False
    >>> DPKernelLeastSquares(mechanism=S5_1, M=0.1, allow_unverified=True).fit(X, y)
    Traceback (most recent call last):
    ...
    ValueError: DPKernelLeastSquares: parameter 'y' exceeds M = 0.1 (max |y| = 0.5; the mechanism assumes |y| ≤ M: \
raise M or rescale y)
    """

    algorithm: ClassVar[str] = "kls"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_DPBase._parameter_constraints, "lam": [_POSITIVE], "M": [_POSITIVE]}

    def __init__(self, mechanism=None, lam=0.1, eps=0.5, kernel="gaussian", M=1.0, calibration="derived",
                 random_state=None, allow_unverified=False):
        self.mechanism = mechanism
        self.lam = lam
        self.eps = eps
        self.kernel = kernel
        self.M = M
        self.calibration = calibration
        self.random_state = random_state
        self.allow_unverified = allow_unverified

    def premises(self, **problem: float) -> dict[str, Any]:
        """What this fit establishes: the square loss, the exact regularised minimiser, |y| ≤ M, the Lipschitz
        constant 2M(κ/√λ + 1) of the loss on its range (|f_z(x)| ≤ κ‖f_z‖_K ≤ κM/√λ, since λ‖f_z‖²_K ≤
        J(f_z) ≤ J(0) ≤ M²) and the RKHS-norm bound M/√λ.

        Examples
        --------
        >>> from simulations.estimators import DPKernelLeastSquares
        >>> p = DPKernelLeastSquares().premises(kappa=1.0, lam=0.25, M=1.0)
        >>> p["loss"], p["lipschitz"], p["rkhs_norm"]
        ('square', 6.0, 2.0)
        """
        M, kappa, root = float(problem["M"]), float(problem["kappa"]), math.sqrt(float(problem["lam"]))
        return {"loss": "square", "algorithm": ERM, "labels": "|y| <= M",
                "lipschitz": 2 * M * (kappa / root + 1), "rkhs_norm": M / root}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> DPKernelLeastSquares:
        """Fit kernel least squares on (X, y) and draw the release's noise.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Targets with |y| ≤ M.

        Returns
        -------
        self
        """
        X, y = self._check_data(X, y, regression=True)
        self._warn(privacy_rules.one_blas_thread(self._fit)(X, y))
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray) -> list[str]:
        mech = self._mechanism()
        k = self._kernel()
        scale, unverified = self._calibrate(mech, kappa=k.kappa, lam=self.lam, m=len(y), eps=self.eps,
                                            M=self.M)
        res = self._solve(kls_fit, self._gram(k, X, X), y, self.lam)
        self._release(mech, k, X, res.alpha, scale, float(self.M) if mech.clip else None,
                      certificate_=res.certificate)
        return unverified

    def predict(self, X) -> np.ndarray:
        """The released function f_z + b (or π(f_z) + b) at X, shape (n_samples,)."""
        return self._released(X)


class DPKernelSVM(BinaryClassifierMixin, ClassifierMixin, _DPBase):
    """Output-perturbed offset-free kernel SVM; predicts sgn(f_z + b) (binary).

    The two labels (any hashable values, ``classes_`` sorted) are mapped to −1 and +1;
    ``predict`` returns ``classes_[1]`` where f_z + b ≥ 0.

    Parameters
    ----------
    mechanism : Mechanism or str
        A mechanism whose statement's premises the offset-free SVM satisfies (the hinge loss, e.g.
        ``simulations.trials.jia.S5_2``).
    lam, eps, kernel, calibration, random_state, allow_unverified
        As in :class:`DPKernelLeastSquares`.

    Attributes
    ----------
    classes_, alpha_, X_fit_, noise_scale_, noise_, certificate_, kernel_, n_features_in_

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from simulations.estimators import DPKernelSVM
    >>> from simulations.trials.jia import S5_2
    >>> X = np.linspace(-1, 1, 40)[:, None]; y = np.where(X[:, 0] > 0, "pos", "neg")
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     clf = DPKernelSVM(mechanism=S5_2, lam=0.01, eps=1e6, random_state=0, allow_unverified=True).fit(X, y)
    >>> clf.classes_.tolist(), clf.predict([[-0.9], [0.9]]).tolist()
    (['neg', 'pos'], ['neg', 'pos'])
    >>> DPKernelSVM(mechanism=S5_2, allow_unverified=True).fit(X, np.arange(40) % 3)
    Traceback (most recent call last):
    ...
    ValueError: DPKernelSVM: Only binary classification is supported. The type of the target is multiclass \
(3 classes); the offset-free SVM maps two labels to ±1.
    """

    algorithm: ClassVar[str] = "svm"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {**_DPBase._parameter_constraints, "lam": [_POSITIVE]}

    _TASK: ClassVar[str] = "classifier"

    def __init__(self, mechanism=None, lam=0.1, eps=0.5, kernel="gaussian", calibration="derived",
                 random_state=None, allow_unverified=False):
        self.mechanism = mechanism
        self.lam = lam
        self.eps = eps
        self.kernel = kernel
        self.calibration = calibration
        self.random_state = random_state
        self.allow_unverified = allow_unverified

    def premises(self, **problem: float) -> dict[str, Any]:
        """What this fit establishes: the hinge loss (1-Lipschitz), the exact regularised minimiser without
        offset, labels ±1 and the RKHS-norm bound 1/√λ (λ‖f_z‖²_K ≤ J(f_z) ≤ J(0) = 1).

        Examples
        --------
        >>> from simulations.estimators import DPKernelSVM
        >>> p = DPKernelSVM().premises(kappa=1.0, lam=0.25)
        >>> p["loss"], p["lipschitz"], p["rkhs_norm"]
        ('hinge', 1.0, 2.0)
        """
        return {"loss": "hinge", "algorithm": ERM, "labels": "y in {-1, +1}", "lipschitz": 1.0,
                "rkhs_norm": 1 / math.sqrt(float(problem["lam"]))}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> DPKernelSVM:
        """Fit the offset-free SVM on (X, y) (two classes) and draw the release's noise.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
        y : array-like, shape (n_samples,)
            Two distinct labels.

        Returns
        -------
        self
        """
        X, y = self._check_data(X, y, regression=False)
        try:
            with np.errstate(invalid="ignore", over="ignore"):      # huge float labels cast to int inside
                check_classification_targets(y)
                y_type = type_of_target(y, input_name="y", raise_unknown=True)
            classes = np.unique(y)
        except ValueError as err:
            raise self._fail(f"parameter 'y': {err}") from err
        except TypeError as err:       # labels of several types (e.g. str and None) cannot be sorted
            kinds = sorted({type(v).__name__ for v in np.asarray(y, dtype=object).ravel()})
            raise TypeError(f"{type(self).__name__}: parameter 'y' mixes label types {kinds}; the labels must be "
                            f"all strings or all numbers ({err})") from err
        if len(classes) < 2:
            raise self._fail(f"parameter 'y' has only one class ({classes.tolist()[0]!r}): a classifier needs two "
                             "classes")
        if y_type != "binary":
            raise self._fail(f"Only binary classification is supported. The type of the target is {y_type} "
                             f"({len(classes)} classes); the offset-free SVM maps two labels to ±1.")
        ys = np.where(y == classes[1], 1.0, -1.0)
        self._warn(privacy_rules.one_blas_thread(self._fit)(X, ys, classes))
        return self

    def _fit(self, X: np.ndarray, ys: np.ndarray, classes: np.ndarray) -> list[str]:
        mech = self._mechanism()
        k = self._kernel()
        scale, unverified = self._calibrate(mech, kappa=k.kappa, lam=self.lam, m=len(ys), eps=self.eps)
        res = self._solve(svm_fit, self._gram(k, X, X), ys, self.lam)
        self._release(mech, k, X, res.alpha, scale, None, classes_=classes, certificate_=res.certificate)
        return unverified

    def decision_function(self, X) -> np.ndarray:
        """The released function f_z + b at X (before the sign), shape (n_samples,)."""
        return self._released(X)

    def predict(self, X) -> np.ndarray:
        """``classes_[1]`` where f_z + b ≥ 0, else ``classes_[0]``."""
        d = self.decision_function(X)
        return np.where(d >= 0, self.classes_[1], self.classes_[0])


class DPOnlineKernelRegression(RegressorMixin, _DPBase):
    """Online kernel regression released with one Laplace scalar after T = m steps.

    Parameters
    ----------
    mechanism : Mechanism or str
        A mechanism of online kernel regression (``algorithm = "online_kls"``: Theorem 1's,
        ``simulations.trials.jcc.THM1``).
    theta : float
        Step exponent, 1/2 < θ < 1.
    t0 : float or None
        Offset; default the smallest admissible, t₀ = (κ² + 1)^{1/θ}.
    eps, kernel, M, calibration, random_state, allow_unverified
        As in :class:`DPKernelLeastSquares`.

    Attributes
    ----------
    alpha_, X_fit_, t0_, noise_scale_, noise_, kernel_, clip_, n_features_in_

    Examples
    --------
    >>> import warnings
    >>> import numpy as np
    >>> from simulations.estimators import DPOnlineKernelRegression
    >>> from simulations.trials.jcc import THM1
    >>> X = np.linspace(-1, 1, 40)[:, None]; y = 0.5 * X[:, 0]
    >>> DPOnlineKernelRegression(mechanism=THM1, random_state=0).fit(X, y)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bounds.pick.UnverifiedError: DPOnlineKernelRegression: ... jcc.thm1.density ...: no form of it is established ...
    >>> with warnings.catch_warnings():        # Theorem 1's privacy claim is refuted: only when asked for
    ...     warnings.simplefilter("ignore")
    ...     est = DPOnlineKernelRegression(mechanism=THM1, random_state=0, allow_unverified=True).fit(X, y)
    >>> est.predict(X[:2]).shape, round(est.t0_ ** 0.75, 9)
    ((2,), 2.0)
    >>> DPOnlineKernelRegression(mechanism=THM1, theta=1.5).fit(X, y)
    Traceback (most recent call last):
    ...
    sklearn.utils._param_validation.InvalidParameterError: The 'theta' parameter of DPOnlineKernelRegression \
must be a float in the range (0.5, 1.0). Got 1.5 instead. Assumption: the step exponent of Theorem 1 \
satisfies 1/2 < θ < 1. Statement: jcc.thm1.C_t (mechanism jcc.thm1).
    """

    algorithm: ClassVar[str] = "online_kls"
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        **_DPBase._parameter_constraints, "M": [_POSITIVE],
        "theta": [Interval(Real, 0.5, 1, closed="neither")], "t0": [_POSITIVE, None]}

    _GRAMS: ClassVar[int] = 1

    def __init__(self, mechanism=None, theta=0.75, t0=None, eps=0.5, kernel="gaussian", M=1.0,
                 calibration="derived", random_state=None, allow_unverified=False):
        self.mechanism = mechanism
        self.theta = theta
        self.t0 = t0
        self.eps = eps
        self.kernel = kernel
        self.M = M
        self.calibration = calibration
        self.random_state = random_state
        self.allow_unverified = allow_unverified

    def premises(self, **problem: float) -> dict[str, Any]:
        """What this fit establishes: recursion (3) of Theorem 1 on the square loss, one pass, |y| ≤ M.

        Examples
        --------
        >>> from simulations.estimators import DPOnlineKernelRegression
        >>> DPOnlineKernelRegression().premises()["algorithm"]
        'online kernel regression (recursion (3), one pass)'
        """
        return {"loss": "square", "algorithm": ONLINE, "labels": "|y| <= M"}

    @_fit_context(prefer_skip_nested_validation=True)
    def fit(self, X, y) -> DPOnlineKernelRegression:
        """Run the online recursion over (X, y) in order and draw the release's noise.

        Parameters
        ----------
        X : array-like, shape (n_samples, n_features)
            The stream's inputs, in order.
        y : array-like, shape (n_samples,)
            Targets with |y| ≤ M.

        Returns
        -------
        self
        """
        X, y = self._check_data(X, y, regression=True)
        self._warn(privacy_rules.one_blas_thread(self._fit)(X, y))
        return self

    def _fit(self, X: np.ndarray, y: np.ndarray) -> list[str]:
        mech = self._mechanism()
        k = self._kernel()
        t0 = (k.kappa**2 + 1) ** (1 / self.theta) * (1 + 1e-12) if self.t0 is None else self.t0
        scale, unverified = self._calibrate(mech, kappa=k.kappa, M=self.M, m=len(y), t0=t0,
                                            theta=self.theta, eps=self.eps)
        a = online_kernel_regression(self._gram(k, X, X), y, self.theta, t0)
        self._release(mech, k, X, a, scale, None, t0_=t0)
        return unverified

    def predict(self, X) -> np.ndarray:
        """The released function f_T + b_T at X, shape (n_samples,)."""
        return self._released(X)

