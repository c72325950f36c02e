"""Summaries over cross-validation folds: the mean with a Student-t interval for every metric."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.stats._intervals import t_interval

__all__ = ["summarize_folds"]


def summarize_folds(
    folds: Sequence[Mapping[str, Any]], *, confidence: float = 0.95
) -> dict[str, Any]:
    """Mean, std and Student-t interval over folds of every metric and per-class cell.

    Parameters
    ----------
    folds : sequence of mapping
        Per-fold entries with ``metrics`` ({name: value}) and ``per_class`` ({name: {class: value}}).
    confidence : float

    Returns
    -------
    dict
        ``metrics``: {name: :func:`~probekit.extrinsic.t_interval` dict}; ``per_class``:
        {name: {class: t_interval dict}}.
    """
    if not folds:
        raise InvalidParameterError("folds", [], "at least one fold")
    names = list(dict.fromkeys(name for f in folds for name in f["metrics"]))
    summary = {name: t_interval([f["metrics"].get(name, np.nan) for f in folds], confidence) for name in names}
    per_class: dict[str, dict[str, Any]] = {}
    for name in dict.fromkeys(n for f in folds for n in f.get("per_class", {})):
        classes = list(dict.fromkeys(c for f in folds for c in f["per_class"].get(name, {})))
        per_class[name] = {
            c: t_interval([f["per_class"].get(name, {}).get(c, np.nan) for f in folds], confidence) for c in classes
        }
    return {"metrics": summary, "per_class": per_class}
