"""Aggregation of per-group, per-class scores (Han, Baldwin & Cohn 2023, "Fair Enough").

Step 1 aggregates over groups within each class, step 2 over classes, both with the generalized
(power) mean ``M_p(x) = (sum_i w_i x_i^p / sum_i w_i)^(1/p)``: p = 1 the mean, p = 2 the quadratic
mean (RMS), p = 0 the geometric mean, p = +inf the maximum and p = -inf the minimum.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError

logger = logging.getLogger(__name__)

__all__ = ["generalized_mean", "aggregate_disparity"]


def _as_power(p: Any, name: str) -> float:
    try:
        value = float(p)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(name, p, "a number (or +/-inf for max/min, 0 for the geometric mean)") from exc
    if math.isnan(value):
        raise InvalidParameterError(name, p, "a number, not NaN")
    return value


def generalized_mean(
    x: Any,
    p: float = 1.0,
    *,
    weights: Any = None,
    axis: int | None = None,
    nan_policy: str = "omit",
) -> np.ndarray | float:
    r"""Generalized (power) mean :math:`M_p(x) = \left(\sum_i w_i x_i^p / \sum_i w_i\right)^{1/p}`.

    Han, Baldwin & Cohn (2023), "Fair Enough", aggregate group and class scores with it.

    Parameters
    ----------
    x : array-like
        Values. For ``p`` other than 1 and +/-inf they must be non-negative (gaps, rates).
    p : float
        Power: 1 arithmetic mean, 2 root mean square, 0 geometric mean, ``np.inf`` max, ``-np.inf``
        min. For p < 0 a zero value makes the mean 0 (its limit).
    weights : array-like, optional
        Non-negative weights broadcastable to ``x`` (weighted variant; max/min ignore zero-weight values).
    axis : int, optional
        Axis to aggregate (default: all values).
    nan_policy : {'omit', 'propagate'}
        'omit' leaves NaN values out (all-NaN gives NaN); 'propagate' returns NaN if any value is NaN.

    Returns
    -------
    float or ndarray
    """
    p = _as_power(p, "p")
    if nan_policy not in ("omit", "propagate"):
        raise InvalidParameterError("nan_policy", nan_policy, ["omit", "propagate"])
    arr = np.asarray(x, dtype=float)
    w = np.ones_like(arr) if weights is None else np.broadcast_to(np.asarray(weights, dtype=float), arr.shape).copy()
    if (w < 0).any() or np.isnan(w).any():
        raise InvalidParameterError("weights", weights, "non-negative weights")
    if np.isinf(arr).any():
        raise InvalidParameterError("x", "infinite values", "finite values (NaN allowed)")
    nan = np.isnan(arr)
    if p not in (1.0, math.inf, -math.inf) and (arr[~nan] < 0).any():
        raise InvalidParameterError(
            "x", "negative values", "non-negative values for power p not in {1, inf, -inf}",
            detail="take absolute gaps first (unit='gap')",
        )
    w = np.where(nan, 0.0, w)
    used = w > 0
    safe = np.where(used, arr, 1.0)  # values that do not count never produce inf/NaN
    wsum = w.sum(axis=axis)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        if p == math.inf:
            out = np.where(used, safe, -np.inf).max(axis=axis)
        elif p == -math.inf:
            out = np.where(used, safe, np.inf).min(axis=axis)
        elif p == 0.0:
            out = np.exp((w * np.log(safe)).sum(axis=axis) / wsum)  # a zero gives exp(-inf) = 0
        else:
            out = ((w * safe**p).sum(axis=axis) / wsum) ** (1.0 / p)  # p < 0 with a zero gives 0
    out = np.asarray(out, dtype=float)
    out = np.where(np.asarray(wsum) > 0, out, np.nan)
    if nan_policy == "propagate":
        out = np.where(nan.any(axis=axis), np.nan, out)
    return float(out) if out.ndim == 0 else out


def aggregate_disparity(
    scores: Any,
    overall: Any,
    *,
    unit: str = "gap",
    group_power: float | str = 1.0,
    class_power: float = 2.0,
    group_weights: Any = None,
    class_weights: Any = None,
    nan_policy: str = "omit",
) -> float:
    r"""Two-step aggregation of a classes x groups score matrix (Han, Baldwin & Cohn 2023).

    For each class c and group g, the unit is the score :math:`s_{cg}` ('score'), the gap
    :math:`|s_{cg} - s_c|` to the overall score ('gap'), or the ratio :math:`s_{cg} / s_c`
    ('ratio'). Groups are aggregated per class with :math:`M_{p_g}`, then classes with
    :math:`M_{p_c}`. The paper's default for equal opportunity: TPR, unit 'gap', unweighted group
    mean (``group_power=1``), root mean square over classes (``class_power=2``); fairness is then
    ``1 - gap``.

    Parameters
    ----------
    scores : array-like of shape (n_classes, n_groups)
        Per-class, per-group scores (e.g. TPR; ``ConfusionCounts.rate('tpr').T``).
    overall : array-like of shape (n_classes,)
        Score of each class on all examples.
    unit : {'score', 'gap', 'ratio'}
    group_power : float or 'sum'
        Power of the group aggregation; 'sum' sums the units (fairlib's default: the sum of absolute
        gaps over groups).
    class_power : float
        Power of the class aggregation.
    group_weights, class_weights : array-like, optional
        Weights of the weighted variants (shape (n_groups,) or (n_classes, n_groups); (n_classes,)).
    nan_policy : {'omit', 'propagate'}
        'omit' drops undefined cells (and classes whose groups are all undefined).

    Returns
    -------
    float
    """
    if unit not in ("score", "gap", "ratio"):
        raise InvalidParameterError("unit", unit, ["score", "gap", "ratio"])
    s = np.asarray(scores, dtype=float)
    if s.ndim == 1:
        s = s[None, :]
    if s.ndim != 2:
        raise InvalidParameterError("scores", f"array of shape {s.shape}", "a (n_classes, n_groups) matrix")
    o = np.asarray(overall, dtype=float).reshape(-1)
    if o.size != s.shape[0]:
        raise InvalidParameterError("overall", f"length {o.size}", f"length {s.shape[0]} (one overall score per class)")
    if unit == "score":
        u = s
    elif unit == "gap":
        u = np.abs(s - o[:, None])
    else:
        with np.errstate(invalid="ignore", divide="ignore"):
            u = np.where(o[:, None] != 0, s / np.where(o[:, None] != 0, o[:, None], 1.0), np.nan)
    gw = None if group_weights is None else np.broadcast_to(np.asarray(group_weights, dtype=float), u.shape)
    if isinstance(group_power, str):
        if group_power != "sum":
            raise InvalidParameterError("group_power", group_power, "a number or 'sum'")
        filled = np.where(np.isnan(u), 0.0, u) if nan_policy == "omit" else u
        per_class = (filled * (1.0 if gw is None else gw)).sum(axis=1)
        if nan_policy == "omit":
            per_class = np.where(np.isnan(u).all(axis=1), np.nan, per_class)
    else:
        per_class = generalized_mean(u, group_power, weights=gw, axis=1, nan_policy=nan_policy)
    per_class = np.atleast_1d(np.asarray(per_class, dtype=float))
    if nan_policy == "omit" and np.isnan(per_class).any():
        logger.info("aggregate_disparity: %d undefined class(es) left out", int(np.isnan(per_class).sum()))
    return float(generalized_mean(per_class, class_power, weights=class_weights, nan_policy=nan_policy))
