"""Statistics of the empirical checks: intervals, slope fits, verdicts.

Every empirical check ends in one of three verdicts about an *upper* bound B
on a quantity θ (a sensitivity, an expected risk, a violation probability, a
rate exponent):

* ``holds``: the upper confidence limit of θ is ≤ B;
* ``violated``: the lower confidence limit of θ is > B — at the stated
  confidence the bound is false for the algorithm as run;
* ``inconclusive``: the interval straddles B.

Intervals are two-sided at level ``confidence`` (default 0.95), so each
one-sided verdict has error probability ≤ (1 − confidence)/2.

Examples
--------
>>> from verify.stats import mean_ci, clopper_pearson, verdict
>>> m, lo, hi = mean_ci([1.0, 2.0, 3.0, 4.0])
>>> round(m, 3), round(lo, 3), round(hi, 3)
(2.5, 0.446, 4.554)
>>> [round(v, 4) for v in clopper_pearson(0, 100)]
[0.0, 0.0362]
>>> verdict(lo=0.1, hi=0.2, bound=0.5), verdict(lo=0.6, hi=0.7, bound=0.5), verdict(lo=0.4, hi=0.6, bound=0.5)
('holds', 'violated', 'inconclusive')
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

VERDICTS = ("holds", "violated", "inconclusive")


def mean_ci(x: ArrayLike, confidence: float = 0.95) -> tuple[float, float, float]:
    """Sample mean and Student-t confidence interval.

    Parameters
    ----------
    x : array
        i.i.d. observations (at least 2; NaNs are an error).
    confidence : float
        Two-sided level in (0, 1).

    Returns
    -------
    (mean, lo, hi)
    """
    a = np.asarray(x, dtype=float).ravel()
    if a.size < 2:
        raise ValueError(f"parameter 'x' needs at least 2 observations, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise ValueError("parameter 'x' contains non-finite values")
    _check_level(confidence)
    m = float(a.mean())
    se = float(a.std(ddof=1) / math.sqrt(a.size))
    q = float(stats.t.ppf(0.5 + confidence / 2, a.size - 1))
    return m, m - q * se, m + q * se


def positive_ratio(num: float, den: float) -> float | None:
    """``num / den`` where both are finite and positive, else ``None`` (a ratio of a zero, signed or
    infinite quantity means nothing; the values themselves are reported instead).

    Examples
    --------
    >>> positive_ratio(3.0, 2.0), positive_ratio(0.0, 2.0), positive_ratio(float("inf"), 2.0)
    (1.5, None, None)
    """
    if not (math.isfinite(num) and math.isfinite(den)) or num <= 0 or den <= 0:
        return None
    return num / den


def clopper_pearson(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial interval for a proportion (Clopper & Pearson, 1934).

    Parameters
    ----------
    k, n : int
        Successes and trials, 0 ≤ k ≤ n, n ≥ 1.
    confidence : float
        Two-sided level.
    """
    if not (0 <= k <= n and n >= 1):
        raise ValueError(f"parameters 'k' = {k!r}, 'n' = {n!r} need 0 ≤ k ≤ n and n ≥ 1")
    _check_level(confidence)
    a = 1 - confidence
    lo = 0.0 if k == 0 else float(stats.beta.ppf(a / 2, k, n - k + 1))
    hi = 1.0 if k == n else float(stats.beta.ppf(1 - a / 2, k + 1, n - k))
    return lo, hi


@dataclass(frozen=True)
class SlopeFit:
    """Weighted least-squares fit of log y = a + s log m."""

    slope: float
    lo: float
    hi: float
    intercept: float
    confidence: float
    n_points: int


def slope_fit(m: ArrayLike, y: ArrayLike, se: ArrayLike | None = None, confidence: float = 0.95) -> SlopeFit:
    """Slope of log y against log m, with a confidence interval.

    Parameters
    ----------
    m : array
        Sample sizes (> 0), at least 3 distinct.
    y : array
        Mean of the measured quantity at each m (> 0).
    se : array, optional
        Standard errors of ``y``.  Weights are 1/Var(log y) ≈ (y/se)² (delta
        method); the interval is from the weighted residual scatter with a
        t quantile on n − 2 degrees of freedom, and is never narrower than the
        one implied by the standard errors alone.
    confidence : float
        Two-sided level.

    Examples
    --------
    >>> import numpy as np
    >>> m = np.array([100, 200, 400, 800, 1600, 3200])
    >>> f = slope_fit(m, 3 * m ** -0.5)
    >>> round(f.slope, 6), round(f.lo, 6), round(f.hi, 6)
    (-0.5, -0.5, -0.5)
    """
    lm = np.log(np.asarray(m, dtype=float))
    yy = np.asarray(y, dtype=float)
    if lm.size != yy.size or np.unique(lm).size < 3:
        raise ValueError("parameter 'm' needs at least 3 distinct sample sizes matching 'y'")
    if np.any(yy <= 0) or not np.all(np.isfinite(yy)):
        raise ValueError("parameter 'y' must be positive and finite for a log-log fit")
    _check_level(confidence)
    ly = np.log(yy)
    if se is None:
        w = np.ones_like(ly)
        known = False
    else:
        s = np.asarray(se, dtype=float) / yy
        if np.any(s <= 0):
            w = np.ones_like(ly)
            known = False
        else:
            w = 1 / s**2
            known = True
    X = np.column_stack([np.ones_like(lm), lm])
    W = np.diag(w)
    XtWX = X.T @ W @ X
    coef = np.linalg.solve(XtWX, X.T @ W @ ly)
    resid = ly - X @ coef
    dof = lm.size - 2
    cov_unit = np.linalg.inv(XtWX)
    sigma2 = float(resid @ W @ resid) / dof if dof > 0 else 0.0
    var = cov_unit[1, 1] * (max(sigma2, 1.0) if known else sigma2)
    q = float(stats.t.ppf(0.5 + confidence / 2, max(dof, 1)))
    half = q * math.sqrt(max(var, 0.0))
    return SlopeFit(float(coef[1]), float(coef[1] - half), float(coef[1] + half), float(coef[0]),
                    confidence, int(lm.size))


