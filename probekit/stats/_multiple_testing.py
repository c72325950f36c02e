r"""Adjusted p-values over a family of tests: Holm (1979) and Benjamini-Hochberg (1995).

For m p-values sorted ascending, :math:`p_{(1)} \le \dots \le p_{(m)}`:

- Holm's step-down (family-wise error rate):
  :math:`\tilde p_{(i)} = \max_{j \le i} \min(1, (m - j + 1)\, p_{(j)})`;
- Benjamini-Hochberg's step-up (false discovery rate):
  :math:`\tilde p_{(i)} = \min_{j \ge i} \min(1, m\, p_{(j)} / j)`.

NaN p-values (tests that could not be computed) are left out of the family and stay NaN.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError

__all__ = ["holm_adjust", "bh_adjust", "MULTIPLE_TESTING_METHODS", "adjust_p_values"]

#: Names accepted by :func:`adjust_p_values`.
MULTIPLE_TESTING_METHODS = ("holm", "bh")


def _checked(p_values: Any) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p_values, dtype=float).reshape(-1)
    finite = ~np.isnan(p)
    if np.any((p[finite] < 0) | (p[finite] > 1)):
        raise InvalidParameterError("p_values", p[finite][(p[finite] < 0) | (p[finite] > 1)][:3].tolist(),
                                    "probabilities in [0, 1] (or NaN for a test not computed)")
    return p, finite


def _adjust_sorted(p_values: Any, step: Any) -> np.ndarray:
    """The adjustment both procedures share: the m finite p-values sorted ascending, ``step(sorted, m)``
    applied, the result put back in the input order; NaN entries stay NaN and do not count in m.
    """
    p, finite = _checked(p_values)
    out = np.full(p.shape, np.nan)
    values = p[finite]
    if values.size:
        order = np.argsort(values, kind="mergesort")
        adjusted = np.empty(values.size)
        adjusted[order] = step(values[order], values.size)
        out[finite] = adjusted
    return out


def holm_adjust(p_values: Any) -> np.ndarray:
    r"""Holm's (1979) step-down adjusted p-values (family-wise error rate).

    :math:`\tilde p_{(i)} = \max_{j \le i} \min\{1, (m - j + 1) p_{(j)}\}` over the m finite
    p-values sorted ascending; NaN entries stay NaN and do not count in m. Equal to
    ``statsmodels.stats.multitest.multipletests(p, method="holm")[1]``.

    Parameters
    ----------
    p_values : array-like of shape (m,)

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values in the input order.
    """
    return _adjust_sorted(p_values, lambda q, m: np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * q)))


def bh_adjust(p_values: Any) -> np.ndarray:
    r"""Benjamini-Hochberg (1995) step-up adjusted p-values (false discovery rate).

    :math:`\tilde p_{(i)} = \min_{j \ge i} \min\{1, m\, p_{(j)} / j\}` over the m finite p-values
    sorted ascending; NaN entries stay NaN and do not count in m. Equal to
    ``statsmodels.stats.multitest.multipletests(p, method="fdr_bh")[1]``.

    Parameters
    ----------
    p_values : array-like of shape (m,)

    Returns
    -------
    ndarray of shape (m,)
        Adjusted p-values in the input order.
    """
    return _adjust_sorted(p_values, lambda q, m: np.minimum(1.0, np.minimum.accumulate((q * m / np.arange(1, m + 1))[::-1])[::-1]))


def adjust_p_values(p_values: Any, method: str) -> np.ndarray:
    """Adjusted p-values by name: ``"holm"`` (:func:`holm_adjust`) or ``"bh"`` (:func:`bh_adjust`)."""
    if method == "holm":
        return holm_adjust(p_values)
    if method == "bh":
        return bh_adjust(p_values)
    raise InvalidParameterError("method", method, MULTIPLE_TESTING_METHODS)
