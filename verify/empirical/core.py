"""Core of the empirical checks: results, profiles, the run context and the check registry.

A check is a function marked with :func:`empirical_check` (or, for a privacy
audit, :func:`audit_check`) under the key of the :mod:`bounds` statement it
tests; it takes a :class:`Context` and returns a list of
:class:`~bounds.evidence.Result` (one per variant: calibration, data set, m,
...).  A paper's checks live in ``verify/empirical/<paper id>.py`` and the
trial functions they run in ``simulations/trials/<paper id>.py``; both are
found by discovery (:func:`verify.empirical.discover_checks`).

Examples
--------
>>> from verify.empirical.core import Context, PROFILES
>>> ctx = Context(PROFILES["quick"], executor="serial")
>>> ctx.profile.confidence
0.95
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import pandas as pd

from bounds.evidence import KINDS as EVIDENCE_KINDS
from bounds.evidence import Result
from simulations.executors import Executor, get_executor
from simulations.runner import TrialFn, run_grid

#: kinds of empirical checks (from the one vocabulary, :mod:`bounds.evidence`)
KINDS = EVIDENCE_KINDS["empirical"]


@dataclass(frozen=True)
class Profile:
    """Sizes of an empirical run.

    Attributes
    ----------
    name : str
    n_trials : int
        Trials (independent samples) per configuration of a risk check.
    n_noise : int
        Noise draws per fitted model (vectorised; the fit is reused).
    m : int
        Sample size of single-m checks.
    m_grid : tuple of int
        Sample sizes of the rate sweeps (log-spaced).
    n_rate_trials : int
        Trials per m in a rate sweep.
    n_search : int
        Candidate replacement points per index in a sensitivity search.
    m_sens : tuple of int
        Sample sizes of the sensitivity searches.
    confidence : float
        Two-sided level of every interval.
    """

    name: str
    n_trials: int
    n_noise: int
    m: int
    m_grid: tuple[int, ...]
    n_rate_trials: int
    n_search: int
    m_sens: tuple[int, ...]
    n_audit: int = 100_000
    confidence: float = 0.95


PROFILES_FILE = Path(__file__).resolve().parents[1] / "profiles.toml"


def load_profiles(path: str | Path = PROFILES_FILE) -> dict[str, Profile]:
    """Read the profiles of a TOML file (``verify/profiles.toml`` by default).

    Raises
    ------
    ValueError
        For a table with missing or unknown fields, naming the profile.
    """
    with open(path, "rb") as fh:
        raw = tomllib.load(fh)
    names = {f.name for f in fields(Profile)} - {"name"}
    out = {}
    for name, table in raw.items():
        if set(table) != names:
            missing, extra = names - set(table), set(table) - names
            raise ValueError(f"profile {name!r} in {path}: missing {sorted(missing)}, unknown {sorted(extra)}")
        vals = {k: tuple(int(x) for x in v) if isinstance(v, list) else v for k, v in table.items()}
        out[name] = Profile(name=name, **vals)
    return out


PROFILES: dict[str, Profile] = load_profiles()


@dataclass
class Context:
    """What a check needs to run: the profile, the seed, an executor and an optional trial cache.

    ``run(trial, configs, n_trials)`` runs trials through :func:`simulations.runner.run_grid`
    with the context's executor, seed and progress setting.
    """

    profile: Profile
    seed: int = 0
    executor: str | Executor = "serial"
    progress: bool | None = None
    cache: str | None = None
    _ex: Executor | None = field(default=None, repr=False)

    def run(self, trial: TrialFn, configs: Sequence[Mapping[str, Any]], n_trials: int,
            desc: str | None = None) -> pd.DataFrame:
        if self._ex is None:
            self._ex = get_executor(self.executor)
        return run_grid(trial, configs, n_trials, seed=self.seed, executor=self._ex,
                        progress=self.progress, desc=desc, cache=self.cache)

    def artefact(self, trial: TrialFn, config: Mapping[str, Any], name: str, desc: str | None = None) -> Any:
        """The artefact ``name`` of one trial of ``config`` (a worst pair, say), through the cached engine.

        Raises
        ------
        RuntimeError
            When the trial was rejected (its certificate failed).
        """
        df = self.run(trial, [config], 1, desc=desc)
        row = df.iloc[0]
        if int(row["rejected"]):
            raise RuntimeError(f"trial {trial.__qualname__} was rejected: {row.get('reject_reason', '')}")
        return row[name]

    def close(self) -> None:
        if self._ex is not None and not isinstance(self.executor, Executor):
            self._ex.close()
        self._ex = None

    def with_profile(self, **changes: Any) -> Context:
        """A copy with some profile sizes changed (used by tests)."""
        return Context(replace(self.profile, **changes), self.seed, self.executor, self.progress, self.cache)


_SHARED: dict[tuple, Any] = {}


def shared_run(ctx: Context, name: str, fn: Callable[[], Any]) -> Any:
    """``fn()`` computed once per (profile, seed, executor kind, name) in this process.

    Several checks of one paper often read the same simulation (the sensitivity search behind
    both a K-norm and a sup-norm bound, say); they share it through this memo.
    """
    ex = ctx.executor if isinstance(ctx.executor, str) else type(ctx.executor).__name__
    key = (ctx.profile, ctx.seed, ex, name)
    if key not in _SHARED:
        _SHARED[key] = fn()
    return _SHARED[key]


def clear_shared_runs() -> None:
    """Forget the shared runs (tests use it to force a rerun)."""
    _SHARED.clear()


CheckFn = Callable[[Context], list[Result]]


@dataclass(frozen=True)
class CheckSpec:
    """A registered empirical check or audit: the statement it tests, its kind, the function."""

    key: str
    kind: str
    fn: CheckFn
    slow: bool = False
    evidence: str = "empirical"

    @property
    def name(self) -> str:
        """``key:kind`` (the name ``--only`` matches)."""
        return f"{self.key}:{self.kind}"

    @property
    def module(self) -> str:
        return self.fn.__module__

    @property
    def paper(self) -> str:
        return self.key.split(".", 1)[0]

    @property
    def where(self) -> str:
        """``file:line`` of the function, relative to the project root."""
        import inspect

        from bounds.paper import relpath

        fn = inspect.unwrap(self.fn)
        return f"{relpath(fn.__code__.co_filename)}:{fn.__code__.co_firstlineno}"


def _mark(spec: CheckSpec) -> Callable[[CheckFn], CheckFn]:
    def deco(fn: CheckFn) -> CheckFn:
        specs = list(getattr(fn, "__dp_checks__", ()))
        specs.append(CheckSpec(spec.key, spec.kind, fn, spec.slow, spec.evidence))
        fn.__dp_checks__ = tuple(specs)  # type: ignore[attr-defined]
        return fn

    return deco


def empirical_check(key: str, kind: str, *, slow: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Mark ``fn(ctx) -> list[Result]`` as the ``kind`` check of statement ``key``.

    Nothing is registered globally: :func:`verify.empirical.discover_checks` finds marked
    functions in each paper's module (``verify/empirical/<paper id>.py``).
    """
    if kind not in KINDS:
        raise ValueError(f"parameter 'kind' = {kind!r} is not one of {KINDS}")
    return _mark(CheckSpec(key, kind, lambda ctx: [], slow, "empirical"))


def audit_check(key: str, *, slow: bool = False) -> Callable[[CheckFn], CheckFn]:
    """Mark ``fn(ctx) -> list[Result]`` as a privacy audit of statement ``key`` (kind ``privacy``).

    Audits are selected by ``--only`` like empirical checks, run after them, and cached by
    the code they run (:func:`simulations.cache.code_fingerprint` of their module).
    """
    return _mark(CheckSpec(key, "privacy", lambda ctx: [], slow, "audit"))


def results_frame(results: Sequence[Result]) -> pd.DataFrame:
    """The tidy table of results (one row per result)."""
    return pd.DataFrame([r.as_row() for r in results])
