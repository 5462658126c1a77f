"""Warm latency of ``pick`` and ``calibrate`` (issue 24, goal ≤ 1 s on 2 cores with the other core busy).

Rows, each timed in this process after one warming call (the symbolic snapshot, the lambdified
bounds and the verdicts are then cached), as the median of several calls, with its ratio to a
peer run here too: one plain ``bounds.value`` evaluation of the same bound (``peer``).

* ``pick`` (the paper's schedule, the optimised choice, the dominant term), ``min_m``, ``min_eps``;
* ``calibrate`` of cms Algorithm 2 (one release) and of ttz mirror descent (the PLD accountant);
* the command line's ``main(["pick", ...])`` and ``main(["calibrate", ...])`` in-process (the
  light snapshot registry, verdicts from the generated report);
* with ``--subprocess``: ``python -m bounds pick`` (the paper's schedule and the optimised choice),
  ``pick --target … --m …`` (the smallest ε, the slowest query) and ``calibrate`` as new processes,
  while a spinning process keeps another core busy, CPU and wall time, next to the same commands
  with every BLAS/OpenMP thread count forced to 1 in their environment; and which of the heavy
  optional imports (``scipy.optimize``, ``matplotlib``, ``sympy.physics``) each command loads
  (none should: the pickers search with NumPy, matplotlib is for ``--plot`` only).

Usage::

    .venv/bin/python bench/bench_pick.py [--reps 5] [--subprocess]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import multiprocessing as mp
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

THM4 = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
ARGS = [f"{k}={v}" for k, v in THM4.items()]
GOAL = 1.0


def _median(fn: Callable[[], object], reps: int) -> float:
    fn()                                   # warm
    times = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def _quiet(fn: Callable[[], object]) -> Callable[[], object]:
    def run() -> object:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            rc = fn()
        if rc not in (0, None):
            raise SystemExit(f"command failed with status {rc}")
        return rc
    return run


def in_process(reps: int) -> None:
    import bounds
    from bounds import calibrate as cal
    from bounds import pick
    from bounds.cli import main

    peer = _median(lambda: bounds.value("jia.thm4.bound", m=10_000, eps=0.1, lam=0.01, **THM4), reps)
    rows = {
        "pick (paper + optimised + dominant term)": lambda: (pick.paper_schedule("jia.thm4", 10_000, **THM4),
                                                             pick.optimise("jia.thm4", 10_000, **THM4)),
        "min_m (target 0.5 at eps 0.1)": lambda: pick.min_m("jia.thm4", 0.5, eps=0.1, **THM4),
        "min_eps (target 0.4 at m 1e4)": lambda: pick.min_eps("jia.thm4", 0.4, m=10_000, **THM4),
        "calibrate cms.alg2.eps_prime": lambda: cal.calibrate("cms.alg2.eps_prime", eps=1, n=50_000, Lam=1e-3, c=0.25),
        "calibrate ttz.md.sigma.zcdp (PLD)": lambda: cal.calibrate("ttz.md.sigma.zcdp", L2=1, n=1000, T=100, eps=1,
                                                                   delta=1e-5),
        "CLI pick (in-process)": _quiet(lambda: main(["pick", "jia.thm4", "--m", "10000", *ARGS])),
        "CLI pick --target --m (min eps)": _quiet(lambda: main(["pick", "jia.thm4", "--target", "0.4", "--m", "10000",
                                                                 *ARGS])),
        "CLI calibrate (in-process)": _quiet(lambda: main(["calibrate", "cms.alg2.eps_prime", "eps=1", "n=50000",
                                                           "Lam=0.001", "c=0.25"])),
    }
    print(f"peer: bounds.value of jia.thm4.bound, warm: {1e3 * peer:.2f} ms")
    print(f"{'row':<45} {'warm s':>8} {'/ peer':>8} {'goal s':>7} {'met':>4}")
    for name, fn in rows.items():
        t = _median(fn, reps)
        print(f"{name:<45} {t:8.3f} {t / peer:8.0f} {GOAL:7.1f} {'yes' if t <= GOAL else 'no':>4}")


def _spin(stop: mp.Event) -> None:      # type: ignore[valid-type]
    x = 0
    while not stop.is_set():
        x += 1


def _child(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    before = os.times()
    t = time.perf_counter()
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = os.times()
    if out.returncode != 0:
        raise SystemExit(f"command failed ({out.returncode}): {' '.join(cmd)}\n{out.stderr[-2000:]}")
    cpu = (after.children_user - before.children_user) + (after.children_system - before.children_system)
    return wall, cpu


SUBPROCESS_CMDS = {
    "pick jia.s5_1.bound --m 50000": ["pick", "jia.s5_1.bound", "--m", "50000", "M=1", "kappa=1", "c_beta=1",
                                       "beta=0.5"],
    "pick jia.thm4 --target 0.4 --m 1e4": ["pick", "jia.thm4", "--target", "0.4", "--m", "10000", *ARGS],
    "calibrate cms.alg2.eps_prime": ["calibrate", "cms.alg2.eps_prime", "eps=1", "n=50000", "Lam=0.001", "c=0.25"],
}
HEAVY = ("scipy.optimize", "matplotlib", "sympy.physics")
_PROBE = """import runpy, sys
sys.argv = ["bounds", *sys.argv[1:]]
try:
    runpy.run_module("bounds", run_name="__main__")
