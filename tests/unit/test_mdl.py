"""Online-code MDL probe (Voita & Titov 2020): known answers on synthetic embeddings and a
brute-force reference with scikit-learn."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from probekit.errors import InvalidParameterError
from probekit.intrinsic import block_ends, mdl_probe, one_se_choice


def _data(seed, n_words=120, occurrences=3, dim=8, margin=2.0):
    """Word centres with a few noisy occurrences each; labels drawn at random per word (nothing to
    find) and labels given by the side of a hyperplane with a margin (linearly separable words)."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(size=(n_words, dim))
    row_word = np.repeat(np.arange(n_words), occurrences)
    words = np.array([f"w{i}" for i in range(n_words)])[row_word]
    random_labels = rng.integers(0, 2, n_words)[row_word]
    side = (centres[:, 0] > 0).astype(int)
    separable = centres.copy()
    separable[:, 0] += np.where(side == 1, margin, -margin)
    noise = 0.3 * rng.normal(size=(row_word.size, dim))
    return centres[row_word] + noise, random_labels, separable[row_word] + noise, side[row_word], words


@pytest.mark.parametrize("seed", [0, 2, 5])
def test_random_labels_cost_about_the_uniform_code_and_separable_ones_far_less(seed):
    X, random_labels, X_sep, separable_labels, words = _data(seed)
    n = X.shape[0]
    noise = mdl_probe(X, random_labels, words=words, random_state=seed)
    assert noise.uniform_codelength == pytest.approx(n)  # n bits for binary labels
    assert 0.85 < noise.online_codelength / noise.uniform_codelength < 1.25
    signal = mdl_probe(X_sep, separable_labels, words=words, random_state=seed)
    assert signal.online_codelength < 0.3 * signal.uniform_codelength
    assert signal.compression > 3
    assert sum(signal.block_codelengths) == pytest.approx(signal.online_codelength)


def test_matches_a_brute_force_online_code():
    X, _, X_sep, labels, words = _data(1, n_words=40, occurrences=2)
    fractions = (0.1, 0.25, 0.5, 1.0)
    r = mdl_probe(X_sep, labels, words=words, unit="occurrence", fractions=fractions, C=0.5,
                  standardize=False, shuffle=False)
    n = X_sep.shape[0]
    ends = [int(f * n) for f in fractions]
    bits = ends[0] * 1.0
    for start, stop in zip(ends, ends[1:]):
        model = LogisticRegression(C=0.5, max_iter=1000).fit(X_sep[:start], labels[:start])
        p = model.predict_proba(X_sep[start:stop])[np.arange(stop - start), labels[start:stop]]
        bits += -np.log2(p).sum()
    assert r.block_ends == ends
    assert r.online_codelength == pytest.approx(bits, rel=1e-6)
    assert r.block_C == [None, 0.5, 0.5, 0.5]


def test_word_unit_never_splits_a_word_between_blocks():
    X, labels, _, _, words = _data(3, n_words=50, occurrences=3)
    r = mdl_probe(X, labels, words=words, random_state=0)
    assert r.n_words == 50 and r.unit == "word"
    assert all(end % 3 == 0 for end in r.block_ends)  # every word has 3 rows, sent together
    ends = block_ends(10, (0.15, 0.5, 1.0), word_ends=np.array([2, 5, 9, 10]))
    assert ends == [2, 5, 10]


def test_same_seed_same_numbers_and_labels_of_any_type():
    X, labels, _, _, words = _data(4, n_words=30, occurrences=2)
    names = np.where(labels == 1, "female", "male")
    a = mdl_probe(X, names, words=words, random_state=7)
    b = mdl_probe(X, names, words=words, random_state=7)
    assert a.to_dict() == b.to_dict()
    assert a.n_classes == 2 and a.random_state == 7


def test_one_standard_error_rule_prefers_the_uniform_code_and_then_small_C():
    Cs = (0.01, 0.1, 1.0)
    close = np.array([[-0.55, -0.50, -0.45], [-0.80, -0.78, -0.90]])  # best C=0.1, within noise of uniform
    assert one_se_choice(close, Cs, uniform_score=-math.log(2)) is None
    clear = np.array([[-0.30, -0.20, -0.21], [-0.32, -0.22, -0.20]])
    assert one_se_choice(clear, Cs, uniform_score=-math.log(2)) == 0.1


@pytest.mark.parametrize(
    "kwargs, parameter",
    [({"fractions": (0.5, 0.9)}, "fractions"), ({"fractions": (1.0,)}, "fractions"), ({"unit": "token"}, "unit"),
     ({"C": -1}, "C"), ({"words": None}, "words"), ({"n_folds": 1}, "n_folds")],
)
def test_bad_parameters(kwargs, parameter):
    X, labels, _, _, words = _data(5, n_words=10, occurrences=2)
    call = {"words": words, **kwargs}
    with pytest.raises(InvalidParameterError) as err:
        mdl_probe(X, labels, **call)
    assert err.value.parameter == parameter


def test_one_class_is_an_error():
    X, _, _, _, words = _data(6, n_words=10, occurrences=2)
    with pytest.raises(InvalidParameterError) as err:
        mdl_probe(X, np.ones(X.shape[0]), words=words)
    assert err.value.parameter == "labels"
