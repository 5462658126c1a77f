"""Figures of the report (matplotlib, Agg backend; PNG, and SVG on request: :func:`svg_wanted`).

Rate figures: for every ``rate`` result, the empirical mean per m and its
confidence band, the bound's curve (stated and derived when the check recorded
them), the fitted slope and the claimed slope through the middle point.  A rate
result's ``details`` must carry ``m`` and ``mean`` (lists); ``se`` (standard
errors), ``bound`` / ``bound_stated`` (bound values per m) and ``quantity``
(axis label) are drawn when present.

Rules every figure here follows (and :func:`verify.audit.audit_figure` too):

* **Scales fit the data** (:func:`choose_scale`): an axis is logarithmic only
  when its finite positive values span more than a factor of 10 and none is
  negative; otherwise it is linear.  Tick labels cannot overlap: minor ticks
  of a log axis carry no label, few distinct x values are labelled directly,
  many get a bounded number of ticks.
* **No silent drops** (:func:`drawable`): a point that cannot be drawn (not
  finite, zero or negative on a log axis, a ratio to a zero bound) is counted,
  the count is written into the figure (second title line) and returned as a
  note (:class:`FigureRef`) that the report prints under the figure.  A zero on
  a log axis is not dropped but marked with ▼ on the bottom edge
  (:func:`mark_zeros`).
* **No hidden series** (:func:`coincident`): a series whose values equal an
  earlier one's is drawn dashed with small filled markers over the earlier
  one's large hollow markers, and the legend says which it coincides with.
* **Deterministic files** (:func:`save_figure`): a fixed ``svg.hashsalt``, no
  date in the SVG and no software tag in the PNG, so an unchanged result gives
  byte-identical files.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

#: the salt of the SVG element ids (matplotlib draws a random one otherwise)
SVG_HASHSALT = "dp-erm-verify"
#: a positive range wider than this factor gets a log axis
WIDE = 10.0
#: at most this many distinct x values are labelled one by one
MAX_DIRECT_TICKS = 8


class FigureRef(str):
    """Path of a figure's PNG (relative to the report) that also carries the figure's notes.

    A plain ``str`` everywhere a path is expected; ``notes`` are the sentences
    the report prints under the figure (points that could not be drawn, zeros
    marked on a log axis, series that coincide).

    Examples
    --------
    >>> ref = FigureRef("figures/a.png", ["2 of 5 points not drawn (bound = 0)"])
    >>> ref == "figures/a.png", ref.notes
    (True, ('2 of 5 points not drawn (bound = 0)',))
    >>> import pickle; pickle.loads(pickle.dumps(ref)).notes
    ('2 of 5 points not drawn (bound = 0)',)
    """

    notes: tuple[str, ...]

    def __new__(cls, path: str, notes: Sequence[str] = ()) -> FigureRef:
        obj = super().__new__(cls, path)
        obj.notes = tuple(notes)
        return obj

    def __reduce__(self) -> tuple[Any, ...]:
        return (FigureRef, (str(self), self.notes))


def figure_notes(ref: Any) -> tuple[str, ...]:
    """The notes of a figure path (empty for a plain string).

    Examples
    --------
    >>> figure_notes("figures/a.png"), figure_notes(FigureRef("x.png", ["n"]))
    ((), ('n',))
    """
    return tuple(getattr(ref, "notes", ()))


def _slug(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", s).strip("_")[:80]


# ---------------------------------------------------------------------------
# scales, drops, coincident series, deterministic files
# ---------------------------------------------------------------------------

def choose_scale(values: Any, wide: float = WIDE) -> str:
    """``"log"`` when the finite positive values span more than ``wide`` and none is negative, else ``"linear"``.

    Zeros do not decide the scale (a log axis marks them on its edge, :func:`mark_zeros`).

    Examples
    --------
    >>> choose_scale([0.17, 0.25, 0.37])
    'linear'
    >>> choose_scale([1e-3, 0.5, 2.0])
    'log'
    >>> choose_scale([0.0, 0.01, 10.0]), choose_scale([-1.0, 0.01, 10.0]), choose_scale([])
    ('log', 'linear', 'linear')
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    if v.size == 0 or np.any(v < 0):
        return "linear"
    pos = v[v > 0]
    if pos.size < 2:
        return "linear"
    return "log" if pos.max() / pos.min() > wide else "linear"


def drawable(values: Any, scale: str = "linear", zero_ok: bool = False) -> tuple[np.ndarray, Counter[str]]:
    """Which points can be drawn on an axis of this scale, and why the others cannot.

    Parameters
    ----------
    values : array_like
        The coordinates.
    scale : {"linear", "log"}
    zero_ok : bool
        On a log axis, count zeros as drawable (the caller marks them with :func:`mark_zeros`).

    Returns
    -------
    mask : ndarray of bool
    reasons : Counter
        Reason → number of points not drawable (``not finite``, ``zero on a log axis``,
        ``negative on a log axis``).

    Examples
    --------
    >>> mask, why = drawable([1.0, 0.0, float("nan"), -2.0], "log")
    >>> mask.tolist(), dict(why)
    ([True, False, False, False], {'zero on a log axis': 1, 'negative on a log axis': 1, 'not finite': 1})
    >>> drawable([1.0, 0.0], "linear")[0].tolist()
    [True, True]
    """
    v = np.asarray(values, dtype=float)
    finite = np.isfinite(v)
    why: Counter[str] = Counter()
    mask = finite.copy()
    if scale == "log":
        with np.errstate(invalid="ignore"):
            zero = finite & (v == 0)
            neg = finite & (v < 0)
        if not zero_ok:
            mask &= ~zero
            if zero.any():
                why["zero on a log axis"] += int(zero.sum())
        mask &= ~neg
        if neg.any():
            why["negative on a log axis"] += int(neg.sum())
    if (~finite).any():
        why["not finite"] += int((~finite).sum())
    return mask, why


