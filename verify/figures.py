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


def rate_figure(result: Any, path_stem: Path) -> list[Path]:
    """Draw one rate figure; returns the written files (PNG, SVG)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    d = result.details
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
        if r.kind != "rate" or "m" not in r.details or "mean" not in r.details:
            continue
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / _slug(f"rate_{r.key}_{r.variant}")
        files = rate_figure(r, stem)
        out[f"{r.key}:{r.kind}:{r.variant}"] = f"{directory.name}/{files[0].name}"
    return out
