"""The report's figures drawn as executor jobs give the same files and maps as drawing them here."""

from __future__ import annotations

import json
import math
from dataclasses import fields
from pathlib import Path

import pytest

from bounds.evidence import Result
from simulations.executors import LocalExecutor
from verify.report import _draw_figures, figure_jobs

ROOT = Path(__file__).resolve().parents[1]


def _rows(papers: tuple[str, ...]) -> list[Result]:
    path = ROOT / "reports" / "summary.json"
    if not path.exists():
        pytest.skip("no generated report")
    names = {f.name for f in fields(Result)}
    out = []
    for row in json.loads(path.read_text())["evidence"]:
        if row.get("evidence") != "empirical" or row["key"].split(".")[0] not in papers:
            continue
        kw = {k: v for k, v in row.items() if k in names}
        for k in ("statistic", "lo", "hi", "bound", "confidence"):
            kw[k] = math.nan if kw.get(k) in (None, "nan") else float(kw[k])
        kw["worst"] = kw.get("worst") or {}
        kw["details"] = kw.get("details") or {}
        out.append(Result(**kw))
    return out


def test_figure_jobs_on_two_workers_match_drawing_here(tmp_path):
    rows = _rows(("jcc", "jamp"))
    assert any(r.kind == "rate" for r in rows)
    jobs = figure_jobs(tmp_path / "x" / "figures", rows, [], None, [])
    assert len(jobs) > 2 and {j[0] for j in jobs} == {"rate", "sensitivity", "overview"}
    here = _draw_figures(tmp_path / "a", True, rows, [], None, [])
    with LocalExecutor(2) as ex:
        there = _draw_figures(tmp_path / "b", True, rows, [], None, [], executor=ex)
    assert here == there                                    # same maps, in the same order
    assert [list(m) for m in here[:4]] == [list(m) for m in there[:4]]
    files_a = sorted(p.name for p in (tmp_path / "a" / "figures").iterdir())
    files_b = sorted(p.name for p in (tmp_path / "b" / "figures").iterdir())
    assert files_a == files_b and files_a
    for m in here[:4]:
        for rel in m.values():
            assert (tmp_path / "a" / rel).exists()
