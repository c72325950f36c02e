"""CDA on tiny random models: masking, the masked-LM loss, training, the added head, resume, output, CLI."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from debias import CDA, MaskedLMCollator, MaskedLMObjective, mask_tokens, read_debias_record
from probekit import embed_words, gender_probe, load_encoder, lpbs_report
from probekit.cli.main import main
from probekit.encoders import Encoder
from probekit.errors import MissingMLMHeadError
from probekit.intrinsic import LPBS_TEMPLATES
from probekit.text import template_corpus
from tests.conftest import build_tiny_model

WORDS = ["she", "he", "woman", "man", "mother", "father", "her", "his", "nurse", "engineer"]


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


@pytest.fixture(scope="module")
def corpus():
    return template_corpus(WORDS, frames_per_word=12, random_state=0)


def _encoder(kind: str) -> Encoder:
    model, tokenizer = build_tiny_model(kind)
    return Encoder.from_model(model, tokenizer, name=f"tiny-{kind}", device="cpu")


def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _fast(**overrides) -> CDA:
    settings = dict(steps=16, batch_size=16, learning_rate=2e-3, head_warmup_steps=4, seed=3)
    settings.update(overrides)
    return CDA(**settings)


def test_masking_follows_bert():
    """15% of the candidate positions; of those 80% mask, 10% random, 10% kept; never special or padding."""
    generator = torch.Generator().manual_seed(0)
    ids = torch.randint(1000, 2000, (400, 50), generator=generator)
    candidates = torch.ones_like(ids, dtype=torch.bool)
    candidates[:, 0] = candidates[:, -5:] = False  # a special token and padding
    inputs, labels = mask_tokens(ids, candidates, mask_token_id=103, vocab_size=30522, generator=generator)
    chosen = labels != -100
    assert not chosen[~candidates].any() and torch.equal(inputs[~candidates], ids[~candidates])
    assert torch.equal(labels[chosen], ids[chosen])
    n = int(candidates.sum())
    assert abs(chosen.sum().item() / n - 0.15) < 4 * (0.15 * 0.85 / n) ** 0.5
    k = int(chosen.sum())
    masked = (inputs[chosen] == 103).float().mean().item()
    kept = (inputs[chosen] == ids[chosen]).float().mean().item()
    assert abs(masked - 0.8) < 4 * (0.16 / k) ** 0.5 and abs(kept - 0.1) < 4 * (0.09 / k) ** 0.5
    # the same generator state gives the same masking
    again = mask_tokens(ids, candidates, mask_token_id=103, vocab_size=30522, generator=torch.Generator().manual_seed(5))
    once = mask_tokens(ids, candidates, mask_token_id=103, vocab_size=30522, generator=torch.Generator().manual_seed(5))
    assert torch.equal(again[0], once[0]) and torch.equal(again[1], once[1])


def test_masked_positions_loss_equals_the_models_own_loss(corpus):
    model, tokenizer = build_tiny_model("mlm")
    ids = tokenizer(list(corpus)[:8])["input_ids"]
    batch = MaskedLMCollator(tokenizer, model.config.vocab_size, 0.3)(ids, torch.Generator().manual_seed(1))
    assert (batch["labels"][batch["attention_mask"] == 0] == -100).all()
    with torch.no_grad():
        ours = MaskedLMObjective(model)(**batch)
        reference = model(**batch).loss
    torch.testing.assert_close(ours, reference, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore:gender probe:RuntimeWarning")  # a random tiny model may predict one gender only
def test_cda_trains_saves_reloads_and_is_probed(corpus, tmp_path):
    encoder = _encoder("mlm")
    before = _weights(encoder.mlm_model)
    cda = _fast(steps=30).fit(encoder, corpus, progress=False)
    losses = cda.history_.losses
    assert sum(losses[-6:]) / 6 < sum(losses[:6]) / 6
    for key, value in _weights(encoder.mlm_model).items():  # the encoder passed is untouched
        assert torch.equal(value, before[key]), key
    assert cda.data_["n_training_sentences"] == 2 * cda.data_["n_gendered_sentences"] > 0

    out = cda.save(tmp_path / "cda")
    record = read_debias_record(out)
    assert record["method"] == "cda" and record["mlm_head"]["added"] is False
    assert record["base_model"]["fingerprint"] == encoder.fingerprint
    assert record["data"]["digest"] == corpus.digest and record["training"]["steps"] == 30
    assert record["provenance"]["versions"]["torch"] and record["seeds"]["base_seed"] == cda.history_.base_seed
    assert {p.name for p in out.iterdir()} >= {"config.json", "model.safetensors", "tokenizer.json", "debias.json"}

    loaded = load_encoder(out, device="cpu")
    assert loaded.has_mlm_head and loaded.fingerprint == record["fingerprint"]
    trained = _weights(cda.model_)
    for key, value in _weights(loaded.mlm_model).items():
        torch.testing.assert_close(value, trained[key], rtol=0, atol=0)

    # The reloaded checkpoint is probed: the gender probe on its word embeddings, and LPBS (it has a
    # head) equal to LPBS of the model in memory. (The whole probe suite on a reloaded debiased
    # checkpoint: test_context_debias.py; here it would spend its time in LPBS's full word lists.)
    female, male = ["she", "woman", "mother", "her"], ["he", "man", "father", "his"]
    found = embed_words(loaded, list(corpus), [*female, *male, "nurse", "engineer"], progress=False)
    words = found.words

    def rows(chosen):
        return found.embeddings[np.isin(words, chosen)], words[np.isin(words, chosen)]

    (f_attr, f_words), (m_attr, m_words) = rows(female), rows(male)
    (f_st, f_st_words), (m_st, m_st_words) = rows(["nurse"]), rows(["engineer"])
    probe = gender_probe(
        f_attr, m_attr, f_st, m_st, female_attribute_words=f_words, male_attribute_words=m_words,
        female_stereotype_words=f_st_words, male_stereotype_words=m_st_words,
        C=1.0, n_randomizations=10, n_bootstrap=20, random_state=0,
    )
    assert 0.0 <= probe.gender_accuracy <= 1.0 and 0.0 <= probe.stereotype_accuracy <= 1.0
    lpbs_args = (list(zip(female[:3], male[:3])), ["nurse"], ["engineer"])
    lpbs_options = dict(templates=LPBS_TEMPLATES[:2], n_permutations=100, random_state=0)
    report = lpbs_report(loaded, *lpbs_args, **lpbs_options)
    assert report["status"] == "ok" and math.isfinite(report["attr_lpbs"]) and math.isfinite(report["target_lpbs"])
    in_memory = lpbs_report(cda.to_encoder(), *lpbs_args, **lpbs_options)
    assert (report["attr_lpbs"], report["target_lpbs"]) == (in_memory["attr_lpbs"], in_memory["target_lpbs"])


def test_headless_encoder_needs_the_flag(corpus):
    with pytest.raises(MissingMLMHeadError, match="add-mlm-head"):
        _fast().fit(_encoder("base"), corpus, progress=False)


def test_added_head_is_tied_warmed_up_with_the_encoder_frozen_and_recorded(corpus, tmp_path):
    encoder = _encoder("base")
    before = _weights(encoder.model)
    with pytest.warns(UserWarning, match="no masked-LM head"):
        # A vanishing main learning rate: what moves the weights is the head warm-up alone.
        cda = _fast(add_mlm_head=True, steps=1, learning_rate=1e-12, head_warmup_steps=8).fit(encoder, corpus, progress=False)
    model = cda.model_
    assert model.get_output_embeddings().weight is model.get_input_embeddings().weight
    for key, value in _weights(model.base_model).items():  # encoder frozen during the warm-up
        torch.testing.assert_close(value, before[key], rtol=0, atol=1e-9)
    assert cda.head_history_.steps == 8 and cda.head_history_.losses[-1] < cda.head_history_.losses[0]

    out = cda.save(tmp_path / "cda-head")
    record = json.loads((out / "debias.json").read_text())
    assert record["mlm_head"]["added"] is True and record["mlm_head"]["warmup_steps"] == 8
    assert record["mlm_head"]["tied_to_input_embeddings"] is True
    assert record["mlm_head"]["warmup"]["steps"] == 8
    assert record["provenance"]["parameters"]["add_mlm_head"] is True
    loaded = load_encoder(out, device="cpu")
    assert loaded.has_mlm_head
    assert loaded.mlm_model.get_output_embeddings().weight is loaded.mlm_model.get_input_embeddings().weight


def test_resume_equals_an_uninterrupted_run_and_seeds_decide(corpus, tmp_path):
    settings = dict(add_mlm_head=True, steps=10, checkpoint_every=3, head_warmup_steps=3)
    with pytest.warns(UserWarning):
        full = _fast(**settings).fit(_encoder("base"), corpus, progress=False)

    class Interrupt(Exception):
        pass

    def stop(step, values):
        if step == 7:
            raise Interrupt

    with pytest.warns(UserWarning), pytest.raises(Interrupt):
        _fast(**settings).fit(_encoder("base"), corpus, checkpoint_dir=tmp_path, callback=stop, progress=False)
    with pytest.warns(UserWarning):
        resumed = _fast(**settings).fit(_encoder("base"), corpus, checkpoint_dir=tmp_path, resume=True, progress=False)
    assert resumed.history_.resumed_from == 6
    expected = _weights(full.model_)
    for key, value in _weights(resumed.model_).items():
        assert torch.equal(value, expected[key]), key
    assert resumed.history_.losses == full.history_.losses

    with pytest.warns(UserWarning):
        other = _fast(**settings, seed=4).fit(_encoder("base"), corpus, progress=False)
    assert not torch.equal(_weights(other.model_)["cls.predictions.transform.dense.weight"],
                           expected["cls.predictions.transform.dense.weight"])


def _one_line_error(capsys, *needles: str) -> str:
    captured = capsys.readouterr()
    error = captured.err.strip()
    assert "Traceback" not in captured.err and len(error.splitlines()) == 1, captured.err
    assert error.startswith("probekit debias: error:"), error
    for needle in needles:
        assert needle in error, (needle, error)
    return error


def test_cli_cda_with_added_head(tiny_checkpoints, corpus, tmp_path, capsys, caplog):
    corpus_file = corpus.to_text_file(tmp_path / "corpus.txt")
    out = tmp_path / "out"
    common = ["debias", "cda", "--model", str(tiny_checkpoints["base"]), "--corpus", str(corpus_file),
              "--steps", "3", "--batch-size", "8", "--head-warmup-steps", "2", "--no-progress", "--out", str(out)]

    assert main(common) == 2  # head-less without --add-mlm-head: one line, nothing written
    _one_line_error(capsys, "--add-mlm-head", "no masked-LM head")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["corpus.txt"]

    with caplog.at_level("WARNING"):
        assert main([*common, "--add-mlm-head"]) == 0  # the CLI logs the added head once (no second UserWarning)
    assert any("no masked-LM head" in r.getMessage() and r.levelname == "WARNING" for r in caplog.records)
    assert "a new masked-LM head was added" in capsys.readouterr().out
    assert load_encoder(out, device="cpu").has_mlm_head
    record = read_debias_record(out)
    assert record["mlm_head"]["added"] is True and record["provenance"]["parameters"]["add_mlm_head"] is True
    assert not (tmp_path / "out.checkpoints").exists()

    assert main([*common, "--add-mlm-head"]) == 2  # --out now holds files
    _one_line_error(capsys, "--out", "already holds files")


@pytest.mark.parametrize(
    "bad, needle",
    [
        (["--steps", "0"], "--steps"),
        (["--batch-size", "-2"], "--batch-size"),
        (["--lr", "0"], "--lr"),
        (["--max-length", "0"], "--max-length"),
        (["--head-warmup-steps", "-1"], "--head-warmup-steps"),
        (["--head-lr=-1e-3"], "--head-lr"),
        (["--checkpoint-every", "0"], "--checkpoint-every"),
        (["--model", "/nonexistent/checkpoint"], "/nonexistent/checkpoint"),
        (["--corpus", "/nonexistent/corpus.txt"], "corpus.txt"),
    ],
)
def test_cli_cda_bad_arguments_write_nothing(tiny_checkpoints, tmp_path, capsys, bad, needle):
    out = tmp_path / "out"
    args = ["debias", "cda", "--model", str(tiny_checkpoints["mlm"]), "--steps", "2", "--no-progress", "--out", str(out)]
    assert main([*args, *bad]) == 2
    _one_line_error(capsys, needle)
    assert list(tmp_path.iterdir()) == []  # neither --out nor a checkpoint directory


def test_cli_defaults_are_the_library_defaults():
    import inspect

    from probekit.cli.main import build_parser

    library = {k: v.default for k, v in inspect.signature(CDA).parameters.items()}
    args = build_parser().parse_args(["debias", "cda", "--out", "x"])
    assert (args.steps, args.batch_size, args.lr, args.max_length, args.head_warmup_steps, args.head_lr) == (
        library["steps"], library["batch_size"], library["learning_rate"], library["max_length"],
        library["head_warmup_steps"], library["head_learning_rate"],
    )
