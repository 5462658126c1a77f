"""Trade-off-curve audits (verify.audit.tradeoff): the GDP ↔ (ε, δ) conversion, μ recovery, validity, power.

References are independent: δ_μ(ε) of μ-GDP in 60-digit mpmath (Dong, Roth & Su 2022, Cor. 2.13) and
its root by mpmath bisection; the exact GDP parameter of the Laplace mechanism by maximising μ(p, q)
over thresholds of the exact Laplace distribution functions (scipy), of randomized response from its
one non-trivial test.  Error rates are tested against α with one-sided binomial tests at level 1e-3
(as in test_audit_api.py): a valid auditor fails about once in a thousand runs of this file (seeds are
fixed, so in practice never); one whose false-alarm rate were twice α would fail them.
"""

from __future__ import annotations

import math

import mpmath as mp
import numpy as np
import pytest
from scipy import optimize, stats

from bounds.accounting import gaussian_sigma
from verify.audit import audit_seed
from verify.audit.tradeoff import gdp_delta, gdp_eps, gdp_mu, tradeoff_audit

mp.mp.dps = 60

SIGMA = gaussian_sigma(1.0, 1e-5)          # the analytic Gaussian of (ε, δ) = (1, 1e-5): μ = 1/σ
KEEP = math.e / (1 + math.e)               # randomized response, ε = 1


def delta_mp(eps: float, mu: float) -> mp.mpf:
    """δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) in 60 digits."""
    e, m = mp.mpf(eps), mp.mpf(mu)
    return mp.ncdf(-e / m + m / 2) - mp.exp(e) * mp.ncdf(-e / m - m / 2)


def eps_mp(mu: float, delta: float) -> float:
    """The root of δ_μ(ε) = δ by bisection in mpmath (δ_μ decreases in ε)."""
    lo, hi = mp.mpf(0), mp.mpf(1)
    while delta_mp(float(hi), mu) > delta:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        if delta_mp(mid, mu) > delta:
            lo = mid
        else:
            hi = mid
    return float(lo)


def laplace_mu(eps: float = 1.0) -> float:
    """GDP parameter of the Laplace mechanism (scale 1/ε, shift 1): max over thresholds of μ(p, q)."""
    b = 1.0 / eps

    def neg(t: float) -> float:
        return -float(gdp_mu(stats.laplace.sf(t, 0, b), stats.laplace.cdf(t, 1, b)))

    r = optimize.minimize_scalar(neg, bounds=(-5, 6), method="bounded", options={"xatol": 1e-10})
    return -r.fun


def _rate_ok(k: int, n: int, alpha: float) -> bool:
    """k false alarms of n are compatible with a rate ≤ alpha (one-sided binomial test at 1e-3)."""
    return stats.binomtest(k, n, alpha, alternative="greater").pvalue > 1e-3


MECHS = {
    "gaussian": (1e-5, 1.0, 1 / SIGMA, lambda rng, n: (rng.normal(0, SIGMA, n), 1 + rng.normal(0, SIGMA, n))),
    "laplace": (0.0, 1.0, None, lambda rng, n: (rng.laplace(0, 1, n), 1 + rng.laplace(0, 1, n))),
    "randomized_response": (0.0, 1.0, 2 * float(stats.norm.ppf(KEEP)),
                            lambda rng, n: ((rng.random(n) >= KEEP).astype(np.int64),
                                            (rng.random(n) < KEEP).astype(np.int64))),
}


# --------------------------------------------------------------------------- the conversion
@pytest.mark.parametrize("eps,mu", [(0.0, 1.0), (0.5, 0.3), (1.0, 1 / 3.7306316348159405), (3.0, 2.0),
                                    (0.01, 0.01), (40.0, 8.0), (2.0, 0.2)])
def test_gdp_delta_matches_mpmath(eps, mu):
    ref = float(delta_mp(eps, mu))
    assert gdp_delta(eps, mu) == pytest.approx(ref, rel=1e-9, abs=1e-300)


