"""Mechanism statements, their accounting hooks, and the private alternative a refusal names.

Shared by :mod:`bounds.calibrate` and :mod:`bounds.pick` without importing either (both import this
module; it imports neither, so neither import makes a cycle).  Every function takes the registry to
read (default :data:`bounds.registry`); :mod:`bounds.calibrate` passes the active one.

A *mechanism statement* is a statement whose value is a noise parameter of a paper's mechanism:
declared (``Statement.value_of``), or of kind ``noise``, no density or law of the noise, with a
printed form depending on ε (:func:`is_mechanism`).  A paper module may declare an ``ACCOUNTING``
mapping (statement key → hook, :func:`hook`) read by :mod:`bounds.calibrate`; its ``"task"`` and
``"estimators"`` entries are read by :func:`private_alternative`.

Examples
--------
>>> "cms.alg2.eps_prime" in mechanism_keys()
True
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Mapping
from typing import Any

import sympy as sp

from .validation import num

__all__ = ["ROLES", "TASK_OF_PARAM", "command", "every_paper", "hook", "is_mechanism", "mechanism_keys",
           "parameters", "paper_declaration", "private_alternative", "task"]


def _registry(registry: Any = None) -> Any:
    if registry is not None:
        return registry
    import bounds

    return bounds.registry


def is_mechanism(st: Any) -> bool:
    """A noise parameter chosen from the privacy level: declared (``value_of``), or a ``noise`` statement
    that is no density or law of the noise and whose printed form depends on ε."""
    if st.kind == "order":
        return False
    if st.value_of:
        return True
    q = st.quantity.lower()
    if st.kind != "noise" or q.startswith(("density", "unnormalised density")) or " law" in q:
        return False
    eps = st.ns["eps"].symbol if "eps" in st.ns else None
    return st.stated is not None and eps in st.stated.free_symbols


def mechanism_keys(paper: str | None = None, registry: Any = None) -> list[str]:
    """The mechanism statements (noise calibrations) of every paper, or of one.

    Examples
    --------
    >>> "cms.alg2.eps_prime" in mechanism_keys() and "jia.prop1.density" not in mechanism_keys()
    True
    """
    reg = _registry(registry)
    return [k for k in reg.keys() if is_mechanism(reg.get(k)) and (paper is None or reg.get(k).paper == paper)]


def parameters(key: str, registry: Any = None) -> list[str]:
    """The parameters a calibration of ``key`` needs (those of its stated and derived forms)."""
    reg = _registry(registry)
    st = reg.get(key)
    ev = reg.evaluate(st.key)
    syms = set()
    for e in (st.stated, ev.derived):
        if e is not None:
            syms |= e.free_symbols
    names = {st.ns.by_symbol(s).name for s in syms if st.ns.has_symbol(s)}
    return [n for n in st.params if n in names] + sorted(names - set(st.params))


@functools.lru_cache(maxsize=32)
def _module_attr(module: str, name: str) -> Mapping[str, Any]:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return {}
    return getattr(mod, name, {}) or {}


def paper_declaration(st: Any, name: str, registry: Any = None) -> Mapping[str, Any]:
    """The module-level mapping ``name`` (``ACCOUNTING``, ``BRANCHES``) of the paper module of ``st``."""
    paper = _registry(registry).papers.get(st.paper)
    module = getattr(paper, "module", "") or f"{__package__}.papers.{st.paper}"
    return _module_attr(module, name)


def hook(st: Any, registry: Any = None) -> Mapping[str, Any] | None:
    """The ``ACCOUNTING`` hook of statement ``st`` (by full or short key), or None."""
    hooks = paper_declaration(st, "ACCOUNTING", registry)
    return hooks.get(st.key) or hooks.get(st.key.split(".", 1)[1])


def every_paper(registry: Any = None) -> Any:
    """A registry holding every paper: ``registry`` itself, or, where the command line loaded only the key's
    paper (a light registry), the snapshot's light registry of every stored paper (else
    :data:`bounds.registry`).  A light registry lacking an evaluation raises LookupError, on which the
    command line retries on :data:`bounds.registry`.

    Examples
    --------
    >>> import bounds
    >>> every_paper(bounds.registry) is bounds.registry
    True
    """
    reg = _registry(registry)
    if not getattr(reg, "light", False):
        return reg
    from .snapshot import Store

    store = Store.default()
    light = store.light_registry(None) if store is not None else None
    if light is not None and set(reg.papers) <= set(light.papers):
        return light
    import bounds

    return bounds.registry


def command(key: str, vals: Mapping[str, float], registry: Any = None) -> str:
    """``python -m bounds calibrate KEY name=value ...`` with the values of ``vals`` this statement takes
    (``name=…`` for the others)."""
    given = " ".join(f"{p}={num(vals[p])}" if p in vals else f"{p}=…" for p in parameters(key, registry))
    return f"python -m bounds calibrate {key} {given}".rstrip()


#: shared parameters (bounds.symbols) that name a learning task wherever a statement's premises use them
TASK_OF_PARAM = {"kappa": "kernel", "M": "regression"}

#: what a parameter is, read from the first two words of its description, for carrying a value to another
#: paper's statement (only roles that mean the same thing in every paper)
ROLES = ("sample size", "regularisation parameter", "privacy parameter", "confidence parameter")


def _closure(key: str, reg: Any) -> list[Any]:
    seen: dict[str, Any] = {}
    todo = [key]
    while todo:
        k = todo.pop()
        if k in seen:
            continue
        try:
            st = reg.get(k)
        except LookupError:
            continue
        seen[k] = st
        todo.extend(st.depends)
    return list(seen.values())


def task(key: str, registry: Any = None) -> set[str]:
    """The tasks a statement's premises name: a shared task parameter (:data:`TASK_OF_PARAM`) used by it or
    by a statement it rests on.

    Examples
    --------
    >>> sorted(task("jia.s5_1.scale")), sorted(task("cms.alg1.beta"))
    (['kernel', 'regression'], [])
    """
    from .symbols import SHARED

    out = set()
    for st in _closure(key, _registry(registry)):
        for name in st.params:
            if name in TASK_OF_PARAM and name in SHARED and name in st.ns \
                    and st.ns[name].symbol == SHARED[name].symbol:
                out.add(TASK_OF_PARAM[name])
    return out


def _role(st: Any, name: str) -> str:
    """The role (:data:`ROLES`) of a parameter, or its name."""
    try:
        words = st.ns[name].description.lower().replace(",", " ").split()
    except (KeyError, AttributeError, LookupError):
        return name
    role = " ".join(words[:2])
    return role if role in ROLES else name


def penalty(st: Any, name: str, registry: Any = None, vals: Mapping[str, float] | None = None) -> float | None:
    """The coefficient c with which parameter ``name`` of ``st``'s paper enters its objective as c·name·‖f‖².

    A paper module declares it in a module-level ``PENALTY`` mapping (parameter → c) where its convention
    differs from the shared one: Chaudhuri, Monteleoni & Sarwate's J = (1/n)Σℓ + (Λ/2)‖f‖² declares
    ``{"Lam": 1/2}``.  Undeclared: 1, the shared regularisation parameter's convention (objective … + λ‖f‖²,
    as in Jia's papers).  A value carried from one paper to another keeps the objective's penalty:
    c_dst·x_dst = c_src·x_src (:func:`private_alternative`).  A declared value may be a callable
    ``(statement, vals) -> c or None`` where the coefficient depends on the statement's parameters (Jia's
    λΩ(f) with Ω γ-strongly convex: c = γ/2 for the quadratic Ω = (γ/2)‖f‖²); None means it is not known
    at ``vals`` and the value is not carried.

    Examples
    --------
    >>> import bounds
    >>> penalty(bounds.registry.get("cms.alg1.beta"), "Lam"), penalty(bounds.registry.get("jia.s5_2.scale"), "lam")
    (0.5, 1.0)
    """
    c = paper_declaration(st, "PENALTY", registry).get(name, 1)
    if callable(c):
        c = c(st, dict(vals or {}))
    return None if c is None else float(c)


def _carry(src: Any, dst: Any, vals: Mapping[str, float], reg: Any) -> dict[str, float]:
    """The values of ``vals`` (parameters of ``src``) that ``dst`` takes: by name, else by role, converted
    between the papers' declared conventions (:func:`penalty`: the same penalty c·x‖f‖² in both objectives)."""
    out: dict[str, float] = {}
    roles: dict[str, str] = {}
    for k in vals:
        if k in src.ns:
            roles.setdefault(_role(src, k), k)
    for p in parameters(dst.key, reg):
        q = p if p in vals else roles.get(_role(dst, p))
        if q is None:
            continue
        if q in src.ns:
            cs, cd = penalty(src, q, reg, vals), penalty(dst, p, reg, vals)
            if cs is None or cd is None:       # the convention depends on a value not given: carry nothing
                continue
            ratio = cs / cd
        else:
            ratio = 1.0
        out[p] = vals[q] * ratio if ratio != 1 else vals[q]
    return out


