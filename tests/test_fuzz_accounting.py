"""Fuzzing :mod:`bounds.accounting` against independent arbitrary-precision computations (mpmath).

Every public function, at random points across its whole range (log-uniform over 1e-300 … 1e300
where the result stays in the float range), returns a finite value that is *correct* — checked
against a reference computed from the defining formula in mpmath, at a precision raised until two
precisions agree — and *rounded toward privacy*: a returned ε (or σ) never lies below the exact
value (the exact δ at the returned ε is ≤ δ), a returned ε₀ never above it.  The points are drawn
by hypothesis, derandomized (conftest: profile ``ci``), so a failure reproduces exactly.

References (none shares code with the module):

* Gaussian δ(ε) = ½erfc((ε/μ − μ/2)/√2) − ½e^ε erfc((ε/μ + μ/2)/√2) (Balle & Wang 2018, Thm 8).
* T-fold ε₀-randomised response: δ(ε) = Σ_i C(T, i)(e^{(T−i)ε₀} − e^{ε+iε₀})₊/(1 + e^{ε₀})^T
  (Kairouz, Oh & Viswanath 2015).
* Compositions with one Gaussian or one Laplace step: δ(ε) = E_k[δ_G(ε − ℓ_k)] over the
  randomised-response losses ℓ_k (the hockey-stick divergence of a product is the expectation of
  the other factor's at the shifted ε); δ_Lap(ε) = 1 − e^{(ε−μ)/2} on |ε| ≤ μ, 1 − e^ε below −μ,
  0 above μ (μ = Δ/b).
"""

from __future__ import annotations

import math

import mpmath as mp
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bounds import accounting as A

mp.mp.dps = 50  # the comparisons themselves (δ at the returned ε against δ) run at 50 digits

# --------------------------------------------------------------------------- references
def _stable(f, dps: int = 30, limit: int = 4000) -> mp.mpf:
    """f() at increasing precision until two precisions agree to 1e-20 relative (a 0, the mark
    of complete cancellation, only at the last precision)."""
    prev = None
    while dps <= limit:
        with mp.workdps(dps):
            cur = f()
        if prev is not None and cur != 0 and abs(cur - prev) <= abs(cur) * mp.mpf(10) ** -20:
            return +cur
        prev, dps = cur, dps * 2
    if cur == 0:
        return cur
    raise AssertionError("reference did not converge")  # pragma: no cover


def erfc_mp(z: mp.mpf) -> mp.mpf:
    """erfc; beyond 1e100 (mpmath's erfc overflows from ~1.3e154) by e^{−z²}/(z√π)·(1 − 1/(2z²)),
    exact there to 1e-200 relative."""
    if z > mp.mpf(10) ** 100:
        return mp.exp(-z * z) / (z * mp.sqrt(mp.pi)) * (1 - 1 / (2 * z * z))
    return mp.erfc(z)


def gauss_delta_mp(eps, sigma=None, sens=1.0, mu=None) -> mp.mpf:
    """Balle & Wang's δ(ε) in mpmath (erfc form: the relative precision of each term is kept)."""

    def f():
        m = mp.mpf(sens) / mp.mpf(sigma) if mu is None else mp.mpf(mu)
        e = mp.mpf(eps)
        return erfc_mp((e / m - m / 2) / mp.sqrt(2)) / 2 - mp.exp(e) * erfc_mp((e / m + m / 2) / mp.sqrt(2)) / 2

    # the two terms cancel to a relative μ/x (x = ε/μ − μ/2): start with enough digits to hold
    # μ/2 next to ε/μ, else both erfc arguments round to the same number at every precision
    with mp.workdps(30):
        m = mp.mpf(sens) / mp.mpf(sigma) if mu is None else mp.mpf(mu)
        start = 40 + (int(abs(mp.log10(2 * mp.mpf(eps) / (m * m)))) if eps > 0 else 0)
    return _stable(f, dps=start, limit=max(4000, 4 * start))


def rr_delta_mp(eps, eps0, T: int, shifted=None) -> mp.mpf:
    """δ(ε) of T-fold ε₀-randomised response composed with a mechanism of δ-function ``shifted``
    (None: nothing), in mpmath: Σ_i C(T, i) q^i p^{T−i} · δ_other(ε − (T − 2i)ε₀)."""

    def f():
        e, e0 = mp.mpf(eps), mp.mpf(eps0)
        lq = -mp.log1p(mp.exp(e0))
        lp = lq + e0
        tot = mp.mpf(0)
        for i in range(T + 1):
            loss = (T - 2 * i) * e0
            w = mp.binomial(T, i) * mp.exp(i * lq + (T - i) * lp)
            if shifted is None:
                if loss > e:
                    tot += w * -mp.expm1(e - loss)
            else:
                tot += w * shifted(e - loss)
        return tot

    with mp.workdps(50):  # a sum of positive terms: no cancellation
        return f()


