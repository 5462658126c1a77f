"""The trial runner and executors: reproducibility across executors, batch sizes and grids."""

from __future__ import annotations

import numpy as np
import pytest

from simulations.executors import LocalExecutor, SerialExecutor, get_executor
from simulations.runner import config_hash, run_grid, run_trials, trial_seeds, uniform_trial
from simulations.solvers import Certificate, CertificateError


def _failing_trial(config, rng):
    """Rejects odd draws with a failed certificate, measures the rest."""
    u = rng.random()
    if u < 0.5:
        raise CertificateError(Certificate("kkt", 1.0, 1e-10, 1.0))
    return {"u": u}


def test_same_numbers_on_every_executor_and_batch_size():
    cfgs = [{"n": 4}, {"n": 9}]
    ref = run_grid(uniform_trial, cfgs, 7, seed=11, executor="serial")
    with LocalExecutor(2) as ex:
        loc = run_grid(uniform_trial, cfgs, 7, seed=11, executor=ex, batch_size=2)
    assert ref.equals(loc)
    assert ref.equals(run_grid(uniform_trial, cfgs, 7, seed=11, batch_size=1))


def test_dask_local_cluster_gives_the_same_numbers():
    pytest.importorskip("distributed")
    ref = run_grid(uniform_trial, [{"n": 3}], 5, seed=2)
    with get_executor("dask", max_workers=1) as ex:
        assert ex.workers >= 1
        got = run_grid(uniform_trial, [{"n": 3}], 5, seed=2, executor=ex, batch_size=2)
    assert ref.equals(got)


def _square_or_fail(x: int) -> int:
    if x < 0:
        raise ValueError(f"negative {x}")
    return x * x


@pytest.mark.parametrize("name", ["serial", "local", "dask"])
def test_submit_runs_a_whole_job_and_reraises_its_error(name):
    if name == "dask":
        pytest.importorskip("distributed")
    with get_executor(name, max_workers=1 if name == "dask" else None) as ex:
        futs = [ex.submit(_square_or_fail, i) for i in (3, -1, 4)]
        assert futs[0].result() == 9 and futs[2].result() == 16
        with pytest.raises(ValueError, match="negative -1"):
            futs[1].result()
        # whole jobs and a trial map share the pool; the map's numbers do not change
        fut = ex.submit(_square_or_fail, 5)
        got = run_grid(uniform_trial, [{"n": 3}], 4, seed=2, executor=ex, batch_size=1)
        assert got.equals(run_grid(uniform_trial, [{"n": 3}], 4, seed=2)) and fut.result() == 25


def test_trial_i_does_not_depend_on_n_trials_or_other_configs():
    a = run_trials(uniform_trial, {"n": 5}, 3, seed=0)
    b = run_grid(uniform_trial, [{"n": 2}, {"n": 5}], 6, seed=0)
    b5 = b[b.n == 5].drop(columns="n").reset_index(drop=True)
    assert np.array_equal(a["mean"].to_numpy(), b5["mean"].to_numpy()[:3])


def test_seeds_differ_between_configs_and_trials_and_match_numpy():
    s1, s2 = trial_seeds({"n": 1}, 2, seed=0), trial_seeds({"n": 2}, 2, seed=0)
    states = {tuple(s.generate_state(4)) for s in s1 + s2}
    assert len(states) == 4
    # independent recomputation of the rule in the module docstring
    children = np.random.SeedSequence(0, spawn_key=(config_hash({"n": 1}),)).spawn(2)
    assert tuple(children[1].generate_state(4)) == tuple(s1[1].generate_state(4))
    u = np.random.default_rng(children[0]).random(1)
    assert run_trials(uniform_trial, {"n": 1}, 2, seed=0)["max"].iloc[0] == u[0]


def test_config_hash_ignores_key_order_and_sees_values():
    assert config_hash({"a": 1, "b": 2}) == config_hash({"b": 2, "a": 1})
    assert config_hash({"a": 1}) != config_hash({"a": 2})


def test_failed_certificates_are_rejected_not_measured():
    df = run_trials(_failing_trial, {}, 40, seed=3)
    rej = df["rejected"] == 1
    assert 0 < rej.sum() < 40
    assert df.loc[rej, "u"].isna().all() and (df.loc[~rej, "u"] >= 0.5).all()


def test_bad_arguments_name_the_parameter():
    with pytest.raises(ValueError, match="executor"):
        get_executor("gpu")
    with pytest.raises(ValueError, match="n_trials"):
        run_trials(uniform_trial, {"n": 1}, 0)
    with pytest.raises(ValueError, match="max_workers"):
        LocalExecutor(0)


def test_unreachable_dask_scheduler_is_a_value_error():
    pytest.importorskip("distributed")
    with pytest.raises(ValueError, match="scheduler"):
        get_executor("dask", scheduler="tcp://127.0.0.1:9")


def test_serial_executor_yields_in_order():
    with SerialExecutor() as ex:
        assert list(ex.map_unordered(lambda v: v * 2, [1, 2, 3])) == [(0, 2), (1, 4), (2, 6)]


