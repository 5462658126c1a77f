"""The verdict rules of issue 23 (bounds/verdict.py), each on a small constructed paper.

The statement apart from its proof, routes, remarks, one root per underlying error,
budgets the toolkit derived, corrections that survive every check, readings, inconclusive
numeric checks and the one regime convention.  Every expected verdict follows from the
documented rule applied by hand; none is read back from the code under test.
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from bounds.core import Registry
from bounds.evidence import Check, Result
from bounds.paper import Paper
from bounds.symbols import CONVENTION, Regime, S
from bounds.verdict import headline, root_table
from bounds.verdict import verdicts as verdicts_of


def _paper(pid: str = "syn", regime: Regime | None = None) -> Paper:
    return Paper(pid, title="Synthetic", citation="Doe, J.: Synthetic statements (2026)", regime=regime)


def _gap(st, dep):
    return Check("hypothesis: sup-norm bound", False, "exact", "a 3-point instance exceeds M", severity="gap")


def _route_ok(st, dep):
    # an identity decided here, not typed in: E[X - E X] = 0 for X uniform on {1, 2, 3}
    x = [sp.Integer(1), sp.Integer(2), sp.Integer(3)]
    mean = sum(x) / 3
    return Check("E[sample error] = 0", sum(xi - mean for xi in x) / 3 == 0, "symbolic",
                 "the centred mean of a sample-free function is zero")


def _route_bad(st, dep):
    return Check("sharper lemma", 1 + 1 == 3, "symbolic", "does not hold")


def _emp(key: str, verdict: str, statistic: float, bound: float, **kw) -> Result:
    return Result(key=key, evidence="empirical", kind="risk", name="m=100", verdict=verdict, statistic=statistic,
                  lo=statistic, hi=statistic, bound=bound, confidence=0.95, n=100, **kw)


def test_a_proof_gap_with_an_established_route_holds_and_does_not_spread():
    p = _paper()
    p.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",),
          checks=(_gap,), routes=(_route_ok,))
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",))
    vs = verdicts_of(Registry([p]), [])
    lemma, thm = vs["syn.lemma"], vs["syn.thm"]
    assert lemma.verdict == "gap" and lemma.truth == "holds by another route" and lemma.finding == "gap"
    assert "a step fails" in lemma.proof
    assert any("another route" in r for r in lemma.reasons)
    assert thm.verdict == "consistent" and not thm.root   # a harmless gap does not spread


def test_without_a_route_the_same_gap_is_unsupported_and_spreads():
    p = _paper()
    p.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",),
          hypotheses=(_gap,), routes=(_route_bad,))
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",))
    vs = verdicts_of(Registry([p]), [])
    assert vs["syn.lemma"].verdict == "unsupported" and vs["syn.lemma"].truth == "open"
    # a failing route is no evidence against the statement: the derivation status stays consistent
    assert Registry([p]).evaluate("syn.lemma").status == "consistent"
    assert vs["syn.thm"].verdict == "unsupported" and vs["syn.thm"].root == ("syn.lemma",)


def test_an_own_error_stays_an_erratum_when_the_gap_has_a_route():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper",
          params=("m",), checks=(_gap,), routes=(_route_ok,))
    v = verdicts_of(Registry([p]), [])["syn.thm"]
    assert v.verdict == "erratum" and v.constant == "does not follow" and v.root == ("syn.thm",)


def test_a_definition_with_a_failing_check_is_a_remark_not_unsupported():
    def nonstandard(st, dep):
        return Check("agrees with standard DP", False, "exact", "vacuous on disjoint ranges", severity="gap")

    p = _paper()
    p.add("def1", "Definition 1", "definition", "q", None, checks=(nonstandard,))
    p.add("thm", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper",
          params=("m",), depends=("def1",))
    vs = verdicts_of(Registry([p]), [])
    assert vs["syn.def1"].verdict == "remark" and vs["syn.def1"].finding == "definitional"
    assert vs["syn.thm"].verdict == "consistent"


def _witness(slug: str, refutes_derived: bool = False):
    def fn(st, dep):
        return Check("function release is private", False, "exact", "disjoint supports", severity="invalid",
                     details={"error": slug, "refutes_derived": refutes_derived})
    return fn


def test_one_root_per_underlying_error_echoes_listed_under_it_and_cross_referenced():
    a = _paper("pa")
    a.add("lemma1", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True),))
    a.add("prop1", "Proposition 1", "noise", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True),), depends=("lemma1",))
    a.add("prop2", "Proposition 2", "noise", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True),))                       # not a dependency: still the same error
    b = _paper("pb")
    b.add("lemma1", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True),))
    vs = verdicts_of(Registry([a, b]), [])
    assert [vs[k].verdict for k in ("pa.lemma1", "pa.prop1", "pa.prop2", "pb.lemma1")] == ["refuted"] * 4
    assert vs["pa.prop1"].root == ("pa.lemma1",) and vs["pa.prop2"].root == ("pa.lemma1",)
    roots = root_table(vs)
    assert [r["key"] for r in roots] == ["pa.lemma1", "pb.lemma1"]
    assert roots[0]["downstream"] == ["pa.prop1", "pa.prop2"]
    assert vs["pa.lemma1"].same_error_as == ("pb.lemma1",) and vs["pb.lemma1"].same_error_as == ("pa.lemma1",)
    h = headline(vs)
    assert h["errors"] == 2 and h["echoes"] == 2 and h["cross_paper"] == 2
    # the witness refutes every form: no correction is offered
    assert not vs["pa.lemma1"].corrected and vs["pa.lemma1"].correction.startswith("none")


def test_a_correction_is_shown_only_when_every_check_of_it_passes():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    v = verdicts_of(Registry([p]), [])["syn.thm"]
    assert v.corrected and v.correction.startswith("established")
    v = verdicts_of(Registry([p]), [_emp("syn.thm", "violated", 3.0, 2.0, details={"which": "derived"})])["syn.thm"]
    assert v.verdict == "refuted" and not v.corrected and "refuted too" in v.correction


def test_a_budget_the_toolkit_derived_never_refutes_alone():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    tk = _emp("syn.thm", "violated", 3.0, 2.0, details={"budget": "toolkit"})
    v = verdicts_of(Registry([p]), [tk])["syn.thm"]
    assert v.verdict == "consistent"
    assert any("budget the toolkit derived" in r for r in v.reasons)
    paper_claim = _emp("syn.thm", "violated", 3.0, 2.0)
    assert verdicts_of(Registry([p]), [tk, paper_claim])["syn.thm"].verdict == "refuted"


def test_a_verdict_that_changes_with_the_reading_says_so():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",),
          readings={"per-step": "ε per iteration", "total": "ε for the whole run"})
    rows = [_emp("syn.thm", "violated", 3.0, 2.0, details={"reading": "total"})]
    v = verdicts_of(Registry([p]), rows)["syn.thm"]
    assert v.verdict == "consistent"                       # the first (encoded) reading decides
    assert v.readings == {"per-step": "consistent", "total": "refuted"} and v.reading_dependent
    assert any("depends on the reading" in r for r in v.reasons)


def test_a_numeric_check_on_a_minority_of_points_is_inconclusive_not_holds():
    # sqrt(m - 1e6) is real only for m > 1e6, a minority of the sampled range of m; sympy cannot sign it
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 2 * sp.sqrt(S.m - 10**6), derive=lambda d: sp.sqrt(S.m - 10**6),
          relation="upper", params=("m",))
    c = Registry([p]).evaluate("syn.thm").checks[0]
    pts = c.details["points"]
    assert c.verdict == "inconclusive" and 0 < 2 * pts["finite"] < pts["evaluated"]
    assert verdicts_of(Registry([p]), [])["syn.thm"].verdict == "unchecked"
    # the same comparison on m > 1e6 evaluates everywhere and holds
    q = _paper()
    q.add("thm", "Theorem 1", "theorem", "q", 2 * sp.sqrt(S.m + 10**6), derive=lambda d: sp.sqrt(S.m + 10**6),
          relation="upper", params=("m",))
    assert verdicts_of(Registry([q]), [])["syn.thm"].verdict == "consistent"


def test_one_regime_convention_for_delta():
    assert CONVENTION["delta"] == (0.0, 0.1)
    r = Regime(ranges={"eps": (0, 1)})
    assert r.ranges["delta"] == (0.0, 0.1) and r.place({"delta": 0.5}) == "outside"
    assert r.place({"delta": 0.05, "eps": 0.5}) == "inside"
    own = Regime(ranges={"delta": (0, 0.5)})
    assert own.place({"delta": 0.4}) == "inside"           # a paper that states its own range keeps it
    mask = r.mask({S.delta: np.array([0.01, 0.3])}, p_ns := _paper().symbols)
    assert mask.tolist() == [True, False] and p_ns is not None


def test_an_exact_counterexample_makes_the_statement_false():
    p = _paper()
    p.add("prop", "Proposition 1", "proposition", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("x"),))
    v = verdicts_of(Registry([p]), [])["syn.prop"]
    assert v.verdict == "refuted" and v.truth == "false" and v.finding == "result"
    assert any(r.startswith("exact counterexample") for r in v.reasons)


def test_an_own_typo_beside_an_echoed_error_does_not_make_a_second_root():
    def typo(st, dep):
        return Check("sign of the exponent", False, "symbolic", "exp(+|b|) cannot be meant", severity="typo")

    p = _paper()
    p.add("lemma1", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True),))
    p.add("thm1", "Theorem 1", "noise", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True), typo), depends=("lemma1",))
    vs = verdicts_of(Registry([p]), [])
    assert vs["syn.thm1"].verdict == "refuted" and vs["syn.thm1"].root == ("syn.lemma1",)
    assert any(r.startswith("also a typo") for r in vs["syn.thm1"].reasons)
    assert [r["key"] for r in root_table(vs)] == ["syn.lemma1"]


def test_regime_only_echoes_and_an_inherited_error_beside_a_harmless_gap():
    # stated 1/λ² ≥ derived 1/λ only for λ ≤ 1: both statements fail outside the regime only, same slug
    def slug(st, dep):
        return Check("same remark", True, "symbolic", "", details={"error": "lam-le-1"})

    p = _paper(regime=Regime(ranges={"lam": (0, 1)}))
    for k in ("thm1", "thm2"):
        p.add(k, "Theorem", "theorem", "q", 1 / S.lam**2, derive=lambda d: 1 / S.lam, relation="upper",
              params=("lam",))
    reg = Registry([p])
    for k in ("syn.thm1", "syn.thm2"):   # tag the failing comparison with the slug (as a paper would)
        for c in reg.evaluate(k).checks:
            c.details["error"] = "lam-le-1"
    vs = verdicts_of(reg, [])
    assert vs["syn.thm1"].verdict == vs["syn.thm2"].verdict == "regime"
    assert vs["syn.thm2"].root == ("syn.thm1",) and headline(vs)["regime"] == 1
    # an error inherited from a stated dependency stays an erratum when a gap beside it has a route
    q = _paper()
    q.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    q.add("thm", "Theorem 1", "theorem", "q", 3 / S.m, derive=lambda d: 3 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",), hypotheses=(_gap,), routes=(_route_ok,))
    v = verdicts_of(Registry([q]), [])["syn.thm"]
    assert v.verdict == "erratum" and v.root == ("syn.lemma",)


def test_partial_echo_scoped_correction_and_wording():
    def scoped(st, dep):
        return Check("function release is private", False, "exact", "disjoint supports", severity="invalid",
                     details={"error": "fr", "refutes_derived": True, "scope": "for one released value"})

    p = _paper()
    p.add("lemma1", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("fr", True),))
    # its own slip (a halved scale) beside the lemma's error: its own root that also rests on the lemma
    p.add("prop1", "Proposition 1", "noise", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper",
          params=("m",), checks=(scoped,), depends=("lemma1",))
    vs = verdicts_of(Registry([p]), [])
    v = vs["syn.prop1"]
    assert v.verdict == "refuted" and v.root == ("syn.prop1", "syn.lemma1")
    assert v.root_text == "own slip; also rests on syn.lemma1"
    assert not v.corrected and v.correction.startswith("the derived form is for one released value")
    assert v.reasons[0].startswith("printed form: stated vs derived")   # its own error first, the echo after
    assert v.regime.startswith("does not follow inside the paper's regime")   # a comparison, not a failure
    rows = {r["key"]: r for r in root_table(vs)}
    assert rows["syn.lemma1"]["downstream"] == [] and rows["syn.lemma1"]["rested_on_by"] == ["syn.prop1"]
    assert headline(vs)["errors"] == 2


def test_typo_and_remark_print_no_regime_failure():
    def typo(st, dep):
        return Check("sign", False, "symbolic", "exp(+|b|)", severity="typo")

    p = _paper()
    p.add("eq1", "Equation (1)", "noise", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), checks=(typo,))
    v = verdicts_of(Registry([p]), [])["syn.eq1"]
    assert v.verdict == "typo" and "fails" not in v.regime
