"""Executors: where the trials of a Monte Carlo run are computed.

=============  ==============================================================
name           what it does
=============  ==============================================================
``serial``     in this process, one task after another (debugging, tests)
``local``      a pool of worker processes on this machine (default; all cores)
``dask``       a Dask distributed client: ``scheduler=ADDRESS`` connects to a
               running cluster, no address starts a ``LocalCluster``
               (optional extra: ``pip install 'dp-erm-verify[dask]'``)
=============  ==============================================================

Every executor exposes the same calls, :meth:`Executor.map_unordered`
(yields ``(index, result)`` as tasks finish, for progress bars),
:meth:`Executor.submit`, :meth:`Executor.close` (wait for running tasks) and
:meth:`Executor.terminate` (stop now: on Ctrl-C or SIGTERM, the pending tasks
are cancelled and the worker processes killed, so none is left behind).  A
local worker also ignores SIGINT (the main process stops it) and exits by
itself when the main process dies.  A Dask run never waits for workers that are
gone: with no worker for ``worker_timeout`` seconds (default
:data:`WORKER_TIMEOUT_S`, 20 s), at the start or mid-run, or when a task has killed
the workers it ran on, every waiting call raises :class:`WorkersLost`.  The *results* never depend on the executor: the
runner (:mod:`simulations.runner`) gives every trial its own seed, spawned
from a :class:`numpy.random.SeedSequence`, before any task is scheduled.

Examples
--------
>>> from simulations.executors import get_executor
>>> with get_executor("serial") as ex:
...     sorted(ex.map_unordered(abs, [-2, 3]))
[(0, 2), (1, 3)]
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

EXECUTORS = ("serial", "local", "dask")


class WorkersLost(RuntimeError):
    """The executor can run no more tasks: every worker is gone (none joined within the timeout),
    a task killed every worker it was given, the scheduler went away, or a local worker process
    died abruptly (killed, out of memory), which breaks the whole pool.

    The message is one line naming the executor; the batches finished before the loss are in the
    trial cache already (the runner stores each as it arrives).
    """

    @classmethod
    def from_broken_pool(cls, exc: BaseException) -> WorkersLost:
        """The :class:`WorkersLost` of a local pool broken by a worker's death (``BrokenProcessPool``)."""
        return cls("executor 'local': a worker process died abruptly (killed by a signal, or out of memory) "
                   "and the pool cannot run more tasks; the run stops")


class Executor:
    """Base class: run ``fn`` on every item, yield ``(index, result)`` as they finish."""

    name = "base"
    workers = 1
    #: a grid's last lone batch may run in the calling process (True: a small pool gains nothing
    #: from it); a cluster keeps it, so the main process stays free (its serial part small)
    inline_lone_batch = True

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        raise NotImplementedError

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        """Start ``fn(item)`` now and return a future (``.result()`` waits for it).

        Used for whole independent jobs (an audit, the symbolic evaluation of a statement) that
        run on the workers while the main process dispatches trials; the base class runs the
        job at once, in this process.
        """
        fut: Future = Future()
        try:
            fut.set_result(fn(item))
        except Exception as exc:  # noqa: BLE001 - re-raised by .result(), as a pool would
            fut.set_exception(exc)
        return fut

    def close(self) -> None:
        """Release the workers once their running tasks finish (idempotent)."""

    def terminate(self) -> None:
        """Stop now: cancel the pending tasks and stop the workers without waiting (idempotent).

        Called on an interruption (Ctrl-C, SIGTERM); the base class has no workers to stop.
        """
        self.close()

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc: object) -> None:
        if exc_type is not None and not issubclass(exc_type, Exception):   # KeyboardInterrupt, SystemExit
            self.terminate()
        else:
            self.close()

    def describe(self) -> str:
        """One line for the report's provenance, e.g. ``local (2 workers)``."""
        return f"{self.name} ({self.workers} worker{'s' if self.workers != 1 else ''})"


class SerialExecutor(Executor):
    """Run tasks in this process, in order."""

    name = "serial"

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        for i, item in enumerate(items):
            yield i, fn(item)


