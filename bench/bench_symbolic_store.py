"""``bench/bench_symbolic_store.py``: the CPU of a cold serial symbolic evaluation, before and after.

Runs, each in a fresh child process, every statement of every discovered paper evaluated serially
into an empty snapshot (``bounds.snapshot.warm(Store(empty), workers=1)``), and prints the CPU
(``resource.getrusage`` of the child: the whole process and the ``warm`` call alone) and a
SHA-256 of all evaluations (for each statement: ``srepr`` of the derived expressions, status,
detail, inherited keys and ``repr`` of every check, which holds its verdict and detail).

The variants (``--variants``, default all three, in one invocation):

* ``before``: a copy of this checkout in which the files of the symbolic store's owner
  (``--owned``) are replaced by their versions at ``--base`` (default ``HEAD``);
* ``off``: this checkout with the seeded store switched off (``DP_ERM_VERIFY_SIMPLIFY_SEED=off``:
  the memo only);
* ``after``: this checkout as it is.

The hashes must agree: the store and the memo change CPU, never a result.

Examples
--------
``bench/bench_symbolic_store.py --base 3a84671`` prints one line per variant and the
differences, e.g. ``after  cpu 27.1 s (warm 25.3 s) ... sha256 3f9c…``.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the files this bench swaps back to ``--base`` for the ``before`` variant
OWNED = ("bounds/simplify_store", "bounds/checks.py", "bounds/_store_io.py", "bounds/snapshot.py",
         "bounds/symbols.py", "bounds/papers")

CHILD = r"""
import hashlib, json, os, resource, sys, tempfile
from pathlib import Path
r0 = resource.getrusage(resource.RUSAGE_SELF)
import sympy as sp
from bounds.snapshot import Store, warm, _task_registry
store = Store(Path(tempfile.mkdtemp(prefix="sym-bench-")))
w0 = resource.getrusage(resource.RUSAGE_SELF)
n = warm(store, workers=1)
w1 = resource.getrusage(resource.RUSAGE_SELF)
reg = _task_registry(store)
h = hashlib.sha256()
for k in sorted(reg.keys()):
    ev = reg.evaluate(k)
    row = [k, sp.srepr(ev.derived), sp.srepr(ev.derived_from_stated), ev.status, ev.detail,
           list(ev.inherits), [repr(c) for c in ev.checks]]
    h.update(json.dumps(row, ensure_ascii=True).encode() + b"\n")
try:
    import bounds.simplify_store as ss
    used, rej = len(ss.used()), len(ss.rejected())
except Exception:
    used, rej = -1, -1
cpu = lambda a, b: (b.ru_utime + b.ru_stime) - (a.ru_utime + a.ru_stime)
print(json.dumps({"statements": n, "keys": len(reg.keys()), "cpu": cpu(r0, w1), "warm": cpu(w0, w1),
                  "sha256": h.hexdigest(), "used": used, "rejected": rej}))
"""


def _before_tree(base: str, dest: Path, owned: tuple[str, ...]) -> Path:
    """A copy of ``bounds/`` of this checkout with ``owned`` paths at commit ``base``."""
    shutil.copytree(ROOT / "bounds", dest / "bounds", ignore=shutil.ignore_patterns("__pycache__"))
    for rel in owned:
        target = dest / rel
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
        arch = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", base, rel],
                              capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(dest)], input=arch, check=True)
    return dest


def run(tree: Path, env: dict[str, str]) -> dict:
    """One child: the JSON line of :data:`CHILD`, run with ``tree`` first on the path."""
    full = {**os.environ, **env, "PYTHONPATH": str(tree), "PYTHONHASHSEED": "0"}
    out = subprocess.run([sys.executable, "-c", CHILD], cwd=str(tree), env=full, capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="bench/bench_symbolic_store.py", description=__doc__.splitlines()[0])
    ap.add_argument("--base", default="HEAD", help="commit of the 'before' variant's owned files")
    ap.add_argument("--variants", default="before,off,after", help="comma-separated: before, off, after")
    args = ap.parse_args(argv)
    rows = {}
    with tempfile.TemporaryDirectory(prefix="sym-bench-tree-") as tmp:
        for v in args.variants.split(","):
            if v == "before":
                tree = _before_tree(args.base, Path(tmp), OWNED)
                rows[v] = run(tree, {})
            elif v in ("off", "after"):
                rows[v] = run(ROOT, {"DP_ERM_VERIFY_SIMPLIFY_SEED": "off" if v == "off" else "on"})
            else:
                print(f"--variants: unknown variant {v!r}", file=sys.stderr)
                return 2
            r = rows[v]
            print(f"{v:6s} cpu {r['cpu']:.1f} s (warm {r['warm']:.1f} s), {r['statements']} statements, "
                  f"seed entries used {r['used']}, rejected {r['rejected']}, sha256 {r['sha256']}", flush=True)
    hashes = {r["sha256"] for r in rows.values()}
    print("evaluations identical in every variant" if len(hashes) == 1 else "EVALUATIONS DIFFER")
    return 0 if len(hashes) == 1 else 1


if __name__ == "__main__":
    raise SystemExit(main())
