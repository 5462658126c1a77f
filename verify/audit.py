"""Privacy audits: a statistically valid lower bound on ε from a distinguishing attack.

An (ε, δ)-DP mechanism A satisfies, for every pair of neighbouring data sets
z, z̄ and every test (event S),

    P[A(z) ∈ S] ≤ e^ε P[A(z̄) ∈ S] + δ.

Write the test as "say z̄ when the statistic T(A(·)) exceeds a threshold τ",
with false-positive rate FPR = P[T(A(z)) > τ] and false-negative rate
FNR = P[T(A(z̄)) ≤ τ].  Applying the definition to S and its complement, in
both directions, gives (Kairouz, Oh & Viswanath 2015, Theorem 2.1; the form used
by Jagielski, Ullman & Oprea 2020, "Auditing differentially private machine
learning", and Nasr et al. 2021)

    ε ≥ max{ ln((1 − δ − FNR)/FPR),  ln((1 − δ − FPR)/FNR) }.

With N releases per data set, the observed rates are binomial.  Replacing FPR
and FNR by their one-sided Clopper–Pearson *upper* limits, each at level
1 − α/2 (Bonferroni over the two), turns the right-hand side into a lower
bound ε_lower that holds with probability ≥ 1 − α whatever the true rates are.
The threshold and the direction of the test are chosen on a separate
selection split of the releases, so the bound stays valid (the limits are
computed on fresh releases only).

A claim "A is ε-DP" is ``violated`` at confidence 1 − α when ε_lower > ε, and
``consistent`` otherwise (an audit can refute a claim, never prove it).

Examples
--------
Calibration on the Laplace mechanism at ε = 1 (sensitivity 1):

>>> import numpy as np
>>> from verify.audit import audit, laplace_releases
>>> r0, r1 = laplace_releases(eps=1.0, sensitivity=1.0)
>>> res = audit(r0, r1, n=200_000, seed=0)
>>> 0.9 < res.eps_lower <= 1.0
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

#: a release function: (rng, n) -> n statistics (one scalar per release)
Releases = Callable[[np.random.Generator, int], np.ndarray]


def cp_upper(k: int, n: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper limit at level 1 − alpha for k successes in n trials."""
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"parameters 'k' = {k!r}, 'n' = {n!r} need 0 ≤ k ≤ n, n ≥ 1")
    if k == n:
        return 1.0
    return float(stats.beta.ppf(1 - alpha, k + 1, n - k))


def eps_from_rates(fpr: float, fnr: float, delta: float = 0.0) -> float:
    """max{ln((1 − δ − FNR)/FPR), ln((1 − δ − FPR)/FNR)} (−inf when both are undefined)."""
    best = -math.inf
    for a, b in ((fnr, fpr), (fpr, fnr)):
        num = 1 - delta - a
        if num > 0 and b > 0:
            best = max(best, math.log(num / b))
        elif num > 0 and b == 0:
            best = math.inf
    return best


def eps_lower_bound(fp: int, n0: int, fn: int, n1: int, delta: float = 0.0, confidence: float = 0.95) -> float:
    """ε_lower from counts: false positives fp of n0 releases on z, false negatives fn of n1 on z̄.

    Each rate is replaced by its one-sided Clopper–Pearson upper limit at level
    1 − (1 − confidence)/2, so ε_lower ≤ ε holds with probability ≥ confidence
    for an (ε, δ)-DP mechanism.  Returns max(0, ·).

    Examples
    --------
    >>> round(eps_lower_bound(0, 10**5, 0, 10**5), 2)    # a perfect attack on 10^5 releases per side
    10.21
    """
    if not 0 < confidence < 1:
        raise ValueError(f"parameter 'confidence' = {confidence!r} must lie in (0, 1)")
    alpha = (1 - confidence) / 2
    return max(0.0, eps_from_rates(cp_upper(fp, n0, alpha), cp_upper(fn, n1, alpha), delta))


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
        The test chosen on the selection split: say z̄ when direction·T > direction·threshold.
    fpr, fnr : float
        Observed rates on the evaluation split.
    n : int
        Releases per data set (selection + evaluation).
    confidence, delta : float
    details : dict
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


def _best_threshold(t0: np.ndarray, t1: np.ndarray, delta: float, n_thresholds: int,
                    alpha: float) -> tuple[float, int]:
    """Threshold and direction maximising the ε lower bound on the selection split."""
    both = np.concatenate([t0, t1])
    qs = np.unique(np.quantile(both, np.linspace(0.001, 0.999, n_thresholds)))
    s0, s1 = np.sort(t0), np.sort(t1)
    best = (-math.inf, float(qs[0]) if qs.size else 0.0, 1)
    for direction in (1, -1):
        for tau in qs:
            if direction == 1:
                fp = s0.size - np.searchsorted(s0, tau, side="right")      # T > τ on z
                fn = np.searchsorted(s1, tau, side="right")                # T ≤ τ on z̄
            else:
                fp = np.searchsorted(s0, tau, side="left")                 # T < τ on z
                fn = s1.size - np.searchsorted(s1, tau, side="left")       # T ≥ τ on z̄
            v = eps_from_rates(cp_upper(int(fp), s0.size, alpha), cp_upper(int(fn), s1.size, alpha), delta)
            if v > best[0]:
                best = (v, float(tau), direction)
    return best[1], best[2]


