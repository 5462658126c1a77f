"""Issue 32, item 1: the two-tail guess tests as members of the auditor's Bonferroni family, and item 2:
the trade-off line's default (off; ``tradeoff=None`` applies the rule ``tradeoff_applies``).

Validity is checked on mechanisms that ``bench/audit_catalogue.py`` does not contain (a Laplace at
ε = 0.7, a Gaussian σ = 2 at δ = 1e-6, a Laplace clamped *after* the noise to [−1.5, 2.5], which is
post-processing and keeps ε = 1): false alarms at the true ε ≤ α over 200 seeds here, 1000 under
``-m slow``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from verify.audit import audit, audit_samples, audit_seed, gaussian_true_eps
from verify.audit.core import choose_tails
from verify.audit.pooled import tails_eps_lower

ALPHA = 0.05
SIGMA, DELTA_G = 2.0, 1e-6


def _rate_ok(k: int, n: int, alpha: float = ALPHA) -> bool:
    """False alarms k of n are compatible with a rate ≤ alpha (one-sided binomial test at 1e-3)."""
    return stats.binomtest(k, n, alpha, alternative="greater").pvalue > 1e-3


def _mechanisms() -> dict[str, tuple]:
    """name -> (release0, release1, delta, true ε on the pair); none is in the catalogue."""
    b = 1 / 0.7
    return {
        "Laplace eps 0.7": (lambda r, k: r.laplace(0, b, k), lambda r, k: 1 + r.laplace(0, b, k), 0.0, 0.7),
        "Gaussian sigma 2, delta 1e-6": (lambda r, k: r.normal(0, SIGMA, k), lambda r, k: 1 + r.normal(0, SIGMA, k),
                                         DELTA_G, gaussian_true_eps(SIGMA, DELTA_G)),
        "Laplace clamped after the noise": (lambda r, k: np.clip(r.laplace(0, 1, k), -1.5, 2.5),
                                            lambda r, k: np.clip(1 + r.laplace(0, 1, k), -1.5, 2.5), 0.0, 1.0),
    }


def _alarms(name: str, seeds: int, n: int) -> tuple[int, int]:
    """(false alarms at the true ε, audits whose best test was a two-tail test) over ``seeds`` audits."""
    r0, r1, delta, true = _mechanisms()[name]
    over = tails = 0
    for s in range(seeds):
        r = audit(r0, r1, n=n, seed=audit_seed(32, "tails", name, s), delta=delta, claim_eps=true)
        over += r.verdict == "violated"
        tails += r.details["event_family"] == "two tails"
    return over, tails


@pytest.mark.parametrize("name", list(_mechanisms()))
def test_two_tail_tests_keep_false_alarms_below_alpha_at_the_true_eps(name):
    over, tails = _alarms(name, 200, 3000)
    assert _rate_ok(over, 200), (name, over)
    assert tails >= 20, (name, tails)        # the new tests are the chosen ones often enough to be checked


@pytest.mark.slow
@pytest.mark.parametrize("name", list(_mechanisms()))
def test_two_tail_tests_keep_false_alarms_below_alpha_over_1000_seeds(name):
    over, tails = _alarms(name, 1000, 3000)
    assert _rate_ok(over, 1000), (name, over)
    assert tails >= 100, (name, tails)


def test_the_bound_of_a_two_tail_test_is_the_pooled_bound_at_the_bonferroni_level():
    rng = np.random.default_rng(5)
    d0, d1 = rng.normal(0, SIGMA, 60_000), 1 + rng.normal(0, SIGMA, 60_000)
    for s in range(6):
        r = audit_samples(d0, d1, seed=s, delta=DELTA_G)
        if r.details["event_family"] != "two tails":
            continue
        ne, K = r.details["n_evaluation0"], r.details["tests"]
        right, wrong = r.details["right_guesses"], r.details["wrong_guesses"]
        assert right + wrong <= 2 * ne
        assert r.eps_lower == tails_eps_lower(right, wrong, ne, delta=DELTA_G, confidence=1 - ALPHA / K)
        assert r.eps_lower <= gaussian_true_eps(SIGMA, DELTA_G)
        return
    pytest.fail("no seed chose a two-tail test on a symmetric Gaussian pair")


def test_equal_rate_tails_of_mirror_image_laws_are_symmetric_about_the_midpoint():
    rng = np.random.default_rng(0)
    t0, t1 = rng.normal(0, 1.5, 40_000), 3 + rng.normal(0, 1.5, 40_000)
    tau, tau_d, d, e = choose_tails(t0, t1, 200_000, 0.0, 0.01)
    assert d == 1 and tau_d < 1.5 < tau and e > 0
    assert abs((tau - 1.5) - (1.5 - tau_d)) < 0.35            # mirror images about the midpoint 1.5
    tau, tau_d, d, e = choose_tails(-t0, -t1, 200_000, 0.0, 0.01)   # D′ now lower: the mirrored test
    assert d == -1 and tau < -1.5 < tau_d


def test_pooling_both_tails_beats_the_best_single_tail_with_the_event_known():
    # expected counts, Gaussian σ = 2 at δ = 1e-6, n = 1e5 per side, in units of σ: D ~ N(0, 1), D′ ~ N(μ, 1)
    from verify.audit import eps_lower_bound

    n, mu = 10**5, 1 / SIGMA
    best_one = best_two = 0.0
    for k in np.linspace(mu / 2, 6.0, 600):
        fp, fn = round(n * stats.norm.sf(k)), round(n * stats.norm.cdf(k - mu))     # one tail: say D′ when T > k
        best_one = max(best_one, eps_lower_bound(fp, n, fn, n, DELTA_G))
        # both tails, mirror images about μ/2: E₁ = {T > k} says D′, E₀ = {T < μ − k} says D
        right, wrong = round(2 * n * stats.norm.sf(k - mu)), round(2 * n * stats.norm.sf(k))
        best_two = max(best_two, tails_eps_lower(right, wrong, n, delta=DELTA_G, confidence=0.95))
    assert best_two > best_one + 0.03, (best_one, best_two)
    assert best_two < gaussian_true_eps(SIGMA, DELTA_G)


# ---------------------------------------------------------------------------
# the trade-off line: off by default, the rule on request
# ---------------------------------------------------------------------------

def test_tradeoff_default_off_rule_on_request_and_explicit_choices():
    r0, r1, delta, _ = _mechanisms()["Gaussian sigma 2, delta 1e-6"]
    assert audit(r0, r1, n=3000, seed=0, delta=delta).tradeoff is None            # default: off
    rule = audit(r0, r1, n=3000, seed=0, delta=delta, tradeoff=None)
    assert rule.tradeoff is not None and "plausible" in rule.details["tradeoff_rule"]
    lap0, lap1, _, _ = _mechanisms()["Laplace eps 0.7"]
    pure = audit(lap0, lap1, n=3000, seed=0, tradeoff=None)
    assert pure.tradeoff is None and "δ = 0" in pure.details["tradeoff_rule"]
    codes = (lambda r, k: (r.random(k) < 0.7).astype(np.int64), lambda r, k: (r.random(k) < 0.3).astype(np.int64))
    assert audit(*codes, n=3000, seed=0, delta=1e-5, tradeoff=None).tradeoff is None   # categorical: never Gaussian
    assert audit(*codes, n=3000, seed=0, delta=1e-5, tradeoff=True).tradeoff is not None
    assert audit(r0, r1, n=3000, seed=0, delta=delta, tradeoff=False).tradeoff is None
    # the line never changes the plain bound it sits beside
    assert rule.eps_lower == audit(r0, r1, n=3000, seed=0, delta=delta).eps_lower


@pytest.mark.parametrize("bad", ["auto", 1, 0.5])
def test_tradeoff_must_be_none_or_a_bool(bad):
    lap0, lap1, _, _ = _mechanisms()["Laplace eps 0.7"]
    with pytest.raises(ValueError, match="'tradeoff'"):
        audit(lap0, lap1, n=500, seed=0, tradeoff=bad)
    with pytest.raises(ValueError, match="'tradeoff'"):
        audit_samples(np.zeros(100) + np.arange(100), np.arange(100.0) + 1, tradeoff=bad)


def test_the_two_tail_family_is_named_with_its_detectable_probability():
    lap0, lap1, _, _ = _mechanisms()["Laplace eps 0.7"]
    r = audit(lap0, lap1, n=20_000, seed=1, claim_eps=0.7)
    fam = {f["family"]: f for f in r.details["families"]}
    assert "two tails" in fam and fam["two tails"]["tests"] >= 1
    p = fam["two tails"]["min_prob"]
    assert p is not None and 0 < p < 1 and math.isfinite(p)
    assert "pairs of tails" in r.meaning()


# ---------------------------------------------------------------------------
# the conditional pair test (rare sets of both sides pooled, δ = 0)
# ---------------------------------------------------------------------------

def _pair_alarms(seeds: int, n: int, a: float, b: float, eps: float, conf: float = 0.95, bound: bool = False) -> int:
    """False alarms at the boundary of ε-DP: P_D(E₀) = e^ε a, P_D′(E₀) = a, P_D′(E₁) = e^ε b, P_D(E₁) = b (the
    log-odds add up to exactly 2ε), n releases per side: p-value ≤ 1 − conf at ε, or (``bound``) ε_lower > ε."""
    from verify.audit.pooled import pair_conditional_eps_lower, pair_conditional_p_value

    rng = np.random.default_rng(np.random.SeedSequence([32, seeds, n]))
    e = math.exp(eps)
    over = 0
    for _ in range(seeds):
        r0, w0, _ = rng.multinomial(n, [e * a, b, 1 - e * a - b])
        r1, w1, _ = rng.multinomial(n, [e * b, a, 1 - e * b - a])
        counts = (int(r0), int(w0), int(r1), int(w1))
        over += (pair_conditional_eps_lower(*counts, confidence=conf) > eps if bound else
                 pair_conditional_p_value(*counts, eps) <= 1 - conf)
    return over


@pytest.mark.parametrize("a, b", [(1e-3, 1e-3), (2e-3, 2e-4), (5e-4, 0.0)])
def test_pair_conditional_false_alarms_within_alpha_at_the_boundary(a, b):
    assert _rate_ok(_pair_alarms(300, 5_000, a, b, 1.0), 300)


@pytest.mark.slow
@pytest.mark.parametrize("a, b", [(1e-3, 1e-3), (2e-3, 2e-4), (5e-4, 0.0), (1e-2, 3e-3)])
def test_pair_conditional_false_alarms_over_1000_seeds(a, b):
    assert _rate_ok(_pair_alarms(1000, 10_000, a, b, 1.0, bound=True), 1000)


def test_pair_conditional_matches_the_fair_coin_tail_and_has_power():
    from verify.audit.pooled import pair_conditional_eps_lower, pair_conditional_p_value

    q = math.e / (1 + math.e)
    for m in (4, 10, 25):                          # m right guesses on each side, none wrong: the fair-coin tail q^(2m)
        p = pair_conditional_p_value(m, 0, m, 0, 1.0)
        assert q ** (2 * m) <= p <= 1.02 * q ** (2 * m)
    assert pair_conditional_p_value(12, 0, 0, 0, 1.0) == 1.0          # all guesses on one side: no evidence
    # a set impossible on the other side, 40 occurrences per side: far beyond ε = 1, and beyond the unpooled test
    from verify.audit.pooled import conditional_eps_lower

    pooled = pair_conditional_eps_lower(40, 0, 40, 0, confidence=0.95)
    single = conditional_eps_lower(40, 10**5, 0, 10**5, confidence=0.95, seed=np.random.SeedSequence(0))
    assert pooled > single > 1.0
    # exact against a direct sum over the null line (independent computation with scipy.stats)
    r0, w0, r1, w1, eps = 6, 2, 5, 1, 0.4
    xs = np.linspace(-8, 8.8, 4001)
    direct = max(float(sum(stats.binom.pmf(i, r0 + w0, 1 / (1 + math.exp(-x)))
                           * stats.binom.sf(r0 + r1 - i - 1, r1 + w1, 1 / (1 + math.exp(-(2 * eps - x))))
                           for i in range(r0 + w0 + 1))) for x in xs[::40])
    p = pair_conditional_p_value(r0, w0, r1, w1, eps)
    assert direct <= p <= 1.03 * direct


def test_rare_sets_of_both_sides_are_pooled_on_a_count_sometimes_exact():
    def exact_sometimes(count):
        def rel(rng, k):
            return np.where(rng.random(k) < 2e-3, float(count), count + rng.laplace(0, 1 / 0.7, k))
        return rel

    r = audit(exact_sometimes(3.0), exact_sometimes(4.0), n=60_000, seed=2, claim_eps=0.7)
    fam = {f["family"] for f in r.details["families"]}
    assert "pooled rare sets" in fam and r.verdict == "violated"
    assert r.details["event_family"] == "pooled rare sets" and r.eps_lower > 2.0
