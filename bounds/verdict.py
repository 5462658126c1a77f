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

**Roots by counterfactual** (:func:`verdicts`).  A statement names X as a root (inherited, or
"also rests on") only if correcting X changes its outcome: its verdict is computed again with X's
evidence removed (the failing rows whose slug X owns, in every statement between X and it) and X
replaced by its own slip corrected (X still carries what it rests on: its other roots and the
dependencies whose corrected forms its derived form uses).  When the verdict is the same finding,
X does not cause it: X moves to :attr:`Verdict.no_effect` ("also rests on X (no effect here)"), and
the roots the counterfactual exposes are tested the same way; co-roots that change the outcome only
together are all kept (overdetermined).  A statement's derived form that differs from its derivation
from the dependencies as printed rests on those dependencies' findings too (tested the same way).
:attr:`Verdict.root_test` says whether the roots were tested.

**One counting rule** (:func:`headline`, :data:`RULE`).  A root is counted as ``false`` (refuted)
or ``does not follow`` (erratum, or unsupported: its own proof fails), whatever its verdict word; a
step of a proof (kind ``equation``: an intermediate equation or constant, :data:`STEP_KINDS`) of either
kind on which no other statement's outcome depends (by the same counterfactual) is counted apart as
``changes no result``; a stated result (theorem, proposition, lemma, corollary, rate, order) or a
calibration or schedule a user applies (noise, schedule) is a result in itself and always counted; gaps, typos, regime-only findings,
definitional remarks and echoes are listed, not counted (:attr:`Verdict.count_as`).

**Readings and gaps carried through.**  A statement resting (transitively) on a reading-dependent
statement is computed under each of its readings (``readings["KEY: reading"]``, and the reasons say
whether its verdict changes); one resting on a statement whose proof has a gap (it holds by another
route) says its proof "goes through given X, whose proof has a gap", and :attr:`Verdict.upstream`
records both.

