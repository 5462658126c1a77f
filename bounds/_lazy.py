"""Modules imported on first use, so that ``import bounds`` stays cheap.

SciPy's ``stats`` alone costs about 0.4 s to import; the papers use it only inside their
numeric checks, which the command line never runs when the symbolic snapshot is warm.

Examples
--------
>>> from bounds._lazy import lazy_module
>>> stats = lazy_module("scipy.stats")
>>> round(float(stats.norm.cdf(0.0)), 3)
0.5
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any


class _LazyModule(ModuleType):
    def __init__(self, name: str) -> None:
        super().__init__(name)
        self._lazy_name = name

    def __getattr__(self, attr: str) -> Any:
        mod = importlib.import_module(self._lazy_name)
        return getattr(mod, attr)


def lazy_module(name: str) -> ModuleType:
    """A stand-in for module ``name`` that imports it on the first attribute access."""
    return _LazyModule(name)


#: the variables that set the thread count of the BLAS/OpenMP pools numpy and scipy load
BLAS_THREAD_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
#: the same for the pools that follow the ones above (set together with them)
_OTHER_THREAD_ENV = ("VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS", "BLIS_NUM_THREADS")


def one_blas_thread(environ: Any = None) -> bool:
    """Give the BLAS/OpenMP pools of this process (and of the processes it starts) one thread,
    unless the user chose a count: when any of :data:`BLAS_THREAD_ENV` is set, nothing changes.

    The command lines (``python -m bounds``, ``python -m verify``) call it first thing, before
    numpy is imported: a single-process path gains nothing from BLAS threads on small matrices and
    contends with the worker processes (each limited to one thread too) or with other programs.
    When numpy is already loaded, its pools are limited now with threadpoolctl (if installed).
    Returns whether it set the variables.

    Examples
    --------
    >>> env = {"OMP_NUM_THREADS": "4"}
    >>> one_blas_thread(env), env                 # the user's choice stands
    (False, {'OMP_NUM_THREADS': '4'})
    >>> env = {}
    >>> one_blas_thread(env), env["OPENBLAS_NUM_THREADS"]
    (True, '1')
    """
    import os
    import sys

    env = os.environ if environ is None else environ
    if any(env.get(v) for v in BLAS_THREAD_ENV):
        return False
    for v in (*BLAS_THREAD_ENV, *_OTHER_THREAD_ENV):
        env.setdefault(v, "1")
    if environ is None and "numpy" in sys.modules:      # loaded already: its pools read the variables at load
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
            return True
        threadpool_limits(1)
    return True
