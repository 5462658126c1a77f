"""The measured plan: LPT arithmetic, the timing records of trial batches and jobs, ``--plan``."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from simulations.cache import TIMINGS, append_timings, read_timings, timing_tags
from simulations.executors import SerialExecutor
from simulations.runner import run_grid, uniform_trial
from verify.cli import main
from verify.plan import (
    NoTimings,
    Plan,
    Task,
    TimingExecutor,
    build_plan,
    dispatch_makespan,
    lpt_makespan,
)

# -- LPT arithmetic ----------------------------------------------------------------------------

@pytest.mark.parametrize(("costs", "workers", "makespan"), [
    ([3, 3, 2, 2, 2], 2, 7.0),          # LPT's classic worst case for m = 2 (optimum 6)
    ([5, 1, 1, 1, 1, 1], 2, 5.0),       # the long task alone, the short ones beside it
    ([2] * 8, 3, 6.0),
    ([4, 1, 2], 1, 7.0),                # one worker: the sum
    ([4, 1, 2], 10, 4.0),               # more workers than tasks: the longest
    ([], 3, 0.0),
])
def test_lpt_makespan_known_cases(costs, workers, makespan) -> None:
    assert lpt_makespan(costs, workers) == makespan


def _optimum(costs: list[float], workers: int) -> float:
    best = float("inf")
    for assign in itertools.product(range(workers), repeat=len(costs)):
        loads = [0.0] * workers
        for c, w in zip(costs, assign, strict=True):
            loads[w] += c
        best = min(best, max(loads))
    return best


def test_lpt_makespan_within_grahams_bounds_and_four_thirds_of_the_optimum() -> None:
    rng = np.random.default_rng(7)
    for _ in range(300):
        n, m = int(rng.integers(1, 8)), int(rng.integers(1, 4))
        costs = list(rng.exponential(1.0, n) * rng.choice([1, 10], n))
        got = lpt_makespan(costs, m)
        total, longest = sum(costs), max(costs)
        assert max(longest, total / m) - 1e-9 <= got <= total / m + longest + 1e-9
        assert got <= (4 / 3 - 1 / (3 * m)) * _optimum(costs, m) + 1e-9


def test_lpt_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="workers"):
        lpt_makespan([1.0], 0)
    with pytest.raises(ValueError, match="cost"):
        lpt_makespan([1.0, -2.0], 2)


def test_dispatch_replays_grids_one_after_another() -> None:
    def grid(seq: int, *costs: float, **kw) -> list[Task]:
        return [Task("g", "batch", c, c, seq, **kw) for c in costs]

    # two grids of two 4-s batches on 4 workers: the second waits for the first (LPT would pack them)
    tasks = grid(1, 4, 4) + grid(2, 4, 4)
    assert dispatch_makespan(tasks, 4) == 8.0 and lpt_makespan([t.cpu_s for t in tasks], 4) == 4.0
    # a submitted job is not waited for: the grids run beside it
    job = [Task("audit", "job", 10, 10, 0, waited=False)]
    assert dispatch_makespan(job + tasks, 3) == 10.0
    assert dispatch_makespan(job + tasks, 1) == 26.0          # one FIFO worker: everything in order
    # a grid with one batch runs in the main process, beside the workers
    assert dispatch_makespan(job + grid(1, 3, in_main=True), 1) == 10.0


def test_plan_projection_is_lpt_plus_the_serial_part() -> None:
    rng = np.random.default_rng(3)
    tasks = [Task(f"c{i % 3}", "batch", float(c), float(c) * 1.1, i // 4) for i, c in enumerate(rng.exponential(2, 40))]
    plan = Plan("p", 0, "synthetic", tasks, serial_cpu_s=5.0, measured={})
    total = sum(t.cpu_s for t in tasks)
    for n in (1, 2, 16, 64):
        p = plan.project(n)
        assert p["lower_s"] - 1e-9 <= p["lpt_s"] <= p["upper_s"] + 1e-9
        assert p["projected_s"] == pytest.approx(p["lpt_s"] + 5.0)
        assert p["dispatch_s"] >= p["lower_s"] + 5.0 - 1e-9          # no schedule beats Graham's lower bound
    assert plan.project(1)["lpt_s"] == pytest.approx(total)
    assert sum(g["tasks"] for g in plan.groups()) == 40 and len(plan.groups()) == 3
    assert sum(g["cpu_s"] for g in plan.groups()) == pytest.approx(total)


# -- recording ---------------------------------------------------------------------------------

CONFIGS = [{"n": 3}, {"n": 50}]


def _batches(d: Path) -> list[dict]:
    return [r for r in read_timings(d)[0] if r.get("kind") == "batch"]


def test_one_timing_per_executed_batch_none_for_cached_ones_results_unchanged(tmp_path: Path) -> None:
    plain = run_grid(uniform_trial, CONFIGS, 7, seed=5, batch_size=3)          # no cache, nothing recorded
    with timing_tags(profile="tiny", seed=5, run="r1") as scope:
        first = run_grid(uniform_trial, CONFIGS, 7, seed=5, batch_size=3, cache=tmp_path, desc="tiny grid")
    assert first.equals(plain)
    recs = _batches(tmp_path)
    assert len(recs) == 6                                            # 2 configs × ceil(7 / 3) batches
    assert sorted((r["config"], r["start"], r["trials"]) for r in recs) == sorted(
        (h, s, t) for h in {r["config"] for r in recs} for s, t in ((0, 3), (3, 3), (6, 1)))
    assert len({r["config"] for r in recs}) == 2
    assert sum(r["wall_s"] for r in recs) > 0
    assert all(r["cpu_s"] >= 0 and r["wall_s"] >= 0 and r["desc"] == "tiny grid" and r["profile"] == "tiny"
               and r["run"] == "r1" and r["fn"] == "simulations.runner.uniform_trial" for r in recs)
    assert scope.grids and sorted(scope.grids[0][1]) == sorted(r["key"] for r in recs)
    before = (tmp_path / TIMINGS).read_bytes()
    # a rerun from the cache: the same rows, no record added, none lost
    again = run_grid(uniform_trial, CONFIGS, 7, seed=5, batch_size=3, cache=tmp_path, executor="local")
    assert again.equals(plain) and (tmp_path / TIMINGS).read_bytes() == before
    # one configuration changed: only its batches run, and only they are recorded
    changed = run_grid(uniform_trial, [{"n": 3}, {"n": 51}], 7, seed=5, batch_size=3, cache=tmp_path,
                       executor="local")
    new = _batches(tmp_path)[6:]
    assert len(new) == 3 and {r["config"] for r in new}.isdisjoint({r["config"] for r in recs})
    assert changed[changed.n == 3].reset_index(drop=True).equals(plain[plain.n == 3].reset_index(drop=True))


def test_a_torn_line_is_skipped_and_counted(tmp_path: Path) -> None:
    append_timings(tmp_path, [{"kind": "batch", "cpu_s": 1.0}])
    with open(tmp_path / TIMINGS, "a") as fh:
        fh.write('{"kind": "batch", "cpu')                         # a writer killed mid-line
    recs, bad = read_timings(tmp_path)
    assert recs == [{"kind": "batch", "cpu_s": 1.0}] and bad == 1


def _nested_job(n: int) -> int:
    """A job that runs a small trial grid itself (as an audit job does), with the cache of its task."""
    df = run_grid(uniform_trial, [{"n": n}], 4, seed=2, batch_size=2, cache=_nested_job.cache, desc="nested")
    return len(df)


def test_timing_executor_records_jobs_and_the_batches_they_ran(tmp_path: Path) -> None:
    _nested_job.cache = tmp_path
    tags = {"run": "r2", "profile": "tiny", "seed": 0}
    with timing_tags(**tags):
        tex = TimingExecutor(SerialExecutor(), tmp_path, tags)
        assert tex.submit(_nested_job, 4).result() == 4
        assert [v for _, v in tex.map_unordered(abs, [-1, -2])] == [1, 2]
        assert tex.submit(_nested_job, 4).result() == 4                # its batches now come from the cache
    recs = read_timings(tmp_path)[0]
    jobs = [r for r in recs if r["kind"] == "job"]
    nested = [r for r in recs if r["kind"] == "batch"]
    assert len(nested) == 2 and all(r["in_job"] == "_nested_job" and r["run"] == "r2" for r in nested)
    assert [j["label"] for j in jobs] == ["_nested_job", "abs", "abs", "_nested_job"]
    first, last = jobs[0], jobs[-1]
    assert sorted(first["nested_keys"]) == sorted(r["key"] for r in nested) == sorted(last["nested_keys"])
    assert first["nested_cpu_s"] == pytest.approx(sum(r["cpu_s"] for r in nested), abs=1e-3)
    assert last["nested_cpu_s"] == 0 and first["cpu_s"] >= first["nested_cpu_s"] - 1e-3
    assert all(j["in_main"] for j in jobs)                             # the serial executor runs them here
    assert [j[1] for j in tex.jobs] == ["_nested_job", "abs", "abs", "_nested_job"]


# -- the plan from records, and --plan -----------------------------------------------------------

def _synthetic_cache(d: Path) -> None:
    """A run of profile 'tiny': grid 1 (3 batches), grid 2 (1 batch, in main), an audit job and a figure."""
    b = [{"kind": "batch", "key": f"k{i}", "desc": "risk" if i < 3 else "lemma", "cpu_s": c, "wall_s": c,
          "run": "r1", "profile": "tiny", "seed": 0, "in_main": i == 3} for i, c in enumerate([4.0, 3.0, 2.0, 1.0])]
    nb = {"kind": "batch", "key": "n0", "cpu_s": 6.0, "wall_s": 6.0, "in_job": "audit x", "run": "r1"}
    audit = {"kind": "job", "label": "audit x", "group": "audit", "cpu_s": 7.0, "wall_s": 7.0, "nested_keys": ["n0"],
             "nested_cpu_s": 6.0, "run": "r1", "profile": "tiny", "seed": 0, "in_main": False}
    fig = {"kind": "job", "label": "figures rate 0", "group": "figures", "cpu_s": 0.5, "wall_s": 0.5,
           "run": "r1", "profile": "tiny", "seed": 0, "in_main": False}
    run = {"kind": "run", "run": "r1", "profile": "tiny", "seed": 0, "executor": "local (2 workers)", "workers": 2,
           "wall_s": 12.0, "main_cpu_s": 3.0, "children_cpu_s": 16.5, "cores": 2, "machine_cpu_s": 25.5,
           "grids": [[2, ["k0", "k1", "k2"]], [3, ["k3"]], [4, ["k0", "k1", "k2"]]],
           "jobs": [[1, "audit x", "audit", False], [5, "figures rate 0", "figures", True]]}
    # a warm rerun: the audit read its batch from the cache, no batch ran
    warm_audit = {**audit, "run": "r2", "cpu_s": 1.5, "nested_cpu_s": 0.0}
    warm = {**run, "run": "r2", "main_cpu_s": 1.0, "wall_s": 3.0}
    append_timings(d, [*b, nb, audit, fig, run, warm_audit, warm])


def test_build_plan_costs_the_latest_run_as_from_an_empty_cache(tmp_path: Path) -> None:
    _synthetic_cache(tmp_path)
    plan = build_plan(tmp_path, "tiny", 0)
    by = {g["label"]: g for g in plan.groups()}
    assert by["risk"]["tasks"] == 3 and by["risk"]["cpu_s"] == 9.0 and by["risk"]["longest_s"] == 4.0
    assert by["audit x"]["cpu_s"] == 7.0                              # as the cold run measured it
    assert plan.cpu_s == pytest.approx(9.0 + 1.0 + 7.0 + 0.5) and plan.longest_s == 7.0
    assert plan.measured["run"] == "r1"                                # the latest run that computed every batch
    assert plan.serial_cpu_s == pytest.approx(3.0 - 1.0)               # less the batch it ran itself
    assert plan.missing == {"batches": 0, "jobs": 0}
    assert any("1 later run" in n for n in plan.notes)
    p = plan.project(2)
    assert p["lpt_s"] == lpt_makespan([4, 3, 2, 1, 7.0, 0.5], 2) == 9.0
    assert p["projected_s"] == pytest.approx(11.0)
    # others used 25.5 - 3 - 16.5 = 6 s CPU in 12 s: half a core of two; the projection is scaled by 2 / 1.5
    check = plan.check_measured()
    assert check["measured_s"] == 12.0 and check["cores_left"] == pytest.approx(1.5)
    assert check["scaled_s"] == pytest.approx(11.0 * 2 / 1.5, abs=0.01)
    with pytest.raises(NoTimings, match="python -m verify --profile other"):
        build_plan(tmp_path, "other", 0)


def test_without_a_cold_run_a_warm_job_is_rebuilt_from_the_batches_it_read(tmp_path: Path) -> None:
    _synthetic_cache(tmp_path)
    recs = [r for r in read_timings(tmp_path)[0] if not (r["kind"] == "run" and r["run"] == "r1")]
    (tmp_path / TIMINGS).unlink()
    append_timings(tmp_path, recs)                                    # the cold run's record is gone
    plan = build_plan(tmp_path, "tiny", 0)
    by = {g["label"]: g for g in plan.groups()}
    assert plan.measured["run"] == "r2"
    assert by["audit x"]["cpu_s"] == pytest.approx(1.5 - 0.0 + 6.0)    # its own CPU + its batch's recorded cost
    assert plan.serial_cpu_s == pytest.approx(1.0)                    # r2 ran no task in its main process
    assert any("no recorded run computed every batch" in n for n in plan.notes)


def test_plan_command_text_json_and_no_timings(tmp_path: Path, capsys) -> None:
    _synthetic_cache(tmp_path)
    assert main(["--plan", "--profile", "quick", "--cache", str(tmp_path)]) == 1
    assert "run `python -m verify --profile quick" in capsys.readouterr().err
    # profile 'tiny' is not in profiles.toml: build the plan the way --plan does, under the real name check
    assert main(["--plan", "--profile", "tiny", "--cache", str(tmp_path)]) == 2
    assert "--profile" in capsys.readouterr().err
    assert main(["--workers", "4"]) == 2 and "only with --plan" in capsys.readouterr().err
    assert main(["--plan", "--workers", "0", "--cache", str(tmp_path)]) == 2
    capsys.readouterr()
    # the same records under a real profile name
    lines = (tmp_path / TIMINGS).read_text().replace('"tiny"', '"quick"')
    (tmp_path / TIMINGS).write_text(lines)
    assert main(["--plan", "--profile", "quick", "--cache", str(tmp_path), "--workers", "2", "64", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert [p["workers"] for p in js["projections"]] == [2, 64]
    assert js["totals"]["tasks"] == 6 and js["serial_cpu_s"] == 2.0
    assert js["projections"][1]["lpt_s"] == 7.0 and js["projections"][1]["projected_s"] == 9.0
    assert main(["--plan", "--profile", "quick", "--cache", str(tmp_path), "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "risk" in out and "serial part: 2.0 s CPU" in out and "measured wall time: 12.0 s" in out


@pytest.fixture()
def keep_symbolic_store():
    """The report job points the registry's snapshot at its cache: point it back afterwards."""
    from bounds import registry

    store = registry.store
    yield
    registry.store = store


