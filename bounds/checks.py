"""Derivation checks: the machinery that decides whether a stated expression follows.

Each function returns a :class:`bounds.core.Check`.  Sympy decides where it can
(``method="symbolic"``); otherwise the check evaluates both sides at many
points drawn over the assumption domain (``method="numeric"``, the number of
points and the worst point are reported).  Numeric draws come from a numpy
Generator seeded from the statement key, so every run gives the same points.

Examples
--------
>>> import sympy as sp
>>> from bounds.checks import leading_exponent
>>> from bounds.symbols import S
>>> leading_exponent(S.m**-1 + S.m**sp.Rational(-1, 2), S.m)
-1/2
"""

from __future__ import annotations

import functools
import hashlib
import os
import pickle
import re
import zlib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import sympy as sp

from .evidence import Check, Result
from .symbols import SHARED, Namespace, Regime, S


class Statement(Protocol):
    """What a check reads of a statement (:class:`bounds.core.Statement` has it): this module types against
    the protocol and imports nothing of :mod:`bounds.core`, so that ``core`` → ``checks`` is one-way."""

    key: str
    relation: str
    constraints: tuple[Any, ...]
    ns: Namespace

#: default number of domain points for numeric checks
N_POINTS = 4000
#: relative tolerance for floating-point comparisons
RTOL = 1e-9


def _check(*args, **kw) -> Result:
    return Check(*args, **kw)


def _ns(st: Statement | None) -> Namespace:
    """The namespace of a statement (the shared one without a statement)."""
    return st.ns if st is not None else SHARED


def rng_for(key: str) -> np.random.Generator:
    """A Generator seeded (via SeedSequence) from a stable hash of ``key``."""
    return np.random.default_rng(np.random.SeedSequence(zlib.crc32(key.encode())))


# ---------------------------------------------------------------------------
# sampling the assumption domain
# ---------------------------------------------------------------------------
def sample_domain(
    symbols: Iterable[sp.Symbol],
    constraints: Sequence[Any] = (),
    n: int = N_POINTS,
    key: str = "",
    fixed: dict[sp.Symbol, float] | None = None,
    ns: Namespace = SHARED,
) -> dict[sp.Symbol, np.ndarray]:
    """Draw up to ``n`` points of the joint domain by rejection sampling.

    Symbols with a :class:`~bounds.symbols.Param` in ``ns`` are drawn from its domain;
    ``constraints`` (sympy relationals) are enforced by rejection.
    """
    syms = set(symbols)
    for c in constraints:
        syms |= ns.known(c.free_symbols)
    syms = sorted(syms, key=str)
    fixed = dict(fixed or {})
    rng = rng_for(key or "domain")
    out: dict[sp.Symbol, list[np.ndarray]] = {s: [] for s in syms}
    have = 0
    for _ in range(40):
        batch = {}
        for s in syms:
            if s in fixed:
                batch[s] = np.full(4 * n, float(fixed[s]))
                continue
            if not ns.has_symbol(s):
                raise ValueError(f"symbol {s} has no assumption domain")
            batch[s] = ns.by_symbol(s).sample(rng, 4 * n)
        mask = np.ones(4 * n, dtype=bool)
        for c in constraints:
            f = lambdified(syms, c.lhs - c.rhs, "numpy")
            with np.errstate(all="ignore"):
                v = np.asarray(f(*[batch[s] for s in syms]), dtype=float) * np.ones(4 * n)
            if isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)):
                mask &= v >= 0
            elif isinstance(c, (sp.LessThan, sp.StrictLessThan)):
                mask &= v <= 0
            else:
                raise ValueError(f"unsupported constraint {c}")
        for s in syms:
            out[s].append(batch[s][mask])
        have += int(mask.sum())
        if have >= n:
            break
    return {s: np.concatenate(v)[:n] for s, v in out.items()}


#: points per schedule of the paper's regime added to a numeric check
N_SCHEDULE = 1000


def domain_points(
    st: Statement | None,
    symbols: Iterable[sp.Symbol],
    constraints: Sequence[Any] = (),
    n: int = N_POINTS,
    key: str = "",
) -> tuple[dict[sp.Symbol, np.ndarray], np.ndarray, np.ndarray]:
    """Points of a numeric check: the domain draw plus the paper's schedule points.

    Returns ``(pts, inside, scheduled)``: ``inside`` marks the points inside the
    paper's :class:`~bounds.symbols.Regime` (a schedule point counts as inside
    when the parameters the schedule does not set lie in the ranges: the paper
    operates at its schedule's values by definition), ``scheduled`` the points
    a schedule of the regime produced (the schedule variable log-uniform over
    the regime's span, the scheduled parameters set by the schedule, the other
    parameters drawn from their domains; constraints enforced).
    """
    ns = _ns(st)
    syms = set(symbols)
    for c in constraints:
        syms |= ns.known(c.free_symbols)
    pts = sample_domain(syms, constraints, n, key=key, ns=ns)
    npts = len(next(iter(pts.values()))) if pts else 0
    reg = getattr(ns, "regime", None)
    inside = reg.mask(pts, ns) if (reg is not None and pts) else np.ones(npts, dtype=bool)
    scheduled = np.zeros(npts, dtype=bool)
    if reg is None or not pts or not reg.schedules or reg.variable not in ns:
        return pts, inside, scheduled
    var = ns[reg.variable].symbol
    extra_pts, extra_in = [], []
    for j, sched in enumerate(reg.schedules):
        names = [k for k in sched if k in ns and ns[k].symbol in pts]
        if var not in pts or not names:
            continue
        need = set(pts)
        for expr in sched.values():
            need |= ns.known(sp.sympify(expr).free_symbols)
        base = sample_domain(need, (), N_SCHEDULE, key=f"{key}:schedule{j}", ns=ns)
        rng = rng_for(f"{key}:schedule{j}:var")
        lo, hi = reg.span
        v = np.exp(rng.uniform(np.log(lo), np.log(hi), N_SCHEDULE))
        base[var] = np.floor(v) if ns.by_symbol(var).integer else v
        for name, expr in sched.items():
            if name in ns:
                base[ns[name].symbol] = _eval(sp.sympify(expr), {s_: base[s_] for s_ in base
                                                                 if s_ in sp.sympify(expr).free_symbols} or base)
        ok = np.ones(N_SCHEDULE, dtype=bool)
        for s_ in pts:
            with np.errstate(invalid="ignore"):
                ok &= np.isfinite(base[s_])
                p = ns.by_symbol(s_)
                ok &= np.array([p.contains(float(x)) if np.isfinite(x) else False for x in base[s_]])
        for c in constraints:
            syms_c = sorted(ns.known(c.free_symbols), key=str)
            f = lambdified(syms_c, c.lhs - c.rhs, "numpy")
            with np.errstate(all="ignore"):
                val = np.asarray(f(*[base[s_] for s_ in syms_c]), dtype=float) * np.ones(N_SCHEDULE)
            ok &= (val >= 0) if isinstance(c, (sp.GreaterThan, sp.StrictGreaterThan)) else (val <= 0)
        if ok.any():
            extra_pts.append({s_: base[s_][ok] for s_ in pts})
            # inside when the parameters the schedule does not set lie in the regime's ranges
            free = {k: v for k, v in reg.ranges.items() if k not in sched}
            sub = Regime(ranges=free).mask({s_: base[s_][ok] for s_ in pts}, ns)
            extra_in.append(sub)
    if not extra_pts:
        return pts, inside, scheduled
    for e in extra_pts:
        for s_ in pts:
            pts[s_] = np.concatenate([pts[s_], e[s_]])
    k = sum(len(x) for x in extra_in)
    inside = np.concatenate([inside, *extra_in])
    scheduled = np.concatenate([scheduled, np.ones(k, dtype=bool)])
    return pts, inside, scheduled


