"""Empirical checks of seed 002 (Talwar, Thakurta & Zhang, ``002_9f0d50e873e3e787.txt``).

==========================  ========  ===========================================================
check                       kind      what is measured
==========================  ========  ===========================================================
``ttz.fw.lasso_explicit``   risk      E L(θ_T) − L* of private Frank–Wolfe on LASSO (p = 5, ε = 0.5,
                                      δ = 1e-8, n = 200·m) with the derived, the printed and the
                                      tight (PLD accountant) scale, against the explicit bound
                                      ``ttz.fw.utility.explicit``
``ttz.thm1_2.lasso``        rate      slope of log E L(θ_T) − L* against log n (n = 1000·m_grid, the
                                      T(n) schedule, derived scale) against −2/3
``ttz.eq10``                rate      private mirror descent over the unit ℓ2 ball, worst excess risk
                                      over linear-loss data sets d̄ = a·e₁, slope against log p (0.5)
``ttz.eq11.l1``             rate      the same over the unit ℓ1 ball (entropic, ±e_j trick): slope
                                      against log log p (0.5, the Gaussian width's √log p) and log p
``ttz.gw.*``                risk      Monte Carlo Gaussian widths (mean, CI) against the closed-form
                                      bounds; the exact values are in ``details``
``ttz.table1``              risk      Table 1 next to the measured numbers (``details["table1"]``)
==========================  ========  ===========================================================

:func:`audits` audits private Frank–Wolfe with :func:`verify.audit.audit` (stated, derived and tight
scale), :func:`audit_mirror_descent` private mirror descent (derived and tight σ).

Examples
--------
>>> from verify.empirical.core import Context, PROFILES
>>> from verify.empirical import ttz
>>> ctx = Context(PROFILES["quick"], executor="serial").with_profile(n_rate_trials=3)
>>> [r.verdict for r in ttz.check_gw_l1(ctx)][:1]
['holds']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

import bounds
from bounds.papers import ttz as B
from simulations import private_erm as PE
from simulations.trials import ttz as T
from verify.stats import mean_ci, rate_verdict, slope_fit, verdict

from .core import Context, Result, audit_check, clear_shared_runs, empirical_check, shared_run

SEED = "002_9f0d50e873e3e787.txt"
#: FW checks: dimension, ε, δ, and the factors turning profile sizes into sample sizes
FW_P, FW_EPS, FW_DELTA, FW_RISK_SCALE, FW_RATE_SCALE = 5, 0.5, 1e-8, 200, 1000
#: trials per n in the FW rate sweep (relative standard errors are < 1% already at 16; the slope's
#: interval comes from the scatter about the line)
FW_RATE_MAX_TRIALS = 16
#: mirror-descent geometry check: sample size, T, ε, δ, dimensions
MD_N, MD_T, MD_EPS, MD_DELTA = 200, 200, 1.0, 1e-8
MD_P_GRID = (2, 4, 8, 16, 32, 64, 128)
#: Gaussian-width checks: set -> dimension tuples
WIDTH_CASES: dict[str, tuple[tuple[int, ...], ...]] = {
    "l2": ((10,), (100,), (1000,)),
    "l1": ((10,), (100,), (1000,)),
    "simplex": ((10,), (100,), (1000,)),
    "group": ((4, 16), (16, 64)),
    "nuclear": ((10, 10), (20, 40)),
}
WIDTH_MC = 500
#: scales of the FW risk check: derived (advanced composition), the paper's, and the PLD accountant's
FW_RISK_CALIBRATIONS = ("derived", "stated", "tight")

_cached = shared_run  # one simulation read by several checks (verify.empirical.core.shared_run)


def clear_cache() -> None:
    """Forget the shared runs (all papers')."""
    clear_shared_runs()


def _accepted(df: pd.DataFrame) -> tuple[pd.DataFrame, int]:
    rej = df["rejected"] == 1 if "rejected" in df.columns else pd.Series(False, index=df.index)
    return df.loc[~rej].copy(), int(rej.sum())


def fw_explicit_bound(scale: float, T_: int, p: int = FW_P) -> float:
    """``ttz.fw.utility.explicit`` for LASSO (L₁ = 4, ‖C‖₁ = 1, Γ = 8, k = 2p) at Laplace scale ``scale``."""
    return bounds.value(B.FW_UTILITY_EXPLICIT, {"lam_noise": scale, "k_vert": 2 * p, "L1": T.LASSO_L1,
                                                "C1": T.LASSO_C1, "Gamma_L": T.LASSO_GAMMA, "T": T_})


# --------------------------------------------------------------------------------------
# (a) private Frank–Wolfe on LASSO: risk against the explicit bound
# --------------------------------------------------------------------------------------
def _fw_risk_frame(ctx: Context) -> pd.DataFrame:
    def run() -> pd.DataFrame:
        n = FW_RISK_SCALE * ctx.profile.m
        cfgs = [T.fw_config(n=n, p=FW_P, eps=FW_EPS, delta=FW_DELTA, calibration=c) for c in FW_RISK_CALIBRATIONS]
        return ctx.run(T.fw_lasso_trial, cfgs, ctx.profile.n_trials, desc="ttz FW risk")

    return _cached(ctx, "fw_risk", run)


@empirical_check("ttz.fw.lasso_explicit", "risk")
def check_fw_risk(ctx: Context) -> list[Result]:
    """Mean excess risk of private Frank–Wolfe on LASSO with its CI, against the explicit bound."""
    df, rejected = _accepted(_fw_risk_frame(ctx))
    out = []
    n = FW_RISK_SCALE * ctx.profile.m
    for cal in FW_RISK_CALIBRATIONS:
        d = df[df["calibration"] == cal]
        mean, lo, hi = mean_ci(d["excess"], ctx.profile.confidence)
        T_, scale = int(d["T"].iloc[0]), float(d["scale"].iloc[0])
        bound = fw_explicit_bound(scale, T_)
        out.append(Result(evidence="empirical", key="ttz.fw.lasso_explicit", kind="risk", name=f"calibration={cal}, n={n}, p={FW_P}, ε={FW_EPS}", statistic=mean, lo=lo, hi=hi, bound=bound, verdict=verdict(lo, hi, bound), confidence=ctx.profile.confidence, method="E L(θ_T) − L* over data sets × noise (x ~ U[−1,1]^p, y = clip(⟨x, θ⁰⟩ + 0.1N)), L* certified by the "
            "Frank–Wolfe gap; bound 2λ(1+ln 2p) + (16 + 16(T−1))/(T(T+1)) at the run's λ", n=len(d), details={"n": n, "p": FW_P, "eps": FW_EPS, "delta": FW_DELTA, "T": T_, "scale": scale,
             "max_gap": float(d["gap"].max()), "mean_curvature": float(d["curvature"].mean()),
             "rejected": rejected}))
    return out


# --------------------------------------------------------------------------------------
# (b) rate in n
# --------------------------------------------------------------------------------------
def _fw_rate_frame(ctx: Context) -> pd.DataFrame:
    def run() -> pd.DataFrame:
        cfgs = [T.fw_config(n=FW_RATE_SCALE * int(m), p=FW_P, eps=FW_EPS, delta=FW_DELTA) for m in ctx.profile.m_grid]
        return ctx.run(T.fw_lasso_trial, cfgs, _fw_rate_trials(ctx), desc="ttz FW rate")

    return _cached(ctx, "fw_rate", run)


def _fw_rate_trials(ctx: Context) -> int:
    """Trials per n of the FW rate sweep: the profile's, capped at :data:`FW_RATE_MAX_TRIALS` (n reaches 6.4e6)."""
    return min(ctx.profile.n_rate_trials, FW_RATE_MAX_TRIALS)


def _fw_rate_series(ctx: Context) -> dict[str, list[float]]:
    df, rej = _accepted(_fw_rate_frame(ctx))
    ns, means, ses, bnds = [], [], [], []
    for n, d in df.groupby("n"):
        ns.append(int(n))
        means.append(float(d["excess"].mean()))
        ses.append(float(d["excess"].std(ddof=1) / math.sqrt(len(d))))
        bnds.append(fw_explicit_bound(float(d["scale"].iloc[0]), int(d["T"].iloc[0])))
    return {"m": ns, "mean": means, "se": ses, "bound": bnds, "rejected": rej}


@empirical_check("ttz.thm1_2.lasso", "rate")
def check_fw_rate(ctx: Context) -> list[Result]:
    """Slope of log excess risk against log n with the paper's T(n), against −2/3."""
    s = _fw_rate_series(ctx)
    fit = slope_fit(s["m"], s["mean"], s["se"], ctx.profile.confidence)
    bfit = slope_fit(s["m"], s["bound"])
    claimed = -2 / 3
    n_tr = _fw_rate_trials(ctx)
    return [Result(evidence="empirical", key="ttz.thm1_2.lasso", kind="rate", name=f"n = {s['m'][0]}…{s['m'][-1]}, T = ⌈(2nε)^(2/3)⌉, derived scale", statistic=fit.slope, lo=fit.lo, hi=fit.hi, bound=claimed, verdict=rate_verdict(fit, claimed), confidence=ctx.profile.confidence, method="weighted LS slope of log mean excess risk against log n (private Frank–Wolfe, LASSO p = 5, ε = 0.5, "
        "δ = 1e-8)", n=n_tr * len(s["m"]), details={"m": s["m"], "mean": s["mean"], "se": s["se"], "bound": s["bound"], "bound_slope": bfit.slope,
         "rejected": s["rejected"], "x_label": "n (sample size)"})]


# --------------------------------------------------------------------------------------
# (c) geometry: mirror descent over the ℓ2 and ℓ1 balls against p
# --------------------------------------------------------------------------------------
def _md_frame(ctx: Context) -> pd.DataFrame:
    def run() -> pd.DataFrame:
        cfgs = [T.md_config(n=MD_N, p=p, eps=MD_EPS, delta=MD_DELTA, geometry=g, T=MD_T)
                for g in ("l2", "l1") for p in MD_P_GRID]
        return ctx.run(T.md_linear_trial, cfgs, ctx.profile.n_rate_trials, desc="ttz MD geometry")

    return _cached(ctx, "md", run)


def md_series(ctx: Context, geometry: str) -> dict[str, list[float]]:
    """Per p: the worst (over a) mean excess risk, its SE, the worst a and the explicit bound."""
    df, _ = _accepted(_md_frame(ctx))
    d0 = df[df["geometry"] == geometry]
    n_a = len(T.MD_DEFAULTS["a_grid"])
    ps, means, ses, worst_a, bnds = [], [], [], [], []
    for p, d in d0.groupby("p"):
        m = np.array([d[f"excess_{i}"].mean() for i in range(n_a)])
        i = int(np.argmax(m))
        ps.append(int(p))
        means.append(float(m[i]))
        ses.append(float(d[f"excess_{i}"].std(ddof=1) / math.sqrt(len(d))))
        worst_a.append(float(d[f"a_{i}"].iloc[0]))
        bnds.append(B.md_bound_value(geometry, int(p), MD_N, MD_EPS, MD_DELTA, 1.0, MD_T))
    return {"m": ps, "mean": means, "se": ses, "worst_a": worst_a, "bound": bnds}


_MD_METHOD = ("worst over a ∈ [0.01, 1] of the mean excess a(1 − θ̄₁) of private mirror descent (n = 200, T = 200, "
              "ε = 1, δ = 1e-8, σ by zCDP, η of the explicit bound) on linear losses with d̄ = a·e₁")


@empirical_check("ttz.eq10", "rate")
def check_md_l2(ctx: Context) -> list[Result]:
    """ℓ2 ball: slope of log worst-case excess risk against log p (predicted √p: 0.5)."""
    s = md_series(ctx, "l2")
    fit = slope_fit(s["m"], s["mean"], s["se"], ctx.profile.confidence)
    bfit = slope_fit(s["m"], s["bound"])
    return [Result(evidence="empirical", key="ttz.eq10", kind="rate", name="unit ℓ2 ball, slope against log p", statistic=fit.slope, lo=fit.lo, hi=fit.hi, bound=0.5, verdict=rate_verdict(fit, 0.5), confidence=ctx.profile.confidence, method=_MD_METHOD, n=ctx.profile.n_rate_trials * len(s["m"]), details={**s, "x_label": "p (dimension)", "y_label": "worst-case excess risk",
                             "bound_slope": bfit.slope})]


@empirical_check("ttz.eq11.l1", "rate")
def check_md_l1(ctx: Context) -> list[Result]:
    """ℓ1 ball: slope against log log p (predicted √log p: 0.5) and against log p (compared with ℓ2's 0.5)."""
    s = md_series(ctx, "l1")
    s2 = md_series(ctx, "l2")
    logp = [math.log(p) for p in s["m"]]
    fit = slope_fit(logp, s["mean"], s["se"], ctx.profile.confidence)
    fit_p = slope_fit(s["m"], s["mean"], s["se"], ctx.profile.confidence)
    bfit = slope_fit(logp, s["bound"])
    common = {"p": s["m"], "worst_a": s["worst_a"], "bound_slope_loglog": bfit.slope, "l2_mean": s2["mean"],
              "ratio_l2_over_l1_at_max_p": s2["mean"][-1] / s["mean"][-1], "y_label": "worst-case excess risk"}
    # against log log p the figure's x axis is log p (its log-log slope is then the slope in log log p)
    det = {**s, **common, "m": logp, "x_label": "log p"}
    det_p = {**s, **common, "x_label": "p (dimension)"}
    return [
        Result(evidence="empirical", key="ttz.eq11.l1", kind="rate", name="unit ℓ1 ball, slope against log log p", statistic=fit.slope, lo=fit.lo, hi=fit.hi, bound=0.5, verdict=rate_verdict(fit, 0.5), confidence=ctx.profile.confidence, method=_MD_METHOD, n=ctx.profile.n_rate_trials * len(s["m"]), details=det),
        Result(evidence="empirical", key="ttz.eq11.l1", kind="rate", name="unit ℓ1 ball, slope against log p (vs ℓ2's √p)", statistic=fit_p.slope, lo=fit_p.lo, hi=fit_p.hi, bound=0.5, verdict=rate_verdict(fit_p, 0.5), confidence=ctx.profile.confidence, method=_MD_METHOD, n=ctx.profile.n_rate_trials * len(s["m"]), details=det_p),
        Result(evidence="empirical", key="ttz.eq11.l1", kind="rate", name="unit ℓ1 ball, slope against log log p vs the explicit bound's", statistic=fit.slope, lo=fit.lo, hi=fit.hi, bound=bfit.slope, verdict=rate_verdict(fit, bfit.slope), confidence=ctx.profile.confidence, method=_MD_METHOD + "; claimed: the fitted slope of ttz.thm3_2.explicit (D²·G² = ln 2p·G²) on the "
                        "same grid", n=ctx.profile.n_rate_trials * len(s["m"]), details=dict(det)),
    ]


# --------------------------------------------------------------------------------------
# (d) Gaussian widths
# --------------------------------------------------------------------------------------
def _width_frame(ctx: Context) -> pd.DataFrame:
    def run() -> pd.DataFrame:
        cfgs = [{"set": s, "d1": d[0], "d2": d[1] if len(d) > 1 else 0, "n_mc": WIDTH_MC}
                for s, ds in WIDTH_CASES.items() for d in ds]
        return ctx.run(T.width_trial, cfgs, max(ctx.profile.n_rate_trials, 2), desc="ttz widths")

    return _cached(ctx, "widths", run)


def _width_check(ctx: Context, set_: str) -> list[Result]:
    df, _ = _accepted(_width_frame(ctx))
    statement, bound_fn = T.WIDTH_BOUNDS[set_]
    key = statement.key
    out = []
    for dims in WIDTH_CASES[set_]:
        d2 = dims[1] if len(dims) > 1 else 0
        d = df[(df["set"] == set_) & (df["d1"] == dims[0]) & (df["d2"] == d2)]
        mean, lo, hi = mean_ci(d["width"], ctx.profile.confidence)
        bound = bound_fn(dims)
        exact = T.WIDTH_CLOSED_FORMS[set_](dims) if set_ in T.WIDTH_CLOSED_FORMS else None
        det: dict[str, Any] = {"dims": list(dims), "n_mc": WIDTH_MC * len(d)}
        vd = verdict(lo, hi, bound)
        if exact is not None:
            det.update(exact=exact, exact_in_ci=bool(lo <= exact <= hi))
            if lo <= exact <= hi:
                # the exact value, confirmed by the Monte Carlo interval, decides where the interval alone cannot
                vd = "holds" if exact <= bound else "violated"
                det["graded_on"] = (f"the exact value {exact:.7g} (inside the Monte Carlo interval) against the bound "
                                    f"{bound:.7g}")
        out.append(Result(evidence="empirical", key=key, kind="risk", name=f"{set_} {'×'.join(map(str, dims))}", statistic=mean, lo=lo, hi=hi, bound=bound, verdict=vd, confidence=ctx.profile.confidence, method="Monte Carlo mean of sup_C⟨θ, g⟩ (Student-t interval over trials) against the "
                                   "closed-form bound; exact value (chi mean / quadrature) in details", n=len(d), details=det))
    return out


@empirical_check("ttz.gw.l2", "risk")
def check_gw_l2(ctx: Context) -> list[Result]:
    """Gaussian width of the unit ℓ2 ball (exact chi mean in details)."""
    return _width_check(ctx, "l2")


@empirical_check("ttz.gw.l1", "risk")
def check_gw_l1(ctx: Context) -> list[Result]:
    """Gaussian width of the unit ℓ1 ball."""
    return _width_check(ctx, "l1")


@empirical_check("ttz.gw.simplex", "risk")
def check_gw_simplex(ctx: Context) -> list[Result]:
    """Gaussian width of the simplex."""
    return _width_check(ctx, "simplex")


@empirical_check("ttz.gw.group", "risk")
def check_gw_group(ctx: Context) -> list[Result]:
    """Gaussian width of the grouped ℓ1/ℓ2 unit ball."""
    return _width_check(ctx, "group")


@empirical_check("ttz.gw.nuclear", "risk")
def check_gw_nuclear(ctx: Context) -> list[Result]:
    """Gaussian width of the unit nuclear-norm ball."""
    return _width_check(ctx, "nuclear")


# --------------------------------------------------------------------------------------
# (e) Table 1 with measured numbers
# --------------------------------------------------------------------------------------
@empirical_check("ttz.table1", "risk")
def check_table1(ctx: Context) -> list[Result]:
    """Table 1 rows with the measured values of (a)–(c) (``details['table1']``)."""
    [fw] = [r for r in check_fw_risk(ctx) if r.variant.startswith("calibration=derived")]
    [rate] = check_fw_rate(ctx)
    l2 = md_series(ctx, "l2")
    l1 = md_series(ctx, "l1")
    f2 = slope_fit(l2["m"], l2["mean"], l2["se"], ctx.profile.confidence)
    f1 = slope_fit([math.log(p) for p in l1["m"]], l1["mean"], l1["se"], ctx.profile.confidence)
    pmax = l2["m"][-1]
    measured = {
        "ttz.thm3_2": (f"MD, linear losses, n = {MD_N}, ε = {MD_EPS}: worst excess at p = {pmax}: ℓ2 ball "
                       f"{l2['mean'][-1]:.3f} (slope in log p {f2.slope:.2f}), ℓ1 ball {l1['mean'][-1]:.3f} "
                       f"(slope in log log p {f1.slope:.2f})"),
        "ttz.thm1_2.lasso": (f"FW, LASSO p = {FW_P}: excess {fw.statistic:.4f} [{fw.lo:.4f}, {fw.hi:.4f}] at "
                             f"n = {fw.details['n']} (explicit bound {fw.bound:.3f}); slope in n {rate.statistic:.3f} "
                             f"[{rate.lo:.3f}, {rate.hi:.3f}] vs −2/3"),
    }
    rows = []
    for row in B.TABLE1:
        r = dict(row)
        r["measured"] = measured.get(row["statement"], "—")
        rows.append(r)
    return [Result(evidence="empirical", key="ttz.table1", kind="risk", name="Table 1 with measured values (FW row as statistic)", statistic=fw.statistic, lo=fw.lo, hi=fw.hi, bound=fw.bound, verdict=fw.verdict, confidence=ctx.profile.confidence, method="the rows of Table 1 with the measured numbers of the FW and MD checks", n=fw.n, details={"table1": rows, "markdown": B.table1_markdown({k: v for k, v in measured.items()})})]


# --------------------------------------------------------------------------------------
# audits
# --------------------------------------------------------------------------------------
def _hard_pair(n_data: int, p: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                                         np.ndarray, dict[str, Any]]:
    """A LASSO data set and the neighbour (one record replaced) moving ∇L(0) most in ℓ∞."""
    X, y = T.lasso_data(n_data, p, [0.5, -0.3], 0.1, rng)
    prod = y[:, None] * X  # the record's contribution to c = Xᵀy/n
    i, j = np.unravel_index(int(np.argmax(np.abs(prod))), prod.shape)
    x_new = -np.sign(prod[i, j]) * np.ones(p)
    X2, y2 = X.copy(), y.copy()
    X2[i], y2[i] = x_new, 1.0
    info = {"index": int(i), "coordinate": int(j), "grad_change_inf": float(2 * np.max(np.abs(prod[i] - x_new)) / n_data)}
    return X, y, X2, y2, info


def _step_pair(n_data: int, lam: float, n_releases: int = 20000,
               confidence: float = 0.95) -> tuple[tuple, tuple, dict[str, Any]]:
    """p = 1, x_i = 1, labels ±1: the base count of +1 labels whose neighbour is most detectable.

    The neighbour flips one −1 label to +1, moving c = mean(y) by 2/n and ∇L(0) = −2c by 4/n.  The
    release (the selected vertex) is binary; the base data set maximises the audit's ε lower bound at the
    *expected* counts of 80% of ``n_releases`` (the exact loss alone favours tails no audit can see).
    """
    from verify.audit import eps_lower_bound

    n_ev = int(0.8 * n_releases)
    best = (-1.0, 0, 0.0)
    for k_plus in range(0, n_data):
        c0 = (2 * k_plus - n_data) / n_data
        z0, z1 = -4 * c0, -4 * (c0 + 2 / n_data)  # score(+e₁) − score(−e₁) on z and z̄
        p0, p1 = _tail(z0, lam), _tail(z1, lam)  # P(select +e₁) = P(X₂ − X₁ > score gap)
        exact = max(abs(math.log(p1 / p0)), abs(math.log((1 - p1) / (1 - p0))))
        lb = max(eps_lower_bound(int(round(p0 * n_ev)), n_ev, int(round((1 - p1) * n_ev)), n_ev,
                                 confidence=confidence),
                 eps_lower_bound(int(round((1 - p0) * n_ev)), n_ev, int(round(p1 * n_ev)), n_ev,
                                 confidence=confidence))
        if lb > best[0]:
            best = (lb, k_plus, exact)
    k_plus = best[1]
    y = np.array([1.0] * k_plus + [-1.0] * (n_data - k_plus))
    y2 = y.copy()
    y2[k_plus] = 1.0
    X = np.ones((n_data, 1))
    return (X, y), (X, y2), {"k_plus": k_plus, "exact_eps_of_one_selection": best[2],
                             "expected_eps_lower": best[0]}


def _tail(u: float, lam: float) -> float:
    """P[X₂ − X₁ > u] for X_i ~ Lap(λ) i.i.d."""
    if u >= 0:
        return 0.5 * math.exp(-u / lam) * (1 + u / (2 * lam))
    return 1 - 0.5 * math.exp(u / lam) * (1 - u / (2 * lam))


def _fw_releases(X: np.ndarray, y: np.ndarray, T_: int, scale: float, v: np.ndarray) -> Callable:
    A, c, _ = PE.lasso_stats(X, y)

    def rel(rng: np.random.Generator, k_: int) -> np.ndarray:
        return PE.private_fw_lasso(A, c, T_, scale, rng, n_rep=k_) @ v

    return rel


def audits(n: int = 20000, seed: int = 0, confidence: float = 0.95) -> list[Result]:
    """Privacy audits of private Frank–Wolfe (:func:`verify.audit.audit`), release model: θ_T.

    Rows:

    * ``ttz.fw`` — the whole algorithm (n_data = 20, p = 2, ε = 0.5, δ = 1e-5, T of the schedule) on the
      neighbour moving ∇L(0) most, at the three scales of ``ttz.fw.scale``: ``stated`` (printed),
      ``derived`` (advanced composition) and ``tight`` (the PLD accountant's, about 3.4× below the
      derived one at this T = 8); statistic: ⟨θ_T, v⟩ with v the difference of the mean outputs on
      the two data sets, estimated on 2000 separate runs each.
    * ``ttz.fw.step`` — one noisy vertex selection (T = 2, θ₂ = (2/3)·vertex, p = 1, n_data = 10) at the
      per-step ε₀ = 1 that the printed scale accounts for (λ = L₁‖C‖₁/(nε₀)), the derived one using
      4L₁‖C‖₁/(nε₀); the pair maximises the exact loss of the selection.

    Returns
    -------
    list of :class:`bounds.evidence.Result` (evidence ``audit``)
    """
    from verify.audit import audit, audit_row, audit_seed

    out = []
    rng = np.random.default_rng(np.random.SeedSequence([seed, 2002]))
    n_data, p, eps, delta = 20, 2, 0.5, 1e-5
    X, y, X2, y2, info = _hard_pair(n_data, p, rng)
    T_ = T.fw_T(n_data, eps)
    for cal in ("stated", "derived", "tight"):
        scale = T.fw_scale(T.LASSO_L1, T.LASSO_C1, T_, n_data, eps, delta, which=cal)
        A0, c0, _ = PE.lasso_stats(X, y)
        A1, c1, _ = PE.lasso_stats(X2, y2)
        v = (PE.private_fw_lasso(A1, c1, T_, scale, rng, n_rep=2000).mean(axis=0)
             - PE.private_fw_lasso(A0, c0, T_, scale, rng, n_rep=2000).mean(axis=0))
        v = v / max(np.linalg.norm(v), 1e-12)
        res = audit(_fw_releases(X, y, T_, scale, v), _fw_releases(X2, y2, T_, scale, v), n=n,
                    seed=audit_seed(seed, "ttz.fw", "theta_T", cal), confidence=confidence, delta=delta)
        vd = "violated" if res.eps_lower > eps else "consistent"
        out.append(audit_row(
            "ttz.fw.privacy", "ttz.fw", "002 §5, Algorithm 2 (private Frank–Wolfe), scale ttz.fw.scale", "theta_T", cal, eps, delta,
            res.eps_lower, res.eps_point, confidence, n, vd,
            "threshold on ⟨θ_T, v⟩, v = difference of mean outputs (separate runs)",
            "the printed scale is ¼ of the required one" if vd == "violated" else
            "no leak beyond the claim was detected at this pair",
            {**info, "T": T_, "scale": scale, "n_data": n_data, "p": p, "fpr": res.fpr, "fnr": res.fnr,
             "threshold": res.threshold}, eps_max=res.eps_max))
    # one selection step at the per-step ε₀ of the printed accounting
    n_step, eps0 = 10, 1.0
    for cal, factor in (("stated", 1.0), ("derived", 4.0)):
        scale = factor * T.LASSO_L1 * T.LASSO_C1 / (n_step * eps0)
        (Xa, ya), (Xb, yb), inf2 = _step_pair(n_step, scale, n, confidence)
        ones = np.ones(1)
        res = audit(_fw_releases(Xa, ya, 2, scale, ones), _fw_releases(Xb, yb, 2, scale, ones), n=n,
                    seed=audit_seed(seed, "ttz.fw.step", "theta_2", cal), confidence=confidence)
        vd = "violated" if res.eps_lower > eps0 else "consistent"
        out.append(audit_row(
            "ttz.fw.scale", "ttz.fw.step", "002 §5, one noisy vertex selection at the per-step ε₀ of ttz.fw.scale", "theta_2", cal,
            eps0, 0.0, res.eps_lower, res.eps_point, confidence, n, vd, "the released vertex (sign of θ₂)",
            "scores ±∇_jL move in opposite directions by up to 2L₁‖C‖₁/n: report-noisy-min loses 2Δ/λ, four times "
            "the ε₀ the printed scale accounts for" if vd == "violated" else
            "no leak beyond the claim was detected at this pair",
            {**inf2, "scale": scale, "n_data": n_step, "fpr": res.fpr, "fnr": res.fnr, "threshold": res.threshold,
             # ε₀ = 1 is the per-step budget the toolkit infers from the printed scale, not the paper's claimed
             # total (ε, δ): its violation is reported but refutes nothing by itself (the whole-algorithm rows test
             # the claim)
             "budget": "toolkit", **({"error": B.FW_ACCOUNTING} if vd == "violated" else {})},
            eps_max=res.eps_max))
    return out


def audit_mirror_descent(n: int = 20_000, seed: int = 0, confidence: float = 0.95, eps: float = 0.5,
                         delta: float = 1e-5, n_data: int = 20, p: int = 2,
                         calibrations: tuple[str, ...] = ("derived", "tight")) -> list[Result]:
    """Audit of 002's private mirror descent (Algorithm 1, Euclidean potential over the ℓ2 ball).

    LASSO loss on n_data records (x ∈ [−1, 1]^p, |y| ≤ 1); its ℓ2-Lipschitz constant on the unit
    ball is L = 2(√p + 1)√p; Gaussian noise σ (``calibrations``): ``derived`` from ``ttz.md.sigma.zcdp``
    (zCDP composition over T = n_data steps, converted to (ε, δ)), ``tight`` the smallest σ the PLD
    accountant certifies (≈ 1/1.31 of it); step size from ``ttz.thm3_2.explicit`` at that σ.  Pair:
    the record whose replacement moves the gradient at 0 most.  Release: the averaged iterate;
    statistic: its projection on the difference of the mean outputs of the two data sets (estimated
    on separate runs).  One row per calibration, each with its own random stream.
    """
    from simulations import private_erm as PE
    from simulations.trials import ttz as TT
    from simulations.trials.ttz import md_sigma
    from verify.audit import audit, audit_result, audit_seed

    rng = np.random.default_rng(np.random.SeedSequence([seed, 2003]))
    X, y = TT.lasso_data(n_data, p, [0.5, -0.3], 0.1, rng)
    prod = y[:, None] * X
    i = int(np.unravel_index(int(np.argmax(np.abs(prod))), prod.shape)[0])
    X2, y2 = X.copy(), y.copy()
    X2[i], y2[i] = -np.sign(prod[i]) * np.ones(p), 1.0
    L = 2 * (math.sqrt(p) + 1) * math.sqrt(p)
    T = n_data
    out = []
    for cal in calibrations:
        sigma = md_sigma(L, n_data, T, eps, delta, which=cal)
        eta = PE.md_step_size(0.5, L, sigma, math.sqrt(p), 1.0, T)

        def releases(Xd: np.ndarray, yd: np.ndarray, v: np.ndarray | None, eta: float = eta,
                     sigma: float = sigma) -> Callable:
            A, c, _ = PE.lasso_stats(Xd, yd)

            def rel(r: np.random.Generator, k: int) -> np.ndarray:
                th = PE.private_mirror_descent(lambda t: 2 * (t @ A - c), p, "l2", T, eta, sigma, r, n_rep=k)
                return th if v is None else th @ v
            return rel

        v = releases(X2, y2, None)(rng, 4000).mean(axis=0) - releases(X, y, None)(rng, 4000).mean(axis=0)
        v /= max(float(np.linalg.norm(v)), 1e-12)
        det = {"n_data": n_data, "p": p, "T": T, "sigma": sigma, "eta": eta, "L2": L, "index": i}
        res = audit(releases(X, y, v), releases(X2, y2, v), n=n, seed=audit_seed(seed, "ttz.md", "theta_avg", cal),
                    confidence=confidence, delta=delta)
        out.append(audit_result("ttz.md.sigma.zcdp", mechanism="ttz.md",
                                source="002 §3, Algorithm 1 (private mirror descent, ℓ2 ball)", release="theta_avg",
                                calibration=cal, claimed=eps, result=res, delta=delta,
                                attack="threshold on ⟨θ̄, v⟩, v = difference of mean outputs (separate runs)",
                                details=det))
    return out


#: releases of the Frank–Wolfe and mirror-descent audits are capped (each release reruns the algorithm)
AUDIT_CAP = 20_000


@audit_check("ttz.fw.privacy")
def audit_fw(ctx: Context) -> list[Result]:
    """Audits of private Frank–Wolfe (:func:`audits`): the whole algorithm (stated, derived, tight scale) and one
    noisy selection."""
    p = ctx.profile
    return audits(min(p.n_audit, AUDIT_CAP), ctx.seed, p.confidence)


@audit_check("ttz.md.sigma.zcdp")
def audit_md(ctx: Context) -> list[Result]:
    """Audits of private mirror descent at the derived (zCDP) and the tight σ (:func:`audit_mirror_descent`)."""
    p = ctx.profile
    return audit_mirror_descent(min(p.n_audit, AUDIT_CAP), ctx.seed, p.confidence)
