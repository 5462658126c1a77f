"""The public audit API and CLI: soundness on any input, power, error rates, a user's mechanism.

Error rates are tested against the auditor's stated α with one-sided binomial tests at level 1e-3,
so a correct auditor fails a test about once in a thousand runs of this file (seeds are fixed, so in
practice never), and an auditor whose false-alarm rate were twice α would fail them.
"""

from __future__ import annotations

import json
import math
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats

from verify.audit import (
    audit,
    audit_mechanism,
    audit_samples,
    audit_seed,
    candidate_thresholds,
    laplace_releases,
    p_value,
    randomized_response,
)
from verify.cli import main

ALPHA = 0.05


def _rate_ok(k: int, n: int, alpha: float = ALPHA) -> bool:
    """False alarms k of n are compatible with a rate ≤ alpha (one-sided binomial test at 1e-3)."""
    return stats.binomtest(k, n, alpha, alternative="greater").pvalue > 1e-3


# ---------------------------------------------------------------------------
# soundness: junk never yields a verdict
# ---------------------------------------------------------------------------

GOOD = np.random.default_rng(0).laplace(size=200)


@pytest.mark.parametrize("d0, match", [
    (np.r_[GOOD[:-1], np.nan], "NaN or infinite"),
    (np.r_[GOOD[:-1], np.inf], "NaN or infinite"),
    (np.array(["a"] * 200), "dtype"),
    (GOOD.astype(complex), "dtype"),
    (GOOD[:10], "at least 20"),
    (GOOD.reshape(2, 10, 10), "shape"),
    (np.float64(1.0), "scalar"),
    (np.zeros((200, 0)), "no coordinates"),
    ([[1.0, 2.0], [3.0]] * 100, "not a numeric array"),
])
def test_bad_samples_raise_naming_the_parameter(d0, match):
    with pytest.raises(ValueError, match=match) as e:
        audit_samples(d0, GOOD, claim_eps=1.0)
    assert "'d0'" in str(e.value)


@pytest.mark.parametrize("kw, match", [
    ({"delta": -0.1}, "'delta'"), ({"delta": 1.0}, "'delta'"), ({"delta": 1.5}, "'delta'"),
    ({"delta": math.nan}, "'delta'"), ({"confidence": 1.0}, "'confidence'"), ({"confidence": 0}, "'confidence'"),
    ({"claim_eps": -1.0}, "'claim_eps'"), ({"claim_eps": math.inf}, "'claim_eps'"),
    ({"selection_fraction": 0.0}, "'selection_fraction'"), ({"selection_fraction": 1.0}, "'selection_fraction'"),
    ({"seed": -1}, "'seed'"), ({"seed": 1.5}, "'seed'"), ({"output": "image"}, "'output'"),
])
def test_bad_parameters_of_audit_samples(kw, match):
    with pytest.raises(ValueError, match=match):
        audit_samples(GOOD, GOOD + 1, **{"claim_eps": 1.0, **kw})


def test_vector_shapes_must_agree():
    with pytest.raises(ValueError, match="must agree"):
        audit_samples(np.zeros((50, 2)), np.zeros((50, 3)), claim_eps=1.0)


@pytest.mark.parametrize("kw, match", [({"n": 0}, "'n'"), ({"n": -5}, "'n'"), ({"n": 19}, "'n'"),
                                       ({"n": 100.5}, "'n'"), ({"chunk": 0}, "'chunk'"), ({"chunk": -1}, "'chunk'"),
                                       ({"n": 100, "delta": 2.0}, "'delta'")])
def test_bad_parameters_of_audit(kw, match):
    r0, r1 = laplace_releases(1.0)
    with pytest.raises(ValueError, match=match):
        audit(r0, r1, **{"n": 100, **kw})


