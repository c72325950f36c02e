"""Borkan et al. (2019) threshold-agnostic metrics and the Jigsaw score."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.stats import mannwhitneyu
from sklearn.metrics import roc_auc_score

from probekit.errors import InvalidParameterError
from probekit.extrinsic import (
    UndefinedMetricWarning,
    borkan_metrics,
    borkan_table,
    jigsaw_score,
    literature_metric,
    probability_panel,
)


def sklearn_borkan(y, s, sub):
    y = np.asarray(y).astype(bool)
    bpsn = (~sub & y) | (sub & ~y)
    bnsp = (~sub & ~y) | (sub & y)
    sn, bn, sp, bp = s[sub & ~y], s[~sub & ~y], s[sub & y], s[~sub & y]
    return {
        "subgroup_auc": roc_auc_score(y[sub], s[sub]),
        "bpsn_auc": roc_auc_score(y[bpsn], s[bpsn]),
        "bnsp_auc": roc_auc_score(y[bnsp], s[bnsp]),
        # AEG = 1/2 - MWU(D_g, D)/(|D_g||D|), MWU(X, Y) counting x < y; scipy's U(Y, X) counts y > x
        "negative_aeg": 0.5 - mannwhitneyu(bn, sn).statistic / (sn.size * bn.size),
        "positive_aeg": 0.5 - mannwhitneyu(bp, sp).statistic / (sp.size * bp.size),
    }


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_sklearn_and_scipy_with_ties_and_overlapping_subgroups(seed):
    rng = np.random.default_rng(seed)
    n = 800
    y = rng.random(n) < 0.4
    s = np.round(rng.random(n) + 0.3 * y, 1)  # many ties
    subgroups = pd.DataFrame({"women": rng.random(n) < 0.3, "black": rng.random(n) < 0.2})
    subgroups["black_women"] = subgroups["women"] & subgroups["black"]
    table = borkan_table(y.astype(int), s, subgroups)
    for name in subgroups:
        expected = sklearn_borkan(y, s, subgroups[name].to_numpy())
        for key, value in expected.items():
            assert table.loc[name, key] == pytest.approx(value, abs=1e-12), (name, key)
    one = borkan_metrics(y, s, subgroups["women"])
    assert one["bpsn_auc"] == pytest.approx(table.loc["women", "bpsn_auc"])


def _borkan_case(shift: float = 0.0, sub_neg_mean=None, sub_pos_mean=None, spread: float = 1.0, n: int = 4000, seed: int = 0):
    """Background: negatives N(0, 1), positives N(10, 1); the subgroup is shifted or reshaped."""
    rng = np.random.default_rng(seed)
    neg_mean = shift if sub_neg_mean is None else sub_neg_mean
    pos_mean = 10 + shift if sub_pos_mean is None else sub_pos_mean
    scores = np.concatenate([
        rng.normal(0, 1, n), rng.normal(10, 1, n),
        rng.normal(neg_mean, spread, n), rng.normal(pos_mean, spread, n),
    ])
    y = np.r_[np.zeros(n), np.ones(n), np.zeros(n), np.ones(n)].astype(int)
    sub = np.r_[np.zeros(2 * n, bool), np.ones(2 * n, bool)]
    return borkan_metrics(y, scores, sub)


def test_qualitative_small_right_shift_only_aegs_react():
    m = _borkan_case(shift=1.0)
    assert min(m["subgroup_auc"], m["bpsn_auc"], m["bnsp_auc"]) > 0.99
    assert m["negative_aeg"] > 0.2 and m["positive_aeg"] > 0.2  # Phi(1/sqrt 2) - 1/2 = 0.26


def test_qualitative_large_right_shift_bpsn_drops():
    m = _borkan_case(shift=10.0)
    assert m["bpsn_auc"] == pytest.approx(0.5, abs=0.03)
    assert m["subgroup_auc"] > 0.99 and m["bnsp_auc"] > 0.99
    assert m["negative_aeg"] > 0.45 and m["positive_aeg"] > 0.45


def test_qualitative_left_shift_bnsp_drops_and_aegs_negative():
    m = _borkan_case(shift=-10.0)
    assert m["bnsp_auc"] == pytest.approx(0.5, abs=0.03)
    assert m["subgroup_auc"] > 0.99 and m["bpsn_auc"] > 0.99
    assert m["negative_aeg"] < -0.45 and m["positive_aeg"] < -0.45


def test_qualitative_low_subgroup_separability_subgroup_auc_drops():
    m = _borkan_case(sub_neg_mean=5.0, sub_pos_mean=5.0)
    assert m["subgroup_auc"] == pytest.approx(0.5, abs=0.03)
    assert m["bpsn_auc"] > 0.99 and m["bnsp_auc"] > 0.99


def test_qualitative_wider_spread_equal_means_nothing_reacts():
    m = _borkan_case(spread=2.0)
    assert min(m["subgroup_auc"], m["bpsn_auc"], m["bnsp_auc"]) > 0.98
    assert abs(m["negative_aeg"]) < 0.02 and abs(m["positive_aeg"]) < 0.02


def test_jigsaw_score_against_explicit_formula():
    rng = np.random.default_rng(3)
    n = 500
    y = rng.random(n) < 0.5
    s = rng.random(n) + 0.5 * y
    subs = {"a": rng.random(n) < 0.3, "b": rng.random(n) < 0.4, "c": rng.random(n) < 0.2}
    rows = [sklearn_borkan(y, s, m) for m in subs.values()]

    def power_mean(x, p=-5):
        x = np.asarray(x)
        return np.mean(x**p) ** (1 / p)

    expected = 0.25 * roc_auc_score(y, s) + 0.75 * np.mean(
        [power_mean([r[k] for r in rows]) for k in ("subgroup_auc", "bpsn_auc", "bnsp_auc")]
    )
    assert jigsaw_score(y, s, subs) == pytest.approx(expected, rel=1e-12)


def test_probability_panel_agrees_with_borkan_table_and_literature_metrics():
    rng = np.random.default_rng(4)
    n = 700
    g = rng.integers(0, 3, n)
    y = rng.random(n) < 0.35
    s = np.round(rng.random(n) * 0.5 + 0.1 * g + 0.2 * y, 2)
    panel = probability_panel(s, y, g, 3)
    table = borkan_table(y.astype(int), s, g)
    for key in ("subgroup_auc", "bpsn_auc", "bnsp_auc", "positive_aeg", "negative_aeg"):
        np.testing.assert_allclose(panel[key], table[key].to_numpy(), atol=1e-12)
    assert float(panel["roc_auc"]) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    prob = np.column_stack([1 - s, s])
    avg_gf = literature_metric("avg_gf", y.astype(int), None, g, y_prob=prob).value
    avg_gf_tc = literature_metric("avg_gf_tc", y.astype(int), None, g, y_prob=prob).value
    assert panel["w1_all"].mean() == pytest.approx(avg_gf, rel=1e-10)
    assert panel["w1_tc"].mean() == pytest.approx(avg_gf_tc, rel=1e-10)


def test_undefined_subgroup_warns_and_errors_are_clear():
    y = np.array([1, 1, 0, 0, 1, 0])
    s = np.array([0.9, 0.8, 0.1, 0.3, 0.7, 0.2])
    sub = np.array([True, True, False, False, False, False])  # the subgroup has no negatives
    with pytest.warns(UndefinedMetricWarning, match="subgroup"):
        m = borkan_metrics(y, s, sub)
    assert np.isnan(m["subgroup_auc"]) and np.isnan(m["bpsn_auc"]) and not np.isnan(m["bnsp_auc"])
    with pytest.raises(InvalidParameterError, match="y_true"):
        borkan_metrics([0, 1, 2], [0.1, 0.2, 0.3], [True, False, True])
    with pytest.raises(InvalidParameterError, match="y_score"):
        borkan_metrics([0, 1, 1], [0.1, np.nan, 0.3], [True, False, True])
    with pytest.raises(InvalidParameterError, match="in_subgroup"):
        borkan_metrics([0, 1, 1], [0.1, 0.2, 0.3], [True, False])
