"""The exact-kernel estimators obey the rules ``bounds calibrate`` obeys, and never crash (issue 31, item 4).

One test per rule of :mod:`simulations.privacy_rules` (established form, premises, sampler law, memory,
BLAS threads, Gram count) and one per case the issue lists: the refused jia SVM mechanism fitted with
one warning per process; ``calibration="stated"`` giving 0.50x / 0.76x the noise although ``bounds
calibrate`` refuses it; the SVM's statement relabelled for least squares (0.12x the noise); a zero-noise
sampler; the m = 20,000 crash (its two causes: BLAS threads and a third Gram-sized array); the bare
``KeyError: 'M'``.  Expected values come from :func:`bounds.pick.basis` / :func:`bounds.calibrate.calibrate`
(the rule applied independently), from the papers' formulas by hand, or from scipy.
"""

from __future__ import annotations

import dataclasses
import math
import tracemalloc
import warnings

import numpy as np
import pytest
from scipy.linalg import cho_factor
from scipy.spatial.distance import cdist

import bounds
from bounds.pick import UnverifiedError, basis
from simulations import privacy_rules
from simulations.estimators import (
    _BLOCK,
    DPKernelLeastSquares,
    DPKernelSVM,
    DPOnlineKernelRegression,
    PrivacyLeakWarning,
    reset_privacy_warnings,
)
from simulations.kernels import GaussianKernel, Kernel
from simulations.mechanisms import Mechanism, get_mechanism, laplace_noise, mechanisms
from simulations.solvers import KLSFactor

# ε ≥ 1 is never used; the toolkit's ε-advice warning is not what these tests are about
pytestmark = pytest.mark.filterwarnings("ignore::bounds.core.PrivacyWarning")

MECHS = mechanisms()
ESTIMATORS = (DPKernelLeastSquares, DPKernelSVM, DPOnlineKernelRegression)


def _data(cls, m: int = 40, seed: int = 5) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    X = rng.uniform(-0.5, 0.5, (m, 2))
    y = np.clip(np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=m), -1, 1)
    return X, (np.where(y > 0, 1.0, -1.0) if cls is DPKernelSVM else y)


def _own(cls) -> list[Mechanism]:
    return [m for m in MECHS.values() if m.applies_to(cls.algorithm)]


def _fit_quiet(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return est.fit(X, y)


def _leaks(caught) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, PrivacyLeakWarning)]


# -- rule 1: a form no verdict establishes is refused (the rule of bounds calibrate) --------------------


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
@pytest.mark.parametrize("calibration", ["derived", "stated"])
def test_rule_established_form_is_the_rule_of_basis(cls, calibration) -> None:
    """Refused at fit exactly when bounds.pick.basis refuses the form; then allow_unverified fits, warning."""
    X, y = _data(cls)
    for mech in _own(cls):
        refused = False
        for st in mech.statements:          # the calibration and every privacy claim the mechanism rests on
            try:
                basis(st, "stated" if calibration == "stated" and st is mech.statement else None)
            except UnverifiedError:
                refused = True
        est = cls(mechanism=mech, calibration=calibration, random_state=0)
        if not refused:
            _fit_quiet(est, X, y)
            assert est.noise_scale_ > 0
            continue
        with pytest.raises(UnverifiedError) as err:
            est.fit(X, y)
        msg = str(err.value)
        alt = "DPRandomFeatureClassifier" if cls is DPKernelSVM else "DPRandomFeatureRegressor"
        assert msg.startswith(f"{cls.__name__}: ") and f"random_features.{alt}" in msg
        assert any(st.key in msg for st in mech.statements)
        assert not hasattr(est, "noise_scale_")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est.set_params(allow_unverified=True).fit(X, y)
        assert any(f"unverified: no form of {st.key} is established" in t for t in _leaks(caught)
                   for st in mech.statements)