except SystemExit:
    pass
heavy = sorted({h for h in %r for m in sys.modules if m == h or m.startswith(h + ".")})
print("HEAVY:" + ",".join(heavy), file=sys.stderr)
"""


def _heavy_imports(args: list[str], env: dict[str, str]) -> str:
    out = subprocess.run([sys.executable, "-c", _PROBE % (HEAVY,), *args], cwd=ROOT, env=env, capture_output=True,
                         text=True)
    lines = [ln for ln in out.stderr.splitlines() if ln.startswith("HEAVY:")]
    return (lines[-1][len("HEAVY:"):] or "none") if lines else "?"


def as_subprocess(reps: int) -> None:
    plain = dict(os.environ)
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        plain.pop(v, None)
    one = dict(plain, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1")
    cmds = {name: [sys.executable, "-m", "bounds", *args] for name, args in SUBPROCESS_CMDS.items()}
    for cmd in cmds.values():
        _child(cmd, plain)                     # warm the snapshot
    stop = mp.Event()
    busy = mp.Process(target=_spin, args=(stop,), daemon=True)
    busy.start()
    res: dict[tuple[str, str], list[tuple[float, float]]] = {}
    try:
        for _ in range(reps):                  # interleaved, so that a change of load hits every row alike
            for name, cmd in cmds.items():
                for env_name, env in (("as shipped", plain), ("1 thread forced", one)):
                    res.setdefault((name, env_name), []).append(_child(cmd, env))
    finally:
        stop.set()
        busy.join(5)
    print(f"\nnew processes (`python -m bounds ...`), another core kept busy, medians of {reps}")
    print(f"{'command':<38} {'environment':<16} {'wall s':>7} {'cpu s':>7} {'goal s':>7} {'met':>4}")
    for (name, env_name), rows in res.items():
        wall = statistics.median(w for w, _ in rows)
        cpu = statistics.median(c for _, c in rows)
        print(f"{name:<38} {env_name:<16} {wall:7.2f} {cpu:7.2f} {GOAL:7.1f} {'yes' if wall <= GOAL else 'no':>4}")
    for name in cmds:
        ratio = (statistics.median(c for _, c in res[(name, "as shipped")])
                 / statistics.median(c for _, c in res[(name, "1 thread forced")]))
        print(f"cpu ratio shipped / forced one thread, {name}: {ratio:.2f} (1.0: already one BLAS thread)")
    for name, args in SUBPROCESS_CMDS.items():
        print(f"heavy optional imports of {name}: {_heavy_imports(args, plain)}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--subprocess", action="store_true", help="also time new processes with a busy core")
    a = ap.parse_args()
    in_process(a.reps)
    if a.subprocess:
        as_subprocess(max(1, a.reps // 2))


if __name__ == "__main__":
    main()