class LocalExecutor(Executor):
    """A pool of worker processes (:class:`concurrent.futures.ProcessPoolExecutor`).

    Parameters
    ----------
    max_workers : int, optional
        Number of processes; default ``os.cpu_count()``.

    The pool is created lazily and reused by every ``map_unordered`` call until
    :meth:`close`.  Each worker limits BLAS to one thread (threadpoolctl), so
    the processes do not oversubscribe the cores.  At most ``2 × workers`` tasks are in flight, so a long
    task list does not pickle everything up front.  A worker ignores SIGINT (Ctrl-C reaches the
    whole process group; the main process stops the pool with :meth:`terminate`) and exits when
    its parent process dies, so a killed run leaves no worker blocked on the task queue.
    """

    name = "local"

    def __init__(self, max_workers: int | None = None) -> None:
        n = max_workers if max_workers is not None else (os.cpu_count() or 1)
        if n < 1:
            raise ValueError(f"parameter 'max_workers' = {max_workers!r} must be at least 1")
        self.workers = int(n)
        self._pool: ProcessPoolExecutor | None = None

    def _get_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_init_worker)
        return self._pool

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        pool = self._get_pool()
        pending: dict[Any, int] = {}
        it = enumerate(items)
        limit = 2 * self.workers
        exhausted = False
        try:
            while True:
                while not exhausted and len(pending) < limit:
                    try:
                        i, item = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    try:
                        pending[pool.submit(fn, item)] = i
                    except BrokenProcessPool as exc:
                        raise WorkersLost.from_broken_pool(exc) from None
                if not pending:
                    return
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for fut in done:
                    i = pending.pop(fut)
                    try:
                        res = fut.result()
                    except BrokenProcessPool as exc:
                        raise WorkersLost.from_broken_pool(exc) from None
                    yield i, res
        finally:            # the caller stopped early (an error, an interruption): drop what has not started
            for fut in pending:
                fut.cancel()

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        """Start ``fn(item)`` on the pool; its ``.result()`` raises ``BrokenProcessPool`` if a worker
        dies (the command line reports it as :class:`WorkersLost`)."""
        try:
            return self._get_pool().submit(fn, item)
        except BrokenProcessPool as exc:
            raise WorkersLost.from_broken_pool(exc) from None

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None

    def terminate(self, timeout: float = 2.0) -> None:
        """Cancel the pending tasks, SIGTERM the workers, SIGKILL any still alive after ``timeout`` s.

        Returns once every worker has exited and the pool's manager thread has stopped, so the
        interpreter can exit at once (it would otherwise wait for the running tasks).
        """
        pool, self._pool = self._pool, None
        if pool is None:
            return
        procs = list((getattr(pool, "_processes", None) or {}).values())
        pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            _signal_process(p, kill=False)
        alive = _wait_exited(procs, timeout)
        for p in alive:
            _signal_process(p, kill=True)
        _wait_exited(alive, timeout)
        manager = getattr(pool, "_executor_manager_thread", None)
        if manager is not None and manager is not threading.current_thread():
            manager.join(timeout)   # it notices the dead workers, fails their futures and returns


def _signal_process(p: Any, kill: bool) -> None:
    """SIGTERM (or SIGKILL) a pool process that may have exited already."""
    try:
        p.kill() if kill else p.terminate()
    except (OSError, ValueError, AttributeError):   # gone, closed, or never started
        pass


def _wait_exited(procs: list[Any], timeout: float) -> list[Any]:
    """Wait up to ``timeout`` s for ``procs`` to exit; returns those still alive.

    Waits on the processes' sentinels (readable once a process has exited, whoever reaps it:
    the pool's manager thread may join the same processes meanwhile).
    """
    from multiprocessing.connection import wait as wait_sentinels

    live = {}
    for p in procs:
        try:
            live[p.sentinel] = p
        except (ValueError, AttributeError):   # closed or never started
            continue
    deadline = time.monotonic() + timeout
    while live:
        left = deadline - time.monotonic()
        if left <= 0:
            break
        for s in wait_sentinels(list(live), left):
            live.pop(s, None)
    return list(live.values())


