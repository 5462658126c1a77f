"""The rules a private estimator obeys before it releases anything, shared by every estimator.

An estimator that adds a mechanism's noise to what it fits relies on three things it must check
rather than assume; each rule here is one function, applied the same way to every paper and
every mechanism (no rule names a statement):

:func:`established_form`
    the calibrating statement's one verdict establishes the form used (the rule ``python -m bounds
    calibrate`` applies: :func:`bounds.pick.basis`); otherwise the fit is refused with
    :class:`bounds.pick.UnverifiedError`, naming a private alternative the toolkit provides, unless
    the user passes ``allow_unverified=True`` (then the basis carries a warning to emit);
:func:`check_premises`
    the calibrating statement applies to the estimator, decided by the premises its proof assumes
    (``Statement.premises``: the loss, the algorithm, the labels, the Lipschitz constant of the loss,
    the RKHS-norm bound of the fit) against those the estimator establishes, never by a name;
:func:`check_sampler_law`
    the noise sampler draws from the law it declares (a Kolmogorov–Smirnov test on a fixed number
    of deterministic draws at a stated level).

And two guards of the exact kernel estimators: :func:`check_memory` (refuse, before allocating, a
problem whose Gram matrices do not fit in the available memory) and :func:`one_blas_thread` (the
linear algebra on one BLAS thread unless the user chose a count).

Examples
--------
>>> import numpy as np
>>> from simulations.privacy_rules import check_sampler_law
>>> p = check_sampler_law(lambda rng, size: rng.laplace(0.0, 2.0, size), 2.0, who="demo")
>>> p > 1e-6
True
>>> check_sampler_law(lambda rng, size: np.zeros(size), 2.0, who="demo")   # draws no noise at all
Traceback (most recent call last):
...
ValueError: demo: the noise sampler does not draw from the law it declares, Laplace(0, 2): ...
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from bounds.core import Statement
from bounds.pick import Basis, UnverifiedError, basis, single_blas_thread

__all__ = [
    "ALTERNATIVES",
    "LAW_LEVEL",
    "LAW_SAMPLES",
    "NUMERIC_PREMISES",
    "check_memory",
    "check_premises",
    "check_sampler_law",
    "established_form",
    "gram_bytes",
    "one_blas_thread",
]

#: the private alternatives the toolkit provides, by task (named in refusals; not imported here)
ALTERNATIVES: dict[str, str] = {
    "classifier": "simulations.random_features.DPRandomFeatureClassifier",
    "regressor": "simulations.random_features.DPRandomFeatureRegressor",
}

#: premises compared as numbers: the estimator's constant must not exceed the one the statement assumes
#: (a calibration for a larger constant is conservative); every other premise must be equal
NUMERIC_PREMISES: dict[str, str] = {
    "lipschitz": "the Lipschitz constant of the loss on the range of the fits",
    "rkhs_norm": "the bound on the RKHS norm ‖f_z‖_K of the fit",
}

#: draws of the sampler-law test and its level: a correct sampler is refused with probability LAW_LEVEL
LAW_SAMPLES = 10_000
LAW_LEVEL = 1e-6
#: the entropy of the test's SeedSequence (fixed: the test, hence the decision, is deterministic)
LAW_ENTROPY = 20_261_128


def _alternative(task: str) -> str:
    alt = ALTERNATIVES.get(task, " / ".join(ALTERNATIVES.values()))
    return (f"a private alternative the toolkit provides: {alt} (random features with noise on the finite "
            "weight vector, not one scalar on a function)")


def established_form(statement: Statement, calibration: str, *, who: str, task: str,
                     allow_unverified: bool = False, evidence: Any = None) -> Basis:
    """The basis of ``calibration`` of ``statement``; refused when no form of it is established.

    The same rule as ``python -m bounds calibrate`` (:func:`bounds.pick.basis`): the statement's one
    verdict (its symbolic checks and, by default, the empirical and audit evidence of the generated
    report) decides whether the form is established.  ``calibration="derived"`` asks for the form
    the registry uses for numbers (a wrong printed form is replaced by its established correction),
    ``"stated"`` for the printed one.

    Parameters
    ----------
    statement : Statement
        The calibrating statement.
    calibration : {"derived", "stated"}
    who : str
        The user (an estimator class), for the message.
    task : {"classifier", "regressor"}
        Which private alternative the refusal names (:data:`ALTERNATIVES`).
    allow_unverified : bool
        Compute anyway: the returned basis then has a non-empty ``warning`` to emit.
    evidence : optional
        Evidence rows for the verdict (default: the generated report's, as ``bounds calibrate``).

    Returns
    -------
    bounds.pick.Basis

    Raises
    ------
    bounds.pick.UnverifiedError
        A ``ValueError``: no form is established and ``allow_unverified`` is false; the message names
        the statement, why, and the private alternative.

    Examples
    --------
    >>> from bounds.papers.jia import S5_2_SCALE
    >>> from simulations.privacy_rules import established_form
    >>> established_form(S5_2_SCALE, "derived", who="DPKernelSVM", task="classifier")   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bounds.pick.UnverifiedError: DPKernelSVM: statement jia.s5_2.scale (Section 5.2): no form of it is \
established (...); a private alternative the toolkit provides: simulations.random_features.DPRandomFeatureClassifier ...
    >>> b = established_form(S5_2_SCALE, "derived", who="DPKernelSVM", task="classifier", allow_unverified=True)
    >>> b.established, b.warning.startswith("unverified: no form of jia.s5_2.scale is established")
    (False, True)
    """
    if calibration not in ("derived", "stated"):
        raise ValueError(f"{who}: parameter 'calibration' = {calibration!r} must be 'derived' or 'stated' "
                         f"(statement {statement.key})")
    which = "stated" if calibration == "stated" else None
    try:
        return basis(statement, which, bool(allow_unverified), evidence)
    except UnverifiedError as err:
        raise UnverifiedError(f"{who}: {err}; {_alternative(task)}") from None


class _Undefined(ValueError):
    """A numeric premise uses a parameter the problem does not give (its name is the argument)."""


def _premise_value(statement: Statement, name: str, text: str, values: Mapping[str, float]) -> float:
    """The numeric premise ``text`` (an expression in the statement's parameters) at ``values``."""
    import sympy as sp

    ns = statement.ns
    names = {k: ns[k].symbol for k in ns}
    where = f"premise {name!r} = {text!r} of statement {statement.key} ({statement.label})"
    try:
        expr = sp.sympify(text, locals=names)
    except (sp.SympifyError, TypeError, SyntaxError) as err:
        raise ValueError(f"{where} is not an expression in its parameters ({err})") from None
    subs = {}
    for s in expr.free_symbols:
        p = ns.by_symbol(s) if s in {ns[k].symbol for k in ns} else None
        if p is None or p.name not in values:
            raise _Undefined(str(s))
        subs[s] = float(values[p.name])
    try:
        v = float(expr.subs(subs))
    except (TypeError, ValueError) as err:
        raise ValueError(f"{where} is not a real number at the problem's values ({err})") from None
    if not math.isfinite(v):
        raise ValueError(f"{where} is {v} at the problem's values, not a finite number")
    return v


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def check_premises(statement: Statement, satisfied: Mapping[str, Any], values: Mapping[str, float], *,
                   who: str, mechanism: str = "", allow_unverified: bool = False) -> str:
    """Check that ``who`` satisfies the premises ``statement``'s proof assumes; return a warning or "".

    Each premise the statement declares (``Statement.premises``) must be established by the user
    (``satisfied``): the numeric ones (:data:`NUMERIC_PREMISES`) as numbers no larger than the
    statement's expression evaluated at ``values`` (the statement's parameters), the others as equal
    strings.  A premise the user does not establish, or does not meet, refuses the calibration,
    whatever ``allow_unverified`` says: the noise is then known not to be calibrated for this user.
    A statement declaring no premises cannot be checked: refused unless ``allow_unverified`` (then the
    returned warning says so).

    Parameters
    ----------
    statement : Statement
        The calibrating statement.
    satisfied : mapping
        What the user establishes: ``{"loss": "square", "lipschitz": 8.32, ...}``.
    values : mapping
        The statement's parameters at the problem (for the numeric premises).
    who, mechanism : str
        The user and the mechanism's name, for the messages.
    allow_unverified : bool
        Accept a statement that declares no premises (with the returned warning).

    Returns
    -------
    str
        "" when every premise holds; the warning to emit when none is declared and ``allow_unverified``.

    Raises
    ------
    ValueError
        Naming the user, the statement and each premise that fails (the statement's and the user's).

    Examples
    --------
    >>> from bounds.papers.jia import S5_1_SCALE, S5_2_SCALE
    >>> from simulations.privacy_rules import check_premises
    >>> kls = {"loss": "square", "algorithm": "regularised kernel ERM (exact minimiser, no offset)",
    ...        "labels": "|y| <= M", "lipschitz": 2 * (1 / 0.1 ** 0.5 + 1)}
    >>> vals = dict(M=1.0, kappa=1.0, lam=0.1, m=100, eps=0.5)
    >>> check_premises(S5_1_SCALE, kls, vals, who="DPKernelLeastSquares")
    ''
    >>> check_premises(S5_2_SCALE, kls, vals, who="DPKernelLeastSquares")   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: DPKernelLeastSquares does not satisfy the premises of statement jia.s5_2.scale (Section 5.2): \
loss: the statement assumes 'hinge', DPKernelLeastSquares has 'square'; ...
    """
    what = f"statement {statement.key} ({statement.label})" + (f" of mechanism {mechanism!r}" if mechanism else "")
    premises = dict(statement.premises)
    if not premises:
        msg = (f"{what} declares no premises (the loss, algorithm and Lipschitz constant its proof assumes), so "
               f"whether its calibration applies to {who} cannot be checked")
        if not allow_unverified:
            raise ValueError(f"{who}: {msg}; declare them (Statement.premises) or pass allow_unverified=True "
                             "(computes anyway, with a warning)")
        return f"{who}: unverified: {msg}"
    bad = []
    for name, required in premises.items():
        if name not in satisfied:
            bad.append(f"{name}: the statement assumes {required!r}, which {who} does not establish")
            continue
        own = satisfied[name]
        if name in NUMERIC_PREMISES:
            try:
                bound = _premise_value(statement, name, required, values)
            except _Undefined as err:
                bad.append(f"{name} ({NUMERIC_PREMISES[name]}): the statement assumes {required}, with {err}, "
                           f"which {who} does not define")
                continue
            if not float(own) <= bound * (1 + 1e-12):
                at = "" if _is_number(required) else f" = {bound:.6g} here"
                bad.append(f"{name} ({NUMERIC_PREMISES[name]}): the statement assumes {required}{at}, {who} has "
                           f"{float(own):.6g}")
        elif own != required:
            bad.append(f"{name}: the statement assumes {required!r}, {who} has {own!r}")
    if bad:
        raise ValueError(f"{who} does not satisfy the premises of {what}: {'; '.join(bad)}; its noise would not be "
                     f"calibrated for {who}: use a mechanism whose statement's premises it satisfies")
    return ""


def _law(law: str, scale: float) -> tuple[str, Callable[[np.ndarray], np.ndarray]]:
    from scipy import stats

    if law == "laplace":
        return f"Laplace(0, {scale:.6g})", stats.laplace(0.0, scale).cdf
    if law == "gaussian":
        return f"N(0, {scale:.6g}²)", stats.norm(0.0, scale).cdf
    raise ValueError(f"parameter 'law' = {law!r} must be 'laplace' or 'gaussian'")


#: p-values of the samplers that passed, by (key, scale, law, n, level): a pass is not recomputed in this process
_PASSED: dict[tuple[Any, ...], float] = {}


def check_sampler_law(draw: Callable[[np.random.Generator, int], Any], scale: float, *, who: str,
                      law: str = "laplace", n: int = LAW_SAMPLES, level: float = LAW_LEVEL,
                      key: Any = None) -> float:
    """Refuse a noise sampler whose draws do not follow the law it declares; return the test's p-value.

    Draws ``n`` samples (default :data:`LAW_SAMPLES` = 10,000) with ``draw(rng, n)`` from a fixed
    SeedSequence child (:data:`LAW_ENTROPY`: deterministic, so the decision is too) and runs a
    two-sided Kolmogorov–Smirnov test against the declared law (Laplace(0, scale) or N(0, scale²)),
    rejecting at p < ``level`` (default :data:`LAW_LEVEL` = 1e-6): a sampler that draws from the
    declared law is refused with probability 1e-6 (over the choice of the fixed seed), one that draws
    no noise, or noise at half the scale (a KS distance of 0.125 against a critical value of 0.027 at
    n = 10,000) is refused.  Measured with Laplace samplers at a wrong scale: 0.8× and 1.25× are
    refused (p ≈ 1e-17 and 3e-22), 0.9× and 1.1× pass (p ≈ 4e-5 and 1e-6): errors of about 10 % are
    beyond this test's power.  It checks the sampler's law, not the calibration (which
    :func:`established_form` checks).

    Parameters
    ----------
    draw : callable
        ``draw(rng, size)`` returns ``size`` draws of the sampler at ``scale`` from the Generator ``rng``.
    scale : float
        The declared scale (> 0).
    who : str
        The user, for the message.
    law : {"laplace", "gaussian"}
    n : int
    level : float
    key : hashable, optional
        What identifies the sampler (its function): a sampler that passed at this scale, law, n and level
        is not drawn from again in this process (the test is deterministic; a refusal is recomputed).

    Returns
    -------
    float
        The KS p-value (≥ ``level``).

    Raises
    ------
    ValueError
        Naming the user, the declared law, the KS statistic, its p-value and the level; also for draws
        that are not ``n`` finite real numbers.

    Examples
    --------
    >>> from simulations.privacy_rules import check_sampler_law
    >>> check_sampler_law(lambda rng, size: rng.laplace(0.0, 0.5, size), 1.0, who="demo")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: demo: the noise sampler does not draw from the law it declares, Laplace(0, 1): ... p = ...
    """
    memo = None
    if key is not None:
        memo = (key, float(scale), law, int(n), float(level))
        try:
            if memo in _PASSED:
                return _PASSED[memo]
        except TypeError:          # an unhashable sampler: tested every time
            memo = None
    name, cdf = _law(law, float(scale))
    rng = np.random.default_rng(np.random.SeedSequence(LAW_ENTROPY).spawn(1)[0])
    try:
        x = np.asarray(draw(rng, int(n)), dtype=np.float64).reshape(-1)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{who}: the noise sampler's draws are not real numbers ({err})") from None
    if x.shape != (int(n),) or not np.all(np.isfinite(x)):
        raise ValueError(f"{who}: the noise sampler returned {x.size} draws ({'finite' if np.all(np.isfinite(x)) else 'not all finite'}) "
                         f"when asked for {int(n)}; assumption: it draws from {name}")
    from scipy import stats

    res = stats.kstest(x, cdf, method="asymp")
    p = float(res.pvalue)
    if not p >= level:
        raise ValueError(f"{who}: the noise sampler does not draw from the law it declares, {name}: a "
                         f"Kolmogorov–Smirnov test of {int(n)} draws gives D = {float(res.statistic):.4g}, p = {p:.3g} "
                         f"< {level:g} (a correct sampler is refused with probability {level:g}); its release would "
                         "not have the privacy the scale is calibrated for")
    if memo is not None:
        if len(_PASSED) >= 1024:
            _PASSED.clear()
        _PASSED[memo] = p
    return p


def gram_bytes(m: int, n_grams: int) -> int:
    """Bytes of ``n_grams`` float64 Gram matrices of side ``m``.

    Examples
    --------
    >>> from simulations.privacy_rules import gram_bytes
    >>> gram_bytes(20_000, 2)
    6400000000
    """
    return int(n_grams) * int(m) * int(m) * 8


def _available() -> int | None:
    try:
        import psutil
    except ImportError:       # pragma: no cover - psutil comes with dask
        return None
    return int(psutil.virtual_memory().available)


def check_memory(m: int, n_grams: int, *, who: str, task: str, available: int | None = None) -> None:
    """Refuse, before allocating, a fit whose ``n_grams`` Gram-sized arrays exceed the available memory.

    ``available`` defaults to ``psutil.virtual_memory().available`` (no check when psutil is missing).

    Raises
    ------
    ValueError
        Naming ``X``, the bytes needed and available, and the random-feature estimators, which need
        memory linear in m.

    Examples
    --------
    >>> from simulations.privacy_rules import check_memory
    >>> check_memory(1000, 2, who="demo", task="regressor", available=10**9)
    >>> check_memory(20_000, 2, who="demo", task="regressor", available=4 * 10**9)   # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: demo: parameter 'X' has 20000 samples: the exact fit holds 2 Gram-sized arrays of 20000 × 20000 float64, 6.4 GB, more than the 4 GB of memory available; ...
    """
    avail = _available() if available is None else int(available)
    need = gram_bytes(m, n_grams)
    if avail is None or need <= avail:
        return
    raise ValueError(f"{who}: parameter 'X' has {m} samples: the exact fit holds {n_grams} Gram-sized arrays of "
                     f"{m} × {m} float64, {need / 1e9:.3g} GB, more than the {avail / 1e9:.3g} GB of memory "
                     f"available; use fewer samples, or {ALTERNATIVES.get(task, ' / '.join(ALTERNATIVES.values()))} "
                     "(random features: memory linear in the number of samples)")


def one_blas_thread(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` run with one BLAS/OpenMP thread, unless the user chose a count (``OMP_NUM_THREADS``, ...).

    The rule of :func:`bounds.pick.single_blas_thread` (shared, not copied: this returns its wrapper):
    a thread count the user set in the environment is left as it is; otherwise threadpoolctl limits
    every pool to one thread for the call (nested calls limit once).  Several BLAS threads on a large
    Cholesky factorisation multiply its workspace and, with every core busy, crashed OpenBLAS at
    m = 20,000.

    Examples
    --------
    >>> import numpy as np
    >>> from simulations.privacy_rules import one_blas_thread
    >>> one_blas_thread(np.linalg.cholesky)(np.eye(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return single_blas_thread(fn)
