"""``python -m bounds.simplify_store``: the pieces of the regeneration (record, harvest, write), and the command's
refusal of a bad argument.  (The full regeneration evaluates every statement, ≈ 70 s of CPU: run by hand; on
29 Nov 2026 it gave a file byte-identical to the committed one.)"""

from __future__ import annotations

import gzip
import json

import sympy as sp

import bounds.simplify_store as ss
from bounds.simplify_store.__main__ import harvest, main

x, y = sp.symbols("x y", positive=True)


def test_recorded_outcomes_are_harvested_checked_and_written_reproducibly(tmp_path, monkeypatch) -> None:
    rec = tmp_path / "rec"
    monkeypatch.setenv(ss.RECORD_ENV, str(rec))
    good = [(sp.log(x * y) - sp.log(x), sp.log(y)), (x / (2 * x), sp.Rational(1, 2)),
            (sp.exp(x) * sp.exp(y), sp.exp(x + y))]
    for i, (e, out) in enumerate(good):
        ss.record(f"k{i}", e, out)
    ss.record("bad", sp.sqrt(x**2 * y), x * y)                       # a wrong outcome: left out
    ss.record("matrix", sp.Matrix([[x]]), sp.Matrix([[x]]))          # not an expression: never recorded
    assert sorted(p.stem for p in rec.glob("*.json")) == ["bad", "k0", "k1", "k2"]
    entries, bad = harvest(rec)
    assert sorted(entries) == ["k0", "k1", "k2"] and bad == 1
    assert all(ss.parse(entries[f"k{i}"][1]) == out for i, (_, out) in enumerate(good))
    a = ss.write(entries, "v", 80, tmp_path / "a.json.gz")
    b = ss.write(dict(reversed(list(entries.items()))), "v", 80, tmp_path / "b.json.gz")
    assert a.read_bytes() == b.read_bytes()                           # sorted, no time stamp: reproducible
    doc = json.loads(gzip.decompress(a.read_bytes()))
    assert doc["format"] == ss.FORMAT and doc["sympy"] == "v" and doc["budget"] == 80
    assert ss.load("v", 80, a) == entries and ss.load("w", 80, a) == {}


def test_the_command_refuses_a_bad_worker_count(capsys) -> None:
    assert main(["--workers", "0", "--out", "unused.json.gz"]) == 2
    assert "--workers" in capsys.readouterr().err
