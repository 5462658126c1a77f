r"""Textbook mechanisms of known ε, to calibrate the auditor and measure its tightness.

Each :class:`Textbook` carries its two release functions (on D and on D′), its true ε on that
pair (at its δ), and the exact probabilities of candidate events, from which
:func:`ideal_eps_lower` computes the best bound achievable with n releases *when the optimal
event is known in advance* (all releases used for evaluation, counts at their expectations).

* Laplace mechanism, Δ = 1, scale 1/ε: true ε = ε (Dwork & Roth 2014, Thm 3.6).
* Gaussian mechanism, Δ = 1, σ of the exact analytic calibration (Balle & Wang 2018, Thm 8;
  :func:`bounds.accounting.gaussian_sigma`): true ε = ε at δ.
* Randomized response on one bit, P[keep] = e^ε/(1 + e^ε): true ε = ε (Warner 1965).
* Report-noisy-max with Laplace(1/ε) noise on d counting queries (Dwork & Roth, Claim 3.9), on the
  neighbouring counts (0, …, 0) and (1, 0, …, 0); true ε on that pair by quadrature.

Examples
--------
>>> m = randomized_response(1.0)
>>> m.true_eps, round(ideal_eps_lower(m, 10**5), 3)
(1.0, 0.986)
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import integrate, stats

from .core import Releases, _cp_upper_vec, _eps_vec, check_count, check_probability


def check_positive(name: str, value: object, mechanism: str, why: str, *, zero: bool = False) -> float:
    """``value`` as a finite real > 0 (≥ 0 with ``zero``), else ValueError naming the parameter and assumption.

    Examples
    --------
    >>> check_positive("eps", -1, "the Laplace mechanism", "its scale is Δ/ε")
    Traceback (most recent call last):
    ...
    ValueError: parameter 'eps' = -1 of the Laplace mechanism must be a finite real > 0 (its scale is Δ/ε)
    """
    import numbers

    ok = not isinstance(value, bool) and isinstance(value, numbers.Real) and math.isfinite(float(value)) \
        and (float(value) >= 0 if zero else float(value) > 0)
    if not ok:
        raise ValueError(f"parameter {name!r} = {value!r} of {mechanism} must be a finite real "
                         f"{'≥' if zero else '>'} 0 ({why})")
    return float(value)


@dataclass(frozen=True)
class Textbook:
    """A mechanism on one neighbouring pair with its true ε and exact event probabilities.

    ``events()`` returns (P[S | D], P[S | D′]) over candidate events S of "say D′" (for the ideal
    bound); the best event is among them.
    """

    name: str
    release0: Releases
    release1: Releases
    true_eps: float
    delta: float
    events: Callable[[], tuple[np.ndarray, np.ndarray]]
    output: str
    event_test: Callable[[int], Callable[[np.ndarray], np.ndarray]]


def _best_event(m: Textbook, n: int, confidence: float) -> tuple[int, float]:
    p0, p1 = m.events()
    a = (1 - confidence) / 2
    e = _eps_vec(_cp_upper_vec(n * p0, n, a), _cp_upper_vec(n * (1 - p1), n, a), m.delta)
    i = int(np.argmax(e))
    return i, float(max(0.0, e[i]))


def ideal_eps_lower(m: Textbook, n: int, confidence: float = 0.95) -> float:
    """The best ε_lower achievable with n releases per data set when the optimal event is known in advance.

    Every release goes to evaluation and the counts sit at their expectations (n·P[S | D] false
    positives, n·(1 − P[S | D′]) false negatives); maximised over the mechanism's candidate events.
    """
    confidence = check_probability("confidence", confidence, lo_open=True, hi_open=True)
    n = check_count("n", n, 1)
    return _best_event(m, n, confidence)[1]


def oracle_eps_lower(m: Textbook, n: int, seed: np.random.SeedSequence | int = 0, confidence: float = 0.95) -> float:
    """ε_lower of the optimal event of :func:`ideal_eps_lower`, fixed in advance, on n fresh releases per side.

    The random-count counterpart of the ideal: what an auditor that knew the best event would report.
    """
    from .core import check_seed, eps_lower_bound

    n = check_count("n", n, 1)
    confidence = check_probability("confidence", confidence, lo_open=True, hi_open=True)
    i, _ = _best_event(m, n, confidence)
    test = m.event_test(i)
    s0, s1 = check_seed(seed).spawn(2)
    fp = int(np.sum(test(np.asarray(m.release0(np.random.default_rng(s0), n)))))
    fn = n - int(np.sum(test(np.asarray(m.release1(np.random.default_rng(s1), n)))))
    return eps_lower_bound(fp, n, fn, n, m.delta, confidence)


_GRID = 200_001


def _threshold_events(sf0: Callable, sf1: Callable, lo: float, hi: float) -> tuple[Callable, Callable]:
    t = np.linspace(lo, hi, _GRID)

    def ev() -> tuple[np.ndarray, np.ndarray]:
        return np.concatenate([sf0(t), 1 - sf0(t)]), np.concatenate([sf1(t), 1 - sf1(t)])

    def test(i: int) -> Callable[[np.ndarray], np.ndarray]:
        return (lambda x: x > t[i]) if i < _GRID else (lambda x: x <= t[i - _GRID])

    return ev, test


def laplace_releases(eps: float, sensitivity: float = 1.0) -> tuple[Releases, Releases]:
    """The textbook Laplace mechanism on q(D) = 0, q(D′) = Δ, scale Δ/ε (true ε exactly ``eps``).

    Examples
    --------
    >>> laplace_releases(0)
    Traceback (most recent call last):
    ...
    ValueError: parameter 'eps' = 0 of the Laplace mechanism must be a finite real > 0 (its noise scale is Δ/ε)
    """
    eps = check_positive("eps", eps, "the Laplace mechanism", "its noise scale is Δ/ε")
    sensitivity = check_positive("sensitivity", sensitivity, "the Laplace mechanism", "Δ is the change of q(D)")
    scale = sensitivity / eps
    return (lambda rng, k: rng.laplace(0.0, scale, k),
            lambda rng, k: sensitivity + rng.laplace(0.0, scale, k))


def laplace_mechanism(eps: float = 1.0) -> Textbook:
    """Laplace mechanism, Δ = 1, scale 1/ε: true ε = ε.

    Examples
    --------
    >>> round(ideal_eps_lower(laplace_mechanism(1.0), 10**5), 3)
    0.981
    """
    eps = check_positive("eps", eps, "the Laplace mechanism", "its noise scale is Δ/ε")
    b = 1.0 / eps
    r0, r1 = laplace_releases(eps)
    ev, test = _threshold_events(lambda t: stats.laplace.sf(t, 0, b), lambda t: stats.laplace.sf(t, 1, b),
                                 -40 * b, 40 * b)
    return Textbook("Laplace", r0, r1, eps, 0.0, ev, "scalar", test)


def gaussian_releases(eps: float, delta: float, sensitivity: float = 1.0) -> tuple[Releases, Releases]:
    """The classical Gaussian mechanism, σ = Δ√(2 ln(1.25/δ))/ε ((ε, δ)-DP for ε < 1; Dwork & Roth, Thm A.1)."""
    eps = check_positive("eps", eps, "the Gaussian mechanism", "σ = Δ√(2 ln(1.25/δ))/ε")
    delta = check_probability("delta", delta, lo_open=True, hi_open=True)
    sensitivity = check_positive("sensitivity", sensitivity, "the Gaussian mechanism", "Δ is the change of q(D)")
    sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
    return (lambda rng, k: rng.normal(0.0, sigma, k),
            lambda rng, k: sensitivity + rng.normal(0.0, sigma, k))


def gaussian_true_eps(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The exact (tight) ε of the Gaussian mechanism at δ (Balle & Wang 2018, Theorem 8).

    Delegates to :func:`bounds.accounting.gaussian_eps` (log space: no overflow for small σ).

    Examples
    --------
    >>> round(gaussian_true_eps(0.01, 1e-5), 1) > 1000
    True
    """
    from bounds.accounting import gaussian_eps

    sigma = check_positive("sigma", sigma, "the Gaussian mechanism", "the noise's standard deviation")
    delta = check_probability("delta", delta, lo_open=True, hi_open=True)
    sensitivity = check_positive("sensitivity", sensitivity, "the Gaussian mechanism", "Δ is the change of q(D)")
    return gaussian_eps(sigma, delta, sensitivity)


