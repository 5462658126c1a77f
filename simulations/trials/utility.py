"""Privacy–utility trials on bundled real data: held-out risk of the released function against ε.

One trial draws m training rows (without replacement) from a
:class:`~simulations.data.RealDataset`, fits the exact regularised solution
once (certificate checked), and for every ε of the configuration and both
noise calibrations (``stated`` and ``derived``) releases ``n_noise`` noisy
copies, measuring their mean held-out risk.  The non-private fit (b = 0) is
the baseline.  The noise is one Laplace scalar added to the function, so the
draws vectorise over the held-out set.

Algorithms: ``kls_jia`` (000 §5.1), ``kls_jamp`` (001, clipped to [−M, M]),
``svm`` (000 §5.2, risk = misclassification rate of sgn(f + b)).

Examples
--------
>>> import numpy as np
>>> from simulations.trials.utility import utility_trial
>>> cfg = {"dataset": "diabetes", "algorithm": "kls_jia", "m": 100, "lam": 0.1,
...        "sigma": 0.5, "eps": [0.5], "n_noise": 10}
>>> out = utility_trial(cfg, np.random.default_rng(0))
>>> out["risk_nonprivate"] <= out["risk_derived_eps0.5"]
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from simulations.runner import trial

from ..data import RealDataset, load_real_dataset
from ..kernels import GaussianKernel
from ..mechanisms import laplace_scale
from ..solvers import kls_fit, require_certificate, svm_fit

ALGORITHMS = {"kls_jia": "square", "kls_jamp": "square", "svm": "zero_one"}


@lru_cache(maxsize=4)
def _dataset(name: str) -> RealDataset:
    return load_real_dataset(name, seed=0)


def noise_scale(algorithm: str, which: str, *, kappa: float, lam: float, m: int, eps: float,
                M: float = 1.0) -> float:
    """Laplace scale of the algorithm's release (from :mod:`bounds`, stated or derived)."""
    vals = dict(kappa=kappa, lam=lam, m=m, eps=eps)
    if algorithm == "kls_jia":
        return laplace_scale("jia.s5_1", which, M=M, **vals)
    if algorithm == "kls_jamp":
        return laplace_scale("jamp.prop1", which, R=M / math.sqrt(lam), **vals)
    if algorithm == "svm":
        return laplace_scale("jia.s5_2", which, **vals)
    raise ValueError(f"parameter 'algorithm' = {algorithm!r} is not one of {', '.join(ALGORITHMS)}")


def _risk(values: np.ndarray, y: np.ndarray, loss: str) -> np.ndarray:
    """Mean loss over the held-out rows; ``values`` has shape (..., n_test)."""
    if loss == "square":
        return np.mean((values - y) ** 2, axis=-1)
    return np.mean(np.where(values >= 0, 1.0, -1.0) != y, axis=-1)


@trial(requires=('algorithm', 'dataset', 'eps', 'lam', 'm', 'n_noise', 'sigma'))
def utility_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Held-out risk of the non-private fit and of the private releases at every ε.

    Config keys: ``dataset``, ``algorithm`` (a key of :data:`ALGORITHMS`), ``m``,
    ``lam``, ``sigma`` (Gaussian bandwidth), ``eps`` (list), ``n_noise``.
    Outputs: ``risk_nonprivate``, ``risk_zero`` (the constant predictor 0,
    i.e. always +1 for classification), ``risk_{stated|derived}_eps{ε}``,
    ``gap`` (certificate).
    """
    D = _dataset(config["dataset"])
    alg = config["algorithm"]
    loss = ALGORITHMS[alg]
    m, lam = int(config["m"]), float(config["lam"])
    X, y = D.sample(m, rng)
    k = GaussianKernel(float(config["sigma"]))
    K = k(X)
    if alg == "svm":
        res = svm_fit(K, y, lam)
    else:
        res = kls_fit(K, y, lam)
    require_certificate(res.certificate, result=res)
    f = k(D.X_test, X) @ res.alpha
    if alg == "kls_jamp":
        f = np.clip(f, -D.M, D.M)
    out = {"risk_nonprivate": float(_risk(f, D.y_test, loss)),
           "risk_zero": float(_risk(np.zeros_like(f), D.y_test, loss)),
           "gap": float(res.certificate.value)}
    n = int(config["n_noise"])
    for eps in config["eps"]:
        b = rng.laplace(0.0, 1.0, size=(n, 1))          # one standard draw, scaled per calibration
        for which in ("stated", "derived"):
            s = noise_scale(alg, which, kappa=k.kappa, lam=lam, m=m, eps=float(eps), M=D.M)
            out[f"risk_{which}_eps{eps:g}"] = float(np.mean(_risk(f[None, :] + s * b, D.y_test, loss)))
    return out
