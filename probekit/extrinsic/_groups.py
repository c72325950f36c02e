r"""Gaps between k groups and between the cells of two crossed attributes.

For a rate :math:`r` (TPR, FPR, selection rate, ... of one class; ``PREDICTION_SCORES``) of groups
:math:`g = 1..k` with overall rate :math:`r_{all}`:

* max gap :math:`\max_g r_g - \min_g r_g` (fairlearn's ``difference(method="between_groups")``);
* root-mean-square gap to the overall rate :math:`\sqrt{\tfrac1k \sum_g (r_g - r_{all})^2}`
  (the RMS TPR gap of Romanov et al. 2019 / Ravfogel et al. 2020, for any rate);
* pairwise gaps :math:`r_a - r_b` for every pair :math:`a < b`, with simultaneous
  (Bonferroni) percentile-bootstrap intervals over the ``family_size`` comparisons, so that "some
  interval excludes 0" has a family-wise error rate of at most :math:`1 -` ``confidence``.

Intervals resample examples within each group (a stratified bootstrap: group sizes are kept).
Rows with the same (group, label, prediction) are interchangeable for every rate, so a replicate
is a multinomial draw of those counts -- exactly the row bootstrap, at the cost of the counts.

Groups (or intersection cells) smaller than ``min_group_size`` are reported with their size and
rate and left out of the gaps, never silently dropped; a warning names them.
"""

from __future__ import annotations

import dataclasses
import itertools
import warnings
from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.extrinsic._confusion import (
    PREDICTION_SCORES,
    confusion_tensor,
    ovr_from_confusion,
    rate_from_ovr,
)
from probekit.extrinsic._inputs import encode_inputs
from probekit.extrinsic._warnings import UndefinedMetricWarning
from probekit.stats import ConfidenceInterval
from probekit.utils import Interval, Options, validate_parameters

__all__ = [
    "GroupGaps",
    "GroupMetricFrame",
    "IntersectionalGaps",
    "group_gaps",
    "group_metric_frame",
    "intersectional_gaps",
]


def _class_code(classes: np.ndarray, pos_label: Any) -> int:
    if pos_label is None:
        return int(classes.size - 1)
    hits = np.flatnonzero(classes == pos_label)
    if hits.size == 0:
        raise InvalidParameterError("pos_label", pos_label, classes.tolist())
    return int(hits[0])


def _rates(C: np.ndarray, score: str, c: int) -> np.ndarray:
    """Rate of class ``c`` from confusion tensors ``C[..., g, t, p]`` -> ``(..., g)``; NaN if undefined."""
    values, _, _ = rate_from_ovr(ovr_from_confusion(C), score)
    return values[..., 0] if score == "accuracy" else values[..., c]


def _replicates(C: np.ndarray, n_bootstrap: int, rng: np.random.Generator) -> np.ndarray:
    """``(B, G, K, K)`` stratified bootstrap replicates of the counts (multinomial per group)."""
    G, K, _ = C.shape
    out = np.zeros((n_bootstrap, G, K * K), dtype=np.int64)
    for g in range(G):
        n_g = int(C[g].sum())
        if n_g:
            out[:, g] = rng.multinomial(n_g, C[g].ravel() / n_g, size=n_bootstrap)
    return out.reshape(n_bootstrap, G, K, K)


def _interval(estimate: float, boot: np.ndarray, confidence: float) -> ConfidenceInterval:
    valid = boot[np.isfinite(boot)]
    alpha = 1.0 - confidence
    if valid.size == 0 or not np.isfinite(estimate):
        low = high = float("nan")
    else:
        low, high = (float(q) for q in np.quantile(valid, [alpha / 2, 1 - alpha / 2]))
    return ConfidenceInterval(float(estimate), low, high, confidence, "percentile", int(boot.size), int(valid.size))


