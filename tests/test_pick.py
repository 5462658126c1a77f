"""ε/λ pickers: the paper's schedule reproduces its exponent, the optimiser never loses to it,
and the inverse queries return the boundary they claim."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bounds import pick

JIA = dict(B0=1, Omega0=0.5, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1)
JAMP = dict(M=1, kappa=1, fnorm=1)


def _slope(key: str, m1: float, m2: float, **c) -> float:
    b1 = pick.paper_schedule(key, m1, **dict(c)).bound
    b2 = pick.paper_schedule(key, m2, **dict(c)).bound
    return (math.log(b2) - math.log(b1)) / (math.log(m2) - math.log(m1))


@pytest.mark.parametrize("beta", [0.25, 0.5, 1.0])
def test_jia_schedule_reproduces_exponent(beta: float) -> None:
    # Theorem 4: the bound at ε = 1/√(λm), λ = m^(−1/(2β+1)) falls like m^(−β/(2β+1))
    s = _slope("jia.thm4", 1e12, 1e16, beta=beta, **JIA)
    assert s == pytest.approx(-beta / (2 * beta + 1), abs=0.01)


@pytest.mark.parametrize("r", [0.2, 0.5, 1.0])
def test_jamp_thm3_schedule_reproduces_exponent(r: float) -> None:
    s = _slope("jamp.thm3", 1e14, 1e18, r=r, **JAMP)
    assert s == pytest.approx(-min(1 / 3, 4 * r / (3 + 6 * r)), abs=0.01)


def test_jamp_thm2_fixed_eps_schedule() -> None:
    r = 0.25
    s = _slope("jamp.thm2", 1e14, 1e18, r=r, eps=0.5, **JAMP)
    assert s == pytest.approx(-min(0.5, 4 * r / (3 + 2 * r)), abs=0.01)


def test_paper_schedule_values() -> None:
    p = pick.paper_schedule("jia.thm4", 10_000, beta=0.5, **JIA)
    assert p.lam == pytest.approx(10_000 ** (-1 / 2))
    assert p.eps == pytest.approx(1 / math.sqrt(p.lam * 10_000))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    m=st.integers(100, 10**8),
    beta=st.floats(0.05, 1.0),
    kappa=st.floats(0.2, 5.0),
    B0=st.floats(0.1, 10.0),
    B_rho=st.floats(0.1, 10.0),
)
def test_optimiser_never_worse_than_paper(m, beta, kappa, B0, B_rho) -> None:
    c = dict(JIA, beta=beta, kappa=kappa, B0=B0, B_rho=B_rho)
    o = pick.optimise("jia.thm4", m, **c)
    assert o.bound <= o.paper_bound * (1 + 1e-12)
    assert 0 < o.eps < 1 and o.lam > 0
    assert o.improvement >= 1 - 1e-12


@settings(max_examples=15, deadline=None)
@given(m=st.integers(100, 10**7), r=st.floats(0.05, 2.0))
def test_optimiser_respects_lambda_le_1(m, r) -> None:
    o = pick.optimise("jamp.thm3", m, r=r, **JAMP)
    assert o.lam <= 1 and o.bound <= o.paper_bound * (1 + 1e-12)


def test_fixed_eps_is_kept() -> None:
    o = pick.optimise("jamp.thm2", 1e4, eps=0.3, r=0.5, **JAMP)
    assert o.eps == 0.3 and o.method == "optimised over lam"


def test_min_m_is_the_boundary() -> None:
    c = dict(JIA, beta=0.5)
    n = pick.min_m("jia.thm4", 1.0, eps=0.2, **c)
    assert pick.value_at("jia.thm4", n, 0.2, **c) <= 1.0 < pick.value_at("jia.thm4", n - 1, 0.2, **c)


def test_min_eps_is_the_boundary() -> None:
    c = dict(JIA, beta=0.5)
    e = pick.min_eps("jia.thm4", 0.6, m=1e5, **c)
    assert pick.value_at("jia.thm4", 1e5, e, **c) <= 0.6
    assert pick.value_at("jia.thm4", 1e5, e * (1 - 1e-4), **c) > 0.6


def test_unreachable_target_is_an_error() -> None:
    c = dict(JIA, beta=0.5)
    # with ε fixed the privacy term 4B₀ε never vanishes
    with pytest.raises(ValueError, match="not reached"):
        pick.min_m("jia.thm4", 0.5, eps=0.5, m_max=1e6, **c)
    with pytest.raises(ValueError, match="target"):
        pick.min_m("jia.thm4", -1.0, eps=0.5, **c)


def test_not_pickable() -> None:
    with pytest.raises(ValueError, match="no ε/λ schedule"):
        pick.paper_schedule("jia.thm2", 100)
