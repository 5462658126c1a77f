"""Picking ε and λ from a bound: the paper's schedule, an optimised choice, inverse queries.

A *pickable* statement is a bound written before the paper substitutes its
schedule (``jia.thm4.bound``, ``jamp.thm3.bound``, ...); its ``schedule``
field names the schedule statements.  A rate statement (``jia.thm4``) may be
given instead: its pickable dependency is used.

All numbers use the expression the registry recommends for numeric use (the
derived one for an erratum), unless ``which="stated"``.

Every public function validates its inputs against the statement's assumptions (m a sample
size, ε > 0, λ in its domain, the constants in theirs, all finite) and its answer: a bound that
is infinite, undefined or beyond the floating-point range is a :class:`ValueError` naming the
input that causes it, never a number.

Examples
--------
>>> from bounds.pick import paper_schedule, optimise
>>> consts = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
>>> p = paper_schedule("jia.thm4", m=10_000, **consts)
>>> round(p.eps, 4), round(p.lam, 4)
(0.1, 0.01)
>>> o = optimise("jia.thm4", m=10_000, **consts)
>>> o.bound <= p.bound
True
>>> optimise("jia.thm4", m=10_000, eps=-0.1, **consts)
Traceback (most recent call last):
...
ValueError: parameter 'eps' = -0.1 violates the assumption eps > 0 of statement jia.thm4.bound (Theorem 4)
"""

from __future__ import annotations

import contextlib
import contextvars
import math
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from scipy import optimize

from .core import PrivacyWarning, Statement, _rel_text, moderate_value, number_or_reason, validate
from .symbols import SHARED, Namespace, S
from .validation import culprits, fmt_point, num, positive_finite, real, short

_ACTIVE: contextvars.ContextVar[Any] = contextvars.ContextVar("bounds_pick_registry", default=None)
#: whether an error looks for the input that causes it (off inside the searches of min_m/min_eps,
#: which only need to know that a point fails, hundreds of times)
_DIAGNOSE: contextvars.ContextVar[bool] = contextvars.ContextVar("bounds_pick_diagnose", default=True)


def _reg() -> Any:
    """The registry picks read: :data:`bounds.registry`, or the one set by :func:`using`."""
    reg = _ACTIVE.get()
    if reg is None:
        import bounds

        reg = bounds.registry
    return reg


@contextlib.contextmanager
def using(registry: Any):
    """Pick from ``registry`` inside the block (the command line passes its snapshot registry).

    Raises
    ------
    ValueError
        If ``registry`` is not a registry (it must look statements up and evaluate them).

    Examples
    --------
    >>> import bounds
    >>> from bounds.pick import using, pickable
    >>> with using(bounds.registry):
    ...     pickable("jia.thm4").key
    'jia.thm4.bound'
    """
    if not all(callable(getattr(registry, a, None)) for a in ("get", "evaluate", "derived", "keys")):
        raise ValueError(f"parameter 'registry' must be a bounds Registry, not {type(registry).__name__}")
    token = _ACTIVE.set(registry)
    try:
        yield registry
    finally:
        _ACTIVE.reset(token)


#: variables a picker may choose
CHOICE = ("eps", "lam")
_EPS_MAX = 1.0  # the papers assume ε < 1 (meaningful privacy)
#: what λ is in the inverse queries (:func:`min_m`, :func:`min_eps`, :func:`value_at`), besides a number
LAM_RULES = ("optimise", "paper")


@dataclass
class Pick:
    """Result of a pick: the chosen ε and λ and the bound there."""

    key: str
    m: float
    eps: float
    lam: float | None
    bound: float
    method: str
    bound_stated: float | None = None
    paper_bound: float | None = None
    improvement: float | None = None
    constants: dict[str, float] = field(default_factory=dict)
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _where(st: Statement) -> str:
    return f"statement {st.key} ({st.label})"


