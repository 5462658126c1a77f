"""Seed 003 (003_8ef3daf3084cc981.txt): the empirical checks and their machinery, checked independently."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simulations.online import online_kernel_regression
from simulations.trials import jcc as tr
from verify.empirical import discover_checks
from verify.empirical import jcc as ej
from verify.empirical.core import PROFILES, Context
from verify.stats import VERDICTS

CHECKS = {s.name: s for s in discover_checks() if s.evidence == "empirical"}

TINY = dict(m_sens=(20,), n_search=8, n_trials=6, n_noise=20, m=30, m_grid=(20, 40, 80), n_rate_trials=4)


def _tiny(executor: str = "serial") -> Context:
    return Context(PROFILES["quick"], executor=executor).with_profile(**TINY)


@pytest.mark.parametrize("kappa", [1.0, 2.0])
def test_all_index_sensitivity_equals_full_reruns(kappa) -> None:
    """The linear-propagation formulas give the same f_t − f_t̄ as two full runs of (3), at every index."""
    K = tr.sobolev(kappa)
    theta = 0.75
    t0 = tr.min_t0(kappa, theta)
    rng = np.random.default_rng(np.random.SeedSequence(303))
    t = 30
    x, y = rng.random(t), rng.uniform(-1, 1, t)
    xc = rng.random(5)
    E = (np.arange(64) + 0.5) / 64
    out = tr.all_index_sensitivity(x, y, K, theta, t0, xc, M=1.0, n_eval=64)
    for i in (0, 1, 7, 15, 28, 29):
        for c in range(xc.size):
            for si, yi in enumerate((-1.0, 1.0)):
                for sp, yp in enumerate((-1.0, 1.0)):
                    c_ref, a_ref = tr.rerun_difference(x, y, K, theta, t0, i, xc[c], yi, yp)
                    ref_k = math.sqrt(a_ref @ K(c_ref) @ a_ref)
                    vals = K(E, c_ref) @ a_ref
                    assert out["knorm"][i, c, si, sp] == pytest.approx(ref_k, rel=1e-9, abs=1e-13)
                    assert out["supgrid"][i, c, si, sp] == pytest.approx(np.abs(vals).max(), rel=1e-9, abs=1e-13)
                    c_p, a_p = tr.pair_difference(x, y, K, theta, t0, i, xc[c], yi, yp)
                    np.testing.assert_allclose(K(E, c_p) @ a_p, vals, rtol=1e-9, atol=1e-13)
                    assert tr.sup_abs(K, c_p, a_p) == pytest.approx(tr.sup_abs(K, c_ref, a_ref), rel=1e-9)


@pytest.mark.parametrize("t, n_c, n_eval, chunk", [(1, 3, 8, 16), (2, 1, 5, 16), (40, 7, 33, 3), (120, 16, 64, 16)])
def test_compiled_sup_grid_equals_numpy_bit_for_bit(t, n_c, n_eval, chunk) -> None:
    """The compiled sup-norm scan performs the NumPy code's operations in its order: identical arrays."""
    K = tr.sobolev(1.5)
    t0 = tr.min_t0(1.5, 0.75)
    rng = np.random.default_rng(t * 1000 + n_c)
    x, y = rng.random(t), rng.uniform(-1, 1, t)
    xc = rng.random(n_c)
    a = tr.all_index_sensitivity(x, y, K, 0.75, t0, xc, M=1.0, n_eval=n_eval, chunk=chunk)
    b = tr.all_index_sensitivity(x, y, K, 0.75, t0, xc, M=1.0, n_eval=n_eval, chunk=chunk, compiled=False)
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def test_last_index_matches_eq15() -> None:
    """For i = t − 1, f_t − f_t̄ is (15) of the paper: η_{t−1}[(f(x̄)−ȳ)K_x̄ − (f(x)−y)K_x]."""
    K = tr.sobolev(1.0)
    theta, t = 0.6, 12
    t0 = tr.min_t0(1.0, theta)
    rng = np.random.default_rng(1)
    x, y = rng.random(t), rng.choice([-1.0, 1.0], t)
    a = online_kernel_regression(K(x[:-1]), y[:-1], theta, t0)
    eta = (t - 1 + t0) ** (-theta)
    xb, yb = 0.37, -1.0
    fx, fb = K(x[-1:], x[:-1]) @ a, K(np.array([xb]), x[:-1]) @ a
    E = np.linspace(0, 1, 50)
    expected = eta * ((fb - yb) * K(E, np.array([xb]))[:, 0] - (fx - y[-1]) * K(E, x[-1:])[:, 0])
    c, al = tr.pair_difference(x, y, K, theta, t0, t - 1, xb, y[-1], yb)
    np.testing.assert_allclose(K(E, c) @ al, expected, rtol=1e-10, atol=1e-14)


