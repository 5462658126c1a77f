"""The trial runner: many independent trials of one experiment, reproducibly, on any executor.

A *trial function* is a module-level (picklable) callable::

    def trial(config: Mapping[str, Any], rng: numpy.random.Generator) -> Mapping[str, float]

It draws a data set, fits, releases, measures, and returns named numbers.  A
trial whose solver certificate exceeds its tolerance raises
:class:`~simulations.solvers.CertificateError`; the runner then *rejects* it:
its row has ``rejected = 1`` (and ``reject_reason``) and no measurements, so
a check can drop it and report how many it dropped.  Trials run with one BLAS
thread (threadpoolctl) on every executor, so that their rounding, and hence
their numbers, are the same everywhere.  A trial
may vectorise internally (for example many noise draws on one fitted
model, reusing its factorisation) and report their averages.

:func:`run_trials` runs ``n_trials`` trials of one configuration and
:func:`run_grid` many configurations (one sweep over m, say) in one pool.
Seeds: the configuration's seed sequence is ``SeedSequence(seed,
spawn_key=(h,))`` with ``h`` a stable hash of the configuration; trial ``i``
uses its ``i``-th spawned child.  So trial ``i`` of a configuration gets the
same numbers on every executor, in every batch size, and whether or not other
configurations run beside it.

Examples
--------
>>> from simulations.runner import run_trials, uniform_trial
>>> df = run_trials(uniform_trial, {"n": 3}, n_trials=4, seed=1, executor="serial")
>>> list(df.columns)
['trial', 'mean', 'max', 'rejected']
>>> df.equals(run_trials(uniform_trial, {"n": 3}, n_trials=4, seed=1, batch_size=3))
True
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import socket
import sys
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .cache import KEY_CHARS, TrialCache, next_seq, note_grid, record_timing
from .executors import Executor, SerialExecutor, get_executor

TrialFn = Callable[[Mapping[str, Any], np.random.Generator], Mapping[str, Any]]


class ConfigError(ValueError, KeyError):
    """A trial configuration lacks a key, or has one the trial does not read (a ValueError)."""

    def __str__(self) -> str:  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


@dataclass(frozen=True)
class TrialSpec:
    """What a trial function reads from its configuration (declared with :func:`trial`)."""

    requires: tuple[str, ...] = ()
    optional: tuple[str, ...] = ()
    artefacts: tuple[str, ...] = ()
    cost: Callable[[Mapping[str, Any]], float] | None = None


#: CPU seconds a task (one batch of trials) should not exceed when its trial declares a cost
TASK_TARGET_S = 15.0


def trial(requires: Sequence[str] = (), optional: Sequence[str] = (),
          artefacts: Sequence[str] = (),
          cost: Callable[[Mapping[str, Any]], float] | None = None) -> Callable[[TrialFn], TrialFn]:
    """Declare a trial function's configuration keys (and the artefacts it returns).

    The function is returned unchanged (so it still pickles by name); the runner
    validates every configuration against the declaration before any trial runs.
    ``artefacts`` names outputs that are not numbers (a worst neighbouring pair, say):
    they are kept in the rows as objects, for an audit to reuse.  ``cost(config)``, if given,
    estimates the CPU seconds of one trial (measured: ``python -m verify --plan``); the runner
    then puts at most ``TASK_TARGET_S / cost`` trials in a task, so that a large configuration
    becomes many tasks.  The estimate depends only on the configuration, so the batches (and
    the cache keys) are the same in every run; it never changes a result.

    Examples
    --------
    >>> from simulations.runner import trial, validate_config
    >>> @trial(requires=("m",), optional=("lam",))
    ... def demo_trial(config, rng):
    ...     return {"x": float(config["m"])}
    >>> validate_config(demo_trial, {"lam": 0.1})
    Traceback (most recent call last):
    ...
    simulations.runner.ConfigError: trial demo_trial: configuration lacks key 'm' (requires m; optional lam)
    """

    def deco(fn: TrialFn) -> TrialFn:
        fn.__trial_spec__ = TrialSpec(tuple(requires), tuple(optional), tuple(artefacts), cost)  # type: ignore[attr-defined]
        return fn

    return deco


def trial_spec(fn: Callable[..., Any]) -> TrialSpec | None:
    """The :class:`TrialSpec` declared for ``fn`` (None if undeclared)."""
    return getattr(fn, "__trial_spec__", None)


def validate_config(fn: Callable[..., Any], config: Mapping[str, Any]) -> None:
    """Check ``config`` against the keys ``fn`` declares (nothing to check for an undeclared function).

    Raises
    ------
    ConfigError
        A ValueError naming the trial, the missing or unknown key and what the trial reads.
    """
    spec = trial_spec(fn)
    if spec is None:
        return
    name = getattr(fn, "__qualname__", repr(fn))
    reads = f"requires {', '.join(spec.requires) or 'nothing'}; optional {', '.join(spec.optional) or 'nothing'}"
    for k in spec.requires:
        if k not in config:
            raise ConfigError(f"trial {name}: configuration lacks key {k!r} ({reads})")
    known = set(spec.requires) | set(spec.optional)
    for k in config:
        if k not in known:
            raise ConfigError(f"trial {name}: configuration has unknown key {k!r} ({reads})")


class TrialConfig(dict):
    """A trial's configuration: a dict whose missing keys raise :class:`ConfigError`, naming the trial."""

    trial_name: str = ""

    def __missing__(self, key: str) -> Any:
        raise ConfigError(f"trial {self.trial_name}: configuration lacks key {key!r} "
                          f"(has {', '.join(sorted(map(str, self))) or 'no keys'})")

    def __reduce__(self):
        return (_make_config, (dict(self), self.trial_name))