def safe_ratio(num: Any, den: Any) -> tuple[np.ndarray, Counter[str]]:
    """``num / den`` elementwise without a division warning; NaN where it is undefined, with the reasons.

    Examples
    --------
    >>> r, why = safe_ratio([1.0, 2.0, float("nan"), 3.0], [2.0, 0.0, 1.0, float("inf")])
    >>> r.tolist()[0], dict(why)
    (0.5, {'bound = 0 (ratio undefined)': 1, 'no finite statistic': 1, 'bound not finite': 1})
    """
    n = np.asarray(num, dtype=float)
    d = np.asarray(den, dtype=float)
    ok = np.isfinite(n) & np.isfinite(d) & (d != 0)
    out = np.full(np.broadcast(n, d).shape, np.nan)
    np.divide(n, d, out=out, where=ok)
    why: Counter[str] = Counter()
    zero = np.isfinite(d) & (d == 0)
    if zero.any():
        why["bound = 0 (ratio undefined)"] += int(zero.sum())
    bad_n = ~np.isfinite(n) & ~zero
    if bad_n.any():
        why["no finite statistic"] += int(bad_n.sum())
    bad_d = ~np.isfinite(d) & np.isfinite(n)
    if bad_d.any():
        why["bound not finite"] += int(bad_d.sum())
    return out, why


def drop_note(what: str, total: int, why: Counter[str]) -> str:
    """One sentence for the points of ``what`` that were not drawn (empty when none was dropped).

    Examples
    --------
    >>> from collections import Counter
    >>> drop_note("points", 9, Counter({"bound = 0 (ratio undefined)": 7}))
    '7 of 9 points not drawn: bound = 0 (ratio undefined)'
    >>> drop_note("points", 3, Counter())
    ''
    """
    n = sum(why.values())
    if not n:
        return ""
    reasons = ", ".join(f"{k}" if c == n else f"{c} {k}" for k, c in sorted(why.items(), key=lambda kv: -kv[1]))
    return f"{n} of {total} {what} not drawn: {reasons}"


def coincident(series: Sequence[tuple[Any, Any]], rtol: float = 1e-9) -> list[int | None]:
    """For each ``(x, y)`` series, the index of an earlier series with the same points (None if none).

    Examples
    --------
    >>> coincident([([1, 2], [3.0, 4.0]), ([1, 2], [3.0, 4.0]), ([1, 2], [3.0, 5.0])])
    [None, 0, None]
    """
    out: list[int | None] = []
    arrs = [(np.asarray(x, dtype=float), np.asarray(y, dtype=float)) for x, y in series]
    for i, (x, y) in enumerate(arrs):
        hit = None
        for j in range(i):
            x2, y2 = arrs[j]
            if (x.shape == x2.shape and y.shape == y2.shape and y.size and np.array_equal(x, x2)
                    and np.allclose(y, y2, rtol=rtol, atol=0.0, equal_nan=True)):
                hit = j if out[j] is None else out[j]
                break
        out.append(hit)
    return out


def _number_label(v: float) -> str:
    if v == 0:
        return "0"
    if 1e-3 <= abs(v) < 1e5:
        return f"{v:g}"
    e = int(math.floor(math.log10(abs(v))))
    mant = v / 10**e
    return f"$10^{{{e}}}$" if abs(mant - 1) < 1e-9 else f"${mant:.3g}\\times10^{{{e}}}$"


def fit_axis(ax: Any, which: str, values: Any, scale: str | None = None, direct: Sequence[float] | None = None,
             labelsize: float | None = None) -> str:
    """Set the scale of one axis from its data (:func:`choose_scale`) and ticks whose labels cannot overlap.

    ``direct``: the distinct data positions to label one by one when there are at most
    :data:`MAX_DIRECT_TICKS` of them (sample sizes m); otherwise a bounded number of ticks is chosen.
    Minor ticks of a log axis carry no label.  Returns the scale.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> fit_axis(ax, "y", [0.17, 0.37]), fit_axis(ax, "x", [50, 200, 800], direct=[50, 200, 800])
    ('linear', 'log')
    >>> [t.get_text() for t in ax.get_xticklabels()]
    ['50', '200', '800']
    >>> plt.close(fig)
    """
    from matplotlib import ticker

    scale = scale or choose_scale(values)
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)(scale)
    pos = None
    if direct is not None:
        d = np.unique(np.asarray([v for v in direct if np.isfinite(v) and (scale != "log" or v > 0)], dtype=float))
        if 0 < d.size <= MAX_DIRECT_TICKS:
            pos = d
    if pos is not None:
        axis.set_major_locator(ticker.FixedLocator(pos))
        axis.set_major_formatter(ticker.FixedFormatter([_number_label(float(v)) for v in pos]))
        axis.set_minor_formatter(ticker.NullFormatter())
    elif scale == "log":
        v = np.asarray(values, dtype=float).ravel()
        v = v[np.isfinite(v) & (v > 0)]
        if v.size and v.max() / v.min() < 1e3:      # under three decades: 1-2-5 ticks in plain numbers
            axis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0), numticks=12))
            axis.set_major_formatter(ticker.FuncFormatter(lambda x, _: _number_label(x)))
        else:
            axis.set_major_locator(ticker.LogLocator(base=10, numticks=6))
            axis.set_major_formatter(ticker.LogFormatterSciNotation())
        axis.set_minor_locator(ticker.LogLocator(base=10, subs=np.arange(2, 10) * 0.1, numticks=12))
        axis.set_minor_formatter(ticker.NullFormatter())
    else:
        axis.set_major_locator(ticker.MaxNLocator(nbins=6, min_n_ticks=3))
        fmt = ticker.ScalarFormatter(useMathText=True, useOffset=False)
        fmt.set_powerlimits((-3, 4))
        axis.set_major_formatter(fmt)
    if labelsize is not None:
        ax.tick_params(axis=which, which="both", labelsize=labelsize)
    return scale


def include_in_view(ax: Any, values: Sequence[float], rel_span: float = 0.02) -> None:
    """Widen the y limits to show ``values`` (a reference line) and to span at least ``rel_span`` of their size.

    A linear axis around values that differ by 10⁻¹⁰ would otherwise zoom in on rounding noise.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); _ = ax.plot([1, 2], [1.0, 1.0 + 1e-10]); include_in_view(ax, [1.0])
    >>> lo, hi = ax.get_ylim(); bool(hi - lo >= 0.02)
    True
    >>> plt.close(fig)
    """
    lo, hi = ax.get_ylim()
    vals = [v for v in values if np.isfinite(v) and (ax.get_yscale() != "log" or v > 0)]
    if vals:
        lo, hi = min(lo, *vals), max(hi, *vals)
    if ax.get_yscale() == "log":
        ax.set_ylim(lo / 1.15, hi * 1.15)
        return
    size = max(abs(lo), abs(hi))
    if hi - lo < rel_span * size:
        mid = (lo + hi) / 2
        lo, hi = mid - rel_span * size / 2, mid + rel_span * size / 2
    pad = 0.06 * (hi - lo)
    ax.set_ylim(lo - pad, hi + pad)


