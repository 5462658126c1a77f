"""Nothing that decides a result or a printed word depends on time, load or how the work is split
(issue 27): the symbolic layer bounds its work by expression size, never by a clock, and the
report is the same whichever executor computed it."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: a paper with rate checks (their spot confirmation had a CPU-time budget before issue 27), stated-vs-derived
#: comparisons (sympy.simplify under its size budget) and inequalities; about 2 s of sympy
PAPER = "ttz"

_DERIVE = """
import json, sys
import bounds
reg = bounds.registry       # the default snapshot ($DP_ERM_VERIFY_SYMBOLIC), or none
keys = [k for k in reg.keys() if k.startswith(sys.argv[1] + ".")]
out = []
for k in keys:
    ev = reg.evaluate(k)
    out.append({"key": k, "status": ev.status, "detail": ev.detail, "inherits": list(ev.inherits),
                "derived": None if ev.derived is None else str(ev.derived),
                "checks": [c.as_dict() for c in ev.checks]})
sys.stdout.write(json.dumps(out, sort_keys=True, ensure_ascii=False, default=str))
"""


def _derive(env: dict[str, str], nice: int = 0) -> bytes:
    def lower() -> None:
        os.nice(nice)

    out = subprocess.run([sys.executable, "-c", _DERIVE, PAPER], cwd=ROOT, env=env, capture_output=True,
                         timeout=900, preexec_fn=lower if nice else None)
    assert out.returncode == 0, out.stderr.decode()[-2000:]
    return out.stdout


def _spinner() -> subprocess.Popen:
    """A process that keeps one core busy until killed."""
    return subprocess.Popen([sys.executable, "-c", "while True: pass"])


def test_a_paper_derives_the_same_words_alone_and_starved_beside_busy_processes(tmp_path):
    """Derived in parallel through the snapshot's cooperative tasks on an otherwise quiet machine, and
    serially at a lower priority (nice 5) beside one busy process per core (a small share of CPU): the
    evaluations (statuses, details, every check's words and numbers) are byte-identical."""
    env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=str(tmp_path / "snap"), PYTHONHASHSEED="1")
    warmed = subprocess.run([sys.executable, "-c", f"from bounds.snapshot import warm; import bounds; "
                             f"print(warm(keys=[k for k in bounds.registry.keys() if k.startswith('{PAPER}.')], "
                             "workers=2))"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert warmed.returncode == 0, warmed.stderr[-2000:]
    assert int(warmed.stdout.split()[-1]) > 10                # it derived the paper (one task per statement)
    fast = _derive(env)                                       # read from the snapshot the tasks wrote
    spinners = [_spinner() for _ in range(os.cpu_count() or 1)]
    try:
        time.sleep(0.2)
        slow = _derive(dict(os.environ, DP_ERM_VERIFY_SYMBOLIC="off", PYTHONHASHSEED="2"), nice=5)
    finally:
        for p in spinners:
            p.kill()
            p.wait()
    assert json.loads(fast) and fast == slow


def _strip(summary: dict) -> dict:
    summary = dict(summary)
    summary.pop("provenance", None)
    return summary


def _executors() -> tuple[str, ...]:
    try:
        import distributed  # noqa: F401
    except ImportError:
        return ("serial", "local")
    return ("serial", "local", "dask")


@pytest.mark.slow
def test_serial_and_local_reports_are_byte_identical_minus_provenance(tmp_path):
    """The same profile and papers run serially, on local processes and on a local Dask cluster when
    Dask is installed (each from an empty cache: the symbolic evaluation's tasks run one after the other
    in one, in parallel and waiting for each other in the others): the same summary.json (but its
    provenance) and the same evidence.csv, byte for byte."""
    outs = {}
    executors = _executors()
    for ex in executors:
        cmd = [sys.executable, "-m", "verify", "--profile", "quick", "--only", "cms.*", "--no-picks",
               "--executor", ex, "--cache", str(tmp_path / f"cache-{ex}"), "--out", str(tmp_path / f"out-{ex}")]
        run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=1800)
        assert run.returncode == 0, run.stderr[-2000:]
        outs[ex] = tmp_path / f"out-{ex}"
    s = json.loads((outs["serial"] / "summary.json").read_text(encoding="utf-8"))
    assert s["statements"]
    for ex in executors[1:]:
        p = json.loads((outs[ex] / "summary.json").read_text(encoding="utf-8"))
        assert json.dumps(_strip(s), sort_keys=True) == json.dumps(_strip(p), sort_keys=True), ex
        assert (outs["serial"] / "results" / "evidence.csv").read_bytes() == \
            (outs[ex] / "results" / "evidence.csv").read_bytes(), ex
    rows = list(csv.DictReader((outs["serial"] / "results" / "evidence.csv").open(encoding="utf-8")))
    assert any(r["key"].startswith("cms.") and r["evidence"] == "symbolic" for r in rows)


_THREADS = """
import json, runpy, sys
sys.argv = [sys.argv[1], "--help"]
try:
    runpy.run_module(sys.argv[0], run_name="__main__", alter_sys=True)
except SystemExit:
    pass
import numpy, scipy.linalg, threadpoolctl
print(json.dumps(sorted({d["num_threads"] for d in threadpoolctl.threadpool_info() if d["user_api"] == "blas"})))
"""


@pytest.mark.parametrize("cli", ["bounds", "verify"])
def test_the_command_lines_run_blas_on_one_thread_unless_the_user_sets_it(cli):
    """``python -m bounds`` / ``python -m verify`` (run as ``__main__``): numpy's and scipy's BLAS pools have
    one thread; with OMP_NUM_THREADS set by the user, they have what the user asked for."""
    from bounds._lazy import BLAS_THREAD_ENV

    def threads(**extra: str) -> list[int]:
        env = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_ENV} | extra
        out = subprocess.run([sys.executable, "-c", _THREADS, cli], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        return json.loads(out.stdout.splitlines()[-1])

    assert threads() == [1]
    if (os.cpu_count() or 1) >= 2:
        assert threads(OMP_NUM_THREADS="2") == [2]