def pickable(key: str) -> Statement:
    """The pre-schedule bound statement behind ``key``.

    Raises
    ------
    ValueError
        If ``key`` is unknown (with close matches) or neither it nor any of its dependencies
        carries a schedule.

    Examples
    --------
    >>> pickable("jia.thm4").key
    'jia.thm4.bound'
    >>> pickable("jia.thm44")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bounds.validation.UnknownKeyError: unknown statement 'jia.thm44'; did you mean jia.thm4, ...?
    """
    st = _reg().get(key)
    if st.schedule:
        return st
    for d in st.depends:
        ds = _reg().get(d)
        if ds.schedule:
            return ds
    raise ValueError(
        f"statement {key} ({st.label}) has no ε/λ schedule to pick from; pickable statements: "
        + ", ".join(k for k in _reg().keys() if _reg().get(k).schedule)
    )


def pickable_keys() -> list[str]:
    """Keys of all statements with a schedule."""
    return [k for k in _reg().keys() if _reg().get(k).schedule]


def _check_which(which: Any, st: Statement) -> str:
    if which not in ("derived", "stated"):
        raise ValueError(f"parameter 'which' = {short(which)} must be 'derived' or 'stated' ({_where(st)})")
    if which == "stated" and st.stated is None:
        raise ValueError(f"parameter 'which' = 'stated': {_where(st)} states no expression")
    return which


def _check_choice(st: Statement, name: str, raw: Any, warn: bool = False) -> float:
    """A given ε or λ as a float inside the statement's domain (and its assumptions on it alone)."""
    where = _where(st)
    p = st.ns[name]
    v = real(name, raw, where)
    if not math.isfinite(v):
        raise ValueError(f"parameter {name!r} = {short(raw)} is not finite ({where}; assumption "
                         f"{p.domain_text()})")
    bad = p.violation(v)
    if bad is not None:
        raise ValueError(f"parameter {name!r} = {short(raw)} violates the assumption {bad} of {where}")
    for c in st.constraints:
        if c.free_symbols == {p.symbol} and c.subs({p.symbol: v}) is sp.false:
            raise ValueError(f"parameter {name!r} = {num(v)} violates the assumption {_rel_text(c, st.ns)} "
                             f"of {where}")
    if warn and p.soft_hi is not None and v >= p.soft_hi:
        warnings.warn(f"parameter {name!r} = {v:g}: {where} assumes {name} < {p.soft_hi:g} for meaningful "
                      "privacy", PrivacyWarning, stacklevel=3)
    return v


def _pop_choices(st: Statement, consts: dict[str, Any], warn: bool = False) -> dict[str, float]:
    """Remove ε and λ from ``consts``: the values given for them (None means not given), validated."""
    fixed = {}
    for n in CHOICE:
        raw = consts.pop(n, None)
        if raw is not None:
            fixed[n] = _check_choice(st, n, raw, warn)
    return fixed


def _lam_rule(st: Statement, lam: Any) -> str | float:
    """``lam`` of the inverse queries: ``"optimise"``, ``"paper"`` or a validated number."""
    if isinstance(lam, str):
        if lam in LAM_RULES:
            return lam
        raise ValueError(f"parameter 'lam' = {short(lam)} must be 'optimise', 'paper' or a number ({_where(st)})")
    return _check_choice(st, "lam", lam)


