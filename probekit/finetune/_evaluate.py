r"""Extrinsic metrics of fine-tuned classifiers: per fold through the shared engine, then over folds.

Every number comes from :func:`probekit.extrinsic.evaluate_predictions` (no second implementation
of any metric), called twice per fold on the saved predictions:

- the *original* test set (one row per test example) gives accuracy, macro-F1, TPRD and FPRD per
  class (female minus male, one-vs-rest) and their class aggregate, ACC-F and ACC-M;
- the *counterfactually augmented* test set (each test example and its gender-swapped copy, sharing
  a ``source`` id, with class probabilities) gives CF = mean over test examples of
  :math:`|P(\hat y = y \mid x) - P(\hat y = y \mid x_{cf})|` and the group metrics on the augmented
  set: CF-TPRD, CF-FPRD, CF-ACC-F, CF-ACC-M (Tokpo et al. 2023, §4 and PAPERS.md §1).

ACC-F / ACC-M are reported twice, each labelled: ``acc_f`` / ``acc_m`` (and ``cf_acc_*``), the plain
accuracy within each gender, and ``acc_f_paper`` / ``acc_m_paper`` (and ``cf_acc_*_paper``), what the
authors' evaluation code computes, the mean over classes of the one-vs-rest accuracy
(:func:`paper_accuracy`, :math:`1 - 2(1 - \text{acc})/K`); the Tables 3-4 layout shows the paper's.

Class aggregation of TPRD / FPRD: the engine's ``tprd`` / ``fprd``, the mean over classes of the
absolute per-class difference, :math:`\frac{1}{K}\sum_c |TPR_{c,f} - TPR_{c,m}|`. Tokpo et al.
report one positive TPRD per setting for the 14-class Bias-in-Bios task without stating the
aggregation; the mean absolute value is the reading that keeps the scale of a per-class difference
(their 0.135 is of the size of a typical per-class gap). The root mean square over classes
(De-Arteaga et al. 2019's GAP^RMS, Han et al.'s default class aggregation) is reported beside it as
``tprd_rms`` / ``fprd_rms``, computed from the engine's per-class values with the engine's
:func:`~probekit.extrinsic.generalized_mean`. For binary tasks (Jigsaw) only the positive class is
evaluated, so ``tprd`` is the absolute TPRD of the toxic class; the signed value is ``tprd[<class>]``.

Over folds each metric is summarized by its mean, sample standard deviation and a Student-t
interval (:func:`probekit.extrinsic.t_interval`). A class with no test example of one gender in a
fold makes that fold's per-class cell NaN, with an :class:`~probekit.extrinsic.UndefinedMetricWarning`
naming the fold, group and class; class aggregates leave undefined classes out, and fold summaries
leave NaN folds out (``n_missing`` counts them).
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.extrinsic import UndefinedMetricWarning, evaluate_predictions, generalized_mean
from probekit.report import METRIC_LABELS
from probekit.stats import summarize_folds

logger = logging.getLogger(__name__)

__all__ = [
    "METRICS",
    "METRIC_LABELS",
    "PER_CLASS_METRICS",
    "PREDICTION_COLUMNS",
    "fold_metrics",
    "paper_accuracy",
    "summarize_folds",
    "prob_column",
]

#: Columns of a predictions file (plus one ``prob_<class>`` column per class, in class order).
PREDICTION_COLUMNS = ("fold", "source", "variant", "label", "prediction", "group", "text")

#: Scalar metrics of each fold, in the order of the paper's Tables 3-4 (then utility metrics).
METRICS = (
    "tprd", "fprd", "acc_f", "acc_m", "cf", "cf_tprd", "cf_fprd", "cf_acc_f", "cf_acc_m",
    "accuracy", "macro_f1", "tprd_rms", "fprd_rms", "cf_tprd_rms", "cf_fprd_rms",
    "acc_f_paper", "acc_m_paper", "cf_acc_f_paper", "cf_acc_m_paper",
)

#: Signed per-class metrics (female minus male).
PER_CLASS_METRICS = ("tprd", "fprd", "cf_tprd", "cf_fprd")

_FEMALE, _MALE = "female", "male"
# Engine warnings about the rates behind TPRD and FPRD (the others concern unreported metrics).
_REPORTED_RATES = ("tpr is undefined", "fpr is undefined")


def prob_column(cls: Any) -> str:
    """Name of the probability column of class ``cls`` in a predictions file."""
    return f"prob_{cls}"


def paper_accuracy(accuracy: float, n_classes: int) -> float:
    r"""ACC as the evaluation code of Tokpo et al. (2023) computes it: the mean over the :math:`K`
    classes of the one-vs-rest accuracy.

    A correct prediction is right in all :math:`K` one-vs-rest problems, a wrong one wrong in two
    (its true and its predicted class), so the mean over classes is
    :math:`1 - 2(1 - \text{acc})/K`; for :math:`K = 2` it is the plain accuracy.

    Parameters
    ----------
    accuracy : float
        Plain accuracy (of one gender's test examples for ACC-F / ACC-M).
    n_classes : int
        :math:`K`, every class of the task.
    """
    if isinstance(n_classes, bool) or not isinstance(n_classes, (int, np.integer)) or n_classes < 2:
        raise InvalidParameterError("n_classes", n_classes, "an integer >= 2")
    return float(1.0 - 2.0 * (1.0 - float(accuracy)) / int(n_classes))


def _group_accuracy(report: Any, group: str) -> float:
    by_group = report.by_group
    col = ("accuracy", "all") if isinstance(by_group.columns, pd.MultiIndex) else "accuracy"
    if group not in by_group.index:
        return float("nan")
    return float(by_group.loc[group, col])


def _per_class(report: Any, name: str, classes: Sequence) -> dict[str, float]:
    return {str(c): float(report.metrics.get(f"{name}[{c}]", np.nan)) for c in classes}


def _rms(values: Mapping[str, float]) -> float:
    """Root mean square over classes of the engine's per-class values (undefined classes left out)."""
    arr = np.abs(np.asarray(list(values.values()), dtype=float))
    if arr.size == 0 or np.isnan(arr).all():
        return float("nan")
    return float(generalized_mean(arr, 2.0, nan_policy="omit"))


def _check_frame(frame: pd.DataFrame, classes: Sequence) -> None:
    needed = ["source", "variant", "label", "prediction", "group", *(prob_column(c) for c in classes)]
    missing = [c for c in needed if c not in frame.columns]
    if missing:
        raise InvalidParameterError("predictions", f"columns {list(frame.columns)}", f"a frame with columns {needed}",
                                    detail=f"missing {missing}")
    groups = set(frame["group"].astype(str))
    if not groups <= {_FEMALE, _MALE}:
        raise InvalidParameterError("predictions['group']", sorted(groups), [_FEMALE, _MALE])


def _evaluate(frame: pd.DataFrame, classes: Sequence, *, counterfactual: bool) -> Any:
    kwargs: dict[str, Any] = {}
    if counterfactual:
        kwargs["y_prob"] = frame[[prob_column(c) for c in classes]].to_numpy(dtype=float)
        kwargs["source"] = frame["source"].to_numpy()
    return evaluate_predictions(
        frame["label"].to_numpy(), frame["prediction"].to_numpy(), frame["group"].astype(str).to_numpy(),
        labels=list(classes), group_of_interest=_FEMALE, reference=_MALE, **kwargs,
    )


def fold_metrics(
    predictions: pd.DataFrame, classes: Sequence, *, fold: int | None = None
) -> tuple[dict[str, float], dict[str, dict[str, float]], list[str]]:
    """Metrics of one fold from its predictions (original and counterfactual rows).

    Parameters
    ----------
    predictions : DataFrame
        Columns :data:`PREDICTION_COLUMNS` and ``prob_<class>`` for every class: one row per test
        example with ``variant == "original"`` and one per counterfactual with
        ``variant == "counterfactual"``, sharing ``source``. ``group`` is the gender of the row's text
        (``"female"`` / ``"male"``; a counterfactual has the other gender).
    classes : sequence
        Every class, in the order of the probability columns.
    fold : int, optional
        Fold number, used in warning messages.

    Returns
    -------
    metrics : dict
        :data:`METRICS` -> value (NaN where undefined).
    per_class : dict
        :data:`PER_CLASS_METRICS` -> {class: signed female-minus-male value}.
    warnings : list of str
        Messages of the undefined-metric warnings, which are also re-issued prefixed by the fold.
    """
    _check_frame(predictions, classes)
    original = predictions[predictions["variant"] == "original"]
    if original.empty:
        raise InvalidParameterError("predictions['variant']", "no 'original' rows", "original test rows")
    prefix = f"fold {fold}: " if fold is not None else ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        plain = _evaluate(original, classes, counterfactual=False)
        n_plain = len(caught)
        augmented = _evaluate(predictions, classes, counterfactual=True) if (predictions["variant"] != "original").any() else None
    messages = []
    for i, w in enumerate(caught):
        text = str(w.message)
        if issubclass(w.category, UndefinedMetricWarning):
            if text.startswith(_REPORTED_RATES):
                which = "counterfactually augmented test set" if i >= n_plain else "test set"
                message = f"{prefix}{which}: {text}"
                messages.append(message)
                warnings.warn(message, UndefinedMetricWarning, stacklevel=2)
            else:  # rates this module does not report (precision, F1 of a group, AUCs)
                logger.debug("%s%s", prefix, text)
        elif not issubclass(w.category, RuntimeWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    per_class = {"tprd": _per_class(plain, "tprd", classes_evaluated(plain)),
                 "fprd": _per_class(plain, "fprd", classes_evaluated(plain))}
    metrics = {
        "tprd": plain.metrics["tprd"], "fprd": plain.metrics["fprd"],
        "acc_f": _group_accuracy(plain, _FEMALE), "acc_m": _group_accuracy(plain, _MALE),
        "accuracy": plain.metrics["accuracy"], "macro_f1": plain.metrics["f1"],
        "tprd_rms": _rms(per_class["tprd"]), "fprd_rms": _rms(per_class["fprd"]),
    }
    nan = float("nan")
    if augmented is not None:
        per_class["cf_tprd"] = _per_class(augmented, "tprd", classes_evaluated(augmented))
        per_class["cf_fprd"] = _per_class(augmented, "fprd", classes_evaluated(augmented))
        metrics.update({
            "cf": augmented.metrics.get("cf", nan),
            "cf_tprd": augmented.metrics["tprd"], "cf_fprd": augmented.metrics["fprd"],
            "cf_acc_f": _group_accuracy(augmented, _FEMALE), "cf_acc_m": _group_accuracy(augmented, _MALE),
            "cf_tprd_rms": _rms(per_class["cf_tprd"]), "cf_fprd_rms": _rms(per_class["cf_fprd"]),
        })
    for name in ("acc_f", "acc_m", "cf_acc_f", "cf_acc_m"):
        if name in metrics:
            metrics[f"{name}_paper"] = paper_accuracy(metrics[name], len(classes))
    ordered = {name: float(metrics.get(name, nan)) for name in METRICS}
    return ordered, per_class, messages


def classes_evaluated(report: Any) -> list:
    """Classes the engine evaluated (every class; only the positive one for binary tasks)."""
    return list(report.settings["evaluated_classes"])


