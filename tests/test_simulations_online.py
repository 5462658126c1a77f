"""The online algorithm of seed 003 and the noise calibrations, checked independently."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bounds
from simulations.kernels import PeriodicSobolevKernel
from simulations.mechanisms import calibrations, laplace_scale, release
from simulations.online import (
    kernel_expansion_values,
    kernel_quadratic_form,
    last_point_difference,
    online_kernel_regression,
    online_kernel_regression_stream,
    rkhs_norm,
)


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


# ------------------------------------------------------------------------ without the Gram matrix
def _hard_stream(T: int, rng: np.random.Generator) -> np.ndarray:
    """Uniform points on [0, 1), exact duplicates, points at / next to 0 and 1 (mod branch)."""
    x = rng.random(T)
    edge = np.array([0.0, 5e-324, 1e-17, 1e-12, 0.5, 1.0 - 2.0**-53, 1.0 - 1e-12, 0.999999])
    k = min(T, 3 * edge.size)
    x[rng.choice(T, k, replace=False)] = rng.choice(edge, k)
    dup = rng.choice(T, T // 5)
    x[dup] = x[rng.choice(T, dup.size)]        # exact repeats of other stream points
    return x


def _sobolev(kappa: float, s: int = 1) -> PeriodicSobolevKernel:
    return PeriodicSobolevKernel.with_kappa(s=s, kappa=kappa)


def _t0(kappa: float, theta: float, factor: float) -> float:
    return factor * (kappa**2 + 1) ** (1 / theta)      # factor ≥ 1: admissible for Theorem 1


@pytest.mark.parametrize(
    "T,theta,kappa,factor,block",
    [(1, 0.75, 1.0, 1.0, None), (2, 0.6, 2.0, 1.0, None), (37, 0.55, 2.0, 1.0, 5),
     (300, 0.75, 1.0, 1.0, 1), (500, 0.95, 0.5, 3.0, None), (1000, 0.55, 2.0, 1.0, 64),
     (2000, 0.75, 1.0, 1.0, None), (2000, 0.9, 3.0, 1.5, 700)],
)
def test_stream_equals_gram_reference_sobolev1(T, theta, kappa, factor, block) -> None:
    """Recursion (3), f at points and aᵀGa without G equal the Gram path to 1e-10 (s = 1)."""
    rng = np.random.default_rng(np.random.SeedSequence([41, T, block or 0]))
    K = _sobolev(kappa)
    t0 = _t0(kappa, theta, factor)
    x = _hard_stream(T, rng)
    x[1::9] += rng.integers(-3, 4, x[1::9].size)     # the same circle points, off [0, 1)
    y = rng.uniform(-1, 1, T)
    G = K(x)
    ref = online_kernel_regression(G, y, theta, t0)
    a = online_kernel_regression_stream(x, y, theta, t0, K, block=block)
    assert a.shape == ref.shape
    assert np.abs(a - ref).max() <= 1e-10 * np.abs(ref).max()
    # a shorter run on the same stream (T < n)
    k = max(1, T // 3)
    short = online_kernel_regression_stream(x, y, theta, t0, K, T=k, block=block)
    np.testing.assert_allclose(short, online_kernel_regression(G, y, theta, t0, T=k), rtol=0,
                               atol=1e-10 * np.abs(ref).max())
    # f_T at the stream points, at fresh points and at points at / next to the branch
    z = np.concatenate([x[: min(T, 50)], rng.random(50), [0.0, 1e-17, 1.0 - 2.0**-53, 0.5]])
    f_ref = K(z, x) @ ref
    np.testing.assert_allclose(kernel_expansion_values(K, x, ref, z), f_ref, rtol=0,
                               atol=1e-10 * np.abs(f_ref).max())
    q_ref = float(ref @ G @ ref)
    assert kernel_quadratic_form(K, x, ref) == pytest.approx(q_ref, rel=1e-10)
    assert rkhs_norm(ref, G) == pytest.approx(np.sqrt(kernel_quadratic_form(K, x, ref)), rel=1e-10)


def test_quadratic_form_and_values_on_arbitrary_coefficients() -> None:
    """The sorted prefix sums for any coefficients (signs, zeros), centres outside [0, 1) too."""
    rng = np.random.default_rng(np.random.SeedSequence(43))
    K = _sobolev(1.3)
    for n in (1, 2, 17, 400):
        c = np.concatenate([_hard_stream(n, rng), rng.uniform(-2, 3, n)])
        a = rng.normal(size=c.size)
        a[::4] = 0.0
        G = K(c)
        z = np.concatenate([rng.uniform(-1, 2, 30), c[:10] + 1.0, [-1e-17, 0.0, 1.0]])
        np.testing.assert_allclose(kernel_expansion_values(K, c, a, z), K(z, c) @ a, rtol=0,
                                   atol=1e-12 * np.abs(a).sum())
        assert kernel_quadratic_form(K, c, a) == pytest.approx(float(a @ G @ a), rel=1e-10)


def _gaussian(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    sq = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-sq / 0.5)


@pytest.mark.parametrize("which", ["sobolev2", "sobolev3", "gaussian", "linear"])
def test_stream_equals_gram_reference_other_kernels(which) -> None:
    """Any other kernel: block rows K(x_t, x_{<e}) on the fly, same coefficients as on G."""
    rng = np.random.default_rng(np.random.SeedSequence([47, len(which)]))
    T, theta = 700, 0.7
    if which.startswith("sobolev"):
        kernel = _sobolev(1.5, s=int(which[-1]))
        x = _hard_stream(T, rng)
        kappa = 1.5
    else:
        x = rng.normal(size=(T, 3))
        x /= np.maximum(1.0, np.linalg.norm(x, axis=1))[:, None]
        x[rng.choice(T, 50)] = x[rng.choice(T, 50)]
        kernel = _gaussian if which == "gaussian" else (lambda A, B: A @ B.T)
        kappa = 1.0
    t0 = _t0(kappa, theta, 1.0)
    y = rng.choice([-1.0, 1.0], T)
    G = kernel(x, x)
    ref = online_kernel_regression(G, y, theta, t0)
    for block in (None, 1, 33, 1000):
        a = online_kernel_regression_stream(x, y, theta, t0, kernel, block=block)
        assert np.abs(a - ref).max() <= 1e-10 * np.abs(ref).max()
    z = x[:40]
    np.testing.assert_allclose(kernel_expansion_values(kernel, x, ref, z, block=7), G[:40] @ ref,
                               rtol=1e-10, atol=1e-12)
    assert kernel_quadratic_form(kernel, x, ref) == pytest.approx(float(ref @ G @ ref), rel=1e-10)


@pytest.mark.parametrize("t0", [1.0, 0.5, 1.0 + 1e-12])
def test_stream_small_offsets(t0) -> None:
    """t₀ ≤ 1 (outside Theorem 1): c_0 = 1 − 1/t₀ ≤ 0 scales nothing and must not enter."""
    rng = np.random.default_rng(np.random.SeedSequence(59))
    K = _sobolev(0.3)
    x, y = _hard_stream(120, rng), rng.uniform(-1, 1, 120)
    ref = online_kernel_regression(K(x), y, 0.75, t0)
    for block in (None, 1, 7):
        a = online_kernel_regression_stream(x, y, 0.75, t0, K, block=block)
        assert np.all(np.isfinite(a))
        assert np.abs(a - ref).max() <= 1e-10 * np.abs(ref).max()


def test_stream_matches_weight_recursion_and_rejects_bad_input() -> None:
    """Against the independent weight-vector recursion (linear kernel); argument checks."""
    rng = np.random.default_rng(np.random.SeedSequence(53))
    X = rng.normal(size=(300, 4))
    X /= np.maximum(1, np.linalg.norm(X, axis=1))[:, None]
    y = rng.uniform(-1, 1, 300)
    a = online_kernel_regression_stream(X, y, 0.7, 3.0, lambda A, B: A @ B.T, block=40)
    np.testing.assert_allclose(a @ X, _weights_recursion(X, y, 0.7, 3.0), rtol=1e-10, atol=1e-12)
    K = _sobolev(1.0)
    assert online_kernel_regression_stream(np.zeros(0), np.zeros(0), 0.7, 3.0, K).shape == (0,)
    with pytest.raises(ValueError, match="points"):
        online_kernel_regression_stream(np.zeros(3), np.zeros(4), 0.7, 3.0, K)
    with pytest.raises(ValueError, match="T"):
        online_kernel_regression_stream(np.zeros(3), np.zeros(3), 0.7, 3.0, K, T=4)
    with pytest.raises(ValueError, match="theta"):
        online_kernel_regression_stream(np.zeros(3), np.zeros(3), 1.5, 3.0, K)
