"""The report's probability panel (one bit-key sort per class, classes in threads) against references.

Three references: the straightforward per-class, per-group computation with scikit-learn and SciPy
(independent), the run-based implementation the panel replaced (the numbers must not change: equal
to the last bit), and the report's own columns recomputed by brute force.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.stats import mannwhitneyu, wasserstein_distance
from sklearn.metrics import roc_auc_score

import probekit.extrinsic._panel as panel_mod
from probekit.extrinsic import class_panels, evaluate_predictions, probability_panel, sorted_probability_panel

KEYS = ("subgroup_auc", "bpsn_auc", "bnsp_auc", "positive_aeg", "negative_aeg", "roc_auc", "w1_all", "w1_tc")


def auc(y, s):
    y = np.asarray(y, dtype=bool)
    if y.all() or not y.any():
        return np.nan
    return roc_auc_score(y, s)


def brute_panel(s, y, g, G):
    """Borkan AUCs/AEGs with scikit-learn / SciPy and Wasserstein-1 with SciPy, group by group."""
    out = {k: np.full(G, np.nan) for k in KEYS if k != "roc_auc"}
    for k in range(G):
        sub = g == k
        sp, sn, bp, bn = s[sub & y], s[sub & ~y], s[~sub & y], s[~sub & ~y]
        out["subgroup_auc"][k] = auc(y[sub], s[sub])
        bpsn = (~sub & y) | (sub & ~y)
        bnsp = (~sub & ~y) | (sub & y)
        out["bpsn_auc"][k] = auc(y[bpsn], s[bpsn]) if sn.size and bp.size else np.nan
        out["bnsp_auc"][k] = auc(y[bnsp], s[bnsp]) if sp.size and bn.size else np.nan
        # AEG = U(subgroup over background) / (|X||Y|) - 1/2; scipy's U(x, y) counts x > y, ties 1/2
        if sp.size and bp.size:
            out["positive_aeg"][k] = mannwhitneyu(sp, bp).statistic / (sp.size * bp.size) - 0.5
        if sn.size and bn.size:
            out["negative_aeg"][k] = mannwhitneyu(sn, bn).statistic / (sn.size * bn.size) - 0.5
        if sub.any():
            out["w1_all"][k] = wasserstein_distance(s[sub], s)
        if (sub & y).any():
            out["w1_tc"][k] = wasserstein_distance(s[sub & y], s[y])
    out["roc_auc"] = np.array(auc(y, s))
    return out


def random_case(seed, n, G, decimals=None, pos_rate=0.3):
    rng = np.random.default_rng(seed)
    g = rng.integers(0, G, n)
    y = rng.random(n) < pos_rate
    s = np.clip(rng.random(n) * 0.6 + 0.25 * y + 0.03 * g, 0.0, 1.0)
    if decimals is not None:
        s = np.round(s, decimals)  # ties within and across groups
    return s, y, g


@pytest.mark.parametrize(
    "seed,n,G,decimals",
    [(0, 700, 3, 2), (1, 900, 5, 1), (2, 600, 4, None), (3, 400, 2, 3), (4, 50, 6, 1), (5, 1200, 8, 2)],
)
def test_panel_matches_sklearn_and_scipy_per_group(seed, n, G, decimals):
    s, y, g = random_case(seed, n, G, decimals)
    got = probability_panel(s, y, g, G)
    ref = brute_panel(s, y, g, G)
    for key in KEYS:
        tol = dict(rtol=1e-10, atol=1e-13) if key.startswith("w1") else dict(rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(got[key], ref[key], err_msg=key, **tol)


@pytest.mark.parametrize("seed", range(6))
def test_panel_is_bitwise_the_run_based_reference(seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(2, 3000))
    G = int(rng.integers(2, 9))
    decimals = [None, 1, 2, 3, 4, 6][seed]
    s, y, g = random_case(seed, n, G, decimals, pos_rate=float(rng.uniform(0.02, 0.6)))
    if seed == 5:
        s = s.astype(np.float32).astype(np.float64)  # float32 model outputs: sparse ties
        s[:5] = 0.0
        s[5:10] = 1.0
    got = probability_panel(s, y, g, G)
    ref = sorted_probability_panel(s, y, g, G)
    for key in KEYS:
        np.testing.assert_array_equal(got[key], ref[key], err_msg=key)


def test_degenerate_groups_and_classes():
    # a group with one row, an empty group code, a group without positives, a class with no
    # negatives: the same NaNs and numbers as the reference and the brute force
    s = np.array([0.1, 0.4, 0.4, 0.9, 0.2, 0.7, 0.3, 0.8, 0.8])
    y = np.array([0, 1, 0, 1, 0, 0, 0, 1, 1], dtype=bool)
    g = np.array([0, 0, 0, 0, 1, 1, 1, 3, 3])  # group 2 is empty, group 1 has no positives
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = probability_panel(s, y, g, 4)
        ref = sorted_probability_panel(s, y, g, 4)
        brute = brute_panel(s, y, g, 4)
    for key in KEYS:
        np.testing.assert_array_equal(got[key], ref[key], err_msg=key)
        np.testing.assert_allclose(got[key], brute[key], rtol=1e-12, atol=1e-14, err_msg=key)
    assert np.isnan(got["w1_all"][2]) and np.isnan(got["w1_tc"][1])
    all_pos = probability_panel(s, np.ones(9, dtype=bool), g, 4)
    assert np.isnan(all_pos["roc_auc"]) and np.isnan(all_pos["subgroup_auc"]).all()
    none_pos = probability_panel(s, np.zeros(9, dtype=bool), g, 4)
    assert np.isnan(none_pos["w1_tc"]).all()
    np.testing.assert_array_equal(none_pos["w1_all"], sorted_probability_panel(s, np.zeros(9, bool), g, 4)["w1_all"])


def test_scores_the_bit_keys_cannot_take_use_the_reference(monkeypatch):
    s, y, g = random_case(7, 500, 3, 2)
    calls = []
    real = panel_mod.sorted_probability_panel

    def spy(*args):
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(panel_mod, "sorted_probability_panel", spy)
    probability_panel(s, y, g, 3)
    assert not calls  # ordinary probabilities take the fast path
    for bad in (-0.0, -1e-12, 2.5):
        t = s.copy()
        t[::7] = bad
        got = probability_panel(t, y, g, 3)
        assert calls, bad
        calls.clear()
        ref = brute_panel(t, y, g, 3)
        for key in KEYS:
            np.testing.assert_allclose(got[key], ref[key], rtol=1e-10, atol=1e-12, err_msg=f"{bad} {key}")


def test_class_panels_threads_and_layout_do_not_change_numbers():
    rng = np.random.default_rng(11)
    n, K, G = 4000, 5, 4
    y = rng.integers(0, K, n)
    g = rng.integers(0, G, n)
    prob = rng.dirichlet(np.ones(K), n)
    prob[:, 2] = np.round(prob[:, 2], 2)  # one class with ties
    prob[5, 3] = -0.0  # one class on the reference path
    classes = [4, 0, 2, 3]
    one, sums1 = class_panels(prob, y, g, G, classes, workers=1)
    three, sums3 = class_panels(prob, y, g, G, classes, workers=3)
    np.testing.assert_array_equal(sums1, sums3)
    for k, c in enumerate(classes):
        np.testing.assert_array_equal(sums1[:, k], np.bincount(g, weights=prob[:, c], minlength=G))
        single = probability_panel(prob[:, c], y == c, g, G)
        for key in KEYS:
            np.testing.assert_array_equal(one[k][key], three[k][key], err_msg=key)
            np.testing.assert_array_equal(one[k][key], single[key], err_msg=key)


def test_report_probability_columns_against_brute_force(monkeypatch):
    monkeypatch.setattr(panel_mod, "_MIN_ROWS_FOR_THREADS", 0)  # exercise the threaded path
    rng = np.random.default_rng(12)
    n, K = 3000, 4
    labels = np.array(["a", "b", "c", "d"])
    y = rng.integers(0, K, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, K, n))
    groups = np.array(["f", "m", "x"])[rng.integers(0, 3, n)]
    logits = rng.normal(size=(n, K))
    logits[np.arange(n), p] += 2.0
    prob = np.exp(logits)
    prob /= prob.sum(axis=1, keepdims=True)
    prob = np.round(prob, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = evaluate_predictions(labels[y], labels[p], groups, y_prob=prob, prob_atol=0.01)
    bg = report.by_group
    for c, cls in enumerate(labels):
        s, yc = prob[:, c], y == c
        gi = np.searchsorted(np.array(["f", "m", "x"]), groups)
        ref = brute_panel(s, yc, gi, 3)
        for key in ("subgroup_auc", "bpsn_auc", "bnsp_auc", "positive_aeg", "negative_aeg"):
            np.testing.assert_allclose(bg[(key, cls)].to_numpy(), ref[key], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(
            bg[("mean_prob", cls)].to_numpy(), [s[gi == k].mean() for k in range(3)], rtol=1e-12
        )
        assert report.by_class.loc[cls, "avg_gf"] == pytest.approx(ref["w1_all"].mean(), rel=1e-10)
        assert report.by_class.loc[cls, "avg_gf_tc"] == pytest.approx(ref["w1_tc"].mean(), rel=1e-10)
        assert report.by_class.loc[cls, "roc_auc"] == pytest.approx(float(ref["roc_auc"]), rel=1e-12)
