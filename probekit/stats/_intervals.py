"""Uncertainty of fairness estimates: Bernstein bounds (Ethayarajh 2020) and bootstrap intervals."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Any, Callable, Iterator

import numpy as np
from scipy import special
from scipy import stats as _scipy_stats

from probekit.errors import InvalidParameterError
from probekit.utils import as_1d, factorize, resolve_group

__all__ = [
    "ConfidenceInterval",
    "bernstein_parameters",
    "bernstein_halfwidth",
    "bernstein_sample_size",
    "bootstrap_ci",
    "bca_interval",
    "multinomial_bootstrap_counts",
    "jackknife_counts",
    "t_interval",
]


# --------------------------------------------------------------------------------------------------
# Bernstein bounds


def _check_bernstein(sigma2: float, gamma: float, rho: float, C: float) -> tuple[float, float, float, float]:
    if not (isinstance(rho, (int, float)) and 0 < rho < 1):
        raise InvalidParameterError("rho", rho, "a confidence level in (0, 1)")
    if not C > 0:
        raise InvalidParameterError("C", C, "the positive upper bound of the cost")
    if not 0 < gamma <= 1:
        raise InvalidParameterError("gamma", gamma, "the smaller group frequency, in (0, 1]")
    if not sigma2 >= 0:
        raise InvalidParameterError("sigma2", sigma2, "a non-negative variance")
    return float(sigma2), float(gamma), float(rho), float(C)


def bernstein_parameters(
    costs: Any, groups: Any, *, group_a: Any = None, group_b: Any = None
) -> dict[str, float]:
    r"""Estimate the quantities of Ethayarajh's (2020) Bernstein bound from per-example costs.

    The amortized disparity of example i is :math:`\delta_i = c_i/\gamma_A` for i in A,
    :math:`-c_i/\gamma_B` for i in B and 0 otherwise, with :math:`\gamma_A, \gamma_B` the group
    frequencies; its mean is :math:`\hat\delta = \bar c_A - \bar c_B`.

    Returns
    -------
    dict
        ``delta`` (estimated disparity), ``sigma2`` (variance of the amortized disparity, ddof=1),
        ``gamma`` (the smaller of the two group frequencies), ``n``.
    """
    c = as_1d(costs, "costs").astype(float)
    g = as_1d(groups, "groups")
    if g.size != c.size:
        raise InvalidParameterError("groups", f"length {g.size}", f"length {c.size} (the length of costs)")
    if not np.isfinite(c).all():
        raise InvalidParameterError("costs", "NaN or infinite values", "finite costs")
    codes, values = factorize(g, "groups")
    if group_a is None and group_b is None:
        if values.size != 2:
            raise InvalidParameterError(
                "group_a", None, f"one of {values.tolist()[:20]}", detail="name the two groups when there are not exactly two"
            )
        a, b = 0, 1
    else:
        a = resolve_group(group_a, values, "group_a")
        b = resolve_group(group_b, values, "group_b")
    n = c.size
    in_a, in_b = codes == a, codes == b
    gamma_a, gamma_b = in_a.mean(), in_b.mean()
    if gamma_a == 0 or gamma_b == 0:
        raise InvalidParameterError("groups", values.tolist(), "both groups present")
    amortized = np.where(in_a, c / gamma_a, 0.0) - np.where(in_b, c / gamma_b, 0.0)
    return {
        "delta": float(amortized.mean()),
        "sigma2": float(amortized.var(ddof=1)) if n > 1 else 0.0,
        "gamma": float(min(gamma_a, gamma_b)),
        "n": float(n),
    }


def bernstein_halfwidth(
    n: int | None = None,
    *,
    sigma2: float | None = None,
    gamma: float | None = None,
    rho: float = 0.95,
    C: float = 1.0,
    costs: Any = None,
    groups: Any = None,
    group_a: Any = None,
    group_b: Any = None,
) -> float:
    r"""Half-width t of the Bernstein confidence interval of a groupwise disparity (Ethayarajh 2020).

    With :math:`L = \log((1-\rho)/2)` and :math:`B = -\frac{2C}{3\gamma} L`,

    .. math:: t = \frac{B + \sqrt{B^2 - 8 n \sigma^2 L}}{2n},

    and the true disparity lies in :math:`[\hat\delta - t, \hat\delta + t]` with confidence
    :math:`\rho`. Worked example of the paper: C = 1, rho = 0.95, gamma = 0.5, sigma2 = 4 and
    n = 3,160 (WinoBias) give t of about 0.0975.

    Parameters
    ----------
    n : int, optional
        Number of examples (default: ``len(costs)``).
    sigma2, gamma : float, optional
        Variance of the amortized per-example disparity and the smaller group frequency; estimated
        with :func:`bernstein_parameters` from ``costs`` and ``groups`` when not given.
    rho : float
        Confidence level.
    C : float
        Upper bound of the per-example cost (costs lie in [0, C]).
    """
    if sigma2 is None or gamma is None:
        if costs is None or groups is None:
            raise InvalidParameterError(
                "sigma2", sigma2, "a variance, or costs= and groups= to estimate sigma2 and gamma from data"
            )
        est = bernstein_parameters(costs, groups, group_a=group_a, group_b=group_b)
        sigma2 = est["sigma2"] if sigma2 is None else sigma2
        gamma = est["gamma"] if gamma is None else gamma
        n = int(est["n"]) if n is None else n
    if n is None or not (isinstance(n, (int, np.integer)) or float(n).is_integer()) or n < 1:
        raise InvalidParameterError("n", n, "a positive number of examples")
    sigma2, gamma, rho, C = _check_bernstein(sigma2, gamma, rho, C)
    n = float(n)
    L = math.log((1.0 - rho) / 2.0)
    B = -(2.0 * C / (3.0 * gamma)) * L
    return (B + math.sqrt(B * B - 8.0 * n * sigma2 * L)) / (2.0 * n)


def bernstein_sample_size(
    delta: float, *, sigma2: float, gamma: float, rho: float = 0.95, C: float = 1.0
) -> int:
    r"""Smallest n whose Bernstein half-width is at most ``delta`` (Ethayarajh 2020).

    Solving :math:`t(n) = \delta` gives :math:`n = (B\delta - 2 L \sigma^2) / \delta^2`. Worked
    example of the paper: C = 1, rho = 0.95, gamma = 0.5, sigma2 = 4, delta = 0.05 need more than
    11,903 examples (this returns 11903).
    """
    if not delta > 0:
        raise InvalidParameterError("delta", delta, "a positive disparity")
    sigma2, gamma, rho, C = _check_bernstein(sigma2, gamma, rho, C)
    L = math.log((1.0 - rho) / 2.0)
    B = -(2.0 * C / (3.0 * gamma)) * L
    n = max(1, math.ceil((B * delta - 2.0 * L * sigma2) / delta**2))
    while bernstein_halfwidth(n, sigma2=sigma2, gamma=gamma, rho=rho, C=C) > delta:
        n += 1
    while n > 1 and bernstein_halfwidth(n - 1, sigma2=sigma2, gamma=gamma, rho=rho, C=C) <= delta:
        n -= 1
    return int(n)


# --------------------------------------------------------------------------------------------------
# t-interval over repeated runs (cross-validation folds, seeds)


def t_interval(values: Any, confidence: float = 0.95) -> dict[str, float]:
    r"""Mean, sample standard deviation and Student-t confidence interval of repeated measurements.

    For values :math:`x_1..x_k` (e.g. one metric over k cross-validation folds, as Tokpo et al.
    2023 report "mean ± margin over folds"): :math:`\bar x \pm t_{(1+c)/2,\,k-1}\, s/\sqrt{k}`
    with :math:`s` the sample standard deviation (ddof=1). NaN values (folds where the metric is
    undefined) are left out and counted in ``n_missing``.

    Parameters
    ----------
    values : array-like of shape (k,)
    confidence : float
        Confidence level in (0, 1).

    Returns
    -------
    dict
        ``mean``, ``std`` (ddof=1), ``margin`` (half-width), ``low``, ``high``, ``n`` (values used),
        ``n_missing``, ``confidence``. With one value the std, margin and bounds are NaN; with none
        everything but the counts is NaN.
    """
    if not 0 < confidence < 1:
        raise InvalidParameterError("confidence", confidence, "a level in (0, 1)")
    x = np.asarray(values, dtype=float).reshape(-1)
    finite = x[~np.isnan(x)]
    k = int(finite.size)
    nan = float("nan")
    mean = float(finite.mean()) if k else nan
    std = float(finite.std(ddof=1)) if k > 1 else nan
    margin = float(_scipy_stats.t.ppf((1.0 + confidence) / 2.0, k - 1) * std / math.sqrt(k)) if k > 1 else nan
    return {
        "mean": mean, "std": std, "margin": margin, "low": mean - margin, "high": mean + margin,
        "n": k, "n_missing": int(x.size - k), "confidence": confidence,
    }


# --------------------------------------------------------------------------------------------------
# bootstrap


@dataclass(frozen=True)
class ConfidenceInterval:
    """A bootstrap confidence interval."""

    estimate: float
    low: float
    high: float
    confidence: float
    method: str
    n_resamples: int
    n_valid: int

    def to_dict(self) -> dict:
        """The interval as a JSON-ready dict (every field)."""
        return asdict(self)


def _norm_ppf(q: np.ndarray | float) -> np.ndarray:
    return special.ndtri(q)


def bca_interval(
    theta_hat: np.ndarray,
    boot: np.ndarray,
    confidence: float,
    method: str,
    jack: np.ndarray | None = None,
    jack_weights: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Percentile or BCa bounds, vectorized over trailing axes.

    ``boot`` has shape (B, ...); ``jack`` (m, ...) are jackknife values with optional weights
    (m,) (how many left-out examples share each value). NaN replicates are ignored.
    Returns (low, high, number of valid replicates).
    """
    alpha = (1.0 - confidence) / 2.0
    boot = np.asarray(boot, dtype=float)
    theta_hat = np.asarray(theta_hat, dtype=float)
    valid = np.isfinite(boot)
    n_valid = valid.sum(axis=0)
    if method == "percentile":
        lo_q = np.full(theta_hat.shape, alpha)
        hi_q = np.full(theta_hat.shape, 1.0 - alpha)
    else:
        less = np.where(valid, boot < theta_hat, False).sum(axis=0)
        less_eq = np.where(valid, boot <= theta_hat, False).sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            z0 = _norm_ppf((less + less_eq) / 2.0 / np.maximum(n_valid, 1))
            w = np.ones(jack.shape[0]) if jack_weights is None else np.asarray(jack_weights, dtype=float)
            w = w.reshape((-1,) + (1,) * (jack.ndim - 1))
            jv = np.where(np.isfinite(jack), jack, 0.0)
            wj = np.where(np.isfinite(jack), w, 0.0)
            mean = (wj * jv).sum(axis=0) / wj.sum(axis=0)
            dev = np.where(np.isfinite(jack), mean - jv, 0.0)
            num = (wj * dev**3).sum(axis=0)
            den = 6.0 * ((wj * dev**2).sum(axis=0)) ** 1.5
            a = np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)
            z_lo, z_hi = _norm_ppf(alpha), _norm_ppf(1.0 - alpha)
            lo_q = special.ndtr(z0 + (z0 + z_lo) / (1.0 - a * (z0 + z_lo)))
            hi_q = special.ndtr(z0 + (z0 + z_hi) / (1.0 - a * (z0 + z_hi)))
        lo_q = np.where(np.isfinite(lo_q), lo_q, alpha)
        hi_q = np.where(np.isfinite(hi_q), hi_q, 1.0 - alpha)
    flat_boot = boot.reshape(boot.shape[0], -1)
    lo_flat, hi_flat = lo_q.reshape(-1), hi_q.reshape(-1)
    low = np.full(lo_flat.shape, np.nan)
    high = np.full(hi_flat.shape, np.nan)
    for k in range(flat_boot.shape[1]):
        col = flat_boot[:, k]
        col = col[np.isfinite(col)]
        if col.size:
            low[k] = np.quantile(col, lo_flat[k])
            high[k] = np.quantile(col, hi_flat[k])
    return low.reshape(theta_hat.shape), high.reshape(theta_hat.shape), n_valid


