"""Tests of simulations.large_margin (seed 004, Pathak & Raj 2010, §3–§4).

Independent computations: hand-computed loss values, central finite differences of the loss,
the per-example gradient of ``bounds.papers.pr.grad_class`` (a separate implementation),
a scipy reference solve in the Burer–Monteiro parametrisation Φ_c = R_cR_cᵀ, the exact
unbounded ray, Kolmogorov–Smirnov tests of the noise against the Γ and Beta laws.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize, stats

from bounds.papers import pr as prb
from simulations import large_margin as lm
from simulations.solvers import CertificateError

H = 0.5


def _data(n=12, d=1, K=2, seed=0, sigma=0.5):
    return lm.gaussian_classes(n, d, K, np.random.default_rng(seed), sigma=sigma)


# --------------------------------------------------------------------------- loss (6)
def test_huber_values_by_hand():
    # corrected: 0 | (u + h)²/(4h) | u ; h = 1/2
    assert lm.huber(-0.6, H).item() == 0.0
    assert lm.huber(0.1, H).item() == pytest.approx(0.36 / 2)
    assert lm.huber(0.7, H).item() == pytest.approx(0.7)
    # margin: the same at u + 1
    assert lm.huber(-0.9, H, "margin").item() == pytest.approx(0.36 / 2)
    # printed (6): (h − u)²/(4h) in the middle, −u above h
    assert lm.huber(0.1, H, "paper").item() == pytest.approx(0.16 / 2)
    assert lm.huber(0.7, H, "paper").item() == pytest.approx(-0.7)
    # continuity of the corrected loss at ±h, the printed one jumps by h there
    e = 1e-9
    assert abs(lm.huber(H + e, H) - lm.huber(H - e, H)) < 1e-6
    assert abs(lm.huber(-H - e, H, "paper") - lm.huber(-H + e, H, "paper")) == pytest.approx(H, abs=1e-6)
    with pytest.raises(ValueError, match="loss"):
        lm.huber(0.0, H, "bogus")


@pytest.mark.parametrize("loss", ["corrected", "margin"])
def test_gradient_matches_finite_differences(loss):
    X, y = _data(10, d=2, K=3, seed=1)
    rng = np.random.default_rng(2)
    Phi = lm.random_psd(3, 2, rng)
    G = lm.loss_grad(Phi, X, y, H, loss)
    for _ in range(5):
        D = rng.standard_normal(Phi.shape)
        D = 0.5 * (D + np.swapaxes(D, 1, 2))
        t = 1e-6
        fd = (lm.loss_value(Phi + t * D, X, y, H, loss) - lm.loss_value(Phi - t * D, X, y, H, loss)) / (2 * t)
        assert fd == pytest.approx(float(np.sum(G * D)), rel=1e-5, abs=1e-7)


def test_per_example_gradient_matches_bounds_implementation():
    rng = np.random.default_rng(3)
    for _ in range(20):
        K, d = int(rng.integers(2, 5)), int(rng.integers(1, 4))
        Phi = lm.random_psd(K, d, rng, scale=3.0)
        x = rng.uniform(-1, 1, d) / math.sqrt(d)
        y, c = (int(v) for v in rng.integers(0, K, 2))
        np.testing.assert_allclose(lm.per_example_class_grad(Phi, x, y, c, H), prb.grad_class(Phi, x, y, c, H),
                                   atol=1e-12)


def test_objective_parts():
    X, y = _data()
    Phi = lm.random_psd(2, 1, np.random.default_rng(4))
    lam = 0.7
    assert lm.regulariser(Phi, lam) == pytest.approx(lam * (Phi[0, 0, 0] + Phi[1, 0, 0]))
    b = np.array([[0.3, -1.0], [2.0, 0.1]])
    jp = lm.perturbed_objective(Phi, X, y, lam, H, b)
    assert jp == pytest.approx(lm.objective(Phi, X, y, lam, H) + float(np.sum(b * Phi[0]) + np.sum(b * Phi[1])))
    # the corrected objective agrees with the bounds module's (independent) implementation
    assert lm.objective(Phi, X, y, lam, H) == pytest.approx(prb.objective(Phi, X, y, lam, H))


def test_paper_loss_makes_J_unbounded():
    X, y = _data()
    j0, j1 = lm.paper_loss_unbounded_ray(X, y, 2, 1.0, H, t=1e3)
    _, j2 = lm.paper_loss_unbounded_ray(X, y, 2, 1.0, H, t=2e3)
    n0 = int(np.sum(y == y[0]))
    assert j1 == pytest.approx(-1e3 * n0) and j2 == pytest.approx(-2e3 * n0)   # J = −t·n_(y0) along the ray
    assert j2 < j1 < j0
    with pytest.raises(ValueError, match="paper"):
        lm.solve(X, y, 2, 1.0, H, loss="paper")


# --------------------------------------------------------------------------- solver
def test_known_optimum_zero_when_B_dominates():
    X, y = _data(15)
    b = 50.0 * np.eye(2)  # B = λI_Φ + 50 I ≻ ∂L/∂Φ at 0: Φ = 0 is optimal, J_p(0) = n(C−1)h/4
    res = lm.solve(X, y, 2, 1.0, H, b=b)
    assert res.status == "optimal" and res.certificate.ok
    assert np.abs(res.Phi).max() < 1e-10
    assert res.value == pytest.approx(15 * H / 4)
    assert res.lower == pytest.approx(15 * H / 4)


def _scipy_reference(X, y, K, lam, b, starts=6, seed=0):
    """min J_p over Φ_c = R_cR_cᵀ (R_c lower triangular 2×2), BFGS from several starts."""
    rng = np.random.default_rng(seed)
    tri = np.tril_indices(2)

    def f(v):
        R = np.zeros((K, 2, 2))
        for k in range(K):
            R[k][tri] = v[3 * k:3 * k + 3]
        Phi = np.einsum("kij,klj->kil", R, R)
        return lm.perturbed_objective(Phi, X, y, lam, H, b)

    best = math.inf
    for _ in range(starts):
        r = optimize.minimize(f, rng.normal(scale=0.5, size=3 * K), method="BFGS", options={"gtol": 1e-10})
        best = min(best, r.fun)
    return best


def test_solver_matches_scipy_reference_on_tiny_instance():
    X, y = _data(12, d=1, K=2, seed=5)
    b = np.array([[0.2, 0.1], [-0.3, 0.4]])
    res = lm.solve(X, y, 2, 1.0, H, b=b, tol=1e-10)
    ref = _scipy_reference(X, y, 2, 1.0, b)
    assert res.status == "optimal"
    assert res.lower <= ref + 1e-9                 # the certified lower bound is below any feasible value
    assert res.value <= ref + 1e-6                 # and the solver is at least as good as the reference
    assert res.value - res.lower <= 1e-9 * max(1, abs(res.value))


def test_unbounded_detected_with_exact_ray():
    X, y = _data(12)
    b = np.array([[0.1, 0.0], [0.0, -0.2]])        # b_(d+1,d+1) < 0 and λI_Φ cannot help there
    res = lm.solve(X, y, 2, 1.0, H, b=b)
    assert res.status == "unbounded" and res.Phi is None and res.value == -math.inf
    L0 = lm.loss_value(np.zeros((2, 2, 2)), X, y, H)
    for t in (10.0, 1000.0):
        assert lm.perturbed_objective(t * res.direction, X, y, 1.0, H, b) == pytest.approx(L0 + t * res.slope)
    assert res.slope == pytest.approx(2 * -0.2)


def test_not_converged_is_never_returned_as_solution():
    X, y = _data(20, d=2, K=3, seed=6, sigma=0.35)
    with pytest.raises(CertificateError) as err:
        lm.solve(X, y, 3, 0.1, H, max_iter=3, check_every=1, tol=1e-14)
    assert err.value.result.status == "not_converged" and err.value.result.Phi is None
    r = lm.solve(X, y, 3, 0.1, H, max_iter=3, check_every=1, tol=1e-14, on_failure="return")
    assert r.status == "not_converged" and r.Phi is None and "last_iterate" in r.details


def test_dual_bound_is_a_lower_bound_everywhere():
    X, y = _data(15, d=2, K=3, seed=7, sigma=0.35)
    rng = np.random.default_rng(8)
    b = lm.sym(rng.normal(size=(3, 3))) * 0.1 + 0.5 * np.eye(3)
    res = lm.solve(X, y, 3, 1.0, H, b=b)
    for _ in range(10):
        Phi = lm.random_psd(3, 2, rng, scale=float(rng.uniform(0.01, 5)))
        D, _ = lm.dual_lower_bound(Phi, X, y, 3, 1.0, H, b)
        assert D <= res.value + 1e-9
        assert D <= lm.perturbed_objective(Phi, X, y, 1.0, H, b) + 1e-9


def test_unperturbed_J_infimum_is_the_closure_minimum():
    X, y = _data(20, d=1, K=2, seed=9, sigma=0.5)
    res = lm.solve(X, y, 2, 1.0, H, cone="closure")
    assert res.status == "optimal"
    # PSD matrices approach the closure value: Φ_c + τ·I_Φ, plus a common shift making them PSD
    vals = []
    for tau in (1e-1, 1e-2, 1e-3):
        P = res.Phi + tau * lm.i_phi(1)[None]
        shift = max(0.0, -min(np.linalg.eigvalsh(Pc)[0] for Pc in P)) * 2 + 1.0
        need = max(float(P[k, 0, 1] ** 2 / P[k, 0, 0] - P[k, 1, 1]) for k in range(2)) + 1.0
        P[:, 1, 1] += max(shift, need)
        assert all(np.linalg.eigvalsh(Pc)[0] >= -1e-12 for Pc in P)
        vals.append(lm.objective(P, X, y, 1.0, H))
    assert vals[0] >= vals[1] >= vals[2] >= res.lower - 1e-9
    assert vals[2] - res.value < 0.05
    with pytest.raises(ValueError, match="closure"):
        lm.solve(X, y, 2, 1.0, H, b=np.eye(2), cone="closure")


def test_kkt_residual_separates_neighbours():
    rng = np.random.default_rng(11)
    X, y = lm.gaussian_classes(40, 1, 2, rng, sigma=0.5)
    X1, y1 = X.copy(), y.copy()
    X1[-1] = -0.95 * np.sign(X[-1, 0])
    y1[-1] = 1 - y[-1]
    found = 0
    for _ in range(60):
        b = lm.sample_perturbation(1, 0.5, rng)
        if not lm.is_bounded_below(20.0, b, 1):
            continue
        r = lm.solve(X, y, 2, 20.0, H, b=b, tol=1e-9, max_iter=3000, on_failure="return")
        if r.status != "optimal":
            continue
        own, other = lm.kkt_residual(r.Phi, X, y, H), lm.kkt_residual(r.Phi, X1, y1, H)
        assert own < 1e-6
        if other > 1e-3:
            found += 1
    assert found >= 1


# --------------------------------------------------------------------------- noise (7)
@pytest.mark.parametrize("d,eps", [(1, 0.5), (2, 2.0)])
def test_noise_norm_and_direction_laws(d, eps):
    rng = np.random.default_rng(12)
    b = lm.sample_perturbation(d, eps, rng, size=4000)
    D = (d + 1) ** 2
    r = np.linalg.norm(b, axis=(1, 2))
    assert stats.kstest(r, stats.gamma(a=D, scale=2 / eps).cdf).pvalue > 1e-3
    # one coordinate of a uniform direction on S^(D−1): (u + 1)/2 ~ Beta((D−1)/2, (D−1)/2)
    u = b.reshape(-1, D)[:, 0] / r
    assert stats.kstest((u + 1) / 2, stats.beta((D - 1) / 2, (D - 1) / 2).cdf).pvalue > 1e-3
    # a fixed projection of the direction has the same law (rotation invariance)
    w = np.ones(D) / math.sqrt(D)
    assert stats.kstest((b.reshape(-1, D) @ w / r + 1) / 2, stats.beta((D - 1) / 2, (D - 1) / 2).cdf).pvalue > 1e-3
    # a sampler with the wrong shape (d² entries) is rejected by the same test
    wrong = stats.gamma(a=d * d + 1, scale=2 / eps).rvs(4000, random_state=1)
    assert stats.kstest(wrong, stats.gamma(a=D, scale=2 / eps).cdf).pvalue < 1e-3


def test_norm_law_matches_bounds_statement():
    import warnings

    import bounds

    for d, eps in ((1, 0.5), (3, 0.2)):
        shape, scale = lm.norm_law(d, eps)
        for r in (1.0, 10.0, 40.0):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                v = bounds.value("pr.s4.norm_law", {"b_norm": r, "d": d, "eps": eps})
            assert v == pytest.approx(stats.gamma.pdf(r, a=shape, scale=scale), rel=1e-9)


def test_bounded_below_probability_at_most_half():
    rng = np.random.default_rng(13)
    b = lm.sample_perturbation(1, 1.0, rng, size=4000)
    ok = np.array([lm.is_bounded_below(1000.0, bb, 1) for bb in b])
    assert np.all(b[ok, 1, 1] >= 0)                 # bounded ⇒ b_(d+1,d+1) ≥ 0
    assert abs(ok.mean() - 0.5) < 0.05              # and λ → ∞ leaves only that condition
