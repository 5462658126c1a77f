"""A content-addressed cache of finished trials.

A batch of trials is stored under the SHA-256 of everything its numbers depend
on: the trial function's name, a fingerprint of the code it may run
(:func:`code_fingerprint`: its module's static import closure and its paper's
files in the layers below), the configuration, the root seed and the range
of trial indices.  Hence

* a rerun with the same configuration reuses every finished batch;
* an interrupted run keeps the batches it finished (each is written as soon
  as it arrives, atomically) and resumes from them;
* changing one parameter of one configuration recomputes only that
  configuration; editing one paper's trials recomputes only that paper's
  trials, and editing a shared module recomputes every trial that imports it.

Examples
--------
>>> import tempfile
>>> from simulations.cache import TrialCache
>>> c = TrialCache(tempfile.mkdtemp())
>>> k = c.key("mod.trial", {"m": 10}, 0, 0, 5)
>>> c.get(k) is None
True
>>> c.put(k, [{"trial": 0, "x": 1.0}]); c.get(k)
[{'trial': 0, 'x': 1.0}]
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import pickle
import tempfile
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

#: the project's packages (the code a fingerprint may cover)
PACKAGES = ("bounds", "simulations", "verify")
#: where each layer keeps its paper modules, lowest layer first
PAPER_DIRS = (("bounds", "bounds/papers"), ("simulations", "simulations/trials"), ("verify", "verify/empirical"))

ROOT = Path(__file__).resolve().parents[1]

#: a module whose results depend on every paper's declarations says so with ``__all_papers__ = ALL_PAPERS``
#: (it reads them through discovery, which the static import closure cannot follow)
ALL_PAPERS = "depends on every paper"


class _Mark(str):
    """What the scanner records for an ``__all_papers__`` assignment (never equal to a real string)."""

    def __eq__(self, other: object) -> bool:
        return other is self

    __hash__ = object.__hash__


_MARK = _Mark("__all_papers__")


def _module_file(name: str, root: Path) -> Path | None:
    base = root.joinpath(*name.split("."))
    for p in (base.with_suffix(".py"), base / "__init__.py"):
        if p.is_file():
            return p
    return None


def _imports(path: Path, name: str, root: Path) -> tuple[set[str], set[str]]:
    """Project modules imported anywhere in ``path`` (functions included), and its string constants."""
    tree = ast.parse(path.read_bytes())
    is_pkg = path.name == "__init__.py"
    pkg = name if is_pkg else name.rpartition(".")[0]
    mods: set[str] = set()
    strings: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            mods.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            mods.add(mod)
            mods.update(f"{mod}.{a.name}" for a in node.names)   # `from pkg import submodule`
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 80:
            strings.add(node.value)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__all_papers__"
                                                  for t in node.targets):
            strings.add(_MARK)
    out = set()
    for m in mods:
        if m.split(".")[0] in PACKAGES and _module_file(m, root) is not None:
            out.add(m)
    return out, strings


def paper_ids(root: Path = ROOT) -> list[str]:
    """Ids of the papers, read from the file names of ``bounds/papers`` (no import)."""
    return sorted(p.stem for p in (root / "bounds" / "papers").glob("*.py") if not p.stem.startswith("_"))


def code_files(module: str, root: Path | str = ROOT) -> list[Path]:
    """The source files whose code ``module`` may run: its static import closure, plus paper files.

    The closure follows every ``import`` inside the project's packages, including imports inside
    functions, but not modules loaded by discovery.  A paper's own files in the layers below (and
    in the module's own layer) are added when the closure names the paper: it is the module of
    that paper (``simulations/trials/<id>.py`` is paper ``<id>``) or holds a string starting with
    ``"<paper id>."`` (a statement key); every paper's files are added when a module of the closure
    declares ``__all_papers__ = ALL_PAPERS`` (it reads every paper's declarations through discovery).
    """
    root = Path(root)
    ids = set(paper_ids(root))
    layer = module.split(".")[0]
    seen: dict[str, Path] = {}
    papers: set[str] = set()
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name, root)
        if path is None:
            continue
        seen[name] = path
        for _layer, d in PAPER_DIRS:
            rel = path.relative_to(root).as_posix()
            if rel.startswith(d + "/") and path.stem in ids:
                papers.add(path.stem)
        mods, strings = _imports(path, name, root)
        todo.extend(mods - set(seen))
        if _MARK in strings:     # the module's results depend on every paper's declarations
            papers.update(ids)
        papers.update(s.split(".", 1)[0] for s in strings if "." in s and s.split(".", 1)[0] in ids)
        # a paper named by the closure brings its files of the lower layers (and of this one)
        for pid in sorted(papers):
            for lay, d in PAPER_DIRS:
                if PACKAGES.index(lay) > PACKAGES.index(layer):
                    break
                pm = f"{d.replace('/', '.')}.{pid}"
                if pm not in seen and pm not in todo:
                    todo.append(pm)
    return sorted(set(seen.values()))


@lru_cache(maxsize=256)
def _fingerprint(module: str, root: str) -> str:
    h = hashlib.sha256()
    r = Path(root)
    for p in code_files(module, r):
        h.update(p.relative_to(r).as_posix().encode())
        h.update(p.read_bytes())
    return h.hexdigest()


def code_fingerprint(module: str | None = None, root: Path | str = ROOT) -> str:
    """SHA-256 of the code :func:`code_files` finds for ``module``.

    Editing one paper's trial module changes the fingerprint of that paper's trials only;
    editing a shared module they import (a solver, the runner) changes every fingerprint
    that imports it.  ``module=None`` fingerprints all of :mod:`bounds` and :mod:`simulations`.
    """
    if module is None:
        h = hashlib.sha256()
        r = Path(root)
        for pkg in ("bounds", "simulations"):
            for p in sorted((r / pkg).rglob("*.py")):
                h.update(str(p.relative_to(r)).encode())
                h.update(p.read_bytes())
        return h.hexdigest()
    return _fingerprint(module, str(Path(root).resolve()))


class TrialCache:
    """Pickled batches of trial rows in a directory, keyed by content."""

    def __init__(self, directory: str | os.PathLike) -> None:
        self.dir = Path(directory)

    def key(self, fn_name: str, config: Mapping[str, Any], seed: int, start: int, stop: int,
            code: str | None = None) -> str:
        """Key of a batch; ``code`` defaults to the fingerprint of ``fn_name``'s module."""
        if code is None:
            code = code_fingerprint(fn_name.rpartition(".")[0] or None)
        blob = json.dumps({"fn": fn_name, "code": code, "config": config,
                           "seed": int(seed), "range": [int(start), int(stop)]},
                          sort_keys=True, default=repr)
        return hashlib.sha256(blob.encode()).hexdigest()

    def _path(self, key: str) -> Path:
        return self.dir / key[:2] / f"{key}.pkl"

    def get(self, key: str) -> list[dict] | None:
        p = self._path(key)
        try:
            with open(p, "rb") as fh:
                return pickle.load(fh)
        except (FileNotFoundError, EOFError, pickle.UnpicklingError):
            return None

    def put(self, key: str, rows: list[dict]) -> None:
        p = self._path(key)
        p.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=".tmp-")
        with os.fdopen(fd, "wb") as fh:
            pickle.dump(rows, fh, protocol=pickle.HIGHEST_PROTOCOL)
        os.replace(tmp, p)
