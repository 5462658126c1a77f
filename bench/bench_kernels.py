"""CPU of the compiled trial kernels of issue 33 against their NumPy reference, on a default run's inputs.

Kernel: :func:`simulations.solvers.neighbour_grid_sup` — the grid maxima of |f_z − f_z̄| (and of the
clipped distance) for every index j and candidate c of the rank-2 neighbour scan, compiled in
:mod:`simulations._scan_numba`.  A default ``make verify`` reaches it from

* ``jamp._scan_round`` (clipped and unclipped sup; jamp sensitivity, 12 trials) and, in its
  round 0, ``neighbour_scan``'s own grid sup (the cross-check ``consistency``);
* ``neighbour_scan`` from jia's least-squares sensitivity search (``ls_worst_neighbour``: the
  screening and the sup-norm refinement scans; 6 trials, unsplit in the default profile).

The script runs those trials of the default profile (``verify/profiles.toml``: ``m_sens``,
``n_search``; the λ's and bases of :mod:`verify.empirical.jamp` and :mod:`verify.empirical.jia`)
once with the compiled path, records every call's inputs, then times each call on both paths (CPU
time of this process, :func:`resource.getrusage`; best of ``--repeat``) and checks that the outputs
are byte-identical.  It prints, per caller: calls per default run, NumPy CPU, kernel CPU, ratio,
and the CPU a cold default run saves (NumPy − kernel, summed over its calls), and the whole trials'
CPU on both paths (``compiled=False`` is passed down).  The one-time costs: compiling the kernel
(``python -m simulations.jit`` pays it once per checkout) and loading it from the disk cache (each
worker process pays it once), measured in fresh subprocesses with their own cache directory.

No assertions (tests never time; ``tests/test_kernels.py`` checks the bits).
``--helper-d`` times only helper D's levers (issue 33, trials; :func:`bench_helper_d`): the
vectorised Sobolev Gram pass, jamp's compiled ``sobolev1_eval``, the SVM trial's hinge rows and the
shared evaluation of f_ρ, L_K f_ρ, f_λ, each NumPy (or the previous kernel) vs new, with a bit check.
Run: ``python bench/bench_kernels.py [--repeat 2] [--no-trials] [--helper-d]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import tomllib
from collections import defaultdict
from functools import partial
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from simulations import solvers as S  # noqa: E402
from simulations.trials import jamp, jia  # noqa: E402


def cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def default_profile() -> dict:
    with open(ROOT / "verify" / "profiles.toml", "rb") as fh:
        return tomllib.load(fh)["default"]


def configs() -> list[tuple[str, object, dict]]:
    from verify.empirical import jamp as VJ
    from verify.empirical import jia as VI

    p = default_profile()
    out = [("jamp", jamp.sensitivity_trial, jamp.default_config(m=int(m), lam=lam, base=base,
                                                                n_search=int(p["n_search"])))
           for m in p["m_sens"] for lam in VJ.SENS_LAMBDAS for base in VJ.SENS_BASES]
    out += [("jia", jia.ls_sensitivity_trial, {"m": int(m), "lam": lam, "n_search": int(p["n_search"])})
            for m in p["m_sens"] for lam in VI.SENS_LAMS]
    return out


def record(cfgs) -> dict[str, list]:
    """Run the trials on the compiled path; every neighbour_grid_sup call's arguments by caller."""
    calls: dict[str, list] = defaultdict(list)
    orig = S.neighbour_grid_sup
    caller = {"name": ""}

    def spy(*args, **kw):
        clip = len(args) > 8 and args[8] is not None
        key = f"{caller['name']}: " + ("jamp._scan_round (sup + clipped sup)" if clip else "neighbour_scan (sup)")
        calls[key].append((args, {k: v for k, v in kw.items() if k != "compiled"}))
        return orig(*args, **kw)

    S.neighbour_grid_sup = spy
    jamp.neighbour_grid_sup = spy
    try:
        for i, (name, fn, cfg) in enumerate(cfgs):
            caller["name"] = name
            fn(cfg, np.random.default_rng(np.random.SeedSequence([33, i])))
    finally:
        S.neighbour_grid_sup = orig
        jamp.neighbour_grid_sup = orig
    return calls


