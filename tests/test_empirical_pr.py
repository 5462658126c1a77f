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
