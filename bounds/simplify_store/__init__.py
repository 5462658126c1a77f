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
  points drawn to satisfy every symbol's assumptions, compared exactly (rational arithmetic), by
  interval arithmetic that bounds both values with outward rounding, or (where the intervals do not
  decide) at 40 significant digits by sympy's evalf, over magnitudes 1e-4 to 1e4 (integers up to 1e3); an outcome with a case split (Piecewise, Min, Max,
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
from mpmath.libmp import libmpf as _mpf
from mpmath.libmp import libmpi as _mpi

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


#: sympy's assumption facts of the candidates, by a signature that determines them all (:func:`_signature`)
_FACTS: dict[tuple, dict[str, bool | None]] = {}


def _signature(value: sp.Expr) -> tuple | None:
    """What determines every assumption fact of a candidate: an integer's value, a non-integer rational's sign,
    a complex a + b·i's signs of a and b (a, b nonzero rationals); None for anything else.  sympy derives the
    facts of a new number slowly (≈ 0.2 ms a rational, 0.8 ms a complex number) and the same for every number
    of one signature."""
    if value.is_Rational:
        return ("i", int(value.p)) if value.q == 1 else ("q", bool(value.p > 0))
    if value.is_Add and len(value.args) == 2:
        a, rest = value.as_coeff_Add()
        b, unit = rest.as_coeff_Mul()
        if unit is sp.I and a.is_Rational and b.is_Rational and a != 0 and b != 0:
            return ("c", bool(a > 0), bool(b > 0))
    return None


def _fits(value: sp.Expr, sym: sp.Symbol) -> bool:
    """Whether ``value`` has every property the symbol assumes (positive, integer, real, ...): sympy's facts of
    the first candidate of the same :func:`_signature` (computed once each), else of ``value`` itself."""
    sig = _signature(value)
    facts = _FACTS.setdefault(sig, {}) if sig is not None else None
    for k, want in sym.assumptions0.items():
        if facts is None:
            have = getattr(value, f"is_{k}", None)
        else:
            have = facts.get(k, _FACTS)
            if have is _FACTS:
                have = facts[k] = getattr(value, f"is_{k}", None)
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
    rational functions the comparison is exact (rational arithmetic), else both are bounded by intervals
    (:func:`_iv_agree`: mpmath's interval arithmetic at :data:`IV_PREC` bits, outward rounding; a point is
    decided only when the agreement or disagreement holds for every value in the two intervals) and,
    where the intervals do not decide (a complex value, a pole, a function they do not know, a wide
    interval), sympy's ``evalf`` evaluates both at the rational point to :data:`DIGITS` digits (raising
    its working precision where terms cancel); they must agree to :data:`RTOL` relative (:data:`TINY`
    absolute).
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
    else:
        try:
            return _iv_agree(expr, outcome, pt)    # decided by interval arithmetic, or ...
        except _Open:
            pass                                   # ... by sympy's evalf, as without the intervals
    va, vb = _value(expr, pt), _value(outcome, pt)
    if va is None or vb is None:
        return None
    with mpmath.workdps(2 * DIGITS):
        if not abs(va - vb) <= RTOL * max(abs(va), abs(vb), TINY):
            return False
        return "zero" if abs(va) <= TINY and abs(vb) <= TINY else True


#: working precision (bits) of the interval evaluation (≈ 96 digits, above the 2 × DIGITS of the evalf path)
IV_PREC = 320


class _Open(Exception):
    """The interval evaluation decides nothing here (a function or value it does not handle, a wide interval)."""


_F0, _F1 = _mpf.fzero, _mpf.fone


def _iv_rat(v: sp.Rational) -> tuple:
    p, q = _mpf.from_int(int(v.p)), _mpf.from_int(int(v.q))
    return _mpi.mpi_div((p, p), (q, q), IV_PREC) if v.q != 1 else (p, p)


def _positive(x: tuple) -> bool:
    return _mpf.mpf_sign(x[0]) > 0 and x[1] not in (_mpf.finf, _mpf.fnan)


def _iv_fold(f: Any, parts: list[tuple]) -> tuple:
    out = parts[0]
    for x in parts[1:]:
        out = f(out, x)
    return out


def _iv_min(x: tuple, y: tuple) -> tuple:
    return (_mpi.MIN(x[0], y[0]), _mpi.MIN(x[1], y[1]))


def _iv_max(x: tuple, y: tuple) -> tuple:
    return (_mpi.MAX(x[0], y[0]), _mpi.MAX(x[1], y[1]))


def _iv_cond(c: Any, pt: dict[sp.Symbol, sp.Expr]) -> bool:
    """A condition of a Piecewise decided on intervals (:class:`_Open` when an interval straddles its boundary)."""
    if c is sp.true or c is sp.false:
        return bool(c)
    if isinstance(c, (sp.And, sp.Or)):
        vals = [_iv_cond(a, pt) for a in c.args]
        return all(vals) if isinstance(c, sp.And) else any(vals)
    if isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan, sp.StrictLessThan, sp.LessThan)):
        lo, hi = _mpi.mpi_sub(_iv(c.lhs, pt), _iv(c.rhs, pt), IV_PREC)     # lhs − rhs ∈ [lo, hi]
        slo, shi = _mpf.mpf_sign(lo), _mpf.mpf_sign(hi)
        if isinstance(c, (sp.StrictGreaterThan, sp.GreaterThan)):
            if slo > 0 or (slo == 0 and isinstance(c, sp.GreaterThan)):
                return True
            if shi < 0 or (shi == 0 and isinstance(c, sp.StrictGreaterThan)):
                return False
        else:
            if shi < 0 or (shi == 0 and isinstance(c, sp.LessThan)):
                return True
            if slo > 0 or (slo == 0 and isinstance(c, sp.StrictLessThan)):
                return False
    raise _Open


