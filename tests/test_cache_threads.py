"""Timing scopes and submission numbers under threads (the report job runs its checks in a few threads)."""

from __future__ import annotations

import contextvars
import threading

from simulations.cache import current_tags, next_seq, note_grid, timing_tags
from simulations.runner import _grid_batch_done, _grid_finished, _grid_started, batch_progress


def test_each_thread_has_its_own_scopes_on_top_of_the_copied_ones() -> None:
    seen: dict[str, dict] = {}
    grids: dict[str, list] = {}
    inside = threading.Barrier(2, timeout=10)

    def check(name: str) -> None:
        with timing_tags(check=name) as col:
            inside.wait()                 # both threads are inside their scope at once
            seen[name] = current_tags()
            note_grid(int(name[-1]), [f"key-of-{name}"])
            inside.wait()
            grids[name] = col.grids

    with timing_tags(run="r1") as run:
        threads = [threading.Thread(target=contextvars.copy_context().run, args=(check, n)) for n in ("c1", "c2")]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert current_tags() == {"run": "r1"}          # the threads' scopes never showed here
    assert seen == {"c1": {"run": "r1", "check": "c1"}, "c2": {"run": "r1", "check": "c2"}}
    assert grids == {"c1": [[1, ["key-of-c1"]]], "c2": [[2, ["key-of-c2"]]]}
    assert sorted(run.grids) == [[1, ["key-of-c1"]], [2, ["key-of-c2"]]]   # the run sees both
    assert current_tags() == {}


def test_submission_numbers_are_distinct_across_threads() -> None:
    got: list[int] = []
    lock = threading.Lock()

    def take() -> None:
        mine = [next_seq() for _ in range(2000)]
        with lock:
            got.extend(mine)

    threads = [threading.Thread(target=take) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(got)) == len(got) == 8000


def test_batch_progress_sums_the_running_grids_and_keeps_the_last() -> None:
    _grid_started(-1, 4)
    _grid_started(-2, 3)
    _grid_batch_done(-1)
    _grid_batch_done(-2)
    _grid_batch_done(-2)
    assert batch_progress() == (3, 7)
    _grid_finished(-1)
    assert batch_progress() == (2, 3)
    _grid_batch_done(-2)
    _grid_finished(-2)
    assert batch_progress() == (3, 3)                  # between grids: the one that finished last
