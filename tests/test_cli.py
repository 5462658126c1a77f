"""Command lines: ``python -m bounds`` and ``python -m verify`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", *args], capture_output=True, text=True, cwd=ROOT, timeout=600)


@pytest.fixture(scope="module")
def listing() -> list[dict]:
    p = run("bounds", "list", "--json")
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_list_json_fields(listing) -> None:
    need = {"key", "seed", "label", "kind", "stated", "derived", "latex", "assumptions", "status", "detail"}
    assert len(listing) >= 90
    for e in listing:
        assert need <= set(e)
        assert e["status"] in ("consistent", "erratum", "premise", "cited", "order")
        if e["status"] == "erratum" and e["derived"] is not None:
            assert e["stated"] != e["derived"] or e["inherits"] or any(not c["ok"] for c in e["checks"])
    seeds = {e["seed"] for e in listing}
    assert {"000_c13e7e0f812f87df.txt", "001_5df6aa3916744408.txt", "003_8ef3daf3084cc981.txt"} <= seeds


def test_show_and_eval() -> None:
    p = run("bounds", "show", "jia.prop1.scale")
    assert p.returncode == 0 and "erratum" in p.stdout and "derived" in p.stdout
    p = run("bounds", "eval", "jia.thm2", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100")
    assert p.returncode == 0 and float(p.stdout.splitlines()[0]) == pytest.approx(0.1)
    assert "statement jia.thm2 (Theorem 2)" in p.stdout and "verdict:" in p.stdout
    # Proposition 1's printed scale is refuted with no established correction: an answer only when asked for
    p = run("bounds", "eval", "jia.prop1.scale", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100", "eps=0.5", "--stated",
            "--allow-unverified")
    assert float(p.stdout.splitlines()[0]) == pytest.approx(0.1)  # the paper's scale; the derived one is 0.2


def test_pick_json() -> None:
    p = run("bounds", "pick", "jia.thm4", "--m", "10000", "--unit", "beta=0.5", "--json")
    assert p.returncode == 0, p.stderr
    d = json.loads(p.stdout)
    assert d["paper"]["lam"] == pytest.approx(0.01) and d["optimised"]["bound"] <= d["paper"]["bound"]


@pytest.mark.parametrize(
    "args",
    [
        ("bounds", "eval", "jia.thm2", "kappa=1", "C_L=1", "lam=-1", "gamma=2", "m=100"),
        ("bounds", "eval", "jia.thm2", "kappa=1", "C_L=1", "lam=nan", "gamma=2", "m=100"),
        ("bounds", "eval", "jia.thm2", "kappa=1"),
        ("bounds", "eval", "jia.thm2", "foo=1"),
        ("bounds", "eval", "no.such.key", "m=3"),
        ("bounds", "show", "no.such.key"),
        ("bounds", "pick", "jia.thm2", "--m", "100"),
        ("bounds", "pick", "jia.thm4", "--m", "100"),
        ("bounds", "list", "--paper", "xyz"),
        ("verify", "--only", "no-such-statement", "--out", "/tmp/dp-erm-verify-never"),
        ("verify", "--profile", "huge", "--out", "/tmp/dp-erm-verify-never"),
        ("verify", "--executor", "gpu", "--only", "jia.thm2", "--out", "/tmp/dp-erm-verify-never"),
        ("verify", "--executor", "dask", "--scheduler", "tcp://127.0.0.1:9", "--only", "jia.thm2",
         "--out", "/tmp/dp-erm-verify-never"),
        ("verify", "audit", "--profile", "huge"),
        ("verify", "audit", "--only", "no-such-statement"),
        ("verify", "where", "no.such.key"),
    ],
)
def test_bad_input_one_line_exit_2(args) -> None:
    p = run(*args)
    assert p.returncode == 2
    assert not Path("/tmp/dp-erm-verify-never").exists()      # nothing half-written
    assert "Traceback" not in p.stderr
    assert len([ln for ln in p.stderr.splitlines() if ln.strip()]) <= 2  # argparse adds a usage line


def test_verify_writes_report(tmp_path) -> None:
    p = run("verify", "--out", str(tmp_path), "--only", "jia.*", "--no-picks", "--no-empirical")
    assert p.returncode == 0, p.stderr
    md = (tmp_path / "REPORT.md").read_text()
    js = json.loads((tmp_path / "summary.json").read_text())
    keys = {e["key"] for e in js["statements"]}
    assert "jia.thm4" in keys and all(k.startswith("jia.") for k in keys)
    heads = [h for h in md.splitlines() if h.startswith("## ")]
    assert heads[0] == "## Root errors" and "## All findings" in heads   # the report opens with the roots
    assert "jia.prop1.scale" in md and "\\frac" in md
    assert all(e["verdict"] and ("root" in e) for e in js["statements"])
    line = next(x for x in p.stdout.splitlines() if x.startswith("verdicts: "))
    counted = {v: int(n) for n, v in (part.split(" ", 1) for part in line[len("verdicts: "):].split(", "))}
    assert counted == dict(Counter(e["verdict"] for e in js["statements"]))   # the printed tally is the summary's
    assert "derivation:" in p.stdout
    assert (tmp_path / "index.html").read_text().count("<table>") >= 2


def test_verify_quick_empirical_run_and_its_cache(tmp_path) -> None:
    out, cache = tmp_path / "r", tmp_path / "c"
    args = ("verify", "--out", str(out), "--only", "jamp.lemma2*", "--profile", "quick",
            "--executor", "serial", "--cache", str(cache))
    p = run(*args)
    assert p.returncode == 0, p.stderr
    js = json.loads((out / "summary.json").read_text())
    emp = {(e["key"], e["verdict"]) for e in js["empirical"]}
    assert {k for k, _ in emp} >= {"jamp.lemma2", "jamp.lemma2.K"}
    assert (out / "results" / "empirical.csv").exists()
    first = (out / "results" / "empirical.csv").read_text()
    p = run(*args)                                              # second run: from the cache
    assert p.returncode == 0 and (out / "results" / "empirical.csv").read_text() == first


def test_where_prints_every_place() -> None:
    p = run("verify", "where", "jia.thm2")
    assert p.returncode == 0, p.stderr
    out = p.stdout
    assert "stated at   bounds/papers/jia.py:" in out
    assert "000_c13e7e0f812f87df.txt" in out
    assert "verify/empirical/jia.py:" in out and "simulations/trials/jia.py:" in out   # check and its trials
    p = run("verify", "where", "jia.s5_1.scale", "--json")
    d = json.loads(p.stdout)
    assert d["audits"] and all(a["where"].startswith("verify/empirical/jia.py:") for a in d["audits"])


def test_papers_lists_every_discovered_paper() -> None:
    import bounds

    p = run("bounds", "papers", "--json")
    assert p.returncode == 0, p.stderr
    rows = json.loads(p.stdout)
    assert [r["id"] for r in rows] == list(bounds.PAPERS)
    for r in rows:
        assert r["source"] and r["module"] == f"bounds/papers/{r['id']}.py"
        assert sum(r["tally"].values()) == r["statements"] > 0
