"""Core objects of the symbolic layer: Statement, Evaluation and the Registry.

A :class:`Statement` is one numbered result of a paper (or one formula of
its application section): the expression the paper *states*, a function that
*derives* the same quantity from the statements it depends on the way the
paper's proof does, the assumption domains of its symbols (the paper's
namespace) and its source.  Statements are added to a
:class:`~bounds.paper.Paper`; a :class:`Registry` is built from papers.

The :class:`Registry` runs every derivation twice, once from the dependencies'
*derived* expressions and once from their *stated* expressions, compares the
result with what the paper states, runs the statement's extra checks (privacy
logic, normalisation of densities, rates) and computes a status:

``premise``
    a definition or an assumption; nothing to derive (its own checks may still fail).
``cited``
    rests on an outside result (Hoeffding, Pinelis, ...); checked numerically where possible.
``consistent``
    the stated expression follows from its premises (exactly, or as a valid
    relaxation of an upper bound; the slack is reported).
``erratum``
    the stated expression does not follow inside the paper's regime
    (:class:`~bounds.symbols.Regime`); both are kept, the derived one is the
    default for numeric use.  A failure only outside the regime leaves the
    status as it is and the detail says so; the statement's verdict
    (:mod:`bounds.verdict`) is then *holds in the paper's regime*.

Statuses are never typed in: they are the outcome of the checks (each a
:class:`~bounds.evidence.Result`).  The vocabulary lives in :mod:`bounds.evidence`.

Examples
--------
>>> import sympy as sp
>>> from bounds.core import Registry
>>> from bounds.paper import Paper
>>> from bounds.symbols import S
>>> demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
>>> _ = demo.add("thm1", "Theorem 1", "theorem", "sensitivity", 2 * S.kappa / (S.lam * S.m),
...              derive=lambda dep: 2 * S.kappa / (S.lam * S.m), relation="upper",
...              params=("kappa", "lam", "m"), doc="Doe (2026), Theorem 1.")
>>> Registry([demo]).evaluate("demo.thm1").status
'consistent'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import sympy as sp

from .evidence import STATUSES, Check, Result  # noqa: F401  (STATUSES re-exported)
from .symbols import SHARED, Namespace, Param
from .validation import culprits, fmt_point, magnitude, num, real, short, suggest, unknown_key

KINDS = (
    "definition",
    "assumption",
    "lemma",
    "proposition",
    "theorem",
    "corollary",
    "equation",
    "noise",
    "schedule",
    "rate",
    "order",
)
RELATIONS = ("eq", "upper", "lower", "none")


Resolver = Callable[[str], sp.Expr]
Deriver = Callable[[Resolver], sp.Expr | None]
ExtraCheck = Callable[["Statement", Resolver], Result | list[Result]]


@dataclass
class Statement:
    """One result of a seed paper, encoded symbolically.

    Parameters
    ----------
    key : str
        Stable identifier, ``<paper id>.<label slug>[.<quantity>]`` (``demo.prop1.scale``).
    seed : str
        Seed file name for a paper read from a seed file, else empty.
    label : str
        The paper's label as printed (``Proposition 1``, ``Section 5.1``).
    kind : str
        One of :data:`KINDS`.
    quantity : str
        What the expression is (``Laplace scale of b``, ``upper bound on E R_2``).
    stated : sympy expression or None
        The expression as the paper prints it.
    derive : callable or None
        ``derive(dep)`` returns the expression the proof actually yields, where
        ``dep(key)`` gives the expression of a dependency.
    relation : str
        How ``stated`` must compare with ``derived`` for the statement to hold:
        ``eq`` (equal), ``upper`` (an upper bound: stated ≥ derived),
        ``lower`` (stated ≤ derived) or ``none``.
    params : tuple of str
        Names (see :data:`bounds.symbols.P`) of the symbols it uses.
    depends : tuple of str
        Keys of the statements the derivation uses.
    equation : str
        Equation number or location as printed (``(12)``, ``proof of Theorem 4``).
    doc : str
        Docstring: what the statement says and where, citing seed file, label and equation.
    cited : str
        Outside result it rests on (empty if none).
    constraints : tuple of sympy relationals
        Joint assumptions beyond the per-symbol domains (``R >= M``).
    checks : tuple of callables
        Extra checks ``check(statement, dep) -> Check | list[Check]``.
    hypotheses : tuple of callables
        For a statement resting on an outside theorem (``cited``) or an outside
        inequality: checks, in the same form, that the theorem's hypotheses hold in
        the paper's setting (a Lipschitz constant, a norm bound, boundedness, a
        martingale structure).  A failing hypothesis is a ``gap``: the statement is
        *unsupported* unless a valid replacement is derived.
    rate_symbol, claimed_exponent
        For rate statements: the variable (``m``) and the claimed exponent of
        the bound (``-β/(2β+1)``).
    schedule : dict
        For pre-schedule bounds: parameter name -> key of the schedule statement.
    notes : str
        Remarks on the proof (gaps, typos in the printed text, extraction caveats).
    routes : tuple of callables
        An alternative derivation, as checks in the same form as ``checks``: each
        establishes the statement's conclusion without the premise of the paper's proof
        that fails (an identity, a sharper lemma, an exact computation).  They are run
        like checks (named ``route: ...``, ``details["route"] = True``); when every route
        check holds, a failing premise of the proof (its own ``gap`` or an unsupported
        dependency) leaves the statement *proof gap, statement holds* (verdict ``gap``)
        instead of *unsupported*.  A failing route check is no evidence against the
        statement; it only leaves the route unestablished.
    errors : mapping of str to str
        Check name → the underlying-error slug its failure embodies, for checks the registry
        builds itself (``{"stated vs derived": "expm1-vs-2eps"}``); a check a paper writes sets
        ``details["error"]`` directly.  See :mod:`bounds.verdict` (one root per underlying error).
    tags : mapping of str to mapping
        Check name → ``details`` entries to add to a check the registry builds itself (a
        ``reading`` under which the comparison applies, say: ``{"stated vs derived": {"reading": "sum"}}``).
    readings : mapping of str to str
        Where the printed text is ambiguous, lost or reconstructed: reading name →
        what the statement says under it.  The first reading is the one ``stated``
        encodes.  A piece of evidence that applies under one reading only carries
        ``details["reading"] = name``; the verdict is computed under each reading and,
        when they differ, says so (:mod:`bounds.verdict`).
    value_of : str
        The parameter of the paper's namespace whose value this statement gives (``cms.alg2.delta``
        gives ``Delta``): that parameter's domain is the meaning of the value, and
        :meth:`Registry.value` refuses a value outside it (a negative Δ, a probability above 1).
    outside : str
        What applies where the value falls outside that meaning (the other branch of the
        algorithm), one sentence; the error of :meth:`Registry.value` quotes it.
    premises : mapping of str to str
        For a statement that calibrates a mechanism: the premises its privacy proof assumes of the
        algorithm whose output it calibrates, so that a user of the calibration (an estimator) can
        check that they hold for it, rather than trusting a name: ``loss`` (``"square"``, ``"hinge"``),
        ``algorithm`` (what is fitted), ``labels`` (``"|y| <= M"``), ``lipschitz`` (the Lipschitz
        constant of the loss on the fits' range, an expression in the statement's parameters).
        Empty: none declared (a user of the calibration then cannot check that it applies).
        A plain dict, so that it survives the snapshot's light copies (pickled).
    ceiling : sympy expression, number or None
        For a bound on the utility of a release (an excess risk, a misclassification excess, a rate):
        its *trivial ceiling*, the largest value the bounded quantity can take or the value a
        data-independent answer attains under the paper's premises (1 for an excess
        misclassification risk; M² for least squares with |y| ≤ M: the zero predictor's excess risk
        ‖f_ρ‖²_ρ).  A bound at or above it is vacuous (:mod:`bounds.pick` says so).  None: no
        finite ceiling (``ceiling_why`` then says why).
    ceiling_why : str
        Why that is the ceiling, derived from the premises, or why there is none.
    references : tuple of str
        Published analyses that a finding on this statement reproduces or that the corrected form
        follows (full citations, e.g. ``"Chaudhuri, Monteleoni & Sarwate, JMLR 12 (2011), Thm 9"``):
        the report shows them beside the verdict, so a known result is credited, not presented as new.
    relaxes : mapping of str to (number, str)
        Premises that real implementations commonly relax, made parameters: parameter name →
        (the paper's value, the premise it relaxes), e.g. ``{"q": (1, "feature norm ||x|| <= q")}``.
        Each name is one of ``params``; a caller that omits it gets the paper's value
        (:meth:`Statement.paper_values`), so the statement reads as printed by default and answers for
        a user's own data scale when the value is given.
    """

    key: str
    seed: str
    label: str
    kind: str
    quantity: str
    stated: sp.Expr | None
    derive: Deriver | None = None
    relation: str = "eq"
    params: tuple[str, ...] = ()
    depends: tuple[str, ...] = ()
    equation: str = ""
    doc: str = ""
    cited: str = ""
    constraints: tuple[Any, ...] = ()
    checks: tuple[ExtraCheck, ...] = ()
    hypotheses: tuple[ExtraCheck, ...] = ()
    rate_symbol: str | None = None
    claimed_exponent: sp.Expr | None = None
    schedule: dict[str, str] = field(default_factory=dict)
    notes: str = ""
    routes: tuple[ExtraCheck, ...] = ()
    errors: Mapping[str, str] = field(default_factory=dict)
    tags: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    readings: Mapping[str, str] = field(default_factory=dict)
    value_of: str = ""
    outside: str = ""
    premises: Mapping[str, str] = field(default_factory=dict)
    ceiling: Any = None
    ceiling_why: str = ""
    references: tuple[str, ...] = ()
    relaxes: Mapping[str, tuple[Any, str]] = field(default_factory=dict)
    ns: Namespace = field(default_factory=lambda: SHARED, repr=False, compare=False)
    source: str = ""
    file: str = ""
    line: int = 0

    def __post_init__(self) -> None:
        if not self.source:
            self.source = self.seed
        if self.kind not in KINDS:
            raise ValueError(f"statement {self.key}: kind {self.kind!r} not in {KINDS}")
        if self.relation not in RELATIONS:
            raise ValueError(f"statement {self.key}: relation {self.relation!r} not in {RELATIONS}")
        for name in self.params:
            if name not in self.ns:
                raise ValueError(f"statement {self.key}: unknown parameter {name!r} "
                                 f"(not in the namespace of paper {self.paper!r} nor the shared one)")
        if not isinstance(self.premises, Mapping) or not all(
                isinstance(k, str) and isinstance(v, str) for k, v in self.premises.items()):
            raise ValueError(f"statement {self.key}: premises {self.premises!r} must map names to strings")
        self.premises = dict(self.premises)
        if isinstance(self.references, str) or not all(isinstance(r, str) and r for r in self.references):
            raise ValueError(f"statement {self.key}: references {self.references!r} must be a tuple of citations")
        self.references = tuple(self.references)
        for name, spec in dict(self.relaxes).items():
            if name not in self.params or not (isinstance(spec, tuple) and len(spec) == 2 and isinstance(spec[1], str)):
                raise ValueError(f"statement {self.key}: relaxes[{name!r}] must name one of its params and give "
                                 "(the paper's value, the premise it relaxes)")
        self.relaxes = dict(self.relaxes)
        if self.ceiling is not None:
            self.ceiling = sp.sympify(self.ceiling)
            unknown = [str(x) for x in self.ceiling.free_symbols if not self.ns.has_symbol(x)]
            if unknown or not self.ceiling_why:
                raise ValueError(f"statement {self.key}: ceiling {self.ceiling} needs ceiling_why and known "
                                 f"parameters only (unknown: {', '.join(unknown) or 'none'})")
        if self.value_of and self.value_of not in self.ns:
            raise ValueError(f"statement {self.key}: value_of {self.value_of!r} is not a parameter "
                             f"(not in the namespace of paper {self.paper!r} nor the shared one)")
        self.__doc__ = self.doc

    @property
    def paper(self) -> str:
        return self.key.split(".", 1)[0]

    def param_objs(self) -> list[Param]:
        return [self.ns[n] for n in self.params]

    def paper_values(self, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """``values`` with every relaxed premise the caller left out set to the paper's value.

        Examples
        --------
        >>> from bounds.core import Statement
        >>> from bounds.symbols import S
        >>> st = Statement("demo.s", "demo", "s", "lemma", "sensitivity", 2 * S.kappa / S.m,
        ...                params=("kappa", "m"), relaxes={"kappa": (1, "feature norm ||x|| <= kappa")})
        >>> st.paper_values({"m": 10}), st.paper_values({"m": 10, "kappa": 20})
        ({'m': 10, 'kappa': 1}, {'m': 10, 'kappa': 20})
        """
        out = dict(values or {})
        for name, (paper_value, _premise) in self.relaxes.items():
            out.setdefault(name, paper_value)
        return out

    def assumptions_text(self) -> list[str]:
        out = []
        for p in self.param_objs():
            text = p.domain_text()
            if p.soft_hi is not None:
                text += f" (paper: {p.name} < {p.soft_hi:g} for meaningful privacy; warning only)"
            out.append(text)
        out.extend(_rel_text(c, self.ns) for c in self.constraints)
        return out


def as_key(key: Any) -> Any:
    """The key of a :class:`Statement` handle (``bounds.papers.cms.ALG1_BETA``), else ``key`` unchanged.

    A paper module's statements are importable objects; every lookup of :class:`Registry`
    accepts them as well as their string keys, so an editor or ``grep`` follows a statement to
    the trials that use it.
    """
    return key.key if isinstance(key, Statement) else key


def _rel_text(rel: Any, ns: Namespace = SHARED) -> str:
    text = str(rel)
    for p in (ns[k] for k in ns):
        text = text.replace(str(p.symbol), p.name) if str(p.symbol) != p.name else text
    return text


def picklable(snap: dict[str, tuple]) -> dict[str, tuple]:
    """The entries of a snapshot that pickle (an expression with a custom sympy class may not)."""
    import pickle

    out = {}
    for k, v in snap.items():
        try:
            pickle.dumps(v)
        except Exception:  # noqa: BLE001 - such entries are simply evaluated again
            continue
        out[k] = v
    return out


@dataclass
class Evaluation:
    """The computed verdict on a statement."""

    statement: Statement
    derived: sp.Expr | None
    derived_from_stated: sp.Expr | None
    checks: list[Result]
    status: str
    detail: str
    inherits: tuple[str, ...] = ()

    @property
    def key(self) -> str:
        return self.statement.key

    @property
    def placeholder(self) -> bool:
        """A statement the paper states no form of and nothing derives (a table row, a named claim): nothing
        checks it, so its verdict is ``unchecked`` and no derivation status is shown for it."""
        st = self.statement
        return st.stated is None and self.derived is None and st.kind not in ("definition", "assumption")

    @property
    def shown_status(self) -> str:
        """The derivation status as tallied and shown: ``placeholder`` for a placeholder, else :attr:`status`."""
        return "placeholder" if self.placeholder else self.status

    @property
    def expression(self) -> sp.Expr | None:
        """The expression for numeric use.

        The paper's stated expression when it holds (or is a premise); the
        derived one for an erratum, for a statement that fails only outside the
        paper's regime (the derived form holds everywhere), and when the paper
        states none.  A failing hypothesis alone does not switch to the derived form
        (which rests on the same hypothesis); the verdict says *unsupported*.
        """
        if self.statement.stated is None:
            return self.derived
        # a failing hypothesis of an outside result leaves no valid form: the stated one is kept for numbers
        failing = self.status == "erratum" or any(c.failed and not c.details.get("hypothesis") and not c.details.get("route")
                                                        for c in self.checks)
        if failing and self.derived is not None:   # also a failure only outside the regime: derived is valid everywhere
            return self.derived
        return self.statement.stated


class Registry:
    """The statements of some papers, with lazily computed and cached evaluations.

    A registry is built explicitly from :class:`~bounds.paper.Paper` objects
    (:func:`bounds.discovery.build_registry` builds the default one from every
    discovered paper); a test can build one from a single paper.

    Examples
    --------
    >>> import sympy as sp
    >>> from bounds.core import Registry
    >>> from bounds.paper import Paper
    >>> from bounds.symbols import S
    >>> demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
    >>> _ = demo.add("thm1", "Theorem 1", "theorem", "q", 1 / S.m, derive=lambda dep: 1 / S.m,
    ...              relation="upper", params=("m",), doc="Doe (2026), Theorem 1.")
    >>> reg = Registry([demo])
    >>> reg.keys(), reg.evaluate("demo.thm1").status
    (['demo.thm1'], 'consistent')
    """

    def __init__(self, papers: Any = (), store: Any = None) -> None:
        self._statements: dict[str, Statement] = {}
        self._cache: dict[str, Evaluation] = {}
        self._in_progress: set[str] = set()
        self._unstored: set[str] = set()
        self.papers: dict[str, Any] = {}
        #: a :class:`~bounds.snapshot.Store` consulted before evaluating and written after (or None)
        self.store: Any = None
        #: True for a registry rebuilt from stored light papers: it cannot derive, only look up
        self.light = False
        for p in papers:
            self.add_paper(p)
        self.store = store

    # -- registration -------------------------------------------------
    def add_paper(self, paper: Any) -> None:
        """Add every statement of a :class:`~bounds.paper.Paper`."""
        if paper.id in self.papers:
            raise ValueError(f"paper id {paper.id!r} is declared twice ({self.papers[paper.id].module}, {paper.module})")
        self.papers[paper.id] = paper
        for st in paper.statements.values():
            self.add(st)

    def paper_of(self, key: str | Statement) -> Any:
        """The paper a statement key belongs to."""
        return self.papers[self.get(key).paper]

    def add(self, st: Statement) -> Statement:
        if st.key in self._statements:
            raise ValueError(f"duplicate statement key {st.key!r}")
        self._statements[st.key] = st
        self._cache.pop(st.key, None)
        if self.store is not None:   # added after the store was attached: never looked up there
            self._unstored.add(st.key)
        return st

    def __contains__(self, key: str) -> bool:
        return key in self._statements

    def __iter__(self):
        return iter(self._statements.values())

    def __len__(self) -> int:
        return len(self._statements)

    def keys(self) -> list[str]:
        return list(self._statements)

    def get(self, key: str) -> Statement:
        """The statement registered under ``key``.

        Raises
        ------
        bounds.validation.UnknownKeyError
            A :class:`KeyError` and a :class:`ValueError`, with the close matches, for an unknown
            key or one that is not a string.
        """
        key = as_key(key)
        try:
            return self._statements[key]
        except (KeyError, TypeError):
            pass
        raise unknown_key(key, self._statements) from None

    # -- expressions ----------------------------------------------------
    def stated(self, key: str | Statement) -> sp.Expr:
        key = as_key(key)
        st = self.get(key)
        if st.stated is None:
            raise ValueError(f"statement {key} has no stated expression")
        return st.stated

    def derived(self, key: str | Statement) -> sp.Expr:
        key = as_key(key)
        ev = self.evaluate(key)
        if ev.expression is None:
            raise ValueError(f"statement {key} has no expression")
        return ev.expression

    # -- evaluation -----------------------------------------------------
    def evaluate(self, key: str | Statement) -> Evaluation:
        key = as_key(key)
        if not isinstance(key, str):
            self.get(key)                   # raises: a statement key is a string
        if key in self._cache:
            return self._cache[key]
        if key in self._in_progress:
            raise RuntimeError(f"cyclic dependency through {key}")
        st = self.get(key)
        stored = self.store is not None and key not in self._unstored
        if stored:
            tup = self.store.get(key)
            if tup is not None:
                ev = self._cache[key] = Evaluation(st, *tup)
                return ev
        if self.light:
            raise LookupError(f"statement {key} is not in the symbolic snapshot of this light registry")
        self._in_progress.add(key)
        try:
            ev = self._evaluate(st)
        finally:
            self._in_progress.discard(key)
        self._cache[key] = ev
        if stored:
            self.store.put(key, (ev.derived, ev.derived_from_stated, ev.checks, ev.status, ev.detail, ev.inherits))
        return ev

    def closure(self, keys: Any, schedules: bool = False) -> list[str]:
        """``keys`` and the statements they depend on, dependencies first, otherwise in the given order.

        With ``schedules``, also the schedule statements a pre-schedule bound reads (what a pick needs).

        Examples
        --------
        >>> import sympy as sp
        >>> from bounds.paper import Paper
        >>> from bounds.symbols import S
        >>> demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
        >>> _ = demo.add("lemma", "Lemma 1", "lemma", "q", 1 / S.m, params=("m",))
        >>> _ = demo.add("thm", "Theorem 1", "theorem", "q", 2 / S.m, params=("m",), depends=("lemma",))
        >>> Registry([demo]).closure(["demo.thm"])
        ['demo.lemma', 'demo.thm']
        """
        out: list[str] = []
        seen: set[str] = set()

        def visit(k: str) -> None:
            if k in seen:
                return
            seen.add(k)
            st = self.get(k)
            for d in (*st.depends, *(st.schedule.values() if schedules else ())):
                visit(d if d in self else f"{st.paper}.{d}")
            out.append(k)

        for k in keys:
            visit(k)
        return out

    def evaluate_all(self) -> list[Evaluation]:
        return [self.evaluate(k) for k in self._statements]

    # -- persistence of evaluations (the report job's cache) -----------------

    def snapshot(self, keys: list[str] | None = None) -> dict[str, tuple]:
        """The evaluations of ``keys`` (default: all) as picklable tuples (statements excluded)."""
        out = {}
        for k in keys if keys is not None else self.keys():
            ev = self.evaluate(k)
            out[k] = (ev.derived, ev.derived_from_stated, ev.checks, ev.status, ev.detail, ev.inherits)
        return out

    def restore(self, snap: dict[str, tuple]) -> int:
        """Install evaluations from :meth:`snapshot` for statements that exist; returns how many."""
        n = 0
        for k, tup in snap.items():
            if k in self._statements and k not in self._cache:
                self._cache[k] = Evaluation(self._statements[k], *tup)
                n += 1
        return n

    def _evaluate(self, st: Statement) -> Evaluation:
        for dep in st.depends:
            self.get(dep)  # fail early on a typo
        derived = dstated = None

        def own(k: str) -> str:   # a dependency may be named without the paper prefix
            return k if k in self._statements else f"{st.paper}.{k}"

        if st.derive is not None:
            derived = st.derive(lambda k: self.derived(own(k)))
            dstated = st.derive(lambda k: self.stated_or_derived(own(k)))
        from .checks import compare  # imported here: numpy is not needed to read a snapshot

        checks: list[Check] = []
        if derived is not None and st.stated is not None and st.relation != "none":
            checks.append(compare(st, st.stated, derived, label="stated vs derived"))
        def res(k: str) -> sp.Expr:
            k = own(k)
            if k == st.key:
                return derived if derived is not None else st.stated
            return self.derived(k)

        for fn in st.checks:
            out = fn(st, res)
            checks.extend(out if isinstance(out, list) else [out])
        # hypotheses of an outside result (a failure is a gap of the proof) and routes (another derivation)
        for fns, flag in ((st.hypotheses, "hypothesis"), (st.routes, "route")):
            for fn in fns:
                out = fn(st, res)
                for c in out if isinstance(out, list) else [out]:
                    if not c.name.startswith(flag):
                        c.name = f"{flag}: {c.name}"
                    c.details.setdefault(flag, True)
                    if flag == "hypothesis" and c.failed and not c.severity:
                        c.severity = "gap"
                    checks.append(c)
        for c in checks:
            if not c.key:
                c.key = st.key
            if c.name in st.errors and "error" not in c.details:
                c.details["error"] = st.errors[c.name]
            for k, v in st.tags.get(c.name, {}).items():
                c.details.setdefault(k, v)
        # a route check is no evidence against the statement: its failure leaves the route unestablished
        failed = [c for c in checks if c.failed and not c.details.get("route")]
        outside_only = [c for c in failed if not c.inside_regime]
        failed = [c for c in failed if c.inside_regime]   # a failure only outside the paper's regime is no erratum
        inherits: tuple[str, ...] = ()
        dep_errata = tuple(d for d in st.depends if self.evaluate(d).status == "erratum")
        if any(not c.details.get("hypothesis") for c in failed):
            # a failing hypothesis of an outside result is no error of the derivation: the derivation
            # status stays, and the verdict (bounds.verdict) makes the statement unsupported
            status = "erratum"
        elif st.kind in ("definition", "assumption"):
            status = "premise"
        elif st.kind == "order":
            status = "order"
        elif st.cited:
            status = "cited"
        else:
            status = "consistent"
        parts = []
        if failed:
            parts.extend(f"{c.name}: {c.detail}" for c in failed)
            if (
                status == "erratum"
                and dep_errata
                and dstated is not None
                and st.stated is not None
                and _holds(st, dstated)
            ):
                inherits = dep_errata
                parts.append(
                    "follows from the paper's own (stated) "
                    + ", ".join(dep_errata)
                    + ", so the erratum is inherited from there"
                )
        else:
            parts.extend(c.detail for c in checks if c.detail)
            if outside_only:
                parts.insert(0, "holds in the paper's regime; fails only outside it ("
                             + "; ".join(c.name for c in outside_only) + ")")
            if dep_errata:
                parts.append("uses " + ", ".join(dep_errata) + " (errata; their derived forms are used here)")
        if st.cited and not failed:
            parts.insert(0, f"rests on {st.cited}")
        if st.notes:
            parts.append(st.notes)
        detail = "; ".join(p for p in parts if p)
        return Evaluation(st, derived, dstated, checks, status, detail, inherits)

    def stated_or_derived(self, key: str) -> sp.Expr:
        st = self.get(key)
        return st.stated if st.stated is not None else self.derived(key)

    # -- numeric evaluation with validation ------------------------------
    def value(
        self,
        key: str,
        values: Mapping[str, float],
        which: str | None = None,
        warn: bool = True,
    ) -> float:
        """Evaluate a statement numerically after validating ``values``.

        Parameters
        ----------
        key : str
            Statement key.
        values : mapping
            Parameter name -> value.  Every free symbol of the expression must
            be given, except a relaxed premise (:attr:`Statement.relaxes`), which takes the
            paper's value when left out; unknown names are rejected.
        which : {None, "derived", "stated"}
            ``None`` (default): the form the registry uses for numbers (:attr:`Evaluation.expression`:
            the stated form where it holds, the derived one for an erratum or where the paper states
            none).  ``"derived"``: the form the proof yields, always (a :class:`ValueError` when
            nothing derives the statement).  ``"stated"``: the paper's printed form.
        warn : bool
            Emit a warning when a value exceeds a limit the paper states only
            as advice (ε < 1).

        Returns
        -------
        float

        Raises
        ------
        ValueError
            Naming the parameter, the statement and the violated assumption; for a statement that
            declares what its value is (``value_of``), a value outside that parameter's domain
            names the domain and the branch that applies there (``outside``).

        Examples
        --------
        >>> from bounds.core import Registry
        >>> from bounds.paper import Paper
        >>> from bounds.symbols import S
        >>> demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
        >>> _ = demo.add("thm1", "Theorem 1", "theorem", "q", 2 * S.kappa / (S.lam * S.m),
        ...              params=("kappa", "lam", "m"), relation="none", doc="Doe (2026), Theorem 1.")
        >>> Registry([demo]).value("demo.thm1", dict(kappa=1, lam=0.1, m=100))
        0.2
        >>> Registry([demo]).value("demo.thm1", dict(kappa=1, lam=0, m=100))
        Traceback (most recent call last):
        ...
        ValueError: parameter 'lam' = 0 violates the assumption lam > 0 of statement demo.thm1 (Theorem 1)
        >>> Registry([demo]).value("demo.thm1", dict(kappa=1, lam=0.1, m=100), which="derived")
        Traceback (most recent call last):
        ...
        ValueError: parameter 'which' = 'derived': statement demo.thm1 (Theorem 1) has no derived form (nothing derives it); its stated form is which='stated'

        A value beyond the float range is an error too, naming its cause, never ``inf``:

        >>> Registry([demo]).value("demo.thm1", dict(kappa=1, lam=1e-320, m=100))
        Traceback (most recent call last):
        ...
        ValueError: statement demo.thm1 (Theorem 1) is about 2e+318, beyond the floating-point range (overflow), at kappa=1, lam=1e-320, m=100; check parameter 'lam' = 1e-320

        A value outside what the quantity means is refused, naming the branch that applies:

        >>> _ = demo.add("delta", "Algorithm 1", "equation", "extra regulariser", 1 / S.m - S.lam,
        ...              params=("m", "lam"), relation="none", value_of="lam",
        ...              outside="a negative value means the first branch applies (no extra regulariser)")
        >>> Registry([demo]).value("demo.delta", dict(m=100, lam=0.1))
        Traceback (most recent call last):
        ...
        ValueError: statement demo.delta (Algorithm 1) gives lam = -0.09 at m=100, lam=0.1, outside the meaning of lam (assumption lam > 0): a negative value means the first branch applies (no extra regulariser)
        """
        key = as_key(key)
        st = self.get(key)
        where = f"statement {st.key} ({st.label})"
        if which not in (None, "derived", "stated"):
            raise ValueError(f"parameter 'which' = {short(which)} must be None, 'derived' or 'stated' ({where})")
        if not isinstance(values, Mapping):
            raise ValueError(f"parameter 'values' must be a mapping name -> number, not "
                             f"{type(values).__name__} ({where})")
        values = st.paper_values(values)   # a relaxed premise left out reads as the paper prints it
        if which == "stated":
            expr = st.stated
        elif which == "derived":
            expr = self.evaluate(key).derived
            if expr is None:
                why = "nothing derives it"
                alt = "; its stated form is which='stated'" if st.stated is not None else ""
                raise ValueError(f"parameter 'which' = 'derived': {where} has no derived form ({why}){alt}")
        else:
            expr = self.evaluate(key).expression
        if expr is None:
            raise ValueError(f"{where} has no {which or 'numeric'} expression to evaluate")
        subs = validate(st, values, expr, warn=warn)
        v = numeric(st, expr, subs, values)
        check_meaning(st, v, values)
        return v


def check_meaning(st: Statement, v: float, given: Mapping[str, Any]) -> None:
    """Refuse a value outside what the statement's quantity means (its ``value_of`` parameter's domain).

    Raises
    ------
    ValueError
        Naming the statement, the value, the point, the assumption and the branch that applies there.
    """
    if not st.value_of:
        return
    p = st.ns[st.value_of]
    bad = p.violation(float(v))
    if bad is None:
        return
    point = fmt_point({k: float(x) for k, x in given.items()})
    tail = f": {st.outside}" if st.outside else ""
    raise ValueError(f"statement {st.key} ({st.label}) gives {p.name} = {num(v)} at {point}, outside the meaning "
                     f"of {p.name} (assumption {bad}){tail}")


def number_or_reason(out: Any, underflow_is_error: bool = False) -> tuple[float | None, str]:
    """``(float, "")`` for a finite real number a float holds, else ``(None, why not)``.

    A nonzero value below the float range rounds to 0.0 (the nearest float: a density far in its
    tail), unless ``underflow_is_error``.

    Examples
    --------
    >>> import sympy as sp
    >>> number_or_reason(sp.Float(2) ** 10)
    (1024.0, '')
    >>> number_or_reason(sp.Float(2) ** 2000)
    (None, 'about 1.15e+602, beyond the floating-point range (overflow)')
    >>> number_or_reason(sp.sqrt(sp.Float(-2)))
    (None, 'not a real number (complex)')
    """
    try:
        x = sp.N(out, 30)
    except Exception as exc:  # noqa: BLE001 - any failure of the arithmetic is reported, not raised
        return None, f"not computable ({type(exc).__name__})"
    if x.has(sp.nan):
        return None, "undefined (nan)"
    if x.has(sp.zoo, sp.oo):
        return None, "infinite (a division by zero or a pole)"
    if not x.is_number:
        return None, "not a number"
    re, im = x.as_real_imag()
    if im != 0:
        return None, "not a real number (complex)"
    try:
        f = float(re)
    except (TypeError, ValueError, OverflowError):
        return None, "not a real number"
    if math.isinf(f):
        return None, f"{magnitude(re)}, beyond the floating-point range (overflow)"
    if math.isnan(f):
        return None, "undefined (nan)"
    if f == 0 and re != 0 and underflow_is_error:
        return None, f"{magnitude(re)}, below the floating-point range (underflow to 0)"
    return f, ""


def moderate_value(p: Param) -> float | None:
    """An admissible moderate value of a parameter (1 when allowed): the stand-in used to find which
    input makes an evaluation overflow.

    Examples
    --------
    >>> from bounds.symbols import P
    >>> moderate_value(P["eps"]), moderate_value(P["m"]), moderate_value(P["delta"])
    (1.0, 2.0, 0.5)
    """
    lo, hi = p.sample_bounds()
    for v in (1.0, 2.0, 0.5, 10.0, 0.1, p.lo + 1.0, math.sqrt(lo * hi) if lo > 0 else (lo + hi) / 2):
        if math.isfinite(v) and p.contains(float(round(v)) if p.integer else v):
            return float(round(v)) if p.integer else v
    return None


def numeric(st: Statement, expr: sp.Expr, subs: Mapping[sp.Symbol, float], given: Mapping[str, Any]) -> float:
    """The value of ``expr`` at the validated substitution ``subs`` as a finite float.

    Raises
    ------
    ValueError
        When the statement is not numeric (it has symbols that are no parameters), or its value is
        infinite, undefined, complex, beyond the float range (overflow; an underflow rounds to 0.0)
        or negative where the expression cannot be: the message names the statement, the point, the
        reason and the input that causes it.
    """
    where = f"statement {st.key} ({st.label})"
    out = expr.subs(subs)
    leftover = sorted(str(s) for s in out.free_symbols)
    if leftover:
        raise ValueError(f"{where} cannot be evaluated numerically: it contains {', '.join(leftover)}, "
                         "which are not parameters")
    f, why = number_or_reason(out)
    if f is not None and f < 0 and expr.is_nonnegative:
        f, why = None, f"negative ({f:.6g}), which this expression cannot be (rounding)"
    if f is not None:
        return f
    ns = st.ns
    point = {k: float(v) for k, v in given.items()}

    def finite_at(vals: dict[str, float]) -> bool:
        return number_or_reason(expr.subs({ns[k].symbol: v for k, v in vals.items()}))[0] is not None

    bad = culprits(finite_at, point, lambda name: moderate_value(ns[name]))
    names = ", ".join(f"{b!r} = {num(point[b])}" for b in bad)
    check = f"; check parameter{'s' if len(bad) > 1 else ''} {names}" if bad else ""
    raise ValueError(f"{where} is {why}, at {fmt_point(point) or 'no parameters'}{check}")


class PrivacyWarning(UserWarning):
    """A value outside a limit the paper recommends but does not require."""


def validate(
    st: Statement, values: Mapping[str, float], expr: sp.Expr | None = None, warn: bool = True
) -> dict[sp.Symbol, float]:
    """Check user values against a statement's assumptions; return a sympy substitution.

    Raises
    ------
    ValueError
        Message names the parameter, the statement and the assumption.
    """
    where = f"statement {st.key} ({st.label})"
    if not isinstance(values, Mapping):
        raise ValueError(f"parameter values must be a mapping name -> number, not {type(values).__name__} "
                         f"({where})")
    expr = st.stated if expr is None else expr
    ns = st.ns
    free = ns.known(expr.free_symbols if expr is not None else set())
    allowed = set(st.params) | {ns.by_symbol(s).name for s in free}
    for name in values:
        if not isinstance(name, str) or name not in allowed:
            hint = suggest(name, allowed, n=3) if isinstance(name, str) else ""
            raise ValueError(
                f"parameter {short(name)} is not used by statement {st.key} ({st.label}); "
                f"it takes {', '.join(sorted(allowed)) or 'no parameters'}{hint}"
            )
    subs: dict[sp.Symbol, float] = {}
    absent = [ns.by_symbol(s) for s in sorted(free, key=str) if ns.by_symbol(s).name not in values]
    if absent:       # every missing parameter in one error, not one per attempt
        from .validation import missing_parameters

        raise missing_parameters([(p.name, p.domain_text()) for p in absent], where)
    for name, raw in values.items():
        p = ns[name]
        v = real(name, raw, where)
        if not math.isfinite(v):
            raise ValueError(f"parameter {name!r} = {short(raw)} is not finite ({where}; assumption "
                             f"{p.domain_text()})")
        bad = p.violation(v)
        if bad is not None:
            raise ValueError(
                f"parameter {name!r} = {short(raw)} violates the assumption {bad} "
                f"of statement {st.key} ({st.label})"
            )
        if warn and p.soft_hi is not None and v >= p.soft_hi:
            warnings.warn(
                f"parameter {name!r} = {v:g}: statement {st.key} ({st.label}) assumes "
                f"{name} < {p.soft_hi:g} for meaningful privacy",
                PrivacyWarning,
                stacklevel=3,
            )
        subs[p.symbol] = v
    for c in st.constraints:
        val = c.subs(subs)
        if val is sp.false or (val.is_Relational is False and not bool(val)):
            names = sorted(ns.by_symbol(x).name for x in ns.known(c.free_symbols))
            given = ", ".join(f"{n!r} = {num(subs[ns[n].symbol])}" for n in names if ns[n].symbol in subs)
            raise ValueError(
                f"parameter{'s' if len(names) > 1 else ''} {given} violate{'' if len(names) > 1 else 's'} "
                f"the assumption {_rel_text(c, ns)} of statement {st.key} ({st.label})"
            )
    return subs


def _holds(st: Statement, dstated: sp.Expr) -> bool:
    """Whether the stated expression follows from the dependencies *as the paper states them*."""
    if st.relation == "none":
        return False  # nothing to compare: inheritance cannot be established
    from .checks import compare

    try:
        return compare(st, st.stated, dstated, label="vs paper's premises").ok
    except Exception:  # noqa: BLE001
        return False


def keys_matching(reg: Registry, pattern: str) -> list[str]:
    """Keys matching a glob pattern (``<paper id>.*``) or containing ``pattern``."""
    import fnmatch

    ks = reg.keys()
    if any(ch in pattern for ch in "*?["):
        return [k for k in ks if fnmatch.fnmatch(k, pattern)]
    return [k for k in ks if pattern in k]
