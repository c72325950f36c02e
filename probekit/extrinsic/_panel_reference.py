"""The run-based reference implementation of the per-class probability panel of
:mod:`probekit.extrinsic._panel` (one argsort, then a stable regrouping by group).

:func:`sorted_probability_panel` is what the report used before the bit-key path of
:func:`probekit.extrinsic.probability_panel`; that path gives bit-for-bit the same numbers and falls
back to this one for scores it cannot key (negative values, -0.0, values >= 2). With
``H_X(v) = #{x in X : x < v} + #{x in X : x = v} / 2`` every AUC-type statistic is
``sum_{y in Y} H_X(y) / (|X||Y|)`` (Borkan et al. 2019), and the Wasserstein-1 distance of a group
to all scores is ``integral |F_g - F|`` (Czarnowska et al. 2021), closed-form per interval.
"""

from __future__ import annotations

import numpy as np

__all__ = ["sorted_probability_panel"]


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


def sorted_probability_panel(
    prob_c: np.ndarray, is_c: np.ndarray, group: np.ndarray, n_groups: int
) -> dict[str, np.ndarray]:
    """Run-based reference of :func:`probability_panel` (argsort, then a stable regrouping).

    Used for scores the bit-key path cannot take (negative values, -0.0, values >= 2).

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