def lap_delta_mp(mu):
    mu = mp.mpf(mu)

    def d(e):
        if e >= mu:
            return mp.mpf(0)
        if e <= -mu:
            return -mp.expm1(e)
        return -mp.expm1((e - mu) / 2)

    return d


def log_uniform(lo: float, hi: float):
    return st.floats(min_value=lo, max_value=hi).map(lambda t: 10.0**t)


FUZZ = settings(max_examples=60, deadline=None)


# --------------------------------------------------------------------------- exact Gaussian
@FUZZ
@given(eps=st.one_of(st.just(0.0), log_uniform(-300, 300)), sigma=log_uniform(-300, 300),
       sens=log_uniform(-5, 5))
def test_gaussian_delta_within_its_error_bound(eps, sigma, sens):
    lm, lm_err = A._ln_mu(sigma, sens)
    val, err = A._gauss_log_delta(eps, lm, lm_err)
    if val == -math.inf:  # ln δ below the float range: ln δ ≤ ln Φ(−x) < −x²/2, x = ε/μ − μ/2
        with pytest.raises(ValueError, match="'eps'"):
            A.log_gaussian_delta(eps, sigma, sens)
        assert A.gaussian_delta(eps, sigma, sens) == 0.0
        with mp.workdps(50):
            mu = mp.mpf(sens) / mp.mpf(sigma)
            x = mp.mpf(eps) / mu - mu / 2
            assert x > 0 and x * x / 2 > 1.7976931348623157e308
        return
    ref = gauss_delta_mp(eps, sigma, sens)
    assert val == A.log_gaussian_delta(eps, sigma, sens)
    lref = float(mp.log(ref))
    # the stated error bound holds, and it is small (≤ 1e-9 relative to ln δ, or 1e-12 absolute)
    assert abs(val - lref) <= err + 1e-300
    assert err <= 1e-9 * abs(lref) + 1e-11
    d = A.gaussian_delta(eps, sigma, sens)
    assert math.isfinite(d) and 0 <= d <= 1


@FUZZ
@given(sigma=log_uniform(-150, 300), delta=st.one_of(log_uniform(-300, -0.01), st.floats(0.5, 1 - 1e-12)),
       sens=log_uniform(-3, 3))
def test_gaussian_eps_certified_and_tight(sigma, delta, sens):
    try:
        e = A.gaussian_eps(sigma, delta, sens)
    except ValueError as exc:  # only beyond the float range: ε ≈ μ²/2 > 1.8e308
        assert "'sigma'" in str(exc) and sens / sigma > 1e154
        return
    assert math.isfinite(e) and e >= 0
    assert gauss_delta_mp(e, sigma, sens) <= delta                          # never below the exact ε
    if e > 0:
        assert gauss_delta_mp(e * (1 - 1e-9), sigma, sens) > delta          # and within 1e-9 of it


@FUZZ
@given(eps=st.one_of(st.just(0.0), log_uniform(-300, 300)), delta=log_uniform(-300, -0.01),
       sens=log_uniform(-100, 100))
def test_gaussian_sigma_certified_and_tight(eps, delta, sens):
    try:
        s = A.gaussian_sigma(eps, delta, sens)
    except ValueError as exc:  # σ beyond the float range
        assert "'eps'" in str(exc)
        return
    assert math.isfinite(s) and s > 0
    assert gauss_delta_mp(eps, s, sens) <= delta                            # never below the exact σ
    if s > 1e-300:
        assert gauss_delta_mp(eps, s * (1 - 1e-9), sens) > delta


# --------------------------------------------------------------------------- compositions
@FUZZ
@given(sigma=log_uniform(-2, 3), T=st.integers(1, 10**9), delta=log_uniform(-300, -0.01),
       sigma2=log_uniform(-1, 2))
def test_composed_gaussians_never_below_exact(sigma, T, delta, sigma2):
    steps = [("gaussian", sigma, 1.0, T), ("gaussian", sigma2, 2.0, 1)]
    try:
        e = A.pld_epsilon(steps, delta)
    except ValueError as exc:
        assert "'sigma'" in str(exc)
        return
    mu = mp.sqrt(mp.mpf(T) / mp.mpf(sigma) ** 2 + 4 / mp.mpf(sigma2) ** 2)
    assert gauss_delta_mp(e, mu=mu) <= delta
    if e > 0:
        assert gauss_delta_mp(e * (1 - 1e-9), mu=mu) > delta


@FUZZ
@given(eps0=log_uniform(-6, 3), T=st.integers(1, 300), delta=log_uniform(-300, -0.01))
def test_composed_pure_steps_never_below_exact(eps0, T, delta):
    e = A.pld_epsilon([("pure", eps0, T)], delta)
    assert math.isfinite(e) and 0 <= e <= T * eps0 * (1 + 1e-15)
    assert rr_delta_mp(e, eps0, T) <= delta
    if e > 0:
        assert rr_delta_mp(e * (1 - 1e-9), eps0, T) > delta


