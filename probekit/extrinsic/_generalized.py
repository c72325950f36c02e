"""Generalized extrinsic fairness metrics (Czarnowska, Vyas & Shah 2021): one engine for all of them.

A metric is a scoring function ``phi`` applied to sets of examples and a comparison ``d`` between
the scores of those sets, combined in one of four ways over the protected groups T:

* PCM (pairwise):   ``(1/N) sum_{i<j} d(phi(S^ti), phi(S^tj))``, correct N = C(|T|, 2);
* BCM (background): ``(1/N) sum_t d(phi(beta^t), phi(S^t))``, N = |T|;
* VBCM:             the vector ``(d(phi(beta^t), phi(S^t)))_t``;
* MCM (multi-group): ``d(phi(S^t1), ..., phi(S^t|T|))`` with a multivariate d (std, max - min).

Group version: ``S^t`` = examples of group t; background ``beta^t`` = all examples, all examples not in
t, or a named privileged group. Counterfactual version: every example has a source-example id;
``S_j^t`` = the variations of source j in group t; the metric is computed per source and averaged over
sources. Multiclass tasks are handled one-vs-rest per class, then aggregated over classes.

Every set statistic used here is a ratio of additive counts (confusion counts, or sums and counts of
probabilities), so backgrounds, counterfactual sources and bootstrap replicates are sums over a
leading block axis and nothing is computed in a Python loop over examples.
"""

from __future__ import annotations

import logging
from typing import Any, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.extrinsic._aggregation import generalized_mean
from probekit.extrinsic._confusion import (
    PREDICTION_SCORES,
    confusion_tensor,
    ovr_from_confusion,
    ovr_from_rows,
    rate_from_ovr,
)
from probekit.extrinsic._inputs import Encoded, encode_inputs, resolve_group
from probekit.extrinsic._metric_spec import (
    CLASS_INDEPENDENT,
    SET_COMPARISONS,
    MetricResult,
    _check_spec,
    _needs,
    evaluated_classes,
)
from probekit.extrinsic._ranks import auc_from_counts, make_runs, wasserstein_from_cum
from probekit.extrinsic._warnings import warn_undefined
from probekit.utils import check_choice

logger = logging.getLogger(__name__)

__all__ = [
    "generalized_metric",
    "pcm",
    "bcm",
    "vbcm",
    "mcm",
]


# --------------------------------------------------------------------------------------------------
# additive set statistics (leading axis = block: 1 for group metrics, sources for counterfactual)


def _keys(enc: Encoded, counterfactual: bool) -> tuple[np.ndarray, int]:
    if counterfactual:
        J = int(enc.sources.size)
        return enc.source * enc.n_groups + enc.group, J
    return enc.group, 1


def additive_stats(enc: Encoded, phi: str, eval_codes: np.ndarray, counterfactual: bool) -> dict[str, np.ndarray]:
    """Additive statistics of ``phi`` per (block, group, evaluated class)."""
    G, K = enc.n_groups, enc.n_classes
    key, J = _keys(enc, counterfactual)
    if phi in PREDICTION_SCORES:
        if counterfactual:
            ovr = ovr_from_rows(enc.y_true, enc.y_pred, key, J * G, K, eval_codes)
            return {k: v.reshape((J, G) + v.shape[1:]) for k, v in ovr.items()}
        C = confusion_tensor(enc.y_true, enc.y_pred, enc.group, G, K)
        ovr = {k: v[None] for k, v in ovr_from_confusion(C).items()}
        for k in ("tp", "fp", "fn", "tn"):
            ovr[k] = ovr[k][..., eval_codes]
        return ovr
    prob = enc.prob
    n_keys = J * G
    count = np.bincount(key, minlength=n_keys).astype(float).reshape(J, G, 1)
    if phi == "mean_prob_true":
        p_true = prob[np.arange(enc.n), enc.y_true]
        s = np.bincount(key, weights=p_true, minlength=n_keys).reshape(J, G, 1)
        return {"sum": s, "count": count}
    sums = np.stack([np.bincount(key, weights=prob[:, c], minlength=n_keys) for c in eval_codes], axis=-1)
    sums = sums.reshape(J, G, eval_codes.size)
    if phi == "mean_prob":
        return {"sum": sums, "count": np.broadcast_to(count, sums.shape).copy()}
    p_true = prob[np.arange(enc.n), enc.y_true]
    tc_sum = np.bincount(key * K + enc.y_true, weights=p_true, minlength=n_keys * K).reshape(J, G, K)[..., eval_codes]
    tc_cnt = np.bincount(key * K + enc.y_true, minlength=n_keys * K).reshape(J, G, K)[..., eval_codes].astype(float)
    if phi == "mean_prob_tc":
        return {"sum": tc_sum, "count": tc_cnt}
    return {"sum": sums - tc_sum, "count": count - tc_cnt}  # mean_prob_ntc


