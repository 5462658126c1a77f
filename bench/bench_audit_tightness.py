"""Tightness of the auditor (issue 12 goal: within 3 % of the ideal at 10^5 releases per data set).

For each textbook mechanism of known ε (:mod:`verify.audit.mechanisms`: Laplace at ε = 1,
randomized response at ε = 1, report-noisy-max with Laplace(1) noise on 4 counts, the Gaussian
mechanism at (ε, δ) = (1, 1e-5) with its exact analytic σ) and n ∈ {10^4, 10^5, 10^6} releases per
data set, prints

* ε_true — the mechanism's exact ε on its pair (at its δ);
* ideal — the best ε_lower achievable with n releases when the optimal event is known in advance
  (every release used for evaluation, counts at their expectations: :func:`ideal_eps_lower`);
* auditor — the mean ε_lower of :func:`verify.audit.audit` over independent seeds (the auditor
  spends part of the releases choosing its test), with the smallest of them;
* oracle — the mean ε_lower of that optimal event, fixed in advance, on n random releases;
* the ratios auditor/ε_true, auditor/ideal and auditor/oracle (the peers: the ideal at the same n);
* the trade-off-curve line of the same audits (:mod:`verify.audit.tradeoff`): its ε_lower (valid for
  any mechanism) and its ε at δ under the exact-Gaussian assumption (valid for the Gaussian row).

Then the accountant's agreement with the exact Gaussian (:mod:`bounds.accounting`).

No assertions: ``make bench`` prints, tests never time.  Run:
``python bench/bench_audit_tightness.py [--quick]``.
"""

from __future__ import annotations

import math
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from verify.audit import TEXTBOOK, audit, audit_seed, ideal_eps_lower  # noqa: E402
from verify.audit.mechanisms import oracle_eps_lower  # noqa: E402

SIZES = (10**4, 10**5, 10**6)
SEEDS = {10**4: 30, 10**5: 30, 10**6: 4}


def tightness(quick: bool = False) -> list[dict]:
    rows = []
    for name, make in TEXTBOOK.items():
        m = make()
        for n in SIZES[:2] if quick else SIZES:
            t0 = time.perf_counter()
            res = [audit(m.release0, m.release1, n=n, seed=audit_seed(0, name, n, s), delta=m.delta)
                   for s in range(SEEDS[n] if not quick else 3)]
            vals = [r.eps_lower for r in res]
            tr = [r.tradeoff for r in res if r.tradeoff is not None]
            ideal = ideal_eps_lower(m, n)
            oracle = [oracle_eps_lower(m, n, audit_seed(1, name, n, s)) for s in range(len(vals))]
            rows.append({"mechanism": m.name, "n": n, "true": m.true_eps, "ideal": ideal, "oracle": float(np.mean(oracle)),
                         "mean": float(np.mean(vals)), "min": float(np.min(vals)), "seeds": len(vals),
                         "seconds": (time.perf_counter() - t0) / len(vals),
                         "tr_eps": float(np.mean([t.eps_lower for t in tr])) if tr else math.nan,
                         "tr_gdp": float(np.mean([t.eps_gdp for t in tr])) if tr else math.nan})
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    rows = tightness(quick)
    print(f"{'mechanism':<26} {'n':>6} {'seeds':>5} {'ε_true':>7} {'ideal':>7} {'oracle':>7} {'auditor':>8} "
          f"{'(min)':>7} {'aud/true':>9} {'aud/ideal':>10} {'aud/oracle':>10} {'s/audit':>8} {'tr. ε':>7} "
          f"{'tr. ε_GDP':>9}")
    for r in rows:
        print(f"{r['mechanism']:<26} {r['n']:>6.0e} {r['seeds']:>5} {r['true']:>7.4f} {r['ideal']:>7.4f} "
              f"{r['oracle']:>7.4f} {r['mean']:>8.4f} {r['min']:>7.4f} {r['mean'] / r['true']:>9.1%} "
              f"{r['mean'] / r['ideal'] if r['ideal'] > 0 else math.nan:>10.1%} "
              f"{r['mean'] / r['oracle'] if r['oracle'] > 0 else math.nan:>10.1%} {r['seconds']:>8.2f} "
              f"{r['tr_eps']:>7.4f} {r['tr_gdp']:>9.4f}")
    at = [r["mean"] / r["ideal"] for r in rows if r["n"] == 10**5 and r["ideal"] > 0]
    print(f"goal: auditor within 3 % of the ideal at n = 1e5 -> worst ratio {min(at):.1%} "
          f"({'met' if min(at) >= 0.97 else 'NOT met'}); ideal = the optimal event known in advance, all n "
          "releases, counts at their expectations; oracle = the same event on n random releases (mean over seeds)")
    print("tr. ε: the trade-off line's ε_lower (many thresholds, valid for any mechanism); tr. ε_GDP: its ε at δ of "
          "μ_lower-GDP, a lower bound only if the trade-off curve is exactly Gaussian (true of the Gaussian rows only)")
    g = [r for r in rows if r["n"] == 10**5 and r["mechanism"].startswith("Gaussian")]
    for r in g:
        print(f"goal: Gaussian at n = 1e5 >= 75 % of its true ε -> single threshold {r['mean'] / r['true']:.1%}, "
              f"trade-off line (exact-Gaussian assumption) {r['tr_gdp'] / r['true']:.1%} "
              f"({'met' if r['tr_gdp'] / r['true'] >= 0.75 else 'NOT met'})")

    from bounds.accounting import gaussian_eps, pld_epsilon

    print("\naccountant (dp-accounting PLD, connect-the-dots) vs the exact analytic Gaussian:")
    for T, h in ((1, 1e-4), (20, 1e-4), (200, 1e-4), (200, 1e-5)):
        sigma = 3.7 * math.sqrt(T)
        t0 = time.perf_counter()
        e = pld_epsilon([("gaussian", sigma, 1.0, T)], 1e-5, discretization=h)
        ex = gaussian_eps(sigma / math.sqrt(T), 1e-5)
        print(f"  T = {T:>3}, interval {h:g}: PLD ε = {e:.9f}, exact ε = {ex:.9f}, relative difference {abs(e - ex) / ex:.1e} "
              f"({time.perf_counter() - t0:.2f} s)")


if __name__ == "__main__":
    main()
