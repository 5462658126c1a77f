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

A hook may also give ``"derived": f(value, **vals)`` with ``"derived_how"``: the derived row computed by
the same privacy proof with the tightest certified conversion (e.g. a zCDP proof converted to (ε, δ)
by Canonne, Kamath & Steinke's optimal conversion instead of the printed ρ + 2√(ρ ln(1/δ))), and
``"task"`` / ``"estimators"``: the learning tasks the mechanism covers and the estimators running it
(read by :func:`private_alternative`).

**Branches.**  A paper module may declare ``BRANCHES`` in its accounting section: group name →
``{"label", "noise", "regulariser", "members": {statement key → {"name", "cost": f(x, **vals) →
(noise added, extra regularisation)}}}``, for an algorithm whose noise is set by one of several
branches (objective perturbation: Δ = 0 with the ε′ left, or Δ > 0 with ε′ fixed).  :func:`calibrate`
on any member then evaluates every member, in its stated and derived forms, shows those that apply
(a value outside its meaning is the other branch's case) and recommends, among the established
derived forms that apply, the one adding the least noise, then the least extra regularisation.

**Refusals.**  Where no form is established the refusal names a private alternative the toolkit
calibrates, as a command to run (:func:`private_alternative`).

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

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import sympy as sp

from . import alternative as _alt
from .pick import Basis, UnverifiedError, _paren, _reg, basis, single_blas_thread, using
from .validation import num, short

__all__ = ["BranchRow", "Calibration", "CalibrationRow", "UnverifiedError", "calibrate", "mechanism", "mechanism_keys",
           "parameters", "premise_lines", "private_alternative", "relaxation_coverage", "split_relaxed"]



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
class BranchRow:
    """One branch of a branched algorithm in one form: its value, the noise it adds, its extra regularisation."""

    key: str
    name: str
    calibration: str
    value: float | None
    noise: float | None
    regulariser: float | None
    note: str = ""

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
    branches: list[BranchRow] = field(default_factory=list)
    branch_label: str = ""
    recommended: str = ""
    #: relaxed premises (``Statement.relaxes``) the caller gave: name → (value, premise)
    relaxed: dict[str, tuple[float, str]] = field(default_factory=dict)
    #: relaxed premises the caller left out, taken at the paper's value: name → (paper's value, premise)
    at_paper_value: dict[str, tuple[float, str]] = field(default_factory=dict)

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
                "rows": [r.as_dict() for r in self.rows], "note": self.note,
                "branches": [r.as_dict() for r in self.branches], "branch_label": self.branch_label,
                "recommended": self.recommended,
                "relaxed": {k: {"value": v, "premise": p} for k, (v, p) in self.relaxed.items()},
                "at_paper_value": {k: {"value": v, "premise": p} for k, (v, p) in self.at_paper_value.items()}}

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
        lines += premise_lines(self.relaxed, self.at_paper_value)
        cells = [("—" if r.noise is None else f"{r.noise:.6g}", "—" if r.eps_spent is None else f"{r.eps_spent:.6g}")
                 for r in self.rows]
        w = max(len(self.noise_name), *(len(c[0]) for c in cells))
        lines.append(f"  {'':<9}{self.noise_name:>{w}}  {'eps spent':>10}  status")
        for r, (noise, spent) in zip(self.rows, cells, strict=True):
            lines.append(f"  {r.calibration:<9}{noise:>{w}}  {spent:>10}  {r.status}")
        for r in self.rows:
            if r.how:
                lines.append(f"  {r.calibration}: {r.how}")
        lines += [f"  note: {n}" for n in self.note.splitlines()]
        if self.branches:
            lines.append(f"  {self.branch_label}")
            w = max(len(f"{r.key} ({r.name})") for r in self.branches)
            shown = set()
            for r in self.branches:
                both = [q for q in self.branches if q.key == r.key and q.noise is None and q.note == r.note]
                if r.noise is None and len(both) > 1:   # both forms n/a for the same reason: one line
                    if r.key in shown:
                        continue
                    shown.add(r.key)
                    lines.append(f"    {r.key + ' (' + r.name + ')':<{w}}  both forms n/a: {r.note}")
                    continue
                head = f"    {r.key + ' (' + r.name + ')':<{w}}  {r.calibration:<8}"
                if r.noise is None:
                    lines.append(f"{head}n/a: {r.note}")
                else:
                    lines.append(f"{head}noise {r.noise:<10.6g} regulariser {r.regulariser:.6g}"
                                 + (f"  ({r.note})" if r.note else ""))
            if self.recommended:
                lines.append(f"  recommended: {self.recommended}")
        return "\n".join(lines)


def premise_lines(relaxed: Mapping[str, tuple[float, str]],
                  at_paper: Mapping[str, tuple[float, str]]) -> list[str]:
    """The lines saying which relaxed premises the answer takes at the user's value and which at the paper's.

    Examples
    --------
    >>> premise_lines({"q": (20.0, "||x|| <= q")}, {"tol": (0, "exact minimiser")})
    ['  premises relaxed: q = 20 (||x|| <= q)', "  premises at the paper's value: tol = 0 (exact minimiser)"]
    """
    out = []
    if relaxed:
        out.append("  premises relaxed: " + "; ".join(f"{k} = {num(v)} ({p})" for k, (v, p) in relaxed.items()))
    if at_paper:
        out.append("  premises at the paper's value: "
                   + "; ".join(f"{k} = {num(v)} ({p})" for k, (v, p) in at_paper.items()))
    return out


def split_relaxed(st: Any, values: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, tuple], dict[str, tuple]]:
    """``values`` completed with the paper's value of every relaxed premise left out (:meth:`Statement.paper_values`),
    the relaxed premises given (name → (value, premise)) and those taken at the paper's value.

    Examples
    --------
    >>> from bounds.pick import _reg
    >>> vals, given, paper = split_relaxed(_reg().get("cms.alg1.beta"), {"eps": 1, "n": 100, "Lam": 0.1, "q": 20})
    >>> vals["q"], vals["C_L"], vals["tol"], sorted(given), sorted(paper)
    (20, 1, 0, ['q'], ['C_L', 'tol'])
    """
    relaxes = dict(getattr(st, "relaxes", {}) or {})
    full = st.paper_values(values) if hasattr(st, "paper_values") else dict(values)
    given = {k: (values[k], p) for k, (_, p) in relaxes.items() if k in values}
    paper = {k: (v, p) for k, (v, p) in relaxes.items() if k not in values}
    return full, given, paper


