"""Writing the report: ``REPORT.md``, ``index.html``, ``summary.json``, ``results/``, ``figures/``.

Everything in the report is computed from :mod:`bounds` at run time: the
status of every statement, the evidence of every erratum and which later
statements inherit it, and the ε/λ picks.  Files are written to a temporary
directory and moved into place, so an interrupted run leaves the previous
report intact.

The report opens with a figure index (per paper and statement, each figure
linked; also ``summary.json``'s ``figures``, which ``python -m verify where``
reads).  A partial run (``only``) never deletes or rewrites a file of a paper
it did not run: into a directory holding another paper's report it writes a
report of its own under ``partial/<papers>/`` (it does not merge); into its
own papers' report it replaces that and keeps every other paper's figure
(:func:`report_dir`, :func:`keep_other_papers_figures`).

Examples
--------
>>> import tempfile, json, pathlib
>>> from verify.report import write_report
>>> out = pathlib.Path(tempfile.mkdtemp())
>>> paths = write_report(out, only="jia.thm2", picks=False)
>>> json.loads((out / "summary.json").read_text())["statements"][0]["key"]
'jia.thm2'
"""

from __future__ import annotations

import datetime as _dt
import importlib.util
import json
import math
import os
import platform
import re
import shutil
import subprocess
import tempfile
import time
from collections import Counter
from collections.abc import Iterable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

import pandas as pd
import sympy as sp

from bounds import PAPERS, registry
from bounds.cli import LATEX, entry
from bounds.cli import latex as bounds_latex
from bounds.core import Evaluation, keys_matching
from bounds.evidence import STATEMENT_VERDICTS, STATUSES, VERDICT_TEXT, Result
from bounds.report_io import toolkit_version
from bounds.verdict import Verdict, headline, root_table
from bounds.verdict import verdicts as verdicts_of

PICK_M = (1e3, 1e4, 1e5, 1e6)


def pick_constants() -> dict[str, dict[str, float]]:
    """Statement key → problem constants of the ε/λ table, as each paper declares them (``Paper.pick``)."""
    out: dict[str, dict[str, float]] = {}
    for paper in PAPERS.values():
        out.update(paper.pick)
    return out


def calibration_rows() -> list[dict[str, Any]]:
    """Every paper's noise calibrations where a composition is involved (``Paper.calibrations``)."""
    out: list[dict[str, Any]] = []
    for paper in sorted(PAPERS.values(), key=lambda p: p.order):
        if paper.calibrations is not None:
            out.extend(dict(r, paper=paper.id) for r in paper.calibrations())
    return out


