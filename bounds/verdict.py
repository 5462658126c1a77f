"""One verdict per statement from all its evidence, with its root cause and its regime.

A statement collects evidence of three sorts, all :class:`~bounds.evidence.Result`
rows: its derivation checks (:meth:`bounds.core.Registry.evaluate`), the
empirical checks that simulate it and the privacy audits of its mechanism.
:func:`combine` turns them into one :class:`Verdict`.

**The statement apart from its proof.**  For every statement the verdict records
four separate answers (:class:`Verdict` attributes), and the one verdict follows
from them:

``truth``
    whether the *statement* is false (an exact counterexample to it, or a violation
    inside the paper's regime at the stated confidence), holds by the paper's proof,
    holds by another route (the statement's ``routes``: checks such as an identity or a
    sharper lemma, all passing), or is open (its proof fails and no route is established).
``proof``
    whether the paper's proof goes through, or which step (premise) fails.
``constant``
    whether the printed form (constant, exponent, scale) follows from its premises.
``correction``
    whether a corrected (derived) form is established: only when every piece of evidence
    that applies to it passes (see *Corrections*).

**The rules** (the first that applies decides):

1. ``refuted``: the statement is false: an exact witness against *this* statement (a
   symbolic check of kind ``exact`` and severity ``invalid``/``mismatch`` that fails
   inside the regime), or an empirical or audit row violated inside the paper's regime at
   its confidence.  A row that tests a budget the toolkit derived
   (``details["budget"] == "toolkit"``: a per-step or intermediate ε, not the paper's claimed
   guarantee) never refutes by itself; it is reported as the toolkit's.
2. ``remark``: a definition or an assumption whose failing checks are remarks or premise
   failures: a definition is weaker or other than the standard one; it is no result, and
   no descendant inherits it.
3. ``gap``: a premise of the proof fails (a check of severity ``gap``, or a dependency that
   is unsupported, or refuted with no valid correction) but every ``route`` check holds:
   *proof gap, statement holds*, with the route named.
4. ``unsupported``: the same failing premise with no established route (or a failing
   printed form with no derived one): the statement is open.
5. ``erratum``: the printed form does not follow (severity ``invalid`` or ``mismatch``
   inside the regime); the derived form is reported beside it.
6. ``typo``: every failure is a printed formula that cannot be meant (severity ``typo``).
7. ``regime``: every failure lies outside the paper's regime (:data:`bounds.symbols.CONVENTION`
   holds the one convention shared by every paper: δ ∈ (0, 0.1]).
8. No failure: ``premise``, ``order``, ``cited`` by the derivation status; otherwise ``tight``
   when a search attains the bound, ``consistent`` when a derivation check holds,
   ``supported`` when no derivation is encoded but empirical or audit evidence exists and
   holds, ``unchecked`` when nothing decides it (a check that could evaluate only a minority
   of its points is *inconclusive*, never *holds*).

**Propagation only where it matters.**  A dependency spreads ``unsupported`` only when it is
itself unsupported, or refuted with no valid correction, and the statement has no error of
its own and no established route.  A dependency whose verdict is ``remark``, ``typo``,
``regime`` or ``gap`` spreads nothing: its failure cannot change the descendant's conclusion.

**One root per underlying error.**  A failing check or a violated row may name the
underlying error it embodies (``details["error"]``, a short slug).  Within one paper the
first statement carrying a slug (dependencies first, then paper order) is its root; a
statement whose every failing piece of evidence carries slugs owned by other statements,
or repeats a dependency's failing check, is an *echo*: its finding is inherited and counted
once, under the root.  The same slug in another paper is that paper's own root, cross
referenced (``same_error_as``).  A statement with its own error that also rests on an
unsupported premise names both (*own slip; also rests on KEY*).

**Corrections.**  A derived form is shown as a correction (``Verdict.corrected``) only for
``erratum``, ``typo`` and ``refuted``, when no premise gap remains and no evidence refutes the
derived form itself: an empirical or audit row violated with ``details["which"]`` (else
``details["calibration"]``) equal to ``"derived"``, or any failing row with
``details["refutes_derived"]`` (a witness that no form of the statement survives).  Otherwise
:attr:`Verdict.correction` says that no valid correction is established, and why.

**Readings.**  A statement whose printed text is ambiguous, lost or reconstructed declares
``readings`` (name → text; the first is the encoded one).  Evidence tagged
``details["reading"]`` applies under that reading only; the verdict is computed under each
reading, the first decides, and when they differ :attr:`Verdict.readings` gives each outcome
and the reasons say so.

A root is *definitional* when its verdict is ``remark`` (or the root statement is a
definition or an assumption), *typographic* when ``typo``, *regime* when ``regime``, a *gap*
when ``gap``, *open* when ``unsupported`` with no error of its own (the proof fails, the
statement is neither refuted nor proved), and otherwise an error that changes a result.

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
>>> gap = Check("hypothesis: f bounded", False, "exact", "a 3-point instance exceeds M", severity="gap")
>>> route = Check("route: E[sample error] = 0", True, "symbolic", "f does not depend on the sample",
...               details={"route": True})
>>> v = combine_results("demo.thm2", "consistent", "theorem", [ok, gap, route])
>>> v.verdict, v.truth
('gap', 'holds by another route')
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .evidence import STATEMENT_VERDICTS, VERDICT_TEXT, Result

if TYPE_CHECKING:
    from .core import Evaluation, Registry

#: verdicts that are findings (the statement, or its proof, does not hold as printed)
FINDINGS = ("refuted", "unsupported", "erratum", "typo", "regime", "gap", "remark")

#: the kinds of a root finding
FINDING_KINDS = ("result", "open", "gap", "definitional", "typographic", "regime")

#: verdicts that never spread to a descendant: the failure cannot change its conclusion
HARMLESS = ("remark", "typo", "regime", "gap")

#: what each verdict says of the statement itself (``Verdict.truth``)
TRUTH = {
    "refuted": "false",
    "unsupported": "open",
    "erratum": "not established as printed",
    "typo": "holds as intended",
    "regime": "holds in the paper's regime",
    "gap": "holds by another route",
    "remark": "a definition (no truth value)",
    "tight": "holds by the paper's proof",
    "consistent": "holds by the paper's proof",
    "supported": "supported by simulation only",
    "cited": "rests on an outside result",
    "premise": "a premise",
    "order": "an order claim",
    "unchecked": "open (nothing decides it)",
}


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
        dependencies' (or the echoed statements') roots when inherited; empty when there is
        no finding.
    inherited_from : tuple of str
        The statements the finding is inherited from (empty for an own slip).
    finding : str
        For a root finding: one of :data:`FINDING_KINDS`; else empty.
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
    truth, proof, constant, correction : str
        The statement itself (:data:`TRUTH`), its proof (``goes through``, or the failing step),
        the printed form (``follows``, ``does not follow``, or empty when nothing compares it), and
        the correction (``established``, ``none: why``, or empty when none is needed).
    errors : tuple of str
        The underlying-error slugs of its failing evidence (``details["error"]``).
    same_error_as : tuple of str
        Statements of other papers that are the root of the same underlying error.
    readings : dict
        Reading name → the verdict under it, when the statement declares readings and the verdict
        changes with the reading (else empty).
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
    truth: str = ""
    proof: str = ""
    constant: str = ""
    correction: str = ""
    errors: tuple[str, ...] = ()
    same_error_as: tuple[str, ...] = ()
    readings: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.verdict not in STATEMENT_VERDICTS:
            raise ValueError(f"parameter 'verdict' = {self.verdict!r} of statement {self.key} is not one of "
                             f"{', '.join(STATEMENT_VERDICTS)}")
        if not self.truth:
            self.truth = TRUTH[self.verdict]

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
    def reading_dependent(self) -> bool:
        """Whether the verdict changes with the reading of an ambiguous or reconstructed text."""
        return len(set(self.readings.values())) > 1

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
            "corrected": self.corrected, "truth": self.truth, "proof": self.proof, "constant": self.constant,
            "correction": self.correction, "errors": list(self.errors), "same_error_as": list(self.same_error_as),
            "readings": dict(self.readings), "evidence_counts": self.evidence_counts(),
        }
        if rows:
            d["evidence"] = [r.as_row() for r in self.evidence]
        return d


def _verb(c: Result) -> str:
    """A comparison with what the proof yields says the printed form *does not follow* there; it is no failure
    of the statement (the proof's bound may be only sufficient).  Any other check *fails*."""
    return "does not follow" if c.name.startswith("stated vs derived") else "fails"


def _regime_summary(fails: Sequence[Result], checks: Sequence[Result]) -> str:
    numeric = [c for c in checks if "points" in c.details and c.verdict != "inconclusive"]
    if fails:
        inside = [c for c in fails if c.inside_regime]
        if not inside:
            parts = []
            for c in fails:
                p = c.details.get("points")
                if p:
                    parts.append(f"{c.name}: {_verb(c)} at {p['failures_outside']} of {p['outside']} points outside "
                                 f"the regime, 0 of {p['inside']} inside"
                                 + (f" (worst at {_pt(c.worst)})" if c.worst else ""))
                else:
                    parts.append(f"{c.name}" + (f" (at {_pt(c.worst)})" if c.worst else ""))
            return "holds in the paper's regime; outside it: " + "; ".join(parts)
        c = next((c for c in inside if "points" in c.details), None)
        if c is not None:
            p = c.details["points"]
            sched = (f"; {p['failures_scheduled']} of {p['scheduled']} schedule points" if p.get("scheduled")
                     else "; the paper gives no schedule")
            return f"{_verb(c)} inside the paper's regime (at {p['failures_inside']} of {p['inside']} points{sched})"
        return f"{_verb(inside[0])} inside the paper's regime"
    if numeric:
        n_in = sum(c.details["points"].get("inside", 0) for c in numeric)
        n_s = sum(c.details["points"].get("scheduled", 0) for c in numeric)
        return f"holds at every point checked ({n_in} inside the regime, {n_s} from its schedules)"
    return "not assessed numerically" if not checks else "decided symbolically"


def _pt(w: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in w.items() if k != "ratio")


def _slugs(rows: Iterable[Result]) -> list[str]:
    out: list[str] = []
    for r in rows:
        e = r.details.get("error")
        if e and e not in out:
            out.append(str(e))
    return out


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
    readings: Sequence[str] = (),
    slug_roots: Mapping[str, str] | None = None,
    elsewhere: Mapping[str, Sequence[str]] | None = None,
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
    readings : sequence of str
        The statement's reading names (the first is the encoded one).
    slug_roots : mapping
        Underlying-error slug → the statement of this paper that is its root.
    elsewhere : mapping
        Underlying-error slug → the root statements of the same slug in other papers.

    Examples
    --------
    >>> from bounds.evidence import Check
    >>> w = Check("privacy of a function release", False, "exact", "disjoint supports", severity="invalid",
    ...           details={"error": "function-release"})
    >>> combine_results("demo.prop1", "erratum", "noise", [w], slug_roots={"function-release": "demo.lemma1"}).root
    ('demo.lemma1',)
    """
    ev = list(evidence)
    if readings:
        per = {r: _combine(key, status, kind, [e for e in ev if e.details.get("reading") in (None, r)],
                           derived_exists, inherits, deps, dep_keys, slug_roots, elsewhere)
               for r in readings}
        first = per[readings[0]]
        first.evidence = ev
        tagged = {e.details.get("reading") for e in ev} - {None}
        if tagged:
            first.readings = {r: v.verdict for r, v in per.items()}
            if first.reading_dependent:
                first.reasons.append("the verdict depends on the reading: " + "; ".join(
                    f"{r} → {VERDICT_TEXT[v.verdict]}" for r, v in per.items()))
        return first
    return _combine(key, status, kind, ev, derived_exists, inherits, deps, dep_keys, slug_roots, elsewhere)


def _combine(key: str, status: str, kind: str, ev: list[Result], derived_exists: bool, inherits: Sequence[str],
             deps: Mapping[str, Verdict] | None, dep_keys: Sequence[str], slug_roots: Mapping[str, str] | None,
             elsewhere: Mapping[str, Sequence[str]] | None) -> Verdict:
    deps = dict(deps or {})
    slug_roots = dict(slug_roots or {})
    routes = [r for r in ev if r.evidence == "symbolic" and r.details.get("route")]
    sym = [r for r in ev if r.evidence == "symbolic" and not r.details.get("route")]
    other = [r for r in ev if r.evidence != "symbolic"]
    fails = [c for c in sym if c.failed]
    fails_in = [c for c in fails if c.inside_regime]
    reasons: list[str] = []
    route_ok = bool(routes) and all(r.ok for r in routes)

    def root_of(keys: Iterable[str]) -> tuple[str, ...]:
        out: list[str] = []
        for k in keys:
            v = deps.get(k)
            for r in (v.root if v is not None and v.root else (k,)):
                if r not in out:
                    out.append(r)
        return tuple(out)

    definitional = kind in ("definition", "assumption")
    witnesses = [c for c in fails_in if c.kind == "exact" and c.severity in ("invalid", "mismatch")]
    gaps = [c for c in fails_in if c.severity == "gap"]
    typos = [c for c in fails_in if c.severity == "typo"]
    remarks = [c for c in fails_in if c.severity == "remark"]
    errs = [c for c in fails_in if c.severity not in ("gap", "typo", "remark")]
    violated = [r for r in other if r.failed and r.inside_regime]
    toolkit = [r for r in violated if r.details.get("budget") == "toolkit"]
    refuting = [r for r in violated if r not in toolkit]
    own_errs = bool(errs) and not inherits
    unsup_deps = tuple(k for k in dep_keys if k in deps and (
        deps[k].verdict == "unsupported"
        or (deps[k].verdict == "refuted" and not deps[k].corrected and not own_errs)))
    inherited: tuple[str, ...] = tuple(inherits)

    # an echo: every failing piece of evidence names an underlying error owned by another statement of the
    # paper, or repeats a failing check of a dependency; the error is counted once, at its root
    # (a typo or a remark of its own is no separate root of a result: it is listed, not counted)
    failing = [*(c for c in fails_in if c.severity not in ("typo", "remark")), *refuting]
    if not failing and not fails_in:   # a regime-only finding: its echoes are matched on the outside failures
        failing = [c for c in fails if c.severity not in ("typo", "remark")]
    also: tuple[str, ...] = ()
    if failing and not inherited:
        owners = [slug_roots.get(str(c.details.get("error", "")), "") for c in failing]
        # some of its failing evidence is another statement's error: it also rests on that root
        also = tuple(dict.fromkeys(o for o in owners if o and o != key))
        if all(o and o != key for o in owners):
            inherited = tuple(dict.fromkeys(owners))
            reasons.append("every failing check is the underlying error of " + ", ".join(inherited)
                           + " (" + ", ".join(_slugs(failing)) + "): the same error, counted there")
        elif fails_in and not refuting:
            for k in dep_keys:
                v = deps.get(k)
                if v is None or not v.is_finding:
                    continue
                theirs = {(c.name, c.detail) for c in v.evidence if c.evidence == "symbolic" and c.failed}
                if theirs and all((c.name, c.detail) in theirs for c in fails_in):
                    inherited = (k,)
                    reasons.append(f"every failing check repeats one of {k}: the same error, inherited")
                    break

    derived_refuted = [r for r in ev if r.failed and r.inside_regime and _tests_derived(r)]
    if refuting or witnesses:
        verdict = "refuted"

        def theirs(r: Result) -> bool:   # evidence of another root's error: listed after the statement's own
            o = slug_roots.get(str(r.details.get("error", "")), "")
            return bool(o) and o != key

        for mine in (True, False):
            for r in witnesses:
                if theirs(r) != mine:
                    reasons.append(f"exact counterexample: {r.name}: {r.detail}")
            for r in refuting:
                if theirs(r) != mine:
                    reasons.append(f"{r.evidence} {r.kind} violated ({r.name}): statistic {r.statistic:.4g} vs "
                                   f"bound {r.bound:.4g}"
                                   + (f" at {r.confidence:.0%} confidence" if r.confidence < 1 else ""))
            if mine:
                reasons.extend(f"printed form: {c.name}: {c.detail}" for c in errs
                               if c not in witnesses and not theirs(c))
        if not fails_in and not inherited:
            # the derivation did not see it: a dependency's finding, when there is one, is the likelier root
            bad_deps = tuple(k for k in dep_keys if k in deps and deps[k].is_finding
                             and deps[k].verdict not in HARMLESS)
            if bad_deps:
                inherited = bad_deps
                reasons.append("its derivation uses " + ", ".join(bad_deps) + ", whose findings it inherits")
    elif fails_in and ((definitional and not errs and not typos) or len(remarks) == len(fails_in)):
        verdict = "remark"
        reasons.extend(f"definitional remark: {c.name}: {c.detail}" for c in fails_in)
    elif gaps or unsup_deps or (fails_in and not derived_exists and len(typos) < len(fails_in)):
        verdict = "gap" if route_ok else "unsupported"
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
        if route_ok:
            reasons.append("the statement holds by another route: " + "; ".join(f"{r.name}: {r.detail}"
                                                                               for r in routes))
            if errs:
                verdict = "erratum"    # its error (own or inherited) stands; the gap is harmless
                reasons.extend(f"{c.name}: {c.detail}" for c in errs)
                inherited = tuple(k for k in inherited if k not in unsup_deps and k != key)
        if verdict == "gap" and any(not c.inside_regime for c in fails):
            # the statement holds by its route only inside the regime: that is what it says of the statement
            verdict = "regime"
            reasons.extend(f"{c.name} (outside the regime only): {c.detail}" for c in fails if not c.inside_regime)
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
    elif not [c for c in sym if c.ok]:
        if other and all(r.ok for r in other if r.details.get("budget") != "toolkit") and \
                any(r.ok for r in other):
            verdict = "supported"
            reasons.append(f"no derivation decides it; {sum(r.ok for r in other)} empirical/audit checks hold")
        else:
            verdict = "unchecked"
            if sym:
                reasons.append(f"{len(sym)} derivation checks inconclusive (too few points evaluate)")
            if other:
                reasons.append("no derivation decides it; empirical evidence is not conclusive")
    else:
        attained = [r for r in other if r.ok and r.qualifier == "attained"]
        verdict = "tight" if attained else "consistent"
        if attained:
            reasons.append("attained by " + attained[0].name)
    if verdict not in ("typo", "remark"):
        reasons.extend(f"also a typo: {c.name}: {c.detail}" for c in typos)
        reasons.extend(f"also a remark: {c.name}: {c.detail}" for c in remarks)
    for r in toolkit:
        reasons.append(f"{r.evidence} {r.kind} violated ({r.name}) tests a budget the toolkit derived, not the "
                       "paper's claimed guarantee: reported, not a refutation by itself")
    if derived_refuted and verdict in ("erratum", "typo", "refuted"):
        reasons.append(f"the derived form is violated too ({derived_refuted[0].evidence} {derived_refuted[0].kind}, "
                       f"{derived_refuted[0].name}): no valid correction is established")
    if verdict != "refuted" and other:
        inconclusive = [r for r in other if r.verdict == "inconclusive"]
        outside = [r for r in other if r.failed and not r.inside_regime]
        if inconclusive:
            reasons.append(f"{len(inconclusive)} empirical/audit checks inconclusive")
        if outside:
            reasons.append(f"{len(outside)} empirical/audit violations outside the paper's regime")

    finding = ""
    root: tuple[str, ...] = ()
    if verdict in FINDINGS:
        root = root_of(inherited) if inherited else (key, *(r for r in root_of(also) if r != key))
        if also and not inherited:
            reasons.append("its refuting or failing evidence also includes the underlying error of "
                           + ", ".join(also) + ", counted there")
        if key in root:
            finding = ("regime" if verdict == "regime"
                       else "typographic" if verdict == "typo"
                       else "definitional" if verdict == "remark" or definitional
                       else "gap" if verdict == "gap"
                       else "open" if verdict == "unsupported" and not errs else "result")
    corrected = verdict in ("erratum", "typo", "refuted") and derived_exists and not gaps and not derived_refuted
    correction = ""
    if verdict in ("erratum", "typo", "refuted"):
        if corrected:
            correction = "established: the derived form passes every check that applies to it"
        elif derived_refuted:
            scope = [r.details["scope"] for r in derived_refuted if r.details.get("scope")]
            correction = (f"the derived form is {scope[0]}; as printed it is refuted too ({derived_refuted[0].name})"
                          if scope and len(scope) == len(derived_refuted)
                          else f"none: the derived form is refuted too ({derived_refuted[0].name})")
        elif gaps:
            correction = "none: a premise of the proof fails"
        else:
            correction = "none: no derived form"
    stated_checks = [c for c in sym if c.name.startswith("stated vs derived")]
    constant = ("" if not stated_checks else
                "does not follow" if any(c.failed and c.inside_regime for c in stated_checks) else
                "follows" if all(c.ok or not c.inside_regime for c in stated_checks if c.verdict != "inconclusive")
                and any(c.verdict != "inconclusive" for c in stated_checks) else "undecided")
    # a counterexample is about the statement, not a step of its proof: listed apart
    proof_fail = [*gaps, *(c for c in errs if not c.name.startswith("stated vs derived") and c not in witnesses)]
    proof = ("a step fails: " + "; ".join(c.name for c in proof_fail) if proof_fail
             else "rests on " + ", ".join(unsup_deps) + " (no valid proof)" if unsup_deps
             else "none can be valid: the statement itself is refuted" if verdict == "refuted"
             else "goes through in the paper's regime" if verdict == "regime"
             else "goes through" if sym and verdict not in ("unchecked", "premise", "cited", "order") else "")
    if route_ok and (gaps or unsup_deps):
        proof += "; the statement holds by another route (" + "; ".join(r.name for r in routes) + ")"
    errors = tuple(_slugs([*fails, *violated]))
    # cross-reference only the errors this statement is the root of (not those it echoes)
    same = tuple(dict.fromkeys(k for e in errors if slug_roots.get(e, key) == key
                               for k in (elsewhere or {}).get(e, ()) if k != key))
    if same and key in root:
        reasons.append("the same error as " + ", ".join(same))
    regime = ("" if verdict in ("remark", "premise", "cited", "order", "unchecked")
              else "the printed formula cannot be meant; as intended it holds" if verdict == "typo"
              else "a step of the proof fails; the statement holds by another route" if verdict == "gap"
              else _regime_summary(fails, sym))
    return Verdict(
        key=key, verdict=verdict, root=root, inherited_from=tuple(k for k in inherited if k != key),
        finding=finding, regime=regime, reasons=reasons, evidence=ev, status=status,
        corrected=corrected, proof=proof, constant=constant, correction=correction, errors=errors,
        same_error_as=same if key in root else (),
    )


def _tests_derived(r: Result) -> bool:
    """Whether a piece of evidence tests the *derived* form (its bound, or else its calibration, is the derived one).

    A check may also say ``details["refutes_derived"]``: its violation holds whatever the bound
    (for example a release that fails to exist with probability above δ, or a witness that no
    scalar noise makes a released function private).

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
    if r.evidence == "symbolic":
        return False
    return r.details.get("which", r.details.get("calibration")) == "derived"


def combine(evaluation: Evaluation, evidence: Iterable[Result] = (), deps: Mapping[str, Verdict] | None = None,
            slug_roots: Mapping[str, str] | None = None, elsewhere: Mapping[str, Sequence[str]] | None = None
            ) -> Verdict:
    """The :class:`Verdict` of an :class:`~bounds.core.Evaluation` with extra (empirical, audit) evidence."""
    st = evaluation.statement
    return combine_results(
        st.key, evaluation.status, st.kind, [*evaluation.checks, *evidence],
        derived_exists=evaluation.derived is not None or st.stated is None,
        inherits=evaluation.inherits, deps=deps, dep_keys=st.depends, readings=tuple(st.readings),
        slug_roots=slug_roots, elsewhere=elsewhere,
    )


def verdicts(registry: Registry, evidence: Iterable[Result] = (), keys: Sequence[str] | None = None
             ) -> dict[str, Verdict]:
    """Verdicts of ``keys`` (default: every statement), dependencies first.

    ``evidence`` holds the empirical and audit rows (symbolic ones are taken from the
    registry and any passed here are ignored).  The root of each underlying-error slug
    is the first statement of its paper, in this order, whose failing evidence names it;
    every statement of the papers asked about is evaluated for that, and a cross-reference
    to another paper ("the same error as") is made among those papers only.
    """
    by_key: dict[str, list[Result]] = {}
    for r in evidence:
        if r.evidence != "symbolic":
            by_key.setdefault(r.key, []).append(r)
    wanted = list(keys if keys is not None else registry.keys())
    # slug ownership over every statement of the papers asked about (a root may come later in its paper)
    papers = {registry.get(k).paper for k in registry.closure(wanted)}
    order = registry.closure([k for k in registry.keys() if registry.get(k).paper in papers])
    slug_roots: dict[str, dict[str, str]] = {}
    failed = {k: [c for c in [*registry.evaluate(k).checks, *by_key.get(k, [])]
                  if c.failed and not c.details.get("route")] for k in order}
    # a statement failing inside the regime owns its slug before one failing only outside it
    for inside in (True, False):
        for k in order:
            for e in _slugs(c for c in failed[k] if c.inside_regime or not inside):
                slug_roots.setdefault(registry.get(k).paper, {}).setdefault(e, k)
    elsewhere: dict[str, dict[str, list[str]]] = {}
    for paper, owned in slug_roots.items():
        for e in owned:
            for other, owned2 in slug_roots.items():
                if other != paper and e in owned2:
                    elsewhere.setdefault(paper, {}).setdefault(e, []).append(owned2[e])
    out: dict[str, Verdict] = {}
    for k in registry.closure(wanted):
        st = registry.get(k)
        deps = {d: out[d] for d in st.depends}
        out[k] = combine(registry.evaluate(k), by_key.get(k, []), deps, slug_roots.get(st.paper, {}),
                         elsewhere.get(st.paper, {}))
    return {k: out[k] for k in wanted}


def root_table(vs: Mapping[str, Verdict]) -> list[dict[str, Any]]:
    """The distinct root findings, each with its downstream statements, errors first.

    Rows: ``key``, ``verdict``, ``finding``, ``reasons``, ``correction``, ``same_error_as``,
    ``readings`` and ``downstream`` (statements whose verdict is a finding rooted here,
    excluding the root itself: its echoes and descendants, counted once here).
    """
    rows = []
    for k, v in vs.items():
        if not v.is_root:
            continue
        # echoes and descendants; a statement with its own error that also rests on this root is a root itself
        down = [o.key for o in vs.values() if o.key != k and o.is_finding and k in o.root and not o.is_root]
        rests = [o.key for o in vs.values() if o.key != k and o.is_root and k in o.root]
        rows.append({"key": k, "verdict": v.verdict, "reads": v.text, "finding": v.finding,
                     "reasons": v.reasons, "regime": v.regime, "downstream": down, "rested_on_by": rests,
                     "truth": v.truth,
                     "correction": v.correction, "same_error_as": list(v.same_error_as),
                     "errors": list(v.errors), "readings": dict(v.readings),
                     "evidence": {e: sum(c.values()) for e, c in v.evidence_counts().items()}})
    order = {f: i for i, f in enumerate(FINDING_KINDS)}
    pos = {k: i for i, k in enumerate(vs)}
    rows.sort(key=lambda r: (order.get(r["finding"], 9), pos[r["key"]]))   # by kind, then in paper order
    return rows


def headline(vs: Mapping[str, Verdict]) -> dict[str, int]:
    """Counts for the report's headline: underlying errors, not statements.

    ``errors``: root findings that change a result (kind ``result``: the statement is false or its
    printed form does not follow), one per underlying error per paper; ``open``: roots whose proof
    fails with no other route established (the statement is neither refuted nor proved);
    ``reading_dependent``: those of them whose verdict changes with the
    reading of the text; ``gaps``, ``definitional``, ``typographic``, ``regime``: the other
    root kinds; ``echoes``: findings inherited from a root (counted there);
    ``cross_paper``: result roots that are the same error as a root in another paper.

    Examples
    --------
    >>> headline({})["errors"]
    0
    """
    roots = root_table(vs)
    out = {f: sum(1 for r in roots if r["finding"] == f) for f in FINDING_KINDS}
    return {"errors": out["result"], "open": out["open"],
            "reading_dependent": sum(1 for r in roots if r["finding"] == "result"
                                     and len(set(r["readings"].values())) > 1),
            "gaps": out["gap"], "definitional": out["definitional"], "typographic": out["typographic"],
            "regime": out["regime"],
            "echoes": sum(1 for v in vs.values() if v.is_finding and not v.is_root),
            "cross_paper": sum(1 for r in roots if r["finding"] == "result" and r["same_error_as"])}


__all__ = ["FINDINGS", "FINDING_KINDS", "HARMLESS", "TRUTH", "Verdict", "combine", "combine_results", "headline",
           "root_table", "verdicts"]
