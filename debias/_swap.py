"""Gender swapping: the counterfactual of a text with every gendered word and first name
replaced by its counterpart (attribute swapping of Tokpo et al. 2023; CDA of Webster et al. 2020;
the counterfactual sentences of Sent-debias, Liang et al. 2020).

What changes: the attribute pairs of :mod:`wordlists` in both directions (she <-> he,
woman <-> man, queen <-> king, ...), the titles (Mrs, Ms -> Mr; Mr -> Ms; Miss <-> Mister) and
first names (Mary <-> John). Case is kept (she -> he, She -> He, SHE -> HE); everything that is
not a matched word -- punctuation, whitespace, the "'s" of "she's" and "John's" -- is copied
byte for byte.

The two ambiguous words are resolved from the next token, with closed word classes only:

- "her" is an object ("him") when the next token is punctuation, the end of the text, or a
  word that cannot start the noun phrase a possessive determiner would govern -- a preposition,
  conjunction, determiner, pronoun, auxiliary, particle or adverb such as "too"/"again" ("saw
  her.", "told her that", "gave her a book", "let her go"); otherwise a determiner ("his": "her
  book", "her own", "her 30s").
- "his" is a standalone possessive ("hers": "the book is his.", "his is red") under the same
  test, a determiner ("her": "his book") otherwise.

So ``swap(swap(t)) == t`` for every text without "her", "his", "him" and "hers" (whose images
are ambiguous) and without the words whose counterpart has several counterparts (Mrs -> Mr ->
Ms; lady -> lord, gentleman -> lady; see :func:`unambiguous_words`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, NamedTuple

from debias._gendered_words import (
    AMBIGUOUS_PRONOUNS,
    ANY,
    GenderedVocabulary,
    NameSpec,
    get_vocabulary,
    next_token,
    recase,
)
from probekit.errors import InvalidParameterError

__all__ = ["Span", "SwapResult", "swap", "swap_texts", "describe_swap", "unambiguous_words", "NOT_NOUN_PHRASE_START"]


class Span(NamedTuple):
    """One change: ``text[start:end]`` of the *original* text was ``original`` and became ``replacement``."""

    start: int
    end: int
    original: str
    replacement: str


@dataclass(frozen=True)
class SwapResult:
    """The swapped text and what changed.

    Attributes
    ----------
    text : str
        The counterfactual text.
    spans : tuple of Span
        Every replaced word, in order, with its position in the original text.
    """

    text: str
    spans: tuple[Span, ...]

    @property
    def changed(self) -> bool:
        return bool(self.spans)

    def to_dict(self) -> dict[str, Any]:
        return {"text": self.text, "spans": [list(s) for s in self.spans]}


# Closed word classes after which "her" is an object and "his" stands alone: they cannot begin
# the noun phrase that a possessive determiner governs. Nouns, adjectives, numbers and -ing/-ed
# forms are open classes and are left out on purpose, so the default is the determiner reading.
# Words that are often nouns after "her" ("her will", "her take", "her answer", "her past",
# "her home", "her first/only/last ...", "her talk") are left out too.
NOT_NOUN_PHRASE_START: frozenset[str] = frozenset(
    # prepositions
    "about above across after against along amid among around as at before behind below beneath beside "
    "besides between beyond by despite down during except for from in inside into like near of off on onto "
    "out outside over per since than through throughout till to toward towards under underneath until up "
    "upon via with within without "
    # conjunctions and complementizers
    "and or but nor so yet because although though while whereas unless whether if that "
    # determiners and quantifiers
    "a an the this these those some any no every each all both another such either neither "
    # wh-words
    "what which whose whom who whatever whoever how why when where "
    # pronouns
    "i you he she it we they me him her us them my your his its our their mine yours hers ours theirs "
    "myself yourself himself herself itself ourselves yourselves themselves "
    "someone something anything nothing everything everyone anyone nobody somebody anybody everybody "
    # auxiliaries and modals ("will" is left out: "her will")
    "is are was were am be been being has have had do does did would can could should shall may might must "
    "isn aren wasn weren hasn haven hadn doesn didn wouldn couldn shouldn won can't cannot "
    # particles and adverbs
    "back away aside along around together apart too again now then there here today tonight tomorrow "
    "yesterday already also always never often sometimes still soon later once twice enough much not "
    "just even ever anyway anymore instead though well almost quite rather "
    # verbs that are rarely nouns, as bare infinitives after an object ("let her go")
    "go come know feel say tell think see hear stay cry laugh sing speak become believe understand "
    "remember forget seem try wait die decide realize realise explain agree get make give let want "
    "keep bring".split()
)

_COORDINATORS = frozenset({"and", "or"})
_DETERMINER_PRONOUNS = frozenset({"her", "his", "their", "my", "your", "its", "our"})


def noun_phrase_follows(text: str, end: int) -> bool:
    """Whether the token after ``end`` can begin a noun phrase governed by a possessive determiner.

    Rule-based, closed word classes only (see :data:`NOT_NOUN_PHRASE_START`): punctuation and the
    end of the text say no; a word followed by a hyphen says yes ("her well-being"); "and"/"or"
    followed by another possessive determiner says yes ("his and her children").
    """
    word, _, after = next_token(text, end)
    if word is None:
        return False
    low = word.lower()
    if low in NOT_NOUN_PHRASE_START:
        if text.startswith("-", after) and after + 1 < len(text) and text[after + 1].isalnum():
            return True  # compound modifier: "her all-time favourite", "her well-known book"
        if low in _COORDINATORS:
            second, _, _ = next_token(text, after)
            return second is not None and second.lower() in _DETERMINER_PRONOUNS
        return False
    return True


def _replacement(vocabulary: GenderedVocabulary, text: str, start: int, end: int, key: str) -> str | None:
    """The counterpart of the match ``text[start:end]`` (lowercase ``key``) in its case, or
    ``None`` to keep it.
    """
    found = text[start:end]
    if found == key:
        fast = vocabulary.plain_lower.get(key)
        if fast is not None:
            return fast
    else:
        fast = vocabulary.plain_title.get(found)
        if fast is not None:
            return fast
    term = vocabulary.terms[key]
    if term.rule != ANY and not vocabulary.accepts(term, text, start, end):
        return None
    counterpart = term.counterpart
    if counterpart is None:
        if key not in AMBIGUOUS_PRONOUNS:
            return None  # no counterpart (diva, maid, ...): only scrubbing removes it
        if key == "her":
            counterpart = "his" if noun_phrase_follows(text, end) else "him"
        else:
            counterpart = "her" if noun_phrase_follows(text, end) else "hers"
    return recase(found, counterpart)


def _swap_spans(vocabulary: GenderedVocabulary, text: str) -> tuple[str, tuple[Span, ...]]:
    pieces: list[str] = []
    spans: list[Span] = []
    position = 0
    for start, end, key in vocabulary.find(text):
        replacement = _replacement(vocabulary, text, start, end, key)
        if replacement is None or replacement == text[start:end]:
            continue
        pieces.append(text[position:start])
        pieces.append(replacement)
        spans.append(Span(start, end, text[start:end], replacement))
        position = end
    if not spans:
        return text, ()
    pieces.append(text[position:])
    return "".join(pieces), tuple(spans)


def swap(text: str, *, names: NameSpec = "census") -> SwapResult:
    """The gender-swapped counterfactual of ``text`` and the spans that changed.

    Parameters
    ----------
    text : str
        Any text.
    names : {"census", "builtin", "none"}, wordlists.NameLists or None, default "census"
        First names to swap: ``"census"`` (the 289 built-in pairs plus about 4,000 names of the
        1990 US Census, ``wordlists.load_names("census")``), ``"builtin"`` (the 289 pairs only),
        your own :class:`wordlists.NameLists`, or ``None`` to leave names alone.

    Returns
    -------
    SwapResult
        ``text`` (the counterfactual) and ``spans`` (each change with its position in the
        original text).

    Examples
    --------
    >>> swap("She said her brother's friend, Mr. Smith, saw her.").text
    "He said his sister's friend, Ms. Smith, saw him."
    >>> swap("The book is his.").text
    'The book is hers.'
    """
    _check_text(text)
    swapped, spans = _swap_spans(get_vocabulary(names), text)
    return SwapResult(swapped, spans)


def _check_text(text: Any) -> None:
    if not isinstance(text, str):
        raise InvalidParameterError("text", text, "a string (use swap_texts/scrub_texts for many texts)")


def swap_texts(texts: Iterable[str], *, names: NameSpec = "census") -> list[str]:
    """:func:`swap` over many texts, returning the swapped texts only (the fast path).

    Parameters
    ----------
    texts : iterable of str
        The texts; ``None`` entries are passed through unchanged (missing values in tables).
    names : see :func:`swap`

    Returns
    -------
    list of str
        ``swap(t).text`` for each ``t``, in order.

    Examples
    --------
    Counterfactual pairs for Sent-debias or two-sided CDA:

    >>> originals = ["She is a nurse.", "My brother called."]
    >>> list(zip(originals, swap_texts(originals)))
    [('She is a nurse.', 'He is a nurse.'), ('My brother called.', 'My sister called.')]
    """
    if isinstance(texts, str):
        raise InvalidParameterError("texts", texts, "a list of strings, not one string (use swap for one text)")
    vocabulary = get_vocabulary(names)
    out = []
    for text in texts:
        if text is None:
            out.append(None)
            continue
        _check_text(text)
        out.append(_swap_text(vocabulary, text))
    return out


def _swap_text(vocabulary: GenderedVocabulary, text: str) -> str:
    """:func:`_swap_spans` without building the spans (the batch path)."""
    pieces: list[str] = []
    position = 0
    for start, end, key in vocabulary.find(text):
        replacement = _replacement(vocabulary, text, start, end, key)
        if replacement is not None:
            pieces.append(text[position:start])
            pieces.append(replacement)
            position = end
    if not pieces:
        return text
    pieces.append(text[position:])
    return "".join(pieces)


def describe_swap(names: NameSpec = "census") -> dict[str, Any]:
    """Provenance of :func:`swap` with ``names``: the lists used and their digests, the rules."""
    return {"intervention": "swap", **get_vocabulary(names).describe()}


def unambiguous_words(names: NameSpec = "census") -> tuple[str, ...]:
    """Words (lowercase) that swap back to themselves in any context: ``swap(swap(w)) == w``.

    Leaves out "her", "his", "him", "hers", words with several counterparts and words whose
    counterpart has several, words matched only in some contexts (titles, names that are ordinary
    words, master, host, ...) and words without a counterpart.
    """
    vocabulary = get_vocabulary(names)
    terms = vocabulary.terms
    out = []
    for key, term in terms.items():
        if term.counterpart is None or term.rule != ANY or "’" in key or key in ("him", "hers"):
            continue
        back = terms.get(term.counterpart.lower())
        if back is None or back.rule != ANY or back.counterpart is None or back.counterpart.lower() != key:
            continue
        out.append(key)
    return tuple(sorted(out))
