"""``python -m verify``: regenerate the verification report.

Usage::

    python -m verify where KEY [--json]                         # where KEY is stated, checked, simulated, drawn
    python -m verify audit [--json] [--profile P] [--seed N] [--only PATTERN]   # the papers' privacy audits
    python -m verify audit --samples FILE.npz --claim-eps E [--delta D] [--confidence C] [--json]
    python -m verify audit --mechanism module:function --claim-eps E [--datasets module:attr] [--n N] ...
    python -m verify scan [DIR]                                  # meaningless numbers in a generated report
    python -m verify [--profile quick|default|full] [--only PATTERN]
                     [--executor serial|local|dask] [--scheduler ADDRESS] [--worker-timeout S]
                     [--seed N] [--out DIR] [--cache DIR | --no-cache]
                     [--no-picks] [--no-empirical] [--svg]
    python -m verify --plan [--profile P] [--seed N] [--cache DIR] [--workers N [N ...]] [--json]
    python -m verify --calibrate [K] [--profile P] [--executor E] [--cache DIR] [--workers N ...] [--json]

The symbolic checks of :mod:`bounds` always run; the empirical checks and the
privacy audits of :mod:`verify.empirical` (every paper's, discovered) run in
the chosen profile (``make verify`` uses ``default``); ``--only`` selects
statements, and with them their checks and audits.  Bad input (an unknown profile, a pattern that matches nothing,
a negative seed, an empty or unwritable directory, an unreachable scheduler or one no worker
joins within ``--worker-timeout`` seconds) prints one line to stderr, naming the option, and
exits with status 2; nothing is half-written.  A file-system error during the run (the disk
full, a read-only file system) is one line naming ``--cache`` or ``--out`` by the path that
failed (:func:`fs_error_message`), status 2.  A Dask run whose workers are all lost (none left
for ``--worker-timeout`` seconds, default 20) or whose task killed its workers stops with one line,
status 2, the finished batches kept in the cache.  Finished trials are cached by content
(:mod:`simulations.cache`), so a rerun only computes what changed; an entry that fails its
MAC (HMAC-SHA256 under the cache's own key) is recomputed, and the run says how many it rejected.

When stderr is not a terminal (no progress bars), each finished job (symbolic evaluation, audit,
calibration, figures) and each finished check prints one line on stderr.

Every run with a cache also records what it computed, in ``<cache>/timings.jsonl``: the CPU and
wall seconds of every trial batch and every job it ran, and of the main process over the run
(:mod:`verify.plan`).  ``--plan`` reads them back and prints, without running anything, the
profile's cost per check, its serial part and its projected wall time on N workers.
``--calibrate [K]`` plans a profile without running it: every check runs only the first K
trials (default 2) of each configuration (:class:`simulations.runner.calibration`), the
jobs (symbolic evaluation, audits, figures) run in full, and the plan is printed from the
timings, recorded in ``<cache>/calibration/`` (never mixed with real results).

Ctrl-C (SIGINT) or ``kill`` (SIGTERM) stops the run: the pending tasks are cancelled, the
workers stopped, the batches finished so far stay in the cache (a rerun resumes from them),
and the command prints one line and exits with status 130 (SIGINT) or 143 (SIGTERM).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import logging
import math
import os
import signal
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn

#: ``--tradeoff`` → the ``tradeoff`` argument of :func:`verify.audit.audit_samples` (None: by the rule
#: ``tradeoff_applies``)
TRADEOFF_MODES: dict[str, bool | None] = {"off": False, "on": True, "auto": None}

def _registry() -> Any:
    """:data:`bounds.registry`, built on first use: ``audit``, ``scan`` and ``--help`` never load the papers."""
    import bounds

    return bounds.registry


def profile_names() -> list[str]:
    """The profiles of ``verify/profiles.toml`` by name, read without importing :mod:`verify.empirical`
    (whose pandas and trial kernels a ``--help`` or a user's audit does not need).

    Examples
    --------
    >>> profile_names()[:2]
    ['quick', 'default']
    """
    import tomllib

    with open(Path(__file__).resolve().parent / "profiles.toml", "rb") as fh:
        return list(tomllib.load(fh))


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


def user_statistic(spec: str | None):
    """The user's statistic of ``--statistic module:attr``: a callable outputs -> (n,) floats, or a
    scikit-learn classifier (class or instance, fitted on the selection split); None when not given."""
    if spec is None:
        return None
    _, stat = _load_attr(spec, "--statistic")
    if isinstance(stat, type) and hasattr(stat, "fit"):
        try:
            stat = stat()
        except Exception as exc:
            raise ValueError(f"parameter '--statistic' = {spec!r}: cannot instantiate the classifier "
                             f"({type(exc).__name__}: {exc})") from None
    if not callable(stat) and not hasattr(stat, "fit"):
        raise ValueError(f"parameter '--statistic' = {spec!r} is neither a callable outputs -> (n,) floats "
                         "nor a classifier with fit")
    return stat


def user_audit(a: argparse.Namespace):
    """The audit of a user's mechanism (``--samples`` or ``--mechanism``) from parsed options."""
    import numpy as np

    from .audit import audit_mechanism, audit_samples

    if a.claim_eps is None:
        raise ValueError("parameter '--claim-eps' is required: the ε the mechanism claims")
    kw = dict(claim_eps=a.claim_eps, delta=a.delta, confidence=a.confidence if a.confidence is not None else 0.95,
              seed=a.seed, output=a.output, selection_fraction=a.selection_fraction,
              score=user_statistic(a.statistic),
              tradeoff=TRADEOFF_MODES["off" if a.no_tradeoff else (a.tradeoff or "off")])
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


# -- one-line errors -------------------------------------------------------------------------

class UsageError(ValueError):
    """Invalid command-line input: one line on stderr, exit status 2."""


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (a :class:`UsageError`), not a usage block."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{self.prog}: {message} (see --help)")


def _one_line(text: object) -> str:
    """``text`` on one line: control characters (a newline in an argument, say) escaped."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode("ascii") for ch in str(text))


def _error(exc: object) -> int:
    """Print ``error: <message>`` (one line) to stderr; returns the exit status 2."""
    msg = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
    _close_display()
    print(f"error: {_one_line(msg)}", file=sys.stderr)
    return 2


def _exit_status(exc: SystemExit) -> int:
    """The status of argparse's own exit (``--help``: 0)."""
    return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)


