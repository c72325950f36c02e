"""Every encoder architecture scored as right as BERT: tiny random models of each, against raw transformers.

Per architecture (BERT, RoBERTa, ALBERT, DistilBERT, DeBERTa-v2/v3, ELECTRA, XLM-R, ModernBERT):
masked scores equal a one-at-a-time transformers computation (full model, one masked copy per
pass); word extraction equals a raw forward pass pooled over the word's pieces; StereoSet's fill-in
pieces are the ones the sentence holds; Self-Debias equals a re-implementation of the survey's public
code's prefix handling. The main commands then run end to end on a few architectures.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from debias import DEFAULT_DEBIASING_PREFIXES, SelfDebias
from probekit.embedding import embed_words
from probekit.encoders import Encoder, is_blank_piece, space_sensitive
from probekit.errors import MissingMLMHeadError
from probekit.intrinsic import masked_token_log_probs, pseudo_log_likelihood
from tests.integration._tiny_architectures import ARCHITECTURES, build_masked_lm, encoder_for

SENTENCES = [
    "The man is caring and the woman is strong.",
    "My grandmother was late for the meeting.",
    "Everyone knew that the father could not fix the broken car!",
    "People from that country are hardworking and kind.",
]


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module", params=ARCHITECTURES)
def encoder(request):
    return encoder_for(request.param)


def _one_at_a_time(mlm, ids, position, mask_id):
    masked = torch.tensor([ids])
    masked[0, position] = mask_id
    with torch.inference_mode():
        logits = mlm(input_ids=masked).logits[0, position]
    return torch.log_softmax(logits.double(), dim=-1)


def test_every_masked_score_equals_one_at_a_time_transformers(encoder):
    encoded = encoder.tokenizer(SENTENCES[:2], return_special_tokens_mask=True)
    positions = [np.flatnonzero(np.asarray(m) == 0) for m in encoded["special_tokens_mask"]]
    got = masked_token_log_probs(encoder, encoded["input_ids"], positions, batch_tokens=64)  # several batches
    mask_id = encoder.tokenizer.mask_token_id
    for ids, where, scores in zip(encoded["input_ids"], positions, got):
        expected = [_one_at_a_time(encoder.mlm_model, ids, p, mask_id)[ids[p]].item() for p in where]
        np.testing.assert_allclose(scores, expected, atol=1e-5, rtol=0)
    plls = pseudo_log_likelihood(encoder, SENTENCES[:2])
    np.testing.assert_allclose(plls, [s.sum() for s in got], atol=1e-9)


def _raw_word_vector(encoder, sentence, word, pooling):
    """The word's vector from a raw transformers forward pass: tokens overlapping the word's
    characters, bare word-start markers left out, pooled from the last hidden state."""
    start = sentence.index(word)
    encoded = encoder.tokenizer(sentence, return_offsets_mapping=True)
    pieces = [k for k, (a, b) in enumerate(encoded["offset_mapping"]) if a < start + len(word) and b > start and b > a]
    pieces = [k for k in pieces if not is_blank_piece(encoder.tokenizer, encoded["input_ids"][k])]
    with torch.inference_mode():
        hidden = encoder.model(input_ids=torch.tensor([encoded["input_ids"]])).last_hidden_state[0]
    rows = hidden[pieces]
    return (rows.mean(0) if pooling == "mean" else rows[0]).numpy(), len(pieces)


@pytest.mark.parametrize("pooling", ["mean", "first"])
def test_extraction_equals_a_raw_forward_pass_for_a_word_of_several_pieces(encoder, pooling):
    words = ["hardworking", "grandmother", "caring", "The"]
    result = embed_words(encoder, SENTENCES, words, pooling=pooling, case_sensitive=True, progress=False)
    for word in words:
        sentence = next(s for s in SENTENCES if word in s)
        expected, n_pieces = _raw_word_vector(encoder, sentence, word, pooling)
        row = np.flatnonzero((result.words == word) & (result.sentence_ids == SENTENCES.index(sentence)))[0]
        assert result.n_pieces[row] == n_pieces
        np.testing.assert_allclose(result.embeddings[row], expected, atol=1e-5, rtol=0)
    assert result.n_pieces[list(result.words).index("hardworking")] > 1  # a word of several pieces


def test_sentence_embeddings_equal_a_raw_forward_pass_and_the_pooler_is_checked(encoder):
    from probekit.embedding import embed_sentences
    from probekit.errors import InvalidParameterError

    got = embed_sentences(encoder, SENTENCES[:2], pooling="mean", layer=[0, -1], progress=False)
    for k, sentence in enumerate(SENTENCES[:2]):
        encoded = encoder.tokenizer(sentence, return_special_tokens_mask=True)
        content = np.flatnonzero(np.asarray(encoded["special_tokens_mask"]) == 0)
        with torch.inference_mode():
            states = encoder.model(input_ids=torch.tensor([encoded["input_ids"]]), output_hidden_states=True).hidden_states
        for j, layer in enumerate((0, -1)):
            np.testing.assert_allclose(got[k, j], states[layer][0, content].mean(0).numpy(), atol=1e-5, rtol=0)
    if getattr(encoder.model, "pooler", None) is None:  # masked-LM classes carry no pooler
        with pytest.raises(InvalidParameterError, match="pooler"):
            embed_sentences(encoder, SENTENCES[:1], pooling="pooler", progress=False)


def test_a_bare_word_start_marker_is_not_the_words_vector():
    encoder = encoder_for("albert")  # the Unigram tokenizer writes "The" as ▁, T, he with ▁ over "T"
    tokens = encoder.tokenizer.convert_ids_to_tokens(encoder.tokenizer("The man")["input_ids"])
    assert tokens[1] == "▁"
    result = embed_words(encoder, ["The man"], ["The"], pooling="first", case_sensitive=True, progress=False)
    with torch.inference_mode():
        hidden = encoder.model(input_ids=torch.tensor([encoder.tokenizer("The man")["input_ids"]])).last_hidden_state[0]
    np.testing.assert_allclose(result.embeddings[0], hidden[2].numpy(), atol=1e-5)
    assert result.n_pieces[0] == 2


def test_word_boundaries_come_from_the_tokenizer_not_the_model_type():
    assert [space_sensitive(build_masked_lm(a)[1]) for a in ("bert", "roberta", "albert", "modernbert")] == [
        False, True, False, True]


def test_stereoset_predicts_the_pieces_the_sentence_holds(encoder):
    """Each fill-in's score equals the mean probability, by full forward passes, of the word's pieces
    as the sentence holds them (``Ġcaring`` for byte-level BPE, not ``c ar ing``), each predicted at a
    mask placed after the decoded earlier pieces (the public code's scheme)."""
    from probekit.intrinsic import StereoSetExample, score_stereoset

    context = "The man is BLANK today."  # (SentencePiece joins a final period to the word: "▁late.")
    fills = (("caring", "stereotype"), ("strong", "anti-stereotype"), ("late", "unrelated"))
    example = StereoSetExample("c1", "man", "gender", context,
                               tuple((f"s{k}", context.replace("BLANK", w), label) for k, (w, label) in enumerate(fills)))
    tokenizer = encoder.tokenizer
    expected = []
    for word, _ in fills:
        sentence = context.replace("BLANK", word)
        encoded = tokenizer(sentence, add_special_tokens=False, return_offsets_mapping=True)
        start = sentence.index(word)
        # the tokens over the word and the space before it (a bare ▁ standing for that space is the word's too)
        held = [t for t, (a, b) in zip(encoded["input_ids"], encoded["offset_mapping"]) if a < start + len(word) and b > start - 1]
        probabilities = []
        for j, piece in enumerate(held):
            ids = tokenizer(context.replace("BLANK", tokenizer.decode(held[:j]) + tokenizer.mask_token))["input_ids"]
            where = ids.index(tokenizer.mask_token_id)
            with torch.inference_mode():
                logits = encoder.mlm_model(input_ids=torch.tensor([ids])).logits[0, where]
            probabilities.append(torch.softmax(logits.double(), dim=-1)[piece].item())
        expected.append(np.mean(probabilities))
    np.testing.assert_allclose(score_stereoset(encoder, [example])[0], expected, atol=1e-6, rtol=0)


def _survey_self_debias(encoder, sentence, prefix, decay=50.0, epsilon=0.01):
    """Self-Debias by hand, as the survey's public code builds the prefixed input (Meade et al. 2022,
    ``get_token_logits_self_debiasing``): ``cls_token + " " + prefix`` tokenized without special
    tokens, its leading [CLS]/<s> dropped, put between the sentence's first special token and the
    sentence's own tokens; each token of the sentence masked in turn in the plain and the prefixed
    input, full forward passes, and the formula of Schick et al. (2021). Returns {position: log p}."""
    tokenizer, mlm = encoder.tokenizer, encoder.mlm_model
    encoded = tokenizer(sentence, return_special_tokens_mask=True)
    ids, special = encoded["input_ids"], encoded["special_tokens_mask"]
    prefix_ids = tokenizer(f"{tokenizer.cls_token} {prefix}", add_special_tokens=False)["input_ids"][1:]
    together = ids[:1] + prefix_ids + ids[1:]
    out = {}
    for position in [k for k, s in enumerate(special) if not s]:
        log_p = _one_at_a_time(mlm, ids, position, tokenizer.mask_token_id)
        with torch.inference_mode():
            biased = torch.softmax(_one_at_a_time(mlm, together, position + len(prefix_ids), tokenizer.mask_token_id), dim=-1)
        p = log_p.exp()
        alpha = torch.clamp(torch.exp(-decay * torch.clamp(biased - p, min=0)), min=epsilon)
        out[position] = float(torch.log(alpha * p / (alpha * p).sum())[ids[position]])
    return out, prefix_ids


@pytest.mark.parametrize("arch", ["roberta", "bert", "modernbert", "xlm-roberta"])
def test_self_debias_equals_the_survey_prefix_handling(arch):
    encoder = encoder_for(arch)
    prefix = DEFAULT_DEBIASING_PREFIXES[0]
    wrapped = SelfDebias().wrap(encoder)
    sentences = ["The man is caring.", "Everyone knew that the father was late.", "man is caring, kind and strong."]
    encoded = encoder.tokenizer(sentences, return_special_tokens_mask=True)
    positions = [np.flatnonzero(np.asarray(m) == 0) for m in encoded["special_tokens_mask"]]
    got = masked_token_log_probs(wrapped, encoded["input_ids"], positions)
    for sentence, where, scores in zip(sentences, positions, got):
        expected, prefix_ids = _survey_self_debias(encoder, sentence, prefix)
        assert sorted(expected) == where.tolist()  # every position compared
        np.testing.assert_allclose(scores, [expected[k] for k in where.tolist()], atol=1e-5, rtol=0)
    last = encoder.tokenizer.convert_ids_to_tokens(prefix_ids[-1:])[0]
    if arch == "roberta":  # byte-level BPE keeps the prefix's trailing space as a token of its own
        assert last == "Ġ", last
    if arch == "bert":  # WordPiece drops it: the prefix ends with ':'
        assert last == ":", last


@pytest.mark.parametrize("arch", ARCHITECTURES)
def test_a_head_added_to_a_headless_encoder_is_tied_and_scores(arch):
    import copy

    from debias import add_mlm_head

    model, tokenizer = build_masked_lm(arch)
    base = copy.deepcopy(model.base_model)
    mlm = add_mlm_head(base, generator=torch.Generator().manual_seed(0))
    assert mlm.base_model is base and mlm.get_output_embeddings().weight is base.get_input_embeddings().weight
    encoder = Encoder.from_model(mlm, tokenizer, name=f"tiny-{arch}-added-head", device="cpu")
    assert np.isfinite(pseudo_log_likelihood(encoder, SENTENCES[:1])).all()


@pytest.mark.parametrize("arch", ["roberta", "distilbert", "deberta-v2", "modernbert"])
def test_saved_checkpoints_load_with_and_without_their_head(arch, tmp_path):
    from probekit import load_encoder

    model, tokenizer = build_masked_lm(arch)
    model.save_pretrained(tmp_path / "mlm")
    model.base_model.save_pretrained(tmp_path / "base")
    for name in ("mlm", "base"):
        tokenizer.save_pretrained(tmp_path / name)
    loaded = load_encoder(tmp_path / "mlm", device="cpu")
    assert loaded.has_mlm_head and type(loaded.model) is type(model.base_model)
    in_memory = Encoder.from_model(model, tokenizer, device="cpu")
    np.testing.assert_allclose(pseudo_log_likelihood(loaded, SENTENCES[:1]), pseudo_log_likelihood(in_memory, SENTENCES[:1]),
                               atol=1e-6)
    headless = load_encoder(tmp_path / "base", device="cpu")
    assert not headless.has_mlm_head
    with pytest.raises(MissingMLMHeadError, match="masked-LM head"):
        pseudo_log_likelihood(headless, SENTENCES[:1])


def test_electra_discriminator_has_no_head_and_the_error_says_what_to_load():
    from transformers import ElectraConfig, ElectraForPreTraining

    model, tokenizer = build_masked_lm("electra")
    discriminator = ElectraForPreTraining(ElectraConfig(**{k: v for k, v in model.config.to_dict().items()
                                                           if k in ElectraConfig().to_dict()}))
    encoder = Encoder.from_model(discriminator.eval(), tokenizer, name="tiny-electra-discriminator", device="cpu")
    assert encoder.mlm_model is None and type(encoder.model).__name__ == "ElectraModel"
    with pytest.raises(MissingMLMHeadError, match="generator"):
        pseudo_log_likelihood(encoder, SENTENCES)


def test_position_limits_follow_the_position_table():
    assert encoder_for("roberta").max_length == 128  # 130 positions, padding index 1: ids start at 2
    xlmr = encoder_for("xlm-roberta")  # padding index 0 here: ids start at 1
    assert xlmr.max_length == 130 - (xlmr.tokenizer.pad_token_id + 1) == 129
    assert encoder_for("bert").max_length == 128 and encoder_for("distilbert").max_length == 128


# ------------------------------------------------------------------------------------ end to end


@pytest.fixture(scope="module")
def checkpoints(tmp_path_factory):
    root = tmp_path_factory.mktemp("architectures")
    paths = {}
    for arch in ("roberta", "distilbert", "albert"):
        model, tokenizer = build_masked_lm(arch)
        model.save_pretrained(root / arch)
        tokenizer.save_pretrained(root / arch)
        paths[arch] = root / arch
    return paths


@pytest.mark.parametrize("arch", ["roberta", "distilbert", "albert"])
def test_benchmark_and_debias_commands_run_end_to_end(arch, checkpoints, tmp_path):
    from probekit.cli.main import main
    from tests.unit.test_crows_pairs import _write_csv
    from tests.unit.test_stereoset import _write as _write_stereoset

    model = str(checkpoints[arch])
    common = ["--device", "cpu", "--no-progress"]
    crows = _write_csv(tmp_path / "crows.csv")
    assert main(["crows-pairs", "--model", model, "--data", str(crows), "--out", str(tmp_path / "c"), *common]) == 0
    stereo = _write_stereoset(tmp_path / "dev.json")
    assert main(["stereoset", "--model", model, "--data", str(stereo), "--out", str(tmp_path / "s"), *common,
                 "--n-resamples", "10"]) == 0
    assert main(["debias", "self-debias", "--model", model, "--out", str(tmp_path / "sd")]) == 0
    assert main(["crows-pairs", "--model", str(tmp_path / "sd"), "--data", str(crows), "--out", str(tmp_path / "c2"),
                 *common]) == 0
    first = json.loads((tmp_path / "c" / "results.json").read_text())["overall"]
    assert 0 <= first["stereotype_score"] <= 100
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(
        f"The {w} said that the {s} was late." for w in ("woman", "man", "mother", "father", "girl", "boy", "she", "he")
        for s in ("nurse", "engineer", "scientist"))
        + "\n" + "\n".join(f"The {s} {v} the report." for s in ("nurse", "engineer", "scientist") for v in ("read", "wrote"))
        + "\n")
    assert main(["pppl", "--model", model, "--corpus", str(corpus), "--out", str(tmp_path / "p"), "--no-progress"]) == 0
    assert main(["debias", "cda", "--model", model, "--corpus", str(corpus), "--steps", "2", "--batch-size", "4",
                 "--no-progress", "--out", str(tmp_path / "cda")]) == 0
    assert main(["stereoset", "--model", str(tmp_path / "cda"), "--data", str(stereo), "--out", str(tmp_path / "s2"),
                 *common, "--n-resamples", "10"]) == 0
    assert main(["debias", "context-debias", "--model", model, "--corpus", str(corpus), "--steps", "2", "--batch-size", "4",
                 "--dev-size", "4", "--no-progress", "--out", str(tmp_path / "cd")]) == 0


