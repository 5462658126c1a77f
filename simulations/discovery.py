"""Finding what the papers declare in their trial modules.

A paper is one unit: its simulations live in ``simulations/trials/<paper id>.py``
and declare, as module-level tuples, what shared code may use by name —
``MECHANISMS`` (:class:`~simulations.mechanisms.Mechanism`) and ``UTILITY_SETUPS``
(:class:`~simulations.trials.utility.UtilitySetup`).  Nothing here lists a
paper: the ids come from :mod:`bounds` (every paper it discovered), and a paper
without a trial module, or without a declaration, contributes nothing.

This module imports neither :mod:`simulations.mechanisms` nor
:mod:`simulations.trials.utility` (they import it), so it does not check the
declared objects' types; it checks that names are unique and that a mechanism's
name starts with its paper's id.

Examples
--------
>>> from simulations.discovery import mechanisms, paper_module, trial_paper_ids, utility_setups
>>> pid = trial_paper_ids()[0]
>>> paper_module(pid).__name__ == f"simulations.trials.{pid}"
True
>>> paper_module("no_such_paper") is None
True
>>> all(name.split(".")[0] in trial_paper_ids() for name in mechanisms())
True
>>> all(s.name == name for name, s in utility_setups().items())
True
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType
from typing import Any

import bounds

#: the package that holds one trial module per paper
PACKAGE = "simulations.trials"


def paper_ids() -> list[str]:
    """The ids of every paper :mod:`bounds` discovered, in its order."""
    return list(bounds.registry.papers)


def paper_module(pid: str) -> ModuleType | None:
    """The trial module ``simulations.trials.<pid>`` (imported), or None when the paper has none."""
    name = f"{PACKAGE}.{pid}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


def trial_paper_ids() -> list[str]:
    """The ids of the papers that have a trial module, in :mod:`bounds` order."""
    return [pid for pid in paper_ids() if paper_module(pid) is not None]


def declarations(attr: str) -> list[tuple[str, Any]]:
    """``(paper id, item)`` for every item of the module-level tuple ``attr`` of every paper's trial module."""
    out: list[tuple[str, Any]] = []
    for pid in paper_ids():
        mod = paper_module(pid)
        if mod is not None:
            out.extend((pid, item) for item in getattr(mod, attr, ()))
    return out


def _by_name(attr: str, prefixed: bool) -> dict[str, Any]:
    out: dict[str, Any] = {}
    owner: dict[str, str] = {}
    for pid, item in declarations(attr):
        name = item.name
        if prefixed and not name.startswith(f"{pid}."):
            raise ValueError(f"{attr} of {PACKAGE}.{pid} declares {name!r}, which does not start with {pid + '.'!r}")
        if name in out:
            raise ValueError(f"{attr}: {name!r} is declared by {PACKAGE}.{owner[name]} and {PACKAGE}.{pid}")
        out[name] = item
        owner[name] = pid
    return out


def mechanisms() -> dict[str, Any]:
    """Every declared :class:`~simulations.mechanisms.Mechanism` (``MECHANISMS``), by name, in paper order.

    Raises
    ------
    ValueError
        When a name is declared twice or does not start with its paper's id.
    """
    return _by_name("MECHANISMS", prefixed=True)


def utility_setups() -> dict[str, Any]:
    """Every declared :class:`~simulations.trials.utility.UtilitySetup` (``UTILITY_SETUPS``), by name, in paper order.

    Raises
    ------
    ValueError
        When a name is declared twice.
    """
    return _by_name("UTILITY_SETUPS", prefixed=False)
