"""Tables of a fine-tuning run with the k groups of one attribute (race, religion, ...), from its saved
``metrics.json`` (:func:`probekit.finetune.run_finetune` with ``attribute=``): every table is headed
with the attribute's name.
"""

from __future__ import annotations

from typing import Any, Mapping

from probekit.report._format import fmt, fmt_ci, fmt_stat
from probekit.report._tables import Block, blocks_markdown
from probekit.utils import Table

__all__ = ["finetune_groups_blocks", "finetune_groups_markdown"]

_SUMMARY_ROWS = (
    ("accuracy", "accuracy"), ("macro_f1", "macro-F1"),
    ("tpr_max_gap", "TPR max gap"), ("tpr_rms_gap", "TPR RMS gap to overall"),
    ("fpr_max_gap", "FPR max gap"), ("fpr_rms_gap", "FPR RMS gap to overall"), ("cf", "CF (k groups)"),
    ("intersection_tpr_max_gap", "intersection TPR max gap"), ("intersection_fpr_max_gap", "intersection FPR max gap"),
)


def _ci(entry: Mapping[str, Any] | None) -> str:
    entry = entry or {}
    return fmt_ci(entry.get("estimate"), entry.get("low"), entry.get("high"))


def _summary_table(run: Mapping[str, Any], attribute: str, label: str) -> Table:
    summary = run.get("summary") or {}
    folds = summary.get("metrics") or {}
    pooled = (summary.get("pooled") or {}).get("metrics") or {}
    rows = [[name, fmt_stat(folds.get(key)), fmt(pooled.get(key)) if key in pooled else "n/a"]
            for key, name in _SUMMARY_ROWS if key in folds]
    settings = run.get("settings") or {}
    return Table(["metric", "mean ± 95% t over folds", "pooled out-of-fold"], rows,
                 caption=f"Fine-tuning with {attribute} ({len(settings.get('groups') or [])} groups): {label}, "
                         f"setting {settings.get('setting')}",
                 notes=[f"Gaps are between the {attribute} groups {', '.join(settings.get('groups') or [])}: "
                        "max gap = max - min of the rate over groups, RMS gap = root mean square of each group's rate "
                        "minus the overall rate; per class one-vs-rest (only the positive class of a binary task), "
                        "averaged over classes."])


def _gap_tables(gaps: Mapping[str, Any], attribute: str, what: str) -> list[Table]:
    tables = []
    for score, by_class in gaps.items():
        for cls, g in by_class.items():
            rows = [[str(row["group"]), str(row["n"]), fmt(row["rate"]), "yes" if row.get("included", True) else "no"]
                    for row in g["groups"]]
            pairs = [[f"{p['group_a']} - {p['group_b']}", fmt_ci(p["gap"], p["low"], p["high"]),
                      "yes" if p["excludes_zero"] else "no"] for p in g["pairwise"]]
            tables.append(Table(["group", "n", score.upper(), "in gaps"], rows,
                                caption=f"{what} {score.upper()} of class {cls} by {attribute}",
                                notes=[f"overall {fmt(g['overall'])}; max gap {_ci(g['max_gap'])}; RMS gap {_ci(g['rms_gap'])}"
                                       f" ({g['confidence']:.0%} bootstrap intervals)"]))
            tables.append(Table([f"{attribute} pair", "gap [simultaneous interval]", "excludes 0"], pairs,
                                caption=f"{what} pairwise {score.upper()} gaps of class {cls} by {attribute}",
                                notes=[f"intervals simultaneous at {g['pairwise_confidence']:.4f} per pair (Bonferroni)"]))
    return tables


def _subgroup_table(run: Mapping[str, Any]) -> Table | None:
    folds = [f for f in run.get("folds") or [] if f.get("subgroup_aucs")]
    if not folds:
        return None
    rows = []
    for entry in folds[0]["subgroup_aucs"]:
        name = entry["subgroup"]
        cells = [[r for r in f["subgroup_aucs"] if r["subgroup"] == name] for f in folds]
        mean = {k: [c[0].get(k) for c in cells if c] for k in ("subgroup_auc", "bpsn_auc", "bnsp_auc")}
        rows.append([name, *(fmt(sum(v) / len(v)) if v and all(x is not None for x in v) else "n/a" for v in mean.values())])
    return Table(["identity subgroup", "subgroup AUC", "BPSN AUC", "BNSP AUC"], rows,
                 caption="Per-subgroup AUCs (Borkan et al. 2019), mean over folds")


def finetune_groups_blocks(run: Mapping[str, Any], label: str | None = None) -> list[Block]:
    """The blocks (tables) of a k-group fine-tuning run: summary, pooled gap family, intersections, subgroup AUCs."""
    settings = run.get("settings") or {}
    attribute = str(settings.get("attribute", "gender"))
    label = label or str((settings.get("model") or {}).get("name") or settings.get("data") or "run")
    pooled = (run.get("summary") or {}).get("pooled") or {}
    blocks: list[Block] = [_summary_table(run, attribute, label)]
    blocks += _gap_tables(pooled.get("group_gaps") or {}, attribute, "Pooled")
    for score, by_class in (pooled.get("intersection") or {}).items():
        inter = {score: {cls: v["intersection"] for cls, v in by_class.items()}}
        blocks += _gap_tables(inter, f"{attribute} x {settings.get('intersect')}", "Pooled")
    subgroups = _subgroup_table(run)
    return blocks + ([subgroups] if subgroups is not None else [])


def finetune_groups_markdown(run: Mapping[str, Any], label: str | None = None) -> str:
    """Markdown of :func:`finetune_groups_blocks` (``results.md`` of a k-group run; what the CLI prints)."""
    lines: list[str] = []
    for block in finetune_groups_blocks(run, label):
        if isinstance(block, Table):
            lines += [f"## {block.caption}", ""] + blocks_markdown([block]) + [""]
        else:
            lines.append(block)
    return "\n".join(lines)
