"""``bounds.calibrate`` and ``python -m bounds calibrate``: the stated, derived and tight noise of every
mechanism statement side by side, the ε each spends, and each form's verdict (issue 24).

The numbers are checked against the papers' formulas computed here independently, and the tight
calibrations against the accountant's own definition (the ε it certifies is the target ε)."""

from __future__ import annotations

import json
import math

import pytest

import bounds
from bounds import calibrate as cal
from bounds import pick
from bounds.cli import main as cli_main

CMS2 = dict(eps=1.0, n=1000, Lam=0.1, c=0.25)


def test_mechanism_statements_are_discovered():
    keys = cal.mechanism_keys()
    reg = bounds.registry
    assert {"cms.alg2.eps_prime", "cms.alg2.delta", "cms.alg1.beta", "ttz.fw.scale", "ttz.md.sigma.zcdp"} <= set(keys)
    for k in keys:
        st = reg.get(k)
        assert st.kind == "noise" or st.value_of
        assert not st.quantity.lower().startswith("density")
    # the noise statements left out are the laws of the noise (densities) or do not depend on ε
    for k in reg.keys():
        st = reg.get(k)
        if st.kind == "noise" and k not in keys:
            eps = st.ns["eps"].symbol
            assert ("density" in st.quantity.lower() or " law" in st.quantity.lower() or st.kind == "order"
                    or st.stated is None or eps not in st.stated.free_symbols), k


def test_cms_objective_perturbation_side_by_side():
    c = cal.calibrate("cms.alg2.eps_prime", evidence=[], **CMS2)
    t = CMS2["c"] / (CMS2["n"] * CMS2["Lam"])
    stated, derived, tight = (c.row(n) for n in ("stated", "derived", "tight"))
    assert stated.noise == pytest.approx(CMS2["eps"] - math.log(1 + 2 * t + t * t))
    assert derived.noise == pytest.approx(CMS2["eps"] - math.log(1 + t))
    assert tight.noise == pytest.approx(derived.noise)          # one release: nothing composes
    # the printed ε′ spends ε′ + log(1 + t) < ε (the tight Jacobian factor); the derived one spends ε
    assert stated.eps_spent == pytest.approx(CMS2["eps"] - math.log(1 + t))
    assert derived.eps_spent == pytest.approx(CMS2["eps"])
    assert c.verdict == pick.statement_verdict("cms.alg2.eps_prime", evidence=[]).verdict
    assert all(r.status for r in c.rows)


def test_cms_second_branch_spends_three_quarters_as_printed():
    eps, n, lam, cc = 0.5, 100, 0.001, 0.25
    c = cal.calibrate("cms.alg2.delta", evidence=[], eps=eps, n=n, Lam=lam, c=cc)
    assert c.row("stated").noise == pytest.approx(cc / (n * (math.exp(eps / 4) - 1)) - lam)
    assert c.row("derived").noise == pytest.approx(cc / (n * (math.exp(eps / 2) - 1)) - lam)
    assert c.row("stated").eps_spent == pytest.approx(3 * eps / 4)
    assert c.row("derived").eps_spent == pytest.approx(eps)


def test_cms_output_perturbation_rate():
    c = cal.calibrate("cms.alg1.beta", evidence=[], eps=0.5, n=1000, Lam=0.01)
    assert [r.noise for r in c.rows] == pytest.approx([1000 * 0.01 * 0.5 / 2] * 3)
    assert [r.eps_spent for r in c.rows] == pytest.approx([0.5] * 3)
    assert c.noise_name == "beta"


def test_tight_gaussian_calibration_spends_the_target_eps():
    v = dict(L2=1.0, n=1000, T=100, eps=1.0, delta=1e-5)
    c = cal.calibrate("ttz.md.sigma.zcdp", evidence=[], **v)
    assert c.row("tight").noise < c.row("derived").noise
    assert c.row("tight").eps_spent == pytest.approx(v["eps"], rel=1e-3)
    assert c.row("tight").eps_spent <= v["eps"] + 1e-9
    assert c.row("derived").eps_spent < v["eps"]


def test_open_mechanism_is_refused_unless_allowed():
    v = dict(L1=4.0, C1=1.0, T=50, n=20000, eps=0.5, delta=1e-8)
    verdict = pick.statement_verdict("ttz.fw.scale")
    if verdict.verdict not in pick.OPEN and not (verdict.verdict in pick.WRONG_AS_PRINTED and not verdict.corrected):
        pytest.skip(f"ttz.fw.scale is {verdict.verdict} now: nothing to refuse")
    with pytest.raises(pick.UnverifiedError):
        cal.calibrate("ttz.fw.scale", **v)
    c = cal.calibrate("ttz.fw.scale", allow_unverified=True, **v)
    assert c.basis.warning.startswith("unverified")
    assert c.row("tight").noise < c.row("derived").noise
    assert c.row("tight").eps_spent == pytest.approx(v["eps"], rel=1e-6)


