"""Fuzzing the private estimators with generated parameters and data.

Whatever the parameters (NaN, ±inf, zero, negative, huge, tiny, wrong types, strings, foreign or
unknown mechanisms) and data (NaN/inf/huge entries, empty, wrong shapes and lengths, strings,
objects, ints, bools, one class, three classes, mixed label types), ``fit`` and ``predict`` either
raise a ``ValueError`` (or a ``TypeError`` where sklearn's convention is one) whose message names the
estimator and what is wrong, or return predictions of the right shape that are finite (regressors,
the classifier's decision function) or among ``classes_`` (the classifier).  Any other exception,
or a non-finite prediction, fails.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from simulations.estimators import (
    DPKernelLeastSquares,
    DPKernelSVM,
    DPOnlineKernelRegression,
)
from simulations.kernels import GaussianKernel, LinearKernel, PeriodicSobolevKernel
from simulations.mechanisms import Mechanism, mechanisms, release

pytestmark = [pytest.mark.filterwarnings("ignore::simulations.estimators.PrivacyLeakWarning"),
              pytest.mark.filterwarnings("ignore::bounds.core.PrivacyWarning"),
              pytest.mark.filterwarnings("ignore::sklearn.exceptions.DataConversionWarning")]

FUZZ = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# -- parameters --------------------------------------------------------------------------------------

ANY_FLOAT = st.floats(allow_nan=True, allow_infinity=True)
#: a value no numeric parameter accepts, or one at the edge of float64
ODD = st.one_of(ANY_FLOAT, st.integers(-10**6, 10**6), st.just(10**400), st.none(), st.text(max_size=3),
                st.sampled_from([0, -0.0, 5e-324, 1e-300, 1e300, np.nan, np.inf, -np.inf, -1.0, True, 1j, [0.5]]))


KERNEL = st.one_of(st.sampled_from(["gaussian", None]), st.builds(GaussianKernel, st.floats(0.05, 20.0)),
                   st.sampled_from(["linear", "periodic_sobolev", LinearKernel(10.0), PeriodicSobolevKernel(s=2)]))
BAD_KERNEL = st.sampled_from(["rbf", "", 1.5, GaussianKernel, np.inf])
RANDOM_STATE = st.one_of(st.none(), st.integers(0, 2**70), st.builds(np.random.default_rng, st.integers(0, 9)),
                         st.builds(np.random.RandomState, st.integers(0, 9)))
BAD_RANDOM_STATE = st.one_of(st.integers(-2**70, -1), st.text(max_size=2), st.just(0.5))
#: the declared mechanisms (objects); each estimator's own are those of its algorithm, given as the
#: object or by name (a convenience resolved to the same object)
MECHS = mechanisms()
OWN = {cls: [x for m in MECHS.values() if m.applies_to(cls.algorithm) for x in (m, m.name)]
       for cls in (DPKernelLeastSquares, DPKernelSVM, DPOnlineKernelRegression)}
FOREIGN = {cls: [x for m in MECHS.values() if not m.applies_to(cls.algorithm) for x in (m, m.name)]
           + ["nope", "", None, 3] for cls in OWN}


def _params(cls) -> st.SearchStrategy:
    """Parameters each estimator accepts (within its assumptions)."""
    ok = {
        "mechanism": st.sampled_from(OWN[cls]),
        "eps": st.floats(1e-3, 1e4),
        "kernel": KERNEL,
        "calibration": st.sampled_from(["derived", "stated"]),
        "random_state": RANDOM_STATE,
        # False: a calibration no verdict establishes is refused (a ValueError naming the estimator)
        "allow_unverified": st.booleans(),
    }
    if cls is not DPKernelSVM:
        ok["M"] = st.floats(1.0, 1e4)
    if cls is DPOnlineKernelRegression:
        ok["theta"] = st.floats(0.5, 1.0, exclude_min=True, exclude_max=True)
        ok["t0"] = st.one_of(st.none(), st.floats(1.0, 1e3))       # below (κ² + 1)^{1/θ}: rejected
    else:
        ok["lam"] = st.floats(1e-4, 1e2)
    return st.fixed_dictionaries(ok)


def _bad_value(key: str, cls: type) -> st.SearchStrategy:
    """A value outside ``key``'s assumptions (or at the edge of float64)."""
    if key == "mechanism":
        return st.sampled_from(FOREIGN[cls])
    if key == "kernel":
        return BAD_KERNEL
    if key == "random_state":
        return BAD_RANDOM_STATE
    if key == "calibration":
        return st.sampled_from(["paper", "", None, 1])
    return ODD


