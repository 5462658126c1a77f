"""Audits as first-class checks: the verdicts the theory predicts, discovery, selection and caching."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from bounds.evidence import Result
from simulations.pairs import circle_regression, kls_pair
from verify.audit import audit, calibration_audits, laplace_function, laplace_value
from verify.cli import main
from verify.empirical import discover_checks, run_spec, select
from verify.empirical.core import PROFILES, Context

AUDITS = [s for s in discover_checks() if s.evidence == "audit"]


@pytest.fixture(scope="module")
def ctx():
    c = Context(PROFILES["quick"], seed=0, executor="serial").with_profile(n_audit=20_000)
    yield c
    c.close()


@pytest.fixture(scope="module")
def rows(ctx):
    out = []
    for name in ("audit_s5_1", "audit_s5_2", "audit_prop1", "audit_thm1"):
        [spec] = [s for s in AUDITS if s.fn.__name__ == name]
        out += run_spec(ctx, spec)
    return out


def test_every_output_perturbation_audit_has_both_releases_and_calibrations(rows):
    got = {(r.details["mechanism"], r.details["release"], r.details["calibration"]) for r in rows}
    for mech in ("jia.s5_1", "jamp.prop1", "jia.s5_2", "jcc.thm1"):
        for rel in ("value", "function"):
            for cal in ("stated", "derived"):
                assert (mech, rel, cal) in got
    assert all(isinstance(r, Result) and r.evidence == "audit" and r.kind == "privacy" for r in rows)


def test_function_release_with_one_scalar_noise_is_distinguished_perfectly(rows):
    # f + b at two points: the difference is noise-free, so no release is misclassified
    for r in rows:
        if r.details["release"] == "function" and r.details["mechanism"] != "jia.s5_2":
            assert r.details["fpr"] == 0 and r.details["fnr"] == 0
            assert r.verdict == "violated" and r.statistic > 8


def test_value_release_with_derived_noise_respects_its_claim(rows):
    for r in rows:
        if r.details["release"] == "value" and r.details["calibration"] == "derived":
            assert r.statistic <= r.bound and r.verdict == "holds"


def test_value_attack_cannot_exceed_the_pairs_exact_privacy_loss():
    # Laplace location family: the exact privacy loss of the pair is |v1 − v0|/scale
    pair = kls_pair(m=60, lam=0.1, seed=1)
    g = pair["value_point"]
    scale = 0.02
    res = audit(*laplace_value(pair["f0"][g], pair["f1"][g], scale), n=50_000, seed=2)
    exact = abs(pair["f1"][g] - pair["f0"][g]) / scale
    assert 0.5 * exact <= res.eps_lower <= exact        # the threshold test is the optimal (LR) test here


def test_kls_pair_difference_matches_a_refit():
    from simulations.solvers import kls_fit

    pair = kls_pair(m=40, lam=0.1, seed=3, n_cand=8, n_grid=16)
    P = circle_regression()
    X, y = P.sample(40, np.random.default_rng(np.random.SeedSequence([3, 40])))
    x = X[:, 0].copy()
    x[pair["index"]], y[pair["index"]] = pair["replacement"]
    a = kls_fit(P.kernel(x[:, None]), y, 0.1).alpha
    assert np.allclose(P.kernel(pair["grid"][:, None], x[:, None]) @ a, pair["f1"], atol=1e-9)


def test_gp_alternative_holds(ctx):
    [spec] = [s for s in AUDITS if s.fn.__name__ == "audit_gp_alternative"]
    [r] = run_spec(ctx, spec)
    assert r.verdict == "holds" and r.details["delta"] > 0 and r.details["alternative"]


def test_laplace_function_statistic_is_noise_free():
    f0, f1 = np.array([0.0, 1.0]), np.array([0.0, 1.5])
    r0, r1 = laplace_function(f0, f1, 0, 1, scale=10.0)
    rng = np.random.default_rng(0)
    assert np.allclose(r0(rng, 5), 1.0) and np.allclose(r1(rng, 5), 1.5)


def test_calibration_rows_recover_most_of_the_laplace_eps():
    lap, gau = calibration_audits(n=100_000, seed=0, confidence=0.95)
    assert 0.85 <= lap.details["ratio"] <= 1.0           # 10^5 releases: ε_lower/ε ≈ 0.99 measured
    assert 0 < gau.details["ratio"] <= 1.0 and gau.verdict == "holds"


def test_mirror_descent_audit_is_consistent_with_its_gaussian_calibration():
    from verify.empirical.ttz import audit_mirror_descent

    rows = audit_mirror_descent(n=5000, seed=1)
    assert [r.details["calibration"] for r in rows] == ["derived", "tight"]
    for r in rows:
        assert r.details["mechanism"] == "ttz.md" and r.details["delta"] > 0 and r.verdict == "holds"
        assert r.details["sigma"] > 0 and r.statistic <= r.bound
    assert rows[1].details["sigma"] < rows[0].details["sigma"]          # the accountant's σ is smaller


def test_every_audit_is_selectable_by_its_key():
    assert AUDITS
    for spec in AUDITS:
        assert spec in select(spec.key)
        assert spec in select(spec.paper + ".*")


def test_an_audit_is_cached_and_recomputed_when_its_code_changes(tmp_path, monkeypatch):
    import verify.empirical as E
    from verify.empirical.core import CheckSpec

    calls = []

    def fake(ctx):
        calls.append(1)
        return [Result(key="demo.x", evidence="audit", kind="privacy", name="value, stated", verdict="holds",
                       statistic=0.1, bound=0.5)]

    fake.__module__ = "verify.empirical.core"        # a real module: it has a code fingerprint
    spec = CheckSpec("demo.x", "privacy", fake, evidence="audit")
    ctx = Context(PROFILES["quick"], seed=0, executor="serial", cache=str(tmp_path))
    first = run_spec(ctx, spec)
    assert run_spec(ctx, spec)[0].statistic == first[0].statistic and len(calls) == 1   # from the cache
    import simulations.cache as C

    monkeypatch.setattr(C, "code_fingerprint", lambda module=None, root=None: "edited code")
    assert E.audit_cache_key(spec, ctx) != ""
    run_spec(ctx, spec)
    assert len(calls) == 2                                                              # recomputed


def test_cli_audit_json(capsys):
    assert main(["audit", "--json", "--profile", "quick", "--only", "jia.s5_1.scale"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {d["details"]["mechanism"] for d in data} >= {"jia.s5_1", "gp.kls"}
    assert all(d["evidence"] == "audit" and math.isfinite(float(d["statistic"])) for d in data)


def test_cli_audit_bad_profile(capsys):
    assert main(["audit", "--profile", "huge"]) == 2
    assert capsys.readouterr().err.count("\n") == 1
