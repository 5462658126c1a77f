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


# ---------------------------------------------------------------- issue 34: rules that generalise
def _fails(name: str, slug: str, kind: str = "exact", severity: str = "invalid", **details):
    def fn(st, dep):
        return Check(name, False, kind, "a hand-made failure", severity=severity, details={"error": slug, **details})
    return fn


def _two_lemmas(pid: str) -> Paper:
    """Lemma A is false (an exact witness, slug "a"); equation (3), B, a step of a proof, prints a constant half
    what its proof gives (stated 1/m, derived 2/m, slug "b")."""
    p = _paper(pid)
    p.add("a", "Lemma A", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_fails("witness against A", "a"),))
    p.add("b", "Equation (3)", "equation", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",),
          errors={"stated vs derived": "b"})
    return p


def test_a_co_root_whose_correction_changes_nothing_is_no_effect_not_a_root():
    # Theorem T carries both errors: A's witness (it is false whatever B says) and B's constant.  With B corrected
    # T is still refuted (A's witness): B does not cause it.  With A corrected T is an erratum: A does.
    p = _two_lemmas("syn")
    p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), depends=("a", "b"),
          checks=(_fails("A's witness in T", "a"), _fails("B's constant in T", "b", kind="symbolic",
                                                           severity="mismatch")))
    vs = verdicts_of(Registry([p]), [])
    t = vs["syn.t"]
    assert t.verdict == "refuted" and t.root == ("syn.a",) and t.no_effect == ("syn.b",)
    assert t.root_test == "counterfactual" and t.root_text == "inherited from syn.a; also rests on syn.b (no effect here)"
    rows = {r["key"]: r for r in root_table(vs)}
    assert rows["syn.a"]["downstream"] == ["syn.t"] and rows["syn.b"]["downstream"] == []
    # B's slip changes no result (its one use, T, has the same outcome without it): counted apart, and says so
    assert (vs["syn.a"].count_as, vs["syn.b"].count_as) == ("false", "changes no result")
    h = headline(vs)
    assert (h["errors"], h["false"], h["does_not_follow"], h["no_effect"]) == (1, 1, 0, 1)


def test_only_a_step_is_counted_apart_a_stated_lemma_or_calibration_always_counts():
    # the same slip as B, printed as a lemma or as a noise calibration rather than an intermediate equation: with
    # T refuted by A's witness either way, the counterfactual finds no effect on T, but a stated lemma or a
    # calibration a user applies is a result in itself: "does not follow", counted
    for kind in ("lemma", "noise", "equation"):
        p = _paper("syn")
        p.add("a", "Lemma A", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
              checks=(_fails("witness against A", "a"),))
        p.add("b", "B", kind, "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",),
              errors={"stated vs derived": "b"})
        p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
              depends=("a", "b"), checks=(_fails("A's witness in T", "a"),
                                          _fails("B's constant in T", "b", kind="symbolic", severity="mismatch")))
        vs = verdicts_of(Registry([p]), [])
        assert vs["syn.t"].no_effect == ("syn.b",)
        expected = "changes no result" if kind == "equation" else "does not follow"
        assert vs["syn.b"].count_as == expected, kind
        assert headline(vs)["errors"] == (1 if kind == "equation" else 2)


def test_a_root_whose_correction_changes_the_outcome_is_kept_and_overdetermination_keeps_all():
    p = _two_lemmas("syn")
    # U rests on B alone: with B corrected it would hold, so B is its root and B's slip changes a result
    p.add("u", "Theorem 2", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), depends=("b",),
          checks=(_fails("B's constant in U", "b", kind="symbolic", severity="mismatch"),))
    # W is refuted by A's witness and, independently, by an audit of B's constant: either alone refutes it
    p.add("w", "Theorem 3", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), depends=("a", "b"),
          checks=(_fails("A's witness in W", "a"),))
    audit = Result(key="syn.w", evidence="audit", kind="privacy", name="B's constant audited", verdict="violated",
                   statistic=2.0, lo=2.0, hi=2.0, bound=1.0, confidence=0.95, n=1000, details={"error": "b"})
    vs = verdicts_of(Registry([p]), [audit])
    u, w = vs["syn.u"], vs["syn.w"]
    assert u.verdict == "erratum" and u.root == ("syn.b",) and u.no_effect == () and u.root_test == "counterfactual"
    assert w.verdict == "refuted" and set(w.root) == {"syn.a", "syn.b"} and w.no_effect == ()
    assert "only together" in w.root_test
    assert vs["syn.b"].count_as == "does not follow"          # U's outcome depends on it
    h = headline(vs)
    assert (h["errors"], h["false"], h["does_not_follow"], h["no_effect"]) == (2, 1, 1, 0)
    assert "changes no result" in h["rule"] and "does not follow" in h["rule"]


