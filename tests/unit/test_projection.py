"""Post-hoc erasers (Sent-debias, INLP, LEACE) on synthetic embeddings, against scikit-learn and the
``concept-erasure`` reference package; the output-projection type and its directory format."""

from __future__ import annotations

import json

import numpy as np
import pytest
from sklearn.decomposition import PCA
from sklearn.linear_model import LogisticRegression

from debias import INLP, LEACE, LinearEraser, SentDebias
from probekit.encoders import (
    CONFIG_FILE,
    WEIGHTS_FILE,
    OutputProjection,
    read_projection_dir,
    write_projection_dir,
)
from probekit.errors import InvalidParameterError, ModelLoadError, NotFittedError, ProbekitError

DIM = 16


def _unit(rng, d=DIM):
    v = rng.normal(size=d)
    return v / np.linalg.norm(v)


def _pairs(seed=0, n=60, k=1, noise=0.0, d=DIM):
    """Counterfactual pairs whose differences lie in a planted k-dimensional subspace (+ noise)."""
    rng = np.random.default_rng(seed)
    basis = np.linalg.qr(rng.normal(size=(d, k)))[0].T  # k x d orthonormal
    base = rng.normal(size=(n, d)) * 2.0
    coef = rng.normal(size=(n, k)) * np.linspace(3.0, 1.5, k) + 2.0
    diff = coef @ basis + noise * rng.normal(size=(n, d))
    return base + diff / 2, base - diff / 2, basis


def _labelled(seed=0, n=400, d=DIM, strength=2.0, weights=(0.5, 0.5)):
    """Rows with a planted class-dependent shift along one direction (plus correlated noise)."""
    rng = np.random.default_rng(seed)
    y = rng.choice(len(weights), size=n, p=weights)
    direction = _unit(rng, d)
    mixing = rng.normal(size=(d, d)) / np.sqrt(d) + np.eye(d)
    X = rng.normal(size=(n, d)) @ mixing + np.outer(np.where(y == 1, 1.0, -1.0) * strength, direction)
    return X, y, direction


# ------------------------------------------------------------------------------- Sent-debias


def test_sent_debias_subspace_is_orthonormal_and_matches_sklearn_pca():
    # normalize=False: the reference below is the PCA of the raw pairs (the unit-norm default has its own test)
    female, male, _ = _pairs(k=3, noise=0.3)
    eraser = SentDebias(k=3, normalize=False).fit(female, male)
    V = eraser.subspace_
    assert V.shape == (3, DIM)
    np.testing.assert_allclose(V @ V.T, np.eye(3), atol=1e-10)
    mean = (female + male) / 2
    reference = PCA(n_components=3).fit(np.vstack([female - mean, male - mean]))
    np.testing.assert_allclose(np.abs(np.sum(V * reference.components_, axis=1)), 1.0, atol=1e-10)
    np.testing.assert_allclose(eraser.explained_variance_ratio_, reference.explained_variance_ratio_, atol=1e-12)
    np.testing.assert_allclose(eraser.matrix_, np.eye(DIM) - V.T @ V, atol=1e-12)
    np.testing.assert_array_equal(eraser.offset_, np.zeros(DIM))


def test_sent_debias_pair_differences_vanish_and_transform_formula():
    # normalize=False: only then do the raw pair differences lie exactly in the fitted subspace
    female, male, _ = _pairs(k=2)
    eraser = SentDebias(k=2, normalize=False).fit(female, male)
    f2, m2 = eraser.transform(female), eraser.transform(male)
    assert np.abs(f2 - m2).max() < 1e-6
    h = np.random.default_rng(3).normal(size=(5, DIM))
    V = eraser.subspace_
    np.testing.assert_allclose(eraser.transform(h), h - (h @ V.T) @ V, atol=1e-12)
    np.testing.assert_allclose(eraser.transform(h) @ V.T, 0.0, atol=1e-12)
    both = SentDebias(k=2, normalize=False).fit_transform(female, male)
    np.testing.assert_allclose(both[0], f2)
    np.testing.assert_allclose(both[1], m2)


