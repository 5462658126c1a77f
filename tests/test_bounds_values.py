"""Every statement of seeds 000, 001 and 003 evaluated at a point.

The expected numbers are computed here, in plain Python, from the formulas as
the papers print them (and, for errata, from the corrected derivation worked
out by hand in the comments) — never from the expressions in ``bounds``.
"""

from __future__ import annotations

import math

import pytest

from bounds import registry
from bounds.verdict import verdicts as verdicts_of

# one admissible point for every parameter (λ ≤ 1, R ≥ M, θ > 1/2, t₀^θ ≥ κ²+1 all hold)
V = dict(
    m=1000, eps=0.5, lam=0.1, kappa=1.5, M=2.0, C_L=3.0, gamma=2.0, B=4.0, B0=1.5, B_rho=2.5, Omega0=0.7,
    c_beta=1.2, beta=0.5, r=0.75, R=25.0, G=3.0, delta=0.05, t=50, t0=9.0, theta=0.75, fnorm=1.3, ER2=0.4,
    u=0.3, Xi=2.0, mu=0.5, b=0.3, B_Delta=0.2, Delta_pi=0.2, C_t=0.2, C_tilde=2.0, B_mart=0.5, sigma_t=0.7,
    tau=0.0,   # an exact minimiser (the relaxed premise at the paper's value)
)
m, eps, lam, k, M, CL, g = V["m"], V["eps"], V["lam"], V["kappa"], V["M"], V["C_L"], V["gamma"]
B, B0, Brho, Om, cb, be, r = V["B"], V["B0"], V["B_rho"], V["Omega0"], V["c_beta"], V["beta"], V["r"]
R, G, dl, t, t0, th, fn, ER2 = V["R"], V["G"], V["delta"], V["t"], V["t0"], V["theta"], V["fnorm"], V["ER2"]
u, Xi, mu, b = V["u"], V["Xi"], V["mu"], V["b"]
SQ2PI = math.sqrt(2 * math.pi)


def lap(x: float, s: float) -> float:
    """Laplace density (1/(2s)) exp(−|x|/s)."""
    return math.exp(-abs(x) / s) / (2 * s)


# ---------------------------------------------------------------- seed 000 (jia)
a1 = 2 * k**2 * CL / (lam * g * m * eps)  # α of Proposition 1
ER2_derived = 2 * k**2 * CL**2 / (lam * g * m * eps)  # C_L·E|b| with the corrected scale 2κ²C_L/(λγmε)
CL_ls_st = 2 * M * (k + 1) / math.sqrt(lam)
CL_ls_der = 2 * M * (k / math.sqrt(lam) + 1)
a_ls = 2 * M * k**2 * (k + 1) / (lam**1.5 * m * eps)
s_ls = 2 * k**2 * CL_ls_der / (2 * lam * m * eps)  # Δf/ε with γ = 2 and the derived C_L
Eb2_st = 2 * M**2 * k**4 * (k + 1) ** 2 / (lam**3 * m**2 * eps**2)
a_h = k**2 / (lam * m * eps)


def thm4_bound_st(B0_, Om_, CL_, g_, Br_):
    return 2 * (B0_ + lam * Om_) * eps + (1 + 2 * eps) * k**2 * CL_ / (lam * g_ * m * eps) + 2 * SQ2PI * Br_ / math.sqrt(m) + cb * lam**be


def thm4_bound_der(B0_, Om_, CL_, g_, Br_):
    er2 = 2 * k**2 * CL_**2 / (lam * g_ * m * eps)  # corrected Proposition 3
    # Proposition 2 from its proof's step: E R(f_A) − R(f) ≤ (e^ε − 1)(B₀ + λΩ(0) + E R₂) (the stated
    # 4(B₀+λΩ)ε + 2ε E R₂ is valid only for ε ≲ 1.26); then + E R₂ + S + D
    return (math.exp(eps) - 1) * (B0_ + lam * Om_ + er2) + er2 + 2 * SQ2PI * Br_ / math.sqrt(m) + cb * lam**be


