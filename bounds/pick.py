"""Picking ε and λ from a bound: the paper's schedule, an optimised choice, inverse queries.

A *pickable* statement is a bound written before the paper substitutes its
schedule (``jia.thm4.bound``, ``jamp.thm3.bound``, ...); its ``schedule``
field names the schedule statements.  A rate statement (``jia.thm4``) may be
given instead: its pickable dependency is used.

All numbers use the expression the registry recommends for numeric use (the
derived one for an erratum), unless ``which="stated"``.

The searches stay inside the paper's regime (``PAPER.regime``: λ ≤ 1 for jia and jamp) unless
``regime=False``; where the optimum over the whole domain lies outside it, the answer says so and
gives that point (``Pick.outside_regime``).  Every answer is compared with the statement's trivial
ceiling (``Statement.ceiling``: 1 for an excess misclassification risk, M² for least squares with
|y| ≤ M, ...; :func:`is_utility_bound` is the rule that says which statements declare one): a bound
at or above it is *vacuous*, and the answer then gives the smallest m at which it is not, or that
it never is at this ε with the m-free terms that stop it and the ε from which they alone reach
the ceiling (:class:`Vacuity`).

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
import functools
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import sympy as sp

from .core import PrivacyWarning, Statement, _rel_text, moderate_value, number_or_reason, validate
from .symbols import SHARED, Namespace, S
from .validation import UnknownKeyError, culprits, fmt_point, num, positive_finite, real, short
from .verdict import verdicts as verdicts_of

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


#: the searches' stopping step in log coordinates: the variables are found to a relative 1e-10
_LOG_TOL = 1e-10
#: half-width, in steps, of a refining grid (a (2k+1)^d grid around the best point so far), by dimension d
_HALF = {1: 20, 2: 5}


def _log_objective(b: Any, fixed: Mapping[str, float], free: list[str]) -> Any:
    """``F(X)``: log of the bound at the points ``exp(X[:, j])`` of the free variables (X of shape (d, N)),
    +inf where the bound is not a positive float; one vectorised evaluation, a point-by-point one where the
    lambdified bound does not take arrays."""
    def scalar(x: np.ndarray) -> float:
        kw = dict(fixed)
        kw.update({n: math.exp(v) for n, v in zip(free, x, strict=True)})
        v = b(**kw)
        return math.log(v) if 0 < v < math.inf else math.inf

    def F(X: np.ndarray) -> np.ndarray:
        kw: dict[str, Any] = dict(fixed)
        with np.errstate(all="ignore"):
            kw.update({n: np.exp(X[i]) for i, n in enumerate(free)})
            try:
                r = np.asarray(b.f(*[kw[n] for n in b.choice])) * np.ones(X.shape[1])
            except (ArithmeticError, TypeError, ValueError):
                return np.array([scalar(X[:, j]) for j in range(X.shape[1])])
            if np.iscomplexobj(r):
                r = np.where(np.imag(r) == 0, np.real(r), np.nan)
            r = np.asarray(r, dtype=float)
            return np.where(np.isfinite(r) & (r > 0), np.log(np.where(r > 0, r, 1.0)), np.inf)
    return F


def _mesh(axes: list[np.ndarray]) -> np.ndarray:
    """The points of the grid ``axes[0] × axes[1] × ...`` as columns of a (d, N) array."""
    return np.stack([g.ravel() for g in np.meshgrid(*axes, indexing="ij")])


def _refine(F: Any, x: np.ndarray, fx: float, h: np.ndarray, lo: np.ndarray, hi: np.ndarray,
            tol: float = _LOG_TOL, max_iter: int = 600) -> tuple[np.ndarray, float]:
    """Pattern search by zoomed grids: a (2k+1)^d grid of step ``h`` around the best point ``x``; the grid
    moves with its best point while that lies on the grid's edge and shrinks (to a half-width of 2 old
    steps) once it lies inside, until every step is below ``tol``.  Deterministic; never worse than ``x``."""
    k = _HALF.get(len(x), 3)
    offsets = np.arange(-k, k + 1, dtype=float)
    for _ in range(max_iter):
        if float(np.max(h)) < tol:
            break
        axes = [np.clip(x[i] + h[i] * offsets, lo[i], hi[i]) for i in range(len(x))]
        X = _mesh(axes)
        v = F(X)
        j = int(np.argmin(v))
        edge = False
        if v[j] < fx:
            idx = np.unravel_index(j, tuple(len(a) for a in axes))
            x, fx = X[:, j].copy(), float(v[j])
            edge = any(idx[i] in (0, 2 * k) and lo[i] < x[i] < hi[i] for i in range(len(x)))
        if not edge:
            h = h * (2.0 / k)
    return x, fx


def _grid_minimise(F: Any, lo: np.ndarray, hi: np.ndarray, starts: list[np.ndarray] = (),  # type: ignore[assignment]
                   n0: int | None = None, n_local: int = 4) -> tuple[np.ndarray | None, float]:
    """Global minimum of ``F`` over the box [lo, hi] (log coordinates): a coarse grid (401 points in one
    dimension, 81 × 81 in two), its best local minima (up to ``n_local``) and the given ``starts``, each
    refined by :func:`_refine` to a step of 1e-10.  ``(None, inf)`` where ``F`` is infinite everywhere tried.

    Examples
    --------
    >>> F = lambda X: (X[0] - 0.3) ** 2 + (X[1] + 1) ** 2 + 0.5 * X[0] * X[1]
    >>> x, f = _grid_minimise(F, np.array([-5.0, -5.0]), np.array([5.0, 5.0]))
    >>> bool(np.allclose(x, np.linalg.solve([[2, 0.5], [0.5, 2]], [0.6, -2]), atol=1e-8))
    True
    """
    d = len(lo)
    n0 = n0 or (401 if d == 1 else 81)
    axes = [np.linspace(lo[i], hi[i], n0) for i in range(d)]
    X = _mesh(axes)
    v = F(X)
    shape = (n0,) * d
    V = v.reshape(shape)
    pad = np.pad(V, 1, constant_values=np.inf)
    local = np.isfinite(V)
    for off in np.ndindex(*(3,) * d):
        if all(o == 1 for o in off):
            continue
        sl = tuple(slice(o, o + n0) for o in off)
        local &= V <= pad[sl]
    cand = np.flatnonzero(local.ravel())
    cand = cand[np.argsort(v[cand], kind="stable")][:n_local]
    h0 = np.array([(hi[i] - lo[i]) / (n0 - 1) for i in range(d)])
    best_x, best = None, math.inf
    points = [(X[:, j].copy(), float(v[j])) for j in cand]
    for s in starts:
        s = np.clip(np.asarray(s, dtype=float), lo, hi)
        points.append((s, float(F(s.reshape(d, 1))[0])))
    for x0, f0 in points:
        if not math.isfinite(f0):
            continue
        x, fx = _refine(F, x0, f0, h0.copy(), lo, hi)
        if fx < best:
            best_x, best = x, fx
    return best_x, best


_LIMITED: contextvars.ContextVar[bool] = contextvars.ContextVar("bounds_pick_one_blas_thread", default=False)


def _user_threads() -> bool:
    """Whether the user chose a BLAS/OpenMP thread count other than 1 in the environment."""
    import os

    from ._lazy import BLAS_THREAD_ENV

    return any(os.environ.get(v) not in (None, "", "1") for v in BLAS_THREAD_ENV)


def single_blas_thread(fn: Any) -> Any:
    """Run ``fn`` with one BLAS/OpenMP thread (threadpoolctl, when installed; nested calls limit once).

    The pickers' linear algebra is on vectors of length 2: extra BLAS threads only spin, and with the
    other cores busy they cost 10× the CPU (issue 24).  Nothing computed depends on the thread count.
    A thread count the user chose (``OMP_NUM_THREADS`` and the like set to another value than 1,
    :data:`bounds._lazy.BLAS_THREAD_ENV`) is left as it is.
    """
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if _LIMITED.get() or _user_threads():
            return fn(*args, **kwargs)
        try:       # about 2 ms: the libraries loaded now are found each time (scipy may load its own BLAS later)
            from threadpoolctl import threadpool_limits
        except ImportError:
            return fn(*args, **kwargs)
        token = _LIMITED.set(True)
        try:
            with threadpool_limits(1):
                return fn(*args, **kwargs)
        finally:
            _LIMITED.reset(token)
    return wrapper


#: variables a picker may choose
CHOICE = ("eps", "lam")
_EPS_MAX = 1.0  # the papers assume ε < 1 (meaningful privacy)
#: whether the searches stay inside the paper's regime (``PAPER.regime``: λ ≤ 1 for jia, ...); see :func:`optimise`
_REGIME: contextvars.ContextVar[bool] = contextvars.ContextVar("bounds_pick_regime", default=True)


@contextlib.contextmanager
def _in_regime(regime: Any):
    if not isinstance(regime, bool):
        raise ValueError(f"parameter 'regime' = {short(regime)} must be True (search inside the paper's regime) or "
                         "False (the whole domain)")
    token = _REGIME.set(regime)
    try:
        yield
    finally:
        _REGIME.reset(token)


def _regime_range(st: Statement, name: str) -> tuple[float, float]:
    """The paper's declared range of ``name`` (``(0, inf)`` when it declares none or the search is unconstrained)."""
    if not _REGIME.get():
        return 0.0, math.inf
    lo, hi = st.ns.regime.ranges.get(name, (0.0, math.inf))
    return float(lo), float(hi)


def _lam_hi(b: Any) -> float:
    """Upper end of the λ search: the statement's domain, inside the paper's regime unless unconstrained."""
    return min(b.lam_max, _regime_range(b.st, "lam")[1])


def _eps_hi(st: Statement) -> float:
    """Upper end of the ε search (below 1, the papers' ε < 1, and inside the paper's regime)."""
    return min(_EPS_MAX * (1 - 1e-9), _regime_range(st, "eps")[1] * (1 - 1e-9))
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
    #: the form of the bound used (``stated``, ``derived``), its statement's one verdict and regime status
    form: str = ""
    verdict: str = ""
    verdict_text: str = ""
    regime: str = ""
    #: why this form (a corrected form is used and said so); a warning when no form is established
    basis_note: str = ""
    warning: str = ""
    #: the additive term of the bound that dominates at this point, its share, and the terms rising in ε
    dominant: str = ""
    dominant_share: float | None = None
    rising_in_eps: list[str] = field(default_factory=list)
    #: the bound against its trivial ceiling (:class:`Vacuity`: ``vacuity`` is its one line)
    vacuous: bool | None = None
    ceiling: float | None = None
    ceiling_why: str = ""
    nonvacuous_m: int | None = None
    max_useful_eps: float | None = None
    blocking_term: str = ""
    eps_threshold: float | None = None
    vacuity: str = ""
    vacuity_explanation: str = ""
    #: the optimum over the whole domain where it lies outside the paper's regime (the answer stays inside it)
    outside_regime: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def _set_vacuity(self, v: Vacuity) -> Pick:
        self.vacuous, self.ceiling, self.ceiling_why = v.vacuous, v.ceiling, v.ceiling_why
        self.nonvacuous_m, self.max_useful_eps, self.blocking_term = v.nonvacuous_m, v.max_useful_eps, v.blocking_term
        self.eps_threshold, self.vacuity, self.vacuity_explanation = v.eps_threshold, v.line(), v.explanation
        return self


class UnverifiedError(ValueError):
    """No form of the asked statement is established (refuted with no correction, or open): no answer.

    Raised by the pickers and :mod:`bounds.calibrate` unless ``allow_unverified=True``; the
    command line prints its one line and exits with status 2.
    """