class _Bound:
    """A lambdified bound with its constants validated and fixed."""

    def __init__(self, st: Statement, m: float, consts: Mapping[str, float], which: str = "derived"):
        self.st = st
        ev = _reg().evaluate(st.key)
        self.expr = st.stated if which == "stated" else ev.expression
        if self.expr is None:
            raise ValueError(f"{_where(st)} has no {which} expression")
        free = {s for s in self.expr.free_symbols}
        self.choice = [n for n in CHOICE if st.ns[n].symbol in free]
        for k in consts:
            if k in ("m", *CHOICE):
                raise ValueError(f"parameter {k!r} is chosen by the pick, not a constant ({_where(st)})")
        vals = dict(consts)
        vals["m"] = m
        # validate constants + m against the statement (choices validated when given)
        probe = dict(vals)
        for n in self.choice:
            probe[n] = 0.5
        subs = validate(st, probe, self.expr, warn=False)
        self.consts = {P_name(s, st.ns): v for s, v in subs.items() if P_name(s, st.ns) not in self.choice}
        self.m = float(m)
        fixed = {st.ns[k].symbol: v for k, v in self.consts.items()}
        self.fixed_expr = self.expr.subs(fixed)
        self.vars = [st.ns[n].symbol for n in self.choice]
        self.f = sp.lambdify(self.vars, self.fixed_expr, "numpy")
        self.lam_max = 1.0 if any(_is_lam_le_1(c) for c in st.constraints) else 1e4

    def __call__(self, **kw: float) -> float:
        """The bound in floating point (inf where it is not a finite real number)."""
        args = [kw[n] for n in self.choice]
        try:
            with np.errstate(all="ignore"):
                r = self.f(*args)
            if np.iscomplexobj(r):
                if np.imag(r) != 0:
                    return math.inf
                r = np.real(r)
            v = float(r)
        except (ArithmeticError, TypeError, ValueError):   # a Python-float 1/0 or an overflowing power
            return math.inf
        return v if math.isfinite(v) else math.inf

    def value_or_reason(self, point: Mapping[str, float]) -> tuple[float | None, str]:
        """``(bound, "")`` at ``point`` when it is a positive float, else ``(None, why not)``.

        Floating-point evaluation first; where it fails (an intermediate product under- or
        overflows although the bound does not) the bound is evaluated exactly.
        """
        v = self(**point)
        if math.isfinite(v) and v > 0:
            return v, ""
        x, why = number_or_reason(self.fixed_expr.subs({self.st.ns[n].symbol: float(point[n]) for n in self.choice}),
                                  underflow_is_error=True)
        if x is None:
            return None, why
        if x <= 0:
            return None, f"{'zero' if x == 0 else 'negative'} ({num(x)}), impossible for a bound on a risk"
        return x, ""

    def checked(self, point: Mapping[str, float], inputs: Mapping[str, float]) -> float:
        """The bound at ``point`` as a positive finite float, else a ValueError naming the input that causes it."""
        v, why = self.value_or_reason(point)
        if v is not None:
            return v
        raise self.error(why, point, inputs)

    def error(self, why: str, point: Mapping[str, float], inputs: Mapping[str, float]) -> ValueError:
        """The error for a bound that is not a positive float at ``point``, naming the likely culprit."""
        if not _DIAGNOSE.get():
            return ValueError(f"the bound of {_where(self.st)} is {why}")
        ns = self.st.ns
        chosen = {n: float(v) for n, v in point.items() if n not in inputs}
        given = {n: float(v) for n, v in inputs.items()}

        def ok_at(vals: dict[str, float]) -> bool:
            x, _ = number_or_reason(self.expr.subs({ns[k].symbol: v for k, v in {**chosen, **vals}.items()}),
                                    underflow_is_error=True)
            return x is not None and x > 0

        bad = culprits(ok_at, given, lambda n: moderate_value(ns[n]))
        names = ", ".join(f"{b!r} = {num(given[b])}" for b in bad)
        at = fmt_point({**given, **chosen})
        return ValueError(f"the bound of {_where(self.st)} is {why} at {at}; check parameter"
                          f"{'s' if len(bad) > 1 else ''} {names}")


_BOUNDS: dict[tuple, _Bound] = {}


def _bound(st: Statement, m: float, consts: Mapping[str, float], which: str = "derived") -> _Bound:
    """A :class:`_Bound`, reused for the same statement, registry, m, constants and expression.

    Building one substitutes the constants and lambdifies (a few ms); the inverse queries
    (:func:`min_eps`, :func:`min_m`) ask for the same one hundreds of times.
    """
    where = _where(st)
    real("m", m, where)                     # a string or a bool must not hit a cached number
    for k, v in consts.items():
        real(k, v, where)
    reg = _reg()
    key = (id(reg), st.key, which, float(m), tuple(sorted((k, float(v)) for k, v in consts.items())))
    b = _BOUNDS.get(key)
    if b is None or b.st is not st:
        if len(_BOUNDS) > 512:
            _BOUNDS.clear()
        b = _BOUNDS[key] = _Bound(st, m, consts, which)
    return b


