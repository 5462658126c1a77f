"""Referee items on seed 004 (Pathak & Raj, ``pr.*``), one test per item the toolkit changed.

The referee report is ``../shared/review/referee-000-001-004.md``.  Every number is recomputed here
independently of the module (plain ``math``/``numpy``/``scipy``: the Erlang tail in closed form, root
finding by ``scipy.optimize.brentq``, a hand-written Huber objective), then the verdict the framework
computes (``bounds.registry.verdicts``) is asserted.

Verdicts before → after (final review): lemma1.grad erratum → refuted (own exact instance ‖x̃‖² = 2 > 1);
lemma2 refuted root → refuted, echo of eq8.objective (one slug objective-flat-along-E for the flat direction E);
eq18, eq22 root lemma2 → root eq8.objective; thm5_3 stays refuted, own slips (1/λ, 1 − 2δ) slugged, also rests on
eq23 (factor 2, n-scaling) and eq8.objective; eq23/thm5_3 record the readings of L̃ (sum, mean); thm5_1's audit
rows say for which α they refute ε'.

Verdicts before → after (issue 23): eq8.objective unsupported/remark (definitional) → refuted (result, root
of thm5_2); lemma4 refuted → holds in the paper's regime; eq6.huber erratum → typo; s6.rate_d erratum → typo;
lemma1, lemma2 refuted → refuted by their own exact witnesses; thm5_2 refuted (root lemma2, lemma4) → refuted,
echo of eq8.objective; thm5_2.rate unsupported (root lemma2, lemma4) → unsupported (root eq8.objective);
eq22 unsupported (root lemma2, lemma4) → unsupported (root lemma2); thm5_3.sridharan unsupported (factor 4)
→ unsupported (factor 4C(C − 1), strong-convexity part an echo of lemma2).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import optimize

import bounds
from bounds.evidence import VERDICT_TEXT
from bounds.papers import pr as prb
from bounds.verdict import verdicts as verdicts_of
from verify.empirical import pr as emp
from verify.empirical.core import PROFILES, Context

REG = bounds.registry
KEYS = [k for k in REG.keys() if k.startswith("pr.")]


def erlang_sf(z: float, k: int) -> float:
    """P[Γ(k, 1) ≥ z] for integer k, in closed form: e^(−z) Σ_(j<k) z^j/j! (terms in log space)."""
    return sum(math.exp(-z + j * math.log(z) - math.lgamma(j + 1)) for j in range(k))


def lemma4_ratio(d: int, delta: float) -> float:
    """P[‖b‖ ≥ 2(d+1)²/ε·log(d/δ)]/δ with ‖b‖ ~ Γ((d+1)², 2/ε): ε drops out."""
    D = (d + 1) ** 2
    return erlang_sf(D * math.log(d / delta), D) / delta


@pytest.fixture(scope="module")
def evidence(request):
    """The Lemma 4 rows and the Theorem 5.2/5.3 rows of one small problem (quick profile, tiny sizes)."""
    mp = pytest.MonkeyPatch()
    mp.setattr(emp, "THM5_VARIANTS", {"d=1, C=2": emp.THM5_VARIANTS["d=1, C=2"]})
    mp.setattr(emp, "_THM5_CACHE", {})
    ctx = Context(PROFILES["quick"], executor="serial").with_profile(n_trials=8, n_noise=40, n_search=8)
    rows = emp.check_lemma4(ctx) + emp.check_thm5_2(ctx) + emp.check_thm5_3(ctx)
    request.addfinalizer(mp.undo)
    from verify.empirical import _place

    for r in rows:
        _place(r)
    return rows


@pytest.fixture(scope="module")
def verdicts(evidence):
    return verdicts_of(REG, evidence, KEYS)


def _checks(key: str):
    return REG.evaluate(key).checks


# --------------------------------------------------------------------------- B11 (kept)
def test_b11_lemma1_sensitivity_reaches_2max_C_sqrt2_Cminus1(verdicts):
    """2·max(C, √2(C − 1)) = 4, 6 and 6√2 = 8.485 at C = 2, 3, 4 (the referee's '8' at C = 4 is 2C, one of the
    two cases; the antipodal case c = y = y' gives (C − 1)·√(‖X‖² + ‖X'‖²) = 6√2 with X ⟂ X')."""
    xt, xt2 = np.array([1.0, 1.0]), np.array([-1.0, 1.0])          # x = 1, x' = −1 on the unit ball
    X, X2 = np.outer(xt, xt), np.outer(xt2, xt2)
    assert np.sum(X * X2) == 0                                      # tr(XX') = (x̃ᵀx̃')² = 0
    for C, want in ((2, 4.0), (3, 6.0), (4, 6 * math.sqrt(2))):
        antipodal = np.linalg.norm((C - 1) * X - (C - 1) * X2)
        assert max(2 * C, antipodal) == pytest.approx(want)
        assert REG.value("pr.lemma1", {"K": C, "R_x": 1.0}, which="derived", warn=False) == pytest.approx(want)
    assert verdicts["pr.lemma1"].verdict == "refuted" and verdicts["pr.lemma1.grad"].verdict == "refuted"