def _conversions(src: Any, dst: Any, vals: Mapping[str, float], reg: Any) -> list[str]:
    """The values :func:`_carry` converted between conventions, each said with its rule."""
    out = []
    roles = {_role(src, k): k for k in vals if k in src.ns}
    for p in parameters(dst.key, reg):
        q = p if p in vals else roles.get(_role(dst, p))
        if q is None or q not in src.ns:
            continue
        cs, cd = penalty(src, q, reg, vals), penalty(dst, p, reg, vals)
        if cs is None or cd is None:
            out.append(f"{p} not carried from {q}: the penalty convention of {src.key} depends on a parameter "
                       "not given (give it to carry the value)")
            continue
        if cs == cd:
            continue
        r = cs / cd
        out.append(f"{p} = {num(r)}·{q} = {num(vals[q] * r)}: the same penalty in both objectives "
                   f"({num(cd)}·{p}‖f‖² = {num(cs)}·{q}‖f‖²)")
    return out


def _fill(src_st: Any, vals: Mapping[str, float], cand: Any, h: Mapping[str, Any], tasks: set[str],
          carried: Mapping[str, float], reg: Any) -> tuple[dict[str, float], list[str]]:
    """The parameters of ``k`` a statement of its paper gives for a task of the refused key (the hook's ``"fill"``:
    task → {parameter → statement key}): its value where every parameter it needs is known, else how to compute it."""
    out: dict[str, float] = {}
    how: list[str] = []
    for t in sorted(tasks):
        for p, src in (h.get("fill", {}).get(t, {}) or {}).items():
            if p in carried or p in out:
                continue
            skey = src if "." in src and src.split(".", 1)[0] == cand.paper else f"{cand.paper}.{src}"
            sst = reg.get(skey)
            need = parameters(skey, reg)
            known = {**_carry(src_st, sst, vals, reg), **{n: carried[n] for n in need if n in carried}}
            if len(known) == len(need):
                out[p] = float(reg.value(skey, known, warn=False))
                how.append(f"{p} = {num(out[p])} from {skey} ({sst.quantity}) for {t} learning")
            else:
                expr = reg.evaluate(skey).expression
                expr = expr.subs({x: sp.Symbol(sst.ns.by_symbol(x).name) for x in expr.free_symbols
                                  if sst.ns.has_symbol(x)}, simultaneous=True)
                subs = {sp.Symbol(n): v for n, v in known.items()}
                how.append(f"for {t} learning {p} = {sp.sstr(expr)} ({skey}: {sst.quantity})"
                           + (f", = {sp.sstr(sp.N(expr.subs(subs), 6))} at the values carried" if subs else "")
                           + f"; give {', '.join(n for n in need if n not in known)}")
    return out, how


