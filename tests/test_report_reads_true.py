"""The report reads true (issue 34, item 7): its words, figures and README agree with its numbers.

One test (or a few) per rule, on constructed inputs (a tiny summary, constructed result rows and
verdicts) and, where the rule is a property of the committed report, on ``reports/summary.json``.
Figures are checked by reading the saved matplotlib objects (:func:`verify.figures.keep_figures`),
not pixels.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from bounds.evidence import Result
from verify import report as R
from verify.scan import scan_text

ROOT = Path(__file__).resolve().parents[1]
SUMMARY = ROOT / "reports" / "summary.json"


def tiny_summary(**head) -> dict:
    """A summary of one paper: a refuted root with evidence, an inconclusive rate, a violated audit."""
    return {
        "headline": {"errors": 1, "echoes": 0, **head},
        "roots": [{"key": "zz.lemma1", "finding": "result", "reads": "refuted", "truth": "false",
                   "correction": "established: the derived form passes every check",
                   "reasons": ["exact counterexample: 4/5 > 6/25 on an exact instance"],
                   "no_effect": ["zz.prop3"], "count_as": "false",
                   "smallest_correction": {
                       "proof": {"factor": 2.0, "text": "double the scale"},
                       "tight": {"factor": 1.56, "tool": "pld_epsilon", "text": "1.56 times the scale"},
                       "printed_violated": {"answer": "yes", "evidence": "audit ε_lower 1.42 > 1"}}}],
        "statements": [{"key": "zz.lemma1", "paper": "zz", "label": "Lemma 1", "verdict": "refuted",
                        "reads": "refuted"},
                       {"key": "zz.thm2", "paper": "zz", "label": "Theorem 2", "verdict": "consistent",
                        "reads": "consistent"}],
        "empirical": [{"key": "zz.thm2", "kind": "rate", "name": "smooth", "verdict": "inconclusive",
                       "statistic": -0.2035, "lo": -0.2355, "hi": -0.1716, "bound": -0.25, "confidence": 0.95,
                       "details": {}, "regime": ""}],
        "audits": [{"key": "zz.lemma1", "kind": "privacy", "name": "value", "verdict": "violated",
                    "statistic": 1.42, "bound": 1.0, "confidence": 0.95}],
    }


# --- README's findings are generated from summary.json ------------------------------------------------

def test_readme_block_is_what_the_committed_summary_generates():
    block = R.readme_block(ROOT / "README.md")
    assert block is not None, "README.md has no generated findings block"
    assert block == R.readme_findings(json.loads(SUMMARY.read_text(encoding="utf-8")))


def test_readme_block_carries_the_summarys_numbers_and_words():
    s = tiny_summary(false=1, does_not_follow=0, no_effect=1, rule="the one rule, stated")
    text = R.readme_findings(s)
    assert text.startswith("**1 underlying error** (rule: the one rule, stated; 1 false statement; "
                           "0 printed forms that do not follow)")
    assert "1 false claim that changes no result" in text
    assert "also rests on `zz.prop3` (no effect here)" in text
    # a changed number in the summary changes the README
    s2 = tiny_summary()
    s2["audits"][0]["statistic"] = 2.5
    assert "ε_lower 1.42" in text and "ε_lower 2.5" in R.readme_findings(s2)
    # the inconclusive rate says why, from its own numbers
    assert ("inconclusive: `zz.thm2` smooth (slope -0.203 [-0.235, -0.172] vs -0.25: the 95% interval "
            "[-0.2355, -0.1716] lies above the claimed slope -0.25") in text


def test_update_readme_rewrites_only_between_the_markers(tmp_path):
    p = tmp_path / "README.md"
    p.write_text(f"# t\n\nbefore\n{R.README_BEGIN}\nstale claim: 16 errors\n{R.README_END}\nafter\n")
    assert R.update_readme(p, tiny_summary()) is True
    text = p.read_text()
    assert text.startswith("# t\n\nbefore\n") and text.endswith(f"{R.README_END}\nafter\n")
    assert "stale claim" not in text and R.readme_block(p) == R.readme_findings(tiny_summary())
    assert R.update_readme(p, tiny_summary()) is False          # unchanged: not rewritten
    q = tmp_path / "other.md"
    q.write_text("no markers\n")
    assert R.update_readme(q, tiny_summary()) is False and q.read_text() == "no markers\n"


# --- an inconclusive check says why; the rate tick names the printed bound's exponent -------------------

def rate_row(lo: float, hi: float, stat: float, bound: float = -0.25, **details) -> Result:
    return Result(key="jcc.thm2", evidence="empirical", kind="rate", name="smooth r=1", verdict="inconclusive",
                  statistic=stat, lo=lo, hi=hi, bound=bound, confidence=0.95, n=336, method="slope",
                  details={"T": [100, 200, 400, 800], "mean": [1.9, 1.5, 1.3, 1.1], **details})


def test_an_inconclusive_rate_prints_why_from_its_row():
    line = R._result_line(rate_row(-0.30, -0.10, -0.20))
    assert "→ **inconclusive** (why inconclusive: the 95% interval [-0.3, -0.1] (width 0.2) contains the " \
           "claimed slope -0.25 (distance 0.05 from the fit)" in line
    assert "the algorithm's measured rate" in line
    given = R._result_line(rate_row(-0.23, -0.17, -0.20, why_inconclusive="pre-asymptotic grid"))
    assert "(why inconclusive: pre-asymptotic grid)" in given
    few = R.inconclusive_why(NS(kind="rate", verdict="inconclusive", details={"m": [10, 20]}, lo=0, hi=1,
                                bound=0.5, statistic=0.5))
    assert few == "too few sizes (2) to fit a slope"
    held = Result(key="jcc.thm2", evidence="empirical", kind="rate", name="x", verdict="holds", statistic=-0.5,
                  lo=-0.6, hi=-0.4, bound=-0.25, confidence=0.95, n=10, method="m")
    assert "why inconclusive" not in R._result_line(held)


def test_every_committed_inconclusive_row_gets_a_reason():
    d = json.loads(SUMMARY.read_text(encoding="utf-8"))
    rows = [r for r in d["empirical"] + d["audits"] if r["verdict"] == "inconclusive"]
    assert rows
    for r in rows:
        why = R.inconclusive_why(NS(**{**r, "details": r.get("details") or {}}))
        assert why and not why.endswith(("(", ","))


def test_the_symbolic_rate_tick_is_about_the_printed_bounds_exponent():
    ok = R.check_label(NS(name="rate", ok=True, failed=False))
    assert ok.startswith("printed bound's exponent matches") and "not a measured rate" in ok
    assert R.check_label(NS(name="rate", ok=False, failed=True)).startswith("printed bound's exponent does not")
    assert R.check_label(NS(name="stated vs derived", ok=True, failed=False)) == "stated vs derived"


# --- a refuted statement's figure shows or links to the refuting evidence -------------------------------

def test_a_refuted_statements_figure_is_captioned_with_the_refuting_evidence():
    v = NS(verdict="refuted", key="jia.thm4.bound",
           reasons=["printed form: stated vs derived: stated < derived at 2668 points",
                    "exact counterexample: the excess risk is 4/5 > 6/25 = the printed bound"])
    cap = R.refuted_caption(v, [NS(verdict="holds", regime="inside")])
    assert "exact counterexample: the excess risk is 4/5 > 6/25" in cap          # the refuting piece, not the first
    assert "[the evidence](#s-jia-thm4-bound-why)" in cap
    assert R.refuted_caption(v, [NS(verdict="violated", regime="inside")]) == ""   # the figure shows it itself
    assert R.refuted_caption(v, [NS(verdict="violated", regime="outside")]) != ""  # outside the regime: not it
    assert R.refuted_caption(NS(verdict="consistent", key="a.b", reasons=[]), []) == ""


# --- figures: out-of-regime runs labelled, log-log slopes on log axes ------------------------------------

def _res(key, kind, verdict, regime, stat=1.2, bound=1.0, **kw):
    return Result(key=key, evidence="empirical", kind=kind, name=kw.pop("name", f"{verdict} {regime}"),
                  verdict=verdict, statistic=stat, lo=stat * 0.9, hi=stat * 1.1, bound=bound, confidence=0.95,
                  n=100, method="m", regime=regime, **kw)


def test_overview_panels_label_out_of_regime_runs(tmp_path):
    from verify.figures import keep_figures, overview_figures

    rs = [_res("zz.thm1", "risk", "violated", "outside"), _res("zz.thm1", "risk", "holds", "inside", stat=0.5),
          _res("zz.thm1", "risk", "violated", "inside", name="in")]
    with keep_figures() as kept:
        out = overview_figures(rs, tmp_path)
    fig = kept[str(tmp_path / "overview_zz.png")]
    labels = [t.get_text() for leg in fig.legends for t in leg.get_texts()]
    assert "violated (red ✖)" in labels and "ringed: run outside the paper's regime" in labels
    assert any("outside the paper's regime" in n for n in out["zz"].notes)
    # without an out-of-regime run the ring is not in the legend
    with keep_figures() as kept:
        overview_figures(rs[1:], tmp_path)
    labels = [t.get_text() for leg in kept[str(tmp_path / "overview_zz.png")].legends for t in leg.get_texts()]
    assert "ringed: run outside the paper's regime" not in labels and "holds" in labels


def test_log_log_slopes_are_drawn_on_log_axes(tmp_path):
    """jcc's rates span less than a decade in y: a linear axis would have been chosen by span alone."""
    from verify.figures import keep_figures, rate_figures

    r = Result(key="jcc.thm2", evidence="empirical", kind="rate", name="rough r=1/2", verdict="inconclusive",
               statistic=-0.0376, lo=-0.0557, hi=-0.0194, bound=-0.25, confidence=0.95, n=336, method="m",
               details={"T": [100, 200, 400, 800, 1600, 3200, 6400],
                        "mean": [2.875, 2.599, 2.425, 2.320, 2.257, 2.212, 2.180],
                        "se": [0.004, 0.003, 0.002, 0.001, 0.0006, 0.0005, 0.0003],
                        "mean_error_lower_bound": [2.266, 2.251, 2.235, 2.218, 2.201, 2.183, 2.166]})
    with keep_figures() as kept:
        refs = rate_figures([r], tmp_path)
    (path,) = refs.values()
    ax = kept[str(tmp_path / Path(path).name)].axes[0]
    assert (ax.get_xscale(), ax.get_yscale()) == ("log", "log")
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(t.startswith("fit slope -0.038") for t in legend) and any(t.startswith("claimed slope") for t in legend)


