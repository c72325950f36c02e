"""One self-contained HTML page from the report's Markdown (figures embedded as base64 PNG).

Only the Markdown the report itself writes is understood: ATX headings, pipe tables, "- " lists,
images on their own line, paragraphs, and inline ``code`` and **bold**. Every text is HTML-escaped;
the page references nothing outside itself (no scripts, fonts, style sheets or image files).
"""

from __future__ import annotations

import base64
import html
import os
import re
from pathlib import Path
from typing import Sequence

from probekit.report._tables import Block, html_table, inline_html, table_html
from probekit.utils import Table

__all__ = ["markdown_to_html", "blocks_html"]

_CSS = """
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;font-size:14px;line-height:1.45;color:#222;
max-width:1320px;margin:0 auto;padding:16px 28px 60px;background:#fff}
h1{font-size:26px;border-bottom:2px solid #ddd;padding-bottom:6px}
h2{font-size:21px;margin-top:34px;border-bottom:1px solid #e4e4e4;padding-bottom:4px}
h3{font-size:17px;margin-top:24px}h4{font-size:15px;margin-top:18px}
.tbl{overflow-x:auto;margin:8px 0 12px}
table{border-collapse:collapse;font-size:12.5px}
th,td{border:1px solid #d6d6d6;padding:4px 8px;vertical-align:top}
th{background:#f3f5f8;text-align:left}
td.r,th.r{text-align:right;white-space:nowrap}
tr:nth-child(even) td{background:#fafafa}
figure{margin:14px 0 22px}figure img{max-width:100%;height:auto;border:1px solid #eee}
figcaption{font-size:12.5px;color:#555;margin-top:4px}
code{background:#f2f2f2;padding:1px 4px;border-radius:3px;font-size:12.5px}
ul{padding-left:22px}li{margin:2px 0}
.toc{background:#f7f9fb;border:1px solid #e3e8ee;padding:8px 16px;font-size:13px}
"""

_IMAGE = re.compile(r"^!\[(?P<alt>[^\]]*)\]\((?P<src>[^)]+)\)\s*$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_SEPARATOR = re.compile(r"^\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def _cells(line: str) -> list[str]:
    body = line.strip()
    if body.startswith("|"):
        body = body[1:]
    if body.endswith("|") and not body.endswith("\\|"):
        body = body[:-1]
    parts = re.split(r"(?<!\\)\|", body)
    return [p.strip().replace("\\|", "|") for p in parts]


def _slug(text: str, taken: set[str]) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "section"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


def _image(src: str, alt: str, base_dir: Path | None) -> str:
    if src.startswith("data:"):
        data_uri = src
    else:
        path = Path(src) if base_dir is None or Path(src).is_absolute() else base_dir / src
        if not path.is_file():
            return f"<p><em>missing figure: {html.escape(src)}</em></p>"
        data_uri = "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{html.escape(alt)}" src="{data_uri}">'
            f"<figcaption>{inline_html(alt)}</figcaption></figure>")


def markdown_to_html(markdown: str, *, title: str = "probekit report", base_dir: str | os.PathLike | None = None,
                     toc: bool = True) -> str:
    """Render the report's Markdown as one self-contained HTML document.

    Parameters
    ----------
    markdown : str
    title : str
        The page title.
    base_dir : path, optional
        Directory that relative image paths are read from (their bytes are embedded).
    toc : bool
        Add a table of contents of the second-level headings after the first heading.
    """
    return blocks_html(markdown.splitlines(), title=title, base_dir=base_dir, toc=toc)


def blocks_html(blocks: Sequence[Block], *, title: str = "probekit report", base_dir: str | os.PathLike | None = None,
                toc: bool = True) -> str:
    """Render report blocks (Markdown lines and :class:`probekit.utils.Table` objects) as one
    self-contained HTML document; the tables come from the objects. Arguments as :func:`markdown_to_html`.
    """
    base = Path(base_dir) if base_dir is not None else None
    lines: list[Block] = [part for block in blocks
                          for part in ([block] if isinstance(block, Table) else str(block).splitlines() or [""])]
    body: list[str] = []
    headings: list[tuple[int, str, str]] = []
    taken: set[str] = set()
    paragraph: list[str] = []
    items: list[str] = []

    def flush() -> None:
        if paragraph:
            body.append("<p>" + inline_html(" ".join(paragraph)) + "</p>")
            paragraph.clear()
        if items:
            body.append("<ul>" + "".join(f"<li>{inline_html(item)}</li>" for item in items) + "</ul>")
            items.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if isinstance(line, Table):
            flush()
            body.append(table_html(line))
            i += 1
            continue
        stripped = line.strip()
        heading = _HEADING.match(stripped)
        image = _IMAGE.match(stripped)
        if not stripped:
            flush()
        elif heading:
            flush()
            level = len(heading.group(1))
            slug = _slug(heading.group(2), taken)
            headings.append((level, heading.group(2), slug))
            body.append(f'<h{level} id="{slug}">{inline_html(heading.group(2))}</h{level}>')
        elif image:
            flush()
            body.append(_image(image.group("src"), image.group("alt"), base))
        elif stripped.startswith("|") and i + 1 < len(lines) and _SEPARATOR.match(str(lines[i + 1]).strip()):
            flush()
            header = _cells(stripped)
            aligns = "".join("r" if cell.strip().endswith(":") else "l" for cell in _cells(lines[i + 1].strip()))
            rows = []
            i += 2
            while i < len(lines) and isinstance(lines[i], str) and lines[i].strip().startswith("|"):
                rows.append(_cells(lines[i]))
                i += 1
            body.append(html_table(header, rows, aligns))
            continue
        elif stripped.startswith("- "):
            if paragraph:
                flush()
            items.append(stripped[2:])
        else:
            if items:
                flush()
            paragraph.append(stripped)
        i += 1
    flush()
    if toc:
        entries = [(level, text, slug) for level, text, slug in headings if level == 2]
        if len(entries) > 1:
            nav = ('<nav class="toc"><strong>Contents</strong><ul>'
                   + "".join(f'<li><a href="#{slug}">{inline_html(text)}</a></li>' for _, text, slug in entries) + "</ul></nav>")
            first = next((k for k, part in enumerate(body) if part.startswith("<h1")), -1)
            body.insert(first + 1, nav)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        f"<title>{html.escape(title)}</title>\n<style>{_CSS}</style>\n</head>\n<body>\n"
        + "\n".join(body) + "\n</body>\n</html>\n"
    )
