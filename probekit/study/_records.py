"""What a finished unit's record says, in one line (the runner's log and the Ray backend share it)."""

from __future__ import annotations

from typing import Any

__all__ = ["describe_result"]


def _fmt(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, (int, float)) and value == value else "n/a"


def describe_result(record: dict[str, Any]) -> str:
    """A short line about a finished unit's numbers."""
    result = record.get("result") or {}
    if record.get("kind") == "finetune":
        m = result.get("metrics") or {}
        if "tpr_max_gap" in m:  # k groups of an attribute
            return f"accuracy {_fmt(m.get('accuracy'))}, TPR max gap {_fmt(m.get('tpr_max_gap'))}, CF {_fmt(m.get('cf'))}"
        return f"accuracy {_fmt(m.get('accuracy'))}, TPRD {_fmt(m.get('tprd'))}, CF {_fmt(m.get('cf'))}"
    if record.get("kind") == "point":
        i, e = result.get("intrinsic") or {}, result.get("extrinsic") or {}
        return (f"|SEAT d| {_fmt(i.get('seat_effect_size_abs'))}, probe {_fmt(i.get('probe_gender_accuracy'))}, "
                f"TPRD {_fmt(e.get('tprd'))}, CF {_fmt(e.get('cf'))}, leakage {_fmt(e.get('leakage'))}, "
                f"accuracy {_fmt(e.get('accuracy'))}")
    if record.get("kind") == "benchmark":
        o = result.get("overall") or {}
        if result.get("skipped"):
            return f"{result.get('benchmark')} skipped: {result.get('reason')}"
        keys = ("stereotype_score", "lm_score", "ss_score", "icat", "mean_abs_effect_size", "pppl")
        return ", ".join(f"{k} {_fmt(o[k])}" for k in keys if k in o)
    seat = result.get("seat") or {}
    probe = result.get("probe") or {}
    attribute = result.get("attribute")
    if isinstance(attribute, dict):  # the k-class probe of a study of another attribute
        verdict = (result.get("verdict") or {}).get("verdict", "n/a")
        return (f"{attribute.get('name')} probe balanced accuracy {_fmt(probe.get('balanced_accuracy'))} "
                f"(chance {_fmt(probe.get('chance'))}, k = {attribute.get('k')}), verdict {verdict}")
    return (f"SEAT effect size {_fmt(seat.get('effect_size'))}, gender probe accuracy {_fmt(probe.get('gender_accuracy'))}, "
            f"stereotype accuracy {_fmt(probe.get('stereotype_accuracy'))}")
