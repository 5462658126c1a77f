"""Compile the numba kernels ahead of the first run: ``python -m simulations.jit``.

The compiled inner loops (:mod:`simulations._svm_numba`, :mod:`simulations._loops_numba`,
:mod:`simulations._large_margin_numba`, :mod:`simulations._scan_numba`) are compiled on first use and cached on disk
(``cache=True``, in ``simulations/__pycache__``).  A process that finds the cache loads machine
code in a fraction of a second; one that does not compiles, which costs seconds per kernel
family (the large-margin solver about 9 s) — and on a fresh checkout every worker of a parallel
run would pay it at once.  The Makefile runs this module once after installing the environment,
so that ``make verify`` and ``make test`` start from a filled cache; each family compiles in its
own process (in parallel).  The numbers of the kernels do not depend on this step.  The last line
printed gives the number of compiled kernels and the CPU time of the step (this process and its
workers, :func:`resource.getrusage`) beside its wall time.

Examples
--------
>>> from simulations.jit import FAMILIES
>>> sorted(FAMILIES)
['large_margin', 'loops', 'scan', 'svm']
"""

from __future__ import annotations

import resource
import sys
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor

import numpy as np


def _svm() -> None:
    from .kernels import GaussianKernel
    from .solvers import svm_fit

    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 2))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    svm_fit(GaussianKernel(0.5)(X), y, 1e-2)


def _loops() -> None:
    from ._loops_numba import (
        hinge_row_means,
        online_sup_grid,
        pairwise_sum,
        sobolev1_eval_sorted,
        sobolev1_gram_into,
    )
    from .kernels import PeriodicSobolevKernel
    from .private_erm import private_fw_lasso, private_mirror_descent_linear

    PeriodicSobolevKernel(s=1)(np.linspace(0, 1, 5))
    private_fw_lasso(np.eye(2), np.ones(2), 5, 0.1, np.random.default_rng(0), n_rep=2)   # with laplace_from_uniform
    private_mirror_descent_linear(np.ones((2, 2)), "l1", 3, 0.1, 0.1, np.random.default_rng(0))  # md_linear_steps
    from .data import _trig_compiled_ok

    _trig_compiled_ok()                                                  # trig_phase_table (and its probe)
    from .trials.utility import _noise_risk

    _noise_risk(np.ones(3), np.ones(3), np.ones((2, 1)), "square")     # noise_risk_mean
    t, c, e = 3, 2, 4        # the argument types of the scan's call (float64, C-contiguous)
    online_sup_grid(np.ones((t, c)), np.ones((t, e)), np.ones((c, e)), np.ones((t, e)), np.ones(t),
                    np.ones((t, 2)), np.ones((t, c, 2)))
    idx = np.arange(2)                 # the argument types of jamp's sobolev1_eval (intp, float64)
    sobolev1_eval_sorted(idx, np.ones(2), np.ones(3), np.zeros(3, dtype=np.intp), np.ones(2), 1.0, 1.0)
    pairwise_sum(np.ones(3))
    hinge_row_means(np.ones(2), np.ones(2), np.ones(3))
    sobolev1_gram_into(np.empty((2, 3)), np.ones(2), np.ones(3), 1.0, 1.0)


def _large_margin() -> None:
    from .large_margin import gaussian_classes, sample_perturbation, solve, solve_batch

    rng = np.random.default_rng(0)
    X, y = gaussian_classes(20, d=1, K=2, rng=rng)
    b = np.stack([sample_perturbation(1, 10.0, rng) for _ in range(2)])
    solve_batch(X, y, 2, 10.0, 0.5, b, tol=1e-6, max_iter=200, on_failure="return", compiled=True)
    solve(X, y, 2, 10.0, 0.5, tol=1e-6, max_iter=200, on_failure="return", cone="closure", compiled=True)


def _scan() -> None:
    from .solvers import neighbour_grid_sup

    G, m, C = 3, 2, 2                  # the argument types of the scans' calls (float64, C-contiguous)
    args = (np.ones((G, m)), np.ones((G, C)), np.zeros((G, C)), 1.0, np.ones(m), np.ones((m, C)),
            np.ones((m, C)), np.full(m, 2.0))
    neighbour_grid_sup(*args)                          # sup only (neighbour_scan)
    neighbour_grid_sup(*args, np.ones(G), 1.0)         # sup and clipped sup (jamp's _scan_round)


#: kernel family -> a small call that compiles (or loads) every kernel of the family
FAMILIES: dict[str, Callable[[], None]] = {"svm": _svm, "loops": _loops, "large_margin": _large_margin,
                                           "scan": _scan}


def _compiled_kernels() -> set[str]:
    """``module.function`` of every numba entry point (a dispatcher named in the ``__all__`` of a kernel
    module this process imported); the same count whether the step compiled or loaded them (an entry
    point that only other kernels call is compiled into them, so its own signature list may be empty)."""
    out = set()
    for name, mod in list(sys.modules.items()):
        if name.startswith("simulations._") and name.endswith("numba"):
            for attr in getattr(mod, "__all__", ()):
                if hasattr(getattr(mod, attr, None), "py_func"):
                    out.add(f"{name}.{attr}")
    return out


def _run(name: str) -> tuple[str, float, set[str]]:
    t = time.perf_counter()
    FAMILIES[name]()
    return name, time.perf_counter() - t, _compiled_kernels()


def _cpu() -> float:
    """CPU seconds of this process and of its waited-for children (user + system)."""
    return sum(r.ru_utime + r.ru_stime for r in (resource.getrusage(resource.RUSAGE_SELF),
                                                  resource.getrusage(resource.RUSAGE_CHILDREN)))


def _warm(parallel: bool) -> list[tuple[str, float, set[str]]]:
    if not parallel:
        return [_run(n) for n in FAMILIES]
    with ProcessPoolExecutor(max_workers=min(len(FAMILIES), 2)) as pool:
        return list(pool.map(_run, sorted(FAMILIES, key=lambda n: n != "large_margin")))


def warm(parallel: bool = True) -> dict[str, float]:
    """Compile (or load from the disk cache) every kernel family; wall seconds per family."""
    return {name: t for name, t, _ in _warm(parallel)}


def main() -> int:
    t, c = time.perf_counter(), _cpu()
    runs = _warm(parallel=True)
    kernels = set().union(*(k for _, _, k in runs))
    parts = ", ".join(f"{name} {s:.1f} s" for name, s, _ in runs)
    print(f"numba: {len(kernels)} kernels compiled or loaded from the cache in {_cpu() - c:.1f} s CPU "
          f"({time.perf_counter() - t:.1f} s wall; per family, wall: {parts})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
