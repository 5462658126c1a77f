"""The interval arithmetic of the seeded simplify store's check on read (``bounds.simplify_store._iv``)."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp

import bounds.simplify_store as ss

x, y = sp.symbols("x y", positive=True)
n = sp.Symbol("n", positive=True, integer=True)


def _evalf_agree(a, b, pt):
    """The decision of the evalf path (as before the intervals)."""
    va, vb = ss._value(a, pt), ss._value(b, pt)
    if va is None or vb is None:
        return None
    import mpmath

    with mpmath.workdps(2 * ss.DIGITS):
        if not abs(va - vb) <= ss.RTOL * max(abs(va), abs(vb), ss.TINY):
            return False
        return "zero" if abs(va) <= ss.TINY and abs(vb) <= ss.TINY else True


CASES = [
    (sp.log(x * y), sp.log(x) + sp.log(y)),
    (sp.exp(2 * sp.log(x)), x**2),
    (sp.sqrt(x**2 * y), x * sp.sqrt(y)),
    (sp.gamma(n + 1) / sp.factorial(n), sp.Integer(1)),
    (sp.Max(x, y) + sp.Min(x, y), x + y),
    (sp.Abs(x - y) + x, sp.Max(y, 2 * x - y)),
    (sp.Piecewise((x, x > 1), (1, True)), sp.Max(x, 1)),
    (x ** sp.Rational(1, 3) * x ** sp.Rational(2, 3), x),
    (sp.exp(x) - sp.exp(x) * (1 + 1 / sp.exp(x)), sp.Integer(-1)),
    (sp.pi * sp.E, sp.E * sp.pi),
]


@pytest.mark.parametrize("a,b", CASES)
def test_the_intervals_decide_as_evalf_for_right_and_wrong_outcomes(a, b) -> None:
    rng = np.random.default_rng(7)
    decided = 0
    for wrong in (b, b * (1 + sp.Rational(1, 10**20)), b + sp.Rational(1, 10**6), 2 * b):
        for _ in range(6):
            pt = ss._point(sorted(a.free_symbols | wrong.free_symbols, key=sp.default_sort_key), rng)
            try:
                got = ss._iv_agree(a, wrong, pt)
            except ss._Open:
                continue
            decided += 1
            assert got == _evalf_agree(a, wrong, pt), (a, wrong, pt, got)
            assert (got is not False) == (wrong is b), (a, wrong, pt, got)
    assert decided >= 12


def test_what_intervals_cannot_bound_is_left_to_evalf() -> None:
    z = sp.Symbol("z", real=True)
    with pytest.raises(ss._Open):
        ss._iv(sp.sqrt(z), {z: sp.Integer(-4)})             # a complex value
    with pytest.raises(ss._Open):
        ss._iv(1 / (x - 2), {x: sp.Integer(2)})              # a pole
    with pytest.raises(ss._Open):
        ss._iv(sp.besselj(0, x), {x: sp.Integer(1)})          # a function it does not know
    with pytest.raises(ss._Open):
        ss._iv(x, {x: 1 + sp.I})                             # a complex point
    # and then verified still decides, through evalf: sqrt(z²) is |z|, not z
    assert ss.verified(sp.sqrt(z**2), sp.Abs(z), "k") and not ss.verified(sp.sqrt(z**2), z, "k")


def test_a_wrong_stored_outcome_with_logs_and_powers_is_refused() -> None:
    e = (x + y) ** sp.Rational(7, 3) * sp.log(x * y) / sp.exp(y)
    right = sp.expand_log(e, force=True)
    assert ss.verified(e, right, "k1")
    for wrong in (right * (1 + sp.Rational(1, 10**22)), right.subs(y, y + sp.Rational(1, 10**9)),
                  e.subs(sp.log(x * y), sp.log(x) * sp.log(y))):
        assert not ss.verified(e, wrong, "k1"), wrong
