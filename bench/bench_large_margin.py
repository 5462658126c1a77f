"""Benchmark of the batched large-margin solver of seed 004 (Pathak & Raj 2010, §4, (8)).

``simulations.large_margin.solve_batch`` solves the noise draws of one data set as one vectorised
problem; ``solve`` is the one-problem reference.  Rows (goal: ratio ≥ 10 where many draws share
a data set):

* (a) the audit problem ``verify.empirical.pr.AUDIT_PROBLEM`` (m = 40, d = 1, C = 2, λ = 20,
  ε = 0.5, tol 1e-8, 1500 iterations) on its data set z, 2000 noise draws (the bounded ones are
  solved, as the audit does);
* (b) a Theorem 5.2/5.3 check trial (``THM5_VARIANTS``, the default profile's 50 draws per data
  set), ten data sets per variant;
* (c) the whole audit ``verify.empirical.pr.audits(n=20_000)`` (500 releases per data set, KKT
  scores included) against the same function with one ``solve`` per release.

Each row prints the time of the loop of single ``solve`` calls, the time of ``solve_batch``, the
ratio, whether the statuses agree, how many results are bit-for-bit identical, the largest
difference of the objective values and the largest certified relative duality gap.  One BLAS
thread; timings are the best of a few runs of the batch (the loop runs once).  No assertions.
Run: ``python bench/bench_large_margin.py``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from threadpoolctl import threadpool_limits  # noqa: E402

from simulations import large_margin as lm  # noqa: E402
from verify.empirical import pr  # noqa: E402


def best_of(fn, repeat: int = 3) -> tuple[float, object]:
    best, out = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def compare(problems: list[tuple], repeat: int = 3) -> dict:
    """problems: (X, y, K, lam, h, b (m, D, D), kwargs); the loop and the batch on each."""
    t_loop = t_batch = 0.0
    n = n_same = n_status = n_opt = 0
    dv = gap = 0.0
    for X, y, K, lam, h, b, kw in problems:
        t = time.perf_counter()
        ref = [lm.solve(X, y, K, lam, h, b=bj, **kw) for bj in b]
        t_loop += time.perf_counter() - t
        tb, got = best_of(lambda X=X, y=y, K=K, lam=lam, h=h, b=b, kw=kw:
                          lm.solve_batch(X, y, K, lam, h, b, **kw), repeat)
        t_batch += tb
        for r, g in zip(ref, got, strict=True):
            n += 1
            n_status += r.status == g.status
            same = r.status == g.status and r.value == g.value and (
                r.Phi is None and g.Phi is None or np.array_equal(r.Phi, g.Phi))
            n_same += same
            if r.status == g.status == "optimal":
                n_opt += 1
                dv = max(dv, abs(r.value - g.value))
                gap = max(gap, g.certificate.value, r.certificate.value)
    return dict(loop=t_loop, batch=t_batch, ratio=t_loop / t_batch, n=n, status_agree=n_status,
                identical=n_same, optimal=n_opt, max_dvalue=dv, max_gap=gap)


def show(name: str, r: dict) -> None:
    print(f"{name:<34} loop {r['loop']:7.2f} s   batch {r['batch']:6.3f} s   ratio {r['ratio']:5.1f}   "
          f"status agree {r['status_agree']}/{r['n']}   bit-identical {r['identical']}/{r['n']}   "
          f"optimal {r['optimal']}   max |ΔJ_p| {r['max_dvalue']:.1e}   max gap {r['max_gap']:.1e}")


def audit_rows() -> None:
    spec = pr.AUDIT_PROBLEM
    X, y, _, _ = pr.audit_pair(0)
    rng = np.random.default_rng(np.random.SeedSequence([0, 5104]))
    draws = [lm.sample_perturbation(spec["d"], spec["eps"], rng) for _ in range(2000)]
    b = np.array([bj for bj in draws if lm.is_bounded_below(spec["lam"], bj, spec["d"])])
    kw = dict(tol=spec["tol"], max_iter=spec["max_iter"], on_failure="return")
    show(f"(a) audit problem, {len(b)}/2000 bounded", compare([(X, y, spec["K"], spec["lam"], pr.H, b, kw)]))


def check_rows() -> None:
    total = dict(loop=0.0, batch=0.0)
    for name, spec in pr.THM5_VARIANTS.items():
        problems = []
        for s in range(10):
            rng = np.random.default_rng(np.random.SeedSequence([s, 4052]))
            X, y = lm.gaussian_classes(spec["n"], spec["d"], spec["K"], rng, sigma=spec["sigma"])
            draws = [lm.sample_perturbation(spec["d"], spec["eps"], rng) for _ in range(50)]
            b = np.array([bj for bj in draws if lm.is_bounded_below(spec["lam"], bj, spec["d"])])
            problems.append((X, y, spec["K"], spec["lam"], spec["h"], b,
                             dict(tol=1e-6, max_iter=2000, on_failure="return")))
        r = compare(problems)
        total["loop"] += r["loop"]
        total["batch"] += r["batch"]
        show(f"(b) check trial {name}", r)
    print(f"{'(b) all three variants':<34} loop {total['loop']:7.2f} s   batch {total['batch']:6.3f} s   "
          f"ratio {total['loop'] / total['batch']:5.1f}")


def audit_end_to_end() -> None:
    def one_at_a_time(X, y, K, lam, h, b, **kw):
        return [lm.solve(X, y, K, lam, h, b=bj, **kw) for bj in b]

    tb, rows = best_of(lambda: pr.audits(n=20_000, seed=0), 2)
    batched = pr.solve_batch
    pr.solve_batch = one_at_a_time
    try:
        t = time.perf_counter()
        ref = pr.audits(n=20_000, seed=0)
        tl = time.perf_counter() - t
    finally:
        pr.solve_batch = batched
    same = all(a.details == b.details and a.statistic == b.statistic for a, b in zip(rows, ref, strict=True))
    print(f"{'(c) audits(n=20000), end to end':<34} loop {tl:7.2f} s   batch {tb:6.3f} s   ratio {tl / tb:5.1f}   "
          f"rows identical {same}   eps_lower {[round(r.statistic, 4) for r in rows]}")


if __name__ == "__main__":
    with threadpool_limits(1):
        print(f"emulated einsum order exact on this machine: {lm._fast_kernels_exact()}")
        audit_rows()
        check_rows()
        audit_end_to_end()
