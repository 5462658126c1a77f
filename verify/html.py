"""``reports/index.html``: the Markdown report as one self-contained HTML page.

The page is rendered from the same Markdown as ``REPORT.md`` (Python-Markdown
with its ``tables`` and ``toc`` extensions), so the two cannot disagree.  What
the page adds to the Markdown:

* **Formulas as MathML.**  ``$$…$$`` (block) and ``$…$`` (inline) are taken out
  before Markdown runs (so ``*`` and ``_`` in TeX cannot turn into emphasis)
  and converted by ``latex2mathml``; browsers draw MathML natively, nothing is
  fetched when the page is viewed.  A formula the converter rejects is shown
  as TeX source in a ``<code class="tex">``.
* **No accidental emphasis.**  Only ``*`` marks emphasis; ``_`` (subscripts in
  names such as ``f_z``) never does.  ``REPORT.md`` writes sympy expressions
  as code spans (:func:`verify.report.md_inline`).
* **A table of contents** built from the headings; every heading has an id.
* **Verdicts marked**: a bold verdict word becomes a badge with a class
  ``v v-<verdict>``, a colour and a symbol (readable without colour), and a
  legend explains them.
* **Self-contained**: the style sheet is inline and figures are embedded as
  PNG data URIs, re-encoded with a 256-colour palette (about a quarter of the
  size of matplotlib's RGBA PNGs); a link to a figure's file points to the
  embedded figure instead.  No script, no external style sheet or font.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import markdown
from markdown.extensions import Extension
from markdown.extensions.toc import TocExtension

from bounds.evidence import QUALIFIERS, STATEMENT_VERDICTS, VERDICT_TEXT, VERDICTS

#: verdict → (symbol, colour, one-line meaning); the symbol keeps the badge readable without colour
VERDICT_STYLE: dict[str, tuple[str, str, str]] = {
    "refuted": ("✘", "#b3261e", "the statement is false: a counterexample inside the paper's regime"),
    "unsupported": ("⚠", "#c2410c", "a step of its proof fails and no other route is established: open"),
    "erratum": ("✎", "#a35200", "does not follow as stated; corrected form derived"),
    "typo": ("✎", "#8a6d00", "printed formula cannot be meant; intended form consistent"),
    "regime": ("◐", "#6d28d9", "fails only outside the paper's regime"),
    "gap": ("◑", "#0e7490", "a step of the proof fails; the statement holds by another route"),
    "remark": ("◇", "#64748b", "a definition weaker or other than the standard one"),
    "tight": ("✔", "#0f6e3a", "consistent, and a search attains the bound"),
    "consistent": ("✔", "#15803d", "follows from its premises"),
    "supported": ("✔", "#4d7c0f", "no derivation encoded; simulations hold"),
    "cited": ("↗", "#475569", "rests on an outside result"),
    "premise": ("◇", "#475569", "a definition or an assumption"),
    "order": ("∼", "#475569", "only an order is claimed"),
    "unchecked": ("·", "#6b7280", "nothing checks it"),
    "holds": ("✔", "#15803d", "evidence: the interval lies at or below the bound"),
    "violated": ("✘", "#b3261e", "evidence: the interval lies above the bound"),
    "inconclusive": ("?", "#a35200", "evidence: the interval straddles the bound"),
}

#: the text a verdict is printed as → its class
VERDICT_CLASS: dict[str, str] = {
    **{v: v for v in STATEMENT_VERDICTS},
    **{VERDICT_TEXT[v]: v for v in STATEMENT_VERDICTS},
    **{v: v for v in VERDICTS},
    **{f"{v} ({q})": v for v in VERDICTS for q in QUALIFIERS if q},
}

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;line-height:1.45;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em;display:block;overflow-x:auto;max-width:100%}
th,td{border:1px solid #ccc;padding:0.25em 0.5em;vertical-align:top}
th{background:#f2f2f2}
tr:nth-child(even) td{background:#fafafa}
code{background:#f4f4f4;padding:0 0.2em;overflow-wrap:break-word}
img{max-width:100%;border:1px solid #eee;margin:0.5em 0;display:block}
h2{border-bottom:2px solid #ddd;padding-bottom:0.2em;margin-top:2em}
h2 a.up{font-size:0.55em;font-weight:normal;margin-left:0.8em;text-decoration:none;color:#666}
strong{color:#000}
:target{scroll-margin-top:0.5em}
h3:target,h2:target{background:#fff6d5}
math{font-size:1.1em}
math.display{margin:0 0.2em;padding:0.15em 0}
code.tex{color:#8a1c1c}
nav.toc{border:1px solid #ddd;background:#fbfbfb;padding:0.5em 1em;margin:1em 0;columns:2 22em;font-size:0.92em}
nav.toc h2{border:none;margin:0 0 0.3em 0;font-size:1.1em;column-span:all}
nav.toc ol{margin:0;padding-left:1.3em}
nav.toc li{break-inside:avoid}
nav.toc details{margin:0.1em 0 0.3em 0}
nav.toc summary{cursor:pointer;color:#555;font-size:0.9em}
.legend{font-size:0.9em;margin:0.5em 0 1em 0}
.legend span.item{display:inline-block;margin:0.15em 0.9em 0.15em 0}
strong.v{padding:0 0.3em;border-radius:3px;border:1px solid currentColor;white-space:nowrap}
""" + "".join(f"strong.v-{k}{{color:{c};background:{c}14}}\n" for k, (_, c, _m) in VERDICT_STYLE.items())

