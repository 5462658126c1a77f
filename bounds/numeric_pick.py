"""``python -m bounds pick`` without sympy (issue 33, item 4): the plain pick from the numeric store.

``pick KEY --m M [--eps E] [--allow-unverified] name=value ...`` substitutes the constants into the bound,
lambdifies it and runs :func:`bounds.pick._grid_minimise`; the import of sympy alone costs more than the
0.6 s goal.  This module answers the same call from a store entry (one per asked key and
``--allow-unverified``, in the store of :mod:`bounds.numeric`, same key, digest, checksum and
generation) importing neither sympy nor numpy: a port of the optimiser on plain floats, a compiled
Python function of the bound's tree, :mod:`mpmath` for the settledness checks.

What the entry holds (nothing that depends on the numbers): the tree of the form the pick uses, of the
stated form, of each schedule and each additive term (with the term's printed name), the ceiling's
tree and text, the domains and joint assumptions, the paper's regime ranges, and the texts of the
basis, note and warning lines.  It is verified when generated like every entry of the store: the call's
own values and :data:`bounds.numeric.GRID_POINTS` seeded points (the constants' sampling ranges, m on
its own), :func:`bounds.cli.main` against the numeric path, stdout, stderr and status equal byte for
byte wherever the numeric path answers, at least :data:`bounds.numeric.MIN_COMPARED` compared, else
the entry is stored *unsupported* and the statement stays on sympy.

**The settledness rule** (the port's optimiser differs from the sympy path's in the last bits of the
objective, so its answer is given only where those bits cannot change a printed character):

* every number printed is the float nearest its 256-bit value, with a bound on the rounding error of
  any float evaluation of its tree (:func:`error_bound`; the paper's schedule values' own errors carried
  into the bound at the schedule), and its text must not change under a relative perturbation of
  twice that *uncertainty* (at least :data:`bounds.numeric.EDGE_TOL`);
* the uncertainty of the optimum's location: ``F = log(bound)`` is known to ``Δ`` (a running error
  analysis of the tree at the optimum, :func:`error_bound`: a first-order bound on the error of any float
  evaluation of it, in any order of its sums and products, a number coefficient distributed over a sum,
  library functions within 1 ulp (a relative 2·2⁻⁵³), the 15 digits ``sympy.lambdify`` prints of every
  number, plus the rounding of the log).  The printed numbers' error is the same at every point, a smooth
  shift ``s`` of the objective; the rest, ``Δ_n``, is noise.  Every point the sympy path's optimiser may stop
  at lies in the sublevel set ``F ≤ F* + 2Δ_n + |Δs|`` (``|Δs|`` bounded on the box by
  :func:`_printed_shift`; its final grid step, below 1e-10, is added); the half-width of that set along
  each chosen variable, ``sqrt(2·level·(H⁻¹)_ii)`` (``H`` the Hessian of ``F`` in log coordinates, by
  256-bit central differences), plus 1e-9, around the exact minimiser (a 256-bit Newton step from the point
  found, which is itself anywhere in the set), is the uncertainty of log ε and log λ; a Hessian that is not
  positive definite declines; a variable on the search's edge needs ``F`` rising inwards (its uncertainty is
  then ``2Δ / slope``), one within 1e-6 of the edge but not on it declines;
* the whole printed text (ε, λ, the bound, the improvement factor, the dominant term and its share,
  the terms rising in ε, the ceiling line) is rendered at the optimum and at the corners of that
  uncertainty box, and must be identical at each;
* every discrete choice is decided with a margin: the search's candidates (the grid's local minima
  within 1e-12 of being taken or not are refined too, and none may end as good as the optimum, to
  1e-12, elsewhere; the optimum must be reached from a start the sympy path surely refines; ``2Δ``
  must be below that 1e-12), the comparison with the paper's schedule,
  the ceiling, the stated bound's note, the terms' ordering and the 1e-12 test of a rising term.

``pick KEY --target T --eps E ...`` (the smallest m, λ optimised at every m: a port of
:func:`bounds.pick.min_m`'s doubling and bisection) is answered from the same entry, each comparison of the
bound with the target decided only outside the bound's uncertainty (its error bound, and the λ grid's best
point unique beyond that uncertainty).

Declined (the sympy path answers, same output): ``--json``, ``--plot``, ``--plot-rate``, ``--unit``,
``--target`` with ``--m`` (the smallest ε), ``--lam``, ``--unconstrained``, ``--reports``, ``m=`` /
``eps=`` / ``lam=`` given as constants; any input the sympy path refuses or warns about; a statement with
no established form; an optimised row that is vacuous, or a paper row vacuous at every m searched (their
explanations print ``sympy.limit`` of the bound with the constants substituted; a paper row that falls
below the ceiling at a larger m along its schedule is answered, :func:`first_m`); the paper's schedule as
the optimum (the sympy path then prints the paper's point); any doubt.

Examples
--------
>>> fast_pick(["pick", "jia.thm4", "--m", "10000", "--json"]) is None     # --json: the sympy path
True
>>> x, f = _minimise(lambda p: (p[0] - 0.3) ** 2 + 1.0, [-5.0], [5.0], [])
>>> abs(x[0] - 0.3) < 1e-8, f
(True, 1.0)
"""

from __future__ import annotations

import math
import os
import re
from typing import Any

from .numeric import (
    _PLAIN_NUMBER,
    EDGE_TOL,
    GENERATORS,
    GRID_POINTS,
    MISSED,
    _decide,
    _emit,
    _judged,
    _names,
    _real,
    _tree_value,
    _Unsure,
    _violates,
    digest,
    read_entry,
    store_dir,
    write_entry,
)

#: the entry's ``which`` in the store (one per asked key and ``--allow-unverified``)
WHICH = "pick"
#: the search's stopping step in log coordinates (as :data:`bounds.pick._LOG_TOL`)
_LOG_TOL = 1e-10
#: half-width, in steps, of a refining grid, by dimension (as :data:`bounds.pick._HALF`)
_HALF = {1: 20, 2: 5}
_EPS_MAX = 1.0


# --------------------------------------------------------------------------- a tree as a Python function
def _src(t: Any, names: dict[str, str]) -> str:
    op = t[0]
    if op == "s":
        return names[t[1]]
    if op == "i":
        return repr(float(t[1])) if abs(t[1]) < 2**53 else f"float({t[1]})"
    if op == "q":
        return f"({t[1]}/{t[2]})"
    if op == "F":
        s, man, ex, _bc = t[1:]
        return repr((-1.0 if s else 1.0) * math.ldexp(man, ex))
    if op == "pi":
        return repr(math.pi)
    if op == "E":
        return repr(math.e)
    args = [_src(a, names) for a in t[1]]
    if op == "Add":
        return "(" + " + ".join(args) + ")"
    if op == "Mul":
        return "(" + "*".join(args) + ")"
    if op == "Pow":
        ex = t[1][1]
        if ex == ("q", 1, 2) or list(ex) == ["q", 1, 2]:
            return f"_sqrt({args[0]})"
        return f"_pw({args[0]}, {args[1]})"
    if op in ("Min", "Max"):
        return f"{op.lower()}({', '.join(args)})"
    if op == "Abs":
        return f"abs({args[0]})"
    if op == "factorial":
        return f"_gamma({args[0]} + 1.0)"
    return f"_{op}({args[0]})"


def _pw(a: float, b: float) -> float:
    try:
        r = a ** b
    except (ZeroDivisionError, OverflowError):
        return math.inf
    return math.nan if isinstance(r, complex) else r


def _safe(f: Any) -> Any:
    def g(x: float) -> float:
        try:
            return f(x)
        except OverflowError:
            return math.inf
        except ValueError:
            return math.nan
    return g


def _log(x: float) -> float:
    """``numpy.log`` on a float: -inf at 0 (``math.log`` raises there), NaN below."""
    return -math.inf if x == 0 else _safe(math.log)(x)


_ENV = {"_pw": _pw, "_sqrt": _safe(math.sqrt), "_log": _log, "_exp": _safe(math.exp),
        "_gamma": _safe(math.gamma), "math": math}


