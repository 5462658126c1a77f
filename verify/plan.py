"""The measured plan of a profile: what ``python -m verify --profile P`` costs, and its wall time on N workers.

A run of the report job with a trial cache records what it computed, in the append-only file
``<cache>/timings.jsonl`` (:data:`simulations.cache.TIMINGS`), one JSON object a line:

``kind = "batch"``
    one trial batch that ran (never one read from the cache): ``fn`` (trial function), ``desc``
    (progress label), ``check`` (the check that asked for it), ``config`` (configuration hash),
    ``key`` (the batch's cache key, first 20 characters), ``start`` and ``trials`` (its trial
    range), ``cpu_s`` and ``wall_s`` (``time.process_time`` and ``time.perf_counter`` around the
    batch, in the process that ran it), ``in_main`` (it ran in the main process), ``seq`` (the
    number of its trial grid in the run's order), ``in_job`` (the job it ran inside, if any),
    ``t`` (Unix time of its record), ``t0`` and ``pid`` (when it started, Unix time, and the process
    that ran it: the run's timeline), and the run's tags ``run``, ``profile``, ``seed``.
``kind = "job"``
    one whole job the report job submitted to its executor (:class:`TimingExecutor`): the
    symbolic evaluation of a paper, an audit, the auditor's calibration, a group of figures;
    ``label``, ``group``, ``fn``, ``cpu_s``, ``wall_s``, ``in_main``, ``seq``, ``t``, ``t0``, ``pid``, the run's
    tags, and the batches it ran inside: ``nested_keys`` (run or read) and ``nested_cpu_s`` (CPU of
    those it ran).
``kind = "run"``
    one finished run of the whole profile (written last): ``executor``, ``workers``, ``wall_s``
    (of the report job), ``main_cpu_s`` (user + system CPU of the main process over the run, from
    ``resource.getrusage``), ``children_cpu_s`` (the CPU of the worker processes it reaped),
    ``cores`` and ``machine_cpu_s`` (the CPU every process of the machine used meanwhile, from
    ``/proc/stat``: what other processes took from the run),
    ``grids`` (its trial grids in order, each ``[seq, [batch keys]]``, also those read from the
    cache) and ``jobs`` (``[seq, label, group, waited]`` in submission order).

:func:`build_plan` reads them back: the tasks of the latest run of the profile and seed that
computed every batch it used (a run from an empty cache), each costed by its record; the serial
part is that run's main-process CPU less the tasks it ran itself.  :meth:`Plan.project` projects the wall
time on N workers by list scheduling, longest task first (LPT), plus the serial part, and by
replaying the run's own dispatch order (grid after grid, each waited for).

Examples
--------
>>> from verify.plan import lpt_makespan
>>> lpt_makespan([3, 3, 2, 2, 2], 2)      # LPT: 3+2+2 | 3+2; the optimum is 3+3 | 2+2+2 = 6
7.0
"""

from __future__ import annotations

import heapq
import math
import os
import socket
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from simulations.cache import (
    TIMINGS,
    append_timings,
    next_seq,
    paper_ids,
    read_timings,
    record_timing,
    timing_tags,
)
from simulations.executors import Executor

#: worker counts the plan projects when none are given, besides this machine's cores
DEFAULT_WORKERS = (16, 64)


# -- scheduling --------------------------------------------------------------------------------

