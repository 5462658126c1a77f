"""Output kinds: how the auditor reads a mechanism's outputs (scalars, categories, (index, value) pairs, vectors).

* :func:`as_outputs` checks outputs (finite, numeric, shape (n,) or (n, d)); :func:`output_kind` the kind
  asked for; :func:`few_values` decides when outputs are categories, :func:`value_and_groups` when a vector
  is an (index, value) pair;
* the statistics fitted on the selection split: the empirical log-likelihood ratio of a category
  (:func:`_categorical_score`) and the log-odds of a classifier (:func:`_fitted_score`);
* :func:`_mostly_unrepeated`: outputs whose values mostly occur once, which ``output="categorical"``
  refuses (issue 32, item 3: their categories would be unseen on the evaluation split and score 0).

Everything here is re-exported by :mod:`verify.audit.core`.  Only numpy at module level (scikit-learn
is imported when a classifier is fitted).

Examples
--------
>>> output_kind(np.zeros((5, 2)), np.zeros((5, 2)))
'vector'
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

#: default share of releases used to choose the statistic and the threshold
SELECTION = {"scalar": 0.1, "categorical": 0.1, "vector": 0.2}
OUTPUT_KINDS = ("auto", "scalar", "categorical", "vector")
#: outputs ("auto") with at most this many distinct values (or vector rows) in the selection split, and at
#: most one per 20 selection outputs, are categories
MAX_CATEGORIES = 100
#: smallest number of outputs per data set an audit accepts
MIN_OUTPUTS = 20


def as_outputs(x: Any, name: str, k: int | None = None) -> np.ndarray:
    """Outputs of a mechanism as a finite numeric array of shape (k,) or (k, d); ValueError naming ``name``.

    Booleans become integers (categories).  NaN or inf, complex or non-numeric values, more than two
    dimensions, or a count different from ``k`` are errors, never a verdict.

    Examples
    --------
    >>> as_outputs([1.0, 2.0], "d0").shape
    (2,)
    >>> as_outputs([1.0, float("nan")], "d0")
    Traceback (most recent call last):
    ...
    ValueError: parameter 'd0': 1 of 2 outputs are NaN or infinite; an audit needs finite outputs
    """
    try:
        a = np.asarray(x)
    except Exception as exc:       # ragged lists and the like
        raise ValueError(f"parameter {name!r}: outputs are not a numeric array ({exc})") from None
    if a.dtype == bool:
        a = a.astype(np.int64)
    if a.dtype.kind not in "iuf":
        raise ValueError(f"parameter {name!r}: outputs must be real numbers or integer categories, "
                         f"not dtype {a.dtype}")
    if a.ndim == 0:
        raise ValueError(f"parameter {name!r}: outputs must be an array of shape (n,) or (n, d), not a scalar")
    if a.ndim > 2:
        raise ValueError(f"parameter {name!r}: outputs must have shape (n,) or (n, d), not {a.shape}")
    if a.ndim == 2 and a.shape[1] == 0:
        raise ValueError(f"parameter {name!r}: vector outputs of shape {a.shape} have no coordinates")
    if a.shape[0] == 0 and k != 0:
        raise ValueError(f"parameter {name!r}: no outputs (shape {a.shape}); an audit needs at least "
                         f"{MIN_OUTPUTS} per data set")
    if k is not None and a.shape[0] != k:
        raise ValueError(f"parameter {name!r}: asked for {k} outputs, got {a.shape[0]}")
    if a.dtype.kind == "f":
        bad = ~np.isfinite(a).reshape(a.shape[0], -1).all(axis=1)
        if bad.any():
            raise ValueError(f"parameter {name!r}: {int(bad.sum())} of {a.shape[0]} outputs are NaN or infinite; "
                             "an audit needs finite outputs")
    return a


def output_kind(a0: np.ndarray, a1: np.ndarray, output: str = "auto") -> str:
    """``scalar``, ``categorical`` or ``vector`` for outputs a0, a1 (shapes must agree)."""
    if output not in OUTPUT_KINDS:
        raise ValueError(f"parameter 'output' = {output!r} must be one of {', '.join(OUTPUT_KINDS)}")
    if a0.shape[1:] != a1.shape[1:]:
        raise ValueError(f"parameters 'd0', 'd1': outputs on D have shape (n,){'+' + str(a0.shape[1:]) if a0.ndim > 1 else ''}"
                         f" but outputs on D′ (n,){'+' + str(a1.shape[1:]) if a1.ndim > 1 else ''}: they must agree")
    vec = a0.ndim == 2 and a0.shape[1] > 1
    ints = a0.dtype.kind in "iu" and a1.dtype.kind in "iu"
    if output == "auto":
        return "vector" if vec else ("categorical" if ints else "scalar")
    if output == "vector" and a0.ndim == 1:
        return "scalar"
    if output == "scalar" and vec:
        raise ValueError(f"parameter 'output' = {output!r} but outputs are vectors of length {a0.shape[1]}")
    return output                  # "categorical": values (or whole rows of vectors) are category labels


def _keys(x: np.ndarray) -> np.ndarray:
    """One comparable key per output: the value (as float), or the whole row of a vector output."""
    x = np.asarray(x, dtype=float) + 0.0                 # + 0.0: −0.0 and 0.0 are the same category
    if x.ndim == 1:
        return x
    x = np.ascontiguousarray(x)
    return x.view(np.dtype((np.void, x.dtype.itemsize * x.shape[1]))).ravel()


def few_values(a0: np.ndarray, a1: np.ndarray) -> bool:
    """Whether outputs a0, a1 (a selection split) take few enough distinct values to be categories.

    At most :data:`MAX_CATEGORIES` distinct values (rows, for vectors) and at most one per 20 outputs.

    Examples
    --------
    >>> codes = np.random.default_rng(0).integers(0, 5, 1000).astype(float)    # integer codes saved as floats
    >>> few_values(codes, codes), few_values(np.linspace(0, 1, 1000), codes)
    (True, False)
    """
    k = np.unique(np.concatenate([_keys(a0), _keys(a1)])).size
    return k <= min(MAX_CATEGORIES, max(2, (a0.shape[0] + a1.shape[0]) // 20))


def _categorical_score(c0: np.ndarray, c1: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
    """log P̂[c | D′] − log P̂[c | D] per category (add-½ smoothing); unseen categories score 0."""
    k0, k1 = _keys(c0), _keys(c1)
    cats = np.unique(np.concatenate([k0, k1]))
    n0 = np.bincount(np.searchsorted(cats, k0), minlength=cats.size)
    n1 = np.bincount(np.searchsorted(cats, k1), minlength=cats.size)
    k = cats.size + 1
    llr = np.log((n1 + 0.5) / (k1.size + 0.5 * k)) - np.log((n0 + 0.5) / (k0.size + 0.5 * k))

    def score(x: np.ndarray) -> np.ndarray:
        kx = _keys(x)
        i = np.clip(np.searchsorted(cats, kx), 0, cats.size - 1)
        return np.where(cats[i] == kx, llr[i], 0.0)

    return score


def _fitted_score(estimator: Any, x0: np.ndarray, x1: np.ndarray, seed: np.random.SeedSequence
                  ) -> Callable[[np.ndarray], np.ndarray]:
    """Log-odds of a classifier fitted to tell outputs on D′ (label 1) from outputs on D (label 0)."""
    from sklearn.base import clone

    if estimator is None:
        from sklearn.ensemble import HistGradientBoostingClassifier

        est = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, early_stopping=True,
                                             validation_fraction=0.2, n_iter_no_change=10,
                                             random_state=int(seed.generate_state(1)[0] % 2**31))
    else:
        est = clone(estimator)
    from threadpoolctl import threadpool_limits

    X = np.concatenate([x0, x1]).astype(float)
    y = np.concatenate([np.zeros(len(x0)), np.ones(len(x1))])
    with threadpool_limits(1):            # one thread: the same fit on any machine, no oversubscription
        est.fit(X, y)

    def score(x: np.ndarray) -> np.ndarray:
        x = x.astype(float)
        with threadpool_limits(1):
            if hasattr(est, "decision_function"):
                return np.asarray(est.decision_function(x), dtype=float).reshape(-1)
            p = np.clip(np.asarray(est.predict_proba(x))[:, 1], 1e-300, 1 - 1e-16)
        return np.log(p) - np.log1p(-p)

    return score


def value_and_groups(a0: np.ndarray, a1: np.ndarray) -> tuple[int, list[int]] | None:
    """(value column, group columns) of vector outputs like (index, value): one column with many distinct
    values, the others with few (jointly at most :data:`MAX_CATEGORIES` groups); else None.

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> x = np.column_stack([rng.integers(0, 5, 1000), rng.laplace(size=1000)])   # (index, value)
    >>> value_and_groups(x, x)
    (1, [0])
    """
    if a0.ndim != 2 or a0.shape[1] < 2:
        return None
    X = np.concatenate([a0, a1]).astype(float)
    limit = min(MAX_CATEGORIES, max(2, X.shape[0] // 20))
    few = [np.unique(X[:, j]).size <= limit for j in range(X.shape[1])]
    value = [j for j, f in enumerate(few) if not f]
    groups = [j for j, f in enumerate(few) if f]
    if len(value) != 1 or np.unique(_keys(X[:, groups])).size > limit:
        return None
    return value[0], groups


def _mostly_unrepeated(sel0: np.ndarray, sel1: np.ndarray) -> bool:
    """Whether more than half of the selection outputs take a value (or row) seen only once among them."""
    k = np.concatenate([_keys(sel0), _keys(sel1)])
    _, inv, cnt = np.unique(k, return_inverse=True, return_counts=True)
    return bool(np.mean(cnt[inv] == 1) > 0.5)
