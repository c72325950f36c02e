"""The intrinsic part of the report of a study of another attribute than gender (``probekit study
--attribute race``): its k-class probe per (encoder, method), LPBS with k groups, the groups and terms
and a figure, every heading and title naming the attribute and its chance level 1/k.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.report._finetune_groups import finetune_groups_blocks
from probekit.report._format import fmt, fmt_ci, interval, num, pyplot, save_figure, wrap
from probekit.report._tables import Block
from probekit.utils import Table, read_json_file

__all__ = ["study_attribute_name", "attribute_records", "attribute_study_blocks", "attribute_answers",
           "plot_attribute_probe", "attribute_heading", "attribute_extrinsic_blocks"]

ATTRIBUTE_FIGURE = "attribute_probe.png"


def study_attribute_name(entries: Sequence[Mapping[str, Any]], manifest: Mapping[str, Any] | None = None) -> str | None:
    """The attribute of a study other than gender: its ``study.json``'s ``[intrinsic] attribute``, else
    the one attribute of the intrinsic results (``entries[i]["results"]``) when every one is a k-class
    attribute probe; ``None`` for gender (the paper's suite) or nothing to tell.
    """
    config = (manifest or {}).get("config") if isinstance(manifest, Mapping) else None
    named = ((config or {}).get("intrinsic") or {}).get("attribute") if isinstance(config, Mapping) else None
    if isinstance(named, str):
        return None if named == "gender" else named
    names = {((e.get("results") or {}).get("attribute") or {}).get("name") if isinstance((e.get("results") or {}).get("attribute"), Mapping)
             else None for e in entries}
    if len(names) != 1 or None in names:
        return None
    return str(names.pop())


def _chance(k: Any) -> str:
    return f"1/{k}" if isinstance(k, int) and k > 0 else "1/k"


def attribute_heading(name: str, k: Any) -> str:
    """``"k-class race probe (chance 1/4)"``: the title of the probe's table and figure."""
    return f"k-class {name} probe (chance {_chance(k)})"


def attribute_records(entries: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One flat record per (encoder, method): the probe's numbers, MDL, the verdict and the k-group LPBS
    score (``tables/intrinsic.csv`` and ``report.json`` of the study).
    """
    records = []
    for entry in entries:
        results = entry["results"]
        probe, attribute = results.get("probe") or {}, results.get("attribute") or {}
        low, high = interval(probe.get("balanced_accuracy_ci"))
        lpbs = results.get("lpbs") or {}
        records.append({
            "label": entry["label"], "encoder": entry["encoder"], "method": entry["method"],
            "attribute": attribute.get("name"), "k": attribute.get("k"), "groups": ",".join(attribute.get("groups_probed") or []),
            "balanced_accuracy": probe.get("balanced_accuracy"), "balanced_accuracy_low": low,
            "balanced_accuracy_high": high, "chance": probe.get("chance"), "accuracy": probe.get("accuracy"),
            "control_balanced_accuracy": probe.get("control_balanced_accuracy"), "selectivity": probe.get("selectivity"),
            "mdl_compression": (results.get("mdl") or {}).get("compression"),
            "verdict": (results.get("verdict") or {}).get("verdict"),
            "flags": "; ".join(f.get("flag", "") for f in (results.get("verdict") or {}).get("flags") or []
                               if f.get("flag") not in ("degenerate columns dropped",)),
            "lpbs_status": lpbs.get("status"), "attr_lpbs": lpbs.get("attr_lpbs"), "target_lpbs": lpbs.get("target_lpbs"),
        })
    return records


def _probe_table(name: str, k: Any, records: Sequence[Mapping[str, Any]]) -> Table:
    rows = [[r["label"], r["k"], fmt_ci(r["balanced_accuracy"], r["balanced_accuracy_low"], r["balanced_accuracy_high"], digits=3),
             fmt(r["chance"], 3), f"{fmt(r['control_balanced_accuracy'], 3)} / {fmt(r['selectivity'], 3)}",
             fmt(r["mdl_compression"], 2), r["verdict"] or ""] for r in records]
    return Table(["method", "k", "balanced accuracy (linear) [CI]", "chance", "control / selectivity", "MDL compression",
                  "verdict"], rows, caption=attribute_heading(name, k), key=f"{name}-probe-study", notes=[
                      f"Held-out balanced accuracy of the linear reader: the mean over the {name} groups of the share of "
                      "occurrences of held-out terms read as their group (the terms never seen in training); interval: "
                      f"percentile bootstrap over held-out terms within each group; chance {_chance(k)}. Control: the same "
                      "reader on term-type random labels (Hewitt & Liang 2019); selectivity = accuracy - control."])


def _lpbs_table(name: str, entries: Sequence[Mapping[str, Any]]) -> Table | None:
    scored = [(e["label"], e["results"]["lpbs"]) for e in entries if ((e["results"].get("lpbs") or {}).get("status") == "ok")]
    if not scored:
        return None
    groups = list(dict.fromkeys(g for _, lpbs in scored for g in ((lpbs.get("attr") or {}).get("per_group") or {})))
    rows = [[label, fmt(lpbs.get("attr_lpbs"), 3), fmt(lpbs.get("target_lpbs"), 3),
             *[fmt(((lpbs.get("attr") or {}).get("per_group") or {}).get(g), 3) for g in groups]] for label, lpbs in scored]
    return Table(["method", "attr-LPBS (spread)", "target-LPBS (spread)", *[f"mean A ({g})" for g in groups]], rows,
                 caption=f"LPBS with {len(groups)} {name} groups", key=f"{name}-lpbs-study", notes=[
                     "Score: mean over targets of the spread (max - min) across groups of the group's mean increased "
                     "log probability A_g(x) (Kurita et al. 2019, generalised to k groups; lower is fairer)."])


def _groups_table(name: str, entry: Mapping[str, Any]) -> Table:
    results = entry["results"]
    probed = set((results.get("attribute") or {}).get("groups_probed") or [])
    rows = [[group, "yes" if group in probed else "no", len(g.get("listed") or []), len(g.get("used") or []), g.get("occurrences", 0)]
            for group, g in ((results.get("words") or {}).get("groups") or {}).items()]
    return Table(["group", "probed", "terms listed", "terms used", "occurrences"], rows,
                 caption=f"{name} groups and terms ({entry['label']})", key=f"{name}-groups-study")


def plot_attribute_probe(records: Sequence[Mapping[str, Any]], path: str | os.PathLike, *, name: str, k: Any) -> Path:
    """Held-out balanced accuracy of the k-class probe per (encoder, method) with its interval, the
    chance line 1/k and the control task; PNG at ``path``, titled with the attribute.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, max(2.6, 0.5 * len(records) + 1.4)))
    y = np.arange(len(records))
    values = np.array([num(r["balanced_accuracy"]) for r in records])
    low = np.array([num(r["balanced_accuracy_low"]) for r in records])
    high = np.array([num(r["balanced_accuracy_high"]) for r in records])
    ok = np.isfinite(values) & np.isfinite(low) & np.isfinite(high)
    errors = np.vstack([np.where(ok, values - low, 0.0), np.where(ok, high - values, 0.0)]).clip(0, None)
    ax.barh(y, np.nan_to_num(values), xerr=errors, color="#4c72b0", capsize=3, label="balanced accuracy (linear)")
    control = np.array([num(r["control_balanced_accuracy"]) for r in records])
    if np.isfinite(control).any():
        ax.plot(control, y, "k|", markersize=14, label="control task")
    chance = num(records[0]["chance"]) if records else math.nan
    if math.isfinite(chance):
        ax.axvline(chance, color="#c44e52", linestyle="--", label=f"chance {_chance(k)}")
    ax.set_yticks(y, [wrap(r["label"]) for r in records], fontsize=8)
    ax.set_ylim(len(records) - 0.5, -0.5)
    ax.set_xlim(0, 1.05)
    ax.set_xlabel("held-out balanced accuracy")
    ax.set_title(f"{attribute_heading(name, k)} per method")
    ax.legend(fontsize=7, loc="lower right")
    fig.tight_layout()
    return save_figure(fig, path)