def compile_trees(trees: list, args: list[str], consts: dict[str, float]) -> Any:
    """A Python function of ``args`` returning the tuple of the trees' float values, the constants fixed.

    Examples
    --------
    >>> f = compile_trees([("Add", [("s", "x"), ("s", "c")])], ["x"], {"c": 2.0})
    >>> f(1.0)
    (3.0,)
    """
    names = {n: f"a{i}" for i, n in enumerate(args)}
    names.update({n: f"c{i}" for i, n in enumerate(consts)})
    body = ", ".join(_src(t, names) for t in trees)
    head = ", ".join([names[n] for n in args] + [f"{names[n]}={float(v)!r}" for n, v in consts.items()])
    env = dict(_ENV)
    exec(f"def _f({head}):\n    return ({body},)\n", env)     # noqa: S102 - trees built from the registry
    return env["_f"]


def _value(f: Any, *x: float) -> float:
    """The first value of compiled ``f`` at ``x`` (inf where it is not a finite float)."""
    try:
        v = f(*x)[0]
    except (ArithmeticError, ValueError, TypeError):
        return math.inf
    return v if isinstance(v, float) and math.isfinite(v) else math.inf


# --------------------------------------------------------------------------- the optimiser (a port of bounds.pick's)
def _linspace(lo: float, hi: float, n: int) -> list[float]:
    step = (hi - lo) / (n - 1)
    out = [lo + i * step for i in range(n)]
    out[-1] = hi
    return out


def _grid_points(axes: list[list[float]]) -> list[tuple[float, ...]]:
    if len(axes) == 1:
        return [(a,) for a in axes[0]]
    return [(a, b) for a in axes[0] for b in axes[1]]


def _refine(F: Any, x: tuple, fx: float, h: list[float], lo: list[float], hi: list[float]) -> tuple[tuple, float]:
    """:func:`bounds.pick._refine` on plain floats."""
    d = len(x)
    k = _HALF.get(d, 3)
    offsets = [float(o) for o in range(-k, k + 1)]
    n = 2 * k + 1
    for _ in range(600):
        if max(h) < _LOG_TOL:
            break
        axes = [[min(max(x[i] + h[i] * o, lo[i]), hi[i]) for o in offsets] for i in range(d)]
        pts = _grid_points(axes)
        vals = [F(p) for p in pts]
        j = min(range(len(vals)), key=vals.__getitem__)
        edge = False
        if vals[j] < fx:
            idx = (j,) if d == 1 else (j // n, j % n)
            x, fx = pts[j], vals[j]
            edge = any(idx[i] in (0, 2 * k) and lo[i] < x[i] < hi[i] for i in range(d))
        if not edge:
            h = [hh * (2.0 / k) for hh in h]
    return x, fx


#: absolute margin on F = log(bound) within which the port treats two values of the search as possibly
#: ordered otherwise on the sympy path (an answer needs the objective's own uncertainty 2Δ below it)
_MARGIN = 1e-12


def _minimise(F: Any, lo: list[float], hi: list[float], starts: list, n_local: int = 4,
              every: list | None = None) -> tuple[tuple | None, float]:
    """:func:`bounds.pick._grid_minimise` on plain floats.

    ``every`` (when given) receives ``(point, value, sure, extra)`` for each refined start: ``sure`` when the
    sympy path's search certainly refines it too (the given starts; a grid point that is a local minimum and
    among the ``n_local`` best by more than :data:`_MARGIN`), ``extra`` for a grid point it may refine although
    this search does not (a local minimum within the margin, as good as the last one taken within it).
    """
    d = len(lo)
    n0 = 401 if d == 1 else 81
    axes = [_linspace(lo[i], hi[i], n0) for i in range(d)]
    pts = _grid_points(axes)
    v = [F(p) for p in pts]
    cand, loose, strict = [], [], set()
    for j, vj in enumerate(v):
        if not math.isfinite(vj):
            continue
        if d == 1:
            nb = [v[i] for i in (j - 1, j + 1) if 0 <= i < n0]
        else:
            a, b = divmod(j, n0)
            nb = [v[(a + da) * n0 + b + db] for da in (-1, 0, 1) for db in (-1, 0, 1)
                  if (da or db) and 0 <= a + da < n0 and 0 <= b + db < n0]
        low = min(nb, default=math.inf)
        if vj <= low:
            cand.append(j)
        if vj <= low + _MARGIN:
            loose.append(j)
        if vj < low - _MARGIN:
            strict.add(j)
    cand.sort(key=v.__getitem__)
    loose.sort(key=v.__getitem__)
    taken = cand[:n_local]
    cut = v[taken[-1]] if len(cand) > n_local else math.inf       # the last candidate taken
    nxt = v[cand[n_local]] if len(cand) > n_local else math.inf
    points = [(pts[j], v[j], j in strict and v[j] < nxt - _MARGIN and
               all(v[k] > v[j] + _MARGIN for k in loose if k not in taken), False) for j in taken]
    for s in starts:
        s = tuple(min(max(float(s[i]), lo[i]), hi[i]) for i in range(d))
        points.append((s, F(s), True, False))
    if every is not None:
        points += [(pts[j], v[j], False, True) for j in loose if j not in taken and v[j] <= cut + _MARGIN]
    h0 = [(hi[i] - lo[i]) / (n0 - 1) for i in range(d)]
    best_x, best = None, math.inf
    for x0, f0, sure, extra in points:
        if not math.isfinite(f0):
            continue
        x, fx = _refine(F, x0, f0, list(h0), lo, hi)
        if every is not None:
            every.append((x, fx, sure, extra))
        if not extra and fx < best:
            best_x, best = x, fx
    return best_x, best


# --------------------------------------------------------------------------- the call
_VALUED = ("--m", "--eps", "--target")


def parse_pick(argv: list[str]) -> tuple[str, bool, dict[str, str], list[tuple[str, str]]] | None:
    """``(key, allow_unverified, {option: raw}, [(name, raw)])`` of a plain ``pick`` call, else None."""
    if len(argv) < 2 or argv[0] != "pick" or not all(isinstance(t, str) for t in argv):
        return None
    key, au, opts, assigns = None, False, {}, []
    i, rest = 0, argv[1:]
    while i < len(rest):
        t = rest[i]
        name, eq, raw = t.partition("=")
        if t.startswith("-"):
            if name in _VALUED and name not in opts:
                if not eq:
                    if i + 1 >= len(rest):
                        return None
                    i, raw = i + 1, rest[i + 1]
                if not re.fullmatch(_PLAIN_NUMBER, raw):
                    return None
                opts[name] = raw
            elif t == "--allow-unverified" and not au:
                au = True
            else:
                return None
        elif eq:
            if not (re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name) and re.fullmatch(_PLAIN_NUMBER, raw)):
                return None
            assigns.append((name, raw))
        elif key is None:
            key = t
        else:
            return None
        i += 1
    if key is None or ("--m" in opts) == ("--target" in opts) or ("--target" in opts and "--eps" not in opts):
        return None                 # a plain pick (--m), or the smallest m (--target with --eps)
    return key, au, opts, assigns


def _g(x: float, spec: str, tol: float) -> str:
    """``format(x, spec)``, unless a relative change of ``tol`` changes it or ``x`` is not finite (the sympy path
    prints a note where a ratio leaves the floating-point range) (``_Unsure``)."""
    if not (math.isfinite(x) and math.isfinite(tol)):
        raise _Unsure("a printed number that is not finite")
    out = format(x, spec)
    if format(x * (1 - tol), spec) != out or format(x * (1 + tol), spec) != out:
        raise _Unsure("at a rounding edge")
    return out


class _Doubt(_Unsure):
    """A printed character that the last bits of the objective could change."""


