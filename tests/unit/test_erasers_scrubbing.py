"""Concept scrubbing on a tiny random BERT: the layer maps act inside the model exactly as a raw
transformers forward pass with each map applied by hand, each layer's eraser is fitted on the
activations already scrubbed below it, and the directory loads as an encoder (hooks only inside
the scoped context)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from debias import ConceptScrubbing, LinearEraser, apply_projection
from probekit.embedding import attribute_embeddings
from probekit.encoders import LayerwiseProjection, active_projection_digests
from probekit.errors import ProbekitError

torch = pytest.importorskip("torch")


@pytest.fixture(scope="module")
def scrubbed(tiny_checkpoints):
    from probekit import load_encoder

    base = load_encoder(str(tiny_checkpoints["base"]), device="cpu")
    scrubber = ConceptScrubbing().fit_from_encoder(base, max_per_word=8, progress=False)
    return base, scrubber


def _by_hand(model, input_ids, scrubber):
    """Raw transformers modules, each hidden state mapped by hand: h_l' = A_l h_l + b_l."""
    def mapped(hidden, layer):
        matrix = torch.as_tensor(scrubber.layer_matrices_[layer].T, dtype=torch.float32)
        return hidden @ matrix + torch.as_tensor(scrubber.layer_offsets_[layer], dtype=torch.float32)

    states = [mapped(model.embeddings(input_ids=input_ids), 0)]
    for index, layer in enumerate(model.encoder.layer, start=1):
        output = layer(states[-1])
        states.append(mapped(output[0] if isinstance(output, tuple) else output, index))
    return states


def test_the_layer_maps_act_inside_the_model_as_a_forward_pass_by_hand(scrubbed):
    base, scrubber = scrubbed
    assert scrubber.layer_matrices_.shape == (base.num_layers + 1, base.hidden_size, base.hidden_size)
    encoder = apply_projection(base, scrubber)
    input_ids = torch.as_tensor([base.tokenizer("she said that he was a nurse")["input_ids"]])
    modules = [base.model.embeddings, *base.model.encoder.layer]
    with torch.no_grad():
        reference = _by_hand(base.model, input_ids, scrubber)
        before = [len(m._forward_hooks) for m in modules]  # transformers keeps its own recording hooks
        with encoder.inference():
            assert [len(m._forward_hooks) for m in modules] == [n + 1 for n in before]
            assert active_projection_digests(encoder.model)  # applied inside the scope
            states = encoder.model(input_ids=input_ids, output_hidden_states=True).hidden_states
    assert not active_projection_digests(encoder.model)  # and gone after it
    assert [len(m._forward_hooks) for m in modules] == before
    assert len(states) == len(reference)
    for ours, theirs in zip(states, reference):
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), atol=1e-4)


def test_every_layer_is_erased_on_the_fitting_data_so_each_was_fitted_on_scrubbed_activations(scrubbed):
    """LEACE equalizes the class means of the data it was fitted on: with the whole stack installed
    the means coincide at every hidden state, which holds only if layer l's eraser saw layers
    0..l-1 scrubbed. Without scrubbing they differ."""
    base, scrubber = scrubbed
    encoder = apply_projection(base, scrubber)
    for layer in range(base.num_layers + 1):
        occurrences, female, _ = attribute_embeddings(encoder, layer=layer, max_per_word=8, progress=False)
        y = np.isin(occurrences.words, female)
        gap = np.abs(occurrences.embeddings[y].mean(axis=0) - occurrences.embeddings[~y].mean(axis=0)).max()
        assert gap < 1e-4, (layer, gap)
        raw, _, _ = attribute_embeddings(base, layer=layer, max_per_word=8, progress=False)
        assert np.abs(raw.embeddings[y].mean(axis=0) - raw.embeddings[~y].mean(axis=0)).max() > 1e-3


