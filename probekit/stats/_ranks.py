r"""Rank correlation: Spearman's :math:`\rho` and Kendall's :math:`\tau_b` with p-values.

- :func:`spearman_rho`, :func:`kendall_tau`: the coefficients of two 1-D arrays, vectorized and
  cheap enough for the thousands of calls of a bootstrap (equal to :func:`scipy.stats.spearmanr`
  and :func:`scipy.stats.kendalltau`, ties included).
- :func:`rank_correlation_test`: both coefficients with p-values. Kendall's from scipy (exact for
  small samples without ties); Spearman's exact by enumerating every pairing
  (:func:`scipy.stats.permutation_test`) up to :data:`EXACT_SPEARMAN_MAX` points, else scipy's t
  approximation.
- :func:`min_rank_p`: the smallest two-sided p-value a rank correlation of n untied points can
  reach, :math:`2/n!`.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
from scipy import stats as _scipy_stats

__all__ = ["EXACT_SPEARMAN_MAX", "average_ranks", "pearson", "spearman_rho", "kendall_tau", "rank_correlation_test", "min_rank_p"]

#: Up to this many points the Spearman p-value enumerates all n! pairings.
EXACT_SPEARMAN_MAX = 8


def pearson(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
    """Pearson correlation along ``axis``, vectorized (NaN for a constant input)."""
    xc = x - x.mean(axis=axis, keepdims=True)
    yc = y - y.mean(axis=axis, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (xc * yc).sum(axis=axis) / np.sqrt((xc**2).sum(axis=axis) * (yc**2).sum(axis=axis))


def average_ranks(a: np.ndarray) -> np.ndarray:
    """Ranks 1..n of a 1-D array, ties given their average rank (scipy's ``rankdata`` default)."""
    sorter = np.argsort(a, kind="mergesort")
    inverse = np.empty(a.size, dtype=np.intp)
    inverse[sorter] = np.arange(a.size)
    ordered = a[sorter]
    first = np.r_[True, ordered[1:] != ordered[:-1]]
    dense = first.cumsum()[inverse]
    bounds = np.r_[np.flatnonzero(first), a.size]
    return 0.5 * (bounds[dense] + bounds[dense - 1] + 1)


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    r"""Spearman's :math:`\rho` of 1-D arrays: the Pearson correlation of average ranks.

    The definition :func:`scipy.stats.spearmanr` uses (Spearman 1904), at a fraction of its per-call
    cost; NaN when x or y is constant.
    """
    return float(pearson(average_ranks(x), average_ranks(y)))


def kendall_tau(x: np.ndarray, y: np.ndarray) -> float:
    r"""Kendall's :math:`\tau_b = (n_c - n_d) / \sqrt{(n_0 - n_1)(n_0 - n_2)}` of 1-D arrays.

    :math:`n_0 = n(n-1)/2` and :math:`n_1, n_2` the pairs tied in x, in y (Kendall 1945; the
    definition of :func:`scipy.stats.kendalltau`, variant "b"), by pairwise signs; NaN when x or y
    is constant.
    """
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    n0 = x.size * (x.size - 1) / 2.0
    n1 = (np.count_nonzero(dx == 0) - x.size) / 2.0
    n2 = (np.count_nonzero(dy == 0) - y.size) / 2.0
    denominator = math.sqrt((n0 - n1) * (n0 - n2))
    return float((dx * dy).sum() / 2.0 / denominator) if denominator > 0 else math.nan


def min_rank_p(n: int) -> float:
    """Smallest two-sided p-value of a rank correlation of ``n`` untied points: ``2 / n!``."""
    return min(1.0, 2.0 / math.factorial(n)) if n >= 1 else 1.0


def rank_correlation_test(x: Any, y: Any, *, exact_max: int = EXACT_SPEARMAN_MAX) -> dict[str, Any]:
    """Spearman's rho and Kendall's tau-b of paired values, with two-sided p-values.

    Parameters
    ----------
    x, y : array-like of shape (n,)
        Finite values, neither constant (filter missing values first).
    exact_max : int
        Up to this many points Spearman's p-value is exact (every pairing enumerated).

    Returns
    -------
    dict
        ``spearman``, ``spearman_p``, ``spearman_p_method`` ("exact" or "t approximation"),
        ``kendall``, ``kendall_p``.
    """
    xa, ya = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        spearman = _scipy_stats.spearmanr(xa, ya)
        kendall = _scipy_stats.kendalltau(xa, ya)
    out = {"spearman": float(spearman.statistic), "kendall": float(kendall.statistic), "kendall_p": float(kendall.pvalue)}
    if xa.size <= exact_max:
        # Re-pairing the points permutes the ranks of x, so the null distribution of rho is that
        # of the Pearson correlation of the fixed rank vectors over all n! pairings
        # (only one sample is passed: permuting both would enumerate the same pairings n! times).
        ranks_y = average_ranks(ya)
        exact = _scipy_stats.permutation_test((average_ranks(xa),), lambda rx, axis=-1: pearson(rx, ranks_y, axis),
                                              permutation_type="pairings", vectorized=True, n_resamples=np.inf,
                                              alternative="two-sided")
        out["spearman_p"], out["spearman_p_method"] = float(exact.pvalue), "exact"
    else:
        out["spearman_p"], out["spearman_p_method"] = float(spearman.pvalue), "t approximation"
    return out
