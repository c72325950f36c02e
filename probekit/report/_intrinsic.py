r"""Intrinsic comparison of several checkpoints: Tokpo et al. (2023) Tables 1-2 and Figures 2-4.

The tables are built in :mod:`probekit.report._intrinsic_tables`, the figures in
:mod:`probekit.report._intrinsic_figures`; this module assembles the document and writes the comparison.

Input and intervals: as described in :mod:`probekit.report._intrinsic_tables` (one description, there).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.errors import InvalidParameterError
from probekit.report._intrinsic_figures import intrinsic_figures, plot_intrinsic_overview
from probekit.report._intrinsic_tables import (
    Run,
    _layer_table,
    _provenance_lines,
    _standard_tests_table,
    _table1,
    _table2,
    _table2b,
    _thin_evidence_lines,
    intrinsic_records,
)
from probekit.report._summary import _evidence_lines as summary_evidence_lines
from probekit.report._tables import Block, blocks_markdown, write_latex_blocks
from probekit.utils import atomic_write_text, write_json

__all__ = ["intrinsic_markdown", "intrinsic_blocks", "write_intrinsic_comparison"]


def _evidence_lines(runs: Sequence[Run]) -> list[Block]:
    """The single-run summary's "evidence per word set" table, when the results carry evidence."""
    if not any(run.get("evidence") for _, run in runs):
        return []
    try:
        return list(summary_evidence_lines([label for label, _ in runs], [run for _, run in runs]))
    except (KeyError, TypeError, ValueError, AttributeError):  # a layout this version does not know
        return []


def intrinsic_blocks(
    runs: Sequence[Run],
    *,
    title: str | None = "probekit intrinsic comparison",
    heading_level: int = 1,
    records: Sequence[Mapping[str, Any]] | None = None,
    figures: Mapping[str, str] | None = None,
    provenance: bool = True,
) -> list[Block]:
    r"""Tables 1 and 2 (Tokpo et al. 2023) for several runs, plus the standard SEAT tests, as report blocks.

    Table 1: SEAT test statistic :math:`\sum_{x\in X} s(x,A,B) - \sum_{y\in Y} s(y,A,B)`, effect
    size :math:`(\bar s_X - \bar s_Y)/\mathrm{sd}_{X\cup Y}(s)` with its bootstrap interval,
    permutation p-value, attr-LPBS and target-LPBS with bootstrap intervals over targets ("—" and the
    reason where the checkpoint has no masked-LM head). Table 2: gender accuracy, stereotype
    accuracy (fair: 0.5), stereotype confidence :math:`\mathrm{mean}_i|p_f(e_i) - 0.5|`, the
    randomization-test and permutation p-values; a further table shows the balanced / word-level
    accuracies, calibration and MDL when the results carry them.

    Parameters
    ----------
    runs : sequence of (label, results) pairs
    title : str or None
        Heading of the document (``None``: no heading, for embedding in a larger report).
    heading_level : int
        Markdown level of ``title``; tables get the next level.
    records : sequence of dict, optional
        :func:`intrinsic_records` of ``runs`` (computed when not given).
    figures : mapping of str to str, optional
        Figure name -> relative path of a PNG to reference under the tables.
    provenance : bool
        List each run's model fingerprint, probekit version and seeds.
    """
    runs = list(runs)
    records = list(records) if records is not None else intrinsic_records(runs)
    h = "#" * heading_level
    hh = "#" * (heading_level + 1)
    lines: list[Block] = []
    if title:
        lines += [f"{h} {title}", ""]
    if not runs:
        return lines + ["No intrinsic results.", ""]
    lines += _table1(records, hh)
    lines += _table2(records, hh)
    lines += _table2b(records, hh)
    lines += _thin_evidence_lines(records)
    lines += _standard_tests_table(runs, hh)
    evidence = _evidence_lines(runs)
    if evidence:
        lines += [line.replace("## Evidence per word set", f"{hh} Evidence per word set", 1) if isinstance(line, str)
                  else line for line in evidence]
    layers = _layer_table(runs, hh)
    if layers:
        lines += layers
    if figures:
        lines.append("")
        for caption, path in figures.items():
            lines += [f"![{caption}]({path})", ""]
    if provenance:
        lines += _provenance_lines(runs, hh)
    return lines


