"""Progress when the output is not a terminal (issue 25, item 7): a line on stderr per finished job
and per finished check, where no progress bar is drawn.

The whole jobs of the report job (symbolic evaluation, audits, calibration, figures) hold the
workers for minutes before the first check's trials run; before, nothing at all was printed in that
time when stderr was a file.  :class:`simulations.executors.ProgressView` prints
``  done: LABEL (GROUP K of N; job J of M sent, T s)`` as jobs finish: every job of a group of at
most ten, once per tenth of a larger group (and its last job); ``failed:`` for any job that raised;
nothing for a cancelled job or once the run stops.
"""

from __future__ import annotations

import contextlib
import io
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simulations.executors import LocalExecutor, ProgressView, SerialExecutor

ROOT = Path(__file__).resolve().parents[1]
LINE = re.compile(r"  (done|failed): (.+) \((\S+) (\d+) of (\d+); job (\d+) of (\d+) sent, \d+ s\)")


def job(x: int) -> int:
    """A job of the tests: fails for negative input."""
    if x < 0:
        raise ValueError(f"negative {x}")
    return 2 * x


def _label(fn, item, i):
    return f"job {item}"


def _lines(text: str) -> list[tuple[str, str, int, int, str, int, int]]:
    """(state, label, J, M, group, K, N) of each progress line."""
    out = []
    for ln in text.splitlines():
        m = LINE.fullmatch(ln)
        assert m is not None, ln
        out.append((m.group(1), m.group(2), int(m.group(6)), int(m.group(7)), m.group(3), int(m.group(4)),
                    int(m.group(5))))
    return out


@pytest.fixture(scope="module")
def pool():
    ex = LocalExecutor(2)
    yield ex
    ex.close()


@pytest.mark.parametrize("kind", ["serial", "local"])
def test_one_line_per_finished_job_submitted_or_mapped(kind, pool):
    ex = SerialExecutor() if kind == "serial" else pool
    out = io.StringIO()
    view = ProgressView(ex, label=_label, stream=out)
    futs = [view.submit(job, x) for x in (1, 2, -3)]
    mapped = dict(view.map_unordered(job, [4, 5]))
    assert [f.result() for f in futs[:2]] == [2, 4] and mapped == {0: 8, 1: 10}
    with pytest.raises(ValueError):
        futs[2].result()
    lines = _lines(out.getvalue())
    assert sorted(ln[1] for ln in lines) == ["job -3", "job 1", "job 2", "job 4", "job 5"]
    assert [ln[2] for ln in lines] == [1, 2, 3, 4, 5]                 # K counts the finished jobs, in order
    assert all(ln[2] <= ln[3] <= 5 for ln in lines) and lines[-1][3] == 5
    assert {ln[1]: ln[0] for ln in lines}["job -3"] == "failed"
    assert [ln[0] for ln in lines].count("failed") == 1
    assert (view.sent, view.finished) == (5, 5)
    assert all(ln[4] == "job" for ln in lines) and [ln[5] for ln in lines] == [1, 2, 3, 4, 5]


class Pending(SerialExecutor):
    """An executor whose jobs finish when the test says so (``set_result`` / ``set_exception``)."""

    def submit(self, fn, item):
        from concurrent.futures import Future

        return Future()