rate4 = -be / (2 * be + 1)
# Theorem 4 derived: with ε = 1/√(λm) ≤ 1, e^ε − 1 ≤ (e − 1)ε, so every term is a constant times m^rate:
# (e−1)(B₀ + Ω) + (e − 1 + 1)·2κ²C_L²/γ + c_β; the sample error E[E(f_λ) − E_z(f_λ)] is exactly 0 in
# expectation (f_λ does not depend on the sample), so Theorem 4's expected excess risk has no B_ρ term
C4_der = (math.e - 1) * (B0 + Om) + math.e * 2 * k**2 * CL**2 / g + cb

JIA = {
    "jia.def1": (math.exp(eps), None),
    "jia.thm1": (math.sqrt(16 * B / (lam * g * m)), None),
    "jia.thm2": (2 * k * CL / (lam * g * m), None),
    "jia.lemma1": (lap(b, V["B_Delta"] / eps), None),
    "jia.prop1.sensitivity": (2 * k**2 * CL / (lam * g * m), None),
    "jia.prop1.density": (math.exp(-lam * g * m * eps * abs(b) / (k**2 * CL)) / a1, lap(b, a1)),
    "jia.prop1.scale": (k**2 * CL / (lam * g * m * eps), a1),
    "jia.thm3.lower": (2 * G * eps, None),
    "jia.thm3.upper": (2 * G * eps, G * (math.exp(eps) - 1)),   # (e^ε − 1)G: 2εG only for ε ≲ 1.26
    "jia.prop2": (2 * (2 * (B0 + lam * Om)) * eps + 2 * eps * ER2, None),
    "jia.prop3": (k**2 * CL / (lam * g * m * eps), ER2_derived),
    "jia.lemma2": (2 * math.exp(-m * u**2 / (2 * Xi**2)), None),
    "jia.prop4": (2 * SQ2PI * Brho / math.sqrt(m), None),
    "jia.eq4": (cb * lam**be, None),
    "jia.thm4.bound": (thm4_bound_st(B0, Om, CL, g, Brho), thm4_bound_der(B0, Om, CL, g, Brho)),
    "jia.thm4.eps_schedule": (1 / math.sqrt(lam * m), None),
    "jia.thm4.lam_schedule": (m ** (-1 / (2 * be + 1)), None),
    "jia.thm4": ((2 * B0 + 2 * Om + 3 * k**2 * CL / g + cb) * m**rate4, C4_der * m**rate4),
    "jia.s5_1.gamma": (2.0, None),
    "jia.s5_1.C_L": (CL_ls_st, CL_ls_der),
    "jia.s5_1.density": (math.exp(-2 * abs(b) / a_ls) / a_ls, lap(b, s_ls)),
    "jia.s5_1.scale": (a_ls / 2, s_ls),
    "jia.s5_1.Eb2": (Eb2_st, Eb2_st),   # exact for §5.1's own density (issue 34: E b² follows)
    "jia.s5_1.bound": (
        2 * (M**2 + Eb2_st) * eps + Eb2_st + 8 * SQ2PI * M**2 / math.sqrt(m) + cb * lam**be,
        (M**2 + 2 * s_ls**2) * (math.exp(eps) - 1) + 2 * s_ls**2 + 8 * SQ2PI * M**2 / math.sqrt(m) + cb * lam**be,
    ),
    "jia.s5_1.eps_schedule": (1 / (lam * m ** (2 / 3)), None),
    "jia.s5_1.lam_schedule": (m ** (-2 / (3 * (be + 1))), None),
    "jia.s5_1.rate": (V["C_tilde"] * m ** (-2 * be / (3 * (be + 1))), None),
    "jia.s5_2.C_L": (1.0, None),
    "jia.s5_2.density": (math.exp(-2 * abs(b) / a_h) / a_h, lap(b, a_h)),
    "jia.s5_2.scale": (a_h / 2, a_h),
    "jia.s5_1.B_rho": (4 * M**2, 4 * M**2),
    "jia.s5_2.B_rho": ((M + 1) ** 2, None),
    "jia.s5_2.comparison": (math.sqrt(2 * u), None),
    "jia.s5_2.bound": (
        math.sqrt(2 * thm4_bound_st(1, 0, 1, 2, (M + 1) ** 2)),
        math.sqrt(2 * thm4_bound_der(1, 0, 1, 2, (M + 1) ** 2)),
    ),
    "jia.s5_2.rate": (V["C_tilde"] * m ** (-be / (2 * (2 * be + 1))), None),
}

