"""The cheap non-zero test that spares `verify.empirical.jia._whiches_of` most `sympy.simplify` calls (issue 33).

It may only ever answer "the two forms differ" where `simplify` would too: checked on constructed expressions
(identically zero ones, including zero only under the symbols' assumptions) and on three real statements.
"""

import sympy as sp

from verify.empirical.jia import _nonzero_somewhere


def test_never_nonzero_for_identities_under_assumptions():
    x = sp.Symbol("x", positive=True)
    n = sp.Symbol("n", integer=True, positive=True)
    zeros = [sp.sqrt(x**2) - x, sp.log(x * x) - 2 * sp.log(x), (x**2 - 1) / (x - 1) - (x + 1),
             sp.cos(x) ** 2 + sp.sin(x) ** 2 - 1, (-1) ** (2 * n) - 1, sp.exp(sp.log(x)) - x]
    for z in zeros:
        assert sp.simplify(z) == 0
        assert not _nonzero_somewhere(z), z


def test_nonzero_for_differences_simplify_keeps():
    x, y = sp.symbols("x y", positive=True)
    for d in (x / y - 2 * x / y, sp.sqrt(x) - x, sp.log(1 + x) - x + x**2 / 2):
        assert sp.simplify(d) != 0
        assert _nonzero_somewhere(d), d


def test_undecidable_inputs_fall_back():
    x = sp.Symbol("x")                                  # real sign unknown: a point may leave the domain
    f = sp.Function("f")
    assert not _nonzero_somewhere(f(x) - 1)             # not a number at the point: "not shown"
    assert not _nonzero_somewhere(sp.sqrt(-sp.Symbol("y", positive=True)) - 1)   # complex: "not shown"


def test_a_value_with_no_correct_digit_is_not_taken_as_nonzero():
    """Review (R1, finding 2): evalf(30) of a huge factor times an exact 0 gave '-0.e+80'; strict evalf refuses."""
    x, y = sp.symbols("x y", positive=True)
    z = sp.exp(400 * x) * (sp.log(x * y) - sp.log(x) - sp.log(y))
    assert sp.simplify(z) == 0
    assert not _nonzero_somewhere(z)


def test_symbols_the_points_would_violate_are_not_shown():
    """Review (R1, nit of finding 2): an even, nonpositive or negative symbol gets no point outside its assumptions."""
    k = sp.Symbol("k", integer=True, even=True)
    u = sp.Symbol("u", nonpositive=True)
    assert not _nonzero_somewhere((-1) ** k - 1)            # 0 for every even k; −2 at an odd point
    assert not _nonzero_somewhere(sp.sqrt(u**2) + u)        # 0 for every u ≤ 0; 2u at a positive point
