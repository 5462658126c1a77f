"""Issue 26 (items 1, 3, 5, 6) and issue 25's mechanism defects: rare events, outputs as users save them,
the tabulated limits, what a non-violation means, and the false-alarm rate over ≥ 1000 seeds (slow).
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from verify.audit import (
    audit,
    audit_result,
    audit_samples,
    audit_seed,
    eps_lower_bound,
    few_values,
    gaussian_mechanism,
    gaussian_releases,
    gaussian_true_eps,
    ideal_eps_lower,
    laplace_mechanism,
    laplace_releases,
    min_event_prob,
    randomized_response,
    rare_events,
    report_noisy_max,
)
from verify.audit.core import _cp_upper_fast, _cp_upper_vec
from verify.cli import main

ROOT = Path(__file__).resolve().parents[1]


def _catalogue():
    spec = importlib.util.spec_from_file_location("audit_catalogue", ROOT / "bench" / "audit_catalogue.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("audit_catalogue", mod)
    spec.loader.exec_module(mod)
    return {e.name: e for e in mod.catalogue()}


def _clamped(q: float):
    return lambda rng, k: q + np.clip(rng.laplace(0, 1, k), -8, 8)


# ---------------------------------------------------------------------------
# rare events
# ---------------------------------------------------------------------------

def test_clamped_laplace_is_caught_at_1e5():
    # true ε = ∞: above 8 only D′ releases (probability e^-7/2 = 4.6e-4); the Laplace body gives ε ≈ 1
    res = [audit(_clamped(0.0), _clamped(1.0), n=100_000, seed=audit_seed(26, s), claim_eps=1.0) for s in range(5)]
    assert all(r.verdict == "violated" for r in res), [round(r.eps_lower, 3) for r in res]
    # found by a range-edge test or (issue 32) by the pooled point masses: the clamp bounds ±8 (D) and 9, −7 (D′)
    # are atoms, each seen on one side only; or by the rare sets of both sides pooled into one guess test
    assert all(r.details["event_kind"] in ("rare", "pooled", "rare pair") for r in res)


def test_clamped_laplace_is_caught_through_the_cli(tmp_path, capsys):
    rng0, rng1 = np.random.default_rng(10), np.random.default_rng(11)
    np.savez(tmp_path / "c.npz", d0=_clamped(0.0)(rng0, 100_000), d1=_clamped(1.0)(rng1, 100_000))
    code = main(["audit", "--samples", str(tmp_path / "c.npz"), "--claim-eps", "1", "--json", "--no-tradeoff"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["verdict"] == "violated" and d["eps_lower"] > 1.3


def test_rare_event_tests_sit_at_the_edge_of_the_other_side():
    t0 = np.array([0.0, 1.0, 2.0, 3.0] * 10)
    t1 = np.array([1.0, 2.0, 3.0, 4.0] * 10)          # 4 never occurs on D; 0 never on D′
    ev = rare_events(t0, t1)
    says0 = [e.says_dprime(t0) for e in ev]
    says1 = [e.says_dprime(t1) for e in ev]
    # "beyond D's range" says D′ only at 4 (never on D); "beyond D′'s range" says D only at 0 (never on D′)
    assert not says0[0].any() and says1[0].sum() == 10
    assert says1[1].all() and (~says0[1]).sum() == 10
    assert rare_events(t0, t0) == []                  # same range: no rare-event test (no extra Bonferroni cost)


def test_min_event_prob_is_where_expected_counts_start_to_detect():
    ne, conf = 90_000, 1 - 0.05 / 3
    p = min_event_prob(ne, ne, 0.0, conf, claim=1.0)
    hits = round(p * ne)
    assert eps_lower_bound(0, ne, ne - hits, ne, 0.0, conf) > 1.0
    assert eps_lower_bound(0, ne, ne - hits + 1, ne, 0.0, conf) <= 1.0
    assert min_event_prob(ne, ne, 0.0, conf, claim=100.0) == math.inf


def test_eps_max_is_what_a_perfect_distinguisher_gets():
    d0, d1 = np.zeros(5000), np.ones(5000)                # two atoms: no error at all
    r = audit_samples(d0 + np.arange(5000) * 1e-9, d1 + np.arange(5000) * 1e-9, claim_eps=1.0)
    # the pooled guess tests (issue 32) reach the perfect pooled bound, up to their bisection's precision
    assert r.eps_lower == pytest.approx(r.eps_max, rel=1e-3) and r.eps_lower <= r.eps_max
    conf = 1 - 0.05 / r.details["tests"]
    ne0, ne1 = r.details["n_evaluation0"], r.details["n_evaluation1"]
    from verify.audit.pooled import tails_eps_lower

    assert r.eps_max == max(eps_lower_bound(0, ne0, 0, ne1, 0.0, conf),
                            tails_eps_lower(2 * ne0, 0, ne0, delta=0.0, confidence=conf))


def test_a_consistent_verdict_says_how_far_it_could_see():
    r = audit(*laplace_releases(1.0), n=20_000, seed=1, claim_eps=1.0)
    assert r.verdict == "consistent"
    assert f"{r.eps_max:.4g}" in r.meaning() and "could have detected" in r.meaning()
    row = audit_result("demo", mechanism="laplace", source="t", release="value", calibration="exact", claimed=1.0,
                       result=r, attack="threshold")
    assert "largest ε this n could have detected" in row.detail and row.details["eps_max"] == r.eps_max


# ---------------------------------------------------------------------------
# outputs as users save them
# ---------------------------------------------------------------------------

def test_codes_saved_as_floats_are_categories_with_the_same_result():
    m = report_noisy_max(1.0, 4)
    rng0, rng1 = np.random.default_rng(0), np.random.default_rng(1)
    c0, c1 = m.release0(rng0, 40_000), m.release1(rng1, 40_000)
    a = audit_samples(c0, c1, seed=3, tradeoff=False)
    b = audit_samples(c0.astype(float), c1.astype(float), seed=3, tradeoff=False)
    assert a.details["output"] == b.details["output"] == "categorical"
    assert a.eps_lower == b.eps_lower and a.eps_lower <= m.true_eps


def test_few_distinct_vector_rows_are_categories():
    # a ⊥/⊤ pattern of 3 queries saved as a 0/1 vector: 8 possible rows
    rng = np.random.default_rng(0)
    x0 = (rng.random((30_000, 3)) < [0.2, 0.5, 0.5]).astype(float)
    x1 = (rng.random((30_000, 3)) < [0.2 * math.e, 0.5, 0.5]).astype(float)
    r = audit_samples(x0, x1, seed=0, tradeoff=False)
    true = math.log(0.2 * math.e / 0.2)
    assert r.details["output"] == "categorical" and 0.8 < r.eps_lower <= true


def test_many_valued_integers_are_ordered_not_categories():
    rng = np.random.default_rng(0)

    def geo(k):                     # two-sided geometric noise, P(j) ∝ 0.97^|j|: integers with many values
        return rng.geometric(0.03, k) - rng.geometric(0.03, k)
    g0, g1 = geo(20_000), 20 + geo(20_000)                          # a count of sensitivity 20
    assert not few_values(g0[:2000], g1[:2000])
    r = audit_samples(g0, g1, seed=0, tradeoff=False)
    assert r.details["output"] == "scalar"
    assert 0.3 < r.eps_lower <= -20 * math.log(0.97)               # true ε of this geometric mechanism


def test_index_value_pairs_get_grouped_thresholds():
    cat = _catalogue()
    e = cat["noisy max returning (index, value)"]
    r = audit(e.release0, e.release1, n=10_000, seed=0, claim_eps=e.claim_eps, tradeoff=False)
    assert r.details["output"] == "pair" and "column 1" in r.details["statistic"]
    assert r.verdict == "violated" and r.eps_lower <= e.true_eps


def test_a_users_statistic_from_the_cli(tmp_path, capsys, monkeypatch):
    (tmp_path / "mystat.py").write_text(textwrap.dedent("""
        import numpy as np
        def value(x):
            return np.asarray(x)[:, 1]
        NOT_CALLABLE = 3
    """))
    rng = np.random.default_rng(0)
    x0 = np.column_stack([rng.normal(size=5000), rng.laplace(size=5000)])
    x1 = np.column_stack([rng.normal(size=5000), 1 + rng.laplace(size=5000)])
    np.savez(tmp_path / "v.npz", d0=x0, d1=x1)
    monkeypatch.chdir(tmp_path)
    code = main(["audit", "--samples", "v.npz", "--claim-eps", "0.5", "--statistic", "mystat:value", "--json",
                 "--tradeoff", "on"])
    d = json.loads(capsys.readouterr().out)
    assert code == 0 and d["statistic"] == "user statistic value" and d["verdict"] == "violated"
    assert d["eps_lower"] <= 1.0 and d["tradeoff"]["eps_lower"] <= 1.0
    for bad in ("mystat:NOT_CALLABLE", "mystat", "nosuch:f"):
        code = main(["audit", "--samples", "v.npz", "--claim-eps", "0.5", "--statistic", bad])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "--statistic" in err


def test_cli_says_what_the_verdict_means_and_prints_the_tradeoff_line(tmp_path, capsys):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "g.npz", d0=rng.normal(0, 3.73, 50_000), d1=1 + rng.normal(0, 3.73, 50_000))
    # --tradeoff auto: the rule tradeoff_applies runs the line for scalar outputs at delta > 0
    code = main(["audit", "--samples", str(tmp_path / "g.npz"), "--claim-eps", "1", "--delta", "1e-5",
                 "--tradeoff", "auto"])
    out = capsys.readouterr().out
    assert code == 0 and "consistent" in out and "largest ε this n could have detected" in out
    assert "trade-off curve" in out and "only if the trade-off curve is exactly Gaussian" in out


# ---------------------------------------------------------------------------
# the tabulated limits and the trade-off line
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("n, alpha", [(50, 0.05), (10_000, 0.25), (10_000, 1e-4), (123_457, 0.0125)])
def test_tabulated_limits_agree_with_the_exact_inversion(n, alpha):
    k = np.concatenate([np.arange(0, min(n, 200)), np.linspace(0, n - 1, 5000)])
    u, exact = _cp_upper_fast(k, n, alpha), _cp_upper_vec(k, n, alpha)
    assert np.all(np.abs(np.log(u / exact)) < 0.012)                  # the table is for choosing tests only
    m = exact < 1
    assert np.all(np.abs(np.log((1 - u[m]) / (1 - exact[m]))) < 0.03)
    # and the exact inversion is the beta quantile (the independent reference)
    assert np.allclose(exact[:50], stats.beta.isf(alpha, k[:50] + 1, n - k[:50]), rtol=1e-10)


def test_the_tradeoff_line_of_a_gaussian_audit():
    m = gaussian_mechanism(1.0, 1e-5)
    r = audit(m.release0, m.release1, n=100_000, seed=0, delta=1e-5, tradeoff=None)    # the rule: scalar, δ > 0
    t = r.tradeoff
    assert t is not None and t.eps_lower <= m.true_eps and t.eps_gdp <= m.true_eps + 1e-9
    assert "exactly Gaussian" in r.tradeoff_line()
    assert audit(m.release0, m.release1, n=2000, seed=0, tradeoff=False).tradeoff is None


# ---------------------------------------------------------------------------
# issue 25: the textbook constructors check their parameters
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("call, name", [
    (lambda: laplace_releases(-1), "'eps'"), (lambda: laplace_releases(0), "'eps'"),
    (lambda: laplace_releases(math.nan), "'eps'"), (lambda: laplace_releases(1, 0), "'sensitivity'"),
    (lambda: laplace_releases(True), "'eps'"), (lambda: laplace_mechanism(-2), "'eps'"),
    (lambda: gaussian_releases(0, 1e-5), "'eps'"), (lambda: gaussian_releases(1, 0), "'delta'"),
    (lambda: gaussian_releases(1, 1.5), "'delta'"), (lambda: gaussian_releases(1, 1e-5, -1), "'sensitivity'"),
    (lambda: gaussian_true_eps(0, 1e-5), "'sigma'"), (lambda: gaussian_true_eps(1, 0), "'delta'"),
    (lambda: gaussian_mechanism(math.inf), "'eps'"), (lambda: randomized_response(-0.5), "'eps'"),
    (lambda: report_noisy_max(0), "'eps'"), (lambda: report_noisy_max(1, 1), "'d'"),
    (lambda: ideal_eps_lower(randomized_response(1.0), 0), "'n'"),
])
def test_textbook_constructors_reject_bad_parameters(call, name):
    with pytest.raises(ValueError, match=name):
        call()


def test_randomized_response_at_a_large_eps_keeps_the_bit():
    m = randomized_response(1000.0)
    assert np.all(m.release1(np.random.default_rng(0), 1000) == 1)


# ---------------------------------------------------------------------------
# the false-alarm rate over ≥ 1000 seeds (slow)
# ---------------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("name", ["Laplace", "randomized response", "report-noisy-max index (4 counts)",
                                  "exponential mechanism (10 candidates)", "SVT Alg. 1 (Lyu et al. 2017)"])
def test_false_alarm_rate_over_1000_seeds(name):
    e = _catalogue()[name]
    over = sum(audit(e.release0, e.release1, n=10_000, seed=audit_seed(2, name, s), claim_eps=e.true_eps,
                     delta=e.delta, tradeoff=False).verdict == "violated" for s in range(1000))
    # at most α = 0.05 in truth: a one-sided binomial test at 1e-3 against α
    assert stats.binomtest(over, 1000, 0.05, alternative="greater").pvalue > 1e-3, f"{over}/1000"


def test_papers_audit_lines_say_how_far_a_non_violation_could_see(capsys):
    code = main(["audit", "--profile", "quick", "--only", "jia.s5_1.scale"])
    lines = [x for x in capsys.readouterr().out.splitlines() if x.strip()]
    assert code == 0 and lines
    for x in lines:
        assert ("could have detected ε up to" in x) == (not x.rstrip().endswith("violated")), x