def _iv(e: sp.Expr, pt: dict[sp.Symbol, sp.Expr]) -> tuple:
    """An interval (mpmath's ``mpi``, outward rounding at :data:`IV_PREC` bits) holding the real value of ``e`` at
    ``pt``; :class:`_Open` where that is not certain to be a real number it can bound (a complex value or point,
    a pole, a logarithm or root of an interval reaching 0 or below, a function it does not know)."""
    if e.is_Symbol:
        v = pt.get(e)
        if v is None or not v.is_Rational:
            raise _Open
        return _iv_rat(v)
    if e.is_Rational:
        return _iv_rat(e)
    if e is sp.pi:
        return _mpi.mpi_pi(IV_PREC)
    if e is sp.E:
        return _mpi.mpi_exp((_F1, _F1), IV_PREC)
    if e.is_Add:
        return _iv_fold(lambda x, y: _mpi.mpi_add(x, y, IV_PREC), [_iv(a, pt) for a in e.args])
    if e.is_Mul:
        return _iv_fold(lambda x, y: _mpi.mpi_mul(x, y, IV_PREC), [_iv(a, pt) for a in e.args])
    if e.is_Pow:
        base, ex = e.args
        b = _iv(base, pt)
        if ex.is_Integer:
            n = int(ex)
            if n < 0 and not (_positive(b) or _mpf.mpf_sign(b[1]) < 0):
                raise _Open                                        # a pole in the interval
            return _mpi.mpi_pow_int(b, n, IV_PREC)
        if not _positive(b):
            raise _Open                                            # a root of a negative number is complex
        if ex == sp.S.Half:
            return _mpi.mpi_sqrt(b, IV_PREC)
        x = _iv(ex, pt)
        return _mpi.mpi_exp(_mpi.mpi_mul(_mpi.mpi_log(b, IV_PREC + 20), x, IV_PREC + 20), IV_PREC)
    if isinstance(e, sp.exp):
        return _mpi.mpi_exp(_iv(e.args[0], pt), IV_PREC)
    if isinstance(e, sp.log) and len(e.args) == 1:
        b = _iv(e.args[0], pt)
        if not _positive(b):
            raise _Open
        return _mpi.mpi_log(b, IV_PREC)
    if isinstance(e, (sp.gamma, sp.factorial)):
        b = _iv(e.args[0] + 1 if isinstance(e, sp.factorial) else e.args[0], pt)
        if not _positive(b):
            raise _Open
        return _mpi.mpi_gamma(b, IV_PREC)
    if isinstance(e, (sp.Min, sp.Max)):
        return _iv_fold(_iv_min if isinstance(e, sp.Min) else _iv_max, [_iv(a, pt) for a in e.args])
    if isinstance(e, sp.Abs):
        return _mpi.mpi_abs(_iv(e.args[0], pt), IV_PREC)
    if isinstance(e, sp.Piecewise):
        for piece, cond in e.args:
            if _iv_cond(cond, pt):
                return _iv(piece, pt)
    raise _Open


def _iv_agree(expr: sp.Expr, outcome: sp.Expr, pt: dict[sp.Symbol, sp.Expr]) -> bool | str:
    """:func:`_agree` decided by interval arithmetic, for every value in both intervals (:class:`_Open` when the
    intervals do not decide: then sympy's evalf does, as before).

    Agreement needs sup |a − b| ≤ RTOL·max(inf |a|, inf |b|, TINY) and disagreement inf |a − b| > RTOL·max(sup |a|,
    sup |b|, TINY); "zero" needs sup |a|, sup |b| ≤ TINY and a nonzero agreement inf |a| or inf |b| > TINY.
    """
    a, b = _iv(expr, pt), _iv(outcome, pt)
    mk = mpmath.mp.make_mpf
    with mpmath.workdps(2 * DIGITS):
        (a0, a1), (b0, b1) = [(mk(x[0]), mk(x[1])) for x in (a, b)]
        if not all(mpmath.isfinite(x) for x in (a0, a1, b0, b1)):
            raise _Open
        diff_sup = max(abs(b1 - a0), abs(a1 - b0))
        diff_inf = max(mpmath.mpf(0), a0 - b1, b0 - a1)
        inf_a = mpmath.mpf(0) if a0 <= 0 <= a1 else min(abs(a0), abs(a1))
        inf_b = mpmath.mpf(0) if b0 <= 0 <= b1 else min(abs(b0), abs(b1))
        sup_a, sup_b = max(abs(a0), abs(a1)), max(abs(b0), abs(b1))
        if diff_inf > RTOL * max(sup_a, sup_b, TINY):
            return False
        if diff_sup <= RTOL * max(inf_a, inf_b, TINY):
            if sup_a <= TINY and sup_b <= TINY:
                return "zero"
            if inf_a > TINY or inf_b > TINY:
                return True
    raise _Open


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
