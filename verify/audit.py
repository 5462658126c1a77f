"""Privacy audits: a statistically valid lower bound on ε from a distinguishing attack.

An (ε, δ)-DP mechanism A satisfies, for every pair of neighbouring data sets
z, z̄ and every test (event S),

    P[A(z) ∈ S] ≤ e^ε P[A(z̄) ∈ S] + δ.

Write the test as "say z̄ when the statistic T(A(·)) exceeds a threshold τ",
with false-positive rate FPR = P[T(A(z)) > τ] and false-negative rate
FNR = P[T(A(z̄)) ≤ τ].  Applying the definition to S and its complement, in
both directions, gives (Kairouz, Oh & Viswanath 2015, Theorem 2.1; the form used
by Jagielski, Ullman & Oprea 2020, "Auditing differentially private machine
learning", and Nasr et al. 2021)

    ε ≥ max{ ln((1 − δ − FNR)/FPR),  ln((1 − δ − FPR)/FNR) }.

With N releases per data set, the observed rates are binomial.  Replacing FPR
and FNR by their one-sided Clopper–Pearson *upper* limits, each at level
1 − α/2 (Bonferroni over the two), turns the right-hand side into a lower
bound ε_lower that holds with probability ≥ 1 − α whatever the true rates are.
The threshold and the direction of the test are chosen on a separate
selection split of the releases, so the bound stays valid (the limits are
computed on fresh releases only).

A claim "A is ε-DP" is ``violated`` at confidence 1 − α when ε_lower > ε, and
``consistent`` otherwise (an audit can refute a claim, never prove it).

Examples
--------
Calibration on the Laplace mechanism at ε = 1 (sensitivity 1):

>>> import numpy as np
>>> from verify.audit import audit, laplace_releases
>>> r0, r1 = laplace_releases(eps=1.0, sensitivity=1.0)
>>> res = audit(r0, r1, n=200_000, seed=0)
>>> 0.9 < res.eps_lower <= 1.0
True
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from bounds.evidence import Result

#: a release function: (rng, n) -> n statistics (one scalar per release)
Releases = Callable[[np.random.Generator, int], np.ndarray]


def cp_upper(k: int, n: int, alpha: float) -> float:
    """One-sided Clopper–Pearson upper limit at level 1 − alpha for k successes in n trials."""
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"parameters 'k' = {k!r}, 'n' = {n!r} need 0 ≤ k ≤ n, n ≥ 1")
    if k == n:
        return 1.0
    return float(stats.beta.ppf(1 - alpha, k + 1, n - k))


def eps_from_rates(fpr: float, fnr: float, delta: float = 0.0) -> float:
    """max{ln((1 − δ − FNR)/FPR), ln((1 − δ − FPR)/FNR)} (−inf when both are undefined)."""
    best = -math.inf
    for a, b in ((fnr, fpr), (fpr, fnr)):
        num = 1 - delta - a
        if num > 0 and b > 0:
            best = max(best, math.log(num / b))
        elif num > 0 and b == 0:
            best = math.inf
    return best


def eps_lower_bound(fp: int, n0: int, fn: int, n1: int, delta: float = 0.0, confidence: float = 0.95) -> float:
    """ε_lower from counts: false positives fp of n0 releases on z, false negatives fn of n1 on z̄.

    Each rate is replaced by its one-sided Clopper–Pearson upper limit at level
    1 − (1 − confidence)/2, so ε_lower ≤ ε holds with probability ≥ confidence
    for an (ε, δ)-DP mechanism.  Returns max(0, ·).

    Examples
    --------
    >>> round(eps_lower_bound(0, 10**5, 0, 10**5), 2)    # a perfect attack on 10^5 releases per side
    10.21
    """
    if not 0 < confidence < 1:
        raise ValueError(f"parameter 'confidence' = {confidence!r} must lie in (0, 1)")
    alpha = (1 - confidence) / 2
    return max(0.0, eps_from_rates(cp_upper(fp, n0, alpha), cp_upper(fn, n1, alpha), delta))


@dataclass(frozen=True)
class AuditResult:
    """Outcome of one audit.

    Attributes
    ----------
    eps_lower : float
        Lower confidence bound on ε (valid at ``confidence``).
    eps_point : float
        The same formula at the observed rates (no interval): what the attack achieves.
    threshold, direction : float, int
        The test chosen on the selection split: say z̄ when direction·T > direction·threshold.
    fpr, fnr : float
        Observed rates on the evaluation split.
    n : int
        Releases per data set (selection + evaluation).
    confidence, delta : float
    details : dict
    """

    eps_lower: float
    eps_point: float
    threshold: float
    direction: int
    fpr: float
    fnr: float
    n: int
    confidence: float
    delta: float
    details: dict[str, Any] = field(default_factory=dict)


def _best_threshold(t0: np.ndarray, t1: np.ndarray, delta: float, n_thresholds: int,
                    alpha: float) -> tuple[float, int]:
    """Threshold and direction maximising the ε lower bound on the selection split."""
    both = np.concatenate([t0, t1])
    qs = np.unique(np.quantile(both, np.linspace(0.001, 0.999, n_thresholds)))
    s0, s1 = np.sort(t0), np.sort(t1)
    best = (-math.inf, float(qs[0]) if qs.size else 0.0, 1)
    for direction in (1, -1):
        for tau in qs:
            if direction == 1:
                fp = s0.size - np.searchsorted(s0, tau, side="right")      # T > τ on z
                fn = np.searchsorted(s1, tau, side="right")                # T ≤ τ on z̄
            else:
                fp = np.searchsorted(s0, tau, side="left")                 # T < τ on z
                fn = s1.size - np.searchsorted(s1, tau, side="left")       # T ≥ τ on z̄
            v = eps_from_rates(cp_upper(int(fp), s0.size, alpha), cp_upper(int(fn), s1.size, alpha), delta)
            if v > best[0]:
                best = (v, float(tau), direction)
    return best[1], best[2]


def audit(release0: Releases, release1: Releases, n: int, *, seed: int = 0, confidence: float = 0.95,
          delta: float = 0.0, selection_fraction: float = 0.2, n_thresholds: int = 200,
          chunk: int = 200_000) -> AuditResult:
    """Audit a mechanism on one neighbouring pair with a threshold test on a scalar statistic.

    Parameters
    ----------
    release0, release1 : callable
        ``(rng, k) -> array of k statistics`` of k independent releases on z and on z̄.
    n : int
        Releases per data set (split into selection and evaluation parts).
    seed : int
        Root of the SeedSequence; the two data sets and the two splits get independent children.
    confidence : float
        Level of the lower bound (two one-sided limits at (1 − confidence)/2 each).
    delta : float
        The δ of an (ε, δ) claim (0 for pure ε-DP).
    selection_fraction : float
        Share of the releases used to choose the threshold (never reused for the bound).
    n_thresholds : int
        Candidate thresholds (quantiles of the selection statistics).
    chunk : int
        Releases generated per call (memory).

    Returns
    -------
    AuditResult
    """
    if n < 10:
        raise ValueError(f"parameter 'n' = {n!r}: an audit needs at least 10 releases per data set")
    if not 0 < selection_fraction < 1:
        raise ValueError(f"parameter 'selection_fraction' = {selection_fraction!r} must lie in (0, 1)")
    ss = np.random.SeedSequence(seed).spawn(4)
    n_sel = max(5, int(round(selection_fraction * n)))
    n_ev = n - n_sel

    def draw(fn: Releases, s: np.random.SeedSequence, k: int) -> np.ndarray:
        rng = np.random.default_rng(s)
        parts = []
        left = k
        while left > 0:
            c = min(chunk, left)
            parts.append(np.asarray(fn(rng, c), dtype=float).reshape(-1))
            left -= c
        return np.concatenate(parts)

    alpha = (1 - confidence) / 2
    tau, direction = _best_threshold(draw(release0, ss[0], n_sel), draw(release1, ss[1], n_sel),
                                     delta, n_thresholds, alpha)
    e0, e1 = draw(release0, ss[2], n_ev), draw(release1, ss[3], n_ev)
    if direction == 1:
        fp, fn = int(np.sum(e0 > tau)), int(np.sum(e1 <= tau))
    else:
        fp, fn = int(np.sum(e0 < tau)), int(np.sum(e1 >= tau))
    lower = eps_lower_bound(fp, n_ev, fn, n_ev, delta, confidence)
    point = max(0.0, eps_from_rates(fp / n_ev, fn / n_ev, delta))
    return AuditResult(lower, point, tau, direction, fp / n_ev, fn / n_ev, n, confidence, delta,
                       {"n_selection": n_sel, "n_evaluation": n_ev, "false_positives": fp, "false_negatives": fn})


def laplace_releases(eps: float, sensitivity: float = 1.0) -> tuple[Releases, Releases]:
    """The textbook Laplace mechanism on q(z) = 0, q(z̄) = Δ, scale Δ/ε (true ε exactly ``eps``)."""
    scale = sensitivity / eps
    return (lambda rng, k: rng.laplace(0.0, scale, k),
            lambda rng, k: sensitivity + rng.laplace(0.0, scale, k))


def gaussian_releases(eps: float, delta: float, sensitivity: float = 1.0) -> tuple[Releases, Releases]:
    """The classical Gaussian mechanism, σ = Δ√(2 ln(1.25/δ))/ε ((ε, δ)-DP for ε < 1; Dwork & Roth, Thm A.1)."""
    sigma = sensitivity * math.sqrt(2 * math.log(1.25 / delta)) / eps
    return (lambda rng, k: rng.normal(0.0, sigma, k),
            lambda rng, k: sensitivity + rng.normal(0.0, sigma, k))


def gaussian_true_eps(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The exact (tight) ε of the Gaussian mechanism at δ (Balle & Wang 2018, Theorem 8), by root finding."""
    from scipy import optimize

    mu = sensitivity / sigma

    def d(e: float) -> float:
        return float(stats.norm.cdf(mu / 2 - e / mu) - math.exp(e) * stats.norm.cdf(-mu / 2 - e / mu)) - delta

    if d(0.0) <= 0:
        return 0.0
    hi = 1.0
    while d(hi) > 0:
        hi *= 2
    return float(optimize.brentq(d, 0.0, hi, xtol=1e-12))