def attribute_study_blocks(entries: Sequence[Mapping[str, Any]], records: Sequence[Mapping[str, Any]], name: str,
                           figures_dir: Path, *, heading_level: int = 2) -> list[Block]:
    """The intrinsic section of a study of attribute ``name``: the probe table, LPBS with k groups (or why
    not), the groups and terms of the first run, and the figure (written under ``figures_dir``).
    """
    h = "#" * heading_level
    k = records[0]["k"] if records else None
    figure = plot_attribute_probe(records, figures_dir / ATTRIBUTE_FIGURE, name=name, k=k)
    probe = _probe_table(name, k, records)
    blocks: list[Block] = [f"{h} Intrinsic bias: {name} (k-class probe of {k} groups, chance {_chance(k)})", "",
                           f"Is {name} ({records[0]['groups'].replace(',', ', ')}) readable from the contextual embeddings "
                           f"of its group terms, before and after each method debiased for {name}?", "",
                           f"{h}# {probe.caption}", "", probe, "",
                           f"![{attribute_heading(name, k)} per method: held-out balanced accuracy with its interval, "
                           f"the control task and chance](figures/{figure.name})", ""]
    lpbs = _lpbs_table(name, entries)
    if lpbs is not None:
        blocks += [f"{h}# {lpbs.caption}", "", lpbs, ""]
    else:
        blocks += [f"{h}# LPBS with k {name} groups", "", "Not measured: no encoder of the study has a masked-LM head.", ""]
    groups = _groups_table(name, entries[0])
    return [*blocks, f"{h}# {groups.caption}", "", groups, ""]


