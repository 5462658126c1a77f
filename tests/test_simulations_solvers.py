"""Exact solvers of simulations.solvers against independent references.

References: scikit-learn's KernelRidge (least squares), brute-force refits on the neighbouring
data set (neighbour scans), a generic bound-constrained optimiser run to high accuracy on the
dual (SVM, pinball), random feasible points (weak duality), and the KKT conditions.
"""

from __future__ import annotations

import importlib.util
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize
from sklearn.kernel_ridge import KernelRidge

from simulations import solvers as solvers_mod
from simulations.solvers import (
    Certificate,
    CertificateError,
    KLSFactor,
    duality_gap,
    hinge_dual,
    hinge_primal,
    kls_fit,
    kls_objective,
    neighbour_fit,
    neighbour_scan,
    pinball_dual,
    pinball_fit,
    pinball_primal,
    replace_point,
    require_certificate,
    svm_fit,
    union_rkhs_distance,
)

# ----------------------------------------------------------------------------- helpers


def rbf(A: np.ndarray, B: np.ndarray, s: float = 0.7) -> np.ndarray:
    d2 = ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1)
    return np.exp(-d2 / (2 * s * s))


def classification(m: int, seed: int, d: int = 2, noise: float = 0.4):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.5 + noise * rng.standard_normal(m) > 0, 1.0, -1.0)
    return X, y


def regression(m: int, seed: int):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-1, 1, (m, 2))
    y = np.sin(3 * X[:, 0]) + 0.5 * X[:, 1] + 0.2 * rng.standard_normal(m)
    return X, y


def reference_box_dual(K, y, lo, hi):
    """min ½αᵀKα − yᵀα on the box by L-BFGS-B run to (near) machine precision."""
    def fg(a):
        Ka = K @ a
        return 0.5 * a @ Ka - y @ a, Ka - y

    r = minimize(fg, np.clip(np.zeros(len(y)), lo, hi), jac=True, method="L-BFGS-B",
                 bounds=list(zip(lo, hi, strict=True)),
                 options=dict(maxiter=50_000, maxfun=100_000, ftol=1e-15, gtol=1e-13, maxcor=30))
    return r.x


def svm_box(y, lam):
    C = 1 / (2 * lam * len(y))
    return np.minimum(0, y * C), np.maximum(0, y * C)


# ----------------------------------------------------------------------------- certificates


def test_require_certificate_names_solver_and_value() -> None:
    bad = Certificate("relative_duality_gap", 0.25, 1e-10, False, solver="svm_fit")
    with pytest.raises(CertificateError, match=r"svm_fit: relative_duality_gap = 0.25 > tolerance 1e-10"):
        require_certificate(bad)
    # converged flag alone is not enough: the value must be within tolerance too
    with pytest.raises(CertificateError):
        require_certificate(Certificate("x", 1.0, 0.5, True, solver="s"))
    good = Certificate("x", 0.1, 0.5, True, solver="s")
    assert require_certificate(good) is good and good.ok


# ----------------------------------------------------------------------------- least squares


@pytest.mark.parametrize("lam", [1e-4, 1e-2, 1.0])
def test_kls_matches_kernel_ridge(lam: float) -> None:
    X, y = regression(70, 1)
    K = rbf(X, X)
    res = kls_fit(K, y, lam)
    ref = KernelRidge(alpha=lam * len(y), kernel="precomputed").fit(K, y).dual_coef_
    np.testing.assert_allclose(res.alpha, ref, rtol=1e-9, atol=1e-12 * np.max(np.abs(ref)))
    assert res.certificate.ok and res.certificate.kind == "relative_kkt_residual"
    assert res.certificate.value < 1e-12


def test_kls_factor_many_right_hand_sides_and_optimality() -> None:
    X, y = regression(50, 2)
    K = rbf(X, X)
    lam = 1e-3
    F = KLSFactor(K, lam)
    rng = np.random.default_rng(0)
    Y = y[:, None] + 0.1 * rng.standard_normal((50, 4))
    res = F.fit(Y)
    assert res.alpha.shape == (50, 4)
    for c in range(4):
        np.testing.assert_allclose(res.alpha[:, c], kls_fit(K, Y[:, c], lam).alpha, rtol=1e-10)
    # RKHS gradient at the optimum vanishes; a perturbed α has a positive gradient norm and
    # the strong-convexity bound ‖f − f_z‖_K ≤ ‖∇J‖_K/(2λ) holds
    assert np.all(res.gradient_norm < 1e-10)
    a0 = res.alpha[:, 0]
    for _ in range(5):
        delta = 1e-2 * rng.standard_normal(50)
        J0 = kls_objective(K, Y[:, 0], lam, a0)
        J1 = kls_objective(K, Y[:, 0], lam, a0 + delta)
        assert J1 >= J0
        cert = F.certificate(a0 + delta, Y[:, 0], tol=1e-10)
        assert not cert.converged
        g = cert.details["gradient_norm"]
        dist = math.sqrt(delta @ K @ delta)
        assert dist <= g / (2 * lam) * (1 + 1e-9)
        assert J1 - J0 <= g**2 / (4 * lam) * (1 + 1e-9)


