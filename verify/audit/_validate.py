"""Input checks shared by the auditor's modules (core, pooled, tradeoff): a leaf module, so that
modules which ``core`` imports can use them too.  Each raises a ValueError naming the parameter.

Examples
--------
>>> from verify.audit._validate import check_count, check_probability
>>> check_count("n", 1e5), check_probability("delta", 0.0, lo_open=False, hi_open=True)
(100000, 0.0)
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np


def check_probability(name: str, value: Any, *, lo_open: bool, hi_open: bool, lo: float = 0.0,
                      hi: float = 1.0) -> float:
    """``value`` as a float in the interval (lo, hi) with the given open ends, else ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"parameter {name!r} = {value!r} must be a real number")
    v = float(value)
    ok = math.isfinite(v) and (lo < v if lo_open else lo <= v) and (v < hi if hi_open else v <= hi)
    if not ok:
        interval = f"{'(' if lo_open else '['}{lo:g}, {hi:g}{')' if hi_open else ']'}"
        raise ValueError(f"parameter {name!r} = {value!r} must lie in {interval}")
    return v


def check_count(name: str, value: Any, minimum: int = 1) -> int:
    """``value`` as an int ≥ ``minimum`` (integral floats such as 1e5 accepted), else ValueError."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"parameter {name!r} = {value!r} must be an integer ≥ {minimum}")
    v = float(value)
    if not math.isfinite(v) or v != int(v) or int(v) < minimum:
        raise ValueError(f"parameter {name!r} = {value!r} must be an integer ≥ {minimum}")
    return int(v)


def check_seed(seed: Any) -> np.random.SeedSequence:
    """A SeedSequence from an int ≥ 0 or a SeedSequence (never from global state).

    A SeedSequence is copied (its entropy, spawn key, pool size and the count of children it has
    spawned), never returned itself: the callers spawn from what they get, and spawning from the
    caller's object would change it, so that the same object passed twice would give two different
    audits.  The copy keeps the count, so the audit's children never coincide with children the
    caller spawned before.

    Examples
    --------
    >>> ss = np.random.SeedSequence(7)
    >>> a = check_seed(ss).spawn(1)[0].generate_state(1)
    >>> b = check_seed(ss).spawn(1)[0].generate_state(1)
    >>> bool((a == b).all()), ss.n_children_spawned
    (True, 0)
    """
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key, pool_size=seed.pool_size,
                                      n_children_spawned=seed.n_children_spawned)
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or int(seed) < 0:
        raise ValueError(f"parameter 'seed' = {seed!r} must be an integer ≥ 0 or a numpy SeedSequence")
    return np.random.SeedSequence(int(seed))
