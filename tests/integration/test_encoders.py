"""Loading encoders from local checkpoints and the embedded default, and what they report."""

from __future__ import annotations

import shutil

import numpy as np
import pytest
import torch

from probekit import DEFAULT_MODEL_NAME, embed_words, load_encoder
from probekit.encoders import cpu_supports_bf16, resolve_dtype
from probekit.errors import InvalidParameterError, ModelLoadError


def test_checkpoint_with_masked_lm_head(tiny_checkpoints):
    encoder = load_encoder(tiny_checkpoints["mlm"], device="cpu")
    assert encoder.has_mlm_head
    assert type(encoder.mlm_model).__name__ == "BertForMaskedLM"
    assert encoder.model is encoder.mlm_model.base_model  # one set of weights
    assert (encoder.hidden_size, encoder.num_layers, encoder.max_length) == (32, 2, 128)
    assert encoder.do_lower_case


def test_checkpoint_without_head_reports_none(tiny_checkpoints):
    encoder = load_encoder(str(tiny_checkpoints["base"]), device="cpu")
    assert not encoder.has_mlm_head and encoder.mlm_model is None
    assert type(encoder.model).__name__ == "BertModel"
    # the weights are the saved ones, not a fresh initialization
    from transformers import BertModel

    saved = BertModel.from_pretrained(tiny_checkpoints["base"])
    for name, tensor in saved.state_dict().items():
        torch.testing.assert_close(encoder.model.state_dict()[name], tensor, rtol=0, atol=0)


def test_fingerprint_is_stable_and_tracks_weights(tiny_checkpoints, tmp_path):
    first = load_encoder(tiny_checkpoints["mlm"], device="cpu").fingerprint
    assert load_encoder(tiny_checkpoints["mlm"], device="cpu").fingerprint == first
    copy = tmp_path / "copy"
    shutil.copytree(tiny_checkpoints["mlm"], copy)
    assert load_encoder(copy, device="cpu").fingerprint == first  # content, not location
    assert load_encoder(tiny_checkpoints["base"], device="cpu").fingerprint != first


def test_in_memory_fingerprint_changes_with_weights(tiny_encoder):
    from probekit.encoders import fingerprint

    model = tiny_encoder.model
    before = fingerprint(model.config, model=model)
    with torch.no_grad():
        model.embeddings.word_embeddings.weight[0, 0] += 1.0
    try:
        assert fingerprint(model.config, model=model) != before
    finally:
        with torch.no_grad():
            model.embeddings.word_embeddings.weight[0, 0] -= 1.0
    assert fingerprint(model.config, model=model) == before


def test_nonexistent_model_path():
    with pytest.raises(ModelLoadError, match="does not exist"):
        load_encoder("./no/such/checkpoint")


def test_directory_without_config(tmp_path):
    with pytest.raises(ModelLoadError, match="no config.json"):
        load_encoder(tmp_path)


def test_hub_id_while_offline_tells_how_to_pass_a_local_path():
    with pytest.raises(ModelLoadError, match="--model DIR"):
        load_encoder("probekit-tests/no-such-model-anywhere")


def test_bad_device_and_dtype():
    with pytest.raises(InvalidParameterError, match="dtype"):
        load_encoder(device="cpu", dtype="int8")
    with pytest.raises(InvalidParameterError, match="device"):
        load_encoder(device="tpu")
    with pytest.raises(InvalidParameterError, match="dtype"):
        resolve_dtype("float16", torch.device("cpu"))


@pytest.mark.skipif(not cpu_supports_bf16(), reason="this CPU has no native bf16")
def test_bf16_autocast_on_cpu_stays_close_to_fp32(tiny_checkpoints):
    sentences = ["The nurse met the engineer.", "An engineer and a nurse talked for hours about nothing."]
    fp32 = embed_words(load_encoder(tiny_checkpoints["base"], device="cpu"), sentences, ["nurse", "engineer"], progress=False)
    bf16_encoder = load_encoder(tiny_checkpoints["base"], device="cpu", dtype="bf16")
    assert bf16_encoder.dtype == torch.bfloat16
    bf16 = embed_words(bf16_encoder, sentences, ["nurse", "engineer"], progress=False)
    cosine = (fp32.embeddings * bf16.embeddings).sum(1) / (
        np.linalg.norm(fp32.embeddings, axis=1) * np.linalg.norm(bf16.embeddings, axis=1)
    )
    assert cosine.min() > 0.99


