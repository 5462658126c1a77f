"""Scan a generated report for numbers that mean nothing.

The report and ``summary.json`` must not show ``zoo`` (sympy's complex
infinity), ``nan`` or ``inf``, a negative or non-finite ratio (a ratio of two
exponents is negative when they differ in sign), a factor, ratio or slack above
1e12 that its row does not explain (a number that means nothing: measured at an
extreme sampled point, or an overflow; the report prints such a factor in words,
:func:`verify.report.tame_factors`), a
check that "holds" on a minority of its points, or an unevaluated sympy object
(``polar_lift``, ``Integral(...)``, ``Limit(...)``).  CI runs this on the
quick report (``python -m verify scan DIR``); the tests run it on the committed
report and on synthetic text.

Examples
--------
>>> from verify.scan import scan_text
>>> scan_text("stated/derived = zoo; ratio -0.0002", "x.md")
["x.md:1: sympy's complex infinity 'zoo'", 'x.md:1: negative ratio: ratio -0.0002']
>>> scan_text("ratio 0.5 with nanoseconds", "ok.md")
[]
>>> scan_text("stated/derived = -1/4", "x.md")
['x.md:1: negative ratio (of signed quantities): stated/derived = -1']
>>> scan_text("stated exceeds derived by a factor 1 to 5.947e+52 (median 4.132)", "x.md")
['x.md:1: a factor above 1e12 that the row does not explain: factor 1 to 5.947e+52']
>>> scan_text("slack 3.1e+15 (unbounded: grows as lam → 0)", "x.md"), scan_text("ratio 2.0e+11", "x.md")
([], [])
>>> scan_text("holds at all 40 finite of 4000 evaluated points", "x.md")
["x.md:1: 'holds' decided on a minority of the points: holds at all 40 finite of 4000 evaluated"]
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("sympy's complex infinity 'zoo'", re.compile(r"\bzoo\b")),
    ("'nan'", re.compile(r"\bnan\b", re.IGNORECASE)),
    ("unevaluated sympy object", re.compile(r"polar_lift|\bIntegral\(|\bLimit\(|\bDerivative\(|\bSubs\(")),
)
_NEG_RATIO = re.compile(r"\bratio(?:\s+\w+)?\s*[=:]?\s*(-\d[\d.eE+-]*)")
#: a quotient written out (``stated/derived = -1/4``): negative means a ratio of signed things (two exponents)
_NEG_QUOT = re.compile(r"\b\w+/\w+\s*=\s*-\s*\d")
#: a factor, ratio or slack above 1e12 measured over points: an instance, not a supremum, or an overflow
_HUGE = re.compile(r"(?:factor|ratio|slack)[^;|]{0,40}?(\d(?:\.\d+)?)e\+?(\d{2,})", re.IGNORECASE)
#: the threshold above which a printed factor must explain itself
HUGE_FACTOR = 1e12
#: words by which a row explains a huge factor (what makes it large, or that it is unbounded)
_EXPLAINED = re.compile(r"unbounded|without bound|grows as|not a property of the bound|\bexplained\b|overflow",
                        re.IGNORECASE)
#: a non-finite number printed as one (``= inf``, ``[0, inf]``; not the infimum ``inf J``)
_INF = re.compile(r"(?:[=:(\[,|<>]|\bof)\s*-?inf\b(?!\s+[^\W\d_])")
#: a count that was never computed
_UNKNOWN_COUNT = re.compile(r"\?\s+of\s+\?")
#: "holds at all N finite of M evaluated points" where N is a minority: decides nothing
_MINORITY = re.compile(r"holds at all (\d+) finite of (\d+) evaluated")


def explains_factor(text: str) -> bool:
    """Whether ``text`` says why a factor in it is huge (it is unbounded, grows as a parameter moves, …).

    Examples
    --------
    >>> explains_factor("slack 3e+20 (unbounded: grows as lam → 0)"), explains_factor("factor 1 to 5e+52")
    (True, False)
    """
    return bool(_EXPLAINED.search(text))


def scan_text(text: str, name: str = "") -> list[str]:
    """Problems in one text file, as ``name:line: what`` strings."""
    out = []
    for i, line in enumerate(text.splitlines(), 1):
        for what, pat in _PATTERNS:
            if pat.search(line):
                out.append(f"{name}:{i}: {what}")
        m = _NEG_RATIO.search(line)
        if m:
            out.append(f"{name}:{i}: negative ratio: {m.group(0)}")
        m = _NEG_QUOT.search(line)
        if m:
            out.append(f"{name}:{i}: negative ratio (of signed quantities): {m.group(0)}")
        for m in _HUGE.finditer(line):
            if float(f"{m.group(1)}e{m.group(2)}") > HUGE_FACTOR and not _EXPLAINED.search(line):
                out.append(f"{name}:{i}: a factor above 1e12 that the row does not explain: {m.group(0)}")
                break
        if _INF.search(line):
            out.append(f"{name}:{i}: a non-finite number 'inf'")
        if _UNKNOWN_COUNT.search(line):
            out.append(f"{name}:{i}: a count that was never computed ('? of ?')")
        m = _MINORITY.search(line)
        if m and 2 * int(m.group(1)) < int(m.group(2)):
            out.append(f"{name}:{i}: 'holds' decided on a minority of the points: {m.group(0)}")
    return out


def _walk(x: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield from _walk(v, f"{path}.{k}" if path else str(k))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from _walk(v, f"{path}[{i}]")
    else:
        yield path, x


def scan_json(data: Any, name: str = "summary.json") -> list[str]:
    """Problems in a parsed JSON document: NaN numbers or strings, negative or non-finite ratios."""
    out = []
    for path, v in _walk(data):
        leaf = path.rsplit(".", 1)[-1]
        if isinstance(v, float) and math.isnan(v):
            out.append(f"{name}: {path} is NaN")
        elif isinstance(v, str):
            for what, pat in _PATTERNS:
                if pat.search(v):
                    out.append(f"{name}: {path}: {what}")
        if leaf.startswith("ratio") or leaf.endswith("_ratio"):
            if isinstance(v, (int, float)) and not isinstance(v, bool) and (v <= 0 or not math.isfinite(v)):
                out.append(f"{name}: {path} = {v} (a ratio must be finite and positive, else null)")
            elif isinstance(v, str):
                out.append(f"{name}: {path} = {v!r} (a ratio must be a number or null)")
    return out


def scan_report(out: str | Path) -> list[str]:
    """Scan ``REPORT.md`` and ``summary.json`` of a report directory; returns the problems found."""
    out = Path(out)
    problems = scan_text((out / "REPORT.md").read_text(encoding="utf-8"), "REPORT.md")
    problems += scan_json(json.loads((out / "summary.json").read_text(encoding="utf-8")))
    return problems


__all__ = ["scan_json", "scan_report", "scan_text"]
