"""Honest utility answers (issue 31): every utility bound declares its trivial ceiling, every pick/eval
answer says whether the bound is vacuous there and, where it is, where it stops being so (or why it never
does); pick optimises inside the paper's regime and its regime line describes the form it uses.

The thresholds are checked against the toolkit's own evaluations (the bound below the ceiling at the
printed m and not at m − 1) and against values computed here from the papers' formulas.
"""

from __future__ import annotations

import json
import math
import re
import warnings

import pytest

import bounds
from bounds import pick
from bounds.cli import main as cli_main
from bounds.core import PrivacyWarning
from bounds.verdict import Verdict

PAPERS = bounds.discover_papers()
SVM = dict(M=1, kappa=1, c_beta=1, beta=0.5)
JIA = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
SVM_ARGS = [f"{k}={v}" for k, v in SVM.items()]


@pytest.fixture(autouse=True)
def _quiet_privacy_warning():
    """ε = 1 is the users' example: the papers' 'ε < 1 for meaningful privacy' warning is expected here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyWarning)
        yield


# --------------------------------------------------------------------------- 1. every utility bound declares a ceiling
@pytest.mark.parametrize("paper", PAPERS, ids=[p.id for p in PAPERS])
def test_every_utility_bound_declares_its_ceiling_or_why_it_has_none(paper):
    selected = [st for st in paper.statements.values() if pick.is_utility_bound(st)]
    for st in selected:
        assert st.ceiling is not None or st.ceiling_why.strip(), f"{st.key}: no ceiling and no reason"
        assert st.ceiling_why.strip(), f"{st.key}: a ceiling without its reason"
        if st.ceiling is not None:
            names = {pick.P_name(s, st.ns) for s in st.ceiling.free_symbols}
            assert names <= set(st.params) | set(paper.symbols), (st.key, names)
    # the rule selects every pickable bound, and nothing that is not a bound on a release's utility
    for k in pick.pickable_keys(paper.id):
        assert pick.is_utility_bound(paper.statements[k]), k
    for st in paper.statements.values():
        if st.kind in ("noise", "definition", "assumption", "schedule"):
            assert not pick.is_utility_bound(st), st.key


def test_the_rule_selects_the_utility_theorems_of_the_seed_papers():
    reg = bounds.registry
    for key in ("jia.s5_2.bound", "jia.thm4", "jamp.thm3.bound", "jcc.thm2", "pr.thm5_3", "ttz.fw.lasso_explicit"):
        assert pick.is_utility_bound(reg.get(key)), key
    for key in ("jia.prop1.scale", "pr.thm5_1", "ttz.thm3_1", "jia.thm2"):
        assert not pick.is_utility_bound(reg.get(key)), key


def test_a_ceiling_without_a_reason_or_with_an_unknown_symbol_is_refused():
    import sympy as sp

    from bounds.paper import Paper

    demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
    with pytest.raises(ValueError, match="ceiling_why"):
        demo.add("thm1", "Theorem 1", "theorem", "excess risk", 1 / bounds.symbols.S.m, relation="upper",
                 params=("m",), ceiling=1, doc="Doe (2026), Theorem 1.")
    with pytest.raises(ValueError, match="unknown: zz"):
        demo.add("thm2", "Theorem 2", "theorem", "excess risk", 1 / bounds.symbols.S.m, relation="upper",
                 params=("m",), ceiling=sp.Symbol("zz"), ceiling_why="x", doc="Doe (2026), Theorem 2.")


def test_the_ceiling_survives_the_light_copies_of_the_command_line(tmp_path):
    from bounds.snapshot import Store

    store = Store(tmp_path)
    reg = bounds.registry
    for p in reg.papers.values():
        assert store.put_paper(p)
    store.put_index(list(reg.papers))
    light = store.light_registry()
    assert light is not None
    for k in reg.keys():
        st, lt = reg.get(k), light.get(k)
        assert (lt.ceiling, lt.ceiling_why) == (st.ceiling, st.ceiling_why), k


# --------------------------------------------------------------------------- 2. vacuous answers say so, and why
def test_svm_bound_at_eps_1_is_vacuous_forever_with_the_threshold_log_1_5():
    o = pick.optimise("jia.s5_2.bound", 20_000, eps=1, evidence=[], **SVM)
    assert o.bound > 1.9 and o.ceiling == 1 and o.vacuous is True
    # the m-free part of the derived bound at λ → 0 is √(2B₀(e^ε − 1)) with B₀ = 1: ≥ 1 iff ε ≥ log 1.5
    assert o.nonvacuous_m is None and "exp(eps)" in o.blocking_term
    assert o.eps_threshold == pytest.approx(math.log(1.5), rel=1e-6)
    assert "VACUOUS" in o.vacuity and "0.405465" in o.vacuity
    # the largest useful ε at this m is a real boundary of the toolkit's own evaluation
    e = o.max_useful_eps
    assert e is not None and 0 < e < math.log(1.5)
    assert pick.value_at("jia.s5_2.bound", 20_000, e, evidence=[], **SVM) < 1
    assert pick.value_at("jia.s5_2.bound", 20_000, e * (1 + 1e-5), evidence=[], **SVM) >= 1
    # and the 'never': far beyond any sample size just above the threshold, still ≥ 1; below it, reachable
    assert pick.value_at("jia.s5_2.bound", 1e15, math.log(1.5) * 1.001, evidence=[], **SVM) >= 1
    assert pick.min_m("jia.s5_2.bound", 0.999, eps=math.log(1.5) * 0.9, evidence=[], **SVM) > 0


@pytest.mark.parametrize("key, consts", [("jia.s5_1.bound", SVM),
                                         ("jamp.thm3.bound", dict(M=1, kappa=1, r=0.5, fnorm=1))])
def test_least_squares_bounds_worse_than_predicting_zero_are_flagged(key, consts):
    o = pick.optimise(key, 20_000, eps=1, evidence=[], **consts)
    assert o.ceiling == pytest.approx(consts["M"] ** 2) and o.bound >= o.ceiling and o.vacuous
    assert o.nonvacuous_m is None and o.eps_threshold is not None
    # the threshold is where the m-free part alone reaches M²: just above it the bound stays ≥ M² at m = 1e15
    assert pick.value_at(key, 1e15, o.eps_threshold * 1.001, evidence=[], **consts) >= o.ceiling
    assert pick.value_at(key, 1e15, o.eps_threshold * 0.9, evidence=[], **consts) < o.ceiling


def test_the_paper_schedule_threshold_is_the_first_non_vacuous_m():
    p = pick.paper_schedule("jia.s5_1.bound", 50_000, evidence=[], **SVM)
    assert p.vacuous and p.nonvacuous_m is not None
    n = p.nonvacuous_m
    assert pick.paper_schedule("jia.s5_1.bound", n, evidence=[], **SVM).bound < 1
    assert pick.paper_schedule("jia.s5_1.bound", n - 1, evidence=[], **SVM).bound >= 1


def test_fixed_eps_threshold_is_the_first_non_vacuous_m():
    v = pick.value_at("jia.s5_2.bound", 300, 0.2, evidence=[], **SVM)
    assert v.vacuous and v.nonvacuous_m is not None and not v.vacuity.never
    n = v.nonvacuous_m
    assert pick.value_at("jia.s5_2.bound", n, 0.2, evidence=[], **SVM) < 1
    assert pick.value_at("jia.s5_2.bound", n - 1, 0.2, evidence=[], **SVM) >= 1


def test_a_non_vacuous_answer_says_so():
    o = pick.optimise("jia.thm4", 10_000, evidence=[], **JIA)
    assert o.vacuous is False and o.ceiling == 1 and o.vacuity.startswith("not vacuous")
    assert o.nonvacuous_m is None and o.blocking_term == ""


def test_unreachable_target_names_the_m_free_term_and_the_reachable_eps_range():
    with pytest.raises(ValueError) as exc:
        pick.min_m("jia.s5_2.bound", 0.5, eps=1, evidence=[], **SVM)
    text = str(exc.value)
    assert "not reached" in text and "nor at any m" in text and "exp(eps)" in text
    # √(2(e^ε − 1)) < 0.5  ⇔  ε < log(1.125)
    thr = float(re.search(r"reachable at all only for eps < ([0-9.e-]+)", text).group(1))
    assert thr == pytest.approx(math.log(1.125), rel=1e-5)
    with pytest.raises(ValueError, match=r"reachable only for eps < "):
        pick.min_eps("jia.s5_2.bound", 0.05, m=20_000, evidence=[], **SVM)


def test_a_target_at_or_above_the_ceiling_is_a_vacuous_answer():
    n = pick.min_m("jia.s5_2.bound", 1.5, eps=0.5, evidence=[], **SVM)
    assert n.vacuous is True and n.ceiling == 1
    assert pick.min_m("jia.s5_2.bound", 0.9, eps=0.1, evidence=[], **SVM).vacuous is False


def test_eval_says_whether_the_value_is_vacuous_and_from_which_m_it_is_not():
    v = pick.value_vacuity("jia.s5_2.rate", {"C_tilde": 10, "m": 100, "beta": 0.5}, 10 * 100 ** -0.125)
    n = v.nonvacuous_m
    # C̃ m^(−β/(2(2β+1))) = 10 m^(−1/8) < 1  ⇔  m > 10⁸
    assert v.vacuous and n == 10**8 + 1
    assert bounds.value("jia.s5_2.rate", C_tilde=10, m=n, beta=0.5) < 1 <= bounds.value(
        "jia.s5_2.rate", C_tilde=10, m=n - 1, beta=0.5)


def test_cli_pick_and_eval_print_the_vacuity_in_text_and_json(capsys):
    args = ["pick", "jia.s5_2.bound", "--m", "20000", "--eps", "1", *SVM_ARGS]
    assert cli_main(args) == 0
    out = capsys.readouterr().out
    assert "VACUOUS (optimised): 1.97851 ≥ the ceiling 1" in out and "eps ≥ 0.405465" in out
    assert cli_main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["vacuous"] is True and d["ceiling"] == 1
    assert d["optimised"]["vacuous"] is True and d["optimised"]["nonvacuous_m"] is None
    assert "exp(eps)" in d["optimised"]["blocking_term"]
    assert d["optimised"]["eps_threshold"] == pytest.approx(math.log(1.5), rel=1e-6)
    assert cli_main(["pick", "jia.s5_2.bound", "--target", "0.5", "--eps", "1", *SVM_ARGS]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "reachable at all only for eps < 0.117783" in err
    assert cli_main(["eval", "jia.s5_2.rate", "C_tilde=10", "m=100", "beta=0.5"]) == 0
    assert "VACUOUS: 5.62341 ≥ the ceiling 1" in capsys.readouterr().out
    assert cli_main(["eval", "jia.s5_2.rate", "C_tilde=10", "m=100", "beta=0.5", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["vacuous"] is True and d["vacuity"]["nonvacuous_m"] == 10**8 + 1


# --------------------------------------------------------------------------- 3. inside the paper's regime
def test_pick_stays_inside_the_papers_regime_and_reports_the_unconstrained_optimum(capsys):
    o = pick.optimise("jia.thm4", 1e300, eps=1e-300, evidence=[], **JIA)
    u = pick.optimise("jia.thm4", 1e300, eps=1e-300, regime=False, evidence=[], **JIA)
    assert o.lam <= 1 < u.lam and u.bound < o.bound
    assert o.outside_regime["lam"] == pytest.approx(u.lam) and o.outside_regime["bound"] == pytest.approx(u.bound)
    assert u.outside_regime == {}
    # inside the regime the answer is the best λ ≤ 1 (the bound falls towards λ = 1 here)
    assert o.bound <= pick.value_at("jia.thm4", 1e300, 1e-300, lam=0.9, evidence=[], **JIA)
    assert cli_main(["pick", "jia.thm4", "--m", "1e300", "--eps", "1e-300", *[f"{k}={v}" for k, v in JIA.items()]]) == 0
    out = capsys.readouterr().out
    assert "lambda = 1  bound" in out and "outside the paper's regime" in out
    with pytest.raises(ValueError, match="regime"):
        pick.optimise("jia.thm4", 1e4, regime="yes", **JIA)


# --------------------------------------------------------------------------- 4. the regime line of the form used
def test_regime_line_describes_the_derived_form_when_it_is_used():
    b = pick.basis("jia.s5_2.bound", evidence=[])
    v = pick.statement_verdict("jia.s5_2.bound", evidence=[])
    assert b.form == "derived" and b.regime.startswith("derived form used: ")
    assert v.regime and b.regime.endswith(f"printed form: {v.regime}")
    s = pick.basis("jia.s5_2.bound", which="stated", allow_unverified=True, evidence=[])
    assert s.regime == v.regime


# --------------------------------------------------------------------------- 5. discoverability
def test_did_you_mean_for_pick_names_the_valid_pickable_key_first():
    with pytest.raises(ValueError) as exc:
        pick.pickable("jia.s5_2")
    text = str(exc.value)
    mean = text.split("did you mean ", 1)[1].split("?", 1)[0]
    assert mean.split(", ")[0] == "jia.s5_2.bound"


def test_a_refused_pick_names_a_private_alternative(monkeypatch):
    bad = Verdict(key="jia.thm4.bound", verdict="refuted", truth="false", corrected=False,
                  correction="none: the derived form is refuted too (test)")
    monkeypatch.setattr(pick, "statement_verdict", lambda key, evidence=None: bad)
    with pytest.raises(pick.UnverifiedError) as exc:
        pick.optimise("jia.thm4", 10_000, **JIA)
    refusal, _, alternative = str(exc.value).partition("computes it anyway, with a warning); ")
    assert "no form of it is established" in refusal
    # the alternative is bounds.calibrate.private_alternative's (here every mechanism is refused as well, so only
    # the plain Laplace mechanism remains)
    assert re.search(r"python -m bounds (calibrate|noise laplace) ", alternative), alternative


def test_optimised_threshold_is_the_first_m_where_some_eps_is_non_vacuous():
    o = pick.optimise("jia.thm4", 300, evidence=[], **JIA)
    assert o.vacuous and o.nonvacuous_m is not None
    n = o.nonvacuous_m
    assert pick.optimise("jia.thm4", n, evidence=[], **JIA).bound < 1
    assert pick.optimise("jia.thm4", n - 1, evidence=[], **JIA).bound >= 1


def test_paper_row_at_a_given_eps_says_never_with_the_blocking_term():
    # referee finding 5: at ε = 1 the paper's row said "at or above the ceiling for every m ≤ 1e12", though the
    # m-free term makes it vacuous at every m, as the optimised row says
    p = pick.paper_schedule("jia.s5_2.bound", 20_000, eps=1, evidence=[], **SVM)
    assert p.vacuous
    text = p.vacuity_explanation
    assert "never below it, at any m" in text and "eps = 1, given" in text and "for every m ≤" not in text
    assert "2*exp(eps) - 2" in text                                   # the blocking m-free term
    floor = math.sqrt(2 * (math.e - 1))                                # √(2B₀(e^ε − 1)), B₀ = 1, ε = 1
    assert f"{floor:.6g}" in text
    assert p.eps_threshold == pytest.approx(math.log(1.5), rel=1e-6)   # 2(e^ε − 1) ≥ 1 iff ε ≥ log 1.5
    # and the claim is true: far beyond any sample size, the paper's schedule at ε = 1 stays above the ceiling
    assert pick.paper_schedule("jia.s5_2.bound", 1e15, eps=1, evidence=[], **SVM).bound >= floor > 1


def test_schedule_eps_is_fixed_only_where_it_does_not_move_with_m():
    st = bounds.registry.get("jia.s5_2.bound")
    # Section 5.2's schedule moves ε with m (ε → 0): no m-free analysis for its paper row without a given ε
    eps = [pick.paper_schedule("jia.s5_2.bound", m, evidence=[], **SVM).eps for m in (2e4, 2e7)]
    assert eps[0] != eps[1]
    assert pick._schedule_eps_fixed(st, 2e4, "derived", dict(SVM), {}) is None
    assert pick._schedule_eps_fixed(st, 2e4, "derived", dict(SVM), {"eps": 0.5}) == 0.5
