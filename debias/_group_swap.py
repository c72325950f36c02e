"""Counterfactuals for attributes with k groups (race, religion, registered ones): swap to a
chosen group, swap two groups, one counterfactual per other group, k-group CDA, and scrubbing.

Terms come from :func:`wordlists.get_attribute`: a table of aligned counterparts (one column per
group) with context rules for ambiguous words. Matching is by whole word: a token is a maximal run
of letters and inner hyphens ("African-American" is one token, "anti-Muslim" another), so a group
term inside another word ("Blackpool", "whiteboard", "Islamabad", "Jewishness", "churchyard") or
a hyphenated compound is never touched. Entries written with a capital (first names) match only
capitalized words. Case follows the original ("BLACK" -> "WHITE", "Jewish" -> "Muslim").

A term is replaced only when its counterpart would be read back as the same row's term of its
group in the same context (the context rules are in the attribute's ambiguity map): "Asian
cuisine" is not turned into "black cuisine" (``black`` is a race term only before a person noun),
so swapping two groups and swapping them again restores the text.

For gender use :func:`debias.swap`, which resolves her -> his | him by grammar; here gender is
supported by :func:`swap_groups` and :func:`group_counterfactuals` through it.
"""

from __future__ import annotations

import functools
import logging
import random
import re
from dataclasses import dataclass
from typing import Any, Iterable

import numpy as np

import wordlists
from debias._swap import swap
from probekit.errors import InvalidParameterError
from probekit.text import Corpus, WordMatcher, as_corpus

__all__ = [
    "GroupTerm",
    "find_group_terms",
    "group_cda",
    "group_context_corpus",
    "group_counterfactuals",
    "scrub_attribute",
    "survey_ternary_cda",
    "survey_ternary_augment",
    "swap_groups",
    "swap_to_group",
]

logger = logging.getLogger(__name__)

_LETTERS = r"[^\W\d_]"
_TOKEN = re.compile(rf"(?<![\w-]){_LETTERS}+(?:-{_LETTERS}+)*(?![\w-])")
_NEXT = re.compile(rf"[ \t]+({_LETTERS}+(?:-{_LETTERS}+)*)")

#: Function words: after one of these an adjective_noun word is read as a noun ("a Christian who").
FUNCTION_WORDS = frozenset(
    "a an the and or but nor so yet for of in on at by to from with without into onto over under about as than "
    "who whom whose which that this these those what when where why how is are was were be been being am has have "
    "had do does did will would shall should can could may might must not no if then there here it its he she they "
    "we you i me him her them us my your our their his hers".split()
)


@dataclass(frozen=True)
class GroupTerm:
    """One group term found in a text: ``text[start:end]`` is ``word``, a term of ``group`` in ``row``."""

    start: int
    end: int
    word: str
    group: str
    row: int


@dataclass(frozen=True)
class _Index:
    attribute: wordlists.Attribute
    cells: dict[str, tuple[tuple[int, int, bool], ...]]  # lowercase word -> (row, group, capital only)


@functools.lru_cache(maxsize=32)
def _index_of(attribute: wordlists.Attribute) -> _Index:
    cells: dict[str, list[tuple[int, int, bool]]] = {}
    for r, row in enumerate(attribute.rows):
        for g, cell in enumerate(row):
            if cell is not None:
                cells.setdefault(cell.lower(), []).append((r, g, cell != cell.lower()))
    index = _Index(attribute, {w: tuple(v) for w, v in cells.items()})
    _warn_unswappable(index)
    return index


def _first_row(index: _Index, word: str, group: int) -> int | None:
    return next((r for r, g, _ in index.cells.get(word.lower(), ()) if g == group), None)


def _warn_unswappable(index: _Index) -> None:
    """Say once per attribute which terms never change to a group: their counterpart there is listed in
    several rows of that group, so it would read back as another row's term and swapping back would not
    restore the text (the round-trip rule of :func:`swap_groups` then leaves the term as it is).
    """
    attribute, blocked = index.attribute, []
    for r, row in enumerate(attribute.rows):
        for g, cell in enumerate(row):
            if cell is None or _first_row(index, cell, g) != r:  # a cell shadowed by an earlier row is never a source
                continue
            for target, new in enumerate(row):
                if new is None or target == g or "adjective_noun" in attribute.rules.get(new.lower(), ()):
                    continue
                rows = [rr for rr, gg, _ in index.cells.get(new.lower(), ()) if gg == target]
                if len(rows) > 1 and rows[0] != r:
                    blocked.append(f"{cell} -> {attribute.groups[target]} ({new!r} is in rows {', '.join(map(str, rows))})")
    if blocked:
        logger.warning("%d term(s) of attribute %r are never swapped to a group because their counterpart is listed in "
                       "several rows of that group (it would read back as another row's term): %s%s. List each term "
                       "in one row per group to swap them.", len(blocked), attribute.name, "; ".join(blocked[:8]),
                       "; ..." if len(blocked) > 8 else "")