def test_one_counting_rule_whatever_the_verdict_word():
    # an own unsupported root (its proof's premise fails, no route) is a printed form that does not follow:
    # counted like an erratum; a gap with a route, a typo and a failure outside the regime are listed, not counted
    def typo(st, dep):
        return Check("sign", False, "symbolic", "exp(+|b|) cannot be meant", severity="typo")

    p = _paper(regime=Regime(ranges={"lam": (0, 1)}))
    p.add("open", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          hypotheses=(_gap,))
    p.add("err", "Theorem 2", "theorem", "q", 1 / S.m, derive=lambda d: 3 / S.m, relation="upper", params=("m",))
    p.add("false", "Theorem 3", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_witness("x"),))
    p.add("gap", "Theorem 4", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          hypotheses=(_gap,), routes=(_route_ok,))
    p.add("typo", "Equation (1)", "equation", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), checks=(typo,))
    p.add("reg", "Theorem 5", "theorem", "q", 1 / S.lam**2, derive=lambda d: 1 / S.lam, relation="upper",
          params=("lam",))
    vs = verdicts_of(Registry([p]), [])
    got = {k.split(".")[1]: (v.verdict, v.count_as) for k, v in vs.items()}
    assert got == {"open": ("unsupported", "does not follow"), "err": ("erratum", "does not follow"),
                   "false": ("refuted", "false"), "gap": ("gap", ""), "typo": ("typo", ""), "reg": ("regime", "")}
    h = headline(vs)
    assert (h["errors"], h["false"], h["does_not_follow"], h["open"]) == (3, 1, 2, 1)
    assert (h["gaps"], h["typographic"], h["regime"], h["no_effect"]) == (1, 1, 1, 0)
    assert [r["count_as"] for r in root_table(vs)][:3] == ["false", "does not follow", "does not follow"]


def _reading_lemma(p: Paper) -> None:
    p.add("lem", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",),
          readings={"one": "one release", "all": "every release"})


def test_a_dependent_inherits_the_reading_of_what_it_rests_on():
    p = _paper()
    _reading_lemma(p)
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 * d("lem"), relation="upper",
          params=("m",), depends=("lem",))
    p.add("cor", "Corollary 1", "corollary", "q", 4 / S.m, derive=lambda d: 2 * d("thm"), relation="upper",
          params=("m",), depends=("thm",))
    # under the reading "all" an audit refutes the lemma and its derived form too: no valid correction
    row = _emp("syn.lem", "violated", 3.0, 2.0, details={"reading": "all", "which": "derived"})
    vs = verdicts_of(Registry([p]), [row])
    assert vs["syn.lem"].readings == {"one": "consistent", "all": "refuted"}
    thm, cor = vs["syn.thm"], vs["syn.cor"]
    assert thm.verdict == "consistent"                      # the encoded reading decides
    assert thm.readings == {"syn.lem: one": "consistent", "syn.lem: all": "unsupported"} and thm.reading_dependent
    assert thm.upstream == {"syn.lem": "reading-dependent"}
    assert any("depends on the reading of syn.lem" in r for r in thm.reasons)
    assert cor.readings == {"syn.lem: one": "consistent", "syn.lem: all": "unsupported"}   # carried on
    # the same theorem on a lemma that reads one way only inherits nothing
    q = _paper()
    q.add("lem", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",))
    q.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 * d("lem"), relation="upper",
          params=("m",), depends=("lem",))
    v = verdicts_of(Registry([q]), [_emp("syn.lem", "holds", 0.5, 2.0)])["syn.thm"]
    assert v.readings == {} and v.upstream == {}


