"""Command line of the symbolic layer: ``python -m bounds``.

Subcommands
-----------
``papers [--json]``
    every discovered paper: id, module, source (seed file or citation), statement tally.
``list [--json] [--paper ID] [--status S] [--verdict V] [--reports DIR]``
    every statement with its one verdict (from all its evidence) and the status of its derivation.
``show KEY [--json] [--reports DIR]``
    one statement: source, assumptions, stated and derived expressions, checks, and its one
    verdict with root and regime, combining the empirical and audit evidence of the last
    generated report (``reports/summary.json``; symbolic evidence only when there is none).
``eval KEY name=value ... [--stated | --derived] [--json] [--allow-unverified]``
    evaluate a statement (the corrected form of a wrong printed one, unless ``--stated``), with
    the statement, the form used and its one verdict and regime status.
``pick KEY --m M [name=value ...] [--eps E] [--lam L] [--unit] [--json]``
    the paper's ε/λ schedule and the optimised choice at sample size M (a given ``--eps`` or
    ``--lam`` number is kept fixed in both); with ``--target T --eps E``: the smallest m reaching
    T; with ``--target T --m M``: the smallest ε reaching T (there ``--lam`` is ``optimise``,
    ``paper`` or a number).
    Every answer names the bound, the form used (stated or derived: the corrected form of a wrong
    printed bound) and its one verdict (:mod:`bounds.verdict`); where no form is established the
    pick is refused (exit 2) unless ``--allow-unverified``.  ``--plot FILE.png`` draws the bound over
    (ε, λ) with its dominant term, ``--plot-rate FILE.png`` the bound against m.  The search stays
    inside the paper's regime (``PAPER.regime``) and says when the optimum over the whole domain lies
    outside it (``--unconstrained`` searches the whole domain).  Every answer says whether the bound is
    vacuous there (not below its trivial ceiling, ``Statement.ceiling``) and, when it is, from which m
    (or up to which ε) it stops being vacuous, or that it never does and which m-free term holds it up.
``calibrate KEY name=value ... [--json] [--allow-unverified]``
    the stated, derived and tight noise of a mechanism statement, the ε each spends and its verdict
    (:mod:`bounds.calibrate`); every branch of a branched mechanism with the least-noise one
    recommended; a refusal names a private alternative as a command.
``noise gaussian|laplace --sensitivity S --eps E [--delta D] [--compositions T] [--json]``
    the plain Gaussian or Laplace mechanism's noise (σ and σ², or the Laplace scale) for T
    compositions, with the accountant that certifies it (:mod:`bounds.noise`).

``--help`` of ``python -m bounds``, ``pick``, ``calibrate`` and ``eval`` ends with the pickable and
mechanism statements and the constants each needs (from a small index kept beside the snapshot's
light papers); ``pick PAPER`` / ``calibrate PAPER`` (a paper id or a section such as ``jia.s5_1``,
nothing else given) list that paper's statements of the kind, those under the section first (stdout,
status 0).  Given with other arguments, a paper or section is an error whose "did you mean" starts
with its valid keys.  ``--version`` prints the toolkit's version.

The verdicts of ``papers``, ``list``, ``show``, ``eval``, ``pick`` and ``calibrate`` read the report's
``summary.json`` through :func:`bounds.report_io.read_summary`: a missing one is a ``note:`` line
on stderr (the verdicts then rest on the symbolic checks alone); a FIFO, device or directory in its
place, an unreadable file or JSON of another shape is one line and status 2; a report written by
another version of the toolkit is refused, naming both versions, unless ``--reports-any-version``
(then ``list``, ``papers`` and ``show`` name its version beside every verdict, and every command
says so in a note).

Every subcommand reads the symbolic snapshot (:mod:`bounds.snapshot`): with a warm snapshot it
answers from stored light copies of the papers and imports no paper module; a call after
``bounds/`` changed derives what it needs first, with a progress bar, and stores it.
``python -m bounds eval`` is answered before this module is imported, without sympy, from the
numeric store (:mod:`bounds.numeric`) where a verified entry holds the statement (about 0.1 s of
CPU), with the same bytes as this module prints; everything else comes here.

Bad input prints one line to stderr and exits with status 2: an unknown or repeated option or
parameter, every missing parameter (named at once), a value outside the statement's assumptions,
an option that does not apply, a ``--plot``/``--plot-rate`` file that cannot be written (checked
before anything is computed), a file that cannot be read or written, and an answer that is not a
finite number (a bound that overflows is reported as such, never as ``inf``).

Examples
--------
>>> from bounds.cli import main
>>> main(["eval", "no.such.key", "m=100"])
2
>>> main(["eval", "jia.thm2", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100", "m=200"])
2
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import re
import sys
import warnings
from collections.abc import Sequence
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from ._lazy import flush_stdout, lazy_module, output_failure
from .evidence import STATEMENT_VERDICTS, STATUSES, VERDICT_TEXT, Result
from .report_io import read_summary
from .report_io import using as using_report
from .snapshot import Store
from .validation import UnknownKeyError, one_line, short, suggest
from .verdict import verdicts as verdicts_of

if TYPE_CHECKING:
    from .core import Evaluation, Registry
    from .symbols import Namespace

#: sympy, imported on first use: ``--help``, ``--version`` and ``noise`` need no expression
sp = lazy_module("sympy")


def relpath(path: Any) -> str:
    """:func:`bounds.paper.relpath` (imported on use: :mod:`bounds.paper` loads sympy)."""
    from .paper import relpath as _relpath

    return _relpath(path)


def _privacy_warning() -> type | None:
    """:class:`bounds.core.PrivacyWarning` when :mod:`bounds.core` is loaded (no warning of it otherwise)."""
    core = sys.modules.get(f"{__package__}.core")
    return getattr(core, "PrivacyWarning", None)


class CLIError(Exception):
    """A user error: printed as one line, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (a :class:`CLIError`), without the usage block."""

    #: which key listings (``"pick"``, ``"calibrate"``) the help ends with (:func:`_keys_help`)
    keys_help: tuple[str, ...] = ()

    def error(self, message: str):  # type: ignore[override]
        raise CLIError(f"{message} (see {self.prog} --help)")

    def format_help(self) -> str:
        text = super().format_help()
        return text + "\n" + _keys_help(self.keys_help) if self.keys_help else text


class _Version(argparse.Action):
    """``--version``: the toolkit's version (:func:`bounds.report_io.toolkit_version`), read only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str = argparse.SUPPRESS,
                 default: Any = argparse.SUPPRESS, help: str | None = None) -> None:  # noqa: A002 - argparse's name
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser: argparse.ArgumentParser, namespace: Any, values: Any, option_string: Any = None) -> None:
        from .report_io import toolkit_version

        print(f"dp-erm-verify {toolkit_version()}")
        parser.exit(0)


