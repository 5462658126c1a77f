"""``python -m bounds.simplify_store``: regenerate the seeded store from a full symbolic run.

Evaluates every statement of every discovered paper into an empty temporary snapshot with the
seeded store switched off (so every outcome is computed by sympy here) and every computed
outcome of :func:`bounds.checks.small_simplify` and :func:`bounds.checks.simplified` recorded
(:func:`bounds.simplify_store.record`), then writes :data:`bounds.simplify_store.DATA` from them:
every outcome that is an expression and survives ``srepr`` and back, with its input, each
checked once more by :func:`bounds.simplify_store.verified` (an outcome the check on read would
reject is not written: it would only cost its check).  ``--out`` writes elsewhere.  The file is
deterministic: sorted keys, no time stamp; regenerating twice gives the same bytes.

Examples
--------
``python -m bounds.simplify_store --workers 2`` (about a minute of CPU) prints one line::

    simplify seed: 180 outcomes (sympy 1.14.0, budget 80) written to .../data.json.gz; 2 fail the check on read
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

from . import DATA, ENV, RECORD_ENV, parse, verified, write


def harvest(inputs: Path) -> tuple[dict[str, list[str]], int]:
    """``({key: [input srepr, outcome srepr]}, rejected)`` of the outcomes :func:`record` wrote to ``inputs``;
    ``rejected`` counts those that fail :func:`verified` (left out)."""
    entries: dict[str, list[str]] = {}
    bad = 0
    for f in sorted(Path(inputs).glob("*.json")):
        pair = json.loads(f.read_text(encoding="utf-8"))
        expr, out = parse(pair[0]), parse(pair[1])
        if expr is not None and out is not None and verified(expr, out, f.stem):
            entries[f.stem] = [pair[0], pair[1]]
        else:
            bad += 1
    return entries, bad


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bounds.simplify_store", description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=None, help=f"file to write (default: {DATA})")
    ap.add_argument("--workers", type=int, default=None, help="processes of the symbolic run (default: all cores)")
    args = ap.parse_args(argv)
    if args.workers is not None and args.workers < 1:
        print("--workers: must be at least 1", file=sys.stderr)
        return 2
    os.environ[ENV] = "off"                              # every outcome computed here, none read from the seed
    import sympy as sp

    from ..checks import SIMPLIFY_OPS, use_simplify_cache
    from ..snapshot import Store, warm

    with tempfile.TemporaryDirectory(prefix="simplify-seed-") as tmp:
        inputs = Path(tmp) / "inputs"
        os.environ[RECORD_ENV] = str(inputs)             # inherited by the workers
        store = Store(Path(tmp) / "symbolic")
        use_simplify_cache(store.root / "simplify")        # also what importing the papers simplifies
        try:
            warm(store, workers=args.workers)
        finally:
            os.environ.pop(RECORD_ENV, None)
        entries, bad = harvest(inputs)
    out = write(entries, sp.__version__, SIMPLIFY_OPS, Path(args.out) if args.out else None)
    print(f"simplify seed: {len(entries)} outcomes (sympy {sp.__version__}, budget {SIMPLIFY_OPS}) written to "
          f"{out}; {bad} fail the check on read")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
