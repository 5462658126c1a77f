"""The committed report contains no number that means nothing (issue 23, item 7).

``verify.scan`` flags sympy junk, NaN and inf, negative quotients (a ratio of two exponents),
factors above 1e12 that their row does not explain (the report prints them in words: issue 34
item 7), 'holds' decided on a minority of points and '? of ?' counts.  CI runs it on the quick
report it generates; this test runs it on the report committed in ``reports/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from verify.scan import scan_report, scan_text

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_report_has_no_meaningless_number():
    assert scan_report(ROOT / "reports") == []


def test_the_committed_headline_counts_underlying_errors_from_its_own_roots():
    d = json.loads((ROOT / "reports" / "summary.json").read_text(encoding="utf-8"))
    roots = d["roots"]
    # one counting rule (issue 34): false + does not follow, whatever the verdict word (a report written before
    # the rule has no count_as: its result roots were its errors)
    errors = [r for r in roots if r.get("count_as", "false" if r["finding"] == "result" else "")
              in ("false", "does not follow")]
    assert d["headline"]["errors"] == len(errors) > 0
    # echoes are not roots, and every echo names a root
    echo_keys = {k for r in roots for k in r["downstream"]}
    assert not echo_keys & {r["key"] for r in roots}


# --- the "Choosing ε and λ" section (issue 24, items 1 and 5, report side) -------------------------------

def _row(key: str, refused: str = "") -> dict:
    row = {"key": key, "label": "Theorem", "m": 1e4, "constants": {"M": 1.0, "kappa": 1.0}, "form": "derived",
           "verdict": "erratum", "verdict_text": "erratum", "regime": "", "refused": refused,
           "basis_note": "" if refused else "the printed form is refuted; its corrected (derived) form is used"}
    if not refused:
        row.update(paper_eps=0.1, paper_lam=0.01, paper_bound=1.5, paper_bound_stated=1.7, opt_eps=0.06,
                   opt_lam=0.02, opt_bound=1.2, improvement=1.25, dominant="noise term 2*M/(eps*lam*m)",
                   rising_in_eps=["eps*M"])
    return row


def test_the_choosing_section_names_form_and_verdict_refuses_and_says_why_a_paper_has_none():
    from bounds import PAPERS
    from bounds.pick import not_pickable_reason, pickable_keys
    from verify.report import choosing_markdown, md_inline, not_pickable

    none = not_pickable(PAPERS)
    assert set(none) == {p for p in PAPERS if not pickable_keys(p)}          # exactly the papers without one
    assert all(none[p] == not_pickable_reason(p) and none[p] for p in none)
    rows = [_row("jia.s5_1.bound"), _row("jamp.thm3.bound", refused="no form of the bound is established (open)")]
    md = choosing_markdown(rows, none)
    table = [ln for ln in md if ln.startswith("| [`")]
    cells = [len(re.split(r"(?<!\\)\|", ln)) - 2 for ln in table]
    head = next(ln for ln in md if ln.startswith("| bound |"))
    assert cells == [len(head.split("|")) - 2] * 2                           # every row fills the table
    assert "| derived | **erratum** |" in table[0] and "`2*M/(eps*lam*m)`" in table[0]
    assert any(ln.startswith("- `jia.s5_1.bound`: ") and "terms rising in ε" in ln and "`eps*M`" in ln for ln in md)
    assert "not picked: no form of the bound is established (open)" in table[1]
    assert not re.search(r"\d\.\d", table[1].split("not picked")[1])       # a refused bound is never optimised
    assert any(ln.startswith("- `jia.s5_1.bound`: the printed form is refuted") for ln in md)
    for pid, why in none.items():
        assert f"- **`{pid}`**: {md_inline(why)}" in md
    assert scan_text("\n".join(md), "choosing") == []
