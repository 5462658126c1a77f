"""Tests of the seed-004 empirical checks (verify/empirical/pr.py, simulations/trials/pr.py).

Independent computations: the Erlang tail in closed form (Lemma 4), the analytic supremum of
Lemma 1's gradient difference, the exact constancy of J along the common shift (Lemma 2),
bookkeeping identities of the Theorem 5.2/5.3 trials and the real-data table.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.runner import run_trials
from simulations.trials import pr as tr
from verify.empirical import pr
from verify.empirical.core import PROFILES, Context

TINY = dict(n_trials=8, n_noise=40, n_search=8)


def _ctx(**kw):
    return Context(PROFILES["quick"], executor="serial").with_profile(**{**TINY, **kw})


def test_lemma1_search_approaches_the_derived_supremum():
    # derived sup 2·max(C, √2(C − 1)) (‖x̃‖² = 2 on the sphere): C = 2 → 4 (approached, c = y ≠ y',
    # x' → x), C = 3 → 6; the antipodal case c = y = y' attains 2√2(C − 1) exactly
    out = tr.lemma1_trial({"K": 3, "d": 1, "h": 0.5, "n_search": 400}, np.random.default_rng(0))
    assert out["max_c_eq_y_eq_yp"] == pytest.approx(2 * math.sqrt(2) * 2, rel=1e-6)
    assert out["max_c_not_in_yy"] == pytest.approx(2 * math.sqrt(2), rel=1e-6)
    assert 0.95 * 6 < out["max_c_eq_y_ne_yp"] <= 6 + 1e-9


def test_check_lemma1_verdicts():
    res = pr.check_lemma1(_ctx())
    by = {r.variant: r for r in res}
    assert by["C=2, d=1, stated bound"].verdict == "violated"
    assert by["C=2, d=1, derived bound"].verdict == "holds"
    assert by["C=3, d=2, derived bound"].statistic <= 6 + 1e-9
    assert by["C=3, d=2, stated bound"].bound == 2


def test_lemma2_flat_direction_and_verdicts():
    out = tr.lemma2_trial({"n": 15, "d": 1, "K": 2, "lam": 1.0, "h": 0.5, "n_dir": 5}, np.random.default_rng(1))
    assert abs(out["kappa_flat"]) < 1e-6            # J is constant along the common shift
    res = pr.check_lemma2(_ctx())
    assert {r.verdict for r in res if "stated" in r.variant} == {"violated"}
    assert {r.verdict for r in res if "derived" in r.variant} == {"holds"}
    rnd = [r for r in res if "random" in r.variant]
    assert len(rnd) == 3 and all(0 <= r.bound < r.statistic for r in rnd)


def _erlang_sf(t: float, k: int, theta: float) -> float:
    """P[Γ(k, θ) ≥ t] for integer k: e^(−t/θ) Σ_(j<k) (t/θ)^j/j!."""
    z = t / theta
    return math.exp(-z) * sum(z**j / math.factorial(j) for j in range(k))


def test_lemma4_exact_tail_by_hand():
    # d = 1, ε = 1, δ = 1/2: t = 8 log 2, ‖b‖ ~ Γ(4, 2)
    t, P = pr.lemma4_exact(1, 1.0, 0.5)
    assert t == pytest.approx(8 * math.log(2))
    assert P == pytest.approx(_erlang_sf(8 * math.log(2), 4, 2.0), rel=1e-10)
    assert P / 0.5 == pytest.approx(1.396, abs=1e-3)  # the stated threshold fails at this point
    _, Pd = pr.lemma4_exact(1, 1.0, 0.5, "derived")   # log((d+1)²/δ) = log 8
    assert Pd == pytest.approx(_erlang_sf(8 * math.log(8), 4, 2.0), rel=1e-10) and Pd < 0.5
    res = pr.check_lemma4(_ctx())
    mc = [r for r in res if "Monte Carlo" in r.variant][0]
    assert mc.lo <= P <= mc.hi and mc.verdict == "violated"


def test_thm5_trial_bookkeeping():
    cfg = dict(n=20, d=1, K=2, lam=10.0, h=0.5, eps=1.0, sigma=0.5, n_noise=12, n_test=500, tol=1e-6,
               max_iter=2000, levels52=[0.5, 100.0], levels53=[0.5, 100.0])
    out = tr.thm5_trial(cfg, np.random.default_rng(2))
    assert out["n_unbounded"] + out["n_unresolved"] + out["n_resolved"] == 12
    ex = np.array([out[f"ex52_{j}"] for j in range(12)])
    assert np.sum(np.isinf(ex)) == out["n_unbounded"]
    fin = ex[np.isfinite(ex)]
    assert np.all(fin >= -1e-5 * max(1.0, out["J_star"]))   # Φ^p cannot beat inf J (up to the certified gap)
    assert out["exceed52_1"] <= out["exceed52_0"] == np.sum(fin > 0.5)
    assert out["J_star_lower"] <= out["J_star"]


def test_thm5_checks_count_unbounded_draws_as_failures(monkeypatch):
    monkeypatch.setattr(pr, "THM5_VARIANTS", {"d=1, C=2": pr.THM5_VARIANTS["d=1, C=2"]})
    monkeypatch.setattr(pr, "_THM5_CACHE", {})
    ctx = _ctx()
    res = pr.check_thm5_2(ctx)
    for r in res:
        d = r.details
        assert r.n == d["draws"]
        assert r.statistic == pytest.approx((d["unbounded"] + d["exceed_among_resolved"]) / d["draws"])
        assert r.statistic >= d["unbounded_freq"]
    res3 = pr.check_thm5_3(ctx)
    assert {r.key for r in res3} == {"pr.thm5_3"} and len(res3) == len(res)


def test_utility_table_and_real_data_check(monkeypatch):
    monkeypatch.setattr(pr, "UTILITY_EPS", (1.0, 100.0))
    monkeypatch.setattr(pr, "_UTIL_CACHE", {})
    ctx = _ctx()
    tab = pr.utility_table(ctx)
    for col in ("dataset", "eps", "accuracy", "accuracy_lo", "accuracy_hi", "excess", "baseline_accuracy"):
        assert col in tab.columns
    assert list(tab["eps"]) == list(pr.UTILITY_EPS)
    assert tab["baseline_accuracy"].between(0.8, 1.0).all()
    assert (tab["bounded_frac"] <= tab["bounded_hi"]).all() and (tab["bounded_hi"] <= 1).all()
    res = pr.check_thm5_2_real(ctx)
    assert [r.kind for r in res] == ["risk"] * len(pr.UTILITY_EPS)
    assert res[0].details["utility"] == tab.to_dict(orient="records") or len(res[0].details["utility"]) == len(tab)


def test_trials_do_not_depend_on_the_executor():
    cfg = {"K": 2, "d": 1, "h": 0.5, "n_search": 20}
    a = run_trials(tr.lemma1_trial, cfg, n_trials=3, seed=4, executor="serial")
    b = run_trials(tr.lemma1_trial, cfg, n_trials=3, seed=4, executor="serial", batch_size=1)
    assert a.equals(b)


def test_audits_rows(monkeypatch):
    monkeypatch.setattr(pr, "AUDIT_PROBLEM", {**pr.AUDIT_PROBLEM, "max_iter": 600})
    rows = pr.audits(n=50, seed=0, confidence=0.95)
    assert len(rows) == 2
    r = rows[0]
    assert r.key == "pr.thm5_1" and r.evidence == "audit" and r.n == 50 and r.verdict in ("violated", "holds")
    assert r.bound == pytest.approx(0.5 + math.log(1 + 2 * 8 / (40 * 20) + 64 / (40 * 20) ** 2))
    d = r.details
    assert d["bottom"] + d["unresolved"] + d["solved"] == 100
    assert d["fpr"] == 0.0                           # no release from z is ever taken for z̄


# --------------------------------------------------------------------------- batched solves
def _solve_one_at_a_time(X, y, K, lam, h, b, **kw):
    """The reference of simulations.large_margin.solve_batch: one solve per draw."""
    from simulations.large_margin import solve

    return [solve(X, y, K, lam, h, b=bj, **kw) for bj in b]


def _thm5_reference(config, rng):
    """Theorem 5.2/5.3 trial as it was before the batched solver: draw, test, solve, one at a time."""
    from simulations import large_margin as lm

    n, d, K = int(config["n"]), int(config["d"]), int(config["K"])
    lam, h, eps, tol = float(config["lam"]), float(config["h"]), float(config["eps"]), float(config["tol"])
    X, y = lm.gaussian_classes(n, d, K, rng, sigma=config["sigma"])
    Xt, yt = lm.gaussian_classes(int(config["n_test"]), d, K, rng, sigma=config["sigma"])
    base = lm.solve(X, y, K, lam, h, tol=tol, cone="closure")
    out = {}
    for j in range(int(config["n_noise"])):
        b = lm.sample_perturbation(d, eps, rng)
        if not lm.is_bounded_below(lam, b, d):
            out[j] = ("unbounded",)
            continue
        res = lm.solve(X, y, K, lam, h, b=b, tol=tol, max_iter=int(config["max_iter"]), on_failure="return")
        if res.status != "optimal":
            out[j] = ("unresolved",)
            continue
        out[j] = (lm.objective(res.Phi, X, y, lam, h) - base.value,
                  tr.true_risk(res.Phi, Xt, yt, n, h) - tr.true_risk(base.Phi, Xt, yt, n, h),
                  res.details["iterations"])
    return out


@pytest.mark.parametrize("spec", ["d=1, C=2", "d=2, C=3"])
def test_thm5_trial_batched_equals_one_at_a_time(spec):
    cfg = dict(pr.THM5_VARIANTS[spec], n=20, n_noise=16, n_test=300, tol=1e-6, max_iter=1500,
               levels52=[0.5, 100.0], levels53=[0.5, 100.0])
    out = tr.thm5_trial(cfg, np.random.default_rng(11))
    ref = _thm5_reference(cfg, np.random.default_rng(11))
    n_unb = sum(v == ("unbounded",) for v in ref.values())
    n_unres = sum(v == ("unresolved",) for v in ref.values())
    assert (out["n_unbounded"], out["n_unresolved"]) == (n_unb, n_unres) and n_unb < 16
    for j, v in ref.items():
        if v == ("unbounded",):
            assert out[f"ex52_{j}"] == out[f"ex53_{j}"] == math.inf
        elif v == ("unresolved",):
            assert math.isnan(out[f"ex52_{j}"])
        else:   # the same draws, solved to the same certified point
            assert out[f"ex52_{j}"] == pytest.approx(v[0], abs=1e-6 * max(1.0, out["J_star"]))
            assert out[f"ex53_{j}"] == pytest.approx(v[1], rel=1e-4, abs=1e-4)
    its = [v[2] for v in ref.values() if len(v) == 3]
    assert out["mean_iters"] == pytest.approx(np.mean(its))


def test_audit_batched_equals_one_at_a_time(monkeypatch):
    monkeypatch.setattr(pr, "AUDIT_PROBLEM", {**pr.AUDIT_PROBLEM, "max_iter": 400})
    rows = pr.audits(n=40, seed=3, confidence=0.95)
    monkeypatch.setattr(pr, "solve_batch", _solve_one_at_a_time)
    ref = pr.audits(n=40, seed=3, confidence=0.95)
    for a, b in zip(rows, ref, strict=True):
        assert a.details == b.details
        assert (a.statistic, a.lo, a.hi, a.verdict) == (b.statistic, b.lo, b.hi, b.verdict)
    # and the former loop (draw, test, solve, score: one release at a time), written out
    from simulations import large_margin as lm

    spec, H = pr.AUDIT_PROBLEM, pr.H
    X, y, X1, y1 = pr.audit_pair(3)
    counts = {"bottom": 0, "unresolved": 0, "released": 0}
    S = []
    for (Xs, ys), ss in zip(((X, y), (X1, y1)), np.random.SeedSequence([3, 5104]).spawn(2), strict=True):
        rng, out = np.random.default_rng(ss), np.zeros(40)
        for j in range(40):
            b = lm.sample_perturbation(spec["d"], spec["eps"], rng)
            if not lm.is_bounded_below(spec["lam"], b, spec["d"]):
                counts["bottom"] += 1
                continue
            r = lm.solve(Xs, ys, 2, spec["lam"], H, b=b, tol=spec["tol"], max_iter=400, on_failure="return")
            if r.status != "optimal":
                counts["unresolved"] += 1
                continue
            counts["released"] += 1
            out[j] = (math.log10(lm.kkt_residual(r.Phi, X, y, H) + 1e-30)
                      - math.log10(lm.kkt_residual(r.Phi, X1, y1, H) + 1e-30))
        S.append(out)
    d = rows[0].details
    assert (d["bottom"], d["unresolved"], d["solved"]) == (counts["bottom"], counts["unresolved"], counts["released"])
    assert d["decisive_z"] == int(np.sum(S[0] < -pr.AUDIT_TAU)) and d["decisive_zbar"] == int(np.sum(S[1] > pr.AUDIT_TAU))
    assert (d["fpr"], d["fnr"]) == (np.sum(S[0] > pr.AUDIT_TAU) / 40, np.sum(S[1] <= pr.AUDIT_TAU) / 40)
    assert counts["released"] > 5
