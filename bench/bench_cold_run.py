"""Cold `python -m verify` before and after issue 33: wall, CPU by category, the plan's projection.

Each side runs ``python -m verify --profile P`` in its own source tree from nothing: an empty
``--cache`` directory, an empty symbolic snapshot (``$DP_ERM_VERIFY_SYMBOLIC`` pointing at an empty
directory) and a fresh ``--out``.  "before" is the tree of commit ``6274802`` (extracted with
``git archive`` into a temporary directory, or ``--before DIR``), "after" this checkout; both run
in this one invocation, one after the other, with the same interpreter, each after
``python -m simulations.jit`` in its tree (untimed: ``make`` compiles the kernels before ``make verify``).

Printed per side:

* the wall time of the run (the machine's load changes it; the ``uptime`` line is printed with it)
  and the CPU of the whole process tree (``resource.getrusage`` of the reaped children);
* the CPU by category, from the run's ``<cache>/timings.jsonl`` records: trials (trial batches
  run outside a job), symbolic (the symbolic evaluation jobs), figures (figure, LaTeX and palette
  jobs), audits (audit and auditor-calibration jobs, with their trial batches), main (the main
  process's CPU less the tasks it ran itself: the serial part);
* the plan's projected wall on 2 and 16 workers (``python -m verify --plan --json``).

Usage::

    .venv/bin/python bench/bench_cold_run.py                 # before and after, default profile
    .venv/bin/python bench/bench_cold_run.py --only after    # after only
    .venv/bin/python bench/bench_cold_run.py --profile quick

A cold default run costs about 150 CPU-seconds per side.  Nothing here decides a result of the
toolkit; the numbers are measurements of this machine.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BEFORE_COMMIT = "6274802"
CATEGORIES = ("trials", "symbolic", "figures", "audits", "main")


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _uptime() -> str:
    try:
        return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()
    except OSError:
        return "?"


def extract(commit: str, where: Path) -> Path:
    """The tree of ``commit`` of this repository, extracted into ``where`` (``git archive``)."""
    where.mkdir(parents=True, exist_ok=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive, check=True)
    return where


def categories(timings: Path) -> dict[str, float]:
    """CPU seconds by category of the last run recorded in ``timings`` (see the module's docstring)."""
    recs = [json.loads(line) for line in timings.read_text().splitlines() if line.strip()]
    runs = [r for r in recs if r.get("kind") == "run"]
    if not runs:
        return {}
    run = runs[-1]["run"]
    out = dict.fromkeys(CATEGORIES, 0.0)
    in_main = 0.0
    for r in recs:
        if r.get("run") != run or r.get("kind") not in ("batch", "job"):
            continue
        if r["kind"] == "batch":
            if r.get("in_job"):
                continue                                   # counted in its job
            out["trials"] += r["cpu_s"]
        else:
            group = r.get("group")
            cat = {"symbolic": "symbolic", "figures": "figures", "audit": "audits",
                   "calibration": "audits"}.get(group, "trials")
            out[cat] += r["cpu_s"]
        if r.get("in_main") and not r.get("in_job"):
            in_main += r["cpu_s"]
    out["main"] = max(0.0, runs[-1]["main_cpu_s"] - in_main)
    return out


def cold_run(tree: Path, profile: str, scratch: Path, extra_env: dict[str, str] | None = None) -> dict[str, Any]:
    """One cold ``python -m verify`` in ``tree``: wall, process-tree CPU, categories, plan."""
    cache, sym, out = scratch / "cache", scratch / "symbolic", scratch / "out"
    for d in (cache, sym):
        d.mkdir(parents=True)
    env = dict(os.environ, PYTHONPATH=str(tree), DP_ERM_VERIFY_SYMBOLIC=str(sym), **(extra_env or {}))
    env.pop("DP_ERM_VERIFY_SVG", None)
    # the compiled kernels as `make` leaves them (`python -m simulations.jit` before `make verify`), not timed
    subprocess.run([sys.executable, "-m", "simulations.jit"], cwd=tree, env=env, capture_output=True, check=False)
    cmd = [sys.executable, "-m", "verify", "--profile", profile, "--cache", str(cache), "--out", str(out)]
    load = _uptime()
    c0, t0 = _children_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, cwd=tree, env=env, capture_output=True, text=True, check=False)
    wall, cpu = time.perf_counter() - t0, _children_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: python -m verify failed ({proc.returncode}): {proc.stderr.strip()[-400:]}")
    plan = subprocess.run([sys.executable, "-m", "verify", "--profile", profile, "--cache", str(cache), "--plan",
                           "--workers", "2", "16", "--json"], cwd=tree, env=env, capture_output=True, text=True,
                          check=False)
    try:
        proj = {p["workers"]: p for p in json.loads(plan.stdout)["projections"]}
    except (ValueError, KeyError, TypeError):
        proj = {}
    return {"wall_s": wall, "cpu_s": cpu, "uptime": load, "by": categories(cache / "timings.jsonl"),
            "plan": proj, "out": out}


def _proj_text(p: dict[str, Any]) -> str:
    keys = [k for k in ("projected_s", "dispatch_s", "lpt_s") if k in p]
    return ", ".join(f"{k} {p[k]:.1f}" for k in keys) if keys else json.dumps(p)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--before", default=None, help=f"a tree of the 'before' code (default: commit {BEFORE_COMMIT})")
    ap.add_argument("--only", choices=("before", "after"), default=None, help="run one side only")
    ap.add_argument("--keep", default=None, help="keep the scratch directories (the reports) under this directory")
    args = ap.parse_args(argv)
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-cold-"))
    sides: dict[str, Path] = {}
    if args.only in (None, "before"):
        sides["before"] = Path(args.before) if args.before else extract(BEFORE_COMMIT, base / "tree-before")
    if args.only in (None, "after"):
        sides["after"] = ROOT
    results = {}
    for name, tree in sides.items():
        results[name] = r = cold_run(tree, args.profile, base / name)
        print(f"{name}: {tree}  ({r['uptime']})")
        print(f"  wall {r['wall_s']:.1f} s, CPU of the process tree {r['cpu_s']:.1f} s")
        print("  CPU by category: " + ", ".join(f"{k} {r['by'].get(k, 0):.1f}" for k in CATEGORIES))
        for w in (2, 16):
            if w in r["plan"]:
                print(f"  plan, {w} workers: {_proj_text(r['plan'][w])}")
        sys.stdout.flush()
    if len(results) == 2:
        b, a = results["before"], results["after"]
        print("after - before (CPU s): " + ", ".join(
            f"{k} {a['by'].get(k, 0) - b['by'].get(k, 0):+.1f}" for k in CATEGORIES)
            + f"; process tree {a['cpu_s'] - b['cpu_s']:+.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