# --- `verify where` heads with the verdict -----------------------------------------------------------------

def test_where_heads_with_the_verdict_not_the_derivation_status(tmp_path):
    from verify.where import render, stored_verdict

    (tmp_path / "summary.json").write_text(json.dumps({"statements": [
        {"key": "jia.thm4.bound", "verdict": "refuted", "reads": "refuted", "truth": "false",
         "root_text": "inherited from jia.prop3"}]}))
    v = stored_verdict("jia.thm4.bound", tmp_path)
    info = {"key": "jia.thm4.bound", "verdict": v, "label": "Theorem 4", "quantity": "excess risk",
            "status": "erratum", "source": "s", "defined": "bounds/papers/jia.py:1", "derivation": None,
            "symbolic": [], "check_functions": [], "empirical": [], "audits": [], "figures": []}
    lines = render(info).splitlines()
    assert lines[0] == "jia.thm4.bound: verdict refuted (the statement: false); root: inherited from jia.prop3"
    assert "erratum" not in lines[0] and any("status erratum" in ln for ln in lines[1:])


# --- evidence cells end at a word and link to the full text --------------------------------------------------

@pytest.mark.parametrize("n", [20, 60, 120, 260])
def test_evidence_cells_of_the_committed_roots_end_at_a_word_and_link(n):
    d = json.loads(SUMMARY.read_text(encoding="utf-8"))
    for r in d["roots"]:
        full = " ".join(R.tame_factors("; ".join(r["reasons"])).split())
        cut, was_cut = R.cut_at_word(full, n)
        assert full.startswith(cut) and len(cut) <= n
        if was_cut:
            nxt = full[len(cut):len(cut) + 1]
            assert nxt in (" ", ";", ",", ".", ":", ")", "("), (cut[-20:], full[len(cut):len(cut) + 20])
            cell = R.evidence_cell("; ".join(r["reasons"]), r["key"], n)
            assert cell.endswith(f"… [full text](#{R._anchor(r['key'])}-why)")


