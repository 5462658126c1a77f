"""Shared symbols and their assumption domains.

Every statement of every paper draws its symbols from this table, so that
expressions from different statements combine (sympy compares symbols by name
and assumptions).  A :class:`Param` records the domain a paper assumes; the
registry uses it to validate user input and to sample the domain in numeric
derivation checks.

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
from dataclasses import dataclass
from types import SimpleNamespace

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

    def sample(self, rng, n: int):
        """Draw ``n`` points spread over the domain (log-uniform for scale parameters).

        The upper end of an unbounded domain is capped (1e6 for integers, 1e3 for
        constants) so that the numeric checks stay in floating-point range.
        """
        import numpy as np

        lo = self.lo
        hi = self.hi
        if self.soft_hi is not None:
            hi = min(hi, self.soft_hi)
        if hi == math.inf:
            hi = 1e6 if self.integer else 1e3
        if lo == -math.inf:
            lo = -hi
        if self.integer:
            lo_i = max(int(math.floor(lo)) + (1 if self.lo_open else 0), 1)
            x = np.exp(rng.uniform(math.log(lo_i), math.log(hi), n))
            return np.maximum(np.floor(x), lo_i)
        eps = 1e-9
        if lo > 0 and hi / lo > 50:
            x = np.exp(rng.uniform(math.log(lo * (1 + eps)), math.log(hi * (1 - eps)), n))
        elif lo == 0:
            x = np.exp(rng.uniform(math.log(1e-4 * hi), math.log(hi * (1 - eps)), n))
        else:
            width = hi - lo
            x = rng.uniform(lo + eps * width, hi - eps * width, n)
        return x


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

#: domains, by short name (the name a user types)
P: dict[str, Param] = {
    p.name: p
    for p in [
        Param("m", S.m, lo=2, lo_open=False, integer=True, description="sample size"),
        Param("eps", S.eps, soft_hi=1.0, description="privacy parameter ε (papers assume ε < 1)"),
        Param("lam", S.lam, description="regularisation parameter λ"),
        Param("kappa", S.kappa, description="κ = sup sqrt(K(x, x')) (kernel bound)"),
        Param("M", S.M, description="bound on |y|"),
        Param("C_L", S.C_L, description="Lipschitz constant of the loss"),
        Param("gamma", S.gamma, description="strong-convexity modulus of Ω"),
        Param("B", S.B, description="bound on λΩ(f_S) and |L(f_S(x), y)| (000, Theorem 1)"),
        Param("B0", S.B0, description="bound on E_z(0)"),
        Param("B_rho", S.B_rho, description="bound on L(f_λ(x), y)"),
        Param("Omega0", S.Omega0, lo=0, lo_open=False, description="Ω(0)"),
        Param("c_beta", S.c_beta, description="constant of the approximation-error assumption (4)"),
        Param("beta", S.beta, hi=1, hi_open=False, description="approximation-error exponent β ∈ (0, 1]"),
        Param("r", S.r, lo=0, lo_open=True, hi=_INF, description="regularity f_ρ ∈ L_K^r(L²_ρX)"),
        Param("R", S.R, description="bound on ||f_z,λ||_K"),
        Param("G", S.G, description="bound on the expectation of g"),
        Param("delta", S.delta, hi=1, description="confidence parameter δ ∈ (0, 1)"),
        Param("t", S.t, lo=1, lo_open=False, integer=True, description="online iteration"),
        Param("t0", S.t0, description="online offset t₀ > 0"),
        Param("theta", S.theta, hi=1, description="online step exponent θ"),
        Param("Xi", S.Xi, description="almost-sure bound on |ξ − Eξ|"),
        Param("fnorm", S.fnorm, description="||L_K^{-r} f_ρ||_ρ (001) or ||f_ρ||_K (003)"),
        Param("ER2", S.ER2, lo=0, lo_open=False, description="E R_2 (expected random error)"),
        Param("mu", S.mu, description="an eigenvalue of L_K, 0 < μ ≤ κ²"),
        Param("u", S.u, description="a generic positive real"),
        Param("s", S.s, description="Laplace scale"),
        Param("d", S.d, lo=1, lo_open=False, integer=True, description="input dimension"),
        Param("K", S.K, lo=2, lo_open=False, integer=True, description="number of classes"),
        Param("n", S.n, lo=1, lo_open=False, integer=True, description="sample size (004)"),
        Param("h", S.h, description="Huber smoothing width h"),
        Param("c", S.c, description="a generic positive constant"),
        Param("b", S.b, lo=-_INF, description="value of the output-perturbation noise (density argument)"),
    ]
}

#: sympy symbol -> Param
BY_SYMBOL: dict[sp.Symbol, Param] = {p.symbol: p for p in P.values()}


def param_of(symbol: sp.Symbol) -> Param:
    """Return the :class:`Param` of a sympy symbol (KeyError if it has none)."""
    return BY_SYMBOL[symbol]


def define(name: str, symbol: sp.Symbol, **kw) -> Param:
    """Register a new parameter (for paper modules that need symbols of their own).

    Re-defining an existing name with the same symbol returns the existing entry; a new
    name whose symbol *prints* like an existing one (same sympy name) is refused.

    Examples
    --------
    >>> import sympy as sp
    >>> from bounds.symbols import define
    >>> define("zeta_demo", sp.Symbol("zeta_demo", positive=True)).name
    'zeta_demo'
    """
    if name in P:
        if P[name].symbol != symbol:
            raise ValueError(f"parameter {name!r} is already defined with symbol {P[name].symbol}")
        return P[name]
    clash = [q.name for q in P.values() if q.symbol.name == symbol.name]
    if clash:
        # two parameters printing as the same symbol would be confused by name-based lookups
        raise ValueError(f"parameter {name!r}: symbol name {symbol.name!r} is already used by parameter "
                         f"{clash[0]!r}; choose another symbol name")
    p = Param(name, symbol, **kw)
    P[name] = p
    BY_SYMBOL[symbol] = p
    return p
