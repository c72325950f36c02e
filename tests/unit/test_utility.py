"""Pseudo-perplexity (Salazar et al. 2020) against a computation by hand from raw transformers outputs."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from probekit.cli.main import main
from probekit.errors import MissingMLMHeadError
from probekit.intrinsic import UTILITY_WORDS, pseudo_perplexity, utility_corpus
from probekit.text import template_corpus

SENTENCES = ["The traveller missed the last train.", "Otters swim in the river.", "It rained."]


def _pppl_by_hand(model, tokenizer, sentences):
    """exp(-(1/N) sum log p(w_t | w_\\t)), each non-special token masked by hand, one copy per pass."""
    total, n = 0.0, 0
    per_sentence = []
    for sentence in sentences:
        ids = tokenizer(sentence)["input_ids"]
        pll = 0.0
        for position in range(1, len(ids) - 1):  # [CLS] ... [SEP]
            masked = torch.tensor([ids])
            masked[0, position] = tokenizer.mask_token_id
            with torch.no_grad():
                logits = model(input_ids=masked).logits[0, position].double()
            pll += torch.log_softmax(logits, -1)[ids[position]].item()
        per_sentence.append(pll)
        total += pll
        n += len(ids) - 2
    return math.exp(-total / n), per_sentence, n


def test_equals_hand_computation(tiny_mlm_encoder):
    result = pseudo_perplexity(tiny_mlm_encoder, SENTENCES, batch_tokens=64)
    expected, plls, n = _pppl_by_hand(tiny_mlm_encoder.mlm_model, tiny_mlm_encoder.tokenizer, SENTENCES)
    assert result.overall["pppl"] == pytest.approx(expected, rel=1e-5, abs=1e-5)
    assert result.overall["n_tokens"] == n and result.overall["n_sentences"] == 3
    np.testing.assert_allclose([r["pll"] for r in result.sentences], plls, atol=1e-5, rtol=0)
    assert result.provenance["model"]["name_or_path"] == "tiny-random-mlm"


def test_text_file_and_save(tiny_mlm_encoder, tmp_path):
    corpus = tmp_path / "held_out.txt"
    corpus.write_text("\n".join(SENTENCES) + "\n", encoding="utf-8")
    from_file = pseudo_perplexity(tiny_mlm_encoder, corpus)
    assert from_file.overall["pppl"] == pytest.approx(pseudo_perplexity(tiny_mlm_encoder, SENTENCES).overall["pppl"], rel=1e-9)
    paths = from_file.save(tmp_path / "out")
    saved = json.loads(paths["results"].read_text())
    assert saved["benchmark"] == "pppl" and saved["overall"]["pppl"] == pytest.approx(from_file.overall["pppl"])
    assert paths["sentences"].read_text().splitlines()[0].startswith("sentence,n_tokens,pll,pppl")
    assert "Pseudo-perplexity" in paths["summary"].read_text()


def test_default_corpus_is_held_out_and_fixed():
    corpus = utility_corpus()
    assert list(corpus) == list(utility_corpus()) and len(corpus) == 4 * len(UTILITY_WORDS)
    assert not set(corpus) & set(template_corpus())  # no sentence of the default debiasing/intrinsic corpus


def test_headless_refused(tiny_encoder):
    with pytest.raises(MissingMLMHeadError, match="pseudo-perplexity needs a masked-LM head"):
        pseudo_perplexity(tiny_encoder, SENTENCES)


def test_cli(tiny_checkpoints, tmp_path, capsys):
    corpus = tmp_path / "c.txt"
    corpus.write_text("\n".join(SENTENCES), encoding="utf-8")
    out = tmp_path / "o"
    assert main(["pppl", "--model", str(tiny_checkpoints["mlm"]), "--corpus", str(corpus), "--out", str(out),
                 "--device", "cpu", "--no-progress"]) == 0
    saved = json.loads((out / "results.json").read_text())
    assert saved["overall"]["n_sentences"] == 3 and (out / "sentences.csv").is_file() and (out / "summary.md").is_file()
    assert saved["provenance"]["parameters"]["corpus"] == str(corpus)
    capsys.readouterr()
    code = main(["pppl", "--model", str(tiny_checkpoints["base"]), "--out", str(tmp_path / "h"), "--device", "cpu",
                 "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("probekit pppl: error:") and "masked-LM head" in err[0]