def test_kls_raises_on_bad_input() -> None:
    with pytest.raises(ValueError, match="square"):
        KLSFactor(np.ones((3, 2)), 0.1)
    with pytest.raises(ValueError, match="symmetric"):
        KLSFactor(np.array([[1.0, 0.5], [0.0, 1.0]]), 0.1)
    with pytest.raises(ValueError, match="lam"):
        KLSFactor(np.eye(2), 0.0)


# ----------------------------------------------------------------------------- neighbours


def _brute_force(K, y, lam, j, kc, kap, yc, Kg=None, kgc=None):
    Kb = replace_point(K, j, kc, kap)
    yb = y.copy()
    yb[j] = yc
    ab = kls_fit(Kb, yb, lam).alpha
    a = kls_fit(K, y, lam).alpha
    d = union_rkhs_distance(K, kc, kap, j, a, ab)
    sup = None
    if Kg is not None:
        Kgb = Kg.copy()
        Kgb[:, j] = kgc
        sup = float(np.max(np.abs(Kg @ a - Kgb @ ab)))
    return ab, d, sup


@pytest.mark.parametrize("lam", [1e-4, 1e-2, 0.3])
def test_neighbour_scan_matches_brute_force_refits(lam: float) -> None:
    rng = np.random.default_rng(7)
    m, C = 60, 6
    X, y = regression(m, 3)
    Xc = rng.uniform(-1, 1, (C, 2))
    yc = rng.uniform(-1.5, 1.5, C)
    G = rng.uniform(-1, 1, (40, 2))
    K, Kc, Kg, Kgc = rbf(X, X), rbf(Xc, X), rbf(G, X), rbf(G, Xc)
    scan = neighbour_scan(K, y, lam, Kc, np.ones(C), yc, K_eval=Kg, K_eval_cand=Kgc,
                          return_eval=True)
    assert scan.rkhs_dist.shape == (m, C) and scan.sup_dist.shape == (m, C)
    assert scan.f_eval.shape == (m, C, 40)
    for _ in range(12):
        j, c = int(rng.integers(m)), int(rng.integers(C))
        ab, d, sup = _brute_force(K, y, lam, j, Kc[c], 1.0, yc[c], Kg, Kgc[:, c])
        assert scan.rkhs_dist[j, c] == pytest.approx(d, rel=1e-8)
        assert scan.sup_dist[j, c] == pytest.approx(sup, rel=1e-8)
        nf = neighbour_fit(K, y, lam, j, Kc[c], 1.0, yc[c], K_eval=Kg, k_eval_cand=Kgc[:, c])
        np.testing.assert_allclose(nf.alpha_bar, ab, rtol=1e-8, atol=1e-9 * np.max(np.abs(ab)))
        assert nf.rkhs_dist == pytest.approx(d, rel=1e-8)
        assert nf.sup_dist == pytest.approx(sup, rel=1e-8)
        np.testing.assert_allclose(scan.f_eval[j, c], nf.f_eval, rtol=1e-8, atol=1e-10)
        Kgb = Kg.copy()
        Kgb[:, j] = Kgc[:, c]
        np.testing.assert_allclose(nf.f_eval, Kgb @ ab, rtol=1e-8, atol=1e-10)
        # the neighbour's own residual at x̄ is its coefficient times λm
        assert scan.residual_cand[j, c] == pytest.approx(ab[j] * lam * m, rel=1e-8)
    # sup over a grid never exceeds κ‖·‖_K (κ = 1 for the Gaussian kernel)
    assert np.all(scan.sup_dist <= scan.rkhs_dist * (1 + 1e-9))


def test_neighbour_scan_identity_and_factor_reuse() -> None:
    X, y = regression(30, 4)
    K = rbf(X, X)
    F = KLSFactor(K, 0.01)
    # candidate = x_5 itself with the same label: z̄ = z, distance 0
    scan = F.neighbour_scan(y, K[5][None, :], K[5, 5], y[5])
    # the distance is the square root of a difference of quadratic forms, so rounding of order
    # 1e-16 in the squared norm shows as ~1e-8 in the distance (it was 2e-9 with one BLAS thread)
    assert scan.rkhs_dist[5, 0] < 1e-7 * max(1.0, scan.rkhs_dist.max())
    assert scan.rkhs_dist[5, 0] < 1e-4 * np.sort(scan.rkhs_dist[:, 0])[1]   # far below every real neighbour
    assert scan.argmax() != (5, 0)
    with pytest.raises(ValueError, match="lam"):
        neighbour_scan(F, y, 0.02, K[:2], 1.0, 0.0)