def answer_pick(doc: dict, opts: dict[str, str], assigns: list[tuple[str, str]]) -> tuple[int, str, str]:
    """``(status, stdout, stderr)`` of the plain pick from entry ``doc`` (``_Unsure``: the sympy path answers)."""
    if doc.get("unsupported"):
        raise _Unsure(doc["unsupported"])
    if "--target" in opts:
        return _answer_min_m(doc, opts, assigns)
    consts: dict[str, float] = {}
    for name, raw in assigns:
        if name in consts or name not in doc["asked_ns"] or name in ("m", "eps", "lam"):
            raise _Unsure("an unknown, repeated or chosen parameter")
        consts[name] = float(raw)
    m, eps = float(opts["--m"]), (float(opts["--eps"]) if "--eps" in opts else None)
    given = {**consts, "m": m, **({"eps": eps} if eps is not None else {})}
    for name, v in given.items():
        dom = doc["params"].get(name)
        if not math.isfinite(v) or dom is None or name not in doc["allowed"] or _violates(dom, v):
            raise _Unsure("a value outside the statement's assumptions")
    if eps is not None:
        if "eps" not in doc["choice"] or (doc["params"]["eps"][5] is not None and eps >= doc["params"]["eps"][5]):
            raise _Unsure("eps not chosen by this bound, or an advice limit (a warning)")
    if set(doc["free"]) - set(given) - set(doc["choice"]):
        raise _Unsure("a missing parameter")
    probe = {**{k: v for k, v in given.items() if k not in doc["choice"]}, **{n: 0.5 for n in doc["choice"]}}
    for rel in doc["constraints"]:
        if not (_decide(rel, probe) and _decide(rel, {**probe, **given})):
            raise _Unsure("a joint assumption violated")
    fixed_c = {k: v for k, v in given.items() if k in doc["free"] and k not in doc["choice"]}
    choice = doc["choice"]
    f = compile_trees([doc["expr"]], choice, fixed_c)
    tf = compile_trees([t for _, t in doc["terms"]], choice, fixed_c) if len(doc["terms"]) > 1 else None
    full = lambda pt: {**fixed_c, **pt}        # noqa: E731

    # the paper's schedule
    def paper_at(mm: float) -> tuple[dict, dict, dict, float, float]:
        """The schedule at sample size ``mm``, its values' relative error bounds, the point, the bound there and
        the bound's uncertainty (its rounding and the schedule values' errors carried into it)."""
        sched: dict[str, float] = {} if eps is None else {"eps": eps}
        known = {**{k: v for k, v in given.items() if k in doc["sched_ns"]}, "m": mm}
        todo = {n: t for n, t in doc["schedule"].items() if n not in sched}
        s_tol: dict[str, float] = {n: 0.0 for n in sched}      # relative error bound of each schedule value
        for _ in range(4):
            for n, t in list(todo.items()):
                if _names(t) <= set(known):
                    val, err = _exact(t, known)
                    s_tol[n] = err / abs(val) if val else math.inf
                    if _violates(doc["params"][n], val) or abs(val) < 1e-300:
                        raise _Unsure("the schedule outside its domain")
                    sched[n] = known[n] = val
                    del todo[n]
        if todo or any(n not in sched for n in choice):
            raise _Unsure("a schedule that leaves a variable free")
        pt = {n: sched[n] for n in choice}
        at = {**fixed_c, "m": mm}
        value, err = _exact(doc["expr"], {**at, **pt})
        if not value > 0:
            raise _Unsure("the paper's bound is not positive")
        for n in pt:                    # the sympy path evaluates the bound at its own float schedule values
            r = 2 * s_tol[n] + 2 * _U
            for k in (1 - r, 1 + r):
                moved, _ = _exact(doc["expr"], {**at, **pt, n: pt[n] * k})
                err += abs(moved - value)
        return sched, s_tol, pt, value, err

    sched, s_tol, ppt, paper, p_err = paper_at(m)
    p_tol = max(EDGE_TOL, 2 * p_err / paper)
    stated = None
    if doc["stated"] is not None and set(doc["stated_free"]) <= set(given) | {"eps", "lam"} \
            and set(consts) <= set(doc["stated_allowed"]):
        if not set(doc["stated_free"]) & {"eps", "lam"} <= set(ppt):
            raise _Unsure("a stated form choosing another variable")
        stated, st_err = _exact(doc["stated"], {**given, **ppt})
        for n in ppt:
            r = 2 * s_tol[n] + 2 * _U
            for k in (1 - r, 1 + r):
                moved, _ = _exact(doc["stated"], {**given, **ppt, n: ppt[n] * k})
                st_err += abs(moved - stated)
        if not stated > 0:
            raise _Unsure("the stated bound is not positive")

    # the optimiser, on the free variables (ε given: λ alone)
    free = [n for n in choice if not (n == "eps" and eps is not None)]
    if not free:
        raise _Unsure("nothing to optimise")
    lam_max = doc["lam_max"]
    rg = doc["regime"]
    eps_hi = min(_EPS_MAX * (1 - 1e-9), rg.get("eps", [0, math.inf])[1] * (1 - 1e-9))
    lam_hi = min(lam_max, rg.get("lam", [0, math.inf])[1])
    lo = [math.log(1e-9) if n == "eps" else math.log(1e-12) for n in free]
    hi = [math.log(eps_hi) if n == "eps" else math.log(lam_hi) for n in free]
    fixed_pt = {n: sched[n] for n in choice if n not in free}
    order = [free.index(n) if n in free else None for n in choice]

    def point_of(x: tuple) -> tuple:
        return tuple(math.exp(x[order[i]]) if order[i] is not None else fixed_pt[n] for i, n in enumerate(choice))

    cache: dict[tuple, float] = {}

    def F(x: tuple) -> float:
        r = cache.get(x)
        if r is None:
            v = _value(f, *point_of(x))
            r = cache[x] = math.log(v) if 0 < v < math.inf else math.inf
        return r

    def search(hi: list[float]) -> tuple[tuple, list[float], dict[str, float], float, float, tuple]:
        """The optimum in the box [lo, hi], its uncertainty box's half-widths, point, value, Δ and the box's
        centre."""
        start = [math.log(min(max(sched[n], 1e-12), math.exp(hi[i]))) for i, n in enumerate(free)]
        every: list = []
        best_x, best = _minimise(F, lo, hi, [start], every=every)
        if best_x is None:
            raise _Unsure("infinite everywhere")
        pt = dict(zip(choice, point_of(best_x), strict=True))
        vals = full(pt)
        value, err = _exact(doc["expr"], vals)
        delta = err / value + 2 * _U * max(1.0, abs(math.log(value)))       # F = log(bound) is known to Δ
        # the uncertainty of the optimum's location: the sympy path minimises F + s + noise (s the printed
        # numbers' shift, the same function at every point; |noise| ≤ Δ_n), so its point x̃ has
        # F(x̃) ≤ F* + 2Δ_n + |s(x*) - s(x̃)|: the sublevel set of that level, s's change bounded on its box
        noise = _running(doc["expr"], vals, _ARGS)[1] / value + 2 * _U * max(1.0, abs(math.log(value)))
        if 2 * delta >= _MARGIN:            # before the widths: a declining call costs little
            raise _Doubt("an objective too uncertain for the search's margins")
        level = 2 * noise
        for _ in range(3):
            w, centre = _widths(doc["expr"], fixed_c, choice, free, best_x, point_of, level, lo, hi)
            shift = max(_printed_shift(doc["expr"], vals, full(dict(zip(choice, point_of(c), strict=True))))
                        for c in _corners(centre, w, lo, hi))
            if 2 * noise + shift <= level:
                break
            level = 2 * noise + 2 * shift
        else:
            raise _Doubt("the printed numbers' shift of the objective not bounded on the optimum's box")
        same = [all(abs(x[i] - best_x[i]) <= 2 * w[i] + 1e-9 for i in range(len(free))) for x, *_ in every]
        for (_x, fx, _sure, _extra), here in zip(every, same, strict=True):
            if not here and fx <= best + _MARGIN:       # another optimum the sympy path may find, as good
                raise _Doubt("two optima within the search's margin")
        if not any(here and sure for (_x, _f, sure, _e), here in zip(every, same, strict=True)):
            raise _Doubt("the optimum found from a start the sympy path may not refine")
        if value * (1 - 4 * delta) <= paper <= value * (1 + 4 * delta):
            raise _Doubt("the paper's schedule as good as the optimum within the uncertainty")
        if paper < value:
            raise _Unsure("the paper's schedule is optimal within the search")
        return best_x, w, pt, value, delta, centre

    best_x, w, opt_pt, value, delta, centre = search(hi)
    # the regime edge: the sympy path then searches the whole domain and reports a better point outside
    edges = {"lam": (lam_hi, lam_max), "eps": (eps_hi, _EPS_MAX * (1 - 1e-9))}
    on_edge = False
    for i, n in enumerate(free):
        inner, outer = edges[n]
        if inner < outer * (1 - 1e-9):
            gap = centre[i] - math.log(inner * (1 - 1e-6))      # the sympy path's point: within w of the centre
            if abs(gap) <= w[i] + 1e-12:
                raise _Doubt("an optimum at the edge of the regime test")
            on_edge = on_edge or gap > 0
    outside = None
    if on_edge:
        hi_u = [math.log(_EPS_MAX * (1 - 1e-9)) if n == "eps" else math.log(lam_max) for n in free]
        ux, uw, u_pt, u_value, u_delta, u_centre = search(hi_u)
        if abs(u_value / value - (1 - 1e-9)) <= 4 * (delta + u_delta):
            raise _Doubt("the whole domain's optimum at the edge of the 1e-9 test")
        if u_value < value * (1 - 1e-9):
            outside = (ux, uw, hi_u, u_delta, u_centre)

    def outside_line(pt: dict[str, float], u_delta: float) -> str:
        v, _ = _exact(doc["expr"], full(pt))
        e_txt = "nan" if "eps" not in pt else _g(pt["eps"], ".6g", EDGE_TOL)
        l_txt = "—" if "lam" not in pt else _g(pt["lam"], ".6g", EDGE_TOL)
        return (f"  note: the optimum over the whole domain lies outside the paper's regime ({doc['regime_text']}): "
                f"eps = {e_txt}  lambda = {l_txt}  bound = {_g(v, '.6g', 8 * u_delta)}; the answer stays inside it "
                "(--unconstrained gives that point)")

    # the ceiling
    ceiling, paper_from = None, None
    if doc["ceiling"] is not None:
        cvals = {**given}
        if not set(doc["ceiling_free"]) <= set(cvals):
            raise _Unsure("a ceiling that needs more values")
        ceiling, c_err = _exact(doc["ceiling"], cvals)
        c_tol = max(EDGE_TOL, 2 * c_err / abs(ceiling)) if ceiling else math.inf
        if value >= ceiling * (1 - 1e-9):
            raise _Unsure("the optimum vacuous, or near the ceiling (its explanation searches over m)")
        if abs(paper - ceiling) <= 2 * (p_err + c_err) + 1e-12 * ceiling:
            raise _Doubt("the paper's bound at the ceiling within its uncertainty")
        if paper >= ceiling:            # the paper's row vacuous: from which m along its schedule it is not

            def g(mm: float) -> tuple[float, float]:
                for rel in doc["constraints"]:
                    if not _decide(rel, {**given, "m": float(mm), "eps": 0.5, "lam": 0.5}):
                        raise _Unsure("a joint assumption that fails at some m")
                _, _, _, v, e = paper_at(float(mm))
                return v, 2 * e / v + 4 * _U

            paper_from = first_m(g, ceiling, m)
            if paper_from is None:
                raise _Unsure("the paper's row vacuous at every m searched (the sympy path explains it)")

    def render(pt: dict[str, float], tol: float) -> list[str]:
        v, _ = _exact(doc["expr"], full(pt))
        lines = []
        for name, row, b, t, bt in (("paper", ppt, paper, None, p_tol), ("optimised", pt, v, tol, 8 * delta)):
            e_txt = "—" if "eps" not in row else _g(row["eps"], ".6g", t or max(EDGE_TOL, 2 * s_tol["eps"]))
            l_txt = "—" if "lam" not in row else _g(row["lam"], ".6g", t or max(EDGE_TOL, 2 * s_tol["lam"]))
            lines.append(f"  {name:<10} eps = {e_txt}  lambda = {l_txt}  bound = {_g(b, '.6g', bt)}")
        lines.append(f"  improvement factor (paper / optimised) = {_g(paper / v, '.4g', p_tol + 8 * delta)}")
        if outside is not None:
            lines.append(u_text)
        if stated is not None:
            d = abs(stated - paper)
            if abs(d - 1e-12 * paper) <= 2 * (st_err + p_err) + 1e-13 * paper:
                raise _Doubt("the stated bound at the edge of the 1e-12 test")
            if d > 1e-12 * paper:
                st_tol = max(EDGE_TOL, 2 * st_err / stated)
                lines.append(f"  note: the paper's printed bound gives {_g(stated, '.6g', st_tol)} at its schedule "
                             f"(its verdict: {doc['verdict_text']})")
        if ceiling is None:
            if doc["ceiling_why"]:
                lines.append(f"  ceiling: none ({doc['ceiling_why']})")
        elif paper_from is not None:
            lines.append(f"  ceiling {_g(ceiling, '.6g', c_tol)}: {doc['ceiling_why']}")
            lines.append(f"  VACUOUS (paper): {_g(paper, '.6g', p_tol)} ≥ the ceiling {_g(ceiling, '.6g', c_tol)}; "
                         f"along the paper's schedule the bound falls below it from m = {paper_from}")
            lines.append(f"  not vacuous (optimised): {_g(v, '.6g', 8 * delta)} < the ceiling "
                         f"{_g(ceiling, '.6g', c_tol)}")
        else:
            lines.append(f"  not vacuous: paper {_g(paper, '.6g', p_tol)} and optimised {_g(v, '.6g', 8 * delta)} "
                         f"< the ceiling {_g(ceiling, '.6g', c_tol)} ({doc['ceiling_why']})")
        lines += _explain(doc, tf, pt, choice, free)
        return lines

    u_text = ""
    if outside is not None:
        ux, uw, hi_u, u_delta, u_centre = outside
        u_text = outside_line(dict(zip(choice, point_of(ux), strict=True)), u_delta)
        for corner in _corners(u_centre, uw, lo, hi_u):
            if outside_line(dict(zip(choice, point_of(corner), strict=True)), u_delta) != u_text:
                raise _Doubt("a printed character changes inside the uncertainty of the whole domain's optimum")
    base = render(opt_pt, EDGE_TOL)
    for corner in _corners(centre, w, lo, hi):
        if render(dict(zip(choice, point_of(corner), strict=True)), EDGE_TOL) != base:
            raise _Doubt("a printed character changes inside the optimum's uncertainty")
    fixed_txt = f", eps = {eps:g} (given)" if eps is not None else ""
    head = [f"{doc['pick_key']} ({doc['label']}) at m = {m:g}{fixed_txt}", f"  statement {doc['line']}"]
    head += [f"  {x}" for x in (doc["note"] and f"note: {doc['note']}", doc["warning"] and f"warning: {doc['warning']}")
             if x]
    return 0, "\n".join(head + base) + "\n", doc["stderr"]


