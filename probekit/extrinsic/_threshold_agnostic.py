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
    if not 0.0 <= overall_weight <= 1.0:
        raise InvalidParameterError("overall_weight", overall_weight, "a weight in [0, 1]")
    means = [generalized_mean(table[c].to_numpy(), power) for c in ("subgroup_auc", "bpsn_auc", "bnsp_auc")]
    return float(overall_weight * overall + (1.0 - overall_weight) * np.mean(means))


def _tie_half_counts(
    run: np.ndarray, weights: np.ndarray, n_runs: int, run_group: np.ndarray | None = None, n_groups: int = 1
) -> np.ndarray:
    """Per run: members of the set strictly before the run plus half of those in it (``H``).

    ``weights`` is the 0/1 membership of each sorted position. With ``run_group`` (the group of each
    run, runs sorted by group then value) the count restarts at every group.
    """
    per_run = np.bincount(run, weights=weights, minlength=n_runs)
    before = np.cumsum(per_run) - per_run
    if run_group is not None:
        first = np.searchsorted(run_group, np.arange(n_groups))
        start = np.r_[before, before[-1] + per_run[-1] if n_runs else 0.0][first]
        before = before - start[run_group]
    return before + 0.5 * per_run


def probability_panel(prob_c: np.ndarray, is_c: np.ndarray, group: np.ndarray, n_groups: int) -> dict[str, np.ndarray]:
    """Every probability-based group metric of one class from a single sort of its scores.

    Returns per group ``w1_all`` / ``w1_tc`` (Wasserstein-1 between the group's scores and all scores,
    resp. on gold-c examples only; their sum / G is the AvgGF BCM), ``positive_aeg`` /
    ``negative_aeg`` (group vs rest), ``subgroup_auc``, ``bpsn_auc``, ``bnsp_auc``, and ``roc_auc``
    of the class over all examples.

    With ``H_X(v) = #{x in X : x < v} + #{x in X : x = v} / 2``, the statistic ``P(Y > X) + P(Y = X)/2``
    is ``sum_{y in Y} H_X(y) / (|X||Y|)``. ``H`` against all positives/negatives comes from the global
    sort; ``H`` against the group's own positives/negatives from a stable regrouping of the sorted
    order (a linear-time radix sort on the group codes); backgrounds are "all minus group". Every
    AUC/AEG therefore costs O(n) after the one sort.
    """
    G = n_groups
    order = np.argsort(prob_c, kind="quicksort")
    sv, sg = prob_c[order], group[order]
    sy = is_c[order].astype(float)
    n = sv.size
    new = np.ones(n, dtype=bool)
    new[1:] = sv[1:] != sv[:-1]
    run = np.cumsum(new) - 1
    R = int(run[-1]) + 1
    h_pos_all = _tie_half_counts(run, sy, R)[run]  # per sorted position
    h_neg_all = _tie_half_counts(run, 1.0 - sy, R)[run]

    gorder = _group_layout(sg, G)  # group-contiguous, value order kept
    gg, gv, gy = sg[gorder], sv[gorder], sy[gorder]
    gnew = np.ones(n, dtype=bool)
    gnew[1:] = (gv[1:] != gv[:-1]) | (gg[1:] != gg[:-1])
    grun = np.cumsum(gnew) - 1
    GR = int(grun[-1]) + 1
    run_group = gg[gnew]
    h_pos_own = _tie_half_counts(grun, gy, GR, run_group, G)[grun]
    h_neg_own = _tie_half_counts(grun, 1.0 - gy, GR, run_group, G)[grun]
    h_pos_all, h_neg_all = h_pos_all[gorder], h_neg_all[gorder]

    def per_group(weights: np.ndarray) -> np.ndarray:
        return np.bincount(gg, weights=weights, minlength=G)

    gneg = 1.0 - gy
    n_pos, n_neg = per_group(gy), per_group(gneg)
    N_pos, N_neg = float(n_pos.sum()), float(n_neg.sum())
    own_neg = per_group(gy * h_neg_own)  # positives of g over negatives of g
    own_pos = per_group(gy * h_pos_own)
    own_nn = per_group(gneg * h_neg_own)
    pos_allneg = per_group(gy * h_neg_all)
    pos_allpos = per_group(gy * h_pos_all)
    neg_allneg = per_group(gneg * h_neg_all)
    neg_allpos = per_group(gneg * h_pos_all)

    def ratio(num: np.ndarray, den: np.ndarray) -> np.ndarray:
        num = np.asarray(num, dtype=float)
        out = np.full(num.shape, np.nan)
        np.divide(num, den, out=out, where=np.asarray(den) > 0)
        return out

    bg_pos, bg_neg = N_pos - n_pos, N_neg - n_neg
    out = {
        "subgroup_auc": ratio(own_neg, n_pos * n_neg),
        # background positives over the group's negatives: sum_{x in neg_g} (N_pos - H_pos_all(x)) minus own
        "bpsn_auc": ratio(n_neg * N_pos - neg_allpos - own_neg, bg_pos * n_neg),
        "bnsp_auc": ratio(pos_allneg - own_neg, n_pos * bg_neg),
        "positive_aeg": ratio(pos_allpos - own_pos, n_pos * bg_pos) - 0.5,
        "negative_aeg": ratio(neg_allneg - own_nn, n_neg * bg_neg) - 0.5,
        "roc_auc": ratio(pos_allneg.sum(), N_pos * N_neg),
    }

    # Wasserstein-1 of each group to all examples: integral of |F_g - F| over the sorted values
    out["w1_all"] = _w1_groups_vs_all(sv, sg, G, (new, run, gorder, gg))
    # ... and on gold-c examples only (the TC variant): the same on the positive subsequence
    pos_mask = sy > 0
    out["w1_tc"] = np.full(G, np.nan)
    if pos_mask.any():
        out["w1_tc"] = _w1_groups_vs_all(sv[pos_mask], sg[pos_mask], G)
    return out