def test_sup_abs_and_gram() -> None:
    K = tr.sobolev(2.0)
    rng = np.random.default_rng(5)
    c, a = rng.random(7), rng.normal(size=7)
    dense = np.abs(K(np.concatenate([np.linspace(0, 1, 400001), c]), c) @ a).max()
    exact = tr.sup_abs(K, c, a)
    assert dense <= exact + 1e-12 and exact - dense < 1e-7
    x, z = rng.random(30), rng.random(11)
    np.testing.assert_allclose(tr.gram(K, x, z), K(x, z), rtol=0, atol=1e-13)


@pytest.mark.parametrize("kind,kappa", [("smooth", 1.0), ("highfreq", 0.5)])
def test_release_error_matches_fourier(kind, kappa) -> None:
    """‖f + b − f_ρ‖_K from the reproducing property equals the Fourier-series value."""
    P = tr.problem(kind, kappa)
    K = P.kernel
    rng = np.random.default_rng(np.random.SeedSequence(17))
    X, y = P.sample(15, rng)
    x = X[:, 0]
    G = K(x)
    a = online_kernel_regression(G, y, 0.75, tr.min_t0(kappa, 0.75))
    b = 0.3
    e0sq, c1, im = tr.release_error_sq(P, x, a, G)
    exact = e0sq + 2 * c1 * b + im * b * b
    # raw Fourier coefficients: K(c, ·) = μ0 + Σ μ_k cos 2πk(· − c)
    N = 2**17
    k = np.arange(1, N + 1)
    mu = K.mu(k)
    ph = 2 * np.pi * np.outer(k, x)
    A = mu * (np.cos(ph) @ a)
    B = mu * (np.sin(ph) @ a)
    A0 = K.mu0 * a.sum() + b
    fr = P.f_rho_series
    tail = 0.0
    for fk, fc, fs in zip(fr.freqs, fr.cos, fr.sin, strict=True):
        if fk == 0:
            A0 -= fc
        elif fk <= N:
            A[fk - 1] -= math.sqrt(2) * fc
            B[fk - 1] -= math.sqrt(2) * fs
        else:  # beyond the truncation only f_ρ's own mass counts
            tail += 2 * (fc**2 + fs**2) / float(K.mu(fk))
    numeric = A0**2 / K.mu0 + float(np.sum((A**2 + B**2) / mu)) + tail
    assert exact == pytest.approx(numeric, rel=2e-4)
    # the exact conditional exceedance agrees with Monte Carlo on the quadratic
    bs = np.random.default_rng(2).laplace(0, 0.5, 200000)
    errs = np.sqrt(e0sq + 2 * c1 * bs + im * bs**2)
    lev = float(np.quantile(errs, 0.7))
    assert tr.conditional_exceedance(e0sq, c1, im, 0.5, lev) == pytest.approx(0.3, abs=0.006)