# --------------------------------------------------------------------------- B12
def _huber(u: float, h: float) -> float:
    return 0.0 if u < -h else u if u > h else (u + h) ** 2 / (4 * h)


def _J(Ph, xs, ys, lam, h=0.5) -> float:
    tot = 0.0
    for x, y in zip(xs, ys, strict=True):
        xt = np.append(x, 1.0)
        q = [xt @ P @ xt for P in Ph]
        tot += sum(_huber(q[y] - q[c], h) for c in range(len(Ph)) if c != y)
    return tot + lam * sum(np.trace(P[:-1, :-1]) for P in Ph)


def test_b12_lemma2_has_its_own_exact_counterexample(verdicts):
    rng = np.random.default_rng(12)
    A = rng.normal(size=(2, 2, 2))
    Ph = np.einsum("kij,klj->kil", A, A)
    xs, ys, lam, t = rng.uniform(-1, 1, size=(7, 1)), rng.integers(0, 2, 7), 0.7, 3.0
    E = np.diag([0.0, 1.0])
    J0, J1, Jm = _J(Ph, xs, ys, lam), _J(Ph + t * E, xs, ys, lam), _J(Ph + t * E / 2, xs, ys, lam)
    assert J1 == pytest.approx(J0, abs=1e-9) and Jm == pytest.approx(J0, abs=1e-9)
    excess = Jm - (J0 / 2 + J1 / 2 - lam / 8 * 2 * t**2)             # Lemma 2 at α = 1/2, C = 2
    assert excess == pytest.approx(lam * t**2 / 4)                  # > 0: Lemma 2 fails
    (ex,) = [c for c in _checks("pr.lemma2") if c.kind == "exact"]
    assert not ex.ok and ex.severity == "invalid" and "lambda*t**2/4" in ex.detail
    assert ex.details["error"] == prb.ERR_NOT_STRONGLY_CONVEX
    assert verdicts["pr.lemma2"].verdict == "refuted" and verdicts["pr.lemma2"].root == ("pr.eq8.objective",)


