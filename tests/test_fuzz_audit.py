"""Fuzz tests of the audit API (:mod:`verify.audit`): generated outputs and parameters, valid or not.

Every call either raises a ``ValueError`` that names a parameter of the call, or returns an
:class:`~verify.audit.AuditResult` whose numbers are in their domain: ε_lower finite and ≥ 0,
rates in [0, 1], a verdict from the vocabulary and a p-value in [0, 1] when a claim was given.
Never another exception, never a non-finite or out-of-domain answer.
"""

from __future__ import annotations

import math
import re

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from verify.audit import audit, audit_mechanism, audit_samples

PARAMS = ("d0", "d1", "claim_eps", "seed", "confidence", "delta", "selection_fraction", "output", "n",
          "chunk", "release", "release0", "release1", "dataset0", "dataset1")
NUMBERS = st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(-10, 10**6),
                    st.sampled_from([0, 0.0, -0.0, 1, 1.0, 0.5, 1e-300, 1e300]),
                    st.just(None), st.just("0.5"), st.just(True))


def _outputs(draw, n_max: int = 400):
    kind = draw(st.sampled_from(["scalar", "ints", "bools", "vector", "codes", "pairs", "rows", "junk", "short",
                                 "nonfinite", "strings", "ragged", "empty", "3d"]))
    n = draw(st.integers(0, n_max))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if kind == "scalar":
        return rng.normal(size=n) * draw(st.sampled_from([1e-12, 1.0, 1e12]))
    if kind == "ints":
        return rng.integers(0, draw(st.integers(1, 5)), size=n)
    if kind == "bools":
        return rng.random(n) < 0.3
    if kind == "codes":           # integer codes saved as floats: categories
        return rng.integers(0, draw(st.integers(1, 8)), size=n).astype(float)
    if kind == "pairs":           # (index, value)
        return np.column_stack([rng.integers(0, draw(st.integers(1, 6)), size=n), rng.laplace(size=n)])
    if kind == "rows":            # 0/1 patterns: few distinct rows
        return (rng.random((n, draw(st.integers(2, 4)))) < 0.4).astype(float)
    if kind == "vector":
        return rng.normal(size=(n, draw(st.integers(1, 3))))
    if kind == "junk":
        return draw(st.sampled_from([None, 3.0, "abc", object(), {"a": 1}]))
    if kind == "short":
        return rng.normal(size=draw(st.integers(0, 19)))
    if kind == "nonfinite":
        x = rng.normal(size=max(n, 20))
        x[draw(st.integers(0, x.size - 1))] = draw(st.sampled_from([np.nan, np.inf, -np.inf]))
        return x
    if kind == "strings":
        return np.array(["a"] * max(n, 20))
    if kind == "ragged":
        return [[1.0, 2.0], [3.0]] * max(n // 2, 10)
    if kind == "empty":
        return np.zeros((0,))
    return rng.normal(size=(max(n, 20), 2, 2))


def _check_result(res, claim) -> None:
    assert math.isfinite(res.eps_lower) and res.eps_lower >= 0
    assert 0.0 <= res.fpr <= 1.0 and 0.0 <= res.fnr <= 1.0
    assert res.n0 > 0 and res.n1 > 0
    if claim is not None:
        assert res.verdict in ("violated", "consistent")          # AuditResult.verdict
        assert (res.verdict == "violated") == (res.eps_lower > res.claim_eps)
        assert res.p_value is not None and 0.0 <= res.p_value <= 1.0


def _names_a_parameter(err: ValueError) -> bool:
    msg = str(err)
    return any(re.search(rf"\b{p}\b", msg) for p in PARAMS)


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(data=st.data())
def test_audit_samples_never_answers_out_of_domain(data):
    d0, d1 = _outputs(data.draw), _outputs(data.draw)
    kw = {}
    for name in ("claim_eps", "confidence", "delta", "selection_fraction", "seed"):
        if data.draw(st.booleans()):
            kw[name] = data.draw(NUMBERS)
    if data.draw(st.booleans()):
        kw["output"] = data.draw(st.sampled_from(["auto", "scalar", "categorical", "vector", "image", 3]))
    try:
        res = audit_samples(d0, d1, **kw)
    except ValueError as err:
        assert _names_a_parameter(err), str(err)
        return
    _check_result(res, kw.get("claim_eps"))


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(n=NUMBERS, chunk=st.one_of(st.none(), NUMBERS), claim=st.one_of(st.none(), NUMBERS),
       shift=st.floats(-3, 3), kind=st.sampled_from(["ok", "short", "nan", "none", "wide"]))
def test_audit_of_release_functions_never_answers_out_of_domain(n, chunk, claim, shift, kind):
    def r0(rng, k):
        return rng.laplace(size=k)

    def r1(rng, k):
        if kind == "short":
            return rng.laplace(size=max(k // 2, 1))
        if kind == "nan":
            return np.full(k, np.nan)
        if kind == "none":
            return None
        if kind == "wide":
            return rng.laplace(size=(k, 2, 2))
        return rng.laplace(size=k) + shift

    kw = {"claim_eps": claim} if claim is not None else {}
    if chunk is not None:
        kw["chunk"] = chunk
    if isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) and n > 20_000:
        n = 20_000                                    # keep the test fast: the domain check is the point
    try:
        res = audit(r0, r1, n=n, **kw)
    except ValueError as err:
        assert _names_a_parameter(err), str(err)
        return
    _check_result(res, kw.get("claim_eps"))


@settings(max_examples=40, deadline=None, derandomize=True)
@given(release=st.sampled_from(["ok", "not callable", "raises", "wrong count"]), n=st.integers(-5, 3000),
       claim=st.one_of(st.none(), st.floats(-1, 5)))
def test_audit_mechanism_never_answers_out_of_domain(release, n, claim):
    def ok(data, rng, k):
        return float(np.sum(data)) + rng.laplace(size=k)

    def raises(data, rng, k):
        raise ValueError("parameter 'release' failed on purpose")

    def wrong(data, rng, k):
        return rng.laplace(size=k + 1)

    fn = {"ok": ok, "not callable": 42, "raises": raises, "wrong count": wrong}[release]
    try:
        res = audit_mechanism(fn, [0.0, 1.0], [0.0, 0.0], n=n, claim_eps=claim)
    except ValueError as err:
        assert _names_a_parameter(err), str(err)
        return
    assert release == "ok"
    _check_result(res, claim)