def test_case_the_refused_svm_mechanism_warns_at_every_fit() -> None:
    """DPKernelSVM(mechanism="jia.s5_2") fitted with one PrivacyLeakWarning per process: now refused, and
    with allow_unverified=True one unverified warning per fit (three fits, three warnings)."""
    X, y = _data(DPKernelSVM)
    with pytest.raises(UnverifiedError, match=r"jia\.s5_2\.scale .*no form of it is established.*"
                                              r"simulations\.random_features\.DPRandomFeatureClassifier"):
        DPKernelSVM(mechanism="jia.s5_2").fit(X, y)
    reset_privacy_warnings()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for seed in range(3):
            DPKernelSVM(mechanism="jia.s5_2", random_state=seed, allow_unverified=True).fit(X, y)
    unverified = [t for t in _leaks(caught) if "unverified" in t]
    assert len(unverified) == 3 and all("jia.s5_2.scale" in t for t in unverified)
    assert sum("not ε-DP" in t for t in _leaks(caught)) == 1        # the function leak: once per class


@pytest.mark.parametrize("cls, name, ratio", [(DPKernelSVM, "jia.s5_2", 0.5),
                                              (DPKernelLeastSquares, "jia.s5_1", 2 / (2 * (1 + math.sqrt(0.1))))])
def test_case_stated_calibration_refused_as_bounds_calibrate_refuses_it(cls, name, ratio) -> None:
    """calibration="stated" gave 0.50x (SVM) and 0.76x (least squares) the noise; `bounds calibrate` refuses
    both forms, and so does fit now.  The ratios are the papers' (stated/derived: 1/2 for the SVM, (κ+1)/
    (2(κ+√λ)) at κ = 1, λ = 0.1 for least squares), seen only with allow_unverified=True."""
    from bounds.calibrate import calibrate

    X, y = _data(cls, m=100)
    mech = get_mechanism(name)
    problem = dict(kappa=1.0, lam=0.1, m=100, eps=0.5, **({"M": 1.0} if cls is DPKernelLeastSquares else {}))
    with pytest.raises(UnverifiedError):
        calibrate(mech.statement.key, **problem)                   # the command line's rule
    for calibration in ("stated", "derived"):
        with pytest.raises(UnverifiedError, match=f"{calibration} calibration"):
            cls(mechanism=name, lam=0.1, eps=0.5, calibration=calibration).fit(X, y)
    kw = dict(mechanism=name, lam=0.1, eps=0.5, random_state=0, allow_unverified=True)
    stated = _fit_quiet(cls(calibration="stated", **kw), X, y).noise_scale_
    derived = _fit_quiet(cls(**kw), X, y).noise_scale_
    assert stated / derived == pytest.approx(ratio, rel=1e-12)


# -- rule 2: a mechanism applies by its statement's premises, never by its name --------------------------


def test_case_svm_statement_relabelled_for_least_squares_is_refused() -> None:
    """Mechanism("jia.user", S5_2_SCALE, algorithms=("kls",)) fitted least squares with 0.12x the noise."""
    from bounds.papers.jia import S5_2_SCALE

    X, y = _data(DPKernelLeastSquares)
    user = Mechanism("jia.user", S5_2_SCALE, algorithms=("kls",))
    for allow in (False, True):            # a known mismatch is refused whatever allow_unverified says
        with pytest.raises(ValueError) as err:
            DPKernelLeastSquares(mechanism=user, lam=0.1, allow_unverified=allow).fit(X, y)
        msg = str(err.value)
        assert "DPKernelLeastSquares" in msg and "'jia.user'" in msg and "jia.s5_2.scale" in msg
        assert "loss: the statement assumes 'hinge', DPKernelLeastSquares has 'square'" in msg
        # the Lipschitz constant: 1 assumed, 2M(κ/√λ + 1) = 8.32456 at M = κ = 1, λ = 0.1
        assert f"{2 * (1 / math.sqrt(0.1) + 1):.6g}" in msg
        assert "jia.s5_1" in msg and "jamp.prop1" in msg          # the declared ones it satisfies


def test_rule_premises_not_the_name_decide() -> None:
    """The least-squares statement under another algorithm's name is accepted, with S5_1's own noise."""
    from bounds.papers.jia import S5_1_SCALE

    X, y = _data(DPKernelLeastSquares)
    renamed = Mechanism("jia.renamed", S5_1_SCALE, algorithms=("svm",))
    kw = dict(lam=0.1, eps=0.5, random_state=3, allow_unverified=True)
    a = _fit_quiet(DPKernelLeastSquares(mechanism=renamed, **kw), X, y)
    b = _fit_quiet(DPKernelLeastSquares(mechanism="jia.s5_1", **kw), X, y)
    assert a.noise_scale_ == b.noise_scale_ and a.noise_ == b.noise_


@pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda c: c.__name__)
def test_rule_premises_agree_with_the_declared_algorithms(cls) -> None:
    """Every declared mechanism: its statement's premises hold for an estimator exactly when the mechanism
    declares the estimator's algorithm (two declarations, written apart, that must agree)."""
    problem = dict(kappa=1.0, lam=0.1, m=50, eps=0.5, M=1.0, t0=2.0 ** (1 / 0.75) * 1.01, theta=0.75)
    est = cls()
    for name, mech in MECHS.items():
        try:
            values = {**problem, **mech.statement_values(problem)}
            privacy_rules.check_premises(mech.statement, est.premises(**problem), values, who=cls.__name__)
            ok = True
        except ValueError:
            ok = False
        assert ok == mech.applies_to(cls.algorithm), (name, cls.__name__)


def test_rule_premises_lipschitz_is_the_papers_derived_constant() -> None:
    """The Lipschitz premise of jia.s5_1.scale equals the paper's derived C_L (jia.s5_1.C_L) and the
    estimator's own 2M(κ/√λ + 1); a smaller assumed constant is refused, a larger one accepted."""
    from bounds.papers.jia import S5_1_SCALE

    vals = dict(M=2.0, kappa=1.5, lam=0.3, m=100, eps=0.5)
    c_l = bounds.value("jia.s5_1.C_L", {k: vals[k] for k in ("M", "kappa", "lam")}, which="derived")
    own = DPKernelLeastSquares().premises(**vals)
    assert own["lipschitz"] == pytest.approx(c_l, rel=1e-14)
    assert privacy_rules.check_premises(S5_1_SCALE, own, vals, who="KLS") == ""
    smaller = dataclasses.replace(S5_1_SCALE, premises={**S5_1_SCALE.premises, "lipschitz": "M*kappa"})
    expect = 2 * 2.0 * (1.5 / math.sqrt(0.3) + 1)
    with pytest.raises(ValueError, match=rf"lipschitz .*assumes M\*kappa = 3 here, KLS has {expect:.6g}"):
        privacy_rules.check_premises(smaller, own, vals, who="KLS")
    larger = dataclasses.replace(S5_1_SCALE, premises={**S5_1_SCALE.premises, "lipschitz": "10*M*(kappa + 1)/lam"})
    assert privacy_rules.check_premises(larger, own, vals, who="KLS") == ""


def test_rule_a_statement_without_premises_is_refused_unless_allowed() -> None:
    eb2 = bounds.registry.get("jia.s5_1.Eb2")                 # a statement of the right parameters, no premises
    assert not eb2.premises
    user = Mechanism("jia.eb2", eb2, algorithms=("kls",))
    X, y = _data(DPKernelLeastSquares)
    with pytest.raises(ValueError, match=r"jia\.s5_1\.Eb2 .*declares no premises .*allow_unverified=True"):
        DPKernelLeastSquares(mechanism=user).fit(X, y)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        DPKernelLeastSquares(mechanism=user, random_state=0, allow_unverified=True).fit(X, y)
    assert any("declares no premises" in t and "jia.s5_1.Eb2" in t for t in _leaks(caught))


def test_rule_premises_survive_the_light_copies(tmp_path) -> None:
    """The command line's registry is rebuilt from pickled light papers: the premises are kept."""
    from bounds.snapshot import Store

    store = Store(str(tmp_path))
    jia = bounds.registry.papers["jia"]
    assert store.put_paper(jia)
    light = store.light_registry(["jia"])
    for key in ("jia.s5_1.scale", "jia.s5_2.scale"):
        assert light.get(key).premises == bounds.registry.get(key).premises != {}


# -- rule 3: the sampler draws from the law it declares --------------------------------------------------


def _sampler_mech(name: str, sampler) -> Mechanism:
    return Mechanism(f"jia.{name}", bounds.registry.get("jia.s5_1.scale"), algorithms=("kls",), sampler=sampler)


def test_case_a_zero_noise_sampler_is_refused() -> None:
    """A sampler drawing zero noise was accepted while noise_scale_ reported the scale."""
    def zero(rng, scale, size=None):
        return 0.0 if size is None else np.zeros(size)

    X, y = _data(DPKernelLeastSquares)
    est = DPKernelLeastSquares(mechanism=_sampler_mech("zero", zero), allow_unverified=True)
    with pytest.raises(ValueError, match=r"parameter 'mechanism': mechanism 'jia.zero': the noise sampler does "
                                         r"not draw from the law it declares, Laplace\(0, .*p = 0 < 1e-06"):
        _fit_quiet(est, X, y)
    assert not hasattr(est, "noise_scale_") and not hasattr(est, "alpha_")


