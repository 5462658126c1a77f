"""Start cost of the command lines (issue 33, item 4; issue 32, item 7): CPU per new process.

Every row is a new Python process run ``--reps`` times (default 5, warm caches: one unmeasured run
first), its CPU the user + system seconds of the child (``resource.getrusage(RUSAGE_CHILDREN)``
before and after), printed as the median and as a ratio to the peer measured in the same run,
``python -c "import numpy"``; wall time is not used (the machine is shared).

Rows and goals:

* ``python -m verify audit --help`` ≤ 0.5 s CPU;
* ``python -m verify audit --samples FILE.npz --claim-eps 1`` on 1e6 scalar releases per side (a
  Laplace mechanism of ε = 1 written to a temporary ``.npz``): ≥ 2e6 releases per CPU-second,
  i.e. the whole process ≤ 1 s CPU;
* ``python -m bounds eval`` / ``pick`` / ``calibrate`` (the README's examples, warm symbolic
  snapshot) ≤ 0.6 s CPU.

Besides the CPU, each row says which heavy modules the command imported (``sympy``,
``scipy.stats``, ``pandas``, ``matplotlib``, ``numba``, ``sklearn``, ``dask``): a probe process
runs the command in-process through ``runpy`` and lists ``sys.modules`` afterwards.

``--outputs FILE`` also writes every command's stdout and stderr (and exit status) to ``FILE``,
so that two revisions can be compared byte for byte (``diff before.txt after.txt``).
``bounds eval`` and ``bounds calibrate`` (and ``pick``/``calibrate`` on a paper or section) answer from
the numeric store (:mod:`bounds.numeric`) where it holds a verified entry, and so does a plain ``pick``
on a statement (``--m``, ``--eps``, ``--target`` with ``--eps``: :mod:`bounds.numeric_pick`).  ``DP_ERM_VERIFY_NUMERIC=off`` in the environment forces the sympy path, so the two paths
of one revision compare the same way::

    DP_ERM_VERIFY_NUMERIC=off .venv/bin/python bench/bench_startup.py --only bounds --outputs sympy.txt
    .venv/bin/python bench/bench_startup.py --only bounds --outputs numeric.txt
    cmp sympy.txt numeric.txt

Usage::

    .venv/bin/python bench/bench_startup.py [--reps 5] [--outputs FILE] [--only SUBSTRING]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: the heavy modules whose import a fast command should avoid
HEAVY = ("sympy", "scipy.special", "scipy.stats", "scipy.optimize", "pandas", "matplotlib", "numba", "sklearn", "dask", "tqdm")

THM4 = "B0=1 Omega0=0 kappa=1 C_L=1 gamma=2 B_rho=1 c_beta=1 beta=0.5".split()

#: (label, argv after the interpreter, goal in CPU seconds or None)
COMMANDS: list[tuple[str, list[str], float | None]] = [
    ("verify audit --help", ["-m", "verify", "audit", "--help"], 0.5),
    ("verify --help", ["-m", "verify", "--help"], None),
    ("verify audit --samples 1e6", ["-m", "verify", "audit", "--samples", "{npz}", "--claim-eps", "1"], 1.0),
    ("bounds eval jia.thm2", ["-m", "bounds", "eval", "jia.thm2", "kappa=1", "C_L=1", "lam=0.1", "gamma=2",
                              "m=100"], 0.6),
    ("bounds eval jia.prop1.scale --stated", ["-m", "bounds", "eval", "jia.prop1.scale", "kappa=1", "C_L=1",
                                              "lam=0.1", "gamma=2", "m=100", "eps=0.5", "--stated"], 0.6),
    ("bounds eval cms.alg2.eps_prime", ["-m", "bounds", "eval", "cms.alg2.eps_prime", "eps=0.1", "n=50000",
                                        "Lam=1e-5", "c=0.25"], 0.6),
    ("bounds pick jia.thm4 --m 1e4", ["-m", "bounds", "pick", "jia.thm4", "--m", "10000", *THM4], 0.6),
    ("bounds pick jia.thm4 --target", ["-m", "bounds", "pick", "jia.thm4", "--target", "0.5", "--eps", "0.1",
                                       *THM4], 0.6),
    ("bounds calibrate cms.alg2.eps_prime", ["-m", "bounds", "calibrate", "cms.alg2.eps_prime", "eps=1",
                                             "n=50000", "Lam=0.001", "c=0.25"], 0.6),
    ("bounds calibrate jia.s5_1.scale (refusal)", ["-m", "bounds", "calibrate", "jia.s5_1.scale", "eps=0.0597",
                                                   "lam=0.0345", "m=50000", "kappa=1", "M=1"], 0.6),
    ("bounds calibrate cms.rff.beta", ["-m", "bounds", "calibrate", "cms.rff.beta", "n=20000", "Lam=0.01", "eps=1",
                                       "C_L=1", "R_z=1", "tau=1e-5"], 0.6),
    # the README's other examples (without --plot, which writes files)
    ("bounds calibrate cms.alg2.delta", ["-m", "bounds", "calibrate", "cms.alg2.delta", "eps=0.1", "n=50000",
                                         "Lam=1e-5", "c=0.25"], 0.6),
    ("bounds calibrate jia.s5_2.scale (refusal)", ["-m", "bounds", "calibrate", "jia.s5_2.scale", "eps=1",
                                                   "lam=0.005", "m=20000", "kappa=1"], 0.6),
    ("bounds pick jia.s5_2.bound --m 2e4 --eps 1", ["-m", "bounds", "pick", "jia.s5_2.bound", "--m", "20000", "--eps",
                                                    "1", "M=1", "kappa=1", "c_beta=1", "beta=0.5"], 0.6),
    ("bounds pick jia.s5_1 (a section: error)", ["-m", "bounds", "pick", "jia.s5_1", "--m", "50000", "M=1", "kappa=1",
                                                 "c_beta=1", "beta=0.5"], 0.6),
]

PEER = ["-c", "import numpy"]

#: runs the command in this process, then prints the heavy modules it imported (one line, last)
_PROBE = r"""
import runpy, sys
heavy = sys.argv[1].split(",")
argv = sys.argv[2:]
if argv[0] == "-m":
    sys.argv = [argv[1], *argv[2:]]
    try:
        runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
    except SystemExit:
        pass