def attribute_answers(records: Sequence[Mapping[str, Any]], name: str) -> list[Block]:
    """"In short" of a study of attribute ``name``: per debiased method, the probe against the base's."""
    base = {r["encoder"]: r for r in records if r["method"] == "none"}
    lines: list[Block] = ["## In short", "", f"**Is {name} removed or only hidden?**", ""]
    if not records:
        lines.append(f"No intrinsic results yet (the k-class {name} probe).")
    for r in records:
        reference = base.get(r["encoder"])
        against = "" if reference is None or r is reference else f" (base {fmt(reference['balanced_accuracy'], 2)})"
        lines.append(f"- {r['label']}: {name} probe balanced accuracy "
                     f"{fmt_ci(r['balanced_accuracy'], r['balanced_accuracy_low'], r['balanced_accuracy_high'], digits=2)}"
                     f"{against}, chance {_chance(r['k'])}: {r['verdict'] or 'no verdict'}"
                     + (f" (flagged: {r['flags']}; see Removed or hidden?)." if r["flags"] else "."))
    return [*lines, ""]


def attribute_extrinsic_blocks(root: Path, units: Sequence[Mapping[str, Any]], name: str) -> list[Block]:
    """The fine-tuning runs of a study of attribute ``name`` (k groups): per run (encoder x method x dataset
    x setting, in unit order) the tables of its saved ``metrics.json`` (:func:`probekit.report.finetune_groups_blocks`),
    each under a heading that names the attribute; a run whose folds are not all finished is said so.
    """
    runs: dict[str, list[Mapping[str, Any]]] = {}
    for unit in units:
        runs.setdefault(str(((unit.get("provenance") or {}).get("parameters") or {}).get("run_dir")), []).append(unit)
    blocks: list[Block] = [f"## Extrinsic bias: {name} (k groups)", ""]
    if not units:
        return [*blocks, f"No fine-tuning results of {name} yet.", ""]
    blocks += [f"Each run fine-tunes the (debiased) encoder on data carrying {name} groups; the gaps are between "
               f"the {name} groups (max gap, RMS gap to the overall rate), CF over counterfactuals to every other "
               "group, and the pooled out-of-fold gap family with intervals.", ""]
    for run_dir, members in runs.items():
        p = members[0]["params"]
        label = f"{p['method']} ({p['encoder']}), {p['dataset']}"
        path = root / run_dir / "metrics.json"
        if not path.is_file():
            blocks += [f"### {label}, setting {p['setting']} ({name})", "",
                       f"{len(members)} fold(s) finished; the run's metrics.json is written once every fold is.", ""]
            continue
        for block in finetune_groups_blocks(read_json_file(path), label):
            blocks += [f"### {block.caption}", "", block, ""] if isinstance(block, Table) else [block]
    return blocks
