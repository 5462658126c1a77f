"""A partial run (``--only``) never deletes or rewrites a file of a paper it did not run.

Issue 25, item 5: ``python -m verify --only 'jamp.*'`` into the default ``reports/`` deleted 55
figure files of the other papers (the whole ``figures/`` directory was replaced).  Now a partial
run into a directory holding another paper's report writes a report of its own under
``partial/<papers>/``; into a directory holding its own papers' report it replaces that and
keeps every figure of another paper.  Each test snapshots the bytes of every file before the
run and compares them after it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bounds.evidence import Result
from verify.report import figure_paper, report_dir, report_papers, write_report
from verify.where import figure_entries

ROOT = Path(__file__).resolve().parents[1]


def _sens(key: str, m: float, stat: float, bound: float = 1.0) -> Result:
    return Result(key=key, evidence="empirical", kind="sensitivity", name=f"m={m:g}", verdict="holds",
                  statistic=stat, lo=stat, hi=stat, bound=bound, confidence=0.95, n=50, details={"m": m})


def _rate(key: str) -> Result:
    ms = [100.0, 200.0, 400.0, 800.0]
    mean = [0.5 * (m / 100) ** -0.5 for m in ms]
    return Result(key=key, evidence="empirical", kind="rate", name="synthetic schedule", verdict="holds",
                  statistic=-0.5, lo=-0.6, hi=-0.4, bound=-0.5, confidence=0.95, n=50,
                  details={"m": ms, "mean": mean, "se": [0.01 * v for v in mean]})


def _jia_results() -> list[Result]:
    return [_sens("jia.thm2", m, 0.1 / m ** 0.5) for m in (50, 200, 800)]


def _jamp_results(rate: bool = True) -> list[Result]:
    rows = [_sens("jamp.lemma2", m, 0.2 / m ** 0.5) for m in (50, 200, 800)]
    return rows + ([_rate("jamp.lemma2")] if rate else [])


def _snapshot(directory: Path, skip: str | None = None) -> dict[str, str]:
    """Relative path → sha256 of every file under ``directory`` (``skip``: a subdirectory left out)."""
    out = {}
    for p in sorted(directory.rglob("*")):
        rel = p.relative_to(directory).as_posix()
        if p.is_file() and not (skip and rel.startswith(skip + "/")):
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def test_a_partial_run_leaves_another_papers_report_byte_identical(tmp_path) -> None:
    out = tmp_path / "reports"
    write_report(out, only="jia.thm2", picks=False, empirical=_jia_results())
    (out / "figures" / "rate_jia_thm4_planted.png").write_bytes(b"not a png, but jia's")
    (out / "notes.txt").write_text("a file of the user's")
    before = _snapshot(out)
    assert {"REPORT.md", "summary.json", "index.html", "figures/overview_jia.png"} <= set(before)

    paths = write_report(out, only="jamp.lemma2*", picks=False, empirical=_jamp_results())

    assert _snapshot(out, skip="partial") == before                    # nothing deleted, nothing rewritten
    own = out / "partial" / "jamp"
    assert paths["summary"] == own / "summary.json" and paths["markdown"] == own / "REPORT.md"
    js = json.loads(paths["summary"].read_text())
    assert {s["paper"] for s in js["statements"]} == {"jamp"}
    assert js["scope"] == {"pattern": "jamp.lemma2*", "papers": ["jamp"], "partial": True, "own_directory": True}
    assert js["figures"] and all(f["paper"] == "jamp" for f in js["figures"])
    assert all((own / f["path"]).is_file() for f in js["figures"])     # it claims only files it wrote
    md = paths["markdown"].read_text()
    assert "**Partial run**" in md and "directory of its own" in md
    assert "overview_jia" not in md and "rate_jia" not in md


def test_a_partial_run_of_its_own_papers_replaces_them_and_keeps_other_papers_figures(tmp_path) -> None:
    out = tmp_path / "reports"
    write_report(out, only="jamp.lemma2*", picks=False, empirical=_jamp_results(rate=True))
    rate = [p.name for p in (out / "figures").glob("rate_jamp_lemma2_*.png")]
    assert rate                                                       # a jamp figure the next run will not draw
    planted = {"overview_jia.png": b"jia's overview", "rate_cms_alg1_x.svg": b"<svg>cms</svg>",
               "sensitivity_oldpaper_thm1.png": b"a paper the registry no longer knows"}
    for name, data in planted.items():
        (out / "figures" / name).write_bytes(data)
    before = {k: v for k, v in _snapshot(out).items() if k.removeprefix("figures/") in planted}

    paths = write_report(out, only="jamp.lemma2*", picks=False, empirical=_jamp_results(rate=False))

    assert paths["summary"] == out / "summary.json"                   # its own papers' report: replaced in place
    after = _snapshot(out)
    assert {k: after.get(k) for k in before} == before                 # other papers' figures byte-identical
    assert not (out / "figures" / rate[0]).exists()                   # its own stale figure is gone
    js = json.loads(paths["summary"].read_text())
    assert js["scope"]["own_directory"] is False
    assert not any(f["path"].endswith(tuple(planted)) for f in js["figures"])   # not claimed as its own
    assert not (out / "partial").exists()


def test_report_files_of_unknown_papers_send_a_partial_run_to_its_own_directory(tmp_path) -> None:
    out = tmp_path / "reports"
    (out / "figures").mkdir(parents=True)
    (out / "figures" / "overview_jia.png").write_bytes(b"stale")
    assert report_dir(out, ["jamp"], partial=False) == out and report_papers(out) is None
    assert report_dir(out, ["jamp"], partial=True) == out / "partial" / "jamp"    # whose files: unknown


@pytest.mark.parametrize("name, paper", [("overview_jia.png", "jia"), ("rate_jamp_thm2_x.svg", "jamp"),
                                         ("heatmap_jia_s5_1_bound.png", "jia"), ("audit_eps.png", None),
                                         ("privacy_utility.svg", None), ("sensitivity_nosuch_thm1.png", None)])
def test_figure_paper_reads_the_owner_from_the_file_name(name, paper) -> None:
    assert figure_paper(name) == paper


def test_where_finds_the_figures_of_the_report_and_of_each_partial_run(tmp_path) -> None:
    out = tmp_path / "reports"
    write_report(out, only="jia.thm2", picks=False, empirical=_jia_results())
    write_report(out, only="jamp.lemma2*", picks=False, empirical=_jamp_results())
    jia = figure_entries("jia.thm2", out)
    jamp = figure_entries("jamp.lemma2", out)
    assert {e["kind"] for e in jia} == {"overview", "sensitivity"}
    assert all(Path(e["path"]).is_file() and Path(e["report"]) == out for e in jia)
    assert {e["kind"] for e in jamp} == {"overview", "sensitivity", "rate"}
    assert all(Path(e["report"]) == out / "partial" / "jamp" for e in jamp)
    assert figure_entries("jamp.lemma2.K", out) == [e for e in jamp if e["kind"] == "overview"]


def _prewarm(cache: Path) -> None:
    from bounds import snapshot as S

    root = S.default_root()
    for src in ([] if root is None else [root / S.shared_digest(), root / "simplify"]):
        if src.is_dir():
            shutil.copytree(src, cache / "symbolic" / src.name, ignore=shutil.ignore_patterns(".*"), dirs_exist_ok=True)


def test_the_command_line_partial_run_into_a_full_report_deletes_nothing(tmp_path) -> None:
    """The issue's case: ``python -m verify --only 'jamp.*'`` into a directory holding the whole report."""
    committed = ROOT / "reports"
    out = tmp_path / "reports"
    if (committed / "summary.json").is_file() and (committed / "figures").is_dir():
        shutil.copytree(committed, out, ignore=shutil.ignore_patterns("partial"))
    else:                                                             # a fresh clone without the report
        write_report(out, only="jia.thm2", picks=False, empirical=_jia_results())
    before = _snapshot(out)
    _prewarm(tmp_path / "cache")
    p = subprocess.run([sys.executable, "-m", "verify", "--only", "jamp.lemma2*", "--profile", "quick",
                        "--executor", "serial", "--no-picks", "--cache", str(tmp_path / "cache"), "--out", str(out)],
                       cwd=ROOT, capture_output=True, text=True, env=dict(os.environ, OMP_NUM_THREADS="1"),
                       timeout=600)
    assert p.returncode == 0, p.stderr[-2000:]
    assert _snapshot(out, skip="partial") == before
    assert f"report: {out / 'partial' / 'jamp' / 'REPORT.md'}" in p.stdout
    js = json.loads((out / "partial" / "jamp" / "summary.json").read_text())
    assert {s["paper"] for s in js["statements"]} == {"jamp"} and js["empirical"]
