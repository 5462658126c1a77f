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
difference of the objective values and the largest certified relative duality gap.

The compiled solver (``solve_batch(..., compiled=True)``, :mod:`simulations._large_margin_numba`;
goal: ≥ 10× over the loop of ``solve`` on seed 004's checks, every solve certified):

* (d) the Theorem 5.2/5.3 check trials' solves (the three ``THM5_VARIANTS``, the default
  profile's 50 draws per data set, ten data sets each): the loop of ``solve`` (the previous
  method), the NumPy ``solve_batch`` and the compiled path;
* (e) the iris utility trials' solves (50 trials × the four ε of ``UTILITY_EPS``, tol 1e-5,
  4000 iterations);
* (f) end to end: ``thm5_trial`` (ten data sets per variant, the inf J baseline and the L̃
  evaluation included) and ``utility_trials`` (50 trials, the cached baseline excluded),
  compiled against ``compiled=False`` (the NumPy batch, the trials' method before) and against
  one ``solve`` per draw;
* (g) the cost of one iteration (dual bound every 25 iterations included) for each shape;
* (h) the first-call JIT cost: compiling into an empty cache, then loading from it (fresh
  processes with their own ``NUMBA_CACHE_DIR``).

Agreement columns of (d)/(e): statuses equal; "flips" = problems certified by one engine and not
the other (with the largest gap/tol of the uncertified run: these problems stall near the
tolerance); the same count for the NumPy solver against itself with every b moved by one ulp
(``np.nextafter``), which shows how sensitive these statuses are to rounding; the largest
|ΔJ_p| of the problems certified by both, and its largest ratio to the larger certified gap
J_p − D of the two, floored at 1e−14·max(1, |J_p|) (≤ 1: the values agree to the certified
precision).

One BLAS thread; timings are the best of a few runs (the loop runs once); the machine may be
shared, so compare the ratios, which are measured in one process.  No assertions.
Run: ``python bench/bench_large_margin.py [rows]`` (rows: letters a–h, default all).
"""

from __future__ import annotations

import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from threadpoolctl import threadpool_limits  # noqa: E402

from simulations import large_margin as lm  # noqa: E402
from simulations.trials import pr as tr  # noqa: E402
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


# --------------------------------------------------------------------------- the compiled solver
def loop_solve(X, y, K, lam, h, b, **kw):
    """The previous method: one ``solve`` per draw."""
    return [lm.solve(X, y, K, lam, h, b=bj, **kw) for bj in b]


def agreement(ref: list, got: list, tol: float) -> dict:
    """Statuses, flips and value differences of ``got`` (compiled) against ``ref`` (NumPy)."""
    n = agree = both = flips = 0
    flip_gap = dv = ratio = 0.0
    for r, g in zip(ref, got, strict=True):
        n += 1
        agree += r.status == g.status
        if r.status != g.status and "unbounded" not in (r.status, g.status):
            flips += 1
            stalled = r if r.status == "not_converged" else g
            flip_gap = max(flip_gap, stalled.certificate.value / tol)
        if r.status == g.status == "optimal":
            both += 1
            d = abs(r.value - g.value)
            dv = max(dv, d)
            # the larger certified gap J_p − D, floored at rounding (a gap can be ≤ 0, e.g. Φ = 0)
            ratio = max(ratio, d / max(r.value - r.lower, g.value - g.lower, 1e-14 * max(1.0, abs(r.value))))
    return dict(n=n, agree=agree, both=both, flips=flips, flip_gap=flip_gap, dv=dv, ratio=ratio)


def compiled_compare(name: str, problems: list[tuple], tol: float, repeat: int = 3) -> None:
    """problems: (X, y, K, lam, h, b, kwargs); loop, NumPy batch, compiled, agreement."""
    t_loop = t_batch = t_comp = 0.0
    refs, gots, ulps = [], [], []
    for X, y, K, lam, h, b, kw in problems:
        t = time.perf_counter()
        loop_solve(X, y, K, lam, h, b, **kw)
        t_loop += time.perf_counter() - t
        tb, ref = best_of(lambda X=X, y=y, K=K, lam=lam, h=h, b=b, kw=kw:
                          lm.solve_batch(X, y, K, lam, h, b, **kw), 1)
        t_batch += tb
        tc, got = best_of(lambda X=X, y=y, K=K, lam=lam, h=h, b=b, kw=kw:
                          lm.solve_batch(X, y, K, lam, h, b, compiled=True, **kw), repeat)
        t_comp += tc
        ulp = lm.solve_batch(X, y, K, lam, h, np.nextafter(b, np.inf), **kw)
        refs += ref
        gots += got
        ulps += ulp
    a, u = agreement(refs, gots, tol), agreement(refs, ulps, tol)
    print(f"{name:<34} loop {t_loop:7.2f} s   NumPy batch {t_batch:6.2f} s   compiled {t_comp:6.3f} s   "
          f"ratio vs loop {t_loop / t_comp:5.1f}   vs batch {t_batch / t_comp:5.1f}")
    stalled = f"stalled gap ≤ {a['flip_gap']:.1f}·tol; " if a["flips"] else ""
    print(f"{'':<34} status agree {a['agree']}/{a['n']}   flips {a['flips']} ({stalled}"
          f"NumPy vs NumPy at b + 1 ulp: {u['flips']} flips)   "
          f"optimal in both {a['both']}   max |ΔJ_p| {a['dv']:.1e}   max |ΔJ_p|/gap {a['ratio']:.2f}")


def thm5_problems(n_sets: int = 10, n_draws: int = 50) -> dict[str, list[tuple]]:
    out = {}
    for name, spec in pr.THM5_VARIANTS.items():
        problems = []
        for s in range(n_sets):
            rng = np.random.default_rng(np.random.SeedSequence([s, 4052]))
            X, y = lm.gaussian_classes(spec["n"], spec["d"], spec["K"], rng, sigma=spec["sigma"])
            draws = [lm.sample_perturbation(spec["d"], spec["eps"], rng) for _ in range(n_draws)]
            b = np.array([bj for bj in draws if lm.is_bounded_below(spec["lam"], bj, spec["d"])])
            problems.append((X, y, spec["K"], spec["lam"], spec["h"], b,
                             dict(tol=1e-6, max_iter=2000, on_failure="return")))
        out[name] = problems
    return out


def compiled_check_rows() -> None:
    for name, problems in thm5_problems().items():
        compiled_compare(f"(d) check trial {name}", problems, 1e-6)


def utility_rows(n_trials: int = 50) -> None:
    D = tr.iris()
    rng = np.random.default_rng(np.random.SeedSequence([0, 2010]))
    draws = [lm.sample_perturbation(4, eps, rng) for _ in range(n_trials) for eps in pr.UTILITY_EPS]
    b = np.array([bj for bj in draws if lm.is_bounded_below(pr.UTILITY_LAM, bj, 4)])
    compiled_compare(f"(e) iris utility, {len(b)}/{len(draws)} bounded",
                     [(D["X_train"], D["y_train"], 3, pr.UTILITY_LAM, pr.H, b,
                       dict(tol=1e-5, max_iter=4000, on_failure="return"))], 1e-5)


def end_to_end_rows() -> None:
    def run_thm5(compiled: bool) -> None:
        for spec in pr.THM5_VARIANTS.values():
            lv = pr._thm5_levels(spec)
            cfg = dict(spec, n_noise=50, n_test=4000, tol=1e-6, max_iter=2000, compiled=compiled,
                       levels52=lv["52_stated"], levels53=lv["53_stated"])
            for s in range(10):
                tr.thm5_trial(cfg, np.random.default_rng(np.random.SeedSequence([s, 52])))

    ucfg = dict(lam=pr.UTILITY_LAM, h=pr.H, eps=list(pr.UTILITY_EPS), tol=1e-5, max_iter=4000)

    def run_utility(compiled: bool) -> None:
        tr.utility_trials(dict(ucfg, compiled=compiled),
                          [np.random.default_rng(np.random.SeedSequence([s, 7])) for s in range(50)])

    for v in pr.THM5_VARIANTS.values():  # the bounds' sympy work and the iris baselines, outside
        pr._thm5_levels(v)
    tr._baseline(ucfg["lam"], ucfg["h"], ucfg["tol"], True)
    tr._baseline(ucfg["lam"], ucfg["h"], ucfg["tol"], False)
    for label, run in (("thm5_trial, 3 × 10 data sets", run_thm5), ("utility_trials, 50 trials", run_utility)):
        tc, _ = best_of(lambda run=run: run(True), 2)
        t = time.perf_counter()
        run(False)
        tb = time.perf_counter() - t
        batched = tr.solve_batch
        tr.solve_batch = lambda X, y, K, lam, h, b, compiled=False, **kw: loop_solve(X, y, K, lam, h, b, **kw)
        try:
            t = time.perf_counter()
            run(False)
            tl = time.perf_counter() - t
        finally:
            tr.solve_batch = batched
        print(f"{'(f) ' + label:<34} one solve per draw {tl:6.2f} s   NumPy batch {tb:6.2f} s   "
              f"compiled {tc:6.3f} s   ratio vs loop {tl / tc:5.1f}   vs batch {tb / tc:5.1f}")


def per_iteration_rows(iters: int = 400) -> None:
    """µs per iteration on the slowest draw of each shape (tol = −1: never certified, so both
    engines make exactly ``iters`` iterations, the dual bound every 25 included)."""
    D = tr.iris()
    rng = np.random.default_rng(3)
    shapes = [(f"THM5 {name}", *probs[0][:4], probs[0][5]) for name, probs in thm5_problems(1, 20).items()]
    bi = [bj for bj in (lm.sample_perturbation(4, 100.0, rng) for _ in range(40))
          if lm.is_bounded_below(pr.UTILITY_LAM, bj, 4)]
    shapes.append(("iris (n = 105, d = 4, C = 3)", D["X_train"], D["y_train"], 3, pr.UTILITY_LAM, np.array(bi)))
    for name, X, y, K, lam, b in shapes:
        pre = lm.solve_batch(X, y, K, lam, pr.H, b, tol=1e-6, max_iter=iters, compiled=True, on_failure="return")
        bj = b[int(np.argmax([r.details["iterations"] for r in pre]))]
        kw = dict(tol=-1.0, max_iter=iters, on_failure="return")
        tn, rn = best_of(lambda X=X, y=y, K=K, lam=lam, bj=bj, kw=kw: lm.solve(X, y, K, lam, pr.H, b=bj, **kw), 2)
        tc, rc = best_of(lambda X=X, y=y, K=K, lam=lam, bj=bj, kw=kw:
                         lm.solve(X, y, K, lam, pr.H, b=bj, compiled=True, **kw), 5)
        un, uc = tn / rn.details["iterations"], tc / rc.details["iterations"]
        print(f"{'(g) per iteration, ' + name:<44} solve {1e6 * un:7.1f} µs   compiled {1e6 * uc:6.2f} µs   "
              f"ratio {un / uc:5.1f}   ({rn.details['iterations']}/{rc.details['iterations']} iterations)")


def jit_rows() -> None:
    code = ("import time, numpy as np; t = time.perf_counter(); "
            "from simulations import large_margin as lm; lm._numba_kernels(); t1 = time.perf_counter(); "
            "X, y = lm.gaussian_classes(10, 1, 2, np.random.default_rng(0)); "
            "lm.solve(X, y, 2, 1.0, 0.5, b=np.eye(2), compiled=True); "
            "lm.solve(X, y, 2, 1.0, 0.5, cone='closure', compiled=True, max_iter=50, on_failure='return'); "
            "print(time.perf_counter() - t1)")
    root = str(Path(__file__).resolve().parents[1])
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, OMP_NUM_THREADS="1")
        times = [float(subprocess.run([sys.executable, "-c", code], cwd=root, env=env, check=True,
                                      capture_output=True, text=True).stdout.split()[-1]) for _ in range(2)]
    print(f"{'(h) first-call JIT cost':<34} compile into an empty cache {times[0]:6.1f} s   "
          f"load from the cache {times[1]:6.2f} s")


ROWS = {"a": audit_rows, "b": check_rows, "c": audit_end_to_end, "d": compiled_check_rows,
        "e": utility_rows, "f": end_to_end_rows, "g": per_iteration_rows, "h": jit_rows}


if __name__ == "__main__":
    rows = sys.argv[1] if len(sys.argv) > 1 else "abcdefgh"
    with threadpool_limits(1):
        print(f"emulated einsum order exact on this machine: {lm._fast_kernels_exact()}")
        if lm._numba_kernels() is not None:
            lm.solve(*lm.gaussian_classes(10, 1, 2, np.random.default_rng(0)), 2, 1.0, 0.5,
                     b=np.eye(2), compiled=True)  # compile (or load) before any timing
        for key in rows:
            ROWS[key]()
