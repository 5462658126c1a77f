"""``python -m verify``: regenerate the verification report.

Usage::

    python -m verify where KEY [--json]                         # where KEY is stated, checked, simulated, drawn
    python -m verify audit [--json] [--profile P] [--seed N] [--only PATTERN]   # the papers' privacy audits
    python -m verify audit --samples FILE.npz --claim-eps E [--delta D] [--confidence C] [--json]
    python -m verify audit --mechanism module:function --claim-eps E [--datasets module:attr] [--n N] ...
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
from typing import Any

from bounds import registry
from bounds.evidence import STATUSES, VERDICTS


def _load_attr(spec: str, what: str):
    """``module:attr`` or ``path/to/file.py:attr`` → the attribute (ValueError naming ``what`` otherwise)."""
    import importlib
    import importlib.util

    if ":" not in spec:
        raise ValueError(f"parameter {what!r} = {spec!r} must have the form module:function")
    mod_name, attr = spec.rsplit(":", 1)
    try:
        if mod_name.endswith(".py"):
            path = Path(mod_name)
            if not path.is_file():
                raise ValueError(f"parameter {what!r}: no file {mod_name!r}")
            sp = importlib.util.spec_from_file_location(path.stem, path)
            mod = importlib.util.module_from_spec(sp)
            sp.loader.exec_module(mod)
        else:
            if str(Path.cwd()) not in sys.path:
                sys.path.insert(0, str(Path.cwd()))
            mod = importlib.import_module(mod_name)
    except ValueError:
        raise
    except Exception as exc:
        raise ValueError(f"parameter {what!r}: cannot import {mod_name!r} ({type(exc).__name__}: {exc})") from None
    if not hasattr(mod, attr):
        raise ValueError(f"parameter {what!r}: module {mod_name!r} has no attribute {attr!r}")
    return mod, getattr(mod, attr)


def user_audit(a: argparse.Namespace):
    """The audit of a user's mechanism (``--samples`` or ``--mechanism``) from parsed options."""
    import numpy as np

    from .audit import audit_mechanism, audit_samples

    if a.claim_eps is None:
        raise ValueError("parameter '--claim-eps' is required: the ε the mechanism claims")
    kw = dict(claim_eps=a.claim_eps, delta=a.delta, confidence=a.confidence if a.confidence is not None else 0.95,
              seed=a.seed, output=a.output, selection_fraction=a.selection_fraction)
    if a.samples:
        try:
            with np.load(a.samples, allow_pickle=False) as z:
                missing = [k for k in ("d0", "d1") if k not in z.files]
                if missing:
                    raise ValueError(f"parameter '--samples' = {a.samples!r}: the file holds {sorted(z.files)}, "
                                     "it needs arrays 'd0' (outputs on D) and 'd1' (outputs on D′)")
                d0, d1 = z["d0"], z["d1"]
        except ValueError as exc:
            msg = str(exc)
            if "--samples" not in msg:
                msg = f"parameter '--samples' = {a.samples!r}: {msg}"
            raise ValueError(msg) from None
        except (OSError, EOFError) as exc:
            raise ValueError(f"parameter '--samples' = {a.samples!r}: cannot read it as .npz ({exc})") from None
        return audit_samples(d0, d1, **kw), {"source": a.samples}
    mod, release = _load_attr(a.mechanism, "--mechanism")
    if not callable(release):
        raise ValueError(f"parameter '--mechanism' = {a.mechanism!r} is not callable")
    if a.datasets:
        _, pair = _load_attr(a.datasets, "--datasets")
    elif hasattr(mod, "NEIGHBOURS"):
        pair = mod.NEIGHBOURS
    else:
        raise ValueError(f"parameter '--datasets' is needed: module of {a.mechanism!r} defines no NEIGHBOURS pair")
    if callable(pair):
        pair = pair()
    if not isinstance(pair, (tuple, list)) or len(pair) != 2:
        raise ValueError("parameter '--datasets' must give a pair (D, D′) of neighbouring data sets")
    from .audit.core import check_count

    n = check_count("--n", a.n, 20)
    chunk = check_count("--chunk", a.chunk, 1)
    return audit_mechanism(release, pair[0], pair[1], n, chunk=chunk, **kw), {"source": a.mechanism}