def test_neighbour_scan_respects_theorem2_for_least_squares() -> None:
    """Seed 000 §5.1: ‖f_z − f_z̄‖_K ≤ 2κC_L/(λγm) with γ = 2, C_L = 2M(κ + 1)/√λ (λ ≤ 1)."""
    rng = np.random.default_rng(11)
    m, M, lam = 40, 1.0, 0.05
    X = rng.uniform(-1, 1, (m, 1))
    y = rng.uniform(-M, M, m)
    Xc = np.linspace(-1, 1, 25)[:, None]
    scan = neighbour_scan(rbf(X, X), y, lam, rbf(Xc, X), 1.0, np.tile([-M, M, 0.0], 9)[:25])
    bound = 2 * 1.0 * (2 * M * 2 / math.sqrt(lam)) / (lam * 2 * m)
    assert scan.rkhs_dist.max() <= bound


# ----------------------------------------------------------------------------- SVM


def _check_svm_kkt(K, y, res, tol=1e-7):
    f = K @ res.alpha
    margin = y * f
    lo, hi = res.lower, res.upper
    at_zero = res.alpha == 0
    at_C = (res.alpha == lo) & (lo != 0) | (res.alpha == hi) & (hi != 0)
    assert np.all(margin[at_zero] >= 1 - tol)
    assert np.all(margin[at_C] <= 1 + tol)
    assert np.allclose(margin[res.free], 1, atol=tol)
    assert np.all(res.alpha >= lo) and np.all(res.alpha <= hi)


@pytest.mark.parametrize("lam", [1e-3, 1e-2, 0.1])
def test_svm_exact_against_generic_solver(lam: float) -> None:
    X, y = classification(50, 5)
    K = rbf(X, X)
    res = svm_fit(K, y, lam)
    assert res.certificate.ok and res.certificate.kind == "relative_duality_gap"
    assert res.gap <= 1e-10 * res.primal
    assert res.primal == pytest.approx(hinge_primal(K, y, lam, res.alpha), rel=1e-14)
    assert res.dual == pytest.approx(hinge_dual(K, y, lam, res.alpha), rel=1e-12)
    assert duality_gap(K, y, res.alpha, res.lower, res.upper, lam) == pytest.approx(
        res.gap, abs=1e-12 * res.primal)
    _check_svm_kkt(K, y, res)
    lo, hi = svm_box(y, lam)
    ref = reference_box_dual(K, y, lo, hi)
    # weak duality: P(ours) − gap ≤ D(ours) ≤ P* ≤ P(ref), and D(ref) ≤ P* ≤ P(ours) ...
    assert res.primal <= hinge_primal(K, y, lam, ref) + res.gap + 1e-15
    assert res.dual >= hinge_dual(K, y, lam, ref) - res.gap - 1e-15
    # ... and the generic solver, run to its limit, agrees with ours to its own accuracy
    assert res.primal == pytest.approx(hinge_primal(K, y, lam, ref), rel=1e-6)


def test_svm_dual_in_the_papers_scaling() -> None:
    """D(α) = max_β Σβ − (1/(4λ))ΣΣ β_iβ_j y_iy_j K_ij, 0 ≤ β ≤ 1/m, with α = βy/(2λ)."""
    X, y = classification(30, 16)
    K = rbf(X, X)
    lam = 0.02
    res = svm_fit(K, y, lam)
    beta = 2 * lam * y * res.alpha
    assert np.all(beta >= 0) and np.all(beta <= 1 / 30 + 1e-15)
    Q = np.outer(y, y) * K
    d_beta = beta.sum() - beta @ Q @ beta / (4 * lam)
    assert d_beta == pytest.approx(res.dual, rel=1e-12)
    assert d_beta == pytest.approx(res.primal, rel=1e-10)      # strong duality
    # f = (1/(2λ)) Σ β_i y_i K(x_i, ·)
    np.testing.assert_allclose(K @ (beta * y) / (2 * lam), K @ res.alpha, rtol=1e-12, atol=1e-14)


def test_svm_against_random_feasible_points() -> None:
    X, y = classification(40, 6)
    K = rbf(X, X)
    lam = 0.01
    res = svm_fit(K, y, lam)
    lo, hi = svm_box(y, lam)
    rng = np.random.default_rng(0)
    for _ in range(200):
        a = lo + (hi - lo) * rng.uniform(size=40) ** rng.choice([0.2, 1.0, 5.0])
        # any function is primal-feasible; any box point is dual-feasible (weak duality)
        assert hinge_primal(K, y, lam, a) >= res.primal - 1e-14
        assert hinge_dual(K, y, lam, a) <= res.primal + 1e-14
        assert hinge_dual(K, y, lam, a) <= res.dual + 1e-14
        b = res.alpha + 1e-3 * rng.standard_normal(40)          # unconstrained perturbation
        assert hinge_primal(K, y, lam, b) >= res.primal - 1e-14


def test_svm_reports_non_convergence() -> None:
    X, y = classification(60, 7)
    K = rbf(X, X)
    with pytest.raises(CertificateError, match="svm_fit") as err:
        svm_fit(K, y, 1e-3, max_iter=1)
    assert not err.value.certificate.converged
    assert err.value.result is not None and err.value.result.alpha.shape == (60,)
    res = svm_fit(K, y, 1e-3, max_iter=1, on_failure="return")
    assert not res.certificate.converged and not res.certificate.ok
    assert res.certificate.details["status"] == "max_iter"
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        svm_fit(K, y, 1e-3, max_iter=1, on_failure="warn")
    assert any("svm_fit" in str(x.message) for x in w)
    # an unreachable tolerance stops (stalled or max_iter) and is reported, not returned
    with pytest.raises(CertificateError):
        svm_fit(K, y, 1e-2, tol=0.0, max_iter=300)


