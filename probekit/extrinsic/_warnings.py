"""Warnings of the extrinsic metric engine and the helper that names undefined cells."""

from __future__ import annotations

import warnings
from typing import Sequence

import numpy as np

__all__ = ["UndefinedMetricWarning", "warn_undefined"]

_MAX_LISTED = 8


class UndefinedMetricWarning(UserWarning):
    """A metric is undefined (0/0) for some group and class; its value is NaN.

    Raised instead of silently returning 0 or 0.5, which is what many reference implementations do.
    """


def warn_undefined(
    metric: str,
    undefined: np.ndarray,
    groups: Sequence,
    classes: Sequence,
    reason: str,
    *,
    stacklevel: int = 3,
) -> None:
    """Warn once about every (group, class) cell of ``undefined`` (shape groups x classes) that is True.

    The message names each group and class (the first few, then a count), the metric and why it is
    undefined. ``groups`` may contain the word ``"all"`` or ``"rest of g"`` for background sets.
    """
    undefined = np.asarray(undefined, dtype=bool)
    if undefined.ndim == 1:
        undefined = undefined[:, None]
    if not undefined.any():
        return
    cells = np.argwhere(undefined)
    listed = []
    for gi, ci in cells[:_MAX_LISTED]:
        cls = classes[ci] if len(classes) > ci else ci
        listed.append(f"group {groups[gi]!r} class {cls!r}")
    more = len(cells) - len(listed)
    text = "; ".join(listed) + (f"; and {more} more" if more > 0 else "")
    warnings.warn(
        f"{metric} is undefined (0/0: {reason}) for {text}; set to NaN",
        UndefinedMetricWarning,
        stacklevel=stacklevel,
    )
