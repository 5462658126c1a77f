"""Faults a user meets: a killed or interrupted run, Dask without workers or losing them, a tampered cache.

* SIGTERM / SIGINT stop ``python -m verify`` at once: exit 143 / 130 with one line, no worker left
  alive, the batches finished so far in the cache (intact), and a rerun resumes from them.
* ``--executor dask --scheduler ADDR`` with no worker fails after ``--worker-timeout`` s (exit 2, one line);
  ``DaskExecutor(n_workers=0)`` is refused at once.
* Every Dask worker lost mid-run (killed, or the cluster scaled to none) ends the run after
  ``--worker-timeout`` s with :class:`~simulations.executors.WorkersLost`: one line, exit 2, the
  finished batches kept; a task that kills its worker ends the same way; killed worker processes
  that a LocalCluster's nannies restart do not stop the run.  A local pool worker killed mid-run
  (the OOM killer) ends the same way, instead of a BrokenProcessPool traceback.
* Every trial-cache entry and symbolic-snapshot file carries a checksum: an edited, truncated,
  moved or older-format entry is rejected, recomputed and reported, and never changes a result.
"""

from __future__ import annotations

import json
import os
import pickle
import re
import shutil
import signal
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds import snapshot as S
from bounds.core import Registry
from bounds.snapshot import Store
from simulations import cache as C
from simulations.cache import TrialCache
from simulations.runner import run_grid, uniform_trial

ROOT = Path(__file__).resolve().parents[1]
#: a selection whose checks run many trial batches on the local pool (about 15 s of work on 2 cores)
ONLY = "jcc.thm2"


# -- helpers ------------------------------------------------------------------------------------

def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (parent pid, state, start time) of every process, from /proc."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            rest = Path(f"/proc/{d}/stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        out[int(d)] = (int(rest[1]), rest[0], rest[19])
    return out


def _descendants(pid: int) -> dict[int, str]:
    """The descendants of ``pid`` now: pid -> start time (to tell a reused pid apart)."""
    table = _proc_table()
    found: dict[int, str] = {}
    todo = [pid]
    while todo:
        parent = todo.pop()
        for child, (ppid, _, start) in table.items():
            if ppid == parent and child not in found:
                found[child] = start
                todo.append(child)
    return found


def _alive(procs: dict[int, str]) -> list[int]:
    """Those of ``procs`` still running (a zombie or a reused pid does not count)."""
    table = _proc_table()
    return [p for p, start in procs.items() if p in table and table[p][2] == start and table[p][1] != "Z"]


def _batches(cache: Path) -> dict[str, Path]:
    """Trial batches in a cache directory: key -> file."""
    return {p.stem: p for p in cache.glob("[0-9a-f][0-9a-f]/*.pkl")}


def _prewarm(cache: Path) -> None:
    """Copy the project's symbolic snapshot of the current ``bounds/`` (if any) into ``cache``.

    Only saves the workers the symbolic evaluation of the selected paper; a cold snapshot works too.
    """
    root = S.default_root()
    if root is None:
        return
    for src in (root / S.shared_digest(), root / "simplify"):   # evaluations, stored simplifications
        if src.is_dir():
            shutil.copytree(src, cache / "symbolic" / src.name, ignore=shutil.ignore_patterns(".*"),
                            dirs_exist_ok=True)


def _verify_cmd(tmp: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "verify", "--profile", "quick", "--only", ONLY, "--no-picks",
            "--cache", str(tmp / "cache"), "--out", str(tmp / "out"), *extra]


def _env() -> dict[str, str]:
    return dict(os.environ, OMP_NUM_THREADS="1")


