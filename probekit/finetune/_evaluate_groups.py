r"""Extrinsic metrics of a fine-tuned classifier for the k groups of one attribute, per fold and pooled.

What TPRD and FPRD are for gender, the k-group gap family of the engine
(:func:`probekit.extrinsic.group_gaps`) is for race, religion or a registered attribute: for the TPR
and the FPR of every evaluated class (one-vs-rest; only the positive class of a binary task, as for
gender),

* max gap :math:`\max_g r_g - \min_g r_g`,
* RMS gap to the overall rate :math:`\sqrt{\tfrac1k \sum_g (r_g - r_{all})^2}`,
* pairwise gaps :math:`r_a - r_b` with simultaneous (Bonferroni) stratified-bootstrap intervals.

A fold's scalar metrics (``tpr_max_gap``, ``tpr_rms_gap``, ``fpr_max_gap``, ``fpr_rms_gap``) are the
means over the evaluated classes of the per-class values (as ``tprd`` is for gender); ``accuracy``
and ``macro_f1`` come from :func:`probekit.extrinsic.evaluate_predictions`, ``cf`` is the k-group CF
(:func:`probekit.finetune._groups.group_cf`). With ``intersect`` (a second column of the data, e.g.
``gender``) the gaps of the attribute x intersect cells too (:func:`probekit.extrinsic.intersectional_gaps`,
cells below ``min_cell_size`` listed and left out). Each fold keeps its (group, intersect value,
label, prediction) counts, so that the run's gaps are computed once more over the pooled
out-of-fold predictions (every example is tested once), with intervals
(:func:`pooled_group_gaps`).
"""

from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.extrinsic import evaluate_predictions, group_gaps, intersectional_gaps
from probekit.finetune._groups import group_cf
from probekit.finetune._identities import jigsaw_subgroups

__all__ = ["GROUP_GAP_SCORES", "GROUP_METRICS", "fold_group_metrics", "group_gap_family", "pooled_group_gaps",
           "subgroup_aucs"]

#: The rates whose k-group gaps are reported (TPRD's and FPRD's rates).
GROUP_GAP_SCORES = ("tpr", "fpr")

#: Scalar metrics of a fold of a k-group run.
GROUP_METRICS = ("accuracy", "macro_f1", "tpr_max_gap", "tpr_rms_gap", "fpr_max_gap", "fpr_rms_gap", "cf")


def _evaluated_classes(classes: Sequence[str]) -> list[str]:
    return [str(classes[-1])] if len(classes) == 2 else [str(c) for c in classes]


def group_gap_family(y: np.ndarray, pred: np.ndarray, groups: np.ndarray, classes: Sequence[str],
                     attribute: str | None = None, random_state: int = 0, n_bootstrap: int | None = None,
                     ) -> dict[str, dict[str, Any]]:
    """``{score: {class: GroupGaps}}``: :func:`probekit.extrinsic.group_gaps` of TPR and FPR for each evaluated
    class (every class one-vs-rest; the last of two) present in ``y`` or ``pred``, seeded with ``random_state``:
    what a k-group fold reports and ``probekit metrics --gaps`` recomputes.
    """
    present = set(y) | set(pred)
    return {score: {c: group_gaps(y, pred, groups, score=score, pos_label=c, attribute=attribute,
                                  random_state=random_state, n_bootstrap=n_bootstrap)
                    for c in _evaluated_classes(classes) if c in present}
            for score in GROUP_GAP_SCORES}


def _intersections(y, pred, groups, other, classes, names, min_cell_size, random_state, n_bootstrap
                   ) -> dict[str, dict[str, Any]]:
    present = set(y) | set(pred)
    return {score: {c: intersectional_gaps(y, pred, groups, other, names=names, score=score, pos_label=c,
                                           min_cell_size=min_cell_size, random_state=random_state,
                                           n_bootstrap=n_bootstrap)
                    for c in _evaluated_classes(classes) if c in present}
            for score in GROUP_GAP_SCORES}


def _class_mean(values: Sequence[float]) -> float:
    arr = np.asarray(list(values), dtype=float)
    return float(np.nanmean(arr)) if arr.size and np.isfinite(arr).any() else float("nan")


def _scalars(family: Mapping[str, Mapping[str, Any]], prefix: str = "") -> tuple[dict[str, float], dict[str, dict]]:
    metrics, per_class = {}, {}
    for score, by_class in family.items():
        for stat in ("max_gap", "rms_gap"):
            cells = {c: getattr(getattr(g, "intersection", g), stat).estimate for c, g in by_class.items()}
            metrics[f"{prefix}{score}_{stat}"] = _class_mean(cells.values())
            per_class[f"{prefix}{score}_{stat}"] = {c: float(v) for c, v in cells.items()}
    return metrics, per_class


def _gaps(y, pred, groups, other, classes, *, attribute, intersect, min_cell_size, random_state, n_bootstrap):
    """(metrics, per_class, details) of the gap family and, with ``intersect``, the intersections."""
    family = group_gap_family(y, pred, groups, classes, attribute, random_state, n_bootstrap)
    metrics, per_class = _scalars(family)
    details: dict[str, Any] = {"group_gaps": {s: {c: g.to_dict() for c, g in by.items()} for s, by in family.items()}}
    if intersect is not None:
        inter = _intersections(y, pred, groups, other, classes, (attribute, intersect), min_cell_size, random_state,
                               n_bootstrap)
        m, pc = _scalars(inter, prefix="intersection_")
        metrics.update(m)
        per_class.update(pc)
        details["intersection"] = {s: {c: g.to_dict() for c, g in by.items()} for s, by in inter.items()}
    return metrics, per_class, details


