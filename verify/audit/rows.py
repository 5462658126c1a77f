"""Audit rows of the papers: release models of perturbed estimators, and audits as report rows.

The auditor itself is :mod:`verify.audit.core`; textbook mechanisms of known ε are in
:mod:`verify.audit.mechanisms`.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from bounds.evidence import Result

from .core import AuditResult, audit, audit_seed, event_families, families_text, min_event_prob
from .mechanisms import gaussian_releases, gaussian_true_eps, laplace_releases

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


def no_leak(eps_max: float | None = None, families: str | None = None) -> str:
    """What a non-violation means: nothing found, the largest ε this n could have detected, and the events tested.

    ``families`` is :func:`verify.audit.core.families_text` of the audit (the event families tested, each
    with the smallest probability it detects); nothing is said about events outside them.

    Examples
    --------
    >>> no_leak(9.84, "events tested: half-lines of the output; no other events were tested")
    'no leak beyond the claim was detected at this pair; the largest ε this n could have detected is 9.84; events tested: half-lines of the output; no other events were tested'
    """
    if eps_max is None or not math.isfinite(eps_max):
        return LEAK_VALUE if families is None else f"{LEAK_VALUE}; {families}"
    text = f"{LEAK_VALUE}; the largest ε this n could have detected is {eps_max:.3g}"
    return text if families is None else f"{text}; {families}"


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
    pmin = min_event_prob(result.details["n_evaluation0"], result.details["n_evaluation1"], delta,
                          1 - (1 - result.confidence) / result.details.get("tests", 1), claimed) \
        if "n_evaluation0" in result.details else None
    pmin = pmin if pmin is not None and math.isfinite(pmin) else None      # no event can exceed the claim
    fams = event_families(result.details, delta, result.confidence, claimed) \
        if "n_evaluation0" in result.details and result.details.get("families") else None
    tr = result.tradeoff
    return Result(key=key, evidence="audit", kind="privacy", name=f"{release}, {calibration}",
                  verdict="violated" if violated else "holds", statistic=result.eps_lower, lo=result.eps_lower,
                  hi=result.eps_point, bound=claimed, confidence=result.confidence, n=result.n, method=attack,
                  detail=leak if violated else no_leak(result.eps_max, None if fams is None else families_text(fams)),
                  details={"mechanism": mechanism, "source": source, "release": release, "calibration": calibration,
                           "delta": delta, "eps_point": result.eps_point, "fpr": result.fpr, "fnr": result.fnr,
                           "threshold": result.threshold, "eps_max": result.eps_max, "min_event_prob": pmin, "families": fams,
                           "event": result.details.get("event"), "statistic": result.details.get("statistic"),
                           **({} if tr is None else {"tradeoff_mu_lower": tr.mu_lower, "tradeoff_eps_lower": tr.eps_lower,
                                                     "tradeoff_eps_gdp": tr.eps_gdp if math.isfinite(tr.eps_gdp)
                                                     else None}),
                           **(details or {})})


def audit_row(key: str, mechanism: str, source: str, release: str, calibration: str, claimed_eps: float,
              delta: float, eps_lower: float, eps_point: float, confidence: float, n: int, verdict: str,
              attack: str, leak: str, details: dict[str, Any] | None = None, eps_max: float | None = None) -> Result:
    """An audit row from its fields, for audits that compute ε_lower themselves (a pre-registered test).

    ``verdict`` is ``violated`` or ``consistent``/``holds``; it must agree with ε_lower > claimed ε.
    ``eps_max``: the largest ε_lower this audit's n could give (said in a non-violated row's detail).
    """
    violated = eps_lower > claimed_eps
    if (verdict == "violated") != violated:
        raise ValueError(f"audit of {key}: parameter 'verdict' = {verdict!r} disagrees with "
                         f"eps_lower = {eps_lower:.4g} against the claimed {claimed_eps:g}")
    return Result(key=key, evidence="audit", kind="privacy", name=f"{release}, {calibration}",
                  verdict="violated" if violated else "holds", statistic=eps_lower, lo=eps_lower, hi=eps_point,
                  bound=claimed_eps, confidence=confidence, n=n, method=attack,
                  detail=leak if violated else no_leak(eps_max),
                  details={"mechanism": mechanism, "source": source, "release": release, "calibration": calibration,
                           "delta": delta, "eps_point": eps_point, "eps_max": eps_max, **(details or {})})


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
        r = audit(*laplace_value(f0[g], f1[g], scale, sign=sign), n=n, seed=audit_seed(seed, key, mechanism, "value", cal),
                  confidence=confidence)
        diff = float(abs(f1[g] - f0[g]))
        leak = (f"one released value already loses more than ε: at this pair |f_z(x*) − f_z̄(x*)| = {diff:.3g} "
                f"exceeds ε × scale = {claimed * scale:.3g}" + (f" ({stated_note})" if cal == "stated" and stated_note
                                                                else ""))
        out.append(audit_result(key, mechanism=mechanism, source=source, release="value", calibration=cal,
                                claimed=claimed, result=r, attack=value_attack, leak=leak,
                                details=dict(det, value_diff=diff)))
        r = audit(*laplace_function(f0, f1, i, j, scale, sign=sign), n=n,
                  seed=audit_seed(seed, key, mechanism, "function", cal), confidence=confidence)
        out.append(audit_result(key, mechanism=mechanism, source=source, release="function", calibration=cal,
                                claimed=claimed, result=r, attack=function_attack, leak=function_leak, details=det))
    return out


def calibration_audits(n: int, seed: int, confidence: float, eps: float = 1.0, delta: float = 1e-5) -> list[Result]:
    """The auditor on textbook mechanisms of known ε: Laplace (ε-DP) and Gaussian ((ε, δ)-DP).

    These rows test the auditor, not a paper (key ``""``); ``details["ratio"]`` = ε_lower / ε_true
    is how much of the true ε the auditor recovers with ``n`` releases (the Gaussian's ε_true is its
    exact ε at δ, Balle & Wang 2018).
    """
    lap = audit(*laplace_releases(eps), n=n, seed=audit_seed(seed, "auditor", "laplace"), confidence=confidence)
    sigma = math.sqrt(2 * math.log(1.25 / delta)) / eps
    true = gaussian_true_eps(sigma, delta)
    ga = audit(*gaussian_releases(eps, delta), n=n, seed=audit_seed(seed, "auditor", "gaussian"), confidence=confidence,
               delta=delta, tradeoff=True)     # the report shows the Gaussian's trade-off line (its ε at δ under GDP)
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
    """Report lines: the audit table (sweep rows excluded).

    The key cell links a paper's statement; rows of key ``""`` are the auditor's calibration
    (``(auditor)``) or a recorded client's audit (``(client)``, :mod:`verify.audit.clients`).
    """
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

        key = (f"[`{r.key}`](#s-{r.key.replace('.', '-').replace('_', '-').lower()})" if r.key
               else "(client)" if D.get("client") else "(auditor)")
        L.append(f"| {key} `{D['mechanism']}` | {esc(D['source'])} | {D['release']} | {D['calibration']} | {d} | "
                 f"{r.statistic:.3f} | {pt} | **{r.verdict}** | {esc(r.detail)} |")
    return L


def audit_figure(rows: list[Result], directory) -> str | None:
    """ε_lower against the claimed ε (the sweep rows); returns the PNG path relative to the report.

    The path is a :class:`verify.figures.FigureRef` whose notes the report prints under the
    figure: ε_lower = 0 is marked ▼ on the bottom edge of the log axis, and a series equal to
    another (stated and derived noise giving the same ε_lower) is drawn so that both show.
    """
    from pathlib import Path

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from ..figures import FigureRef, fit_axis, plot_series, save_figure, title_with_note

    sw = [r for r in rows if r.details.get("sweep")]
    if not sw:
        return None
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    fig, ax = plt.subplots(figsize=(5.2, 3.8), constrained_layout=True)
    eps = sorted({r.bound for r in sw})
    series = []
    for i, (rel, cal) in enumerate([(a, b) for a in ("value", "function") for b in ("stated", "derived")]):
        pts = sorted((r.bound, r.statistic) for r in sw
                     if r.details["release"] == rel and r.details["calibration"] == cal)
        if pts:
            series.append(dict(x=[p[0] for p in pts], y=[p[1] for p in pts], color=f"C{i}",
                               marker="o" if rel == "function" else "s", label=f"{rel} release, {cal} noise"))
    fit_axis(ax, "x", eps, direct=eps)
    yscale = fit_axis(ax, "y", [v for s in series for v in s["y"]] + eps)
    ax.plot(eps, eps, "k--", lw=1, label="ε_lower = claimed ε")
    notes = plot_series(ax, series, yscale)
    ax.set_xlabel("claimed ε")
    ax.set_ylabel(f"ε_lower ({sw[0].confidence:.0%} confidence)")
    short = ["▼ on the bottom edge: ε_lower = 0 (no leak detected)"] if any("at 0 marked" in n for n in notes) else []
    title_with_note(ax, f"{sw[0].details['source']} ({sw[0].key}), {sw[0].n} releases per data set", short)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7, loc="best")
    save_figure(fig, directory / "audit_eps")
    return FigureRef(f"{directory.name}/audit_eps.png", notes)