def bootstrap_ci(
    statistic: Callable[..., float],
    *arrays: Any,
    strata: Any = None,
    n_resamples: int = 1000,
    confidence: float = 0.95,
    method: str = "percentile",
    random_state: int | np.random.Generator | None = None,
    max_jackknife: int = 2000,
) -> ConfidenceInterval:
    """Bootstrap confidence interval of any statistic of paired arrays.

    Parameters
    ----------
    statistic : callable
        ``statistic(*resampled_arrays) -> float``.
    *arrays : array-like
        Arrays of equal length, resampled by the same row indices.
    strata : array-like, optional
        Stratum (e.g. group) of each row: rows are resampled within strata, keeping stratum sizes.
    n_resamples : int
    confidence : float
    method : {'percentile', 'bca'}
        BCa (Efron 1987) uses a leave-one-out jackknife for the acceleration when n <= ``max_jackknife``,
        else a delete-block jackknife over ``max_jackknife`` random blocks.
    random_state : int or Generator, optional
        Seed; the same seed gives the same interval.

    Returns
    -------
    ConfidenceInterval
        Replicates where the statistic is undefined (NaN) are left out; ``n_valid`` counts the rest.
    """
    if method not in ("percentile", "bca"):
        raise InvalidParameterError("method", method, ["percentile", "bca"])
    if not 0 < confidence < 1:
        raise InvalidParameterError("confidence", confidence, "a level in (0, 1)")
    if not (isinstance(n_resamples, (int, np.integer)) and n_resamples >= 1):
        raise InvalidParameterError("n_resamples", n_resamples, "a positive integer")
    if not arrays:
        raise InvalidParameterError("arrays", "none", "at least one array to resample")
    data = [np.asarray(a) for a in arrays]
    n = data[0].shape[0]
    for k, a in enumerate(data):
        if a.shape[0] != n:
            raise InvalidParameterError(f"arrays[{k}]", f"length {a.shape[0]}", f"length {n}")
    rng = np.random.default_rng(random_state)
    theta_hat = float(statistic(*data))
    if strata is None:
        strata_idx = [np.arange(n)]
    else:
        s = as_1d(strata, "strata")
        if s.size != n:
            raise InvalidParameterError("strata", f"length {s.size}", f"length {n}")
        codes, _ = factorize(s, "strata")
        order = np.argsort(codes, kind="stable")
        bounds = np.flatnonzero(np.diff(codes[order])) + 1
        strata_idx = np.split(order, bounds)
    boot = np.empty(n_resamples)
    for b in range(n_resamples):
        idx = np.concatenate([part[rng.integers(0, part.size, part.size)] for part in strata_idx])
        boot[b] = statistic(*[a[idx] for a in data])
    jack = None
    if method == "bca":
        if n <= max_jackknife:
            keep = np.ones(n, dtype=bool)
            jack = np.empty(n)
            for i in range(n):
                keep[i] = False
                jack[i] = statistic(*[a[keep] for a in data])
                keep[i] = True
        else:
            blocks = np.array_split(rng.permutation(n), max_jackknife)
            jack = np.empty(len(blocks))
            keep = np.ones(n, dtype=bool)
            for i, blk in enumerate(blocks):
                keep[blk] = False
                jack[i] = statistic(*[a[keep] for a in data])
                keep[blk] = True
    low, high, n_valid = bca_interval(np.asarray(theta_hat), boot, confidence, method, jack)
    return ConfidenceInterval(
        estimate=theta_hat, low=float(low), high=float(high), confidence=confidence, method=method,
        n_resamples=int(n_resamples), n_valid=int(n_valid),
    )