#: seconds between two checks of a worker's parent process
PARENT_POLL_S = 0.5


def _init_worker() -> None:
    """Initialiser of a local worker process.

    * SIGINT is ignored: Ctrl-C reaches every process of the terminal's foreground group, and
      the main process stops the pool itself (:meth:`LocalExecutor.terminate`); a worker would
      otherwise print a traceback or, catching the interrupt as a task error, keep running.
    * SIGTERM gets its default action back: a handler the main process installed (the command
      line turns SIGTERM into an interruption) is inherited through ``fork``, and would turn
      :meth:`multiprocessing.Process.terminate` into a task error instead of an exit.
    * A daemon thread exits the process when its parent dies (the main process killed with
      SIGKILL, say; or the fork server, which exits with the main process): a worker blocked
      on the task queue would otherwise wait forever.
    * BLAS uses one thread.
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), name="exit-with-parent",
                     daemon=True).start()
    _one_blas_thread()


def _exit_with_parent(parent_pid: int) -> None:
    """Exit this process (status 1) as soon as its parent is no longer ``parent_pid``."""
    while os.getppid() == parent_pid:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def _one_blas_thread() -> None:
    """Worker initialiser: one BLAS thread per process (the processes already use every core)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - threadpoolctl comes with scikit-learn
        return
    threadpool_limits(1)