# ------------------------------------------------------------------------------------ dropout debiasing


def _dropout_modules(model):
    return {n: m for n, m in model.named_modules() if isinstance(m, (torch.nn.Dropout, torch.nn.Identity)) and "drop" in n}


@pytest.mark.parametrize("arch", ["modernbert", "distilbert"])
def test_dropout_debiasing_finds_each_architectures_rates_and_runs_end_to_end(arch, tmp_path):
    """Webster et al.'s raised dropout reaches every slot the configuration controls (ModernBERT: a float
    passed to its attention function and an identity that becomes a dropout module), is set back after
    training, and ``debias dropout`` runs end to end."""
    from debias import dropout_fields, read_debias_record, set_dropout_rates
    from probekit import load_encoder
    from probekit.cli.main import main

    model, tokenizer = build_masked_lm(arch)
    roles = {field.name: field.role for field in dropout_fields(model)}
    assert roles == ({"attention_dropout": "attention", "embedding_dropout": "hidden", "mlp_dropout": "hidden"}
                     if arch == "modernbert" else {"attention_dropout": "attention", "dropout": "hidden"})
    plain = {n: type(m) for n, m in _dropout_modules(model).items()}
    before = set_dropout_rates(model, {"hidden": 0.0, "attention": 0.5})
    raised = _dropout_modules(model)
    if arch == "modernbert":
        attention = [m for n, m in model.named_modules() if n.endswith("attn")]
        assert plain["model.layers.0.attn.out_drop"] is torch.nn.Identity
        assert all(m.attention_dropout == 0.5 and m.out_drop.p == 0.5 for m in attention)
    assert {m.p for n, m in raised.items() if isinstance(m, torch.nn.Dropout) and "att" in n} == {0.5}
    ids = torch.tensor([tokenizer("The man is caring and the woman is strong.")["input_ids"]])
    with torch.random.fork_rng(devices=[]), torch.no_grad():
        torch.manual_seed(0)
        trained = model.train()(input_ids=ids).logits
        assert not torch.allclose(trained, model.eval()(input_ids=ids).logits)  # attention dropout alone acts
    set_dropout_rates(model, before)
    assert {n: type(m) for n, m in _dropout_modules(model).items()} == plain  # ModernBERT's identity is back

    model.save_pretrained(tmp_path / "base")
    tokenizer.save_pretrained(tmp_path / "base")
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(f"The {w} said that the nurse was late." for w in ("woman", "man", "she", "he")) + "\n")
    assert main(["debias", "dropout", "--model", str(tmp_path / "base"), "--corpus", str(corpus), "--steps", "2",
                 "--batch-size", "4", "--no-progress", "--out", str(tmp_path / "out")]) == 0
    record = read_debias_record(tmp_path / "out")["dropout"]
    assert record["fields"] == roles and set(record["base"]) == set(roles) and set(record["base"].values()) == {0.0}
    config = json.loads((tmp_path / "out" / "config.json").read_text())
    assert all(config[name] == 0.0 for name in roles)  # the saved checkpoint keeps its base's rates
    assert np.isfinite(pseudo_log_likelihood(load_encoder(tmp_path / "out", device="cpu"), SENTENCES[:1])).all()


