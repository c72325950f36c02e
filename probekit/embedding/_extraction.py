"""The extraction engine: contextual word embeddings and sentence embeddings.

Every embedding in probekit comes out of :func:`_encode_units`. Texts are tokenized once with
character offsets; each word occurrence is located through the tokenizer's offset mapping (never by
matching token strings) and pooled over its wordpieces. Sequences are sorted by length and packed
into batches under a token budget with dynamic padding, so almost no compute is spent on padding.
Work is streamed in chunks of sentences: memory holds one chunk's tokens plus the embeddings kept.
"""

from __future__ import annotations

import hashlib
import logging
import os
import warnings
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np
import torch

from probekit.embedding._cache import EmbeddingCache, cache_key
from probekit.embedding._last_layer import _last_layer_rows, _last_layer_shortcut, _without_last_layer
from probekit.embedding._word_embeddings import WordEmbeddings
from probekit.encoders import Encoder, is_blank_piece
from probekit.errors import InvalidParameterError, MissingSentencesError
from probekit.text import WordMatcher
from probekit.utils import check_choice, check_layer_index

logger = logging.getLogger(__name__)

WORD_POOLINGS = ("first", "mean", "last")
SENTENCE_POOLINGS = ("mean", "cls", "pooler", "mean-with-special")
ON_MISSING = ("warn", "error", "ignore")
# Bump when a change alters the numbers the engine produces, so old cache entries are not reused.
ENGINE_VERSION = 3  # 3: bare word-start marker pieces no longer pooled into a word
_CHUNK_SENTENCES = 4096


def default_batch_tokens(device: torch.device) -> int:
    """Token budget per batch: large enough for efficient matmuls, small enough for memory."""
    return 16384 if device.type != "cpu" else 4096


@dataclass
class _Unit:
    """One sequence to encode: token ids with special tokens, and the items pooled from it."""

    ids: np.ndarray
    item_ids: list[int]
    positions: list[np.ndarray]


# --------------------------------------------------------------------------------------------- checks


def normalize_layers(layer: int | Sequence[int], num_layers: int) -> tuple[tuple[int, ...], bool]:
    """Map user layer indices (negative allowed, -1 = last) to hidden-state indices 0..num_layers."""
    many = not isinstance(layer, (int, np.integer))
    requested = list(layer) if many else [layer]
    if many and not requested:
        raise InvalidParameterError("layer", layer, f"an int or a non-empty list of ints in [{-(num_layers + 1)}, {num_layers}]")
    return tuple(check_layer_index(value, num_layers, "layer", shown=layer) for value in requested), many




def _check_sentences(sentences: Sequence[str]) -> list[str]:
    if isinstance(sentences, str):
        raise InvalidParameterError("sentences", sentences, "a sequence of strings, not one string")
    listed = list(sentences)
    for index, sentence in enumerate(listed):
        if not isinstance(sentence, str):
            raise InvalidParameterError(f"sentences[{index}]", sentence, "a string")
    return listed


def _text_digest(texts: Sequence[str]) -> str:
    digest = hashlib.sha256()
    for text in texts:
        digest.update(text.encode("utf-8"))
        digest.update(b"\x00")
    return digest.hexdigest()


def extraction_meta(encoder: Encoder, sentences: Sequence[str], **extra: Any) -> dict[str, Any]:
    """What extracted numbers depend on: provenance of a result and part of its cache key."""
    return {
        "model_fingerprint": encoder.fingerprint,
        "text_digest": _text_digest(sentences),
        **extra,
        "dtype": str(encoder.dtype).replace("torch.", ""),
        "engine_version": ENGINE_VERSION,
        "max_length": encoder.max_length,
    }


# ------------------------------------------------------------------------------------ tokenization


def _special_layout(tokenizer: Any) -> tuple[np.ndarray, np.ndarray]:
    """Special token ids the tokenizer puts before and after a single sequence."""
    encoded = tokenizer("a", add_special_tokens=True, return_special_tokens_mask=True)
    ids = np.asarray(encoded["input_ids"])
    mask = np.asarray(encoded["special_tokens_mask"], dtype=bool)
    content = np.flatnonzero(~mask)
    first, last = (content[0], content[-1]) if len(content) else (len(ids), len(ids) - 1)
    return ids[:first], ids[last + 1 :]


