"""Each verdict rule of bounds.verdict on small synthetic statements (issue 11).

Every expected verdict follows from the rule in the module docstring applied by hand to a
two-line statement; none is read back from the code under test.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import sympy as sp

from bounds.core import Registry
from bounds.evidence import STATEMENT_VERDICTS, Check, Result
from bounds.paper import Paper
from bounds.symbols import Regime, S
from bounds.verdict import combine_results, root_table
from bounds.verdict import verdicts as verdicts_of
from verify.scan import scan_json, scan_text
from verify.stats import grade


def _paper(regime: Regime | None = None) -> Paper:
    return Paper("syn", title="Synthetic", citation="Doe, J.: Synthetic statements (2026)", regime=regime)


def _emp(verdict: str, statistic: float = 1.0, bound: float = 2.0, **kw) -> Result:
    return Result(key="syn.thm", evidence="empirical", kind="sensitivity", name="m=100", verdict=verdict,
                  statistic=statistic, lo=statistic, hi=statistic, bound=bound, confidence=1.0, n=10, **kw)


def _verdicts(p: Paper, evidence=()):
    return verdicts_of(Registry([p]), list(evidence))


def test_consistent_and_refuted_by_simulation():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    assert _verdicts(p)["syn.thm"].verdict == "consistent"
    v = _verdicts(p, [_emp("violated", 3.0, 2.0)])["syn.thm"]
    assert v.verdict == "refuted" and v.root == ("syn.thm",) and v.finding == "result"


def test_violation_outside_the_regime_does_not_refute():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    v = _verdicts(p, [_emp("violated", 3.0, 2.0, regime="outside")])["syn.thm"]
    assert v.verdict == "consistent"
    assert any("outside the paper's regime" in r for r in v.reasons)


def test_erratum_when_the_stated_bound_is_below_the_derived_one():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    v = _verdicts(p)["syn.thm"]
    assert v.verdict == "erratum" and v.corrected and v.root_text == "own slip"


def test_a_correction_violated_in_simulation_is_not_shown_as_one():
    p = _paper()
    p.add("thm", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    stated_only = _verdicts(p, [_emp("violated", 1.5, 1.0, details={"which": "stated"})])["syn.thm"]
    assert stated_only.verdict == "refuted" and stated_only.corrected
    both = _verdicts(p, [_emp("violated", 1.5, 1.0, details={"which": "stated"}),
                         _emp("violated", 2.5, 2.0, details={"which": "derived"})])["syn.thm"]
    assert both.verdict == "refuted" and not both.corrected
    assert any("no valid correction" in r for r in both.reasons)


def test_holds_in_regime_when_failing_only_outside_it():
    # stated 1/λ² ≥ derived 1/λ exactly when λ ≤ 1: inside the declared regime λ ≤ 1 it holds
    p = _paper(Regime(ranges={"lam": (0, 1)}, note="λ ≤ 1"))
    p.add("thm", "Theorem 1", "theorem", "q", 1 / S.lam**2, derive=lambda d: 1 / S.lam, relation="upper",
          params=("lam",))
    v = _verdicts(p)["syn.thm"]
    assert v.verdict == "regime", v.reasons
    assert "holds in the paper's regime; outside it" in v.regime and v.finding == "regime"
    # the same statement without a declared regime is an erratum
    q = _paper()
    q.add("thm", "Theorem 1", "theorem", "q", 1 / S.lam**2, derive=lambda d: 1 / S.lam, relation="upper",
          params=("lam",))
    assert _verdicts(q)["syn.thm"].verdict == "erratum"


def test_schedule_points_are_added_and_counted_inside():
    p = _paper(Regime(ranges={"lam": (0, 1)}, schedules=({"lam": S.m ** sp.Rational(-1, 3)},)))
    p.add("thm", "Theorem 1", "theorem", "q", 2 / (S.lam * S.m), derive=lambda d: 1 / (S.lam * S.m),
          relation="upper", params=("lam", "m"))
    from bounds.checks import domain_points

    pts, inside, scheduled = domain_points(p.get("thm"), {S.lam, S.m}, (), 200, key="syn")
    assert scheduled.sum() > 0 and inside[scheduled].all()   # λ set by the schedule; no other range
    m, lam = pts[S.m][scheduled], pts[S.lam][scheduled]
    np.testing.assert_allclose(lam, m ** (-1 / 3), rtol=1e-12)        # the schedule's own values
    assert 10 <= m.min() and m.max() <= 1e9                             # over the regime's span
    assert not inside[~scheduled][pts[S.lam][~scheduled] > 1].any()   # λ > 1 lies outside λ ≤ 1


def test_unsupported_from_a_gap_and_inherited_downstream():
    def gap(st, dep):
        return Check("hypothesis: loss is smooth", False, "symbolic", "the hinge loss is not smooth", severity="gap")

    p = _paper()
    p.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 1 / S.m, relation="upper", params=("m",),
          checks=(gap,))
    p.add("thm", "Theorem 1", "theorem", "q", 3 / S.m, derive=lambda d: 3 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",))
    vs = _verdicts(p)
    assert vs["syn.lemma"].verdict == "unsupported" and vs["syn.lemma"].root == ("syn.lemma",)
    assert vs["syn.thm"].verdict == "unsupported" and vs["syn.thm"].root == ("syn.lemma",)
    roots = root_table(vs)
    assert [r["key"] for r in roots] == ["syn.lemma"] and roots[0]["downstream"] == ["syn.thm"]


def test_inherited_erratum_counts_one_root():
    # the lemma's printed bound is too small by 2; the theorem multiplies the printed lemma by 3 correctly
    p = _paper()
    p.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    p.add("thm", "Theorem 1", "theorem", "q", 3 / S.m, derive=lambda d: 3 * d("lemma"), relation="upper",
          params=("m",), depends=("lemma",))
    vs = _verdicts(p)
    assert vs["syn.thm"].verdict == "erratum" and vs["syn.thm"].root == ("syn.lemma",)
    assert [r["key"] for r in root_table(vs)] == ["syn.lemma"]


def test_typo_exact_witness_and_cited_hypotheses():
    def typo(st, dep):
        return Check("density integrates to one", False, "symbolic", "exp(+|b|) diverges", severity="typo")

    def witness(st, dep):
        return Check("privacy", False, "exact", "two neighbours with disjoint supports", severity="invalid")

    def hyp_ok(st, dep):
        return Check("features bounded", True, "symbolic", "‖x‖ ≤ 1 by (2)")

    p = _paper()
    p.add("eq1", "Equation (1)", "noise", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",), checks=(typo,))
    p.add("prop", "Proposition 1", "proposition", "q", 1 / S.m, derive=lambda d: 1 / S.m, params=("m",),
          checks=(witness,))
    p.add("lemma", "Lemma 2", "lemma", "q", 1 / S.m, params=("m",), relation="none", cited="Hoeffding (1963)",
          hypotheses=(hyp_ok,))
    vs = _verdicts(p)
    assert vs["syn.eq1"].verdict == "typo" and vs["syn.eq1"].finding == "typographic"
    assert vs["syn.prop"].verdict == "refuted"
    assert vs["syn.lemma"].verdict == "cited" and "hypotheses checked: 1" in vs["syn.lemma"].reasons


def test_premise_order_unchecked_supported_tight():
    p = _paper()
    p.add("def", "Definition 1", "definition", "q", 1 / S.m, params=("m",), relation="none")
    p.add("ord", "Theorem 2", "order", "q", 1 / S.m, params=("m",), relation="none")
    p.add("thm", "Theorem 3", "theorem", "q", 1 / S.m, params=("m",), relation="none")
    p.add("tab", "Table 1", "equation", "placeholder", None)
    vs = _verdicts(p)
    assert [vs[k].verdict for k in ("syn.def", "syn.ord", "syn.thm", "syn.tab")] == [
        "premise", "order", "unchecked", "unchecked"]
    assert _verdicts(p, [_emp("holds")])["syn.thm"].verdict == "supported"
    q = _paper()
    q.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, derive=lambda d: 2 / S.m, relation="upper", params=("m",))
    attained = grade(_emp("inconclusive", 2.0, 2.0))
    assert attained.verdict == "holds" and attained.qualifier == "attained"
    assert _verdicts(q, [attained])["syn.thm"].verdict == "tight"


def test_precedence_is_the_documented_order():
    base = dict(statistic=3.0, lo=3.0, hi=3.0, bound=1.0, confidence=1.0)
    gap = Check("premise", False, "symbolic", "fails", severity="gap")
    err = Check("stated vs derived", False, "numeric", "fails", severity="invalid")
    typo = Check("typo", False, "symbolic", "fails", severity="typo")
    emp = Result(key="k", evidence="empirical", kind="risk", name="v", verdict="violated", **base)
    assert combine_results("k", "erratum", "theorem", [gap, err, typo, emp]).verdict == "refuted"
    assert combine_results("k", "erratum", "theorem", [gap, err, typo]).verdict == "unsupported"
    assert combine_results("k", "erratum", "theorem", [err, typo]).verdict == "erratum"
    assert combine_results("k", "erratum", "theorem", [typo]).verdict == "typo"
    assert combine_results("k", "erratum", "theorem", [err], derived_exists=False).verdict == "unsupported"
    assert set(STATEMENT_VERDICTS) >= {"refuted", "unsupported", "erratum", "typo", "regime", "consistent",
                                       "tight", "cited", "premise", "order", "unchecked"}


def test_ratio_only_of_finite_positive_values():
    r = Result(key="k", evidence="empirical", kind="risk", name="v", verdict="holds", statistic=-0.0003, bound=1.7)
    assert math.isnan(r.ratio) and r.as_row()["ratio"] is None
    r = Result(key="k", evidence="empirical", kind="sensitivity", name="v", verdict="holds", statistic=0.1, bound=0.0)
    assert math.isnan(r.ratio)


def test_rate_graded_against_the_bounds_own_grid_slope():
    m = np.array([1e2, 1e3, 1e4])
    from verify.stats import bound_slope

    grid = bound_slope(m, m**-0.5 * np.log(m))   # the bound's own slope: flatter than -1/2
    r = Result(key="k", evidence="empirical", kind="rate", name="v", verdict="violated", statistic=-0.4,
               lo=-0.45, hi=-0.36, bound=-0.5, confidence=0.95, details={"bound_slope": grid})
    assert grade(r).verdict == "holds" and r.qualifier == "faster than claimed"
    r = Result(key="k", evidence="empirical", kind="rate", name="v", verdict="violated", statistic=-0.4,
               lo=-0.45, hi=-0.36, bound=-0.5, confidence=0.95)
    assert grade(r).verdict == "inconclusive"   # only the asymptotic exponent: log factors not excluded
    r = Result(key="k", evidence="empirical", kind="rate", name="v", verdict="holds", statistic=-0.7,
               lo=-0.8, hi=-0.6, bound=-0.5, confidence=0.95)
    assert grade(r).reads == "holds (faster than claimed)"


@pytest.mark.parametrize("text,bad", [
    ("stated/derived = zoo", True), ("max ratio -0.0002", True), ("∫ p = polar_lift(t)", True),
    ("| iris | nan | nan |", True), ("ratio 0.169", False), ("Integral over nanoseconds", False),
])
def test_scan_finds_meaningless_numbers(text, bad):
    assert bool(scan_text(text, "r.md")) is bad


def test_scan_json():
    assert scan_json({"a": [{"ratio": -0.1}]}) and scan_json({"x": float("nan")}) and scan_json({"ratio": "nan"})
    assert not scan_json({"ratio": None, "b": [{"ratio": 0.5}], "s": "holds"})


def test_sup_norm_hypothesis_of_the_stepping_stone_function_fails_on_an_exact_instance():
    """(L_K + λI)⁻¹L_K f exceeds ‖f‖_∞ = 1 on three points (numpy, independent of the sympy helper)."""
    from bounds import registry

    K = np.array([[1, 0.7, 0], [0.7, 1, 0.7], [0, 0.7, 1]])
    assert np.linalg.eigvalsh(K).min() > 0
    f = np.array([-1.0, 1.0, 1.0])
    f_lam = np.linalg.solve(K / 3 + 0.01 * np.eye(3), K / 3 @ f)
    assert f_lam.max() == pytest.approx(1.2304535144670996, rel=1e-12)
    assert (0.9 * f_lam[2] + 1) ** 2 > 4  # least squares, y = −1 at x₃: above B_ρ = 4M²
    v = verdicts_of(registry, [])
    assert v["jia.s5_1.B_rho"].verdict == "refuted"
    # 5.2 prints ‖f_λ‖_∞ ≤ M outright: refuted, the same underlying error as 5.1's B_ρ (one root per paper)
    assert v["jia.s5_2.B_rho"].verdict == "refuted" and v["jia.s5_2.B_rho"].root == ("jia.s5_1.B_rho",)
    # 001's Proposition 4 uses the same failing step, but its statement holds by another route
    assert v["jamp.prop4.sample"].verdict == "gap" and v["jamp.prop4.sample"].truth == "holds by another route"
    assert "jia.s5_1.B_rho" not in v["jia.s5_1.bound"].root   # a harmless premise failure does not spread
    # jamp's Theorem 2 keeps its own (1 + 2ε) slip; the harmless gap adds no root
    assert v["jamp.thm2.bound"].verdict == "erratum" and v["jamp.thm2.bound"].root == ("jamp.thm2.bound",)
