"""The result of word extraction: :class:`WordEmbeddings`, one row per word occurrence, saved as npz."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from probekit.utils import atomic_path, dumps_json


@dataclass
class WordEmbeddings:
    """Contextual embeddings of word occurrences, one row per occurrence.

    Attributes
    ----------
    embeddings : ndarray of float32, shape (n_occurrences, hidden) or (n_occurrences, n_layers, hidden)
        The second form when several layers were asked for.
    words : ndarray of str, shape (n_occurrences,)
        The word (as written in the word list) of each occurrence.
    sentence_ids : ndarray of int64, shape (n_occurrences,)
        Index of the sentence (in the ``sentences`` passed) holding the occurrence.
    spans : ndarray of int64, shape (n_occurrences, 2)
        Character offsets ``[start, end)`` of the occurrence in its sentence.
    n_pieces : ndarray of int32, shape (n_occurrences,)
        Number of wordpieces pooled for the occurrence.
    layers : tuple of int
        Hidden-state indices used (0 = embedding layer output, ``num_layers`` = last layer).
    pooling : str
        ``"first"``, ``"mean"`` or ``"last"`` over the occurrence's wordpieces.
    missing : tuple of str
        Words of the word list with no occurrence in the sentences.
    meta : dict
        Provenance: model fingerprint, text digest, dtype, engine version.
    """

    embeddings: np.ndarray
    words: np.ndarray
    sentence_ids: np.ndarray
    spans: np.ndarray
    n_pieces: np.ndarray
    layers: tuple[int, ...]
    pooling: str
    missing: tuple[str, ...] = ()
    meta: dict[str, Any] = field(default_factory=dict)

    def __len__(self) -> int:
        return int(self.embeddings.shape[0])

    @property
    def vocabulary(self) -> list[str]:
        """Distinct words with at least one occurrence, in first-seen order."""
        return list(dict.fromkeys(self.words.tolist()))

    def for_word(self, word: str) -> np.ndarray:
        """Embeddings of every occurrence of ``word``."""
        return self.embeddings[self.words == word]

    def mean_per_word(self) -> tuple[list[str], np.ndarray]:
        """(words, array of the mean embedding of each word's occurrences)."""
        vocabulary = self.vocabulary
        if not vocabulary:
            return vocabulary, np.zeros((0,) + self.embeddings.shape[1:], dtype=np.float32)
        return vocabulary, np.stack([self.for_word(w).mean(axis=0) for w in vocabulary])

    def subset(self, mask: np.ndarray) -> "WordEmbeddings":
        """The occurrences selected by a boolean mask or index array."""
        return WordEmbeddings(
            embeddings=self.embeddings[mask],
            words=self.words[mask],
            sentence_ids=self.sentence_ids[mask],
            spans=self.spans[mask],
            n_pieces=self.n_pieces[mask],
            layers=self.layers,
            pooling=self.pooling,
            missing=self.missing,
            meta=dict(self.meta),
        )

    def restrict_to(self, selection: Any) -> "WordEmbeddings":
        """Only the occurrences of each word in the sentences selected *for that word*.

        ``selection`` is a :class:`probekit.SentenceSelection` whose ``sentences`` were embedded. A
        sentence selected for one word may hold another listed word whose own sentences were capped;
        keeping that occurrence would break the per-word cap and its random sample.
        """
        allowed = {(word, int(index)) for word, indices in selection.indices.items() for index in indices}
        keep = np.fromiter(
            ((w, int(s)) in allowed for w, s in zip(self.words.tolist(), self.sentence_ids)), dtype=bool, count=len(self)
        )
        return self.subset(keep)

    def to_arrays(self) -> dict[str, np.ndarray]:
        """The embeddings with their words, sentence ids, spans and wordpiece counts as NumPy arrays (``np.savez``, no pickle)."""
        return {
            "embeddings": self.embeddings,
            "words": self.words.astype(str),
            "sentence_ids": self.sentence_ids,
            "spans": self.spans,
            "n_pieces": self.n_pieces,
        }

    def save(self, path: str | os.PathLike) -> None:
        """Write to ``path`` as npz (no pickle), atomically, with the metadata as JSON."""
        meta = {"layers": list(self.layers), "pooling": self.pooling, "missing": list(self.missing), **self.meta}
        with atomic_path(path, suffix=".tmp.npz") as tmp:
            np.savez(tmp, **self.to_arrays(), meta=np.asarray(dumps_json(meta)))

    @classmethod
    def load(cls, path: str | os.PathLike) -> "WordEmbeddings":
        """Read a file written by :meth:`save`."""
        import json

        from probekit.errors import InputFileError
        from probekit.utils import load_npz

        stored = load_npz(path)  # a regular file; sizes checked before anything is allocated
        try:
            meta = json.loads(str(stored["meta"]))
            arrays = {k: stored[k] for k in ("embeddings", "words", "sentence_ids", "spans", "n_pieces")}
            layers = tuple(meta.pop("layers"))
            pooling = meta.pop("pooling")
            missing = tuple(meta.pop("missing"))
        except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
            raise InputFileError(f"{str(path)!r} is not a file written by WordEmbeddings.save ({exc!r})") from None
        return cls(**arrays, layers=layers, pooling=pooling, missing=missing, meta=meta)
