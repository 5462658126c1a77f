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
