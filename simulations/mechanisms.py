"""Noise mechanisms, calibrated from :mod:`bounds`.

A :class:`Mechanism` is one object, as OpenDP pairs a function with its privacy map: the
sampler of its noise, the :class:`~bounds.core.Statement` that calibrates it (an imported
handle such as ``bounds.papers.jia.S5_1_SCALE``, never a string key), the algorithm(s) it
applies to and its output space.  An output-perturbation mechanism adds one real Laplace
variable ``b`` to a fitted function; its scale comes from the symbolic layer, either as the
paper *states* it or as the toolkit *derives* it (they differ where the paper has an
erratum), so a simulation can run both calibrations.  A trial or setup says for which
algorithm it uses a mechanism (:meth:`Mechanism.require`, by the declared names); the estimators
of :mod:`simulations.estimators` go further and check the calibrating statement's declared
premises (loss, algorithm, Lipschitz constant: ``Statement.premises``) against their own, and
its verdict, with the rules of :mod:`simulations.privacy_rules`.

A paper declares its mechanisms in its trial module (``simulations/trials/<paper id>.py``) as
module-level names collected in ``MECHANISMS = (...)``; :func:`mechanisms` discovers them for
every paper :mod:`bounds` knows.  No mechanism is listed here.  A mechanism's name
(``"jia.s5_1"``) remains a convenience: :func:`get_mechanism` resolves it to the declared
object, and everything that takes a mechanism validates the resolved object the same way.

Examples
--------
>>> import numpy as np
>>> import bounds
>>> from simulations.mechanisms import Mechanism, mechanisms, laplace_scale, release
>>> name, mech = next(iter(mechanisms().items()))
>>> mech.name == name and bounds.registry.get(mech.statement.key) is mech.statement
True
>>> out = release(np.zeros(3), 0.5, n=4, rng=np.random.default_rng(0))
>>> out.shape
(4, 3)
>>> Mechanism("demo.x", "demo.x.scale", algorithms=("kls",))
Traceback (most recent call last):
...
ValueError: Mechanism 'demo.x': parameter 'statement' = 'demo.x.scale' is a str; assumption: the calibrating \
statement is a bounds Statement handle imported from its paper module (bounds.papers.<id>), not a string key
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from numbers import Integral, Real
from typing import Any

import numpy as np

import bounds
from bounds.core import Statement

from . import discovery

#: the output spaces a mechanism may release into
OUTPUTS: dict[str, str] = {
    "function": "a real function f + b on the input space",
    "sign": "a classifier sgn(f + b) (the sign of the released function)",
}


def laplace_noise(rng: np.random.Generator | np.random.RandomState, scale: float,
                  size: int | tuple[int, ...] | None = None) -> float | np.ndarray:
    """Laplace(0, ``scale``) draws: the default sampler of a :class:`Mechanism`.

    Parameters
    ----------
    rng : numpy Generator or RandomState
    scale : float
        Laplace scale (> 0, finite).
    size : int or tuple, optional
        Shape of the draws; None draws one float.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.mechanisms import laplace_noise
    >>> laplace_noise(np.random.default_rng(0), 2.0, (3,)).shape
    (3,)
    """
    out = rng.laplace(0.0, scale, size=size)
    return float(out) if size is None else out


def _positive_finite(value: Any) -> bool:
    """A real number (not a bool or a string) that is positive and finite."""
    if isinstance(value, bool) or not isinstance(value, Real):
        return False
    try:
        v = float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return math.isfinite(v) and v > 0


@dataclass(frozen=True, eq=False, repr=False)
class Mechanism:
    """A mechanism of a paper: its noise sampler, the statement that calibrates it, its algorithms and output.

    Parameters
    ----------
    name : str
        ``<paper id>.<label>`` (the mechanism of that result).
    statement : bounds.core.Statement
        The statement giving the Laplace scale (or, with ``per_eps``, the sensitivity that ε
        divides): an imported handle (``bounds.papers.<id>.<NAME>``), registered in
        :data:`bounds.registry`.
    algorithms : tuple of str
        The algorithms whose output this statement calibrates (``"kls"`` kernel least squares,
        ``"svm"`` the offset-free SVM, ``"online_kls"`` online kernel regression, or a name the
        paper's trial module uses); an estimator or trial of another algorithm is refused.
    per_eps : bool
        Whether the scale is the statement's value divided by ε.
    clip : bool
        Whether the function is clipped to [−M, M] before the noise.
    inputs : callable, optional
        Maps the problem's values (κ, λ, m, ε, M, ...) to the statement's parameters (for
        example R = M/√λ); by default the values the statement uses are passed through.
    release : str
        What is released (one line).
    output : {"function", "sign"}
        The output space (:data:`OUTPUTS`).
    sampler : callable
        ``sampler(rng, scale, size)`` draws the noise (default :func:`laplace_noise`).
    claims : tuple of bounds.core.Statement
        The paper's privacy claims about this release that are separate statements from the
        calibration (``jcc.thm1.density``: the noise density whose privacy Theorem 1 asserts).  A
        mechanism is only as private as every statement it rests on: an estimator refuses it unless the
        calibration *and* each claim have an established form (:attr:`statements`).

    Raises
    ------
    ValueError
        Naming the mechanism, the parameter and the assumption it violates.

    Examples
    --------
    >>> from bounds.papers.jia import S5_1_SCALE
    >>> from simulations.mechanisms import Mechanism
    >>> ls = Mechanism("jia.ls_demo", S5_1_SCALE, algorithms=("kls",), release="f_z + b")
    >>> ls.statement is S5_1_SCALE, ls.applies_to("kls"), ls.applies_to("svm")
    (True, True, False)
    >>> round(ls.scale("stated", kappa=1.0, lam=0.1, m=100, eps=0.5, M=1.0), 6)   # Mκ²(κ+1)/(ελ^{3/2}m)
    1.264911
    """

    name: str
    statement: Statement
    algorithms: tuple[str, ...]
    per_eps: bool = False
    clip: bool = False
    inputs: Callable[[Mapping[str, float]], dict[str, float]] | None = None
    release: str = ""
    output: str = "function"
    sampler: Callable[..., Any] = field(default=laplace_noise)
    claims: tuple[Statement, ...] = ()

    def __post_init__(self) -> None:
        who = f"Mechanism {self.name!r}"
        if not isinstance(self.name, str) or "." not in self.name.strip(".") or self.name != self.name.strip():
            raise ValueError(f"Mechanism: parameter 'name' = {self.name!r} must be a string '<paper id>.<label>'")
        st = self.statement
        if not isinstance(st, Statement):
            raise ValueError(f"{who}: parameter 'statement' = {st!r} is a {type(st).__name__}; assumption: the "
                             "calibrating statement is a bounds Statement handle imported from its paper module "
                             "(bounds.papers.<id>), not a string key")
        if st.paper != self.name.split(".")[0]:
            raise ValueError(f"{who}: parameter 'statement' = {st.key} belongs to paper {st.paper!r}; assumption: "
                             f"a mechanism is calibrated by a statement of its own paper ({self.name.split('.')[0]!r})")
        algs = self.algorithms
        if isinstance(algs, str) or not isinstance(algs, tuple) or not algs or \
                not all(isinstance(a, str) and a.strip() for a in algs):
            raise ValueError(f"{who} ({st.key}): parameter 'algorithms' = {algs!r} must be a non-empty tuple of "
                             "algorithm names; assumption: a calibration applies to the algorithm(s) its statement "
                             "is about")
        for flag in ("per_eps", "clip"):
            if not isinstance(getattr(self, flag), bool):
                raise ValueError(f"{who} ({st.key}): parameter {flag!r} = {getattr(self, flag)!r} must be a bool")
        if self.inputs is not None and not callable(self.inputs):
            raise ValueError(f"{who} ({st.key}): parameter 'inputs' = {self.inputs!r} must be callable or None")
        if not isinstance(self.release, str):
            raise ValueError(f"{who} ({st.key}): parameter 'release' = {self.release!r} must be a string")
        if self.output not in OUTPUTS:
            raise ValueError(f"{who} ({st.key}): parameter 'output' = {self.output!r} is not one of {sorted(OUTPUTS)}")
        if not isinstance(self.claims, tuple) or not all(isinstance(c, Statement) and c.paper == st.paper
                                                          for c in self.claims):
            raise ValueError(f"{who} ({st.key}): parameter 'claims' = {self.claims!r} must be a tuple of Statement "
                             f"handles of paper {st.paper!r}; assumption: a mechanism rests on its own paper's claims")
        if not callable(self.sampler):
            raise ValueError(f"{who} ({st.key}): parameter 'sampler' = {self.sampler!r} must be callable "
                             "sampler(rng, scale, size)")

    # identity semantics: a mechanism is its declaration (never copied by sklearn's clone)
    def __repr__(self) -> str:
        return f"<Mechanism {self.name}: {self.statement.key} for {', '.join(self.algorithms)}>"

    def __str__(self) -> str:
        return self.name

    def __copy__(self) -> Mechanism:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> Mechanism:
        return self

    def __reduce__(self) -> Any:
        declared = discovery.mechanisms().get(self.name)
        if declared is self:       # pickled by name: the receiver resolves its own declaration
            return (get_mechanism, (self.name,))
        return (_rebuild, (self.name, self.statement.key, self.algorithms, self.per_eps, self.clip, self.inputs,
                           self.release, self.output, self.sampler,
                           tuple(c.key for c in self.claims)))

    # -- what it calibrates ------------------------------------------------------------
    @property
    def scale_key(self) -> str:
        """The key of the calibrating statement (for reports; look-ups take :attr:`statement`)."""
        return self.statement.key

    @property
    def statements(self) -> tuple[Statement, ...]:
        """Every statement this mechanism rests on: the calibrating statement, then its privacy claims."""
        return (self.statement, *self.claims)

    def applies_to(self, algorithm: str) -> bool:
        """Whether this mechanism calibrates ``algorithm``."""
        return algorithm in self.algorithms

    def require(self, algorithm: str, user: str) -> Mechanism:
        """This mechanism, if it calibrates ``algorithm``; else a ValueError naming both.

        Parameters
        ----------
        algorithm : str
            The algorithm of the user (``"kls"``, ``"svm"``, ...).
        user : str
            Who uses it (an estimator class, a trial), for the message.

        Examples
        --------
        >>> from simulations.mechanisms import get_mechanism
        >>> get_mechanism("jia.s5_2").require("kls", "DPKernelLeastSquares")
        Traceback (most recent call last):
        ...
        ValueError: DPKernelLeastSquares (algorithm 'kls') was given mechanism 'jia.s5_2', whose statement \
jia.s5_2.scale calibrates svm, not kls: its noise would be wrong; use a mechanism of kls: jia.s5_1, jamp.prop1
        """
        if self.applies_to(algorithm):
            return self
        try:
            fits = ", ".join(n for n, m in mechanisms().items() if m.applies_to(algorithm)) or "none is declared"
        except ValueError as err:         # the declarations themselves are broken: say so instead of listing
            fits = f"(the declarations cannot be listed: {err})"
        raise ValueError(f"{user} (algorithm {algorithm!r}) was given mechanism {self.name!r}, whose statement "
                         f"{self.statement.key} calibrates {', '.join(self.algorithms)}, not {algorithm}: its noise "
                         f"would be wrong; use a mechanism of {algorithm}: {fits}")

    # -- the privacy map ---------------------------------------------------------------
    def statement_values(self, problem: Mapping[str, float]) -> dict[str, float]:
        """The scale statement's parameters from the problem's values; a relaxed premise the problem does not give
        (``Statement.relaxes``) takes the paper's value (:meth:`bounds.core.Statement.paper_values`).

        Raises
        ------
        MissingParameterError
            A ``ValueError``: the ``inputs`` map reads a problem value that is not given; the message
            names the parameter, the statement and the assumption on it.

        Examples
        --------
        >>> from simulations.mechanisms import get_mechanism
        >>> get_mechanism("jcc.thm1").scale(kappa=1, lam=0.1, m=100, eps=0.5)
        Traceback (most recent call last):
        ...
        simulations.mechanisms.MissingParameterError: mechanism 'jcc.thm1' (statement jcc.thm1.C_t, Theorem 1): \
parameter 'M' is missing; assumption: 0 < M (given: eps, kappa, lam, m)
        """
        if self.inputs is not None:
            try:
                out = dict(self.inputs(problem))
            except KeyError as err:
                raise MissingParameterError(self, str(err.args[0]) if err.args else "?", problem) from None
        else:
            keep = set(self.statement.params) | ({"eps"} if self.per_eps else set())
            out = {k: v for k, v in problem.items() if k in keep}
        # a relaxed premise (Statement.relaxes: feature norm, tolerance, ...) the problem does not give is the paper's
        return self.statement.paper_values(out) if hasattr(self.statement, "paper_values") else out

    def scale(self, which: str = "derived", **problem: float) -> float:
        """The Laplace scale at the problem's values (mapped by ``inputs``; see :func:`laplace_scale`)."""
        return laplace_scale(self, which, **self.statement_values(problem))

    def scales(self, **problem: float) -> dict[str, float]:
        """Both calibrations at the problem's values: ``{"stated": ..., "derived": ...}``."""
        return {which: self.scale(which, **problem) for which in ("stated", "derived")}

    def audit_args(self, **problem: float) -> dict[str, Any]:
        """What an audit of this mechanism's release needs from it, at the problem's values.

        ``key`` (the calibrating statement, the audit row's key), ``mechanism`` (its name), ``scales``
        (both calibrations) and ``sign`` (whether the output is sgn(f + b)): the keyword arguments of
        :func:`verify.audit.scalar_noise_audits` that come from the mechanism, so an audit takes the
        object rather than a name and a key typed apart.

        Examples
        --------
        >>> from simulations.trials.jia import S5_2
        >>> a = S5_2.audit_args(kappa=1.0, lam=0.1, m=100, eps=0.5)
        >>> a["key"], a["mechanism"], a["sign"], a["scales"]["derived"] / a["scales"]["stated"]
        ('jia.s5_2.scale', 'jia.s5_2', True, 2.0)
        """
        return {"key": self.statement.key, "mechanism": self.name, "scales": self.scales(**problem),
                "sign": self.output == "sign"}

    def noise(self, scale: float, size: int | tuple[int, ...] | None = None,
              rng: np.random.Generator | np.random.RandomState | None = None) -> float | np.ndarray:
        """Draw the mechanism's noise at ``scale`` with its sampler.

        Raises
        ------
        ValueError
            For a scale that is not positive and finite.
        """
        if not _positive_finite(scale):
            raise ValueError(f"mechanism {self.name!r} ({self.statement.key}): parameter 'scale' = {scale!r} must "
                             "be positive and finite; assumption: the noise has a proper Laplace law")
        return self.sampler(np.random.default_rng() if rng is None else rng, float(scale), size)


class MissingParameterError(ValueError):
    """A problem value a mechanism's calibration needs is not given (``err.parameter`` names it)."""

    def __init__(self, mechanism: Mechanism, parameter: str, given: Mapping[str, Any] = {}) -> None:  # noqa: B006
        st = mechanism.statement
        self.parameter = parameter
        if parameter in st.ns:
            assumption = st.ns[parameter].domain_text()
        else:
            assumption = f"the value {parameter!r} that the mechanism's inputs map reads"
        got = ", ".join(sorted(map(str, given))) or "nothing"
        super().__init__(f"mechanism {mechanism.name!r} (statement {st.key}, {st.label}): parameter {parameter!r} is "
                         f"missing; assumption: {assumption} (given: {got})")


def _rebuild(name: str, key: str, *rest: Any) -> Mechanism:
    *head, claims = rest
    return Mechanism(name, bounds.get(key), *head, claims=tuple(bounds.get(k) for k in claims))


def mechanisms() -> dict[str, Mechanism]:
    """Every mechanism declared by a paper's trial module (``MECHANISMS``), by name, in paper order.

    See :func:`simulations.discovery.mechanisms`.
    """
    return discovery.mechanisms()


def get_mechanism(name: str | Mechanism) -> Mechanism:
    """The declared mechanism ``name`` (a :class:`Mechanism` is returned as is).

    Raises
    ------
    ValueError
        Naming the mechanism and the declared ones.
    """
    if isinstance(name, Mechanism):
        return name
    known = mechanisms()
    if not isinstance(name, str) or name not in known:
        raise ValueError(f"unknown mechanism {name!r}; declared: {', '.join(known) or 'none'}")
    return known[name]


def laplace_scale(mechanism: str | Mechanism, which: str = "derived", **values: float) -> float:
    """Laplace scale of a mechanism's noise at the given parameters.

    Parameters
    ----------
    mechanism : Mechanism or str
        A :class:`Mechanism` (or the name of a declared one).
    which : {"derived", "stated"}
        The toolkit's calibration (default: the registry's numeric form, ``bounds.value(...,
        which=None)``, which is the stated one where the statement holds and the derived one for an
        erratum) or the paper's as printed.
    **values
        Parameters of the scale statement (κ, λ, m, ε, ...).  For a mechanism with
        ``per_eps``, pass ``eps`` as well; it divides the statement's value.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an unknown mechanism or values outside the statement's assumptions.
    """
    mech = get_mechanism(mechanism)
    st, per_eps = mech.statement, mech.per_eps
    if which not in ("derived", "stated"):
        raise ValueError(f"mechanism {mech.name!r} ({st.key}): parameter 'which' = {which!r} is not 'derived' or "
                         "'stated'")
    vals = dict(values)
    if per_eps:
        eps = vals.pop("eps", None)
        if not _positive_finite(eps):
            raise ValueError(f"parameter 'eps' = {eps!r} must be given, positive and finite for mechanism "
                             f"{mech.name} ({st.key}); assumption: ε divides the sensitivity")
    form = "stated" if which == "stated" else None
    if per_eps:
        return bounds.value(st, vals, which=form) / float(eps)
    return bounds.value(st, vals, which=form)


#: the most numbers one :func:`release` call returns (n × p; 10⁸ float64 = 800 MB)
MAX_RELEASED = 10**8


def release(
    values: np.ndarray,
    scale: float,
    n: int = 1,
    rng: np.random.Generator | None = None,
    clip: float | None = None,
) -> np.ndarray:
    """Release ``n`` noisy copies of a function given by its values on evaluation points.

    One scalar b ~ Laplace(0, scale) per release is added to every value (the
    papers add a single real number to the function); ``clip`` applies the
    projection π onto [−clip, clip] *before* the noise (a clipped release).

    Parameters
    ----------
    values : array, shape (p,)
        f(x) on p evaluation points (finite).
    scale : float
        Laplace scale (> 0, finite).
    n : int
        Number of independent releases (≥ 1; vectorised).
    rng : numpy Generator
        Source of randomness (from a SeedSequence).
    clip : float, optional
        M of the clipping π (> 0, finite).

    Returns
    -------
    array, shape (n, p)

    Raises
    ------
    ValueError
        Naming the parameter and the assumption it violates.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.mechanisms import release
    >>> release(np.zeros(2), float("inf"))
    Traceback (most recent call last):
    ...
    ValueError: release: parameter 'scale' = inf must be positive and finite; assumption: b ~ Laplace(0, scale) \
has a proper law
    """
    if not _positive_finite(scale):
        raise ValueError(f"release: parameter 'scale' = {scale!r} must be positive and finite; assumption: "
                         "b ~ Laplace(0, scale) has a proper law")
    if isinstance(n, bool) or not isinstance(n, Integral) or n < 1:
        raise ValueError(f"release: parameter 'n' = {n!r} must be an int ≥ 1 (the number of releases)")
    if rng is not None and not isinstance(rng, np.random.Generator):
        raise ValueError(f"release: parameter 'rng' = {rng!r} must be a numpy Generator (from a SeedSequence) or None")
    if clip is not None and not _positive_finite(clip):
        raise ValueError(f"release: parameter 'clip' = {clip!r} must be positive and finite or None; assumption: "
                         "π projects onto [−clip, clip] with the bound M > 0 of |y|")
    try:
        v = np.asarray(values, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"release: parameter 'values' must be real numbers ({err})") from None
    if v.ndim != 1 or not np.all(np.isfinite(v)):
        raise ValueError(f"release: parameter 'values' must be a finite 1-d array f(x) on evaluation points "
                         f"(got shape {v.shape}{'' if np.all(np.isfinite(v)) else ', not finite'})")
    if n * max(v.size, 1) > MAX_RELEASED:
        raise ValueError(f"release: parameter 'n' = {n} releases of {v.size} values exceed {MAX_RELEASED:.0e} "
                         "numbers (the output is held in memory): release in batches")
    rng = np.random.default_rng() if rng is None else rng
    if clip is not None:
        v = np.clip(v, -clip, clip)
    b = rng.laplace(0.0, scale, size=(n, 1))
    return v[None, :] + b


@dataclass(frozen=True)
class Calibration:
    """Both calibrations of one mechanism at one parameter point."""

    mechanism: str
    stated: float
    derived: float

    @property
    def ratio(self) -> float:
        """derived / stated: > 1 means the paper's noise is too small by this factor."""
        return self.derived / self.stated


def calibrations(mechanism: str | Mechanism, **values: float) -> Calibration:
    """Stated and derived scales side by side (``values``: the statement's parameters).

    Examples
    --------
    >>> from simulations.mechanisms import calibrations
    >>> c = calibrations("no.such", kappa=1)
    Traceback (most recent call last):
    ...
    ValueError: unknown mechanism 'no.such'; declared: ...
    """
    mech = get_mechanism(mechanism)
    return Calibration(
        mech.name,
        laplace_scale(mech, "stated", **values),
        laplace_scale(mech, "derived", **values),
    )


@dataclass(frozen=True)
class UtilitySetup:
    """One privacy–utility experiment a paper declares: a bundled data set, a fit and a mechanism.

    Parameters
    ----------
    name : str
        The setup's name (the configuration's ``algorithm``).
    dataset : str
        A bundled data set (:func:`simulations.data.load_real_dataset`).
    fit : {"kls", "svm"}
        Kernel least squares or the offset-free SVM.
    mechanism : Mechanism
        The :class:`~simulations.mechanisms.Mechanism` whose noise is added; it must calibrate ``fit``.
    loss : {"square", "zero_one"}
        Held-out risk: squared error, or the misclassification rate of sgn(f + b).
    label : str
        Axis label of the risk.
    """

    name: str
    dataset: str
    fit: str
    mechanism: Mechanism
    loss: str
    label: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"UtilitySetup: parameter 'name' = {self.name!r} must be a non-empty string")
        if not isinstance(self.dataset, str) or not self.dataset:
            raise ValueError(f"UtilitySetup {self.name!r}: parameter 'dataset' = {self.dataset!r} must name a "
                             "bundled data set")
        if self.fit not in FITS:
            raise ValueError(f"UtilitySetup {self.name!r}: parameter 'fit' = {self.fit!r} is not one of {FITS}")
        if self.loss not in LOSSES:
            raise ValueError(f"UtilitySetup {self.name!r}: parameter 'loss' = {self.loss!r} is not one of {LOSSES}")
        if not isinstance(self.mechanism, Mechanism):
            raise ValueError(f"UtilitySetup {self.name!r}: parameter 'mechanism' = {self.mechanism!r} must be a "
                             "Mechanism object (imported from its trial module), not a name")
        self.mechanism.require(self.fit, f"UtilitySetup {self.name!r}")


#: the fits and held-out losses a setup may declare
FITS: tuple[str, ...] = ("kls", "svm")
LOSSES: tuple[str, ...] = ("square", "zero_one")