def integer_ticks(ax: Any, n: int, labelsize: float = 6, nbins: int = 8) -> None:
    """x ticks for points numbered 1..n: every number when few, else at most ``nbins`` integer ticks.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); integer_ticks(ax, 24)
    >>> len(ax.get_xticks()) <= 9
    True
    >>> plt.close(fig)
    """
    from matplotlib import ticker

    ax.set_xlim(0.4, n + 0.6)
    if n <= nbins:
        ax.xaxis.set_major_locator(ticker.FixedLocator(np.arange(1, n + 1)))
    else:
        ax.xaxis.set_major_locator(ticker.MaxNLocator(nbins=nbins, integer=True, min_n_ticks=2))
    ax.xaxis.set_major_formatter(ticker.FormatStrFormatter("%d"))
    ax.tick_params(axis="x", which="both", labelsize=labelsize)


def mark_zeros(ax: Any, x: Any, row: int = 0, **style: Any) -> int:
    """Mark points whose value 0 cannot sit on a log y axis: ▼ on the bottom edge (one row per series).

    Returns the number of markers drawn.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); ax.set_yscale("log")
    >>> mark_zeros(ax, [1.0, 2.0], color="C0")
    2
    >>> plt.close(fig)
    """
    import matplotlib.transforms as mtransforms

    x = np.asarray(x, dtype=float)
    if x.size == 0:
        return 0
    tr = mtransforms.blended_transform_factory(ax.transData, ax.transAxes)
    style = {"marker": "v", "ms": 6, "ls": "none", "clip_on": False, "zorder": 4, **style}
    ax.plot(x, np.full(x.shape, 0.025 + 0.045 * row), transform=tr, **style)
    return int(x.size)


def _floor_band(ax: Any, rows: int) -> None:
    """Lower a log y axis so that ``rows`` rows of ▼ markers (:func:`mark_zeros`) sit below every data point."""
    lo, hi = ax.get_ylim()
    frac = 0.05 + 0.045 * rows               # share of the axis height kept free at the bottom
    ax.set_ylim(lo / (hi / lo) ** (frac / (1 - frac)), hi)


def _title_notes(notes: Sequence[str], width: int = 90) -> list[str]:
    """The notes for a title line: coincidences are told by the legend; long notes shortened."""
    return [n if len(n) <= width else n[: width - 1] + "…" for n in notes if "coincides" not in n]


def title_with_note(ax: Any, title: str, notes: Sequence[str], fontsize: float = 9) -> None:
    """The axes title, with the figure's notes on further lines (what a reader must know to read it)."""
    lines = [title] + [n for n in notes if n]
    ax.set_title("\n".join(lines), fontsize=fontsize)


# ---------------------------------------------------------------------------
# titles that fit: wrapped to the canvas (and to their panel), never clipped
# ---------------------------------------------------------------------------

#: smallest font size a title is shrunk to when a single word is wider than its room
MIN_TITLE_FONTSIZE = 5.0
#: room kept free at the left and right edge of the canvas, in points
TITLE_MARGIN_PT = 3.0


def title_texts(fig: Any) -> list[tuple[Any, Any]]:
    """Every non-empty visible title of ``fig``: ``(text artist, axes or None for the suptitle)``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); _ = ax.set_title("a"); _ = fig.suptitle("b")
    >>> [(t.get_text(), a is None) for t, a in title_texts(fig)]
    [('b', True), ('a', False)]
    >>> plt.close(fig)
    """
    out: list[tuple[Any, Any]] = []
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_visible() and sup.get_text():
        out.append((sup, None))
    for ax in fig.axes:
        for t in (ax.title, getattr(ax, "_left_title", None), getattr(ax, "_right_title", None)):
            if t is not None and t.get_visible() and t.get_text():
                out.append((t, ax))
    return out


def title_overflows(fig: Any) -> list[str]:
    """The titles of ``fig`` whose drawn box is not inside the canvas (drawn on Agg); empty when all fit.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 2)); _ = ax.set_title("a title far too long for a small figure")
    >>> len(title_overflows(fig))
    1
    >>> _ = fit_titles(fig); title_overflows(fig)
    []
    >>> plt.close(fig)
    """
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    W, H = fig.bbox.width, fig.bbox.height
    bad = []
    for t, _ in title_texts(fig):
        bb = t.get_window_extent(renderer)
        if bb.x0 < -0.5 or bb.y0 < -0.5 or bb.x1 > W + 0.5 or bb.y1 > H + 0.5:
            bad.append(t.get_text())
    return bad