@pytest.mark.parametrize("mu,delta", [(1 / SIGMA, 1e-5), (0.5, 1e-6), (1.0, 1e-5), (2.0, 1e-10), (0.05, 1e-3),
                                      (6.0, 1e-12), (0.3, 0.05)])
def test_gdp_eps_is_the_root_rounded_down(mu, delta):
    e = gdp_eps(mu, delta)
    ref = eps_mp(mu, delta)
    assert e == pytest.approx(ref, rel=1e-9)
    assert delta_mp(e, mu) >= delta * (1 - 1e-9)        # rounded toward the smaller ε (a lower bound)


def test_gdp_eps_of_the_analytic_gaussian_is_its_calibration():
    # bounds.accounting calibrated σ for (1, 1e-5) with the same δ(ε): the conversion must give back ε = 1
    assert gdp_eps(1 / SIGMA, 1e-5) == pytest.approx(1.0, rel=1e-8)


def test_gdp_eps_edge_cases():
    assert gdp_eps(0.5, 0.0) == math.inf                  # μ-GDP, μ > 0, is never pure ε-DP
    assert gdp_eps(0.0, 1e-5) == 0.0
    d0 = 2 * float(stats.norm.cdf(0.25)) - 1              # δ_μ(0) = 2Φ(μ/2) − 1 at μ = 0.5
    assert gdp_eps(0.5, d0 * 1.001) == 0.0 < gdp_eps(0.5, d0 * 0.999)
    # monotone: larger μ, larger ε at the same δ; larger δ, smaller ε
    assert gdp_eps(0.4, 1e-5) < gdp_eps(0.5, 1e-5) and gdp_eps(0.5, 1e-4) < gdp_eps(0.5, 1e-5)
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="'mu'"):
            gdp_eps(bad, 1e-5)
    with pytest.raises(ValueError, match="'delta'"):
        gdp_eps(0.5, 1.0)


def test_gdp_mu_inverts_the_gaussian_tradeoff_curve():
    p = np.geomspace(1e-9, 0.999, 50)
    for mu in (0.1, 1.0, 4.0):
        q = stats.norm.cdf(stats.norm.isf(p) - mu)          # G_μ(p) = Φ(Φ⁻¹(1 − p) − μ)
        assert np.allclose(gdp_mu(p, q), mu, rtol=0, atol=1e-8)
        assert np.allclose(gdp_mu(q, p), mu, rtol=0, atol=1e-8)     # symmetric


# --------------------------------------------------------------------------- μ recovery
@pytest.mark.parametrize("mu", [0.27, 1.0, 2.5])
def test_mu_recovery_on_exact_gaussian_samples(mu):
    n = 200_000
    x = stats.norm.ppf((np.arange(n) + 0.5) / n)            # exact quantiles: the empirical curve is G_μ
    r = tradeoff_audit(x, mu + x, delta=1e-5, seed=3)
    assert r.mu_lower <= mu                                  # deterministic samples: the bound holds
    assert r.mu_point == pytest.approx(mu, abs=0.01)
    assert r.mu_lower > mu - 0.04                            # a simultaneous limit at n = 1.8e5 is this tight
    assert not r.gdp_rejected
    assert r.mu_upper_gdp >= mu
    assert r.eps_gdp <= gdp_eps(mu, 1e-5) and r.eps_lower <= gdp_eps(mu, 1e-5)


def test_laplace_contradicts_the_gdp_assumption_and_its_conversion_overstates():
    n = 200_000
    u = (np.arange(n) + 0.5) / n
    x = stats.laplace.ppf(u)
    r = tradeoff_audit(x, 1 + x, delta=1e-6, seed=0)
    assert r.eps_lower <= 1.0                                # valid: true ε = 1
    assert r.mu_lower <= laplace_mu(1.0)
    assert r.eps_gdp > 1.5                                   # the GDP conversion is no ε bound for Laplace
    assert r.gdp_rejected                                    # and the data say so


