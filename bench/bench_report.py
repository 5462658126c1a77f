"""CPU of the report's own work (figures, the HTML page, the LaTeX of the formulas, the picks table).

Issue 27 asks for a cold ``make verify`` whose main process is at most 5 % of the total CPU.  This
script times, with ``time.process_time`` in this one process, the pieces of the report that do not
simulate anything, on the inputs of the committed report (``reports/summary.json``,
``reports/results/utility.csv``, ``reports/REPORT.md``), and prints each one's CPU and its ratio to
a peer run in the same process:

* ``peer``: one plain matplotlib figure (a 5.2 × 3.8 in. line plot with a legend and a title,
  constrained layout) saved as PNG at 150 dpi and as SVG — what any figure costs at least;
* ``figures <kind>``: every figure job of the report (:func:`verify.report.figure_jobs`), drawn
  serially by :func:`verify.report._figure_job` as the workers do (titles fitted, ticks
  decluttered, the PNG written, the PNG's palette version prepared for the HTML page); and once
  more with the opt-in SVG copies (``$DP_ERM_VERIFY_SVG=1``, issue 33), whose PNGs must be
  byte-identical to the first drawing's;
* ``html embed``: :func:`verify.html.render_html` of ``REPORT.md`` with its figures embedded, once
  with the palette versions the figure jobs prepared (``prepared``) and once without
  (``cold``: every PNG quantised here);
* ``latex``: :func:`verify.report.latex` of every statement's stated form (its first call, and a
  second call served from the cache);
* ``picks table``: :func:`verify.report.picks_table` (L-BFGS-B per row).

``--keep DIR`` leaves the drawn figures in ``DIR`` (to compare two versions of the drawing code
byte for byte: ``cmp -s``/``diff -r``).

Usage::

    .venv/bin/python bench/bench_report.py [--only rate,overview] [--keep /tmp/figs] [--skip picks]
"""

from __future__ import annotations

