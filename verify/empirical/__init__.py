"""Empirical checks of the seed papers' bounds, one module per paper.

=============  ===========================================================
module         checks
=============  ===========================================================
``jia``        seed 000 (Nie & Wang, JIA 2017): Theorems 1–2, Propositions
               2–4, Theorem 4, §5.1, §5.2
``jamp``       seed 001 (Nie & Wang, JAMP 2017): Lemma 2, Propositions 2–4,
               Theorems 2–3
``ttz``        seed 002 (Talwar, Thakurta & Zhang): private Frank–Wolfe on LASSO
               (risk, rate in n), mirror descent and the constraint-set geometry,
               Gaussian widths, Table 1
``jcc``        seed 003 (online kernel regression, JCC 2017): Theorem 1 /
               equations (16)–(17), Theorem 2
``pr``         seed 004 (Pathak & Raj 2010): Lemmas 1, 2, 4, Theorems 5.2–5.3,
               real data (iris)
=============  ===========================================================

:func:`run_checks` runs every registered check (or those whose key matches a
pattern) and returns their :class:`~verify.empirical.core.EmpiricalResult`.
"""

from __future__ import annotations

import fnmatch
import importlib
from collections.abc import Sequence

from .core import CHECKS, PROFILES, CheckSpec, Context, EmpiricalResult, Profile, empirical_check

PAPER_MODULES = ("jia", "jamp", "ttz", "jcc", "pr")

__all__ = ["CHECKS", "PROFILES", "Context", "EmpiricalResult", "Profile", "empirical_check",
           "load_checks", "run_checks", "select"]


def load_checks() -> dict[str, CheckSpec]:
    """Import the per-paper modules (registering their checks); returns the registry."""
    for name in PAPER_MODULES:
        importlib.import_module(f"{__name__}.{name}")
    return CHECKS


def select(only: str | None = None, include_slow: bool = True) -> list[CheckSpec]:
    """Registered checks whose statement key (or ``key:kind``) matches a glob pattern or substring."""
    specs = list(load_checks().values())
    if only:
        specs = [s for s in specs if fnmatch.fnmatchcase(s.key, only) or only in f"{s.key}:{s.kind}"
                 or fnmatch.fnmatchcase(f"{s.key}:{s.kind}", only)]
    if not include_slow:
        specs = [s for s in specs if not s.slow]
    return specs


def run_checks(ctx: Context, only: str | None = None,
               specs: Sequence[CheckSpec] | None = None) -> list[EmpiricalResult]:
    """Run the selected checks in registry order."""
    out: list[EmpiricalResult] = []
    try:
        for spec in (specs if specs is not None else select(only)):
            out.extend(spec.fn(ctx))
    finally:
        ctx.close()
    return out
