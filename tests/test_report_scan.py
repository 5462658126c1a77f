"""The committed report contains no number that means nothing (issue 23, item 7).

``verify.scan`` flags sympy junk, NaN and inf, negative quotients (a ratio of two exponents),
factors of 1e100 or more, 'holds' decided on a minority of points and '? of ?' counts.  CI runs it
on the quick report it generates; this test runs it on the report committed in ``reports/``.
"""

from __future__ import annotations

import json
from pathlib import Path

from verify.scan import scan_report

ROOT = Path(__file__).resolve().parents[1]


def test_the_committed_report_has_no_meaningless_number():
    assert scan_report(ROOT / "reports") == []


def test_the_committed_headline_counts_underlying_errors_from_its_own_roots():
    d = json.loads((ROOT / "reports" / "summary.json").read_text(encoding="utf-8"))
    roots = d["roots"]
    errors = [r for r in roots if r["finding"] == "result"]
    assert d["headline"]["errors"] == len(errors) > 0
    # echoes are not roots, and every echo names a root
    echo_keys = {k for r in roots for k in r["downstream"]}
    assert not echo_keys & {r["key"] for r in roots}