def _attribute(attribute: Any) -> wordlists.Attribute:
    return attribute if isinstance(attribute, wordlists.Attribute) else wordlists.get_attribute(attribute)


def _check_text(text: Any) -> str:
    if not isinstance(text, str):
        raise InvalidParameterError("text", type(text).__name__, "a string")
    return text


def _next_word(text: str, end: int) -> str:
    m = _NEXT.match(text, end)
    return m.group(1) if m else ""


def _resolve(index: _Index, token: str, group: int, following: str) -> int | None:
    """Row of ``token`` as a term of column ``group`` before ``following``; None if not a term there."""
    key = token.lower()
    rows = [r for r, g, capital in index.cells.get(key, ()) if g == group and (not capital or token[:1].isupper())]
    if not rows:
        return None
    attribute = index.attribute
    rules = attribute.rules.get(key, ())
    if "grammar" in rules:
        return None
    if "person" in rules and following.lower() not in attribute.person_nouns:
        return None
    if "not_before_capitalized" in rules and following[:1].isupper():
        return None
    if len(rows) > 1 and "adjective_noun" in rules:
        content = bool(following) and following.lower() not in FUNCTION_WORDS
        return rows[0] if content else rows[-1]
    return rows[0]


def _terms(index: _Index, text: str) -> list[GroupTerm]:
    found = []
    groups = index.attribute.groups
    for m in _TOKEN.finditer(text):
        token = m.group(0)
        entries = index.cells.get(token.lower())
        if not entries:
            continue
        following = _next_word(text, m.end())
        for g in dict.fromkeys(g for _, g, _ in entries):
            row = _resolve(index, token, g, following)
            if row is not None:
                found.append(GroupTerm(m.start(), m.end(), token, groups[g], row))
                break
    return found


def find_group_terms(text: str, attribute: Any) -> tuple[GroupTerm, ...]:
    """Every group term of ``attribute`` in ``text``, in order, under the context rules.

    Parameters
    ----------
    text : str
    attribute : str or wordlists.Attribute
        ``"race"``, ``"religion"``, a registered name or an :class:`~wordlists.Attribute`.

    Returns
    -------
    tuple of GroupTerm
    """
    return tuple(_terms(_index_of(_attribute(attribute)), _check_text(text)))


def _match_case(template: str, word: str) -> str:
    """``word`` in the case pattern of ``template``, hyphenated part by part ("African-American")."""
    parts, template_parts = word.split("-"), template.split("-")
    if len(parts) > 1 and len(parts) == len(template_parts):
        return "-".join(wordlists.match_case(t, w) for t, w in zip(template_parts, parts))
    return wordlists.match_case(template, word)


def _replace(index: _Index, text: str, mapping: dict[int, int]) -> str:
    """Replace each term of a group g in ``mapping`` by its row's counterpart in group mapping[g]."""
    attribute = index.attribute
    out, last = [], 0
    for term in _terms(index, text):
        source = attribute.groups.index(term.group)
        target = mapping.get(source)
        if target is None or target == source:
            continue
        new = attribute.rows[term.row][target]
        if new is None:
            continue
        # Only where the counterpart reads back as the same row's term in this context.
        if _resolve(index, _match_case(term.word, new), target, _next_word(text, term.end)) != term.row:
            continue
        out.append(text[last:term.start])
        out.append(_match_case(term.word, new))
        last = term.end
    out.append(text[last:])
    return "".join(out)


def _no_grammar(attribute: wordlists.Attribute, what: str) -> None:
    if any("grammar" in r for r in attribute.rules.values()):
        raise InvalidParameterError(
            "attribute", attribute.name, "an attribute without grammar-resolved words",
            f"{what} of {attribute.name!r} needs the grammar of debias.swap (her -> his | him); use debias.swap",
        )


def swap_to_group(text: str, attribute: Any, group: str) -> str:
    """``text`` with the terms of every other group replaced by ``group``'s counterparts.

    "the mosque and the synagogue" -> (christian) "the church and the church". Terms without a
    counterpart in ``group`` stay. Not invertible when the text names several groups; use
    :func:`swap_groups` for a counterfactual that swaps back.
    """
    attr = _attribute(attribute)
    _no_grammar(attr, "swap_to_group")
    target = attr.group_index(group)
    return _replace(_index_of(attr), _check_text(text), {g: target for g in range(attr.k)})