def test_svm_degenerate_kernels() -> None:
    X, y = classification(40, 8)
    # duplicated points (singular Gram matrix) and a rank-3 polynomial kernel
    Xd = np.vstack([X, X[:10]])
    yd = np.concatenate([y, y[:10]])
    for K, yy in ((rbf(Xd, Xd), yd), (X @ X.T + 1.0, y)):
        for lam in (1e-3, 0.1):
            res = svm_fit(K, yy, lam)
            assert res.certificate.ok
            _check_svm_kkt(K, yy, res, tol=1e-6)


def test_svm_warm_start_and_input_checks() -> None:
    X, y = classification(40, 9)
    K = rbf(X, X)
    res = svm_fit(K, y, 0.01)
    warm = svm_fit(K, y, 0.01, alpha0=res.alpha)
    assert warm.iterations <= 1 and warm.certificate.ok
    with pytest.raises(ValueError, match="-1 or \\+1"):
        svm_fit(K, np.where(y > 0, 1.0, 0.0), 0.01)
    with pytest.raises(ValueError, match="on_failure"):
        svm_fit(K, y, 0.01, max_iter=1, on_failure="ignore")


def test_svm_sensitivity_respects_theorem2() -> None:
    """Seed 000 §5.2: C_L = 1, γ = 2, so ‖f_z − f_z̄‖_K ≤ κ/(λm) (κ = 1 here)."""
    rng = np.random.default_rng(12)
    X, y = classification(30, 10)
    lam = 0.02
    base = svm_fit(rbf(X, X), y, lam)
    for _ in range(4):
        j = int(rng.integers(30))
        Xb, yb = X.copy(), y.copy()
        Xb[j] = rng.standard_normal(2) * 2
        yb[j] = -y[j]
        other = svm_fit(rbf(Xb, Xb), yb, lam)
        U = np.vstack([X, Xb[j:j + 1]])
        coef = np.concatenate([base.alpha, [0.0]])
        coef[:30] -= np.where(np.arange(30) == j, 0.0, other.alpha)
        coef[30] -= other.alpha[j]
        dist = math.sqrt(max(coef @ rbf(U, U) @ coef, 0.0))
        assert dist <= 1.0 / (lam * 30)


# ----------------------------------------------------------------------------- pinball


@pytest.mark.parametrize("tau", [0.1, 0.5, 0.9])
def test_pinball_exact_against_generic_solver(tau: float) -> None:
    X, y = regression(45, 13)
    K = rbf(X, X)
    lam = 3e-3
    res = pinball_fit(K, y, lam, tau)
    assert res.certificate.ok and res.gap <= 1e-10 * res.primal
    assert res.primal == pytest.approx(pinball_primal(K, y, lam, tau, res.alpha), rel=1e-14)
    C = 1 / (2 * lam * 45)
    lo, hi = np.full(45, (tau - 1) * C), np.full(45, tau * C)
    ref = reference_box_dual(K, y, lo, hi)
    assert res.primal <= pinball_primal(K, y, lam, tau, ref) + res.gap + 1e-15
    assert res.dual >= pinball_dual(K, y, lam, ref) - res.gap - 1e-15
    assert res.primal == pytest.approx(pinball_primal(K, y, lam, tau, ref), rel=1e-6)
    # KKT: residual r = y − f; r > 0 ⇒ α = τC, r < 0 ⇒ α = (τ − 1)C, free ⇒ r = 0
    r = y - K @ res.alpha
    assert np.allclose(res.alpha[r > 1e-8], tau * C)
    assert np.allclose(res.alpha[r < -1e-8], (tau - 1) * C)
    assert np.allclose(r[res.free], 0, atol=1e-8)
    rng = np.random.default_rng(1)
    for _ in range(100):
        a = lo + (hi - lo) * rng.uniform(size=45)
        assert pinball_primal(K, y, lam, tau, a) >= res.primal - 1e-14
        assert pinball_dual(K, y, lam, a) <= res.primal + 1e-14


def test_pinball_reports_non_convergence_and_bad_tau() -> None:
    X, y = regression(50, 14)
    K = rbf(X, X)
    with pytest.raises(CertificateError, match="pinball_fit"):
        pinball_fit(K, y, 1e-3, 0.5, max_iter=1)
    for tau in (0.0, 1.0, 1.5):
        with pytest.raises(ValueError, match="tau"):
            pinball_fit(K, y, 1e-3, tau)