@pytest.mark.parametrize("bad, match", [
    (lambda rng, k: np.zeros(k // 2), "asked for"),                       # half the requested values
    (lambda rng, k: np.full(k, np.nan), "NaN"),
    (lambda rng, k: ["x"] * k, "dtype"),
    (lambda rng, k: None, "dtype|numeric|scalar"),
    (lambda rng, k: np.zeros((k, 2, 2)), "shape"),
    ("not callable", "callable"),
])
def test_a_misbehaving_release_function_is_an_error_not_a_verdict(bad, match):
    r0, _ = laplace_releases(1.0)
    with pytest.raises(ValueError, match=match):
        audit(r0, bad, n=1000, claim_eps=0.5)


def test_audit_mechanism_rejects_a_non_callable():
    with pytest.raises(ValueError, match="'release'"):
        audit_mechanism(42, [0], [1], n=100)


# ---------------------------------------------------------------------------
# validity: false alarms at most α
# ---------------------------------------------------------------------------

@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(pool=st.lists(st.floats(-1e12, 1e12, allow_nan=False, allow_infinity=False), min_size=1, max_size=30),
       weights=st.lists(st.floats(0.01, 1.0), min_size=30, max_size=30),
       kind=st.sampled_from(["scalar", "categorical", "vector"]), seed=st.integers(0, 2**32 - 1))
def test_data_independent_mechanisms_never_exceed_the_stated_error_rate(pool, weights, kind, seed):
    # an arbitrary output law (atoms with arbitrary weights: ties, huge values, a single point), the same on D
    # and on D′: every ε_lower > 0 is a false alarm, and they must occur at most at rate α
    vals = np.array(pool)
    w = np.array(weights[: len(pool)])
    w /= w.sum()
    rng = np.random.default_rng(seed)
    runs, n = (12, 600) if kind == "vector" else (60, 300)
    alarms = 0
    for r in range(runs):
        def draw(k: int) -> np.ndarray:
            x = rng.choice(vals, size=(k, 2) if kind == "vector" else k, p=w)
            return rng.choice(len(vals), size=k, p=w) if kind == "categorical" else x
        res = audit_samples(draw(n), draw(n), claim_eps=0.0, seed=audit_seed(seed, r), confidence=1 - ALPHA)
        alarms += res.eps_lower > 0
        assert (res.verdict == "violated") == (res.eps_lower > 0)
    assert _rate_ok(alarms, runs), f"{alarms} false alarms in {runs} audits of identical laws"


def test_false_alarm_rate_on_laplace_at_its_true_eps():
    r0, r1 = laplace_releases(1.0)
    over = sum(audit(r0, r1, n=5000, seed=audit_seed(7, i), claim_eps=1.0).verdict == "violated" for i in range(200))
    assert _rate_ok(over, 200), f"{over}/200 violations of a true claim"


def test_false_alarm_rate_on_randomized_response_at_its_true_eps():
    m = randomized_response(1.0)
    over = sum(audit(m.release0, m.release1, n=5000, seed=audit_seed(8, i), claim_eps=1.0).verdict == "violated"
               for i in range(300))
    assert _rate_ok(over, 300), f"{over}/300 violations of a true claim"


def test_p_values_of_a_true_claim_are_super_uniform():
    # under a true claim, P[p ≤ u] ≤ u for every u: check the empirical law at u = 0.1, 0.3
    r0, r1 = laplace_releases(0.7)
    ps = np.array([audit(r0, r1, n=3000, seed=audit_seed(9, i), claim_eps=0.7).p_value for i in range(150)])
    for u in (0.1, 0.3):
        assert _rate_ok(int(np.sum(ps <= u)), ps.size, u)


def test_p_value_agrees_with_the_bound_at_that_level():
    fp, n0, fn, n1 = 1200, 10_000, 5000, 10_000
    from verify.audit import eps_lower_bound

    p = p_value(fp, n0, fn, n1, 1.38)          # the point estimate is ln(0.5/0.12) = 1.427
    assert 1e-4 < p < 0.5
    assert math.isclose(eps_lower_bound(fp, n0, fn, n1, 0.0, 1 - p), 1.38, rel_tol=1e-6)


# ---------------------------------------------------------------------------
# power
# ---------------------------------------------------------------------------

def _tail_mechanism(p: float = 1e-3):
    """Laplace(2) on both sides (ε = 0.5), but on D′ with probability p the output jumps to ≈ 50."""
    def r0(rng, k):
        return rng.laplace(0, 2, k)

    def r1(rng, k):
        x = rng.laplace(0, 2, k)
        m = rng.random(k) < p
        x[m] = 50 + rng.random(int(m.sum()))
        return x
    return r0, r1


def test_a_failure_only_in_the_tail_is_found():
    # the 99.9 % quantile of the outputs is ≈ 12: thresholds limited to 0.1–99.9 % quantiles see nothing
    r0, r1 = _tail_mechanism(4e-4)
    res = audit(r0, r1, n=100_000, seed=0, claim_eps=0.5)
    assert res.verdict == "violated" and res.p_value < 1e-3
    rng = np.random.default_rng(0)
    pooled = np.concatenate([r0(rng, 100_000), r1(rng, 100_000)])
    assert np.quantile(pooled, 0.999) < 20     # the leak lives above every quantile the old auditor used


def test_candidate_thresholds_include_the_extremes():
    t = np.random.default_rng(0).standard_normal(10**6)
    c = candidate_thresholds(t)
    assert c[0] == t.min() and c[-1] == t.max() and c.size <= 4000
    assert np.sum(c > np.quantile(t, 0.9999)) >= 20        # dense in the tails


def test_vector_outputs_are_audited_with_a_learned_score():
    # 2-d Laplace(1) shifted by (0.875, 0.875): true ε = 1.75 against a claim of 1
    D = 0.875

    def r0(rng, k):
        return rng.laplace(0, 1, (k, 2))

    def r1(rng, k):
        return D + rng.laplace(0, 1, (k, 2))
    res = audit(r0, r1, n=100_000, seed=0, claim_eps=1.0)
    assert res.details["output"] == "vector" and res.verdict == "violated"
    assert 1.5 < res.eps_lower <= 1.75


def test_categorical_outputs_use_the_likelihood_ratio_order():
    # a 5-category mechanism whose leaking categories are not contiguous: 0 and 3 carry the ratio e^1.5
    p0 = np.array([0.1, 0.3, 0.2, 0.1, 0.3])
    p1 = p0.copy()
    p1[[0, 3]] *= math.exp(1.5)
    p1[[1, 2, 4]] *= (1 - p1[[0, 3]].sum()) / p0[[1, 2, 4]].sum()
    true = float(np.max(np.abs(np.log(p1 / p0))))

    def rel(p):
        return lambda rng, k: rng.choice(5, size=k, p=p)
    res = audit(rel(p0), rel(p1), n=100_000, seed=0, claim_eps=1.0)
    assert res.details["output"] == "categorical" and res.verdict == "violated"
    assert 1.3 < res.eps_lower <= true


def test_seeds_are_independent_per_audit_and_reproducible():
    r0, r1 = laplace_releases(1.0)
    a = audit(r0, r1, n=2000, seed=audit_seed(0, "x"))
    b = audit(r0, r1, n=2000, seed=audit_seed(0, "x"))
    c = audit(r0, r1, n=2000, seed=audit_seed(0, "y"))
    assert a.eps_lower == b.eps_lower and a.details["false_positives"] != c.details["false_positives"]


def test_saved_outputs_in_sorted_order_are_permuted_before_the_split():
    rng = np.random.default_rng(1)
    x = np.sort(rng.laplace(0, 1, 20_000))         # same law on both sides, sorted
    y = np.sort(rng.laplace(0, 1, 20_000))
    assert audit_samples(x, y, claim_eps=0.0, seed=3).eps_lower < 0.1


def test_audit_mechanism_on_a_users_mechanism():
    def noisy_count(data, rng, k):       # the user's own mechanism, written without the toolkit
        return np.sum(data) + rng.laplace(0, 1 / 0.5, size=k)
    ok = audit_mechanism(noisy_count, [1, 0, 1], [1, 1, 1], n=50_000, claim_eps=0.5, seed=2)
    leak = audit_mechanism(noisy_count, [1, 0, 1], [1, 1, 1], n=50_000, claim_eps=0.3, seed=2)
    assert ok.verdict == "consistent" and leak.verdict == "violated" and leak.margin > 0


# ---------------------------------------------------------------------------
# the CLI
# ---------------------------------------------------------------------------

@pytest.fixture()
def user_files(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    np.savez(tmp_path / "lap.npz", d0=rng.laplace(0, 1, 50_000), d1=1 + rng.laplace(0, 1, 50_000))
    np.savez(tmp_path / "vec.npz", d0=rng.normal(size=(20_000, 3)), d1=rng.normal(size=(20_000, 3)) + 0.3)
    np.savez(tmp_path / "cat.npz", d0=rng.integers(0, 4, 20_000), d1=rng.integers(0, 4, 20_000))
    np.savez(tmp_path / "nan.npz", d0=np.r_[rng.normal(size=99), np.nan], d1=rng.normal(size=100))
    np.savez(tmp_path / "short.npz", d0=rng.normal(size=100), d1=rng.normal(size=50)[:, None] * np.ones((1, 2)))
    np.savez(tmp_path / "noname.npz", a=rng.normal(size=100))
    np.savez(tmp_path / "obj.npz", d0=np.array([{"a": 1}] * 30, dtype=object), d1=np.zeros(30))
    (tmp_path / "usermech.py").write_text(textwrap.dedent("""
        import numpy as np
        NEIGHBOURS = ([0.0, 1.0, 1.0], [0.0, 1.0, 0.0])
        def release(data, rng, k):
            return sum(data) + rng.laplace(0.0, 1.0, size=k)      # Laplace(1) on a count: ε = 1
        def short(data, rng, k):
            return np.zeros(max(k - 1, 0))
        def boom(data, rng, k):
            raise RuntimeError("mechanism crashed")
        OTHER = ([0.0], [5.0])
    """))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, *args):
    code = main(["audit", *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_audits_a_npz_file(user_files, capsys):
    code, out, _ = _run(capsys, "--samples", "lap.npz", "--claim-eps", "0.5", "--json")
    d = json.loads(out)
    assert code == 0 and d["verdict"] == "violated" and 0.9 < d["eps_lower"] <= 1.0
    assert {"eps_lower", "claim_eps", "verdict", "n0", "n1", "confidence"} <= set(d) and d["n0"] == 50_000
    code, out, _ = _run(capsys, "--samples", "lap.npz", "--claim-eps", "1", "--confidence", "0.99", "--json")
    d = json.loads(out)
    assert d["verdict"] == "consistent" and d["confidence"] == 0.99 and d["margin"] < 0
    code, out, _ = _run(capsys, "--samples", "vec.npz", "--claim-eps", "0.1", "--json")
    assert json.loads(out)["output"] == "vector" and json.loads(out)["verdict"] == "violated"
    code, out, _ = _run(capsys, "--samples", "cat.npz", "--claim-eps", "0", "--json")
    assert json.loads(out)["output"] == "categorical"


def test_cli_audits_a_python_callable(user_files, capsys):
    code, out, _ = _run(capsys, "--mechanism", "usermech:release", "--claim-eps", "0.5", "--n", "50000", "--json")
    d = json.loads(out)
    assert code == 0 and d["verdict"] == "violated" and d["eps_lower"] <= 1.0
    code, out, _ = _run(capsys, "--mechanism", "usermech.py:release", "--claim-eps", "1", "--n", "20000")
    assert code == 0 and "consistent" in out
    code, out, _ = _run(capsys, "--mechanism", "usermech:release", "--datasets", "usermech:OTHER", "--claim-eps", "1",
                        "--n", "20000", "--fail-on-violation")
    assert code == 1 and "violated" in out                    # |5 − 0| = 5 ≫ 1


@pytest.mark.parametrize("args", [
    ["--samples", "nan.npz", "--claim-eps", "1"],
    ["--samples", "short.npz", "--claim-eps", "1"],
    ["--samples", "noname.npz", "--claim-eps", "1"],
    ["--samples", "obj.npz", "--claim-eps", "1"],
    ["--samples", "absent.npz", "--claim-eps", "1"],
    ["--samples", "usermech.py", "--claim-eps", "1"],
    ["--samples", "lap.npz"],
    ["--samples", "lap.npz", "--claim-eps", "-1"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--delta", "-0.1"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--delta", "1.5"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--delta", "1"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--confidence", "1"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--output", "pixels"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--selection-fraction", "0"],
    ["--samples", "lap.npz", "--mechanism", "usermech:release", "--claim-eps", "1"],
    ["--samples", "lap.npz", "--claim-eps", "1", "--only", "jia.*"],
    ["--mechanism", "usermech:release", "--claim-eps", "1", "--n", "0"],
    ["--mechanism", "usermech:release", "--claim-eps", "1", "--n", "-3"],
    ["--mechanism", "usermech:release", "--claim-eps", "1", "--chunk", "0"],
    ["--mechanism", "usermech:short", "--claim-eps", "1", "--n", "100"],
    ["--mechanism", "usermech:boom", "--claim-eps", "1", "--n", "100"],
    ["--mechanism", "usermech:nothing", "--claim-eps", "1"],
    ["--mechanism", "nosuchmodule:f", "--claim-eps", "1"],
    ["--mechanism", "usermech", "--claim-eps", "1"],
    ["--mechanism", "usermech:release", "--datasets", "usermech:release", "--claim-eps", "1", "--n", "100"],
    ["--claim-eps", "1"],
])
def test_cli_bad_input_prints_one_line_and_exits_2(user_files, capsys, args):
    code, out, err = _run(capsys, *args)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and err.startswith("error: ")
    assert "Traceback" not in err
