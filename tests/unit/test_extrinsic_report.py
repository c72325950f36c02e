"""``evaluate_predictions``: against fairlearn, brute force and the conventions of the paper."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

from probekit.errors import InvalidParameterError
from probekit.extrinsic import ExtrinsicReport, UndefinedMetricWarning, confusion_counts, evaluate_predictions

fairlearn_metrics = pytest.importorskip("fairlearn.metrics")


def binary_task(seed: int, n: int = 3000, groups=("female", "male", "other")):
    rng = np.random.default_rng(seed)
    g = np.asarray(groups, dtype=object)[rng.integers(0, len(groups), n)]
    y = (rng.random(n) < 0.4).astype(int)
    flip = rng.random(n) < np.where(g == groups[0], 0.1, 0.25)
    p = np.where(flip, 1 - y, y)
    s = np.clip(0.5 + 0.35 * (2 * p - 1) + rng.normal(0, 0.1, n), 0, 1)
    return y, p, g, s


def test_per_group_rates_difference_and_ratio_match_fairlearn():
    from sklearn.metrics import accuracy_score, f1_score, precision_score

    y, p, g, _ = binary_task(0)
    fns = {
        "tpr": fairlearn_metrics.true_positive_rate,
        "fpr": fairlearn_metrics.false_positive_rate,
        "tnr": fairlearn_metrics.true_negative_rate,
        "fnr": fairlearn_metrics.false_negative_rate,
        "selection_rate": fairlearn_metrics.selection_rate,
        "accuracy": accuracy_score,
        "precision": precision_score,
        "f1": f1_score,
    }
    mf = fairlearn_metrics.MetricFrame(metrics=fns, y_true=y, y_pred=p, sensitive_features=g)
    report = evaluate_predictions(y, p, g)
    for name in fns:
        np.testing.assert_allclose(report.by_group[name].to_numpy(), mf.by_group[name].reindex(report.by_group.index).to_numpy(), rtol=1e-12)
    cc = confusion_counts(y, p, g)
    for name in ("tpr", "fpr", "selection_rate", "accuracy"):
        assert cc.difference(name)[1] == pytest.approx(mf.difference()[name], rel=1e-12)
        assert cc.ratio(name)[1] == pytest.approx(mf.ratio()[name], rel=1e-12)
        assert cc.difference(name, method="to_overall")[1] == pytest.approx(mf.difference(method="to_overall")[name], rel=1e-12)
        assert cc.ratio(name, method="to_overall")[1] == pytest.approx(mf.ratio(method="to_overall")[name], rel=1e-12)
    m = report.metrics
    assert m["demographic_parity_difference"] == pytest.approx(fairlearn_metrics.demographic_parity_difference(y, p, sensitive_features=g))
    assert m["demographic_parity_ratio"] == pytest.approx(fairlearn_metrics.demographic_parity_ratio(y, p, sensitive_features=g))
    assert m["equalized_odds_difference"] == pytest.approx(fairlearn_metrics.equalized_odds_difference(y, p, sensitive_features=g))
    assert m["equalized_odds_ratio"] == pytest.approx(fairlearn_metrics.equalized_odds_ratio(y, p, sensitive_features=g))


def test_tprd_fprd_female_minus_male_and_explicit_choice():
    y, p, g, _ = binary_task(1, groups=("F", "M"))
    report = evaluate_predictions(y, p, g)
    tpr = lambda grp: ((p == 1) & (y == 1) & (g == grp)).sum() / ((y == 1) & (g == grp)).sum()  # noqa: E731
    fpr = lambda grp: ((p == 1) & (y == 0) & (g == grp)).sum() / ((y == 0) & (g == grp)).sum()  # noqa: E731
    assert report.metrics["tprd[1]"] == pytest.approx(tpr("F") - tpr("M"))
    assert report.metrics["fprd[1]"] == pytest.approx(fpr("F") - fpr("M"))
    assert report.metrics["tprd"] == pytest.approx(abs(tpr("F") - tpr("M")))
    assert report.settings["group_of_interest"] == "F" and "female minus male" in report.settings["comparison"]
    flipped = evaluate_predictions(y, p, g, group_of_interest="M", reference="F")
    assert flipped.metrics["tprd[1]"] == pytest.approx(-report.metrics["tprd[1]"])
    only_one = evaluate_predictions(y, p, g, reference="F")
    assert only_one.settings["group_of_interest"] == "M"


def test_ambiguous_two_groups_use_sorted_order_and_say_so():
    y, p, g, _ = binary_task(2, groups=("b", "a"))
    report = evaluate_predictions(y, p, g)
    assert report.settings["group_of_interest"] == "a" and report.settings["reference"] == "b"
    assert "sorted order" in report.settings["comparison"]
    assert any("sorted order" in note for note in report.notes)


def test_more_than_two_groups_need_names_for_tprd():
    y, p, g, _ = binary_task(3)
    report = evaluate_predictions(y, p, g)
    assert "tprd" not in report.metrics and any("tprd" in note for note in report.notes)
    named = evaluate_predictions(y, p, g, group_of_interest="female", reference="male")
    assert "tprd" in named.metrics
    with pytest.raises(InvalidParameterError, match="reference"):
        evaluate_predictions(y, p, g, group_of_interest="female")
    with pytest.raises(InvalidParameterError, match="group_of_interest"):
        evaluate_predictions(y, p, g, group_of_interest="nobody", reference="male")


def test_multiclass_report_by_class_and_group():
    rng = np.random.default_rng(4)
    n, K = 2000, 4
    labels = np.array(["nurse", "surgeon", "lawyer", "poet"], dtype=object)
    y = rng.integers(0, K, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, K, n))
    g = np.where(rng.random(n) < 0.5, "f", "m")
    report = evaluate_predictions(labels[y], labels[p], g)
    assert isinstance(report.by_group.columns, pd.MultiIndex)
    assert list(report.by_class.index) == sorted(labels)
    for cls in labels:
        c = list(labels).index(cls)
        tpr_f = ((p == c) & (y == c) & (g == "f")).sum() / ((y == c) & (g == "f")).sum()
        tpr_m = ((p == c) & (y == c) & (g == "m")).sum() / ((y == c) & (g == "m")).sum()
        assert report.by_group.loc["f", ("tpr", cls)] == pytest.approx(tpr_f)
        assert report.metrics[f"tprd[{cls}]"] == pytest.approx(tpr_f - tpr_m)
    expected = np.mean([abs(report.metrics[f"tprd[{c}]"]) for c in labels])
    assert report.metrics["tprd"] == pytest.approx(expected)
    assert report.by_group.loc["f", ("n", "all")] == (g == "f").sum()


def test_probability_metrics_present_with_y_prob():
    y, p, g, s = binary_task(5, groups=("f", "m"))
    report = evaluate_predictions(y, p, g, y_prob=s)
    for name in ("avg_gf", "avg_gf_tc", "roc_auc", "jigsaw_score", "max_abs_positive_aeg"):
        assert np.isfinite(report.metrics[name])
    for col in ("subgroup_auc", "bpsn_auc", "bnsp_auc", "positive_aeg", "negative_aeg", "mean_prob"):
        assert col in report.by_group.columns
    from probekit.extrinsic import borkan_metrics

    m = borkan_metrics(y, s, g == "f")  # the same numbers (and sign convention) as the Borkan function
    assert report.by_group.loc["f", "positive_aeg"] == pytest.approx(m["positive_aeg"])


def test_counterfactual_metrics():
    rng = np.random.default_rng(6)
    J = 300
    src = np.repeat(np.arange(J), 2)
    g = np.tile(["f", "m"], J)
    y = np.repeat(rng.integers(0, 2, J), 2)
    s = np.clip(rng.random(2 * J), 0, 1)
    p = (s > 0.5).astype(int)
    report = evaluate_predictions(y, p, g, y_prob=s, source=src)
    p_true = np.where(y == 1, s, 1 - s).reshape(J, 2)
    assert report.metrics["cf"] == pytest.approx(np.mean(np.abs(p_true[:, 0] - p_true[:, 1])))
    assert report.tests["counterfactual"]["test"] == "wilcoxon"
    hard = evaluate_predictions(y, p, g, source=src)
    correct = (p == y).reshape(J, 2)
    assert hard.metrics["cf"] == pytest.approx(np.mean(correct[:, 0] != correct[:, 1]))
    assert any("hard predictions" in note for note in hard.notes)


def test_json_is_strict_and_carries_provenance(tmp_path):
    y = [1, 0, 1, 0, 0, 0]
    p = [1, 0, 0, 1, 0, 1]
    g = ["f", "f", "f", "m", "m", "m"]  # m has no positives: TPR undefined
    with pytest.warns(UndefinedMetricWarning, match="group 'm' class 1"):
        report = evaluate_predictions(y, p, g, n_bootstrap=50, random_state=0)
    assert np.isnan(report.by_group.loc["m", "tpr"])
    text = report.to_json(tmp_path / "r.json")

    def no_constants(name):
        raise AssertionError(f"non-strict JSON constant {name}")

    data = json.loads(text, parse_constant=no_constants)
    assert json.loads((tmp_path / "r.json").read_text(), parse_constant=no_constants) == data
    assert data["by_group"]["m"]["tpr"] is None
    assert data["provenance"]["parameters"]["groups"] == ["f", "m"]
    assert data["provenance"]["probekit_version"]
    assert set(data["confidence_intervals"]) <= set(data["metrics"])
    frame = report.to_frame()
    assert list(frame.columns) == ["value", "ci_low", "ci_high"] and "fped" in frame.index
    assert isinstance(report, ExtrinsicReport)


def test_bootstrap_intervals_are_reproducible_and_cover_estimates():
    y, p, g, _ = binary_task(7, groups=("f", "m"))
    a = evaluate_predictions(y, p, g, n_bootstrap=300, random_state=3)
    b = evaluate_predictions(y, p, g, n_bootstrap=300, random_state=3)
    assert a.confidence_intervals == b.confidence_intervals
    ci = a.confidence_intervals["tprd[1]"]
    assert ci["low"] <= a.metrics["tprd[1]"] <= ci["high"]
    bca = evaluate_predictions(y, p, g, n_bootstrap=300, random_state=3, bootstrap_method="bca")
    assert bca.confidence_intervals["accuracy"]["method"] == "bca"


def test_invariance_to_row_order_and_group_names():
    y, p, g, s = binary_task(8, groups=("f", "m"))
    perm = np.random.default_rng(0).permutation(y.size)
    a = evaluate_predictions(y, p, g, y_prob=s)
    b = evaluate_predictions(y[perm], p[perm], g[perm], y_prob=s[perm])
    renamed = np.where(g == "f", "female", "male")
    c = evaluate_predictions(y, p, renamed, y_prob=s)
    for name, value in a.metrics.items():
        assert b.metrics[name] == pytest.approx(value, abs=1e-12)
        assert c.metrics[name] == pytest.approx(value, abs=1e-12)


@pytest.mark.parametrize(
    "kwargs,match",
    [
        (dict(y_true=[0, 1, 1], y_pred=[0, 1], groups=["a", "b", "a"]), "y_pred"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1, 1], groups=["a", "a", "a"]), "single group"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1, 1], groups=["a", None, "b"]), "groups"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1, 1], groups=["a", "b", "b"], y_prob=[0.2, np.nan, 0.9]), "y_prob"),
        (dict(y_true=[0, 1, 2], y_pred=[0, 1, 1], groups=["a", "b", "b"], y_prob=np.full((3, 3), 0.5)), "sum"),
        (dict(y_true=[0, 1, 2], y_pred=[0, 1, 1], groups=["a", "b", "b"], y_prob=np.full((3, 2), 0.5)), "shape"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1, 1], groups=["a", "b", "b"], y_prob=[0.2, 1.5, 0.9]), r"\[0, 1\]"),
        (dict(y_true=[0, 0, 0], y_pred=[0, 0, 0], groups=["a", "b", "b"]), "single class"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1, 1], groups=["a", "b", "b"], pos_label=5), "pos_label"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1, 1], groups=["a", "b", "b"], n_bootstrap=-1), "n_bootstrap"),
    ],
)
def test_bad_input_raises_clear_errors(kwargs, match):
    with pytest.raises(InvalidParameterError, match=match):
        evaluate_predictions(**kwargs)


def test_no_silent_zero_or_half_for_undefined_rates():
    y = ["a", "b", "b", "b"]
    p = ["a", "b", "a", "b"]
    g = ["x", "x", "y", "y"]  # group y has no examples of class 'a'
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        report = evaluate_predictions(y, p, g, pos_label="a")
    assert np.isnan(report.by_group.loc["y", "tpr"]) and np.isnan(report.metrics["tprd[a]"])
    assert any("group 'y' class 'a'" in str(w.message) for w in caught)
