"""Readers (linear, MLP, kernel), their control tasks, MDL through the reader API, and the verdict, on
planted concepts with known answers."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.kernel_approximation import Nystroem
from sklearn.linear_model import LogisticRegression
from sklearn.neural_network import MLPClassifier
from sklearn.preprocessing import StandardScaler

from probekit.errors import InvalidParameterError
from probekit.intrinsic import (
    DegenerateColumnFilter,
    KernelReader,
    LinearReader,
    MLPReader,
    check_readers,
    control_labels,
    gender_probe,
    layer_verdict,
    make_reader,
    mdl_probe,
    read_concept,
    read_layer,
)

SEEDS = range(20)
#: A small MLP search keeps 20 seeds fast; the default search runs in scripts/bench_probes.py.
SMALL = {"linear": {"Cs": (1e-2, 1e-1, 1.0), "n_folds": 3},
         "mlp": {"hidden_layer_sizes": [(16,)], "alphas": (1e-3,), "max_epochs": 25},
         "kernel": {"n_components": 60, "Cs": (1e-2, 1e-1, 1.0), "n_folds": 3}}


def _planted(seed: int, kind: str, n_words: int = 40, occurrences: int = 3, dim: int = 6):
    """Rows of ``n_words`` words per class, ``occurrences`` each: the word's vector plus small noise.

    ``linear``: class shifts dimension 0 by +-1.5. ``xor``: dimensions 0 and 1 sit near the corners
    (+-1, +-1), a quarter of the words at each, and the class is the XOR of their signs (no linear
    reader can read it). ``noise``:
    labels independent of the vectors.
    """
    rng = np.random.default_rng(seed)
    n = 2 * n_words
    y_word = np.repeat([0, 1], n_words)
    base = rng.normal(size=(n, dim))
    if kind == "linear":
        base[:, 0] += np.where(y_word == 1, 1.5, -1.5)
    elif kind == "xor":  # each corner holds a quarter of the words, so no class mean differs
        signs = rng.permutation(np.array([[-1.0, -1.0], [-1.0, 1.0], [1.0, -1.0], [1.0, 1.0]] * (n // 4)))
        base[:, :2] = signs + 0.15 * rng.normal(size=(n, 2))
        y_word = (signs[:, 0] * signs[:, 1] > 0).astype(int)
    word_of = np.repeat(np.arange(n), occurrences)
    X = base[word_of] + 0.1 * rng.normal(size=(word_of.size, dim))
    return X, y_word[word_of], np.array([f"w{i}" for i in word_of])


def _layer(seed: int, kind: str, readers=("linear", "mlp", "kernel"), control: bool = False):
    X, y, words = _planted(seed, kind)
    return read_layer(X, y, words, readers=readers, test_size=0.3, control=control, n_bootstrap=300,
                      reader_params=SMALL, random_state=seed)


@pytest.fixture(scope="module")
def noise_layers():
    return [_layer(seed, "noise", control=True) for seed in SEEDS]


# -- the verdict on planted concepts (20 seeds each) --------------------------------------------------

def test_linearly_coded_concept_is_present():
    verdicts = [_layer(seed, "linear", readers=("linear",))["verdict"]["verdict"] for seed in SEEDS]
    assert verdicts == ["present"] * 20


def _balanced_test_words(seed: int) -> list[str]:
    """Held-out words: 30 % of each corner's words, so that both the training and the held-out words of
    each class sit equally at its two corners (a finite-sample corner imbalance is itself linearly
    readable, and the training split's imbalance is the opposite of the held-out one's).
    """
    X, _, words = _planted(seed, "xor")
    first = np.unique(words, return_index=True)[1]
    corner = (X[first, 0] > 0).astype(int) * 2 + (X[first, 1] > 0).astype(int)
    vocabulary = words[first]
    return [w for c in range(4) for w in vocabulary[corner == c][:6]]


def test_xor_coded_concept_is_linearly_hidden():
    for seed in SEEDS:
        X, y, words = _planted(seed, "xor")
        layer = read_layer(X, y, words, readers=("linear", "mlp"), test_words=_balanced_test_words(seed), control=False,
                           n_bootstrap=300, reader_params=SMALL, random_state=seed)
        linear, mlp = layer["readers"]["linear"], layer["readers"]["mlp"]
        low, high = linear["balanced_accuracy_ci"]
        assert low <= 0.5 <= high, (seed, linear["balanced_accuracy_ci"])
        assert mlp["balanced_accuracy"] >= 0.9 and mlp["balanced_accuracy_ci"][0] > 0.5, (seed, mlp)
        assert layer["verdict"]["verdict"] == "linearly hidden"


def test_pure_noise_is_removed_for_every_reader(noise_layers):
    verdicts = [layer["verdict"]["verdict"] for layer in noise_layers]
    assert verdicts.count("present") <= 1, verdicts
    assert verdicts.count("removed") >= 18, verdicts
    assert {name for layer in noise_layers for name in layer["readers"]} == {"linear", "mlp", "kernel"}


def test_control_accuracy_is_reported_and_selectivity_is_near_zero_for_an_absent_concept(noise_layers):
    for name in ("linear", "mlp", "kernel"):
        control = np.array([layer["readers"][name]["control_balanced_accuracy"] for layer in noise_layers])
        selectivity = np.array([layer["readers"][name]["selectivity"] for layer in noise_layers])
        assert np.all((control >= 0) & (control <= 1))
        # 12 held-out words per class: one seed's selectivity has a standard error near 0.14.
        assert abs(selectivity.mean()) < 0.05, (name, selectivity)
        assert np.median(np.abs(selectivity)) < 0.15, (name, selectivity)


def test_selectivity_is_high_for_a_present_concept():
    result = read_concept(*_planted(0, "linear"), reader="linear", test_size=0.3, n_bootstrap=100)
    assert result.selectivity > 0.3 and abs(result.control_balanced_accuracy - 0.5) < 0.25


def test_control_labels_are_per_word_type_and_keep_the_class_sizes():
    words = np.array(["a", "a", "b", "c", "c", "c", "d"])
    y = np.array([1, 1, 0, 1, 1, 1, 0])
    control = control_labels(words, y, np.random.default_rng(3))
    for w in np.unique(words):
        assert np.unique(control[words == w]).size == 1
    per_word = {w: control[words == w][0] for w in np.unique(words)}
    assert sorted(per_word.values()) == [0, 0, 1, 1]


# -- the LEACE artefact ---------------------------------------------------------------------------------

def _erased_with_degenerate_columns(seed: int):
    """A linearly coded concept erased by LEACE (the concept-erasure package, float64), then two
    near-constant columns that carry gender-correlated residue of ~1e-17 (std ~1e-17 and ~1e-32),
    as LEACE left them on MiniLM's last layer.
    """
    import torch
    from concept_erasure import LeaceEraser

    X, y, words = _planted(seed, "linear", n_words=40, dim=8)
    eraser = LeaceEraser.fit(torch.from_numpy(X), torch.from_numpy(y))
    erased = eraser(torch.from_numpy(X)).numpy()
    rng = np.random.default_rng(seed)
    sign = np.where(y == 1, 1.0, -1.0)
    residue = np.column_stack([0.25 + 1e-17 * sign + 1e-18 * rng.normal(size=y.size), 1e-32 * sign])
    return np.column_stack([erased, residue]), y, words


def test_leace_artefact_standardizing_near_constant_columns_reads_the_residue():
    """The artefact exists: a standardized logistic regression without the filter reads the residue."""
    X, y, words = _erased_with_degenerate_columns(0)
    test = np.isin(words, np.unique(words)[::4])
    Z = StandardScaler().fit(X[~test]).transform(X)
    plain = LogisticRegression(C=1.0, max_iter=1000).fit(Z[~test], y[~test])
    assert plain.score(Z[test], y[test]) >= 0.95


@pytest.mark.parametrize("seed", range(3))
def test_leace_artefact_every_reader_drops_near_constant_columns(seed):
    X, y, words = _erased_with_degenerate_columns(seed)
    layer = read_layer(X, y, words, readers=("linear", "mlp", "kernel"), test_size=0.3, control=False,
                       n_bootstrap=200, reader_params=SMALL, random_state=seed)
    for name, result in layer["readers"].items():
        assert result["n_dropped_columns"] == 2, name
        assert result["balanced_accuracy"] < 0.8, (name, result["balanced_accuracy"])
    assert layer["verdict"]["verdict"] != "present"
    assert any(flag["flag"] == "degenerate columns dropped" for flag in layer["verdict"]["flags"])


def test_leace_artefact_gender_probe_and_mdl_drop_near_constant_columns():
    X, y, words = _erased_with_degenerate_columns(1)
    f, m = y == 1, y == 0
    result = gender_probe((X[f], words[f]), (X[m], words[m]), X[f][:5], X[m][:5], randomization_unit="occurrence",
                          n_randomizations=10, n_bootstrap=100, random_state=0)
    assert result.n_dropped_columns == 2 and result.gender_accuracy < 0.8
    assert result.gender_accuracy_balanced_ci is not None
    mdl = mdl_probe(X, y, words=words, random_state=0)
    assert mdl.n_dropped_columns == 2 and mdl.compression < 1.2


def test_degenerate_filter_rule():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=50), rng.normal(size=50) * 1e-3, np.full(50, 3.0),
                         1e-9 * rng.normal(size=50), 2.0 + 1e-17 * rng.normal(size=50)])
    keep = DegenerateColumnFilter().fit(X)
    assert keep.keep_.tolist() == [True, True, False, False, False] and keep.n_dropped_ == 3
    assert DegenerateColumnFilter().fit(np.ones((4, 2))).transform(np.ones((3, 2))).shape == (3, 1)


# -- flags ------------------------------------------------------------------------------------------------

def _reader(ba, ci, dropped=0):
    return {"balanced_accuracy": ba, "balanced_accuracy_ci": ci, "chance": 0.5, "n_dropped_columns": dropped,
            "n_columns": 10}


def test_verdict_flags_below_chance_and_mdl_disagreement():
    below = layer_verdict({"linear": _reader(0.12, [0.05, 0.2])})
    assert below["verdict"] == "removed" and [f["flag"] for f in below["flags"]] == ["below chance"]
    artefact = layer_verdict({"linear": _reader(1.0, [1.0, 1.0], dropped=0)}, {"linear": 1.16})
    assert artefact["verdict"] == "present"
    assert [f["flag"] for f in artefact["flags"]] == ["readers and MDL disagree"]
    quiet = layer_verdict({"linear": _reader(0.52, [0.45, 0.6]), "mlp": _reader(0.5, [0.4, 0.6])}, {"mlp": 3.0})
    assert quiet["verdict"] == "removed" and quiet["flags"][0]["reader"] == "mlp"
    hidden = layer_verdict({"linear": _reader(0.52, [0.45, 0.6]), "kernel": _reader(0.8, [0.7, 0.9])})
    assert hidden["verdict"] == "linearly hidden" and "rule" in hidden and "1/K" in hidden["rule"]
    with pytest.raises(InvalidParameterError):
        layer_verdict({"mlp": _reader(0.8, [0.7, 0.9])})


# -- readers against scikit-learn ---------------------------------------------------------------------------

def test_linear_reader_matches_a_scikit_learn_pipeline():
    X, y, words = _planted(4, "linear")
    reader = LinearReader(C=0.3, random_state=0).fit(X, y, words)
    Z = StandardScaler().fit(X).transform(X)
    reference = LogisticRegression(C=0.3, class_weight="balanced", max_iter=1000).fit(Z, y)
    np.testing.assert_allclose(reader.predict_proba(X)[:, 1], reference.predict_proba(Z)[:, 1], atol=1e-6)


def test_kernel_reader_matches_nystroem_then_logistic_regression():
    X, y, words = _planted(5, "xor")
    reader = KernelReader(n_components=50, C=1.0, random_state=2).fit(X, y, words)
    Z = StandardScaler().fit(X).transform(X)
    features = Nystroem(gamma=1 / X.shape[1], n_components=50, random_state=2).fit(Z).transform(Z)
    F = StandardScaler().fit(features).transform(features)
    reference = LogisticRegression(C=1.0, class_weight="balanced", max_iter=1000).fit(F, y)
    np.testing.assert_allclose(reader.predict_proba(X)[:, 1], reference.predict_proba(F)[:, 1], atol=1e-6)


def test_mlp_reader_log_probabilities_match_scikit_learn():
    X, y, words = _planted(6, "xor")
    reader = MLPReader(hidden_layer_sizes=[(8, 8)], alphas=(1e-2,), max_epochs=5, random_state=1).fit(X, y, words)
    model = reader.model_
    assert isinstance(model, MLPClassifier) and reader.params_["hidden_layer_sizes"] == [8, 8]
    np.testing.assert_allclose(reader.predict_proba(X), model.predict_proba(reader._features(X)), atol=1e-9)


def test_mlp_reader_is_seeded_and_chooses_epochs_by_grouped_cross_validation():
    X, y, words = _planted(7, "xor")
    a = MLPReader(**SMALL["mlp"], random_state=3).fit(X, y, words)
    b = MLPReader(**SMALL["mlp"], random_state=3).fit(X, y, words)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))
    assert 1 <= a.params_["epochs"] <= 30 and "word-grouped" in a.selection_


def test_reader_names_and_bad_parameters():
    assert check_readers("kernel, linear") == ("linear", "kernel")
    with pytest.raises(InvalidParameterError):
        check_readers("linear,svm")
    with pytest.raises(InvalidParameterError):
        make_reader("forest")
    with pytest.raises(InvalidParameterError):
        MLPReader(hidden_layer_sizes=[(4, 4, 4)]).fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(InvalidParameterError):
        LinearReader(C=-1.0).fit(np.eye(4), [0, 1, 0, 1])


# -- MDL through the reader API ---------------------------------------------------------------------------------

def test_mdl_of_the_mlp_family_compresses_xor_and_not_noise():
    X, y, words = _planted(8, "xor", n_words=64)
    blocks = (0.1, 0.2, 0.4, 0.7, 1.0)
    xor = mdl_probe(X, y, words=words, reader="mlp", fractions=blocks, random_state=0)
    linear = mdl_probe(X, y, words=words, reader="linear", fractions=blocks, random_state=0)
    Xn, yn, wn = _planted(8, "noise", n_words=64)
    noise = mdl_probe(Xn, yn, words=wn, reader="mlp", fractions=blocks, random_state=0)
    assert xor.reader == "mlp" and xor.block_params[0] is None
    assert xor.compression > 1.5 and xor.compression > linear.compression + 0.5
    assert noise.compression < 1.05


# -- downstream leakage with a nonlinear reader ------------------------------------------------------------------

def test_leakage_probe_takes_a_reader():
    from probekit.finetune import probe_leakage

    rng = np.random.default_rng(0)
    signs = rng.choice([-1.0, 1.0], size=(400, 2))
    X = np.column_stack([signs + 0.1 * rng.normal(size=(400, 2)), rng.normal(size=(400, 2))])
    genders = np.where(signs[:, 0] * signs[:, 1] > 0, "female", "male")
    linear = probe_leakage(X, genders, mdl=False, n_bootstrap=200)
    mlp = probe_leakage(X, genders, mdl=False, n_bootstrap=200, reader="mlp")
    assert linear["reader"] == "linear" and mlp["reader"] == "mlp"
    assert linear["interval"][0] < 0.5 < linear["interval"][1] or linear["balanced_accuracy"] < 0.6
    assert mlp["balanced_accuracy"] > 0.9 and mlp["interval"][0] > 0.5
    with pytest.raises(InvalidParameterError):
        probe_leakage(X, genders, reader="forest")