def calibration_markdown(rows: list[dict[str, Any]]) -> list[str]:
    """Report lines: stated, derived and tight noise per mechanism, the bound each gives, and the ε it needs."""
    if not rows:
        return []

    def f(v: Any, fmt: str = ".4g") -> str:
        return "—" if v is None else format(v, fmt)

    L = ["## Noise calibrations: stated, derived and tight", "",
         "Where a mechanism composes T steps, three calibrations of its noise: `stated` (the paper's "
         "formula as printed), `derived` (the composition theorem the paper's proof uses, re-derived) and "
         "`tight` (the smallest noise a numerical accountant certifies for the same (ε, δ): "
         "`bounds.accounting`, Google's dp-accounting PLD accountant, pessimistic estimate).  `saving` = "
         "derived / tight noise.  The bound columns evaluate the paper's explicit utility bound at each "
         "noise; 'ε needed' is the smallest ε at which that calibration's bound is no worse than the "
         "derived one at the setting's ε (the ε pick).  Every calibration is audited in the table below.", "",
         "| statement | mechanism | setting | noise | stated | derived | tight | saving | bound (stated / derived / "
         "tight) | ε needed (stated / derived / tight) | accountant |",
         "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        b, e = r.get("bound") or {}, r.get("eps_for_target") or {}
        anchor = r["key"].replace(".", "-").replace("_", "-").lower()
        L.append(f"| [`{r['key']}`](#s-{anchor}) | {md_inline(r['mechanism'])} | {md_inline(r['setting'])} | "
                 f"{md_inline(r['noise'])} | "
                 f"{f(r.get('stated'))} | {f(r['derived'])} | {f(r['tight'])} | {r['saving']:.2f}× | "
                 f"{f(b.get('stated'), '.3g')} / {f(b.get('derived'), '.3g')} / {f(b.get('tight'), '.3g')} "
                 f"(`{r.get('bound_key', '')}`) | {f(e.get('stated'), '.3g')} / {f(e.get('derived'), '.3g')} / "
                 f"{f(e.get('tight'), '.3g')} | {r['accountant']} |")
    return L + [""]


def provenance(seconds: float | None = None) -> dict[str, Any]:
    """Package versions, git commit and platform."""
    vers = {}
    for pkg in ("numpy", "scipy", "sympy", "pandas", "matplotlib", "scikit-learn", "dask", "distributed"):
        try:
            vers[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            vers[pkg] = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
            cwd=Path(__file__).resolve().parent,
        ).stdout.strip() or None
        dirty = bool(
            subprocess.run(
                ["git", "status", "--porcelain"], capture_output=True, text=True, check=False,
                cwd=Path(__file__).resolve().parent,
            ).stdout.strip()
        )
    except OSError:
        commit, dirty = None, None
    return {
        "generated": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": vers,
        "git_commit": commit,
        "git_dirty": dirty,
        "numeric_check_seeds": "numpy SeedSequence from crc32 of the statement key (fixed)",
        "wall_time_s": None if seconds is None else round(seconds, 2),
    }


def dependents(keys: Iterable[str]) -> dict[str, list[str]]:
    """Transitive dependents of each key (which later statements use it)."""
    direct: dict[str, set[str]] = {k: set() for k in registry.keys()}
    for st in registry:
        for d in st.depends:
            direct.setdefault(d, set()).add(st.key)
    out: dict[str, list[str]] = {}
    for k in keys:
        seen: set[str] = set()
        stack = list(direct.get(k, ()))
        while stack:
            x = stack.pop()
            if x not in seen:
                seen.add(x)
                stack.extend(direct.get(x, ()))
        out[k] = sorted(seen, key=registry.keys().index)
    return out


def picks_table(verdicts: dict[str, Verdict] | None = None) -> list[dict[str, Any]]:
    """The "Choosing ε and λ" rows: paper schedule vs optimised ε/λ for the pickable bounds at a few m.

    Each row names the form of the bound used (the established correction of a wrong printed
    bound), that statement's verdict and regime; a bound with no established form is listed with
    the reason and never optimised (:func:`bounds.pick.choosing_rows`).  ``verdicts``: the
    report's own verdicts (default: from the symbolic evidence alone).
    """
    from bounds.pick import choosing_rows

    consts = {k: v for k, v in pick_constants().items() if k in registry}
    if verdicts is None:
        verdicts = verdicts_of(registry, [], keys=list(consts))
    return choosing_rows(verdicts, ms=PICK_M, constants=consts)


def not_pickable(papers: Iterable[str]) -> dict[str, str]:
    """Paper id → why it has no statement to pick ε and λ from, for each of ``papers`` that has none.

    From :func:`bounds.pick.not_pickable_reason` (the paper's declarations).

    Examples
    --------
    >>> "jia" in not_pickable(["jia", "cms"]), bool(not_pickable(["cms"]).get("cms"))
    (False, True)
    """
    from bounds.pick import not_pickable_reason

    out = {}
    for pid in papers:
        why = not_pickable_reason(pid)
        if why:
            out[pid] = why
    return out


# --- plain text into Markdown: sympy expressions as code, no accidental emphasis -----------------

_NUM = re.compile(r"\d+(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
_PROTECTED = re.compile(r"(`+)(?:.+?)\1|\$\$.+?\$\$")


def _atom(s: str, i: int) -> int:
    """End of a number, a name, a call ``name(args)`` or ``(expr)`` at ``i`` (optionally negated), else -1."""
    j = i + 1 if s.startswith("-", i) else i
    m = _NUM.match(s, j)
    if m:
        return m.end()
    m = _NAME.match(s, j)
    if m:
        k = m.end()
        if s.startswith("(", k):
            e = _expr(s, k + 1)
            while e >= 0 and s.startswith(", ", e):
                e = _expr(s, e + 2)
            if e >= 0 and s.startswith(")", e):
                return e + 1
        return k
    if s.startswith("(", j):
        e = _expr(s, j + 1)
        if e >= 0 and s.startswith(")", e):
            return e + 1
    return -1


def _term(s: str, i: int) -> int:
    e = _atom(s, i)
    while e >= 0:
        for op in ("**", "*", "/"):
            if s.startswith(op, e):
                e2 = _atom(s, e + len(op))
                if e2 >= 0:
                    e = e2
                    break
        else:
            return e
    return e


def _expr(s: str, i: int) -> int:
    """End of a sympy ``str()`` expression starting at ``i`` (terms joined by `` + `` / `` - ``), else -1."""
    e = _term(s, i)
    while e >= 0 and s[e:e + 3] in (" + ", " - "):
        e2 = _term(s, e + 3)
        if e2 < 0:
            break
        e = e2
    return e


def _sympy_spans(s: str) -> list[tuple[str, bool]]:
    """``s`` cut into (text, is_expression) pieces: the expressions are sympy ones containing ``*``."""
    out: list[tuple[str, bool]] = []
    i = last = 0
    while i < len(s):
        c = s[i]
        if (c.isascii() and (c.isalnum() or c in "(-")) and (i == 0 or not (s[i - 1].isalnum() or s[i - 1] in "_.")):
            e = _expr(s, i)
            if e > i and "*" in s[i:e] and (e == len(s) or not (s[e].isalnum() or s[e] == "_")):
                out += [(s[last:i], False), (s[i:e], True)]
                i = last = e
                continue
        i += 1
    out.append((s[last:], False))
    return [p for p in out if p[0]]


def _escape_emphasis(s: str) -> str:
    """Backslash-escape ``*`` and every ``_`` that is not inside a word (those can open or close emphasis)."""
    out = []
    for i, c in enumerate(s):
        if c == "*":
            out.append("\\*")
        elif c == "_" and not (0 < i < len(s) - 1 and s[i - 1].isalnum() and s[i + 1].isalnum()):
            out.append("\\_")
        else:
            out.append(c)
    return "".join(out)


def md_inline(text: str) -> str:
    r"""Plain text (a check's detail, a reason, a variant) as one line of Markdown that renders as written.

    sympy expressions (``2*kappa*C_L/(lam*m)``) become code spans; a remaining ``*`` and an ``_``
    outside a word are escaped, so neither can start italics; ``|`` is escaped for tables.
    Existing code spans and ``$$…$$`` are kept as they are.

    Examples
    --------
    >>> md_inline("bound 2*kappa*C_L/(lam*m) at t = 1/2")
    'bound `2*kappa*C_L/(lam*m)` at t = 1/2'
    >>> md_inline("exponent -1/2 + 1/(2*beta + 1); ‖f_z − f_z̄‖_K, x_j")
    'exponent `-1/2 + 1/(2*beta + 1)`; ‖f_z − f_z̄‖\\_K, x_j'
    >>> md_inline("Φ*_c and `a*b` | $$x_1$$")
    'Φ\\*\\_c and `a*b` \\| $$x_1$$'
    """
    text = tame_factors(text.replace("\n", " "))
    parts: list[str] = []
    last = 0
    for m in [*_PROTECTED.finditer(text), None]:
        plain = text[last:m.start() if m else len(text)]
        parts += [f"`{t}`" if code else _escape_emphasis(t) for t, code in _sympy_spans(plain)]
        if m:
            parts.append(m.group(0))
            last = m.end()
    return "".join(parts).replace("|", "\\|")


def _md_escape(s: str) -> str:
    return md_inline(s)


def _n(k: int, one: str, many: str) -> str:
    """``1 gap``, ``2 gaps``: a count with its noun."""
    return f"{k} {one if k == 1 else many}"


def _short(s: str, n: int = 160) -> str:
    """``s`` in at most about ``n`` characters, cut at a clause or word boundary (:func:`cut_at_word`)."""
    t, cut = cut_at_word(tame_factors(s.replace("\n", " ")), n)
    return md_inline(t + (" …" if cut else ""))


# --- the report reads true (issue 34 item 7): words that match the numbers ----------------------------

#: a factor, ratio or slack printed with an exponent (``5.947e+52``)
_BIG_FACTOR = re.compile(r"((?:factor|ratio|slack)[^;|]{0,40}?)(\d(?:\.\d+)?e\+?(\d{2,}))", re.IGNORECASE)
#: above this a measured factor says only how far the sampled parameters reach (``verify.scan`` flags it)
MEANINGLESS_FACTOR = 1e12


def tame_factors(text: str) -> str:
    """Never print a number that means nothing: a factor, ratio or slack above 10¹² is replaced by words.

    Only where the text itself explains why the factor is huge (it is unbounded, grows without bound, …:
    :func:`verify.scan.explains_factor`) is the number replaced by words; an unexplained one is left as it
    is, for the scanner (:mod:`verify.scan`) to flag: the report never masks a number it cannot explain.

    Examples
    --------
    >>> tame_factors("a factor 1 to 5.947e+52: unbounded over the sampled points")
    'a factor 1 to beyond 10¹² (not printed: the row says why it is not a property of the bound): unbounded over the sampled points'
    >>> tame_factors("stated exceeds derived by a factor 1 to 5.947e+52 (median 4.132)")
    'stated exceeds derived by a factor 1 to 5.947e+52 (median 4.132)'
    >>> tame_factors("ratio 3.1e+05 at m = 10")
    'ratio 3.1e+05 at m = 10'
    """
    from .scan import explains_factor

    if not explains_factor(text):   # an unexplained huge factor is left for the scanner to flag, never masked
        return text

    def sub(m: re.Match[str]) -> str:
        try:
            big = float(m.group(2)) > MEANINGLESS_FACTOR
        except ValueError:
            big = False
        if not big:
            return m.group(0)
        return m.group(1) + "beyond 10¹² (not printed: the row says why it is not a property of the bound)"

    return _BIG_FACTOR.sub(sub, text)


def cut_at_word(text: str, n: int) -> tuple[str, bool]:
    """``text`` shortened to at most ``n`` characters at a clause or word boundary; (text, whether cut).

    Prefers the end of a clause (``; `` or ``. ``) in the second half of the budget, else the last
    space; never ends mid-word, and drops a dangling comma, colon or opening bracket.

    Examples
    --------
    >>> cut_at_word("short", 10)
    ('short', False)
    >>> cut_at_word("the printed scale is half; the audit finds 2ε at n = 10⁵", 40)
    ('the printed scale is half', True)
    >>> cut_at_word("alpha beta gamma delta", 13)
    ('alpha beta', True)
    """
    text = " ".join(text.split())
    if len(text) <= n:
        return text, False
    head = text[:n]
    cut = max(head.rfind("; "), head.rfind(". "))
    if cut < n // 2:
        cut = head.rfind(" ") if text[n:n + 1] != " " else n
    if cut <= 0:
        cut = n
    out = text[:cut].rstrip(" ,;:(—–-[")
    while out and out[-1] in "([{,;:=<>+−-×·/":
        out = out[:-1].rstrip()
    return out, True


def evidence_cell(text: str, key: str, n: int = 260) -> str:
    """A table cell of evidence: whole clauses up to ``n`` characters, linking to the full text when cut.

    Examples
    --------
    >>> evidence_cell("a b c d e f", "jia.thm4.bound", n=5)
    'a b c … [full text](#s-jia-thm4-bound-why)'
    >>> evidence_cell("short", "jia.thm2")
    'short'
    """
    s, cut = cut_at_word(tame_factors(text), n)
    return md_inline(s) + (f" … [full text](#{_anchor(key)}-why)" if cut else "")


def inconclusive_why(r: Any) -> str:
    """Why a check reads inconclusive, from its own row: the paper module's ``details["why"]`` (or
    ``why_inconclusive``), else the row's numbers (interval against the bound or claimed slope, sizes).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> row = NS(kind="rate", verdict="inconclusive", details={}, lo=-0.3, hi=-0.1, bound=-0.25, statistic=-0.2,
    ...          n=336)
    >>> inconclusive_why(row)
    'the interval [-0.3, -0.1] (width 0.2) contains the claimed slope -0.25 (distance 0.05 from the fit): these sizes cannot tell them apart'
    >>> inconclusive_why(NS(kind="rate", verdict="holds", details={}, lo=0, hi=0, bound=0, statistic=0, n=1))
    ''
    """
    if getattr(r, "verdict", "") != "inconclusive":
        return ""
    d = getattr(r, "details", None) or {}
    # the grader's reason (why the verdict is inconclusive) first, then the paper module's account of the fit
    said = [d[k].strip() for k in ("why_inconclusive", "why") if isinstance(d.get(k), str) and d[k].strip()]
    if said:
        return "; ".join(said)
    lo, hi, ref, stat = (float(x) if x is not None else math.nan for x in (r.lo, r.hi, r.bound, r.statistic))
    sizes = d.get("m") or d.get("T") or d.get("n_values")
    if isinstance(sizes, list) and len(sizes) < 3:
        return f"too few sizes ({len(sizes)}) to fit a slope"
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(ref)):
        return "no finite interval or reference to compare"
    what = "claimed slope" if r.kind == "rate" else "bound"
    conf = getattr(r, "confidence", None)
    interval = f"{float(conf):.0%} interval" if isinstance(conf, (int, float)) and 0 < conf < 1 else "interval"
    if lo <= ref <= hi:
        return (f"the {interval} [{lo:.4g}, {hi:.4g}] (width {hi - lo:.4g}) contains the {what} {ref:.4g} "
                f"(distance {abs(stat - ref):.4g} from the {'fit' if r.kind == 'rate' else 'estimate'}): "
                f"{'these sizes' if r.kind == 'rate' else 'this sample'} cannot tell them apart")
    side = "above" if lo > ref else "below"
    return (f"the {interval} [{lo:.4g}, {hi:.4g}] lies {side} the {what} {ref:.4g} (distance {min(abs(lo - ref), abs(hi - ref)):.4g}), "
            "but the check's rule does not decide on this grid")


def check_label(c: Any) -> str:
    """How a symbolic check is named in the report: the rate check concerns the *printed bound's exponent*,
    not the algorithm's measured rate, and says so.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> check_label(NS(name="rate", ok=True, failed=False)), check_label(NS(name="stated vs derived", ok=True, failed=False))
    ("printed bound's exponent matches (the bound's own limit, not a measured rate)", 'stated vs derived')
    >>> check_label(NS(name="rate", ok=False, failed=True))
    "printed bound's exponent does not match (the bound's own limit, not a measured rate)"
    """
    name = str(getattr(c, "name", ""))
    if name == "rate" or name.startswith("rate:") or name.startswith("rate "):
        word = "matches" if getattr(c, "ok", False) else "does not match" if getattr(c, "failed", False) else "undecided"
        return f"printed bound's exponent {word} (the bound's own limit, not a measured rate)"
    return name


def smallest_correction(v: Any) -> dict[str, Any] | None:
    """The S1 record (issue 34 item 3) carried by the first piece of a verdict's evidence that has one."""
    for r in getattr(v, "evidence", ()) or ():
        sc = (getattr(r, "details", None) or {}).get("smallest_correction")
        if isinstance(sc, dict):
            return sc
    return None


def _factor(x: Any) -> str:
    if x is None:
        return ""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return f"factor {float(x):.4g}"
    return f"factor {x}"


def smallest_correction_text(sc: dict[str, Any] | None) -> str:
    """S1 in words, the toolkit's tightest tool first, then the proof's own argument, then whether the
    printed form is actually violated (never lead with a factor that is only sufficient).

    Examples
    --------
    >>> smallest_correction_text({"proof": {"factor": 2, "text": "double the scale"},
    ...     "tight": {"factor": 1.56, "tool": "pld_epsilon", "text": "1.56× the scale"},
    ...     "printed_violated": {"answer": "yes", "evidence": "audit ε_lower 1.42 > 1"}})
    "tight (pld_epsilon): 1.56× the scale (factor 1.56); by the proof's own argument: double the scale (factor 2); printed form violated: yes (audit ε_lower 1.42 > 1)"
    >>> smallest_correction_text(None)
    ''
    """
    if not isinstance(sc, dict):
        return ""
    parts = []
    t = sc.get("tight") or {}
    if t:
        f = _factor(t.get("factor"))
        parts.append(f"tight{' (' + str(t['tool']) + ')' if t.get('tool') else ''}: {t.get('text', '')}"
                     + (f" ({f})" if f else ""))
    p = sc.get("proof") or {}
    if p:
        f = _factor(p.get("factor"))
        parts.append(f"by the proof's own argument: {p.get('text', '')}" + (f" ({f})" if f else ""))
    pv = sc.get("printed_violated") or {}
    if pv:
        parts.append(f"printed form violated: {pv.get('answer', 'not tested')}"
                     + (f" ({pv['evidence']})" if pv.get("evidence") else ""))
    return "; ".join(parts)


def root_extras(v: Any, st: Any = None) -> dict[str, Any]:
    """The issue-34 fields of one verdict (S2, S1, references), with defaults before they land.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> root_extras(NS(evidence=[]))["root_test"]
    'not tested: the verdict machinery does not record it'
    """
    refs = tuple(getattr(st, "references", ()) or ()) if st is not None else ()
    return {"count_as": str(getattr(v, "count_as", "") or ""),
            "no_effect": list(getattr(v, "no_effect", ()) or ()),
            "root_test": str(getattr(v, "root_test", "") or "not tested: the verdict machinery does not record it"),
            "upstream": dict(getattr(v, "upstream", {}) or {}),
            "references": list(refs),
            "smallest_correction": smallest_correction(v)}


def refuted_caption(v: Any, shown: Sequence[Any]) -> str:
    """The caption of a refuted statement's figure whose runs do not show the refutation: it names the
    refuting evidence and links to it (the statement's *why* lines), so the figure cannot read as support.

    Empty when the statement is not refuted or when a run drawn is itself violated inside the regime.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> v = NS(verdict="refuted", key="jia.thm4.bound", reasons=["exact counterexample: 4/5 > 6/25"])
    >>> refuted_caption(v, [NS(verdict="holds", regime="")])
    '*Refuted elsewhere:* the runs in this figure do not show it; the refuting evidence: exact counterexample: 4/5 > 6/25 ([the evidence](#s-jia-thm4-bound-why)).'
    >>> refuted_caption(v, [NS(verdict="violated", regime="inside")])
    ''
    """
    if getattr(v, "verdict", "") != "refuted":
        return ""
    if any(getattr(r, "verdict", "") == "violated" and getattr(r, "regime", "") != "outside" for r in shown):
        return ""
    reasons = [str(x) for x in getattr(v, "reasons", []) or []]
    first = next((x for x in reasons if "counterexample" in x or "violated" in x), reasons[0] if reasons else "")
    text, cut = cut_at_word(tame_factors(first), 200)
    return (f"*Refuted elsewhere:* the runs in this figure do not show it; the refuting evidence: "
            f"{md_inline(text)}{' …' if cut else ''} ([the evidence](#{_anchor(v.key)}-why)).")


def relaxation_rows() -> list[dict[str, Any]]:
    """:func:`bounds.calibrate.relaxation_coverage` of the registry (issue 34 item 5), or [] before it exists."""
    try:
        from bounds.calibrate import relaxation_coverage

        return list(relaxation_coverage(registry))
    except (ImportError, AttributeError):
        return []


def relaxation_markdown(rows: Sequence[dict[str, Any]], papers: Iterable[str]) -> list[str]:
    """Coverage lines: per paper, which premises implementations relax are parameters of its mechanism
    statements, and which still are not (with the reason the paper module gives, or "not declared").

    Examples
    --------
    >>> rows = [{"key": "a.m", "paper": "a", "relaxed": [{"name": "q", "paper_value": 1, "premise": "‖x‖ ≤ q"}],
    ...          "premises": [{"premise": "feature norm", "status": "parameter", "parameter": "q", "reason": ""},
    ...                       {"premise": "intercept", "status": "not declared", "parameter": "", "reason": ""}]}]
    >>> relaxation_markdown(rows, ["a"])[-2:]
    ['- **`a`**:', '    - `a.m`: parameters: feature norm (`q`, the paper: 1); still not parameters: intercept (not declared)']
    """
    papers = list(papers)
    mine = [r for r in rows if r.get("paper") in papers]
    if not mine:
        return []
    L = ["", "Premises that real implementations relax (bounded feature norm, no intercept, exact minimiser, "
         "loss smoothness), per mechanism statement: those that are parameters (default: the paper's value), "
         "and those that still are not, with the reason:", ""]
    for pid in papers:
        items = []
        for r in (r for r in mine if r.get("paper") == pid):
            paper_value = {x.get("name"): x.get("paper_value") for x in r.get("relaxed") or []}
            yes = [f"{x['premise']} (`{x['parameter']}`"
                   + (f", the paper: {paper_value[x['parameter']]}" if x.get("parameter") in paper_value else "")
                   + ")" for x in r.get("premises") or [] if str(x.get("status", "")).startswith("parameter")]
            no = [f"{x['premise']} ({x['status']}" + (f": {_plain(x['reason'], 120)}" if x.get("reason") and
                                                     x.get("status") != "not declared" else "") + ")"
                  for x in r.get("premises") or [] if not str(x.get("status", "")).startswith("parameter")]
            items.append(f"`{r['key']}`: parameters: " + (md_inline("; ".join(yes)) if yes else "none")
                         + "; still not parameters: " + ("; ".join(no) if no else "none"))
        if items:
            L.append(f"- **`{pid}`**:")
            L += [f"    - {it}" for it in items]
    return L


def counted_error(row: dict[str, Any], v: Any = None) -> bool:
    """Whether a root counts among the headline's underlying errors: its ``count_as`` is "false" or "does not
    follow" when the verdict machinery gives one (S2), else its finding kind is ``result``.

    Examples
    --------
    >>> counted_error({"finding": "result"}), counted_error({"finding": "result", "count_as": "changes no result"})
    (True, False)
    >>> counted_error({"finding": "open", "count_as": "does not follow"})
    True
    """
    count_as = row.get("count_as") or getattr(v, "count_as", "") or ""
    if count_as:
        return count_as in ("false", "does not follow")
    return row.get("finding") == "result"


def is_placeholder(v: Any, st: Any) -> bool:
    """A placeholder statement: verdict ``unchecked`` and no stated form (it carries no evidence column).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> is_placeholder(NS(verdict="unchecked"), NS(stated=None)), is_placeholder(NS(verdict="consistent"), NS(stated=None))
    (True, False)
    """
    return getattr(v, "verdict", "") == "unchecked" and getattr(st, "stated", None) is None


#: the counting rule printed next to the headline number when ``headline`` does not give one
DEFAULT_RULE = ("counted: one per underlying error per paper, each a false statement or a printed form that does "
                "not follow from its premises; echoes and descendants are listed under their root and not counted")


def counting_rule(head: dict[str, Any]) -> str:
    """The headline's counting rule (``headline(vs)["rule"]``, else :data:`DEFAULT_RULE`)."""
    rule = head.get("rule") if isinstance(head, dict) else None
    return str(rule) if rule else DEFAULT_RULE


def _severity(ev: Evaluation) -> str:
    sev = sorted({c.severity for c in ev.checks if c.failed and c.severity})
    return ", ".join(sev)


def empirical_summary(results: Sequence[Any]) -> dict[str, dict[str, Any]]:
    """Per statement: overall empirical verdict, counts and the largest empirical/bound ratio.

    The overall verdict is ``violated`` if any variant is violated, ``holds`` if
    every variant holds, else ``inconclusive``.
    """
    out: dict[str, dict[str, Any]] = {}
    for r in results:
        d = out.setdefault(r.key, {"verdicts": Counter(), "max_ratio": None, "kinds": set()})
        d["verdicts"][r.verdict] += 1
        d["kinds"].add(r.kind)
        if r.kind != "rate" and not math.isnan(r.ratio):
            d["max_ratio"] = r.ratio if d["max_ratio"] is None else max(d["max_ratio"], r.ratio)
    for d in out.values():
        v = d["verdicts"]
        d["status"] = "violated" if v.get("violated") else ("holds" if set(v) == {"holds"} else "inconclusive")
        d["verdicts"] = dict(v)
        d["kinds"] = sorted(d["kinds"])
    return out


def _empirical_cell(d: dict[str, Any] | None) -> str:
    if d is None:
        return "—"
    counts = ", ".join(f"{n} {v}" for v, n in sorted(d["verdicts"].items()))
    ratio = "" if d["max_ratio"] is None else f"; max empirical/bound {d['max_ratio']:.3g}"
    return f"**{d['status']}** ({counts}{ratio})"


def _result_line(r: Any) -> str:
    if r.n == 0 or not math.isfinite(r.statistic):
        why = r.details.get("why_inconclusive") or r.detail or "no data"
        return (f"{r.kind} · {_md_escape(r.variant)}: no finite statistic ({_md_escape(str(why))}) → "
                f"**{r.reads}**. {_md_escape(r.method)}")
    ci = "" if r.lo == r.hi else f" [{r.lo:.4g}, {r.hi:.4g}]"
    parts = ["exact search" if r.confidence >= 1 else f"{r.confidence:.0%} CI", f"n = {r.n}"]
    if r.kind == "rate":
        grid = r.details.get("bound_slope")
        ref = ("the bound's own slope on this grid" if grid is not None and math.isfinite(float(grid))
               else "the claimed asymptotic exponent")
        claimed = r.details.get("claimed_exponent")
        if claimed is not None:
            parts.insert(0, f"claimed exponent {float(claimed):.4g}")
        cmp_ = f"slope {r.statistic:.4g}{ci} vs {ref} {r.bound:.4g} ({', '.join(parts)})"
    else:
        if math.isfinite(r.ratio):
            parts.insert(0, f"ratio {r.ratio:.3g}")
        cmp_ = f"empirical {r.statistic:.4g}{ci} vs bound {r.bound:.4g} ({', '.join(parts)})"
    where = " (configuration outside the paper's regime)" if r.regime == "outside" else ""
    why = inconclusive_why(r)
    why = f" (why inconclusive: {_md_escape(why)})" if why else ""
    what = "the algorithm's measured rate: " if r.kind == "rate" else ""
    return (f"{r.kind} · {_md_escape(r.variant)}: {what}{cmp_} → **{r.reads}**{why}{where}. "
            f"{_md_escape(r.method)}")


def figure_index(evs: Sequence[Evaluation], figures: dict[str, str] | None = None,
                 heatmaps: dict[str, str] | None = None, sens_figs: dict[str, str] | None = None,
                 overview: dict[str, str] | None = None, utility_fig: str | None = None,
                 audit_fig: str | None = None) -> list[dict[str, Any]]:
    """Every figure of the report, per paper and statement, in the order of the report.

    Returns
    -------
    list of dict
        ``paper`` (None for a figure of several papers), ``key`` (None for a paper's overview),
        ``kind`` (overview, rate, sensitivity, heatmap, utility, audit), ``title`` and ``path``
        (relative to the report directory).  ``summary.json`` carries it as ``figures``;
        ``python -m verify where KEY`` reads it.

    Examples
    --------
    >>> import bounds
    >>> evs = [bounds.evaluate("jia.thm2")]
    >>> idx = figure_index(evs, sens_figs={"jia.thm2": "figures/sensitivity_jia_thm2.png"},
    ...                    overview={"jia": "figures/overview_jia.png"})
    >>> [(f["paper"], f["key"], f["kind"]) for f in idx]
    [('jia', None, 'overview'), ('jia', 'jia.thm2', 'sensitivity')]
    """
    figures, heatmaps, sens_figs, overview = figures or {}, heatmaps or {}, sens_figs or {}, overview or {}
    rates: dict[str, list[tuple[str, str]]] = {}
    for ident, path in figures.items():
        key, _, variant = ident.split(":", 2)
        rates.setdefault(key, []).append((variant, path))
    out: list[dict[str, Any]] = []

    def add(paper: str | None, key: str | None, kind: str, title: str, path: str) -> None:
        out.append({"paper": paper, "key": key, "kind": kind, "title": title, "path": str(path)})

    for pid in dict.fromkeys(e.statement.paper for e in evs):
        if pid in overview:
            add(pid, None, "overview", "overview of the empirical checks", overview[pid])
        for e in (e for e in evs if e.statement.paper == pid):
            for variant, path in rates.get(e.key, []):
                add(pid, e.key, "rate", f"rate against m: {variant}", path)
            if e.key in sens_figs:
                add(pid, e.key, "sensitivity", "sensitivity against m", sens_figs[e.key])
            if e.key in heatmaps:
                add(pid, e.key, "heatmap", "bound over (ε, λ) at m = 10⁴", heatmaps[e.key])
    if utility_fig:
        add(None, None, "utility", "privacy–utility on real data", utility_fig)
    if audit_fig:
        add(None, None, "audit", "ε_lower against the claimed ε", audit_fig)
    return out


def figure_index_markdown(index: Sequence[dict[str, Any]]) -> list[str]:
    """Report lines of the figure index: one item per paper, a nested one per statement, each figure linked."""
    if not index:
        return []

    def link(f: dict[str, Any]) -> str:
        return f"[{md_inline(f['title']).replace('[', '(').replace(']', ')')}]({f['path']})"

    L = [f"<a id=\"figure-index\"></a>**Figure index**: the {_n(len(index), 'figure', 'figures')} of this "
         "report, per paper and statement; each link opens the figure (`python -m verify where KEY` prints "
         "the files of one statement).", ""]
    for pid in dict.fromkeys(f["paper"] for f in index):
        mine = [f for f in index if f["paper"] == pid]
        if pid is None:
            L.append("- **several papers**: " + "; ".join(link(f) for f in mine))
            continue
        head = [link(f) for f in mine if f["key"] is None]
        L.append(f"- **`{pid}`** ([section](#{_paper_anchor(pid)}))" + (": " + "; ".join(head) if head else ""))
        for key in dict.fromkeys(f["key"] for f in mine if f["key"] is not None):
            L.append(f"    - [`{key}`](#{_anchor(key)}): " + "; ".join(link(f) for f in mine if f["key"] == key))
    return L + [""]


def render_markdown(evs: list[Evaluation], picks: list[dict[str, Any]], prov: dict[str, Any],
                    empirical: Sequence[Any] = (), figures: dict[str, str] | None = None,
                    heatmaps: dict[str, str] | None = None, utility: Any = None,
                    utility_fig: str | None = None, sens_figs: dict[str, str] | None = None,
                    overview: dict[str, str] | None = None, audits: Any = None,
                    audit_fig: str | None = None, verdicts: dict[str, Verdict] | None = None,
                    scope: dict[str, Any] | None = None) -> str:
    """The text of ``REPORT.md``.

    ``scope`` (from :func:`write_report`): the pattern, papers and whether the run is partial; a
    partial run says so under the title, with the papers it covers and where it was written.
    """
    tally = Counter(e.shown_status for e in evs)
    vs = verdicts if verdicts is not None else verdicts_of(registry, [*empirical, *(audits or [])],
                                                                  keys=[e.key for e in evs])
    vtally = Counter(v.verdict for v in vs.values())
    emp = empirical_summary(empirical)
    by_key: dict[str, list[Any]] = {}
    for r in empirical:
        by_key.setdefault(r.key, []).append(r)
    figures = figures or {}
    sens_figs = sens_figs or {}
    overview = overview or {}

    def first_figure(key: str) -> str:
        for r in by_key.get(key, []):
            f = figures.get(f"{r.key}:{r.kind}:{r.variant}")
            if f:
                return f"[rate]({f})"
        return f"[sensitivity]({sens_figs[key]})" if key in sens_figs else "—"

    L: list[str] = []
    L.append("# dp-erm-verify report")
    L.append("")
    L.append(
        "Generated by `make verify` (`python -m verify`); do not edit by hand.  Every status below is the "
        "outcome of a computed check (sympy where it decides, otherwise dense randomised evaluation over "
        "the assumption domain with fixed seeds); nothing is typed in."
    )
    L.append("")
    L.append(
        "**Verdicts:** "
        + ", ".join(f"{vtally[v]} {VERDICT_TEXT[v]}" for v in STATEMENT_VERDICTS if vtally.get(v))
        + f" — {len(evs)} statements from {len({e.statement.paper for e in evs})} papers, one verdict each from "
        "all its evidence (derivation, simulation, audit).  Derivation statuses alone: "
        + ", ".join(f"{tally.get(s, 0)} {s}" for s in STATUSES) + "."
    )
    L.append("")
    if empirical:
        et = Counter(r.verdict for r in empirical)
        L.append(
            f"**Empirical:** {len(empirical)} checks of {len(emp)} statements — "
            + ", ".join(f"{et.get(v, 0)} {v}" for v in ("holds", "violated", "inconclusive"))
            + f" (profile `{prov.get('profile', '?')}`, seed {prov.get('seed', '?')}).  "
            "A check *holds* when its confidence interval lies at or below the bound (*attained* when an exact "
            "search reaches it), is *violated* when it lies above, and is *inconclusive* otherwise; a rate is "
            "compared with the bound's own slope on the same grid (*faster than claimed* when it decays faster)."
        )
        L.append("")
    if scope and scope.get("partial"):
        L.append(f"**Partial run** (`--only {scope['pattern']}`): the statements of "
                 + ", ".join(f"`{p}`" for p in scope["papers"]) + " matching the pattern only.  "
                 + ("It was written into a directory of its own because the output directory holds the "
                    "report of other papers, which it leaves as it was."
                    if scope.get("own_directory") else
                    "It replaced the report of these papers only; the figures of any other paper in the "
                    "directory are kept as they were."))
        L.append("")
    L += figure_index_markdown(figure_index(evs, figures, heatmaps, sens_figs, overview, utility_fig, audit_fig))
    L.append(
        "Verdict rules (`bounds/verdict.py`), the first that applies: **refuted** (the statement is false: an exact "
        "counterexample to it, an empirical violation inside the paper's regime at the stated confidence, an audit "
        "ε lower bound above the paper's claimed ε; a budget the toolkit derived never refutes alone) > "
        "**definitional remark** (a definition weaker or other than the standard one) > **holds (proof gap)** (a "
        "step of the proof fails, the statement holds by another route, shown as checks) > **unsupported (open)** "
        "(a step fails, no route is established) > **erratum** (the printed form does not follow; the derived form "
        "beside it) > **typo** > **holds in the paper's regime** (fails only outside the ranges the paper operates "
        "in; δ ∈ (0, 0.1] for every paper unless it says otherwise) > **consistent** (*tight* when a search "
        "attains it), **supported** (simulations only), **cited**, **premise**, **order**, **unchecked**.  A failed "
        "premise spreads only to statements whose conclusion depends on it; a corrected form is shown only when "
        "every check that applies to it passes."
    )
    L.append("")
    roots = root_table(vs)
    head = headline(vs)
    groups = [("result", "Underlying errors: false statements and printed forms that do not follow"),
              ("open", "Open: a step of the proof fails and no other route is established"),
              ("gap", "Proof gaps (the statement holds by another route)"),
              ("definitional", "Definitional findings"),
              ("typographic", "Typographic findings"),
              ("regime", "Holds only in the paper's regime")]
    L.append("## Root errors")
    L.append("")
    per_paper = Counter(registry.get(r["key"]).paper for r in roots if counted_error(r, vs.get(r["key"])))
    kinds = [(head.get("false"), "false statement", "false statements"),
             (head.get("does_not_follow"), "printed form that does not follow", "printed forms that do not follow")]
    split = "; ".join(_n(int(k), one, many) for k, one, many in kinds if isinstance(k, int))
    if isinstance(head.get("open"), int) and head["open"]:   # open roots are counted (does not follow), not apart
        split += f"; of them {_n(int(head['open']), 'statement left open', 'statements left open')} (neither refuted nor proved)"
    L.append(f"**{head['errors']} underlying errors**" + (f" ({split})" if split else "")
             + f".  Counting rule: {md_inline(counting_rule(head))}.  "
             + (f"Apart from them, {_n(int(head['no_effect']), 'false claim that changes no result', 'false claims that change no result')} (counted apart, see *counted as*).  "
                if isinstance(head.get("no_effect"), int) and head.get("no_effect") else "")
             + "Per paper: "
             + ", ".join(f"{n} in `{p}`" for p, n in per_paper.items())
             + (f"; {head['cross_paper']} of the roots are the same error as a root in another paper, "
                "cross-referenced"
                if head["cross_paper"] else "")
             + (f"; {head['reading_dependent']} of the roots "
                + ("depends" if head["reading_dependent"] == 1 else "depend") + " on the reading of the text"
                if head["reading_dependent"] else "")
             + f".  {head['echoes']} further findings are echoes or descendants of these roots (listed under "
             f"them, counted once).  Listed below by kind, besides the counted errors: "
             + _n(head["gaps"], "proof gap whose statement holds", "proof gaps whose statements hold")
             + " by another route, " + _n(head["definitional"], "definitional remark", "definitional remarks")
             + ", " + _n(head["typographic"], "typographic slip", "typographic slips") + ", "
             + _n(head["regime"], "statement that holds", "statements that hold") + " only in the paper's regime.")
    L.append("")
    for finding, title in groups:
        rows = [r for r in roots if r["finding"] == finding]
        if not rows:
            continue
        if finding != "result":
            L.append(f"### {title}")
            L.append("")
        L.append("| root | label | verdict | counted as | statement | evidence | correction | root test | regime | "
                 "echoes and downstream |")
        L.append("|---|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            st = registry.get(r["key"])
            x = root_extras(vs[r["key"]], st)
            sc = smallest_correction_text(x["smallest_correction"])
            refs = (" Reproduces " + "; ".join(x["references"]) + ".") if x["references"] else ""
            also = "".join(f"; also rests on `{k}` (no effect here)" for k in x["no_effect"])
            ev_counts = ", ".join(f"{n} {e}" for e, n in r["evidence"].items())
            same = (" Same error as " + ", ".join(f"`{k}`" for k in r["same_error_as"]) + "."
                    if r["same_error_as"] else "")
            reading = ("; by reading: " + ", ".join(f"{k} → {VERDICT_TEXT[v]}" for k, v in r["readings"].items())
                       if len(set(r["readings"].values())) > 1 else "")
            L.append(f"| [`{r['key']}`](#{_anchor(r['key'])}) | {md_inline(st.label)} | **{r['reads']}** | "
                     f"{md_inline(x['count_as']) or '—'} | "
                     f"{md_inline(r['truth'])}{md_inline(reading)}{md_inline(also)} | "
                     f"{evidence_cell('; '.join(r['reasons']), r['key'])} ({ev_counts}){md_inline(same)}"
                     f"{md_inline(refs)} | "
                     f"{md_inline(r['correction']) or '—'}"
                     + (f"; smallest correction: {evidence_cell(sc, r['key'], 300)}" if sc else "") + " | "
                     f"{md_inline(x['root_test'])} | {evidence_cell(r['regime'], r['key'], 120)} | "
                     f"{', '.join(f'`{k}`' for k in r['downstream']) or '—'}"
                     + (" (also rested on by the roots " + ", ".join(f"`{k}`" for k in r["rested_on_by"]) + ")"
                        if r["rested_on_by"] else "") + " |")
        L.append("")
    L.append("## Coverage")
    L.append("")
    L.append("What each paper's encoding leaves out, and why: the verdicts above say nothing about these.")
    L.append("")
    for pid in dict.fromkeys(e.statement.paper for e in evs):
        omitted = PAPERS[pid].not_encoded
        L.append(f"- **`{pid}`** ({md_inline(PAPERS[pid].title)}): " + (
            "; ".join(f"{md_inline(item)}: {md_inline(why)}" for item, why in omitted) if omitted
            else "nothing declared as left out."))
    L += relaxation_markdown(relaxation_rows(), dict.fromkeys(e.statement.paper for e in evs))
    L.append("")
    L.append("## Summary")
    L.append("")
    L.append("One table per paper, in the order of the report; the key links to the statement's section.")
    L.append("")
    for pid in dict.fromkeys(e.statement.paper for e in evs):
        L.append(f"### {md_inline(PAPERS[pid].title)} · [paper `{pid}`](#{_paper_anchor(pid)})")
        L.append("")
        L.append("| key | label | kind | verdict | root | derivation | empirical | figure |")
        L.append("|---|---|---|---|---|---|---|---|")
        for e in (e for e in evs if e.statement.paper == pid):
            st = e.statement
            v = vs[st.key]
            ph = is_placeholder(v, st)
            L.append(
                f"| [`{st.key}`](#{_anchor(st.key)}) | {md_inline(st.label)} | {st.kind} | **{v.text}** | "
                f"{v.root_text or '—'} | {e.shown_status}{' (' + _severity(e) + ')' if _severity(e) else ''} | "
                + ("placeholder: no stated form, nothing to check | — |" if ph else
                   f"{_empirical_cell(emp.get(st.key))} | {first_figure(st.key)} |")
            )
        L.append("")
    by_paper: dict[str, list[Evaluation]] = {}
    for e in evs:
        by_paper.setdefault(e.statement.paper, []).append(e)
    deps = dependents(e.key for e in evs if e.status == "erratum")
    for pid, items in by_paper.items():
        paper = PAPERS[pid]
        t = Counter(e.shown_status for e in items)
        L.append(f"## <a id=\"{_paper_anchor(pid)}\"></a>{md_inline(paper.title)}")
        L.append("")
        src = f"Seed file `{paper.seed}`" if paper.seed else "Read from its citation"
        L.append(f"{md_inline(paper.citation)}.  {src}; paper id `{pid}`.  "
                 + ", ".join(f"{v} {k}" for k, v in sorted(t.items())) + ".")
        L.append("")
        if pid in overview:
            L += _figure_md(f"{pid}: overview of the empirical checks", overview[pid])
            L.append("")
        for e in items:
            st = e.statement
            L.append(f"### <a id=\"{_anchor(st.key)}\"></a>`{st.key}` — {md_inline(st.label)}: {md_inline(st.quantity)}")
            L.append("")
            v = vs[st.key]
            where = f"seed file `{st.seed}`" if st.seed else f"source: {md_inline(st.source)}"
            L.append(f"*{md_inline(st.equation)}* ({where}).  Verdict: **{v.text}**"
                     + (f" ({v.root_text})" if v.root_text else "") + f"; derivation status {e.shown_status}.")
            L.append("")
            parts = [f"statement: {v.truth}"]
            if v.proof:
                parts.append(f"proof: {v.proof}")
            if v.constant:
                parts.append(f"printed form: {v.constant}")
            if v.correction:
                parts.append(f"correction: {v.correction}")
            L.append(f"- <a id=\"{_anchor(st.key)}-why\"></a>in short: {_md_escape('; '.join(parts))}")
            x = root_extras(v, st)
            if v.is_finding and x["count_as"]:
                L.append(f"- counted as: {md_inline(x['count_as'])}")
            for k in x["no_effect"]:
                L.append(f"- also rests on `{k}` (no effect here)")
            for k, what in x["upstream"].items():
                L.append(f"- inherits from `{k}`: {md_inline(str(what))}")
            if v.is_root:
                L.append(f"- root test: {md_inline(x['root_test'])}")
            if x["smallest_correction"]:
                L.append(f"- smallest correction: {md_inline(smallest_correction_text(x['smallest_correction']))}")
            if x["references"]:
                L.append("- reproduces the published analysis of " + "; ".join(md_inline(r) for r in x["references"]))
            placeholder = is_placeholder(v, st)
            if placeholder:
                L.append("- placeholder: no stated form, so nothing is checked and no evidence is shown")
            if v.readings:
                L.append("- readings of the text: " + "; ".join(
                    f"{md_inline(r)} ({md_inline(st.readings.get(r, ''))}) → {VERDICT_TEXT[x]}"
                    for r, x in v.readings.items()))
            elif st.readings:
                L.append("- readings of the text: " + "; ".join(f"{md_inline(r)}: {md_inline(t)}"
                                                                 for r, t in st.readings.items())
                         + " (no check distinguishes them)")
            if v.same_error_as:
                L.append("- the same error as " + ", ".join(f"`{k}`" for k in v.same_error_as))
            for reason in v.reasons:
                L.append(f"- why: {_md_escape(reason)}")
            if v.regime:
                L.append(f"- regime: {_md_escape(v.regime)}")
            if st.stated is not None:
                L.append(f"- stated: $${latex(st.stated)}$$")
            if e.derived is not None and st.stated is None:
                L.append(f"- derived: $${latex(e.derived)}$$")
            elif e.derived is not None and e.status == "erratum":
                if v.corrected:
                    L.append(f"- corrected (derived, its checks above and below): $${latex(e.derived)}$$")
                else:
                    L.append(f"- what the proof's steps give (not a valid bound: {v.text}): "
                             f"$${latex(e.derived)}$$")
            if st.cited:
                L.append(f"- cites: {md_inline(st.cited)}")
            for c in ([] if placeholder else e.checks):
                mark = "✔" if c.ok else "✘" if c.failed else "?"
                pts = f", {c.n_points} points" if c.n_points else ""
                L.append(f"- {mark} {md_inline(check_label(c))} ({c.kind}{pts}): {_md_escape(c.detail)}")
            if e.inherits:
                L.append(f"- inherits the erratum of: {', '.join(f'`{k}`' for k in e.inherits)}")
            if e.status == "erratum" and deps.get(st.key):
                L.append(f"- used downstream by: {', '.join(f'`{k}`' for k in deps[st.key])}")
            if st.notes:
                L.append(f"- note: {_md_escape(st.notes)}")
            counter: Counter[str] = Counter()
            for r in ([] if placeholder else by_key.get(st.key, [])):
                panel = "rate" if r.kind == "rate" else "bound"
                counter[panel] += 1
                L.append(f"- empirical #{counter[panel]} {_result_line(r)}")
                fig = figures.get(f"{r.key}:{r.kind}:{r.variant}")
                if fig:
                    L += _figure_md(f"{r.key} {r.variant}", fig, indent="  ")
                    cap = refuted_caption(v, [r])
                    if cap:
                        L.append(f"  {cap}")
                if isinstance(r.details.get("markdown"), str):
                    L.append("")
                    L.extend(r.details["markdown"].strip().splitlines())
                    L.append("")
                elif isinstance(r.details.get("utility"), list) and r.details["utility"]:
                    L.append("")
                    L.extend(_dict_table(r.details["utility"]))
                    L.append("")
            if st.key in sens_figs:
                fl = _figure_md(f"{st.key}: sensitivity against m", sens_figs[st.key], indent="  ")
                L += ["- " + fl[0].lstrip()] + fl[1:]
                cap = refuted_caption(v, [r for r in by_key.get(st.key, []) if r.kind == "sensitivity"])
                if cap:
                    L.append(f"  {cap}")
            L.append("")
    if utility is not None and len(utility):
        from .utility import utility_markdown

        L.append("## Privacy–utility on real data")
        L.append("")
        L.append(
            "Held-out risk of the released function (mean over trials; "
            f"{utility['confidence'].iloc[0]:.0%} interval over the noise draws) against ε, with the paper's "
            "stated noise and the derived noise, next to the non-private fit and the constant predictor 0.  "
            "Bundled scikit-learn data scaled into the unit ball; λ = m^(−4/9); Gaussian "
            "kernel with the median-heuristic bandwidth (`verify/utility.py`; the setups are declared by each "
            "paper's trial module)."
        )
        L.append("")
        L.extend(utility_markdown(utility))
        L.append("")
        if utility_fig:
            L.append(f"![privacy–utility]({utility_fig})")
            L.append("")
    L.extend(calibration_markdown(calibration_rows() if audits else []))
    if audits:
        from .audit import audit_markdown, client_markdown

        own = [r for r in audits if not r.details.get("client")]        # the recorded clients are apart
        av = Counter(r.verdict for r in own if not r.details.get("sweep"))
        ncl = len({r.details.get("client_name") for r in audits if r.details.get("client")})
        L.append("## Privacy audits")
        L.append("")
        L.append(
            f"Lower bounds on ε from distinguishing attacks on the hardest neighbouring pair found "
            f"(each paper's audits in `verify/empirical/<paper id>.py`, the auditor in `verify/audit/`): "
            f"{max(r.n for r in own or audits)} releases per data set (fewer where an audit says so), statistic and "
            f"threshold chosen on a separate selection split (10% of releases; thresholds over the whole range, "
            f"tails included), one-sided Clopper–Pearson limits on both error rates at "
            f"{audits[0].confidence:.0%} confidence.  `violated` means ε_lower > claimed ε: at that confidence "
            "the mechanism as implemented is not ε-DP for that release.  "
            + (", ".join(f"{n} {v}" for v, n in sorted(av.items())) or "No audit of a paper in this run")
            + (f"; besides, the `(client)` rows audit {ncl} real {'client' if ncl == 1 else 'clients'} from "
               "recorded outputs (below the table)" if ncl else "") + "."
        )
        L.append("")
        L.extend(audit_markdown(list(audits)))
        L.append("")
        if ncl:
            L.extend(client_markdown(list(audits)))
        if audit_fig:
            L += _figure_md("ε_lower against the claimed ε", audit_fig)
            L.append("")
    findings = [v for v in vs.values() if v.is_finding]
    L.append("## All findings")
    L.append("")
    L.append(
        f"{len(findings)} statements carry a finding (an error, a proof gap, a remark, a typo or a regime "
        f"restriction); {sum(1 for v in findings if v.is_root)} are roots (see the first table) and "
        f"{sum(1 for v in findings if not v.is_root)} are their echoes or descendants."
    )
    L.append("")
    L.append("| key | label | verdict | root | regime | empirical |")
    L.append("|---|---|---|---|---|---|")
    for v in findings:
        L.append(
            f"| [`{v.key}`](#{_anchor(v.key)}) | {md_inline(registry.get(v.key).label)} | **{v.text}** | {v.root_text} | "
            f"{_short(v.regime, 140)} | {_empirical_cell(emp.get(v.key))} |"
        )
    L.append("")
    violated = [r for r in empirical if r.verdict == "violated"]
    if violated:
        status = {e.key: e.status for e in evs}
        L.append("### Empirical violations")
        L.append("")
        L.append(
            f"{len(violated)} empirical checks reject their bound at the stated confidence (the interval lies "
            "above the bound).  Where the symbolic status is `consistent`, the simulation found what the "
            "derivation check could not: a premise the proof uses silently, or a step it cannot justify."
        )
        L.append("")
        L.append("| key | symbolic status | check | variant | empirical [interval] | bound | ratio |")
        L.append("|---|---|---|---|---|---|---|")
        for r in violated:
            ratio = f"{r.ratio:.3g}" if math.isfinite(r.ratio) else "—"
            L.append(f"| [`{r.key}`](#{_anchor(r.key)}) | {status.get(r.key, '—')} | {r.kind} | "
                     f"{_md_escape(r.variant)}{' (outside the regime)' if r.regime == 'outside' else ''} | "
                     f"{r.statistic:.4g} [{r.lo:.4g}, {r.hi:.4g}] | {r.bound:.4g} | {ratio} |")
        L.append("")
    if picks:
        L += choosing_markdown(picks, not_pickable(dict.fromkeys(e.statement.paper for e in evs)), heatmaps)
    L.append("## Provenance")
    L.append("")
    for k, v in prov.items():
        L.append(f"- {k}: {v}")
    L.append("")
    return "\n".join(L)


def choosing_markdown(picks: Sequence[dict[str, Any]], none: dict[str, str],
                      heatmaps: dict[str, str] | None = None) -> list[str]:
    """The "Choosing ε and λ" section: one row per pickable bound and m, with the form used and its
    verdict; a refused bound says why; then each paper without a pickable statement and why."""
    L = ["## Choosing ε and λ", "",
         "The paper's schedule against the minimiser of the same bound over ε ∈ (0, 1) and λ in its domain, "
         "by `bounds.pick`, at the constants of each row.  *form* is the form of the bound used: the printed "
         "(stated) one when it is established, else its established correction (derived); *verdict* is that "
         "statement's one verdict.  A bound with no established form (refuted without a correction, or open) "
         "is not optimised: its row says why.  *dominant* is the term of the bound that is largest at the "
         "optimum; a bound with a term rising in ε is U-shaped in ε, so a larger ε is not always better.", "",
         "| bound | constants | m | form | verdict | paper ε | paper λ | paper bound | optimised ε | "
         "optimised λ | optimised bound | improvement | dominant at the optimum |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in picks:
        cs = ", ".join(f"{k}={v:g}" for k, v in r["constants"].items())
        head = (f"| [`{r['key']}`](#{_anchor(r['key'])}) | {cs} | {r['m']:.0e} | {r.get('form') or '—'} | "
                f"**{r.get('verdict_text') or r.get('verdict', '')}** |")
        if r.get("refused"):
            L.append(head + f" not picked: {_short(r['refused'], 200)} |" + " — |" * 7)
            continue
        L.append(head + f" {r['paper_eps']:.3g} | {_g(r['paper_lam'])} | {_g4(r['paper_bound'])} | "
                 f"{r['opt_eps']:.3g} | {_g(r['opt_lam'])} | {_g4(r['opt_bound'])} | "
                 f"{_g(r['improvement'])}× | {md_inline(str(r.get('dominant') or '—'))} |")
    L.append("")
    notes: dict[str, list[str]] = {}
    for r in picks:
        parts = notes.setdefault(r["key"], [])
        if r.get("basis_note") and md_inline(r["basis_note"]) not in parts:
            parts.append(md_inline(r["basis_note"]))
        rising = r.get("rising_in_eps") or []
        if rising and not any(p.startswith("terms rising in ε") for p in parts):
            parts.append("terms rising in ε (the bound is U-shaped in ε, so a larger ε can give a larger bound): "
                         + ", ".join(md_inline(str(t)) for t in rising))
    L += [f"- `{key}`: " + "; ".join(parts) for key, parts in notes.items() if parts]
    if any(notes.values()):
        L.append("")
    if none:
        L.append("Papers without a statement to pick ε and λ from, and why:")
        L.append("")
        L += [f"- **`{pid}`**: {md_inline(why)}" for pid, why in none.items()]
        L.append("")
    for key, fig in (heatmaps or {}).items():
        L += _figure_md(f"{key}: bound over (ε, λ) at m = 10⁴", fig)
        L.append("")
    return L


def _g4(x: float | None) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.4g}"


def _dict_table(rows: list[dict[str, Any]]) -> list[str]:
    """A Markdown table from a list of flat dicts (numbers to 4 significant digits)."""
    cols = list(dict.fromkeys(k for r in rows for k in r))

    def cell(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}" if math.isfinite(v) or math.isinf(v) else "—"
        if v is None:
            return "—"
        return _md_escape(str(v))

    out = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    out += ["| " + " | ".join(cell(r.get(c, "")) for c in cols) + " |" for r in rows]
    return out


def _g(x: float | None) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.3g}"


def _anchor(key: str) -> str:
    return "s-" + key.replace(".", "-").replace("_", "-").lower()


def _paper_anchor(pid: str) -> str:
    return "p-" + pid.replace(".", "-").replace("_", "-").lower()


def _figure_md(alt: str, ref: str, indent: str = "") -> list[str]:
    """Markdown of one figure: the image, then its notes (points not drawn, zeros marked, coincident series)."""
    from .figures import figure_notes

    out = [f"{indent}![{md_inline(alt).replace('[', '(').replace(']', ')')}]({ref})"]
    notes = figure_notes(ref)
    if notes:
        if not indent:
            out.append("")                    # a paragraph of its own under a block figure
        out.append(f"{indent}*Figure notes:* " + "; ".join(md_inline(n) for n in notes) + ".")
    return out


#: expression → its LaTeX: the cache of :func:`bounds.cli.latex` (``summary.json``'s formulas), shared
#: with the Markdown's and filled ahead by the report's LaTeX job (:func:`_latex_job`)
_LATEX: dict[Any, str] = LATEX


def latex(expr: Any) -> str:
    """``sympy.latex`` of an expression, printed once per process (the report prints each formula here).

    The cache is keyed by the expression itself (structural equality, a symbol's assumptions
    included), so equal expressions print once; :func:`write_report` fills it ahead from a job on
    the workers (:func:`_latex_job`) while the figures are drawn.

    Examples
    --------
    >>> x = sp.Symbol("x", positive=True)
    >>> latex(x**2 / 2), latex(x**2 / 2) is latex(x**2 / 2)
    ('\\\\frac{x^{2}}{2}', True)
    """
    return bounds_latex(expr)


def _latex_job(exprs: list[Any]) -> list[str]:
    """Worker task: the LaTeX of each expression (:func:`latex`'s cache, filled off the main process)."""
    return [sp.latex(e) for e in exprs]


def _latex_ahead(evs: Sequence[Evaluation], executor: Any) -> Any:
    """Submit the LaTeX of the report's formulas (stated and derived forms not printed yet) to the workers.

    Returns ``(expressions, future)`` or None when there is nothing to print or no pool of workers.
    """
    if executor is None or getattr(executor, "workers", 1) <= 1:
        return None
    todo: dict[Any, None] = {}
    for e in evs:
        for x in (e.statement.stated, e.derived):
            try:
                if x is not None and x not in _LATEX:
                    todo[x] = None
            except TypeError:
                continue
    if not todo:
        return None
    exprs = list(todo)
    return exprs, executor.submit(_latex_job, exprs)


def write_report(out: Path | str = "reports", only: str | None = None, picks: bool = True,
                 empirical: Sequence[Any] = (), run_info: dict[str, Any] | None = None,
                 figures: bool = True, utility: Any = None, audits: Any = None,
                 cache: str | os.PathLike | None = None,
                 symbolic_cache: str | os.PathLike | None = None, executor: Any = None) -> dict[str, Path]:
    """Evaluate the statements (all, or those matching ``only``) and write the report files.

    Parameters
    ----------
    out : path
        Output directory (created if missing).
    only : str, optional
        Glob pattern or substring of statement keys.  A run of only some statements is a
        *partial run*: it never deletes or rewrites a file of a paper it did not run.  Into a
        directory that holds no report, or the report of some of its own papers, it writes its
        report there, replacing the files of its papers and keeping every figure of any other
        paper byte for byte (:func:`keep_other_papers_figures`).  Into a directory that holds
        the report of another paper (or report files whose papers cannot be told) it writes a
        report of its own into ``<out>/partial/<paper ids joined by +>/`` (:func:`report_dir`)
        and leaves the whole report as it was: it does not merge into it.  The returned paths,
        ``REPORT.md`` and ``summary.json`` (``scope``) say which.
    picks : bool
        Include the ε/λ table.
    empirical : sequence of Result
        Results of :func:`verify.empirical.run_checks`, empirical checks and audits
        (shown per statement, in the summary, in ``results/evidence.csv``,
        ``results/empirical.csv`` and ``results/audits.csv`` and, for rates, as figures).
    run_info : dict, optional
        Profile, seed, executor: added to the provenance.
    figures : bool
        Draw the figures (PNG under ``figures/``; SVG too when ``$DP_ERM_VERIFY_SVG=1``:
        :func:`verify.figures.svg_wanted`).
    utility : pandas.DataFrame, optional
        The privacy–utility table of :func:`verify.utility.run_utility`.
    audits : list of Result, optional
        Further audit rows (the auditor's own calibration, :func:`verify.audit.calibration_audits`).
    cache : path, optional
        Cache directory: the symbolic snapshot (``<cache>/symbolic``, keyed by the source of
        ``bounds/``: a rerun with unchanged statements skips the derivation checks) and the figures.
    symbolic_cache : path, optional
        Directory of the symbolic snapshot when it differs from ``cache`` (``--no-cache`` uses a
        temporary one, filled in parallel by :func:`evaluate_symbolic`).
    executor : Executor, optional
        Where the figures are drawn (:func:`figure_jobs`); default: this process.

    Returns
    -------
    dict
        ``{"markdown": path, "summary": path}``.

    Raises
    ------
    ValueError
        If ``only`` matches no statement.
    """
    t0 = time.perf_counter()
    rows = list(empirical)
    empirical = [r for r in rows if r.evidence == "empirical"]
    audits = [r for r in rows if r.evidence == "audit"] + list(audits or [])
    keys = registry.keys() if not only else keys_matching(registry, only)
    if not keys:
        raise ValueError(f"pattern {only!r} matches no statement; try one of: {', '.join(p + '.*' for p in sorted(PAPERS))}")
    partial = bool(only) and len(keys) < len(registry.keys())
    papers_run = sorted({registry.get(k).paper for k in keys}
                        | {r.key.split(".")[0] for r in [*empirical, *audits] if r.key.split(".")[0] in PAPERS})
    root = Path(out)
    out = report_dir(root, papers_run, partial)
    scope = {"pattern": only, "papers": papers_run, "partial": partial, "own_directory": out != root}
    before = registry.store
    use_symbolic_cache(symbolic_cache if symbolic_cache is not None else cache)
    try:
        evs = [registry.evaluate(k) for k in keys]
        if registry.store is not None:
            registry.store.save_registry(registry)     # the light papers: `python -m bounds` reads them
    finally:
        registry.store = before                        # no lasting change to bounds.registry
    vs = verdicts_of(registry, [*empirical, *audits], keys=keys)
    ahead = _latex_ahead(evs, executor) if executor is not None else None   # on a worker, while we go on
    pk = picks_table(vs) if picks and not only else []
    prov = provenance(time.perf_counter() - t0)
    prov.update(run_info or {})
    prov["bounds_version"] = toolkit_version()   # what bounds.report_io compares a report's version with
    emp = empirical_summary(empirical)
    out.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".verify-", dir=out))
    try:
        from .html import EMBED_DIR

        fig_cache = _figure_cache_dir(cache, empirical, pk, utility, audits) if figures else None
        if fig_cache is not None and (fig_cache / "index.pkl").exists():
            import pickle

            shutil.copytree(fig_cache / "figures", tmp / "figures")
            if (fig_cache / EMBED_DIR).is_dir():
                shutil.copytree(fig_cache / EMBED_DIR, tmp / EMBED_DIR)
            figs, hms, sfigs, ovs, ufig, afig = pickle.loads((fig_cache / "index.pkl").read_bytes())
        else:
            figs, hms, sfigs, ovs, ufig, afig = _draw_figures(tmp, figures, empirical, pk, utility, audits,
                                                                  executor)
            if fig_cache is not None and (tmp / "figures").exists():
                import pickle

                part = fig_cache.with_name(fig_cache.name + f".part{os.getpid()}")
                shutil.rmtree(part, ignore_errors=True)
                shutil.copytree(tmp / "figures", part / "figures")
                if (tmp / EMBED_DIR).is_dir():
                    shutil.copytree(tmp / EMBED_DIR, part / EMBED_DIR)
                (part / "index.pkl").write_bytes(pickle.dumps((figs, hms, sfigs, ovs, ufig, afig)))
                if not fig_cache.exists():
                    os.replace(part, fig_cache)
                shutil.rmtree(part, ignore_errors=True)
        if ahead is not None:
            exprs, job = ahead
            try:
                _LATEX.update(zip(exprs, job.result(), strict=True))
            except Exception:  # noqa: BLE001 - the same LaTeX is printed here instead
                pass
        md = render_markdown(evs, pk, prov, empirical, figs, hms, utility, ufig, sfigs, ovs, audits, afig, vs,
                             scope=scope)
        summary = {
            "provenance": prov,
            "scope": scope,
            "figures": figure_index(evs, figs, hms, sfigs, ovs, ufig, afig),
            "verdicts": dict(Counter(v.verdict for v in vs.values())),
            "tally": dict(Counter(e.shown_status for e in evs)),
            "empirical_tally": dict(Counter(r.verdict for r in empirical)),
            "roots": [dict(r, **_jsonable(root_extras(vs[r["key"]], registry.get(r["key"]))))
                      for r in root_table(vs)],
            "headline": dict(headline(vs), rule=counting_rule(headline(vs))),
            "coverage": {pid: [{"item": i, "why": w} for i, w in PAPERS[pid].not_encoded]
                         for pid in sorted({e.statement.paper for e in evs})},
            "relaxations": _jsonable([r for r in relaxation_rows()
                                      if r.get("paper") in {e.statement.paper for e in evs}]),
            "regimes": {pid: PAPERS[pid].regime.as_dict() for pid in sorted({e.statement.paper for e in evs})},
            "statements": [dict(entry(e), severity=_severity(e), empirical=_json_emp(emp.get(e.key)),
                                **statement_verdict(vs[e.key])) for e in evs],
            "empirical": [_jsonable(r.as_row()) for r in empirical],
            "audits": [_jsonable(r.as_row()) for r in (audits or [])],
            "evidence": [_jsonable(r.as_row()) for r in evidence_rows(evs, empirical, audits)],
            "picks": _jsonable(pk),
            "not_pickable": not_pickable(dict.fromkeys(e.statement.paper for e in evs)),
            "calibrations": calibration_rows() if audits else [],
        }
        from .html import render_html

        (tmp / "REPORT.md").write_text(md, encoding="utf-8")
        (tmp / "index.html").write_text(render_html(md, tmp), encoding="utf-8")
        (tmp / "summary.json").write_text(json.dumps(summary, indent=1, ensure_ascii=False), encoding="utf-8")
        names = ["REPORT.md", "index.html", "summary.json", "results"]
        (tmp / "results").mkdir()
        pd.DataFrame([r.as_row() for r in evidence_rows(evs, empirical, audits)]).drop(
            columns=["details", "worst"]).to_csv(tmp / "results" / "evidence.csv", index=False)
        if empirical:
            from .empirical.core import results_frame

            df = results_frame(empirical).drop(columns=["details", "worst"])
            df.to_csv(tmp / "results" / "empirical.csv", index=False)
        if utility is not None:
            utility.to_csv(tmp / "results" / "utility.csv", index=False)
        if audits:
            pd.DataFrame([r.as_row() for r in audits]).drop(columns=["details", "worst"]).to_csv(
                tmp / "results" / "audits.csv", index=False)
        if importlib.util.find_spec("pyarrow") is not None:
            for csv in (tmp / "results").glob("*.csv"):
                pd.read_csv(csv).to_parquet(csv.with_suffix(".parquet"), index=False)
        if figs or hms or ufig or sfigs or ovs or afig:
            names.append("figures")
        for name in names:
            target = out / name
            if name == "figures" and partial:
                keep_other_papers_figures(target, tmp / name, papers_run)
            if (tmp / name).is_dir():
                old = out / f".old-{name}-{os.getpid()}"
                if target.exists():
                    os.replace(target, old)
                os.replace(tmp / name, target)
                shutil.rmtree(old, ignore_errors=True)
            else:
                os.replace(tmp / name, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    if not partial and out.resolve() == PROJECT_REPORTS.resolve():
        update_readme(PROJECT_README, summary)      # the README's findings are the report's own words
    return {"markdown": out / "REPORT.md", "html": out / "index.html", "summary": out / "summary.json"}


# --- the README's summary of findings, generated from summary.json ------------------------------------

#: the markers of the generated block in README.md (:func:`update_readme` rewrites what lies between them)
README_BEGIN = ("<!-- findings: generated from reports/summary.json by verify.report.readme_findings "
                "(make verify rewrites it); do not edit by hand -->")
README_END = "<!-- end of the generated findings -->"


def _plain(text: str, n: int) -> str:
    s, cut = cut_at_word(tame_factors(str(text)), n)
    return md_inline(s) + (" …" if cut else "")


def readme_findings(summary: dict[str, Any]) -> str:
    """The README's summary of findings, from a report's ``summary.json`` (parsed): every number and every
    word about a finding is the report's own.

    Per paper: each root finding with its verdict, what it says of the statement, its correction and
    its first piece of evidence; then the paper's simulations (with why each inconclusive one is) and
    audits.  ``tests/test_report_reads_true.py`` checks that README.md carries exactly this text for
    the committed report.

    Examples
    --------
    >>> s = {"headline": {"errors": 1, "echoes": 0}, "roots": [{"key": "a.x", "finding": "result",
    ...      "reads": "refuted", "truth": "false", "correction": "none", "reasons": ["exact counterexample"]}],
    ...      "statements": [{"key": "a.x", "paper": "a", "label": "Lemma 1", "verdict": "refuted"}],
    ...      "empirical": [], "audits": []}
    >>> print(readme_findings(s))  # doctest: +ELLIPSIS
    **1 underlying error** (rule: counted: one per underlying error per paper, ...).
    <BLANKLINE>
    - **`a`** (1 statement: 1 refuted):
      - `a.x` (Lemma 1): **refuted**; the statement: false; correction: none. Evidence: exact counterexample.
    """
    head = summary.get("headline") or {}
    stmts = summary.get("statements") or []
    label = {s["key"]: s.get("label", "") for s in stmts}
    papers = list(dict.fromkeys(s.get("paper") or s["key"].split(".")[0] for s in stmts))
    err = int(head.get("errors", 0))
    kinds = [(head.get("false"), "false statement", "false statements"),
             (head.get("does_not_follow"), "printed form that does not follow", "printed forms that do not follow")]
    split = "; ".join(_n(int(k), one, many) for k, one, many in kinds if isinstance(k, int))
    if isinstance(head.get("open"), int) and head["open"]:   # open roots are counted (does not follow), not apart
        split += f"; of them {_n(int(head['open']), 'statement left open', 'statements left open')} (neither refuted nor proved)"
    apart = [(head.get("no_effect"), "false claim that changes no result", "false claims that change no result"),
             (head.get("gaps"), "proof gap", "proof gaps"),
             (head.get("definitional"), "definitional remark", "definitional remarks"),
             (head.get("typographic"), "typographic slip", "typographic slips"),
             (head.get("regime"), "statement that holds only in the paper's regime",
              "statements that hold only in the paper's regime"),
             (head.get("echoes"), "echo or descendant", "echoes and descendants")]
    apart_s = ", ".join(_n(int(k), one, many) for k, one, many in apart if isinstance(k, int) and k)
    L = [f"**{_n(err, 'underlying error', 'underlying errors')}** (rule: {md_inline(counting_rule(head))}"
         + (f"; {split}" if split else "") + ")" + (f"; apart: {apart_s}" if apart_s else "") + ".", ""]
    roots = summary.get("roots") or []
    emp = summary.get("empirical") or []
    aud = summary.get("audits") or []
    for pid in papers:
        mine = [s for s in stmts if (s.get("paper") or s["key"].split(".")[0]) == pid]
        tally = Counter(str(s.get("reads") or s.get("verdict")) for s in mine)
        L.append(f"- **`{pid}`** ({_n(len(mine), 'statement', 'statements')}: "
                 + ", ".join(f"{n} {v}" for v, n in sorted(tally.items(), key=lambda kv: (-kv[1], kv[0]))) + "):")
        for r in (r for r in roots if r["key"].split(".")[0] == pid):
            parts = [f"**{r.get('reads') or r.get('verdict')}**"]
            if r.get("count_as"):
                parts.append(f"counted as: {md_inline(r['count_as'])}")
            parts.append(f"the statement: {md_inline(r.get('truth', ''))}")
            if r.get("correction"):
                parts.append(f"correction: {_plain(r['correction'], 160)}")
            sc = smallest_correction_text(r.get("smallest_correction"))
            if sc:
                parts.append(f"smallest correction: {_plain(sc, 240)}")
            parts += [f"also rests on `{k}` (no effect here)" for k in r.get("no_effect") or []]
            if r.get("references"):
                parts.append("reproduces " + "; ".join(md_inline(x) for x in r["references"]))
            first = next(iter(r.get("reasons") or []), "")
            ev = _plain(first, 240) if first else ""
            L.append(f"  - `{r['key']}` ({md_inline(label.get(r['key'], ''))}): " + "; ".join(parts)
                     + (f". Evidence: {ev}" if ev else "") + ("" if ev.endswith(("…", ".")) else "."))
        rows = [r for r in emp if str(r.get("key", "")).split(".")[0] == pid]
        if rows:
            t = Counter(r["verdict"] for r in rows)
            line = (f"  - simulations: {_n(len(rows), 'check', 'checks')}, "
                    + ", ".join(f"{t[v]} {v}" for v in ("holds", "violated", "inconclusive") if t.get(v)))
            viol = [r for r in rows if r["verdict"] == "violated"]
            if viol:
                per = Counter(r["key"] for r in viol)
                out_ = Counter(r["key"] for r in viol if r.get("regime") == "outside")
                line += "; violated: " + ", ".join(
                    f"`{k}` ×{n}" + (f" ({out_[k]} outside the regime)" if out_[k] else "") for k, n in per.items())
            inc = [r for r in rows if r["verdict"] == "inconclusive"]
            if inc:
                from types import SimpleNamespace

                line += "; inconclusive: " + "; ".join(
                    f"`{r['key']}` {md_inline(str(r.get('name', '')))} "
                    + (f"(slope {r['statistic']:.3g} [{r['lo']:.3g}, {r['hi']:.3g}] vs {r['bound']:.3g}: "
                       if r.get("kind") == "rate" and all(isinstance(r.get(k), (int, float))
                                                          for k in ("statistic", "lo", "hi", "bound")) else "(")
                    + _plain(inconclusive_why(SimpleNamespace(**{**r, "details": r.get("details") or {}})), 200)
                    + ")" for r in inc)
            L.append(line)
        arows = [r for r in aud if str(r.get("key", "")).split(".")[0] == pid]
        if arows:
            t = Counter(r["verdict"] for r in arows)
            line = (f"  - privacy audits: {_n(len(arows), 'audit', 'audits')}, "
                    + ", ".join(f"{t[v]} {v}" for v in ("holds", "violated", "inconclusive") if t.get(v)))
            viol = [r for r in arows if r["verdict"] == "violated" and isinstance(r.get("statistic"), (int, float))]
            if viol:
                w = max(viol, key=lambda r: r["statistic"])
                line += (f"; the largest ε_lower {w['statistic']:.3g} against a claimed ε = {w['bound']:.3g} "
                         f"(`{w['key']}`, {md_inline(str(w.get('name', '')))}, {w['confidence']:.0%} confidence)")
            L.append(line)
    return "\n".join(L)


def update_readme(readme: Path | str, summary: dict[str, Any]) -> bool:
    """Rewrite the generated findings block of ``readme`` from ``summary``; True when the file changed.

    Only the text between :data:`README_BEGIN` and :data:`README_END` is replaced; a README without
    both markers is left alone (False).
    """
    p = Path(readme)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError:
        return False
    if README_BEGIN not in text or README_END not in text:
        return False
    head, rest = text.split(README_BEGIN, 1)
    _, tail = rest.split(README_END, 1)
    new = f"{head}{README_BEGIN}\n{readme_findings(summary)}\n{README_END}{tail}"
    if new == text:
        return False
    tmp = p.with_name(p.name + f".tmp{os.getpid()}")
    tmp.write_text(new, encoding="utf-8")
    os.replace(tmp, p)
    return True


def readme_block(readme: Path | str) -> str | None:
    """The generated findings block README.md carries now (None without both markers)."""
    text = Path(readme).read_text(encoding="utf-8")
    if README_BEGIN not in text or README_END not in text:
        return None
    return text.split(README_BEGIN, 1)[1].split(README_END, 1)[0].strip("\n")


#: the project's own README and report directory: a whole run into that directory rewrites the README's block
PROJECT_README = Path(__file__).resolve().parents[1] / "README.md"
PROJECT_REPORTS = Path(__file__).resolve().parents[1] / "reports"


# --- partial runs: which files belong to which papers ----------------------------------------------

#: the files and directories a report consists of (all replaced together)
REPORT_FILES = ("REPORT.md", "index.html", "summary.json", "results", "figures")
#: where a partial run writes when the output directory holds the report of other papers
PARTIAL_DIR = "partial"
#: figure file names that carry their paper id after this prefix (``overview_jia.png``, ``rate_jia_thm4_….png``)
_FIGURE_KINDS = ("overview", "rate", "heatmap", "sensitivity")


def report_papers(directory: Path | str) -> set[str] | None:
    """The papers whose report ``directory`` holds, read from its ``summary.json``.

    An empty set when the directory holds no report file; None when it holds report files but
    no readable ``summary.json`` (whose they are cannot be told).

    Examples
    --------
    >>> import tempfile, json, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> report_papers(d)
    set()
    >>> _ = (d / "summary.json").write_text(json.dumps({"statements": [{"key": "jia.thm2", "paper": "jia"}]}))
    >>> report_papers(d)
    {'jia'}
    >>> _ = (d / "summary.json").write_text("{broken")
    >>> report_papers(d) is None
    True
    """
    d = Path(directory)
    if not any((d / n).exists() for n in REPORT_FILES):
        return set()
    try:
        data = json.loads((d / "summary.json").read_text(encoding="utf-8"))
        return {str(s.get("paper") or s["key"].split(".")[0]) for s in data["statements"]}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def figure_paper(name: str, papers: Iterable[str] | None = None) -> str | None:
    """The paper a figure file belongs to, from its name (None for a figure of several papers).

    Examples
    --------
    >>> figure_paper("rate_jia_thm4_problem_svm.png", ["jia", "jamp"]), figure_paper("overview_jamp.svg", ["jamp"])
    ('jia', 'jamp')
    >>> figure_paper("audit_eps.png", ["jia"]) is None, figure_paper("rate_other_thm1.png", ["jia"]) is None
    (True, True)
    """
    ids = sorted(papers if papers is not None else PAPERS, key=len, reverse=True)
    for kind in _FIGURE_KINDS:
        if name.startswith(kind + "_"):
            rest = name[len(kind) + 1:]
            for pid in ids:
                if rest.startswith(pid) and rest[len(pid):len(pid) + 1] in ("_", "."):
                    return pid
    return None


def report_dir(out: Path | str, papers: Iterable[str], partial: bool) -> Path:
    """Where a run of ``papers`` writes its report.

    A whole run (``partial`` false) writes into ``out``.  So does a partial run when ``out`` holds
    no report, or the report of some of the papers the run covers (it replaces it).  When ``out``
    holds the report of any other paper (or report files whose papers cannot be told), a partial
    run writes its own report into ``out/partial/<paper ids joined by +>/`` and touches nothing
    else: the whole report stays as it was.

    Examples
    --------
    >>> import tempfile, json, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> report_dir(d, ["jamp"], partial=True) == d
    True
    >>> _ = (d / "summary.json").write_text(json.dumps({"statements": [{"key": "jia.thm2", "paper": "jia"}]}))
    >>> report_dir(d, ["jamp", "jcc"], partial=True).relative_to(d).as_posix()
    'partial/jamp+jcc'
    >>> report_dir(d, ["jia"], partial=True) == d, report_dir(d, ["jamp"], partial=False) == d
    (True, True)
    """
    out = Path(out)
    papers = set(papers)
    if not partial:
        return out
    scope = report_papers(out)
    if scope is not None and scope <= papers:
        return out
    return out / PARTIAL_DIR / "+".join(sorted(papers))


def keep_other_papers_figures(old: Path, new: Path, papers: Iterable[str]) -> list[str]:
    """Copy into ``new`` the figure files of ``old`` that belong to a paper not in ``papers``.

    Used when a partial run replaces a ``figures/`` directory: a file whose name says it belongs
    to another paper (:func:`figure_paper`; also a paper the registry no longer knows) is kept byte
    for byte; the run's own papers' figures, and the figures of several papers (``audit_eps``,
    ``privacy_utility``), are the run's to redraw or drop.  Returns the names kept.
    """
    papers = set(papers)
    kept: list[str] = []
    if not old.is_dir():
        return kept
    for p in sorted(old.iterdir()):
        if not p.is_file() or not p.name.startswith(tuple(k + "_" for k in _FIGURE_KINDS)):
            continue                          # a figure of several papers: the run's report redraws it
        owner = figure_paper(p.name)          # None: a paper not in the registry, never the run's
        if owner not in papers and not (new / p.name).exists():
            new.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, new / p.name)
            kept.append(p.name)
    return kept


