"""The seeded store of small_simplify's outcomes: keyed, verified on read, the same results without it."""

from __future__ import annotations

import gzip
import json

import pytest
import sympy as sp

import bounds.simplify_store as ss
from bounds import checks

x = sp.Symbol("x", positive=True)
y = sp.Symbol("y", real=True)
n = sp.Symbol("n", positive=True, integer=True)


@pytest.fixture()
def fresh(monkeypatch, tmp_path):
    """No outcome in memory or on disk, the store read from ``tmp_path/seed.json.gz``."""
    monkeypatch.setattr(checks, "_SIMPLIFIED", {})
    monkeypatch.setattr(checks, "_SIMPLIFY_DIR", [None])
    monkeypatch.setattr(ss, "DATA", tmp_path / "seed.json.gz")
    monkeypatch.setattr(ss, "_LOADED", {})
    monkeypatch.setattr(ss, "_REJECTED", [])
    monkeypatch.setattr(ss, "_USED", [])
    monkeypatch.delenv(ss.ENV, raising=False)
    return tmp_path / "seed.json.gz"


def _seed(path, pairs, version=sp.__version__, budget=checks.SIMPLIFY_OPS):
    ss.write({checks.simplify_key(e): [sp.srepr(e), sp.srepr(out)] for e, out in pairs}, version, budget, path)
    ss._LOADED.clear()


def _no_simplify(*a, **k):
    raise AssertionError("sympy.simplify was called although the store has a valid outcome")


def test_verified_accepts_equal_and_rejects_unequal_outcomes() -> None:
    e = (x ** 2 - 1) / (x - 1)
    assert ss.verified(e, x + 1, "k")
    assert not ss.verified(e, x + 1 + sp.Rational(1, 10 ** 12), "k")       # off by 1e-12: exact arithmetic sees it
    assert not ss.verified(e, x + n, "k")                                 # a symbol the input lacks
    # assumptions decide: sqrt(x²) = x for x > 0 only; the points respect every symbol's assumptions
    assert ss.verified(sp.sqrt(x ** 2), x, "k") and not ss.verified(sp.sqrt(y ** 2), y, "k")
    # non-rational expressions: compared at 40 digits, a relative 1e-20 difference is seen
    e2 = sp.log(x ** 3) + sp.exp(2 * sp.log(n))
    assert ss.verified(sp.expand_log(e2, force=True), 3 * sp.log(x) + n ** 2, "k")
    assert not ss.verified(e2, (3 * sp.log(x) + n ** 2) * (1 + sp.Rational(1, 10 ** 20)), "k")


def test_a_valid_seed_entry_is_used_instead_of_simplify(fresh, monkeypatch) -> None:
    e = x / (2 * x) + sp.sin(x) ** 2 + sp.cos(x) ** 2
    _seed(fresh, [(e, sp.Rational(3, 2))])
    monkeypatch.setattr(sp, "simplify", _no_simplify)
    assert checks.small_simplify(e) == sp.Rational(3, 2)
    assert ss.used() == [checks.simplify_key(e)] and ss.rejected() == []


def test_a_wrong_or_damaged_entry_never_decides(fresh) -> None:
    e = sp.sin(x) ** 2 + sp.cos(x) ** 2 + x
    wrong = x + 2
    _seed(fresh, [(e, wrong)])
    assert checks.small_simplify(e) == sp.simplify(e) == x + 1         # recomputed, not the stored x + 2
    assert [k for k, _ in ss.rejected()] == [checks.simplify_key(e)]
    # an entry that does not parse (an unknown function class, an edited file) is ignored too
    checks._SIMPLIFIED.clear()
    doc = json.loads(gzip.decompress(fresh.read_bytes()))
    doc["entries"][checks.simplify_key(e)][1] = "no_such_function(Symbol('x'))"
    fresh.write_bytes(gzip.compress(json.dumps(doc).encode()))
    ss._LOADED.clear()
    assert checks.small_simplify(e) == x + 1 and ss.rejected()[-1][1] == "does not parse"


@pytest.mark.parametrize("version, budget", [("0.0.1", checks.SIMPLIFY_OPS), (sp.__version__, checks.SIMPLIFY_OPS + 1)])
def test_a_file_of_another_sympy_version_or_budget_is_not_read(fresh, monkeypatch, version, budget) -> None:
    e = x / (2 * x) + x
    _seed(fresh, [(e, x + sp.Rational(1, 2))], version=version, budget=budget)
    assert ss.load(sp.__version__, checks.SIMPLIFY_OPS) == {}
    calls = []
    real = sp.simplify
    monkeypatch.setattr(sp, "simplify", lambda v: calls.append(v) or real(v))
    assert checks.small_simplify(e) == x + sp.Rational(1, 2) and calls == [e]      # computed


def test_a_corrupted_file_or_the_switch_gives_no_entries(fresh, monkeypatch) -> None:
    fresh.write_bytes(b"\x1f\x8b not really gzip")
    assert ss.load(sp.__version__, checks.SIMPLIFY_OPS) == {}
    e = x / (2 * x)
    _seed(fresh, [(e, sp.Rational(1, 2))])
    monkeypatch.setenv(ss.ENV, "off")
    assert ss.lookup(checks.simplify_key(e), e, sp.__version__, checks.SIMPLIFY_OPS) is None
    monkeypatch.setenv(ss.ENV, "on")
    assert ss.lookup(checks.simplify_key(e), e, sp.__version__, checks.SIMPLIFY_OPS) == sp.Rational(1, 2)


def _packaged(k: int = 12) -> list[tuple[str, sp.Expr, sp.Expr]]:
    entries = ss.load(sp.__version__, checks.SIMPLIFY_OPS, ss.DATA)
    rows = sorted(entries.items(), key=lambda kv: (len(kv[1][0]), kv[0]))       # the cheapest to recompute first
    out = []
    for key, (a, b) in rows:      # small_simplify's entries (the store also holds simplified's, under their keys)
        e = ss.parse(a)
        if e is not None and checks.simplify_key(e) == key:
            out.append((key, e, ss.parse(b)))
        if len(out) == k:
            break
    return out


def test_the_packaged_seed_is_what_sympy_computes_here() -> None:
    """Results with and without the seed are identical: each sampled entry is sympy's own outcome."""
    rows = _packaged()
    assert len(rows) in (0, 12)
    if not rows:
        pytest.skip(f"the packaged seed was made with another sympy version than {sp.__version__}")
    for key, e, out in rows:
        assert e is not None and out is not None
        assert checks.simplified_key(e) != key                # the budgeted and unbudgeted outcomes never share a key
        assert sp.simplify(e) == out                          # what the store gives is what sympy gives
        assert ss.verified(e, out, key)                       # and it passes the check on read


def test_small_simplify_gives_the_same_with_and_without_the_seed(monkeypatch) -> None:
    rows = _packaged(6)
    if not rows:
        pytest.skip("no packaged seed for this sympy version")
    outs = {}
    for switch in ("on", "off"):
        monkeypatch.setenv(ss.ENV, switch)
        monkeypatch.setattr(checks, "_SIMPLIFIED", {})
        monkeypatch.setattr(checks, "_SIMPLIFY_DIR", [None])
        monkeypatch.setattr(ss, "_USED", [])
        outs[switch] = [checks.small_simplify(e) for _, e, _ in rows]
        assert len(ss.used()) == (len(rows) if switch == "on" else 0)
    assert outs["on"] == outs["off"]
