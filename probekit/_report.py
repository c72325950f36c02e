"""Tables and plots of intrinsic results, built from saved ``results.json`` content only.

The Markdown tables follow the layout of Tokpo et al. (2023), Table 1 (SEAT test score, SEAT
effect size, attr-LPBS, target-LPBS) and Table 2 (gender accuracy, stereotype accuracy, stereotype
confidence, randomization p-value); the chart follows its Figure 4 (probe accuracies and confidence
per model, with the fair stereotype accuracy of 0.5 marked).
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit._io import atomic_path
from probekit.errors import InputFileError


def load_results(path: str | os.PathLike) -> dict[str, Any]:
    """Read a ``results.json`` written by ``probekit probe`` (a file or the directory holding it)."""
    file = Path(path)
    if file.is_dir():
        file = file / "results.json"
    if not file.is_file():
        raise InputFileError(f"no results file at {str(file)!r}")
    try:
        return json.loads(file.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputFileError(f"{str(file)!r} is not a valid results.json: {exc}") from None


def _fmt(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        if value != 0 and (abs(value) < 10 ** -digits or abs(value) >= 10**5):
            return f"{value:.1e}"
        return f"{value:.{digits}f}"
    return str(value)


def model_label(results: Mapping[str, Any]) -> str:
    model = (results.get("provenance") or {}).get("model") or {}
    return str(model.get("name_or_path") or "model")


def _lpbs_cell(results: Mapping[str, Any], key: str) -> str:
    lpbs = results.get("lpbs") or {}
    if lpbs.get("status") != "ok":
        return "skipped"
    return _fmt(lpbs.get(key))


def summary_markdown(runs: Sequence[Mapping[str, Any]], labels: Sequence[str] | None = None) -> str:
    """Markdown tables (Tables 1 and 2 of Tokpo et al. 2023, plus the standard SEAT tests) for runs."""
    labels = list(labels) if labels is not None else [model_label(r) for r in runs]
    lines = ["# probekit intrinsic bias summary", ""]
    lines += [
        "## Table 1: SEAT (paper variant) and LPBS",
        "",
        "| Model | SEAT test score | SEAT effect size | SEAT p | attr-LPBS | target-LPBS |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, run in zip(labels, runs):
        seat = run.get("seat") or {}
        lines.append(
            f"| {label} | {_fmt(seat.get('statistic'))} | {_fmt(seat.get('effect_size'))} | "
            f"{_fmt(seat.get('p_value'))} | {_lpbs_cell(run, 'attr_lpbs')} | {_lpbs_cell(run, 'target_lpbs')} |"
        )
    lines += [
        "",
        "## Table 2: gender probe",
        "",
        "| Model | Gender acc. | Stereotype acc. | Stereotype conf. | Randomization p | Permutation p |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for label, run in zip(labels, runs):
        probe = run.get("probe") or {}
        lines.append(
            f"| {label} | {_fmt(probe.get('gender_accuracy'), 2)} | {_fmt(probe.get('stereotype_accuracy'), 2)} | "
            f"{_fmt(probe.get('stereotype_confidence'), 2)} | {_fmt(probe.get('randomization_p_value'))} | "
            f"{_fmt(probe.get('permutation_p_value'))} |"
        )
    tests = sorted({name for run in runs for name in ((run.get("seat") or {}).get("standard_tests") or {})})
    if tests:
        lines += ["", "## Standard SEAT gender tests (sentence level): effect size (p)", ""]
        lines.append("| Model | " + " | ".join(tests) + " |")
        lines.append("|---|" + "---:|" * len(tests))
        for label, run in zip(labels, runs):
            standard = (run.get("seat") or {}).get("standard_tests") or {}
            cells = [
                f"{_fmt(standard[t].get('effect_size'))} ({_fmt(standard[t].get('p_value'))})" if t in standard else "n/a"
                for t in tests
            ]
            lines.append(f"| {label} | " + " | ".join(cells) + " |")
    skipped = [(label, (run.get("lpbs") or {}).get("reason")) for label, run in zip(labels, runs)
               if (run.get("lpbs") or {}).get("status") != "ok"]
    if skipped:
        lines += ["", "LPBS skipped: " + "; ".join(f"{label}: {reason}" for label, reason in skipped)]
    lines += [
        "",
        "SEAT test score = sum_x s(x,A,B) - sum_y s(y,A,B) with X/Y the female/male stereotype terms and A/B the "
        "female/male attribute terms; effect size uses the sample std (ddof=1). A stereotype accuracy of 0.5 is fair.",
    ]
    for label, run in zip(labels, runs):
        provenance = run.get("provenance") or {}
        model = provenance.get("model") or {}
        lines.append(
            f"- {label}: fingerprint {model.get('fingerprint', 'n/a')}, probekit {provenance.get('probekit_version')}, "
            f"seeds {json.dumps(provenance.get('seeds'))}"
        )
    return "\n".join(lines) + "\n"


def plot_probe_chart(
    runs: Sequence[Mapping[str, Any]], path: str | os.PathLike, labels: Sequence[str] | None = None
) -> Path:
    """Grouped bar chart of gender accuracy, stereotype accuracy and stereotype confidence per run."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import numpy as np

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
    with atomic_path(path, suffix=".tmp.png") as tmp:
        fig.savefig(tmp, dpi=150, format="png")
    plt.close(fig)
    return Path(path)
