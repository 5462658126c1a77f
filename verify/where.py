"""``python -m verify where KEY``: every place a statement lives, found by discovery.

For one statement key this heads with the statement's one verdict (as the report
stored it), then lists where it is stated (file:line of the paper's
``PAPER.add`` call), its source in the paper, its derivation and extra checks
(file:line), its empirical checks and audits (file:line) with the trial
functions they run (found by reading the checks' code), and the report
figures drawn for it (from the figure index in ``summary.json`` of the report
and of every partial run under ``reports/partial/``), one path per line.

Examples
--------
>>> import bounds
>>> from verify.where import locate
>>> key = next(iter(bounds.registry)).key
>>> info = locate(key)
>>> info["key"] == key and info["defined"].startswith("bounds/papers/")
True
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import bounds
from bounds.paper import relpath


def _where(fn: Callable[..., Any]) -> str:
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return repr(fn)
    return f"{relpath(code.co_filename)}:{code.co_firstlineno}"


def _resolve(node: ast.AST, env: dict[str, Any]) -> Any:
    if isinstance(node, ast.Name):
        return env.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, env)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _is_trial(obj: Any) -> bool:
    if not inspect.isfunction(obj):
        return False
    return hasattr(obj, "__trial_spec__") or (
        (obj.__module__ or "").startswith("simulations.trials.") and obj.__name__.endswith("_trial"))


def trials_run_by(fn: Callable[..., Any], depth: int = 4) -> list[Callable[..., Any]]:
    """Trial functions that ``fn`` (or a function of its own module that it calls) refers to."""
    found: dict[str, Callable[..., Any]] = {}
    seen: set[int] = set()

    def visit(f: Callable[..., Any], d: int) -> None:
        f = inspect.unwrap(f)
        if id(f) in seen or d < 0 or not hasattr(f, "__code__"):
            return
        seen.add(id(f))
        try:
            tree = ast.parse(textwrap.dedent(inspect.getsource(f)))
        except (OSError, TypeError, SyntaxError):
            return
        env = dict(f.__globals__)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Name, ast.Attribute)):
                obj = _resolve(node, env)
                if _is_trial(obj):
                    found.setdefault(f"{obj.__module__}.{obj.__qualname__}", obj)
                elif (callable(obj) and getattr(obj, "__module__", None) == f.__module__
                      and inspect.isfunction(obj)):
                    visit(obj, d - 1)

    visit(fn, depth)
    return list(found.values())


def _figures_by_name(key: str, directory: Path) -> list[str]:
    """Figures under ``directory/figures`` whose file name carries ``key`` (the longest key whose slug it carries).

    For a report written before ``summary.json`` had a figure index; the paper's overview first.
    """
    d = directory / "figures"
    if not d.is_dir():
        return []
    slugs = {k: "_" + k.replace(".", "_") for k in bounds.registry.keys()}
    overview = d / f"overview_{bounds.get(key).paper}.png"
    out = [str(overview)] if overview.is_file() else []
    for p in sorted(d.glob("*.png")):
        stem = p.stem
        best = None
        for k, s in slugs.items():
            i = stem.find(s)
            if i >= 0 and (i + len(s) == len(stem) or stem[i + len(s)] == "_"):
                if best is None or len(s) > len(slugs[best]):
                    best = k
        if best == key:
            out.append(str(p))
    return out


def report_dirs(reports: str | Path = "reports") -> list[Path]:
    """The report directories under ``reports``: the report itself, then each partial run's
    (``reports/partial/<papers>/``, :func:`verify.report.report_dir`)."""
    root = Path(reports)
    part = root / "partial"
    return [root] + (sorted(p for p in part.iterdir() if p.is_dir()) if part.is_dir() else [])


def figure_entries(key: str, reports: str | Path = "reports") -> list[dict[str, str]]:
    """Every figure drawn for ``key`` in the report directories under ``reports``, from their figure index.

    The statement's own figures (rate against m, sensitivity, heat map) and its paper's overview;
    each a dict with ``path`` (an existing PNG), ``kind``, ``title`` and ``report`` (the directory
    whose report shows it).  A report without a figure index (written before it existed) is
    searched by file name.

    Examples
    --------
    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp()); (d / "figures").mkdir()
    >>> _ = (d / "figures" / "overview_jia.png").write_bytes(b"png")
    >>> idx = [{"paper": "jia", "key": None, "kind": "overview", "title": "overview", "path": "figures/overview_jia.png"}]
    >>> _ = (d / "summary.json").write_text(json.dumps({"figures": idx}))
    >>> [(e["kind"], Path(e["path"]).name) for e in figure_entries("jia.thm2", d)]
    [('overview', 'overview_jia.png')]
    """
    import json

    paper = bounds.get(key).paper
    out: list[dict[str, str]] = []
    for d in report_dirs(reports):
        try:
            index = json.loads((d / "summary.json").read_text(encoding="utf-8"))["figures"]
        except (OSError, ValueError, KeyError, TypeError):
            index = None
        if not isinstance(index, list):
            out += [{"path": p, "kind": "overview" if Path(p).stem.startswith("overview_") else "figure",
                     "title": Path(p).stem, "report": str(d)} for p in _figures_by_name(key, d)]
            continue
        for f in index:
            if not isinstance(f, dict) or not isinstance(f.get("path"), str):
                continue
            if f.get("key") == key or (f.get("key") is None and f.get("paper") == paper):
                p = d / f["path"]
                if p.is_file():
                    out.append({"path": str(p), "kind": str(f.get("kind", "figure")),
                                "title": str(f.get("title", "")), "report": str(d)})
    return out


def figures_for(key: str, reports: str | Path = "reports") -> list[str]:
    """Paths of the figures drawn for ``key`` (:func:`figure_entries`)."""
    return [e["path"] for e in figure_entries(key, reports)]


def stored_verdict(key: str, reports: str | Path = "reports") -> dict[str, Any]:
    """The statement's one verdict as the report in ``reports`` stored it (``summary.json``), else from the
    symbolic evidence alone (``source`` says which).

    Returns ``verdict``, ``reads``, ``truth``, ``root_text``, ``count_as`` and ``source``.

    Examples
    --------
    >>> import json, tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> _ = (d / "summary.json").write_text(json.dumps({"statements": [{"key": "jia.thm4.bound",
    ...     "verdict": "refuted", "reads": "refuted", "truth": "false", "root_text": "own slip"}]}))
    >>> v = stored_verdict("jia.thm4.bound", d)
    >>> v["reads"], v["truth"], v["source"].endswith("summary.json")
    ('refuted', 'false', True)
    """
    import json

    path = Path(reports) / "summary.json"
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))["statements"]
        row = next(r for r in rows if isinstance(r, dict) and r.get("key") == key)
        return {"verdict": str(row.get("verdict", "")), "reads": str(row.get("reads") or row.get("verdict", "")),
                "truth": str(row.get("truth", "")), "root_text": str(row.get("root_text") or ""),
                "count_as": str(row.get("count_as") or ""), "source": str(path)}
    except (OSError, ValueError, KeyError, TypeError, StopIteration):
        pass
    from bounds.verdict import verdicts as verdicts_of

    v = verdicts_of(bounds.registry, [], keys=[key])[key]
    return {"verdict": v.verdict, "reads": v.text, "truth": v.truth, "root_text": v.root_text,
            "count_as": str(getattr(v, "count_as", "") or ""),
            "source": "the symbolic evidence alone (no report found)"}


def locate(key: str, reports: str | Path = "reports") -> dict[str, Any]:
    """Everything about where ``key`` is encoded and checked, as a JSON-able dict.

    Raises
    ------
    KeyError
        For an unknown key (with suggestions).
    """
    from .empirical import discover_checks

    st = bounds.get(key)
    ev = bounds.evaluate(key)
    paper = bounds.registry.paper_of(key)
    specs = discover_checks([paper.id]).for_key(key)

    figs = figure_entries(key, reports)

    def spec_info(s: Any) -> dict[str, Any]:
        return {"name": s.name, "function": s.fn.__qualname__, "where": s.where,
                "trials": [{"function": t.__qualname__, "where": _where(t)} for t in trials_run_by(s.fn)]}

    return {
        "key": st.key,
        "verdict": stored_verdict(key, reports),
        "label": st.label,
        "quantity": st.quantity,
        "status": ev.status,
        "paper": paper.id,
        "source": (f"{st.source}, {st.equation}" if st.equation.startswith(st.label)
                   else f"{st.source}, {st.label}" + (f", {st.equation}" if st.equation else "")),
        "citation": paper.citation,
        "defined": f"{relpath(st.file)}:{st.line}",
        "derivation": _where(st.derive) if st.derive is not None else None,
        "symbolic": [{"name": c.name, "kind": c.kind, "verdict": c.verdict} for c in ev.checks],
        "check_functions": [{"function": getattr(f, "__qualname__", repr(f)), "where": _where(f)} for f in st.checks],
        "empirical": [spec_info(s) for s in specs if s.evidence == "empirical"],
        "audits": [spec_info(s) for s in specs if s.evidence == "audit"],
        "figure_index": figs,
        "figures": [e["path"] for e in figs],
    }


def render(info: dict[str, Any]) -> str:
    """The text ``python -m verify where`` prints."""
    v = info.get("verdict") or {}
    head = f"{info['key']}: verdict {v.get('reads') or v.get('verdict') or '?'}"
    if v.get("truth"):
        head += f" (the statement: {v['truth']})"
    if v.get("root_text"):
        head += f"; root: {v['root_text']}"
    L = [head,
         f"  statement   {info['label']} — {info['quantity']}",
         f"  verdict of  {v.get('source', '?')}",
         f"  derivation  status {info['status']} (the derivation check alone, not the verdict)",
         f"  source      {info['source']}",
         f"  stated at   {info['defined']}"]
    if info["derivation"]:
        L.append(f"  derived by  {info['derivation']}")
    L.append("  symbolic    " + ("; ".join(f"{c['name']} ({c['kind']}): {c['verdict']}" for c in info["symbolic"])
                               or "—"))
    for f in info["check_functions"]:
        L.append(f"              check {f['function']} at {f['where']}")
    for title, items in (("empirical", info["empirical"]), ("audits", info["audits"])):
        if not items:
            L.append(f"  {title:<11} —")
        for i, s in enumerate(items):
            L.append(f"  {title if i == 0 else '':<11} {s['name']}: {s['function']} at {s['where']}")
            for t in s["trials"]:
                L.append(f"              runs {t['function']} at {t['where']}")
    entries = info.get("figure_index") or [{"path": p, "kind": "figure", "title": ""} for p in info["figures"]]
    if not entries:
        L.append("  figures     — (none in the report directory)")
    for i, e in enumerate(entries):
        L.append(f"  {'figures' if i == 0 else '':<11} {e['path']}  ({e.get('title') or e['kind']})")
    return "\n".join(L)