# ---------------------------------------------------------------------------
# release models (generic: a paper's audit builds its releases from these)
# ---------------------------------------------------------------------------

def laplace_value(v0: float, v1: float, scale: float, sign: bool = False) -> tuple[Callable, Callable]:
    """Releases of one value f(x*) + b (or its sign) on z and on z̄."""
    def rel(v: float) -> Callable:
        def f(rng: np.random.Generator, n: int) -> np.ndarray:
            out = v + rng.laplace(0.0, scale, n)
            return np.where(out >= 0, 1.0, -1.0) if sign else out
        return f
    return rel(v0), rel(v1)


def laplace_function(f0: np.ndarray, f1: np.ndarray, i: int, j: int, scale: float,
                     sign: bool = False) -> tuple[Callable, Callable]:
    """Releases of the function f + b observed at t_i and t_j; statistic: value(t_j) − value(t_i)."""
    def rel(f: np.ndarray) -> Callable:
        def g(rng: np.random.Generator, n: int) -> np.ndarray:
            b = rng.laplace(0.0, scale, n)
            a, c = f[i] + b, f[j] + b
            if sign:
                a, c = np.where(a >= 0, 1.0, -1.0), np.where(c >= 0, 1.0, -1.0)
            return np.round(c - a, 10)          # removes the rounding jitter of (f + b) − (f + b)
        return g
    return rel(f0), rel(f1)


