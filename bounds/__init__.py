"""bounds: the symbolic layer of dp-erm-verify.

Every bound of the seed papers as a sympy :class:`~bounds.core.Statement`
with its assumptions and source, re-derived from its premises by
:mod:`bounds.checks`.  This package imports nothing else of the project.

Examples
--------
>>> import bounds
>>> st = bounds.get("jia.thm2")
>>> st.label, st.seed
('Theorem 2', '000_c13e7e0f812f87df.txt')
>>> bounds.registry.evaluate("jia.thm2").status
'consistent'
"""

from __future__ import annotations

from .core import PAPERS, Check, Evaluation, Registry, Statement

registry = Registry()

# one module per seed paper, in seed order; each registers its statements into ``registry``
# isort: off
from . import nie_wang_2017_jia  # noqa: E402,F401  seed 000
from . import nie_wang_2017_jamp  # noqa: E402,F401  seed 001
from . import talwar_thakurta_zhang_2014  # noqa: E402,F401  seed 002
from . import online_kernel_2017_jcc  # noqa: E402,F401  seed 003
from . import pathak_raj_2010  # noqa: E402,F401  seed 004
# isort: on

def get(key: str) -> Statement:
    """Return the statement registered under ``key``."""
    return registry.get(key)


def evaluate(key: str) -> Evaluation:
    """Run (or fetch from cache) the derivation checks of ``key``."""
    return registry.evaluate(key)


def value(key: str, values: dict[str, float] | None = None, which: str = "derived", **kw: float) -> float:
    """Evaluate statement ``key`` at the given parameter values (see :meth:`Registry.value`).

    Examples
    --------
    >>> import bounds
    >>> round(bounds.value("jia.prop1.scale", kappa=1, C_L=1, lam=0.1, gamma=2, m=100, eps=0.5), 4)
    0.2
    """
    vals = dict(values or {})
    vals.update(kw)
    return registry.value(key, vals, which=which)


__all__ = ["PAPERS", "Check", "Evaluation", "Registry", "Statement", "registry", "get", "evaluate", "value"]