_U = 2.0 ** -53


def _exact(t: Any, vals: dict[str, float]) -> tuple[float, float]:
    """``(value, error bound)``: the float nearest the exact value of tree ``t`` at ``vals`` (256-bit
    arithmetic) and a bound on the error of any float evaluation of it (:func:`error_bound`), plus one
    rounding; ``_Unsure`` where the value is not a finite float or the 53-bit value breaks the bound."""
    try:
        exact = _real(_tree_value(t, vals, 256))
    except (ValueError, ZeroDivisionError, OverflowError, ArithmeticError, TypeError) as exc:
        raise _Unsure(str(exc)) from None
    v53, err = error_bound(t, vals)
    err += _U * abs(exact)
    if not (math.isfinite(err) and abs(v53 - exact) <= err):
        raise _Unsure("no bound on the rounding error")
    return exact, err


_PRINTED = 5e-15 + 2 * _U
"""Relative error of a number the sympy path prints: ``sympy.lambdify`` prints every Float of the substituted
bound (the constants, m and the coefficients sympy combines from them) with 15 significant digits
(``mlib_to_str`` at ``prec_to_dps(53) = 15``), half a unit in the 15th digit is at most 5e-15 of the value,
and Python parses the printed text with one more rounding."""

_ARGS = frozenset({"eps", "lam"})
"""The names the sympy path passes as floats (the lambdified function's arguments: exact inputs)."""