# --------------------------------------------------------------------------- validity
def _false_alarms(name: str, n: int, seeds: int, confidence: float) -> dict[str, int]:
    delta, true_eps, true_mu, gen = MECHS[name]
    true_mu = laplace_mu(1.0) if true_mu is None else true_mu
    out = {"eps": 0, "mu": 0, "eps_gdp": 0, "mu_point": 0}
    for s in range(seeds):
        rng = np.random.default_rng(audit_seed(11, name, n, s))
        d0, d1 = gen(rng, n)
        r = tradeoff_audit(d0, d1, delta=delta, confidence=confidence, seed=s)
        out["eps"] += r.eps_lower > true_eps
        out["mu"] += r.mu_lower > true_mu
        out["eps_gdp"] += name == "gaussian" and r.eps_gdp > true_eps   # the assumption holds for the Gaussian only
        out["mu_point"] += r.mu_point > true_mu
    return out


@pytest.mark.parametrize("name", ["gaussian", "laplace"])
def test_false_alarms_within_alpha(name):
    seeds, confidence = 200, 0.8            # α = 0.2: an invalid bound shows in 200 seeds
    fa = _false_alarms(name, 4000, seeds, confidence)
    for key in ("eps", "mu", "eps_gdp"):
        assert _rate_ok(fa[key], seeds, 1 - confidence), (key, fa)
    # the test has power: the point estimate of μ (no interval) exceeds the truth far more often than α
    if name == "gaussian":
        assert not _rate_ok(fa["mu_point"], seeds, 1 - confidence), fa


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(MECHS))
def test_false_alarms_within_alpha_1000_seeds(name):
    seeds, confidence = 1000, 0.95
    fa = _false_alarms(name, 10_000, seeds, confidence)
    for key in ("eps", "mu", "eps_gdp"):
        assert _rate_ok(fa[key], seeds, 1 - confidence), (key, fa)


# --------------------------------------------------------------------------- power grows with n
def test_bounds_grow_with_n():
    _, _, true_mu, gen = MECHS["gaussian"]
    means = []
    for n in (2_000, 20_000, 200_000):
        rs = [tradeoff_audit(*gen(np.random.default_rng(audit_seed(5, n, s)), n), delta=1e-5, seed=s)
              for s in range(12)]
        means.append((np.mean([r.mu_lower for r in rs]), np.mean([r.eps_lower for r in rs]),
                      np.mean([r.eps_gdp for r in rs])))
    mu, eps, gdp = (np.array(c) for c in zip(*means, strict=True))
    assert np.all(np.diff(mu) > 0) and np.all(np.diff(eps) > 0) and np.all(np.diff(gdp) > 0), means
    assert mu[-1] <= true_mu and true_mu - mu[-1] < (true_mu - mu[0]) / 4     # the gap shrinks like n^(-1/2)


# --------------------------------------------------------------------------- inputs
GOOD = np.random.default_rng(0).laplace(size=200)


@pytest.mark.parametrize("kw, match", [
    ({"d0": np.r_[GOOD[:-1], np.nan]}, "'d0'.*NaN"),
    ({"d1": GOOD[:10]}, "'d1'.*at least 20"),
    ({"confidence": 1.5}, "'confidence'"),
    ({"delta": -0.1}, "'delta'"),
    ({"selection_fraction": 0.0}, "'selection_fraction'"),
    ({"tests": {"foo": 1}}, "'tests'"),
    ({"tests": {"mu": 1}}, "'tests'"),                      # no ε test
    ({"d0": np.ones((200, 3)), "d1": np.ones((200, 3))}, "need a 'score'"),
    ({"score": lambda x: x[:5]}, "'score'"),
    ({"score": 3}, "'score'"),
])
def test_bad_input_raises_naming_the_parameter(kw, match):
    args = {"d0": GOOD, "d1": GOOD + 1}
    args.update(kw)
    with pytest.raises(ValueError, match=match):
        tradeoff_audit(args.pop("d0"), args.pop("d1"), **args)


def test_a_mechanism_ignoring_its_data_shows_nothing():
    c = np.zeros(5000)
    r = tradeoff_audit(c, c, delta=1e-5)
    assert r.mu_lower == 0.0 and r.eps_lower == 0.0 and r.eps_gdp == 0.0
    r = tradeoff_audit(c, c, tests={"mu": 1, "eps_gdp": 1})      # no direction at all: empty families
    assert (r.mu_lower, r.eps_lower, r.eps_points) == (0.0, 0.0, ())
    x = np.random.default_rng(1).normal(size=(2, 5000))
    r = tradeoff_audit(x[0], x[1])
    assert r.mu_lower < 0.2 and r.eps_lower < 0.2


