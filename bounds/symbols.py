"""Symbols and their assumption domains: the shared table and per-paper namespaces.

:data:`S` holds the sympy symbols that papers share, so that expressions from
different statements combine (sympy compares symbols by name and
assumptions).  A :class:`Param` records the domain a paper assumes for a
symbol; the registry uses it to validate user input and to sample the domain
in numeric derivation checks.  Domains live in a :class:`Namespace`: the
shared one (:data:`SHARED`) holds the parameters every paper reads the same
way (m, ε, λ, κ, ...); each paper's own namespace, over the shared one, holds
its own parameters and may give a shared letter another domain.

Examples
--------
>>> from bounds.symbols import P, S
>>> P["eps"].contains(0.5)
True
>>> str(S.eps)
'epsilon'
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import sympy as sp


@dataclass(frozen=True)
class Param:
    """A named symbol with its assumption domain.

    Parameters
    ----------
    name : str
        Name used on the command line and in Python (``eps``, ``lam``, ...).
    symbol : sympy.Symbol
        The sympy symbol used in expressions.
    lo, hi : float
        Bounds of the domain (``math.inf`` for unbounded).
    lo_open, hi_open : bool
        Whether the bounds are excluded.
    integer : bool
        Whether the parameter must be an integer (sample sizes, time steps).
    soft_hi : float or None
        An upper limit the papers state only as advice ("ε < 1 for meaningful
        privacy"); exceeding it gives a warning, not an error.
    description : str
        What the symbol means.

    Examples
    --------
    >>> from bounds.symbols import P
    >>> P["lam"].violation(-1.0)
    'lam > 0'
    """

    name: str
    symbol: sp.Symbol
    lo: float = 0.0
    hi: float = math.inf
    lo_open: bool = True
    hi_open: bool = True
    integer: bool = False
    soft_hi: float | None = None
    description: str = ""
    sample_range: tuple[float, float] | None = None

    def domain_text(self) -> str:
        """Human-readable domain, e.g. ``0 < eps < 1``."""
        parts = []
        if self.lo != -math.inf:
            parts.append(f"{_fmt(self.lo)} {'<' if self.lo_open else '<='} ")
        parts.append(self.name)
        if self.hi != math.inf:
            parts.append(f" {'<' if self.hi_open else '<='} {_fmt(self.hi)}")
        text = "".join(parts)
        if self.integer:
            text += " (integer)"
        return text

    def violation(self, value: float) -> str | None:
        """Return the violated part of the domain as text, or None if ``value`` is admissible."""
        if not isinstance(value, (int, float)) or isinstance(value, bool):
            return f"{self.name} must be a real number"
        if math.isnan(value) or math.isinf(value):
            return f"{self.name} must be finite"
        if self.lo != -math.inf:
            if self.lo_open and not value > self.lo:
                return f"{self.name} > {_fmt(self.lo)}"
            if not self.lo_open and not value >= self.lo:
                return f"{self.name} >= {_fmt(self.lo)}"
        if self.hi != math.inf:
            if self.hi_open and not value < self.hi:
                return f"{self.name} < {_fmt(self.hi)}"
            if not self.hi_open and not value <= self.hi:
                return f"{self.name} <= {_fmt(self.hi)}"
        if self.integer and float(value) != round(float(value)):
            return f"{self.name} is an integer"
        return None

    def contains(self, value: float) -> bool:
        """True when ``value`` lies in the domain."""
        return self.violation(value) is None

    def sample_bounds(self) -> tuple[float, float]:
        """The range numeric checks draw this parameter from.

        ``sample_range`` when given, else the domain with its open ends replaced by
        realistic limits over many decades: a positive real without an upper limit is
        drawn from [1e-4, 1e4];
        an integer without an upper limit up to 1e9.  The shared λ, ε, δ, m, t, n are
        declared over the decades the papers' schedules reach (λ down to 1e-8, m up to 1e9).
        """
        if self.sample_range is not None:
            return float(self.sample_range[0]), float(self.sample_range[1])
        lo, hi = self.lo, self.hi
        if hi == math.inf:
            hi = 1e9 if self.integer else 1e4
        if lo == -math.inf:
            lo = -hi
        if lo == 0 and not self.integer:
            lo = 1e-4 * min(hi, 1.0)
        return float(lo), float(hi)

    def sample(self, rng, n: int):
        """Draw ``n`` points spread over :meth:`sample_bounds` (log-uniform for scale parameters).

        The paper's advice limits (``soft_hi``, ε < 1) do not cap the draw: points beyond them
        are reported as outside the paper's regime (:class:`Regime`), not skipped.
        """
        import numpy as np

        lo, hi = self.sample_bounds()
        if self.integer:
            lo_i = max(int(math.floor(lo)) + (1 if (self.lo_open and lo == self.lo) else 0), 1)
            x = np.exp(rng.uniform(math.log(lo_i), math.log(hi), n))
            return np.maximum(np.floor(x), lo_i)
        tiny = 1e-9
        if lo > 0 and hi / lo > 50:
            x = np.exp(rng.uniform(math.log(lo * (1 + tiny)), math.log(hi * (1 - tiny)), n))
        else:
            width = hi - lo
            x = rng.uniform(lo + tiny * width, hi - tiny * width, n)
        return x


#: The one regime convention shared by every paper, declared here only: a failure probability δ lies
#: in (0, 0.1] unless a paper states otherwise (its own ``ranges`` entry for ``delta`` then wins).
#: A paper's ε and λ ranges are its own (as it states them).
CONVENTION: Mapping[str, tuple[float, float]] = {"delta": (0.0, 0.1)}


@dataclass(frozen=True)
class Regime:
    """The parameter ranges a paper operates in: its schedules and its stated advice.

    Numeric checks draw points over many decades (:meth:`Param.sample`); each
    point is *inside the regime* when every parameter named in ``ranges`` lies in
    its range, and the points a schedule produces are added to every check whose
    statement uses a scheduled parameter and the schedule variable.  A check then
    reports its failures inside and outside the regime separately, and a
    statement that fails only outside it *holds in the paper's regime*.

    Parameters
    ----------
    ranges : mapping
        Parameter name → ``(lo, hi)`` (closed) where the paper operates, e.g.
        ``{"lam": (0, 1), "eps": (0, 1)}``.
    schedules : tuple of mappings
        Each a schedule the paper uses: parameter name → sympy expression in the
        schedule variable and other parameters (``{"lam": m**(-1/3), "eps": ...}``),
        evaluated in order (a later entry may use an earlier one).
    variable : str
        The schedule variable (``m``; ``t`` for an online algorithm).
    span : tuple of float
        Range of the schedule variable the schedule points cover (10 to 1e9).
    note : str
        Where the ranges come from (the paper's words, its schedules).

    Examples
    --------
    >>> import numpy as np
    >>> from bounds.symbols import Regime, SHARED, S
    >>> reg = Regime(ranges={"lam": (0, 1)}, note="λ ≤ 1 wherever the paper picks it")
    >>> reg.mask({S.lam: np.array([0.5, 2.0])}, SHARED).tolist()
    [True, False]
    """

    ranges: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    schedules: tuple[Mapping[str, Any], ...] = ()
    variable: str = "m"
    span: tuple[float, float] = (10.0, 1e9)
    note: str = ""

    def __post_init__(self) -> None:
        # the shared convention (CONVENTION) applies to every paper that does not state its own range
        object.__setattr__(self, "ranges", {**CONVENTION, **dict(self.ranges)})

    def mask(self, pts: Mapping[sp.Symbol, Any], ns: Namespace) -> Any:
        """Boolean array: which of ``pts`` (symbol → array) lie inside the ranges."""
        import numpy as np

        n = len(next(iter(pts.values()))) if pts else 1
        out = np.ones(n, dtype=bool)
        for name, (lo, hi) in self.ranges.items():
            if name not in ns:
                continue
            sym = ns[name].symbol
            if sym in pts:
                v = np.asarray(pts[sym], dtype=float)
                tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
                out &= (v >= lo - tol) & (v <= hi + tol)
        return out

    def place(self, values: Mapping[str, Any], ns: Namespace | None = None) -> str:
        """Where a configuration lies: ``"outside"`` if a ranged parameter is out of its range,
        ``"inside"`` if at least one is given and all given ones are in range, else ``""``.

        ``values`` is keyed by parameter name (``"lam"``) or by its symbol (``"lambda"``);
        non-numeric entries are ignored.

        Examples
        --------
        >>> reg = Regime(ranges={"eps": (0, 1)}, note="ε ≤ 1")
        >>> reg.place({"eps": 0.5}), reg.place({"epsilon": 100}), reg.place({"n": 30})
        ('inside', 'outside', '')
        """
        seen = False
        for name, (lo, hi) in self.ranges.items():
            keys = [name]
            if ns is not None and name in ns:
                keys.append(str(ns[name].symbol))
            elif name in SHARED:
                keys.append(str(SHARED[name].symbol))
            for k in keys:
                v = values.get(k)
                if isinstance(v, (int, float)) and not isinstance(v, bool) and v == v:
                    seen = True
                    tol = 1e-9 * max(abs(lo), abs(hi), 1.0)
                    if not (lo - tol <= v <= hi + tol):
                        return "outside"
                    break
        return "inside" if seen else ""

    def text(self) -> str:
        """One line: the ranges and the schedules' span."""
        parts = [f"{lo:g} ≤ {k} ≤ {hi:g}" for k, (lo, hi) in self.ranges.items()]
        if self.schedules:
            names = sorted({k for s in self.schedules for k in s})
            parts.append(f"schedules of {', '.join(names)} for {self.span[0]:g} ≤ {self.variable} ≤ "
                         f"{self.span[1]:g}")
        return "; ".join(parts) or "no restriction declared"

    def as_dict(self) -> dict[str, Any]:
        return {"ranges": {k: list(v) for k, v in self.ranges.items()},
                "schedules": [{k: str(v) for k, v in s.items()} for s in self.schedules],
                "variable": self.variable, "span": list(self.span), "note": self.note, "text": self.text()}


def _fmt(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(x)


def _pos(name: str, **kw) -> sp.Symbol:
    return sp.Symbol(name, positive=True, **kw)


#: sympy symbols, by short name
S = SimpleNamespace(
    m=_pos("m", integer=True),
    eps=_pos("epsilon"),
    lam=_pos("lambda"),
    kappa=_pos("kappa"),
    M=_pos("M"),
    C_L=_pos("C_L"),
    gamma=_pos("gamma"),
    B=_pos("B"),
    B0=_pos("B_0"),
    B_rho=_pos("B_rho"),
    Omega0=sp.Symbol("Omega_0", nonnegative=True),
    c_beta=_pos("c_beta"),
    beta=_pos("beta"),
    r=_pos("r"),
    R=_pos("R"),
    G=_pos("G"),
    delta=_pos("delta"),
    t=_pos("t", integer=True),
    t0=_pos("t_0"),
    theta=_pos("theta"),
    b=sp.Symbol("b", real=True),
    x=sp.Symbol("x", real=True),
    s=_pos("s"),
    Xi=_pos("Xi"),
    u=_pos("u"),
    mu=_pos("mu"),
    h=_pos("h"),
    fnorm=_pos("f_rho_norm"),  # ||L_K^{-r} f_rho||_rho or ||f_rho||_K
    ER2=sp.Symbol("ER_2", nonnegative=True),
    d=_pos("d", integer=True),
    K=_pos("K", integer=True),
    n=_pos("n", integer=True),
    c=_pos("c"),
)

_INF = math.inf

#: the shared domains (the name a user types); a paper's own symbols live in its namespace
_SHARED_PARAMS: list[Param] = [
    Param("m", S.m, lo=2, lo_open=False, integer=True, description="sample size", sample_range=(2, 1e9)),
    Param("eps", S.eps, soft_hi=1.0, description="privacy parameter ε (papers assume ε < 1)", sample_range=(1e-4, 10)),
    Param("lam", S.lam, description="regularisation parameter λ", sample_range=(1e-8, 1e3)),
    Param("kappa", S.kappa, description="κ = sup sqrt(K(x, x')) (kernel bound)"),
    Param("M", S.M, description="bound on |y|"),
    Param("C_L", S.C_L, description="Lipschitz constant of the loss"),
    Param("gamma", S.gamma, description="strong-convexity modulus of Ω"),
    Param("G", S.G, description="bound on the expectation of g"),
    Param("delta", S.delta, hi=1, description="confidence parameter δ ∈ (0, 1)", sample_range=(1e-10, 1)),
    Param("t", S.t, lo=1, lo_open=False, integer=True, description="online iteration", sample_range=(1, 1e9)),
    Param("Xi", S.Xi, description="almost-sure bound on |ξ − Eξ|"),
    Param("u", S.u, description="a generic positive real"),
    Param("s", S.s, description="Laplace scale"),
    Param("d", S.d, lo=1, lo_open=False, integer=True, description="input dimension", sample_range=(1, 1e6)),
    Param("K", S.K, lo=2, lo_open=False, integer=True, description="number of classes", sample_range=(2, 1e4)),
    Param("n", S.n, lo=1, lo_open=False, integer=True, description="sample size n", sample_range=(1, 1e9)),
    Param("h", S.h, description="Huber smoothing width h"),
    Param("c", S.c, description="a generic positive constant"),
    Param("b", S.b, lo=-_INF, description="value of the output-perturbation noise (density argument)"),
]


class Namespace(Mapping[str, Param]):
    """A table of parameters by name, optionally over a parent table.

    The shared parameters (:data:`SHARED`) are the root; each paper has its own
    namespace over them (``Paper.symbols``), so a paper can define a symbol of
    its own, or give a shared name another domain, without affecting any other
    paper.  Lookups by name (``ns["eps"]``) and by sympy symbol
    (:meth:`by_symbol`) search the paper's own table first.

    Examples
    --------
    >>> import sympy as sp
    >>> from bounds.symbols import SHARED, Namespace
    >>> ns = Namespace(parent=SHARED, name="demo")
    >>> _ = ns.define("beta", sp.Symbol("beta", positive=True), description="a noise rate")
    >>> ns["beta"].hi, ns["eps"].name, "beta" in SHARED
    (inf, 'eps', False)
    """

    def __init__(self, params: Iterable[Param] = (), parent: Namespace | None = None, name: str = "",
                 frozen: bool = False) -> None:
        self.name = name
        self.parent = parent
        self.regime: Regime = Regime()
        self.frozen = False
        self._own: dict[str, Param] = {}
        self._by_symbol: dict[sp.Symbol, Param] = {}
        for p in params:
            self._add(p)
        self.frozen = frozen

    # -- Mapping ---------------------------------------------------------
    def __getitem__(self, name: str) -> Param:
        if name in self._own:
            return self._own[name]
        if self.parent is not None:
            return self.parent[name]
        raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        seen = set(self._own)
        yield from self._own
        if self.parent is not None:
            for k in self.parent:
                if k not in seen:
                    yield k

    def __len__(self) -> int:
        return sum(1 for _ in self)

    # -- symbols ---------------------------------------------------------
    def by_symbol(self, symbol: sp.Symbol) -> Param:
        """The :class:`Param` of a sympy symbol (KeyError if this namespace has none)."""
        if symbol in self._by_symbol:
            return self._by_symbol[symbol]
        if self.parent is not None:
            p = self.parent.by_symbol(symbol)
            if self._own.get(p.name, p) is not p:   # the name is redefined here with another symbol
                raise KeyError(symbol)
            return p
        raise KeyError(symbol)

    def has_symbol(self, symbol: sp.Symbol) -> bool:
        """Whether :meth:`by_symbol` knows ``symbol``."""
        try:
            self.by_symbol(symbol)
        except KeyError:
            return False
        return True

    def known(self, symbols: Iterable[sp.Symbol]) -> set[sp.Symbol]:
        """The subset of ``symbols`` that have a :class:`Param` here."""
        return {s for s in symbols if isinstance(s, sp.Symbol) and self.has_symbol(s)}

    def _add(self, p: Param) -> Param:
        self._own[p.name] = p
        self._by_symbol[p.symbol] = p
        return p

    def define(self, name: str, symbol: sp.Symbol, **kw) -> Param:
        """Define a parameter of this namespace (a paper's own symbol).

        A name may shadow a parent's (another domain for the same letter); within one
        namespace a name is defined once, and no two names may print as the same symbol.

        Raises
        ------
        ValueError
            For a name defined twice here, or a symbol name already used by another parameter.
        """
        where = f"namespace {self.name!r}" if self.name else "the namespace"
        if self.frozen:
            raise ValueError(f"parameter {name!r}: {where} is frozen; define it in the paper's own namespace "
                             "(PAPER.define)")
        if name in self._own:
            if self._own[name].symbol != symbol:
                raise ValueError(f"parameter {name!r} is already defined in {where} with symbol "
                                 f"{self._own[name].symbol}")
            return self._own[name]
        clash = [q.name for q in (self[k] for k in self) if q.symbol.name == symbol.name and q.name != name]
        if clash:
            raise ValueError(f"parameter {name!r}: symbol name {symbol.name!r} is already used by parameter "
                             f"{clash[0]!r} in {where}; choose another symbol name")
        return self._add(Param(name, symbol, **kw))


#: the shared parameters, the root namespace of every paper
SHARED = Namespace(_SHARED_PARAMS, name="shared", frozen=True)

#: the shared parameters by name (an alias of :data:`SHARED`)
P = SHARED


def param_of(symbol: sp.Symbol, ns: Namespace = SHARED) -> Param:
    """Return the :class:`Param` of a sympy symbol in ``ns`` (KeyError if it has none)."""
    return ns.by_symbol(symbol)