def regime_counts(bad: np.ndarray, finite: np.ndarray, inside: np.ndarray, scheduled: np.ndarray) -> dict[str, int]:
    """How many points were evaluated, finite, failing; inside/outside the regime and at schedule points."""
    return {
        "evaluated": int(bad.size),
        "finite": int(finite.sum()),
        "failures": int(bad.sum()),
        "inside": int((finite & inside).sum()),
        "failures_inside": int((bad & inside).sum()),
        "outside": int((finite & ~inside).sum()),
        "failures_outside": int((bad & ~inside).sum()),
        "scheduled": int((finite & scheduled).sum()),
        "failures_scheduled": int((bad & scheduled).sum()),
    }


def regime_text(c: dict[str, int]) -> str:
    """One clause: failures inside / outside the regime and at schedule points."""
    if not c.get("declared", True):
        return "the paper declares no regime"
    txt = (f"inside the paper's regime {c['failures_inside']} of {c['inside']}, outside it "
           f"{c['failures_outside']} of {c['outside']}")
    if c["scheduled"]:
        txt += f", at the schedule's points {c['failures_scheduled']} of {c['scheduled']} (all counted above)"
    return txt


def _finite_text(c: dict[str, int]) -> str:
    lost = c["evaluated"] - c["finite"]
    return f"{c['finite']} finite of {c['evaluated']} evaluated points" + (
        f" ({lost} non-finite, not counted)" if lost else "")


def _eval(expr: sp.Expr, pts: dict[sp.Symbol, np.ndarray]) -> np.ndarray:
    syms = list(pts)
    f = lambdified(syms, expr, "numpy")
    n = len(next(iter(pts.values()))) if pts else 1
    with np.errstate(all="ignore"):
        v = f(*[pts[s] for s in syms])
    return np.asarray(v, dtype=float) * np.ones(n)


def _worst(pts: dict[sp.Symbol, np.ndarray], i: int, ns: Namespace = SHARED, **extra: float) -> dict[str, Any]:
    w: dict[str, Any] = {}
    for s, v in pts.items():
        name = ns.by_symbol(s).name if ns.has_symbol(s) else str(s)
        w[name] = float(v[i])
    w.update({k: float(v) for k, v in extra.items()})
    return w


def _fmt_pt(w: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in w.items())


# ---------------------------------------------------------------------------
# comparisons
# ---------------------------------------------------------------------------
def numerically_equal(a: sp.Expr, b: sp.Expr, st: Statement | None = None, n: int = 400) -> bool:
    """True when ``a`` and ``b`` agree (relative 1e-9) at ``n`` random domain points."""
    syms = _ns(st).known(a.free_symbols | b.free_symbols)
    cons = st.constraints if st is not None else ()
    pts = sample_domain(syms, cons, n, key=(st.key if st else "eq"), ns=_ns(st))
    va, vb = _eval(a, pts), _eval(b, pts)
    ok = np.isfinite(va) & np.isfinite(vb)
    if not ok.any():
        return False
    return bool(np.all(np.abs(va[ok] - vb[ok]) <= RTOL * np.maximum(np.abs(vb[ok]), 1e-300)))


#: sympy's simplify is only attempted below this operation count (it can take minutes on large bounds):
#: a deterministic budget, the same on every machine whatever its load
SIMPLIFY_OPS = 80

#: outcomes of :func:`small_simplify` in this process, by :func:`simplify_key` (``(result,)``; None = too large)
_SIMPLIFIED: dict[str, tuple[sp.Expr | None]] = {}
#: directory of the outcomes kept on disk across processes (None: in memory only); see :func:`use_simplify_cache`
_SIMPLIFY_DIR: list[Path | None] = [None]
_SIMPLIFY_MAGIC = b"dp-erm-verify simplify v1 sha256="


def simplify_key(e: sp.Expr) -> str:
    """The key of an outcome of :func:`small_simplify`: SHA-256 of sympy's version, the budget and ``srepr(e)``.

    ``srepr`` spells every symbol with its assumptions, so two expressions share a key only when
    sympy cannot tell them apart.
    """
    return hashlib.sha256(f"{sp.__version__}\0{SIMPLIFY_OPS}\0{sp.srepr(e)}".encode()).hexdigest()


def use_simplify_cache(directory: str | os.PathLike | None) -> None:
    """Keep the outcomes of :func:`small_simplify` in ``directory`` too (None: in memory only).

    The symbolic snapshot (:mod:`bounds.snapshot`) points it at ``<root>/simplify``: the outcome
    depends only on the expression, sympy's version and :data:`SIMPLIFY_OPS` (all in the key), so it
    survives edits of ``bounds/`` and a re-derived paper mostly reads what it simplified before.
    """
    _SIMPLIFY_DIR[0] = None if directory is None else Path(directory)