def error_bound(t: Any, vals: dict[str, float], args: frozenset = _ARGS) -> tuple[float, float]:
    """``(value, bound)``: the float value of tree ``t`` at ``vals`` and a first-order bound on the error of *any*
    float evaluation of it by the sympy path (sums and products in any order, a number coefficient distributed
    over a sum, library functions within 1 ulp, i.e. a relative 2·2⁻⁵³ with the result's rounding): a running
    error analysis.  Only the names in ``args`` are exact inputs: every other name and every subtree free of them
    (a coefficient sympy may combine) carries :data:`_PRINTED`, the error of the 15 digits ``sympy.lambdify``
    prints.  ``inf`` where it cannot bound it (a zero factor, gamma).

    Examples
    --------
    >>> v, e = error_bound(("Add", [("s", "x"), ("q", 1, 3)]), {"x": 1.0}, frozenset({"x"}))
    >>> v == 1.0 + 1 / 3, 0 < e < 1e-15
    (True, True)
    >>> error_bound(("s", "c"), {"c": 10.0})[1] >= 5e-14      # a constant: printed with 15 digits
    True
    """
    v, noise, printed, var, has_float, _mag = _running(t, vals, args)
    if not var and has_float:           # the whole tree one printed number
        printed = _PRINTED * abs(v)
    return v, noise + printed


def _running(t: Any, vals: dict[str, float], args: frozenset) -> tuple[float, float, float, bool, bool, float]:
    """``(value, rounding error bound, printing error bound, has an argument, has a float constant, magnitude)``.

    The rounding of the float operations (sympy's own 53-bit arithmetic on the numbers it combines has the same
    bound), and the error of the numbers the sympy path prints: sympy evaluates every subtree free of the
    arguments that holds a float constant into one Float, printed once, so :data:`_PRINTED` is carried by each
    such maximal subtree (each child of a node with an argument, or the root), not by its parts; it is the same
    at every point the sympy path evaluates (:func:`_printed_forms` bounds how it differs between two points).
    The magnitude is the tree's value with every sum taken over its terms' magnitudes (what a coefficient
    distributed over the sum multiplies)."""
    op = t[0]
    if op == "s":
        v = float(vals[t[1]])
        var = t[1] in args
        return v, 0.0, 0.0, var, not var, abs(v)
    if op == "i":
        v = float(t[1])
        return v, 0.0 if v == t[1] else _U * abs(v), 0.0, False, False, abs(v)
    if op == "q":
        v = t[1] / t[2]
        return v, _U * abs(v), 0.0, False, False, abs(v)
    if op == "F":
        v = (-1.0 if t[1] else 1.0) * math.ldexp(t[2], t[3])
        return v, 0.0, 0.0, False, True, abs(v)
    if op in ("pi", "E"):
        v = math.pi if op == "pi" else math.e
        return v, _U * v, 0.0, False, False, v
    parts = [_running(a, vals, args) for a in t[1]]
    vs = [p[0] for p in parts]
    var = any(p[3] for p in parts)
    has_float = any(p[4] for p in parts)
    mags = [p[5] for p in parts]
    k = len(vs)
    # a maximal subtree free of the arguments with a float constant: one Float, printed with 15 digits
    es = [(p[1], _PRINTED * abs(p[0]) if var and not p[3] and p[4] else p[2]) for p in parts]
    if op == "Add":
        v = math.fsum(vs)
        mag = math.fsum(mags)
        e = [sum(x[0] for x in es) + (k - 1) * _U * mag * 1.01, sum(x[1] for x in es)]
    elif op == "Mul":
        if any(x == 0 and ex == (0, 0) for x, ex in zip(vs, es, strict=True)):
            return 0.0, 0.0, 0.0, var, has_float, 0.0      # an exact zero factor: the product is 0 in any order
        if any(x == 0 for x in vs):
            return 0.0, math.inf, math.inf, var, has_float, 0.0
        v = math.prod(vs)
        # sympy distributes a number coefficient over a sum (Number*Add): then factor i's error is carried by the
        # other factors' magnitudes, each term of the sum multiplied separately
        with_args = [j for j, p in enumerate(parts) if p[3]]
        if len(with_args) == 1 and t[1][with_args[0]][0] == "Add":
            ms = [mags[j] if j == with_args[0] else abs(vs[j]) for j in range(k)]
        else:
            ms = [abs(x) for x in vs]
        mag = math.prod(ms)
        e = [sum(ex[0] * mag / mx for ex, mx in zip(es, ms, strict=True)) + (k - 1) * _U * 1.01 * mag,
             sum(ex[1] * mag / mx for ex, mx in zip(es, ms, strict=True))]
    elif op == "Pow":
        (a, b), (ea, eb) = vs, es
        if a <= 0:
            return math.nan, math.inf, math.inf, var, has_float, math.nan
        v = a ** b
        mag = abs(v)
        e = [abs(v) * (abs(b) * ea[0] / a + abs(math.log(a)) * eb[0] + 2 * _U),
             abs(v) * (abs(b) * ea[1] / a + abs(math.log(a)) * eb[1])]
    elif op == "exp":
        v = mag = math.exp(vs[0])
        e = [v * (es[0][0] + 2 * _U), v * es[0][1]]
    elif op == "log":
        if vs[0] <= 0:
            return math.nan, math.inf, math.inf, var, has_float, math.nan
        v = math.log(vs[0])
        mag = abs(v)
        e = [es[0][0] / vs[0] + 2 * _U * abs(v), es[0][1] / vs[0]]
    elif op in ("Min", "Max"):
        v = min(vs) if op == "Min" else max(vs)
        mag = abs(v)
        e = [max(x[0] for x in es), max(x[1] for x in es)]
    elif op == "Abs":
        v = mag = abs(vs[0])
        e = list(es[0])
    else:
        return math.nan, math.inf, math.inf, var, has_float, math.nan
    return v, e[0], e[1], var, has_float, mag


def _printed_forms(t: Any, vals: dict[str, float], args: frozenset = _ARGS) -> tuple[float, dict]:
    """``(value, forms)``: the first-order change of the tree's value per unit relative error of each number
    the sympy path prints (each maximal subtree free of ``args`` with a float constant, :func:`_running`), each
    counted separately on every path through a sum (a coefficient distributed over a sum may be printed once per
    term).  These errors are the same at every point the sympy path evaluates, so its objective is ``F + s``
    with ``s(x) = Σ δ_k forms_k(x) / value(x)``, ``|δ_k| ≤`` :data:`_PRINTED`: a smooth shift
    (:func:`_printed_shift`).

    Examples
    --------
    >>> v, d = _printed_forms(("Mul", [("s", "c"), ("s", "eps")]), {"c": 2.0, "eps": 3.0})
    >>> v, sorted(d.values())
    (6.0, [6.0])
    """
    count = [0]

    def go(t: Any) -> tuple[float, dict, bool, bool]:
        op = t[0]
        if op == "s":
            return float(vals[t[1]]), {}, t[1] in args, t[1] not in args
        if op in ("i", "q", "F", "pi", "E"):
            return error_bound(t, vals, args)[0], {}, False, op == "F"
        parts = [go(a) for a in t[1]]
        var = any(p[2] for p in parts)
        if var:
            for j, (vj, _, vr, fl) in enumerate(parts):
                if not vr and fl:
                    count[0] += 1
                    parts[j] = (vj, {count[0]: vj}, vr, fl)
        vs = [p[0] for p in parts]
        has_float = any(p[3] for p in parts)
        d: dict = {}
        if op == "Add":
            v = math.fsum(vs)
            for i, (_, di, _, _) in enumerate(parts):
                d.update({(key, i): c for key, c in di.items()})
        elif op == "Mul":
            if any(vi == 0 and not any(di.values()) for vi, di, _, _ in parts):
                return 0.0, {}, var, has_float          # an exact zero factor (printed exactly): the product is 0
            v = math.prod(vs)
            for i, (vi, di, _, _) in enumerate(parts):
                if di:
                    if vi == 0:
                        raise _Unsure("a zero factor")
                    r = math.prod(vs[:i] + vs[i + 1:])
                    d.update({key: c * r for key, c in di.items()})
        elif op == "Pow":
            (a, da, _, _), (b, db, _, _) = parts
            if a <= 0:
                raise _Unsure("a power of a number that is not positive")
            v = a ** b
            d.update({key: v * b * c / a for key, c in da.items()})
            d.update({key: v * math.log(a) * c for key, c in db.items()})
        elif op == "exp":
            v = math.exp(vs[0])
            d = {key: v * c for key, c in parts[0][1].items()}
        elif op == "log":
            if vs[0] <= 0:
                raise _Unsure("a log of a number that is not positive")
            v = math.log(vs[0])
            d = {key: c / vs[0] for key, c in parts[0][1].items()}
        elif op in ("Min", "Max"):
            i = (min if op == "Min" else max)(range(len(vs)), key=vs.__getitem__)
            v, d = vs[i], dict(parts[i][1])
        elif op == "Abs":
            v = abs(vs[0])
            d = {key: math.copysign(1.0, vs[0]) * c for key, c in parts[0][1].items()}
        else:
            raise _Unsure("an operation without printed forms")
        return v, d, var, has_float

    v, d, var, has_float = go(t)
    if not var and has_float:
        d = {0: v}
    return v, d


