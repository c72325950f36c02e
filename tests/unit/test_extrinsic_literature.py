"""Hand-computed small cases for every literature metric of the table (Czarnowska et al. 2021, PAPERS.md §2).

Each expected value below is worked out by hand from the definitions (the arithmetic is in the
comments), not by calling the engine's helpers.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from probekit.errors import InvalidParameterError
from probekit.extrinsic import LITERATURE_METRICS, UndefinedMetricWarning, literature_metric

# ---------------------------------------------------------------------------------------------
# D1: binary, four groups of four examples
#   a: y 1 1 0 0, p 1 0 0 0 -> TP1 FN1 FP0 TN2: TPR 1/2 FPR 0   FNR 1/2 TNR 1   F1 2/3 sel 1/4 acc 3/4
#   b: y 1 1 0 0, p 1 1 1 0 -> TP2 FN0 FP1 TN1: TPR 1   FPR 1/2 FNR 0   TNR 1/2 F1 4/5 sel 3/4 acc 3/4
#   c: y 1 0 0 0, p 0 1 1 0 -> TP0 FN1 FP2 TN1: TPR 0   FPR 2/3 FNR 1   TNR 1/3 F1 0   sel 1/2 acc 1/4
#   d: y 1 1 1 0, p 1 1 0 0 -> TP2 FN1 FP0 TN1: TPR 2/3 FPR 0   FNR 1/3 TNR 1   F1 4/5 sel 1/2 acc 3/4
#   all: 8 positives, TP 5 -> TPR 5/8, FNR 3/8; 8 negatives, FP 3 -> FPR 3/8
D1_Y = [1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0]
D1_P = [1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0]
D1_G = ["a"] * 4 + ["b"] * 4 + ["c"] * 4 + ["d"] * 4


def _d1(groups: set[str]):
    keep = [i for i, g in enumerate(D1_G) if g in groups]
    return [D1_Y[i] for i in keep], [D1_P[i] for i in keep], [D1_G[i] for i in keep]


# D2: binary with scores f(x, 1); two groups
#   x: gold 1 0 1, score .9 .2 .6     y: gold 1 0 0, score .5 .4 .2
D2_Y = [1, 0, 1, 1, 0, 0]
D2_S = np.array([0.9, 0.2, 0.6, 0.5, 0.4, 0.2])
D2_G = ["x", "x", "x", "y", "y", "y"]
D2_PROB = np.column_stack([1 - D2_S, D2_S])

# D3: counterfactual, binary; three sources, variations in groups f, m, n; f(x, 1) per row
#   s1 (gold 1): f .8  m .6  n .7
#   s2 (gold 0): f .3  m .1  n .2   -> probability of the gold class: f .7, m .9, n .8
#   s3 (gold 1): f .4  m .9  n .4
D3_SRC = ["s1"] * 3 + ["s2"] * 3 + ["s3"] * 3
D3_G = ["f", "m", "n"] * 3
D3_Y = [1, 1, 1, 0, 0, 0, 1, 1, 1]
D3_S = np.array([0.8, 0.6, 0.7, 0.3, 0.1, 0.2, 0.4, 0.9, 0.4])
D3_P = (D3_S > 0.5).astype(int)


def _d3(groups: set[str]):
    keep = [i for i, g in enumerate(D3_G) if g in groups]
    s = D3_S[keep]
    return dict(
        y_true=[D3_Y[i] for i in keep], y_pred=D3_P[keep], groups=[D3_G[i] for i in keep],
        y_prob=np.column_stack([1 - s, s]), source=[D3_SRC[i] for i in keep],
    )


# D4: counterfactual with several variations per group (a set per source and group)
#   s1 (gold 1): f {.8, .4}  m {.5}      s2 (gold 0): f {.1}  m {.3, .2}
D4_SRC = ["s1", "s1", "s1", "s2", "s2", "s2"]
D4_G = ["f", "f", "m", "f", "m", "m"]
D4_Y = [1, 1, 1, 0, 0, 0]
D4_S = np.array([0.8, 0.4, 0.5, 0.1, 0.3, 0.2])


HAND_CASES: dict[str, tuple] = {}


def case(name):
    def register(fn):
        HAND_CASES[name] = fn
        return fn

    return register


@case("fped")
def _fped():
    # |3/8 - 0| + |3/8 - 1/2| + |3/8 - 2/3| + |3/8 - 0| = 9/24 + 3/24 + 7/24 + 9/24 = 7/6
    return literature_metric("fped", D1_Y, D1_P, D1_G).value, 7 / 6


@case("fped_normalized")
def _fped_n():
    return literature_metric("fped_normalized", D1_Y, D1_P, D1_G).value, 7 / 6 / 4


@case("fned")
def _fned():
    # |3/8 - 1/2| + |3/8 - 0| + |3/8 - 1| + |3/8 - 1/3| = 3/24 + 9/24 + 15/24 + 1/24 = 7/6
    return literature_metric("fned", D1_Y, D1_P, D1_G).value, 7 / 6


@case("fned_normalized")
def _fned_n():
    return literature_metric("fned_normalized", D1_Y, D1_P, D1_G).value, 7 / 24


@case("fpr_ratio")
def _fpr_ratio():
    # FPR(group) / FPR(rest): a 0 / (3/6) = 0; b (1/2) / (2/6) = 3/2; c (2/3) / (1/5) = 10/3; d 0 / (3/7) = 0
    r = literature_metric("fpr_ratio", D1_Y, D1_P, D1_G)
    return [r.per_group[g] for g in "abcd"], [0.0, 1.5, 10 / 3, 0.0]


@case("disparity_score")
def _disparity():
    # F1 a 2/3, b 4/5, c 0, d 4/5; pair gaps 2/15, 2/3, 2/15, 4/5, 0, 4/5 sum to 38/15; N = |T|/2 = 2
    return literature_metric("disparity_score", D1_Y, D1_P, D1_G).value, 19 / 15


@case("disparity_score_normalized")
def _disparity_n():
    return literature_metric("disparity_score_normalized", D1_Y, D1_P, D1_G).value, 38 / 15 / 6


@case("tpr_gap")
def _tpr_gap():
    # TPR a 1/2, b 1, c 0, d 2/3; gaps 1/2, 1/2, 1/6, 1, 1/3, 2/3 sum to 19/6; 6 pairs
    return literature_metric("tpr_gap", D1_Y, D1_P, D1_G).value, 19 / 36


@case("tnr_gap")
def _tnr_gap():
    # TNR a 1, b 1/2, c 1/3, d 1; gaps 1/2, 2/3, 0, 1/6, 1/2, 2/3 sum to 5/2; 6 pairs
    return literature_metric("tnr_gap", D1_Y, D1_P, D1_G).value, 5 / 12


@case("parity_gap")
def _parity_gap():
    # selection a 1/4, b 3/4, c 1/2, d 1/2; gaps 1/2, 1/4, 1/4, 1/4, 1/4, 0 sum to 3/2; 6 pairs
    return literature_metric("parity_gap", D1_Y, D1_P, D1_G).value, 1 / 4


@case("accuracy_difference")
def _acc_diff():
    # acc(a) - acc(c) = 3/4 - 1/4
    return literature_metric("accuracy_difference", *_d1({"a", "c"})).value, 0.5


@case("tpr_difference")
def _tpr_diff():
    # TPR(a) - TPR(b) = 1/2 - 1
    return literature_metric("tpr_difference", *_d1({"a", "b"})).value, -0.5


@case("recall_difference")
def _recall_diff():
    return literature_metric("recall_difference", *_d1({"a", "b"})).value, -0.5


@case("f1_difference")
def _f1_diff():
    # F1(a) - F1(b) = 2/3 - 4/5
    return literature_metric("f1_difference", *_d1({"a", "b"})).value, -2 / 15


@case("f1_ratio")
def _f1_ratio():
    # F1(a) / F1(b) = (2/3) / (4/5)
    return literature_metric("f1_ratio", *_d1({"a", "b"})).value, 5 / 6


@case("avg_gf")
def _avg_gf():
    # W1(x, all): CDF gaps 1/6 on [.4,.5), 1/3 on [.5,.6), 1/6 on [.6,.9) -> 1/60 + 2/60 + 3/60 = 0.1
    # W1(y, all): 1/6 on [.4,.5), 1/3 on [.5,.6), 1/6 on [.6,.9) -> 0.1; BCM / |T| = 0.1
    return literature_metric("avg_gf", D2_Y, None, D2_G, y_prob=D2_PROB).value, 0.1


@case("avg_gf_tc")
def _avg_gf_tc():
    # gold-1 scores: x {.9, .6}, y {.5}, all {.9, .6, .5}
    # W1(x, all) = 1/3 * .1 + 1/6 * .3 = 1/12; W1(y, all) = 2/3 * .1 + 1/3 * .3 = 1/6; mean 1/8
    return literature_metric("avg_gf_tc", D2_Y, None, D2_G, y_prob=D2_PROB).value, 1 / 8


@case("positive_aeg")
def _pos_aeg():
    # gold 1: x {.9, .6} vs rest {.5}: P(Y > X) = 1 -> +1/2; y {.5} vs {.9, .6}: 0 -> -1/2
    r = literature_metric("positive_aeg", D2_Y, None, D2_G, y_prob=D2_PROB)
    return [r.per_group["x"], r.per_group["y"]], [0.5, -0.5]


@case("negative_aeg")
def _neg_aeg():
    # gold 0: x {.2} vs rest {.4, .2}: (0 + 1/2) / 2 = 1/4 -> -1/4; y {.4, .2} vs {.2}: (1 + 1/2) / 2 -> +1/4
    r = literature_metric("negative_aeg", D2_Y, None, D2_G, y_prob=D2_PROB)
    return [r.per_group["x"], r.per_group["y"]], [-0.25, 0.25]


@case("cf_gap")
def _cf_gap():
    # |f(x,1) - f(x',1)| per source (f vs m): .2, .2, .5 -> .3
    return literature_metric("cf_gap", **_d3({"f", "m"})).value, 0.3


@case("cf_gap_tc")
def _cf_gap_tc():
    # only gold-1 sources (s1, s3): .2, .5 -> .35
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedMetricWarning)  # dropping s2 is expected, not a warning
        value = literature_metric("cf_gap_tc", **_d3({"f", "m"})).value
    return value, 0.35


@case("perturbation_score_sensitivity")
def _pss():
    # background = the unperturbed group n; P(gold): s1 f .8 m .6 n .7; s2 f .7 m .9 n .8; s3 f .4 m .9 n .4
    # f: (.1 + .1 + 0) / 3 = 1/15; m: (.1 + .1 + .5) / 3 = 7/30
    r = literature_metric("perturbation_score_sensitivity", **_d3({"f", "m", "n"}), background_group="n")
    return [r.per_group["f"], r.per_group["m"]], [1 / 15, 7 / 30]


@case("perturbation_score_deviation")
def _psd():
    # population std of P(gold) over f, m, n per source, then the mean over sources
    # s1 (.8, .6, .7): sqrt(.02/3); s2 (.7, .9, .8): sqrt(.02/3); s3 (.4, .9, .4): mean 17/30, sqrt(1/18)
    expected = (2 * np.sqrt(0.02 / 3) + np.sqrt(1 / 18)) / 3
    return literature_metric("perturbation_score_deviation", **_d3({"f", "m", "n"})).value, expected


@case("perturbation_score_range")
def _psr():
    # max - min per source: .2, .2, .5 -> .3
    return literature_metric("perturbation_score_range", **_d3({"f", "m", "n"})).value, 0.3


@case("average_individual_fairness")
def _aif():
    # s1: W1({.8, .4}, {.5}) = (|.4 - .5| + |.8 - .5|) / 2 = .2; s2: W1({.1}, {.3, .2}) = (.2 + .1) / 2 = .15
    r = literature_metric(
        "average_individual_fairness", D4_Y, None, D4_G, y_prob=np.column_stack([1 - D4_S, D4_S]), source=D4_SRC
    )
    return r.value, 0.175


@case("average_individual_fairness_tc")
def _aif_tc():
    # only the gold-1 source s1: .2
    r = literature_metric(
        "average_individual_fairness_tc", D4_Y, None, D4_G, y_prob=np.column_stack([1 - D4_S, D4_S]), source=D4_SRC
    )
    return r.value, 0.2


@case("average_score_difference")
def _asd():
    # mean f(x,1) of f minus m per source: s1 .6 - .5 = .1; s2 .1 - .25 = -.15 -> -.025
    r = literature_metric(
        "average_score_difference", D4_Y, None, D4_G, y_prob=np.column_stack([1 - D4_S, D4_S]), source=D4_SRC
    )
    return r.value, -0.025


@case("average_score_difference_tc")
def _asd_tc():
    # gold-1 sources only: s1: .1
    r = literature_metric(
        "average_score_difference_tc", D4_Y, None, D4_G, y_prob=np.column_stack([1 - D4_S, D4_S]), source=D4_SRC
    )
    return r.value, 0.1


@case("cf")
def _cf():
    # |P(gold | f) - P(gold | m)|: s1 |.8 - .6|, s2 |.7 - .9|, s3 |.4 - .9| -> (.2 + .2 + .5) / 3
    return literature_metric("cf", **_d3({"f", "m"})).value, 0.3


@case("cf_hard")
def _cf_hard():
    # correct? s1 f 1 m 1; s2 f 1 m 1; s3 f 0 (pred 0, gold 1) m 1 -> (0 + 0 + 1) / 3
    return literature_metric("cf_hard", **_d3({"f", "m"})).value, 1 / 3


def test_every_literature_metric_has_a_hand_case():
    assert set(HAND_CASES) == set(LITERATURE_METRICS)


@pytest.mark.parametrize("name", sorted(HAND_CASES))
def test_literature_metric_matches_hand_computation(name):
    got, expected = HAND_CASES[name]()
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


def test_original_and_corrected_normalizations_are_both_available_and_differ():
    pairs = [("fped", "fped_normalized"), ("fned", "fned_normalized"), ("disparity_score", "disparity_score_normalized")]
    for original, corrected in pairs:
        assert LITERATURE_METRICS[original].normalization != LITERATURE_METRICS[corrected].normalization
        assert "original" in LITERATURE_METRICS[original].title
        assert "corrected" in LITERATURE_METRICS[corrected].title


def test_tc_variants_restrict_to_gold_class():
    for name in ("avg_gf_tc", "cf_gap_tc", "average_individual_fairness_tc", "average_score_difference_tc"):
        assert LITERATURE_METRICS[name].phi.endswith("_tc")


def test_multiclass_one_vs_rest_then_class_mean():
    # g1: y 0 1 2 2, p 0 2 2 1 -> TPR class0 1, class1 0, class2 1/2
    # g2: y 0 0 1 2, p 0 1 1 2 -> TPR class0 1/2, class1 1, class2 1
    y = [0, 1, 2, 2, 0, 0, 1, 2]
    p = [0, 2, 2, 1, 0, 1, 1, 2]
    g = ["g1"] * 4 + ["g2"] * 4
    r = literature_metric("tpr_gap", y, p, g)
    np.testing.assert_allclose(r.values, [0.5, 1.0, 0.5])
    assert r.value == pytest.approx(2 / 3)
    assert r.classes == (0, 1, 2)


def test_string_and_noncontiguous_labels_give_the_same_numbers():
    base = literature_metric("fped", D1_Y, D1_P, D1_G).value
    names = ["neg", "pos"]
    strings = literature_metric("fped", [names[v] for v in D1_Y], [names[v] for v in D1_P], D1_G).value
    codes = {"a": 3, "b": 7, "c": 11, "d": 40}
    ints = literature_metric(
        "fped", [10 + 20 * v for v in D1_Y], [10 + 20 * v for v in D1_P], [codes[g] for g in D1_G]
    ).value
    assert strings == pytest.approx(base) and ints == pytest.approx(base)


def test_undefined_ratio_is_nan_with_warning_naming_groups():
    # F1(c) = 0, so F1(a) / F1(c) divides by zero
    with pytest.warns(UndefinedMetricWarning, match=r"'a' vs 'c'|a vs c"):
        r = literature_metric("f1_ratio", *_d1({"a", "c"}))
    assert np.isnan(r.value)


def test_counterfactual_metric_needs_source_and_group_metric_refuses_it():
    with pytest.raises(InvalidParameterError, match="source"):
        literature_metric("cf", D3_Y, D3_P, D3_G, y_prob=np.column_stack([1 - D3_S, D3_S]))
    with pytest.raises(InvalidParameterError, match="source"):
        literature_metric("fped", D1_Y, D1_P, D1_G, source=list(range(16)))
    with pytest.raises(InvalidParameterError, match="name"):
        literature_metric("no_such_metric", D1_Y, D1_P, D1_G)
    with pytest.raises(InvalidParameterError, match="exactly two groups"):
        literature_metric("f1_difference", D1_Y, D1_P, D1_G)
    with pytest.raises(InvalidParameterError, match="background_group"):
        literature_metric("perturbation_score_sensitivity", **_d3({"f", "m", "n"}))