@pytest.mark.parametrize("factor, refused", [(0.5, True), (2.0, True), (0.75, True), (1.0, False)])
def test_rule_sampler_law_at_the_wrong_scale(factor, refused) -> None:
    def scaled(rng, scale, size=None):
        return laplace_noise(rng, factor * scale, size)

    X, y = _data(DPKernelLeastSquares)
    est = DPKernelLeastSquares(mechanism=_sampler_mech("scaled", scaled), random_state=0, allow_unverified=True)
    if refused:
        with pytest.raises(ValueError, match="Kolmogorov–Smirnov"):
            _fit_quiet(est, X, y)
    else:
        ref = _fit_quiet(DPKernelLeastSquares(mechanism="jia.s5_1", random_state=0, allow_unverified=True), X, y)
        assert _fit_quiet(est, X, y).noise_ == ref.noise_


def test_rule_sampler_law_is_deterministic_and_matches_scipy() -> None:
    from scipy import stats

    def draw(rng, size):
        return rng.laplace(0.0, 3.0, size)

    p1 = privacy_rules.check_sampler_law(draw, 3.0, who="t")
    p2 = privacy_rules.check_sampler_law(draw, 3.0, who="t")
    rng = np.random.default_rng(np.random.SeedSequence(privacy_rules.LAW_ENTROPY).spawn(1)[0])
    ref = stats.kstest(rng.laplace(0.0, 3.0, privacy_rules.LAW_SAMPLES), stats.laplace(0, 3.0).cdf, method="asymp")
    assert p1 == p2 == ref.pvalue >= privacy_rules.LAW_LEVEL
    calls: list[int] = []

    def counting(rng, size):
        calls.append(size)
        return rng.laplace(0.0, 2.0, size)

    for _ in range(3):          # a pass is remembered by its key (deterministic); a refusal is not
        assert privacy_rules.check_sampler_law(counting, 2.0, who="t", key=counting) >= privacy_rules.LAW_LEVEL
    assert calls == [privacy_rules.LAW_SAMPLES]
    for _ in range(2):
        with pytest.raises(ValueError):
            privacy_rules.check_sampler_law(counting, 1.0, who="t", key=counting)
    assert calls == [privacy_rules.LAW_SAMPLES] * 3
    with pytest.raises(ValueError, match="returned 3 draws"):
        privacy_rules.check_sampler_law(lambda rng, size: np.zeros(3), 1.0, who="t")
    with pytest.raises(ValueError, match="not all finite"):
        privacy_rules.check_sampler_law(lambda rng, size: np.full(size, np.nan), 1.0, who="t")


# -- the exact estimators never crash: memory, BLAS threads, Gram count ----------------------------------


@pytest.mark.parametrize("cls, grams", [(DPKernelLeastSquares, 2), (DPKernelSVM, 2), (DPOnlineKernelRegression, 1)])
def test_rule_memory_is_refused_before_allocating(cls, grams, monkeypatch) -> None:
    m = 400
    X, y = _data(cls, m=m)
    need = grams * m * m * 8
    monkeypatch.setattr(privacy_rules, "_available", lambda: need - 1)
    mech = _own(cls)[0]
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as err:
            _fit_quiet(cls(mechanism=mech, allow_unverified=True), X, y)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    msg = str(err.value)
    assert msg.startswith(f"{cls.__name__}: parameter 'X' has {m} samples") and f"{need / 1e9:.3g} GB" in msg
    assert "random_features.DPRandomFeature" in msg
    assert peak < m * m * 8 / 2, peak                # refused before any Gram-sized array
    monkeypatch.setattr(privacy_rules, "_available", lambda: need)
    _fit_quiet(cls(mechanism=mech, allow_unverified=True, random_state=0), X, y)