def intrinsic_markdown(
    runs: Sequence[Run],
    *,
    title: str | None = "probekit intrinsic comparison",
    heading_level: int = 1,
    records: Sequence[Mapping[str, Any]] | None = None,
    figures: Mapping[str, str] | None = None,
    provenance: bool = True,
) -> str:
    """The Markdown of :func:`intrinsic_blocks` (same arguments): Tables 1-2, 2b, the standard SEAT
    tests, the evidence and layer tables, figure links and the runs.
    """
    runs = list(runs)
    blocks = intrinsic_blocks(runs, title=title, heading_level=heading_level, records=records, figures=figures,
                              provenance=provenance)
    text = "\n".join(blocks_markdown(blocks))
    return text if not runs else text.rstrip() + "\n"


def write_intrinsic_comparison(
    runs: Sequence[Run],
    out_dir: str | os.PathLike,
    *,
    title: str = "probekit intrinsic comparison",
    sources: Sequence[str | None] | None = None,
    n_bootstrap: int = 1000,
    random_state: int = 0,
    extra_blocks: Sequence[Block] = (),
    latex_prefix: str | None = None,
) -> dict[str, Path]:
    """Write a comparison of several ``probekit probe`` results into ``out_dir``.

    Files: ``comparison.md`` (Tables 1, 2 and 2b, the standard SEAT tests, figure links),
    ``comparison.png`` (overview: SEAT, LPBS and the probe, one row per run),
    ``figures/seat_lpbs.png``, ``figures/lpbs_attr_target.png`` (when some run has LPBS),
    ``figures/probe.png``, ``figures/probe_layers.png`` (when some run has per-layer results) and
    ``comparison.json`` (the flat records behind the tables). Every file is
    written atomically.

    Parameters
    ----------
    runs : sequence of (label, results) pairs
        ``results``: a ``results.json`` dict (:func:`probekit.report._summary.load_results`).
    out_dir : path
    title : str
    sources : sequence of str, optional
        Where each run's ``results.json`` lies (relative to ``out_dir`` where possible); saved in
        ``comparison.json`` so that ``probekit report`` can rebuild the comparison.
    n_bootstrap, random_state
        Bootstrap of the LPBS intervals over targets.
    extra_blocks : sequence of report blocks
        Appended to the document (e.g. the standard benchmarks' tables).
    latex_prefix : str, optional
        Also write every table of the document as booktabs LaTeX, ``tables/<prefix>_NN_<title>.tex``
        (from the table objects).

    Returns
    -------
    dict
        ``"markdown"``, ``"overview"``, ``"records"``, one entry per figure and (``latex_prefix``)
        ``"latex-NN"`` per LaTeX table -> path.
    """
    runs = [(str(label), results) for label, results in runs]
    if not runs:
        raise InvalidParameterError("runs", [], "at least one (label, results) pair")
    labels = [label for label, _ in runs]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError("runs", labels, "distinct labels")
    out = Path(out_dir)
    records = intrinsic_records(runs, n_bootstrap=n_bootstrap, random_state=random_state)
    if sources is not None:
        if len(sources) != len(runs):
            raise InvalidParameterError("sources", f"{len(sources)} paths", f"one per run ({len(runs)})")
        for record, source in zip(records, sources):
            record["results"] = None if source is None else str(source)
    figures = intrinsic_figures(records, out / "figures")
    paths: dict[str, Path] = {"overview": plot_intrinsic_overview(records, out / "comparison.png")}
    links = {"Overview: SEAT, LPBS and the probe per run": "comparison.png"}
    links.update({caption: f"figures/{path.name}" for caption, path in figures.items()})
    blocks = intrinsic_blocks(runs, title=title, records=records, figures=links)
    markdown = "\n".join(blocks_markdown(blocks)).rstrip() + "\n"
    if extra_blocks:
        markdown = markdown.rstrip() + "\n\n" + "\n".join(blocks_markdown(extra_blocks))
    paths["markdown"] = atomic_write_text(out / "comparison.md", markdown)
    if latex_prefix:
        latex = write_latex_blocks([*blocks, *extra_blocks], out / "tables", prefix=latex_prefix)
        paths.update({f"latex-{k:02d}": path for k, path in enumerate(latex, start=1)})
    paths["records"] = write_json(out / "comparison.json", {"runs": records})
    paths.update({path.stem: path for path in figures.values()})
    return paths
