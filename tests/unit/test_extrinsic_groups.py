"""k-group gaps and intersections: parity with fairlearn's MetricFrame with two sensitive features
(1M seeded rows), the gap family against brute force, minimum cell sizes, and the bootstrap."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import MetricFrame, selection_rate

from probekit.errors import InvalidParameterError
from probekit.extrinsic import UndefinedMetricWarning, group_gaps, group_metric_frame, intersectional_gaps


def _tpr(y_true, y_pred):
    return np.mean(y_pred[y_true == 1] == 1)


def _fpr(y_true, y_pred):
    return np.mean(y_pred[y_true == 0] == 1)


def _accuracy(y_true, y_pred):
    return np.mean(y_true == y_pred)


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    gender = rng.choice(np.array(["female", "male"]), n)
    race = rng.choice(np.array(["asian", "black", "latino", "white"]), n, p=[0.1, 0.2, 0.2, 0.5])
    y = rng.integers(0, 2, n)
    flip = rng.random(n) < np.where(race == "black", 0.3, 0.15) + np.where(gender == "female", 0.05, 0.0)
    return y, np.where(flip, 1 - y, y), gender, race


def _assert_parity(frame, ours, metrics):
    by_group = ours.by_group[list(metrics)]
    assert list(frame.by_group.index) == list(by_group.index)
    assert frame.by_group.index.names == by_group.index.names
    np.testing.assert_allclose(frame.by_group.to_numpy(float), by_group.to_numpy(float), rtol=0, atol=1e-12)
    np.testing.assert_allclose(frame.overall.to_numpy(float), ours.overall[list(metrics)].to_numpy(float), atol=1e-12)
    for method in ("between_groups", "to_overall"):
        np.testing.assert_allclose(frame.difference(method=method).to_numpy(float),
                                   ours.difference(method)[list(metrics)].to_numpy(float), rtol=0, atol=1e-12)
        np.testing.assert_allclose(frame.ratio(method=method).to_numpy(float),
                                   ours.ratio(method)[list(metrics)].to_numpy(float), rtol=0, atol=1e-12)


def test_parity_with_fairlearn_two_sensitive_features_1m_rows():
    y, p, gender, race = _data(1_000_000)
    features = {"gender": gender, "race": race}
    ours = group_metric_frame(y, p, features)
    frame = MetricFrame(metrics={"selection_rate": selection_rate, "tpr": _tpr}, y_true=y, y_pred=p,
                        sensitive_features=pd.DataFrame(features))
    _assert_parity(frame, ours, ("selection_rate", "tpr"))
    # the other rates on fewer rows (fairlearn's per-group Python costs seconds per metric at 1M)
    y, p, gender, race = _data(100_000, seed=1)
    ours = group_metric_frame(y, p, {"gender": gender, "race": race})
    frame = MetricFrame(metrics={"fpr": _fpr, "accuracy": _accuracy}, y_true=y, y_pred=p,
                        sensitive_features=pd.DataFrame({"gender": gender, "race": race}))
    _assert_parity(frame, ours, ("fpr", "accuracy"))


def test_gap_family_against_brute_force():
    y, p, _, race = _data(5000, seed=3)
    gaps = group_gaps(y, p, race, score="tpr", n_bootstrap=200, random_state=0, attribute="race")
    assert gaps.to_dict()["attribute"] == "race"
    groups = sorted(set(race))
    rates = {g: _tpr(y[race == g], p[race == g]) for g in groups}
    overall = _tpr(y, p)
    assert gaps.table["rate"].to_dict() == pytest.approx(rates, abs=1e-12)
    assert gaps.overall == pytest.approx(overall, abs=1e-12)
    assert gaps.max_gap.estimate == pytest.approx(max(rates.values()) - min(rates.values()), abs=1e-12)
    rms = np.sqrt(np.mean([(rates[g] - overall) ** 2 for g in groups]))
    assert gaps.rms_gap.estimate == pytest.approx(rms, abs=1e-12)
    expected_pairs = [(a, b, rates[a] - rates[b]) for a, b in itertools.combinations(groups, 2)]
    got = list(zip(gaps.pairwise["group_a"], gaps.pairwise["group_b"], gaps.pairwise["gap"]))
    assert [(a, b) for a, b, _ in got] == [(a, b) for a, b, _ in expected_pairs]
    np.testing.assert_allclose([x for *_, x in got], [x for *_, x in expected_pairs], atol=1e-12)
    # Bonferroni over the 6 pairs
    assert gaps.pairwise_confidence == pytest.approx(1 - 0.05 / 6)
    # black has the planted extra error rate: its gaps to the others are found
    found = gaps.pairwise[gaps.pairwise["excludes_zero"]]
    assert any("black" in (a, b) for a, b in zip(found["group_a"], found["group_b"]))


def test_bootstrap_matches_a_row_bootstrap_in_distribution():
    """The multinomial replicate is the stratified row bootstrap: same spread as resampling rows."""
    y, p, _, race = _data(3000, seed=4)
    gaps = group_gaps(y, p, race, score="selection_rate", n_bootstrap=2000, random_state=1)
    rng = np.random.default_rng(2)
    groups = sorted(set(race))
    idx = {g: np.flatnonzero(race == g) for g in groups}
    boot = []
    for _ in range(2000):
        rates = [np.mean(p[rng.choice(idx[g], idx[g].size)] == 1) for g in groups]
        boot.append(max(rates) - min(rates))
    low, high = np.quantile(boot, [0.025, 0.975])
    assert gaps.max_gap.low == pytest.approx(low, abs=0.01)
    assert gaps.max_gap.high == pytest.approx(high, abs=0.01)


def test_intersections_with_a_minimum_cell_size():
    y, p, gender, race = _data(2000, seed=5)
    with pytest.warns(UndefinedMetricWarning, match="intersection cells below"):
        report = intersectional_gaps(y, p, gender, race, names=("gender", "race"), min_cell_size=150,
                                     n_bootstrap=100)
    sizes = pd.crosstab(gender, race)
    small = {(g, r): int(sizes.loc[g, r]) for g in sizes.index for r in sizes.columns if sizes.loc[g, r] < 150}
    assert small and dict(report.small_cells["n"]) == small
    table = report.intersection.table
    assert len(table) == 8 and set(table.index[~table["included"]]) == set(small)
    left_out = {c for pair in zip(report.intersection.pairwise["group_a"], report.intersection.pairwise["group_b"])
                for c in pair}
    assert not left_out & set(small)
    kept = 8 - len(small)
    family = 1 + 6 + kept * (kept - 1) // 2
    assert report.intersection.pairwise_confidence == pytest.approx(1 - 0.05 / family)
    assert report.marginal["race"].pairwise_confidence == pytest.approx(1 - 0.05 / family)
    assert set(report.detected()) == {"gender", "race", "intersection"}
    assert report.marginal["race"].attribute == "race" and report.intersection.attribute == "gender x race"
    assert report.to_dict()["small_cells"]


def test_empty_cell_is_reported():
    y = np.array([0, 1] * 50)
    p = y.copy()
    a = np.array(["x"] * 50 + ["y"] * 50)
    b = np.array(["u"] * 50 + ["v"] * 50)  # cells (x, v) and (y, u) are empty
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMetricWarning)
        report = intersectional_gaps(y, p, a, b, min_cell_size=1, n_bootstrap=10)
    assert dict(report.small_cells["n"]) == {("x", "v"): 0, ("y", "u"): 0}


def test_errors():
    y, p, _, race = _data(100)
    with pytest.raises(InvalidParameterError, match="score"):
        group_gaps(y, p, race, score="auc")
    with pytest.raises(InvalidParameterError, match="min_group_size"):
        group_gaps(y, p, race, min_group_size=0)
    with pytest.raises(InvalidParameterError, match="pos_label"):
        group_gaps(y, p, race, pos_label=7)
    with pytest.raises(InvalidParameterError, match="sensitive_features"):
        group_metric_frame(y, p, race)
