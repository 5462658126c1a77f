"""Privacy–utility on bundled real data: held-out risk of each release against ε.

Runs :func:`simulations.trials.utility.utility_trial` for every setup a paper
declares (:func:`simulations.trials.utility.utility_setups`: a bundled
scikit-learn data set, a fit and a mechanism), on data scaled into the unit
ball as the papers assume, with λ = m^(−4/9) (the §5 schedule of Nie & Wang
2017, J. Inequal. Appl., at β = ½), a Gaussian kernel whose bandwidth σ is the median pairwise distance of the training inputs (the
median heuristic; like the scaling into the unit ball it is treated as public
and not privacy-accounted) and m = the whole training split, so the trials
differ only in their noise draws and the intervals are over the noise.  Each ε is run with the paper's
stated noise and with the derived one; the non-private fit is the baseline.

The output is a tidy table (dataset, algorithm, calibration, ε, mean held-out
risk, confidence interval, trials) and one figure per data set.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.spatial.distance import pdist

from simulations.trials.utility import UtilitySetup, _dataset, utility_setups, utility_trial

from .empirical.core import Context
from .stats import mean_ci

#: results depend on every paper's declared setups (read through discovery): see simulations.cache
__all_papers__ = "depends on every paper"


EPS = (0.02, 0.05, 0.1, 0.2, 0.5, 0.9)


def setups() -> list[UtilitySetup]:
    """The declared setups grouped by data set (data sets in order of first declaration), so one data
    set's rows and panels sit together whichever paper declares them."""
    declared = list(utility_setups().values())
    order = list(dict.fromkeys(s.dataset for s in declared))
    return sorted(declared, key=lambda s: order.index(s.dataset))


def run_utility(ctx: Context) -> pd.DataFrame:
    """Run the privacy–utility experiment in the context's profile; returns the tidy table."""
    p = ctx.profile
    rows: list[dict] = []
    for setup in setups():
        dataset, alg = setup.dataset, setup.name
        m = _dataset(dataset).n_train
        lam = float(m ** (-4 / 9))
        sigma = float(np.median(pdist(_dataset(dataset).X_train)))
        cfg = {"dataset": dataset, "algorithm": alg, "m": m, "lam": lam, "sigma": round(sigma, 6),
               "eps": list(EPS), "n_noise": p.n_noise}
        df = ctx.run(utility_trial, [cfg], p.n_rate_trials, desc=f"utility {dataset}/{alg}")
        ok = df[df["rejected"] == 0]
        cols = [("non-private", None, "risk_nonprivate"), ("zero", None, "risk_zero")] + [
            (w, e, f"risk_{w}_eps{e:g}") for e in EPS for w in ("stated", "derived")]
        for which, eps, col in cols:
            mean, lo, hi = mean_ci(ok[col], p.confidence)
            rows.append({"dataset": dataset, "algorithm": alg, "m": m, "lam": lam, "sigma": cfg["sigma"],
                         "calibration": which, "eps": eps, "risk": mean, "lo": lo, "hi": hi,
                         "n": len(ok), "rejected": int(len(df) - len(ok)), "confidence": p.confidence})
    return pd.DataFrame(rows)


def utility_figures(table: pd.DataFrame, directory: Path) -> dict[str, str]:
    """Risk against ε, one panel per (data set, algorithm); returns name → PNG path (relative)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    setups = list(dict.fromkeys(zip(table.dataset, table.algorithm, strict=True)))
    fig, axes = plt.subplots(1, len(setups), figsize=(4.2 * len(setups), 3.6), constrained_layout=True)
    for ax, (ds, alg) in zip(np.atleast_1d(axes), setups, strict=True):
        t = table[(table.dataset == ds) & (table.algorithm == alg)]
        base = t[t.calibration == "non-private"].iloc[0]
        ax.axhline(base.risk, color="k", ls=":", label="non-private")
        zero = t[t.calibration == "zero"].iloc[0]
        ax.axhline(zero.risk, color="0.5", ls="--", label="constant predictor 0")
        for which, color in (("stated", "C1"), ("derived", "C0")):
            s = t[t.calibration == which].sort_values("eps")
            ax.plot(s.eps, s.risk, "o-", color=color, label=f"{which} noise")
            ax.fill_between(s.eps, s.lo, s.hi, color=color, alpha=0.2)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("ε")
        ax.set_ylabel(utility_setups()[alg].label)
        ax.set_title(f"{ds}, {alg} (m = {int(base.m)}, λ = {base.lam:.3g}, σ = {base.sigma:.2g})", fontsize=9)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    out = {}
    from .figures import fit_titles, svg_wanted

    fit_titles(fig)
    for ext in ("png", "svg") if svg_wanted() else ("png",):
        fig.savefig(directory / f"privacy_utility.{ext}", dpi=150 if ext == "png" else None)
    plt.close(fig)
    out["privacy_utility"] = f"{directory.name}/privacy_utility.png"
    return out


def utility_markdown(table: pd.DataFrame) -> list[str]:
    """Report lines: one row per (data set, algorithm, ε) with both calibrations and the baselines."""
    L = ["| data set | algorithm | m | λ | ε | stated noise | derived noise | non-private | constant 0 |",
         "|---|---|---|---|---|---|---|---|---|"]
    for (ds, alg), t in table.groupby(["dataset", "algorithm"], sort=False):
        base = t[t.calibration == "non-private"].iloc[0]
        zero = t[t.calibration == "zero"].iloc[0]
        for eps in sorted(t.eps.dropna().unique()):
            st = t[(t.calibration == "stated") & (t.eps == eps)].iloc[0]
            de = t[(t.calibration == "derived") & (t.eps == eps)].iloc[0]
            L.append(f"| {ds} | {alg} | {int(base.m)} | {base.lam:.3g} | {eps:g} | "
                     f"{st.risk:.4g} [{st.lo:.3g}, {st.hi:.3g}] | {de.risk:.4g} [{de.lo:.3g}, {de.hi:.3g}] | "
                     f"{base.risk:.4g} | {zero.risk:.4g} |")
    return L