def fold_group_metrics(
    predictions: pd.DataFrame, classes: Sequence[Any], *, attribute: str, intersect: str | None = None,
    min_cell_size: int = 30, random_state: int = 0, fold: int | None = None, n_bootstrap: int | None = None,
) -> tuple[dict[str, float], dict[str, dict[str, float]], dict[str, Any], list[str]]:
    """Metrics of one fold of a k-group run from its predictions (see the module docstring).

    Parameters
    ----------
    predictions : DataFrame
        ``variant``, ``source``, ``label``, ``prediction``, ``group`` (the attribute's group of the
        row's text), ``prob_<class>``, and the ``intersect`` column when given.
    classes : sequence
    attribute : str
    intersect : str, optional
    min_cell_size : int
    random_state : int
        Seed of the bootstrap intervals.
    fold : int, optional
        Named in the warnings.
    n_bootstrap : int, optional
        Bootstrap replicates (default: :func:`probekit.extrinsic.group_gaps`' own, enough for the
        simultaneous pairwise intervals).

    Returns
    -------
    metrics, per_class, details, warnings
        ``details``: ``group_gaps`` ({score: {class: GroupGaps.to_dict()}}), ``intersection``,
        ``group_counts`` (rows [group, intersect value or null, label, prediction, n]).
    """
    original = predictions[predictions["variant"] == "original"]
    y = original["label"].astype(str).to_numpy()
    pred = original["prediction"].astype(str).to_numpy()
    groups = original["group"].astype(str).to_numpy()
    other = original[intersect].astype(str).to_numpy() if intersect else None
    prefix = f"fold {fold}: " if fold is not None else ""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate_predictions(y, pred, groups, labels=[str(c) for c in classes])
        metrics, per_class, details = _gaps(y, pred, groups, other, classes, attribute=attribute, intersect=intersect,
                                            min_cell_size=min_cell_size, random_state=random_state,
                                            n_bootstrap=n_bootstrap)
    messages = [f"{prefix}{w.message}" for w in caught if not issubclass(w.category, (RuntimeWarning, DeprecationWarning))
                and ("tpr" in str(w.message) or "fpr" in str(w.message) or "min_group_size" in str(w.message))]
    metrics = {"accuracy": float(report.metrics["accuracy"]), "macro_f1": float(report.metrics["f1"]), **metrics,
               "cf": group_cf(predictions, classes) if (predictions["variant"] != "original").any() else float("nan")}
    counts = pd.DataFrame({"group": groups, "other": other if other is not None else None, "label": y, "prediction": pred})
    table = counts.groupby(["group", "label", "prediction"] + (["other"] if intersect else []), dropna=False).size()
    details["group_counts"] = [[g, (key[3] if intersect else None), lab, p, int(n)]
                               for key, n in table.items() for g, lab, p in [key[:3]]]
    return metrics, per_class, details, messages


def pooled_group_gaps(folds: Sequence[Mapping[str, Any]], classes: Sequence[Any], *, attribute: str,
                      intersect: str | None = None, min_cell_size: int = 30, random_state: int = 0,
                      n_bootstrap: int | None = None) -> dict[str, Any]:
    """The run's gap family (and intersections) over the pooled out-of-fold predictions.

    Rebuilt from every fold's ``group_counts`` (each test example once); returns ``metrics``,
    ``per_class`` and the ``group_gaps`` / ``intersection`` tables as :func:`fold_group_metrics`
    (same ``n_bootstrap``).
    """
    rows = [r for f in folds for r in (f.get("group_counts") or [])]
    if not rows:
        return {}
    n = np.asarray([int(r[4]) for r in rows])
    expand = lambda i: np.repeat(np.asarray([str(r[i]) for r in rows], dtype=object), n)  # noqa: E731
    y, pred, groups = expand(2), expand(3), expand(0)
    other = expand(1) if intersect else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the folds' warnings already name every undefined cell
        metrics, per_class, details = _gaps(y, pred, groups, other, classes, attribute=attribute, intersect=intersect,
                                            min_cell_size=min_cell_size, random_state=random_state,
                                            n_bootstrap=n_bootstrap)
    return {"metrics": metrics, "per_class": per_class, **details, "n": int(n.sum())}


def subgroup_aucs(test: Any, probabilities: np.ndarray, classes: Sequence[Any]) -> list[dict[str, Any]] | None:
    """Borkan et al.'s (2019) subgroup, BPSN and BNSP AUCs of the positive class over the test set's
    identity subgroups (``identity_*`` columns of :func:`probekit.finetune.load_jigsaw_groups`); None without them.
    """
    from probekit.extrinsic import borkan_table

    if not any(c.startswith("identity_") for c in test.column_names) or len(classes) != 2:
        return None
    subgroups = jigsaw_subgroups(test)
    subgroups = subgroups.loc[:, subgroups.any(axis=0)]
    if subgroups.empty:
        return None
    y = np.asarray(test["label"]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a subgroup without both classes: NaN cells, kept as null
        table = borkan_table(y, probabilities[:, 1], subgroups)
    return [{"subgroup": str(name), **{k: (float(v) if isinstance(v, (float, np.floating)) else int(v) if isinstance(v, (int, np.integer)) else v)
                                       for k, v in row.items()}} for name, row in table.iterrows()]
