"""Worst-case time of every public function of :mod:`bounds.accounting` over extreme inputs (issue 25).

Each function is called on every combination of the extreme values below (0, 5e-324, 1e-300, 1e300,
±inf, nan, negative, counts up to 10¹²) plus the cases named in issue 25; a call either returns or
raises ValueError.  For each function the script prints the number of calls, how many raised
ValueError, the worst time and the input it occurred at, and the worst time divided by the time of
a peer run in the same process: ``scipy.stats.norm.cdf`` on a vector of 10⁶ points (the cost of
one vectorised special-function pass, so the ratio does not depend on the machine's speed).  Goal:
every call within 5 s.  The calibrations' caches are cleared before each call.

``--before REV`` also runs the issue's cases against ``bounds/accounting.py`` of git revision REV
(each in a subprocess, killed after ``--timeout`` seconds) and prints a before/after table.

No assertions: tests never time.  Run: ``python bench/bench_accounting.py [--before REV] [--timeout S]``.
"""

from __future__ import annotations

import argparse
import itertools
import math
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bounds import accounting as A  # noqa: E402

X = [0.0, 5e-324, 1e-300, 1e-5, 1.0, 1e300, math.inf, math.nan, -1.0]
D = [5e-324, 1e-300, 1e-5, 0.5, 1 - 1e-16, 0.0, math.nan]
C = [1, 10**7, 10**12]

#: the cases of issue 25 (each raised, returned nan, or ran past 60 s before)
ISSUE = [
    "gaussian_delta(1, 1e300)",
    "log_gaussian_delta(1e300, 1)",
    "gaussian_sigma(1e-300, 1e-5)",
    "pld_epsilon([('pure', 1e6, 1)], 1e-5)",
    "pld_epsilon([('gaussian', 1e-300, 1.0, 1)], 1e-5)",
    "tight_pure_step_eps(1e6, 1e-5, 10)",
    "tight_gaussian_sigma(1e3, 1e-5, 10)",
    "pld_epsilon([('gaussian', 1.0, 1.0, 10**7)], 1e-5)",
    "pld_epsilon([('pure', 1.0, 10**7)], 1e-5)",
    "tight_pure_step_eps(1.0, 1e-5, 10**7)",
    "gaussian_eps(1e-300, 1e-5)",
    "pld_epsilon([('gaussian', 1.0, 1.0, 1)], 1e-300)",
    "pld_epsilon([('laplace', 1e-300, 1.0, 1)], 1e-5)",
    "pld_epsilon([('approx', 1e6, 1e-300, 1)], 1e-5)",
]


def cases() -> dict[str, list[tuple]]:
    steps = []
    for v, c in itertools.product(X, C):
        steps += [[("gaussian", v, 1.0, c)], [("laplace", v, 1.0, c)], [("pure", v, c)],
                  [("approx", v, 1e-9, c)], [("pure", v, c), ("gaussian", 1.0, 1.0, 1)],
                  [("pure", 0.5, c), ("laplace", v, 1.0, 1)]]
    return {
        "gaussian_delta": list(itertools.product(X, X, X)),
        "log_gaussian_delta": list(itertools.product(X, X, X)),
        "gaussian_eps": list(itertools.product(X, D, X)),
        "gaussian_sigma": list(itertools.product(X, D, X)),
        "pld_epsilon": [(s, d) for s in steps for d in (1e-300, 1e-5, 0.5)],
        "tight_pure_step_eps": list(itertools.product(X, D, C)),
        "tight_gaussian_sigma": list(itertools.product(X, D, C)),
    }


def peer_seconds() -> float:
    from scipy.stats import norm

    x = np.linspace(-10, 10, 10**6)
    best = math.inf
    for _ in range(5):
        t = time.perf_counter()
        norm.cdf(x)
        best = min(best, time.perf_counter() - t)
    return best


def worst_times() -> None:
    t = time.perf_counter()
    A.pld_epsilon([("pure", 0.1, 1), ("laplace", 1.0, 1.0, 1)], 1e-5)   # imports dp-accounting
    print(f"first call importing dp-accounting: {time.perf_counter() - t:.2f} s (not counted below)")
    peer = peer_seconds()
    print(f"peer: scipy.stats.norm.cdf on 10^6 points = {peer * 1e3:.1f} ms\n")
    print(f"{'function':22s} {'calls':>6s} {'ValueError':>10s} {'worst s':>9s} {'worst/peer':>10s}  ≤ 5 s  worst at")
    for name, args_list in cases().items():
        f = getattr(A, name)
        worst, at, raised = 0.0, None, 0
        for args in args_list:
            A._tight_pure.cache_clear()
            A._tight_gauss.cache_clear()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                t = time.perf_counter()
                try:
                    f(*args)
                except ValueError:
                    raised += 1
                dt = time.perf_counter() - t
            if dt > worst:
                worst, at = dt, args
        print(f"{name:22s} {len(args_list):6d} {raised:10d} {worst:9.3f} {worst / peer:10.1f}  "
              f"{'yes' if worst <= 5 else 'NO ':3s}    {at!r}")


def _run(src_dir: str, call: str, timeout: float) -> str:
    code = ("import sys, time; sys.path.insert(0, sys.argv[1]); import accounting as A; "
            f"t = time.perf_counter(); r = A.{call}; print(repr(r), f'{{time.perf_counter() - t:.2f}} s')")
    try:
        p = subprocess.run([sys.executable, "-c", code, src_dir], capture_output=True, text=True,
                           timeout=timeout, cwd=str(ROOT))
    except subprocess.TimeoutExpired:
        return f"still running after {timeout:g} s (killed)"
    if p.returncode == 0:
        return p.stdout.strip()
    last = (p.stderr.strip().splitlines() or ["?"])[-1]
    return last[:90]


def before_after(rev: str, timeout: float) -> None:
    old = subprocess.run(["git", "show", f"{rev}:bounds/accounting.py"], capture_output=True, text=True,
                         cwd=str(ROOT), check=True).stdout
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "accounting.py").write_text(old)
        new_dir = str(ROOT / "bounds")
        print(f"\n| call | before ({rev}) | after |\n|---|---|---|")
        for call in ISSUE:
            print(f"| `{call}` | {_run(tmp, call, timeout)} | {_run(new_dir, call, timeout)} |", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", metavar="REV", help="also run the issue's cases on bounds/accounting.py of REV")
    ap.add_argument("--timeout", type=float, default=60.0, help="seconds per call of the before/after table")
    a = ap.parse_args()
    worst_times()
    if a.before:
        before_after(a.before, a.timeout)


if __name__ == "__main__":
    main()
