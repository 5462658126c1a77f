"""``bounds.noise`` and ``python -m bounds noise``: the plain Gaussian and Laplace mechanisms for (ε, δ) after
T releases, and the zCDP → (ε, δ) conversion of ``bounds.accounting`` (Canonne, Kamath & Steinke 2020).

Cross-checked against dp-accounting's PLD and RDP accountants (independent implementations), the
closed forms of the Laplace mechanism and of advanced composition, and a brute-force grid of the
conversion formula."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bounds import accounting as acc
from bounds import noise
from bounds.cli import main as cli_main


# --------------------------------------------------------------------------- Gaussian
def test_gaussian_at_1000_compositions_matches_dp_accounting_pld():
    from dp_accounting.pld import privacy_loss_distribution as pld

    g = noise.gaussian(1.0, 1.0, 1e-6, compositions=1000)
    assert g.sigma == pytest.approx(133.596077, abs=5e-7)          # the verified value
    assert g.variance == pytest.approx(g.sigma**2)
    assert g.eps_certified <= 1.0

    def pld_eps(sigma: float) -> float:   # dp-accounting composes the 1000 steps itself (FFT), pessimistic
        d = pld.from_gaussian_mechanism(sigma, sensitivity=1.0, pessimistic_estimate=True,
                                        value_discretization_interval=1e-3).self_compose(1000)
        return d.get_epsilon_for_delta(1e-6)

    assert pld_eps(g.sigma) == pytest.approx(1.0, abs=5e-3)           # its grid adds ≤ 1.6e-3 here
    assert pld_eps(g.sigma * 0.98) > 1.0                               # 2 % less noise: not (1, 1e-6)-DP


def test_gaussian_rdp_accountant_is_looser_and_zcdp_rows_are_in_order():
    from dp_accounting import dp_event, rdp

    g = noise.gaussian(2.0, 0.5, 1e-5, compositions=50)
    ex, cks, bs = g.rows
    assert (ex.name, ex.recommended) == ("exact", True) and not cks.recommended
    assert ex.scale < cks.scale < bs.scale                           # exact < optimal conversion < Bun & Steinke
    assert ex.eps_certified <= 0.5 and cks.eps_certified < 0.5 and bs.eps_certified < cks.eps_certified
    # the zCDP row is what its conversion certifies: ρ = TΔ²/(2σ²) converts to exactly ε
    rho = 50 * 2.0**2 / (2 * cks.scale**2)
    assert acc.zcdp_eps(rho, 1e-5) == pytest.approx(0.5, rel=1e-9)
    # dp-accounting's RDP accountant (Gaussian RDP α/(2σ²) per step, the same optimal conversion, a finite
    # order grid) at the exact σ certifies more than ε; at the zCDP-converted σ about ε
    a = rdp.RdpAccountant(orders=list(np.linspace(1.02, 200, 4000)))
    a.compose(dp_event.GaussianDpEvent(ex.scale / 2.0), 50)
    assert a.get_epsilon(1e-5) > 0.5
    a = rdp.RdpAccountant(orders=list(np.linspace(1.02, 200, 40000)))
    a.compose(dp_event.GaussianDpEvent(cks.scale / 2.0), 50)
    assert a.get_epsilon(1e-5) == pytest.approx(0.5, rel=1e-4)


def test_gaussian_scales_with_sensitivity_and_sqrt_t():
    a = noise.gaussian(1.0, 1.0, 1e-5).sigma
    assert noise.gaussian(3.0, 1.0, 1e-5).sigma == pytest.approx(3 * a, rel=1e-12)
    assert noise.gaussian(1.0, 1.0, 1e-5, compositions=16).sigma == pytest.approx(4 * a, rel=1e-12)


# --------------------------------------------------------------------------- Laplace
def test_laplace_closed_forms():
    one = noise.laplace(2.0, 0.5)
    assert one.scale == 4.0 and one.eps_certified == 0.5 and one.variance == 32.0
    assert [r.name for r in one.rows] == ["basic"]
    assert noise.laplace(1.0, 1.0, compositions=10).scale == 10.0          # δ = 0: basic composition TΔ/ε


def test_laplace_tight_beats_advanced_composition_and_dp_accounting_certifies_it():
    from dp_accounting.pld import privacy_loss_distribution as pld

    eps, delta, T = 1.0, 1e-6, 20
    c = noise.laplace(1.0, eps, delta, compositions=T)
    rows = {r.name: r for r in c.rows}
    assert c.best.name == "Laplace PLD" and c.scale < rows["tight"].scale < rows["basic"].scale == T / eps
    assert all(r.eps_certified <= eps for r in c.rows)
    e0 = 1.0 / rows["tight"].scale
    # advanced composition (Dwork, Rothblum & Vadhan; Kairouz et al.): ε = √(2T ln 1/δ)ε₀ + Tε₀(e^ε₀ − 1)
    adv = math.sqrt(2 * T * math.log(1 / delta)) * e0 + T * e0 * math.expm1(e0)
    assert adv > eps                                      # the certified ε₀ is more than advanced composition gives
    for b, lim in ((rows["tight"].scale, eps), (c.scale, eps * (1 + 1e-3))):
        d = pld.from_laplace_mechanism(b, sensitivity=1.0, pessimistic_estimate=True,
                                       value_discretization_interval=1e-4).self_compose(T)
        assert d.get_epsilon_for_delta(delta) <= lim      # dp-accounting on a finer grid agrees (its grid: ±1e-3)
    d = pld.from_laplace_mechanism(c.scale * 0.99, sensitivity=1.0, pessimistic_estimate=True,
                                   value_discretization_interval=1e-4).self_compose(T)
    assert d.get_epsilon_for_delta(delta) > eps            # 1 % less noise is not (ε, δ)-DP: the search is tight


def test_laplace_recommends_basic_where_the_accountant_certifies_no_less():
    c = noise.laplace(1.0, 1.0, 1e-12, compositions=2)
    assert c.best.scale <= min(r.scale for r in c.rows)
    assert all(r.eps_certified <= 1.0 + 1e-12 for r in c.rows)


@pytest.mark.parametrize("call, name", [
    (lambda: noise.gaussian(0.0, 1.0, 1e-5), "sensitivity"),
    (lambda: noise.gaussian(1.0, -1.0, 1e-5), "eps"),
    (lambda: noise.gaussian(1.0, 1.0, 0.0), "delta"),
    (lambda: noise.gaussian(1.0, 1.0, 1e-5, compositions=0), "compositions"),
    (lambda: noise.laplace(1.0, float("nan")), "eps"),
    (lambda: noise.laplace(1.0, 1.0, 1.0), "delta"),
    (lambda: noise.laplace(1.0, 1.0, compositions=2.5), "compositions"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ValueError, match=f"'{name}'"):
        call()


# --------------------------------------------------------------------------- command line
def test_cli_text_json_and_errors(capsys):
    args = ["noise", "gaussian", "--sensitivity", "1", "--eps", "1", "--delta", "1e-6", "--compositions", "1000"]
    assert cli_main(args) == 0
    out = capsys.readouterr().out
    assert "sigma = 133.596" in out and "sigma² = 17847.9" in out and "accountant (exact):" in out and "eps certified" in out
    assert cli_main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["sigma"] == pytest.approx(133.596077, abs=5e-7) and d["eps_certified"] <= 1.0
    assert cli_main(["noise", "laplace", "--sensitivity", "1", "--eps", "0.5", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["scale"] == 2.0
    for bad in (["noise", "gaussian", "--sensitivity", "1", "--eps", "1"],              # δ missing
                ["noise", "gaussian", "--sensitivity", "x", "--eps", "1", "--delta", "1e-5"],
                ["noise", "laplace", "--sensitivity", "1", "--eps", "1", "--compositions", "0"],
                ["noise", "uniform", "--sensitivity", "1", "--eps", "1"]):
        assert cli_main(bad) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error:"), err


# --------------------------------------------------------------------------- zCDP → (ε, δ)
def _cks_delta_grid(rho: float, eps: float) -> float:
    """Corollary 13 of Canonne, Kamath & Steinke (2020) by brute force over a fine grid of α (independent)."""
    a = 1 + np.exp(np.linspace(-12, 14, 400_001))
    logd = (a - 1) * (a * rho - eps) - np.log(a - 1) + a * np.log1p(-1 / a)
    return float(np.exp(logd.min()))


@pytest.mark.parametrize("rho, eps", [(0.05, 1.0), (0.5, 3.0), (1e-4, 0.05), (2.0, 10.0)])
def test_zcdp_delta_is_the_infimum_of_the_formula(rho, eps):
    assert acc.zcdp_delta(rho, eps) == pytest.approx(_cks_delta_grid(rho, eps), rel=1e-6)


@pytest.mark.parametrize("sigma, delta", [(1.0, 1e-5), (3.0, 1e-6), (20.0, 1e-3), (0.5, 1e-9)])
def test_zcdp_conversion_is_valid_for_the_gaussian_and_beats_bun_steinke(sigma, delta):
    rho = 1 / (2 * sigma**2)                          # N(0, σ²) at Δ = 1 is ρ-zCDP
    e = acc.zcdp_eps(rho, delta)
    assert acc.gaussian_eps(sigma, delta) <= e < rho + 2 * math.sqrt(rho * math.log(1 / delta))
    # the δ at that ε is the conversion's δ (consistent inverses)
    assert acc.zcdp_delta(rho, e) == pytest.approx(delta, rel=1e-5)


@pytest.mark.parametrize("eps, delta", [(1.0, 1e-6), (0.1, 1e-5), (5.0, 1e-8)])
def test_zcdp_rho_is_certified_and_matches_the_rdp_accountant(eps, delta):
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

    rho = acc.zcdp_rho(eps, delta)
    assert acc.zcdp_eps(rho, delta) <= eps
    assert acc.zcdp_eps(rho * (1 + 1e-6), delta) > eps * (1 - 1e-9)          # no room left (to the search's precision)
    L = math.log(1 / delta)
    assert rho > (math.sqrt(L + eps) - math.sqrt(L)) ** 2                    # more than Bun & Steinke's ρ*
    orders = np.linspace(1.02, 2000, 200_000)
    e_rdp, _ = compute_epsilon(orders, orders * rho, delta)                 # dp-accounting's conversion
    assert e_rdp == pytest.approx(eps, rel=1e-4)


def test_zcdp_bad_input():
    with pytest.raises(ValueError, match="'rho'"):
        acc.zcdp_eps(-1.0, 1e-5)
    with pytest.raises(ValueError, match="'delta'"):
        acc.zcdp_rho(1.0, 1.0)
    assert acc.zcdp_eps(0.0, 1e-5) == 0.0


# --------------------------------------------------------------------------- extreme (ε, δ): finding 1 and 2
def _mp_conversion_eps(rho: float, delta: float) -> float:
    """min over α of ε_α(ρ, δ) = αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), in 60-digit arithmetic
    (mpmath: a grid in ln(α − 1), then golden-section search), independent of bounds.accounting."""
    import mpmath as mp

    with mp.workdps(60):
        r, ld = mp.mpf(rho), mp.log(mp.mpf(delta))

        def f(t):
            u = mp.exp(t)
            a = 1 + u
            return a * r + mp.log(u) - mp.log(a) - (ld + mp.log(a)) / u

        ts = [mp.mpf(-40) + k * mp.mpf(110) / 2200 for k in range(2201)]
        vals = [f(t) for t in ts]
        i = min(range(len(ts)), key=lambda k: vals[k])
        a, b = ts[max(i - 1, 0)], ts[min(i + 1, len(ts) - 1)]
        g = (mp.sqrt(5) - 1) / 2
        for _ in range(250):
            c, d = b - g * (b - a), a + g * (b - a)
            if f(c) < f(d):
                b = d
            else:
                a = c
        return float(min(vals[i], f((a + b) / 2)))


@pytest.mark.parametrize("eps, delta", [(1e-4, 1e-5), (3e-4, 1e-10), (1e-6, 1e-10), (1e-5, 1e-10), (1e-12, 1e-5),
                                        (1e-100, 1e-10), (1e-8, 1e-300), (1.0, 1e-300), (50.0, 1e-300),
                                        (1e3, 1e-5), (0.3, 0.5)])
def test_zcdp_rho_at_extreme_eps_delta_is_certified_and_at_least_bun_steinke(eps, delta):
    import mpmath as mp

    rho = acc.zcdp_rho(eps, delta)
    assert rho > 0 and acc.zcdp_eps(rho, delta) <= eps
    assert _mp_conversion_eps(rho, delta) <= eps                       # certified by an independent 60-digit search
    with mp.workdps(60):
        L = -mp.log(mp.mpf(delta))
        rho_star = (mp.sqrt(L + eps) - mp.sqrt(L)) ** 2                 # Bun & Steinke's ρ*, exact
    assert rho >= float(rho_star) * (1 - 1e-12)


@pytest.mark.parametrize("eps, delta", [(1e-300, 1e-300), (1e-320, 1e-300)])
def test_zcdp_rho_where_no_positive_double_is_certified_raises_and_noise_still_answers(eps, delta, capsys):
    with pytest.raises(ValueError, match="'eps'"):
        acc.zcdp_rho(eps, delta)
    g = noise.gaussian(1.0, eps, delta)
    assert [r.name for r in g.rows] == ["exact"] and len(g.notes) == 2
    assert g.eps_certified <= eps
    assert cli_main(["noise", "gaussian", "--sensitivity", "1", "--eps", str(eps), "--delta", str(delta)]) == 0
    out = capsys.readouterr().out
    assert "not computed" in out and "sigma =" in out


def test_noise_gaussian_cli_at_small_eps_keeps_every_row(capsys):
    assert cli_main(["noise", "gaussian", "--sensitivity", "1", "--eps", "1e-6", "--delta", "1e-10"]) == 0
    out = capsys.readouterr().out
    assert "zCDP, optimal conversion: sigma" in out and "not computed" not in out
    g = noise.gaussian(1.0, 1e-6, 1e-10)
    assert [r.name for r in g.rows] == ["exact", "zCDP, optimal conversion", "zCDP, Bun & Steinke"]
    assert all(r.eps_certified <= 1e-6 for r in g.rows)


def test_laplace_scales_are_rounded_toward_privacy_exactly():
    from fractions import Fraction

    rng = np.random.default_rng(20261128)
    for _ in range(2000):
        sens = float(10 ** rng.uniform(-6, 6))
        eps = float(10 ** rng.uniform(-6, 2))
        T = int(rng.integers(1, 10_000))
        c = noise.laplace(sens, eps, compositions=T)
        b = c.rows[0]
        assert b.name == "basic"
        assert T * Fraction(sens) / Fraction(b.scale) <= Fraction(eps)          # TΔ/b ≤ ε, exactly
        assert Fraction(b.eps_certified) >= T * Fraction(sens) / Fraction(b.scale)  # the printed ε is an upper bound
        assert b.eps_certified <= eps
        assert b.scale <= math.nextafter(T * sens / eps, math.inf) * (1 + 4e-16)  # and no more noise than an ulp


def test_laplace_tight_row_step_eps_is_rounded_toward_privacy():
    from fractions import Fraction

    rng = np.random.default_rng(7)
    for _ in range(40):
        sens, eps, T = float(10 ** rng.uniform(-3, 3)), float(10 ** rng.uniform(-1, 0.5)), int(rng.integers(100, 3000))
        c = noise.laplace(sens, eps, 1e-6, compositions=T)
        e0 = acc.tight_pure_step_eps(eps, 1e-6, T)
        tight = next(r for r in c.rows if r.name == "tight")
        assert Fraction(sens) / Fraction(tight.scale) <= Fraction(e0)


def test_gaussian_zcdp_rows_are_rounded_toward_privacy_exactly():
    from fractions import Fraction

    rng = np.random.default_rng(11)
    for _ in range(12):
        sens, eps = float(10 ** rng.uniform(-3, 3)), float(10 ** rng.uniform(-2, 0.5))
        delta, T = float(10 ** rng.uniform(-10, -3)), int(rng.integers(1, 500))
        g = noise.gaussian(sens, eps, delta, compositions=T)
        ex, cks, bs = g.rows
        for row, rho in ((cks, acc.zcdp_rho(eps, delta)),
                         (bs, (eps / (math.sqrt(math.log(1 / delta) + eps) + math.sqrt(math.log(1 / delta)))) ** 2)):
            assert T * Fraction(sens) ** 2 / (2 * Fraction(row.scale) ** 2) <= Fraction(rho)   # ρ-zCDP, exactly
        assert all(r.eps_certified <= eps for r in g.rows)