def test_small_lambda_uses_continuation_and_is_exact() -> None:
    X, y = classification(80, 15)
    K = rbf(X, X)
    lam = 1e-5                                  # C·max K_ii = 625: continuation path
    a = svm_fit(K, y, lam)
    b = svm_fit(K, y, lam, continuation=False)
    assert a.certificate.ok and b.certificate.ok
    assert a.primal == pytest.approx(b.primal, rel=1e-9)


# ----------------------------------------------------------------------------- properties


@settings(max_examples=25, deadline=None)
@given(m=st.integers(2, 25), seed=st.integers(0, 10_000), loglam=st.floats(-4, 0))
def test_property_svm_certified_and_dual_bounds(m: int, seed: int, loglam: float) -> None:
    X, y = classification(m, seed)
    K = rbf(X, X)
    lam = 10.0**loglam
    res = svm_fit(K, y, lam)
    assert res.certificate.ok
    assert res.dual <= res.primal + 1e-12 * res.primal
    _check_svm_kkt(K, y, res, tol=1e-6)
    rng = np.random.default_rng(seed)
    a = rng.uniform(res.lower, res.upper)
    assert hinge_dual(K, y, lam, a) <= res.primal * (1 + 1e-12)


@settings(max_examples=20, deadline=None)
@given(m=st.integers(2, 20), seed=st.integers(0, 10_000), loglam=st.floats(-4, 0),
       tau=st.floats(0.05, 0.95))
def test_property_pinball_certified(m: int, seed: int, loglam: float, tau: float) -> None:
    X, y = regression(m, seed)
    K = rbf(X, X)
    res = pinball_fit(K, y, 10.0**loglam, tau)
    assert res.certificate.ok and res.gap >= -1e-12 * res.primal


@settings(max_examples=20, deadline=None)
@given(m=st.integers(2, 25), seed=st.integers(0, 10_000), loglam=st.floats(-3, 0.5))
def test_property_kls_and_neighbours(m: int, seed: int, loglam: float) -> None:
    X, y = regression(m, seed)
    K = rbf(X, X)
    lam = 10.0**loglam
    res = kls_fit(K, y, lam)
    ref = KernelRidge(alpha=lam * m, kernel="precomputed").fit(K, y).dual_coef_
    np.testing.assert_allclose(res.alpha, ref, rtol=1e-8, atol=1e-12)
    rng = np.random.default_rng(seed)
    xc = rng.uniform(-1, 1, (1, 2))
    yc = float(rng.uniform(-2, 2))
    scan = neighbour_scan(K, y, lam, rbf(xc, X), 1.0, yc)
    j = int(rng.integers(m))
    _, d, _ = _brute_force(K, y, lam, j, rbf(xc, X)[0], 1.0, yc)
    assert scan.rkhs_dist[j, 0] == pytest.approx(d, rel=1e-8, abs=1e-12)


# ----------------------------------------------------------------------------- compiled path
#
# svm_fit / pinball_fit run the compiled (numba) coordinate descent + face-Newton path of
# simulations._svm_numba whenever numba is installed.  References, all independent of it:
# the previous pure-NumPy path (``_fit_box_dual(..., engine="numpy")``), L-BFGS-B on the dual
# (``reference_box_dual``) and direct NumPy evaluations of the quantities the kernels return.


needs_numba = pytest.mark.skipif(importlib.util.find_spec("numba") is None,
                                 reason="numba is not installed")


def _kernels():
    from simulations import _svm_numba

    return _svm_numba


def _fit(K, y, lam, engine, *, tau=None, alpha0=None, tol=1e-10, continuation=True):
    K = np.asarray(K, float)
    m = len(y)
    C = 1 / (2 * lam * m)
    if tau is None:
        lo, hi = np.minimum(0, y * C), np.maximum(0, y * C)
        loss, name, init = solvers_mod._hinge_loss, "hinge", "zero"
    else:
        lo, hi = np.full(m, (tau - 1) * C), np.full(m, tau * C)
        loss, name, init = solvers_mod._pinball_loss(tau), "pinball", "sign"
    return solvers_mod._fit_box_dual(K, y, lam, lo, hi, loss, name, "test", tol, 20_000, alpha0,
                                     "raise", 200, continuation, init=init, engine=engine)


def _assert_same_optimum(K, y, lam, a, b, kappa=1.0):
    """Two certified solutions of the same strongly convex problem: their primal and dual
    values bracket one optimum, and ‖f_a − f_b‖_K ≤ sqrt(gap_a/λ) + sqrt(gap_b/λ).

    The slack is rounding: J and D are differences of terms of size 2λ|y|ᵀ|α| and λ|α|ᵀ|K||α|,
    which exceed J by far when the box is wide (tiny λ)."""
    terms = max(2 * lam * np.abs(y) @ np.abs(r.alpha) + lam * np.abs(r.alpha) @ np.abs(K)
                @ np.abs(r.alpha) for r in (a, b))
    slack = 1e-13 * (max(a.primal, b.primal) + terms)
    assert a.dual <= b.primal + slack and b.dual <= a.primal + slack
    assert abs(a.primal - b.primal) <= a.gap + b.gap + slack
    diff = a.alpha - b.alpha
    dist = math.sqrt(max(diff @ K @ diff, 0.0))
    assert dist <= a.rkhs_error_bound + b.rkhs_error_bound + 1e-7
    # and so the fitted values agree pointwise to κ times that bound
    assert np.max(np.abs(K @ diff)) <= kappa * (dist + 1e-7)


