"""Privacy–utility trials on bundled real data: held-out risk of the released function against ε.

One trial draws m training rows (without replacement) from a
:class:`~simulations.data.RealDataset`, fits the exact regularised solution
once (certificate checked), and for every ε of the configuration and both
noise calibrations (``stated`` and ``derived``) releases ``n_noise`` noisy
copies, measuring their mean held-out risk.  The non-private fit (b = 0) is
the baseline.  The noise is one Laplace scalar added to the function, so the
draws vectorise over the held-out set.

The setups (data set, algorithm, mechanism, loss) are declared by the papers
in their trial modules as ``UTILITY_SETUPS = (UtilitySetup(...), ...)`` and
found by :func:`utility_setups`; the configuration's ``algorithm`` names a setup.

Examples
--------
>>> import numpy as np
>>> from simulations.trials.utility import utility_setups, utility_trial
>>> s = next(s for s in utility_setups().values() if s.loss == "square")
>>> cfg = {"dataset": s.dataset, "algorithm": s.name, "m": 100, "lam": 0.1,
...        "sigma": 0.5, "eps": [0.5], "n_noise": 10}
>>> out = utility_trial(cfg, np.random.default_rng(0))
>>> out["risk_nonprivate"] <= out["risk_derived_eps0.5"]
True
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import numpy as np

from simulations.runner import trial

from .. import discovery
from ..data import RealDataset, load_real_dataset
from ..kernels import GaussianKernel
from ..mechanisms import FITS, LOSSES, UtilitySetup  # noqa: F401  (re-exported)
from ..solvers import kls_fit, require_certificate, svm_fit

#: results depend on every paper's declared setups (read through discovery): see simulations.cache
__all_papers__ = "depends on every paper"







def utility_setups() -> dict[str, UtilitySetup]:
    """Every setup declared by a paper's trial module (``UTILITY_SETUPS``), by name, in paper order.

    See :func:`simulations.discovery.utility_setups`.
    """
    return discovery.utility_setups()


@lru_cache(maxsize=4)
def _dataset(name: str) -> RealDataset:
    return load_real_dataset(name, seed=0)


def _setup(name: str) -> UtilitySetup:
    setups = utility_setups()
    if name not in setups:
        raise ValueError(f"parameter 'algorithm' = {name!r} is not a declared setup: {', '.join(setups)}")
    return setups[name]


def _risk(values: np.ndarray, y: np.ndarray, loss: str) -> np.ndarray:
    """Mean loss over the held-out rows; ``values`` has shape (..., n_test)."""
    if loss == "square":
        return np.mean((values - y) ** 2, axis=-1)
    return np.mean(np.where(values >= 0, 1.0, -1.0) != y, axis=-1)


@trial(requires=('algorithm', 'dataset', 'eps', 'lam', 'm', 'n_noise', 'sigma'))
def utility_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """Held-out risk of the non-private fit and of the private releases at every ε.

    Config keys: ``dataset``, ``algorithm`` (a declared :class:`UtilitySetup`), ``m``,
    ``lam``, ``sigma`` (Gaussian bandwidth), ``eps`` (list), ``n_noise``.
    Outputs: ``risk_nonprivate``, ``risk_zero`` (the constant predictor 0,
    i.e. always +1 for classification), ``risk_{stated|derived}_eps{ε}``,
    ``gap`` (certificate).
    """
    D = _dataset(config["dataset"])
    setup = _setup(str(config["algorithm"]))
    mech = setup.mechanism.require(setup.fit, f"utility setup {setup.name!r}")
    loss = setup.loss
    m, lam = int(config["m"]), float(config["lam"])
    X, y = D.sample(m, rng)
    k = GaussianKernel(float(config["sigma"]))
    K = k(X)
    if setup.fit == "svm":
        res = svm_fit(K, y, lam)
    else:
        res = kls_fit(K, y, lam)
    require_certificate(res.certificate, result=res)
    f = k(D.X_test, X) @ res.alpha
    if mech.clip:
        f = np.clip(f, -D.M, D.M)
    out = {"risk_nonprivate": float(_risk(f, D.y_test, loss)),
           "risk_zero": float(_risk(np.zeros_like(f), D.y_test, loss)),
           "gap": float(res.certificate.value)}
    n = int(config["n_noise"])
    for eps in config["eps"]:
        b = mech.noise(1.0, (n, 1), rng)                 # one standard draw, scaled per calibration
        for which in ("stated", "derived"):
            s = mech.scale(which, kappa=k.kappa, lam=lam, m=m, eps=float(eps), M=D.M)
            out[f"risk_{which}_eps{eps:g}"] = _noise_risk(f, D.y_test, s * b, loss)
    return out


def _noise_risk(f: np.ndarray, y: np.ndarray, sb: np.ndarray, loss: str) -> float:
    """``float(np.mean(_risk(f[None, :] + sb, y, loss)))`` for noise ``sb`` of shape (n, 1), the same bits: in
    :func:`simulations._loops_numba.noise_risk_mean` (no (n × n_test) temporaries) for float64 inputs."""
    f = np.asarray(f)
    y = np.asarray(y)
    sb = np.asarray(sb)
    if f.dtype != np.float64 or sb.dtype != np.float64 or sb.ndim != 2 or sb.shape[1] != 1 or f.ndim != 1 \
            or y.shape != f.shape or y.dtype != np.float64 or f.size == 0 or sb.shape[0] == 0:
        return float(np.mean(_risk(f[None, :] + sb, y, loss)))
    from .._loops_numba import noise_risk_mean

    return float(noise_risk_mean(np.ascontiguousarray(f), np.ascontiguousarray(y),
                                 np.ascontiguousarray(sb[:, 0]), loss == "square"))
