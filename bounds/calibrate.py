"""Which noise to add: the stated, derived and tight calibrations of a mechanism, side by side.

A *mechanism statement* is a statement whose value is a noise parameter of a paper's mechanism
(a Laplace scale, a Gaussian variance, a noise rate, the budget left for the noise density, an
extra regulariser): a statement of kind ``noise`` whose quantity is not a density or a law and whose
printed form depends on ε, or one that declares the noise parameter it gives (``Statement.value_of``).  The set is discovered from the
papers (:func:`mechanism_keys`), never listed.

For each, :func:`calibrate` evaluates at the given ε (and δ), sample size and constants:

``stated``
    the paper's printed calibration;
``derived``
    the calibration its proof (or the corrected proof) needs;
``tight``
    the smallest noise the accountant of :mod:`bounds.accounting` certifies.  A paper module may
    declare it, with the ε a noise spends, in a module-level ``ACCOUNTING`` mapping (statement key
    → ``{"tight": f(value, **vals), "spent": g(value, noise, **vals), "accountant": text}``, where
    ``value(key, **vals)`` evaluates a statement); without it the mechanism is one release of pure
    ε-DP noise, nothing composes, and the tight calibration is the derived one.

and the ε each one actually spends: by the declared accountant, or, for one release whose derived
noise is proportional to ε^±1, ε·(derived/noise)^±1 (the privacy loss of one Laplace-type
release).  Each row carries the verdict of its form (:mod:`bounds.verdict`); where no form of the
statement is established the answer is refused (:class:`bounds.pick.UnverifiedError`) unless
``allow_unverified``.

Examples
--------
>>> from bounds.calibrate import calibrate
>>> c = calibrate("cms.alg2.eps_prime", evidence=[], eps=1, n=1000, Lam=0.1, c=0.25)
>>> [(r.calibration, round(r.noise, 6), round(r.eps_spent, 6)) for r in c.rows]
[('stated', 0.995006, 0.997503), ('derived', 0.997503, 1.0), ('tight', 0.997503, 1.0)]
"""

from __future__ import annotations

import functools
import importlib
import math
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import sympy as sp

from .pick import Basis, UnverifiedError, _paren, _reg, basis, single_blas_thread
from .validation import num, short

__all__ = ["Calibration", "CalibrationRow", "UnverifiedError", "calibrate", "mechanism", "mechanism_keys", "parameters"]



@dataclass
class CalibrationRow:
    """One calibration of a mechanism: its noise, the ε it spends and the verdict of its form."""

    calibration: str
    noise: float | None
    eps_spent: float | None
    status: str
    how: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Calibration:
    """The answer of :func:`calibrate`: the statement, its basis (form used, verdict, regime) and the rows."""

    key: str
    label: str
    quantity: str
    noise_name: str
    values: dict[str, float]
    eps: float
    basis: Basis
    rows: list[CalibrationRow] = field(default_factory=list)
    note: str = ""

    @property
    def form(self) -> str:
        return self.basis.form

    @property
    def verdict(self) -> str:
        return self.basis.verdict

    def row(self, name: str) -> CalibrationRow:
        return next(r for r in self.rows if r.calibration == name)

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "label": self.label, "quantity": self.quantity, "noise_name": self.noise_name,
                "values": self.values, "eps": self.eps, "form": self.form, "verdict": self.basis.verdict,
                "verdict_text": self.basis.verdict_text, "truth": self.basis.truth, "regime": self.basis.regime,
                "correction": self.basis.correction, "basis_note": self.basis.note, "warning": self.basis.warning,
                "rows": [r.as_dict() for r in self.rows], "note": self.note}

    def text(self) -> str:
        """The command line's answer."""
        b = self.basis
        lines = [f"{self.key} ({self.label}): {self.quantity}",
                 f"  at {', '.join(f'{k}={num(v)}' for k, v in self.values.items())}",
                 f"  statement {b.line()}"]
        if b.note:
            lines.append(f"  note: {b.note}")
        if b.warning:
            lines.append(f"  warning: {b.warning}")
        cells = [("—" if r.noise is None else f"{r.noise:.6g}", "—" if r.eps_spent is None else f"{r.eps_spent:.6g}")
                 for r in self.rows]
        w = max(len(self.noise_name), *(len(c[0]) for c in cells))
        lines.append(f"  {'':<9}{self.noise_name:>{w}}  {'eps spent':>10}  status")
        for r, (noise, spent) in zip(self.rows, cells, strict=True):
            lines.append(f"  {r.calibration:<9}{noise:>{w}}  {spent:>10}  {r.status}")
        for r in self.rows:
            if r.how:
                lines.append(f"  {r.calibration}: {r.how}")
        if self.note:
            lines.append(f"  note: {self.note}")
        return "\n".join(lines)


def _is_mechanism(st: Any) -> bool:
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


