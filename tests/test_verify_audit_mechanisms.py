"""Audits of the implemented mechanisms: the verdicts the theory predicts, at small sizes."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from verify.audit import audit
from verify.audit_mechanisms import (
    audit_gp_alternative,
    audit_output_perturbation,
    kls_pair,
    laplace_function,
    laplace_value,
)
from verify.cli import main


@pytest.fixture(scope="module")
def rows():
    return audit_output_perturbation(n=20_000, seed=0)


def test_every_mechanism_and_release_has_a_verdict(rows):
    got = {(r.mechanism, r.release, r.calibration) for r in rows}
    for mech in ("jia.s5_1", "jamp.prop1", "jia.s5_2", "jcc.thm1"):
        for rel in ("value", "function"):
            for cal in ("stated", "derived"):
                assert (mech, rel, cal) in got
    assert all(r.verdict in ("consistent", "violated") for r in rows)


def test_function_release_with_one_scalar_noise_is_distinguished_perfectly(rows):
    # f + b at two points: the difference is noise-free, so no release is misclassified
    for r in rows:
        if r.release == "function" and r.mechanism != "jia.s5_2":
            assert r.details["fpr"] == 0 and r.details["fnr"] == 0
            assert r.verdict == "violated" and r.eps_lower > 8


def test_value_release_with_derived_noise_respects_its_claim(rows):
    # one value of a function whose sup-norm sensitivity is below Δf: derived noise gives ≤ ε
    for r in rows:
        if r.release == "value" and r.calibration == "derived":
            assert r.eps_lower <= r.claimed_eps


def test_value_attack_cannot_exceed_the_pairs_exact_privacy_loss():
    # Laplace location family: the exact privacy loss of the pair is |v1 − v0|/scale
    pair = kls_pair(m=60, lam=0.1, seed=1)
    g = pair.value_point()
    scale = 0.02
    res = audit(*laplace_value(pair.f0[g], pair.f1[g], scale), n=50_000, seed=2)
    exact = abs(pair.f1[g] - pair.f0[g]) / scale
    assert res.eps_lower <= exact
    assert res.eps_lower >= 0.5 * exact          # the threshold test is the optimal (LR) test here


def test_kls_pair_difference_matches_a_refit():
    from simulations.data import CircleRegression
    from simulations.solvers import kls_fit

    pair = kls_pair(m=40, lam=0.1, seed=3, n_cand=8, n_grid=16)
    P = CircleRegression(r=0.5, s=1, sigma=0.1)
    X, y = P.sample(40, np.random.default_rng(np.random.SeedSequence([3, 40])))
    x = X[:, 0].copy()
    x[pair.index], y[pair.index] = pair.replacement
    a = kls_fit(P.kernel(x[:, None]), y, 0.1).alpha
    f1 = P.kernel(pair.grid[:, None], x[:, None]) @ a
    assert np.allclose(f1, pair.f1, atol=1e-9)


def test_gp_alternative_is_consistent():
    [r] = audit_gp_alternative(n=20_000, seed=0)
    assert r.verdict == "consistent" and r.delta > 0


def test_laplace_function_statistic_is_noise_free():
    f0, f1 = np.array([0.0, 1.0]), np.array([0.0, 1.5])
    r0, r1 = laplace_function(f0, f1, 0, 1, scale=10.0)
    rng = np.random.default_rng(0)
    assert np.allclose(r0(rng, 5), 1.0) and np.allclose(r1(rng, 5), 1.5)


def test_cli_audit_json(capsys):
    assert main(["audit", "--json", "--profile", "quick"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {d["mechanism"] for d in data} >= {"jia.s5_1", "jamp.prop1", "jia.s5_2", "jcc.thm1", "gp.kls"}
    assert all(math.isfinite(d["eps_lower"]) for d in data)


def test_cli_audit_bad_profile(capsys):
    assert main(["audit", "--profile", "huge"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_calibration_rows_recover_most_of_the_laplace_eps():
    from verify.audit_mechanisms import audit_calibration

    lap, gau = audit_calibration(n=100_000, seed=0)
    assert 0.85 <= lap.details["ratio"] <= 1.0           # 10^5 releases: ε_lower/ε ≈ 0.99 measured
    assert 0 < gau.details["ratio"] <= 1.0 and gau.verdict == "consistent"


def test_mirror_descent_audit_is_consistent_with_its_gaussian_calibration():
    from verify.audit_mechanisms import audit_mirror_descent

    [r] = audit_mirror_descent(n=5000, seed=1)
    assert r.mechanism == "ttz.md" and r.delta > 0 and r.verdict == "consistent"
    assert r.details["sigma"] > 0 and r.eps_lower <= r.claimed_eps