def statement_verdict(v: Verdict) -> dict[str, Any]:
    """The verdict fields of one statement's JSON record: verdict, root, regime, evidence list."""
    d = v.as_dict(rows=False)
    return {
        "verdict": d["verdict"], "reads": d["reads"], "root": d["root"], "root_text": d["root_text"],
        "inherited_from": d["inherited_from"], "finding": d["finding"], "regime": d["regime"],
        "reasons": d["reasons"], "truth": d["truth"], "proof": d["proof"], "constant": d["constant"],
        "correction": d["correction"], "errors": d["errors"], "same_error_as": d["same_error_as"],
        "readings": d["readings"],
        **_jsonable(root_extras(v, registry.get(v.key) if v.key in registry else None)),
        "evidence_list": [{"evidence": r.evidence, "kind": r.kind, "name": r.name, "verdict": r.verdict,
                           "reads": r.reads, "regime": r.regime, "statistic": _jsonable(r.statistic),
                           "bound": _jsonable(r.bound), "ratio": _jsonable(r.ratio), "n": r.n}
                          for r in v.evidence],
    }


def evidence_rows(evs: Sequence[Evaluation], empirical: Sequence[Result] = (),
                  audits: Sequence[Result] = ()) -> list[Result]:
    """Every piece of evidence as one list of :class:`~bounds.evidence.Result` rows: the symbolic
    checks of each evaluated statement, then the empirical checks and the audits."""
    out: list[Result] = [c for e in evs for c in e.checks]
    return out + list(empirical) + list(audits)


