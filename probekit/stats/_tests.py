"""Paired tests over groups: Friedman (more than two groups) and Wilcoxon signed-rank (two groups).

Czarnowska et al. (2021) advise a Friedman test for more than two groups and a Wilcoxon signed-rank
test for two, on scores averaged per block (a source example or template: the rows of the matrix).
"""

from __future__ import annotations

import warnings
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from probekit.errors import InvalidParameterError

__all__ = ["TestResult", "friedman_test", "wilcoxon_test"]


@dataclass(frozen=True)
class TestResult:
    """Result of a significance test."""

    __test__ = False  # not a pytest test class

    test: str
    statistic: float
    pvalue: float
    n: int
    details: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        """The test result as a JSON-ready dict (every field)."""
        return asdict(self)


def _matrix(scores: Any, name: str = "scores") -> np.ndarray:
    m = np.asarray(scores, dtype=float)
    if m.ndim != 2:
        raise InvalidParameterError(name, f"array of shape {m.shape}", "a (n_sources, n_groups) matrix")
    if not np.isfinite(m).all():
        raise InvalidParameterError(name, "NaN or infinite values", "finite scores (drop incomplete sources first)")
    return m


def friedman_test(scores: Any) -> TestResult:
    """Friedman test over groups (columns) with source examples (rows) as blocks; needs >= 3 groups.

    Parameters
    ----------
    scores : array-like of shape (n_sources, n_groups)
        Finite scores, one row per block (e.g. per template), one column per group.

    Returns
    -------
    TestResult
        The Friedman chi-square statistic (:func:`scipy.stats.friedmanchisquare`) and its p-value.
    """
    m = _matrix(scores)
    if m.shape[1] < 3:
        raise InvalidParameterError("scores", f"{m.shape[1]} groups", "at least 3 groups (use wilcoxon_test for 2)")
    if m.shape[0] < 2:
        raise InvalidParameterError("scores", f"{m.shape[0]} source example(s)", "at least 2 source examples")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        res = stats.friedmanchisquare(*m.T)
    return TestResult("friedman", float(res.statistic), float(res.pvalue), int(m.shape[0]))


def wilcoxon_test(scores: Any, *, alternative: str = "two-sided") -> TestResult:
    """Wilcoxon signed-rank test of two groups (columns) paired by source example (rows).

    If every difference is zero there is no evidence of a difference: statistic 0 and p-value 1.

    Parameters
    ----------
    scores : array-like of shape (n_sources, 2)
        Finite paired scores.
    alternative : {'two-sided', 'greater', 'less'}
        As :func:`scipy.stats.wilcoxon`.

    Returns
    -------
    TestResult
    """
    m = _matrix(scores)
    if m.shape[1] != 2:
        raise InvalidParameterError("scores", f"{m.shape[1]} groups", "exactly 2 groups (use friedman_test for more)")
    diff = m[:, 0] - m[:, 1]
    if not np.any(diff != 0):
        return TestResult("wilcoxon", 0.0, 1.0, int(m.shape[0]), {"note": "all paired differences are zero"})
    res = stats.wilcoxon(m[:, 0], m[:, 1], alternative=alternative)
    return TestResult("wilcoxon", float(res.statistic), float(res.pvalue), int(m.shape[0]))
