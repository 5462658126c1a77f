"""scikit-learn estimators of the private algorithms: calibration by hand, limits, conventions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.kernel_ridge import KernelRidge
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from simulations.estimators import DPKernelLeastSquares, DPKernelSVM, DPOnlineKernelRegression
from simulations.kernels import GaussianKernel

# ε ≥ 1 is used on purpose below (the non-private limit); the toolkit warns about it
pytestmark = pytest.mark.filterwarnings("ignore::bounds.core.PrivacyWarning")


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(np.random.SeedSequence(11))
    X = rng.uniform(-0.5, 0.5, (150, 2))
    y = np.clip(np.sin(3 * X[:, 0]) + 0.1 * rng.normal(size=150), -1, 1)
    return X, y


def test_kls_noise_scale_by_hand(data) -> None:
    X, y = data
    lam, eps, m = 0.1, 0.5, len(y)
    est = DPKernelLeastSquares(mechanism="jia.s5_1", lam=lam, eps=eps, random_state=0, allow_unverified=True).fit(X, y)
    # 000 §5.1 derived: Δf/ε with C_L = 2M(κ/√λ + 1), γ = 2, κ = M = 1
    assert est.noise_scale_ == pytest.approx(2 * (1 / math.sqrt(lam) + 1) / (lam * m * eps))
    stated = DPKernelLeastSquares(mechanism="jia.s5_1", lam=lam, eps=eps, calibration="stated", random_state=0,
                                  allow_unverified=True).fit(X, y)
    # the paper's α/2 = Mκ²(κ+1)/(λ^{3/2} m ε)
    assert stated.noise_scale_ == pytest.approx(2 / (lam**1.5 * m * eps))
    jamp = DPKernelLeastSquares(mechanism="jamp.prop1", lam=lam, eps=eps, random_state=0, allow_unverified=True).fit(X, y)
    # 001 Proposition 1 with R = M/√λ: 2Rκ²(κ+1)/(λmε)
    assert jamp.noise_scale_ == pytest.approx(2 * (1 / math.sqrt(lam)) * 2 / (lam * m * eps))


def test_large_eps_recovers_kernel_ridge(data) -> None:
    X, y = data
    lam = 0.05
    est = DPKernelLeastSquares(mechanism="jia.s5_1", lam=lam, eps=1e9, random_state=0, allow_unverified=True).fit(X, y)
    k = GaussianKernel(1.0)
    ref = KernelRidge(alpha=lam * len(y), kernel="precomputed").fit(k(X, X), y)
    np.testing.assert_allclose(est.predict(X), ref.predict(k(X, X)), atol=1e-7)
    assert est.certificate_.ok


def test_reproducible_and_clone(data) -> None:
    X, y = data
    a = DPKernelLeastSquares(mechanism="jia.s5_1", lam=0.1, eps=0.5, random_state=7, allow_unverified=True).fit(X, y).predict(X[:5])
    b = clone(DPKernelLeastSquares(mechanism="jia.s5_1", lam=0.1, eps=0.5, random_state=7, allow_unverified=True)).fit(X, y).predict(X[:5])
    np.testing.assert_array_equal(a, b)
    c = DPKernelLeastSquares(mechanism="jia.s5_1", lam=0.1, eps=0.5, random_state=8, allow_unverified=True).fit(X, y).predict(X[:5])
    assert not np.allclose(a, c)
    est = DPKernelLeastSquares(mechanism="jia.s5_1").set_params(lam=0.2)
    assert est.get_params()["lam"] == 0.2


def test_pipeline_and_bad_targets(data) -> None:
    X, y = data
    unit = FunctionTransformer(lambda Z: Z / max(1.0, np.linalg.norm(Z, axis=1).max()))
    pipe = make_pipeline(unit, DPKernelLeastSquares(mechanism="jia.s5_1", lam=0.1, eps=1.0, random_state=0,
                                                             allow_unverified=True)).fit(X, y)
    assert pipe.predict(X).shape == (len(y),)
    with pytest.raises(ValueError, match="exceeds M"):
        DPKernelLeastSquares(mechanism="jia.s5_1", M=0.5, allow_unverified=True).fit(X, y * 2)
    with pytest.raises(ValueError, match="unknown mechanism 'nope'"):
        DPKernelLeastSquares(mechanism="nope").fit(X, y)


def test_svm_classifier(data) -> None:
    X, _ = data
    y = np.where(X[:, 0] > 0, "pos", "neg")
    clf = DPKernelSVM(mechanism="jia.s5_2", lam=0.01, eps=1e9, random_state=0, allow_unverified=True).fit(X, y)
    assert set(clf.predict(X)) <= {"pos", "neg"}
    assert clf.score(X, y) > 0.9 and clf.certificate_.ok
    assert clf.noise_scale_ == pytest.approx(1.0 / (0.01 * len(y) * 1e9))  # κ²/(λmε), κ = 1


def test_online_estimator(data) -> None:
    X, y = data
    # Theorem 1's privacy claim (jcc.thm1.density: a function released with one scalar of noise) is refuted,
    # so the mechanism is refused unless allow_unverified
    with pytest.raises(ValueError, match=r"jcc\.thm1\.density .*no form of it is established"):
        DPOnlineKernelRegression(mechanism="jcc.thm1", theta=0.75, eps=1e9, random_state=0).fit(X, y)
    est = DPOnlineKernelRegression(mechanism="jcc.thm1", theta=0.75, eps=1e9, random_state=0,
                                   allow_unverified=True).fit(X, y)
    assert est.t0_ ** 0.75 >= 2 - 1e-9  # t₀^θ ≥ κ² + 1
    assert np.isfinite(est.predict(X)).all()
    stated = DPOnlineKernelRegression(mechanism="jcc.thm1", theta=0.75, eps=0.5, calibration="stated", random_state=0,
                                      allow_unverified=True).fit(X, y)
    derived = DPOnlineKernelRegression(mechanism="jcc.thm1", theta=0.75, eps=0.5, random_state=0,
                                       allow_unverified=True).fit(X, y)
    assert derived.noise_scale_ == pytest.approx(stated.noise_scale_)  # κ = 1: (12) and (17) agree


@pytest.mark.parametrize("make", ["kls", "svm", "online"])
def test_a_function_released_with_one_scalar_of_noise_warns_when_fitted(make):
    from simulations.estimators import PrivacyLeakWarning, reset_privacy_warnings

    rng = np.random.default_rng(0)
    X = rng.uniform(-0.5, 0.5, (40, 1))
    y = np.clip(X[:, 0] + 0.1 * rng.normal(size=40), -1, 1)
    from simulations.mechanisms import mechanisms

    names = list(mechanisms())
    pick = {"kls": DPKernelLeastSquares, "svm": DPKernelSVM, "online": DPOnlineKernelRegression}[make]
    mech = next(m for m in names if _fits(pick, m, X, y))
    reset_privacy_warnings()           # the warning is emitted once per class per process
    with pytest.warns(PrivacyLeakWarning, match="Gaussian-process release") as w:
        pick(mechanism=mech, random_state=0, allow_unverified=True).fit(X, np.sign(y) if make == "svm" else y)
    leak = next(x for x in w if "Gaussian-process release" in str(x.message))
    assert "not ε-DP" in str(leak.message) and type(pick()).__name__ in str(leak.message)


def _fits(cls, mech, X, y) -> bool:
    import warnings

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cls(mechanism=mech, random_state=0, allow_unverified=True).fit(X, np.sign(y) if cls is DPKernelSVM else y)
        return True
    except Exception:            # a mechanism of another estimator (missing constants)
        return False