def use_symbolic_cache(cache: str | os.PathLike | None) -> Any:
    """Point the registry's symbolic snapshot at ``<cache>/symbolic`` (None: no snapshot).

    Returns the :class:`~bounds.snapshot.Store` (or None).  The default cache directory
    ``.cache/trials`` gives the snapshot the command line ``python -m bounds`` reads.
    """
    from bounds.snapshot import Store

    registry.store = None if cache is None else Store(Path(cache) / "symbolic")
    return registry.store


def evaluate_symbolic(cache: str | os.PathLike | None, executor: Any, keys: Sequence[str] | None = None) -> Any:
    """Evaluate the statements missing from the snapshot at ``<cache>/symbolic`` on ``executor``.

    The evaluations land in the snapshot, where :func:`write_report` reads them.  The statements
    missing from the snapshot are sent one statement per task, dependencies first
    (:func:`bounds.snapshot.evaluation_tasks`: a task waits for a dependency another task is
    deriving).  Returns the submitted futures (empty when the snapshot is complete or off).
    """
    store = use_symbolic_cache(cache)
    if store is None:
        return []
    todo = [k for k in (keys if keys is not None else registry.keys()) if not store.has(k)]
    from bounds.snapshot import evaluate_task, evaluation_tasks

    return [executor.submit(evaluate_task, (str(store.root), ks)) for ks in evaluation_tasks(todo, registry)]