def mechanism_keys(paper: str | None = None) -> list[str]:
    """The mechanism statements (noise calibrations) of every paper, or of one.

    Examples
    --------
    >>> "cms.alg2.eps_prime" in mechanism_keys() and "jia.prop1.density" not in mechanism_keys()
    True
    """
    reg = _reg()
    return [k for k in reg.keys() if _is_mechanism(reg.get(k)) and (paper is None or reg.get(k).paper == paper)]


def parameters(key: str) -> list[str]:
    """The parameters :func:`calibrate` needs for ``key`` (those of its stated and derived forms)."""
    reg = _reg()
    st = reg.get(key)
    ev = reg.evaluate(st.key)
    syms = set()
    for e in (st.stated, ev.derived):
        if e is not None:
            syms |= e.free_symbols
    names = {st.ns.by_symbol(s).name for s in syms if st.ns.has_symbol(s)}
    return [n for n in st.params if n in names] + sorted(names - set(st.params))


@functools.lru_cache(maxsize=32)
def _hooks(module: str) -> Mapping[str, Any]:
    try:
        mod = importlib.import_module(module)
    except ImportError:
        return {}
    return getattr(mod, "ACCOUNTING", {}) or {}


def _hook(st: Any) -> Mapping[str, Any] | None:
    paper = _reg().papers.get(st.paper)
    module = getattr(paper, "module", "") or f"{__package__}.papers.{st.paper}"
    hooks = _hooks(module)
    short_key = st.key.split(".", 1)[1]
    return hooks.get(st.key) or hooks.get(short_key)


def _value(key: str, **vals: float) -> float:
    """A statement of the active registry in its recommended form, validated (warnings off)."""
    reg = _reg()
    st = reg.get(key)
    ns = st.ns
    ev = reg.evaluate(st.key)
    expr = ev.expression
    need = {ns.by_symbol(s).name for s in expr.free_symbols if ns.has_symbol(s)}
    return reg.value(st.key, {k: v for k, v in vals.items() if k in need or k in st.params and k in need},
                     warn=False)


def _eps_power(expr: sp.Expr, eps: sp.Symbol) -> int | None:
    """+1 or −1 when ``expr`` is proportional to ε or 1/ε, else None.

    The factor of ``expr`` that depends on ε is read first; otherwise ε·d log(expr)/dε is reduced by
    :func:`sympy.cancel` (``sympy.simplify`` would import ``sympy.physics.units``, 0.25 s per process).

    Examples
    --------
    >>> e, n, lam = sp.symbols("epsilon n Lambda", positive=True)
    >>> _eps_power(2 / (e * lam * n), e), _eps_power(lam * e * n / 2, e), _eps_power(e - sp.log(1 + 1 / n), e)
    (-1, 1, None)
    """
    if expr is None or eps not in expr.free_symbols:
        return None
    _, dep = expr.as_independent(eps, as_Add=False)
    for k in (1, -1):
        if dep == eps ** k:
            return k
    try:
        r = sp.cancel(sp.together(eps * sp.diff(sp.log(expr), eps)))
    except Exception:  # noqa: BLE001 - a form sympy cannot differentiate: no proportional rule
        return None
    return int(r) if r in (1, -1) else None


def mechanism(key: Any) -> Any:
    """The mechanism statement ``key``; an unknown key or another statement is an error listing the paper's.

    Raises
    ------
    ValueError
        (an :class:`~bounds.validation.UnknownKeyError` for an unknown key) naming the mechanism
        statements of the paper the key names.

    Examples
    --------
    >>> mechanism("cms.alg2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bounds.validation.UnknownKeyError: unknown statement 'cms.alg2'; did you mean ...?; mechanism statements of paper cms: cms.alg2.eps_prime, ...
    """
    reg = _reg()
    try:
        st = reg.get(key)
    except LookupError as exc:
        raise type(exc)(f"{exc}; {_hint(key)}") from None
    if not _is_mechanism(st):
        raise ValueError(f"statement {st.key} ({st.label}) is not a mechanism statement (a noise calibration); "
                         f"{_hint(st.key)}")
    return st


