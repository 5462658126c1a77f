"""A paper as one declared unit: its source, its own symbols and its statements.

A paper module (``bounds/papers/<id>.py``) creates one :class:`Paper` named
``PAPER`` and adds its statements to it with :meth:`Paper.add`.  Nothing is
registered anywhere else: :func:`bounds.discovery.discover_papers` finds the
module, and a :class:`~bounds.core.Registry` is built explicitly from the
papers it is given, so a test can build one from a single synthetic paper.

A paper's source is either a seed file of this project or a bibliographic
citation; neither is privileged (:attr:`Paper.source`).

Examples
--------
>>> import sympy as sp
>>> from bounds.paper import Paper
>>> from bounds.symbols import S
>>> demo = Paper("demo", title="A demo", citation="Doe, J.: A demo paper. J. Demo 1 (2026)")
>>> beta = sp.Symbol("beta", positive=True)
>>> _ = demo.define("beta", beta, description="noise rate of the demo")
>>> st = demo.add("thm1", "Theorem 1", "theorem", "a bound", 1 / (beta * S.m), params=("beta", "m"),
...               doc="Doe (2026), Theorem 1, (3): the bound 1/(βm).")
>>> st.key, st.source, demo.symbols["beta"].hi
('demo.thm1', 'Doe, J.: A demo paper. J. Demo 1 (2026)', inf)
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import sympy as sp

from .core import Statement
from .symbols import SHARED, Namespace, Param, Regime

_ID = re.compile(r"^[a-z][a-z0-9_]*$")


class Paper:
    """One paper: source, symbols, statements, and the constants its bounds are picked at.

    Parameters
    ----------
    id : str
        Short id, the prefix of every statement key (``jia`` → ``jia.thm2``): lower case,
        letters, digits and underscores.
    title : str
        Short title for tables.
    citation : str
        Full bibliographic citation.
    seed : str, optional
        The seed file of this project the paper was read from (``000_c13e7e0f812f87df.txt``).
        Empty for a paper read from its citation.
    url : str, optional
        Where the paper can be read (DOI or publisher page).
    pick : mapping, optional
        Statement key → problem constants at which the report's ε/λ table picks that bound.
    regime : Regime, optional
        The ranges the paper operates in.
    order : str, optional
        Sort key among papers (default: the seed file name, else ``~`` + the id).
    calibrations : callable, optional
        ``() -> list of dict``: the paper's noise calibrations where a composition is involved, one
        row per mechanism with its ``stated``, ``derived`` and ``tight`` noise (see
        :mod:`bounds.accounting`); the report's calibration table reads it.  May also be assigned
        at the end of the paper module (``PAPER.calibrations = ...``).
    """

    def __init__(self, id: str, *, title: str, citation: str, seed: str = "", url: str = "",
                 pick: Mapping[str, Mapping[str, float]] | None = None, regime: Regime | None = None,
                 order: str | None = None, calibrations: Callable[[], list[dict]] | None = None) -> None:
        if not _ID.match(id):
            raise ValueError(f"parameter 'id' = {id!r} of a paper must be lower case letters, digits and '_'")
        if not citation:
            raise ValueError(f"paper {id}: parameter 'citation' must be given (the paper's source)")
        self.id = id
        self.title = title
        self.citation = citation
        self.seed = seed
        self.url = url
        self.pick: dict[str, dict[str, float]] = {k: dict(v) for k, v in (pick or {}).items()}
        self.order = order if order is not None else (seed or f"~{id}")
        self.calibrations = calibrations
        self.symbols = Namespace(parent=SHARED, name=id)
        self.regime = regime or Regime()
        self.statements: dict[str, Statement] = {}
        #: coverage: what of the paper is not encoded, and why (see :meth:`omit`)
        self.not_encoded: list[tuple[str, str]] = []
        self.module = ""
        self.file = ""
        frame = sys._getframe(1)
        self.module = frame.f_globals.get("__name__", "")
        self.file = frame.f_code.co_filename

    # -- regime ------------------------------------------------------------
    @property
    def regime(self) -> Regime:
        """The paper's operating regime (see :class:`~bounds.symbols.Regime`).

        Assign it at the end of the paper module, once its schedules are defined
        (``PAPER.regime = Regime(...)``); numeric checks read it from the namespace.
        """
        return self.symbols.regime

    @regime.setter
    def regime(self, value: Regime) -> None:
        if not isinstance(value, Regime):
            raise ValueError(f"paper {self.id}: parameter 'regime' must be a Regime, not {type(value).__name__}")
        for name in value.ranges:
            if name not in self.symbols:
                raise ValueError(f"paper {self.id}: regime range for unknown parameter {name!r}")
        for sched in value.schedules:
            for name in sched:
                if name not in self.symbols:
                    raise ValueError(f"paper {self.id}: regime schedule sets unknown parameter {name!r}")
        self.symbols.regime = value

    # -- source ------------------------------------------------------------
    @property
    def source(self) -> str:
        """The seed file for a seed paper, else the citation."""
        return self.seed or self.citation

    @property
    def source_kind(self) -> str:
        """``seed`` or ``citation``."""
        return "seed" if self.seed else "citation"

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "citation": self.citation, "seed": self.seed,
                "source": self.source, "source_kind": self.source_kind, "url": self.url,
                "module": self.module, "statements": len(self.statements),
                "not_encoded": [{"item": i, "why": w} for i, w in self.not_encoded]}

    # -- symbols -----------------------------------------------------------
    def define(self, name: str, symbol: sp.Symbol, **kw: Any) -> Param:
        """Define a parameter of this paper's own namespace (see :meth:`Namespace.define`)."""
        return self.symbols.define(name, symbol, **kw)

    # -- coverage ------------------------------------------------------------
    def omit(self, item: str, why: str) -> None:
        """Record a part of the paper that is not encoded (a theorem, an algorithm, a premise) and why.

        The report lists these per paper, so a reader sees what the verdicts do not cover.

        Examples
        --------
        >>> from bounds.paper import Paper
        >>> demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
        >>> demo.omit("Theorem 9 (lower bound)", "a minimax construction; nothing numeric to check")
        >>> demo.not_encoded
        [('Theorem 9 (lower bound)', 'a minimax construction; nothing numeric to check')]
        """
        if not item or not why:
            raise ValueError(f"paper {self.id}: parameters 'item' and 'why' of omit() must be non-empty")
        self.not_encoded.append((item, why))

    # -- statements --------------------------------------------------------
    def key(self, short: str) -> str:
        """``thm2`` → ``<id>.thm2`` (a key already prefixed is returned as is)."""
        return short if short.startswith(self.id + ".") else f"{self.id}.{short}"

    def add(self, key: str, label: str, kind: str, quantity: str, stated: sp.Expr | None,
            **kw: Any) -> Statement:
        """Add a statement of this paper (``key`` without the paper prefix, or with it).

        Dependencies and schedule entries may be given without the prefix as well; they are
        statements of this paper (a paper is a unit: it depends on no other paper's statements).
        The statement records its source, the paper's namespace and the line that added it.

        Raises
        ------
        ValueError
            For a key added twice, or an invalid statement.
        """
        full = self.key(key)
        if full in self.statements:
            raise ValueError(f"paper {self.id}: duplicate statement key {full!r}")
        deps = tuple(self.key(d) for d in kw.pop("depends", ()))
        sched = {k: self.key(v) for k, v in kw.pop("schedule", {}).items()}
        caller = sys._getframe(1)
        while caller.f_back is not None and caller.f_code.co_name in ("add", "_add", "_factory"):
            caller = caller.f_back   # a paper's own add() wrapper: report the line that called it
        st = Statement(full, self.seed, label, kind, quantity, stated, depends=deps, schedule=sched,
                       ns=self.symbols, source=self.source, file=caller.f_code.co_filename,
                       line=caller.f_lineno, **kw)
        self.statements[full] = st
        return st

    def get(self, key: str) -> Statement:
        """A statement of this paper by full or short key."""
        return self.statements[self.key(key)]

    def stated(self, key: str) -> sp.Expr:
        """The stated expression of one of this paper's statements."""
        st = self.get(key)
        if st.stated is None:
            raise ValueError(f"statement {st.key} has no stated expression")
        return st.stated

    def __repr__(self) -> str:
        return f"Paper({self.id!r}, {len(self.statements)} statements, source={self.source!r})"


def relpath(path: str | Path) -> str:
    """``path`` relative to the project root when it lies inside it."""
    p = Path(path).resolve()
    root = Path(__file__).resolve().parents[1]
    try:
        return str(p.relative_to(root))
    except ValueError:
        return str(p)


__all__ = ["Paper", "Regime", "relpath"]
