"""Statistics of the dose-response study: Holm/BH, the cluster bootstrap, slopes, power."""

import itertools

import numpy as np
import pytest
from scipy import stats as scipy_stats

from probekit.errors import InvalidParameterError
from probekit.stats import (
    bh_adjust,
    cluster_bootstrap_correlation,
    correlation_power,
    dose_response_slope,
    holm_adjust,
    min_detectable_correlation,
)

multitest = pytest.importorskip("statsmodels.stats.multitest")


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("m", [1, 2, 7, 40])
def test_holm_and_bh_equal_statsmodels(seed, m):
    rng = np.random.default_rng(seed)
    p = rng.uniform(size=m) ** 3
    if m > 2:
        p[1] = p[0]  # ties
    assert np.allclose(holm_adjust(p), multitest.multipletests(p, method="holm")[1], rtol=0, atol=1e-12)
    assert np.allclose(bh_adjust(p), multitest.multipletests(p, method="fdr_bh")[1], rtol=0, atol=1e-12)


def test_adjustment_leaves_nan_out_of_the_family():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    finite = p[~np.isnan(p)]
    holm = holm_adjust(p)
    assert np.isnan(holm[1])
    assert np.allclose(holm[[0, 2, 3]], multitest.multipletests(finite, method="holm")[1], atol=1e-12)
    with pytest.raises(InvalidParameterError):
        bh_adjust([0.5, 1.5])


def _brute_force_interval(x, y, clusters, statistic, confidence):
    """Every ordered draw of G clusters out of G (equally likely), with scipy's correlations."""
    labels = sorted(set(clusters))
    members = {c: [i for i, k in enumerate(clusters) if k == c] for c in labels}
    values = []
    for draw in itertools.product(labels, repeat=len(labels)):
        rows = [i for c in draw for i in members[c]]
        xs, ys = x[rows], y[rows]
        if np.ptp(xs) == 0 or np.ptp(ys) == 0:
            continue
        value = scipy_stats.spearmanr(xs, ys)[0] if statistic == "spearman" else scipy_stats.kendalltau(xs, ys)[0]
        values.append(value)
    a = (1 - confidence) / 2
    return np.quantile(values, [a, 1 - a]), len(values), values


@pytest.mark.parametrize("statistic", ["spearman", "kendall"])
def test_cluster_bootstrap_equals_brute_force_enumeration(statistic):
    rng = np.random.default_rng(3)
    clusters = np.repeat(["a", "b", "c", "d"], [3, 2, 4, 3])
    x = rng.normal(size=clusters.size)
    y = x + rng.normal(size=clusters.size)
    x[0] = x[1]  # a tie
    (low, high), n_valid, values = _brute_force_interval(x, y, list(clusters), statistic, 0.9)
    exact = cluster_bootstrap_correlation(x, y, clusters, statistic=statistic, n_resamples="exact", confidence=0.9)
    assert exact.n_resamples == 4**4 and exact.n_valid == n_valid
    assert exact.low == pytest.approx(low, abs=1e-12) and exact.high == pytest.approx(high, abs=1e-12)
    reference = scipy_stats.spearmanr(x, y)[0] if statistic == "spearman" else scipy_stats.kendalltau(x, y)[0]
    assert exact.estimate == pytest.approx(reference, abs=1e-12)
    # Monte Carlo draws follow the same distribution: their quantiles approach the exact ones
    sampled = cluster_bootstrap_correlation(x, y, clusters, statistic=statistic, n_resamples=20000, confidence=0.9)
    spread = np.std(values)
    assert abs(sampled.low - low) < 0.15 * spread and abs(sampled.high - high) < 0.15 * spread


def test_cluster_bootstrap_resamples_clusters_not_points():
    # Two clusters whose points are perfectly ordered within, but whose cluster means disagree:
    # a point bootstrap is confident, a cluster bootstrap is not.
    rng = np.random.default_rng(0)
    clusters = np.repeat([0, 1, 2], 20)
    x = np.tile(np.linspace(0, 1, 20), 3) + clusters * 0.01
    y = x + np.repeat(rng.normal(scale=3, size=3), 20)
    points = cluster_bootstrap_correlation(x, y, None, n_resamples=500)
    by_cluster = cluster_bootstrap_correlation(x, y, clusters, n_resamples="exact")
    assert by_cluster.high - by_cluster.low > points.high - points.low
    with pytest.raises(InvalidParameterError):
        cluster_bootstrap_correlation(x, y, np.zeros(60))


def test_slope_equals_scipy_linregress():
    rng = np.random.default_rng(1)
    s = np.repeat(np.linspace(0, 1, 6), 3)
    m = 0.3 - 0.2 * s + rng.normal(scale=0.05, size=s.size)
    result = dose_response_slope(s, m, confidence=0.95)
    reference = scipy_stats.linregress(s, m)
    t = scipy_stats.t.ppf(0.975, s.size - 2)
    assert result.slope == pytest.approx(reference.slope, abs=1e-12)
    assert result.se == pytest.approx(reference.stderr, abs=1e-12)
    assert result.p_value == pytest.approx(reference.pvalue, abs=1e-12)
    assert result.low == pytest.approx(reference.slope - t * reference.stderr, abs=1e-12)
    assert np.isnan(dose_response_slope([0, 0, 0], [1, 2, 3]).low)


def _simulated_spearman_power(rho_s, n, n_sim, rng, alpha=0.05):
    """Share of bivariate normal samples whose Spearman test (scipy's p) rejects at ``alpha``."""
    pearson = 2 * np.sin(np.pi * rho_s / 6)  # population Spearman rho_s of a bivariate normal
    cov = [[1, pearson], [pearson, 1]]
    data = rng.multivariate_normal([0, 0], cov, size=(n_sim, n))
    rx = scipy_stats.rankdata(data[..., 0], axis=1)
    ry = scipy_stats.rankdata(data[..., 1], axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    ry -= ry.mean(axis=1, keepdims=True)
    r = (rx * ry).sum(axis=1) / np.sqrt((rx**2).sum(axis=1) * (ry**2).sum(axis=1))
    t = r * np.sqrt((n - 2) / (1 - r**2))
    p = 2 * scipy_stats.t.sf(np.abs(t), n - 2)  # scipy.stats.spearmanr's p-value
    return float(np.mean(p < alpha))


@pytest.mark.parametrize("rho", [0.3, 0.45, 0.6])
def test_spearman_power_matches_simulation(rho):
    n = 40
    simulated = _simulated_spearman_power(rho, n, 4000, np.random.default_rng(int(rho * 100)))
    assert abs(correlation_power(rho, n, kind="spearman") - simulated) < 0.05


def test_min_detectable_correlation_has_80_percent_simulated_power():
    n = 60
    r = min_detectable_correlation(n, power=0.8, kind="spearman")
    assert correlation_power(r, n) == pytest.approx(0.8, abs=1e-9)
    assert abs(_simulated_spearman_power(r, n, 4000, np.random.default_rng(7)) - 0.8) < 0.05
    # the approximation's closed form (far tail ignored) and monotonicity in n
    from scipy.special import ndtri
    assert r == pytest.approx(np.tanh((ndtri(0.975) + ndtri(0.8)) * np.sqrt(1.06 / (n - 3))), abs=1e-3)
    assert min_detectable_correlation(200) < r < min_detectable_correlation(20)
    with pytest.raises(InvalidParameterError):
        min_detectable_correlation(3)
