"""bounds: the symbolic layer of dp-erm-verify.

Every bound of every paper as a sympy :class:`~bounds.core.Statement` with
its assumptions and source, re-derived from its premises by
:mod:`bounds.checks`.  A paper is one module of :mod:`bounds.papers` that
declares a :class:`~bounds.paper.Paper`; :data:`registry` holds the
statements of every discovered paper.  This package imports nothing else of
the project.

Examples
--------
>>> import bounds
>>> key = bounds.registry.keys()[0]
>>> bounds.get(key).source == bounds.registry.paper_of(key).source
True
>>> bounds.evaluate(key).status in bounds.STATUSES
True
"""

from __future__ import annotations

from .core import Evaluation, Registry, Statement
from .discovery import build_registry, discover_papers
from .evidence import STATUSES, Check, Result
from .paper import Paper

#: the registry of every discovered paper (built once, explicitly, from :func:`discover_papers`)
registry: Registry = build_registry()

#: the discovered papers by id
PAPERS: dict[str, Paper] = registry.papers


def get(key: str) -> Statement:
    """Return the statement registered under ``key``."""
    return registry.get(key)


def evaluate(key: str) -> Evaluation:
    """Run (or fetch from cache) the derivation checks of ``key``."""
    return registry.evaluate(key)


def value(key: str, values: dict[str, float] | None = None, which: str = "derived", **kw: float) -> float:
    """Evaluate statement ``key`` at the given parameter values (see :meth:`Registry.value`).
    ``which="stated"`` evaluates the paper's printed expression instead of the derived one.
    """
    vals = dict(values or {})
    vals.update(kw)
    return registry.value(key, vals, which=which)


__all__ = ["PAPERS", "STATUSES", "Check", "Evaluation", "Paper", "Registry", "Result", "Statement",
           "build_registry", "discover_papers", "evaluate", "get", "registry", "value"]
