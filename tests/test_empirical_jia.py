"""Tests of the seed-000 trials and empirical checks (simulations/trials/jia.py, verify/empirical/jia.py).

Values are computed independently of the code under test where possible: exact risks from
:mod:`simulations.data`, brute-force refits from :mod:`simulations.solvers`.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from simulations.kernels import KernelExpansion
from simulations.runner import run_grid, trial_seeds
from simulations.solvers import (
    Certificate,
    CertificateError,
    kls_fit,
    replace_point,
    svm_fit,
    union_rkhs_distance,
)
from simulations.trials import jia as T
from verify.empirical import discover_checks
from verify.empirical import jia as J
from verify.empirical.core import PROFILES, Context
from verify.stats import VERDICTS

CHECKS = {s.name: s for s in discover_checks() if s.evidence == "empirical"}

TINY = dict(n_trials=4, n_noise=20, m=40, m_grid=(30, 40, 60), n_rate_trials=3, n_search=8, m_sens=(20,))


def _identity_residual(out: dict, lam: float) -> float:
    return out["R1"] + out["R2"] + out["S"] + out["D"] - out["excess"] - lam * out["omega_z"] - out["gap"]


@pytest.mark.parametrize("trial", [T.ls_risk_trial, T.svm_risk_trial])
def test_decomposition_identity(trial):
    """(3) is an identity up to λΩ(f_z) + [J_z(f_λ) − J_z(f_z)] ≥ 0 (000, §4, equation (3))."""
    cfg = dict(m=60, lam=0.05, eps=0.5, calibration="derived", n_noise=30)
    for seed in range(3):
        out = trial(cfg, np.random.default_rng(seed))
        assert abs(_identity_residual(out, cfg["lam"])) < 1e-9
        assert out["gap"] >= -1e-12 and out["omega_z"] >= 0
        assert out["excess"] >= out["excess_fz"] - 1.0  # sanity: finite numbers


def test_ls_trial_matches_exact_excess_risk():
    """The closed form in b equals CircleRegression.excess_risk of f_z + b (one noise draw)."""
    cfg = dict(m=50, lam=0.02, eps=0.5, n_noise=1, scale=0.3)
    out = T.ls_risk_trial(cfg, np.random.default_rng(7))
    rng = np.random.default_rng(7)
    P = T.circle_problem()
    X, y = P.sample(50, rng)
    alpha = kls_fit(P.kernel(X), y, 0.02).alpha
    b = float(rng.laplace(0.0, 0.3, 1)[0])
    assert math.isclose(out["Eb2"], b * b, rel_tol=1e-12)
    direct = P.excess_risk(KernelExpansion(P.kernel, X, alpha, offset=b))
    assert math.isclose(out["excess"], direct, rel_tol=1e-9, abs_tol=1e-12)
    emp = float(np.mean((P.kernel(X) @ alpha + b - y) ** 2))
    assert math.isclose(out["R1"], direct + P.bayes_risk - emp, rel_tol=1e-9, abs_tol=1e-12)


def test_svm_quadrature_matches_data_module():
    """Sorted-prefix-sum hinge and misclassification risks agree with BinaryClassification."""
    P, K = T.binary_problem()
    X, y = P.sample(40, 3)
    alpha = svm_fit(K(X), y, 0.05).alpha
    f_nodes = T._eval_chunked(K, T._quad_nodes(), X, alpha)
    assert np.allclose(f_nodes, K(T._quad_nodes(), X) @ alpha, atol=1e-12)
    bs = np.array([-0.4, 0.07])
    hinge, mis = T._hinge_and_misclass(P, f_nodes, bs)
    for i, b in enumerate(bs):
        f = KernelExpansion(K, X, alpha, offset=float(b))
        assert abs(hinge[i] - P.hinge_risk(f)) < 1e-6
        assert abs(mis[i] - P.misclassification_excess(f)) < 2e-3


def test_ramp_stepping_stone_exact():
    """D_g(λ): the closed-form hinge excess and RKHS norm of the ramp agree with quadrature / FFT."""
    P, K = T.binary_problem()
    st = T.ramp_stepping_stone(0.5, 0.8, 1.0, 1.0, 0.01)
    g = lambda X: T._ramp_values(np.asarray(X)[:, 0], 0.5, st["w1"], st["w2"])  # noqa: E731
    assert abs(P.hinge_excess(g) - st["excess"]) < 1e-7
    n = 2**16
    c = np.fft.rfft(g(((np.arange(n)) / n)[:, None])) / n        # complex coefficients
    k = np.arange(c.size)
    A0, Ak = c[0].real, 4 * np.abs(c[1:]) ** 2                  # A_k² + B_k² = 4|c_k|²
    norm2 = A0**2 / K.mu0 + float(np.sum(Ak / K.mu(k[1:])))
    assert math.isclose(norm2, st["norm2"], rel_tol=1e-3)
    assert st["D"] == pytest.approx(st["excess"] + 0.01 * st["norm2"])


def test_ls_search_beats_hand_built_pair_and_is_verified():
    P = T.circle_problem()
    X, y = P.sample(40, 11)
    lam = 0.05
    w = T.ls_worst_neighbour(X, y, lam, P.kernel, P.M, n_search=16)
    x = X[:, 0]
    G = P.kernel(x)
    alpha = kls_fit(G, y, lam).alpha
    for j, xb, yb in [(0, 0.123, P.M), (5, float(x[5]), -y[5]), (17, 0.9, -P.M)]:
        kc = P.kernel(np.array([xb]), x)[0]
        yy = y.copy()
        yy[j] = yb
        ab = kls_fit(replace_point(G, j, kc, P.kappa**2), yy, lam).alpha
        d = union_rkhs_distance(G, kc, P.kappa**2, j, alpha, ab)
        assert w["rkhs"].value >= d - 1e-12
    assert w["rkhs"].value == pytest.approx(w["rkhs"].search_value, rel=1e-8)
    assert w["sup"].value >= w["sup"].search_value - 1e-10     # the verification grid is finer
    assert w["sup"].value <= P.kappa * w["rkhs"].value + 1e-12  # ‖·‖_∞ ≤ κ‖·‖_K


def test_svm_search_agrees_with_full_refit():
    P, K = T.binary_problem()
    X, y = P.sample(60, 5)
    lam = 0.05
    w = T.svm_worst_neighbour(X, y, lam, K, n_search=16, n_refit=4)
    x = X[:, 0]
    G = K(x)
    fit = svm_fit(G, y, lam, tol=1e-12)
    for norm in ("rkhs", "sup"):
        r = w[norm]
        kc = K(np.array([r.x_bar]), x)[0]
        yy = y.copy()
        yy[r.j] = r.y_bar
        fb = svm_fit(replace_point(G, r.j, kc, 1.0), yy, lam, tol=1e-12, continuation=False)
        d = union_rkhs_distance(G, kc, 1.0, r.j, fit.alpha, fb.alpha)
        if norm == "rkhs":
            assert abs(d - r.value) <= r.cert_error + 1e-7
    # a hand-built pair: flip the label of a point in place
    j = int(np.argmax(np.abs(fit.alpha)))
    kc = G[j].copy()
    yy = y.copy()
    yy[j] = -y[j]
    fb = svm_fit(replace_point(G, j, kc, 1.0), yy, lam)
    assert w["rkhs"].value >= union_rkhs_distance(G, kc, 1.0, j, fit.alpha, fb.alpha) - 1e-9
    # Theorem 2 (C_L = 1, γ = 2) holds for what was found
    assert w["rkhs"].value <= 2 * 1.0 / (lam * 2 * 60) * (1 + 1e-9) + w["rkhs"].cert_error


def test_constants():
    c = T.ls_constants()
    P = T.circle_problem()
    lams = np.logspace(-6, 0, 50)
    assert np.all(P.approximation_error(lams) <= c["c_beta"] * lams ** c["beta"] * (1 + 1e-12))
    s = T.svm_constants()
    assert s["C_L"] == 1.0 and s["B_rho"] == 4.0 and s["c_beta"] > 0


def test_reproducible_across_executors():
    cfgs = [dict(m=30, lam=0.1, eps=0.5, calibration="derived", n_noise=10),
            dict(m=30, lam=0.1, eps=0.5, calibration="stated", n_noise=10)]
    a = run_grid(T.ls_risk_trial, cfgs, 3, seed=4, executor="serial")
    b = run_grid(T.ls_risk_trial, cfgs, 3, seed=4, executor="local", batch_size=1)
    assert a.equals(b)
    c = run_grid(T.svm_risk_trial, cfgs[:1], 2, seed=4, executor="serial")
    d = run_grid(T.svm_risk_trial, cfgs[:1], 2, seed=4, executor="serial")
    assert c.equals(d)


EXPECTED = {
    "jia.thm1:sensitivity", "jia.thm2:sensitivity", "jia.prop1.sensitivity:sensitivity",
    "jia.prop2:risk", "jia.prop3:risk", "jia.prop4:risk", "jia.thm4.bound:risk", "jia.thm4:risk",
    "jia.s5_1.bound:risk", "jia.s5_2.bound:risk", "jia.thm4:rate", "jia.s5_1.rate:rate",
    "jia.s5_2.rate:rate",
}


def test_every_statement_gets_a_verdict():
    J.clear_cache()
    ctx = Context(PROFILES["quick"], executor="serial").with_profile(**TINY)
    seen = set()
    for name in sorted(EXPECTED):
        res = CHECKS[name].fn(ctx)
        assert res, name
        for r in res:
            assert r.verdict in VERDICTS and r.key == CHECKS[name].key and r.kind == CHECKS[name].kind
            assert r.method and r.n >= 0
            assert "rejected" in r.details
            if r.kind == "rate":
                assert len(r.details["per_m"]) == 3 and r.bound < 0
            elif r.kind == "sensitivity":
                assert r.confidence == 1.0 and r.lo <= r.statistic <= r.hi
        seen.add(name)
    assert seen == EXPECTED
    ctx.close()
    J.clear_cache()


def _flaky_ls_trial(config, rng):
    if rng.random() < 0.5:
        raise CertificateError(Certificate("relative_kkt_residual", 1.0, 1e-10, False, solver="test"))
    return T.ls_risk_trial(config, rng)


def test_rejected_trials_are_dropped_and_counted(monkeypatch):
    J.clear_cache()
    monkeypatch.setattr(T, "ls_risk_trial", _flaky_ls_trial)
    ctx = Context(PROFILES["quick"], executor="serial").with_profile(**{**TINY, "n_trials": 12})
    res = [r for r in J.prop3_risk(ctx) if r.details["problem"] == "ls"]
    assert res
    for r in res:
        assert r.details["rejected"] > 0
        assert r.n + r.details["rejected"] == 12
        # the square loss is not C_L-Lipschitz on the range of f_z + b: outside Proposition 3's premise
        assert r.regime == "outside" and r.details["premise"] == J.LS_OUTSIDE_PREMISE
    J.clear_cache()


def test_svm_theorem2_is_attained():
    """Finding: for the hinge loss, Theorem 2's 2κC_L/(λγm) = κ/(λm) is attained (to rounding).

    Flipping the label of a point at its box bound in place, when no other dual coefficient
    moves, changes f by 2C·K_{x_j} with C = 1/(2λm): ‖Δ‖_K = κ/(λm) and ‖Δ‖_∞ = κ²/(λm).
    """
    P, K = T.binary_problem()
    X, y = P.sample(50, np.random.default_rng(0))
    lam = 0.1
    w = T.svm_worst_neighbour(X, y, lam, K, n_search=16, n_refit=8)
    assert w["rkhs"].value == pytest.approx(1 / (lam * 50), rel=1e-9)
    assert w["sup"].value == pytest.approx(1 / (lam * 50), rel=1e-9)
    x = X[:, 0]
    assert abs(x[w["rkhs"].j] - w["rkhs"].x_bar) < 1e-12 and w["rkhs"].y_bar == -y[w["rkhs"].j]


def test_rate_sweeps_span_six_sample_sizes_over_one_and_a_half_decades():
    from verify.empirical.core import PROFILES, Context
    from verify.empirical.jia import _rate_ms

    for p in PROFILES.values():
        ms = _rate_ms(Context(p))
        assert len(ms) >= 6 and ms[-1] / ms[0] >= 10**1.5 * 0.99, (p.name, ms)


# ---------------------------------------------------------------------------
# the least-squares sensitivity search split into index blocks (issue 15)
# ---------------------------------------------------------------------------


def _bits(v):
    """Floats as hex strings (nested), so that == compares bit for bit (nan, −0.0 included)."""
    if isinstance(v, float | np.floating):
        return float(v).hex()
    if isinstance(v, dict):
        return {k: _bits(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_bits(x) for x in v]
    return v


def _split_trial(cfg: dict, n_blocks: int, seed: int, order=None) -> dict:
    """The split search by hand: every block (in ``order``), the reduction, the refinement."""
    order = range(n_blocks) if order is None else order
    parts = [T.ls_sensitivity_trial({**cfg, "block": b, "n_blocks": n_blocks}, np.random.default_rng(seed))
             for b in order]
    screen = T.ls_reduce_blocks(parts)
    return T.ls_sensitivity_refine_trial({**cfg, "screen": screen}, np.random.default_rng(seed))


@pytest.mark.parametrize(("m", "lam", "n_search", "seed"), [(23, 0.05, 8, 3), (41, 0.02, 16, 0), (60, 0.1, 12, 9)])
def test_ls_split_search_is_bit_identical(m, lam, n_search, seed):
    """Every number of the reduced split search equals the unsplit trial's, for 1, 2, 3 and 5 blocks."""
    cfg = dict(m=m, lam=lam, n_search=n_search)
    whole = T.ls_sensitivity_trial(cfg, np.random.default_rng(seed))
    assert set(whole) == {f"{n}_{f}" for n in ("rkhs", "sup") for f in
                          ("value", "search_value", "j", "x_bar", "y_bar", "cert_error", "n_pairs", "n_refits")}
    for nb in (1, 2, 3, 5):
        order = list(range(nb))[::-1] if nb % 2 else None          # the order of the blocks is irrelevant
        assert _bits(_split_trial(cfg, nb, seed, order)) == _bits(whole), nb


