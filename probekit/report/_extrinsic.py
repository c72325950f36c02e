"""Extrinsic tables and figures of a study: Tokpo et al. (2023) Tables 3-4 and Figures 5-6 style.

Input: finished fine-tuning units of a study (``DIR/units/<id>.json`` with ``kind == "finetune"``,
one cross-validation fold each; ``result`` is the fold entry of :mod:`probekit.finetune`: ``fold``,
``metrics``, ``per_class``, ``warnings``, ...). Folds of one (encoder, method, dataset, setting)
are summarized with :func:`probekit.stats.summarize_run`, the function behind ``metrics.json``
(mean, sample sd and Student-t interval over folds, leakage, noise floors, per-class diagnostics),
into the layout of a ``metrics.json``, so the fine-tuning report's ``finetune_records`` builds the
rows the fine-tuning report also renders. No metric is computed here.
"""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.report._format import num, pyplot, save_figure, wrap
from probekit.report._labels import SETTING_ORDER, method_rank
from probekit.report._results import finetune_records, render_finetune
from probekit.report._tables import Block, blocks_markdown
from probekit.stats import fold_entries, summarize_run

logger = logging.getLogger(__name__)

__all__ = ["EXTRINSIC_MEASURES", "finetune_groups", "extrinsic_markdown", "extrinsic_blocks", "plot_tprd_cf", "plot_tprd_vs_cf"]

#: Extrinsic measures offered to the correlation analysis: metric name -> display name.
EXTRINSIC_MEASURES = {"tprd": "TPRD", "cf": "CF", "fprd": "FPRD", "cf_tprd": "CF-TPRD"}


def _setting_rank(setting: Any) -> tuple[int, str]:
    name = str(setting)
    return (SETTING_ORDER.index(name) if name in SETTING_ORDER else len(SETTING_ORDER), name)


def finetune_groups(
    units: Sequence[Mapping[str, Any]],
    *,
    encoder_order: Sequence[str] | None = None,
    dataset_order: Sequence[str] | None = None,
    confidence: float = 0.95,
) -> list[dict[str, Any]]:
    """Group fold units by (encoder, method, dataset, setting) and summarize their folds.

    Parameters
    ----------
    units : sequence of dict
        Study units of kind ``"finetune"`` (``params`` with ``encoder``, ``method``, ``dataset``,
        ``setting``, ``fold``; ``result``: the fold entry; ``provenance``).
    encoder_order, dataset_order : sequence of str, optional
        Order of the groups (default: alphabetical); methods follow :data:`METHOD_ORDER` and
        settings original, scrubbed, swapped.
    confidence : float
        Level of the t-intervals over folds.

    Returns
    -------
    list of dict
        ``encoder``, ``method``, ``dataset``, ``setting``, ``unit_ids`` and ``run``: a
        ``metrics.json``-shaped dict (``settings``, ``folds`` sorted by fold, ``summary`` from
        ``summarize_folds``, leakage, noise floors and, when the units saved the run's label x gender
        counts, ``per_class_diagnostics``; ``provenance`` of the first fold) that ``finetune_markdown`` accepts.
        A fold present twice (two units with the same parameters) is counted once, with a warning.
    """
    grouped: dict[tuple[str, str, str, str], dict[Any, Mapping[str, Any]]] = {}
    for unit in units:
        params = unit.get("params") or {}
        key = (str(params.get("encoder")), str(params.get("method") or "none"), str(params.get("dataset")),
               str(params.get("setting") or "original"))
        result = unit.get("result") or {}
        if not isinstance(result.get("metrics"), Mapping):
            logger.warning("unit %s has no fold metrics; left out", unit.get("id"))
            continue
        fold = params.get("fold", result.get("fold"))
        folds = grouped.setdefault(key, {})
        if fold in folds:
            logger.warning("fold %s of %s appears twice (units %s and %s); counted once", fold, key,
                           folds[fold].get("id"), unit.get("id"))
            continue
        folds[fold] = unit
    encoders = list(encoder_order or [])
    datasets = list(dataset_order or [])

    def rank(name: str, order: list[str]) -> tuple[int, str]:
        return (order.index(name) if name in order else len(order), name)

    out = []
    for key in sorted(grouped, key=lambda k: (rank(k[2], datasets), rank(k[0], encoders), method_rank(k[1]), _setting_rank(k[3]))):
        encoder, method, dataset, setting = key
        fold_units = [grouped[key][f] for f in sorted(grouped[key], key=lambda f: (f is None, num(f), str(f)))]
        folds = [dict(u["result"]) for u in fold_units]
        for f, u in zip(folds, fold_units):
            f.setdefault("fold", (u.get("params") or {}).get("fold"))
        folds = fold_entries(folds)  # null (NaN saved as JSON null) back to NaN
        first = fold_units[0]
        counts = _label_gender_counts(fold_units)
        summary = summarize_run(folds, label_gender_counts=counts, confidence=confidence)
        run = {
            "settings": {"data": dataset, "setting": setting, "method": method, "encoder": encoder,
                         **({"label_gender_counts": counts} if counts else {})},
            "folds": folds,
            "summary": summary,
            "provenance": first.get("provenance") or {},
        }
        out.append({"encoder": encoder, "method": method, "dataset": dataset, "setting": setting,
                    "unit_ids": [u.get("id") for u in fold_units], "run": run})
    return out