sys.stdout.flush()
sys.stderr.write("\nHEAVY " + ",".join(h for h in heavy if h in sys.modules) + "\n")
"""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def cpu_of(argv: list[str]) -> tuple[float, subprocess.CompletedProcess]:
    """CPU seconds (user + system) of one new process ``python argv``, and its completed process."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run([sys.executable, *argv], cwd=ROOT, env=_env(), capture_output=True, text=True)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), out


def median_cpu(argv: list[str], reps: int) -> tuple[float, list[float], subprocess.CompletedProcess]:
    """The median CPU of ``reps`` runs after one unmeasured (warming) run."""
    cpu_of(argv)
    runs, out = [], None
    for _ in range(reps):
        cpu, out = cpu_of(argv)
        runs.append(cpu)
    return statistics.median(runs), runs, out


def heavy_imports(argv: list[str]) -> list[str]:
    """The modules of :data:`HEAVY` that the command ``python argv`` (``-m module ...``) imports."""
    out = subprocess.run([sys.executable, "-c", _PROBE, ",".join(HEAVY), *argv], cwd=ROOT, env=_env(),
                         capture_output=True, text=True)
    for line in reversed(out.stderr.splitlines()):
        if line.startswith("HEAVY "):
            return [h for h in line[6:].split(",") if h]
    return ["?"]


def write_samples(path: Path, n: int = 1_000_000, seed: int = 0) -> None:
    """1e6 releases per side of the Laplace mechanism of ε = 1 on a count of sensitivity 1 (D: 0, D′: 1)."""
    import numpy as np

    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    np.savez(path, d0=rng.laplace(0.0, 1.0, n), d1=1.0 + rng.laplace(0.0, 1.0, n))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--outputs", help="write every command's stdout/stderr/status to this file")
    ap.add_argument("--only", help="run only the rows whose label contains this substring")
    a = ap.parse_args(argv)
    if a.reps < 1:
        ap.error("--reps must be at least 1")
    with tempfile.TemporaryDirectory(prefix="bench-startup-") as tmp:
        npz = Path(tmp) / "laplace_1e6.npz"
        write_samples(npz)
        peer, peer_runs, _ = median_cpu(PEER, a.reps)
        print(f"peer: python -c 'import numpy'  {peer:.3f} s CPU (median of {a.reps}: "
              f"{', '.join(f'{x:.3f}' for x in peer_runs)})")
        print(f"{'command':<42} {'CPU s':>7} {'× numpy':>8} {'goal s':>7}  met  heavy imports")
        logs = []
        for label, args, goal in COMMANDS:
            if a.only and a.only not in label:
                continue
            args = [x.replace("{npz}", str(npz)) for x in args]
            cpu, runs, out = median_cpu(args, a.reps)
            heavy = heavy_imports(args)
            met = "-" if goal is None else ("yes" if cpu <= goal else "NO")
            extra = f"  ({2e6 / cpu:.3g} releases per CPU-second)" if "1e6" in label else ""
            print(f"{label:<42} {cpu:7.3f} {cpu / peer:8.1f} {goal if goal else '':>7}  {met:<4} "
                  f"{','.join(heavy) or 'none'}{extra}", flush=True)
            logs.append(f"=== {label} (status {out.returncode})\n--- stdout\n{out.stdout}--- stderr\n"
                        f"{out.stderr.replace(str(npz), 'FILE.npz')}")
        if a.outputs:
            Path(a.outputs).write_text("".join(logs), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