def P_name(s: sp.Symbol, ns: Namespace = SHARED) -> str:  # noqa: N802
    """The parameter name of a sympy symbol in a namespace (the symbol's name if it has no parameter)."""
    return ns.by_symbol(s).name if ns.has_symbol(s) else str(s)


def _is_lam_le_1(c: Any) -> bool:
    return isinstance(c, (sp.LessThan, sp.StrictLessThan)) and c.lhs == S.lam and c.rhs == 1


def _schedule_values(st: Statement, m: float, consts: Mapping[str, float], eps: float | None = None,
                     lam: float | None = None) -> dict[str, float]:
    """Evaluate the paper's schedules at the validated inputs; ε may depend on λ or λ on ε.

    A given ``eps`` or ``lam`` replaces the schedule of that variable.
    """
    given = {n: float(v) for n, v in (("eps", eps), ("lam", lam)) if v is not None}
    known: dict[sp.Symbol, float] = {S.m: float(m)}
    for k, v in consts.items():
        if k in st.ns:
            known[st.ns[k].symbol] = float(v)
    for n, v in given.items():
        known[st.ns[n].symbol] = v
    todo = {n: _reg().derived(key) for n, key in st.schedule.items() if n not in given}
    out: dict[str, float] = {}
    for _ in range(4):
        for n, expr in list(todo.items()):
            need = expr.free_symbols
            if need <= set(known):
                e = expr.subs(known)
                try:
                    val = float(e)
                except (TypeError, ValueError, OverflowError):
                    val = math.nan
                bad = st.ns[n].violation(val)
                if bad is not None:
                    x, why = number_or_reason(e, underflow_is_error=True)
                    what = f"{n} = {num(val)}, violating {bad}" if x is not None else f"{n} {why}"
                    if x is not None and val == 0 and e != 0:
                        what += " (underflow)"
                    point = {"m": m, **{k: v for k, v in consts.items() if k in st.ns}, **given}
                    raise ValueError(f"the paper's schedule of {_where(st)} gives {what} at {fmt_point(point)}")
                out[n] = val
                known[st.ns[n].symbol] = val
                del todo[n]
    if todo:
        missing = sorted(
            {P_name(s, st.ns) for e in todo.values() for s in e.free_symbols} - {P_name(s, st.ns) for s in known} - set(todo)
        )
        raise ValueError(f"schedule of {st.key} ({st.label}) needs parameter(s) {', '.join(missing)}")
    out.update(given)
    return out


def paper_schedule(key: str, m: float, which: str = "derived", **consts: float) -> Pick:
    """The paper's own ε and λ at sample size ``m`` and the bound they give.

    Parameters
    ----------
    key : str
        A pickable statement or a rate statement built on one.
    m : float
        Sample size (the statement's domain: an integer ≥ 2).
    which : {"derived", "stated"}
        Bound expression to evaluate (see :meth:`bounds.core.Registry.value`).
    **consts
        Problem constants (κ, M, β, ...).  For schedules that leave ε free
        (001 Theorem 2), pass ``eps``; a given ``eps`` or ``lam`` replaces the
        paper's schedule of that variable (the other one follows the schedule).

    Returns
    -------
    Pick

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions, a variable the schedule leaves
        free and no value is given for, or a bound that is not a positive finite float there.

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> p = paper_schedule("jia.thm4", 10_000, lam=0.04, **c)     # ε = 1/√(λm) at the given λ
    >>> round(p.eps, 4), p.lam
    (0.05, 0.04)
    >>> paper_schedule("jia.thm4", 0, **c)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'm' = 0 violates the assumption m >= 2 of statement jia.thm4.bound (Theorem 4)
    """
    st = pickable(key)
    _check_which(which, st)
    consts = dict(consts)
    fixed = _pop_choices(st, consts, warn=True)
    return _paper_schedule(st, m, which, consts, fixed)