def small_simplify(e: sp.Expr) -> sp.Expr | None:
    """sympy.simplify for small expressions; None when the expression is too large to try.

    The budget is the operation count (:data:`SIMPLIFY_OPS`), never a time, so the outcome is the
    same on every machine; it is computed once per expression and kept, the undecided outcome
    (None) included (:func:`simplify_key`, :func:`use_simplify_cache`).  An outcome neither kept
    in this process nor on disk is read from the package's seeded store when it has one that
    passes its check on read (:mod:`bounds.simplify_store`), else computed.

    Examples
    --------
    >>> from bounds.symbols import S
    >>> small_simplify(S.m / (2 * S.m)), small_simplify(sp.Add(*[S.m ** k for k in range(1, 90)])) is None
    (1/2, True)
    """
    key = simplify_key(e)
    hit = _SIMPLIFIED.get(key)
    where = _SIMPLIFY_DIR[0]
    path = where / key[:2] / f"{key}.pkl" if where is not None else None
    if hit is None and path is not None:
        from ._store_io import read_entry

        ok, obj, _why = read_entry(path, key, magic=_SIMPLIFY_MAGIC,
                                   check=lambda t: isinstance(t, tuple) and len(t) == 1)
        if ok:
            hit = _SIMPLIFIED[key] = obj
    if hit is not None:
        return hit[0]
    if sp.count_ops(e) > SIMPLIFY_OPS:
        out = None
    else:
        from .simplify_store import lookup, record

        seeded = lookup(key, e, sp.__version__, SIMPLIFY_OPS)   # the shipped outcomes, verified on read
        if seeded is not None:
            out = seeded
        else:
            out = sp.simplify(e)
            record(key, e, out)                                 # only when regenerating the store
    _SIMPLIFIED[key] = (out,)
    if path is not None:
        from ._store_io import _atomic_write, pack

        try:
            data = pickle.dumps((out,), protocol=pickle.HIGHEST_PROTOCOL)
        except Exception:  # noqa: BLE001 - an expression with a class defined in a function: memory only
            return out
        _atomic_write(path, pack(key, data, magic=_SIMPLIFY_MAGIC))
    return out


#: outcomes of :func:`simplified` in this process, by the SHA-256 of sympy's version and ``srepr`` of the input
_SIMPLIFY_MEMO: dict[str, sp.Expr] = {}


def simplified_key(e: sp.Basic) -> str:
    """The key of an outcome of :func:`simplified`: SHA-256 of sympy's version, ``simplify`` and ``srepr(e)``."""
    return hashlib.sha256(f"{sp.__version__}\0simplify\0{sp.srepr(e)}".encode()).hexdigest()


def simplified(e: Any) -> Any:
    """``sympy.simplify(e)``, computed once per expression in this process (no budget).

    Keyed like :func:`simplify_key` (sympy's version and ``srepr``, which spells every symbol with
    its assumptions): the derivation checks and the paper modules simplify the same densities,
    losses, ratios and exponents for many statements (53 of 91 calls repeated in the checks alone
    in a cold evaluation of every statement).  An expression (not a relational, boolean or matrix)
    not yet simplified in this process is read from the package's seeded store when it has an
    outcome that passes its check on read (:mod:`bounds.simplify_store`), else computed.  Anything
    that is not a sympy object (a matrix, a number) is simply passed to ``sympy.simplify``.

    Examples
    --------
    >>> from bounds.symbols import S
    >>> simplified(S.m / (2 * S.m)), simplified(S.m / (2 * S.m)) is simplified(S.m / (2 * S.m))
    (1/2, True)
    """
    if not isinstance(e, sp.Basic):
        return sp.simplify(e)                   # a mutable matrix, a Python number: never shared, never stored
    key = simplified_key(e)
    out = _SIMPLIFY_MEMO.get(key)
    if out is None:
        from .simplify_store import lookup, record

        seeded = lookup(key, e, sp.__version__, SIMPLIFY_OPS) if isinstance(e, sp.Expr) else None
        if seeded is not None:
            out = seeded
        else:
            out = sp.simplify(e)
            record(key, e, out)
        _SIMPLIFY_MEMO[key] = out
    return out


#: results of :func:`memoised` in this process, by function and arguments (see :func:`_memo_key`)
_CALL_MEMO: dict[tuple, Any] = {}


def _memo_key(x: Any) -> Any:
    """A hashable stand-in for an argument that equals another one's only when sympy cannot tell them apart:
    the type travels with the value (so 1, 1.0 and Integer(1) differ), lists and tuples item by item;
    sympy's own ``==`` is structural and spells every symbol's assumptions and every function's class."""
    if isinstance(x, (list, tuple)):
        return (type(x), tuple(_memo_key(v) for v in x))
    if isinstance(x, dict):
        return (dict, tuple(sorted(((_memo_key(k), _memo_key(v)) for k, v in x.items()), key=repr)))
    if isinstance(x, float):                            # 0.0 and -0.0 compare equal: the bits tell them apart
        return (float, x.hex())
    return (type(x), x)


def _fresh(x: Any) -> Any:
    """A copy of a memoised result's containers (lists, dicts, sets, at any depth); the sympy objects
    and other leaves are immutable and shared."""
    if isinstance(x, list):
        return [_fresh(v) for v in x]
    if isinstance(x, dict):
        return {k: _fresh(v) for k, v in x.items()}
    if isinstance(x, set):
        return {_fresh(v) for v in x}
    if isinstance(x, tuple) and any(isinstance(v, (list, dict, set, tuple)) for v in x):
        return tuple(_fresh(v) for v in x)
    return x


def memoised(fn: Any, *args: Any, **kw: Any) -> Any:
    """``fn(*args, **kw)`` computed once per process for equal arguments (:func:`_memo_key`).

    For the pure sympy operations the derivations and checks repeat (each paper-module site runs
    when a statement is derived and again when its dependants' checks derive it): ``solve``,
    ``solveset``, ``integrate``, ``limit``, ``nsimplify``, ``lambdify``.  The containers of a result
    (lists, dicts, sets, at any depth: ``solve(..., dict=True)`` gives a list of dicts) are fresh copies
    each time, so a caller that edits one cannot change what the next caller gets (:func:`_fresh`); the
    sympy objects inside are immutable and shared.  Unhashable arguments are simply passed on.

    Examples
    --------
    >>> from bounds.symbols import S
    >>> a = memoised(sp.solve, S.m**2 - 4, S.m)
    >>> a, a == memoised(sp.solve, S.m**2 - 4, S.m), a is memoised(sp.solve, S.m**2 - 4, S.m)
    ([2], True, False)
    """
    try:
        key = (fn, _memo_key(args), _memo_key(kw))
        out = _CALL_MEMO.get(key, _CALL_MEMO)
    except TypeError:                                   # an unhashable argument (a mutable matrix)
        return fn(*args, **kw)
    if out is _CALL_MEMO:
        out = _CALL_MEMO[key] = fn(*args, **kw)
    return _fresh(out)


def solved(*args: Any, **kw: Any) -> Any:
    """``sympy.solve``, once per process for equal arguments (:func:`memoised`)."""
    return memoised(sp.solve, *args, **kw)


def solved_set(*args: Any, **kw: Any) -> Any:
    """``sympy.solveset``, once per process for equal arguments (:func:`memoised`)."""
    return memoised(sp.solveset, *args, **kw)


