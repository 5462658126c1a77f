"""The symbolic snapshot (bounds.snapshot): stored evaluations are what the code computes,
are read instead of recomputed, and the command line's light registry answers like the real one."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import sympy as sp

from bounds.core import Registry
from bounds.paper import Paper
from bounds.snapshot import Store, source_digest
from bounds.symbols import S

ROOT = Path(__file__).resolve().parents[1]


def _demo(calls: list[str]) -> Paper:
    demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")

    def derive_dep(dep):
        calls.append("dep")
        return 2 / S.m

    def derive_top(dep):
        calls.append("top")
        return dep("dep") * S.kappa

    demo.add("dep", "Lemma 1", "lemma", "q", 2 / S.m, derive=derive_dep, relation="upper",
             params=("m",), doc="Doe (2026), Lemma 1.")
    demo.add("top", "Theorem 1", "theorem", "q", 3 * S.kappa / S.m, derive=derive_top, relation="upper",
             params=("kappa", "m"), depends=("dep",), doc="Doe (2026), Theorem 1.")
    return demo


def test_store_roundtrip_and_corrupt_entry_is_a_miss(tmp_path):
    st = Store(tmp_path, digest="x" * 8)
    tup = (2 / S.m, None, [], "consistent", "detail", ())
    assert st.put("demo.a", tup)
    got = st.get("demo.a")
    assert got[0] == 2 / S.m and got[3] == "consistent"
    path = next((tmp_path / ("x" * 8) / "eval").glob("*.pkl"))
    path.write_bytes(path.read_bytes()[:10])           # truncated: a miss, never a crash
    assert st.get("demo.a") is None
    path.write_bytes(b"not a pickle")
    assert st.get("demo.a") is None
    assert st.get("demo.absent") is None


def test_registry_reads_the_store_instead_of_deriving(tmp_path):
    calls: list[str] = []
    store = Store(tmp_path, digest="d1")
    first = Registry([_demo(calls)], store=store)
    ev = first.evaluate("demo.top")
    assert ev.status == "consistent" and sorted(calls) == ["dep", "dep", "top", "top"]
    assert store.has("demo.top") and store.has("demo.dep")

    calls.clear()
    second = Registry([_demo(calls)], store=store)
    ev2 = second.evaluate("demo.top")
    assert calls == []                                  # nothing derived: read from the store
    assert ev2.status == ev.status and sp.simplify(ev2.derived - ev.derived) == 0
    assert [c.name for c in ev2.checks] == [c.name for c in ev.checks]

    # a different digest (another version of bounds/) sees nothing
    calls.clear()
    Registry([_demo(calls)], store=Store(tmp_path, digest="d2")).evaluate("demo.top")
    assert "top" in calls


def test_statement_added_after_the_store_is_never_read_from_it(tmp_path):
    calls: list[str] = []
    store = Store(tmp_path, digest="d1")
    Registry([_demo(calls)], store=store).evaluate("demo.dep")
    reg = Registry([], store=store)
    demo = _demo(calls)
    reg.add_paper(demo)                                 # statements added after the store was attached
    calls.clear()
    reg.evaluate("demo.dep")
    assert calls == ["dep", "dep"]


def test_light_registry_looks_up_and_never_derives(tmp_path):
    calls: list[str] = []
    store = Store(tmp_path, digest="d1")
    full = Registry([_demo(calls)], store=store)
    full.evaluate("demo.dep")
    store.save_registry(full)
    light = store.light_registry()
    assert light is not None and light.light and light.get("demo.top").derive is None
    assert light.evaluate("demo.dep").status == full.evaluate("demo.dep").status
    with pytest.raises(LookupError, match="demo.top"):
        light.evaluate("demo.top")                        # not stored: the caller must fall back
    assert light.value("demo.dep", {"m": 4}) == full.value("demo.dep", {"m": 4}) == 0.5
    assert store.light_registry(["nope"]) is None


def test_source_digest_covers_every_bounds_module():
    import hashlib

    here = ROOT / "bounds"
    h = hashlib.sha256()
    for p in sorted(here.rglob("*.py")):
        h.update(p.relative_to(here).as_posix().encode())
        h.update(p.read_bytes())
    assert source_digest() == h.hexdigest()[:32]


def _cli(args: list[str], root: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=str(root))
    return subprocess.run([sys.executable, "-m", "bounds", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("args", [
    ["eval", "jia.thm1", "B=1", "gamma=2", "lam=0.1", "m=100", "--repr"],
    ["show", "jia.thm1", "--json", "--reports", "/nonexistent"],
    ["eval", "jia.thm1", "B=1", "gamma=2", "lam=-1", "m=100"],
])
def test_cli_answers_the_same_cold_and_warm(tmp_path, args):
    cold = _cli(args, tmp_path)                          # evaluates and stores
    assert Store(tmp_path)._paper_path("jia").exists()
    warm = _cli(args, tmp_path)                          # light registry from the snapshot
    assert (cold.returncode, cold.stdout) == (warm.returncode, warm.stdout)
    if args[0] == "show":
        d = json.loads(warm.stdout)
        assert d["key"] == "jia.thm1" and d["status"] in ("consistent", "erratum")
    if "lam=-1" in args:
        assert warm.returncode == 2 and "lam" in warm.stderr and warm.stderr.count("\n") == 1


def test_cli_falls_back_when_the_snapshot_is_off(tmp_path):
    env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC="off")
    out = subprocess.run([sys.executable, "-m", "bounds", "eval", "jia.thm1", "B=1", "gamma=2", "lam=0.1",
                          "m=100"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0
    # Theorem 1 of 000: 2κB... here the derived bound evaluated independently
    import bounds

    expr = bounds.registry.evaluate("jia.thm1").expression
    ns = bounds.get("jia.thm1").ns
    val = float(expr.subs({ns["B"].symbol: 1, ns["gamma"].symbol: 2, ns["lam"].symbol: 0.1, ns["m"].symbol: 100}))
    assert float(out.stdout.splitlines()[0]) == pytest.approx(val, rel=1e-9)   # then the statement and its verdict


# -- per-paper snapshots: an edit re-derives what it can change, and nothing else ----------------

def _tree(root: Path) -> Path:
    """A ``bounds``-like source tree: shared code, three paper modules; ``b`` imports from ``a``."""
    src = root / "src"
    (src / "papers").mkdir(parents=True)
    (src / "core.py").write_text("SHARED = 1\n")
    (src / "papers" / "__init__.py").write_text("")
    (src / "papers" / "_helpers.py").write_text("H = 1\n")
    (src / "papers" / "a.py").write_text("A = 1\n")
    (src / "papers" / "b.py").write_text("from .a import (  # a comment (with parentheses)\n    A,\n)\nB = A\n")
    (src / "papers" / "c.py").write_text("from .._lazy import x  # shared code, not a paper\nC = 1\n")
    return src


def _papers(calls: list[str]) -> list[Paper]:
    out = []
    for pid in ("a", "b", "c"):
        p = Paper(pid, title=pid, citation=f"Doe, J.: {pid} (2026)")
        for name in ("lemma", "thm"):
            def derive(dep, pid=pid, name=name):
                calls.append(f"{pid}.{name}")
                return (dep("lemma") if name == "thm" else 1) * 2 / S.m
            p.add(name, name, "lemma", "q", 2 / S.m if name == "lemma" else 4 / S.m, derive=derive,
                  relation="upper", params=("m",), depends=("lemma",) if name == "thm" else (),
                  doc=f"Doe (2026), {name}.")
        out.append(p)
    return out


def _derived_after(edit, snap: Path, src: Path) -> set[str]:
    """Derive every statement into a new store, apply ``edit``, evaluate again: the papers derived again."""
    from bounds.snapshot import clear_digests

    calls: list[str] = []
    clear_digests()
    first = Registry(_papers(calls), store=Store(snap, src=src))
    for k in first.keys():
        first.evaluate(k)
    assert sorted(set(calls)) == [f"{p}.{n}" for p in "abc" for n in ("lemma", "thm")]
    edit()
    clear_digests()
    calls.clear()
    again = Registry(_papers(calls), store=Store(snap, src=src))
    for k in again.keys():
        assert again.evaluate(k).status == first.evaluate(k).status
    clear_digests()
    return {c.split(".")[0] for c in calls}


def _append(path: Path) -> Any:
    return lambda: path.write_text(path.read_text() + "# edited\n")


def test_editing_a_paper_rederives_it_and_its_importers_only(tmp_path):
    src = _tree(tmp_path)
    assert _derived_after(lambda: None, tmp_path / "s0", src) == set()                 # nothing changed: all read
    assert _derived_after(_append(src / "papers" / "a.py"), tmp_path / "s1", src) == {"a", "b"}  # b imports a
    assert _derived_after(_append(src / "papers" / "b.py"), tmp_path / "s2", src) == {"b"}
    assert _derived_after(_append(src / "papers" / "c.py"), tmp_path / "s3", src) == {"c"}


@pytest.mark.parametrize("shared", ["core.py", "papers/_helpers.py", "papers/__init__.py"])
def test_editing_shared_code_rederives_every_paper(tmp_path, shared):
    src = _tree(tmp_path)
    assert _derived_after(_append(src / shared), tmp_path / "s", src) == {"a", "b", "c"}


def test_paper_digests_follow_the_imports_of_the_real_papers():
    """jamp imports seed 000's helpers from bounds.papers.jia; no other paper imports another, and no
    statement depends on another paper's (a paper reaches another one only through its imports)."""
    from bounds.discovery import build_registry
    from bounds.snapshot import _imported_units, paper_units

    units = paper_units()
    deps = {n: _imported_units(files[0], "papers", units) for n, files in units.items()}
    assert deps["jamp"] == {"jia"} and not any(v for k, v in deps.items() if k != "jamp")
    reg = build_registry()
    assert set(units) == set(reg.papers)
    for st in reg:
        for d in (*st.depends, *st.schedule.values()):
            assert reg.get(d if d in reg else f"{st.paper}.{d}").paper == st.paper