def test_the_report_job_tags_its_records_and_a_rerun_adds_no_batch(tmp_path: Path, capsys,
                                                                  keep_symbolic_store) -> None:
    cache, out = tmp_path / "c", tmp_path / "r"
    argv = ["--only", "jamp.lemma2*", "--profile", "quick", "--executor", "serial", "--no-picks",
            "--cache", str(cache), "--out", str(out)]
    assert main(argv) == 0
    first = (out / "results" / "empirical.csv").read_text()
    recs = read_timings(cache)[0]
    batches = [r for r in recs if r["kind"] == "batch"]
    assert batches and all(r["profile"] == "quick" and r["seed"] == 0 and r["run"] == batches[0]["run"]
                           and r["check"].startswith("jamp.lemma2") for r in batches)
    sym = {r["label"] for r in recs if r["kind"] == "job" and r["group"] == "symbolic"}
    assert sym and all(label.startswith("symbolic jamp.") for label in sym)    # one job per statement
    assert not [r for r in recs if r["kind"] == "run"]          # --only: not a run of the whole profile
    assert main(argv) == 0                                       # from the cache
    again = read_timings(cache)[0]
    assert (out / "results" / "empirical.csv").read_text() == first
    assert again[:len(recs)] == recs and not [r for r in again[len(recs):] if r["kind"] == "batch"]
    capsys.readouterr()