CALLS: list[int] = []


def _counting_trial(config, rng):
    CALLS.append(config["n"])
    return {"x": float(rng.random())}


def test_cache_reuses_finished_batches_and_recomputes_only_changed_configs(tmp_path):
    CALLS.clear()
    first = run_grid(_counting_trial, [{"n": 1}, {"n": 2}], 6, seed=4, cache=tmp_path, batch_size=2)
    assert len(CALLS) == 12
    CALLS.clear()
    again = run_grid(_counting_trial, [{"n": 1}, {"n": 2}], 6, seed=4, cache=tmp_path, batch_size=2)
    assert CALLS == [] and first.equals(again)
    # one parameter changed: only that configuration runs
    changed = run_grid(_counting_trial, [{"n": 1}, {"n": 3}], 6, seed=4, cache=tmp_path, batch_size=2)
    assert CALLS == [3] * 6
    assert changed[changed.n == 1].reset_index(drop=True).equals(first[first.n == 1].reset_index(drop=True))


def test_interrupted_run_resumes_from_the_batches_it_finished(tmp_path):
    from simulations.cache import TrialCache

    full = run_trials(_counting_trial, {"n": 5}, 8, seed=1, batch_size=2)
    cache = TrialCache(tmp_path)
    # simulate an interruption after the first two batches: store only them
    run_trials(_counting_trial, {"n": 5}, 4, seed=1, batch_size=2, cache=cache)
    CALLS.clear()
    resumed = run_trials(_counting_trial, {"n": 5}, 8, seed=1, batch_size=2, cache=cache)
    assert len(CALLS) == 4 and resumed.equals(full)


# ---------------------------------------------------------------- configuration validation
def _undeclared_trial(config, rng):
    return {"x": float(config["m"])}


def test_a_missing_key_is_a_clear_value_error_not_a_bare_key_error() -> None:
    from simulations.runner import ConfigError, run_trials, uniform_trial

    # undeclared trial: the configuration raises ConfigError (a ValueError) naming the trial and the key
    with pytest.raises(ValueError, match=r"trial _undeclared_trial: configuration lacks key 'm'"):
        run_trials(_undeclared_trial, {"n": 1}, 1, executor="serial")
    # declared trial: refused before any trial runs, unknown keys too
    from simulations.runner import trial

    declared = trial(requires=("n",))(uniform_trial)
    try:
        with pytest.raises(ConfigError, match="lacks key 'n'"):
            run_trials(declared, {}, 1, executor="serial")
        with pytest.raises(ValueError, match="unknown key 'nn'"):
            run_trials(declared, {"n": 2, "nn": 3}, 1, executor="serial")
    finally:
        del uniform_trial.__trial_spec__


def test_trial_config_survives_pickling_with_its_name() -> None:
    import pickle

    from simulations.runner import ConfigError, _make_config

    c = pickle.loads(pickle.dumps(_make_config({"a": 1}, "my_trial")))
    assert c["a"] == 1 and c.get("b", 7) == 7
    with pytest.raises(ConfigError, match="trial my_trial: configuration lacks key 'b'"):
        c["b"]


def _batched_twin(config, rngs):
    """The rows of ``_twin_trial``, computed from all generators at once (one vectorised draw each)."""
    draws = np.stack([rng.random(int(config["n"])) for rng in rngs])
    return [{"mean": float(m), "max": float(x)} for m, x in zip(draws.mean(axis=1), draws.max(axis=1), strict=True)]


def _twin_trial(config, rng):
    u = rng.random(int(config["n"]))
    return {"mean": float(u.mean()), "max": float(u.max())}


def _failing_twin(config, rngs):
    raise CertificateError(Certificate("kkt", 1.0, 1e-10, 1.0))


def test_a_batched_twin_gives_the_rows_of_the_trial(monkeypatch):
    """A trial's ``batch`` twin is used for batches of several seeds and gives the same frame as one
    trial at a time, in every batch size; a twin raising a CertificateError falls back to the trials."""
    cfgs = [{"n": 5}, {"n": 3}]
    ref = run_grid(_twin_trial, cfgs, 9, seed=4, batch_size=1)
    calls = []

    def spy(config, rngs):
        calls.append(len(rngs))
        return _batched_twin(config, rngs)

    monkeypatch.setattr(_twin_trial, "batch", spy, raising=False)
    for bs in (2, 4, 9):
        calls.clear()
        assert ref.equals(run_grid(_twin_trial, cfgs, 9, seed=4, batch_size=bs))
        assert calls and max(calls) == bs
    monkeypatch.setattr(_twin_trial, "batch", _failing_twin, raising=False)
    assert ref.equals(run_grid(_twin_trial, cfgs, 9, seed=4, batch_size=4))


def test_one_blas_thread_limits_every_pool_and_restores_them():
    from threadpoolctl import threadpool_info

    from simulations import runner

    before = [(i["filepath"], i["num_threads"]) for i in threadpool_info()]
    for _ in range(2):                          # the second time with the cached controller
        with runner._one_blas_thread():
            inside = threadpool_info()
            assert inside and all(i["num_threads"] == 1 for i in inside)
        assert [(i["filepath"], i["num_threads"]) for i in threadpool_info()] == before