def _gap_statistics(rates: np.ndarray, overall: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Max gap and RMS gap to the overall rate over the last axis (NaN groups left out)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        max_gap = np.nanmax(rates, axis=-1) - np.nanmin(rates, axis=-1)
        rms = np.sqrt(np.nanmean((rates - overall[..., None]) ** 2, axis=-1))
    return max_gap, rms


@dataclass(frozen=True)
class GroupGaps:
    """Rates of k groups and their gaps (see the module docstring for the formulas).

    Attributes
    ----------
    score, label : str, object
        The rate and the class it is of.
    table : DataFrame
        One row per group: ``n``, ``rate``, ``included`` (False for groups below the minimum size).
    overall : float
        The rate over all examples (small groups included).
    max_gap, rms_gap : ConfidenceInterval
        Estimates with percentile-bootstrap intervals at ``confidence``.
    pairwise : DataFrame
        ``group_a``, ``group_b``, ``gap`` = rate(a) - rate(b), ``low``, ``high`` (simultaneous
        intervals at ``pairwise_confidence``), ``excludes_zero``.
    """

    score: str
    label: Any
    table: pd.DataFrame
    overall: float
    max_gap: ConfidenceInterval
    rms_gap: ConfidenceInterval
    pairwise: pd.DataFrame
    confidence: float
    pairwise_confidence: float
    small_groups: tuple = field(default=())
    attribute: str | None = None

    @property
    def detected(self) -> bool:
        """Whether some pairwise interval excludes 0."""
        return bool(self.pairwise["excludes_zero"].any())

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready types (what results.json holds)."""
        return {
            "score": self.score, "label": _plain(self.label), "overall": self.overall,
            "groups": [{"group": _plain(g), **{k: _plain(v) for k, v in row.items()}} for g, row in self.table.iterrows()],
            "max_gap": self.max_gap.to_dict(), "rms_gap": self.rms_gap.to_dict(),
            "pairwise": [{k: _plain(v) for k, v in row.items()} for _, row in self.pairwise.iterrows()],
            "confidence": self.confidence, "pairwise_confidence": self.pairwise_confidence,
            "small_groups": [_plain(g) for g in self.small_groups], "attribute": self.attribute,
        }


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        return "|".join(str(v) for v in value)
    return value


def _pairwise(groups: Sequence, rates: np.ndarray, boot: np.ndarray, confidence: float) -> pd.DataFrame:
    rows = []
    for a, b in itertools.combinations(range(len(groups)), 2):
        ci = _interval(rates[a] - rates[b], boot[:, a] - boot[:, b], confidence)
        rows.append({"group_a": groups[a], "group_b": groups[b], "gap": ci.estimate, "low": ci.low, "high": ci.high,
                     "excludes_zero": bool(ci.low > 0 or ci.high < 0)})
    return pd.DataFrame(rows, columns=["group_a", "group_b", "gap", "low", "high", "excludes_zero"])


def _warn_small(small: Sequence, sizes: Sequence[int], minimum: int, what: str) -> None:
    if small:
        shown = ", ".join(f"{g!r} (n={n})" for g, n in zip(small, sizes))
        warnings.warn(f"{what} below min_group_size={minimum}, reported but left out of the gaps: {shown}",
                      UndefinedMetricWarning, stacklevel=4)


def _replicate_count(n_bootstrap: int | None, confidence: float, family_size: int) -> int:
    """``n_bootstrap``, or enough replicates for about 20 beyond each end of the simultaneous intervals."""
    if n_bootstrap is not None:
        return int(n_bootstrap)
    tail = (1.0 - confidence) / (2 * max(family_size, 1))
    return max(2000, int(np.ceil(20 / tail)))


def _gaps_from_counts(C: np.ndarray, groups: Sequence, label: Any, c: int, *, score: str, n_bootstrap: int | None,
                      confidence: float, family_size: int | None, min_group_size: int,
                      rng: np.random.Generator, what: str = "groups") -> GroupGaps:
    sizes = C.sum(axis=(1, 2))
    keep = sizes >= min_group_size
    rates = _rates(C, score, c)
    overall = _rates(C.sum(axis=0)[None], score, c)[0]
    kept_n = int(keep.sum())
    m = family_size if family_size is not None else max(kept_n * (kept_n - 1) // 2, 1)
    boot_C = _replicates(C, _replicate_count(n_bootstrap, confidence, m), rng)
    boot_rates = _rates(boot_C, score, c)
    boot_overall = _rates(boot_C.sum(axis=1)[:, None], score, c)[:, 0]
    kept = [g for g, k in zip(groups, keep) if k]
    max_gap, rms = _gap_statistics(rates[keep], np.asarray(overall))
    boot_max, boot_rms = _gap_statistics(boot_rates[:, keep], boot_overall)
    pair_conf = 1.0 - (1.0 - confidence) / m
    small = [g for g, k in zip(groups, keep) if not k]
    _warn_small(small, [int(s) for s, k in zip(sizes, keep) if not k], min_group_size, what)
    table = pd.DataFrame({"n": sizes.astype(np.int64), "rate": rates, "included": keep}, index=pd.Index(list(groups), name="group", tupleize_cols=False))
    return GroupGaps(
        score=score, label=label, table=table, overall=float(overall),
        max_gap=_interval(float(max_gap), boot_max, confidence), rms_gap=_interval(float(rms), boot_rms, confidence),
        pairwise=_pairwise(kept, rates[keep], boot_rates[:, keep], pair_conf),
        confidence=float(confidence), pairwise_confidence=float(pair_conf), small_groups=tuple(small),
    )


def group_gaps(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    score: str = "tpr",
    pos_label: Any = None,
    n_bootstrap: int | None = None,
    confidence: float = 0.95,
    family_size: int | None = None,
    min_group_size: int = 1,
    random_state: int | np.random.Generator | None = 0,
    attribute: str | None = None,
) -> GroupGaps:
    r"""The k-group gap family of one rate: max gap, RMS gap to the overall rate, pairwise gaps.

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,)
    groups : array-like of shape (n,)
        Any group labels (k >= 2), e.g. race.
    score : str
        A rate of ``PREDICTION_SCORES`` ("tpr", "fpr", "selection_rate", "accuracy", ...).
    pos_label : object, optional
        The class the rate is of (default: the last class in sorted order, 1 for 0/1 labels).
    n_bootstrap : int, optional
        Stratified bootstrap replicates. The simultaneous pairwise intervals reach into tails of
        :math:`(1 - \text{confidence}) / 2m`; by default enough replicates for about 20 beyond each
        end: :math:`\max(2000, \lceil 20 \cdot 2m / (1 - \text{confidence}) \rceil)` (4,800 for 6 pairs).
    confidence : float
        Of the max-gap and RMS intervals, and family-wise of the pairwise ones.
    family_size : int, optional
        Number of comparisons the pairwise intervals are simultaneous over (default: the pairs of
        this table; :func:`intersectional_gaps` passes all the comparisons of its report).
    min_group_size : int
        Groups with fewer examples are reported and left out of the gaps.
    random_state : int, Generator or None
    attribute : str, optional
        The attribute the groups are of ("race"), kept with the result to label its tables.

    Returns
    -------
    GroupGaps
    """
    validate_parameters({"score": score, "n_bootstrap": n_bootstrap, "confidence": confidence,
                         "family_size": family_size, "min_group_size": min_group_size, "random_state": random_state},
                        group_gaps._parameter_constraints)
    enc = encode_inputs(y_true, y_pred, groups)
    c = _class_code(enc.classes, pos_label)
    C = confusion_tensor(enc.y_true, enc.y_pred, enc.group, enc.n_groups, enc.n_classes)
    gaps = _gaps_from_counts(C, enc.groups.tolist(), enc.classes[c], c, score=score, n_bootstrap=n_bootstrap,
                             confidence=confidence, family_size=family_size, min_group_size=min_group_size,
                             rng=np.random.default_rng(random_state))
    return dataclasses.replace(gaps, attribute=attribute)


@dataclass(frozen=True)
class IntersectionalGaps:
    """Gaps of two attributes alone and of their intersection cells, intervals simultaneous over all.

    Attributes
    ----------
    names : (str, str)
    marginal : dict name -> GroupGaps
    intersection : GroupGaps
        Over the cells ``(a, b)``; cells below ``min_cell_size`` are in ``small_cells``.
    small_cells : DataFrame
        The cells left out (``n`` per cell), empty when none.
    """

    names: tuple[str, str]
    marginal: Mapping[str, GroupGaps]
    intersection: GroupGaps
    small_cells: pd.DataFrame

    def detected(self) -> dict[str, bool]:
        """Per table (each attribute and ``"intersection"``): whether some pairwise interval excludes 0."""
        out = {name: gaps.detected for name, gaps in self.marginal.items()}
        out["intersection"] = self.intersection.detected
        return out

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready types (what results.json holds)."""
        return {"names": list(self.names), "marginal": {k: v.to_dict() for k, v in self.marginal.items()},
                "intersection": self.intersection.to_dict(),
                "small_cells": [{"cell": _plain(i), "n": int(n)} for i, n in self.small_cells["n"].items()]}