def _check_dir(opt: str, value: str) -> Path:
    """``value`` as a directory this process can write into or create; ValueError naming ``opt`` otherwise.

    Nothing is left behind: besides the permission bits, it creates and removes an empty directory
    in ``value`` (or in its nearest existing ancestor), which is what tells a read-only or virtual
    file system (``/proc``, ``/sys``) from a writable one, even for root.
    """
    if not value.strip():
        raise ValueError(f"parameter {opt!r} = {value!r} is empty: it must name a directory "
                         "(an empty path would mean the current directory)")
    if "\0" in value:
        raise ValueError(f"parameter {opt!r} = {value!r} contains a NUL character")
    p = Path(value)
    try:
        if p.exists():
            if not p.is_dir():
                raise ValueError(f"parameter {opt!r} = {value!r} is a file, not a directory")
            if not os.access(p, os.W_OK | os.X_OK):
                raise ValueError(f"parameter {opt!r} = {value!r}: the directory is not writable")
            _probe_write(opt, value, p, "the directory is not writable")
            return p
        anc = p.absolute().parent
        while not anc.exists() and anc != anc.parent:
            anc = anc.parent
        if not anc.is_dir():
            raise ValueError(f"parameter {opt!r} = {value!r} cannot be created: {str(anc)!r} is a file")
        if not os.access(anc, os.W_OK | os.X_OK):
            raise ValueError(f"parameter {opt!r} = {value!r} cannot be created: {str(anc)!r} is not writable")
        _probe_write(opt, value, anc, f"cannot be created in {str(anc)!r}")
    except OSError as exc:
        raise ValueError(f"parameter {opt!r} = {value!r} is not a usable path ({exc.strerror or exc})") from None
    return p


def _probe_write(opt: str, value: str, where: Path, what: str) -> None:
    """Create and remove an empty directory in ``where``; ValueError naming ``opt`` when that fails."""
    import tempfile

    try:
        os.rmdir(tempfile.mkdtemp(prefix=".dp-erm-probe-", dir=where))
    except OSError as exc:
        raise ValueError(f"parameter {opt!r} = {value!r}: {what} ({exc.strerror or exc})") from None


#: what an errno means for a directory given on the command line
_ERRNO_WORDS = {28: "the disk is full", 30: "the file system is read-only", 122: "the disk quota is exceeded",
                13: "permission denied", 1: "operation not permitted", 2: "no such file or directory",
                36: "a file name is too long"}


def fs_error_message(exc: OSError, paths: dict[str, str | None]) -> str:
    """One line for a file-system error, naming the option whose directory holds the failing path.

    ``paths`` maps options (``--cache``, ``--out``) to their values; the option is the one whose
    directory contains ``exc.filename`` (or ``filename2``); a path in none of them is named as
    such (the temporary directory, say).

    Examples
    --------
    >>> import errno
    >>> fs_error_message(OSError(errno.ENOSPC, "No space left on device", "/c/ab/x.pkl"), {"--cache": "/c"})
    "parameter '--cache' = '/c': cannot write '/c/ab/x.pkl': the disk is full (No space left on device)"
    """
    import tempfile

    names = [os.fsdecode(n) for n in (exc.filename, exc.filename2) if isinstance(n, (str, bytes, os.PathLike))]
    words = _ERRNO_WORDS.get(exc.errno or -1)
    why = f"{words} ({exc.strerror})" if words and exc.strerror else (exc.strerror or _one_line(exc))
    verb = "cannot write" if exc.errno in (1, 13, 28, 30, 122) else "failed on"
    for opt, value in paths.items():
        if not value:
            continue
        roots = {os.path.abspath(value), os.path.realpath(value)}
        for n in names:
            for cand in {os.path.abspath(n), os.path.realpath(n)}:
                if any(cand == r or cand.startswith(r.rstrip(os.sep) + os.sep) for r in roots):
                    return f"parameter {opt!r} = {value!r}: {verb} {n!r}: {why}"
    if names:
        tmp = tempfile.gettempdir()
        if any(os.path.abspath(n).startswith(tmp.rstrip(os.sep) + os.sep) for n in names):
            return (f"the temporary directory {tmp!r} (environment variable TMPDIR): {verb} "
                    f"{names[0]!r}: {why}")
        return f"{verb} {names[0]!r}: {why}"
    return f"file system error: {why}"


def _check_seed(seed: int) -> None:
    if seed < 0:
        raise ValueError(f"parameter '--seed' = {seed} must be an integer ≥ 0 (the entropy of a numpy SeedSequence)")


def _check_pattern(only: str | None) -> None:
    if only is not None and not only.strip():
        raise ValueError(f"parameter '--only' = {only!r} is empty: give a glob pattern or a substring of "
                         "statement keys, e.g. 'jia.*'")


# -- progress a person sees ---------------------------------------------------------------

def status_text(phase: str, groups: dict[str, list[int]] | None = None, checks: tuple[int, int] | None = None,
                batches: tuple[int, int] | None = None) -> str:
    """The one-line status of a report run: the checks done, its phase, the current grid's trial batches,
    and the jobs finished of sent per group (the most changing parts first: a narrow terminal cuts the end).

    Examples
    --------
    >>> status_text("jia.thm1:sensitivity", {"symbolic": [169, 40], "audit": [9, 9]}, (3, 50), (2, 8))
    'checks 3/50 jia.thm1:sensitivity | batches 2/8 | jobs: symbolic 40/169, audit 9/9'
    """
    parts = [phase if checks is None else f"checks {checks[0]}/{checks[1]} {phase}"]
    if batches is not None and batches[1]:
        parts.append(f"batches {batches[0]}/{batches[1]}")
    if groups:
        parts.append("jobs: " + ", ".join(f"{g} {done}/{sent}" for g, (sent, done) in groups.items()))
    return " | ".join(parts)


