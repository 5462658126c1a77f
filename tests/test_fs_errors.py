"""Every file-system error of ``python -m verify`` names the option at fault, in one line, exit 2
(issue 25, item 4).

* Unusable directories are refused before anything runs: ``--cache /proc/nope`` (with or without
  ``--calibrate``), ``--out /sys/x``, a path under a file; the check creates and removes a probe
  directory, so a read-only or virtual file system is caught even for root.
* Errors in the middle of a run (the disk full, a read-only file system, a quota, a permission)
  name ``--cache`` or ``--out`` by the path that failed, or the temporary directory (TMPDIR).

The run's work is replaced by stubs that raise the error where the real code would; the real
trial cache writes (and fails) in the ``trial put`` cases.
"""

from __future__ import annotations

import contextlib
import errno
import io
import os
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import verify.cli as cli
import verify.report as report
from simulations.runner import run_grid, uniform_trial

ERRNOS = [errno.ENOSPC, errno.EROFS, errno.EDQUOT, errno.EACCES, errno.EPERM, errno.EIO, errno.ENAMETOOLONG]


def main(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(argv)
    return code, out.getvalue(), err.getvalue()


def assert_one_line(err: str, *needles: str) -> None:
    assert err.endswith("\n") and err.count("\n") == 1 and err.startswith("error: "), repr(err)
    assert "Traceback" not in err
    for n in needles:
        assert n in err, (n, err)


# -- refused before the run ----------------------------------------------------------------------

@pytest.mark.parametrize("argv, option", [
    (["--calibrate", "2", "--cache", "/proc/nope"], "--cache"),        # the traceback
    (["--calibrate", "--cache", "/sys/nope/deeper"], "--cache"),
    (["--cache", "/proc/nope"], "--cache"),
    (["--cache", "/sys/x"], "--cache"),
    (["--out", "/proc/nope"], "--out"),
    (["--out", "/sys/x/y"], "--out"),
    (["--out", "/proc/self"], "--out"),                                 # exists, not writable
    (["--out", "/dev/full/x"], "--out"),                                # under a file
])
def test_unusable_directories_are_refused_naming_their_option(tmp_path, argv, option):
    if not Path("/proc/self").exists():
        pytest.skip("needs /proc")
    if "--cache" not in argv:
        argv = [*argv, "--cache", str(tmp_path / "c")]
    if "--out" not in argv and "--calibrate" not in argv:
        argv = [*argv, "--out", str(tmp_path / "o")]
    code, out, err = main(argv)
    assert code == 2 and out == ""
    value = argv[argv.index(option) + 1]
    assert_one_line(err, f"parameter {option!r} = {value!r}")
    assert not (tmp_path / "c").exists() and not (tmp_path / "o").exists()      # nothing was created


def test_a_calibration_directory_that_is_a_file_names_cache(tmp_path):
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / cli.CALIBRATION_DIR).write_text("not a directory")
    code, _, err = main(["--calibrate", "2", "--cache", str(tmp_path / "c")])
    assert code == 2
    assert_one_line(err, f"parameter '--cache' = {str(tmp_path / 'c')!r}")


def test_the_probe_leaves_nothing_behind(tmp_path):
    before = sorted(tmp_path.iterdir())
    assert cli._check_dir("--out", str(tmp_path)) == tmp_path
    assert cli._check_dir("--out", str(tmp_path / "new" / "deeper")) == tmp_path / "new" / "deeper"
    assert sorted(tmp_path.iterdir()) == before


# -- in the middle of a run ----------------------------------------------------------------------

