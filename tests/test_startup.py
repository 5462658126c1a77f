"""Commands that start fast (issue 33, item 4; issue 32, item 7): which heavy modules each command imports.

No timing is asserted (``bench/bench_startup.py`` measures the CPU against ``import numpy``); these tests
assert what the speed rests on: ``import bounds`` loads neither sympy nor numpy, ``python -m verify audit
--help`` loads none of sympy, numpy, scipy or pandas, and a user's audit of saved samples loads neither
sympy nor pandas nor scipy.stats (nor the papers).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]

#: runs ``code`` then prints, as JSON, which of the modules named in argv[1] are loaded
_PROBE = r"""
import json, sys
names = sys.argv[1].split(",")
sys.argv = [sys.argv[0], *sys.argv[2:]]
try:
    exec(compile(sys.argv[1], "<cmd>", "exec"))
except SystemExit:
    pass
sys.stdout.flush()
print("\nLOADED " + json.dumps([n for n in names if n in sys.modules]))
"""

HEAVY = ["sympy", "numpy", "scipy", "scipy.stats", "scipy.optimize", "pandas", "matplotlib", "bounds.core",
         "bounds.papers", "verify.empirical", "verify.report"]


def loaded(code: str) -> list[str]:
    """The modules of :data:`HEAVY` that ``code`` (run in a new interpreter) leaves imported."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", _PROBE, ",".join(HEAVY), code], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    line = [x for x in out.stdout.splitlines() if x.startswith("LOADED ")]
    assert line, out.stderr
    return json.loads(line[-1][7:])


def test_import_bounds_loads_neither_sympy_nor_numpy():
    assert loaded("import bounds, bounds._lazy") == []


def test_bounds_names_are_still_there():
    """The lazy package keeps its public names (and the submodules the eager imports used to load)."""
    got = loaded("import bounds\nassert bounds.Statement.__name__ == 'Statement'\nassert bounds.STATUSES\n"
                 "assert bounds.core.Registry is bounds.Registry")
    assert "sympy" in got                            # now loaded, on use


def test_verify_audit_help_imports_nothing_heavy():
    got = loaded("from verify.cli import main\nmain(['audit', '--help'])")
    assert got == []


def test_verify_help_imports_neither_sympy_nor_the_papers():
    got = loaded("from verify.cli import main\nmain(['--help'])")
    assert not {"sympy", "bounds.core", "bounds.papers", "verify.empirical", "pandas", "scipy"} & set(got)


def test_a_user_audit_of_saved_samples_loads_no_paper_no_sympy_no_pandas(tmp_path):
    rng = np.random.default_rng(0)
    f = tmp_path / "s.npz"
    np.savez(f, d0=rng.laplace(0, 1, 2000), d1=1 + rng.laplace(0, 1, 2000))
    got = loaded(f"from verify.cli import main\nassert main(['audit', '--samples', {str(f)!r}, '--claim-eps', '1',"
                 " '--no-tradeoff']) == 0")
    assert "numpy" in got                            # the audit ran
    assert not {"sympy", "pandas", "scipy.stats", "bounds.core", "bounds.papers", "verify.empirical",
                "verify.report", "matplotlib"} & set(got)


def test_verify_audit_public_names_load_on_use():
    got = loaded("import verify.audit as va\nassert callable(va.audit_samples)\nassert 'TEXTBOOK' in dir(va)")
    assert "scipy.stats" not in got and "sympy" not in got


def test_bounds_version_and_noise_load_no_sympy():
    """``python -m bounds --version`` and ``noise`` (the accountants alone) never load a statement."""
    assert loaded("from bounds.cli import main\nmain(['--version'])") == []
    got = loaded("from bounds.cli import main\n"
                 "assert main(['noise', 'gaussian', '--sensitivity', '1', '--eps', '1', '--delta', '1e-5']) == 0")
    assert "numpy" in got and not {"sympy", "bounds.core", "bounds.papers"} & set(got)
