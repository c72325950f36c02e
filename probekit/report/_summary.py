"""Tables and plots of intrinsic results, built from saved ``results.json`` content only.

Tables 1 and 2 of Tokpo et al. (2023) (SEAT and LPBS; the gender probe) are the comparison's own
(:mod:`probekit.report._intrinsic_tables`: one renderer for summary.md, the comparison and the
study report); the chart follows its Figure 4 (probe accuracies and confidence
per model, with the fair stereotype accuracy of 0.5 marked).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.errors import InputFileError
from probekit.report._format import fmt, fmt_value, pyplot, read_saved_json, save_figure
from probekit.report._intrinsic_tables import _standard_tests_table, _table1, _table2, intrinsic_records
from probekit.report._tables import Block, blocks_markdown
from probekit.utils import Table


def load_results(path: str | os.PathLike) -> dict[str, Any]:
    """Read a ``results.json`` written by ``probekit probe`` (a file or the directory holding it)."""
    return read_saved_json(path, "results.json", "results file")


def model_label(results: Mapping[str, Any]) -> str:
    model = (results.get("provenance") or {}).get("model") or {}
    return str(model.get("name_or_path") or "model")


def _lpbs_cell(results: Mapping[str, Any], key: str) -> str:
    lpbs = results.get("lpbs") or {}
    if lpbs.get("status") != "ok":
        return "skipped"
    return fmt_value(lpbs.get(key))


def _ci(interval: Any, digits: int = 2) -> str:
    if not interval or any(v is None for v in interval):
        return ""
    return f" [{fmt(interval[0], digits, missing='n/a')}, {fmt(interval[1], digits, missing='n/a')}]"


def _pair(a: Any, b: Any, digits: int = 2) -> str:
    return f"{fmt_value(a, digits)} / {fmt_value(b, digits)}"


PERMUTATION_NOTE = (
    "Permutation p: the share of random relabelings of the stereotype words (same group sizes) whose "
    "accuracy is at least as far from chance as the observed one, (1 + #as extreme) / (1 + R); it is a "
    "calibrated test of whether the probe's stereotype accuracy could arise without any association (its "
    "smallest value is 1 / (1 + R), 0.0099 for R = 100: raise --randomizations for finer values)."
)
RANDOMIZATION_NOTE = (
    "Randomization p (the paper's t-test): a one-sample t-test of the mean of the R random accuracies "
    "against the observed accuracy; it treats the observed accuracy as a fixed number, so with R = 100 it "
    "is tiny for almost any gap and does not measure how surprising the observed accuracy is."
)


def _headline_lines(labels: Sequence[str], runs: Sequence[Mapping[str, Any]]) -> list[Block]:
    rows = []
    for label, run in zip(labels, runs):
        p = run.get("probe") or {}
        rows.append([
            label, fmt_value(p.get("permutation_p_value")), fmt_value(p.get("permutation_p_value_balanced")),
            f"{fmt_value(p.get('stereotype_accuracy'), 2)}{_ci(p.get('stereotype_accuracy_ci'))}",
            f"{fmt_value(p.get('stereotype_accuracy_balanced'), 2)}{_ci(p.get('stereotype_accuracy_balanced_ci'))}",
            f"{fmt_value(p.get('stereotype_accuracy_word'), 2)} ({fmt_value(p.get('stereotype_accuracy_word_balanced'), 2)})",
            _pair(p.get("stereotype_accuracy_female"), p.get("stereotype_accuracy_male")),
            f"{fmt_value(p.get('gender_accuracy'), 2)}{_ci(p.get('gender_accuracy_ci'))}",
            fmt_value(p.get("randomization_p_value")),
        ])
    lines: list[Block] = ["## Gender probe on the stereotype words", "", Table(
        ["Model", "Permutation p", "Permutation p (balanced)", "Stereotype acc.", "Balanced stereotype acc.",
         "Word-level acc. (balanced)", "Per gender F / M", "Gender acc.", "Randomization p"], rows)]
    lines += [
        "",
        f"- {PERMUTATION_NOTE}",
        f"- {RANDOMIZATION_NOTE}",
        "- Stereotype acc. is the paper's (each occurrence once; fair: 0.5). A probe with a default gender scores "
        "the share of that gender's occurrences here; the balanced accuracy (mean of the female and male "
        "accuracies) is 0.5 for such a probe, and the word-level accuracy counts each word once (by the mean "
        "probability of its occurrences). Intervals: 95% bootstrap over words within each gender.",
    ]
    for label, run in zip(labels, runs):
        p = run.get("probe") or {}
        setting = p.get("setting") or ("the paper's probe" if p.get("paper_setting") else None)
        if setting:
            lines.append(f"- Probe of {label}: {setting}.")
    return lines


def _warning_lines(labels: Sequence[str], runs: Sequence[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = []
    for label, run in zip(labels, runs):
        for note in run.get("warnings") or []:
            prefix = f"{label}: " if len(runs) > 1 else ""
            lines.append(f"> **WARNING** {prefix}{note}")
    return ["", *lines] if lines else []


def _calibration_lines(labels: Sequence[str], runs: Sequence[Mapping[str, Any]]) -> list[Block]:
    rows = []
    for label, run in zip(labels, runs):
        p = run.get("probe") or {}
        m = run.get("mdl") or {}
        rows.append([label, fmt_value(p.get("C"), 4), fmt_value(p.get("brier_score")),
                     fmt_value(p.get("expected_calibration_error")), fmt_value(p.get("stereotype_confidence"), 2),
                     fmt_value(m.get("online_codelength"), 1), fmt_value(m.get("uniform_codelength"), 1),
                     fmt_value(m.get("compression"), 2)])
    lines: list[Block] = ["", "## Probe calibration (held-out attribute words) and MDL", "", Table(
        ["Model", "C", "Brier", "ECE", "Stereotype conf.", "MDL online (bits)", "MDL uniform (bits)", "Compression"], rows)]
    lines += [
        "",
        "Brier = mean (p_female - y)^2 and ECE = sum_b |B_b|/N |mean y - mean p| over 10 equal-width bins, on the "
        "held-out attribute words: low values mean the probe's probabilities, hence the stereotype confidence "
        "mean |p_female - 0.5|, can be trusted. MDL: online codelength of the attribute words' gender labels given "
        "the embeddings (Voita & Titov 2020; words sent in random order, whole words per block); uniform = 1 bit "
        "per occurrence; compression = uniform / online (1: no extractable gender information).",
    ]
    return lines


def _layer_lines(label: str, run: Mapping[str, Any], many: bool) -> list[Block]:
    per_layer = run.get("per_layer") or {}
    rows = per_layer.get("rows") or []
    if not rows:
        return []
    title = "## Per layer" + (f": {label}" if many else "")
    cells = [[
        row.get("layer"), f"{fmt_value(row.get('gender_accuracy'), 2)}{_ci(row.get('gender_accuracy_ci'))}",
        f"{fmt_value(row.get('stereotype_accuracy'), 2)}{_ci(row.get('stereotype_accuracy_ci'))}",
        f"{fmt_value(row.get('stereotype_accuracy_balanced'), 2)}{_ci(row.get('stereotype_accuracy_balanced_ci'))}",
        f"{fmt_value(row.get('permutation_p_value'))} ({fmt_value(row.get('permutation_p_value_balanced'))})",
        fmt_value(row.get("stereotype_confidence"), 2), fmt_value(row.get("expected_calibration_error")),
        f"{fmt_value(row.get('seat_effect_size'))}{_ci(row.get('seat_effect_size_ci'))}", fmt_value(row.get("seat_p_value")),
        fmt_value(row.get("mdl_online_codelength"), 1), fmt_value(row.get("mdl_compression"), 2),
    ] for row in rows]
    lines: list[Block] = ["", title, "", Table(
        ["Layer", "Gender acc.", "Stereotype acc.", "Balanced stereotype acc.", "Perm. p (balanced)", "Conf.", "ECE",
         "SEAT d", "SEAT p", "MDL (bits)", "Compression"], cells, align="r" * 11)]
    lines += ["", f"Layer 0 is the embedding output, {per_layer.get('num_layers')} the last layer; the headline "
              f"numbers above are layer {per_layer.get('headline_layer')}. Same seeds at every layer."]
    return lines


def _evidence_lines(labels: Sequence[str], runs: Sequence[Mapping[str, Any]]) -> list[Block]:
    if not any(run.get("evidence") for run in runs):
        return []
    many = len(runs) > 1
    rows = []
    for label, run in zip(labels, runs):
        for name, entry in (run.get("evidence") or {}).items():
            dropped = entry.get("dropped") or {}
            share = entry.get("largest_word_share")
            largest = f"{entry.get('largest_word')} ({share:.0%})" if share is not None else "n/a"
            cells = [
                name.replace("_", " "), str(entry.get("listed")), str(entry.get("words")), str(entry.get("contexts")),
                largest, _word_list(dropped.get("multi_piece")), _word_list(dropped.get("no_sentence")),
                _word_list(dropped.get("excluded")), str(entry.get("sentences_excluded", "")),
            ]
            rows.append(([label] if many else []) + cells)
    header = ["Model", "Set"] if many else ["Set"]
    header += ["Listed", "Words used", "Contexts", "Largest word (share)", "Dropped: multi-piece", "Dropped: no sentence",
               "Dropped: excluded", "Sentences excluded"]
    lines: list[Block] = ["", "## Evidence per word set", "",
                          Table(header, rows, align=("ll" if many else "l") + "rrr" + "llll" + "r")]
    lines += ["", "Contexts = embedded occurrences (at most --max-per-word sentences per word). Excluded: attribute "
              "words that are also stereotypes (never trained on). Sentences excluded: stereotype sentences skipped "
              "because they hold an attribute word."]
    return lines


def _word_list(words: Any, limit: int = 8) -> str:
    words = list(words or [])
    if not words:
        return "0"
    shown = ", ".join(words[:limit]) + (", ..." if len(words) > limit else "")
    return f"{len(words)}: {shown}"


def summary_markdown(runs: Sequence[Mapping[str, Any]], labels: Sequence[str] | None = None) -> str:
    """Markdown summary of runs: the probe's headline numbers (permutation p first), warnings about
    thin evidence, Tables 1 and 2 of Tokpo et al. (2023), calibration and MDL, per-layer results,
    the evidence per word set and the standard SEAT tests.
    """
    labels = list(labels) if labels is not None else [model_label(r) for r in runs]
    lines: list[Block] = ["# probekit intrinsic bias summary", ""]
    lines += _headline_lines(labels, runs)
    lines += _warning_lines(labels, runs)
    pairs = list(zip(labels, runs))
    records = intrinsic_records(pairs)
    lines += ["", *_table1(records, "##"), *_table2(records, "##")]  # the comparison's Tables 1-2, one renderer
    lines += _calibration_lines(labels, runs)
    for label, run in pairs:
        lines += _layer_lines(label, run, len(runs) > 1)
    lines += _evidence_lines(labels, runs)
    lines += _standard_tests_table(pairs, "##")
    skipped = [(label, (run.get("lpbs") or {}).get("reason")) for label, run in zip(labels, runs)
               if (run.get("lpbs") or {}).get("status") != "ok"]
    if skipped:
        lines += ["", "LPBS skipped: " + "; ".join(f"{label}: {reason}" for label, reason in skipped)]
    lines.append("")
    for label, run in zip(labels, runs):
        provenance = run.get("provenance") or {}
        model = provenance.get("model") or {}
        parameters = provenance.get("parameters") or {}
        corpus = parameters.get("corpus")
        lines.append(
            f"- {label}: corpus {corpus or 'n/a'}, fingerprint {model.get('fingerprint', 'n/a')}, "
            f"probekit {provenance.get('probekit_version')}, seeds {json.dumps(provenance.get('seeds'))}"
        )
    return "\n".join(blocks_markdown(lines)) + "\n"


def plot_probe_chart(
    runs: Sequence[Mapping[str, Any]], path: str | os.PathLike, labels: Sequence[str] | None = None
) -> Path:
    """Grouped bar chart of gender accuracy, stereotype accuracy and stereotype confidence per run."""
    import numpy as np

    plt = pyplot()

    labels = list(labels) if labels is not None else [model_label(r) for r in runs]
    metrics = [
        ("gender_accuracy", "gender accuracy"),
        ("stereotype_accuracy", "stereotype accuracy"),
        ("stereotype_confidence", "stereotype confidence"),
    ]
    def value(run: Mapping[str, Any], key: str) -> float:
        found = (run.get("probe") or {}).get(key)
        return np.nan if found is None else float(found)

    values = np.array([[value(run, key) for key, _ in metrics] for run in runs], dtype=float)
    width = 0.8 / len(metrics)
    positions = np.arange(len(runs))
    fig, ax = plt.subplots(figsize=(max(5.0, 1.6 * len(runs) + 2.5), 4.0))
    for index, (_, name) in enumerate(metrics):
        bars = ax.bar(positions + (index - (len(metrics) - 1) / 2) * width, values[:, index], width, label=name)
        ax.bar_label(bars, fmt="%.2f", fontsize=7, padding=1)
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1, label="fair stereotype accuracy (0.5)")
    short = [label if len(label) <= 28 else label.rstrip("/").split("/")[-1][-28:] for label in labels]
    ax.set_xticks(positions, short, fontsize=8)
    ax.set_ylim(0, 1.08)
    ax.set_ylabel("score")
    ax.set_title("Gender probe: removed or hidden?", fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
    fig.tight_layout()
    return save_figure(fig, path, tight=False, dpi=150)


def plot_layer_curves(run: Mapping[str, Any], path: str | os.PathLike, label: str | None = None) -> Path:
    """Per-layer curves of one run (``results.json["per_layer"]``): gender accuracy, the paper's and
    the balanced stereotype accuracy with their bootstrap intervals; SEAT effect size with its
    interval; MDL compression of the gender labels when present.
    """
    import numpy as np

    plt = pyplot()

    rows = ((run.get("per_layer") or {}).get("rows")) or []
    if not rows:
        raise InputFileError("the results hold no per-layer rows (run probekit probe with --layers)")
    x = np.array([row["layer"] for row in rows])

    def series(key: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        values = np.array([np.nan if row.get(key) is None else float(row[key]) for row in rows])
        low = np.array([np.nan if not row.get(key + "_ci") or row[key + "_ci"][0] is None else float(row[key + "_ci"][0])
                        for row in rows])
        high = np.array([np.nan if not row.get(key + "_ci") or row[key + "_ci"][1] is None else float(row[key + "_ci"][1])
                         for row in rows])
        return values, low, high

    has_mdl = any(row.get("mdl_compression") is not None for row in rows)
    fig, axes = plt.subplots(1, 3 if has_mdl else 2, figsize=(13 if has_mdl else 9, 3.8))
    ax = axes[0]
    for key, name in (("gender_accuracy", "gender accuracy"), ("stereotype_accuracy", "stereotype accuracy"),
                      ("stereotype_accuracy_balanced", "balanced stereotype accuracy")):
        values, low, high = series(key)
        line, = ax.plot(x, values, marker="o", markersize=3, label=name)
        ax.fill_between(x, low, high, color=line.get_color(), alpha=0.2, linewidth=0)
    ax.axhline(0.5, color="grey", linestyle="--", linewidth=1, label="chance / fair (0.5)")
    ax.set_ylim(0, 1.05)
    ax.set_xlabel("hidden layer (0 = embeddings)")
    ax.set_ylabel("accuracy")
    ax.set_title("Gender probe per layer (95% word-bootstrap intervals)", fontsize=9)
    ax.legend(fontsize=7)
    ax = axes[1]
    values, low, high = series("seat_effect_size")
    line, = ax.plot(x, values, marker="o", markersize=3, color="C3", label="SEAT effect size d")
    ax.fill_between(x, low, high, color="C3", alpha=0.2, linewidth=0)
    ax.axhline(0.0, color="grey", linestyle="--", linewidth=1)
    ax.set_xlabel("hidden layer (0 = embeddings)")
    ax.set_ylabel("effect size d")
    ax.set_title("SEAT (paper variant) per layer", fontsize=9)
    if has_mdl:
        ax = axes[2]
        compression = [np.nan if row.get("mdl_compression") is None else float(row["mdl_compression"]) for row in rows]
        ax.plot(x, compression, marker="o", markersize=3, color="C4")
        ax.axhline(1.0, color="grey", linestyle="--", linewidth=1, label="no information (1)")
        ax.set_xlabel("hidden layer (0 = embeddings)")
        ax.set_ylabel("uniform / online codelength")
        ax.set_ylim(bottom=0)
        ax.set_title("MDL compression of the gender labels", fontsize=9)
        ax.legend(fontsize=7)
    for ax in axes:
        ax.set_xticks(x)
    if label:
        fig.suptitle(label, fontsize=9)
    fig.tight_layout()
    return save_figure(fig, path, tight=False, dpi=150)
