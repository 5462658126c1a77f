"""The seeded store of :func:`bounds.checks.small_simplify`'s outcomes, shipped with the package.

A fresh clone has no outcomes on disk (``<snapshot root>/simplify``), and sympy's ``simplify`` is
about half of a cold symbolic evaluation's CPU.  This package ships, in ``data.json.gz``, the
outcomes a full symbolic run computed:

* **pinned**: the SHA-256 of ``data.json.gz`` is written, with the data, into the generated module
  :mod:`bounds.simplify_store._digest`; a file whose digest differs (edited, corrupted) is not read
  at all: a one-line RuntimeWarning says so and :func:`rejected` counts it (key ``"<file>"``);
* **keyed** like the disk outcomes, by :func:`bounds.checks.simplify_key` (SHA-256 of sympy's
  version, the operation budget and ``srepr`` of the input); the file also records the sympy
  version and budget it was made with, and a file of another version or budget is not read at all;
* **verified on read** (:func:`verified`): a stored outcome is used only when it parses back into
  an expression whose free symbols are among the input's and which equals the input at several
  points drawn to satisfy every symbol's assumptions, over a wide range of magnitudes (1e-8 to 1e8,
  stratified on a log scale, both signs where allowed), compared exactly (rational arithmetic) or
  to a relative tolerance at 40 significant digits (zero against nonzero is a disagreement).  An entry that fails (edited, foreign, or a bug) is ignored, counted
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
import hashlib
import json
import math
import os
import warnings
import zlib
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from . import _digest

#: the data file (gzipped JSON): ``{"format", "sympy", "budget", "entries": {key: [srepr of the input,
#: srepr of the outcome]}}`` (the input is for the tests and the reader of the file; a lookup never uses it)
DATA = Path(__file__).resolve().parent / "data.json.gz"
#: the generated module that pins the SHA-256 of the packaged :data:`DATA` (rewritten by :func:`write`)
DIGEST_MODULE = Path(__file__).resolve().parent / "_digest.py"
_PACKAGED = DATA
#: the format tag of :data:`DATA`
FORMAT = "dp-erm-verify simplify seed v1"
#: the environment variable that switches the store off (``off``, ``0``, ``none`` or empty)
ENV = "DP_ERM_VERIFY_SIMPLIFY_SEED"
#: points at which a stored outcome must equal its input (each satisfying every symbol's assumptions)
N_POINTS = 8
#: decimal exponents of the magnitudes drawn for a symbol (log-uniform, stratified over the points)
LOG10_RANGE = (-8.0, 8.0)
#: decimal exponents of the magnitudes drawn for an integer symbol
LOG10_INT_RANGE = (0.0, 5.0)
#: significant digits of the comparison where exact rational arithmetic does not decide
DIGITS = 40
#: a value evalf gives with fewer certified bits than this is taken as zero (cancellation to zero)
MIN_BITS = 53
#: relative agreement required at :data:`DIGITS` digits (relative only: zero equals only zero)
RTOL = mpmath.mpf("1e-25")

_LOADED: dict[tuple[str, int, Path], dict[str, str]] = {}
_REJECTED: list[tuple[str, str]] = []
_USED: list[str] = []
#: digests pinned in this process by :func:`write` for files other than the packaged one
_PINNED: dict[Path, str] = {}


def digest(path: Path) -> str:
    """The SHA-256 (hex) of the file at ``path``."""
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def pinned(path: Path | None = None) -> str | None:
    """The SHA-256 the file at ``path`` must have to be read: the generated :mod:`._digest` for the
    packaged file, the digest :func:`write` gave it in this process for another file, else None."""
    path = Path(path or DATA).resolve()
    if path in _PINNED:
        return _PINNED[path]
    return _digest.SHA256 if path == _PACKAGED else None


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

    A missing or unreadable file, one whose SHA-256 is not the :func:`pinned` one (not read at all:
    a one-line RuntimeWarning, counted in :func:`rejected`), or one of another format, version or
    budget gives no entries.
    """
    path = Path(path or DATA)
    memo = (version, budget, path)
    if memo in _LOADED:
        return _LOADED[memo]
    entries: dict[str, list[str]] = {}
    try:
        raw = path.read_bytes()
        want, have = pinned(path), hashlib.sha256(raw).hexdigest()
        if have != want:
            why = (f"{path.name}: SHA-256 {have[:16]} is not the pinned {str(want)[:16]} "
                   f"(edited or corrupted); the seeded store is not read")
            _REJECTED.append(("<file>", why))
            warnings.warn(why, RuntimeWarning, stacklevel=2)
            _LOADED[memo] = entries
            return entries
        doc = json.loads(gzip.decompress(raw).decode("utf-8"))
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
    """Write the data file reproducibly (sorted keys, no time stamp in the gzip header) and pin its SHA-256.

    The packaged file's digest is written into :data:`DIGEST_MODULE` (and :mod:`._digest` updated);
    another file's is pinned in this process only (:func:`pinned`).
    """
    path = Path(path or DATA)
    doc = {"format": FORMAT, "sympy": version, "budget": budget, "entries": dict(sorted(entries.items()))}
    raw = json.dumps(doc, indent=0, sort_keys=True, ensure_ascii=True).encode()
    data = gzip.compress(raw, compresslevel=9, mtime=0)
    path.write_bytes(data)
    sha = hashlib.sha256(data).hexdigest()
    if path.resolve() == _PACKAGED:
        DIGEST_MODULE.write_text(
            '"""Generated by ``python -m bounds.simplify_store`` with ``data.json.gz``: do not edit."""\n\n'
            f'#: the SHA-256 of ``data.json.gz``; a file with another digest is not read\nSHA256 = "{sha}"\n',
            encoding="utf-8")
        _digest.SHA256 = sha
    else:
        _PINNED[path.resolve()] = sha
    _LOADED.clear()
    return path