def audit_main(argv: Sequence[str]) -> int:
    """``python -m verify audit``: the papers' audits, or the audit of a user's mechanism.

    ``--samples FILE.npz`` (arrays ``d0``, ``d1``: outputs on D and D′) or ``--mechanism
    module:function`` (``release(dataset, rng, k)``; data sets from ``--datasets module:attr`` or the
    module's ``NEIGHBOURS``) with ``--claim-eps E`` audits a user's mechanism; without them every
    discovered audit of the papers runs.  Bad input prints one line and exits 2.
    """
    import json

    from .empirical import PROFILES

    ap = argparse.ArgumentParser(prog="python -m verify audit",
                                 description="Lower bounds on ε: for your mechanism (--samples or --mechanism), "
                                             "or for every mechanism a paper declares an audit for.")
    ap.add_argument("--json", action="store_true", help="print the result(s) as JSON")
    ap.add_argument("--samples", help="FILE.npz with arrays d0, d1: outputs on D and on D′ "
                                      "((n,) reals, (n, k) vectors or (n,) integer categories)")
    ap.add_argument("--mechanism", help="module:function (or file.py:function), release(dataset, rng, k) -> k outputs")
    ap.add_argument("--datasets", help="module:attr giving the pair (D, D′) (default: the module's NEIGHBOURS)")
    ap.add_argument("--claim-eps", type=float, help="the claimed ε")
    ap.add_argument("--delta", type=float, default=0.0, help="the claimed δ, in [0, 1) (default 0)")
    ap.add_argument("--n", type=float, default=100_000, help="releases per data set with --mechanism (default 1e5)")
    ap.add_argument("--chunk", type=float, default=100_000, help="releases per call of the mechanism (default 1e5)")
    ap.add_argument("--output", default="auto", help="auto, scalar, categorical or vector (default auto)")
    ap.add_argument("--selection-fraction", type=float, default=None, help="share of outputs used to choose the test")
    ap.add_argument("--fail-on-violation", action="store_true", help="exit 1 when the claim is violated")
    ap.add_argument("--profile", default="default", help=f"sizes (releases per data set): {', '.join(PROFILES)}")
    ap.add_argument("--only", help="glob pattern or substring of statement keys")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--confidence", type=float, default=None, help="level of the lower bounds (default: 0.95 or the "
                                                                    "profile's)")
    try:
        a = ap.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    if a.samples is not None or a.mechanism is not None:
        try:
            if a.samples is not None and a.mechanism is not None:
                raise ValueError("parameters '--samples' and '--mechanism' exclude each other")
            if a.only:
                raise ValueError("parameter '--only' selects the papers' audits; it does not apply with "
                                 "--samples or --mechanism")
            res, info = user_audit(a)
        except ValueError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except Exception as exc:         # the user's code failed: one line, no traceback
            print(f"error: the mechanism raised {type(exc).__name__}: {exc}", file=sys.stderr)
            return 2
        if a.json:
            print(json.dumps({**res.as_dict(), **info}, indent=1, ensure_ascii=False))
        else:
            pv = "p < 1e-300" if res.p_value is not None and res.p_value < 1e-300 else f"p = {res.p_value:.3g}"
            print(f"ε_lower = {res.eps_lower:.4f} at {res.confidence:.0%} confidence "
                  f"(n0 = {res.n0}, n1 = {res.n1}, {res.details['output']} outputs, statistic: "
                  f"{res.details['statistic']})")
            print(f"claimed ε = {res.claim_eps:g}" + (f", δ = {res.delta:g}" if res.delta else "")
                  + f": {res.verdict} (margin ε_lower − ε = {res.margin:+.4f}, {pv})")
        return 1 if a.fail_on_violation and res.verdict == "violated" else 0
    try:
        for opt in ("claim_eps", "datasets"):
            if getattr(a, opt) is not None:
                raise ValueError(f"parameter '--{opt.replace('_', '-')}' needs --samples or --mechanism")
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
        import tempfile

        from .report import evaluate_symbolic, use_symbolic_cache

        # --no-cache: the symbolic evaluations still go through a snapshot, a fresh one in a
        # temporary directory, so the workers can compute them in parallel
        sym_tmp = tempfile.TemporaryDirectory(prefix="dp-erm-symbolic-") if a.no_cache else None
        sym_cache = sym_tmp.name if sym_tmp is not None else a.cache
        use_symbolic_cache(sym_cache)
        run_info = {"profile": a.profile, "seed": a.seed}
        sym_keys = sorted(_only(a.only)) if a.only else None
        from simulations.executors import get_executor

        ex = get_executor(a.executor, scheduler=a.scheduler)
        run_info["executor"] = ex.describe()
        if a.no_empirical:
            _wait_all(evaluate_symbolic(sym_cache, ex, sym_keys), "symbolic evaluation")
        else:
            from .empirical import Context, run_spec, select
            from .empirical.jobs import audit_job, calibration_job

            specs = select(a.only)
            cache = None if a.no_cache else a.cache
            ctx = Context(PROFILES[a.profile], seed=a.seed, executor=ex, cache=cache)
            from tqdm.auto import tqdm

            try:
                # whole jobs first (the statements' symbolic evaluation, every audit, the auditor's
                # calibration): they run on the workers while this process dispatches the trials
                # of the empirical checks, which queue behind them on the same pool
                t1 = time.perf_counter()
                sym = evaluate_symbolic(sym_cache, ex, sym_keys)
                jobs: dict[Any, Any] = {i: ex.submit(audit_job, (ctx.profile, a.seed, cache, spec))
                                        for i, spec in enumerate(specs) if spec.evidence == "audit"}
                by_spec: dict[int, list] = {}
                if not a.only:
                    jobs["auditor calibration"] = ex.submit(
                        calibration_job, (ctx.profile.n_audit, a.seed, ctx.profile.confidence))
                for i, spec in tqdm([(i, s) for i, s in enumerate(specs) if s.evidence != "audit"],
                                    desc="checks", unit="check", disable=None, leave=False):
                    t2 = time.perf_counter()
                    by_spec[i] = run_spec(ctx, spec)
                    print(f"  {spec.name} ({time.perf_counter() - t2:.1f} s)", file=sys.stderr)
                if not a.only:
                    from .utility import run_utility

                    t2 = time.perf_counter()
                    utility = run_utility(ctx)
                    print(f"  privacy-utility ({time.perf_counter() - t2:.1f} s)", file=sys.stderr)
                for name, fut in jobs.items():
                    if name == "auditor calibration":
                        calibration = fut.result()
                    else:
                        by_spec[name] = fut.result()
                results.extend(r for i in sorted(by_spec) for r in by_spec[i])   # registry order
                print(f"  audits and calibration done ({time.perf_counter() - t1:.1f} s since start)",
                      file=sys.stderr)
                _wait_all(sym, "symbolic evaluation")
            finally:
                ctx.close()
        run_info["empirical_wall_time_s"] = round(time.perf_counter() - t0, 1)
        paths = write_report(a.out, only=a.only, picks=not a.no_picks, empirical=results, run_info=run_info,
                             utility=utility, audits=calibration, cache=None if a.no_cache else a.cache,
                             symbolic_cache=sym_cache, executor=ex)
    except (ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        if "ex" in locals():
            ex.close()
        if "sym_tmp" in locals() and sym_tmp is not None:
            sym_tmp.cleanup()
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


def _wait_all(futures: Sequence, what: str) -> None:
    t = time.perf_counter()
    for f in futures:
        f.result()
    if futures:
        print(f"  {what}: {len(futures)} papers ({time.perf_counter() - t:.1f} s waited)", file=sys.stderr)


def _only(pattern: str) -> set[str]:
    from bounds.core import keys_matching

    return set(keys_matching(registry, pattern))