def test_the_directory_loads_as_an_encoder_and_as_the_estimator(scrubbed, tmp_path):
    from probekit import load_encoder

    base, scrubber = scrubbed
    scrubber.save(tmp_path / "scrub")
    config = json.loads((tmp_path / "scrub" / "projection.json").read_text())
    assert config["format_version"] == 2 and config["layers"] == [True] * (base.num_layers + 1)
    loaded = load_encoder(str(tmp_path / "scrub"), device="cpu")
    assert isinstance(loaded.output_projection, LayerwiseProjection)
    assert loaded.fingerprint == apply_projection(base, scrubber).fingerprint
    again = LinearEraser.load(tmp_path / "scrub", encoder=base)
    assert isinstance(again, ConceptScrubbing)
    np.testing.assert_array_equal(again.layer_matrices_, scrubber.layer_matrices_)
    input_ids = torch.as_tensor([base.tokenizer("my mother is a doctor")["input_ids"]])
    with torch.no_grad(), loaded.inference():
        states = loaded.model(input_ids=input_ids, output_hidden_states=True).hidden_states
    with torch.no_grad():
        reference = _by_hand(base.model, input_ids, scrubber)
    np.testing.assert_allclose(states[-1].numpy(), reference[-1].numpy(), atol=1e-4)
    with pytest.raises(ProbekitError, match="cannot be composed"):
        loaded.with_output_projection(scrubber.to_output_projection())


def test_strength_zero_is_the_base_encoder_and_arrays_are_refused(scrubbed):
    base, scrubber = scrubbed
    weak = ConceptScrubbing(alpha=0.0)
    weak.layer_matrices_, weak.layer_offsets_ = scrubber.layer_matrices_, scrubber.layer_offsets_
    weak.n_features_in_, weak.base_model_, weak.fitting_ = scrubber.n_features_in_, None, {}
    encoder = apply_projection(base, weak)
    input_ids = torch.as_tensor([base.tokenizer("he is a teacher")["input_ids"]])
    with torch.no_grad(), encoder.inference():
        ours = encoder.model(input_ids=input_ids).last_hidden_state
    with torch.no_grad(), base.inference():
        plain = base.model(input_ids=input_ids).last_hidden_state
    np.testing.assert_allclose(ours.numpy(), plain.numpy(), atol=1e-6)
    with pytest.raises(ProbekitError, match="inside the encoder"):
        scrubber.transform(np.zeros((2, base.hidden_size)))


def test_registry_builds_concept_scrubbing_and_the_cli_checks_the_new_options(tiny_checkpoints, tmp_path):
    from debias import DEBIAS_METHODS, build_debiased, is_debiased_dir
    from probekit import load_encoder
    from probekit.cli.main import build_parser
    from probekit.errors import InvalidParameterError

    assert "Belrose" in DEBIAS_METHODS["concept-scrubbing"].citation and "Ravfogel" in DEBIAS_METHODS["rlace"].citation
    base = load_encoder(str(tiny_checkpoints["base"]), device="cpu")
    built = build_debiased("concept-scrubbing", base, None, tmp_path / "cs",
                           options={"max_per_word": 4, "alpha": 0.5}, progress=False)
    assert is_debiased_dir(built.path, "concept-scrubbing")
    assert isinstance(load_encoder(str(built.path), device="cpu").output_projection, LayerwiseProjection)
    parser = build_parser()
    with pytest.raises(InvalidParameterError, match="--alpha"):
        parser.parse_args(["debias", "leace", "--out", str(tmp_path / "x"), "--alpha", "1.5"])
    with pytest.raises(InvalidParameterError, match="--leace-method"):
        parser.parse_args(["debias", "concept-scrubbing", "--out", str(tmp_path / "x"), "--leace-method", "qr"])
    with pytest.raises(InvalidParameterError, match="--rank"):
        parser.parse_args(["debias", "rlace", "--out", str(tmp_path / "x"), "--rank", "0"])


def test_a_fine_tuned_classifier_runs_the_scrubbed_encoder_inside_its_forward(scrubbed):
    """finetune copies the weights and enters the layer hooks around each forward pass: the pooled
    vector is the scrubbed encoder's, gradients reach the encoder, and no hook stays behind."""
    import copy

    from probekit.finetune import EncoderClassifier

    base, scrubber = scrubbed
    projection = scrubber.to_output_projection()
    model = copy.deepcopy(base.model)
    classifier = EncoderClassifier(model, 2, projection=projection)
    ids = torch.as_tensor([base.tokenizer("she is a doctor")["input_ids"]])
    mask = torch.ones_like(ids)
    pooled = classifier.pooled(ids, mask)
    with torch.no_grad(), apply_projection(base, scrubber).inference():
        reference = base.model(input_ids=ids, attention_mask=mask).last_hidden_state.mean(dim=1)
    np.testing.assert_allclose(pooled.detach().numpy(), reference.numpy(), atol=1e-4)
    classifier(ids, mask, labels=torch.tensor([1])).loss.backward()
    assert model.encoder.layer[0].attention.self.query.weight.grad is not None
    assert not active_projection_digests(model)