def background_stats(stats: dict[str, np.ndarray], background: str, b_index: int | None) -> dict[str, np.ndarray]:
    """Statistics of the background set of each group (additive, so sums of group statistics)."""
    out = {}
    for k, v in stats.items():
        total = v.sum(axis=1, keepdims=True)
        if background == "all":
            out[k] = total
        elif background == "rest":
            out[k] = total - v
        else:
            out[k] = v[:, b_index: b_index + 1]
    return out


def phi_values(stats: dict[str, np.ndarray], phi: str, smoothing: float) -> tuple[np.ndarray, np.ndarray, str]:
    """Score values, undefined mask and reason from additive statistics."""
    if phi in PREDICTION_SCORES:
        return rate_from_ovr(stats, phi, smoothing)
    den = stats["count"]
    undefined = den <= 0
    out = np.full(np.broadcast(stats["sum"], den).shape, np.nan)
    np.divide(stats["sum"], den, out=out, where=~undefined)
    return out, np.broadcast_to(undefined, out.shape), "no examples (with the required gold class) in the set"


def _scalar_compare(x: np.ndarray, y: np.ndarray, d: str) -> tuple[np.ndarray, np.ndarray]:
    """``d(x, y)`` elementwise; second value: mask of zero-denominator ratios."""
    x, y = np.broadcast_arrays(x, y)
    if d == "diff":
        return x - y, np.zeros(x.shape, bool)
    if d == "absdiff":
        return np.abs(x - y), np.zeros(x.shape, bool)
    num, den = (x, y) if d == "ratio" else (y, x)
    zero = den == 0
    out = np.full(x.shape, np.nan)
    with np.errstate(invalid="ignore"):
        np.divide(num, den, out=out, where=~zero)
    return out, zero & np.isfinite(num)


