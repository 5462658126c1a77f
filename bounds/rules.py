"""Rules on the data a paper module supplies, checked over every paper (issue 34 items 3 and 5).

The verdict machinery (:mod:`bounds.verdict`) decides roots, counts and readings from the evidence.
Two rules of issue 34 are about what the evidence must *contain*, and are checked here, by the
conformance suite, for every paper and for constructed ones:

**The smallest correction** (item 3).  A counted root (``count_as`` ``false`` or ``does not follow``)
whose failing evidence inside the paper's regime includes a comparison of the printed form with what
its premises give (a check named ``stated vs derived``, or one of severity ``mismatch``) carries, on one
of its failing checks, ``details["smallest_correction"]`` with the three parts the report prints in this
order: ``tight`` (the minimal change under the toolkit's tightest tool, or why it is not computed),
``proof`` (the minimal change under the proof's own argument) and ``printed_violated`` (whether the
printed form is actually violated).  A correction with only the proof's factor would lead with a factor
that may be only sufficient.

**Relaxed premises** (item 5).  Every premise a statement declares as relaxed
(:attr:`bounds.core.Statement.relaxes`) is a parameter its stated or derived form depends on, and the
paper's value of it lies in the parameter's domain, so that the statement reads as printed by default
and moves with a user's value.

Examples
--------
>>> from bounds.rules import correction_problems
>>> correction_problems({}, {})
[]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: the parts of a smallest correction (schema S1), in the order the report prints them
CORRECTION_PARTS = ("tight", "proof", "printed_violated")

#: the answers ``printed_violated`` may give
VIOLATED_ANSWERS = ("yes", "no counterexample found", "not tested")

#: root kinds whose printed form must carry a smallest correction when it fails a comparison
COUNTED = ("false", "does not follow")


def _compares_printed(r: Any) -> bool:
    return (r.evidence == "symbolic" and r.failed and r.inside_regime
            and (r.name.startswith("stated vs derived") or r.severity == "mismatch"))


def correction_schema_problems(sc: Any) -> list[str]:
    """What is missing from one ``details["smallest_correction"]`` (empty: it follows schema S1).

    Examples
    --------
    >>> ok = {"tight": {"factor": 1.5, "tool": "pld_epsilon", "text": "x 1.5"},
    ...       "proof": {"factor": 2, "text": "x 2"},
    ...       "printed_violated": {"answer": "not tested", "evidence": ""}}
    >>> correction_schema_problems(ok)
    []
    >>> correction_schema_problems({"proof": {"factor": 2, "text": "x 2"}})
    ['no tight part', 'no printed_violated part']
    """
    if not isinstance(sc, Mapping):
        return ["not a mapping"]
    out = [f"no {part} part" for part in CORRECTION_PARTS if not isinstance(sc.get(part), Mapping)]
    if isinstance(sc.get("tight"), Mapping) and not str(sc["tight"].get("text", "")).strip():
        out.append("the tight part says neither the change nor why it is not computed")
    if isinstance(sc.get("proof"), Mapping) and not str(sc["proof"].get("text", "")).strip():
        out.append("the proof part has no text")
    pv = sc.get("printed_violated")
    if isinstance(pv, Mapping) and pv.get("answer") not in VIOLATED_ANSWERS:
        out.append(f"printed_violated answers {pv.get('answer')!r}, not one of {', '.join(VIOLATED_ANSWERS)}")
    return out


def correction_problems(registry: Any, vs: Mapping[str, Any]) -> list[str]:
    """Counted roots whose failing printed form carries no valid smallest correction (rule of item 3).

    ``vs``: statement key → :class:`~bounds.verdict.Verdict` (``count_as`` and ``evidence`` are read).
    """
    out = []
    for key, v in vs.items():
        if getattr(v, "count_as", "") not in COUNTED or key not in getattr(v, "root", ()):
            continue
        rows = list(getattr(v, "evidence", ()))
        if not any(_compares_printed(r) for r in rows):
            continue
        found = [r.details["smallest_correction"] for r in rows
                 if r.failed and isinstance(r.details.get("smallest_correction"), Mapping)]
        if not found:
            out.append(f"{key}: its printed form does not follow (counted: {v.count_as}) but no failing check "
                       "carries a smallest correction")
            continue
        bad = [p for sc in found for p in correction_schema_problems(sc)]
        if all(correction_schema_problems(sc) for sc in found):
            out.append(f"{key}: smallest correction incomplete: {'; '.join(dict.fromkeys(bad))}")
    return out


def relaxation_problems(statements: Iterable[Any], derived: Mapping[str, Any] | None = None) -> list[str]:
    """Relaxed premises that are not parameters of their statement, or whose paper value is outside their
    domain (rule of item 5).

    ``statements``: :class:`~bounds.core.Statement` objects; ``derived``: key → derived expression (or None).
    """
    derived = dict(derived or {})
    out = []
    for st in statements:
        relaxes = dict(getattr(st, "relaxes", {}) or {})
        if not relaxes:
            continue
        free = set()
        for expr in (st.stated, derived.get(st.key)):
            if expr is not None and hasattr(expr, "free_symbols"):
                free |= {str(s) for s in expr.free_symbols}
        for name, (paper_value, premise) in relaxes.items():
            par = st.ns[name]
            if str(par.symbol) not in free:
                out.append(f"{st.key}: relaxed premise {name!r} ({premise}) is not a parameter of its stated or "
                           "derived form: a user's value would change nothing")
            why = par.violation(float(paper_value)) if isinstance(paper_value, (int, float)) else "not a number"
            if why:
                out.append(f"{st.key}: the paper's value {paper_value!r} of {name!r} violates its domain ({why})")
    return out


__all__ = ["CORRECTION_PARTS", "COUNTED", "VIOLATED_ANSWERS", "correction_problems", "correction_schema_problems",
           "relaxation_problems"]