def _number(text: str, what: str) -> float:
    """A number typed on the command line; ``1e400`` is an overflow, not infinity."""
    try:
        v = float(text)
    except ValueError:
        raise CLIError(f"{what}: {short(text)} is not a number") from None
    if math.isinf(v) and "inf" not in text.lower():
        raise CLIError(f"{what}: {short(text)} is too large for a float (overflow)")
    return v


def _check_domain(st: Any, name: str, v: float) -> None:
    """A typed number against its parameter's domain (nothing evaluated: usable before a slow fallback)."""
    p = st.ns[name]
    if not math.isfinite(v):
        raise CLIError(f"parameter {name!r} = {v!r} is not finite (statement {st.key}, {st.label}; assumption "
                       f"{p.domain_text()})")
    bad = p.violation(v)
    if bad is not None:
        raise CLIError(f"parameter {name!r} = {v!r} violates the assumption {bad} of statement {st.key} ({st.label})")


def _parse_assign(items: Sequence[str], ns: Namespace, key: str = "") -> dict[str, float]:
    """``name=value`` tokens as numbers: known names, each given once.

    Examples
    --------
    >>> from bounds.symbols import SHARED
    >>> _parse_assign(["m=100", "eps=0.5"], SHARED)
    {'m': 100.0, 'eps': 0.5}
    >>> _parse_assign(["m=100", "m=200"], SHARED, "jia.thm2")
    Traceback (most recent call last):
    ...
    bounds.cli.CLIError: parameter 'm' is given twice (m=100, m=200) for statement jia.thm2
    """
    out: dict[str, float] = {}
    raw_of: dict[str, str] = {}
    of = f" for statement {key}" if key else ""
    for it in items:
        if "=" not in it:
            raise CLIError(f"expected name=value, got {short(it)}")
        name, _, raw = it.partition("=")
        name = name.strip()
        if name not in ns:
            raise CLIError(f"unknown parameter {short(name)}{of}{suggest(name, ns, n=3)}; known: "
                           f"{', '.join(sorted(ns))}")
        if name in out:
            raise CLIError(f"parameter {name!r} is given twice ({name}={raw_of[name]}, {name}={raw}){of}")
        out[name] = _number(raw, f"parameter {name!r}{of}")
        raw_of[name] = raw
    return out


#: expression → its LaTeX (:func:`latex`); the report fills it ahead from a job on its workers
LATEX: dict[Any, str] = {}


def latex(expr: Any) -> str:
    """``sympy.latex`` of an expression, printed once per process (:data:`LATEX`, keyed by the expression).

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> latex(x / 2), latex(x / 2) is latex(x / 2)
    ('\\\\frac{x}{2}', True)
    """
    try:
        return LATEX[expr]
    except KeyError:
        out = LATEX[expr] = sp.latex(expr)
        return out
    except TypeError:                                  # unhashable: print it each time
        return sp.latex(expr)


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
            "stated": None if stated is None else latex(stated),
            "derived": None if derived is None else latex(derived),
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


def _warm(reg: Registry, keys: Sequence[str], quiet: bool = False) -> None:
    """Evaluate ``keys`` (and their dependencies) with a progress bar when the snapshot lacks some
    (``quiet``: without it, for an input already known to be bad, whose error is the one line printed)."""
    todo = reg.closure(keys, schedules=True)
    store = reg.store
    cold = [k for k in todo if store is None or not store.has(k)]
    if len(cold) > 1 and not quiet:
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


