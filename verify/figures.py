"""Figures of the report (matplotlib, Agg backend; PNG and SVG).

Rate figures: for every ``rate`` result, log-log axes with the empirical mean
per m and its confidence band, the bound's curve (stated and derived when the
check recorded them), the fitted slope and the claimed slope through the
middle point.  A rate result's ``details`` must carry ``m`` and ``mean`` (lists);
``se`` (standard errors), ``bound`` / ``bound_stated`` (bound values per m) and
``quantity`` (axis label) are drawn when present.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_")[:80]


def rate_series(details: dict[str, Any]) -> dict[str, Any] | None:
    """Normalise a rate result's per-m data to ``m, mean, se, bound, bound_stated, extra, x_label``.

    Accepts ``m``/``mean`` lists (optionally ``se``, ``bound``, ``bound_stated``), a ``per_m``
    list of row dicts (``m, mean, se, bound_derived, bound_stated``) or ``T``/``mean`` lists
    for the online algorithm (with ``mean_error_lower_bound`` drawn as an extra curve).
    """
    d = dict(details)
    if "per_m" in d and not ("m" in d and "mean" in d):
        rows = d["per_m"]
        d["m"] = [r["m"] for r in rows]
        d["mean"] = [r["mean"] for r in rows]
        d["se"] = [r.get("se") for r in rows]
        d["bound"] = [r.get("bound_derived", r.get("bound")) for r in rows]
        d["bound_stated"] = [r.get("bound_stated") for r in rows]
    elif "T" in d and "m" not in d:
        d["m"] = d["T"]
        d.setdefault("x_label", "T (steps of the online algorithm)")
        d.setdefault("y_label", "‖f_T + b − f_ρ‖_K")
        if "mean_error_lower_bound" in d:
            d["extra"] = {"exact lower bound ‖E f_T − f_ρ‖_K": d["mean_error_lower_bound"]}
    if "m" not in d or "mean" not in d:
        return None
    for k in ("se", "bound", "bound_stated"):
        if d.get(k) is not None and any(v is None for v in d[k]):
            d[k] = None
    return d


def rate_figure(result: Any, path_stem: Path) -> list[Path]:
    """Draw one rate figure; returns the written files (PNG, SVG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    d = rate_series(result.details) or {}
    m = np.asarray(d["m"], dtype=float)
    y = np.asarray(d["mean"], dtype=float)
    fig, ax = plt.subplots(figsize=(5.2, 3.8), constrained_layout=True)
    ax.set_xscale("log")
    ax.set_yscale("log")
    if d.get("se") is not None:
        se = np.asarray(d["se"], dtype=float)
        q = float(stats.norm.ppf(0.5 + result.confidence / 2))
        lo = np.maximum(y - q * se, y * 1e-3)
        ax.fill_between(m, lo, y + q * se, alpha=0.25, color="C0", label=f"{result.confidence:.0%} band")
    ax.plot(m, y, "o-", color="C0", label=d.get("quantity", "empirical mean"))
    for name, style, label in (("bound", "-", "bound (derived)"), ("bound_stated", "--", "bound (stated)")):
        if d.get(name) is not None:
            b = np.asarray(d[name], dtype=float)
            if np.all(np.isfinite(b)) and np.all(b > 0):
                ax.plot(m, b, style, color="C3" if name == "bound" else "C1", label=label)
    for i, (label, vals) in enumerate((d.get("extra") or {}).items()):
        ax.plot(m, np.asarray(vals, dtype=float), "^--", color=f"C{4 + i}", label=label)
    mid = math.exp(float(np.mean(np.log(m))))
    ymid = math.exp(float(np.mean(np.log(y))))
    grid = np.geomspace(m.min(), m.max(), 50)
    ax.plot(grid, ymid * (grid / mid) ** result.statistic, ":", color="C0",
            label=f"fit slope {result.statistic:.3f} [{result.lo:.3f}, {result.hi:.3f}]")
    ax.plot(grid, ymid * (grid / mid) ** result.bound, ":", color="k",
            label=f"claimed slope {result.bound:.3f}")
    ax.set_xlabel(d.get("x_label", "m (sample size)"))
    ax.set_ylabel(d.get("y_label", "excess risk"))
    ax.set_title(f"{result.key}: {result.variant}", fontsize=9)
    ax.legend(fontsize=7)
    ax.grid(True, which="both", alpha=0.3)
    out = []
    for ext in ("png", "svg"):
        p = path_stem.with_suffix(f".{ext}")
        fig.savefig(p, dpi=150 if ext == "png" else None)
        out.append(p)
    plt.close(fig)
    return out


def rate_figures(results: Sequence[Any], directory: Path) -> dict[str, str]:
    """Draw every rate result that carries per-m data.

    Returns
    -------
    dict
        ``"key:kind:variant"`` → path of the PNG relative to the report directory.
    """
    directory = Path(directory)
    out: dict[str, str] = {}
    for r in results:
        if r.kind != "rate" or not math.isfinite(r.statistic) or rate_series(r.details) is None:
            continue
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / _slug(f"rate_{r.key}_{r.variant}".replace(".", "_"))
        files = rate_figure(r, stem)
        out[f"{r.key}:{r.kind}:{r.variant}"] = f"{directory.name}/{files[0].name}"
    return out


def bound_heatmap(key: str, consts: dict[str, float], m: float, path_stem: Path) -> list[Path]:
    """Heat map of log10 of a bound over (ε, λ) at fixed m, the paper's and the optimised choice marked."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bounds.pick import bound_grid, optimise, paper_schedule

    eps = np.geomspace(1e-3, 1.0, 121)
    lam = np.geomspace(1e-5, 1.0, 121)
    z = bound_grid(key, m, eps, lam, **consts)
    finite = np.isfinite(z) & (z > 0)
    lz = np.where(finite, np.log10(np.where(finite, z, 1.0)), np.nan)
    if np.any(finite):
        lo = np.nanmin(lz)
        lz = np.minimum(lz, lo + 4)          # four decades above the minimum: the interesting region
    fig, ax = plt.subplots(figsize=(5.2, 4.0), constrained_layout=True)
    pc = ax.pcolormesh(eps, lam, lz, shading="auto", cmap="viridis", rasterized=True)  # small SVG
    fig.colorbar(pc, ax=ax, label="log10 bound (capped at min + 4)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    p = paper_schedule(key, m, **consts)
    o = optimise(key, m, **consts)
    if p.lam is not None:
        ax.plot([p.eps], [p.lam], "o", ms=9, mfc="none", mec="w", mew=2,
                label=f"paper: ε={p.eps:.3g}, λ={p.lam:.3g}, bound {p.bound:.3g}")
    if o.lam is not None:
        ax.plot([o.eps], [o.lam], "*", ms=12, color="C3",
                label=f"optimised: ε={o.eps:.3g}, λ={o.lam:.3g}, bound {o.bound:.3g}")
    ax.set_xlabel("ε")
    ax.set_ylabel("λ")
    ax.set_title(f"{key} at m = {m:.0e} (derived bound)", fontsize=9)
    ax.legend(fontsize=7, loc="lower left")
    out = []
    for ext in ("png", "svg"):
        q = path_stem.with_suffix(f".{ext}")
        fig.savefig(q, dpi=150 if ext == "png" else None)
        out.append(q)
    plt.close(fig)
    return out


def heatmaps(pick_constants: dict[str, dict[str, float]], directory: Path, m: float = 1e4) -> dict[str, str]:
    """One heat map per pickable bound whose constants leave both ε and λ free.

    Returns ``key`` → PNG path relative to the report directory.
    """
    directory = Path(directory)
    out: dict[str, str] = {}
    for key, consts in pick_constants.items():
        if "eps" in consts or "lam" in consts:
            continue
        directory.mkdir(parents=True, exist_ok=True)
        files = bound_heatmap(key, consts, m, directory / _slug(f"heatmap_{key.replace('.', '_')}"))
        out[key] = f"{directory.name}/{files[0].name}"
    return out


def _x_of(r: Any) -> float | None:
    for k in ("m", "t", "T"):
        if k in r.details:
            try:
                return float(r.details[k])
            except (TypeError, ValueError):
                return None
    return None


def sensitivity_figures(results: Sequence[Any], directory: Path) -> dict[str, str]:
    """Per statement with sensitivity results: empirical worst case / bound against m, one line per variant.

    The variant label without its ``m=…``/``t=…`` part names the line (λ, κ, problem,
    norm); a ratio above the dashed line at 1 is a violated bound.
    Returns ``key`` → PNG path relative to the report directory.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_key: dict[str, list[Any]] = {}
    for r in results:
        if r.kind == "sensitivity" and math.isfinite(r.statistic) and r.bound > 0 and _x_of(r) is not None:
            by_key.setdefault(r.key, []).append(r)
    out: dict[str, str] = {}
    directory = Path(directory)
    for key, rs in by_key.items():
        lines: dict[str, list[tuple[float, float]]] = {}
        for r in rs:
            label = re.sub(r"(^|,\s*)(m|t|T)=[^,]*", "", r.variant).strip(", ") or "all"
            lines.setdefault(label, []).append((_x_of(r), r.statistic / r.bound))
        fig, ax = plt.subplots(figsize=(5.2, 3.6), constrained_layout=True)
        for i, (label, pts) in enumerate(sorted(lines.items())):
            pts.sort()
            ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", color=f"C{i % 10}", label=label)
        ax.axhline(1.0, color="k", ls="--", lw=1, label="bound")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("m (or t)")
        ax.set_ylabel("worst case found / bound")
        ax.set_title(f"{key}: adversarial sensitivity search", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6)
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / _slug(f"sensitivity_{key}".replace(".", "_"))
        for ext in ("png", "svg"):
            fig.savefig(stem.with_suffix(f".{ext}"), dpi=150 if ext == "png" else None)
        plt.close(fig)
        out[key] = f"{directory.name}/{stem.name}.png"
    return out


def overview_figures(results: Sequence[Any], directory: Path) -> dict[str, str]:
    """One small-multiples figure per paper: a panel per statement, a point per variant.

    Sensitivity, risk and violation panels show statistic/bound with the
    interval (log scale, dashed line at 1); rate panels show the fitted slope
    with its interval and the claimed exponent as a dashed line.
    Returns paper prefix → PNG path relative to the report directory.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    papers: dict[str, dict[str, list[Any]]] = {}
    for r in results:
        if math.isfinite(r.statistic):
            papers.setdefault(r.key.split(".")[0], {}).setdefault(r.key + (" (rate)" if r.kind == "rate" else ""), []).append(r)
    out: dict[str, str] = {}
    directory = Path(directory)
    for paper, panels in papers.items():
        n = len(panels)
        cols = min(4, n)
        rows = -(-n // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.6 * rows), constrained_layout=True,
                                 squeeze=False)
        for ax, (name, rs) in zip(axes.ravel(), panels.items(), strict=False):
            xs = np.arange(len(rs))
            colors = ["C2" if r.verdict == "holds" else "C3" if r.verdict == "violated" else "C1" for r in rs]
            if rs[0].kind == "rate":
                y = np.array([r.statistic for r in rs])
                err = np.array([[r.statistic - r.lo for r in rs], [r.hi - r.statistic for r in rs]])
                ax.axhline(rs[0].bound, color="k", ls="--", lw=1)
                ax.set_ylabel("slope (dashed: claimed)", fontsize=7)
            else:
                b = np.array([r.bound for r in rs])
                y = np.array([r.statistic for r in rs]) / b
                lo = np.array([r.lo for r in rs]) / b
                hi = np.array([r.hi for r in rs]) / b
                err = np.array([np.maximum(y - lo, 0), np.maximum(hi - y, 0)])
                ax.axhline(1.0, color="k", ls="--", lw=1)
                if np.all(y > 0):
                    ax.set_yscale("log")
                ax.set_ylabel("empirical / bound", fontsize=7)
            ax.errorbar(xs, y, yerr=err, fmt="none", ecolor="0.4", lw=1)
            ax.scatter(xs, y, c=colors, s=18, zorder=3)
            ax.set_xticks(xs)
            ax.set_xticklabels([str(i + 1) for i in xs], fontsize=6)
            ax.set_title(name, fontsize=8)
            ax.tick_params(labelsize=6)
        for ax in axes.ravel()[n:]:
            ax.axis("off")
        fig.suptitle(f"{paper}: every empirical check (green holds, red violated, orange inconclusive; "
                     "x = variant number in the report)", fontsize=8)
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / f"overview_{paper}"
        for ext in ("png", "svg"):
            fig.savefig(stem.with_suffix(f".{ext}"), dpi=150 if ext == "png" else None)
        plt.close(fig)
        out[paper] = f"{directory.name}/{stem.name}.png"
    return out
