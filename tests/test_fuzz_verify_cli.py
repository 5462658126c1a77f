"""Fuzzing the command line ``python -m verify`` (and ``audit``, ``where``, ``scan``) in this process.

The work behind a valid command (the report job, the audits, ``where``'s lookup, ``scan``'s reading)
is replaced by a stub that records the options, so only the parsing and validation run.
Properties: no exception escapes ``verify.cli.main`` (a traceback); invalid input exits 2 with
exactly one line on stderr, ``error: ...``, naming an offending option; valid input reaches the work.
"""

from __future__ import annotations

import contextlib
import io
import math
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

import verify.cli as cli
import verify.scan
import verify.where
from bounds import registry
from simulations.executors import EXECUTORS
from verify.empirical import PROFILES

SETTINGS = settings(max_examples=150, deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


class Stubs:
    """The work of each command, replaced: records what would have run."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, Any]] = []

    def run_report(self, a: Any) -> int:
        self.calls.append(("report", a))
        return 0

    def papers_audit(self, a: Any) -> list:
        self.calls.append(("audit", a))
        return []

    def user_audit(self, a: Any) -> Any:
        self.calls.append(("user_audit", a))
        raise ValueError("stub: no mechanism is run while fuzzing")

    def locate(self, key: str, reports: Any = "reports") -> dict:
        self.calls.append(("where", key))
        return {}

    def scan_report(self, out: Any) -> list:
        self.calls.append(("scan", out))
        return []


@pytest.fixture(scope="module")
def stubs():
    s = Stubs()
    mp = pytest.MonkeyPatch()
    mp.setattr(cli, "run_report", s.run_report)
    mp.setattr(cli, "papers_audit", s.papers_audit)
    mp.setattr(cli, "user_audit", s.user_audit)
    mp.setattr(verify.where, "locate", s.locate)
    mp.setattr(verify.where, "render", lambda info: "")
    mp.setattr(verify.scan, "scan_report", s.scan_report)
    yield s
    mp.undo()


@pytest.fixture(scope="module")
def dirs(tmp_path_factory):
    """A writable directory, a file, a report directory."""
    base = tmp_path_factory.mktemp("fuzzcli")
    (base / "a-file").write_text("x")
    (base / "report").mkdir()
    (base / "report" / "REPORT.md").write_text("# r\n")
    (base / "report" / "summary.json").write_text("{}")
    return base


def call(argv: list[str], stubs: Stubs) -> tuple[int, str, str, list]:
    """``main(argv)``: (status, stdout, stderr, stub calls); any exception but SystemExit fails the test."""
    stubs.calls.clear()
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main(argv)
        except SystemExit as exc:           # allowed, but main returns statuses itself
            code = exc.code if isinstance(exc.code, int) else 2
    return code, out.getvalue(), err.getvalue(), list(stubs.calls)


def assert_one_line_error(err: str, names: set[str] | None = None) -> None:
    assert err.endswith("\n") and err.count("\n") == 1, repr(err)
    assert err.startswith("error: ") and "Traceback" not in err
    if names:
        flat = err.replace("_", "-")
        assert any(n in flat for n in names), (names, err)


# -- python -m verify: structured options with an oracle -----------------------------------------

text = st.text(st.characters(exclude_categories=("Cs",)), max_size=12).filter(lambda s: not s.startswith("-"))


def _paths(base: Path) -> st.SearchStrategy[tuple[str, bool]]:
    """(path, valid) pairs for --out / --cache."""
    ok = [str(base), str(base / "new"), str(base / "new" / "deeper")]
    bad = ["", " ", "  \t", str(base / "a-file"), str(base / "a-file" / "sub"), "a\0b"]
    if Path("/proc/self").is_dir():             # virtual file systems: no directory can be made there
        bad += ["/proc/nope", "/proc/self/nope/deeper", "/sys/nope"]
    return st.sampled_from([(p, True) for p in ok] * 6 + [(p, False) for p in bad])    # 3 in 4 valid


@st.composite
def report_argv(draw: Any, base: Path) -> tuple[list[str], set[str]]:
    """A ``python -m verify`` command line and the set of its invalid options (empty: valid)."""
    argv: list[str] = []
    bad: set[str] = set()
    executor = "local"
    if draw(st.booleans()):
        executor = draw(st.one_of(st.sampled_from(EXECUTORS), text))
        argv += ["--executor", executor]
        if executor not in EXECUTORS:
            bad.add("--executor")
    if draw(st.booleans()):
        prof = draw(st.one_of(st.sampled_from(sorted(PROFILES)), text))
        argv += ["--profile", prof]
        if prof not in PROFILES:
            bad.add("--profile")
    if draw(st.booleans()):
        seed = draw(st.one_of(st.integers(-10**6, 10**30), st.sampled_from(["x", "1.5", "", "0x10"])))
        argv += ["--seed", str(seed)]
        if isinstance(seed, str):
            bad.add("--seed")
        elif seed < 0:
            bad.add("--seed")
    out, ok = draw(_paths(base))
    argv += ["--out", out]
    if not ok:
        bad.add("--out")
    if draw(st.booleans()):
        argv.append("--no-cache")
    else:
        cache, ok = draw(_paths(base))
        argv += ["--cache", cache]
        if not ok:
            bad.add("--cache")
    if draw(st.booleans()):
        only = draw(st.sampled_from(["jcc.thm2", "jia.*", "thm", "", "   ", "no-such-statement", "zz*"]))
        argv += ["--only", only]
        if not only.strip() or only in ("no-such-statement", "zz*"):
            bad.add("--only")
    if draw(st.booleans()):
        argv += ["--scheduler", draw(st.sampled_from(["tcp://127.0.0.1:8786", "", "x"]))]
        if executor != "dask" or not argv[-1].strip():
            bad.add("--scheduler")
    if draw(st.booleans()):
        wt = draw(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["abc", ""])))
        argv += ["--worker-timeout", str(wt)]
        if isinstance(wt, str) or executor != "dask" or not (math.isfinite(wt) and wt > 0):
            bad.add("--worker-timeout")
    flags = draw(st.lists(st.sampled_from(["--no-picks", "--no-empirical"]), unique=True))
    argv += flags
    # shuffle option/value pairs as a user might order them
    pairs: list[list[str]] = []
    i = 0
    while i < len(argv):
        if argv[i] in ("--no-cache", "--no-picks", "--no-empirical"):
            pairs.append([argv[i]])
            i += 1
        else:
            pairs.append(argv[i:i + 2])
            i += 2
    order = draw(st.permutations(range(len(pairs))))
    return [tok for j in order for tok in pairs[j]], bad


@SETTINGS
@given(data=st.data())
def test_report_options_exit_2_with_one_line_iff_invalid(stubs, dirs, data):
    argv, bad = data.draw(report_argv(dirs))
    event("invalid" if bad else "valid")
    code, out, err, calls = call(argv, stubs)
    if bad:
        assert code == 2 and calls == [] and out == "", (argv, code, err)
        assert_one_line_error(err, bad)
    else:
        assert code == 0 and err == "" and len(calls) == 1 and calls[0][0] == "report", (argv, err)
        a = calls[0][1]
        assert a.seed >= 0 and a.profile in PROFILES and a.executor in EXECUTORS and a.out.strip()
    assert not (dirs / "new").exists()                  # validating creates nothing


# -- any tokens at all --------------------------------------------------------------------------

OPTIONS = ["--out", "--only", "--profile", "--executor", "--scheduler", "--worker-timeout", "--seed", "--cache",
           "--no-cache", "--no-picks", "--no-empirical", "--json", "--samples", "--mechanism", "--datasets",
           "--claim-eps", "--delta", "--n", "--chunk", "--output", "--selection-fraction", "--confidence",
           "--fail-on-violation", "--reports", "-h", "--o", "--no"]
VALUES = ["", " ", "-1", "0", "1", "1e5", "nan", "inf", "-inf", "0.5", "quick", "huge", "local", "dask", "serial",
          "jia.*", "jcc.thm2", "mod:fn", "x.npz", "reports", "/", "/nonexistent/x", "\n", "a\nb", "ε", "\x00",
          "'", "--", "-", "=", "--out=", "--seed=-3", "--only="]
tokens = st.one_of(st.sampled_from(OPTIONS), st.sampled_from(VALUES),
                   st.text(st.characters(exclude_categories=("Cs",)), max_size=8))


@SETTINGS
@given(sub=st.sampled_from([[], ["audit"], ["where"], ["scan"]]), rest=st.lists(tokens, max_size=8))
def test_no_traceback_and_one_line_errors_for_any_tokens(stubs, dirs, sub, rest):
    argv = [*sub, *rest]
    code, out, err, calls = call(argv, stubs)
    assert code in (0, 1, 2), (argv, code)
    if code == 2 and not (sub == ["audit"] and any(c[0] == "user_audit" for c in calls)):
        assert_one_line_error(err)
        assert not [c for c in calls if c[0] in ("report", "audit", "where", "scan")], (argv, calls)
    elif code == 2:                                     # the stub's own ValueError, reported like a real one
        assert_one_line_error(err)
    elif code == 0:
        assert calls or out.startswith("usage:"), (argv, out, err)   # the work ran, or --help
        assert "Traceback" not in err


# -- subcommands: structured --------------------------------------------------------------------------

@SETTINGS
@given(key=st.one_of(st.sampled_from(sorted(registry.keys())[:20]), text))
def test_where_accepts_exactly_the_registered_keys(stubs, key):
    code, out, err, calls = call(["where", key], stubs)
    if key in registry.keys():
        assert code == 0 and calls == [("where", key)]
    else:
        assert code == 2 and calls == []
        assert_one_line_error(err)


@SETTINGS
@given(delta=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
       conf=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
       eps=st.one_of(st.none(), st.floats(allow_nan=True, allow_infinity=True)),
       seed=st.integers(-5, 5), mode=st.sampled_from(["papers", "samples"]))
def test_audit_numbers_are_checked_before_any_audit(stubs, delta, conf, eps, seed, mode):
    argv = ["audit", "--seed", str(seed)]
    bad = set()
    if seed < 0:
        bad.add("--seed")
    if conf is not None:
        argv += ["--confidence", repr(conf)]
        if not (math.isfinite(conf) and 0 < conf < 1):
            bad.add("confidence")
    if mode == "samples":
        argv += ["--samples", "x.npz"]
        if eps is None or not (math.isfinite(eps) and eps >= 0):
            bad.add("claim-eps")
        if delta is not None and not (math.isfinite(delta) and 0 <= delta < 1):
            bad.add("delta")
    else:
        if eps is not None:
            bad.add("claim-eps")
        if delta is not None:
            bad.add("delta")            # a user-mechanism option: not for the papers' audits
    if eps is not None:
        argv += ["--claim-eps", repr(eps)]
    if delta is not None:
        argv += ["--delta", repr(delta)]
    code, out, err, calls = call(argv, stubs)
    if bad:
        assert code == 2 and calls == [], (argv, err)
        assert_one_line_error(err, bad)
    elif mode == "papers":
        assert code == 0 and [c[0] for c in calls] == ["audit"]
    else:                               # reached the (stubbed) user audit, which reports one line
        assert code == 2 and [c[0] for c in calls] == ["user_audit"]
        assert_one_line_error(err, {"stub"})


def test_scan_needs_a_generated_report(stubs, dirs):
    assert call(["scan", str(dirs / "report")], stubs)[0] == 0
    for bad in ["", str(dirs), str(dirs / "a-file"), "/nonexistent"]:
        code, _, err, calls = call(["scan", bad], stubs)
        assert code == 2 and calls == []
        assert_one_line_error(err, {"DIR"})


@pytest.mark.parametrize("argv, option", [
    (["--out", ""], "--out"),
    (["--out", "   "], "--out"),
    (["--profile", "huge"], "--profile"),
    (["--seed", "-1"], "--seed"),
    (["--executor", "gpu"], "--executor"),
    (["--only", "no-such-statement"], "--only"),
    (["--scheduler", "tcp://h:1"], "--scheduler"),
    (["--executor", "dask", "--worker-timeout", "-1"], "--worker-timeout"),
])
def test_named_invalid_values(stubs, dirs, argv, option):
    if option != "--out":
        argv = [*argv, "--out", str(dirs)]
    code, out, err, calls = call([*argv, "--cache", str(dirs)], stubs)
    assert code == 2 and calls == [] and out == ""
    assert_one_line_error(err, {option})


def test_a_cache_path_that_is_a_file(stubs, dirs):
    code, _, err, calls = call(["--out", str(dirs), "--cache", str(dirs / "a-file")], stubs)
    assert code == 2 and calls == []
    assert_one_line_error(err, {"--cache"})
    assert "is a file" in err
