"""SEAT on contextual embeddings: word level (Tan & Celis 2019) and sentence level (May et al. 2019).

Both are thin layers that turn words into the four embedding sets and call :func:`seat_test`.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from probekit.embedding import embed_sentences
from probekit.errors import InvalidParameterError
from probekit.intrinsic._named_tests import seat_sentence_sets, seat_word_sets
from probekit.intrinsic._occurrences import as_occurrences, select_words
from probekit.intrinsic._seat import SeatResult, seat_test
from probekit.intrinsic._templates import bleached_sentences
from probekit.utils import RandomStateLike, check_choice

AGGREGATES = ("word", "occurrence")
SENTENCE_AGGREGATES = ("sentence", "word")


def contextual_seat(
    targets: Any,
    attributes: Any = None,
    *,
    test: Any = None,
    x_words: Sequence[str] | None = None,
    y_words: Sequence[str] | None = None,
    a_words: Sequence[str] | None = None,
    b_words: Sequence[str] | None = None,
    target_labels: Sequence[str] | None = None,
    attribute_labels: Sequence[str] | None = None,
    aggregate: str = "word",
    n_permutations: int = 100_000,
    random_state: RandomStateLike = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    name: str | None = None,
) -> SeatResult:
    """Word-level contextual SEAT (Tan & Celis 2019) on per-occurrence word embeddings.

    Each word's embedding in its corpus contexts, averaged per word (``aggregate="word"``, one
    item per word) or kept per occurrence (``aggregate="occurrence"``), then :func:`seat_test`.
    The paper's variant (Tokpo et al. 2023): X, Y = female / male stereotypes, A, B = female /
    male attribute terms, with ``targets`` the stereotype occurrences (from sentences without
    attribute words) and ``attributes`` the attribute occurrences.

    Parameters
    ----------
    targets : embed_words result, (embeddings, words) pair, or array with ``target_labels``
        Occurrences holding the X and Y words.
    attributes : same kinds, optional
        Occurrences holding the A and B words; ``None`` uses ``targets``.
    test : str or SeatTest, optional
        Take the four word sets from :func:`probekit.intrinsic.seat_word_sets` (``"paper"``,
        ``"weat6"`` ...) instead of ``x_words`` ... ``b_words``; also the default ``name``.
    x_words, y_words, a_words, b_words : sequence of str
        The four word sets; occurrences are matched to them by their word label (exactly, as
        passed to extraction).
    target_labels, attribute_labels : sequence of str, optional
        Per-row word labels when ``targets`` / ``attributes`` are plain arrays.
    aggregate : {"word", "occurrence"}
    n_permutations, random_state, n_bootstrap, confidence_level, name
        As in :func:`seat_test`.

    Words without any occurrence are left out with a warning and listed in
    ``result.details["missing_words"]``; a set left with fewer than 2 items raises
    :class:`probekit.errors.MissingSentencesError`.
    """
    aggregate = check_choice(aggregate, "aggregate", AGGREGATES)
    x_words, y_words, a_words, b_words = _word_sets(test, x_words, y_words, a_words, b_words)
    if name is None and isinstance(test, str):
        name = test
    t_emb, t_lab = as_occurrences(targets, target_labels, "targets")
    if attributes is None:
        a_emb, a_lab = t_emb, t_lab
    else:
        a_emb, a_lab = as_occurrences(attributes, attribute_labels, "attributes")
    sets: dict[str, np.ndarray] = {}
    missing: dict[str, list[str]] = {}
    counts: dict[str, int] = {}
    for key, emb, lab, words in (
        ("X", t_emb, t_lab, x_words), ("Y", t_emb, t_lab, y_words),
        ("A", a_emb, a_lab, a_words), ("B", a_emb, a_lab, b_words),
    ):
        items, owners, miss = select_words(emb, lab, words, aggregate=aggregate, set_name=key)
        sets[key], missing[key], counts[key] = items, miss, len(set(owners))
    details = {
        "level": "word",
        "aggregate": aggregate,
        "n_words": counts,
        "missing_words": missing,
    }
    return seat_test(
        sets["X"], sets["Y"], sets["A"], sets["B"], n_permutations=n_permutations, random_state=random_state,
        n_bootstrap=n_bootstrap, confidence_level=confidence_level, name=name, details=details,
    )


def _word_sets(test: Any, *given: Sequence[str] | None) -> tuple[Sequence[str], ...]:
    labels = ("x_words", "y_words", "a_words", "b_words")
    if test is not None:
        if any(g is not None for g in given):
            raise InvalidParameterError("test", test, "either test or x_words/y_words/a_words/b_words, not both")
        sets = seat_word_sets(test)
        return tuple(sets[k] for k in "XYAB")
    for label, words in zip(labels, given):
        if words is None:
            raise InvalidParameterError(label, None, "a list of words (or pass test=...)")
    return given  # type: ignore[return-value]


def sentence_seat(
    encoder: Any,
    x_words: Sequence[str],
    y_words: Sequence[str],
    a_words: Sequence[str],
    b_words: Sequence[str],
    *,
    templates: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    kinds: Mapping[str, str] | None = None,
    aggregate: str = "sentence",
    pooling: str = "mean",
    layer: int = -1,
    n_permutations: int = 100_000,
    random_state: RandomStateLike = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    name: str | None = None,
    progress: bool = True,
    embed_kwargs: Mapping[str, Any] | None = None,
) -> SeatResult:
    """Sentence-level SEAT (May et al. 2019): each word in the project's bleached templates.

    Every word of X, Y, A, B is put into the bleached templates of its kind
    (:data:`probekit.intrinsic.BLEACHED_TEMPLATES`, kind guessed by
    :func:`probekit.intrinsic.infer_word_kind` unless ``kinds`` says otherwise); the sentences are
    encoded with ``probekit.embed_sentences`` (``pooling``, ``layer``) and each sentence is one
    item of :func:`seat_test` (``aggregate="sentence"``, as May et al.), or each word's sentences
    are averaged into one item (``aggregate="word"``). ``progress`` and ``embed_kwargs``
    (e.g. ``batch_tokens``, ``cache_dir``) go to ``embed_sentences``.
    """
    aggregate = check_choice(aggregate, "aggregate", SENTENCE_AGGREGATES)
    built: dict[str, tuple[list[str], list[str]]] = {}
    for key, words in (("X", x_words), ("Y", y_words), ("A", a_words), ("B", b_words)):
        built[key] = bleached_sentences(list(dict.fromkeys(words)), templates=templates, kinds=kinds)
    sets = _encode_sets(encoder, {key: built[key][0] for key in "XYAB"}, pooling=pooling, layer=layer,
                        progress=progress, embed_kwargs=embed_kwargs)
    if aggregate == "word":
        for key in "XYAB":
            owners = built[key][1]
            sets[key], _, _ = select_words(sets[key], np.asarray(owners, dtype=object), list(dict.fromkeys(owners)),
                                           aggregate="word", set_name=key)
    describe = getattr(encoder, "describe", None)
    details = {
        "level": "sentence",
        "aggregate": aggregate,
        "pooling": pooling,
        "layer": layer,
        "n_sentences": {key: len(built[key][0]) for key in "XYAB"},
        "templates": "default" if templates is None else templates,
        "model": describe() if callable(describe) else None,
    }
    return seat_test(
        sets["X"], sets["Y"], sets["A"], sets["B"], n_permutations=n_permutations, random_state=random_state,
        n_bootstrap=n_bootstrap, confidence_level=confidence_level, name=name, details=details,
    )


def _encode_sets(encoder: Any, sentences: Mapping[str, Sequence[str]], *, pooling: str, layer: int, progress: bool,
                 embed_kwargs: Mapping[str, Any] | None) -> dict[str, np.ndarray]:
    """Each set's sentence vectors (rows in the set's order), every distinct sentence encoded once."""
    unique = list(dict.fromkeys(s for texts in sentences.values() for s in texts))
    encoded = np.asarray(
        embed_sentences(encoder, unique, pooling=pooling, layer=layer, progress=progress, **dict(embed_kwargs or {}))
    )
    row = {s: i for i, s in enumerate(unique)}
    return {key: encoded[[row[s] for s in texts]] for key, texts in sentences.items()}


def published_sentence_seat(
    encoder: Any,
    test: str,
    *,
    pooling: str = "mean",
    layer: int = -1,
    n_permutations: int = 100_000,
    random_state: RandomStateLike = None,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    name: str | None = None,
    progress: bool = True,
    embed_kwargs: Mapping[str, Any] | None = None,
) -> SeatResult:
    """Sentence-level SEAT (May et al. 2019) on the published sentences of a standard test.

    The sentences of ``sent-weat6`` ... ``sent-weat8b`` (:func:`seat_sentence_sets`) are encoded
    with ``probekit.embed_sentences`` (``pooling``, ``layer``) and each sentence is one item of
    :func:`seat_test`, so the numbers can be set beside published tables. (The template variant,
    probekit's bleached templates around the test's words, is :func:`sentence_seat`; the probe
    suite names it ``"weat7-templates"``.)
    """
    sets_text = seat_sentence_sets(test)
    sets = _encode_sets(encoder, {key: sets_text[key] for key in "XYAB"}, pooling=pooling, layer=layer,
                        progress=progress, embed_kwargs=embed_kwargs)
    describe = getattr(encoder, "describe", None)
    details = {
        "level": "sentence", "aggregate": "sentence", "pooling": pooling, "layer": layer,
        "sentences": f"published (sent-{str(test).strip().lower().removeprefix('sent-')}; May et al. 2019, MIT release of Liang et al. 2020)",
        "n_sentences": {key: len(sets_text[key]) for key in "XYAB"},
        "model": describe() if callable(describe) else None,
    }
    return seat_test(
        sets["X"], sets["Y"], sets["A"], sets["B"], n_permutations=n_permutations, random_state=random_state,
        n_bootstrap=n_bootstrap, confidence_level=confidence_level, name=name or test, details=details,
    )
