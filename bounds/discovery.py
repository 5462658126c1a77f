"""Finding the papers: every module of :mod:`bounds.papers` that declares ``PAPER``.

Nothing registers itself at import time.  :func:`discover_papers` imports the
modules of a package and returns the :class:`~bounds.paper.Paper` objects they
declare, sorted by :attr:`~bounds.paper.Paper.order`; :func:`build_registry`
builds a :class:`~bounds.core.Registry` from them.  ``bounds.registry`` is the
registry of every discovered paper, built on first use (with the default symbolic
snapshot, :mod:`bounds.snapshot`).

Examples
--------
>>> from bounds.discovery import discover_papers, build_registry
>>> papers = discover_papers()
>>> all(p.statements for p in papers)
True
>>> reg = build_registry(papers[:1])      # an isolated registry of one paper
>>> set(reg.papers) == {papers[0].id}
True
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Iterable
from types import ModuleType
from typing import Any

from .core import Registry
from .paper import Paper

PACKAGE = "bounds.papers"


def paper_modules(package: str = PACKAGE) -> list[ModuleType]:
    """Import and return every module of ``package`` (sub-packages included, ``_private`` ones skipped)."""
    pkg = importlib.import_module(package)
    out = []
    for info in sorted(pkgutil.iter_modules(pkg.__path__), key=lambda i: i.name):
        if info.name.startswith("_"):
            continue
        out.append(importlib.import_module(f"{package}.{info.name}"))
    return out


def discover_papers(package: str = PACKAGE) -> list[Paper]:
    """The papers declared (as ``PAPER``) by the modules of ``package``, sorted by their order.

    Raises
    ------
    ValueError
        When a module declares no ``PAPER``, or two modules declare the same id.
    """
    papers: dict[str, Paper] = {}
    for mod in paper_modules(package):
        paper = getattr(mod, "PAPER", None)
        if not isinstance(paper, Paper):
            raise ValueError(f"module {mod.__name__} declares no PAPER (a bounds.paper.Paper)")
        if paper.id in papers:
            raise ValueError(f"paper id {paper.id!r} declared by {papers[paper.id].module} and {mod.__name__}")
        papers[paper.id] = paper
    return sorted(papers.values(), key=lambda p: (p.order, p.id))


def build_registry(papers: Iterable[Paper] | None = None, store: Any = None) -> Registry:
    """A new registry of ``papers`` (default: every discovered paper).

    ``store`` is a :class:`~bounds.snapshot.Store` of finished evaluations (default: none).
    """
    return Registry(discover_papers() if papers is None else papers, store=store)


def paper_ids(package: str = PACKAGE) -> list[str]:
    """The ids of the discovered papers, in order."""
    return [p.id for p in discover_papers(package)]