def _paper_schedule(st: Statement, m: float, which: str, consts: dict[str, Any], fixed: dict[str, float]) -> Pick:
    bnd = _bound(st, m, consts, which)
    _check_fixed(st, bnd, fixed)
    sched = _schedule_values(st, m, consts, **fixed)
    missing = [n for n in bnd.choice if n not in sched]
    if missing:
        raise ValueError(f"the paper's schedule of {_where(st)} leaves {', '.join(missing)} free; give "
                         + ", ".join(f"parameter {n!r}" for n in missing))
    point = {n: sched[n] for n in bnd.choice}
    value = bnd.checked(point, {**bnd.consts, **fixed})
    stated = None
    note = ""
    if which == "derived":
        try:
            sb = _bound(st, m, consts, "stated")
        except ValueError:
            sb = None
        if sb is not None:
            stated, why = sb.value_or_reason(point)
            if stated is None:
                note = f"the paper's stated bound is {why} at this point"
    return Pick(
        st.key, float(m), point.get("eps", float("nan")), point.get("lam"), value, "paper", bound_stated=stated,
        constants=bnd.consts, note=note,
    )


def _check_fixed(st: Statement, bnd: _Bound, fixed: Mapping[str, float]) -> None:
    for n in fixed:
        if n not in bnd.choice:
            raise ValueError(f"parameter {n!r} is given, but the bound of {_where(st)} does not depend on {n}")


def optimise(
    key: str,
    m: float,
    over: tuple[str, ...] | None = None,
    which: str = "derived",
    **consts: float,
) -> Pick:
    """Minimise the bound over ε and/or λ at sample size ``m``, the other inputs fixed.

    The search runs in log-coordinates inside the assumption domain
    (0 < ε < 1, 0 < λ ≤ 1 when the statement assumes it) with L-BFGS-B from a
    grid of starts that includes the paper's schedule, so the result is never
    worse than the paper's choice.  The improvement factor is
    (bound at the paper's schedule) / (optimised bound).

    Parameters
    ----------
    key : str
        A pickable statement or a rate statement built on one.
    m : float
        Sample size.
    over : str or tuple of str, optional
        The variables to optimise (default: every one the bound depends on and that is not given).
    which : {"derived", "stated"}
        Bound expression to minimise.
    **consts
        Problem constants; ``eps`` or ``lam`` fixes that variable (the other is optimised).

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions, ``over`` naming a variable that is
        unknown, absent from the bound or given, or a bound that is not finite anywhere.

    Examples
    --------
    >>> from bounds.pick import optimise
    >>> c = dict(M=1, kappa=1, r=0.5, fnorm=1)
    >>> optimise("jamp.thm3", m=10_000, **c).improvement >= 1
    True
    >>> optimise("jamp.thm3", m=10_000, lam=0.01, **c).lam      # λ given: ε is optimised
    0.01
    """
    st = pickable(key)
    _check_which(which, st)
    consts = dict(consts)
    fixed = _pop_choices(st, consts, warn=True)
    return _optimise(st, m, over, which, consts, fixed)


def _over(over: Any, st: Statement, choice: list[str], fixed: Mapping[str, float]) -> tuple[str, ...]:
    where = _where(st)
    if over is None or (isinstance(over, (str, tuple, list)) and len(over) == 0):
        return tuple(n for n in choice if n not in fixed)
    if isinstance(over, str):
        names: tuple[Any, ...] = (over,)
    else:
        try:
            names = tuple(over)
        except TypeError:
            raise ValueError(f"parameter 'over' = {short(over)} must be a name or a tuple of names from "
                             f"{', '.join(CHOICE)} ({where})") from None
    for n in names:
        if n not in CHOICE:
            raise ValueError(f"parameter 'over': cannot optimise over {short(n)}; choose from {', '.join(CHOICE)} "
                             f"({where})")
        if n not in choice:
            raise ValueError(f"parameter 'over': the bound of {where} does not depend on {n}")
        if n in fixed:
            raise ValueError(f"parameter 'over' names {n}, but {n} = {num(fixed[n])} is given ({where})")
    return tuple(dict.fromkeys(names))


