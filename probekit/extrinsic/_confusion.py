"""Confusion counts: the one tensor every prediction-based rate of the engine comes from.

All per-group, per-class counts are gathered with a single ``np.bincount`` over the flat index
``(group * K + y_true) * K + y_pred``, giving a ``(groups, classes, classes)`` tensor. One-vs-rest
counts of class c follow by sums (TP = C[g, c, c]; FN = row sum - TP; FP = column sum - TP;
TN = the rest), and because counts are additive, the counts of any union of groups (all examples,
all but one group) are sums of group counts. Rates are ratios of additive counts, which is what lets
background sets, counterfactual sources and bootstrap replicates all share one code path.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.extrinsic._inputs import encode_inputs
from probekit.extrinsic._warnings import warn_undefined

__all__ = [
    "PREDICTION_SCORES",
    "ConfusionCounts",
    "confusion_counts",
    "confusion_tensor",
    "ovr_from_confusion",
    "ovr_from_rows",
    "rate_from_ovr",
]

#: Prediction-based scoring functions, each the ratio of two additive one-vs-rest counts.
PREDICTION_SCORES: dict[str, str] = {
    "tpr": "true positive rate TP / (TP + FN)",
    "recall": "recall = TPR",
    "fnr": "false negative rate FN / (TP + FN)",
    "tnr": "true negative rate TN / (TN + FP)",
    "fpr": "false positive rate FP / (FP + TN)",
    "precision": "precision TP / (TP + FP)",
    "f1": "F1 = 2 TP / (2 TP + FP + FN)",
    "selection_rate": "share predicted as the class (TP + FP) / N",
    "accuracy": "accuracy over all classes: correct / N (class independent)",
}

_REASONS = {
    "tpr": "no examples of the class in the set",
    "recall": "no examples of the class in the set",
    "fnr": "no examples of the class in the set",
    "tnr": "no examples of other classes in the set",
    "fpr": "no examples of other classes in the set",
    "precision": "nothing in the set is predicted as the class",
    "f1": "the class is neither present nor predicted in the set",
    "selection_rate": "the set is empty",
    "accuracy": "the set is empty",
}


def confusion_tensor(y_true: np.ndarray, y_pred: np.ndarray, group: np.ndarray, n_groups: int, n_classes: int) -> np.ndarray:
    """``(G, K, K)`` counts ``C[g, t, p]`` from integer codes with one ``np.bincount``."""
    K = n_classes
    flat = (group * K + y_true) * K + y_pred
    return np.bincount(flat, minlength=n_groups * K * K).reshape(n_groups, K, K)


def ovr_from_confusion(C: np.ndarray) -> dict[str, np.ndarray]:
    """One-vs-rest counts from confusion tensors ``C[..., t, p]``.

    Returns ``tp, fp, fn, tn`` of shape ``C.shape[:-1]`` (last axis = class) and ``correct``, ``n``
    of shape ``C.shape[:-2]`` (all as float).
    """
    C = np.asarray(C, dtype=float)
    tp = np.diagonal(C, axis1=-2, axis2=-1).copy()
    pos = C.sum(axis=-1)
    pred = C.sum(axis=-2)
    n = pos.sum(axis=-1)
    fn = pos - tp
    fp = pred - tp
    tn = n[..., None] - tp - fn - fp
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "correct": tp.sum(axis=-1), "n": n}


def ovr_from_rows(
    y_true: np.ndarray,
    y_pred: np.ndarray,
    key: np.ndarray,
    n_keys: int,
    n_classes: int,
    eval_codes: np.ndarray | None = None,
) -> dict[str, np.ndarray]:
    """One-vs-rest counts per key (e.g. source x group) without the ``K x K`` tensor.

    Used when the number of keys is large (counterfactual sources), where ``keys x K x K`` cells would
    not fit in memory: ``(n_keys, K_eval)`` arrays from bincounts, only for the classes in
    ``eval_codes`` (default: all).
    """
    K = n_classes
    n = np.bincount(key, minlength=n_keys).astype(float)
    right = y_true == y_pred
    correct = np.bincount(key[right], minlength=n_keys).astype(float)
    if eval_codes is None:
        eval_codes = np.arange(K)
    lookup = np.full(K, -1, dtype=np.intp)
    lookup[eval_codes] = np.arange(len(eval_codes))
    E = len(eval_codes)

    def count(cls: np.ndarray, mask: np.ndarray | None = None) -> np.ndarray:
        idx = lookup[cls]
        keep = idx >= 0 if mask is None else (idx >= 0) & mask
        flat = key[keep] * E + idx[keep]
        return np.bincount(flat, minlength=n_keys * E).reshape(n_keys, E).astype(float)

    tp = count(y_true, right)
    fn = count(y_true) - tp
    fp = count(y_pred) - tp
    tn = n[:, None] - tp - fn - fp
    return {"tp": tp, "fp": fp, "fn": fn, "tn": tn, "correct": correct, "n": n}


def _divide(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    num, den = np.broadcast_arrays(np.asarray(num, dtype=float), np.asarray(den, dtype=float))
    undefined = den <= 0
    out = np.full(num.shape, np.nan)
    np.divide(num, den, out=out, where=~undefined)
    return out, undefined


def rate_from_ovr(ovr: dict[str, np.ndarray], score: str, smoothing: float = 0.0) -> tuple[np.ndarray, np.ndarray, str]:
    """Rate ``score`` from one-vs-rest counts; returns (values, undefined mask, reason).

    ``smoothing`` is added to each of TP, FP, FN and TN before the division (fairlib adds 1e-5 to its
    confusion-matrix based scores); the class-independent accuracy is never smoothed.
    """
    if score not in PREDICTION_SCORES:
        raise InvalidParameterError("phi", score, list(PREDICTION_SCORES))
    s = float(smoothing)
    if score == "accuracy":
        values, undefined = _divide(ovr["correct"], ovr["n"])
        return values[..., None], undefined[..., None], _REASONS[score]
    tp, fp, fn, tn = (ovr[k] + s for k in ("tp", "fp", "fn", "tn"))
    if score in ("tpr", "recall"):
        num, den = tp, tp + fn
    elif score == "fnr":
        num, den = fn, tp + fn
    elif score == "tnr":
        num, den = tn, tn + fp
    elif score == "fpr":
        num, den = fp, fp + tn
    elif score == "precision":
        num, den = tp, tp + fp
    elif score == "f1":
        num, den = 2 * tp, 2 * tp + fp + fn
    else:  # selection_rate
        num, den = tp + fp, tp + fp + fn + tn
    values, undefined = _divide(num, den)
    return values, undefined, _REASONS[score]


@dataclass(frozen=True)
class ConfusionCounts:
    """Confusion counts per group: ``counts[g, t, p]`` = examples of group g with label t predicted p.

    Attributes
    ----------
    counts : ndarray of shape (n_groups, n_classes, n_classes)
    groups : ndarray
        Group values, in code order (sorted unless ``group_order`` was given).
    classes : ndarray
        Class labels, in code order (sorted unless ``labels`` was given).
    """

    counts: np.ndarray
    groups: np.ndarray
    classes: np.ndarray

    def one_vs_rest(self) -> dict[str, np.ndarray]:
        """``tp, fp, fn, tn`` of shape (groups, classes), ``correct`` and ``n`` of shape (groups,)."""
        return ovr_from_confusion(self.counts)

    def rate(self, score: str, *, smoothing: float = 0.0, overall: bool = False) -> np.ndarray:
        """Rate ``score`` (a key of ``PREDICTION_SCORES``) per group and class, NaN where undefined.

        With ``overall=True`` the rate of all examples together (shape (classes,)).
        """
        C = self.counts.sum(axis=0) if overall else self.counts
        values, undefined, reason = rate_from_ovr(ovr_from_confusion(C), score, smoothing)
        if undefined.any():
            names = ["all"] if overall else self.groups.tolist()
            labels = ("all",) if score == "accuracy" else tuple(self.classes.tolist())
            warn_undefined(score, undefined.reshape(len(names), -1), names, labels, reason)
        if score == "accuracy":
            values = np.broadcast_to(values, values.shape[:-1] + (self.classes.size,)).copy()
        return values

    def difference(self, score: str, *, method: str = "between_groups", smoothing: float = 0.0) -> np.ndarray:
        """Per class: max - min of the group rates ('between_groups'), or the largest
        |rate(group) - rate(all)| ('to_overall'), as fairlearn's ``MetricFrame.difference``.
        """
        values = self.rate(score, smoothing=smoothing)
        if method == "between_groups":
            return values.max(axis=0) - values.min(axis=0)
        if method == "to_overall":
            return np.abs(values - self.rate(score, smoothing=smoothing, overall=True)).max(axis=0)
        raise InvalidParameterError("method", method, ["between_groups", "to_overall"])

    def ratio(self, score: str, *, method: str = "between_groups", smoothing: float = 0.0) -> np.ndarray:
        """Per class: min / max of the group rates ('between_groups'), or the smallest
        min(rate(group) / rate(all), rate(all) / rate(group)) ('to_overall'); NaN for 0/0.
        """
        values = self.rate(score, smoothing=smoothing)
        with np.errstate(invalid="ignore", divide="ignore"):
            if method == "between_groups":
                hi = values.max(axis=0)
                return np.where(hi > 0, values.min(axis=0) / np.where(hi > 0, hi, 1.0), np.nan)
            if method == "to_overall":
                o = self.rate(score, smoothing=smoothing, overall=True)
                r = np.minimum(values / o, o / values)
                return r.min(axis=0)
        raise InvalidParameterError("method", method, ["between_groups", "to_overall"])


def confusion_counts(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    labels: Sequence | None = None,
    group_order: Sequence | None = None,
) -> ConfusionCounts:
    """Per-group confusion counts gathered in one pass (``np.bincount`` over group x class x prediction).

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
        Gold labels and predictions (strings, booleans or integers; any values).
    groups : array-like of shape (n,)
        Group of each example (at least one group; one group is allowed here).
    labels : sequence, optional
        Every class, in the order wanted; default: the sorted union of ``y_true`` and ``y_pred``.
    group_order : sequence, optional
        Every group, in the order wanted; default sorted.

    Returns
    -------
    ConfusionCounts
    """
    enc = encode_inputs(y_true, y_pred, groups, labels=labels, group_order=group_order, min_groups=1)
    C = confusion_tensor(enc.y_true, enc.y_pred, enc.group, enc.n_groups, enc.n_classes)
    return ConfusionCounts(counts=C, groups=enc.groups, classes=enc.classes)
