"""Performance-fairness trade-offs: DTO, AUC-PFC and model selection (Han, Baldwin & Cohn 2023).

Fairness here is "higher is fairer", typically ``1 - aggregated gap`` (see
:func:`probekit.extrinsic.aggregate_disparity`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError

__all__ = ["dto", "pareto_frontier", "auc_pfc", "partial_auc_pfc", "select_model", "SELECTION_CRITERIA"]

SELECTION_CRITERIA = {
    "min_dto": "smallest distance to the utopia point",
    "max_performance": "best performance",
    "max_fairness": "best fairness",
    "max_performance_fairness_gain": "best performance among models whose fairness is at least (1 + threshold) x the baseline's",
    "max_fairness_performance_loss": "best fairness among models whose performance is at least (1 - threshold) x the baseline's",
}


def _pair(performance: Any, fairness: Any) -> tuple[np.ndarray, np.ndarray]:
    p = np.atleast_1d(np.asarray(performance, dtype=float))
    f = np.atleast_1d(np.asarray(fairness, dtype=float))
    if p.ndim != 1 or f.ndim != 1:
        raise InvalidParameterError("performance", f"shape {p.shape}", "a 1-D array (one value per model)")
    if p.shape != f.shape:
        raise InvalidParameterError("fairness", f"length {f.size}", f"length {p.size} (the length of performance)")
    if p.size == 0:
        raise InvalidParameterError("performance", "an empty array", "at least one model")
    if not (np.isfinite(p).all() and np.isfinite(f).all()):
        raise InvalidParameterError("performance", "NaN or infinite values", "finite performance and fairness values")
    return p, f


def dto(performance: Any, fairness: Any, utopia: tuple[float, float] | None = (1.0, 1.0), normalize: bool = False) -> np.ndarray | float:
    r"""Distance to the optimum: :math:`\sqrt{(u_p - p)^2 + (u_f - f)^2}` (Han, Baldwin & Cohn 2023).

    Parameters
    ----------
    performance, fairness : float or array-like
        One value per model (fairness: higher is fairer, e.g. ``1 - gap``).
    utopia : (float, float) or None
        The utopia point; None uses the best performance and the best fairness among the models.
    normalize : bool
        Min-max scale each axis over the models (and scale the utopia point the same way) so that
        axes of different scales weigh the same.

    Returns
    -------
    float or ndarray
    """
    scalar = np.ndim(performance) == 0
    p, f = _pair(performance, fairness)
    u = (p.max(), f.max()) if utopia is None else tuple(float(v) for v in utopia)
    if len(u) != 2:
        raise InvalidParameterError("utopia", utopia, "a pair (performance, fairness)")
    up, uf = u
    if normalize:
        def scale(x: np.ndarray, ref: float) -> tuple[np.ndarray, float]:
            lo, hi = x.min(), x.max()
            span = hi - lo if hi > lo else 1.0
            return (x - lo) / span, (ref - lo) / span

        p, up = scale(p, up)
        f, uf = scale(f, uf)
    out = np.sqrt((up - p) ** 2 + (uf - f) ** 2)
    return float(out[0]) if scalar else out


def pareto_frontier(performance: Any, fairness: Any) -> np.ndarray:
    """Indices of the Pareto-optimal models (no other model at least as good on both axes and better on one),
    sorted by increasing performance.
    """
    p, f = _pair(performance, fairness)
    order = np.lexsort((-f, -p))  # by performance descending, then fairness descending
    keep = []
    best_f = -np.inf
    for i in order:
        if f[i] > best_f:
            keep.append(i)
            best_f = f[i]
    return np.asarray(keep[::-1], dtype=np.intp)


def _area_above(x0: float, y0: float, x1: float, y1: float, c: float) -> float:
    """Exact integral of max(y - c, 0) over a linear segment."""
    a, b = y0 - c, y1 - c
    w = x1 - x0
    if w <= 0:
        return 0.0
    if a >= 0 and b >= 0:
        return 0.5 * (a + b) * w
    if a <= 0 and b <= 0:
        return 0.0
    top = max(a, b)
    return 0.5 * top * w * top / (abs(a) + abs(b))


def partial_auc_pfc(
    performance: Any,
    fairness: Any,
    *,
    random_performance: float = 0.0,
    min_performance: float | None = None,
    min_fairness: float | None = None,
) -> float:
    r"""Partial area under the performance-fairness Pareto curve (Han, Baldwin & Cohn 2023).

    The area of the region where performance >= ``min_performance``, fairness >= ``min_fairness``
    and fairness lies under the Pareto frontier (closed on the left by the anchor point
    (``random_performance``, 1): a random classifier is perfectly fair). Integrated exactly on the
    piecewise-linear frontier (the trapezoid rule).
    """
    p, f = _pair(performance, fairness)
    P = np.r_[float(random_performance), p]
    F = np.r_[1.0, f]
    idx = pareto_frontier(P, F)
    xs, ys = P[idx], F[idx]
    lo = xs[0] if min_performance is None else max(xs[0], float(min_performance))
    c = 0.0 if min_fairness is None else float(min_fairness)
    area = 0.0
    for k in range(xs.size - 1):
        x0, x1, y0, y1 = xs[k], xs[k + 1], ys[k], ys[k + 1]
        if x1 <= lo:
            continue
        if x0 < lo:
            y0 = y0 + (y1 - y0) * (lo - x0) / (x1 - x0)
            x0 = lo
        area += _area_above(x0, y0, x1, y1, c)
    return float(area)


def auc_pfc(performance: Any, fairness: Any, *, random_performance: float = 0.0) -> float:
    r"""Area under the performance-fairness Pareto curve (AUC-PFC; Han, Baldwin & Cohn 2023).

    The Pareto frontier of the (performance, fairness) points of one method across its trade-off
    hyperparameter, closed with the anchor point (``random_performance``, 1), integrated over
    performance with the trapezoid rule. Larger is better.
    """
    return partial_auc_pfc(performance, fairness, random_performance=random_performance)


def select_model(
    performance: Any,
    fairness: Any,
    *,
    criterion: str = "min_dto",
    baseline: tuple[float, float] | None = None,
    threshold: float = 0.05,
    utopia: tuple[float, float] | None = (1.0, 1.0),
    normalize: bool = False,
) -> int:
    """Index of the model chosen by a selection criterion of Han, Baldwin & Cohn (2023).

    Parameters
    ----------
    criterion : str
        One of ``SELECTION_CRITERIA``: 'min_dto', 'max_performance', 'max_fairness',
        'max_performance_fairness_gain' (best performance with fairness >= (1 + threshold) x the
        baseline's; the paper uses 5% and 10%), 'max_fairness_performance_loss' (best fairness with
        performance >= (1 - threshold) x the baseline's).
    baseline : (performance, fairness), optional
        The unmitigated model, needed by the constrained criteria.
    threshold : float
        Relative gain or loss (0.05 = 5%).

    Returns
    -------
    int
        Index of the chosen model (ties: the first). Raises when no model meets a constraint.
    """
    p, f = _pair(performance, fairness)
    if criterion not in SELECTION_CRITERIA:
        raise InvalidParameterError("criterion", criterion, list(SELECTION_CRITERIA))
    if criterion == "min_dto":
        return int(np.argmin(dto(p, f, utopia=utopia, normalize=normalize)))
    if criterion == "max_performance":
        return int(np.lexsort((-f, -p))[0])
    if criterion == "max_fairness":
        return int(np.lexsort((-p, -f))[0])
    if baseline is None or len(baseline) != 2:
        raise InvalidParameterError(
            "baseline", baseline, "(performance, fairness) of the unmitigated model", detail=f"needed by {criterion!r}"
        )
    if not 0 <= threshold < 1:
        raise InvalidParameterError("threshold", threshold, "a relative change in [0, 1)")
    bp, bf = (float(v) for v in baseline)
    if criterion == "max_performance_fairness_gain":
        ok = f >= bf * (1.0 + threshold)
        key = (-f, -p)
    else:
        ok = p >= bp * (1.0 - threshold)
        key = (-p, -f)
    if not ok.any():
        raise InvalidParameterError("threshold", threshold, "a constraint that at least one model meets", detail=criterion)
    candidates = np.flatnonzero(ok)
    order = np.lexsort(tuple(k[candidates] for k in key))
    return int(candidates[order[0]])
