"""A discoverable, robust ``python -m bounds`` (issue 31, item 6): one test per case a user found.

Expected keys and constants are computed from the registry (``bounds.pick``, ``bounds.calibrate``,
the statements' parameters and free symbols), never copied from the output under test.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import bounds
from bounds import calibrate as cal
from bounds import pick
from bounds.cli import main
from bounds.report_io import read_summary, toolkit_version

ROOT = Path(__file__).resolve().parents[1]
REG = bounds.registry


def run_cli(argv: list[str]) -> tuple[int, str, str]:
    """``main(argv)`` in process: (status, stdout, stderr); any exception but SystemExit propagates."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            rc = main(argv)
        except SystemExit as exc:
            rc = exc.code if isinstance(exc.code, int) else 1
    return rc, out.getvalue(), err.getvalue()


def one_error(err: str) -> str:
    """The single ``error:`` line of stderr (other lines may be progress notes)."""
    lines = [x for x in err.splitlines() if x.startswith("error: ")]
    assert len(lines) == 1 and "Traceback" not in err, err
    return lines[0]


def suggestions(error: str) -> list[str]:
    """The keys of the first "did you mean a, b, c?" of an error line."""
    part = error.split("did you mean ", 1)[1].split("?", 1)[0]
    return [k.strip() for k in part.split(",")]


def pick_constants(key: str) -> list[str]:
    return [n for n in REG.get(key).params if n not in ("m", "eps", "lam")]


# -- 1, 2: pick / calibrate on a paper or a section list its keys (stdout, status 0) -----------------

def test_pick_on_a_section_lists_its_valid_key_first_with_its_constants() -> None:
    rc, out, err = run_cli(["pick", "jia.s5_2"])
    assert rc == 0, err
    listed = [ln.split()[0] for ln in out.splitlines()[1:]]
    assert listed[0] == "jia.s5_2.bound"                         # the one valid key under the section, first
    assert sorted(listed) == sorted(pick.pickable_keys("jia"))   # and every pickable key of the paper
    row = next(ln for ln in out.splitlines() if ln.split()[:1] == ["jia.s5_2.bound"])
    assert row.split()[1:1 + len(pick_constants("jia.s5_2.bound"))] == pick_constants("jia.s5_2.bound")


def test_calibrate_on_a_paper_is_a_listing_not_an_error() -> None:
    rc, out, err = run_cli(["calibrate", "jia"])
    assert rc == 0 and not any(x.startswith("error:") for x in err.splitlines()), err
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines()[1:]}
    assert list(rows) == cal.mechanism_keys("jia")
    for k, words in rows.items():
        need = cal.parameters(k)
        assert words[:len(need)] == need, (k, words, need)
    rc, out, _ = run_cli(["calibrate", "cms", "--json"])
    assert rc == 0
    got = json.loads(out)
    assert [d["key"] for d in got] == cal.mechanism_keys("cms")
    assert all(d["parameters"] == cal.parameters(d["key"]) for d in got)


def test_pick_on_a_paper_without_pickable_statements_says_why() -> None:
    rc, out, _ = run_cli(["pick", "cms"])
    assert rc == 0
    assert pick.not_pickable_reason("cms") in out and "jia.thm4.bound" in out   # why, and where to pick instead


# -- 3: every missing constant in one error ------------------------------------------------------------

def test_missing_constants_come_all_at_once() -> None:
    st = REG.get("jia.thm2")
    expr = REG.evaluate("jia.thm2").expression
    need = sorted(st.ns.by_symbol(s).name for s in expr.free_symbols)
    given = {need[0]: 1.0}
    missing = need[1:]
    assert len(missing) >= 2
    with pytest.raises(ValueError) as exc:
        bounds.value("jia.thm2", **given)
    msg = str(exc.value)
    assert all(f"'{n}'" in msg for n in missing) and "statement jia.thm2" in msg and "assumption" in msg
    for n in missing:                                       # each with its assumption
        assert st.ns[n].domain_text() in msg
    rc, _, err = run_cli(["eval", "jia.thm2", f"{need[0]}=1"])
    assert rc == 2 and all(f"'{n}'" in one_error(err) for n in missing)


def test_pick_names_every_missing_constant() -> None:
    consts = pick_constants("jia.thm4.bound")
    free = {REG.get("jia.thm4.bound").ns.by_symbol(s).name for s in REG.evaluate("jia.thm4.bound").expression.free_symbols}
    needed = [n for n in consts if n in free and n != "beta"]
    rc, _, err = run_cli(["pick", "jia.thm4", "--m", "10000", "beta=0.5"])
    line = one_error(err)
    assert rc == 2 and len(needed) >= 2 and all(f"'{n}'" in line for n in needed), line


# -- 4: --help names keys and constants; --version --------------------------------------------------------

