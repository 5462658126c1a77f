"""Empirical checks of seed 004 (Pathak & Raj, "Large margin multiclass Gaussian classification
with differential privacy", PSDML 2010).

Seed file ``004_69734a6b7aad1d0d.txt``.  The classifier, its certified solver and the exact
noise sampler are in :mod:`simulations.large_margin`; the trials in
:mod:`simulations.trials.pr`.  The loss is the corrected (continuous) Huber hinge of
``pr.eq6.huber`` with h = ½.

==================  ============  ==============================================================
statement           kind          what is measured
==================  ============  ==============================================================
``pr.lemma1``       sensitivity   max ‖∂ℓ/∂Φ_c(x, y) − ∂ℓ/∂Φ_c(x', y')‖_F over an adversarial
                                  search (points on the unit sphere, labels, classes, Φ ⪰ 0),
                                  against the stated 2 and the derived 2·max(C, √2(C − 1))
``pr.lemma2``       sensitivity   the claimed strong-convexity modulus (stated λ, derived 0)
                                  against the smallest curvature of J found along random
                                  directions and the common-shift direction (the bound is the
                                  largest modulus the measurements allow)
``pr.lemma4``       violation     exact P[‖b‖ ≥ t_stated]/δ from the Γ((d+1)², 2/ε) law over a
                                  grid of d and δ; one Monte Carlo point with Clopper–Pearson
``pr.thm5_2``       violation     frequency of {Φ^p does not exist (J_p unbounded below) or
                                  J(Φ^p) − inf J > bound} against δ
``pr.thm5_3``       violation     the same for L̃(Φ^p) − L̃(Φ*) (true risk on fresh points)
``pr.thm5_2``       risk          iris (scikit-learn): mean regularised excess risk per ε against
                                  the expectation of the proof's chain 2C‖b‖²/λ; the
                                  accuracy table (``details["utility"]``)
==================  ============  ==============================================================

:func:`audits` audits Theorem 5.1's ε' on a neighbouring pair with the KKT-residual attack.

Examples
--------
>>> from verify.empirical.core import Context, PROFILES
>>> from verify.empirical import pr
>>> ctx = Context(PROFILES["quick"], executor="serial").with_profile(n_search=8)
>>> [(r.variant, r.verdict) for r in pr.check_lemma1(ctx)][:2]
[('C=2, d=1, stated bound', 'violated'), ('C=2, d=1, derived bound', 'holds')]
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

import bounds
from bounds.core import Statement
from bounds.papers.pr import ERR_FLAT, LEMMA1, LEMMA2, LEMMA4, THM5_2, THM5_3
from simulations.large_margin import (
    gaussian_classes,
    is_bounded_below,
    kkt_residual,
    norm_law,
    sample_perturbation,
    solve_batch,
)
from simulations.trials.pr import CASES, lemma1_trial, lemma2_trial, thm5_trial, utility_trial
from verify.audit import audit_row, audit_samples, audit_seed, eps_from_rates, eps_lower_bound
from verify.audit.core import SELECTION
from verify.stats import clopper_pearson, mean_ci, positive_ratio, verdict

from .core import Context, Result, audit_check, empirical_check

SEED = "004_69734a6b7aad1d0d.txt"
H = 0.5

#: Lemma 1 / Lemma 2 grids
L1_GRID = ((2, 1), (3, 2))
L2_LAMS = (0.1, 1.0, 10.0)
#: Lemma 4 grid
L4_D = (1, 2, 3, 5, 10)
L4_DELTA = (0.01, 0.05, 0.2, 0.5)
L4_MC = {"d": 1, "eps": 1.0, "delta": 0.5}
#: Theorems 5.2 / 5.3: two problems with λε chosen so that P[J_p bounded] is near its maximum 1/2
THM5_VARIANTS: dict[str, dict[str, Any]] = {
    "d=1, C=2": dict(n=30, d=1, K=2, lam=10.0, h=H, eps=1.0, sigma=0.5),
    "d=2, C=3": dict(n=30, d=2, K=3, lam=30.0, h=H, eps=1.0, sigma=0.35),
    # small noise: the bound is small and the excess of the bounded draws decays only like ‖b‖^(1/2)
    "d=1, C=2, eps=100": dict(n=30, d=1, K=2, lam=1.0, h=H, eps=100.0, sigma=0.5),
}
THM5_DELTAS = (0.05, 0.2)
#: real data
UTILITY_EPS = (1.0, 10.0, 100.0, 1000.0)
UTILITY_LAM = 1.0

_THM5_CACHE: dict[tuple, dict[str, pd.DataFrame]] = {}
_UTIL_CACHE: dict[tuple, pd.DataFrame] = {}


def _value(key: str | Statement, which: str = "stated", **vals: float) -> float:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ε ≥ 1 is advice only
        return float(bounds.value(key, vals, which=which))


# --------------------------------------------------------------------------- Lemma 1
@empirical_check("pr.lemma1", "sensitivity")
def check_lemma1(ctx: Context) -> list[Result]:
    """Lemma 1: ‖∂L/∂Φ_c(Φ, x, y) − ∂L/∂Φ_c(Φ, x', y')‖_F ≤ 2 for inputs in the unit ball.

    Seed ``004_69734a6b7aad1d0d.txt``, appendix, Lemma 1.  Statistic: the largest norm found by
    :func:`simulations.trials.pr.lemma1_trial` (8·``n_search`` candidates per stream, 4
    streams) for (C, d) ∈ {(2, 1), (3, 2)}; each value is attained by an explicit (Φ, x, x',
    y, y', c), so a ``violated`` verdict is a counterexample.  Compared with the stated bound 2
    and with the derived supremum 2·max(C, √2(C − 1)) (``pr.lemma1``, R_x = 1).
    """
    p = ctx.profile
    cfgs = [dict(K=K, d=d, h=H, n_search=8 * p.n_search) for K, d in L1_GRID]
    df = ctx.run(lemma1_trial, cfgs, 4, desc="pr lemma1")
    n_rej = int(df["rejected"].sum())
    df = df[df["rejected"] == 0]
    out = []
    for (K, d), g in df.groupby(["K", "d"], sort=True):
        stat = float(g["max_norm"].max())
        per_case = {c: float(g[f"max_{c}"].max()) for c in CASES}
        for which in ("stated", "derived"):
            bound = _value(LEMMA1, which, K=int(K), R_x=1.0)
            out.append(Result(evidence="empirical", key="pr.lemma1", kind="sensitivity", name=f"C={K}, d={d}, {which} bound", statistic=stat, lo=stat, hi=stat, bound=bound, verdict=verdict(stat, stat, bound), confidence=1.0, method=f"{SEED}: adversarial search over x on the unit sphere, x' antipodal, nearly parallel (in the ball) "
                        f"or random on the sphere, labels, class c, and Φ_k = a p pᵀ + a' r rᵀ (p ⊥ x̃', r ⊥ x̃, log-uniform "
                        f"scales) or random PSD; exact per-example class gradients, Huber h = {H}", n=int(len(g) * 8 * p.n_search), details=dict(K=int(K), d=int(d), per_case=per_case, rejected=n_rej, which=which,
                             bound_stated=_value(LEMMA1, "stated", K=int(K), R_x=1.0),
                             bound_derived=_value(LEMMA1, "derived", K=int(K), R_x=1.0))))
    return out


# --------------------------------------------------------------------------- Lemma 2
@empirical_check("pr.lemma2", "sensitivity")
def check_lemma2(ctx: Context) -> list[Result]:
    """Lemma 2: J is λ-strongly convex w.r.t. Σ_c‖Φ_c − Φ'_c‖²_F.

    Seed ``004_69734a6b7aad1d0d.txt``, appendix, Lemma 2, (24)–(26).  A lower bound on a
    curvature does not fit the upper-bound verdicts directly, so the roles are swapped: the
    *statistic* is the claimed modulus (stated λ; derived 0) and the *bound* is the smallest
    curvature κ found (any valid modulus must be ≤ κ).  κ along a direction D is the largest μ
    for which Lemma 2 at α = ½ holds for Φ ± tD (:func:`simulations.trials.pr.lemma2_trial`),
    minimised over ``n_search`` random directions per stream, 4 streams, and the common-shift
    direction E = e_(d+1)e_(d+1)ᵀ in every class (along which J is constant, so the bound is 0
    and the ratio infinite); a second stated variant uses the random directions only (a finite
    ratio: generic directions already curve less than λ).  ``violated``: the claimed modulus
    exceeds a curvature attained by an explicit pair.
    """
    p = ctx.profile
    cfgs = [dict(n=20, d=2, K=3, lam=lam, h=H, n_dir=p.n_search) for lam in L2_LAMS]
    df = ctx.run(lemma2_trial, cfgs, 4, desc="pr lemma2")
    n_rej = int(df["rejected"].sum())
    df = df[df["rejected"] == 0]
    out = []
    for lam, g in df.groupby("lam", sort=True):
        kmin = max(0.0, float(g["kappa_min"].min()))
        krand = max(0.0, float(g["kappa_min_random"].min()))
        derived = _value(LEMMA2, "derived", lam=float(lam))
        for which, claimed, bnd, dirs in (("stated", float(lam), kmin, "all directions"),
                                          ("stated", float(lam), krand, "random directions only"),
                                          ("derived", derived, kmin, "all directions")):
            out.append(Result(evidence="empirical", key="pr.lemma2", kind="sensitivity", name=f"lambda={lam:g}, {which} modulus, {dirs}", statistic=claimed, lo=claimed, hi=claimed, bound=bnd, verdict=verdict(claimed, claimed, bnd), confidence=1.0, method=f"{SEED}: claimed strong-convexity modulus against the smallest curvature of J found "
                        f"(second differences at α = 1/2 around random Φ ≻ 0, n = 20, d = 2, C = 3, "
                        f"{p.n_search} random directions × 4 streams + the common shift E); statistic = claim, "
                        f"bound = curvature found", n=int(len(g) * (p.n_search + 1)), details=dict(lam=float(lam), which=which, kappa_min=kmin, kappa_flat=float(g["kappa_flat"].max()),
                             kappa_min_random=float(g["kappa_min_random"].min()),
                             frac_random_below_lam=float(g["frac_below_lam"].mean()), rejected=n_rej,
                             # the missing curvature of J (flat along E): one underlying error with pr.eq8.objective
                             **({"error": ERR_FLAT} if which == "stated" else {}))))
    return out


# --------------------------------------------------------------------------- Lemma 4
def _delta_place(delta: float) -> str:
    """``inside``/``outside`` the paper's δ range (the shared convention δ ≤ 0.1, bounds.symbols.CONVENTION,
    merged into the paper's regime): the rows at δ = 0.2 and 0.5 lie outside it (referee A5)."""
    lo, hi = bounds.registry.get(LEMMA4).ns.regime.ranges.get("delta", (0.0, 1.0))
    return "inside" if lo < delta <= hi else "outside"


def lemma4_exact(d: int, eps: float, delta: float, which: str = "stated") -> tuple[float, float]:
    """(threshold t, exact P[‖b‖ ≥ t]) for ‖b‖ ~ Γ((d+1)², 2/ε) (scipy)."""
    t = _value(LEMMA4, which, d=d, eps=eps, delta=delta)
    shape, scale = norm_law(d, eps)
    return t, float(stats.gamma.sf(t, a=shape, scale=scale))


@empirical_check("pr.lemma4", "violation")
def check_lemma4(ctx: Context) -> list[Result]:
    """Lemma 4: P[‖b‖ ≥ (2(d+1)²/ε) log(d/δ)] ≤ δ.

    Seed ``004_69734a6b7aad1d0d.txt``, appendix, Lemma 4.  Exact tail of the Γ((d+1)², 2/ε) law
    (``pr.s4.norm_law``; scipy) at d ∈ {1, 2, 3, 5, 10} and δ ∈ {0.01, 0.05, 0.2, 0.5} (ε = 1;
    the ratio does not depend on ε), stated threshold (lo = hi = the exact probability,
    confidence 1); the derived threshold log((d+1)²/δ) at the same points in ``details``.  One
    Monte Carlo point (d = 1, δ = ½) from the exact sampler with ``n_trials·n_noise`` draws and
    a Clopper–Pearson interval.  Rows with δ above the paper's δ range (the shared convention
    δ ≤ 0.1) are marked ``regime="outside"``: the only violations (d = 1, δ = ½, beyond the exact
    crossover δ* = 0.307985 of ``pr.lemma4``) lie there.
    """
    p = ctx.profile
    out = []
    for d in L4_D:
        for delta in L4_DELTA:
            t, P = lemma4_exact(d, 1.0, delta)
            td, Pd = lemma4_exact(d, 1.0, delta, "derived")
            out.append(Result(evidence="empirical", key="pr.lemma4", kind="violation", name=f"d={d}, delta={delta:g}, exact", statistic=P, lo=P, hi=P, bound=delta, verdict=verdict(P, P, delta), confidence=1.0, method=f"{SEED}: exact P[‖b‖ ≥ t_stated] from scipy.stats.gamma(a=(d+1)², scale=2/ε), ε = 1", n=1, regime=_delta_place(delta), details=dict(d=d, delta=delta, threshold=t, ratio_P_over_delta=positive_ratio(P, delta),
                                  threshold_derived=td, P_derived=Pd, ratio_derived=positive_ratio(Pd, delta))))
    d, eps, delta = L4_MC["d"], L4_MC["eps"], L4_MC["delta"]
    t, P = lemma4_exact(d, eps, delta)
    N = int(p.n_trials * p.n_noise)
    rng = np.random.default_rng(np.random.SeedSequence([ctx.seed, 4004]))
    b = sample_perturbation(d, eps, rng, size=N)
    k = int(np.sum(np.linalg.norm(b, axis=(1, 2)) >= t))
    lo, hi = clopper_pearson(k, N, p.confidence)
    out.append(Result(evidence="empirical", key="pr.lemma4", kind="violation", name=f"d={d}, delta={delta:g}, Monte Carlo", statistic=k / N, lo=lo, hi=hi, bound=delta, verdict=verdict(lo, hi, delta), confidence=p.confidence, method=f"{SEED}: {N} exact draws of b (‖b‖ ~ Γ((d+1)², 2/ε), direction uniform), frequency of "
                f"‖b‖_F ≥ t_stated, Clopper–Pearson; ε = {eps}", n=N, regime=_delta_place(delta), details=dict(d=d, eps=eps, delta=delta, threshold=t, exact=P)))
    return out


# --------------------------------------------------------------------------- Theorems 5.2, 5.3
def _thm5_levels(spec: dict[str, Any]) -> dict[str, list[float]]:
    vals = dict(d=spec["d"], K=spec["K"], eps=spec["eps"], lam=spec["lam"])
    out: dict[str, list[float]] = {}
    for which in ("stated", "derived"):
        out[f"52_{which}"] = [_value(THM5_2, which, **vals, delta=dl) for dl in THM5_DELTAS]
        out[f"53_{which}"] = [_value(THM5_3, which, **vals, delta=dl, n=spec["n"]) for dl in THM5_DELTAS]
    return out


def _thm5_frames(ctx: Context) -> dict[str, pd.DataFrame]:
    key = (ctx.profile, ctx.seed)
    if key not in _THM5_CACHE:
        p = ctx.profile
        frames = {}
        for name, spec in THM5_VARIANTS.items():
            lv = _thm5_levels(spec)
            cfg = dict(spec, n_noise=max(10, p.n_noise // 20), n_test=4000, tol=1e-6, max_iter=2000,
                       levels52=lv["52_stated"], levels53=lv["53_stated"])
            frames[name] = ctx.run(thm5_trial, [cfg], max(4, p.n_trials // 5), desc=f"pr thm5 {name}")
        _THM5_CACHE[key] = frames
    return _THM5_CACHE[key]


def _thm5_results(ctx: Context, which: str) -> list[Result]:
    key = "pr.thm5_2" if which == "52" else "pr.thm5_3"
    conf = ctx.profile.confidence
    out = []
    for name, df in _thm5_frames(ctx).items():
        spec = THM5_VARIANTS[name]
        lv = _thm5_levels(spec)
        n_rej = int(df["rejected"].sum())
        ok = df[df["rejected"] == 0]
        total = int(ok["n_draws"].sum())
        unb = int(ok["n_unbounded"].sum())
        unres = int(ok["n_unresolved"].sum())
        resolved = int(ok["n_resolved"].sum())
        ex_cols = [c for c in ok.columns if c.startswith(f"ex{which}_")]
        ex = ok[ex_cols].to_numpy().ravel()
        ex = ex[~np.isnan(ex)]  # unresolved draws dropped from the quantiles; unbounded ones are +inf
        u_lo, u_hi = clopper_pearson(unb, total, conf)
        for k, delta in enumerate(THM5_DELTAS):
            exc = int(ok[f"exceed{which}_{k}"].sum())
            fails = unb + exc  # unbounded draws count as failures of the theorem (Φ^p does not exist)
            lo, hi = clopper_pearson(fails, total, conf)
            c_lo, c_hi = clopper_pearson(exc, resolved, conf) if resolved else (math.nan, math.nan)
            bound_level = lv[f"{which}_stated"][k]
            q = float(np.quantile(ex, 1 - delta, method="inverted_cdf")) if ex.size else math.nan
            details = dict(
                problem=dict(spec), delta=delta, bound_stated=bound_level, bound_derived=lv[f"{which}_derived"][k],
                draws=total, unbounded=unb, unbounded_freq=unb / total, unbounded_ci=[u_lo, u_hi],
                unresolved=unres, resolved=resolved, exceed_among_resolved=exc,
                freq_among_bounded=exc / resolved if resolved else math.nan, freq_among_bounded_ci=[c_lo, c_hi],
                quantile_1_minus_delta=q, quantile_ratio=positive_ratio(q, bound_level),
                max_excess_resolved=float(np.max(ex[np.isfinite(ex)])) if np.isfinite(ex).any() else math.nan,
                mean_J_star=float(ok["J_star"].mean()), max_gap_star=float(ok["gap_star"].max()),
                rejected_trials=n_rej, which="stated",
                # the unbounded draws alone exceed δ: no bound, stated or derived, holds w.p. ≥ 1 − δ
                refutes_derived=bool(u_lo > delta),
                # ... and then the violation IS the event of pr.eq8.objective (J_p unbounded below), its root
                **({"error": ERR_FLAT} if u_lo > delta else {}),
                handling=("unbounded draws (λI_Φ + sym(b) not PSD: J_p has no minimiser) are counted as failures "
                          "of the theorem; draws whose solve was not certified are counted as non-failures"),
            )
            if which == "52":
                details["exceed_upper_end"] = int(ok[f"exceed52u_{k}"].sum())
            out.append(Result(evidence="empirical", key=key, kind="violation", name=f"{name}, delta={delta:g}", statistic=fails / total, lo=lo, hi=hi, bound=delta, verdict=verdict(lo, hi, delta), confidence=conf, method=f"{SEED}: {len(ok)} data sets (n = {spec['n']}, Gaussian classes in the unit ball) × "
                        f"{total // max(1, len(ok))} exact draws of b (ε = {spec['eps']}, λ = {spec['lam']}); "
                        f"inf J certified (dual gap, closure of the PSD cone), J_p solved on the PSD cone with a "
                        f"duality-gap certificate; frequency of {{J_p unbounded below or excess > stated bound}}, "
                        f"Clopper–Pearson"
                        + ("" if which == "52" else "; L̃ = n × mean loss on 4000 fresh points"), n=total, details=details))
    return out


@empirical_check("pr.thm5_2", "violation")
def check_thm5_2(ctx: Context) -> list[Result]:
    """Theorem 5.2: w.p. ≥ 1 − δ, J(Φ^p) ≤ J(Φ*) + 8(d+1)⁴C/(ε²λ) log²(d/δ).

    Seed ``004_69734a6b7aad1d0d.txt``, §5.2, Theorem 5.2, (14)–(19).  For each problem of
    ``THM5_VARIANTS``, ``max(4, n_trials/5)`` data sets × ``max(10, n_noise/10)`` noise draws
    (:func:`simulations.trials.pr.thm5_trial`).  J(Φ*) is inf J (J has no minimiser on the PSD
    cone in general; the infimum is the certified minimum over its closure).  A draw fails
    when J_p is unbounded below (Φ^p does not exist, probability ≥ 1/2 for every ε, λ) or
    when the excess exceeds the stated bound.  ``details`` has the unbounded frequency with
    its interval, the frequency among bounded draws, the (1 − δ)-quantile of the excess over
    all draws (unbounded = +∞) and its ratio to the bound.  A row whose unbounded draws alone
    exceed δ (Clopper–Pearson lower end > δ) is that event: it carries
    ``details["error"] = "objective-flat-along-E"`` (J is flat along E = e_(d+1)e_(d+1)ᵀ), the slug of its root
    ``pr.eq8.objective`` (``pr.lemma2`` is an echo of the same error).
    """
    return _thm5_results(ctx, "52")


@empirical_check("pr.thm5_3", "violation")
def check_thm5_3(ctx: Context) -> list[Result]:
    """Theorem 5.3: w.p. ≥ 1 − δ, L̃(Φ^p) ≤ L̃(Φ*) + the three terms of the theorem.

    Seed ``004_69734a6b7aad1d0d.txt``, §5.2, Theorem 5.3, (20)–(23).  Same runs as
    :func:`check_thm5_2`; the true risk L̃(Φ) = E[L(Φ)] (the loss summed over a sample of n) is
    estimated on 4000 fresh points per data set.  Unbounded draws count as failures.
    """
    return _thm5_results(ctx, "53")


# --------------------------------------------------------------------------- real data
def _utility_frame(ctx: Context) -> pd.DataFrame:
    key = (ctx.profile, ctx.seed)
    if key not in _UTIL_CACHE:
        n = max(8, ctx.profile.n_trials // 4)
        cfg = dict(lam=UTILITY_LAM, h=H, eps=list(UTILITY_EPS), tol=1e-5, max_iter=4000)
        _UTIL_CACHE[key] = ctx.run(utility_trial, [cfg], n, desc="pr utility iris")
    return _UTIL_CACHE[key]


def utility_table(ctx: Context) -> pd.DataFrame:
    """Accuracy and regularised excess risk of Φ^p on iris against ε, next to the non-private fit.

    Seed ``004_69734a6b7aad1d0d.txt``, §4 on scikit-learn's bundled iris data (150 rows, d = 4,
    C = 3), scaled into the unit ball (Lemma 1's premise), 70/30 split, λ = 1, h = ½; one draw
    of b per trial and ε.  Columns: dataset, eps, accuracy (mean held-out accuracy over the
    draws for which Φ^p exists), accuracy_lo, accuracy_hi (Student-t interval), excess (mean
    J(Φ^p) − inf J), excess_lo, excess_hi, bounded_frac (share of draws with J_p bounded
    below) with its Clopper–Pearson interval, n (draws), baseline_accuracy (the certified
    non-private fit), lam.
    """
    df = _utility_frame(ctx)
    ok = df[df["rejected"] == 0]
    conf = ctx.profile.confidence
    rows = []
    for eps in UTILITY_EPS:
        tag = f"{eps:g}"
        acc = ok[f"acc_{tag}"].dropna().to_numpy()
        exc = ok[f"excess_{tag}"].dropna().to_numpy()
        nb = int(ok[f"bounded_{tag}"].sum())
        b_lo, b_hi = clopper_pearson(nb, len(ok), conf)
        a = mean_ci(acc, conf) if acc.size > 1 else (float(acc.mean()) if acc.size else math.nan,) * 3
        e = mean_ci(exc, conf) if exc.size > 1 else (float(exc.mean()) if exc.size else math.nan,) * 3
        rows.append(dict(dataset="iris", eps=eps, accuracy=a[0], accuracy_lo=a[1], accuracy_hi=a[2],
                         excess=e[0], excess_lo=e[1], excess_hi=e[2], bounded_frac=nb / len(ok),
                         bounded_lo=b_lo, bounded_hi=b_hi, n=int(len(ok)), n_resolved=int(acc.size),
                         baseline_accuracy=float(ok["acc_nonprivate"].iloc[0]), lam=UTILITY_LAM))
    return pd.DataFrame(rows)


@empirical_check("pr.thm5_2", "risk")
def check_thm5_2_real(ctx: Context) -> list[Result]:
    """Theorem 5.2 on real data (iris): mean regularised excess J(Φ^p) − inf J per ε.

    Seed ``004_69734a6b7aad1d0d.txt``, §5.2, Theorem 5.2.  The theorem is a high-probability
    bound; the expectation it implies along its own proof ((14)–(19), before Lemma 4) is
    E[2C‖b‖²/λ] = (2C/λ)·D(D + 1)(2/ε)², D = (d+1)², the bound used here.  The mean is over the
    draws for which Φ^p exists (J_p bounded below, ``bounded_frac`` in ``details``); the whole
    table of :func:`utility_table` is in ``details["utility"]``.  The bound is the toolkit's expectation of
    the proof's chain, not the theorem's own (high-probability) claim: the rows carry
    ``details["budget"] = "toolkit"`` and cannot refute the theorem by themselves.
    """
    tab = utility_table(ctx)
    d, K = 4, 3
    D = (d + 1) ** 2
    utility = tab.to_dict(orient="records")
    out = []
    for row in utility:
        eps = row["eps"]
        bound = 2 * K / UTILITY_LAM * D * (D + 1) * (2 / eps) ** 2
        stat, lo, hi = row["excess"], row["excess_lo"], row["excess_hi"]
        v = verdict(lo, hi, bound) if math.isfinite(lo) else "inconclusive"
        out.append(Result(evidence="empirical", key="pr.thm5_2", kind="risk", name=f"iris, eps={eps:g}", statistic=stat, lo=lo, hi=hi, bound=bound, verdict=v, confidence=ctx.profile.confidence, method=f"{SEED}: iris (d = 4, C = 3, scaled into the unit ball), λ = {UTILITY_LAM}, h = {H}; one exact "
                    f"draw of b per trial; mean J(Φ^p) − inf J over the draws with J_p bounded below (certified "
                    f"solves), Student-t interval; bound E[2C‖b‖²/λ]", n=int(row["n_resolved"]), details=dict(eps=eps, budget="toolkit", bounded_frac=row["bounded_frac"], bounded_ci=[row["bounded_lo"], row["bounded_hi"]],
                         accuracy=row["accuracy"], baseline_accuracy=row["baseline_accuracy"],
                         bound_stated_delta_0_05=_value(THM5_2, "stated", d=d, K=K, eps=eps,
                                                        lam=UTILITY_LAM, delta=0.05),
                         utility=utility)))
    return out


# --------------------------------------------------------------------------- audit of Theorem 5.1
#: pre-registered threshold of the audit statistic (orders of magnitude between the two KKT residuals;
#: the certified solves leave residuals ≲ 1e−8 on their own data, neighbours give O(10⁻²–1))
AUDIT_TAU = 5.0
AUDIT_PROBLEM = dict(m=40, d=1, K=2, lam=20.0, eps=0.5, sigma=0.5, tol=1e-8, max_iter=1500)


def audit_pair(seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A tiny neighbouring pair: m = 40 points (d = 1, C = 2); z̄ moves the last point to the
    opposite end of the ball (−0.95·sign x) and flips its label."""
    spec = AUDIT_PROBLEM
    rng = np.random.default_rng(np.random.SeedSequence([seed, 5004]))
    X, y = gaussian_classes(spec["m"], spec["d"], spec["K"], rng, sigma=spec["sigma"])
    X1, y1 = X.copy(), y.copy()
    X1[-1] = -0.95 * np.sign(X[-1, 0] if X[-1, 0] != 0 else 1.0)
    y1[-1] = 1 - y[-1]
    return X, y, X1, y1


def audits(n: int = 20_000, seed: int = 0, confidence: float = 0.95) -> list[Result]:
    """Audit of 004 Theorem 5.1 (objective perturbation, released Φ^p) on a hard neighbouring pair.

    Seed ``004_69734a6b7aad1d0d.txt``, §5.1, Theorem 5.1.  Each release is a full certified
    solve, so the number of releases per data set is ``min(n, max(100, n // 40))`` (500 for
    the quick audit size 20 000, 2500 for the default 100 000); the releases of one data set are
    solved together by :func:`simulations.large_margin.solve_batch` (bit for bit the one-at-a-time
    solves, 10–20× faster; ``bench/bench_large_margin.py``).  Release: Φ^p, or ⊥ when J_p is unbounded below (a
    data-independent event) or the solve is not certified.  Attack statistic:
    S = log10 r_z(Φ^p) − log10 r_z̄(Φ^p) with r the KKT residual of
    :func:`simulations.large_margin.kkt_residual` (⊥ ↦ 0): the minimiser satisfies equality
    constraints that depend on the data (one b shared by the classes, PSD boundary), so its
    support moves between neighbours.  Two rows: (1) the pre-registered test "say z̄ when
    S > 5" evaluated on all releases (:func:`verify.audit.eps_lower_bound`); (2) the generic
    :func:`verify.audit.audit` on the same releases (threshold chosen on a selection split,
    which has little power at this number of releases).  Claimed: ε' = ε + log(1 + 2α/(nλ) + α²/(n²λ²)) with
    α = 4/h (the curvature bound of the Huber loss on the unit ball, ``pr.thm5_1``).
    """
    spec = AUDIT_PROBLEM
    X, y, X1, y1 = audit_pair(seed)
    N = int(min(n, max(100, n // 40)))
    d, K, lam, eps = spec["d"], spec["K"], spec["lam"], spec["eps"]
    alpha = 4 / H
    claimed = eps + math.log(1 + 2 * alpha / (spec["m"] * lam) + alpha**2 / (spec["m"] * lam) ** 2)
    counts = {"bottom": 0, "unresolved": 0, "released": 0}

    def statistics(Xs: np.ndarray, ys: np.ndarray, rng: np.random.Generator, k: int) -> np.ndarray:
        # the k draws in the order of the former one-release-at-a-time loop, then one batched
        # solve of the bounded ones on (Xs, ys) (solve_batch follows solve exactly)
        draws = [sample_perturbation(d, eps, rng) for _ in range(k)]
        bounded = [j for j, b in enumerate(draws) if is_bounded_below(lam, b, d)]
        counts["bottom"] += k - len(bounded)
        sols = []
        if bounded:
            sols = solve_batch(Xs, ys, K, lam, H, np.array([draws[j] for j in bounded]),
                               tol=spec["tol"], max_iter=spec["max_iter"], on_failure="return")
        out = np.zeros(k)
        for j, r in zip(bounded, sols, strict=True):
            if r.status != "optimal":
                counts["unresolved"] += 1
                continue
            counts["released"] += 1
            r0, r1 = kkt_residual(r.Phi, X, y, H), kkt_residual(r.Phi, X1, y1, H)
            out[j] = math.log10(r0 + 1e-30) - math.log10(r1 + 1e-30)
        return out

    ss = np.random.SeedSequence([seed, 5104]).spawn(2)
    S0 = statistics(X, y, np.random.default_rng(ss[0]), N)
    S1 = statistics(X1, y1, np.random.default_rng(ss[1]), N)
    base = dict(eps=eps, lam=lam, m=spec["m"], d=d, K=K, h=H, alpha=alpha, solved=counts["released"],
                bottom=counts["bottom"], unresolved=counts["unresolved"], releases_total=sum(counts.values()),
                decisive_z=int(np.sum(S0 < -AUDIT_TAU)), decisive_zbar=int(np.sum(S1 > AUDIT_TAU)),
                pair="last point moved to −0.95·sign(x) with its label flipped")
    leak = ("one b is shared by the C classes and Φ^p sits on the PSD boundary, so Φ^p satisfies data-dependent "
            "equalities (the KKT conditions of (9)): releases from z and z̄ have different supports")
    rows = []
    mlam = spec["m"] * lam

    def alpha_refuted(lower: float) -> float:
        # the paper leaves α a free constant: ε' = ε + 2 log(1 + α/(nλ)) stays below the audit's lower bound
        # for every α up to this value, so the verdict does not rest on the toolkit's choice α = 4/h
        return float(mlam * math.expm1((lower - eps) / 2)) if lower > eps else 0.0

    claim_note = ("the paper's own guarantee ε' = ε + log(1 + 2α/(nλ) + α²/(nλ)²) for the released Φ^p (its total "
                  "claim, not a per-step budget); α, a constant the paper does not fix, is set to 4/h, the curvature "
                  "bound of the Huber loss on the unit ball")
    # (1) pre-registered test: say z̄ when S > τ (τ fixed before the releases), every release evaluated
    fp, fn = int(np.sum(S0 > AUDIT_TAU)), int(np.sum(S1 <= AUDIT_TAU))
    lower = eps_lower_bound(fp, N, fn, N, 0.0, confidence)
    point = max(0.0, eps_from_rates(fp / N, fn / N, 0.0))
    v = "violated" if lower > claimed else "consistent"
    rows.append(audit_row(
        key="pr.thm5_1", mechanism="pr.thm5_1", source="004 §4, (7)–(8); Theorem 5.1", release="Phi^p", calibration="stated",
        claimed_eps=claimed, delta=0.0, eps_lower=lower, eps_point=point, confidence=confidence, n=N, verdict=v,
        attack=f"KKT residual: say z̄ when log10 r_z(Φ^p) − log10 r_z̄(Φ^p) > {AUDIT_TAU:g} (fixed in advance)",
        leak=leak if v == "violated" else "no leak beyond the claim was detected at this pair",
        details=dict(base, fpr=fp / N, fnr=fn / N, threshold=AUDIT_TAU, selection="none (pre-registered)",
                     claim=claim_note, alpha_refuted_up_to=alpha_refuted(lower)),
    ))
    # (2) the generic auditor (threshold chosen on a selection split of the same releases)
    res = audit_samples(np.asarray(S0, dtype=float), np.asarray(S1, dtype=float), output="scalar",
                        seed=audit_seed(seed, "pr.thm5_1", "kkt"), confidence=confidence)
    v = "violated" if res.eps_lower > claimed else "consistent"
    rows.append(audit_row(
        key="pr.thm5_1", mechanism="pr.thm5_1", source="004 §4, (7)–(8); Theorem 5.1", release="Phi^p", calibration="stated",
        claimed_eps=claimed, delta=0.0, eps_lower=res.eps_lower, eps_point=res.eps_point, confidence=confidence,
        n=N, verdict=v, attack="KKT residual statistic, threshold chosen on a selection split (verify.audit)",
        leak=leak if v == "violated" else "no leak beyond the claim was detected at this pair",
        details=dict(base, fpr=res.fpr, fnr=res.fnr, threshold=res.threshold, direction=res.direction,
                     selection=f"{SELECTION['scalar']:.0%} of the same releases",
                     claim=claim_note, alpha_refuted_up_to=alpha_refuted(res.eps_lower)),
        eps_max=res.eps_max,
    ))
    # the paper leaves α 'a constant value': each row says for which α it refutes ε' (readings of pr.thm5_1)
    for r in rows:
        if r.verdict == "violated":
            a = r.details["alpha_refuted_up_to"]
            r.name = f"{r.name}; refutes ε' for every α ≤ {a:.0f}"
            r.detail = (f"refutes ε' = ε + 2 log(1 + α/(nλ)) for every α ≤ {a:.0f} (α is not fixed by the paper; "
                        f"4/h = {alpha:g} is the toolkit's choice): " + r.detail)
            r.details["alpha_note"] = (f"the lower bound {r.statistic:.4g} "
                                       f"exceeds ε' for every α ≤ {a:.0f}, so the verdict holds under both readings "
                                       "('alpha=4/h' and 'any alpha' with α a curvature constant of the Huber loss)")
    return rows


@audit_check("pr.thm5_1")
def audit_thm5_1(ctx: Context) -> list[Result]:
    """Audit of Theorem 5.1 (:func:`audits`), with the profile's releases and confidence."""
    p = ctx.profile
    return audits(p.n_audit, ctx.seed, p.confidence)