def test_mean_error_recursion_matches_monte_carlo() -> None:
    """E f_T − f_ρ follows the deterministic recursion (the bias the proof of (25) drops)."""
    P = tr.problem("highfreq", 1.0, freq=1)
    theta, T, n = 0.75, 20, 3000
    t0 = tr.min_t0(1.0, theta)
    K = P.kernel
    rng = np.random.default_rng(np.random.SeedSequence(99))
    coef = np.empty(n)
    for r in range(n):
        X, y = P.sample(T, rng)
        x = X[:, 0]
        a = online_kernel_regression(tr.gram(K, x), y, theta, t0)
        coef[r] = float(K.mu(1)) * (np.cos(2 * np.pi * x) @ a) / math.sqrt(2)  # orthonormal cos coefficient
    fhat = float(P.f_rho_series.cos[0])
    tau = float(K.eigenvalue(1))
    m = abs(coef.mean() - fhat) / math.sqrt(tau)  # ‖E f_T − f_ρ‖_K (E f_T has no other frequency)
    se = coef.std(ddof=1) / math.sqrt(n) / math.sqrt(tau)
    assert tr.mean_error_norm(P, T, theta, t0) == pytest.approx(m, abs=5 * se)


def test_checks_reproducible_on_serial_and_local() -> None:
    """Same seed, same numbers on the serial and the process-pool executors (and on a rerun)."""
    ej._SENS_CACHE.clear()
    a = ej.check_eq17(_tiny("serial"))
    ra = ej.check_thm2_rate(_tiny("serial"))
    ej._SENS_CACHE.clear()
    ctx = _tiny("local")
    try:
        b = ej.check_eq17(ctx)
        rb = ej.check_thm2_rate(ctx)
    finally:
        ctx.close()
    assert [(r.statistic, r.details["worst_index"]) for r in a] == [(r.statistic, r.details["worst_index"]) for r in b]
    assert [r.details["mean"] for r in ra] == [r.details["mean"] for r in rb]
    assert [r.statistic for r in ra] == [r.statistic for r in rb]


def test_every_check_returns_a_verdict_for_every_statement() -> None:
    ctx = _tiny()
    specs = {name: s for name, s in CHECKS.items() if s.key.startswith("jcc.")}
    assert set(specs) == {"jcc.eq16:sensitivity", "jcc.eq17:sensitivity", "jcc.thm1.C_t:sensitivity",
                          "jcc.thm2:violation", "jcc.thm2:rate"}
    results = {name: spec.fn(ctx) for name, spec in specs.items()}
    for name, rs in results.items():
        assert rs, name
        for r in rs:
            assert r.verdict in VERDICTS and r.key == specs[name].key and r.kind == specs[name].kind
            assert math.isfinite(r.statistic) and math.isfinite(r.bound)
    assert len(results["jcc.eq16:sensitivity"]) == len(ej.SENS_KAPPAS) * len(TINY["m_sens"])
    c_t = results["jcc.thm1.C_t:sensitivity"]
    assert {r.variant.rsplit("=", 1)[1] for r in c_t} == {"stated", "derived"}
    for r in c_t:  # stated C_t is the derived one divided by κ (the erratum of (12))
        kappa = r.details["kappa"]
        other = r.details["C_t_derived"] if "C_t_derived" in r.details else r.details["C_t_stated"]
        ratio = r.bound / other if "C_t_derived" in r.details else other / r.bound
        assert ratio == pytest.approx(1 / kappa)
    viol = results["jcc.thm2:violation"]
    assert {r.bound for r in viol} == set(ej.DELTAS)
    for r in viol:
        assert 0 <= r.lo <= r.statistic <= r.hi <= 1
        assert r.details["mean_error"] >= 0 and r.details["quantile_ratio"] > 0
    for r in results["jcc.thm2:rate"]:
        assert r.bound == pytest.approx(0.5 - r.details["theta"])
        assert r.details["bound_numeric_slope"] == pytest.approx(r.bound, abs=1e-6)
        assert len(r.details["mean"]) == len(TINY["m_grid"])


