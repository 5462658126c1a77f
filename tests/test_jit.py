"""The JIT warm-up (`python -m simulations.jit`, run by the Makefile after installing) covers every kernel."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

numba = pytest.importorskip("numba")

from simulations.jit import FAMILIES, warm  # noqa: E402

ROOT = Path(__file__).resolve().parents[1] / "simulations"
MODULES = sorted(p.stem for p in ROOT.glob("_*numba.py"))


def _called_from_python(name: str) -> bool:
    """Is ``name`` called by a module of simulations/ other than the compiled ones?"""
    pat = re.compile(rf"\b{name}\(")
    return any(pat.search(p.read_text()) for p in ROOT.rglob("*.py") if not p.stem.endswith("numba"))


def test_warm_compiles_every_kernel_called_from_python():
    """After warm(), every jitted entry point that Python code calls has a compiled signature (an entry
    point no family reaches would compile inside a timed run, in every worker)."""
    assert MODULES == ["_large_margin_numba", "_loops_numba", "_scan_numba", "_svm_numba"]
    times = warm(parallel=False)
    assert set(times) == set(FAMILIES) and all(t >= 0 for t in times.values())
    entry, missing = [], []
    for name in MODULES:
        mod = importlib.import_module(f"simulations.{name}")
        for attr in mod.__all__:
            obj = getattr(mod, attr)
            if isinstance(obj, numba.core.registry.CPUDispatcher) and _called_from_python(attr):
                entry.append(attr)
                if not obj.signatures:
                    missing.append(f"{name}.{attr}")
    assert len(entry) >= 9, entry
    assert not missing, f"kernels no warm-up family compiles: {missing}"


def test_main_prints_cpu_time(capsys):
    """``python -m simulations.jit`` ends with the number of kernels and the step's CPU time (issue 33)."""
    from simulations.jit import main

    assert main() == 0
    line = capsys.readouterr().err.strip().splitlines()[-1]
    m = re.fullmatch(r"numba: (\d+) kernels compiled or loaded from the cache in ([0-9.]+) s CPU \(([0-9.]+) s wall; per family, wall: (.*)\)",
                     line)
    assert m, line
    assert int(m.group(1)) >= 11
    assert sorted(p.split()[0] for p in m.group(4).split(", ")) == sorted(FAMILIES)
