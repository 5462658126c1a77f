"""Benchmark of a privacy audit (issue 5 goal: 10^5 releases per data set of kernel least squares at
m = 500 in under a minute on 2 cores).

Rows:

* pair search: the hardest neighbour of 000 §5.1 at m = 500 (rank-2 neighbour scan over every
  index and 128 candidate replacements, values on a 128-point grid);
* audit: 10^5 releases per data set (value and function release models), vectorised;
* peer: the same releases produced the naive way, refitting the estimator
  ``DPKernelLeastSquares`` for every release (timed on 50 releases per data set and
  extrapolated); ratio = peer / engine.

No assertions: ``make bench`` prints, tests never time.  Run: ``python bench/bench_audit.py``.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulations.data import CircleRegression  # noqa: E402
from simulations.estimators import DPKernelLeastSquares  # noqa: E402
from simulations.mechanisms import laplace_scale  # noqa: E402
from simulations.pairs import kls_pair  # noqa: E402
from verify.audit import (  # noqa: E402
    audit,  # noqa: E402
    laplace_function,
    laplace_value,
)

M_DATA, LAM, EPS, N = 500, 0.1, 0.5, 100_000


def main() -> None:
    P = CircleRegression(r=0.5, s=1, sigma=0.1)
    t0 = time.perf_counter()
    pair = kls_pair(M_DATA, LAM, 0)
    t_pair = time.perf_counter() - t0
    scale = laplace_scale("jia.s5_1", "derived", kappa=P.kappa, lam=LAM, m=M_DATA, eps=EPS, M=P.M)
    g = pair["value_point"]
    i, j = pair["function_points"]
    t0 = time.perf_counter()
    rv = audit(*laplace_value(pair["f0"][g], pair["f1"][g], scale), n=N, seed=0)
    rf = audit(*laplace_function(pair["f0"], pair["f1"], i, j, scale), n=N, seed=0)
    t_audit = time.perf_counter() - t0
    # peer: refit per release (z only; z̄ costs the same)
    X, y = P.sample(M_DATA, np.random.default_rng(np.random.SeedSequence([0, M_DATA])))
    est = DPKernelLeastSquares(mechanism="jia.s5_1", lam=LAM, eps=EPS, kernel=P.kernel, M=P.M, allow_unverified=True)
    k_peer = 50
    t0 = time.perf_counter()
    for s in range(k_peer):
        est.set_params(random_state=s).fit(X, y).predict(pair["grid"][:, None])
    t_peer = (time.perf_counter() - t0) / k_peer * 2 * N * 2      # 2 data sets × 2 release models
    print(f"{'row':<52} {'seconds':>9}")
    print(f"{'pair search, m = 500 (all indices × 128 candidates)':<52} {t_pair:>9.2f}")
    print(f"{'audit, 1e5 releases per data set, 2 release models':<52} {t_audit:>9.2f}")
    print(f"{'total (goal < 60 s)':<52} {t_pair + t_audit:>9.2f}")
    print(f"{'peer: refit per release (extrapolated)':<52} {t_peer:>9.0f}   ratio {t_peer / t_audit:,.0f}x")
    print(f"eps_lower: value {rv.eps_lower:.3f}, function {rf.eps_lower:.3f} (claimed {EPS})")


if __name__ == "__main__":
    main()