def _copy_bounds(tmp_path: Path) -> Path:
    import shutil

    src = tmp_path / "src"
    shutil.copytree(ROOT / "bounds", src / "bounds", ignore=shutil.ignore_patterns("__pycache__"))
    return src


def test_cli_after_editing_one_paper_derives_that_paper_only(tmp_path):
    """The real command line on a copy of bounds/: ``list`` from a warm snapshot derives nothing; after
    appending a comment to papers/cms.py it derives cms's 15 statements (and prints the same list),
    then reads them too."""
    import shutil

    from bounds.snapshot import default_root, shared_digest

    src = _copy_bounds(tmp_path)
    snap = tmp_path / "snap"
    here = default_root()
    if here is not None and (here / shared_digest()).is_dir():      # the session's warm snapshot
        shutil.copytree(here / shared_digest(), snap / shared_digest(), ignore=shutil.ignore_patterns(".*"))
    env = dict(os.environ, DP_ERM_VERIFY_SYMBOLIC=str(snap), PYTHONPATH=str(src))

    def listing() -> subprocess.CompletedProcess:
        out = subprocess.run([sys.executable, "-m", "bounds", "list"], cwd=src, env=env, capture_output=True,
                             text=True, timeout=900)
        assert out.returncode == 0, out.stderr[-2000:]
        return out

    before = listing()                     # fills the snapshot if the session had none
    assert "evaluating" not in listing().stderr
    with open(src / "bounds" / "papers" / "cms.py", "a", encoding="utf-8") as fh:
        fh.write("# edited\n")
    after = listing()
    n_cms = sum(1 for line in before.stdout.splitlines() if line.lstrip().startswith("cms."))   # one row each
    assert n_cms >= 10 and f"evaluating {n_cms} statements" in after.stderr
    assert after.stdout == before.stdout
    assert "evaluating" not in listing().stderr