def _make_config(d: dict, name: str) -> TrialConfig:
    c = TrialConfig(d)
    c.trial_name = name
    return c


def config_hash(config: Mapping[str, Any]) -> int:
    """A stable 32-bit hash of a JSON-able configuration (independent of key order and process)."""
    blob = json.dumps(config, sort_keys=True, default=repr).encode()
    return int.from_bytes(hashlib.sha256(blob).digest()[:4], "little")


def trial_seeds(config: Mapping[str, Any], n_trials: int, seed: int = 0) -> list[np.random.SeedSequence]:
    """The per-trial seed sequences of a configuration (see the module docstring).

    Examples
    --------
    >>> a = trial_seeds({"m": 10}, 3, seed=0)
    >>> b = trial_seeds({"m": 10}, 5, seed=0)
    >>> [s.generate_state(1)[0] for s in a] == [s.generate_state(1)[0] for s in b[:3]]
    True
    """
    if n_trials < 0:
        raise ValueError(f"parameter 'n_trials' = {n_trials!r} must be non-negative")
    root = np.random.SeedSequence(int(seed), spawn_key=(config_hash(config),))
    return root.spawn(int(n_trials))


_THREADPOOLS: tuple[int, Any] | None = None


def _one_blas_thread() -> Any:
    """A context manager limiting every BLAS/OpenMP pool of this process to one thread.

    Like ``threadpool_limits(1)``, but the controller (a scan of the loaded shared libraries,
    ~10 ms) is built once per process and rebuilt only when modules were imported since, which
    is when a new library can have been loaded.
    """
    global _THREADPOOLS
    from threadpoolctl import ThreadpoolController

    if _THREADPOOLS is None or _THREADPOOLS[0] != len(sys.modules):
        _THREADPOOLS = (len(sys.modules), ThreadpoolController())
    return _THREADPOOLS[1].limit(limits=1)


def _run_batch(task: tuple[TrialFn, Mapping[str, Any], list[tuple[int, np.random.SeedSequence]]]) -> list[dict]:
    from .solvers import CertificateError

    fn, config, seeds = task
    config = _make_config(dict(config), getattr(fn, "__qualname__", "trial"))
    with _one_blas_thread():       # one BLAS thread: identical rounding on every executor
        return _run_seeds(fn, config, seeds, CertificateError)


def _run_batch_timed(task: tuple[TrialFn, Mapping[str, Any], list[tuple[int, np.random.SeedSequence]]]
                     ) -> tuple[list[dict], float, float, tuple[str, int], float]:
    """:func:`_run_batch`, with the CPU and wall seconds it took in this process, where it ran and when it started.

    Returns ``(rows, cpu_s, wall_s, (host, pid), started)`` (``started``: Unix time); the rows are
    those of :func:`_run_batch`.
    """
    t0, c0, w0 = time.time(), time.process_time(), time.perf_counter()
    rows = _run_batch(task)
    return rows, time.process_time() - c0, time.perf_counter() - w0, _where(), t0


def _where() -> tuple[str, int]:
    """``(host name, process id)`` of this process."""
    return socket.gethostname(), os.getpid()


