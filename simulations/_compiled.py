"""The compiled-kernel modules (``simulations._*numba``), imported on first use.

Kept apart from :mod:`simulations.jit` (which imports the solvers to warm them) so that the
solvers can load their kernels without an import cycle.
"""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType

_MODULES: dict[str, ModuleType | None] = {}


def compiled_module(name: str) -> ModuleType | None:
    """The compiled-kernel module ``simulations.<name>`` imported on first use (importing numba costs
    ~0.2 s), or None when it cannot be imported (numba missing, or no writable cache directory:
    a RuntimeWarning says so); the caller then uses its NumPy path.

    Examples
    --------
    >>> from simulations._compiled import compiled_module
    >>> compiled_module("_svm_numba").__name__
    'simulations._svm_numba'
    """
    if name not in _MODULES:
        try:
            _MODULES[name] = importlib.import_module(f"simulations.{name}")
        except ImportError:
            _MODULES[name] = None
        except Exception as err:  # e.g. numba finds no writable cache directory
            warnings.warn(f"simulations.{name}: the compiled kernels are unavailable "
                          f"({type(err).__name__}: {err}); using the NumPy path", RuntimeWarning, stacklevel=2)
            _MODULES[name] = None
    return _MODULES[name]
