"""The corpus type (:class:`Corpus`) and the selection of the sentences that contain each word.

The loaders are in :mod:`probekit.text._loaders` (text files, Hugging Face datasets), the built-in
template corpus in :mod:`probekit.text._templates`, sentence splitting in :mod:`probekit.text._sentences`.

Tokpo et al. (2023) take every sentence of a corpus that contains a word, and for stereotype
words only sentences that contain no attribute word (an attribute word in the context leaks
gender into the stereotype word's embedding). :func:`select_sentences` does this in one pass
over the corpus with one compiled pattern.
"""

from __future__ import annotations

import hashlib
import logging
import os
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from probekit.errors import InvalidParameterError, MissingSentencesError
from probekit.text._wordmatch import WordMatcher, normalize_word
from probekit.utils import atomic_write_text

__all__ = ["Corpus", "SentenceSelection", "as_corpus", "select_sentences"]

logger = logging.getLogger(__name__)


def _digest(sentences: Iterable[str]) -> str:
    h = hashlib.sha256()
    first = True
    for s in sentences:
        if not first:
            h.update(b"\n")
        h.update(s.encode("utf-8"))
        first = False
    return h.hexdigest()


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus(Sequence):
    """An ordered collection of sentences with a name and a description of where it came from.

    Parameters
    ----------
    sentences : sequence of str
        The sentences (or short texts), in order.
    name : str
        Short name used in reports and provenance.
    source : str
        Where the sentences come from (file path and mode, dataset and column, template set).

    Attributes
    ----------
    digest : str
        SHA-256 (hex) of the sentences joined by newlines: two corpora with the same digest hold
        the same sentences in the same order. Recorded in the provenance of every result.
    """

    sentences: tuple[str, ...]
    name: str = "corpus"
    source: str = ""
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.sentences, str):
            raise InvalidParameterError("sentences", self.sentences, "a sequence of sentences, not one string")
        sentences = tuple(self.sentences)
        bad = next((s for s in sentences if not isinstance(s, str)), None)
        if bad is not None:
            raise InvalidParameterError("sentences", bad, "strings only")
        object.__setattr__(self, "sentences", sentences)
        object.__setattr__(self, "digest", _digest(sentences))

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, index):  # type: ignore[override]
        return self.sentences[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self.sentences)

    def describe(self) -> dict[str, Any]:
        """Name, source, size and digest, for provenance."""
        return {"name": self.name, "source": self.source, "n_sentences": len(self), "digest": self.digest}

    def to_text_file(self, path: str | os.PathLike[str]) -> Path:
        """Write one sentence per line (UTF-8, atomically); newlines inside sentences become spaces.

        :func:`load_text_corpus` reads the file back into the same sentences.
        """
        lines = (" ".join(s.split()) for s in self.sentences)
        return atomic_write_text(path, "".join(line + "\n" for line in lines if line))


def as_corpus(corpus: Any) -> Corpus:
    """``corpus`` as a :class:`Corpus` (a Corpus unchanged, a sequence of sentences wrapped; a path or a string is refused)."""
    if isinstance(corpus, Corpus):
        return corpus
    if isinstance(corpus, (str, bytes, os.PathLike)):
        raise InvalidParameterError(
            "corpus", corpus, "a Corpus or a sequence of sentences",
            "to read a file use load_text_corpus(path) first",
        )
    try:
        return Corpus(tuple(corpus), name="sentences", source="in-memory sentences")
    except TypeError:
        raise InvalidParameterError("corpus", corpus, "a Corpus or a sequence of sentences") from None


# --------------------------------------------------------------------------------------------
# Sentence selection
# --------------------------------------------------------------------------------------------

_ON_MISSING = ("warn", "error", "ignore")


