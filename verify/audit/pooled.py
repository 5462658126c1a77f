r"""Pooled and conditional tests: lower bounds on ε from one event's counts, without a Bonferroni split.

Two constructions complement the auditor's unconditional Clopper–Pearson bound
(:func:`verify.audit.core.eps_lower_bound`, two one-sided limits at α/2 each):

* :func:`conditional_eps_lower` / :func:`conditional_p_value` — **StatDP's conditional test**
  (Ding, Wang, Wang, Zhang & Kifer 2018, CCS, "Detecting violations of differential privacy"):
  an event E seen c0 times in n0 releases on D and c1 times in n1 on D′; the null is pure ε-DP in
  the direction of E, P_D(E) ≤ e^ε P_D′(E).  The D-side occurrences are thinned by e^{−ε} and the
  thinned table is tested by the one-sided Fisher exact test (a hypergeometric upper tail).  One
  test, one α, exact at any count: it is the stronger bound for **rare events** (c1 = 0 or a few),
  e.g. a value released without noise on one side only, and for several rare events pooled into
  one union.  For common events the two are close, the conditional one ahead for ε below about
  0.9 and behind above (at 95 %, normal approximation: Clopper–Pearson pays z_{α/2}²(1/c0 + 1/c1),
  the thinned test z_α²·2/c1 since thinning keeps c0·e^{−ε} ≈ c1 of the D-side count; equal where
  1 + e^{−ε} = (1.645/1.96)²·2, ε ≈ 0.9).
* :func:`guess_eps_lower` — the **fair-guess bound**: every release is a guess of its data set
  (D when the test says D, D′ otherwise); under (ε, δ)-DP the total of correct guesses is
  stochastically bounded by one binomial, tested with one exact upper tail (no α/2 split, both
  error rates pooled).
* :func:`tails_eps_lower` / :func:`tails_p_value` — **guesses with abstention**: two disjoint events
  (both tails of a statistic) pooled into one count of correct and one of wrong guesses out of 2n,
  with Clopper–Pearson limits made valid for Poisson-binomial counts (Hoeffding 1956).  For the
  Gaussian mechanism (1, 1e-5) with the events known it reaches 0.65 at n = 10⁵ per side, where the
  best single threshold reaches 0.60 and the fair guess without abstention 0.21.

* :func:`pair_conditional_eps_lower` / :func:`pair_conditional_p_value` — **two rare sets pooled,
  conditionally** (δ = 0): E₀ says D, E₁ says D′; the right guesses on each side, given that side's number
  of guesses, are two independent binomials whose log-odds add up to at most 2ε; the exact supremum of
  their total's tail over that line is bounded rigorously (the conditional equivalent, with n per side
  fixed, of a fair coin per release and one exact tail on the guesses).

δ: the conditional test is a test of **pure** ε-DP (δ = 0).  Under (ε, δ)-DP with δ > 0 the
odds-ratio argument below fails (the null P_D(E) ≤ e^ε P_D′(E) + δ has no bound on the odds ratio
when P_D′(E) is small), so :func:`conditional_eps_lower` must not be reported against an (ε, δ)
claim with δ > 0; :func:`guess_eps_lower` takes δ exactly.

Only numpy and scipy.special are imported at module level (start-up cost).

Examples
--------
>>> import numpy as np
>>> s = np.random.SeedSequence(0)
>>> e = conditional_eps_lower(40, 10**5, 0, 10**5, confidence=0.95, seed=s)   # a value seen on D only
>>> 2.0 < e < 3.0
True
>>> round(guess_eps_lower(2_689, 10**4, 2_689, 10**4, delta=0.0, confidence=0.95), 2)   # RR at ε = 1
0.97
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np
from scipy import special

from ._validate import check_count, check_probability, check_seed

__all__ = ["conditional_eps_lower", "conditional_p_value", "fisher_greater", "guess_eps_lower", "guess_p_value",
           "pair_conditional_eps_lower", "pair_conditional_p_value",
           "tails_eps_lower", "tails_p_value"]


# ---------------------------------------------------------------------------
# input checks: verify/audit/_validate.py (shared with core and tradeoff)
# ---------------------------------------------------------------------------



def _counts(c0: Any, n0: Any, c1: Any, n1: Any, names: tuple[str, str, str, str]) -> tuple[int, int, int, int]:
    n0_, n1_ = check_count(names[1], n0, 1), check_count(names[3], n1, 1)
    c0_, c1_ = check_count(names[0], c0, 0), check_count(names[2], c1, 0)
    if c0_ > n0_:
        raise ValueError(f"parameter {names[0]!r} = {c0_} exceeds {names[1]!r} = {n0_} (a count of n0 releases)")
    if c1_ > n1_:
        raise ValueError(f"parameter {names[2]!r} = {c1_} exceeds {names[3]!r} = {n1_} (a count of n1 releases)")
    return c0_, n0_, c1_, n1_






# ---------------------------------------------------------------------------
# Fisher's exact test (one-sided), without scipy.stats
# ---------------------------------------------------------------------------

def _lchoose(n: Any, k: Any) -> Any:
    return special.gammaln(np.add(n, 1)) - special.gammaln(np.add(k, 1)) - special.gammaln(np.subtract(n, k) + 1)


def fisher_greater(k0: int, n0: int, k1: int, n1: int) -> float:
    r"""One-sided Fisher exact p-value of "rate on side 0 > rate on side 1": P[X ≥ k0].

    X is hypergeometric: k0 + k1 marked among n0 + n1, n0 drawn.  Equal to
    ``scipy.stats.fisher_exact([[k0, n0 - k0], [k1, n1 - k1]], alternative="greater")[1]``.
    Log-space sum of the tail (gammaln), relative accuracy about 1e-9 up to 10⁷ releases.

    Examples
    --------
    >>> round(fisher_greater(3, 10, 0, 10), 6)        # P[X ≥ 3], 3 marked among 20, 10 drawn
    0.105263
    """
    k0, n0, k1, n1 = _counts(k0, n0, k1, n1, ("k0", "n0", "k1", "n1"))
    T, N = k0 + k1, n0 + n1
    lo, hi = max(0, n0 - (N - T)), min(n0, T)
    if k0 <= lo:
        return 1.0
    if k0 > hi:
        return 0.0
    mean = n0 * T / N
    sd = math.sqrt(max(mean * (1 - T / N) * (N - n0) / max(N - 1, 1), 1.0))
    window = int(60 * sd) + 100        # the pmf is log-concave: beyond 60 sd from k0 the terms are negligible
    if k0 > mean:                      # the upper tail directly
        x = np.arange(k0, min(hi, k0 + window) + 1, dtype=float)
        return min(1.0, _tail_sum(x, T, N, n0))
    x = np.arange(max(lo, k0 - 1 - window), k0, dtype=float)      # else 1 − the lower tail P[X ≤ k0 − 1]
    return min(1.0, max(0.0, 1.0 - _tail_sum(x, T, N, n0)))


def _tail_sum(x: np.ndarray, T: int, N: int, n0: int) -> float:
    lp = _lchoose(T, x) + _lchoose(N - T, n0 - x) - float(_lchoose(N, n0))
    m = float(lp.max())
    return math.exp(m) * float(np.exp(lp - m).sum())


# ---------------------------------------------------------------------------
# the conditional (StatDP) test of pure ε-DP, coupled across ε
# ---------------------------------------------------------------------------

def _thinning_times(c0: int, seed: np.random.SeedSequence) -> np.ndarray:
    """Sorted −log U_i of one uniform per D-side occurrence: occurrence i survives ε iff −log U_i > ε."""
    u = 1.0 - np.random.default_rng(seed).random(c0)          # in (0, 1]: −log u finite
    return np.sort(-np.log(u))


def conditional_p_value(c0: int, n0: int, c1: int, n1: int, claim_eps: float, *,
                        seed: np.random.SeedSequence) -> float:
    r"""p-value of the claim "P_D(E) ≤ e^ε P_D′(E)" (pure ε-DP in E's direction) by StatDP's test.

    Each of the c0 occurrences of E on D is kept iff U_i < e^{−ε} (one uniform per occurrence, drawn
    from ``seed``; the same uniforms as :func:`conditional_eps_lower`, so the two agree); the kept
    count k is compared with c1 by the one-sided Fisher exact test, p = P[X ≥ k] with X
    hypergeometric (k + c1 marked among n0 + n1, n0 drawn).

    Validity: the kept count is Bin(n0, e^{−ε} P_D(E)) and independent of c1 ~ Bin(n1, P_D′(E)).
    Under the null their rates satisfy p0′ = e^{−ε} P_D(E) ≤ P_D′(E), i.e. an odds ratio ω ≤ 1.
    Given the total, k follows Fisher's noncentral hypergeometric law of odds ω, which is
    stochastically increasing in ω; the p-value is the upper tail at ω = 1, so P[p ≤ α] ≤ α for every
    point of the composite null, conditionally on the total and hence unconditionally.

    With δ > 0 this is not a test of (ε, δ)-DP (see the module docstring).

    Parameters
    ----------
    c0, n0 : int
        Occurrences of E among n0 ≥ 1 releases on D (0 ≤ c0 ≤ n0).
    c1, n1 : int
        Occurrences of E among n1 ≥ 1 releases on D′.
    claim_eps : float
        The claimed ε ≥ 0.
    seed : numpy.random.SeedSequence
        The thinning uniforms (an int ≥ 0 is accepted too).

    Returns
    -------
    float
        p ∈ (0, 1]; p ≤ α rejects the claim at level α.

    Examples
    --------
    >>> s = np.random.SeedSequence(1)
    >>> conditional_p_value(80, 10**5, 0, 10**5, 1.0, seed=s) < 1e-6     # 80 vs 0: far beyond e^1
    True
    >>> conditional_p_value(0, 10**5, 5, 10**5, 0.0, seed=s)
    1.0
    """
    c0, n0, c1, n1 = _counts(c0, n0, c1, n1, ("c0", "n0", "c1", "n1"))
    if isinstance(claim_eps, bool) or not isinstance(claim_eps, numbers.Real) or not float(claim_eps) >= 0 \
            or math.isnan(float(claim_eps)):
        raise ValueError(f"parameter 'claim_eps' = {claim_eps!r} must be a real number ≥ 0 (the claimed ε)")
    v = _thinning_times(c0, check_seed(seed))
    k = int(c0 - np.searchsorted(v, float(claim_eps), side="right"))     # #{i : −log U_i > ε}
    return fisher_greater(k, n0, c1, n1)


def conditional_eps_lower(c0: int, n0: int, c1: int, n1: int, *, confidence: float,
                          seed: np.random.SeedSequence) -> float:
    r"""Lower bound on ε (pure ε-DP) from one event: sup{ε ≥ 0 : p(ε) ≤ α}, α = 1 − confidence.

    p(ε) is :func:`conditional_p_value` with the thinning **coupled across ε**: occurrence i is kept
    iff U_i < e^{−ε}, with one U_i per occurrence for all ε.

    Monotonicity: the kept count k(ε) = #{i : −log U_i > ε} does not increase with ε, and the Fisher
    p-value does not decrease when one D-side occurrence is removed: with T + 1 marked items, unmark
    one chosen uniformly among them; this couples X′ (T + 1 marked) with X (T marked) so that
    X ≥ X′ − 1, hence P[X ≥ k] ≥ P[X′ ≥ k + 1].  So p(ε) is non-decreasing, a step function that
    changes only at the breakpoints −log U_i: a bisection over the sorted breakpoints finds the
    largest number j of removed occurrences with p ≤ α, and ε_lower is the (j+1)-th breakpoint.

    Validity: if the mechanism is ε*-DP, ε_lower > ε* means some ε > ε* has p(ε) ≤ α, so
    p(ε*) ≤ p(ε) ≤ α, an event of probability ≤ α (at the fixed ε* the coupled thinning is an exact
    StatDP thinning).  So P[ε_lower > ε*] ≤ α.

    Against the Clopper–Pearson ratio bound ln(p0_lower/p1_upper) (two limits at α/2): the
    conditional bound is stronger for rare events (c1 = 0 or a few; one α, an exact conditional law)
    and for common events below ε ≈ 0.9 (at 95 %); above, the Clopper–Pearson bound is (thinning keeps
    only c0·e^{−ε} of the D-side count).  At n = 10⁵ per side, c0 = 40, c1 = 0: conditional 2.44
    (seed 0) against Clopper–Pearson 2.05; c0 = 5000, c1 = 1840 (ε = 1): conditional 0.93–0.96 over
    three seeds, Clopper–Pearson 0.93.

    Parameters
    ----------
    c0, n0, c1, n1 : int
        As in :func:`conditional_p_value`: E favours D (seen more often on D).  For an event that
        favours D′ swap the sides.
    confidence : float
        1 − α ∈ (0, 1).
    seed : numpy.random.SeedSequence
        The thinning uniforms.

    Returns
    -------
    float
        ε_lower ≥ 0 (0 when even ε = 0 is not rejected).

    Examples
    --------
    >>> s = np.random.SeedSequence(2)
    >>> e = conditional_eps_lower(5000, 10**5, 1840, 10**5, confidence=0.95, seed=s)
    >>> 0.85 < e < 1.0
    True
    >>> conditional_eps_lower(10, 1000, 30, 1000, confidence=0.95, seed=s)
    0.0
    """
    c0, n0, c1, n1 = _counts(c0, n0, c1, n1, ("c0", "n0", "c1", "n1"))
    alpha = 1.0 - check_probability("confidence", confidence, lo_open=True, hi_open=True)
    seed = check_seed(seed)
    if fisher_greater(c0, n0, c1, n1) > alpha:
        return 0.0
    v = _thinning_times(c0, seed)
    lo, hi = 0, c0                   # p(c0 − lo) ≤ α;  p(c0 − c0) = p(0) = 1 > α
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if fisher_greater(c0 - mid, n0, c1, n1) <= alpha:
            lo = mid
        else:
            hi = mid
    return float(v[lo])              # k = c0 − lo for ε < v[lo]; k = c0 − lo − 1 from v[lo] on


# ---------------------------------------------------------------------------
# the fair-guess bound of (ε, δ)-DP
# ---------------------------------------------------------------------------

def _guess_limit(S: int, N: int, alpha: float) -> float:
    """m = min((S − 1)/N, CP lower limit of S of N at α): the largest mean rate p with a valid p-value ≤ α."""
    if S <= 0:
        return -math.inf
    cp = float(special.betaincinv(S, N - S + 1, alpha)) if S > 0 else 0.0
    return min((S - 1) / N, cp)


def _guess_rate(eps: float, n0: int, n1: int, delta: float) -> float:
    """p*(ε): the largest mean rate of correct guesses of an (ε, δ)-DP mechanism with n0, n1 releases."""
    N = n0 + n1
    inv = 0.0 if eps > 700 else 1.0 / (1.0 + math.exp(eps))
    return 1.0 - min(n0, n1, N * inv) * (1.0 - delta) / N


def guess_p_value(fp: int, n0: int, fn: int, n1: int, claim_eps: float, *, delta: float) -> float:
    r"""p-value of an (ε, δ) claim from the total of correct guesses (see :func:`guess_eps_lower`).

    p = P[Bin(N, p*) ≥ S] when S ≥ N p* + 1 (Hoeffding 1956, Theorem 4), else 1.

    Examples
    --------
    >>> guess_p_value(2_689, 10**4, 2_689, 10**4, 1.0, delta=0.0) > 0.05      # RR at ε = 1: no evidence
    True
    >>> guess_p_value(2_300, 10**4, 2_300, 10**4, 1.0, delta=0.0) < 1e-6     # 77 % correct: > e/(1+e)
    True
    """
    fp, n0, fn, n1 = _counts(fp, n0, fn, n1, ("fp", "n0", "fn", "n1"))
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    if isinstance(claim_eps, bool) or not isinstance(claim_eps, numbers.Real) or not float(claim_eps) >= 0 \
            or math.isnan(float(claim_eps)):
        raise ValueError(f"parameter 'claim_eps' = {claim_eps!r} must be a real number ≥ 0 (the claimed ε)")
    N, S = n0 + n1, (n0 - fp) + (n1 - fn)
    p = _guess_rate(float(claim_eps), n0, n1, delta)
    if S < N * p + 1 or S <= 0:
        return 1.0
    return float(min(1.0, special.bdtrc(S - 1, N, p)))        # P[Bin(N, p) > S − 1]


def guess_eps_lower(fp: int, n0: int, fn: int, n1: int, *, delta: float, confidence: float) -> float:
    r"""Lower bound on ε at δ from the total of correct guesses S = (n0 − fp) + (n1 − fn) of N = n0 + n1.

    **The bound per release.**  A test says D′ or D; fp of the n0 releases on D were called D′, fn of the
    n1 releases on D′ were called D.  Under (ε, δ)-DP its error rates (a, b) = (FPR, FNR) satisfy
    a + e^ε b ≥ 1 − δ and e^ε a + b ≥ 1 − δ (Kairouz, Oh & Viswanath 2015, Theorem 2.1; Dong, Roth &
    Su 2022, the trade-off function of (ε, δ)-DP).  With a fair coin choosing D or D′ the accuracy is
    1 − (a + b)/2 ≤ 1 − (1 − δ)/(1 + e^ε) = (e^ε + δ)/(1 + e^ε), the corner of that region
    (adding the two inequalities; attained by randomized response with δ).  With fixed n0 ≠ n1 the
    largest mean of S is N·p*(ε), p*(ε) = 1 − min(n0, n1, N/(1 + e^ε))(1 − δ)/N: a linear function
    minimised over the region's vertices (0, 1 − δ), ((1 − δ)/(1 + e^ε), same), (1 − δ, 0).

    **The tail.**  S is Poisson-binomial (n0 trials of rate 1 − a, n1 of rate 1 − b), mean N p̄ ≤ N p*.
    Hoeffding (1956, "On the distribution of the number of successes in independent trials", Theorem 4):
    P[S ≥ c] ≤ P[Bin(N, p̄) ≥ c] whenever c ≥ N p̄ + 1; the binomial tail increases with p̄, so
    P[S ≥ c] ≤ P[Bin(N, p*) ≥ c] for c ≥ N p* + 1.  Below that (c < N p* + 1) no binomial tail is used
    and the p-value is 1 (valid; the condition is essential: for rare successes a Poisson-binomial
    sum exceeds its binomial's tail, e.g. P[S ≥ 1]).  The p-value pv(S; ε) is non-increasing in S and
    bounds P[S′ ≥ S] for every mechanism of the null, so P[pv ≤ α] ≤ α.

    **The inversion.**  pv(S; ε) ≤ α ⇔ p*(ε) ≤ m := min((S − 1)/N, p_CP), p_CP the one-sided
    Clopper–Pearson lower limit of S of N at level 1 − α; p*(ε) increases with ε, so the rejected ε
    form an interval [0, ε_lower) with ε_lower = ln((m − δ)/(1 − m)), provided min(n0, n1) ≥
    N(1 − m)/(1 − δ) (else no ε ≥ 0 is rejected and the bound is 0).  Validity as for any inverted
    family of tests nested in ε.

    Against the Clopper–Pearson bound of the auditor: one α (not two α/2) and both error counts pooled,
    but only the symmetric corner of the privacy region is tested; it wins for balanced tests whose two
    error rates are similar (randomized response, a threshold at the middle), and loses for tail events
    (one error rate far below the other), where the ratio bound uses the small rate directly.

    Parameters
    ----------
    fp, n0 : int
        D-side releases called D′, of n0 ≥ 1.
    fn, n1 : int
        D′-side releases called D, of n1 ≥ 1.
    delta : float
        δ ∈ [0, 1) of the claim.
    confidence : float
        1 − α ∈ (0, 1).

    Returns
    -------
    float
        ε_lower ≥ 0.

    Examples
    --------
    >>> round(guess_eps_lower(2_300, 10**4, 2_300, 10**4, delta=0.0, confidence=0.95), 3)
    1.181
    >>> guess_eps_lower(5_000, 10**4, 5_000, 10**4, delta=0.0, confidence=0.95)
    0.0
    """
    fp, n0, fn, n1 = _counts(fp, n0, fn, n1, ("fp", "n0", "fn", "n1"))
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    alpha = 1.0 - check_probability("confidence", confidence, lo_open=True, hi_open=True)
    N, S = n0 + n1, (n0 - fp) + (n1 - fn)
    m = _guess_limit(S, N, alpha)
    if not m > delta or min(n0, n1) < N * (1 - m) / (1 - delta):
        return 0.0
    if m >= 1.0:
        return math.inf
    e = math.log(m - delta) - math.log1p(-m)
    # round down until the rate at e is within the limit in floating point (a lower bound never overstates)
    for _ in range(64):
        if e <= 0 or _guess_rate(e, n0, n1, delta) <= m:
            break
        e = math.nextafter(e, 0.0) if e > 1e-300 else 0.0
    return max(0.0, e)


# ---------------------------------------------------------------------------
# two events pooled: guesses with abstention (both tails of a statistic)
# ---------------------------------------------------------------------------

def _pb_lower(k: int, N: int, a: float) -> float:
    """Valid lower confidence limit (level 1 − a) of the mean rate of a Poisson-binomial count k of N.

    min(CP lower limit, (k − 1)/N): rates above it are rejected by a binomial upper tail used only where
    Hoeffding's condition k ≥ N p + 1 holds (see :func:`guess_eps_lower`).
    """
    if k <= 1:
        return 0.0
    return min((k - 1) / N, float(special.betaincinv(k, N - k + 1, a)))


def _pb_upper(k: int, N: int, a: float) -> float:
    """Valid upper confidence limit (level 1 − a) of the mean rate of a Poisson-binomial count k of N.

    max(CP upper limit, (k + 1)/N): a binomial lower tail P[Bin ≤ k] is used only where Hoeffding's
    condition k ≤ N p − 1 holds (Hoeffding 1956, Theorem 4, the lower half).
    """
    if k >= N - 1:
        return 1.0
    return max((k + 1) / N, float(special.betainccinv(k + 1, N - k, a)))


def _tails_eps(correct: int, wrong: int, n: int, delta: float, alpha: float) -> float:
    N = 2 * n
    lo, up = _pb_lower(correct, N, alpha / 2), _pb_upper(wrong, N, alpha / 2)
    if not lo > delta:
        return 0.0
    return max(0.0, math.log(lo - delta) - math.log(up))


def tails_eps_lower(correct: int, wrong: int, n: int, *, delta: float, confidence: float) -> float:
    r"""Lower bound on ε at δ from guesses **with abstention** on n releases per data set, both sides pooled.

    Two disjoint events fixed in advance (e.g. on a selection split): E₁ says D′ (T > τ₁), E₀ says D
    (T < τ₀), anything else abstains.  ``correct`` = #E₀ on D + #E₁ on D′ and ``wrong`` = #E₁ on D +
    #E₀ on D′, each out of N = 2n releases (the same n on both sides).

    **The bound.**  (ε, δ)-DP gives P_D(E₀) ≤ e^ε P_D′(E₀) + δ and P_D′(E₁) ≤ e^ε P_D(E₁) + δ; adding
    and halving, the mean rates c̄ = E[correct]/N and w̄ = E[wrong]/N satisfy c̄ ≤ e^ε w̄ + δ (the
    fair-coin guessing game with abstention; with equal n the coin is replaced by the fixed design).
    So ε ≥ ln((c_low − δ)/w_up) whenever c_low ≤ c̄ and w_up ≥ w̄, which hold together with
    probability ≥ 1 − α when each is a valid limit at level 1 − α/2 (Bonferroni).

    **The limits.**  correct and wrong are Poisson-binomial (n trials at each side's rate).  A
    Clopper–Pearson limit is valid for them where Hoeffding's (1956, Theorem 4) comparison holds:
    P[S ≥ c] ≤ P[Bin(N, p̄) ≥ c] for c ≥ N p̄ + 1 and P[S ≤ b] ≤ P[Bin(N, p̄) ≤ b] for b ≤ N p̄ − 1.  The
    limits used are therefore c_low = min(CP_lower, (correct − 1)/N) and w_up = max(CP_upper,
    (wrong + 1)/N): each rejects a rate only by a binomial tail taken where the comparison holds.

    Against the single-event bound of the auditor (one threshold, n releases per side): the two tails
    are one test on 2n releases, so for a symmetric statistic (the Gaussian mechanism, the midpoint
    of the two means as centre) the counts double.  With the event known in advance (no selection
    split, expected counts), Gaussian (1, 1e-5): 0.652 at n = 10⁵ and 0.812 at n = 10⁶, against 0.595
    and 0.768 for the single threshold.

    Parameters
    ----------
    correct, wrong : int
        Counts out of 2n (correct + wrong ≤ 2n).
    n : int
        Releases per data set (≥ 1).
    delta : float
        δ ∈ [0, 1) of the claim.
    confidence : float
        1 − α ∈ (0, 1).

    Returns
    -------
    float
        ε_lower ≥ 0.

    Examples
    --------
    >>> round(tails_eps_lower(2_000, 400, 10_000, delta=0.0, confidence=0.95), 3)
    1.47
    >>> tails_eps_lower(300, 300, 10_000, delta=0.0, confidence=0.95)
    0.0
    """
    n = check_count("n", n, 1)
    correct, wrong = check_count("correct", correct, 0), check_count("wrong", wrong, 0)
    if correct + wrong > 2 * n:
        raise ValueError(f"parameters 'correct' = {correct}, 'wrong' = {wrong}: together at most 2n = {2 * n} "
                         "(each release is one guess or an abstention)")
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    alpha = 1.0 - check_probability("confidence", confidence, lo_open=True, hi_open=True)
    return _tails_eps(correct, wrong, n, delta, alpha)


def tails_p_value(correct: int, wrong: int, n: int, claim_eps: float, *, delta: float) -> float:
    """The smallest α at which :func:`tails_eps_lower` exceeds ``claim_eps`` (1 when no α < 1 does).

    ε_lower at level 1 − α decreases as α decreases, so the p-value solves ε_lower(1 − p) = claim by
    bisection in log α (as :func:`verify.audit.core.p_value`); P[p ≤ α] ≤ α under an (ε, δ)-DP mechanism.

    Examples
    --------
    >>> tails_p_value(2_000, 400, 10_000, 1.0, delta=0.0) < 1e-6
    True
    >>> tails_p_value(300, 300, 10_000, 0.0, delta=0.0)
    1.0
    """
    n = check_count("n", n, 1)
    correct, wrong = check_count("correct", correct, 0), check_count("wrong", wrong, 0)
    if correct + wrong > 2 * n:
        raise ValueError(f"parameters 'correct' = {correct}, 'wrong' = {wrong}: together at most 2n = {2 * n}")
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    if isinstance(claim_eps, bool) or not isinstance(claim_eps, numbers.Real) or not float(claim_eps) >= 0 \
            or math.isnan(float(claim_eps)):
        raise ValueError(f"parameter 'claim_eps' = {claim_eps!r} must be a real number ≥ 0 (the claimed ε)")
    claim = float(claim_eps)
    if _tails_eps(correct, wrong, n, delta, 1.0 - 1e-12) <= claim:
        return 1.0
    lo, hi = -745.0, math.log(1.0 - 1e-12)
    if _tails_eps(correct, wrong, n, delta, math.exp(lo)) > claim:
        return 0.0
    for _ in range(80):
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if _tails_eps(correct, wrong, n, delta, math.exp(mid)) > claim else (mid, hi)
    return float(math.exp(hi))


# ---------------------------------------------------------------------------
# two rare sets pooled, conditionally: StatDP's construction for both sides of a pair (δ = 0)
# ---------------------------------------------------------------------------

#: brackets of the log-odds split searched by :func:`pair_conditional_p_value` (a rigorous upper bound of the sup)
_SPLIT_GRID = 16
_SPLIT_HALF_WIDTH = 40.0


_LCHOOSE: dict[int, tuple[np.ndarray, np.ndarray]] = {}


def _lchoose_row(T: int) -> tuple[np.ndarray, np.ndarray]:
    hit = _LCHOOSE.get(T)
    if hit is None:
        k = np.arange(T + 1, dtype=float)
        hit = (k, _lchoose(T, k))
        if len(_LCHOOSE) > 64:
            _LCHOOSE.clear()
        _LCHOOSE[T] = hit
    return hit


def pair_conditional_p_value(right0: int, wrong0: int, right1: int, wrong1: int, claim_eps: float) -> float:
    r"""p-value of pure ε-DP from two disjoint events pooled: E₀ (says D) and E₁ (says D′), counts conditioned.

    On D, ``right0`` releases fell in E₀ and ``wrong0`` in E₁; on D′, ``right1`` in E₁ and ``wrong1`` in
    E₀ (fixed numbers of releases per side; the events fixed before the counts, e.g. on a selection split).

    **Validity** (the conditional equivalent, with n per side fixed, of a fair coin per release and one
    exact tail on the guesses).  Given T₀ = right0 + wrong0, the D-side count right0 is Bin(T₀, q₀) with
    q₀ = P_D(E₀)/(P_D(E₀) + P_D(E₁)); given T₁ = right1 + wrong1, right1 is Bin(T₁, q₁) with q₁ =
    P_D′(E₁)/(P_D′(E₁) + P_D′(E₀)); the two are independent (independent releases).  Their log-odds add up to
    ln(P_D(E₀)/P_D′(E₀)) + ln(P_D′(E₁)/P_D(E₁)) ≤ 2ε under ε-DP (each term ≤ ε).  The statistic R =
    right0 + right1 has a tail increasing in q₀ and in q₁, so the null's worst case lies on the line
    logit q₀ + logit q₁ = 2ε, one parameter x = logit q₀.  On each bracket [x_i, x_{i+1}] of a grid the
    tail is at most its value at (q₀, q₁) = (σ(x_{i+1}), σ(2ε − x_i)) (monotone in each), and beyond the
    grid at (σ(x₀), 1) and (1, σ(2ε − x_m)); the p-value is the largest of these, an upper bound of the
    sup, so P[p ≤ α | T₀, T₁] ≤ α and hence unconditionally.  With wrong0 = wrong1 = 0 and T₀ = T₁ the
    sup is (e^ε/(1 + e^ε))^{T₀+T₁}: the fair-coin tail.

    Not a test of (ε, δ)-DP with δ > 0 (the odds argument needs δ = 0; use :func:`tails_eps_lower`).

    Examples
    --------
    >>> p = pair_conditional_p_value(10, 0, 10, 0, 1.0)           # 20 right guesses, none wrong
    >>> abs(p - (math.e / (1 + math.e)) ** 20) / p < 0.05
    True
    >>> pair_conditional_p_value(10, 0, 0, 0, 1.0)                # all on one side: no evidence
    1.0
    """
    r0, w0, r1, w1 = (check_count(n, v, 0) for n, v in (("right0", right0), ("wrong0", wrong0),
                                                         ("right1", right1), ("wrong1", wrong1)))
    if isinstance(claim_eps, bool) or not isinstance(claim_eps, numbers.Real) or not float(claim_eps) >= 0 \
            or math.isnan(float(claim_eps)):
        raise ValueError(f"parameter 'claim_eps' = {claim_eps!r} must be a real number ≥ 0 (the claimed ε)")
    e2 = 2.0 * float(claim_eps)
    T0, T1, R = r0 + w0, r1 + w1, r0 + r1
    if R == 0:
        return 1.0
    if R > T0 + T1:
        return 0.0
    return _split_sup(R, T0, T1, e2)


def _log_sig_vec(x: np.ndarray) -> np.ndarray:
    return -np.logaddexp(0.0, -x)                      # log σ(x), σ(+inf) = 1


def _tails_vec(R: int, T0: int, T1: int, x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    """P[Bin(T0, σ(x0)) + Bin(T1, σ(x1)) ≥ R] for arrays of log-odds (vectorised; +inf: q = 1)."""
    def pmf(T: int, x: np.ndarray) -> np.ndarray:
        k, lc = _lchoose_row(T)
        lq, l1q = _log_sig_vec(x)[:, None], _log_sig_vec(-x)[:, None]
        with np.errstate(invalid="ignore"):
            lp = lc[None, :] + k[None, :] * lq + np.where(k[None, :] < T, (T - k[None, :]) * l1q, 0.0)
        return np.exp(lp)
    p0, p1 = pmf(T0, x0), pmf(T1, x1)
    sf0 = np.concatenate([np.cumsum(p0[:, ::-1], axis=1)[:, ::-1], np.zeros((p0.shape[0], 1))], axis=1)  # P[X ≥ i]
    need = np.clip(R - np.arange(T1 + 1), 0, T0 + 1)          # X ≥ R − j
    return np.minimum(1.0, np.einsum("bj,bj->b", p1, sf0[:, need]))


def _split_sup(R: int, T0: int, T1: int, e2: float, rel_tol: float = 0.02) -> float:
    """A rigorous upper bound (within rel_tol of the exact value when reached) of
    sup_x P[Bin(T0, σ(x)) + Bin(T1, σ(e2 − x)) ≥ R]: the tail at (σ(b), σ(e2 − a)) bounds it on [a, b]
    (monotone in each rate); brackets whose bound exceeds the best exact value found are split again."""
    c, w = e2 / 2, _SPLIT_HALF_WIDTH
    ends = float(_tails_vec(R, T0, T1, np.array([c - w, np.inf]), np.array([np.inf, e2 - (c + w)])).max())
    xs = np.linspace(c - w, c + w, 8 * _SPLIT_GRID + 1)
    a, b = xs[:-1], xs[1:]
    seen = ends
    up = ends
    for _ in range(12):
        ub = _tails_vec(R, T0, T1, b, e2 - a)
        mid = 0.5 * (a + b)
        seen = max(seen, float(_tails_vec(R, T0, T1, mid, e2 - mid).max()))
        up = max(ends, float(ub.max()))
        if up >= 1.0 or up <= seen * (1 + rel_tol):
            return min(1.0, up)
        keep = ub > seen * (1 + rel_tol)
        a, b = a[keep], b[keep]
        if a.size > 4000:                     # never more than a few thousand brackets at a time
            order = np.argsort(-ub[keep])[:4000]
            rest = float(np.delete(ub[keep], order).max()) if order.size < a.size else 0.0
            ends = max(ends, rest)            # the dropped brackets still bound the sup
            a, b = a[order], b[order]
        t = np.linspace(0.0, 1.0, 9)
        a, b = (a[:, None] + (b - a)[:, None] * t[None, :-1]).ravel(), (a[:, None] + (b - a)[:, None] * t[None, 1:]).ravel()
    return min(1.0, up)


def pair_conditional_eps_lower(right0: int, wrong0: int, right1: int, wrong1: int, *, confidence: float) -> float:
    r"""Lower bound on ε (pure ε-DP) from :func:`pair_conditional_p_value`: an ε with p(ε) ≤ α, found by bisection.

    Validity: the exact sup of the null tail is non-decreasing in ε (a larger ε, a larger null), and the
    p-value used bounds it from above; the returned ε has p(ε) ≤ α, so if the mechanism is ε*-DP with
    ε* < ε, the exact sup at ε* is ≤ the one at ε ≤ α: P[ε_lower > ε*] ≤ α.  0 when p(0) > α.

    Examples
    --------
    >>> e = pair_conditional_eps_lower(15, 0, 15, 0, confidence=0.95)     # 30 right, none wrong
    >>> 2.0 < e < 3.5
    True
    >>> pair_conditional_eps_lower(50, 50, 50, 50, confidence=0.95)
    0.0
    """
    alpha = 1.0 - check_probability("confidence", confidence, lo_open=True, hi_open=True)
    args = (right0, wrong0, right1, wrong1)
    if pair_conditional_p_value(*args, 0.0) > alpha:
        return 0.0
    lo, hi = 0.0, 1.0
    while pair_conditional_p_value(*args, hi) <= alpha:
        lo, hi = hi, 2 * hi
        if hi > 64:
            return lo
    for _ in range(16):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if pair_conditional_p_value(*args, mid) <= alpha else (lo, mid)
    return lo