class DaskExecutor(Executor):
    """Tasks on a Dask distributed cluster.

    Parameters
    ----------
    scheduler : str, optional
        Address of a running scheduler (``tcp://host:8786``).  Without one a
        :class:`distributed.LocalCluster` of processes is started here and shut
        down by :meth:`close`.
    n_workers : int, optional
        Workers of the local cluster (default: all cores; at least 1).
    timeout : float
        Seconds to wait for the scheduler before giving up.
    worker_timeout : float
        Seconds to wait for a worker: for the first one to join after connecting, and, mid-run,
        for one to join again once none is left (default :data:`WORKER_TIMEOUT_S`).  Without a
        worker every task would wait forever.
    quiet : bool
        While the executor is open, Dask's own log lines in this process (a key rescheduled, a
        worker removed, a connection closed) are not shown (default True): the faults they
        describe end the run with one :class:`WorkersLost` line, or are recovered from.

    Raises
    ------
    ValueError
        When ``distributed`` is not installed, ``n_workers`` is below 1, the scheduler cannot be
        reached or no worker joins it in time (one clear line for the CLI, naming the parameter).

    Notes
    -----
    Every wait (:meth:`map_unordered`, ``.result()`` of a :meth:`submit` future) polls the
    scheduler every :data:`POLL_S` seconds; with no worker for ``worker_timeout`` seconds, or when
    a task was given up by the scheduler because every worker running it died
    (``KilledWorker``), it raises :class:`WorkersLost` (one line).  So a run whose workers are all
    killed ends within about ``worker_timeout + POLL_S`` seconds of the last loss, instead of
    waiting for ever.  A :class:`distributed.LocalCluster`'s nannies restart killed worker processes:
    their tasks run again on the new workers and the run goes on.

    Examples
    --------
    >>> from simulations.executors import DaskExecutor
    >>> DaskExecutor(n_workers=0)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'n_workers' = 0 of the Dask executor must be an integer of at least 1 (workers of its LocalCluster)
    """

    inline_lone_batch = False

    name = "dask"

    def __init__(self, scheduler: str | None = None, n_workers: int | None = None, timeout: float = 10.0,
                 worker_timeout: float | None = None, quiet: bool = True) -> None:
        self._client = None
        self._cluster = None
        self._submitted: list[Any] = []
        self._quiet: contextlib.ExitStack | None = None
        wt = WORKER_TIMEOUT_S if worker_timeout is None else float(worker_timeout)
        if not wt > 0 or wt == float("inf"):
            raise ValueError(f"parameter 'worker_timeout' = {worker_timeout!r} must be a positive number of seconds")
        self.worker_timeout = wt
        if n_workers is not None and (isinstance(n_workers, bool) or int(n_workers) != n_workers or n_workers < 1):
            raise ValueError(f"parameter 'n_workers' = {n_workers!r} of the Dask executor must be an integer of "
                             "at least 1 (workers of its LocalCluster)")
        if n_workers is not None and scheduler is not None:
            raise ValueError(f"parameter 'n_workers' = {n_workers!r} applies to a LocalCluster, not to the running "
                             f"scheduler {scheduler!r}")
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ValueError(
                "parameter 'executor' = 'dask' needs the optional extra: pip install 'dp-erm-verify[dask]'"
            ) from exc
        self.scheduler = scheduler or "LocalCluster"
        if quiet:
            self._quiet = contextlib.ExitStack()
            self._quiet.enter_context(_quiet_dask())
        try:
            if scheduler is None:
                n = int(n_workers) if n_workers is not None else (os.cpu_count() or 1)
                # the cluster's logs (a task cancelled, a heartbeat failing while the run stops) stay off
                # stderr, whose last line is the command's one line on an error or interruption
                self._cluster = LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None,
                    silence_logs=logging.CRITICAL,
                )
                self._client = Client(self._cluster, timeout=timeout)
            else:
                self._client = Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            self.terminate()
            raise ValueError(f"parameter 'scheduler' = {scheduler!r}: cannot reach the Dask scheduler ({exc})") from exc
        try:
            self._client.wait_for_workers(1, timeout=wt)
        except (OSError, TimeoutError) as exc:   # WorkerStartTimeoutError is a TimeoutError
            self.terminate()
            where = f"parameter 'scheduler' = {scheduler!r}" if scheduler is not None else "a Dask LocalCluster"
            hint = f" (start one with `dask worker {scheduler}`)" if scheduler is not None else ""
            raise ValueError(f"{where}: no Dask worker joined the scheduler within {wt:g} s{hint}") from exc
        self.workers = max(1, self._count_workers() or 0)
        _quiet_lost_tasks(self._client)
        #: monotonic time since which the scheduler has had no worker (None: it has one)
        self._empty_since: float | None = None
        self._last_poll = 0.0

    def describe(self) -> str:
        return f"dask ({self.workers} workers at {self.scheduler})"

    # -- lost workers -----------------------------------------------------------------------------

    def _count_workers(self) -> int | None:
        """Workers the scheduler knows now (None: the scheduler does not answer)."""
        client = self._client
        if client is None:
            return None
        try:
            return len(client.nthreads())
        except Exception:  # noqa: BLE001 - a closed connection, a lost scheduler: no answer
            return None

    def check_workers(self) -> None:
        """Raise :class:`WorkersLost` once the scheduler has had no worker (or given no answer) for
        ``worker_timeout`` seconds; polls it at most once per :data:`POLL_S` seconds."""
        now = time.monotonic()
        if now - self._last_poll < POLL_S:
            return
        self._last_poll = now
        n = self._count_workers()
        if n:
            self._empty_since = None
            return
        if self._empty_since is None:
            self._empty_since = now
        elif now - self._empty_since >= self.worker_timeout:
            what = "no worker left" if n == 0 else "the scheduler does not answer"
            raise WorkersLost(f"executor 'dask' at {self.scheduler}: {what} and none joined within "
                              f"{self.worker_timeout:g} s (--worker-timeout); the run stops")

    def _lost(self, exc: BaseException) -> WorkersLost:
        """A :class:`WorkersLost` for a task the scheduler gave up (``KilledWorker``)."""
        return WorkersLost(f"executor 'dask' at {self.scheduler}: a task was given up after the workers running "
                           f"it died ({type(exc).__name__}: {_first_line(exc)}); the run stops")

    def _result(self, fut: Any, timeout: float | None = None) -> Any:
        """``fut.result()``, polling for lost workers meanwhile; ``KilledWorker`` becomes :class:`WorkersLost`.

        It waits with :func:`distributed.wait` in steps of :data:`POLL_S` until the task is done,
        then fetches the result in steps too: a finished task whose worker dies before its result
        is fetched is computed again, so fetching it can wait as long as a task does.
        """
        from distributed import KilledWorker
        from distributed import wait as dask_wait

        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            step = POLL_S if deadline is None else max(0.0, min(POLL_S, deadline - time.monotonic()))
            try:
                if not fut.done():
                    dask_wait([fut], timeout=step)
                    continue
                return fut.result(timeout=step)
            except KilledWorker as exc:
                raise self._lost(exc) from None
            except TimeoutError:
                if deadline is not None and time.monotonic() >= deadline:
                    raise
                self.check_workers()

    # -- tasks ------------------------------------------------------------------------------------

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed

        items = list(items)
        futures = self._client.map(fn, items, pure=False)
        self._track(futures)
        pending = {f.key: i for i, f in enumerate(futures)}
        by_key = {f.key: f for f in futures}
        ac = as_completed(futures)
        try:
            while pending:
                if not ac.has_ready():          # nothing finished: look again shortly, and for workers
                    time.sleep(WAIT_S)
                    self.check_workers()
                    continue
                for fut in ac.next_batch(block=False):
                    i = pending.pop(fut.key, None)
                    if i is not None:
                        yield i, self._result(fut)
        finally:            # the caller stopped early (an error, a loss, an interruption): release the rest
            if pending and self._client is not None:
                try:
                    self._client.cancel([by_key[k] for k in pending])
                except Exception:  # noqa: BLE001 - the client may be closing
                    pass

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        fut = self._client.submit(fn, item, pure=False)
        self._track([fut])
        return _DaskFuture(fut, self)

    def _track(self, futures: list[Any]) -> None:
        """Remember submitted futures (for :meth:`terminate`), forgetting the finished ones."""
        if len(self._submitted) > 1024:
            self._submitted[:] = [f for f in self._submitted if not f.done()]
        self._submitted.extend(futures)

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
            self._client = None
        if getattr(self, "_cluster", None) is not None:
            self._cluster.close()
            self._cluster = None
        self._unquiet()

    def _unquiet(self) -> None:
        """Give Dask's loggers their levels back (once the client and cluster are closed)."""
        quiet, self._quiet = getattr(self, "_quiet", None), None
        if quiet is not None:
            quiet.close()

    def terminate(self, timeout: float = 5.0) -> None:
        """Cancel this client's tasks, close the client and the local cluster it started (bounded waits).

        Quiet: the messages Dask logs while a cluster is torn down mid-task (a worker lost, a
        connection closed) are not shown.
        """
        with _quiet_dask():
            client = getattr(self, "_client", None)
            if client is not None:
                try:
                    futures = [f for f in self._submitted if not f.done()]
                    if futures:
                        client.cancel(futures, force=True)
                except Exception:  # noqa: BLE001 - best effort: we are stopping anyway
                    pass
                self._submitted.clear()
                try:
                    client.close(timeout=timeout)
                except BaseException:  # noqa: BLE001 - an interruption while closing: stop anyway
                    pass
                self._client = None
            if getattr(self, "_cluster", None) is not None:
                try:
                    self._cluster.close(timeout=timeout)
                except BaseException:  # noqa: BLE001
                    pass
                self._cluster = None
        self._unquiet()


