"""The registry's status machinery, input validation and the derivation-check primitives."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
import sympy as sp
from scipy import integrate

from bounds import registry
from bounds.checks import (
    balance,
    density_integrates_to_one,
    laplace_density,
    leading_exponent,
    rate_check,
)
from bounds.core import PrivacyWarning, Registry, Statement
from bounds.symbols import S

m, eps, lam, beta = S.m, S.eps, S.lam, S.beta


def _reg_with(stated, derive, relation="upper", **kw) -> Registry:
    reg = Registry()
    reg.add(
        Statement("t.x", "seed.txt", "Theorem 0", "theorem", "q", stated, derive=derive, relation=relation,
                  params=tuple(kw.pop("params", ("kappa", "C_L", "lam", "gamma", "m"))), **kw)
    )
    return reg


def test_status_is_computed_not_typed() -> None:
    k, C, g = S.kappa, S.C_L, S.gamma
    true = 2 * k * C / (lam * g * m)
    assert _reg_with(true, lambda d: true).evaluate("t.x").status == "consistent"
    # a stated upper bound smaller than what the proof gives is an erratum ...
    assert _reg_with(true / 2, lambda d: true).evaluate("t.x").status == "erratum"
    # ... a larger one is a valid relaxation, with its slack reported
    ev = _reg_with(3 * true, lambda d: true).evaluate("t.x")
    assert ev.status == "consistent" and ev.checks[0].slack == pytest.approx(3.0)
    # an exact quantity that differs is an erratum even when larger
    assert _reg_with(3 * true, lambda d: true, relation="eq").evaluate("t.x").status == "erratum"


def test_cited_and_premise_statuses() -> None:
    reg = Registry()
    reg.add(Statement("t.p", "s", "Definition 1", "definition", "q", sp.exp(eps), relation="none", params=("eps",)))
    reg.add(Statement("t.c", "s", "Lemma 1", "lemma", "q", eps, derive=lambda d: eps, cited="Hoeffding", params=("eps",)))
    assert reg.evaluate("t.p").status == "premise"
    assert reg.evaluate("t.c").status == "cited"


def test_inheritance_is_reported() -> None:
    ev = registry.evaluate("jia.s5_2.scale")
    assert ev.status == "erratum"
    assert "jia.prop1.scale" in ev.inherits
    # Proposition 3's missing factor C_L is its own erratum, not inherited
    assert registry.evaluate("jia.prop3").inherits == ()


def test_coverage_of_numbered_results() -> None:
    labels = {}
    for st in registry:
        labels.setdefault(st.paper, set()).add(st.label)
    assert {"Definition 1", "Definition 2", "Theorem 1", "Theorem 2", "Theorem 3", "Theorem 4", "Lemma 1", "Lemma 2",
            "Proposition 1", "Proposition 2", "Proposition 3", "Proposition 4", "Section 5.1", "Section 5.2"} <= labels["jia"]
    assert {"Definition 1", "Definition 2", "Theorem 1", "Theorem 2", "Theorem 3", "Lemma 1", "Lemma 2", "Lemma 3",
            "Proposition 1", "Proposition 2", "Proposition 3", "Proposition 4"} <= labels["jamp"]
    assert {"Definition 1", "Definition 2", "Theorem 1", "Theorem 2", "Lemma 1", "Lemma 2", "Lemma 3"} <= labels["jcc"]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "values, fragment",
    [
        (dict(kappa=1, C_L=1, lam=0, gamma=2, m=100), "lam > 0"),
        (dict(kappa=1, C_L=1, lam=-1, gamma=2, m=100), "lam > 0"),
        (dict(kappa=1, C_L=1, lam=0.1, gamma=2, m=1), "m >= 2"),
        (dict(kappa=1, C_L=1, lam=0.1, gamma=2, m=10.5), "integer"),
        (dict(kappa=1, C_L=1, lam=math.nan, gamma=2, m=100), "finite"),
        (dict(kappa=1, C_L=1, lam=math.inf, gamma=2, m=100), "finite"),
        (dict(kappa=1, C_L=1, lam=0.1, gamma=2), "missing"),
        (dict(kappa=1, C_L=1, lam=0.1, gamma=2, m=100, zeta=1), "not used"),
    ],
)
def test_bad_input_names_parameter_statement_assumption(values, fragment) -> None:
    with pytest.raises(ValueError) as ei:
        registry.value("jia.thm2", values)
    msg = str(ei.value)
    assert fragment in msg and "jia.thm2" in msg and "Theorem 2" in msg


@pytest.mark.parametrize(
    "key, values, fragment",
    [
        ("jia.prop1.scale", dict(kappa=1, C_L=1, lam=0.1, gamma=2, m=100, eps=0), "eps > 0"),
        ("jamp.prop4.approx_K", dict(lam=0.1, r=-1, kappa=1, fnorm=1), "r > 0"),
        ("jia.eq4", dict(c_beta=1, lam=0.1, beta=1.5), "beta <= 1"),
        ("jia.eq4", dict(c_beta=1, lam=0.1, beta=0), "beta > 0"),
        ("jamp.lemma2", dict(R=0.5, kappa=1, lam=0.1, m=100), None),
    ],
)
def test_domain_violations(key, values, fragment) -> None:
    if fragment is None:
        # R = 0.5 is admissible by itself; R ≥ M is checked only when M is given
        registry.value(key, values)
        return
    with pytest.raises(ValueError, match=fragment.replace("+", r"\+")):
        registry.value(key, values)


def test_joint_constraint_violation() -> None:
    with pytest.raises(ValueError, match="lambda <= 1|lam <= 1"):
        registry.value("jamp.lemma2.K", dict(R=2, kappa=1, lam=2.0, m=100, M=1))


def test_meaningful_privacy_warning() -> None:
    v = dict(kappa=1, C_L=1, lam=0.1, gamma=2, m=100, eps=2.0)
    with pytest.warns(PrivacyWarning, match="eps < 1"):
        registry.value("jia.prop1.scale", v)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        registry.value("jia.prop1.scale", dict(v, eps=0.5))


# ------------------------------------------------------------------ primitives
def test_leading_exponent_matches_numeric_slope() -> None:
    e = 3 * m ** sp.Rational(-1, 3) + 5 / sp.sqrt(m) + (sp.exp(1 / sp.sqrt(m)) - 1) * 7
    got = leading_exponent(e, m)
    f = sp.lambdify(m, e)
    slope = (math.log(f(1e44)) - math.log(f(1e40))) / (math.log(1e44) - math.log(1e40))
    assert float(got) == pytest.approx(-1 / 3)
    assert slope == pytest.approx(-1 / 3, abs=1e-3)


def test_expm1_cancellation_is_kept() -> None:
    # e^ε − 1 with ε = m^(−1/4) decays like m^(−1/4), not like a constant
    assert leading_exponent(sp.exp(m ** sp.Rational(-1, 4)) - 1, m) == sp.Rational(-1, 4)


def test_balance_solves_power_laws() -> None:
    # ε balancing ε against 1/(λ m ε) is (λ m)^(−1/2)
    got = balance(eps, 1 / (lam * m * eps), eps, (lam, m))
    assert sp.simplify(got - 1 / sp.sqrt(lam * m)) == 0


def test_rate_check_detects_wrong_claim() -> None:
    from bounds.paper import Paper

    demo = Paper("t", title="t", citation="Doe (2026)")
    demo.define("beta", beta, hi=1, hi_open=False)
    st = demo.add("r", "Theorem 9", "rate", "q", None, params=("m", "beta"))
    bound = m ** (-beta / (2 * beta + 1)) + 1 / sp.sqrt(m)
    assert rate_check(st, bound, -beta / (2 * beta + 1)).ok
    assert not rate_check(st, bound, -beta / (beta + 1)).ok


def test_density_checks_against_quadrature() -> None:
    s = sp.Rational(3, 7)
    assert density_integrates_to_one(laplace_density(s)).ok
    f = sp.lambdify(S.b, laplace_density(s))
    val, _ = integrate.quad(f, -np.inf, np.inf)
    assert val == pytest.approx(1.0)
    bad = sp.exp(sp.Abs(S.b))  # grows: the sign error of 003 Theorem 1
    assert not density_integrates_to_one(bad).ok


def test_laplace_privacy_ratio_by_sampling() -> None:
    """The derived noise of 000 Prop. 1 satisfies p(b)/p(b + Δ) ≤ e^ε; the stated one reaches e^(2ε)."""
    vals = dict(kappa=1.3, C_L=2.0, lam=0.2, gamma=2.0, m=50, eps=0.4)
    delta = registry.value("jia.prop1.sensitivity", {k: vals[k] for k in ("kappa", "C_L", "lam", "gamma", "m")})
    bs = np.linspace(-3, 3, 61)
    for which, limit in (("derived", 0.4), ("stated", 0.8)):
        r = [
            math.log(registry.value("jia.prop1.density", dict(vals, b=x), which=which)
                     / registry.value("jia.prop1.density", dict(vals, b=x + delta), which=which))
            for x in bs
        ]
        assert max(r) == pytest.approx(limit, rel=1e-9)


def test_order_statements_get_the_order_status_and_can_still_fail():
    import sympy as sp

    from bounds.checks import rate_check
    from bounds.core import Registry
    from bounds.paper import Paper
    from bounds.symbols import S

    demo = Paper("demo_o", title="Demo", citation="Doe (2026)", seed="999_demo.txt")
    add = demo.add
    C = sp.Symbol("C_order", positive=True)
    add("rate", "Theorem 1", "order", "excess risk, up to a constant", C * S.m ** sp.Rational(-2, 3),
        params=("m",), relation="none", doc="999_demo.txt, Thm 1.",
        checks=(lambda st, dep: rate_check(st, dep(st.key), sp.Rational(-2, 3)),))
    add("bad", "Theorem 2", "order", "excess risk, up to a constant", C * S.m ** sp.Rational(-1, 2),
        params=("m",), relation="none", doc="999_demo.txt, Thm 2.",
        checks=(lambda st, dep: rate_check(st, dep(st.key), sp.Rational(-2, 3)),))
    reg = Registry([demo])
    assert reg.evaluate("demo_o.rate").status == "order"
    assert reg.evaluate("demo_o.bad").status == "erratum"


def test_spot_slope_is_exact_arithmetic_and_confirms_or_refutes_an_exponent():
    # no time budget decides it: the same slope on every machine, log factors inside the tolerance
    import sympy as sp

    import bounds.checks as C

    m = sp.Symbol("m", positive=True)
    assert abs(C._spot_slope(m ** sp.Rational(-1, 3) * sp.log(m) ** 3, m) + 1 / 3) < C.SPOT_TOL
    assert abs(C._spot_slope(2 / m + m ** sp.Rational(-1, 2), m) + 0.5) < 1e-12
    assert C._spot_slope(-1 / m, m) is None                    # not a positive bound: undecided, not a failure
    assert abs(C._spot_slope(m ** sp.Rational(-2, 5), m) + 1 / 3) > C.SPOT_TOL   # a wrong claim is seen
