r"""Trade-off-curve audits: a lower bound on the Gaussian-DP parameter μ from many thresholds at once.

A mechanism A is **μ-GDP** (Dong, Roth & Su 2022, "Gaussian differential privacy", JRSS-B) when
every test of D against D′ (and of D′ against D) has false-negative rate

    FNR ≥ G_μ(FPR) = Φ(Φ⁻¹(1 − FPR) − μ),

the trade-off curve of N(0, 1) against N(μ, 1).  A test with rates (p, q) therefore shows that A
is not μ-GDP for any μ below

    μ(p, q) = Φ⁻¹(1 − p) − Φ⁻¹(q) = −Φ⁻¹(p) − Φ⁻¹(q)        (symmetric in p and q).

Since μ(p, q) decreases in p and in q, replacing the rates by *upper* confidence limits keeps the
claim valid.  :func:`tradeoff_audit` does this for tests "say D′ when T > τ" (or "when T < τ") chosen
on a **selection split** in two families (a μ family and an (ε, δ) family); each family's K tests
get one-sided Clopper–Pearson limits at α/(2K) on each of their 2K rates, counted on the
**evaluation split** (Bonferroni), so that with probability ≥ 1 − α *all* true rates of a family lie
below their limits at once.  (Nasr, Hayes, Steinke, Balle, Tramèr, Jagielski, Carlini & Terzis,
USENIX Security 2023, "Tight auditing of differentially private machine learning", estimate μ from
the rates of threshold tests and convert it to (ε, δ) assuming the mechanism is Gaussian; here the
bound on μ is kept apart from that assumption.)  Three numbers follow:

* ``mu_lower`` = max over the μ family's points of μ(p_up, q_up): **valid for any mechanism** — a
  μ-GDP mechanism produces such limits with probability ≤ α for every μ < ``mu_lower``.
* ``eps_lower`` = max over the ε family's points of max{ln((1 − δ − q_up)/p_up), ln((1 − δ − p_up)/q_up)}:
  **valid for any mechanism** — the largest ε for which one confident point violates (ε, δ)-DP.
  (The convex hull of the points adds nothing: the (ε, δ)-DP region and the μ-GDP region of the
  (FPR, FNR) square are both convex.)
* ``eps_gdp`` = ε_{μ_lower}(δ), the exact ε at δ of ``mu_lower``-GDP, from
  δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) (Dong, Roth & Su 2022, Corollary 2.13).  A lower
  bound on μ does **not** by itself contradict (ε, δ)-DP: this number is a lower bound on the
  mechanism's ε at δ **only under the assumption that its trade-off curve is exactly Gaussian**
  (T(A(D), A(D′)) = G_μ for some μ, as for the Gaussian mechanism on one pair; then (ε, δ)-DP ⇔
  δ ≥ δ_μ(ε), and δ_μ(ε) increases in μ).  It can exceed the true ε of other mechanisms many times
  (Laplace, randomized response: pure ε-DP, yet ``eps_gdp`` = ∞ at δ = 0).  ``gdp_rejected`` tells
  when the data themselves contradict the assumption.

Choosing the tests (selection split only; the evaluation split is used once, for the counts):

* **μ, GDP-guided** (``mu_gdp``): the symmetric point of the fitted curve, where a Gaussian curve is
  estimated best — the threshold leaving half of the pooled selection sample on each side, in the
  direction of the larger μ̂ (this μ̂ is the selection split's GDP fit);
* **μ, model-free** (``mu``): the threshold maximising μ(p, q) *projected* to the evaluation split's
  size from pessimistic selection rates (Clopper–Pearson upper limits at level :data:`PESSIMISM`),
  as the single-threshold auditor (:mod:`verify.audit.core`) does for ε — for curves whose best
  point is not central;
* **ε, model-free** (``eps``): the same projection of the (ε, δ) bound;
* **ε, GDP-guided** (``eps_gdp``): the (ε, δ) bound is projected along the fitted curve G_μ̂
  (expected counts at the evaluation size), and the optimal false-positive rate p* is turned into a
  threshold by matching the pooled selection sample's tail mass — a smooth model picks the tail
  threshold instead of a handful of noisy tail counts (the winner's curse of the model-free choice).
  Validity never depends on the model: it only chooses.
* **ε, both tails pooled** (``eps_tails``, one test of the ε family): say D when T < τ₀ and D′ when
  T > τ₁ in the fitted direction, abstain in between; the correct and the wrong guesses of the first
  min(n0, n1) evaluation samples of each side are tested together
  (:func:`verify.audit.pooled.tails_eps_lower`: one test on twice the releases).  The two tails hold
  equal shares of the pooled selection sample, the share chosen along the fitted curve G_μ̂.  Valid for any
  mechanism; it gains on symmetric curves (Gaussian (1, 1e-5) at 10⁵: ideal 0.652 against 0.595 for
  one threshold).

Inputs are scalar outputs or a score already computed per sample (for vector or categorical outputs,
any statistic fixed independently of these samples, e.g. fitted on other releases: ``score``).

Examples
--------
>>> import numpy as np
>>> from verify.audit.tradeoff import tradeoff_audit, gdp_eps
>>> rng = np.random.default_rng(0)
>>> sigma = 3.7306316348159405                     # the analytic Gaussian of (ε, δ) = (1, 1e-5)
>>> d0, d1 = rng.normal(0, sigma, 100_000), 1 + rng.normal(0, sigma, 100_000)
>>> r = tradeoff_audit(d0, d1, delta=1e-5, seed=1)
>>> 0.24 < r.mu_lower <= 1 / sigma, r.eps_lower <= 1.0, r.gdp_rejected
(True, True, False)
>>> round(gdp_eps(1 / sigma, 1e-5), 6)            # the exact conversion at the true μ
1.0
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import special  # scipy.optimize (0.3 s CPU to import) only where gdp_eps needs it

from ._validate import check_probability, check_seed
from .kinds import as_outputs

# (no import of verify.audit.core: core runs this audit on its own statistic, and the layers test
# forbids import cycles; the few input checks below follow core's wording)

#: smallest number of samples per data set (as the single-threshold auditor)
MIN_OUTPUTS = 20
#: default share of the samples used to choose the tests
SELECTION = 0.1
#: level of the pessimistic (upper-limit) selection rates that are projected to the evaluation size
PESSIMISM = 0.99
#: thresholds tried on the selection split
MAX_CANDIDATES = 600
#: default numbers of tests chosen for μ, model-free for ε, GDP-guided for ε
TESTS = {"mu_gdp": 1, "mu": 1, "eps": 1, "eps_gdp": 1, "eps_tails": 1}

ASSUMPTION_MU = ("mu_lower: valid for any mechanism (a μ-GDP mechanism yields these confident points with "
                 "probability ≤ α for every μ < mu_lower)")
ASSUMPTION_EPS = ("eps_lower: valid for any mechanism (one confident point violates (ε, δ)-DP for every "
                  "ε < eps_lower)")
ASSUMPTION_GDP = ("eps_gdp: a lower bound on ε at δ only if the mechanism's trade-off curve is exactly Gaussian "
                  "(G_μ for some μ, as for the Gaussian mechanism); not valid for Laplace, randomized response "
                  "or other non-Gaussian mechanisms, whose ε it can exceed")


#: output kinds (of :mod:`verify.audit.core`) whose trade-off curve can be Gaussian: ordered real outputs
GAUSSIAN_PLAUSIBLE_KINDS = ("scalar",)


def tradeoff_applies(kind: str, delta: float) -> tuple[bool, str]:
    """Whether an audit should run the trade-off line by default, and why: a rule on the inputs only.

    Applied by :func:`verify.audit.audit` and :func:`verify.audit.audit_samples` when told
    ``tradeoff=None``; it is **not their default** (``tradeoff=False``): measured where the rule says
    run (Gaussian (1, 1e-5), analytic and classical σ, and a Gaussian σ = 2 at δ = 1e-6, 5 seeds at
    10⁴ and 10⁵ each), the line's ε_lower sat below the auditor's ε_lower (with its two-tail tests) in
    1–3 of the 5 seeds of every case, so the rule would print a line below the plain bound (issue 32,
    item 7; its speed goal, ≥ 10⁶ releases per CPU-second in process with the line on, was met:
    2.5·10⁶ at 10⁵, 4.3·10⁶ at 10⁶).

    The line is run (and printed as its own labelled line, never as the headline) only where its one
    number that the plain single-threshold bound does not give, ``eps_gdp``, can mean something:

    * ``delta`` > 0: at δ = 0, μ-GDP with μ > 0 is no ε-DP for any finite ε (``eps_gdp`` = ∞), and an
      exactly Gaussian curve contradicts any pure-ε claim;
    * ``kind`` in :data:`GAUSSIAN_PLAUSIBLE_KINDS` (ordered real outputs): a categorical output has a
      piecewise-linear trade-off curve, never Gaussian; a vector's fitted log-odds score carries the
      classifier's error, not the mechanism's curve.

    Elsewhere it cannot win: its ``eps_lower`` is the same kind of single-threshold (ε, δ) bound as
    the plain auditor's, on a re-split of the same evaluation data, so it is below the plain bound in
    expectation (measured: SVT Alg. 1 at 1e5, 0.39–0.41 against 0.66–0.81).  The rule never looks at
    any result (the plain bound, ``gdp_rejected``), so choosing to show the line pays no correction.

    Parameters
    ----------
    kind : str
        The output kind the auditor chose or was told (``scalar``, ``categorical``, ``vector``, ``pair``).
    delta : float
        δ of the audit, in [0, 1).

    Returns
    -------
    (bool, str)
        Whether to run the line by default, and the reason in one line.

    Examples
    --------
    >>> tradeoff_applies("scalar", 1e-5)
    (True, 'scalar outputs at δ = 1e-05 > 0: a Gaussian trade-off curve is plausible')
    >>> tradeoff_applies("scalar", 0.0)[0], tradeoff_applies("categorical", 1e-5)[0]
    (False, False)
    """
    if not isinstance(kind, str):
        raise ValueError(f"parameter 'kind' = {kind!r} must be an output kind (a string such as 'scalar')")
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    if delta == 0:
        return False, ("δ = 0: a μ-GDP curve (μ > 0) is never pure ε-DP, eps_gdp would be ∞; the trade-off line "
                       "is off (tradeoff=True runs it)")
    if kind not in GAUSSIAN_PLAUSIBLE_KINDS:
        return False, (f"{kind} outputs: their trade-off curve is not Gaussian (piecewise linear, or a fitted "
                       "score's); the trade-off line is off (tradeoff=True runs it)")
    return True, f"{kind} outputs at δ = {delta:g} > 0: a Gaussian trade-off curve is plausible"


# ---------------------------------------------------------------------------
# input checks
# ---------------------------------------------------------------------------





def _candidates(pooled_sorted: np.ndarray, max_candidates: int) -> np.ndarray:
    """Thresholds spanning the whole range: every distinct value when few, else order statistics at ranks
    spaced geometrically from both ends (the tails, the extremes) and uniformly in between."""
    u = np.unique(pooled_sorted)
    if u.size <= max_candidates:
        return u
    N = pooled_sorted.size
    g = np.unique(np.round(np.geomspace(1, N / 2, max_candidates // 4)).astype(np.int64)) - 1
    ranks = np.unique(np.concatenate([g, N - 1 - g, np.linspace(0, N - 1, max_candidates // 2).astype(np.int64)]))
    return np.unique(pooled_sorted[ranks])


# ---------------------------------------------------------------------------
# μ-GDP ↔ (ε, δ): exact conversion
# ---------------------------------------------------------------------------

def _check_mu(mu: Any) -> float:
    if isinstance(mu, bool) or not isinstance(mu, numbers.Real) or math.isnan(float(mu)) or float(mu) < 0:
        raise ValueError(f"parameter 'mu' = {mu!r} must be a real number ≥ 0 (the GDP parameter μ)")
    return float(mu)


def gdp_log_delta(eps: float, mu: float) -> float:
    r"""ln δ_μ(ε) of μ-GDP, δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2), in log space.

    Dong, Roth & Su 2022, Corollary 2.13: a mechanism is μ-GDP iff it is (ε, δ_μ(ε))-DP for all
    ε ≥ 0.  Equal to the Gaussian mechanism's δ(ε) at σ/Δ = 1/μ
    (:func:`bounds.accounting.log_gaussian_delta`).

    Parameters
    ----------
    eps : float
        ε ≥ 0.
    mu : float
        μ ≥ 0 (μ = 0: δ = 0 at every ε; μ = ∞: δ = 1).

    Returns
    -------
    float
        ln δ_μ(ε) (−inf when δ_μ(ε) = 0 or underflows).

    Examples
    --------
    >>> round(math.exp(gdp_log_delta(0.0, 1.0)), 6)        # δ(0) = 2Φ(μ/2) − 1
    0.382925
    """
    from bounds.accounting import log_gaussian_delta

    mu = _check_mu(mu)
    if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or not float(eps) >= 0:
        raise ValueError(f"parameter 'eps' = {eps!r} must be a real number ≥ 0")
    if mu == 0:
        return -math.inf
    if math.isinf(mu):
        return 0.0
    if math.isinf(float(eps)):
        return -math.inf
    return log_gaussian_delta(float(eps), 1.0 / mu, 1.0)


def gdp_delta(eps: float, mu: float) -> float:
    """δ_μ(ε) of μ-GDP (see :func:`gdp_log_delta`).

    Examples
    --------
    >>> gdp_delta(1.0, 0.5) > gdp_delta(1.0, 0.4) > gdp_delta(2.0, 0.4)
    True
    """
    return math.exp(gdp_log_delta(eps, mu))


def gdp_eps(mu: float, delta: float) -> float:
    r"""The exact ε at δ of μ-GDP: the smallest ε with δ_μ(ε) ≤ δ, rounded *down* (for lower bounds).

    Root of ln δ_μ(ε) = ln δ by Brent's method in log space (no overflow of e^ε at large μ); the
    root is moved down by ulps until δ_μ(ε) ≥ δ holds in floating point, so that a μ_lower turned
    into ε this way never overstates.  0 when δ ≥ δ_μ(0) = 2Φ(μ/2) − 1; ∞ when δ = 0 and μ > 0
    (μ-GDP with μ > 0 is not ε-DP for any finite ε).

    Parameters
    ----------
    mu : float
        μ ≥ 0.
    delta : float
        δ ∈ [0, 1).

    Returns
    -------
    float
        ε ≥ 0 (possibly ∞).

    Examples
    --------
    >>> e = gdp_eps(0.5, 1e-6)
    >>> gdp_delta(e, 0.5) >= 1e-6 > gdp_delta(e * (1 + 1e-9), 0.5)
    True
    >>> gdp_eps(0.5, 0.0), gdp_eps(0.0, 1e-5)
    (inf, 0.0)
    """
    mu = _check_mu(mu)
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    if mu == 0:
        return 0.0
    if math.isinf(mu) or delta == 0:
        return math.inf
    ld = math.log(delta)

    def f(e: float) -> float:
        return gdp_log_delta(e, mu) - ld

    if f(0.0) <= 0:
        return 0.0
    z = -float(special.ndtri(delta))
    hi = max(mu * mu / 2 + mu * z, 0.0) + mu + 1.0     # δ_μ(ε) ≤ P[N(μ²/2, μ²) > ε]
    while f(hi) > 0:
        hi *= 2
    from scipy import optimize

    r = float(optimize.brentq(f, 0.0, hi, xtol=1e-300, rtol=4 * np.finfo(float).eps, maxiter=500))
    for i in range(64):                                 # round toward the smaller ε
        if f(r) >= 0:
            return r
        r = math.nextafter(r, 0.0) if i < 8 else r * (1 - 1e-15)
    return 0.0


def gdp_mu(fpr: Any, fnr: Any) -> np.ndarray:
    """μ(p, q) = −Φ⁻¹(p) − Φ⁻¹(q): the smallest μ whose GDP curve passes through (p, q) (vectorised).

    Negative below the diagonal (p + q > 1); +∞ at p = 0 or q = 0.

    Examples
    --------
    >>> from scipy.stats import norm
    >>> p = norm.sf(1.3)                                  # N(0,1) vs N(2,1), threshold at 1.3
    >>> round(float(gdp_mu(p, norm.cdf(1.3 - 2.0))), 12)
    2.0
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        return -special.ndtri(np.asarray(fpr, dtype=float)) - special.ndtri(np.asarray(fnr, dtype=float))