def integrated(*args: Any, **kw: Any) -> Any:
    """``sympy.integrate``, once per process for equal arguments (:func:`memoised`)."""
    return memoised(sp.integrate, *args, **kw)


def limited(*args: Any, **kw: Any) -> Any:
    """``sympy.limit``, once per process for equal arguments (:func:`memoised`)."""
    return memoised(sp.limit, *args, **kw)


def nsimplified(*args: Any, **kw: Any) -> Any:
    """``sympy.nsimplify``, once per process for equal arguments (:func:`memoised`)."""
    return memoised(sp.nsimplify, *args, **kw)


def lambdified(*args: Any, **kw: Any) -> Any:
    """``sympy.lambdify``, once per process for equal arguments (:func:`memoised`; the function is shared)."""
    return memoised(sp.lambdify, *args, **kw)


def compare(st: Statement, stated: sp.Expr, derived: sp.Expr, label: str = "stated vs derived") -> Result:
    """Compare a stated expression with the derived one, by the statement's relation.

    ``eq``: equal (sympy, else numerically).  ``upper``: the stated upper bound
    must be at least the derived one at every domain point; a strictly larger
    stated bound is a valid relaxation and its slack (max stated/derived) is
    reported.  ``lower``: the reverse.
    """
    try:
        diff = small_simplify(stated - derived)
    except Exception:  # noqa: BLE001
        diff = None
    if diff == 0:
        return _check(label, True, "symbolic", "stated = derived (sympy)", slack=1.0)
    rel = st.relation
    if S.b in stated.free_symbols | derived.free_symbols:
        return _compare_densities(st, stated, derived, label)
    if rel == "eq":
        ok = numerically_equal(stated, derived, st)
        if ok:
            return _check(label, True, "numeric", "stated = derived (numerically, 400 points)", 400, slack=1.0)
        ratio = _ratio_range(stated, derived, st)
        return _check(
            label,
            False,
            "numeric" if ratio else "symbolic",
            f"stated ≠ derived; stated/derived = {_ratio_text(stated, derived, ratio)}",
            ratio.get("n", 0) if ratio else 0,
            worst=ratio.get("worst", {}) if ratio else {},
            severity="mismatch",
        )
    if rel == "upper":  # stated must be at least derived
        return inequality(st, derived, stated, label=label, what="stated", other="derived")
    # lower: stated must be at most derived
    return inequality(st, stated, derived, label=label, what="derived", other="stated")


def _compare_densities(st: Statement, stated: sp.Expr, derived: sp.Expr, label: str) -> Result:
    """Two Laplace-type densities in b are equal iff their decay rates and their values at 0 agree."""
    cs, cd = laplace_rate(stated), laplace_rate(derived)
    scale_ratio = simplified(cd / cs)  # stated scale / derived scale
    p0 = simplified(stated.subs(S.b, 0) / derived.subs(S.b, 0))
    same = scale_ratio == 1 and p0 == 1
    if same:
        return _check(label, True, "symbolic", "same decay rate and normalisation (sympy)", slack=1.0)
    if cs.is_nonpositive:
        return _check(
            label,
            False,
            "symbolic",
            f"the stated density grows like exp({sp.sstr(-cs)}·|b|) and has no scale; the derived one has scale "
            f"{sp.sstr(1 / cd)}",
            severity="typo",
        )
    if st.relation == "upper" and not (cs.is_negative or cd.is_negative):
        # a density with a larger scale (more noise) than required is a valid, conservative choice
        return inequality(st, 1 / cd, 1 / cs, label, what="stated scale", other="required scale")
    return _check(
        label,
        False,
        "symbolic",
        f"stated scale / derived scale = {sp.sstr(scale_ratio)}; stated p(0) / derived p(0) = {sp.sstr(p0)}",
        severity="mismatch",
        slack=_safe(scale_ratio),
    )


def _safe(x: sp.Expr) -> float | None:
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def _ratio_range(a: sp.Expr, b: sp.Expr, st: Statement) -> dict[str, Any]:
    syms = _ns(st).known(a.free_symbols | b.free_symbols)
    if not syms:
        return {}
    pts, _inside, _sched = domain_points(st, syms, st.constraints, 1000, key=st.key + ":ratio")
    va, vb = _eval(a, pts), _eval(b, pts)
    with np.errstate(all="ignore"):
        q = va / vb
    ok = np.isfinite(q) & (va > 0) & (vb > 0)   # a ratio only where both sides are finite and positive
    if not ok.any():
        return {}
    i = int(np.argmin(np.where(ok, q, np.inf)))
    return {"min": float(np.min(q[ok])), "max": float(np.max(q[ok])), "n": int(ok.sum()), "worst": _worst(pts, i, _ns(st), ratio=q[i])}


def _ratio_text(a: sp.Expr, b: sp.Expr, rng: dict[str, Any]) -> str:
    try:
        q = small_simplify(a / b)
        if q is not None and q.is_number and not q.is_positive:
            # a ratio of quantities of opposite sign (two exponents, say) means nothing: give both
            return f"(no ratio: the two have opposite signs) stated {sp.sstr(a)}, derived {sp.sstr(b)}"
        if (q is not None and len(sp.sstr(q)) < 60 and q.free_symbols.isdisjoint({S.b})
                and not q.has(sp.zoo, sp.nan, sp.oo, -sp.oo)):
            return f"{sp.sstr(q)}"
    except Exception:  # noqa: BLE001
        pass
    if rng:
        return f"[{rng['min']:.4g}, {rng['max']:.4g}] over {rng['n']} points where both are positive"
    return "not comparable (no point where both sides are finite and positive)"