def gaussian_mechanism(eps: float = 1.0, delta: float = 1e-5) -> Textbook:
    """Gaussian mechanism, Δ = 1, σ of the exact analytic calibration: true ε = ε at δ.

    Examples
    --------
    >>> round(gaussian_mechanism(1.0, 1e-5).true_eps, 9)
    1.0
    """
    from bounds.accounting import gaussian_sigma

    eps = check_positive("eps", eps, "the Gaussian mechanism", "the analytic σ is calibrated to ε")
    delta = check_probability("delta", delta, lo_open=True, hi_open=True)
    sigma = gaussian_sigma(eps, delta, 1.0)

    def sf(mu: float) -> Callable:
        return lambda t: stats.norm.sf(t, mu, sigma)

    ev, test = _threshold_events(sf(0.0), sf(1.0), -12 * sigma, 12 * sigma + 1)
    return Textbook(f"Gaussian (σ = {sigma:.4g})", lambda rng, k: rng.normal(0.0, sigma, k),
                    lambda rng, k: 1.0 + rng.normal(0.0, sigma, k), gaussian_true_eps(sigma, delta), delta,
                    ev, "scalar", test)


def randomized_response(eps: float = 1.0) -> Textbook:
    """Randomized response on one bit (D holds 0, D′ holds 1), P[report the bit] = e^ε/(1 + e^ε)."""
    eps = check_positive("eps", eps, "randomized response", "P[report the bit] = e^ε/(1 + e^ε)", zero=True)
    keep = 1.0 / (1.0 + math.exp(-eps))                  # e^ε/(1 + e^ε), no overflow for large ε

    def rel(bit: int) -> Releases:
        return lambda rng, k: np.where(rng.random(k) < keep, bit, 1 - bit).astype(np.int64)

    return Textbook("randomized response", rel(0), rel(1), eps, 0.0,
                    lambda: (np.array([1 - keep]), np.array([keep])), "categorical", lambda i: lambda x: x == 1)