class _DaskFuture:
    """A Dask future whose ``result()`` stops with :class:`WorkersLost` instead of waiting for
    workers that are gone (see :meth:`DaskExecutor.check_workers`)."""

    def __init__(self, fut: Any, ex: DaskExecutor) -> None:
        self._fut = fut
        self._ex = ex

    @property
    def key(self) -> Any:
        return self._fut.key

    @property
    def status(self) -> str:
        """The Dask future's status (``pending``, ``finished``, ``error``, ``lost``, ``cancelled``)."""
        return self._fut.status

    def result(self, timeout: float | None = None) -> Any:
        return self._ex._result(self._fut, timeout)

    def done(self) -> bool:
        return self._fut.done()

    def cancelled(self) -> bool:
        return self._fut.cancelled()

    def cancel(self) -> Any:
        return self._fut.cancel()

    def exception(self, timeout: float | None = None) -> Any:
        return self._fut.exception(timeout)

    def add_done_callback(self, fn: Callable[[Any], Any]) -> None:
        """Call ``fn(self)`` once the task is done (in Dask's client thread)."""
        self._fut.add_done_callback(lambda _f: fn(self))


def _quiet_lost_tasks(client: Any) -> None:
    """Let the client's event loop drop the "Task exception was never retrieved" reports of the
    fetches a closing client ends (``AllExit``, a closed connection, a cancellation), which asyncio
    would print with a traceback; every other report goes to the loop's default handler."""
    try:
        loop = client.loop.asyncio_loop
    except AttributeError:  # pragma: no cover - another Dask version
        return

    def handler(lp: Any, context: dict[str, Any]) -> None:
        exc = context.get("exception")
        if exc is not None and type(exc).__name__ in ("AllExit", "CommClosedError", "CancelledError",
                                                      "StreamClosedError"):
            return
        lp.default_exception_handler(context)

    loop.call_soon_threadsafe(loop.set_exception_handler, handler)


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message (at most 200 characters)."""
    text = str(exc).strip().splitlines()
    return text[0][:200] if text else ""


def quiet_dask_logs() -> None:
    """Keep Dask's, Tornado's and asyncio's log lines off stderr for the rest of the process.

    For a command line, whose stderr must end with its own one line: the client's and the cluster's
    finalizers may still log (a connection closed) after the executor is closed.
    """
    cm = _quiet_dask()
    cm.__enter__()
    _FOR_GOOD.append(cm)        # kept: a collected generator would run its finally and restore the levels


_FOR_GOOD: list[Any] = []


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Raise the level of Dask's and Tornado's loggers to CRITICAL while the block runs (nested blocks
    restore in order)."""
    prefixes = ("distributed", "tornado", "asyncio")
    # the child loggers too: Dask's configuration gives some their own level (distributed.client)
    names = {n for n in logging.root.manager.loggerDict if n.split(".", 1)[0] in prefixes} | set(prefixes)
    loggers = [logging.getLogger(n) for n in sorted(names)]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL)
    try:
        yield
    finally:
        for lg, lv in zip(loggers, levels, strict=True):
            lg.setLevel(lv)


