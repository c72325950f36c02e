r"""The lexicons the her/his rules and model read (issue 27): the verbs, adjectives and nouns of
WordNet 3.0 written by ``scripts/train_pronoun_model.py`` into ``debias/data`` (WordNet 3.0 licence
beside them), the word classes of a token that name the model's features (:func:`word_classes`),
and the verb forms the rules recognise (:func:`_verb_stem_known`, British -ise spellings too).
"""

from __future__ import annotations

import hashlib
import re
from functools import lru_cache
from importlib import resources

from debias import _word_classes as wc

__all__ = ["compound_modifiers", "lexicon_digests", "mostly_adjectives", "mostly_nouns", "mostly_verbs", "predicate_adjectives", "word_classes"]

VERBS_RESOURCE = "wordnet_verbs.txt"
ADJECTIVES_RESOURCE = "wordnet_adjectives.txt"
NOUNS_RESOURCE = "wordnet_nouns.txt"
PREDICATE_ADJECTIVES_RESOURCE = "wordnet_predicate_adjectives.txt"
COMPOUND_MODIFIERS_RESOURCE = "wordnet_compound_modifiers.txt"

# Word classes that name a feature: the grammar's lexicons.
_CLASSES: tuple[tuple[str, frozenset[str]], ...] = (
    ("prep", wc.PREPOSITIONS), ("conj", wc.CONJUNCTIONS), ("det", wc.DETERMINERS), ("pron", wc.PRONOUNS),
    ("poss", wc.POSSESSIVES), ("aux", wc.AUXILIARIES), ("part", wc.PARTICLES), ("mod", wc.MODIFIERS),
    ("say", wc.VERBS_OF_SAYING), ("ditr", wc.DITRANSITIVES), ("scaus", wc.STRONG_CAUSATIVES),
    ("caus", wc.CAUSATIVES), ("cnoun", wc.CAUSATIVE_NOUNS), ("nverb", wc.NOUN_VERBS),
    ("opv", wc.OBJECT_PREDICATE_VERBS), ("name", wc.NAMING_VERBS), ("role", wc.ROLES), ("mass", wc.MASS_NOUNS),
    ("padj", wc.PREDICATIVE_ADJECTIVES), ("dadj", wc.DOUBLE_OBJECT_ADJECTIVES), ("num", wc.NUMBER_WORDS),
    ("rel", wc.RELATIONAL_NOUNS), ("time", wc.TIME_NOUNS), ("verb", wc.VERBS), ("vonly", wc.VERBS_ONLY),
)


