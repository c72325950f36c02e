"""Tiny random masked LMs of every encoder architecture, with tokenizers built offline.

- WordPiece: the embedded MiniLM tokenizer (BERT, DistilBERT, ELECTRA).
- Byte-level BPE (RoBERTa's scheme: ``Ġ`` word starts, no prefix space): trained here with the
  ``tokenizers`` library (RoBERTa, ModernBERT).
- SentencePiece-like Unigram with ``▁`` word starts: trained here (ALBERT, DeBERTa-v2/v3, XLM-R).

Small vocabularies make ordinary words split into several pieces. Nothing is downloaded.
"""

from __future__ import annotations

import functools

import torch

from tests.conftest import embedded_tokenizer

ARCHITECTURES = ("bert", "roberta", "albert", "distilbert", "deberta-v2", "electra", "xlm-roberta", "modernbert")

CORPUS = [
    "The man is caring and the woman is strong.",
    "My mother was late for the meeting because of the traffic.",
    "Everyone knew that the father could not fix the broken car.",
    "The girl asked the manager for a raise after ten years of work.",
    "A nurse and a doctor talked about the patient in the hospital.",
    "The engineer said that she would finish the bridge next year.",
    "His brother cooks dinner for the whole family on sunday evenings.",
    "People from that country are hardworking and kind to strangers.",
    "The boy cried for hours in the waiting room after the accident.",
    "Her sister won the chess tournament this year, to our surprise.",
] * 4
CORPUS = CORPUS + ["so " + sentence for sentence in CORPUS[:10]] * 2  # capitalized words after a space too


@functools.lru_cache(maxsize=None)
def bpe_tokenizer():
    """Byte-level BPE as RoBERTa builds it (``<s> ... </s>``, ``<mask>`` absorbing the space before it)."""
    from tokenizers import AddedToken, Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["<s>", "<pad>", "</s>", "<unk>"]
    tok = Tokenizer(models.BPE(unk_token=None))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=420, special_tokens=specials, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                  show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    tok.add_special_tokens([AddedToken("<mask>", lstrip=True, special=True)])  # as RoBERTa: absorbs the space before it
    tok.post_processor = processors.RobertaProcessing(("</s>", 2), ("<s>", 0), trim_offsets=True, add_prefix_space=False)
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, bos_token="<s>", eos_token="</s>", cls_token="<s>", sep_token="</s>", pad_token="<pad>",
        unk_token="<unk>", mask_token="<mask>", model_max_length=512,
    )


@functools.lru_cache(maxsize=None)
def unigram_tokenizer():
    """A SentencePiece-like Unigram tokenizer (``▁`` word starts), ``[CLS] ... [SEP]`` as ALBERT and DeBERTa."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tok = Tokenizer(models.Unigram())
    tok.pre_tokenizer = pre_tokenizers.Metaspace(replacement="▁", prepend_scheme="always")
    tok.decoder = decoders.Metaspace(replacement="▁", prepend_scheme="always")
    trainer = trainers.UnigramTrainer(vocab_size=160, special_tokens=specials, unk_token="[UNK]", show_progress=False)
    tok.train_from_iterator(CORPUS, trainer)
    tok.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]", pair="[CLS] $A [SEP] $B:1 [SEP]:1", special_tokens=[("[CLS]", 2), ("[SEP]", 3)]
    )
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, cls_token="[CLS]", sep_token="[SEP]", pad_token="[PAD]", unk_token="[UNK]",
        mask_token="[MASK]", model_max_length=512,
    )


def tokenizer_for(arch: str):
    if arch in ("bert", "distilbert", "electra"):
        return embedded_tokenizer()
    if arch in ("roberta", "modernbert"):
        return bpe_tokenizer()
    return unigram_tokenizer()


def _config(arch: str, tokenizer, hidden: int, layers: int):
    import transformers as tf

    vocab = len(tokenizer)
    heads = max(1, hidden // 16)
    common = dict(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                  intermediate_size=2 * hidden, max_position_embeddings=128, hidden_dropout_prob=0.0,
                  attention_probs_dropout_prob=0.0, pad_token_id=tokenizer.pad_token_id)
    if arch == "bert":
        return tf.BertConfig(**common), tf.BertForMaskedLM
    if arch == "roberta":
        return tf.RobertaConfig(**{**common, "max_position_embeddings": 130}, type_vocab_size=1, bos_token_id=0,
                                eos_token_id=2), tf.RobertaForMaskedLM
    if arch == "xlm-roberta":
        return tf.XLMRobertaConfig(**{**common, "max_position_embeddings": 130}, type_vocab_size=1), tf.XLMRobertaForMaskedLM
    if arch == "electra":
        return tf.ElectraConfig(**common, embedding_size=hidden // 2), tf.ElectraForMaskedLM
    if arch == "albert":
        return tf.AlbertConfig(**common, embedding_size=hidden // 2, classifier_dropout_prob=0.0), tf.AlbertForMaskedLM
    if arch == "deberta-v2":
        return tf.DebertaV2Config(**common, relative_attention=True, position_buckets=16, pos_att_type=["p2c", "c2p"],
                                  position_biased_input=False, type_vocab_size=0, norm_rel_ebd="layer_norm",
                                  share_att_key=True), tf.DebertaV2ForMaskedLM
    if arch == "distilbert":
        return tf.DistilBertConfig(vocab_size=vocab, dim=hidden, n_layers=layers, n_heads=heads, hidden_dim=2 * hidden,
                                   max_position_embeddings=128, dropout=0.0, attention_dropout=0.0,
                                   pad_token_id=tokenizer.pad_token_id), tf.DistilBertForMaskedLM
    if arch == "modernbert":
        return tf.ModernBertConfig(vocab_size=vocab, hidden_size=hidden, num_hidden_layers=layers, num_attention_heads=heads,
                                   intermediate_size=2 * hidden, max_position_embeddings=128, global_attn_every_n_layers=1,
                                   pad_token_id=tokenizer.pad_token_id, cls_token_id=tokenizer.cls_token_id,
                                   sep_token_id=tokenizer.sep_token_id, bos_token_id=tokenizer.cls_token_id,
                                   eos_token_id=tokenizer.sep_token_id, attention_dropout=0.0, mlp_dropout=0.0,
                                   embedding_dropout=0.0, attn_implementation="sdpa"), tf.ModernBertForMaskedLM
    raise ValueError(arch)


def build_masked_lm(arch: str, *, hidden: int = 32, layers: int = 2, seed: int = 0):
    """(model in eval mode, tokenizer): a random masked LM of ``arch``; the global RNG is left untouched."""
    tokenizer = tokenizer_for(arch)
    config, cls = _config(arch, tokenizer, hidden, layers)
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        model = cls(config)
        for name, parameter in model.named_parameters():  # the default init makes tiny models near-uniform
            if parameter.dim() > 1 and "embeddings" not in name:
                torch.nn.init.normal_(parameter, std=0.2)
    return model.eval(), tokenizer


def encoder_for(arch: str, **kwargs):
    from probekit.encoders import Encoder

    model, tokenizer = build_masked_lm(arch, **kwargs)
    return Encoder.from_model(model, tokenizer, name=f"tiny-{arch}", device="cpu")
