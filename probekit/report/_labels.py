"""Row labels of comparisons: which debiasing method made a checkpoint directory.

``probekit debias cda|context-debias`` writes a checkpoint directory with ``debias.json``
(:func:`debias.read_debias_record`, key ``method``); ``probekit debias sent-debias|inlp|leace``
writes a projection directory with ``projection.json`` (key ``method.name``: the class name).
A row is labelled ``"<method> (<directory name>)"``; the embedded default encoder is
``"pretrained (all-MiniLM-L6-v2, embedded default)"``; any other checkpoint keeps its name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from probekit.utils import read_json_file

__all__ = ["METRIC_LABELS", "METHOD_ORDER", "SETTING_ORDER", "DEFAULT_LABEL", "checkpoint_method", "checkpoint_label", "method_rank"]

#: Methods in the order tables list them (the study's identifiers; "none" is the pretrained encoder).
METHOD_ORDER = ("none", "pretrained", "sent-debias", "inlp", "leace", "rlace", "concept-scrubbing", "cda", "context-debias", "dropout", "self-debias")

#: Training-data settings in the paper's order.
SETTING_ORDER = ("original", "scrubbed", "swapped", "balanced", "adversarial")

#: How the paper (and the Markdown table) names each metric.
METRIC_LABELS = {
    "tprd": "TPRD", "fprd": "FPRD", "acc_f": "ACC-F", "acc_m": "ACC-M", "cf": "CF",
    "cf_tprd": "CF-TPRD", "cf_fprd": "CF-FPRD", "cf_acc_f": "CF-ACC-F", "cf_acc_m": "CF-ACC-M",
    "accuracy": "Accuracy", "macro_f1": "Macro-F1", "tprd_rms": "TPRD (RMS)", "fprd_rms": "FPRD (RMS)",
    "cf_tprd_rms": "CF-TPRD (RMS)", "cf_fprd_rms": "CF-FPRD (RMS)",
    "acc_f_paper": "ACC-F (paper)", "acc_m_paper": "ACC-M (paper)",
    "cf_acc_f_paper": "CF-ACC-F (paper)", "cf_acc_m_paper": "CF-ACC-M (paper)",
}

#: Label of the embedded default encoder (``probekit compare default``).
DEFAULT_LABEL = "pretrained (all-MiniLM-L6-v2, embedded default)"

# Class names written by the projection estimators -> the CLI's method names.
_PROJECTION_METHODS = {"sentdebias": "sent-debias", "inlp": "inlp", "leace": "leace", "rlace": "rlace",
                       "conceptscrubbing": "concept-scrubbing"}


def method_rank(method: str | None) -> tuple[int, str]:
    """Sort key putting methods in :data:`METHOD_ORDER`, unknown ones after, alphabetically."""
    name = str(method or "")
    return (METHOD_ORDER.index(name) if name in METHOD_ORDER else len(METHOD_ORDER), name)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = read_json_file(path)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def checkpoint_method(directory: str | os.PathLike) -> dict[str, Any] | None:
    """The debiasing method recorded in a checkpoint or projection directory, or ``None``.

    Returns
    -------
    dict or None
        ``method`` (``"cda"``, ``"context-debias"``, ``"sent-debias"``, ``"inlp"``, ``"leace"``
        or the recorded name), ``source`` (the file it was read from) and ``base`` (the base
        checkpoint's name or path when recorded).
    """
    path = Path(directory)
    if not path.is_dir():
        return None
    if (path / "debias.json").is_file():
        record = _read_json(path / "debias.json")
        if isinstance(record, dict) and record.get("method"):
            base = record.get("base_model") or {}
            return {"method": str(record["method"]), "source": str(path / "debias.json"),
                    "base": base.get("name_or_path") if isinstance(base, dict) else None}
    if (path / "self_debias.json").is_file():  # Self-Debias: the base checkpoint, scored with debiasing prefixes
        record = _read_json(path / "self_debias.json") or {}
        base = record.get("base_model") if isinstance(record.get("base_model"), dict) else {}
        return {"method": str(record.get("method") or "self-debias"), "source": str(path / "self_debias.json"),
                "base": base.get("name_or_path") or base.get("path")}
    config = _read_json(path / "projection.json") if (path / "projection.json").is_file() else None
    if config and config.get("format") == "probekit-output-projection":
        name = str((config.get("method") or {}).get("name") or "projection")
        base = config.get("base_model") or {}
        return {"method": _PROJECTION_METHODS.get(name.lower().replace("-", ""), name),
                "source": str(path / "projection.json"),
                "base": (base.get("name_or_path") or base.get("path")) if isinstance(base, dict) else None}
    return None


def checkpoint_label(model: str) -> str:
    """Row label of a checkpoint given as on the command line.

    ``"default"`` -> :data:`DEFAULT_LABEL`; a directory written by ``probekit debias`` ->
    ``"<method> (<directory name>)"``; anything else -> ``model`` unchanged.
    """
    if model == "default":
        return DEFAULT_LABEL
    found = checkpoint_method(model)
    if found is None:
        return model
    name = Path(model).resolve().name or str(model)
    return f"{found['method']} ({name})"
