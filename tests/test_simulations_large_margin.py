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


# --------------------------------------------------------------------------- the batched solver
def _batch_problem(n, d, K, lam, eps, m, seed, sigma=0.5):
    """Data, m exact draws of b (in the order of m single draws) and three special draws: b = 0
    (B = λI_Φ singular: the repaired dual), an unbounded one and one with Φ = 0 optimal."""
    rng = np.random.default_rng(seed)
    X, y = lm.gaussian_classes(n, d, K, rng, sigma=sigma)
    b = np.array([lm.sample_perturbation(d, eps, rng) for _ in range(m)])
    special = np.array([np.zeros((d + 1, d + 1)), -0.1 * np.eye(d + 1), 50.0 * np.eye(d + 1)])
    return X, y, np.concatenate([special, b])


BATCH_CASES = [  # (n, d, K, lam, eps, loss, tol, max_iter)
    (30, 1, 2, 20.0, 0.5, "corrected", 1e-8, 1500),    # the audit problem's shape
    (20, 2, 3, 30.0, 1.0, "corrected", 1e-6, 1000),    # a Theorem 5.2 check's shape
    (16, 1, 3, 1.0, 100.0, "margin", 1e-7, 600),       # near the boundary: small noise, many stalls
    (12, 1, 2, 0.1, 5.0, "margin", 1e-9, 300),
]


@pytest.mark.parametrize("case", BATCH_CASES)
def test_solve_batch_agrees_with_solve(case):
    n, d, K, lam, eps, loss, tol, max_iter = case
    X, y, b = _batch_problem(n, d, K, lam, eps, 14, seed=int(100 * lam + n))
    kw = dict(loss=loss, tol=tol, max_iter=max_iter, on_failure="return")
    ref = [lm.solve(X, y, K, lam, H, b=bj, **kw) for bj in b]
    got = lm.solve_batch(X, y, K, lam, H, b, **kw)
    assert len(got) == len(b) and [r.details["batch_index"] for r in got] == list(range(len(b)))
    assert [r.status for r in got] == [r.status for r in ref]
    statuses = {r.status for r in ref}
    assert statuses >= {"optimal", "unbounded"}          # the cases exercise both branches
    assert ref[0].details["dual"]["repaired"] and got[0].details["dual"]["repaired"]
    exact = lm._fast_kernels_exact()
    for r, g in zip(ref, got, strict=True):
        if r.status == "unbounded":
            assert g.value == -math.inf and g.slope == r.slope
            np.testing.assert_array_equal(g.direction, r.direction)
            continue
        # the values agree within the certified gaps (each value is within tol of its own dual bound;
        # the bound itself is only feasible up to solve's eigenvalue tolerance, so it may exceed
        # J_p(Φ) by a sliver: negative gaps of ~1e-10 occur with solve as well)
        scale = max(1.0, abs(r.value))
        if r.status == "optimal":
            assert abs(g.value - r.value) <= tol * scale
            assert g.lower <= r.value + tol * scale and r.lower <= g.value + tol * scale
        if exact:   # on this machine: bit for bit the same iteration and certificate
            assert g.details["iterations"] == r.details["iterations"]
            assert g.value == r.value and g.lower == r.lower
            assert g.certificate.value == r.certificate.value
            assert g.details["history_tail"] == r.details["history_tail"]
            assert g.details["dual"] == r.details["dual"]
            if r.status == "optimal":
                np.testing.assert_array_equal(g.Phi, r.Phi)
            else:
                np.testing.assert_array_equal(g.details["last_iterate"], r.details["last_iterate"])
                assert g.details["diverging_norm"] == r.details["diverging_norm"]


def test_solve_batch_fallback_kernels_agree(monkeypatch):
    # the batched-einsum path (used where the emulated einsum order does not match) agrees too
    monkeypatch.setattr(lm, "_fast_kernels_exact", lambda: False)
    X, y, b = _batch_problem(20, 2, 3, 30.0, 1.0, 8, seed=3)
    ref = [lm.solve(X, y, 3, 30.0, H, b=bj, tol=1e-6, max_iter=1000, on_failure="return") for bj in b]
    got = lm.solve_batch(X, y, 3, 30.0, H, b, tol=1e-6, max_iter=1000, on_failure="return")
    assert [r.status for r in got] == [r.status for r in ref]
    for r, g in zip(ref, got, strict=True):
        if r.status == "optimal":
            assert abs(g.value - r.value) <= 1e-6 * max(1.0, abs(r.value))


@pytest.mark.parametrize("case", BATCH_CASES[:3])
def test_solve_batch_solutions_are_certified(case):
    n, d, K, lam, eps, loss, tol, max_iter = case
    X, y, b = _batch_problem(n, d, K, lam, eps, 10, seed=7)
    got = lm.solve_batch(X, y, K, lam, H, b, loss=loss, tol=tol, max_iter=max_iter, on_failure="return")
    n_opt = 0
    for g, bj in zip(got, b, strict=True):
        if g.status != "optimal":
            assert g.Phi is None and not (g.status == "not_converged" and g.certificate.ok)
            continue
        n_opt += 1
        assert min(np.linalg.eigvalsh(P)[0] for P in g.Phi) >= -1e-12          # Φ_c ⪰ 0
        jp = lm.perturbed_objective(g.Phi, X, y, lam, H, bj, loss=loss)
        assert jp == pytest.approx(g.value, rel=1e-12, abs=1e-12)               # value = J_p(Φ)
        D, _ = lm.dual_lower_bound(g.Phi, X, y, K, lam, H, bj, loss=loss)       # recomputed certificate
        assert D == g.lower
        assert (g.value - D) / max(1.0, abs(g.value)) <= tol
        assert g.certificate.ok and g.certificate.value <= tol
    assert n_opt >= 2


