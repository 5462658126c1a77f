"""Pooled and conditional tests (verify.audit.pooled): validity at the null boundary, power, monotonicity,
agreement with independent references.

References are independent of the module: scipy.stats.fisher_exact and hypergeom (the Fisher p-value),
scipy.stats.binomtest (the binomial tail), an exact Poisson-binomial law by convolution (Hoeffding's
condition, which the fair-guess bound relies on).  False-alarm rates are tested against α with a
one-sided binomial test at level 1e-3 (as in test_audit_tradeoff.py): a valid bound fails about once in a
thousand runs of this file (seeds are fixed, so in practice never); one whose false-alarm rate were twice
α fails it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from verify.audit import audit_seed
from verify.audit.pooled import (
    conditional_eps_lower,
    conditional_p_value,
    fisher_greater,
    guess_eps_lower,
    guess_p_value,
    tails_eps_lower,
    tails_p_value,
)


def _rate_ok(k: int, n: int, alpha: float) -> bool:
    """k false alarms of n are compatible with a rate ≤ alpha (one-sided binomial test at 1e-3)."""
    return stats.binomtest(k, n, alpha, alternative="greater").pvalue > 1e-3


# --------------------------------------------------------------------------- references
@pytest.mark.parametrize("k0,n0,k1,n1", [(3, 10, 0, 10), (27, 10_000, 10, 10_000), (500, 1000, 400, 1200),
                                         (0, 50, 0, 60), (40, 100_000, 0, 100_000), (5, 7, 7, 7),
                                         (2718, 100_000, 1000, 100_000), (1, 3, 2, 900)])
def test_fisher_matches_scipy(k0, n0, k1, n1):
    ref = stats.fisher_exact([[k0, n0 - k0], [k1, n1 - k1]], alternative="greater")[1]
    assert fisher_greater(k0, n0, k1, n1) == pytest.approx(ref, rel=1e-8, abs=1e-300)
    # the same tail from the hypergeometric law directly
    assert fisher_greater(k0, n0, k1, n1) == pytest.approx(
        stats.hypergeom.sf(k0 - 1, n0 + n1, k0 + k1, n0), rel=1e-8, abs=1e-300)


def test_conditional_p_value_is_fisher_on_the_thinned_count():
    # claim ε = 0: nothing is thinned (U ∈ (0, 1] is kept iff U < 1), the test is Fisher's exact test
    for c0, c1 in ((30, 12), (8, 0), (400, 390)):
        ref = stats.fisher_exact([[c0, 10_000 - c0], [c1, 10_000 - c1]], alternative="greater")[1]
        assert conditional_p_value(c0, 10_000, c1, 10_000, 0.0, seed=np.random.SeedSequence(3)) \
            == pytest.approx(ref, rel=1e-8)
    # at ε the kept count is a Bin(c0, e^{-ε}) thinning: its mean over seeds matches c0·e^{-ε}
    kept = []
    for s in range(400):
        p = conditional_p_value(50, 10_000, 0, 10_000, 1.0, seed=np.random.SeedSequence(s))
        kept.append(round(math.log(p) / math.log(0.5)))          # c1 = 0, equal n: p = C(n,k)/C(2n,k) ≈ 2^-k
    assert abs(np.mean(kept) - 50 * math.exp(-1)) < 0.6


@pytest.mark.parametrize("S,N,p", [(120, 200, 0.5), (1300, 2000, 0.6), (15, 20, 0.6)])
def test_guess_p_value_is_the_binomial_tail(S, N, p):
    eps = math.log(p / (1 - p))                                   # p*(ε) = e^ε/(1 + e^ε) at δ = 0, n0 = n1
    fp = (N - S) // 2
    ref = stats.binomtest(S, N, p, alternative="greater").pvalue
    assert guess_p_value(fp, N // 2, N - S - fp, N // 2, eps, delta=0.0) == pytest.approx(ref, rel=1e-6)


def test_hoeffding_condition_poisson_binomial_tail():
    """The cited fact, checked exactly: P[S ≥ c] ≤ P[Bin(N, p̄) ≥ c] for c ≥ N p̄ + 1, and that it can fail below."""
    rng = np.random.default_rng(0)
    for _ in range(40):
        N = int(rng.integers(2, 60))
        p = rng.random(N) ** rng.uniform(0.3, 4)
        pmf = np.array([1.0])
        for pi in p:
            pmf = np.convolve(pmf, [1 - pi, pi])
        sf = pmf[::-1].cumsum()[::-1]                             # sf[c] = P[S ≥ c]
        mean = p.sum()
        for c in range(int(math.ceil(mean + 1)), N + 1):
            assert sf[c] <= stats.binom.sf(c - 1, N, mean / N) * (1 + 1e-9) + 1e-15
    # below the condition a Poisson-binomial tail can exceed its binomial's: P[S ≥ 1], rates (2q, 0)
    q = 0.01
    assert 2 * q > stats.binom.sf(0, 2, q)


# --------------------------------------------------------------------------- validity at the null boundary
#: (n, p1, ε): P_D(E) = e^ε P_D′(E) exactly; rare events included
BOUNDARY = [(10_000, 1e-3, 1.0), (100_000, 1e-4, 2.0), (2_000, 0.05, 0.5), (20_000, 0.3, 1.0)]


def _conditional_false_alarms(n: int, p1: float, eps: float, seeds: int, confidence: float) -> tuple[int, int]:
    p0 = math.exp(eps) * p1
    fa_bound = fa_p = 0
    for s in range(seeds):
        ss = audit_seed(32, "conditional", n, p1, eps, s).spawn(2)
        rng = np.random.default_rng(ss[0])
        c0, c1 = int(rng.binomial(n, p0)), int(rng.binomial(n, p1))
        fa_bound += conditional_eps_lower(c0, n, c1, n, confidence=confidence, seed=ss[1]) > eps
        fa_p += conditional_p_value(c0, n, c1, n, eps, seed=ss[1]) <= 1 - confidence
    return fa_bound, fa_p


def _guess_counts(rng: np.random.Generator, n0: int, n1: int, a: float, b: float) -> tuple[int, int]:
    return int(rng.binomial(n0, a)), int(rng.binomial(n1, b))


def _corner(eps: float, delta: float) -> float:
    return (1 - delta) / (1 + math.exp(eps))


#: (n0, n1, ε, δ, FPR, FNR): points on the boundary of the (ε, δ) privacy region where the bound is tight
GUESS_BOUNDARY = [
    (10_000, 10_000, 1.0, 0.0, _corner(1.0, 0.0), _corner(1.0, 0.0)),          # randomized response
    (10_000, 10_000, 1.0, 1e-3, _corner(1.0, 1e-3), _corner(1.0, 1e-3)),       # its (ε, δ) corner
    (2_000, 2_000, 0.3, 0.0, _corner(0.3, 0.0), _corner(0.3, 0.0)),
    (3_000, 1_000, 0.5, 0.0, 0.0, 1.0),                                         # unequal n: vertex (0, 1 − δ)
    (50, 50, 2.0, 0.0, _corner(2.0, 0.0), _corner(2.0, 0.0)),                   # few releases
]


def _guess_false_alarms(n0: int, n1: int, eps: float, delta: float, a: float, b: float, seeds: int,
                        confidence: float) -> tuple[int, int]:
    fa_bound = fa_p = 0
    for s in range(seeds):
        rng = np.random.default_rng(audit_seed(32, "guess", n0, n1, eps, delta, a, s))
        fp, fn = _guess_counts(rng, n0, n1, a, b)
        fa_bound += guess_eps_lower(fp, n0, fn, n1, delta=delta, confidence=confidence) > eps
        fa_p += guess_p_value(fp, n0, fn, n1, eps, delta=delta) <= 1 - confidence
    return fa_bound, fa_p


@pytest.mark.parametrize("n,p1,eps", BOUNDARY)
def test_conditional_false_alarms_within_alpha(n, p1, eps):
    seeds, confidence = 300, 0.8              # α = 0.2: an invalid bound shows in 300 seeds
    fa = _conditional_false_alarms(n, p1, eps, seeds, confidence)
    assert all(_rate_ok(k, seeds, 1 - confidence) for k in fa), fa


@pytest.mark.parametrize("case", GUESS_BOUNDARY)
def test_guess_false_alarms_within_alpha(case):
    seeds, confidence = 300, 0.8
    fa = _guess_false_alarms(*case, seeds, confidence)
    assert all(_rate_ok(k, seeds, 1 - confidence) for k in fa), fa


def test_the_false_alarm_check_has_power():
    # the same check on a wrong null (claim ε below the truth by 0.3) must reject: the checks above can fail
    seeds, confidence = 300, 0.8
    n, p1, eps = BOUNDARY[2]
    fa, _ = _conditional_false_alarms(n, p1, eps, seeds, confidence)
    alarms = 0
    for s in range(seeds):
        ss = audit_seed(32, "conditional-power", s).spawn(2)
        rng = np.random.default_rng(ss[0])
        c0, c1 = int(rng.binomial(n, math.exp(eps) * p1)), int(rng.binomial(n, p1))
        alarms += conditional_eps_lower(c0, n, c1, n, confidence=confidence, seed=ss[1]) > eps - 0.3
    assert not _rate_ok(alarms, seeds, 1 - confidence) and alarms > fa


@pytest.mark.slow
@pytest.mark.parametrize("n,p1,eps", BOUNDARY)
def test_conditional_false_alarms_1000_seeds(n, p1, eps):
    seeds, confidence = 1000, 0.95
    fa = _conditional_false_alarms(n, p1, eps, seeds, confidence)
    assert all(_rate_ok(k, seeds, 1 - confidence) for k in fa), fa


@pytest.mark.slow
@pytest.mark.parametrize("case", GUESS_BOUNDARY)
def test_guess_false_alarms_1000_seeds(case):
    seeds, confidence = 1000, 0.95
    fa = _guess_false_alarms(*case, seeds, confidence)
    assert all(_rate_ok(k, seeds, 1 - confidence) for k in fa), fa


# --------------------------------------------------------------------------- monotonicity and consistency
def test_conditional_p_value_monotone_in_eps_and_consistent_with_the_bound():
    for s, (c0, c1) in enumerate(((60, 10), (25, 0), (3000, 1200))):
        ss = np.random.SeedSequence(s)
        eps_grid = np.linspace(0, 4, 81)
        p = [conditional_p_value(c0, 50_000, c1, 50_000, float(e), seed=ss) for e in eps_grid]
        assert np.all(np.diff(p) >= -1e-9 * np.asarray(p[1:])), p      # float rounding of sums near 1
        lo = conditional_eps_lower(c0, 50_000, c1, 50_000, confidence=0.95, seed=ss)
        # the bound is the sup of the rejected claims: rejected just below it, not at or above it
        assert lo > 0
        assert conditional_p_value(c0, 50_000, c1, 50_000, lo * (1 - 1e-9), seed=ss) <= 0.05
        assert conditional_p_value(c0, 50_000, c1, 50_000, lo, seed=ss) > 0.05


def test_guess_bound_monotone_and_sup_of_rejected_claims():
    for fp, fn, delta in ((2300, 2300, 0.0), (2000, 3000, 1e-4), (100, 4000, 0.0)):
        eps_grid = np.linspace(0, 3, 61)
        p = [guess_p_value(fp, 10_000, fn, 10_000, float(e), delta=delta) for e in eps_grid]
        assert np.all(np.diff(p) >= 0), p
        lo = guess_eps_lower(fp, 10_000, fn, 10_000, delta=delta, confidence=0.95)
        assert lo > 0
        assert guess_p_value(fp, 10_000, fn, 10_000, lo * (1 - 1e-9), delta=delta) <= 0.05
        assert guess_p_value(fp, 10_000, fn, 10_000, lo * (1 + 1e-6), delta=delta) > 0.05
    # more errors, smaller bound; larger δ, smaller bound; higher confidence, smaller bound
    g = [guess_eps_lower(f, 10_000, f, 10_000, delta=0.0, confidence=0.95) for f in (1000, 2000, 3000, 4000)]
    assert np.all(np.diff(g) < 0)
    assert guess_eps_lower(2000, 10_000, 2000, 10_000, delta=1e-2, confidence=0.95) < g[1]
    assert guess_eps_lower(2000, 10_000, 2000, 10_000, delta=0.0, confidence=0.999) < g[1]


def test_conditional_bound_monotone_in_counts():
    ss = np.random.SeedSequence(7)
    a = [conditional_eps_lower(c0, 10**5, 5, 10**5, confidence=0.95, seed=ss) for c0 in (20, 40, 80, 160)]
    assert np.all(np.diff(a) > 0), a
    b = [conditional_eps_lower(100, 10**5, c1, 10**5, confidence=0.95, seed=ss) for c1 in (0, 5, 20, 60)]
    assert np.all(np.diff(b) < 0), b


# --------------------------------------------------------------------------- power
def test_conditional_detects_a_value_released_without_noise():
    # a count released exactly with probability 1e-3 on D (never on D′: continuous noise there): ε = ∞
    n, hits = 100_000, 0
    for s in range(20):
        ss = audit_seed(32, "noise-free", s).spawn(2)
        c0 = int(np.random.default_rng(ss[0]).binomial(n, 1e-3))
        hits += conditional_eps_lower(c0, n, 0, n, confidence=0.95, seed=ss[1]) > 2.0
    assert hits == 20
    # the conditional test beats the Clopper–Pearson ratio bound (two limits at α/2) on such rare events
    c0 = 40
    cp = math.log(stats.beta.ppf(0.025, c0, n - c0 + 1) / stats.beta.ppf(0.975, 1, n))
    cond = [conditional_eps_lower(c0, n, 0, n, confidence=0.95, seed=np.random.SeedSequence(s)) for s in range(10)]
    assert np.median(cond) > cp


def test_guess_detects_randomized_response_above_its_claim():
    # RR at ε = 2 (keep w.p. e²/(1+e²)) claimed as ε = 1: detected
    keep = math.exp(2) / (1 + math.exp(2))
    rng = np.random.default_rng(audit_seed(32, "rr2"))
    fp, fn = int(rng.binomial(20_000, 1 - keep)), int(rng.binomial(20_000, 1 - keep))
    assert guess_eps_lower(fp, 20_000, fn, 20_000, delta=0.0, confidence=0.95) > 1.8
    assert guess_p_value(fp, 20_000, fn, 20_000, 1.0, delta=0.0) < 1e-10


# --------------------------------------------------------------------------- two tails pooled (abstention)
def _three_outcome_is_dp(p0: np.ndarray, p1: np.ndarray, eps: float, delta: float) -> bool:
    """Every subset S of {says D, says D′, abstains}: P0(S) ≤ e^ε P1(S) + δ and back (checked exhaustively)."""
    for mask in range(1, 8):
        m = np.array([(mask >> i) & 1 for i in range(3)], dtype=bool)
        a, b = p0[m].sum(), p1[m].sum()
        if a > math.exp(eps) * b + delta + 1e-15 or b > math.exp(eps) * a + delta + 1e-15:
            return False
    return True


#: (n, ε, δ, s0, s1): on D (says D, says D′, abstains) = (e^ε s1 + δ, s0, ·); on D′ (s1, e^ε s0 + δ, ·):
#: both DP inequalities of the two events tight; s0 ≠ s1 makes the counts Poisson-binomial
TAILS_BOUNDARY = [(10_000, 1.0, 0.0, 2e-3, 2e-3), (10_000, 1.0, 1e-4, 1e-4, 4e-4), (50_000, 0.5, 1e-5, 5e-5, 0.0),
                  (2_000, 2.0, 0.0, 0.02, 0.05)]


def _tails_false_alarms(n: int, eps: float, delta: float, s0: float, s1: float, seeds: int,
                        confidence: float) -> tuple[int, int]:
    p0 = np.array([math.exp(eps) * s1 + delta, s0, 0.0])
    p1 = np.array([s1, math.exp(eps) * s0 + delta, 0.0])
    p0[2], p1[2] = 1 - p0[:2].sum(), 1 - p1[:2].sum()
    assert _three_outcome_is_dp(p0, p1, eps, delta)
    assert not _three_outcome_is_dp(p0, p1, eps * 0.95, delta)       # tight: at the null boundary
    fa_bound = fa_p = 0
    for s in range(seeds):
        rng = np.random.default_rng(audit_seed(32, "tails", n, eps, delta, s0, s1, s))
        x0, x1 = rng.multinomial(n, p0), rng.multinomial(n, p1)
        correct, wrong = int(x0[0] + x1[1]), int(x0[1] + x1[0])
        fa_bound += tails_eps_lower(correct, wrong, n, delta=delta, confidence=confidence) > eps
        fa_p += tails_p_value(correct, wrong, n, eps, delta=delta) <= 1 - confidence
    return fa_bound, fa_p


@pytest.mark.parametrize("case", TAILS_BOUNDARY)
def test_tails_false_alarms_within_alpha(case):
    seeds, confidence = 300, 0.8
    fa = _tails_false_alarms(*case, seeds, confidence)
    assert all(_rate_ok(k, seeds, 1 - confidence) for k in fa), fa


@pytest.mark.slow
@pytest.mark.parametrize("case", TAILS_BOUNDARY)
def test_tails_false_alarms_1000_seeds(case):
    seeds, confidence = 1000, 0.95
    fa = _tails_false_alarms(*case, seeds, confidence)
    assert all(_rate_ok(k, seeds, 1 - confidence) for k in fa), fa


def test_tails_limits_against_clopper_pearson_and_p_value_consistency():
    # away from Hoeffding's edge the limits are the Clopper–Pearson limits on 2n (scipy.stats.beta)
    n, correct, wrong, a = 10_000, 2_000, 400, 0.025
    lo, up = stats.beta.ppf(a, correct, 2 * n - correct + 1), stats.beta.ppf(1 - a, wrong + 1, 2 * n - wrong)
    assert tails_eps_lower(correct, wrong, n, delta=0.0, confidence=0.95) == pytest.approx(math.log(lo / up), rel=1e-9)
    e = tails_eps_lower(correct, wrong, n, delta=1e-3, confidence=0.95)
    assert tails_p_value(correct, wrong, n, e * (1 - 1e-6), delta=1e-3) <= 0.05 + 1e-9
    assert tails_p_value(correct, wrong, n, e * (1 + 1e-6), delta=1e-3) > 0.05 - 1e-9
    # rare counts: one correct guess shows nothing (the comparison with a binomial needs k ≥ N p + 1)
    assert tails_eps_lower(1, 0, n, delta=0.0, confidence=0.95) == 0.0


def test_tails_pooling_beats_one_tail_on_the_gaussian_mechanism():
    """Gaussian (1, 1e-5), events known in advance: both tails pooled vs the auditor's single threshold, same draws."""
    from bounds.accounting import gaussian_sigma
    from verify.audit import eps_lower_bound

    mu, n, t = 1 / gaussian_sigma(1.0, 1e-5), 100_000, 2.71          # t: the best offset by expected counts
    c, w = stats.norm.sf(mu / 2 + t - mu), stats.norm.sf(mu / 2 + t)
    pooled, single, fa = [], [], 0
    for s in range(30):
        rng = np.random.default_rng(audit_seed(32, "gauss-tails", s))
        x0, x1 = rng.multinomial(n, [c, w, 1 - c - w]), rng.multinomial(n, [w, c, 1 - c - w])
        pooled.append(tails_eps_lower(int(x0[0] + x1[1]), int(x0[1] + x1[0]), n, delta=1e-5, confidence=0.95))
        single.append(eps_lower_bound(int(x0[1]), n, int(n - x1[1]), n, 1e-5, 0.95))   # the upper tail alone
        fa += pooled[-1] > 1.0
    assert fa <= 3                                  # true ε = 1 (P[> 3 of 30] < 1e-3 at α = 0.05)
    assert np.median(pooled) > np.median(single) + 0.03, (np.median(pooled), np.median(single))