class _ThreadProbe(Kernel):
    """A Gaussian kernel that records the BLAS thread count in force when it is evaluated."""

    kappa = 1.0

    def __init__(self) -> None:
        self.seen: list[int] = []

    def __call__(self, X, Y=None):
        from threadpoolctl import threadpool_info

        self.seen.append(max((p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"), default=0))
        return GaussianKernel(1.0)(X, Y)

    def diag(self, X):
        return np.ones(len(X))


def test_rule_one_blas_thread_unless_the_user_chose(monkeypatch) -> None:
    from threadpoolctl import threadpool_info

    blas = [p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"]
    if not blas:
        pytest.skip("no BLAS library visible to threadpoolctl")
    X, y = _data(DPKernelLeastSquares)
    for var in privacy_rules_env():
        monkeypatch.delenv(var, raising=False)
    probe = _ThreadProbe()
    est = _fit_quiet(DPKernelLeastSquares(mechanism="jia.s5_1", kernel=probe, allow_unverified=True), X, y)
    est.predict(X)
    assert probe.seen and set(probe.seen) == {1}                 # fit and predict, on one thread
    default = max(blas)
    if default > 1:         # a count the user chose is left as it is
        monkeypatch.setenv("OPENBLAS_NUM_THREADS", str(default))
        probe = _ThreadProbe()
        _fit_quiet(DPKernelLeastSquares(mechanism="jia.s5_1", kernel=probe, allow_unverified=True), X, y)
        assert set(probe.seen) == {default}


def privacy_rules_env() -> tuple[str, ...]:
    from bounds._lazy import BLAS_THREAD_ENV

    return tuple(BLAS_THREAD_ENV)


def test_rule_at_most_two_gram_sized_arrays_in_fit() -> None:
    """The m = 20,000 crash held three m × m arrays (the Gaussian kernel's temporaries, LAPACK's copy of a
    C-ordered matrix); least squares now holds two (the Gram and its Cholesky factor), the others one or two,
    and predict one block of rows at a time."""
    m = 1200
    gram = m * m * 8
    for cls, most in [(DPKernelLeastSquares, 2.05), (DPKernelSVM, 2.05), (DPOnlineKernelRegression, 1.05)]:
        X, y = _data(cls, m=m)
        lam = {} if cls is DPOnlineKernelRegression else {"lam": 0.05}
        est = cls(mechanism=_own(cls)[0], random_state=0, allow_unverified=True, **lam)
        _fit_quiet(est, X[:20], y[:20])                 # imports and caches outside the measurement
        tracemalloc.start()
        try:
            _fit_quiet(est, X, y)
            fit_peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.reset_peak()
            est.predict(np.repeat(X, 4, axis=0))      # 4m points: evaluated by blocks, not a 4m × m array
            predict_peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert fit_peak <= most * gram, (cls.__name__, fit_peak / gram)
        # one block of at most _BLOCK kernel values (32 MB) at a time, where 4m × m at once would be 46 MB
        assert predict_peak <= 1.1 * 8 * _BLOCK < 4 * gram, (cls.__name__, predict_peak / gram)


def test_the_in_place_gaussian_kernel_and_fortran_factor_are_bit_identical() -> None:
    """Trials are cached by code fingerprint: the memory changes must not change a bit of their numbers."""
    rng = np.random.default_rng(7)
    A, B = rng.normal(size=(300, 3)), 2 * rng.normal(size=(120, 3))
    for sigma in (0.4, 1.0, 3.0):
        for X, Y in ((A, None), (A, B)):
            ref = np.exp(-cdist(X, X if Y is None else Y, metric="sqeuclidean") / (2.0 * sigma**2))
            assert np.array_equal(GaussianKernel(sigma)(X, Y), ref)
    for K in (A @ A.T, GaussianKernel(1.0)(A)):       # X Xᵀ is symmetric only to rounding
        lam, m = 1e-3, len(A)
        C = K.copy()
        C.flat[:: m + 1] += lam * m
        ref = cho_factor(C, lower=True, overwrite_a=True, check_finite=False)[0]
        assert np.array_equal(KLSFactor(K, lam)._cho[0], ref)


# -- the bare KeyError of a missing problem value -------------------------------------------------------


def test_case_missing_parameter_is_a_one_line_value_error() -> None:
    mech = get_mechanism("jcc.thm1")
    with pytest.raises(ValueError) as err:
        mech.scale(kappa=1, lam=0.1, m=100, eps=0.5)
    msg = str(err.value)
    assert not isinstance(err.value, KeyError) and "\n" not in msg
    assert "parameter 'M' is missing" in msg and mech.statement.key in msg and "assumption: 0 < M" in msg