@needs_numba
def test_compiled_path_is_the_default() -> None:
    X, y = classification(30, 21)
    res = svm_fit(rbf(X, X), y, 0.01)
    assert res.certificate.details["engine"] == "numba"
    assert _fit(rbf(X, X), y, 0.01, "numpy").certificate.details["engine"] == "numpy"


@needs_numba
@pytest.mark.parametrize("m,lam", [(40, 0.3), (60, 1e-2), (80, 1e-3), (80, 1e-4), (150, 1e-4),
                                   (300, 1e-4), (120, 1e-5)])
def test_compiled_svm_matches_numpy_path_and_lbfgs(m: int, lam: float) -> None:
    X, y = classification(m, 100 + m)
    K = rbf(X, X)
    new = svm_fit(K, y, lam)
    old = _fit(K, y, lam, "numpy")
    for r in (new, old):
        assert r.certificate.ok and r.gap <= 1e-10 * r.primal
        assert r.primal == pytest.approx(hinge_primal(K, y, lam, r.alpha), rel=1e-13)
        assert r.dual == pytest.approx(hinge_dual(K, y, lam, r.alpha), rel=1e-11)
    _assert_same_optimum(K, y, lam, new, old)
    _check_svm_kkt(K, y, new, tol=1e-6)
    assert new.primal == pytest.approx(old.primal, rel=1e-9)
    if m <= 80:                     # a generic bound-constrained optimiser on the same dual
        lo, hi = svm_box(y, lam)
        ref = reference_box_dual(K, y, lo, hi)
        assert new.primal <= hinge_primal(K, y, lam, ref) + new.gap + 1e-15
        assert new.dual >= hinge_dual(K, y, lam, ref) - new.gap - 1e-15
        assert new.primal == pytest.approx(hinge_primal(K, y, lam, ref), rel=1e-6)


@needs_numba
@pytest.mark.parametrize("lam", [1e-2, 1e-4])
def test_compiled_svm_warm_start(lam: float) -> None:
    X, y = classification(120, 31)
    K = rbf(X, X)
    cold = svm_fit(K, y, lam)
    lo, hi = svm_box(y, lam)
    rng = np.random.default_rng(3)
    starts = [cold.alpha,                                   # the optimum itself
              svm_fit(K, y, 3 * lam).alpha,                 # a neighbouring λ (clipped)
              rng.uniform(lo, hi),                          # a random feasible point
              10 * (hi - lo) * rng.standard_normal(120)]    # infeasible: projected
    for a0 in starts:
        warm = svm_fit(K, y, lam, alpha0=a0)
        assert warm.certificate.ok
        _assert_same_optimum(K, y, lam, warm, cold)
    assert svm_fit(K, y, lam, alpha0=cold.alpha).iterations <= 1
    # a neighbouring data set (one label flipped), warm-started as the DP pairs are
    yb = y.copy()
    yb[7] = -yb[7]
    ref = _fit(K, yb, lam, "numpy")
    warm = svm_fit(K, yb, lam, alpha0=cold.alpha)
    _assert_same_optimum(K, yb, lam, warm, ref)


@needs_numba
@pytest.mark.parametrize("lam", [1e-2, 1e-4])
def test_compiled_svm_singular_gram(lam: float) -> None:
    """Duplicated points (singular face blocks: the compiled Newton step hands over to the
    LAPACK eigen-decomposition path), a rank-3 linear kernel and a zero row (K_jj = 0)."""
    X, y = classification(60, 41)
    Xd = np.vstack([X, X[:20], X[:5]])
    yd = np.concatenate([y, y[:20], y[:5]])
    Kd = rbf(Xd, Xd)
    Klin = X @ X.T + 1.0
    Kz = Klin.copy()
    Kz[3, :] = Kz[:, 3] = 0.0
    for K, yy in ((Kd, yd), (Klin, y), (Kz, y)):
        new = svm_fit(K, yy, lam)
        old = _fit(K, yy, lam, "numpy")
        assert new.certificate.ok and old.certificate.ok
        kappa = math.sqrt(float(np.max(np.diag(K))))
        _assert_same_optimum(K, yy, lam, new, old, kappa=kappa)
        _check_svm_kkt(K, yy, new, tol=1e-6)
    # duplicated points with identical labels: the optimum does not depend on how the
    # coefficient is split between the copies, only on their sum
    new = svm_fit(Kd, yd, lam)
    f = Kd @ new.alpha
    np.testing.assert_allclose(f[60:80], f[:20], rtol=0, atol=1e-9)


