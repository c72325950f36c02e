"""Threshold-agnostic bias metrics (Borkan et al. 2019) and the Jigsaw competition score.

With D^-, D^+ the background negatives/positives (background = examples not in the subgroup) and
D_g^-, D_g^+ the subgroup's:

* Subgroup AUC = AUC(D_g^- + D_g^+); BPSN AUC = AUC(D^+ + D_g^-); BNSP AUC = AUC(D^- + D_g^+);
* Negative AEG = 1/2 - MWU(D_g^-, D^-) / (|D_g^-| |D^-|), Positive AEG the same on positives, where
  MWU(X, Y) counts pairs with score(x) < score(y) (ties 1/2). AEG lies in [-1/2, 1/2], 0 is ideal and
  it is positive when the subgroup's scores are shifted up.

Every statistic is computed from one sort of the scores (ranks with ties), whatever the number of
subgroups: no quadratic pair loop.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.extrinsic._aggregation import generalized_mean
from probekit.extrinsic._inputs import as_1d
from probekit.extrinsic._panel import probability_panel  # noqa: F401  (the report's per-class panel)
from probekit.extrinsic._ranks import Runs, make_runs
from probekit.extrinsic._warnings import warn_undefined

__all__ = ["BORKAN_COLUMNS", "borkan_metrics", "borkan_table", "jigsaw_score"]

BORKAN_COLUMNS = ("subgroup_auc", "bpsn_auc", "bnsp_auc", "negative_aeg", "positive_aeg")


def _binary_truth(y_true: Any, n: int | None = None) -> np.ndarray:
    y = as_1d(y_true, "y_true")
    if n is not None and y.size != n:
        raise InvalidParameterError("y_true", f"length {y.size}", f"length {n} (the length of y_score)")
    if y.dtype.kind == "b":
        return y
    if y.dtype.kind == "f" and np.isnan(y).any():
        raise InvalidParameterError("y_true", "missing values (NaN)", "binary labels 0/1")
    values = pd.unique(y)
    if not set(values.tolist()) <= {0, 1}:
        raise InvalidParameterError(
            "y_true", sorted(values.tolist(), key=str)[:10], "binary labels 0/1 or booleans",
            detail="for multiclass tasks pass y_true == c and the probability of class c",
        )
    return y.astype(bool)


def _scores(y_score: Any) -> np.ndarray:
    s = as_1d(y_score, "y_score")
    try:
        s = s.astype(float)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError("y_score", "non-numeric values", "numeric scores") from exc
    if not np.isfinite(s).all():
        raise InvalidParameterError("y_score", "NaN or infinite values", "finite scores")
    return s


def _auc(runs: Runs, cnt_y: np.ndarray, cnt_x: np.ndarray) -> float:
    """``P(Y > X) + P(Y = X) / 2`` from per-run counts (single block)."""
    ny, nx = cnt_y.sum(), cnt_x.sum()
    if ny == 0 or nx == 0:
        return float("nan")
    less = np.cumsum(cnt_x) - 0.5 * cnt_x
    return float(np.dot(cnt_y, less) / (ny * nx))


@dataclass(frozen=True)
class _Prepared:
    runs: Runs
    pos: np.ndarray
    pos_counts: np.ndarray
    neg_counts: np.ndarray


def _prepare(y_true: Any, y_score: Any) -> _Prepared:
    s = _scores(y_score)
    y = _binary_truth(y_true, s.size)
    runs = make_runs(s)
    return _Prepared(runs, y, runs.count_mask(y), runs.count_mask(~y))


def _row(prep: _Prepared, mask: np.ndarray) -> dict[str, float]:
    runs = prep.runs
    sp = runs.count_mask(mask & prep.pos)
    sn = runs.count_mask(mask & ~prep.pos)
    bp = prep.pos_counts - sp
    bn = prep.neg_counts - sn
    return {
        "subgroup_auc": _auc(runs, sp, sn),
        "bpsn_auc": _auc(runs, bp, sn),
        "bnsp_auc": _auc(runs, sp, bn),
        "negative_aeg": _auc(runs, sn, bn) - 0.5,
        "positive_aeg": _auc(runs, sp, bp) - 0.5,
        "n_subgroup_pos": float(sp.sum()),
        "n_subgroup_neg": float(sn.sum()),
        "n_background_pos": float(bp.sum()),
        "n_background_neg": float(bn.sum()),
    }


def _mask(in_subgroup: Any, n: int, name: str) -> np.ndarray:
    m = as_1d(in_subgroup, name)
    if m.size != n:
        raise InvalidParameterError(name, f"length {m.size}", f"length {n} (the length of y_score)")
    if m.dtype.kind != "b":
        values = set(pd.unique(m).tolist())
        if not values <= {0, 1}:
            raise InvalidParameterError(name, sorted(values, key=str)[:10], "a boolean mask (or 0/1)")
        m = m.astype(bool)
    return m


def _warn_rows(table: pd.DataFrame) -> None:
    undefined = table[list(BORKAN_COLUMNS)].isna().to_numpy()
    if undefined.any():
        warn_undefined(
            "Borkan metric", undefined, [str(i) for i in table.index], list(BORKAN_COLUMNS),
            "the subgroup or the background has no positives or no negatives", stacklevel=4,
        )


def borkan_metrics(y_true: Any, y_score: Any, in_subgroup: Any) -> dict[str, float]:
    """Threshold-agnostic bias metrics of one subgroup (Borkan et al. 2019).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Binary gold labels (0/1 or booleans).
    y_score : array-like of shape (n,)
        Scores (e.g. the probability of the positive class).
    in_subgroup : array-like of bool, shape (n,)
        Membership of the subgroup; the background is every other example.

    Returns
    -------
    dict
        ``subgroup_auc``, ``bpsn_auc``, ``bnsp_auc``, ``negative_aeg``, ``positive_aeg`` (AEG =
        1/2 - MWU(D_g, D)/(|D_g||D|), positive when the subgroup is shifted up), and the four set
        sizes. Undefined values are NaN with an :class:`UndefinedMetricWarning`.
    """
    prep = _prepare(y_true, y_score)
    row = _row(prep, _mask(in_subgroup, prep.pos.size, "in_subgroup"))
    _warn_rows(pd.DataFrame([row], index=["subgroup"]))
    return row


def _subgroup_masks(subgroups: Any, n: int) -> dict[str, np.ndarray]:
    if isinstance(subgroups, pd.DataFrame):
        items = {str(c): subgroups[c].to_numpy() for c in subgroups.columns}
    elif isinstance(subgroups, Mapping):
        items = {str(k): v for k, v in subgroups.items()}
    else:
        labels = as_1d(subgroups, "subgroups")
        if labels.size != n:
            raise InvalidParameterError("subgroups", f"length {labels.size}", f"length {n}")
        uniq = pd.unique(labels)
        try:
            uniq = sorted(uniq.tolist())
        except TypeError:
            uniq = uniq.tolist()
        items = {str(u): labels == u for u in uniq}
    if not items:
        raise InvalidParameterError("subgroups", "no subgroups", "at least one subgroup")
    return {k: _mask(v, n, f"subgroups[{k!r}]") for k, v in items.items()}


def borkan_table(y_true: Any, y_score: Any, subgroups: Any) -> pd.DataFrame:
    """Borkan metrics for many, possibly overlapping, subgroups (one sort of the scores for all).

    Parameters
    ----------
    subgroups : DataFrame of bool columns, mapping name -> mask, or array of group labels
        Overlapping identities (a DataFrame or mapping of masks) or a partition (labels).

    Returns
    -------
    DataFrame
        One row per subgroup with the columns of :func:`borkan_metrics`.
    """
    prep = _prepare(y_true, y_score)
    masks = _subgroup_masks(subgroups, prep.pos.size)
    table = pd.DataFrame.from_dict({k: _row(prep, m) for k, m in masks.items()}, orient="index")
    table.index.name = "subgroup"
    _warn_rows(table)
    return table


def jigsaw_score(
    y_true: Any,
    y_score: Any,
    subgroups: Any,
    *,
    power: float = -5.0,
    overall_weight: float = 0.25,
) -> float:
    r"""The Jigsaw Unintended Bias competition score.

    .. math::

        0.25\,\mathrm{AUC}_{overall} + 0.75 \cdot \tfrac{1}{3}\left(M_p(\mathrm{SubAUC}) +
        M_p(\mathrm{BPSN}) + M_p(\mathrm{BNSP})\right),\qquad p = -5

    where :math:`M_p` is the power mean over identity subgroups (Borkan et al. 2019). Subgroups with
    an undefined AUC are left out of the power mean.
    """
    prep = _prepare(y_true, y_score)
    masks = _subgroup_masks(subgroups, prep.pos.size)
    table = pd.DataFrame.from_dict({k: _row(prep, m) for k, m in masks.items()}, orient="index")
    _warn_rows(table)
    overall = _auc(prep.runs, prep.pos_counts, prep.neg_counts)
    return combine_jigsaw(overall, *(table[c].to_numpy() for c in _JIGSAW_AUCS), power=power, overall_weight=overall_weight)


_JIGSAW_AUCS = ("subgroup_auc", "bpsn_auc", "bnsp_auc")


def combine_jigsaw(
    overall_auc: float,
    subgroup_auc: np.ndarray,
    bpsn_auc: np.ndarray,
    bnsp_auc: np.ndarray,
    *,
    power: float = -5.0,
    overall_weight: float = 0.25,
) -> float:
    """The Jigsaw formula of :func:`jigsaw_score` from AUCs already computed (one value per subgroup)."""
    if not 0.0 <= overall_weight <= 1.0:
        raise InvalidParameterError("overall_weight", overall_weight, "a weight in [0, 1]")
    means = [generalized_mean(values, power) for values in (subgroup_auc, bpsn_auc, bnsp_auc)]
    return float(overall_weight * float(overall_auc) + (1.0 - overall_weight) * float(np.mean(means)))