def swap_groups(text: str, attribute: Any, group_a: str, group_b: str) -> str:
    """``text`` with the terms of ``group_a`` and ``group_b`` exchanged (the others stay).

    An involution where every replaced term reads back in its context: swapping twice restores
    the text. For gender this is :func:`debias.swap`.
    """
    attr = _attribute(attribute)
    a, b = attr.group_index(group_a), attr.group_index(group_b)
    if a == b:
        raise InvalidParameterError("group_b", group_b, f"a group other than group_a ({group_a!r})")
    if attr.name == "gender" and any("grammar" in r for r in attr.rules.values()):
        return swap(_check_text(text)).text
    return _replace(_index_of(attr), _check_text(text), {a: b, b: a})


def _source_group(terms: Iterable[GroupTerm], groups: tuple[str, ...]) -> str | None:
    counts = {g: 0 for g in groups}
    for t in terms:
        counts[t.group] += 1
    best = max(groups, key=lambda g: counts[g])
    return best if counts[best] else None


def _gender_counterfactual(text: str, attribute: wordlists.Attribute) -> dict[str, str]:
    """Gender's one counterfactual (:func:`debias.swap`), keyed by the group it is about."""
    result = swap(text)
    if not result.spans:
        return {}
    found = [attribute.groups_of(s.original)[:1] for s in result.spans]
    counts = {g: sum(f == (g,) for f in found) for g in attribute.groups}
    source = max(attribute.groups, key=lambda g: counts[g])
    return {next(g for g in attribute.groups if g != source): result.text}


def group_counterfactuals(text: str, attribute: Any) -> dict[str, str]:
    """One counterfactual per other group: ``{group: swap_groups(text, source, group)}``.

    The source group is the group with the most terms in ``text`` (ties: the attribute's order);
    a text without terms has no counterfactuals (``{}``). For gender: ``{other group:
    debias.swap(text).text}``.
    """
    attr = _attribute(attribute)
    if attr.name == "gender":
        return _gender_counterfactual(_check_text(text), attr)
    source = _source_group(find_group_terms(text, attr), attr.groups)
    if source is None:
        return {}
    return {g: swap_groups(text, attr, source, g) for g in attr.groups if g != source}


def _random(random_state: Any) -> random.Random:
    if isinstance(random_state, random.Random):
        return random_state
    if random_state is None or isinstance(random_state, (int, np.integer)):
        return random.Random(None if random_state is None else int(random_state))
    raise InvalidParameterError("random_state", random_state, "an int, None or a random.Random")


def group_cda(texts: Iterable[str], attribute: Any, *, keep_unchanged: bool = False,
              random_state: Any = None) -> list[str]:
    """k-group counterfactual data augmentation, the survey's "ternary" rule for any k.

    For each text, every group g draws one target uniformly among the other k - 1 groups, and
    every term of g is replaced by its counterpart in that target (with k = 3 these are exactly
    the survey's draws r1 in {1, 2}, r2 in {0, 2}, r3 in {0, 1}; Meade et al. 2022). As in the
    survey, a changed text contributes the counterfactual followed by the original, and a text
    without terms is dropped unless ``keep_unchanged``. Unlike the survey's whitespace split,
    terms are matched as whole words in any case and before any punctuation, with the context
    rules of the attribute.

    Parameters
    ----------
    texts : iterable of str
    attribute : str or wordlists.Attribute
    keep_unchanged : bool
        Keep the texts without a term (once).
    random_state : int, random.Random or None
        Python's ``random`` generator, drawn ``k`` times per text in group order.
    """
    attr = _attribute(attribute)
    _no_grammar(attr, "group_cda")
    index, rng, out = _index_of(attr), _random(random_state), []
    for text in texts:
        _check_text(text)
        mapping = {g: rng.choice([h for h in range(attr.k) if h != g]) for g in range(attr.k)}
        new = _replace(index, text, mapping)
        if new != text:
            out += [new, text]
        elif keep_unchanged:
            out.append(text)
    return out


# --------------------------------------------------------------------------------------------
# The survey's own ternary augmentation, faithfully (for side-by-side comparisons)
# --------------------------------------------------------------------------------------------

_SURVEY_PUNCTUATION = (".", ",", "?", "!", ";", ":")


@functools.cache
def _survey_table(bias_type: str) -> tuple[tuple[str, str, str], ...]:
    triples = wordlists.load_survey_cda_words(bias_type)
    return triples + tuple(tuple(w + p for w in t) for p in _SURVEY_PUNCTUATION for t in triples)