# --------------------------------------------------------------------------- B13
def test_b13_objective_unbounded_below_is_the_root_of_theorem_5_2(evidence, verdicts):
    rng = np.random.default_rng(13)
    C, lam = 3, 2.0
    A = rng.normal(size=(C, 3, 3))
    Ph = np.einsum("kij,klj->kil", A, A)
    xs, ys = rng.uniform(-0.5, 0.5, size=(9, 2)), rng.integers(0, C, 9)
    b = rng.normal(size=(3, 3))
    b[2, 2] = -1.0

    def Jp(P):
        return _J(P, xs, ys, lam) + sum(np.sum(b * Q) for Q in P)

    E = np.zeros((3, 3))
    E[2, 2] = 1.0
    for t in (1.0, 10.0, 1000.0):   # Φ_c + tE stays PSD; J_p falls by C·t: no minimiser
        assert Jp(Ph + t * E) - Jp(Ph) == pytest.approx(C * t * b[2, 2], rel=1e-9)
    # P(b_(d+1,d+1) < 0) = 1/2 for the density ∝ exp(−ε‖b‖/2): Γ((d+1)², 2/ε) norm, uniform direction
    g = rng.standard_normal((200_000, 9))
    frac = np.mean(g[:, -1] / np.linalg.norm(g, axis=1) * rng.gamma(9, 2.0, 200_000) < 0)
    assert abs(frac - 0.5) < 0.005
    (ex,) = [c for c in _checks("pr.eq8.objective") if c.kind == "exact"]
    assert not ex.ok and ex.severity == "invalid" and ex.details["error"] == "objective-flat-along-E"
    assert "P(b_(d+1,d+1) < 0) = 1/2 exactly" in ex.detail
    v8 = verdicts["pr.eq8.objective"]
    assert v8.verdict == "refuted" and v8.finding == "result" and v8.root == ("pr.eq8.objective",)
    # Theorem 5.2: the violated rows inside the regime are the unbounded event, tagged with the same slug
    rows = [r for r in evidence if r.key == "pr.thm5_2" and r.verdict == "violated"]
    assert rows and all(r.details.get("error") == "objective-flat-along-E" for r in rows)
    assert all(r.details["unbounded_ci"][0] > r.details["delta"] for r in rows)
    v52 = verdicts["pr.thm5_2"]
    assert v52.verdict == "refuted" and v52.root == ("pr.eq8.objective",) and not v52.is_root


# --------------------------------------------------------------------------- B14, A5, A6
def test_b14_lemma4_holds_in_the_regime_with_the_exact_crossover(evidence, verdicts):
    # d = 1: P = δ⁴(1 + z + z²/2 + z³/6) with z = 4 log(1/δ), so P = δ ⟺ δ³(1 + z + z²/2 + z³/6) = 1
    star = optimize.brentq(lambda x: lemma4_ratio(1, x) - 1, 0.05, 0.99, xtol=1e-14)
    assert star == pytest.approx(0.307985, abs=5e-7)
    assert lemma4_ratio(1, star * 0.999) < 1 < lemma4_ratio(1, star * 1.001)
    # d ≥ 2: P/δ < 1 for every δ ∈ (0, 1); largest at d = 2 as δ → 1: P[Γ(9, 1) ≥ 9 log 2]
    sup2 = erlang_sf(9 * math.log(2), 9)
    assert sup2 == pytest.approx(0.82168, abs=1e-5) and lemma4_ratio(2, 0.999) == pytest.approx(0.8215, abs=1e-4)
    grid = np.logspace(-10, -0.0005, 300)
    assert max(lemma4_ratio(d, x) for d in range(2, 12) for x in grid) < sup2 + 1e-9
    checks = {c.name: c for c in _checks("pr.lemma4")}
    cross = checks["exact crossover at d = 1 lies outside the regime"]
    assert cross.ok and cross.details["crossover"] == pytest.approx(star, abs=1e-10)
    assert "0.8217" in checks["d ≥ 2: the stated threshold holds for every δ ∈ (0, 1)"].detail
    own = checks["stated threshold: its own exact tail P[‖b‖ ≥ t] ≤ δ"]
    assert not own.ok and own.regime == "outside" and own.details["points"]["failures_inside"] == 0
    assert not any(c.name.startswith("stated vs derived") for c in checks.values())     # A6: no union-bound count
    # A5: the shared convention δ ≤ 0.1; the rows at δ = 0.5 lie outside it
    assert REG.get("pr.lemma4").ns.regime.ranges["delta"] == (0.0, 0.1)
    for r in (r for r in evidence if r.key == "pr.lemma4"):
        assert r.regime == ("outside" if r.details["delta"] > 0.1 else "inside")
        assert r.verdict == "holds" or r.regime == "outside"
    v = verdicts["pr.lemma4"]
    assert v.verdict == "regime" and VERDICT_TEXT[v.verdict] == "holds in the paper's regime"
    assert "pr.lemma4" not in verdicts["pr.eq22"].root


