r"""Point masses as events: values, output vectors, coordinates and (index, value) pairs that repeat.

A continuous law never releases the same value twice, so a value seen at least twice in the
selection split is (with overwhelming probability) a **point mass** of the mechanism: a count
released without noise, a clamp bound, a ⊥ row, a noise-free coordinate.  Half-line tests of the
output see a point mass only when it lies beyond every other output; here each repeated value is an
event of its own, wherever it lies.

**Features.**  Each output x has a few features: its value (scalar outputs); for vectors the whole
row, and each coordinate with its position (``(j, x_j)``); for (index, value) pairs the pair itself
(the row) and the value within its index group.  A feature is an *atom* when it occurs at least twice
among the selection outputs of both data sets together.

**The pooled events.**  Each atom f gets the selection log-likelihood ratio
λ(f) = ln((s₁(f) + ½)/(S₁ + ½)) − ln((s₀(f) + ½)/(S₀ + ½)).  An output's score towards D′ is
u(x) = max(0, max λ(f) over its atoms) and towards D is w(x) = max(0, −min λ(f)).  The two tests
"u(x) > τ" (the union of the atoms favouring D′ by more than τ: says D′) and "w(x) > τ′" (the union of
the atoms favouring D: says D′ outside it) are **unions of events, hence events**, so the DP
inequality applies to them.  τ, τ′ are chosen on the selection split by the bound projected to the
evaluation split from pessimistic rates (as the threshold tests of :mod:`verify.audit.core`), so
nothing the evaluation split sees was chosen with it.

**The bound of a pooled event.**  With δ = 0 the pooled event is scored by StatDP's conditional test
(:func:`verify.audit.pooled.conditional_eps_lower`, Ding et al. 2018): exact at any count, one α
instead of two α/2 — the stronger bound when the event (almost) never occurs on the other side.  With
δ > 0 (where the conditional test is not a test of (ε, δ)-DP) the event is scored by the two
Clopper–Pearson limits like every other test.

**Bonferroni.**  The pooled tests are two more of the K distinct tests the auditor fixes on the
selection split; each is scored at α/K on the evaluation split, whatever its bound (a Clopper–Pearson
pair at α/(2K) each, or one conditional test at α/K), so the union of all K tests has error ≤ α.
When no feature repeats in the selection split no pooled test is added (K unchanged).

Examples
--------
>>> rng = np.random.default_rng(0)
>>> x0 = np.where(rng.random(20_000) < 0.01, 0.0, rng.laplace(0, 1, 20_000))   # 0 released exactly 1 % of the time
>>> x1 = 1 + rng.laplace(0, 1, 20_000)
>>> a = Atoms.fit(x0, x1)
>>> a.n_atoms >= 1, bool(a.toward_d(np.array([0.0, 0.5]))[0] > 3)
(True, True)
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass

import numpy as np
from scipy import special

#: an output vector with more coordinates than this gets row atoms only (per-coordinate atoms cost d lookups)
MAX_COORDINATES = 64
#: a feature is an atom when it occurs at least twice in the pooled selection split


def _float_keys(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, dtype=float).reshape(-1) + 0.0          # −0.0 and 0.0 are one value


def _row_keys(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(np.asarray(x, dtype=float) + 0.0)
    return x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()


def features(x: np.ndarray, groups: list[int] | None = None) -> list[tuple[str, np.ndarray]]:
    """The features of outputs ``x`` as (view name, one key per output) pairs.

    Scalars: the value.  Vectors: the whole row and each coordinate (up to :data:`MAX_COORDINATES`);
    for (index, value) pairs (``groups`` = the index columns) the row and the value within its group
    are the same as the row, so only the row and the bare value column are kept.

    Examples
    --------
    >>> [name for name, _ in features(np.zeros((3, 2)))]
    ['output vector', 'coordinate 0', 'coordinate 1']
    """
    x = np.asarray(x)
    if x.ndim == 1:
        return [("value", _float_keys(x))]
    out: list[tuple[str, np.ndarray]] = [("output vector", _row_keys(x))]
    if x.shape[1] <= MAX_COORDINATES:
        for j in range(x.shape[1]):
            if groups is not None and j in groups:
                continue
            out.append((f"coordinate {j}", _float_keys(x[:, j])))
    return out


def _view_keys(x: np.ndarray, name: str) -> np.ndarray:
    """The keys of one view of :func:`features` by its name."""
    if name == "value":
        return _float_keys(x)
    if name == "output vector":
        return _row_keys(x)
    return _float_keys(np.asarray(x)[:, int(name.rsplit(" ", 1)[1])])


@dataclass
class _View:
    name: str
    keys: np.ndarray           # sorted atom keys
    llr: np.ndarray            # λ per atom


class Atoms:
    """The atoms of a selection split and the two pooled scores (see the module docstring)."""

    def __init__(self, views: list[_View], groups: list[int] | None) -> None:
        self.views = views
        self.groups = groups

    @classmethod
    def fit(cls, sel0: np.ndarray, sel1: np.ndarray, groups: list[int] | None = None) -> Atoms:
        """Atoms of the selection outputs ``sel0`` (on D) and ``sel1`` (on D′)."""
        sel0, sel1 = np.asarray(sel0), np.asarray(sel1)
        if sel0.ndim not in (1, 2) or sel0.shape[1:] != sel1.shape[1:]:
            raise ValueError(f"parameters 'sel0', 'sel1': shapes {sel0.shape} and {sel1.shape} must be (n0,) and "
                             "(n1,), or (n0, k) and (n1, k) (the same output shape on both data sets)")
        if sel0.dtype.kind not in "iuf" or sel1.dtype.kind not in "iuf":
            raise ValueError(f"parameters 'sel0', 'sel1': dtypes {sel0.dtype}, {sel1.dtype} must be real numbers")
        S0, S1 = sel0.shape[0], sel1.shape[0]
        views = []
        for (name, k0), (_, k1) in zip(features(sel0, groups), features(sel1, groups), strict=True):
            both = np.sort(np.concatenate([k0, k1]))
            same = both[1:] == both[:-1]             # MIN_REPEATS = 2: a value equal to its sorted neighbour
            if not same.any():
                continue                             # continuous outputs: one sort, no atom
            u = np.unique(both[1:][same])
            s0, s1 = np.sort(k0), np.sort(k1)
            c0 = np.searchsorted(s0, u, side="right") - np.searchsorted(s0, u, side="left")
            c1 = np.searchsorted(s1, u, side="right") - np.searchsorted(s1, u, side="left")
            llr = np.log((c1 + 0.5) / (S1 + 0.5)) - np.log((c0 + 0.5) / (S0 + 0.5))
            views.append(_View(name, u, llr))
        return cls(views, groups)

    @property
    def n_atoms(self) -> int:
        """Number of atoms (repeated features) found in the selection split."""
        return int(sum(v.keys.size for v in self.views))

    def _llr(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        n = np.asarray(x).shape[0]
        hi, lo = np.zeros(n), np.zeros(n)
        if not self.views:
            return hi, lo
        for v in self.views:
            k = _view_keys(x, v.name)              # only the views that have atoms (memory: no copy of the rest)
            i = np.clip(np.searchsorted(v.keys, k), 0, v.keys.size - 1)
            lam = np.where(v.keys[i] == k, v.llr[i], 0.0)
            np.maximum(hi, lam, out=hi)
            np.minimum(lo, lam, out=lo)
        return hi, lo

    def toward_dprime(self, x: np.ndarray) -> np.ndarray:
        """u(x) = max(0, largest λ among the atoms of x): large for outputs of atoms seen mostly on D′."""
        return self._llr(x)[0]

    def toward_d(self, x: np.ndarray) -> np.ndarray:
        """w(x) = max(0, −smallest λ among the atoms of x): large for outputs of atoms seen mostly on D."""
        return -self._llr(x)[1]

    def describe(self) -> str:
        """Where the atoms are, in words."""
        if not self.views:
            return "no repeated value"
        return "; ".join(f"{v.keys.size} repeated value{'s' if v.keys.size > 1 else ''} of the {v.name}"
                         for v in self.views)


def repeat_prob(s: int, chance: float = 0.5) -> float:
    """Smallest p such that a point mass of probability p occurs at least twice among s selection outputs
    with probability ≥ ``chance`` (Poisson approximation: 1 − e^{−sp}(1 + sp) ≥ chance).

    Examples
    --------
    >>> round(repeat_prob(10_000) * 10_000, 2)
    1.68
    """
    if isinstance(s, bool) or not isinstance(s, numbers.Integral) or int(s) < 0:
        raise ValueError(f"parameter 's' = {s!r} must be an integer ≥ 0 (selection outputs)")
    if isinstance(chance, bool) or not isinstance(chance, numbers.Real) or not 0 < float(chance) < 1:
        raise ValueError(f"parameter 'chance' = {chance!r} must lie in (0, 1)")
    lam_lo, lam_hi = 0.0, 50.0
    for _ in range(60):
        mid = 0.5 * (lam_lo + lam_hi)
        if 1 - math.exp(-mid) * (1 + mid) >= chance:
            lam_hi = mid
        else:
            lam_lo = mid
    return min(1.0, lam_hi / max(1, s))


#: the power at which the meaning line states the smallest detectable probability of a family
POWER = 0.9


def _binom_sf(k: int, n: int, p: float) -> float:
    """P[Bin(n, p) > k] by ``scipy.special.bdtrc`` (``scipy.stats`` is not imported by an audit: start-up cost)."""
    if k < 0:
        return 1.0
    if k >= n:
        return 0.0
    return float(special.bdtrc(int(k), int(n), p))


def power_min_prob(need: int, n: int, power: float = POWER, keep: float = 1.0, repeat_in: int | None = None
                   ) -> float:
    """Smallest p such that P[Bin(n, keep·p) ≥ need] · P[Bin(repeat_in, p) ≥ 2] ≥ ``power``.

    An event of probability p on one data set and 0 on the other is detected when its count among the n
    evaluation releases (each occurrence kept with probability ``keep``: the conditional test's thinning
    e^{−claim}) reaches ``need``; a point mass must also repeat in the ``repeat_in`` selection outputs of
    that data set (omit for other families).  Exact binomial laws, bisection in log p; ``inf`` when no
    p ≤ 1 reaches the power.

    Examples
    --------
    >>> p = power_min_prob(1, 10_000)                 # one hit among 10^4 with probability 0.9
    >>> round(p * 10_000, 2)                          # ≈ −ln(0.1)
    2.3
    """
    def pw(p: float) -> float:
        out = _binom_sf(need - 1, n, keep * p)
        return out * _binom_sf(1, repeat_in, p) if repeat_in is not None else out

    if need > n or pw(1.0) < power:
        return math.inf
    lo, hi = -40.0, 0.0                  # log p: pw(e^lo) < power ≤ pw(e^hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (lo, mid) if pw(math.exp(mid)) >= power else (mid, hi)
    return float(math.exp(hi))


def conditional_need(ne_hit: int, ne_zero: int, alpha: float) -> int | None:
    """The smallest kept count k with which the conditional test (k vs 0) rejects at ``alpha`` (None if none)."""
    from .pooled import fisher_greater

    if fisher_greater(ne_hit, ne_hit, 0, ne_zero) > alpha:
        return None
    lo, hi = 0, ne_hit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if mid >= 1 and fisher_greater(mid, ne_hit, 0, ne_zero) <= alpha else (mid, hi)
    return hi


def conditional_min_prob(ne_hit: int, ne_zero: int, claim: float, alpha: float) -> float:
    """Smallest p such that an event of probability p on one data set and 0 on the other is detected by
    the conditional test at level ``alpha`` with counts at their expectations (c = p·ne_hit occurrences,
    c·e^{−claim} of them kept by the thinning, none on the other side); ``inf`` when none up to p = 1.

    Examples
    --------
    >>> p = conditional_min_prob(90_000, 90_000, 1.0, 0.05 / 4)
    >>> 5e-5 < p < 3e-4
    True
    """
    from .pooled import fisher_greater

    def ok(c: int) -> bool:
        k = int(math.floor(c * math.exp(-claim)))
        return k >= 1 and fisher_greater(k, ne_hit, 0, ne_zero) <= alpha

    if not ok(ne_hit):
        return math.inf
    lo, hi = 0, ne_hit
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (lo, mid) if ok(mid) else (mid, hi)
    return hi / ne_hit


# ---------------------------------------------------------------------------
# the tests as events (moved from verify.audit.core; re-exported there)
# ---------------------------------------------------------------------------

@dataclass(frozen=True)
class Event:
    """A test fixed on the selection split: say D′ when T > τ (direction +1) or T < τ (direction −1).

    ``kind`` is ``threshold`` (τ chosen by projected rates) or ``rare`` (τ at the edge of the range
    one data set produced in the selection split, ``note`` says which).
    """

    tau: float
    direction: int
    kind: str = "threshold"
    projected: float = math.nan
    note: str = ""
    group: int | None = None          # only inside this group of the outputs (pairs (index, value))
    group_label: str = ""
    stat: int = 0                     # which statistic of the test (0: the main one; others: _Test.extra)
    #: +1: the set where the test says D′ is a rare set (seen on one side only in the selection split);
    #: −1: its complement is; 0: neither (scored by Clopper–Pearson limits only)
    rare_set: int = 0
    family: str = "half-lines"        # the event family, as named in ``AuditResult.meaning``
    #: kind ``tails`` only: the other tail, which says D (T < tau_d for direction +1, T > tau_d for −1);
    #: between the two tails the test abstains (scored by :func:`verify.audit.pooled.tails_eps_lower`)
    tau_d: float = math.nan
    #: kind ``rare pair`` only: the tests (indices among the auditor's tests) whose rare sets it pools: the union of
    #: the rare sets favouring D′ (``parts1``, says D′) and of those favouring D (``parts0``, says D); an output in
    #: both abstains.  ``conditional``: scored by :func:`verify.audit.pooled.pair_conditional_eps_lower` (δ = 0,
    #: few projected guesses), else by :func:`verify.audit.pooled.tails_eps_lower`
    parts1: tuple[int, ...] = ()
    parts0: tuple[int, ...] = ()
    conditional: bool = False
    #: kind ``threshold`` at δ = 0 only: scored by StatDP's conditional test (:func:`verify.audit.pooled.
    #: conditional_eps_lower`) of the set where it says D′, favouring D′ (+1), or of its complement, favouring D
    #: (−1), instead of the two Clopper–Pearson limits (0); fixed on the selection split (``core._conditional_side``)
    cond_side: int = 0

    def says_dprime(self, t: np.ndarray, g: np.ndarray | None = None) -> np.ndarray:
        """Booleans: the test says D′ at statistic values t (group ids g of the outputs)."""
        out = t > self.tau if self.direction == 1 else t < self.tau
        return out if self.group is None or g is None else out & (g == self.group)

    def says_d(self, t: np.ndarray) -> np.ndarray:
        """Booleans: a two-tail test (kind ``tails``) says D at statistic values t (its other tail)."""
        if self.kind != "tails":
            return np.zeros(np.shape(t), dtype=bool)
        return t < self.tau_d if self.direction == 1 else t > self.tau_d

    def describe(self, stat: str = "T") -> str:
        """The event in words."""
        if self.kind == "rare pair":
            return ("say D′ in the union of the rare sets favouring D′ (tests " + ", ".join(str(i + 1) for i in self.parts1)
                    + "), say D in the union of those favouring D (tests " + ", ".join(str(i + 1) for i in self.parts0)
                    + "), abstain elsewhere (both sides pooled into one count of right and one of wrong guesses)")
        if self.kind == "tails":
            up, lo = (">", "<") if self.direction == 1 else ("<", ">")
            return (f"say D′ when {stat} {up} {self.tau:.6g}, say D when {stat} {lo} {self.tau_d:.6g}, abstain "
                    f"between (both tails pooled into one count of right and one of wrong guesses)")
        if self.kind == "pooled":
            return f"say D′ when the output is {'in' if self.direction == 1 else 'outside'} the {self.note}"
        text = f"say D′ when {stat} {'>' if self.direction == 1 else '<'} {self.tau:.6g}"
        if self.group is not None:
            text += f" and {self.group_label}"
        note = "; ".join(x for x in (self.note, "scored by StatDP's conditional test of the "
                                     + ("event" if self.cond_side == 1 else "complement") if self.cond_side else "") if x)
        return f"{text} ({note})" if note else text


def rare_events(t0: np.ndarray, t1: np.ndarray) -> list[Event]:
    """The rare-event tests of a selection split's statistics t0 (on D) and t1 (on D′).

    For each data set, the edge of its range (top or bottom) beyond which the *other* data set put
    more selection outputs: "T beyond the range seen on D" (says D′) and "T beyond the range seen on
    D′" (says D), each kept when that count is at least 1.  They catch events that never happen on
    one data set (clamped noise, a value only one data set can produce) even when far too rare for a
    threshold chosen by projected rates.

    Examples
    --------
    >>> t0 = np.clip(np.random.default_rng(0).laplace(0, 1, 10_000), -8, 8)       # noise clamped at ±8
    >>> t1 = 1 + np.clip(np.random.default_rng(1).laplace(0, 1, 10_000), -8, 8)
    >>> [e.describe() for e in rare_events(t0, t1)]      # doctest: +NORMALIZE_WHITESPACE
    ['say D′ when T > 8 (above every output on D in the selection split: rare event)',
     'say D′ when T > -7 (below every output on D′ in the selection split says D: rare event)']
    """
    out = []
    lo0, hi0, lo1, hi1 = float(t0.min()), float(t0.max()), float(t1.min()), float(t1.max())
    up, down = int(np.sum(t1 > hi0)), int(np.sum(t1 < lo0))
    if max(up, down) >= 1:
        out.append(Event(hi0, 1, "rare", rare_set=1, note="above every output on D in the selection split: rare event")
                   if up >= down else
                   Event(lo0, -1, "rare", rare_set=1, note="below every output on D in the selection split: rare event"))
    up, down = int(np.sum(t0 > hi1)), int(np.sum(t0 < lo1))
    if max(up, down) >= 1:       # say D beyond D′'s range: say D′ when T ≤ hi1 (T ≥ lo1)
        out.append(Event(float(np.nextafter(hi1, np.inf)), -1, "rare", rare_set=-1,
                         note="above every output on D′ in the selection split says D: rare event")
                   if up > down else
                   Event(float(np.nextafter(lo1, -np.inf)), 1, "rare", rare_set=-1,
                         note="below every output on D′ in the selection split says D: rare event"))
    return out
