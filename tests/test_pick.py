"""ε/λ pickers: the paper's schedule reproduces its exponent, the optimiser never loses to it,
and the inverse queries return the boundary they claim."""

from __future__ import annotations

import json
import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bounds import pick

JIA = dict(B0=1, Omega0=0.5, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1)
JAMP = dict(M=1, kappa=1, fnorm=1)


def _slope(key: str, m1: float, m2: float, **c) -> float:
    b1 = pick.paper_schedule(key, m1, **dict(c)).bound
    b2 = pick.paper_schedule(key, m2, **dict(c)).bound
    return (math.log(b2) - math.log(b1)) / (math.log(m2) - math.log(m1))


@pytest.mark.parametrize("beta", [0.25, 0.5, 1.0])
def test_jia_schedule_reproduces_exponent(beta: float) -> None:
    # Theorem 4: the bound at ε = 1/√(λm), λ = m^(−1/(2β+1)) falls like m^(−β/(2β+1))
    s = _slope("jia.thm4", 1e12, 1e16, beta=beta, **JIA)
    assert s == pytest.approx(-beta / (2 * beta + 1), abs=0.01)


@pytest.mark.parametrize("r", [0.2, 0.5, 1.0])
def test_jamp_thm3_schedule_reproduces_exponent(r: float) -> None:
    s = _slope("jamp.thm3", 1e14, 1e18, r=r, **JAMP)
    assert s == pytest.approx(-min(1 / 3, 4 * r / (3 + 6 * r)), abs=0.01)


def test_jamp_thm2_fixed_eps_schedule() -> None:
    r = 0.25
    s = _slope("jamp.thm2", 1e14, 1e18, r=r, eps=0.5, **JAMP)
    assert s == pytest.approx(-min(0.5, 4 * r / (3 + 2 * r)), abs=0.01)


def test_paper_schedule_values() -> None:
    p = pick.paper_schedule("jia.thm4", 10_000, beta=0.5, **JIA)
    assert p.lam == pytest.approx(10_000 ** (-1 / 2))
    assert p.eps == pytest.approx(1 / math.sqrt(p.lam * 10_000))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    m=st.integers(100, 10**8),
    beta=st.floats(0.05, 1.0),
    kappa=st.floats(0.2, 5.0),
    B0=st.floats(0.1, 10.0),
    B_rho=st.floats(0.1, 10.0),
)
def test_optimiser_never_worse_than_paper(m, beta, kappa, B0, B_rho) -> None:
    c = dict(JIA, beta=beta, kappa=kappa, B0=B0, B_rho=B_rho)
    o = pick.optimise("jia.thm4", m, **c)
    assert o.bound <= o.paper_bound * (1 + 1e-12)
    assert 0 < o.eps < 1 and o.lam > 0
    assert o.improvement >= 1 - 1e-12


@settings(max_examples=15, deadline=None)
@given(m=st.integers(100, 10**7), r=st.floats(0.05, 2.0))
def test_optimiser_respects_lambda_le_1(m, r) -> None:
    o = pick.optimise("jamp.thm3", m, r=r, **JAMP)
    assert o.lam <= 1 and o.bound <= o.paper_bound * (1 + 1e-12)


def test_fixed_eps_is_kept() -> None:
    o = pick.optimise("jamp.thm2", 1e4, eps=0.3, r=0.5, **JAMP)
    assert o.eps == 0.3 and o.method == "optimised over lam"


def test_min_m_is_the_boundary() -> None:
    c = dict(JIA, beta=0.5)
    n = pick.min_m("jia.thm4", 1.0, eps=0.2, **c)
    assert pick.value_at("jia.thm4", n, 0.2, **c) <= 1.0 < pick.value_at("jia.thm4", n - 1, 0.2, **c)


def test_min_eps_is_the_boundary() -> None:
    c = dict(JIA, beta=0.5)
    e = pick.min_eps("jia.thm4", 0.6, m=1e5, **c)
    assert pick.value_at("jia.thm4", 1e5, e, **c) <= 0.6
    assert pick.value_at("jia.thm4", 1e5, e * (1 - 1e-4), **c) > 0.6