def test_ls_block_rows_are_the_whole_scan_rows():
    """_ls_scan_rows restricted to [lo, hi) reproduces neighbour_scan's rows bit for bit (K-norm and grid sup)."""
    P = T.circle_problem()
    X, y = P.sample(37, np.random.default_rng(4))
    x = X[:, 0]
    F = T.KLSFactor(P.kernel(x), 0.03)
    xc = np.concatenate([np.linspace(0.01, 0.99, 7), x[:3]])
    yc = np.where(np.arange(xc.size) % 2 == 0, P.M, -P.M)
    grid = T._eval_grid(50, x, xc)
    args = (y, P.kernel(xc, x), P.kernel.diag(xc), yc)
    full = F.neighbour_scan(*args, K_eval=P.kernel(grid, x), K_eval_cand=P.kernel(grid, xc))
    for lo, hi in [(0, 37), (0, 1), (5, 30), (36, 37)]:
        rk, sup = T._ls_scan_rows(F, *args, lo, hi, Ke=P.kernel(grid, x), Kec=P.kernel(grid, xc))
        assert rk.tobytes() == full.rkhs_dist[lo:hi].tobytes()
        assert sup.tobytes() == full.sup_dist[lo:hi].tobytes()
        rk2, none = T._ls_scan_rows(F, *args, lo, hi)
        assert none is None and rk2.tobytes() == rk.tobytes()