@needs_numba
def test_compiled_svm_small_lambda_continuation() -> None:
    X, y = classification(100, 51)
    K = rbf(X, X)
    for lam in (1e-5, 1e-6):                   # C·max K_ii = 500, 5000: continuation path
        a = svm_fit(K, y, lam)
        b = svm_fit(K, y, lam, continuation=False)
        c = _fit(K, y, lam, "numpy")
        assert a.certificate.ok and b.certificate.ok
        _assert_same_optimum(K, y, lam, a, b)
        _assert_same_optimum(K, y, lam, a, c)


@needs_numba
@pytest.mark.parametrize("loss", ["hinge", "pinball"])
def test_compiled_path_on_degenerate_low_rank_problems(loss: str) -> None:
    """A rank-15 polynomial kernel with tiny λ (C·max K_ii ≈ 7·10⁵): many coefficients free
    on singular faces, where coordinate descent drifts; the compiled path hands such problems
    to the NumPy path (greedy working sets) and must still return the certified optimum."""
    X, y = classification(139, 0, d=4)
    K = (X @ X.T + 1) ** 2
    lam = 1e-6
    tau = 0.25 if loss == "pinball" else None
    new = svm_fit(K, y, lam) if tau is None else pinball_fit(K, y, lam, tau)
    old = _fit(K, y, lam, "numpy", tau=tau)
    assert new.certificate.ok and new.certificate.details["engine"].startswith("numba")
    _assert_same_optimum(K, y, lam, new, old, kappa=math.sqrt(float(np.max(np.diag(K)))))


@needs_numba
def test_compiled_svm_memory_layouts() -> None:
    X, y = classification(70, 61)
    K = rbf(X, X)
    ref = svm_fit(K, y, 1e-3)
    big = np.zeros((90, 90))
    big[:70, :70] = K
    for KK in (np.asfortranarray(K), big[:70, :70], K.tolist()):
        res = svm_fit(KK, y, 1e-3)
        assert res.certificate.ok
        _assert_same_optimum(K, y, 1e-3, res, ref)


@needs_numba
@pytest.mark.parametrize("tau,lam", [(0.5, 1e-2), (0.9, 1e-3), (0.1, 1e-4)])
def test_compiled_pinball_matches_numpy_path(tau: float, lam: float) -> None:
    X, y = regression(90, 71)
    K = rbf(X, X)
    new = pinball_fit(K, y, lam, tau)
    old = _fit(K, y, lam, "numpy", tau=tau)
    assert new.certificate.ok and new.certificate.details["engine"] == "numba"
    assert new.primal == pytest.approx(pinball_primal(K, y, lam, tau, new.alpha), rel=1e-13)
    _assert_same_optimum(K, y, lam, new, old)
    C = 1 / (2 * lam * 90)
    lo, hi = np.full(90, (tau - 1) * C), np.full(90, tau * C)
    ref = reference_box_dual(K, y, lo, hi)
    assert new.primal == pytest.approx(pinball_primal(K, y, lam, tau, ref), rel=1e-6)


@needs_numba
def test_compiled_svm_loose_tolerance_and_budget() -> None:
    X, y = classification(200, 81)
    K = rbf(X, X)
    exact = svm_fit(K, y, 1e-4)
    loose = svm_fit(K, y, 1e-4, tol=1e-3)
    assert loose.certificate.ok and loose.certificate.value <= 1e-3
    assert exact.primal <= loose.primal <= exact.primal + loose.gap + 1e-15
    with pytest.raises(CertificateError) as err:
        svm_fit(K, y, 1e-4, max_iter=3)
    assert err.value.result.iterations <= 3
    assert err.value.certificate.details["status"] == "max_iter"


def test_numpy_fallback_when_numba_is_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    X, y = classification(50, 91)
    K = rbf(X, X)
    from simulations import _compiled

    monkeypatch.setitem(_compiled._MODULES, "_svm_numba", None)      # as if numba could not be imported
    res = svm_fit(K, y, 1e-3)
    assert res.certificate.ok and res.certificate.details["engine"] == "numpy"
    with pytest.raises(RuntimeError, match="numba"):
        _fit(K, y, 1e-3, "numba")


# -- the kernels themselves, against direct NumPy computations


def _projected_gradient(a, g, lo, hi):
    return np.where(a <= lo, np.minimum(g, 0), np.where(a >= hi, np.maximum(g, 0), g))