def _namespace() -> dict[str, Any]:
    ns: dict[str, Any] = {}
    exec("from sympy import *", ns)     # noqa: S102 - the names srepr writes, and nothing else
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


def _rational(log10: float) -> sp.Rational:
    """A positive rational with three significant digits near ``10**log10``."""
    v = 10.0 ** log10
    k = 2 - math.floor(math.log10(v))
    num = max(1, round(v * 10.0 ** k))
    return sp.Rational(num, 10 ** k) if k >= 0 else sp.Integer(num * 10 ** -k)


def _candidate(rng: np.random.Generator, u: float, integer: bool) -> sp.Expr:
    """A value for a symbol whose magnitude is at the fraction ``u`` of the log range: an integer
    (``integer``) or a rational, of either sign, or (half the time) a complex rational."""
    sign = 1 if rng.integers(2) else -1
    if integer:
        lo, hi = LOG10_INT_RANGE
        return sp.Integer(sign * max(1, round(10.0 ** (lo + (hi - lo) * u))))
    lo, hi = LOG10_RANGE
    v = sign * _rational(lo + (hi - lo) * u)
    if rng.integers(2):
        return v
    return v + sp.I * (1 if rng.integers(2) else -1) * _rational(rng.uniform(lo, hi))


def _small(rng: np.random.Generator) -> sp.Expr:
    """A small integer (for assumptions such as prime or even that the wide draw rarely meets)."""
    return sp.Integer(int(rng.integers(-40, 41)))


def _fits(value: sp.Expr, sym: sp.Symbol) -> bool:
    """Whether ``value`` has every property the symbol assumes (positive, integer, real, ...)."""
    for k, want in sym.assumptions0.items():
        have = getattr(value, f"is_{k}", None)
        if have is not None and have != want:
            return False
    return True