def _label_gender_counts(units: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """The run's label x gender counts, as the study saved them with each fold unit (its provenance's
    ``parameters.finetune_settings``: the fine-tuning run's settings); None when no unit has them.
    """
    for unit in units:
        parameters = (unit.get("provenance") or {}).get("parameters") or {}
        counts = (parameters.get("finetune_settings") or {}).get("label_gender_counts")
        if isinstance(counts, Mapping) and counts:
            return dict(counts)
    return None


def extrinsic_markdown(groups: Sequence[Mapping[str, Any]], *, heading_level: int = 2, first_table: int = 3) -> tuple[str, int]:
    """The Markdown of :func:`extrinsic_blocks` (same arguments) and the number of the next free table."""
    blocks, number = extrinsic_blocks(groups, heading_level=heading_level, first_table=first_table)
    return "\n".join(blocks_markdown(blocks)), number


def extrinsic_blocks(groups: Sequence[Mapping[str, Any]], *, heading_level: int = 2,
                     first_table: int = 3) -> tuple[list[Block], int]:
    """Tables 3-4 style: one table per (dataset, encoder), one row per method and setting.

    Each table renders the groups' summaries with the fine-tuning report's records and renderer
    (``finetune_records``, ``render_finetune``; cells: mean over folds ± half-width of the
    t-interval); the per-run provenance list is left out (the study's units hold it; notes about
    undefined per-class cells are kept). Returns the report blocks and the number of the next free table.
    """
    lines: list[Block] = []
    number = first_table
    h = "#" * heading_level
    pairs = list(dict.fromkeys((g["dataset"], g["encoder"]) for g in groups))
    for dataset, encoder in pairs:
        part = [g for g in groups if g["dataset"] == dataset and g["encoder"] == encoder]
        records = finetune_records([g["run"] for g in part], [g["method"] for g in part])
        lines += [f"{h} Table {number}: extrinsic bias — {dataset}, {encoder}", ""]
        lines += render_finetune(records, heading_level=heading_level, title=False, provenance=False, align_numbers=True,
                                 diagnostics=False)  # the study report's own section shows them
        lines.append("")
        number += 1
    return lines, number


# ------------------------------------------------------------------------------------------- figures


def _stat(group: Mapping[str, Any], metric: str, key: str) -> float:
    return num(((group["run"]["summary"]["metrics"].get(metric)) or {}).get(key))


_SETTING_COLORS = {"original": "#4c72b0", "scrubbed": "#dd8452", "swapped": "#55a868"}
_SETTING_MARKERS = {"original": "o", "scrubbed": "s", "swapped": "^"}


def plot_tprd_cf(groups: Sequence[Mapping[str, Any]], path: str | os.PathLike, *, title: str | None = None) -> Path:
    """Figure 5 style: TPRD and CF per method (groups of bars) and setting (bars), one row of
    panels per encoder; bars are means over folds with t-interval error bars, dots the folds.
    """
    plt = pyplot()
    encoders = list(dict.fromkeys(g["encoder"] for g in groups))
    methods = list(dict.fromkeys(g["method"] for g in groups))
    settings = sorted(dict.fromkeys(g["setting"] for g in groups), key=_setting_rank)
    width = 0.8 / max(len(settings), 1)
    fig, axes = plt.subplots(len(encoders), 2, figsize=(max(9.0, 1.3 * len(methods) * 2 + 3), 3.4 * len(encoders) + 0.6),
                             squeeze=False)
    for row, encoder in enumerate(encoders):
        for col, metric in enumerate(("tprd", "cf")):
            ax = axes[row][col]
            for k, setting in enumerate(settings):
                offset = (k - (len(settings) - 1) / 2) * width
                xs, means, margins = [], [], []
                for m, method in enumerate(methods):
                    found = [g for g in groups if g["encoder"] == encoder and g["method"] == method and g["setting"] == setting]
                    if not found:
                        continue
                    g = found[0]
                    xs.append(m + offset)
                    means.append(_stat(g, metric, "mean"))
                    margins.append(_stat(g, metric, "margin"))
                    values = [num((f.get("metrics") or {}).get(metric)) for f in g["run"]["folds"]]
                    ax.scatter(np.full(len(values), m + offset), values, s=7, color="black", zorder=3, alpha=0.6)
                means_a, margins_a = np.array(means, dtype=float), np.array(margins, dtype=float)
                ax.bar(xs, np.nan_to_num(means_a), width, yerr=np.nan_to_num(margins_a), capsize=3,
                       color=_SETTING_COLORS.get(setting, f"C{k}"), label=setting, alpha=0.85)
            ax.axhline(0, color="grey", linewidth=0.8)
            ax.set_xticks(np.arange(len(methods)), [wrap(m, 14) for m in methods], fontsize=8)
            ax.set_ylabel(metric.upper(), fontsize=9)
            ax.set_title(f"{encoder}: {'TPRD' if metric == 'tprd' else 'CF'} (mean, 95% t-interval, folds)", fontsize=9)
            if row == 0 and col == 0:
                ax.legend(fontsize=8, title="training data", title_fontsize=8)
    if title:
        fig.suptitle(title, fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_tprd_vs_cf(groups: Sequence[Mapping[str, Any]], path: str | os.PathLike, *, title: str | None = None) -> Path:
    """Figure 6 style: TPRD against CF, one point per method (colour) and setting (marker), one
    panel per encoder, with t-intervals over folds on both axes.
    """
    plt = pyplot()
    from matplotlib.lines import Line2D

    encoders = list(dict.fromkeys(g["encoder"] for g in groups))
    methods = list(dict.fromkeys(g["method"] for g in groups))
    settings = sorted(dict.fromkeys(g["setting"] for g in groups), key=_setting_rank)
    colors = plt.get_cmap("tab10")
    fig, axes = plt.subplots(1, len(encoders), figsize=(5.6 * len(encoders) + 0.5, 5.0), squeeze=False)
    for ax, encoder in zip(axes[0], encoders):
        for g in groups:
            if g["encoder"] != encoder:
                continue
            x, y = _stat(g, "cf", "mean"), _stat(g, "tprd", "mean")
            if not (math.isfinite(x) and math.isfinite(y)):
                continue
            xe, ye = _stat(g, "cf", "margin"), _stat(g, "tprd", "margin")
            ax.errorbar([x], [y], xerr=[0 if math.isnan(xe) else xe], yerr=[0 if math.isnan(ye) else ye],
                        fmt=_SETTING_MARKERS.get(g["setting"], "D"), color=colors(methods.index(g["method"]) % 10),
                        capsize=2, markersize=7, elinewidth=0.8)
        ax.set_xlabel("CF (mean over folds)")
        ax.set_ylabel("TPRD (mean over folds)")
        ax.set_title(encoder, fontsize=10)
        ax.set_xlim(left=min(0.0, ax.get_xlim()[0]))
        ax.set_ylim(bottom=min(0.0, ax.get_ylim()[0]))
    handles = [Line2D([], [], color=colors(i % 10), marker="o", linestyle="", label=m) for i, m in enumerate(methods)]
    handles += [Line2D([], [], color="black", marker=_SETTING_MARKERS.get(s, "D"), linestyle="", label=s) for s in settings]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(handles), 6), fontsize=8, frameon=False,
               bbox_to_anchor=(0.5, -0.02))
    fig.suptitle(title or "TPRD vs CF (Fig. 6 style; lower-left is fairer)", fontsize=11)
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    return save_figure(fig, path)