def test_highfreq_variant_violates_theorem2_at_large_delta() -> None:
    """The counterexample: ‖E f_T − f_ρ‖_K alone exceeds (27) at δ = 0.9 for the high-frequency f_ρ."""
    spec = ej.THM2_VARIANTS["highfreq"]
    T = ej._highfreq_T(spec)
    c = ej._thm2_constants(spec, T)
    bound = ej._value("jcc.thm2", "stated", **c["vals"], delta=0.9)
    assert tr.mean_error_norm(c["P"], T, spec["theta"], c["t0"]) > bound


def _thm2_trial_gram(config, rng) -> dict[str, float]:
    """thm2_trial as it was before issue 13: Gram matrix, O(T²) recursion, aᵀGa on G."""
    P = tr._problem_of(config)
    T = int(config["T"])
    X, y = P.sample(T, rng)
    x = X[:, 0]
    G = tr.gram(P.kernel, x)
    a = online_kernel_regression(G.T, y, float(config["theta"]), float(config["t0"]))
    e0sq, c1, im = tr.release_error_sq(P, x, a, G)
    scale = float(config["scale"])
    b = rng.laplace(0.0, scale)
    bn = rng.laplace(0.0, scale, int(config.get("n_noise", 1)))

    def err(bb):
        return np.sqrt(np.maximum(e0sq + 2 * c1 * bb + im * bb * bb, 0.0))

    out = {"err": float(err(b)), "err0": math.sqrt(e0sq), "err_mean": float(err(bn).mean()),
           "e0sq": e0sq, "c1": c1, "inv_mu0": im, "b": float(b)}
    for k, lev in enumerate(config.get("levels", [])):
        out[f"exceed_{k}"] = float(out["err"] > lev)
        out[f"pexc_{k}"] = tr.conditional_exceedance(e0sq, c1, im, scale, float(lev))
        if "scale_alt" in config:
            alt = float(config["scale_alt"])
            out[f"pexc_alt_{k}"] = tr.conditional_exceedance(e0sq, c1, im, alt, float(lev))
    return out


@pytest.mark.parametrize(
    "spec,T",
    [(dict(problem="smooth", kappa=1.0, r=1.0, theta=0.75, sigma=0.1), 400),
     (dict(problem="smooth", kappa=1.0, r=0.5, theta=0.75, sigma=0.1), 1500),
     (dict(problem="highfreq", kappa=0.5, freq=16, theta=0.95, sigma=0.1), 1000),
     (dict(problem="smooth", kappa=2.0, r=1.0, theta=0.55, sigma=0.3), 2000)],
)
def test_thm2_trial_equals_gram_path(spec, T) -> None:
    """thm2_trial without the Gram matrix returns the numbers of the Gram path to 1e-10."""
    c = ej._thm2_constants(spec, T)
    cfg = dict(spec, T=T, t0=c["t0"], scale=c["scales"]["stated"], scale_alt=c["scales"]["derived"],
               n_noise=50)
    for seed in (0, 1):
        # levels = the error at b = scale, 3·scale on this trial's data: exceedances not 0 or 1
        X, y = c["P"].sample(T, np.random.default_rng(np.random.SeedSequence([seed, T])))
        G = tr.gram(c["P"].kernel, X[:, 0])
        e0, c1, im = tr.release_error_sq(
            c["P"], X[:, 0], online_kernel_regression(G, y, spec["theta"], c["t0"]), G)
        sc = cfg["scale"]
        cfg["levels"] = [math.sqrt(e0 + 2 * c1 * b + im * b * b) for b in (sc, 3 * sc)] + [10.0]
        new = tr.thm2_trial(cfg, np.random.default_rng(np.random.SeedSequence([seed, T])))
        old = _thm2_trial_gram(cfg, np.random.default_rng(np.random.SeedSequence([seed, T])))
        assert new.keys() == old.keys()
        for k, v in old.items():
            # relative 1e-10, or absolute 1e-10 for c1 = Σa − â₀/μ₀ (a difference of O(1) terms)
            assert new[k] == pytest.approx(v, rel=1e-10, abs=1e-10), k
        assert 0 < new["pexc_0"] < 1 and 0 < new["pexc_1"] < 1