def _point(symbols: list[sp.Symbol], strata: list[np.ndarray], i: int,
           rng: np.random.Generator) -> dict[sp.Symbol, sp.Expr] | None:
    """The ``i``-th point: symbol ``s`` takes its magnitude in stratum ``strata[s][i]`` of the log range."""
    pt = {}
    for s, order in zip(symbols, strata):
        n = len(order)
        integer = bool(s.is_integer)
        for t in range(200):
            u = (order[i % n] + rng.random()) / n
            v = _candidate(rng, u, integer) if t < 100 else _small(rng)
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
    # a Float with no certified digits (evalf's ``0.e-212``: the terms cancel beyond its working
    # precision) is zero as far as evalf can tell; a certified value, however small, is not zero
    re_, im_ = (sp.S.Zero if isinstance(p, sp.Float) and p._prec < MIN_BITS else p for p in (re_, im_))
    with mpmath.workdps(2 * DIGITS):
        return mpmath.mpc(mpmath.mpf(sp.Float(re_, 2 * DIGITS)._mpf_), mpmath.mpf(sp.Float(im_, 2 * DIGITS)._mpf_))


def verified(expr: sp.Expr, outcome: sp.Expr, key: str) -> bool:
    """Whether ``outcome`` equals ``expr``: the same value at :data:`N_POINTS` points of the symbols' domains.

    The points are rationals with three significant digits (integers for integer symbols, complex
    ones half the time for symbols not assumed real), of either sign where the assumptions allow,
    drawn from a Generator seeded by ``key``, each satisfying every assumption of every symbol.
    Each symbol's magnitudes are log-uniform over :data:`LOG10_RANGE` (:data:`LOG10_INT_RANGE` for
    integers), stratified: the first :data:`N_POINTS` points take one of as many equal slices of the
    log range each, in a random order per symbol, so very small and very large values are always
    among them.  When both sides are rational functions the comparison is exact (rational
    arithmetic), else sympy's ``evalf`` evaluates both at the rational point to :data:`DIGITS`
    digits (raising its working precision where terms cancel) and they must agree to :data:`RTOL`
    relative; zero agrees with zero only.  A point where either side is undefined does not count;
    fewer than :data:`N_POINTS` decided points out of 40 tries is a failure, and so is any
    disagreement or an outcome with a free symbol the input lacks.
    """
    if outcome == expr:
        return True
    free = expr.free_symbols
    if not outcome.free_symbols <= free or outcome.has(sp.nan, sp.zoo):
        return False
    syms = sorted(free, key=sp.default_sort_key)
    rng = np.random.default_rng(np.random.SeedSequence(zlib.crc32(key.encode())))
    strata = [rng.permutation(N_POINTS) for _ in syms]
    # exact rational arithmetic only for rational functions: elsewhere a power such as
    # (2/δ)^(t^(1/2-θ)(t+t₀)^θ) would be expanded into a huge exact number, so sympy's evalf
    # evaluates the rational point to DIGITS digits (raising its working precision where terms cancel)
    exact = all(x.is_rational_function(*syms) for x in (expr, outcome)) if syms else True
    decided = 0
    for i in range(5 * N_POINTS):
        pt = _point(syms, strata, i, rng)
        if pt is None:
            return False
        agree = _agree(expr, outcome, pt, exact)
        if agree is False:
            return False
        decided += agree is True
        if decided >= N_POINTS:
            return True
    return False


def _agree(expr: sp.Expr, outcome: sp.Expr, pt: dict[sp.Symbol, sp.Expr], exact: bool) -> bool | None:
    """Whether the two sides agree at ``pt`` (None: undefined there, the point decides nothing)."""
    if exact:
        try:
            a, b = expr.xreplace(pt), outcome.xreplace(pt)
        except Exception:  # noqa: BLE001 - a pole
            return None
        if a.is_Rational and b.is_Rational:
            return bool(a == b)
        expr, outcome, pt = a, b, {}               # numbers such as E: compared to DIGITS digits
    va, vb = _value(expr, pt), _value(outcome, pt)
    if va is None or vb is None:
        return None
    if va == 0 or vb == 0:
        return bool(va == vb)                      # zero against nonzero: no tolerance makes them equal
    with mpmath.workdps(2 * DIGITS):
        return bool(abs(va - vb) <= RTOL * max(abs(va), abs(vb)))


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
