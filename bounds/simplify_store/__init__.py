"""The seeded store of the outcomes of :func:`bounds.checks.small_simplify` and :func:`bounds.checks.simplified`.

A fresh clone has no outcomes on disk (``<snapshot root>/simplify``), and sympy's ``simplify`` is
about half of a cold symbolic evaluation's CPU.  This package ships, in ``data.json.gz``, the
outcomes a full symbolic run computed:

* **keyed** like the disk outcomes, by :func:`bounds.checks.simplify_key` (SHA-256 of sympy's
  version, the operation budget and ``srepr`` of the input) or :func:`bounds.checks.simplified_key`
  (sympy's version, ``simplify`` and ``srepr``; no budget); the file also records the sympy
  version and budget it was made with, and a file of another version or budget is not read at all;
* **verified on read** (:func:`verified`): a stored outcome is used only when it parses back into
  an expression whose free symbols are among the input's and which equals the input at several
  points drawn to satisfy every symbol's assumptions, compared exactly (rational arithmetic) or at
  40 significant digits, over magnitudes 1e-4 to 1e4 (integers up to 1e3); an outcome with a case split (Piecewise, Min, Max,
  Abs, …) its input lacks is refused, and so is any outcome but the literal 0 for an input that is 0 at
  every point.  An entry that fails (edited, foreign, or a bug) is ignored, counted
  (:func:`rejected`) and the outcome is computed as without the store;
* **regenerable by one command**: ``python -m bounds.simplify_store`` derives every statement of
  every discovered paper into an empty snapshot with the store switched off and writes the file
  from the outcomes that run kept (:mod:`bounds.simplify_store.__main__`).

Only outcomes that are expressions are stored: the undecided outcome (None) is decided by the
operation count alone, which costs less than reading it.  ``$DP_ERM_VERIFY_SIMPLIFY_SEED=off``
switches the store off (the regeneration does).

This module imports nothing of the project (``bounds.checks`` imports it).

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x", positive=True)
>>> verified(x / (2 * x), sp.Rational(1, 2), "k"), verified(x / (2 * x), sp.Rational(1, 3), "k")
(True, False)
>>> verified(sp.sqrt(x ** 2), x, "k"), verified(sp.sqrt(sp.Symbol("y", real=True) ** 2), sp.Symbol("y", real=True), "k")
(True, False)
"""

from __future__ import annotations

import gzip
import json
import math
import os
import zlib
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import sympy as sp

#: the data file (gzipped JSON): ``{"format", "sympy", "budget", "entries": {key: [srepr of the input,
#: srepr of the outcome]}}`` (the input is for the tests and the reader of the file; a lookup never uses it)
DATA = Path(__file__).resolve().parent / "data.json.gz"
#: the format tag of :data:`DATA`
FORMAT = "dp-erm-verify simplify seed v1"
#: the environment variable that switches the store off (``off``, ``0``, ``none`` or empty)
ENV = "DP_ERM_VERIFY_SIMPLIFY_SEED"
#: the environment variable naming a directory where every computed outcome is recorded (the regeneration)
RECORD_ENV = "DP_ERM_VERIFY_SIMPLIFY_RECORD"
#: points at which a stored outcome must equal its input (each satisfying every symbol's assumptions)
N_POINTS = 4
#: function classes that split cases: an outcome holding one its input lacks is never used (points cannot show
#: that a case split is right everywhere)
BRANCHING = (sp.Piecewise, sp.Min, sp.Max, sp.Abs, sp.sign, sp.Heaviside, sp.floor, sp.ceiling)
#: significant digits of the comparison where exact rational arithmetic does not decide
DIGITS = 40
#: relative agreement required at :data:`DIGITS` digits
RTOL = mpmath.mpf("1e-25")
#: the magnitude below which two values count as zero (both sides within it agree)
TINY = mpmath.mpf("1e-30")

_LOADED: dict[tuple[str, int, Path], dict[str, str]] = {}
_REJECTED: list[tuple[str, str]] = []
_USED: list[str] = []


def enabled() -> bool:
    """Whether the store is consulted (``$DP_ERM_VERIFY_SIMPLIFY_SEED`` not set to off)."""
    env = os.environ.get(ENV)
    return env is None or env.strip().lower() not in ("", "off", "0", "none", "false")


def rejected() -> list[tuple[str, str]]:
    """``(key, reason)`` of every stored entry this process found but did not use (a copy)."""
    return list(_REJECTED)


def used() -> list[str]:
    """Keys of the stored entries this process used (a copy)."""
    return list(_USED)