def gp_function(f0: np.ndarray, f1: np.ndarray, Kgrid: np.ndarray, scale: float) -> tuple[Callable, Callable]:
    """Releases f + scale·G on the grid, G ~ N(0, K_grid); statistic: ⟨K⁺(f1 − f0), release − f0⟩."""
    w, U = np.linalg.eigh(Kgrid)
    keep = w > w.max() * 1e-10
    root = U[:, keep] * np.sqrt(w[keep])
    d = f1 - f0
    proj = U[:, keep] @ ((U[:, keep].T @ d) / w[keep])          # K⁺ d on the kept eigenspace

    def rel(f: np.ndarray) -> Callable:
        def g(rng: np.random.Generator, n: int) -> np.ndarray:
            xi = rng.standard_normal((n, root.shape[1]))
            v = f[None, :] + scale * (xi @ root.T)
            return (v - f0[None, :]) @ proj
        return g
    return rel(f0), rel(f1)


LEAK_FUNCTION = ("one scalar b is added to the whole function, so differences of its values are "
                 "noise-free and reveal f_z − f_z̄ exactly")
LEAK_VALUE = "no leak beyond the claim was detected at this pair"


def audit_result(key: str, *, mechanism: str, source: str, release: str, calibration: str, claimed: float,
                 result: AuditResult, attack: str, leak: str = LEAK_VALUE, details: dict[str, Any] | None = None,
                 delta: float = 0.0) -> Result:
    """One audit row as a :class:`~bounds.evidence.Result` (``evidence="audit"``, kind ``privacy``).

    ``statistic`` and ``lo`` are ε_lower, ``hi`` the attack's ε at the observed rates, ``bound`` the
    claimed ε; the verdict is ``violated`` when ε_lower exceeds the claim.  ``leak`` is shown only
    for a violated claim.

    Examples
    --------
    >>> r = audit(*laplace_releases(0.5), n=20_000, seed=0)
    >>> row = audit_result("demo.thm1", mechanism="laplace", source="textbook", release="value",
    ...                    calibration="exact", claimed=0.5, result=r, attack="threshold")
    >>> row.evidence, row.verdict, row.bound
    ('audit', 'holds', 0.5)
    """
    violated = result.eps_lower > claimed
    return Result(key=key, evidence="audit", kind="privacy", name=f"{release}, {calibration}",
                  verdict="violated" if violated else "holds", statistic=result.eps_lower, lo=result.eps_lower,
                  hi=result.eps_point, bound=claimed, confidence=result.confidence, n=result.n, method=attack,
                  detail=leak if violated else LEAK_VALUE,
                  details={"mechanism": mechanism, "source": source, "release": release, "calibration": calibration,
                           "delta": delta, "eps_point": result.eps_point, "fpr": result.fpr, "fnr": result.fnr,
                           "threshold": result.threshold, **(details or {})})


