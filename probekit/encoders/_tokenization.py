"""Word boundaries as the tokenizer draws them, never guessed from the model type or path.

Three tokenizer families mark words differently: WordPiece marks continuations (``##ing``);
SentencePiece marks word starts with ``▁`` and adds it to the first word too; byte-level BPE marks a
word start with the space it carries (``Ġ``), so the first word of a text (no space before it) is
tokenized differently from the same word inside a sentence (``The`` vs ``ĠThe``, ``c ar ing`` vs
``Ġcaring``). What matters to the scorers is only the observable behaviour, which is what these
functions test: does a word after a space get other tokens than the word alone, and does a token
hold any text of its own or only a word-start marker.
"""

from __future__ import annotations

import weakref
from typing import Any

__all__ = ["space_sensitive", "is_blank_piece"]

_PROBE_WORDS = ("the", "caring", "and")
_SPACE_SENSITIVE: "weakref.WeakKeyDictionary[Any, bool]" = weakref.WeakKeyDictionary()


def space_sensitive(tokenizer: Any) -> bool:
    """Whether a word inside a sentence (after a space) is tokenized differently from the word alone.

    True for byte-level BPE without ``add_prefix_space`` (RoBERTa, ModernBERT, data2vec-text): a
    word in a sentence must be tokenized with its leading space (``" caring"``) to get the tokens the
    sentence holds. False for WordPiece and SentencePiece, where whitespace only separates words.
    """
    try:
        return _SPACE_SENSITIVE[tokenizer]
    except (KeyError, TypeError):
        pass
    answer = any(
        tokenizer(word, add_special_tokens=False)["input_ids"] != tokenizer(" " + word, add_special_tokens=False)["input_ids"]
        for word in _PROBE_WORDS
    )
    try:
        _SPACE_SENSITIVE[tokenizer] = answer
    except TypeError:  # a tokenizer that cannot be weakly referenced: asked again next time
        pass
    return answer


def is_blank_piece(tokenizer: Any, token_id: int) -> bool:
    """Whether a token holds no text of its own: a bare word-start marker (``▁``, ``Ġ``) or whitespace."""
    return not tokenizer.decode([int(token_id)], clean_up_tokenization_spaces=False).strip()