def inequality(
    st: Statement,
    lhs: sp.Expr,
    rhs: sp.Expr,
    label: str,
    what: str = "rhs",
    other: str = "lhs",
    extra_constraints: Sequence[Any] = (),
    n: int = N_POINTS,
    severity: str = "invalid",
) -> Result:
    """Check ``lhs <= rhs`` over the statement's assumption domain.

    Tries sympy first (sign of ``rhs - lhs`` under the symbols' assumptions),
    then ``n`` random domain points.  Reports the slack ``max rhs/lhs`` when
    the inequality holds and the worst point when it does not.
    """
    cons = tuple(st.constraints) + tuple(extra_constraints)
    try:
        d = small_simplify(rhs - lhs)
        if d is not None and not cons and d.is_nonnegative:
            slack = _slack(lhs, rhs, st, cons)
            txt = "holds (sympy: difference is nonnegative under the assumptions)"
            if slack and slack > 1 + 1e-9:
                txt += f"; {what} is looser than {other} by up to a factor {slack:.4g}"
            return _check(label, True, "symbolic", txt, slack=slack)
    except Exception:  # noqa: BLE001
        pass
    syms = _ns(st).known(lhs.free_symbols | rhs.free_symbols)
    pts, inside, scheduled = domain_points(st, syms, cons, n, key=st.key + ":" + label)
    npts = len(next(iter(pts.values()))) if pts else 1
    vl, vr = _eval(lhs, pts), _eval(rhs, pts)
    if not pts:
        inside = scheduled = np.zeros(npts, dtype=bool)
        inside[:] = True
    fin = np.isfinite(vl) & np.isfinite(vr)
    viol = (vl > vr + RTOL * np.maximum(np.abs(vr), np.abs(vl))) & fin
    with np.errstate(all="ignore"):
        q = np.where(fin & (vl > 0) & (vr > 0), vr / vl, np.nan)
    q[~np.isfinite(q)] = np.nan
    counts = regime_counts(viol, fin, inside, scheduled)
    reg = getattr(_ns(st), "regime", None)
    counts["declared"] = int(bool(reg is not None and (reg.ranges or reg.schedules)))
    if counts["finite"] == 0:
        return _check(label, None, "numeric",
                      f"inconclusive: none of the {npts} evaluated points gave finite values on both sides",
                      0, details={"points": counts})
    if viol.any():
        where = viol & inside if (viol & inside).any() else viol
        i = int(np.nanargmin(np.where(where, q, np.nan))) if np.isfinite(q[where]).any() else int(np.argmax(where))
        sym = _short_ratio(rhs, lhs)
        ratio_txt = f"worst {what}/{other} = {q[i]:.4g}" if np.isfinite(q[i]) else f"{what} = {vr[i]:.4g} < {other} = {vl[i]:.4g}"
        out = _check(
            label,
            False,
            "numeric",
            (f"{what}/{other} = {sym}; " if sym else "")
            + f"{what} < {other} at {counts['failures']} of {_finite_text(counts)}; "
            + regime_text(counts) + f"; {ratio_txt} at {_fmt_pt(_worst(pts, i, _ns(st)))}",
            counts["finite"],
            worst=_worst(pts, i, _ns(st), ratio=q[i]),
            severity=severity,
            details={"points": counts},
        )
        out.regime = "inside" if counts["failures_inside"] else "outside"
        return out
    if 2 * counts["finite"] < counts["evaluated"]:
        # no failure among the few points that evaluate, but a minority of points decides nothing
        return _check(label, None, "numeric",
                      f"inconclusive: holds at the {counts['finite']} points of {counts['evaluated']} evaluated where "
                      "both sides are finite, a minority; the others overflow or are undefined",
                      counts["finite"], details={"points": counts})
    txt = f"holds at all {_finite_text(counts)}" + (f" ({counts['scheduled']} from the paper's schedules)"
                                                  if counts["scheduled"] else "")
    qi = q[inside & np.isfinite(q)]
    slack = float(np.nanmax(qi)) if qi.size else None
    if slack is not None and slack > HUGE_SLACK:
        # the largest sampled factor of an unbounded slack is an artefact of the sample, not of the bound: not printed
        med = float(np.nanmedian(qi))
        median = "median beyond it too" if med > HUGE_SLACK else f"median {med:.4g}"
        txt += (f"; inside the paper's regime {what} exceeds {other} by a factor from {np.nanmin(qi):.4g} to beyond "
                f"{HUGE_SLACK:.0e} ({median}): the factor is unbounded over the sampled points, so its largest value "
                "is not a property of the bound")
    elif slack is not None and slack > 1 + 1e-9:
        txt += (f"; inside the paper's regime {what} exceeds {other} by a factor {np.nanmin(qi):.4g} to "
                f"{slack:.4g} (median {np.nanmedian(qi):.4g})")
    return _check(label, True, "numeric", txt, counts["finite"], slack=slack, details={"points": counts})


#: a sampled slack above this is reported as unbounded, not as a number (issue 34: never print a number that means
#: nothing; ``verify.scan`` flags an unexplained factor above the same threshold)
HUGE_SLACK = 1e12


def _short_ratio(a: sp.Expr, b: sp.Expr, limit: int = 60) -> str:
    """sympy's simplified a/b when it is short enough to read, else ''."""
    try:
        q = small_simplify(a / b)
    except Exception:  # noqa: BLE001
        return ""
    if q is None or q.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
        return ""
    text = sp.sstr(q)
    return text if len(text) <= limit else ""


def _slack(lhs: sp.Expr, rhs: sp.Expr, st: Statement, cons: Sequence[Any]) -> float | None:
    syms = _ns(st).known(lhs.free_symbols | rhs.free_symbols)
    if not syms:
        try:
            return float(rhs / lhs)
        except (TypeError, ZeroDivisionError):
            return None
    pts = sample_domain(syms, cons, 500, key=st.key + ":slack", ns=_ns(st))
    with np.errstate(all="ignore"):
        q = _eval(rhs, pts) / _eval(lhs, pts)
    q = q[np.isfinite(q)]
    return float(q.max()) if q.size else None


# ---------------------------------------------------------------------------
# noise densities and privacy logic
# ---------------------------------------------------------------------------
def density_integrates_to_one(density: sp.Expr, var: sp.Symbol = S.b, label: str = "density integrates to one") -> Result:
    """Integrate a density over the real line with sympy; it must equal 1."""
    c = laplace_rate(density, var)
    grows = c.is_nonpositive
    if grows is None and c.free_symbols:
        # sympy cannot decide the sign (e.g. of (t + t₀ − 1)^(2θ−1)); decide it at positive sample points
        rng = np.random.default_rng(np.random.SeedSequence(471))
        syms = sorted(c.free_symbols, key=str)
        pts = []
        for sym in syms:   # positive reals; integer symbols (counts such as t) from 1 up
            v = 10 ** rng.uniform(-3, 3, 64)
            pts.append(np.ceil(v) if sym.is_integer else v)
        with np.errstate(all="ignore"):
            vals = np.asarray(lambdified(syms, c, "numpy")(*pts), dtype=float) * np.ones(64)
        grows = bool(not np.isnan(vals).any() and np.all(vals <= 0)) or None   # −inf still has a sign
    if grows:
        return _check(
            label,
            False,
            "symbolic",
            f"p(b) grows like exp({sp.sstr(-c)}·|b|): ∫ p(b) db diverges, not a probability density "
            "(a sign error in the exponent)",
            severity="typo",
        )
    try:
        total = simplified(integrated(density, (var, -sp.oo, sp.oo), conds="none"))
    except Exception as exc:  # noqa: BLE001
        return _check(label, False, "symbolic", f"sympy could not integrate: {exc}", severity="mismatch")
    if total == 1:
        return _check(label, True, "symbolic", "∫ p(b) db = 1 (sympy)")
    if total.has(sp.oo, sp.zoo, sp.nan) or total is sp.oo:
        return _check(label, False, "symbolic", f"∫ p(b) db diverges ({total}): not a probability density", severity="typo")
    if total.has(sp.Integral) or any(f.func.__name__ in ("polar_lift", "Piecewise") for f in total.atoms(sp.Function)):
        return _check(label, False, "symbolic", "not decided: sympy leaves the integral unevaluated", severity="gap")
    return _check(label, False, "symbolic", f"∫ p(b) db = {sp.sstr(total)} ≠ 1", severity="mismatch")


