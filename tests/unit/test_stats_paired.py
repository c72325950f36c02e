"""Paired bootstrap and McNemar's exact test against hand computations and scipy."""

import numpy as np
import pytest
from scipy import stats

from probekit.errors import InvalidParameterError
from probekit.stats import mcnemar_exact, paired_bootstrap


def _mean(x):
    return float(np.mean(x))


def test_paired_bootstrap_matches_a_hand_loop():
    base = np.array([1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    other = np.array([0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    result = paired_bootstrap(_mean, [base], [other], n_resamples=200, confidence=0.9, random_state=3)
    rng = np.random.default_rng(3)
    deltas = []
    for _ in range(200):
        i = rng.integers(0, 6, size=6)
        deltas.append(other[i].mean() - base[i].mean())
    deltas = np.asarray(deltas)
    assert result.base == pytest.approx(4 / 6) and result.other == pytest.approx(2 / 6)
    assert result.difference == pytest.approx(-2 / 6)
    assert (result.ci_low, result.ci_high) == pytest.approx(tuple(np.quantile(deltas, [0.05, 0.95])))
    extreme = min((deltas <= 0).sum(), (deltas >= 0).sum())
    assert result.p_value == pytest.approx(min(1.0, 2 * (1 + extreme) / 201))
    assert result.n == 6 and result.n_resamples == 200


def test_paired_bootstrap_identical_models_and_clear_difference():
    x = np.arange(50) % 2
    same = paired_bootstrap(_mean, [x], [x], n_resamples=100)
    assert same.difference == 0 and same.p_value == 1.0
    shifted = paired_bootstrap(_mean, [np.zeros(40)], [np.ones(40)], n_resamples=100)
    assert shifted.difference == 1 and shifted.p_value == pytest.approx(2 / 101)


def test_paired_bootstrap_several_arrays_and_errors():
    groups = np.array([0, 0, 1, 1])
    result = paired_bootstrap(lambda g, v: float(np.mean(v[g == 0])) if (g == 0).any() else np.nan,
                              [groups, np.array([1.0, 1.0, 0.0, 0.0])], [groups, np.array([0.0, 1.0, 0.0, 0.0])],
                              n_resamples=50)
    assert result.difference == pytest.approx(-0.5)
    assert result.n_resamples <= 50
    with pytest.raises(InvalidParameterError, match="base/other"):
        paired_bootstrap(_mean, [np.ones(3)], [np.ones(4)])
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        paired_bootstrap(_mean, [np.ones(3)], [np.ones(3)], n_resamples=-1)
    none = paired_bootstrap(_mean, [np.ones(3)], [np.zeros(3)], n_resamples=0)
    assert np.isnan(none.p_value) and none.difference == -1


def test_mcnemar_exact_against_scipy_binomtest():
    base = np.array([1, 1, 1, 1, 1, 0, 0, 1, 0, 1])
    other = np.array([0, 0, 0, 1, 1, 1, 0, 0, 0, 1])
    result = mcnemar_exact(base, other)
    # discordant: base 1 -> other 0 at 0, 1, 2, 7 (b = 4); 0 -> 1 at 5 (c = 1)
    assert (result.b, result.c, result.n) == (4, 1, 10)
    assert result.p_value == pytest.approx(stats.binomtest(4, 5, 0.5).pvalue)
    assert result.p_value == pytest.approx(2 * (1 + 5) / 32)  # P(X<=1) + P(X>=4), X ~ Bin(5, 1/2)


def test_mcnemar_drops_nan_and_no_discordance():
    result = mcnemar_exact([1, np.nan, 0], [1, 0, 0])
    assert (result.b, result.c, result.n, result.p_value) == (0, 0, 2, 1.0)


def test_paired_bootstrap_of_a_single_example_is_undefined():
    from probekit.stats import paired_bootstrap

    result = paired_bootstrap(lambda x: float(np.mean(x)), [np.array([0.4])], [np.array([0.9])], n_resamples=50,
                              random_state=0)
    assert result.difference == pytest.approx(0.5) and result.n == 1
    assert np.isnan(result.p_value) and np.isnan(result.ci_low) and np.isnan(result.ci_high)