@FUZZ
@given(eps0=log_uniform(-3, 1), T=st.integers(1, 200), delta0=log_uniform(-12, -4), delta=log_uniform(-3, -0.5))
def test_composed_approx_steps_never_below_exact(eps0, T, delta0, delta):
    e = A.pld_epsilon([("approx", eps0, delta0, T)], delta)
    keep = (1 - mp.mpf(delta0)) ** T
    if 1 - keep > delta:
        assert e == math.inf
        return
    assert math.isfinite(e)
    assert (1 - keep) + keep * rr_delta_mp(e, eps0, T) <= delta
    if e > 0:
        assert (1 - keep) + keep * rr_delta_mp(e * (1 - 1e-9), eps0, T) > delta


@settings(max_examples=20, deadline=None)
@given(eps0=log_uniform(-2, 0.5), T=st.integers(1, 12), mu=log_uniform(-1, 0.7), delta=log_uniform(-9, -2),
       kind=st.sampled_from(["gaussian", "laplace"]))
def test_mixed_compositions_never_below_exact(eps0, T, mu, delta, kind):
    # a mixture goes through dp-accounting (pessimistic; the FFT round-off bound, ≤ 21u·log₂N·√N per
    # convolution, is subtracted from δ first)
    steps = [("pure", eps0, T), (kind, 1.0, mu, 1)]
    e = A.pld_epsilon(steps, delta)
    assert math.isfinite(e)
    other = (lambda x: gauss_delta_mp(x, mu=mu)) if kind == "gaussian" else lap_delta_mp(mu)
    assert rr_delta_mp(e, eps0, T, shifted=other) <= delta
    # and reasonably tight: within 2 grid intervals (1e-4) per step of the exact ε at δ/2 (the
    # round-off bound, ~4e-11 here, is at most half of δ; beyond, basic composition takes over)
    lo = e - (T + 2) * 2e-4
    assert lo <= 0 or rr_delta_mp(lo, eps0, T, shifted=other) > delta / 2


@settings(max_examples=20, deadline=None)
@given(e1=log_uniform(-2, 0.3), e2=log_uniform(-2, 0.3), t1=st.integers(1, 20), t2=st.integers(1, 20),
       delta=log_uniform(-9, -2))
def test_distinct_pure_steps_never_below_exact(e1, e2, t1, t2, delta):
    e = A.pld_epsilon([("pure", e1, t1), ("pure", e2, t2)], delta)
    if e1 == e2:
        return
    assert rr_delta_mp(e, e1, t1, shifted=lambda x: rr_delta_mp_inner(x, e2, t2)) <= delta


def rr_delta_mp_inner(eps, eps0, T):
    # δ of randomised response at any real ε (also ε < 0, where the (·)₊ form still holds)
    e, e0 = mp.mpf(eps), mp.mpf(eps0)
    lq = -mp.log1p(mp.exp(e0))
    tot = mp.mpf(0)
    for i in range(T + 1):
        loss = (T - 2 * i) * e0
        if loss > e:
            tot += mp.binomial(T, i) * mp.exp(i * lq + (T - i) * (lq + e0)) * -mp.expm1(e - loss)
    return tot


# --------------------------------------------------------------------------- calibrations
@settings(max_examples=30, deadline=None)
@given(eps=log_uniform(-3, 3), T=st.integers(1, 300), delta=log_uniform(-200, -0.5))
def test_tight_pure_step_eps_certified_and_largest(eps, T, delta):
    e0 = A.tight_pure_step_eps(eps, delta, T, rtol=0.0)
    assert math.isfinite(e0) and e0 >= eps / T * (1 - 1e-15)
    assert rr_delta_mp(eps, e0, T) <= delta                        # certified by the exact composition
    assert rr_delta_mp(eps, e0 * (1 + 1e-9), T) > delta or T * e0 * (1 + 1e-9) <= eps * (1 + 1e-12)


@FUZZ
@given(eps=log_uniform(-3, 4), T=st.integers(1, 10**12), delta=log_uniform(-300, -0.5), sens=log_uniform(-5, 5))
def test_tight_gaussian_sigma_certified_and_smallest(eps, T, delta, sens):
    s = A.tight_gaussian_sigma(eps, delta, T, sens)
    assert math.isfinite(s) and s > 0
    mu = mp.sqrt(T) * mp.mpf(sens) / mp.mpf(s)
    assert gauss_delta_mp(eps, mu=mu) <= delta
    assert gauss_delta_mp(eps, mu=mu / (1 - mp.mpf(1e-9))) > delta