def _printed_shift(t: Any, a: dict[str, float], b: dict[str, float]) -> float:
    """A bound on ``|s(a) - s(b)|``, the printed numbers' shift of ``F = log(bound)`` between points ``a`` and
    ``b`` (:func:`_printed_forms`): ``Σ_k |forms_k(a)/value(a) - forms_k(b)/value(b)|`` times :data:`_PRINTED`."""
    va, da = _printed_forms(t, a)
    vb, db = _printed_forms(t, b)
    if not (va > 0 and vb > 0):
        raise _Unsure("a bound that is not positive")
    return _PRINTED * math.fsum(abs(da.get(k, 0.0) / va - db.get(k, 0.0) / vb) for k in da.keys() | db.keys())


def _answer_min_m(doc: dict, opts: dict[str, str], assigns: list[tuple[str, str]]) -> tuple[int, str, str]:
    """``pick KEY --target T --eps E``: :func:`bounds.pick.min_m` with λ optimised at every m (its doubling and
    bisection over m, each comparison with the target decided with a margin of the bound's uncertainty)."""
    consts: dict[str, float] = {}
    for name, raw in assigns:
        if name in consts or name not in doc["asked_ns"] or name in ("m", "eps", "lam"):
            raise _Unsure("an unknown, repeated or chosen parameter")
        consts[name] = float(raw)
    target, eps = float(opts["--target"]), float(opts["--eps"])
    if not (math.isfinite(target) and target > 0) or doc["choice"] != ["eps", "lam"]:
        raise _Unsure("a target that is not a positive number, or a bound not of eps and lambda")
    given = {**consts, "eps": eps}
    for name, v in given.items():
        dom = doc["params"].get(name)
        if not math.isfinite(v) or dom is None or name not in doc["allowed"] or _violates(dom, v):
            raise _Unsure("a value outside the statement's assumptions")
    if doc["params"]["eps"][5] is not None and eps >= doc["params"]["eps"][5]:
        raise _Unsure("an advice limit (a warning)")
    if set(doc["free"]) - set(given) - {"m", "lam"}:
        raise _Unsure("a missing parameter")
    for rel in doc["constraints"]:
        if not (_decide(rel, {**given, "m": 2.0, "lam": 0.5}) and _decide(rel, {**given, "m": 2.0, "eps": 0.5,
                                                                              "lam": 0.5})):
            raise _Unsure("a joint assumption violated")
    fixed_c = {k: v for k, v in given.items() if k in doc["free"] and k not in ("eps", "lam")}
    f = compile_trees([doc["expr"]], ["eps", "lam", "m"], fixed_c)
    rg = doc["regime"]
    lam_hi = min(doc["lam_max"], rg.get("lam", [0, math.inf])[1])
    xs = _linspace(math.log(1e-12), math.log(lam_hi), 241)
    memo: dict[float, tuple[float, float]] = {}

    def g(mm: float) -> tuple[float, float]:
        """min over λ of the bound at (ε, m) and its relative uncertainty (``_bound_`` as the sympy path's)."""
        if mm in memo:
            return memo[mm]
        for rel in doc["constraints"]:
            if not _decide(rel, {**given, "m": float(mm), "lam": 0.5}):
                raise _Unsure("a joint assumption that fails at some m")
        vals = [_value(f, eps, math.exp(x), float(mm)) for x in xs]
        vals = [v if v > 0 else math.inf for v in vals]
        k = min(range(len(vals)), key=vals.__getitem__)
        best = vals[k]
        if not math.isfinite(best):
            raise _Unsure("not a number at some m")

        def F(x: tuple) -> float:
            v = _value(f, eps, math.exp(x[0]), float(mm))
            return math.log(v) if 0 < v < math.inf else math.inf

        x, fx = _refine(F, (xs[k],), math.log(best), [xs[1] - xs[0]], [xs[0]], [xs[-1]])
        v = min(best, math.exp(fx)) if math.isfinite(fx) else best
        lam_at = math.exp(x[0]) if math.exp(fx) < best else math.exp(xs[k])
        exact, err = _exact(doc["expr"], {**fixed_c, "eps": eps, "lam": lam_at, "m": float(mm)})
        tol = 4 * err / exact + 4 * _U + abs(v - exact) / exact
        for j, vj in enumerate(vals):       # the grid's best point must be the sympy path's too
            if abs(j - k) > 1 and vj <= best * (1 + 4 * tol):
                raise _Doubt("two grid points as good within the uncertainty")
        memo[mm] = (v, tol)
        return v, tol

    def above(mm: float) -> bool:
        v, tol = g(mm)
        if abs(v - target) <= tol * target:
            raise _Doubt("the bound at the target within its uncertainty")
        return v > target

    lo_m, hi_m = 2, 2
    while above(hi_m):
        lo_m = hi_m
        hi_m *= 2
        if hi_m > 1e12:
            raise _Unsure("the target is not reached (the sympy path explains why)")
    if above(lo_m):
        while hi_m - lo_m > 1:
            mid = (lo_m + hi_m) // 2
            if not above(mid):
                hi_m = mid
            else:
                lo_m = mid
        lo_m = hi_m
    n = int(lo_m)
    value, tol = g(n)
    lines = [f"key={doc['pick_key']} query=min_m target={target} eps={eps} lam=optimise m={n}",
             f"  statement {doc['line']}"]
    lines += [f"  {x}" for x in (doc["note"] and f"note: {doc['note']}", doc["warning"] and f"warning: {doc['warning']}")
              if x]
    if doc["ceiling"] is None:
        if doc["ceiling_why"]:
            lines.append(f"  ceiling: none ({doc['ceiling_why']})")
    else:
        cvals = {**consts, "m": float(n), "eps": eps}
        if not set(doc["ceiling_free"]) <= set(cvals):
            raise _Unsure("a ceiling that needs more values")
        c, c_err = _exact(doc["ceiling"], cvals)
        if value >= c * (1 - 1e-9) - 2 * c_err:
            raise _Unsure("vacuous, or near the ceiling (its explanation searches over m)")
        lines.append(f"  not vacuous: {_g(value, '.6g', max(EDGE_TOL, 2 * tol))} < the ceiling "
                     f"{_g(c, '.6g', max(EDGE_TOL, 2 * c_err / abs(c)))} ({doc['ceiling_why']})")
    return 0, "\n".join(lines) + "\n", doc["stderr"]


def first_m(g: Any, level: float, start: float) -> int | None:
    """:func:`bounds.pick._first_m` with ``g(m) = (value, relative uncertainty)``: the same probes in the same
    order, each comparison with ``level`` and each interpolated probe decided only where the values'
    uncertainty cannot change it (``_Doubt`` else), so the sympy path's search takes the same steps.

    Examples
    --------
    >>> first_m(lambda m: (1000.3 / m, 1e-15), 1.0, 2)
    1001
    """
    limit = min(max(1e12, float(start) * 1e6), 1e300)

    def lt(v: tuple[float, float]) -> bool:
        if abs(v[0] - level) <= 2 * v[1] * level:
            raise _Doubt("a value at the level within its uncertainty")
        return v[0] < level

    lo = int(max(2, math.floor(start)))
    glo = g(lo)
    if lt(glo):
        return lo
    hi, ghi = lo, glo
    while not lt(ghi):
        lo, glo = hi, ghi
        hi *= 2
        if hi > limit:
            return None
        ghi = g(hi)
    step = 0
    while hi - lo > 1:
        step += 1
        mid = (lo + hi) // 2
        if step % 3 and 0 < ghi[0] < level <= glo[0] < math.inf:
            mids = set()
            for a in (1 - 2 * glo[1], 1, 1 + 2 * glo[1]):
                for b in (1 - 2 * ghi[1], 1, 1 + 2 * ghi[1]):
                    gl, gh = glo[0] * a, ghi[0] * b
                    x = math.log(lo) + (math.log(gl) - math.log(level)) * (math.log(hi) - math.log(lo)) / (
                        math.log(gl) - math.log(gh))
                    mids.add(min(max(int(round(math.exp(x))), lo + 1), hi - 1))
            if len(mids) != 1:
                raise _Doubt("an interpolated probe the values' uncertainty could move")
            mid = mids.pop()
        gm = g(mid)
        if lt(gm):
            hi, ghi = mid, gm
            if mid - 1 > lo:
                gp = g(mid - 1)
                if lt(gp):
                    hi, ghi = mid - 1, gp
                else:
                    lo, glo = mid - 1, gp
        else:
            lo, glo = mid, gm
            if mid + 1 < hi:
                gp = g(mid + 1)
                if lt(gp):
                    hi, ghi = mid + 1, gp
                else:
                    lo, glo = mid + 1, gp
    return int(hi)