# --------------------------------------------------------------------------- B16
def test_b16_cited_term_factor_is_4C_C_minus_1(verdicts):
    x = np.array([0.6, 0.8])                                   # ‖x‖ = 1
    xt = np.append(x, 1.0)
    X = np.outer(xt, xt)
    for C in (2, 3, 5):
        # all C − 1 Huber slopes at 1: ∂/∂Φ_y = (C − 1)X, ∂/∂Φ_c = −X
        G = math.sqrt(np.sum(((C - 1) * X) ** 2) + (C - 1) * np.sum(X**2))
        assert G**2 == pytest.approx(4 * C * (C - 1))
    assert 4 * 2 * 1 == 8
    hyp = {c.name: c for c in _checks("pr.thm5_3.sridharan")}
    lip = hyp["hypothesis: loss 1-Lipschitz in a feature of norm ≤ 1"]
    assert lip.details["lipschitz_factor"] == "4*K*(K - 1)" and lip.details["attained"]
    assert "8 at C = 2" in lip.detail and "error" not in lip.details                     # its own root
    sc = hyp["hypothesis: regulariser N 1-strongly convex"]
    assert sc.details["error"] == prb.ERR_NOT_STRONGLY_CONVEX                              # echo of B12
    v = verdicts["pr.thm5_3.sridharan"]
    assert v.verdict == "unsupported" and v.root[0] == "pr.thm5_3.sridharan"


# --------------------------------------------------------------------------- B17, B20 (kept)
def test_b17_b20_kept_no_correction_shown(verdicts):
    names = {c.name: c for c in _checks("pr.thm5_3")}
    assert not names["first term = λ × (22), as (21) requires"].ok
    assert not names["confidence: Lemma 4 and the cited bound each fail w.p. δ"].ok
    assert not {c.name: c for c in _checks("pr.eq23")}["Theorem 5.2 enters (23) twice (factor 2 of the cited bound)"].ok
    for k in ("pr.thm5_1", "pr.thm5_2", "pr.thm5_3", "pr.eq22"):
        assert not verdicts[k].corrected, k
    assert verdicts["pr.thm5_3"].verdict == "refuted" and verdicts["pr.eq23"].verdict == "unsupported"


# --------------------------------------------------------------------------- B18
def test_b18_huber_is_a_typo(verdicts):
    h = 0.5

    def printed(u):
        return 0.0 if -u > h else (h - u) ** 2 / (4 * h) if abs(u) <= h else -u

    def undone(u):   # (h − u)² → (h + u)², −u → u
        return 0.0 if -u > h else (h + u) ** 2 / (4 * h) if abs(u) <= h else u

    us = np.linspace(-2, 2, 401)
    assert abs(printed(-h - 1e-12) - printed(-h)) == pytest.approx(h)              # the printed pieces jump
    assert all(undone(u) == pytest.approx(_huber(u, h)) for u in us)              # slips undone = Chapelle
    v = verdicts["pr.eq6.huber"]
    assert v.verdict == "typo"
    fails = [c for c in _checks("pr.eq6.huber") if not c.ok]
    assert [c.severity for c in fails] == ["typo"] and "Φ_c − Φ_y" in fails[0].detail


# --------------------------------------------------------------------------- B19, A4
def test_b19_rate_d_is_a_typo_and_prints_two_exponents(verdicts):
    def thm53(d):
        K, eps, lam, delta, n = 3, 0.5, 10.0, 0.05, 100
        return (4 * math.sqrt(d) * (d + 1) ** 2 * K / (eps * lam) * math.log(d / delta)
                + 8 * (d + 1) ** 4 * K / (eps**2 * lam) * math.log(d / delta) ** 2 + 16 / (lam * n) * (32 + math.log(20)))

    slope = math.log(thm53(1e8) / thm53(1e7)) / math.log(10)
    assert 3.9 < slope < 4.3                                    # grows like d⁴, not d⁻¹
    checks = _checks("pr.s6.rate_d")
    assert all("stated/derived" not in c.detail and "-1/4" not in c.detail for c in checks)
    (c,) = checks
    assert c.details["claimed_exponent"] == "-1" and c.details["exponent_printed"] == "4"
    assert c.details["exponent_derived"] == "4" and c.severity == "typo"
    v = verdicts["pr.s6.rate_d"]
    assert v.verdict == "typo" and v.root == ("pr.s6.rate_d",)


