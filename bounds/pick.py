"""Picking ε and λ from a bound: the paper's schedule, an optimised choice, inverse queries.

A *pickable* statement is a bound written before the paper substitutes its
schedule (``jia.thm4.bound``, ``jamp.thm3.bound``, ...); its ``schedule``
field names the schedule statements.  A rate statement (``jia.thm4``) may be
given instead: its pickable dependency is used.

All numbers use the expression the registry recommends for numeric use (the
derived one for an erratum), unless ``which="stated"``.

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
"""

from __future__ import annotations

import contextlib
import contextvars
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import sympy as sp
from scipy import optimize

from .core import Statement, validate
from .symbols import SHARED, Namespace, S

_ACTIVE: contextvars.ContextVar[Any] = contextvars.ContextVar("bounds_pick_registry", default=None)


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

    Examples
    --------
    >>> import bounds
    >>> from bounds.pick import using, pickable
    >>> with using(bounds.registry):
    ...     pickable("jia.thm4").key
    'jia.thm4.bound'
    """
    token = _ACTIVE.set(registry)
    try:
        yield registry
    finally:
        _ACTIVE.reset(token)


#: variables a picker may choose
CHOICE = ("eps", "lam")
_EPS_MAX = 1.0  # the papers assume ε < 1 (meaningful privacy)


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


def pickable(key: str) -> Statement:
    """The pre-schedule bound statement behind ``key``.

    Raises
    ------
    ValueError
        If neither ``key`` nor any of its dependencies carries a schedule.
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


class _Bound:
    """A lambdified bound with its constants validated and fixed."""

    def __init__(self, st: Statement, m: float, consts: Mapping[str, float], which: str = "derived"):
        self.st = st
        ev = _reg().evaluate(st.key)
        self.expr = st.stated if which == "stated" else ev.expression
        free = {s for s in self.expr.free_symbols}
        self.choice = [n for n in CHOICE if st.ns[n].symbol in free]
        given = {k: v for k, v in consts.items() if k not in ("m", *CHOICE)}
        vals = dict(given)
        vals["m"] = m
        # validate constants + m against the statement (choices validated when evaluated)
        probe = dict(vals)
        for n in self.choice:
            probe[n] = 0.5
        subs = validate(st, probe, self.expr)
        self.consts = {P_name(s, st.ns): v for s, v in subs.items() if P_name(s, st.ns) not in self.choice}
        self.m = float(m)
        fixed = {st.ns[k].symbol: v for k, v in self.consts.items()}
        e = self.expr.subs(fixed)
        self.vars = [st.ns[n].symbol for n in self.choice]
        self.f = sp.lambdify(self.vars, e, "numpy")
        self.lam_max = 1.0 if any(_is_lam_le_1(c) for c in st.constraints) else 1e4

    def __call__(self, **kw: float) -> float:
        args = [kw[n] for n in self.choice]
        with np.errstate(all="ignore"):
            v = float(self.f(*args))
        return v if math.isfinite(v) else math.inf


_BOUNDS: dict[tuple, _Bound] = {}


def _bound(st: Statement, m: float, consts: Mapping[str, float], which: str = "derived") -> _Bound:
    """A :class:`_Bound`, reused for the same statement, registry, m, constants and expression.

    Building one substitutes the constants and lambdifies (a few ms); the inverse queries
    (:func:`min_eps`, :func:`min_m`) ask for the same one hundreds of times.
    """
    reg = _reg()
    try:
        key = (id(reg), st.key, which, float(m), tuple(sorted((k, float(v)) for k, v in consts.items())))
    except (TypeError, ValueError):
        return _Bound(st, m, consts, which)            # let _Bound name the bad value
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


def _schedule_values(st: Statement, m: float, consts: Mapping[str, float], eps: float | None = None) -> dict[str, float]:
    """Evaluate the paper's schedules; ε may depend on λ or λ on ε."""
    known: dict[sp.Symbol, float] = {S.m: float(m)}
    for k, v in consts.items():
        if k in st.ns:
            known[st.ns[k].symbol] = float(v)
    if eps is not None:
        known[S.eps] = float(eps)
    todo = {n: _reg().derived(key) for n, key in st.schedule.items() if not (n == "eps" and eps is not None)}
    out: dict[str, float] = {}
    for _ in range(4):
        for n, expr in list(todo.items()):
            need = expr.free_symbols
            if need <= set(known):
                val = float(expr.subs(known))
                out[n] = val
                known[st.ns[n].symbol] = val
                del todo[n]
    if todo:
        missing = sorted(
            {P_name(s, st.ns) for e in todo.values() for s in e.free_symbols} - {P_name(s, st.ns) for s in known} - set(todo)
        )
        raise ValueError(f"schedule of {st.key} ({st.label}) needs parameter(s) {', '.join(missing)}")
    if eps is not None:
        out["eps"] = float(eps)
    return out