def _optimise(st: Statement, m: float, over: Any, which: str, consts: dict[str, Any],
              fixed_given: dict[str, float]) -> Pick:
    bnd0 = _bound(st, m, consts, which)
    _check_fixed(st, bnd0, fixed_given)
    over = _over(over, st, bnd0.choice, fixed_given)
    paper_error: ValueError | None = None
    try:
        paper = _paper_schedule(st, m, which, consts, fixed_given)
        start: dict[str, Any] = {"eps": paper.eps, "lam": paper.lam}
    except ValueError as exc:
        paper, paper_error = None, exc
        start = {"eps": 0.5, "lam": 0.1}
    start.update(fixed_given)
    free = [n for n in bnd0.choice if n in over]
    for n in bnd0.choice:
        if n not in free and n not in fixed_given and paper is None:
            raise ValueError(f"parameter {n!r} is neither optimised nor given, and the paper's schedule does not "
                             f"set it: {paper_error}")
    fixed = {n: start[n] for n in bnd0.choice if n not in over}
    lo = {"eps": math.log(1e-9), "lam": math.log(1e-12)}
    hi = {"eps": math.log(_EPS_MAX * (1 - 1e-9)), "lam": math.log(bnd0.lam_max)}

    def obj(x: np.ndarray) -> float:
        kw = dict(fixed)
        kw.update({n: math.exp(v) for n, v in zip(free, x, strict=True)})
        v = bnd0(**kw)
        return math.log(v) if v > 0 else math.inf

    best_x = None
    best = math.inf
    starts = []
    if free:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)     # finite differences next to an infinite region
            grids = [np.linspace(lo[n] + 1, hi[n] - 1e-6, 7) for n in free]
            mesh = np.meshgrid(*grids, indexing="ij")
            starts = [np.array(p) for p in zip(*[g.ravel() for g in mesh], strict=True)]
            if all(start.get(n) for n in free):
                starts.insert(0, np.array([math.log(min(max(start[n], 1e-12), math.exp(hi[n]))) for n in free]))
            starts.sort(key=obj)
            for x0 in starts[:6]:
                res = optimize.minimize(obj, x0, method="L-BFGS-B", bounds=[(lo[n], hi[n]) for n in free])
                if res.fun < best:
                    best, best_x = float(res.fun), res.x
    point = dict(fixed)
    if best_x is not None:
        point.update({n: math.exp(v) for n, v in zip(free, best_x, strict=True)})
        value = bnd0(**point)
    elif free:                                  # the bound is infinite at every start
        point.update({n: start[n] if start.get(n) else math.exp(hi[n] - 1) for n in free})
        value = math.inf
    else:
        value = bnd0(**point)
    note = ""
    if paper is not None and paper.bound <= value:
        point = {n: getattr(paper, n) for n in bnd0.choice}
        value = paper.bound
        note = "the paper's schedule is already optimal within the search"
    inputs = {**bnd0.consts, **fixed_given}
    if best_x is None and free and paper is None:
        _, why = bnd0.value_or_reason(point)
        raise bnd0.error(f"{why or 'not finite'} everywhere in the search over {', '.join(free)}", point, inputs)
    value = bnd0.checked(point, inputs)
    improvement = None
    if paper is not None:
        ratio = paper.bound / value
        if math.isfinite(ratio):
            improvement = ratio
        else:
            note = (note + "; " if note else "") + "the improvement factor exceeds the floating-point range"
    return Pick(
        st.key,
        float(m),
        point.get("eps", float("nan")),
        point.get("lam"),
        value,
        "optimised over " + ",".join(free) if free else "nothing to optimise",
        paper_bound=paper.bound if paper else None,
        improvement=improvement,
        constants=bnd0.consts,
        note=note,
    )