#: verdicts whose printed form is wrong: a corrected (derived) form may be established (``Verdict.corrected``)
WRONG_AS_PRINTED = ("refuted", "erratum", "typo")
#: verdicts that leave the statement open: no form of it is established
OPEN = ("unsupported", "unchecked", "remark")


@dataclass(frozen=True)
class Basis:
    """What an answer rests on: the statement, the form used, its one verdict and regime status.

    Attributes
    ----------
    key, label : str
        The statement.
    form : str
        ``stated`` (the paper's printed form), ``derived`` (the form its proof yields, or the corrected
        form of a wrong printed bound) or ``tight`` (the accountant's, :mod:`bounds.calibrate`).
    verdict, verdict_text, truth, correction, regime : str
        From :mod:`bounds.verdict` (the statement's one verdict, never its derivation status).
    established : bool
        Whether the form used is established (it holds by the verdict's rules).
    note : str
        Why this form (e.g. the printed bound is refuted and its corrected form is used).
    warning : str
        Non-empty when the answer rests on a form that is not established (``allow_unverified``).
    """

    key: str
    label: str
    form: str
    verdict: str
    verdict_text: str
    truth: str
    correction: str
    regime: str
    established: bool
    note: str = ""
    warning: str = ""

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line: ``bound: KEY (label), FORM form; verdict: ...; regime: ...``."""
        out = f"{self.key} ({self.label}), {self.form} form; verdict: {self.verdict_text}{_paren(self.truth, self.verdict_text)}"
        return out + (f"; regime: {self.regime}" if self.regime else "")


def _paren(truth: str, text: str) -> str:
    """`` (truth)`` unless the verdict's text already says it (no "unsupported (open) (open)")."""
    return f" ({truth})" if truth and truth not in text else ""


def _where(st: Statement) -> str:
    return f"statement {st.key} ({st.label})"


_REPORT_ROWS: dict[str, Any] = {}


def report_rows(reports: str | None = None) -> list[Any]:
    """The empirical and audit evidence rows of a generated report (``reports/summary.json``; [] if none).

    The symbolic layer imports nothing of :mod:`verify`: it reads the report it wrote, as
    ``python -m bounds show`` does, so a pick names the same verdict as ``show``.  Read once per
    file version, by :func:`bounds.report_io.read_summary` (the report of :func:`bounds.report_io.using`
    when ``reports`` is None): a missing report gives no rows, a file that is not the toolkit's
    summary or was written by another version of the toolkit raises
    :class:`~bounds.report_io.ReportError`.

    Examples
    --------
    >>> rows = report_rows("/nonexistent")
    >>> rows
    []
    """
    from .report_io import read_summary

    summary = read_summary(reports)
    if _REPORT_ROWS.get("summary") is not summary:      # one list per file version: verdicts cache by its id
        _REPORT_ROWS.clear()
        _REPORT_ROWS.update(summary=summary, rows=list(summary.rows))
        _VERDICTS.clear()                                # a new list may reuse the id of the old one
    return _REPORT_ROWS["rows"]


_VERDICTS: dict[tuple, Any] = {}


def statement_verdict(key: Any, evidence: Any = None) -> Any:
    """The one :class:`~bounds.verdict.Verdict` of ``key`` (:mod:`bounds.verdict`), as ``bounds show`` gives it.

    ``evidence``: empirical and audit :class:`~bounds.evidence.Result` rows; default: those of the
    generated report (:func:`report_rows`).  Cached per registry and evidence.

    Examples
    --------
    >>> statement_verdict("jia.thm2", evidence=[]).verdict in ("consistent", "tight")
    True
    """
    reg = _reg()
    st = reg.get(key)
    rows = report_rows() if evidence is None else list(evidence)
    ck = (id(reg), st.key, id(rows) if evidence is None else tuple(id(r) for r in rows))
    v = _VERDICTS.get(ck)
    if v is None:
        if len(_VERDICTS) > 256:
            _VERDICTS.clear()
        mine = [r for r in rows if r.key in reg and reg.get(r.key).paper == st.paper]
        v = _VERDICTS[ck] = verdicts_of(reg, mine, keys=[st.key])[st.key]
    return v


def basis(key: Any, which: str | None = None, allow_unverified: bool = False, evidence: Any = None,
          verdict: Any = None) -> Basis:
    """The form of ``key`` an answer may use, with its verdict; refuses when no form is established.

    The rules: a statement that holds (``consistent``, ``tight``, ``regime``, ``gap``, ``cited``, ...)
    is used in the form the registry recommends for numbers; a printed form that is wrong
    (``refuted``, ``erratum``, ``typo``) is replaced by its corrected (derived) form where the verdict
    establishes one, and said so; where no form is established (wrong with no correction, or open:
    ``unsupported``, ``unchecked``) the answer is refused, unless ``allow_unverified`` (then the
    basis carries a warning).  ``which`` forces ``"stated"`` or ``"derived"`` (a printed form that is
    wrong is then unverified).

    Raises
    ------
    UnverifiedError
        When no form is established and ``allow_unverified`` is false.
    ValueError
        For ``which`` not None/'stated'/'derived', or a form the statement does not have.

    ``verdict`` gives the statement's :class:`~bounds.verdict.Verdict` directly (the report passes the
    verdicts it computed); otherwise it is computed from ``evidence`` (:func:`statement_verdict`).

    Examples
    --------
    >>> b = basis("jia.thm4.bound", evidence=[])
    >>> b.form, b.verdict, b.established
    ('derived', 'refuted', True)
    >>> b.note
    'the printed form is refuted (verdict: refuted; the statement: false); its corrected (derived) form is used'
    """
    reg = _reg()
    st = reg.get(key)
    where = _where(st)
    if which not in (None, "stated", "derived"):
        raise ValueError(f"parameter 'which' = {short(which)} must be None, 'derived' or 'stated' ({where})")
    ev = reg.evaluate(st.key)
    v = statement_verdict(st.key, evidence) if verdict is None else verdict
    from .evidence import VERDICT_TEXT

    text = VERDICT_TEXT.get(v.verdict, v.verdict)
    recommended = "stated" if (ev.expression is not None and st.stated is not None
                               and ev.expression == st.stated) else "derived"
    note, why_not = "", ""
    if v.verdict in WRONG_AS_PRINTED:
        if which == "stated":
            why_not = f"its printed form is {text}{_paren(v.truth, text)}"
        elif v.corrected:
            form = "derived"
            printed = {"refuted": "is refuted", "typo": "is a typo"}.get(v.verdict, "does not follow from its premises")
            note = (f"the printed form {printed} (verdict: {text}; the statement: {v.truth}); its corrected "
                    "(derived) form is used")
        else:
            why_not = f"it is {text}{_paren(v.truth, text)} and {v.correction or 'no correction is established'}"
        form = which or "derived"
    elif v.verdict in OPEN:
        form = which or recommended
        inner = "; ".join(x for x in (v.truth if v.truth not in text else "", "proof: " + v.proof if v.proof else "") if x)
        why_not = f"it is {text}" + (f" ({inner})" if inner else "")
    else:
        form = which or recommended
    if form == "stated" and st.stated is None:
        raise ValueError(f"parameter 'which' = 'stated': {where} states no expression")
    if form == "derived" and ev.derived is None:
        if which == "derived":
            raise ValueError(f"parameter 'which' = 'derived': {where} has no derived form (nothing derives it)")
        form = "stated"
    warning = ""
    if why_not:
        if not allow_unverified:
            raise UnverifiedError(f"{where}: no form of it is established ({why_not}), so no answer is given "
                                  "(allow_unverified / --allow-unverified computes it anyway, with a warning)")
        warning = f"unverified: no form of {st.key} is established ({why_not}); the {form} form is used anyway"
    regime = _derived_regime(v) if form == "derived" and st.stated is not None and ev.derived is not None \
        and ev.derived != st.stated else v.regime
    return Basis(st.key, st.label, form, v.verdict, text, v.truth, v.correction, regime, not why_not, note,
                 warning)


def _derived_regime(v: Any) -> str:
    """The regime status of the *derived* form (the evidence that tests it), then the printed form's (the verdict's).

    Examples
    --------
    >>> _derived_regime(statement_verdict("jia.thm4.bound", evidence=[])).startswith("derived form used: ")
    True
    """
    from .verdict import _regime_summary, _tests_derived

    mine = [r for r in v.evidence if _tests_derived(r)]
    fails = [r for r in mine if r.failed]
    if fails:
        own = _regime_summary(fails, mine)
    elif mine:
        own = f"{len(mine)} check{'s' if len(mine) > 1 else ''} of it, none fails"
    else:
        own = "no check tests it apart from the printed form"
    return f"derived form used: {own}" + (f"; printed form: {v.regime}" if v.regime else "")


def _basis(st: Statement, which: Any, allow_unverified: bool, evidence: Any, verdict: Any = None,
           values: Mapping[str, Any] | None = None) -> Basis:
    """:func:`basis` for the pickers: a refusal names a private alternative the toolkit calibrates
    (:func:`bounds.alternative.private_alternative`, on a registry holding every paper, a statement
    counting as established when :func:`basis` establishes a form of it with the same ``evidence``)."""
    try:
        return basis(st.key, which, allow_unverified, evidence, verdict)
    except UnverifiedError as exc:
        from .alternative import every_paper, private_alternative

        given = {k: v for k, v in (values or {}).items() if isinstance(v, (int, float)) and not isinstance(v, bool)}

        def established(k: str) -> bool:
            try:
                return basis(k, None, False, evidence).established
            except (UnverifiedError, ValueError, LookupError):
                return False

        try:
            full = every_paper(_reg())
            with using(full):
                alt = private_alternative(st.key, given, registry=full, established=established)
        except (ValueError, LookupError, TypeError):
            alt = ""
        if not alt:
            raise
        raise UnverifiedError(f"{exc}; {alt}") from None


def _stamp(p: Pick, b: Basis) -> Pick:
    p.form, p.verdict, p.verdict_text, p.regime = b.form, b.verdict, b.verdict_text, b.regime
    p.basis_note, p.warning = b.note, b.warning
    return p


def pickable(key: str) -> Statement:
    """The pre-schedule bound statement behind ``key``.

    Raises
    ------
    ValueError
        If ``key`` is unknown or neither it nor any of its dependencies carries a schedule: the
        message lists the pickable statements of the paper the key names (the ones under the key
        first), or says why that paper has none (:func:`not_pickable_reason`).

    Examples
    --------
    >>> pickable("jia.thm4").key
    'jia.thm4.bound'
    >>> pickable("jia.s5_1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bounds.validation.UnknownKeyError: unknown statement 'jia.s5_1'; did you mean ...?; pickable statements of paper jia: jia.s5_1.bound, ...
    """
    reg = _reg()
    try:
        st = reg.get(key)
    except UnknownKeyError as exc:
        text = str(exc)
        pid = _paper_id(key)
        first = [k for k in pickable_keys(pid) if isinstance(key, str) and k.startswith(key)] if pid else []
        if first and "did you mean " in text:      # the valid pickable keys under the key come first
            head, _, rest = text.partition("did you mean ")
            names, _, tail = rest.partition("?")
            named = [n.strip() for n in names.split(",") if n.strip() and n.strip() not in first]
            text = f"{head}did you mean {', '.join([*first, *named])}?{tail}"
        elif first:
            text = f"{text}; did you mean {', '.join(first)}?"
        raise UnknownKeyError(f"{text}; {_pickable_hint(key)}") from None
    if st.schedule:
        return st
    for d in st.depends:
        ds = reg.get(d)
        if ds.schedule:
            return ds
    raise ValueError(f"statement {st.key} ({st.label}) has no ε/λ schedule to pick from; {_pickable_hint(st.key)}")