def _start_and_signal(tmp: Path, sig: signal.Signals, min_batches: int = 1) -> dict:
    """Start ``python -m verify``, wait for its workers and ``min_batches`` cached batches, send ``sig``."""
    _prewarm(tmp / "cache")
    reset = (lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)) if sig == signal.SIGINT else None
    proc = subprocess.Popen(_verify_cmd(tmp), cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, start_new_session=True, preexec_fn=reset)
    seen: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            seen.update(_descendants(proc.pid))
            if len(seen) >= 2 and len(_batches(tmp / "cache")) >= min_batches:
                break
            time.sleep(0.1)
        assert proc.poll() is None, f"the run ended before the signal: {proc.communicate()}"
        assert len(seen) >= 2, f"no pool workers seen: {seen}"
        seen.update(_descendants(proc.pid))
        before = set(_batches(tmp / "cache"))
        t0 = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=30)
        seconds = time.monotonic() - t0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return {"code": proc.returncode, "out": out, "err": err, "seconds": seconds, "children": seen,
            "before": before}


# -- SIGTERM / SIGINT ---------------------------------------------------------------------------

@pytest.mark.parametrize("sig", [signal.SIGTERM, pytest.param(signal.SIGINT, marks=pytest.mark.slow)])
def test_signal_stops_the_run_kills_its_workers_and_keeps_finished_batches(tmp_path, sig):
    r = _start_and_signal(tmp_path, sig)
    assert r["code"] == 128 + sig, r["err"]
    assert r["seconds"] < 10, f"took {r['seconds']:.1f} s to exit"
    assert "Traceback" not in r["err"]
    lines = [ln for ln in r["err"].splitlines() if ln.startswith("interrupted")]
    assert len(lines) == 1 and lines[0] == r["err"].strip().splitlines()[-1], r["err"]
    # nothing orphaned: every worker (and any other child) of the run has exited
    time.sleep(0.2)
    assert _alive(r["children"]) == [], f"left alive: {_alive(r['children'])} of {r['children']}"
    # the batches finished before the signal are in the cache, intact, and the line counts them
    kept = _batches(tmp_path / "cache")
    assert r["before"] <= set(kept) and len(kept) >= 1
    m = re.search(rf"interrupted by {sig.name}: (\d+) batch(?:es)? kept in the cache (.+); rerun to resume", lines[0])
    assert m is not None and int(m.group(1)) == len(kept) and Path(m.group(2)) == tmp_path / "cache"
    cache = TrialCache(tmp_path / "cache")
    assert all(isinstance(cache.get(k), list) for k in kept) and cache.rejected == 0
    assert not list((tmp_path / "cache").rglob(".tmp-*"))          # no half-written entry
    assert not (tmp_path / "out").exists()                           # no half-written report


@pytest.mark.slow
def test_workers_exit_by_themselves_when_the_main_process_is_killed(tmp_path):
    r = _start_and_signal(tmp_path, signal.SIGKILL)            # no handler can run: the workers watch their parent
    assert r["code"] == -signal.SIGKILL
    deadline = time.monotonic() + 5
    while _alive(r["children"]) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _alive(r["children"]) == []
    cache = TrialCache(tmp_path / "cache")
    assert all(isinstance(cache.get(k), list) for k in _batches(tmp_path / "cache"))


