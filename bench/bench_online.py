"""Benchmark of the online recursion (3) of seed 003 without the T × T Gram matrix.

Seed ``003_8ef3daf3084cc981.txt``, equation (3), on the circle with the periodic Sobolev
kernel (s = 1), the work of ``simulations.trials.jcc.thm2_trial`` from a sample (x, y) to the
coefficients a of f_T and the error quadratic (e₀², c₁, 1/μ₀) of ``release_error_sq``:

* old: the Gram matrix (``jcc.gram`` into a reused buffer, as the trial did), the O(T²)
  recursion ``online_kernel_regression`` and aᵀGa on G;
* new: ``online_kernel_regression_stream`` (block triangular solves, earlier blocks through
  prefix sums over the sorted stream) and ``release_error_sq`` without G
  (``kernel_quadratic_form``, one sort).

Rows at T ∈ {1600, 6400} (problem ``smooth``, κ = 1, θ = 3/4, t₀ = (κ² + 1)^{1/θ}): best-of-3
times, ratio old/new (goal ≥ 5 at T = 6400), max |a_new − a_old| / max |a_old| and the
largest relative difference of e₀², c₁ (and of the full ``thm2_trial`` outputs against the
Gram-based trial).  No assertions: ``make bench`` prints, tests never time.
Run: ``OMP_NUM_THREADS=1 python bench/bench_online.py``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulations.online import (  # noqa: E402
    online_kernel_regression,
    online_kernel_regression_stream,
)
from simulations.trials import jcc as tr  # noqa: E402

KAPPA, THETA = 1.0, 0.75
_BUF: dict[str, np.ndarray] = {}


def old_path(P, x, y, theta, t0):
    """The former thm2_trial path: Gram matrix (reused buffer), O(T²) recursion, aᵀGa on G."""
    n = x.size * x.size
    if _BUF.get("g") is None or _BUF["g"].size < n:
        _BUF["g"] = np.empty(n)
    G = tr.gram(P.kernel, x, out=_BUF["g"])
    a = online_kernel_regression(G.T, y, theta, t0)
    return a, tr.release_error_sq(P, x, a, G)


def new_path(P, x, y, theta, t0):
    a = online_kernel_regression_stream(x, y, theta, t0, P.kernel)
    return a, tr.release_error_sq(P, x, a)


def best_of(fn, repeat: int = 3):
    best, out = math.inf, None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def old_trial(config, rng):
    """thm2_trial's outputs computed with the Gram path (numbers only, for the difference)."""
    P = tr._problem_of(config)
    X, y = P.sample(int(config["T"]), rng)
    x = X[:, 0]
    _, (e0sq, c1, im) = old_path(P, x, y, float(config["theta"]), float(config["t0"]))
    return e0sq, c1, im


def main() -> None:
    P = tr.problem("smooth", KAPPA)
    t0 = tr.min_t0(KAPPA, THETA)
    print(f"online recursion (3) + release error, problem smooth, kappa={KAPPA}, theta={THETA}")
    print(f"{'T':>6} {'old s':>9} {'new s':>9} {'ratio':>7} {'max|da|/max|a|':>15} "
          f"{'rel d e0sq':>11} {'rel d c1':>10} {'trial rel d':>12}")
    for T in (1600, 6400):
        X, y = P.sample(T, np.random.default_rng(np.random.SeedSequence([3, T])))
        x = X[:, 0]
        t_old, (a_old, q_old) = best_of(lambda x=x, y=y: old_path(P, x, y, THETA, t0))
        t_new, (a_new, q_new) = best_of(lambda x=x, y=y: new_path(P, x, y, THETA, t0))
        da = float(np.abs(a_new - a_old).max() / np.abs(a_old).max())
        de0 = abs(q_new[0] - q_old[0]) / abs(q_old[0])
        dc1 = abs(q_new[1] - q_old[1]) / abs(q_old[1])
        cfg = dict(problem="smooth", kappa=KAPPA, theta=THETA, t0=t0, T=T, scale=0.1, n_noise=10,
                   levels=[0.5, 1.0])
        new = tr.thm2_trial(cfg, np.random.default_rng(7))
        old = old_trial(cfg, np.random.default_rng(7))
        keys = ("e0sq", "c1", "inv_mu0")
        dtr = max(abs(new[k] - o) / abs(o) for k, o in zip(keys, old, strict=True))
        print(f"{T:>6} {t_old:>9.4f} {t_new:>9.4f} {t_old / t_new:>7.1f} {da:>15.2e} "
              f"{de0:>11.2e} {dc1:>10.2e} {dtr:>12.2e}")
    print("goal: ratio >= 5 at T = 6400; differences <= 1e-10 (relative)")


if __name__ == "__main__":
    main()
