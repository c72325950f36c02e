"""Projected encoders: every representation passes through the projection (all layers, sentence,
pooled, the masked-LM head, both SEAT sides, the probe), nothing is left on the user's model,
projection directories load through ``load_encoder``, and ``probekit debias sent-debias|inlp|leace``."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest
import torch

import probekit
from debias import INLP, LEACE, LinearEraser, SentDebias, apply_projection, swap_texts
from probekit import embed_sentences, embed_words, load_encoder
from probekit.cli.main import main
from probekit.encoders import (
    CONFIG_FILE,
    OutputProjection,
    active_projection_digests,
    projected_fingerprint,
)
from probekit.errors import InvalidParameterError, ModelLoadError, ProbekitError

SENTENCES = [
    "the nurse said she was tired .",
    "he is a doctor and his sister is a nurse .",
    "my mother met the engineer yesterday .",
    "the king and the queen talked about the soldier .",
    "her father is a carpenter .",
    "the boy gave the girl a flower .",
]
WORDS = ["she", "he", "nurse", "mother", "king", "queen", "father", "boy", "girl", "flower"]


def _unit(seed: int, d: int = 32) -> np.ndarray:
    v = np.random.default_rng(seed).normal(size=d)
    return v / np.linalg.norm(v)


def _affine(seed: int, d: int = 32) -> OutputProjection:
    """A random affine map: not idempotent, so applying it twice (or not at all) shows."""
    rng = np.random.default_rng(seed)
    return OutputProjection(np.eye(d) + 0.3 * rng.normal(size=(d, d)), rng.normal(size=d))


def _sent_debias_along(v: np.ndarray) -> SentDebias:
    """SentDebias (k=1) fitted on arrays whose pair differences all lie along ``v``."""
    rng = np.random.default_rng(1)
    base = rng.normal(size=(20, len(v)))
    shift = rng.uniform(1, 2, size=(20, 1)) * v
    return SentDebias(k=1, normalize=False).fit(base + shift, base - shift)  # raw: the differences are along v


def _our_hooks(model) -> int:
    return sum(len(active_projection_digests(m)) for m in model.modules())


# --------------------------------------------------------------------------- every representation


def test_projection_reaches_every_layer_sentence_and_pooled_output(tiny_encoder):
    projection = _affine(0)
    projected = tiny_encoder.with_output_projection(projection)
    for pooling in ("mean", "cls"):
        plain = embed_sentences(tiny_encoder, SENTENCES, pooling=pooling, layer=[0, 1, 2], progress=False)
        ours = embed_sentences(projected, SENTENCES, pooling=pooling, layer=[0, 1, 2], progress=False)
        np.testing.assert_allclose(ours, projection.apply(plain), atol=1e-4)
    plain = embed_sentences(tiny_encoder, SENTENCES, pooling="pooler", progress=False)
    ours = embed_sentences(projected, SENTENCES, pooling="pooler", progress=False)
    np.testing.assert_allclose(ours, projection.apply(plain), atol=1e-4)
    # Word-in-context: the last layer alone (where the base encoder takes the shortcut) and several layers.
    for layer in (-1, [0, 2]):
        plain = embed_words(tiny_encoder, SENTENCES, WORDS, layer=layer, progress=False)
        ours = embed_words(projected, SENTENCES, WORDS, layer=layer, progress=False)
        assert len(ours) == len(plain) > 10
        np.testing.assert_allclose(ours.embeddings, projection.apply(plain.embeddings), atol=1e-4)


def test_raw_forward_outputs_and_tuple_outputs_are_projected(tiny_encoder):
    projection = _affine(1)
    projected = tiny_encoder.with_output_projection(projection)
    ids = tiny_encoder.tokenizer(SENTENCES[:2], padding=True, return_tensors="pt")
    with torch.inference_mode():
        plain = tiny_encoder.model(**ids, output_hidden_states=True)
    with projected.inference():
        ours = projected.model(**ids, output_hidden_states=True)
        as_tuple = projected.model(**ids, return_dict=False)
    apply = lambda t: projection.apply(t.numpy())  # noqa: E731
    np.testing.assert_allclose(ours.last_hidden_state.numpy(), apply(plain.last_hidden_state), atol=1e-4)
    np.testing.assert_allclose(ours.pooler_output.numpy(), apply(plain.pooler_output), atol=1e-4)
    assert len(ours.hidden_states) == len(plain.hidden_states) == 3
    for a, b in zip(ours.hidden_states, plain.hidden_states):
        np.testing.assert_allclose(a.numpy(), apply(b), atol=1e-4)
    assert ours.hidden_states[-1] is ours.last_hidden_state  # projected once, identity kept
    np.testing.assert_allclose(as_tuple[0].numpy(), apply(plain.last_hidden_state), atol=1e-4)
    np.testing.assert_allclose(as_tuple[1].numpy(), apply(plain.pooler_output), atol=1e-4)


def test_masked_lm_head_reads_the_projected_states(tiny_mlm_encoder):
    projection = OutputProjection(np.eye(32) - np.outer(_unit(2), _unit(2)), np.zeros(32))
    projected = tiny_mlm_encoder.with_output_projection(projection)
    ids = tiny_mlm_encoder.tokenizer(["the [MASK] is a nurse ."], return_tensors="pt")["input_ids"]
    with torch.inference_mode():
        hidden = tiny_mlm_encoder.model(input_ids=ids).last_hidden_state
        moved = torch.from_numpy(projection.apply(hidden.numpy())).float()
        expected = tiny_mlm_encoder.mlm_model.cls(moved)
        plain = tiny_mlm_encoder.mlm_model(input_ids=ids).logits
    with projected.inference():
        logits = projected.mlm_model(input_ids=ids).logits
    torch.testing.assert_close(logits, expected, atol=1e-4, rtol=1e-4)
    assert not torch.allclose(logits, plain, atol=1e-3)
    # LPBS goes through encoder.inference(), so its scores change with the projection.
    pairs, targets = [("she", "he"), ("woman", "man")], ["nurse", "engineer"]
    before = probekit.attr_lpbs(tiny_mlm_encoder, pairs, targets).score
    after = probekit.attr_lpbs(projected, pairs, targets).score
    assert np.isfinite(after) and abs(after - before) > 1e-6


def test_both_seat_sides_and_the_probe_see_the_projection(tiny_encoder, monkeypatch):
    import probekit.intrinsic._probe_suite as suite
    import probekit.intrinsic._seat_variants as variants

    v = _unit(3)
    projected = apply_projection(tiny_encoder, _sent_debias_along(v))
    captured: dict[str, list[np.ndarray]] = {"seat": [], "sentences": [], "probe": []}

    def spy(name, original, n_args):
        def wrapper(*args, **kwargs):
            captured[name] += [np.asarray(getattr(a, "embeddings", a)) for a in args[:n_args]]
            return original(*args, **kwargs)
        return wrapper

    def spy_sentences(original):
        def wrapper(*args, **kwargs):
            out = original(*args, **kwargs)
            captured["sentences"].append(out)
            return out
        return wrapper

    monkeypatch.setattr(suite, "contextual_seat", spy("seat", suite.contextual_seat, 2))
    monkeypatch.setattr(suite, "gender_probe", spy("probe", suite.gender_probe, 4))
    monkeypatch.setattr(variants, "embed_sentences", spy_sentences(variants.embed_sentences))
    corpus = probekit.template_corpus(frames_per_word=2, random_state=0)
    options = dict(max_per_word=3, standard_tests=["weat8b"], n_permutations=100, n_bootstrap=20,
                   n_randomizations=5, progress=False)
    probekit.run_probe_suite(projected, corpus, **options)
    assert len(captured["seat"]) == 2 and len(captured["probe"]) == 4 and len(captured["sentences"]) >= 1
    for name, arrays in captured.items():
        for array in arrays:
            assert len(array) > 0
            assert np.abs(array @ v).max() < 1e-4, name  # targets, attributes, sentences, probe inputs
    # The same run on the plain encoder has a gender component: the check above can fail.
    for key in captured:
        captured[key] = []
    probekit.run_probe_suite(tiny_encoder, corpus, **options)
    assert np.abs(captured["seat"][0] @ v).max() > 1e-2


# ----------------------------------------------------------------------------------- hygiene


def test_no_hook_left_on_the_users_model_also_on_errors(tiny_mlm_encoder):
    model = tiny_mlm_encoder.mlm_model
    projected = tiny_mlm_encoder.with_output_projection(_affine(4))
    assert _our_hooks(model) == 0
    with projected.inference():
        assert _our_hooks(model) == 1
        with projected.inference():  # re-entrant: still one hook
            assert _our_hooks(model) == 1
        assert _our_hooks(model) == 1
    assert _our_hooks(model) == 0 and len(tiny_mlm_encoder.model._forward_hooks) == 0
    with pytest.raises(RuntimeError, match="boom"):
        with projected.inference():
            raise RuntimeError("boom")
    assert len(tiny_mlm_encoder.model._forward_hooks) == 0
    with pytest.raises((IndexError, RuntimeError)):
        with projected.inference():
            projected.model(input_ids=torch.tensor([[10**7]]))  # fails inside the forward
    assert len(tiny_mlm_encoder.model._forward_hooks) == 0
    other = tiny_mlm_encoder.with_output_projection(_affine(5))
    with pytest.raises(ProbekitError, match="already applied"):
        with projected.inference(), other.inference():
            pass
    assert len(tiny_mlm_encoder.model._forward_hooks) == 0


def test_nested_inference_applies_the_map_once(tiny_encoder):
    projection = _affine(6)
    projected = tiny_encoder.with_output_projection(projection)
    ids = tiny_encoder.tokenizer(SENTENCES[:1], return_tensors="pt")["input_ids"]
    with projected.inference():
        once = projected.model(input_ids=ids).last_hidden_state
        with projected.inference():
            nested = projected.model(input_ids=ids).last_hidden_state
    torch.testing.assert_close(once, nested)


def test_apply_projection_leaves_the_users_encoder_alone(tiny_encoder):
    before = embed_sentences(tiny_encoder, SENTENCES, progress=False)
    fingerprint = tiny_encoder.fingerprint
    eraser = _sent_debias_along(_unit(7))
    projected = apply_projection(tiny_encoder, eraser)
    assert projected.model is tiny_encoder.model and projected.unprojected is tiny_encoder
    assert tiny_encoder.output_projection is None and tiny_encoder.fingerprint == fingerprint
    assert projected.fingerprint == projected_fingerprint(fingerprint, eraser.to_output_projection()) != fingerprint
    assert projected.refresh_fingerprint() == projected.fingerprint
    assert apply_projection(tiny_encoder, _sent_debias_along(_unit(8))).fingerprint != projected.fingerprint
    assert projected.describe()["output_projection"] == eraser.to_output_projection().digest()
    assert projected.describe()["base_fingerprint"] == fingerprint
    embed_sentences(projected, SENTENCES, progress=False)
    np.testing.assert_array_equal(embed_sentences(tiny_encoder, SENTENCES, progress=False), before)
    # Projecting a projected encoder composes the maps.
    twice = apply_projection(projected, _sent_debias_along(_unit(8)))
    assert twice.unprojected is tiny_encoder
    np.testing.assert_allclose(
        embed_sentences(twice, SENTENCES, progress=False),
        _sent_debias_along(_unit(8)).transform(eraser.transform(before)), atol=1e-4,
    )


# ------------------------------------------------------------------------- fitting from an encoder


def test_sent_debias_from_encoder_uses_swapped_sentence_pairs(tiny_mlm_encoder):
    eraser = SentDebias(k=1).fit_from_encoder(tiny_mlm_encoder, SENTENCES, progress=False)
    originals = [s for s in SENTENCES if swap_texts([s])[0] != s]
    assert eraser.n_pairs_ == len(originals) == eraser.fitting_["n_pairs"]
    first = embed_sentences(tiny_mlm_encoder, originals, progress=False)
    second = embed_sentences(tiny_mlm_encoder, swap_texts(originals), progress=False)
    reference = SentDebias(k=1).fit(first, second)
    np.testing.assert_allclose(np.abs(eraser.subspace_ @ reference.subspace_.T), 1.0, atol=1e-6)
    assert eraser.base_model_["fingerprint"] == tiny_mlm_encoder.fingerprint
    projected = apply_projection(tiny_mlm_encoder, eraser)
    assert np.abs(embed_sentences(projected, originals, progress=False) @ eraser.subspace_[0]).max() < 1e-5
    capped = SentDebias().fit_from_encoder(tiny_mlm_encoder, SENTENCES, max_sentences=2, random_state=0, progress=False)
    assert capped.n_pairs_ <= 2


def test_inlp_and_leace_from_encoder_fit_the_attribute_occurrences(tiny_encoder):
    from probekit.intrinsic import attribute_embeddings

    corpus = probekit.template_corpus(frames_per_word=1, random_state=0)
    occurrences, female, _ = attribute_embeddings(tiny_encoder, corpus, max_per_word=3, random_state=0, progress=False)
    labels = np.isin(occurrences.words, female).astype(int)
    leace = LEACE().fit_from_encoder(tiny_encoder, corpus, max_per_word=3, random_state=0, progress=False)
    np.testing.assert_allclose(leace.matrix_, LEACE().fit(occurrences.embeddings, labels).matrix_, atol=1e-10)
    assert leace.fitting_["n_occurrences"] == len(labels) and leace.fitting_["n_female"] == labels.sum()
    projected = apply_projection(tiny_encoder, leace)
    erased, _, _ = attribute_embeddings(projected, corpus, max_per_word=3, random_state=0, progress=False)
    means = [erased.embeddings[labels == c].mean(axis=0) for c in (0, 1)]
    np.testing.assert_allclose(means[0], means[1], atol=1e-4)  # no linear gender signal left
    inlp = INLP(n_iterations=3, random_state=0).fit_from_encoder(
        tiny_encoder, corpus, max_per_word=3, random_state=0, progress=False
    )
    assert 1 <= inlp.n_iterations_ <= 3 and inlp.fitting_["female_words"]


# -------------------------------------------------------------------------------- directories


def _fit_on(encoder) -> SentDebias:
    eraser = _sent_debias_along(_unit(9, encoder.hidden_size))
    return eraser


def test_load_encoder_reads_a_projection_directory(tiny_checkpoints, tmp_path):
    base = load_encoder(tiny_checkpoints["mlm"], device="cpu")
    eraser = _fit_on(base)
    directory = eraser.save(tmp_path / "proj", encoder=base)
    config = json.loads((directory / CONFIG_FILE).read_text())
    assert config["base_model"]["kind"] == "local"
    assert config["base_model"]["fingerprint"] == base.fingerprint
    loaded = load_encoder(directory, device="cpu")
    expected = apply_projection(base, eraser)
    assert loaded.fingerprint == expected.fingerprint != base.fingerprint
    assert loaded.name_or_path == str(directory) and loaded.has_mlm_head
    np.testing.assert_allclose(
        embed_sentences(loaded, SENTENCES, progress=False), embed_sentences(expected, SENTENCES, progress=False), atol=1e-6
    )
    again = LinearEraser.load(directory, encoder=base)
    assert again.base_model_["fingerprint"] == base.fingerprint


def test_projection_directory_moved_with_its_checkpoint_still_loads(tiny_checkpoints, tmp_path):
    shutil.copytree(tiny_checkpoints["base"], tmp_path / "a" / "ckpt")
    base = load_encoder(tmp_path / "a" / "ckpt", device="cpu")
    _fit_on(base).save(tmp_path / "a" / "proj", encoder=base)
    (tmp_path / "a").rename(tmp_path / "b")
    loaded = load_encoder(tmp_path / "b" / "proj", device="cpu")
    assert loaded.unprojected.fingerprint == base.fingerprint
    shutil.rmtree(tmp_path / "b" / "ckpt")
    with pytest.raises(ModelLoadError, match="not where it was"):
        load_encoder(tmp_path / "b" / "proj", device="cpu")


def test_loading_onto_another_base_fails_naming_both_fingerprints(tiny_checkpoints, tmp_path):
    base = load_encoder(tiny_checkpoints["mlm"], device="cpu")
    other = load_encoder(tiny_checkpoints["base"], device="cpu")
    assert other.fingerprint != base.fingerprint and other.hidden_size == base.hidden_size
    eraser = _fit_on(base)
    directory = eraser.save(tmp_path / "proj", encoder=base)
    with pytest.raises(InvalidParameterError) as info:
        LinearEraser.load(directory, encoder=other)
    assert base.fingerprint in str(info.value) and other.fingerprint in str(info.value)
    with pytest.raises(InvalidParameterError, match=base.fingerprint):
        apply_projection(other, LinearEraser.load(directory))
    # The recorded checkpoint changed since: load_encoder refuses it.
    config = json.loads((directory / CONFIG_FILE).read_text())
    config["base_model"]["fingerprint"] = other.fingerprint
    (directory / CONFIG_FILE).write_text(json.dumps(config))
    with pytest.raises(ModelLoadError) as info:
        load_encoder(directory, device="cpu")
    assert base.fingerprint in str(info.value) and other.fingerprint in str(info.value)


def test_default_encoder_is_recorded_as_the_default(embedded_encoder, tmp_path):
    eraser = _fit_on(embedded_encoder)
    directory = eraser.save(tmp_path / "proj", encoder=embedded_encoder)
    base = json.loads((directory / CONFIG_FILE).read_text())["base_model"]
    assert base["kind"] == "default" and base["path"] is None
    loaded = load_encoder(directory, device="cpu")
    assert loaded.fingerprint == apply_projection(embedded_encoder, eraser).fingerprint


def test_projection_saved_from_arrays_does_not_load_as_an_encoder(tmp_path):
    directory = _sent_debias_along(_unit(0)).save(tmp_path / "proj")
    with pytest.raises(ModelLoadError, match="records no base checkpoint"):
        load_encoder(directory)


# ----------------------------------------------------------------------------------------- CLI


@pytest.fixture(scope="module")
def corpus_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("corpus") / "corpus.txt"
    probekit.template_corpus(frames_per_word=2, random_state=0).to_text_file(path)
    return path


def test_cli_sent_debias_then_probe(tiny_checkpoints, corpus_file, tmp_path, capsys):
    out = tmp_path / "sent"
    code = main(["debias", "sent-debias", "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus_file),
                 "--max-sentences", "60", "--k", "2", "--no-progress", "--out", str(out)])
    assert code == 0, capsys.readouterr().err
    assert "SentDebias" in capsys.readouterr().out
    config = json.loads((out / CONFIG_FILE).read_text())
    assert config["method"]["name"] == "SentDebias" and config["method"]["hyperparameters"] == {"k": 2, "normalize": True, "alpha": 1.0}
    assert config["fitting"]["n_pairs"] <= 60 and config["provenance"]["parameters"]["max_sentences"] == 60
    probe_out = tmp_path / "probe"
    code = main(["probe", "--model", str(out), "--corpus", str(corpus_file), "--permutations", "100", "--bootstrap", "50",
                 "--seat-tests", "", "--max-per-word", "5", "--randomizations", "5", "--no-progress", "--out", str(probe_out)])
    assert code == 0, capsys.readouterr().err
    results = json.loads((probe_out / "results.json").read_text())
    model = results["provenance"]["model"]
    assert model["output_projection"] == config["digest"]
    assert model["base_fingerprint"] == config["base_model"]["fingerprint"]
    assert model["fingerprint"] == load_encoder(out, device="cpu").fingerprint


@pytest.mark.parametrize("method,extra,name", [
    ("inlp", ["--iterations", "3"], "INLP"),
    ("leace", [], "LEACE"),
])
def test_cli_inlp_and_leace(tiny_checkpoints, corpus_file, tmp_path, capsys, method, extra, name):
    out = tmp_path / method
    code = main(["debias", method, "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus_file),
                 "--max-per-word", "3", "--no-progress", "--out", str(out), *extra])
    assert code == 0, capsys.readouterr().err
    config = json.loads((out / CONFIG_FILE).read_text())
    assert config["method"]["name"] == name and config["fitting"]["max_per_word"] == 3
    assert type(LinearEraser.load(out)).__name__ == name
    assert load_encoder(out, device="cpu").output_projection.digest() == config["digest"]


def test_cli_checks_out_before_loading_the_model(tmp_path, capsys):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    code = main(["debias", "leace", "--model", str(tmp_path / "no-such-model"), "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "--out" in err and "Traceback" not in err and "no-such-model" not in err
    assert [p.name for p in out.iterdir()] == ["notes.txt"]


def test_cli_error_after_loading_leaves_nothing(tiny_checkpoints, corpus_file, tmp_path, capsys):
    out = tmp_path / "sent"
    code = main(["debias", "sent-debias", "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus_file),
                 "--max-sentences", "5", "--k", "500", "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "k=500" in err and "Traceback" not in err
    assert list(tmp_path.iterdir()) == []
