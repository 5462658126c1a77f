"""``index.html``: MathML formulas, no accidental italics, contents and anchors, verdict badges, a
self-contained and smaller page; and (slow) the page as headless Chromium renders it.

The formulas are the registry's own (``sympy.latex`` of every stated bound, exactly what the report
writes between ``$$``); the plain-text expressions are ones the report prints in check details.
"""

from __future__ import annotations

import base64
import html as html_lib
import json
import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
import sympy as sp

from bounds import registry
from bounds.evidence import STATEMENT_VERDICTS, VERDICT_TEXT, VERDICTS
from verify.html import VERDICT_STYLE, extract_math, render_html, tex_to_mathml
from verify.report import md_inline, write_report

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = Path("/usr/bin/chromium")
MATHML = "{http://www.w3.org/1998/Math/MathML}"

#: sympy plain-text expressions as they appear in the report's check details
SYMPY_TEXTS = [
    "t = 1/2 gives 4*sqrt(B)/(sqrt(gamma)*sqrt(lambda)*sqrt(m)); t → 1 gives √(8B/(λγm))",
    "sensitivity 2*kappa*C_L/(lam*m) against the derived 4*r/(3*(2*r + 1))",
    "exponent -1/2 + 1/(2*beta + 1) vs m**(-2/(Min(1, 2*r) + 1))",
    "perturbation term changes by 2*bb11*t = C·t·b_(d+1,d+1), Σ_c‖Φ*_c‖ and ‖f*_D − f*_D′‖₂",
    "‖f_z − f_z̄‖_K, worst case found: ‖α_j K_{x_j} − β̄ K_{x̄}‖_K, exact",
]


class _Page(HTMLParser):
    """Ids, internal links, headings (tag, id), text outside attributes, external resources."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: list[str] = []
        self.hrefs: list[str] = []
        self.headings: list[tuple[str, str | None]] = []
        self.text: list[str] = []
        self.external: list[str] = []
        self.stack: list[str] = []
        self.em_text: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if a.get("id"):
            self.ids.append(a["id"])
        if tag == "a" and a.get("href", "").startswith("#"):
            self.hrefs.append(a["href"][1:])
        if tag in ("h1", "h2", "h3", "h4"):
            self.headings.append((tag, a.get("id")))
        for k in ("src", "href"):
            v = a.get(k) or ""
            if re.match(r"(https?:)?//", v) and not (tag == "a" and k == "href"):
                self.external.append(f"<{tag} {k}={v}>")
        if tag in ("script", "link", "iframe", "object", "embed"):
            self.external.append(f"<{tag}>")
        self.stack.append(tag)

    def handle_endtag(self, tag):
        while self.stack and self.stack.pop() != tag:
            pass

    def handle_data(self, data):
        self.text.append(data)
        if "em" in self.stack:
            self.em_text.append(data)


def parse(page: str) -> _Page:
    p = _Page()
    p.feed(page)
    return p


def _real_formulas() -> list[str]:
    return sorted({sp.latex(st.stated) for st in registry if st.stated is not None})


# --- formulas ---------------------------------------------------------------------------------------

def test_every_stated_formula_of_the_registry_converts_to_mathml() -> None:
    formulas = _real_formulas()
    assert len(formulas) > 40
    for tex in formulas:
        m = tex_to_mathml(tex, display=True)
        assert m.startswith("<math"), (tex, m[:80])
        root = ET.fromstring(m)                                    # well-formed XML
        assert root.tag == f"{MATHML}math"
        assert not list(root.iter(f"{MATHML}merror")), tex
        tokens = [e.text for e in root.iter() if e.tag in (f"{MATHML}mi", f"{MATHML}mn") and e.text]
        assert tokens, tex
        assert html_lib.unescape(root.get("alttext")) == tex       # the source stays with the formula


def test_a_fraction_and_subscripts_become_mathml_structure() -> None:
    root = ET.fromstring(tex_to_mathml(r"\frac{2 \kappa C_{L}}{\lambda m}"))
    frac = root.find(f".//{MATHML}mfrac")
    assert frac is not None and len(list(frac)) == 2
    sub = root.find(f".//{MATHML}msub")
    assert [e.text for e in sub.iter(f"{MATHML}mi")] == ["C", "L"]


def test_math_is_taken_out_before_markdown_and_none_is_left_as_dollars() -> None:
    formulas = _real_formulas()[:30]
    md = "# R\n\n" + "\n".join(f"- stated: $${t}$$" for t in formulas) + "\n\ncode `$$kept$$` and $x_1*y_1$.\n"
    text, found = extract_math(md)
    assert len(found) == len(formulas) + 1 and "$$" not in text.replace("`$$kept$$`", "")
    page = render_html(md, ROOT)
    p = parse(page)
    visible = "".join(p.text)
    assert "$$" not in visible.replace("$$kept$$", "")
    assert page.count("<math") == len(formulas) + 1
    assert not p.em_text, p.em_text[:3]                      # `_` and `*` in TeX never became italics


# --- no accidental italics --------------------------------------------------------------------------

@pytest.mark.parametrize("text", SYMPY_TEXTS)
def test_sympy_expressions_never_turn_into_italics(text) -> None:
    md = md_inline(text)
    page = render_html(f"# R\n\n- {md}\n\n| a |\n|---|\n| {md} |\n", ROOT)
    p = parse(page)
    assert "<em>" not in page, md
    visible = re.sub(r"\s+", " ", "".join(p.text))
    for expr in re.findall(r"[\w(]\S*\*\S*[\w)]", text):          # every fragment with a * reads as written
        assert expr.rstrip(";,") in visible
    assert visible.count(text.split(" ")[0]) >= 2                   # once in the list, once in the table


def test_sympy_expressions_are_code_in_the_markdown() -> None:
    md = md_inline(SYMPY_TEXTS[1])
    assert "`2*kappa*C_L/(lam*m)`" in md and "`4*r/(3*(2*r + 1))`" in md
    assert md_inline("plain words, no formula") == "plain words, no formula"


# --- contents, anchors, verdicts, self-contained ----------------------------------------------------

REPORT_LIKE = """# dp-erm-verify report