@dataclass(frozen=True)
class SentenceSelection:
    """The sentences selected for each word by :func:`select_sentences`.

    Attributes
    ----------
    words : tuple of str
        The requested words (duplicates, and case variants when matching ignores case, removed).
    sentences : tuple of str
        The unique selected sentences, in corpus order.
    corpus_indices : tuple of int
        Position in the corpus of each selected sentence.
    indices : mapping str -> tuple of int
        For each word, the positions in :attr:`sentences` of its sentences (increasing).
    available : mapping str -> int
        For each word, how many distinct sentences contain it and passed the exclusion (before
        the cap).
    excluded : mapping str -> int
        For each word, how many distinct sentences containing it were dropped because they
        contain a word of ``exclude_words``.
    missing : tuple of str
        Words with no selected sentence.
    parameters : mapping
        ``max_per_word``, ``random_state``, ``case_sensitive``, the number and digest of the
        exclude words, and the corpus name, size and digest.
    """

    words: tuple[str, ...]
    sentences: tuple[str, ...]
    corpus_indices: tuple[int, ...]
    indices: Mapping[str, tuple[int, ...]]
    available: Mapping[str, int]
    excluded: Mapping[str, int]
    missing: tuple[str, ...]
    parameters: Mapping[str, Any]

    @property
    def counts(self) -> dict[str, int]:
        """Number of selected sentences per word."""
        return {w: len(self.indices[w]) for w in self.words}

    @property
    def digest(self) -> str:
        """SHA-256 of the selected sentences joined by newlines."""
        return _digest(self.sentences)

    def sentences_for(self, word: str) -> tuple[str, ...]:
        """The selected sentences of ``word``."""
        if word not in self.indices:
            raise InvalidParameterError("word", word, "one of the selected words")
        return tuple(self.sentences[i] for i in self.indices[word])

    def report(self, *, max_rows: int | None = None) -> str:
        """A readable summary: corpus, parameters, missing words and per-word counts."""
        p = self.parameters
        lines = [
            f"Sentence selection from corpus {p['corpus_name']!r} ({p['corpus_size']:,} sentences, "
            f"digest {p['corpus_digest'][:12]})",
            f"  words: {len(self.words)}; selected sentences: {len(self.sentences):,}; "
            f"max_per_word={p['max_per_word']}, random_state={p['random_state']}, "
            f"case_sensitive={p['case_sensitive']}, exclude_words={p['n_exclude_words']}",
        ]
        total_excluded = sum(self.excluded.values())
        if p["n_exclude_words"]:
            lines.append(f"  sentences dropped for containing an excluded word: {total_excluded:,} (word-sentence pairs)")
        if self.missing:
            lines.append(f"  missing ({len(self.missing)} words with no sentence): {', '.join(self.missing)}")
        else:
            lines.append("  missing: none")
        width = max([4] + [len(w) for w in self.words])
        lines.append(f"  {'word':<{width}}  {'available':>9}  {'excluded':>8}  {'selected':>8}")
        rows = self.words if max_rows is None else self.words[:max_rows]
        for w in rows:
            lines.append(
                f"  {w:<{width}}  {self.available[w]:>9,}  {self.excluded[w]:>8,}  {len(self.indices[w]):>8,}"
            )
        if max_rows is not None and len(self.words) > max_rows:
            lines.append(f"  ... {len(self.words) - max_rows} more words")
        return "\n".join(lines)

    def to_dict(self, *, include_sentences: bool = True) -> dict[str, Any]:
        """The selection as a JSON-ready dict (``include_sentences``: with the sentences of every word)."""
        out: dict[str, Any] = {
            "words": list(self.words),
            "missing": list(self.missing),
            "counts": self.counts,
            "available": dict(self.available),
            "excluded": dict(self.excluded),
            "parameters": dict(self.parameters),
            "digest": self.digest,
        }
        if include_sentences:
            out["sentences"] = list(self.sentences)
            out["indices"] = {w: list(v) for w, v in self.indices.items()}
        return out