def _figure_job(task: tuple[str, Any, Path]) -> tuple[str, Any]:
    """Worker task: draw one group of figures; returns (kind, path map or path).

    Drawn inside :func:`verify.figures.deterministic`, so that every SVG (also those whose code calls
    ``savefig`` itself) is byte-identical for the same input.
    """
    from .figures import deterministic
    from .html import prepare_embedding

    with deterministic():
        kind, out = _draw_job(task)
    report = Path(task[2]).parent                       # the figures' paths are relative to the report
    refs = out.values() if isinstance(out, dict) else [out]
    prepare_embedding([report / str(r) for r in refs if r], report)   # the page's palette PNGs, drawn here
    return kind, out


def _draw_job(task: tuple[str, Any, Path]) -> tuple[str, Any]:
    kind, data, directory = task
    if kind == "rate":
        from .figures import rate_figures

        return kind, rate_figures(data, directory)
    if kind == "sensitivity":
        from .figures import sensitivity_figures

        return kind, sensitivity_figures(data, directory)
    if kind == "overview":
        from .figures import overview_figures

        return kind, overview_figures(data, directory)
    if kind == "heatmap":
        from .figures import heatmaps

        consts, forms = data
        return kind, heatmaps(consts, directory, forms=forms)
    if kind == "utility":
        from .utility import utility_figures

        return kind, utility_figures(data, directory)["privacy_utility"]
    if kind == "audit":
        from .audit import audit_figure

        return kind, audit_figure(data, directory)
    raise ValueError(f"unknown figure kind {kind!r}")