**Placeholders.**  A statement with no stated form and nothing derived is ``unchecked`` (unless a
check of it fails), with no regime and no "holds" wording.

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
        changes with the reading; an upstream statement's reading is named ``"KEY: reading"`` (the
        verdict computed with that dependency read so; see *Readings carried through*).
    no_effect : tuple of str
        Upstream statements it rests on whose correction would not change its outcome (the
        counterfactual of *Roots by counterfactual*): "also rests on X (no effect here)".
    root_test : str
        ``"counterfactual"`` when its roots were tested by substituting each upstream correction,
        else ``"not tested: why"`` (empty for no finding).
    count_as : str
        For a root: how the headline counts it (one of :data:`COUNT_AS`, or empty: listed, not counted).
    upstream : dict
        Upstream statement → what this statement inherits from it: ``"gap"`` (its proof has a gap, the
        statement holding by another route) or ``"reading-dependent"``.
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
    no_effect: tuple[str, ...] = ()
    root_test: str = ""
    count_as: str = ""
    upstream: dict[str, str] = field(default_factory=dict)
    #: the verdict under each reading (own ``"KEY: reading"`` and inherited), where it changes with the reading
    variants: dict[str, Verdict] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.root = tuple(dict.fromkeys(self.root))   # a root named once, in order
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
        others = [r for r in self.root if r != self.key]
        text = ("own slip; also rests on " if self.is_root else "inherited from ") + ", ".join(others)
        if self.root == (self.key,):
            text = "own slip"
        if self.no_effect:
            text += "; also rests on " + ", ".join(self.no_effect) + " (no effect here)"
        return text

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
            "no_effect": list(self.no_effect), "root_test": self.root_test, "count_as": self.count_as,
            "upstream": dict(self.upstream),
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
    rests_on: Sequence[str] = (),
    placeholder: bool = False,
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
    rests_on : sequence of str
        Dependencies with a finding whose correction changes the statement's derived form (its
        derivation from the dependencies as printed differs from that from their corrected forms):
        an own root also rests on their roots.
    placeholder : bool
        The paper states no form and nothing derives one: ``unchecked`` unless a check fails.

    Examples
    --------
    >>> from bounds.evidence import Check
    >>> w = Check("privacy of a function release", False, "exact", "disjoint supports", severity="invalid",
    ...           details={"error": "function-release"})
    >>> combine_results("demo.prop1", "erratum", "noise", [w], slug_roots={"function-release": "demo.lemma1"}).root
    ('demo.lemma1',)
    """
    ev = list(evidence)
    if placeholder and not any(c.failed and c.evidence == "symbolic" and not c.details.get("route") for c in ev):
        return Verdict(key=key, verdict="unchecked", evidence=ev, status=status, regime="", proof="",
                       reasons=["a placeholder: the paper states no form and nothing derives one, so nothing "
                                "here is checked"], root_test="")
    if readings:
        per = {r: _combine(key, status, kind, [e for e in ev if e.details.get("reading") in (None, r)],
                           derived_exists, inherits, deps, dep_keys, slug_roots, elsewhere, rests_on)
               for r in readings}
        first = per[readings[0]]
        first.evidence = ev
        tagged = {e.details.get("reading") for e in ev} - {None}
        if tagged:
            first.readings = {r: v.verdict for r, v in per.items()}
            if first.reading_dependent:
                first.reasons.append("the verdict depends on the reading: " + "; ".join(
                    f"{r} → {VERDICT_TEXT[v.verdict]}" for r, v in per.items()))
                first.variants = {f"{key}: {r}": v for r, v in per.items()}
        return first
    return _combine(key, status, kind, ev, derived_exists, inherits, deps, dep_keys, slug_roots, elsewhere,
                    rests_on)


def _combine(key: str, status: str, kind: str, ev: list[Result], derived_exists: bool, inherits: Sequence[str],
             deps: Mapping[str, Verdict] | None, dep_keys: Sequence[str], slug_roots: Mapping[str, str] | None,
             elsewhere: Mapping[str, Sequence[str]] | None, rests_on: Sequence[str] = ()) -> Verdict:
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
        uses = tuple(d for d in rests_on if d in deps and d not in also and d != key) if not inherited else ()
        used = tuple(r for d in uses for r in ((d,) if deps[d].is_root else root_of((d,))))
        root = root_of(inherited) if inherited else (key, *(r for r in (*root_of(also), *used) if r != key))
        if also and not inherited:
            reasons.append("its refuting or failing evidence also includes the underlying error of "
                           + ", ".join(also) + ", counted there")
        if uses:
            reasons.append("its derived form uses the corrected " + ", ".join(uses)
                           + " (derived from them as printed it differs): it also rests on their findings")
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
    if verdict == "unsupported" and regime.startswith(("fails inside", "does not follow inside")):
        # an open statement: what fails is a step of its proof, not the statement
        what = "its printed form " if regime.startswith("does not follow") else "a step of its proof "
        regime = what + regime + "; the statement itself is neither refuted nor proved"
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
            slug_roots: Mapping[str, str] | None = None, elsewhere: Mapping[str, Sequence[str]] | None = None,
            *, rests_on: Sequence[str] = (), inherits: Sequence[str] | None = None,
            drop_slugs: Iterable[str] = ()) -> Verdict:
    """The :class:`Verdict` of an :class:`~bounds.core.Evaluation` with extra (empirical, audit) evidence.

    ``inherits`` overrides the evaluation's (the dependencies its failing printed form follows from);
    failing rows whose underlying-error slug is in ``drop_slugs`` are left out (a counterfactual).
    """
    st = evaluation.statement
    drop = set(drop_slugs)
    rows = [r for r in [*evaluation.checks, *evidence] if not (drop and r.failed and r.details.get("error") in drop)]
    return combine_results(
        st.key, evaluation.status, st.kind, rows,
        derived_exists=evaluation.derived is not None or st.stated is None,
        inherits=evaluation.inherits if inherits is None else inherits, deps=deps, dep_keys=st.depends,
        readings=tuple(st.readings), slug_roots=slug_roots, elsewhere=elsewhere, rests_on=rests_on,
        placeholder=evaluation.placeholder,
    )


#: how the headline counts a root (``Verdict.count_as``); any other root is listed, not counted
COUNT_AS = ("false", "does not follow", "changes no result")

#: statement kinds that are steps inside a proof (an intermediate equation or constant), not a result the paper
#: states (theorem, proposition, lemma, corollary, rate, order) nor a calibration or schedule a user applies (noise,
#: schedule): only a step can be counted apart as "changes no result"; any other false or non-following root is
#: a result in itself
STEP_KINDS = ("equation",)

#: the counting rule, printed next to the number
RULE = ("errors = underlying errors, one per root and paper, of two kinds: false (the statement is refuted inside "
        "the paper's regime) and does not follow (its printed form, constant, scale or budget does not follow from "
        "its premises, whatever its verdict word: erratum, or unsupported with its own proof failing); a false or "
        "non-following step of a proof (an intermediate equation or constant, not a stated result nor a calibration "
        "a user applies) on which no other statement's outcome depends (by the same counterfactual) is counted apart "
        "(changes no result); "
        "gaps, typos, regime-only findings, definitional remarks and echoes are listed, not counted")


class _Verdicts:
    """The verdicts of a registry's statements, dependencies first, with roots tested by counterfactual,
    readings and gaps carried through, and the counting kind of each root."""

    def __init__(self, registry: Registry, evals: Mapping[str, Evaluation], by_key: Mapping[str, list[Result]],
                 slug_roots: Mapping[str, Mapping[str, str]], elsewhere: Mapping[str, Mapping[str, list[str]]]):
        self.reg, self.evals, self.by_key = registry, evals, by_key
        self.slug_roots, self.elsewhere = slug_roots, elsewhere
        self.final: dict[str, Verdict] = {}
        #: dependencies whose corrected forms change a statement's derived form (see ``rests_on``)
        self.uses: dict[str, tuple[str, ...]] = {}
        self.worlds: dict[frozenset[str], dict[str, Verdict]] = {}

    # -- one statement -----------------------------------------------------------------------
    def _rests_on(self, k: str, deps: Mapping[str, Verdict]) -> tuple[str, ...]:
        ev = self.evals[k]
        if ev.derived is None or ev.derived_from_stated is None or ev.derived == ev.derived_from_stated:
            return ()
        return tuple(d for d, v in deps.items() if v.is_finding and v.verdict not in HARMLESS)

    def _combine(self, k: str, deps: Mapping[str, Verdict], counterfactual: frozenset[str] = frozenset()
                 ) -> Verdict:
        st = self.reg.get(k)
        ev = self.evals[k]
        owned = self.slug_roots.get(st.paper, {})
        drop: set[str] = {e for e, o in owned.items() if o in counterfactual}
        inherits: tuple[str, ...] | None = None
        if counterfactual and ev.inherits:
            inherits = tuple(d for d in ev.inherits if d in deps and deps[d].is_finding
                             and deps[d].verdict not in HARMLESS)
            if not inherits:   # its printed form followed from theirs: with them corrected, its comparison goes too
                rows = [c for c in ev.checks if not (c.failed and c.name.startswith("stated vs derived"))]
                ev = type(ev)(ev.statement, ev.derived, ev.derived_from_stated, rows, ev.status, ev.detail, ())
        return combine(ev, self.by_key.get(k, []), deps, owned, self.elsewhere.get(st.paper, {}),
                       rests_on=self._rests_on(k, deps), inherits=inherits, drop_slugs=drop)

    def _stand_in(self, x: str, xs: frozenset[str]) -> Verdict:
        """X with its own slip corrected: it still carries what it rests on (its other roots)."""
        vx = self.final[x]
        used = [r for d in self.uses.get(x, ()) for r in ((d,) if self.final[d].is_root else self.final[d].root)]
        # what it rests on, including what had no effect only while its own slip stood
        rest = [r for r in (*vx.root, *used) if r not in xs and r != x]
        if not rest:
            return Verdict(key=x, verdict="consistent", reasons=["counterfactual: corrected"])
        bad = any(self.final[r].verdict == "unsupported" for r in rest if r in self.final)
        return Verdict(key=x, verdict="unsupported" if bad else "erratum", root=tuple(dict.fromkeys(rest)),
                       inherited_from=tuple(rest), reasons=["counterfactual: its own slip corrected"])

    def world(self, xs: frozenset[str], k: str) -> Verdict:
        """The verdict of ``k`` with the statements ``xs`` corrected (their slugs' evidence removed)."""
        memo = self.worlds.setdefault(xs, {})
        if k in memo:
            return memo[k]
        if k in xs:
            v = self._stand_in(k, xs)
        else:
            st = self.reg.get(k)
            deps = {d: self.world(xs, d) for d in st.depends}
            owned = self.slug_roots.get(st.paper, {})
            slugs = {e for e, o in owned.items() if o in xs}
            touched = any(deps[d] is not self.final[d] for d in deps) or any(
                c.failed and c.details.get("error") in slugs
                for c in [*self.evals[k].checks, *self.by_key.get(k, [])])
            if not touched and k not in self.final:   # the statement being decided: nothing of xs reaches it
                return None   # type: ignore[return-value]
            v = self._combine(k, deps, xs) if touched else self.final[k]
        memo[k] = v
        return v

    def decide(self, k: str) -> Verdict:
        st = self.reg.get(k)
        deps = {d: self.final[d] for d in st.depends}
        self.uses[k] = self._rests_on(k, deps)
        v = self._combine(k, deps)
        self._test_roots(v, k, deps)
        self._carry_readings(v, k, deps)
        self._carry_gaps(v, deps)
        self.final[k] = v
        return v

    # -- rule 1: roots by counterfactual -------------------------------------------------------
    def _test_roots(self, v: Verdict, k: str, deps: Mapping[str, Verdict]) -> None:
        if not v.is_finding:
            return
        cands = [r for r in v.root if r != k]
        extra = [r for d, dv in deps.items() if dv.is_finding and dv.verdict not in HARMLESS
                 for r in (dv.root or (d,)) if r != k and r not in v.root]
        extra = list(dict.fromkeys(extra))
        if not cands and not extra:
            v.root_test = "not tested: an own slip, with no upstream statement to substitute"
            return
        tested = list(dict.fromkeys((*cands, *extra)))
        blind = [x for x in tested if self.world(frozenset((x,)), k) is None]
        tested = [x for x in tested if x not in blind]
        drop = [x for x in tested if self.world(frozenset((x,)), k).verdict == v.verdict]
        v.root_test = "counterfactual" if not blind else (
            "not tested: the evidence of " + ", ".join(blind) + " cannot be separated here (no slug of it and not "
            "upstream in the registry), so it is kept")
        no_effect: list[str] = []
        joint: Verdict | None = None
        for step in range(4):
            if drop:
                trial = self.world(frozenset((*no_effect, *drop)), k)
                if trial.verdict == v.verdict:
                    no_effect.extend(drop)
                    joint = trial
                elif step == 0:   # each alone changes nothing, together they do: overdetermined, all kept
                    v.root_test = ("counterfactual: " + ", ".join(drop) + " change the outcome only together "
                                   "(overdetermined), so all are kept")
                    break
            if joint is None:
                break
            kept = [r for r in v.root if r not in no_effect]
            new = [r for r in joint.root if r not in no_effect and r not in kept
                   and (r == k or r not in self.final or self.final[r].verdict not in HARMLESS)]
            # an upstream statement the joint counterfactual exposes is tested the same way
            again = [r for r in new if r != k and step < 3
                     and self.world(frozenset((*no_effect, r)), k).verdict == v.verdict]
            if again and drop != again:
                drop = again
                continue
            root = tuple(dict.fromkeys([*([k] if k in new or k in kept else []), *kept, *new]))
            was_root = v.is_root
            v.root = root or (k,)
            if joint.regime:   # where it fails is told by the evidence that decides it, not by a no-effect co-root's
                v.regime = joint.regime
            v.inherited_from = tuple(r for r in v.inherited_from if r not in no_effect) or (
                joint.inherited_from if k not in v.root else ())
            if v.is_root and not was_root:
                v.finding = joint.finding or v.finding or "result"
            break
        for x in no_effect:
            v.reasons.append(f"also rests on {x} (no effect here): with {x} corrected its verdict is still "
                             f"{VERDICT_TEXT[v.verdict]}")
        # a finding inherited from a dependency carries that dependency's no-effect co-roots: its outcome is the
        # dependency's, so what does not change the dependency's outcome does not change its own
        for d in v.inherited_from:
            dv = deps.get(d)
            for x in (dv.no_effect if dv is not None else ()):
                if x != k and x not in v.root and x not in no_effect:
                    no_effect.append(x)
                    v.reasons.append(f"also rests on {x} (no effect here), as {d}, whose finding it inherits")
        v.no_effect = tuple(no_effect)

    # -- rule 3: readings and gaps carried through -------------------------------------------------
    def _carry_readings(self, v: Verdict, k: str, deps: Mapping[str, Verdict]) -> None:
        names = list(dict.fromkeys(n for dv in deps.values() for n in dv.variants))
        if not names:
            return
        by_owner: dict[str, list[str]] = {}
        for n in names:
            by_owner.setdefault(n.split(": ", 1)[0], []).append(n)
        for owner, group in by_owner.items():
            if owner == k:
                continue
            outcome: dict[str, Verdict] = {}
            for n in group:
                alt = {d: (dv.variants.get(n, dv)) for d, dv in deps.items()}
                outcome[n] = self._combine(k, alt)
            for n, w in outcome.items():
                v.readings[n] = w.verdict
                v.variants[n] = w
            v.upstream.setdefault(owner, "reading-dependent")
            if len({w.verdict for w in outcome.values()}) > 1:
                v.reasons.append(f"the verdict depends on the reading of {owner}: " + "; ".join(
                    f"{n.split(': ', 1)[1]} → {VERDICT_TEXT[w.verdict]}" for n, w in outcome.items()))
            else:
                v.reasons.append(f"it rests on {owner}, whose verdict depends on its reading; this verdict is the "
                                 "same under each reading")

    @staticmethod
    def _carry_gaps(v: Verdict, deps: Mapping[str, Verdict]) -> None:
        for d, dv in deps.items():
            if dv.verdict == "gap" or "the statement holds by another route" in dv.proof:
                v.upstream.setdefault(d, "gap")
            for x, what in dv.upstream.items():
                v.upstream.setdefault(x, what)
        gaps = [x for x, what in v.upstream.items() if what == "gap" and x != v.key]
        if gaps and v.proof.startswith("goes through"):
            v.proof += " given " + "; given ".join(
                f"{x}, whose proof has a gap ({x} holds by another route)" for x in gaps)
        elif gaps and v.proof:   # a failing step of its own does not hide the gap it rests on
            new = [x for x in gaps if x not in v.proof]
            if new:
                v.proof += "; it also rests on " + ", ".join(
                    f"{x}, whose proof has a gap ({x} holds by another route)" for x in new)

    # -- rule 2: one counting rule ---------------------------------------------------------------
    def count(self) -> None:
        users: dict[str, list[str]] = {}
        self.closure: dict[str, set[str]] = {}
        for k in self.final:   # dependencies first
            deps = self.reg.get(k).depends
            self.closure[k] = set(deps).union(*(self.closure.get(d, set()) for d in deps))
            for d in deps:
                users.setdefault(d, []).append(k)
        for k, v in self.final.items():
            if not v.is_root:
                continue
            kind = {"refuted": "false", "erratum": "does not follow", "unsupported": "does not follow"}.get(
                v.verdict, "")
            if kind and not self._matters(k, users):
                kind = "changes no result"
                v.reasons.append("changes no result: every statement that uses it has the same outcome without it")
            v.count_as = kind

    def _matters(self, r: str, users: Mapping[str, list[str]]) -> bool:
        """Whether some outcome depends on root ``r``: it is not a step (:data:`STEP_KINDS`), or nothing uses
        it nor the statements that restate its error (it is a result in itself), or a statement whose premises include it (or a restatement) names it as a
        root after the counterfactual test."""
        if self.reg.get(r).kind not in STEP_KINDS:   # a false lemma or calibration is a result in itself
            return True
        fin = self.final
        same = {r, *(k for k, v in fin.items() if k != r and v.is_finding and r in v.root
                     and r not in self.closure.get(k, ()))}   # restatements of its error, not uses of it
        if not any(users.get(e) for e in same):
            return True
        return any(k != r and r in v.root and self.closure.get(k, set()) & same for k, v in fin.items())


def verdicts(registry: Registry, evidence: Iterable[Result] = (), keys: Sequence[str] | None = None
             ) -> dict[str, Verdict]:
    """Verdicts of ``keys`` (default: every statement), dependencies first.

    ``evidence`` holds the empirical and audit rows (symbolic ones are taken from the
    registry and any passed here are ignored).  The root of each underlying-error slug
    is the first statement of its paper, in this order, whose failing evidence names it;
    every statement of the papers asked about is evaluated for that (and for the roots'
    counterfactuals and counting kinds), and a cross-reference to another paper ("the same
    error as") is made among those papers only.

    Examples
    --------
    >>> from bounds.core import Registry
    >>> from bounds.paper import Paper
    >>> from bounds.symbols import S
    >>> demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
    >>> _ = demo.add("thm1", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper",
    ...              params=("m",))
    >>> v = verdicts(Registry([demo]))["demo.thm1"]
    >>> v.verdict, v.count_as, v.root_test
    ('erratum', 'does not follow', 'not tested: an own slip, with no upstream statement to substitute')
    """
    by_key: dict[str, list[Result]] = {}
    for r in evidence:
        if r.evidence != "symbolic":
            by_key.setdefault(r.key, []).append(r)
    wanted = list(keys if keys is not None else registry.keys())
    # slug ownership over every statement of the papers asked about (a root may come later in its paper)
    papers = {registry.get(k).paper for k in registry.closure(wanted)}
    order = registry.closure([k for k in registry.keys() if registry.get(k).paper in papers])
    evals = {k: registry.evaluate(k) for k in order}
    slug_roots: dict[str, dict[str, str]] = {}
    failed = {k: [c for c in [*evals[k].checks, *by_key.get(k, [])]
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
    job = _Verdicts(registry, evals, by_key, slug_roots, elsewhere)
    for k in order:
        job.decide(k)
    job.count()
    return {k: job.final[k] for k in wanted}


def root_table(vs: Mapping[str, Verdict]) -> list[dict[str, Any]]:
    """The distinct root findings, each with its downstream statements, errors first.

    Rows: ``key``, ``verdict``, ``finding``, ``count_as`` (how the headline counts it), ``reasons``,
    ``correction``, ``same_error_as``, ``readings``, ``no_effect``, ``root_test`` and ``downstream``
    (statements whose verdict is a finding rooted here, excluding the root itself: its echoes and
    descendants, counted once here).
    """
    rows = []
    for k, v in vs.items():
        if not v.is_root:
            continue
        # echoes and descendants; a statement with its own error that also rests on this root is a root itself
        down = [o.key for o in vs.values() if o.key != k and o.is_finding and k in o.root and not o.is_root]
        rests = [o.key for o in vs.values() if o.key != k and o.is_root and k in o.root]
        rows.append({"key": k, "verdict": v.verdict, "reads": v.text, "finding": v.finding,
                     "count_as": getattr(v, "count_as", ""), "no_effect": list(getattr(v, "no_effect", ())),
                     "root_test": getattr(v, "root_test", ""),
                     "reasons": v.reasons, "regime": v.regime, "downstream": down, "rested_on_by": rests,
                     "truth": v.truth,
                     "correction": v.correction, "same_error_as": list(v.same_error_as),
                     "errors": list(v.errors), "readings": dict(v.readings),
                     "evidence": {e: sum(c.values()) for e, c in v.evidence_counts().items()}})
    order = {f: i for i, f in enumerate(FINDING_KINDS)}
    counted = {c: i for i, c in enumerate(COUNT_AS)}
    pos = {k: i for i, k in enumerate(vs)}
    # counted errors first (by kind), then the roots that are listed, not counted; each in paper order
    rows.sort(key=lambda r: (counted.get(r["count_as"], 9), order.get(r["finding"], 9), pos[r["key"]]))
    return rows


def headline(vs: Mapping[str, Verdict]) -> dict[str, Any]:
    """Counts for the report's headline: underlying errors, not statements, by one rule (:data:`RULE`).

    ``errors`` = ``false`` + ``does_not_follow``: roots counted as errors (:attr:`Verdict.count_as`), one per
    underlying error per paper, whatever their verdict word; ``no_effect``: false or non-following roots that
    change no result (counted apart); ``open``: the counted roots whose verdict is *unsupported* (their proof
    fails, no other route; included in ``errors``); ``reading_dependent``: counted roots whose verdict changes
    with the reading of the text; ``gaps``, ``definitional``, ``typographic``, ``regime``: the roots listed,
    not counted; ``echoes``: findings inherited from a root (counted there); ``cross_paper``: counted roots
    that are the same error as a root in another paper; ``rule``: the counting rule in one sentence.

    Examples
    --------
    >>> headline({})["errors"]
    0
    """
    roots = root_table(vs)
    counted = [r for r in roots if r["count_as"] in ("false", "does not follow")]
    listed = [r for r in roots if not r["count_as"]]
    kinds = {f: sum(1 for r in listed if r["finding"] == f) for f in FINDING_KINDS}
    false = sum(1 for r in counted if r["count_as"] == "false")
    return {"errors": len(counted), "false": false, "does_not_follow": len(counted) - false,
            "no_effect": sum(1 for r in roots if r["count_as"] == "changes no result"),
            "open": sum(1 for r in counted if r["verdict"] == "unsupported"),
            "reading_dependent": sum(1 for r in counted if len(set(r["readings"].values())) > 1),
            "gaps": kinds["gap"], "definitional": kinds["definitional"], "typographic": kinds["typographic"],
            "regime": kinds["regime"],
            "echoes": sum(1 for v in vs.values() if v.is_finding and not v.is_root),
            "cross_paper": sum(1 for r in counted if r["same_error_as"]),
            "rule": RULE}


__all__ = ["COUNT_AS", "FINDINGS", "FINDING_KINDS", "RULE", "HARMLESS", "TRUTH", "Verdict", "combine", "combine_results", "headline",
           "root_table", "verdicts"]