#: private-use characters around a formula's number while Markdown runs
_PH_OPEN, _PH_CLOSE = "\ue000", "\ue001"
_MATH = re.compile(r"(`+).+?\1|\$\$(.+?)\$\$|(?<![\\$\w])\$(?=\S)([^$\n]+?)(?<=\S)\$(?![\w$])", re.S)


class _NoUnderscoreEmphasis(Extension):
    """``_`` never marks emphasis (subscripts in names); ``*`` still does."""

    def extendMarkdown(self, md: markdown.Markdown) -> None:  # noqa: N802 - Markdown's API
        if "em_strong2" in md.inlinePatterns:           # Python-Markdown < 3.8
            md.inlinePatterns.deregister("em_strong2")
        delimiters = getattr(md, "delimiters", None)      # Python-Markdown ≥ 3.8: one delimiter processor
        if delimiters is not None and hasattr(delimiters, "remove"):
            delimiters.remove("_")


def tex_to_mathml(tex: str, display: bool = False) -> str:
    """MathML of a TeX formula (``latex2mathml``), with the TeX source as ``alttext``.

    ``display`` (``$$…$$``) sets the formula in display style (full-size fractions) but keeps it in
    the line, left-aligned after its label ("stated: …"), rather than centred on a line of its own.

    A formula the converter rejects comes back as ``<code class="tex">`` with its source.

    Examples
    --------
    >>> m = tex_to_mathml(r"\\frac{2 \\kappa C_{L}}{\\lambda m}")
    >>> m.startswith("<math") and "<mfrac>" in m and "alttext=" in m
    True
    >>> 'displaystyle="true"' in tex_to_mathml("x^2", display=True)
    True
    """
    from latex2mathml.converter import convert

    try:
        out = convert(tex, display="inline")
    except Exception:  # noqa: BLE001 - any parse failure: show the source
        return f'<code class="tex">{html.escape(tex)}</code>'
    extra = ' class="display" displaystyle="true"' if display else ""
    return out.replace("<math ", f'<math alttext="{html.escape(tex, quote=True)}"{extra} ', 1)


def extract_math(text: str) -> tuple[str, list[tuple[str, bool]]]:
    """Replace ``$$…$$`` and ``$…$`` outside code spans by placeholders; returns the text and the formulas.

    Examples
    --------
    >>> t, f = extract_math("a $$x_1*y$$ and `$$code$$` and $z$")
    >>> f
    [('x_1*y', True), ('z', False)]
    >>> "$" in t.replace("`$$code$$`", "")
    False
    """
    found: list[tuple[str, bool]] = []

    def repl(m: re.Match[str]) -> str:
        if m.group(1):
            return m.group(0)
        tex, display = (m.group(2), True) if m.group(2) is not None else (m.group(3), False)
        found.append((tex.strip(), display))
        return f"{_PH_OPEN}{len(found) - 1}{_PH_CLOSE}"

    return _MATH.sub(repl, text), found


def _restore_math(body: str, formulas: list[tuple[str, bool]]) -> str:
    cache: dict[tuple[str, bool], str] = {}

    def repl(m: re.Match[str]) -> str:
        key = formulas[int(m.group(1))]
        if key not in cache:
            cache[key] = tex_to_mathml(*key)
        return cache[key]

    return re.sub(f"{_PH_OPEN}(\\d+){_PH_CLOSE}", repl, body)


