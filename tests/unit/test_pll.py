"""The batched masked-token engine against masked copies scored one by one with raw transformers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from probekit.errors import MissingMLMHeadError
from probekit.intrinsic import masked_token_log_probs, pseudo_log_likelihood

SENTENCES = [
    "The nurse said she would be late.",
    "He was a doctor at the hospital.",
    "She is kind.",
    "My neighbour fixed the car yesterday afternoon.",
    "They are here.",
]


def _by_hand(model, ids, positions, mask_id, targets=None):
    out = []
    for k, position in enumerate(positions):
        masked = torch.tensor([ids])
        masked[0, position] = mask_id
        with torch.no_grad():
            logits = model(input_ids=masked).logits[0, position]
        target = ids[position] if targets is None else targets[k]
        out.append(torch.log_softmax(logits.double(), -1)[target].item())
    return np.asarray(out)


@pytest.mark.parametrize("batch_tokens", [16, 64, 4096])
def test_matches_one_copy_at_a_time(tiny_mlm_encoder, batch_tokens):
    tokenizer, model = tiny_mlm_encoder.tokenizer, tiny_mlm_encoder.mlm_model
    ids = [tokenizer(s)["input_ids"] for s in SENTENCES]
    positions = [list(range(len(i))) if k % 2 else list(range(1, len(i) - 1, 2)) for k, i in enumerate(ids)]
    got = masked_token_log_probs(tiny_mlm_encoder, ids, positions, batch_tokens=batch_tokens)
    for seq, pos, values in zip(ids, positions, got):
        np.testing.assert_allclose(values, _by_hand(model, seq, pos, tokenizer.mask_token_id), atol=1e-5, rtol=0)


def test_explicit_targets_and_empty_positions(tiny_mlm_encoder):
    tokenizer, model = tiny_mlm_encoder.tokenizer, tiny_mlm_encoder.mlm_model
    ids = tokenizer("She is a [MASK] nurse.")["input_ids"]
    where = ids.index(tokenizer.mask_token_id)
    wanted = tokenizer.convert_tokens_to_ids(["good", "bad"])
    got = masked_token_log_probs(tiny_mlm_encoder, [ids, ids, ids], [[where], [where], []], targets=[[wanted[0]], [wanted[1]], []])
    assert got[2].size == 0
    for k in range(2):
        np.testing.assert_allclose(got[k], _by_hand(model, ids, [where], tokenizer.mask_token_id, [wanted[k]]), atol=1e-5)


def test_pseudo_log_likelihood_sums_non_special_tokens(tiny_mlm_encoder):
    tokenizer, model = tiny_mlm_encoder.tokenizer, tiny_mlm_encoder.mlm_model
    got = pseudo_log_likelihood(tiny_mlm_encoder, SENTENCES[:3])
    for sentence, value in zip(SENTENCES[:3], got):
        ids = tokenizer(sentence)["input_ids"]
        assert value == pytest.approx(_by_hand(model, ids, range(1, len(ids) - 1), tokenizer.mask_token_id).sum(), abs=1e-4)


def test_headless_encoder_raises(tiny_encoder):
    with pytest.raises(MissingMLMHeadError, match="masked-LM head"):
        masked_token_log_probs(tiny_encoder, [[101, 102]], [[0]])
