"""Rank machinery shared by the set comparisons (Wasserstein-1, AUC / Mann-Whitney, AEG).

Values are sorted once (within blocks: counterfactual source examples, or one block for group
metrics) and collapsed into *runs* of tied values. Counting the members of any set per run turns
every pairwise statistic into cumulative sums, so no quadratic pair loop is ever needed:

* the empirical CDF of set A after run r is ``cum_A(r) / |A|``;
* Wasserstein-1 between A and B is ``sum_r |F_A(r) - F_B(r)| * (u_{r+1} - u_r)`` (the integral of the
  absolute CDF difference, as ``scipy.stats.wasserstein_distance``);
* ``P(Y > X) + P(Y = X) / 2`` is ``sum_r cnt_Y(r) * (cum_X(r) - cnt_X(r) / 2) / (|X| |Y|)``, the
  Mann-Whitney U of Y over X divided by ``|X| |Y|``: the AUC when Y are positives and X negatives.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Runs", "make_runs"]


@dataclass
class Runs:
    """Values sorted within blocks and collapsed into runs of ties."""

    run_of: np.ndarray  # (n,) run index of each input value
    values: np.ndarray  # (R,) value of each run
    block: np.ndarray  # (R,) block of each run
    n_blocks: int

    @property
    def n_runs(self) -> int:
        return int(self.values.size)

    def gaps(self) -> np.ndarray:
        """``u_{r+1} - u_r`` when run r+1 is in the same block, else 0."""
        gap = np.zeros(self.n_runs)
        if self.n_runs > 1:
            same = self.block[1:] == self.block[:-1]
            gap[:-1] = np.where(same, self.values[1:] - self.values[:-1], 0.0)
        return gap

    def counts(self, sets: np.ndarray, n_sets: int, mask: np.ndarray | None = None) -> np.ndarray:
        """``(R, n_sets)`` number of members of each (disjoint) set per run."""
        run = self.run_of if mask is None else self.run_of[mask]
        s = sets if mask is None else sets[mask]
        return np.bincount(run * n_sets + s, minlength=self.n_runs * n_sets).reshape(self.n_runs, n_sets).astype(float)

    def count_mask(self, mask: np.ndarray) -> np.ndarray:
        """``(R,)`` number of members of the set ``mask`` (boolean over inputs) per run."""
        return np.bincount(self.run_of[mask], minlength=self.n_runs).astype(float)

    def cumulative(self, cnt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Within-block cumulative counts ``(R, ...)`` and block totals ``(n_blocks, ...)``."""
        cum = np.cumsum(cnt, axis=0)
        if self.n_blocks == 1:
            totals = cum[-1:].copy() if self.n_runs else np.zeros((1,) + cnt.shape[1:])
            return cum, totals
        last = np.flatnonzero(np.r_[self.block[1:] != self.block[:-1], True])  # last run of each present block
        before = np.zeros((last.size,) + cnt.shape[1:])
        before[1:] = cum[last[:-1]]
        first_of = np.searchsorted(last, np.arange(self.n_runs))  # index into `last` of each run's block
        cum = cum - before[first_of]
        totals = np.zeros((self.n_blocks,) + cnt.shape[1:])
        totals[self.block[last]] = cum[last]
        return cum, totals

    def per_block(self, weights: np.ndarray) -> np.ndarray:
        return np.bincount(self.block, weights=weights, minlength=self.n_blocks)


def make_runs(values: np.ndarray, block: np.ndarray | None = None, n_blocks: int = 1) -> Runs:
    """Sort ``values`` (within ``block`` when given) and collapse ties into runs."""
    values = np.asarray(values, dtype=float)
    n = values.size
    if block is None or n_blocks == 1:
        order = np.argsort(values, kind="quicksort")
        sorted_block = np.zeros(n, dtype=np.intp)
    else:
        order = np.lexsort((values, block))
        sorted_block = block[order]
    sv = values[order]
    new = np.ones(n, dtype=bool)
    if n > 1:
        new[1:] = (sv[1:] != sv[:-1]) | (sorted_block[1:] != sorted_block[:-1])
    run_sorted = np.cumsum(new) - 1
    run_of = np.empty(n, dtype=np.intp)
    run_of[order] = run_sorted
    return Runs(run_of=run_of, values=sv[new], block=sorted_block[new], n_blocks=max(int(n_blocks), 1))


def wasserstein_from_cum(
    runs: Runs, gap: np.ndarray, cum_x: np.ndarray, tot_x: np.ndarray, cum_y: np.ndarray, tot_y: np.ndarray
) -> np.ndarray:
    """Wasserstein-1 per block between sets X and Y given their cumulative run counts."""
    with np.errstate(invalid="ignore", divide="ignore"):
        fx = cum_x / tot_x[runs.block]
        fy = cum_y / tot_y[runs.block]
    contrib = np.abs(fx - fy) * gap
    contrib[~np.isfinite(contrib)] = 0.0
    out = runs.per_block(contrib)
    out[(tot_x <= 0) | (tot_y <= 0)] = np.nan
    return out


def auc_from_counts(
    runs: Runs, cnt_x: np.ndarray, cum_x: np.ndarray, tot_x: np.ndarray, cnt_y: np.ndarray, tot_y: np.ndarray
) -> np.ndarray:
    """``P(Y > X) + P(Y = X) / 2`` per block (the AUC of Y over X), NaN when a set is empty."""
    num = runs.per_block(cnt_y * (cum_x - 0.5 * cnt_x))
    den = tot_x * tot_y
    out = np.full(runs.n_blocks, np.nan)
    np.divide(num, den, out=out, where=den > 0)
    return out
