"""The extraction engine against raw transformers forward passes on tiny random models."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probekit import embed_sentences, embed_words
from probekit.encoders import Encoder
from probekit.errors import InvalidParameterError, MissingSentencesError
from tests.conftest import build_tiny_model

SENTENCES = [
    "The nurse met the engineer at noon.",
    "She said the engineer, an ENGINEER by training, was unbelievably late; the Engineer agreed.",
    "Receptionists and philosophers gossip (quietly) about the philosopher's notebook.",
    "Nothing to see here.",
    "Unbelievably, the nurse-practitioner left.",
]
WORDS = ["engineer", "nurse", "philosopher", "unbelievably", "gossip", "receptionists"]


def reference_word_vectors(encoder: Encoder, sentence: str, start: int, end: int, layer: int, pooling: str):
    """Independent reference: one raw forward pass per sentence, pieces found with char_to_token."""
    encoding = encoder.tokenizer(sentence, return_tensors="pt")
    pieces = sorted({encoding.char_to_token(c) for c in range(start, end)} - {None})
    with torch.no_grad():
        states = encoder.model(**{k: v for k, v in encoding.items()}, output_hidden_states=True).hidden_states
    rows = states[layer][0, pieces]
    chosen = {"mean": rows.mean(0), "first": rows[0], "last": rows[-1]}[pooling]
    return chosen.numpy(), len(pieces)


@pytest.mark.parametrize("pooling", ["mean", "first", "last"])
@pytest.mark.parametrize("layer", [-1, 0, 1])
def test_word_embeddings_equal_raw_forward(tiny_encoder, pooling, layer):
    result = embed_words(tiny_encoder, SENTENCES, WORDS, layer=layer, pooling=pooling, progress=False)
    assert len(result) == 11  # engineer 4, nurse 2, unbelievably 2, philosopher, gossip, receptionists
    for k in range(len(result)):
        start, end = result.spans[k]
        expected, n_pieces = reference_word_vectors(tiny_encoder, SENTENCES[result.sentence_ids[k]], start, end, layer, pooling)
        assert result.n_pieces[k] == n_pieces
        np.testing.assert_allclose(result.embeddings[k], expected, atol=1e-5, rtol=0)


def test_offsets_repeated_words_punctuation_and_case(tiny_encoder):
    result = embed_words(tiny_encoder, SENTENCES, WORDS, progress=False)
    for k in range(len(result)):
        start, end = result.spans[k]
        assert SENTENCES[result.sentence_ids[k]][start:end].lower() == result.words[k]
    engineer = result.words == "engineer"
    assert engineer.sum() == 4  # once in sentence 0, three times (three casings) in sentence 1
    assert sorted(result.sentence_ids[engineer].tolist()) == [0, 1, 1, 1]
    # "nurse" inside "nurse-practitioner" is a whole word at a hyphen; "receptionists" is several pieces
    assert (result.words == "nurse").sum() == 2
    multi = result.n_pieces[result.words == "unbelievably"]
    assert (multi == len(tiny_encoder.tokenizer.tokenize("unbelievably"))).all() and (multi > 1).all()
    # "philosopher" inside "philosophers" is not a whole word; "philosopher's" is
    assert (result.words == "philosopher").sum() == 1


def test_several_layers_stack_in_order(tiny_encoder):
    both = embed_words(tiny_encoder, SENTENCES, WORDS, layer=[0, -1], progress=False)
    first = embed_words(tiny_encoder, SENTENCES, WORDS, layer=0, progress=False)
    last = embed_words(tiny_encoder, SENTENCES, WORDS, layer=-1, progress=False)
    assert both.embeddings.shape == (len(first), 2, tiny_encoder.hidden_size)
    np.testing.assert_allclose(both.embeddings[:, 0], first.embeddings, atol=1e-6)
    np.testing.assert_allclose(both.embeddings[:, 1], last.embeddings, atol=1e-6)
    assert both.layers == (0, 2)


def test_batch_budget_does_not_change_results(tiny_encoder):
    many = SENTENCES * 30
    small = embed_words(tiny_encoder, many, WORDS, batch_tokens=128, progress=False)
    large = embed_words(tiny_encoder, many, WORDS, batch_tokens=100_000, progress=False)
    np.testing.assert_array_equal(small.sentence_ids, large.sentence_ids)
    np.testing.assert_allclose(small.embeddings, large.embeddings, atol=1e-5)


def test_long_sentence_is_windowed_around_the_target():
    model, tokenizer = build_tiny_model("base", max_position_embeddings=40)
    encoder = Encoder.from_model(model, tokenizer, device="cpu")
    filler = " ".join(["word"] * 60)
    sentence = f"{filler} the engineer spoke {filler}"
    result = embed_words(encoder, [sentence], ["engineer"], progress=False)
    assert len(result) == 1
    start, end = result.spans[0]
    assert sentence[start:end] == "engineer"
    ids = tokenizer(sentence, add_special_tokens=False)["input_ids"]
    encoding = tokenizer(sentence, add_special_tokens=False)
    piece = encoding.char_to_token(start)
    width = 40 - 2
    window_start = min(max(piece - width // 2, 0), len(ids) - width)
    window = [tokenizer.cls_token_id] + ids[window_start : window_start + width] + [tokenizer.sep_token_id]
    with torch.no_grad():
        states = model(input_ids=torch.tensor([window])).last_hidden_state[0]
    expected = states[piece - window_start + 1].numpy()
    np.testing.assert_allclose(result.embeddings[0], expected, atol=1e-5)


@pytest.mark.parametrize("pooling", ["mean", "cls", "pooler"])
def test_sentence_embeddings_equal_raw_forward(tiny_encoder, pooling):
    result = embed_sentences(tiny_encoder, SENTENCES, pooling=pooling, progress=False)
    assert result.shape == (len(SENTENCES), tiny_encoder.hidden_size)
    for index, sentence in enumerate(SENTENCES):
        encoding = tiny_encoder.tokenizer(sentence, return_tensors="pt", return_special_tokens_mask=True)
        special = encoding.pop("special_tokens_mask")[0].bool()
        with torch.no_grad():
            output = tiny_encoder.model(**encoding)
        if pooling == "mean":
            expected = output.last_hidden_state[0][~special].mean(0)
        elif pooling == "cls":
            expected = output.last_hidden_state[0, 0]
        else:
            expected = output.pooler_output[0]
        np.testing.assert_allclose(result[index], expected.numpy(), atol=1e-5)


def test_cased_tokenizer_matches_case_exactly():
    from transformers import BertTokenizerFast

    from tests.conftest import embedded_model_path

    model, _ = build_tiny_model("base")
    cased = BertTokenizerFast(vocab_file=str(embedded_model_path() / "vocab.txt"), do_lower_case=False)
    encoder = Encoder.from_model(model, cased, device="cpu")
    assert encoder.do_lower_case is False
    result = embed_words(encoder, ["An Engineer and engineer."], ["engineer"], progress=False)
    assert result.spans.tolist() == [[16, 24]]
    insensitive = embed_words(encoder, ["An Engineer and engineer."], ["engineer"], case_sensitive=False, progress=False)
    assert len(insensitive) == 2
    initial = embed_words(encoder, ["Engineer, the engineer."], ["engineer"], progress=False)
    assert initial.spans.tolist() == [[0, 8], [14, 22]]  # a capital at the start is the same word


def test_cache_round_trips_bit_exactly_and_is_reused(tiny_encoder, tmp_path, monkeypatch):
    first = embed_words(tiny_encoder, SENTENCES, WORDS, layer=[0, -1], cache_dir=tmp_path, progress=False)
    files = list(tmp_path.glob("*.npz"))
    assert len(files) == 1

    import probekit.embedding._extraction as engine

    def no_model(*args, **kwargs):
        raise AssertionError("the cache should have been used")

    monkeypatch.setattr(engine, "_encode_units", no_model)
    second = embed_words(tiny_encoder, SENTENCES, WORDS, layer=[0, -1], cache_dir=tmp_path, progress=False)
    assert second.embeddings.tobytes() == first.embeddings.tobytes()
    np.testing.assert_array_equal(second.words, first.words)
    np.testing.assert_array_equal(second.spans, first.spans)
    np.testing.assert_array_equal(second.n_pieces, first.n_pieces)


@pytest.mark.parametrize("damage", ["truncate", "garbage", "flip"])
def test_corrupted_cache_is_detected_and_rebuilt(tiny_encoder, tmp_path, damage):
    first = embed_words(tiny_encoder, SENTENCES, WORDS, cache_dir=tmp_path, progress=False)
    (path,) = tmp_path.glob("*.npz")
    data = bytearray(path.read_bytes())
    if damage == "truncate":
        data = data[: len(data) // 2]
    elif damage == "garbage":
        data = bytearray(b"not a zip file at all")
    else:  # one byte inside the stored embeddings (npz is stored uncompressed)
        data[len(data) // 3] ^= 0xFF
    path.write_bytes(bytes(data))
    rebuilt = embed_words(tiny_encoder, SENTENCES, WORDS, cache_dir=tmp_path, progress=False)
    assert rebuilt.embeddings.tobytes() == first.embeddings.tobytes()
    again = embed_words(tiny_encoder, SENTENCES, WORDS, cache_dir=tmp_path, progress=False)
    assert again.embeddings.tobytes() == first.embeddings.tobytes()


def test_sentence_cache_round_trip(tiny_encoder, tmp_path):
    first = embed_sentences(tiny_encoder, SENTENCES, cache_dir=tmp_path, progress=False)
    second = embed_sentences(tiny_encoder, SENTENCES, cache_dir=tmp_path, progress=False)
    assert first.tobytes() == second.tobytes()
    assert len(list(tmp_path.glob("*.npz"))) == 1


def test_save_and_load_word_embeddings(tiny_encoder, tmp_path):
    result = embed_words(tiny_encoder, SENTENCES, WORDS + ["absent"], on_missing="ignore", progress=False)
    result.save(tmp_path / "emb.npz")
    loaded = type(result).load(tmp_path / "emb.npz")
    assert loaded.embeddings.tobytes() == result.embeddings.tobytes()
    assert loaded.missing == ("absent",)
    assert loaded.meta["model_fingerprint"] == tiny_encoder.fingerprint


# ------------------------------------------------------------------------------------ bad input


def test_empty_word_list(tiny_encoder):
    with pytest.raises(InvalidParameterError, match="words"):
        embed_words(tiny_encoder, SENTENCES, [], progress=False)


def test_words_without_sentences_error_warn_ignore(tiny_encoder):
    with pytest.raises(MissingSentencesError, match="absent") as info:
        embed_words(tiny_encoder, SENTENCES, ["nurse", "absent"], on_missing="error", progress=False)
    assert info.value.missing == ["absent"]
    with pytest.warns(UserWarning, match="1 of 2 words have no sentence: absent"):
        result = embed_words(tiny_encoder, SENTENCES, ["nurse", "absent"], progress=False)
    assert result.missing == ("absent",) and set(result.words) == {"nurse"}
    quiet = embed_words(tiny_encoder, SENTENCES, ["absent"], on_missing="ignore", progress=False)
    assert len(quiet) == 0 and quiet.embeddings.shape == (0, tiny_encoder.hidden_size)


@pytest.mark.parametrize("layer", [3, -4, [0, 7], "last", []])
def test_layer_out_of_range(tiny_encoder, layer):
    with pytest.raises(InvalidParameterError, match=r"layer.*\[-3, 2\]"):
        embed_words(tiny_encoder, SENTENCES, WORDS, layer=layer, progress=False)


def test_unknown_pooling(tiny_encoder):
    with pytest.raises(InvalidParameterError, match="pooling='max'.*'first', 'mean', 'last'"):
        embed_words(tiny_encoder, SENTENCES, WORDS, pooling="max", progress=False)
    with pytest.raises(InvalidParameterError, match="pooling='first'.*'mean', 'cls', 'pooler'"):
        embed_sentences(tiny_encoder, SENTENCES, pooling="first", progress=False)


def test_unknown_on_missing(tiny_encoder):
    with pytest.raises(InvalidParameterError, match="on_missing"):
        embed_words(tiny_encoder, SENTENCES, WORDS, on_missing="explode", progress=False)


def test_a_single_string_is_not_a_corpus(tiny_encoder):
    with pytest.raises(InvalidParameterError, match="sentences"):
        embed_words(tiny_encoder, "The nurse.", ["nurse"], progress=False)


def test_last_layer_shortcut_matches_full_forward_and_restores_the_model(tiny_encoder, monkeypatch):
    import probekit.embedding._extraction as engine

    assert engine._last_layer_shortcut(tiny_encoder.model) is not None
    fast = embed_words(tiny_encoder, SENTENCES, WORDS, progress=False)
    monkeypatch.setattr(engine, "_last_layer_shortcut", lambda model: None)
    full = embed_words(tiny_encoder, SENTENCES, WORDS, progress=False)
    np.testing.assert_allclose(fast.embeddings, full.embeddings, atol=1e-5)
    assert len(tiny_encoder.model.encoder.layer) == tiny_encoder.num_layers

    layers = tiny_encoder.model.encoder.layer
    with pytest.raises(RuntimeError, match="boom"):
        with engine._without_last_layer(tiny_encoder.model):
            assert len(tiny_encoder.model.encoder.layer) == tiny_encoder.num_layers - 1
            raise RuntimeError("boom")
    assert tiny_encoder.model.encoder.layer is layers  # restored after the error


def test_hooks_on_the_model_turn_the_shortcut_off(tiny_encoder):
    import probekit.embedding._extraction as engine

    plain = embed_words(tiny_encoder, SENTENCES, WORDS, progress=False)
    handle = tiny_encoder.model.encoder.layer[-1].register_forward_hook(
        lambda module, inputs, output: (output[0] + 100.0,) + tuple(output[1:]) if isinstance(output, tuple) else output + 100.0
    )
    try:
        assert engine._last_layer_shortcut(tiny_encoder.model) is None
        hooked = embed_words(tiny_encoder, SENTENCES, WORDS, progress=False)
        both = embed_words(tiny_encoder, SENTENCES, WORDS, layer=[0, -1], progress=False)
    finally:
        handle.remove()
    np.testing.assert_allclose(hooked.embeddings, plain.embeddings + 100.0, atol=1e-4)
    np.testing.assert_allclose(both.embeddings[:, 1], hooked.embeddings, atol=1e-5)


def test_restrict_to_keeps_only_each_words_own_sentences(tiny_encoder):
    from probekit import select_sentences

    corpus = ["The nurse and the engineer talked."] * 1 + [f"The engineer number {i} left." for i in range(4)]
    selection = select_sentences(corpus, ["nurse", "engineer"], max_per_word=1, random_state=0)
    result = embed_words(tiny_encoder, list(selection.sentences), ["nurse", "engineer"], progress=False)
    restricted = result.restrict_to(selection)
    assert sorted(restricted.words.tolist()) == ["engineer", "nurse"]
    assert len(result) >= len(restricted)


@pytest.mark.parametrize("batch_tokens", [0, -5])
def test_zero_or_negative_batch_tokens_is_an_error_not_the_default(tiny_encoder, batch_tokens):
    with pytest.raises(InvalidParameterError, match="batch_tokens"):
        embed_words(tiny_encoder, ["she is a nurse ."], ["nurse"], batch_tokens=batch_tokens, progress=False)
    with pytest.raises(InvalidParameterError, match="batch_tokens"):
        embed_sentences(tiny_encoder, ["she is a nurse ."], batch_tokens=batch_tokens, progress=False)
