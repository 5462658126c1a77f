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
Run: ``python bench/bench_kernels.py [--repeat 2] [--no-trials]``.
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


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-trials", action="store_true", help="skip timing the whole trials on both paths")
    ap.add_argument("--one-time", action="store_true", help="only the one-time compile and load costs")
    a = ap.parse_args()
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
    one_time_costs()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