def time_calls(calls: dict[str, list], repeat: int) -> None:
    print(f"{'caller':<46} {'calls':>5} {'NumPy s':>8} {'kernel s':>8} {'ratio':>6} {'saved s':>8}  identical")
    tot_n = tot_k = 0.0
    for key, lst in sorted(calls.items()):
        tn = tk = 0.0
        same = True
        for args, kw in lst:
            best_n = best_k = float("inf")
            for _ in range(repeat):
                t = cpu()
                ref = S.neighbour_grid_sup(*args, **kw, compiled=False)
                best_n = min(best_n, cpu() - t)
                t = cpu()
                got = S.neighbour_grid_sup(*args, **kw, compiled=True)
                best_k = min(best_k, cpu() - t)
            same &= ref[0].tobytes() == got[0].tobytes() and (
                ref[1] is None and got[1] is None or ref[1].tobytes() == got[1].tobytes())
            tn += best_n
            tk += best_k
        tot_n += tn
        tot_k += tk
        print(f"{key:<46} {len(lst):>5} {tn:>8.2f} {tk:>8.2f} {tn / max(tk, 1e-9):>5.1f}x {tn - tk:>8.2f}  {same}")
    print(f"{'all calls':<46} {sum(map(len, calls.values())):>5} {tot_n:>8.2f} {tot_k:>8.2f} "
          f"{tot_n / max(tot_k, 1e-9):>5.1f}x {tot_n - tot_k:>8.2f}")


def time_trials(cfgs) -> None:
    """The whole trials on both paths (the NumPy path forced by a wrapper of neighbour_grid_sup)."""
    rows = []
    for compiled in (False, True):
        orig = S.neighbour_grid_sup
        if not compiled:
            S.neighbour_grid_sup = lambda *a, _f=orig, **k: _f(*a, **{**k, "compiled": False})
            jamp.neighbour_grid_sup = S.neighbour_grid_sup
        per = defaultdict(float)
        outs = []
        try:
            for i, (name, fn, cfg) in enumerate(cfgs):
                t = cpu()
                outs.append(fn(cfg, np.random.default_rng(np.random.SeedSequence([33, i]))))
                per[name] += cpu() - t
        finally:
            S.neighbour_grid_sup = orig
            jamp.neighbour_grid_sup = orig
        rows.append((per, outs))
    (pn, on), (pk, ok) = rows
    same = all(_same_out(a, b) for a, b in zip(on, ok, strict=True))
    for name in pn:
        print(f"trials {name:<5}: NumPy {pn[name]:6.2f} s CPU, compiled {pk[name]:6.2f} s CPU "
              f"({pn[name] / max(pk[name], 1e-9):.1f}x, saved {pn[name] - pk[name]:.2f} s)")
    print(f"trial outputs identical on both paths: {same}")


def _same_out(a, b) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same_out(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same_out(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, (float, int, np.floating, np.integer, np.ndarray)):
        return np.asarray(a).tobytes() == np.asarray(b).tobytes()
    return a == b


_ONE_CALL = ("import resource, numba, numpy as np; from simulations import jit, solvers;"
             "r = resource.getrusage; t = r(resource.RUSAGE_SELF); jit._scan();"
             "u = r(resource.RUSAGE_SELF); print(u.ru_utime + u.ru_stime - t.ru_utime - t.ru_stime)")


def one_time_costs() -> None:
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=str(ROOT))
        res = []
        for _ in range(2):          # compile (empty cache), then load (cache filled)
            out = subprocess.run([sys.executable, "-c", _ONE_CALL], env=env, capture_output=True, text=True,
                                 check=True, cwd=ROOT)
            res.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"one-time: compile {res[0]:.2f} s CPU (once per checkout, in python -m simulations.jit); "
          f"load from cache {res[1]:.2f} s CPU (once per worker process; numba already imported)")


def _best(fn, repeat: int, inner: int) -> float:
    """Best CPU seconds per call of ``fn()`` over ``repeat`` rounds of ``inner`` calls."""
    best = float("inf")
    for _ in range(repeat):
        c = cpu()
        for _ in range(inner):
            fn()
        best = min(best, (cpu() - c) / inner)
    return best