@lru_cache(maxsize=1)
def mostly_verbs() -> frozenset[str]:
    """Base forms that WordNet 3.0 tags as verbs at least twice as often as nouns ("rewrite",
    "practise", "move"; not "face", "husband"): ``debias/data/wordnet_verbs.txt``, written by
    ``scripts/train_pronoun_model.py`` from the sense counts of ``wordnet-base``.
    """
    data = resources.files("debias").joinpath("data", VERBS_RESOURCE).read_text(encoding="utf-8")
    return frozenset(line for line in data.splitlines() if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def mostly_adjectives() -> frozenset[str]:
    """Adjectives that SemCor tags as adjectives at least three times as often as nouns ("bald",
    "flat", "correct"; not "gold", "right"): ``debias/data/wordnet_adjectives.txt``, written by
    ``scripts/train_pronoun_model.py`` from ``wordnet-base``'s ``cntlist.rev``. Read by the
    her/his rules (:mod:`debias._grammar_certain`, :mod:`debias._grammar_constructions`,
    :mod:`debias._grammar_phrases`) only, never by the model's features.
    """
    data = resources.files("debias").joinpath("data", ADJECTIVES_RESOURCE).read_text(encoding="utf-8")
    return frozenset(line for line in data.splitlines() if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def mostly_nouns() -> frozenset[str]:
    """Words that SemCor tags as verbs but at least one and a half times as often as nouns
    ("photograph", "debut", "murder"; not "walk", "dance"): ``debias/data/wordnet_nouns.txt``,
    written by ``scripts/train_pronoun_model.py`` from ``wordnet-base``'s ``cntlist.rev``. Read by
    the her/his rules (:mod:`debias._grammar_constructions`, :mod:`debias._grammar_phrases`) only, never
    by the model's features.
    """
    data = resources.files("debias").joinpath("data", NOUNS_RESOURCE).read_text(encoding="utf-8")
    return frozenset(line for line in data.splitlines() if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def predicate_adjectives() -> frozenset[str]:
    """Adjectives that WordNet 3.0 knows as no noun and never marks attributive-only
    ("unharmed", "heartbroken", "missing"; not "own", "late", "blind"):
    ``debias/data/wordnet_predicate_adjectives.txt``, written by ``scripts/train_pronoun_model.py``
    from ``wordnet-base``'s indexes. Read by the her/his rules (:mod:`debias._grammar_certain`,
    :mod:`debias._grammar_constructions`, :mod:`debias._grammar_phrases`) only, never by the model's features.
    """
    data = resources.files("debias").joinpath("data", PREDICATE_ADJECTIVES_RESOURCE).read_text(encoding="utf-8")
    return frozenset(line for line in data.splitlines() if line and not line.startswith("#"))


@lru_cache(maxsize=1)
def compound_modifiers() -> frozenset[str]:
    """The -ing words that begin a compound noun of WordNet 3.0 ("driving" of ``driving_licence``,
    "swimming" of ``swimming_pool``; not "embezzling", "sketching"):
    ``debias/data/wordnet_compound_modifiers.txt``, written by ``scripts/train_pronoun_model.py`` from
    ``wordnet-base``'s ``index.noun``. Read by the her/his rules (:mod:`debias._grammar_constructions`)
    only, never by the model's features.
    """
    data = resources.files("debias").joinpath("data", COMPOUND_MODIFIERS_RESOURCE).read_text(encoding="utf-8")
    return frozenset(line for line in data.splitlines() if line and not line.startswith("#"))


@lru_cache(maxsize=65536)
def word_classes(low: str) -> tuple[str, ...]:
    """The grammar's classes of a lowercase token, WordNet's verbs, and its suffix classes (-ly
    adverb, participle, adjective, number, punctuation).
    """
    out = [name for name, words in _CLASSES if low in words]
    if low in mostly_verbs():
        out.append("wnverb")
    if not low[:1].isalnum() and low[:1] != "_":
        out.append("punct")
    elif low[:1].isdigit():
        out.append("digit")
    else:
        if wc._is_ly_adverb(low):
            out.append("ly")
        if wc._is_participle(low):
            out.append("ing" if low.endswith("ing") else "ppart")
        if wc._is_adjective(low):
            out.append("adj")
        if not out:
            out.append("open")
    return tuple(out)


def _american(word: str) -> str:
    """The -ize/-yze spelling of a British -ise/-yse verb form ("apologise" -> "apologize",
    "analysed" -> "analyzed"), which WordNet lists; other words unchanged.
    """
    return re.sub(r"(?<=\w\w)([iy])s(e|es|ed|ing)$", r"\1z\2", word)


@lru_cache(maxsize=65536)
def _verb_stem_known(word: str | None) -> bool:
    """Whether ``word`` is a verb of the lexicons or WordNet's, or a regular -s/-ed/-ing form of
    one ("turned", "pushing", "stalks").
    """
    if word is None or not word.isalpha() or word in wc.CLOSED:
        return False
    verbs = mostly_verbs()
    if word in verbs or word in wc.VERBS or word in wc.OBJECT_PREDICATE_VERBS or _american(word) in verbs:
        return True
    for suffix in ("ing", "ed", "es", "s", "d"):
        if word.endswith(suffix) and len(word) > len(suffix) + 2:
            stem = word[: -len(suffix)]
            if stem in verbs or stem + "e" in verbs or stem[-1] == stem[-2] and stem[:-1] in verbs:
                return True
    return word.endswith(("ies", "ied")) and len(word) > 5 and word[:-3] + "y" in verbs  # "carries", "married"


@lru_cache(maxsize=1)
def lexicon_digests() -> dict[str, str]:
    """sha256 of each WordNet list the rules read (provenance for :func:`debias.describe_swap`)."""
    names = (VERBS_RESOURCE, ADJECTIVES_RESOURCE, NOUNS_RESOURCE, PREDICATE_ADJECTIVES_RESOURCE, COMPOUND_MODIFIERS_RESOURCE)
    return {f"debias/data/{name}": hashlib.sha256(resources.files("debias").joinpath("data", name).read_bytes()).hexdigest()
            for name in names}


@lru_cache(maxsize=1)
def _all_verbs() -> frozenset[str]:
    """The verbs of WordNet's list and of the grammar's lexicons (inflected ones too)."""
    return mostly_verbs() | wc.VERBS | wc.NOUN_VERBS


@lru_cache(maxsize=65536)
def _past_of_verb(low: str) -> bool:
    """An -ed form of a verb of the lexicons or WordNet's ("died", "revived", "stopped"; not "need")."""
    if not low.endswith("ed") or low in mostly_verbs() or len(low) < 5 and low != "died":  # not "bed", "red"
        return False
    verbs = _all_verbs()
    stem = low[:-2]
    return stem in verbs or stem + "e" in verbs or len(stem) > 2 and stem[-1] == stem[-2] and stem[:-1] in verbs


@lru_cache(maxsize=65536)
def _base_verb(low: str | None) -> bool:
    """A verb's base form in the lexicons or WordNet's verbs, and no auxiliary ("walk", "gain"; not "was")."""
    return low is not None and low not in wc.AUXILIARIES and (low in mostly_verbs() or low in wc.NOUN_VERBS or (
        _american(low) in mostly_verbs()))
