"""Bernstein bounds (Ethayarajh 2020), bootstrap intervals and significance tests."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from probekit.errors import InvalidParameterError
from probekit.extrinsic import (
    bernstein_halfwidth,
    bernstein_parameters,
    bernstein_sample_size,
    bootstrap_ci,
    friedman_test,
    paired_group_test,
    permutation_test_gap,
    wilcoxon_test,
)
from probekit.stats import jackknife_counts, multinomial_bootstrap_counts

PAPER = dict(sigma2=4.0, gamma=0.5, rho=0.95, C=1.0)


def test_bernstein_worked_example_of_the_paper():
    # PAPERS.md §4: more than 11,903 examples to claim a bias of 0.05; WinoBias (3,160) supports ~0.0975
    assert bernstein_sample_size(0.05, **PAPER) == 11903
    assert bernstein_halfwidth(11903, **PAPER) <= 0.05 < bernstein_halfwidth(11902, **PAPER)
    assert bernstein_halfwidth(3160, **PAPER) == pytest.approx(0.0975, abs=5e-4)


def test_bernstein_formula_by_hand():
    L = math.log((1 - 0.9) / 2)
    B = -(2 * 2.0 / (3 * 0.25)) * L
    expected = (B + math.sqrt(B * B - 8 * 500 * 1.5 * L)) / (2 * 500)
    assert bernstein_halfwidth(500, sigma2=1.5, gamma=0.25, rho=0.9, C=2.0) == pytest.approx(expected)


def test_bernstein_parameters_estimated_from_data():
    rng = np.random.default_rng(0)
    groups = np.array(["f"] * 300 + ["m"] * 700)
    costs = (rng.random(1000) < np.where(groups == "f", 0.3, 0.2)).astype(float)
    est = bernstein_parameters(costs, groups)
    gamma_f, gamma_m = 0.3, 0.7
    amortized = np.where(groups == "f", costs / gamma_f, -costs / gamma_m)
    assert est["delta"] == pytest.approx(costs[groups == "f"].mean() - costs[groups == "m"].mean())
    assert est["sigma2"] == pytest.approx(amortized.var(ddof=1))
    assert est["gamma"] == pytest.approx(0.3)
    t = bernstein_halfwidth(costs=costs, groups=groups)
    assert t == pytest.approx(bernstein_halfwidth(1000, sigma2=est["sigma2"], gamma=0.3))
    with pytest.raises(InvalidParameterError, match="sigma2"):
        bernstein_halfwidth(100)
    with pytest.raises(InvalidParameterError, match="rho"):
        bernstein_halfwidth(100, sigma2=1.0, gamma=0.5, rho=1.5)


def test_percentile_bootstrap_is_the_quantile_of_row_resamples():
    rng = np.random.default_rng(1)
    x = rng.exponential(size=200)
    ci = bootstrap_ci(np.mean, x, n_resamples=500, random_state=7)
    replay = np.random.default_rng(7)
    means = [x[replay.integers(0, 200, 200)].mean() for _ in range(500)]
    assert ci.low == pytest.approx(np.quantile(means, 0.025))
    assert ci.high == pytest.approx(np.quantile(means, 0.975))
    assert ci == bootstrap_ci(np.mean, x, n_resamples=500, random_state=7)  # same seed, same interval


def test_bca_agrees_with_scipy():
    rng = np.random.default_rng(2)
    x = rng.exponential(size=150)
    ours = bootstrap_ci(np.mean, x, n_resamples=4000, method="bca", random_state=0)
    ref = stats.bootstrap((x,), np.mean, n_resamples=4000, method="BCa", random_state=1).confidence_interval
    width = ref.high - ref.low
    assert ours.low == pytest.approx(ref.low, abs=0.06 * width)
    assert ours.high == pytest.approx(ref.high, abs=0.06 * width)
    # BCa shifts right for a right-skewed mean compared with the percentile interval
    pct = bootstrap_ci(np.mean, x, n_resamples=4000, method="percentile", random_state=0)
    assert ours.high > pct.high


def test_stratified_bootstrap_keeps_strata_sizes():
    g = np.array(["a"] * 5 + ["b"] * 95)
    x = np.r_[np.ones(5), np.zeros(95)]
    ci = bootstrap_ci(lambda v, s: v[s == "a"].size, x, g, strata=g, n_resamples=50, random_state=0)
    assert ci.low == ci.high == 5


def test_multinomial_count_bootstrap_matches_row_bootstrap_in_distribution():
    rng = np.random.default_rng(3)
    C = np.array([[[30, 10], [5, 55]], [[20, 20], [15, 45]]])
    reps = multinomial_bootstrap_counts(C, 4000, rng)
    assert (reps.sum(axis=(2, 3)) == C.sum(axis=(1, 2))).all()  # group sizes kept
    tpr = reps[:, :, 1, 1] / reps[:, :, 1, :].sum(-1)
    # row bootstrap of the same data
    rows = []
    for g in range(2):
        t, p = np.nonzero(C[g] >= 0)
        rows.append(np.repeat(np.c_[t, p], C[g].reshape(-1), axis=0))
    row_tpr = []
    for _ in range(4000):
        vals = []
        for r in rows:
            s = r[rng.integers(0, len(r), len(r))]
            pos = s[:, 0] == 1
            vals.append((s[pos, 1] == 1).mean())
        row_tpr.append(vals)
    row_tpr = np.array(row_tpr)
    np.testing.assert_allclose(tpr.mean(0), row_tpr.mean(0), atol=0.01)
    np.testing.assert_allclose(tpr.std(0), row_tpr.std(0), rtol=0.1)


def test_jackknife_of_counts_enumerates_leave_one_out():
    C = np.array([[[2, 1], [0, 3]]])
    reps, weights = zip(*jackknife_counts(C))
    reps, weights = np.concatenate(reps), np.concatenate(weights)
    assert weights.sum() == C.sum()
    for rep, w in zip(reps, weights):
        diff = C - rep
        assert diff.sum() == 1 and (diff >= 0).all()
        assert w == C[diff == 1][0]


def test_friedman_and_wilcoxon_match_scipy():
    rng = np.random.default_rng(4)
    m = rng.random((30, 3)) + [0, 0.1, 0.3]
    f = friedman_test(m)
    ref = stats.friedmanchisquare(*m.T)
    assert (f.statistic, f.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
    w = wilcoxon_test(m[:, :2])
    ref = stats.wilcoxon(m[:, 0], m[:, 1])
    assert (w.statistic, w.pvalue) == pytest.approx((ref.statistic, ref.pvalue))
    assert wilcoxon_test(np.ones((5, 2))).pvalue == 1.0
    with pytest.raises(InvalidParameterError, match="3 groups"):
        friedman_test(m[:, :2])


def test_paired_group_test_picks_the_test_and_averages_per_source():
    rng = np.random.default_rng(5)
    src = np.repeat(np.arange(20), 4)
    grp = np.tile(["f", "f", "m", "m"], 20)
    vals = rng.random(80)
    res = paired_group_test(vals, src, grp)
    per = vals.reshape(20, 2, 2).mean(axis=2)
    ref = stats.wilcoxon(per[:, 0], per[:, 1])
    assert res.test == "wilcoxon" and res.pvalue == pytest.approx(ref.pvalue)
    grp3 = np.tile(["a", "b", "c", "c"], 20)
    assert paired_group_test(vals, src, grp3).test == "friedman"


def test_permutation_test_gap():
    rng = np.random.default_rng(6)
    n = 400
    g = np.repeat(["f", "m"], n // 2)
    y = rng.integers(0, 2, n)
    p = np.where(g == "f", y, rng.integers(0, 2, n))  # f is always right, m is random
    res = permutation_test_gap(y, p, g, metric="tpr", n_permutations=199, random_state=0)
    tpr_f = ((p == 1) & (y == 1) & (g == "f")).sum() / ((y == 1) & (g == "f")).sum()
    tpr_m = ((p == 1) & (y == 1) & (g == "m")).sum() / ((y == 1) & (g == "m")).sum()
    assert res.statistic == pytest.approx(tpr_f - tpr_m)
    assert res.pvalue == pytest.approx(1 / 200)  # never exactly 0
    null = permutation_test_gap(y, y, g, metric="accuracy", n_permutations=99, random_state=0)
    assert null.pvalue == 1.0
    again = permutation_test_gap(y, p, g, metric="fpr", n_permutations=50, random_state=3)
    assert again == permutation_test_gap(y, p, g, metric="fpr", n_permutations=50, random_state=3)