#: seconds between two checks, while waiting for Dask tasks, that the scheduler still has a worker
POLL_S = 1.0
#: seconds :meth:`DaskExecutor.map_unordered` sleeps when no task has finished (it then looks again)
WAIT_S = 0.02
class ProgressView(Executor):
    """A view of an executor that prints a line on ``stream`` (stderr) as its jobs finish.

    For runs without a terminal, where no progress bar is drawn.  Whole jobs sent through
    :meth:`submit` (when their future has ``add_done_callback``) and :meth:`map_unordered` are
    named by ``label(fn, item, index)``; the label's first word is the job's *group* (``symbolic``,
    ``audit``, ``figures``).  A finished job prints::

          done: LABEL (GROUP K of N; job J of M sent, T s)

    for every job of a group of at most ten, else once per tenth of the group (and for its last
    job), so that a group of 150 symbolic evaluations prints about ten lines.  A job that raised
    always prints (``failed:``); a cancelled one never does, nor does any job once the view is
    closed or terminated (the run is stopping: its own line must be the last).  Nothing is printed
    when ``enabled`` is false.  Everything else is the wrapped executor's, which its owner closes.

    Examples
    --------
    >>> import io
    >>> from simulations.executors import ProgressView, SerialExecutor
    >>> out = io.StringIO()
    >>> view = ProgressView(SerialExecutor(), stream=out)
    >>> view.submit(abs, -2).result(), sorted(view.map_unordered(abs, [-1]))
    (2, [(0, 1)])
    >>> [line.split(";")[0] for line in out.getvalue().splitlines()]
    ['  done: abs (abs 1 of 1', '  done: abs (abs 2 of 2']
    """

    #: a group of more jobs than this prints once per tenth of it
    EVERY_JOB_UP_TO = 10

    def __init__(self, inner: Executor, label: Callable[[Any, Any, int], str] | None = None,
                 enabled: bool = True, stream: Any = None) -> None:
        self.inner = inner
        self.label = label if label is not None else (lambda fn, item, i: getattr(fn, "__qualname__", repr(fn)))
        self.enabled = enabled
        self.stream = stream
        self.name = inner.name
        self.inline_lone_batch = getattr(inner, "inline_lone_batch", True)
        #: jobs sent and finished so far (all groups), and per group
        self.sent = 0
        self.finished = 0
        self.groups: dict[str, list[int]] = {}
        #: the lines printed (or that would have been, when disabled)
        self.lines = 0
        self._lock = threading.Lock()
        self._t0 = time.perf_counter()

    @property
    def workers(self) -> int:  # type: ignore[override]
        return self.inner.workers

    def describe(self) -> str:
        return self.inner.describe()

    def _sent(self, label: str, n: int = 1) -> None:
        with self._lock:
            self.sent += n
            self.groups.setdefault(_group(label), [0, 0])[0] += n

    def _done(self, label: str, state: str = "done") -> None:
        group = _group(label)
        with self._lock:
            self.finished += 1
            g = self.groups.setdefault(group, [1, 0])
            g[1] += 1
            n, k = g
            if state == "cancelled" or not self.enabled:
                return
            if state == "done" and n > self.EVERY_JOB_UP_TO and k != n and 10 * k // n == 10 * (k - 1) // n:
                return
            self.lines += 1
            line = (f"  {state}: {label} ({group} {k} of {n}; job {self.finished} of {self.sent} sent, "
                    f"{time.perf_counter() - self._t0:.0f} s)")
        try:
            print(line, file=self.stream if self.stream is not None else sys.stderr, flush=True)
        except (OSError, ValueError):   # a closed or full stream: progress is not worth a failure
            pass

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        label = self.label(fn, item, 0)
        self._sent(label)
        fut = self.inner.submit(fn, item)
        add = getattr(fut, "add_done_callback", None)
        if add is not None:
            add(lambda f: self._done(label, _state(f)))
        return fut

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        items = list(items)
        labels = [self.label(fn, item, i) for i, item in enumerate(items)]
        for lab in labels:
            self._sent(lab)
        for i, res in self.inner.map_unordered(fn, items):
            self._done(labels[i])
            yield i, res

    def close(self) -> None:
        """Print no more lines (the owner of the wrapped executor closes it)."""
        self.enabled = False

    def terminate(self) -> None:
        """Print no more lines (the owner of the wrapped executor stops it)."""
        self.enabled = False


