"""Dropout debiasing (Webster et al. 2020) on tiny random models: raised dropout while training,
the loss on a planted corpus, resume, the written checkpoint and the masked-LM benchmarks, the CLI."""

from __future__ import annotations

import csv
import json

import pytest
import torch

from debias import DEBIAS_METHODS, Dropout, build_debiased, dropout_rates, read_debias_record, set_dropout_rates
from probekit import load_encoder
from probekit.cli.main import main
from probekit.encoders import Encoder
from probekit.errors import InvalidParameterError, MissingMLMHeadError
from probekit.intrinsic import crows_pairs, stereoset
from tests.conftest import build_tiny_model

#: A planted corpus: a few sentences repeated, so masked-LM training can only lower its loss.
PLANTED = ["she is a nurse .", "he is an engineer .", "the doctor said she would come .", "his mother is a teacher ."] * 8


#: Every test of this module on one torch thread (tests/conftest.py: one_torch_thread).
pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _encoder(kind: str = "mlm", **overrides) -> Encoder:
    model, tokenizer = build_tiny_model(kind, hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1, **overrides)
    return Encoder.from_model(model, tokenizer, name=f"tiny-{kind}", device="cpu")


def _fast(**overrides) -> Dropout:
    settings = dict(steps=12, batch_size=8, learning_rate=2e-3, head_warmup_steps=3, seed=3)
    settings.update(overrides)
    return Dropout(**settings)


def _weights(model) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in model.state_dict().items()}


def _dropout_ps(model) -> dict[str, float]:
    return {n: m.p for n, m in model.named_modules() if isinstance(m, torch.nn.Dropout)}


def test_registered_with_the_published_defaults():
    entry = DEBIAS_METHODS["dropout"]
    assert entry.kind == "training" and entry.marker == "debias.json" and entry.estimator is Dropout
    assert "Webster" in entry.citation
    params = Dropout().get_params()
    assert params["hidden_dropout"] == 0.20 and params["attention_dropout"] == 0.15
    with pytest.raises(InvalidParameterError, match="hidden_dropout"):
        _fast(hidden_dropout=1.0).fit(_encoder(), PLANTED, progress=False)
    with pytest.raises(MissingMLMHeadError, match="add-mlm-head"):
        _fast().fit(_encoder("base"), PLANTED, progress=False)