def title_collisions(fig: Any) -> int:
    """Number of pairs of titles of ``fig`` whose drawn boxes overlap (panel titles side by side)."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t, _ in title_texts(fig)]
    return sum(1 for i, a in enumerate(boxes) for b in boxes[i + 1:] if a.overlaps(b))


def wrap_title(text: str, width: int) -> str:
    """Wrap each line of ``text`` at spaces to at most ``width`` characters; ``$…$`` math is never split.

    Examples
    --------
    >>> print(wrap_title("jamp.thm2: excess risk at eps 0.5 and $\\\\lambda = m^{-1/2}$", 24))
    jamp.thm2: excess risk
    at eps 0.5 and
    $\\lambda = m^{-1/2}$
    """
    import textwrap

    out = []
    for line in text.split("\n"):
        parts = re.split(r"(\$[^$]*\$)", line)
        glued = "".join(p.replace(" ", "\0") if p.startswith("$") and p.endswith("$") and len(p) > 1 else p
                        for p in parts)
        wrapped = textwrap.wrap(glued, width=max(width, 1), break_long_words=False, break_on_hyphens=False) or [""]
        out += [w.replace("\0", " ") for w in wrapped]
    return "\n".join(out)


def layout_pass(fig: Any) -> Any:
    """Lay ``fig`` out as a draw on Agg does (ticks, text extents, the layout engine) without rasterising.

    Every measurement of the title fitting and the tick decluttering needs the positions a draw
    computes, not its pixels: the artists are drawn with the renderer's drawing calls disabled,
    which sets the same state as ``fig.canvas.draw()`` at a fraction of its cost.  Returns the
    canvas's renderer (the one :meth:`~matplotlib.text.Text.get_window_extent` is measured with).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(constrained_layout=True); _ = ax.set_title("a")
    >>> r = layout_pass(fig); a = ax.title.get_window_extent(r).bounds
    >>> fig.canvas.draw(); ax.title.get_window_extent(r).bounds == a
    True
    >>> plt.close(fig)
    """
    renderer = fig.canvas.get_renderer()
    disabled = getattr(renderer, "_draw_disabled", None)
    if disabled is None:                                 # a matplotlib without it: a full draw
        fig.canvas.draw()
        return renderer
    with disabled():
        fig.draw(renderer)
    return renderer


def fit_titles(fig: Any, rounds: int = 8, fresh: bool = False) -> bool:
    """Wrap (and if need be shrink) every title so that it lies inside the canvas and within its panel.

    A suptitle may use the width of the canvas; an axes title the width of its axes when the figure
    has several titled panels (so that neighbouring titles never collide), else the canvas.  A
    title wider than its room is re-wrapped at spaces from its original text (math kept whole);
    a single word still too wide shrinks the font, down to :data:`MIN_TITLE_FONTSIZE`.  The layout
    engine makes room for the extra lines (a figure without one that a title would leave at the top
    gets constrained layout).

    The figure is laid out (:func:`layout_pass`) once per round; a figure whose titles fit costs one
    pass.  ``fresh``: the figure was laid out by the caller and not changed since, so the first
    round measures it as it is.  Returns whether the figure is still laid out as it is now (no
    change after the last pass), which a following step may pass on as its ``fresh``.
    """
    renderer = fig.canvas.get_renderer()
    margin = TITLE_MARGIN_PT * fig.dpi / 72.0
    changed = False
    for r in range(rounds):
        if not (fresh and r == 0):
            renderer = layout_pass(fig)
        W = fig.bbox.width
        titled = {id(ax) for _, ax in title_texts(fig) if ax is not None}
        changed = False
        for t, ax in title_texts(fig):
            bb = t.get_window_extent(renderer)
            lo, hi = margin, W - margin
            if ax is not None and len(titled) > 1:        # panels side by side: a title within its panel
                ab = ax.get_window_extent(renderer)
                lo, hi = max(lo, ab.x0), min(hi, ab.x1)
            ha = t.get_horizontalalignment()
            if ha == "left":
                room = hi - bb.x0
            elif ha == "right":
                room = bb.x1 - lo
            else:
                c = 0.5 * (bb.x0 + bb.x1)
                room = 2 * min(c - lo, hi - c)
            if bb.width <= room + 0.5 and bb.x0 >= -0.5 and bb.x1 <= W + 0.5:
                continue
            original = getattr(t, "_fit_original", None)
            if original is None:
                original = t.get_text()
                t._fit_original = original
            longest = max(len(line) for line in t.get_text().split("\n")) or 1
            chars = int(longest * max(room, 1.0) / max(bb.width, 1.0) * 0.97)
            text = wrap_title(original, chars)
            if text != t.get_text():
                t.set_text(text)
                changed = True
            elif t.get_fontsize() > MIN_TITLE_FONTSIZE:
                t.set_fontsize(max(MIN_TITLE_FONTSIZE, t.get_fontsize() * 0.9))
                changed = True
        if not changed:
            break
    fresh = not changed if rounds > 0 else fresh
    if fig.get_layout_engine() is not None:
        return fresh
    if not fresh:
        renderer = layout_pass(fig)
    H = fig.bbox.height
    if any(
            t.get_window_extent(renderer).y1 > H + 0.5 or t.get_window_extent(renderer).y0 < -0.5
            for t, _ in title_texts(fig)):
        fig.set_layout_engine("constrained")        # make room for the wrapped lines
        return False
    return True


@contextlib.contextmanager
def deterministic() -> Iterator[None]:
    """Context in which matplotlib writes reproducible files: fixed ``svg.hashsalt`` and ``SOURCE_DATE_EPOCH``.

    For figures drawn by code that calls ``savefig`` itself (the utility figure); :func:`save_figure`
    needs no context.

    Examples
    --------
    >>> import matplotlib
    >>> with deterministic():
    ...     matplotlib.rcParams["svg.hashsalt"] == SVG_HASHSALT
    True
    """
    import matplotlib

    before = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = "0"
    try:
        with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT}):
            yield
    finally:
        if before is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = before


def _label_boxes(fig: Any, axis: Any) -> list[Any]:
    """Window extents of the visible tick labels, padded by 0.03 inch so that touching labels count."""
    renderer = fig.canvas.get_renderer()
    pad = 0.015 * fig.dpi
    return [t.get_window_extent(renderer).padded(pad) for t in axis.get_ticklabels(which="both")
            if t.get_visible() and t.get_text()]


def tick_label_overlaps(fig: Any) -> int:
    """Number of pairs of tick labels that overlap, over every axis of the figure (drawn on Agg).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(figsize=(2, 2)); _ = ax.plot(range(30)); _ = ax.set_xticks(range(30))
    >>> tick_label_overlaps(fig) > 0
    True
    >>> _ = _declutter(fig); tick_label_overlaps(fig)
    0
    >>> plt.close(fig)
    """
    fig.canvas.draw()
    n = 0
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            boxes = _label_boxes(fig, axis)
            for i, a in enumerate(boxes):
                n += sum(1 for b in boxes[i + 1:] if a.overlaps(b))
    return n


def _declutter(fig: Any, rounds: int = 6, fresh: bool = False) -> bool:
    """Thin the tick labels of every axis whose labels overlap (every 2nd, 3rd, … label kept).

    One layout pass (:func:`layout_pass`) per round; ``fresh``: the figure is laid out as it is
    (the first round measures it without a pass).  Returns whether it still is (no change after the
    last pass).
    """
    from matplotlib import ticker

    for r in range(rounds):
        if not (fresh and r == 0):
            layout_pass(fig)
        clean = True
        for ax in fig.axes:
            for axis in (ax.xaxis, ax.yaxis):
                boxes = _label_boxes(fig, axis)
                if not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1:]):
                    continue
                clean = False
                axis.set_minor_formatter(ticker.NullFormatter())
                every = [float(v) for v in axis.get_majorticklocs()]
                fmt = axis.get_major_formatter()
                fmt.set_locs(every)
                labels = {v: fmt(v, i) for i, v in enumerate(every)}
                lo, hi = sorted(axis.get_view_interval())
                locs = [v for v in every if lo <= v <= hi]
                step = getattr(axis, "_declutter_step", 1) + 1
                axis._declutter_step = step
                keep = locs[::step]
                axis.set_major_locator(ticker.FixedLocator(keep))
                axis.set_major_formatter(ticker.FixedFormatter([labels[v] for v in keep]))
        if clean:
            return True
    return False


#: the environment variable that asks for SVG copies of the figures (``1``, ``yes``, ``on`` or ``true``)
SVG_ENV = "DP_ERM_VERIFY_SVG"


def svg_wanted() -> bool:
    """Whether figures are also written as SVG (``$DP_ERM_VERIFY_SVG`` set to 1/yes/on/true; default: PNG only).

    Nothing of the report reads the SVG files (``REPORT.md`` and ``index.html`` show the PNGs), and
    writing them was a third of the figures' CPU (10.4 of 30.9 s of a cold run), so they are opt-in.

    Examples
    --------
    >>> import os
    >>> os.environ.pop(SVG_ENV, None) and None; svg_wanted()
    False
    """
    return os.environ.get(SVG_ENV, "").strip().lower() in ("1", "yes", "on", "true")


#: figures kept after saving, by PNG path, while :func:`keep_figures` is active (tests read axis scales and legends)
_KEPT: dict[str, Any] | None = None


@contextlib.contextmanager
def keep_figures() -> Iterator[dict[str, Any]]:
    """Keep every figure :func:`save_figure` writes (PNG path → the closed matplotlib Figure) in the yielded dict.

    The figures stay readable after closing (axis scales, legend texts, titles), so a test can check
    what a figure shows without reading pixels.

    Examples
    --------
    >>> import tempfile, matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> with keep_figures() as kept:
    ...     fig, ax = plt.subplots(); ax.set_xscale("log")
    ...     _ = save_figure(fig, Path(tempfile.mkdtemp()) / "a")
    >>> [f.axes[0].get_xscale() for f in kept.values()]
    ['log']
    """
    global _KEPT
    before, _KEPT = _KEPT, {}
    try:
        yield _KEPT
    finally:
        _KEPT = before


def save_figure(fig: Any, stem: Path, dpi: int = 150, svg: bool | None = None) -> list[Path]:
    """Write ``stem.png`` (and ``stem.svg`` when ``svg``) reproducibly (byte-identical for the same figure) and close it.

    ``svg``: also the SVG (default: :func:`svg_wanted`).  The PNG is written first and does not
    depend on whether the SVG is.  Returns the paths, PNG first.

    Examples
    --------
    >>> import tempfile, matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> d = Path(tempfile.mkdtemp())
    >>> def draw(name):
    ...     fig, ax = plt.subplots(); ax.plot([1, 2], [3, 4])
    ...     return [p.read_bytes() for p in save_figure(fig, d / name)]
    >>> draw("a") == draw("b")
    True
    """
    import matplotlib
    import matplotlib.pyplot as plt

    stem = Path(stem)
    out = [stem.with_suffix(".png"), stem.with_suffix(".svg")]
    if not (svg_wanted() if svg is None else svg):
        out = out[:1]
    fresh = bool(fit_titles(fig))                     # each step starts from the last one's layout pass
    fresh = _declutter(fig, fresh=fresh)
    fit_titles(fig, fresh=fresh)
    with matplotlib.rc_context({"svg.hashsalt": SVG_HASHSALT}):
        fig.savefig(out[0], dpi=dpi, metadata={"Software": None})
        if len(out) > 1:
            fig.savefig(out[1], metadata={"Date": None})
    plt.close(fig)
    if _KEPT is not None:
        _KEPT[str(out[0])] = fig
    return out


def plot_series(ax: Any, series: Sequence[dict[str, Any]], yscale: str) -> list[str]:
    """Draw line series so that none hides another, with zeros marked on a log axis; returns the notes.

    Each series is a dict with ``x``, ``y``, ``label``, ``color``, ``marker`` and optionally ``ls``.
    Points that cannot be drawn are counted per series; a series equal to an earlier one is drawn
    dashed with small filled markers over the earlier one's large hollow markers, its legend entry
    says so, and so does a note.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots(); ax.set_yscale("log")
    >>> s = [dict(x=[1, 2, 3], y=[1.0, 0.0, 2.0], label="a", color="C0", marker="o"),
    ...      dict(x=[1, 2, 3], y=[1.0, 0.0, 2.0], label="b", color="C1", marker="s")]
    >>> for n in plot_series(ax, s, "log"): print(n)
    a: 1 point at 0 marked ▼ on the bottom edge (0 has no place on a log axis)
    b: 1 point at 0 marked ▼ on the bottom edge (0 has no place on a log axis)
    b coincides with a: drawn dashed with small filled markers over a's hollow ones
    >>> plt.close(fig)
    """
    notes: list[str] = []
    same = coincident([(s["x"], s["y"]) for s in series])
    hollow = {j for j in same if j is not None}
    zero_row = 0
    for i, s in enumerate(series):
        x = np.asarray(s["x"], dtype=float)
        y = np.asarray(s["y"], dtype=float)
        mask, why = drawable(y, yscale, zero_ok=True)
        xm, why_x = drawable(x, ax.get_xscale())
        mask &= xm
        zeros = mask & (y == 0) if yscale == "log" else np.zeros(mask.shape, dtype=bool)
        line = mask & ~zeros
        label = s["label"]
        style: dict[str, Any] = {"color": s["color"], "marker": s.get("marker", "o"), "ls": s.get("ls", "-")}
        if same[i] is not None:
            other = series[same[i]]["label"]
            label = f"{label} (= {other})" if len(other) <= 24 else f"{label} (same values: dashed)"
            style.update(ls="--", ms=3.5, lw=1.2, zorder=3)
        elif i in hollow:
            style.update(ms=9, mfc="none", mew=1.5, lw=2.2, zorder=2)
        ax.plot(x[line], y[line], label=label, **style)
        if zeros.any():
            mark_zeros(ax, x[zeros], row=zero_row, color=s["color"], mfc="none" if i in hollow else s["color"])
            zero_row += 1
            k = int(zeros.sum())
            notes.append(f"{s['label']}: {k} point{'s' if k > 1 else ''} at 0 marked ▼ on the bottom edge "
                         "(0 has no place on a log axis)")
        if same[i] is not None:
            other = series[same[i]]["label"]
            notes.append(f"{s['label']} coincides with {other}: drawn dashed with small filled markers over "
                         f"{other}'s hollow ones")
        if (~mask).any():
            why.update({f"x {k}": c for k, c in why_x.items()})
            notes.append(f"{s['label']}: " + drop_note("points", y.size, why))
    if zero_row:
        _floor_band(ax, zero_row)
    return notes


# ---------------------------------------------------------------------------
# rate figures
# ---------------------------------------------------------------------------

def rate_series(details: dict[str, Any]) -> dict[str, Any] | None:
    """Normalise a rate result's per-m data to ``m, mean, se, bound, bound_stated, extra, x_label``.

    Accepts ``m``/``mean`` lists (optionally ``se``, ``bound``, ``bound_stated``), a ``per_m``
    list of row dicts (``m, mean, se, bound_derived, bound_stated``) or ``T``/``mean`` lists
    for the online algorithm (with ``mean_error_lower_bound`` drawn as an extra curve).
    A missing value (None) in a bound or ``se`` list becomes NaN: it is counted as not drawn.

    Examples
    --------
    >>> d = rate_series({"per_m": [{"m": 10, "mean": 1.0, "bound_derived": 2.0},
    ...                            {"m": 20, "mean": 0.5, "bound_derived": None}]})
    >>> d["m"], d["bound"]
    ([10, 20], [2.0, nan])
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
        if d.get(k) is not None:
            vals = [math.nan if v is None else v for v in d[k]]
            d[k] = None if all(isinstance(v, float) and math.isnan(v) for v in vals) else vals
    return d


