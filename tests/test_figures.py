"""The report's figures: deterministic files, no silent drops, no hidden series, scales that fit the data.

The figure functions are driven with synthetic :class:`~bounds.evidence.Result` rows shaped like the
report's (a zero bound, a NaN statistic, two identical audit series, 24 variants in one panel); the
drawn matplotlib figure is captured just before it is written, so the tests read the real axes.
"""

from __future__ import annotations

import math
import warnings
from pathlib import Path

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

import verify.figures as F  # noqa: E402
from bounds.evidence import Result  # noqa: E402
from verify.audit import audit_figure, audit_row  # noqa: E402
from verify.report import _figure_md  # noqa: E402


@pytest.fixture
def drawn(monkeypatch):
    """Every figure saved through :func:`verify.figures.save_figure`: (stem name, axes scales, overlaps, fig lines)."""
    seen: list[dict] = []
    real = F.save_figure

    def capture(fig, stem, dpi=150):
        F._declutter(fig)
        seen.append({
            "name": Path(stem).name,
            "yscales": [ax.get_yscale() for ax in fig.axes],
            "xscales": [ax.get_xscale() for ax in fig.axes],
            "overlaps": F.tick_label_overlaps(fig),
            "lines": [(ln.get_label(), ln.get_linestyle(), ln.get_markersize(), ln.get_markerfacecolor(),
                       np.asarray(ln.get_xdata(), dtype=float), np.asarray(ln.get_ydata(), dtype=float))
                      for ax in fig.axes for ln in ax.get_lines()],
            "titles": [ax.get_title() for ax in fig.axes],
            "legend": [t.get_text() for ax in fig.axes if ax.get_legend() for t in ax.get_legend().get_texts()],
        })
        return real(fig, stem, dpi)

    monkeypatch.setattr(F, "save_figure", capture)
    return seen


def _sens(key: str, variant: str, stat: float, bound: float, verdict: str = "holds", m: float | None = None,
          lo: float | None = None, hi: float | None = None) -> Result:
    details = {} if m is None else {"m": m}
    return Result(key=key, evidence="empirical", kind="sensitivity", name=variant, verdict=verdict,
                  statistic=stat, lo=stat if lo is None else lo, hi=stat if hi is None else hi, bound=bound,
                  confidence=0.95, n=100, details=details)


def _rate(key: str = "demo.thm1", ms=(1e5, 2e5, 4e5, 8e5, 1.6e6, 3.2e6, 6.4e6), mean=None) -> Result:
    ms = np.asarray(ms, dtype=float)
    mean = 0.04 * (ms / ms[0]) ** -0.8 if mean is None else np.asarray(mean, dtype=float)
    details = {"m": ms.tolist(), "mean": mean.tolist(), "se": (mean * 0.03).tolist(),
               "bound": (1.2 * (ms / ms[0]) ** -0.66).tolist(), "bound_stated": (1.2 * (ms / ms[0]) ** -0.66).tolist()}
    return Result(key=key, evidence="empirical", kind="rate", name="n = 1e5…6.4e6", verdict="holds",
                  statistic=-0.8, lo=-0.85, hi=-0.75, bound=-0.667, confidence=0.95, n=100, details=details)


def _audit_sweep() -> list[Result]:
    rows = []
    for eps in (0.1, 0.2, 0.5, 1.0, 2.0):
        for rel in ("value", "function"):
            for cal in ("stated", "derived"):
                low = (0.0 if eps < 1 else 0.02 * eps * (1 if cal == "stated" else 0.5)) if rel == "value" else 10.1
                r = audit_row("demo.thm1", "laplace", "demo §1", rel, cal, eps, 0.0, low, low * 1.1 + 0.01, 0.95,
                              1000, "violated" if low > eps else "holds", "threshold", "leak")
                r.details["sweep"] = True
                rows.append(r)
    return rows


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.rglob("*")) if p.is_file()}


# --- deterministic files ----------------------------------------------------------------------------