# --------------------------------------------------------------------------------------------------
# bootstrap of confusion counts (the report's intervals)


def multinomial_bootstrap_counts(C: np.ndarray, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    """Bootstrap replicates of per-group confusion counts ``C[g, t, p]``, shape (B, G, K, K).

    Resampling the rows of group g with replacement is the same as drawing its cells from a
    multinomial with the observed cell frequencies: this is the stratified (by group) row bootstrap
    at the cost of G multinomial draws per replicate instead of n index draws.
    """
    G, K, _ = C.shape
    out = np.zeros((n_resamples, G, K * K))
    for g in range(G):
        flat = C[g].reshape(-1).astype(float)
        total = int(flat.sum())
        if total:
            out[:, g, :] = rng.multinomial(total, flat / total, size=n_resamples)
    return out.reshape(n_resamples, G, K, K)


def jackknife_counts(C: np.ndarray, chunk: int = 256) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Leave-one-out confusion tensors: one per non-empty cell, weighted by the cell's count.

    Removing any one example of cell (g, t, p) gives the same tensor, so the n-example jackknife
    has at most G K^2 distinct values. Yields chunks (tensors (m, G, K, K), weights (m,)).
    """
    cells = np.argwhere(C > 0)
    for start in range(0, len(cells), chunk):
        part = cells[start: start + chunk]
        reps = np.repeat(C[None].astype(float), len(part), axis=0)
        reps[np.arange(len(part)), part[:, 0], part[:, 1], part[:, 2]] -= 1
        yield reps, C[tuple(part.T)].astype(float)
