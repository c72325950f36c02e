"""Aggregation (generalized means, Fair Enough), smoothing, DTO, AUC-PFC and model selection."""

from __future__ import annotations

import math

import numpy as np
import pytest

from probekit.errors import InvalidParameterError
from probekit.extrinsic import (
    UndefinedMetricWarning,
    aggregate_disparity,
    auc_pfc,
    confusion_counts,
    dto,
    generalized_mean,
    pareto_frontier,
    partial_auc_pfc,
    select_model,
)


def test_generalized_mean_special_cases():
    x = [1.0, 2.0, 4.0]
    assert generalized_mean(x, 1) == pytest.approx(7 / 3)
    assert generalized_mean(x, 2) == pytest.approx(math.sqrt((1 + 4 + 16) / 3))
    assert generalized_mean(x, 0) == pytest.approx(2.0)  # (1 * 2 * 4) ** (1/3)
    assert generalized_mean(x, -1) == pytest.approx(3 / (1 + 0.5 + 0.25))
    assert generalized_mean(x, np.inf) == 4.0
    assert generalized_mean(x, -np.inf) == 1.0
    assert generalized_mean([0.0, 1.0], -5) == 0.0
    assert generalized_mean([0.0, 1.0], 0) == 0.0


def test_generalized_mean_weights_axis_and_nans():
    assert generalized_mean([1.0, 3.0], 1, weights=[3, 1]) == pytest.approx(1.5)
    assert generalized_mean([1.0, 3.0], 2, weights=[1, 1]) == pytest.approx(math.sqrt(5))
    np.testing.assert_allclose(generalized_mean([[1.0, 3.0], [2.0, 2.0]], 1, axis=1), [2.0, 2.0])
    assert generalized_mean([1.0, np.nan, 3.0], 1) == pytest.approx(2.0)
    assert math.isnan(generalized_mean([1.0, np.nan, 3.0], 1, nan_policy="propagate"))
    assert math.isnan(generalized_mean([np.nan, np.nan], 2))
    assert generalized_mean([-1.0, 3.0], 1) == pytest.approx(1.0)
    with pytest.raises(InvalidParameterError, match="negative"):
        generalized_mean([-1.0, 3.0], 2)
    with pytest.raises(InvalidParameterError, match="nan_policy"):
        generalized_mean([1.0], 1, nan_policy="drop")


def test_aggregate_disparity_by_hand():
    # two classes x three groups of TPR; overall TPR per class
    scores = np.array([[0.8, 0.6, 0.7], [0.5, 0.9, 0.7]])
    overall = np.array([0.7, 0.7])
    # gaps: class 0: .1 .1 0 -> mean 1/15; class 1: .2 .2 0 -> mean 2/15; RMS over classes
    expected = math.sqrt(((1 / 15) ** 2 + (2 / 15) ** 2) / 2)
    assert aggregate_disparity(scores, overall, unit="gap", group_power=1, class_power=2) == pytest.approx(expected)
    # group max then class mean
    assert aggregate_disparity(scores, overall, unit="gap", group_power=np.inf, class_power=1) == pytest.approx(0.15)
    # fairlib's default: sum of absolute gaps over groups, RMS over classes
    assert aggregate_disparity(scores, overall, group_power="sum", class_power=2) == pytest.approx(
        math.sqrt((0.2**2 + 0.4**2) / 2)
    )
    # ratio unit: worst ratio per class (min), then mean
    assert aggregate_disparity(scores, overall, unit="ratio", group_power=-np.inf, class_power=1) == pytest.approx(
        (0.6 / 0.7 + 0.5 / 0.7) / 2
    )
    assert aggregate_disparity(scores, overall, unit="score", group_power=1, class_power=1) == pytest.approx(0.7)
    # an undefined cell is omitted, or propagates
    with_nan = scores.copy()
    with_nan[1, 1] = np.nan
    assert aggregate_disparity(with_nan, overall, group_power=1, class_power=1) == pytest.approx((1 / 15 + 0.1) / 2)
    assert math.isnan(aggregate_disparity(with_nan, overall, nan_policy="propagate"))
    with pytest.raises(InvalidParameterError, match="unit"):
        aggregate_disparity(scores, overall, unit="percent")
    with pytest.raises(InvalidParameterError, match="overall"):
        aggregate_disparity(scores, [0.7], unit="gap")