@pytest.mark.parametrize("n", [9, 10, 11, 41, 150])
def test_a_large_group_prints_once_per_tenth_and_failures_always(n):
    out = io.StringIO()
    view = ProgressView(Pending(), label=lambda fn, item, i: f"symbolic s{item}" if fn is job else f"audit a{item}",
                        stream=out)
    futs = [view.submit(job, x) for x in range(n)]
    other = [view.submit(abs, x) for x in (1, 2)]           # another group, of two: every job prints
    bad = n // 2
    for i, f in enumerate(futs):
        f.set_exception(ValueError("x")) if i == bad else f.set_result(i)
    for f in other:
        f.set_result(0)
    lines = _lines(out.getvalue())
    sym = [ln for ln in lines if ln[4] == "symbolic"]
    if n <= ProgressView.EVERY_JOB_UP_TO:
        want = list(range(1, n + 1))
    else:                                                    # each tenth crossed, the last, the failure
        want = sorted({k for k in range(1, n + 1) if k == n or 10 * k // n != 10 * (k - 1) // n} | {bad + 1})
    assert [ln[5] for ln in sym] == want and all(ln[6] == n for ln in sym)
    assert [ln[1] for ln in sym if ln[0] == "failed"] == [f"symbolic s{bad}"]
    assert len(sym) <= max(n, 0) and (n <= 10 or len(sym) <= 11)
    assert [(ln[1], ln[5], ln[6]) for ln in lines if ln[4] != "symbolic"] == [("audit a1", 1, 2), ("audit a2", 2, 2)]
    assert view.finished == view.sent == n + 2


def test_cancelled_jobs_and_jobs_after_terminate_print_nothing():
    out = io.StringIO()
    view = ProgressView(Pending(), label=_label, stream=out)
    a, b, c = (view.submit(job, x) for x in (1, 2, 3))
    a.cancel()
    b.set_result(4)
    view.terminate()                                        # the run is stopping
    c.set_result(6)
    assert [ln[1] for ln in _lines(out.getvalue())] == ["job 2"]
    assert view.finished == 3 and view.lines == 1


def test_nothing_is_printed_when_disabled_and_the_view_never_closes_its_executor(pool):
    out = io.StringIO()
    view = ProgressView(pool, label=_label, enabled=False, stream=out)
    assert view.submit(job, 3).result() == 6 and list(view.map_unordered(job, [1])) == [(0, 2)]
    view.close()
    view.terminate()
    assert out.getvalue() == "" and view.finished == 2
    assert pool.submit(job, 1).result() == 2                           # the wrapped pool still runs
    assert view.describe() == pool.describe() and view.workers == pool.workers


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(items=st.lists(st.integers(-3, 20), max_size=12), how=st.lists(st.booleans(), max_size=12),
       serial=st.booleans())
def test_fuzz_every_job_is_reported_once_with_its_outcome(pool, items, how, serial):
    ex = SerialExecutor() if serial else pool
    out = io.StringIO()
    view = ProgressView(ex, label=lambda fn, item, i: f"#{item}", stream=out)
    submitted = [x for x, sub in zip(items, how, strict=False) if sub]
    mapped = [x for x, sub in zip(items, how, strict=False) if not sub] + items[len(how):]
    futs = [view.submit(job, x) for x in submitted]
    ok = [x for x in mapped if x >= 0]
    assert sorted(r for _, r in view.map_unordered(job, ok)) == sorted(2 * x for x in ok)
    for f, x in zip(futs, submitted, strict=True):
        with contextlib.suppress(ValueError):
            assert f.result() == 2 * x
    lines = _lines(out.getvalue())
    assert len(submitted) + len(ok) == view.finished == view.sent and len(lines) <= view.finished
    assert [ln[2] for ln in lines] == sorted(ln[2] for ln in lines)           # J increases
    assert all(1 <= ln[5] <= ln[6] and 1 <= ln[2] <= ln[3] for ln in lines)
    failed = sorted(f"#{x}" for x in submitted if x < 0)
    assert sorted(ln[1] for ln in lines if ln[0] == "failed") == failed        # every failure is shown
    groups = {}
    for x in submitted + ok:
        groups[f"#{x}"] = groups.get(f"#{x}", 0) + 1
    for g, n in groups.items():                    # every group's last job is shown, with its count
        mine = [ln for ln in lines if ln[4] == g]
        assert mine and mine[-1][5] == n or any(ln[5] == n for ln in mine)
        if n <= ProgressView.EVERY_JOB_UP_TO:
            assert len(mine) == n


def test_the_report_job_prints_a_line_per_job_when_stderr_is_not_a_terminal(tmp_path, monkeypatch):
    """``python -m verify`` in this process with stderr in a buffer (not a terminal): the jobs the run
    sends (here two stand-ins for the symbolic evaluation) each print their line; the report writer
    is a stub, so nothing else runs."""
    import verify.cli as cli
    import verify.report as report

    def fake_symbolic(cache, ex, keys):
        return [ex.submit(job, 1), ex.submit(job, 2)]

    monkeypatch.setattr(report, "evaluate_symbolic", fake_symbolic)
    monkeypatch.setattr(report, "write_report", lambda out, **kw: {"markdown": "m", "html": "h",
                                                                   "summary": str(tmp_path / "none.json")})
    err, out = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(out):
        code = cli.main(["--no-empirical", "--only", "jcc.thm2", "--executor", "serial", "--no-picks",
                         "--cache", str(tmp_path / "c"), "--out", str(tmp_path / "o")])
    assert code == 0, err.getvalue()
    lines = [ln for ln in err.getvalue().splitlines() if LINE.fullmatch(ln)]
    assert [(ln[0], ln[1], ln[2], ln[5]) for ln in _lines("\n".join(lines))] == [("done", "job", 1, 1),
                                                                              ("done", "job", 2, 2)]


@pytest.mark.slow
def test_a_redirected_run_prints_every_check_and_job(tmp_path):
    """A real run with stderr to a file: a ``check K of N`` line for every check (N of them, in
    order) and a ``done:`` line for every job, among them the symbolic evaluation and the figures."""
    err_file = tmp_path / "stderr.txt"
    with open(err_file, "w") as fh:
        p = subprocess.run([sys.executable, "-m", "verify", "--profile", "quick", "--only", "jcc.thm2", "--no-picks",
                            "--cache", str(tmp_path / "cache"), "--out", str(tmp_path / "out")],
                           cwd=ROOT, stdout=subprocess.PIPE, stderr=fh, text=True, timeout=900)
    err = err_file.read_text()
    assert p.returncode == 0, err
    checks = re.findall(r"^  check (\d+) of (\d+): (\S+) \(", err, flags=re.M)
    n = int(checks[0][1])
    assert [int(k) for k, _, _ in checks] == list(range(1, n + 1)) and all(int(t) == n for _, t, _ in checks)
    from verify.empirical import select

    assert sorted(name for _, _, name in checks) == sorted(s.name for s in select("jcc.thm2") if s.evidence != "audit")
    done = [m for m in (LINE.fullmatch(ln) for ln in err.splitlines()) if m]
    assert any(m.group(2).startswith("figures") for m in done)
    js = [int(m.group(6)) for m in done]
    assert js == sorted(js) and js[-1] == int(done[-1].group(7))          # the last job of the run is shown


# -- progress on a terminal (issue 33, item 3) ------------------------------------------------

class _Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_display_appears_before_the_first_long_phase(monkeypatch):
    """On a terminal, ``main`` draws the run's display before the report job starts its (slow) imports
    and phases: a fake report job that stands for the first long phase finds the display drawn."""
    import verify.cli as cli

    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    seen = {}

    def slow_phase(a, tags=None):
        seen["display"] = cli._DISPLAY is not None and cli._DISPLAY.enabled
        seen["drawn"] = term.getvalue()
        return 0

    monkeypatch.setattr(cli, "run_report", slow_phase)
    assert cli.main(["--no-empirical", "--no-cache", "--out", str(ROOT / "reports")]) == 0
    assert seen["display"], "no display on a terminal before the report job"
    assert "verify" in seen["drawn"] and "loading the papers" in seen["drawn"]
    assert cli._DISPLAY is None                      # closed after the run


def test_no_display_without_a_terminal(monkeypatch):
    import verify.cli as cli

    monkeypatch.setattr(sys, "stderr", io.StringIO())
    seen = {}
    monkeypatch.setattr(cli, "run_report", lambda a, tags=None: seen.setdefault("d", cli._DISPLAY.enabled) and 0)
    assert cli.main(["--no-empirical", "--no-cache", "--out", str(ROOT / "reports")]) == 0
    assert seen["d"] is False


def test_the_display_moves_while_a_phase_runs():
    """The display's thread redraws it (elapsed time and counts) while a phase runs without any event."""
    import threading

    from verify.cli import RunDisplay

    out = _Terminal()
    d = RunDisplay(enabled=True, stream=out, interval=0.01)
    try:
        d.set_phase("a slow phase")
        n0 = out.getvalue().count("\r")
        done = threading.Event()
        for _ in range(1000):                        # wait (no time bound asserted) for redraws by the thread
            if out.getvalue().count("\r") >= n0 + 3:
                done.set()
                break
            threading.Event().wait(0.01)
        assert done.is_set(), "the display was not redrawn during the phase"
        assert "a slow phase" in out.getvalue().rsplit("\r", 1)[-1]
    finally:
        d.close()
    assert d.bar is None


def test_status_line_counts_jobs_checks_and_batches():
    from verify.cli import status_text

    line = status_text("jcc.thm1", {"symbolic": [10, 4], "figures": [3, 0]}, (2, 5), (1, 4))
    assert line == "checks 2/5 jcc.thm1 | batches 1/4 | jobs: symbolic 4/10, figures 0/3"
    assert status_text("report and figures") == "report and figures"
    assert "batches" not in status_text("x", None, None, (0, 0))


def test_closing_lines_count_papers_as_papers():
    """The closing line of the symbolic evaluation counts its jobs as jobs and the papers of their statements."""
    import bounds
    from verify.cli import closing_count

    keys = bounds.registry.keys()
    papers = {bounds.registry.get(k).paper for k in keys}
    assert closing_count(len(keys), keys) == f"{len(keys)} jobs ({len(papers)} papers)"
    assert len(papers) < len(keys)
    assert closing_count(1, ["jia.thm2"]) == "1 job (1 paper)"
