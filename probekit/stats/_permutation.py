"""Permutation and randomization p-values: the one home of the (1 + k) / (1 + n) rule."""

from __future__ import annotations

import numpy as np

from probekit.errors import InvalidParameterError

ALTERNATIVES = ("two-sided", "greater", "less")


def permutation_p_value(extreme_count: int, n_resamples: int, *, exact: bool = False) -> float:
    r"""P-value from the number of resampled statistics at least as extreme as the observed one.

    Monte Carlo (``exact=False``, the default): with :math:`k` of :math:`n` random resamples
    (permutations, relabelings) at least as extreme as the observed statistic,

    .. math:: p = \frac{1 + k}{1 + n},

    which counts the observed arrangement among the resamples, is never 0 and is a valid
    (conservative) p-value (Phipson & Smyth 2010, "Permutation p-values should never be zero";
    Davison & Hinkley 1997, eq. 4.11).

    Exact (``exact=True``): ``n_resamples`` is every arrangement (the observed one among them,
    and counted in ``extreme_count``), and :math:`p = k / n`.

    Parameters
    ----------
    extreme_count : int
        :math:`k`, the resamples with a statistic at least as extreme as the observed one
        (see :func:`count_extreme`).
    n_resamples : int
        :math:`n`, the resamples drawn (or, when exact, the arrangements enumerated).
    exact : bool
        Whether the resamples are a full enumeration.

    Returns
    -------
    float

    Raises
    ------
    InvalidParameterError
        ``extreme_count`` outside ``[0, n_resamples]``, or ``n_resamples < 1`` when exact.
    """
    k, n = int(extreme_count), int(n_resamples)
    if n < 0 or (exact and n < 1):
        raise InvalidParameterError("n_resamples", n_resamples, "a positive integer" if exact else "an integer >= 0")
    if not 0 <= k <= n:
        raise InvalidParameterError("extreme_count", extreme_count, f"an integer in [0, n_resamples={n}]")
    if exact:
        return k / n
    return (1 + k) / (1 + n)


def count_extreme(
    resampled: np.ndarray,
    observed: float,
    *,
    alternative: str = "greater",
    centre: float = 0.0,
    tol: float = 0.0,
) -> int:
    r"""How many resampled statistics are at least as extreme as the observed one.

    - ``"greater"``: :math:`\#\{t_b \ge t - \text{tol}\}`;
    - ``"less"``: :math:`\#\{t_b \le t + \text{tol}\}`;
    - ``"two-sided"``: :math:`\#\{|t_b - c| \ge |t - c| - \text{tol}\}` around the centre
      :math:`c` (the statistic's expectation under the null, 0 for a gap).

    ``tol`` makes ties that differ only by rounding count as extreme (">=").

    Parameters
    ----------
    resampled : array of float
        The statistics of the resamples.
    observed : float
        The observed statistic.
    alternative : {"two-sided", "greater", "less"}
    centre : float
        Null expectation of the statistic (two-sided only).
    tol : float
        Absolute tolerance for ties, >= 0.

    Returns
    -------
    int
    """
    if alternative == "greater":
        return int(np.count_nonzero(resampled >= observed - tol))
    if alternative == "less":
        return int(np.count_nonzero(resampled <= observed + tol))
    if alternative == "two-sided":
        return int(np.count_nonzero(np.abs(resampled - centre) >= abs(observed - centre) - tol))
    raise InvalidParameterError("alternative", alternative, list(ALTERNATIVES))