def test_unreachable_target_is_an_error() -> None:
    c = dict(JIA, beta=0.5)
    # with ε fixed the privacy term 4B₀ε never vanishes
    with pytest.raises(ValueError, match="not reached"):
        pick.min_m("jia.thm4", 0.5, eps=0.5, m_max=1e6, **c)
    with pytest.raises(ValueError, match="target"):
        pick.min_m("jia.thm4", -1.0, eps=0.5, **c)


def test_not_pickable() -> None:
    with pytest.raises(ValueError, match="no ε/λ schedule"):
        pick.paper_schedule("jia.thm2", 100)


# --------------------------------------------------------------------------- issue 24: verdict-bearing answers
import dataclasses  # noqa: E402

import numpy as np  # noqa: E402

import bounds  # noqa: E402
from bounds.cli import main as cli_main  # noqa: E402
from bounds.evidence import VERDICT_TEXT  # noqa: E402
from bounds.verdict import Verdict  # noqa: E402
from bounds.verdict import verdicts as verdicts_of  # noqa: E402

THM4 = dict(B0=1, Omega0=0, kappa=1, C_L=1, gamma=2, B_rho=1, c_beta=1, beta=0.5)
THM4_ARGS = [f"{k}={v}" for k, v in THM4.items()]


def _refuted_uncorrected(key: str) -> Verdict:
    return Verdict(key=key, verdict="refuted", truth="false", corrected=False,
                   correction="none: the derived form is refuted too (test)")


def test_basis_of_a_refuted_bound_with_an_established_correction_uses_it():
    v = pick.statement_verdict("jia.thm4.bound", evidence=[])
    b = pick.basis("jia.thm4.bound", evidence=[])
    assert (b.verdict, b.established) == (v.verdict, True)
    if v.verdict in pick.WRONG_AS_PRINTED and v.corrected:
        assert b.form == "derived" and "corrected (derived) form is used" in b.note
    # the Pick carries the same basis, and its bound is the derived expression's value
    o = pick.optimise("jia.thm4", m=10_000, evidence=[], **THM4)
    assert (o.form, o.verdict, o.verdict_text) == (b.form, b.verdict, VERDICT_TEXT[b.verdict])
    expr = bounds.registry.evaluate("jia.thm4.bound").derived
    ns = bounds.registry.get("jia.thm4.bound").ns
    at = {ns[k].symbol: v for k, v in {**THM4, "m": 10_000, "eps": o.eps, "lam": o.lam}.items() if k in ns}
    assert float(expr.subs(at)) == pytest.approx(o.bound, rel=1e-9)


def test_no_established_form_is_refused_unless_allowed(monkeypatch):
    monkeypatch.setattr(pick, "statement_verdict", lambda key, evidence=None: _refuted_uncorrected(key))
    with pytest.raises(pick.UnverifiedError, match="no form of it is established"):
        pick.optimise("jia.thm4", m=10_000, **THM4)
    with pytest.raises(pick.UnverifiedError):
        pick.min_m("jia.thm4", 0.5, eps=0.1, **THM4)
    o = pick.optimise("jia.thm4", m=10_000, allow_unverified=True, **THM4)
    assert o.warning.startswith("unverified") and o.verdict == "refuted"


def test_open_statement_is_refused(monkeypatch):
    monkeypatch.setattr(pick, "statement_verdict",
                        lambda key, evidence=None: Verdict(key=key, verdict="unsupported", truth="open"))
    with pytest.raises(pick.UnverifiedError, match="unsupported"):
        pick.paper_schedule("jia.thm4", 10_000, **THM4)


def test_cli_refusal_is_one_line_exit_2_and_allow_unverified_warns(monkeypatch, capsys):
    monkeypatch.setattr(pick, "statement_verdict", lambda key, evidence=None: _refuted_uncorrected(key))
    assert cli_main(["pick", "jia.thm4", "--m", "10000", *THM4_ARGS]) == 2
    out = capsys.readouterr()
    assert out.out == "" and len(out.err.strip().splitlines()) == 1 and "no form of it is established" in out.err
    assert cli_main(["pick", "jia.thm4", "--m", "10000", "--allow-unverified", *THM4_ARGS]) == 0
    out = capsys.readouterr().out
    assert "warning: unverified" in out and "verdict: refuted" in out