def _check_words(value: Any, parameter: str, *, allow_empty: bool) -> list[str]:
    if isinstance(value, (str, bytes)):
        raise InvalidParameterError(parameter, value, "a list of words, not a single string", f"did you mean [{value!r}]?")
    try:
        words = list(value)
    except TypeError:
        raise InvalidParameterError(parameter, value, "a list of words") from None
    if not words and not allow_empty:
        raise InvalidParameterError(parameter, value, "a non-empty list of words")
    bad = [w for w in words if not isinstance(w, str) or not w.strip()]
    if bad:
        raise InvalidParameterError(parameter, bad[:5], "non-empty strings only")
    return words


def select_sentences(
    corpus: Corpus | Sequence[str],
    words: Iterable[str],
    *,
    exclude_words: Iterable[str] | None = None,
    max_per_word: int | None = None,
    random_state: int | np.random.Generator | None = None,
    case_sensitive: bool = False,
    on_missing: str = "warn",
) -> SentenceSelection:
    """Select the sentences that contain each word as a whole word.

    One pass over the corpus with one compiled pattern for ``words`` and ``exclude_words``
    together (a prefix-tree regular expression, so it scales to millions of sentences).
    Following Tokpo et al. (2023), stereotype words are embedded only in sentences free of
    attribute words: pass the attribute words as ``exclude_words``.

    Parameters
    ----------
    corpus : Corpus or sequence of str
    words : iterable of str
        Words (or multi-word terms) to find. A word matches where it is not preceded or followed
        by a letter, digit or underscore: "he" matches in "he's" and "he-goat" but not in
        "the"; multi-word terms match across any whitespace.
    exclude_words : iterable of str, optional
        A sentence is not used for a word when it contains any of these words other than the
        word itself (so a word that is in both lists keeps its sentences unless another
        excluded word occurs in them).
    max_per_word : int, optional
        Keep at most this many sentences per word, drawn without replacement with
        ``random_state`` (``np.random.default_rng``); kept sentences stay in corpus order. Words
        are drawn for in the order given, from one generator.
    random_state : int, numpy Generator or None
        Seed of the cap; the same seed gives the same selection.
    case_sensitive : bool
        Match case exactly (for cased models); by default case is ignored.
    on_missing : {"warn", "error", "ignore"}
        What to do when a word has no sentence: log and ``warnings.warn`` (default), raise
        :class:`~probekit.errors.MissingSentencesError`, or nothing. Missing words are always
        listed in ``missing`` and in :meth:`SentenceSelection.report`.

    Returns
    -------
    SentenceSelection

    Notes
    -----
    Identical sentences are counted once (the first occurrence is kept). Where terms overlap,
    the longest one wins ("ice cream" hides "ice" in "ice cream").
    """
    _check_selection_args(on_missing, max_per_word, case_sensitive)
    word_list = _check_words(words, "words", allow_empty=False)
    excl_list = _check_words(exclude_words, "exclude_words", allow_empty=True) if exclude_words is not None else []
    corpus = as_corpus(corpus)
    try:
        rng = np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError("random_state", random_state, "an int, a numpy Generator or None", str(exc)) from None

    def key(w: str) -> str:
        return normalize_word(w, case_sensitive=bool(case_sensitive))

    canonical: dict[str, str] = {}
    for w in word_list:
        canonical.setdefault(key(w), " ".join(w.split()))
    matcher = WordMatcher(list(canonical.values()) + excl_list, case_sensitive=bool(case_sensitive))
    found_in, excluded = _scan_corpus(corpus.sentences, matcher, key, canonical, frozenset(key(w) for w in excl_list))
    chosen = _cap_per_word(found_in, max_per_word, rng)
    corpus_indices = sorted({i for idx in chosen.values() for i in idx})
    position = {ci: pos for pos, ci in enumerate(corpus_indices)}

    words_out = tuple(canonical.values())
    indices = {canonical[k]: tuple(position[i] for i in chosen[k]) for k in canonical}
    missing = tuple(w for w in words_out if not indices[w])
    parameters = {
        "max_per_word": None if max_per_word is None else int(max_per_word),
        "random_state": random_state if (random_state is None or isinstance(random_state, (int, np.integer))) else repr(random_state),
        "case_sensitive": bool(case_sensitive),
        "n_exclude_words": len(set(excl_list)),
        "exclude_words_digest": _digest(sorted(set(excl_list))) if excl_list else None,
        "corpus_name": corpus.name,
        "corpus_size": len(corpus),
        "corpus_digest": corpus.digest,
    }
    selection = SentenceSelection(
        words=words_out,
        sentences=tuple(corpus.sentences[i] for i in corpus_indices),
        corpus_indices=tuple(corpus_indices),
        indices=indices,
        available={canonical[k]: len(found_in[k]) for k in canonical},
        excluded={canonical[k]: excluded[k] for k in canonical},
        missing=missing,
        parameters=parameters,
    )
    if missing and on_missing != "ignore":
        dropped = sum(excluded[key(w)] for w in missing)
        _report_missing_words(missing, len(words_out), dropped, corpus.name, on_missing)
    return selection