@single_blas_thread
def calibrate(key: str, allow_unverified: bool = False, evidence: Any = None, **values: float) -> Calibration:
    """The stated, derived and tight noise of mechanism statement ``key``, the ε each spends, their verdicts.

    Parameters
    ----------
    key : str
        A mechanism statement (:func:`mechanism_keys`); a paper or section prefix is answered with
        the list of its mechanism statements.
    allow_unverified : bool
        Answer even where no form of the statement is established (the answer carries a warning).
    evidence : list of Result, optional
        Empirical and audit rows deciding the verdict (default: the generated report's).
    **values
        ε (``eps``), δ where the mechanism has one, the sample size and the paper's constants
        (:func:`parameters`).

    Returns
    -------
    Calibration

    Raises
    ------
    UnverifiedError
        Where no form of the statement is established and ``allow_unverified`` is false.
    ValueError
        For a key that is not a mechanism statement (with the paper's mechanism statements), a
        value outside the statement's assumptions, or a value outside what the noise parameter
        means (the branch that applies is named).

    Examples
    --------
    >>> c = calibrate("cms.alg1.beta", evidence=[], eps=1, n=1000, Lam=0.1)
    >>> c.verdict, [r.noise for r in c.rows]
    ('consistent', [50.0, 50.0, 50.0])
    """
    reg = _reg()
    st = mechanism(key)
    b = basis(st.key, None, allow_unverified, evidence)
    ev = reg.evaluate(st.key)
    vals = {k: float(v) if not isinstance(v, bool) else v for k, v in values.items()}
    eps = vals.get("eps")
    hook = _hook(st)
    noise_name = (hook or {}).get("noise_name") or st.value_of or "noise"
    out: dict[str, float | None] = {}
    refused: dict[str, str] = {}
    for which in ("stated", "derived"):
        has = st.stated is not None if which == "stated" else ev.derived is not None
        try:
            out[which] = reg.value(st.key, vals, which=which, warn=False) if has else None
        except ValueError as exc:
            if which == "derived":   # the calibration the answer rests on: its refusal is the answer's
                raise
            # the printed form leaves its meaning here (e.g. a negative scale): that row alone is n/a
            out[which], refused[which] = None, f"n/a here: {exc}"
    rows = []
    eps_sym = st.ns["eps"].symbol if "eps" in st.ns else None
    power = _eps_power(ev.derived if ev.derived is not None else st.stated, eps_sym) if eps_sym is not None else None
    spent: Callable[[float], float | None]
    how_spent = ""
    if hook and "spent" in hook:
        def spent(x: float) -> float | None:
            return float(hook["spent"](_value, x, **vals))
        how_spent = hook.get("accountant", "the paper's declared accountant")
    elif power is not None and eps is not None and out["derived"]:
        def spent(x: float) -> float | None:
            if not b.established:   # the derived form is not known to spend ε: nothing to scale from
                return None
            return eps * (out["derived"] / x) ** (-power) if x and x > 0 else None
        how_spent = ("one release of pure ε-DP noise: ε spent = ε·(derived/noise)" if power == -1
                     else "one release of pure ε-DP noise: ε spent = ε·(noise/derived)")
    else:
        def spent(x: float) -> float | None:
            return None
    if not b.established:    # no privacy proof stands behind the derived form: no ε is said to be spent by it
        how_spent = ""
    if hook and "tight" in hook:
        tight = float(hook["tight"](_value, **vals))
        how_tight = hook.get("accountant", "the paper's declared accountant")
    else:
        tight = out["derived"] if out["derived"] is not None else out["stated"]
        how_tight = ("= derived: one release, nothing composes (the derived calibration is what its privacy proof needs)"
                     if b.established else
                     "= derived: one release, nothing composes; the derived form is not established, so no privacy "
                     "proof stands behind it")
    status = _statuses(b, st, ev)
    for name, x in (("stated", out["stated"]), ("derived", out["derived"]), ("tight", tight)):
        e = None
        if x is not None:
            by_proof = name == "derived" and not (hook and "spent" in hook)
            # the derived form spends ε by its own proof, so only where that form is established
            e = (eps if b.established else None) if by_proof and eps is not None else spent(x)
        how = how_tight if name == "tight" else how_spent if name == "stated" and how_spent else ""
        rows.append(CalibrationRow(name, x, e, status[name], refused.get(name, how)))
    note = ""
    if b.form in refused:   # the form the answer rests on leaves its meaning here: say which row answers
        note = (f"the {b.form} form is n/a at these values (see its row); the derived row is the calibration "
                "that applies here")
    return Calibration(st.key, st.label, st.quantity, noise_name, vals, eps if eps is not None else math.nan, b, rows,
                       note)


def _statuses(b: Basis, st: Any, ev: Any) -> dict[str, str]:
    """The verdict each calibration's form carries."""
    wrong = b.verdict in ("refuted", "erratum", "typo")
    stated = f"the paper's printed form: {b.verdict_text}{_paren(b.truth, b.verdict_text)}"
    if not b.established:
        derived = "not established: " + (b.correction or b.truth)
    elif wrong:
        derived = "the corrected form: established (" + b.correction.split(":", 1)[0] + ")"
    elif b.verdict == "cited":
        derived = "the cited form, as its source states it (taken, not re-derived here)"
    else:
        derived = f"the toolkit's derived form: holds ({b.verdict_text})"
    tight = ("the accountant's: as valid as the derived form's premises" if b.established
             else "the accountant's: rests on premises that are not established")
    return {"stated": stated, "derived": derived, "tight": tight}


def _hint(key: Any) -> str:
    reg = _reg()
    pid = key.split(".", 1)[0] if isinstance(key, str) else None
    if pid in reg.papers:
        mine = mechanism_keys(pid)
        if mine:
            under = [k for k in mine if k.startswith(str(key))]
            return f"mechanism statements of paper {pid}: " + ", ".join([*under, *(k for k in mine if k not in under)])
        return f"paper {pid} has no mechanism statement; mechanism statements: " + ", ".join(mechanism_keys())
    return "mechanism statements: " + ", ".join(mechanism_keys()) + (f" (not {short(key)})" if key else "")