def test_vector_outputs_with_a_fixed_score():
    rng = np.random.default_rng(2)
    d0, d1 = rng.normal(size=(20_000, 4)), rng.normal(size=(20_000, 4)) + 0.5    # ‖shift‖ = 1: 1-GDP
    r = tradeoff_audit(d0, d1, score=lambda x: x.sum(axis=1), delta=1e-5)
    assert 0.8 < r.mu_lower <= 1.0
    assert r.as_dict()["mu_lower"] == r.mu_lower and "exactly Gaussian" in r.assumption


# --------------------------------------------------------------------------- when the line runs by default
def test_tradeoff_applies_rule():
    from verify.audit.tradeoff import tradeoff_applies

    assert tradeoff_applies("scalar", 1e-5)[0]
    for kind, delta in (("scalar", 0.0), ("categorical", 1e-5), ("vector", 1e-5), ("pair", 1e-6)):
        on, why = tradeoff_applies(kind, delta)
        assert not on and "tradeoff=True" in why, (kind, delta, why)
    # the reason at δ = 0 is a fact of the conversion: eps_gdp is ∞ there for every μ_lower > 0
    assert gdp_eps(0.01, 0.0) == math.inf
    for bad, match in ((("scalar", 1.0), "'delta'"), ((3, 1e-5), "'kind'")):
        with pytest.raises(ValueError, match=match):
            tradeoff_applies(*bad)


def test_tradeoff_module_imports_neither_scipy_stats_nor_optimize():
    """Start-up cost: the module (the package's __init__ is lazy) loads scipy.special only; optimize on first gdp_eps."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = (f"import sys; sys.path.insert(0, {str(root)!r})\n"
            "import verify.audit.tradeoff as m\n"
            "print('scipy.optimize' in sys.modules, 'scipy.stats' in sys.modules, 'bounds' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False", "False"], out


# --------------------------------------------------------------------------- both tails pooled
def test_pooled_tails_test_counts_and_gain_on_the_gaussian():
    _, _, _, gen = MECHS["gaussian"]
    gains, n = [], 100_000
    for s in range(6):
        d0, d1 = gen(np.random.default_rng(audit_seed(12, "tails", s)), n)
        r = tradeoff_audit(d0, d1, delta=1e-5, seed=s)
        t = r.details["tails"]
        assert t is not None and t["tau0"] < t["tau1"] and t["direction"] == 1
        # the counts, recomputed from the same permutation (the audit's seed) of the evaluation samples
        ss = np.random.SeedSequence(s).spawn(2)
        p0, p1 = d0[np.random.default_rng(ss[0]).permutation(n)], d1[np.random.default_rng(ss[1]).permutation(n)]
        k, ne = r.details["n_selection0"], t["n_per_side"]
        u0, u1 = p0[k:k + ne], p1[k:k + ne]
        assert t["correct"] == int((u0 < t["tau0"]).sum() + (u1 > t["tau1"]).sum())
        assert t["wrong"] == int((u0 > t["tau1"]).sum() + (u1 < t["tau0"]).sum())
        assert r.eps_lower == max(t["eps"], max(p.eps for p in r.eps_points))
        gains.append(t["eps"] - max(p.eps for p in r.eps_points))
    assert np.median(gains) > 0, gains          # twice the releases in one test: it usually wins here


def test_eps_tails_only_family_and_bad_count():
    d0, d1 = np.random.default_rng(4).normal(size=(2, 20_000))
    r = tradeoff_audit(d0, 0.5 + d1, tests={"mu": 1, "eps_tails": 1})
    assert r.eps_points == () and r.details["tails"] is not None and r.eps_lower == r.details["tails"]["eps"]
    with pytest.raises(ValueError, match="'tests'"):
        tradeoff_audit(d0, d1, tests={"mu": 1, "eps_tails": 2})