# ---------------------------------------------------------------------------
# confidence limits
# ---------------------------------------------------------------------------

def _cp_upper(k: Any, n: float, a: float) -> np.ndarray:
    """One-sided Clopper–Pearson upper limits at level 1 − a (k may be fractional: projected counts)."""
    k = np.asarray(k, dtype=float)
    out = np.ones_like(k)
    m = k < n
    out[m] = special.betainccinv(k[m] + 1, n - k[m], a)
    return out


def _cp_lower(k: Any, n: float, a: float) -> np.ndarray:
    """One-sided Clopper–Pearson lower limits at level 1 − a."""
    k = np.asarray(k, dtype=float)
    out = np.zeros_like(k)
    m = k > 0
    out[m] = special.betaincinv(k[m], n - k[m] + 1, a)
    return out


def _eps_vec(p: np.ndarray, q: np.ndarray, delta: float) -> np.ndarray:
    """max{ln((1 − δ − q)/p), ln((1 − δ − p)/q)} elementwise (−inf where undefined)."""
    p, q = np.asarray(p, dtype=float), np.asarray(q, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = np.where(1 - delta - q > 0, np.log(np.maximum(1 - delta - q, 1e-300)) - np.log(p), -np.inf)
        b = np.where(1 - delta - p > 0, np.log(np.maximum(1 - delta - p, 1e-300)) - np.log(q), -np.inf)
    return np.maximum(a, b)


# ---------------------------------------------------------------------------
# result
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class TradeoffPoint:
    """One test of the audit, chosen on the selection split and counted on the evaluation split.

    Attributes
    ----------
    threshold, direction : float, int
        Say D′ when direction·T > direction·threshold.
    role : str
        Why it was chosen: ``"mu_gdp"``, ``"eps_gdp"`` (GDP-guided), ``"mu"``, ``"eps"`` (model-free).
    fpr, fnr : float
        Observed rates on the evaluation split.
    fpr_upper, fnr_upper : float
        Their one-sided Clopper–Pearson upper limits at α/(2K), K the size of the test's family
        (simultaneous over the family).
    mu, eps : float
        μ(fpr_upper, fnr_upper) and the (ε, δ) bound of this point.
    """

    threshold: float
    direction: int
    role: str
    fpr: float
    fnr: float
    fpr_upper: float
    fnr_upper: float
    mu: float
    eps: float


@dataclass(frozen=True)
class TradeoffResult:
    """Outcome of :func:`tradeoff_audit`.

    Attributes
    ----------
    mu_lower : float
        Lower confidence bound on the GDP parameter, valid for any mechanism: with probability
        ≥ ``confidence`` the mechanism is not μ-GDP for any μ < ``mu_lower`` (0: nothing shown).
    eps_lower : float
        Lower confidence bound on ε at ``delta``, valid for any mechanism: the largest ε for which
        one of the simultaneously confident points of the ε family violates (ε, δ)-DP (0: nothing
        shown).
    eps_gdp : float
        ε at ``delta`` of ``mu_lower``-GDP (exact conversion, rounded down).  A lower bound on the
        mechanism's ε **only if its trade-off curve is exactly Gaussian** (see ``assumption``);
        ∞ when ``delta`` = 0 and ``mu_lower`` > 0.
    mu_point : float
        μ at the observed rates of the best μ test (no interval): the fitted GDP parameter.
    mu_upper_gdp : float
        Upper confidence bound on μ *if* the curve is exactly Gaussian and the statistic orders the
        outputs by likelihood ratio (from lower limits); ∞ when no point bounds it.
    gdp_rejected : bool
        True when no single Gaussian curve G_μ passes through the two-sided simultaneous limits of
        all points (a test at level 1 − ``confidence`` of its own): the trade-off curve is not exactly
        Gaussian, or the statistic is not a likelihood-ratio ordering.  A warning that ``eps_gdp``
        rests on an assumption the data contradict; False is no evidence for the assumption.
    mu_points, eps_points : tuple of TradeoffPoint
        The tests of the μ family and of the ε family, each counted on the evaluation split; the
        limits of each family are simultaneous (Bonferroni over its own tests).
    delta, confidence : float
    n0, n1 : int
        Samples on D and on D′ (selection + evaluation).
    assumption : str
        What each number assumes.
    details : dict
        Split sizes, the selection split's fitted μ̂ and direction, the GDP-guided false-positive
        rate, the numbers of tests.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(3)
    >>> r = tradeoff_audit(rng.laplace(0, 1, 20_000), 1 + rng.laplace(0, 1, 20_000), delta=1e-6)
    >>> r.eps_lower < 1.0 < r.eps_gdp, r.gdp_rejected           # Laplace: not a Gaussian curve
    (True, True)
    """

    mu_lower: float
    eps_lower: float
    eps_gdp: float
    mu_point: float
    mu_upper_gdp: float
    gdp_rejected: bool
    mu_points: tuple[TradeoffPoint, ...]
    eps_points: tuple[TradeoffPoint, ...]
    delta: float
    confidence: float
    n0: int
    n1: int
    assumption: str = "; ".join((ASSUMPTION_MU, ASSUMPTION_EPS, ASSUMPTION_GDP))
    details: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready summary (infinities as None)."""
        def num(x: float) -> float | None:
            return None if math.isinf(x) else x

        def pts(ps: tuple[TradeoffPoint, ...]) -> list[dict[str, Any]]:
            return [{"threshold": p.threshold, "direction": p.direction, "role": p.role, "fpr": p.fpr,
                     "fnr": p.fnr, "fpr_upper": p.fpr_upper, "fnr_upper": p.fnr_upper, "mu": num(p.mu),
                     "eps": num(p.eps)} for p in ps]

        return {"mu_lower": self.mu_lower, "eps_lower": self.eps_lower, "eps_gdp": num(self.eps_gdp),
                "mu_point": num(self.mu_point), "mu_upper_gdp": num(self.mu_upper_gdp),
                "gdp_rejected": self.gdp_rejected, "delta": self.delta, "confidence": self.confidence,
                "n0": self.n0, "n1": self.n1, "assumption": self.assumption,
                "mu_points": pts(self.mu_points), "eps_points": pts(self.eps_points)}


# ---------------------------------------------------------------------------
# choosing the tests on the selection split
# ---------------------------------------------------------------------------

def _counts(s0: np.ndarray, s1: np.ndarray, tau: np.ndarray, d: int) -> tuple[np.ndarray, np.ndarray]:
    """False positives on sorted s0 and false negatives on sorted s1 of 'say D′ when d·T > d·τ'."""
    if d == 1:
        return s0.size - np.searchsorted(s0, tau, side="right"), np.searchsorted(s1, tau, side="right")
    return np.searchsorted(s0, tau, side="left"), s1.size - np.searchsorted(s1, tau, side="left")


def _top(values: np.ndarray, k: int) -> list[int]:
    """Indices of the k largest finite values (best first)."""
    ok = np.flatnonzero(np.isfinite(values))
    if ok.size == 0 or k <= 0:
        return []
    order = ok[np.argsort(-values[ok], kind="stable")]
    return [int(i) for i in order[:k]]


def _at_mass(pooled: np.ndarray, mass: float, d: int) -> float:
    """The threshold τ among the pooled values whose 'say D′' region d·T > d·τ holds the share closest to ``mass``."""
    u = np.unique(pooled)
    if d == 1:
        share = (pooled.size - np.searchsorted(pooled, u, side="right")) / pooled.size
    else:
        share = np.searchsorted(pooled, u, side="left") / pooled.size
    gap = np.where((share > 0) & (share < 1), np.abs(share - mass), np.inf)   # trivial tests never
    return float(u[int(np.argmin(gap))])


class _Selection:
    """The tests of both families, chosen on the selection scores t0, t1 only.

    ``mu`` family: ``mu_gdp`` (the symmetric point of the fitted curve, where a GDP curve is
    estimated best: half the pooled mass on each side) and ``mu`` (best projected μ, model-free).
    ``eps`` family: ``eps`` (best projected (ε, δ) bound, model-free) and ``eps_gdp`` (best
    projected bound along the fitted curve G_μ̂, then spread by factors of 2 in tail mass).
    """

    def __init__(self, t0: np.ndarray, t1: np.ndarray, ne0: int, ne1: int, delta: float, alpha: float,
                 tests: dict[str, int]) -> None:
        s0, s1 = np.sort(t0), np.sort(t1)
        pooled = np.sort(np.concatenate([t0, t1]))
        a_mu = alpha / (2 * max(1, tests["mu"] + tests["mu_gdp"]))
        a_eps = alpha / (2 * max(1, tests["eps"] + tests["eps_gdp"] + tests["eps_tails"]))
        self.info: dict[str, Any] = {}
        mu_tests: list[tuple[float, int, str]] = []
        eps_tests: list[tuple[float, int, str]] = []
        # the symmetric point: half the pooled selection mass on each side, the direction of larger μ̂
        sym = []
        for d in (1, -1):
            tau = _at_mass(pooled, 0.5, d)
            f, g = _counts(s0, s1, np.array([tau]), d)
            sym.append((float(gdp_mu(f[0] / s0.size, g[0] / s1.size)), d, tau))
        mu_hat, d_hat, tau_sym = max(sym, key=lambda c: c[0] if math.isfinite(c[0]) or c[0] == math.inf else -math.inf)
        if tests["mu_gdp"] > 0:
            mu_tests.append((tau_sym, d_hat, "mu_gdp"))
        # model-free: rates at every candidate, pessimistic on the selection split, projected
        if tests["mu"] > 0 or tests["eps"] > 0:
            cand = _candidates(pooled, MAX_CANDIDATES)
            lev = 1 - PESSIMISM
            cols: dict[str, list[np.ndarray]] = {"mu": [], "eps": []}
            for d in (1, -1):
                fp, fn = _counts(s0, s1, cand, d)
                rfp, rfn = _cp_upper(fp, s0.size, lev), _cp_upper(fn, s1.size, lev)
                cols["mu"].append(gdp_mu(_cp_upper(rfp * ne0, ne0, a_mu), _cp_upper(rfn * ne1, ne1, a_mu)))
                cols["eps"].append(_eps_vec(_cp_upper(rfp * ne0, ne0, a_eps), _cp_upper(rfn * ne1, ne1, a_eps),
                                            delta))
            for role, out in (("mu", mu_tests), ("eps", eps_tests)):
                vals = np.concatenate(cols[role])
                for i in _top(vals, tests[role]):
                    d = 1 if i < cand.size else -1
                    out.append((float(cand[i if d == 1 else i - cand.size]), d, role))
        self.info.update({"mu_selection": mu_hat, "direction": d_hat})
        if tests["eps_gdp"] > 0 and math.isfinite(mu_hat) and mu_hat > 0:
            # the (ε, δ) bound projected along the fitted curve G_μ̂ at expected evaluation counts
            p = np.geomspace(0.5 / ne0, 0.5, 400)
            q = special.ndtr(-special.ndtri(p) - mu_hat)                 # G_μ̂(p) = Φ(Φ⁻¹(1 − p) − μ̂)
            e = _eps_vec(_cp_upper(p * ne0, ne0, a_eps), _cp_upper(q * ne1, ne1, a_eps), delta)
            best = _top(e, 1)
            if best:
                i = best[0]
                self.info["gdp_fpr"] = float(p[i])
                mass = (t0.size * p[i] + t1.size * (1 - q[i])) / pooled.size   # 'say D′' share of the pool
                for j in range(tests["eps_gdp"]):          # 1, 2, 1/2, 4, 1/4, … times the optimal mass
                    f = 2.0 ** (((j + 1) // 2) * (1 if j % 2 else -1))
                    eps_tests.append((_at_mass(pooled, min(mass * f, 1.0), d_hat), d_hat, "eps_gdp"))
        self.mu_tests, self.eps_tests = _distinct(mu_tests), _distinct(eps_tests)
        self.tails: tuple[float, float, int] | None = None
        if tests["eps_tails"] > 0 and math.isfinite(mu_hat) and mu_hat > 0:
            self.tails = _tails_choice(t0, t1, d_hat, min(ne0, ne1), delta, 2 * a_eps, mu_hat)


def _tails_choice(t0: np.ndarray, t1: np.ndarray, d: int, ne: int, delta: float, a: float,
                  mu_hat: float) -> tuple[float, float, int] | None:
    """Both tails pooled (:func:`verify.audit.pooled.tails_eps_lower`): say D when d·T < τ₀, D′ when d·T > τ₁.

    GDP-guided, as ``eps_gdp``: along the fitted curve (N(0, 1) against N(μ̂, 1)) the thresholds μ̂/2 ∓ s
    give correct and wrong rates Φ(μ̂/2 − s) and Φ(−μ̂/2 − s); the offset s whose bound at 2·ne expected
    evaluation releases is largest fixes the share of the pooled selection sample in each tail, and
    τ₀, τ₁ are the pooled sample's quantiles at that share (the model chooses; validity never depends on it).
    """
    x = np.sort(d * np.concatenate([t0, t1]))
    P, N = x.size, 2 * ne
    s = np.linspace(0.0, 8.0, 801)
    c, w = special.ndtr(mu_hat / 2 - s), special.ndtr(-mu_hat / 2 - s)
    c_lo = np.minimum(_cp_lower(c * N, N, a / 2), (c * N - 1) / N)
    w_up = np.maximum(_cp_upper(w * N, N, a / 2), (w * N + 1) / N)
    with np.errstate(divide="ignore", invalid="ignore"):
        e = np.where(c_lo > delta, np.log(np.maximum(c_lo - delta, 1e-300)) - np.log(w_up), -np.inf)
    best = _top(e, 1)
    if not best:
        return None
    r = int(round((c[best[0]] + w[best[0]]) / 2 * P))        # pooled selection outputs in each tail
    if r < 1 or r >= P - 1 - r:
        return None
    tau0, tau1 = float(x[r]), float(x[P - 1 - r])
    return (tau0, tau1, d) if tau0 < tau1 else None


def _distinct(tests: list[tuple[float, int, str]]) -> list[tuple[float, int, str]]:
    out: list[tuple[float, int, str]] = []
    for c in tests:
        if all((c[0], c[1]) != (s[0], s[1]) for s in out):
            out.append(c)
    return out


# ---------------------------------------------------------------------------
# the audit
# ---------------------------------------------------------------------------

def _scores(x: Any, name: str, score: Callable[[np.ndarray], Any] | None) -> np.ndarray:
    a = as_outputs(x, name)
    if score is not None:
        t = np.asarray(score(a), dtype=float).reshape(-1)
        if t.shape[0] != a.shape[0] or not np.all(np.isfinite(t)):
            raise ValueError(f"parameter 'score': the statistic must map the {a.shape[0]} outputs of {name!r} "
                             "to as many finite numbers")
        return t
    if a.ndim == 2 and a.shape[1] != 1:
        raise ValueError(f"parameter {name!r}: vector outputs of shape {a.shape} need a 'score' (a statistic "
                         "fixed independently of these samples) for a trade-off audit")
    return a.reshape(-1).astype(float)


def _check_tests(tests: Any) -> dict[str, int]:
    if tests is None:
        return dict(TESTS)
    ok = isinstance(tests, dict) and not (set(tests) - set(TESTS)) and all(
        not isinstance(v, bool) and isinstance(v, numbers.Integral) and 0 <= v <= 64 for v in tests.values())
    out = {k: int(tests.get(k, 0)) for k in TESTS} if ok else {}
    if ok and out["eps_tails"] > 1:
        ok = False
    if not ok or out["mu"] + out["mu_gdp"] < 1 or out["eps"] + out["eps_gdp"] + out["eps_tails"] < 1:
        raise ValueError(f"parameter 'tests' = {tests!r} must map keys among {sorted(TESTS)} to integers in "
                         "[0, 64] (eps_tails 0 or 1), with at least one μ test (mu, mu_gdp) and one ε test "
                         "(eps, eps_gdp, eps_tails)")
    return out


def _evaluate(tests: list[tuple[float, int, str]], e0: np.ndarray, e1: np.ndarray, a: float,
              delta: float) -> tuple[np.ndarray, np.ndarray, list[TradeoffPoint]]:
    """Counts of each test on the sorted evaluation scores and its points at upper limits (level a)."""
    ne0, ne1 = e0.size, e1.size
    if not tests:
        return np.zeros(0), np.zeros(0), []
    fp = np.array([_counts(e0, e1, np.array([tau]), d)[0][0] for tau, d, _ in tests], dtype=float)
    fn = np.array([_counts(e0, e1, np.array([tau]), d)[1][0] for tau, d, _ in tests], dtype=float)
    pu, qu = _cp_upper(fp, ne0, a), _cp_upper(fn, ne1, a)
    mus, epss = gdp_mu(pu, qu), _eps_vec(pu, qu, delta)
    pts = [TradeoffPoint(tau, d, role, float(fp[i] / ne0), float(fn[i] / ne1), float(pu[i]), float(qu[i]),
                         float(mus[i]), float(epss[i])) for i, (tau, d, role) in enumerate(tests)]
    return fp, fn, pts


def tradeoff_audit(d0: Any, d1: Any, *, delta: float = 0.0, confidence: float = 0.95,
                   seed: int | np.random.SeedSequence = 0, selection_fraction: float = SELECTION,
                   tests: dict[str, int] | None = None,
                   score: Callable[[np.ndarray], Any] | None = None) -> TradeoffResult:
    r"""Audit a mechanism's trade-off curve from samples of its releases on D (``d0``) and on D′ (``d1``).

    The samples are permuted with a seeded generator and split: the selection split chooses the
    tests of two families (see the module docstring), the evaluation split counts their errors once.
    Each family's K rates pairs get one-sided Clopper–Pearson upper limits at α/(2K),
    α = 1 − ``confidence`` (Bonferroni), so that ``mu_lower`` (μ family) and ``eps_lower`` (ε family)
    each hold with probability ≥ ``confidence`` whatever the mechanism.

    Parameters
    ----------
    d0, d1 : array_like
        Independent releases on D and on D′: real scalars of shape (n0,) / (n1,) (or (n, 1)), or a
        score already computed per sample; finite; at least 20 each.  Vector outputs need ``score``.
    delta : float
        The δ at which ε is bounded, in [0, 1) (0: pure ε-DP).
    confidence : float
        Level 1 − α of each bound, in (0, 1).
    seed : int or numpy.random.SeedSequence
        Root of the permutations.
    selection_fraction : float
        Share of each sample used to choose the tests, in (0, 1).
    tests : dict, optional
        Numbers of tests per role (:data:`TESTS` by default: one of each): ``mu_gdp`` (the symmetric
        point of the fitted GDP curve), ``mu`` (best projected μ, model-free), ``eps`` (best projected
        (ε, δ) bound, model-free), ``eps_gdp`` (best (ε, δ) bound along the fitted GDP curve, then
        spread by factors of 2 in tail mass).  At least one μ and one ε test; more tests cost a
        smaller α/(2K) on each.
    score : callable, optional
        A statistic ``outputs -> (n,) floats`` applied to ``d0`` and ``d1`` first; it must not have
        been fitted on these samples.

    Returns
    -------
    TradeoffResult
        ``mu_lower`` and ``eps_lower`` valid for any mechanism; ``eps_gdp`` valid only for a
        mechanism with an exactly Gaussian trade-off curve (``assumption`` says so).

    Raises
    ------
    ValueError
        Naming the parameter, for NaN/inf or non-numeric outputs, fewer than 20 samples, levels
        outside (0, 1), a bad ``tests`` dict or a score of the wrong length.

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> d0, d1 = rng.normal(0, 1, 50_000), rng.normal(1, 1, 50_000)     # 1-GDP, curve exactly Gaussian
    >>> r = tradeoff_audit(d0, d1, delta=1e-5)
    >>> 0.95 < r.mu_lower <= 1.0, r.eps_lower <= gdp_eps(1.0, 1e-5), r.eps_gdp <= gdp_eps(1.0, 1e-5)
    (True, True, True)
    """
    confidence = check_probability("confidence", confidence, lo_open=True, hi_open=True)
    delta = check_probability("delta", delta, lo_open=False, hi_open=True)
    frac = check_probability("selection_fraction", selection_fraction, lo_open=True, hi_open=True)
    tests = _check_tests(tests)
    if score is not None and not callable(score):
        raise ValueError("parameter 'score' must be a callable outputs -> (n,) floats")
    t0, t1 = _scores(d0, "d0", score), _scores(d1, "d1", score)
    for name, t in (("d0", t0), ("d1", t1)):
        if t.size < MIN_OUTPUTS:
            raise ValueError(f"parameter {name!r}: {t.size} outputs; a trade-off audit needs at least {MIN_OUTPUTS}")
    ss = check_seed(seed).spawn(2)
    t0 = t0[np.random.default_rng(ss[0]).permutation(t0.size)]
    t1 = t1[np.random.default_rng(ss[1]).permutation(t1.size)]
    n0, n1 = t0.size, t1.size
    k0 = min(max(4, int(round(frac * n0))), n0 - 10)
    k1 = min(max(4, int(round(frac * n1))), n1 - 10)
    ne0, ne1 = n0 - k0, n1 - k1
    alpha = 1 - confidence
    sel = _Selection(t0[:k0], t1[:k1], ne0, ne1, delta, alpha, tests)
    e0, e1 = np.sort(t0[k0:]), np.sort(t1[k1:])
    # each family: Bonferroni over its distinct tests, a number fixed before the evaluation split is seen
    # (a family may be empty when the selection split shows no direction at all: its bound is then 0)
    K_mu, K_eps = len(sel.mu_tests), len(sel.eps_tests) + (sel.tails is not None)
    fp_m, fn_m, pts_m = _evaluate(sel.mu_tests, e0, e1, alpha / (2 * max(K_mu, 1)), delta)
    fp_e, fn_e, pts_e = _evaluate(sel.eps_tests, e0, e1, alpha / (2 * max(K_eps, 1)), delta)
    mu_lower = max(0.0, max((p.mu for p in pts_m), default=0.0))
    eps_lower = max(0.0, max((p.eps for p in pts_e), default=0.0))
    tails_info: dict[str, Any] | None = None
    if sel.tails is not None:
        # both tails pooled on the first ne = min(ne0, ne1) evaluation samples of each side (a random subset:
        # the samples were permuted), one test of the ε family at α/K_eps (Bonferroni with the points)
        from .pooled import _tails_eps

        tau0, tau1, d = sel.tails
        ne = min(ne0, ne1)
        u0, u1 = d * t0[k0:k0 + ne], d * t1[k1:k1 + ne]
        correct = int(np.count_nonzero(u0 < tau0) + np.count_nonzero(u1 > tau1))
        wrong = int(np.count_nonzero(u0 > tau1) + np.count_nonzero(u1 < tau0))
        eps_t = _tails_eps(correct, wrong, ne, delta, alpha / K_eps)
        tails_info = {"tau0": tau0, "tau1": tau1, "direction": d, "correct": correct, "wrong": wrong,
                      "n_per_side": ne, "eps": eps_t}
        eps_lower = max(eps_lower, eps_t)
    mu_point = 0.0
    if K_mu:
        best = max(range(K_mu), key=lambda i: pts_m[i].mu)
        mu_point = float(gdp_mu(fp_m[best] / ne0, fn_m[best] / ne1))
    # exact-GDP diagnostic (its own test at level α): two-sided limits at α/(4K) on every rate of
    # both families must admit one μ; only tests in the fitted direction above the diagonal can lie
    # on the curve, and only if the statistic orders outputs by likelihood ratio
    tests_all = sel.mu_tests + sel.eps_tests
    fp, fn = np.concatenate([fp_m, fp_e]), np.concatenate([fn_m, fn_e])
    a2 = alpha / (4 * max(len(tests_all), 1))
    lo_mu = float(np.max(gdp_mu(_cp_upper(fp, ne0, a2), _cp_upper(fn, ne1, a2)), initial=-math.inf))
    pl, ql = _cp_lower(fp, ne0, a2), _cp_lower(fn, ne1, a2)
    on = np.array([c[1] == sel.info["direction"] for c in tests_all], dtype=bool) & (pl + ql <= 1)
    hi_mu = float(np.min(gdp_mu(pl, ql)[on])) if on.any() else math.inf
    info = dict(sel.info)
    info.update({"n_selection0": k0, "n_selection1": k1, "n_evaluation0": ne0, "n_evaluation1": ne1,
                 "tests_mu": K_mu, "tests_eps": K_eps, "tests_asked": tests, "tails": tails_info})
    return TradeoffResult(mu_lower, eps_lower, gdp_eps(mu_lower, delta), mu_point, hi_mu, bool(lo_mu > hi_mu),
                          tuple(pts_m), tuple(pts_e), delta, confidence, n0, n1, details=info)