def test_the_full_text_anchor_exists_in_the_report(tmp_path):
    paths = R.write_report(tmp_path, only="jia.prop3", picks=False, figures=False)
    md = paths["markdown"].read_text(encoding="utf-8")
    links = set(re.findall(r"\[full text\]\(#([^)]+)\)", md))
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', md))
    assert f"{R._anchor('jia.prop3')}-why" in anchors
    assert links <= anchors
    assert not re.search(r"\w…\s*\(\d+ symbolic", md)           # no cell cut mid-word before its counts
    # the root table shows how each root is counted and whether its root was tested, the rule beside the number
    assert "| root | label | verdict | counted as | statement | evidence | correction | root test |" in md
    head = next(ln for ln in md.splitlines() if ln.startswith("**") and "underlying error" in ln)
    assert re.match(r"\*\*\d+ underlying errors?\*\*( \([^)]*\))?\.  Counting rule: ", head)


# --- the scanner flags factors above 1e12 unless the row explains them; the report does not print them -----

def test_scanner_flags_unexplained_huge_factors_and_the_report_words_them():
    bad = "inside the paper's regime stated exceeds derived by a factor 1 to 5.947e+52 (median 4.132)"
    assert scan_text(bad, "x") == ["x:1: a factor above 1e12 that the row does not explain: factor 1 to 5.947e+52"]
    assert scan_text("ratio 9.9e+11", "x") == []                                 # below the threshold
    assert scan_text("slack 3e+20 (unbounded: grows as lam → 0)", "x") == []     # explained by the row
    for x in (1.01e12, 5.947e52, 3.7e305):
        # explained by the row: worded, not printed; unexplained: left as it is, and the scanner flags it
        line = R.md_inline(f"stated exceeds derived by a factor 1 to {x:.4g} (median 4.1): unbounded as λ → 0")
        assert scan_text(line, "x") == [] and f"{x:.4g}" not in line
        raw = R.md_inline(f"stated exceeds derived by a factor 1 to {x:.4g} (median 4.1)")
        assert f"{x:.4g}" in raw and len(scan_text(raw, "x")) == 1
    assert R.md_inline("a factor 1 to 3.2e+05") == "a factor 1 to 3.2e+05"      # a meaningful factor is printed