def test_drawing_the_same_figures_twice_gives_byte_identical_png_and_svg(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(F.SVG_ENV, "1")
    emp = [_rate(), *[_sens("demo.thm2", f"m={m}, lam={lam}", 0.1 * lam * m ** -0.5, 1.0, m=m)
                      for m in (50, 200, 800) for lam in (0.1, 1.0)]]
    for d in ("a", "b"):
        out = tmp_path / d / "figures"
        F.rate_figures(emp, out)
        F.sensitivity_figures(emp, out)
        F.overview_figures(emp, out)
        audit_figure(_audit_sweep(), out)
    a, b = _files(tmp_path / "a"), _files(tmp_path / "b")
    assert {Path(n).suffix for n in a} == {".png", ".svg"} and len(a) == 8
    assert a.keys() == b.keys()
    changed = [n for n in a if a[n] != b[n]]
    assert not changed, f"files differ between two identical drawings: {changed}"
    svg = next(v for n, v in a.items() if n.endswith(".svg")).decode()
    assert "<dc:date>" not in svg                       # no time stamp in the SVG


def test_deterministic_context_makes_foreign_savefig_reproducible(tmp_path) -> None:
    import matplotlib.pyplot as plt

    def draw(path: Path) -> bytes:
        with F.deterministic():
            fig, ax = plt.subplots()
            ax.plot([1, 2, 3], [1, 4, 9])
            fig.savefig(path)
            plt.close(fig)
        return path.read_bytes()

    assert draw(tmp_path / "a.svg") == draw(tmp_path / "b.svg")
    assert matplotlib.rcParams["svg.hashsalt"] != F.SVG_HASHSALT       # the context restores the setting


# --- no silent drops, no warnings ----------------------------------------------------------------------

def test_a_zero_bound_and_a_nan_statistic_are_counted_not_dropped_silently(tmp_path, drawn) -> None:
    rows = [_sens("demo.lemma2", f"case {i}", float(i), 0.0 if i < 7 else 1.0) for i in range(9)]
    rows += [_sens("demo.thm5", f"v{i}", math.nan if i < 2 else 0.5 * (i + 1), 2.0) for i in range(10)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")                  # the division by a zero bound used to warn
        refs = F.overview_figures(rows, tmp_path)
    notes = F.figure_notes(refs["demo"])
    assert "demo.lemma2: 7 of 9 points not drawn: bound = 0 (ratio undefined)" in notes
    assert "demo.thm5: 2 of 10 points not drawn: no finite statistic" in notes
    titles = drawn[0]["titles"]
    assert any("7 of 9 points not drawn" in t for t in titles)          # said in the figure too
    md = "\n".join(_figure_md("demo overview", refs["demo"]))
    assert "7 of 9 points not drawn" in md and "2 of 10 points not drawn" in md   # and in the report


def test_sensitivity_results_with_a_zero_bound_are_counted(tmp_path, drawn) -> None:
    rows = [_sens("demo.thm2", f"m={m}", 0.01 * m, 1.0, m=m) for m in (50, 200, 800)]
    rows.append(_sens("demo.thm2", "m=3200", 5.0, 0.0, m=3200))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        refs = F.sensitivity_figures(rows, tmp_path)
    assert "1 of 4 results not drawn: bound = 0 (ratio undefined)" in F.figure_notes(refs["demo.thm2"])


def test_zero_on_a_log_axis_is_marked_on_the_edge(tmp_path, drawn) -> None:
    ref = audit_figure(_audit_sweep(), tmp_path)
    notes = F.figure_notes(ref)
    assert any(n.startswith("value release, stated noise: 3 points at 0 marked ▼") for n in notes), notes
    fig = drawn[-1]
    assert fig["yscales"] == ["log"]
    floor = [ln for ln in fig["lines"] if ln[0].startswith("_") and len(ln[5]) == 3 and np.all(ln[5] < 0.2)]
    assert len(floor) == 2                              # one row of ▼ per series with zeros, in axes units
    assert "▼" in fig["titles"][0]


def test_rate_figure_counts_a_nonpositive_mean_on_a_log_axis(tmp_path) -> None:
    mean = 0.04 * (np.geomspace(1e5, 6.4e6, 7) / 1e5) ** -0.8
    mean[3] = 0.0
    mean[5] = math.nan
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        refs = F.rate_figures([_rate(mean=mean)], tmp_path)
    (ref,) = refs.values()
    assert "mean: 2 of 7 points not drawn: 1 not finite, 1 zero on a log axis" in F.figure_notes(ref) or \
        "mean: 2 of 7 points not drawn: 1 zero on a log axis, 1 not finite" in F.figure_notes(ref)


# --- coincident series -------------------------------------------------------------------------------

def test_identical_series_are_both_visible_and_said_so(tmp_path, drawn) -> None:
    audit_figure(_audit_sweep(), tmp_path)
    lines = {ln[0]: ln for ln in drawn[-1]["lines"]}
    stated = lines["function release, stated noise"]
    derived = next(v for k, v in lines.items() if k.startswith("function release, derived noise ("))
    np.testing.assert_array_equal(stated[5], derived[5])              # same values …
    assert stated[1] != derived[1] and stated[2] > 2 * derived[2]     # … different line style, bigger marker
    assert stated[3] == "none"                                        # hollow under the filled one
    assert any("coincides" in n for n in F.figure_notes(audit_figure(_audit_sweep(), tmp_path)))


# --- scales and ticks -------------------------------------------------------------------------------

@pytest.mark.parametrize("values, scale", [([0.17, 0.25, 0.37], "linear"), ([0.98, 1.0, 1.01], "linear"),
                                           ([0.01, 0.2, 1.0], "log"), ([0.0, 0.02, 10.1], "log"),
                                           ([-0.01, 0.2, 30.0], "linear")])
def test_choose_scale(values, scale) -> None:
    assert F.choose_scale(values) == scale


def test_a_narrow_range_panel_gets_a_linear_axis_and_a_wide_one_log(tmp_path, drawn) -> None:
    rows = [_sens("demo.narrow", f"v{i}", v, 1.0) for i, v in enumerate((0.17, 0.25, 0.31, 0.37))]
    rows += [_sens("demo.wide", f"v{i}", v, 1.0) for i, v in enumerate((1e-4, 1e-3, 0.5))]
    F.overview_figures(rows, tmp_path)
    scales = dict(zip([t.split("\n")[0] for t in drawn[0]["titles"]], drawn[0]["yscales"], strict=False))
    assert scales["demo.narrow"] == "linear" and scales["demo.wide"] == "log"


def test_tick_labels_never_overlap(tmp_path, drawn) -> None:
    rows = [_sens("demo.many", f"v{i}", 10.0 ** -(i % 7), 1.0) for i in range(24)]      # 24 variants, 7 decades
    rows += [_sens("demo.clip", f"v{i}", 1.0, 1.0, lo=1 - 1e-10, hi=1 + 1e-10) for i in range(6)]
    rows += [_sens("demo.thm1", f"m={m}, lam={lam}", 0.1 * lam * (m / 50) ** -0.5, 1.0, m=m)
             for m in (50, 200, 400, 800) for lam in (0.1, 1.0)]
    F.overview_figures(rows, tmp_path)
    F.sensitivity_figures(rows, tmp_path)
    F.rate_figures([_rate()], tmp_path)
    audit_figure(_audit_sweep(), tmp_path)
    assert len(drawn) == 4
    assert [d["overlaps"] for d in drawn] == [0, 0, 0, 0], [(d["name"], d["overlaps"]) for d in drawn]


def test_declutter_removes_a_planted_overlap() -> None:
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot(range(40))
    ax.set_xticks(range(40))
    assert F.tick_label_overlaps(fig) > 0
    F._declutter(fig)
    assert F.tick_label_overlaps(fig) == 0
    plt.close(fig)


# --- titles are never clipped ------------------------------------------------------------------------

@pytest.fixture
def saved(monkeypatch):
    """Every figure as written: the title boxes measured when ``save_figure`` closes it (after both savefigs)."""
    import matplotlib.pyplot as plt

    seen: list[dict] = []
    real = plt.close

    def close(fig=None):
        if fig is not None and hasattr(fig, "canvas"):
            fig.canvas.draw()
            r = fig.canvas.get_renderer()
            canvas = fig.bbox
            titles = [(t.get_text(), t.get_window_extent(r)) for t, _ in F.title_texts(fig)]
            seen.append({"size": tuple(fig.get_size_inches()), "canvas": (canvas.width, canvas.height),
                         "titles": titles})
        return real(fig)

    monkeypatch.setattr(plt, "close", close)
    return seen


def _outside(fig: dict) -> list[str]:
    """The titles whose box is not inside the canvas, computed here from the raw pixel extents."""
    w, h = fig["canvas"]
    return [text for text, bb in fig["titles"] if bb.x0 < 0 or bb.y0 < 0 or bb.x1 > w or bb.y1 > h]


def _clip_cases() -> list[Result]:
    rows = [_sens("onecheck.thm1", "only variant", 0.4, 1.0)]                            # a one-check paper
    rows += [_sens("cmslike.alg1.sensitivity", f"v{i}", 0.2 * (i + 1), 1.0) for i in range(6)]
    rows += [_sens("cmslike.alg1.mean_norm_with_a_long_statement_name", f"v{i}", 1.0 + 0.001 * i, 1.0)
             for i in range(4)]                                                          # two panels
    rows += [_sens(f"many.lemma{k}_{'x' * 12}", f"case {i}", float(i), 0.0 if i < 7 else 1.0)
             for k in range(5) for i in range(9)]                                        # notes in panel titles
    return rows


def test_no_title_is_clipped_by_the_canvas(tmp_path, saved) -> None:
    rate = _rate(key="demo.thm1_2.lasso")
    rate.name = "lasso: n = 100000…6400000, T = ⌈(2nε)^(2/3)⌉, derived scale, a variant name long enough to clip"
    sens = [_sens("demo.statement_with_a_rather_long_key_name.part_two", f"m={m}, lam={lam}", 0.5, 1.0, m=m)
            for m in (50, 200, 800) for lam in (0.1, 1.0)]
    refs = F.overview_figures(_clip_cases(), tmp_path)
    F.rate_figures([rate], tmp_path)
    F.sensitivity_figures(sens, tmp_path)
    assert set(refs) == {"onecheck", "cmslike", "many"} and len(saved) == 5
    assert all(fig["titles"] for fig in saved)
    clipped = [(fig["size"], _outside(fig)) for fig in saved if _outside(fig)]
    assert not clipped, clipped
    for fig in saved:                                       # panel titles side by side do not run into each other
        boxes = [bb for _, bb in fig["titles"]]
        assert not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]), fig["titles"]
    one = next(fig for fig in saved if fig["size"][0] < 4)  # the one-check overview keeps its full suptitle text
    sup = one["titles"][0][0].replace("\n", " ")
    assert sup == "onecheck: every empirical check; x = variant number in the report"   # the marks: the legend


