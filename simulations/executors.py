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

Every executor exposes the same two calls, :meth:`Executor.map_unordered`
(yields ``(index, result)`` as tasks finish, for progress bars) and
:meth:`Executor.close`.  The *results* never depend on the executor: the
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

import os
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from typing import Any

EXECUTORS = ("serial", "local", "dask")


class Executor:
    """Base class: run ``fn`` on every item, yield ``(index, result)`` as they finish."""

    name = "base"
    workers = 1

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
        """Release the workers (idempotent)."""

    def __enter__(self) -> Executor:
        return self

    def __exit__(self, *exc: object) -> None:
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
    task list does not pickle everything up front.
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
            self._pool = ProcessPoolExecutor(max_workers=self.workers, initializer=_one_blas_thread)
        return self._pool

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        pool = self._get_pool()
        pending: dict[Any, int] = {}
        it = enumerate(items)
        limit = 2 * self.workers
        exhausted = False
        while True:
            while not exhausted and len(pending) < limit:
                try:
                    i, item = next(it)
                except StopIteration:
                    exhausted = True
                    break
                pending[pool.submit(fn, item)] = i
            if not pending:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                i = pending.pop(fut)
                yield i, fut.result()

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        return self._get_pool().submit(fn, item)

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None


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
        Workers of the local cluster (default: all cores).
    timeout : float
        Seconds to wait for the scheduler before giving up.

    Raises
    ------
    ValueError
        When ``distributed`` is not installed or the scheduler cannot be reached
        (one clear line for the CLI).
    """

    name = "dask"

    def __init__(self, scheduler: str | None = None, n_workers: int | None = None, timeout: float = 10.0) -> None:
        try:
            from distributed import Client, LocalCluster
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ValueError(
                "parameter 'executor' = 'dask' needs the optional extra: pip install 'dp-erm-verify[dask]'"
            ) from exc
        self._cluster = None
        try:
            if scheduler is None:
                n = n_workers if n_workers is not None else (os.cpu_count() or 1)
                self._cluster = LocalCluster(
                    n_workers=n, threads_per_worker=1, processes=True, dashboard_address=None
                )
                self._client = Client(self._cluster, timeout=timeout)
            else:
                self._client = Client(scheduler, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            if self._cluster is not None:
                self._cluster.close()
            raise ValueError(f"parameter 'scheduler' = {scheduler!r}: cannot reach the Dask scheduler ({exc})") from exc
        self.workers = max(1, len(self._client.scheduler_info().get("workers", {})))
        self.scheduler = scheduler or "LocalCluster"

    def describe(self) -> str:
        return f"dask ({self.workers} workers at {self.scheduler})"

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        from distributed import as_completed

        items = list(items)
        futures = self._client.map(fn, items, pure=False)
        index = {f.key: i for i, f in enumerate(futures)}
        for fut in as_completed(futures):
            yield index[fut.key], fut.result()

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        return self._client.submit(fn, item, pure=False)

    def close(self) -> None:
        client = getattr(self, "_client", None)
        if client is not None:
            client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None


def get_executor(
    name: str | Executor = "local", *, scheduler: str | None = None, max_workers: int | None = None
) -> Executor:
    """An executor by name (``serial``, ``local``, ``dask``), or ``name`` itself if it is one.

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
        return DaskExecutor(scheduler, n_workers=max_workers)
    raise ValueError(f"parameter 'executor' = {name!r} is not one of {', '.join(EXECUTORS)}")
