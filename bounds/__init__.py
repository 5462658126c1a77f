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

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .core import Evaluation, Registry, Statement
    from .discovery import build_registry, discover_papers
    from .evidence import STATUSES, Check, Result
    from .paper import Paper

    #: the registry of every discovered paper, with the default symbolic snapshot
    #: (:mod:`bounds.snapshot`); built on first use, so ``import bounds`` stays cheap
    registry: Registry
    #: the discovered papers by id
    PAPERS: dict[str, Paper]


#: the public names loaded on first use (module ``__getattr__``): ``import bounds`` imports neither sympy
#: nor numpy, so that ``python -m bounds --help``, :mod:`bounds._lazy` and the numeric commands start fast
_LAZY = {"Evaluation": "core", "Registry": "core", "Statement": "core", "build_registry": "discovery",
         "discover_papers": "discovery", "STATUSES": "evidence", "Check": "evidence", "Result": "evidence",
         "Paper": "paper"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        obj = getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
        globals()[name] = obj
        return obj
    if name in ("registry", "PAPERS"):
        from .discovery import build_registry
        from .snapshot import Store

        reg = build_registry(store=Store.default())
        globals()["registry"] = reg
        globals()["PAPERS"] = reg.papers
        return globals()[name]
    if not name.startswith("_"):        # a submodule the eager imports of earlier versions loaded (bounds.core ...)
        import importlib.util

        if importlib.util.find_spec(f"{__name__}.{name}") is not None:
            import importlib

            return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'bounds' has no attribute {name!r}")


def _registry() -> Registry:
    return globals().get("registry") or __getattr__("registry")


def get(key: str | Statement) -> Statement:
    """Return the statement registered under ``key``."""
    return _registry().get(key)


def evaluate(key: str | Statement) -> Evaluation:
    """Run (or fetch from the cache or the symbolic snapshot) the derivation checks of ``key``."""
    return _registry().evaluate(key)


def value(key: str | Statement, values: dict[str, float] | None = None, which: str | None = None,
          **kw: float) -> float:
    """Evaluate statement ``key`` at the given parameter values (see :meth:`Registry.value`).
    ``which=None`` (default) uses the form the registry recommends for numbers (the derived one for an
    erratum), ``which="derived"`` the derived form (or raises), ``which="stated"`` the paper's printed one.
    """
    from collections.abc import Mapping

    if values is not None and not isinstance(values, Mapping):
        raise ValueError(f"statement {key!r}: parameter 'values' must be a mapping of parameter names to "
                         f"numbers, not {type(values).__name__}")
    both = sorted(set(values or {}) & set(kw))
    if both:
        raise ValueError(f"statement {key!r}: parameter {both[0]!r} given twice (in 'values' and as a keyword)")
    from .core import as_key

    key = as_key(key)
    vals = dict(values or {})
    vals.update(kw)
    return _registry().value(key, vals, which=which)


__all__ = ["PAPERS", "STATUSES", "Check", "Evaluation", "Paper", "Registry", "Result", "Statement",
           "build_registry", "discover_papers", "evaluate", "get", "registry", "value"]