def test_the_title_check_sees_a_clipped_title(tmp_path, saved, monkeypatch) -> None:
    monkeypatch.setattr(F, "fit_titles", lambda fig, rounds=8, fresh=False: None)     # the drawing without title fitting
    F.overview_figures(_clip_cases()[:1], tmp_path)
    assert _outside(saved[0]), saved[0]["titles"]          # the suptitle of a one-panel figure runs off the canvas


def test_wrap_title_keeps_math_whole_and_every_word() -> None:
    text = "a b $x + y = z$ ccc dddd eeeee\nsecond line"
    wrapped = F.wrap_title(text, 6)
    assert "$x + y = z$" in wrapped.split("\n")
    assert wrapped.replace("\n", " ").split() == text.replace("\n", " ").split()


# --- the title fitting's layout passes (issue 27: one pass for a figure whose titles fit) ----------

def _panels_figure():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 3, figsize=(7, 4), constrained_layout=True)
    for i, ax in enumerate(axes.ravel()):
        ax.plot(np.arange(1, 30), np.geomspace(1e-3, 10 ** i, 29), "o-")
        ax.set_yscale("log")
        ax.set_title(f"panel {i}: a title long enough to need wrapping in a narrow panel", fontsize=8)
    fig.suptitle("a figure of six panels")
    return fig