def min_m(key: str, target: float, eps: float, lam: str | float = "optimise", m_max: float = 1e12, **consts: float) -> int:
    """Smallest sample size m whose bound reaches ``target`` at privacy level ``eps``.

    λ is optimised for every m (``lam="optimise"``), taken from the paper's
    schedule (``lam="paper"``) or fixed (a number).  The bound is decreasing
    in m for every statement of the seed papers; the result is checked at m
    and m − 1.

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions (``eps`` > 0, λ in its domain, a
        positive finite ``target``, ``m_max`` ≥ 2), or if the target is not reached below ``m_max``.

    Examples
    --------
    >>> from bounds.pick import min_m, value_at
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> n = min_m("jia.thm4", 3.0, eps=0.5, **c)
    >>> value_at("jia.thm4", n, eps=0.5, **c) <= 3.0 < value_at("jia.thm4", n - 1, eps=0.5, **c)
    True
    >>> min_m("jia.thm4", 3.0, eps=-1, **c)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'eps' = -1 violates the assumption eps > 0 of statement jia.thm4.bound (Theorem 4)
    """
    st = pickable(key)
    where = _where(st)
    target = positive_finite("target", target, where)
    limit = real("m_max", m_max, where)
    if not (math.isfinite(limit) and limit >= 2):
        raise ValueError(f"parameter 'm_max' = {short(m_max)} must be a finite number ≥ 2 ({where})")
    eps_v = _check_choice(st, "eps", eps, warn=True)
    lam_v = _lam_rule(st, lam)
    consts = dict(consts)
    _check_fixed(st, _bound(st, 2, consts), {"eps": eps_v, **({"lam": lam_v} if isinstance(lam_v, float) else {})})

    def g(mm: float) -> float:
        return _value_at(st, mm, eps_v, lam_v, consts, strict=False)

    lo_m, hi_m = 2, 2
    while g(hi_m) > target:
        lo_m = hi_m
        hi_m *= 2
        if hi_m > limit:
            if math.isinf(g(lo_m)):     # not a number at all: say why, naming the input (an overflow, ...)
                _value_at(st, lo_m, eps_v, lam_v, consts, strict=True)
            raise ValueError(f"parameter 'target' = {target:g} is not reached for m ≤ {limit:g} at eps = {eps_v:g}"
                             f" ({where})")
    if g(lo_m) <= target:
        return lo_m
    while hi_m - lo_m > 1:
        mid = (lo_m + hi_m) // 2
        if g(mid) <= target:
            hi_m = mid
        else:
            lo_m = mid
    return int(hi_m)


def value_at(key: str, m: float, eps: float, lam: str | float = "optimise", **consts: float) -> float:
    """The bound at (m, ε) with λ optimised, from the paper's schedule, or fixed.

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions, or a bound that is not a positive
        finite float there.

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> round(value_at("jia.thm4", 10_000, 0.1, lam=0.01, **c), 4)
    0.3658
    >>> value_at("jia.thm4", 10_000, 0.1, lam=-1, **c)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'lam' = -1 violates the assumption lam > 0 of statement jia.thm4.bound (Theorem 4)
    """
    st = pickable(key)
    eps_v = _check_choice(st, "eps", eps, warn=True)
    lam_v = _lam_rule(st, lam)
    consts = dict(consts)
    _check_fixed(st, _bound(st, m, consts), {"eps": eps_v, **({"lam": lam_v} if isinstance(lam_v, float) else {})})
    return _value_at(st, m, eps_v, lam_v, consts, strict=True)


def _value_at(st: Statement, m: float, eps: float, lam: str | float, consts: dict[str, Any], strict: bool) -> float:
    """The bound at (m, ε) for validated inputs; with ``strict=False`` inf where it is not a positive float."""
    token = _DIAGNOSE.set(strict)
    try:
        if lam == "optimise":
            return _optimise(st, m, None, "derived", consts, {"eps": eps}).bound
        b = _bound(st, m, consts)
        if lam == "paper":
            lam_v = _schedule_values(st, m, consts, eps=eps).get("lam")
            if lam_v is None and "lam" in b.choice:
                raise ValueError(f"the paper's schedule of {_where(st)} does not set lam; give parameter 'lam'")
        else:
            lam_v = float(lam)
        kw = {"eps": eps, "lam": lam_v}
        point = {n: kw[n] for n in b.choice}
        if strict:
            given = {"eps": eps, **({"lam": lam_v} if lam != "paper" else {})}
            return b.checked(point, {**b.consts, **{n: v for n, v in given.items() if n in b.choice}})
        v, _ = b.value_or_reason(point)
        return math.inf if v is None else v
    except ValueError:
        if strict:
            raise
        return math.inf
    finally:
        _DIAGNOSE.reset(token)


