"""Properties the theory implies, checked on random points with hypothesis."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds import registry

pos = st.floats(0.05, 20.0)
small = st.floats(0.01, 0.99)
SET = settings(max_examples=40, deadline=None)


@SET
@given(kappa=pos, C_L=pos, lam=pos, gamma=pos, m=st.integers(2, 10**6))
def test_sensitivity_decreases_in_m_and_lambda(kappa, C_L, lam, gamma, m) -> None:
    v = dict(kappa=kappa, C_L=C_L, lam=lam, gamma=gamma, m=m)
    base = registry.value("jia.thm2", v)
    assert base > 0
    assert registry.value("jia.thm2", dict(v, m=m + 1)) < base
    assert registry.value("jia.thm2", dict(v, lam=lam * 1.5)) < base
    # the sup-norm sensitivity is κ times the K-norm one (‖f‖_∞ ≤ κ‖f‖_K)
    assert registry.value("jia.prop1.sensitivity", v) == pytest.approx(kappa * base)


@SET
@given(kappa=pos, C_L=pos, lam=pos, gamma=pos, m=st.integers(2, 10**6), eps=small)
def test_noise_scale_is_sensitivity_over_eps(kappa, C_L, lam, gamma, m, eps) -> None:
    v = dict(kappa=kappa, C_L=C_L, lam=lam, gamma=gamma, m=m)
    sens = registry.value("jia.prop1.sensitivity", v)
    # the scale used for numbers (derived: the paper's is an erratum) is exactly Δf/ε, decreasing in ε
    assert registry.value("jia.prop1.scale", dict(v, eps=eps)) == pytest.approx(sens / eps)
    assert registry.value("jia.prop1.scale", dict(v, eps=eps), which="stated") == pytest.approx(sens / (2 * eps))


@SET
@given(R=pos, kappa=pos, lam=small, m=st.integers(2, 10**6), eps=small, M=pos)
def test_jamp_noise_covers_sensitivity(R, kappa, lam, m, eps, M) -> None:
    if R < M:
        R, M = M, R
    sens = registry.value("jamp.lemma2", dict(R=R, kappa=kappa, lam=lam, m=m))
    scale = registry.value("jamp.prop1.scale", dict(R=R, kappa=kappa, lam=lam, m=m, eps=eps))
    assert scale * eps >= sens * (1 - 1e-12)
    # Lemma 2's stated bound dominates the proof's (2κR + 2M)κ²/(λm) whenever R ≥ M
    assert sens >= (2 * kappa * R + 2 * M) * kappa**2 / (lam * m) * (1 - 1e-12)


@SET
@given(t=st.integers(1, 10**6), theta=st.floats(0.51, 0.99), kappa=st.floats(0.1, 3.0), M=pos)
def test_online_sensitivity_decreases_in_t(t, theta, kappa, M) -> None:
    t0 = (kappa**2 + 1) ** (1 / theta) * 1.01
    v = dict(t=t, theta=theta, kappa=kappa, M=M, t0=t0)
    assert registry.value("jcc.eq17", dict(v, t=t + 1)) <= registry.value("jcc.eq17", v)
    # (12) equals (17) divided by κ: too small exactly when κ > 1
    ratio = registry.value("jcc.thm1.C_t", v, which="stated") / registry.value("jcc.eq17", v)
    assert ratio == pytest.approx(1 / kappa)


@SET
@given(eps=small, m=st.integers(10, 10**7), beta=st.floats(0.05, 1.0))
def test_theorem4_bound_positive_and_decreasing_in_m(eps, m, beta) -> None:
    c = dict(B0=1, Omega0=0.3, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=beta, lam=0.01, eps=eps)
    a = registry.value("jia.thm4.bound", dict(c, m=m))
    b = registry.value("jia.thm4.bound", dict(c, m=m * 2))
    assert 0 < b < a


@SET
@given(m=st.integers(2, 10**7), r=st.floats(0.01, 3.0), M=pos, kappa=st.floats(0.2, 3.0), fnorm=pos)
def test_jamp_rate_bounds_decrease(m, r, M, kappa, fnorm) -> None:
    c = dict(M=M, kappa=kappa, r=r, fnorm=fnorm)
    assert registry.value("jamp.thm3", dict(c, m=m + 1)) < registry.value("jamp.thm3", dict(c, m=m))
