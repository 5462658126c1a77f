"""``bounds.checks._exact_text``: the two-digit texts it converts without ``nsimplify`` convert as ``nsimplify`` does."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sympy as sp

from bounds import checks


def _language() -> list[str]:
    """Every text :data:`bounds.checks._TWO_DIGITS` matches (a finite language: 11 466 texts)."""
    out = []
    exps = [""] + [f"e{s}{k:02d}" for s in "+-" for k in range(26)]
    for sign, lead, frac, exp in itertools.product(("", "-"), "123456789", [""] + [f".{d}" for d in range(10)], exps):
        out.append(f"{sign}{lead}{frac}{exp}")
    for sign, k in itertools.product(("", "-"), range(10, 100)):
        out.append(f"{sign}{k}")
    for sign, zeros, lead, last in itertools.product(("", "-"), range(4), "123456789", [""] + list("0123456789")):
        out.append(f"{sign}0.{'0' * zeros}{lead}{last}")
    return out


def _check(texts: list[str]) -> None:
    for text in texts:
        assert checks._TWO_DIGITS.fullmatch(text), text
        want = sp.nsimplify(float(text), rational=True)
        got = checks._exact_text.__wrapped__(text)
        assert got == want and type(got) is type(want), (text, got, want)


def test_the_language_is_what_the_pattern_matches() -> None:
    texts = _language()
    assert len(texts) == len(set(texts)) == 11466
    assert all(checks._TWO_DIGITS.fullmatch(t) for t in texts)
    for other in ("0", "1e+26", "1e-26", "1.25", "100", "0.00001", "2.2e-308", "inf", "nan", "1.e+02"):
        assert not checks._TWO_DIGITS.fullmatch(other), other


def test_every_format_of_two_digits_converts_as_nsimplify_does() -> None:
    """A seeded sample of 250 texts of the language (the whole language: the slow test below)."""
    texts = _language()
    rng = np.random.default_rng(np.random.SeedSequence(33))
    _check([texts[i] for i in rng.choice(len(texts), 250, replace=False)])
    _check([f"{x:.2g}" for x in (1e-25, 9.9e25, 0.0001234, 1.5e-5, 12.0, -0.07, 123.0, 3e25)])


def test_texts_outside_the_pattern_still_go_to_nsimplify() -> None:
    for text in ("0", "1e+26", "2.2e-308"):
        assert checks._exact_text.__wrapped__(text) == sp.nsimplify(float(text), rational=True)


@pytest.mark.slow
def test_the_whole_language_converts_as_nsimplify_does() -> None:
    _check(_language())