@pytest.mark.parametrize("argv, kinds", [(["--help"], ("pick", "calibrate")), (["pick", "--help"], ("pick",)),
                                         (["calibrate", "--help"], ("calibrate",)),
                                         (["eval", "--help"], ("pick", "calibrate"))])
def test_help_lists_the_keys_with_what_each_needs(argv, kinds) -> None:
    rc, out, _ = run_cli(argv)
    assert rc == 0
    rows = {ln.split()[0]: ln.split()[1:] for ln in out.splitlines() if ln.startswith("  ") and ln.split()
            and "." in ln.split()[0] and ln.split()[0] in REG}
    if "pick" in kinds:
        for k in pick.pickable_keys():
            assert rows[k][:len(pick_constants(k))] == pick_constants(k), k
    if "calibrate" in kinds:
        for k in cal.mechanism_keys():
            assert rows[k][:len(cal.parameters(k))] == cal.parameters(k), k


def _pyproject_version() -> str:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]


def test_version_of_both_commands() -> None:
    from importlib import metadata

    try:
        want = metadata.version("dp-erm-verify")
    except metadata.PackageNotFoundError:
        want = _pyproject_version()
    assert toolkit_version() == want
    rc, out, _ = run_cli(["--version"])
    assert rc == 0 and out.strip() == f"dp-erm-verify {want}"
    from verify.cli import main as verify_main

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = verify_main(["--version"])
    assert rc == 0 and buf.getvalue().strip() == f"dp-erm-verify {want}"


def test_version_falls_back_to_the_checkout(monkeypatch, tmp_path) -> None:
    from importlib import metadata

    from bounds import report_io

    def missing(name):
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "version", missing)
    report_io.toolkit_version.cache_clear()
    try:
        assert report_io.toolkit_version() == _pyproject_version()
        other = tmp_path / "pyproject.toml"
        other.write_text('[project]\nname = "something-else"\nversion = "9.9"\n')
        assert report_io._pyproject_version(other) is None        # another project's version is not ours
    finally:
        report_io.toolkit_version.cache_clear()


# -- 5: --plot to a path that cannot be written: one line, before any answer -------------------------------

PICK = ["pick", "jia.thm4", "--m", "10000", "--unit", "beta=0.5"]


@pytest.mark.parametrize("option", ["--plot", "--plot-rate"])
def test_plot_path_is_checked_before_computing(option, tmp_path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "dir.png").mkdir()
    for path in ("/nonexistent/dir/x.png", str(tmp_path / "file" / "x.png"), str(tmp_path / "dir.png"),
                 str(tmp_path / "x.nosuchformat")):
        rc, out, err = run_cli([*PICK, option, path])
        line = one_error(err)
        assert rc == 2 and out == "" and option in line, (path, line)     # no answer printed before the error
    rc, out, err = run_cli([*PICK, option, str(tmp_path / "ok.png")])
    assert rc == 0 and (tmp_path / "ok.png").stat().st_size > 0, err


# -- 6, 7: the report read by list/show/papers/pick: checked, versioned, a missing one said -----------------

def _report(tmp_path: Path, content: str | bytes) -> Path:
    d = tmp_path / "rep"
    d.mkdir(exist_ok=True)
    f = d / "summary.json"
    f.write_bytes(content if isinstance(content, bytes) else content.encode())
    return d


def _summary(version: str | None, evidence=()) -> str:
    prov = {"generated": "2026-01-01T00:00:00+00:00"}
    if version is not None:
        prov["bounds_version"] = version
    return json.dumps({"provenance": prov, "evidence": list(evidence)})


ROW = {"key": "jia.thm2", "evidence": "empirical", "kind": "risk", "name": "x", "verdict": "holds",
       "statistic": 0.1, "lo": 0.0, "hi": 0.2, "bound": 1.0, "confidence": 0.95, "n": 10}


@pytest.mark.parametrize("content, what", [
    ("[]", "top level is an array"),
    (_summary(toolkit_version(), ()).replace('"evidence": []', '"evidence": "rows"'), "'evidence' is a string"),
    (json.dumps({"evidence": []}), "'provenance' is missing"),
    (_summary(toolkit_version(), [dict(ROW, statistic=[1])]), "evidence[0] (jia.thm2).statistic"),
    (_summary(toolkit_version(), [dict(ROW, verdict="great")]), "'verdict' = 'great'"),
    (_summary(toolkit_version(), [dict(ROW, worst="x")]), "worst is a string"),
    ('{"provenance": ', "not valid JSON"),
    (b'\xff\xfe{}', "not UTF-8"),
    ("[" * 100_000 + "]" * 100_000, "nested too deeply"),
])
def test_an_unexpected_summary_is_one_line(tmp_path, content, what) -> None:
    d = _report(tmp_path, content)
    rc, out, err = run_cli(["list", "--paper", "jia", "--reports", str(d)])
    line = one_error(err)
    assert rc == 2 and out == "" and str(d / "summary.json") in line and what in line, line