def laplace_rate(density: sp.Expr, var: sp.Symbol = S.b) -> sp.Expr:
    """The decay rate c of a density ∝ exp(−c|b|): c = −d/db log p(b) for b > 0."""
    bp = sp.Symbol("b_pos", positive=True)
    p = density.subs(var, bp)
    # expand_log + factor: the same expression as simplify() on these densities, without the
    # cost of simplify (run when the papers are imported)
    rate = sp.factor(-sp.diff(sp.expand_log(sp.log(p), force=True), bp))
    return rate if not rate.has(bp) else simplified(-sp.diff(sp.log(p), bp))


def laplace_privacy(
    st: Statement,
    density: sp.Expr,
    sensitivity: sp.Expr,
    eps: sp.Expr = S.eps,
    var: sp.Symbol = S.b,
    label: str = "noise scale ≥ sensitivity/ε",
) -> Result:
    """Privacy logic of a Laplace mechanism: the privacy loss c·Δ must be at most ε.

    For a density ∝ exp(−c|b|) added to a query of sensitivity Δ, the worst
    log density ratio between neighbours is c·Δ (Dwork et al. 2006); the
    mechanism is ε-DP iff c·Δ ≤ ε, i.e. the scale 1/c ≥ Δ/ε.
    """
    c = laplace_rate(density, var)
    loss = simplified(c * sensitivity)
    ratio = simplified(loss / eps)
    if ratio.free_symbols:
        chk = inequality(st, ratio, sp.Integer(1), label=label, what="1", other="privacy loss / ε")
        chk.detail = f"privacy loss c·Δ = {sp.sstr(loss)}; " + chk.detail
        return chk
    if ratio <= 1:
        txt = f"privacy loss c·Δ = {sp.sstr(loss)} ≤ ε"
        if ratio < 1:
            txt += f" (noise is {sp.sstr(1 / ratio)}× larger than needed)"
        return _check(label, True, "symbolic", txt, slack=float(1 / ratio))
    return _check(
        label,
        False,
        "symbolic",
        f"privacy loss c·Δ = {sp.sstr(loss)} > ε: the noise scale is {sp.sstr(1 / ratio)} of sensitivity/ε, "
        f"so the mechanism is only ({sp.sstr(ratio)})·ε-DP",
        severity="invalid",
    )


def expectation(density: sp.Expr, g: sp.Expr, var: sp.Symbol = S.b) -> sp.Expr:
    """E g(b) for a symmetric density p(b) (integrated with sympy)."""
    return simplified(integrated(g * density, (var, -sp.oo, sp.oo), conds="none"))


def laplace_density(scale: sp.Expr, var: sp.Symbol = S.b) -> sp.Expr:
    """Laplace density (1/(2s)) exp(−|b|/s)."""
    return sp.exp(-sp.Abs(var) / scale) / (2 * scale)


# ---------------------------------------------------------------------------
# rates and schedules
# ---------------------------------------------------------------------------
def leading_exponent(expr: sp.Expr, var: sp.Symbol) -> sp.Expr:
    """lim log(expr)/log(var) as var → ∞, for sums/products/powers of positive terms.

    Sums give the maximum exponent, products the sum, ``base**e`` gives
    ``e * exponent(base)``; Min/Max map to Min/Max of exponents; logarithms
    count as exponent 0.  Anything else falls back to :func:`sympy.limit`.
    """
    e = sp.sympify(expr)
    if not e.has(var):
        return sp.Integer(0)
    if e == var:
        return sp.Integer(1)
    if e.is_Add:
        folded = _fold_expm1(e)
        if folded is not None:
            return leading_exponent(folded, var)
        return sp.Max(*[leading_exponent(a, var) for a in e.args])
    if e.is_Mul:
        return sp.Add(*[leading_exponent(a, var) for a in e.args])
    if e.is_Pow:
        base, ex = e.as_base_exp()
        if not ex.has(var):
            return ex * leading_exponent(base, var)
    if isinstance(e, (sp.Min, sp.Max)):
        return type(e)(*[leading_exponent(a, var) for a in e.args])
    if isinstance(e, (sp.log, _Bounded)):
        return sp.Integer(0)
    if isinstance(e, sp.Abs):
        return leading_exponent(e.args[0], var)
    return limited(sp.log(e) / sp.log(var), var, sp.oo)


class _Bounded(sp.Function):
    """A factor that stays between positive constants (exponent 0), e.g. (e^g − 1)/g as g → 0."""


def _fold_expm1(e: sp.Expr) -> sp.Expr | None:
    """Rewrite c·e^g − c as c·g·Φ (and c − c·e^(−g) likewise) so cancellation is not lost.

    Φ is a bounded positive factor when g → 0, which holds for the privacy
    terms e^ε − 1 and 1 − e^(−ε) under any schedule with ε → 0.
    """
    args = list(e.args)
    for a in args:
        coeff, rest = a.as_coeff_Mul()
        if isinstance(rest, sp.exp) and -coeff in args:
            g = rest.args[0]
            others = list(args)
            others.remove(a)
            others.remove(-coeff)
            core = coeff * sp.Abs(g) * _Bounded(g)
            return sp.Add(core, *others)
    return None


def exponents_equal(st: Statement, a: sp.Expr, b: sp.Expr, label: str) -> Result:
    """Equality of two exponent expressions over the domain of their parameters."""
    try:
        if small_simplify(a - b) == 0:
            return _check(label, True, "symbolic", f"exponent {sp.sstr(a)} (sympy)")
    except Exception:  # noqa: BLE001
        pass
    syms = _ns(st).known(a.free_symbols | b.free_symbols)
    pts = sample_domain(syms, st.constraints, 2000, key=st.key + ":" + label, ns=_ns(st))
    va, vb = _eval(a, pts), _eval(b, pts)
    bad = np.abs(va - vb) > 1e-9
    n = len(va)
    if bad.any():
        i = int(np.argmax(np.abs(va - vb)))
        return _check(
            label,
            False,
            "numeric",
            f"exponents differ at {int(bad.sum())} of {n} points; e.g. {_fmt_pt(_worst(pts, i, _ns(st)))}: "
            f"{va[i]:.4g} vs {vb[i]:.4g}",
            n,
            worst=_worst(pts, i, _ns(st), derived=va[i], stated=vb[i]),
            severity="invalid",
        )
    return _check(label, True, "numeric", f"exponents agree at {n} parameter points", n)


