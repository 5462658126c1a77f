"""``bounds.checks.memoised``: repeated sympy operations are computed once and give what sympy gives."""

from __future__ import annotations

import sympy as sp

from bounds import checks

x = sp.Symbol("x", positive=True)
y = sp.Symbol("x")                      # the same name without assumptions: another symbol for sympy


def test_a_repeat_returns_the_first_result_and_sympy_agrees(monkeypatch) -> None:
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    calls = []

    def counting(*a, **k):
        calls.append(a)
        return sp.integrate(*a, **k)

    first = checks.memoised(counting, sp.exp(-x), (x, 0, sp.oo))
    again = checks.memoised(counting, sp.exp(-x), (x, 0, sp.oo))
    assert first is again and len(calls) == 1
    assert first == sp.integrate(sp.exp(-x), (x, 0, sp.oo)) == 1
    assert checks.integrated(sp.exp(-2 * x), (x, 0, sp.oo)) == sp.Rational(1, 2)


def test_lists_are_fresh_copies_of_the_same_elements(monkeypatch) -> None:
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    a = checks.solved(y**2 - 4, y)
    b = checks.solved(y**2 - 4, y)
    assert a == b == sp.solve(y**2 - 4, y) and a is not b
    assert all(u is v for u, v in zip(a, b, strict=True))
    a.append(99)                                            # a caller's mutation never reaches the memo
    assert checks.solved(y**2 - 4, y) == b


def test_arguments_sympy_tells_apart_are_different_keys(monkeypatch) -> None:
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    assert checks.solved(x**2 - 4, x) == [2]                # x > 0: one root
    assert sorted(checks.solved(y**2 - 4, y)) == [-2, 2]    # same name, no assumptions: two roots
    assert checks.nsimplified(0.5) == sp.Rational(1, 2)
    assert checks._memo_key((1,)) != checks._memo_key((1.0,)) != checks._memo_key((sp.Integer(1),))
    assert checks.limited(sp.sin(y) / y, y, 0) == 1 and checks.limited(sp.sin(y) / y, y, 0, "-") == 1
    assert len(checks._CALL_MEMO) == 5


def test_unhashable_arguments_are_passed_on(monkeypatch) -> None:
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    m = sp.Matrix([[1, 2], [3, 4]])                         # mutable: never a key
    assert checks.memoised(lambda a: a.det(), m) == -2 and not checks._CALL_MEMO


def test_lambdified_functions_are_shared_and_evaluate_as_sympy(monkeypatch) -> None:
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    f = checks.lambdified([y], sp.sqrt(y) + 1, "math")
    assert f is checks.lambdified([y], sp.sqrt(y) + 1, "math")
    assert f is not checks.lambdified((y,), sp.sqrt(y) + 1, "math")    # a tuple is not a list: another key
    assert f(4.0) == 3.0


def test_nested_containers_are_fresh_so_a_mutation_never_reaches_the_memo(monkeypatch) -> None:
    """``solve(..., dict=True)`` gives a list of dicts: editing one must not change the next caller's result
    (review R2, finding 6: only the outer list used to be copied)."""
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    s = checks.solved(y**2 - 4, y, dict=True)
    s[0][y] = 99
    again = checks.solved(y**2 - 4, y, dict=True)
    assert again == sp.solve(y**2 - 4, y, dict=True) and {d[y] for d in again} == {-2, 2}


def test_signed_zeros_are_different_keys(monkeypatch) -> None:
    monkeypatch.setattr(checks, "_CALL_MEMO", {})
    assert checks._memo_key(0.0) != checks._memo_key(-0.0)
    assert str(checks.nsimplified(-0.0)) == str(sp.nsimplify(-0.0)) and str(checks.nsimplified(0.0)) == "0"
