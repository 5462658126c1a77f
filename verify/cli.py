"""``python -m verify``: regenerate the verification report.

Usage::

    python -m verify [--out DIR] [--only PATTERN] [--no-picks]

Bad input (a pattern that matches nothing, an unwritable directory) prints one
line to stderr and exits with status 2; nothing is half-written.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

from bounds import registry


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report job; returns the exit status."""
    ap = argparse.ArgumentParser(prog="python -m verify", description="Regenerate reports/.")
    ap.add_argument("--out", default="reports", help="output directory (default: reports)")
    ap.add_argument("--only", help="glob pattern or substring of statement keys, e.g. 'jia.*'")
    ap.add_argument("--no-picks", action="store_true", help="skip the ε/λ table")
    try:
        a = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from .report import write_report

    try:
        paths = write_report(a.out, only=a.only, picks=not a.no_picks)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    keys = registry.keys()
    tally = Counter(registry.evaluate(k).status for k in keys if not a.only or k in _only(a.only))
    print(f"report: {paths['markdown']}  summary: {paths['summary']}")
    print("tally: " + ", ".join(f"{tally.get(s, 0)} {s}" for s in ("consistent", "erratum", "premise", "cited")))
    return 0


def _only(pattern: str) -> set[str]:
    from bounds.core import keys_matching

    return set(keys_matching(registry, pattern))
