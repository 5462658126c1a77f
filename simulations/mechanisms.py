"""Noise mechanisms, calibrated from :mod:`bounds`.

An output-perturbation mechanism adds one real Laplace variable ``b`` to a
fitted function.  Its scale comes from the symbolic layer, either as the
paper *states* it or as the toolkit *derives* it (they differ where the paper
has an erratum), so a simulation can run both calibrations.

A paper declares its mechanisms in its trial module
(``simulations/trials/<paper id>.py``) as ``MECHANISMS = (Mechanism(...), ...)``;
:func:`mechanisms` discovers them for every paper :mod:`bounds` knows.  No
mechanism is listed here.

Examples
--------
>>> import numpy as np
>>> from simulations.mechanisms import mechanisms, laplace_scale, release
>>> name, mech = next(iter(mechanisms().items()))
>>> mech.name == name and mech.scale_key.startswith(name.split(".")[0] + ".")
True
>>> out = release(np.zeros(3), 0.5, n=4, rng=np.random.default_rng(0))
>>> out.shape
(4, 3)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

import bounds

from . import discovery


@dataclass(frozen=True)
class Mechanism:
    """An output-perturbation mechanism of a paper: its name and the statement that calibrates it.

    Parameters
    ----------
    name : str
        ``<paper id>.<label>`` (the mechanism of that result).
    scale_key : str
        The :mod:`bounds` statement giving the Laplace scale (or, with ``per_eps``, the
        sensitivity that ε divides).
    per_eps : bool
        Whether the scale is the statement's value divided by ε.
    clip : bool
        Whether the function is clipped to [−M, M] before the noise.
    inputs : callable, optional
        Maps the problem's values (κ, λ, m, ε, M, ...) to the statement's parameters (for
        example R = M/√λ); by default the values the statement uses are passed through.
    release : str
        What is released (one line).
    """

    name: str
    scale_key: str
    per_eps: bool = False
    clip: bool = False
    inputs: Callable[[Mapping[str, float]], dict[str, float]] | None = None
    release: str = ""

    def statement_values(self, problem: Mapping[str, float]) -> dict[str, float]:
        """The scale statement's parameters from the problem's values."""
        if self.inputs is not None:
            return dict(self.inputs(problem))
        keep = set(bounds.get(self.scale_key).params) | ({"eps"} if self.per_eps else set())
        return {k: v for k, v in problem.items() if k in keep}

    def scale(self, which: str = "derived", **problem: float) -> float:
        """The Laplace scale at the problem's values (see :func:`laplace_scale`)."""
        return laplace_scale(self.name, which, **self.statement_values(problem))


def mechanisms() -> dict[str, Mechanism]:
    """Every mechanism declared by a paper's trial module (``MECHANISMS``), by name, in paper order.

    See :func:`simulations.discovery.mechanisms`.
    """
    return discovery.mechanisms()


def get_mechanism(name: str) -> Mechanism:
    """The declared mechanism ``name``.

    Raises
    ------
    ValueError
        Naming the mechanism and the declared ones.
    """
    known = mechanisms()
    if name not in known:
        raise ValueError(f"unknown mechanism {name!r}; declared: {', '.join(known) or 'none'}")
    return known[name]


def laplace_scale(mechanism: str, which: str = "derived", **values: float) -> float:
    """Laplace scale of a mechanism's noise at the given parameters.

    Parameters
    ----------
    mechanism : str
        The name of a declared :class:`Mechanism`.
    which : {"derived", "stated"}
        The toolkit's calibration (default; it equals the stated one when the
        paper is right) or the paper's as printed.
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
    key, per_eps = mech.scale_key, mech.per_eps
    vals = dict(values)
    if per_eps:
        eps = vals.pop("eps", None)
        if eps is None or not eps > 0:
            raise ValueError(f"parameter 'eps' must be given and positive for mechanism {mechanism} ({key})")
        return bounds.value(key, vals, which=which) / float(eps)
    return bounds.value(key, vals, which=which)


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
        f(x) on p evaluation points.
    scale : float
        Laplace scale (> 0).
    n : int
        Number of independent releases (vectorised).
    rng : numpy Generator
        Source of randomness (from a SeedSequence).
    clip : float, optional
        M of the clipping π.

    Returns
    -------
    array, shape (n, p)
    """
    if not scale > 0:
        raise ValueError(f"parameter 'scale' = {scale!r} must be positive")
    rng = np.random.default_rng() if rng is None else rng
    v = np.asarray(values, dtype=float)
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


def calibrations(mechanism: str, **values: float) -> Calibration:
    """Stated and derived scales side by side.

    Examples
    --------
    >>> from simulations.mechanisms import calibrations
    >>> c = calibrations("no.such", kappa=1)
    Traceback (most recent call last):
    ...
    ValueError: unknown mechanism 'no.such'; declared: ...
    """
    return Calibration(
        mechanism,
        laplace_scale(mechanism, "stated", **values),
        laplace_scale(mechanism, "derived", **values),
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
    mechanism : str
        The declared :class:`~simulations.mechanisms.Mechanism` whose noise is added.
    loss : {"square", "zero_one"}
        Held-out risk: squared error, or the misclassification rate of sgn(f + b).
    label : str
        Axis label of the risk.
    """

    name: str
    dataset: str
    fit: str
    mechanism: str
    loss: str
    label: str = ""

    def __post_init__(self) -> None:
        if self.fit not in FITS:
            raise ValueError(f"UtilitySetup {self.name!r}: parameter 'fit' = {self.fit!r} is not one of {FITS}")
        if self.loss not in LOSSES:
            raise ValueError(f"UtilitySetup {self.name!r}: parameter 'loss' = {self.loss!r} is not one of {LOSSES}")


#: the fits and held-out losses a setup may declare
FITS: tuple[str, ...] = ("kls", "svm")
LOSSES: tuple[str, ...] = ("square", "zero_one")
