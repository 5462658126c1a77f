"""What an oracle auditor could detect at 10⁴ releases: the reach of issue 26's goals (no assertions).

For the incorrect mechanisms of :mod:`audit_catalogue` that the auditor misses at 10⁴ in some
seeds, this script asks how often *any* valid two-sample test of the claimed ε could detect them,
by granting the test what no black-box auditor has: the best single event for a test at 10⁴
(largest ln(p₁_lower/p₀_upper) at the expected counts), found from 2·10⁶ releases per data set,
fixed in advance.  On n releases per data set it counts the event on
each side, takes one-sided Clopper–Pearson limits at α/2 each (95 % jointly), and detects when
ln(p₁_lower / p₀_upper) > the claimed ε.  The fraction of 2000 simulated runs that detect is
printed for n = 10⁴ (all releases used for the test) and n = 5000 (what is left after a
selection split of half).

Clamped Laplace needs no simulation: its leaking event (the release above the clamp) has
probability 4.6e-4 on one data set and 0 on the other; with 0 of n on one side its 97.5 %
upper limit is 1 − 0.025^(1/n) ≈ 3.7/n, so detection needs p₁_lower > e^ε · 3.7/n, which for n = 10⁴
and ε = 1 is 1.0e-3 > 4.6e-4: out of reach of any such test at 10⁴.

Run: ``python bench/bench_audit_oracle.py`` (about 30 s).  Seeds are fixed (SeedSequence 26).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path

import numpy as np
from scipy import stats

sys.path.insert(0, str(Path(__file__).resolve().parent))
import audit_catalogue as C  # noqa: E402

ALPHA = 0.05
N_DRAW = 2_000_000
RUNS = 2000


def _lower(x: int, n: int, a: float) -> float:
    return 0.0 if x == 0 else float(stats.beta.ppf(a, x, n - x + 1))


def _upper(x: int, n: int, a: float) -> float:
    return 1.0 if x == n else float(stats.beta.ppf(1 - a, x + 1, n - x))


def best_svt3_event(rng: np.random.Generator, n: int = 10_000) -> tuple[float, float, int, str, float]:
    """(p on the likelier side, p on the other, index k, "≤" or "≥", cut t) of the event {index = k,
    value ≤ t} or {index = k, value ≥ t} with the largest test statistic at n releases when the
    counts are their expectations: ln(p₁_lower / p₀_upper) of n·p₁ and n·p₀ events."""
    b = 2 / C.EPS
    r0 = C._svt3(C.Q_D, b, b)(rng, N_DRAW)
    r1 = C._svt3(C.Q_D1, b, b)(rng, N_DRAW)
    best = (0.0, 0.0, -1, "", 0.0, -math.inf)
    for k in range(C.Q_D.size):
        vals = np.concatenate([r0[r0[:, 0] == k, 1], r1[r1[:, 0] == k, 1]])
        if vals.size == 0:
            continue
        for t in np.quantile(vals, np.linspace(0.0005, 0.9995, 80)):
            for sgn, side in ((1, "≥"), (-1, "≤")):
                s0 = float(((r0[:, 0] == k) & (sgn * (r0[:, 1] - t) >= 0)).mean())
                s1 = float(((r1[:, 0] == k) & (sgn * (r1[:, 1] - t) >= 0)).mean())
                for hi, lo in ((s1, s0), (s0, s1)):
                    x1, x0 = round(n * hi), round(n * lo)
                    if x1 == 0 or hi <= lo:
                        continue
                    score = math.log(_lower(x1, n, ALPHA / 2) / _upper(x0, n, ALPHA / 2))
                    if score > best[5]:
                        best = (hi, lo, k, side, float(t), score)
    return best[:5]


def detection_rate(p1: float, p0: float, n: int, claim: float, rng: np.random.Generator) -> float:
    hits = 0
    for _ in range(RUNS):
        x1, x0 = int(rng.binomial(n, p1)), int(rng.binomial(n, p0))
        up = _upper(x0, n, ALPHA / 2)
        hits += x1 > 0 and math.log(_lower(x1, n, ALPHA / 2) / up) > claim
    return hits / RUNS


def main() -> None:
    ss = np.random.SeedSequence(26)
    g_event, g_runs = (np.random.default_rng(s) for s in ss.spawn(2))
    b = 2 / C.EPS
    p1, p0, k, side, cut = best_svt3_event(g_event)
    print(f"SVT Alg. 3 (Roth 2011), claimed ε = {C.EPS:g}, true ε = {C.svt3_eps(b, b):.3f}")
    print(f"  best event for a test at 10⁴ (from {N_DRAW:.0e} releases per data set): index {k}, value {side} {cut:.3g}: "
          f"p = {p1:.3g} vs {p0:.3g} (ln ratio {math.log(p1 / p0):.3f})")
    for n, what in ((10_000, "all 10⁴ releases"), (5_000, "5000 left after a selection split")):
        rate = detection_rate(p1, p0, n, C.EPS, g_runs)
        print(f"  oracle detects in {rate:.1%} of {RUNS} runs on {what}; 3 of 3 seeds: {rate ** 3:.1%}")
    n, p_clamp = 10_000, 4.6e-4
    need = math.exp(C.EPS) * (1 - (ALPHA / 2) ** (1 / n))
    print(f"clamped Laplace: the leaking event has p = {p_clamp:g} on one side, 0 on the other; at n = {n} a valid "
          f"test needs p₁_lower > e^ε·{1 - (ALPHA / 2) ** (1 / n):.2e} = {need:.2e}: "
          + ("out of reach" if need > p_clamp else "within reach"))


if __name__ == "__main__":
    main()
