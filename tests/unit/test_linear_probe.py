"""The shared linear probe: word-grouped folds, the scaler inside the pipeline, C selection."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.preprocessing import StandardScaler

from probekit.errors import InvalidParameterError
from probekit.intrinsic import check_class_weight, fit_linear_probe, word_grouped_folds


def _rows(seed, n_words=24, dim=6):
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 6, n_words)  # words with different numbers of occurrences
    words = np.repeat([f"w{i}" for i in range(n_words)], counts)
    word_gender = np.r_[np.ones(n_words // 3, int), np.zeros(n_words - n_words // 3, int)]
    y = np.repeat(word_gender, counts)
    X = rng.normal(size=(y.size, dim)) * 5 + 10  # far from standardized
    X[:, 0] += 3 * (2 * y - 1)
    return X, y, words


@pytest.mark.parametrize("seed", range(5))
def test_grouped_folds_never_put_a_word_on_both_sides(seed):
    X, y, words = _rows(seed)
    folds = word_grouped_folds(y, words, 4, seed)
    validated = np.zeros(y.size, int)
    for train, valid in folds:
        assert not set(words[train]) & set(words[valid])
        assert set(train) | set(valid) == set(range(y.size))
        validated[valid] += 1
    assert np.all(validated == 1)


def test_fixed_C_pipeline_standardizes_inside_and_matches_scikit_learn():
    X, y, words = _rows(10)
    fitted = fit_linear_probe(X, y, words, C=0.3, class_weight="balanced", standardize=True)
    assert [name for name, _ in fitted.model.steps] == ["drop", "scale", "clf"]
    assert fitted.C == 0.3 and fitted.C_selection == "fixed" and fitted.cv_scores == {}
    scaler = StandardScaler().fit(X)
    reference = LogisticRegression(C=0.3, class_weight="balanced", max_iter=1000).fit(scaler.transform(X), y)
    np.testing.assert_allclose(fitted.model.predict_proba(X), reference.predict_proba(scaler.transform(X)), atol=1e-6)
    raw = fit_linear_probe(X, y, words, C=0.3, class_weight=None, standardize=False)
    assert [name for name, _ in raw.model.steps] == ["drop", "clf"]


def test_cv_choice_for_both_classifiers_uses_word_grouped_folds():
    X, y, words = _rows(11)
    logistic = fit_linear_probe(X, y, words, C="cv", Cs=(0.01, 0.1, 1.0), n_folds=3, seed=1)
    assert logistic.C in (0.01, 0.1, 1.0) and logistic.C_selection == "3-fold word-grouped CV (log loss)"
    assert logistic.fold_scores.shape == (3, 3)
    assert logistic.C == max(logistic.cv_scores, key=logistic.cv_scores.get)
    svm = fit_linear_probe(X, y, words, classifier="linear_svm", C="cv", Cs=(0.01, 0.1, 1.0), n_folds=3, seed=1)
    assert svm.C_selection == "3-fold word-grouped CV (accuracy)"
    p = svm.model.predict_proba(X)[:, 1]
    assert np.all((p >= 0) & (p <= 1))
    for train, valid in svm.cv_folds:
        assert not set(words[train]) & set(words[valid])


def test_cv_needs_two_words_per_class():
    X, y, words = _rows(12)
    one_female = np.where(y == 1, "she", words)
    with pytest.raises(InvalidParameterError) as err:
        fit_linear_probe(X, y, one_female, C="cv")
    assert err.value.parameter == "C"
    assert fit_linear_probe(X, y, one_female, C=1.0).C == 1.0  # a fixed C needs no folds


def test_class_weight_spellings():
    assert check_class_weight("None") is None and check_class_weight("balanced") == "balanced"
    with pytest.raises(InvalidParameterError):
        check_class_weight("auto")
