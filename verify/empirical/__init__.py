"""Empirical checks and privacy audits of the papers' claims, one module per paper.

A paper's checks live in ``verify/empirical/<paper id>.py``: functions marked with
:func:`~verify.empirical.core.empirical_check` or :func:`~verify.empirical.core.audit_check`.
:func:`discover_checks` finds them for every paper that :mod:`bounds` discovers; no
list of papers or modules is kept anywhere.  :func:`run_checks` runs a selection and
returns :class:`~bounds.evidence.Result` rows; audits are cached by the code they run.

Examples
--------
>>> from verify.empirical import discover_checks, select
>>> reg = discover_checks()
>>> all(s.evidence in ("empirical", "audit") for s in reg)
True
>>> key = next(s.key for s in reg if s.evidence == "audit")
>>> all(s.key == key for s in select(key, registry=reg))
True
"""

from __future__ import annotations

import fnmatch
import importlib
import importlib.util
from collections.abc import Iterable, Iterator, Sequence

from bounds.evidence import Result

from ..stats import grade
from .core import PROFILES, CheckSpec, Context, Profile, audit_check, empirical_check

__all__ = ["PROFILES", "CheckRegistry", "CheckSpec", "Context", "Profile", "audit_check", "discover_checks",
           "empirical_check", "paper_module", "run_checks", "select"]

PACKAGE = __name__


def paper_module(paper_id: str, package: str = PACKAGE):
    """The module ``<package>.<paper id>`` if it exists, else None."""
    name = f"{package}.{paper_id}"
    if importlib.util.find_spec(name) is None:
        return None
    return importlib.import_module(name)


class CheckRegistry:
    """The checks and audits of some papers, in paper order then source order."""

    def __init__(self, specs: Iterable[CheckSpec] = ()) -> None:
        self.specs: list[CheckSpec] = []
        seen: set[tuple[str, str, str]] = set()
        for s in specs:
            ident = (s.name, s.fn.__module__, s.fn.__qualname__)
            if ident in seen:
                raise ValueError(f"check {s.name} ({s.where}) is registered twice")
            seen.add(ident)
            self.specs.append(s)

    @classmethod
    def from_modules(cls, modules: Iterable) -> CheckRegistry:
        specs: list[CheckSpec] = []
        for mod in modules:
            found = []
            for obj in vars(mod).values():
                if callable(obj) and getattr(obj, "__module__", None) == mod.__name__:
                    found.extend(getattr(obj, "__dp_checks__", ()))
            found.sort(key=lambda s: s.fn.__code__.co_firstlineno)
            specs.extend(found)
        return cls(specs)

    def __iter__(self) -> Iterator[CheckSpec]:
        return iter(self.specs)

    def __len__(self) -> int:
        return len(self.specs)

    def for_key(self, key: str) -> list[CheckSpec]:
        return [s for s in self.specs if s.key == key]


def discover_checks(paper_ids: Iterable[str] | None = None, package: str = PACKAGE) -> CheckRegistry:
    """The checks of every discovered paper (or of ``paper_ids``) found in ``package``."""
    if paper_ids is None:
        import bounds

        paper_ids = list(bounds.registry.papers)
    mods = [m for m in (paper_module(p, package) for p in paper_ids) if m is not None]
    return CheckRegistry.from_modules(mods)


def load_checks() -> CheckRegistry:
    """The registry of every discovered paper's checks (alias of :func:`discover_checks`)."""
    return discover_checks()


def select(only: str | None = None, include_slow: bool = True,
           registry: CheckRegistry | None = None) -> list[CheckSpec]:
    """Checks and audits whose key or ``key:kind`` matches a glob pattern, or contains ``only``."""
    specs = list(registry if registry is not None else discover_checks())
    if only:
        specs = [s for s in specs if fnmatch.fnmatchcase(s.key, only) or only in s.name
                 or fnmatch.fnmatchcase(s.name, only)]
    if not include_slow:
        specs = [s for s in specs if not s.slow]
    return specs


def _checked(spec: CheckSpec, out: object) -> list[Result]:
    if not isinstance(out, list) or not all(isinstance(r, Result) for r in out):
        raise TypeError(f"check {spec.name} ({spec.where}) must return a list of bounds.evidence.Result")
    for r in out:
        if r.evidence != spec.evidence:
            raise TypeError(f"check {spec.name} ({spec.where}) returned {r.evidence} evidence, "
                            f"registered as {spec.evidence}")
        grade(r)
        _place(r)
    return out


def _place(r: Result) -> None:
    """Tag an empirical or audit row inside or outside its paper's declared regime, from the numeric
    parameters in its ``details`` (top level and ``problem``); a regime set by the check itself wins."""
    if r.regime:
        return
    import bounds

    try:
        ns = bounds.registry.get(r.key).ns
    except (KeyError, ValueError):
        return
    reg = getattr(ns, "regime", None)
    if reg is None or not reg.ranges:
        return
    values = dict(r.details.get("problem") or {}) if isinstance(r.details.get("problem"), dict) else {}
    values.update({k: v for k, v in r.details.items() if k != "problem"})
    r.regime = reg.place(values, ns)


def audit_cache_key(spec: CheckSpec, ctx: Context) -> str:
    """The cache key of an audit: its function, the code it runs, the profile and the seed."""
    import hashlib
    import json

    from simulations.cache import code_fingerprint

    blob = json.dumps({"fn": f"{spec.fn.__module__}.{spec.fn.__qualname__}", "key": spec.key,
                       "code": code_fingerprint(spec.fn.__module__), "profile": repr(ctx.profile),
                       "seed": ctx.seed}, sort_keys=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def run_spec(ctx: Context, spec: CheckSpec) -> list[Result]:
    """Run one check or audit; an audit's rows are reused from the context's cache when present."""
    if spec.evidence == "audit" and ctx.cache is not None:
        from simulations.cache import TrialCache

        tc = TrialCache(ctx.cache)
        k = audit_cache_key(spec, ctx)
        hit = tc.get(k)
        if hit is not None:
            return _checked(spec, hit)
        rows = _checked(spec, spec.fn(ctx))
        tc.put(k, rows)
        return rows
    return _checked(spec, spec.fn(ctx))


def run_checks(ctx: Context, only: str | None = None,
               specs: Sequence[CheckSpec] | None = None) -> list[Result]:
    """Run the selected checks and audits in registry order."""
    out: list[Result] = []
    try:
        for spec in (specs if specs is not None else select(only)):
            out.extend(run_spec(ctx, spec))
    finally:
        ctx.close()
    return out