def mark_verdicts(body: str) -> str:
    """Give every bold verdict word a badge: class ``v v-<verdict>``, a symbol and a tooltip.

    Examples
    --------
    >>> print(mark_verdicts("<td><strong>violated</strong></td> <strong>holds (attained)</strong> <strong>x</strong>"))
    <td><strong class="v v-violated" title="violated: evidence: the interval lies above the bound">✘ violated</strong></td> <strong class="v v-holds" title="holds: evidence: the interval lies at or below the bound">✔ holds (attained)</strong> <strong>x</strong>
    """
    def repl(m: re.Match[str]) -> str:
        text = html.unescape(m.group(1)).strip()
        cls = VERDICT_CLASS.get(text)
        if cls is None:
            return m.group(0)
        sym, _, meaning = VERDICT_STYLE[cls]
        return (f'<strong class="v v-{cls}" title="{html.escape(f"{cls}: {meaning}", quote=False)}">'
                f"{sym} {m.group(1)}</strong>")

    return re.sub(r"<strong>([^<]{1,60})</strong>", repl, body)


def legend_html() -> str:
    """The legend of the verdict badges (statement verdicts, then evidence verdicts).

    Examples
    --------
    >>> leg = legend_html()
    >>> all(f"v-{k}" in leg for k in VERDICT_STYLE)
    True
    """
    def item(k: str, text: str) -> str:
        sym, _, meaning = VERDICT_STYLE[k]
        return (f'<span class="item"><strong class="v v-{k}">{sym} {html.escape(text)}</strong> '
                f"{html.escape(meaning)}</span>")

    statements = " ".join(item(k, VERDICT_TEXT[k]) for k in STATEMENT_VERDICTS)
    evidence = " ".join(item(k, k) for k in VERDICTS)
    return (f'<div class="legend" id="legend"><b>Statement verdicts:</b> {statements}<br>'
            f"<b>Evidence verdicts:</b> {evidence}</div>")


def toc_html(tokens: list[dict[str, Any]], first: tuple[tuple[str, str], ...] = ()) -> str:
    """Table of contents from Python-Markdown's ``toc_tokens``: the sections, with long sub-lists folded.

    ``first``: ``(id, name)`` of anchors that are not headings, listed before the sections (the
    report's figure index).

    Examples
    --------
    >>> toc = [{"level": 1, "id": "t", "name": "T", "children": [
    ...     {"level": 2, "id": "a", "name": "A &amp; B", "children": []}]}]
    >>> toc_html(toc)
    '<nav class="toc" id="report-contents"><h2 id="report-contents-title">Contents</h2><ol><li><a href="#a">A &amp; B</a></li></ol></nav>'
    """
    top = tokens
    while len(top) == 1 and top[0]["level"] == 1:      # the page title is not a section
        top = top[0]["children"]

    def items(ts: list[dict[str, Any]]) -> str:
        out = []
        for t in ts:
            sub = ""
            if t["children"]:
                inner = f"<ol>{items(t['children'])}</ol>"
                n = len(t["children"])
                sub = inner if n <= 6 else (f"<details><summary>{n} subsections</summary>{inner}</details>")
            out.append(f'<li><a href="#{t["id"]}">{t["name"]}</a>{sub}</li>')
        return "".join(out)

    lead = "".join(f'<li><a href="#{i}">{html.escape(n)}</a></li>' for i, n in first)
    return (f'<nav class="toc" id="report-contents"><h2 id="report-contents-title">Contents</h2>'
            f"<ol>{lead}{items(top)}</ol></nav>")


def _palette_png(data: bytes) -> bytes:
    """The PNG re-encoded with an adaptive 256-colour palette when that is smaller (needs Pillow)."""
    try:
        from PIL import Image
    except ImportError:
        return data
    with Image.open(io.BytesIO(data)) as im:
        q = im.convert("RGB").quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE)
        buf = io.BytesIO()
        q.save(buf, "PNG", optimize=True)
    return buf.getvalue() if buf.tell() < len(data) else data


#: where, under the directory the page is rendered from, the embedded (palette) PNGs are kept,
#: named by the SHA-256 of the PNG they encode (:func:`prepare_embedding`); not a report file
EMBED_DIR = ".embed"


def _embedded_path(base: Path, data: bytes) -> Path:
    return base / EMBED_DIR / (hashlib.sha256(data).hexdigest() + ".png")


