"""Per-occurrence embeddings with word labels, as produced by ``probekit.embed_words``."""

from __future__ import annotations

import warnings
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.errors import InvalidParameterError, MissingSentencesError
from probekit.utils import as_embedding_matrix


def as_occurrences(value: Any, words: Any, name: str) -> tuple[np.ndarray, np.ndarray]:
    """(embeddings, word labels) from an ``embed_words`` result, a ``(embeddings, words)`` pair,
    a mapping with those keys, or an array plus ``words``.
    """
    if words is None:
        if hasattr(value, "embeddings") and hasattr(value, "words"):
            value, words = value.embeddings, value.words
        elif isinstance(value, Mapping) and "embeddings" in value and "words" in value:
            value, words = value["embeddings"], value["words"]
        elif isinstance(value, tuple) and len(value) == 2:
            value, words = value
        else:
            raise InvalidParameterError(
                name, type(value).__name__,
                "an embed_words result (with .embeddings and .words), an (embeddings, words) pair, "
                "or an array together with its per-row word labels",
            )
    emb = as_embedding_matrix(value, name)
    labels = np.asarray([str(w) for w in words], dtype=object)
    if labels.ndim != 1 or labels.size != emb.shape[0]:
        raise InvalidParameterError(
            f"{name} words", f"{labels.size} labels", f"one word label per embedding row ({emb.shape[0]})"
        )
    return emb, labels


def select_words(
    emb: np.ndarray,
    labels: np.ndarray,
    words: Sequence[str],
    *,
    aggregate: str,
    set_name: str,
    min_items: int = 2,
) -> tuple[np.ndarray, list[str], list[str]]:
    """Rows for ``words`` (order kept): one mean per word (``aggregate="word"``) or every occurrence.

    Returns (items, item words, missing words). Words without rows are left out with a warning;
    fewer than ``min_items`` items left raises :class:`MissingSentencesError`.
    """
    if isinstance(words, str):
        raise InvalidParameterError(set_name, words, "a list of words, not a single string")
    index: dict[str, list[int]] = {}
    for i, label in enumerate(labels):
        index.setdefault(label, []).append(i)
    rows: list[np.ndarray] = []
    owners: list[str] = []
    missing: list[str] = []
    for w in dict.fromkeys(words):
        hits = index.get(w)
        if not hits:
            missing.append(w)
            continue
        if aggregate == "word":
            rows.append(emb[hits].mean(axis=0, keepdims=True))
            owners.append(w)
        else:
            rows.append(emb[hits])
            owners.extend([w] * len(hits))
    n_items = sum(r.shape[0] for r in rows)
    if n_items < min_items:
        raise MissingSentencesError(
            f"{set_name}: only {n_items} item(s) after leaving out {len(missing)} word(s) without "
            f"embeddings ({', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}); at least "
            f"{min_items} are needed. Add sentences for these words to the corpus or change the word list.",
            missing,
        )
    if missing:
        warnings.warn(
            f"{set_name}: {len(missing)} word(s) have no embeddings and are left out: "
            f"{', '.join(missing[:10])}{' ...' if len(missing) > 10 else ''}",
            RuntimeWarning, stacklevel=3,
        )
    return np.concatenate(rows), owners, missing