def _group(label: str) -> str:
    """The group of a job: the first word of its label."""
    return label.split(" ", 1)[0] if label else "job"


def _state(fut: Any) -> str:
    """``done``, ``failed`` (it raised) or ``cancelled``, of a finished future."""
    try:
        if fut.cancelled():
            return "cancelled"
    except Exception:  # noqa: BLE001 - a future type without cancelled()
        pass
    return "failed" if _failed(fut) else "done"


def _failed(fut: Any) -> bool:
    """Whether a finished future ended in an exception (False when that cannot be told)."""
    try:
        if getattr(fut, "status", None) is not None:        # a Dask future: no round trip
            return fut.status == "error"
        return fut.exception(timeout=0) is not None
    except BaseException:  # noqa: BLE001 - cancelled, or a future type without exception()
        return False


#: default seconds :class:`DaskExecutor` waits for a worker to join a running scheduler
WORKER_TIMEOUT_S = 20.0


def get_executor(
    name: str | Executor = "local", *, scheduler: str | None = None, max_workers: int | None = None,
    worker_timeout: float | None = None,
) -> Executor:
    """An executor by name (``serial``, ``local``, ``dask``), or ``name`` itself if it is one.

    ``worker_timeout`` is how long ``dask`` with a ``scheduler`` address waits for a worker.

    Raises
    ------
    ValueError
        For an unknown name, naming the parameter.
    """
    if isinstance(name, Executor):
        return name
    if name == "serial":
        return SerialExecutor()
    if name == "local":
        return LocalExecutor(max_workers)
    if name == "dask":
        return DaskExecutor(scheduler, n_workers=max_workers, worker_timeout=worker_timeout)
    raise ValueError(f"parameter 'executor' = {name!r} is not one of {', '.join(EXECUTORS)}")