def test_sent_debias_default_normalizes_sentence_vectors_as_the_published_code():
    """Liang et al.'s code and the survey's (Meade et al. 2022) scale every sentence vector to unit
    length before centring the pairs; the default follows them."""
    female, male, _ = _pairs(k=2, noise=0.3)
    female = female * np.random.default_rng(5).uniform(0.5, 4.0, size=(len(female), 1))  # unequal lengths
    eraser = SentDebias(k=2).fit(female, male)
    f = female / np.linalg.norm(female, axis=1, keepdims=True)
    m = male / np.linalg.norm(male, axis=1, keepdims=True)
    mean = (f + m) / 2
    reference = PCA(n_components=2).fit(np.vstack([f - mean, m - mean]))
    np.testing.assert_allclose(np.abs(np.sum(eraser.subspace_ * reference.components_, axis=1)), 1.0, atol=1e-10)
    np.testing.assert_allclose(eraser.explained_variance_ratio_, reference.explained_variance_ratio_, atol=1e-12)
    raw = SentDebias(k=2, normalize=False).fit(female, male)
    assert np.abs(np.abs(np.sum(raw.subspace_ * reference.components_, axis=1)) - 1.0).max() > 1e-3
    assert SentDebias().get_params() == {"k": 1, "normalize": True, "alpha": 1.0}
    with pytest.raises(InvalidParameterError, match="normalize"):
        SentDebias(normalize="yes").fit(female, male)
    with pytest.raises(InvalidParameterError, match="zero vector"):
        SentDebias().fit(np.vstack([np.zeros((1, DIM)), female[1:]]), male)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_sent_debias_recovers_planted_direction(seed):
    female, male, basis = _pairs(seed=seed, n=200, k=1, noise=0.2)
    eraser = SentDebias(k=1).fit(female, male)
    assert abs(float(eraser.subspace_[0] @ basis[0])) > 0.99
    assert eraser.explained_variance_ratio_[0] > 0.5


def test_sent_debias_pair_order_does_not_matter_and_layers_stack():
    female, male, _ = _pairs(k=1, noise=0.3)
    a = SentDebias().fit(female, male)
    swapped = np.where(np.arange(len(female))[:, None] % 2 == 0, male, female)
    other = np.where(np.arange(len(female))[:, None] % 2 == 0, female, male)
    b = SentDebias().fit(swapped, other)
    np.testing.assert_allclose(a.matrix_, b.matrix_, atol=1e-10)
    layered = SentDebias().fit(np.stack([female, female], axis=1), np.stack([male, male], axis=1))
    np.testing.assert_allclose(layered.matrix_, a.matrix_, atol=1e-10)
    out = layered.transform(np.stack([female, male], axis=1))
    assert out.shape == (len(female), 2, DIM)


def test_sent_debias_checks():
    female, male, _ = _pairs()
    with pytest.raises(InvalidParameterError, match="k=0"):
        SentDebias(k=0).fit(female, male)
    with pytest.raises(InvalidParameterError, match="male"):
        SentDebias().fit(female, male[:-1])
    with pytest.raises(InvalidParameterError, match="k=40"):
        SentDebias(k=40).fit(female[:3], male[:3])
    with pytest.raises(NotFittedError, match="not fitted"):
        SentDebias().transform(female)
    with pytest.raises(InvalidParameterError, match="last axis"):
        SentDebias().fit(female, male).transform(female[:, :3])


# -------------------------------------------------------------------------------------- INLP


@pytest.mark.parametrize("classifier", ["logistic", "linear_svm"])
def test_inlp_reaches_chance_and_is_an_orthogonal_projection(classifier):
    X, y, direction = _labelled(seed=1, n=600, strength=2.5)
    eraser = INLP(n_iterations=20, classifier=classifier, random_state=0).fit(X, y)
    P = eraser.projection_
    np.testing.assert_allclose(P, P.T, atol=1e-10)
    np.testing.assert_allclose(P @ P, P, atol=1e-10)
    assert eraser.converged_
    assert eraser.accuracies_[0] > 0.9
    assert eraser.accuracies_[-1] <= eraser.chance_ + eraser.chance_tolerance
    assert eraser.n_iterations_ == len(eraser.accuracies_)
    B = eraser.directions_
    assert B.shape[0] == eraser.n_iterations_ - 1
    np.testing.assert_allclose(B @ B.T, np.eye(B.shape[0]), atol=1e-10)
    np.testing.assert_allclose(P, np.eye(DIM) - B.T @ B, atol=1e-10)
    # The planted direction is (almost entirely) in the removed space.
    assert np.linalg.norm(P @ direction) < 0.3
    # A fresh classifier on the projected held-out-free data does little better than chance.
    Xp = eraser.transform(X)
    fresh = LogisticRegression(max_iter=2000).fit(Xp[::2], y[::2]).score(Xp[1::2], y[1::2])
    assert fresh < 0.62


def test_inlp_groups_hold_out_whole_groups_and_is_reproducible():
    X, y, _ = _labelled(seed=2, n=300)
    groups = np.repeat(np.arange(30), 10)
    a = INLP(n_iterations=10, random_state=5).fit(X, y, groups=groups)
    b = INLP(n_iterations=10, random_state=5).fit(X, y, groups=groups)
    assert a.accuracies_ == b.accuracies_
    np.testing.assert_array_equal(a.matrix_, b.matrix_)