def _tokenize(tokenizer: Any, texts: Sequence[str]) -> tuple[list[list[int]], list[list[tuple[int, int]]]]:
    encoded = tokenizer(
        list(texts),
        add_special_tokens=False,
        return_offsets_mapping=True,
        return_attention_mask=False,
        return_token_type_ids=False,
        truncation=False,
        verbose=False,
    )
    return encoded["input_ids"], encoded["offset_mapping"]


def _pieces_of_span(offsets: np.ndarray, start: int, end: int) -> np.ndarray:
    """Indices of the tokens whose character range overlaps ``[start, end)``."""
    if len(offsets) == 0:
        return np.zeros(0, dtype=np.int64)
    token_start, token_end = offsets[:, 0], offsets[:, 1]
    return np.flatnonzero((token_start < end) & (token_end > start) & (token_end > token_start))


def _window(n_content: int, pieces: np.ndarray, width: int) -> tuple[int, int]:
    """A window of ``width`` content tokens centred on ``pieces`` (kept inside the sequence)."""
    centre = (int(pieces[0]) + int(pieces[-1])) // 2
    start = min(max(centre - width // 2, 0), max(n_content - width, 0))
    return start, min(start + width, n_content)


# ------------------------------------------------------------------------------------------ engine


def _batches(units: list[_Unit], batch_tokens: int) -> Iterator[list[_Unit]]:
    """Batches of units of one exact length, each within ``batch_tokens`` tokens.

    Equal lengths mean no padding at all and no attention mask, which lets the attention kernels
    take their fastest path; a length with few units gives a small batch, which costs less than
    padding on CPU, where throughput barely depends on batch size beyond a few hundred tokens.
    """
    by_length: dict[int, list[_Unit]] = {}
    for unit in units:
        by_length.setdefault(len(unit.ids), []).append(unit)
    for length in sorted(by_length):
        group = by_length[length]
        per_batch = max(1, batch_tokens // length)
        for start in range(0, len(group), per_batch):
            yield group[start : start + per_batch]


def _encode_units(
    encoder: Encoder,
    units: list[_Unit],
    layers: tuple[int, ...],
    pooling: str,
    out: np.ndarray,
    *,
    batch_tokens: int,
    progress: Any = None,
) -> None:
    """Run the model over ``units`` and write each item's pooled vector into ``out[item_id]``.

    ``pooling`` is ``"first"``, ``"mean"`` or ``"last"`` over an item's positions, or ``"pooler"``
    for the model's pooler output. ``out`` has shape (n_items, hidden) for one layer or
    (n_items, n_layers, hidden) for several.
    """
    model = encoder.model
    last_layer = encoder.num_layers
    need_all_states = layers != (last_layer,)
    # An output projection (applied by a hook inside encoder.inference()) must see the real last
    # layer of every token, so the shortcut is off for projected encoders.
    projected = getattr(encoder, "output_projection", None) is not None
    shortcut = None if (need_all_states or pooling == "pooler" or projected) else _last_layer_shortcut(model)
    for batch in _batches(units, batch_tokens):
        width = len(batch[0].ids)
        input_ids = torch.from_numpy(np.stack([unit.ids for unit in batch])).to(encoder.device)
        item_ids = np.asarray([i for unit in batch for i in unit.item_ids], dtype=np.int64)
        if pooling == "pooler":
            with encoder.inference():
                output = model(input_ids=input_ids)
            out[item_ids] = output.pooler_output.float().cpu().numpy().reshape((len(item_ids),) + out.shape[1:])
            continue
        flat_index, segment = _gather_plan(batch, width, pooling)
        segment_t = torch.from_numpy(segment).to(encoder.device)
        counts = torch.bincount(segment_t, minlength=len(item_ids)).clamp_min(1).unsqueeze(1)
        with encoder.inference():
            # Rows of a batch have one length: no padding, so no attention mask is needed.
            if shortcut is not None:
                needed, inverse = np.unique(flat_index, return_inverse=True)
                with _without_last_layer(model):
                    below = model(input_ids=input_ids).last_hidden_state
                rows = _last_layer_rows(shortcut, below, torch.from_numpy(needed).to(encoder.device))
                gathered = [rows.float().index_select(0, torch.from_numpy(inverse.reshape(-1)).to(encoder.device))]
            else:
                output = model(input_ids=input_ids, output_hidden_states=need_all_states)
                states = [output.hidden_states[k] for k in layers] if need_all_states else [output.last_hidden_state]
                flat_index_t = torch.from_numpy(flat_index).to(encoder.device)
                gathered = [state.reshape(-1, state.shape[-1]).float().index_select(0, flat_index_t) for state in states]
        per_layer = []
        for rows in gathered:
            summed = torch.zeros(len(item_ids), rows.shape[1], dtype=torch.float32, device=rows.device)
            summed.index_add_(0, segment_t, rows)
            per_layer.append(summed / counts)
        stacked = per_layer[0] if len(per_layer) == 1 else torch.stack(per_layer, dim=1)
        out[item_ids] = stacked.cpu().numpy().reshape((len(item_ids),) + out.shape[1:])
        if progress is not None:
            progress.update(int(sum(len(u.ids) for u in batch)))


def _gather_plan(batch: list[_Unit], width: int, pooling: str) -> tuple[np.ndarray, np.ndarray]:
    """Flat row indices into the (batch x width) hidden states, and the item each row pools into."""
    flat, segment = [], []
    item = 0
    for row, unit in enumerate(batch):
        for positions in unit.positions:
            chosen = positions if pooling == "mean" else positions[:1] if pooling == "first" else positions[-1:]
            flat.append(row * width + chosen)
            segment.append(np.full(len(chosen), item, dtype=np.int64))
            item += 1
    return np.concatenate(flat).astype(np.int64), np.concatenate(segment)


def _progress_bar(enabled: bool, total: int, desc: str) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=desc, unit="tok", leave=False)


# ------------------------------------------------------------------------------------ public API


def embed_words(
    encoder: Encoder,
    sentences: Sequence[str],
    words: Sequence[str],
    *,
    layer: int | Sequence[int] = -1,
    pooling: str = "mean",
    case_sensitive: bool | None = None,
    on_missing: str = "warn",
    batch_tokens: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> WordEmbeddings:
    r"""Contextual embeddings of every occurrence of ``words`` in ``sentences``.

    Each whole-word occurrence (see :class:`probekit.text._wordmatch.WordMatcher`) is located through
    the tokenizer's offset mapping and its wordpieces are pooled from the chosen hidden layer(s):

    .. math:: e(w, s) = \operatorname{pool}_{t \in \text{pieces}(w)} h^{(\ell)}_t(s)

    with pool = first, mean or last piece. A word used twice in a sentence gives two rows (Tokpo
    et al. 2023, §3). A sentence longer than the model's limit is not dropped: each occurrence in
    it is encoded in a window of the longest allowed length centred on the word.

    Parameters
    ----------
    encoder : Encoder
        From :func:`probekit.load_encoder`.
    sentences : sequence of str
    words : sequence of str
        Target words; multi-word terms are allowed.
    layer : int or sequence of int, default -1
        Hidden-state index: 0 is the embedding output, -1 (or ``num_layers``) the last layer.
        A list gives ``embeddings`` of shape (n, len(layer), hidden).
    pooling : {"mean", "first", "last"}
        How wordpieces of one occurrence are combined; ``n_pieces`` records how many there were.
    case_sensitive : bool, optional
        Default: case-insensitive matching for lowercasing tokenizers, exact case otherwise.
    on_missing : {"warn", "error", "ignore"}
        What to do about words with no occurrence (always listed in ``missing``).
    batch_tokens : int, optional
        Padded tokens per forward pass; default 4096 on CPU, 16384 on GPU.
    cache_dir : path, optional
        Reuse and store results there, keyed by model fingerprint, text, words, layers, pooling.
    progress : bool
        Show a tqdm progress bar.

    Returns
    -------
    WordEmbeddings
    """
    sentences = _check_sentences(sentences)
    words = _check_words(words)
    check_choice(pooling, "pooling", WORD_POOLINGS)
    check_choice(on_missing, "on_missing", ON_MISSING)
    layers, many_layers = normalize_layers(layer, encoder.num_layers)
    if case_sensitive is None:
        case_sensitive = not encoder.do_lower_case
    batch_tokens = default_batch_tokens(encoder.device) if batch_tokens is None else batch_tokens
    if batch_tokens < encoder.max_length:
        raise InvalidParameterError("batch_tokens", batch_tokens, f"an int >= the model's max length {encoder.max_length}")

    occ_sentence, occ_word, occ_span = _find_occurrences(WordMatcher(words, case_sensitive=case_sensitive), sentences)
    found = set(occ_word)
    missing = tuple(w for w in words if w not in found)
    _report_missing(missing, len(words), on_missing)

    meta = extraction_meta(encoder, sentences, words_digest=_text_digest(words), case_sensitive=case_sensitive)
    cache = EmbeddingCache(cache_dir) if cache_dir is not None else None
    key = cache_key(kind="words", layers=layers, pooling=pooling, **meta)
    if cache is not None and (hit := cache.load(key)) is not None:
        return _word_embeddings(hit[0], many_layers, layers=layers, pooling=pooling, missing=missing, meta=meta)

    occ_span_arr = np.asarray(occ_span, dtype=np.int64).reshape(-1, 2)
    out, n_pieces, keep = _embed_occurrences(
        encoder, sentences, occ_sentence, occ_word, occ_span_arr, layers, pooling, batch_tokens, progress
    )
    if not keep.all():
        kept_words = set(np.asarray(occ_word)[keep].tolist())
        lost = tuple(w for w in words if w not in missing and w not in kept_words)
        missing = missing + lost
    result_arrays = {
        "embeddings": out[keep],
        "words": np.asarray(occ_word, dtype=str)[keep] if len(occ_word) else np.zeros(0, dtype="<U1"),
        "sentence_ids": np.asarray(occ_sentence, dtype=np.int64)[keep],
        "spans": occ_span_arr[keep],
        "n_pieces": n_pieces[keep],
    }
    if cache is not None:
        cache.save(key, result_arrays, meta)
    return _word_embeddings(result_arrays, many_layers, layers=layers, pooling=pooling, missing=missing, meta=meta)


def _check_words(words: Sequence[str]) -> list[str]:
    """The distinct target words in order; raises on an empty list or a non-string/blank word."""
    if isinstance(words, str) or not list(words):
        raise InvalidParameterError("words", words, "a non-empty sequence of words")
    words = list(dict.fromkeys(words))
    for w in words:
        if not isinstance(w, str) or not w.strip():
            raise InvalidParameterError("words", w, "non-empty strings")
    return words


def _find_occurrences(
    matcher: WordMatcher, sentences: Sequence[str],
) -> tuple[list[int], list[str], list[tuple[int, int]]]:
    """(sentence index, word, character span) of every whole-word occurrence, in text order."""
    occ_sentence: list[int] = []
    occ_word: list[str] = []
    occ_span: list[tuple[int, int]] = []
    for index, sentence in enumerate(sentences):
        for word, start, end in matcher.finditer(sentence):
            occ_sentence.append(index)
            occ_word.append(word)
            occ_span.append((start, end))
    return occ_sentence, occ_word, occ_span


def _word_embeddings(arrays: Any, many_layers: bool, **fields: Any) -> WordEmbeddings:
    """:class:`WordEmbeddings` from the stored arrays (the layer axis dropped for one layer)."""
    embeddings = arrays["embeddings"]
    return WordEmbeddings(
        embeddings=embeddings if many_layers else embeddings[:, 0],
        words=arrays["words"],
        sentence_ids=arrays["sentence_ids"],
        spans=arrays["spans"],
        n_pieces=arrays["n_pieces"],
        **fields,
    )


def _embed_occurrences(
    encoder: Encoder, sentences: Sequence[str], occ_sentence: list[int], occ_word: list[str],
    occ_span_arr: np.ndarray, layers: tuple[int, ...], pooling: str, batch_tokens: int, progress: bool,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Embeddings (n_occ, n_layers, hidden), wordpiece counts and the kept-occurrence mask
    (an occurrence that maps to no token is dropped).

    Occurrences are grouped by sentence; sentences are visited shortest first so that each
    chunk is nearly uniform in length and padding stays small.
    """
    n_occ = len(occ_word)
    out = np.zeros((n_occ, len(layers), encoder.hidden_size), dtype=np.float32)
    n_pieces = np.zeros(n_occ, dtype=np.int32)
    keep = np.ones(n_occ, dtype=bool)
    layout = _special_layout(encoder.tokenizer)
    blank = _BlankPieces(encoder.tokenizer)
    by_sentence: dict[int, list[int]] = {}
    for occ, sent in enumerate(occ_sentence):
        by_sentence.setdefault(sent, []).append(occ)
    order = sorted(by_sentence, key=lambda s: len(sentences[s]))
    total_chars = sum(len(sentences[s]) for s in order)
    bar = _progress_bar(progress and n_occ > 0, total=total_chars // 4 + 1, desc="embedding words")
    try:
        for chunk_start in range(0, len(order), _CHUNK_SENTENCES):
            chunk = order[chunk_start : chunk_start + _CHUNK_SENTENCES]
            token_ids, offsets = _tokenize(encoder.tokenizer, [sentences[s] for s in chunk])
            units: list[_Unit] = []
            for sent, ids, offs in zip(chunk, token_ids, offsets):
                ids_arr = np.asarray(ids, dtype=np.int64)
                located = _locate(sent, by_sentence[sent], offs, occ_span_arr, occ_word, keep, n_pieces,
                                  lambda pieces, ids_arr=ids_arr: blank(ids_arr[pieces]))
                units.extend(_units_of_sentence(ids_arr, located, layout, encoder.max_length))
            _encode_units(encoder, units, layers, pooling, out, batch_tokens=batch_tokens, progress=None)
            if bar is not None:
                bar.update(sum(len(sentences[s]) for s in chunk) // 4)
    finally:
        if bar is not None:
            bar.close()
    return out, n_pieces, keep


class _BlankPieces:
    """Which tokens hold no text of their own (a bare word-start marker: a standalone SentencePiece
    ``▁`` or byte-level ``Ġ``), as the tokenizer decodes them (:func:`probekit.encoders.is_blank_piece`);
    each token id is asked once.
    """

    def __init__(self, tokenizer: Any) -> None:
        self.tokenizer = tokenizer
        self.known: dict[int, bool] = {}

    def __call__(self, ids: np.ndarray) -> np.ndarray:
        out = np.zeros(len(ids), dtype=bool)
        for k, token in enumerate(ids.tolist()):
            if token not in self.known:
                self.known[token] = is_blank_piece(self.tokenizer, token)
            out[k] = self.known[token]
        return out


def _locate(
    sent: int, occurrences: list[int], offsets: Any, occ_span_arr: np.ndarray, occ_word: list[str],
    keep: np.ndarray, n_pieces: np.ndarray, blank: Any = None,
) -> list[tuple[int, np.ndarray]]:
    """(occurrence, token positions) of the occurrences of one sentence; records each one's
    wordpiece count in ``n_pieces`` and clears ``keep`` for one that maps to no token. Pieces that
    ``blank`` (positions -> mask) marks as bare word-start markers whose offsets touch the word are
    not part of the word's vector (unless the word has nothing else).
    """
    offs_arr = np.asarray(offsets, dtype=np.int64).reshape(-1, 2)
    located = []
    for occ in occurrences:
        pieces = _pieces_of_span(offs_arr, *occ_span_arr[occ])
        if blank is not None and len(pieces):
            bare = blank(pieces)
            if bare.any() and not bare.all():
                pieces = pieces[~bare]
        if len(pieces) == 0:
            keep[occ] = False
            logger.warning("occurrence of %r in sentence %d maps to no token; dropped", occ_word[occ], sent)
            continue
        n_pieces[occ] = len(pieces)
        located.append((occ, pieces))
    return located


def _units_of_sentence(
    ids_arr: np.ndarray, located: list[tuple[int, np.ndarray]], layout: tuple[np.ndarray, np.ndarray],
    max_length: int,
) -> list[_Unit]:
    """The model inputs of one sentence: the whole sentence when it fits, else one window of
    the longest allowed length centred on each occurrence.
    """
    if not located:
        return []
    prefix, suffix = layout
    content_limit = max_length - len(prefix) - len(suffix)
    if len(ids_arr) <= content_limit:
        full = np.concatenate([prefix, ids_arr, suffix])
        return [_Unit(full, [o for o, _ in located], [p + len(prefix) for _, p in located])]
    units = []
    for occ, pieces in located:  # too long: one window per occurrence
        start, stop = _window(len(ids_arr), pieces, content_limit)
        full = np.concatenate([prefix, ids_arr[start:stop], suffix])
        units.append(_Unit(full, [occ], [pieces - start + len(prefix)]))
    return units


def _report_missing(missing: tuple[str, ...], n_words: int, on_missing: str) -> None:
    if not missing or on_missing == "ignore":
        return
    shown = ", ".join(missing[:20]) + (f", ... ({len(missing)} in all)" if len(missing) > 20 else "")
    message = f"{len(missing)} of {n_words} words have no sentence: {shown}"
    if on_missing == "error":
        raise MissingSentencesError(
            message + " (on_missing='error'; pass on_missing='warn' or 'ignore' to go on without them)", list(missing)
        )
    logger.warning(message)
    warnings.warn(message, stacklevel=3)


def embed_sentences(
    encoder: Encoder,
    sentences: Sequence[str],
    *,
    pooling: str = "mean",
    layer: int | Sequence[int] = -1,
    batch_tokens: int | None = None,
    cache_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> np.ndarray:
    r"""Sentence embeddings, one row per sentence.

    Parameters
    ----------
    encoder : Encoder
    sentences : sequence of str
    pooling : {"mean", "mean-with-special", "cls", "pooler"}
        ``"mean"``: masked mean over the sentence's tokens, special tokens excluded,
        :math:`\frac{1}{|T|}\sum_{t \in T} h^{(\ell)}_t`; ``"mean-with-special"``: the mean over
        every position, [CLS] and [SEP] included (what SEAT's public code computes: May et al. 2019,
        Meade et al. 2022); ``"cls"``: the first token's state;
        ``"pooler"``: the model's pooler output (last layer only; BERT's tanh dense over [CLS]).
    layer : int or sequence of int, default -1
        As in :func:`embed_words`.
    batch_tokens, cache_dir, progress
        As in :func:`embed_words`.

    Returns
    -------
    ndarray of float32, shape (n_sentences, hidden) or (n_sentences, n_layers, hidden)

    Notes
    -----
    Sentences longer than the model's limit are truncated to it, with a warning.
    """
    sentences = _check_sentences(sentences)
    check_choice(pooling, "pooling", SENTENCE_POOLINGS)
    layers, many_layers = normalize_layers(layer, encoder.num_layers)
    if pooling == "pooler":
        if layers != (encoder.num_layers,):
            raise InvalidParameterError("layer", layer, "-1 (the pooler reads the last layer) with pooling='pooler'")
        if getattr(encoder.model, "pooler", None) is None:
            raise InvalidParameterError("pooling", pooling, ["mean", "cls"], "this model has no pooler")
    batch_tokens = default_batch_tokens(encoder.device) if batch_tokens is None else batch_tokens
    if isinstance(batch_tokens, bool) or not isinstance(batch_tokens, (int, np.integer)) or batch_tokens < 1:
        raise InvalidParameterError("batch_tokens", batch_tokens, "a positive number of tokens per batch, or None for the default")
    meta = extraction_meta(encoder, sentences)
    cache = EmbeddingCache(cache_dir) if cache_dir is not None else None
    key = cache_key(kind="sentences", layers=layers, pooling=pooling, **meta)
    if cache is not None and (hit := cache.load(key)) is not None:
        embeddings = hit[0]["embeddings"]
        return embeddings if many_layers else embeddings[:, 0]

    out = np.zeros((len(sentences), len(layers), encoder.hidden_size), dtype=np.float32)
    prefix, suffix = _special_layout(encoder.tokenizer)
    content_limit = encoder.max_length - len(prefix) - len(suffix)
    truncated = 0
    order = sorted(range(len(sentences)), key=lambda s: len(sentences[s]))
    bar = _progress_bar(progress and len(sentences) > 0, total=len(sentences), desc="embedding sentences")
    engine_pooling = {"cls": "first", "mean-with-special": "mean"}.get(pooling, pooling)
    try:
        for chunk_start in range(0, len(order), _CHUNK_SENTENCES):
            chunk = order[chunk_start : chunk_start + _CHUNK_SENTENCES]
            token_ids, _ = _tokenize(encoder.tokenizer, [sentences[s] for s in chunk])
            units = []
            for sent, ids in zip(chunk, token_ids):
                if len(ids) > content_limit:
                    truncated += 1
                    ids = ids[:content_limit]
                full = np.concatenate([prefix, np.asarray(ids, dtype=np.int64), suffix])
                if pooling == "cls":
                    positions = np.zeros(1, dtype=np.int64)
                elif len(ids) and pooling == "mean":
                    positions = np.arange(len(prefix), len(prefix) + len(ids))
                else:  # every position (mean-with-special), or an empty sentence's special tokens
                    positions = np.arange(len(full))
                units.append(_Unit(full, [sent], [positions]))
            _encode_units(encoder, units, layers, engine_pooling, out, batch_tokens=batch_tokens)
            if bar is not None:
                bar.update(len(chunk))
    finally:
        if bar is not None:
            bar.close()
    if truncated:
        logger.warning("%d sentences longer than %d tokens were truncated", truncated, encoder.max_length)
    if cache is not None:
        cache.save(key, {"embeddings": out}, meta)
    return out if many_layers else out[:, 0]