def _paper_id(key: Any) -> str | None:
    if not isinstance(key, str):
        return None
    pid = key.split(".", 1)[0]
    return pid if pid in _reg().papers else None


def _pickable_hint(key: Any) -> str:
    """``pickable statements of paper P: ...`` (those under ``key`` first), or why P has none."""
    pid = _paper_id(key)
    if pid is None:
        return "pickable statements: " + (", ".join(pickable_keys()) or "none")
    mine = pickable_keys(pid)
    if not mine:
        others = ", ".join(pickable_keys())       # a registry of one paper (the command line's) has none
        return (f"paper {pid} has no pickable statement: {not_pickable_reason(pid)}"
                + (f"; pickable elsewhere: {others}" if others else ""))
    under = [k for k in mine if isinstance(key, str) and k.startswith(key)]
    return f"pickable statements of paper {pid}: " + ", ".join([*under, *(k for k in mine if k not in under)])


def pickable_keys(paper: str | None = None) -> list[str]:
    """Keys of all statements with a schedule (of one paper when ``paper`` is given).

    Examples
    --------
    >>> pickable_keys("jia")
    ['jia.thm4.bound', 'jia.s5_1.bound', 'jia.s5_2.bound']
    """
    reg = _reg()
    return [k for k in reg.keys() if reg.get(k).schedule and (paper is None or reg.get(k).paper == paper)]


def not_pickable_reason(paper_id: str) -> str:
    """Why paper ``paper_id`` has no statement to pick ε and λ from ('' when it has one).

    Computed from the paper's declarations: its bounds on the utility that carry no ε/λ schedule,
    or, when it encodes none, what it records as not encoded (:meth:`bounds.paper.Paper.omit`).

    Raises
    ------
    ValueError
        For an unknown paper id.

    Examples
    --------
    >>> not_pickable_reason("jia")
    ''
    >>> not_pickable_reason("cms")  # doctest: +ELLIPSIS
    'its utility bounds are not encoded: the utility and generalisation bounds of Algorithms 1 and 2 ...'
    """
    reg = _reg()
    if paper_id not in reg.papers:
        from .validation import suggest

        raise ValueError(f"unknown paper {short(paper_id)}{suggest(str(paper_id), reg.papers, n=3)}; known: "
                         + ", ".join(reg.papers))
    if pickable_keys(paper_id):
        return ""
    paper = reg.papers[paper_id]
    omitted = [(item, why) for item, why in paper.not_encoded
               if any(w in item.lower() for w in ("utility", "risk", "error bound"))]
    utility = [st for st in paper.statements.values() if is_utility_bound(st)]
    parts = []
    if omitted:
        parts.append("its utility bounds are not encoded: " + "; ".join(f"{i} ({w})" for i, w in omitted))
    if utility:
        parts.append("its encoded utility bounds (" + ", ".join(st.key for st in utility)
                     + ") declare no ε/λ schedule to pick from (their noise is given, not chosen from ε)")
    if not parts:
        parts.append("it encodes no bound on the utility that depends on ε")
    return "; ".join(parts)


def _check_which(which: Any, st: Statement) -> str | None:
    if which not in (None, "derived", "stated"):
        raise ValueError(f"parameter 'which' = {short(which)} must be None, 'derived' or 'stated' ({_where(st)})")
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
        self.expr = (st.stated if which == "stated" else ev.derived if which == "derived" and ev.derived is not None
                     else ev.expression)
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
        self.f = _lambdify(self.vars, self.fixed_expr)
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


_LAMBDIFIED: dict[tuple, Any] = {}


def _lambdify(args: list[sp.Symbol], expr: Any) -> Any:
    """``sympy.lambdify(args, expr)`` on NumPy, once per process for the same arguments and expression.

    The module is given as the ``numpy`` module itself: the same printer (``numpy.exp``, ``numpy.select``,
    ...) and the same functions, without the ``"numpy"`` namespace's ``from numpy import *`` and
    ``numpy.linalg`` star imports, which import some 130 modules (0.1 s) on a process's first call.

    Examples
    --------
    >>> x, y = sp.symbols("x y", positive=True)
    >>> f = _lambdify([x, y], sp.sqrt(x) / y + sp.Max(x, y))
    >>> f(np.array([4.0, 9.0]), 2.0).tolist(), f is _lambdify([x, y], sp.sqrt(x) / y + sp.Max(x, y))
    ([5.0, 10.5], True)
    """
    key = (tuple(args), tuple(expr) if isinstance(expr, list) else expr)
    f = _LAMBDIFIED.get(key)
    if f is None:
        if len(_LAMBDIFIED) > 1024:
            _LAMBDIFIED.clear()
        f = _LAMBDIFIED[key] = sp.lambdify(args, expr, modules=[np])
    return f


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
        from .validation import missing_parameters

        raise missing_parameters([(n, st.ns[n].domain_text() if n in st.ns else "") for n in missing],
                                 f"the paper's schedule of {_where(st)}")
    out.update(given)
    return out


@single_blas_thread
def paper_schedule(key: str, m: float, which: str | None = None, allow_unverified: bool = False,
                   evidence: Any = None, verdict: Any = None, regime: bool = True, **consts: float) -> Pick:
    """The paper's own ε and λ at sample size ``m`` and the bound they give.

    Parameters
    ----------
    key : str
        A pickable statement or a rate statement built on one.
    m : float
        Sample size (the statement's domain: an integer ≥ 2).
    which : {None, "derived", "stated"}
        None (default): the form :func:`basis` establishes (the corrected form of a wrong printed
        bound); ``"stated"`` or ``"derived"`` forces one.
    allow_unverified : bool
        Answer even where no form of the bound is established (the Pick carries a ``warning``).
    evidence : list of Result, optional
        Empirical and audit rows deciding the verdict (default: the generated report's).
    verdict : Verdict, optional
        The statement's verdict, when the caller has computed it (the report): see :func:`basis`.
    regime : bool
        Accepted for symmetry with :func:`optimise` (the paper's schedule is the paper's own choice).
    **consts
        Problem constants (κ, M, β, ...).  For schedules that leave ε free
        (001 Theorem 2), pass ``eps``; a given ``eps`` or ``lam`` replaces the
        paper's schedule of that variable (the other one follows the schedule).

    Returns
    -------
    Pick

    Raises
    ------
    UnverifiedError
        Where no form of the bound is established and ``allow_unverified`` is false.
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
    b = _basis(st, which, allow_unverified, evidence, verdict, {"m": m, **consts})
    consts = dict(consts)
    fixed = _pop_choices(st, consts, warn=True)
    with _in_regime(regime):
        p = _explained(_stamp(_paper_schedule(st, m, b.form, consts, fixed), b), st, b.form, consts)
        return p._set_vacuity(_vacuity(st, m, p.bound, b.form, consts, eps=fixed.get("eps"), lam=p.lam,
                                       mode="paper", fixed=fixed))


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
    if which != "stated":
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


def _schedule_eps_fixed(st: Statement, m: float, which: str, consts: Mapping[str, Any],
                        fixed: Mapping[str, float]) -> float | None:
    """The ε of the paper's schedule where it does not change with m (the same at m, 1e3·m and 1e6·m), else None."""
    try:
        es = [_paper_schedule(st, m * k, which, dict(consts), dict(fixed)).eps for k in (1.0, 1e3, 1e6)]
    except ValueError:
        return None
    return es[0] if all(math.isfinite(e) and e == es[0] for e in es) else None


def _check_fixed(st: Statement, bnd: _Bound, fixed: Mapping[str, float]) -> None:
    for n in fixed:
        if n not in bnd.choice:
            raise ValueError(f"parameter {n!r} is given, but the bound of {_where(st)} does not depend on {n}")