def _widths(tree: Any, fixed_c: dict, choice: list[str], free: list[str], x: tuple, point_of: Any,
            level: float, lo: list[float], hi: list[float]) -> tuple[list[float], tuple]:
    """``(half-widths, centre)`` (log coordinates) of a box holding the set ``F ≤ F* + level`` (``F*`` the exact
    minimum): for a coordinate inside the search's box, the Hessian of ``F`` by 256-bit central differences and
    the centre moved from ``x`` to the exact minimiser by a Newton step (gradient by 256-bit central differences),
    so that the box is not twice as wide as the set (the point found here and the sympy path's can be anywhere in
    it); for one on its edge with ``F`` rising inwards, ``level / slope`` from the edge (``_Doubt`` where neither
    holds)."""
    import mpmath

    s = 1e-4
    d = len(free)

    def Fm(dx: tuple) -> Any:
        pt = point_of(tuple(x[i] + dx[i] for i in range(d)))
        vals = {**fixed_c, **dict(zip(choice, pt, strict=True))}
        with mpmath.workprec(256):
            return mpmath.log(_tree_value(tree, vals, 256))

    w = [0.0] * d
    inner = []
    with mpmath.workprec(256):
        f0 = Fm((0.0,) * d)
        for i in range(d):
            if x[i] == lo[i] or x[i] == hi[i]:
                step = 1e-6 if x[i] == lo[i] else -1e-6
                slope = float((Fm(tuple(step if k == i else 0.0 for k in range(d))) - f0) / abs(step))
                if not slope * 1e-6 > 100 * level:
                    raise _Doubt("an optimum on the search's edge with a flat slope")
                w[i] = level / slope + 1e-12
            elif min(x[i] - lo[i], hi[i] - x[i]) < 1e-6:
                raise _Doubt("an optimum next to the search's edge")
            else:
                inner.append(i)
        H = {}
        for i in inner:
            e = tuple(s if k == i else 0.0 for k in range(d))
            H[i, i] = float((Fm(e) - 2 * f0 + Fm(tuple(-c for c in e))) / s ** 2)
        if len(inner) == 2:
            H[0, 1] = float((Fm((s, s)) - Fm((s, -s)) - Fm((-s, s)) + Fm((-s, -s))) / (4 * s * s))
        h = 1e-9                # 256-bit: no cancellation; the central difference's error is O(h²)
        g = {i: float((Fm(tuple(h if k == i else 0.0 for k in range(d)))
                       - Fm(tuple(-h if k == i else 0.0 for k in range(d)))) / (2 * h)) for i in inner}
    dx = [0.0] * d
    if len(inner) == 1:
        i = inner[0]
        if not H[i, i] > 0:
            raise _Doubt("a flat optimum")
        w[i] = math.sqrt(2 * level / H[i, i])
        dx[i] = -g[i] / H[i, i]
    elif len(inner) == 2:
        det = H[0, 0] * H[1, 1] - H[0, 1] ** 2
        if not (H[0, 0] > 0 and det > 0):
            raise _Doubt("a flat optimum")
        w[0] = math.sqrt(2 * level * H[1, 1] / det)
        w[1] = math.sqrt(2 * level * H[0, 0] / det)
        dx[0] = -(H[1, 1] * g[0] - H[0, 1] * g[1]) / det
        dx[1] = -(H[0, 0] * g[1] - H[0, 1] * g[0]) / det
    for i in inner:
        if abs(dx[i]) > 2 * w[i] + 1e-9:          # the point found here is in the set: a model that does not fit
            raise _Doubt("a Newton step out of the optimum's set")
        w[i] += 1e-3 * abs(dx[i]) + 1e-9          # the step's own error (the Hessian's, the quadratic model's)
    return w, tuple(x[i] + dx[i] for i in range(d))


def _corners(x: tuple, w: list[float], lo: list[float], hi: list[float]) -> list[tuple]:
    """The corners and the edge midpoints of the box ``x ± w`` (clipped to [lo, hi]); ``x`` the centre of the
    sublevel set (:func:`_widths`), not the point found here, which can be ``w`` from it."""
    if len(x) == 1:
        pts = [(x[0] - w[0],), (x[0] + w[0],)]
    else:
        pts = [(x[0] + a * w[0], x[1] + b * w[1]) for a in (-1, 1) for b in (-1, 1)] + \
            [(x[0] + w[0], x[1]), (x[0] - w[0], x[1]), (x[0], x[1] + w[1]), (x[0], x[1] - w[1])]
    return [tuple(min(max(p[i], lo[i]), hi[i]) for i in range(len(x))) for p in pts]


def _explain(doc: dict, tf: Any, pt: dict[str, float], choice: list[str], free: list[str]) -> list[str]:
    """:func:`bounds.pick.explain` of the optimum at ``pt`` (``_Doubt`` where a margin is too thin)."""
    if tf is None:
        return []
    args = [pt[n] for n in choice]
    try:
        vals = [float(v) for v in tf(*args)]
    except (ArithmeticError, ValueError, TypeError):
        raise _Unsure("a term that does not evaluate") from None
    if not all(math.isfinite(v) for v in vals):
        raise _Unsure("a term that is not finite")
    out = []
    mags = sorted((abs(v) for v in vals), reverse=True)
    if mags[0] - mags[1] <= 1e-9 * mags[0]:
        raise _Doubt("two terms dominate equally")
    total = sum(abs(v) for v in vals)
    i = max(range(len(vals)), key=lambda j: abs(vals[j]))
    share = f" ({_g(100 * abs(vals[i]) / total, '.0f', 1e-9)}% of the sum)" if total > 0 else ""
    out.append(f"dominant term at the optimum: {doc['terms'][i][0]}{share}")
    if "eps" in free:
        up = [pt[n] * (1 + 1e-6) if n == "eps" else pt[n] for n in choice]
        after = [float(v) for v in tf(*up)]
        rising = []
        for (name, _), v0, v1 in zip(doc["terms"], vals, after, strict=True):
            if not (math.isfinite(v1) and v0 > 0):
                continue
            r = v1 / v0 - 1
            if abs(r - 1e-12) <= 1e-13:
                raise _Doubt("a term at the edge of the rising test")
            if r > 1e-12:
                rising.append(name)
        if rising:
            out.append("U-shaped in eps: " + ", ".join(rising) + (" grows" if len(rising) == 1 else " grow")
                       + " with eps while the noise terms shrink, so a larger eps is not always better")
    return [f"  {x}" for x in out]


def fast_pick(argv: list[str]) -> int | None:
    """Answer a plain ``pick`` from the store: prints and returns the status, or None (nothing printed)."""
    parsed = parse_pick(list(argv))
    if parsed is None or os.environ.get("DP_ERM_VERIFY_NUMERIC", "").strip().lower() in ("off", "0", "no"):
        return None
    key, au, opts, assigns = parsed
    if store_dir() is None:
        return None
    try:
        doc = read_entry(key, WHICH, au, digest())
    except OSError:
        return None
    if doc is None:
        MISSED.append((key, WHICH, au, list(argv)))
        return None
    try:
        rc, out, err = answer_pick(doc, opts, assigns)
    except Exception:  # noqa: BLE001 - _Unsure, or an entry this code cannot read: the sympy path answers
        return None
    return _emit(rc, out, err)


