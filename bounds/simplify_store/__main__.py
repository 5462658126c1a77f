"""``python -m bounds.simplify_store``: regenerate the seeded store from a full symbolic run.

Evaluates every statement of every discovered paper into an empty temporary snapshot with the
seeded store switched off (so every outcome is computed by sympy here), then writes
:data:`bounds.simplify_store.DATA` from the outcomes that run kept on disk: every outcome that is
an expression and survives ``srepr`` and back, with its input.  ``--out`` writes elsewhere.

Examples
--------
``python -m bounds.simplify_store --workers 2`` (about 30 s of CPU) prints one line::

    simplify seed: 121 outcomes (sympy 1.14.0, budget 80) written to .../data.json.gz; 5 not storable
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

from . import DATA, ENV, parse, round_trips, write


def record(inputs: Path) -> None:
    """Make every :func:`bounds.checks.small_simplify` that computes an outcome write its input's ``srepr``
    to ``inputs/<key>.txt`` (in this process and the workers it forks)."""
    import sympy as sp

    from .. import simplify_store

    inputs.mkdir(parents=True, exist_ok=True)

    def lookup(key: str, expr: sp.Expr, version: str, budget: int) -> None:
        (inputs / f"{key}.txt").write_text(sp.srepr(expr), encoding="utf-8")

    simplify_store.lookup = lookup          # the seed is off here: nothing is read from it anyway


def harvest(directory: Path, inputs: Path) -> tuple[dict[str, list[str]], int]:
    """``({key: [input srepr, outcome srepr]}, skipped)`` of the outcomes under ``directory`` (``<root>/simplify``)
    whose input :func:`record` wrote to ``inputs``."""
    import sympy as sp

    from .._store_io import read_entry
    from ..checks import _SIMPLIFY_MAGIC, simplify_key

    entries: dict[str, list[str]] = {}
    skipped = 0
    for f in sorted(Path(directory).rglob("*.pkl")):
        src = Path(inputs) / f"{f.stem}.txt"
        if not src.is_file():
            continue
        ok, obj, _why = read_entry(f, f.stem, magic=_SIMPLIFY_MAGIC,
                                   check=lambda t: isinstance(t, tuple) and len(t) == 1)
        if not ok or obj[0] is None:
            continue
        expr = parse(src.read_text(encoding="utf-8"))
        if round_trips(obj[0]) and expr is not None and simplify_key(expr) == f.stem:
            entries[f.stem] = [sp.srepr(expr), sp.srepr(obj[0])]
        else:
            skipped += 1
    return entries, skipped


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
        record(inputs)
        store = Store(Path(tmp) / "symbolic")
        use_simplify_cache(store.root / "simplify")        # also what importing the papers simplifies
        warm(store, workers=args.workers)
        entries, skipped = harvest(store.root / "simplify", inputs)
    out = write(entries, sp.__version__, SIMPLIFY_OPS, Path(args.out) if args.out else None)
    print(f"simplify seed: {len(entries)} outcomes (sympy {sp.__version__}, budget {SIMPLIFY_OPS}) written to "
          f"{out}; {skipped} not storable (a function class srepr cannot name)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