def prepare_embedding(pngs: Iterable[Path | str], base: Path | str) -> list[Path]:
    """Encode each PNG as :func:`render_html` embeds it, ahead of time (in the job that drew it).

    The palette version of a PNG (:func:`_palette_png`, the costly part of the page) depends on the
    PNG's bytes alone; it is written to ``<base>/.embed/<sha256 of the PNG>.png``, where
    :func:`render_html` of a page rendered from ``base`` reads it instead of encoding the PNG again.
    A PNG whose prepared version is missing (another machine drew it) is encoded when the page is
    rendered, to the same bytes.  Returns the files written.

    Examples
    --------
    >>> import tempfile, matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> d = Path(tempfile.mkdtemp()); (d / "figures").mkdir()
    >>> fig, ax = plt.subplots(); _ = ax.plot([1, 2]); fig.savefig(d / "figures" / "a.png"); plt.close(fig)
    >>> md = "# T\\n\\n![a](figures/a.png)\\n"
    >>> cold = render_html(md, d)
    >>> [p.parent.name for p in prepare_embedding([d / "figures" / "a.png"], d)]
    ['.embed']
    >>> render_html(md, d) == cold
    True
    """
    base = Path(base)
    written = []
    for png in pngs:
        png = Path(png)
        if png.suffix.lower() != ".png" or not png.is_file():
            continue
        data = png.read_bytes()
        target = _embedded_path(base, data)
        if target.is_file():
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        part = target.with_name(f"{target.name}.{os.getpid()}.part")
        part.write_bytes(_palette_png(data))
        os.replace(part, target)                    # whole or absent: never a half-written file
        written.append(target)
    return written


def _embedded_png(base: Path, data: bytes) -> bytes:
    """The bytes :func:`render_html` embeds for a PNG: prepared by :func:`prepare_embedding`, or encoded now."""
    prepared = _embedded_path(base, data)
    if prepared.is_file():
        return prepared.read_bytes()
    return _palette_png(data)


def _fig_id(src: str) -> str:
    return "fig-" + re.sub(r"[^A-Za-z0-9_-]+", "-", Path(src).stem)


def _embed_images(body: str, base: Path) -> str:
    seen: set[str] = set()

    def repl(mt: re.Match[str]) -> str:
        attrs = mt.group(1)
        sm = re.search(r'\ssrc="([^"]+)"', attrs)
        if not sm:
            return mt.group(0)
        src = html.unescape(sm.group(1))
        p = base / src
        if src.startswith("data:") or not p.is_file() or p.suffix.lower() != ".png":
            return mt.group(0)
        fid = _fig_id(src)
        if fid in seen:                                  # the same figure again: a link to the first one
            return f'<a href="#{fid}">(figure shown above: {html.escape(Path(src).name)})</a>'
        seen.add(fid)
        data = base64.b64encode(_embedded_png(base, p.read_bytes())).decode("ascii")
        attrs = attrs.replace(sm.group(0), f' id="{fid}" src="data:image/png;base64,{data}"')
        return f"<img{attrs}>"

    body = re.sub(r"<img(\s[^>]*?)\s*/?>", repl, body)

    def link(mt: re.Match[str]) -> str:
        fid = _fig_id(html.unescape(mt.group(1)))
        return f'href="#{fid}"' if fid in seen else mt.group(0)

    return re.sub(r'href="([^"#:]+\.png)"', link, body)


def render_html(markdown_text: str, base: Path, title: str = "dp-erm-verify report") -> str:
    """HTML page of the report: MathML formulas, contents, verdict badges, images under ``base`` embedded.

    Examples
    --------
    >>> from pathlib import Path
    >>> page = render_html("# T\\n\\n## A\\n\\n| a |\\n|---|\\n| **refuted** |\\n\\n- stated: $$x_1*y_2$$\\n", Path("."))
    >>> "<table>" in page and '<h2 id="a"' in page and 'href="#a"' in page
    True
    >>> "$$" in page or "<em>" in page, "<math" in page, "v-refuted" in page
    (False, True, True)
    """
    text, formulas = extract_math(markdown_text)
    md = markdown.Markdown(extensions=["tables", TocExtension(), _NoUnderscoreEmphasis()])
    body = md.convert(text)
    body = _restore_math(body, formulas)
    body = mark_verdicts(body)
    body = _embed_images(body, Path(base))
    body = re.sub(r'(<h2 id="[^"]+">)(.*?)(</h2>)',
                  r'\1\2<a class="up" href="#report-contents" title="back to the contents">↑ contents</a>\3', body)
    first = (("figure-index", "Figure index"),) if 'id="figure-index"' in body else ()
    nav = toc_html(md.toc_tokens, first) + legend_html()
    m = re.search(r"</h1>", body)
    body = body[: m.end()] + "\n" + nav + body[m.end():] if m else nav + body
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")
