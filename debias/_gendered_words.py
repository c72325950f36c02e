"""The gendered vocabulary shared by :func:`debias.swap` and :func:`debias.scrub`, and the rules
that decide whether a whole-word match really is that word.

One compiled regular expression (a prefix tree over every word, from
:func:`probekit.text._wordmatch.trie_alternation`) finds candidates in one C-level scan per text; a
dictionary lookup and a few context rules per match decide what it is. Matching is whole-word:
"he" never matches inside "the", "her" never inside "Hermann", "man" never inside "manager".

The vocabulary
--------------
- attribute pairs of :func:`wordlists.load_attribute_pairs` in both directions, with the extra
  counterparts (her -> his | him, ...);
- the paper's attribute words without a counterpart (diva, maid, womb, ...; scrubbed, never
  swapped);
- the titles Mr, Mrs, Ms, Miss, Mister;
- first names of a :class:`wordlists.NameLists` (``names="builtin"``, ``"census"``, your own, or
  ``None`` for no names), paired one to one (:attr:`wordlists.NameLists.one_to_one`); a name
  without a partner has no counterpart (kept by ``swap`` unless ``unpaired=`` is given).

Rules (why each exists)
-----------------------
- ``ms`` only as "Ms"/"Ms." ("10 ms" are milliseconds, "MS" multiple sclerosis or a degree).
- ``miss`` only as "Miss" followed by a capitalized word ("Miss Smith"); "miss" is a verb.
- first names only capitalized ("Mary", "MARY"), never in lower case ("a hugh rock", "< sam>"),
  unless ``names_case="any"`` is asked for (an uncased corpus: "mary"); never the second of a run of capitalized words after a first name (a
  surname: "Shauna Bradley") nor a lone name after a title ("Mr. Bradley"; "Dr. Will Smith" is
  a first name); never ``NameLists.not_names`` (Les, Vita, Alla, ...). Partners share the
  stricter of their rules, so that a pair swaps back and forth in the same places.
- names that are ordinary words (Will, Mark, Rose, May, ...; ``NameLists.common_words``) only
  capitalized; at the start of a sentence only before a capitalized surname or a verb of a
  biography, possibly after "now"/"also" ("Will Smith", "Mark is", "Fiona now works", "Angus
  guides students"; not "Will you", "May God"); after "Mr."/"Dr." they count.
- names that are also places or months (Austin, Georgia, Charlotte, May, June, ...) not after
  "in", "at", "since", ... nor before ", Texas", a number or "Hills"/"Beach"/"County".
- master/masters not before "'s", "degree", "of", "in", "program" ("Master's degree", "Master of
  Science"); host/hosts, buck, doe, ram, tailor, steward only as nouns after a determiner or
  possessive ("a host", not "hosts a show", "a host of" or "Jane Doe") and never in capitals
  ("RAM"); their counterparts (hostess, stewardess, seamstress, ewe) under the same rule, so
  that "the hostess" -> "the host" -> "the hostess".
- a word right after a letter and an apostrophe is a part of a name ("O'Neil"), not a word.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import wordlists
from probekit.errors import InvalidParameterError
from probekit.text import trie_alternation

__all__ = ["NAMES_CASES", "GenderedVocabulary", "NameSpec", "Term", "check_names_case", "get_vocabulary"]

NameSpec = Any  # "builtin" | "census" | wordlists.NameLists | None

#: Values of ``names_case``: first names only capitalized ("Mary", "MARY"; the default), or in any
#: case ("mary" too: an opt-in for uncased corpora).
NAMES_CASES = ("capitalized", "any")

# Match rules (small ints: the per-match dispatch is on the hot path).
ANY = 0
TITLE_CASE_ONLY = 1
NAME_WORD = 2
BEFORE_CAPITALIZED = 3
MASTER = 4
NOUN_ONLY = 5
PLACE_NAME = 6
NAME = 7

#: Which gender a term belongs to.
FEMALE, MALE = "female", "male"

#: "Mr" is ambiguous in reverse (Mrs and Ms both map to Mr). We map Mr -> Ms: like Mr, Ms says
#: nothing about marriage; "Mrs" -> "Mr" -> "Ms" is therefore not an involution.
TITLE_SWAPS: Mapping[str, str] = {"mr": "ms", "mrs": "mr", "ms": "mr", "miss": "mister", "mister": "miss"}

#: Words that are possessive determiners *and* object/standalone pronouns; the swapper resolves them.
AMBIGUOUS_PRONOUNS = frozenset({"her", "his"})

# Words that are also ordinary words ("hosts a show", "a host of", "Jane Doe", "RAM"), and their
# counterparts under the same rule, so that the pair swaps back and forth in the same contexts.
_NOUN_ONLY_WORDS = frozenset(
    {"host", "hosts", "buck", "doe", "ram", "tailor", "steward", "hostess", "hostesses", "stewardess", "seamstress",
     "ewe"}
)
_MASTER_WORDS = frozenset({"master", "masters"})
_MASTER_BLOCKERS = frozenset({"degree", "degrees", "of", "in", "program", "programme", "programs", "thesis", "level"})
_DETERMINERS = frozenset(
    {"a", "an", "the", "this", "that", "these", "those", "his", "her", "their", "our", "my", "your", "its",
     "each", "every", "one", "no", "some", "any", "another"}
)
# First names that are also places or months ("in Austin, Texas", "in May 2020", "Beverly Hills").
_PLACE_OR_DATE_NAMES = frozenset(
    {"austin", "georgia", "virginia", "carolina", "florence", "savannah", "charlotte", "chelsea", "victoria",
     "adelaide", "regina", "helena", "aurora", "eugene", "tyler", "troy", "madison", "jackson", "may", "june",
     "sofia", "marietta", "lorraine", "brittany", "beverly", "chad"}
)
_MONTH_NAMES = frozenset({"may", "june"})  # the months that are first names too
# A place or a date follows these words ("in Austin", "since May", "early June").
_PLACE_OR_DATE_CUES = frozenset(
    {"in", "at", "from", "near", "to", "of", "outside", "around", "across", "toward", "towards", "into", "through",
     "since", "until", "till", "during", "by", "early", "late", "mid", "next", "last", "this", "every", "downtown"}
)
# Verbs after which a sentence-initial "Mark", "Will" or "Rose" is the name ("Mark is a nurse").
_NAME_VERBS = frozenset(
    {"is", "was", "has", "had", "received", "earned", "holds", "held", "works", "worked", "joined", "graduated",
     "lives", "lived", "specializes", "completed", "serves", "served", "teaches", "taught", "began", "started",
     "founded", "leads", "led", "studied", "grew", "became", "enjoys", "loves", "said", "says", "writes", "wrote"}
)
# Adverbs between a sentence-initial name and its verb ("Fiona now works", "Mark also teaches").
_NAME_ADVERBS = frozenset({"now", "also", "still", "currently", "later", "then", "often", "always", "recently"})
_TITLE_ABBREVIATIONS = frozenset({"mr", "mrs", "ms", "mx", "dr", "prof", "rev", "st", "sr", "jr", "fr"})
# Titles after which a lone capitalized name is a surname ("Mr. Bradley"), and a name followed by
# another capitalized word a first name ("Dr. Will Smith").
# ("Sir Walter", "Lady Mary", "Sister Mary", "Uncle John" take first names and are left out.)
_TITLES_BEFORE_NAMES = frozenset(
    {"mr", "mrs", "ms", "mx", "miss", "mister", "dr", "prof", "professor", "madame", "mme", "mlle",
     "monsieur", "herr", "frau", "senator", "governor", "judge", "captain", "capt", "colonel", "col", "general",
     "gen", "major", "sergeant", "sgt", "lieutenant", "lt", "inspector", "detective"}
)
# Characters that may stand between a sentence end and the next word.
_OPENERS = frozenset(" \t\r\n\"'“‘«([{-–—")
_SENTENCE_ENDS = frozenset(".!?…:;")

_SENTENCE_END = re.compile(r"[.!?]")
_NEXT_TOKEN = re.compile(r"\s*(?:(\w+)|(\S))?")
_PREV_WORD = re.compile(r"(\w+)\W*\Z")
# The word right before a name, with what stands between them (a surname follows a first name
# after spaces only; a title may have its full stop).
_WORD_BEFORE_NAME = re.compile(r"(?<![\w'’])(\w+)(\.?[ \t]+)\Z")


@dataclass(frozen=True)
class Term:
    """One entry of the vocabulary.

    Attributes
    ----------
    word : str
        The word in lowercase (the lookup key).
    counterpart : str or None
        What :func:`debias.swap` writes, as stored (names capitalized), before case matching;
        ``None`` for "her"/"his" (resolved from context) and for words without a counterpart
        (scrubbed only).
    kind : {"attribute", "name", "title"}
    gender : {"female", "male"}
    rule : int
        Which context rule applies (see the module docstring).
    """

    word: str
    counterpart: str | None
    kind: str
    gender: str
    rule: int = ANY


def recase(template: str, word: str) -> str:
    """``word`` in the case pattern of ``template``: she->he, She->He, SHE->HE; john->mary.

    A lowercase template gives a lowercase word (names too, so uncased corpora stay uncased and
    swapping back restores the text); a capitalized one capitalizes the first letter and keeps
    the rest as stored ("McKenzie").
    """
    if template.islower():
        return word.lower()
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


def next_token(text: str, end: int) -> tuple[str | None, str | None, int]:
    """The token after position ``end``: ``(word, punctuation, its end)``; both ``None`` at the end."""
    m = _NEXT_TOKEN.match(text, end)
    return m.group(1), m.group(2), m.end()


def previous_word(text: str, start: int) -> str | None:
    """The word before ``start`` (skipping non-word characters), or ``None``."""
    m = _PREV_WORD.search(text, max(0, start - 40), start)
    return m.group(1) if m else None


def _place_or_date(text: str, start: int, end: int) -> bool:
    """Whether a name that is also a place or month stands as one: after "in", "since", ...,
    before ", Texas" or before a number ("May 2020").
    """
    before = previous_word(text, start)
    if before is not None and (before.lower() in _PLACE_OR_DATE_CUES or before.isdigit() and len(before) <= 2 and (
            text[start:end].lower() in _MONTH_NAMES)):
        return True  # "in Austin", "since May", "on 3 May" (a day's number before the month)
    word, punctuation, after = next_token(text, end)
    if word is not None and word[:1].isdigit():
        return True
    if punctuation == ",":
        following, _, _ = next_token(text, after)
        return following is not None and following[:1].isupper()
    return word is not None and word.lower() in ("hills", "beach", "county", "city", "state", "tech")


def is_sentence_initial(text: str, start: int) -> bool:
    """True if only openers (spaces, quotes, brackets, dashes) stand between ``start`` and the
    start of the text or a sentence end; a full stop after a title ("Dr.") does not end one.
    """
    i = start - 1
    while i >= 0 and text[i] in _OPENERS:
        i -= 1
    if i < 0:
        return True
    if text[i] not in _SENTENCE_ENDS:
        return False
    if text[i] == ".":
        before = previous_word(text, i)
        if before is not None and before.lower() in _TITLE_ABBREVIATIONS and text[i - len(before):i] == before:
            return False
    return True


class GenderedVocabulary:
    """The gendered words and first names to find, with one compiled whole-word pattern.

    Parameters
    ----------
    names : {"builtin", "census"}, wordlists.NameLists or None
        First names to include: ``"builtin"`` (289 pairs, :func:`wordlists.load_names`),
        ``"census"`` (the built-in pairs plus about 4,000 names of the 1990 US Census,
        ``wordlists.load_names("census")``), your own :class:`wordlists.NameLists`, or ``None``.
    names_case : {"capitalized", "any"}, default "capitalized"
        Which forms of a first name count: capitalized only ("Mary", "MARY"), or any case
        ("mary" too; for uncased corpora). Names that are ordinary words (Will, Mark, Rose) count
        only capitalized either way.

    Use :func:`get_vocabulary` to share one instance per name list.
    """

    def __init__(self, names: NameSpec = "census", names_case: str = "capitalized"):
        check_names_case(names_case)
        self.names: wordlists.NameLists | None = resolve_names(names)
        self.names_case = names_case
        self._any_case = names_case == "any"
        self.names_label = names if isinstance(names, str) else ("none" if names is None else "custom")
        self.pairs = wordlists.load_attribute_pairs()
        self.terms: dict[str, Term] = self._build_terms()
        words = set(self.terms)
        # The curly apostrophe is as common as the straight one in edited text ("ma’am").
        words |= {w.replace("'", "’") for w in words if "'" in w}
        for w in [w for w in words if "’" in w]:
            self.terms.setdefault(w, self.terms[w.replace("’", "'")])
        # Matching runs on the lowercased text with a case-sensitive pattern, about twice as fast
        # as re.IGNORECASE; texts whose lowercase has another length (a few non-ASCII letters
        # such as "İ") fall back to the case-insensitive pattern on the text itself.
        body = r"(?<!\w)(?<!\w['’])(?:" + trie_alternation(sorted(words)) + r")(?!\w)"
        self.pattern: re.Pattern[str] = re.compile(body)
        # the same matches on ASCII text, a few per cent faster: \w needs no Unicode tables there
        self._pattern_ascii: re.Pattern[str] = re.compile(body, re.ASCII)
        self._body = body
        self._pattern_ignorecase: re.Pattern[str] | None = None
        # Fast path of the swap: counterparts of context-free terms in lowercase and capitalized.
        self.plain_lower: dict[str, str] = {}
        self.plain_title: dict[str, str] = {}
        for key, term in self.terms.items():
            if term.rule == ANY and term.counterpart is not None:
                self.plain_lower[key] = term.counterpart.lower()
                self.plain_title[key[:1].upper() + key[1:]] = term.counterpart[:1].upper() + term.counterpart[1:]

    def find(self, text: str) -> list[tuple[int, int, str]]:
        """Whole-word matches ``(start, end, lowercase word)`` of the vocabulary in ``text``.

        Every match is a key of the ``terms`` table; whether it counts in its context is
        :meth:`accepts`' decision.
        """
        low = text.lower()
        if len(low) == len(text):
            pattern = self._pattern_ascii if low.isascii() else self.pattern
            return [(m.start(), m.end(), m.group()) for m in pattern.finditer(low)]
        if self._pattern_ignorecase is None:
            self._pattern_ignorecase = re.compile(self._body, re.IGNORECASE)
        found = []
        for m in self._pattern_ignorecase.finditer(text):
            key = m.group().lower()
            if key in self.terms:  # not an IGNORECASE-only match such as "ſhe"
                found.append((m.start(), m.end(), key))
        return found

    def _build_terms(self) -> dict[str, Term]:
        terms: dict[str, Term] = {}
        self._place_names: set[str] = set()
        swap_map = self.pairs.swap_map
        female = {w.lower() for w in self.pairs.female} | {a.lower() for a, _ in self.pairs.extra_swaps}
        for word in swap_map.words:
            gender = FEMALE if word in female else MALE
            if word in AMBIGUOUS_PRONOUNS:
                counterpart = None
            elif word in TITLE_SWAPS:
                continue
            else:
                counterpart = swap_map[word][0]
            rule = NOUN_ONLY if word in _NOUN_ONLY_WORDS else MASTER if word in _MASTER_WORDS else ANY
            terms[word] = Term(word, counterpart, "attribute", gender, rule)
        for word, counterpart in TITLE_SWAPS.items():
            gender = MALE if word in ("mr", "mister") else FEMALE
            rule = TITLE_CASE_ONLY if word == "ms" else BEFORE_CAPITALIZED if word == "miss" else ANY
            terms[word] = Term(word, counterpart.capitalize(), "title", gender, rule)
        female_paper, male_paper = wordlists.load_paper_attributes()
        for words, gender in ((female_paper, FEMALE), (male_paper, MALE)):
            for w in words:
                terms.setdefault(w.lower(), Term(w.lower(), None, "attribute", gender))
        if self.names is not None:
            common = {w.lower() for w in self.names.common_words}
            pairs, unpaired_female, unpaired_male = self.names.one_to_one
            taken = set(terms)  # a gendered word first ("Guy" the name is rarer than "guy")
            entries: list[tuple[str, str | None, str]] = []
            for f, m in pairs:
                clash = f.lower() in taken or m.lower() in taken
                entries += [(f, None if clash else m, FEMALE), (m, None if clash else f, MALE)]
            entries += [(f, None, FEMALE) for f in unpaired_female] + [(m, None, MALE) for m in unpaired_male]
            for name, counterpart, gender in entries:
                key = name.lower()
                if key in terms:
                    continue
                # the partners share the stricter rule, so that a pair swaps in the same places
                keys = (key,) if counterpart is None else (key, counterpart.lower())
                rule = (
                    NAME_WORD if any(k in common for k in keys)
                    else PLACE_NAME if any(k in _PLACE_OR_DATE_NAMES for k in keys) else NAME
                )
                terms[key] = Term(key, counterpart, "name", gender, rule)
                if any(k in _PLACE_OR_DATE_NAMES for k in keys):
                    self._place_names.add(key)
        return terms

    def accepts(self, term: Term, text: str, start: int, end: int) -> bool:
        """Whether the match ``text[start:end]`` of ``term`` is that word in this context."""
        rule = term.rule
        if rule == ANY:
            return True
        found = text[start:end]
        if rule == NAME:
            return (found[:1].isupper() or self._any_case) and not self._after_first_name(text, start, end)
        if rule == TITLE_CASE_ONLY:
            return found[:1].isupper() and found[1:].islower()
        if rule == NAME_WORD:
            if not (found[:1].isupper() and found[1:].islower()) or self._after_first_name(text, start, end):
                return False
            if is_sentence_initial(text, start) and not self._name_follows_initial(text, end):
                return False
            return term.word not in self._place_names or not _place_or_date(text, start, end)
        if rule == PLACE_NAME:
            if not (found[:1].isupper() or self._any_case) or self._after_first_name(text, start, end):
                return False
            return not _place_or_date(text, start, end)
        if rule == BEFORE_CAPITALIZED:
            word, _, _ = next_token(text, end)
            return (
                found[:1].isupper() and found[1:].islower() and word is not None
                and word[:1].isupper() and text[end:end + 1].isspace()
            )
        if rule == MASTER:
            if text.startswith(("'s", "’s", "'", "’"), end):
                return False
            word, _, _ = next_token(text, end)
            return word is None or word.lower() not in _MASTER_BLOCKERS
        if rule == NOUN_ONLY:
            if len(found) > 1 and found.isupper():
                return False
            before = previous_word(text, start)
            if before is None or before.lower() not in _DETERMINERS:
                return False
            word, _, _ = next_token(text, end)
            return word is None or word.lower() != "of"
        return True

    def _after_first_name(self, text: str, start: int, end: int) -> bool:
        """Whether the name at ``text[start:end]`` is a surname: the second of a run of
        capitalized words after a first name ("Shauna Bradley"), or a lone name after a title
        ("Mr. Bradley"; but "Dr. Will Smith").
        """
        if start == 0 or text[start - 1] not in " \t":
            return False
        m = _WORD_BEFORE_NAME.search(text, max(0, start - 40), start)
        if m is None:
            return False
        word = m.group(1)
        low = word.lower()
        if low in _TITLES_BEFORE_NAMES and word[:1].isupper():
            following, _, _ = next_token(text, end)
            return following is None or not following[:1].isupper() or not text[end:end + 1].isspace()
        if m.group(2).startswith(".") or not (word[:1].isupper() or self._any_case):
            return False
        term = self.terms.get(low)
        return term is not None and term.kind == "name"

    def _name_follows_initial(self, text: str, end: int) -> bool:
        """At the start of a sentence "Mark", "Will", "Rose" are names only before a surname
        ("Will Smith", not "May God") or a verb of a biography ("Mark is", "Rose received").
        """
        word, _, after = next_token(text, end)
        if word is None:
            return False
        if word[:1].isupper() and word[1:].islower() and word.lower() not in self.terms:
            return text[end:end + 1].isspace()
        if word in _NAME_ADVERBS:  # "Fiona now works at a clinic"
            word, _, _ = next_token(text, after)
            if word is None:
                return False
        if word in _NAME_VERBS or (len(word) > 4 and word.endswith("ed") and word.islower()):
            return True  # "Mark is", "Rose received"
        if len(word) > 4 and word.islower() and word.endswith("s") and not word.endswith(("ss", "us", "is")):
            ending = _SENTENCE_END.search(text, end)
            return ending is None or ending.group() != "?"  # "Angus guides students"; not "Will ships sail?"
        return False

    def name_pairing(self) -> dict[str, Any]:
        """How the first names are paired: one to one, by the order of the list (frequency rank
        for the census names); how many are paired and how many unpaired.
        """
        names = [t for t in self.terms.values() if t.kind == "name"]
        paired = [t for t in names if t.counterpart is not None]
        return {
            "pairing": "one-to-one, in list order (census names by frequency rank)",
            "n_paired": len(paired) // 2,
            "n_unpaired_female": sum(t.gender == FEMALE for t in names if t.counterpart is None),
            "n_unpaired_male": sum(t.gender == MALE for t in names if t.counterpart is None),
            "n_not_names": len(self.names.not_names) if self.names is not None else 0,
        }

    def describe(self) -> dict[str, Any]:
        """Provenance: the lists used, with their digests."""
        names = self.names
        return {
            "attribute_pairs": {"name": self.pairs.name, "digest": self.pairs.digest, "n_pairs": len(self.pairs)},
            "paper_attributes_digest": wordlists.load_paper_attributes().digest,
            "name_list": None if names is None else {
                "label": self.names_label,
                "source": names.source,
                "digest": names.digest,
                "n_female": len(set(names.female)),
                "n_male": len(set(names.male)),
                **self.name_pairing(),
            },
            "names_case": self.names_case,
            "title_swaps": dict(TITLE_SWAPS),
            "n_terms": len(self.terms),
        }


def resolve_names(names: NameSpec) -> wordlists.NameLists | None:
    """``"builtin"``/``"census"`` -> the list from :func:`wordlists.load_names`; a NameLists or None as is."""
    if names is None or isinstance(names, wordlists.NameLists):
        return names
    if isinstance(names, str) and names.lower() in ("none", "no", "off"):
        return None
    if isinstance(names, str) and names in ("builtin", "census"):
        return wordlists.load_names(names)
    raise InvalidParameterError("names", names, "'builtin', 'census', 'none', a wordlists.NameLists or None")


def check_names_case(names_case: Any) -> None:
    """Raise :class:`probekit.errors.InvalidParameterError` unless ``names_case`` is one of :data:`NAMES_CASES`."""
    if not isinstance(names_case, str) or names_case not in NAMES_CASES:
        raise InvalidParameterError(
            "names_case", names_case, "'capitalized' (first names only as Mary/MARY, the default) or 'any' (mary too)"
        )


_CACHE: dict[Any, tuple[Any, GenderedVocabulary]] = {}


def get_vocabulary(names: NameSpec = "census", names_case: str = "capitalized") -> GenderedVocabulary:
    """A shared :class:`GenderedVocabulary` for ``names`` and ``names_case`` (built once per name
    list and case rule).
    """
    check_names_case(names_case)
    key = (names if isinstance(names, str) or names is None else id(names), names_case)
    hit = _CACHE.get(key)
    if hit is not None and (hit[0] is names or isinstance(names, str) or names is None):
        return hit[1]
    vocabulary = GenderedVocabulary(names, names_case)
    if len(_CACHE) > 16:
        _CACHE.clear()
    _CACHE[key] = (names, vocabulary)
    return vocabulary