def test_rates_reach_every_dropout_module_and_are_restored_after_training():
    model, _ = build_tiny_model("mlm", hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)
    before = set_dropout_rates(model, {"hidden": 0.20, "attention": 0.15})
    assert before == {"hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}
    assert dropout_rates(model) == {"hidden_dropout_prob": 0.2, "attention_probs_dropout_prob": 0.15}
    rates = _dropout_ps(model)
    attention = {n for n in rates if n.endswith("attention.self.dropout")}
    assert len(attention) == model.config.num_hidden_layers
    assert all(rates[n] == 0.15 for n in attention) and all(p == 0.20 for n, p in rates.items() if n not in attention)
    set_dropout_rates(model, before)
    assert set(_dropout_ps(model).values()) == {0.1}

    encoder = _encoder()
    debiaser = _fast(steps=2).fit(encoder, PLANTED, progress=False)
    assert set(_dropout_ps(debiaser.model_).values()) == {0.1}  # set back on the result
    assert dropout_rates(debiaser.model_) == {"hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}
    assert debiaser.dropout_fields_ == {"hidden_dropout_prob": "hidden", "attention_probs_dropout_prob": "attention"}
    assert set(_dropout_ps(encoder.mlm_model).values()) == {0.1}  # the encoder passed is untouched


def test_loss_falls_on_a_planted_corpus_and_the_checkpoint_is_scored(tmp_path):
    encoder = _encoder()
    before = _weights(encoder.mlm_model)
    debiaser = _fast(steps=30).fit(encoder, PLANTED, progress=False)
    losses = debiaser.history_.losses
    assert sum(losses[-6:]) / 6 < sum(losses[:6]) / 6
    for key, value in _weights(encoder.mlm_model).items():
        assert torch.equal(value, before[key]), key
    assert debiaser.data_["n_training_sentences"] == len(PLANTED) and debiaser.data_["augmentation"] == "none"

    out = debiaser.save(tmp_path / "dropout")
    record = read_debias_record(out)
    assert record["method"] == "dropout" and record["dropout"]["training"] == {"hidden": 0.2, "attention": 0.15}
    assert record["dropout"]["base"] == {"hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1}
    assert record["base_model"]["fingerprint"] == encoder.fingerprint and record["training"]["steps"] == 30
    assert record["provenance"]["parameters"]["hidden_dropout"] == 0.2
    config = json.loads((out / "config.json").read_text())
    assert config["hidden_dropout_prob"] == 0.1 and config["attention_probs_dropout_prob"] == 0.1

    loaded = load_encoder(out, device="cpu")
    assert loaded.has_mlm_head and loaded.fingerprint == record["fingerprint"]
    trained = _weights(debiaser.model_)
    for key, value in _weights(loaded.mlm_model).items():
        torch.testing.assert_close(value, trained[key], rtol=0, atol=0)
    _check_benchmarks_accept(loaded, tmp_path)


def _check_benchmarks_accept(encoder: Encoder, tmp_path) -> None:
    crows = tmp_path / "crows.csv"
    with open(crows, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["sent_more", "sent_less", "stereo_antistereo", "bias_type"])
        writer.writerow(["She was always nagging.", "He was always nagging.", "stereo", "gender"])
        writer.writerow(["Men know how to drive.", "Women know how to drive.", "antistereo", "gender"])
    result = crows_pairs(encoder, crows, progress=False)
    assert 0 <= result.overall["stereotype_score"] <= 100 and len(result.pairs) == 2
    items = [{
        "id": "c1", "target": "nurse", "bias_type": "gender", "context": "The nurse was very BLANK.",
        "sentences": [{"id": f"s{k}", "sentence": f"The nurse was very {w}.", "gold_label": label}
                      for k, (w, label) in enumerate(zip(["caring", "cold", "spoon"],
                                                         ["stereotype", "anti-stereotype", "unrelated"]))],
    }]
    path = tmp_path / "dev.json"
    path.write_text(json.dumps({"version": "t", "data": {"intrasentence": items}}))
    result = stereoset(encoder, path, n_resamples=0, progress=False)
    assert 0 <= result.overall["lm_score"] <= 100


def test_resume_equals_an_uninterrupted_run(tmp_path):
    settings = dict(steps=8, checkpoint_every=3)
    full = _fast(**settings).fit(_encoder(), PLANTED, progress=False)

    class Interrupt(Exception):
        pass

    def stop(step, values):
        if step == 5:
            raise Interrupt

    with pytest.raises(Interrupt):
        _fast(**settings).fit(_encoder(), PLANTED, checkpoint_dir=tmp_path, callback=stop, progress=False)
    resumed = _fast(**settings).fit(_encoder(), PLANTED, checkpoint_dir=tmp_path, resume=True, progress=False)
    assert resumed.history_.resumed_from == 3
    expected = _weights(full.model_)
    for key, value in _weights(resumed.model_).items():
        assert torch.equal(value, expected[key]), key
    assert resumed.history_.losses == full.history_.losses
    # dropout is part of the computation: without it the same seed trains other weights
    plain = _fast(**settings, hidden_dropout=0.0, attention_dropout=0.0).fit(_encoder(), PLANTED, progress=False)
    assert plain.history_.losses != full.history_.losses


def test_build_debiased_and_cli(tmp_path, capsys):
    model, tokenizer = build_tiny_model("mlm", hidden_dropout_prob=0.1, attention_probs_dropout_prob=0.1)
    base = tmp_path / "base"
    model.save_pretrained(base)
    tokenizer.save_pretrained(base)
    corpus = tmp_path / "corpus.txt"
    corpus.write_text("\n".join(PLANTED) + "\n")
    built = build_debiased("dropout", load_encoder(base, device="cpu"), PLANTED, tmp_path / "lib",
                           options={"steps": 2, "batch_size": 4}, progress=False)
    assert read_debias_record(built.path)["method"] == "dropout"
    code = main(["debias", "dropout", "--model", str(base), "--corpus", str(corpus), "--steps", "2", "--batch-size", "4",
                 "--hidden-dropout", "0.3", "--no-progress", "--out", str(tmp_path / "cli")])
    assert code == 0, capsys.readouterr().err
    assert "Dropout" in capsys.readouterr().out
    record = read_debias_record(tmp_path / "cli")
    assert record["dropout"]["training"] == {"hidden": 0.3, "attention": 0.15}
    assert not (tmp_path / "cli.checkpoints").exists()
    assert main(["debias", "dropout", "--model", str(base), "--attention-dropout", "1.5", "--out", str(tmp_path / "x")]) == 2
    assert "--attention-dropout" in capsys.readouterr().err