# --------------------------------------------------------------------------- coverage (issue 23, item 9)
def test_coverage_lists_what_is_not_encoded():
    items = [i for i, _ in prb.PAPER.not_encoded]
    assert len(items) >= 10
    assert any("(12)–(13)" in i for i in items) and any("mixtures of Gaussians" in i for i in items)


# --------------------------------------------------------------------------- final review
def test_final_lemma1_grad_refuted_by_an_exact_instance(verdicts):
    xt = np.array([1.0, 1.0])                                  # x = 1 on the unit sphere, x̃ = (x, 1)
    slope = 1.0                                                # margin u > h: Huber slope 1
    val = np.linalg.norm(-slope * np.outer(xt, xt))
    assert val == pytest.approx(2.0) and val == pytest.approx(xt @ xt) and val > 1
    (ex,) = [c for c in _checks("pr.lemma1.grad") if c.kind == "exact"]
    assert not ex.ok and ex.severity == "invalid" and ex.details["error"] == prb.ERR_XTILDE
    assert ex.details["value"] == pytest.approx(val)
    v = verdicts["pr.lemma1.grad"]
    assert v.verdict == "refuted" and v.root == ("pr.lemma1.grad",) and v.corrected
    assert REG.value("pr.lemma1.grad", {"R_x": 1.0}, which="derived", warn=False) == pytest.approx(val)


def test_final_flat_direction_is_one_error(verdicts, evidence):
    # J(Φ + tE) = J(Φ) (Lemma 2 fails) and J_p(Φ + tE) − J_p(Φ) = C·t·b_(d+1,d+1) (J_p unbounded): one cause
    rng = np.random.default_rng(23)
    A = rng.normal(size=(2, 2, 2))
    Ph = np.einsum("kij,klj->kil", A, A)
    xs, ys, E = rng.uniform(-1, 1, size=(5, 1)), rng.integers(0, 2, 5), np.diag([0.0, 1.0])
    assert _J(Ph + 4 * E, xs, ys, 0.3) == pytest.approx(_J(Ph, xs, ys, 0.3), abs=1e-9)
    slugs = {c.details.get("error") for k in KEYS for c in _checks(k) if not c.ok}
    assert prb.ERR_FLAT in slugs and "objective-unbounded-below" not in slugs
    assert "objective-not-strongly-convex" not in slugs
    assert prb.ERR_UNBOUNDED == prb.ERR_NOT_STRONGLY_CONVEX == prb.ERR_FLAT
    carriers = [k for k in KEYS if prb.ERR_FLAT in verdicts[k].errors]
    # each names it as a root, or (by counterfactual, issue 34) as "also rests on (no effect here)"
    assert len(carriers) >= 6 and all("pr.eq8.objective" in (*verdicts[k].root, *verdicts[k].no_effect)
                                      for k in carriers)
    # the only statement whose whole finding is this error and that is a root: eq8.objective (first in paper order);
    # a root that names it "also rests on (no effect here)" (issue 34) is a root for its other, unslugged failure
    assert [k for k in carriers if verdicts[k].is_root and set(verdicts[k].errors) == {prb.ERR_FLAT}
            and verdicts[k].root == (k,) and "pr.eq8.objective" not in verdicts[k].no_effect] == ["pr.eq8.objective"]
    for k in ("pr.lemma2", "pr.thm5_2", "pr.eq18"):
        assert verdicts[k].root == ("pr.eq8.objective",) and not verdicts[k].is_root, k