def test_cli_calibrate_text_json_and_errors(capsys):
    args = ["calibrate", "cms.alg2.eps_prime", *(f"{k}={v}" for k, v in CMS2.items())]
    assert cli_main(args) == 0
    out = capsys.readouterr().out
    v = pick.statement_verdict("cms.alg2.eps_prime")
    assert "stated" in out and "derived" in out and "tight" in out and f"verdict: {v.text}" in out
    assert cli_main([*args, "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [r["calibration"] for r in d["rows"]] == ["stated", "derived", "tight"] and d["verdict"] == v.verdict
    for bad in (["calibrate", "cms.alg2", "eps=1"], ["calibrate", "cms.alg2.privacy", "eps=1"],
                ["calibrate", "cms.alg2.eps_prime", "eps=0.1", "n=10", "Lam=0.01", "c=0.25"]):
        assert cli_main(bad) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1, err
    assert cli_main(["calibrate", "cms.alg2", "eps=1"]) == 2
    assert "cms.alg2.eps_prime" in capsys.readouterr().err


def test_parameters_cover_both_forms():
    # q: the relaxed feature norm bound (issue 34 item 5), the paper's 1 when omitted
    assert set(cal.parameters("cms.alg2.eps_prime")) == {"eps", "c", "n", "Lam", "q"}


@pytest.mark.parametrize("key", cal.mechanism_keys())
def test_every_mechanism_answers_side_by_side_or_names_why_not(key):
    """At moderate values every mechanism statement gives three rows (stated, derived, tight) whose noise
    is positive where it is a scale, or a ValueError naming the statement; never a silent number."""
    import warnings

    from bounds.core import moderate_value

    st = bounds.registry.get(key)
    special = {"eps": 0.5, "delta": 1e-5, "n": 1000, "m": 1000, "T": 10}
    vals = {n: special.get(n, moderate_value(st.ns[n])) for n in cal.parameters(key)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            c = cal.calibrate(key, allow_unverified=True, **vals)
        except ValueError as exc:
            assert key in str(exc)
            return
    assert [r.calibration for r in c.rows] == ["stated", "derived", "tight"]
    for r in c.rows:
        assert r.noise is None or math.isfinite(r.noise)
        assert r.eps_spent is None or (math.isfinite(r.eps_spent) and r.eps_spent > 0)
    if c.row("derived").eps_spent is not None:
        assert c.row("derived").eps_spent <= vals["eps"] * (1 + 1e-9)   # the derived calibration is private at ε


@pytest.mark.parametrize("key", cal.mechanism_keys())
def test_eps_power_agrees_with_simplify_of_the_log_derivative(key: str) -> None:
    """The proportional rule (noise ∝ ε or 1/ε) read without ``sympy.simplify`` is the one simplify gives:
    ε·d log(noise)/dε simplified, ±1 or not a constant (an independent computation)."""
    import sympy as sp

    st = bounds.registry.get(key)
    ev = bounds.registry.evaluate(key)
    expr = ev.derived if ev.derived is not None else st.stated
    if "eps" not in st.ns or expr is None:
        pytest.skip("no eps")
    eps = st.ns["eps"].symbol
    k = sp.simplify(eps * sp.diff(sp.log(expr), eps)) if eps in expr.free_symbols else None
    want = int(k) if k is not None and k in (1, -1) else None
    assert cal._eps_power(expr, eps) == want
    for p in (1, -1):           # a constant times ε^p is recognised whatever the constant
        assert cal._eps_power(sp.Symbol("zz", positive=True) * 3 * eps**p, eps) == p


def test_a_printed_form_outside_its_meaning_is_n_a_in_its_row_only():
    # reviewer's case: the printed ε′ is negative here (its second branch applies), the derived one is not
    v = dict(eps=0.008, n=50000, Lam=0.001, c=0.25)
    c = cal.calibrate("cms.alg2.eps_prime", evidence=[], **v)
    t = v["c"] / (v["n"] * v["Lam"])
    assert v["eps"] - math.log(1 + 2 * t + t * t) < 0 < v["eps"] - math.log(1 + t)   # independent arithmetic
    st = c.row("stated")
    assert st.noise is None and st.eps_spent is None and st.how.startswith("n/a here") and "branch" in st.how
    assert c.row("derived").noise == pytest.approx(v["eps"] - math.log(1 + t))


def test_a_form_not_established_spends_no_claimed_eps():
    # where no form is established the derived row's ε spent is unknown, not the requested ε
    v = pick.statement_verdict("jia.s5_1.scale", evidence=[])
    basis = pick.basis("jia.s5_1.scale", None, True, [])
    if basis.established:
        pytest.skip(f"jia.s5_1.scale is {v.verdict} with an established form now")
    c = cal.calibrate("jia.s5_1.scale", allow_unverified=True, evidence=[], M=1, kappa=1, lam=0.1, m=1000, eps=1)
    assert c.row("derived").noise is not None
    assert c.row("derived").eps_spent is None and c.row("tight").eps_spent is None
    assert "not established" in c.row("derived").status


def test_list_and_papers_print_the_one_verdict_beside_the_derivation(capsys):
    assert cli_main(["list", "--paper", "cms", "--json", "--reports", "/nonexistent"]) == 0
    rows = json.loads(capsys.readouterr().out)
    for r in rows:
        assert r["verdict"] == pick.statement_verdict(r["key"], evidence=[]).verdict
    assert cli_main(["list", "--paper", "cms", "--reports", "/nonexistent"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == ["key", "verdict", "derivation"]
    v = pick.statement_verdict(rows[0]["key"], evidence=[])
    assert lines[1].startswith(rows[0]["key"]) and v.text in lines[1]
    assert cli_main(["papers", "--json", "--reports", "/nonexistent"]) == 0
    papers = {p["id"]: p for p in json.loads(capsys.readouterr().out)}
    assert sum(papers["cms"]["verdicts"].values()) == papers["cms"]["statements"] == len(rows)