def load(version: str, budget: int, path: Path | None = None) -> dict[str, list[str]]:
    """The entries of the data file made with sympy ``version`` and operation budget ``budget``.

    A missing or unreadable file, or one of another format, version or budget, gives no entries.
    """
    path = Path(path or DATA)
    memo = (version, budget, path)
    if memo in _LOADED:
        return _LOADED[memo]
    entries: dict[str, list[str]] = {}
    try:
        with gzip.open(path, "rt", encoding="utf-8") as fh:
            doc = json.load(fh)
        if (isinstance(doc, dict) and doc.get("format") == FORMAT and doc.get("sympy") == version
                and doc.get("budget") == budget and isinstance(doc.get("entries"), dict)):
            entries = {k: v for k, v in doc["entries"].items()
                       if isinstance(k, str) and isinstance(v, list) and len(v) == 2
                       and all(isinstance(x, str) for x in v)}
    except (OSError, ValueError, EOFError, zlib.error):
        entries = {}
    _LOADED[memo] = entries
    return entries


def write(entries: dict[str, list[str]], version: str, budget: int, path: Path | None = None) -> Path:
    """Write the data file reproducibly (sorted keys, no time stamp in the gzip header)."""
    path = Path(path or DATA)
    doc = {"format": FORMAT, "sympy": version, "budget": budget, "entries": dict(sorted(entries.items()))}
    raw = json.dumps(doc, indent=0, sort_keys=True, ensure_ascii=True).encode()
    path.write_bytes(gzip.compress(raw, compresslevel=9, mtime=0))
    _LOADED.clear()
    return path


def _namespace() -> dict[str, Any]:
    ns: dict[str, Any] = {}
    exec("from sympy import *", ns)     # noqa: S102 - the names srepr writes, and nothing else
    from sympy.functions.elementary.piecewise import ExprCondPair

    ns["ExprCondPair"] = ExprCondPair   # srepr of a Piecewise writes its pairs (not exported by sympy)
    ns["__builtins__"] = {}
    return ns


_NS: list[dict[str, Any]] = []


def parse(text: str) -> sp.Expr | None:
    """The expression ``srepr`` wrote as ``text`` (None when it does not parse into a sympy expression)."""
    if not _NS:
        _NS.append(_namespace())
    try:
        out = eval(text, dict(_NS[0]))   # noqa: S307 - srepr text of a packaged file, sympy names only
    except Exception:  # noqa: BLE001 - an unknown function class, a damaged entry
        return None
    return out if isinstance(out, sp.Basic) else None


def round_trips(expr: sp.Expr) -> bool:
    """Whether ``expr`` can be stored: ``srepr`` parses back to an equal expression."""
    return parse(sp.srepr(expr)) == expr


def _magnitude(rng: np.random.Generator) -> sp.Rational:
    """A positive rational with three significant digits, log-uniform over [1e-4, 1e4] (wide: an outcome that
    agrees with its input only on moderate values, e.g. 0 for Max(0, x − 5000), must fail)."""
    v = 10.0 ** rng.uniform(-4.0, 4.0)
    k = 2 - math.floor(math.log10(v))
    num = max(1, round(v * 10.0 ** k))
    return sp.Rational(num, 10 ** k) if k >= 0 else sp.Integer(num * 10 ** -k)


def _candidate(rng: np.random.Generator) -> sp.Expr:
    """A value for a symbol: an integer, a positive or negative rational, or a complex one."""
    kind = rng.integers(6)
    if kind == 0:
        return sp.Integer(int(rng.integers(1, 40)))
    if kind == 1:
        return sp.Integer(int(rng.integers(-40, 1)))
    if kind == 2:
        return sp.Integer(int(10.0 ** rng.uniform(0.0, 3.0)))
    if kind == 3:
        return _magnitude(rng)
    if kind == 4:
        return -_magnitude(rng)
    return _magnitude(rng) * (1 if rng.integers(2) else -1) + sp.I * _magnitude(rng) * (1 if rng.integers(2) else -1)


def _fits(value: sp.Expr, sym: sp.Symbol) -> bool:
    """Whether ``value`` has every property the symbol assumes (positive, integer, real, ...)."""
    for k, want in sym.assumptions0.items():
        have = getattr(value, f"is_{k}", None)
        if have is not None and have != want:
            return False
    return True


def _point(symbols: list[sp.Symbol], rng: np.random.Generator) -> dict[sp.Symbol, sp.Expr] | None:
    pt = {}
    for s in symbols:
        for _ in range(200):
            v = _candidate(rng)
            if _fits(v, s):
                pt[s] = v
                break
        else:
            return None
    return pt


def _value(e: sp.Expr, pt: dict[sp.Symbol, sp.Expr]) -> Any:
    """``e`` at ``pt`` as an mpmath number of :data:`DIGITS` digits (None where undefined or not a number)."""
    try:
        v = e.evalf(DIGITS, subs=pt, maxn=4 * DIGITS)
        if isinstance(v, sp.Piecewise) or not v.is_number:
            v = e.xreplace(pt).evalf(DIGITS, maxn=4 * DIGITS)
        if v.has(sp.nan, sp.zoo, sp.oo, -sp.oo):
            return None
        return _mp(v)
    except Exception:  # noqa: BLE001 - a pole, a branch sympy cannot evaluate
        return None