def _is_mechanism(st: Any) -> bool:
    return _alt.is_mechanism(st)


def mechanism_keys(paper: str | None = None) -> list[str]:
    """The mechanism statements (noise calibrations) of every paper, or of one (:func:`bounds.alternative.mechanism_keys`).

    Examples
    --------
    >>> "cms.alg2.eps_prime" in mechanism_keys() and "jia.prop1.density" not in mechanism_keys()
    True
    """
    return _alt.mechanism_keys(paper, _reg())


def parameters(key: str) -> list[str]:
    """The parameters :func:`calibrate` needs for ``key`` (those of its stated and derived forms)."""
    return _alt.parameters(key, _reg())


def _hook(st: Any) -> Mapping[str, Any] | None:
    return _alt.hook(st, _reg())


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
    bounds.validation.UnknownKeyError: unknown statement 'cms.alg2'; did you mean ...?; mechanism statements of paper cms: cms.alg2.rate, cms.alg2.eps_prime, ...
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
    vals = {k: float(v) if not isinstance(v, bool) else v for k, v in values.items()}
    # relaxed premises (Statement.relaxes): a value given answers for the user's own data scale, one left out is the
    # paper's; a value outside the parameter's domain is refused by the statement's validation (naming both)
    vals, relaxed, at_paper = split_relaxed(st, vals)
    vals = {k: float(v) if not isinstance(v, bool) else v for k, v in vals.items()}
    try:
        b = basis(st.key, None, allow_unverified, evidence)
    except UnverifiedError as exc:   # the refusal names what the user can run instead
        raise UnverifiedError(f"{exc}; {private_alternative(st.key, vals, evidence)}") from None
    ev = reg.evaluate(st.key)
    eps = vals.get("eps")
    hook = _hook(st)
    group = _branch_group(st)
    noise_name = (hook or {}).get("noise_name") or st.value_of or _value_name(st.quantity)
    out: dict[str, float | None] = {}
    refused: dict[str, str] = {}
    for which in ("stated", "derived"):
        has = st.stated is not None if which == "stated" else ev.derived is not None
        try:
            out[which] = reg.value(st.key, vals, which=which, warn=False) if has else None
        except ValueError as exc:
            if which == "derived":   # the calibration the answer rests on: its refusal is the answer's
                other = _applying_branch(st, group, vals, evidence) if group else None
                if other:
                    raise ValueError(f"{exc}; run: {_command(other, vals)}") from None
                raise
            # the printed form leaves its meaning here (e.g. a negative scale): that row alone is n/a
            out[which], refused[which] = None, f"n/a here: {exc}"
    how_derived = ""
    if hook and "derived" in hook and out["derived"] is not None:
        # the same proof with the tightest certified conversion (the statement's own form stays the stated row)
        out["derived"] = float(hook["derived"](_value, **vals))
        how_derived = hook.get("derived_how", "the derived calibration declared by the paper's accounting")
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
    elif hook and "composes_with" in hook:
        tight = out["derived"] if out["derived"] is not None else out["stated"]
        how_tight = "= derived: this release alone; it composes with the rest of the algorithm (see the note)"
    else:
        tight = out["derived"] if out["derived"] is not None else out["stated"]
        how_tight = ("= derived: one release, nothing composes (the derived calibration is what its privacy proof needs)"
                     if b.established else
                     "= derived: one release, nothing composes; the derived form is not established, so no privacy "
                     "proof stands behind it")
    status = _statuses(b, st, ev)
    moved = {n: vals[n] for n, (paper_value, _p) in dict(getattr(st, "relaxes", {}) or {}).items()
             if n in vals and float(vals[n]) != float(paper_value)}
    if moved and printed_in_paper(st):   # the printed form holds at the paper's premises, not at the user's
        status["stated"] = ("the paper's form generalised to " + ", ".join(f"{n} = {num(v)}" for n, v in moved.items())
                            + " (relaxed premises; the printed form itself is for "
                            + ", ".join(f"{n} = {num(st.relaxes[n][0])}" for n in moved) + "): "
                            + status["stated"].split(": ", 1)[-1])
    if how_derived:
        status["derived"] = (f"the same proof, tightest certified conversion: as valid as its premises "
                             f"({b.verdict_text})" if b.established else status["derived"])
    for name, x in (("stated", out["stated"]), ("derived", out["derived"]), ("tight", tight)):
        e = None
        if x is not None:
            by_proof = name == "derived" and not (hook and "spent" in hook)
            # the derived form spends ε by its own proof, so only where that form is established
            e = (eps if b.established else None) if by_proof and eps is not None else spent(x)
        how = (how_tight if name == "tight" else how_spent if name == "stated" and how_spent
               else how_derived if name == "derived" else "")
        rows.append(CalibrationRow(name, x, e, status[name], refused.get(name, how)))
    notes = []
    if b.form in refused:   # the form the answer rests on leaves its meaning here: say which row answers
        notes.append(f"the {b.form} form is n/a at these values (see its row); the derived row is the calibration "
                     "that applies here")
    rate = _rate_note(st, noise_name, out.get(b.form) if out.get(b.form) is not None else tight)
    if rate:
        notes.append(rate)
    if hook and "composes_with" in hook and eps is not None:
        notes.append(_composition_note(st, hook["composes_with"], vals))
    note = "\n".join(notes)
    c = Calibration(st.key, st.label, st.quantity, noise_name, vals, eps if eps is not None else math.nan, b, rows,
                    note, relaxed=relaxed, at_paper_value=at_paper)
    if group:
        c.branch_label, c.branches, c.recommended = _compare_branches(st, group, vals, evidence)
    return c