def test_a_model_without_a_dropout_rate_of_a_role_is_told_which_parameter():
    from transformers import PretrainedConfig, PreTrainedModel

    from debias import dropout_rates, set_dropout_rates
    from probekit.errors import InvalidParameterError

    class HiddenDropoutOnly(PreTrainedModel):
        config_class = PretrainedConfig

        def __init__(self, config):
            super().__init__(config)
            self.linear = torch.nn.Linear(2, 2)
            self.drop = torch.nn.Dropout(getattr(config, "hidden_dropout_prob", 0.0))

    model = HiddenDropoutOnly(PretrainedConfig(hidden_dropout_prob=0.1))
    assert dropout_rates(model) == {"hidden_dropout_prob": 0.1}
    with pytest.raises(InvalidParameterError, match="attention_dropout=0.15.*no attention dropout rate"):
        set_dropout_rates(model, {"hidden": 0.2, "attention": 0.15})
    assert set_dropout_rates(model, {"hidden": 0.2, "attention": 0.0}) == {"hidden_dropout_prob": 0.1}
    assert model.drop.p == 0.2
    with pytest.raises(InvalidParameterError, match="invalid model=.*carries its dropout rates"):
        set_dropout_rates(HiddenDropoutOnly(PretrainedConfig()), {"hidden": 0.2})