def audit_row(key: str, mechanism: str, source: str, release: str, calibration: str, claimed_eps: float,
              delta: float, eps_lower: float, eps_point: float, confidence: float, n: int, verdict: str,
              attack: str, leak: str, details: dict[str, Any] | None = None) -> Result:
    """An audit row from its fields, for audits that compute ε_lower themselves (a pre-registered test).

    ``verdict`` is ``violated`` or ``consistent``/``holds``; it must agree with ε_lower > claimed ε.
    """
    violated = eps_lower > claimed_eps
    if (verdict == "violated") != violated:
        raise ValueError(f"audit of {key}: parameter 'verdict' = {verdict!r} disagrees with "
                         f"eps_lower = {eps_lower:.4g} against the claimed {claimed_eps:g}")
    return Result(key=key, evidence="audit", kind="privacy", name=f"{release}, {calibration}",
                  verdict="violated" if violated else "holds", statistic=eps_lower, lo=eps_lower, hi=eps_point,
                  bound=claimed_eps, confidence=confidence, n=n, method=attack,
                  detail=leak if violated else LEAK_VALUE,
                  details={"mechanism": mechanism, "source": source, "release": release, "calibration": calibration,
                           "delta": delta, "eps_point": eps_point, **(details or {})})


def scalar_noise_audits(key: str, *, mechanism: str, source: str, pair: dict[str, Any], scales: dict[str, float],
                        claimed: float, n: int, seed: int, confidence: float, sign: bool = False,
                        details: dict[str, Any] | None = None, value_attack: str = "threshold on the released value at x*",
                        function_attack: str = "difference of the released function at two points",
                        function_leak: str = LEAK_FUNCTION, stated_note: str = "") -> list[Result]:
    """Audits of a function released with ONE scalar noise b, per release model and calibration.

    ``pair`` is a hardest neighbouring pair (:mod:`simulations.pairs`); ``scales`` maps a calibration
    (``stated``, ``derived``) to the Laplace scale.  Two release models: ``value`` (f(x*) + b at the point
    x* where the pair differs most; with ``sign``, its sign) and ``function`` (the function at the two
    points where f_z̄ − f_z is smallest and largest: their difference carries no noise).
    """
    f0, f1 = pair["f0"], pair["f1"]
    g = pair["value_point"]
    i, j = pair["function_points"]
    base = {"pair": pair["note"], "index": pair["index"], "replacement": pair["replacement"],
            "max_abs_diff": pair["max_abs_diff"], **(details or {})}
    out = []
    for cal, scale in scales.items():
        det = dict(base, scale=scale)
        r = audit(*laplace_value(f0[g], f1[g], scale, sign=sign), n=n, seed=seed, confidence=confidence)
        diff = float(abs(f1[g] - f0[g]))
        leak = (f"one released value already loses more than ε: at this pair |f_z(x*) − f_z̄(x*)| = {diff:.3g} "
                f"exceeds ε × scale = {claimed * scale:.3g}" + (f" ({stated_note})" if cal == "stated" and stated_note
                                                                else ""))
        out.append(audit_result(key, mechanism=mechanism, source=source, release="value", calibration=cal,
                                claimed=claimed, result=r, attack=value_attack, leak=leak,
                                details=dict(det, value_diff=diff)))
        r = audit(*laplace_function(f0, f1, i, j, scale, sign=sign), n=n, seed=seed, confidence=confidence)
        out.append(audit_result(key, mechanism=mechanism, source=source, release="function", calibration=cal,
                                claimed=claimed, result=r, attack=function_attack, leak=function_leak, details=det))
    return out


