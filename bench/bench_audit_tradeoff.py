"""Trade-off-curve audit vs the single-threshold auditor (issue 26 item 2).

On the same samples (n releases per data set, independent seeds) of

* the Laplace mechanism, ε = 1 (Δ = 1, scale 1);
* the Gaussian mechanism at (ε, δ) = (1, 1e-5) with the exact analytic σ (Balle & Wang 2018) and
  with the classical σ = √(2 ln(1.25/δ))/ε (Dwork & Roth, Thm A.1; its true ε at δ is below 1);
* randomized response on one bit, ε = 1,

at n ∈ {10⁴, 10⁵}, prints the mean over seeds of

* ``single`` — ε_lower of :func:`verify.audit.audit_samples` (the best single threshold);
* ``tradeoff`` — ε_lower of :func:`verify.audit.tradeoff.tradeoff_audit`, valid for any mechanism;
* ``ideal`` — the best ε_lower with the optimal event known in advance, all n releases, expected
  counts (:func:`verify.audit.ideal_eps_lower`): no valid single-event bound of this form beats it
  (the trade-off audit's ``eps_tails`` test is two events pooled, one test on twice the releases, and
  can: Gaussian (1, 1e-5) at 10⁵, 0.612 against the ideal 0.594, 12 seeds);
* ``μ_lower`` (valid for any mechanism) and ``ε_GDP`` = ε at δ of μ_lower-GDP, which is a bound on ε
  **only if the trade-off curve is exactly Gaussian** (true of the Gaussian mechanisms only; marked
  ``*`` where the data reject that assumption in most seeds, where it is no bound at all);
* each divided by the true ε, and the CPU time (process, ``resource.getrusage``) of one trade-off audit
  against one single-threshold audit (the peer, same process, same samples).

Cost line (issue 32 item 7): CPU µs per release of :func:`tradeoff_audit` at 10⁵ and 10⁶ releases per
side (warm, in process), releases per CPU-second, and the ratio to ``np.sort`` of the same 2n values
measured in the same process (the peer); the goal is ≥ 10⁶ releases per CPU-second.  Which audits would run
the line by default under :func:`verify.audit.tradeoff.tradeoff_applies` (printed per mechanism; the
rule is not yet the auditor's default: every scalar audit still runs the line).

Goal line (issue 26): Gaussian (1, 1e-5) ≥ 0.75 of the true ε at 10⁵, printed for the valid bound
and for ε_GDP separately, next to what a single known event could show at that n (the ideal, and a
z-test without the Bonferroni split: :func:`z_test_reach`).  No assertions.  Run: ``python bench/bench_audit_tradeoff.py [--quick]``.
"""

from __future__ import annotations

import math
import resource
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verify.audit import (  # noqa: E402
    audit_samples,
    audit_seed,
    gaussian_mechanism,
    gaussian_true_eps,
    ideal_eps_lower,
    laplace_mechanism,
    randomized_response,
)
from verify.audit.mechanisms import Textbook, _threshold_events  # noqa: E402
from verify.audit.tradeoff import tradeoff_applies, tradeoff_audit  # noqa: E402


