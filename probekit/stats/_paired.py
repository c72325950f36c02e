"""Paired significance of one model against another on the same examples.

- :func:`paired_bootstrap`: the difference of a benchmark score between two models scored on the
  same examples, with a percentile interval and a two-sided bootstrap p-value, resampling the
  examples (the same draw for both models).
- :func:`mcnemar_exact`: McNemar's exact test of paired binary outcomes (e.g. which CrowS-Pairs
  pairs flip from stereotype-preferred to not), a binomial test on the discordant pairs.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable, Sequence

import numpy as np
from scipy import stats as _scipy_stats

from probekit.errors import InvalidParameterError

__all__ = ["PairedDifference", "McNemarResult", "paired_bootstrap", "mcnemar_exact"]


@dataclass(frozen=True)
class PairedDifference:
    """A paired comparison of a score: ``other - base`` with its interval and p-value."""

    base: float
    other: float
    difference: float
    ci_low: float
    ci_high: float
    p_value: float
    n: int
    n_resamples: int
    confidence: float

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (every field)."""
        return asdict(self)


@dataclass(frozen=True)
class McNemarResult:
    """McNemar's exact test: ``b`` = pairs true under base and false under other, ``c`` the reverse."""

    b: int
    c: int
    n: int
    p_value: float

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (every field)."""
        return asdict(self)


def _paired_arrays(base: Sequence[Any], other: Sequence[Any]) -> tuple[list[np.ndarray], list[np.ndarray], int]:
    base_arrays = [np.asarray(a) for a in base]
    other_arrays = [np.asarray(a) for a in other]
    if not base_arrays or len(base_arrays) != len(other_arrays):
        raise InvalidParameterError("other", len(other_arrays), f"as many arrays as base ({len(base_arrays)}), at least one")
    n = len(base_arrays[0])
    bad = [len(a) for a in base_arrays + other_arrays if len(a) != n]
    if bad:
        raise InvalidParameterError("base/other", bad, f"arrays of one length {n}: one entry per example, in the same order")
    return base_arrays, other_arrays, n


def paired_bootstrap(
    statistic: Callable[..., float],
    base: Sequence[Any],
    other: Sequence[Any],
    *,
    n_resamples: int = 2000,
    confidence: float = 0.95,
    random_state: int | np.random.Generator | None = 0,
) -> PairedDifference:
    r"""Paired bootstrap of the difference of a score between two models on the same examples.

    Each replicate draws :math:`n` example indices with replacement, the same for both models,
    and computes :math:`\Delta^* = s(\text{other}^*) - s(\text{base}^*)`. The interval is the
    percentile interval of :math:`\Delta^*`; the two-sided p-value is

    .. math:: p = \min\Bigl(1,\ 2\,\frac{1 + \min(\#\{\Delta^* \le 0\}, \#\{\Delta^* \ge 0\})}{1 + B}\Bigr)

    (Efron & Tibshirani 1993, ch. 16; the ``+1`` keeps ``p > 0`` with ``B`` replicates).
    Replicates where the statistic is undefined (NaN) are left out of both. With fewer than two
    paired examples a resample is the sample itself, so the interval and p are NaN (undefined).

    Parameters
    ----------
    statistic : callable
        ``statistic(*arrays) -> float`` on one model's per-example arrays.
    base, other : sequence of array
        The per-example arrays of each model, in the same example order (e.g. for StereoSet the
        target-term codes, the stereotype-preferred flags and the related counts of each context).
    n_resamples : int
        Bootstrap replicates ``B`` (0: the point estimates only, NaN interval and p).
    confidence : float
        Level of the interval, in (0, 1).
    random_state : int, Generator or None
        Seed of the resampling.

    Returns
    -------
    PairedDifference
    """
    if not (isinstance(n_resamples, int) and n_resamples >= 0):
        raise InvalidParameterError("n_resamples", n_resamples, "a non-negative integer")
    if not 0 < confidence < 1:
        raise InvalidParameterError("confidence", confidence, "a level in (0, 1)")
    base_arrays, other_arrays, n = _paired_arrays(base, other)
    s_base, s_other = float(statistic(*base_arrays)), float(statistic(*other_arrays))
    low = high = p_value = math.nan
    deltas = np.empty(0)
    if n_resamples and n >= 2:
        rng = np.random.default_rng(random_state)
        deltas = np.empty(n_resamples)
        for r in range(n_resamples):
            index = rng.integers(0, n, size=n)
            deltas[r] = float(statistic(*(a[index] for a in other_arrays))) - float(statistic(*(a[index] for a in base_arrays)))
        deltas = deltas[np.isfinite(deltas)]
    if deltas.size:
        alpha = (1.0 - confidence) / 2.0
        low, high = (float(v) for v in np.quantile(deltas, [alpha, 1.0 - alpha]))
        extreme = min(int((deltas <= 0).sum()), int((deltas >= 0).sum()))
        p_value = min(1.0, 2.0 * (1 + extreme) / (1 + deltas.size))
    return PairedDifference(base=s_base, other=s_other, difference=s_other - s_base, ci_low=low, ci_high=high,
                            p_value=p_value, n=n, n_resamples=int(deltas.size), confidence=confidence)


def mcnemar_exact(base: Any, other: Any) -> McNemarResult:
    r"""McNemar's exact test of paired binary outcomes (McNemar 1947).

    With :math:`b` the examples true under ``base`` and false under ``other`` and :math:`c` the
    reverse, the two-sided p-value is the exact binomial test of :math:`b` successes in
    :math:`b + c` trials against 1/2 (``scipy.stats.binomtest``); 1 when no example is discordant.
    For CrowS-Pairs, the outcome is "the stereotyping sentence scored higher" (ties are false), so
    :math:`b` counts the pairs a debiasing method turned away from the stereotype.

    Parameters
    ----------
    base, other : array of bool or {0, 1}
        One outcome per example, in the same order. Examples where either is NaN are left out.

    Returns
    -------
    McNemarResult
        ``b``, ``c``, ``n`` (examples compared) and ``p_value``.
    """
    a, o = np.asarray(base, dtype=float).ravel(), np.asarray(other, dtype=float).ravel()
    if a.shape != o.shape:
        raise InvalidParameterError("other", o.size, f"one outcome per example of base ({a.size})")
    keep = ~(np.isnan(a) | np.isnan(o))
    a, o = a[keep] != 0, o[keep] != 0
    b, c = int((a & ~o).sum()), int((~a & o).sum())
    p_value = float(_scipy_stats.binomtest(b, b + c, 0.5, alternative="two-sided").pvalue) if b + c else 1.0
    return McNemarResult(b=b, c=c, n=int(keep.sum()), p_value=p_value)