def test_cli_eval_of_a_refuted_statement_without_correction_exits_2(capsys):
    v = pick.statement_verdict("jia.prop1.scale")
    args = ["eval", "jia.prop1.scale", "kappa=1", "C_L=1", "lam=0.1", "gamma=2", "m=100", "eps=0.5"]
    rc = cli_main(args)
    out = capsys.readouterr()
    if v.verdict in pick.OPEN or (v.verdict in pick.WRONG_AS_PRINTED and not v.corrected):
        assert rc == 2 and len(out.err.strip().splitlines()) == 1
        assert cli_main([*args, "--allow-unverified"]) == 0
        assert "warning: unverified" in capsys.readouterr().out
    else:
        assert rc == 0


def test_pick_output_names_the_verdict_and_never_says_erratum_for_another_verdict(capsys):
    for key, args in (("jamp.thm3", ["--unit"]), ("jia.thm4", THM4_ARGS)):
        assert cli_main(["pick", key, "--m", "50000", *args]) == 0
        out = capsys.readouterr().out
        v = pick.statement_verdict(pick.pickable(key).key)
        assert f"verdict: {VERDICT_TEXT[v.verdict]}" in out
        if v.verdict != "erratum":
            assert "erratum" not in out
        assert cli_main(["pick", key, "--m", "50000", "--json", *args]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["verdict"] == v.verdict and d["optimised"]["verdict"] == v.verdict and d["form"] in ("stated", "derived")


def test_inverse_queries_carry_their_basis():
    n = pick.min_m("jia.thm4", 0.5, eps=0.1, evidence=[], **THM4)
    e = pick.min_eps("jia.thm4", 0.6, m=100_000, lam=0.01, evidence=[], **THM4)
    v = pick.value_at("jia.thm4", 10_000, 0.1, lam=0.01, evidence=[], **THM4)
    assert isinstance(n, int) and isinstance(e, float) and isinstance(v, float)
    assert {n.basis.key, e.basis.key, v.basis.key} == {"jia.thm4.bound"}
    assert n.basis.verdict == pick.statement_verdict("jia.thm4.bound", evidence=[]).verdict


# --------------------------------------------------------------------------- which="derived" and meanings
def test_derived_is_the_derived_form_not_the_stated_one():
    c = dict(eps=1.0, n=100, Lam=0.1, c=0.25)
    t = c["c"] / (c["n"] * c["Lam"])
    assert bounds.value("cms.alg2.eps_prime", which="derived", **c) == pytest.approx(1 - math.log(1 + t))
    assert bounds.value("cms.alg2.eps_prime", which="stated", **c) == pytest.approx(1 - 2 * math.log(1 + t))
    assert bounds.value("cms.alg2.eps_prime", **c) == pytest.approx(1 - 2 * math.log(1 + t))   # recommended


def test_derived_raises_where_nothing_derives():
    reg = bounds.registry
    key = next(k for k in reg.keys() if reg.get(k).stated is not None and reg.evaluate(k).derived is None
               and not reg.get(k).stated.free_symbols)
    with pytest.raises(ValueError, match="no derived form"):
        reg.value(key, {}, which="derived")


def test_value_outside_its_meaning_names_the_assumption_and_branch(capsys):
    with pytest.raises(ValueError, match=r"Delta >= 0.*first branch"):
        bounds.value("cms.alg2.delta", eps=1, n=1000, Lam=0.1, c=0.25)
    assert cli_main(["eval", "cms.alg2.delta", "eps=1", "n=1000", "Lam=0.1", "c=0.25"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "branch" in err
    with pytest.raises(ValueError, match=r"eps_p > 0.*second branch"):
        bounds.value("cms.alg2.eps_prime", eps=0.1, n=10, Lam=0.01, c=0.25)
    # where Δ ≥ 0 the stated value is the printed formula
    eps, n, lam, c = 0.5, 100, 0.001, 0.25
    assert bounds.value("cms.alg2.delta", eps=eps, n=n, Lam=lam, c=c) == pytest.approx(
        c / (n * (math.exp(eps / 4) - 1)) - lam)


def test_every_declared_meaning_is_a_parameter_of_its_paper():
    reg = bounds.registry
    declared = [reg.get(k) for k in reg.keys() if reg.get(k).value_of]
    assert declared
    for statement in declared:
        assert statement.value_of in statement.ns


# --------------------------------------------------------------------------- suggestions
def test_section_key_suggests_its_pickable_statement_first():
    with pytest.raises(ValueError) as exc:
        pick.pickable("jia.s5_1")
    text = str(exc.value)
    assert "pickable statements of paper jia: jia.s5_1.bound" in text
    assert set(pick.pickable_keys("jia")) <= set(text.replace(",", " ").split())


def test_every_paper_has_pickable_statements_or_a_reason(capsys):
    for pid in bounds.registry.papers:
        reason = pick.not_pickable_reason(pid)
        assert bool(reason) != bool(pick.pickable_keys(pid)), pid
    assert cli_main(["pick", "cms.alg2.eps_prime", "--m", "1000"]) == 2
    err = capsys.readouterr().err.strip()
    assert pick.not_pickable_reason("cms")[:60] in err and not err.endswith(":")
    with pytest.raises(ValueError, match="unknown paper"):
        pick.not_pickable_reason("nosuch")


# --------------------------------------------------------------------------- the trade-off
def test_terms_add_up_to_the_bound_and_one_rises_with_eps():
    o = pick.optimise("jia.thm4", m=10_000, evidence=[], **THM4)
    b = pick._bound(pick.pickable("jia.thm4"), 10_000, {k: v for k, v in THM4.items()}, o.form)
    terms = pick.terms_at(b, {"eps": o.eps, "lam": o.lam})
    assert sum(float(v) for _, v in terms) == pytest.approx(o.bound, rel=1e-9)
    assert o.dominant == max(terms, key=lambda t: abs(float(t[1])))[0]
    # the U shape: a term grows with ε, and at ε = 0.99 the bound is worse than at the optimum
    assert o.rising_in_eps and any("exp(eps)" in t for t in o.rising_in_eps)
    assert pick.value_at("jia.thm4", 10_000, 0.99, lam=o.lam, evidence=[], **THM4) > o.bound
    assert any(line.startswith("U-shaped in eps") for line in pick.explain(o))


def test_plot_tradeoff_draws_both_points_and_the_dominant_terms(tmp_path):
    path = tmp_path / "t.png"
    fig = pick.plot_tradeoff("jia.thm4", 10_000, path, evidence=[], n=25, **THM4)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    ax1 = next(ax for ax in fig.axes if ax.get_title().endswith("log10 bound"))
    ax2 = next(ax for ax in fig.axes if ax.get_title() == "dominant term")
    assert {line.get_label() for line in ax2.lines} >= {"paper", "optimised"}
    labels = {line.get_label() for line in ax1.lines}
    assert {"paper", "optimised"} <= labels
    b = pick._bound(pick.pickable("jia.thm4"), 10_000, THM4, "derived")
    terms = [t for t, _ in pick._term_functions(b)]
    legend = [t.get_text() for t in ax2.get_legend().get_texts()]
    assert legend == terms and len(terms) >= 2


def test_cli_plot_and_plot_rate_write_files(tmp_path, capsys):
    a, r = tmp_path / "a.png", tmp_path / "r.png"
    assert cli_main(["pick", "jia.thm4", "--m", "10000", "--plot", str(a), "--plot-rate", str(r), *THM4_ARGS]) == 0
    out = capsys.readouterr().out
    assert a.stat().st_size > 1000 and r.stat().st_size > 1000 and str(a) in out and str(r) in out
    assert "dominant term at the optimum:" in out


def test_plot_rate_decreases_in_m():
    fig = pick.plot_rate("jia.thm4", 10_000, evidence=[], n=6, **THM4)
    best = next(line for line in fig.axes[0].lines if line.get_label() == "optimised at every m")
    y = np.asarray(best.get_ydata(), dtype=float)
    assert np.all(np.diff(y) < 0)


# --------------------------------------------------------------------------- the report's table
def test_choosing_rows_name_form_and_verdict_and_refuse_unestablished():
    vs = verdicts_of(bounds.registry, [], keys=["jia.thm4.bound", "jamp.thm3.bound"])
    rows = pick.choosing_rows(vs, ms=[1e4])
    assert {r["key"] for r in rows} == {"jia.thm4.bound", "jamp.thm3.bound"}
    for r in rows:
        assert r["verdict"] == vs[r["key"]].verdict and r["form"] in ("stated", "derived") and not r["refused"]
        assert r["opt_bound"] <= r["paper_bound"]
    bad = {"jia.thm4.bound": dataclasses.replace(vs["jia.thm4.bound"], verdict="refuted", corrected=False)}
    (row,) = pick.choosing_rows(bad, ms=[1e4])
    assert row["refused"] and "opt_bound" not in row


def test_one_blas_thread_inside_pick_unless_the_user_chose(monkeypatch):
    from threadpoolctl import threadpool_info

    from bounds._lazy import BLAS_THREAD_ENV
    from bounds.cli import _one_blas_thread

    def blas_threads() -> set[int]:
        return {i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas"}

    for v in BLAS_THREAD_ENV:
        monkeypatch.delenv(v, raising=False)
    seen: list[set[int]] = []
    probe = pick.single_blas_thread(lambda: seen.append(blas_threads()))
    with _one_blas_thread(True):
        assert blas_threads() <= {1}
    probe()
    assert seen[-1] <= {1}
    monkeypatch.setenv("OMP_NUM_THREADS", "2")       # the user's choice stands
    before = blas_threads()
    probe()
    assert seen[-1] == before



def test_a_given_verdict_decides_the_basis():
    """The report passes the verdicts it computed (not the previous report's evidence)."""
    bad = _refuted_uncorrected("jia.thm4.bound")
    for fn in (pick.optimise, pick.paper_schedule):
        with pytest.raises(pick.UnverifiedError):
            fn("jia.thm4", 10_000, verdict=bad, **THM4)
    with pytest.raises(pick.UnverifiedError):
        pick.bound_grid("jia.thm4", 1e4, np.array([0.1]), np.array([0.01]), verdict=bad, **THM4)
    ok = verdicts_of(bounds.registry, [], keys=["jia.thm4.bound"])["jia.thm4.bound"]
    assert pick.optimise("jia.thm4", 10_000, verdict=ok, **THM4).verdict == ok.verdict


# ---------------------------------------------------------------- the NumPy optimiser against scipy.optimize
def _pick_constants() -> dict[str, dict]:
    import bounds

    out = {}
    for paper in bounds.registry.papers.values():
        for k, c in paper.pick.items():
            out[paper.key(k)] = dict(c)
    return out


def _scipy_reference(b, fixed: dict, free: list[str], regime: bool = True) -> float:
    """Minimum of the bound over ``free`` by L-BFGS-B in log coordinates from every point of a 7^d grid
    (the search pick used before it went NumPy-only): a reference implementation, independent of the grids.
    λ ranges over the statement's domain inside the paper's declared regime (where pick searches by default)."""
    import numpy as np
    from scipy import optimize

    lam_hi = min(b.lam_max, b.st.ns.regime.ranges.get("lam", (0, math.inf))[1]) if regime else b.lam_max
    lo = {"eps": math.log(1e-9), "lam": math.log(1e-12)}
    hi = {"eps": math.log(1 - 1e-9), "lam": math.log(lam_hi)}

    def obj(x):
        kw = dict(fixed)
        kw.update({n: math.exp(v) for n, v in zip(free, x, strict=True)})
        v = b(**kw)
        return math.log(v) if 0 < v < math.inf else math.inf

    grids = np.meshgrid(*[np.linspace(lo[n] + 1, hi[n] - 1e-6, 7) for n in free], indexing="ij")
    best = math.inf
    with np.errstate(all="ignore"), __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore", RuntimeWarning)
        for x0 in zip(*[g.ravel() for g in grids], strict=True):
            if not math.isfinite(obj(np.array(x0))):
                continue
            res = optimize.minimize(obj, np.array(x0), method="L-BFGS-B", bounds=[(lo[n], hi[n]) for n in free])
            best = min(best, float(res.fun))
    return math.exp(best)


@pytest.mark.parametrize("key", pick.pickable_keys())
@pytest.mark.parametrize("m", [300, 10_000, 1e6])
def test_numpy_optimiser_never_worse_than_scipy_reference(key: str, m: float) -> None:
    consts = _pick_constants()[key]
    rest = {k: v for k, v in consts.items() if k not in pick.CHOICE}
    given = {k: float(v) for k, v in consts.items() if k in pick.CHOICE}
    o = pick.optimise(key, m, allow_unverified=True, evidence=[], **consts)
    b = pick._bound(pick.pickable(key), m, rest, o.form)
    free = [n for n in b.choice if n not in given]
    ref = _scipy_reference(b, given, free)
    assert o.bound <= ref * (1 + 1e-6), (key, m, o.bound, ref)
    assert o.bound == pytest.approx(b(**{n: getattr(o, n) for n in b.choice}), rel=1e-12)
    if o.outside_regime or (o.lam is not None and o.lam >= 1 - 1e-9 < b.lam_max):
        # the regime's edge binds: over the whole domain (regime=False) the optimiser meets that reference too
        u = pick.optimise(key, m, allow_unverified=True, evidence=[], regime=False, **consts)
        ref_u = _scipy_reference(b, given, free, regime=False)
        assert u.bound <= ref_u * (1 + 1e-6) and u.bound <= o.bound, (key, m, u.bound, ref_u)
    # one variable given: the other optimised, and the λ-only search of the inverse queries
    if "eps" in b.choice and "lam" in b.choice:
        eps = o.eps if "eps" not in given else given["eps"]
        for e in (eps, eps / 7):
            ref1 = _scipy_reference(b, {"eps": e}, ["lam"])
            o1 = pick.optimise(key, m, allow_unverified=True, evidence=[], **{**rest, "eps": e})
            assert o1.bound <= ref1 * (1 + 1e-6), (key, m, e, o1.bound, ref1)
            lam_only = pick._lam_optimised(b, e)
            assert lam_only <= ref1 * (1 + 1e-6), (key, m, e, lam_only, ref1)


def test_grid_minimise_finds_the_global_minimum_of_a_two_well_function() -> None:
    import numpy as np

    # two wells in log coordinates, the deeper one far from the centre and narrow in one direction
    def F(X):
        a = 1.0 * ((X[0] + 3) ** 2 + 40 * (X[1] - 2) ** 2)
        b = 0.5 + (X[0] - 4) ** 2 + (X[1] + 1) ** 2
        return np.minimum(a - 0.25, b)

    x, f = pick._grid_minimise(F, np.array([-10.0, -10.0]), np.array([10.0, 10.0]))
    assert f == pytest.approx(-0.25, abs=1e-12)
    assert np.allclose(x, [-3, 2], atol=1e-7)


@pytest.mark.parametrize("key", pick.pickable_keys())
def test_lambdified_bound_and_terms_equal_sympys_numpy_lambdify(key: str) -> None:
    import numpy as np
    import sympy as sp

    consts = {k: v for k, v in _pick_constants()[key].items() if k not in pick.CHOICE}
    for form in ("stated", "derived"):
        try:
            b = pick._bound(pick.pickable(key), 10_000, consts, form)
        except ValueError:
            continue
        E, L = np.meshgrid(np.geomspace(1e-4, 0.99, 9), np.geomspace(1e-6, 1, 9))
        pt = {"eps": E, "lam": L}
        args = [pt[n] for n in b.choice]
        with np.errstate(all="ignore"):
            ref = np.asarray(sp.lambdify(b.vars, b.fixed_expr, "numpy")(*args), dtype=float)
            got = np.asarray(b.f(*args), dtype=float)
            np.testing.assert_array_equal(got, ref)
            terms = pick.terms_at(b, pt)
            fixed = {b.st.ns[k].symbol: v for k, v in b.consts.items()}
            for (name, v), t in zip(terms, pick._additive_terms(b.expr, set(b.vars)), strict=True):
                want = np.asarray(sp.lambdify(b.vars, t.subs(fixed), "numpy")(*args), dtype=float) * np.ones_like(E)
                np.testing.assert_array_equal(v, want, err_msg=name)