def cpu() -> float:
    """CPU seconds of this process (user + system)."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def cost_lines(sizes: tuple[int, ...] = (10**5, 10**6), repeats: int = 3) -> list[dict]:
    """CPU per release of the trade-off audit (Gaussian samples), against np.sort of the same values."""
    rows = []
    rng = np.random.default_rng(audit_seed(0, "tradeoff-cost"))
    for n in sizes:
        d0, d1 = rng.normal(0.0, 3.73, n), 1.0 + rng.normal(0.0, 3.73, n)
        tradeoff_audit(d0[:1000], d1[:1000], delta=1e-5)          # warm: lazy imports, caches
        t_tr = t_sort = 0.0
        for r in range(repeats):
            a = cpu()
            tradeoff_audit(d0, d1, delta=1e-5, seed=r)
            b = cpu()
            np.sort(np.concatenate([d0, d1]))
            c = cpu()
            t_tr += b - a
            t_sort += c - b
        per = t_tr / (repeats * 2 * n)
        rows.append({"n": n, "us_per_release": per * 1e6, "releases_per_cpu_s": 1 / per,
                     "ratio_to_sort": t_tr / max(t_sort, 1e-9)})
    return rows

SIZES = (10**4, 10**5)
SEEDS = {10**4: 30, 10**5: 12}


def classical_gaussian(eps: float = 1.0, delta: float = 1e-5) -> Textbook:
    """The classical Gaussian mechanism (σ = √(2 ln(1.25/δ))/ε, Δ = 1) with its exact ε at δ."""
    from scipy import stats

    sigma = math.sqrt(2 * math.log(1.25 / delta)) / eps
    ev, test = _threshold_events(lambda t: stats.norm.sf(t, 0, sigma), lambda t: stats.norm.sf(t, 1, sigma),
                                 -12 * sigma, 12 * sigma + 1)
    return Textbook(f"Gaussian classical σ={sigma:.3f}", lambda rng, k: rng.normal(0.0, sigma, k),
                    lambda rng, k: 1.0 + rng.normal(0.0, sigma, k), gaussian_true_eps(sigma, delta), delta, ev,
                    "scalar", test)


MECHANISMS: dict[str, Callable[[], Textbook]] = {
    "laplace": laplace_mechanism,
    "gaussian_analytic": gaussian_mechanism,
    "gaussian_classical": classical_gaussian,
    "randomized_response": randomized_response,
}


def z_test_reach(sigma: float, delta: float, n: int, alpha: float = 0.05) -> float:
    """Largest ε a one-sided z-test of P[S | D′] − e^ε P[S | D] ≤ δ would reject at level α, for the best
    threshold event S of the Gaussian mechanism (Δ = 1) known in advance, every release used, counts at
    their expectations (normal approximation): an estimate of what any valid single-event (ε, δ) lower
    bound can reach at n, without the Bonferroni split of two Clopper–Pearson limits."""
    from scipy import optimize, stats

    t = np.linspace(-2.0, 10.0, 6001)
    p0, p1 = stats.norm.sf(t), stats.norm.sf(t - 1.0 / sigma)
    z = float(stats.norm.isf(alpha))

    def margin(e: float) -> float:
        sd = np.sqrt((p1 * (1 - p1) + math.exp(2 * e) * p0 * (1 - p0)) / n)
        return float(np.max((p1 - math.exp(e) * p0 - delta) / sd)) - z

    return float(optimize.brentq(margin, 0.0, 10.0)) if margin(0.0) > 0 else 0.0


def run(quick: bool = False) -> list[dict]:
    rows = []
    for key, make in MECHANISMS.items():
        m = make()
        for n in SIZES:
            single, trade, mu, gdp, rej = [], [], [], [], []
            t_single = t_trade = 0.0
            for s in range(3 if quick else SEEDS[n]):
                ss = audit_seed(0, "tradeoff-bench", key, n, s).spawn(3)
                d0 = np.asarray(m.release0(np.random.default_rng(ss[0]), n))
                d1 = np.asarray(m.release1(np.random.default_rng(ss[1]), n))
                t0 = cpu()
                single.append(audit_samples(d0, d1, delta=m.delta, seed=ss[2], tradeoff=False).eps_lower)
                t1 = cpu()
                r = tradeoff_audit(d0, d1, delta=m.delta, seed=ss[2])
                t2 = cpu()
                t_single += t1 - t0
                t_trade += t2 - t1
                trade.append(r.eps_lower)
                mu.append(r.mu_lower)
                gdp.append(r.eps_gdp)
                rej.append(r.gdp_rejected)
            rows.append({"mechanism": m.name, "key": key, "n": n, "true": m.true_eps, "delta": m.delta,
                         "ideal": ideal_eps_lower(m, n), "single": float(np.mean(single)),
                         "tradeoff": float(np.mean(trade)), "tradeoff_min": float(np.min(trade)),
                         "mu": float(np.mean(mu)), "gdp": float(np.mean(gdp)), "rejected": float(np.mean(rej)),
                         "seeds": len(trade), "time_ratio": t_trade / max(t_single, 1e-9),
                         "default": tradeoff_applies(m.output, m.delta)[0]})
    return rows


def pooled_tails_oracle(n: int, seeds: int = 40) -> tuple[float, float, float]:
    """Gaussian (1, 1e-5), both tails pooled (:func:`verify.audit.pooled.tails_eps_lower`), events known in advance.

    The offset t of the two thresholds μ/2 ± t is the best by expected counts at this n (fixed before the
    draws); the counts are drawn from their exact multinomial law.  Returns (ideal, median, min) over seeds.
    """
    from scipy import stats

    from bounds.accounting import gaussian_sigma
    from verify.audit.pooled import tails_eps_lower

    mu = 1.0 / gaussian_sigma(1.0, 1e-5)

    def rates(t: float) -> tuple[float, float]:
        return float(stats.norm.sf(mu / 2 + t - mu)), float(stats.norm.sf(mu / 2 + t))

    def expected(t: float) -> float:
        c, w = rates(t)
        return tails_eps_lower(round(2 * n * c), round(2 * n * w), n, delta=1e-5, confidence=0.95)

    grid = np.linspace(0.0, 6.0, 1201)
    t = float(grid[int(np.argmax([expected(x) for x in grid]))])
    c, w = rates(t)
    out = []
    for s in range(seeds):
        rng = np.random.default_rng(audit_seed(32, "gauss-oracle", n, s))
        x0, x1 = rng.multinomial(n, [c, w, 1 - c - w]), rng.multinomial(n, [w, c, 1 - c - w])
        out.append(tails_eps_lower(int(x0[0] + x1[1]), int(x0[1] + x1[0]), n, delta=1e-5, confidence=0.95))
    return expected(t), float(np.median(out)), float(np.min(out))


def main() -> None:
    quick = "--quick" in sys.argv
    for c in cost_lines((10**5,) if quick else (10**5, 10**6)):
        print(f"cost: trade-off audit at n = {c['n']:.0e} per side: {c['us_per_release']:.3f} µs CPU per release, "
              f"{c['releases_per_cpu_s']:.2e} releases per CPU-second ({'met' if c['releases_per_cpu_s'] >= 1e6 else 'NOT met'}"
              f": goal ≥ 1e6), {c['ratio_to_sort']:.1f}× np.sort of the same 2n values (same process)")
    rows = run(quick)
    print(f"{'mechanism':<28} {'n':>6} {'seeds':>5} {'ε_true':>7} {'δ':>6} {'ideal':>7} {'single':>7} {'tradeoff':>8} "
          f"{'(min)':>7} {'single/true':>11} {'trade/true':>10} {'trade/ideal':>11} {'μ_lower':>8} {'ε_GDP':>8} "
          f"{'GDP/true':>8} {'CPU trade/single':>16} {'rule':>7}")
    for r in rows:
        gdp = "inf" if math.isinf(r["gdp"]) else f"{r['gdp']:.4f}"
        flag = "*" if r["rejected"] > 0.5 else " "
        ratio = "-" if math.isinf(r["gdp"]) else f"{r['gdp'] / r['true']:.1%}"
        print(f"{r['mechanism']:<28} {r['n']:>6.0e} {r['seeds']:>5} {r['true']:>7.4f} {r['delta']:>6.0e} "
              f"{r['ideal']:>7.4f} {r['single']:>7.4f} {r['tradeoff']:>8.4f} {r['tradeoff_min']:>7.4f} "
              f"{r['single'] / r['true']:>11.1%} {r['tradeoff'] / r['true']:>10.1%} "
              f"{r['tradeoff'] / r['ideal'] if r['ideal'] > 0 else math.nan:>11.1%} {r['mu']:>8.4f} "
              f"{gdp:>7}{flag} {ratio:>8} {r['time_ratio']:>15.2f}× {'on' if r['default'] else 'off':>7}")
    print("* the data reject an exactly Gaussian trade-off curve in most seeds: ε_GDP is no bound on ε there "
          "(it assumes the curve is exactly Gaussian; at δ = 0 it is ∞ for any μ_lower > 0)")
    g = [r for r in rows if r["key"] == "gaussian_analytic" and r["n"] == 10**5]
    if g:
        r = g[0]
        for label, v in (("valid ε_lower (trade-off audit)", r["tradeoff"]), ("valid ε_lower (single threshold)",
                                                                          r["single"]),
                         ("ε_GDP (assumes an exactly Gaussian curve)", r["gdp"])):
            print(f"goal: Gaussian (1, 1e-5) at n = 1e5 ≥ 0.75 of the true ε -> {label}: {v / r['true']:.3f} "
                  f"({'met' if v / r['true'] >= 0.75 else 'NOT met'})")
        from bounds.accounting import gaussian_sigma

        reach = z_test_reach(gaussian_sigma(1.0, 1e-5), 1e-5, 10**5)
        print(f"      the ideal single-event bound at this n (optimal event known, all releases, expected counts) "
              f"is {r['ideal'] / r['true']:.3f}; even a z-test of that event without the Bonferroni split "
              f"(normal approximation) reaches {reach / r['true']:.3f}: a valid (ε, δ) bound does not reach 0.75 "
              "at n = 1e5 (the goal's 0.75 is met only by ε_GDP, under its assumption)")
    for n, goal in ((10**5, 0.65), (10**6, 0.75)):       # issue 32: absolute goals, events known
        ideal, med, lo = pooled_tails_oracle(n)
        print(f"goal (issue 32): Gaussian (1, 1e-5) at n = {n:.0e}, both tails pooled with the events known "
              f"(tails_eps_lower, valid for any mechanism): ideal {ideal:.3f}, median {med:.3f} over 40 seeds "
              f"(min {lo:.3f}); goal ≥ {goal} {'met' if med >= goal else 'NOT met'} by the median")


if __name__ == "__main__":
    main()