def _rnm_probs(q: np.ndarray, b: float) -> np.ndarray:
    """P[argmax_i (q_i + Lap(b)) = i] by quadrature."""
    out = []
    for i in range(q.size):
        others = np.delete(q, i)

        def f(x: float, i: int = i, others: np.ndarray = others) -> float:
            return stats.laplace.pdf(x, q[i], b) * float(np.prod(stats.laplace.cdf(x, others, b)))

        pts = sorted(set(q.tolist()))
        out.append(integrate.quad(f, -60 * b + q.min(), 60 * b + q.max(), points=pts, limit=400,
                                  epsabs=1e-14, epsrel=1e-12)[0])
    p = np.array(out)
    return p / p.sum()


def report_noisy_max(eps: float = 1.0, d: int = 4) -> Textbook:
    """Report-noisy-max, Laplace(1/ε) noise on d counts: (0, …, 0) on D, (1, 0, …, 0) on D′.

    The true ε on this pair is max_i |ln(P[i | D′]/P[i | D])| (exact probabilities by quadrature),
    below the ε the mechanism is calibrated for.
    """
    eps = check_positive("eps", eps, "report-noisy-max", "its noise scale is 1/ε")
    d = check_count("d", d, 2)
    b = 1.0 / eps
    q0, q1 = np.zeros(d), np.eye(d)[0]
    p0, p1 = _rnm_probs(q0, b), _rnm_probs(q1, b)
    true = float(np.max(np.abs(np.log(p1 / p0))))

    def rel(q: np.ndarray) -> Releases:
        return lambda rng, k: np.argmax(q + rng.laplace(0.0, b, (k, d)), axis=1).astype(np.int64)

    order = np.argsort(-(np.log(p1) - np.log(p0)))               # unions of outputs in likelihood-ratio order

    def events() -> tuple[np.ndarray, np.ndarray]:
        return np.cumsum(p0[order]), np.cumsum(p1[order])

    return Textbook(f"report-noisy-max (d = {d})", rel(q0), rel(q1), true, 0.0, events, "categorical",
                    lambda i: lambda x: np.isin(x, order[: i + 1]))


TEXTBOOK = {"laplace": laplace_mechanism, "gaussian": gaussian_mechanism,
            "randomized_response": randomized_response, "report_noisy_max": report_noisy_max}
