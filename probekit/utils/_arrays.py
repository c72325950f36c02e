"""One-dimensional inputs: validation and integer codes (labels, groups, strata).

Shared by the metric engine (:mod:`probekit.extrinsic`) and the statistics (:mod:`probekit.stats`):
every value is checked once, with an error that names the parameter, and factorized to small
integer codes in sorted order.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError

__all__ = ["as_1d", "factorize", "missing_values_error", "resolve_class", "resolve_group"]


def as_1d(values: Any, name: str) -> np.ndarray:
    """``values`` as a 1-D NumPy array (lists, tuples, arrays, pandas Series and Index accepted)."""
    if isinstance(values, (pd.Series, pd.Index)):
        arr = values.to_numpy()
    elif isinstance(values, pd.DataFrame):
        if values.shape[1] != 1:
            raise InvalidParameterError(name, f"DataFrame with {values.shape[1]} columns", "a 1-D array")
        arr = values.iloc[:, 0].to_numpy()
    else:
        arr = np.asarray(values)
    if arr.ndim == 2 and 1 in arr.shape and arr.size > 0:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise InvalidParameterError(name, f"array of shape {arr.shape}", "a 1-D array (one value per example)")
    if arr.size == 0:
        raise InvalidParameterError(name, "an empty array", "at least one example")
    return arr


def missing_values_error(name: str, mask: np.ndarray) -> InvalidParameterError:
    """The error for the missing values of input ``name``: their count and the first few row numbers (``mask``: True where
    missing).
    """
    rows = np.flatnonzero(mask)
    shown = ", ".join(str(r) for r in rows[:5]) + (", ..." if rows.size > 5 else "")
    return InvalidParameterError(
        name, f"{rows.size} missing value(s) (NaN/None) at row(s) {shown}", "no missing values"
    )


def _factorize_fixed_width(values: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Codes and sorted uniques of a NumPy fixed-width string array without Python objects.

    Each string's code units are hashed into one uint64 (a vectorized polynomial hash), the hashes
    are factorized, and every row is then compared with its group's representative string: on a
    hash collision (never seen in practice) None is returned and the caller falls back to pandas.
    """
    n = values.size
    values = np.ascontiguousarray(values)
    width = values.dtype.itemsize // (4 if values.dtype.kind == "U" else 1)
    if width == 0:
        return None
    units = values.view(np.uint32 if values.dtype.kind == "U" else np.uint8).reshape(n, width)
    h = np.zeros(n, dtype=np.uint64)
    mult = np.uint64(1000003)
    with np.errstate(over="ignore"):
        for j in range(width):
            h = h * mult + units[:, j]
    codes, hashes = pd.factorize(h, sort=False)
    first = np.empty(hashes.size, dtype=np.intp)
    first[codes[::-1]] = np.arange(n - 1, -1, -1)
    uniques = values[first]
    if not np.array_equal(values, uniques[codes]):
        return None
    order = np.argsort(uniques, kind="stable")
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    uniques = np.array(uniques[order].tolist(), dtype=object)  # plain str, as for object input
    return rank[codes], uniques


def factorize(values: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes and sorted unique values of a 1-D array; missing values raise.

    Integer arrays with a compact range use one ``np.bincount`` (linear time); other arrays use
    pandas' hash-based factorization, then sort the uniques.
    """
    kind = values.dtype.kind
    if kind == "b":
        codes = values.astype(np.intp)
        uniques = np.array([False, True])
        present = np.bincount(codes, minlength=2) > 0
        if not present.all():
            uniques = uniques[present]
            codes = np.zeros(values.size, dtype=np.intp)
        return codes, uniques
    if kind in "iu":
        vmin = int(values.min())
        vmax = int(values.max())
        span = vmax - vmin + 1
        if span <= 4 * values.size + 1024:
            shifted = values - vmin if vmin != 0 else values
            present = np.bincount(shifted, minlength=span) > 0
            lookup = np.cumsum(present) - 1
            codes = lookup[shifted].astype(np.intp, copy=False)
            uniques = (np.flatnonzero(present) + vmin).astype(values.dtype)
            return codes, uniques
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.astype(np.intp), uniques
    if kind == "f":
        bad = np.isnan(values)
        if bad.any():
            raise missing_values_error(name, bad)
        uniques, codes = np.unique(values, return_inverse=True)
        return codes.astype(np.intp), uniques
    if kind in "US":
        fast = _factorize_fixed_width(values)
        if fast is not None:
            return fast
    codes, uniques = pd.factorize(values, sort=False, use_na_sentinel=True)
    if (codes < 0).any():
        raise missing_values_error(name, codes < 0)
    uniques = np.asarray(uniques)
    try:
        order = np.argsort(uniques, kind="stable")  # few uniques: sort them, then remap the codes
    except TypeError as exc:
        types = sorted({type(v).__name__ for v in uniques[:1000]})
        raise InvalidParameterError(
            name, f"values of mixed types {types}", "values of one type (all strings or all numbers)"
        ) from exc
    if not np.array_equal(order, np.arange(order.size)):
        rank = np.empty(order.size, dtype=np.intp)
        rank[order] = np.arange(order.size)
        codes = rank[codes]
        uniques = uniques[order]
    if uniques.dtype == object:
        # keep plain Python scalars (str, int) so that JSON and printing stay clean
        uniques = np.array([u.item() if isinstance(u, np.generic) else u for u in uniques], dtype=object)
    return codes.astype(np.intp, copy=False), uniques


def resolve_class(value: Any, classes: np.ndarray, name: str) -> int:
    """Code of the class ``value`` (a label value), or raise naming ``name``."""
    pos = pd.Index(classes).get_indexer([value])[0]
    if pos < 0:
        as_text = [str(c) for c in classes.tolist()]
        if str(value) in as_text:
            return as_text.index(str(value))
        raise InvalidParameterError(name, value, f"one of the classes {classes.tolist()[:20]}")
    return int(pos)


def resolve_group(value: Any, groups: np.ndarray, name: str) -> int:
    """Code of the group ``value``, or raise naming ``name``."""
    pos = pd.Index(groups).get_indexer([value])[0]
    if pos < 0:
        # tolerate "1" for 1 and 1 for "1" (CSV readers and CLIs often disagree on types)
        as_text = [str(g) for g in groups.tolist()]
        if str(value) in as_text:
            return as_text.index(str(value))
        raise InvalidParameterError(name, value, f"one of the groups {groups.tolist()[:20]}")
    return int(pos)
