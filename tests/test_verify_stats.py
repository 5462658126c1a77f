"""verify.stats against independent computations and coverage properties."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from verify.stats import clopper_pearson, mean_ci, rate_verdict, slope_fit, verdict


def test_mean_ci_matches_scipy_t_interval():
    x = np.array([0.3, 1.9, 2.2, 0.7, 1.4])
    m, lo, hi = mean_ci(x, 0.9)
    ref = stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=stats.sem(x))
    assert math.isclose(lo, ref[0]) and math.isclose(hi, ref[1]) and math.isclose(m, x.mean())


def test_clopper_pearson_matches_scipy_binomtest():
    for k, n in [(0, 10), (3, 10), (10, 10), (17, 400)]:
        ref = stats.binomtest(k, n).proportion_ci(0.95, method="exact")
        lo, hi = clopper_pearson(k, n, 0.95)
        assert math.isclose(lo, ref.low, abs_tol=1e-12) and math.isclose(hi, ref.high, abs_tol=1e-12)


def test_clopper_pearson_coverage_is_at_least_nominal():
    # exact coverage for p = 0.1, n = 30: sum of binomial masses whose interval covers p
    n, p = 30, 0.1
    cover = sum(stats.binom.pmf(k, n, p) for k in range(n + 1)
                if clopper_pearson(k, n, 0.9)[0] <= p <= clopper_pearson(k, n, 0.9)[1])
    assert cover >= 0.9


def test_slope_fit_recovers_a_noisy_power_law_within_its_interval():
    rng = np.random.default_rng(0)
    m = np.geomspace(100, 6400, 7)
    hits = 0
    for _ in range(200):
        se = 0.05 * m ** -0.4
        y = m ** -0.4 + rng.normal(0, se)
        f = slope_fit(m, y, se, confidence=0.9)
        hits += f.lo <= -0.4 <= f.hi
    assert hits / 200 >= 0.85  # nominal 0.9, binomial slack


def test_verdicts():
    assert verdict(0.1, 0.2, 0.2) == "holds"
    assert verdict(0.21, 0.3, 0.2) == "violated"
    assert verdict(0.1, 0.3, 0.2) == "inconclusive"
    f = slope_fit([10, 100, 1000], [1.0, 0.1, 0.01])
    assert rate_verdict(f, -0.5) == "holds" and rate_verdict(f, -2.0) == "violated"


@pytest.mark.parametrize("bad", [dict(x=[1.0]), dict(x=[1.0, np.nan]), dict(x=[1.0, 2.0], confidence=1.0)])
def test_mean_ci_rejects_bad_input(bad):
    with pytest.raises(ValueError):
        mean_ci(**bad)


def test_slope_fit_rejects_nonpositive_values():
    with pytest.raises(ValueError, match="'y'"):
        slope_fit([1, 2, 3], [1.0, 0.0, 1.0])


def test_profiles_file_defines_the_three_profiles_and_rejects_bad_tables(tmp_path):
    from verify.empirical.core import PROFILES, load_profiles

    assert {"quick", "default", "full"} <= set(PROFILES)
    for p in PROFILES.values():
        assert len(p.m_grid) >= 6 and p.m_grid[-1] / p.m_grid[0] >= 10**1.5   # issue 3: ≥ 6 m over ≥ 1.5 decades
    bad = tmp_path / "p.toml"
    bad.write_text("[mine]\nn_trials = 3\n")
    with pytest.raises(ValueError, match="'mine'"):
        load_profiles(bad)


def test_symbolic_cache_round_trip_gives_identical_evaluations(tmp_path):
    import pickle

    from bounds import registry
    from bounds.core import Registry, picklable

    keys = ["jia.thm2", "jia.prop1.scale", "jamp.lemma2"]
    snap = picklable(registry.snapshot(keys))
    fresh = Registry()
    for k in keys:                                   # same statements, empty cache
        fresh._statements[k] = registry.get(k)
    assert fresh.restore(pickle.loads(pickle.dumps(snap))) == len(keys)
    for k in keys:
        a, b = fresh.evaluate(k), registry.evaluate(k)
        assert (a.status, a.detail, str(a.derived)) == (b.status, b.detail, str(b.derived))
