r"""Rank correlation with a cluster bootstrap, and the slope of a dose-response.

Points of a dose-response study come in clusters (all strengths of one debiasing method share
the method's fit and its direction), so they are not independent: a bootstrap that resamples
points treats 30 strengths of one method as 30 independent models. :func:`cluster_bootstrap_correlation`
resamples whole clusters with replacement (the cluster bootstrap; Davison & Hinkley 1997, §3.8;
Field & Welsh 2007): a replicate draws G of the G clusters with replacement and computes the
correlation over every point of the drawn clusters (a cluster drawn twice counts twice).
The interval is the percentile interval of the replicates; a replicate where x or y is constant
gives no correlation and is left out (``n_valid`` counts the others).

:func:`dose_response_slope`: the least-squares slope of a metric along a strength axis with its
Student-t interval, :math:`\hat\beta \pm t_{(1+c)/2,\,n-2}\,\mathrm{se}(\hat\beta)`,
:math:`\mathrm{se}^2 = \frac{\sum_i r_i^2/(n-2)}{\sum_i (s_i - \bar s)^2}`.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats as _scipy_stats

from probekit.errors import InvalidParameterError
from probekit.stats._intervals import ConfidenceInterval
from probekit.stats._ranks import kendall_tau, spearman_rho

__all__ = ["RANK_STATISTICS", "cluster_bootstrap_correlation", "cluster_resamples", "DoseResponseSlope",
           "dose_response_slope"]

_STATISTICS = {"spearman": spearman_rho, "kendall": kendall_tau}
#: Correlations :func:`cluster_bootstrap_correlation` computes.
RANK_STATISTICS = tuple(_STATISTICS)
#: Up to this many ordered cluster draws (G ** G) ``n_resamples="exact"`` enumerates.
EXACT_MAX = 100_000


def _paired(x: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
    xa, ya = np.asarray(x, dtype=float).reshape(-1), np.asarray(y, dtype=float).reshape(-1)
    if xa.size != ya.size:
        raise InvalidParameterError("y", f"length {ya.size}", f"length {xa.size} (the length of x)")
    if not (np.isfinite(xa).all() and np.isfinite(ya).all()):
        raise InvalidParameterError("x/y", "NaN or infinite values", "finite values (leave missing points out first)")
    return xa, ya


def cluster_resamples(n_clusters: int, n_resamples: int | str, rng: np.random.Generator) -> np.ndarray:
    """Cluster draws, shape (B, G): ``n_resamples`` rows drawn uniformly with replacement, or
    ``"exact"``: all ``G ** G`` ordered draws (every row equally likely under the bootstrap).
    """
    if n_resamples == "exact":
        if n_clusters ** n_clusters > EXACT_MAX:
            raise InvalidParameterError("n_resamples", "exact", f"a number of resamples (exact enumeration needs "
                                        f"G ** G <= {EXACT_MAX}; G = {n_clusters})")
        return np.asarray(list(itertools.product(range(n_clusters), repeat=n_clusters)), dtype=np.intp)
    if isinstance(n_resamples, bool) or not isinstance(n_resamples, (int, np.integer)) or n_resamples < 1:
        raise InvalidParameterError("n_resamples", n_resamples, "a positive integer or 'exact'")
    return rng.integers(0, n_clusters, size=(int(n_resamples), n_clusters))


def cluster_bootstrap_correlation(
    x: Any,
    y: Any,
    clusters: Any = None,
    *,
    statistic: str = "spearman",
    n_resamples: int | str = 2000,
    confidence: float = 0.95,
    random_state: int | np.random.Generator | None = 0,
) -> ConfidenceInterval:
    r"""Spearman's :math:`\rho` or Kendall's :math:`\tau_b` of paired points with a cluster-bootstrap interval.

    Each replicate draws G clusters with replacement out of the G clusters and recomputes the
    correlation over all points of the drawn clusters; the interval is the percentile interval
    :math:`[q_{(1-c)/2}, q_{(1+c)/2}]` of the valid replicates (``numpy.quantile``, linear).
    With ``clusters=None`` every point is its own cluster (the ordinary bootstrap of points).

    Parameters
    ----------
    x, y : array-like of shape (n,)
        Finite values.
    clusters : array-like of shape (n,), optional
        Cluster label of each point (e.g. the debiasing method); at least two clusters.
    statistic : {"spearman", "kendall"}
    n_resamples : int or "exact"
        Replicates; ``"exact"`` enumerates all G ** G ordered draws (small G only).
    confidence : float
    random_state : int, Generator or None

    Returns
    -------
    ConfidenceInterval
        ``estimate`` (over all points), ``low``, ``high`` (NaN when no replicate is valid),
        ``method`` ("cluster percentile"), ``n_resamples``, ``n_valid``.
    """
    xa, ya = _paired(x, y)
    if statistic not in _STATISTICS:
        raise InvalidParameterError("statistic", statistic, RANK_STATISTICS)
    if not 0 < confidence < 1:
        raise InvalidParameterError("confidence", confidence, "a level in (0, 1)")
    labels = np.arange(xa.size) if clusters is None else np.asarray(clusters).reshape(-1)
    if labels.size != xa.size:
        raise InvalidParameterError("clusters", f"length {labels.size}", f"length {xa.size} (the length of x)")
    _, codes = np.unique(labels, return_inverse=True)
    n_clusters = int(codes.max()) + 1 if codes.size else 0
    if n_clusters < 2:
        raise InvalidParameterError("clusters", n_clusters, "at least two clusters")
    members = [np.flatnonzero(codes == g) for g in range(n_clusters)]
    function = _STATISTICS[statistic]
    draws = cluster_resamples(n_clusters, n_resamples, np.random.default_rng(random_state))
    replicates = np.empty(len(draws))
    for b, draw in enumerate(draws):
        rows = np.concatenate([members[g] for g in draw])
        replicates[b] = function(xa[rows], ya[rows])
    valid = replicates[~np.isnan(replicates)]
    alpha = (1 - confidence) / 2
    low, high = (np.quantile(valid, [alpha, 1 - alpha]) if valid.size else (math.nan, math.nan))
    return ConfidenceInterval(estimate=function(xa, ya), low=float(low), high=float(high), confidence=confidence,
                              method="cluster percentile", n_resamples=len(draws), n_valid=int(valid.size))


@dataclass
class DoseResponseSlope:
    """Least-squares slope of a metric along a strength axis, with its Student-t interval.

    Attributes
    ----------
    slope, intercept, low, high : float
        ``low``/``high``: the interval of the slope (NaN with fewer than 3 points or a constant axis).
    se : float
        Standard error of the slope.
    p_value : float
        Two-sided t-test of slope 0 (n - 2 degrees of freedom).
    n : int
    confidence : float
    """

    slope: float
    intercept: float
    low: float
    high: float
    se: float
    p_value: float
    n: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """The result as plain JSON-ready types."""
        return asdict(self)


def dose_response_slope(strength: Any, metric: Any, *, confidence: float = 0.95) -> DoseResponseSlope:
    r"""Slope of ``metric`` on ``strength`` (ordinary least squares) with a Student-t interval.

    :math:`\hat\beta = \frac{\sum (s_i - \bar s)(m_i - \bar m)}{\sum (s_i - \bar s)^2}`,
    :math:`\mathrm{se}(\hat\beta)^2 = \frac{\sum r_i^2 / (n-2)}{\sum (s_i - \bar s)^2}` and the
    interval :math:`\hat\beta \pm t_{(1+c)/2,\,n-2}\,\mathrm{se}` (equal to
    :func:`scipy.stats.linregress`'s slope and standard error). The points are taken as independent
    given the strength (e.g. the strengths of one method, over seeds).

    Parameters
    ----------
    strength, metric : array-like of shape (n,)
        Finite values.
    confidence : float
    """
    s, m = _paired(strength, metric)
    if not 0 < confidence < 1:
        raise InvalidParameterError("confidence", confidence, "a level in (0, 1)")
    n = int(s.size)
    nan = math.nan
    sxx = float(((s - s.mean()) ** 2).sum()) if n else 0.0
    if n < 3 or sxx == 0:
        slope = float(((s - s.mean()) * (m - m.mean())).sum() / sxx) if n >= 2 and sxx > 0 else nan
        intercept = float(m.mean() - slope * s.mean()) if n and not math.isnan(slope) else nan
        return DoseResponseSlope(slope, intercept, nan, nan, nan, nan, n, confidence)
    slope = float(((s - s.mean()) * (m - m.mean())).sum() / sxx)
    intercept = float(m.mean() - slope * s.mean())
    residuals = m - (intercept + slope * s)
    se = math.sqrt(float((residuals**2).sum()) / (n - 2) / sxx)
    margin = float(_scipy_stats.t.ppf((1 + confidence) / 2, n - 2)) * se
    p_value = float(2 * _scipy_stats.t.sf(abs(slope / se), n - 2)) if se > 0 else (0.0 if slope != 0 else 1.0)
    return DoseResponseSlope(slope, intercept, slope - margin, slope + margin, se, p_value, n, confidence)