def paper_schedule(key: str, m: float, which: str = "derived", **consts: float) -> Pick:
    """The paper's own ε and λ at sample size ``m`` and the bound they give.

    Parameters
    ----------
    key : str
        A pickable statement or a rate statement built on one.
    m : float
        Sample size.
    which : {"derived", "stated"}
        Bound expression to evaluate (see :meth:`bounds.core.Registry.value`).
    **consts
        Problem constants (κ, M, β, ...).  For schedules that leave ε free
        (001 Theorem 2), pass ``eps``.

    Returns
    -------
    Pick
    """
    st = pickable(key)
    eps_given = consts.pop("eps", None)
    sched = _schedule_values(st, m, consts, eps_given)
    bnd = _bound(st, m, consts, which)
    point = {n: sched[n] for n in bnd.choice}
    for n, v in point.items():
        bad = st.ns[n].violation(v)
        if bad:
            raise ValueError(f"the paper's schedule gives {n} = {v:g}, violating {bad} of {st.key} ({st.label})")
    value = bnd(**point)
    stated = None
    if which == "derived":
        try:
            stated = _bound(st, m, consts, "stated")(**point)
        except ValueError:
            stated = None
    return Pick(
        st.key, float(m), point.get("eps", float("nan")), point.get("lam"), value, "paper", bound_stated=stated,
        constants=bnd.consts,
    )


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

    Examples
    --------
    >>> from bounds.pick import optimise
    >>> c = dict(M=1, kappa=1, r=0.5, fnorm=1)
    >>> optimise("jamp.thm3", m=10_000, **c).improvement >= 1
    True
    """
    st = pickable(key)
    fixed_eps = consts.get("eps")
    bnd0 = _bound(st, m, {k: v for k, v in consts.items() if k != "eps"}, which)
    over = tuple(over) if over else tuple(bnd0.choice)
    for n in over:
        if n not in CHOICE:
            raise ValueError(f"cannot optimise over {n!r}; choose from {', '.join(CHOICE)}")
    if fixed_eps is not None:
        over = tuple(n for n in over if n != "eps")
    try:
        paper = paper_schedule(key, m, which=which, **dict(consts))
        start = {"eps": paper.eps, "lam": paper.lam}
    except ValueError:
        paper = None
        start = {"eps": 0.5 if fixed_eps is None else fixed_eps, "lam": 0.1}
    if fixed_eps is not None:
        start["eps"] = float(fixed_eps)
    free = [n for n in bnd0.choice if n in over]
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
    note = ""
    if paper is not None and paper.bound <= value:
        point = {n: getattr(paper, n) for n in bnd0.choice}
        value = paper.bound
        note = "the paper's schedule is already optimal within the search"
    improvement = paper.bound / value if paper is not None and value > 0 else None
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
        If the target is not reached below ``m_max``.

    Examples
    --------
    >>> from bounds.pick import min_m, value_at
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> n = min_m("jia.thm4", 3.0, eps=0.5, **c)
    >>> value_at("jia.thm4", n, eps=0.5, **c) <= 3.0 < value_at("jia.thm4", n - 1, eps=0.5, **c)
    True
    """
    if not (isinstance(target, (int, float)) and target > 0 and math.isfinite(target)):
        raise ValueError(f"parameter 'target' = {target!r} must be a positive finite number (statement {key})")

    def g(mm: float) -> float:
        return value_at(key, mm, eps=eps, lam=lam, **consts)

    lo_m, hi_m = 2, 2
    while g(hi_m) > target:
        lo_m = hi_m
        hi_m *= 2
        if hi_m > m_max:
            raise ValueError(f"target {target:g} not reached for m ≤ {m_max:g} at eps = {eps:g} (statement {key})")
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
    """The bound at (m, ε) with λ optimised, from the paper's schedule, or fixed."""
    st = pickable(key)
    if lam == "optimise":
        return optimise(key, m, over=("lam",), eps=eps, **consts).bound
    if lam == "paper":
        sched = _schedule_values(st, m, consts, eps)
        lam_v = sched.get("lam")
    else:
        lam_v = float(lam)
    b = _bound(st, m, consts)
    kw = {"eps": eps, "lam": lam_v}
    return b(**{n: kw[n] for n in b.choice})


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
        Grid values of ε and λ.
    which : {"derived", "stated"}
        Which expression to evaluate.
    **consts
        The bound's other constants.

    Returns
    -------
    array, shape (len(lam), len(eps))
        Entry [i, j] is the bound at λ = lam[i], ε = eps[j] (inf where undefined).

    Examples
    --------
    >>> import numpy as np
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> g = bound_grid("jia.thm4", 1e4, np.array([0.1]), np.array([0.01]), **c)
    >>> round(float(g[0, 0]), 4) == round(value_at("jia.thm4", 1e4, 0.1, 0.01, **c), 4)
    True
    """
    b = _bound(pickable(key), m, consts, which=which)
    E, L = np.meshgrid(np.asarray(eps, dtype=float), np.asarray(lam, dtype=float))
    kw = {"eps": E, "lam": L}
    with np.errstate(all="ignore"):
        v = np.asarray(b.f(*[kw[n] for n in b.choice]), dtype=float) * np.ones_like(E)
    v[~np.isfinite(v)] = np.inf
    return v


def min_eps(key: str, target: float, m: float, lam: str | float = "optimise", **consts: float) -> float:
    """Smallest ε in (0, 1) whose bound at sample size ``m`` reaches ``target``.

    The bounds are not monotone in ε (privacy cost grows with ε, noise shrinks),
    so a log grid of 200 values in [1e-6, 1) finds the first ε that reaches
    the target and bisection refines it to a relative 1e-6.

    Raises
    ------
    ValueError
        If no ε < 1 reaches the target.
    """
    if not (isinstance(target, (int, float)) and target > 0 and math.isfinite(target)):
        raise ValueError(f"parameter 'target' = {target!r} must be a positive finite number (statement {key})")
    grid = np.geomspace(1e-6, 1 - 1e-9, 200)
    vals = [value_at(key, m, float(e), lam=lam, **consts) for e in grid]
    ok = [i for i, v in enumerate(vals) if v <= target]
    if not ok:
        raise ValueError(
            f"target {target:g} not reached by any eps < 1 at m = {m:g} (best {min(vals):.4g}; statement {key})"
        )
    i = ok[0]
    if i == 0:
        return float(grid[0])
    a, b = float(grid[i - 1]), float(grid[i])
    while b / a > 1 + 1e-6:
        mid = math.sqrt(a * b)
        if value_at(key, m, mid, lam=lam, **consts) <= target:
            b = mid
        else:
            a = mid
    return b