# -- data --------------------------------------------------------------------------------------------


@st.composite
def matrices(draw, n: int | None = None, d: int | None = None):
    """An X: mostly n × d floats, sometimes wild entries, a wrong shape or a wrong type."""
    n = draw(st.integers(0, 9)) if n is None else n
    d = draw(st.integers(0, 3)) if d is None else d
    kind = draw(st.sampled_from(["fine", "wild", "shape", "str", "object", "list", "int", "bool"]))
    fine = st.floats(-3, 3)
    if kind == "fine":
        return draw(hnp.arrays(np.float64, (n, d), elements=fine))
    if kind == "wild":          # NaN, ±inf, huge, subnormal
        return draw(hnp.arrays(np.float64, (n, d), elements=ANY_FLOAT))
    if kind == "shape":
        return draw(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=4),
                               elements=fine))
    if kind == "str":
        return draw(hnp.arrays(np.dtype("U3"), (n, d), elements=st.text("ab1.-e", max_size=3)))
    if kind == "object":
        cell = st.one_of(fine, st.text("1.x", max_size=2), st.none(), st.integers(-5, 5))
        rows = draw(st.lists(st.lists(cell, min_size=d, max_size=d), min_size=n, max_size=n))
        out = np.empty((n, d), dtype=object)
        for i, row in enumerate(rows):
            out[i, :] = row
        return out
    if kind == "list":
        return draw(hnp.arrays(np.float64, (n, d), elements=fine)).tolist()
    if kind == "int":
        return draw(hnp.arrays(np.int64, (n, d)))
    return draw(hnp.arrays(np.bool_, (n, d)))


def _length(draw, X, spoil: bool) -> int:
    n = len(X) if np.ndim(X) else 1
    return draw(st.sampled_from([n, n, n, n + 1, max(n - 1, 0)])) if spoil else n


@st.composite
def targets(draw, X, spoil: bool = True):
    """A regression y for X with |y| ≤ 1; if ``spoil``, large, wild, of a wrong length, shape or type."""
    m = _length(draw, X, spoil)
    kind = draw(st.sampled_from(["big", "wild", "str", "2d", "int", "complex", "fine"])) if spoil else "fine"
    if kind == "fine":
        return draw(hnp.arrays(np.float64, m, elements=st.floats(-1, 1)))
    if kind == "big":
        return draw(hnp.arrays(np.float64, m, elements=st.floats(-1e300, 1e300)))
    if kind == "wild":
        return draw(hnp.arrays(np.float64, m, elements=ANY_FLOAT))
    if kind == "str":
        return np.array(draw(st.lists(st.text("0.5ab", max_size=3), min_size=m, max_size=m)), dtype=object)
    if kind == "2d":
        return draw(hnp.arrays(np.float64, (m, draw(st.integers(1, 2))), elements=st.floats(-1, 1)))
    if kind == "int":
        return draw(hnp.arrays(np.int64, m, elements=st.integers(-1, 1)))
    return draw(hnp.arrays(np.complex128, m, elements=st.complex_numbers(max_magnitude=1)))


GOOD_LABELS = [(-1, 1), ("neg", "pos"), (0, 1), (False, True), (3.0, 7.0)]
LABEL_SETS = [*GOOD_LABELS, ("only",), (0, 1, 2), (0.5, 1.25), ("a", None), (1, "1")]


@st.composite
def labels(draw, X, spoil: bool = True):
    """A classification y for X with two labels; if ``spoil``, one, three, continuous, mixed types or wild."""
    m = _length(draw, X, spoil)
    if spoil and draw(st.booleans()):
        return draw(hnp.arrays(np.float64, m, elements=ANY_FLOAT))
    pool = draw(st.sampled_from(LABEL_SETS if spoil else GOOD_LABELS))
    values = draw(st.lists(st.sampled_from(pool), min_size=m, max_size=m))
    mixed = len({type(v) for v in pool}) > 1
    return np.array(values, dtype=object) if mixed else np.array(values)


# -- the property ------------------------------------------------------------------------------------

#: what an error message must point at
WHAT = re.compile(r"parameter|\bX\b|\by\b|sample|feature|class|label|target|kernel|lam|mechanism|array|dtype")


def _informative(err: Exception, name: str) -> None:
    msg = str(err)
    assert name in msg, f"{type(err).__name__} does not name {name}: {msg}"
    assert WHAT.search(msg), f"{type(err).__name__} does not say what is wrong: {msg}"


