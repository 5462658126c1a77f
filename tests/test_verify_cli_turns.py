"""The report job's checks in threads taking turns (issue 33): same results, in registry order, whatever
the completion order; one thread computes at a time; the first failing check (by index) fails the run."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from simulations.executors import Executor, SerialExecutor
from simulations.runner import run_grid, uniform_trial, waiting
from verify.cli import run_in_turns
from verify.empirical.core import clear_shared_runs, shared_run


class ReverseExecutor(Executor):
    """A pool stand-in: computes every task of a call, then yields them in reverse order, pausing before
    each so that other threads run meanwhile (their turns interleave with this call's)."""

    name = "reverse"
    workers = 2
    inline_lone_batch = False

    def __init__(self, pause: float = 0.002) -> None:
        self.pause = pause

    def map_unordered(self, fn, items):
        done = [(i, fn(item)) for i, item in enumerate(items)]
        for i, res in reversed(done):
            time.sleep(self.pause)
            yield i, res


class Busy:
    """Counts the threads computing outside a wait: taking turns means never more than one."""

    def __init__(self) -> None:
        self.now = 0
        self.most = 0
        self.lock = threading.Lock()

    def __enter__(self) -> None:
        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)

    def __exit__(self, *exc: object) -> None:
        with self.lock:
            self.now -= 1


def _check(k: int, executor, busy: Busy | None = None) -> list[float]:
    """A check: three grids (the later ones sized by the earlier results), then a statistic of them."""
    out: list[float] = []
    n = 3 + k % 4
    for step in range(3):
        if busy is not None:
            busy.__enter__()
        cfgs = [{"n": n + j} for j in range(1 + (k + step) % 3)]
        if busy is not None:
            busy.__exit__()
        df = run_grid(uniform_trial, cfgs, 5 + step, seed=100 + k, executor=executor, batch_size=2)
        if busy is not None:
            busy.__enter__()
        out.append(float(df["mean"].sum()))
        n = 2 + int(10 * df["max"].iloc[0])       # the next grid depends on this one's numbers
        if busy is not None:
            busy.__exit__()
    return out


def test_results_in_index_order_and_equal_to_a_serial_loop_whatever_the_completion_order() -> None:
    # reference: the checks one after the other, trials in this process, in index order
    ref = {k: _check(k, SerialExecutor()) for k in range(9)}
    busy = Busy()
    for pause in (0.0, 0.003):
        ex = ReverseExecutor(pause)
        tasks = [(k, f"paper{k % 3}", (lambda k=k, ex=ex: _check(k, ex, busy))) for k in range(9)]
        order: list[int] = []
        got = run_in_turns(tasks, on_done=lambda i, v, order=order: order.append(i))
        assert list(got) == sorted(got) == list(range(9))      # by index, not by completion
        assert got == ref
        assert sorted(order) == list(range(9))
        # a group's checks finish in index order (they run one after the other)
        for g in range(3):
            mine = [i for i in order if i % 3 == g]
            assert mine == sorted(mine)
    assert busy.most == 1                           # one thread computed at a time


def test_threads_really_overlap_their_waits() -> None:
    # every thread waits (without its turn) at the same time: a barrier of 3 only passes if all three
    # are waiting together; taking turns without giving them up while waiting would deadlock here
    barrier = threading.Barrier(3, timeout=20)

    def task(k: int) -> int:
        with waiting():
            barrier.wait()
        return k * k

    assert run_in_turns([(k, k, (lambda k=k: task(k))) for k in range(3)]) == {0: 0, 1: 1, 2: 4}


def test_the_lowest_failing_index_is_raised_and_later_checks_of_its_group_do_not_start() -> None:
    started: list[int] = []
    gate = threading.Event()

    def ok(k: int) -> int:
        started.append(k)
        return k

    def fail(k: int, wait_first: bool) -> int:
        started.append(k)
        if wait_first:            # index 1 fails last in time, index 4 first: 1 is still the one raised
            with waiting():
                gate.wait(10)
        else:
            gate.set()
        raise ValueError(f"check {k} failed")

    tasks = [(0, "a", lambda: ok(0)), (1, "a", lambda: fail(1, True)), (2, "a", lambda: ok(2)),
             (3, "b", lambda: ok(3)), (4, "b", lambda: fail(4, False)), (5, "b", lambda: ok(5))]
    with pytest.raises(ValueError, match="check 1 failed"):
        run_in_turns(tasks)
    assert 2 not in started and 5 not in started       # after a failure in their group: never started
    assert {0, 1, 3, 4} <= set(started)


def test_a_failure_stops_other_groups_above_its_index_but_not_below() -> None:
    started: list[int] = []
    first_failed = threading.Event()

    def fail() -> int:
        started.append(0)
        first_failed.set()
        raise RuntimeError("first check fails")

    def slow_start(k: int) -> int:
        with waiting():
            first_failed.wait(10)
        started.append(k)
        return k

    tasks = [(0, "a", fail), (1, "b", lambda: slow_start(1)), (2, "b", lambda: started.append(2) or 2)]
    with pytest.raises(RuntimeError, match="first check fails"):
        run_in_turns(tasks)
    assert 2 not in started      # check 2 is above the failed index 0: a serial loop never reaches it


def test_shared_run_computes_once_for_threads_asking_together() -> None:
    clear_shared_runs()
    calls: list[int] = []
    entered = threading.Event()

    class Ctx:
        profile, seed, executor = "p", 0, "serial"

    def compute() -> np.ndarray:
        calls.append(1)
        entered.set()
        with waiting():
            time.sleep(0.05)        # the other thread asks meanwhile
        return np.arange(3.0)

    def ask(_: int) -> np.ndarray:
        return shared_run(Ctx(), "demo", compute)

    def second(_: int) -> np.ndarray:
        entered.wait(10)
        return shared_run(Ctx(), "demo", compute)

    out = run_in_turns([(0, "a", lambda: ask(0)), (1, "b", lambda: second(1))])
    assert calls == [1]
    assert np.array_equal(out[0], out[1]) and out[0] is out[1]
    clear_shared_runs()


def test_plain_threads_without_turns_are_unaffected() -> None:
    # outside taking_turns, waiting() is a no-op and run_grid gives the serial rows
    ref = run_grid(uniform_trial, [{"n": 4}], 6, seed=3)
    with ThreadPoolExecutor(3) as pool:
        outs = list(pool.map(lambda _: run_grid(uniform_trial, [{"n": 4}], 6, seed=3,
                                                executor=ReverseExecutor(), batch_size=2), range(3)))
    assert all(ref.equals(o) for o in outs)
