"""Issue 34 item 5: premises that implementations relax, as parameters with the paper's value by default.

Paper ``cms`` (Chaudhuri, Monteleoni & Sarwate 2011): the feature norm bound q, the Lipschitz constant L and the
optimisation tolerance tol of Algorithm 1; q (through c·q²) and L (through the rate ε′/(2Lq)) of Algorithm 2.
Every number is computed here independently: the closed forms by hand, the neighbour differences by scipy's
L-BFGS on the objective written out here (not the module's Newton solver), with seeded Generators.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize

import bounds
from bounds import calibrate as cal
from bounds.cli import main as cli_main


def _reg():
    return bounds.registry


# --------------------------------------------------------------------------- closed forms
def test_alg1_noise_for_q20_from_the_closed_form():
    eps, n, lam, q = 0.5, 1000, 0.01, 20.0
    c = cal.calibrate("cms.alg1.beta", evidence=[], eps=eps, n=n, Lam=lam, q=q)
    by_hand = n * lam * eps / (2 * q)            # β = ε/Δ with Δ = 2q/(nΛ) (L = 1, exact minimiser)
    assert c.row("derived").noise == pytest.approx(by_hand)
    assert c.row("stated").noise == pytest.approx(by_hand)
    assert set(c.relaxed) == {"q"} and set(c.at_paper_value) == {"C_L", "tol"}
    assert c.at_paper_value["tol"][0] == 0 and c.at_paper_value["C_L"][0] == 1
    text = c.text()
    assert "premises relaxed: q = 20" in text and "premises at the paper's value: C_L = 1" in text
    # every relaxed premise moves the noise the way the proof says: a larger q, L or tol gives a smaller rate
    base = cal.calibrate("cms.alg1.beta", evidence=[], eps=eps, n=n, Lam=lam).row("derived").noise
    assert base == pytest.approx(n * lam * eps / 2)                       # the printed form at the paper's value
    more = cal.calibrate("cms.alg1.beta", evidence=[], eps=eps, n=n, Lam=lam, q=q, C_L=2.0, tol=1e-4)
    assert more.row("derived").noise == pytest.approx(eps / (2 * 2.0 * q / (n * lam) + 2 * 1e-4 / lam))
    assert more.row("derived").noise < c.row("derived").noise < base


def test_printed_forms_at_the_paper_value():
    reg = _reg()
    n, lam, eps, cc = 200, 0.05, 0.8, 0.25
    assert reg.value("cms.alg1.sensitivity", {"n": n, "Lam": lam, "q": 1, "C_L": 1, "tol": 0}) == pytest.approx(
        2 / (n * lam))
    assert reg.value("cms.alg1.sensitivity", {"n": n, "Lam": lam, "q": 20, "C_L": 1, "tol": 1e-3}) == pytest.approx(
        2 * 20 / (n * lam) + 2e-3 / lam)
    printed = eps - math.log(1 + 2 * cc / (n * lam) + cc**2 / (n**2 * lam**2))
    assert reg.value("cms.alg2.eps_prime", {"eps": eps, "c": cc, "n": n, "Lam": lam, "q": 1},
                     which="stated") == pytest.approx(printed)
    # q enters as c·q² (the Hessian's rank-one change ℓ''·x xᵀ has norm ≤ c‖x‖²)
    assert reg.value("cms.alg2.eps_prime", {"eps": eps, "c": cc, "n": n, "Lam": lam, "q": 3},
                     which="stated") == pytest.approx(eps - 2 * math.log(1 + cc * 9 / (n * lam)))
    assert reg.value("cms.alg2.rate", {"eps_p": 0.4, "C_L": 1, "q": 1}) == pytest.approx(0.2)   # the printed ε′/2
    assert reg.value("cms.alg2.rate", {"eps_p": 0.4, "C_L": 2, "q": 5}) == pytest.approx(0.4 / 20)
    for key in ("cms.alg1.sensitivity", "cms.alg1.beta", "cms.alg2.eps_prime", "cms.alg2.delta", "cms.alg2.rate",
                "cms.alg2.det_ratio"):
        ev = bounds.evaluate(key)
        chk = [c for c in ev.checks if c.name.startswith("reduces to the printed form")]
        assert chk and all(c.ok for c in chk), key
        assert set(reg.get(key).paper_values({})) == set(reg.get(key).relaxes)


def test_omitted_relaxed_premises_read_as_printed():
    st = _reg().get("cms.alg1.beta")
    assert st.paper_values({"n": 10}) == {"n": 10, "C_L": 1, "q": 1, "tol": 0}
    c = cal.calibrate("cms.alg2.eps_prime", evidence=[], eps=1.0, n=1000, Lam=0.1, c=0.25)
    assert c.relaxed == {} and set(c.at_paper_value) == {"q"}
    assert c.row("stated").noise == pytest.approx(1 - math.log(1 + 2 * 0.25 / 100 + 0.25**2 / 100**2))


# --------------------------------------------------------------------------- the certificate at q = 20
def _fit(X: np.ndarray, y: np.ndarray, lam: float) -> np.ndarray:
    """argmin (1/n)Σ log(1 + exp(−y wᵀx)) + (Λ/2)‖w‖², by scipy's L-BFGS (an independent solver)."""
    def f(w):
        m = y * (X @ w)
        return np.mean(np.logaddexp(0.0, -m)) + lam / 2 * w @ w, -(X.T @ (y / (1 + np.exp(m)))) / len(y) + lam * w

    res = minimize(f, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B", options={"gtol": 1e-13, "ftol": 0,
                                                                                  "maxiter": 10000})
    return res.x