def test_inlp_warns_when_not_at_chance():
    X, y, _ = _labelled(seed=3, n=400, d=DIM, strength=3.0)
    with pytest.warns(UserWarning, match="raise n_iterations"):
        eraser = INLP(n_iterations=1, random_state=0).fit(X, y)
    assert not eraser.converged_


def test_inlp_checks():
    X, y, _ = _labelled()
    with pytest.raises(InvalidParameterError, match="classifier"):
        INLP(classifier="forest").fit(X, y)
    with pytest.raises(InvalidParameterError, match="n_iterations"):
        INLP(n_iterations=0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="at least two distinct labels"):
        INLP().fit(X, np.zeros(len(X)))


# ------------------------------------------------------------------------------------- LEACE


def _reference_leace(X, z):
    torch = pytest.importorskip("torch")
    concept_erasure = pytest.importorskip("concept_erasure")
    fitter = concept_erasure.LeaceFitter.fit(
        torch.from_numpy(X), torch.from_numpy(z.astype(np.float64)).reshape(len(X), -1),
        shrinkage=False, constrain_cov_trace=False,
    )
    return fitter.eraser


@pytest.mark.parametrize("weights", [(0.5, 0.5), (0.7, 0.3)])
def test_leace_equals_reference_package(weights):
    torch = pytest.importorskip("torch")
    X, y, _ = _labelled(seed=4, n=500, weights=weights)
    ours = LEACE().fit(X, y)
    reference = _reference_leace(X, y)
    np.testing.assert_allclose(np.eye(DIM) - ours.matrix_, reference.proj_left.numpy() @ reference.proj_right.numpy(), atol=1e-5)
    expected = reference(torch.from_numpy(X)).numpy()
    np.testing.assert_allclose(ours.transform(X), expected, atol=1e-5)
    h = np.random.default_rng(0).normal(size=(7, DIM))
    np.testing.assert_allclose(ours.transform(h), reference(torch.from_numpy(h)).numpy(), atol=1e-5)


def test_leace_multiclass_one_hot_equals_reference():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(5)
    y = rng.integers(0, 3, size=450)
    X = rng.normal(size=(450, DIM)) + np.eye(3, DIM)[y] * 2.0
    ours = LEACE().fit(X, y)
    one_hot = np.eye(3)[y]
    reference = _reference_leace(X, one_hot)
    np.testing.assert_allclose(ours.transform(X), reference(torch.from_numpy(X)).numpy(), atol=1e-5)
    assert ours.rank_ == 2
    np.testing.assert_allclose(LEACE().fit(X, one_hot).matrix_, ours.matrix_, atol=1e-10)


def test_leace_leaves_a_fresh_logistic_regression_at_chance():
    X, y, _ = _labelled(seed=6, n=800, strength=3.0, weights=(0.6, 0.4))
    before = LogisticRegression(max_iter=5000).fit(X, y).score(X, y)
    erased = LEACE().fit_transform(X, y)
    for a, b in [(0, 1)]:
        means = [erased[y == c].mean(axis=0) for c in (a, b)]
        np.testing.assert_allclose(means[0], means[1], atol=1e-8)
    after = LogisticRegression(max_iter=5000).fit(erased, y).score(erased, y)
    majority = max(np.mean(y == 0), np.mean(y == 1))
    assert before > 0.95
    assert after <= majority + 0.01


def test_leace_is_idempotent_and_keeps_the_mean():
    X, y, _ = _labelled(seed=7)
    eraser = LEACE().fit(X, y)
    once = eraser.transform(X)
    np.testing.assert_allclose(eraser.transform(once), once, atol=1e-8)
    np.testing.assert_allclose(once.mean(axis=0), X.mean(axis=0), atol=1e-8)


# ------------------------------------------------------------------------------ save and load


@pytest.fixture(scope="module")
def fitted():
    female, male, _ = _pairs(k=2)
    X, y, _ = _labelled(seed=8)
    return [
        SentDebias(k=2).fit(female, male),
        INLP(n_iterations=20, random_state=1).fit(X, y),
        LEACE().fit(X, y),
    ]