@pytest.mark.slow
def test_rerun_resumes_from_kept_batches_and_a_tampered_entry_changes_no_result(tmp_path):
    r = _start_and_signal(tmp_path, signal.SIGTERM, min_batches=4)
    assert r["code"] == 143
    kept = {k: (p.stat().st_mtime_ns, p.read_bytes()) for k, p in _batches(tmp_path / "cache").items()}
    done = subprocess.run(_verify_cmd(tmp_path), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    after = _batches(tmp_path / "cache")
    # the rerun read the kept batches (never rewrote them) and computed only the others
    assert set(kept) < set(after)
    assert all((after[k].stat().st_mtime_ns, after[k].read_bytes()) == v for k, v in kept.items())
    summary = json.loads((tmp_path / "out" / "summary.json").read_text())

    # the tamper: edit cached rows so a check's statistic (and its verdict) would change
    tampered = sorted(after)[:6]
    for k in tampered:
        data = after[k].read_bytes()
        head, payload = data.split(b"\n", 1)
        rows = pickle.loads(payload)
        for row in rows:
            for col, v in row.items():
                if isinstance(v, float) and col != "trial":
                    row[col] = v * 1e3 + 1e3
        after[k].write_bytes(head + b"\n" + pickle.dumps(rows))      # the old checksum, a new payload
    again = subprocess.run(_verify_cmd(tmp_path), cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"rejected {len(tampered)} cache entries that failed their check ({len(tampered)} trial:" in again.stderr
    summary2 = json.loads((tmp_path / "out" / "summary.json").read_text())
    assert "cache_rejected" in summary2["provenance"]
    for key in ("verdicts", "statements", "empirical", "evidence"):
        assert json.dumps(summary2.get(key), sort_keys=True) == json.dumps(summary.get(key), sort_keys=True)
    assert all(TrialCache(tmp_path / "cache").get(k) is not None for k in tampered)   # recomputed, intact


# -- Dask without workers --------------------------------------------------------------------------

def test_dask_scheduler_without_workers_fails_fast_with_one_line(tmp_path):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        t0 = time.monotonic()
        p = subprocess.run(_verify_cmd(tmp_path, "--executor", "dask", "--scheduler", addr, "--worker-timeout", "1"),
                           cwd=ROOT, env=_env(), capture_output=True, text=True, timeout=120)
        seconds = time.monotonic() - t0
    assert p.returncode == 2 and seconds < 30, (p.returncode, seconds, p.stderr)
    assert p.stderr.count("\n") == 1 and p.stderr.startswith("error: ") and "Traceback" not in p.stderr
    assert addr in p.stderr and "no Dask worker" in p.stderr and "1 s" in p.stderr
    assert not (tmp_path / "out").exists()


def test_dask_executor_waits_for_a_worker_only_as_long_as_asked():
    distributed = pytest.importorskip("distributed")
    from simulations.executors import WORKER_TIMEOUT_S, DaskExecutor

    assert 10 <= WORKER_TIMEOUT_S <= 30
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        t0 = time.monotonic()
        with pytest.raises(ValueError, match=re.escape(cluster.scheduler_address)):
            DaskExecutor(cluster.scheduler_address, worker_timeout=0.5)
        assert time.monotonic() - t0 < 10
        with pytest.raises(ValueError, match="worker_timeout"):
            DaskExecutor(cluster.scheduler_address, worker_timeout=float("nan"))


def test_a_dask_executor_without_workers_is_refused_at_once():
    """The issue: ``DaskExecutor(n_workers=0)`` reported one worker and hung; now a ValueError, no cluster."""
    from simulations.executors import DaskExecutor

    for n in (0, -1, 1.5, True):
        with pytest.raises(ValueError, match="parameter 'n_workers'") as info:
            DaskExecutor(n_workers=n)
        assert "\n" not in str(info.value)


def _guard(ex, seconds: float = 120.0) -> threading.Timer:
    """Close ``ex`` after ``seconds`` (a hang becomes a failure instead of a stuck suite)."""
    t = threading.Timer(seconds, ex.terminate)
    t.daemon = True
    t.start()
    return t


def test_losing_every_worker_of_a_local_cluster_mid_run_raises_workers_lost():
    pytest.importorskip("distributed")
    from simulations.executors import DaskExecutor, WorkersLost

    ex = DaskExecutor(n_workers=1, worker_timeout=2)
    guard = _guard(ex)
    try:
        assert ex.workers == 1 and "1 workers" in ex.describe()
        pending = ex.submit(time.sleep, 0.3)
        got = []
        with pytest.raises(WorkersLost) as info:
            for i, _ in ex.map_unordered(time.sleep, [0.3] * 8):
                got.append(i)
                if len(got) == 1:
                    ex._cluster.scale(0)            # every worker gone, none to come back
        assert 1 <= len(got) < 8
        msg = str(info.value)
        assert "\n" not in msg and "no worker left" in msg and "2 s" in msg and "LocalCluster" in msg
        with pytest.raises(WorkersLost):            # a job's future too, instead of waiting for ever
            ex.submit(time.sleep, 0.1).result()
        try:                                        # finished before the loss, or lost: never a hang
            assert pending.result() is None
        except WorkersLost:
            pass
    finally:
        guard.cancel()
        ex.terminate()


def test_worker_processes_a_nanny_restarts_do_not_stop_the_run():
    pytest.importorskip("distributed")
    from simulations.executors import DaskExecutor

    ex = DaskExecutor(n_workers=1, worker_timeout=20)
    guard = _guard(ex)
    try:
        pids = list(ex._client.run(os.getpid).values())
        got = []
        for i, _ in ex.map_unordered(time.sleep, [0.2] * 6):
            got.append(i)
            if len(got) == 1:
                for pid in pids:
                    os.kill(pid, signal.SIGKILL)
        assert sorted(got) == list(range(6))
        assert set(ex._client.run(os.getpid).values()).isdisjoint(pids)     # a new worker process
        ref = run_grid(uniform_trial, [{"n": 4}, {"n": 9}], 6, seed=2, batch_size=2)
        assert run_grid(uniform_trial, [{"n": 4}, {"n": 9}], 6, seed=2, batch_size=2, executor=ex).equals(ref)
    finally:
        guard.cancel()
        ex.terminate()


def test_a_task_that_kills_its_workers_ends_in_workers_lost():
    pytest.importorskip("distributed")
    import dask

    from simulations.executors import DaskExecutor, WorkersLost

    with dask.config.set({"distributed.scheduler.allowed-failures": 0}):
        ex = DaskExecutor(n_workers=1, worker_timeout=20)
    guard = _guard(ex)
    try:
        with pytest.raises(WorkersLost, match="given up after the workers running it died"):
            ex.submit(os._exit, 3).result()
        with pytest.raises(WorkersLost, match="KilledWorker"):
            list(ex.map_unordered(os._exit, [4]))
    finally:
        guard.cancel()
        ex.terminate()


def test_a_local_worker_that_dies_breaks_the_pool_into_workers_lost():
    """A local worker killed (the OOM killer, say) breaks a ProcessPoolExecutor: WorkersLost, not a
    BrokenProcessPool traceback; the next submit says the same."""
    from simulations.executors import LocalExecutor, WorkersLost

    ex = LocalExecutor(1)
    try:
        assert ex.submit(abs, -1).result() == 1
        with pytest.raises(WorkersLost, match="executor 'local': a worker process died abruptly"):
            list(ex.map_unordered(os._exit, [3, 4]))
        with pytest.raises(WorkersLost):
            ex.submit(abs, -1)
    finally:
        ex.terminate()


@pytest.mark.slow
def test_killing_a_local_worker_mid_run_ends_the_command_in_one_line(tmp_path):
    _prewarm(tmp_path / "cache")
    proc = subprocess.Popen(_verify_cmd(tmp_path), cwd=ROOT, env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and not _batches(tmp_path / "cache"):
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        kids = sorted(_descendants(proc.pid))
        os.kill(kids[-1], signal.SIGKILL)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 2 and "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("  ")]
    assert len(lines) == 1 and lines[0].startswith("error: executor 'local': a worker process died"), err
    m = re.search(r"; (\d+) batch(?:es)? kept in the cache (.+); rerun to resume$", lines[0])
    kept = _batches(tmp_path / "cache")
    assert m is not None and int(m.group(1)) == len(kept) >= 1
    cache = TrialCache(tmp_path / "cache")
    assert all(isinstance(cache.get(k), list) for k in kept) and cache.rejected == 0


class _Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


class _StubClient:
    """A client whose scheduler reports the worker counts of a script (None: no answer)."""

    def __init__(self, counts: list[int | None]) -> None:
        self.counts = list(counts)

    def nthreads(self) -> dict:
        n = self.counts.pop(0) if self.counts else 1
        if n is None:
            raise OSError("scheduler gone")
        return {f"w{i}": 1 for i in range(n)}


@settings(max_examples=300, deadline=None)
@given(counts=st.lists(st.one_of(st.none(), st.integers(0, 3)), min_size=1, max_size=40),
       timeout=st.sampled_from([1.0, 2.5, 5.0, 20.0]), step=st.sampled_from([1.0, 1.5, 3.0]))
def test_fuzz_lost_workers_are_declared_exactly_after_the_timeout_without_any(counts, timeout, step):
    """The decision of :meth:`DaskExecutor.check_workers` over any script of worker counts: WorkersLost
    exactly when the scheduler has had no worker (or no answer) for ``worker_timeout`` seconds of polls."""
    with pytest.MonkeyPatch.context() as mp:
        _check_script(mp, counts, timeout, step)


def _check_script(monkeypatch, counts, timeout, step):
    from simulations import executors as E

    clock = _Clock()
    monkeypatch.setattr(E.time, "monotonic", clock)
    ex = E.DaskExecutor.__new__(E.DaskExecutor)
    ex._client, ex.scheduler, ex.worker_timeout = _StubClient(counts), "stub", timeout
    ex._empty_since, ex._last_poll = None, 0.0
    empty_since = None
    for n in counts:
        clock.t += step
        expect = None
        if n:
            empty_since = None
        else:
            empty_since = clock.t if empty_since is None else empty_since
            if clock.t - empty_since >= timeout:
                expect = E.WorkersLost
        if expect is None:
            ex.check_workers()
        else:
            with pytest.raises(E.WorkersLost, match=f"within {timeout:g} s"):
                ex.check_workers()
            return


@pytest.mark.slow
def test_killing_every_dask_worker_mid_run_ends_the_command_in_one_line(tmp_path):
    """End to end: ``python -m verify --executor dask --scheduler ADDR`` whose two ``dask worker``
    processes (with their nannies) are all killed once a batch is cached: exit 2 after about
    ``--worker-timeout`` s, one line naming the executor and the batches kept, those batches intact."""
    distributed = pytest.importorskip("distributed")
    _prewarm(tmp_path / "cache")
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1",
                                  dashboard_address=None) as cluster:
        addr = cluster.scheduler_address
        workers = [subprocess.Popen([sys.executable, "-m", "distributed.cli.dask_worker", addr, "--nthreads", "1",
                                     "--no-dashboard"], cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL,
                                    stderr=subprocess.DEVNULL, start_new_session=True) for _ in range(2)]
        proc = subprocess.Popen(_verify_cmd(tmp_path, "--executor", "dask", "--scheduler", addr,
                                            "--worker-timeout", "3"),
                                cwd=ROOT, env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline and proc.poll() is None and not _batches(tmp_path / "cache"):
                time.sleep(0.1)
            assert proc.poll() is None, proc.communicate()
            for w in workers:
                os.killpg(w.pid, signal.SIGKILL)
            t0 = time.monotonic()
            out, err = proc.communicate(timeout=120)        # a hang fails here
            seconds = time.monotonic() - t0
        finally:
            for w in workers:
                if w.poll() is None:
                    os.killpg(w.pid, signal.SIGKILL)
                w.wait()
            if proc.poll() is None:
                proc.kill()
                proc.communicate()
    assert proc.returncode == 2, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("  ")]   # progress lines indent
    assert len(lines) == 1 and "Traceback" not in err, err
    m = re.fullmatch(r"error: executor 'dask' at (\S+): no worker left and none joined within 3 s "
                     r"\(--worker-timeout\); the run stops; (\d+) batch(?:es)? kept in the cache (.+); rerun to resume",
                     lines[0])
    assert m is not None and m.group(1) == addr, lines[0]
    kept = _batches(tmp_path / "cache")
    assert int(m.group(2)) == len(kept) >= 1 and Path(m.group(3)) == tmp_path / "cache"
    cache = TrialCache(tmp_path / "cache")
    assert all(isinstance(cache.get(k), list) for k in kept) and cache.rejected == 0
    assert not (tmp_path / "out").exists()
    print(f"ended {seconds:.1f} s after every worker was killed (--worker-timeout 3)")


@pytest.mark.slow
def test_sigterm_during_a_dask_run_prints_one_line(tmp_path):
    pytest.importorskip("distributed")
    _prewarm(tmp_path / "cache")
    proc = subprocess.Popen(_verify_cmd(tmp_path, "--executor", "dask"), cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and proc.poll() is None and not _batches(tmp_path / "cache"):
            time.sleep(0.1)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 143 and "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("  ")]
    assert len(lines) == 1 and lines[0].startswith("interrupted by SIGTERM: "), err


# -- checksums: the trial cache -----------------------------------------------------------------------

def _flip_a_float(payload: bytes) -> bytes:
    """``payload`` with the first pickled float (BINFLOAT) changed: still a valid pickle, another value."""
    i = payload.index(b"G")            # BINFLOAT opcode, then 8 big-endian bytes
    while True:
        try:
            (x,) = struct.unpack(">d", payload[i + 1:i + 9])
            if 0 < abs(x) < 1e300:
                break
        except struct.error:
            pass
        i = payload.index(b"G", i + 1)
    return payload[:i + 1] + struct.pack(">d", x + 0.5) + payload[i + 9:]


def _entry(cache: TrialCache) -> tuple[str, Path, list[dict]]:
    k = cache.key("mod.trial", {"m": 10}, 0, 0, 2, code="c")
    rows = [{"trial": 0, "x": 0.25, "rejected": 0}, {"trial": 1, "x": 0.75, "rejected": 0}]
    cache.put(k, rows)
    return k, cache._path(k), rows


def test_a_flipped_byte_in_an_entry_is_rejected_logged_and_recomputed(tmp_path):
    cache = TrialCache(tmp_path)
    k, path, rows = _entry(cache)
    assert cache.get(k) == rows and cache.rejected == 0
    head, payload = path.read_bytes().split(b"\n", 1)
    bad = _flip_a_float(payload)
    assert pickle.loads(bad) != rows and isinstance(pickle.loads(bad), list)   # a plausible, wrong entry
    path.write_bytes(head + b"\n" + bad)
    n0 = len(C.rejected_entries())
    assert cache.get(k) is None and cache.rejected == 1
    assert C.rejected_entries()[n0:] == [(str(path), C.MAC_MISMATCH)]
    assert not path.exists()                                            # a miss from now on
    assert C.read_reject_log(cache.reject_log) == [(str(path), C.MAC_MISMATCH)]
    cache.put(k, rows)                                                  # the recomputed batch
    assert cache.get(k) == rows


@pytest.mark.parametrize("damage", ["truncate", "old format", "empty", "moved", "header"])
def test_damaged_entries_are_misses_not_crashes(tmp_path, damage):
    cache = TrialCache(tmp_path)
    k, path, rows = _entry(cache)
    data = path.read_bytes()
    if damage == "truncate":
        path.write_bytes(data[:-7])
    elif damage == "old format":                   # what the cache wrote before checksums
        path.write_bytes(pickle.dumps(rows, protocol=pickle.HIGHEST_PROTOCOL))
    elif damage == "empty":
        path.write_bytes(b"")
    elif damage == "header":
        path.write_bytes(data[:40])
    else:                                          # an intact entry of another key, copied here
        other = cache.key("mod.trial", {"m": 11}, 0, 0, 2, code="c")
        cache.put(other, [{"trial": 0, "x": 9.0, "rejected": 0}])
        path.write_bytes(cache._path(other).read_bytes())
    assert cache.get(k) is None and cache.rejected == 1
    assert len(C.read_reject_log(cache.reject_log)) == 1


def test_a_tampered_batch_never_changes_the_results_of_a_run(tmp_path):
    configs = [{"n": 5}, {"n": 50}]
    first = run_grid(uniform_trial, configs, 8, seed=3, batch_size=2, cache=tmp_path)
    files = sorted(tmp_path.glob("??/*.pkl"))
    assert len(files) == 8
    for f in files[:3]:                            # the edit from the issue: rows that flip a check
        head, payload = f.read_bytes().split(b"\n", 1)
        rows = pickle.loads(payload)
        for row in rows:
            row["max"] = 5.0                       # a uniform's max can never exceed 1
        f.write_bytes(head + b"\n" + pickle.dumps(rows))
    log = tmp_path / C.REJECT_LOG
    again = run_grid(uniform_trial, configs, 8, seed=3, batch_size=2, cache=tmp_path)
    assert again.equals(first) and again["max"].max() < 1
    assert len(C.read_reject_log(log)) == 3
    assert run_grid(uniform_trial, configs, 8, seed=3, batch_size=2, cache=tmp_path).equals(first)
    assert len(C.read_reject_log(log)) == 3          # rewritten intact: nothing rejected the second time


# -- checksums: the symbolic snapshot -------------------------------------------------------------

def _demo(calls: list[str]):
    """A one-paper registry source: ``demo.dep`` derived (counting calls in ``calls``)."""
    from bounds.paper import Paper
    from bounds.symbols import S as sym

    demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")

    def derive_dep(dep):
        calls.append("dep")
        return 2 / sym.m

    demo.add("dep", "Lemma 1", "lemma", "q", 2 / sym.m, derive=derive_dep, relation="upper",
             params=("m",), doc="Doe (2026), Lemma 1.")
    return demo


def test_a_tampered_snapshot_entry_is_rejected_and_evaluated_again(tmp_path):
    calls: list[str] = []
    store = Store(tmp_path, digest="d")
    good = Registry([_demo(calls)], store=store).evaluate("demo.dep").status
    path = store._eval_path("demo.dep")
    head, payload = path.read_bytes().split(b"\n", 1)
    tup = pickle.loads(payload)
    other = "premise" if tup[3] != "premise" else "erratum"
    bad = payload.replace(tup[3].encode(), other.encode()) if len(other) == len(tup[3]) else \
        pickle.dumps((*tup[:3], other, *tup[4:]))
    assert pickle.loads(bad)[3] == other                     # a valid pickle with a flipped status
    path.write_bytes(head + b"\n" + bad)
    assert not store.has("demo.dep") and not path.exists()   # checked and rejected, not just present
    assert len(C.read_reject_log(store.reject_log)) == 1
    path.write_bytes(head + b"\n" + bad)
    calls.clear()
    ev = Registry([_demo(calls)], store=store).evaluate("demo.dep")
    assert ev.status == good and calls == ["dep", "dep"]     # evaluated again, not read
    assert store.get("demo.dep")[3] == good                  # and stored again, intact
    assert len(C.read_reject_log(store.reject_log)) == 2


@pytest.mark.parametrize("damage", ["truncate", "old format"])
def test_damaged_snapshot_files_are_misses(tmp_path, damage):
    store = Store(tmp_path, digest="d")
    full = Registry([_demo([])], store=store)
    tup = full.evaluate("demo.dep")
    store.save_registry(full)
    for path in (store._eval_path("demo.dep"), store.dir / "paper" / "demo.pkl"):
        data = path.read_bytes()
        path.write_bytes(data[:-5] if damage == "truncate" else data.split(b"\n", 1)[1])
    assert store.get("demo.dep") is None
    assert store.light_registry() is None                    # a rejected paper: the caller falls back
    store.save_registry(full)                                # rewrites the rejected paper
    assert store.light_registry() is not None and tup.status == full.evaluate("demo.dep").status


def test_the_command_line_counts_rejected_entries_of_both_caches(tmp_path):
    from verify.cli import _reject_logs, _rejections

    cache = TrialCache(tmp_path)
    k, path, _ = _entry(cache)
    store = Store(tmp_path / "symbolic", digest="d")
    store.put("demo.a", ("x", None, [], "consistent", "", ()))
    cache.get("absent")
    cache.get(k)
    logs = _reject_logs(str(tmp_path), str(tmp_path))        # sizes before the run
    assert _rejections(logs) == ({}, [])
    path.write_bytes(path.read_bytes()[:-1])
    store._eval_path("demo.a").write_bytes(b"junk")
    assert cache.get(k) is None and store.get("demo.a") is None
    counts, where = _rejections(logs)
    assert counts == {"trial": 1, "symbolic": 1}
    assert where == [str(cache.reject_log), str(store.reject_log)]