@pytest.mark.parametrize("seed", range(4))
def test_block_reduction_matches_the_whole_matrix_with_ties(seed):
    """The merged block summaries give np.argmax and _top_pairs of the whole matrix, ties and repeated x̄ included."""
    rng = np.random.default_rng(seed)
    m, C, k = 13, 6, 4
    D = rng.integers(0, 3, size=(m, C)).astype(float)          # many ties
    xc = np.array([0.1, 0.4, 0.1, 0.4, 0.7, 0.7])               # x̄ repeated (the ±M labels)
    yc = np.array([1.0, 1.0, -1.0, -1.0, 1.0, -1.0])
    j, c = np.unravel_index(int(np.argmax(D)), D.shape)
    want_top = [[int(jj), float(xc[cc])] for jj, cc in T._top_pairs(D, xc, k)]
    for nb in (1, 2, 3, 5, 13):
        rows = []
        for b in range(nb):
            lo, hi = T._block_rows(m, b, nb)
            rows.append({"screen_block": b, "screen_n_blocks": nb, "screen_data_hash": 1.0,
                         **T._block_summary(D[lo:hi], lo, xc, yc, k, "screen_rkhs"),
                         **T._block_summary(D[lo:hi], lo, xc, yc, 1, "screen_sup")})
        got = T.ls_reduce_blocks(rows[::-1])
        assert got["rkhs"]["best"] == [D[j, c], j, xc[c], yc[c]]
        assert got["rkhs"]["starts"] == want_top
        assert got["sup"]["starts"] == want_top[:1]