def lpt_makespan(costs: Iterable[float], workers: int) -> float:
    """The makespan of list scheduling, longest task first, onto the least-loaded of ``workers``.

    Graham's bound holds: ``max(max(costs), sum(costs)/workers) <= makespan <= sum(costs)/workers
    + max(costs)`` (and LPT is within 4/3 of the optimum).

    Parameters
    ----------
    costs : iterable of float
        Seconds of each independent task (non-negative).
    workers : int
        Number of identical workers (at least 1).

    Returns
    -------
    float
        The time the last worker finishes (0 without tasks).

    Examples
    --------
    >>> lpt_makespan([5, 1, 1, 1, 1, 1], 2)
    5.0
    >>> lpt_makespan([2.0] * 8, 3)
    6.0
    >>> lpt_makespan([], 4)
    0.0
    """
    if workers < 1:
        raise ValueError(f"parameter 'workers' = {workers!r} must be at least 1")
    loads = [0.0] * int(workers)
    heapq.heapify(loads)
    for c in sorted((float(c) for c in costs), reverse=True):
        if c < 0 or not math.isfinite(c):
            raise ValueError(f"a task cost = {c!r} must be a finite number ≥ 0")
        heapq.heappush(loads, heapq.heappop(loads) + c)
    return max(loads)


@dataclass(frozen=True)
class Task:
    """One unit of work the report job hands to a worker (a trial batch or a whole job).

    Attributes
    ----------
    label : str
        The check or job it belongs to (a batch's progress label, else its trial function).
    kind : str
        ``batch`` or ``job``.
    cpu_s, wall_s : float
        Its cost: CPU and wall seconds in the process that ran it.
    seq : int
        Its place in the run's dispatch order (the trial grid or the submission).
    waited : bool
        The main process waits for it before going on (a trial grid, the figures); a submitted
        job is collected only at the end.
    in_main : bool
        The run computes it in the main process (a grid with one batch to compute).
    """

    label: str
    kind: str
    cpu_s: float
    wall_s: float
    seq: int
    waited: bool = True
    in_main: bool = False


def dispatch_makespan(tasks: Sequence[Task], workers: int) -> float:
    """Wall time of ``tasks`` replayed in the report job's dispatch order on ``workers`` (FIFO pool).

    Tasks of one ``seq`` are submitted together, in order, when the main process reaches them;
    each takes the earliest-free worker (a first-in first-out pool); a ``waited`` group blocks the
    main process until its last task ends; a single ``in_main`` task runs in the main process.
    Costs are the tasks' CPU seconds; the main process's own CPU is not included.

    Examples
    --------
    >>> from verify.plan import Task, dispatch_makespan
    >>> grid = lambda seq, *c: [Task("g", "batch", x, x, seq) for x in c]
    >>> dispatch_makespan(grid(1, 4, 4) + grid(2, 1, 1), 2)      # the second grid waits for the first
    5.0
    >>> dispatch_makespan(grid(1, 4, 4) + grid(2, 1, 1), 4)
    5.0
    >>> dispatch_makespan([Task("job", "job", 6, 6, 0, waited=False)] + grid(1, 2, 2), 2)
    6.0
    """
    if workers < 1:
        raise ValueError(f"parameter 'workers' = {workers!r} must be at least 1")
    free = [0.0] * int(workers)
    groups: dict[int, list[Task]] = {}
    for t in tasks:
        groups.setdefault(t.seq, []).append(t)
    now = 0.0
    for seq in sorted(groups):
        group = groups[seq]
        if len(group) == 1 and group[0].in_main:
            now += group[0].cpu_s
            continue
        ends = []
        for t in group:
            start = max(now, heapq.heappop(free))
            heapq.heappush(free, start + t.cpu_s)
            ends.append(start + t.cpu_s)
        if all(t.waited for t in group):
            now = max(ends)
    return max([now, *free])


# -- the plan ----------------------------------------------------------------------------------

class NoTimings(ValueError):
    """The cache holds no recorded run of the profile (one line, telling what to run)."""


