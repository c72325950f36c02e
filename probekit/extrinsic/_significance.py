"""Significance tests for fairness comparisons.

Czarnowska et al. (2021) advise a Friedman test for more than two groups and a Wilcoxon signed-rank
test for two, on scores averaged per source example (template); a permutation test of a group gap
answers whether an observed TPR/FPR/... difference could come from shuffled group labels.
The generic tests (:class:`TestResult`, :func:`friedman_test`, :func:`wilcoxon_test`) live in
:mod:`probekit.stats`; this module adds their fairness forms on predictions and groups.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.extrinsic._confusion import rate_from_ovr
from probekit.extrinsic._inputs import as_1d, encode_inputs, factorize, resolve_group
from probekit.extrinsic._metric_spec import evaluated_classes
from probekit.stats import TestResult, count_extreme, friedman_test, permutation_p_value, wilcoxon_test

__all__ = ["TestResult", "friedman_test", "wilcoxon_test", "paired_group_test", "permutation_test_gap"]


def paired_group_test(values: Any, source: Any, groups: Any) -> TestResult:
    """Wilcoxon (2 groups) or Friedman (> 2 groups) test on per-source averaged scores.

    Parameters
    ----------
    values : array-like of shape (n,)
        A per-row score (e.g. the probability of the gold class, or 1[correct]).
    source : array-like of shape (n,)
        Source-example id of each row (a template, or the original of a counterfactual).
    groups : array-like of shape (n,)
        Group of each row.

    Sources that lack a group are left out (``details['dropped_sources']``).
    """
    v = as_1d(values, "values").astype(float)
    s_codes, _ = factorize(as_1d(source, "source"), "source")
    g_codes, g_values = factorize(as_1d(groups, "groups"), "groups")
    if not (v.size == s_codes.size == g_codes.size):
        raise InvalidParameterError("source", f"length {s_codes.size}", f"length {v.size} (the length of values)")
    if g_values.size < 2:
        raise InvalidParameterError("groups", g_values.tolist(), "at least two groups")
    J, G = int(s_codes.max()) + 1, g_values.size
    key = s_codes * G + g_codes
    sums = np.bincount(key, weights=v, minlength=J * G).reshape(J, G)
    counts = np.bincount(key, minlength=J * G).reshape(J, G)
    complete = (counts > 0).all(axis=1)
    m = sums[complete] / counts[complete]
    details = {"groups": g_values.tolist(), "dropped_sources": int((~complete).sum())}
    res = wilcoxon_test(m) if G == 2 else friedman_test(m)
    return TestResult(res.test, res.statistic, res.pvalue, res.n, {**res.details, **details})


def permutation_test_gap(
    y_true: Any,
    y_pred: Any,
    groups: Any,
    *,
    metric: str = "tpr",
    group_of_interest: Any = None,
    reference: Any = None,
    pos_label: Any = None,
    labels: Any = None,
    n_permutations: int = 1000,
    alternative: str = "two-sided",
    random_state: int | np.random.Generator | None = None,
) -> TestResult:
    """Permutation test of the gap ``metric(group_of_interest) - metric(reference)``.

    Group labels are shuffled among the rows of the two groups (without replacement: true
    permutations), the gap recomputed each time from bincounts, and the p-value is
    ``(1 + #{|gap_b| >= |gap|}) / (1 + n_permutations)`` (two-sided; one-sided with 'greater' or
    'less'), never exactly 0.
    """
    enc = encode_inputs(y_true, y_pred, groups, labels=labels)
    if alternative not in ("two-sided", "greater", "less"):
        raise InvalidParameterError("alternative", alternative, ["two-sided", "greater", "less"])
    if not (isinstance(n_permutations, (int, np.integer)) and n_permutations >= 1):
        raise InvalidParameterError("n_permutations", n_permutations, "a positive integer")
    if group_of_interest is None and reference is None:
        if enc.n_groups != 2:
            raise InvalidParameterError("group_of_interest", None, f"one of {enc.groups.tolist()[:20]}", detail="name the two groups")
        a, b = 0, 1
    else:
        a = resolve_group(group_of_interest, enc.groups, "group_of_interest")
        b = resolve_group(reference, enc.groups, "reference")
    c = int(evaluated_classes(enc, pos_label=pos_label)[0]) if metric != "accuracy" else 0
    rows = np.flatnonzero((enc.group == a) | (enc.group == b))
    is_a = enc.group[rows] == a
    t, p = enc.y_true[rows], enc.y_pred[rows]
    # cell of each row: 0 tp, 1 fp, 2 fn, 3 tn (one-vs-rest for class c); 4 marks "correct"
    cell = np.where(t == c, np.where(p == c, 0, 2), np.where(p == c, 1, 3))
    correct = (t == p).astype(float)

    def gap(member_a: np.ndarray) -> np.ndarray:
        """Gaps for a (B, m) boolean matrix of group-a memberships."""
        B = member_a.shape[0]
        key = member_a.astype(np.intp) * 4 + cell[None, :]
        flat = (np.arange(B)[:, None] * 8 + key).reshape(-1)
        counts = np.bincount(flat, minlength=B * 8).reshape(B, 2, 4).astype(float)
        ovr = {"tp": counts[..., 0:1], "fp": counts[..., 1:2], "fn": counts[..., 2:3], "tn": counts[..., 3:4]}
        ovr["n"] = counts.sum(axis=-1)
        ovr["correct"] = np.stack([(correct[None, :] * ~member_a).sum(axis=1), (correct[None, :] * member_a).sum(axis=1)], axis=1)
        values, _, _ = rate_from_ovr(ovr, metric)
        values = values[..., 0]
        return values[:, 1] - values[:, 0]

    observed = float(gap(is_a[None, :])[0])
    if not np.isfinite(observed):
        raise InvalidParameterError("metric", metric, "a metric defined for both groups", detail="the observed gap is undefined (0/0)")
    rng = np.random.default_rng(random_state)
    perm_gaps = []
    batch = max(1, min(n_permutations, int(2e7 // max(rows.size, 1))))
    done = 0
    while done < n_permutations:
        size = min(batch, n_permutations - done)
        members = np.stack([rng.permutation(is_a) for _ in range(size)])
        perm_gaps.append(gap(members))
        done += size
    perm = np.concatenate(perm_gaps)
    perm = perm[np.isfinite(perm)]
    extreme = count_extreme(perm, observed, alternative=alternative, tol=1e-12 * max(1.0, abs(observed)))
    pvalue = permutation_p_value(extreme, perm.size)
    return TestResult(
        "permutation", observed, float(pvalue), int(rows.size),
        {"metric": metric, "group_of_interest": enc.groups[a].item() if hasattr(enc.groups[a], "item") else enc.groups[a],
         "reference": enc.groups[b].item() if hasattr(enc.groups[b], "item") else enc.groups[b],
         "n_permutations": int(n_permutations), "n_valid_permutations": int(perm.size), "alternative": alternative},
    )
