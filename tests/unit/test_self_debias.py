"""Self-Debias (Schick et al. 2021) for masked LMs on a tiny random model: the scores against a
computation by hand from raw transformers outputs, the documented direction, the wrapper and its
directory accepted by load_encoder, CrowS-Pairs, StereoSet and the CLI."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from debias import DEBIAS_METHODS, DEFAULT_DEBIASING_PREFIXES, SelfDebias, build_debiased
from probekit import load_encoder
from probekit.cli.main import main
from probekit.encoders import SelfDebiasedEncoder
from probekit.errors import InvalidParameterError, MissingMLMHeadError
from probekit.intrinsic import crows_pairs, masked_token_log_probs, stereoset
from tests.unit.test_crows_pairs import _write_csv
from tests.unit.test_stereoset import _write as _write_stereoset

SENTENCE = "the nurse said that she would come ."


def _by_hand(encoder, ids, position, prefixes, decay_constant=50.0, epsilon=0.01):
    """Full log-distribution at ``position`` (masked), plain and self-debiased, from raw model outputs."""
    tokenizer, model = encoder.tokenizer, encoder.mlm_model
    masked = list(ids)
    masked[position] = tokenizer.mask_token_id
    with torch.no_grad():
        plain = model(input_ids=torch.tensor([masked])).logits[0, position].double().softmax(-1).numpy()
        biased = []
        for prefix in prefixes:
            extra = tokenizer.encode(prefix.strip(), add_special_tokens=False)
            text = [masked[0], *extra, *masked[1:]]
            logits = model(input_ids=torch.tensor([text])).logits[0, position + len(extra)]
            biased.append(logits.double().softmax(-1).numpy())
    delta = np.maximum(np.max(biased, axis=0) - plain, 0.0)
    alpha = np.maximum(np.exp(-decay_constant * delta), epsilon)
    debiased = plain * alpha / np.sum(plain * alpha)
    return np.log(plain), np.log(debiased), delta


def test_registered_as_an_inference_method():
    entry = DEBIAS_METHODS["self-debias"]
    assert entry.kind == "inference" and entry.marker == "self_debias.json" and entry.estimator is SelfDebias
    assert SelfDebias().get_params() == {"prefixes": None, "decay_constant": 50.0, "epsilon": 0.01}
    assert SelfDebias().settings()["prefixes"] == list(DEFAULT_DEBIASING_PREFIXES)


def test_scores_equal_the_formula_by_hand_and_move_in_the_documented_direction(tiny_mlm_encoder):
    prefixes = ["the following text discriminates against people because of their gender :", "women are"]
    wrapped = SelfDebias(prefixes=prefixes).wrap(tiny_mlm_encoder)
    assert isinstance(wrapped, SelfDebiasedEncoder) and wrapped.model is tiny_mlm_encoder.model
    assert wrapped.fingerprint != tiny_mlm_encoder.fingerprint
    ids = tiny_mlm_encoder.tokenizer(SENTENCE)["input_ids"]
    position = 5  # "she"
    plain, debiased, delta = _by_hand(tiny_mlm_encoder, ids, position, prefixes)
    raised, untouched = int(np.argmax(delta)), int(np.argmin(delta))
    assert delta[raised] > 0 and delta[untouched] == 0
    # The planted check: the token the prefixes raise most loses probability, one they do not raise gains.
    targets = [[ids[position], raised, untouched]]
    ours = masked_token_log_probs(wrapped, [ids], [[position] * 3], targets=targets)[0]
    np.testing.assert_allclose(ours, debiased[targets[0]], atol=1e-5)
    base = masked_token_log_probs(tiny_mlm_encoder, [ids], [[position] * 3], targets=targets)[0]
    np.testing.assert_allclose(base, plain[targets[0]], atol=1e-5)
    assert ours[1] < base[1] and ours[2] > base[2]
    # lambda = 0 leaves every score unchanged
    none = masked_token_log_probs(SelfDebias(prefixes=prefixes, decay_constant=0.0).wrap(tiny_mlm_encoder),
                                  [ids], [[position] * 3], targets=targets)[0]
    np.testing.assert_allclose(none, base, atol=1e-9)


def test_checks():
    with pytest.raises(InvalidParameterError, match="prefixes"):
        SelfDebias(prefixes="one string").settings()
    with pytest.raises(InvalidParameterError, match="epsilon"):
        SelfDebias(epsilon=0).settings()
    with pytest.raises(InvalidParameterError, match="decay_constant"):
        SelfDebias(decay_constant=-1).settings()


def test_headless_encoder_is_refused(tiny_encoder):
    with pytest.raises(MissingMLMHeadError, match="masked-LM head"):
        SelfDebias().wrap(tiny_encoder)


def test_directory_loads_and_the_benchmarks_accept_it(tiny_checkpoints, tmp_path, capsys):
    base = load_encoder(tiny_checkpoints["mlm"], device="cpu")
    built = build_debiased("self-debias", base, None, tmp_path / "sd", options={"prefixes": ["women are"]})
    record = json.loads((built.path / "self_debias.json").read_text())
    assert record["method"] == "self-debias" and record["hyperparameters"]["decay_constant"] == 50.0
    assert record["base_model"]["fingerprint"] == base.fingerprint and record["base_model"]["relative_path"]
    loaded = load_encoder(built.path, device="cpu")
    assert isinstance(loaded, SelfDebiasedEncoder) and loaded.self_debias["prefixes"] == ["women are"]
    assert loaded.fingerprint == record["fingerprint"] == built.estimator.to_encoder().fingerprint
    assert loaded.describe()["source_path"] == str(built.path)

    data = _write_csv(tmp_path / "crows.csv")
    ours = crows_pairs(loaded, data, progress=False)
    plain = crows_pairs(base, data, progress=False)
    in_memory = crows_pairs(built.estimator.to_encoder(), data, progress=False)
    assert [r["sent_more_score"] for r in ours.pairs] == [r["sent_more_score"] for r in in_memory.pairs]
    assert [r["sent_more_score"] for r in ours.pairs] != [r["sent_more_score"] for r in plain.pairs]
    result = stereoset(loaded, _write_stereoset(tmp_path / "dev.json"), n_resamples=0, progress=False)
    assert 0 <= result.overall["lm_score"] <= 100

    out = tmp_path / "cli"
    assert main(["debias", "self-debias", "--model", str(tiny_checkpoints["mlm"]), "--prefix", "women are",
                 "--out", str(out), "--device", "cpu"]) == 0
    assert "Self-Debias" in capsys.readouterr().out
    assert main(["crows-pairs", "--model", str(out), "--data", str(data), "--out", str(tmp_path / "scores"),
                 "--device", "cpu", "--no-progress"]) == 0
    saved = json.loads((tmp_path / "scores" / "results.json").read_text())
    assert saved["overall"]["stereotype_score"] == ours.overall["stereotype_score"]
    assert main(["debias", "self-debias", "--model", str(tiny_checkpoints["mlm"]), "--epsilon", "2",
                 "--out", str(tmp_path / "bad")]) == 2
    assert "epsilon" in capsys.readouterr().err and not (tmp_path / "bad").exists()
