"""The one result type of the toolkit and the vocabulary it is written in.

Every piece of evidence about a statement, whether a derivation check of
:mod:`bounds`, an empirical check of :mod:`verify.empirical` or a privacy
audit, is a :class:`Result`: a keyword-only dataclass with the statement key,
where the evidence comes from (:data:`EVIDENCE`), what sort of check it is
(:data:`KINDS`), one verdict from :data:`VERDICTS`, and the numbers behind
it.  The report, ``summary.json`` and the CSV tables are written from these
rows.  This module owns the vocabulary: statement statuses (:data:`STATUSES`),
evidence sources, kinds and verdicts; nothing else defines them.

It imports nothing of the project, so every layer can use it.

Examples
--------
>>> from bounds.evidence import Result
>>> r = Result(key="demo.thm1", evidence="empirical", kind="sensitivity", name="m=100",
...            verdict="holds", statistic=0.5, bound=1.0, n=200)
>>> r.ratio, r.ok
(0.5, True)
>>> Result(key="demo.thm1", evidence="empirical", kind="sensitivity", name="m=100", verdict="fine")
Traceback (most recent call last):
...
ValueError: parameter 'verdict' = 'fine' of result demo.thm1 (empirical/sensitivity) is not one of holds, violated, inconclusive
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

#: computed status of a statement from its derivation (see :mod:`bounds.core`)
STATUSES = ("consistent", "erratum", "premise", "cited", "order")

#: where a piece of evidence comes from
EVIDENCE = ("symbolic", "empirical", "audit")

#: what sort of check, per evidence source
KINDS: dict[str, tuple[str, ...]] = {
    # how the derivation check decided: sympy, dense evaluation over the domain, a limit, an exact witness
    "symbolic": ("symbolic", "numeric", "limit", "exact"),
    # worst case by adversarial search, mean vs an expectation bound, frequency vs δ, fitted slope
    "empirical": ("sensitivity", "risk", "violation", "rate"),
    # a lower bound on ε from releases on a neighbouring pair
    "audit": ("privacy",),
}

#: the verdict of one piece of evidence
VERDICTS = ("holds", "violated", "inconclusive")

#: severities of a failed symbolic check: an error of the statement (``invalid``, ``mismatch``), a failing
#: premise of its proof (``gap``), a printed formula that cannot be meant (``typo``), a remark on a
#: definition or an assumption (``remark``)
SEVERITIES = ("", "invalid", "mismatch", "gap", "typo", "remark")

#: where a violated piece of evidence lies relative to the paper's regime ("" = not assessed, counted as inside)
REGIMES = ("", "inside", "outside")

#: qualifiers of a piece of evidence that holds
QUALIFIERS = ("", "attained", "faster than claimed", "matches")

#: the one verdict of a statement from all its evidence, in precedence order (see :mod:`bounds.verdict`)
STATEMENT_VERDICTS = (
    "refuted",       # the statement is false: an exact counterexample, an empirical violation, audit ε_lower > claim
    "unsupported",   # a premise of its proof fails, no other route is established: the statement is open
    "erratum",       # the printed form does not follow from its premises (the derived form is reported beside it)
    "typo",          # the printed formula cannot be meant; the intended form is consistent
    "regime",        # fails only outside the regime the paper operates in
    "gap",           # a step of the proof fails, but the statement holds by another route (shown as checks)
    "remark",        # a definition or assumption that is weaker or other than the standard one: not a result
    "tight",         # consistent, and a search attains the bound
    "consistent",    # follows from its premises (possibly as a looser bound)
    "supported",     # no derivation is encoded, but every empirical/audit check holds
    "cited",         # rests on an outside result (its hypotheses checked where expressible)
    "premise",       # a definition or an assumption
    "order",         # only an order is claimed; its rate is checked
    "unchecked",     # nothing checks it
)

#: how each statement verdict reads in the report
VERDICT_TEXT = {
    "refuted": "refuted",
    "unsupported": "unsupported (open)",
    "erratum": "erratum",
    "typo": "typo",
    "regime": "holds in the paper's regime",
    "gap": "holds (proof gap)",
    "remark": "definitional remark",
    "tight": "consistent (tight)",
    "consistent": "consistent",
    "supported": "supported (empirical only)",
    "cited": "cited",
    "premise": "premise",
    "order": "order",
    "unchecked": "unchecked",
}


def _jsonable(v: Any) -> Any:
    if isinstance(v, (bool, int, str)) or v is None:
        return v
    if isinstance(v, dict):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_jsonable(x) for x in v]
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return None   # a missing number is null, never the string "nan"
    return f if math.isfinite(f) else str(f)


@dataclass(kw_only=True)
class Result:
    """One piece of evidence about one statement.

    Parameters
    ----------
    key : str
        The statement key (``jia.thm2``); for a mechanism audit, the key of the
        statement whose privacy claim is audited.  Empty only while a symbolic
        check is being built; the registry fills it in.
    evidence : str
        One of :data:`EVIDENCE`.
    kind : str
        One of ``KINDS[evidence]``.
    name : str
        What was checked, or the variant that was run (``m=200, lam=0.1``).
    verdict : str
        One of :data:`VERDICTS`.
    statistic, lo, hi : float
        The measured value and its interval (``nan`` when not applicable).  For an
        audit: ε_lower, with ``hi`` the attack's ε at the observed rates.
    bound : float
        What the statistic is compared with (a bound's value, a claimed exponent, a claimed ε).
    confidence : float
        Two-sided level of [lo, hi] (1.0 for an exact or deterministic check).
    n : int
        Trials, pairs, releases or domain points behind the statistic.
    method : str
        One line: what was measured and how.
    detail : str
        One or two sentences a researcher can act on.
    severity : str
        For a violated symbolic check: one of :data:`SEVERITIES`.
    slack : float or None
        For a symbolic upper-bound check that holds: the worst ratio stated/derived.
    worst : dict
        The worst point found (numeric and search checks).
    details : dict
        Anything else worth keeping (per-m means for figures, audit parameters).
    regime : str
        One of :data:`REGIMES`: for a violated piece of evidence, whether a failure lies
        inside the paper's regime (``inside``) or only outside it (``outside``); empty
        when not assessed (treated as inside).
    qualifier : str
        One of :data:`QUALIFIERS`, for evidence that holds: ``attained`` (an exact search
        reaches the bound), ``faster than claimed`` (a rate beats the claimed one),
        ``matches`` (a rate agrees with the claimed one).
    """

    key: str = ""
    evidence: str
    kind: str
    name: str
    verdict: str
    statistic: float = math.nan
    lo: float = math.nan
    hi: float = math.nan
    bound: float = math.nan
    confidence: float = math.nan
    n: int = 0
    method: str = ""
    detail: str = ""
    severity: str = ""
    slack: float | None = None
    worst: dict[str, Any] = field(default_factory=dict)
    details: dict[str, Any] = field(default_factory=dict)
    regime: str = ""
    qualifier: str = ""

    def __post_init__(self) -> None:
        where = f"result {self.key or self.name} ({self.evidence}/{self.kind})"
        if self.evidence not in EVIDENCE:
            raise ValueError(f"parameter 'evidence' = {self.evidence!r} of {where} is not one of {', '.join(EVIDENCE)}")
        if self.kind not in KINDS[self.evidence]:
            raise ValueError(f"parameter 'kind' = {self.kind!r} of {where} is not one of "
                             f"{', '.join(KINDS[self.evidence])}")
        if self.verdict not in VERDICTS:
            raise ValueError(f"parameter 'verdict' = {self.verdict!r} of {where} is not one of {', '.join(VERDICTS)}")
        if self.severity not in SEVERITIES:
            raise ValueError(f"parameter 'severity' = {self.severity!r} of {where} is not one of {SEVERITIES}")
        if self.regime not in REGIMES:
            raise ValueError(f"parameter 'regime' = {self.regime!r} of {where} is not one of {REGIMES}")
        if self.qualifier not in QUALIFIERS:
            raise ValueError(f"parameter 'qualifier' = {self.qualifier!r} of {where} is not one of {QUALIFIERS}")

    # -- convenience -------------------------------------------------------
    @property
    def ok(self) -> bool:
        """True when the verdict is ``holds``."""
        return self.verdict == "holds"

    @property
    def failed(self) -> bool:
        """True when the verdict is ``violated`` (an inconclusive result neither holds nor fails)."""
        return self.verdict == "violated"

    @property
    def variant(self) -> str:
        """The variant that was run (an alias of :attr:`name`)."""
        return self.name

    @property
    def n_points(self) -> int:
        """Domain points of a numeric symbolic check (an alias of :attr:`n`)."""
        return self.n

    @property
    def ratio(self) -> float:
        """statistic / bound where both are finite and positive, else ``nan``.

        A ratio of a signed or zero quantity means nothing (a zero-mean statistic, a
        bound of 0, a negative exponent): such rows report the values, not a ratio.
        """
        s, b = self.statistic, self.bound
        if not (math.isfinite(s) and math.isfinite(b)) or s <= 0 or b <= 0:
            return math.nan
        return s / b

    @property
    def inside_regime(self) -> bool:
        """For a violation: whether it counts against the paper's own regime."""
        return self.regime != "outside"

    @property
    def reads(self) -> str:
        """The verdict as the report prints it (``holds (attained)``)."""
        return f"{self.verdict} ({self.qualifier})" if self.qualifier else self.verdict

    def as_row(self) -> dict[str, Any]:
        """A flat, JSON-able dict: one row of the evidence table."""
        d = asdict(self)
        d["ratio"] = self.ratio
        d["worst"] = _jsonable(d["worst"])
        d["details"] = _jsonable(d["details"])
        for k in ("statistic", "lo", "hi", "bound", "confidence", "ratio", "slack"):
            d[k] = _jsonable(d[k])
        return d

    def as_dict(self) -> dict[str, Any]:
        """The symbolic-check view used by ``python -m bounds ... --json`` (name, ok, method, ...)."""
        return {
            "name": self.name,
            "ok": self.ok,
            "method": self.kind,
            "detail": self.detail,
            "n_points": self.n,
            "worst": _jsonable(self.worst),
            "severity": self.severity,
            "slack": _jsonable(self.slack),
            "regime": self.regime,
        }


def Check(name: str, ok: bool | None, method: str, detail: str = "", n_points: int = 0,
          worst: dict[str, Any] | None = None, severity: str = "", slack: float | None = None,
          key: str = "", details: dict[str, Any] | None = None, regime: str = "") -> Result:
    """A symbolic derivation check as a :class:`Result` (``evidence="symbolic"``).

    Parameters
    ----------
    name : str
        What was checked.
    ok : bool or None
        Whether it passed (verdict ``holds``) or failed (``violated``); ``None`` when it could not
        decide (verdict ``inconclusive``: for example a numeric comparison that could evaluate only a
        minority of its points).  An inconclusive check neither fails nor supports the statement.
    method : str
        How it was decided: ``symbolic``, ``numeric``, ``limit`` or ``exact``.
    detail, n_points, worst, severity, slack
        As in :class:`Result` (``n_points`` becomes ``n``).

    Examples
    --------
    >>> c = Check("stated vs derived", False, "symbolic", "stated/derived = 1/2", severity="invalid")
    >>> c.evidence, c.verdict, c.ok
    ('symbolic', 'violated', False)
    """
    verdict = "inconclusive" if ok is None else "holds" if ok else "violated"
    return Result(key=key, evidence="symbolic", kind=method, name=name, verdict=verdict,
                  detail=detail, n=int(n_points), worst=dict(worst or {}), severity=severity, slack=slack,
                  confidence=1.0, details=dict(details or {}), regime=regime)


__all__ = ["EVIDENCE", "KINDS", "QUALIFIERS", "REGIMES", "SEVERITIES", "STATEMENT_VERDICTS", "STATUSES",
           "VERDICTS", "VERDICT_TEXT", "Check", "Result"]
