"""One verdict per statement from all its evidence, with its root cause and its regime.

A statement collects evidence of three sorts, all :class:`~bounds.evidence.Result`
rows: its derivation checks (:meth:`bounds.core.Registry.evaluate`), the
empirical checks that simulate it and the privacy audits of its mechanism.
:func:`combine` turns them into one :class:`Verdict`, by this precedence
(the first rule that applies decides):

1. ``refuted``: a concrete counterexample inside the paper's regime: an exact
   witness (a symbolic check of kind ``exact`` that fails), an empirical check
   violated at its stated confidence, or an audit whose ε lower bound exceeds
   the claim; whatever the derivation says.
2. ``unsupported``: a premise of its proof fails and no valid replacement is
   established (a failed check of severity ``gap``, among them a failing
   *hypothesis* of an outside result (``Statement.hypotheses``); a failing
   statement with no derived form; a dependency that is itself unsupported, or
   refuted with no valid correction, unless the statement has an error of its
   own): neither refuted nor proved.
3. ``erratum``: does not follow as stated (severity ``invalid`` or ``mismatch``
   inside the regime); the corrected (derived) form exists and its own checks
   are part of the evidence.
4. ``typo``: every failure is a printed formula that cannot be meant (severity
   ``typo``); the intended form is consistent.
5. ``regime``: every failure lies outside the paper's regime; the verdict reads
   *holds in the paper's regime* and names where it fails.
6. No failure: ``premise``, ``order``, ``cited`` by the derivation status;
   otherwise ``tight`` when a search attains the bound, ``consistent`` when a
   derivation check passes, ``supported`` when no derivation is encoded but
   empirical or audit evidence exists and holds, ``unchecked`` when nothing
   checks it.

**Root cause.**  A statement that is not consistent names its root: its own
key when the failure is its own slip, else the roots of the dependencies it
inherits from (the stated expression follows from the paper's *stated*
dependencies that are themselves wrong, or it rests on an unsupported one);
a statement with its own error that also rests on an unsupported premise names
both ("own slip; also rests on KEY").

**Corrections.**  A derived form is shown as a correction (``Verdict.corrected``)
only for ``erratum``, ``typo`` and ``refuted``, when no premise gap remains and
no violated empirical or audit row tests the derived form itself
(``details["which"]`` or ``details["calibration"]`` equal to ``"derived"``, or
``details["refutes_derived"]``).
A root is *definitional* when the root statement is a definition or an
assumption, *typographic* when its verdict is ``typo``, and otherwise an error
that changes a result.

Examples
--------
>>> from bounds.evidence import Check, Result
>>> from bounds.verdict import combine_results
>>> ok = Check("stated vs derived", True, "symbolic", "stated = derived (sympy)")
>>> combine_results("demo.thm1", "consistent", "theorem", [ok]).verdict
'consistent'
>>> sim = Result(key="demo.thm1", evidence="empirical", kind="sensitivity", name="m=100",
...              verdict="violated", statistic=2.0, lo=2.0, hi=2.0, bound=1.0, confidence=1.0)
>>> combine_results("demo.thm1", "consistent", "theorem", [ok, sim]).verdict
'refuted'
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .evidence import STATEMENT_VERDICTS, VERDICT_TEXT, Result

if TYPE_CHECKING:
    from .core import Evaluation, Registry

#: verdicts that are findings (the statement does not hold as printed)
FINDINGS = ("refuted", "unsupported", "erratum", "typo", "regime")

#: the kinds of a root finding
FINDING_KINDS = ("result", "definitional", "typographic", "regime")


@dataclass
class Verdict:
    """The one verdict on a statement.

    Attributes
    ----------
    key : str
    verdict : str
        One of :data:`bounds.evidence.STATEMENT_VERDICTS`.
    root : tuple of str
        The root statements of a finding: ``(key,)`` for its own slip, the
        dependencies' roots when inherited; empty when there is no finding.
    inherited_from : tuple of str
        The direct dependencies the finding is inherited from (empty for an own slip).
    finding : str
        For a root finding: ``result``, ``definitional``, ``typographic`` or ``regime``
        (fails only outside the paper's regime); else empty.
    regime : str
        Where it fails relative to the paper's regime, or that it holds at every point checked.
    reasons : list of str
        Why this verdict: the deciding evidence, one line each.
    evidence : list of Result
        Every piece of evidence (symbolic, empirical, audit).
    status : str
        The derivation status (:data:`bounds.evidence.STATUSES`).
    corrected : bool
        Whether the report may show the derived form as a correction.
    """

    key: str
    verdict: str
    root: tuple[str, ...] = ()
    inherited_from: tuple[str, ...] = ()
    finding: str = ""
    regime: str = ""
    reasons: list[str] = field(default_factory=list)
    evidence: list[Result] = field(default_factory=list)
    status: str = ""
    corrected: bool = False

    def __post_init__(self) -> None:
        if self.verdict not in STATEMENT_VERDICTS:
            raise ValueError(f"parameter 'verdict' = {self.verdict!r} of statement {self.key} is not one of "
                             f"{', '.join(STATEMENT_VERDICTS)}")

    @property
    def text(self) -> str:
        """How the verdict reads in the report."""
        return VERDICT_TEXT[self.verdict]

    @property
    def is_finding(self) -> bool:
        return self.verdict in FINDINGS

    @property
    def is_root(self) -> bool:
        """Whether this statement is the root of its own finding."""
        return self.is_finding and self.key in self.root

    @property
    def root_text(self) -> str:
        if not self.is_finding:
            return ""
        if self.root == (self.key,):
            return "own slip"
        others = [r for r in self.root if r != self.key]
        return ("own slip; also rests on " if self.is_root else "inherited from ") + ", ".join(others)

    def evidence_counts(self) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {}
        for r in self.evidence:
            d = out.setdefault(r.evidence, {})
            d[r.verdict] = d.get(r.verdict, 0) + 1
        return out

    def as_dict(self, rows: bool = True) -> dict[str, Any]:
        d: dict[str, Any] = {
            "key": self.key, "verdict": self.verdict, "reads": self.text, "root": list(self.root),
            "root_text": self.root_text, "inherited_from": list(self.inherited_from), "finding": self.finding,
            "regime": self.regime, "reasons": list(self.reasons), "status": self.status,
            "corrected": self.corrected, "evidence_counts": self.evidence_counts(),
        }
        if rows:
            d["evidence"] = [r.as_row() for r in self.evidence]
        return d


def _regime_summary(fails: Sequence[Result], checks: Sequence[Result]) -> str:
    numeric = [c for c in checks if "points" in c.details]
    if fails:
        inside = [c for c in fails if c.inside_regime]
        if not inside:
            parts = []
            for c in fails:
                p = c.details.get("points", {})
                parts.append(f"{c.name}: fails at {p.get('failures_outside', '?')} of {p.get('outside', '?')} points "
                             f"outside the regime, 0 of {p.get('inside', '?')} inside"
                             + (f" (worst at {_pt(c.worst)})" if c.worst else ""))
            return "fails only outside the paper's regime: " + "; ".join(parts)
        p = next((c.details["points"] for c in inside if "points" in c.details), None)
        if p is not None:
            sched = (f"; {p['failures_scheduled']} of {p['scheduled']} schedule points" if p.get("scheduled")
                     else "; the paper gives no schedule")
            return f"fails inside the paper's regime ({p['failures_inside']} of {p['inside']} points{sched})"
        return "fails inside the paper's regime"
    if numeric:
        n_in = sum(c.details["points"].get("inside", 0) for c in numeric)
        n_s = sum(c.details["points"].get("scheduled", 0) for c in numeric)
        return f"holds at every point checked ({n_in} inside the regime, {n_s} from its schedules)"
    return "not assessed numerically" if not checks else "decided symbolically"


def _pt(w: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in w.items() if k != "ratio")


def combine_results(
    key: str,
    status: str,
    kind: str,
    evidence: Iterable[Result],
    *,
    derived_exists: bool = True,
    inherits: Sequence[str] = (),
    deps: Mapping[str, Verdict] | None = None,
    dep_keys: Sequence[str] = (),
) -> Verdict:
    """Combine the evidence on one statement into its :class:`Verdict` (see the module docstring).

    Parameters
    ----------
    key, status, kind : str
        The statement key, its derivation status and its kind (``definition``, ``theorem``, ...).
    evidence : iterable of Result
        All its evidence; symbolic checks included.
    derived_exists : bool
        Whether the derivation produced a (corrected) form.
    inherits : sequence of str
        Dependencies from whose *stated* forms the failing stated expression follows.
    deps : mapping
        Verdicts of the dependencies (for inheritance of ``unsupported`` and of roots).
    dep_keys : sequence of str
        The statement's dependencies.
    """
    ev = list(evidence)
    deps = dict(deps or {})
    sym = [r for r in ev if r.evidence == "symbolic"]
    other = [r for r in ev if r.evidence != "symbolic"]
    fails = [c for c in sym if not c.ok]
    fails_in = [c for c in fails if c.inside_regime]
    reasons: list[str] = []

    def root_of(keys: Iterable[str]) -> tuple[str, ...]:
        out: list[str] = []
        for k in keys:
            v = deps.get(k)
            for r in (v.root if v is not None and v.root else (k,)):
                if r not in out:
                    out.append(r)
        return tuple(out)

    # a dependency that is unsupported, or refuted with no valid correction, leaves no premise to rest on
    # (the latter unless the statement has an error of its own, which stays its verdict)
    own_errs = [c for c in fails_in if c.severity not in ("gap", "typo")] and not inherits
    unsup_deps = tuple(k for k in dep_keys if k in deps and (
        deps[k].verdict == "unsupported"
        or (deps[k].verdict == "refuted" and not deps[k].corrected and not own_errs)))
    refuting = [r for r in other if r.verdict == "violated" and r.inside_regime]
    witnesses = [c for c in fails_in if c.kind == "exact" and c.severity in ("invalid", "mismatch")]
    gaps = [c for c in fails_in if c.severity == "gap"]
    typos = [c for c in fails_in if c.severity == "typo"]
    errs = [c for c in fails_in if c.severity not in ("gap", "typo")]
    inherited: tuple[str, ...] = tuple(inherits)
    if fails_in and not inherited:
        # an echo: every failing check repeats a failing check of a dependency (the same witness or the
        # same comparison), so the error is the dependency's, counted once
        for k in dep_keys:
            v = deps.get(k)
            if v is None or not v.is_finding:
                continue
            theirs = {(c.name, c.detail) for c in v.evidence if c.evidence == "symbolic" and not c.ok}
            if theirs and all((c.name, c.detail) in theirs for c in fails_in):
                inherited = (k,)
                reasons.append(f"every failing check repeats one of {k}: the same error, inherited")
                break

    if refuting or witnesses:
        verdict = "refuted"
        for r in witnesses:
            reasons.append(f"exact witness: {r.name}: {r.detail}")
        for r in refuting:
            reasons.append(f"{r.evidence} {r.kind} violated ({r.name}): statistic {r.statistic:.4g} vs bound "
                           f"{r.bound:.4g}" + (f" at {r.confidence:.0%} confidence" if r.confidence < 1 else ""))
        if not fails_in and not inherited:
            # the derivation did not see it: a dependency's finding, when there is one, is the likelier root
            bad_deps = tuple(k for k in dep_keys if k in deps and deps[k].is_finding)
            if bad_deps:
                inherited = bad_deps
                reasons.append("its derivation uses " + ", ".join(bad_deps) + ", whose findings it inherits")
    elif gaps or unsup_deps or (fails_in and not derived_exists and len(typos) < len(fails_in)):
        verdict = "unsupported"
        for c in gaps:
            reasons.append(f"premise fails: {c.name}: {c.detail}")
        if fails_in and not derived_exists:
            reasons.append("no corrected form is derived")
        if unsup_deps and not gaps:
            # its own error stays a root beside the premise it rests on
            own = (key,) if own_errs and not inherited else ()
            inherited = tuple(dict.fromkeys((*own, *inherited, *unsup_deps)))
            reasons.extend(f"own error: {c.name}: {c.detail}" for c in errs if own)
            reasons.append("rests on " + ", ".join(f"{k} ({deps[k].verdict}, no valid correction)"
                                                   if deps[k].verdict == "refuted" else k for k in unsup_deps)
                           + (", which is unsupported" if all(deps[k].verdict == "unsupported" for k in unsup_deps)
                              else ""))
    elif errs:
        verdict = "erratum"
        reasons.extend(f"{c.name}: {c.detail}" for c in errs)
    elif typos:
        verdict = "typo"
        reasons.extend(f"{c.name}: {c.detail}" for c in typos)
    elif fails:
        verdict = "regime"
        reasons.extend(f"{c.name} (outside the regime only): {c.detail}" for c in fails)
    elif status in ("premise", "order", "cited"):
        verdict = status
        if status == "cited":
            hyp = [c for c in sym if c.details.get("hypothesis")]
            reasons.append(f"hypotheses checked: {len(hyp)}" if hyp else "hypotheses of the outside result not "
                           "checked (not expressible here)")
    elif not sym:
        if other and all(r.verdict == "holds" for r in other):
            verdict = "supported"
            reasons.append(f"no derivation encoded; {len(other)} empirical/audit checks hold")
        else:
            verdict = "unchecked"
            if other:
                reasons.append("no derivation encoded; empirical evidence is not conclusive")
    else:
        attained = [r for r in other if r.ok and r.qualifier == "attained"]
        verdict = "tight" if attained else "consistent"
        if attained:
            reasons.append("attained by " + attained[0].name)
    derived_refuted = [r for r in refuting if _tests_derived(r)]
    if derived_refuted:
        reasons.append(f"the derived form is violated too ({derived_refuted[0].evidence} {derived_refuted[0].kind}, "
                       f"{derived_refuted[0].name}): no valid correction is established")
    if verdict != "refuted" and other:
        inconclusive = [r for r in other if r.verdict == "inconclusive"]
        outside = [r for r in other if r.verdict == "violated" and not r.inside_regime]
        if inconclusive:
            reasons.append(f"{len(inconclusive)} empirical/audit checks inconclusive")
        if outside:
            reasons.append(f"{len(outside)} empirical/audit violations outside the paper's regime")

    finding = ""
    root: tuple[str, ...] = ()
    if verdict in FINDINGS:
        root = root_of(inherited) if inherited else (key,)
        if key in root:
            finding = ("regime" if verdict == "regime"
                       else "definitional" if kind in ("definition", "assumption")
                       else "typographic" if verdict == "typo" else "result")
    return Verdict(
        key=key, verdict=verdict, root=root, inherited_from=tuple(k for k in inherited if k != key),
        finding=finding, regime=_regime_summary(fails, sym), reasons=reasons, evidence=ev, status=status,
        corrected=verdict in ("erratum", "typo", "refuted") and derived_exists and not gaps and not derived_refuted,
    )


def _tests_derived(r: Result) -> bool:
    """Whether a piece of evidence tests the *derived* form (its bound, or else its calibration, is the derived one).

    A check may also say ``details["refutes_derived"]``: its violation holds whatever the bound
    (for example a release that fails to exist with probability above δ).

    Examples
    --------
    >>> from bounds.evidence import Result
    >>> _tests_derived(Result(evidence="audit", kind="privacy", name="x", verdict="violated",
    ...                       details={"calibration": "derived"}))
    True
    >>> _tests_derived(Result(evidence="empirical", kind="risk", name="x", verdict="violated",
    ...                       details={"calibration": "derived", "which": "stated"}))
    False
    >>> _tests_derived(Result(evidence="empirical", kind="risk", name="C=2, derived bound", verdict="violated"))
    False
    """
    if r.details.get("refutes_derived"):
        return True
    return r.details.get("which", r.details.get("calibration")) == "derived"


def combine(evaluation: Evaluation, evidence: Iterable[Result] = (), deps: Mapping[str, Verdict] | None = None
            ) -> Verdict:
    """The :class:`Verdict` of an :class:`~bounds.core.Evaluation` with extra (empirical, audit) evidence."""
    st = evaluation.statement
    return combine_results(
        st.key, evaluation.status, st.kind, [*evaluation.checks, *evidence],
        derived_exists=evaluation.derived is not None or st.stated is None,
        inherits=evaluation.inherits, deps=deps, dep_keys=st.depends,
    )


def verdicts(registry: Registry, evidence: Iterable[Result] = (), keys: Sequence[str] | None = None
             ) -> dict[str, Verdict]:
    """Verdicts of ``keys`` (default: every statement), dependencies first.

    ``evidence`` holds the empirical and audit rows (symbolic ones are taken from the
    registry and any passed here are ignored).
    """
    by_key: dict[str, list[Result]] = {}
    for r in evidence:
        if r.evidence != "symbolic":
            by_key.setdefault(r.key, []).append(r)
    out: dict[str, Verdict] = {}

    def visit(k: str) -> Verdict:
        if k in out:
            return out[k]
        ev = registry.evaluate(k)
        deps = {d: visit(d) for d in ev.statement.depends}
        out[k] = combine(ev, by_key.get(k, []), deps)
        return out[k]

    for k in keys if keys is not None else registry.keys():
        visit(k)
    return {k: out[k] for k in (keys if keys is not None else registry.keys())}


def root_table(vs: Mapping[str, Verdict]) -> list[dict[str, Any]]:
    """The distinct root findings, each with its downstream statements, errors first.

    Rows: ``key``, ``verdict``, ``finding``, ``reasons`` and ``downstream`` (statements
    whose verdict is a finding rooted here, excluding the root itself).
    """
    rows = []
    for k, v in vs.items():
        if not v.is_root:
            continue
        down = [o.key for o in vs.values() if o.key != k and o.is_finding and k in o.root]
        rows.append({"key": k, "verdict": v.verdict, "reads": v.text, "finding": v.finding,
                     "reasons": v.reasons, "regime": v.regime, "downstream": down,
                     "evidence": {e: sum(c.values()) for e, c in v.evidence_counts().items()}})
    order = {f: i for i, f in enumerate(FINDING_KINDS)}
    pos = {k: i for i, k in enumerate(vs)}
    rows.sort(key=lambda r: (order.get(r["finding"], 9), pos[r["key"]]))   # by kind, then in paper order
    return rows


__all__ = ["FINDINGS", "FINDING_KINDS", "Verdict", "combine", "combine_results", "root_table", "verdicts"]