def figure_jobs(directory: Path, empirical: Sequence[Any], pk: list, utility: Any, audits: Any
                ) -> list[tuple[str, Any, Path]]:
    """The figures as independent jobs: one per rate result, per paper's sensitivity and overview
    figures, per heat map, plus the utility and audit figures.  Each job draws what the serial
    functions draw for its slice, into the same file names."""
    jobs: list[tuple[str, Any, Path]] = []
    if empirical:
        jobs += [("rate", [r], directory) for r in empirical if r.kind == "rate"]
        by_paper: dict[str, list[Any]] = {}
        for r in empirical:
            by_paper.setdefault(r.key.split(".")[0], []).append(r)
        for rs in by_paper.values():
            jobs += [("sensitivity", rs, directory), ("overview", rs, directory)]
    if pk:
        forms = {r["key"]: r.get("form") or None for r in pk if not r.get("refused")}   # a refused bound: no map
        jobs += [("heatmap", ({k: v}, {k: forms[k]}), directory) for k, v in pick_constants().items() if k in forms]
    if utility is not None and len(utility):
        jobs.append(("utility", utility, directory))
    if audits:
        jobs.append(("audit", list(audits), directory))
    return jobs


def _draw_figures(tmp: Path, figures: bool, empirical: Sequence[Any], pk: list, utility: Any,
                  audits: Any, executor: Any = None) -> tuple:
    """Draw every figure into ``tmp/figures``; returns the path maps used by the Markdown.

    With an ``executor`` of more than one worker the figure jobs (:func:`figure_jobs`) run on it;
    otherwise, in this process.  The files are the same either way.
    """
    figs: dict[str, str] = {}
    hms: dict[str, str] = {}
    sfigs: dict[str, str] = {}
    ovs: dict[str, str] = {}
    ufig = afig = None
    if not figures:
        return figs, hms, sfigs, ovs, ufig, afig
    jobs = figure_jobs(tmp / "figures", empirical, pk, utility, audits)
    if executor is not None and getattr(executor, "workers", 1) > 1 and len(jobs) > 1:
        done = [out for _, out in executor.map_unordered(_figure_job, jobs)]
    else:
        done = [_figure_job(j) for j in jobs]
    for kind, out in done:
        if kind == "rate":
            figs.update(out)
        elif kind == "sensitivity":
            sfigs.update(out)
        elif kind == "overview":
            ovs.update(out)
        elif kind == "heatmap":
            hms.update(out)
        elif kind == "utility":
            ufig = out
        elif kind == "audit":
            afig = out
    # the Markdown lists figures in the order the serial functions produced them
    figs = {k: figs[k] for k in sorted(figs, key=_result_order(empirical, "rate"))}
    hms = {k: hms[k] for k in pick_constants() if k in hms}
    sfigs = dict(sorted(sfigs.items(), key=lambda kv: _first_index(empirical, kv[0])))
    ovs = dict(sorted(ovs.items(), key=lambda kv: _first_index(empirical, kv[0])))
    return figs, hms, sfigs, ovs, ufig, afig