def _check_selection_args(on_missing: Any, max_per_word: Any, case_sensitive: Any) -> None:
    if on_missing not in _ON_MISSING:
        raise InvalidParameterError("on_missing", on_missing, _ON_MISSING)
    if max_per_word is not None and (
        isinstance(max_per_word, bool) or not isinstance(max_per_word, (int, np.integer)) or max_per_word < 1
    ):
        raise InvalidParameterError("max_per_word", max_per_word, "a positive integer or None")
    if not isinstance(case_sensitive, (bool, np.bool_)):
        raise InvalidParameterError("case_sensitive", case_sensitive, (True, False))


def _scan_corpus(
    sentences: Sequence[str], matcher: WordMatcher, key: Any, canonical: dict[str, str], exclude_keys: frozenset[str],
) -> tuple[dict[str, list[int]], dict[str, int]]:
    """One pass over the corpus: per target key, the corpus indices of its usable sentences and
    the count of its sentences dropped for holding another excluded word. A repeated sentence
    counts once (its first occurrence).
    """
    target_keys = frozenset(canonical)
    found_in: dict[str, list[int]] = {k: [] for k in canonical}
    excluded: dict[str, int] = {k: 0 for k in canonical}
    seen: set[str] = set()
    finditer = matcher.finditer
    for i, sentence in enumerate(sentences):
        found = {key(word) for word, _, _ in finditer(sentence)}
        if not found:
            continue
        targets = found & target_keys
        if not targets or sentence in seen:
            continue
        seen.add(sentence)
        bad = found & exclude_keys
        for k in targets:
            if bad and (len(bad) > 1 or k not in bad):
                excluded[k] += 1
            else:
                found_in[k].append(i)
    return found_in, excluded


def _cap_per_word(
    found_in: dict[str, list[int]], max_per_word: int | None, rng: np.random.Generator,
) -> dict[str, list[int]]:
    """At most ``max_per_word`` sentences per word, drawn without replacement in word order (kept
    in corpus order).
    """
    chosen: dict[str, list[int]] = {}
    for k, idx in found_in.items():
        if max_per_word is not None and len(idx) > max_per_word:
            keep = np.sort(rng.choice(len(idx), size=int(max_per_word), replace=False))
            idx = [idx[j] for j in keep]
        chosen[k] = idx
    return chosen


def _report_missing_words(missing: tuple[str, ...], n_words: int, dropped: int, corpus_name: str, on_missing: str) -> None:
    """Warn about (``"warn"``) or raise for (``"error"``) words without a sentence."""
    shown = ", ".join(missing[:50]) + (f", ... ({len(missing) - 50} more)" if len(missing) > 50 else "")
    message = (
        f"{len(missing)} of {n_words} words have no sentence in corpus {corpus_name!r}: {shown}"
        + (f" ({dropped} of their sentences were dropped because they contain an excluded word)" if dropped else "")
    )
    if on_missing == "error":
        raise MissingSentencesError(
            message + "; use a larger corpus, remove these words, or pass on_missing='warn'", list(missing)
        )
    logger.warning(message)
    warnings.warn(message, UserWarning, stacklevel=3)