# -- calibration -------------------------------------------------------------------------------

_CLOCK = [0.0]


def _clocked_trial(config, rng):
    """A trial that costs exactly ``work`` seconds of the fake clock."""
    _CLOCK[0] += float(config["work"])
    return {"u": float(rng.random())}


def test_calibration_runs_the_first_k_trials_and_costs_every_planned_batch(tmp_path: Path) -> None:
    from simulations.runner import calibrating, calibration

    configs = [{"n": 3}, {"n": 50}]
    plain = run_grid(uniform_trial, configs, 7, seed=5, batch_size=3)
    assert calibrating() is None
    with timing_tags(profile="tiny", seed=5, run="c1") as scope, calibration(2):
        assert calibrating() == 2
        sample = run_grid(uniform_trial, configs, 7, seed=5, batch_size=3, cache=tmp_path, desc="cal")
    assert calibrating() is None
    # the rows are those trials 0 and 1 give in a real run (same seeds)
    first = plain[plain.trial < 2].reset_index(drop=True)
    assert sample.reset_index(drop=True).equals(first)
    recs = _batches(tmp_path)
    # one estimated record per batch the real run would compute, with its real key and size
    assert sorted((r["start"], r["trials"]) for r in recs) == sorted([(0, 3), (3, 3), (6, 1)] * 2)
    assert all(r["estimated"] == 2 and r["desc"] == "cal" for r in recs)
    assert sorted(scope.grids[0][1]) == sorted(r["key"] for r in recs)
    for h in {r["config"] for r in recs}:          # cost proportional to the batch's trials
        mine = sorted((r["trials"], r["cpu_s"]) for r in recs if r["config"] == h)
        per = mine[-1][1] / 3
        assert all(c == pytest.approx(t * per, rel=1e-4, abs=1e-6) for t, c in mine)
    # nothing read from or written to the cache: a real run afterwards computes every batch
    again = run_grid(uniform_trial, configs, 7, seed=5, batch_size=3, cache=tmp_path)
    assert again.equals(plain) and len(_batches(tmp_path)) == 12
    with pytest.raises(ValueError, match="'k' = 0 of calibration"):
        calibration(0)


