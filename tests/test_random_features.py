"""The private random-feature learners (simulations.random_features) and the cms.rff.* statements behind them.

Values are computed here independently (dense numpy / scikit-learn solves, high-precision mpmath solves,
the calibration typed by hand from the formulas), and the properties the theory implies are checked on
random and constructed neighbouring pairs.
"""

from __future__ import annotations

import math
import warnings
from collections import Counter

import mpmath
import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import Ridge
from sklearn.utils.estimator_checks import (
    check_classifiers_train,
    check_estimator,
    check_regressors_train,
)

import bounds
from bounds.papers import cms as P
from simulations.random_features import (
    EXPECTED_FAILED_CHECKS,
    FEATURE_SLACK,
    DPRandomFeatureClassifier,
    DPRandomFeatureRegressor,
    RandomFourierFeatures,
    expected_failed_checks,
    glm_streamed,
    ridge_streamed,
    sample_norm_noise,
)
from simulations.solvers import CertificateError
from simulations.trials import cms as T

pytestmark = pytest.mark.filterwarnings("ignore::bounds.core.PrivacyWarning")


def _problem(n: int, d: int, seed: int, task: str = "classification") -> tuple[np.ndarray, np.ndarray]:
    return T.rff_problem(n, d, np.random.default_rng(seed), task)


# -- the feature map ---------------------------------------------------------------------------------


def test_feature_norm_is_one_up_to_the_stated_slack_and_never_above() -> None:
    assert FEATURE_SLACK == P.FEATURE_SLACK
    rng = np.random.default_rng(0)
    for d, D, scale in ((1, 2, 1.0), (5, 300, 10.0), (3, 1000, 1e8)):
        fm = RandomFourierFeatures(d, D, 0.7, rng)
        X = rng.normal(size=(500, d)) * scale
        nrm = np.linalg.norm(fm.transform(X), axis=1)
        assert np.all(nrm <= 1.0) and np.all(nrm >= 1.0 - 3e-5)
    assert bounds.evaluate(P.RFF_FEATURE_NORM).status == "consistent"
    assert bounds.value(P.RFF_FEATURE_NORM, D=10) == 1.0


def test_features_approximate_the_gaussian_kernel() -> None:
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 3)) * 0.5
    fm = RandomFourierFeatures(3, 20_000, 0.8, rng)
    Z = fm.transform(X)
    K = np.exp(-0.8 * ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1))
    # Hoeffding (cms.rff.pointwise): P(|error| ≥ 0.05) ≤ 2 exp(−20000·0.0025/4) ≈ 7e-6 per pair
    assert np.max(np.abs(Z @ Z.T - K)) < 0.05


def test_odd_n_components_keeps_the_norm_premise() -> None:
    rng = np.random.default_rng(0)
    for D in (1, 5):
        Z = RandomFourierFeatures(2, D, 1.0, rng).transform(rng.normal(size=(200, 2)))
        assert Z.shape == (200, D) and np.all(np.linalg.norm(Z, axis=1) <= 1.0)


# -- the streamed solvers against dense references --------------------------------------------------


@pytest.mark.parametrize("chunk", [None, 7])
def test_streamed_ridge_equals_sklearn_ridge(chunk) -> None:
    X, y = _problem(600, 4, 2, "regression")
    lam = 0.003
    fm = RandomFourierFeatures(4, 50, 1.0, np.random.default_rng(3))
    fit = ridge_streamed(fm, X, y, lam, 1e-6, 1.0, chunk_size=chunk)
    ref = Ridge(alpha=len(y) * lam, fit_intercept=False, solver="cholesky").fit(fm.transform(X), y).coef_
    assert np.linalg.norm(fit.w - ref) <= 1e-10 * max(1.0, np.linalg.norm(ref))