def test_monte_carlo_neighbour_difference_within_the_certificate_at_q20():
    rng = np.random.default_rng(np.random.SeedSequence(3420))
    q, worst, worst_paper = 20.0, 0.0, 0.0
    for _ in range(60):
        n, d = int(rng.integers(3, 15)), int(rng.integers(1, 4))
        lam = float(np.exp(rng.uniform(math.log(0.1), math.log(100.0)))) * q**2 / 100
        X = rng.normal(size=(n, d))
        X *= q * rng.uniform(0.5, 1.0, size=(n, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
        y = rng.choice([-1.0, 1.0], n)
        X1, y1 = X.copy(), y.copy()
        X1[-1] = -X[-1] * q / np.linalg.norm(X[-1])      # the neighbour: the last record mirrored at norm q
        X[-1] *= q / np.linalg.norm(X[-1])
        gap = float(np.linalg.norm(_fit(X, y, lam) - _fit(X1, y1, lam)))
        cert = _reg().value("cms.alg1.sensitivity", {"n": n, "Lam": lam, "q": q, "C_L": 1, "tol": 0})
        assert cert == pytest.approx(2 * q / (n * lam))
        worst = max(worst, gap / cert)
        worst_paper = max(worst_paper, gap / (2 / (n * lam)))     # the printed 2/(nΛ), for ‖x‖ ≤ 1
    assert worst <= 1.0 + 1e-6                  # the certificate holds at q = 20
    assert worst >= 0.3                         # and is not vacuous (|ℓ'(0)| = 1/2: the ratio nears 1/2)
    assert worst_paper > 1.0                    # the paper's q = 1 certificate fails on these data


def test_tolerance_adds_exactly_two_tol_over_lambda():
    reg = _reg()
    for n, lam, q, tol in ((50, 0.1, 1.0, 1e-3), (500, 2.0, 20.0, 0.5)):
        a = reg.value("cms.alg1.sensitivity", {"n": n, "Lam": lam, "q": q, "C_L": 1, "tol": tol})
        b = reg.value("cms.alg1.sensitivity", {"n": n, "Lam": lam, "q": q, "C_L": 1, "tol": 0})
        assert a - b == pytest.approx(2 * tol / lam)
    # an inexact minimiser with ‖∇J(w̃)‖ = tol lies within tol/Λ of w* (strong convexity), computed here
    rng = np.random.default_rng(np.random.SeedSequence(77))
    X = rng.normal(size=(20, 2)) * 3.0
    y = rng.choice([-1.0, 1.0], 20)
    lam, tol = 0.3, 1e-2
    w = _fit(X, y, lam)
    for _ in range(20):
        u = rng.normal(size=2)
        u /= np.linalg.norm(u)
        lo, hi = 0.0, 1.0
        for _ in range(60):
            s = (lo + hi) / 2
            m = y * (X @ (w + s * u))
            g = -(X.T @ (y / (1 + np.exp(m)))) / len(y) + lam * (w + s * u)
            lo, hi = (s, hi) if np.linalg.norm(g) <= tol else (lo, s)
        assert lo <= tol / lam + 1e-12


# --------------------------------------------------------------------------- refusals
@pytest.mark.parametrize("bad", ["q=0", "q=-1", "tol=-0.1", "C_L=0"])
def test_a_relaxed_value_outside_its_domain_is_refused(bad, capsys):
    name = bad.split("=")[0]
    with pytest.raises(ValueError, match=rf"parameter '{name}'.*cms\.alg1\.beta"):
        cal.calibrate("cms.alg1.beta", evidence=[], eps=1, n=100, Lam=0.1, **{name: float(bad.split("=")[1])})
    assert cli_main(["calibrate", "cms.alg1.beta", "eps=1", "n=100", "Lam=0.1", bad]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"'{name}'" in err[0] and "cms.alg1.beta" in err[0] and "assumption" in err[0]
    assert cli_main(["eval", "cms.alg1.sensitivity", "n=100", "Lam=0.1", bad]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"'{name}'" in err[0] and "cms.alg1.sensitivity" in err[0]


def test_cli_eval_says_which_premises_are_the_papers(capsys):
    assert cli_main(["eval", "cms.alg1.sensitivity", "n=100", "Lam=0.1", "q=20"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "4"                                   # 2·20/(100·0.1)
    assert "premises relaxed: q = 20" in out and "premises at the paper's value: C_L = 1" in out


# --------------------------------------------------------------------------- coverage
def test_relaxation_coverage_lists_every_mechanism_statement():
    rows = cal.relaxation_coverage()
    keys = {r["key"] for r in rows}
    reg = _reg()
    assert set(cal.mechanism_keys()) <= keys
    assert {k for k in reg.keys() if reg.get(k).premises} <= keys
    statuses = {"parameter", "parameter of the paper", "not a parameter", "not declared"}
    for r in rows:
        assert [p["premise"] for p in r["premises"]] == list(cal.RELAXABLE)
        assert all(p["status"] in statuses and p["reason"] for p in r["premises"])
        assert [x["name"] for x in r["relaxed"]] == list(reg.get(r["key"]).relaxes)
    by = {r["key"]: {p["premise"]: p for p in r["premises"]} for r in rows}
    a1 = by["cms.alg1.beta"]
    assert (a1["feature norm"]["parameter"], a1["exact minimiser"]["parameter"],
            a1["loss Lipschitz constant"]["parameter"]) == ("q", "tol", "C_L")
    assert a1["intercept"]["status"] == "not a parameter" and "strongly convex" in a1["intercept"]["reason"]
    a2 = by["cms.alg2.eps_prime"]
    assert a2["exact minimiser"]["status"] == "not a parameter" and "Iyengar" in a2["exact minimiser"]["reason"]
    assert a2["loss smoothness"] == {"premise": "loss smoothness", "status": "parameter of the paper",
                                     "parameter": "c", "reason": reg.get("cms.alg2.eps_prime").ns["c"].description}


def test_coverage_rule_on_a_constructed_statement():
    from bounds.core import Registry
    from bounds.paper import Paper
    from bounds.symbols import S

    demo = Paper("demo", title="Demo", citation="Doe, J.: Demo (2026)")
    demo.add("scale", "Algorithm 1", "noise", "Laplace scale", 2 * S.kappa / (S.m * S.eps), params=("kappa", "m", "eps"),
             relation="none", relaxes={"kappa": (1, "feature norm ||x|| <= kappa")},
             notes="Not a parameter: an unregularised intercept (no strong convexity).")
    demo.add("plain", "Algorithm 2", "noise", "Laplace scale", 2 / (S.m * S.eps), params=("m", "eps"),
             relation="none")
    rows = {r["key"]: {p["premise"]: p["status"] for p in r["premises"]} for r in cal.relaxation_coverage(
        Registry([demo]))}
    assert rows["demo.scale"]["feature norm"] == "parameter"
    assert rows["demo.scale"]["intercept"] == "not a parameter"
    assert rows["demo.plain"] == dict.fromkeys(cal.RELAXABLE, "not declared")


# --------------------------------------------------------------------------- the estimator
def _data(n: int, q: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(np.random.SeedSequence(seed))
    X = rng.normal(size=(n, 3))
    X *= q * rng.uniform(0.1, 1.0, size=(n, 1)) / np.linalg.norm(X, axis=1, keepdims=True)
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=n) > 0, "b", "a")


def test_estimator_calibrates_from_the_same_statement_at_the_users_scale():
    from simulations.random_features import DPLinearClassifier

    X, y = _data(3000, 20.0, 1)
    eps, lam, tol = 0.7, 0.02, 1e-6
    clf = DPLinearClassifier(epsilon=eps, lam=lam, data_norm=20.0, tol=tol, classes=["a", "b"], random_state=5)
    clf.fit(X, y)
    by_hand = 2 * (20.0 + 3000 * tol) / (3000 * lam * eps)                 # 1/β with q = 20, L = 1
    assert clf.noise_scale_ == pytest.approx(by_hand, rel=1e-12)
    c = cal.calibrate("cms.alg1.beta", evidence=[], eps=eps, n=3000, Lam=lam, q=20.0, tol=tol)
    assert clf.noise_scale_ == pytest.approx(1 / c.row("derived").noise, rel=1e-12)
    assert clf.mechanism_.statement is _reg().get("cms.alg1.beta")          # one object, imported
    # a regularised intercept is a feature of constant 1: q → √(q² + 1)
    ci = DPLinearClassifier(epsilon=eps, lam=lam, data_norm=20.0, tol=tol, fit_intercept=True, classes=["a", "b"],
                            random_state=5).fit(X, y)
    assert ci.data_norm_ == pytest.approx(math.sqrt(401.0))
    assert ci.noise_scale_ == pytest.approx(2 * (math.sqrt(401.0) + 3000 * tol) / (3000 * lam * eps), rel=1e-12)
    # the same seed gives the same release; another seed another one
    again = DPLinearClassifier(epsilon=eps, lam=lam, data_norm=20.0, tol=tol, classes=["a", "b"], random_state=5)
    assert np.array_equal(again.fit(X, y).coef_, clf.coef_)
    other = DPLinearClassifier(epsilon=eps, lam=lam, data_norm=20.0, tol=tol, classes=["a", "b"], random_state=6)
    assert not np.array_equal(other.fit(X, y).coef_, clf.coef_)


def test_estimator_noise_norm_follows_the_calibrated_law():
    """Monte Carlo over seeds: E‖w̃ + b − w̃‖ = d/β (the Γ(d, 1/β) norm law) at the relaxed q."""
    from simulations.random_features import DPLinearClassifier

    X, y = _data(400, 5.0, 2)
    base = DPLinearClassifier(epsilon=1e12, lam=0.1, data_norm=5.0, tol=1e-9, classes=["a", "b"], random_state=0)
    w = base.fit(X, y).coef_                          # ε huge: the noise is negligible, w ≈ w̃
    norms = [np.linalg.norm(DPLinearClassifier(epsilon=1.0, lam=0.1, data_norm=5.0, tol=1e-9, classes=["a", "b"],
                                               random_state=s).fit(X, y).coef_ - w) for s in range(300)]
    scale = 2 * (5.0 + 400 * 1e-9) / (400 * 0.1 * 1.0)
    mean, se = float(np.mean(norms)), float(np.std(norms) / math.sqrt(len(norms)))
    assert abs(mean - 3 * scale) < 5 * se                # d = 3


def test_estimator_refuses_data_beyond_the_declared_norm():
    from simulations.random_features import DPLinearClassifier

    X, y = _data(200, 20.0, 3)
    X[7] *= 21.0 / np.linalg.norm(X[7])
    with pytest.raises(ValueError, match=r"parameter 'data_norm' = 20\.0.*premise ‖x‖ ≤ q.*cms\.alg1\.beta"):
        DPLinearClassifier(data_norm=20.0, classes=["a", "b"]).fit(X, y)
    X[7] *= 19.0 / 21.0                                   # inside again: fits
    assert DPLinearClassifier(data_norm=20.0, classes=["a", "b"], random_state=0).fit(X, y).coef_.shape == (3,)
    with pytest.raises(ValueError, match="tol"):
        DPLinearClassifier(data_norm=20.0, tol=0.0, classes=["a", "b"]).fit(X, y)


def test_estimator_passes_scikit_learns_checks():
    import warnings

    from sklearn.utils.estimator_checks import check_estimator

    from simulations.random_features import DPLinearClassifier

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = check_estimator(DPLinearClassifier(epsilon=1e9, data_norm=1e6, random_state=0), on_fail=None)
    assert [r["check_name"] for r in res if r["status"] == "failed"] == []


def test_coverage_reasons_are_whole_sentences_without_a_repeated_status():
    # a reason is one whole sentence of the notes (not cut at "i.e."), and does not repeat the status it explains
    from bounds.calibrate import relaxation_coverage

    rows = [p for r in relaxation_coverage() for p in r["premises"] if p["status"] == "not a parameter"]
    assert rows
    for p in rows:
        assert not p["reason"].lower().startswith("not a parameter"), p
        assert not p["reason"].rstrip().endswith(("i.e.", "e.g.")), p


def test_calibrate_at_a_relaxed_value_does_not_call_its_row_the_papers_printed_form(capsys):
    # at q = 20 the stated row is the paper's form generalised, not the printed form (which is for q = 1)
    from bounds.cli import main

    assert main(["calibrate", "cms.alg1.beta", "n=1000", "Lam=0.01", "eps=1", "q=20"]) == 0
    stated = next(ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("stated "))
    assert "generalised to q = 20" in stated and "printed form itself is for q = 1" in stated
    assert main(["calibrate", "cms.alg1.beta", "n=1000", "Lam=0.01", "eps=1"]) == 0
    stated = next(ln for ln in capsys.readouterr().out.splitlines() if ln.strip().startswith("stated "))
    assert "the paper's printed form" in stated and "generalised" not in stated