def test_block_rows_partition_and_rule():
    for m in (1, 7, 20):
        for nb in range(1, m + 1):
            rows = [T._block_rows(m, b, nb) for b in range(nb)]
            assert rows[0][0] == 0 and rows[-1][1] == m
            assert all(a[1] == b[0] for a, b in zip(rows, rows[1:], strict=False))
            sizes = [hi - lo for lo, hi in rows]
            assert min(sizes) >= 1 and max(sizes) - min(sizes) <= 1
    with pytest.raises(ValueError):
        T._block_rows(5, 0, 6)
    with pytest.raises(ValueError):
        T._block_rows(5, 3, 3)
    # quick and default profiles are not split; the full profile's largest search is, within the budget
    for name, p in PROFILES.items():
        for m in p.m_sens:
            nb = T.ls_search_blocks(m, p.n_search)
            ops = m * (256 + m + p.n_search) * 2 * p.n_search
            assert 1 <= nb <= m
            assert ops / nb <= T.LS_BLOCK_WORK or nb == m
            if name in ("quick", "default"):
                assert nb == 1, (name, m)
    full = PROFILES["full"]
    assert T.ls_search_blocks(max(full.m_sens), full.n_search) > 1


def test_split_blocks_draw_the_unsplit_data_set():
    """Run by the runner, trial i of every block (and of the refinement) uses the unsplit trial i's data set."""
    cfg = dict(m=21, lam=0.1, n_search=6)
    blocks = [{**cfg, "block": b, "n_blocks": 3} for b in range(3)]
    df = run_grid(T.ls_sensitivity_trial, blocks, 2, seed=5, executor="serial")
    whole = run_grid(T.ls_sensitivity_trial, [cfg], 2, seed=5, executor="serial")
    P = T.circle_problem()
    for i in range(2):
        X, y = P.sample(21, np.random.default_rng(trial_seeds(cfg, 2, 5)[i]))
        part = df[df["trial"] == i]
        assert len(part) == 3 and set(part["screen_data_hash"]) == {T._data_hash(np.mod(X[:, 0], 1.0), y)}
        screen = T.ls_reduce_blocks(part.to_dict("records"))
        assert screen["trial"] == i
        ref = run_grid(T.ls_sensitivity_refine_trial, [{**cfg, "screen": screen}], 1, seed=5, executor="serial")
        cols = [k for k in whole.columns if k.startswith(("rkhs_", "sup_"))]
        assert _bits(ref[cols].iloc[0].to_dict()) == _bits(whole[cols].iloc[i].to_dict())
    # the other trial's screening is refused: it was computed on another data set
    with pytest.raises(ValueError, match="another data set"):
        run_grid(T.ls_sensitivity_refine_trial, [{**cfg, "screen": {**screen, "trial": 0}}], 1, seed=5)
    with pytest.raises(ValueError, match="exactly once"):
        T.ls_reduce_blocks(df[df["trial"] == 0].to_dict("records")[:2])


def test_check_rows_do_not_depend_on_the_split(monkeypatch):
    """jia.thm1/thm2/prop1 sensitivity rows on a tiny profile: identical unsplit and in 3 index blocks."""
    tiny = {**TINY, "m_sens": (20, 33)}
    rows = {}
    for nb in (1, 3):
        J.clear_cache()
        monkeypatch.setattr(J, "SENS_N_BLOCKS", nb)
        ctx = Context(PROFILES["quick"], executor="serial").with_profile(**tiny)
        rows[nb] = [_bits(dataclasses.asdict(r)) for fn in (J.thm1_sensitivity, J.thm2_sensitivity,
                                                            J.prop1_sensitivity) for r in fn(ctx)]
        refined = any(key[0] == "ls_sensitivity_refine_trial" for key in J._CACHE)
        assert refined == (nb > 1)                                  # the split path did run
        ctx.close()
    J.clear_cache()
    assert sum(r["details"]["problem"] == "ls" for r in rows[1]) >= 8   # 2 m × 2 λ × 2+ checks
    assert rows[3] == rows[1]