# --------------------------------------------------------------------------- branches
def _branch_group(st: Any) -> Mapping[str, Any] | None:
    """The ``BRANCHES`` group of the statement's paper module that lists ``st``, or None."""
    short_key = st.key.split(".", 1)[1]
    for g in _alt.paper_declaration(st, "BRANCHES", _reg()).values():
        members = g.get("members", {})
        if st.key in members or short_key in members:
            return {**g, "members": {(k if "." in k and k.split(".", 1)[0] == st.paper else f"{st.paper}.{k}"): m
                                     for k, m in members.items()}}
    return None


def _branch_rows(st: Any, group: Mapping[str, Any], vals: Mapping[str, float],
                 evidence: Any) -> tuple[list[BranchRow], dict[str, bool]]:
    reg = _reg()
    rows, established = [], {}
    for key, m in group["members"].items():
        mst = reg.get(key)
        try:
            established[key] = basis(key, None, False, evidence).established
        except UnverifiedError:
            established[key] = False
        ev = reg.evaluate(key)
        for which in ("stated", "derived"):
            if (mst.stated if which == "stated" else ev.derived) is None:
                continue
            try:
                x = float(reg.value(key, {k: v for k, v in vals.items() if k in mst.ns}, which=which, warn=False))
            except ValueError:
                rows.append(BranchRow(key, m.get("name", key), which, None, None, None,
                                      f"outside its meaning here: {mst.outside}" if mst.outside
                                      else "outside its meaning here"))
                continue
            noise, extra = (float(y) for y in m["cost"](x, **vals))
            note = "" if which == "stated" or established[key] else "not established"
            rows.append(BranchRow(key, m.get("name", key), which, x, noise, extra, note))
    return rows, established