# --------------------------------------------------------------------------- inputs
@pytest.mark.parametrize("call, match", [
    (lambda: conditional_eps_lower(5, 4, 0, 10, confidence=0.95, seed=0), "'c0'"),
    (lambda: conditional_eps_lower(1, 4, -1, 10, confidence=0.95, seed=0), "'c1'"),
    (lambda: conditional_eps_lower(1, 0, 0, 10, confidence=0.95, seed=0), "'n0'"),
    (lambda: conditional_eps_lower(1, 4, 0, 10, confidence=1.0, seed=0), "'confidence'"),
    (lambda: conditional_eps_lower(1, 4, 0, 10, confidence=0.9, seed=-1), "'seed'"),
    (lambda: conditional_p_value(1, 4, 0, 10, -0.5, seed=0), "'claim_eps'"),
    (lambda: guess_eps_lower(1, 4, 0, 10, delta=1.0, confidence=0.9), "'delta'"),
    (lambda: guess_eps_lower(1.5, 4, 0, 10, delta=0.0, confidence=0.9), "'fp'"),
    (lambda: guess_eps_lower(1, 4, 11, 10, delta=0.0, confidence=0.9), "'fn'"),
    (lambda: guess_p_value(1, 4, 0, 10, float("nan"), delta=0.0), "'claim_eps'"),
    (lambda: tails_eps_lower(15, 6, 10, delta=0.0, confidence=0.9), "'correct'.*'wrong'"),
    (lambda: tails_eps_lower(1, 1, 0, delta=0.0, confidence=0.9), "'n'"),
    (lambda: tails_p_value(1, 1, 10, -1.0, delta=0.0), "'claim_eps'"),
])
def test_bad_input_raises_naming_the_parameter(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_same_seed_same_bound():
    a = conditional_eps_lower(300, 10**5, 100, 10**5, confidence=0.95, seed=np.random.SeedSequence(5))
    b = conditional_eps_lower(300, 10**5, 100, 10**5, confidence=0.95, seed=np.random.SeedSequence(5))
    assert a == b


def test_pooled_module_imports_only_numpy_and_scipy_special():
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = (f"import sys; sys.path.insert(0, {str(root)!r})\n"
            "import verify.audit.pooled as m\n"       # the package's __init__ loads its names lazily
            "m.conditional_eps_lower(30, 1000, 2, 1000, confidence=0.95, seed=0)\n"
            "m.guess_eps_lower(100, 1000, 100, 1000, delta=0.0, confidence=0.95)\n"
            "m.tails_eps_lower(100, 10, 1000, delta=0.0, confidence=0.95)\n"
            "print(*(k in sys.modules for k in ('scipy.stats', 'scipy.optimize', 'sympy', 'bounds')))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False"] * 4, out