def _check(est, X, y, X_new) -> bool:
    """Fit and predict; True when the fit succeeded (and its predictions were checked)."""
    name = type(est).__name__
    try:
        est.fit(X, y)
    except (ValueError, TypeError) as err:
        _informative(err, name)
        event(f"{type(err).__name__}: {str(err)[len(name) + 2:][:38]}")
        return False
    for Z in (X, X_new):
        try:
            Z_arr = np.asarray(Z)
            out = est.predict(Z)
        except (ValueError, TypeError) as err:
            assert Z is not X, f"predict fails on the training X: {err}"
            _informative(err, name)
            continue
        assert out.shape == (Z_arr.shape[0],)
        if isinstance(est, DPKernelSVM):
            assert set(out.tolist()) <= set(est.classes_.tolist())
            d = est.decision_function(Z)
            assert d.shape == out.shape and d.dtype == np.float64 and np.all(np.isfinite(d))
            assert len(est.classes_) == 2
        else:
            assert out.dtype == np.float64 and np.all(np.isfinite(out)), out
    assert est.n_features_in_ == np.asarray(X).shape[1] and np.isfinite(est.noise_)
    return True


def _fuzz(cls, data, make_y) -> None:
    """One example: sensible inputs, or one of them spoilt (a parameter, X or y), or all drawn freely."""
    fault = data.draw(st.sampled_from(["none", "none", "param", "param", "X", "y", "all"]), label="fault")
    params = data.draw(_params(cls), label="params")
    if fault in ("param", "all"):
        for key in data.draw(st.lists(st.sampled_from(sorted(params)), min_size=1, max_size=2, unique=True)):
            params[key] = data.draw(_bad_value(key, cls), label=key)
    est = cls(**params)
    if fault in ("X", "all"):
        X = data.draw(matrices(), label="X")
    else:
        X = data.draw(hnp.arrays(np.float64, st.tuples(st.integers(2, 9), st.integers(1, 3)),
                                 elements=st.floats(-1, 1)), label="X")
    y = data.draw(make_y(X, spoil=fault in ("y", "all")), label="y")
    d = np.asarray(X).shape[1] if np.ndim(X) == 2 else 2
    X_new = data.draw(matrices(n=data.draw(st.integers(0, 4)), d=d), label="X_new")
    event("fitted" if _check(est, X, y, X_new) else "rejected")


@FUZZ
@given(data=st.data())
def test_fuzz_kernel_least_squares(data) -> None:
    _fuzz(DPKernelLeastSquares, data, targets)


@FUZZ
@given(data=st.data())
def test_fuzz_kernel_svm(data) -> None:
    _fuzz(DPKernelSVM, data, labels)


@FUZZ
@given(data=st.data())
def test_fuzz_online_kernel_regression(data) -> None:
    _fuzz(DPOnlineKernelRegression, data, targets)


@settings(max_examples=60, deadline=None)
@given(X=hnp.arrays(np.float64, st.tuples(st.integers(2, 9), st.integers(1, 3)), elements=st.floats(-3, 3)),
       eps=st.floats(1e-2, 1e3), lam=st.floats(1e-3, 10.0), seed=st.integers(0, 2**32))
def test_sensible_inputs_always_fit(X, eps, lam, seed) -> None:
    """The generator above must not only produce errors: valid inputs fit, for all three estimators."""
    y = np.tanh(X[:, 0])
    labels_ = np.where(np.arange(len(X)) % 2 == 0, "a", "b")
    kw = dict(eps=eps, random_state=seed, allow_unverified=True)
    for est, target in [(DPKernelLeastSquares(mechanism="jia.s5_1", lam=lam, **kw), y),
                        (DPKernelSVM(mechanism="jia.s5_2", lam=lam, **kw), labels_),
                        (DPOnlineKernelRegression(mechanism="jcc.thm1", **kw), y)]:
        assert _check(est, X, target, X[::-1])


# -- the mechanism is an object of one algorithm (issue 25: a mismatch fitted silently) ---------------


@FUZZ
@given(cls=st.sampled_from(sorted(OWN, key=lambda c: c.__name__)), name=st.sampled_from(sorted(MECHS)),
       by_name=st.booleans(), eps=st.floats(1e-2, 1e3), lam=st.floats(1e-3, 10.0), seed=st.integers(0, 2**32),
       m=st.integers(3, 12))