def rate_check(
    st: Statement,
    bound: sp.Expr,
    claimed: sp.Expr,
    var: sp.Symbol = S.m,
    label: str = "rate: lim log(bound)/log(m)",
    spot: int = 3,
) -> Result:
    """Check that lim log(bound)/log(var) equals the claimed exponent.

    The exponent is computed structurally by :func:`leading_exponent` and
    compared with the claim over the parameter domain; at ``spot`` random
    parameter points the numeric slope of the substituted bound far out (:func:`_spot_slope`)
    is an independent confirmation, with no time budget (the same words on every machine).
    """
    got = leading_exponent(bound, var)
    chk = exponents_equal(st, got, claimed, label)
    syms = sorted(_ns(st).known(bound.free_symbols - {var}), key=str)
    if spot and chk.ok:
        pts = sample_domain(syms, st.constraints, spot, key=st.key + ":spot", ns=_ns(st))
        agree = decided = 0
        for i in range(spot):
            sub = {s: _exact(float(pts[s][i])) for s in syms}
            slope = _spot_slope(bound.subs(sub), var)
            if slope is None:
                continue  # not a positive real number there: the structural result stands, the count says so
            decided += 1
            want = float(claimed.subs(sub))
            if abs(slope - want) <= SPOT_TOL:
                agree += 1
            else:
                chk.verdict = "violated"
                chk.severity = "invalid"
                chk.detail += (f"; the numeric slope of log(bound) in log({var}) at {var} = 1e{SPOT_DECADES[0]}.."
                               f"1e{SPOT_DECADES[1]} is {slope:.4g} ≠ {want:.4g} at {sub}")
        chk.detail += (f"; numeric slope at {var} = 1e{SPOT_DECADES[0]}..1e{SPOT_DECADES[1]} (60 digits) agrees at "
                       f"{agree} of {spot} spot points" + (f" ({spot - decided} undecided: not a positive number there)"
                                                           if decided < spot else ""))
    shown = small_simplify(got)
    chk.detail = f"lim log(bound)/log({var}) = {sp.sstr(shown if shown is not None else got)}; " + chk.detail
    return chk


def _exact(x: float) -> sp.Rational:
    """A nearby rational with two significant digits (never 0 for x ≠ 0).

    Small denominators keep :func:`sympy.limit` fast: with 6-digit rationals
    in exponents it can spend minutes testing perfect powers.  Computed once per two-digit value
    (88 of 216 calls repeated in a cold evaluation of every statement).
    """
    return _exact_text(f"{x:.2g}")


#: a two-significant-digit decimal with a decimal exponent in [−25, 25]: the texts whose
#: ``nsimplify(float(text), rational=True)`` is the decimal itself (all 11466 of them checked, tests/test_checks_exact.py)
_TWO_DIGITS = re.compile(r"-?[1-9](\.[0-9])?(e[+-](0[0-9]|1[0-9]|2[0-5]))?|-?[1-9][0-9]|-?0\.0{0,3}[1-9][0-9]?")


@functools.lru_cache(maxsize=4096)
def _exact_text(text: str) -> sp.Rational:
    if _TWO_DIGITS.fullmatch(text):
        return sp.Rational(text)                    # what nsimplify gives, without its ≈ 4 ms search
    return sp.nsimplify(float(text), rational=True)


#: the two values of the rate variable (as powers of ten) between which :func:`_spot_slope` measures the slope
#: of log(bound) in log(var), and the tolerance of the comparison with the claimed exponent: a factor
#: log(var)^k moves the slope by k·log 2/(1000·log 10) ≈ 3e-4·k, far inside the tolerance for any k < 30
SPOT_DECADES = (1000, 2000)
SPOT_TOL = 0.01


def _spot_slope(bound: sp.Expr, var: sp.Symbol) -> float | None:
    """The slope of log(bound) against log(var) between var = 1e1000 and 1e2000, at 60 digits.

    An independent numeric confirmation of :func:`leading_exponent`: exact arithmetic on the
    substituted bound, with no time budget, so its outcome is the same on every machine.  None when
    the bound is not a finite positive real number at both points.

    Examples
    --------
    >>> m = sp.Symbol("m", positive=True)
    >>> round(_spot_slope(m ** sp.Rational(-1, 3) * sp.log(m) + 1 / m, m), 3)
    -0.333
    """
    vals = []
    for dec in SPOT_DECADES:
        try:
            # a 60-digit float, not the integer 10**dec: sympy would try to factor huge integers under roots
            v = sp.N(bound.subs(var, sp.Float(f"1e{dec}", 60)), 60)
        except Exception:  # noqa: BLE001 - an expression sympy cannot evaluate there
            return None
        if not (v.is_number and v.is_real and v.is_positive and v.is_finite):
            return None   # not a positive number there (or a free constant the namespace does not know)
        vals.append(v)
    return float((sp.log(vals[1]) - sp.log(vals[0])) / ((SPOT_DECADES[1] - SPOT_DECADES[0]) * sp.log(10)))


def monomial_exponents(term: sp.Expr, bases: Sequence[sp.Symbol]) -> dict[sp.Symbol, sp.Expr]:
    """Exponent of each base in a (generalised) monomial term."""
    return {b: leading_exponent(term, b) for b in bases}


def balance(term1: sp.Expr, term2: sp.Expr, var: sp.Symbol, bases: Sequence[sp.Symbol]) -> sp.Expr:
    """The power law var = Π base^a that makes two monomial terms of the same order.

    Writing each term as Π base^(e_i) · var^(v_i), equal orders require
    a_base = (e2 − e1)/(v1 − v2) for every base.
    """
    all_b = list(bases) + [var]
    e1 = monomial_exponents(term1, all_b)
    e2 = monomial_exponents(term2, all_b)
    dv = simplified(e1[var] - e2[var])
    if dv == 0:
        raise ValueError(f"terms do not depend differently on {var}")
    out = sp.Integer(1)
    for b in bases:
        out *= b ** simplified((e2[b] - e1[b]) / dv)
    return out


