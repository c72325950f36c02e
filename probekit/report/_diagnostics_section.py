"""The study report's per-class diagnostics section (De-Arteaga et al. 2019): tables and figure per dataset."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.report._diagnostics import (
    diagnostics_class_rows,
    diagnostics_correlation_rows,
    diagnostics_markdown,
    plot_diagnostics,
)
from probekit.report._format import slug
from probekit.report._tables import Block

__all__ = ["diagnostics_section"]


def _group_name(group: Mapping[str, Any], groups: Sequence[Mapping[str, Any]]) -> str:
    """The method, with the encoder when the groups hold several."""
    several = len({g["encoder"] for g in groups}) > 1
    return f"{group['method']} ({group['encoder']})" if several else str(group["method"])


def diagnostics_section(groups: Sequence[Mapping[str, Any]], figures_dir: Path) -> tuple[list[Block], dict[str, Any]]:
    """TPR gap vs share of women per class (De-Arteaga et al. 2019): per dataset, the compact
    correlation table (method x setting) and one figure panel per method x setting (a row per
    method, a column per setting when every method has the same settings); returns the lines and
    the records of report.json (``correlations`` and ``classes``, each with the group's keys).
    """
    records: dict[str, Any] = {"correlations": [], "classes": []}
    lines: list[Block] = []
    datasets = list(dict.fromkeys(g["dataset"] for g in groups))
    for dataset in datasets:
        part = [g for g in groups if g["dataset"] == dataset]
        runs, names, settings = [g["run"] for g in part], [_group_name(g, part) for g in part], [g["setting"] for g in part]
        correlations = diagnostics_correlation_rows(runs, names, settings)
        classes = diagnostics_class_rows(runs, names, settings)
        keys = {(n, s): {k: g[k] for k in ("encoder", "method", "dataset", "setting")} for g, n, s in zip(part, names, settings)}
        records["correlations"] += [keys[(r["run"], r["setting"])] | r for r in correlations]
        records["classes"] += [keys[(r["run"], r["setting"])] | r for r in classes]
        figure = None
        diagnosed = [(run, f"{n}, {s}") for run, n, s in zip(runs, names, settings) if (run.get("summary") or {}).get("per_class_diagnostics")]
        if diagnosed:
            per_method = [tuple(s for n2, s in zip(names, settings) if n2 == n) for n in dict.fromkeys(names)]
            columns = len(per_method[0]) if len(set(per_method)) == 1 and len(diagnosed) == len(part) else 4
            path = plot_diagnostics([r for r, _ in diagnosed], [n for _, n in diagnosed],
                                    figures_dir / f"per_class_gap_{slug(dataset)}.png", columns=max(columns, 1),
                                    title=f"{dataset}: TPR gap vs share of women per class (De-Arteaga et al. 2019, Fig. 2)")
            figure = f"figures/{path.name}"
        title = "TPR gap vs share of women per class (De-Arteaga et al. 2019)" + (f" — {dataset}" if len(datasets) > 1 else "")
        found = diagnostics_markdown(correlations, classes, heading="##", figure=figure, per_class=False, title=title)
        if found and classes:
            found += ["The per-class values (share of women, TPR gap with its fold interval) of every row: "
                      "`report.json` (`per_class_diagnostics`) and `tables/per_class_diagnostics.csv`.", ""]
        lines += found
    return lines, records