@needs_numba
@pytest.mark.parametrize("lam,eps", [(1e-2, 1e-3), (1e-4, 1e-6)])
def test_kernel_cd_sweeps_reaches_its_tolerance(lam: float, eps: float) -> None:
    nbk = _kernels()
    X, y = classification(150, 101)
    K = rbf(X, X)
    lo, hi = svm_box(y, lam)
    a = np.zeros(150)
    g = -y.copy()
    obj0 = 0.0
    sweeps, updates, status = nbk.cd_sweeps(K, y, lo, hi, np.diag(K).copy(), a, g, eps,
                                            100_000, 7)
    assert status == nbk.CONVERGED and sweeps >= 1 and updates >= 1
    assert np.all(a >= lo) and np.all(a <= hi)
    np.testing.assert_allclose(g, K @ a - y, rtol=0, atol=1e-11)     # running gradient exact
    assert np.max(np.abs(_projected_gradient(a, K @ a - y, lo, hi))) <= eps * (1 + 1e-6)
    assert 0.5 * a @ K @ a - y @ a < obj0
    # the gap bound that fixes the solver's tolerance: gap ≤ 2λ Σ(hi − lo)·max|PG|
    viol, gsum, nfree = nbk.kkt_violation(a, g, lo, hi)
    assert viol <= eps * (1 + 1e-6)
    assert 2 * lam * gsum == pytest.approx(duality_gap(K, y, a, lo, hi, lam), rel=1e-10)
    assert 2 * lam * gsum <= 2 * lam * np.sum(hi - lo) * viol * (1 + 1e-12)
    assert nfree == int(np.count_nonzero((a > lo) & (a < hi)))
    # a budget of one sweep is respected and reported
    a1, g1 = np.zeros(150), -y.copy()
    assert nbk.cd_sweeps(K, y, lo, hi, np.diag(K).copy(), a1, g1, eps, 1, 7)[::2] == (
        1, nbk.MAX_SWEEPS)


@needs_numba
def test_kernel_face_newton_solves_the_face_exactly() -> None:
    """With every coordinate free and the unconstrained optimum inside the box, one step
    lands on K⁻¹y; when the box cuts, the step decreases the objective and stays feasible."""
    nbk = _kernels()
    rng = np.random.default_rng(5)
    X = rng.standard_normal((40, 3))
    K = rbf(X, X, s=1.5) + 0.1 * np.eye(40)
    y = rng.standard_normal(40)
    star = np.linalg.solve(K, y)
    lo, hi = -2 * np.abs(star) - 1, 2 * np.abs(star) + 1
    a = 0.5 * star
    g = K @ a - y
    assert nbk.face_newton(K, a, g, lo, hi, 8) == nbk.NEWTON_OK
    np.testing.assert_allclose(a, star, rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(g, K @ a - y, atol=1e-9)
    lo, hi = -0.3 * np.abs(star), 0.3 * np.abs(star) + 1e-3
    a = np.clip(0.1 * star, lo, hi)
    g = K @ a - y
    obj = 0.5 * a @ K @ a - y @ a
    assert nbk.face_newton(K, a, g, lo, hi, 8) == nbk.NEWTON_OK
    assert np.all(a >= lo) and np.all(a <= hi)
    assert 0.5 * a @ K @ a - y @ a < obj
    np.testing.assert_allclose(g, K @ a - y, atol=1e-9)
    # a singular face is handed back untouched
    Ks = np.ones((4, 4))
    a = np.full(4, 0.1)
    g = Ks @ a - np.ones(4)
    a0, g0 = a.copy(), g.copy()
    assert nbk.face_newton(Ks, a, g, np.zeros(4), np.ones(4), 8) == nbk.NEWTON_SINGULAR
    np.testing.assert_array_equal(a, a0)
    np.testing.assert_array_equal(g, g0)


@needs_numba
def test_kernel_kdot() -> None:
    nbk = _kernels()
    rng = np.random.default_rng(6)
    A = rng.standard_normal((30, 30))
    K = A @ A.T
    a = rng.standard_normal(30) * (rng.uniform(size=30) < 0.5)
    np.testing.assert_allclose(nbk.kdot(K, a), K @ a, rtol=1e-12, atol=1e-12)


@needs_numba
def test_compiled_svm_newton_step_on_faces_above_the_compiled_cap(monkeypatch: pytest.MonkeyPatch) -> None:
    """Faces larger than ``newton_cap`` (small λ, large m: 1191 free coefficients at m = 6400 on
    seed 000's Theorem 4 schedule) take the LAPACK Newton step instead of none: coordinate descent
    alone stalled there above the 1e-10 gap.  With the cap at 10 every face of this problem is
    "large"; the certified optimum must be the NumPy path's, in few iterations."""
    import functools

    from simulations.kernels import PeriodicSobolevKernel

    rng = np.random.default_rng(12)
    m, lam = 500, 0.01
    x = rng.uniform(0, 1, m)
    y = np.where(np.sin(2 * np.pi * x) + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
    K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)(x)
    default = svm_fit(K, y, lam)
    monkeypatch.setattr(solvers_mod, "_box_dual_fast",
                        functools.partial(solvers_mod._box_dual_fast, newton_cap=10))
    capped = svm_fit(K, y, lam)
    assert capped.certificate.ok and default.certificate.ok
    nfree = int(np.count_nonzero((capped.alpha > capped.lower) & (capped.alpha < capped.upper)))
    assert nfree > 10                                    # the large-face branch was needed
    # without a Newton step on those faces (the code before) the same run stalls at a gap of
    # 6.7e-10 after 8560 iterations: certificate.ok above fails
    assert capped.iterations <= 2 * default.iterations
    ref = _fit(K, y, lam, "numpy")
    _assert_same_optimum(K, y, lam, capped, ref)
    _assert_same_optimum(K, y, lam, capped, default)
    _check_svm_kkt(K, y, capped, tol=1e-6)