def _group_layout(sg: np.ndarray, G: int) -> np.ndarray:
    """Stable order that makes groups contiguous while keeping the (value) order within each group."""
    codes = sg.astype(np.int16) if G < 2**15 else sg
    return np.argsort(codes, kind="stable")  # a linear-time radix sort for 16-bit codes


def _w1_groups_vs_all(sv: np.ndarray, sg: np.ndarray, G: int, layout: tuple | None = None) -> np.ndarray:
    """Wasserstein-1 between each group's values and all values, from sorted values ``sv``.

    ``W1 = integral |F_g(t) - F(t)| dt``. On an interval where the group's CDF is constant at level c,
    the (increasing) global CDF crosses c at most once, at ``k* = searchsorted(F, c)``; with the prefix
    integrals ``A_k = integral_{u_0}^{u_k} F`` each interval is then closed-form. One vectorized pass
    for all groups: O(n log n) in all instead of O(n G).
    """
    n = sv.size
    if layout is None:
        new = np.ones(n, dtype=bool)
        new[1:] = sv[1:] != sv[:-1]
        run = np.cumsum(new) - 1
        gorder = _group_layout(sg, G)
        gg = sg[gorder]
    else:
        new, run, gorder, gg = layout
    R = int(run[-1]) + 1
    u = sv[new]
    last = np.r_[np.flatnonzero(new[1:]), n - 1]
    F = (last + 1.0) / n  # F at u_k
    gap = np.diff(u)
    U = np.r_[0.0, np.cumsum(gap)]  # u_k - u_0
    A = np.r_[0.0, np.cumsum(F[:-1] * gap)]  # integral of F from u_0 to u_k
    gr = run[gorder]
    # within-group runs (same group and value): their global run, group and cumulative level
    gnew = np.ones(n, dtype=bool)
    gnew[1:] = (gr[1:] != gr[:-1]) | (gg[1:] != gg[:-1])
    glast = np.r_[np.flatnonzero(gnew[1:]), n - 1]
    r_j, g_j = gr[glast], gg[glast]
    n_g = np.bincount(sg, minlength=G).astype(float)
    first_of_group = np.searchsorted(gg, np.arange(G))  # first position of each group in the layout
    c_j = (glast + 1.0 - first_of_group[g_j]) / n_g[g_j]
    is_last = np.r_[g_j[1:] != g_j[:-1], True]
    r_next = np.r_[r_j[1:], 0]
    r_next = np.where(is_last, R - 1, r_next)
    k = np.clip(np.searchsorted(F, c_j, side="left"), r_j, r_next)
    inside = c_j * (U[k] - U[r_j]) - (A[k] - A[r_j]) + (A[r_next] - A[k]) - c_j * (U[r_next] - U[k])
    # the last run of each group: F_g = 1 up to the end (the formula above with c = 1 reduces to this)
    after = (U[R - 1] - U[r_j]) - (A[R - 1] - A[r_j])
    per_run = np.where(is_last, after, inside)
    is_first = np.r_[True, g_j[1:] != g_j[:-1]]
    before = np.where(is_first, A[r_j], 0.0)  # F_g = 0 before the group's smallest value
    out = np.bincount(g_j, weights=per_run + before, minlength=G)
    out[n_g == 0] = np.nan
    return out
