"""The privacy auditor: validity of its lower bound, calibration on textbook mechanisms."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from verify.audit import (
    audit,
    cp_upper,
    eps_from_rates,
    eps_lower_bound,
    gaussian_releases,
    gaussian_true_eps,
    laplace_releases,
)


def test_laplace_calibration_reaches_08_at_eps_1_with_a_million_releases():
    r0, r1 = laplace_releases(1.0)
    res = audit(r0, r1, n=10**6, seed=0)
    assert 0.8 <= res.eps_lower <= 1.0          # issue 5's calibration target, and never above the truth


def test_lower_bound_never_exceeds_the_true_eps_over_seeds():
    # validity: at 95% confidence, ε_lower > ε should happen in ≤ 5% of audits (here: none of 20 expected)
    r0, r1 = laplace_releases(0.5)
    over = sum(audit(r0, r1, n=4000, seed=s).eps_lower > 0.5 for s in range(20))
    assert over <= 3                            # P(Bin(20, 0.05) > 3) ≈ 0.016


def test_gaussian_calibration_is_below_its_exact_eps():
    delta = 1e-5
    r0, r1 = gaussian_releases(1.0, delta)
    sigma = math.sqrt(2 * math.log(1.25 / delta))
    true = gaussian_true_eps(sigma, delta)
    res = audit(r0, r1, n=200_000, seed=3, delta=delta)
    assert 0 < res.eps_lower <= true < 1.0


def test_gaussian_true_eps_matches_the_privacy_profile():
    # independent check of the root: δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ) at the returned ε
    sigma, delta = 2.0, 1e-3
    e = gaussian_true_eps(sigma, delta)
    mu = 1 / sigma
    d = stats.norm.cdf(mu / 2 - e / mu) - math.exp(e) * stats.norm.cdf(-mu / 2 - e / mu)
    assert math.isclose(d, delta, rel_tol=1e-8)


def test_clopper_pearson_upper_limit_matches_scipy():
    for k, n in [(0, 50), (7, 50), (49, 50)]:
        ref = stats.binomtest(k, n).proportion_ci(0.9, method="exact").high   # two-sided 90% = one-sided 95%
        assert math.isclose(cp_upper(k, n, 0.05), ref, rel_tol=1e-9)


def test_eps_from_rates_is_the_hypothesis_testing_bound():
    # Laplace at ε with threshold Δ: FPR = e^{-ε}/2, FNR = 1/2 → ln((1 − FNR)/FPR) = ε
    eps = 0.7
    assert math.isclose(eps_from_rates(math.exp(-eps) / 2, 0.5), eps)
    assert eps_from_rates(0.5, 0.5) == 0.0
    assert eps_from_rates(0.0, 0.1) == math.inf


def test_a_perfect_attack_is_bounded_only_by_the_number_of_releases():
    assert math.isclose(eps_lower_bound(0, 10**4, 0, 10**4), math.log((1 - 3.688e-4) / 3.688e-4), rel_tol=1e-3)
    assert eps_lower_bound(0, 10**6, 0, 10**6) > eps_lower_bound(0, 10**4, 0, 10**4)


def test_identical_mechanisms_give_no_evidence():
    def r(rng, k):
        return (rng.normal(size=k))
    res = audit(r, r, n=20_000, seed=1)
    assert res.eps_lower < 0.05


def test_bad_input():
    with pytest.raises(ValueError, match="'n'"):
        audit(lambda rng, k: np.zeros(k), lambda rng, k: np.ones(k), n=3)
    with pytest.raises(ValueError, match="confidence"):
        eps_lower_bound(1, 10, 1, 10, confidence=1.5)