def audit(release0: Releases, release1: Releases, n: int, *, seed: int = 0, confidence: float = 0.95,
          delta: float = 0.0, selection_fraction: float = 0.2, n_thresholds: int = 200,
          chunk: int = 200_000) -> AuditResult:
    """Audit a mechanism on one neighbouring pair with a threshold test on a scalar statistic.

    Parameters
    ----------
    release0, release1 : callable
        ``(rng, k) -> array of k statistics`` of k independent releases on z and on z̄.
    n : int
        Releases per data set (split into selection and evaluation parts).
    seed : int
        Root of the SeedSequence; the two data sets and the two splits get independent children.
    confidence : float
        Level of the lower bound (two one-sided limits at (1 − confidence)/2 each).
    delta : float
        The δ of an (ε, δ) claim (0 for pure ε-DP).
    selection_fraction : float
        Share of the releases used to choose the threshold (never reused for the bound).
    n_thresholds : int
        Candidate thresholds (quantiles of the selection statistics).
    chunk : int
        Releases generated per call (memory).

    Returns
    -------
    AuditResult
    """
    if n < 10:
        raise ValueError(f"parameter 'n' = {n!r}: an audit needs at least 10 releases per data set")
    if not 0 < selection_fraction < 1:
        raise ValueError(f"parameter 'selection_fraction' = {selection_fraction!r} must lie in (0, 1)")
    ss = np.random.SeedSequence(seed).spawn(4)
    n_sel = max(5, int(round(selection_fraction * n)))
    n_ev = n - n_sel

    def draw(fn: Releases, s: np.random.SeedSequence, k: int) -> np.ndarray:
        rng = np.random.default_rng(s)
        parts = []
        left = k
        while left > 0:
            c = min(chunk, left)
            parts.append(np.asarray(fn(rng, c), dtype=float).reshape(-1))
            left -= c
        return np.concatenate(parts)

    alpha = (1 - confidence) / 2
    tau, direction = _best_threshold(draw(release0, ss[0], n_sel), draw(release1, ss[1], n_sel),
                                     delta, n_thresholds, alpha)
    e0, e1 = draw(release0, ss[2], n_ev), draw(release1, ss[3], n_ev)
    if direction == 1:
        fp, fn = int(np.sum(e0 > tau)), int(np.sum(e1 <= tau))
    else:
        fp, fn = int(np.sum(e0 < tau)), int(np.sum(e1 >= tau))
    lower = eps_lower_bound(fp, n_ev, fn, n_ev, delta, confidence)
    point = max(0.0, eps_from_rates(fp / n_ev, fn / n_ev, delta))
    return AuditResult(lower, point, tau, direction, fp / n_ev, fn / n_ev, n, confidence, delta,
                       {"n_selection": n_sel, "n_evaluation": n_ev, "false_positives": fp, "false_negatives": fn})


def laplace_releases(eps: float, sensitivity: float = 1.0) -> tuple[Releases, Releases]:
    """The textbook Laplace mechanism on q(z) = 0, q(z̄) = Δ, scale Δ/ε (true ε exactly ``eps``)."""
    scale = sensitivity / eps
    return (lambda rng, k: rng.laplace(0.0, scale, k),
            lambda rng, k: sensitivity + rng.laplace(0.0, scale, k))


def gaussian_releases(eps: float, delta: float, sensitivity: float = 1.0) -> tuple[Releases, Releases]:
    """The classical Gaussian mechanism, σ = Δ√(2 ln(1.25/δ))/ε ((ε, δ)-DP for ε < 1; Dwork & Roth, Thm A.1)."""
    sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
    return (lambda rng, k: rng.normal(0.0, sigma, k),
            lambda rng, k: sensitivity + rng.normal(0.0, sigma, k))


def gaussian_true_eps(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The exact (tight) ε of the Gaussian mechanism at δ (Balle & Wang 2018, Theorem 8), by root finding."""
    from scipy import optimize

    mu = sensitivity / sigma

    def d(e: float) -> float:
        return float(stats.norm.cdf(mu / 2 - e / mu) - math.exp(e) * stats.norm.cdf(-mu / 2 - e / mu)) - delta

    if d(0.0) <= 0:
        return 0.0
    hi = 1.0
    while d(hi) > 0:
        hi *= 2
    return float(optimize.brentq(d, 0.0, hi, xtol=1e-12))