def _run_seeds(fn: TrialFn, config: Mapping[str, Any], seeds: list[tuple[int, np.random.SeedSequence]],
               cert_error: type[Exception]) -> list[dict]:
    batch = getattr(fn, "batch", None)
    if batch is not None and len(seeds) > 1:
        # a trial function may carry a batched twin, ``fn.batch(config, rngs) -> rows``, giving
        # for each generator the row ``fn(config, rng)`` would give (e.g. one vectorised solve of
        # problems that share their data); the twin handles per-trial failures itself, and if it
        # raises a CertificateError the trials run one by one below, each rejected on its own
        try:
            outs = batch(config, [np.random.default_rng(ss) for _, ss in seeds])
        except cert_error:
            outs = None
        if outs is not None:
            rows = []
            for (i, _), out in zip(seeds, outs, strict=True):
                out = dict(out)
                out["rejected"] = 0
                out["trial"] = i
                rows.append(out)
            return rows
    rows = []
    for i, ss in seeds:
        try:
            out = dict(fn(config, np.random.default_rng(ss)))
            out["rejected"] = 0
        except cert_error as exc:
            out = {"rejected": 1, "reject_reason": str(exc)[:200]}
        out["trial"] = i
        rows.append(out)
    return rows


#: trial batches of the running grid: [finished, to run] (:func:`batch_progress`)
_BATCHES = [0, 0]
#: set by a display of a whole run (``python -m verify`` on a terminal) that shows :func:`batch_progress`
#: itself; the grids then draw no bar of their own (``progress=None``)
OUTER_DISPLAY = False


def batch_progress() -> tuple[int, int]:
    """``(finished, to run)`` trial batches of the grid :func:`run_grid` is running in this process (or ran last).

    Examples
    --------
    >>> done, total = batch_progress()
    >>> 0 <= done <= total
    True
    """
    return _BATCHES[0], _BATCHES[1]


def _progress(total: int, desc: str | None, enabled: bool | None):
    """A tqdm bar of tasks (trial batches) on a terminal, nothing otherwise (``enabled=None``: decide from
    stderr; none while :data:`OUTER_DISPLAY` shows the batches).  It counts tasks, the unit every executor
    schedules (a Dask cluster's dashboard counts the same)."""
    _BATCHES[:] = [0, total]
    if enabled is None:
        enabled = sys.stderr.isatty() and not OUTER_DISPLAY
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover
        return None
    return tqdm(total=total, desc=desc, unit="task", leave=False)