def test_a_dependent_says_its_proof_goes_through_only_given_an_upstream_gap():
    p = _paper()
    p.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",),
          hypotheses=(_gap,), routes=(_route_ok,))
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",))
    p.add("cor", "Corollary 1", "corollary", "q", 4 / S.m, derive=lambda d: 2 * d("thm"), relation="upper",
          params=("m",), depends=("thm",))
    vs = verdicts_of(Registry([p]), [])
    assert vs["syn.lemma"].verdict == "gap"
    for k in ("syn.thm", "syn.cor"):
        v = vs[k]
        assert v.verdict == "consistent" and v.upstream == {"syn.lemma": "gap"}, k
        assert v.proof == "goes through given syn.lemma, whose proof has a gap (syn.lemma holds by another route)"
    q = _paper()   # no gap upstream: plain "goes through"
    q.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",))
    q.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",))
    v = verdicts_of(Registry([q]), [])["syn.thm"]
    assert v.proof == "goes through" and v.upstream == {}


def test_a_placeholder_is_unchecked_and_says_nothing_holds():
    p = _paper()
    p.add("thm9", "Theorem 9", "theorem", "q", None)        # the paper's form is not encoded: a placeholder
    v = verdicts_of(Registry([p]), [_emp("syn.thm9", "holds", 0.5, 1.0)])["syn.thm9"]
    assert v.verdict == "unchecked" and v.regime == "" and v.proof == "" and not v.is_finding
    words = " ".join([v.text, v.truth, v.proof, v.regime, v.constant, v.correction, *v.reasons])
    assert "holds" not in words and "placeholder" in words
    # the same evidence on a statement with a printed form supports it
    q = _paper()
    q.add("thm9", "Theorem 9", "theorem", "q", 1 / S.m, params=("m",), relation="none")
    assert verdicts_of(Registry([q]), [_emp("syn.thm9", "holds", 0.5, 1.0)])["syn.thm9"].verdict == "supported"


# --------------------------------------------------------------------------- issue 34 items 3 and 5: data rules
def _halved(pid: str, correction: dict | None) -> Registry:
    """A theorem printing 1/m where its proof gives 2/m (a printed constant that does not follow), with or
    without a smallest correction on the failing comparison."""
    p = _paper(pid)
    tags = {"stated vs derived": {"smallest_correction": correction}} if correction is not None else {}
    p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",),
          tags=tags)
    return Registry([p])


S1 = {"tight": {"factor": 1.5, "tool": "exact supremum", "text": "x 1.5 at m = 10"},
      "proof": {"factor": 2, "text": "x 2 (the proof's own triangle inequality)"},
      "printed_violated": {"answer": "yes", "evidence": "an exact instance"}}


def test_a_counted_printed_form_that_does_not_follow_carries_the_smallest_correction():
    from bounds.rules import correction_problems

    for correction, broken in ((None, True), ({"proof": S1["proof"]}, True), (S1, False)):
        reg = _halved("syn", correction)
        vs = verdicts_of(reg, [])
        assert vs["syn.t"].count_as == "does not follow"      # an erratum root, counted
        problems = correction_problems(reg, vs)
        assert bool(problems) == broken, (correction, problems)
    # only the proof's factor: the rule names the missing tight part and the missing violation status
    vs = verdicts_of(_halved("syn", {"proof": S1["proof"]}), [])
    (msg,) = correction_problems(None, vs)
    assert "no tight part" in msg and "no printed_violated part" in msg


def test_a_relaxed_premise_must_be_a_parameter_with_its_paper_value_in_its_domain():
    from bounds.rules import relaxation_problems

    p = _paper("syn")
    kept = p.add("k", "Lemma 1", "lemma", "sensitivity", 2 * S.kappa / S.m, params=("kappa", "m"),
                 relaxes={"kappa": (1, "feature norm <= kappa")})
    idle = p.add("i", "Lemma 2", "lemma", "sensitivity", 2 / S.m, params=("kappa", "m"),
                 relaxes={"kappa": (1, "feature norm <= kappa")})          # kappa does not enter: relaxes nothing
    outside = p.add("o", "Lemma 3", "lemma", "sensitivity", 2 * S.kappa / S.m, params=("kappa", "m"),
                    relaxes={"kappa": (-1, "feature norm <= kappa")})       # kappa > 0 is its domain
    assert relaxation_problems([kept]) == []
    assert len(relaxation_problems([idle])) == 1 and "not a parameter" in relaxation_problems([idle])[0]
    assert len(relaxation_problems([outside])) == 1 and "violates its domain" in relaxation_problems([outside])[0]


