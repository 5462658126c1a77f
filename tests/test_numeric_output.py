"""The numeric store's output, generation and key (issue 33): what the review of ``bounds/numeric.py`` asked.

* a stdout that cannot take the answer (an encoding, a full disk, a closed descriptor) gives the same
  stdout, stderr and status with the store on and off (one wrapper, :func:`bounds._lazy.emit`);
* an entry is generated only for a call of a kind the store answers, after stdout and stderr are
  detached (a reader sees the answer's end first), and an interrupt during it is silent;
* an entry with fewer than :data:`bounds.numeric.MIN_COMPARED` points compared is unsupported;
* the key follows what the answers read of ``summary.json`` (not its provenance time) and every file
  the digest covers.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bounds import numeric

ROOT = Path(__file__).resolve().parents[1]
ARGV = ["calibrate", "cms.rff.beta", "n=20000", "Lam=0.01", "eps=1", "C_L=1", "R_z=1", "tau=1e-5"]

#: runs ``python -m bounds`` with the numeric store at argv[-2]; argv[-1] gets the modules loaded and what
#: the generation saw (whether fd 1 and 2 were the null device)
PROBE = """import os, runpy, sys
from bounds import numeric
log, store = sys.argv.pop(), sys.argv.pop()
numeric.store_dir = lambda: store
seen = []
real = numeric._generate_missed
def spy():
    null = os.stat(os.devnull)
    seen.append(all(os.path.samestat(os.fstat(fd), null) for fd in (1, 2)))
    real()
numeric._generate_missed = spy
sys.argv = ['bounds', *sys.argv[1:]]
try:
    runpy.run_module('bounds', run_name='__main__', alter_sys=True)
except SystemExit as e:
    rc = e.code
finally:
    with open(log, 'w') as fh:
        fh.write(' '.join(m for m in ('sympy',) if m in sys.modules) + '|' + repr(seen))
