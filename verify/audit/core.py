r"""The auditor: a statistically valid lower bound on ε from a distinguishing test.

An (ε, δ)-DP mechanism A satisfies, for every pair of neighbouring data sets
D, D′ and every event S,

    P[A(D) ∈ S] ≤ e^ε P[A(D′) ∈ S] + δ.

Write a test as "say D′ when the statistic T(A(·)) lies beyond a threshold τ",
with false-positive rate FPR = P[say D′ | D] and false-negative rate
FNR = P[say D | D′].  Applying the definition to S and its complement, in both
directions, gives (Kairouz, Oh & Viswanath 2015, Theorem 2.1; the form used by
Jagielski, Ullman & Oprea 2020 and Nasr et al. 2021)

    ε ≥ max{ ln((1 − δ − FNR)/FPR),  ln((1 − δ − FPR)/FNR) }.

With N releases per data set the observed rates are binomial.  Replacing FPR and
FNR by their one-sided Clopper–Pearson *upper* limits, each at level 1 − α/2
(Bonferroni over the two), turns the right-hand side into a lower bound
ε_lower with P[ε_lower ≤ ε] ≥ 1 − α whatever the true rates are.

Everything the test depends on is chosen on a **selection split** that the
bound never sees again (the releases of a mechanism are drawn independently;
saved outputs are permuted with a seeded generator before splitting):

* **scalar outputs** (shape ``(n,)``, real, many distinct values): the statistic
  is the output;
* **categorical outputs**: outputs with few distinct values in the selection
  split (at most :data:`MAX_CATEGORIES`, and at most one per 20 selection
  outputs) — integer codes, booleans, codes saved as floats, or whole vectors
  such as a sparse-vector ⊥/⊤ pattern — are categories; the statistic is the
  empirical log-likelihood ratio of the category on the selection split (add-½
  smoothing; categories unseen there score 0), so the events are unions of
  categories in likelihood-ratio order;
* **vector outputs** (shape ``(n, k)``, many distinct rows, e.g. a histogram or
  a pair (value, index)): the statistic is the log-odds of a scikit-learn
  classifier (default: ``HistGradientBoostingClassifier``) fitted on one half of
  the selection split to tell D′ from D — an estimate of the log density ratio,
  as in DP-Sniper (Bichsel et al. 2021);
* a user's ``score``: any fixed statistic ``x -> (k,)`` (or a classifier to fit),
  for any kind of output; its name is stated in the result.

Candidate tests, all fixed on the selection split (Bonferroni over the K
distinct ones, whatever their family: each is scored on the evaluation split at
α/K — two Clopper–Pearson limits at α/(2K), or one conditional test at α/K — so
all K together err with probability ≤ α; the best is reported):

* two **threshold tests** T > τ or T < τ: τ among candidates spanning the whole
  range (every order statistic when there are few, otherwise ranks spaced
  geometrically from both ends and uniformly in between), chosen by the bound
  projected to the evaluation split's size from pessimistic selection rates, at
  two levels of pessimism (a strong one, robust to the winner's curse among
  thousands of noisy tail thresholds, and a milder one reaching deeper into a
  tail whose likelihood ratio keeps growing); under a pure ε-DP claim (δ = 0) each threshold test is
  scored by StatDP's conditional test of its event (or of the complement) instead of the two
  Clopper–Pearson limits when that bound projects higher from the same selection counts
  (``_conditional_side``, fixed on the selection split: one test, one bound);
* two **rare-event tests**: "T outside the range seen on D in the selection
  split" (says D′) and "T outside the range seen on D′" (says D), each kept
  when the other data set put a selection output there.  An event that never
  happens on one data set (clamped noise, a value only one data set can
  produce) is caught even when it is far too rare for a threshold chosen by
  projected rates.

* two **pooled point-mass tests** (:mod:`verify.audit.events`, issue 32): values, output
  vectors, coordinates or (index, value) pairs repeated in the selection split are point masses;
  the union of those favouring D′ (and of those favouring D) is one event each, wherever the values
  lie, scored with StatDP's conditional test (:mod:`verify.audit.pooled`) when δ = 0, else by
  Clopper–Pearson limits; not added when nothing repeats.

(index, value) pairs run both candidate paths — thresholds of the value within each index group and
the classifier of the vector path — and their tests share the one Bonferroni correction, so the
automatic choice never gives up a path.  Likewise **numeric scalar outputs** (shape ``(n,)``) read as
categories, whether chosen automatically (few distinct values: codes saved as floats, a discrete
mechanism) or forced by ``output="categorical"``, are also tested by the threshold and rare-event tests
of the value itself and by the pooled point-mass tests, inside the same Bonferroni K (all chosen on the
selection split): an ordered leak, or continuous outputs beside a point mass, are never lost to the
categorical statistic.  ``output="categorical"`` on outputs whose values mostly occur once is still
refused (ValueError naming ``output``): those categories would be unseen on the evaluation split and
score 0, so the categorical tests would only cost Bonferroni power.

The result states what a non-violation means at this n: ``eps_max``, the
largest ε_lower any test could give (a perfect distinguisher: no error on the
evaluation split), and the **event families tested** (``details["families"]``,
:meth:`AuditResult.meaning`), each with the smallest probability an event of that
family that never occurs on the other data set must have to be detected with probability ≥ 90 %
at this n, if chosen as a test (exact binomial law of its evaluation count; a point mass must also
repeat in the selection split, and that chance is included).  Nothing is said about events outside these families.

A claimed ε gets a verdict (``violated`` when ε_lower > ε) with its margin and a
p-value: the smallest α at which this test would call the claim violated (valid:
under an (ε, δ)-DP mechanism, P[p ≤ α] ≤ α).

Examples
--------
>>> import numpy as np
>>> from verify.audit import audit, laplace_releases
>>> r0, r1 = laplace_releases(eps=1.0, sensitivity=1.0)
>>> res = audit(r0, r1, n=200_000, seed=0, claim_eps=0.9)
>>> 0.9 < res.eps_lower <= 1.0, res.verdict
(True, 'violated')
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special

from ._validate import check_count, check_probability, check_seed
from .events import Event, rare_events
from .kinds import (
    MAX_CATEGORIES,
    MIN_OUTPUTS,
    OUTPUT_KINDS,
    SELECTION,
    _categorical_score,
    _fitted_score,
    _keys,
    _mostly_unrepeated,
    as_outputs,
    few_values,
    output_kind,
    value_and_groups,
)

__all__ = ["MAX_CATEGORIES", "MIN_OUTPUTS", "OUTPUT_KINDS", "SELECTION", "AuditResult", "Event", "Releases",
           "as_outputs", "audit", "audit_mechanism", "audit_samples", "audit_seed", "candidate_thresholds",
           "choose_tails", "choose_threshold", "cp_upper", "eps_from_rates", "eps_lower_bound", "event_families", "families_text",
           "few_values", "min_event_prob", "output_kind", "p_value", "rare_events", "value_and_groups",
           "_categorical_score", "_fitted_score", "_keys", "_mostly_unrepeated"]

#: a release function: (rng, k) -> k outputs (shape (k,) scalars or categories, or (k, d) vectors)
Releases = Callable[[np.random.Generator, int], Any]

#: levels of the pessimistic rates of the selection split (one-sided upper limits), one test each:
#: a high level curbs the winner's curse of choosing among thousands of thresholds (noise in the
#: tails), a lower one reaches deeper into a tail whose likelihood ratio keeps growing (Gaussian);
#: the evaluation split scores each distinct test at α/K (Bonferroni) and keeps the best
PESSIMISM = (0.95, 0.75)
#: thresholds tried on the selection split (fewer candidates, a smaller winner's curse)
MAX_CANDIDATES = 4000


# ---------------------------------------------------------------------------
# input validation (shared by the engine, the public API and the CLI)
# ---------------------------------------------------------------------------





def check_claim(value: Any) -> float | None:
    """A claimed ε: None, or a finite real ≥ 0."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)) \
            or float(value) < 0:
        raise ValueError(f"parameter 'claim_eps' = {value!r} must be a finite real ≥ 0 (the claimed ε)")
    return float(value)




def audit_seed(root: int, *labels: Any) -> np.random.SeedSequence:
    """An independent SeedSequence for one audit, keyed by ``labels`` (e.g. statement key, release, calibration).

    Audits that share a root seed but differ in a label draw independent streams; the same labels give
    the same numbers on any executor.

    Examples
    --------
    >>> a, b = audit_seed(0, "jia.thm1", "value"), audit_seed(0, "jia.thm1", "function")
    >>> a.generate_state(2).tolist() != b.generate_state(2).tolist()
    True
    """
    import hashlib

    words = []
    for lab in labels:
        h = hashlib.sha256(repr(lab).encode()).digest()
        words.append(int.from_bytes(h[:4], "little"))
    return np.random.SeedSequence(check_seed(root).entropy, spawn_key=tuple(words))


# ---------------------------------------------------------------------------
# the bound
# ---------------------------------------------------------------------------