def intersectional_gaps(
    y_true: Any,
    y_pred: Any,
    groups_a: Any,
    groups_b: Any,
    *,
    names: tuple[str, str] = ("a", "b"),
    score: str = "tpr",
    pos_label: Any = None,
    min_cell_size: int = 30,
    n_bootstrap: int | None = None,
    confidence: float = 0.95,
    random_state: int | np.random.Generator | None = 0,
) -> IntersectionalGaps:
    r"""Gaps of attribute A, of attribute B and of the A x B cells (e.g. gender x race).

    The pairwise intervals of the three tables are simultaneous over all their comparisons
    (Bonferroni over :math:`\binom{k_A}{2} + \binom{k_B}{2} + \binom{k_{AB}}{2}`), so the report
    as a whole claims a gap wrongly with probability at most 1 - ``confidence``. Intersection
    cells with fewer than ``min_cell_size`` examples (and empty combinations) are listed in
    ``small_cells`` and left out of the intersection's gaps.
    """
    validate_parameters({"score": score, "n_bootstrap": n_bootstrap, "confidence": confidence,
                         "min_cell_size": min_cell_size, "random_state": random_state},
                        intersectional_gaps._parameter_constraints)
    enc_a = encode_inputs(y_true, y_pred, groups_a)
    enc_b = encode_inputs(y_true, y_pred, groups_b)
    c = _class_code(enc_a.classes, pos_label)
    ka, kb, K = enc_a.n_groups, enc_b.n_groups, enc_a.n_classes
    cell = enc_a.group * kb + enc_b.group
    C_cells = confusion_tensor(enc_a.y_true, enc_a.y_pred, cell, ka * kb, K)
    cells = list(itertools.product(enc_a.groups.tolist(), enc_b.groups.tolist()))
    sizes = C_cells.sum(axis=(1, 2))
    m = ka * (ka - 1) // 2 + kb * (kb - 1) // 2
    n_kept = int((sizes >= min_cell_size).sum())
    m += max(n_kept * (n_kept - 1) // 2, 1)
    rng = np.random.default_rng(random_state)
    common = dict(score=score, n_bootstrap=n_bootstrap, confidence=confidence, family_size=m, rng=rng)
    label = enc_a.classes[c]
    marginal = {
        names[0]: _gaps_from_counts(C_cells.reshape(ka, kb, K, K).sum(axis=1), enc_a.groups.tolist(), label, c,
                                    min_group_size=1, **common),
        names[1]: _gaps_from_counts(C_cells.reshape(ka, kb, K, K).sum(axis=0), enc_b.groups.tolist(), label, c,
                                    min_group_size=1, **common),
    }
    marginal = {k: dataclasses.replace(v, attribute=k) for k, v in marginal.items()}
    inter = dataclasses.replace(
        _gaps_from_counts(C_cells, cells, label, c, min_group_size=min_cell_size, what="intersection cells", **common),
        attribute=f"{names[0]} x {names[1]}")
    small = pd.DataFrame({"n": sizes[sizes < min_cell_size].astype(np.int64)},
                         index=pd.Index([cl for cl, s in zip(cells, sizes) if s < min_cell_size], name="cell", tupleize_cols=False))
    return IntersectionalGaps(tuple(names), marginal, inter, small)


#: The options of the gap functions and their valid values, declared once.
_GAP_CONSTRAINTS = {
    "score": [Options(*PREDICTION_SCORES)],
    "n_bootstrap": [Interval(int, 1, None), None],
    "confidence": [Interval(float, 0, 1, closed="neither")],
    "random_state": ["random_state", np.random.Generator],
}
group_gaps._parameter_constraints = {  # type: ignore[attr-defined]
    **_GAP_CONSTRAINTS, "family_size": [Interval(int, 1, None), None], "min_group_size": [Interval(int, 1, None)],
}
intersectional_gaps._parameter_constraints = {  # type: ignore[attr-defined]
    **_GAP_CONSTRAINTS, "min_cell_size": [Interval(int, 1, None)],
}


class GroupMetricFrame:
    """Rates by the cells of one or more sensitive features, with fairlearn's summaries.

    Built from one confusion tensor over the cells; ``by_group`` is indexed by every combination
    of the features' values (a MultiIndex for several features), ``overall`` over all examples.
    ``difference`` and ``ratio`` follow fairlearn's ``MetricFrame`` (``between_groups``:
    max - min and min / max; ``to_overall``: max |r_g - r_all| and min over groups of
    min(r_g / r_all, r_all / r_g)), skipping undefined (NaN) cells.
    """

    def __init__(self, by_group: pd.DataFrame, overall: pd.Series) -> None:
        self.by_group = by_group
        self.overall = overall

    def difference(self, method: str = "between_groups") -> pd.Series:
        """Per metric: the largest gap between cells, or to the overall value."""
        if method == "between_groups":
            return self.by_group.max() - self.by_group.min()
        if method == "to_overall":
            return (self.by_group - self.overall).abs().max()
        raise InvalidParameterError("method", method, ("between_groups", "to_overall"))

    def ratio(self, method: str = "between_groups") -> pd.Series:
        """Per metric: the smallest ratio between cells, or to the overall value."""
        with np.errstate(divide="ignore", invalid="ignore"):
            if method == "between_groups":
                return self.by_group.min() / self.by_group.max()
            if method == "to_overall":
                to = self.by_group / self.overall
                return np.minimum(to, 1.0 / to).min()
        raise InvalidParameterError("method", method, ("between_groups", "to_overall"))


def group_metric_frame(
    y_true: Any,
    y_pred: Any,
    sensitive_features: Mapping[str, Any],
    *,
    metrics: Sequence[str] = ("selection_rate", "tpr", "fpr", "accuracy"),
    pos_label: Any = None,
) -> GroupMetricFrame:
    """Rates of ``pos_label`` by every combination of the sensitive features (gender x race, ...).

    Parameters
    ----------
    sensitive_features : mapping name -> array-like of shape (n,)
        One or more features; their cells are the combinations of values.
    metrics : sequence of str
        Rates of ``PREDICTION_SCORES``.
    pos_label : object, optional
        The class the rates are of (default: the last class in sorted order).
    """
    if not isinstance(sensitive_features, Mapping) or not sensitive_features:
        raise InvalidParameterError("sensitive_features", type(sensitive_features).__name__,
                                    "a mapping name -> values with at least one feature")
    unknown = [m for m in metrics if m not in PREDICTION_SCORES]
    if unknown:
        raise InvalidParameterError("metrics", unknown, tuple(PREDICTION_SCORES))
    encs = [encode_inputs(y_true, y_pred, v, min_groups=1) for v in sensitive_features.values()]
    cell = np.zeros(encs[0].n, dtype=np.int64)
    for enc in encs:
        cell = cell * enc.n_groups + enc.group
    shape = [enc.n_groups for enc in encs]
    C = confusion_tensor(encs[0].y_true, encs[0].y_pred, cell, int(np.prod(shape)), encs[0].n_classes)
    c = _class_code(encs[0].classes, pos_label)
    names = list(sensitive_features)
    index = (pd.MultiIndex.from_product([e.groups.tolist() for e in encs], names=names) if len(encs) > 1
             else pd.Index(encs[0].groups.tolist(), name=names[0]))
    with np.errstate(invalid="ignore", divide="ignore"):
        by_group = pd.DataFrame({m: _rates(C, m, c) for m in metrics}, index=index)
        overall = pd.Series({m: float(_rates(C.sum(axis=0)[None], m, c)[0]) for m in metrics})
    return GroupMetricFrame(by_group, overall)