def survey_ternary_cda(sentence: str, bias_type: str = "race", *, draws: tuple[int, int, int] | None = None,
                       random_state: Any = None) -> str | None:
    """The survey's ternary counterfactual of one sentence, rule for rule (Meade et al. 2022).

    The rule of bias-bench's ``ternary_counterfactual_augmentation``: split the sentence on
    whitespace; draw r1 from {1, 2}, r2 from {0, 2}, r3 from {0, 1} (in that order, once per
    sentence); each token equal (case-sensitively) to the word in position p of one of the six
    triples -- or to that word followed by one of ``. , ? ! ; :`` -- becomes the triple's word in
    position r_p; when several triples list the token, the last one wins (plain triples first,
    then the punctuated ones). Returns the tokens joined by single spaces, or ``None`` when no
    token matched (the survey then drops the sentence). The survey applies it to text decoded from
    an uncased tokenizer's ids (lower case, punctuation and hyphens split off): to reproduce its
    augmented corpus, pass text prepared the same way (checked side by side with bias-bench on
    181,279 texts: identical outputs).

    Parameters
    ----------
    sentence : str
    bias_type : {"race", "religion"}
    draws : (r1, r2, r3), optional
        The three draws; by default drawn with ``random_state``.
    random_state : int, random.Random or None
        Python's ``random`` generator, as the survey uses the global one.
    """
    table = _survey_table(bias_type)
    if draws is None:
        rng = _random(random_state)
        draws = (rng.choice([1, 2]), rng.choice([0, 2]), rng.choice([0, 1]))
    if len(draws) != 3 or draws[0] not in (1, 2) or draws[1] not in (0, 2) or draws[2] not in (0, 1):
        raise InvalidParameterError("draws", draws, "(r1 in {1, 2}, r2 in {0, 2}, r3 in {0, 1})")
    words = _check_text(sentence).split()
    out = words[:]
    changed = False
    for position, word in enumerate(words):
        for triple in table:
            for slot in range(3):
                if triple[slot] == word:
                    changed = True
                    out[position] = triple[draws[slot]]
    return " ".join(out) if changed else None


def survey_ternary_augment(sentences: Iterable[str], bias_type: str = "race", *, random_state: Any = None) -> list[str]:
    """The survey's augmented corpus: for each sentence with a match, its counterfactual then itself."""
    rng = _random(random_state)
    out: list[str] = []
    for sentence in sentences:
        new = survey_ternary_cda(sentence, bias_type, random_state=rng)
        if new is not None:
            out += [new, sentence]
    return out


# --------------------------------------------------------------------------------------------
# Scrubbing
# --------------------------------------------------------------------------------------------

_SPACE_BEFORE_PUNCT = re.compile(r"[ \t]+([.,;:!?)\]}])")
_DOUBLE_SPACE = re.compile(r"[ \t]{2,}")


def scrub_attribute(text: str, attribute: Any, *, placeholder: str | None = None) -> str:
    """``text`` without the terms of every group of ``attribute`` (under the context rules).

    Without a placeholder the word is removed and the spacing tidied ("Muslim women pray." ->
    "women pray."); with one (e.g. ``"_"``) only the word is replaced.
    """
    attr = _attribute(attribute)
    _check_text(text)
    if placeholder is not None and not isinstance(placeholder, str):
        raise InvalidParameterError("placeholder", placeholder, "a string or None")
    out, last = [], 0
    for term in _terms(_index_of(attr), text):
        out.append(text[last:term.start])
        out.append(placeholder or "")
        last = term.end
    out.append(text[last:])
    result = "".join(out)
    if placeholder is None:
        result = _SPACE_BEFORE_PUNCT.sub(r"\1", _DOUBLE_SPACE.sub(" ", result))
        result = "\n".join(line.strip(" \t") if line.strip() else line for line in result.split("\n"))
    return result


#: Rules under which a listed word is no group term in some contexts.
_CONTEXT_RULES = frozenset({"person", "not_before_capitalized"})


def group_context_corpus(corpus: Any, attribute: Any) -> Corpus:
    """``corpus`` without the sentences where a word with a context rule of ``attribute`` is not a group
    term ("a black cat", "Christian Bale"; :func:`find_group_terms` decides), so that every occurrence of a
    term left is a group term: what the attribute probe and the erasers read in a corpus of one's own.

    Parameters
    ----------
    corpus : Corpus or sequence of str
    attribute : str or wordlists.Attribute

    Returns
    -------
    Corpus
    """
    attr = _attribute(attribute)
    corpus = as_corpus(corpus)
    ruled = [w for w, rules in attr.rules.items() if _CONTEXT_RULES & set(rules)]
    if not ruled:
        return corpus
    matcher = WordMatcher(ruled, case_sensitive=False)
    kept = []
    for sentence in corpus.sentences:
        starts = [start for _, start, _ in matcher.finditer(sentence)]
        if starts and not set(starts) <= {t.start for t in find_group_terms(sentence, attr)}:
            continue
        kept.append(sentence)
    return Corpus(tuple(kept), name=corpus.name, source=f"{corpus.source}; sentences where a context-ruled "
                  f"{attr.name} word is no group term left out ({len(corpus) - len(kept)})")