def _first_index(results: Sequence[Any], prefix: str) -> int:
    for i, r in enumerate(results):
        if r.key == prefix or r.key.startswith(prefix + ".") or r.key.split(".")[0] == prefix:
            return i
    return len(results)


def _result_order(results: Sequence[Any], kind: str) -> Any:
    pos = {f"{r.key}:{r.kind}:{r.variant}": i for i, r in enumerate(results) if r.kind == kind}
    return lambda k: pos.get(k, len(pos))


def _figure_cache_dir(cache: str | os.PathLike | None, empirical: Sequence[Any], pk: list, utility: Any,
                      audits: Any) -> Path | None:
    """Cache directory of the figures for exactly these inputs and this drawing code (or None)."""
    if cache is None:
        return None
    import hashlib
    import pickle

    h = hashlib.sha256()
    here = Path(__file__).resolve().parent
    for f in ("figures.py", "utility.py", "audit/rows.py", "report.py", "html.py"):   # html: the palette PNGs
        h.update((here / f).read_bytes())
    try:
        h.update(pickle.dumps([r.as_row() for r in empirical]))
        h.update(pickle.dumps(pk))
        h.update(pickle.dumps(None if utility is None else utility.to_dict()))
        h.update(pickle.dumps([r.as_row() for r in (audits or [])]))
    except Exception:  # noqa: BLE001 - unpicklable input: draw afresh
        return None
    from bounds.snapshot import source_digest

    h.update(source_digest().encode())          # the bounds' source (heat maps)
    from .figures import svg_wanted

    if svg_wanted():                            # the SVG copies are opt-in: another set of files
        h.update(b"svg")
    return Path(cache) / "figures" / h.hexdigest()[:32]


def _json_emp(d: dict[str, Any] | None) -> dict[str, Any] | None:
    return None if d is None else {"status": d["status"], "verdicts": d["verdicts"],
                                   "max_ratio": d["max_ratio"], "kinds": d["kinds"]}


def _jsonable(x: Any) -> Any:
    """Numbers, strings, lists and dicts only (NumPy scalars and arrays converted; NaN/inf as strings)."""
    import numpy as np

    if isinstance(x, dict):
        return {str(k): _jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_jsonable(v) for v in x]
    if isinstance(x, np.ndarray):
        return _jsonable(x.tolist())
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and not math.isfinite(x):
        return None if math.isnan(x) else str(x)   # a missing number is null, never the string "nan"
    return x