import argparse
import json
import math
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def peer_figure(directory: Path) -> None:
    """One plain figure, saved as PNG (150 dpi) and SVG: the peer every row is divided by."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

    x = np.geomspace(50, 3200, 7)
    fig, ax = plt.subplots(figsize=(5.2, 3.8), constrained_layout=True)
    ax.plot(x, 1 / np.sqrt(x), "o-", label="empirical mean")
    ax.plot(x, 2 / np.sqrt(x), "x-", label="bound (derived)")
    ax.plot(x, 3 / np.sqrt(x), "+--", label="bound (stated)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title("peer: a plain figure")
    ax.legend(fontsize=7)
    fig.savefig(directory / "peer.png", dpi=150)
    fig.savefig(directory / "peer.svg")
    plt.close(fig)


def _cpu(fn, *args, **kw):
    t = time.process_time()
    out = fn(*args, **kw)
    return time.process_time() - t, out


def committed_inputs() -> tuple[list, list, list, object]:
    """Empirical results, audits, picks and the utility table of the committed report."""
    import pandas as pd

    from bounds.evidence import Result

    s = json.loads((ROOT / "reports" / "summary.json").read_text(encoding="utf-8"))

    def res(row: dict) -> Result:
        row = {k: (math.nan if v is None and k in ("statistic", "lo", "hi", "bound", "confidence") else v)
               for k, v in row.items() if k != "ratio"}
        return Result(**row)

    emp = [res(r) for r in s["empirical"]]
    aud = [res(r) for r in s["audits"]]
    util = ROOT / "reports" / "results" / "utility.csv"
    return emp, aud, s.get("picks") or [], (pd.read_csv(util) if util.exists() else None)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", default="", help="comma-separated figure kinds to draw (default: all)")
    ap.add_argument("--keep", default=None, help="leave the drawn figures in this directory")
    ap.add_argument("--skip", default="", help="comma-separated rows to skip: figures, svg, html, latex, picks")
    a = ap.parse_args(argv)
    skip = set(filter(None, a.skip.split(",")))
    kinds = set(filter(None, a.only.split(",")))

    from verify import report
    from verify.html import render_html

    work = Path(tempfile.mkdtemp(prefix="bench-report-"))
    rows: list[tuple[str, float, int]] = []
    try:
        peer_figure(work)                              # warm: imports, font cache
        peers = [_cpu(peer_figure, work)[0] for _ in range(3)]
        peer = sorted(peers)[1]
        rows.append(("peer (plain figure, PNG + SVG)", peer, 1))

        if "figures" not in skip:
            emp, aud, pk, util = committed_inputs()
            figdir = Path(a.keep) if a.keep else work / "out"
            shutil.rmtree(figdir, ignore_errors=True)
            jobs = report.figure_jobs(figdir / "figures", emp, pk, util, aud)
            per: dict[str, list[float]] = defaultdict(list)
            for job in jobs:
                if kinds and job[0] not in kinds:
                    continue
                per[job[0]].append(_cpu(report._figure_job, job)[0])
            for kind, ts in per.items():
                rows.append((f"figures {kind}", sum(ts), len(ts)))
            rows.append(("figures (all)", sum(sum(ts) for ts in per.values()), sum(len(ts) for ts in per.values())))
            if "svg" not in skip and hasattr(report, "_figure_job"):
                import os

                from verify import figures as vfig

                env = getattr(vfig, "SVG_ENV", None)
                if env is not None:                     # since issue 33 the SVG copies are opt-in
                    svgdir = work / "out-svg"
                    os.environ[env] = "1"
                    try:
                        jobs = report.figure_jobs(svgdir / "figures", emp, pk, util, aud)
                        t_svg = sum(_cpu(report._figure_job, job)[0] for job in jobs
                                    if not kinds or job[0] in kinds)
                    finally:
                        os.environ.pop(env, None)
                    rows.append(("figures (all, with the opt-in SVG copies)", t_svg, len(jobs)))
                    pngs = sorted(p.relative_to(svgdir) for p in svgdir.rglob("*.png") if ".embed" not in p.parts)
                    differ = [str(q) for q in pngs if (svgdir / q).read_bytes() != (figdir / q).read_bytes()]
                    if differ or not pngs:
                        print(f"MISMATCH: PNGs differ with and without SVG: {differ[:5]}", file=sys.stderr)
                        return 1

        if "html" not in skip:
            md = (ROOT / "reports" / "REPORT.md").read_text(encoding="utf-8")
            base = ROOT / "reports"
            t_cold, page = _cpu(render_html, md, base)
            rows.append(("html render (cold: every PNG quantised here)", t_cold, 1))
            prepared = work / "html"
            shutil.copytree(base / "figures", prepared / "figures")
            from verify import html as vhtml

            prep = getattr(vhtml, "prepare_embedding", None)
            if prep is not None:
                prep(sorted((prepared / "figures").glob("*.png")), prepared)
                t_warm, page2 = _cpu(render_html, md, prepared)
                rows.append(("html render (palette PNGs prepared by the figure jobs)", t_warm, 1))
                if page2 != page:
                    print("MISMATCH: the page differs with prepared palette PNGs", file=sys.stderr)
                    return 1

        if "latex" not in skip:
            from bounds import registry

            exprs = [registry.get(k).stated for k in registry.keys()]
            exprs = [e for e in exprs if e is not None]
            latex = getattr(report, "latex", None)
            if latex is None:
                import sympy as sp

                latex = sp.latex
            t1, first = _cpu(lambda: [latex(e) for e in exprs])
            t2, second = _cpu(lambda: [latex(e) for e in exprs])
            assert first == second
            rows.append(("latex of every stated form (first call)", t1, len(exprs)))
            rows.append(("latex of every stated form (again)", t2, len(exprs)))

        if "picks" not in skip:
            report.picks_table()                       # warm: snapshot, lambdified bounds
            t, pk_rows = _cpu(report.picks_table)
            rows.append(("picks table (warm)", t, len(pk_rows)))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    print(f"{'row':58s} {'CPU s':>8s} {'n':>5s} {'/ peer':>8s}")
    for name, t, n in rows:
        print(f"{name:58s} {t:8.3f} {n:5d} {t / peer:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
