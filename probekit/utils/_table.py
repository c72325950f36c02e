"""A table as an object: what compute modules return and ``probekit.report`` renders.

A :class:`Table` holds formatted cells (what a reader sees), the column alignment, a caption and
notes; :mod:`probekit.report` renders it to Markdown, HTML, LaTeX (booktabs) and CSV, so every
format shows the same cells. It lives here, low in the layers, so that any module returning a
table (a benchmark result, the study report) can build one without importing the renderers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Table"]


@dataclass
class Table:
    """A table: columns, rows of cells, a caption and notes.

    Attributes
    ----------
    columns : list of str
        Column headers.
    rows : list of list
        One list of cells per row (shown as ``str(cell)``; format numbers before).
    caption : str, optional
        The title: a heading above the Markdown table, the LaTeX caption.
    align : str, optional
        One letter per column, ``"l"`` or ``"r"`` (default: the first column left, the others right).
    intro : list of str
        Paragraphs between the caption and the table (what was measured, on what).
    notes : list of str
        Paragraphs after the table (how to read it).
    key : str, optional
        A short identifier: the LaTeX label (``tab:<key>``) and file names.
    records : list of dict
        The rows as numbers (unformatted), where a caller wants them for JSON or CSV.
    """

    columns: list[str]
    rows: list[list[Any]]
    caption: str | None = None
    align: str | None = None
    intro: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    key: str | None = None
    records: list[dict[str, Any]] = field(default_factory=list)

    @property
    def alignment(self) -> str:
        """One letter per column (``align`` padded with ``"r"``, or its default)."""
        n = len(self.columns)
        return (self.align or "l" + "r" * (n - 1))[:n].ljust(n, "r")