def test_calibrated_cost_matches_the_measured_cost_of_the_whole_grid(tmp_path: Path, monkeypatch) -> None:
    """Trials of equal cost (a fake CPU clock, serial executor): the calibration's estimate of every
    batch is the real run's measurement, for batches larger and smaller than the sample."""
    import simulations.runner as runner
    from simulations.runner import calibration

    monkeypatch.setattr(runner.time, "process_time", lambda: _CLOCK[0])
    configs = [{"work": 2.0}, {"work": 7.0}]
    with timing_tags(run="real"):
        run_grid(_clocked_trial, configs, 11, batch_size=4, cache=tmp_path / "real")
    with timing_tags(run="cal"), calibration(3):
        run_grid(_clocked_trial, configs, 11, batch_size=4, cache=tmp_path / "cal")
    real = {r["key"]: r["cpu_s"] for r in _batches(tmp_path / "real")}
    cal = {r["key"]: r["cpu_s"] for r in _batches(tmp_path / "cal")}
    assert real.keys() == cal.keys() and len(real) == 6
    assert sorted(real.values()) == [6.0, 8.0, 8.0, 21.0, 28.0, 28.0]
    assert cal == pytest.approx(real)


def test_a_plan_from_a_calibration_run_says_it_is_estimated(tmp_path: Path, capsys) -> None:
    _synthetic_cache(tmp_path)
    lines = (tmp_path / TIMINGS).read_text().replace('"tiny"', '"quick"')
    cal = tmp_path / "calibration"
    cal.mkdir()
    (cal / TIMINGS).write_text(lines.replace('"run": "r', '"calibration": 2, "run": "r'))
    plan = build_plan(cal, "quick", 0)
    assert plan.measured["calibration"] == 2 and plan.check_measured() is None
    assert any(n.startswith("estimated, not measured") for n in plan.notes)
    # --plan without a measured run falls back to the calibration's records
    assert main(["--plan", "--profile", "quick", "--cache", str(tmp_path), "--workers", "2"]) == 0
    out = capsys.readouterr().out
    assert "estimated from calibration run" in out and "measured wall time" not in out
    # bad combinations: one line, status 2
    for argv, msg in ((["--calibrate", "--plan"], "drop --plan"), (["--calibrate", "0"], "at least 1"),
                      (["--calibrate", "--no-cache"], "does not apply with --calibrate"),
                      (["--calibrate", "--only", "jia.*"], "does not apply with --calibrate")):
        assert main(argv) == 2, argv
        assert msg in capsys.readouterr().err
