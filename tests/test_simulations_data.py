"""Tests of simulations.kernels and simulations.data.

Expected values are computed here independently of the code under test
wherever possible: kernels from their plain Fourier series, eigenpairs and
L²_ρ inner products by quadrature, excess risks from truncated Fourier
coefficients and by Monte Carlo (99.9% normal confidence intervals), the
misclassification excess of a threshold rule by hand, real-data scaling from
the raw scikit-learn arrays.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simulations.data import (
    BinaryClassification,
    CircleRegression,
    TrigSeries,
    as_generator,
    load_real_dataset,
)
from simulations.kernels import (
    CircleKernel,
    GaussianKernel,
    KernelExpansion,
    LinearKernel,
    PeriodicSobolevKernel,
)

Z999 = 3.2905267314919255  # two-sided 99.9% normal quantile
TWO_PI = 2 * math.pi


def direct_cosine_sum(d: np.ndarray, mus: np.ndarray) -> np.ndarray:
    """Σ_k mus[k] cos(2πk d), summed term by term (smallest terms first)."""
    out = np.zeros_like(d, dtype=float)
    for k in range(len(mus) - 1, -1, -1):
        out += mus[k] * np.cos(TWO_PI * k * d)
    return out


def mc_mean(v: np.ndarray) -> tuple[float, float]:
    """Sample mean and half-width of its 99.9% normal confidence interval."""
    return float(v.mean()), Z999 * float(v.std(ddof=1)) / math.sqrt(v.size)


# ---------------------------------------------------------------------------
# kernels
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("s", [1, 2, 3])
def test_sobolev_closed_form_equals_truncated_series(s: int) -> None:
    K = PeriodicSobolevKernel(s=s, mu0=0.7, scale=1.3)
    rng = np.random.default_rng(0)
    x, y = rng.random(40), rng.random(30) * 3 - 1  # y outside [0, 1): reduced mod 1
    n = 4000
    mus = np.array([0.7] + [1.3 * k ** (-2.0 * s) for k in range(1, n + 1)])
    series = direct_cosine_sum(x[:, None] - y[None, :], mus)
    tail = 1.3 * n ** (1 - 2 * s) / (2 * s - 1)
    assert np.max(np.abs(K(x, y) - series)) <= tail + 1e-12
    assert np.max(np.abs(K.series(x, y, n_terms=n) - series)) <= 1e-12


@settings(max_examples=25, deadline=None)
@given(s=st.integers(1, 8), n=st.integers(1, 40), k=st.integers(0, 30), seed=st.integers(0, 2**32 - 1),
       spread=st.sampled_from([1e-18, 1e-9, 1.0, 7.5]))
def test_sobolev_compiled_gram_equals_numpy_bit_for_bit(s: int, n: int, k: int, seed: int,
                                                          spread: float) -> None:
    """The compiled Gram pass gives the NumPy profile's numbers exactly (s ≤ 6 compiled, s > 6 series),
    including points on both sides of 0 ≡ 1 where the double reduction modulo 1 matters."""
    from simulations.kernels import CircleKernelBase

    rng = np.random.default_rng(seed)
    X = rng.uniform(-spread, spread, n)
    Y = None if k == 0 else np.concatenate([rng.uniform(-spread, spread, k), [0.0, -0.0, 1.0, -1e-300]])
    K = PeriodicSobolevKernel.with_kappa(s=s, kappa=1.3)
    G = K(X, Y)
    assert np.array_equal(G, CircleKernelBase.__call__(K, X, Y))
    assert G.shape == (n, n if Y is None else Y.size)


def test_sobolev_closed_forms_s1_s2() -> None:
    d = np.linspace(0, 1, 101)[:-1]
    K1 = PeriodicSobolevKernel(s=1, mu0=0.0 + 1.0, scale=1.0)
    np.testing.assert_allclose(
        K1.profile(d), 1 + math.pi**2 * (d**2 - d + 1 / 6), rtol=0, atol=1e-13
    )
    K2 = PeriodicSobolevKernel(s=2, mu0=1.0, scale=1.0)
    b4 = d**4 - 2 * d**3 + d**2 - 1 / 30
    np.testing.assert_allclose(K2.profile(d), 1 - math.pi**4 / 3 * b4, rtol=0, atol=1e-13)


@pytest.mark.parametrize(
    ("s", "zeta"), [(1, math.pi**2 / 6), (2, math.pi**4 / 90), (3, math.pi**6 / 945)]
)
def test_sobolev_kappa(s: int, zeta: float) -> None:
    K = PeriodicSobolevKernel(s=s, mu0=0.5, scale=2.0)
    assert math.isclose(K.kappa**2, 0.5 + 2.0 * zeta, rel_tol=1e-14)
    x = np.random.default_rng(1).random(200)
    G = K(x)
    np.testing.assert_allclose(np.diag(G), K.kappa**2, rtol=1e-13)
    np.testing.assert_allclose(K.diag(x), K.kappa**2, rtol=1e-13)
    assert G.max() <= K.kappa**2 * (1 + 1e-13)
    assert math.isclose(PeriodicSobolevKernel.with_kappa(s, 1.0).kappa, 1.0, rel_tol=1e-14)
    assert math.isclose(PeriodicSobolevKernel.with_kappa(s, 0.5).kappa, 0.5, rel_tol=1e-14)


@pytest.mark.parametrize(
    "K",
    [
        PeriodicSobolevKernel(s=1, mu0=0.8, scale=1.5),
        PeriodicSobolevKernel(s=2),
        CircleKernel((0.3, 1.0, 0.4, 0.2)),
    ],
)
def test_circle_eigenpairs_by_quadrature(K: PeriodicSobolevKernel | CircleKernel) -> None:
    """L_K φ = τ φ with φ = 1, √2 cos(2πk·), √2 sin(2πk·) and τ_0 = μ_0, τ_k = μ_k/2."""
    n = 4096
    x = (np.arange(n) + 0.5) / n  # midpoint rule: exact for trigonometric polynomials of degree < n
    t = np.array([0.0, 0.123, 0.5, 0.77])
    G = K(x, t)
    pairs = [(0, np.ones_like(x), np.ones_like(t))]
    for k in range(1, 4):
        pairs.append(
            (k, math.sqrt(2) * np.cos(TWO_PI * k * x), math.sqrt(2) * np.cos(TWO_PI * k * t))
        )
        pairs.append(
            (k, math.sqrt(2) * np.sin(TWO_PI * k * x), math.sqrt(2) * np.sin(TWO_PI * k * t))
        )
    for k, phi_x, phi_t in pairs:
        LK_phi = (phi_x[:, None] * G).mean(axis=0)  # ∫ φ(x) K(x, t) dx
        tau = float(K.eigenvalue(k))
        expected_tau = float(K.mu(k)) if k == 0 else float(K.mu(k)) / 2
        assert math.isclose(tau, expected_tau, rel_tol=1e-15)
        # midpoint rule: O(n^-2) for the s = 1 profile (kink at d = 0), spectral otherwise
        np.testing.assert_allclose(LK_phi, tau * phi_t, rtol=0, atol=1e-6)
    # trace(L_K) = κ² = Σ eigenvalues with multiplicity
    n_tr = 200_000  # Sobolev tail after n_tr terms: ≤ c n_tr^{1−2s}/(2s − 1) ≤ 1e-5
    trace = float(K.mu(0)) + 2 * float(np.sum(K.eigenvalue(np.arange(1, n_tr + 1))))
    assert 0 <= K.kappa**2 - trace <= 1e-5


@pytest.mark.parametrize(
    "K", [PeriodicSobolevKernel(s=1, mu0=0.8, scale=1.5), CircleKernel((0.3, 1.0, 0.4))]
)
def test_squared_kernel_is_kernel_of_LK_squared(K: PeriodicSobolevKernel | CircleKernel) -> None:
    n = 8192
    x = (np.arange(n) + 0.5) / n
    a = np.array([0.05, 0.4, 0.9])
    quad = K(a, x) @ K(x, a) / n  # ∫ K(a_i, t) K(t, a_j) dt
    tol = 1e-5 if isinstance(K, PeriodicSobolevKernel) else 1e-12  # s = 1 profile has a kink
    np.testing.assert_allclose(K.squared()(a), quad, rtol=0, atol=tol)


def test_circle_kernel_finite_series() -> None:
    mus = np.array([0.5, 0.3, 0.0, 0.2])
    K = CircleKernel(tuple(mus))
    x = np.random.default_rng(2).random(17)
    np.testing.assert_allclose(K(x), direct_cosine_sum(x[:, None] - x[None, :], mus), atol=1e-14)
    assert math.isclose(K.kappa, 1.0)
    sq = K.squared()
    np.testing.assert_allclose(sq.mus, [0.25, 0.045, 0.0, 0.02])
    with pytest.raises(ValueError):
        CircleKernel((1.0, -0.1))


def test_gaussian_kernel() -> None:
    rng = np.random.default_rng(3)
    X, Y = rng.normal(size=(20, 3)), rng.normal(size=(7, 3))
    K = GaussianKernel(sigma=0.7)
    expected = np.array([[math.exp(-np.sum((a - b) ** 2) / (2 * 0.49)) for b in Y] for a in X])
    np.testing.assert_allclose(K(X, Y), expected, rtol=1e-13)
    np.testing.assert_allclose(K.diag(X), 1.0)
    assert K.kappa == 1.0
    G = K(X)
    np.testing.assert_allclose(G, G.T)
    assert np.linalg.eigvalsh(G).min() > -1e-12
    np.testing.assert_allclose(K(np.array([0.0, 1.0])), K(np.array([[0.0], [1.0]])))
    with pytest.raises(ValueError):
        GaussianKernel(sigma=0.0)


def test_linear_kernel_on_the_unit_ball() -> None:
    rng = np.random.default_rng(4)
    X = rng.normal(size=(30, 4))
    X /= np.linalg.norm(X, axis=1, keepdims=True) * rng.uniform(1, 3, size=(30, 1))
    K = LinearKernel()
    np.testing.assert_allclose(K(X), X @ X.T)
    np.testing.assert_allclose(K.diag(X), np.sum(X**2, axis=1))
    assert K.kappa == 1.0 and np.sqrt(K.diag(X)).max() <= K.kappa
    with pytest.raises(ValueError):
        K(np.array([[1.0, 0.1]]))
    assert LinearKernel(radius=2.0).kappa == 2.0


@pytest.mark.parametrize(
    "K", [GaussianKernel(0.3), PeriodicSobolevKernel(s=1), PeriodicSobolevKernel(s=3, mu0=0.1)]
)
def test_gram_matrices_are_psd(K: GaussianKernel | PeriodicSobolevKernel) -> None:
    x = np.random.default_rng(5).random(150)
    ev = np.linalg.eigvalsh(K(x))
    assert ev.min() >= -1e-10 * ev.max()


def test_kernel_expansion() -> None:
    K = PeriodicSobolevKernel(s=2)
    c = np.array([0.1, 0.6, 0.95])
    a = np.array([1.0, -2.0, 0.5])
    f = KernelExpansion(K, c, a, offset=0.3)
    x = np.array([0.0, 0.33, 0.8])
    expected = [
        sum(ai * float(K(ci, xi)[0, 0]) for ai, ci in zip(a, c, strict=True)) + 0.3 for xi in x
    ]
    np.testing.assert_allclose(f(x), expected, rtol=1e-13)
    assert math.isclose(f.rkhs_norm_sq(), float(a @ K(c) @ a), rel_tol=1e-13)
    with pytest.raises(ValueError):
        KernelExpansion(K, c, a[:2])


# ---------------------------------------------------------------------------
# circle regression
# ---------------------------------------------------------------------------


def fourier_coefficients_of_expansion(f: KernelExpansion, n: int) -> TrigSeries:
    """ONB coefficients of Σ α_i K(c_i, ·) + b up to frequency n, from μ_k directly."""
    K = f.kernel
    k = np.arange(n + 1)
    mu = np.array([K.mu0] + [K.scale * j ** (-2.0 * K.s) for j in range(1, n + 1)])
    ph = TWO_PI * np.outer(k, np.asarray(f.centers).ravel())
    A = mu * (np.cos(ph) @ f.alpha)  # raw cos coefficients
    B = mu * (np.sin(ph) @ f.alpha)
    A[0] += f.offset
    B[0] = 0.0
    scale = np.where(k == 0, 1.0, 1 / math.sqrt(2))  # raw -> orthonormal basis
    return TrigSeries(k, A * scale, B * scale)


def test_sampling_is_reproducible() -> None:
    P = CircleRegression(r=0.3, s=1, sigma=0.2)
    X1, y1 = P.sample(500, 123)
    X2, y2 = P.sample(500, np.random.SeedSequence(123))
    X3, y3 = P.sample(500, np.random.default_rng(123))
    np.testing.assert_array_equal(X1, X2)
    np.testing.assert_array_equal(y1, y2)
    np.testing.assert_array_equal(y1, y3)
    _, y4 = P.sample(500, 124)
    assert not np.array_equal(y1, y4)
    C = BinaryClassification()
    np.testing.assert_array_equal(C.sample(300, 9)[1], C.sample(300, 9)[1])
    assert as_generator(np.random.default_rng(1)) is not None
    with pytest.raises(TypeError):
        as_generator(1.5)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("r", "s", "sigma", "f_sup"), [(0.1, 1, 0.3, 1.0), (0.75, 2, 0.0, 2.5), (1.5, 1, 1.0, 0.2)]
)
def test_y_bounded_by_M(r: float, s: int, sigma: float, f_sup: float) -> None:
    P = CircleRegression(r=r, s=s, sigma=sigma, f_sup=f_sup)
    assert math.isclose(P.M, f_sup + sigma, rel_tol=1e-12)
    X, y = P.sample(50_000, 7)
    assert np.all(np.abs(y) <= P.M)
    assert np.all(np.abs(y - P.f_rho(X)) <= sigma)
    grid = np.linspace(0, 1, 2**16, endpoint=False)
    assert np.abs(P.f_rho(grid)).max() <= f_sup * (1 + 1e-12)
    assert np.all((X >= 0) & (X < 1))


def test_f_rho_is_the_stated_lacunary_series() -> None:
    r, s, eta, mu0, c, J = 0.35, 2, 0.1, 0.6, 1.7, 12
    P = CircleRegression(r=r, s=s, eta=eta, n_levels=J, mu0=mu0, scale=c, f_sup=None)
    x = np.random.default_rng(8).random(300)
    expected = np.zeros_like(x)
    src = 0.0
    for j in range(J):
        k = 2**j
        tau = c * k ** (-2.0 * s) / 2  # eigenvalue of √2 cos(2πk·), √2 sin(2πk·)
        gj = 2.0 ** (-2 * s * eta * j)
        trig = np.cos if j % 2 == 0 else np.sin
        expected += tau**r * gj * math.sqrt(2) * trig(TWO_PI * k * x)
        src += gj**2
    np.testing.assert_allclose(P.f_rho(x), expected, rtol=0, atol=1e-13)
    assert math.isclose(P.source_norm, math.sqrt(src), rel_tol=1e-13)
    # ‖L_K^{-r} f_ρ‖ recomputed from the coefficients of f_ρ
    fr = P.f_rho_series
    tau = c * fr.freqs.astype(float) ** (-2.0 * s) / 2
    assert math.isclose(
        math.sqrt(np.sum(fr.weights() / tau ** (2 * r))), P.source_norm, rel_tol=1e-12
    )
    assert P.d_exponent == pytest.approx(min(2 * (r + eta), 1.0))


@pytest.mark.parametrize("lam", [1.0, 1e-2, 1e-5, 1e-9])
def test_f_lambda_and_D_identities(lam: float) -> None:
    P = CircleRegression(r=0.3, s=1, mu0=1.0, scale=0.8)
    fl = P.f_lambda(lam)
    fit, pen = P.approximation_error_parts(lam)
    D = P.approximation_error(lam)
    assert math.isclose(P.excess_risk(fl), float(fit), rel_tol=1e-10)
    assert math.isclose(lam * P.norm_K(fl) ** 2, float(pen), rel_tol=1e-10)
    assert math.isclose(float(fit + pen), D, rel_tol=1e-12)
    # D(λ) = λ Σ w/(τ+λ) with τ = c k^{-2s}/2 recomputed here
    fr = P.f_rho_series
    tau = 0.8 * fr.freqs.astype(float) ** -2.0 / 2
    assert math.isclose(D, lam * float(np.sum(fr.weights() / (tau + lam))), rel_tol=1e-12)
    # vectorised over λ
    np.testing.assert_allclose(
        P.approximation_error(np.array([lam, 2 * lam])), [D, P.approximation_error(2 * lam)]
    )


def test_f_lambda_minimises_the_regularised_risk() -> None:
    """D(λ) = min_f ‖f − f_ρ‖² + λ‖f‖²_K: kernel ridge regression on a fine grid comes close, random f do worse."""
    P = CircleRegression(r=0.4, s=1, sigma=0.1)
    K = P.kernel
    n = 1024
    x = (np.arange(n) + 0.5) / n
    G = K(x)
    rng = np.random.default_rng(10)
    for lam in (1e-1, 1e-3):
        D = P.approximation_error(lam)
        a = np.linalg.solve(G + n * lam * np.eye(n), P.f_rho(x))
        h = KernelExpansion(K, x, a)
        value = P.excess_risk(h) + lam * P.norm_K(h) ** 2
        assert D <= value <= D * (1 + 2e-3)
        for _ in range(5):
            hp = KernelExpansion(
                K, x, a + rng.normal(scale=1e-3 / n, size=n), offset=rng.normal(scale=1e-3)
            )
            assert P.excess_risk(hp) + lam * P.norm_K(hp) ** 2 >= D


@pytest.mark.parametrize(
    ("r", "s"), [(0.05, 1), (0.15, 1), (0.3, 1), (0.2, 2), (0.75, 1), (1.5, 2)]
)
def test_D_decay_exponent(r: float, s: int) -> None:
    """log-log slope of D(λ) on λ = q^n λ₀ (q = 2^{-2s}) is d_exponent = min{2(r+η), 1} ≥ min{2r, 1}."""
    P = CircleRegression(r=r, s=s, eta=0.05)
    q = 2.0 ** (-2 * s)
    lam = 1e-3 * q ** np.arange(0, 12)
    lam = lam[lam >= 1e6 * P.lambda_floor]
    D = P.approximation_error(lam)
    slope = np.polyfit(np.log(lam), np.log(D), 1)[0]
    assert P.d_exponent is not None
    assert slope == pytest.approx(P.d_exponent, abs=0.01)
    assert slope >= min(2 * r, 1.0) - 0.01
    if 2 * (r + P.eta) < 1:
        # f_ρ is no smoother than stated: D(λ)/λ^{d_exponent + 0.05} blows up
        ratio = D / lam ** (P.d_exponent + 0.05)
        assert ratio[-1] > 2 * ratio[0]


def prop4_bound(lam: np.ndarray, r: float, kappa: float, source_norm: float) -> np.ndarray:
    """001 Proposition 4 (approximation part): λ^{min{2r,1}} (κ^{4r−2} + κ^{4r−4} + 2) ‖L_K^{−r} f_ρ‖²."""
    return (
        lam ** min(2 * r, 1.0) * (kappa ** (4 * r - 2) + kappa ** (4 * r - 4) + 2) * source_norm**2
    )


@pytest.mark.parametrize("r", [0.05, 0.25, 0.5, 0.75, 1.0, 2.0])
@pytest.mark.parametrize(("mu0", "scale"), [(1.0, 1.0), (0.05, 0.05), (3.0, 4.0)])
def test_prop4_approximation_bound(r: float, mu0: float, scale: float) -> None:
    P = CircleRegression(r=r, s=1, mu0=mu0, scale=scale)
    lam = np.logspace(-14, 0, 57)
    D = P.approximation_error(lam)
    assert np.all(D <= prop4_bound(lam, r, P.kappa, P.source_norm))
    # the two intermediate bounds of the proof of 001 Proposition 4
    fit, pen = P.approximation_error_parts(lam)
    k, g2 = P.kappa, P.source_norm**2
    assert np.all(fit <= lam ** min(2 * r, 2.0) * (k ** (4 * (r - 1)) + 1) * g2 * (1 + 1e-12))
    assert np.all(pen <= lam ** min(2 * r, 1.0) * (k ** (4 * r - 2) + 1) * g2 * (1 + 1e-12))


@settings(max_examples=40, deadline=None)
@given(
    r=st.floats(0.02, 3.0),
    eta=st.floats(0.01, 0.5),
    s=st.integers(1, 3),
    mu0=st.floats(0.01, 5.0),
    scale=st.floats(0.01, 5.0),
    loglam=st.floats(-15, 0),
)
def test_prop4_property(
    r: float, eta: float, s: int, mu0: float, scale: float, loglam: float
) -> None:
    P = CircleRegression(r=r, s=s, eta=eta, mu0=mu0, scale=scale, n_levels=20)
    lam = np.array([10.0**loglam])
    assert P.approximation_error(lam)[0] <= prop4_bound(lam, r, P.kappa, P.source_norm)[0] * (
        1 + 1e-12
    )


def test_excess_risk_of_kernel_expansion_exact() -> None:
    """Exact formula vs truncated Fourier coefficients vs grid quadrature vs Monte Carlo."""
    P = CircleRegression(r=0.3, s=1, sigma=0.2)
    X, y = P.sample(60, 11)
    K = P.kernel
    lam = 1e-2
    alpha = np.linalg.solve(K(X) + 60 * lam * np.eye(60), y)
    f = KernelExpansion(K, X, alpha, offset=0.07)
    exact = P.excess_risk(f)
    assert exact > 1e-3
    # truncated Fourier: the expansion's coefficients decay like μ_k ~ k^{-2}; f_ρ has frequencies ≤ 2^30
    n = 2**15
    fh = fourier_coefficients_of_expansion(f, n)
    fr = P.f_rho_series
    keep = fr.freqs <= n
    diff = fh - TrigSeries(fr.freqs[keep], fr.cos[keep], fr.sin[keep])
    via_fourier = diff.norm_sq() + float(np.sum(fr.weights()[~keep]))
    assert via_fourier == pytest.approx(exact, rel=1e-6)
    # norm_K from the same coefficients: ‖f‖²_K = Σ coef²/τ
    # (the omitted tail is Σ_{k>n} μ_k |Σ α_i e^{2πik c_i}|² ≤ c (Σ|α_i|)² / n)
    tau = np.where(
        fh.freqs == 0, K.mu0, K.scale * np.maximum(fh.freqs, 1).astype(float) ** -2.0 / 2
    )
    gap = P.norm_K(f) ** 2 - float(np.sum(fh.weights() / tau))
    assert -1e-9 <= gap <= K.scale * np.sum(np.abs(alpha)) ** 2 / n
    # generic callable path
    assert P.excess_risk(lambda x: f(x)) == pytest.approx(exact, rel=1e-6)
    # Monte Carlo on fresh samples: E[(f − y)² − (f_ρ − y)²]
    Xm, ym = P.sample(100_000, 12)
    mean, hw = mc_mean((f(Xm) - ym) ** 2 - (P.f_rho(Xm) - ym) ** 2)
    assert abs(mean - exact) <= hw
    assert P.risk(f) == pytest.approx(exact + 0.2**2 / 3)


def test_excess_risk_trig_series_and_bayes_risk() -> None:
    P = CircleRegression(r=0.6, s=2, sigma=0.5)
    assert P.excess_risk(P.f_rho_series) == 0.0
    assert P.excess_risk(P.f_rho) == pytest.approx(0.0, abs=1e-12)
    g = TrigSeries([0, 1, 5], cos=[0.2, 0.1, 0.0], sin=[0.0, -0.3, 0.4])
    fr = P.f_rho_series
    # Parseval by hand: f_ρ lives on frequencies 2^j
    coef = {int(k): (a, b) for k, a, b in zip(fr.freqs, fr.cos, fr.sin, strict=True)}
    expected = 0.2**2
    for k, (a, b) in ((1, (0.1, -0.3)), (5, (0.0, 0.4))):
        ra, rb = coef.pop(k, (0.0, 0.0))
        expected += (a - ra) ** 2 + (b - rb) ** 2
    expected += sum(a * a + b * b for a, b in coef.values())
    assert P.excess_risk(g) == pytest.approx(expected, rel=1e-13)
    assert P.excess_risk(g) == pytest.approx(P.excess_risk(lambda x: g(x)), rel=1e-9)
    # Bayes risk = noise variance σ²/3, by Monte Carlo
    X, y = P.sample(200_000, 13)
    mean, hw = mc_mean((P.f_rho(X) - y) ** 2)
    assert abs(mean - P.bayes_risk) <= hw
    assert P.bayes_risk == pytest.approx(0.5**2 / 3)
    # RKHS norm of a trig series: Σ coef²/τ by hand
    tau1, tau5 = P.kernel.scale / 2, P.kernel.scale * 5.0**-4 / 2
    assert P.norm_K(g) ** 2 == pytest.approx(
        0.2**2 / P.kernel.mu0 + (0.1**2 + 0.3**2) / tau1 + 0.4**2 / tau5
    )


def test_norm_K_of_expansion_with_offset() -> None:
    P = CircleRegression(r=0.5, s=2, mu0=0.5, scale=2.0)
    c = np.array([0.1, 0.45, 0.7])
    f = KernelExpansion(P.kernel, c, np.array([0.3, -0.2, 0.5]), offset=-0.4)
    fh = fourier_coefficients_of_expansion(f, 4000)
    tau = np.where(fh.freqs == 0, 0.5, 2.0 * np.maximum(fh.freqs, 1).astype(float) ** -4.0 / 2)
    assert P.norm_K(f) ** 2 == pytest.approx(float(np.sum(fh.weights() / tau)), rel=1e-9)
    with pytest.raises(ValueError):
        P.norm_K(KernelExpansion(PeriodicSobolevKernel(s=1), c, np.ones(3)))


# ---------------------------------------------------------------------------
# binary classification
# ---------------------------------------------------------------------------

PROBLEMS = [
    BinaryClassification(t0=0.5, a=0.8, gamma=1.0),
    BinaryClassification(t0=0.3, a=1.0, gamma=0.0),
    BinaryClassification(t0=0.62, a=0.6, gamma=2.5),
    BinaryClassification(t0=0.41, a=0.9, gamma=0.5),
]


@pytest.mark.parametrize("P", PROBLEMS)
def test_bayes_classifier_has_zero_excess(P: BinaryClassification) -> None:
    assert P.misclassification_excess(P.bayes_classifier) == 0.0
    assert P.misclassification_excess(lambda x: 5.0 * (x[:, 0] - P.t0)) == 0.0
    # R(f_c) = ∫ min(η, 1 − η) by a fine midpoint rule (exact formula for a, γ, t0 written here)
    n = 2**20
    x = (np.arange(n) + 0.5) / n
    L = max(P.t0, 1 - P.t0)
    m = P.a * (np.abs(x - P.t0) / L) ** P.gamma
    assert P.bayes_risk == pytest.approx(float(np.mean((1 - m) / 2)), abs=1e-6)
    assert P.hinge_risk(P.bayes_classifier) == pytest.approx(P.bayes_hinge_risk, abs=1e-13)
    assert P.bayes_hinge_risk == pytest.approx(2 * P.bayes_risk, rel=1e-14)


@pytest.mark.parametrize("P", PROBLEMS)
@pytest.mark.parametrize("c", [0.05, 0.33, 0.9])
def test_threshold_rule_excess_by_hand(P: BinaryClassification, c: float) -> None:
    """sign(x − c) disagrees with f_c between t₀ and c: excess = a |c − t₀|^{γ+1} / ((γ+1) L^γ)."""
    L = max(P.t0, 1 - P.t0)
    expected = P.a * abs(c - P.t0) ** (P.gamma + 1) / ((P.gamma + 1) * L**P.gamma)
    assert P.misclassification_excess(lambda x: x[:, 0] - c) == pytest.approx(
        expected, rel=1e-12, abs=1e-15
    )
    # reversed rule: wrong everywhere except between t₀ and c
    total = (
        P.a * (P.t0 ** (P.gamma + 1) + (1 - P.t0) ** (P.gamma + 1)) / ((P.gamma + 1) * L**P.gamma)
    )
    assert P.misclassification_excess(lambda x: c - x[:, 0]) == pytest.approx(
        total - expected, rel=1e-12
    )


def test_classification_risks_against_monte_carlo() -> None:
    P = BinaryClassification(t0=0.41, a=0.9, gamma=0.5)

    def f(x: np.ndarray) -> np.ndarray:
        return 1.7 * np.sin(TWO_PI * 3 * x[:, 0] + 0.4) + 0.2

    X, y = P.sample(400_000, 14)
    fx, fc = f(X), P.bayes_classifier(X)
    pred = np.where(fx >= 0, 1.0, -1.0)
    mean, hw = mc_mean((pred != y).astype(float) - (fc != y))
    assert abs(mean - P.misclassification_excess(f)) <= hw
    mean, hw = mc_mean(np.maximum(0.0, 1 - y * fx))
    assert abs(mean - P.hinge_risk(f)) <= hw
    mean, hw = mc_mean((fc != y).astype(float))
    assert abs(mean - P.bayes_risk) <= hw
    # empirical η on bins
    edges = np.linspace(0, 1, 11)
    b = np.digitize(X[:, 0], edges) - 1
    for i in range(10):
        sel = b == i
        ybar = float(np.mean(y[sel] == 1))
        ebar = float(np.mean(P.eta(X[sel])))
        assert abs(ybar - ebar) <= Z999 * math.sqrt(0.25 / sel.sum())


def test_hinge_optimality_and_comparison_theorem() -> None:
    """E_h(f) ≥ E_h(f_c) and R(sign f) − R(f_c) ≤ E_h(f) − E_h(f_c) ≤ ... (Zhang 2004; 000 §5.2 uses √(2·))."""
    rng = np.random.default_rng(15)
    for P in PROBLEMS:
        for _ in range(8):
            amp, freq, ph, off = (
                rng.uniform(0.1, 3),
                rng.integers(1, 6),
                rng.uniform(0, TWO_PI),
                rng.normal(),
            )

            def f(x: np.ndarray, amp=amp, freq=freq, ph=ph, off=off) -> np.ndarray:
                return amp * np.sin(TWO_PI * freq * x[:, 0] + ph) + off

            mis = P.misclassification_excess(f)
            hinge = P.hinge_excess(f)
            assert hinge >= -1e-12
            assert mis <= hinge + 1e-12
            assert mis <= math.sqrt(2 * max(hinge, 0.0)) + 1e-12


# ---------------------------------------------------------------------------
# real data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["diabetes", "breast_cancer"])
def test_real_data_scaling_and_split(name: str) -> None:
    from sklearn import datasets

    D = load_real_dataset(name, seed=5, test_fraction=0.25)
    if name == "diabetes":
        raw = datasets.load_diabetes(scaled=False)
        assert D.task == "regression"
    else:
        raw = datasets.load_breast_cancer()
        assert D.task == "classification"
    Xr, tr = np.asarray(raw.data, float), np.asarray(raw.target, float)
    n, d = Xr.shape
    assert (D.n_train + D.n_test, D.dim) == (n, d)
    assert D.n_test == round(0.25 * n)
    Xall = np.vstack([D.X_train, D.X_test])
    norms = np.linalg.norm(Xall, axis=1)
    assert norms.max() <= 1.0 and norms.max() > 1 - 1e-9
    yall = np.concatenate([D.y_train, D.y_test])
    if D.task == "regression":
        assert np.abs(yall).max() <= D.M == 1.0
        assert yall.min() == -1.0 and yall.max() == 1.0
    else:
        assert set(np.unique(yall)) == {-1.0, 1.0}
        assert np.sum(yall == 1) == np.sum(tr == 1)  # benign = +1
    # rebuild the scaled rows independently and match them as sets
    Z = (Xr - Xr.mean(0)) / Xr.std(0)
    Z /= np.linalg.norm(Z, axis=1).max()
    key = np.lexsort(Z.T[::-1])
    key2 = np.lexsort(Xall.T[::-1])
    np.testing.assert_allclose(Xall[key2], Z[key], atol=1e-10)
    # deterministic split from the seed, different for another seed
    D2 = load_real_dataset(name, seed=5, test_fraction=0.25)
    np.testing.assert_array_equal(D.X_test, D2.X_test)
    D3 = load_real_dataset(name, seed=6, test_fraction=0.25)
    assert not np.array_equal(D.X_test, D3.X_test)
    # sampling from the training part, reproducibly
    Xs, ys = D.sample(50, 3)
    Xs2, _ = D.sample(50, 3)
    np.testing.assert_array_equal(Xs, Xs2)
    assert len({tuple(r) for r in Xs}) == 50
    train_rows = {tuple(r) for r in D.X_train}
    assert all(tuple(r) in train_rows for r in Xs)
    # held-out risk is the mean loss on the held-out rows
    w = np.linspace(-1, 1, d)

    def f(X: np.ndarray) -> np.ndarray:
        return X @ w

    assert D.heldout_risk(f, "square") == pytest.approx(
        float(np.mean((D.X_test @ w - D.y_test) ** 2))
    )
    assert D.heldout_risk(f, "hinge") == pytest.approx(
        float(np.mean(np.maximum(0, 1 - D.y_test * (D.X_test @ w))))
    )
    assert 0.0 <= D.heldout_risk(f, "zero_one") <= 1.0


def test_user_g_with_constant_term() -> None:
    """A user-chosen g (with a mean): f_ρ = A L_K^r g, and the exact excess risk of an expansion with offset."""
    g = TrigSeries([0, 1, 3], cos=[0.5, 0.2, 0.0], sin=[0.0, 0.1, -0.3])
    P = CircleRegression(r=0.7, s=2, mu0=0.9, scale=1.2, g=g, f_sup=None, sigma=0.05)
    assert P.d_exponent is None and P.amplitude == 1.0
    tau = np.array([0.9, 1.2 / 2, 1.2 * 3.0**-4 / 2])
    np.testing.assert_allclose(P.f_rho_series.cos, g.cos * tau**0.7, rtol=1e-14)
    np.testing.assert_allclose(P.f_rho_series.sin, g.sin * tau**0.7, rtol=1e-14)
    assert P.source_norm == pytest.approx(math.sqrt(g.norm_sq()))
    f = KernelExpansion(
        P.kernel, np.array([0.2, 0.5, 0.85]), np.array([0.4, -0.1, 0.3]), offset=0.25
    )
    fh = fourier_coefficients_of_expansion(f, 3000)
    assert P.excess_risk(f) == pytest.approx((fh - P.f_rho_series).norm_sq(), rel=1e-10)
    x = np.random.default_rng(16).random(5000)
    assert P.excess_risk(f) == pytest.approx(float(np.mean((f(x) - P.f_rho(x)) ** 2)), rel=0.05)