# ---------------------------------------------------------------- seed 001 (jamp)
W = k**4 * (k + 1) ** 2
s_j = 2 * R * k**2 * (k + 1) / (lam * m * eps)
approx = lam ** min(2 * r, 1) * (k ** (4 * r - 2) + k ** (4 * r - 4) + 2) * fn**2
prop4 = 8 * SQ2PI * M**2 / math.sqrt(m) + approx
rate2 = -min(0.5, 4 * r / (3 + 2 * r))
rate3 = -min(1 / 3, 4 * r / (3 + 6 * r))
Ceps = 24 * M**2 * W / eps**2 + 8 * SQ2PI * M**2 * (1 + 2 * eps) + (k ** (4 * r - 2) + k ** (4 * r - 4) + 2) * fn**2
# Theorem 2 derived: (1+2ε)(E b² + S + D) with R = M/√λ, at m = 1 (λ = 1)
C2_der = (1 + 2 * eps) * (8 * M**2 * W / eps**2 + 8 * SQ2PI * M**2 + (k ** (4 * r - 2) + k ** (4 * r - 4) + 2) * fn**2)
JAMP = {
    "jamp.def1": (math.exp(eps), None),
    "jamp.thm1.lower": (2 * G * eps, G * (math.exp(eps) - 1)),
    "jamp.thm1.upper": (2 * G * eps, G * (math.exp(eps) - 1)),
    "jamp.lemma1": (lap(b, V["Delta_pi"] / eps), None),
    "jamp.lemma2.K": (2 * R * k * (k + 1) / (lam * m), None),
    "jamp.lemma2": (2 * R * k**2 * (k + 1) / (lam * m), None),
    "jamp.clip": (1.0, None),
    # the density is an erratum only for the function-release model; its derived scale equals the stated one
    "jamp.prop1.density": (math.exp(-lam * m * eps * abs(b) / (2 * R * k**2 * (k + 1))) / (2 * s_j), lap(b, s_j)),
    "jamp.prop1.scale": (s_j, None),
    "jamp.prop3": (8 * R**2 * W / (lam**2 * m**2 * eps**2), None),
    "jamp.prop2": (8 * eps * (2 * R**2 * W / (lam**2 * m**2 * eps**2) + M**2),
                   4 * (math.exp(eps) - 1) * (2 * R**2 * W / (lam**2 * m**2 * eps**2) + M**2)),   # Thm 1's e^ε − 1
    "jamp.lemma3": (2 * math.exp(-m * u**2 / (2 * Xi**2)), None),
    "jamp.prop4.sample": (8 * SQ2PI * M**2 / math.sqrt(m), None),
    "jamp.prop4.approx_L2": (lam ** min(2 * r, 2) * (k ** (4 * (r - 1)) + 1) * fn**2, None),
    "jamp.prop4.approx_K": (lam ** min(2 * r, 1) * (k ** (4 * r - 2) + 1) * fn**2, None),
    "jamp.prop4": (prop4, None),
    "jamp.thm2.bound": (
        24 * M**2 * W / (lam**3 * m**2 * eps**2) + 8 * SQ2PI * M**2 * (1 + 2 * eps) / math.sqrt(m) + approx,
        (1 + 2 * eps) * 8 * (M**2 / lam) * W / (lam**2 * m**2 * eps**2) + (1 + 2 * eps) * prop4,
    ),
    "jamp.thm2.lam_schedule": ((1 / m) ** (2 / min(4, 3 + 2 * r)), None),
    "jamp.thm2": (Ceps * m**rate2, C2_der * m**rate2),
    "jamp.thm3.bound": (8 * M**2 * eps + 24 * M**2 * W / (lam**3 * m**2 * eps**2) + 8 * SQ2PI * M**2 / math.sqrt(m) + approx, None),
    "jamp.thm3.lam_schedule": ((1 / (m * eps)) ** (2 / min(4, 3 + 2 * r)), None),
    "jamp.thm3.eps_schedule": ((1 / m) ** min(1 / 3, 4 * r / (3 + 6 * r)), None),
    "jamp.thm3": (
        (8 * (1 + SQ2PI) * M**2 + 24 * M**2 * W + (k ** (4 * r - 2) + k ** (4 * r - 4) + 2) * fn**2) * m**rate3,
        None,
    ),
}