@pytest.mark.integration
def test_embedded_default_encoder(embedded_encoder):
    facts = embedded_encoder.describe()
    assert facts["name_or_path"] == DEFAULT_MODEL_NAME
    assert facts["has_mlm_head"] is False
    assert (facts["hidden_size"], facts["num_layers"], facts["do_lower_case"]) == (384, 6, True)
    assert len(facts["fingerprint"]) == 20
    sentence = "The receptionist thanked the carpenter."
    result = embed_words(embedded_encoder, [sentence], ["receptionist", "carpenter"], progress=False)
    encoding = embedded_encoder.tokenizer(sentence, return_tensors="pt")
    with torch.no_grad():
        states = embedded_encoder.model(**encoding).last_hidden_state[0]
    for k in range(2):
        start, end = result.spans[k]
        pieces = sorted({encoding.char_to_token(c) for c in range(start, end)})
        np.testing.assert_allclose(result.embeddings[k], states[pieces].mean(0).numpy(), atol=1e-5)


@pytest.mark.integration
def test_embedded_default_fingerprint_is_stable(embedded_encoder):
    assert load_encoder(device="cpu").fingerprint == embedded_encoder.fingerprint


def test_half_precision_checkpoint_computes_in_float32(tmp_path):
    from tests.conftest import build_tiny_model

    model, tokenizer = build_tiny_model("base")
    model.to(torch.bfloat16).save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    encoder = load_encoder(tmp_path, device="cpu")
    assert {p.dtype for p in encoder.model.parameters()} == {torch.float32}
    assert encoder.describe()["dtype"] == "float32"


def test_pretraining_checkpoint_keeps_head_and_pooler(tmp_path):
    from transformers import BertForPreTraining

    from probekit import embed_sentences
    from tests.conftest import _tiny_config, embedded_tokenizer

    tokenizer = embedded_tokenizer()
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(1)
        pretraining = BertForPreTraining(_tiny_config(tokenizer.vocab_size)).eval()
    pretraining.save_pretrained(tmp_path)
    tokenizer.save_pretrained(tmp_path)
    encoder = load_encoder(tmp_path, device="cpu")
    assert encoder.has_mlm_head and encoder.model.pooler is not None
    assert encoder.mlm_model.base_model is encoder.model  # one encoder serves both
    decoder = encoder.mlm_model.get_output_embeddings().weight
    assert decoder.data_ptr() == encoder.model.get_input_embeddings().weight.data_ptr()  # still tied
    sentence = "The nurse smiled."
    pooled = embed_sentences(encoder, [sentence], pooling="pooler", progress=False)
    with torch.no_grad():
        expected = pretraining.bert(**tokenizer(sentence, return_tensors="pt")).pooler_output[0].numpy()
    np.testing.assert_allclose(pooled[0], expected, atol=1e-5)
    with torch.no_grad():
        encoding = tokenizer(sentence, return_tensors="pt")
        logits = encoder.mlm_model(**encoding).logits
        reference = pretraining(**encoding).prediction_logits
    torch.testing.assert_close(logits, reference, atol=1e-4, rtol=1e-4)


def test_fingerprint_handles_scalar_buffers_and_tokenizers(tiny_encoder):
    from probekit.encoders import Encoder, fingerprint
    from tests.conftest import build_tiny_model

    model, tokenizer = build_tiny_model("base")
    model.register_buffer("probekit_scalar", torch.tensor(3.0))
    plain = fingerprint(model.config, model=model)
    assert fingerprint(model.config, model=model, tokenizer=tokenizer) != plain
    encoder = Encoder.from_model(model, tokenizer, device="cpu")
    before = encoder.fingerprint
    with torch.no_grad():
        model.probekit_scalar += 1
    assert encoder.refresh_fingerprint() != before
