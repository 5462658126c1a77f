"""The numeric store of ``bounds eval`` (issue 33, item 4): the same bytes as the sympy path, or no answer.

Every answer of :func:`bounds.numeric.fast_eval` is compared with :func:`bounds.cli.main` (the sympy
path) on the same arguments: stdout, stderr and status.  A stale, foreign or edited entry is never
read; inputs the sympy path refuses or warns about, ``--json``/``--repr``, ill-conditioned points
and values at a rounding edge are left to the sympy path (``fast_eval`` returns None, prints nothing).
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from bounds import numeric

ROOT = Path(__file__).resolve().parents[1]

#: the README's and bench/bench_startup.py's eval examples, and statements with relaxed premises, ceilings,
#: joint assumptions and a value_of meaning
EXAMPLES = [
    ["eval", "jia.thm2", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100"],
    ["eval", "jia.prop1.scale", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100", "eps=0.5", "--stated"],
    ["eval", "cms.alg2.eps_prime", "eps=0.1", "n=50000", "Lam=1e-5", "c=0.25"],
    ["eval", "cms.alg2.eps_prime", "eps=1", "n=50000", "Lam=1e-3", "c=0.25"],
    ["eval", "cms.alg2.eps_prime", "eps=1", "n=50000", "Lam=1e-3", "c=0.25", "q=2"],
    ["eval", "jia.thm2", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100", "--derived"],
    ["eval", "jia.s5_2.rate", "C_tilde=10", "m=1e12", "beta=0.5"],
]


@pytest.fixture()
def store(tmp_path, monkeypatch):
    """A private numeric store (the snapshot it reads stays the default one)."""
    monkeypatch.setattr(numeric, "store_dir", lambda: str(tmp_path / "numeric"))
    monkeypatch.delenv("DP_ERM_VERIFY_NUMERIC", raising=False)
    return tmp_path / "numeric"


def _sympy_path(argv):
    from bounds.cli import main

    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = main(list(argv))
    return rc, out.getvalue(), err.getvalue()


def _numeric_path(argv):
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        rc = numeric.fast_eval(list(argv))
    return rc, out.getvalue(), err.getvalue()


def _generate(argv):
    key, which, au, assigns = numeric._parse(argv)
    return numeric.generate(key, which, au, extra=[{k: float(v) for k, v in assigns}])


@pytest.mark.parametrize("argv", EXAMPLES, ids=lambda a: " ".join(a[1:3]))
def test_numeric_answer_is_byte_identical_to_the_sympy_path(store, argv):
    assert _numeric_path(argv) == (None, "", "")           # nothing stored yet: the sympy path answers
    doc = _generate(argv)
    want = _sympy_path(argv)
    got = _numeric_path(argv)
    if got[0] is not None:                                  # else left to the sympy path, printing nothing
        assert got == want
    else:
        assert got == (None, "", "")
    assert not doc.get("unsupported", "").startswith("the numeric answer differs"), doc["unsupported"]


def test_the_bench_rows_are_answered_numerically(store):
    """The three rows the start-cost goal is measured on are fast (not merely correct)."""
    for argv in EXAMPLES[:3]:
        _generate(argv)
        rc, out, err = _numeric_path(argv)
        assert rc is not None, argv
        assert (rc, out, err) == _sympy_path(argv)


def test_grid_of_every_entry_matches(store):
    """The verification's grid (seeded points of the sampling ranges) on a few statements, recomputed here."""
    import bounds

    for key in ("jia.thm2", "cms.alg2.eps_prime", "jia.s5_2.rate"):
        doc = numeric.build_entry(bounds.registry, key, None, False)
        if doc.get("unsupported") or doc.get("refusal"):
            continue
        st = bounds.registry.get(key)
        names = sorted(set(doc["free"]) | set(st.params))
        answered = 0
        for pt in numeric._grid(st, names, 12, seed=7):
            argv = ["eval", key, *[f"{k}={v!r}" for k, v in pt.items()]]
            try:
                fast = numeric.answer(doc, [(k, repr(v)) for k, v in pt.items()])
            except numeric._Unsure:
                continue
            assert fast == _sympy_path(argv), pt
            answered += 1
        assert answered > 0, key