# ---------------------------------------------------------------- seed 003 (jcc)
Cbr = M * k + (k**2 + 1) * fn
eta_t = (t + t0) ** (-th)
eq17 = 2 * k**2 * (k**2 + 1) * M / (t - 1 + t0) ** (2 * th - 1)
Ct_st = 2 * (k**2 + 1) * k * M / (t - 1 + t0) ** (2 * th - 1)
JCC = {
    "jcc.def1": (math.exp(eps), None),
    "jcc.eta": ((t + t0) ** (-th), None),
    "jcc.lambda": ((t + t0) ** (th - 1), None),
    "jcc.lemma1": (lap(b, V["C_t"] / eps), None),
    "jcc.lemma2": (k * M * (t + t0) ** (1 - th), None),
    "jcc.eq16": (2 * (t - 1 + t0) ** (-th) * (k**2 * M * (t - 1 + t0) ** (1 - th) + M) * k, None),
    "jcc.eq17": (eq17, None),
    "jcc.thm1.C_t": (Ct_st, eq17),
    "jcc.thm1.density": (math.exp(eps * abs(b) / Ct_st) / (2 * Ct_st / eps), lap(b, eq17 / eps)),
    "jcc.initial": (t0 / (t + t0) * fn, None),
    "jcc.lemma3": (2 * (V["B_mart"] / 3 + V["sigma_t"]) * math.log(2 / dl), None),
    "jcc.eq24": (eta_t * Cbr, None),
    # (25) is an erratum (proof gap); its derived form is Lemma 3 with B = η_tC, σ_t = √t η_tC
    "jcc.eq25": (8 / 3 * t ** (0.5 - th) * Cbr * math.log(2 / dl), 2 * (eta_t * Cbr / 3 + math.sqrt(t) * eta_t * Cbr) * math.log(2 / dl)),
    "jcc.eq26": (11 / 3 * t ** (0.5 - th) * Cbr * math.log(2 / dl), None),
    "jcc.thm2": ((4 * (k**2 + 1) * k * M / eps + t0 * fn + 11 / 3 * Cbr) * t ** (0.5 - th) * 4 / dl, None),
}

CASES = {**JIA, **JAMP, **JCC}


def _vals(key: str, which: str) -> dict[str, float]:
    ev = registry.evaluate(key)
    expr = ev.statement.stated if which == "stated" else ev.expression
    ns = ev.statement.ns
    names = {ns.by_symbol(s).name for s in ns.known(expr.free_symbols)}
    return {n: V[n] for n in names}


@pytest.mark.parametrize("key", sorted(CASES))
def test_stated_value(key: str) -> None:
    want, _ = CASES[key]
    got = registry.value(key, _vals(key, "stated"), which="stated")
    assert got == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("key", sorted(CASES))
def test_numeric_use_value(key: str) -> None:
    """The expression for numeric use: derived for an erratum or any failing check (a failing hypothesis alone
    keeps the stated one), the stated one otherwise."""
    stated, derived = CASES[key]
    ev = registry.evaluate(key)
    got = registry.value(key, _vals(key, "derived"))
    failing = ev.status == "erratum" or any(not c.ok and not c.details.get("hypothesis") for c in ev.checks)
    if failing and derived is None:
        pytest.skip(f"{key} fails under the wider sampling of issue 11; its derived value is not hand-computed yet")
    if failing:
        assert got == pytest.approx(derived, rel=1e-9)
    else:
        assert got == pytest.approx(stated, rel=1e-9)


def test_every_numeric_statement_has_a_case() -> None:
    missing = [
        k
        for k in registry.keys()
        if k.split(".")[0] in ("jia", "jamp", "jcc")
        and registry.get(k).stated is not None
        and registry.get(k).ns.known(registry.get(k).stated.free_symbols) == registry.get(k).stated.free_symbols
        and k not in CASES
    ]
    assert missing == []


