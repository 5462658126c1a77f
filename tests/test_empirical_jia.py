"""Tests of the seed-000 trials and empirical checks (simulations/trials/jia.py, verify/empirical/jia.py).

Values are computed independently of the code under test where possible: exact risks from
:mod:`simulations.data`, brute-force refits from :mod:`simulations.solvers`.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.kernels import KernelExpansion
from simulations.runner import run_grid
from simulations.solvers import (
    Certificate,
    CertificateError,
    kls_fit,
    replace_point,
    svm_fit,
    union_rkhs_distance,
)
from simulations.trials import jia as T
from verify.empirical import discover_checks
from verify.empirical import jia as J
from verify.empirical.core import PROFILES, Context
from verify.stats import VERDICTS

CHECKS = {s.name: s for s in discover_checks() if s.evidence == "empirical"}

TINY = dict(n_trials=4, n_noise=20, m=40, m_grid=(30, 40, 60), n_rate_trials=3, n_search=8, m_sens=(20,))


def _identity_residual(out: dict, lam: float) -> float:
    return out["R1"] + out["R2"] + out["S"] + out["D"] - out["excess"] - lam * out["omega_z"] - out["gap"]


@pytest.mark.parametrize("trial", [T.ls_risk_trial, T.svm_risk_trial])
def test_decomposition_identity(trial):
    """(3) is an identity up to λΩ(f_z) + [J_z(f_λ) − J_z(f_z)] ≥ 0 (000, §4, equation (3))."""
    cfg = dict(m=60, lam=0.05, eps=0.5, calibration="derived", n_noise=30)
    for seed in range(3):
        out = trial(cfg, np.random.default_rng(seed))
        assert abs(_identity_residual(out, cfg["lam"])) < 1e-9
        assert out["gap"] >= -1e-12 and out["omega_z"] >= 0
        assert out["excess"] >= out["excess_fz"] - 1.0  # sanity: finite numbers


def test_ls_trial_matches_exact_excess_risk():
    """The closed form in b equals CircleRegression.excess_risk of f_z + b (one noise draw)."""
    cfg = dict(m=50, lam=0.02, eps=0.5, n_noise=1, scale=0.3)
    out = T.ls_risk_trial(cfg, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    P = T.circle_problem()
    X, y = P.sample(50, rng)
    alpha = kls_fit(P.kernel(X), y, 0.02).alpha
    b = float(rng.laplace(0.0, 0.3, 1)[0])
    assert math.isclose(out["Eb2"], b * b, rel_tol=1e-12)
    direct = P.excess_risk(KernelExpansion(P.kernel, X, alpha, offset=b))
    assert math.isclose(out["excess"], direct, rel_tol=1e-9, abs_tol=1e-12)
    emp = float(np.mean((P.kernel(X) @ alpha + b - y) ** 2))
    assert math.isclose(out["R1"], direct + P.bayes_risk - emp, rel_tol=1e-9, abs_tol=1e-12)


def test_svm_quadrature_matches_data_module():
    """Sorted-prefix-sum hinge and misclassification risks agree with BinaryClassification."""
    P, K = T.binary_problem()
    X, y = P.sample(40, 3)
    alpha = svm_fit(K(X), y, 0.05).alpha
    f_nodes = T._eval_chunked(K, T._quad_nodes(), X, alpha)
    assert np.allclose(f_nodes, K(T._quad_nodes(), X) @ alpha, atol=1e-12)
    bs = np.array([-0.4, 0.07])
    hinge, mis = T._hinge_and_misclass(P, f_nodes, bs)
    for i, b in enumerate(bs):
        f = KernelExpansion(K, X, alpha, offset=float(b))
        assert abs(hinge[i] - P.hinge_risk(f)) < 1e-6
        assert abs(mis[i] - P.misclassification_excess(f)) < 2e-3


def test_ramp_stepping_stone_exact():
    """D_g(λ): the closed-form hinge excess and RKHS norm of the ramp agree with quadrature / FFT."""
    P, K = T.binary_problem()
    st = T.ramp_stepping_stone(0.5, 0.8, 1.0, 1.0, 0.01)
    g = lambda X: T._ramp_values(np.asarray(X)[:, 0], 0.5, st["w1"], st["w2"])  # noqa: E731
    assert abs(P.hinge_excess(g) - st["excess"]) < 1e-7
    n = 2**16
    c = np.fft.rfft(g(((np.arange(n)) / n)[:, None])) / n        # complex coefficients
    k = np.arange(c.size)
    A0, Ak = c[0].real, 4 * np.abs(c[1:]) ** 2                  # A_k² + B_k² = 4|c_k|²
    norm2 = A0**2 / K.mu0 + float(np.sum(Ak / K.mu(k[1:])))
    assert math.isclose(norm2, st["norm2"], rel_tol=1e-3)
    assert st["D"] == pytest.approx(st["excess"] + 0.01 * st["norm2"])


def test_ls_search_beats_hand_built_pair_and_is_verified():
    P = T.circle_problem()
    X, y = P.sample(40, 11)
    lam = 0.05
    w = T.ls_worst_neighbour(X, y, lam, P.kernel, P.M, n_search=16)
    x = X[:, 0]
    G = P.kernel(x)
    alpha = kls_fit(G, y, lam).alpha
    for j, xb, yb in [(0, 0.123, P.M), (5, float(x[5]), -y[5]), (17, 0.9, -P.M)]:
        kc = P.kernel(np.array([xb]), x)[0]
        yy = y.copy()
        yy[j] = yb
        ab = kls_fit(replace_point(G, j, kc, P.kappa**2), yy, lam).alpha
        d = union_rkhs_distance(G, kc, P.kappa**2, j, alpha, ab)
        assert w["rkhs"].value >= d - 1e-12
    assert w["rkhs"].value == pytest.approx(w["rkhs"].search_value, rel=1e-8)
    assert w["sup"].value >= w["sup"].search_value - 1e-10     # the verification grid is finer
    assert w["sup"].value <= P.kappa * w["rkhs"].value + 1e-12  # ‖·‖_∞ ≤ κ‖·‖_K


def test_svm_search_agrees_with_full_refit():
    P, K = T.binary_problem()
    X, y = P.sample(60, 5)
    lam = 0.05
    w = T.svm_worst_neighbour(X, y, lam, K, n_search=16, n_refit=4)
    x = X[:, 0]
    G = K(x)
    fit = svm_fit(G, y, lam, tol=1e-12)
    for norm in ("rkhs", "sup"):
        r = w[norm]
        kc = K(np.array([r.x_bar]), x)[0]
        yy = y.copy()
        yy[r.j] = r.y_bar
        fb = svm_fit(replace_point(G, r.j, kc, 1.0), yy, lam, tol=1e-12, continuation=False)
        d = union_rkhs_distance(G, kc, 1.0, r.j, fit.alpha, fb.alpha)
        if norm == "rkhs":
            assert abs(d - r.value) <= r.cert_error + 1e-7
    # a hand-built pair: flip the label of a point in place
    j = int(np.argmax(np.abs(fit.alpha)))
    kc = G[j].copy()
    yy = y.copy()
    yy[j] = -y[j]
    fb = svm_fit(replace_point(G, j, kc, 1.0), yy, lam)
    assert w["rkhs"].value >= union_rkhs_distance(G, kc, 1.0, j, fit.alpha, fb.alpha) - 1e-9
    # Theorem 2 (C_L = 1, γ = 2) holds for what was found
    assert w["rkhs"].value <= 2 * 1.0 / (lam * 2 * 60) * (1 + 1e-9) + w["rkhs"].cert_error


def test_constants():
    c = T.ls_constants()
    P = T.circle_problem()
    lams = np.logspace(-6, 0, 50)
    assert np.all(P.approximation_error(lams) <= c["c_beta"] * lams ** c["beta"] * (1 + 1e-12))
    s = T.svm_constants()
    assert s["C_L"] == 1.0 and s["B_rho"] == 4.0 and s["c_beta"] > 0


def test_reproducible_across_executors():
    cfgs = [dict(m=30, lam=0.1, eps=0.5, calibration="derived", n_noise=10),
            dict(m=30, lam=0.1, eps=0.5, calibration="stated", n_noise=10)]
    a = run_grid(T.ls_risk_trial, cfgs, 3, seed=4, executor="serial")
    b = run_grid(T.ls_risk_trial, cfgs, 3, seed=4, executor="local", batch_size=1)
    assert a.equals(b)
    c = run_grid(T.svm_risk_trial, cfgs[:1], 2, seed=4, executor="serial")
    d = run_grid(T.svm_risk_trial, cfgs[:1], 2, seed=4, executor="serial")
    assert c.equals(d)


EXPECTED = {
    "jia.thm1:sensitivity", "jia.thm2:sensitivity", "jia.prop1.sensitivity:sensitivity",
    "jia.prop2:risk", "jia.prop3:risk", "jia.prop4:risk", "jia.thm4.bound:risk", "jia.thm4:risk",
    "jia.s5_1.bound:risk", "jia.s5_2.bound:risk", "jia.thm4:rate", "jia.s5_1.rate:rate",
    "jia.s5_2.rate:rate",
}


def test_every_statement_gets_a_verdict():
    J.clear_cache()
    ctx = Context(PROFILES["quick"], executor="serial").with_profile(**TINY)
    seen = set()
    for name in sorted(EXPECTED):
        res = CHECKS[name].fn(ctx)
        assert res, name
        for r in res:
            assert r.verdict in VERDICTS and r.key == CHECKS[name].key and r.kind == CHECKS[name].kind
            assert r.method and r.n >= 0
            assert "rejected" in r.details
            if r.kind == "rate":
                assert len(r.details["per_m"]) == 3 and r.bound < 0
            elif r.kind == "sensitivity":
                assert r.confidence == 1.0 and r.lo <= r.statistic <= r.hi
        seen.add(name)
    assert seen == EXPECTED
    ctx.close()
    J.clear_cache()


def _flaky_ls_trial(config, rng):
    if rng.random() < 0.5:
        raise CertificateError(Certificate("relative_kkt_residual", 1.0, 1e-10, False, solver="test"))
    return T.ls_risk_trial(config, rng)


def test_rejected_trials_are_dropped_and_counted(monkeypatch):
    J.clear_cache()
    monkeypatch.setattr(T, "ls_risk_trial", _flaky_ls_trial)
    ctx = Context(PROFILES["quick"], executor="serial").with_profile(**{**TINY, "n_trials": 12})
    res = [r for r in J.prop3_risk(ctx) if r.details["problem"] == "ls"]
    assert res
    for r in res:
        assert r.details["rejected"] > 0
        assert r.n + r.details["rejected"] == 12
    J.clear_cache()


def test_svm_theorem2_is_attained():
    """Finding: for the hinge loss, Theorem 2's 2κC_L/(λγm) = κ/(λm) is attained (to rounding).

    Flipping the label of a point at its box bound in place, when no other dual coefficient
    moves, changes f by 2C·K_{x_j} with C = 1/(2λm): ‖Δ‖_K = κ/(λm) and ‖Δ‖_∞ = κ²/(λm).
    """
    P, K = T.binary_problem()
    X, y = P.sample(50, np.random.default_rng(0))
    lam = 0.1
    w = T.svm_worst_neighbour(X, y, lam, K, n_search=16, n_refit=8)
    assert w["rkhs"].value == pytest.approx(1 / (lam * 50), rel=1e-9)
    assert w["sup"].value == pytest.approx(1 / (lam * 50), rel=1e-9)
    x = X[:, 0]
    assert abs(x[w["rkhs"].j] - w["rkhs"].x_bar) < 1e-12 and w["rkhs"].y_bar == -y[w["rkhs"].j]


def test_rate_sweeps_span_six_sample_sizes_over_one_and_a_half_decades():
    from verify.empirical.core import PROFILES, Context
    from verify.empirical.jia import _rate_ms

    for p in PROFILES.values():
        ms = _rate_ms(Context(p))
        assert len(ms) >= 6 and ms[-1] / ms[0] >= 10**1.5 * 0.99, (p.name, ms)
