"""The online algorithm of seed 003 and the noise calibrations, checked independently."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bounds
from simulations.mechanisms import calibrations, laplace_scale, release
from simulations.online import last_point_difference, online_kernel_regression, rkhs_norm


def _weights_recursion(X, y, theta, t0):
    """Independent implementation: recursion (3) on weight vectors for the linear kernel."""
    w = np.zeros(X.shape[1])
    for t in range(len(y)):
        eta, lam = (t + t0) ** (-theta), (t + t0) ** (theta - 1)
        w = w - eta * ((w @ X[t] - y[t]) * X[t] + lam * w)
    return w


def test_coefficients_match_weight_recursion() -> None:
    rng = np.random.default_rng(np.random.SeedSequence(31))
    X = rng.normal(size=(300, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = rng.uniform(-1, 1, 300)
    a = online_kernel_regression(X @ X.T, y, 0.7, 3.0)
    np.testing.assert_allclose(a @ X, _weights_recursion(X, y, 0.7, 3.0), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("theta", [0.55, 0.75, 0.95])
def test_lemma2_and_sensitivity_bounds_hold(theta) -> None:
    """‖f_t‖ ≤ κM/λ_t (Lemma 2) and the last-point change ≤ (16) on adversarially labelled data."""
    rng = np.random.default_rng(np.random.SeedSequence(int(theta * 100)))
    kappa, M = 1.0, 1.0
    t0 = (kappa**2 + 1) ** (1 / theta) * (1 + 1e-9)  # smallest admissible offset
    X = rng.normal(size=(401, 3))
    X /= np.linalg.norm(X, axis=1)[:, None]  # on the sphere: K(x, x) = κ² = 1
    y = rng.choice([-1.0, 1.0], 400)
    G = X @ X.T
    worst = 0.0
    for t in (10, 50, 200, 400):
        a = online_kernel_regression(G[:t, :t], y[:t], theta, t0)
        assert rkhs_norm(a, G) <= kappa * M * (t + t0) ** (1 - theta) * (1 + 1e-12)
        for ybar in (-1.0, 1.0):
            idx = list(range(t)) + [400]
            dist, _ = last_point_difference(G[np.ix_(idx, idx)], y[:t], ybar, theta, t0)
            bound = bounds.value("jcc.eq16", dict(kappa=kappa, M=M, t=t, t0=t0, theta=theta))
            worst = max(worst, dist / bound)
    assert 0 < worst <= 1


def test_calibrations_from_bounds() -> None:
    c = calibrations("jia.prop1", kappa=1.5, C_L=2, lam=0.1, gamma=2, m=200, eps=0.5)
    assert c.derived == pytest.approx(2 * 1.5**2 * 2 / (0.1 * 2 * 200 * 0.5))  # Δf/ε by hand
    assert c.ratio == pytest.approx(2.0)
    # 001's calibration is right: both agree
    c = calibrations("jamp.prop1", R=3, kappa=1, lam=0.5, m=100, eps=0.5)
    assert c.ratio == pytest.approx(1.0)
    # 003 Theorem 1: C_t of (12) is short by a factor κ
    v = dict(kappa=2.0, M=1.0, t=10, t0=9.0, theta=0.75, eps=0.5)
    assert laplace_scale("jcc.thm1", "derived", **v) / laplace_scale("jcc.thm1", "stated", **v) == pytest.approx(2.0)
    with pytest.raises(ValueError, match="unknown mechanism"):
        laplace_scale("nope", kappa=1)


def test_release_is_laplace_and_reproducible() -> None:
    out = release(np.array([0.5, -0.2]), 0.3, n=20000, rng=np.random.default_rng(np.random.SeedSequence(7)))
    b = out[:, 0] - 0.5
    np.testing.assert_allclose(out[:, 1] - (-0.2), b)  # one scalar per release
    assert stats.kstest(b, stats.laplace(scale=0.3).cdf).pvalue > 1e-3
    again = release(np.array([0.5, -0.2]), 0.3, n=20000, rng=np.random.default_rng(np.random.SeedSequence(7)))
    np.testing.assert_array_equal(out, again)
    clipped = release(np.array([5.0]), 0.3, n=3, rng=np.random.default_rng(1), clip=1.0)
    assert np.all(np.abs(clipped - 1.0) < 10)
    with pytest.raises(ValueError, match="scale"):
        release(np.zeros(2), 0.0)