def verdict(lo: float, hi: float, bound: float) -> str:
    """``holds`` / ``violated`` / ``inconclusive`` for an upper bound (see module docstring)."""
    if not math.isfinite(bound):
        return "holds" if bound == math.inf else "violated"
    if lo > bound:
        return "violated"
    if hi <= bound:
        return "holds"
    return "inconclusive"


def rate_verdict(fit: SlopeFit, claimed: float) -> str:
    """Verdict on a claimed decay exponent (quantity ≲ m^claimed, claimed < 0).

    An upper-bound rate is contradicted only when the quantity decays more
    slowly than claimed: ``violated`` if the slope's lower limit exceeds the
    claim, ``holds`` if its upper limit is at or below it, else ``inconclusive``.
    """
    return verdict(fit.lo, fit.hi, claimed)


#: relative tolerance within which an exact search "attains" its bound
ATTAIN_RTOL = 1e-9


def bound_slope(m: ArrayLike, bound_values: ArrayLike) -> float:
    """The bound's own log-log slope on a finite grid (ordinary least squares).

    A rate check compares the empirical slope with this, not with the asymptotic
    exponent: on a finite grid log factors and lower-order terms shift the slope.

    Examples
    --------
    >>> import numpy as np
    >>> m = np.array([100, 1000, 10000])
    >>> round(bound_slope(m, m**-0.5 * np.log(m)), 3)   # log factor: flatter than -1/2 on this grid
    -0.349
    """
    x = np.log(np.asarray(m, dtype=float))
    y = np.log(np.asarray(bound_values, dtype=float))
    if x.size < 2 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
        return math.nan
    return float(np.polyfit(x, y, 1)[0])


def grade(r):
    """Wording of one empirical result, applied to every check's rows (:mod:`verify.empirical`).

    * An exact search (confidence 1) whose statistic equals its bound within
      :data:`ATTAIN_RTOL` *holds* and is marked ``attained``.
    * A rate (an upper bound quantity ≲ m^s) is graded against the bound's own slope
      on the same grid when the check supplies it (``details["bound_slope"]``):
      violated when the slope's lower limit exceeds it, else holds, marked
      ``faster than claimed`` when the upper limit is below it and ``matches`` when
      the interval contains it.  Without the grid slope, a slope above the asymptotic
      exponent is *inconclusive* (log factors and lower-order terms are not excluded).

    Returns the same :class:`~bounds.evidence.Result`, modified in place.
    """
    if r.evidence != "empirical":
        return r
    s, b = r.statistic, r.bound
    if r.kind != "rate":
        if (r.confidence == 1.0 and math.isfinite(s) and math.isfinite(b)
                and abs(s - b) <= ATTAIN_RTOL * max(abs(b), 1e-300)):
            r.verdict, r.qualifier = "holds", "attained"
        return r
    if not (math.isfinite(r.lo) and math.isfinite(r.hi)):
        return r
    grid = r.details.get("bound_slope")
    ref = float(grid) if grid is not None and math.isfinite(float(grid)) else math.nan
    if math.isfinite(ref):
        r.details.setdefault("claimed_exponent", b)
        if r.lo > ref:
            r.verdict, r.qualifier = "violated", ""
        else:
            r.verdict = "holds"
            r.qualifier = "faster than claimed" if r.hi < ref else "matches"
        r.bound = ref
        return r
    if r.lo > b:
        r.verdict, r.qualifier = "inconclusive", ""
        r.details["why_inconclusive"] = ("fitted slope above the asymptotic exponent on a finite grid; the "
                                         "bound's own slope on this grid is not computed (log factors and "
                                         "lower-order terms not excluded)")
    else:
        r.verdict = "holds"
        r.qualifier = "faster than claimed" if r.hi < b else "matches"
    return r


def _check_level(confidence: float) -> None:
    if not 0 < confidence < 1:
        raise ValueError(f"parameter 'confidence' = {confidence!r} must lie in (0, 1)")