def test_fuzz_mechanism_of_another_algorithm_is_refused(cls, name, by_name, eps, lam, seed, m) -> None:
    """Any estimator × any declared mechanism: its own fits with that mechanism's scale, any other is a
    ValueError naming the estimator, the mechanism and its statement, decided by the statement's premises
    (even with allow_unverified=True)."""
    mech = MECHS[name]
    rng = np.random.default_rng(seed)
    X = rng.uniform(-0.5, 0.5, (m, 2))
    y = np.where(np.arange(m) % 2 == 0, 1.0, -1.0) if cls is DPKernelSVM else np.tanh(X[:, 0])
    params = dict(mechanism=name if by_name else mech, eps=eps, random_state=seed, allow_unverified=True)
    if cls is not DPOnlineKernelRegression:
        params["lam"] = lam
    est = cls(**params)
    if not mech.applies_to(cls.algorithm):
        with pytest.raises(ValueError) as err:
            est.fit(X, y)
        msg = str(err.value)
        for part in (cls.__name__, repr(name), mech.statement.key):
            assert part in msg, f"{part!r} not in {msg}"
        assert "premises" in msg or "does not apply" in msg, msg
        event("refused")
        return
    try:
        est.fit(X, y)
    except ValueError as err:                     # outside the statement's assumptions at this point
        _informative(err, cls.__name__)
        event("outside assumptions")
        return
    problem = dict(kappa=est.kernel_.kappa, m=m, eps=eps, M=est.M if hasattr(est, "M") else 1.0,
                   **({"lam": lam} if "lam" in params else {"t0": est.t0_, "theta": est.theta}))
    assert est.noise_scale_ == mech.scale(est.calibration, **problem)
    event("fitted")


# -- releases and mechanisms validate their parameters ------------------------------------------------

VALUES = st.one_of(hnp.arrays(np.float64, st.integers(0, 5), elements=st.floats(-1e3, 1e3)),
                   hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, max_side=3), elements=ANY_FLOAT),
                   st.sampled_from(["ab", None, [1.0, "x"]]))


@FUZZ
@given(values=VALUES, scale=st.one_of(st.floats(1e-6, 1e6), ODD), n=st.one_of(st.integers(1, 4), ODD),
       clip=st.one_of(st.none(), st.floats(1e-3, 1e3), ODD), seed=st.integers(0, 2**32))
def test_fuzz_release(values, scale, n, clip, seed) -> None:
    """A release either raises a ValueError naming the parameter, or returns n finite copies of π(f) + b."""
    try:
        out = release(values, scale, n=n, rng=np.random.default_rng(seed), clip=clip)
    except ValueError as err:
        assert re.match(r"release: parameter '(values|scale|n|clip|rng)'", str(err)), str(err)
        event(str(err)[:32])
        return
    v = np.asarray(values, dtype=float)
    c = v if clip is None else np.clip(v, -clip, clip)
    assert out.shape == (n, v.size) and np.all(np.isfinite(out))
    if v.size:
        b = out[:, :1] - c[0]              # one scalar per copy, added to every value
        assert np.allclose(out, c[None, :] + b, rtol=0, atol=1e-9 * (1 + np.abs(c).max() + np.abs(b).max()))
    event("released")


@FUZZ
@given(data=st.data())
def test_fuzz_mechanism_constructor(data) -> None:
    """Mechanism(...) with one field spoilt is a ValueError naming that field; unspoilt it is valid."""
    base = MECHS[data.draw(st.sampled_from(sorted(MECHS)))]
    good = dict(name=base.name + "_x", statement=base.statement, algorithms=base.algorithms, per_eps=base.per_eps,
                clip=base.clip, inputs=base.inputs, release=base.release, output=base.output, sampler=base.sampler)
    bad = {"name": st.sampled_from(["", "nodot", " x.y", 3, None]),
           "statement": st.sampled_from([base.statement.key, None, 1.0, base]),
           "algorithms": st.sampled_from([(), "kls", ["kls"], ("",), (1,), None]),
           "per_eps": st.sampled_from([1, "yes", None]), "clip": st.sampled_from([0, "no", None]),
           "inputs": st.sampled_from([1, "f"]), "release": st.sampled_from([None, 3]),
           "output": st.sampled_from(["vector", "", None]), "sampler": st.sampled_from([None, 2.0, "laplace"])}
    spoil = data.draw(st.sampled_from([None, *sorted(bad)]))
    if spoil is None:
        assert Mechanism(**good).statement is base.statement
        return
    good[spoil] = data.draw(bad[spoil])
    with pytest.raises(ValueError, match=f"parameter '{spoil}'"):
        Mechanism(**good)