def calibration_audits(n: int, seed: int, confidence: float, eps: float = 1.0, delta: float = 1e-5) -> list[Result]:
    """The auditor on textbook mechanisms of known ε: Laplace (ε-DP) and Gaussian ((ε, δ)-DP).

    These rows test the auditor, not a paper (key ``""``); ``details["ratio"]`` = ε_lower / ε_true
    is how much of the true ε the auditor recovers with ``n`` releases (the Gaussian's ε_true is its
    exact ε at δ, Balle & Wang 2018).
    """
    lap = audit(*laplace_releases(eps), n=n, seed=seed, confidence=confidence)
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / eps
    true = gaussian_true_eps(sigma, delta)
    ga = audit(*gaussian_releases(eps, delta), n=n, seed=seed, confidence=confidence, delta=delta)
    return [
        audit_result("", mechanism="laplace", source="textbook Laplace mechanism, Δ = 1", release="value",
                     calibration="exact", claimed=eps, result=lap, attack="threshold on the value",
                     details={"eps_true": eps, "ratio": lap.eps_lower / eps, "calibration_of_auditor": True}),
        audit_result("", mechanism="gaussian", source="textbook Gaussian mechanism, Δ = 1, σ = √(2 ln(1.25/δ))/ε",
                     release="value", calibration="exact", claimed=eps, result=ga, attack="threshold on the value",
                     delta=delta,
                     details={"eps_true": true, "ratio": ga.eps_lower / true, "calibration_of_auditor": True}),
    ]


def audit_markdown(rows: list[Result]) -> list[str]:
    """Report lines: the audit table (sweep rows excluded)."""
    L = ["| mechanism | source | release | noise | claimed ε (δ) | ε_lower | attack's ε at observed rates | verdict | what leaks |",
         "|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if r.details.get("sweep"):
            continue
        D = r.details
        d = f"{r.bound:g}" + (f" ({D['delta']:g})" if D.get("delta") else "")
        if "ratio" in r.details:
            d += f"; true ε {r.details['eps_true']:.3g}, recovered {r.details['ratio']:.0%}"
        pt = "∞" if math.isinf(r.hi) else f"{r.hi:.3g}"
        def esc(t: str) -> str:
            return t.replace("|", "\\|").replace("\n", " ")

        key = f"[`{r.key}`](#s-{r.key.replace('.', '-').replace('_', '-').lower()})" if r.key else "(auditor)"
        L.append(f"| {key} `{D['mechanism']}` | {esc(D['source'])} | {D['release']} | {D['calibration']} | {d} | "
                 f"{r.statistic:.3f} | {pt} | **{r.verdict}** | {esc(r.detail)} |")
    return L


def audit_figure(rows: list[Result], directory) -> str | None:
    """ε_lower against the claimed ε (the sweep rows); returns the PNG path relative to the report."""
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sw = [r for r in rows if r.details.get("sweep")]
    if not sw:
        return None
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(5.2, 3.8), constrained_layout=True)
    eps = sorted({r.bound for r in sw})
    ax.plot(eps, eps, "k--", lw=1, label="ε_lower = claimed ε")
    for i, (rel, cal) in enumerate([(a, b) for a in ("value", "function") for b in ("stated", "derived")]):
        pts = sorted((r.bound, r.statistic) for r in sw
                     if r.details["release"] == rel and r.details["calibration"] == cal)
        ax.plot([p[0] for p in pts], [max(p[1], 1e-3) for p in pts], "o-" if rel == "function" else "s-",
                color=f"C{i}", label=f"{rel} release, {cal} noise")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("claimed ε")
    ax.set_ylabel(f"ε_lower ({sw[0].confidence:.0%} confidence)")
    ax.set_title(f"{sw[0].details['source']} ({sw[0].key}), {sw[0].n} releases per data set", fontsize=9)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    for ext in ("png", "svg"):
        fig.savefig(directory / f"audit_eps.{ext}", dpi=150 if ext == "png" else None)
    plt.close(fig)
    return f"{directory.name}/audit_eps.png"