def test_debertas_relative_attention_window_gives_the_models_own_outputs():
    """Inside the window the encoder's relative attention reads only the relative positions a sequence
    holds (a 256-bucket table, sentences of 5 and 24 tokens, one padded row): the outputs equal
    transformers' full computation, and nothing stays changed after the block."""
    import transformers as tf

    from probekit.encoders import relative_attention_window

    config = tf.DebertaV2Config(vocab_size=300, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                                intermediate_size=64, relative_attention=True, position_buckets=256,
                                pos_att_type=["p2c", "c2p"], position_biased_input=False, norm_rel_ebd="layer_norm")
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        model = tf.DebertaV2ForMaskedLM(config).eval()
    attention = model.deberta.encoder.layer[0].attention.self
    for length in (5, 24):
        ids = torch.randint(5, 300, (3, length), generator=torch.Generator().manual_seed(length))
        mask = torch.ones_like(ids)
        mask[0, -2:] = 0
        with torch.inference_mode():
            full = model(input_ids=ids, attention_mask=mask).logits
            with relative_attention_window(model):
                windowed = model(input_ids=ids, attention_mask=mask).logits
                assert attention.pos_ebd_size == length  # log buckets start beyond 128: |i - j| < length
        torch.testing.assert_close(windowed, full, atol=1e-5, rtol=0)
    assert attention.pos_ebd_size == 256 and "get_rel_embedding" not in vars(model.deberta.encoder)
    assert not model.deberta.encoder._forward_pre_hooks