def _best_branch(rows: list[BranchRow], established: Mapping[str, bool]) -> BranchRow | None:
    """Among the established derived forms that apply: the least noise, then the least extra regularisation."""
    cands = [r for r in rows if r.calibration == "derived" and r.noise is not None and established.get(r.key)]
    if not cands:
        return None
    least = min(r.noise for r in cands)
    near = [r for r in cands if r.noise <= least * (1 + 1e-12)]
    return min(near, key=lambda r: (r.regulariser, r.noise))


def _applying_branch(st: Any, group: Mapping[str, Any], vals: Mapping[str, float], evidence: Any) -> str | None:
    """The key of the branch recommended at ``vals`` when it is not ``st``."""
    best = _best_branch(*_branch_rows(st, group, vals, evidence))
    return best.key if best is not None and best.key != st.key else None


def _compare_branches(st: Any, group: Mapping[str, Any], vals: Mapping[str, float],
                      evidence: Any) -> tuple[str, list[BranchRow], str]:
    rows, established = _branch_rows(st, group, vals, evidence)
    label = (f"branches of {group.get('label', st.label)} (noise added: {group.get('noise', 'noise')}; extra "
             f"regularisation: {group.get('regulariser', 'none')}), stated and derived forms:")
    best = _best_branch(rows, established)
    if best is None:
        return label, rows, "none: no established derived form of a branch applies here"
    others = [r for r in rows if r.calibration == "derived" and r.noise is not None and r.key != best.key
              and established.get(r.key)]
    if not others:
        why = "the only branch whose derived form applies here"
    else:
        o = min(others, key=lambda r: (r.noise, r.regulariser))
        if o.noise > best.noise * (1 + 1e-12):
            why = (f"the least noise ({best.noise:.6g} against {o.noise:.6g} for {o.key}, "
                   f"{o.noise / best.noise:.3g}×)")
        else:
            why = f"the same noise as {o.key} with less extra regularisation ({best.regulariser:.6g} against " \
                  f"{o.regulariser:.6g})"
        if best.regulariser > o.regulariser:
            why += f", at the cost of extra regularisation {best.regulariser:.6g} (against {o.regulariser:.6g})"
    here = " (this statement)" if best.key == st.key else ""
    return label, rows, f"{best.key}{here}, derived: {why}; run: {_command(best.key, vals)}"


def _command(key: str, vals: Mapping[str, float]) -> str:
    # a relaxed premise at the paper's value is the default: the command leaves it out
    relaxes = getattr(_reg().get(key), "relaxes", {}) or {}
    vals = {k: v for k, v in vals.items() if not (k in relaxes and float(v) == float(relaxes[k][0]))}
    return _alt.command(key, vals, _reg())


#: the words by which a statement of a citation-only paper says that its form is the toolkit's composition, not
#: printed in the paper (in its ``equation`` or ``notes``): its stated row is then "the encoded form"
COMPOSED_MARKER = "not in the paper"


def printed_in_paper(st: Any) -> bool:
    """False for a statement whose form the toolkit composed: its paper is read from a citation (no seed file)
    and its ``equation`` or ``notes`` says it is :data:`COMPOSED_MARKER`; True otherwise.

    Examples
    --------
    >>> from bounds.pick import _reg
    >>> printed_in_paper(_reg().get("cms.rff.amp_rate")), printed_in_paper(_reg().get("cms.alg2.eps_prime"))
    (False, True)
    """
    if getattr(st, "seed", ""):
        return True
    return not any(COMPOSED_MARKER in (getattr(st, f, "") or "") for f in ("equation", "notes"))