def loglog_scale(values: Any) -> str:
    """The scale of a rate figure's axis: ``log`` when at least two of its values are positive, else ``linear``.

    A rate is a log-log slope, a straight line only on log axes, so a rate figure draws log axes
    whatever the span of its data (:func:`choose_scale` would pick a linear axis for a narrow one);
    a zero or negative value is counted as not drawn (zeros marked ▼), never a reason for a linear axis.

    Examples
    --------
    >>> loglog_scale([0.75, 0.9, 1.9]), loglog_scale([0.0, 1.0]), loglog_scale([0.0, 1.0, 2.0])
    ('log', 'linear', 'log')
    """
    v = np.asarray(values, dtype=float).ravel()
    v = v[np.isfinite(v)]
    return "log" if int((v > 0).sum()) >= 2 else "linear"


def rate_figure(result: Any, path_stem: Path) -> FigureRef:
    """Draw one rate figure into ``path_stem.png`` (and ``.svg``: :func:`svg_wanted`); returns the PNG path with
    the figure's notes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from scipy import stats

    d = rate_series(result.details) or {}
    m = np.asarray(d["m"], dtype=float)
    y = np.asarray(d["mean"], dtype=float)
    curves: list[tuple[str, np.ndarray]] = []
    for name, label in (("bound", "bound (derived)"), ("bound_stated", "bound (stated)")):
        if d.get(name) is not None:
            curves.append((label, np.asarray(d[name], dtype=float)))
    extras = [(label, np.asarray(vals, dtype=float)) for label, vals in (d.get("extra") or {}).items()]
    fig, ax = plt.subplots(figsize=(5.2, 3.8), constrained_layout=True)
    # a log-log slope is a straight line only on log axes: log scales whenever the data allow them
    xscale = fit_axis(ax, "x", m, scale=loglog_scale(m), direct=m)
    yvals = np.concatenate([y, *[c for _, c in curves], *[e for _, e in extras]])
    yscale = fit_axis(ax, "y", yvals, scale=loglog_scale(y))
    notes: list[str] = []
    if xscale != "log" or yscale != "log":
        notes.append("slopes drawn on a linear axis: fewer than two positive values, which a log axis needs")
    ok, why = drawable(y, yscale)
    ok &= drawable(m, xscale)[0]
    if d.get("se") is not None:
        se = np.asarray(d["se"], dtype=float)
        q = float(stats.norm.ppf(0.5 + result.confidence / 2))
        band = ok & np.isfinite(se)
        lo = y - q * se
        if yscale == "log":
            lo = np.where(lo > 0, lo, y * 1e-3)
            if np.any(band & (y - q * se <= 0)):
                notes.append("the band's lower edge is cut at 10⁻³ × mean where it reaches 0 (log axis)")
        ax.fill_between(m[band], lo[band], (y + q * se)[band], alpha=0.25, color="C0",
                        label=f"{result.confidence:.0%} band")
    ax.plot(m[ok], y[ok], "o-", color="C0", label=d.get("quantity", "empirical mean"))
    if (~ok).any():
        notes.append("mean: " + drop_note("points", y.size, why))
    styles = {"bound (derived)": ("-", "C3", "x"), "bound (stated)": ("--", "C1", "+")}
    series = [dict(x=m, y=c, label=label, color=styles[label][1], ls=styles[label][0], marker=styles[label][2])
              for label, c in curves]
    series += [dict(x=m, y=v, label=label, color=f"C{4 + i}", ls="--", marker="^")
               for i, (label, v) in enumerate(extras)]
    notes += plot_series(ax, series, yscale)
    pos = ok & (y > 0) & (m > 0)
    if math.isfinite(result.statistic) and pos.sum() >= 2:
        mid = math.exp(float(np.mean(np.log(m[pos]))))
        ymid = math.exp(float(np.mean(np.log(y[pos]))))
        grid = np.geomspace(m[pos].min(), m[pos].max(), 50)
        ax.plot(grid, ymid * (grid / mid) ** result.statistic, ":", color="C0",
                label=f"fit slope {result.statistic:.3f} [{result.lo:.3f}, {result.hi:.3f}]")
        if math.isfinite(result.bound):
            ax.plot(grid, ymid * (grid / mid) ** result.bound, ":", color="k",
                    label=f"claimed slope {result.bound:.3f}")
    elif math.isfinite(result.statistic):
        notes.append("slope lines not drawn: fewer than two positive means")
    ax.set_xlabel(d.get("x_label", "m (sample size)"))
    ax.set_ylabel(d.get("y_label", "excess risk") + ("" if yscale == "log" else " (linear axis)"))
    title_with_note(ax, f"{result.key}: {result.variant}", _title_notes(notes))
    ax.legend(fontsize=7, loc="best")
    ax.grid(True, which="both", alpha=0.3)
    files = save_figure(fig, path_stem)
    return FigureRef(str(files[0]), notes)


def rate_figures(results: Sequence[Any], directory: Path) -> dict[str, str]:
    """Draw every rate result that carries per-m data.

    Returns
    -------
    dict
        ``"key:kind:variant"`` → path of the PNG relative to the report directory
        (a :class:`FigureRef` carrying the figure's notes).
    """
    directory = Path(directory)
    out: dict[str, str] = {}
    for r in results:
        if r.kind != "rate" or not math.isfinite(r.statistic) or rate_series(r.details) is None:
            continue
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / _slug(f"rate_{r.key}_{r.variant}".replace(".", "_"))
        ref = rate_figure(r, stem)
        out[f"{r.key}:{r.kind}:{r.variant}"] = FigureRef(f"{directory.name}/{Path(ref).name}", ref.notes)
    return out


# ---------------------------------------------------------------------------
# heat maps of the ε/λ picks
# ---------------------------------------------------------------------------

def bound_heatmap(key: str, consts: dict[str, float], m: float, path_stem: Path, which: str | None = None
                  ) -> FigureRef:
    """Heat map of log10 of a bound over (ε, λ) at fixed m, the paper's and the optimised choice marked.

    ``which``: the form of the bound drawn (``"stated"`` or ``"derived"``: the form the report's
    table picks from); None: the form :func:`bounds.pick.basis` establishes.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bounds.pick import bound_grid, optimise, paper_schedule

    eps = np.geomspace(1e-3, 1.0, 121)
    lam = np.geomspace(1e-5, 1.0, 121)
    # the report decided the form (``which``) from its own evidence: draw it without reading any stored report
    # (a reports/summary.json of another run or version must not decide, or stop, this figure)
    given = dict(allow_unverified=True, evidence=[]) if which else {}
    z = bound_grid(key, m, eps, lam, which=which, **given, **consts)
    finite = np.isfinite(z) & (z > 0)
    lz = np.where(finite, np.log10(np.where(finite, z, 1.0)), np.nan)
    notes = []
    if (~finite).any():
        notes.append(f"{int((~finite).sum())} of {z.size} grid cells blank: bound not finite or not positive")
    if np.any(finite):
        lo = np.nanmin(lz)
        lz = np.minimum(lz, lo + 4)          # four decades above the minimum: the interesting region
    fig, ax = plt.subplots(figsize=(5.2, 4.0), constrained_layout=True)
    pc = ax.pcolormesh(eps, lam, lz, shading="auto", cmap="viridis", rasterized=True)  # small SVG
    fig.colorbar(pc, ax=ax, label="log10 bound (capped at min + 4)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    p = paper_schedule(key, m, which=which, **given, **consts)
    o = optimise(key, m, which=which, **given, **consts)
    if p.lam is not None:
        ax.plot([p.eps], [p.lam], "o", ms=9, mfc="none", mec="w", mew=2,
                label=f"paper: ε={p.eps:.3g}, λ={p.lam:.3g}, bound {p.bound:.3g}")
    if o.lam is not None:
        ax.plot([o.eps], [o.lam], "*", ms=12, color="C3",
                label=f"optimised: ε={o.eps:.3g}, λ={o.lam:.3g}, bound {o.bound:.3g}")
    ax.set_xlabel("ε")
    ax.set_ylabel("λ")
    form = which or getattr(o, "form", None) or "derived"
    title_with_note(ax, f"{key} at m = {m:.0e} ({form} bound)", notes)
    ax.legend(fontsize=7, loc="lower left")
    files = save_figure(fig, path_stem)
    return FigureRef(str(files[0]), notes)


def heatmaps(pick_constants: dict[str, dict[str, float]], directory: Path, m: float = 1e4,
             forms: dict[str, str] | None = None) -> dict[str, str]:
    """One heat map per pickable bound whose constants leave both ε and λ free.

    ``forms``: statement key → the form of its bound to draw (the report's table's); default: the
    form :func:`bounds.pick.basis` establishes.  Returns ``key`` → PNG path relative to the report
    directory.
    """
    directory = Path(directory)
    out: dict[str, str] = {}
    for key, consts in pick_constants.items():
        if "eps" in consts or "lam" in consts:
            continue
        directory.mkdir(parents=True, exist_ok=True)
        ref = bound_heatmap(key, consts, m, directory / _slug(f"heatmap_{key.replace('.', '_')}"),
                            which=(forms or {}).get(key) or None)
        out[key] = FigureRef(f"{directory.name}/{Path(ref).name}", ref.notes)
    return out


# ---------------------------------------------------------------------------
# sensitivity against m, and the per-paper overview
# ---------------------------------------------------------------------------

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
    norm); a ratio above the dashed line at 1 is a violated bound.  Results whose ratio is
    undefined (bound 0, no finite statistic) or that carry no m are counted in the figure's notes.
    Returns ``key`` → PNG path relative to the report directory.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    by_key: dict[str, list[Any]] = {}
    for r in results:
        if r.kind == "sensitivity":
            by_key.setdefault(r.key, []).append(r)
    out: dict[str, str] = {}
    directory = Path(directory)
    for key, rs in by_key.items():
        placed = [r for r in rs if _x_of(r) is not None]
        if not placed:
            continue
        ratio, why = safe_ratio([r.statistic for r in placed], [r.bound for r in placed])
        if len(placed) < len(rs):
            why["no m in the result"] += len(rs) - len(placed)
        lines: dict[str, list[tuple[float, float]]] = {}
        for r, q in zip(placed, ratio, strict=True):
            if not np.isfinite(q):
                continue
            label = re.sub(r"(^|,\s*)(m|t|T)=[^,]*", "", r.variant).strip(", ") or "all"
            lines.setdefault(label, []).append((_x_of(r), float(q)))
        fig, ax = plt.subplots(figsize=(5.2, 3.6), constrained_layout=True)
        xs = [p[0] for pts in lines.values() for p in pts]
        ys = [p[1] for pts in lines.values() for p in pts]
        fit_axis(ax, "x", xs, direct=xs)
        yscale = fit_axis(ax, "y", ys + [1.0])
        series = []
        for i, (label, pts) in enumerate(sorted(lines.items())):
            pts.sort()
            series.append(dict(x=[p[0] for p in pts], y=[p[1] for p in pts], label=label, color=f"C{i % 10}",
                               marker="osD^v<>ph*"[i % 10]))
        notes = []
        if why:
            notes.append(drop_note("results", len(rs), why))
        notes += plot_series(ax, series, yscale)
        ax.axhline(1.0, color="k", ls="--", lw=1, label="bound")
        ax.set_xlabel("m (or t)")
        ax.set_ylabel("worst case found / bound")
        title_with_note(ax, f"{key}: adversarial sensitivity search", _title_notes(notes))
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, loc="best")
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / _slug(f"sensitivity_{key}".replace(".", "_"))
        save_figure(fig, stem)
        out[key] = FigureRef(f"{directory.name}/{stem.name}.png", notes)
    return out


