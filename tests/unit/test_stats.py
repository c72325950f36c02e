"""probekit.stats permutation p-values against brute-force enumeration and direct counting."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest

from probekit.errors import InvalidParameterError
from probekit.stats import count_extreme, permutation_p_value


def _brute_force_exact(x: np.ndarray, y: np.ndarray) -> float:
    """P(sum of a random |x|-subset of x ∪ y >= sum(x)) by enumerating every subset."""
    pooled = np.concatenate([x, y])
    observed = x.sum()
    subsets = list(itertools.combinations(range(pooled.size), x.size))
    hits = sum(pooled[list(idx)].sum() >= observed - 1e-12 for idx in subsets)
    return hits / len(subsets)


def test_exact_matches_enumeration():
    rng = np.random.default_rng(0)
    for n_x, n_y in [(3, 3), (4, 5), (2, 6)]:
        x, y = rng.normal(size=n_x), rng.normal(size=n_y)
        pooled = np.concatenate([x, y])
        sums = np.array([pooled[list(c)].sum() for c in itertools.combinations(range(pooled.size), n_x)])
        k = count_extreme(sums, x.sum(), alternative="greater", tol=1e-12)
        p = permutation_p_value(k, sums.size, exact=True)
        assert p == _brute_force_exact(x, y)
        assert p >= 1 / math.comb(n_x + n_y, n_x)  # the observed partition counts


def test_monte_carlo_rule_is_one_plus_k_over_one_plus_n():
    for n in (1, 7, 100, 9999):
        for k in {0, 1, n // 2, n}:
            assert permutation_p_value(k, n) == float(Fraction(1 + k, 1 + n))
    assert permutation_p_value(0, 100) == pytest.approx(1 / 101)
    assert permutation_p_value(0, 0) == 1.0


def test_monte_carlo_p_value_is_never_zero_and_close_to_exact():
    rng = np.random.default_rng(1)
    x, y = rng.normal(0.4, 1, 6), rng.normal(0, 1, 6)
    pooled = np.concatenate([x, y])
    draws = np.array([rng.permutation(pooled)[:6].sum() for _ in range(4000)])
    k = count_extreme(draws, x.sum(), alternative="greater", tol=1e-12)
    p = permutation_p_value(k, draws.size)
    assert p > 0
    assert p == pytest.approx(_brute_force_exact(x, y), abs=0.03)


@pytest.mark.parametrize("alternative", ["greater", "less", "two-sided"])
def test_count_extreme_matches_a_loop(alternative):
    rng = np.random.default_rng(2)
    resampled = np.round(rng.normal(size=500), 1)  # many exact ties
    observed, centre, tol = 0.3, 0.1, 1e-9
    expected = 0
    for t in resampled:
        if alternative == "greater":
            expected += t >= observed - tol
        elif alternative == "less":
            expected += t <= observed + tol
        else:
            expected += abs(t - centre) >= abs(observed - centre) - tol
    assert count_extreme(resampled, observed, alternative=alternative, centre=centre, tol=tol) == expected


def test_invalid_arguments_name_the_parameter():
    with pytest.raises(InvalidParameterError) as info:
        permutation_p_value(5, 4)
    assert info.value.parameter == "extreme_count"
    with pytest.raises(InvalidParameterError) as info:
        permutation_p_value(0, 0, exact=True)
    assert info.value.parameter == "n_resamples"
    with pytest.raises(InvalidParameterError) as info:
        count_extreme(np.zeros(3), 0.0, alternative="both")
    assert info.value.parameter == "alternative"