def test_every_paper_keeps_the_data_rules():
    import bounds
    from bounds.rules import _compares_printed, correction_problems, relaxation_problems

    reg = bounds.registry
    vs = verdicts_of(reg, [])
    assert correction_problems(reg, vs) == []
    # the rule is not vacuous: counted roots with a failing printed form exist in several papers
    covered = {k.split(".")[0] for k, v in vs.items() if v.count_as in ("false", "does not follow")
               and k in v.root and any(_compares_printed(r) for r in v.evidence)}
    assert len(covered) >= 4
    sts = [reg.get(k) for k in reg.keys()]
    assert sum(1 for st in sts if st.relaxes) >= 10
    assert relaxation_problems(sts, {k: reg.evaluate(k).derived for k in reg.keys()}) == []


def test_a_finding_inherited_from_a_dependency_carries_its_no_effect_co_roots():
    # T: root A, B no effect (the first test above).  U restates T's failing checks only (an echo of T): its
    # outcome is T's, so B, which does not change T's outcome, is named as no effect for U too
    p = _two_lemmas("syn")
    t_checks = (_fails("A's witness in T", "a"), _fails("B's constant in T", "b", kind="symbolic", severity="mismatch"))
    p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), depends=("a", "b"),
          checks=t_checks)
    p.add("u", "Corollary 1", "corollary", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), depends=("t",),
          checks=t_checks)
    vs = verdicts_of(Registry([p]), [])
    assert vs["syn.t"].no_effect == ("syn.b",)
    u = vs["syn.u"]
    assert u.verdict == "refuted" and u.root == ("syn.a",) and "syn.b" in u.no_effect
    assert "syn.b" not in u.root and not u.is_root


def test_the_regime_cell_is_told_by_the_deciding_evidence_and_an_open_statement_blames_its_proof():
    # T is refuted by A's witness; B's slip (no effect on T) fails at 3 of 100 sampled points: that count is B's,
    # not where T fails
    pts = {"failures_inside": 3, "inside": 100, "failures_outside": 0, "outside": 0, "evaluated": 100,
           "finite": 100, "scheduled": 0, "failures_scheduled": 0}
    p = _two_lemmas("syn")
    p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), depends=("a", "b"),
          checks=(_fails("A's witness in T", "a"),
                  _fails("B's constant in T", "b", kind="numeric", severity="mismatch", points=pts)))
    t = verdicts_of(Registry([p]), [])["syn.t"]
    assert t.no_effect == ("syn.b",) and "3 of 100" not in t.regime and "inside the paper's regime" in t.regime
    # an open statement (its proof's premise fails, no route): the cell names its proof, not the statement
    q = _paper("syn")
    q.add("o", "Theorem 2", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(_fails("a premise of the proof", "o", severity="gap"),))
    o = verdicts_of(Registry([q]), [])["syn.o"]
    assert o.verdict == "unsupported"
    assert o.regime.startswith("a step of its proof fails") and "neither refuted nor proved" in o.regime


def test_a_gap_upstream_is_named_even_when_the_statement_has_a_failing_step_of_its_own():
    p = _paper("syn")
    p.add("g", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",),
          checks=(_gap,), routes=(_route_ok,))
    # T rests on the gap and has its own slip (its printed constant is half what its proof gives)
    p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",),
          depends=("g",), checks=(_fails("T's own step", "t", kind="symbolic", severity="mismatch"),))
    t = verdicts_of(Registry([p]), [])["syn.t"]
    assert t.verdict == "erratum" and t.upstream.get("syn.g") == "gap"
    assert "a step fails" in t.proof and "syn.g, whose proof has a gap" in t.proof


def test_a_placeholder_is_tallied_as_such_not_by_its_kind():
    p = _paper("syn")
    p.add("row", "Table 1", "order", "a rate claimed in a table", None)
    p.add("t", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",))
    reg = Registry([p])
    row, t = reg.evaluate("syn.row"), reg.evaluate("syn.t")
    assert row.placeholder and row.shown_status == "placeholder" and row.status == "order"
    assert not t.placeholder and t.shown_status == t.status
    assert verdicts_of(reg, [])["syn.row"].verdict == "unchecked"