def test_stale_or_edited_entries_fall_back(store, monkeypatch):
    argv = EXAMPLES[0]
    _generate(argv)
    assert _numeric_path(argv)[0] == 0
    real = numeric.digest()
    monkeypatch.setattr(numeric, "digest", lambda: "0" * 32)      # the sources (or the report) changed
    assert _numeric_path(argv) == (None, "", "")
    monkeypatch.setattr(numeric, "digest", lambda: real)
    path = Path(numeric._entry_path("jia.thm2", None, False, real))
    data = path.read_bytes()
    path.write_bytes(data.replace(b"Theorem 2", b"Theorem 3"))    # an edited payload fails its checksum
    assert _numeric_path(argv) == (None, "", "")
    path.write_bytes(data)
    assert _numeric_path(argv)[0] == 0
    other = Path(numeric._entry_path("jia.thm3", None, False, real))   # a file copied under another key
    other.write_bytes(data)
    assert numeric.read_entry("jia.thm3", None, False, real) is None


def test_what_the_numeric_path_leaves_to_sympy(store):
    _generate(EXAMPLES[0])
    base = EXAMPLES[0]
    for argv in (base + ["--json"], base + ["--repr"], base + ["m=200"], base[:-1] + ["m=-1"],
                 base[:-1] + ["m=abc"], base + ["nosuch=1"], base[:-1],           # repeated, bad, unknown, missing
                 base + ["--stated", "--derived"], ["eval", "--help"], ["pick", "jia.thm4", "--m", "1e4"]):
        assert _numeric_path(argv) == (None, "", ""), argv


def test_ill_conditioned_and_edge_values_are_not_answered():
    one_minus = ("Add", [("Add", [("i", 1), ("s", "x")]), ("i", -1)])      # (1 + x) - 1
    with pytest.raises(numeric._Unsure):
        numeric._settled(one_minus, {"x": 1e-17})
    assert numeric._settled(one_minus, {"x": 0.5}) == 0.5
    with pytest.raises(numeric._Unsure):
        numeric._text(1.0000000005, ".10g")                 # 1 or 1.000000001: a rounding edge
    assert numeric._text(0.1, ".10g") == "0.1"
    with pytest.raises(numeric._Unsure):                     # log of a negative number: complex
        numeric._settled(("log", [("s", "x")]), {"x": -1.0})


def test_python_m_bounds_eval_loads_no_sympy(store):
    """``python -m bounds eval`` with a stored entry: sympy, numpy and bounds.core stay unloaded."""
    _generate(EXAMPLES[0])
    probe = ("import runpy, sys\nfrom bounds import numeric\nstore = sys.argv.pop()\nnumeric.store_dir = lambda: store\n"
             "sys.argv = ['bounds', *sys.argv[1:]]\n"
             "try:\n    runpy.run_module('bounds', run_name='__main__', alter_sys=True)\nexcept SystemExit:\n    pass\n"
             "sys.stdout.write('LOADED ' + ','.join(m for m in ('sympy', 'numpy', 'bounds.core') if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("DP_ERM_VERIFY_NUMERIC", None)
    out = subprocess.run([sys.executable, "-c", probe, *EXAMPLES[0][:], str(store)], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.stdout.startswith(_sympy_path(EXAMPLES[0])[1])
    assert out.stdout.rstrip().endswith("LOADED")


def test_a_new_key_removes_the_stale_entries(store):
    doc = {"key": "jia.thm2", "which": None, "allow_unverified": False, "unsupported": "demo"}
    assert numeric.write_entry(doc, "a" * 32)
    assert numeric.read_entry("jia.thm2", None, False, "a" * 32)["unsupported"] == "demo"
    (store / "not-a-key").mkdir()
    assert numeric.write_entry(doc, "b" * 32)
    assert sorted(p.name for p in store.iterdir()) == ["b" * 32, "not-a-key"]
    assert numeric.read_entry("jia.thm2", None, False, "a" * 32) is None


def test_an_unwritable_store_builds_no_entry(tmp_path, monkeypatch):
    """Review (R1, finding 3): where the store cannot be written, a sympy-path call must not pay for a generation."""
    blocker = tmp_path / "numeric"
    blocker.write_text("a file where the store's directory should be")
    monkeypatch.setattr(numeric, "store_dir", lambda: str(blocker))
    called = []
    monkeypatch.setattr(numeric, "generate", lambda *a, **k: called.append(a))
    numeric.MISSED.append(("jia.thm2", None, False, (("m", "100"),)))
    numeric.generate_missed()
    assert called == [] and numeric.MISSED == []


def test_the_key_covers_the_seeded_simplify_store(monkeypatch):
    """Review (R1, finding 6): the seeded store's data can change the forms the papers build, so it is in the key."""
    real = numeric._file_bytes
    before = numeric.digest()
    monkeypatch.setattr(numeric, "_file_bytes",
                        lambda p: real(p) + (b"x" if str(p).endswith("data.json.gz") else b""))
    assert numeric.digest() != before