def test_a_declared_cost_bounds_the_task_size_and_changes_no_number():
    """``trial(cost=...)`` splits a costly configuration into more, smaller tasks, deterministically from
    the configuration; the rows are those of any other batching."""
    from simulations import runner
    from simulations.runner import default_batch_size, trial

    @trial(requires=("n",), cost=lambda c: 0.5 * c["n"])
    def costly(config, rng):
        u = rng.random(int(config["n"]))
        return {"mean": float(u.mean())}

    runner.costly_for_test = costly          # picklable by name for the batch tasks
    costly.__qualname__ = "costly_for_test"
    costly.__module__ = "simulations.runner"
    assert default_batch_size(costly, {"n": 1}, 40) == 5            # ceil(40 / 8), cost 0.5 s
    assert default_batch_size(costly, {"n": 10}, 40) == 3           # 15 s / 5 s
    assert default_batch_size(costly, {"n": 100}, 40) == 1
    ref = run_grid(costly, [{"n": 1}, {"n": 10}], 40, seed=2, batch_size=40)
    assert ref.equals(run_grid(costly, [{"n": 1}, {"n": 10}], 40, seed=2))
    try:
        del runner.costly_for_test
    except AttributeError:
        pass


def test_a_lone_batch_runs_inline_only_where_the_executor_allows_it():
    """A grid's last lone batch runs in the calling process for a small pool, on the cluster for Dask
    (whose class says inline_lone_batch = False); the rows are the same either way."""
    from simulations.executors import DaskExecutor

    class Recording(SerialExecutor):
        def __init__(self, inline):
            self.inline_lone_batch, self.calls = inline, 0

        def map_unordered(self, fn, items):
            self.calls += 1
            return super().map_unordered(fn, items)

    assert DaskExecutor.inline_lone_batch is False and LocalExecutor.inline_lone_batch is True
    rows = []
    for inline in (True, False):
        ex = Recording(inline)
        rows.append(run_grid(uniform_trial, [{"n": 3}], 4, seed=5, executor=ex, batch_size=4))
        assert ex.calls == (0 if inline else 1)
    assert rows[0].equals(rows[1])


class _StopAfter:
    """An executor view that delivers ``k`` results of a map and then raises KeyboardInterrupt (Ctrl-C
    in the main process while the cluster still runs the rest)."""

    def __new__(cls, inner, k):
        from simulations.executors import Executor

        class View(Executor):
            name = "stop-after"
            inline_lone_batch = False

            @property
            def workers(self):
                return inner.workers

            def map_unordered(self, fn, items):
                for n, out in enumerate(inner.map_unordered(fn, items)):
                    if n == k:
                        raise KeyboardInterrupt
                    yield out

            def submit(self, fn, item):
                return inner.submit(fn, item)

            def close(self):
                pass

            def terminate(self):
                pass

        return View()


def test_dask_scheduler_address_same_tasks_and_a_run_interrupted_on_the_cluster_resumes(tmp_path):
    """A scheduler given by address (a LocalCluster started apart, as a cluster would be): the same
    numbers; interrupted after 3 of 8 batches, the cache keeps those 3 and the rerun computes only
    the other 5 (counted by their timing records), giving the uninterrupted frame."""
    distributed = pytest.importorskip("distributed")
    from simulations.cache import read_timings

    cfgs = [{"n": 3}, {"n": 8}]
    ref = run_grid(uniform_trial, cfgs, 8, seed=4, batch_size=2)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with get_executor("dask", scheduler=cluster.scheduler_address) as ex:
            assert ex.workers >= 1
            assert run_grid(uniform_trial, cfgs, 8, seed=4, batch_size=2, executor=ex).equals(ref)
            with pytest.raises(KeyboardInterrupt):
                run_grid(uniform_trial, cfgs, 8, seed=4, batch_size=2, executor=_StopAfter(ex, 3),
                         cache=tmp_path)
            kept = [r for r in read_timings(tmp_path)[0] if r["kind"] == "batch"]
            assert len(kept) == 3
            again = run_grid(uniform_trial, cfgs, 8, seed=4, batch_size=2, executor=ex, cache=tmp_path)
    assert again.equals(ref)
    recs = [r for r in read_timings(tmp_path)[0] if r["kind"] == "batch"]
    assert len(recs) == 8 and len({r["key"] for r in recs}) == 8      # each batch computed once


def test_progress_bar_counts_tasks(capsys):
    """The bar's total is the number of tasks (batches) to run, on every executor: 2 configs × 4 batches."""
    run_grid(uniform_trial, [{"n": 3}, {"n": 4}], 8, seed=1, batch_size=2, progress=True, desc="bar")
    err = capsys.readouterr().err
    assert "0/8 " in err and "task/s" in err and "/16" not in err        # 16 would be trials
