"""Per-paper cache fingerprints: editing one paper's code recomputes only what runs that code."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from simulations.cache import TrialCache, code_files, code_fingerprint

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture()
def tree(tmp_path: Path) -> Path:
    """A copy of the three packages, to edit freely."""
    for pkg in ("bounds", "simulations", "verify"):
        shutil.copytree(ROOT / pkg, tmp_path / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    return tmp_path


def _papers_with_trials(root: Path) -> list[str]:
    return sorted(p.stem for p in (root / "simulations" / "trials").glob("*.py")
                  if not p.stem.startswith("_") and (root / "bounds" / "papers" / p.name).exists())


def _append(path: Path, text: str = "\n# edited\n") -> None:
    path.write_text(path.read_text() + text)


def test_editing_one_papers_trials_recomputes_only_its_trials(tree: Path) -> None:
    a, b = _papers_with_trials(tree)[:2]
    fa, fb = (code_fingerprint(f"simulations.trials.{p}", tree) for p in (a, b))
    _append(tree / "simulations" / "trials" / f"{b}.py")
    from simulations import cache as C

    C._fingerprint.cache_clear()
    assert code_fingerprint(f"simulations.trials.{a}", tree) == fa
    assert code_fingerprint(f"simulations.trials.{b}", tree) != fb


def test_editing_a_papers_bounds_recomputes_its_trials_only(tree: Path) -> None:
    from simulations import cache as C

    ids = _papers_with_trials(tree)
    before = {p: code_fingerprint(f"simulations.trials.{p}", tree) for p in ids}
    _append(tree / "bounds" / "papers" / f"{ids[0]}.py")
    C._fingerprint.cache_clear()
    after = {p: code_fingerprint(f"simulations.trials.{p}", tree) for p in ids}
    changed = {p for p in ids if after[p] != before[p]}
    assert ids[0] in changed
    # a trial module changes with another paper's statements only if its code names that paper
    for p in changed - {ids[0]}:
        files = {f.relative_to(tree).as_posix() for f in code_files(f"simulations.trials.{p}", tree)}
        assert f"bounds/papers/{ids[0]}.py" in files


def test_editing_shared_code_that_trials_import_recomputes_them(tree: Path) -> None:
    from simulations import cache as C

    ids = _papers_with_trials(tree)
    before = {p: code_fingerprint(f"simulations.trials.{p}", tree) for p in ids}
    _append(tree / "simulations" / "solvers.py")
    C._fingerprint.cache_clear()
    for p in ids:
        uses = any(f.name == "solvers.py" for f in code_files(f"simulations.trials.{p}", tree))
        assert (code_fingerprint(f"simulations.trials.{p}", tree) != before[p]) == uses


def test_editing_an_audit_module_changes_its_fingerprint(tree: Path) -> None:
    from simulations import cache as C

    mods = sorted(p.stem for p in (tree / "verify" / "empirical").glob("*.py")
                  if not p.stem.startswith("_") and (tree / "bounds" / "papers" / p.name).exists())
    f0 = code_fingerprint(f"verify.empirical.{mods[0]}", tree)
    _append(tree / "verify" / "empirical" / f"{mods[0]}.py")
    C._fingerprint.cache_clear()
    assert code_fingerprint(f"verify.empirical.{mods[0]}", tree) != f0


def test_function_level_imports_are_followed(tree: Path) -> None:
    (tree / "simulations" / "probe_a.py").write_text("def f():\n    from simulations import probe_b\n")
    (tree / "simulations" / "probe_b.py").write_text("X = 1\n")
    names = {f.name for f in code_files("simulations.probe_a", tree)}
    assert names == {"probe_a.py", "probe_b.py", "__init__.py"}   # the package runs too


def test_trial_cache_key_follows_the_module_fingerprint(tmp_path: Path) -> None:
    c = TrialCache(tmp_path)
    k1 = c.key("simulations.runner.uniform_trial", {"n": 3}, 0, 0, 4)
    assert k1 == c.key("simulations.runner.uniform_trial", {"n": 3}, 0, 0, 4)
    assert k1 != c.key("simulations.runner.uniform_trial", {"n": 3}, 0, 0, 4, code="other code")


def test_a_module_reading_every_papers_declarations_depends_on_every_paper(tree: Path) -> None:
    from simulations import cache as C

    files = {f.relative_to(tree).as_posix() for f in code_files("simulations.trials.utility", tree)}
    assert {f"simulations/trials/{p}.py" for p in _papers_with_trials(tree)} <= files
    before = code_fingerprint("simulations.trials.utility", tree)
    _append(tree / "simulations" / "trials" / f"{_papers_with_trials(tree)[-1]}.py")
    C._fingerprint.cache_clear()
    assert code_fingerprint("simulations.trials.utility", tree) != before
