"""A catalogue of correct and incorrect mechanisms from the literature, for the auditor (issue 26, item 4).

Each :class:`Entry` is one mechanism on one neighbouring pair (D, D′), with the ε (and δ) it claims,
its **true ε on that pair** and how that was computed, and its two release functions
``(rng, k) -> k outputs`` saved the way a user would save them (codes as floats, ⊥/⊤ patterns as
0/1 vectors, (index, value) pairs, histograms).  ε = 1 throughout; sparse-vector variants follow
Lyu, Su & Li (2017), "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB
10(6), Figure 1, with cutoff c = 1, Δ = 1, m = 10 queries and threshold T = 0 on the pair
q(D) = (1,1,1,1,1,0,0,0,0,0), q(D′) = (0,0,0,0,0,1,1,1,1,1) (each query moves by 1, in both
directions: the pair of the counterexamples of Lyu et al. and of StatDP, Ding et al. 2018).

Correct (true ε ≤ claimed ε on the pair):

* Laplace mechanism, scale 1/ε (true ε = 1, exact);
* randomized response, P[keep] = e^ε/(1 + e^ε) (true ε = 1, exact);
* Gaussian mechanism, exact analytic σ for (1, 1e-5) (Balle & Wang 2018: true ε = 1 at δ, exact);
* classical Gaussian, σ = √(2 ln(1.25/δ))/ε (Dwork & Roth, Thm A.1; true ε at δ by Balle & Wang's exact formula);
* report-noisy-max index, Laplace(1/ε) on 4 counting queries (Dwork & Roth Claim 3.9; true ε on the pair by quadrature);
* exponential mechanism on 10 candidates, utility moves by ≤ 1 per candidate (McSherry & Talwar 2007; closed form);
* sparse vector, Algorithm 1 of Lyu et al. (ρ ~ Lap(2/ε), ν ~ Lap(4/ε); codes; quadrature);
* histogram of 10 bins with Laplace(2/ε) per bin under replacement (one count moves between two bins; exact: Σ|Δ_i|/b).

Incorrect (true ε > claimed ε on the pair):

* sparse vector, Algorithm 3 (Roth 2011): releases the noisy value q_k + ν_k of the above-threshold query,
  saved as (index, value) (true ε: numerical supremum of the density ratio on a grid);
* sparse vector, Algorithm 4 (Lee & Clifton 2014): ε1 = ε/4, ν ~ Lap(4/(3ε)) (codes saved as floats; quadrature);
* sparse vector, Algorithm 5 (Stoddard et al. 2014): no noise on the queries (true ε = ∞: an output
  impossible on D);
* sparse vector, Algorithm 6 (Chen et al. 2015): no cutoff, releases the whole ⊥/⊤ vector (0/1 vectors;
  quadrature over the 36 classes of outputs);
* report-noisy-max returning (index, value) with Laplace(2/ε) noise on 5 queries, all moving by 1
  (true ε = 5/2 exactly: below every query the log density ratio is Σ 1/b);
* histogram of 10 bins with Laplace(1/ε) per bin, the add/remove scale, under replacement (true ε = 2, exact);
* Laplace count whose noise is clamped at ±8 (true ε = ∞: above 8 only D′ can release);
* Laplace count released exactly (no noise) with probability 10⁻³, else Laplace(1/ε) (issue 32: a rare point
  mass anywhere, not in a tail; true ε = ∞: the exact value of D′ never occurs on D);
* a 4-coordinate Laplace vector whose first coordinate (the one that moves) is released noise-free with
  probability 10⁻³ (issue 32; true ε = ∞, same reason).

Run ``python bench/audit_catalogue.py`` to print the catalogue.

Examples
--------
>>> e = {x.name: x for x in catalogue()}["SVT Alg. 5 (Stoddard et al. 2014)"]
>>> e.correct, e.true_eps
(False, inf)
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scipy import stats  # noqa: E402

from verify.audit import (  # noqa: E402
    gaussian_mechanism,
    gaussian_true_eps,
    laplace_mechanism,
    randomized_response,
    report_noisy_max,
)

Releases = Callable[[np.random.Generator, int], np.ndarray]

EPS = 1.0
M_QUERIES, THRESHOLD = 10, 0.0
Q_D = np.array([1.0] * 5 + [0.0] * 5)
Q_D1 = np.array([0.0] * 5 + [1.0] * 5)


@dataclass(frozen=True)
class Entry:
    """One mechanism on one neighbouring pair: claim, true ε on the pair, releases as users save them."""

    name: str
    source: str
    correct: bool
    claim_eps: float
    delta: float
    true_eps: float
    how: str                    # how the true ε was computed
    release0: Releases
    release1: Releases
    saved_as: str
    events: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None   # P[S | D], P[S | D′] of candidate events

    def ideal(self, n: int, confidence: float = 0.95) -> float:
        """The best ε_lower with n releases when the optimal event is known in advance (counts at their
        expectations, every release for evaluation); nan when the event probabilities are not known."""
        if self.events is None:
            return math.nan
        from verify.audit.core import _cp_upper_vec, _eps_vec

        p0, p1 = self.events()
        a = (1 - confidence) / 2
        return float(max(0.0, np.max(_eps_vec(_cp_upper_vec(n * p0, n, a), _cp_upper_vec(n * (1 - p1), n, a),
                                              self.delta))))


def _lr_events(p0: np.ndarray, p1: np.ndarray) -> Callable[[], tuple[np.ndarray, np.ndarray]]:
    """Unions of outputs in likelihood-ratio order (the optimal events of a discrete mechanism)."""
    with np.errstate(divide="ignore"):
        order = np.argsort(-(np.log(p1) - np.log(p0)), kind="stable")
    return lambda: (np.cumsum(p0[order]), np.cumsum(p1[order]))


def _threshold_events(sf0: Callable, sf1: Callable, lo: float, hi: float) -> Callable:
    t = np.linspace(lo, hi, 200_001)
    return lambda: (np.concatenate([sf0(t), 1 - sf0(t)]), np.concatenate([sf1(t), 1 - sf1(t)]))


# ---------------------------------------------------------------------------
# exact computations
# ---------------------------------------------------------------------------

def _lap_cdf(x: np.ndarray, b: float) -> np.ndarray:
    if b == 0:
        return (x > 0).astype(float)             # P[0 < x]: a noiseless query is ⊥ when q < T + ρ
    return np.where(x < 0, 0.5 * np.exp(np.minimum(x, 0) / b), 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))


def _rho_grid(b_rho: float) -> tuple[np.ndarray, np.ndarray]:
    r = np.linspace(-60 * b_rho - 5, 60 * b_rho + 5, 600_001)
    return r, np.exp(-np.abs(r) / b_rho) / (2 * b_rho)


def svt_code_probs(q: np.ndarray, b_rho: float, b_nu: float, T: float = THRESHOLD) -> np.ndarray:
    """P[first ⊤ at query k] (k < m) and P[no ⊤] (k = m) of sparse vector with cutoff 1 (trapezoid in ρ).

    ⊥ at query i when q_i + ν_i < T + ρ; ν ~ Lap(b_nu) (b_nu = 0: no noise), ρ ~ Lap(b_rho).
    """
    r, fr = _rho_grid(b_rho)
    out, run = [], np.ones_like(r)
    for qi in q:
        bot = _lap_cdf(T + r - qi, b_nu)
        out.append(np.trapezoid(fr * run * (1 - bot), r))
        run = run * bot
    out.append(np.trapezoid(fr * run, r))
    return np.array(out)


def _pure_eps(p0: np.ndarray, p1: np.ndarray, tol: float = 1e-12) -> float:
    """max over outputs of |ln(p1/p0)| (∞ when an output has probability 0 on one side only)."""
    both = (p0 > tol) & (p1 > tol)
    if np.any((p0 > tol) != (p1 > tol)):
        return math.inf
    return float(np.max(np.abs(np.log(p1[both]) - np.log(p0[both]))))


def svt6_eps(b_rho: float, b_nu: float) -> float:
    """True ε of Algorithm 6 (no cutoff) on the pair: outputs grouped by the ⊤ counts in each half."""
    from math import comb

    r, fr = _rho_grid(b_rho)
    top = {q: 1 - _lap_cdf(THRESHOLD + r - q, b_nu) for q in (0.0, 1.0)}
    worst = 0.0
    for a in range(6):          # ⊤ among the first five queries (q = 1 on D, 0 on D′)
        for c in range(6):      # ⊤ among the last five (q = 0 on D, 1 on D′)
            p0 = np.trapezoid(fr * top[1.0] ** a * (1 - top[1.0]) ** (5 - a) * top[0.0] ** c
                              * (1 - top[0.0]) ** (5 - c), r)
            p1 = np.trapezoid(fr * top[0.0] ** a * (1 - top[0.0]) ** (5 - a) * top[1.0] ** c
                              * (1 - top[1.0]) ** (5 - c), r)
            assert comb(5, a) > 0
            worst = max(worst, abs(math.log(p1 / p0)))
    return worst


def svt3_eps(b_rho: float, b_nu: float) -> float:
    """sup over (k, v) of |ln| of the density ratio of Algorithm 3's output (index k, value v), on a grid.

    Density on q: f_ν(v − q_k) · ∫_{ρ ≤ v − T} f_ρ(ρ) Π_{i<k} F_ν(T + ρ − q_i) dρ; the ⊥-only output's
    probability ratio too.  A numerical supremum over v in [−60 b, 60 b].
    """
    from scipy.integrate import cumulative_trapezoid

    r, fr = _rho_grid(b_rho)
    worst = 0.0
    run0, run1 = np.ones_like(r), np.ones_like(r)
    fnu = lambda x: np.exp(-np.abs(x) / b_nu) / (2 * b_nu)        # noqa: E731
    for k in range(M_QUERIES):
        g0 = cumulative_trapezoid(fr * run0, r, initial=0.0)
        g1 = cumulative_trapezoid(fr * run1, r, initial=0.0)
        v = r + THRESHOLD                                        # ρ ≤ v − T: G(v − T) = g at r = v − T
        ok = (g0 > 1e-250) & (g1 > 1e-250)
        d0 = fnu(v - Q_D[k]) * g0
        d1 = fnu(v - Q_D1[k]) * g1
        worst = max(worst, float(np.max(np.abs(np.log(d1[ok]) - np.log(d0[ok])))))
        run0 = run0 * _lap_cdf(THRESHOLD + r - Q_D[k], b_nu)
        run1 = run1 * _lap_cdf(THRESHOLD + r - Q_D1[k], b_nu)
    p0, p1 = np.trapezoid(fr * run0, r), np.trapezoid(fr * run1, r)
    return max(worst, abs(math.log(p1 / p0)))


def exponential_probs(u: np.ndarray, eps: float) -> np.ndarray:
    w = np.exp(eps * (u - u.max()) / 2)
    return w / w.sum()


# ---------------------------------------------------------------------------
# release functions
# ---------------------------------------------------------------------------

def _svt_codes(q: np.ndarray, b_rho: float, b_nu: float) -> Releases:
    def rel(rng: np.random.Generator, k: int) -> np.ndarray:
        rho = rng.laplace(0, b_rho, (k, 1))
        nu = rng.laplace(0, b_nu, (k, q.size)) if b_nu > 0 else np.zeros((k, q.size))
        above = q[None, :] + nu >= THRESHOLD + rho
        code = np.where(above.any(axis=1), above.argmax(axis=1), q.size)
        return code.astype(float)                        # saved as floats
    return rel


def _svt3(q: np.ndarray, b_rho: float, b_nu: float) -> Releases:
    def rel(rng: np.random.Generator, k: int) -> np.ndarray:
        rho = rng.laplace(0, b_rho, (k, 1))
        noisy = q[None, :] + rng.laplace(0, b_nu, (k, q.size))
        above = noisy >= THRESHOLD + rho
        hit = above.any(axis=1)
        idx = np.where(hit, above.argmax(axis=1), q.size)
        val = np.where(hit, noisy[np.arange(k), np.minimum(idx, q.size - 1)], 0.0)
        return np.column_stack([idx.astype(float), val])   # (index, value); (m, 0) when no query is above
    return rel


def _svt6(q: np.ndarray, b_rho: float, b_nu: float) -> Releases:
    def rel(rng: np.random.Generator, k: int) -> np.ndarray:
        rho = rng.laplace(0, b_rho, (k, 1))
        return (q[None, :] + rng.laplace(0, b_nu, (k, q.size)) >= THRESHOLD + rho).astype(float)
    return rel


def _noisy_max_value(q: np.ndarray, b: float) -> Releases:
    def rel(rng: np.random.Generator, k: int) -> np.ndarray:
        x = q[None, :] + rng.laplace(0, b, (k, q.size))
        i = x.argmax(axis=1)
        return np.column_stack([i.astype(float), x[np.arange(k), i]])
    return rel


def _histogram(h: np.ndarray, b: float) -> Releases:
    return lambda rng, k: h[None, :] + rng.laplace(0, b, (k, h.size))


def _clamped(q: float, b: float, c: float) -> Releases:
    return lambda rng, k: q + np.clip(rng.laplace(0, b, k), -c, c)


def _sometimes_exact(q: float, b: float, p_exact: float) -> Releases:
    def rel(rng: np.random.Generator, k: int) -> np.ndarray:
        noise = rng.laplace(0, b, k)
        return q + np.where(rng.random(k) < p_exact, 0.0, noise)
    return rel


def _vector_sometimes_exact(q: np.ndarray, b: float, p_exact: float) -> Releases:
    def rel(rng: np.random.Generator, k: int) -> np.ndarray:
        noise = rng.laplace(0, b, (k, q.size))
        noise[:, 0] = np.where(rng.random(k) < p_exact, 0.0, noise[:, 0])
        return q[None, :] + noise
    return rel


def _with_atom(events: Callable, p0: float, p1: float) -> Callable:
    """Half-line events plus one atom event of probability p0 on D and p1 on D′."""
    def ev() -> tuple[np.ndarray, np.ndarray]:
        a, b = events()
        return np.concatenate([a, [p0]]), np.concatenate([b, [p1]])
    return ev


def _lap_sf(t: np.ndarray, b: float) -> np.ndarray:
    return 1 - _lap_cdf(t, b)


def _categorical(p: np.ndarray) -> Releases:
    return lambda rng, k: rng.choice(p.size, size=k, p=p).astype(np.int64)


# ---------------------------------------------------------------------------
# the catalogue
# ---------------------------------------------------------------------------

@lru_cache(maxsize=1)
def catalogue() -> tuple[Entry, ...]:
    """Every entry (the quadratures take about a second, once)."""
    E = EPS
    out: list[Entry] = []
    lap = lambda q: (lambda rng, k: q + rng.laplace(0, 1 / E, k))      # noqa: E731
    out.append(Entry("Laplace", "Dwork & Roth 2014, Thm 3.6", True, E, 0.0, E, "exact", lap(0.0), lap(1.0),
                     "scalar", laplace_mechanism(E).events))
    rr = randomized_response(E)
    out.append(Entry("randomized response", "Warner 1965", True, E, 0.0, E, "exact", rr.release0, rr.release1,
                     "integers", rr.events))
    g = gaussian_mechanism(E, 1e-5)
    out.append(Entry("Gaussian, analytic σ (1, 1e-5)", "Balle & Wang 2018, Thm 8", True, E, 1e-5, g.true_eps,
                     "exact (Balle & Wang)", g.release0, g.release1, "scalar", g.events))
    sig = math.sqrt(2 * math.log(1.25 / 1e-5)) / E
    gc = lambda q: (lambda rng, k: q + rng.normal(0, sig, k))           # noqa: E731
    out.append(Entry("Gaussian, classical σ (1, 1e-5)", "Dwork & Roth 2014, Thm A.1", True, E, 1e-5,
                     gaussian_true_eps(sig, 1e-5), "exact (Balle & Wang)", gc(0.0), gc(1.0), "scalar",
                     _threshold_events(lambda t: stats.norm.sf(t, 0, sig), lambda t: stats.norm.sf(t, 1, sig),
                                       -12 * sig, 12 * sig + 1)))
    rnm = report_noisy_max(E, 4)
    out.append(Entry("report-noisy-max index (4 counts)", "Dwork & Roth 2014, Claim 3.9", True, E, 0.0,
                     rnm.true_eps, "quadrature", rnm.release0, rnm.release1, "integers", rnm.events))
    u0, u1 = np.array([0.0] + [1.0] * 9), np.array([1.0] + [0.0] * 9)
    p0, p1 = exponential_probs(u0, E), exponential_probs(u1, E)
    out.append(Entry("exponential mechanism (10 candidates)", "McSherry & Talwar 2007", True, E, 0.0,
                     _pure_eps(p0, p1), "closed form", _categorical(p0), _categorical(p1), "integers",
                     _lr_events(p0, p1)))
    b_rho, b_nu = 2 / E, 4 / E
    c0, c1 = svt_code_probs(Q_D, b_rho, b_nu), svt_code_probs(Q_D1, b_rho, b_nu)
    out.append(Entry("SVT Alg. 1 (Lyu et al. 2017)", "Lyu, Su & Li 2017, Alg. 1", True, E, 0.0,
                     _pure_eps(c0, c1), "quadrature", _svt_codes(Q_D, b_rho, b_nu), _svt_codes(Q_D1, b_rho, b_nu),
                     "codes saved as floats", _lr_events(c0, c1)))
    h0 = np.array([5.0, 3.0] + [0.0] * 8)
    h1 = np.array([4.0, 4.0] + [0.0] * 8)
    out.append(Entry("histogram, replacement scale 2/ε", "Dwork & Roth 2014, §3.3", True, E, 0.0, 2 / (2 / E),
                     "exact", _histogram(h0, 2 / E), _histogram(h1, 2 / E), "vectors (10 bins)"))
    # incorrect
    b3 = 2 / E                                             # ρ ~ Lap(Δ/ε1), ν ~ Lap(cΔ/ε2), ε1 = ε2 = ε/2
    out.append(Entry("SVT Alg. 3 (Roth 2011)", "Lyu, Su & Li 2017, Alg. 3", False, E, 0.0, svt3_eps(b3, b3),
                     "numerical sup of the density ratio", _svt3(Q_D, b3, b3), _svt3(Q_D1, b3, b3),
                     "(index, value) pairs"))
    b_rho4, b_nu4 = 4 / E, 4 / (3 * E)                     # ε1 = ε/4, ν ~ Lap(Δ/ε2), ε2 = 3ε/4
    c0, c1 = svt_code_probs(Q_D, b_rho4, b_nu4), svt_code_probs(Q_D1, b_rho4, b_nu4)
    out.append(Entry("SVT Alg. 4 (Lee & Clifton 2014)", "Lyu, Su & Li 2017, Alg. 4", False, E, 0.0,
                     _pure_eps(c0, c1), "quadrature", _svt_codes(Q_D, b_rho4, b_nu4), _svt_codes(Q_D1, b_rho4, b_nu4),
                     "codes saved as floats", _lr_events(c0, c1)))
    out.append(Entry("SVT Alg. 5 (Stoddard et al. 2014)", "Lyu, Su & Li 2017, Alg. 5", False, E, 0.0,
                     _pure_eps(svt_code_probs(Q_D, 2 / E, 0.0), svt_code_probs(Q_D1, 2 / E, 0.0)),
                     "quadrature (an output impossible on one side)", _svt_codes(Q_D, 2 / E, 0.0),
                     _svt_codes(Q_D1, 2 / E, 0.0), "codes saved as floats"))
    out.append(Entry("SVT Alg. 6 (Chen et al. 2015)", "Lyu, Su & Li 2017, Alg. 6", False, E, 0.0,
                     svt6_eps(2 / E, 2 / E), "quadrature", _svt6(Q_D, 2 / E, 2 / E), _svt6(Q_D1, 2 / E, 2 / E),
                     "0/1 vectors"))
    out.append(Entry("noisy max returning (index, value)", "Ding et al. 2018 (StatDP), NoisyMax variants", False, E,
                     0.0, 5 / (2 / E), "exact (Σ 1/b below every query)", _noisy_max_value(np.zeros(5), 2 / E),
                     _noisy_max_value(np.ones(5), 2 / E), "(index, value) pairs"))
    out.append(Entry("histogram, add/remove scale 1/ε", "Dwork & Roth 2014, §3.3 (misapplied)", False, E, 0.0,
                     2 / (1 / E), "exact", _histogram(h0, 1 / E), _histogram(h1, 1 / E), "vectors (10 bins)"))
    tail = 0.5 * math.exp(-7 * E)                         # P[release > 8 | D′]; 0 on D
    out.append(Entry("Laplace, noise clamped at ±8", "issue 26", False, E, 0.0, math.inf,
                     "exact (P[> 8] = 0 on D)", _clamped(0.0, 1 / E, 8.0), _clamped(1.0, 1 / E, 8.0), "scalar",
                     _with_atom(_threshold_events(
                         lambda t: np.where(t >= 8, 0.0, _lap_sf(t, 1 / E)),
                         lambda t: np.where(t >= 9, 0.0, _lap_sf(t - 1, 1 / E)), -20, 21), 0.0, tail)))
    p_ex = 1e-3                                           # P[released exactly]: the atom at q(D′) never occurs on D
    ex_events = _with_atom(_threshold_events(lambda t: (1 - p_ex) * _lap_sf(t, 1 / E) + p_ex * (t < 0),
                                             lambda t: (1 - p_ex) * _lap_sf(t - 1, 1 / E) + p_ex * (t < 1), -20, 21),
                           0.0, p_ex)
    out.append(Entry("Laplace count, exact w.p. 1e-3", "issue 32 (rare point mass)", False, E, 0.0, math.inf,
                     "exact (P[= q(D′)] = 0 on D)", _sometimes_exact(0.0, 1 / E, p_ex),
                     _sometimes_exact(1.0, 1 / E, p_ex), "scalar", ex_events))
    v0, v1 = np.zeros(4), np.array([1.0, 0.0, 0.0, 0.0])
    out.append(Entry("Laplace vector, x₁ exact w.p. 1e-3", "issue 32 (rare point mass in a vector)", False,
                     E, 0.0, math.inf, "exact (P[x₁ = 1] = 0 on D)", _vector_sometimes_exact(v0, 1 / E, p_ex),
                     _vector_sometimes_exact(v1, 1 / E, p_ex), "vectors (4 coordinates)", ex_events))
    return tuple(out)


def main() -> None:
    print(f"{'mechanism':<40} {'correct':>7} {'claim ε':>7} {'δ':>6} {'true ε':>8} {'ideal 1e4':>9} {'ideal 1e5':>9}"
          "  how; saved as")
    for e in catalogue():
        print(f"{e.name:<40} {'yes' if e.correct else 'no':>7} {e.claim_eps:>7g} {e.delta:>6g} {e.true_eps:>8.4f} "
              f"{e.ideal(10**4):>9.4f} {e.ideal(10**5):>9.4f}  {e.how}; {e.saved_as}")
    print("ideal: the best ε_lower at n releases per data set when the optimal event is known in advance "
          "(expected counts, no selection split); nan where the event probabilities are not computed")


if __name__ == "__main__":
    main()
