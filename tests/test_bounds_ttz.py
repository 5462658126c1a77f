"""Tests of bounds.papers.ttz (seed 002, Talwar, Thakurta & Zhang).

Expected values are typed from the formulas (reference file for seed 002) with plain ``math``; derived
forms are written out from the derivations described in the module (comments give the arithmetic).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special, stats

import bounds
from bounds.core import STATUSES
from bounds.papers import ttz as ttz

REG = bounds.registry
KEYS = [k for k in REG.keys() if k.startswith("ttz.")]
ORDER = ttz.ORDER_KIND if ttz.ORDER_KIND in STATUSES else "consistent"

EXPECTED_STATUS = {
    "ttz.def2_1": "premise",
    "ttz.gw.def": "premise",
    "ttz.gw.l2": "consistent",
    "ttz.gw.l1": "cited",
    "ttz.gw.simplex": "cited",
    "ttz.gw.polytope": "cited",
    "ttz.gw.group": "cited",
    "ttz.gw.nuclear": "cited",
    "ttz.md.sens": "consistent",
    "ttz.md.sigma.zcdp": "cited",
    "ttz.md.sigma": ORDER,
    "ttz.thm3_1": "cited",
    "ttz.thm3_2.explicit": "consistent",
    "ttz.thm3_2": ORDER,
    "ttz.eq10": ORDER,
    "ttz.eq11": ORDER,
    "ttz.eq11.l1": ORDER,
    "ttz.eq11.simplex": ORDER,
    "ttz.eq12": ORDER,
    "ttz.eq13": ORDER,
    "ttz.thmA": ORDER,
    "ttz.fw.sens": "consistent",
    "ttz.fw.rnm": "cited",
    "ttz.fw.adv_comp": "cited",
    "ttz.fw.scale": "erratum",
    "ttz.fw.privacy": "erratum",      # the printed scale composes to 2.07ε,
    "ttz.fw.noise_err": "consistent",
    "ttz.fw.curvature": "cited",
    "ttz.fw.lasso_curv": "consistent",
    "ttz.fw.init_gap": "consistent",
    "ttz.fw.utility.explicit": "cited",
    "ttz.fw.T_schedule": "consistent",
    "ttz.fw.lasso_explicit": "consistent",
    "ttz.thm1_2": ORDER,
    "ttz.thm1_2.lasso": ORDER,
    "ttz.thm1_3": ORDER,
    "ttz.table1": ORDER,
}

SETTINGS = settings(max_examples=30, deadline=None)


@pytest.fixture(scope="module")
def evals():
    return {k: REG.evaluate(k) for k in KEYS}


def test_every_statement_has_an_expected_status(evals):
    assert set(KEYS) == set(EXPECTED_STATUS)
    got = {k: ev.status for k, ev in evals.items()}
    assert got == EXPECTED_STATUS


def test_docs_cite_seed_label_and_equation():
    for k in KEYS:
        s = REG.get(k)
        assert s.doc.startswith(f"002_9f0d50e873e3e787.txt, {s.label}, "), k
        assert s.equation, k


# --------------------------------------------------------------------------- values
def fw_scale_printed(L1, C1, T, n, eps, delta):
    return L1 * C1 * math.sqrt(8 * T * math.log(1 / delta)) / (n * eps)


def test_fw_scale_erratum_value():
    v = dict(L1=4, C1=1, T=100, n=1000, eps=0.5, delta=1e-6)
    assert bounds.value("ttz.fw.scale", which="stated", **v) == pytest.approx(fw_scale_printed(**v), rel=1e-12)
    # derived: Δ = 2L₁C₁/n = 0.008, ε₀ = ε/√(8T ln 1/δ), λ = 2Δ/ε₀ = 4 × printed
    eps0 = 0.5 / math.sqrt(8 * 100 * math.log(1e6))
    assert bounds.value("ttz.fw.scale", **v) == pytest.approx(2 * 0.008 / eps0, rel=1e-12)
    ev = REG.evaluate("ttz.fw.scale")
    # a proof gap (severity gap), see test_referee_ttz_jcc_cms; the derived 4× is named, but the detail leads with
    # the smallest correction (issue 34 item 3), not with the sufficient factor
    assert "printed/derived = 1/4, sympy" in ev.detail
    assert ev.detail.index("λ × 1.512") < ev.detail.index("λ × 2.036") < ev.detail.index("1/4")


def test_fw_privacy_with_the_printed_scale_is_about_2eps():
    # per-step loss 2Δ/λ = 4ε₀; advanced composition: √(2T ln 1/δ)·4ε₀ + T·4ε₀(e^{4ε₀} − 1)
    eps, delta, T = 0.5, 1e-6, 100
    e0 = 4 * eps / math.sqrt(8 * T * math.log(1 / delta))
    total = math.sqrt(2 * T * math.log(1 / delta)) * e0 + T * e0 * math.expm1(e0)
    assert 2.0 < total / eps < 2.2
    assert f"{total:.3f}" in REG.evaluate("ttz.fw.privacy").detail
    # with the derived scale the composition is within ε
    assert bounds.value("ttz.fw.privacy", which="derived", eps=eps, delta=delta, T=T) <= eps
    e0d = eps / math.sqrt(8 * T * math.log(1 / delta))
    want = math.sqrt(2 * T * math.log(1 / delta)) * e0d + T * e0d * math.expm1(e0d)
    assert REG.evaluate("ttz.fw.privacy").derived.subs(
        {ttz.eps: eps, ttz.delta: delta, ttz.T: T}).evalf() == pytest.approx(want, rel=1e-10)


def test_sigma_zcdp_value():
    L, n, T, eps, delta = 1.0, 1000, 100, 0.9, 1e-5
    rho = (math.sqrt(math.log(1 / delta) + eps) - math.sqrt(math.log(1 / delta))) ** 2
    want = T * (2 * L / n) ** 2 / (2 * rho)
    assert bounds.value("ttz.md.sigma.zcdp", L2=L, n=n, T=T, eps=eps, delta=delta) == pytest.approx(want, rel=1e-12)
    # and the composition gives back exactly ε
    r = T * (2 * L / n) ** 2 / (2 * want)
    assert r + 2 * math.sqrt(r * math.log(1 / delta)) == pytest.approx(eps, rel=1e-10)


def test_fw_lasso_explicit_value():
    T, n, eps, delta, p = 200, 10**5, 0.5, 1e-8, 5
    lam = 4 * 4 * 1 * math.sqrt(8 * T * math.log(1 / delta)) / (n * eps)
    want = 2 * lam * (1 + math.log(2 * p)) + (4 * 4 + 2 * 8 * (T - 1)) / (T * (T + 1))
    assert bounds.value("ttz.fw.lasso_explicit", T=T, n=n, eps=eps, delta=delta, p=p) == pytest.approx(want, rel=1e-12)


def test_md_explicit_value():
    D2, Ls, s, G, r, T = 0.5, 1.0, 0.3, 3.0, 1.0, 50
    want = 2 * math.sqrt(D2 * (Ls**2 + s**2 * (G**2 + r**2)) / T)
    got = bounds.value("ttz.thm3_2.explicit", D_psi2=D2, L_star=Ls, sigma_md=s, G_C=G, r_Q=r, T=T)
    assert got == pytest.approx(want, rel=1e-12)


def test_T_schedule_value():
    assert bounds.value("ttz.fw.T_schedule", Gamma_L=8, n=1000, eps=0.5, L1=4, C1=1) == pytest.approx(100.0)


def test_width_values():
    assert bounds.value("ttz.gw.l1", p=10) == pytest.approx(math.sqrt(2 * math.log(20)))
    assert bounds.value("ttz.gw.nuclear", p1=4, p2=9) == pytest.approx(5.0)
    # exact widths
    assert float(ttz.chi_mean(3)) == pytest.approx(2 * math.sqrt(2 / math.pi), rel=1e-12)
    assert ttz.expected_max_abs_gaussian(1) == pytest.approx(math.sqrt(2 / math.pi), rel=1e-8)
    assert ttz.expected_max_gaussian(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-8)  # E max(g1, g2)
    assert ttz.expected_max_chi(1, 1) == pytest.approx(math.sqrt(2 / math.pi), rel=1e-8)


def test_rnm_exact_ratio_against_monte_carlo():
    rng = np.random.default_rng(0)
    X = rng.laplace(0, 1.0, (400_000, 2))
    z = 1.0
    p0 = np.mean(X[:, 1] - X[:, 0] > z)
    p1 = np.mean(X[:, 1] - X[:, 0] > z + 2.0)
    assert ttz.rnm_exact_ratio(z, 1.0, 1.0) == pytest.approx(p0 / p1, rel=0.05)


def test_lasso_curvature_brute_force():
    rng = np.random.default_rng(3)
    X = rng.uniform(-1, 1, (30, 4))
    A = X.T @ X / 30
    best = 0.0
    for i in range(4):
        for j in range(4):
            for si in (-1, 1):
                for sj in (-1, 1):
                    u = np.zeros(4)
                    u[i] += si
                    u[j] -= sj
                    best = max(best, 2 * u @ A @ u)
    assert ttz.lasso_curvature(X) == pytest.approx(best, rel=1e-12)


def test_noise_err_harmonic():
    rng = np.random.default_rng(1)
    Z = rng.laplace(0, 2.0, (200_000, 7))
    H7 = sum(1 / i for i in range(1, 8))
    assert np.mean(np.abs(Z).max(axis=1)) == pytest.approx(2.0 * H7, rel=0.01)
    assert bounds.value("ttz.fw.noise_err", lam_noise=2.0, k_vert=7) == pytest.approx(4 * (1 + math.log(7)))


# --------------------------------------------------------------------------- properties
@SETTINGS
@given(n=st.integers(10, 10**6), eps=st.floats(0.01, 0.99), T=st.integers(1, 10**4),
       delta=st.floats(1e-12, 0.5))
def test_fw_scale_is_four_times_printed(n, eps, T, delta):
    v = dict(L1=4.0, C1=1.0, T=T, n=n, eps=eps, delta=delta)
    assert bounds.value("ttz.fw.scale", **v) == pytest.approx(4 * fw_scale_printed(**v), rel=1e-9)


@SETTINGS
@given(n=st.integers(100, 10**7), p=st.integers(1, 10**4))
def test_fw_lasso_bound_decreases_in_n_with_schedule(n, p):
    def at(nn):
        T = max(2, math.ceil((2 * nn * 0.5) ** (2 / 3)))
        return bounds.value("ttz.fw.lasso_explicit", T=T, n=nn, eps=0.5, delta=1e-8, p=p)

    assert at(8 * n) < at(n)


@SETTINGS
@given(s=st.floats(0.0, 10.0), G=st.floats(0.1, 100.0), T=st.integers(1, 1000))
def test_md_explicit_is_min_over_eta(s, G, T):
    D2, Ls, r = 1.3, 0.7, 1.0
    A = Ls**2 + s**2 * (G**2 + r**2)
    etas = np.logspace(-6, 3, 2000)
    best = np.min(D2 / (etas * T) + etas * A)
    got = bounds.value("ttz.thm3_2.explicit", D_psi2=D2, L_star=Ls, sigma_md=max(s, 1e-9), G_C=G, r_Q=r, T=T)
    assert got <= best * (1 + 1e-9)
    assert got >= best * (1 - 1e-2)


def test_gaussian_widths_bounded_by_closed_forms():
    for pp in (1, 2, 7, 50, 500):
        assert ttz.expected_max_abs_gaussian(pp) <= math.sqrt(2 * math.log(2 * pp))
        assert float(ttz.chi_mean(pp)) <= math.sqrt(pp)
    # E max g_i via order statistics: compare with scipy's numerical moment at p = 5
    x = np.linspace(-10, 10, 200_001)
    dens = 5 * stats.norm.pdf(x) * stats.norm.cdf(x) ** 4
    assert ttz.expected_max_gaussian(5) == pytest.approx(float(np.trapezoid(x * dens, x)), rel=1e-6)
    assert special.gammaln(1.0) == 0.0


# --------------------------------------------------------------------------- findings
def test_erratum_is_pinned():
    errata = sorted(k for k, ev in {k: REG.evaluate(k) for k in KEYS}.items() if ev.status == "erratum")
    assert errata == ["ttz.fw.privacy", "ttz.fw.scale"]


def test_rates_of_order_statements():
    det = REG.evaluate("ttz.thm1_2.lasso").detail
    assert "lim log(bound)/log(n) = -2/3" in det
    assert "lim log(bound)/log(p) = 0" in REG.evaluate("ttz.eq11.l1").detail
    assert "lim log(bound)/log(p) = 1/2" in REG.evaluate("ttz.eq10").detail


def test_table1_render():
    md = ttz.table1_markdown({"ttz.thm1_2.lasso": "measured!"})
    assert md.count("\n") == len(ttz.TABLE1) + 1
    assert "measured!" in md


@pytest.mark.parametrize("pp", [1, 7, 1e3, 1e6, 7.969e8, 1e12])
def test_chi_mean_matches_high_precision(pp):
    """E‖g‖₂ = √2 Γ((p+1)/2)/Γ(p/2) against a 40-digit mpmath evaluation, also where a gammaln difference fails."""
    import mpmath

    from bounds.papers.ttz import chi_mean

    with mpmath.workdps(40):
        exact = mpmath.sqrt(2) * mpmath.gamma((mpmath.mpf(pp) + 1) / 2) / mpmath.gamma(mpmath.mpf(pp) / 2)
    assert float(chi_mean(pp)) == pytest.approx(float(exact), rel=1e-9)   # the tolerance of the inequality checks


# --------------------------------------------------------------------------- tight calibrations
def _adv_eps0(eps, delta, T):
    """ε₀ of Dwork & Roth Cor. 3.21, the per-step loss of the derived scale."""
    return eps / math.sqrt(8 * T * math.log(1 / delta))


@pytest.mark.parametrize("n,eps,delta,T,lo,hi", [
    (20, 0.5, 1e-5, 8, 3.3, 3.5),          # the audit setting (small T: close to basic composition ε/T)
    (20000, 0.5, 1e-8, 737, 2.4, 2.55),    # the simulation setting
])
def test_fw_scale_tight(n, eps, delta, T, lo, hi):
    from bounds.accounting import pld_epsilon, tight_pure_step_eps

    lam = ttz.fw_scale_tight(4, 1, T, n, eps, delta)
    Delta = 2 * 4 * 1 / n
    e0 = tight_pure_step_eps(eps, delta, T)
    assert lam == pytest.approx(2 * Delta / e0, rel=1e-12)          # report-noisy-min: ε₀ = 2Δ/λ
    assert pld_epsilon([("pure", 2 * Delta / lam, T)], delta, discretization=2 * Delta / lam) <= eps * (1 + 1e-12)
    derived = 4 * fw_scale_printed(4, 1, T, n, eps, delta)
    assert derived == pytest.approx(2 * Delta / _adv_eps0(eps, delta, T), rel=1e-12)
    assert lo < derived / lam < hi
    assert lam > fw_scale_printed(4, 1, T, n, eps, delta)            # the printed scale stays below even this


@pytest.mark.parametrize("T", [1, 20, 200])
def test_md_sigma_tight_ratio(T):
    from bounds.accounting import gaussian_sigma

    L, n, eps, delta = 1.0, 200, 1.0, 1e-5
    s = ttz.md_sigma_tight(L, n, T, eps, delta)
    zcdp = math.sqrt(REG.value("ttz.md.sigma.zcdp", dict(L2=L, n=n, T=T, eps=eps, delta=delta), warn=False))
    assert zcdp / s == pytest.approx(1.3136, abs=2e-4)                # the 1.31, for every T
    assert s == pytest.approx(gaussian_sigma(eps, delta, 2 * L / n) * math.sqrt(T), rel=1e-5)


def test_calibration_rows():
    from bounds.accounting import pld_epsilon

    assert ttz.PAPER.calibrations is ttz.calibration_rows
    fw, md = ttz.PAPER.calibrations()
    keys = {"key", "mechanism", "setting", "noise", "stated", "derived", "tight", "accountant", "saving", "bound",
            "eps_for_target"}
    assert keys <= set(fw) and keys <= set(md)
    assert set(fw["bound"]) == set(md["bound"]) == set(fw["eps_for_target"]) == {"stated", "derived", "tight"}
    # Frank–Wolfe at n = 20000, p = 5, ε = 0.5, δ = 1e-8, T = ⌈20000^{2/3}⌉ = 737
    T, n, eps, delta = 737, 20000, 0.5, 1e-8
    assert fw["key"] == "ttz.fw.scale" and "T = 737" in fw["setting"] and "δ = 1e-8" in fw["setting"]
    assert fw["stated"] == pytest.approx(fw_scale_printed(4, 1, T, n, eps, delta), rel=1e-12)
    assert fw["derived"] == pytest.approx(4 * fw["stated"], rel=1e-12)
    assert fw["tight"] == pytest.approx(ttz.fw_scale_tight(4, 1, T, n, eps, delta), rel=1e-12)
    assert fw["saving"] == pytest.approx(fw["derived"] / fw["tight"], rel=1e-12)
    for cal, lam in (("stated", fw["stated"]), ("derived", fw["derived"]), ("tight", fw["tight"])):
        want = 2 * lam * (1 + math.log(10)) + (16 + 16 * (T - 1)) / (T * (T + 1))
        assert fw["bound"][cal] == pytest.approx(want, rel=1e-12)
    # ε pick: the tight calibration at that ε reproduces the derived scale (same bound); stated: ε/4
    e_t = fw["eps_for_target"]["tight"]
    assert fw["eps_for_target"]["derived"] == eps and fw["eps_for_target"]["stated"] == pytest.approx(eps / 4)
    assert e_t < eps
    assert ttz.fw_scale_tight(4, 1, T, n, e_t, delta) == pytest.approx(fw["derived"], rel=1e-6)
    # mirror descent at n = 200, p = 8, ε = 1, δ = 1e-8, T = 200, L = 1 (zCDP σ)
    rho = (math.sqrt(math.log(1e8) + 1) - math.sqrt(math.log(1e8))) ** 2
    s_der = math.sqrt(200 * (2 / 200) ** 2 / (2 * rho))
    assert md["key"] == "ttz.md.sigma.zcdp" and md["stated"] is None and md["bound"]["stated"] is None
    assert md["derived"] == pytest.approx(s_der, rel=1e-12)
    assert md["tight"] < md["derived"]
    assert pld_epsilon([("gaussian", md["tight"], 2 / 200, 200)], 1e-8) <= 1.0
    G = float(ttz.chi_mean(8))
    for cal in ("derived", "tight"):
        want = 2 * math.sqrt(0.5 * (1 + md[cal] ** 2 * (G**2 + 1)) / 200)
        assert md["bound"][cal] == pytest.approx(want, rel=1e-12)
    assert md["bound"]["tight"] < md["bound"]["derived"]
    assert ttz.md_sigma_tight(1.0, 200, 200, md["eps_for_target"]["tight"], 1e-8) == pytest.approx(s_der, rel=1e-5)


def test_calibration_rows_fast_and_not_shared():
    import time

    ttz._calibration_rows.cache_clear()
    t = time.perf_counter()
    rows = ttz.PAPER.calibrations()
    assert time.perf_counter() - t < 5.0        # measured ≈ 0.5 s (after the dp-accounting import)
    rows[0]["tight"] = -1.0
    assert ttz.PAPER.calibrations()[0]["tight"] > 0