def test_a_well_formed_summary_is_read(tmp_path) -> None:
    d = _report(tmp_path, _summary(toolkit_version(), [ROW, dict(ROW, hi="inf", worst=None)]))
    s = read_summary(d)
    assert s.found and not s.foreign and len(s.rows) == 2 and s.rows[1].hi == float("inf")
    rc, _, err = run_cli(["show", "jia.thm2", "--reports", str(d)])
    assert rc == 0 and "note:" not in err


def test_a_fifo_or_device_is_refused_without_reading(tmp_path) -> None:
    d = tmp_path / "rep"
    d.mkdir()
    os.mkfifo(d / "summary.json")     # nobody writes it: a blocking read would hang
    p = subprocess.run([sys.executable, "-m", "bounds", "list", "--paper", "jia", "--reports", str(d)],
                       capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert p.returncode == 2 and "is a FIFO" in one_error(p.stderr)
    (d / "summary.json").unlink()
    (d / "summary.json").symlink_to(os.devnull)
    rc, _, err = run_cli(["list", "--paper", "jia", "--reports", str(d)])
    assert rc == 2 and "is a device" in one_error(err)
    (d / "summary.json").unlink()
    (d / "summary.json").mkdir()
    rc, _, err = run_cli(["papers", "--reports", str(d)])
    assert rc == 2 and "is a directory" in one_error(err)


@pytest.mark.parametrize("version", ["0.0.0+another", None])
def test_a_summary_of_another_version_is_refused_or_named(tmp_path, version) -> None:
    d = _report(tmp_path, _summary(version, [ROW]))
    rc, out, err = run_cli(["list", "--paper", "jia", "--reports", str(d)])
    line = one_error(err)
    assert rc == 2 and out == "" and toolkit_version() in line
    assert (version or "unrecorded") in line
    rc, out, err = run_cli(["list", "--paper", "jia", "--reports", str(d), "--reports-any-version"])
    assert rc == 0, err
    body = out.splitlines()[1:]
    assert len(body) == len([k for k in REG.keys() if k.startswith("jia.")])
    tag = f"report of dp-erm-verify {version or 'an unrecorded version'}"
    assert all(tag in ln for ln in body)                   # beside every verdict taken from it
    rc, out, _ = run_cli(["show", "jia.thm2", "--reports", str(d), "--reports-any-version"])
    assert rc == 0 and tag in next(ln for ln in out.splitlines() if "VERDICT" in ln)
    rc, out, _ = run_cli(["list", "--paper", "jia", "--reports", str(d), "--reports-any-version", "--json"])
    assert {e["verdict_report_version"] for e in json.loads(out)} == {version or "an unrecorded version"}


def test_a_missing_report_is_said(tmp_path) -> None:
    rc, out, err = run_cli(["list", "--paper", "jia", "--reports", str(tmp_path / "none")])
    assert rc == 0 and out
    assert f"note: no report found at {tmp_path / 'none' / 'summary.json'}: verdicts rest on the symbolic checks alone" \
        in err.splitlines()


def test_pick_reads_the_report_through_the_same_checks(tmp_path) -> None:
    d = _report(tmp_path, _summary("0.0.0+another", []))
    with pytest.raises(ValueError, match="0.0.0\\+another"):
        pick.report_rows(str(d))
    from bounds import report_io

    with report_io.using(d, any_version=True):
        assert pick.report_rows() == [] and read_summary().foreign


# -- did you mean: the valid keys of the command's kind first ----------------------------------------------

@pytest.mark.parametrize("argv, valid", [
    (["pick", "jia.s5_2", "--m", "100"], lambda: [k for k in pick.pickable_keys("jia") if k.startswith("jia.s5_2.")]),
    (["calibrate", "jia.s5_2", "eps=1"], lambda: [k for k in cal.mechanism_keys("jia") if k.startswith("jia.s5_2.")]),
    (["eval", "jia.s5_2", "m=100"], lambda: [k for k in REG.keys() if k.startswith("jia.s5_2.")]),
    (["show", "jia.s5_2"], lambda: [k for k in REG.keys() if k.startswith("jia.s5_2.")]),
])
def test_did_you_mean_starts_with_the_valid_keys(argv, valid) -> None:
    rc, _, err = run_cli(argv)
    names = suggestions(one_error(err))
    want = valid()
    assert rc == 2 and want and names[:len(want)] == want, (names, want)


def test_library_suggestions_include_every_key_of_a_section() -> None:
    with pytest.raises(ValueError) as exc:
        bounds.value("jia.s5_2", m=100)
    assert set(k for k in REG.keys() if k.startswith("jia.s5_2.")) <= set(suggestions(str(exc.value)))
