"""The summary of a k-class attribute probe (``probekit probe --attribute race``), from its saved JSON."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from probekit.report._format import fmt, fmt_ci, interval
from probekit.report._summary import model_label
from probekit.report._tables import blocks_markdown
from probekit.report._upper_bounds import upper_bound_markdown
from probekit.report._verdict import verdict_markdown
from probekit.utils import Table


def _groups_table(results: Mapping[str, Any]) -> Table:
    attribute = results.get("attribute") or {}
    name = attribute.get("name", "attribute")
    groups = (results.get("words") or {}).get("groups") or {}
    probed = set(attribute.get("groups_probed") or [])
    rows = [[group, "yes" if group in probed else "no", len(entry.get("listed") or []), len(entry.get("used") or []),
             entry.get("occurrences", 0), len(entry.get("dropped_multi_piece") or []),
             len(entry.get("without_sentences") or [])]
            for group, entry in groups.items()]
    return Table(["group", "probed", "terms listed", "terms used", "occurrences", "multi-piece dropped",
                  "without sentences"], rows, caption=f"{name}: groups and terms", key=f"{name}-groups")


def _probe_table(results: Mapping[str, Any]) -> Table:
    attribute = results.get("attribute") or {}
    name = attribute.get("name", "attribute")
    probe = results.get("probe") or {}
    mdl = results.get("mdl") or {}
    low, high = interval(probe.get("balanced_accuracy_ci"))
    rows = [
        ["held-out balanced accuracy (linear)", fmt_ci(probe.get("balanced_accuracy"), low, high, digits=3)],
        [f"chance (1/k, k = {attribute.get('k')})", fmt(probe.get("chance"), 3)],
        ["accuracy (occurrences)", fmt(probe.get("accuracy"), 3)],
        ["control task balanced accuracy / selectivity",
         f"{fmt(probe.get('control_balanced_accuracy'), 3)} / {fmt(probe.get('selectivity'), 3)}"],
        ["C", f"{fmt((probe.get('params') or {}).get('C'), 4)} ({probe.get('selection', '')})"],
        ["train / test occurrences (terms)", f"{probe.get('n_train')} ({probe.get('n_train_words')}) / "
                                             f"{probe.get('n_test')} ({probe.get('n_test_words')})"],
        ["MDL online / uniform codelength (bits)",
         f"{fmt(mdl.get('online_codelength'), 1)} / {fmt(mdl.get('uniform_codelength'), 1)}"],
        ["MDL compression", fmt(mdl.get("compression"), 2)],
    ]
    return Table(["measure", "value"], rows, caption=f"The {name} probe ({len(attribute.get('groups_probed') or [])} "
                 "groups)", key=f"{name}-probe", notes=[
                     "Balanced accuracy: mean over groups of the share of held-out occurrences read as their group; "
                     "interval: percentile bootstrap over held-out terms within each group. Terms never seen in "
                     "training are scored, so the probe cannot memorize them."])


def _lpbs_table(results: Mapping[str, Any]) -> Table | None:
    lpbs = results.get("lpbs") or {}
    if lpbs.get("status") != "ok":
        return None
    name = (results.get("attribute") or {}).get("name", "attribute")
    groups = list((lpbs["attr"] or {}).get("per_group") or {})
    rows = [[variant, fmt(lpbs[f"{variant}_lpbs"], 3), *[fmt(lpbs[variant]["per_group"][g], 3) for g in groups]]
            for variant in ("attr", "target")]
    notes = ["Score: mean over targets of the spread (max - min) across groups of the group's mean increased log "
             "probability A_g(x) (Kurita et al. 2019, generalised to k groups; lower is fairer); per group: A_g "
             "averaged over targets."]
    if lpbs.get("left_out_terms"):
        notes.append(f"Terms that do not fit the templates' subject slot, left out: {', '.join(lpbs['left_out_terms'])}.")
    return Table(["LPBS", "score (spread)", *[f"mean A ({g})" for g in groups]], rows,
                 caption=f"LPBS with {len(groups)} {name} groups", key=f"{name}-lpbs", notes=notes)


def _layer_table(results: Mapping[str, Any]) -> Table | None:
    rows = ((results.get("per_layer") or {}).get("rows")) or []
    if not rows:
        return None
    cells = [[row.get("layer"), fmt_ci(row.get("balanced_accuracy"), *interval(row.get("balanced_accuracy_ci")), digits=3),
              fmt(row.get("chance"), 3), fmt(row.get("mdl_compression"), 2), (row.get("verdict") or {}).get("verdict", "")]
             for row in rows]
    name = (results.get("attribute") or {}).get("name", "attribute")
    return Table(["layer", "balanced accuracy (linear)", "chance", "MDL compression", "verdict"], cells,
                 caption=f"The {name} probe per layer", key=f"{name}-layers")


def attribute_probe_markdown(results: Mapping[str, Any], label: str | None = None) -> str:
    """Markdown summary of one attribute probe run (``results.json`` of ``probekit probe --attribute``):
    the groups and terms, the linear probe's held-out balanced accuracy against chance 1/k, MDL, the
    per-layer table and the readers' verdict, every heading naming the attribute.

    Parameters
    ----------
    results : mapping
        The saved JSON.
    label : str, optional
        The run's name (default: the model's).

    Returns
    -------
    str
    """
    attribute = results.get("attribute") or {}
    name = attribute.get("name", "attribute")
    label = label or model_label(results)
    blocks: list[Any] = [f"# probekit intrinsic probe: {name}", "",
                         f"{label}: is {name} ({', '.join(attribute.get('groups_probed') or [])}) readable from the "
                         "contextual embeddings of its group terms?", ""]
    for table in (_groups_table(results), _probe_table(results), _layer_table(results), _lpbs_table(results)):
        if table is not None:
            blocks += [f"## {table.caption}", "", table, ""]
    blocks += [f"- warning: {w}" for w in results.get("warnings") or []]
    text = "\n".join(blocks_markdown(blocks)).rstrip() + "\n"
    verdict = verdict_markdown(results)
    if verdict:
        text += "\n" + verdict.replace("# Removed or hidden?", f"# Removed or hidden? ({name})", 1).rstrip() + "\n"
    bounds = upper_bound_markdown(results)
    if bounds:
        text += "\n" + bounds.replace("(not deployable)", f"(not deployable; {name})", 1).rstrip() + "\n"
    provenance = results.get("provenance") or {}
    parameters = provenance.get("parameters") or {}
    text += (f"\n- {label}: attribute {name} (digest {str(attribute.get('digest', ''))[:16]}), corpus "
             f"{parameters.get('corpus', 'n/a')}, fingerprint {(provenance.get('model') or {}).get('fingerprint', 'n/a')}, "
             f"probekit {provenance.get('probekit_version')}, seeds {json.dumps(provenance.get('seeds'))}\n")
    return text


def attribute_comparison_markdown(runs: Sequence[tuple[str, Mapping[str, Any]]], extra_blocks: Sequence[Any] = ()) -> str:
    """Markdown comparison of attribute probe runs (``probekit compare --attribute race``): one row per
    checkpoint -- held-out balanced accuracy [interval] against chance 1/k, control / selectivity, MDL
    compression, the verdict -- headed with the attribute, then ``extra_blocks`` (e.g. the verdict per layer).

    Parameters
    ----------
    runs : sequence of (label, results)
        Each run's label and saved ``results.json``.
    extra_blocks : sequence
        Report blocks (strings or tables) appended after the table.

    Returns
    -------
    str
    """
    names = sorted({(r.get("attribute") or {}).get("name", "attribute") for _, r in runs})
    name = ", ".join(names)
    rows = []
    for label, results in runs:
        probe, attribute = results.get("probe") or {}, results.get("attribute") or {}
        rows.append([label, attribute.get("k"), fmt_ci(probe.get("balanced_accuracy"), *interval(probe.get("balanced_accuracy_ci")),
                                                       digits=3),
                     fmt(probe.get("chance"), 3),
                     f"{fmt(probe.get('control_balanced_accuracy'), 3)} / {fmt(probe.get('selectivity'), 3)}",
                     fmt((results.get("mdl") or {}).get("compression"), 2), (results.get("verdict") or {}).get("verdict", "")])
    table = Table(["checkpoint", "k", "balanced accuracy (linear)", "chance", "control / selectivity", "MDL compression",
                   "verdict"], rows, caption=f"The {name} probe per checkpoint", key=f"{name}-comparison")
    blocks: list[Any] = [f"# probekit comparison: {name}", "", f"## {table.caption}", "", table, "", *extra_blocks]
    return "\n".join(blocks_markdown(blocks)).rstrip() + "\n"