def schedule_check(
    st: Statement, stated: sp.Expr, derived: sp.Expr, bases: Sequence[sp.Symbol], label: str = "schedule balances the bound"
) -> Result:
    """A schedule is consistent when it has the same exponents (in m, λ, ...) as the balance point."""
    checks = []
    for b in bases:
        checks.append(exponents_equal(st, leading_exponent(derived, b), leading_exponent(stated, b), f"{label} [{b}]"))
    bad = [c for c in checks if not c.ok]
    if bad:
        return _check(label, False, bad[0].kind, "; ".join(c.detail for c in bad), severity="invalid")
    return _check(
        label,
        True,
        checks[0].kind if checks else "symbolic",
        f"balance point {sp.sstr(derived)} has the schedule's exponents in " + ", ".join(str(b) for b in bases),
    )


def hoeffding_rademacher_check(label: str = "exact Rademacher tails") -> Result:
    """Hoeffding's 2exp(−mt²/(2Ξ²)) against the exact tail of a mean of ±Ξ coin flips.

    The tail P(|mean| ≥ t) is computed exactly from the binomial law for
    m ∈ {2, ..., 1000} and 20 values of t/Ξ in [0.05, 1].
    """
    from scipy import stats

    worst, n = 0.0, 0
    for mm in (2, 5, 10, 30, 100, 300, 1000):
        k = np.arange(mm + 1)
        pmf = stats.binom.pmf(k, mm, 0.5)
        means = (2 * k - mm) / mm  # in units of Ξ
        for tt in np.linspace(0.05, 1.0, 20):
            p = pmf[np.abs(means) >= tt - 1e-12].sum()
            worst = max(worst, p / (2 * np.exp(-mm * tt**2 / 2)))
            n += 1
    ok = worst <= 1 + 1e-12
    return _check(
        label,
        ok,
        "numeric",
        f"P(|mean − Eξ| ≥ t) for ±Ξ coin flips, {n} (m, t) pairs, exact binomial: max tail/bound = {worst:.3f}",
        n,
        severity="" if ok else "invalid",
    )


def rate_constant(bound: sp.Expr, exponent: sp.Expr, var: sp.Symbol = S.m) -> sp.Expr:
    """C with bound ≤ C·var^exponent for all var ≥ 1: the value of bound·var^(−exponent) at var = 1.

    This is the supremum when bound·var^(−exponent) is non-increasing in var
    (true for sums of power laws whose exponents do not exceed the rate, and
    for (e^ε − 1)/ε factors with ε decreasing); :func:`rate_statement_checks`
    re-checks it numerically over the domain.
    """
    c = (bound * var ** (-exponent)).subs(var, 1)
    return simplified(c) if sp.count_ops(c) < 200 else c


def rate_statement_checks(st: Statement, scheduled: sp.Expr, exponent: sp.Expr, derived: sp.Expr) -> list[Result]:
    """The checks of a rate statement C·m^exponent built from a scheduled bound.

    1. lim log(bound)/log(m) equals the claimed exponent (:func:`rate_check`);
    2. the derived C·m^exponent dominates the scheduled bound at every domain point.
    """
    return [
        rate_check(st, scheduled, exponent),
        inequality(st, scheduled, derived, "derived constant bounds the scheduled bound for all m", "C·m^rate", "bound"),
    ]


def substitute_schedule(expr: sp.Expr, eps_schedule: sp.Expr | None, lam_schedule: sp.Expr | None) -> sp.Expr:
    """Substitute ε- and λ-schedules into ``expr``; either schedule may depend on the other variable."""
    out = expr
    if eps_schedule is not None and lam_schedule is not None:
        if S.eps in lam_schedule.free_symbols:  # λ(m, ε) and ε(m)
            return out.subs(S.lam, lam_schedule).subs(S.eps, eps_schedule)
        return out.subs(S.eps, eps_schedule.subs(S.lam, lam_schedule)).subs(S.lam, lam_schedule)
    if lam_schedule is not None:
        out = out.subs(S.lam, lam_schedule)
    if eps_schedule is not None:
        out = out.subs(S.eps, eps_schedule)
    return out


#: An exact finite instance for ‖(L_K + λI)⁻¹L_K f‖_∞ ≤ ‖f‖_∞: X = {x₁, x₂, x₃} with ρ_X uniform,
#: a positive definite Gram matrix with unit diagonal (κ = 1), f = (−1, 1, 1) and λ = 1/100.
SUP_NORM_INSTANCE: dict[str, Any] = {
    "gram": ((1, sp.Rational(7, 10), 0), (sp.Rational(7, 10), 1, sp.Rational(7, 10)), (0, sp.Rational(7, 10), 1)),
    "f": (-1, 1, 1),
    "lam": sp.Rational(1, 100),
    "text": "X = 3 points, ρ_X uniform, Gram ((1, 7/10, 0), (7/10, 1, 7/10), (0, 7/10, 1)) (positive definite, "
            "κ = 1, so every f_ρ lies in L_K^r(L²)), λ = 1/100",
}


def regularised_projection(gram: Sequence[Sequence[Any]], f: Sequence[Any], lam: Any) -> list[sp.Rational]:
    """Exact f_λ = (L_K + λI)⁻¹ L_K f on a finite X with ρ_X uniform (L_K = Gram/n), in rationals.

    This is the "stepping-stone" function of kernel learning theory; on L²(ρ_X) the filter
    σ ↦ σ/(σ + λ) is a contraction, but not on L^∞: f_λ can exceed ‖f‖_∞.

    Parameters
    ----------
    gram : n×n sequence
        Positive definite Gram matrix K(x_i, x_j) (rationals or integers).
    f : sequence of length n
        Values of f on X.
    lam : rational
        Regularisation λ > 0.

    Returns
    -------
    list of sympy.Rational
        f_λ(x_1), ..., f_λ(x_n).

    Examples
    --------
    >>> v = regularised_projection(SUP_NORM_INSTANCE["gram"], SUP_NORM_INSTANCE["f"], SUP_NORM_INSTANCE["lam"])
    >>> max(abs(x) for x in v) > 1, float(v[2])
    (True, 1.2304535144670996)
    """
    K = sp.Matrix(gram)
    n = K.shape[0]
    if K.shape != (n, n) or not all(ev > 0 for ev in K.eigenvals()):
        raise ValueError("gram: regularised_projection needs a positive definite square Gram matrix "
                         "(assumption: K is a Mercer kernel on a finite X)")
    if sp.sympify(lam) <= 0:
        raise ValueError("lam: regularised_projection needs λ > 0")
    LK = K / n
    return [nsimplified(v) for v in (LK + sp.sympify(lam) * sp.eye(n)).LUsolve(LK * sp.Matrix(f))]