def _failing_run(monkeypatch, tmp_path: Path, phase: str, err_no: int, where: str) -> tuple[list[str], Path]:
    """Stub the run so that it fails with ``err_no`` on a path in ``where`` during ``phase``."""
    cache, out = tmp_path / "c", tmp_path / "o"
    target = {"cache": cache / "ab" / "x.pkl", "out": out / "REPORT.md",
              "tmp": Path(tempfile.gettempdir()) / "dp-erm-x" / "f", "other": Path("/elsewhere/f")}[where]

    def boom(*args, **kw):
        raise OSError(err_no, os.strerror(err_no), str(target))

    if phase == "write_report":
        monkeypatch.setattr(report, "evaluate_symbolic", lambda c, ex, keys: [])
        monkeypatch.setattr(report, "write_report", boom)
    else:                                       # the real trial cache's write fails
        def symbolic(c, ex, keys):
            real = os.replace

            def replace(src, dst, *a, **k):
                if str(dst).endswith(".pkl"):
                    raise OSError(err_no, os.strerror(err_no), str(src), None, str(dst)) if where == "cache" \
                        else OSError(err_no, os.strerror(err_no), str(target))
                return real(src, dst, *a, **k)

            monkeypatch.setattr(os, "replace", replace)
            run_grid(uniform_trial, [{"n": 3}], 2, cache=str(cache))
            return []

        monkeypatch.setattr(report, "evaluate_symbolic", symbolic)
        monkeypatch.setattr(report, "write_report", lambda *a, **k: pytest.fail("the run went on"))
    argv = ["--no-empirical", "--only", "jcc.thm2", "--executor", "serial", "--no-picks",
            "--cache", str(cache), "--out", str(out)]
    return argv, target


@pytest.mark.parametrize("err_no, words", [(errno.ENOSPC, "the disk is full"),
                                           (errno.EROFS, "the file system is read-only")])
@pytest.mark.parametrize("where, option", [("cache", "--cache"), ("out", "--out")])
def test_disk_full_and_read_only_mid_run_name_the_option(monkeypatch, tmp_path, err_no, words, where, option):
    argv, target = _failing_run(monkeypatch, tmp_path, "write_report", err_no, where)
    code, out, err = main(argv)
    assert code == 2 and out == ""
    value = argv[argv.index(option) + 1]
    assert_one_line(err, f"parameter {option!r} = {value!r}", words, str(target))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(err_no=st.sampled_from(ERRNOS), where=st.sampled_from(["cache", "out", "tmp", "other"]),
       phase=st.sampled_from(["write_report", "trial put"]))
def test_fuzz_a_file_system_error_anywhere_in_a_run_is_one_line_naming_its_place(tmp_path_factory, err_no, where,
                                                                                 phase):
    tmp = tmp_path_factory.mktemp("fs")
    with pytest.MonkeyPatch.context() as mp:
        argv, target = _failing_run(mp, tmp, phase, err_no, where)
        code, out, err = main(argv)
    assert code == 2 and out == ""
    expect = {"cache": f"parameter '--cache' = {argv[argv.index('--cache') + 1]!r}",
              "out": f"parameter '--out' = {argv[argv.index('--out') + 1]!r}",
              "tmp": "(environment variable TMPDIR)", "other": repr(str(target))}[where]
    assert_one_line(err, expect, os.strerror(err_no))
    for opt in ("--cache", "--out"):                # never blames an option whose path did not fail
        if where not in ("cache", "out") or opt != f"--{where}":
            assert f"parameter '{opt}'" not in err


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.text(st.characters(min_codepoint=97, max_codepoint=122), min_size=1, max_size=6),
                      min_size=1, max_size=4),
       root=st.sampled_from(["cache", "out", "cache-sibling", "outside"]), err_no=st.sampled_from(ERRNOS))
def test_fuzz_the_option_named_is_the_one_whose_directory_holds_the_path(parts, root, err_no):
    base = "/data/run"
    paths = {"--cache": f"{base}/cache", "--out": f"{base}/out"}
    prefix = {"cache": paths["--cache"], "out": paths["--out"], "cache-sibling": f"{base}/cache2",
              "outside": "/var/other"}[root]
    name = "/".join([prefix, *parts])
    msg = cli.fs_error_message(OSError(err_no, os.strerror(err_no), name), paths)
    assert "\n" not in msg and os.strerror(err_no) in msg and repr(name) in msg
    named = [opt for opt in paths if f"parameter '{opt}'" in msg]
    assert named == ({"cache": ["--cache"], "out": ["--out"]}.get(root, []))
