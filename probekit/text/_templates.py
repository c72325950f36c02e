"""The built-in template corpus: sentence frames filled with words, and the indefinite article."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from importlib import resources
from typing import Any, Iterable, Mapping

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.text._corpus import Corpus
from wordlists import SLOT_TYPES, builtin_words, slot_types

_PLACEHOLDERS = re.compile(r"\{(w|W|a|A)\}")

# Words spelled with a vowel letter but pronounced with a consonant sound, and the reverse.
_A_BEFORE_VOWEL_LETTER = re.compile(
    r"^(?:one(?!r)|once|uni(?!n|mp)|use|usu|uran|ure|uro|euro|eu|ewe|uga|ute|utop|ubiq|u$)", re.I
)
_AN_BEFORE_CONSONANT_LETTER = re.compile(r"^(?:hour|heir|honest|honou?r)", re.I)


def indefinite_article(word: str) -> str:
    """``"a"`` or ``"an"`` for ``word``, by its first sound as far as spelling tells it.

    A vowel letter takes "an" ("an actress", "an uncle"), except where it is spoken as a
    consonant ("a uniform", "a ewe", "a user", "a one-off"); a silent h takes "an" ("an heir",
    "an heiress", "an hour", "an honest"). Abbreviations read letter by letter ("FBI") are
    not recognized.
    """
    w = word.strip().lstrip("\"'(\u201c\u2018")
    if not w:
        return "a"
    if _AN_BEFORE_CONSONANT_LETTER.match(w):
        return "an"
    if _A_BEFORE_VOWEL_LETTER.match(w):
        return "a"
    return "an" if w[0].lower() in "aeiou" else "a"


@functools.lru_cache(maxsize=None)
def _frames(slot: str) -> tuple[str, ...]:
    path = resources.files("probekit") / "data" / "templates" / f"{slot}.txt"
    text = path.read_text(encoding="utf-8")
    frames = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            frames.append(line)
    return tuple(frames)


def template_frames(slot_type: str) -> tuple[str, ...]:
    """The built-in frames of one slot type (``{w}`` word, ``{W}`` capitalized, ``{a}``/``{A}`` article)."""
    if slot_type not in SLOT_TYPES:
        raise InvalidParameterError("slot_type", slot_type, SLOT_TYPES)
    return _frames(slot_type)


def _fill(frame: str, word: str) -> str:
    article = indefinite_article(word)

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "w":
            return word
        if key == "W":
            return word[:1].upper() + word[1:]
        if key == "a":
            return article
        return article.capitalize()

    return _PLACEHOLDERS.sub(repl, frame)


def _resolve_words(words: Any) -> list[tuple[str, tuple[str, ...]]]:

    if words is None:
        return [(w, slot_types(w)) for w in builtin_words()]
    if isinstance(words, str):
        raise InvalidParameterError("words", words, "a list of words or a mapping word -> slot type, not one string")
    resolved: list[tuple[str, tuple[str, ...]]] = []
    if isinstance(words, Mapping):
        items = list(words.items())
    else:
        items = [(w, None) for w in words]
    if not items:
        raise InvalidParameterError("words", words, "at least one word")
    for word, given in items:
        if not isinstance(word, str) or not word.strip():
            raise InvalidParameterError("words", word, "non-empty strings")
        if given is None:
            types = slot_types(word)
        else:
            types = (given,) if isinstance(given, str) else tuple(given)
            unknown = [t for t in types if t not in SLOT_TYPES]
            if unknown or not types:
                raise InvalidParameterError(f"words[{word!r}]", given, SLOT_TYPES)
        resolved.append((word.strip(), types))
    return resolved


def template_corpus(
    words: Iterable[str] | Mapping[str, str | Sequence[str]] | None = None,
    *,
    frames_per_word: int | None = None,
    random_state: int | np.random.Generator | None = None,
    name: str = "templates",
) -> Corpus:
    """The built-in template corpus: each word placed into every natural frame of its slot type.

    The frames (``probekit/data/templates/<slot type>.txt``, at least 100 per slot type) were
    written for probekit and contain no gendered word, no first name and no stereotype or SEAT
    word, so a sentence made for a stereotype word contains no attribute word. Articles are
    chosen for the word ("an actress", "a nurse", "an heir").

    Parameters
    ----------
    words : sequence of str or mapping, optional
        The words. Default: every attribute, stereotype and SEAT word of the built-in lists
        (:func:`wordlists.builtin_words`). A sequence of words uses the built-in slot types
        (:func:`wordlists.slot_types`); a mapping gives each word's slot type(s) explicitly,
        e.g. ``{"midwife": "person_singular"}``.
    frames_per_word : int, optional
        Use this many frames per word, drawn without replacement with ``random_state``
        (default: all frames, no randomness).
    random_state : int, numpy Generator or None
        Seed for ``frames_per_word``.
    name : str
        Corpus name.

    Returns
    -------
    Corpus
        Sentences grouped by word in the order given, frames in file order; duplicates dropped.
    """
    if frames_per_word is not None and (
        isinstance(frames_per_word, bool) or not isinstance(frames_per_word, (int, np.integer)) or frames_per_word < 1
    ):
        raise InvalidParameterError("frames_per_word", frames_per_word, "a positive integer or None")
    resolved = _resolve_words(words)
    rng = np.random.default_rng(random_state) if frames_per_word is not None else None
    sentences: dict[str, None] = {}
    used_types: set[str] = set()
    for word, types in resolved:
        frames = [f for t in types for f in _frames(t)]
        used_types.update(types)
        if rng is not None and frames_per_word is not None and frames_per_word < len(frames):
            keep = np.sort(rng.choice(len(frames), size=frames_per_word, replace=False))
            frames = [frames[i] for i in keep]
        for frame in frames:
            sentences.setdefault(_fill(frame, word), None)
    n_frames = sum(len(_frames(t)) for t in SLOT_TYPES if t in used_types)
    source = (
        f"probekit built-in template corpus: {len(resolved)} words in {n_frames} frames of "
        f"{len(used_types)} slot types"
    )
    if frames_per_word is not None:
        source += f", {frames_per_word} frames per word (random_state={random_state!r})"
    return Corpus(tuple(sentences), name=name, source=source)
