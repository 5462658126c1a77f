"""``python -m verify``: regenerate the verification report.

Usage::

    python -m verify where KEY [--json]                         # where KEY is stated, checked, simulated, drawn
    python -m verify audit [--json] [--profile P] [--seed N] [--only PATTERN]   # privacy audits only
    python -m verify scan [DIR]                                  # meaningless numbers in a generated report
    python -m verify [--profile quick|default|full] [--only PATTERN]
                     [--executor serial|local|dask] [--scheduler ADDRESS]
                     [--seed N] [--out DIR] [--cache DIR | --no-cache]
                     [--no-picks] [--no-empirical]

The symbolic checks of :mod:`bounds` always run; the empirical checks and the
privacy audits of :mod:`verify.empirical` (every paper's, discovered) run in
the chosen profile (``make verify`` uses ``default``); ``--only`` selects
statements, and with them their checks and audits.  Bad input (an unknown profile, a pattern that matches nothing,
an unreachable scheduler, an unwritable directory) prints one line to stderr
and exits with status 2; nothing is half-written.  Finished trials are cached
by content (:mod:`simulations.cache`), so a rerun only computes what changed.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

from bounds import registry
from bounds.evidence import STATUSES, VERDICTS


def audit_main(argv: Sequence[str]) -> int:
    """``python -m verify audit [--json] [--profile P] [--seed N] [--only PATTERN]``: every discovered audit."""
    import json

    from .empirical import PROFILES

    ap = argparse.ArgumentParser(prog="python -m verify audit",
                                 description="Lower bounds on ε for every mechanism a paper declares an audit for.")
    ap.add_argument("--json", action="store_true", help="print the audits as JSON")
    ap.add_argument("--profile", default="default", help=f"sizes (releases per data set): {', '.join(PROFILES)}")
    ap.add_argument("--only", help="glob pattern or substring of statement keys")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--confidence", type=float, default=None, help="level of the lower bounds (default: the profile's)")
    try:
        a = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    try:
        if a.profile not in PROFILES:
            raise ValueError(f"parameter 'profile' = {a.profile!r} is not one of {', '.join(PROFILES)}")
        if a.confidence is not None and not 0 < a.confidence < 1:
            raise ValueError(f"parameter 'confidence' = {a.confidence!r} must lie in (0, 1)")
        from dataclasses import replace

        from .audit import calibration_audits
        from .empirical import Context, run_checks, select

        prof = PROFILES[a.profile] if a.confidence is None else replace(PROFILES[a.profile], confidence=a.confidence)
        specs = [s for s in select(a.only) if s.evidence == "audit"]
        if a.only and not specs:
            raise ValueError(f"pattern {a.only!r} matches no audit")
        rows = [] if a.only else calibration_audits(prof.n_audit, a.seed, prof.confidence)
        rows += run_checks(Context(prof, seed=a.seed, executor="serial"), specs=specs)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if a.json:
        print(json.dumps([r.as_row() for r in rows], indent=1, ensure_ascii=False, default=str))
    else:
        for r in rows:
            if r.details.get("sweep"):
                continue
            print(f"{r.key or '(auditor)':<14} {r.name:<26} claimed ε={r.bound:<5g} "
                  f"ε_lower={r.statistic:8.3f} ({r.confidence:.0%})  {r.verdict}")
    return 0


def where_main(argv: Sequence[str]) -> int:
    """``python -m verify where KEY``: where a statement is stated, derived, simulated, checked and drawn."""
    ap = argparse.ArgumentParser(prog="python -m verify where",
                                 description="Where is a statement encoded, checked, simulated, audited and drawn?")
    ap.add_argument("key", help="statement key, e.g. the label of a theorem prefixed by its paper id")
    ap.add_argument("--reports", default="reports", help="report directory to look for figures (default: reports)")
    ap.add_argument("--json", action="store_true")
    try:
        a = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    from .where import locate, render

    try:
        info = locate(a.key, reports=a.reports)
    except (KeyError, ValueError) as exc:
        print(f"error: {exc.args[0] if exc.args else exc}", file=sys.stderr)
        return 2
    if a.json:
        import json

        print(json.dumps(info, indent=1, ensure_ascii=False))
    else:
        print(render(info))
    return 0


def scan_main(argv: Sequence[str]) -> int:
    """``python -m verify scan [DIR]``: exit 1 listing every meaningless number in the report at DIR."""
    from pathlib import Path

    from .scan import scan_report

    out = Path(argv[0] if argv else "reports")
    if not (out / "REPORT.md").exists() or not (out / "summary.json").exists():
        print(f"error: parameter 'DIR' = {str(out)!r} holds no generated report (REPORT.md, summary.json)",
              file=sys.stderr)
        return 2
    problems = scan_report(out)
    for p in problems:
        print(p)
    print(f"scan {out}: {len(problems)} meaningless numbers")
    return 1 if problems else 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report job (or ``audit``); returns the exit status."""
    from .empirical import PROFILES

    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["audit"]:
        return audit_main(argv[1:])
    if argv[:1] == ["where"]:
        return where_main(argv[1:])
    if argv[:1] == ["scan"]:
        return scan_main(argv[1:])

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
        calibration = None
        if not a.no_cache:
            from .report import restore_symbolic

            restore_symbolic(a.cache)
        run_info = {"profile": a.profile, "seed": a.seed}
        if not a.no_empirical:
            from simulations.executors import get_executor

            from .empirical import Context, run_spec, select

            specs = select(a.only)
            ex = get_executor(a.executor, scheduler=a.scheduler)
            run_info["executor"] = ex.describe()
            ctx = Context(PROFILES[a.profile], seed=a.seed, executor=ex,
                          cache=None if a.no_cache else a.cache)
            from tqdm.auto import tqdm

            try:
                for spec in tqdm(specs, desc="checks and audits", unit="check", disable=None, leave=False):
                    t1 = time.perf_counter()
                    results.extend(run_spec(ctx, spec))
                    print(f"  {spec.name} ({time.perf_counter() - t1:.1f} s)", file=sys.stderr)
                if not a.only:
                    from .audit import calibration_audits
                    from .utility import run_utility

                    t1 = time.perf_counter()
                    utility = run_utility(ctx)
                    print(f"  privacy-utility ({time.perf_counter() - t1:.1f} s)", file=sys.stderr)
                    t1 = time.perf_counter()
                    calibration = calibration_audits(ctx.profile.n_audit, a.seed, ctx.profile.confidence)
                    print(f"  auditor calibration ({time.perf_counter() - t1:.1f} s)", file=sys.stderr)
            finally:
                ctx.close()
                ex.close()
        run_info["empirical_wall_time_s"] = round(time.perf_counter() - t0, 1)
        paths = write_report(a.out, only=a.only, picks=not a.no_picks, empirical=results, run_info=run_info,
                             utility=utility, audits=calibration, cache=None if a.no_cache else a.cache)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    keys = registry.keys()
    sel = _only(a.only) if a.only else set(keys)
    tally = Counter(registry.evaluate(k).status for k in keys if k in sel)
    try:
        summary = json.loads(Path(paths["summary"]).read_text(encoding="utf-8"))
        vt = Counter(s["verdict"] for s in summary.get("statements", []))
    except (OSError, ValueError, KeyError):
        vt = Counter()
    et = Counter(r.verdict for r in results if r.evidence == "empirical")
    at = Counter(r.verdict for r in results if r.evidence == "audit" and not r.details.get("sweep"))
    print(f"report: {paths['markdown']}  html: {paths['html']}  summary: {paths['summary']}")
    if vt:
        print("verdicts: " + ", ".join(f"{n} {v}" for v, n in vt.most_common()))
    print("derivation: " + ", ".join(f"{tally.get(s, 0)} {s}" for s in STATUSES)
          + "; empirical: " + ", ".join(f"{et.get(v, 0)} {v}" for v in VERDICTS)
          + "; audits: " + ", ".join(f"{at.get(v, 0)} {v}" for v in VERDICTS)
          + f"  ({time.perf_counter() - t0:.0f} s)")
    return 0


def _only(pattern: str) -> set[str]:
    from bounds.core import keys_matching

    return set(keys_matching(registry, pattern))