def default_batch_size(fn: Callable[..., Any], config: Mapping[str, Any], n_trials: int) -> int:
    """Trials per task: ``ceil(n_trials / 8)``, and at most ``TASK_TARGET_S / cost(config)`` when the
    trial declares a cost (:func:`trial`).

    Examples
    --------
    >>> @trial(requires=("m",), cost=lambda c: c["m"] / 100)
    ... def heavy(config, rng):
    ...     return {}
    >>> default_batch_size(heavy, {"m": 100}, 200), default_batch_size(heavy, {"m": 1000}, 200)
    (15, 1)
    """
    bs = max(1, -(-n_trials // 8))
    spec = trial_spec(fn)
    if spec is not None and spec.cost is not None:
        est = float(spec.cost(config))
        if est > 0 and math.isfinite(est):
            bs = max(1, min(bs, int(TASK_TARGET_S // est)))
    return bs


_CALIBRATE: list[int] = []       # trials per configuration of a calibration run (innermost last)


class calibration:  # noqa: N801 - used as a context manager, like contextlib's
    """Within the block, :func:`run_grid` *calibrates* instead of running: per configuration it runs
    only the first ``k`` trials, as one task, and returns their rows; every batch the grid would
    have run gets a timing record estimated from them (their CPU and wall seconds per trial times
    the batch's trials, ``estimated = k``).  Nothing is read from or written to the trial cache.

    This is how ``python -m verify --profile P --calibrate`` plans a profile (:mod:`verify.plan`)
    without running it: the estimate is exact for batches of at most ``k`` trials, and otherwise
    assumes the trials of a configuration cost alike (they share their sizes; their data and
    solver iterations differ) and no batched twin (``fn.batch``) saving.

    Examples
    --------
    >>> from simulations.runner import calibration, run_grid, uniform_trial
    >>> with calibration(2):
    ...     df = run_grid(uniform_trial, [{"n": 3}, {"n": 5}], n_trials=50)
    >>> len(df), df["trial"].tolist()
    (4, [0, 1, 0, 1])
    """

    def __init__(self, k: int) -> None:
        if int(k) != k or k < 1:
            raise ValueError(f"parameter 'k' = {k!r} of calibration must be a positive integer "
                             "(trials per configuration)")
        self.k = int(k)

    def __enter__(self) -> calibration:
        _CALIBRATE.append(self.k)
        return self

    def __exit__(self, *exc: object) -> None:
        _CALIBRATE.pop()


def calibrating() -> int | None:
    """Trials per configuration of the enclosing :class:`calibration` block, or None outside one."""
    return _CALIBRATE[-1] if _CALIBRATE else None


def _calibrate_grid(trial: TrialFn, configs: Sequence[Mapping[str, Any]], tasks: list, where: list[int],
                    keys: list[str | None], k: int, executor: str | Executor, cache: TrialCache | None,
                    fn_name: str, desc: str | None) -> list[list[dict]]:
    """The rows of the first ``k`` trials of each configuration, and the grid's estimated timings."""
    firsts: dict[int, list] = {}
    for (_, _, chunk), c in zip(tasks, where, strict=True):
        firsts.setdefault(c, []).extend(chunk)
    samples = [(trial, dict(configs[c]), seeds[:k]) for c, seeds in sorted(firsts.items())]
    out: list[list[dict]] = [[] for _ in samples]
    per: list[tuple[float, float]] = [(0.0, 0.0)] * len(samples)
    own = not isinstance(executor, Executor)
    ex = get_executor(executor) if own else executor
    stop = False
    try:
        for j, (rows, cpu, wall, _, _) in ex.map_unordered(_run_batch_timed, samples):
            out[j] = rows
            per[j] = (cpu / len(rows), wall / len(rows))
    except BaseException as exc:
        stop = not isinstance(exc, Exception)
        raise
    finally:
        if own:
            ex.terminate() if stop else ex.close()
    if cache is not None:
        seq = next_seq()
        note_grid(seq, [kk for kk in keys if kk is not None])
        index = {c: j for j, c in enumerate(sorted(firsts))}
        for i, (_, _, chunk) in enumerate(tasks):
            cpu, wall = per[index[where[i]]]
            _record_batch(cache, fn_name, desc, configs[where[i]], keys[i], chunk[0][0], len(chunk),
                          cpu * len(chunk), wall * len(chunk), False, seq, estimated=k)
    return out


def _record_batch(cache: TrialCache, fn_name: str, desc: str | None, config: Mapping[str, Any], key: str,
                  start: int, trials: int, cpu: float, wall: float, in_main: bool, seq: int, **extra: Any) -> None:
    """The timing record of one batch (:mod:`verify.plan` reads them), in ``<cache>/timings.jsonl``."""
    record_timing(cache.dir, {
        "kind": "batch", "fn": fn_name, "desc": desc, "config": config_hash(config), "key": key[:KEY_CHARS],
        "start": start, "trials": trials, "cpu_s": round(cpu, 6), "wall_s": round(wall, 6),
        "in_main": in_main, **extra, "seq": seq, "t": round(time.time(), 3)})


def run_grid(
    trial: TrialFn,
    configs: Sequence[Mapping[str, Any]],
    n_trials: int,
    *,
    seed: int = 0,
    executor: str | Executor = "serial",
    batch_size: int | None = None,
    progress: bool | None = None,
    desc: str | None = None,
    cache: TrialCache | str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Run ``n_trials`` trials of every configuration; one row per trial.

    Parameters
    ----------
    trial : callable
        Module-level trial function ``(config, rng) -> dict`` (see module docstring).
    configs : sequence of dict
        JSON-able configurations; their scalar entries become columns.
    n_trials : int
        Trials per configuration.
    seed : int
        Root seed.
    executor : str or Executor
        ``serial`` (default here), ``local``, ``dask`` or an open executor (reused, not closed).
    batch_size : int, optional
        Trials per task; default :func:`default_batch_size` (``ceil(n_trials / 8)``, fewer when
        the trial declares a cost), the same on every executor so that cached batches are found
        again.  Does not change the results.
    progress : bool, optional
        Show a progress bar; default only when stderr is a terminal.
    desc : str, optional
        Label of the progress bar.
    cache : TrialCache or path, optional
        Reuse finished batches and store new ones (:mod:`simulations.cache`).  Every batch
        that runs (none read from the cache) also appends its timing record, the CPU and wall
        seconds it took in the process that ran it, to ``<cache>/timings.jsonl``
        (:func:`simulations.cache.record_timing`).

    Returns
    -------
    pandas.DataFrame
        Columns: the configurations' scalar entries, ``trial``, then the trial's outputs;
        rows sorted by configuration then trial.
    """
    if n_trials < 1:
        raise ValueError(f"parameter 'n_trials' = {n_trials!r} must be at least 1")
    if cache is not None and not isinstance(cache, TrialCache):
        cache = TrialCache(cache)
    fn_name = f"{trial.__module__}.{trial.__qualname__}"
    for config in configs:
        validate_config(trial, config)
    tasks, where, keys = [], [], []
    for c, config in enumerate(configs):
        seeds = list(enumerate(trial_seeds(config, n_trials, seed)))
        bs = batch_size if batch_size is not None else default_batch_size(trial, config, n_trials)
        for s in range(0, n_trials, bs):
            chunk = seeds[s : s + bs]
            tasks.append((trial, dict(config), chunk))
            where.append(c)
            keys.append(None if cache is None else cache.key(fn_name, config, seed, s, s + len(chunk)))
    k = calibrating()
    if k is not None:
        results = _calibrate_grid(trial, configs, tasks, where, keys, k, executor, cache, fn_name, desc)
        where = list(range(len(configs)))
        return _frame(configs, results, where)
    results: list[list[dict] | None] = [None] * len(tasks)
    seq = next_seq()
    if cache is not None:
        note_grid(seq, keys)
        for i, k in enumerate(keys):
            results[i] = cache.get(k)
    todo = [i for i, r in enumerate(results) if r is None]
    if todo:
        own = not isinstance(executor, Executor)
        ex = get_executor(executor) if own else executor
        bar = _progress(len(todo), desc, progress)
        # one batch left: run it here; a pool would only add pickling and a place in its queue
        # (behind the audits and figures the report job keeps on the workers); same seeds, same rows
        runner = SerialExecutor() if len(todo) == 1 and getattr(ex, "inline_lone_batch", True) else ex
        here = _where()
        stop = False
        try:
            for j, (rows, cpu, wall, where_, started) in runner.map_unordered(_run_batch_timed,
                                                                              [tasks[i] for i in todo]):
                i = todo[j]
                results[i] = rows
                if cache is not None:       # each batch is stored as it arrives: an interrupted run resumes
                    cache.put(keys[i], rows)
                    _record_batch(cache, fn_name, desc, configs[where[i]], keys[i], tasks[i][2][0][0], len(rows),
                                  cpu, wall, tuple(where_) == here, seq, t0=round(started, 3), pid=where_[1])
                _BATCHES[0] += 1
                if bar is not None:
                    bar.update(1)
        except BaseException as exc:
            stop = not isinstance(exc, Exception)   # Ctrl-C, SIGTERM: do not wait for the running batches
            raise
        finally:
            if bar is not None:
                bar.close()
            if own:
                ex.terminate() if stop else ex.close()
    return _frame(configs, results, where)


def _frame(configs: Sequence[Mapping[str, Any]], results: Sequence[list[dict] | None], where: Sequence[int]
           ) -> pd.DataFrame:
    """One frame of the rows ``results[i]`` of configuration ``where[i]``, sorted by configuration then trial."""
    frames = []
    for c, config in enumerate(configs):
        rows = [r for i, rr in enumerate(results) if where[i] == c for r in (rr or [])]
        df = pd.DataFrame(rows).sort_values("trial", kind="stable")
        scalars = {k: v for k, v in config.items() if np.isscalar(v) or v is None}
        for k, v in reversed(list(scalars.items())):
            if k not in df.columns:
                df.insert(0, k, v)
        cols = [k for k in scalars if k in df.columns] + ["trial"]
        df = df[cols + [k for k in df.columns if k not in cols]]
        frames.append(df)
    return pd.concat(frames, ignore_index=True)


def run_trials(
    trial: TrialFn,
    config: Mapping[str, Any],
    n_trials: int,
    *,
    seed: int = 0,
    executor: str | Executor = "serial",
    batch_size: int | None = None,
    progress: bool | None = None,
    desc: str | None = None,
    cache: TrialCache | str | os.PathLike | None = None,
) -> pd.DataFrame:
    """Run ``n_trials`` trials of one configuration (see :func:`run_grid`); config entries are not added as columns."""
    df = run_grid(trial, [config], n_trials, seed=seed, executor=executor,
                  batch_size=batch_size, progress=progress, desc=desc, cache=cache)
    return df.drop(columns=[k for k in config if k in df.columns and k != "trial"])


def uniform_trial(config: Mapping[str, Any], rng: np.random.Generator) -> dict[str, float]:
    """A toy trial (mean and max of ``config['n']`` uniforms), for examples and executor tests."""
    u = rng.random(int(config["n"]))
    return {"mean": float(u.mean()), "max": float(u.max())}