def test_a_layerwise_projection_maps_each_hidden_state_of_every_architecture(encoder):
    """Concept scrubbing's hooks find the module behind each hidden state (ModernBERT's final norm,
    ALBERT's shared layers called once per layer): a map put at hidden state k alone turns the
    returned state k into A h_k + b and leaves the states below it as they were."""
    from probekit.encoders import LayerwiseProjection, OutputProjection, projection_applied

    ids = torch.tensor([encoder.tokenizer("The man is caring and the woman is strong.")["input_ids"]])
    with torch.inference_mode():
        raw = encoder.model(input_ids=ids, output_hidden_states=True).hidden_states
    rng = np.random.default_rng(0)
    width = raw[0].shape[-1]
    for k in range(len(raw)):
        affine = OutputProjection(np.eye(width) + 0.1 * rng.normal(size=(width, width)), rng.normal(size=width))
        layers = [affine if j == k else None for j in range(len(raw))]
        with torch.inference_mode(), projection_applied(encoder.model, LayerwiseProjection.from_layers(layers)):
            mapped = encoder.model(input_ids=ids, output_hidden_states=True).hidden_states
        for j in range(k):
            torch.testing.assert_close(mapped[j], raw[j], atol=1e-6, rtol=0)
        expected = raw[k].double() @ torch.tensor(affine.matrix.T) + torch.tensor(affine.offset)
        torch.testing.assert_close(mapped[k].double(), expected, atol=1e-4, rtol=1e-5)


def test_a_tokenizer_splitting_every_listed_word_is_told_to_keep_words_of_several_pieces(checkpoints, tmp_path, capsys):
    """The tiny byte-level BPE splits every paper attribute word: the probe says so and names --all-wordpieces
    (it used to fail later with 'invalid words=[]')."""
    from probekit.cli.main import main

    code = main(["probe", "--model", str(checkpoints["roberta"]), "--device", "cpu", "--no-progress",
                 "--out", str(tmp_path / "p")])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err
    assert "--all-wordpieces" in err and "splits every listed word" in err and "invalid --model=" in err