def _value_name(quantity: str) -> str:
    """The column header of a statement without ``value_of``: a rate is named as such ("rate r′"), else "noise"."""
    head = quantity.split(" of ", 1)[0].strip()
    return head if head.startswith("rate ") and len(head) <= 12 else "noise"


def _rate_note(st: Any, name: str, x: float | None) -> str:
    """For a statement whose value is a rate r of a density ∝ exp(−r‖b‖): the noise's scale 1/r, said once."""
    if not st.quantity.startswith("rate ") or x is None or not x > 0:
        return ""
    sym = st.quantity.split(" of ", 1)[0].split()[-1]    # "rate β of …" → β
    return f"{sym} = {x:.6g} is a rate (density ∝ exp(−{sym}‖b‖)), not a scale: the noise's scale is 1/{sym} = {1 / x:.6g}"


def _composition_note(st: Any, comp: Mapping[str, Any], vals: Mapping[str, float]) -> str:
    """What a release that is one part of a composition leaves for the other part, with the commands to run."""
    keys = [k if k.startswith(f"{st.paper}.") else f"{st.paper}.{k}" for k in comp.get("keys", ())]
    e1 = float(comp["eps"](**vals))
    runs = "; ".join(_command(k, {**{n: v for n, v in vals.items() if n in _reg().get(k).ns}, "eps": e1})
                     for k in keys)
    return (f"this release spends only its part of eps = {num(vals['eps'])} (the eps spent column); the rest, "
            f"eps = {num(e1)}, is for {', '.join(keys)} ({comp.get('why', '')}): run {runs} — calibrating them at "
            f"eps = {num(vals['eps'])} would spend more than eps in total")


def _statuses(b: Basis, st: Any, ev: Any) -> dict[str, str]:
    """The verdict each calibration's form carries."""
    wrong = b.verdict in ("refuted", "erratum", "typo")
    if printed_in_paper(st):
        stated = f"the paper's printed form: {b.verdict_text}{_paren(b.truth, b.verdict_text)}"
    else:   # the toolkit composed it: no printed form of the paper stands behind it, its derivation does
        stated = f"the encoded form (the toolkit's, not printed in the paper): {b.verdict_text} by its derivation"
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


def private_alternative(key: str, values: Mapping[str, float] | None = None, evidence: Any = None) -> str:
    """A private alternative to mechanism statement ``key`` that the toolkit calibrates, as commands to run.

    :func:`bounds.alternative.private_alternative` (its rule) on the active registry, a statement
    counting as established when :func:`bounds.pick.basis` finds an established form of it with
    ``evidence``.

    Parameters
    ----------
    key : str
        A mechanism statement.
    values : mapping, optional
        The values the user gave for ``key`` (carried into the commands where they apply).
    evidence : list of Result, optional
        As in :func:`calibrate`.

    Returns
    -------
    str
        One line: ``private alternative the toolkit calibrates: python -m bounds calibrate ...``.

    Examples
    --------
    >>> alt = private_alternative("jia.s5_2.scale", {"eps": 0.5, "m": 1000, "lam": 0.1, "kappa": 1}, evidence=[])
    >>> "python -m bounds calibrate" in alt and "python -m bounds noise laplace" in alt
    True
    """
    def established(k: str) -> bool:
        try:
            return basis(k, None, False, evidence).established
        except UnverifiedError:
            return False

    with using(_alt.every_paper(_reg())) as reg:
        return _alt.private_alternative(key, values, established=established, registry=reg)


# --------------------------------------------------------------------------- coverage of relaxed premises
#: the premises real implementations commonly relax (issue 34 item 5): name → words by which a premise text, a
#: parameter's description or a statement's notes refer to it
RELAXABLE = {
    "feature norm": ("‖x‖", "||x||", "feature norm", "kernel bound", "kappa", "κ", "‖z", "||z"),
    "intercept": ("intercept", "offset"),
    "exact minimiser": ("minimiser", "minimizer", "tolerance", "‖∇j", "inexact"),
    "loss Lipschitz constant": ("lipschitz", "|ℓ'|", "|l'|", "c_l"),
    "loss smoothness": ("smooth", "ℓ''", "curvature"),
}