def _mp(v: sp.Expr) -> Any:
    re_, im_ = v.as_real_imag()
    if not (re_.is_Number and im_.is_Number):
        raise ValueError("not a number")
    with mpmath.workdps(2 * DIGITS):
        return mpmath.mpc(mpmath.mpf(sp.Float(re_, 2 * DIGITS)._mpf_), mpmath.mpf(sp.Float(im_, 2 * DIGITS)._mpf_))


def verified(expr: sp.Expr, outcome: sp.Expr, key: str) -> bool:
    """Whether ``outcome`` equals ``expr``: the same value at :data:`N_POINTS` points of the symbols' domains.

    The points are rationals (complex ones for symbols assumed nothing), drawn from a Generator
    seeded by ``key``, each satisfying every assumption of every symbol.  When both sides are
    rational functions the comparison is exact (rational arithmetic), else sympy's ``evalf``
    evaluates both at the rational point to :data:`DIGITS` digits (raising its working precision
    where terms cancel) and they must agree to :data:`RTOL` relative (:data:`TINY` absolute).
    A point where either side is undefined does not count; fewer than :data:`N_POINTS` decided
    points out of 40 tries is a failure, and so is any disagreement or an outcome with a free symbol
    the input lacks.
    """
    if outcome == expr:
        return True
    free = expr.free_symbols
    if not outcome.free_symbols <= free or outcome.has(sp.nan, sp.zoo):
        return False
    if any(outcome.has(c) and not expr.has(c) for c in BRANCHING):
        return False        # a case split the input lacks: right on the points drawn, perhaps wrong elsewhere
    syms = sorted(free, key=sp.default_sort_key)
    rng = np.random.default_rng(np.random.SeedSequence(zlib.crc32(key.encode())))
    # exact rational arithmetic only for rational functions: elsewhere a power such as
    # (2/δ)^(t^(1/2-θ)(t+t₀)^θ) would be expanded into a huge exact number, so sympy's evalf
    # evaluates the rational point to DIGITS digits (raising its working precision where terms cancel)
    exact = all(x.is_rational_function(*syms) for x in (expr, outcome)) if syms else True
    decided, zero = 0, True
    for _ in range(10 * N_POINTS):
        pt = _point(syms, rng)
        if pt is None:
            return False
        agree = _agree(expr, outcome, pt, exact)
        if agree is False:
            return False
        if agree is not None:
            decided += 1
            zero = zero and agree == "zero"
        if decided >= N_POINTS:
            # an input that is 0 at every point must have the literal 0 as its outcome: another form of 0
            # would pass the points but not a caller's `== 0` (sympy itself is then asked)
            return not zero or outcome == 0
    return False


def _agree(expr: sp.Expr, outcome: sp.Expr, pt: dict[sp.Symbol, sp.Expr], exact: bool) -> bool | str | None:
    """Whether the two sides agree at ``pt`` (None: undefined there, the point decides nothing; "zero": they
    agree and both are 0 there)."""
    if exact:
        try:
            a, b = expr.xreplace(pt), outcome.xreplace(pt)
        except Exception:  # noqa: BLE001 - a pole
            return None
        if a.is_Rational and b.is_Rational:
            return ("zero" if a == 0 else True) if a == b else False
        expr, outcome, pt = a, b, {}               # numbers such as E: compared to DIGITS digits
    va, vb = _value(expr, pt), _value(outcome, pt)
    if va is None or vb is None:
        return None
    with mpmath.workdps(2 * DIGITS):
        if not abs(va - vb) <= RTOL * max(abs(va), abs(vb), TINY):
            return False
        return "zero" if abs(va) <= TINY and abs(vb) <= TINY else True


def record(key: str, expr: Any, outcome: Any) -> None:
    """Write ``[srepr(expr), srepr(outcome)]`` to ``$DP_ERM_VERIFY_SIMPLIFY_RECORD/<key>.json`` (the regeneration).

    Nothing happens when the variable is unset, or when either side is not an expression
    (a relational, a boolean, a matrix) or does not survive ``srepr`` and back.
    """
    where = os.environ.get(RECORD_ENV)
    if not where or not (isinstance(expr, sp.Expr) and isinstance(outcome, sp.Expr)):
        return
    if not (round_trips(expr) and round_trips(outcome)):
        return
    out = Path(where)
    out.mkdir(parents=True, exist_ok=True)
    (out / f"{key}.json").write_text(json.dumps([sp.srepr(expr), sp.srepr(outcome)]), encoding="utf-8")


def lookup(key: str, expr: sp.Expr, version: str, budget: int) -> sp.Expr | None:
    """The stored outcome of ``key`` for ``expr`` when the store has one that passes :func:`verified`, else None.

    None also when the store is off (:func:`enabled`).  An entry found but not used is counted
    (:func:`rejected`).
    """
    if not enabled():
        return None
    entry = load(version, budget).get(key)
    if entry is None:
        return None
    out = parse(entry[1])
    if out is None:
        _REJECTED.append((key, "does not parse"))
        return None
    if not verified(expr, out, key):
        _REJECTED.append((key, "not equal to the input"))
        return None
    _USED.append(key)
    return out