def _pairs(T: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    i, j = np.triu_indices(T.size, k=1)
    return T[i], T[j]


def _normalizer(normalization: str | None, n_groups: int) -> float:
    if normalization in (None, "none"):
        return 1.0
    if normalization == "groups":
        return float(n_groups)
    if normalization == "pairs":
        return n_groups * (n_groups - 1) / 2.0
    return n_groups / 2.0


# --------------------------------------------------------------------------------------------------
# set comparisons (Wasserstein-1, AEG) through the rank machinery


def _set_rows(enc: Encoded, phi: str, c: int) -> tuple[np.ndarray | None, np.ndarray]:
    """Rows (mask or None for all) and values of the set score ``phi`` for class code ``c``."""
    prob = enc.prob
    if phi == "prob":
        return None, prob[:, c]
    if phi == "prob_true":
        return None, prob[np.arange(enc.n), enc.y_true]
    mask = enc.y_true == c if phi == "prob_tc" else enc.y_true != c
    return mask, prob[mask, c]


def set_comparisons(
    enc: Encoded,
    phi: str,
    d: str,
    eval_codes: np.ndarray,
    counterfactual: bool,
    comparisons: list[tuple[np.ndarray, np.ndarray]],
) -> tuple[np.ndarray, np.ndarray]:
    """``d(X, Y)`` for each (X weights, Y weights) over groups; shape (blocks, comparisons, classes).

    Second value: mask of comparisons with an empty set.
    """
    G = enc.n_groups
    J = int(enc.sources.size) if counterfactual else 1
    codes = eval_codes if phi != "prob_true" else np.asarray([0])
    out = np.full((J, len(comparisons), codes.size), np.nan)
    empty = np.zeros(out.shape, dtype=bool)
    for k, c in enumerate(codes):
        mask, v = _set_rows(enc, phi, int(c))
        g = enc.group if mask is None else enc.group[mask]
        if v.size == 0:
            empty[:, :, k] = True
            continue
        block = None
        if counterfactual:
            block = enc.source if mask is None else enc.source[mask]
        runs = make_runs(v, block, J)
        cnt = runs.counts(g, G)
        cum, tot = runs.cumulative(cnt)
        gap = runs.gaps() if d == "wasserstein" else None
        for m, (wx, wy) in enumerate(comparisons):
            cum_x, cum_y = cum @ wx, cum @ wy
            tot_x, tot_y = tot @ wx, tot @ wy
            if d == "wasserstein":
                val = wasserstein_from_cum(runs, gap, cum_x, tot_x, cum_y, tot_y)
            else:
                val = auc_from_counts(runs, cnt @ wx, cum_x, tot_x, cnt @ wy, tot_y) - 0.5
            out[:, m, k] = val
            empty[:, m, k] = (tot_x <= 0) | (tot_y <= 0)
    return out, empty


# --------------------------------------------------------------------------------------------------
# the engine


def _block_mean(values: np.ndarray, counterfactual: bool) -> tuple[np.ndarray, np.ndarray]:
    """Average over the block axis (sources), omitting undefined sources; returns (mean, n_defined)."""
    if not counterfactual:
        return values[0], np.isfinite(values[0]).astype(int)
    ok = np.isfinite(values)
    n_ok = ok.sum(axis=0)
    total = np.where(ok, values, 0.0).sum(axis=0)
    out = np.full(total.shape, np.nan)
    np.divide(total, n_ok, out=out, where=n_ok > 0)
    return out, n_ok


def scalar_metric_blocks(
    stats: dict[str, np.ndarray],
    *,
    kind: str,
    phi: str,
    d: str,
    normalization: str | None,
    background: str | None,
    b_index: int | None,
    T: np.ndarray,
    smoothing: float = 0.0,
    warn: tuple[str, list, tuple] | None = None,
) -> np.ndarray:
    """A scalar-phi generalized metric per block from additive statistics (leading axis = block).

    ``stats`` arrays have shape (blocks, groups, classes) (``n``/``correct``: (blocks, groups)).
    The block axis may be counterfactual sources or bootstrap replicates. Returns (blocks, classes),
    or (blocks, |T|, classes) for VBCM. ``warn`` = (metric name, group names, class labels) turns on
    the undefined-value warnings for block 0.
    """
    values, undefined, reason = phi_values(stats, phi, smoothing)
    if warn is not None:
        name, group_names, class_labels = warn
        if undefined[0][T].any():
            warn_undefined(f"{name}: {phi}", undefined[0][T], [group_names[t] for t in T], class_labels, reason, stacklevel=5)
    if kind == "mcm":
        sub = values[:, T, :]
        if d == "std":
            return sub.std(axis=1)
        if d == "range":
            return sub.max(axis=1) - sub.min(axis=1)
        hi = sub.max(axis=1)
        out = np.full(hi.shape, np.nan)
        np.divide(sub.min(axis=1), hi, out=out, where=hi > 0)
        if warn is not None and ((hi == 0) & np.isfinite(hi))[0].any():
            zero_max = ((hi == 0) & np.isfinite(hi))[0][None, :]
            warn_undefined(f"{name} (min/max)", zero_max, ["every group"], class_labels, "every group scores 0", stacklevel=5)
        return out
    if kind == "pcm":
        a, b = _pairs(T)
        res, zero = _scalar_compare(values[:, a, :], values[:, b, :], d)
        if warn is not None and zero[0].any():
            pair_names = [f"{group_names[i]} vs {group_names[j]}" for i, j in zip(a, b)]
            warn_undefined(f"{name} ({d})", zero[0], pair_names, class_labels, "ratio with a zero denominator", stacklevel=5)
        return res.sum(axis=1) / _normalizer(normalization, T.size)
    bstats = background_stats(stats, background, b_index)
    bvalues, bundef, breason = phi_values(bstats, phi, smoothing)
    if warn is not None and bundef[0].any():
        if background == "privileged":
            bnames = [group_names[b_index]]
        else:
            bnames = ["all" if background == "all" else f"rest of {group_names[t]}" for t in range(bundef.shape[1])]
        warn_undefined(f"{name}: {phi} of the background", bundef[0], bnames, class_labels, breason, stacklevel=5)
    res, zero = _scalar_compare(bvalues, values, d)
    res, zero = res[:, T, :], zero[:, T, :]
    if warn is not None and zero[0].any():
        warn_undefined(f"{name} ({d})", zero[0], [group_names[t] for t in T], class_labels, "ratio with a zero denominator", stacklevel=5)
    if kind == "vbcm":
        return res
    return res.sum(axis=1) / _normalizer(normalization, T.size)


def _compared_groups(enc: Encoded, kind: str, background: str | None, background_group: Any) -> tuple[np.ndarray, int | None]:
    """The codes of the compared groups and of the background group (``privileged`` only)."""
    T = np.arange(enc.n_groups)
    b_index = None
    if background == "privileged":
        if background_group is None:
            raise InvalidParameterError(
                "background_group", None, f"one of the groups {enc.groups.tolist()[:20]}",
                detail="background='privileged' needs the name of the background group",
            )
        b_index = resolve_group(background_group, enc.groups, "background_group")
        T = T[T != b_index]
    if T.size < 2 and kind in ("pcm", "mcm"):
        raise InvalidParameterError("groups", enc.groups.tolist(), "at least two compared groups")
    return T, b_index


def _set_comparison_weights(
    G: int, T: np.ndarray, kind: str, background: str | None, b_index: int | None
) -> list[tuple[np.ndarray, np.ndarray]]:
    """(background weights, group weights) over the G groups for each comparison of a set metric:
    every pair for PCM; each group against all, the rest, or the privileged group otherwise.
    """
    if kind == "pcm":
        a, b = _pairs(T)
        return [(np.eye(G)[i], np.eye(G)[j]) for i, j in zip(a, b)]
    comps = []
    for t in T:
        wy = np.eye(G)[t]
        if background == "all":
            wx = np.ones(G)
        elif background == "rest":
            wx = np.ones(G) - wy
        else:
            wx = np.eye(G)[b_index]
        comps.append((wx, wy))
    return comps


def compute_values(
    enc: Encoded,
    *,
    kind: str,
    phi: str,
    d: str,
    normalization: str | None,
    background: str | None,
    background_group: Any = None,
    eval_codes: np.ndarray,
    counterfactual: bool = False,
    smoothing: float = 0.0,
    name: str = "metric",
    cache: dict | None = None,
    warn: bool = True,
) -> tuple[np.ndarray, np.ndarray, tuple]:
    """Raw values of a generalized metric from encoded inputs.

    Returns (values, compared group codes, class labels): values have shape (classes,) or, for
    VBCM, (groups, classes). ``cache`` (a dict reused across calls on the same inputs and classes)
    keeps the additive statistics so that several metrics share one pass over the data.
    """
    normalization, background = _check_spec(kind, phi, d, normalization, background)
    _needs(enc, phi)
    if counterfactual and enc.source is None:
        raise InvalidParameterError("source", None, "source-example ids", detail="the counterfactual version needs them")
    G = enc.n_groups
    T, b_index = _compared_groups(enc, kind, background, background_group)
    if phi in CLASS_INDEPENDENT:
        class_labels: tuple = ("all",)
    else:
        class_labels = tuple(enc.classes[eval_codes].tolist())
    group_names = enc.groups.tolist()
    warn_cells = warn and not counterfactual

    if d in SET_COMPARISONS:
        comps = _set_comparison_weights(G, T, kind, background, b_index)
        vals, empty = set_comparisons(enc, phi, d, eval_codes, counterfactual, comps)
        if warn_cells and empty.any():
            labels = [f"{group_names[i]} vs {group_names[j]}" for i, j in zip(*_pairs(T))] if kind == "pcm" else [
                group_names[t] for t in T
            ]
            warn_undefined(f"{name} ({d})", empty[0], labels, class_labels, "a compared set is empty", stacklevel=4)
        if kind == "vbcm":
            per, _ = _block_mean(vals, counterfactual)
            return per, T, class_labels
        summed = vals.sum(axis=1) / _normalizer(normalization, T.size)
        per, _ = _block_mean(summed[:, None, :], counterfactual)
        return per[0], T, class_labels

    family = "pred" if phi in PREDICTION_SCORES else phi
    key = (family, counterfactual, tuple(eval_codes.tolist()))
    if cache is not None and key in cache:
        stats = cache[key]
    else:
        stats = additive_stats(enc, phi, eval_codes, counterfactual)
        if cache is not None:
            cache[key] = stats
    res = scalar_metric_blocks(
        stats, kind=kind, phi=phi, d=d, normalization=normalization, background=background, b_index=b_index,
        T=T, smoothing=smoothing, warn=(name, group_names, class_labels) if warn_cells else None,
    )
    if kind == "vbcm":
        per, _ = _block_mean(res, counterfactual)
        return per, T, class_labels
    per, _ = _block_mean(res[:, None, :], counterfactual)
    return per[0], T, class_labels


def aggregate_classes(values: np.ndarray, class_power: float, nan_policy: str, name: str, class_labels: tuple) -> float:
    """Generalized mean over classes (last axis) with the NaN policy; a float."""
    values = np.asarray(values, dtype=float)
    if values.size == 1:
        return float(values.reshape(-1)[0])
    if nan_policy == "omit" and np.isnan(values).any() and not np.isnan(values).all():
        left_out = [c for c, v in zip(class_labels, values) if np.isnan(v)]
        logger.info("%s: classes %s are undefined and left out of the class aggregate", name, left_out[:10])
    return float(generalized_mean(values, class_power, nan_policy=nan_policy))


def _warn_cf_undefined(values: np.ndarray, name: str, class_labels: tuple, group_labels: list | None) -> None:
    bad = np.isnan(values)
    if bad.any():
        if values.ndim == 1:
            warn_undefined(name, bad[None, :], ["(every source)"], class_labels, "no source example has a defined value", stacklevel=5)
        else:
            warn_undefined(name, bad, group_labels, class_labels, "no source example has a defined value", stacklevel=5)


def result_from_encoded(
    enc: Encoded,
    *,
    kind: str,
    phi: str,
    d: str,
    normalization: str | None = None,
    background: str | None = None,
    background_group: Any = None,
    eval_codes: np.ndarray,
    counterfactual: bool = False,
    smoothing: float = 0.0,
    class_power: float = 1.0,
    nan_policy: str = "omit",
    name: str | None = None,
    cache: dict | None = None,
    warn: bool = True,
) -> MetricResult:
    """Compute a generalized metric from encoded inputs and wrap it in a :class:`MetricResult`."""
    check_choice(nan_policy, "nan_policy", ("omit", "propagate"))
    normalization, background = _check_spec(kind, phi, d, normalization, background)
    label = name or f"{kind}({phi}, {d})"
    values, T, class_labels = compute_values(
        enc, kind=kind, phi=phi, d=d, normalization=normalization, background=background,
        background_group=background_group, eval_codes=eval_codes, counterfactual=counterfactual,
        smoothing=smoothing, name=label, cache=cache, warn=warn,
    )
    groups = tuple(enc.groups[T].tolist())
    if counterfactual and warn:
        _warn_cf_undefined(values, label, class_labels, list(groups))
    per_group = None
    if kind == "vbcm":
        value = None
        per_group = {g: aggregate_classes(row, class_power, nan_policy, label, class_labels) for g, row in zip(groups, values)}
    else:
        value = aggregate_classes(values, class_power, nan_policy, label, class_labels)
    return MetricResult(
        name=label, kind=kind, version="counterfactual" if counterfactual else "group", phi=phi, d=d,
        normalization=normalization, background=background,
        background_group=background_group if background == "privileged" else None,
        classes=class_labels, groups=groups, values=values, value=value, per_group=per_group,
        class_power=class_power, nan_policy=nan_policy,
        n_sources=int(enc.sources.size) if counterfactual else None,
        parameters={"smoothing": smoothing},
    )


def generalized_metric(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    kind: str,
    phi: str,
    d: str,
    normalization: str | None = None,
    background: str | None = None,
    background_group: Any = None,
    y_prob: Any = None,
    source: Any = None,
    labels: Sequence | None = None,
    pos_label: Any = None,
    classes: Sequence | None = None,
    group_order: Sequence | None = None,
    smoothing: float = 0.0,
    class_power: float = 1.0,
    nan_policy: str = "omit",
    name: str | None = None,
    prob_atol: float = 1e-3,
) -> MetricResult:
    r"""Generalized fairness metric of Czarnowska, Vyas & Shah (2021).

    .. math::

        \mathrm{PCM} = \frac{1}{N}\sum_{\{t_i,t_j\}} d(\phi(S^{t_i}), \phi(S^{t_j})),\quad
        \mathrm{BCM} = \frac{1}{N}\sum_{t} d(\phi(\beta^{t}), \phi(S^{t})),\quad
        \mathrm{VBCM}_t = d(\phi(\beta^{t}), \phi(S^{t})),\quad
        \mathrm{MCM} = d(\phi(S^{t_1}), \dots, \phi(S^{t_{|T|}}))

    Parameters
    ----------
    y_true, y_pred : array-like of shape (n,) or None
        Gold labels and predictions (any hashable values: strings, non-contiguous integers).
        Either may be None when ``phi`` does not need it.
    groups : array-like of shape (n,)
        Protected group of each example.
    kind : {'pcm', 'bcm', 'vbcm', 'mcm'}
    phi : str
        Scoring function: prediction-based ``tpr, recall, fnr, tnr, fpr, precision, f1, accuracy,
        selection_rate`` (one-vs-rest per class, from confusion counts), set scores ``prob`` (f(x, c)),
        ``prob_tc`` (only examples of gold class c: the "TC" variant), ``prob_ntc`` (other gold
        classes), ``prob_true`` (f(x, y(x))), or their means ``mean_prob, mean_prob_tc, mean_prob_ntc,
        mean_prob_true``.
    d : str
        Comparison: ``diff`` (x - y), ``absdiff`` (|x - y|), ``ratio`` (x / y), ``ratio_inv`` (y / x),
        ``wasserstein`` (Wasserstein-1 between set scores), ``aeg`` (1/2 - MWU(Y, X)/(|X||Y|)), and
        for MCM ``std`` (ddof=0), ``range`` (max - min) or ``min_max_ratio`` (min / max). For BCM/VBCM x is the background and y the
        group; for PCM x, y are the groups of each pair in group order (``group_order``).
    normalization : {'none', 'groups', 'pairs', 'half_groups'}, optional
        N for PCM (default 'pairs') and BCM (default 'groups').
    background : {'all', 'rest', 'privileged'}, optional
        Background of BCM/VBCM (default 'all'); 'privileged' uses ``background_group`` and leaves it
        out of the compared groups.
    y_prob : array-like of shape (n, n_classes), optional
        Class probabilities, columns in class order (for two classes a 1-D array of the probability
        of the second class is accepted).
    source : array-like of shape (n,), optional
        Source-example id of each row: computes the counterfactual version (per source, then the
        mean over sources where the metric is defined).
    labels : sequence, optional
        Every class in order (default: sorted union of y_true and y_pred).
    pos_label, classes : optional
        Which classes to report (default: the second class for binary tasks, every class otherwise).
    smoothing : float, default 0
        Added to TP, FP, FN and TN before rates (fairlib uses 1e-5).
    class_power : float, default 1
        Power of the generalized mean over classes (1 = arithmetic mean).
    nan_policy : {'omit', 'propagate'}
        Whether undefined classes are left out of the class aggregate or make it NaN.

    Returns
    -------
    MetricResult

    Notes
    -----
    Undefined values (0/0, e.g. TPR of a group without positives) are NaN and raise an
    :class:`UndefinedMetricWarning` naming the group and class.
    """
    enc = encode_inputs(
        y_true, y_pred, groups, y_prob=y_prob, source=source, labels=labels, group_order=group_order,
        prob_atol=prob_atol,
    )
    eval_codes = evaluated_classes(enc, pos_label=pos_label, classes=classes)
    return result_from_encoded(
        enc, kind=kind, phi=phi, d=d, normalization=normalization, background=background,
        background_group=background_group, eval_codes=eval_codes, counterfactual=source is not None,
        smoothing=smoothing, class_power=class_power, nan_policy=nan_policy, name=name,
    )


def pcm(
    y_true: Any, y_pred: Any, groups: Any, *, phi: str, d: str = "absdiff", normalization: str = "pairs", **kwargs: Any
) -> MetricResult:
    """Pairwise comparison metric: ``(1/N) sum_{i<j} d(phi(S^ti), phi(S^tj))``. See :func:`generalized_metric`."""
    return generalized_metric(y_true, y_pred, groups, kind="pcm", phi=phi, d=d, normalization=normalization, **kwargs)


def bcm(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    phi: str,
    d: str = "absdiff",
    normalization: str = "groups",
    background: str = "all",
    **kwargs: Any,
) -> MetricResult:
    """Background comparison metric: ``(1/N) sum_t d(phi(beta^t), phi(S^t))``. See :func:`generalized_metric`."""
    return generalized_metric(
        y_true, y_pred, groups, kind="bcm", phi=phi, d=d, normalization=normalization, background=background, **kwargs
    )


def vbcm(y_true: Any, y_pred: Any, groups: Any, *, phi: str, d: str = "absdiff", background: str = "all", **kwargs: Any) -> MetricResult:
    """Vector-valued BCM: ``d(phi(beta^t), phi(S^t))`` per group. See :func:`generalized_metric`."""
    return generalized_metric(y_true, y_pred, groups, kind="vbcm", phi=phi, d=d, background=background, **kwargs)


def mcm(y_true: Any, y_pred: Any, groups: Any, *, phi: str, d: str = "std", **kwargs: Any) -> MetricResult:
    """Multi-group comparison metric: ``d(phi(S^t1), ..., phi(S^t|T|))`` with d in {'std', 'range', 'min_max_ratio'}."""
    return generalized_metric(y_true, y_pred, groups, kind="mcm", phi=phi, d=d, **kwargs)