# --------------------------------------------------------------------------- generation (sympy path)
def build_pick_entry(reg: Any, key: str, allow_unverified: bool) -> dict:
    """The entry of ``pick key`` from the sympy registry ``reg`` (unverified)."""
    import io
    from contextlib import redirect_stderr, redirect_stdout

    from . import pick
    from .numeric import Unsupported, constraint_trees, param_domain, to_tree
    from .report_io import read_summary
    from .validation import one_line

    doc: dict[str, Any] = {"key": key, "which": WHICH, "allow_unverified": bool(allow_unverified)}
    try:
        with pick.using(reg):
            st = pick.pickable(key)
            try:
                b = pick.basis(st.key, None, allow_unverified)
            except pick.UnverifiedError as exc:
                raise Unsupported(f"no established form (the refusal names values): {exc}") from None
        st0 = reg.get(key)
        ns = st.ns

        def name_of(s: Any) -> str:
            if not ns.has_symbol(s):
                raise Unsupported(f"symbol {s} is no parameter")
            return ns.by_symbol(s).name

        ev = reg.evaluate(st.key)
        expr = (st.stated if b.form == "stated" else ev.derived if b.form == "derived" and ev.derived is not None
                else ev.expression)
        if expr is None:
            raise Unsupported("no expression")
        syms = set(expr.free_symbols)
        choice = [n for n in pick.CHOICE if ns[n].symbol in syms]
        params = {n: param_domain(ns[n]) for n in ns}
        free = sorted({name_of(s) for s in syms})
        cons = constraint_trees(st, name_of)
        schedule = {n: to_tree(reg.derived(k), name_of) for n, k in st.schedule.items()}
        vars_ = {ns[n].symbol for n in choice}
        terms = [(pick._named(t, ns), to_tree(t, name_of)) for t in pick._additive_terms(expr, vars_)]
        stated = st.stated if b.form != "stated" else None
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            ceiling_free = [] if st.ceiling is None else sorted({name_of(s) for s in st.ceiling.free_symbols})
        note = read_summary().note
        doc.update(
            pick_key=st.key, label=st.label, asked_ns=sorted(st0.ns), params=params,
            allowed=sorted(set(st.params) | set(free)),
            free=free, choice=choice, constraints=cons, schedule=schedule, sched_ns=sorted(ns),
            expr=to_tree(expr, name_of), terms=terms,
            stated=None if stated is None else to_tree(stated, name_of),
            stated_free=[] if stated is None else sorted({name_of(s) for s in stated.free_symbols}),
            stated_allowed=[] if stated is None else sorted(set(st.params) | {name_of(s) for s in stated.free_symbols}),
            lam_max=1.0 if any(pick._is_lam_le_1(c) for c in st.constraints) else 1e4,
            regime={k: [float(a), float(z)] for k, (a, z) in ns.regime.ranges.items() if k in ("eps", "lam")},
            regime_text=ns.regime.text(),
            line=b.line(), note=b.note, warning=b.warning, verdict_text=b.verdict_text,
            ceiling=None if st.ceiling is None else to_tree(st.ceiling, name_of), ceiling_why=st.ceiling_why,
            ceiling_free=ceiling_free, stderr=f"note: {one_line(note)}\n" if note else "",
        )
        if st0.key != st.key and set(st0.ns) - set(ns):
            raise Unsupported("the asked statement names parameters the pickable bound does not")
    except (Unsupported, ValueError, LookupError, TypeError) as exc:
        doc = {k: doc[k] for k in ("key", "which", "allow_unverified")}
        doc["unsupported"] = f"{type(exc).__name__}: {exc}"
    return doc


def _pick_grid(reg: Any, key: str, n: int, seed: int) -> list[tuple[dict[str, str], list[tuple[str, str]]]]:
    """``n`` seeded calls around the paper's pick constants (``Paper.pick``): each constant times a factor
    log-uniform in [1/4, 4] (kept in its domain); a third of them plain (m log-uniform in [1e4, 1e7]), a third
    with ε given, a third the smallest m reaching a target in [0.2, 0.9] at ε in [0.01, 0.45]."""
    import numpy as np

    from . import pick

    with pick.using(reg):
        st = pick.pickable(key)
    consts: dict[str, Any] = {}
    for paper in reg.papers.values():
        for k, c in paper.pick.items():
            if paper.key(k) == st.key:
                consts = dict(c)
    names = [k for k in consts if k in st.ns and k not in ("m", "eps", "lam")]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence([seed, 33])))
    out = []
    for i in range(n):
        vals = {}
        for k in names:
            v = float(consts[k]) * float(4.0 ** rng.uniform(-1, 1))
            p = st.ns[k]
            if p.integer or p.violation(v) is not None or v == 0:
                v = float(consts[k])
            vals[k] = v
        opts = {"--m": repr(float(np.round(10 ** rng.uniform(4, 7))))}
        e = float(rng.uniform(0.02, 0.9))
        target = float(rng.uniform(0.2, 0.9))
        if i % 3 == 2 and "eps" in st.ns:        # the smallest m reaching a target
            opts = {"--target": repr(target), "--eps": repr(e / 2)}
        elif i % 3 == 1 and "eps" in st.ns:
            opts["--eps"] = repr(e)
        out.append((opts, [(k, repr(v)) for k, v in vals.items()]))
    return out


def verify_pick_entry(doc: dict, calls: list) -> tuple[int, int, str]:
    """Compare the numeric answer of ``doc`` with :func:`bounds.cli.main` on ``calls``:
    ``(calls answered numerically, calls, first mismatch or '')``."""
    from .numeric import _run_cli

    answered = 0
    for opts, assigns in calls:
        try:
            fast = answer_pick(doc, opts, assigns)
        except _Unsure:
            continue
        argv = ["pick", doc["key"], *[t for o, r in opts.items() for t in (o, r)], *[f"{k}={r}" for k, r in assigns],
                *(["--allow-unverified"] if doc["allow_unverified"] else [])]
        got = _run_cli(argv)
        if got != fast:
            return answered, len(calls), f"at {argv}: sympy {got!r} != numeric {fast!r}"
        answered += 1
    return answered, len(calls), ""


def generate_pick(key: str, allow_unverified: bool, argv: list[str] = (), reg: Any = None) -> dict:
    """Build, verify and store the entry of ``pick key``; returns it."""
    from .numeric import _registry_for

    dig = digest()
    reg = reg or _registry_for(key)
    if reg is None or key not in reg.keys():
        doc = {"key": key, "which": WHICH, "allow_unverified": allow_unverified, "unsupported": "no such statement"}
    else:
        doc = build_pick_entry(reg, key, allow_unverified)
        if getattr(reg, "light", False) and doc.get("unsupported", "").startswith("LookupError"):
            import bounds

            reg = bounds.registry
            doc = build_pick_entry(reg, key, allow_unverified)
        if not doc.get("unsupported"):
            calls = []
            parsed = parse_pick(list(argv)) if argv else None
            if parsed is not None and parsed[0] == key:
                calls.append((parsed[2], parsed[3]))
            calls += _pick_grid(reg, key, GRID_POINTS, 0)
            doc = _judged(doc, *verify_pick_entry(doc, calls))
    if dig == digest():
        write_entry(doc, dig)
    return doc


GENERATORS[WHICH] = generate_pick      # bounds.numeric builds a missed pick entry through this, never importing us


def main(argv: list[str] | None = None) -> int:
    """``python -m bounds.numeric_pick [KEY ...]``: prefill the plain-``pick`` entries (default: every pickable statement)."""
    import argparse

    import bounds

    from . import pick
    from .numeric import prefill

    ap = argparse.ArgumentParser(prog="python -m bounds.numeric_pick", description=main.__doc__.splitlines()[0])
    ap.add_argument("keys", nargs="*", help="statements (default: every pickable statement)")
    a = ap.parse_args(argv)
    reg = bounds.registry
    with pick.using(reg):
        keys = a.keys or pick.pickable_keys()
    return prefill([(k, "pick", lambda k=k: generate_pick(k, False, reg=reg)) for k in keys], "pick entries")


if __name__ == "__main__":
    raise SystemExit(main())
