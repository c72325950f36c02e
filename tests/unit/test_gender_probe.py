"""Gender probe: planted gender direction vs none, word-disjoint split, scikit-learn/SciPy references."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from sklearn.linear_model import LogisticRegression

from probekit.errors import InvalidParameterError
from probekit.intrinsic import PAPER_PROBE, GenderProbe, gender_probe

DIM = 24


def _occurrences(rng, prefix, n_words, sign, strength, direction, per_word=(3, 6)):
    emb, words = [], []
    for i in range(n_words):
        centre = rng.normal(size=DIM) * 0.7
        for _ in range(rng.integers(*per_word)):
            emb.append(centre + rng.normal(size=DIM) + sign * strength * direction)
            words.append(f"{prefix}{i}")
    return np.array(emb), words


def _data(seed, stereotype_strength, attribute_strength=3.0, n_attr=25, n_stereo=12):
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=DIM)
    direction /= np.linalg.norm(direction)
    fa = _occurrences(rng, "fa", n_attr, +1, attribute_strength, direction)
    ma = _occurrences(rng, "ma", n_attr, -1, attribute_strength, direction)
    fs = _occurrences(rng, "fs", n_stereo, +1, stereotype_strength, direction)
    ms = _occurrences(rng, "ms", n_stereo, -1, stereotype_strength, direction)
    return fa, ma, fs, ms


def test_planted_gender_direction_is_found():
    fa, ma, fs, ms = _data(0, stereotype_strength=2.0)
    r = gender_probe(fa, ma, fs, ms, random_state=0)
    assert r.gender_accuracy > 0.95 and r.gender_accuracy_per_word > 0.95
    assert r.stereotype_accuracy > 0.9
    assert r.stereotype_accuracy_female > 0.85 and r.stereotype_accuracy_male > 0.85
    assert r.randomization_p_value < 0.01
    assert r.permutation_p_value < 0.01
    assert r.stereotype_confidence > 0.3
    assert r.stereotype_word_p_female["fs0"] > 0.5 and r.stereotype_word_p_female["ms0"] < 0.5


def test_no_gender_direction_in_stereotypes():
    accuracies, perm_ps = [], []
    for seed in range(8):
        fa, ma, fs, ms = _data(100 + seed, stereotype_strength=0.0)
        r = gender_probe(fa, ma, fs, ms, random_state=seed, n_randomizations=200)
        assert r.gender_accuracy > 0.9  # the probe itself works
        accuracies.append(r.stereotype_accuracy)
        perm_ps.append(r.permutation_p_value)
    assert abs(np.mean(accuracies) - 0.5) < 0.06
    assert all(abs(a - 0.5) < 0.2 for a in accuracies)
    # Not small: under no association the empirical p-value is spread over (0, 1].
    assert np.median(perm_ps) > 0.2
    assert sum(p < 0.01 for p in perm_ps) <= 1


def test_randomization_p_value_is_the_papers_t_test():
    fa, ma, fs, ms = _data(1, stereotype_strength=0.5)
    r = gender_probe(fa, ma, fs, ms, random_state=3, n_randomizations=100)
    assert len(r.random_accuracies) == r.n_randomizations == 100
    expected = stats.ttest_1samp(r.random_accuracies, popmean=r.stereotype_accuracy).pvalue
    assert r.randomization_p_value == pytest.approx(expected)
    # Empirical p-value with the +1 correction (two-sided around the exact null mean).
    acc = np.array(r.random_accuracies)
    assert r.permutation_p_value * 101 == pytest.approx(round(r.permutation_p_value * 101))
    assert r.permutation_p_value >= 1 / 101
    assert r.random_accuracy_mean == pytest.approx(acc.mean())


def test_split_is_word_disjoint_and_follows_test_size():
    fa, ma, fs, ms = _data(2, stereotype_strength=1.0, n_attr=20)
    for seed in range(5):
        r = gender_probe(fa, ma, fs, ms, random_state=seed, test_size=0.25)
        for gender, prefix in (("female", "fa"), ("male", "ma")):
            train, test = set(r.train_words[gender]), set(r.test_words[gender])
            assert not train & test
            assert train | test == {f"{prefix}{i}" for i in range(20)}
            assert len(test) == 5
        all_train = set(r.train_words["female"]) | set(r.train_words["male"])
        all_test = set(r.test_words["female"]) | set(r.test_words["male"])
        assert not all_train & all_test
    a = gender_probe(fa, ma, fs, ms, random_state=7)
    b = gender_probe(fa, ma, fs, ms, random_state=7)
    assert a == b and a.random_state == 7
    c = gender_probe(fa, ma, fs, ms, random_state=8)
    assert c.test_words != a.test_words


def test_accuracies_match_an_independent_scikit_learn_fit():
    fa, ma, fs, ms = _data(3, stereotype_strength=0.8, attribute_strength=0.6)
    r = gender_probe(fa, ma, fs, ms, random_state=5, C=0.5, class_weight=None, standardize=False)
    emb = np.vstack([fa[0], ma[0]])
    words = np.array(fa[1] + ma[1])
    y = np.r_[np.ones(len(fa[1])), np.zeros(len(ma[1]))]
    test = np.isin(words, r.test_words["female"] + r.test_words["male"])
    clf = LogisticRegression(C=0.5, max_iter=1000).fit(emb[~test], y[~test])
    pred = clf.predict(emb[test])
    assert r.gender_accuracy == pytest.approx(np.mean(pred == y[test]))
    assert r.n_train == int((~test).sum()) and r.n_test == int(test.sum())
    # Per word by majority.
    per_word = []
    for w in dict.fromkeys(words[test]):
        votes = pred[words[test] == w].mean()
        if votes == 0.5:
            votes = clf.predict_proba(emb[test][words[test] == w])[:, 1].mean()
        per_word.append((votes > 0.5) == bool(y[test][words[test] == w][0]))
    assert r.gender_accuracy_per_word == pytest.approx(np.mean(per_word))
    st = np.vstack([fs[0], ms[0]])
    st_y = np.r_[np.ones(len(fs[1])), np.zeros(len(ms[1]))]
    p_f = clf.predict_proba(st)[:, 1]
    assert r.stereotype_accuracy == pytest.approx(np.mean((p_f > 0.5) == st_y))
    assert r.stereotype_confidence == pytest.approx(np.mean(np.abs(p_f - 0.5)), abs=1e-6)
    assert 0.55 < r.gender_accuracy < 1.0  # a case where the probe is imperfect


def test_linear_svm_with_calibrated_probabilities_and_occurrence_unit():
    fa, ma, fs, ms = _data(4, stereotype_strength=2.0)
    r = gender_probe(fa, ma, fs, ms, classifier="linear_svm", randomization_unit="occurrence", random_state=0)
    assert r.classifier == "linear_svm" and r.randomization_unit == "occurrence"
    assert r.stereotype_accuracy > 0.9 and r.permutation_p_value < 0.01
    assert 0 < r.stereotype_confidence <= 0.5
    probe = GenderProbe("linear_svm", random_state=0)
    emb = np.vstack([fa[0], ma[0]])
    probe.fit(emb, fa[1] + ma[1], ["f"] * len(fa[1]) + ["m"] * len(ma[1]))
    p = probe.predict_proba_female(emb)
    assert np.all((p >= 0) & (p <= 1))
    np.testing.assert_array_equal(probe.predict(emb), (p > 0.5).astype(int))


def test_word_unit_keeps_each_words_occurrences_together():
    fa, ma, fs, ms = _data(5, stereotype_strength=0.0, n_stereo=3)
    r = gender_probe(fa, ma, fs, ms, n_randomizations=300, random_state=0)
    assert r.randomization_unit == "word"
    # With 3 + 3 words there are only C(6, 3) = 20 word relabelings: at most 20 distinct accuracies.
    assert len(set(np.round(r.random_accuracies, 12))) <= 20


def test_training_split_with_one_gender_is_an_error():
    fa, ma, fs, ms = _data(6, stereotype_strength=1.0)
    one_male_word = (ma[0][:3], ["ma0"] * 3)
    with pytest.raises(InvalidParameterError, match="one gender") as err:
        gender_probe(fa, one_male_word, fs, ms, random_state=0)
    assert err.value.parameter == "genders"
    probe = GenderProbe(random_state=0)
    with pytest.raises(InvalidParameterError, match="one gender"):
        probe.fit(fa[0], fa[1], ["female"] * len(fa[1]))
    with pytest.raises(InvalidParameterError) as err:
        probe.fit(fa[0], fa[1], ["x"] * len(fa[1]))
    assert err.value.parameter == "genders"


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        ({"classifier": "random_forest"}, "classifier"),
        ({"C": 0}, "C"),
        ({"test_size": 1.0}, "test_size"),
        ({"n_randomizations": 1}, "n_randomizations"),
        ({"randomization_unit": "sentence"}, "randomization_unit"),
        ({"alternative": "less"}, "alternative"),
    ],
)
def test_bad_parameters(kwargs, parameter):
    fa, ma, fs, ms = _data(7, stereotype_strength=1.0, n_attr=5, n_stereo=3)
    with pytest.raises(InvalidParameterError) as err:
        gender_probe(fa, ma, fs, ms, **kwargs)
    assert err.value.parameter == parameter


def test_bad_embeddings():
    fa, ma, fs, ms = _data(8, stereotype_strength=1.0, n_attr=5, n_stereo=3)
    bad = fa[0].copy()
    bad[0, 0] = np.nan
    with pytest.raises(InvalidParameterError):
        gender_probe((bad, fa[1]), ma, fs, ms)
    with pytest.raises(InvalidParameterError) as err:
        gender_probe(fa, ma, (fs[0][:, :5], fs[1]), ms)
    assert err.value.parameter == "female_stereotypes"
    with pytest.raises(InvalidParameterError):
        gender_probe(fa[0], ma, fs, ms)  # plain array without its word labels
    # Arrays plus word arguments, and stereotype arrays without words, work.
    with pytest.raises(InvalidParameterError, match="randomization_unit"):
        gender_probe(fa[0], ma[0], fs[0], ms[0], female_attribute_words=fa[1], male_attribute_words=ma[1])
    r = gender_probe(fa[0], ma[0], fs[0], ms[0], female_attribute_words=fa[1], male_attribute_words=ma[1],
                     randomization_unit="occurrence", random_state=0)
    assert r.stereotype_word_p_female == {} and math.isfinite(r.stereotype_accuracy)
    with pytest.raises(InvalidParameterError):
        GenderProbe(randomization_unit="word", random_state=0).fit(
            np.vstack([fa[0], ma[0]]), fa[1] + ma[1], [1] * len(fa[1]) + [0] * len(ma[1])
        ).evaluate(fs[0], [1] * len(fs[0]))


def test_alternative_greater_is_one_sided():
    fa, ma, fs, ms = _data(9, stereotype_strength=2.0)
    # Stereotypes given with swapped genders: accuracy far below chance.
    swapped_two = gender_probe(fa, ma, ms, fs, random_state=0)
    swapped_greater = gender_probe(fa, ma, ms, fs, random_state=0, alternative="greater")
    assert swapped_two.stereotype_accuracy < 0.2
    assert swapped_two.permutation_p_value < 0.01
    assert swapped_greater.permutation_p_value > 0.9
    straight = gender_probe(fa, ma, fs, ms, random_state=0, alternative="greater")
    assert straight.permutation_p_value == pytest.approx(1 / 101)
    import json

    from probekit.utils import dumps_json

    assert json.loads(dumps_json(straight))["alternative"] == "greater"


# -- balanced and word-level accuracies, class weights, grouped CV, calibration ------------------

def _prior_data(seed, stereotype_strength, male_offset, n_female_stereo=4, n_male_stereo=16):
    """Attribute sets with a gender direction; stereotype sets imbalanced (many more male words),
    each stereotype word shifted by ``male_offset`` towards the male side (a default) and by
    ``stereotype_strength`` towards its own gender (a stereotype)."""
    rng = np.random.default_rng(seed)
    direction = rng.normal(size=DIM)
    direction /= np.linalg.norm(direction)
    fa = _occurrences(rng, "fa", 20, +1, 3.0, direction)
    ma = _occurrences(rng, "ma", 30, -1, 3.0, direction)
    fs = _occurrences(rng, "fs", n_female_stereo, +1, stereotype_strength, direction)
    ms = _occurrences(rng, "ms", n_male_stereo, -1, stereotype_strength, direction)
    fs = (fs[0] - male_offset * direction, fs[1])
    ms = (ms[0] - male_offset * direction, ms[1])
    return fa, ma, fs, ms


@pytest.mark.parametrize("settings", [{}, PAPER_PROBE], ids=["default", "paper"])
def test_planted_prior_without_stereotype_is_not_a_stereotype(settings):
    fa, ma, fs, ms = _prior_data(10, stereotype_strength=0.0, male_offset=3.0)
    r = gender_probe(fa, ma, fs, ms, random_state=0, n_bootstrap=200, **settings)
    assert r.gender_accuracy > 0.9
    # Everything is called male: the paper's accuracy is the male share, the balanced one chance.
    assert r.stereotype_accuracy_male > 0.9 and r.stereotype_accuracy_female < 0.1
    assert r.stereotype_accuracy > 0.75
    assert r.stereotype_accuracy_balanced == pytest.approx(0.5, abs=0.05)
    assert r.stereotype_accuracy_word_balanced == pytest.approx(0.5, abs=0.05)
    assert r.stereotype_accuracy_word == pytest.approx(16 / 20, abs=0.06)
    assert r.permutation_p_value_balanced > 0.5
    low, high = r.stereotype_accuracy_balanced_ci
    assert low <= 0.5 <= high


def test_planted_stereotype_direction_gives_high_plain_and_balanced_accuracy():
    fa, ma, fs, ms = _prior_data(11, stereotype_strength=2.5, male_offset=0.0)
    r = gender_probe(fa, ma, fs, ms, random_state=0, n_bootstrap=200)
    assert r.stereotype_accuracy > 0.9 and r.stereotype_accuracy_balanced > 0.9
    assert r.stereotype_accuracy_word > 0.9 and r.stereotype_accuracy_word_balanced > 0.9
    assert r.permutation_p_value < 0.05 and r.permutation_p_value_balanced < 0.05
    assert r.stereotype_accuracy_balanced_ci[0] > 0.7
    low, high = r.stereotype_accuracy_ci
    assert low <= r.stereotype_accuracy <= high
    assert r.paper_setting is False and r.class_weight == "balanced" and r.standardize is True


def test_word_level_and_balanced_accuracies_match_brute_force():
    fa, ma, fs, ms = _data(12, stereotype_strength=0.7, attribute_strength=1.0)
    r = gender_probe(fa, ma, fs, ms, random_state=1, n_bootstrap=0)
    assert r.stereotype_accuracy_balanced == pytest.approx((r.stereotype_accuracy_female + r.stereotype_accuracy_male) / 2)
    female_words, male_words = set(fs[1]), set(ms[1])
    right = [(p > 0.5) == (w in female_words) for w, p in r.stereotype_word_p_female.items()]
    assert r.stereotype_accuracy_word == pytest.approx(np.mean(right))
    by_gender = [np.mean([(r.stereotype_word_p_female[w] > 0.5) == g for w in words])
                 for words, g in ((female_words, True), (male_words, False))]
    assert r.stereotype_accuracy_word_balanced == pytest.approx(np.mean(by_gender))
    assert r.gender_accuracy_ci is None and r.stereotype_accuracy_balanced_ci is None


def test_class_balanced_training_has_no_default_gender():
    """With 1 female per 5 male training words, the unweighted probe calls gender-neutral
    embeddings male far more often than the class-balanced one."""
    rng = np.random.default_rng(13)
    direction = rng.normal(size=DIM)
    direction /= np.linalg.norm(direction)
    fa = _occurrences(rng, "fa", 8, +1, 1.0, direction)
    ma = _occurrences(rng, "ma", 40, -1, 1.0, direction)
    neutral = rng.normal(size=(400, DIM))
    emb, words = np.vstack([fa[0], ma[0]]), fa[1] + ma[1]
    genders = [1] * len(fa[1]) + [0] * len(ma[1])
    shares = {}
    for weight in ("balanced", None):
        probe = GenderProbe(C=1.0, class_weight=weight, random_state=0).fit(emb, words, genders)
        shares[weight] = probe.predict(neutral).mean()
    assert shares[None] < 0.25
    assert 0.3 < shares["balanced"] < 0.7


def test_grouped_cv_keeps_each_word_on_one_side_and_picks_the_best_log_loss():
    from sklearn.metrics import log_loss
    from sklearn.preprocessing import StandardScaler

    fa, ma, fs, ms = _data(14, stereotype_strength=1.0, attribute_strength=0.8)
    emb, words = np.vstack([fa[0], ma[0]]), np.array(fa[1] + ma[1])
    genders = np.r_[np.ones(len(fa[1]), int), np.zeros(len(ma[1]), int)]
    probe = GenderProbe(random_state=3, Cs=(1e-3, 1e-2, 1e-1, 1.0, 10.0)).fit(emb, words, genders)
    test = np.isin(words, probe.test_words_["female"] + probe.test_words_["male"])
    X, y, w = emb[~test], genders[~test], words[~test]
    assert len(probe.cv_folds_) == 5
    seen = np.zeros(len(y), int)
    for train, valid in probe.cv_folds_:
        assert not set(w[train]) & set(w[valid])  # no word in both
        assert set(y[valid]) == {0, 1}
        seen[valid] += 1
    assert np.all(seen == 1)  # every training row validated exactly once
    # Independent reference: the same folds, the same scaled features, one fit per (C, fold).
    Xs = StandardScaler().fit_transform(X)
    mean_loss = {}
    for C in probe.Cs:
        losses = [log_loss(y[valid], LogisticRegression(C=C, class_weight="balanced", max_iter=1000)
                           .fit(Xs[train], y[train]).predict_proba(Xs[valid])[:, 1], labels=[0, 1])
                  for train, valid in probe.cv_folds_]
        mean_loss[C] = np.mean(losses)
    assert probe.C_ == min(mean_loss, key=mean_loss.get)
    for C, score in probe.cv_scores_.items():
        assert -score == pytest.approx(mean_loss[C], rel=1e-3)
    assert probe.C_selection_.startswith("5-fold word-grouped CV")


def test_calibration_is_brier_and_equal_width_ece():
    from probekit.intrinsic import probe_calibration

    rng = np.random.default_rng(15)
    p = np.r_[rng.uniform(size=500), 0.0, 1.0, 0.1, 0.3]
    y = (rng.uniform(size=p.size) < p ** 2).astype(int)
    out = probe_calibration(y, p, n_bins=10)
    assert out["brier_score"] == pytest.approx(np.mean((p - y) ** 2))
    ece = 0.0
    for b in range(10):  # brute force, the last bin closed on the right
        inside = (p >= b / 10) & ((p < (b + 1) / 10) if b < 9 else (p <= 1.0))
        if inside.any():
            ece += inside.mean() * abs(y[inside].mean() - p[inside].mean())
    assert out["expected_calibration_error"] == pytest.approx(ece)
    assert sum(b["count"] for b in out["bins"]) == p.size
    perfect = probe_calibration(np.r_[np.zeros(50), np.ones(50)], np.r_[np.zeros(50), np.ones(50)])
    assert perfect["brier_score"] == 0 and perfect["expected_calibration_error"] == 0


def test_saturated_paper_probe_is_worse_calibrated_than_the_cv_probe():
    fa, ma, fs, ms = _data(16, stereotype_strength=0.5, attribute_strength=0.7)
    cv = gender_probe(fa, ma, fs, ms, random_state=0, n_bootstrap=0)
    paper = gender_probe(fa, ma, fs, ms, random_state=0, n_bootstrap=0, C=100.0, class_weight=None, standardize=False)
    assert cv.C_setting == "cv" and cv.C in cv.cv_scores
    assert paper.C_setting == 100.0 and paper.C_selection == "fixed" and paper.cv_scores == {}
    assert cv.brier_score < paper.brier_score
    assert cv.stereotype_confidence < paper.stereotype_confidence
    assert 0 <= cv.expected_calibration_error <= 1


def test_paper_setting_flag_and_word_bootstrap_interval():
    fa, ma, fs, ms = _data(17, stereotype_strength=1.0)
    r = gender_probe(fa, ma, fs, ms, random_state=0, n_bootstrap=300, **PAPER_PROBE)
    assert r.paper_setting is True and r.C == 1.0 and r.class_weight is None
    low, high = r.gender_accuracy_ci
    assert low <= r.gender_accuracy <= high
    again = gender_probe(fa, ma, fs, ms, random_state=0, n_bootstrap=300, **PAPER_PROBE)
    assert again.gender_accuracy_ci == r.gender_accuracy_ci


@pytest.mark.parametrize(
    "kwargs, parameter",
    [({"class_weight": "auto"}, "class_weight"), ({"C": "auto"}, "C"), ({"Cs": []}, "Cs"),
     ({"n_bins": 0}, "n_bins"), ({"n_bootstrap": -1}, "n_bootstrap"), ({"standardize": "yes"}, "standardize")],
)
def test_bad_new_parameters(kwargs, parameter):
    fa, ma, fs, ms = _data(7, stereotype_strength=1.0, n_attr=5, n_stereo=3)
    with pytest.raises(InvalidParameterError) as err:
        gender_probe(fa, ma, fs, ms, **kwargs)
    assert err.value.parameter == parameter
