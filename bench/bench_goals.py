"""The speed goals of issue 13, measured end to end (wall time of real commands).

Rows (each a ratio against a peer run here, in the same invocation, or against the goal):

* ``bounds`` CLI latency with a warm symbolic snapshot (``eval``, ``show``, ``pick``,
  ``pick --target``, ``list``) next to the same command with the snapshot off (the previous
  method: every needed statement re-derived).  Goals: eval/show ≤ 0.5 s, pick ≤ 2 s, list ≤ 2 s.
* ``python -m verify`` on the default profile with an empty cache, ``local`` executor (goal
  ≤ 60 s on 2 idle cores since issue 27, ≤ 90 s before) and ``serial`` (goal: local ≥ 1.7× serial).
* ``make test`` equivalent (``pytest -n auto``; goal ≤ 180 s).
* ``python -m bounds list`` after editing one paper (issue 27; goal ≤ 10 s on 2 idle cores), on a
  copy of ``bounds/`` with its own snapshot: wall time and CPU seconds (this process's children,
  ``getrusage``) of the cold fill, a warm call and a call after appending a comment to each of
  ``papers/cms.py``, ``papers/jamp.py`` and ``papers/jia.py`` (jia re-derives jamp too, which
  imports it).  On a busy machine, read the CPU seconds: the wall time of 2 idle cores is about
  CPU / 2 plus the one-process start-up.

Usage::

    .venv/bin/python bench/bench_goals.py [--profile default] [--skip cli,edit,verify,serial,tests]

Run it on an otherwise idle machine: every figure is a wall time.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PY = sys.executable
CONSTS = ["B0=1", "Omega0=0", "kappa=1", "C_L=1", "gamma=2", "B_rho=1", "c_beta=1", "beta=0.5"]
CLI = {
    "eval": (["eval", "jia.thm1", "B=1", "gamma=2", "lam=0.1", "m=100"], 0.5),
    "show": (["show", "jia.thm4"], 0.5),
    "pick": (["pick", "jia.thm4", "--m", "10000", *CONSTS], 2.0),
    "pick min eps": (["pick", "jia.thm4", "--target", "0.4", "--m", "10000", *CONSTS], 2.0),
    "pick min m": (["pick", "jia.thm4", "--target", "2", "--eps", "0.5", *CONSTS], 2.0),
    "list": (["list"], 2.0),
}


def _wall(cmd: list[str], env: dict[str, str] | None = None, reps: int = 1) -> float:
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
        times.append(time.perf_counter() - t)
        if out.returncode != 0:
            raise SystemExit(f"command failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return statistics.median(times)


def bench_cli() -> None:
    with tempfile.TemporaryDirectory() as snap:
        warm_env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=snap)
        off_env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC="off")
        t = _wall([PY, "-m", "bounds", "list"], warm_env)       # fills the snapshot (cold first call)
        print(f"cold 'list' (fills the snapshot): {t:.1f} s")
        print(f"{'command':<15} {'warm s':>7} {'goal s':>7} {'met':>4} {'snapshot off s':>15} {'speed-up':>9}")
        for name, (args, goal) in CLI.items():
            warm = _wall([PY, "-m", "bounds", *args], warm_env, reps=3)
            off = _wall([PY, "-m", "bounds", *args], off_env) if name != "list" else t
            print(f"{name:<15} {warm:7.2f} {goal:7.1f} {'yes' if warm <= goal else 'NO':>4} {off:15.1f} "
                  f"{off / warm:8.0f}x")


def _timed(cmd: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float, str]:
    """Wall seconds, CPU seconds (user + system, the command and the processes it started) and stderr."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    if out.returncode != 0:
        raise SystemExit(f"command failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out.stderr


def bench_edit(papers: tuple[str, ...] = ("cms", "jamp", "jia")) -> None:
    """``bounds list`` after editing one paper (issue 27, goal ≤ 10 s on 2 idle cores)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = Path(tmp) / "src"
        shutil.copytree(ROOT / "bounds", src / "bounds", ignore=shutil.ignore_patterns("__pycache__"))
        env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=f"{tmp}/snap", PYTHONPATH=str(src))
        cmd = [PY, "-m", "bounds", "list"]
        print(f"{'bounds list':<34} {'wall s':>7} {'CPU s':>7}  statements derived")
        for what, edit in [("cold (empty snapshot)", None), ("warm", None),
                           *((f"after editing papers/{p}.py", p) for p in papers)]:
            if edit is not None:
                with open(src / "bounds" / "papers" / f"{edit}.py", "a", encoding="utf-8") as fh:
                    fh.write("# edited by bench_goals\n")
            wall, cpu, err = _timed(cmd, env, src)
            n = next((line.split()[1] for line in err.splitlines() if line.startswith("evaluating ")), "0")
            print(f"{what:<34} {wall:7.1f} {cpu:7.1f}  {n}")


def bench_verify(profile: str, executors: list[str]) -> None:
    walls = {}
    for ex in executors:
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [PY, "-m", "verify", "--profile", profile, "--executor", ex,
                   "--cache", f"{tmp}/cache", "--out", f"{tmp}/out"]
            walls[ex], cpu, _err = _timed(cmd, dict(os.environ), ROOT)
            print(f"python -m verify --profile {profile} --executor {ex}, empty cache: {walls[ex]:.1f} s wall, "
                  f"{cpu:.1f} s CPU (all processes)"
                  + (f"  (goal ≤ 60 s: {'met' if walls[ex] <= 60 else 'NOT met'}, ratio {walls[ex] / 60:.2f})"
                     if ex == "local" and profile == "default" else ""))
    if "local" in walls and "serial" in walls:
        r = walls["serial"] / walls["local"]
        print(f"local vs serial: {r:.2f}x  (goal ≥ 1.7x: {'met' if r >= 1.7 else 'NOT met'}; "
              f"{os.cpu_count()} cores)")


def bench_tests() -> None:
    with tempfile.TemporaryDirectory() as snap:
        env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=snap)     # as on a fresh clone: no snapshot
        t = _wall([PY, "-m", "ruff", "check", "bounds", "simulations", "verify", "tests", "bench"], env)
        t += _wall([PY, "-m", "pytest", "-q", "-n", "auto", "bounds", "simulations", "verify", "tests",
                    "docs", "README.md"], env)
    print(f"make test (lint + pytest -n auto, empty snapshot): {t:.0f} s  (goal ≤ 180 s: "
          f"{'met' if t <= 180 else 'NOT met'}, ratio {t / 180:.2f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default="default")
    ap.add_argument("--skip", default="", help="comma-separated: cli, edit, verify, serial, tests")
    a = ap.parse_args()
    skip = set(filter(None, a.skip.split(",")))
    print(f"bench_goals: {os.cpu_count()} cores, python {sys.version.split()[0]}")
    if "cli" not in skip:
        bench_cli()
    if "edit" not in skip:
        bench_edit()
    if "verify" not in skip:
        bench_verify(a.profile, ["local"] + ([] if "serial" in skip else ["serial"]))
    if "tests" not in skip:
        bench_tests()


if __name__ == "__main__":
    main()