def bench_helper_d(repeat: int) -> None:
    """Helper D's levers (issue 33, trials), NumPy vs new in this process, with a bit-identity check each:
    the vectorised Sobolev Gram pass, jamp's compiled ``sobolev1_eval``, the SVM trial's hinge rows,
    and f_ρ, L_K f_ρ, f_λ at one sample evaluated together (``evaluate_series``)."""
    from simulations import _loops_numba as L
    from simulations.data import evaluate_series
    from simulations.kernels import (
        CircleKernelBase,
        PeriodicSobolevKernel,
        _bernoulli_coeffs,
        _closed_form_prefactor,
    )

    rng = np.random.default_rng(0)
    print("helper D (issue 33): CPU per call, best of", repeat, "rounds; same = outputs byte-identical")
    for s_, m in ((1, 200), (1, 1600), (2, 200), (2, 1600)):
        x = rng.random(m)
        K = PeriodicSobolevKernel.with_kappa(s=s_, kappa=1.0)
        args = (np.array(_bernoulli_coeffs(2 * s_)), _closed_form_prefactor(s_), K.mu0, K.scale)
        inner = max(1, 2_000_000 // (m * m))
        ref = CircleKernelBase.__call__(K, x, x)
        t_np = _best(partial(CircleKernelBase.__call__, K, x, x), repeat, inner)
        t_old = _best(partial(L._sobolev_gram_any, x, x, *args), repeat, inner)
        t_new = _best(partial(L.sobolev_gram, x, x, *args), repeat, inner)
        same = _same_out(ref, L.sobolev_gram(x, x, *args)) and _same_out(ref, L._sobolev_gram_any(x, x, *args))
        print(f"  sobolev_gram s={s_} m={m}: NumPy {t_np * 1e3:.2f} ms, fmod loop {t_old * 1e3:.2f} ms, "
              f"vectorised {t_new * 1e3:.2f} ms: {t_old / t_new:.1f}x vs the previous kernel, same={same}")
    K = PeriodicSobolevKernel.with_kappa(s=1, kappa=1.0)
    for m, n in ((200, 200), (1600, 1600), (6400, 6400), (6400, 16384)):
        c, a, t = rng.random(m), rng.standard_normal(m), rng.random(n)
        plan = jamp._sobolev1_plan(c, t)
        inner = max(1, 400_000 // (m + n))
        t_np = _best(partial(jamp.sobolev1_eval, K, c, a, t, plan=plan, compiled=False), repeat, inner)
        t_nb = _best(partial(jamp.sobolev1_eval, K, c, a, t, plan=plan), repeat, inner)
        same = _same_out(jamp.sobolev1_eval(K, c, a, t, plan=plan, compiled=False),
                         jamp.sobolev1_eval(K, c, a, t, plan=plan))
        print(f"  sobolev1_eval m={m} n={n}: NumPy {t_np * 1e3:.3f} ms, numba {t_nb * 1e3:.3f} ms: "
              f"{t_np / t_nb:.1f}x, same={same}")
    for m in (200, 1600):
        y = np.where(rng.random(m) < 0.5, -1.0, 1.0)
        fx, b = rng.standard_normal(m), rng.laplace(0.0, 0.3, 1000)

        def hinge_np(y=y, fx=fx, b=b):
            return np.mean(np.maximum(0.0, 1 - y[None, :] * (fx[None, :] + b[:, None])), axis=1)

        inner = max(1, 2000 // m)
        t_np = _best(hinge_np, repeat, inner)
        t_nb = _best(lambda y=y, fx=fx, b=b: L.hinge_row_means(y, fx, b), repeat, inner)
        print(f"  hinge rows m={m}, 1000 draws: NumPy {t_np * 1e3:.2f} ms, numba {t_nb * 1e3:.2f} ms: "
              f"{t_np / t_nb:.1f}x, same={_same_out(hinge_np(), L.hinge_row_means(y, fx, b))}")
    P = jia._ls_problem({})
    fl = P.f_lambda(0.1)
    series = [P.f_rho_series, P.lk_series(), fl]
    for m in (200, 1600):
        x = rng.random(m)
        inner = max(1, 4000 // m)
        t_sep = _best(lambda x=x: [f(x) for f in series], repeat, inner)
        t_sh = _best(lambda x=x: evaluate_series(series, x), repeat, inner)
        same = all(_same_out(u, v) for u, v in zip([f(x) for f in series], evaluate_series(series, x), strict=True))
        print(f"  f_rho, L_K f_rho, f_lambda at m={m} ({series[0].freqs.size} frequencies): separate "
              f"{t_sep * 1e3:.2f} ms, shared {t_sh * 1e3:.2f} ms: {t_sep / t_sh:.1f}x, same={same}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-trials", action="store_true", help="skip timing the whole trials on both paths")
    ap.add_argument("--one-time", action="store_true", help="only the one-time compile and load costs")
    ap.add_argument("--helper-d", action="store_true", help="only helper D's trial levers (issue 33)")
    a = ap.parse_args()
    if a.helper_d:
        bench_helper_d(max(a.repeat, 3))
        return 0
    if a.one_time:
        one_time_costs()
        return 0
    S.neighbour_grid_sup(np.ones((2, 2)), np.ones((2, 1)), np.zeros((2, 1)), 1.0, np.ones(2),
                         np.ones((2, 1)), np.ones((2, 1)), np.ones(2), np.ones(2), 1.0)   # load the kernel
    cfgs = configs()
    print(f"default profile: {sum(c[0] == 'jamp' for c in cfgs)} jamp sensitivity trials, "
          f"{sum(c[0] == 'jia' for c in cfgs)} jia LS sensitivity trials")
    calls = record(cfgs)
    time_calls(calls, a.repeat)
    if not a.no_trials:
        time_trials(cfgs)
    bench_helper_d(max(a.repeat, 3))
    one_time_costs()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