def cp_upper(k: int, n: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper limit at level 1 − alpha for k successes in n trials.

    Examples
    --------
    >>> round(cp_upper(0, 100, 0.05), 4)        # 1 − 0.05^(1/100)
    0.0295
    """
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"parameters 'k' = {k!r}, 'n' = {n!r} need 0 ≤ k ≤ n, n ≥ 1")
    if k == n:
        return 1.0
    return float(special.betainccinv(k + 1, n - k, alpha))    # upper tail: exact also for α far below 1e-16


def _cp_upper_vec(k: np.ndarray, n: float, alpha: float) -> np.ndarray:
    """Vectorised Clopper–Pearson upper limits (k may be fractional: projected counts)."""
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    m = k < n
    out[m] = special.betainccinv(k[m] + 1, n - k[m], alpha)
    return out


#: the tabulated Clopper–Pearson limits of the selection split: exact at every count below _CP_SMALL and at
#: _CP_GEOM geometrically spaced counts above, linear in between (the selection needs no exact limit: only the
#: evaluation split's bound, computed exactly, must be valid)
_CP_SMALL, _CP_GEOM = 48, 160


def _cp_table(n: int, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    key = (int(n), float(alpha))
    hit = _CP_CACHE.get(key)
    if hit is None:
        g = np.arange(min(_CP_SMALL, n + 1), dtype=float)
        if n + 1 > _CP_SMALL:               # dense at both ends: few errors, and 1 − (few successes)
            g = np.concatenate([g, np.round(np.geomspace(_CP_SMALL, max(n / 2, _CP_SMALL), _CP_GEOM // 2))])
            g = np.unique(np.clip(np.concatenate([g, n - g]), 0, n))
        hit = (g, _cp_upper_vec(g, n, alpha))
        if len(_CP_CACHE) > 256:
            _CP_CACHE.clear()
        _CP_CACHE[key] = hit
    return hit


_CP_CACHE: dict[tuple[int, float], tuple[np.ndarray, np.ndarray]] = {}


def _cp_upper_fast(k: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Clopper–Pearson upper limits of counts k (fractional allowed) of n, from a table (selection only).

    Examples
    --------
    >>> k = np.array([0.0, 3.5, 1234.0, 50_000.0, 99_990.5, 99_999.0])
    >>> u, exact = _cp_upper_fast(k, 10**5, 0.05), _cp_upper_vec(k, 10**5, 0.05)
    >>> bool(np.allclose(u, exact, rtol=1e-3) and np.allclose(1 - u, 1 - exact, rtol=1e-2))
    True
    """
    g, v = _cp_table(n, alpha)
    k = np.asarray(k, dtype=float)
    out = np.interp(k, g, v)
    last = k > n - _CP_SMALL                   # few successes: exact (the relative error of 1 − u matters)
    out[last] = _cp_upper_vec(k[last], n, alpha)
    return out


def eps_from_rates(fpr: float, fnr: float, delta: float = 0.0) -> float:
    """max{ln((1 − δ − FNR)/FPR), ln((1 − δ − FPR)/FNR)} (−inf when both are undefined).

    Examples
    --------
    >>> round(eps_from_rates(math.exp(-1) / 2, 0.5), 12)     # Laplace, ε = 1, threshold at Δ
    1.0
    """
    best = -math.inf
    for a, b in ((fnr, fpr), (fpr, fnr)):
        num = 1 - delta - a
        if num > 0 and b > 0:
            best = max(best, math.log(num / b))
        elif num > 0 and b == 0:
            best = math.inf
    return best


def _eps_vec(ufp: np.ndarray, ufn: np.ndarray, delta: float) -> np.ndarray:
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(1 - delta - ufn > 0, np.log(np.maximum(1 - delta - ufn, 1e-300)) - np.log(ufp), -np.inf)
        b = np.where(1 - delta - ufp > 0, np.log(np.maximum(1 - delta - ufp, 1e-300)) - np.log(ufn), -np.inf)
    return np.maximum(a, b)


def eps_lower_bound(fp: int, n0: int, fn: int, n1: int, delta: float = 0.0, confidence: float = 0.95) -> float:
    """ε_lower from counts: false positives fp of n0 releases on D, false negatives fn of n1 on D′.

    Each rate is replaced by its one-sided Clopper–Pearson upper limit at level
    1 − (1 − confidence)/2, so ε_lower ≤ ε holds with probability ≥ confidence
    for an (ε, δ)-DP mechanism.  Returns max(0, ·).

    Examples
    --------
    >>> round(eps_lower_bound(0, 10**5, 0, 10**5), 2)    # a perfect attack on 10^5 releases per side
    10.21
    """
    confidence = check_probability("confidence", confidence, lo_open=True, hi_open=True)
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    alpha = (1 - confidence) / 2
    return max(0.0, eps_from_rates(cp_upper(fp, n0, alpha), cp_upper(fn, n1, alpha), delta))


def p_value(fp: int, n0: int, fn: int, n1: int, claim_eps: float, delta: float = 0.0) -> float:
    """The smallest α at which the test's counts call an (ε, δ) claim violated (1 when no level does).

    ε_lower at confidence 1 − α decreases as α decreases, so the p-value solves
    ε_lower(1 − p) = claim by bisection in log α.  Under an (ε, δ)-DP mechanism and a test fixed
    before the counts were drawn, P[p ≤ α] ≤ α.

    Examples
    --------
    >>> p_value(0, 10**4, 0, 10**4, 1.0) < 1e-300 or p_value(0, 10**4, 0, 10**4, 1.0) < 1e-100
    True
    >>> p_value(5000, 10**4, 5000, 10**4, 0.0)
    1.0
    """
    def lower(alpha_total: float) -> float:
        a = alpha_total / 2
        return max(0.0, eps_from_rates(cp_upper(fp, n0, a), cp_upper(fn, n1, a), delta))

    if lower(1.0) <= claim_eps:
        return 1.0
    lo, hi = -745.0, 0.0            # log α: e^-745 is the smallest positive double
    if lower(math.exp(lo)) > claim_eps:
        return 0.0
    for _ in range(80):
        mid = (lo + hi) / 2
        if lower(math.exp(mid)) > claim_eps:
            hi = mid
        else:
            lo = mid
    return float(math.exp(hi))


# ---------------------------------------------------------------------------
# statistics and thresholds chosen on the selection split
# ---------------------------------------------------------------------------

def candidate_thresholds(t: np.ndarray, max_candidates: int = 4000) -> np.ndarray:
    """Thresholds spanning the whole range of the pooled statistic ``t``, extremes included.

    Every distinct value when there are at most ``max_candidates``; otherwise the order statistics at
    ranks spaced geometrically from both ends (1, 2, 3, … up to the middle: the tails and the
    extremes) and uniformly in between.

    Examples
    --------
    >>> t = np.arange(100_000.0)
    >>> c = candidate_thresholds(t)
    >>> float(c[0]), float(c[1]), float(c[-1]), c.size <= 4000
    (0.0, 1.0, 99999.0, True)
    """
    v = np.sort(t)
    u = np.unique(v)
    if u.size <= max_candidates:
        return u
    N = v.size
    g = np.unique(np.round(np.geomspace(1, N / 2, max_candidates // 4)).astype(np.int64)) - 1
    ranks = np.unique(np.concatenate([g, N - 1 - g, np.linspace(0, N - 1, max_candidates // 2).astype(np.int64)]))
    return np.unique(v[ranks])


def choose_threshold(t0: np.ndarray, t1: np.ndarray, n_eval0: int, n_eval1: int, delta: float,
                     alpha: float, pessimism: float = 0.95, totals: tuple[int, int] | None = None
                     ) -> tuple[float, int, float]:
    """Threshold τ and direction d maximising the bound projected to the evaluation split.

    Direction +1 says D′ when T > τ, direction −1 when T < τ.  The error rates on the selection
    split are replaced by pessimistic estimates (Clopper–Pearson upper limits at level
    ``pessimism``) and projected to ``n_eval0``/``n_eval1`` releases, so that a tail event seen a
    handful of times in the selection split is not taken for a sure one (the winner's curse of
    choosing among many thresholds).  ``totals`` = (selection outputs on D, on D′) when t0, t1 are
    the statistic of one group of them only (the test then says D′ only inside the group).
    Returns (τ, d, projected ε).
    """
    n0, n1 = totals if totals is not None else (t0.size, t1.size)
    cand = candidate_thresholds(np.concatenate([t0, t1]), MAX_CANDIDATES)
    s0, s1 = np.sort(t0), np.sort(t1)
    best = (float(cand[0]), 1, -math.inf)
    for d in (1, -1):
        if d == 1:
            fp = s0.size - np.searchsorted(s0, cand, side="right")      # T > τ on D
            fn = n1 - (s1.size - np.searchsorted(s1, cand, side="right"))   # not (T > τ) on D′
        else:
            fp = np.searchsorted(s0, cand, side="left")                 # T < τ on D
            fn = n1 - np.searchsorted(s1, cand, side="left")            # not (T < τ) on D′
        rfp, rfn = _cp_upper_fast(fp, n0, 1 - pessimism), _cp_upper_fast(fn, n1, 1 - pessimism)
        e = _eps_vec(_cp_upper_fast(rfp * n_eval0, n_eval0, alpha), _cp_upper_fast(rfn * n_eval1, n_eval1, alpha),
                     delta)
        i = int(np.argmax(e))
        if e[i] > best[2]:
            best = (float(cand[i]), d, float(e[i]))
    # the same selection counts hold up to the next pooled value beyond τ: move τ halfway there (a margin)
    tau, d, e = best
    pooled = np.sort(np.concatenate([t0, t1]))
    j = np.searchsorted(pooled, tau, side="right") if d == 1 else np.searchsorted(pooled, tau, side="left") - 1
    if 0 <= j < pooled.size:
        tau = float(0.5 * tau + 0.5 * pooled[j])
    return tau, d, e


#: the rare-pair test is scored by the conditional pair test (δ = 0) up to this many guesses projected from the
#: selection split (its cost grows with the counts; beyond, the pooled Clopper–Pearson bound is as strong)
RARE_PAIR_CONDITIONAL_MAX = 400
#: equal-rate tail pairs tried by the two-tail tests (geometric in k, every k below 48 as well)
MAX_TAIL_CANDIDATES = 400


def _cp_lower_fast(k: np.ndarray, n: int, alpha: float) -> np.ndarray:
    """Clopper–Pearson lower limits of counts k of n (selection only), through :func:`_cp_upper_fast`."""
    return 1.0 - _cp_upper_fast(n - np.asarray(k, dtype=float), n, alpha)


def choose_tails(t0: np.ndarray, t1: np.ndarray, n_eval: int, delta: float, alpha: float,
                 pessimism: float = 0.95) -> tuple[float, float, int, float]:
    r"""The two-tail guess test maximising the bound of :func:`verify.audit.pooled.tails_eps_lower` projected
    to ``n_eval`` evaluation releases per data set, from the selection statistics t0 (on D), t1 (on D′).

    Direction +1 says D′ when T > τ and D when T < τ_d (τ_d ≤ τ; between them it abstains), direction −1
    the mirror image.  The likelihood ratio of an ordered statistic is largest at its two ends, so both
    tails are events; pooled, they are one count of right and one of wrong guesses out of 2n.

    **One parameter, as a single threshold.**  The candidates are the *equal-rate* pairs: the k outputs
    of D′ furthest on its side and the k outputs of D furthest on the other (k spaced geometrically up to
    the whole selection split, every k below 48; pairs whose tails overlap are skipped).  The fair-coin game that the pooled bound scores is
    symmetric in D and D′, and for a pair whose two laws are mirror images (a location family of
    symmetric noise: Laplace, Gaussian) the best pair of tails has equal rates; other pairs keep the
    single-threshold tests of the same family (the one-tail extreme).  One parameter means as few
    candidates as a threshold has, so the winner's curse of the selection is no larger.  Each side's
    selection rates are replaced by pessimistic limits (level ``pessimism``: right guesses by their
    lower, wrong guesses by their upper Clopper–Pearson limit) before the projection, as in
    :func:`choose_threshold`; ``alpha`` is the level of each of the two projected limits (as there).
    Returns (τ, τ_d, d, projected ε); projected ε is −inf when no pair has a positive bound.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> t0, t1 = rng.laplace(0, 1, 10_000), 1 + rng.laplace(0, 1, 10_000)
    >>> tau, tau_d, d, e = choose_tails(t0, t1, 90_000, 0.0, 0.01)
    >>> d, tau_d <= tau, 0.8 < e < 1.0
    (1, True, True)
    """
    s0, s1 = np.sort(t0), np.sort(t1)
    S0, S1, N = s0.size, s1.size, 2 * n_eval
    half = max(1, min(S0, S1) - 1)            # up to every selection output: a perfect separation is one pair
    ks = np.unique(np.concatenate([np.arange(1, min(48, half) + 1),
                                   np.round(np.geomspace(1, half, MAX_TAIL_CANDIDATES)).astype(np.int64)]))
    a = 1 - pessimism
    best = (math.nan, math.nan, 1, -math.inf)
    for d in (1, -1):
        if d == 1:      # D′ tail: above its k-th largest output; D tail: below the k-th smallest of D
            tau = 0.5 * (s1[S1 - ks - 1] + s1[S1 - ks])
            tau_d = 0.5 * (s0[ks - 1] + s0[ks])
            r1 = S1 - np.searchsorted(s1, tau, side="right")
            w0 = S0 - np.searchsorted(s0, tau, side="right")
            r0 = np.searchsorted(s0, tau_d, side="left")
            w1 = np.searchsorted(s1, tau_d, side="left")
            ok = tau_d <= tau
        else:
            tau = 0.5 * (s1[ks - 1] + s1[ks])
            tau_d = 0.5 * (s0[S0 - ks - 1] + s0[S0 - ks])
            r1 = np.searchsorted(s1, tau, side="left")
            w0 = np.searchsorted(s0, tau, side="left")
            r0 = S0 - np.searchsorted(s0, tau_d, side="right")
            w1 = S1 - np.searchsorted(s1, tau_d, side="right")
            ok = tau_d >= tau
        right = 0.5 * (_cp_lower_fast(r1, S1, a) + _cp_lower_fast(r0, S0, a))
        wrong = 0.5 * (_cp_upper_fast(w0, S0, a) + _cp_upper_fast(w1, S1, a))
        c_low, w_up = _cp_lower_fast(right * N, N, alpha), _cp_upper_fast(wrong * N, N, alpha)
        with np.errstate(divide="ignore", invalid="ignore"):
            e = np.where(ok & (c_low > delta), np.log(np.maximum(c_low - delta, 1e-300)) - np.log(w_up), -np.inf)
        i = int(np.argmax(e))
        if e[i] > best[3]:
            best = (float(tau[i]), float(tau_d[i]), d, float(e[i]))
    return best


# ---------------------------------------------------------------------------
# results
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit.

    Attributes
    ----------
    eps_lower : float
        Lower confidence bound on ε (valid at ``confidence``).
    eps_point : float
        The same formula at the observed rates (no interval): what the attack achieves.
    threshold, direction : float, int
        The test chosen on the selection split: say D′ when direction·T > direction·threshold.
    fpr, fnr : float
        Observed rates on the evaluation split.
    n : int
        Releases per data set (selection + evaluation; the larger side for saved outputs).
    confidence, delta : float
    details : dict
        Counts, split sizes, output kind, statistic.
    claim_eps : float or None
        The claimed ε, if any; then ``verdict``, ``margin`` and ``p_value`` are set.
    p_value : float or None
        Smallest α at which this test calls the claim violated (1 when none).
    n0, n1 : int
        Outputs used on D and on D′ (selection + evaluation).

    ``details`` also holds ``event`` (the chosen test in words), ``eps_max`` (the largest ε_lower
    this n can give: what a consistent verdict can at most rule out), ``families`` (the event families
    tested, each with the smallest probability of an event of that family, never occurring on the other
    data set, which this n detects; see :func:`event_families`) and ``min_event_prob`` (that probability
    for the Clopper–Pearson tests).
    """

    eps_lower: float
    eps_point: float
    threshold: float
    direction: int
    fpr: float
    fnr: float
    n: int
    confidence: float
    delta: float
    details: dict[str, Any] = field(default_factory=dict)
    claim_eps: float | None = None
    p_value: float | None = None
    n0: int = 0
    n1: int = 0

    @property
    def verdict(self) -> str | None:
        """``violated`` when ε_lower exceeds the claimed ε, ``consistent`` otherwise (None without a claim)."""
        if self.claim_eps is None:
            return None
        return "violated" if self.eps_lower > self.claim_eps else "consistent"

    @property
    def eps_max(self) -> float:
        """The largest ε_lower this audit could give (a perfect test at its n, α and number of tests).

        A consistent verdict rules out nothing above it: a mechanism leaking more than ``eps_max``
        gives at most ``eps_max``.
        """
        return float(self.details.get("eps_max", math.nan))

    @property
    def min_event_prob(self) -> float:
        """Smallest probability of a *tested* event (a half-line, category union or range edge scored by
        Clopper–Pearson limits) never occurring on the other data set that this n detects.

        With counts at their expectations, the event gives ε_lower above the claim (above 0 without a
        claim); ``inf`` when no event can (the claim is at least :attr:`eps_max`).  This is the
        Clopper–Pearson figure: at δ = 0 a threshold test may be scored by StatDP's conditional test instead
        (the rule of issue 32), which detects smaller probabilities.  It says nothing about events the audit
        did not test; ``details["families"]`` lists the families tested, each with its own smallest
        detectable probability, the conditional test included at δ = 0 (point masses have theirs).
        """
        return float(self.details.get("min_event_prob", math.nan))

    @property
    def tradeoff(self) -> Any:
        """The trade-off-curve audit of the same statistic (:class:`verify.audit.tradeoff.TradeoffResult`), or None.

        Its own confidence statement: ``mu_lower`` and ``eps_lower`` hold for any mechanism,
        ``eps_gdp`` only if the trade-off curve is exactly Gaussian (``tradeoff.assumption``).
        """
        return self.details.get("tradeoff")

    def tradeoff_line(self) -> str | None:
        """The trade-off audit in one line with its assumption (None when it was not run)."""
        t = self.tradeoff
        if t is None:
            return None
        gdp = "∞" if math.isinf(t.eps_gdp) else f"{t.eps_gdp:.4f}"
        below = (f"; its ε_lower is below the audit's ε_lower {self.eps_lower:.4f} above, so it adds "
                 "nothing here (the two are separate claims: neither may be replaced by the larger)"
                 if t.eps_lower < self.eps_lower else "")
        return (f"trade-off curve (many thresholds, Nasr et al. 2023; a separate claim at its own "
                f"{t.confidence:.0%} confidence, not a correction of the audit's ε_lower above): μ_lower = {t.mu_lower:.4f} and "
                f"ε_lower = {t.eps_lower:.4f} at δ = {t.delta:g} (valid for any mechanism); "
                f"ε at δ of μ_lower-GDP = {gdp}, a lower bound only if the trade-off curve is exactly Gaussian"
                + (" (the data reject a Gaussian curve)" if t.gdp_rejected else "") + below)

    def meaning(self) -> str:
        """What the verdict means at this n, in one sentence: the event families tested and what each detects.

        Nothing is said about events outside the families tested (``details["families"]``).
        """
        fams = self.details.get("families")
        tested = families_text(fams) if fams else "no event family was recorded"
        if self.verdict == "violated":
            return (f"the claim is violated: ε ≥ {self.eps_lower:.4g} at {self.confidence:.0%} confidence, "
                    f"found by {self.details.get('event_family', 'a test')} "
                    f"(the largest ε this n can certify is {self.eps_max:.4g})")
        found = ("no leak beyond the claim was found by these tests" if self.claim_eps is not None else
                 f"ε ≥ {self.eps_lower:.4g} at {self.confidence:.0%} confidence")
        return (f"{found}; the largest ε this n could have detected is {self.eps_max:.4g} (a perfect "
                f"distinguisher); {tested}")

    @property
    def margin(self) -> float | None:
        """ε_lower − claimed ε: positive by how much the claim is violated, negative the room left."""
        return None if self.claim_eps is None else self.eps_lower - self.claim_eps

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (the CLI's ``--json``)."""
        return {"eps_lower": self.eps_lower, "eps_point": None if math.isinf(self.eps_point) else self.eps_point,
                "claim_eps": self.claim_eps, "verdict": self.verdict, "margin": self.margin,
                "p_value": self.p_value, "n0": self.n0, "n1": self.n1, "confidence": self.confidence,
                "delta": self.delta, "output": self.details.get("output"), "statistic": self.details.get("statistic"),
                "threshold": None if math.isnan(self.threshold) else self.threshold, "direction": self.direction,
                "fpr": self.fpr, "fnr": self.fnr,
                "n_selection": [self.details.get("n_selection0"), self.details.get("n_selection1")],
                "n_evaluation": [self.details.get("n_evaluation0"), self.details.get("n_evaluation1")],
                "false_positives": self.details.get("false_positives"),
                "false_negatives": self.details.get("false_negatives"), "event": self.details.get("event"),
                "tests": self.details.get("tests"), "eps_max": self.eps_max,
                "min_event_prob": None if math.isinf(self.min_event_prob) else self.min_event_prob,
                "families": self.details.get("families"), "event_family": self.details.get("event_family"),
                "meaning": self.meaning(),
                "tradeoff": None if self.tradeoff is None else
                {k: v for k, v in self.tradeoff.as_dict().items() if k not in ("mu_points", "eps_points")}}


# ---------------------------------------------------------------------------
# the engine
# ---------------------------------------------------------------------------

class _Test:
    """Statistics fitted on the selection split plus their tests: maps outputs to 'say D′'.

    ``stat`` is the main statistic (its values feed the trade-off audit); ``extra`` holds the statistics
    of the other candidate paths run beside it (the classifier's log-odds beside an (index, value) pair's
    value; the pooled point-mass scores of :mod:`verify.audit.events`).  Every test of every path is one
    of the K tests of the Bonferroni correction.
    """

    def __init__(self, kind: str, sel0: np.ndarray, sel1: np.ndarray, n_ev0: int, n_ev1: int, delta: float,
                 alpha: float, score: Any, seed: np.random.SeedSequence, auto: bool = True) -> None:
        user = score is not None and callable(score) and not hasattr(score, "fit")
        if auto and not user and score is None:
            if kind in ("scalar", "vector") and few_values(sel0, sel1):
                kind = "categorical"                # codes saved as floats, ⊥/⊤ patterns: few distinct values
            elif kind == "categorical" and sel0.ndim == 1 and not few_values(sel0, sel1):
                kind = "scalar"                     # integers with many values (a noisy count): ordered
        if kind == "categorical" and not auto and not user and _mostly_unrepeated(sel0, sel1):
            raise ValueError("parameter 'output' = 'categorical': most selection outputs take a value seen only "
                             "once, so the categories of the evaluation split would be unseen and score 0 (no "
                             "power); these outputs are continuous: use output='auto' or 'scalar'/'vector'")
        numeric = sel0.ndim == 1             # numeric scalars (as_outputs: real or integer, bools as 0/1)
        self.kind = kind
        self.groups: Callable[[np.ndarray], np.ndarray] | None = None
        self.extra: list[Callable[[np.ndarray], np.ndarray]] = []
        self.extra_names: list[str] = []
        self.families: dict[str, str] = {}      # family -> what it is, in words (for the meaning line)
        self.atoms: Any = None
        pair = value_and_groups(sel0, sel1) if auto and score is None and kind == "vector" else None
        if pair is not None:
            self.kind = kind = "pair"
        if pair is not None:
            c, gcols = pair
            gkeys = np.unique(np.concatenate([_keys(sel0[:, gcols]), _keys(sel1[:, gcols])]))

            def groups(x: np.ndarray, gkeys: np.ndarray = gkeys, gcols: list[int] = gcols) -> np.ndarray:
                k = _keys(x[:, gcols])
                i = np.clip(np.searchsorted(gkeys, k), 0, gkeys.size - 1)
                return np.where(gkeys[i] == k, i, -1)

            self.groups = groups
            self.stat = lambda x, c=c: np.asarray(x[:, c], dtype=float)
            self.name = (f"column {c} of the output (the value), thresholded within each group of column"
                         f"{'s' if len(gcols) > 1 else ''} {', '.join(map(str, gcols))} (the index) or over all")
            a0, a1 = sel0, sel1
            glabel = [f"column{'s' if len(gcols) > 1 else ''} {', '.join(map(str, gcols))} = "
                      f"{', '.join(f'{v:g}' for v in np.frombuffer(g.tobytes(), dtype=float))}" for g in gkeys]
            self.families["half-lines"] = (f"half-lines of the value (column {c}) within each index group and over "
                                           "all")
        elif user:
            self.stat = lambda x: np.asarray(score(x), dtype=float).reshape(-1)
            self.name = f"user statistic {getattr(score, '__name__', type(score).__name__)}"
            a0, a1 = sel0, sel1
            self.families["half-lines"] = f"half-lines of the {self.name}"
        elif kind == "scalar":
            self.stat = lambda x: np.asarray(x, dtype=float).reshape(-1)
            self.name = "the output"
            a0, a1 = sel0, sel1
            self.families["half-lines"] = "half-lines {x > τ}, {x < τ} of the output"
        elif kind == "categorical":
            self.stat = _categorical_score(sel0, sel1)
            self.name = ("empirical log-likelihood ratio of the " + ("output vector" if sel0.ndim == 2 else "output")
                         + " as a category (selection split)")
            a0, a1 = sel0, sel1
            self.families["categories"] = ("unions of categories in likelihood-ratio order (a category unseen in "
                                           "the selection split scores 0)")
        else:
            h0, h1 = sel0.shape[0] // 2, sel1.shape[0] // 2      # fit on one half, choose the tests on the other
            self.stat = _fitted_score(score, sel0[:h0], sel1[:h1], seed)
            est = "HistGradientBoostingClassifier" if score is None else type(score).__name__
            self.name = f"log-odds of a {est} fitted on selection half 1 (estimated log-likelihood ratio)"
            a0, a1 = sel0[h0:], sel1[h1:]
            self.families["half-lines"] = f"half-lines of the {est}'s log-odds"
        t0, t1 = self._t(a0), self._t(a1)
        chosen_on: dict[int, tuple[np.ndarray, np.ndarray]] = {0: (a0, a1)}   # stat -> selection outputs of its tests
        events: list[Event] = []
        for level in PESSIMISM:
            tau, d, projected = choose_threshold(t0, t1, n_ev0, n_ev1, delta, alpha / len(PESSIMISM), level)
            best = Event(tau, d, "threshold", projected=projected)
            if pair is not None:            # the same within each group (selection only: no test is added)
                g0, g1 = self.groups(a0), self.groups(a1)
                for g in range(len(glabel)):
                    m0, m1 = g0 == g, g1 == g
                    if m0.sum() + m1.sum() < 20:
                        continue
                    tau, d, projected = choose_threshold(t0[m0], t1[m1], n_ev0, n_ev1, delta,
                                                         alpha / len(PESSIMISM), level, totals=(t0.size, t1.size))
                    if projected > best.projected:
                        best = Event(tau, d, "threshold", projected=projected, group=g, group_label=glabel[g])
            if all((best.tau, best.direction, best.group) != (e.tau, e.direction, e.group) for e in events):
                events.append(best)
        if n_ev0 == n_ev1:
            # the two-tail guess tests (issue 32): both tails of the same statistic pooled into one count of
            # right and one of wrong guesses out of 2n (pooled.tails_eps_lower, valid at any δ); chosen here
            self.families["two tails"] = (f"pairs of tails {{T > τ}} (says D′) and {{T < τ_d}} (says D) of "
                                          f"{'the value' if pair is not None else self.name}, pooled")
            for level in PESSIMISM:
                tau, tau_d, d, projected = choose_tails(t0, t1, n_ev0, delta, alpha / len(PESSIMISM), level)
                e = Event(tau, d, "tails", projected=projected, tau_d=tau_d, family="two tails")
                if math.isfinite(projected) and all((e.kind, e.tau, e.tau_d, e.direction) !=
                                                    (f.kind, f.tau, f.tau_d, f.direction) for f in events):
                    events.append(e)
        for e in rare_events(t0, t1):
            if all((e.tau, e.direction) != (f.tau, f.direction) for f in events):
                events.append(e)
        if pair is not None:
            # the vector path beside the pair path (issue 32, item 3): a pair statistic may miss the group of the
            # leak, the classifier may miss a tail; both paths' tests share the Bonferroni correction
            h0, h1 = sel0.shape[0] // 2, sel1.shape[0] // 2
            clf = _fitted_score(None, sel0[:h0], sel1[:h1], seed)
            self.extra.append(clf)
            self.extra_names.append("log-odds of a HistGradientBoostingClassifier fitted on selection half 1")
            self.families["classifier half-lines"] = "half-lines of a classifier's log-odds of the whole pair"
            u0, u1 = clf(sel0[h0:]), clf(sel1[h1:])
            si = len(self.extra)
            chosen_on[si] = (sel0[h0:], sel1[h1:])
            for level in PESSIMISM:
                tau, d, projected = choose_threshold(u0, u1, n_ev0, n_ev1, delta, alpha / len(PESSIMISM), level)
                e = Event(tau, d, "threshold", projected=projected, stat=si, family="classifier half-lines",
                          note="classifier log-odds")
                if all((e.tau, e.direction, e.stat) != (f.tau, f.direction, f.stat) for f in events):
                    events.append(e)
        if kind == "categorical" and numeric and not user:
            # numeric scalars read as categories (codes saved as floats, a point mass beside continuous values):
            # the half-lines of the value run beside the categories, inside the same Bonferroni K
            si = len(self.extra) + 1
            self.extra.append(lambda x: np.asarray(x, dtype=float).reshape(-1))
            self.extra_names.append("the output (its value)")
            chosen_on[si] = (a0, a1)
            self.families["half-lines"] = "half-lines {x > τ}, {x < τ} of the output"
            v0, v1 = np.asarray(a0, dtype=float), np.asarray(a1, dtype=float)
            for level in PESSIMISM:
                tau, d, projected = choose_threshold(v0, v1, n_ev0, n_ev1, delta, alpha / len(PESSIMISM), level)
                e = Event(tau, d, "threshold", projected=projected, stat=si, note="the value")
                if all((e.tau, e.direction, e.stat) != (f.tau, f.direction, f.stat) for f in events):
                    events.append(e)
            for e in rare_events(v0, v1):
                e = dataclasses.replace(e, stat=si)
                if all((e.tau, e.direction, e.stat) != (f.tau, f.direction, f.stat) for f in events):
                    events.append(e)
        if kind != "categorical" or (numeric and not user):
            events += self._atom_events(sel0, sel1, n_ev0, n_ev1, delta, alpha,
                                        None if pair is None else pair[1])
        self.tests = events
        if n_ev0 == n_ev1:
            self._add_rare_pair(sel0, sel1, n_ev0, delta)
        self.K = len(self.tests)   # Bonferroni over the distinct tests fixed before the evaluation split is seen
        if delta == 0.0:
            # each test's own level on the evaluation split: ``alpha`` here is (1 − confidence)/2, so 2·alpha/K is
            # the per-test α/K of ``_finish`` (Clopper–Pearson limits at α/(2K) each, the conditional test at α/K),
            # with the K the audit uses (the rare-pair tests included: they do not depend on this choice)
            self._choose_bounds(chosen_on, n_ev0, n_ev1, 2 * alpha / max(1, self.K))

    def _choose_bounds(self, chosen_on: dict[int, tuple[np.ndarray, np.ndarray]], n_ev0: int, n_ev1: int,
                       level: float) -> None:
        """At δ = 0, the bound of each threshold test, fixed here on the selection split (issue 32).

        Each threshold test is scored by the two Clopper–Pearson limits or by StatDP's conditional test of its
        event (or of the event's complement), whichever :func:`_conditional_side` projects higher from the
        selection outputs on which the test's threshold was chosen.  The choice is a function of the selection
        split only, so the test stays one fixed test at α/K.
        """
        for si, (x0, x1) in chosen_on.items():
            idx = [i for i, e in enumerate(self.tests) if e.kind == "threshold" and e.stat == si]
            if not idx:
                continue
            says0, says1 = self.says_dprime(x=x0), self.says_dprime(x=x1)
            for i in idx:
                side = _conditional_side(int(says0[i].sum()), x0.shape[0], int((~says1[i]).sum()), x1.shape[0],
                                         n_ev0, n_ev1, level)
                if side:
                    self.tests[i] = dataclasses.replace(self.tests[i], cond_side=side)

    def _add_rare_pair(self, sel0: np.ndarray, sel1: np.ndarray, n_ev: int, delta: float) -> None:
        """The rare sets of both sides pooled into one guess test (issue 32): StatDP's pooled construction.

        Two such tests at most, each added when at least one of its rare sets favours each side: the pooled
        **point masses** only (a value repeated in the selection split on one side only is likely impossible on
        the other: no wrong guesses), and **every rare set** (also the range edges, beyond which the other side
        has probability about 1/(selection size) unless its support ends there: clamped noise).  Identical
        pools are one test.  Each bound is fixed here, from the selection split: the conditional pair test at
        δ = 0 when the projected number of guesses on the evaluation split is at most
        :data:`RARE_PAIR_CONDITIONAL_MAX`, else the pooled Clopper–Pearson (Hoeffding) bound of the two-tail
        tests.
        """
        base = list(self.tests)
        pools = []
        for keep in (lambda e: e.family == "point masses", lambda e: True):
            p1 = tuple(i for i, e in enumerate(base) if e.rare_set == 1 and keep(e))
            p0 = tuple(i for i, e in enumerate(base) if e.rare_set == -1 and keep(e))
            if p1 and p0 and (p1, p0) not in pools:
                pools.append((p1, p0))
        for p1, p0 in pools:
            self.tests.append(Event(math.nan, 1, "rare pair", family="pooled rare sets", parts1=p1, parts0=p0))
        if not pools:
            return
        k = len(pools)
        guesses = np.zeros(k)
        for sel in (sel0, sel1):
            says = self.says_dprime(x=sel)
            d = self.says_d(says, self._t(sel))
            guesses += (says[-k:] | d[-k:]).sum(axis=1) / sel.shape[0] * n_ev
        for j, g in enumerate(guesses):
            i = len(self.tests) - k + j
            self.tests[i] = dataclasses.replace(self.tests[i], projected=float(g),
                                                conditional=delta == 0.0 and g <= RARE_PAIR_CONDITIONAL_MAX)
        self.families["pooled rare sets"] = ("the rare sets of both sides (pooled point masses; with the range edges) "
                                             "pooled into one guess test")

    def _atom_events(self, sel0: np.ndarray, sel1: np.ndarray, n_ev0: int, n_ev1: int, delta: float, alpha: float,
                     gcols: list[int] | None) -> list[Event]:
        """The pooled point-mass tests (:mod:`verify.audit.events`), at most one per direction."""
        from .events import Atoms

        atoms = Atoms.fit(sel0, sel1, gcols)
        self.atoms = atoms
        self.families["point masses"] = ("point masses: values repeated in the selection split (" + (
            "each value" if sel0.ndim == 1 else "each output vector and each coordinate's value")
            + "), pooled into one union per side")
        out = []
        if atoms.n_atoms == 0:
            return out
        for fn, side, sign in ((atoms.toward_dprime, "D′", 1), (atoms.toward_d, "D", -1)):
            v0, v1 = fn(sel0), fn(sel1)
            if sign == -1:                  # an event favouring D: say D′ outside it (scores swapped)
                v0, v1 = v1, v0
            pos = np.unique(np.concatenate([v0, v1]))
            pos = pos[pos > 0]
            if pos.size == 0:
                continue
            cand = np.concatenate([[0.0], pos[:-1]])        # u > τ for τ just below each positive score
            s0, s1 = np.sort(v0), np.sort(v1)
            hit_other = s0.size - np.searchsorted(s0, cand, side="right")
            hit_side = s1.size - np.searchsorted(s1, cand, side="right")
            rfp = _cp_upper_fast(hit_other, s0.size, 1 - PESSIMISM[0])
            rfn = _cp_upper_fast(s1.size - hit_side, s1.size, 1 - PESSIMISM[0])
            ne_side, ne_other = (n_ev1, n_ev0) if sign == 1 else (n_ev0, n_ev1)
            e = _eps_vec(_cp_upper_fast(rfp * ne_other, ne_other, alpha), _cp_upper_fast(rfn * ne_side, ne_side, alpha),
                         delta)
            i = int(np.argmax(e))
            k = len(self.extra) + 1
            self.extra.append(fn)
            self.extra_names.append(f"pooled point masses seen mostly on {side}")
            # the rare set R = {score > τ}; says D′ on R (sign +1) or off R (sign −1: score ≤ τ, i.e. < nextafter(τ))
            tau = float(cand[i]) if sign == 1 else float(np.nextafter(cand[i], np.inf))
            out.append(Event(tau, sign, "pooled", projected=float(e[i]), stat=k, rare_set=sign,
                             family="point masses",
                             note=f"union of the point masses (values repeated in the selection split) with "
                                  f"log-ratio > {float(cand[i]):.3g} towards {side}"))
        return out

    def _t(self, x: np.ndarray) -> np.ndarray:
        t = self.stat(x)
        if t.shape[0] != x.shape[0] or not np.all(np.isfinite(t)):
            raise ValueError("parameter 'score': the statistic must map n outputs to n finite numbers")
        return t

    def group_ids(self, x: np.ndarray) -> np.ndarray | None:
        """Group of each output (pairs (index, value)), −1 for a group unseen in the selection split."""
        return None if self.groups is None else self.groups(x)

    def says_dprime(self, x: np.ndarray | None = None, t: np.ndarray | None = None,
                    g: np.ndarray | None = None) -> np.ndarray:
        """(K, n) booleans: test k says D′ for output i (from outputs ``x``, or their statistic ``t`` and groups ``g``).

        Tests of the extra statistics need the outputs ``x``.
        """
        if t is None:
            t, g = self._t(x), self.group_ids(x)
        extra: dict[int, np.ndarray] = {}
        rows = []
        for e in self.tests:
            if e.kind == "rare pair":
                r1 = np.logical_or.reduce([rows[i] for i in e.parts1])
                d0 = np.logical_or.reduce([~rows[i] for i in e.parts0])
                rows.append(r1 & ~d0)
                continue
            if e.stat == 0:
                rows.append(e.says_dprime(t, g))
                continue
            if x is None:
                raise ValueError("parameter 'x': the outputs are needed for the tests of the extra statistics")
            if e.stat not in extra:
                extra[e.stat] = np.asarray(self.extra[e.stat - 1](x), dtype=float)
            rows.append(e.says_dprime(extra[e.stat]))
        return np.array(rows).reshape(len(self.tests), -1)

    def says_d(self, says: np.ndarray, t: np.ndarray | None = None) -> np.ndarray:
        """(K, n) booleans: where a guess test says D (the other tail of a two-tail test, the rare sets favouring D
        of a rare-pair test; all False for the other tests), from the (K, n) matrix ``says`` of
        :meth:`says_dprime` and the main statistic ``t``."""
        out = np.zeros_like(says)
        for k, e in enumerate(self.tests):
            if e.kind == "tails":
                out[k] = e.says_d(t)
            elif e.kind == "rare pair":
                out[k] = np.logical_or.reduce([~says[i] for i in e.parts0]) & ~np.logical_or.reduce(
                    [says[i] for i in e.parts1])
        return out


def _tradeoff(t0: np.ndarray, t1: np.ndarray, delta: float, confidence: float, seed: np.random.SeedSequence
              ) -> Any:
    """The trade-off-curve audit (:mod:`verify.audit.tradeoff`) of the evaluation split's statistic values.

    The statistic was fixed on the selection split, so it is independent of these values; the
    trade-off audit splits them again for its own tests.  None when there are too few.
    """
    from .tradeoff import tradeoff_audit

    if min(t0.size, t1.size) < 2 * MIN_OUTPUTS:
        return None
    return tradeoff_audit(t0, t1, delta=delta, confidence=confidence, seed=seed)   # its errors are bugs: raised


def _tradeoff_choice(tradeoff: Any, kind: str, delta: float) -> tuple[bool, str]:
    """Whether to run the trade-off line: ``None`` by :func:`verify.audit.tradeoff.tradeoff_applies`, else as told."""
    if tradeoff is None:
        from .tradeoff import tradeoff_applies

        return tradeoff_applies(kind, delta)
    if not isinstance(tradeoff, bool):
        raise ValueError(f"parameter 'tradeoff' = {tradeoff!r} must be None (by the rule), True or False")
    return tradeoff, ("the trade-off line was asked for (tradeoff=True)" if tradeoff else
                      "the trade-off line was switched off (tradeoff=False)")


def _split_sizes(n0: int, n1: int, fraction: float) -> tuple[int, int]:
    s0 = min(max(4, int(round(fraction * n0))), n0 - 10)
    s1 = min(max(4, int(round(fraction * n1))), n1 - 10)
    return s0, s1


def _cp_need(ne_zero: int, ne_hit: int, delta: float, a: float, target: float) -> int | None:
    """The smallest count among ne_hit with which an event never seen among ne_zero gives ε_lower > target."""
    u0 = cp_upper(0, ne_zero, a)

    def ok(hits: int) -> bool:
        num = 1 - delta - cp_upper(ne_hit - hits, ne_hit, a)
        return num > 0 and math.log(num) - math.log(u0) > target

    if not ok(ne_hit):
        return None
    lo, hi = 0, ne_hit                     # ok(hi), not ok(lo)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi


def min_event_prob(n0: int, n1: int, delta: float, confidence: float, claim: float | None = None,
                   power: float | None = None) -> float:
    """Smallest p such that an event of probability p on one data set and 0 on the other is detected.

    Detected: with n0, n1 evaluation releases, no false positive and the event's count c among the
    releases of its data set, the Clopper–Pearson ε_lower exceeds the claim (0 without one); the conditional
    test of a threshold at δ = 0 is not counted here (:func:`event_families` counts it per family).  ``power`` None: c at its
    expectation p·n (about even odds); else the smallest p with P[Bin(n, p) ≥ c_min] ≥ ``power`` (exact
    binomial law).  ``inf`` when no p ≤ 1 does.

    Examples
    --------
    >>> p = min_event_prob(90_000, 90_000, 0.0, 0.95)
    >>> 5e-5 < p < 2e-4
    True
    >>> p < min_event_prob(90_000, 90_000, 0.0, 0.95, power=0.9) < 3 * p
    True
    """
    from .events import power_min_prob

    a = (1 - confidence) / 2
    target = max(0.0, claim or 0.0)
    best = math.inf
    for ne_zero, ne_hit in ((n0, n1), (n1, n0)):
        need = _cp_need(ne_zero, ne_hit, delta, a, target)
        if need is None:
            continue
        best = min(best, need / ne_hit if power is None else power_min_prob(need, ne_hit, power))
    return best


def _event_seed(seed: np.random.SeedSequence | None, i: int) -> np.random.SeedSequence:
    """The thinning uniforms of the conditional test of test i (a fixed child: no state is consumed)."""
    base = seed if seed is not None else np.random.SeedSequence(0)
    return np.random.SeedSequence(base.entropy, spawn_key=tuple(base.spawn_key) + (1_000 + i,))


def _rare_counts(ev: Event, fp: int, fn: int, ne0: int, ne1: int) -> tuple[int, int, int, int]:
    """(count, releases) of a test's rare set R on the side it favours, then on the other side.

    ``rare_set`` +1: the test says D′ on R (R favours D′: D′ hits n1 − fn, D hits fp); −1: it says D′
    off R (R favours D: D hits n0 − fp, D′ hits fn).
    """
    side = ev.rare_set or ev.cond_side
    return (ne1 - fn, ne1, fp, ne0) if side == 1 else (ne0 - fp, ne0, fn, ne1)


def _projected_conditional(c0: int, n0: int, c1: int, n1: int, level: float) -> float:
    """ε_lower of StatDP's conditional test (event favouring side 0) at expected thinning: ln(c0/k), k the smallest
    kept count of the c0 occurrences whose one-sided Fisher p-value against c1 is ≤ ``level`` (0 when none is)."""
    from .pooled import fisher_greater

    if c0 <= 0 or fisher_greater(c0, n0, c1, n1) > level:
        return 0.0
    lo, hi = 0, c0                        # fisher(hi) ≤ level < fisher(lo) (fisher(0) = 1)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if fisher_greater(mid, n0, c1, n1) <= level else (mid, hi)
    return math.log(c0 / hi)


def _conditional_side(fp: int, s0: int, fn: int, s1: int, ne0: int, ne1: int, level: float) -> int:
    """Which bound scores a threshold test at δ = 0, from its selection counts (the rule of issue 32).

    fp of the s0 selection outputs on D say D′, fn of the s1 on D′ do not.  The counts are projected to the
    evaluation split (ne0, ne1: the selection rates times the evaluation sizes) and both bounds are computed at
    the same total level ``level``: the Clopper–Pearson pair (two limits at level/2) and StatDP's conditional
    test (one test at ``level``; at the expected thinning) of the event "says D′" favouring D′ and of its
    complement favouring D.  Returns +1 or −1 (the conditional test of that set) when one projects strictly
    higher than the Clopper–Pearson pair, else 0 (Clopper–Pearson).  A function of the selection split only.

    Examples
    --------
    >>> _conditional_side(2, 1000, 985, 1000, 9000, 9000, 0.01)      # a rare event on D′ (ratio 7.5)
    1
    >>> _conditional_side(100, 1000, 100, 1000, 9000, 9000, 0.01)    # both sets common, ratio 9: Clopper–Pearson
    0
    """
    c_fp, c_fn = round(fp / s0 * ne0), round(fn / s1 * ne1)
    cp = max(0.0, eps_from_rates(cp_upper(c_fp, ne0, level / 2), cp_upper(c_fn, ne1, level / 2)))
    up = _projected_conditional(ne1 - c_fn, ne1, c_fp, ne0, level)      # "says D′" favours D′
    down = _projected_conditional(ne0 - c_fp, ne0, c_fn, ne1, level)    # its complement favours D
    if max(up, down) <= cp:
        return 0
    return 1 if up >= down else -1


def _conditional(ev: Event, delta: float) -> bool:
    """Whether a test is scored by StatDP's conditional test: a rare set (range edge or pooled point masses), or a
    threshold test whose conditional bound projected higher on the selection split (:func:`_conditional_side`),
    under a pure ε-DP claim (the conditional test is not a test of (ε, δ)-DP with δ > 0)."""
    return (ev.rare_set != 0 or ev.cond_side != 0) and delta == 0.0


def _tails_counts(fp: int, fn: int, dh0: int, dh1: int, ne1: int) -> tuple[int, int]:
    """(right, wrong) guesses of a two-tail test: its D tail on D plus its D′ tail on D′, and the crossings.

    ``fp`` = D′ tail on D, ``fn`` = releases on D′ outside the D′ tail, ``dh0``/``dh1`` = D tail on D / on D′.
    """
    return dh0 + (ne1 - fn), fp + dh1


def _tails_perfect(ne: int, delta: float, conf_k: float) -> float:
    """The bound of a perfect two-tail test (every release guessed right) at level conf_k."""
    from .pooled import tails_eps_lower

    return tails_eps_lower(2 * ne, 0, ne, delta=delta, confidence=conf_k)


def _test_lower(ev: Event, fp: int, fn: int, ne0: int, ne1: int, delta: float, conf_k: float,
                seed: np.random.SeedSequence, dh: tuple[int, int] = (0, 0)) -> float:
    """ε_lower of one test at level conf_k: the conditional test for a rare set when δ = 0, the pooled
    two-tail bound for a two-tail test, else Clopper–Pearson.

    Which bound scores a test is fixed with the test on the selection split (never the better of two).
    """
    if ev.kind == "rare pair" and ev.conditional:
        from .pooled import pair_conditional_eps_lower

        return pair_conditional_eps_lower(dh[0], fp, ne1 - fn, dh[1], confidence=conf_k)
    if ev.kind in ("tails", "rare pair"):
        from .pooled import tails_eps_lower

        right, wrong = _tails_counts(fp, fn, dh[0], dh[1], ne1)
        return tails_eps_lower(right, wrong, ne0, delta=delta, confidence=conf_k)
    if _conditional(ev, delta):
        from .pooled import conditional_eps_lower

        return conditional_eps_lower(*_rare_counts(ev, fp, fn, ne0, ne1), confidence=conf_k, seed=seed)
    return eps_lower_bound(fp, ne0, fn, ne1, delta, conf_k)


def _test_p(ev: Event, fp: int, fn: int, ne0: int, ne1: int, delta: float, claim: float,
            seed: np.random.SeedSequence, dh: tuple[int, int] = (0, 0)) -> float:
    if ev.kind == "rare pair" and ev.conditional:
        from .pooled import pair_conditional_p_value

        return pair_conditional_p_value(dh[0], fp, ne1 - fn, dh[1], claim)
    if ev.kind in ("tails", "rare pair"):
        from .pooled import tails_p_value

        right, wrong = _tails_counts(fp, fn, dh[0], dh[1], ne1)
        return tails_p_value(right, wrong, ne0, claim, delta=delta)
    if _conditional(ev, delta):
        from .pooled import conditional_p_value

        return conditional_p_value(*_rare_counts(ev, fp, fn, ne0, ne1), claim, seed=seed)
    return p_value(fp, ne0, fn, ne1, claim, delta)


def event_families(details: dict[str, Any], delta: float, confidence: float, claim: float | None
                   ) -> list[dict[str, Any]]:
    """The event families an audit tested, each with the smallest probability it detects with probability ≥ 90 %.

    ``min_prob``: the smallest p such that an event *of that family*, with probability p on one data set
    and 0 on the other and chosen as a test, gives ε_lower above the claim (above 0 without one) with
    probability ≥ :data:`verify.audit.events.POWER` (90 %) at this n and the audit's Bonferroni level:
    exact binomial law of its count on the evaluation split (thinned by e^{−claim} for a conditional test),
    times, for a point mass, the probability that it repeats in the selection split (else it is not an
    atom).  None when no such p ≤ 1 exists.  Nothing is said about events outside these families, nor
    about whether the selection split picks the event.  At δ = 0 a threshold family (half-lines, category
    unions) follows one rule whatever the audit's own tests were scored by: the smaller of the
    Clopper–Pearson figure and the conditional test's, the latter when :func:`_conditional_side`, fed with the
    event's expected selection counts, picks the conditional test for it.

    Examples
    --------
    >>> d = {"n_evaluation0": 90_000, "n_evaluation1": 90_000, "n_selection0": 10_000, "n_selection1": 10_000,
    ...      "tests": 4, "families": [{"family": "half-lines", "what": "half-lines of the output"}]}
    >>> f = event_families(d, 0.0, 0.95, 1.0)
    >>> f[0]["family"], 5e-5 < f[0]["min_prob"] < 5e-4
    ('half-lines', True)
    """
    from .events import POWER, conditional_need, power_min_prob

    ne0, ne1 = details["n_evaluation0"], details["n_evaluation1"]
    s0, s1 = details["n_selection0"], details["n_selection1"]
    K = details.get("tests", 1)
    conf_k = 1 - (1 - confidence) / K
    a = (1 - conf_k) / 2
    target = max(0.0, claim or 0.0)

    def cp(repeat: bool) -> float:
        best = math.inf
        for ne_zero, ne_hit, s_hit in ((ne0, ne1, s1), (ne1, ne0, s0)):
            need = _cp_need(ne_zero, ne_hit, delta, a, target)
            if need is not None:
                best = min(best, power_min_prob(need, ne_hit, POWER, repeat_in=s_hit if repeat else None))
        return best

    def cond(repeat: bool, ruled: bool = False) -> float:
        best = math.inf
        for ne_zero, ne_hit, s_zero, s_hit in ((ne0, ne1, s0, s1), (ne1, ne0, s1, s0)):
            need = conditional_need(ne_hit, ne_zero, 1 - conf_k)
            if need is not None:
                p = power_min_prob(need, ne_hit, POWER, keep=math.exp(-target), repeat_in=s_hit if repeat else None)
                # ruled: a threshold test is scored by the conditional test only when the rule of _Test picks it
                # from the selection counts; here at the event's expected counts (p·s_hit hits, none on the other
                # side: the rule's arguments are symmetric in the two sides)
                if ruled and _conditional_side(0, s_zero, s_hit * (1 - p), s_hit, ne_zero, ne_hit, 1 - conf_k) == 0:
                    continue
                best = min(best, p)
        return best

    def tails(ne: int) -> float:
        # an event in one tail with probability p on one data set, never on the other: p·ne right guesses, none
        # wrong, out of 2·ne (pooled.tails_eps_lower at the Bonferroni level)
        from .pooled import tails_eps_lower

        if ne0 != ne1 or tails_eps_lower(ne, 0, ne, delta=delta, confidence=conf_k) <= target:
            return math.inf
        lo, hi = 0, ne
        while hi - lo > 1:
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if tails_eps_lower(mid, 0, ne, delta=delta, confidence=conf_k) > target else (mid, hi)
        return power_min_prob(hi, ne, POWER)

    out = []
    for f in details.get("families", []):
        g = dict(f)
        if f["family"] == "point masses":
            p = cond(True) if delta == 0.0 else cp(True)
        elif f["family"] in ("two tails", "pooled rare sets"):
            p = tails(ne0)          # the pooled Clopper–Pearson bound (the conditional one, where used, is stronger)
        else:
            # half-lines, category unions, range edges: one rule for every such family at δ = 0 (it does not depend
            # on which of the audit's tests happened to be scored conditionally): the better of the Clopper–Pearson
            # pair and the conditional test, the latter where the rule would pick it for this event at its expected
            # counts (it does at most n, K, claim; at a large claim and small K it may keep Clopper–Pearson)
            p = cp(False)
            if delta == 0.0:
                p = min(p, cond(False, ruled=True))
        g["min_prob"] = None if not math.isfinite(p) or p > 1 else float(p)
        out.append(g)
    return out


def families_text(families: list[dict[str, Any]]) -> str:
    """The families in one clause: what each is and from which probability it detects an event.

    Examples
    --------
    >>> families_text([{"family": "half-lines", "what": "half-lines of the output", "min_prob": 1.8e-4}])
    'events tested: half-lines of the output (detected with probability ≥ 90% from probability 0.00018 on one data set when never on the other); no other events were tested'
    """
    from .events import POWER

    parts = []
    for f in families:
        p = f.get("min_prob")
        when = ("no event of this family can exceed the claim at this n" if p is None else
                f"detected with probability ≥ {POWER:.0%} from probability {p:.2g} on one data set when never on the other")
        parts.append(f"{f['what']} ({when}{'; ' + f['note'] if f.get('note') else ''})")
    return "events tested: " + "; ".join(parts) + "; no other events were tested"


def _finish(test: _Test, fps: np.ndarray, fns: np.ndarray, ne0: int, ne1: int, n0: int, n1: int, s0: int,
            s1: int, confidence: float, delta: float, claim: float | None, tradeoff: Any = None,
            seed: np.random.SeedSequence | None = None, dhits: tuple[np.ndarray, np.ndarray] | None = None,
            tradeoff_rule: str = "") -> AuditResult:
    K = test.K
    conf_k = 1 - (1 - confidence) / K          # Bonferroni over the K tests fixed on the selection split
    seeds = [_event_seed(seed, i) for i in range(K)]
    if dhits is None:
        dhits = (np.zeros(K, dtype=np.int64), np.zeros(K, dtype=np.int64))
    rows = list(zip(test.tests, fps, fns, dhits[0], dhits[1], seeds, strict=True))
    lowers = [_test_lower(e, int(a), int(c), ne0, ne1, delta, conf_k, s, (int(h0), int(h1)))
              for e, a, c, h0, h1, s in rows]
    b = int(np.argmax(lowers))
    fp, fn = int(fps[b]), int(fns[b])
    ev = test.tests[b]
    if ev.kind in ("tails", "rare pair"):
        right, wrong = _tails_counts(fp, fn, int(dhits[0][b]), int(dhits[1][b]), ne1)
        point = (math.inf if wrong == 0 else
                 max(0.0, math.log(max(right / (2 * ne0) - delta, 1e-300)) - math.log(wrong / (2 * ne0))))
    else:
        point = max(0.0, eps_from_rates(fp / ne0, fn / ne1, delta))
    pv = None if claim is None else min(1.0, K * min(_test_p(e, int(a), int(c), ne0, ne1, delta, claim, s,
                                                             (int(h0), int(h1))) for e, a, c, h0, h1, s in rows))
    fams = []
    for fam, what in test.families.items():
        f: dict[str, Any] = {"family": fam, "what": what, "tests": sum(e.family == fam for e in test.tests)}
        if fam == "point masses":
            f["note"] = (test.atoms.describe() + " in the selection split") if test.atoms is not None else ""
        elif any(e.family == fam and e.kind == "rare" and _conditional(e, delta) for e in test.tests):
            f["note"] = "a tail beyond every output of the other data set must also occur in the selection split"
        fams.append(f)
    stat_name = test.name if ev.stat == 0 else test.extra_names[ev.stat - 1]
    details = {"n_selection": s0, "n_evaluation": ne0, "n_selection0": s0, "n_selection1": s1,
               "n_evaluation0": ne0, "n_evaluation1": ne1, "false_positives": fp, "false_negatives": fn,
               "output": test.kind, "statistic": test.name, "projected_eps": ev.projected, "tests": K,
               "event": ev.describe("T" if ev.stat == 0 else "S"), "event_kind": ev.kind,
               "event_statistic": stat_name, "event_family": ev.family,
               # a perfect test's Clopper–Pearson bound; a conditional test's bound depends on its thinning draws and
               # may pass it, so the ε_lower reached counts too (eps_max is never below what was certified)
               "eps_max": max(eps_lower_bound(0, ne0, 0, ne1, delta, conf_k), lowers[b],
                              _tails_perfect(ne0, delta, conf_k) if any(e.kind == "tails" for e in test.tests)
                              else 0.0),
               "tradeoff_rule": tradeoff_rule,
               "min_event_prob": min_event_prob(ne0, ne1, delta, conf_k, claim), "tradeoff": tradeoff,
               "families": fams}
    if ev.kind in ("tails", "rare pair"):
        details["right_guesses"], details["wrong_guesses"] = _tails_counts(fp, fn, int(dhits[0][b]),
                                                                           int(dhits[1][b]), ne1)
    details["families"] = event_families(details, delta, confidence, claim)
    return AuditResult(lowers[b], point, ev.tau, ev.direction, fp / ne0, fn / ne1, max(n0, n1), confidence, delta,
                       details, claim_eps=claim, p_value=pv, n0=n0, n1=n1)


def _common(confidence: Any, delta: Any, claim_eps: Any, selection_fraction: Any) -> tuple[float, float, float | None]:
    confidence = check_probability("confidence", confidence, lo_open=True, hi_open=True)
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    claim = check_claim(claim_eps)
    if selection_fraction is not None:
        check_probability("selection_fraction", selection_fraction, lo_open=True, hi_open=True)
    return confidence, delta, claim


def audit(release0: Releases, release1: Releases, n: int, *, seed: int | np.random.SeedSequence = 0,
          confidence: float = 0.95, delta: float = 0.0, claim_eps: float | None = None,
          selection_fraction: float | None = None, chunk: int = 200_000, output: str = "auto",
          score: Any = None, tradeoff: bool | None = False) -> AuditResult:
    """Audit a mechanism on one neighbouring pair from release functions.

    Parameters
    ----------
    release0, release1 : callable
        ``(rng, k) -> k outputs`` of k independent releases on D and on D′: shape (k,) real scalars,
        (k,) integer categories or (k, d) real vectors.  Each call must return exactly k finite outputs.
    n : int
        Releases per data set (split into selection and evaluation parts), at least 20.
    seed : int or numpy.random.SeedSequence
        Root of the randomness; the two data sets and the two splits get independent children.
        Use :func:`audit_seed` to give each audit of a study its own stream.
    confidence : float
        Level of the lower bound, in (0, 1) (two one-sided limits at (1 − confidence)/2 each).
    delta : float
        The δ of an (ε, δ) claim, in [0, 1) (0 for pure ε-DP).
    claim_eps : float, optional
        The claimed ε (≥ 0): the result then carries a verdict, a margin and a p-value.
    selection_fraction : float, optional
        Share of the releases used to choose the statistic and threshold (never reused for the
        bound); default :data:`SELECTION` of the output kind.
    chunk : int
        Releases generated per call (memory), at least 1.
    output : {"auto", "scalar", "categorical", "vector"}
        How to read the outputs.  "auto": outputs with few distinct values (or vector rows) in the
        selection split are categories, integers with many values are ordered scalars, vectors of one
        many-valued column beside few-valued ones are (index, value) pairs ("pair" in the result),
        other (k, d) arrays vectors.  "categorical" forces categories (values or whole rows); it is refused
        (ValueError naming ``output``) when most selection outputs take a value seen only once there
        (continuous outputs: their categories would be unseen on the evaluation split and score 0).
        Whatever the kind, values (rows, coordinates) repeated in the selection split are also tested as
        pooled point masses (:mod:`verify.audit.events`), and (index, value) pairs are also read by the
        vector path's classifier; all tests share one Bonferroni correction.
    score : callable or scikit-learn classifier, optional
        A fixed statistic ``x -> (k,)`` of the outputs (any kind; named in the result), or a classifier
        to fit on the selection split for vector outputs (default ``HistGradientBoostingClassifier``).
    tradeoff : bool or None
        Also run the trade-off-curve audit (:func:`verify.audit.tradeoff.tradeoff_audit`) on the
        evaluation split's statistic values: its own line (``result.tradeoff``), with its own
        confidence statement and assumptions.  False (default): not run; True: run on any output;
        None: by the rule :func:`verify.audit.tradeoff.tradeoff_applies` (scalar outputs with δ > 0,
        where a Gaussian trade-off curve is plausible).  The reason is ``details["tradeoff_rule"]``.
        The rule is not the default: where it applies (the Gaussian mechanisms) the line's ε_lower
        still sat below this audit's ε_lower in 1–3 of 5 seeds at 10⁴ and 10⁵ (issue 32, item 7;
        ``bench/README.md``, "Issue 32").

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> from verify.audit import randomized_response
    >>> m = randomized_response(1.0)
    >>> r = audit(m.release0, m.release1, n=20_000, seed=1, claim_eps=1.0)
    >>> r.details["output"], r.verdict, r.eps_lower <= 1.0
    ('categorical', 'consistent', True)
    """
    n = check_count("n", n, MIN_OUTPUTS)
    chunk = check_count("chunk", chunk, 1)
    confidence, delta, claim = _common(confidence, delta, claim_eps, selection_fraction)
    for name, fn in (("release0", release0), ("release1", release1)):
        if not callable(fn):
            raise ValueError(f"parameter {name!r} must be a callable (rng, k) -> k outputs")
    ss = check_seed(seed).spawn(7)                # ss[6]: the conditional tests' thinning (children 0–5 unchanged)

    def draw(fn: Releases, s: np.random.SeedSequence, k: int, name: str) -> np.ndarray:
        rng = np.random.default_rng(s)
        parts, left = [], k
        while left > 0:
            c = min(chunk, left)
            parts.append(as_outputs(fn(rng, c), name, c))
            left -= c
        return np.concatenate(parts) if len(parts) > 1 else parts[0]

    probe0, probe1 = draw(release0, ss[0], 2, "release0"), draw(release1, ss[1], 2, "release1")
    kind = output_kind(probe0, probe1, output)
    frac = selection_fraction if selection_fraction is not None else SELECTION[kind]
    s0, s1 = _split_sizes(n, n, frac)
    ne0, ne1 = n - s0, n - s1
    alpha = (1 - confidence) / 2
    sel0, sel1 = draw(release0, ss[0], s0, "release0"), draw(release1, ss[1], s1, "release1")
    kind = output_kind(sel0, sel1, output)
    test = _Test(kind, sel0, sel1, ne0, ne1, delta, alpha, score, ss[4], auto=output == "auto")
    run_tradeoff, rule = _tradeoff_choice(tradeoff, test.kind, delta)
    counts, stats, dhits = [], [], []
    for fn, s, k, name, say_dprime_is_error in ((release0, ss[2], ne0, "release0", True),
                                                (release1, ss[3], ne1, "release1", False)):
        rng = np.random.default_rng(s)
        left, errors, ts = k, np.zeros(len(test.tests), dtype=np.int64), []
        dh = np.zeros(len(test.tests), dtype=np.int64)
        while left > 0:
            c = min(chunk, left)
            x = as_outputs(fn(rng, c), name, c)
            output_kind(sel0, x, "auto")           # same shape as the selection outputs
            t = test._t(x)
            if run_tradeoff:
                ts.append(t)
            says = test.says_dprime(x=x, t=t, g=test.group_ids(x))
            errors += says.sum(axis=1) if say_dprime_is_error else (~says).sum(axis=1)
            dh += test.says_d(says, t).sum(axis=1)
            left -= c
        counts.append(errors)
        dhits.append(dh)
        stats.append(np.concatenate(ts) if ts else None)
    tr = _tradeoff(stats[0], stats[1], delta, confidence, ss[5]) if run_tradeoff else None
    return _finish(test, counts[0], counts[1], ne0, ne1, n, n, s0, s1, confidence, delta, claim, tr, ss[6],
                   dhits=(dhits[0], dhits[1]), tradeoff_rule=rule)


def audit_samples(d0: Any, d1: Any, *, claim_eps: float | None = None, seed: int | np.random.SeedSequence = 0,
                  confidence: float = 0.95, delta: float = 0.0, selection_fraction: float | None = None,
                  output: str = "auto", score: Any = None, tradeoff: bool | None = False) -> AuditResult:
    """Audit saved outputs: ``d0`` released on D, ``d1`` on D′ (independent releases).

    Parameters
    ----------
    d0, d1 : array_like
        Outputs, shape (n0,) / (n1,) real scalars or integer categories, or (n0, k) / (n1, k) vectors;
        finite; at least 20 each.  Each is permuted with a seeded generator before the split, so saved
        outputs in any order (sorted, grouped) give a valid bound.
    claim_eps, seed, confidence, delta, selection_fraction, output, score, tradeoff
        As in :func:`audit`.

    Returns
    -------
    AuditResult

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> d0, d1 = rng.laplace(0, 1, 50_000), 1 + rng.laplace(0, 1, 50_000)   # Laplace, true ε = 1
    >>> r = audit_samples(d0, d1, claim_eps=0.5)
    >>> r.verdict, round(r.eps_lower, 1), r.p_value < 1e-6
    ('violated', 1.0, True)
    """
    confidence, delta, claim = _common(confidence, delta, claim_eps, selection_fraction)
    a0, a1 = as_outputs(d0, "d0"), as_outputs(d1, "d1")
    for name, a in (("d0", a0), ("d1", a1)):
        if a.shape[0] < MIN_OUTPUTS:
            raise ValueError(f"parameter {name!r}: {a.shape[0]} outputs; an audit needs at least {MIN_OUTPUTS}")
    kind = output_kind(a0, a1, output)
    frac = selection_fraction if selection_fraction is not None else SELECTION[kind]
    ss = check_seed(seed).spawn(5)                # ss[4]: the conditional tests' thinning (children 0–3 unchanged)
    a0 = a0[np.random.default_rng(ss[0]).permutation(a0.shape[0])]
    a1 = a1[np.random.default_rng(ss[1]).permutation(a1.shape[0])]
    n0, n1 = a0.shape[0], a1.shape[0]
    s0, s1 = _split_sizes(n0, n1, frac)
    ne0, ne1 = n0 - s0, n1 - s1
    test = _Test(kind, a0[:s0], a1[:s1], ne0, ne1, delta, (1 - confidence) / 2, score, ss[2],
                 auto=output == "auto")
    t0, t1 = test._t(a0[s0:]), test._t(a1[s1:])
    says0 = test.says_dprime(x=a0[s0:], t=t0, g=test.group_ids(a0[s0:]))
    says1 = test.says_dprime(x=a1[s1:], t=t1, g=test.group_ids(a1[s1:]))
    fp, fn = says0.sum(axis=1), (~says1).sum(axis=1)
    run_tradeoff, rule = _tradeoff_choice(tradeoff, test.kind, delta)
    tr = _tradeoff(t0, t1, delta, confidence, ss[3]) if run_tradeoff else None
    return _finish(test, fp, fn, ne0, ne1, n0, n1, s0, s1, confidence, delta, claim, tr, ss[4],
                   dhits=(test.says_d(says0, t0).sum(axis=1), test.says_d(says1, t1).sum(axis=1)), tradeoff_rule=rule)


def audit_mechanism(release: Callable[[Any, np.random.Generator, int], Any], dataset0: Any, dataset1: Any, n: int,
                    **kw: Any) -> AuditResult:
    """Audit a user's mechanism ``release(dataset, rng, k) -> k outputs`` on two neighbouring data sets.

    A third-party mechanism that keeps its own random state may ignore ``rng`` (the audit is then
    only as reproducible as that state); it must still return k outputs per call.  Keyword
    arguments as in :func:`audit` (``claim_eps``, ``delta``, ``confidence``, ``seed``, ``output``…).

    Examples
    --------
    >>> def noisy_sum(data, rng, k):            # Laplace on a sum of values in [0, 1]
    ...     return sum(data) + rng.laplace(0.0, 1.0 / 0.5, size=k)
    >>> r = audit_mechanism(noisy_sum, [0.2, 0.9, 0.4], [0.2, 0.9, 1.0], n=50_000, claim_eps=0.5)
    >>> r.verdict
    'consistent'
    """
    if not callable(release):
        raise ValueError("parameter 'release' must be a callable release(dataset, rng, k) -> k outputs")
    return audit(lambda rng, k: release(dataset0, rng, k), lambda rng, k: release(dataset1, rng, k), n, **kw)