def private_alternative(key: str, values: Mapping[str, float] | None = None, *,
                        established: Callable[[str], bool], registry: Any = None) -> str:
    """A private alternative to mechanism statement ``key`` that the toolkit calibrates, as commands to run.

    The rule, the same for every statement: the candidates are the other mechanism statements
    (:func:`mechanism_keys`) for which ``established(key)`` holds (a form of them is established by
    their one verdict); each covers the tasks its premises name (:func:`task`: the kernel bound κ
    names kernel learning, the label bound M regression) and those its paper's accounting hook
    declares (``"task"``: the tasks its paper states the mechanism solves privately).  The candidate
    declaring most of the tasks ``key``'s premises name wins, then the one covering most of them,
    then the one taking most of the given values (carried by name or by what the parameter is,
    :data:`ROLES`: a sample size m → n), then the first discovered.  The estimators a hook declares
    for a task of ``key`` are named, and the plain Laplace mechanism (``python -m bounds noise``) is
    always offered for a finite-dimensional statistic of known sensitivity.

    Parameters
    ----------
    key : str
        A mechanism statement.
    values : mapping, optional
        The values the user gave for ``key`` (carried into the commands where they apply).
    established : callable
        ``established(key) -> bool``: whether a form of a statement is established (the caller's
        verdict rule and evidence: :func:`bounds.calibrate.private_alternative` passes
        :func:`bounds.pick.basis`'s).
    registry : Registry, optional
        Default :data:`bounds.registry`; it must hold every paper (:func:`every_paper`).  From
        :mod:`bounds.pick` (which must not import :mod:`bounds.calibrate`: that is a cycle)::

            full = every_paper(_reg())
            with using(full):
                alt = private_alternative(key, values, registry=full,
                                          established=lambda k: basis(k, None, True, evidence).established)

    Returns
    -------
    str
        One line: ``a private alternative the toolkit calibrates: python -m bounds calibrate ...``.

    Examples
    --------
    >>> alt = private_alternative("jia.s5_2.scale", {"eps": 0.5}, established=lambda k: k.startswith("cms."))
    >>> "python -m bounds calibrate cms." in alt and "python -m bounds noise laplace" in alt
    True
    """
    reg = _registry(registry)
    st = reg.get(key)
    vals = dict(values or {})
    want = task(st.key, reg)
    best = None
    for k in mechanism_keys(None, reg):
        if k == st.key or not established(k):
            continue
        cand = reg.get(k)
        h = hook(cand, reg) or {}
        declared = set(h.get("task", ()))
        covers = task(k, reg) | declared
        carried = _carry(st, cand, vals, reg)
        score = (len(want & declared), len(want & covers), len(carried) - len(parameters(k, reg)))
        if best is None or score > best[0]:
            best = (score, k, cand, h, carried, covers)
    parts = []
    if best is not None:
        _, k, cand, h, carried, covers = best
        paper = reg.papers.get(cand.paper)
        what = f"{cand.label} of {getattr(paper, 'title', cand.paper)}: {cand.quantity}"
        filled, how = _fill(st, vals, cand, h, want & covers, carried, reg)
        carried = {**carried, **filled}
        missing = [p for p in parameters(k, reg) if p not in carried]
        fill = "".join(f"; {x}" for x in (*_conversions(st, cand, vals, reg), *how))
        fill += f"; fill in {', '.join(missing)}" if missing else ""
        parts.append(f"a private alternative the toolkit calibrates: {command(k, carried, reg)} ({what}{fill})")
        est = h.get("estimators", {})
        for t in sorted(want & covers):
            if t in est:
                parts.append(f"for {t} learning its estimators " + " / ".join(est[t]))
    eps = vals.get("eps")
    parts.append("for a finite-dimensional statistic of known sensitivity Δ, the plain Laplace mechanism: "
                 f"python -m bounds noise laplace --sensitivity 1 --eps {num(eps) if eps else '…'} "
                 "(per unit of Δ: the scale grows with Δ)")
    return "; ".join(parts)