#: overview markers per verdict: readable without colour
VERDICT_MARKERS = {"holds": ("o", "C2"), "violated": ("X", "C3"), "inconclusive": ("D", "C1")}


def overview_legend_handles(outside: bool) -> list[Any]:
    """Legend entries of an overview figure: what each mark means, and the ring of an out-of-regime run.

    Examples
    --------
    >>> [h.get_label() for h in overview_legend_handles(True)][-1]
    "ringed: run outside the paper's regime"
    """
    from matplotlib.lines import Line2D

    words = {"holds": "holds", "violated": "violated (red ✖)", "inconclusive": "inconclusive"}
    out = [Line2D([], [], ls="none", marker=mk, color=c, label=words[v]) for v, (mk, c) in VERDICT_MARKERS.items()]
    if outside:
        out.append(Line2D([], [], ls="none", marker="o", markersize=9, markerfacecolor="none", color="k",
                          label="ringed: run outside the paper's regime"))
    return out


def overview_figures(results: Sequence[Any], directory: Path) -> dict[str, str]:
    """One small-multiples figure per paper: a panel per statement, a point per variant.

    Sensitivity, risk and violation panels show statistic/bound with the interval
    (dashed line at 1; a log axis only when the ratios span more than a factor 10);
    rate panels show the fitted slope with its interval and the claimed exponent as a
    dashed line.  Every result is numbered as in the report; one that cannot be drawn
    (bound 0, no finite statistic) is counted in its panel's title and in the notes.
    Returns paper prefix → PNG path relative to the report directory.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    papers: dict[str, dict[str, list[Any]]] = {}
    for r in results:
        papers.setdefault(r.key.split(".")[0], {}).setdefault(r.key + (" (rate)" if r.kind == "rate" else ""),
                                                             []).append(r)
    out: dict[str, str] = {}
    directory = Path(directory)
    for paper, panels in papers.items():
        n = len(panels)
        cols = min(4, n)
        rows = -(-n // cols)
        fig, axes = plt.subplots(rows, cols, figsize=(3.2 * cols, 2.7 * rows), constrained_layout=True,
                                 squeeze=False)
        notes: list[str] = []
        any_outside = False
        for ax, (name, rs) in zip(axes.ravel(), panels.items(), strict=False):
            xs = np.arange(1, len(rs) + 1, dtype=float)
            stat = np.array([r.statistic for r in rs], dtype=float)
            if rs[0].kind == "rate":
                y = stat
                lo = np.array([r.lo for r in rs], dtype=float)
                hi = np.array([r.hi for r in rs], dtype=float)
                _, why = drawable(y)
                why = Counter({("no finite slope" if k == "not finite" else k): c for k, c in why.items()})
                claimed = rs[0].bound
                if math.isfinite(claimed):
                    ax.axhline(claimed, color="k", ls="--", lw=1)
                yscale = fit_axis(ax, "y", [], scale="linear", labelsize=6)
                ax.set_ylabel("slope (dashed: claimed)", fontsize=7)
            else:
                b = np.array([r.bound for r in rs], dtype=float)
                y, why = safe_ratio(stat, b)
                lo = safe_ratio([r.lo for r in rs], b)[0]
                hi = safe_ratio([r.hi for r in rs], b)[0]
                ax.axhline(1.0, color="k", ls="--", lw=1)
                yscale = fit_axis(ax, "y", np.concatenate([y, [1.0]]), labelsize=6)
                ax.set_ylabel("empirical / bound" + (" (log)" if yscale == "log" else ""), fontsize=7)
            ok, why_axis = drawable(y, yscale, zero_ok=True)
            why.update({k: c for k, c in why_axis.items() if k != "not finite"})
            zeros = ok & (y == 0) if yscale == "log" else np.zeros(len(rs), dtype=bool)
            pts = ok & ~zeros
            lo_ok = np.where(np.isfinite(lo), lo, y)
            hi_ok = np.where(np.isfinite(hi), hi, y)
            err = np.array([np.maximum(y - lo_ok, 0), np.maximum(hi_ok - y, 0)])
            if pts.any():
                ax.errorbar(xs[pts], y[pts], yerr=err[:, pts], fmt="none", ecolor="0.4", lw=1)
            outside = pts & np.array([getattr(r, "regime", "") == "outside" for r in rs])
            if outside.any():
                ax.scatter(xs[outside], y[outside], s=90, facecolors="none", edgecolors="k", linewidths=0.8,
                           zorder=4)
                any_outside = True
            for verdict, (marker, color) in VERDICT_MARKERS.items():
                sel = pts & np.array([r.verdict == verdict for r in rs])
                if sel.any():
                    ax.scatter(xs[sel], y[sel], c=color, marker=marker, s=22, zorder=3)
                zsel = zeros & np.array([r.verdict == verdict for r in rs])
                if zsel.any():
                    mark_zeros(ax, xs[zsel], color=color)
            if pts.any() or zeros.any():
                include_in_view(ax, [1.0] if rs[0].kind != "rate" else [rs[0].bound])
            if zeros.any():
                _floor_band(ax, 1)
            integer_ticks(ax, len(rs))
            ax.tick_params(labelsize=6, which="both")
            panel_notes = []
            dropped = drop_note("points", len(rs), why)
            if dropped:
                panel_notes.append(dropped)
            if zeros.any():
                panel_notes.append(f"{int(zeros.sum())} at 0: ▼ on the bottom edge")
            ax.set_title("\n".join([name] + panel_notes), fontsize=8 if not panel_notes else 7)
            notes += [f"{name}: {t}" for t in panel_notes]
        for ax in axes.ravel()[n:]:
            ax.axis("off")
        fig.suptitle(f"{paper}: every empirical check; x = variant number in the report", fontsize=8)
        fig.legend(handles=overview_legend_handles(any_outside), loc="outside lower center",
                   ncols=4, fontsize=7, frameon=False)
        if any_outside:
            notes.append("a black ring marks a run outside the paper's regime (its verdict does not refute the "
                         "statement; red ✖ is a violated check, inside or outside the regime)")
        directory.mkdir(parents=True, exist_ok=True)
        stem = directory / f"overview_{paper}"
        save_figure(fig, stem)
        out[paper] = FigureRef(f"{directory.name}/{stem.name}.png", notes)
    return out
