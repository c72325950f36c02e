"""The generalized engine: properties, SciPy references, the counterfactual version, errors."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from scipy.stats import mannwhitneyu, wasserstein_distance

from probekit.errors import InvalidParameterError
from probekit.extrinsic import (
    UndefinedMetricWarning,
    bcm,
    confusion_counts,
    generalized_metric,
    mcm,
    pcm,
    vbcm,
)


def random_task(seed: int, n: int = 600, n_classes: int = 3, groups=("a", "b", "c")):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, n_classes, n)
    p = np.where(rng.random(n) < 0.6, y, rng.integers(0, n_classes, n))
    g = np.asarray(groups, dtype=object)[rng.integers(0, len(groups), n)]
    prob = rng.dirichlet(np.ones(n_classes), n)
    prob = np.round(prob, 2)  # ties on purpose
    prob[:, -1] = 1 - prob[:, :-1].sum(axis=1)
    prob = np.clip(prob, 0, 1)
    prob /= prob.sum(axis=1, keepdims=True)
    return y, p, g, prob


def brute_rate(y, p, mask, c, score):
    yt, yp = np.asarray(y)[mask] == c, np.asarray(p)[mask] == c
    tp, fp = np.sum(yt & yp), np.sum(~yt & yp)
    fn, tn = np.sum(yt & ~yp), np.sum(~yt & ~yp)
    return {"tpr": tp / (tp + fn), "fpr": fp / (fp + tn), "f1": 2 * tp / (2 * tp + fp + fn), "selection_rate": (tp + fp) / mask.sum()}[score]


SPECS = [
    dict(kind="pcm", phi="tpr", d="absdiff"),
    dict(kind="pcm", phi="f1", d="absdiff", normalization="groups"),
    dict(kind="bcm", phi="fpr", d="absdiff", background="all"),
    dict(kind="bcm", phi="selection_rate", d="absdiff", background="rest"),
    dict(kind="bcm", phi="prob", d="wasserstein", background="all"),
    dict(kind="pcm", phi="prob_tc", d="wasserstein"),
    dict(kind="mcm", phi="tnr", d="std"),
    dict(kind="mcm", phi="mean_prob", d="range"),
    dict(kind="vbcm", phi="prob_ntc", d="aeg", background="rest"),
    dict(kind="vbcm", phi="precision", d="ratio_inv", background="rest"),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s['kind']}-{s['phi']}-{s['d']}")
def test_invariant_to_row_order(spec):
    y, p, g, prob = random_task(1)
    perm = np.random.default_rng(5).permutation(y.size)
    a = generalized_metric(y, p, g, y_prob=prob, **spec)
    b = generalized_metric(y[perm], p[perm], g[perm], y_prob=prob[perm], **spec)
    np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: f"{s['kind']}-{s['phi']}-{s['d']}")
def test_invariant_to_renaming_groups(spec):
    y, p, g, prob = random_task(2)
    rename = {"a": "zeta", "b": "alpha", "c": 17}
    g2 = np.array([rename[v] for v in g], dtype=object)
    g2_str = np.array([str(rename[v]) for v in g], dtype=object)
    a = generalized_metric(y, p, g, y_prob=prob, **spec)
    b = generalized_metric(y, p, g2_str, y_prob=prob, **spec)
    if spec["kind"] == "vbcm":
        for old, new in rename.items():
            np.testing.assert_allclose(a.per_group[old], b.per_group[str(new)], rtol=1e-12)
    else:
        np.testing.assert_allclose(a.values, b.values, rtol=1e-12, atol=1e-12)
    with pytest.raises(InvalidParameterError, match="mixed types"):
        generalized_metric(y, p, g2, y_prob=prob, **spec)


@pytest.mark.parametrize(
    "phi,d,background",
    [("tpr", "absdiff", "all"), ("fpr", "absdiff", "rest"), ("prob", "wasserstein", "all"),
     ("prob_tc", "wasserstein", "rest"), ("prob_ntc", "aeg", "rest"), ("mean_prob", "absdiff", "all")],
)
def test_bcm_over_identical_groups_is_zero(phi, d, background):
    y, p, _, prob = random_task(3, n=200)
    k = 3
    Y, P, PR = np.tile(y, k), np.tile(p, k), np.tile(prob, (k, 1))
    G = np.repeat(["g1", "g2", "g3"], y.size)
    r = bcm(Y, P, G, phi=phi, d=d, background=background, y_prob=PR)
    np.testing.assert_allclose(r.values, 0.0, atol=1e-12)


@pytest.mark.parametrize("score", ["tpr", "fpr", "f1", "selection_rate"])
def test_pcm_over_two_groups_is_absolute_difference(score):
    y, p, g, _ = random_task(4, groups=("f", "m"))
    r = pcm(y, p, g, phi=score, d="absdiff")
    for k, c in enumerate(r.classes):
        expected = abs(brute_rate(y, p, g == "f", c, score) - brute_rate(y, p, g == "m", c, score))
        assert r.values[k] == pytest.approx(expected, rel=1e-12)
    signed = pcm(y, p, g, phi=score, d="diff", group_order=["m", "f"])
    expected = brute_rate(y, p, g == "m", 0, score) - brute_rate(y, p, g == "f", 0, score)
    assert signed.values[0] == pytest.approx(expected)


@pytest.mark.parametrize(
    "phi,d,background",
    [("tpr", "absdiff", "all"), ("fnr", "diff", "rest"), ("fpr", "ratio_inv", "rest"),
     ("prob", "wasserstein", "all"), ("prob_tc", "aeg", "rest"), ("mean_prob_tc", "diff", "all"),
     ("accuracy", "absdiff", "privileged")],
)
def test_bcm_is_the_mean_of_vbcm(phi, d, background):
    y, p, g, prob = random_task(5)
    kw = dict(phi=phi, d=d, background=background, y_prob=prob)
    if background == "privileged":
        kw["background_group"] = "b"
    b = bcm(y, p, g, normalization="groups", **kw)
    v = vbcm(y, p, g, **kw)
    np.testing.assert_allclose(b.values, v.values.mean(axis=0), rtol=1e-12)
    if background == "privileged":
        assert v.groups == ("a", "c")


def test_wasserstein_matches_scipy():
    y, p, g, prob = random_task(6)
    r = vbcm(y, p, g, phi="prob", d="wasserstein", background="all", y_prob=prob)
    for gi, grp in enumerate(r.groups):
        for ci, c in enumerate(r.classes):
            expected = wasserstein_distance(prob[g == grp, c], prob[:, c])
            assert r.values[gi, ci] == pytest.approx(expected, rel=1e-10, abs=1e-13)
    r = pcm(y, p, g, phi="prob_tc", d="wasserstein", y_prob=prob, normalization="none")
    for ci, c in enumerate(r.classes):
        total = sum(
            wasserstein_distance(prob[(g == a) & (y == c), c], prob[(g == b) & (y == c), c])
            for a, b in itertools.combinations(["a", "b", "c"], 2)
        )
        assert r.values[ci] == pytest.approx(total, rel=1e-10)


def test_aeg_matches_scipy_mannwhitneyu():
    y, p, g, prob = random_task(7)
    r = vbcm(y, p, g, phi="prob_tc", d="aeg", background="rest", y_prob=prob)
    for gi, grp in enumerate(r.groups):
        for ci, c in enumerate(r.classes):
            sub = prob[(g == grp) & (y == c), c]
            rest = prob[(g != grp) & (y == c), c]
            # MWU(X, Y) counts pairs x < y (ties 1/2): scipy's U of the first sample counts x > y
            mwu_sub_rest = mannwhitneyu(rest, sub).statistic
            expected = 0.5 - mwu_sub_rest / (sub.size * rest.size)
            assert r.values[gi, ci] == pytest.approx(expected, abs=1e-12)


def test_mcm_std_and_range_against_brute_force():
    y, p, g, _ = random_task(8, groups=("a", "b", "c", "d"))
    rates = np.array([[brute_rate(y, p, g == grp, c, "tpr") for c in range(3)] for grp in "abcd"])
    np.testing.assert_allclose(mcm(y, p, g, phi="tpr", d="std").values, rates.std(axis=0), rtol=1e-12)
    np.testing.assert_allclose(mcm(y, p, g, phi="tpr", d="range").values, np.ptp(rates, axis=0), rtol=1e-12)
    np.testing.assert_allclose(mcm(y, p, g, phi="tpr", d="min_max_ratio").values, rates.min(0) / rates.max(0), rtol=1e-12)


def test_normalizations():
    y, p, g, _ = random_task(9, groups=("a", "b", "c", "d"))
    none = pcm(y, p, g, phi="tpr", normalization="none").values
    np.testing.assert_allclose(pcm(y, p, g, phi="tpr", normalization="pairs").values, none / 6)
    np.testing.assert_allclose(pcm(y, p, g, phi="tpr", normalization="groups").values, none / 4)
    np.testing.assert_allclose(pcm(y, p, g, phi="tpr", normalization="half_groups").values, none / 2)


def test_counterfactual_version_against_per_source_loop():
    rng = np.random.default_rng(10)
    J = 40
    src = np.repeat(np.arange(J), 3)
    grp = np.tile(["f", "m", "x"], J)
    gold = np.repeat(rng.integers(0, 2, J), 3)
    s = rng.random(3 * J)
    prob = np.column_stack([1 - s, s])
    pred = (s > 0.5).astype(int)
    # drop a few rows: incomplete sources are averaged where the metric is defined
    keep = np.ones(3 * J, dtype=bool)
    keep[[1, 5, 30]] = False
    src, grp, gold, prob, pred, s = src[keep], grp[keep], gold[keep], prob[keep], pred[keep], s[keep]
    r = pcm(gold, pred, grp, phi="mean_prob", d="absdiff", y_prob=prob, source=src)
    per_source = []
    for j in np.unique(src):
        vals = {g_: s[(src == j) & (grp == g_)] for g_ in ("f", "m", "x")}
        if any(v.size == 0 for v in vals.values()):
            continue
        per_source.append(np.mean([abs(vals[a].mean() - vals[b].mean()) for a, b in itertools.combinations("fmx", 2)]))
    assert r.value == pytest.approx(np.mean(per_source), rel=1e-12)
    assert r.version == "counterfactual" and r.n_sources == J


def test_rates_from_one_bincount_match_brute_force_with_strings():
    y, p, g, _ = random_task(11, n_classes=4)
    names = np.array(["w", "x", "y", "z"], dtype=object)
    cc = confusion_counts(names[y], names[p], g)
    assert cc.counts.shape == (3, 4, 4) and cc.counts.sum() == y.size
    for gi, grp in enumerate(cc.groups):
        for ci in range(4):
            assert cc.rate("tpr")[gi, ci] == pytest.approx(brute_rate(y, p, g == grp, ci, "tpr"))
            assert cc.rate("f1")[gi, ci] == pytest.approx(brute_rate(y, p, g == grp, ci, "f1"))


def test_undefined_rate_is_nan_with_warning_naming_group_and_class():
    y = ["pos", "neg", "neg", "pos", "neg", "neg"]
    p = ["pos", "neg", "pos", "pos", "pos", "neg"]
    g = ["f", "f", "f", "m", "m", "nb"]
    with pytest.warns(UndefinedMetricWarning) as record:
        r = vbcm(y, p, g, phi="tpr", d="absdiff", background="all", pos_label="pos")
    message = " ".join(str(w.message) for w in record)
    assert "'nb'" in message and "'pos'" in message
    assert np.isnan(r.per_group["nb"]) and not np.isnan(r.per_group["f"])


def test_spec_errors_name_the_parameter():
    y, p, g, prob = random_task(12, n=60)
    with pytest.raises(InvalidParameterError, match="kind"):
        generalized_metric(y, p, g, kind="xcm", phi="tpr", d="absdiff")
    with pytest.raises(InvalidParameterError, match="phi"):
        generalized_metric(y, p, g, kind="pcm", phi="prob", d="absdiff", y_prob=prob)
    with pytest.raises(InvalidParameterError, match="phi"):
        generalized_metric(y, p, g, kind="pcm", phi="tpr", d="wasserstein")
    with pytest.raises(InvalidParameterError, match="d="):
        generalized_metric(y, p, g, kind="mcm", phi="tpr", d="absdiff")
    with pytest.raises(InvalidParameterError, match="normalization"):
        generalized_metric(y, p, g, kind="vbcm", phi="tpr", d="absdiff", normalization="pairs")
    with pytest.raises(InvalidParameterError, match="background"):
        generalized_metric(y, p, g, kind="bcm", phi="tpr", d="absdiff", background="female")
    with pytest.raises(InvalidParameterError, match="y_prob"):
        generalized_metric(y, p, g, kind="bcm", phi="prob", d="wasserstein")
    with pytest.raises(InvalidParameterError, match="pos_label"):
        generalized_metric(y, p, g, kind="pcm", phi="tpr", d="absdiff", pos_label=7)


def test_probability_only_metric_needs_no_labels_or_predictions():
    _, _, g, prob = random_task(13, n=90)
    r = bcm(None, None, g, phi="prob", d="wasserstein", y_prob=prob, labels=["x", "y", "z"])
    assert r.classes == ("x", "y", "z") and np.isfinite(r.values).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        r.to_dict()


def test_counterfactual_prediction_scores_against_per_source_loop():
    rng = np.random.default_rng(14)
    J = 50
    src = np.repeat(np.arange(J), 4)
    grp = np.tile(["f", "f", "m", "m"], J)
    gold = np.repeat(rng.integers(0, 3, J), 4)
    pred = np.where(rng.random(4 * J) < 0.6, gold, rng.integers(0, 3, 4 * J))
    r = pcm(gold, pred, grp, phi="tpr", d="absdiff", source=src)
    for c in range(3):
        per_source = []
        for j in range(J):
            rows = (src == j) & (gold == c)
            if not rows.any():
                continue  # TPR of class c is undefined for a source of another gold class
            f = np.mean(pred[rows & (grp == "f")] == c)
            m = np.mean(pred[rows & (grp == "m")] == c)
            per_source.append(abs(f - m))
        assert r.values[c] == pytest.approx(np.mean(per_source), rel=1e-12)
    acc = pcm(gold, pred, grp, phi="accuracy", d="absdiff", source=src)
    correct = (gold == pred).reshape(J, 2, 2).mean(axis=2)
    assert acc.value == pytest.approx(np.mean(np.abs(correct[:, 0] - correct[:, 1])))


def test_fixed_width_string_fast_path_matches_pandas():
    import pandas as pd

    from probekit.extrinsic import factorize

    rng = np.random.default_rng(15)
    pool = np.array(["", "a", "ab", "ba", "é", "女性", "male", "female", "a\x00"])
    values = pool[rng.integers(0, pool.size, 5000)]
    codes, uniques = factorize(values, "groups")
    ref_codes, ref_uniques = pd.factorize(values.astype(object), sort=True)
    np.testing.assert_array_equal(codes, ref_codes)
    assert list(uniques) == list(ref_uniques)
    b_codes, b_uniques = factorize(np.array([b"x", b"yy", b"x"]), "groups")
    assert list(b_codes) == [0, 1, 0] and list(b_uniques) == [b"x", b"yy"]