def test_solve_batch_sizes_and_failures():
    X, y = _data(20, d=1, K=2, seed=5)
    b = np.array([[0.2, 0.1], [-0.3, 0.4]])
    one = lm.solve_batch(X, y, 2, 1.0, H, b[None], tol=1e-9)
    ref = lm.solve(X, y, 2, 1.0, H, b=b, tol=1e-9)
    assert len(one) == 1 and one[0].status == "optimal"
    assert abs(one[0].value - ref.value) <= 1e-9 * max(1.0, abs(ref.value))
    # only unbounded draws: no iteration at all
    unb = lm.solve_batch(X, y, 2, 1.0, H, np.array([-np.eye(2), np.diag([1.0, -2.0])]))
    assert [r.status for r in unb] == ["unbounded"] * 2 and unb[1].slope == pytest.approx(2 * -2.0)
    # a budget too small to certify: raise (as solve) or return flagged results
    bs = np.array([b, 0.5 * np.eye(2)])
    with pytest.raises(CertificateError) as err:
        lm.solve_batch(X, y, 2, 1.0, H, bs, max_iter=3, check_every=1, tol=1e-14)
    assert err.value.result.status == "not_converged" and len(err.value.results) == 2
    res = lm.solve_batch(X, y, 2, 1.0, H, bs, max_iter=3, check_every=1, tol=1e-14, on_failure="return")
    assert all(r.status == "not_converged" and r.Phi is None and "last_iterate" in r.details for r in res)
    # warm starts, shared or per problem, are projected as solve projects them
    P0 = lm.random_psd(2, 1, np.random.default_rng(1)) - 0.3 * np.eye(2)
    kw = dict(tol=1e-9, max_iter=2000, on_failure="return")
    w1 = lm.solve_batch(X, y, 2, 1.0, H, bs, Phi0=P0, **kw)
    w2 = lm.solve_batch(X, y, 2, 1.0, H, bs, Phi0=np.stack([P0, P0]), **kw)
    cold = lm.solve_batch(X, y, 2, 1.0, H, bs, **kw)
    for j in range(2):
        w0 = lm.solve(X, y, 2, 1.0, H, b=bs[j], Phi0=P0, **kw)
        assert w1[j].status == w2[j].status == w0.status and w1[j].value == w2[j].value
        assert abs(w1[j].value - w0.value) <= 1e-9 * max(1, abs(w0.value))
    assert any(w.details["history_tail"] != c.details["history_tail"] for w, c in zip(w1, cold, strict=True))


@pytest.mark.parametrize("kwargs,name", [
    (dict(b=np.eye(2)), "b"),                          # not a stack of matrices
    (dict(b=np.zeros((0, 2, 2))), "b"),                # empty batch
    (dict(b=np.zeros((2, 3, 3))), "b"),                # wrong size for d = 1
    (dict(b=np.full((2, 2, 2), np.nan)), "b"),
    (dict(y=np.array([0, 1, 2] * 4)), "y"),            # label ≥ K
    (dict(y=np.array([0, 1])), "y"),
    (dict(X=np.full((12, 1), np.inf)), "X"),
    (dict(K=0), "K"),
    (dict(K=2.5), "K"),
    (dict(lam=-1.0), "lam"),
    (dict(h=0.0), "h"),
    (dict(tol=0.0), "tol"),
    (dict(max_iter=0), "max_iter"),
    (dict(check_every=0), "check_every"),
    (dict(Phi0=np.zeros((3, 2, 2))), "Phi0"),
    (dict(on_failure="ignore"), "on_failure"),
    (dict(loss="paper"), "paper"),
    (dict(loss="bogus"), "loss"),
])
def test_solve_batch_bad_input(kwargs, name):
    X, y = _data(12)
    args = dict(X=X, y=y, K=2, lam=1.0, h=H, b=np.stack([np.eye(2), 2 * np.eye(2)]))
    args.update(kwargs)
    with pytest.raises(ValueError, match=name):
        lm.solve_batch(**args)


def test_solve_batch_in_sub_batches(monkeypatch):
    X, y, b = _batch_problem(16, 1, 2, 20.0, 0.5, 9, seed=4)
    kw = dict(tol=1e-8, max_iter=600, on_failure="return")
    whole = lm.solve_batch(X, y, 2, 20.0, H, b, **kw)
    monkeypatch.setattr(lm, "_MAX_BATCH", 5)
    parts = lm.solve_batch(X, y, 2, 20.0, H, b, **kw)
    assert [r.details["batch_index"] for r in parts] == list(range(len(b)))
    for w, p in zip(whole, parts, strict=True):
        assert (w.status, w.value, w.lower) == (p.status, p.value, p.lower)
        assert w.Phi is None and p.Phi is None or np.array_equal(w.Phi, p.Phi)