def test_smoothing_reproduces_fairlib_confusion_scores():
    # fairlib's confusion_matrix_based_scores adds 1e-5 to TP, FP and FN before its rates:
    # TPR = (TP + 1e-5) / (TP + FN + 2e-5). Group "b" has no positives: fairlib's TPR is 0.5 there.
    y = [1, 1, 0, 0, 0, 0, 0, 1]
    p = [1, 0, 0, 1, 0, 1, 0, 1]
    g = ["a", "a", "a", "a", "b", "b", "b", "c"]
    cc = confusion_counts(y, p, g)
    tpr = cc.rate("tpr", smoothing=1e-5)[:, 1]
    np.testing.assert_allclose(tpr, [(1 + 1e-5) / (2 + 2e-5), 1e-5 / 2e-5, (1 + 1e-5) / (1 + 2e-5)])
    with pytest.warns(UndefinedMetricWarning, match="group 'b' class 1"):
        raw = cc.rate("tpr")[:, 1]
    assert math.isnan(raw[1])


def test_dto():
    assert dto(0.9, 0.8) == pytest.approx(math.sqrt(0.01 + 0.04))
    np.testing.assert_allclose(dto([0.9, 1.0], [0.8, 0.5]), [math.sqrt(0.05), 0.5])
    np.testing.assert_allclose(dto([0.9, 0.8], [0.8, 0.9], utopia=None), [0.1, 0.1])
    # normalized: min-max scale each axis over the models, utopia scaled the same way
    got = dto([0.5, 0.7, 0.9], [0.95, 0.9, 0.7], utopia=None, normalize=True)
    np.testing.assert_allclose(got, [1.0, math.sqrt(0.25 + 0.04), 1.0])


def test_pareto_frontier_and_auc_pfc_by_hand():
    perf = [0.6, 0.8, 0.7, 0.9]
    fair = [0.9, 0.7, 0.6, 0.4]  # (0.7, 0.6) is dominated by (0.8, 0.7)
    np.testing.assert_array_equal(pareto_frontier(perf, fair), [0, 1, 3])
    # frontier with anchor (0.5, 1): (0.5,1) (0.6,.9) (0.8,.7) (0.9,.4)
    expected = 0.1 * (1 + 0.9) / 2 + 0.2 * (0.9 + 0.7) / 2 + 0.1 * (0.7 + 0.4) / 2
    assert auc_pfc(perf, fair, random_performance=0.5) == pytest.approx(expected)
    # partial: performance >= 0.7 and fairness >= 0.5
    # segment .7-.8 of (.6,.9)-(.8,.7): y(.7) = .8 -> area above .5: .1 * (.3 + .2) / 2 = .025
    # segment .8-.9 from .7 to .4 crosses .5 at .8 + .1 * 2/3: triangle .2 * (.1 * 2/3) / 2
    expected_partial = 0.025 + 0.2 * (0.1 * 2 / 3) / 2
    got = partial_auc_pfc(perf, fair, random_performance=0.5, min_performance=0.7, min_fairness=0.5)
    assert got == pytest.approx(expected_partial)


def test_select_model_criteria():
    perf = [0.90, 0.88, 0.85, 0.80]
    fair = [0.60, 0.70, 0.80, 0.90]
    assert select_model(perf, fair, criterion="max_performance") == 0
    assert select_model(perf, fair, criterion="max_fairness") == 3
    assert select_model(perf, fair, criterion="min_dto") == int(np.argmin(dto(perf, fair)))
    # baseline (0.90, 0.60): fairness >= 0.66 (5% gain) -> best performance among 1, 2, 3 is model 1
    assert select_model(perf, fair, criterion="max_performance_fairness_gain", baseline=(0.9, 0.6)) == 1
    # performance >= 0.9 * 0.95 = 0.855 -> candidates 0, 1 -> best fairness is model 1
    assert select_model(perf, fair, criterion="max_fairness_performance_loss", baseline=(0.9, 0.6)) == 1
    assert select_model(perf, fair, criterion="max_fairness_performance_loss", baseline=(0.9, 0.6), threshold=0.1) == 2
    with pytest.raises(InvalidParameterError, match="baseline"):
        select_model(perf, fair, criterion="max_fairness_performance_loss")
    with pytest.raises(InvalidParameterError, match="criterion"):
        select_model(perf, fair, criterion="best")
    with pytest.raises(InvalidParameterError, match="fairness"):
        dto([0.9, 0.8], [0.5])