@dataclass
class Plan:
    """The measured cost of one profile and seed, from a cache's timing records.

    Attributes
    ----------
    profile : str
    seed : int
    source : str
        The timings file it was read from.
    tasks : list of Task
        Every task of the latest run, costed by its latest record.
    serial_cpu_s : float
        CPU seconds of the main process on the measured run, less the tasks it ran itself.
    measured : dict
        The run the serial part comes from: ``run``, ``executor``, ``workers``, ``wall_s``,
        ``main_cpu_s``, ``children_cpu_s``, ``computed`` / ``batches`` (batches it ran / used).
    missing : dict
        Tasks of the run without a timing record (``batches``, ``jobs``): the totals omit them.
    notes : list of str
        Caveats, in words.
    """

    profile: str
    seed: int
    source: str
    tasks: list[Task]
    serial_cpu_s: float
    measured: dict[str, Any]
    missing: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def cpu_s(self) -> float:
        """Summed CPU seconds of the tasks."""
        return sum(t.cpu_s for t in self.tasks)

    @property
    def longest_s(self) -> float:
        """CPU seconds of the longest task."""
        return max((t.cpu_s for t in self.tasks), default=0.0)

    def groups(self) -> list[dict[str, Any]]:
        """Per check or job: ``label``, ``kind``, ``tasks``, ``cpu_s``, ``wall_s``, ``longest_s``; most CPU first."""
        out: dict[tuple[str, str], dict[str, Any]] = {}
        for t in self.tasks:
            g = out.setdefault((t.kind, t.label), {"label": t.label, "kind": t.kind, "tasks": 0,
                                                    "cpu_s": 0.0, "wall_s": 0.0, "longest_s": 0.0})
            g["tasks"] += 1
            g["cpu_s"] += t.cpu_s
            g["wall_s"] += t.wall_s
            g["longest_s"] = max(g["longest_s"], t.cpu_s)
        return sorted(out.values(), key=lambda g: (-g["cpu_s"], g["label"]))

    def project(self, workers: int) -> dict[str, float]:
        """The projected wall time on ``workers`` workers (seconds).

        ``lpt_s``: LPT makespan of the tasks' CPU; ``lower_s`` / ``upper_s``: Graham's bounds on it,
        ``max(longest, total/N)`` and ``total/N + longest``; ``projected_s = lpt_s + serial``;
        ``dispatch_s``: the run's own dispatch order replayed (:func:`dispatch_makespan`) plus the
        serial part.
        """
        costs = [t.cpu_s for t in self.tasks]
        total, longest = sum(costs), max(costs, default=0.0)
        lpt = lpt_makespan(costs, workers)
        return {"workers": int(workers), "lpt_s": lpt, "lower_s": max(longest, total / workers),
                "upper_s": total / workers + longest, "projected_s": lpt + self.serial_cpu_s,
                "dispatch_s": dispatch_makespan(self.tasks, workers) + self.serial_cpu_s}

    def check_measured(self) -> dict[str, Any] | None:
        """The projection for the measured run's worker count next to its measured wall time.

        On a machine shared with other processes the projection is also scaled by ``cores /
        cores left`` (the cores the other processes left to the run, on average, from ``/proc/stat``),
        a first-order correction.  None when the run recorded no worker count or wall time.
        """
        m = self.measured
        if not m.get("workers") or m.get("wall_s") is None or m.get("calibration"):
            return None
        p = self.project(int(m["workers"]))
        cores, left = m.get("cores"), m.get("cores_left")
        scale = cores / left if cores and left and left > 0 else 1.0
        return {"workers": int(m["workers"]), "measured_s": m["wall_s"], "projected_s": round(p["projected_s"], 2),
                "cores": cores, "cores_left": left, "scale": round(scale, 4),
                "scaled_s": round(p["projected_s"] * scale, 2)}

    def as_dict(self, workers: Sequence[int]) -> dict[str, Any]:
        """The plan and its projections, JSON-able (``python -m verify --plan --json``)."""
        total = self.cpu_s + self.serial_cpu_s
        return {
            "profile": self.profile, "seed": self.seed, "source": self.source, "measured": self.measured,
            "groups": [{k: (round(v, 3) if isinstance(v, float) else v) for k, v in g.items()} for g in self.groups()],
            "totals": {"tasks": len(self.tasks), "cpu_s": round(self.cpu_s, 3),
                       "wall_s": round(sum(t.wall_s for t in self.tasks), 3), "longest_s": round(self.longest_s, 3)},
            "serial_cpu_s": round(self.serial_cpu_s, 3),
            "serial_share": round(self.serial_cpu_s / total, 4) if total > 0 else None,
            "cpu_hours": round(total / 3600, 4),
            "projections": [{k: (round(v, 2) if isinstance(v, float) else v) for k, v in self.project(n).items()}
                            for n in workers],
            "measured_check": self.check_measured(),
            "missing": self.missing, "notes": self.notes,
        }

    def render(self, workers: Sequence[int]) -> str:
        """The plan as text: per check, totals, serial share and the projections."""
        m = self.measured
        if m.get("calibration"):
            head = (f"estimated from calibration run {m.get('run')} ({m['calibration']} trial(s) per configuration): "
                    f"{m.get('executor')}, wall {m.get('wall_s', float('nan')):.1f} s, {m.get('batches', 0)} batches "
                    "costed")
        else:
            head = (f"measured run {m.get('run')}: {m.get('executor')}, wall {m.get('wall_s', float('nan')):.1f} s, "
                    f"{m.get('computed', 0)} of {m.get('batches', 0)} batches computed"
                    + (" (the rest read from the cache)" if m.get("computed", 0) < m.get("batches", 0) else ""))
        lines = [f"plan of profile {self.profile!r}, seed {self.seed}, from {self.source}", head,
                 "", f"{'check / job':<44} {'tasks':>6} {'CPU s':>9} {'longest s':>10}"]
        for g in self.groups():
            name = g["label"] if len(g["label"]) <= 44 else g["label"][:41] + "..."
            lines.append(f"{name:<44} {g['tasks']:>6} {g['cpu_s']:>9.1f} {g['longest_s']:>10.2f}")
        total = self.cpu_s + self.serial_cpu_s
        share = self.serial_cpu_s / total if total > 0 else 0.0
        wall_ratio = sum(t.wall_s for t in self.tasks) / self.cpu_s if self.cpu_s > 0 else float("nan")
        lines += [f"{'total':<44} {len(self.tasks):>6} {self.cpu_s:>9.1f} {self.longest_s:>10.2f}",
                  f"main process, serial part: {self.serial_cpu_s:.1f} s CPU = {share:.1%} of {total:.1f} s "
                  f"({total / 3600:.3f} CPU-hours); the tasks' wall / CPU on the measured run: {wall_ratio:.2f}",
                  "",
                  "projected wall time = LPT makespan of the tasks' CPU + the serial part "
                  "(dispatch: the run's own order, grid after grid, + serial)",
                  f"{'workers':>8} {'LPT s':>9} {'bounds s':>19} {'projected s':>12} {'dispatch s':>11}"]
        for n in workers:
            p = self.project(n)
            lines.append(f"{n:>8} {p['lpt_s']:>9.1f} {'[' + format(p['lower_s'], '.1f') + ', ' + format(p['upper_s'], '.1f') + ']':>19}"
                         f" {p['projected_s']:>12.1f} {p['dispatch_s']:>11.1f}")
        if m.get("wall_s") is not None and not m.get("calibration"):
            lines.append(f"measured wall time: {m['wall_s']:.1f} s on {m.get('workers')} worker(s)")
            check = self.check_measured()
            if check is not None and check["scale"] > 1.0:
                lines.append(f"  projection for {check['workers']} workers scaled to the {check['cores_left']:.2f} of "
                             f"{check['cores']} cores other processes left to the run (x {check['scale']:.2f}): "
                             f"{check['scaled_s']:.1f} s")
        for k, n in self.missing.items():
            if n:
                lines.append(f"warning: {n} {k} of the run have no timing record (computed before timings were "
                             "recorded?): the totals omit them; rerun the profile with an empty --cache")
        lines += [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


def _job_cost(rec: Mapping[str, Any], batches: Mapping[str, Mapping[str, Any]]) -> tuple[float, float, int]:
    """CPU, wall and missing nested batches of a job as if its batches were computed (from a cold cache)."""
    cpu = float(rec.get("cpu_s", 0.0)) - float(rec.get("nested_cpu_s", 0.0))
    wall = float(rec.get("wall_s", 0.0)) - float(rec.get("nested_wall_s", 0.0))
    missing = 0
    for k in dict.fromkeys(rec.get("nested_keys") or []):
        b = batches.get(k)
        if b is None:
            missing += 1
        else:
            cpu += float(b.get("cpu_s", 0.0))
            wall += float(b.get("wall_s", 0.0))
    return max(cpu, 0.0), max(wall, 0.0), missing


def build_plan(directory: str | os.PathLike, profile: str, seed: int = 0) -> Plan:
    """The plan of ``profile`` and ``seed`` from the timing records in ``directory`` (a trial cache).

    The plan is of the latest recorded run that computed every trial batch it used (a run from an
    empty cache): its grids and jobs, costed by their records.  Jobs that run only from a cold
    cache and that run skipped (the symbolic evaluation, when the snapshot was complete; the
    figures, when the figure cache had them) come from the latest earlier records.  Without such a
    run, the latest run is used, and a job it ran from a warm cache is costed as its own CPU less
    the batches it ran plus the recorded cost of every batch it read (a note says so).

    Raises
    ------
    NoTimings
        When no finished run of the profile and seed was recorded there (one line: what to run).
    """
    directory = Path(directory)
    records, bad = read_timings(directory)
    source = str(directory / TIMINGS)
    runs = [r for r in records if r.get("kind") == "run" and r.get("profile") == profile and r.get("seed") == seed]
    if not runs:
        raise NoTimings(f"no recorded run of profile {profile!r} (seed {seed}) in {source}: run "
                        f"`python -m verify --profile {profile} --seed {seed} --cache {directory}` once "
                        "(from an empty cache, so that every batch is timed), then ask for the plan again")
    batches: dict[str, dict[str, Any]] = {}
    jobs: dict[tuple[Any, str], dict[str, Any]] = {}        # (run, label) -> record
    latest_job: dict[str, dict[str, Any]] = {}              # label -> latest record (of this profile and seed)
    computed: dict[Any, int] = {}
    in_main_cpu: dict[Any, float] = {}
    for r in records:
        kind, run = r.get("kind"), r.get("run")
        if kind == "batch" and isinstance(r.get("key"), str):
            batches[r["key"]] = r
            if not r.get("in_job"):
                computed[run] = computed.get(run, 0) + 1
        elif kind == "job" and isinstance(r.get("label"), str):
            if r.get("group") == "symbolic" or (r.get("profile") == profile and r.get("seed") == seed):
                jobs[(run, r["label"])] = r
                latest_job[r["label"]] = r
        if kind in ("batch", "job") and r.get("in_main") and not r.get("in_job"):
            in_main_cpu[run] = in_main_cpu.get(run, 0.0) + float(r.get("cpu_s", 0.0))

    def n_batches(run: Mapping[str, Any]) -> int:
        return len({k for _, keys in run.get("grids", []) for k in keys})

    cold = [r for r in runs if computed.get(r.get("run"), 0) >= n_batches(r) > 0]
    base = cold[-1] if cold else runs[-1]
    notes = []
    if not cold:
        notes.append("no recorded run computed every batch: the serial part is measured on a run that read "
                     "batches from the cache, and the cost of a job it ran from a warm cache is rebuilt from "
                     "the records of the batches it read (work it cached elsewhere is missing)")
    elif base is not runs[-1]:
        later = len(runs) - 1 - runs.index(base)
        notes.append(f"the plan is of run {base.get('run')}, the latest that computed every batch; {later} later "
                     "run(s) read batches from the cache")
    tasks: list[Task] = []
    missing = {"batches": 0, "jobs": 0}
    seen: set[str] = set()
    last_seq = 0
    for seq, keys in base.get("grids", []):
        last_seq = max(last_seq, int(seq))
        todo = [k for k in dict.fromkeys(keys) if k not in seen]   # a grid asked for again reads the cache
        seen.update(todo)
        for k in todo:
            b = batches.get(k)
            if b is None:
                missing["batches"] += 1
                continue
            label = b.get("desc") or str(b.get("fn", "?")).rpartition(".")[2]
            tasks.append(Task(label, "batch", float(b["cpu_s"]), float(b["wall_s"]), int(seq), True, len(todo) == 1))
    run_jobs = [tuple(j) for j in base.get("jobs", [])]
    last_seq = max([last_seq, *(int(j[0]) for j in run_jobs)])
    groups = {j[2] for j in run_jobs}
    if "symbolic" not in groups:
        papers = set(paper_ids())
        sym = [r for label, r in latest_job.items() if r.get("group") == "symbolic"
               and label.partition(" ")[2].split(".", 1)[0] in papers]
        if sym:                 # the latest run that evaluated symbolically (jobs were per paper, now per statement)
            last = max(sym, key=lambda r: float(r.get("t", 0.0))).get("run")
            sym = [r for r in sym if r.get("run") == last]
            notes.append(f"symbolic evaluation: {len(sym)} jobs from an earlier run (the snapshot was "
                         "complete on the planned run)")
            run_jobs = [(0, r["label"], "symbolic", False) for r in sym] + run_jobs
        else:
            notes.append("symbolic evaluation: no record (the snapshot was complete before timings were "
                         "recorded); its cost is missing")
    if "figures" not in groups:
        figs = [r for r in latest_job.values() if r.get("group") == "figures"]
        if figs:
            notes.append(f"figures: {len(figs)} jobs from run {figs[-1].get('run')} (the planned run reused "
                         "the figure cache)")
            run_jobs += [(last_seq + 1, r["label"], "figures", True) for r in figs]
    rebuilt = 0
    for seq, label, group, waited in run_jobs:
        r = jobs.get((base.get("run"), label))
        if r is not None and cold:
            cpu, wall = float(r.get("cpu_s", 0.0)), float(r.get("wall_s", 0.0))
        elif (r := r or latest_job.get(label)) is not None:
            cpu, wall, miss = _job_cost(r, batches)
            missing["batches"] += miss
            rebuilt += group not in ("symbolic", "figures")
        else:
            missing["jobs"] += 1
            continue
        tasks.append(Task(label if group not in ("figures", "symbolic") else group, "job", cpu, wall,
                          int(seq), bool(waited), False))
    if rebuilt and cold:
        notes.append(f"{rebuilt} job(s) of the planned run have no record of it: costed from their latest record")
    serial = max(0.0, float(base.get("main_cpu_s", 0.0)) - in_main_cpu.get(base.get("run"), 0.0))
    if bad:
        notes.append(f"{bad} unreadable line(s) in {source} skipped")
    if str(base.get("executor", "")).startswith("local") and base.get("children_cpu_s") and not base.get("calibration"):
        mine = sum(float(r.get("cpu_s", 0.0)) for r in records
                   if r.get("run") == base.get("run") and r.get("kind") in ("batch", "job")
                   and not r.get("in_job") and not r.get("in_main"))
        notes.append(f"the measured run's workers used {base['children_cpu_s']:.1f} s CPU in all "
                     f"(getrusage), its recorded tasks {mine:.1f} s")
    cores_left = None
    if base.get("machine_cpu_s") is not None and base.get("wall_s"):
        ours = float(base.get("main_cpu_s", 0.0)) + float(base.get("children_cpu_s", 0.0))
        others = max(0.0, float(base["machine_cpu_s"]) - ours)
        wall = float(base["wall_s"])
        cores = int(base.get("cores") or 1)
        left = cores - others / wall
        cores_left = round(left, 4)
        line = (f"during the measured run other processes used {others:.1f} s CPU, on average "
                f"{others / wall:.2f} of the machine's {cores} cores")
        if others / wall > 0.05 and left > 0:
            line += (f": with the {left:.2f} cores left, the run's {ours:.1f} s CPU needed at least "
                     f"{ours / left:.1f} s of wall time")
        notes.append(line)
    measured = {k: base.get(k) for k in ("run", "executor", "workers", "cores", "wall_s", "main_cpu_s",
                                         "children_cpu_s", "machine_cpu_s")}
    measured["cores_left"] = cores_left
    measured["calibration"] = base.get("calibration")
    if measured["calibration"]:
        notes.append(f"estimated, not measured: a calibration run (python -m verify --calibrate) ran "
                     f"{measured['calibration']} trial(s) of each configuration and costed every batch as its "
                     "trials times their CPU per trial; jobs (symbolic evaluation, audits, figures) ran in full; the "
                     "serial part is the calibration's own (its checks reduced fewer rows)")
    measured["computed"] = computed.get(base.get("run"), 0)
    measured["batches"] = n_batches(base)
    return Plan(profile, int(seed), source, tasks, serial, measured, missing, notes)


# -- timing the report job's jobs ----------------------------------------------------------------

def _where() -> tuple[str, int]:
    return socket.gethostname(), os.getpid()


@dataclass
class _Timed:
    """What a :class:`TimedJob` returns: the job's value and its timing."""

    value: Any
    cpu_s: float
    wall_s: float
    where: tuple[str, int]
    records: list[dict[str, Any]]
    grids: list[list[Any]]
    #: Unix time at which the job started where it ran (0.0: unknown)
    started: float = 0.0


@dataclass
class TimedJob:
    """``fn`` wrapped to time itself where it runs (picklable when ``fn`` is).

    The trial batches it runs inside are collected, not written (the main process writes them
    with the job's own record, :class:`TimingExecutor`).

    Examples
    --------
    >>> from verify.plan import TimedJob
    >>> out = TimedJob(abs, "demo")(-3)
    >>> out.value, out.cpu_s >= 0, out.records
    (3, True, [])
    """

    fn: Callable[[Any], Any]
    label: str
    tags: dict[str, Any] = field(default_factory=dict)

    def __call__(self, item: Any) -> _Timed:
        with timing_tags(keep=True, inherit=False, **self.tags, in_job=self.label) as col:
            t0, c0, w0 = time.time(), time.process_time(), time.perf_counter()
            value = self.fn(item)
            cpu, wall = time.process_time() - c0, time.perf_counter() - w0
        return _Timed(value, cpu, wall, _where(), col.records, col.grids, t0)


def job_label(fn: Callable[..., Any], item: Any, index: int = 0) -> tuple[str, str]:
    """``(label, group)`` of a job of the report job, from its function and task.

    Examples
    --------
    >>> from verify.plan import job_label
    >>> from verify.empirical.jobs import calibration_job
    >>> job_label(calibration_job, (1000, 0, 0.95))
    ('auditor calibration', 'calibration')
    >>> from verify.empirical.jobs import client_job
    >>> job_label(client_job, (0, 0.95))
    ('client audits', 'audit')
    >>> job_label(abs, -1, 3)
    ('abs', 'abs')
    """
    name = getattr(fn, "__qualname__", type(fn).__name__)
    try:
        if name == "audit_job":
            return f"audit {item[3].name}", "audit"
        if name == "calibration_job":
            return "auditor calibration", "calibration"
        if name == "client_job":
            return "client audits", "audit"
        if name == "evaluate_task":      # one statement per task (bounds.snapshot.evaluation_tasks)
            return f"symbolic {item[1][0]}", "symbolic"
        if name == "_figure_job":
            return f"figures {item[0]} {index}", "figures"
        if name == "_latex_job":         # the formulas' LaTeX, printed while the figures are drawn
            return "report LaTeX", "figures"
    except (TypeError, IndexError, AttributeError):
        pass
    return name, name


class TimingExecutor(Executor):
    """A view of an executor that times the whole jobs sent through it and records them in ``directory``.

    :meth:`submit` and :meth:`map_unordered` wrap each job in a :class:`TimedJob`; the main process
    appends its record (and those of the trial batches it ran) to ``<directory>/timings.jsonl`` when
    the result arrives (``.result()`` of a submitted job, or as ``map_unordered`` yields).  Closing
    and terminating are left to the owner of the wrapped executor.

    Attributes
    ----------
    jobs : list
        ``[seq, label, group, waited]`` of every job sent, in order (for the run's record).
    """

    def __init__(self, inner: Executor, directory: str | os.PathLike, tags: Mapping[str, Any]) -> None:
        self.inner = inner
        self.directory = Path(directory)
        self.tags = dict(tags)
        self.jobs: list[list[Any]] = []
        self.name = inner.name

    @property
    def workers(self) -> int:  # type: ignore[override]
        return self.inner.workers

    def describe(self) -> str:
        return self.inner.describe()

    def _record(self, out: _Timed, label: str, group: str, fn: Callable[..., Any], seq: int) -> Any:
        nested = [r for r in out.records if r.get("kind") == "batch"]
        rec = {"kind": "job", "label": label, "group": group, "fn": f"{fn.__module__}.{getattr(fn, '__qualname__', '?')}",
               "cpu_s": round(out.cpu_s, 6), "wall_s": round(out.wall_s, 6), "in_main": tuple(out.where) == _where(),
               "seq": seq, "t": round(time.time(), 3), "t0": round(out.started, 3), "pid": out.where[1],
               "nested_keys": [k for _, keys in out.grids for k in keys],
               "nested_cpu_s": round(sum(float(r.get("cpu_s", 0.0)) for r in nested), 4),
               "nested_wall_s": round(sum(float(r.get("wall_s", 0.0)) for r in nested), 4)}
        append_timings(self.directory, [{**self.tags, **r} for r in out.records])
        record_timing(self.directory, {**self.tags, **rec})
        return out.value

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Any:
        label, group = job_label(fn, item)
        seq = next_seq()
        self.jobs.append([seq, label, group, False])
        fut = self.inner.submit(TimedJob(fn, label, self.tags), item)
        return _TimedFuture(fut, lambda out: self._record(out, label, group, fn, seq))

    def map_unordered(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[tuple[int, Any]]:
        items = list(items)
        seq = next_seq()
        labels = [job_label(fn, item, i) for i, item in enumerate(items)]
        self.jobs.extend([seq, label, group, True] for label, group in labels)
        wrapped = [(TimedJob(fn, label, self.tags), item) for (label, _), item in zip(labels, items, strict=True)]
        for i, out in self.inner.map_unordered(_call, wrapped):
            yield i, self._record(out, labels[i][0], labels[i][1], fn, seq)


def _call(pair: tuple[Callable[[Any], Any], Any]) -> Any:
    fn, item = pair
    return fn(item)


class _TimedFuture:
    """A future whose ``result()`` unwraps a :class:`TimedJob`'s value and records its timing once."""

    def __init__(self, fut: Any, on_result: Callable[[_Timed], Any]) -> None:
        self._fut = fut
        self._on_result = on_result
        self._value: Any = None
        self._done = False

    def result(self, timeout: float | None = None) -> Any:
        if not self._done:
            out = self._fut.result(timeout)
            self._value = self._on_result(out)
            self._done = True
        return self._value

    def done(self) -> bool:
        return self._fut.done()

    def cancel(self) -> bool:
        return self._fut.cancel()
