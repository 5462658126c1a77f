"""Scan a generated report for numbers that mean nothing.

The report and ``summary.json`` must not show ``zoo`` (sympy's complex
infinity), ``nan``, a negative or non-finite ratio, or an unevaluated sympy
object (``polar_lift``, ``Integral(...)``, ``Limit(...)``).  CI runs this on the
quick report (``python -m verify scan DIR``); the tests run it on the committed
report and on synthetic text.

Examples
--------
>>> from verify.scan import scan_text
>>> scan_text("stated/derived = zoo; ratio -0.0002", "x.md")
["x.md:1: sympy's complex infinity 'zoo'", 'x.md:1: negative ratio: ratio -0.0002']
>>> scan_text("ratio 0.5 with nanoseconds", "ok.md")
[]
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
