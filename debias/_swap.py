"""Gender swapping: the counterfactual of a text with every gendered word and first name
replaced by its counterpart (attribute swapping of Tokpo et al. 2023; CDA of Webster et al. 2020;
the counterfactual sentences of Sent-debias, Liang et al. 2020).

What changes: the attribute pairs of :mod:`wordlists` in both directions (she <-> he,
woman <-> man, queen <-> king, ...), the titles (Mrs, Ms -> Mr; Mr -> Ms; Miss <-> Mister) and
first names (Mary <-> John). Case is kept (she -> he, She -> He, SHE -> HE); everything that is
not a matched word -- punctuation, whitespace, the "'s" of "she's" and "John's" -- is copied
byte for byte.

The two ambiguous words are resolved by a small rule-based grammar of the words around them
(:mod:`debias._grammar`: closed word classes, a few small lexicons, suffix rules; no tagger):

- "her" is an object ("him") before punctuation, a preposition, conjunction, determiner,
  pronoun or adverb ("saw her.", "told her that", "gave her a book", "saw her later that
  day"), before a bare infinitive or participle after a causative or perception verb ("made
  her lose", "found her carrying", "had her buried"), before a predicative adjective ("made her
  famous") and as the first of a double object ("brought her immediate recognition"); it is a
  determiner ("his") at the start of a sentence and before a noun phrase ("her book", "her
  later years", "her ``Nerd Lover''", "her A levels", "her back pain").
- "his" is a standalone possessive ("hers": "the book is his.", "his is red") before
  punctuation or a function word, a determiner ("her": "his book", "his back") otherwise.

First names are swapped one to one (each name has one partner, the census names paired by
frequency rank), only capitalized ("Mary", "MARY"; a lower-case "hugh" or "sam" is a word) --
or in any case with ``names_case="any"``, an opt-in for uncased corpora -- and never as a surname ("Shauna Bradley", "Mr. Bradley"); names without
a partner are kept, or replaced by ``unpaired=`` (a placeholder).

So ``swap(swap(t)) == t`` for every text without "her", "his", "him" and "hers" (whose images
are ambiguous, and resolved by rules that can err) and without the words whose counterpart has
several counterparts (Mrs -> Mr -> Ms; lady -> lord, gentleman -> lady; see
:func:`unambiguous_words`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NamedTuple

from debias._gendered_words import (
    AMBIGUOUS_PRONOUNS,
    ANY,
    NAME,
    GenderedVocabulary,
    NameSpec,
    get_vocabulary,
    recase,
)
from debias._pronoun_model import Resolution, load_pronoun_model, pronoun_decision, resolve_pronoun
from debias._wordnet_lexicons import lexicon_digests
from probekit.errors import InvalidParameterError

__all__ = ["Span", "SwapResult", "describe_swap", "swap", "swap_texts", "unambiguous_words"]


class Span(NamedTuple):
    """One change: ``text[start:end]`` of the *original* text was ``original`` and became ``replacement``.

    A swapped "her" or "his" also says how it was read: ``decision`` ("object" or "determiner"
    for "her"; "determiner" or "standalone" for "his"), ``source`` ("rule": the grammar was
    certain; "model": the learned model of :mod:`debias._pronoun_model` decided) and
    ``confidence`` (1.0 for a rule, the model's probability of its decision otherwise); they are
    ``None`` for every other word. They are an audit trail, not part of the tuple: two spans are
    equal when their four fields are.
    """

    start: int
    end: int
    original: str
    replacement: str

    decision = None
    source = None
    confidence = None


class _ResolvedSpan(Span):
    """A :class:`Span` of an ambiguous "her"/"his" with the :class:`Resolution` that chose it."""

    def __new__(cls, start: int, end: int, original: str, replacement: str, resolution: Resolution):
        span = super().__new__(cls, start, end, original, replacement)
        span.decision, span.source, span.confidence = resolution
        return span

    def __repr__(self) -> str:
        return (f"Span(start={self.start}, end={self.end}, original={self.original!r}, "
                f"replacement={self.replacement!r}, decision={self.decision!r}, source={self.source!r}, "
                f"confidence={self.confidence!r})")


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
        """Whether the swap changed the text (at least one span)."""
        return bool(self.spans)

    def to_dict(self) -> dict[str, Any]:
        """``text``, ``spans`` (lists of four) and ``her_his`` (how each swapped "her"/"his" was
        read: its span's index, decision, source and confidence).
        """
        audit = [{"span": i, "decision": s.decision, "source": s.source, "confidence": s.confidence}
                 for i, s in enumerate(self.spans) if s.decision is not None]
        return {"text": self.text, "spans": [list(s) for s in self.spans], "her_his": audit}


def _replacement(
    vocabulary: GenderedVocabulary, text: str, start: int, end: int, key: str, unpaired: str | None = None,
    audit: list[Resolution] | None = None,
) -> str | None:
    """The counterpart of the match ``text[start:end]`` (lowercase ``key``) in its case, or
    ``None`` to keep it; an unpaired first name becomes ``unpaired`` when that is given. The
    reading of a "her"/"his" is appended to ``audit`` when that is given.
    """
    found = text[start:end]
    fast = vocabulary.plain_lower.get(key) if found == key else vocabulary.plain_title.get(found)
    if fast is not None:
        return fast
    return _contextual_replacement(vocabulary, text, start, end, key, unpaired, audit)


def _contextual_replacement(
    vocabulary: GenderedVocabulary, text: str, start: int, end: int, key: str, unpaired: str | None = None,
    audit: list[Resolution] | None = None,
) -> str | None:
    """:func:`_replacement` for a match that is no context-free word in its case (a name, a word under a
    context rule, "her"/"his", a case the fast tables do not hold).
    """
    found = text[start:end]
    term = vocabulary.terms[key]
    if term.rule != ANY and not vocabulary.accepts(term, text, start, end):
        return None
    counterpart = term.counterpart
    if counterpart is None:
        if key not in AMBIGUOUS_PRONOUNS:
            if unpaired is not None and term.kind == "name":
                return unpaired  # a first name without a partner, scrubbed to the placeholder
            return None  # no counterpart (diva, maid, unpaired names): only scrubbing removes it
        resolution = resolve_pronoun(key, text, start, end)  # (swap_texts asks pronoun_decision itself)
        if audit is not None:
            audit.append(resolution)
        counterpart = _COUNTERPARTS[key, resolution.decision]
    return recase(found, counterpart)


_COUNTERPARTS = {("her", "object"): "him", ("her", "determiner"): "his",
                 ("his", "standalone"): "hers", ("his", "determiner"): "her"}


def _swap_spans(vocabulary: GenderedVocabulary, text: str, unpaired: str | None = None) -> tuple[str, tuple[Span, ...]]:
    pieces: list[str] = []
    spans: list[Span] = []
    position = 0
    audit: list[Resolution] = []
    for start, end, key in vocabulary.find(text):
        replacement = _replacement(vocabulary, text, start, end, key, unpaired, audit)
        if replacement is None or replacement == text[start:end]:
            continue
        pieces.append(text[position:start])
        pieces.append(replacement)
        if key in AMBIGUOUS_PRONOUNS and audit:
            spans.append(_ResolvedSpan(start, end, text[start:end], replacement, audit.pop()))
        else:
            spans.append(Span(start, end, text[start:end], replacement))
        position = end
    if not spans:
        return text, ()
    pieces.append(text[position:])
    return "".join(pieces), tuple(spans)


def swap(
    text: str, *, names: NameSpec = "census", unpaired: str | None = None, names_case: str = "capitalized"
) -> SwapResult:
    """The gender-swapped counterfactual of ``text`` and the spans that changed.

    Parameters
    ----------
    text : str
        Any text.
    names : {"census", "builtin", "none"}, wordlists.NameLists or None, default "census"
        First names to swap: ``"census"`` (the 289 built-in pairs plus about 4,000 names of the
        1990 US Census, ``wordlists.load_names("census")``), ``"builtin"`` (the 289 pairs only),
        your own :class:`wordlists.NameLists`, or ``None`` to leave names alone. Names are
        paired one to one (the census names by frequency rank), so swapping twice gives the
        name back; the female census names beyond the male list have no partner.
    unpaired : str, optional
        What to write in place of a first name without a partner: by default (``None``) it is
        kept, so that ``swap(swap(t)) == t``; a placeholder such as ``"_"`` or ``"[NAME]"``
        scrubs it instead (the counterfactual then says nothing of the name's gender).
    names_case : {"capitalized", "any"}, default "capitalized"
        Which forms of a first name are swapped: ``"capitalized"`` ("Mary", "MARY"; a lower-case
        "mary", "hugh" or "sam" is left alone, as it is mostly an ordinary word, a typo or a
        user name), or ``"any"`` (lower case too: an opt-in for uncased corpora,
        ``swap("john and mary", names_case="any")`` gives "jane and james"). Names that are
        ordinary words (Will, Mark, Rose) are swapped only capitalized either way.

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
    _check_unpaired(unpaired)
    swapped, spans = _swap_spans(get_vocabulary(names, names_case), text, unpaired)
    return SwapResult(swapped, spans)


def _check_text(text: Any) -> None:
    if not isinstance(text, str):
        raise InvalidParameterError("text", text, "a string (use swap_texts/scrub_texts for many texts)")


def _check_unpaired(unpaired: Any) -> None:
    if unpaired is not None and not isinstance(unpaired, str):
        raise InvalidParameterError("unpaired", unpaired, "None (keep unpaired names) or a placeholder string")


def swap_texts(
    texts: Iterable[str], *, names: NameSpec = "census", unpaired: str | None = None, names_case: str = "capitalized"
) -> list[str]:
    """:func:`swap` over many texts, returning the swapped texts only (the fast path).

    Parameters
    ----------
    texts : iterable of str
        The texts; ``None`` entries are passed through unchanged (missing values in tables).
    names, unpaired, names_case : see :func:`swap`

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
    _check_unpaired(unpaired)
    vocabulary = get_vocabulary(names, names_case)
    out = []
    for text in texts:
        if text is None:
            out.append(None)
            continue
        _check_text(text)
        out.append(_swap_text(vocabulary, text, unpaired))
    return out


def _swap_text(vocabulary: GenderedVocabulary, text: str, unpaired: str | None = None) -> str:
    """:func:`_swap_spans` without building the spans (the batch path)."""
    pieces: list[str] = []
    position = 0
    plain_lower, plain_title = vocabulary.plain_lower, vocabulary.plain_title
    for start, end, key in vocabulary.find(text):
        found = text[start:end]  # the fast path of _replacement, inlined: most matches are plain words
        replacement = plain_lower.get(key) if found == key else plain_title.get(found)
        if replacement is None:
            if key in AMBIGUOUS_PRONOUNS:  # "her"/"his" count in any context: only their reading is asked
                counterpart = _COUNTERPARTS[key, pronoun_decision(key, text, start, end)]
                replacement = counterpart if found == key else recase(found, counterpart)
            else:
                replacement = _contextual_replacement(vocabulary, text, start, end, key, unpaired)
        if replacement is not None:
            pieces.append(text[position:start])
            pieces.append(replacement)
            position = end
    if not pieces:
        return text
    pieces.append(text[position:])
    return "".join(pieces)


def describe_swap(
    names: NameSpec = "census", unpaired: str | None = None, names_case: str = "capitalized"
) -> dict[str, Any]:
    """Provenance of :func:`swap` with ``names``: the lists used and their digests, the rules,
    how the names are paired and how many are left unpaired (and what becomes of them), and
    which case of a name counts (``names_case``).
    """
    _check_unpaired(unpaired)
    described = {"intervention": "swap", **get_vocabulary(names, names_case).describe()}
    if described["name_list"] is not None:
        described["name_list"]["unpaired_names"] = "kept" if unpaired is None else f"replaced by {unpaired!r}"
    described["her_his_rules"] = ("debias._grammar, debias._grammar_certain and debias._grammar_constructions: "
                                  "rule-based, closed word classes, WordNet lexicons and suffix rules")
    described["her_his_lexicons"] = lexicon_digests()
    described["her_his_model"] = {
        **load_pronoun_model().describe(),
        "use": "the grammar where it is certain (punctuation, sentence start, compound, preposition, determiner "
               "or pronoun after the slot) and the construction rules where they apply; the model elsewhere",
    }
    return described


def unambiguous_words(names: NameSpec = "census") -> tuple[str, ...]:
    """Words (lowercase) that swap back to themselves in any context: ``swap(swap(w)) == w``.

    Leaves out "her", "his", "him", "hers", words with several counterparts and words whose
    counterpart has several, words matched only in some contexts (titles, names that are ordinary
    words or places, master, host, ...) and words without a counterpart (unpaired names). Paired
    first names are in: they are matched under one rule (capitalized, or any case with
    ``names_case="any"``; not as a surname) that their partner meets in the same place.
    """
    vocabulary = get_vocabulary(names)
    terms = vocabulary.terms
    out = []
    for key, term in terms.items():
        if term.counterpart is None or term.rule not in (ANY, NAME) or "’" in key or key in ("him", "hers"):
            continue
        back = terms.get(term.counterpart.lower())
        if back is None or back.rule != term.rule or back.counterpart is None or back.counterpart.lower() != key:
            continue
        out.append(key)
    return tuple(sorted(out))
