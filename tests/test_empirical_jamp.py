"""Empirical checks of seed 001 (simulations/trials/jamp.py, verify/empirical/jamp.py).

References are computed independently: dense Gram matrices and :func:`kls_fit` refits instead
of the O(m log m) evaluator and the rank-2 scans, direct sums over the sample instead of the
closed forms in b, the exact Parseval risk of a kernel expansion instead of the quadrature.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.kernels import KernelExpansion, PeriodicSobolevKernel
from simulations.runner import run_trials
from simulations.solvers import (
    Certificate,
    CertificateError,
    kls_fit,
    replace_point,
    union_rkhs_distance,
)
from simulations.trials import jamp as T
from verify.empirical import discover_checks
from verify.empirical import jamp as J
from verify.empirical.core import PROFILES, Context
from verify.stats import VERDICTS

CHECKS = {s.name: s for s in discover_checks() if s.evidence == "empirical"}

K1 = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)


def _sample(m: int, seed: int):
    P = T.problem(T.default_config())
    X, y = P.sample(m, np.random.default_rng(seed))
    return P, X[:, 0], y


# ----------------------------------------------------------------------------- exact arithmetic


def test_sobolev1_eval_with_a_plan_is_bit_identical():
    """A precomputed plan (sort and ranks of the points) changes nothing in the result, for any α."""
    K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)
    rng = np.random.default_rng(5)
    x, t = rng.uniform(-2, 2, 300), np.concatenate([rng.random(50), [0.0, 1.0, -1e-17]])
    plan = T._sobolev1_plan(x, t)
    for _ in range(3):
        a = rng.normal(size=x.size)
        assert np.array_equal(T.sobolev1_eval(K, x, a, t, plan=plan), T.sobolev1_eval(K, x, a, t))


def test_sobolev1_eval_matches_the_dense_kernel():
    rng = np.random.default_rng(3)
    for K in (K1, PeriodicSobolevKernel(s=1, mu0=0.3, scale=2.0)):
        c, a = rng.random(57), rng.standard_normal(57)
        t = np.concatenate((rng.random(200), c, [0.0, 0.999999]))
        ref = K(t, c) @ a
        assert np.max(np.abs(T.sobolev1_eval(K, c, a, t) - ref)) <= 1e-12 * np.abs(a).sum()
    with pytest.raises(ValueError, match="kernel"):
        T.sobolev1_eval(PeriodicSobolevKernel(s=2), c, a, t)


def test_cg_fit_matches_cholesky_and_certificate_can_fail():
    P, x, y = _sample(300, 1)
    fit = T.sobolev1_kls_fit(P.kernel, x, y, 0.02)
    ref = kls_fit(P.kernel(x), y, 0.02)
    assert fit.certificate.ok and np.allclose(fit.alpha, ref.alpha, rtol=1e-9, atol=1e-12)
    with pytest.raises(CertificateError):
        T.sobolev1_kls_fit(P.kernel, x, y, 0.02, tol=1e-300)
    # both paths of the trial give the same numbers
    cfg = T.default_config(m=300, lam=0.05, eps=0.5, n_noise=30)
    a = T.risk_trial(cfg, np.random.default_rng(5))
    b = T.risk_trial({**cfg, "dense_max": 0}, np.random.default_rng(5))
    for k in a:
        assert math.isclose(a[k], b[k], rel_tol=1e-8, abs_tol=1e-11), k


def test_quadrature_matches_exact_risk_without_clipping_and_finer_grid_with_it():
    P, x, y = _sample(80, 2)
    alpha = kls_fit(P.kernel(x), y, 0.05).alpha
    t, fr = T._quad(T.default_config())
    f = T.sobolev1_eval(P.kernel, x, alpha, t)
    assert np.max(np.abs(f)) < P.M                     # π inactive: the exact formula applies
    A0, A1 = T.clipped_risk_coefficients(f, fr, P.M)
    for b in (0.0, 0.37, -1.3):
        exact = P.excess_risk(KernelExpansion(P.kernel, x, alpha, offset=b))
        assert math.isclose(A0 + 2 * b * A1 + b * b, exact, rel_tol=1e-7, abs_tol=1e-12)
    # with clipping active (M = 0.3): 2^14 midpoints against 2^17, and the closed form in b
    # against the quadrature of (π f + b − f_ρ)² itself
    A0c, A1c = T.clipped_risk_coefficients(f, fr, 0.3)
    n = 2**17
    tf = (np.arange(n) + 0.5) / n
    ff, frf = T.sobolev1_eval(P.kernel, x, alpha, tf), P.f_rho(tf)
    A0f, A1f = T.clipped_risk_coefficients(ff, frf, 0.3)
    assert abs(A0c - A0f) <= 1e-8 * A0f and abs(A1c - A1f) <= 1e-8
    for b in (0.5, -2.0):
        direct = float(np.mean((np.clip(f, -0.3, 0.3) + b - fr) ** 2))
        assert math.isclose(A0c + 2 * b * A1c + b * b, direct, rel_tol=1e-12)


# ----------------------------------------------------------------------------- risk trial


def test_risk_trial_identities():
    cfg = T.default_config(m=60, lam=0.2, eps=0.5, n_noise=7, scale=0.8)
    out = T.risk_trial(cfg, np.random.default_rng(11))
    # replay the trial's random stream: sample first, then the noise
    rng = np.random.default_rng(11)
    P = T.problem(cfg)
    X, y = P.sample(60, rng)
    b = rng.laplace(0.0, 0.8, 7)
    g = np.clip(P.kernel(X[:, 0]) @ kls_fit(P.kernel(X[:, 0]), y, 0.2).alpha, -P.M, P.M)
    Ez = lambda h: float(np.mean((h - y) ** 2))  # noqa: E731
    R2_direct = np.mean([Ez(g + bb) - Ez(g) for bb in b])
    R2_identity = np.mean(b**2 + 2 * b * np.mean(g - y))   # Proposition 3's identity
    assert math.isclose(out["R2"], R2_direct, rel_tol=1e-10)
    assert math.isclose(out["R2"], R2_identity, rel_tol=1e-10)
    assert math.isclose(out["Eb2"], float(np.mean(b**2)), rel_tol=1e-12)
    # decomposition (3): R1 + R2 + S + D ≥ excess, with the gap independent of b
    assert out["gap"] >= 0
    assert math.isclose(out["R1"] + out["R2"] + out["SD"] - out["excess"], out["gap"],
                        rel_tol=1e-9, abs_tol=1e-12)
    assert math.isclose(out["excess"] - out["q2"], 2 * 0.5 * P.bayes_risk, rel_tol=1e-12)
    assert math.isclose(out["D"], float(P.approximation_error(0.2)), rel_tol=1e-14)


def test_failed_certificate_is_rejected_by_the_runner():
    cfg = T.default_config(m=30, lam=0.1, eps=0.5, n_noise=5, tol=1e-300)
    df = run_trials(T.risk_trial, cfg, 3, seed=0)
    assert (df["rejected"] == 1).all()
    kept, n_rej = J._accepted(df)
    assert len(kept) == 0 and n_rej == 3


_RISK_TRIAL = T.risk_trial


def _flaky_risk_trial(config, rng):
    """The risk trial, but about 40% of the draws fail their certificate."""
    if rng.random() < 0.4:
        raise CertificateError(Certificate("relative_kkt_residual", 1.0, 1e-10, False))
    return _RISK_TRIAL(config, rng)


def test_checks_drop_rejected_rows_and_count_them(monkeypatch):
    J.clear_cache()
    monkeypatch.setattr(J.T, "risk_trial", _flaky_risk_trial)
    ctx = Context(PROFILES["quick"], executor="serial", progress=False).with_profile(
        n_trials=12, n_noise=10, m=25)
    try:
        res = J.check_prop3(ctx)
    finally:
        J.clear_cache()
    for r in res:
        assert 0 < r.details["n_rejected"] < 12 and r.n == 12 - r.details["n_rejected"]


# ----------------------------------------------------------------------------- adversarial search


def _refit_distances(x, y, lam, j, xc, yc, M, n_fine=2**15):
    K = K1(x)
    a = kls_fit(K, y, lam).alpha
    kc = K1(np.array([xc]), x)[0]
    ybar = y.copy()
    ybar[j] = yc
    abar = kls_fit(replace_point(K, j, kc, 1.0), ybar, lam).alpha
    xbar = x.copy()
    xbar[j] = xc
    t = np.unique(np.concatenate(((np.arange(n_fine) + 0.5) / n_fine, x, [xc])))
    f, g = K1(t, x) @ a, K1(t, xbar) @ abar
    return (union_rkhs_distance(K, kc, 1.0, j, a, abar), float(np.max(np.abs(f - g))),
            float(np.max(np.abs(np.clip(f, -M, M) - np.clip(g, -M, M)))))


def test_search_beats_hand_built_pairs_and_matches_a_full_refit():
    rng = np.random.default_rng(7)
    m, lam, M = 30, 0.05, 1.0
    x = rng.random(m)
    y = np.clip(np.sin(2 * np.pi * x) + 0.3 * rng.standard_normal(m), -M, M)
    res = T.adversarial_search(x, y, lam, K1, M, n_search=16, rounds=2)
    # hand-built pairs: flip the label of the largest residual in place; move a point far away
    r = y - K1(x) @ kls_fit(K1(x), y, lam).alpha
    j0 = int(np.argmax(np.abs(r)))
    pairs = [(j0, x[j0], -M * np.sign(y[j0])), (3, (x[3] + 0.5) % 1, M), (11, 0.123, -M)]
    for j, xc, yc in pairs:
        hand = _refit_distances(x, y, lam, j, xc, yc, M)
        for crit, h in zip(T.CRITERIA, hand, strict=True):
            assert res.worst[crit]["value"] >= h - 1e-10, (crit, j)
    # the reported worst pairs, refitted from scratch
    for i, crit in enumerate(T.CRITERIA):
        w = res.worst[crit]
        ref = _refit_distances(x, y, lam, int(w["j"]), w["x"], w["y"], M)[i]
        assert math.isclose(w["value"], ref, rel_tol=1e-8, abs_tol=1e-12)
        assert math.isclose(w["scan"], ref, rel_tol=1e-6, abs_tol=1e-9)   # scan grid ⊂ fine grid
        assert abs(w["y"]) == M
    assert res.consistency <= 1e-10 and res.clip_ratio <= 1 + 1e-10


def test_interior_labels_never_beat_the_extremes():
    """The distances are quasi-convex in the replacement label, so ±M suffices."""
    rng = np.random.default_rng(2)
    x = rng.random(15)
    y = rng.uniform(-1, 1, 15)
    for j, xc in ((0, 0.3), (7, x[7]), (12, 0.91)):
        d = np.array([_refit_distances(x, y, 0.1, j, xc, yc, 0.5, n_fine=2**11)
                      for yc in np.linspace(-1, 1, 9)])
        assert np.all(d.max(axis=0) <= np.maximum(d[0], d[-1]) + 1e-12)


def test_clipping_active_lowers_the_distance():
    rng = np.random.default_rng(4)
    x = rng.random(25)
    y = np.where(rng.random(25) < 0.5, -1.0, 1.0)
    res = T.adversarial_search(x, y, 0.01, K1, 0.3, n_search=8, rounds=1)  # clip far below |f|
    assert res.details["clip_active"] > 0
    assert res.worst["clip"]["value"] < res.worst["sup"]["value"]
    assert res.worst["clip"]["value"] <= 0.6 + 1e-12                      # |π f − π g| ≤ 2M


# ----------------------------------------------------------------------------- checks

TINY = dict(m_sens=(20,), n_search=4, n_trials=4, n_noise=20, m=30, m_grid=(20, 40, 80),
            n_rate_trials=3)

EXPECTED = {("jamp.lemma2.K", "sensitivity"), ("jamp.lemma2", "sensitivity"),
            ("jamp.clip", "sensitivity"), ("jamp.prop2", "risk"), ("jamp.prop3", "risk"),
            ("jamp.prop4", "risk"), ("jamp.thm2.bound", "risk"), ("jamp.thm2", "risk"),
            ("jamp.thm3.bound", "risk"), ("jamp.thm3", "risk"), ("jamp.thm2", "rate"),
            ("jamp.thm3", "rate")}


@pytest.fixture(scope="module")
def tiny_results():
    J.clear_cache()
    ctx = Context(PROFILES["quick"], executor="serial", progress=False).with_profile(**TINY)
    try:
        return J.run_all(ctx)
    finally:
        ctx.close()


def test_every_statement_gets_a_verdict(tiny_results):
    got = {(r.key, r.kind) for r in tiny_results}
    assert got == EXPECTED
    assert {f"{k}:{kind}" for k, kind in EXPECTED} <= set(CHECKS)
    for r in tiny_results:
        assert r.verdict in VERDICTS and math.isfinite(r.statistic) and r.lo <= r.statistic <= r.hi
        assert "n_rejected" in r.details and r.details["n_rejected"] == 0
    thm2 = [r for r in tiny_results if r.key == "jamp.thm2" and r.kind == "risk"]
    assert {r.variant.split()[0] for r in thm2} == {"stated", "derived"}   # erratum: both bounds
    rate = next(r for r in tiny_results if r.key == "jamp.thm3" and r.kind == "rate")
    assert [row["m"] for row in rate.details["per_m"]] == list(TINY["m_grid"])
    assert math.isclose(rate.bound, -1 / 3)                                # from bounds, r = 1/2


def test_sensitivity_results_respect_their_bounds(tiny_results):
    for r in tiny_results:
        if r.kind == "sensitivity" and r.key != "jamp.clip":
            assert r.verdict == "holds" and 0 < r.ratio < 1


def test_prop3_bound_is_attained(tiny_results):
    for r in tiny_results:
        if r.key == "jamp.prop3":
            assert math.isclose(r.bound, 2 * r.details["scale"] ** 2, rel_tol=1e-12)


def test_same_seed_same_results_on_serial_and_local():
    cfgs = [J._risk_config(J._setting("thm2", 40), 10), J._risk_config(J._setting("thm3", 500), 10)]
    ser = Context(PROFILES["quick"], seed=3, executor="serial", progress=False)
    loc = Context(PROFILES["quick"], seed=3, executor="local", progress=False)
    try:
        a = ser.run(T.risk_trial, cfgs, 3)
        b = loc.run(T.risk_trial, cfgs, 3)
        sc = [T.default_config(m=15, lam=0.1, base="extreme", n_search=4, rounds=1)]
        c, d = ser.run(T.sensitivity_trial, sc, 2), loc.run(T.sensitivity_trial, sc, 2)
    finally:
        ser.close()
        loc.close()
    assert a.equals(b) and c.equals(d)


@pytest.mark.slow
def test_quick_profile_runs_on_local_executor():
    J.clear_cache()
    ctx = Context(PROFILES["quick"], executor="local", progress=False)
    try:
        res = J.run_all(ctx)
    finally:
        ctx.close()
    assert {(r.key, r.kind) for r in res} == EXPECTED
    assert all(r.verdict != "violated" for r in res if r.kind == "sensitivity")