def bound_grid(key: str, m: float, eps: np.ndarray, lam: np.ndarray, which: str = "derived",
               **consts: float) -> np.ndarray:
    """The bound on the grid ε × λ at fixed m (vectorised; for heat maps).

    Parameters
    ----------
    key : str
        A pickable statement (or a rate statement with a pickable dependency).
    m : float
        Sample size.
    eps, lam : array
        Grid values of ε and λ, each inside the statement's domain.
    which : {"derived", "stated"}
        Which expression to evaluate.
    **consts
        The bound's other constants.

    Returns
    -------
    array, shape (len(lam), len(eps))
        Entry [i, j] is the bound at λ = lam[i], ε = eps[j] (inf where it overflows).

    Raises
    ------
    ValueError
        For a grid value or an input outside the statement's assumptions.

    Examples
    --------
    >>> import numpy as np
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> g = bound_grid("jia.thm4", 1e4, np.array([0.1]), np.array([0.01]), **c)
    >>> round(float(g[0, 0]), 4) == round(value_at("jia.thm4", 1e4, 0.1, 0.01, **c), 4)
    True
    """
    st = pickable(key)
    _check_which(which, st)
    b = _bound(st, m, consts, which=which)
    E, L = np.meshgrid(_grid(st, "eps", eps), _grid(st, "lam", lam))
    kw = {"eps": E, "lam": L}
    with np.errstate(all="ignore"):
        v = np.asarray(b.f(*[kw[n] for n in b.choice]), dtype=float) * np.ones_like(E)
    v[~np.isfinite(v)] = np.inf
    return v


def _grid(st: Statement, name: str, values: Any) -> np.ndarray:
    """Grid values of ε or λ as a float array, each validated against the statement's domain."""
    a = np.asarray(values)
    if a.dtype.kind not in "iuf":
        raise ValueError(f"parameter {name!r} must be an array of real numbers, not {a.dtype} ({_where(st)})")
    a = a.astype(float)
    for v in np.unique(a):
        _check_choice(st, name, float(v))
    return a


def min_eps(key: str, target: float, m: float, lam: str | float = "optimise", **consts: float) -> float:
    """Smallest ε in (0, 1) whose bound at sample size ``m`` reaches ``target``.

    The bounds are not monotone in ε (privacy cost grows with ε, noise shrinks),
    so a log grid of 200 values in [1e-6, 1) finds the first ε that reaches
    the target and bisection refines it to a relative 1e-6.

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions, or if no ε < 1 reaches the target.

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> e = min_eps("jia.thm4", 0.6, m=100_000, lam=0.01, **c)
    >>> value_at("jia.thm4", 100_000, e, lam=0.01, **c) <= 0.6 < value_at("jia.thm4", 100_000, e * 0.999, lam=0.01, **c)
    True
    """
    st = pickable(key)
    where = _where(st)
    target = positive_finite("target", target, where)
    lam_v = _lam_rule(st, lam)
    consts = dict(consts)
    _check_fixed(st, _bound(st, m, consts), {"lam": lam_v} if isinstance(lam_v, float) else {})
    grid = np.geomspace(1e-6, 1 - 1e-9, 200)
    vals = [_value_at(st, m, float(e), lam_v, consts, strict=False) for e in grid]
    ok = [i for i, v in enumerate(vals) if v <= target]
    if not ok:
        best = min(vals)
        if math.isinf(best):            # not a number anywhere: say why, naming the input
            _value_at(st, m, float(grid[-1]), lam_v, consts, strict=True)
        best_text = f"best {best:.4g}" if math.isfinite(best) else "the bound is not finite for any eps"
        raise ValueError(
            f"parameter 'target' = {target:g} is not reached by any eps < 1 at m = {float(m):g} ({best_text}; {where})"
        )
    i = ok[0]
    if i == 0:
        return float(grid[0])
    a, b = float(grid[i - 1]), float(grid[i])
    while b / a > 1 + 1e-6:
        mid = math.sqrt(a * b)
        if _value_at(st, m, mid, lam_v, consts, strict=False) <= target:
            b = mid
        else:
            a = mid
    return b