def test_final_thm5_3_own_slips_have_their_own_slugs(verdicts):
    c = {x.name: x for x in _checks("pr.thm5_3")}
    assert c["first term = λ × (22), as (21) requires"].details["error"] == prb.ERR_T53_LAMBDA
    assert c["confidence: Lemma 4 and the cited bound each fail w.p. δ"].details["error"] == prb.ERR_T53_DELTA
    two = c["second term = 2 × Theorem 5.2, as the cited bound requires"]
    assert not two.ok and two.details["error"] == prb.ERR_EQ23_FACTOR2
    # independently: the printed second term is 8(d+1)⁴C/(ε²λ)log²(d/δ), Theorem 5.2 the same: ratio 1/2
    d, K, eps, lam, delta = 2, 3, 0.5, 4.0, 0.05
    t52 = 8 * (d + 1) ** 4 * K / (eps**2 * lam) * math.log(d / delta) ** 2
    assert t52 / (2 * t52) == 0.5
    # the 1/λ: (21) multiplies (22) by λ, the theorem keeps 4√d(d+1)²C/(ελ)log(d/δ)
    first = 4 * math.sqrt(d) * (d + 1) ** 2 * K / (eps * lam) * math.log(d / delta)
    assert first / (lam * first) == pytest.approx(1 / lam)
    v = verdicts["pr.thm5_3"]
    assert v.verdict == "refuted" and v.root[0] == "pr.thm5_3"
    # by counterfactual (issue 34): with (23) corrected Theorem 5.3 is still refuted by its own slips
    assert "pr.eq8.objective" in v.root and "pr.eq23" in v.no_effect
    assert prb.ERR_T53_LAMBDA in v.errors and prb.ERR_T53_DELTA in v.errors


def test_final_ltilde_readings_on_n_scaling_checks(verdicts):
    n, lam, delta = 1000, 2.0, 0.05
    printed = 16 / (lam * n) * (32 + math.log(1 / delta))
    rescaled = n * 16 / ((lam / n) * n) * (32 + math.log(1 / delta))    # reading 'sum': n × term(Λ = λ/n)
    assert printed / rescaled == pytest.approx(n**-2)
    for key in ("pr.eq23", "pr.thm5_3"):
        assert list(REG.get(key).readings) == ["sum", "mean"]
    c23 = {x.name: x for x in _checks("pr.eq23")}
    assert c23["cited term in the paper's scale"].details["reading"] == "sum"
    assert c23["cited term in the paper's scale"].details["error"] == prb.ERR_EQ23_SCALE
    assert c23["Theorem 5.2 enters (23) twice (factor 2 of the cited bound)"].details["error"] == prb.ERR_EQ23_FACTOR2
    assert c23["cited term as printed (per-example L̃)"].ok
    c53 = {x.name: x for x in _checks("pr.thm5_3")}
    assert c53["stated and derived bounds depend on n alike"].details["reading"] == "sum"
    assert verdicts["pr.eq23"].verdict == "unsupported" and verdicts["pr.eq23"].root[0] == "pr.eq23"


def test_final_thm5_1_alpha_readings_and_audit_rows():
    st = REG.get("pr.thm5_1")
    assert list(st.readings) == ["alpha=4/h", "any alpha"]
    # the audit's claim with α: ε' = ε + 2 log(1 + α/(mλ)); the largest α it refutes at lower bound L
    eps, m, lam, lower = 0.5, 40, 20.0, 2.0
    a_max = m * lam * math.expm1((lower - eps) / 2)
    assert eps + 2 * math.log1p(a_max / (m * lam)) == pytest.approx(lower)
    assert a_max > 4 / emp.H
    rows = emp.audits(n=4000, seed=0)
    for r in rows:
        if r.verdict == "violated":
            assert f"every α ≤ {r.details['alpha_refuted_up_to']:.0f}" in r.name and "reading" not in r.details
            assert r.details["alpha_refuted_up_to"] > 4 / emp.H