# -- small_simplify's outcomes, kept by expression ----------------------------------------------

def test_simplify_outcomes_are_kept_by_expression_the_undecided_one_included(tmp_path, monkeypatch):
    from bounds import checks

    monkeypatch.setattr(checks, "_SIMPLIFIED", {})
    small = sp.sin(S.m) ** 2 + sp.cos(S.m) ** 2
    big = sp.Add(*[S.m ** k for k in range(1, 90)])             # more operations than the budget: undecided
    checks.use_simplify_cache(tmp_path)
    try:
        assert checks.small_simplify(small) == 1 and checks.small_simplify(big) is None
        assert len(list(tmp_path.rglob("*.pkl"))) == 2
        checks._SIMPLIFIED.clear()                              # another process: only the disk

        def boom(*a, **k):
            raise RuntimeError("sympy called")

        monkeypatch.setattr(checks.sp, "simplify", boom)
        monkeypatch.setattr(checks.sp, "count_ops", boom)
        assert checks.small_simplify(small) == 1 and checks.small_simplify(big) is None   # read, not computed
        plain = sp.Symbol(str(S.m))                             # the same name without assumptions: another key
        with pytest.raises(RuntimeError, match="sympy called"):
            checks.small_simplify(sp.sin(plain) ** 2 + sp.cos(plain) ** 2)
    finally:
        checks.use_simplify_cache(None)


# -- cooperative stores: a statement another live process is deriving is waited for ---------------

def test_a_cooperative_store_waits_for_a_live_claimant_and_takes_over_a_dead_ones(tmp_path):
    import threading

    from bounds.snapshot import _proc_start

    tup = (2 / S.m, None, [], "consistent", "detail", ())
    coop = Store(tmp_path, digest="d")
    coop.cooperative = True
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        claim = coop._eval_path("demo.a").with_suffix(".claim")
        claim.parent.mkdir(parents=True)
        claim.write_text(f"{__import__('socket').gethostname()} {other.pid} {_proc_start(other.pid)}")
        got: list = []
        waiter = threading.Thread(target=lambda: got.append(coop.get("demo.a")))
        waiter.start()
        waiter.join(0.5)
        assert waiter.is_alive() and not got                 # the claimant lives: it waits
        Store(tmp_path, digest="d").put("demo.a", tup)       # the claimant stores its evaluation
        waiter.join(30)
        assert got and got[0][3] == "consistent"             # read, not derived here
    finally:
        other.kill()
        other.wait()
    claim = coop._eval_path("demo.b").with_suffix(".claim")
    claim.write_text(f"{__import__('socket').gethostname()} {other.pid} {_proc_start(other.pid)}")
    assert coop.get("demo.b") is None                         # a dead claimant: claimed here, to derive
    assert "demo.b" in coop._claims and claim.read_text().split()[1] == str(os.getpid())
    coop.put("demo.b", tup)
    assert not claim.exists() and coop.get("demo.b")[3] == "consistent"
