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

#: severities of a failed symbolic check
SEVERITIES = ("", "invalid", "mismatch", "gap", "typo")


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

    # -- convenience -------------------------------------------------------
    @property
    def ok(self) -> bool:
        """True when the verdict is ``holds``."""
        return self.verdict == "holds"

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
        """statistic / bound where both are finite and the bound is non-zero, else ``nan``."""
        s, b = self.statistic, self.bound
        if not (math.isfinite(s) and math.isfinite(b)) or b == 0:
            return math.nan
        return s / b

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
        }


def Check(name: str, ok: bool, method: str, detail: str = "", n_points: int = 0,
          worst: dict[str, Any] | None = None, severity: str = "", slack: float | None = None,
          key: str = "") -> Result:
    """A symbolic derivation check as a :class:`Result` (``evidence="symbolic"``).

    Parameters
    ----------
    name : str
        What was checked.
    ok : bool
        Whether it passed (verdict ``holds``) or failed (``violated``).
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
    return Result(key=key, evidence="symbolic", kind=method, name=name, verdict="holds" if ok else "violated",
                  detail=detail, n=int(n_points), worst=dict(worst or {}), severity=severity, slack=slack,
                  confidence=1.0)


__all__ = ["EVIDENCE", "KINDS", "SEVERITIES", "STATUSES", "VERDICTS", "Check", "Result"]
