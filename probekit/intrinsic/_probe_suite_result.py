"""What ``probekit probe`` writes for one checkpoint: :class:`ProbeSuiteResult` (``results.json``,
``summary.md``, the charts) and the rows it is built from (:func:`layer_row`, :func:`probe_reading`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from probekit.intrinsic._verdict import layer_verdict
from probekit.report import (
    plot_layer_curves,
    plot_probe_chart,
    plot_verdict_layers,
    summary_markdown,
    upper_bound_markdown,
    verdict_markdown,
)
from probekit.utils import atomic_write_text, to_jsonable, write_json

RESULTS_FILE = "results.json"
SUMMARY_FILE = "summary.md"
CHART_FILE = "probe.png"
LAYER_CHART_FILE = "probe_layers.png"
VERDICT_CHART_FILE = "verdict_layers.png"


@dataclass
class ProbeSuiteResult:
    """Everything ``probekit probe`` measures on one checkpoint; serializes to ``results.json``.

    Attributes
    ----------
    seat : dict
        Paper variant (``statistic``, ``effect_size``, ``p_value``, ``effect_size_ci``, ...) plus
        ``standard_tests``: the sentence-level gender tests by name.
    lpbs : dict
        ``status`` "ok" with ``attr_lpbs`` and ``target_lpbs``, or "skipped" with the ``reason``.
    probe : dict
        The :class:`probekit.intrinsic.GenderProbeResult` fields (``gender_accuracy``,
        ``stereotype_accuracy``, ``stereotype_accuracy_balanced``, ``stereotype_accuracy_word``,
        ``permutation_p_value``, ``randomization_p_value``, ``brier_score``,
        ``expected_calibration_error``, ``C``, ``paper_setting``, ...) plus ``setting``: one line
        saying which probe was trained.
    words : dict
        Words used, words dropped as multi-wordpiece, words without sentences, counts.
    mdl : dict or None
        :class:`probekit.intrinsic.MdlResult` fields for the gender labels of the attribute
        occurrences (``online_codelength``, ``uniform_codelength``, ``compression``, ...);
        ``None`` when not computed.
    evidence : dict
        Per set (``female_attributes`` ... ``male_stereotypes``): ``listed``, ``words``,
        ``contexts``, ``contexts_per_word``, ``largest_word``, ``largest_word_share``,
        ``dropped`` (``multi_piece``, ``no_sentence``, ``excluded``) and, for stereotype sets,
        ``sentences_excluded`` (sentences skipped for holding an attribute word).
    warnings : list of str
        Thin evidence: sets of fewer than 10 words, words holding more than a quarter of their
        set's contexts.
    per_layer : dict or None
        With ``layers``: ``layers`` (hidden-state indices), ``headline_layer`` and ``rows``, one
        dict per layer (see :func:`layer_row`, with ``readers`` and ``verdict``); ``None`` otherwise.
    readers : dict
        At the headline layer: each reader's result (:class:`probekit.intrinsic.ReaderResult` fields).
    verdict : dict
        At the headline layer: :func:`probekit.intrinsic.layer_verdict` (``verdict``, ``rule``,
        ``flags``, ...).
    upper_bounds : dict
        With ``upper_bounds``: :func:`probekit.intrinsic.read_upper_bounds` (absent from ``results.json`` otherwise).
    provenance : dict
    """

    seat: dict[str, Any]
    lpbs: dict[str, Any]
    probe: dict[str, Any]
    words: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)
    mdl: dict[str, Any] | None = None
    evidence: dict[str, Any] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    per_layer: dict[str, Any] | None = None
    readers: dict[str, Any] = field(default_factory=dict)
    verdict: dict[str, Any] = field(default_factory=dict)
    upper_bounds: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """The content of ``results.json``: SEAT, LPBS, the probe, MDL, words, evidence, warnings, per-layer rows, provenance."""
        return to_jsonable(
            {"seat": self.seat, "lpbs": self.lpbs, "probe": self.probe, "mdl": self.mdl, "words": self.words,
             "evidence": self.evidence, "warnings": self.warnings, "per_layer": self.per_layer,
             "readers": self.readers, "verdict": self.verdict, "provenance": self.provenance}
            | ({"upper_bounds": self.upper_bounds} if self.upper_bounds else {})
        )

    def save(self, out_dir: str | os.PathLike, *, label: str | None = None) -> Path:
        """Write ``results.json``, then ``summary.md``, ``probe.png`` and (with per-layer results)
        ``probe_layers.png``, all built from that JSON.
        """
        out = Path(out_dir)
        data = self.to_dict()
        write_json(out / RESULTS_FILE, data)
        labels = [label] if label else None
        atomic_write_text(out / SUMMARY_FILE, summary_markdown([data], labels).rstrip() + "\n\n" + verdict_markdown(data)
                          + ("\n" + upper_bound_markdown(data) if data.get("upper_bounds") else ""))
        plot_probe_chart([data], out / CHART_FILE, labels)
        if data.get("per_layer"):
            plot_layer_curves(data, out / LAYER_CHART_FILE, label)
            if any(row.get("verdict") for row in data["per_layer"]["rows"]):
                plot_verdict_layers([(label or "model", data)], out / VERDICT_CHART_FILE)
        return out


def probe_setting(probe: dict[str, Any]) -> str:
    """One line saying which gender probe was trained (for the summary)."""
    name = "logistic regression" if probe.get("classifier") == "logistic" else "linear SVM (sigmoid-calibrated)"
    if probe.get("paper_setting"):
        return f"the paper's probe (Tokpo et al. 2023): {name}, C = 1, no class weights, raw features"
    weight = "class-balanced" if probe.get("class_weight") == "balanced" else "unweighted"
    scale = "standardized features" if probe.get("standardize") else "raw features"
    C = probe.get("C")
    how = probe.get("C_selection") or "fixed"
    C_text = f"C = {C:g} ({how})" if isinstance(C, (int, float)) else f"C ({how})"
    return f"{weight} {name}, {scale}, {C_text}"


def layer_row(
    layer: int, seat: dict[str, Any], probe: dict[str, Any], mdl: dict[str, Any] | None,
    reading: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """One row of the per-layer table (the keys of ``results.json["per_layer"]["rows"][i]``)."""
    keys = ("gender_accuracy", "gender_accuracy_ci", "gender_accuracy_per_word", "stereotype_accuracy",
            "stereotype_accuracy_ci", "stereotype_accuracy_balanced", "stereotype_accuracy_balanced_ci",
            "stereotype_accuracy_word", "stereotype_accuracy_word_balanced", "stereotype_accuracy_female",
            "stereotype_accuracy_male", "stereotype_confidence", "permutation_p_value", "permutation_p_value_balanced",
            "randomization_p_value", "brier_score", "expected_calibration_error", "C")
    row: dict[str, Any] = {"layer": int(layer)}
    row.update({key: probe.get(key) for key in keys})
    row.update({
        "seat_effect_size": seat.get("effect_size"), "seat_effect_size_ci": seat.get("effect_size_ci"),
        "seat_statistic": seat.get("statistic"), "seat_p_value": seat.get("p_value"),
    })
    if mdl is not None:
        row.update({"mdl_online_codelength": mdl.get("online_codelength"),
                    "mdl_uniform_codelength": mdl.get("uniform_codelength"), "mdl_compression": mdl.get("compression")})
    if reading is not None:
        row.update({"readers": reading["readers"], "verdict": reading["verdict"]})
    return row


def probe_reading(probe: dict[str, Any], mdl: dict[str, Any] | None, erasure: dict[str, Any] | None = None) -> dict[str, Any]:
    """The verdict from the gender probe alone (the default, linear-only reading: no extra fit).

    The linear reader's numbers are the probe's held-out balanced accuracy and its interval; no
    control task is run. ``erasure``: see :func:`probekit.intrinsic.layer_verdict`.
    """
    linear = {
        "reader": "linear", "balanced_accuracy": probe.get("gender_accuracy_balanced"),
        "balanced_accuracy_ci": probe.get("gender_accuracy_balanced_ci"), "accuracy": probe.get("gender_accuracy"),
        "chance": 0.5, "n_dropped_columns": probe.get("n_dropped_columns", 0), "n_columns": None,
        "params": {"C": probe.get("C")}, "selection": probe.get("C_selection"), "n_train": probe.get("n_train"),
        "n_test": probe.get("n_test"), "control_balanced_accuracy": None, "selectivity": None,
        "source": "the gender probe (held-out attribute words)",
    }
    compressions = {"linear": mdl["compression"]} if mdl else {}
    readers = {"linear": linear}
    return {"readers": readers, "mdl": compressions,
            "verdict": layer_verdict(readers, compressions, confidence_level=probe.get("confidence_level", 0.95),
                                     erasure=erasure)}
