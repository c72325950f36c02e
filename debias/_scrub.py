"""Attribute scrubbing: remove every gendered word and first name from a text (the "attribute
scrubbing" training-data setting of Tokpo et al. 2023, after De-Arteaga et al. 2019).

The words removed are those :func:`debias.swap` would change -- the attribute pairs of
:mod:`wordlists` and their extra counterparts, the titles Mr/Mrs/Ms/Miss/Mister, first names --
plus the paper's attribute words that have no counterpart (diva, maid, womb, ...), under the
same whole-word matching and context rules (see :mod:`debias._gendered_words`): "shell",
"manager" and "Hermann" stay, "10 ms" stays, "a Master's degree" stays.

Without a placeholder the word goes with its clitic ("she's" -> "", "John's" -> "") and a title
with its full stop ("Mr." -> ""), and the text is tidied so that it stays readable: no doubled
space where a word was, no space before punctuation ("I saw her." -> "I saw."), none after an
opening bracket. With a placeholder ("_") only the word itself is replaced and nothing else moves.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Iterable

from debias._gendered_words import ANY, GenderedVocabulary, NameSpec, get_vocabulary
from debias._swap import Span, _check_text
from probekit.errors import InvalidParameterError

__all__ = ["ScrubResult", "scrub", "scrub_texts", "describe_scrub"]

_CLITIC = re.compile(r"['’](?:s|d|ll|re|ve|m)(?!\w)", re.IGNORECASE)
_HORIZONTAL_SPACE = " \t"
# After one of these the next word needs no space before it.
_OPENING = frozenset("([{“‘«")
# Before one of these no space is wanted.
_CLOSING = frozenset(".,;:!?)]}”’»…%")


@dataclass(frozen=True)
class ScrubResult:
    """The scrubbed text and what was removed.

    Attributes
    ----------
    text : str
        The text without gendered words and first names.
    spans : tuple of Span
        Every removed word with its position in the original text; ``replacement`` is the
        placeholder or ``""``. Without a placeholder the span covers the word with its clitic
        ("she's") or a title's full stop ("Mr."); the whitespace tidied around it is not listed.
    """

    text: str
    spans: tuple[Span, ...]

    @property
    def changed(self) -> bool:
        """Whether scrubbing changed the text (at least one span)."""
        return bool(self.spans)

    def to_dict(self) -> dict[str, Any]:
        """The scrubbed text and its removed spans as a JSON-ready dict."""
        return {"text": self.text, "spans": [list(s) for s in self.spans]}


def _check_placeholder(placeholder: str | None) -> None:
    if placeholder is not None and not isinstance(placeholder, str):
        raise InvalidParameterError("placeholder", placeholder, "a string (e.g. '_') or None to delete words")


def _removals(vocabulary: GenderedVocabulary, text: str, *, whole: bool) -> list[tuple[int, int]]:
    """Spans to remove: the accepted matches, with clitic or title full stop when ``whole``."""
    spans = []
    terms = vocabulary.terms
    for start, end, key in vocabulary.find(text):
        term = terms[key]
        if term.rule != ANY and not vocabulary.accepts(term, text, start, end):
            continue
        if whole:
            if term.kind == "title" and text.startswith(".", end):
                end += 1
            else:
                clitic = _CLITIC.match(text, end)
                if clitic:
                    end = clitic.end()
        spans.append((start, end))
    return spans


def _delete(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` without ``spans``, with the spacing around each hole tidied."""
    out: list[str] = []
    position = 0
    for start, end in spans:
        out.append(text[position:start])
        position = end
        after = position
        while after < len(text) and text[after] in _HORIZONTAL_SPACE:
            after += 1
        following = text[after:after + 1]
        if not following or following in _CLOSING or following in "\r\n":
            # the hole ends a line or stands before punctuation: no space before either
            _strip_trailing_space(out)
            position = after
        elif after > position:
            last = _last_char(out)
            if last is None or last in _HORIZONTAL_SPACE or last in _OPENING or last == "\n":
                position = after
    out.append(text[position:])
    return "".join(out)


def _last_char(out: list[str]) -> str | None:
    for piece in reversed(out):
        if piece:
            return piece[-1]
    return None


def _strip_trailing_space(out: list[str]) -> None:
    for i in range(len(out) - 1, -1, -1):
        stripped = out[i].rstrip(_HORIZONTAL_SPACE)
        out[i] = stripped
        if stripped:
            return


def _scrub_text(vocabulary: GenderedVocabulary, text: str, placeholder: str | None) -> str:
    removals = _removals(vocabulary, text, whole=placeholder is None)
    if not removals:
        return text
    if placeholder is None:
        return _delete(text, removals)
    return _fill(text, removals, placeholder)


def _fill(text: str, removals: list[tuple[int, int]], placeholder: str) -> str:
    pieces, position = [], 0
    for s, e in removals:
        pieces += [text[position:s], placeholder]
        position = e
    pieces.append(text[position:])
    return "".join(pieces)


def scrub(
    text: str, *, placeholder: str | None = None, names: NameSpec = "census", names_case: str = "capitalized"
) -> ScrubResult:
    """``text`` without gendered words and first names (attribute scrubbing).

    Parameters
    ----------
    text : str
        Any text.
    placeholder : str, optional
        Put this in place of each removed word ("_", "[MASK]"); by default words are deleted and
        the spacing tidied.
    names : {"census", "builtin", "none"}, wordlists.NameLists or None, default "census"
        First names to remove (see :func:`debias.swap`).
    names_case : {"capitalized", "any"}, default "capitalized"
        Remove first names only capitalized ("Mary", "MARY"), or in any case (``"any"``: "mary"
        too, an opt-in for uncased corpora); see :func:`debias.swap`.

    Returns
    -------
    ScrubResult
        ``text`` and the removed ``spans``.

    Examples
    --------
    >>> scrub("Mr. Smith told her that Mary's brother is a nurse.").text
    'Smith told that is a nurse.'
    >>> scrub("She is a manager.", placeholder="_").text
    '_ is a manager.'
    """
    _check_placeholder(placeholder)
    _check_text(text)
    vocabulary = get_vocabulary(names, names_case)
    removals = _removals(vocabulary, text, whole=placeholder is None)
    if not removals:
        return ScrubResult(text, ())
    spans = tuple(Span(s, e, text[s:e], placeholder or "") for s, e in removals)
    if placeholder is None:
        return ScrubResult(_delete(text, removals), spans)
    return ScrubResult(_fill(text, removals, placeholder), spans)


def scrub_texts(
    texts: Iterable[str], *, placeholder: str | None = None, names: NameSpec = "census", names_case: str = "capitalized"
) -> list[str]:
    """:func:`scrub` over many texts, returning the scrubbed texts only (``names_case`` as in :func:`scrub`).

    ``None`` entries (missing values in tables) are passed through unchanged.
    """
    _check_placeholder(placeholder)
    if isinstance(texts, str):
        raise InvalidParameterError("texts", texts, "a list of strings, not one string (use scrub for one text)")
    vocabulary = get_vocabulary(names, names_case)
    out = []
    for text in texts:
        if text is None:
            out.append(None)
            continue
        _check_text(text)
        out.append(_scrub_text(vocabulary, text, placeholder))
    return out


def describe_scrub(
    placeholder: str | None = None, names: NameSpec = "census", names_case: str = "capitalized"
) -> dict[str, Any]:
    """Provenance of :func:`scrub`: the lists used and their digests, the placeholder, ``names_case``."""
    return {"intervention": "scrub", "placeholder": placeholder, **get_vocabulary(names, names_case).describe()}
