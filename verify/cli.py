"""``python -m verify``: regenerate the verification report.

Usage::

    python -m verify audit [--json] [--profile P] [--seed N]   # privacy audits only
    python -m verify [--profile quick|default|full] [--only PATTERN]
                     [--executor serial|local|dask] [--scheduler ADDRESS]
                     [--seed N] [--out DIR] [--cache DIR | --no-cache]
                     [--no-picks] [--no-empirical]

The symbolic checks of :mod:`bounds` always run; the empirical checks of
:mod:`verify.empirical` run in the chosen profile (``make verify`` uses
``default``).  Bad input (an unknown profile, a pattern that matches nothing,
an unreachable scheduler, an unwritable directory) prints one line to stderr
and exits with status 2; nothing is half-written.  Finished trials are cached
by content (:mod:`simulations.cache`), so a rerun only computes what changed.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Sequence

from bounds import registry

AUDIT_RELEASES = {"quick": 20_000, "default": 100_000, "full": 1_000_000}


def audit_main(argv: Sequence[str]) -> int:
    """``python -m verify audit [--json] [--profile P] [--seed N]``: audit every mechanism."""
    import json

    ap = argparse.ArgumentParser(prog="python -m verify audit",
                                 description="Lower bounds on ε for every implemented mechanism.")
    ap.add_argument("--json", action="store_true", help="print the audits as JSON")
    ap.add_argument("--profile", default="default", help=f"releases per data set: {AUDIT_RELEASES}")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--confidence", type=float, default=0.95)
    try:
        a = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        if a.profile not in AUDIT_RELEASES:
            raise ValueError(f"parameter 'profile' = {a.profile!r} is not one of {', '.join(AUDIT_RELEASES)}")
        if not 0 < a.confidence < 1:
            raise ValueError(f"parameter 'confidence' = {a.confidence!r} must lie in (0, 1)")
        from .audit_mechanisms import run_audits

        rows = run_audits(AUDIT_RELEASES[a.profile], a.seed, a.confidence, sweep=False)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps([r.as_row() for r in rows], indent=1, ensure_ascii=False, default=str))
    else:
        for r in rows:
            print(f"{r.mechanism:<11} {r.release:<12} {r.calibration:<8} claimed ε={r.claimed_eps:<4g} "
                  f"ε_lower={r.eps_lower:8.3f} ({r.confidence:.0%})  {r.verdict}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report job (or ``audit``); returns the exit status."""
    from .empirical import PROFILES

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["audit"]:
        return audit_main(argv[1:])

    ap = argparse.ArgumentParser(prog="python -m verify", description="Regenerate reports/.")
    ap.add_argument("--out", default="reports", help="output directory (default: reports)")
    ap.add_argument("--only", help="glob pattern or substring of statement keys, e.g. 'jia.*'")
    ap.add_argument("--profile", default="default", help=f"empirical sizes: {', '.join(PROFILES)} (default: default)")
    ap.add_argument("--executor", default="local", help="serial, local (all cores; default) or dask")
    ap.add_argument("--scheduler", help="Dask scheduler address (with --executor dask)")
    ap.add_argument("--seed", type=int, default=0, help="root seed of every Monte Carlo run (default 0)")
    ap.add_argument("--cache", default=".cache/trials",
                    help="directory of finished trials, reused by later runs (default: .cache/trials)")
    ap.add_argument("--no-cache", action="store_true", help="recompute every trial")
    ap.add_argument("--no-picks", action="store_true", help="skip the ε/λ table")
    ap.add_argument("--no-empirical", action="store_true", help="symbolic checks only")
    try:
        a = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from .report import write_report

    t0 = time.perf_counter()
    try:
        if a.profile not in PROFILES:
            raise ValueError(f"parameter 'profile' = {a.profile!r} is not one of {', '.join(PROFILES)}")
        if a.only and not _only(a.only):
            raise ValueError(f"pattern {a.only!r} matches no statement")
        results = []
        utility = None
        audits = None
        if not a.no_cache:
            from .report import restore_symbolic

            restore_symbolic(a.cache)
        run_info = {"profile": a.profile, "seed": a.seed}
        if not a.no_empirical:
            from simulations.executors import get_executor

            from .empirical import Context, run_checks, select

            specs = select(a.only)
            ex = get_executor(a.executor, scheduler=a.scheduler)
            run_info["executor"] = ex.describe()
            ctx = Context(PROFILES[a.profile], seed=a.seed, executor=ex,
                          cache=None if a.no_cache else a.cache)
            from tqdm.auto import tqdm

            try:
                for spec in tqdm(specs, desc="empirical checks", unit="check", disable=None, leave=False):
                    t1 = time.perf_counter()
                    results.extend(run_checks(ctx, specs=[spec]))
                    print(f"  {spec.key}:{spec.kind} ({time.perf_counter() - t1:.1f} s)", file=sys.stderr)
                if not a.only:
                    from .audit_mechanisms import run_audits
                    from .utility import run_utility

                    t1 = time.perf_counter()
                    utility = run_utility(ctx)
                    print(f"  privacy-utility ({time.perf_counter() - t1:.1f} s)", file=sys.stderr)
                    t1 = time.perf_counter()
                    audits = run_audits(AUDIT_RELEASES.get(a.profile, 100_000), a.seed,
                                        cache=None if a.no_cache else a.cache)
                    print(f"  privacy audits ({time.perf_counter() - t1:.1f} s)", file=sys.stderr)
            finally:
                ctx.close()
                ex.close()
        run_info["empirical_wall_time_s"] = round(time.perf_counter() - t0, 1)
        paths = write_report(a.out, only=a.only, picks=not a.no_picks, empirical=results, run_info=run_info,
                             utility=utility, audits=audits, cache=None if a.no_cache else a.cache)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    keys = registry.keys()
    sel = _only(a.only) if a.only else set(keys)
    tally = Counter(registry.evaluate(k).status for k in keys if k in sel)
    et = Counter(r.verdict for r in results)
    print(f"report: {paths['markdown']}  html: {paths['html']}  summary: {paths['summary']}")
    print("tally: " + ", ".join(f"{tally.get(s, 0)} {s}" for s in ("consistent", "erratum", "premise", "cited", "order"))
          + "; empirical: " + ", ".join(f"{et.get(v, 0)} {v}" for v in ("holds", "violated", "inconclusive"))
          + f"  ({time.perf_counter() - t0:.0f} s)")
    return 0


def _only(pattern: str) -> set[str]:
    from bounds.core import keys_matching

    return set(keys_matching(registry, pattern))