# --- the new data of items 1-6 are shown ---------------------------------------------------------------------

def test_smallest_correction_leads_with_the_tight_tool_then_the_proof_then_violation():
    sc = tiny_summary()["roots"][0]["smallest_correction"]
    text = R.smallest_correction_text(sc)
    i, j, k = text.index("tight (pld_epsilon)"), text.index("proof's own argument"), text.index("printed form violated")
    assert i < j < k and "factor 1.56" in text[:j]
    none = {"proof": {"factor": "4", "text": "4× the scale"}, "tight": {"factor": None, "tool": "",
            "text": "not computed: no accountant for this mechanism"},
            "printed_violated": {"answer": "not tested", "evidence": ""}}
    assert R.smallest_correction_text(none).startswith("tight: not computed: no accountant")


def test_root_extras_read_s1_s2_and_references_with_defaults():
    bare = R.root_extras(NS(evidence=[]))
    assert bare["count_as"] == "" and bare["no_effect"] == [] and bare["root_test"].startswith("not tested")
    row = Result(key="a.b", evidence="symbolic", kind="numeric", name="stated vs derived", verdict="violated",
                 statistic=math.nan, lo=math.nan, hi=math.nan, bound=math.nan, confidence=1.0, n=0, method="m",
                 details={"smallest_correction": tiny_summary()["roots"][0]["smallest_correction"]})
    v = NS(evidence=[row], count_as="does not follow", no_effect=("a.c",), root_test="counterfactual",
           upstream={"a.c": "gap"})
    x = R.root_extras(v, NS(references=("Smith 2020, §3",)))
    assert x["count_as"] == "does not follow" and x["no_effect"] == ["a.c"] and x["root_test"] == "counterfactual"
    assert x["references"] == ["Smith 2020, §3"] and x["upstream"] == {"a.c": "gap"}
    assert x["smallest_correction"]["tight"]["tool"] == "pld_epsilon"


def test_the_headline_rule_is_printed_next_to_the_number():
    assert R.counting_rule({"rule": "X"}) == "X" and R.counting_rule({}) == R.DEFAULT_RULE
    text = R.readme_findings(tiny_summary(rule="errors = false + does not follow"))
    assert text.startswith("**1 underlying error** (rule: errors = false + does not follow")


def test_a_placeholder_has_no_evidence_column():
    assert R.is_placeholder(NS(verdict="unchecked"), NS(stated=None))
    assert not R.is_placeholder(NS(verdict="unchecked"), NS(stated=1))
    assert not R.is_placeholder(NS(verdict="consistent"), NS(stated=None))


def test_where_on_a_real_statement_heads_with_the_committed_verdict():
    from verify.where import locate, render

    info = locate("jia.thm2", ROOT / "reports")
    committed = next(s for s in json.loads(SUMMARY.read_text(encoding="utf-8"))["statements"] if s["key"] == "jia.thm2")
    first = render(info).splitlines()[0]
    assert first.startswith(f"jia.thm2: verdict {committed['reads']}")
    assert "status" not in first


def test_where_without_a_report_falls_back_to_the_symbolic_verdict(tmp_path):
    # no summary.json: the verdict comes from the registry's symbolic evidence (Registry.verdicts no longer exists)
    import bounds
    from bounds.verdict import verdicts as verdicts_of
    from verify.where import stored_verdict

    got = stored_verdict("jia.prop1.scale", reports=tmp_path)
    want = verdicts_of(bounds.registry, [], keys=["jia.prop1.scale"])["jia.prop1.scale"]
    assert got["verdict"] == want.verdict and "no report found" in got["source"]
