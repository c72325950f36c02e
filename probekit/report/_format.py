"""Number formatting and small helpers shared by the report's tables and figures."""

from __future__ import annotations

import math
import os
import re
import textwrap
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.errors import InputFileError
from probekit.utils import atomic_path, read_json_file

#: What a table cell shows for a value that was not measured.
DASH = "—"


def num(value: Any) -> float:
    """``value`` as a float; ``None``, missing and non-numeric values become NaN."""
    if value is None or isinstance(value, bool):
        return math.nan
    try:
        return float(value)
    except (TypeError, ValueError):
        return math.nan


def finite(value: Any) -> bool:
    return math.isfinite(num(value))


def fmt(value: Any, digits: int = 3, *, missing: str = DASH, scientific: bool = True) -> str:
    """A number for a table: ``digits`` decimals, scientific notation for tiny or huge values
    (unless ``scientific`` is false), ``missing`` for a missing or undefined value.
    """
    x = num(value)
    if not math.isfinite(x):
        return missing
    if scientific and x != 0 and (abs(x) < 10 ** -digits or abs(x) >= 10**5):
        return f"{x:.1e}"
    return f"{x:.{digits}f}"


def fmt_value(value: Any, digits: int = 3, *, missing: str = "n/a") -> str:
    """A cell of summary.md: floats as :func:`fmt` (``missing`` when undefined), other values
    (integers, text) as they are.
    """
    if value is None or isinstance(value, float):
        return fmt(value, digits, missing=missing)
    return str(value)


def fmt_p(value: Any) -> str:
    """A p-value: 3 decimals, scientific notation below 0.001."""
    x = num(value)
    if not math.isfinite(x):
        return DASH
    return f"{x:.1e}" if 0 < x < 1e-3 else f"{x:.3f}"


def fmt_ci(estimate: Any, low: Any, high: Any, digits: int = 3) -> str:
    """``estimate [low, high]``, or the estimate alone when the interval is missing."""
    if not finite(estimate):
        return DASH
    if not (finite(low) and finite(high)):
        return fmt(estimate, digits)
    return f"{fmt(estimate, digits)} [{fmt(low, digits)}, {fmt(high, digits)}]"


def fmt_pm(mean: Any, margin: Any, digits: int = 3, *, missing: str = DASH, scientific: bool = True) -> str:
    """``mean ± margin`` (the margin left out when undefined; ``missing`` for an undefined mean)."""
    if not finite(mean):
        return missing
    if not finite(margin):
        return fmt(mean, digits, scientific=scientific)
    return f"{fmt(mean, digits, scientific=scientific)} ± {fmt(margin, digits, scientific=scientific)}"


def fmt_stat(stats: Mapping[str, Any] | None, digits: int = 3) -> str:
    """A cell of a fold summary (``mean``, ``margin``): ``mean ± margin`` in fixed notation, "n/a"
    when missing (the fine-tuning tables, Tokpo et al. 2023 Tables 3-4).
    """
    if not stats:
        return "n/a"
    return fmt_pm(stats.get("mean"), stats.get("margin"), digits, missing="n/a", scientific=False)


def interval(value: Any) -> tuple[float, float]:
    """A ``[low, high]`` pair from JSON (list, tuple or mapping with low/high); NaNs when absent."""
    if isinstance(value, Mapping):
        return num(value.get("low")), num(value.get("high"))
    if isinstance(value, Sequence) and not isinstance(value, str) and len(value) == 2:
        return num(value[0]), num(value[1])
    return math.nan, math.nan


def md_escape(text: Any) -> str:
    """Text safe inside a Markdown table cell (pipes escaped, no line breaks)."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None) -> list[str]:
    """Lines of a pipe table; ``align`` has one letter per column ('l' or 'r'; default: first
    column left, the others right).
    """
    align = align or "l" + "r" * (len(header) - 1)
    lines = ["| " + " | ".join(md_escape(h) for h in header) + " |"]
    lines.append("|" + "|".join("---:" if a == "r" else "---" for a in align) + "|")
    for row in rows:
        lines.append("| " + " | ".join(md_escape(c) for c in row) + " |")
    return lines


_NUMERIC = re.compile(r"^(?:[-+−]?\d|—$|n/a$)")


def numeric_align(rows: Sequence[Sequence[Any]], width: int) -> str:
    """Alignment letters for :func:`markdown_table`: the first column left, any other column right
    when every cell of it is a number (or a dash, or "n/a").
    """
    letters = ["l"]
    for k in range(1, width):
        column = [str(row[k]).strip() for row in rows if k < len(row)]
        letters.append("r" if column and all(_NUMERIC.match(c) for c in column) else "l")
    return "".join(letters)


def pyplot() -> Any:
    """Matplotlib's pyplot on the non-interactive Agg backend (imported on first use)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig: Any, path: str | os.PathLike, *, tight: bool = True, dpi: int = 130) -> Path:
    """Write ``fig`` as a PNG atomically and close it (``tight``: crop to the drawn area)."""
    plt = pyplot()
    with atomic_path(path, suffix=".tmp.png") as tmp:
        fig.savefig(tmp, dpi=dpi, format="png", bbox_inches="tight" if tight else None)
    plt.close(fig)
    return Path(path)


