"""Upper bounds: every reader after a label-aware eraser (oracle / quadratic LEACE), word-disjoint.

Oracle LEACE removes what a linear reader reads but leaves an XOR-coded concept to an MLP (Belrose et
al. 2023's warning about nonlinear readers); quadratic LEACE also equalizes the class covariances, which
is what an XOR-coded concept differs in, so the MLP loses it too.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
from concept_erasure import QuadraticFitter

from probekit.errors import InvalidParameterError
from probekit.intrinsic import check_upper_bounds, erasure_folds, label_aware_folds, read_upper_bounds

SMALL = {"linear": {"Cs": (1e-2, 1e-1, 1.0), "n_folds": 3},
         "mlp": {"hidden_layer_sizes": [(16,)], "alphas": (1e-3,), "max_epochs": 25}}


def _xor(seed: int, n_words: int = 40, occurrences: int = 3, dim: int = 4):
    """Words near the corners (+-1, +-1) of dimensions 0 and 1, a quarter at each; class = XOR of the signs."""
    rng = np.random.default_rng(seed)
    n = 2 * n_words
    signs = rng.permutation(np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]] * (n // 4)))
    base = rng.normal(size=(n, dim))
    base[:, :2] = signs + 0.15 * rng.normal(size=(n, 2))
    y_word = (signs[:, 0] * signs[:, 1] > 0).astype(int)
    word_of = np.repeat(np.arange(n), occurrences)
    X = base[word_of] + 0.1 * rng.normal(size=(word_of.size, dim))
    return X, np.where(y_word[word_of] == 1, "b", "a"), np.array([f"w{i}" for i in word_of])


def test_names_are_checked_and_ordered():
    assert check_upper_bounds("quadratic-leace, oracle-leace") == ("oracle-leace", "quadratic-leace")
    assert check_upper_bounds(None) == () and check_upper_bounds("") == ()
    with pytest.raises(InvalidParameterError, match="--upper-bounds.*oracle-leace,quadratic-leace"):
        check_upper_bounds("leace", "--upper-bounds")


def test_each_fold_is_quadratic_leace_fitted_on_its_training_rows_and_applied_with_every_rows_label():
    """Against the authors' concept-erasure QuadraticFitter fitted on the fold's training rows only."""
    X, y, words = _xor(0)
    tests = erasure_folds(y, words, 3, random_state=0)
    codes = torch.from_numpy((y == "b").astype(np.int64))
    for test, erased in zip(tests, label_aware_folds("quadratic-leace", X, y, tests)):
        train = torch.from_numpy(~test)
        fitter = QuadraticFitter.fit(torch.from_numpy(X)[train], codes[train])
        np.testing.assert_allclose(erased, fitter.eraser(torch.from_numpy(X), codes).numpy(), atol=1e-6)


def _covariance_coded(seed: int, n_words: int = 40, occurrences: int = 3, dim: int = 2):
    """Gaussian words whose class sets only the spread of dimension 0 (4x for class "b"); equal means."""
    rng = np.random.default_rng(seed)
    y_word = np.repeat([0, 1], n_words)
    base = rng.normal(size=(2 * n_words, dim))
    base[:, 0] *= np.where(y_word == 1, 4.0, 1.0)
    word_of = np.repeat(np.arange(2 * n_words), occurrences)
    X = base[word_of] + 0.1 * rng.normal(size=(word_of.size, dim))
    return X, np.where(y_word[word_of] == 1, "b", "a"), np.array([f"w{i}" for i in word_of])


def _read(X, y, words, bounds):
    return read_upper_bounds({3: X}, y, words, upper_bounds=bounds, readers=("linear", "mlp"), n_folds=3, control=False,
                             n_bootstrap=200, reader_params=SMALL, random_state=1)


def test_an_xor_concept_survives_both_label_aware_erasers_for_the_mlp():
    """Oracle LEACE leaves it (Belrose et al. 2023's warning); quadratic LEACE maps each class linearly, so
    each class's two clusters stay apart (its guarantee holds for Gaussian classes only)."""
    X, y, words = _xor(1, n_words=32)
    bounds = _read(X, y, words, ["quadratic-leace", "oracle-leace"])
    assert list(bounds) == ["oracle-leace", "quadratic-leace"]
    for name in bounds:
        row = bounds[name]["rows"][0]
        low, high = row["readers"]["linear"]["balanced_accuracy_ci"]
        assert row["layer"] == 3 and low <= 0.5 <= high, (name, low, high)
        assert row["readers"]["mlp"]["balanced_accuracy_ci"][0] > 0.6, name
        assert row["verdict"]["verdict"] == "linearly hidden"
        assert row["verdict"]["erasure_check"]["word_disjoint"] is True
        assert row["readers"]["linear"]["n_test"] == y.size  # every occurrence predicted once, out of fold
    assert "not a deployable method" in bounds["oracle-leace"]["note"]["message"]


def test_quadratic_leace_removes_a_concept_coded_in_the_class_covariance_and_oracle_leace_does_not():
    X, y, words = _covariance_coded(2)
    bounds = _read(X, y, words, ["oracle-leace", "quadratic-leace"])
    oracle, quadratic = (bounds[name]["rows"][0] for name in ("oracle-leace", "quadratic-leace"))
    assert oracle["readers"]["mlp"]["balanced_accuracy_ci"][0] > 0.6
    assert oracle["verdict"]["verdict"] == "linearly hidden"
    assert quadratic["readers"]["mlp"]["balanced_accuracy_ci"][0] <= 0.5
    assert quadratic["verdict"]["verdict"] == "removed"
