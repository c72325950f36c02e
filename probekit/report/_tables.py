"""Rendering :class:`probekit.utils.Table` objects: Markdown, HTML, LaTeX (booktabs) and CSV.

Every format is made from the same object, so they show the same cells; nothing is parsed back
from Markdown. A report is a list of *blocks*: Markdown text lines and tables
(:func:`blocks_markdown`, :func:`blocks_tables`); the HTML page and the LaTeX files take the tables
from the blocks, the Markdown renders them in place.
"""

from __future__ import annotations

import csv
import html
import io
import os
import re
from pathlib import Path
from typing import Any, Sequence, Union

from probekit.report._format import latex_table, markdown_table
from probekit.utils import Table, atomic_path

__all__ = [
    "Block",
    "table_lines",
    "table_markdown",
    "table_latex",
    "table_html",
    "table_csv",
    "blocks_markdown",
    "blocks_tables",
    "cell_text",
    "write_latex_blocks",
    "html_table",
    "inline_html",
]

#: One block of a report: a line of Markdown text or a table.
Block = Union[str, Table]


def cell_text(value: Any) -> str:
    """A cell as one line of text (line breaks as spaces, outer spaces removed)."""
    return str(value).replace("\n", " ").strip()


def table_lines(table: Table, heading_level: int | None = None) -> list[str]:
    """Markdown lines of ``table``: the caption as a heading (with ``heading_level``), the intro
    paragraphs, the pipe table and the notes.
    """
    lines: list[str] = []
    if heading_level and table.caption:
        lines += [f"{'#' * heading_level} {table.caption}", ""]
    for paragraph in table.intro:
        lines += [paragraph, ""]
    lines += markdown_table(table.columns, table.rows, table.align)
    for note in table.notes:
        lines += ["", note]
    return lines


def table_markdown(table: Table, heading_level: int = 1) -> str:
    """``table`` as a Markdown document (the ``summary.md`` of a benchmark run)."""
    return "\n".join(table_lines(table, heading_level)) + "\n"


def table_latex(table: Table, *, caption: str | None = None, label: str | None = None) -> str:
    r"""``table`` as a booktabs LaTeX table (:func:`probekit.report.latex_table`).

    ``caption`` and ``label`` default to the table's caption and ``tab:<key>``.
    """
    label = label or (f"tab:{table.key}" if table.key else None)
    rows = [[cell_text(c) for c in row] for row in table.rows]
    return latex_table([cell_text(c) for c in table.columns], rows, table.alignment,
                       caption=caption if caption is not None else table.caption, label=label)


def inline_html(text: str) -> str:
    """Text as HTML: escaped, with inline ``code`` and **bold** of the report's Markdown rendered."""
    out = html.escape(text, quote=False)
    out = re.sub(r"`([^`]+)`", r"<code>\1</code>", out)
    return re.sub(r"\*\*([^*]+)\*\*", r"<strong>\1</strong>", out)


def html_table(header: Sequence[Any], rows: Sequence[Sequence[Any]], align: str | None) -> str:
    """An HTML table (numbers right-aligned by ``align``; inline ``code`` and **bold** rendered)."""
    aligns = align or "l" + "r" * (len(header) - 1)

    def cls(k: int) -> str:
        return ' class="r"' if k < len(aligns) and aligns[k] == "r" else ""

    parts = ["<div class=\"tbl\"><table><thead><tr>"]
    parts += [f"<th{cls(k)}>{inline_html(cell_text(c))}</th>" for k, c in enumerate(header)]
    parts.append("</tr></thead><tbody>")
    for row in rows:
        parts.append("<tr>" + "".join(f"<td{cls(k)}>{inline_html(cell_text(c))}</td>" for k, c in enumerate(row)) + "</tr>")
    parts.append("</tbody></table></div>")
    return "".join(parts)


def table_html(table: Table) -> str:
    """``table`` as an HTML table (the report page's style)."""
    return html_table(table.columns, table.rows, table.align)


def table_csv(table: Table) -> str:
    """``table`` as CSV: the header and the cells as shown."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([cell_text(c) for c in table.columns])
    writer.writerows([[cell_text(c) for c in row] for row in table.rows])
    return buffer.getvalue()


def blocks_markdown(blocks: Sequence[Block]) -> list[str]:
    """The Markdown lines of a list of blocks (tables rendered in place, without their caption)."""
    lines: list[str] = []
    for block in blocks:
        lines += table_lines(block) if isinstance(block, Table) else [block]
    return lines


def blocks_tables(blocks: Sequence[Block]) -> list[tuple[str, Table]]:
    """Every table of ``blocks`` with its title: its caption, else the nearest heading above it."""
    found: list[tuple[str, Table]] = []
    title = ""
    for block in blocks:
        if isinstance(block, Table):
            found.append((block.caption or title, block))
            continue
        for line in str(block).splitlines():
            if line.startswith("#"):
                title = line.lstrip("#").strip()
    return found


def write_latex_blocks(blocks: Sequence[Block], directory: str | os.PathLike, *, prefix: str = "table") -> list[Path]:
    """Write every table of ``blocks`` as a booktabs LaTeX file ``directory/PREFIX_NN_<title>.tex``
    (atomically; caption: the table's title, label ``tab:PREFIX-NN``); returns the paths.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, (title, table) in enumerate(blocks_tables(blocks), start=1):
        stem = re.sub(r"[^A-Za-z0-9]+", "_", title).strip("_").lower()[:40] or "table"
        path = out / f"{prefix}_{k:02d}_{stem}.tex"
        text = table_latex(table, caption=title or "", label=f"tab:{prefix}-{k}")
        with atomic_path(path, suffix=".tmp.tex") as tmp:
            Path(tmp).write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