Intro with **refuted** and **holds in the paper's regime**.

## Root errors

| root | verdict |
|---|---|
| [`a.thm1`](#s-a-thm1) | **refuted** |

### Definitional findings

## Summary

### Paper A title · [paper `a`](#p-a)

| key | verdict | empirical |
|---|---|---|
| [`a.thm1`](#s-a-thm1) | **consistent (tight)** | **holds** (2 holds) |

## <a id="p-a"></a>Paper A title

### <a id="s-a-thm1"></a>`a.thm1` — Theorem 1: f_z

*Theorem 1 (§2)* (seed file `000_x.txt`).  Verdict: **erratum**; derivation status erratum.

- stated: $$\\frac{2 \\kappa C_{L}}{\\lambda m}$$
- empirical #1 risk · m=50: → **violated (attained)**. ![demo](figures/f.png)
  *Figure notes:* 2 of 9 points not drawn: bound = 0 (ratio undefined).
- link to the [figure](figures/f.png)

## Privacy–utility on real data

## Privacy audits

## All findings

## Choosing ε and λ
"""


def _page(tmp_path: Path) -> str:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (tmp_path / "figures").mkdir()
    fig, ax = plt.subplots()
    ax.plot([1, 2, 3], [3, 1, 2])
    fig.savefig(tmp_path / "figures" / "f.png", dpi=100)
    plt.close(fig)
    return render_html(REPORT_LIKE, tmp_path)


def test_every_heading_has_an_id_and_the_contents_link_to_each_section(tmp_path) -> None:
    p = parse(_page(tmp_path))
    assert p.headings and all(i for _, i in p.headings), p.headings
    section_ids = [i for t, i in p.headings if t == "h2" and not i.startswith("report-contents")]
    assert len(section_ids) == 7
    assert set(section_ids) <= set(p.hrefs)                          # the contents link to every section
    assert {"privacyutility-on-real-data", "privacy-audits", "all-findings"} <= set(section_ids)
    assert not [h for h in p.hrefs if h not in p.ids], "internal links without a target"
    assert len(p.ids) == len(set(p.ids)), "duplicate ids"


def test_verdict_words_get_a_class_a_symbol_and_a_legend(tmp_path) -> None:
    page = _page(tmp_path)
    for cls in ("refuted", "regime", "tight", "erratum", "holds", "violated"):
        assert f'class="v v-{cls}"' in page.split('id="legend"')[1], cls      # in the body, not only the legend
    assert re.search(r'<td><strong class="v v-refuted"[^>]*>✘ refuted</strong></td>', page)
    legend = page.split('id="legend"')[1].split("</div>")[0]
    for v in (*STATEMENT_VERDICTS, *VERDICTS):
        assert f"v-{v}" in legend
        assert f"strong.v-{v}{{" in page                              # a colour for each
    assert len({s for s, _, _ in VERDICT_STYLE.values()}) >= 8           # symbols tell them apart without colour
    for v in STATEMENT_VERDICTS:
        one = render_html(f"# T\n\n| v |\n|---|\n| **{VERDICT_TEXT[v]}** |\n", tmp_path)
        assert f'class="v v-{v}"' in one, v


def test_page_is_self_contained_and_figures_are_embedded(tmp_path) -> None:
    page = _page(tmp_path)
    p = parse(page)
    assert not p.external, p.external
    assert "@import" not in page and "url(http" not in page and "<script" not in page
    assert 'id="fig-f" src="data:image/png;base64,' in page
    assert 'href="#fig-f"' in page and 'href="figures/f.png"' not in page   # the link points to the embedded one
    assert "<em>Figure notes:</em> 2 of 9 points not drawn" in page


def test_embedded_figures_are_smaller_than_the_files(tmp_path) -> None:
    page = _page(tmp_path)
    data = base64.b64decode(re.search(r'src="data:image/png;base64,([^"]+)"', page).group(1))
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert len(data) < 0.6 * (tmp_path / "figures" / "f.png").stat().st_size


def test_html_of_the_committed_report_is_far_below_the_old_size() -> None:
    """The page of the committed report (``reports/``), rendered now.

    The bound: the old page was 3.9 MB, of which 3.5 MB base64 PNG (2.6 MB of figures, 4/3 for
    base64) and 0.4 MB text.  Palette PNG keeps at most 50% of the figure bytes and HTML markup plus
    MathML at most 2.5× the Markdown (tables and lists ≈ 1.4×; MathML ≈ 7× the TeX, which is ≈ 5% of
    the Markdown), so the page must stay below 0.5 · 4/3 · figures + 2.5 · Markdown — and below 2.5 MB.
    """
    md_path = ROOT / "reports" / "REPORT.md"
    if not md_path.is_file():
        pytest.skip("no generated report in reports/")
    md = md_path.read_text(encoding="utf-8")
    pngs = set(re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", md))
    png_bytes = sum((ROOT / "reports" / f).stat().st_size for f in pngs if (ROOT / "reports" / f).is_file())
    page = render_html(md, ROOT / "reports").encode("utf-8")
    images = sum(len(m) for m in re.findall(rb'src="data:image/png;base64,([^"]+)"', page))
    assert images <= 0.5 * 4 / 3 * png_bytes
    assert len(page) - images <= 2.5 * len(md.encode("utf-8"))
    assert len(page) < 2.5e6


# --- slow: the page as a browser renders it --------------------------------------------------------

def _chromium(url: str, tmp: Path, *args: str) -> subprocess.CompletedProcess:
    prof = tmp / "chromium-profile"
    prof.mkdir(exist_ok=True)
    cmd = [str(CHROMIUM), "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
           "--disable-background-networking", "--disable-component-update", "--disable-sync",
           f"--user-data-dir={prof}", *args, url]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=180, check=False)


def _check_in_browser(index: Path, tmp: Path) -> None:
    dom = _chromium(index.as_uri(), tmp, "--dump-dom")
    assert dom.returncode == 0 and "<body" in dom.stdout, dom.stderr[-2000:]
    p = parse(dom.stdout)
    text = "".join(p.text)
    assert "dp-erm-verify report" in text                        # the page loaded
    assert "$$" not in text                                        # every formula rendered
    assert dom.stdout.count("<math") >= 1
    missing = sorted({h for h in p.hrefs if h not in set(p.ids)})
    assert not missing, f"internal links without a target: {missing[:10]}"
    assert not p.external, p.external
    shot = tmp / "page.png"
    r = _chromium(index.as_uri(), tmp, "--window-size=1400,3000", f"--screenshot={shot}")
    assert r.returncode == 0 and shot.is_file(), r.stderr[-2000:]
    from PIL import Image

    with Image.open(shot) as im:
        colours = im.convert("L").getextrema()
    assert colours[0] < 80 and colours[1] > 200                  # not a blank page: dark text on white


@pytest.mark.slow
def test_generated_page_in_headless_chromium(tmp_path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (Debian package `chromium`): cannot render the page")
    out = tmp_path / "report"
    write_report(out, only="jia.*", picks=False)
    _check_in_browser(out / "index.html", tmp_path)


@pytest.mark.slow
def test_committed_page_in_headless_chromium(tmp_path) -> None:
    if not CHROMIUM.exists():
        pytest.skip("/usr/bin/chromium is absent (Debian package `chromium`): cannot render the page")
    index = ROOT / "reports" / "index.html"
    if not index.is_file():
        pytest.skip("no generated report in reports/")
    if 'id="report-contents"' not in index.read_text(encoding="utf-8"):
        pytest.skip("reports/index.html predates the MathML renderer: regenerate it with `make verify`")
    copy = tmp_path / "index.html"
    shutil.copy(index, copy)                                      # no chance of touching reports/
    _check_in_browser(copy, tmp_path)


# --- the figure index ---------------------------------------------------------------------------------

def _results_with_figures() -> list:
    from bounds.evidence import Result

    rows = [Result(key="jia.thm2", evidence="empirical", kind="sensitivity", name=f"m={m}", verdict="holds",
                   statistic=0.1 / m ** 0.5, lo=0.1 / m ** 0.5, hi=0.1 / m ** 0.5, bound=1.0, confidence=0.95, n=50,
                   details={"m": m}) for m in (50, 200, 800)]
    ms = [100.0, 200.0, 400.0, 800.0]
    rows.append(Result(key="jia.thm2", evidence="empirical", kind="rate", name="a schedule [with brackets]",
                       verdict="holds", statistic=-0.5, lo=-0.6, hi=-0.4, bound=-0.5, confidence=0.95, n=50,
                       details={"m": ms, "mean": [m ** -0.5 for m in ms]}))
    return rows


def test_the_report_opens_with_a_figure_index_linking_every_figure(tmp_path) -> None:
    out = tmp_path / "report"
    write_report(out, only="jia.thm2", picks=False, empirical=_results_with_figures())
    md = (out / "REPORT.md").read_text()
    start, roots = md.index("**Figure index**"), md.index("## Root errors")
    assert start < roots and md.index("## ") == roots               # before the first section, not a section
    block = md[start:roots]
    linked = re.findall(r"\]\((figures/[^)]+\.png)\)", block)
    files = sorted(p.relative_to(out).as_posix() for p in (out / "figures").glob("*.png"))
    assert len(files) == 3 and sorted(linked) == files                # every figure, each once, nothing else
    assert "[`jia.thm2`](#s-jia-thm2)" in block and "(#p-jia)" in block   # per paper and per statement
    index = json.loads((out / "summary.json").read_text())["figures"]
    assert sorted(f["path"] for f in index) == files
    assert {(f["key"], f["kind"]) for f in index} == {(None, "overview"), ("jia.thm2", "sensitivity"),
                                                     ("jia.thm2", "rate")}
    page = parse((out / "index.html").read_text())
    fig_links = [h for h in page.hrefs if h.startswith("fig-")]
    assert {f"fig-{Path(f).stem}" for f in files} <= set(fig_links)  # the index links to the embedded figures
    assert not [h for h in page.hrefs if h not in page.ids], "internal links without a target"
    assert page.hrefs[0] == "figure-index"                            # the first entry of the contents


# --- the costly parts done ahead, off the main process (issue 27): the same page -----------------

def _two_figures(d: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (d / "figures").mkdir(parents=True)
    out = []
    for i, name in enumerate(("a", "b")):
        fig, ax = plt.subplots(figsize=(3, 2))
        ax.plot([1, 2, 3], [1, 4 + i, 9], "o-")
        ax.set_title(f"figure {name}")
        fig.savefig(d / "figures" / f"{name}.png", dpi=80)
        plt.close(fig)
        out.append(d / "figures" / f"{name}.png")
    return out


def test_palette_pngs_prepared_in_the_figure_jobs_give_the_same_page(tmp_path) -> None:
    from verify.html import EMBED_DIR, _palette_png, prepare_embedding

    pngs = _two_figures(tmp_path)
    md = "# T\n\n![a](figures/a.png)\n\n![b](figures/b.png)\n\n[again](figures/a.png)\n"
    cold = render_html(md, tmp_path)
    written = prepare_embedding(pngs, tmp_path)
    assert len(written) == 2 and all(p.parent == tmp_path / EMBED_DIR for p in written)
    for png in pngs:                                  # each prepared file is the palette encoding of its PNG
        import hashlib
        prepared = tmp_path / EMBED_DIR / (hashlib.sha256(png.read_bytes()).hexdigest() + ".png")
        assert prepared.read_bytes() == _palette_png(png.read_bytes())
    assert prepare_embedding(pngs, tmp_path) == []    # content-addressed: nothing to do again
    assert render_html(md, tmp_path) == cold
    assert not list((tmp_path / EMBED_DIR).glob("*.part"))


def test_the_page_reads_the_prepared_file_by_the_png_s_content(tmp_path) -> None:
    """The lookup is by the PNG's bytes: a planted file at that name is what the page embeds."""
    import hashlib

    from verify.html import EMBED_DIR

    pngs = _two_figures(tmp_path)
    planted = pngs[1].read_bytes()                    # figure b's bytes, planted as a's palette version
    (tmp_path / EMBED_DIR).mkdir()
    (tmp_path / EMBED_DIR / (hashlib.sha256(pngs[0].read_bytes()).hexdigest() + ".png")).write_bytes(planted)
    page = render_html("# T\n\n![a](figures/a.png)\n", tmp_path)
    src = re.search(r'src="data:image/png;base64,([^"]+)"', page).group(1)
    assert base64.b64decode(src) == planted


def test_figure_jobs_prepare_the_palette_pngs_of_every_figure_they_write(tmp_path) -> None:
    import hashlib

    from bounds.evidence import Result
    from verify.html import EMBED_DIR, _palette_png
    from verify.report import _figure_job

    rows = [Result(key="demo.thm1", evidence="empirical", kind="sensitivity", name=f"m={m}", verdict="holds",
                   statistic=0.5, lo=0.4, hi=0.6, bound=1.0, confidence=0.95, n=10, details={"m": m})
            for m in (50, 200, 800)]
    for kind in ("sensitivity", "overview"):
        _, out = _figure_job((kind, rows, tmp_path / "figures"))
        for ref in out.values():
            data = (tmp_path / ref).read_bytes()
            prepared = tmp_path / EMBED_DIR / (hashlib.sha256(data).hexdigest() + ".png")
            assert prepared.read_bytes() == _palette_png(data)


def test_report_latex_is_sympy_latex_in_this_process_and_in_the_worker_job() -> None:
    import pickle

    from verify.report import _latex_job, latex

    exprs = [e for e in (registry.get(k).stated for k in registry.keys()) if e is not None]
    expected = [sp.latex(e) for e in exprs]
    assert [latex(e) for e in exprs] == expected
    assert _latex_job(pickle.loads(pickle.dumps(exprs))) == expected     # as a worker prints them
