"""Command line of the symbolic layer: ``python -m bounds``.

Subcommands
-----------
``papers [--json]``
    every discovered paper: id, module, source (seed file or citation), statement tally.
``list [--json] [--paper ID] [--status S]``
    every statement with its computed status.
``show KEY [--json] [--reports DIR]``
    one statement: source, assumptions, stated and derived expressions, checks, and its one
    verdict with root and regime, combining the empirical and audit evidence of the last
    generated report (``reports/summary.json``; symbolic evidence only when there is none).
``eval KEY name=value ... [--stated]``
    evaluate a statement (the derived expression for an erratum, unless ``--stated``).
``pick KEY --m M [name=value ...] [--unit] [--json]``
    the paper's ε/λ schedule and the optimised choice at sample size M;
    with ``--target T --eps E``: the smallest m reaching T; with ``--target T``
    (and ``--m``): the smallest ε reaching T.

Every subcommand reads the symbolic snapshot (:mod:`bounds.snapshot`): with a warm snapshot it
answers from stored light copies of the papers and imports no paper module (``eval``/``show``
in about 0.4 s); a call after ``bounds/`` changed derives what it needs first, with a progress
bar, and stores it.

Bad input prints one line to stderr and exits with status 2.

Examples
--------
>>> from bounds.cli import main
>>> main(["eval", "no.such.key", "m=100"])
2
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import warnings
from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import sympy as sp

from .core import Evaluation, PrivacyWarning, Registry
from .evidence import STATUSES, Result
from .paper import relpath
from .snapshot import Store
from .symbols import Namespace


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


def _parse_assign(items: Sequence[str], ns: Namespace) -> dict[str, float]:
    out: dict[str, float] = {}
    for it in items:
        if "=" not in it:
            raise CLIError(f"expected name=value, got {it!r}")
        name, _, raw = it.partition("=")
        name = name.strip()
        if name not in ns:
            raise CLIError(f"unknown parameter {name!r}; known: {', '.join(sorted(ns))}")
        try:
            out[name] = float(raw)
        except ValueError:
            raise CLIError(f"parameter {name!r}: {raw!r} is not a number") from None
    return out


def entry(ev: Evaluation) -> dict[str, Any]:
    """The JSON record of one evaluated statement (used by ``list --json`` and the report)."""
    st = ev.statement
    stated = st.stated
    derived = ev.derived
    return {
        "key": st.key,
        "paper": st.paper,
        "seed": st.seed,
        "source": st.source,
        "where": f"{relpath(st.file)}:{st.line}" if st.file else None,
        "label": st.label,
        "kind": st.kind,
        "quantity": st.quantity,
        "equation": st.equation,
        "stated": None if stated is None else sp.sstr(stated),
        "derived": None if derived is None else sp.sstr(derived),
        "latex": {
            "stated": None if stated is None else sp.latex(stated),
            "derived": None if derived is None else sp.latex(derived),
        },
        "relation": st.relation,
        "assumptions": st.assumptions_text(),
        "depends": list(st.depends),
        "cited": st.cited or None,
        "status": ev.status,
        "detail": ev.detail,
        "inherits": list(ev.inherits),
        "checks": [c.as_dict() for c in ev.checks],
        "rate": None
        if st.claimed_exponent is None
        else {"symbol": st.rate_symbol, "claimed_exponent": sp.sstr(st.claimed_exponent)},
        "schedule": st.schedule or None,
        "doc": st.doc,
    }


def _closure(reg: Registry, keys: Sequence[str]) -> list[str]:
    """``keys`` and every statement their evaluation, verdict or pick reads (dependencies first)."""
    out: list[str] = []
    seen: set[str] = set()

    def visit(k: str) -> None:
        if k in seen:
            return
        seen.add(k)
        st = reg.get(k)
        for d in (*st.depends, *st.schedule.values()):
            visit(d if d in reg else f"{st.paper}.{d}")
        out.append(k)

    for k in keys:
        visit(k)
    return out


def _warm(reg: Registry, keys: Sequence[str]) -> None:
    """Evaluate ``keys`` (and their dependencies) with a progress bar when the snapshot lacks some."""
    todo = _closure(reg, keys)
    store = reg.store
    cold = [k for k in todo if store is None or not store.has(k)]
    if len(cold) > 1:
        where = f" (kept in {store.dir})" if store is not None else ""
        print(f"evaluating {len(cold)} statements: first call with this version of bounds/{where}",
              file=sys.stderr)
        if store is not None and len(cold) >= 8 and (os.cpu_count() or 1) > 1:
            from .snapshot import warm

            warm(store, cold)            # one process per core; the progress bar counts statements
        else:
            from tqdm.auto import tqdm

            for k in tqdm(todo, desc="statements", unit="st", file=sys.stderr, disable=None, leave=False):
                reg.evaluate(k)
    for k in todo:
        reg.evaluate(k)


def _run(fn: Any, paper_ids: Sequence[str] | None, keys: Any) -> Any:
    """``fn(registry)`` on the snapshot's light registry (no paper module imported, no derivation),
    or, when the snapshot lacks something, on :data:`bounds.registry` after evaluating what is needed.

    ``keys(registry)`` lists the statements ``fn`` reads.  ``fn`` must not print: its result is
    printed by the caller, so a fallback never prints twice.
    """
    store = Store.default()
    if store is not None:
        light = store.light_registry(paper_ids)
        if light is not None:
            try:
                return fn(light)
            except LookupError:
                pass
    import bounds

    reg = bounds.registry
    _warm(reg, keys(reg))
    if reg.store is not None:
        reg.store.save_registry(reg)
    return fn(reg)


def _paper_of_key(key: str) -> list[str] | None:
    return [key.split(".", 1)[0]] if "." in key else None


def _cmd_list(a: argparse.Namespace) -> int:
    def run(reg: Registry) -> list[Evaluation]:
        keys = reg.keys()
        if a.paper:
            if a.paper not in reg.papers:
                raise CLIError(f"unknown paper {a.paper!r}; known: {', '.join(reg.papers)}")
            keys = [k for k in keys if k.startswith(a.paper + ".")]
        evs = [reg.evaluate(k) for k in keys]
        return [e for e in evs if e.status == a.status] if a.status else evs

    evs = _run(run, [a.paper] if a.paper else None,
               lambda reg: [k for k in reg.keys() if not a.paper or k.startswith(a.paper + ".")])
    if a.json:
        print(json.dumps([entry(e) for e in evs], indent=1, ensure_ascii=False))
        return 0
    w = max(len(e.key) for e in evs) if evs else 10
    for e in evs:
        print(f"{e.key:<{w}}  {e.status:<10}  {e.statement.label:<14}  {e.statement.quantity}")
    return 0


def _cmd_papers(a: argparse.Namespace) -> int:
    """Every discovered paper: id, source, statements and the tally of their statuses."""
    def run(reg: Registry) -> list[dict[str, Any]]:
        rows = []
        for paper in reg.papers.values():
            evs = [reg.evaluate(k) for k in paper.statements]
            tally = {s: sum(e.status == s for e in evs) for s in STATUSES}
            rows.append(dict(paper.as_dict(), module=relpath(paper.file), tally=tally))
        return rows

    rows = _run(run, None, lambda reg: reg.keys())
    if a.json:
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return 0
    for r in rows:
        t = ", ".join(f"{n} {s}" for s, n in r["tally"].items() if n)
        print(f"{r['id']:<6} {r['module']:<26} {r['statements']:>3} statements ({t})")
        print(f"       {r['source_kind']}: {r['source']}")
    return 0


def report_evidence(key: str, reports: str | None = None) -> tuple[list[Result], str]:
    """Empirical and audit rows of ``key`` from a generated report's ``summary.json``.

    The symbolic layer imports nothing of :mod:`verify`; it reads the report it wrote.
    Returns the rows and where they came from ('' when there is no report).
    """
    from pathlib import Path

    path = Path(reports) if reports else Path(__file__).resolve().parents[1] / "reports"
    path = path / "summary.json"
    if not path.exists():
        return [], ""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return [], ""
    names = {f.name for f in fields(Result)}
    out = []
    for row in data.get("evidence", []):
        if row.get("key") != key or row.get("evidence") == "symbolic":
            continue
        kw = {k: v for k, v in row.items() if k in names}
        for k in ("statistic", "lo", "hi", "bound", "confidence"):
            kw[k] = math.nan if kw.get(k) is None or isinstance(kw.get(k), str) and kw[k] == "nan" else float(kw[k])
        kw["worst"] = kw.get("worst") or {}
        kw["details"] = kw.get("details") or {}
        try:
            out.append(Result(**kw))
        except (TypeError, ValueError):
            continue
    when = data.get("provenance", {}).get("generated", "")
    return out, f"{path} ({when})" if when else str(path)


def _cmd_show(a: argparse.Namespace) -> int:
    rows, where = report_evidence(a.key, a.reports)

    def run(reg: Registry) -> tuple[Evaluation, Any, Any]:
        ev = reg.evaluate(a.key)
        return ev, reg.papers[ev.statement.paper], reg.verdicts(rows, keys=[a.key])[a.key]

    ev, paper, v = _run(run, _paper_of_key(a.key), lambda reg: [reg.get(a.key).key])
    st = ev.statement
    if a.json:
        d = entry(ev)
        d["verdict"] = v.as_dict()
        d["regime_declared"] = paper.regime.as_dict()
        d["evidence_from"] = where or "symbolic checks only (no generated report found)"
        print(json.dumps(d, indent=1, ensure_ascii=False, default=str))
        return 0
    lines = [
        f"{st.key}: {st.label} — {st.quantity}",
        f"  source     {st.source}, {st.label}, {st.equation}  [{paper.citation}]",
        f"  defined    {relpath(st.file)}:{st.line}",
        f"  kind       {st.kind}    relation: {st.relation}",
        f"  status     {ev.status}",
        f"  stated     {sp.sstr(st.stated) if st.stated is not None else '—'}",
        f"  derived    {sp.sstr(ev.derived) if ev.derived is not None else '—'}",
        "  assumes    " + ("; ".join(st.assumptions_text()) or "—"),
        "  depends    " + (", ".join(st.depends) or "—"),
    ]
    if st.cited:
        lines.append(f"  cites      {st.cited}")
    lines.append("  checks")
    for c in ev.checks:
        mark = "ok  " if c.ok else "FAIL"
        lines.append(f"    [{mark}] {c.name} ({c.kind}{', ' + str(c.n_points) + ' points' if c.n_points else ''})")
        if c.detail:
            lines.append(f"           {c.detail}")
    if ev.inherits:
        lines.append("  inherits   " + ", ".join(ev.inherits))
    if st.notes:
        lines.append(f"  notes      {st.notes}")
    lines.append(f"  doc        {st.doc}")
    lines.append(f"  VERDICT    {v.text}" + (f"  ({v.root_text})" if v.root_text else ""))
    for r in v.reasons:
        lines.append(f"    why      {r}")
    lines.append(f"  regime     {v.regime}")
    lines.append(f"    paper's  {paper.regime.text()}")
    counts = "; ".join(f"{e}: " + ", ".join(f"{n} {k}" for k, n in c.items())
                       for e, c in v.evidence_counts().items())
    lines.append(f"  evidence   {counts or 'none'}")
    lines.append(f"    from     {where or 'symbolic checks only (no generated report found)'}")
    for r in v.evidence:
        if r.evidence != "symbolic":
            lines.append(f"    [{r.reads}] {r.evidence}/{r.kind} {r.name}: statistic {r.statistic:.4g} vs "
                         f"bound {r.bound:.4g}")
    print("\n".join(lines))
    return 0


def _cmd_eval(a: argparse.Namespace) -> int:
    def run(reg: Registry) -> tuple[float, list[Any]]:
        vals = _parse_assign(a.values, reg.get(a.key).ns)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PrivacyWarning)
            v = reg.value(a.key, vals, which="stated" if a.stated else "derived")
        return v, list(caught)

    v, caught = _run(run, _paper_of_key(a.key), lambda reg: [reg.get(a.key).key])
    for w in caught:
        print(f"warning: {w.message}", file=sys.stderr)
    print(repr(v) if a.repr else f"{v:.10g}")
    return 0


def _cmd_pick(a: argparse.Namespace) -> int:
    from . import pick

    def run(reg: Registry) -> str:
        with pick.using(reg):
            return _pick_text(a, reg, pick)

    print(_run(run, _paper_of_key(a.key), lambda reg: [reg.get(a.key).key]))
    return 0


def _pick_text(a: argparse.Namespace, registry: Registry, pick: Any) -> str:
    consts = _parse_assign(a.values, registry.get(a.key).ns)
    st = pick.pickable(a.key)
    if a.unit:
        expr = registry.evaluate(st.key).expression
        for s in expr.free_symbols:
            name = st.ns.by_symbol(s).name if st.ns.has_symbol(s) else None
            if name and name not in consts and name not in ("m", "eps", "lam"):
                consts[name] = 1.0
    if a.target is not None:
        if a.eps is not None:
            n = pick.min_m(a.key, a.target, eps=a.eps, lam=a.lam, **consts)
            out: dict[str, Any] = {"key": st.key, "query": "min_m", "target": a.target, "eps": a.eps, "lam": a.lam, "m": n}
        else:
            if a.m is None:
                raise CLIError("--target needs --eps (smallest m) or --m (smallest eps)")
            e = pick.min_eps(a.key, a.target, m=a.m, lam=a.lam, **consts)
            out = {"key": st.key, "query": "min_eps", "target": a.target, "m": a.m, "lam": a.lam, "eps": e}
        out["constants"] = consts
        if a.json:
            return json.dumps(out, indent=1)
        return " ".join(f"{k}={v}" for k, v in out.items() if k != "constants")
    if a.m is None:
        raise CLIError("pick needs --m")
    if a.eps is not None:
        consts["eps"] = a.eps
    paper = pick.paper_schedule(a.key, a.m, **dict(consts))
    opt = pick.optimise(a.key, a.m, **dict(consts))
    if a.json:
        return json.dumps({"key": st.key, "paper": paper.as_dict(), "optimised": opt.as_dict()}, indent=1)
    lines = [f"{st.key} ({st.label}) at m = {a.m:g}"]
    for name, p in (("paper", paper), ("optimised", opt)):
        lam = "—" if p.lam is None else f"{p.lam:.6g}"
        lines.append(f"  {name:<10} eps = {p.eps:.6g}  lambda = {lam}  bound = {p.bound:.6g}")
    if opt.improvement is not None:
        lines.append(f"  improvement factor (paper / optimised) = {opt.improvement:.4g}")
    if paper.bound_stated is not None and abs(paper.bound_stated - paper.bound) > 1e-12 * abs(paper.bound):
        lines.append(f"  note: the paper's stated bound gives {paper.bound_stated:.6g} at its schedule "
                     "(statement is an erratum)")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m bounds", description="Bounds of the papers, checked.")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("papers", help="list the discovered papers")
    p.add_argument("--json", action="store_true")
    p = sub.add_parser("list", help="list statements")
    p.add_argument("--json", action="store_true")
    p.add_argument("--paper")
    p.add_argument("--status", choices=STATUSES)
    p = sub.add_parser("show", help="show one statement")
    p.add_argument("key")
    p.add_argument("--json", action="store_true")
    p.add_argument("--reports", default=None,
                   help="report directory whose empirical and audit evidence is combined (default: reports/)")
    p = sub.add_parser("eval", help="evaluate a statement")
    p.add_argument("key")
    p.add_argument("values", nargs="*", help="name=value")
    p.add_argument("--stated", action="store_true", help="use the paper's stated expression")
    p.add_argument("--repr", action="store_true", help="print the full float")
    p = sub.add_parser("pick", help="pick ε and λ")
    p.add_argument("key")
    p.add_argument("values", nargs="*", help="problem constants name=value")
    p.add_argument("--m", type=float)
    p.add_argument("--eps", type=float)
    p.add_argument("--target", type=float)
    p.add_argument("--lam", default="optimise", help="optimise (default), paper, or a number")
    p.add_argument("--unit", action="store_true", help="set every unspecified problem constant to 1")
    p.add_argument("--json", action="store_true")
    return ap


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (2 on bad input)."""
    ap = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    # name=value tokens may appear anywhere: move them after the options
    assigns = [t for t in argv[1:] if "=" in t and not t.startswith("-")]
    argv = argv[:1] + [t for t in argv[1:] if t not in assigns]
    try:
        a = ap.parse_args(argv)
        if hasattr(a, "values"):
            a.values = list(a.values) + assigns
        elif assigns:
            ap.error(f"unexpected name=value arguments: {' '.join(assigns)}")
    except SystemExit as exc:  # argparse already printed its one-line usage error
        return int(exc.code or 0)
    if getattr(a, "lam", None) not in (None, "optimise", "paper"):
        try:
            a.lam = float(a.lam)
        except ValueError:
            print(f"error: --lam must be 'optimise', 'paper' or a number, not {a.lam!r}", file=sys.stderr)
            return 2
    handlers = {"papers": _cmd_papers, "list": _cmd_list, "show": _cmd_show, "eval": _cmd_eval, "pick": _cmd_pick}
    try:
        return handlers[a.cmd](a)
    except (CLIError, ValueError, KeyError) as exc:
        msg = exc.args[0] if exc.args else str(exc)
        print(f"error: {msg}", file=sys.stderr)
        return 2

