"""The count-based metrics of :func:`probekit.extrinsic.evaluate_predictions` and their bootstrap
intervals, computed from confusion counts for every block at once (leading axis: 1 for the estimate,
B for bootstrap replicates).

TPRD / FPRD (Tokpo et al. 2023) are the PCM of the group of interest and the reference; FPED / FNED
and the TPR gap are literature metrics of the declarative table, computed through the
generalized-metric engine (Czarnowska, Vyas & Shah 2021); demographic parity and equalized odds are
fairlearn-style MCMs (``range`` and ``min_max_ratio`` of the group rates). Intervals resample the
confusion counts within groups (a multinomial draw per group is the stratified row bootstrap), with
percentile or BCa intervals (Efron 1987; the jackknife over counts for the acceleration).
"""

from __future__ import annotations

import warnings
from dataclasses import replace

import numpy as np

from probekit.extrinsic._aggregation import generalized_mean
from probekit.extrinsic._confusion import ovr_from_confusion, rate_from_ovr
from probekit.extrinsic._generalized import scalar_metric_blocks
from probekit.extrinsic._literature_metrics import LITERATURE_METRICS, LiteratureMetric
from probekit.stats import bca_interval, jackknife_counts, multinomial_bootstrap_counts


def _class_mean(x: np.ndarray, nan_policy: str) -> np.ndarray:
    """Mean over the last axis (classes) with the NaN policy; all-NaN gives NaN."""
    if x.shape[-1] == 1:
        return x[..., 0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(generalized_mean(x, 1.0, axis=-1, nan_policy=nan_policy))


def _engine_blocks(stats: dict[str, np.ndarray], row: LiteratureMetric, T: np.ndarray, smoothing: float) -> np.ndarray:
    """The literature metric ``row`` per block through the generalized-metric engine."""
    return scalar_metric_blocks(
        stats, kind=row.kind, phi=row.phi, d=row.d, normalization=row.normalization,
        background=row.background, b_index=None, T=T, smoothing=smoothing,
    )


# TPRD / FPRD (Tokpo et al. 2023): rate(group of interest) - rate(reference), the PCM of the two groups
_DIFFERENCES = {
    "tprd": LITERATURE_METRICS["tpr_difference"],
    "fprd": replace(LITERATURE_METRICS["tpr_difference"], name="fpr_difference", phi="fpr", title="FPR difference"),
}
# (phi, comparison) of the fairlearn-style MCMs; equalized odds combines the TPR and FPR rows
_MCMS = {
    "demographic_parity_difference": (("selection_rate", "range"),),
    "demographic_parity_ratio": (("selection_rate", "min_max_ratio"),),
    "equalized_odds_difference": (("tpr", "range"), ("fpr", "range")),
    "equalized_odds_ratio": (("tpr", "min_max_ratio"), ("fpr", "min_max_ratio")),
}


def _per_class_metrics(stats: dict[str, np.ndarray], *, a: int | None, b: int | None, smoothing: float) -> dict[str, np.ndarray]:
    """Per-class count-based metrics per block (leading axis: 1 for the estimate, B for bootstrap)."""
    T = np.arange(stats["n"].shape[1])
    per_class: dict[str, np.ndarray] = {}
    if a is not None:
        for name, row in _DIFFERENCES.items():
            per_class[name] = _engine_blocks(stats, row, np.array([a, b]), smoothing)
    for name in ("fped", "fped_normalized", "fned", "fned_normalized", "tpr_gap"):
        per_class[name] = _engine_blocks(stats, LITERATURE_METRICS[name], T, smoothing)
    for name, parts in _MCMS.items():
        values = [
            scalar_metric_blocks(stats, kind="mcm", phi=phi, d=d, normalization=None, background=None, b_index=None,
                                 T=T, smoothing=smoothing)
            for phi, d in parts
        ]
        combine = np.minimum if name.endswith("ratio") else np.maximum
        per_class[name] = values[0] if len(values) == 1 else combine(*values)
    return per_class


def _count_metrics(stats: dict[str, np.ndarray], *, a: int | None, b: int | None, smoothing: float, nan_policy: str) -> tuple[dict, dict]:
    """Count-based metrics for every block: (per class, class aggregates and group-level scalars)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        per_class = _per_class_metrics(stats, a=a, b=b, smoothing=smoothing)
        scalars: dict[str, np.ndarray] = {}
        correct, n = stats["correct"], stats["n"]
        scalars["accuracy"] = correct.sum(axis=1) / n.sum(axis=1)
        overall = {k: v.sum(axis=1, keepdims=True) for k, v in stats.items()}
        f1_all = rate_from_ovr(overall, "f1", smoothing)[0][:, 0]
        scalars["f1"] = _class_mean(f1_all, nan_policy)
        if a is not None:
            acc = np.where(n > 0, correct / np.where(n > 0, n, 1), np.nan)
            scalars["accuracy_difference"] = acc[:, a] - acc[:, b]
        for name, values in per_class.items():
            agg = np.abs(values) if name in ("tprd", "fprd") else values
            scalars[name] = _class_mean(agg, nan_policy)
        tpr = rate_from_ovr(stats, "tpr", smoothing)[0]  # (J, G, K)
        tpr_all = rate_from_ovr(overall, "tpr", smoothing)[0]  # (J, 1, K)
        gaps = np.abs(tpr - tpr_all)  # (J, G, K)
        per_group_gap = np.asarray(generalized_mean(gaps, 1.0, axis=1, nan_policy=nan_policy)).reshape(gaps.shape[0], -1)
        scalars["tpr_gap_to_overall_rms"] = np.asarray(generalized_mean(per_group_gap, 2.0, axis=-1, nan_policy=nan_policy)).reshape(-1)
    return per_class, scalars


def _interval_table(
    C: np.ndarray, eval_codes: np.ndarray, targets: list[tuple[str, str, int | None]], estimate: np.ndarray, *,
    a, b, smoothing, nan_policy, n_bootstrap: int, confidence: float, method: str, rng: np.random.Generator,
) -> dict[str, dict]:
    """Bootstrap intervals of count-based metrics; ``targets`` = (report name, metric, class index or None)."""

    def metric_matrix(tensors: np.ndarray) -> np.ndarray:
        ovr = ovr_from_confusion(tensors)
        for k in ("tp", "fp", "fn", "tn"):
            ovr[k] = ovr[k][..., eval_codes]
        per_class, scalars = _count_metrics(ovr, a=a, b=b, smoothing=smoothing, nan_policy=nan_policy)
        cols = [scalars[m].reshape(-1) if k is None else per_class[m][:, k] for _, m, k in targets]
        return np.stack(cols, axis=1)

    sizes = [min(256, n_bootstrap - s) for s in range(0, n_bootstrap, 256)]
    boot = np.concatenate([metric_matrix(multinomial_bootstrap_counts(C, size, rng)) for size in sizes])
    jack = weights = None
    if method == "bca":
        parts, wparts = [], []
        for reps, w in jackknife_counts(C):
            parts.append(metric_matrix(reps))
            wparts.append(w)
        jack, weights = np.concatenate(parts), np.concatenate(wparts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high, n_valid = bca_interval(estimate, boot, confidence, method, jack, weights)
    return {
        name: {"low": float(lo), "high": float(hi), "confidence": confidence, "method": method,
               "n_resamples": int(n_bootstrap), "n_valid": int(nv)}
        for (name, _, _), lo, hi, nv in zip(targets, low, high, n_valid)
    }