def _run(fn: Any, paper_ids: Sequence[str] | None, keys: Any, precheck: Any = None) -> Any:
    """``fn(registry)`` on the snapshot's light registry (no paper module imported, no derivation),
    or, when the snapshot lacks something, on :data:`bounds.registry` after evaluating what is needed.

    ``keys(registry)`` lists the statements ``fn`` reads.  ``fn`` must not print: its result is
    printed by the caller, so a fallback never prints twice.  ``precheck(registry)`` validates the
    input without evaluating anything; on the fallback it runs before the (slow, progress-printing)
    evaluation, so that bad input is still one line.
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
    bad: Exception | None = None
    if precheck is not None:
        try:
            precheck(reg)
        except (CLIError, ValueError, LookupError) as exc:
            bad = exc
    try:
        todo = keys(reg)
    except LookupError:
        if bad is not None:
            raise bad from None
        raise
    _warm(reg, todo, quiet=bad is not None)    # the snapshot is filled even for bad input, silently
    if reg.store is not None:
        reg.store.save_registry(reg)
    if bad is not None:
        raise bad
    return fn(reg)


def _paper_of_key(key: str) -> list[str] | None:
    pid = key.split(".", 1)[0]
    return [pid] if "." in key and re.fullmatch(r"[A-Za-z0-9_]+", pid) else None


def _cmd_list(a: argparse.Namespace) -> int:
    summary = read_summary(a.reports)
    rows, tag = summary.for_key(None), summary.tag

    def run(reg: Registry) -> tuple[list[Evaluation], dict[str, Any]]:
        keys = reg.keys()
        if a.paper:
            if a.paper not in reg.papers:
                hint = suggest(a.paper, reg.papers, n=3) or f"; known: {', '.join(reg.papers)}"
                raise CLIError(f"unknown paper {short(a.paper)}{hint}")
            keys = [k for k in keys if k.startswith(a.paper + ".")]
        evs = [reg.evaluate(k) for k in keys]
        vs = verdicts_of(reg, rows, keys=keys)   # one verdict per statement, from every piece of its evidence
        if a.status:
            evs = [e for e in evs if e.status == a.status]
        if a.verdict:
            evs = [e for e in evs if vs[e.key].verdict == a.verdict]
        return evs, vs

    evs, vs = _run(run, [a.paper] if a.paper else None,
                   lambda reg: [k for k in reg.keys() if not a.paper or k.startswith(a.paper + ".")])
    if a.json:
        out = []
        for e in evs:
            d = entry(e)
            d["verdict"] = vs[e.key].verdict
            if summary.foreign:
                d["verdict_report_version"] = summary.version_text
            out.append(d)
        print(json.dumps(out, indent=1, ensure_ascii=False))
        return 0
    w = max(len(e.key) for e in evs) if evs else 10
    vw = max((len(vs[e.key].text + tag) for e in evs), default=8)
    print(f"{'key':<{w}}  {'verdict':<{vw}}  {'derivation':<10}  {'label':<14}  quantity")
    for e in evs:
        v = vs[e.key].text + tag
        print(f"{e.key:<{w}}  {v:<{vw}}  {e.status:<10}  {e.statement.label:<14}  {e.statement.quantity}")
    return 0


def _cmd_papers(a: argparse.Namespace) -> int:
    """Every discovered paper: id, source, statements and the tallies of their verdicts and derivations."""
    summary = read_summary(getattr(a, "reports", None))
    rows_ev = summary.for_key(None)

    def run(reg: Registry) -> list[dict[str, Any]]:
        rows = []
        for paper in reg.papers.values():
            evs = [reg.evaluate(k) for k in paper.statements]
            vs = verdicts_of(reg, rows_ev, keys=list(paper.statements))
            tally = {s: sum(e.status == s for e in evs) for s in STATUSES}
            vt = {s: sum(v.verdict == s for v in vs.values()) for s in STATEMENT_VERDICTS}
            rows.append(dict(paper.as_dict(), module=relpath(paper.file), tally=tally,
                             verdicts={s: n for s, n in vt.items() if n}))
        return rows

    rows = _run(run, None, lambda reg: reg.keys())
    if a.json:
        if summary.foreign:
            for r in rows:
                r["verdicts_report_version"] = summary.version_text
        print(json.dumps(rows, indent=1, ensure_ascii=False))
        return 0
    for r in rows:
        t = ", ".join(f"{n} {VERDICT_TEXT[s]}" for s, n in r["verdicts"].items()) + summary.tag
        d = ", ".join(f"{n} {s}" for s, n in r["tally"].items() if n)
        print(f"{r['id']:<6} {r['module']:<26} {r['statements']:>3} statements")
        print(f"       verdicts: {t}")
        print(f"       derivations: {d}")
        print(f"       {r['source_kind']}: {r['source']}")
    return 0


def report_evidence(key: str | None, reports: str | None = None) -> tuple[list[Result], str]:
    """Empirical and audit rows of ``key`` (every key when None) from a generated report's ``summary.json``.

    The symbolic layer imports nothing of :mod:`verify`; it reads the report it wrote, checked by
    :func:`bounds.report_io.read_summary` (a file that is not the toolkit's summary, or one of
    another version without ``--reports-any-version``, is a :class:`~bounds.report_io.ReportError`).
    Returns the rows and where they came from ('' when there is no report).

    Examples
    --------
    >>> report_evidence("jia.thm2", "/nonexistent")
    ([], '')
    """
    summary = read_summary(reports)
    return summary.for_key(key), summary.source


def _cmd_show(a: argparse.Namespace) -> int:
    summary = read_summary(a.reports)
    rows, where = summary.for_key(a.key), summary.source

    def run(reg: Registry) -> tuple[Evaluation, Any, Any]:
        ev = reg.evaluate(a.key)
        return ev, reg.papers[ev.statement.paper], verdicts_of(reg, rows, keys=[a.key])[a.key]

    # the verdict reads every statement of the paper (the root of an error may come later in it)
    ev, paper, v = _run(run, _paper_of_key(a.key),
                        lambda reg: [k for k in reg.keys() if reg.get(k).paper == reg.get(a.key).paper])
    st = ev.statement
    if a.json:
        d = entry(ev)
        d["verdict"] = v.as_dict()
        if summary.foreign:
            d["verdict"]["report_version"] = summary.version_text
        d["regime_declared"] = paper.regime.as_dict()
        d["evidence_from"] = where or "symbolic checks only (no generated report found)"
        print(json.dumps(d, indent=1, ensure_ascii=False, default=str))
        return 0
    lines = [
        f"{st.key}: {st.label} — {st.quantity}",
        f"  source     {st.source}, {st.label}, {st.equation}  [{paper.citation}]",
        f"  defined    {relpath(st.file)}:{st.line}",
        f"  kind       {st.kind}    relation: {st.relation}",
        f"  derivation {ev.status}    (the symbolic re-derivation alone; the statement's one verdict is below)",
        f"  stated     {sp.sstr(st.stated) if st.stated is not None else '—'}",
        f"  derived    {sp.sstr(ev.derived) if ev.derived is not None else '—'}",
        "  assumes    " + ("; ".join(st.assumptions_text()) or "—"),
        "  depends    " + (", ".join(st.depends) or "—"),
    ]
    if st.cited:
        lines.append(f"  cites      {st.cited}")
    lines.append("  checks")
    for c in ev.checks:
        mark = "ok  " if c.ok else "FAIL" if c.failed else "??  "
        lines.append(f"    [{mark}] {c.name} ({c.kind}{', ' + str(c.n_points) + ' points' if c.n_points else ''})")
        if c.detail:
            lines.append(f"           {c.detail}")
    if ev.inherits:
        lines.append("  inherits   " + ", ".join(ev.inherits))
    if st.notes:
        lines.append(f"  notes      {st.notes}")
    lines.append(f"  doc        {st.doc}")
    lines.append(f"  VERDICT    {v.text}{summary.tag}" + (f"  ({v.root_text})" if v.root_text else ""))
    lines.append(f"    statement  {v.truth}")
    for name, val in (("proof", v.proof), ("printed", v.constant), ("correction", v.correction)):
        if val:
            lines.append(f"    {name:<10} {val}")
    if v.readings:
        lines.append("    readings " + "; ".join(f"{k} → {x}" for k, x in v.readings.items()))
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


def _paper_keys(reg: Registry, key: str) -> list[str]:
    """Every statement of the paper of ``key``: what its verdict reads (the root of an error may come later)."""
    pid = reg.get(key).paper
    return [k for k in reg.keys() if reg.get(k).paper == pid]


def _cmd_eval(a: argparse.Namespace) -> int:
    from . import pick

    if a.stated and a.derived:
        raise CLIError("--stated and --derived exclude each other")
    which = "stated" if a.stated else "derived" if a.derived else None

    def pre(reg: Registry) -> dict[str, float]:
        st = reg.get(a.key)
        vals = _parse_assign(a.values, st.ns, st.key)
        for name, v in vals.items():       # the domains (no evaluation needed); joint assumptions in value()
            _check_domain(st, name, v)
        return vals

    relaxed: list[dict[str, Any]] = [{}, {}]

    def run(reg: Registry) -> tuple[float, Any, Any]:
        from .calibrate import split_relaxed

        # a relaxed premise left out takes the paper's value (Statement.relaxes); the answer says which
        vals, relaxed[0], relaxed[1] = split_relaxed(reg.get(a.key), pre(reg))
        with pick.using(reg):
            b = pick.basis(a.key, which, a.allow_unverified)
            v = reg.value(a.key, vals, which=b.form)
            return v, b, pick.value_vacuity(a.key, vals, v, b.form)

    v, b, vac = _run(run, _paper_of_key(a.key), lambda reg: _paper_keys(reg, a.key), pre)
    if a.json:
        print(json.dumps({"key": b.key, "value": v, **{k: x for k, x in b.as_dict().items() if k != "key"},
                          "vacuous": vac.vacuous, "ceiling": vac.ceiling, "vacuity": vac.as_dict(),
                          "relaxed": {k: {"value": x, "premise": p} for k, (x, p) in relaxed[0].items()},
                          "at_paper_value": {k: {"value": x, "premise": p} for k, (x, p) in relaxed[1].items()}},
                         indent=1, ensure_ascii=False, default=_finite_or_none))
        return 0
    print(repr(v) if a.repr else f"{v:.10g}")
    print(f"  statement {b.line()}")
    from .calibrate import premise_lines

    for line in premise_lines(*relaxed):
        print(line)
    for line in (b.note and f"note: {b.note}", b.warning and f"warning: {b.warning}", vac.line()):
        if line:
            print(f"  {line}")
    return 0


def _cmd_calibrate(a: argparse.Namespace) -> int:
    from . import calibrate as cal
    from . import pick

    def pre(reg: Registry) -> dict[str, float]:
        with pick.using(reg):
            st = cal.mechanism(a.key)   # an unknown key: the error names the paper's mechanism statements
        vals = _parse_assign(a.values, st.ns, st.key)
        for name, v in vals.items():
            _check_domain(st, name, v)
        return vals

    def run(reg: Registry) -> Any:
        vals = pre(reg)
        with pick.using(reg):
            return cal.calibrate(a.key, allow_unverified=a.allow_unverified, **vals)

    def keys(reg: Registry) -> list[str]:
        with pick.using(reg):
            return _paper_keys(reg, cal.mechanism(a.key).key)

    c = _run(run, _paper_of_key(a.key), keys, pre)
    print(json.dumps(c.as_dict(), indent=1, ensure_ascii=False) if a.json else c.text())
    return 0


def _cmd_noise(a: argparse.Namespace) -> int:
    # the plain Gaussian/Laplace mechanisms (bounds/noise.py)
    from .noise import command

    return command(a)


def _cmd_pick(a: argparse.Namespace) -> int:
    from . import pick

    _check_plot_paths(a)        # before anything is computed: a bad path is not found after the answer

    def pre(reg: Registry) -> None:
        with pick.using(reg):
            _pick_args(a, reg, pick)

    def run(reg: Registry) -> str:
        with pick.using(reg):
            return _pick_text(a, reg, pick)

    def keys(reg: Registry) -> list[str]:
        with pick.using(reg):
            st = pick.pickable(a.key)       # an unknown key: the error names the paper's pickable statements
        return _paper_keys(reg, st.key)

    print(_run(run, _paper_of_key(a.key), keys, pre))
    return 0


def _pick_args(a: argparse.Namespace, registry: Registry, pick: Any) -> SimpleNamespace:
    """The checked inputs of ``pick`` (``a`` is not modified): statement, constants, m, ε, target, λ's rule.

    Options that do not apply to the query are refused (never ignored): ``--m`` with
    ``--target --eps`` (that query finds m), ``--lam paper`` without ``--target`` (the paper's
    λ is the 'paper' row).  ``m=``, ``eps=``, ``lam=`` are the same as ``--m``, ``--eps``, ``--lam``.
    """
    st = pick.pickable(a.key)        # an unknown key: the error names the paper's pickable statements
    st0 = registry.get(a.key)
    consts = _parse_assign(a.values, st0.ns, st0.key)
    o = SimpleNamespace(st=st, consts=consts)
    for n in ("m", "eps", "target"):
        raw = getattr(a, n)
        what = f"--{n} (parameter {n!r}, statement {o.st.key})"
        setattr(o, n, None if raw is None else _number(raw, what) if isinstance(raw, str) else raw)
    o.lam = a.lam
    for n in ("m", "eps", "lam"):
        if n in consts:
            if getattr(o, n) is not None:
                raise CLIError(f"{n} is given twice (--{n} and {n}=...)")
            setattr(o, n, consts.pop(n))
    o.lam = "optimise" if o.lam is None else o.lam
    st = o.st
    given = {"m": o.m, "eps": o.eps, "lam": o.lam if isinstance(o.lam, float) else None, **consts}
    for name, v in given.items():          # the domains, before anything is evaluated
        if v is not None and name in st.ns:
            _check_domain(st, name, v)
    if o.target is not None and not (math.isfinite(o.target) and o.target > 0):
        raise CLIError(f"parameter 'target' = {o.target!r} must be a positive finite number (statement {st.key})")
    if o.target is not None:
        if o.eps is not None and o.m is not None:
            raise CLIError("--m does not apply with --target and --eps: that query finds the smallest m "
                           "(drop --eps to find the smallest eps at --m)")
        if o.eps is None and o.m is None:
            raise CLIError("--target needs --eps (smallest m) or --m (smallest eps)")
    else:
        if o.m is None:
            raise CLIError("pick needs --m (or --target with --eps)")
        if o.lam == "paper":
            raise CLIError("--lam paper applies only with --target; without it the paper's lambda is the 'paper' row")
    return o


def _finite_or_none(x: Any) -> Any:
    return None if isinstance(x, float) and not math.isfinite(x) else x


def _vacuity_lines(paper: Any, opt: Any) -> list[str]:
    """The pick's rows against the statement's trivial ceiling: one line where neither is vacuous, else one per row."""
    if opt.ceiling is None:
        return [f"  ceiling: none ({opt.ceiling_why})"] if opt.ceiling_why else []
    rows = [(n, p) for n, p in (("paper", paper), ("optimised", opt)) if p is not None]
    if not any(p.vacuous for _, p in rows):
        return [f"  not vacuous: {' and '.join(f'{n} {p.bound:.6g}' for n, p in rows)} < the ceiling "
                f"{opt.ceiling:.6g} ({opt.ceiling_why})"]
    out = [f"  ceiling {opt.ceiling:.6g}: {opt.ceiling_why}"]
    for n, p in rows:
        if p.vacuous:
            out.append(f"  VACUOUS ({n}): {p.bound:.6g} ≥ the ceiling {p.ceiling:.6g}"
                       + (f"; {p.vacuity_explanation}" if p.vacuity_explanation else ""))
        else:
            out.append(f"  not vacuous ({n}): {p.bound:.6g} < the ceiling {p.ceiling:.6g}")
    return out


def _pick_text(a: argparse.Namespace, registry: Registry, pick: Any) -> str:
    o = _pick_args(a, registry, pick)
    st, consts, lam = o.st, o.consts, o.lam
    regime = not getattr(a, "unconstrained", False)
    if a.unit:
        expr = registry.evaluate(st.key).expression
        for s in expr.free_symbols:
            name = st.ns.by_symbol(s).name if st.ns.has_symbol(s) else None
            if name and name not in consts and name not in ("m", "eps", "lam"):
                consts[name] = 1.0
    if o.target is not None:
        if o.eps is not None:
            n = pick.min_m(a.key, o.target, eps=o.eps, lam=lam, allow_unverified=a.allow_unverified, regime=regime,
                           **consts)
            out: dict[str, Any] = {"key": st.key, "query": "min_m", "target": o.target, "eps": o.eps, "lam": lam, "m": n}
        else:
            e = pick.min_eps(a.key, o.target, m=o.m, lam=lam, allow_unverified=a.allow_unverified, regime=regime,
                             **consts)
            out = {"key": st.key, "query": "min_eps", "target": o.target, "m": o.m, "lam": lam, "eps": e}
        out["constants"] = consts
        ans = n if o.eps is not None else e
        b, vac = ans.basis, ans.vacuity
        if a.json:
            out.update({k: x for k, x in b.as_dict().items() if k != "key"})
            out.update(vacuous=vac.vacuous, ceiling=vac.ceiling, vacuity=vac.as_dict(), regime_constrained=regime)
            return json.dumps(out, indent=1, allow_nan=False, ensure_ascii=False, default=_finite_or_none)
        lines = [" ".join(f"{k}={v}" for k, v in out.items() if k != "constants"), f"  statement {b.line()}"]
        lines += [f"  {x}" for x in (b.note and f"note: {b.note}", b.warning and f"warning: {b.warning}") if x]
        if vac.line():
            lines.append(f"  {vac.line()}")
        return "\n".join(lines)
    given = {}
    if o.eps is not None:
        given["eps"] = o.eps
    if isinstance(lam, float):
        given["lam"] = lam
    paper = pick.paper_schedule(a.key, o.m, allow_unverified=a.allow_unverified, **consts, **given)
    opt = pick.optimise(a.key, o.m, allow_unverified=a.allow_unverified, regime=regime, **consts, **given)
    b = pick.basis(st.key, None, a.allow_unverified)
    plots = []
    if a.plot:
        pick.plot_tradeoff(a.key, o.m, a.plot, allow_unverified=a.allow_unverified, **consts, **given)
        plots.append(f"  plot: the bound over (eps, lambda) and its dominant term: {a.plot}")
    if a.plot_rate:
        pick.plot_rate(a.key, o.m, a.plot_rate, allow_unverified=a.allow_unverified, **consts, **given)
        plots.append(f"  plot: the bound against m for the picked schedule: {a.plot_rate}")
    if a.json:
        d = {"key": st.key, "given": given, **{k: x for k, x in b.as_dict().items() if k != "key"},
             "regime_constrained": regime, "vacuous": bool(paper.vacuous or opt.vacuous) if opt.ceiling is not None
             else None, "ceiling": opt.ceiling, "ceiling_why": opt.ceiling_why,
             "paper": paper.as_dict(), "optimised": opt.as_dict(), "explain": pick.explain(opt),
             "plots": {"tradeoff": a.plot, "rate": a.plot_rate}}
        for row in (d["paper"], d["optimised"]):
            row["eps"] = _finite_or_none(row["eps"])
        return json.dumps(d, indent=1, allow_nan=False, ensure_ascii=False, default=_finite_or_none)
    fixed = ", ".join(f"{'lambda' if n == 'lam' else n} = {v:g} (given)" for n, v in given.items())
    lines = [f"{st.key} ({st.label}) at m = {o.m:g}" + (f", {fixed}" if fixed else ""), f"  statement {b.line()}"]
    lines += [f"  {x}" for x in (b.note and f"note: {b.note}", b.warning and f"warning: {b.warning}") if x]
    for name, p in (("paper", paper), ("optimised", opt)):
        eps = "—" if _finite_or_none(p.eps) is None else f"{p.eps:.6g}"
        lam_text = "—" if p.lam is None else f"{p.lam:.6g}"
        lines.append(f"  {name:<10} eps = {eps}  lambda = {lam_text}  bound = {p.bound:.6g}")
    if opt.improvement is not None:
        lines.append(f"  improvement factor (paper / optimised) = {opt.improvement:.4g}")
    if opt.outside_regime:
        u = opt.outside_regime
        u_lam = "—" if u.get("lam") is None else f"{u['lam']:.6g}"
        lines.append(f"  note: the optimum over the whole domain lies outside the paper's regime ({u['regime']}): "
                     f"eps = {u['eps']:.6g}  lambda = {u_lam}  bound = {u['bound']:.6g}; the answer stays inside it "
                     "(--unconstrained gives that point)")
    elif not regime:
        lines.append("  note: unconstrained: the search covers the statement's whole domain, not only the paper's "
                     f"regime ({registry.papers[st.paper].regime.text()})")
    if paper.bound_stated is not None and abs(paper.bound_stated - paper.bound) > 1e-12 * abs(paper.bound):
        lines.append(f"  note: the paper's printed bound gives {paper.bound_stated:.6g} at its schedule "
                     f"(its verdict: {b.verdict_text})")
    if paper.note:
        lines.append(f"  note: {paper.note}")
    if "floating-point" in opt.note:
        lines.append(f"  note: {opt.note}")
    lines += _vacuity_lines(paper, opt)
    lines += [f"  {x}" for x in pick.explain(opt)]
    return "\n".join(lines + plots)


def _check_plot_paths(a: argparse.Namespace) -> None:
    """``--plot`` / ``--plot-rate``: files that can be written, in a format matplotlib writes (a CLIError naming
    the option otherwise), checked before the pick is computed.

    Examples
    --------
    >>> _check_plot_paths(SimpleNamespace(plot="/nonexistent/dir/x.png", plot_rate=None))
    Traceback (most recent call last):
    ...
    bounds.cli.CLIError: --plot '/nonexistent/dir/x.png': the directory /nonexistent/dir does not exist
    """
    from pathlib import Path

    given = [(opt, path) for opt, path in (("--plot", a.plot), ("--plot-rate", a.plot_rate)) if path is not None]
    for opt, path in given:
        what = f"{opt} {short(path, 80)}"
        if not path.strip() or "\0" in path:
            raise CLIError(f"{what}: must name a file (FILE.png)")
        p = Path(path)
        parent = p.parent
        if p.is_dir():
            raise CLIError(f"{what}: is a directory, not a file")
        if not parent.exists():
            raise CLIError(f"{what}: the directory {parent} does not exist")
        if not parent.is_dir():
            raise CLIError(f"{what}: {parent} is not a directory")
        if p.exists() or p.is_symlink():
            if not p.is_file():
                raise CLIError(f"{what}: exists and is not a regular file")
            if not os.access(p, os.W_OK):
                raise CLIError(f"{what}: the file is not writable")
        elif not os.access(parent, os.W_OK | os.X_OK):
            raise CLIError(f"{what}: the directory {parent} is not writable")
        ext = p.suffix.lower().lstrip(".")
        if ext:
            from matplotlib.backend_bases import FigureCanvasBase

            formats = FigureCanvasBase.get_supported_filetypes()
            if ext not in formats:
                raise CLIError(f"{what}: matplotlib writes no .{short(ext, 12)[1:-1]} files; use one of "
                               + ", ".join(f".{f}" for f in sorted(formats)))
    if len(given) == 2 and os.path.abspath(given[0][1]) == os.path.abspath(given[1][1]):
        raise CLIError(f"--plot and --plot-rate name the same file {short(given[0][1], 80)}: the second would "
                       "overwrite the first")


#: the key listings of the help and of ``pick PAPER`` / ``calibrate PAPER``: title, usage, what each needs
_KINDS = {"pick": ("pickable statements", "python -m bounds pick KEY --m M name=value ...", "constants"),
          "calibrate": ("mechanism statements", "python -m bounds calibrate KEY name=value ...", "parameters")}
#: the statement parameters a pick chooses or takes from its own options (never a name=value constant)
_PICK_CHOSEN = ("m", "eps", "lam")


def _index_needs(reg: Registry) -> list[str]:
    """The statements :func:`_index_of` evaluates (the mechanisms' derived forms name their parameters)."""
    from . import calibrate as cal
    from . import pick

    with pick.using(reg):
        return cal.mechanism_keys()


def _index_of(reg: Registry) -> dict[str, Any]:
    """The pickable and mechanism statements with what each needs, and why a paper has none to pick."""
    from . import calibrate as cal
    from . import pick

    with pick.using(reg):
        pk = []
        for k in pick.pickable_keys():
            st = reg.get(k)
            pk.append((k, st.paper, st.label, [n for n in st.params if n not in _PICK_CHOSEN]))
        mk = [(k, reg.get(k).paper, reg.get(k).label, list(cal.parameters(k))) for k in cal.mechanism_keys()]
        why = {pid: pick.not_pickable_reason(pid) for pid in reg.papers if not pick.pickable_keys(pid)}
    return {"papers": list(reg.papers), "pick": pk, "calibrate": mk, "not_pickable": why}


def _keys_index() -> dict[str, Any]:
    """:func:`_index_of` of every paper, kept beside the snapshot's light papers (keyed by the same digest),
    so that ``--help`` reads one small file; computed (from the light papers, else the papers) when absent."""
    import pickle

    from ._store_io import _atomic_write, pack

    store = Store.default()
    path = None
    if store is not None:
        from .snapshot import papers_digest

        path = store.dir / "paper" / f"_keys-{papers_digest(store.src)}.pkl"
        ok, idx = store._read(path, "keys:", lambda x: isinstance(x, dict))
        if ok:
            return idx
    idx = _run(_index_of, None, _index_needs)
    if path is not None:
        _atomic_write(path, pack("keys:", pickle.dumps(idx, protocol=pickle.HIGHEST_PROTOCOL)))
    return idx


def _key_rows(entries: Sequence[Sequence[Any]]) -> list[str]:
    """One aligned line per (key, paper, label, needs)."""
    w = max((len(e[0]) for e in entries), default=0)
    texts = [" ".join(e[3]) or "(none)" for e in entries]
    nw = min(max((len(t) for t in texts), default=0), 40)
    return [f"  {e[0]:<{w}}  {t:<{nw}}  ({e[2]})" for e, t in zip(entries, texts, strict=True)]


def _keys_help(kinds: Sequence[str]) -> str:
    """The help's listing of the pickable and mechanism statements with what each needs."""
    try:
        idx = _keys_index()
    except Exception as exc:  # noqa: BLE001 - the help must print; say why the listing is missing
        return f"(the statements cannot be listed here: {one_line(str(exc))})\n"
    out = []
    for kind in kinds:
        title, usage, needs = _KINDS[kind]
        out.append(f"{title} ({usage}), with the {needs} each needs:")
        out += _key_rows(idx[kind])
        if kind == "pick" and idx["not_pickable"]:
            out.append(f"  (nothing to pick in {', '.join(idx['not_pickable'])}: `python -m bounds pick PAPER` says why)")
    return "\n".join(out) + "\n"


def _prefix(key: Any) -> tuple[str, list[str]] | None:
    """``(paper id, the paper's statement keys)`` when ``key`` is a paper id or a section prefix (``jia.s5_1``)
    rather than a statement, else None."""
    if not isinstance(key, str) or not re.fullmatch(r"[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*", key):
        return None
    pid = key.split(".", 1)[0]
    keys = _run(lambda reg: list(reg.papers[pid].statements) if pid in reg.papers else [], [pid],
                lambda reg: [])
    if key in keys or not (key == pid and keys or any(k.startswith(key + ".") for k in keys)):
        return None
    return pid, keys


def _on_prefix(a: argparse.Namespace, bare: bool) -> int | None:
    """For a paper or section given where a statement is expected: ``pick``/``calibrate`` with nothing else
    list the paper's statements of that kind with what each needs (stdout, status 0); otherwise a one-line
    error whose "did you mean" starts with the valid keys under the prefix.  None: ``a.key`` is no prefix."""
    found = _prefix(a.key)
    if found is None:
        return None
    pid, keys = found
    key = a.key
    what = f"paper {pid}" if key == pid else f"a section of paper {pid}"

    def under_first(ks: Sequence[str]) -> list[str]:
        under = [k for k in ks if key == pid or k.startswith(key + ".")]
        return under + [k for k in ks if k not in under]

    if a.cmd in _KINDS:
        idx = _keys_index()
        title, _, needs = _KINDS[a.cmd]
        entries = [e for e in idx[a.cmd] if e[1] == pid]
        order = under_first([e[0] for e in entries])
        entries.sort(key=lambda e: order.index(e[0]))
        why = idx["not_pickable"].get(pid, "") if a.cmd == "pick" else ""
        if bare:
            if getattr(a, "json", False):
                print(json.dumps([{"key": k, "paper": p, "label": lab, needs: list(n)} for k, p, lab, n in entries],
                                 indent=1, ensure_ascii=False))
                return 0
            if not entries:
                others = ", ".join(e[0] for e in idx[a.cmd]) or "none"
                print(f"paper {pid} has no {title[:-1]}" + (f": {why}" if why else "") + f"; {title}: {others}")
                return 0
            first = f", those under {key} first" if key != pid else ""
            print(f"{title} of paper {pid}{first} ({_KINDS[a.cmd][1]}), with the {needs} each needs:")
            print("\n".join(_key_rows(entries)))
            return 0
        if not entries:
            others = ", ".join(e[0] for e in idx[a.cmd]) or "none"
            raise CLIError(f"unknown statement {short(key, 80)} ({what}, not a statement); paper {pid} has no "
                           f"{title[:-1]}" + (f": {why}" if why else "") + f"; {title}: {others}")
        first = f", those under {key} first" if key != pid else ""
        raise CLIError(f"unknown statement {short(key, 80)} ({what}, not a statement); did you mean "
                       f"{', '.join(order)}? ({title} of paper {pid}{first}; `python -m bounds {a.cmd} {key}` "
                       f"lists them with the {needs} each needs)")
    mine = under_first([k for k in keys if key == pid or k.startswith(key + ".")])
    shown = mine[:12] + ([f"… ({len(mine) - 12} more)"] if len(mine) > 12 else [])
    raise CLIError(f"unknown statement {short(key, 80)} ({what}, not a statement); did you mean {', '.join(shown)}? "
                   f"(`python -m bounds list --paper {pid}` lists every statement of paper {pid})")


def build_parser() -> argparse.ArgumentParser:
    ap = _Parser(prog="python -m bounds", description="Bounds of the papers, checked.", allow_abbrev=False)
    ap.keys_help = ("pick", "calibrate")
    ap.add_argument("--version", action=_Version, help="print the toolkit's version (the one a report records) and exit")
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("papers", help="list the discovered papers", allow_abbrev=False)
    p.add_argument("--json", action="store_true")
    p.add_argument("--reports", default=None,
                   help="report directory whose empirical and audit evidence is combined (default: reports/)")
    p = sub.add_parser("list", help="list statements", allow_abbrev=False)
    p.add_argument("--json", action="store_true")
    p.add_argument("--paper")
    p.add_argument("--status", choices=STATUSES, help="filter by the status of the symbolic derivation")
    p.add_argument("--verdict", choices=STATEMENT_VERDICTS,
                   help="filter by the statement's one verdict, by its code as in --json (e.g. 'regime' is shown "
                        "as \"holds in the paper's regime\", 'tight' as 'consistent (tight)')")
    p.add_argument("--reports", default=None,
                   help="report directory whose empirical and audit evidence is combined (default: reports/)")
    p = sub.add_parser("show", help="show one statement", allow_abbrev=False)
    p.add_argument("key")
    p.add_argument("--json", action="store_true")
    p.add_argument("--reports", default=None,
                   help="report directory whose empirical and audit evidence is combined (default: reports/)")
    p = sub.add_parser("eval", help="evaluate a statement", allow_abbrev=False)
    p.keys_help = ("pick", "calibrate")
    p.add_argument("key")
    p.add_argument("values", nargs="*", help="name=value")
    p.add_argument("--stated", action="store_true", help="use the paper's stated expression")
    p.add_argument("--derived", action="store_true", help="use the derived expression (an error if there is none)")
    p.add_argument("--repr", action="store_true", help="print the full float")
    p.add_argument("--json", action="store_true")
    p.add_argument("--allow-unverified", action="store_true",
                   help="answer even where no form of the statement is established (with a warning)")
    p = sub.add_parser("pick", help="pick ε and λ", allow_abbrev=False)
    p.keys_help = ("pick",)
    p.add_argument("key", help="a pickable statement (listed below); a paper id or section alone lists its own")
    p.add_argument("values", nargs="*", help="problem constants name=value")
    p.add_argument("--m", help="sample size")
    p.add_argument("--eps", help="privacy level ε (fixed; without --target the optimiser then chooses λ)")
    p.add_argument("--target", help="bound to reach: smallest m (with --eps) or smallest ε (with --m)")
    p.add_argument("--lam", default=None,
                   help="optimise (default), paper (with --target only), or a number (λ fixed)")
    p.add_argument("--unit", action="store_true", help="set every unspecified problem constant to 1")
    p.add_argument("--json", action="store_true")
    p.add_argument("--allow-unverified", action="store_true",
                   help="answer even where no form of the bound is established (with a warning)")
    p.add_argument("--plot", metavar="FILE.png", help="draw the bound over (eps, lambda) and its dominant term")
    p.add_argument("--plot-rate", metavar="FILE.png", help="draw the bound against m for the picked schedule")
    p.add_argument("--unconstrained", action="store_true",
                   help="optimise over the statement's whole domain, not only the paper's regime (the default)")
    p = sub.add_parser("calibrate", help="the stated, derived and tight noise of a mechanism", allow_abbrev=False)
    p.keys_help = ("calibrate",)
    p.add_argument("key", help="a mechanism statement (listed below); a paper id or section alone lists its own")
    p.add_argument("values", nargs="*", help="eps, delta, the sample size and the paper's constants: name=value")
    p.add_argument("--json", action="store_true")
    p.add_argument("--allow-unverified", action="store_true",
                   help="answer even where no form of the statement is established (with a warning)")
    for name in ("papers", "list", "show", "eval", "pick", "calibrate"):
        sub.choices[name].add_argument(
            "--reports-any-version", action="store_true",
            help="use a report written by another version of the toolkit (refused otherwise), its version named "
                 "beside every verdict taken from it")
    # the plain Gaussian/Laplace mechanisms (bounds/noise.py)
    from .noise import add_parser as add_noise_parser

    add_noise_parser(sub)
    return ap


#: options taking a number, whose value may start with '-' (``--m -1e5`` is a value, not an option)
_NUMERIC_OPTIONS = ("--m", "--eps", "--target", "--lam")


def _looks_like_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _prepare(argv: Sequence[str]) -> tuple[list[str], list[str]]:
    """The argv argparse sees and the ``name=value`` tokens (which may appear anywhere).

    A numeric option's negative value is joined to it (``--m -1e5`` → ``--m=-1e5``), and an
    option given twice is refused: argparse would keep the last one silently.

    Examples
    --------
    >>> _prepare(["pick", "jia.thm4", "--m", "-1e5", "beta=0.5"])
    (['pick', 'jia.thm4', '--m=-1e5'], ['beta=0.5'])
    >>> _prepare(["pick", "jia.thm4", "--m", "100", "--m=200"])
    Traceback (most recent call last):
    ...
    bounds.cli.CLIError: option '--m' is given twice
    """
    argv = list(argv)
    for t in argv:
        if not isinstance(t, str):
            raise CLIError(f"arguments must be strings, not {type(t).__name__} {short(t)}")
    joined: list[str] = []
    i = 0
    while i < len(argv):
        t = argv[i]
        if t in _NUMERIC_OPTIONS and i + 1 < len(argv) and argv[i + 1].startswith("-") and _looks_like_number(argv[i + 1]):
            joined.append(f"{t}={argv[i + 1]}")
            i += 2
            continue
        joined.append(t)
        i += 1
    seen: set[str] = set()
    for t in joined:
        if t == "--":
            break
        if t.startswith("-") and not _looks_like_number(t):
            name = t.split("=", 1)[0]
            if name in seen:
                raise CLIError(f"option {short(name)} is given twice")
            seen.add(name)
    # name=value tokens may appear anywhere: move them after the options
    assigns = [t for t in joined[1:] if "=" in t and not t.startswith("-")]
    rest = joined[:1] + [t for t in joined[1:] if not ("=" in t and not t.startswith("-"))]
    return rest, assigns


@contextlib.contextmanager
def _one_blas_thread(on: bool):
    """One BLAS/OpenMP thread inside the block (threadpoolctl), unless the user chose a count: the pickers'
    small linear algebra only loses to spinning threads when the other cores are busy.  ``python -m
    bounds`` also sets the environment before numpy is imported (:func:`bounds._lazy.one_blas_thread`)."""
    if not on:                  # the other commands need neither numpy's pools nor bounds.pick (sympy)
        yield
        return
    from .pick import _user_threads

    if _user_threads():
        yield
        return
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        yield
        return
    import numpy  # noqa: F401  (loaded here so that threadpoolctl sees its BLAS)

    with threadpool_limits(1):
        yield


#: the input error of the last :func:`main` call that gave status 2 (empty otherwise)
FAILED: list[BaseException] = []


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI; returns the exit status (2 on bad input, with one line on stderr)."""
    FAILED.clear()
    try:
        args, assigns = _prepare(sys.argv[1:] if argv is None else argv)
        a = build_parser().parse_args(args)
        if hasattr(a, "values"):
            a.values = list(a.values) + assigns
        elif assigns:
            raise CLIError(f"unexpected name=value arguments for {a.cmd}: {short(' '.join(assigns), 80)}")
        if getattr(a, "lam", None) not in (None, "optimise", "paper"):
            if not _looks_like_number(a.lam):
                raise CLIError(f"--lam must be 'optimise', 'paper' or a number, not {short(a.lam)}")
            a.lam = _number(a.lam, "--lam (parameter 'lam')")
        handlers = {"papers": _cmd_papers, "list": _cmd_list, "show": _cmd_show, "eval": _cmd_eval, "pick": _cmd_pick,
                    "calibrate": _cmd_calibrate, "noise": _cmd_noise}
        notes = []
        with (warnings.catch_warnings(record=True) as caught, _one_blas_thread(a.cmd in ("pick", "calibrate")),
              using_report(getattr(a, "reports", None), getattr(a, "reports_any_version", False))):
            if a.cmd != "noise":                        # noise: the accountants alone, no statement
                from .core import PrivacyWarning

                warnings.simplefilter("always", PrivacyWarning)
            if hasattr(a, "reports_any_version"):       # its verdicts read the report: check it first
                notes.append(read_summary().note)
            try:
                rc = handlers[a.cmd](a)
            except UnknownKeyError:
                bare = not assigns and all(t in ("--json", "--reports-any-version") for t in args[1:] if t != a.key)
                rc = _on_prefix(a, bare) if a.cmd in ("pick", "calibrate", "eval", "show") else None
                if rc is None:
                    raise
                notes = []                      # a listing: no verdict printed
        flush_stdout()                  # a failing stdout reported here (as the numeric path does), not at exit
    except SystemExit as exc:    # --help: argparse printed it
        return exc.code if isinstance(exc.code, int) else 0 if exc.code is None else 2
    except BrokenPipeError as exc:      # the reader closed the pipe (`| head`): stop quietly, as cat does
        return output_failure(exc)
    except (CLIError, ValueError, LookupError) as exc:
        FAILED[:] = [exc]               # what bounds.numeric.generate_missed reads (whether the store could answer)
        plain_key_error = isinstance(exc, KeyError) and not isinstance(exc, UnknownKeyError) and exc.args
        msg = exc.args[0] if plain_key_error else str(exc)
        print(f"error: {one_line(str(msg))}", file=sys.stderr)
        return 2
    except OSError as exc:       # a file that cannot be read or written (after the checks above), stdout too
        return output_failure(exc)
    for note in notes:
        if note:
            print(f"note: {one_line(note)}", file=sys.stderr)
    shown = set()
    privacy_warning = _privacy_warning()
    for w in caught:
        text = one_line(str(w.message))
        if privacy_warning is not None and issubclass(w.category, privacy_warning) and text not in shown:
            shown.add(text)
            print(f"warning: {text}", file=sys.stderr)
    return rc