@pytest.mark.parametrize("index", [0, 1, 2])
def test_save_load_round_trip(tmp_path, fitted, index):
    eraser = fitted[index]
    directory = eraser.save(tmp_path / "eraser")
    assert sorted(p.name for p in directory.iterdir()) == sorted([CONFIG_FILE, WEIGHTS_FILE])
    config = json.loads((directory / CONFIG_FILE).read_text())
    assert config["method"]["name"] == type(eraser).__name__
    assert config["method"]["hyperparameters"] == eraser.get_params()
    assert config["base_model"] is None
    loaded = LinearEraser.load(directory)
    assert type(loaded) is type(eraser)
    assert loaded.get_params() == eraser.get_params()
    np.testing.assert_array_equal(loaded.matrix_, eraser.matrix_)
    np.testing.assert_array_equal(loaded.offset_, eraser.offset_)
    for name in type(eraser)._state_arrays:
        np.testing.assert_array_equal(getattr(loaded, name), getattr(eraser, name))
    for name in type(eraser)._state_values:
        assert getattr(loaded, name) == getattr(eraser, name)
    h = np.random.default_rng(0).normal(size=(4, DIM))
    np.testing.assert_array_equal(loaded.transform(h), eraser.transform(h))
    assert type(type(eraser).load(directory)) is type(eraser)


def test_load_as_the_wrong_class_and_damaged_files_fail(tmp_path, fitted):
    sent = fitted[0]
    directory = sent.save(tmp_path / "sent")
    with pytest.raises(InvalidParameterError, match="LEACE projection directory"):
        LEACE.load(directory)
    config = json.loads((directory / CONFIG_FILE).read_text())
    config["digest"] = "0" * 64
    (directory / CONFIG_FILE).write_text(json.dumps(config))
    with pytest.raises(ModelLoadError, match="digest"):
        LinearEraser.load(directory)
    with pytest.raises(ModelLoadError, match="no projection.json"):
        LinearEraser.load(tmp_path)


def test_save_refuses_non_empty_directories_and_overwrites_only_projections(tmp_path, fitted):
    sent, inlp, _ = fitted
    target = sent.save(tmp_path / "out")
    with pytest.raises(InvalidParameterError, match="not empty"):
        inlp.save(target)
    inlp.save(target, overwrite=True)
    assert type(LinearEraser.load(target)) is INLP
    other = tmp_path / "other"
    other.mkdir()
    (other / "keep.txt").write_text("data")
    with pytest.raises(InvalidParameterError, match="holds other files"):
        sent.save(other, overwrite=True)
    assert (other / "keep.txt").read_text() == "data"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "out"]  # no temporary directories left


def test_failed_write_leaves_nothing(tmp_path, monkeypatch):
    import safetensors.numpy

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(safetensors.numpy, "save_file", broken)
    with pytest.raises(OSError, match="disk full"):
        write_projection_dir(tmp_path / "p", OutputProjection.identity(4), base=None, method={"name": "x"})
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------------- OutputProjection


def test_output_projection_apply_compose_digest():
    rng = np.random.default_rng(0)
    A1, b1, A2, b2 = rng.normal(size=(4, 4)), rng.normal(size=4), rng.normal(size=(4, 4)), rng.normal(size=4)
    first, second = OutputProjection(A1, b1), OutputProjection(A2, b2)
    h = rng.normal(size=(3, 5, 4))
    np.testing.assert_allclose(first.apply(h), np.einsum("ij,nlj->nli", A1, h) + b1)
    np.testing.assert_allclose(first.then(second).apply(h), second.apply(first.apply(h)), atol=1e-12)
    assert first.digest() == OutputProjection(A1.copy(), b1.copy()).digest()
    assert first.digest() != second.digest()
    with pytest.raises(InvalidParameterError, match="square"):
        OutputProjection(np.ones((2, 3)), np.zeros(2))
    with pytest.raises(InvalidParameterError, match="offset"):
        OutputProjection(np.eye(3), np.zeros(2))


def test_projection_directory_round_trip(tmp_path):
    projection = OutputProjection(np.diag([1.0, 0.0, 1.0]), np.array([0.0, 0.5, 0.0]))
    write_projection_dir(tmp_path / "p", projection, base=None, method={"name": "custom"}, state={"v": np.arange(3.0)})
    read, config, state = read_projection_dir(tmp_path / "p")
    assert read.digest() == projection.digest()
    np.testing.assert_array_equal(state["v"], np.arange(3.0))
    assert config["method"] == {"name": "custom"}
    with pytest.raises(ProbekitError):
        LinearEraser.load(tmp_path / "p")  # not an eraser class


def test_leace_takes_the_concept_as_y_or_as_z():
    X = np.random.default_rng(0).normal(size=(30, 5))
    concept = np.arange(30) % 2
    by_y = LEACE().fit(X, concept).transform(X)
    by_z = LEACE().fit(X, z=concept).transform(X)
    np.testing.assert_array_equal(by_y, by_z)
    with pytest.raises(InvalidParameterError, match="not both"):
        LEACE().fit(X, concept, z=concept)
    with pytest.raises(InvalidParameterError, match="'y'|y"):
        LEACE().fit(X)
