"""Noise mechanisms, calibrated from :mod:`bounds`.

Every output-perturbation mechanism of the seed papers adds one real Laplace
variable ``b`` to a fitted function.  Its scale comes from the symbolic layer,
either as the paper *states* it or as the toolkit *derives* it (they differ
where the paper has an erratum), so a simulation can run both calibrations.

=================  =====================  =========================================
mechanism          bounds key (scale)     release
=================  =====================  =========================================
``jia.prop1``      ``jia.prop1.scale``    f_z + b (000 Proposition 1, general loss)
``jia.s5_1``       ``jia.s5_1.scale``     f_z^ls + b (000 §5.1, least squares)
``jia.s5_2``       ``jia.s5_2.scale``     sgn(f_z^h + b) (000 §5.2, SVM)
``jamp.prop1``     ``jamp.prop1.scale``   π(f_z,λ) + b (001 Proposition 1, clipped)
``jcc.thm1``       ``jcc.thm1.C_t``/ε     f_t + b_t (003 Theorem 1, online)
=================  =====================  =========================================

Examples
--------
>>> import numpy as np
>>> from simulations.mechanisms import laplace_scale, release
>>> s_stated = laplace_scale("jia.s5_2", "stated", kappa=1, lam=0.1, m=100, eps=0.5)
>>> s_derived = laplace_scale("jia.s5_2", "derived", kappa=1, lam=0.1, m=100, eps=0.5)
>>> round(s_derived / s_stated, 6)
2.0
>>> out = release(np.zeros(3), s_derived, n=4, rng=np.random.default_rng(0))
>>> out.shape
(4, 3)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import bounds

#: mechanism name -> (bounds key of the noise scale, whether the key gives C_t and must be divided by ε)
MECHANISMS: dict[str, tuple[str, bool]] = {
    "jia.prop1": ("jia.prop1.scale", False),
    "jia.s5_1": ("jia.s5_1.scale", False),
    "jia.s5_2": ("jia.s5_2.scale", False),
    "jamp.prop1": ("jamp.prop1.scale", False),
    "jcc.thm1": ("jcc.thm1.C_t", True),
}


def laplace_scale(mechanism: str, which: str = "derived", **values: float) -> float:
    """Laplace scale of a mechanism's noise at the given parameters.

    Parameters
    ----------
    mechanism : str
        A key of :data:`MECHANISMS`.
    which : {"derived", "stated"}
        The toolkit's calibration (default; it equals the stated one when the
        paper is right) or the paper's as printed.
    **values
        Parameters of the scale statement (κ, λ, m, ε, ...).  For ``jcc.thm1``
        pass ``eps`` as well; it divides C_t.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For an unknown mechanism or values outside the statement's assumptions.
    """
    if mechanism not in MECHANISMS:
        raise ValueError(f"unknown mechanism {mechanism!r}; known: {', '.join(MECHANISMS)}")
    key, per_eps = MECHANISMS[mechanism]
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
    projection π onto [−clip, clip] *before* the noise (001, equation (2)).

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
    >>> round(calibrations("jia.prop1", kappa=1, C_L=1, lam=0.1, gamma=2, m=100, eps=0.5).ratio, 6)
    2.0
    """
    return Calibration(
        mechanism,
        laplace_scale(mechanism, "stated", **values),
        laplace_scale(mechanism, "derived", **values),
    )