def test_layout_pass_measures_what_a_full_draw_measures() -> None:
    import matplotlib.pyplot as plt

    def extents(fig, r):
        boxes = [t.get_window_extent(r).bounds for t, _ in F.title_texts(fig)]
        boxes += [ax.get_position().bounds for ax in fig.axes]
        boxes += [t.get_window_extent(r).bounds for ax in fig.axes for t in ax.get_yticklabels() if t.get_text()]
        return boxes

    a, b = _panels_figure(), _panels_figure()
    F.layout_pass(a)
    b.canvas.draw()
    assert extents(a, a.canvas.get_renderer()) == extents(b, b.canvas.get_renderer())
    plt.close(a)
    plt.close(b)


def test_a_figure_whose_titles_fit_is_laid_out_once_before_saving(tmp_path, monkeypatch) -> None:
    """save_figure: one layout pass when nothing needs wrapping or thinning, then the two savefigs."""
    import matplotlib.pyplot as plt

    passes = []
    real = F.layout_pass
    monkeypatch.setattr(F, "layout_pass", lambda fig: (passes.append(1), real(fig))[1])
    fig, ax = plt.subplots(figsize=(5, 3), constrained_layout=True)
    ax.plot([1, 2, 3], [1, 4, 9])
    ax.set_title("short")
    F.save_figure(fig, tmp_path / "one")
    assert len(passes) == 1
    passes.clear()
    fig = _panels_figure()                              # titles to wrap: a pass per round, until they fit
    F.save_figure(fig, tmp_path / "six")
    assert len(passes) > 1