def slug(text: str) -> str:
    """``text`` as a file-name part (letters, digits, '.', '_', '-'; at most 60 characters)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", str(text)).strip("_")[:60] or "x"


def wrap(label: str, width: int = 26) -> str:
    """A label wrapped onto several lines for a figure axis."""
    return "\n".join(textwrap.wrap(str(label), width=width, break_long_words=True, break_on_hyphens=False)) or str(label)


def read_saved_json(path: str | os.PathLike, filename: str, what: str) -> dict[str, Any]:
    """Read saved JSON: ``path`` itself, or ``path/filename`` when ``path`` is a directory.

    Raises :class:`~probekit.errors.InputFileError` naming the file when it is missing or not valid JSON.
    """
    file = Path(path)
    if file.is_dir():
        file = file / filename
    if not file.is_file():
        raise InputFileError(f"no {what} at {str(file)!r}")
    try:
        return read_json_file(file)
    except (UnicodeDecodeError, ValueError) as exc:
        raise InputFileError(f"{str(file)!r} is not a valid {filename}: {exc}") from None


# ------------------------------------------------------------------------------------------- LaTeX

_LATEX_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "|": r"\textbar{}", "<": r"\textless{}", ">": r"\textgreater{}",
}
# Characters of the Markdown tables that pdflatex cannot typeset as they are.
_LATEX_UNICODE = {
    "±": r"$\pm$", "—": "---", "–": "--", "−": "$-$", "Δ": r"$\Delta$", "ρ": r"$\rho$", "τ": r"$\tau$",
    "×": r"$\times$", "≤": r"$\le$", "≥": r"$\ge$", "≈": r"$\approx$", "→": r"$\to$", "·": r"$\cdot$",
    "✓": "yes", "✗": "no", "…": r"\ldots{}", "’": "'", "α": r"$\alpha$", "σ": r"$\sigma$",
}


def latex_escape(text: Any) -> str:
    r"""Text safe in a LaTeX table cell: ``& % $ # _ { } ~ ^ \\ |`` escaped, common symbols (± — Δ ρ ...)
    as LaTeX, Markdown ``**bold**`` as ``\\textbf`` and ```code``` as ``\\texttt``.
    """
    out: list[str] = []
    for part in re.split(r"(\*\*[^*]+\*\*|`[^`]+`)", str(text).replace("\n", " ")):
        if part.startswith("**") and part.endswith("**") and len(part) > 4:
            out.append(r"\textbf{" + latex_escape(part[2:-2]) + "}")
        elif part.startswith("`") and part.endswith("`") and len(part) > 2:
            out.append(r"\texttt{" + latex_escape(part[1:-1]) + "}")
        else:
            out.append("".join(_LATEX_SPECIALS.get(c) or _LATEX_UNICODE.get(c) or c for c in part))
    return "".join(out)


def latex_table(header: Sequence[str], rows: Sequence[Sequence[Any]], align: str | None = None, *,
                caption: str | None = None, label: str | None = None) -> str:
    r"""A booktabs table (``\\toprule``/``\\midrule``/``\\bottomrule``; needs ``\\usepackage{booktabs}``)
    from the header and rows :func:`markdown_table` takes; every cell escaped with :func:`latex_escape`.

    ``align`` has one letter per column ('l' or 'r'; default: first column left, the others right).
    """
    align = (align or "l" + "r" * (len(header) - 1))[: len(header)].ljust(len(header), "r")
    lines = [r"\begin{table}[ht]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    if label:
        lines.append(r"\label{" + re.sub(r"[^A-Za-z0-9:._-]+", "-", label) + "}")
    lines += [r"\begin{tabular}{" + align + "}", r"\toprule", " & ".join(latex_escape(h) for h in header) + r" \\",
              r"\midrule"]
    for row in rows:
        cells = [latex_escape(c) for c in row] + [""] * (len(header) - len(row))
        lines.append(" & ".join(cells[: len(header)]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


def _split_row(line: str) -> list[str]:
    body = line.strip()
    body = body[1:] if body.startswith("|") else body
    body = body[:-1] if body.endswith("|") and not body.endswith("\\|") else body
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", body)]


def markdown_tables(markdown: str) -> list[dict[str, Any]]:
    """The pipe tables of a Markdown text, read back into ``title`` (the nearest heading above),
    ``header``, ``rows`` and ``align`` (from the separator line), the input of :func:`latex_table`.
    """
    tables: list[dict[str, Any]] = []
    lines = markdown.splitlines()
    title, k = "", 0
    while k < len(lines):
        line = lines[k]
        if line.startswith("#"):
            title = line.lstrip("#").strip()
        separator = lines[k + 1].strip() if k + 1 < len(lines) else ""
        if line.strip().startswith("|") and re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*:?-*:?\s*", separator):
            align = "".join("r" if c.endswith(":") else "l" for c in _split_row(separator))
            rows, k = [], k + 2
            while k < len(lines) and lines[k].strip().startswith("|"):
                rows.append(_split_row(lines[k]))
                k += 1
            tables.append({"title": title, "header": _split_row(line), "rows": rows, "align": align})
            continue
        k += 1
    return tables


def write_latex_tables(markdown: str, directory: str | os.PathLike, *, prefix: str = "table") -> list[Path]:
    """Write every pipe table of ``markdown`` as a booktabs LaTeX file ``directory/PREFIX_NN_<title>.tex``
    (atomically); returns the paths.
    """
    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    paths = []
    for k, table in enumerate(markdown_tables(markdown), start=1):
        stem = re.sub(r"[^A-Za-z0-9]+", "_", table["title"]).strip("_").lower()[:40] or "table"
        path = out / f"{prefix}_{k:02d}_{stem}.tex"
        text = latex_table(table["header"], table["rows"], table["align"], caption=table["title"] or None,
                           label=f"tab:{prefix}-{k}")
        with atomic_path(path, suffix=".tmp.tex") as tmp:
            Path(tmp).write_text(text, encoding="utf-8")
        paths.append(path)
    return paths
