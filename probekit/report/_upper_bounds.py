"""Upper bounds beside the verdict: every reader after a label-aware eraser (oracle or quadratic LEACE),
laid out from saved ``results.json`` only (``results["upper_bounds"]``, written by ``probekit probe
--upper-bounds``; see :mod:`probekit.intrinsic._upper_bounds`).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

from probekit.report._tables import Block, blocks_markdown
from probekit.report._verdict import verdict_blocks
from probekit.utils import Table

__all__ = ["upper_bound_blocks", "upper_bound_markdown", "upper_bound_runs"]


def upper_bound_blocks(results: Mapping[str, Any], *, heading_level: int = 2) -> list[Block]:
    """One table per label-aware eraser: per hidden state, each reader's held-out balanced accuracy
    [interval], control / selectivity and the verdict, with the eraser's note (why it is an upper bound
    and how it met the words); ``[]`` without upper bounds.
    """
    bounds = results.get("upper_bounds") or {}
    if not bounds:
        return []
    blocks: list[Block] = [f"{'#' * heading_level} Upper bounds: label-aware erasers (not deployable)", ""]
    for name, bound in bounds.items():
        laid_out = verdict_blocks({"per_layer": {"rows": bound["rows"]}}, heading_level=heading_level + 1)
        table = next(block for block in laid_out if isinstance(block, Table))
        notes = [note for note in table.notes if not note.startswith("Erasure check")]
        caption = f"After {bound['title']}"
        blocks += [f"{'#' * (heading_level + 1)} {caption}", "",
                   dataclasses.replace(table, caption=caption, key=f"upper_bound_{name}",
                                       notes=[f"Erasure: {bound['note']['message']}", *notes]), ""]
    return blocks


def upper_bound_markdown(results: Mapping[str, Any], *, heading_level: int = 2) -> str:
    """:func:`upper_bound_blocks` as Markdown ("" without upper bounds)."""
    blocks = upper_bound_blocks(results, heading_level=heading_level)
    return "\n".join(blocks_markdown(blocks)) if blocks else ""


def upper_bound_runs(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[tuple[str, dict[str, Any]]]:
    """Each run's upper bounds as runs of their own (``"LABEL + oracle LEACE (upper bound)"``) for the
    methods x layers verdict table and figure; ``[]`` when no run has one.
    """
    return [(f"{label} + {bound['title']}", {"per_layer": {"rows": bound["rows"]}})
            for label, results in runs for bound in (results.get("upper_bounds") or {}).values()]
