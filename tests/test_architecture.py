"""The architecture, checked: no import cycles, one-way layers, and no shared file that names a paper.

The import graph is read with ``ast`` from every module of the three packages, counting imports
inside functions too (they run as well) and imports under ``if TYPE_CHECKING:`` (a module typed against
another depends on it: a circle through them is a circle).  The one-way layer rule reads the runtime
graph (a type-only import never loads the upper layer).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from simulations.cache import PAPER_DIRS, paper_ids

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bounds", "simulations", "verify")
LAYER = {"bounds": 0, "simulations": 1, "verify": 2}


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in sorted((ROOT / pkg).rglob("*.py")):
            rel = p.relative_to(ROOT).with_suffix("")
            parts = list(rel.parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


MODULES = _modules()


def _type_checking_nodes(tree: ast.AST) -> set[int]:
    skip: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            for sub in node.body:
                skip.update(id(n) for n in ast.walk(sub))
    return skip


def imports_of(name: str, path: Path, type_checking: bool = True) -> set[str]:
    """Project modules that ``name`` imports (the named module, not its parent packages); with
    ``type_checking=False``, without the imports under ``if TYPE_CHECKING:``."""
    tree = ast.parse(path.read_bytes())
    skip = set() if type_checking else _type_checking_nodes(tree)
    pkg = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Import):
            cands = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = pkg.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1])
                mod = f"{base}.{node.module}" if node.module else base
            else:
                mod = node.module or ""
            subs = [f"{mod}.{a.name}" for a in node.names if f"{mod}.{a.name}" in MODULES]
            cands = subs if subs and len(subs) == len(node.names) else [mod, *subs]
        else:
            continue
        out.update(c for c in cands if c in MODULES and c != name)
    return out


GRAPH = {name: imports_of(name, path) for name, path in MODULES.items()}
RUNTIME = {name: imports_of(name, path, type_checking=False) for name, path in MODULES.items()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one node (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []
    counter = [0]

    def strong(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in graph:
        if v not in index:
            strong(v)
    return out


def test_cycle_finder_finds_a_planted_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles() -> None:
    assert _cycles(GRAPH) == []


def test_layers_import_one_way() -> None:
    bad = [(m, d) for m, ds in RUNTIME.items() for d in ds if LAYER[d.split(".")[0]] > LAYER[m.split(".")[0]]]
    assert bad == []


def test_a_function_level_import_counts() -> None:
    # bounds.core imports bounds.checks at module level and bounds.checks must not import bounds.core back,
    # not even inside a function (the cycle the refactoring removed)
    assert "bounds.checks" in GRAPH["bounds.core"]
    assert "bounds.core" not in GRAPH["bounds.checks"]


def test_a_type_checking_import_counts(tmp_path) -> None:
    # a circle closed only by an import under ``if TYPE_CHECKING:`` is a circle of the package
    probe = ROOT / "bounds" / "_probe_tc_for_test.py"
    try:
        probe.write_text("from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .core import Registry\n")
        assert imports_of("bounds._probe_tc_for_test", probe) == {"bounds.core"}
        assert imports_of("bounds._probe_tc_for_test", probe, type_checking=False) == set()
    finally:
        probe.unlink()
    graph = {k: set(v) for k, v in GRAPH.items()}
    graph["bounds.core"].add("bounds._probe_tc_for_test")
    graph["bounds._probe_tc_for_test"] = {"bounds.core"}
    assert ["bounds._probe_tc_for_test", "bounds.core"] in _cycles(graph)


def test_the_registry_does_not_need_the_verdict() -> None:
    # the verdict is computed from the registry's evidence (bounds.verdict.verdicts), never by the registry
    assert "bounds.verdict" not in GRAPH["bounds.core"] and "bounds.core" not in GRAPH["bounds.checks"]


# ---------------------------------------------------------------- shared files name no paper
IDS = paper_ids(ROOT)
PAPER_FILES = {ROOT / d / f"{pid}.py" for _, d in PAPER_DIRS for pid in IDS}
SHARED = [p for p in MODULES.values() if p not in PAPER_FILES]


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                out.add(id(body[0].value))
    return out


def paper_mentions(path: Path, ids: list[str]) -> list[str]:
    """Code (not docstrings) in ``path`` that names a paper: a string key ``"<id>.…"``, the id itself,
    or an import of a paper module."""
    tree = ast.parse(path.read_bytes())
    docs = _docstring_nodes(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            v = node.value
            if v in ids or any(v.startswith(f"{pid}.") for pid in ids):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {v!r}")
        elif isinstance(node, ast.ImportFrom) and node.module:
            mods = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            for mod in mods:
                tail = mod.rsplit(".", 1)[-1]
                if tail in ids and any(mod.startswith(d.replace("/", ".")) or mod.endswith(f"papers.{tail}")
                                       for _, d in PAPER_DIRS):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: import {mod}")
    return found


def test_paper_mention_scanner_sees_keys_and_skips_docstrings(tmp_path) -> None:
    p = ROOT / "bounds" / "_probe_for_test.py"
    try:
        p.write_text('"""Docstring may cite jia.thm2."""\nX = "jia.thm2"\nY = "not.a.paper"\n')
        assert paper_mentions(p, ["jia"]) == ["bounds/_probe_for_test.py:2: 'jia.thm2'"]
    finally:
        p.unlink()


@pytest.mark.parametrize("path", SHARED, ids=lambda p: str(p.relative_to(ROOT)))
def test_shared_code_names_no_paper(path: Path) -> None:
    assert paper_mentions(path, IDS) == []
