"""``reports/index.html``: the Markdown report as one self-contained HTML page.

The page is rendered from the same Markdown as ``REPORT.md`` (Python-Markdown
with its ``tables`` extension), so the two cannot disagree.  Figures are
embedded as base64 PNG data URIs and the style sheet is inline: the file opens
offline, attached to an e-mail or from any folder.  LaTeX stays as ``$$…$$``
source text (no script is loaded).
"""

from __future__ import annotations

import base64
import html
import re
from pathlib import Path

import markdown

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;max-width:1200px;margin:2em auto;
padding:0 1em;line-height:1.45;color:#222}
table{border-collapse:collapse;margin:1em 0;font-size:0.9em}
th,td{border:1px solid #ccc;padding:0.25em 0.5em;vertical-align:top}
th{background:#f2f2f2}
tr:nth-child(even) td{background:#fafafa}
code{background:#f4f4f4;padding:0 0.2em}
img{max-width:100%;border:1px solid #eee;margin:0.5em 0}
h2{border-bottom:2px solid #ddd;padding-bottom:0.2em;margin-top:2em}
strong{color:#000}
"""


def _embed_images(body: str, base: Path) -> str:
    def repl(mt: re.Match[str]) -> str:
        src = html.unescape(mt.group(1))
        p = base / src
        if src.startswith("data:") or not p.is_file() or p.suffix.lower() != ".png":
            return mt.group(0)
        data = base64.b64encode(p.read_bytes()).decode("ascii")
        return f'src="data:image/png;base64,{data}"'

    return re.sub(r'src="([^"]+)"', repl, body)


def render_html(markdown_text: str, base: Path, title: str = "dp-erm-verify report") -> str:
    """HTML page of the report; images under ``base`` are embedded.

    Examples
    --------
    >>> from pathlib import Path
    >>> page = render_html("# T\\n\\n| a |\\n|---|\\n| 1 |\\n", Path("."))
    >>> "<table>" in page and "<h1" in page
    True
    """
    body = markdown.markdown(markdown_text, extensions=["tables"])
    body = _embed_images(body, Path(base))
    return (f"<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{CSS}</style></head>\n<body>\n{body}\n</body></html>\n")