class RunDisplay:
    """A progress display for a report run on a terminal: one tqdm line with the elapsed time and
    :func:`status_text`, redrawn every ``interval`` seconds by a thread (so it moves while a long phase
    runs on the workers), from the moment the command starts; nothing when ``enabled`` is false (no
    terminal: the plain lines of :class:`simulations.executors.ProgressView` and of the checks instead).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> d = RunDisplay(enabled=True, stream=out, interval=60)
    >>> d.set_phase("symbolic evaluation")
    >>> d.close()
    >>> "symbolic evaluation" in out.getvalue()
    True
    >>> RunDisplay(enabled=False).enabled
    False
    """

    def __init__(self, enabled: bool, stream: Any = None, interval: float = 1.0) -> None:
        self.enabled = enabled
        self.phase = "starting"
        self.view: Any = None
        self.checks: tuple[int, int] | None = None
        self.bar: Any = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        if not enabled:
            return
        from tqdm.auto import tqdm

        import simulations.runner

        simulations.runner.OUTER_DISPLAY = True     # the grids' batches are shown here, not in bars of their own
        self.bar = tqdm(total=None, desc="verify", file=stream if stream is not None else sys.stderr,
                        bar_format="{desc} {elapsed}{postfix}", leave=False, dynamic_ncols=True)
        self.refresh()
        self._thread = threading.Thread(target=self._tick, args=(interval,), daemon=True, name="verify-progress")
        self._thread.start()

    def text(self) -> str:
        """The current status line (:func:`status_text`)."""
        from simulations.runner import batch_progress

        groups = None
        if self.view is not None:
            groups = {g: list(c) for g, c in dict(self.view.groups).items()}
        return status_text(self.phase, groups, self.checks, batch_progress())

    def refresh(self) -> None:
        if self.bar is not None:
            try:
                self.bar.set_postfix_str(self.text(), refresh=False)
                self.bar.refresh()
            except Exception:  # noqa: BLE001 - a display never stops the run
                pass

    def _tick(self, interval: float) -> None:
        while not self._stop.wait(interval):
            self.refresh()

    def set_phase(self, phase: str) -> None:
        self.phase = phase
        self.refresh()

    def write(self, line: str) -> None:
        """Print ``line`` on stderr (above the bar on a terminal)."""
        if self.bar is not None:
            self.bar.write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr, flush=True)

    def close(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
            self._thread = None
        if self.bar is not None:
            import simulations.runner

            simulations.runner.OUTER_DISPLAY = False
            self.bar.close()
            self.bar = None


def _close_display() -> None:
    """End the run's display (before a command's last lines: an error, an interruption, the summary)."""
    global _DISPLAY
    if _DISPLAY is not None:
        _DISPLAY.close()
        _DISPLAY = None


#: the display of the running report job (None outside one)
_DISPLAY: RunDisplay | None = None


def _say(line: str) -> None:
    """A progress line on stderr, above the run's display when there is one."""
    if _DISPLAY is not None:
        _DISPLAY.write(line)
    else:
        print(line, file=sys.stderr, flush=True)


def _phase(text: str) -> None:
    if _DISPLAY is not None:
        _DISPLAY.set_phase(text)


# -- interruption -----------------------------------------------------------------------------

class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM, raised in the main thread so that every ``finally`` block runs."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = int(signum)


def _signum(exc: BaseException) -> int:
    return getattr(exc, "signum", int(signal.SIGINT))


@contextlib.contextmanager
def _signals_interrupt() -> Iterator[None]:
    """Turn SIGINT and SIGTERM into :class:`Interrupted` while the block runs (main thread only).

    The first signal raises; a second one, while the run stops its workers, exits at once with
    status 128 + signal (the local workers exit with their parent).  A signal ignored when the
    command started (``nohup``, a background job) stays ignored; the previous handlers are
    restored afterwards.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    seen: list[int] = []

    def handler(signum: int, frame: Any) -> None:
        seen.append(signum)
        if len(seen) > 1:
            os._exit(128 + signum)
        raise Interrupted(signum)

    old: dict[int, Any] = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        cur = signal.getsignal(sig)
        if cur is signal.SIG_IGN or cur is None:
            continue
        old[sig] = cur
        signal.signal(sig, handler)
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)


def _interrupted(exc: BaseException, detail: str = "") -> int:
    """Print the one line of an interrupted command; returns 128 + the signal (130 for SIGINT, 143 for SIGTERM)."""
    n = _signum(exc)
    _close_display()
    print(f"interrupted by {signal.Signals(n).name}" + (f": {detail}" if detail else ""), file=sys.stderr)
    return 128 + n


def _kept_batches(cache: str | None, since: float) -> int:
    """Trial batches written into ``cache`` since ``since`` (a wall-clock time; 1 s of slack)."""
    if cache is None:
        return 0
    n = 0
    try:
        subdirs = [d for d in os.scandir(cache) if len(d.name) == 2 and d.is_dir()]
        for d in subdirs:
            for f in os.scandir(d.path):
                if f.name.endswith(".pkl") and not f.name.startswith(".") and f.stat().st_mtime >= since - 1.0:
                    n += 1
    except OSError:
        pass
    return n


# -- rejected cache entries ------------------------------------------------------------------

def _reject_logs(cache: str | None, sym_cache: str | None) -> dict[str, tuple[Path, int]]:
    """The rejection logs of the trial cache and the symbolic snapshot, with their sizes now."""
    from bounds.snapshot import REJECT_LOG as SNAP_LOG
    from simulations.cache import REJECT_LOG

    logs = {}
    if cache is not None:
        logs["trial"] = Path(cache) / REJECT_LOG
    if sym_cache is not None:
        logs["symbolic"] = Path(sym_cache) / "symbolic" / SNAP_LOG
    out = {}
    for kind, path in logs.items():
        try:
            size = path.stat().st_size
        except OSError:
            size = 0
        out[kind] = (path, size)
    return out


def _rejections(logs: dict[str, tuple[Path, int]]) -> tuple[dict[str, int], list[str]]:
    """Entries rejected since :func:`_reject_logs` (by kind), and the logs that list them."""
    from simulations.cache import read_reject_log

    counts, where = {}, []
    for kind, (path, offset) in logs.items():
        n = len(read_reject_log(path, offset))
        if n:
            counts[kind] = n
            where.append(str(path))
    return counts, where


@contextlib.contextmanager
def _quiet_cache_warnings() -> Iterator[None]:
    """Silence the per-entry warnings of the caches (the command prints one summary line instead)."""
    loggers = [logging.getLogger(n) for n in ("simulations.cache", "bounds.snapshot")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.ERROR)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, levels, strict=True):
            lg.setLevel(lv)


# -- python -m verify audit ------------------------------------------------------------------

def audit_parser() -> argparse.ArgumentParser:
    """The options of ``python -m verify audit``."""
    ap = _Parser(prog="python -m verify audit",
                 description="Lower bounds on ε: for your mechanism (--samples or --mechanism), "
                             "or for every mechanism a paper declares an audit for.")
    ap.add_argument("--json", action="store_true", help="print the result(s) as JSON")
    ap.add_argument("--samples", help="FILE.npz with arrays d0, d1: outputs on D and on D′ "
                                      "((n,) reals, (n, k) vectors or (n,) integer categories)")
    ap.add_argument("--mechanism", help="module:function (or file.py:function), release(dataset, rng, k) -> k outputs")
    ap.add_argument("--datasets", help="module:attr giving the pair (D, D′) (default: the module's NEIGHBOURS)")
    ap.add_argument("--claim-eps", type=float, help="the claimed ε")
    ap.add_argument("--delta", type=float, default=None, help="the claimed δ, in [0, 1) (default 0)")
    ap.add_argument("--n", type=float, default=None, help="releases per data set with --mechanism (default 1e5)")
    ap.add_argument("--chunk", type=float, default=None, help="releases per call of the mechanism (default 1e5)")
    ap.add_argument("--output", default=None, help="auto, scalar, categorical or vector (default auto)")
    ap.add_argument("--selection-fraction", type=float, default=None, help="share of outputs used to choose the test")
    ap.add_argument("--statistic", default=None,
                    help="module:attr (or file.py:attr): your statistic outputs -> (n,) floats, or a scikit-learn "
                         "classifier fitted on the selection split (default: chosen by the kind of output)")
    ap.add_argument("--tradeoff", choices=tuple(TRADEOFF_MODES), default=None,
                    help="the trade-off-curve line (many thresholds, a separate claim): off (default), on, or auto "
                         "(by verify.audit.tradeoff.tradeoff_applies: scalar outputs at delta > 0)")
    ap.add_argument("--no-tradeoff", action="store_true", help="the same as --tradeoff off (kept for old scripts)")
    ap.add_argument("--fail-on-violation", action="store_true", help="exit 1 when the claim is violated")
    ap.add_argument("--profile", default="default", help=f"sizes (releases per data set): {', '.join(profile_names())}")
    ap.add_argument("--only", help="glob pattern or substring of statement keys")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--confidence", type=float, default=None, help="level of the lower bounds (default: 0.95 or the "
                                                                    "profile's)")
    return ap


#: defaults of the options that apply only to a user's mechanism (None on the command line: not given)
_USER_AUDIT_DEFAULTS = {"delta": 0.0, "n": 100_000.0, "chunk": 100_000.0, "output": "auto"}


def parse_audit_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse and check the options of ``python -m verify audit`` (no audit runs).

    Raises
    ------
    ValueError
        One line naming the option and what it violates (a :class:`UsageError` from the parser).
    """
    a = audit_parser().parse_args(argv)     # --help exits here, before the auditor is imported
    from .audit.core import OUTPUT_KINDS, check_claim, check_count, check_probability

    _check_seed(a.seed)
    if a.confidence is not None:
        check_probability("--confidence", a.confidence, lo_open=True, hi_open=True)
    if a.samples is not None or a.mechanism is not None:
        if a.samples is not None and a.mechanism is not None:
            raise ValueError("parameters '--samples' and '--mechanism' exclude each other")
        if a.only is not None:
            raise ValueError("parameter '--only' selects the papers' audits; it does not apply with "
                             "--samples or --mechanism")
        if a.samples is not None and not a.samples.strip():
            raise ValueError("parameter '--samples' = '' is empty: give a FILE.npz")
        if a.statistic is not None and (":" not in a.statistic or not a.statistic.rpartition(":")[2].strip()
                                        or not a.statistic.rpartition(":")[0].strip()):
            raise ValueError(f"parameter '--statistic' = {a.statistic!r} must have the form module:attr")
        if a.mechanism is not None and (":" not in a.mechanism or not a.mechanism.rpartition(":")[2].strip()
                                        or not a.mechanism.rpartition(":")[0].strip()):
            raise ValueError(f"parameter '--mechanism' = {a.mechanism!r} must have the form module:function")
        if a.datasets is not None and a.samples is not None:
            raise ValueError("parameter '--datasets' applies with --mechanism, not with --samples")
        for opt, default in _USER_AUDIT_DEFAULTS.items():
            if getattr(a, opt) is None:
                setattr(a, opt, default)
        if a.claim_eps is None:
            raise ValueError("parameter '--claim-eps' is required: the ε the mechanism claims")
        check_claim(a.claim_eps)
        check_probability("--delta", a.delta, lo_open=False, hi_open=True)
        if a.selection_fraction is not None:
            check_probability("--selection-fraction", a.selection_fraction, lo_open=True, hi_open=True)
        if a.output not in OUTPUT_KINDS:
            raise ValueError(f"parameter '--output' = {a.output!r} must be one of {', '.join(OUTPUT_KINDS)}")
        if a.mechanism is not None:
            check_count("--n", a.n, 20)
            check_count("--chunk", a.chunk, 1)
        return a
    for opt in ("claim_eps", "datasets", *_USER_AUDIT_DEFAULTS, "selection_fraction", "fail_on_violation",
                "statistic", "no_tradeoff", "tradeoff"):
        if getattr(a, opt) is not None and getattr(a, opt) is not False:   # 0.0 == False: compare by identity
            raise ValueError(f"parameter '--{opt.replace('_', '-')}' needs --samples or --mechanism "
                             "(it does not apply to the papers' audits)")
    profiles = profile_names()
    if a.profile not in profiles:
        raise ValueError(f"parameter '--profile' = {a.profile!r} is not one of {', '.join(profiles)}")
    _check_pattern(a.only)
    if a.only is not None:
        from .empirical import select

        if not any(s.evidence == "audit" for s in select(a.only)):
            raise ValueError(f"parameter '--only' = {a.only!r} matches no audit")
    return a


def audit_main(argv: Sequence[str]) -> int:
    """``python -m verify audit``: the papers' audits, or the audit of a user's mechanism.

    ``--samples FILE.npz`` (arrays ``d0``, ``d1``: outputs on D and D′) or ``--mechanism
    module:function`` (``release(dataset, rng, k)``; data sets from ``--datasets module:attr`` or the
    module's ``NEIGHBOURS``) with ``--claim-eps E`` audits a user's mechanism; without them every
    discovered audit of the papers runs.  Bad input prints one line and exits 2.
    """
    try:
        a = parse_audit_args(argv)
    except SystemExit as exc:           # --help
        return _exit_status(exc)
    except ValueError as exc:
        return _error(exc)
    if a.samples is not None or a.mechanism is not None:
        try:
            res, info = user_audit(a)
        except ValueError as exc:
            return _error(exc)
        except Exception as exc:         # the user's code failed: one line, no traceback
            return _error(f"the mechanism raised {type(exc).__name__}: {exc}")
        if a.json:
            print(json.dumps({**res.as_dict(), **info}, indent=1, ensure_ascii=False))
        else:
            pv = "p < 1e-300" if res.p_value is not None and res.p_value < 1e-300 else f"p = {res.p_value:.3g}"
            print(f"ε_lower = {res.eps_lower:.4f} at {res.confidence:.0%} confidence "
                  f"(n0 = {res.n0}, n1 = {res.n1}, {res.details['output']} outputs, statistic: "
                  f"{res.details['statistic']}; test: {res.details['event']}, best of {res.details['tests']})")
            print(f"claimed ε = {res.claim_eps:g}" + (f", δ = {res.delta:g}" if res.delta else "")
                  + f": {res.verdict} (margin ε_lower − ε = {res.margin:+.4f}, {pv})")
            print(f"what this means: {res.meaning()}")
            if res.tradeoff_line():
                print(res.tradeoff_line())
        return 1 if a.fail_on_violation and res.verdict == "violated" else 0
    try:
        rows = papers_audit(a)
    except ValueError as exc:
        return _error(exc)
    if a.json:
        print(json.dumps([r.as_row() for r in rows], indent=1, ensure_ascii=False, default=str))
    else:
        for r in rows:
            if r.details.get("sweep"):
                continue
            em = r.details.get("eps_max")
            seen = (f"  (this n could have detected ε up to {em:.3g})" if r.verdict != "violated" and em is not None
                    and math.isfinite(em) else "")
            print(audit_line(r) + seen)
    return 0


def audit_line(r: Any) -> str:
    """One ``verify audit`` line: the key (``(client)`` / ``(auditor)`` for rows of key ``""``), the name
    (a client row's name starts with the client's), the claim, ε_lower and the verdict.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> r = NS(key="", name="c1: recorded outputs", bound=1.0, statistic=1.5, confidence=0.95, verdict="violated",
    ...        details={"client": True})
    >>> audit_line(r)
    '(client)       c1: recorded outputs       claimed ε=1     ε_lower=   1.500 (95%)  violated'
    """
    key = r.key or ("(client)" if r.details.get("client") else "(auditor)")
    return (f"{key:<14} {r.name:<26} claimed ε={r.bound:<5g} "
            f"ε_lower={r.statistic:8.3f} ({r.confidence:.0%})  {r.verdict}")


def papers_audit(a: argparse.Namespace) -> list:
    """The rows of the papers' audits selected by checked options ``a`` (:func:`parse_audit_args`)."""
    from dataclasses import replace

    from .audit import calibration_audits, client_audits
    from .empirical import PROFILES, Context, run_checks, select

    prof = PROFILES[a.profile] if a.confidence is None else replace(PROFILES[a.profile], confidence=a.confidence)
    specs = [s for s in select(a.only) if s.evidence == "audit"]
    rows = [] if a.only else [*calibration_audits(prof.n_audit, a.seed, prof.confidence),
                              *client_audits(a.seed, prof.confidence)]
    rows += run_checks(Context(prof, seed=a.seed, executor="serial"), specs=specs)
    return rows


# -- python -m verify where / scan --------------------------------------------------------------

def where_main(argv: Sequence[str]) -> int:
    """``python -m verify where KEY``: where a statement is stated, derived, simulated, checked and drawn."""
    ap = _Parser(prog="python -m verify where",
                 description="Where is a statement encoded, checked, simulated, audited and drawn?")
    ap.add_argument("key", help="statement key, e.g. the label of a theorem prefixed by its paper id")
    ap.add_argument("--reports", default="reports", help="report directory to look for figures (default: reports)")
    ap.add_argument("--json", action="store_true")
    try:
        a = ap.parse_args(argv)
        if not a.reports.strip() or "\0" in a.reports:
            raise ValueError(f"parameter '--reports' = {a.reports!r} must name a directory")
        _registry().get(a.key)              # an unknown key: KeyError with suggestions, before any work
    except SystemExit as exc:
        return _exit_status(exc)
    except (KeyError, ValueError) as exc:
        return _error(exc)
    from .where import locate, render

    try:
        info = locate(a.key, reports=a.reports)
    except (KeyError, ValueError) as exc:
        return _error(exc)
    if a.json:
        print(json.dumps(info, indent=1, ensure_ascii=False))
    else:
        print(render(info))
    return 0


def scan_main(argv: Sequence[str]) -> int:
    """``python -m verify scan [DIR]``: exit 1 listing every meaningless number in the report at DIR."""
    from .scan import scan_report

    ap = _Parser(prog="python -m verify scan", description="List the meaningless numbers of a generated report.")
    ap.add_argument("dir", nargs="?", default="reports", help="report directory (default: reports)")
    try:
        a = ap.parse_args(argv)
        if not a.dir.strip() or "\0" in a.dir:
            raise ValueError(f"parameter 'DIR' = {a.dir!r} must name a report directory")
        out = Path(a.dir)
        if not (out / "REPORT.md").is_file() or not (out / "summary.json").is_file():
            raise ValueError(f"parameter 'DIR' = {str(out)!r} holds no generated report (REPORT.md, summary.json)")
    except SystemExit as exc:
        return _exit_status(exc)
    except ValueError as exc:
        return _error(exc)
    problems = scan_report(out)
    for p in problems:
        print(p)
    print(f"scan {out}: {len(problems)} meaningless numbers")
    return 1 if problems else 0


# -- python -m verify ---------------------------------------------------------------------------

def report_parser() -> argparse.ArgumentParser:
    """The options of ``python -m verify``."""
    from simulations.executors import WORKER_TIMEOUT_S

    from .plan import DEFAULT_WORKERS

    ap = _Parser(prog="python -m verify", description="Regenerate reports/.")
    from bounds.report_io import toolkit_version

    ap.add_argument("--version", action="version", version=f"dp-erm-verify {toolkit_version()}",
                    help="print the toolkit's version (the one a report records) and exit")
    ap.add_argument("--out", default="reports", help="output directory (default: reports)")
    ap.add_argument("--only", help="glob pattern or substring of statement keys, e.g. 'jia.*'")
    ap.add_argument("--profile", default="default", help=f"empirical sizes: {', '.join(profile_names())} (default: default)")
    ap.add_argument("--executor", default="local", help="serial, local (all cores; default) or dask")
    ap.add_argument("--scheduler", help="Dask scheduler address (with --executor dask)")
    ap.add_argument("--worker-timeout", type=float, default=None,
                    help=f"seconds to wait for a Dask worker, at the start and whenever none is left mid-run; "
                         f"the run then stops with one line (default {WORKER_TIMEOUT_S:g})")
    ap.add_argument("--seed", type=int, default=0, help="root seed of every Monte Carlo run (default 0)")
    ap.add_argument("--cache", default=".cache/trials",
                    help="directory of finished trials, reused by later runs (default: .cache/trials)")
    ap.add_argument("--no-cache", action="store_true", help="recompute every trial")
    ap.add_argument("--no-picks", action="store_true", help="skip the ε/λ table")
    ap.add_argument("--svg", action="store_true", help="also write SVG copies of the figures (default: PNG only; "
                    "the same as DP_ERM_VERIFY_SVG=1, seen by local workers, not by remote Dask workers)")
    ap.add_argument("--no-empirical", action="store_true", help="symbolic checks only")
    ap.add_argument("--plan", action="store_true",
                    help="run nothing: print the profile's measured cost and projected wall time, from the "
                         "timings a run recorded in --cache")
    ap.add_argument("--workers", type=int, nargs="+", default=None, metavar="N",
                    help=f"with --plan: worker counts to project (default: this machine's cores, "
                         f"{', '.join(map(str, DEFAULT_WORKERS))})")
    ap.add_argument("--json", action="store_true", help="with --plan or --calibrate: print the plan as JSON")
    ap.add_argument("--calibrate", type=int, nargs="?", const=CALIBRATE_TRIALS, default=None, metavar="K",
                    help="plan the profile from a short run: K trials per configuration (default "
                         f"{CALIBRATE_TRIALS}) scaled to the profile's batches, the jobs in full; timings in "
                         "<cache>/calibration, no report written")
    return ap


def _check_whole_profile(a: argparse.Namespace, mode: str, where: str) -> None:
    """Options of ``--plan`` / ``--calibrate``, which are of a whole profile: no ``--only``, a cache,
    the empirical checks, and worker counts of at least 1 (ValueError naming the option)."""
    for opt, bad in (("--only", a.only is not None), ("--no-cache", a.no_cache),
                     ("--no-empirical", a.no_empirical)):
        if bad:
            raise ValueError(f"parameter {opt!r} does not apply with {mode} (the plan is of a whole profile, "
                             f"{where})")
    for n in a.workers or []:
        if n < 1:
            raise ValueError(f"parameter '--workers' = {n} must be at least 1")


def parse_report_args(argv: Sequence[str]) -> argparse.Namespace:
    """Parse and check the options of ``python -m verify`` (nothing runs, nothing is created).

    Raises
    ------
    ValueError
        One line naming the option and what it violates (a :class:`UsageError` from the parser).
    """
    from simulations.executors import EXECUTORS

    a = report_parser().parse_args(argv)
    profiles = profile_names()
    if a.profile not in profiles:
        raise ValueError(f"parameter '--profile' = {a.profile!r} is not one of {', '.join(profiles)}")
    if a.executor not in EXECUTORS:
        raise ValueError(f"parameter '--executor' = {a.executor!r} is not one of {', '.join(EXECUTORS)}")
    if a.scheduler is not None:
        if a.executor != "dask":
            raise ValueError(f"parameter '--scheduler' applies only with --executor dask (not {a.executor!r})")
        if not a.scheduler.strip() or "\0" in a.scheduler:
            raise ValueError(f"parameter '--scheduler' = {a.scheduler!r} is not an address, e.g. tcp://host:8786")
    if a.worker_timeout is not None:
        if a.executor != "dask":
            raise ValueError(f"parameter '--worker-timeout' applies only with --executor dask (not {a.executor!r})")
        if not (math.isfinite(a.worker_timeout) and a.worker_timeout > 0):
            raise ValueError(f"parameter '--worker-timeout' = {a.worker_timeout!r} must be a positive number of "
                             "seconds")
    _check_seed(a.seed)
    if a.calibrate is not None:
        if a.plan:
            raise ValueError("parameter '--calibrate' runs a calibration and prints its plan: drop --plan")
        if a.calibrate < 1:
            raise ValueError(f"parameter '--calibrate' = {a.calibrate} must be at least 1 (trials per configuration)")
        _check_whole_profile(a, "--calibrate", "its timings go to <cache>/calibration")
        _check_dir("--cache", a.cache)
        return a
    if a.plan:
        _check_whole_profile(a, "--plan", "from the timings in --cache")
        if not a.cache.strip() or "\0" in a.cache:
            raise ValueError(f"parameter '--cache' = {a.cache!r} must name the cache directory of a run")
        return a
    for opt, bad in (("--workers", a.workers is not None), ("--json", a.json)):
        if bad:
            raise ValueError(f"parameter {opt!r} applies only with --plan")
    _check_dir("--out", a.out)
    if not a.no_cache:
        _check_dir("--cache", a.cache)
    _check_pattern(a.only)
    if a.only is not None and not _only(a.only):
        raise ValueError(f"parameter '--only' = {a.only!r} matches no statement")
    return a


def main(argv: Sequence[str] | None = None) -> int:
    """Run the report job (or ``--plan``, ``audit``, ``where``, ``scan``); returns the exit status.

    Bad input: one line on stderr, status 2.  SIGINT / SIGTERM: one line, status 130 / 143.
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    with _signals_interrupt():
        try:
            if argv == ["--version"]:       # answered before the report's modules are imported
                from bounds.report_io import toolkit_version

                print(f"dp-erm-verify {toolkit_version()}")
                return 0
            if argv[:1] == ["audit"]:
                return audit_main(argv[1:])
            if argv[:1] == ["where"]:
                return where_main(argv[1:])
            if argv[:1] == ["scan"]:
                return scan_main(argv[1:])
            try:
                a = parse_report_args(argv)
            except SystemExit as exc:       # --help
                return _exit_status(exc)
            except ValueError as exc:
                return _error(exc)
            if getattr(a, "svg", False):    # before any worker starts: local workers inherit it
                os.environ["DP_ERM_VERIFY_SVG"] = "1"
            global _DISPLAY
            if not a.plan and _DISPLAY is None:
                # on a terminal, a display from the first second (the imports and the papers take seconds)
                _DISPLAY = RunDisplay(enabled=sys.stderr.isatty())
                _DISPLAY.set_phase("loading the papers and the workers")
            try:
                if a.calibrate is not None:
                    return calibrate_main(a)
                return plan_main(a) if a.plan else run_report(a)
            except OSError as exc:          # a file-system error outside the run's own handling
                return _error(fs_error_message(exc, _path_options(a)))
            finally:
                _close_display()
        except KeyboardInterrupt as exc:
            return _interrupted(exc)


def run_report(a: argparse.Namespace, tags: dict[str, Any] | None = None) -> int:
    """The report job for checked options ``a`` (:func:`parse_report_args`); returns the exit status.

    ``tags`` are added to every timing record of the run (``--calibrate`` tags its runs).
    """
    import tempfile
    from concurrent.futures.process import BrokenProcessPool

    from simulations.cache import timing_tags
    from simulations.executors import ProgressView, WorkersLost, get_executor, quiet_dask_logs

    from .plan import TimingExecutor
    from .report import evaluate_symbolic, use_symbolic_cache, write_report

    t0 = time.perf_counter()
    usage0 = _rusage()
    started = time.time()
    ex = None
    prog = None
    sym_tmp = None
    cache = None if a.no_cache else a.cache
    results: list = []
    utility = None
    calibration = None
    tags = {"run": f"{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}", "profile": a.profile, "seed": a.seed,
            **(tags or {})}
    timed = None
    with contextlib.ExitStack() as stack:
        stack.enter_context(_quiet_cache_warnings())
        # every trial batch and job of the run is timed into <cache>/timings.jsonl (verify.plan)
        scope = stack.enter_context(timing_tags(**tags))
        try:
            # --no-cache: the symbolic evaluations still go through a snapshot, a fresh one in a
            # temporary directory, so the workers can compute them in parallel
            sym_tmp = tempfile.TemporaryDirectory(prefix="dp-erm-symbolic-") if a.no_cache else None
            sym_cache = sym_tmp.name if sym_tmp is not None else a.cache
            use_symbolic_cache(sym_cache)
            logs = _reject_logs(cache, sym_cache)
            run_info: dict[str, Any] = {"profile": a.profile, "seed": a.seed}
            sym_keys = sorted(_only(a.only)) if a.only else None
            if a.executor == "dask":
                quiet_dask_logs()           # stderr ends with the command's own line, even at exit
            ex = get_executor(a.executor, scheduler=a.scheduler, worker_timeout=a.worker_timeout)
            run_info["executor"] = ex.describe()
            # a line on stderr per finished job when stderr is not a terminal (no bars there)
            prog = ProgressView(ex, label=_job_name, enabled=not sys.stderr.isatty())
            if _DISPLAY is not None:
                _DISPLAY.view = prog        # the display counts the jobs the view sees
            timed = TimingExecutor(prog, cache, tags) if cache is not None else None
            jobs_ex = timed if timed is not None else prog
            if a.no_empirical:
                _phase("symbolic evaluation")
                _wait_all(evaluate_symbolic(sym_cache, jobs_ex, sym_keys), "symbolic evaluation", sym_keys)
            else:
                results, utility, calibration = _empirical(a, ex, cache, sym_cache, sym_keys, jobs_ex)
            run_info["empirical_wall_time_s"] = round(time.perf_counter() - t0, 1)
            counts, where = _rejections(logs)
            if counts:
                what = ", ".join(f"{n} {kind}" for kind, n in counts.items())
                line = (f"rejected {sum(counts.values())} cache entries that failed their check ({what}: edited, "
                        f"damaged, of an older format or under another key) and recomputed them; "
                        f"listed in {', '.join(where)}")
                _say(f"cache: {line}")
                run_info["cache_rejected"] = line
            _phase("report and figures")
            paths = write_report(a.out, only=a.only, picks=not a.no_picks, empirical=results, run_info=run_info,
                                 utility=utility, audits=calibration, cache=cache,
                                 symbolic_cache=sym_cache, executor=jobs_ex)
        except KeyboardInterrupt as exc:
            if prog is not None:
                prog.terminate()            # no job lines after this: the run's own line is the last
            if ex is not None:
                ex.terminate()
                ex = None
            n = _kept_batches(cache, started)
            kept = (f"{n} batch{'es' if n != 1 else ''} kept in the cache {cache}; rerun to resume"
                    if cache is not None else "nothing kept (--no-cache)")
            return _interrupted(exc, kept)
        except (WorkersLost, BrokenProcessPool) as exc:   # workers gone: one line, the finished batches kept
            if prog is not None:
                prog.terminate()
            if ex is not None:
                ex.terminate()
                ex = None
            if isinstance(exc, BrokenProcessPool):         # a job's future of a broken local pool
                exc = WorkersLost.from_broken_pool(exc)
            n = _kept_batches(cache, started)
            kept = (f"{n} batch{'es' if n != 1 else ''} kept in the cache {cache}; rerun to resume"
                    if cache is not None else "nothing kept (--no-cache)")
            return _error(f"{exc}; {kept}")
        except (ValueError, OSError) as exc:
            if prog is not None:
                prog.terminate()
            if ex is not None:
                ex.terminate()              # no need to wait for the running tasks of a failed run
                ex = None
            if isinstance(exc, OSError) and not isinstance(exc, ValueError):
                return _error(fs_error_message(exc, _path_options(a)))
            return _error(exc)
        finally:
            if ex is not None:
                ex.close()
            if sym_tmp is not None:
                sym_tmp.cleanup()
    from bounds.evidence import STATUSES, VERDICTS

    _close_display()
    registry = _registry()
    keys = registry.keys()
    sel = _only(a.only) if a.only else set(keys)
    tally = Counter(registry.evaluate(k).shown_status for k in keys if k in sel)
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
    print("derivation: " + ", ".join(f"{tally.get(s, 0)} {s}" for s in (*STATUSES, "placeholder")
                                     if s in STATUSES or tally.get(s))
          + "; empirical: " + ", ".join(f"{et.get(v, 0)} {v}" for v in VERDICTS)
          + "; audits: " + ", ".join(f"{at.get(v, 0)} {v}" for v in VERDICTS)
          + f"  ({time.perf_counter() - t0:.0f} s)")
    if cache is not None and timed is not None and not a.only and not a.no_empirical:
        _record_run(cache, tags, timed, scope.grids, time.perf_counter() - t0, usage0)
    return 0


def _path_options(a: argparse.Namespace) -> dict[str, str | None]:
    """The directory options of a report run and their values (what a file-system error is blamed on)."""
    out = None if getattr(a, "temporary_out", False) else getattr(a, "out", None)
    cache = None if getattr(a, "no_cache", False) else getattr(a, "cache", None)
    return {"--cache": cache, "--out": out}


def _job_name(fn: Any, item: Any, index: int = 0) -> str:
    """The label of a job for progress lines (a :class:`verify.plan.TimedJob` carries its own)."""
    from .plan import job_label

    if hasattr(fn, "label"):
        return str(fn.label)
    if isinstance(item, tuple) and len(item) == 2 and hasattr(item[0], "label"):
        return str(item[0].label)
    return job_label(fn, item, index)[0]


def _rusage() -> tuple[float, float, float | None]:
    """User + system CPU seconds of this process, of its reaped child processes, and of the whole
    machine (every process, from ``/proc/stat``; None where there is none)."""
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        with open("/proc/stat", encoding="ascii") as fh:
            f = [int(x) for x in fh.readline().split()[1:]]
        machine = (sum(f[:3]) + sum(f[5:8])) / os.sysconf("SC_CLK_TCK")   # all but idle and iowait
    except (OSError, ValueError, IndexError):
        machine = None
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, machine


def _record_run(cache: str, tags: dict[str, Any], timed: Any, grids: list, wall: float,
                usage0: tuple[float, float, float | None]) -> None:
    """Append the record of a finished run of a whole profile to ``<cache>/timings.jsonl`` (:mod:`verify.plan`).

    Besides its own CPU and its workers', the run records the CPU the whole machine spent meanwhile
    (``machine_cpu_s``), so that a plan can tell a measured wall time slowed by other processes.
    """
    from simulations.cache import record_timing

    me, kids, machine = _rusage()
    busy = None if machine is None or usage0[2] is None else round(machine - usage0[2], 3)
    record_timing(cache, {**tags, "kind": "run", "executor": timed.describe(), "workers": timed.workers,
                          "cores": os.cpu_count(), "wall_s": round(wall, 3), "main_cpu_s": round(me - usage0[0], 3),
                          "children_cpu_s": round(kids - usage0[1], 3), "machine_cpu_s": busy,
                          "grids": grids, "jobs": timed.jobs, "t": round(time.time(), 3)})


#: trials per configuration of ``--calibrate`` without K
CALIBRATE_TRIALS = 2
#: where ``--calibrate`` records its timings, under ``--cache``
CALIBRATION_DIR = "calibration"


def calibrate_main(a: argparse.Namespace) -> int:
    """``python -m verify --profile P --calibrate [K]``: a calibration run, then its plan (see :func:`plan_main`).

    The run is the report job inside :class:`simulations.runner.calibration` (K trials per
    configuration, every batch's timing estimated from them), its trial cache and symbolic
    snapshot in ``<cache>/calibration`` (emptied first, so that every job is timed from cold; only
    ``timings.jsonl`` is kept) and its report in a temporary directory that is then deleted.  A
    check that cannot finish on its sampled rows is reported on stderr and skipped: its later
    grids are then missing from the plan (the plan says how many checks stopped).
    """
    import shutil
    import tempfile

    from simulations.cache import TIMINGS
    from simulations.runner import calibration

    cal = Path(a.cache) / CALIBRATION_DIR
    try:
        cal.mkdir(parents=True, exist_ok=True)
        for entry in cal.iterdir():         # cold: no rows, no snapshot, no figures; the timings stay
            if entry.name != TIMINGS:
                shutil.rmtree(entry) if entry.is_dir() and not entry.is_symlink() else entry.unlink()
        with tempfile.TemporaryDirectory(prefix="dp-erm-calibrate-") as out:
            # the report goes to a temporary directory: a failure there is not --out's
            b = argparse.Namespace(**{**vars(a), "cache": str(cal), "out": out, "only": None, "no_cache": False,
                                      "no_empirical": False, "temporary_out": True})
            with calibration(a.calibrate):
                status = run_report(b, tags={"calibration": int(a.calibrate)})
    except OSError as exc:
        return _error(fs_error_message(exc, _path_options(a)))
    if status != 0:
        return status
    return plan_main(argparse.Namespace(**{**vars(a), "cache": str(cal), "plan": True}))


def plan_main(a: argparse.Namespace) -> int:
    """``python -m verify --plan``: the measured plan of ``--profile`` from ``--cache``'s timings (nothing runs).

    Prints the plan (text or ``--json``) and returns 0; without a recorded run of the profile,
    one line on stderr saying what to run, and status 1.
    """
    from .plan import DEFAULT_WORKERS, NoTimings, build_plan

    try:
        plan = build_plan(a.cache, a.profile, a.seed)
    except NoTimings as exc:
        try:                                # no measured run: a calibration's estimate, if there is one
            plan = build_plan(Path(a.cache) / CALIBRATION_DIR, a.profile, a.seed)
        except NoTimings:
            print(f"plan: {_one_line(exc)}; or estimate it: python -m verify --profile {a.profile} "
                  "--calibrate", file=sys.stderr)
            return 1
    workers = sorted(set(a.workers or [os.cpu_count() or 1, *DEFAULT_WORKERS]))
    if a.json:
        print(json.dumps(plan.as_dict(workers), indent=1, ensure_ascii=False))
    else:
        print(plan.render(workers))
    return 0


def _empirical(a: argparse.Namespace, ex: Any, cache: str | None, sym_cache: str,
               sym_keys: list[str] | None, jobs_ex: Any = None) -> tuple[list, Any, Any]:
    """The empirical checks, audits and calibration of the report job, on ``ex``; returns (rows, utility, calibration).

    The whole jobs (symbolic evaluation, audits, calibration) go through ``jobs_ex`` (default
    ``ex``; the report job passes a :class:`verify.plan.TimingExecutor` view of it).
    """
    from simulations.cache import timing_tags

    from .empirical import PROFILES, Context, run_spec, select
    from .report import evaluate_symbolic

    t0 = time.perf_counter()
    specs = select(a.only)
    ctx = Context(PROFILES[a.profile], seed=a.seed, executor=ex, cache=cache)
    utility = calibration = None
    try:
        # whole jobs first (the statements' symbolic evaluation, every audit, the auditor's
        # calibration): they run on the workers while this process dispatches the trials
        # of the empirical checks, which queue behind them on the same pool
        jobs_ex = ex if jobs_ex is None else jobs_ex
        sym = evaluate_symbolic(sym_cache, jobs_ex, sym_keys)
        jobs: dict[Any, Any] = {name: jobs_ex.submit(fn, task)
                                for name, (fn, task) in whole_audit_jobs(a, ctx.profile, cache, specs).items()}
        by_spec: dict[int, list] = {}
        checks = [(i, s) for i, s in enumerate(specs) if s.evidence != "audit"]
        for n, (i, spec) in enumerate(checks, 1):
            t2 = time.perf_counter()
            _phase(spec.name)
            if _DISPLAY is not None:
                _DISPLAY.checks = (n - 1, len(checks))
            with timing_tags(check=spec.name):
                by_spec[i] = _run_check(spec.name, functools.partial(run_spec, spec=spec), ctx, [])
            # one line per finished check, terminal or not (a file gets no bar)
            _say(f"  check {n} of {len(checks)}: {spec.name} ({time.perf_counter() - t2:.1f} s, "
                 f"{time.perf_counter() - t0:.0f} s since start)")
        if _DISPLAY is not None:
            _DISPLAY.checks = None
        if not a.only:
            from .utility import run_utility

            t2 = time.perf_counter()
            _phase("privacy-utility")
            with timing_tags(check="privacy-utility"):
                utility = _run_check("privacy-utility", run_utility, ctx)
            _say(f"  privacy-utility ({time.perf_counter() - t2:.1f} s)")
        _phase("waiting for the audits and the symbolic evaluation")
        for name, fut in jobs.items():
            if name == "auditor calibration":
                calibration = fut.result()
            elif name == "client audits":
                calibration = [*(calibration or []), *fut.result()]
            else:
                by_spec[name] = fut.result()
        results = [r for i in sorted(by_spec) for r in by_spec[i]]   # registry order
        _say(f"  audits and calibration done ({time.perf_counter() - t0:.1f} s since start)")
        _wait_all(sym, "symbolic evaluation", sym_keys)
    finally:
        ctx.close()
    return results, utility, calibration


def whole_audit_jobs(a: argparse.Namespace, profile: Any, cache: str | None, specs: list) -> dict[Any, tuple]:
    """The audit jobs of the report job, in submission order: name → ``(function, task)``.

    One per audit spec (named by its index in ``specs``) and, without ``--only``, the auditor's
    calibration (``"auditor calibration"``) and the recorded clients' audits (``"client audits"``,
    :mod:`verify.audit.clients`: rows of key ``""``, beside the calibration's).

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> from verify.empirical import PROFILES
    >>> list(whole_audit_jobs(NS(only=None, seed=0), PROFILES["quick"], None, []))
    ['auditor calibration', 'client audits']
    """
    from .empirical.jobs import audit_job, calibration_job, client_job

    jobs: dict[Any, tuple] = {i: (audit_job, (profile, a.seed, cache, spec))
                              for i, spec in enumerate(specs) if spec.evidence == "audit"}
    if not a.only:
        jobs["auditor calibration"] = (calibration_job, (profile.n_audit, a.seed, profile.confidence))
        jobs["client audits"] = (client_job, (a.seed, profile.confidence))
    return jobs


def _run_check(name: str, run: Any, ctx: Any, failed: Any = None) -> Any:
    """``run(ctx)``; in a calibration run, a check that fails on its sampled rows is reported on stderr
    and gives ``failed`` instead (its later grids are not planned)."""
    from simulations.runner import calibrating

    if calibrating() is None:
        return run(ctx)
    try:
        return run(ctx)
    except Exception as exc:  # noqa: BLE001 - a sample of k trials per configuration is not a result
        print(f"  calibration: {name} stopped on its sampled rows ({_one_line(exc)}); its later grids are "
              "not in the plan", file=sys.stderr)
        return failed


def _wait_all(futures: Sequence, what: str, keys: Sequence[str] | None = None) -> None:
    """Wait for ``futures`` (the symbolic evaluation's jobs, one per statement or group of statements) and
    say how many jobs there were and how many papers their statements (``keys``, default every one) are of."""
    t = time.perf_counter()
    for f in futures:
        f.result()
    if futures:
        _say(f"  {what}: {closing_count(len(futures), keys if keys is not None else _registry().keys())} "
             f"({time.perf_counter() - t:.1f} s waited)")


def closing_count(jobs: int, keys: Sequence[str]) -> str:
    """``N jobs (P papers)``: jobs counted as jobs and papers as papers (a statement key starts with its paper id).

    Examples
    --------
    >>> closing_count(117, ["jia.thm2", "jia.thm4", "cms.alg1.beta"])
    '117 jobs (2 papers)'
    >>> closing_count(1, ["ttz.fw.scale"])
    '1 job (1 paper)'
    """
    papers = len({k.split(".", 1)[0] for k in keys})
    return f"{jobs} job{'s' if jobs != 1 else ''} ({papers} paper{'s' if papers != 1 else ''})"


def _only(pattern: str) -> set[str]:
    from bounds.core import keys_matching

    return set(keys_matching(_registry(), pattern))