def _mp_ridge(Z: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    mpmath.mp.dps = 40
    n, D = Z.shape
    Zm, ym = mpmath.matrix(Z.tolist()), mpmath.matrix(y.tolist())
    H = Zm.T * Zm / n + lam * mpmath.eye(D)
    return np.array([float(v) for v in mpmath.lu_solve(H, Zm.T * ym / n)])


def test_ridge_certificate_bounds_the_distance_to_a_high_precision_solve() -> None:
    X, y = _problem(120, 2, 4, "regression")
    fm = RandomFourierFeatures(2, 8, 2.0, np.random.default_rng(5))
    for lam in (1e-1, 1e-4):
        fit = ridge_streamed(fm, X, y, lam, 1.0, 1.0)
        exact = _mp_ridge(fm.transform(X), y, lam)
        assert np.linalg.norm(fit.w - exact) <= fit.dist_bound
        assert fit.dist_bound < 1e-8 / lam


@pytest.mark.parametrize("loss", ["logistic", "huber"])
def test_glm_certificate_bounds_the_true_distance(loss) -> None:
    X, y = _problem(300, 3, 6)
    fm = RandomFourierFeatures(3, 24, 1.0, np.random.default_rng(7))
    lam = 0.01
    ref = glm_streamed(fm, X, y, lam, 1e-10, loss)            # converged far beyond the loose fits below
    for tau in (1e-1, 1e-3):
        fit = glm_streamed(fm, X, y, lam, tau, loss)
        true = np.linalg.norm(fit.w - ref.w) + ref.dist_bound    # ≥ ‖w − w*‖
        assert fit.dist_bound <= tau
        assert np.linalg.norm(fit.w - ref.w) - ref.dist_bound <= fit.dist_bound, (true, fit.dist_bound)


def test_glm_logistic_equals_sklearn_logistic_regression() -> None:
    from sklearn.linear_model import LogisticRegression

    X, y = _problem(400, 2, 8)
    lam = 0.02
    fm = RandomFourierFeatures(2, 20, 1.0, np.random.default_rng(9))
    fit = glm_streamed(fm, X, y, lam, 1e-10)
    sk = LogisticRegression(C=1 / (len(y) * lam), fit_intercept=False, tol=1e-14, max_iter=10_000)
    sk.fit(fm.transform(X), y)
    assert np.linalg.norm(fit.w - sk.coef_[0]) < 1e-6


def test_uncertifiable_tolerance_raises() -> None:
    X, y = _problem(50, 2, 10)
    fm = RandomFourierFeatures(2, 8, 1.0, np.random.default_rng(0))
    with pytest.raises(CertificateError):
        glm_streamed(fm, X, y, 0.1, 1e-30)


# -- sensitivity: never exceeded on random pairs, attained on a constructed one ----------------------


@pytest.mark.parametrize("task,loss,lam", [("classification", "logistic", 0.05), ("classification", "huber", 0.05),
                                           ("regression", "squared", 0.05)])
def test_sensitivity_bound_holds_on_random_neighbours(task, loss, lam) -> None:
    rng = np.random.default_rng(11)
    n = 40
    L = 1.0 if task == "classification" else 1.0 * (1 + 1 / math.sqrt(lam))     # M = R = 1, typed by hand
    bound = 2 * L / (n * lam)
    worst = 0.0
    for _ in range(25):
        X, y = T.rff_problem(n, 2, rng, task)
        fm = RandomFourierFeatures(2, 12, 1.0, rng)
        X1, y1 = X.copy(), y.copy()
        X1[0] = rng.normal(size=2)
        y1[0] = -y[0] if task == "classification" else -np.sign(y[0])
        if task == "classification":
            a, b = glm_streamed(fm, X, y, lam, 1e-10, loss), glm_streamed(fm, X1, y1, lam, 1e-10, loss)
        else:
            a, b = ridge_streamed(fm, X, y, lam, 1e-10, 1.0), ridge_streamed(fm, X1, y1, lam, 1e-10, 1.0)
        worst = max(worst, (np.linalg.norm(a.w - b.w) - a.dist_bound - b.dist_bound) / bound)
    assert 0.01 < worst <= 1.0


def test_sensitivity_is_attained_by_a_label_flip_on_the_huber_linear_piece() -> None:
    # Λ = 4 > 1/(1 − h): every margin |wᵀz| ≤ ‖w‖ ≤ 1/Λ stays below 1 − h = 0.5, where ℓ' = −1 and ℓ'' = 0, so
    # w* = (1/(nΛ))Σ y_i z_i exactly and flipping one label moves it by 2‖z‖/(nΛ) = (2/(nΛ))·‖z‖ with 1 − 3e-5 ≤ ‖z‖ ≤ 1
    X, y = _problem(25, 2, 12)
    fm = RandomFourierFeatures(2, 10, 1.0, np.random.default_rng(13))
    y1 = y.copy()
    y1[3] = -y[3]
    a = glm_streamed(fm, X, y, 4.0, 1e-13, "huber", 0.5)
    b = glm_streamed(fm, X, y1, 4.0, 1e-13, "huber", 0.5)
    bound = 2 / (25 * 4.0)
    assert np.linalg.norm(a.w - b.w) == pytest.approx(bound, rel=3e-5)
    assert np.linalg.norm(a.w - b.w) <= bound


# -- noise law, calibration, determinism --------------------------------------------------------------


def test_noise_norm_is_gamma_and_direction_uniform() -> None:
    b = sample_norm_noise(np.random.default_rng(14), 0.3, (20_000, 6))
    nrm = np.linalg.norm(b, axis=1)
    assert stats.kstest(nrm, stats.gamma(a=6, scale=0.3).cdf).pvalue > 1e-3
    u = b[:, 0] / nrm            # one coordinate of a uniform direction on S^5: (u + 1)/2 ~ Beta(5/2, 5/2)
    assert stats.kstest((u + 1) / 2, stats.beta(2.5, 2.5).cdf).pvalue > 1e-3
    # the wrong law (Gamma(D − 1)) is rejected: the test can fail
    assert stats.kstest(nrm, stats.gamma(a=5, scale=0.3).cdf).pvalue < 1e-6


def test_output_calibration_by_hand() -> None:
    n, lam, eps, tol = 1000, 0.01, 0.5, 1e-3
    cal = T.rff_output_calibration(n=n, lam=lam, eps=eps, tol=tol, loss="logistic")
    sens = 2 / (n * lam)                              # L = R = 1
    assert cal["sensitivity"] == pytest.approx(sens * (1 + 2 * tol), rel=1e-12)
    assert cal["rate"] == pytest.approx(eps / (sens * (1 + 2 * tol)), rel=1e-12)
    M = 2.0
    reg = T.rff_output_calibration(n=n, lam=lam, eps=eps, tol=tol, loss="squared", M=M)
    L = M * (1 + 1 / math.sqrt(lam))                  # 22
    assert reg["sensitivity"] == pytest.approx(2 * L / (n * lam) * (1 + 2 * tol), rel=1e-12)


def test_objective_calibration_spends_epsilon() -> None:
    for lam in (0.1, 1e-4):                           # first and second branch of Algorithm 2
        cal = T.rff_objective_calibration(n=500, lam=lam, eps=1.0, tol=1e-3, loss="logistic")
        assert cal["eps_spent"] == pytest.approx(1.0, rel=1e-12)
        assert cal["residual_rate"] == pytest.approx(0.01 / (2 * cal["tau"]), rel=1e-12)
    assert T.rff_objective_calibration(n=500, lam=1e-4, eps=1.0, tol=1e-3, loss="logistic")["regime"] == 2


@pytest.mark.parametrize("cls", [DPRandomFeatureClassifier, DPRandomFeatureRegressor])
def test_same_seed_same_model_and_noise_of_the_stated_scale(cls) -> None:
    X, y = _problem(300, 3, 15, "classification" if cls is DPRandomFeatureClassifier else "regression")
    a = cls(epsilon=0.5, lam=0.05, n_components=16, random_state=3).fit(X, y)
    b = cls(epsilon=0.5, lam=0.05, n_components=16, random_state=3).fit(X, y)
    c = cls(epsilon=0.5, lam=0.05, n_components=16, random_state=4).fit(X, y)
    assert np.array_equal(a.coef_, b.coef_) and not np.array_equal(a.coef_, c.coef_)
    assert a.noise_scale_ == pytest.approx(a.sensitivity_ / 0.5, rel=1e-12)
    assert a.dist_bound_ <= a.tau_ and a.certificate_.ok and a.eps_ == pytest.approx(0.5, rel=1e-12)


def test_released_noise_law_end_to_end() -> None:
    # the estimator's release minus the certified minimiser has norm ~ Γ(D, 1/β): refit the same frequencies
    X, y = _problem(100, 2, 16)
    norms = []
    for s in range(150):
        est = DPRandomFeatureClassifier(epsilon=1.0, lam=0.1, n_components=4, random_state=s).fit(X, y)
        w = glm_streamed(est.feature_map_, X, np.where(y == est.classes_[1], 1.0, -1.0), 0.1, 1e-11).w
        norms.append(np.linalg.norm(est.coef_ - w))
    assert stats.kstest(norms, stats.gamma(a=4, scale=est.noise_scale_).cdf).pvalue > 1e-3


# -- audit: passes, and a mis-calibrated variant is detected -----------------------------------------


def test_audit_passes_and_detects_half_the_sensitivity() -> None:
    from verify.audit import audit, audit_seed
    from verify.empirical import cms as V

    cfg = V.RFF_AUDIT_PAIRS[0]
    row = T.rff_sensitivity_trial(cfg, np.random.default_rng(np.random.SeedSequence(17)))
    pair = row["pair"]
    assert row["ratio"] > 0.99                           # the Huber label flip attains the bound
    out = {}
    for factor in (1.0, 0.5):
        r0, info = V.rff_releases(pair, 1.0, False, factor)
        r1, _ = V.rff_releases(pair, 1.0, True, factor)
        out[factor] = audit(r0, r1, n=20_000, seed=audit_seed(0, "test-rff", factor), claim_eps=1.0)
    assert out[1.0].eps_lower <= 1.0 and out[1.0].verdict == "consistent"
    assert out[0.5].eps_lower > 1.0 and out[0.5].verdict == "violated"


# -- scikit-learn conformance and bad input ----------------------------------------------------------


def _instances() -> list:
    return [DPRandomFeatureClassifier(n_components=16), DPRandomFeatureClassifier(n_components=16, loss="huber",
                                                                                 mechanism="objective"),
            DPRandomFeatureRegressor(n_components=16, M=1000.0)]


@pytest.mark.parametrize("est", _instances(), ids=lambda e: f"{type(e).__name__}-{e.mechanism}")
def test_check_estimator_passes_but_the_declared_failures(est) -> None:
    table = expected_failed_checks(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results = check_estimator(est, expected_failed_checks=table, on_fail=None, on_skip=None)
    failed = [f"{r['check_name']}: {r['exception']}" for r in results if r["status"] == "failed"]
    assert not failed, "\n".join(failed)
    xfail = {r["check_name"] for r in results if r["status"] == "xfail"}
    assert xfail == set(table)
    assert Counter(r["status"] for r in results)["passed"] >= 40


def test_the_declared_failures_are_the_noise_only() -> None:
    assert set(EXPECTED_FAILED_CHECKS) == {"DPRandomFeatureClassifier", "DPRandomFeatureRegressor"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_classifiers_train("clf", DPRandomFeatureClassifier(n_components=64, epsilon=1e12))
        check_regressors_train("reg", DPRandomFeatureRegressor(n_components=256, epsilon=1e12, lam=1e-6, gamma=0.05,
                                                               M=1000.0))
        with pytest.raises(AssertionError):
            check_regressors_train("reg", DPRandomFeatureRegressor(n_components=256, lam=1e-6, gamma=0.05, M=1000.0))
        with pytest.raises(AssertionError):
            check_classifiers_train("clf", DPRandomFeatureClassifier(n_components=64))


@pytest.mark.parametrize("cls,kw,param", [
    (DPRandomFeatureClassifier, {"epsilon": 0}, "epsilon"),
    (DPRandomFeatureClassifier, {"lam": -1.0}, "lam"),
    (DPRandomFeatureClassifier, {"n_components": 0}, "n_components"),
    (DPRandomFeatureClassifier, {"loss": "hinge"}, "loss"),
    (DPRandomFeatureClassifier, {"mechanism": "exact"}, "mechanism"),
    (DPRandomFeatureClassifier, {"tol": 0.0}, "tol"),
    (DPRandomFeatureRegressor, {"M": 0.0}, "M"),
    (DPRandomFeatureRegressor, {"mechanism": "objective"}, "mechanism"),
    (DPRandomFeatureRegressor, {"gamma": float("inf")}, "gamma"),
])
def test_bad_input_names_the_parameter(cls, kw, param) -> None:
    X, y = _problem(40, 2, 18)
    with pytest.raises(ValueError, match=f"'{param}'"):
        cls(**kw).fit(X, y)


def test_multiclass_and_single_class_are_refused() -> None:
    X, _ = _problem(30, 2, 19)
    with pytest.raises(ValueError, match="parameter .y.: Only binary"):
        DPRandomFeatureClassifier().fit(X, np.arange(30) % 3)
    with pytest.raises(ValueError, match="parameter 'y' has only one class"):
        DPRandomFeatureClassifier().fit(X, np.ones(30))


def test_regression_targets_are_clipped_not_refused() -> None:
    X, y = _problem(100, 2, 20, "regression")
    a = DPRandomFeatureRegressor(M=0.5, random_state=0, n_components=8).fit(X, y * 10)
    b = DPRandomFeatureRegressor(M=0.5, random_state=0, n_components=8).fit(X, np.clip(y * 10, -0.5, 0.5))
    assert np.array_equal(a.coef_, b.coef_) and np.all(np.abs(a.predict(X)) <= 0.5)


def test_premises_are_established_by_the_estimators() -> None:
    from simulations.privacy_rules import check_premises
    from simulations.random_features import RFF_ALGORITHM, RFF_OBJECTIVE

    assert P.RFF_BETA.premises["algorithm"] == RFF_ALGORITHM == P.RFF_ALGORITHM
    assert P.RFF_AMP_RATE.premises["objective"] == RFF_OBJECTIVE
    ok = {"algorithm": RFF_ALGORITHM, "lipschitz": 1.0, "objective": RFF_OBJECTIVE}
    assert check_premises(P.RFF_AMP_RATE, ok, {}, who="X") == ""
    # the squared loss's L = M(1 + 1/√Λ) > 1: objective perturbation's calibration (|ℓ'| ≤ 1) is refused for it
    with pytest.raises(ValueError, match="lipschitz"):
        check_premises(P.RFF_AMP_RATE, {**ok, "lipschitz": 11.0}, {}, who="X")


def test_objective_perturbation_audit_passes() -> None:
    from verify.audit import audit, audit_seed
    from verify.empirical import cms as V

    row = T.rff_sensitivity_trial(V.RFF_AUDIT_PAIRS[1], np.random.default_rng(np.random.SeedSequence(21)))
    r0, info = V.rff_objective_releases(row["pair"], 1.0, False)
    r1, _ = V.rff_objective_releases(row["pair"], 1.0, True)
    res = audit(r0, r1, n=4000, seed=audit_seed(0, "test-rff-objective"), claim_eps=1.0)
    assert res.eps_lower <= 1.0 and info["eps_spent"] == pytest.approx(1.0, rel=1e-12)


def test_data_norm_clips_inputs_into_the_ball() -> None:
    rng = np.random.default_rng(22)
    fm = RandomFourierFeatures(3, 10, 1.0, rng, data_norm=2.0)
    x = np.array([[3.0, 4.0, 0.0]])                          # norm 5 → clipped to norm 2
    ref = RandomFourierFeatures(3, 10, 1.0, np.random.default_rng(22)).transform(x * 2.0 / 5.0)
    assert np.allclose(fm.transform(x), ref, atol=1e-15)
    inside = np.array([[0.3, 0.4, 0.0]])
    assert np.allclose(fm.transform(inside), RandomFourierFeatures(3, 10, 1.0, np.random.default_rng(22)).transform(inside))