def _mentions(text: str, words: tuple[str, ...]) -> bool:
    t = text.lower()
    return any(w.lower() in t for w in words)


def _sentences(text: str) -> list[str]:
    import re

    # a sentence ends at a full stop, not at the abbreviations "i.e." and "e.g."
    return [s.strip() for s in re.split(r"(?<!i\.e\.)(?<!e\.g\.)(?<=\.)\s+", text or "") if s.strip()]


def relaxation_coverage(registry: Any = None) -> list[dict[str, Any]]:
    """Per mechanism statement: the premises implementations relax that it takes as parameters, and those it does not.

    A *mechanism statement* is one :func:`mechanism_keys` lists or one that declares ``premises`` (it calibrates a
    noise or certifies a release).  For each premise of :data:`RELAXABLE` the rule is, in order:

    1. a relaxed parameter (``Statement.relaxes``) whose premise text names it: ``"parameter"``, with the
       parameter, the paper's value and the premise;
    2. a parameter of the statement (not relaxed: the paper has it as a parameter already, e.g. the curvature c of
       objective perturbation) whose description names it: ``"parameter of the paper"`` (not for the intercept:
       an "offset" parameter such as an online step offset is no intercept);
    3. a sentence of the statement's ``notes`` that names it, one saying "not a parameter" first:
       ``"not a parameter"`` with that sentence as the reason (the paper module says why it is not, or cannot be,
       a parameter);
    4. else ``"not declared"``: the paper module says nothing about it.

    Parameters
    ----------
    registry : Registry, optional
        The registry to read (default: the active one).

    Returns
    -------
    list of dict
        One per statement: ``key``, ``paper``, ``label``, ``relaxed`` (list of ``{"name", "paper_value",
        "premise"}``) and ``premises`` (list of ``{"premise", "status", "parameter", "reason"}``, one per
        :data:`RELAXABLE` entry).

    Examples
    --------
    >>> rows = {r["key"]: r for r in relaxation_coverage()}
    >>> [p["name"] for p in rows["cms.alg1.beta"]["relaxed"]]
    ['C_L', 'q', 'tol']
    >>> {p["premise"]: p["status"] for p in rows["cms.alg1.beta"]["premises"]}["intercept"]
    'not a parameter'
    """
    reg = registry if registry is not None else _reg()
    keys = set(_alt.mechanism_keys(None, reg)) | {k for k in reg.keys() if getattr(reg.get(k), "premises", None)}
    out = []
    for k in (k for k in reg.keys() if k in keys):
        st = reg.get(k)
        relaxes = dict(getattr(st, "relaxes", {}) or {})
        relaxed = [{"name": n, "paper_value": v, "premise": p} for n, (v, p) in relaxes.items()]
        notes = _sentences(getattr(st, "notes", ""))
        rows = []
        for premise, words in RELAXABLE.items():
            hit = next((n for n, (_, p) in relaxes.items() if _mentions(p, words)), None)
            if hit is not None:
                rows.append({"premise": premise, "status": "parameter", "parameter": hit,
                             "reason": relaxes[hit][1]})
                continue
            own = None if premise == "intercept" else next(   # an "offset" parameter (online t₀) is no intercept
                (n for n in st.params if n not in relaxes and n in st.ns and _mentions(st.ns[n].description, words)),
                None)
            if own is not None:
                rows.append({"premise": premise, "status": "parameter of the paper", "parameter": own,
                             "reason": st.ns[own].description})
                continue
            said = next((s for s in notes if _mentions(s, words) and "not a parameter" in s.lower()),
                        next((s for s in notes if _mentions(s, words)), None))
            if said:   # the status says "not a parameter": the reason does not repeat it
                said = re.sub(r"^not a parameter\s*[:;,.]\s*", "", said, flags=re.IGNORECASE)
                said = said[:1].upper() + said[1:]
            rows.append({"premise": premise, "status": "not a parameter" if said else "not declared",
                         "parameter": "", "reason": said or "the paper module declares nothing about it"})
        out.append({"key": st.key, "paper": st.paper, "label": st.label, "relaxed": relaxed, "premises": rows})
    return out