@single_blas_thread
def optimise(
    key: str,
    m: float,
    over: tuple[str, ...] | None = None,
    which: str | None = None,
    allow_unverified: bool = False,
    evidence: Any = None,
    verdict: Any = None,
    regime: bool = True,
    **consts: float,
) -> Pick:
    """Minimise the bound over ε and/or λ at sample size ``m``, the other inputs fixed.

    The search runs in log-coordinates inside the assumption domain
    (0 < ε < 1, 0 < λ ≤ 1 when the statement assumes it): a coarse grid over the
    whole domain, then zoomed grids (:func:`_grid_minimise`) from its best local
    minima and from the paper's schedule, to a relative 1e-10 in the variables;
    the result is never worse than the paper's choice.  NumPy only (no
    ``scipy.optimize`` import: a pick answers in well under a second).  The improvement factor is
    (bound at the paper's schedule) / (optimised bound).

    Parameters
    ----------
    key : str
        A pickable statement or a rate statement built on one.
    m : float
        Sample size.
    over : str or tuple of str, optional
        The variables to optimise (default: every one the bound depends on and that is not given).
    which : {None, "derived", "stated"}
        Bound expression to minimise (None: the form :func:`basis` establishes).
    allow_unverified : bool
        Answer even where no form of the bound is established (the Pick carries a ``warning``).
    evidence : list of Result, optional
        Empirical and audit rows deciding the verdict (default: the generated report's).
    verdict : Verdict, optional
        The statement's verdict, when the caller has computed it (the report).
    regime : bool
        True (default): search inside the paper's regime (``PAPER.regime``: λ ≤ 1 for jia and jamp);
        where the optimum over the whole domain lies outside it, ``outside_regime`` gives that point
        (``eps``, ``lam``, ``bound``).  False: the whole domain of the statement.
    **consts
        Problem constants; ``eps`` or ``lam`` fixes that variable (the other is optimised).

    The answer says whether the bound is vacuous there (``vacuous``, ``ceiling``: the statement's
    trivial ceiling) and, where it is, the smallest m at which it is not (``nonvacuous_m``), or that
    it never is and which m-free term stops it (``blocking_term``, ``eps_threshold``), and the
    largest useful ε at this m (``max_useful_eps``) when ε is given.

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
    b = _basis(st, which, allow_unverified, evidence, verdict, {"m": m, **consts})
    consts = dict(consts)
    fixed = _pop_choices(st, consts, warn=True)
    with _in_regime(regime):
        o = _explained(_stamp(_optimise(st, m, over, b.form, consts, fixed), b), st, b.form, consts)
        if regime and _on_regime_edge(st, _bound(st, m, consts, b.form), o, fixed):
            with _in_regime(False):
                try:
                    u = _optimise(st, m, over, b.form, consts, fixed)
                except ValueError:
                    u = None
            if u is not None and u.bound < o.bound * (1 - 1e-9):
                o.outside_regime = {"eps": u.eps, "lam": u.lam, "bound": u.bound,
                                    "regime": st.ns.regime.text()}
        mode = "eps" if "eps" in fixed else "free"
        return o._set_vacuity(_vacuity(st, m, o.bound, b.form, consts, eps=fixed.get("eps"),
                                       lam=fixed.get("lam", "optimise"), mode=mode, fixed=fixed))


def _on_regime_edge(st: Statement, b: _Bound, o: Pick, fixed: Mapping[str, float]) -> bool:
    """Whether the optimum found inside the paper's regime lies on an edge the regime draws inside the statement's
    domain (then the search is repeated over the whole domain, and a better point outside is reported)."""
    edges = {"lam": (_lam_hi(b), b.lam_max), "eps": (_eps_hi(st), _EPS_MAX * (1 - 1e-9))}
    for n in b.choice:
        if n in fixed or getattr(o, n, None) is None:
            continue
        inner, outer = edges[n]
        if inner < outer * (1 - 1e-9) and getattr(o, n) >= inner * (1 - 1e-6):
            return True
    return False


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
    hi = {"eps": math.log(_eps_hi(st)), "lam": math.log(_lam_hi(bnd0))}

    best_x = None
    if free:
        F = _log_objective(bnd0, fixed, free)
        starts = []
        if all(start.get(n) for n in free):
            starts.append(np.array([math.log(min(max(start[n], 1e-12), math.exp(hi[n]))) for n in free]))
        best_x, _ = _grid_minimise(F, np.array([lo[n] for n in free]), np.array([hi[n] for n in free]), starts)
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


@single_blas_thread
def min_m(key: str, target: float, eps: float, lam: str | float = "optimise", m_max: float = 1e12,
          allow_unverified: bool = False, evidence: Any = None, regime: bool = True, **consts: float) -> int:
    """Smallest sample size m whose bound reaches ``target`` at privacy level ``eps``.

    λ is optimised for every m (``lam="optimise"``, inside the paper's regime unless
    ``regime=False``), taken from the paper's schedule (``lam="paper"``) or fixed (a number).  The
    bound is decreasing in m for every statement of the seed papers; the result is checked at m
    and m − 1.  The answer is an ``int`` carrying the :class:`Basis` it rests on (``.basis``: form,
    verdict, regime; see :func:`basis`) and the :class:`Vacuity` of the bound there (``.vacuity``:
    a target at or above the statement's ceiling asks for a vacuous bound, and says so).

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions (``eps`` > 0, λ in its domain, a
        positive finite ``target``, ``m_max`` ≥ 2), or if the target is not reached below ``m_max``:
        the message then says which m-free term stops it and the range of ε in which the target is
        reachable at all.

    Examples
    --------
    >>> from bounds.pick import min_m, value_at
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> n = min_m("jia.thm4", 0.9, eps=0.5, **c)
    >>> value_at("jia.thm4", n, eps=0.5, **c) <= 0.9 < value_at("jia.thm4", n - 1, eps=0.5, **c)
    True
    >>> min_m("jia.thm4", 3.0, eps=-1, **c)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'eps' = -1 violates the assumption eps > 0 of statement jia.thm4.bound (Theorem 4)
    """
    st = pickable(key)
    bas = _basis(st, None, allow_unverified, evidence, None, {"eps": eps, **consts})
    form = bas.form
    where = _where(st)
    target = positive_finite("target", target, where)
    limit = real("m_max", m_max, where)
    if not (math.isfinite(limit) and limit >= 2):
        raise ValueError(f"parameter 'm_max' = {short(m_max)} must be a finite number ≥ 2 ({where})")
    eps_v = _check_choice(st, "eps", eps, warn=True)
    lam_v = _lam_rule(st, lam)
    consts = dict(consts)
    _check_fixed(st, _bound(st, 2, consts, form),
                 {"eps": eps_v, **({"lam": lam_v} if isinstance(lam_v, float) else {})})
    with _in_regime(regime):
        def g(mm: float) -> float:
            return _value_at(st, mm, eps_v, lam_v, consts, strict=False, which=form)

        lo_m, hi_m = 2, 2
        while g(hi_m) > target:
            lo_m = hi_m
            hi_m *= 2
            if hi_m > limit:
                if math.isinf(g(lo_m)):     # not a number at all: say why, naming the input (an overflow, ...)
                    _value_at(st, lo_m, eps_v, lam_v, consts, strict=True, which=form)
                raise ValueError(f"parameter 'target' = {target:g} is not reached for m ≤ {limit:g} at eps = "
                                 f"{eps_v:g}{_unreachable(st, form, consts, eps_v, lam_v, target)} ({where})")
        if g(lo_m) > target:
            while hi_m - lo_m > 1:
                mid = (lo_m + hi_m) // 2
                if g(mid) <= target:
                    hi_m = mid
                else:
                    lo_m = mid
            lo_m = hi_m
        n = int(lo_m)
        vac = _vacuity(st, n, g(n), form, consts, eps=eps_v, lam=lam_v, mode="eps",
                       fixed={"eps": eps_v, **({"lam": lam_v} if isinstance(lam_v, float) else {})})
    return Count(n, bas, vac)


def _unreachable(st: Statement, which: str, consts: Mapping[str, Any], eps: float, lam: Any, target: float) -> str:
    """Why a target is not reached at any m: the limit of the bound as m → ∞, its m-free terms, and the ε
    range in which the target is reachable at all ('' where that cannot be computed)."""
    if lam == "paper":
        return ""
    token = _DIAGNOSE.set(False)
    try:
        fl = _Floor(_bound(st, 1e6, dict(consts), which))
        lim, lam_at = fl.at(eps, lam)
        if not math.isfinite(lim):
            return ""
        if lim < target:
            return (f": as m → ∞ the bound tends to {lim:.6g} < target ({fl.text()}), so a larger m than "
                    "the search's limit would reach it")
        thr = fl.eps_threshold(target, lam)
        blocking = fl.blocking(eps, lam_at)
        reach = ("no eps reaches it at any m (the m-free part alone is at or above it even as eps → 0)" if thr == 0.0
                 else f"it is reachable at all only for eps < {thr:.6g}" if thr is not None else "")
        return (f" nor at any m: as m → ∞ the bound tends to {fl.text()} = {lim:.6g} ≥ {target:g}"
                + (f", held up by its m-free term(s) {blocking}" if blocking else "") + (f"; {reach}" if reach else ""))
    except (ValueError, ArithmeticError, TypeError):
        return ""
    finally:
        _DIAGNOSE.reset(token)


@single_blas_thread
def value_at(key: str, m: float, eps: float, lam: str | float = "optimise", allow_unverified: bool = False,
             evidence: Any = None, regime: bool = True, **consts: float) -> float:
    """The bound at (m, ε) with λ optimised (inside the paper's regime unless ``regime=False``), from the
    paper's schedule, or fixed.

    The answer is a ``float`` carrying its :class:`Basis` (``.basis``) and :class:`Vacuity`
    (``.vacuity``, ``.vacuous``, ``.ceiling``, ``.nonvacuous_m``, ``.max_useful_eps``,
    ``.blocking_term``).

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions, or a bound that is not a positive
        finite float there.

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> v = value_at("jia.thm4", 10_000, 0.1, lam=0.01, **c)
    >>> round(v, 4), v.vacuous, v.ceiling
    (0.3658, False, 1.0)
    >>> value_at("jia.thm4", 10_000, 0.1, lam=-1, **c)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'lam' = -1 violates the assumption lam > 0 of statement jia.thm4.bound (Theorem 4)
    """
    st = pickable(key)
    bas = _basis(st, None, allow_unverified, evidence, None, {"m": m, "eps": eps, **consts})
    eps_v = _check_choice(st, "eps", eps, warn=True)
    lam_v = _lam_rule(st, lam)
    consts = dict(consts)
    _check_fixed(st, _bound(st, m, consts, bas.form),
                 {"eps": eps_v, **({"lam": lam_v} if isinstance(lam_v, float) else {})})
    with _in_regime(regime):
        v = _value_at(st, m, eps_v, lam_v, consts, strict=True, which=bas.form)
        vac = _vacuity(st, m, v, bas.form, consts, eps=eps_v, lam=lam_v, mode="eps",
                       fixed={"eps": eps_v, **({"lam": lam_v} if isinstance(lam_v, float) else {})})
    return Number(v, bas, vac)


_LAM_GRID = 241


def _lam_optimised(b: _Bound, eps: float) -> float:
    """min over λ of the bound at ε (inf where it is nowhere a positive float): a log grid of λ over the
    domain (one vectorised evaluation), refined by zoomed grids around the grid's best point (:func:`_refine`).

    The inverse queries ask for it at hundreds of ε or m; a general search (:func:`optimise`) there
    costs about 100× more for the same minimum.
    """
    xs = np.linspace(math.log(1e-12), math.log(_lam_hi(b)), _LAM_GRID)
    args = {"eps": eps, "lam": np.exp(xs)}
    with np.errstate(all="ignore"):
        try:
            v = np.asarray(b.f(*[args[n] for n in b.choice]), dtype=complex) * np.ones(len(xs))
        except (ArithmeticError, TypeError, ValueError):
            return math.inf
    v = np.where((np.imag(v) == 0) & np.isfinite(v) & (np.real(v) > 0), np.real(v), np.inf)
    k = int(np.argmin(v))
    best = float(v[k])
    if not math.isfinite(best):
        return math.inf

    F = _log_objective(b, {"eps": eps}, ["lam"])
    x, fx = _refine(F, np.array([xs[k]]), math.log(best), np.array([xs[1] - xs[0]]), np.array([xs[0]]),
                    np.array([xs[-1]]))
    return min(best, math.exp(fx)) if math.isfinite(fx) else best


def _value_at(st: Statement, m: float, eps: float, lam: str | float, consts: dict[str, Any], strict: bool,
              which: str | None = None) -> float:
    """The bound at (m, ε) for validated inputs; with ``strict=False`` inf where it is not a positive float."""
    token = _DIAGNOSE.set(strict)
    try:
        if lam == "optimise":
            b = _bound(st, m, consts, which)
            if b.choice == ["eps", "lam"] or b.choice == ["lam", "eps"]:
                v = _lam_optimised(b, eps)
                if math.isfinite(v) or not strict:
                    return v
            return _optimise(st, m, None, which, consts, {"eps": eps}).bound
        b = _bound(st, m, consts, which)
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


@single_blas_thread
def bound_grid(key: str, m: float, eps: np.ndarray, lam: np.ndarray, which: str | None = None,
               allow_unverified: bool = False, evidence: Any = None, verdict: Any = None,
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
    which : {None, "derived", "stated"}
        Which expression to evaluate (None: the form :func:`basis` establishes).
    allow_unverified, evidence, verdict
        As for :func:`optimise`.
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
    form = _basis(st, which, allow_unverified, evidence, verdict, {"m": m, **consts}).form
    b = _bound(st, m, consts, which=form)
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


@single_blas_thread
def min_eps(key: str, target: float, m: float, lam: str | float = "optimise", allow_unverified: bool = False,
            evidence: Any = None, regime: bool = True, **consts: float) -> float:
    """Smallest ε in (0, 1) whose bound at sample size ``m`` reaches ``target``.

    The bounds are not monotone in ε (privacy cost grows with ε, noise shrinks),
    so a log grid of 200 values in [1e-6, 1) finds the first ε that reaches
    the target and bisection refines it to a relative 1e-6.

    The answer carries its :class:`Basis` (``.basis``) and :class:`Vacuity` (``.vacuity``); λ is
    optimised inside the paper's regime unless ``regime=False``.

    Raises
    ------
    ValueError
        For an input outside the statement's assumptions, or if no ε < 1 reaches the target (the
        message then gives the best value at this m and the range of ε in which the target is
        reachable at any m).

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> e = min_eps("jia.thm4", 0.6, m=100_000, lam=0.01, **c)
    >>> value_at("jia.thm4", 100_000, e, lam=0.01, **c) <= 0.6 < value_at("jia.thm4", 100_000, e * 0.999, lam=0.01, **c)
    True
    """
    st = pickable(key)
    bas = _basis(st, None, allow_unverified, evidence, None, {"m": m, **consts})
    form = bas.form
    where = _where(st)
    target = positive_finite("target", target, where)
    lam_v = _lam_rule(st, lam)
    consts = dict(consts)
    _check_fixed(st, _bound(st, m, consts, form), {"lam": lam_v} if isinstance(lam_v, float) else {})
    with _in_regime(regime):
        e = _min_eps(st, target, m, lam_v, consts, form, where)
        vac = _vacuity(st, m, _value_at(st, m, e, lam_v, consts, strict=False, which=form), form, consts, eps=e,
                       lam=lam_v, mode="eps", fixed={"eps": e, **({"lam": lam_v} if isinstance(lam_v, float) else {})})
    return Number(e, bas, vac)


def _min_eps(st: Statement, target: float, m: float, lam_v: Any, consts: dict[str, Any], form: str,
             where: str) -> float:
    grid = np.geomspace(1e-6, 1 - 1e-9, 200)
    vals, ok = [], []
    for i, e in enumerate(grid):                # up to the first ε that reaches the target (all if none does)
        vals.append(_value_at(st, m, float(e), lam_v, consts, strict=False, which=form))
        if vals[-1] <= target:
            ok.append(i)
            break
    if not ok:
        best = min(vals)
        if math.isinf(best):            # not a number anywhere: say why, naming the input
            _value_at(st, m, float(grid[-1]), lam_v, consts, strict=True, which=form)
        best_text = f"best {best:.4g}" if math.isfinite(best) else "the bound is not finite for any eps"
        why = ""
        if math.isfinite(best) and lam_v != "paper":
            token = _DIAGNOSE.set(False)
            try:
                fl = _Floor(_bound(st, m, consts, form))
                thr = fl.eps_threshold(target, lam_v)
                why = ("; at no m and no eps: the m-free part alone is at or above it even as eps → 0" if thr == 0.0
                       else f"; at a larger m it is reachable only for eps < {thr:.6g} (the m-free part "
                       f"{fl.text()} reaches {target:g} there)" if thr is not None else "")
            except (ValueError, ArithmeticError, TypeError):
                why = ""
            finally:
                _DIAGNOSE.reset(token)
        raise ValueError(
            f"parameter 'target' = {target:g} is not reached by any eps < 1 at m = {float(m):g} ({best_text}{why}; "
            f"{where})"
        )
    i = ok[0]
    if i == 0:
        return float(grid[0])
    a, b = float(grid[i - 1]), float(grid[i])
    while b / a > 1 + 1e-6:
        mid = math.sqrt(a * b)
        if _value_at(st, m, mid, lam_v, consts, strict=False, which=form) <= target:
            b = mid
        else:
            a = mid
    return b


class _Answer:
    """What a number answer carries: its :class:`Basis` and :class:`Vacuity`."""

    basis: Basis
    vacuity: Vacuity

    @property
    def vacuous(self) -> bool | None:
        return self.vacuity.vacuous

    @property
    def ceiling(self) -> float | None:
        return self.vacuity.ceiling

    @property
    def nonvacuous_m(self) -> int | None:
        return self.vacuity.nonvacuous_m

    @property
    def max_useful_eps(self) -> float | None:
        return self.vacuity.max_useful_eps

    @property
    def blocking_term(self) -> str:
        return self.vacuity.blocking_term


class Number(_Answer, float):
    """A float answer carrying the :class:`Basis` it rests on (``.basis``) and its :class:`Vacuity` (``.vacuity``)."""

    def __new__(cls, value: float, basis: Basis, vacuity: Vacuity | None = None) -> Number:
        out = float.__new__(cls, value)
        out.basis = basis
        out.vacuity = vacuity if vacuity is not None else Vacuity(value=float(value))
        return out

    def __reduce__(self):
        return (Number, (float(self), self.basis, self.vacuity))


class Count(_Answer, int):
    """An integer answer (a sample size) carrying its :class:`Basis` (``.basis``) and :class:`Vacuity` (``.vacuity``)."""

    def __new__(cls, value: int, basis: Basis, vacuity: Vacuity | None = None) -> Count:
        out = int.__new__(cls, value)
        out.basis = basis
        out.vacuity = vacuity if vacuity is not None else Vacuity()
        return out

    def __reduce__(self):
        return (Count, (int(self), self.basis, self.vacuity))


# --------------------------------------------------------------------------- vacuity: the bound against its ceiling
#: a statement's quantity that names a risk, an excess risk, a utility or a learning rate
_RISK_WORDS = re.compile(r"risk|excess|utility|learning rate|L\*", re.I)
#: a statement's quantity that names the private release itself (its error against the target)
_RELEASE = re.compile(r"f_zA|f_\{t\+1,A\}|θ̄|θ_T|θ\^priv|Φ\^p")
#: quantities that are not the utility of a release (a privacy level, an exponent, a lower bound, a sensitivity)
_NOT_UTILITY = re.compile(r"privacy|exponent|lower bound|sensitivity", re.I)
#: the search limit of the sample size in the vacuity thresholds (as :func:`min_m`)
_M_LIMIT = 1e12


def is_utility_bound(st: Statement) -> bool:
    """Whether ``st`` bounds the utility of a release: the rule that decides which statements declare a ceiling.

    The rule, the same for every paper: not a definition, assumption, noise or schedule statement and
    not a lower bound; then every statement carrying an ε/λ schedule (a pickable bound) is one, and
    so is an upper bound, theorem, rate or order statement whose quantity names a risk, an excess, a
    utility or a learning rate, or the private release itself (``f_zA``, ``f_{t+1,A}``, ``θ̄``,
    ``θ_T``, ``θ^priv``, ``Φ^p``), unless it names a privacy level, an exponent, a lower bound or a
    sensitivity.  Each such statement declares its trivial ceiling (``Statement.ceiling``) or why it
    has none (``Statement.ceiling_why``); ``tests/test_vacuous.py`` requires it of every paper.

    Examples
    --------
    >>> import bounds
    >>> [is_utility_bound(bounds.registry.get(k)) for k in ("jia.s5_2.bound", "jia.thm4", "jia.prop1.scale")]
    [True, True, False]
    """
    if st.kind in ("definition", "assumption", "noise", "schedule") or st.relation == "lower":
        return False
    if st.schedule:
        return True
    if st.relation != "upper" and st.kind not in ("theorem", "corollary", "rate", "order"):
        return False
    if _NOT_UTILITY.search(st.quantity):
        return False
    return bool(_RISK_WORDS.search(st.quantity) or _RELEASE.search(st.quantity)) or ".utility" in st.key


def ceiling_of(key: Any, values: Mapping[str, Any]) -> tuple[float | None, str]:
    """The trivial ceiling of statement ``key`` at ``values`` and why (``(None, why)`` where it has none).

    Examples
    --------
    >>> ceiling_of("jia.s5_1.bound", {"M": 2})[0]
    4.0
    >>> ceiling_of("jia.prop1.scale", {})
    (None, '')
    """
    st = _reg().get(key)
    if st.ceiling is None:
        return None, st.ceiling_why
    subs = {st.ns[k].symbol: float(v) for k, v in values.items() if k in st.ns and isinstance(v, (int, float))}
    c = st.ceiling.subs(subs)
    if c.free_symbols:
        need = ", ".join(sorted(P_name(x, st.ns) for x in c.free_symbols))
        return None, f"{st.ceiling_why} (its value needs {need})"
    return float(c), st.ceiling_why


@dataclass
class Vacuity:
    """A value of a bound against its trivial ceiling, and where it stops being vacuous.

    Attributes
    ----------
    ceiling, ceiling_why
        The statement's ceiling at the constants (None: no finite ceiling) and why.
    value : float or None
        The bound's value at the answer.
    vacuous : bool or None
        ``value >= ceiling`` (None without a ceiling).
    nonvacuous_m : int or None
        Where vacuous: the smallest sample size at which the bound falls below the ceiling with the
        other inputs kept (ε given or optimised, λ optimised, given or the paper's schedule).
    never : bool
        The bound stays at or above the ceiling at every sample size: its m-free part alone reaches it.
    blocking_term, floor, floor_expr
        The additive terms that do not vanish as m → ∞, and the limit of the bound (value and expression).
    eps_threshold : float or None
        The smallest ε from which the m-free part alone reaches the ceiling (vacuous at every m).
    max_useful_eps : float or None
        Where vacuous at a given ε: the largest ε below which the bound is under the ceiling at this m.
    """

    ceiling: float | None = None
    ceiling_why: str = ""
    value: float | None = None
    vacuous: bool | None = None
    nonvacuous_m: int | None = None
    never: bool = False
    blocking_term: str = ""
    floor: float | None = None
    floor_expr: str = ""
    eps_threshold: float | None = None
    max_useful_eps: float | None = None
    variable: str = "m"
    explanation: str = ""
    search_limit: float = _M_LIMIT

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self) -> str:
        """One line: whether the value is vacuous, against which ceiling, and what to do where it is."""
        if self.ceiling is None:
            return f"ceiling: none ({self.ceiling_why})" if self.ceiling_why else ""
        head = (f"{'VACUOUS' if self.vacuous else 'not vacuous'}: {self.value:.6g} "
                f"{'≥' if self.vacuous else '<'} the ceiling {self.ceiling:.6g} ({self.ceiling_why})")
        return head + (f"; {self.explanation}" if self.explanation else "")


def _lim(e: sp.Expr, x: sp.Symbol) -> sp.Expr:
    """lim_{x→∞} e: the substitution x = ∞ where it is defined, else :func:`sympy.limit`."""
    r = e.subs(x, sp.oo)
    if r.has(sp.nan, sp.zoo) or r.has(sp.oo) or r.has(-sp.oo):
        try:
            r = sp.limit(e, x, sp.oo)
        except (NotImplementedError, ValueError, TypeError):
            return sp.oo
    return r


class _Floor:
    """The bound as m → ∞ (the m-free part), a function of ε and λ, with its additive terms.

    By the bounds' form (each m-dependent term non-negative and falling in m) this limit is the
    infimum over m; with λ optimised it is taken over λ as well (λ down to 1e-300)."""

    def __init__(self, b: _Bound, var: str = "m"):
        st = b.st
        self.b = b
        x = st.ns[var].symbol
        fixed = {st.ns[k].symbol: v for k, v in b.consts.items() if k != var}
        e = b.expr.subs(fixed)
        self.expr = _lim(e, x)
        self.ok = not (self.expr.has(sp.oo) or self.expr.has(sp.nan) or self.expr.has(sp.zoo))
        terms = _additive_terms(e, set(b.vars) | {x})
        self.terms = [(_lim(t, x), t) for t in terms] if self.ok else []
        self.f = _lambdify(b.vars, self.expr) if self.ok else None
        self.lam_free = True
        self.tf = _lambdify(b.vars, [t for t, _ in self.terms]) if self.ok and self.terms else None

    def _call(self, f: Any, point: Mapping[str, Any]) -> Any:
        with np.errstate(all="ignore"):
            try:
                return f(*[point[n] for n in self.b.choice])
            except (ArithmeticError, TypeError, ValueError):
                return math.inf

    def at(self, eps: float, lam: Any) -> tuple[float, float | None]:
        """(limit, λ at which it is taken): λ a number, or ``"optimise"`` (the infimum over λ)."""
        if not self.ok:
            return math.inf, None
        self.lam_free = lam == "optimise"
        if "lam" in self.b.choice and lam == "optimise":
            lams = np.concatenate([[1e-300, 1e-100, 1e-30], np.geomspace(1e-12, _lam_hi(self.b), 241)])
            with np.errstate(all="ignore"):
                v = np.asarray(self._call(self.f, {"eps": eps, "lam": lams}), dtype=complex) * np.ones(len(lams))
                v = np.where((np.imag(v) == 0) & np.isfinite(v), np.real(v), np.inf)
            k = int(np.argmin(v))
            return float(v[k]), float(lams[k])
        lam_v = float(lam) if isinstance(lam, (int, float)) else None
        v = self._call(self.f, {"eps": eps, "lam": lam_v})
        try:
            return float(np.real(v)), lam_v
        except (TypeError, ValueError):
            return math.inf, lam_v

    def blocking(self, eps: float, lam: float | None) -> str:
        """The terms that do not vanish as m → ∞ at (ε, λ) (each above 1e-9 of their sum), named with the
        constants substituted."""
        if self.tf is None:
            return ""
        vals = self._call(self.tf, {"eps": eps, "lam": lam})
        xs = []
        for v in vals if isinstance(vals, (list, tuple)) else [vals] * len(self.terms):
            try:
                xs.append(abs(float(np.real(v))))
            except (TypeError, ValueError):
                xs.append(math.nan)
        total = sum(x for x in xs if math.isfinite(x))
        return ", ".join(self.name(t_inf) for (t_inf, _), x in zip(self.terms, xs, strict=True)
                         if math.isfinite(x) and x > 1e-9 * total)

    def name(self, e: sp.Expr) -> str:
        """``e`` with the parameters' names, λ → 0 where the limit is taken over λ and the result stays finite."""
        lam = self.b.st.ns["lam"].symbol if "lam" in self.b.st.ns else None
        if lam is not None and "lam" in self.b.choice and self.lam_free:
            z = e.subs(lam, 0)
            if not (z.has(sp.oo) or z.has(sp.nan) or z.has(sp.zoo)):
                e = z
        return _named(e, self.b.st.ns)

    def text(self) -> str:
        """The limit's expression (named, λ → 0 where optimised)."""
        return self.name(self.expr)

    def eps_threshold(self, level: float, lam: Any) -> float | None:
        """The smallest ε (to a relative 1e-9) from which the limit reaches ``level``; None where no ε ≤ 1000 does,
        0.0 where every ε does."""
        grid = np.geomspace(1e-9, 1e3, 241)
        vals = [self.at(float(e), lam)[0] for e in grid]
        i = next((j for j, v in enumerate(vals) if v >= level), None)
        if i is None or any(v < level for v in vals[i:]):   # no crossing, or not one for good: no threshold claimed
            return None
        if i == 0:
            return 0.0
        a, c = float(grid[i - 1]), float(grid[i])
        while c / a > 1 + 1e-9:
            mid = math.sqrt(a * c)
            if self.at(mid, lam)[0] >= level:
                c = mid
            else:
                a = mid
        return c


class _AtM:
    """A :class:`_Bound` at another sample size without substituting and lambdifying again: the bound is
    lambdified once in (the chosen variables, m) (:func:`_m_family`); what the searches read of a bound."""

    def __init__(self, fm: Any, b: _Bound, m: float):
        self.st, self.choice, self.lam_max, self.consts, self.m = b.st, b.choice, b.lam_max, b.consts, float(m)
        self.f = functools.partial(_with_m, fm, self.m)

    __call__ = _Bound.__call__


def _with_m(fm: Any, m: float, *args: Any) -> Any:
    return fm(*args, m)


def _m_family(b: _Bound) -> Any:
    """``m ↦`` the bound at sample size m (an :class:`_AtM`), from one lambdification (cached on ``b``)."""
    fm = getattr(b, "_fm", None)
    if fm is None:
        msym = b.st.ns["m"].symbol
        fixed = {b.st.ns[k].symbol: v for k, v in b.consts.items() if k != "m"}
        fm = b._fm = _lambdify([*b.vars, msym], b.expr.subs(fixed))
    return lambda m: _AtM(fm, b, m)


def _exact_edge(n: int | None, g: Any, level: float, start: float) -> int | None:
    """``n`` moved, one integer at a time, until g(n) < level ≤ g(n − 1) under the exact evaluation ``g``
    (a cheaper search found ``n``; the printed threshold must hold for the answer's own evaluation)."""
    if n is None:
        return None
    lo = int(max(2, math.floor(start)))
    for _ in range(64):
        if not g(n) < level:
            n += 1
        elif n > lo and g(n - 1) < level:
            n -= 1
        else:
            return n
    return _first_m(g, level, start=start)


def _m_limit(start: float) -> float:
    """How far the vacuity thresholds search m: 1e12, or a million times the given m (below the float range)."""
    return min(max(_M_LIMIT, float(start) * 1e6), 1e300)


def _first_m(g: Any, level: float, start: float = 2, limit: float | None = None) -> int | None:
    """The smallest integer m ≥ ``start`` with g(m) < ``level`` (g falling in m); None where none ≤ ``limit``
    (default :func:`_m_limit`).

    Doubling brackets it; then interpolation of log g against log m (the bounds fall like powers of m),
    each estimate probed with its neighbour, every third step a bisection, until the bracket is one
    integer wide: g(m) < level ≤ g(m − 1) at the answer, as evaluated.

    Examples
    --------
    >>> _first_m(lambda m: 1000 / m, 1.0)
    1001
    """
    limit = _m_limit(start) if limit is None else limit
    lo = int(max(2, math.floor(start)))
    glo = g(lo)
    if glo < level:
        return lo
    hi, ghi = lo, glo
    while not ghi < level:
        lo, glo = hi, ghi
        hi *= 2
        if hi > limit:
            return None
        ghi = g(hi)
    step = 0
    while hi - lo > 1:
        step += 1
        mid = (lo + hi) // 2
        if step % 3 and 0 < ghi < level <= glo < math.inf:
            x = math.log(lo) + (math.log(glo) - math.log(level)) * (math.log(hi) - math.log(lo)) / (
                math.log(glo) - math.log(ghi))
            mid = min(max(int(round(math.exp(x))), lo + 1), hi - 1)
        gm = g(mid)
        if gm < level:
            hi, ghi = mid, gm
            if mid - 1 > lo:                       # probe the neighbour: the estimate is usually within one
                gp = g(mid - 1)
                if gp < level:
                    hi, ghi = mid - 1, gp
                else:
                    lo, glo = mid - 1, gp
        else:
            lo, glo = mid, gm
            if mid + 1 < hi:
                gp = g(mid + 1)
                if gp < level:
                    hi, ghi = mid + 1, gp
                else:
                    lo, glo = mid + 1, gp
    return int(hi)


def _max_useful_eps(st: Statement, m: float, lam: Any, consts: dict[str, Any], which: str, level: float
                    ) -> float | None:
    """The largest ε (to a relative 1e-6) at which the bound at sample size ``m`` is below ``level``."""
    top = _eps_hi(st)
    grid = np.geomspace(1e-6, top, 48)
    vals = [_value_at(st, m, float(e), lam, consts, strict=False, which=which) for e in grid]
    ok = [j for j, v in enumerate(vals) if v < level]
    if not ok:
        return None
    i = ok[-1]
    if i == len(grid) - 1:
        return float(grid[-1])
    a, c = float(grid[i]), float(grid[i + 1])
    while c / a > 1 + 1e-6:
        mid = math.sqrt(a * c)
        if _value_at(st, m, mid, lam, consts, strict=False, which=which) < level:
            a = mid
        else:
            c = mid
    return a


def _eps_text(x: float | None) -> str:
    return "—" if x is None else f"{x:.6g}"


def _vacuity(st: Statement, m: float, value: float, which: str, consts: Mapping[str, Any], *, eps: float | None,
             lam: Any, mode: str, fixed: Mapping[str, float] | None = None) -> Vacuity:
    """The :class:`Vacuity` of a pick's value.

    ``mode``: ``"paper"`` (the paper's schedule, ε and λ following it unless given), ``"eps"`` (ε given,
    λ optimised, given or the paper's), ``"free"`` (ε and λ optimised).
    """
    consts = dict(consts)
    c, why = ceiling_of(st.key, {**consts, "m": m, **({"eps": eps} if eps is not None else {})})
    out = Vacuity(ceiling=c, ceiling_why=why, value=float(value))
    if c is None:
        return out
    out.vacuous = bool(value >= c)
    if not out.vacuous:
        return out
    token = _DIAGNOSE.set(False)
    try:
        b = _bound(st, m, consts, which)
        fl = _Floor(b)
        fixed = dict(fixed or {})
        if mode == "paper":
            def g(mm: float) -> float:
                try:
                    return _paper_schedule(st, mm, which, dict(consts), dict(fixed)).bound
                except ValueError:
                    return math.inf
            out.nonvacuous_m, out.search_limit = _first_m(g, c, start=m), _m_limit(m)
            if out.nonvacuous_m is not None:
                out.explanation = f"along the paper's schedule the bound falls below it from m = {out.nonvacuous_m}"
                return out
            # ε given, or fixed by the schedule (the same at every m): the m-free analysis applies to the paper's
            # row too, with the infimum over λ (a lower bound whatever λ the schedule takes)
            e_fix, how = (eps, "given") if eps is not None else (_schedule_eps_fixed(st, m, which, consts, fixed),
                                                                 "fixed by the schedule")
            lam_mode = "optimise" if "lam" in b.choice else None
            lim, lam_at = fl.at(e_fix, lam_mode) if e_fix is not None else (math.inf, None)
            if math.isfinite(lim) and lim >= c and all(g(m * 10.0**k) >= c for k in (3, 6, 12)):
                out.never, out.floor, out.floor_expr = True, lim, fl.text() if fl.ok else ""
                out.blocking_term = fl.blocking(e_fix, lam_at)
                out.eps_threshold = fl.eps_threshold(c, lam_mode)
                lam_txt = " (its infimum over lambda, below whatever lambda the schedule takes)" if lam_mode else ""
                out.explanation = (f"along the paper's schedule (eps = {e_fix:g}, {how}) never below it, at any m: as "
                                   f"m → ∞ the bound tends to {out.floor_expr} = {lim:.6g}{lam_txt}"
                                   + (f", held up by its m-free term(s) {out.blocking_term}" if out.blocking_term
                                      else ""))
                if out.eps_threshold is not None:
                    out.explanation += ("; the m-free part alone reaches the ceiling at every eps"
                                        if out.eps_threshold == 0.0 else
                                        f"; the m-free part alone reaches the ceiling for every eps ≥ "
                                        f"{out.eps_threshold:.6g}")
                return out
            out.explanation = (f"along the paper's schedule ({'eps = ' + format(e_fix, 'g') + ', ' + how if e_fix is not None else 'eps and lambda following it in m'}) "
                               f"it stays at or above it at every m searched, from m = {m:g} to {out.search_limit:g} "
                               "(doubling m, then bisection); beyond that range nothing is claimed"
                               + ("" if e_fix is not None else " (the m-free analysis needs an eps fixed in m)"))
            return out
        if mode == "eps" and eps is not None:
            lim, lam_at = fl.at(eps, lam if lam != "paper" else "optimise")
            out.floor, out.floor_expr = (lim if math.isfinite(lim) else None), (fl.text() if fl.ok else "")
            if lam != "paper" and math.isfinite(lim) and lim >= c and all(
                    _value_at(st, m * 10.0**k, eps, lam, dict(consts), strict=False, which=which) >= c
                    for k in (3, 6, 12)):
                out.never = True
                out.blocking_term = fl.blocking(eps, lam_at)
                out.eps_threshold = fl.eps_threshold(c, lam)
            else:
                def exact(mm: float) -> float:
                    return _value_at(st, mm, eps, lam, dict(consts), strict=False, which=which)

                fam = _m_family(b)
                if lam == "optimise" and set(b.choice) == {"eps", "lam"}:
                    def cheap(mm: float) -> float:
                        return _lam_optimised(fam(mm), eps)
                elif lam != "paper" and set(b.choice) <= {"eps", "lam"} and (lam != "optimise" or "lam" not in b.choice):
                    def cheap(mm: float) -> float:
                        return fam(mm)(eps=eps, lam=None if lam == "optimise" else float(lam))
                else:
                    cheap = exact
                out.nonvacuous_m = _exact_edge(_first_m(cheap, c, start=m), exact, c, m)
                out.search_limit = _m_limit(m)
            out.max_useful_eps = _max_useful_eps(st, m, lam, dict(consts), which, c)
            out.explanation = _explain_vacuity(out, eps, m, lam)
            return out
        # ε (and λ) optimised: the limit is smallest as ε → 0 for the papers' bounds; take its infimum over ε
        lam_rule = fixed.get("lam", "optimise")
        best = min((fl.at(float(e), lam_rule) + (float(e),) for e in np.geomspace(1e-9, _eps_hi(st), 61)),
                   key=lambda t: t[0])
        def h(mm: float) -> float:
            try:
                return _optimise(st, mm, None, which, dict(consts), dict(fixed)).bound
            except ValueError:
                return math.inf

        if math.isfinite(best[0]) and best[0] >= c and all(h(m * 10.0**k) >= c for k in (3, 12)):
            out.never, out.floor, out.floor_expr = True, best[0], fl.text()
            out.blocking_term = fl.blocking(best[2], best[1])
        else:
            fam = _m_family(b)
            free = [n for n in b.choice if n not in fixed]
            lo_ = np.array([math.log(1e-9) if n == "eps" else math.log(1e-12) for n in free])

            def cheap(mm: float) -> float:
                bm = fam(mm)
                hi_ = np.array([math.log(_eps_hi(st)) if n == "eps" else math.log(_lam_hi(bm)) for n in free])
                _, fx = _grid_minimise(_log_objective(bm, {n: fixed[n] for n in b.choice if n in fixed}, free),
                                       lo_, hi_, n_local=2)
                return math.exp(fx) if math.isfinite(fx) else math.inf

            out.nonvacuous_m = _exact_edge(_first_m(cheap if free else h, c, start=m), h, c, m)
            out.search_limit = _m_limit(m)
        out.explanation = _explain_vacuity(out, None, m, lam_rule)
        return out
    finally:
        _DIAGNOSE.reset(token)


def value_vacuity(key: Any, values: Mapping[str, Any], value: float, which: str | None = None) -> Vacuity:
    """The :class:`Vacuity` of ``value``, the bound of statement ``key`` at ``values`` (``python -m bounds eval``).

    Where the value is at or above the statement's ceiling, the smallest sample size (the paper's
    regime variable, ``m``, ``n`` or ``t``, the other values kept) at which it falls below it, or that it
    never does, with the terms that do not vanish as the sample size grows.

    Examples
    --------
    >>> v = value_vacuity("jia.s5_2.rate", {"C_tilde": 10, "m": 100, "beta": 0.5}, 10 * 100 ** -0.125)
    >>> v.vacuous, v.nonvacuous_m
    (True, 100000001)
    """
    reg = _reg()
    st = reg.get(key)
    c, why = ceiling_of(st.key, values)
    out = Vacuity(ceiling=c, ceiling_why=why, value=float(value))
    if c is None:
        return out
    out.vacuous = bool(value >= c)
    if not out.vacuous:
        return out
    var = next((v for v in (st.ns.regime.variable, "m", "n", "t") if v in st.params and v in values), None)
    if var is None:
        out.explanation = "no sample size among its parameters: nothing to grow"
        return out
    out.variable = var
    ev = reg.evaluate(st.key)
    expr = st.stated if which == "stated" else ev.derived if which == "derived" and ev.derived is not None \
        else ev.expression
    x = st.ns[var].symbol
    rest = {st.ns[k].symbol: float(v) for k, v in values.items() if k in st.ns and k != var}
    lim = _lim(expr, x)                 # symbolic in the other parameters: its terms are named as the paper has them
    try:
        floor = float(lim.subs(rest))
    except (TypeError, ValueError):
        floor = math.inf

    def g(mm: float) -> float:
        try:
            return float(reg.value(st.key, {**values, var: mm}, which=which))
        except (ValueError, ArithmeticError, TypeError):
            return math.inf

    start = float(values[var])
    if math.isfinite(floor) and floor >= c and all(g(start * 10.0**k) >= c for k in (3, 6, 12)):
        out.never, out.floor, out.floor_expr = True, floor, _named(lim, st.ns)
        names = []
        for t in _additive_terms(expr, {x}):
            tl = _lim(t, x)
            try:
                nonzero = abs(float(tl.subs(rest))) > 1e-9 * abs(floor)
            except (TypeError, ValueError):
                nonzero = False
            if nonzero:
                names.append(_named(tl, st.ns))
        out.blocking_term = ", ".join(names)
        out.explanation = (f"never below it at any {var} (the other values kept): as {var} → ∞ the bound tends to "
                           f"{out.floor_expr} = {floor:.6g}"
                           + (f", held up by its {var}-free term(s) {out.blocking_term}" if out.blocking_term else ""))
        return out
    out.nonvacuous_m, out.search_limit = _first_m(g, c, start=start), _m_limit(start)
    out.explanation = (f"it falls below the ceiling from {var} = {out.nonvacuous_m} (the other values kept)"
                       if out.nonvacuous_m is not None else
                       f"it stays at or above the ceiling for every {var} ≤ {out.search_limit:g} searched")
    return out


def _explain_vacuity(v: Vacuity, eps: float | None, m: float, lam: Any) -> str:
    at = f"at eps = {eps:g}" if eps is not None else "with eps chosen at each m"
    lam_txt = "" if lam in ("optimise", None) else " (lambda from the paper's schedule)" if lam == "paper" \
        else f" (lambda = {float(lam):g})"
    parts = []
    if v.never:
        floor = f"{v.floor:.6g}" if v.floor is not None else "?"
        parts.append(f"never below it {at}{lam_txt}, at any m: as m → ∞ the bound tends to {v.floor_expr} = {floor}"
                     + (f", held up by its m-free term(s) {v.blocking_term}" if v.blocking_term else ""))
        if v.eps_threshold is not None:
            parts.append("the m-free part alone reaches the ceiling at every eps" if v.eps_threshold == 0.0 else
                         f"the m-free part alone reaches the ceiling for every eps ≥ {v.eps_threshold:.6g}, so only "
                         f"eps < {v.eps_threshold:.6g} can give a non-vacuous bound")
    elif v.nonvacuous_m is not None:
        parts.append(f"{at}{lam_txt} it falls below the ceiling from m = {v.nonvacuous_m}")
    else:
        parts.append(f"{at}{lam_txt} it stays at or above the ceiling for every m ≤ {v.search_limit:g} searched")
    if eps is not None:
        parts.append(f"at m = {m:g} no eps gives a bound below the ceiling" if v.max_useful_eps is None else
                     f"at m = {m:g} the bound is below the ceiling for eps up to {v.max_useful_eps:.6g} "
                     "(the largest useful eps)")
    return "; ".join(parts)


# --------------------------------------------------------------------------- the trade-off: which term dominates
def _additive_terms(expr: sp.Expr, syms: set[sp.Symbol]) -> list[sp.Expr]:
    """The additive terms of the outermost sum of ``expr`` that depends on ``syms`` (``[expr]`` if none).

    A product or power with a single factor depending on ``syms`` is descended into (a constant
    factor, a square root around the sum).

    Examples
    --------
    >>> x, y = sp.symbols("x y", positive=True)
    >>> _additive_terms(3 * sp.sqrt(x + 1 / y), {x, y})
    [x, 1/y]
    """
    e = expr
    while not e.is_Add:
        dep = [a for a in e.args if a.free_symbols & syms]
        if len(dep) != 1 or not (e.is_Mul or e.is_Pow or isinstance(e, sp.Function)):
            return [expr]
        e = dep[0]
    return [t for t in e.args if t.free_symbols & syms] + [t for t in e.args if not t.free_symbols & syms]


def _named(term: sp.Expr, ns: Namespace) -> str:
    """A term with the parameters' names (``kappa**2*C_L/(lam*gamma*m*eps)``)."""
    rename = {s_: sp.Symbol(ns.by_symbol(s_).name) for s_ in term.free_symbols if ns.has_symbol(s_)}
    # constants given as floats (M = 1.0) print as integers where they are (4*exp(eps) - 4, not 4.0*exp(eps) - 4.0)
    rename.update({f: sp.Integer(int(f)) for f in term.atoms(sp.Float) if float(f).is_integer()})
    return sp.sstr(term.xreplace(rename))


def _term_functions(b: _Bound) -> list[tuple[str, Any]]:
    """``[(name, f)]``: each additive term of the bound as a numeric function of the chosen variables (cached)."""
    cached = getattr(b, "_terms", None)
    if cached is not None:
        return cached
    syms = set(b.vars)
    fixed = {b.st.ns[k].symbol: v for k, v in b.consts.items()}
    terms = _additive_terms(b.expr, syms)
    every = _lambdify(b.vars, [t.subs(fixed) for t in terms])      # one lambdify for all the terms
    out = [(_named(t, b.st.ns), functools.partial(_nth, every, i)) for i, t in enumerate(terms)]
    b._terms, b._every_term = out, every
    return out


def _nth(f: Any, i: int, *args: Any) -> Any:
    return f(*args)[i]


def terms_at(b: _Bound, point: Mapping[str, Any]) -> list[tuple[str, Any]]:
    """``[(term, value)]`` of the bound's additive terms at ``point`` (arrays broadcast)."""
    args = [point[n] for n in b.choice]
    names = [name for name, _ in _term_functions(b)]
    shape = np.broadcast(*args).shape if args else ()
    with np.errstate(all="ignore"):
        values = b._every_term(*args)
        return [(name, np.asarray(v, dtype=float) * np.ones(shape)) for name, v in zip(names, values, strict=True)]


def _explained(p: Pick, st: Statement, form: str, consts: Mapping[str, Any]) -> Pick:
    """Fill the dominant term at the pick's point and the terms that grow with ε."""
    try:
        b = _bound(st, p.m, consts, form)
        point = {n: float(getattr(p, n)) for n in b.choice}
        vals = [(n, float(v)) for n, v in terms_at(b, point)]
    except (ValueError, TypeError, ArithmeticError):
        return p
    finite = [(n, v) for n, v in vals if math.isfinite(v)]
    if len(finite) < 2:
        return p
    total = sum(abs(v) for _, v in finite)
    name, v = max(finite, key=lambda t: abs(t[1]))
    p.dominant, p.dominant_share = name, (abs(v) / total if total > 0 else None)
    if "eps" in b.choice and math.isfinite(point["eps"]):
        up = dict(point, eps=point["eps"] * (1 + 1e-6))
        after = [float(v) for _, v in terms_at(b, up)]
        p.rising_in_eps = [n for (n, v0), v1 in zip(vals, after, strict=True)
                           if math.isfinite(v0) and math.isfinite(v1) and v1 > v0 * (1 + 1e-12) and v0 > 0]
    return p


def explain(p: Pick) -> list[str]:
    """Lines that explain a pick: the dominant term at the point and why the bound is U-shaped in ε.

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> o = optimise("jia.thm4", m=10_000, evidence=[], **c)
    >>> explain(o)[0].startswith("dominant term at the optimum:")
    True
    """
    out = []
    if p.dominant:
        share = f" ({100 * p.dominant_share:.0f}% of the sum)" if p.dominant_share is not None else ""
        where = "the optimum" if p.method != "paper" else "the paper's schedule"
        out.append(f"dominant term at {where}: {p.dominant}{share}")
    eps_chosen = p.method == "paper" or "eps" in p.method.replace("optimised over ", "").split(",")
    if p.rising_in_eps and eps_chosen:           # ε given: nothing to explain about choosing it
        out.append("U-shaped in eps: " + ", ".join(p.rising_in_eps) + (" grows" if len(p.rising_in_eps) == 1
                   else " grow") + " with eps while the noise terms shrink, so a larger eps is not always better")
    return out


# --------------------------------------------------------------------------- figures (matplotlib, imported lazily)
def _figure(w: float, h: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(w, h))
    FigureCanvasAgg(fig)
    return fig


@single_blas_thread
def plot_tradeoff(key: str, m: float, path: Any = None, allow_unverified: bool = False, evidence: Any = None,
                  n: int = 90, **consts: float) -> Any:
    """Draw the bound over (ε, λ) at sample size ``m`` with the paper's and the optimised points, and
    the additive term that dominates at each point; save to ``path`` (PNG) when given.

    Returns the matplotlib ``Figure`` (Agg canvas; matplotlib is imported here only).  Left panel:
    log10 of the bound; right panel: the dominant term (one colour per term, legend).  A bound of one
    chosen variable is drawn as a curve coloured by its dominant term.

    Raises
    ------
    ValueError
        As :func:`optimise` (UnverifiedError where no form of the bound is established).

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> fig = plot_tradeoff("jia.thm4", 10_000, evidence=[], n=20, **c)
    >>> [ax.get_title().split(":")[0] for ax in fig.axes[:2]]
    ['jia.thm4.bound', 'dominant term']
    """
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    o = optimise(key, m, allow_unverified=allow_unverified, evidence=evidence, **consts)
    try:
        p: Pick | None = paper_schedule(key, m, allow_unverified=allow_unverified, evidence=evidence, **consts)
    except UnverifiedError:
        raise
    except ValueError:
        p = None
    st = pickable(key)
    rest = {k: v for k, v in consts.items() if k not in CHOICE}
    b = _bound(st, m, rest, o.form)
    given = {k: float(v) for k, v in consts.items() if k in CHOICE}
    pts = [q for q in (p, o) if q is not None]
    rng = {}
    for name in b.choice:
        vals = [getattr(q, name) for q in pts if getattr(q, name) is not None and math.isfinite(getattr(q, name))]
        hi = _EPS_MAX * (1 - 1e-6) if name == "eps" else b.lam_max
        lo = min([*vals, hi]) / 1e3
        top = min(hi, max([*vals, lo]) * 1e2)
        rng[name] = np.geomspace(lo, top, n)
    names = [t for t, _ in _term_functions(b)]
    colors = ListedColormap(["#4477aa", "#ee6677", "#228833", "#ccbb44", "#66ccee", "#aa3377", "#bbbbbb"][:max(1, len(names))])
    free = [c for c in b.choice if c not in given]
    fig = _figure(11, 4.4)
    title = f"{st.key}: {o.form} form, verdict {o.verdict_text}, m = {m:g}"
    if len(free) == 2:
        E, L = np.meshgrid(rng["eps"], rng["lam"])
        pt = {"eps": E, "lam": L}
        with np.errstate(all="ignore"):
            Z = np.asarray(b.f(*[pt[c] for c in b.choice]), dtype=float) * np.ones_like(E)
            T = np.array([v for _, v in terms_at(b, pt)])
        Z[~np.isfinite(Z) | (Z <= 0)] = np.nan
        dom = np.where(np.isfinite(Z), np.nanargmax(np.where(np.isfinite(T), np.abs(T), -np.inf), axis=0), -1)
        ax1, ax2 = fig.add_subplot(1, 2, 1), fig.add_subplot(1, 2, 2)
        mesh = ax1.pcolormesh(E, L, np.log10(Z), shading="auto", cmap="viridis")
        fig.colorbar(mesh, ax=ax1, label="log10 bound")
        ax2.pcolormesh(E, L, np.ma.masked_less(dom, 0), shading="auto", cmap=colors, vmin=-0.5,
                       vmax=len(names) - 0.5)
        for ax in (ax1, ax2):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("ε")
            ax.set_ylabel("λ")
            for q, mk, lab in ((p, "o", "paper"), (o, "*", "optimised")):
                if q is not None and q.lam is not None and math.isfinite(q.eps):
                    ax.plot([q.eps], [q.lam], mk, color="white", markeredgecolor="black", markersize=11, label=lab,
                            linestyle="none")
        ax1.set_title(f"{st.key}: log10 bound", fontsize=9)
        ax1.legend(loc="lower left", fontsize=8)
        ax2.set_title("dominant term", fontsize=9)
        ax2.legend(handles=[Patch(color=colors(i), label=t) for i, t in enumerate(names)], loc="upper center",
                   bbox_to_anchor=(0.5, -0.2), fontsize=7, ncol=1)
    else:
        var = free[0] if free else b.choice[0]
        xs = rng[var]
        pt = {c: (xs if c == var else given.get(c, getattr(o, c))) for c in b.choice}
        with np.errstate(all="ignore"):
            y = np.asarray(b.f(*[pt[c] for c in b.choice]), dtype=float) * np.ones_like(xs)
            T = np.array([v * np.ones_like(xs) for _, v in terms_at(b, pt)])
        dom = np.nanargmax(np.where(np.isfinite(T), np.abs(T), -np.inf), axis=0)
        ax1 = fig.add_subplot(1, 2, 1)
        ax2 = fig.add_subplot(1, 2, 2)
        for i, t in enumerate(names):
            sel = dom == i
            ax1.plot(np.where(sel, xs, np.nan), np.where(sel, y, np.nan), color=colors(i), lw=2.5, label=t)
            ax2.plot(xs, T[i], color=colors(i), label=t)
        for ax in (ax1, ax2):
            ax.set_xscale("log")
            ax.set_yscale("log")
            ax.set_xlabel("ε" if var == "eps" else "λ")
            for q, mk, lab in ((p, "o", "paper"), (o, "*", "optimised")):
                if q is not None and getattr(q, var) is not None and math.isfinite(getattr(q, var)):
                    ax.plot([getattr(q, var)], [q.bound], mk, color="white", markeredgecolor="black", markersize=11,
                            label=lab, linestyle="none")
        ax1.set_title(f"{st.key}: bound, coloured by its dominant term", fontsize=9)
        ax2.set_title("dominant term: each term's value", fontsize=9)
        ax1.legend(fontsize=7)
    fig.suptitle(title, fontsize=10)
    fig.subplots_adjust(bottom=0.36, wspace=0.35, top=0.86)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


@single_blas_thread
def plot_rate(key: str, m: float, path: Any = None, allow_unverified: bool = False, evidence: Any = None,
              n: int = 21, **consts: float) -> Any:
    """Draw the bound against m for the picked schedule: the (ε, λ) optimised at ``m`` held fixed, the
    bound optimised at every m, and the paper's schedule; save to ``path`` (PNG) when given.

    Returns the matplotlib ``Figure`` (one axes, log–log, a vertical line at ``m``).

    Examples
    --------
    >>> c = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
    >>> fig = plot_rate("jia.thm4", 10_000, evidence=[], n=5, **c)
    >>> sorted(t.get_text() for t in fig.axes[0].get_legend().get_texts())[0]
    'optimised at every m'
    """
    o = optimise(key, m, allow_unverified=allow_unverified, evidence=evidence, **consts)
    st = pickable(key)
    rest = {k: v for k, v in consts.items() if k not in CHOICE}
    ms = np.unique(np.round(np.geomspace(max(2.0, m / 100), m * 100, n)))
    fixed, best, paper = [], [], []
    for mm in ms:
        b = _bound(st, float(mm), rest, o.form)
        point = {c: getattr(o, c) for c in b.choice}
        v, _ = b.value_or_reason(point)
        fixed.append(np.nan if v is None else v)
        try:
            best.append(_optimise(st, float(mm), None, o.form, dict(rest),
                                  {k: float(v) for k, v in consts.items() if k in CHOICE}).bound)
        except ValueError:
            best.append(np.nan)
        try:
            paper.append(_paper_schedule(st, float(mm), o.form, dict(rest),
                                         {k: float(v) for k, v in consts.items() if k in CHOICE}).bound)
        except ValueError:
            paper.append(np.nan)
    fig = _figure(6.4, 4.4)
    ax = fig.add_subplot(1, 1, 1)
    lam_text = "" if o.lam is None else f", λ = {o.lam:.3g}"
    ax.plot(ms, fixed, "-", label=f"picked at m = {m:g} (ε = {o.eps:.3g}{lam_text}) held fixed")
    ax.plot(ms, best, "--", label="optimised at every m")
    if any(np.isfinite(paper)):
        ax.plot(ms, paper, ":", label="paper's schedule")
    ax.axvline(m, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("m")
    ax.set_ylabel("bound")
    ax.set_title(f"{st.key}: {o.form} form, verdict {o.verdict_text}", fontsize=9)
    ax.legend(fontsize=7)
    fig.subplots_adjust(left=0.14, bottom=0.13)
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


# --------------------------------------------------------------------------- the report's "Choosing ε and λ" table
@single_blas_thread
def choosing_rows(verdicts: Mapping[str, Any], ms: Any = (1e4, 1e6), constants: Mapping[str, Any] | None = None
                  ) -> list[dict[str, Any]]:
    """Rows of the report's "Choosing ε and λ" table, each naming the form used and its verdict.

    Parameters
    ----------
    verdicts : mapping
        Statement key → :class:`~bounds.verdict.Verdict` (the report's own verdicts).
    ms : sequence of float
        Sample sizes.
    constants : mapping, optional
        Statement key → problem constants (default: every paper's ``Paper.pick``).

    Returns
    -------
    list of dict
        One row per (pickable statement, m): ``key``, ``label``, ``m``, ``constants``, ``form``,
        ``verdict``, ``verdict_text``, ``regime``, ``basis_note``, ``refused`` (why no form is
        established, else '') and, when not refused, ``paper_eps``, ``paper_lam``, ``paper_bound``,
        ``paper_bound_stated``, ``opt_eps``, ``opt_lam``, ``opt_bound``, ``improvement``, ``dominant``
        and ``rising_in_eps``.  A bound whose form is not established is listed, refused, never optimised.

    Examples
    --------
    >>> import bounds
    >>> vs = verdicts_of(bounds.registry, [], keys=["jia.thm4.bound"])
    >>> r = choosing_rows(vs, ms=[1e4])[0]
    >>> r["key"], r["form"], r["verdict"], r["refused"]
    ('jia.thm4.bound', 'derived', 'refuted', '')
    """
    reg = _reg()
    if constants is None:
        constants = {}
        for paper in reg.papers.values():
            for k, c in paper.pick.items():
                constants[paper.key(k)] = dict(c)
    rows = []
    for key, consts in constants.items():
        if key not in verdicts or key not in reg:
            continue
        st = pickable(key)
        for m in ms:
            row: dict[str, Any] = {"key": st.key, "label": st.label, "m": float(m), "constants": dict(consts)}
            try:
                b = basis(st.key, verdict=verdicts[key])
            except UnverifiedError as exc:
                v = verdicts[key]
                from .evidence import VERDICT_TEXT

                row.update(form="", verdict=v.verdict, verdict_text=VERDICT_TEXT.get(v.verdict, v.verdict),
                           regime=v.regime, basis_note="", refused=str(exc))
                rows.append(row)
                continue
            row.update(form=b.form, verdict=b.verdict, verdict_text=b.verdict_text, regime=b.regime,
                       basis_note=b.note, refused="")
            c = dict(consts)
            fixed = _pop_choices(st, c)
            p = _explained(_stamp(_paper_schedule(st, m, b.form, c, fixed), b), st, b.form, c)
            o = _explained(_stamp(_optimise(st, m, None, b.form, c, fixed), b), st, b.form, c)
            row.update(paper_eps=p.eps, paper_lam=p.lam, paper_bound=p.bound, paper_bound_stated=p.bound_stated,
                       opt_eps=o.eps, opt_lam=o.lam, opt_bound=o.bound, improvement=o.improvement,
                       dominant=o.dominant, rising_in_eps=list(o.rising_in_eps))
            rows.append(row)
    return rows