sys.exit(rc)
"""


@pytest.fixture()
def store(tmp_path, monkeypatch):
    monkeypatch.setattr(numeric, "store_dir", lambda: str(tmp_path / "numeric"))
    monkeypatch.delenv("DP_ERM_VERIFY_NUMERIC", raising=False)
    numeric.MISSED.clear()
    yield tmp_path / "numeric"
    numeric.MISSED.clear()


def _run(argv, store, log, numeric_env, stdout=subprocess.PIPE, extra_env=None, close_stdout=False):
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DP_ERM_VERIFY_NUMERIC": numeric_env, **(extra_env or {})}
    pre = (lambda: os.close(1)) if close_stdout else None
    p = subprocess.run([sys.executable, "-c", PROBE, *argv, str(store), str(log)], cwd=ROOT, env=env,
                       stdout=stdout, stderr=subprocess.PIPE, preexec_fn=pre, timeout=300)
    return p.returncode, p.stdout, p.stderr, Path(log).read_text()


def test_a_failing_stdout_gives_the_same_bytes_and_status_with_the_store_on_and_off(store, tmp_path):
    key, au, assigns = numeric._parse_calibrate(ARGV)
    assert not numeric.generate_calibrate(key, au, extra=[{k: float(v) for k, v in assigns}]).get("unsupported")
    log = tmp_path / "log"
    ok = _run(ARGV, store, log, "on")
    assert ok[0] == 0 and ok[3].startswith("|") and ok[1] == _run(ARGV, store, log, "off")[1]   # numeric: no sympy
    with open("/dev/full", "wb") as full:
        cases = {"ascii": dict(extra_env={"PYTHONIOENCODING": "ascii"}), "full": dict(stdout=full),
                 "closed": dict(close_stdout=True)}
        for name, kw in cases.items():
            on, off = (_run(ARGV, store, log, mode, **kw) for mode in ("on", "off"))
            assert on[:3] == off[:3], name
            rc, _out, err = on[:3]
            if name == "ascii":
                assert rc == 2 and err.startswith(b"error: 'ascii' codec can't encode") and err.count(b"\n") == 1
            elif name == "full":
                assert (rc, err) == (2, b"error: No space left on device\n")
            else:
                assert (rc, err) == (0, b"")


def test_the_generation_runs_with_stdout_and_stderr_detached_and_prints_nothing(store, tmp_path):
    log = tmp_path / "log"
    first = _run(ARGV, store, log, "on")
    loaded, seen = first[3].split("|")
    assert "sympy" in loaded and seen == "[True]"             # a miss: sympy answered, then the generation
    again = _run(ARGV, store, log, "on")
    assert again[3] == "|[]" and again[:3] == first[:3]        # stored: answered without sympy, same bytes


@pytest.mark.parametrize("missing", [ARGV[:-1], ["eval", "jia.thm2"]], ids=["calibrate", "eval"])
def test_no_generation_after_an_error_the_store_leaves_to_sympy(store, tmp_path, missing):
    log = tmp_path / "log"                                      # a parameter missing: status 2 on the sympy path
    rc, out, err, seen = _run(missing, store, log, "on")
    assert (rc, out) == (2, b"") and err.startswith(b"error: ") and seen.endswith("|[]")
    assert err.count(b"\n") == 1 and not any(store.glob("*/*.json"))


def test_which_status_2_errors_the_store_could_answer():
    from bounds.pick import UnverifiedError
    from bounds.validation import UnknownKeyError

    assert numeric._store_could_answer(0, [])
    assert numeric._store_could_answer(2, [UnverifiedError("no established form")])
    assert numeric._store_could_answer(2, [UnknownKeyError("unknown statement 'x'")])
    assert numeric._store_could_answer(2, [ValueError("statement k (l) gives x = -1 at a=1, outside the meaning of x")])
    assert not numeric._store_could_answer(2, [ValueError("missing parameter 'tau'")])
    assert not numeric._store_could_answer(2, [])
    assert not numeric._store_could_answer(141, [])


def test_an_interrupt_during_the_generation_is_silent(store, monkeypatch):
    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(numeric, "_detach_stdio", lambda: None)
    monkeypatch.setattr(numeric, "_generate_missed", interrupted)
    numeric.MISSED.append(("cms.rff.beta", "calibrate", False, []))
    assert numeric.generate_missed(0, []) is None
    assert numeric.MISSED == []


@pytest.mark.parametrize("kind", ["eval", "calibrate"])
def test_too_few_points_compared_is_unsupported(store, monkeypatch, kind):
    seen = []

    def compared(n):
        def verify(doc, points):
            seen.append(points)
            return n, len(points), ""
        return verify

    name = "verify_entry" if kind == "eval" else "verify_calibrate_entry"
    call = {"n": 20000.0, "Lam": 0.01, "eps": 1.0, "C_L": 1.0, "R_z": 1.0, "tau": 1e-5}

    def gen():
        if kind == "eval":
            return numeric.generate("cms.rff.beta", None, False, extra=[call])
        return numeric.generate_calibrate("cms.rff.beta", False, extra=[call])

    monkeypatch.setattr(numeric, name, compared(numeric.MIN_COMPARED - 1))
    doc = gen()
    assert "unsupported" in doc and "verified" not in doc and f"only {numeric.MIN_COMPARED - 1} of" in doc["unsupported"]
    assert seen[-1][0] == call                                  # the call's own values are compared first
    monkeypatch.setattr(numeric, name, compared(numeric.MIN_COMPARED))
    doc = gen()
    assert not doc.get("unsupported") and doc["verified"].startswith(f"{numeric.MIN_COMPARED} of")


def test_no_entry_is_verified_with_fewer_points_than_the_minimum(store):
    """Whatever is generated: an entry stored as verified says how many points it compared, never fewer."""
    for argv in (ARGV, ["calibrate", "jia.prop1.scale", "eps=0.5", "lam=0.1", "m=1000", "kappa=1", "C_L=1"]):
        key, au, assigns = numeric._parse_calibrate(argv)
        doc = numeric.generate_calibrate(key, au, extra=[{k: float(v) for k, v in assigns}])
        if "verified" in doc:
            assert int(doc["verified"].split()[0]) >= numeric.MIN_COMPARED, doc["verified"]
        else:
            assert doc.get("unsupported")


def test_the_summary_key_ignores_the_provenance_time_but_not_the_evidence(store, tmp_path):
    rows = [{"key": "a.b", "evidence": "empirical", "kind": "k", "name": "n", "verdict": "consistent"},
            {"key": "a.c", "evidence": "symbolic", "kind": "k", "name": "n", "verdict": "holds"}]
    path = tmp_path / "summary.json"
    stamp = [10**18]

    def key_of(generated, rows, version="0.2.0"):
        path.write_text(json.dumps({"provenance": {"generated": generated, "bounds_version": version},
                                    "evidence": rows}))
        stamp[0] += 10**9                       # a new modification time: the remembered key does not apply
        os.utime(path, ns=(stamp[0], stamp[0]))
        return numeric._summary_key(str(path))

    base = key_of("2026-11-29T04:11:59+00:00", rows)
    assert key_of("2026-11-30T01:00:00+00:00", rows) == base                     # a new run, the same evidence
    assert key_of("2026-11-30T02:00:00+00:00", [rows[0], dict(rows[1], verdict="x")]) == base   # symbolic: not read
    assert key_of("2026-11-30T03:00:00+00:00", [dict(rows[0], verdict="violated"), rows[1]]) != base
    assert key_of("2026-11-30T04:00:00+00:00", rows, version="0.1.0") != base
    path.unlink()
    assert numeric._summary_key(str(path)) == b"<absent>"


def test_a_change_of_a_file_the_digest_covers_is_a_miss(store, tmp_path, monkeypatch):
    copy = tmp_path / "bounds"
    shutil.copytree(Path(numeric.__file__).parent, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(numeric, "_HERE", str(copy))
    before = numeric.digest()
    doc = {"key": "cms.rff.beta", "which": "calibrate", "allow_unverified": False, "unsupported": "a test entry"}
    numeric.write_entry(doc, before)
    assert numeric.read_entry("cms.rff.beta", "calibrate", False, before)["unsupported"] == "a test entry"
    with open(copy / "symbols.py", "a") as fh:
        fh.write("\n# edited\n")
    after = numeric.digest()
    assert after != before
    assert numeric.read_entry("cms.rff.beta", "calibrate", False, after) is None


def test_a_hook_that_tests_which_values_are_given_is_not_traced():
    """Traced with every name present, a presence test would freeze one branch: such a hook is refused."""
    import sympy as sp

    syms = {"eps": sp.Symbol("eps"), "q": sp.Symbol("q")}
    by_name = numeric._trace(lambda value, x, **v: x * v["eps"] * v.get("q", 1), (None, 2), dict(syms))
    assert by_name == 2 * syms["eps"] * syms["q"]        # v.get traced as q: a call without q goes to sympy (_at)
    for hook in (lambda value, x, **v: x if "q" in v else 2 * x,          # a presence test
                 lambda value, x, **v: x * len(v),                       # the mapping as a whole
                 lambda value, x, **v: sum(v.values()),
                 lambda value, x, q=1, **v: x * q * v["eps"]):           # a default for a value
        with pytest.raises(numeric.Unsupported):
            numeric._trace(hook, (None, 2), dict(syms))
    with pytest.raises(numeric.Unsupported):
        numeric._trace(lambda **v: (lambda: v["eps"])(), (), dict(syms))    # read by a nested function


def test_the_papers_hooks_are_traced_by_name():
    """Every accounting hook the papers declare reads its values by name: none is refused by the presence rule."""
    import bounds
    from bounds import calibrate as cal

    hooks = []
    for key in bounds.registry.keys():
        try:
            h = cal._hook(bounds.registry.get(key)) or {}
        except Exception:  # noqa: BLE001 - no mechanism statement
            continue
        hooks += [f for f in (*h.values(), (h.get("composes_with") or {}).get("eps")) if callable(f)]
    assert len(hooks) >= 5
    for f in hooks:
        numeric._by_name_only(f, {"eps": 1.0})