# errata the papers contain, as computed by the checks (a regression guard on the findings; the
# values above pin the numbers, these pin the verdicts that a reader of the report relies on)
EXPECTED_ERRATA = {
    "jia.prop1.scale",  # Laplace scale is half of Δf/ε (Prop. 1 is 2ε-DP)
    "jia.prop3",  # C_L E|b| = κ²C_L²/(λγmε), not κ²C_L/(λγmε)
    "jia.thm4",  # inherits Prop. 3's dropped C_L (E R₂ = κ²C_L²/(λγmε)) and Prop. 1's halved scale
    "jamp.thm2.bound",  # (1+2ε) dropped on the approximation term
    "jcc.thm1.C_t",  # K-norm bound used where the sup-norm bound (17) is needed
    "jcc.thm1.density",  # density printed without its minus sign
}
# findings about a proof step, with the verdict on the statement itself (issue 23): the sup-norm step
# fails in 000 and 001; in 001's Proposition 4 the statement holds by another route (the sample error
# has mean zero), in 000's B_ρ it does not; 003's (25) is false on an exact one-point instance
EXPECTED_PROOF_FINDINGS = {
    "jia.s5_2.B_rho": "refuted",  # ‖f_λ‖_∞ ≤ M, printed outright in §5.2, fails for f_λ = (L_K + λI)⁻¹L_K f_ρ
    "jamp.prop4.sample": "gap",  # the same sup-norm claim; E[E(f_λ) − E_z(f_λ)] = 0 is the other route
    "jcc.eq25": "refuted",  # Lemma 3 applied to non-martingale differences; the bias outlives the bound
}


def test_known_findings_are_found() -> None:
    found = {k for k in EXPECTED_ERRATA if registry.evaluate(k).status == "erratum"}
    assert found == EXPECTED_ERRATA
    verdicts = verdicts_of(registry, [])
    for k, want in EXPECTED_PROOF_FINDINGS.items():
        assert verdicts[k].verdict == want, (k, verdicts[k].verdict)
    for k in ("jamp.prop4.sample",):
        assert registry.evaluate(k).status != "erratum", k   # the derivation itself holds


def test_consistent_results_are_not_flagged() -> None:
    for k in ("jia.thm2", "jia.prop4", "jamp.prop1.scale", "jamp.prop2", "jamp.thm3", "jcc.eq17"):
        assert registry.evaluate(k).status == "consistent", k


def test_jcc_thm2_inherits_the_calibration_of_theorem_1() -> None:
    """(27) spends the noise term on C_t of (12) = 2(κ²+1)κM/…, below the sup-norm sensitivity (17) by a
    factor κ; for κ > 4 (and t₀ large) the stated bound is below the one with the sensitivity of (17)."""
    # its roots: the calibration of Theorem 1 and the regularisation bias that (25) drops
    # by counterfactual (issue 34) the calibration of Theorem 1 changes no outcome of (27): it is refuted anyway
    v = verdicts_of(registry, [])["jcc.thm2"]
    assert v.root == ("jcc.eq25",) and v.no_effect == ("jcc.thm1.C_t",)
    # an independent point: κ = 20, M = 1, ε = 0.5, t = 6, t₀ = 6·10⁴ (t₀^θ ≥ κ² + 1), θ = 0.55, ‖f_ρ‖ = 1e-3
    kk, MM, ee, tt, tz, thh, ff, dd = 20.0, 1.0, 0.5, 6, 6e4, 0.55, 1e-3, 1e-4
    assert tz**thh >= kk**2 + 1
    C = MM * kk + ff * (kk**2 + 1)
    stated = 4 * tt ** (0.5 - thh) * (4 * (kk**2 + 1) * kk * MM / ee + tz * ff + 11 / 3 * C) / dd
    noise17 = 2 / dd * 2 * kk**2 * (kk**2 + 1) * MM / (tt + tz) ** (2 * thh - 1) / ee
    assert noise17 > stated   # the noise term alone, with the sensitivity (17), exceeds the stated bound