def test_fitting_from_a_fresh_layout_wraps_as_from_scratch() -> None:
    """``fresh=True`` after a layout pass gives the titles that a fit starting with its own pass gives."""
    import matplotlib.pyplot as plt

    a, b = _panels_figure(), _panels_figure()
    F.fit_titles(a)
    F.layout_pass(b)
    F.fit_titles(b, fresh=True)
    assert [t.get_text() for t, _ in F.title_texts(a)] == [t.get_text() for t, _ in F.title_texts(b)]
    assert any("\n" in t.get_text() for t, _ in F.title_texts(a))
    assert F.title_overflows(a) == [] and F.title_collisions(a) == 0
    plt.close(a)
    plt.close(b)


def test_svg_is_opt_in_and_the_png_does_not_depend_on_it(tmp_path, monkeypatch) -> None:
    import matplotlib.pyplot as plt

    def draw(stem: Path) -> list[Path]:
        fig, ax = plt.subplots(constrained_layout=True)
        ax.plot([1, 10, 100], [3, 1, 2])
        ax.set_title("a title long enough to be wrapped when the figure is narrow " * 2)
        return F.save_figure(fig, stem)

    monkeypatch.delenv(F.SVG_ENV, raising=False)
    plain = draw(tmp_path / "plain")
    assert [p.suffix for p in plain] == [".png"] and not (tmp_path / "plain.svg").exists()
    monkeypatch.setenv(F.SVG_ENV, "1")
    both = draw(tmp_path / "both")
    assert [p.suffix for p in both] == [".png", ".svg"] and both[1].read_bytes().startswith(b"<?xml")
    assert plain[0].read_bytes() == both[0].read_bytes()      # the PNG is the same with or without the SVG
