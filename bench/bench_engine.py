"""Benchmark of the Monte Carlo engine against naive peers run in the same process.

Rows (ratio = peer time / engine time, higher is better):

* noise draws: 1000 private releases of the first declared kernel-least-squares
  privacy–utility setup (:func:`simulations.discovery.utility_setups`), the engine
  fitting once and vectorising the Laplace draws over the held-out set
  (``utility_trial``), against the estimator refitted per release
  (``DPKernelLeastSquares(...).fit`` 1000 times, timed on 50 and scaled);
* executor: 200 trials on ``local`` (all cores) against ``serial`` (pool start-up included);
* cache: rerunning the same 200 trials from the content-addressed cache against
  computing them.

No assertions: ``make bench`` prints, tests never time.
Run: ``python bench/bench_engine.py``.
"""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from simulations.estimators import DPKernelLeastSquares  # noqa: E402
from simulations.kernels import GaussianKernel  # noqa: E402
from simulations.runner import run_trials  # noqa: E402
from simulations.trials.utility import _dataset, utility_setups, utility_trial  # noqa: E402


def timed(fn):
    t = time.perf_counter()
    out = fn()
    return time.perf_counter() - t, out


def main() -> None:
    setup = next(s for s in utility_setups().values() if s.fit == "kls")
    D = _dataset(setup.dataset)
    m = D.n_train
    lam = float(m ** (-4 / 9))
    cfg = {"dataset": setup.dataset, "algorithm": setup.name, "m": m, "lam": lam, "sigma": 0.6,
           "eps": [0.5], "n_noise": 1000}
    print(f"setup {setup.name}: {setup.dataset}, mechanism {setup.mechanism}")
    print(f"{'row':<44} {'engine s':>9} {'peer s':>9} {'ratio':>8}")
    utility_trial(cfg, np.random.default_rng(0))      # warm caches (data set, bounds lambdify)
    t_eng, _ = timed(lambda: utility_trial(cfg, np.random.default_rng(0)))
    est = DPKernelLeastSquares(mechanism=setup.mechanism, lam=lam, eps=0.5, allow_unverified=True, kernel=GaussianKernel(0.6),
                               M=D.M, random_state=0)
    X, y = D.sample(m, np.random.default_rng(0))
    n_peer = 50
    t_peer, _ = timed(lambda: [est.set_params(random_state=i).fit(X, y).predict(D.X_test) for i in range(n_peer)])
    t_peer *= 1000 / n_peer
    print(f"{'1000 releases: one fit vs refit per release':<44} {t_eng:>9.3f} {t_peer:>9.3f} {t_peer / t_eng:>7.1f}x")
    small = dict(cfg, n_noise=200)
    t_ser, a = timed(lambda: run_trials(utility_trial, small, 200, executor="serial"))
    t_loc, b = timed(lambda: run_trials(utility_trial, small, 200, executor="local"))
    assert a.equals(b)
    print(f"{'200 trials: local processes vs serial':<44} {t_loc:>9.3f} {t_ser:>9.3f} {t_ser / t_loc:>7.2f}x")
    with tempfile.TemporaryDirectory() as d:
        t_cold, _ = timed(lambda: run_trials(utility_trial, small, 200, cache=d))
        t_warm, _ = timed(lambda: run_trials(utility_trial, small, 200, cache=d))
    print(f"{'200 trials: from cache vs computed':<44} {t_warm:>9.3f} {t_cold:>9.3f} {t_cold / t_warm:>7.0f}x")


if __name__ == "__main__":
    main()
