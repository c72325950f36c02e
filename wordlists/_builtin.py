"""The project's own word lists, shipped as plain text/TSV/JSON in ``wordlists/data``.

Sources and licences of every list: ``wordlists/README.md``.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from types import MappingProxyType

from probekit.errors import InputFileError, InvalidParameterError
from wordlists._files import read_lines
from wordlists._types import (
    AttributePairs,
    GenderedTermSets,
    NameLists,
    SeatTest,
    WordList,
)

__all__ = [
    "NAME_SOURCES",
    "PAPER_UNPAIRED",
    "SLOT_TYPES",
    "builtin_words",
    "data_path",
    "load_attribute_pairs",
    "load_names",
    "load_paper_attributes",
    "load_paper_stereotypes",
    "load_seat_sentence_test",
    "load_seat_test",
    "load_seat_tests",
    "load_slot_types",
    "seat_test_names",
    "slot_type",
    "slot_types",
]

#: Every slot type used by the word lists and the template corpus, one frame file each.
SLOT_TYPES: tuple[str, ...] = (
    "person_singular",
    "person_plural",
    "kin_name",
    "address",
    "honorific",
    "subject_pronoun",
    "object_pronoun",
    "possessive_determiner",
    "possessive_pronoun",
    "reflexive_pronoun",
    "animal_singular",
    "animal_plural",
    "count_noun",
    "plural_noun",
    "mass_noun",
    "activity",
    "adjective",
    "name",
)

#: Words of the paper's attribute lists that have no clean opposite-gender counterpart, so they
#: are in no pair (they are still attribute words, with slot types and template sentences).
PAPER_UNPAIRED: frozenset[str] = frozenset(
    {
        "diva", "dowry", "maid", "feminism", "maiden", "ballerina", "womb",
        "governors", "stud", "brethren", "deer", "baritone", "beard", "sperm", "prostate", "governor",
    }
)

_PAPER = "Tokpo, Delobelle, Berendt & Calders (2023), appendix word lists (facts); written out for probekit, MIT"
_OWN = "written for probekit (MIT)"


def data_path(name: str) -> Path:
    """Path of a file in ``wordlists/data``."""
    return Path(str(resources.files("wordlists") / "data" / name))


def _tsv_pairs(name: str) -> tuple[tuple[str, str], ...]:
    path = data_path(name)
    pairs = []
    for number, line in read_lines(path):
        cols = line.split("\t")
        if len(cols) != 2 or not all(c.strip() for c in cols):
            raise InputFileError(f"{path}, line {number}: expected 'female<TAB>male', got {line!r}")
        pairs.append((cols[0].strip(), cols[1].strip()))
    return tuple(pairs)


def _words(name: str) -> tuple[str, ...]:
    return tuple(line for _, line in read_lines(data_path(name)))


@functools.cache
def load_attribute_pairs() -> AttributePairs:
    """The project's female/male attribute pairs (she/he, her/his, woman/man, queen/king, ...).

    Every word appears at most once per side. Further swap counterparts (her -> him, hers -> his,
    lady -> gentleman, ...) are in ``extra_swaps``, so that ``pairs.swap_map`` knows that "her"
    maps to "his" or "him" and marks it ambiguous.

    Returns
    -------
    AttributePairs
    """
    pairs = _tsv_pairs("attribute_pairs.tsv")
    extra = _tsv_pairs("swap_extra.tsv")
    return AttributePairs(
        female=tuple(p[0] for p in pairs),
        male=tuple(p[1] for p in pairs),
        name="probekit_attribute_pairs",
        source=f"wordlists/data/attribute_pairs.tsv + swap_extra.tsv, {_OWN}",
        extra_swaps=extra,
    )


@functools.cache
def load_paper_attributes() -> GenderedTermSets:
    """The paper's female (W_f) and male (W_m) attribute sets, exactly as listed (Tokpo et al. 2023).

    Returns
    -------
    GenderedTermSets
        ``.female`` (75 words) and ``.male`` (116 words), in the paper's order.
    """
    return GenderedTermSets(
        female=WordList("paper_attributes_female", _words("paper_attributes_female.txt"), _PAPER),
        male=WordList("paper_attributes_male", _words("paper_attributes_male.txt"), _PAPER),
        name="paper_attributes",
        source=_PAPER,
    )


@functools.cache
def load_paper_stereotypes() -> GenderedTermSets:
    """The paper's female (X_f) and male (X_m) stereotype sets, exactly as listed (Tokpo et al. 2023).

    Returns
    -------
    GenderedTermSets
        ``.female`` (21 words) and ``.male`` (30 words), in the paper's order.
    """
    return GenderedTermSets(
        female=WordList("paper_stereotypes_female", _words("paper_stereotypes_female.txt"), _PAPER),
        male=WordList("paper_stereotypes_male", _words("paper_stereotypes_male.txt"), _PAPER),
        name="paper_stereotypes",
        source=_PAPER,
    )


NAME_SOURCES: tuple[str, ...] = ("builtin", "census")


def load_names(source: str = "builtin") -> NameLists:
    """Female and male first names, aligned as swap pairs.

    Parameters
    ----------
    source : {"builtin", "census"}
        ``"builtin"``: 289 pairs of common English first names (``name_pairs.tsv``); natural
        counterparts share a line (Danielle/Daniel, Paula/Paul), the others are paired in order
        of commonness; unisex names are left out; ``common_words`` lists names that are also
        ordinary words (Will, Mark, Rose, ...).
        ``"census"``: the built-in pairs followed by about 3,400 further female and 600 male
        names of the 1990 US Census first-name files (public domain; ``census_name_pairs.tsv``,
        built by ``scripts/build_census_names.py``) without unisex names and names that are
        English words, paired by census rank. Female names outnumber male ones, so a census
        male name can have several female partners (its first line is its swap partner).
    """
    if source not in NAME_SOURCES:
        raise InvalidParameterError("source", source, NAME_SOURCES)
    return _load_names(source)


@functools.cache
def _load_names(source: str) -> NameLists:
    pairs = _tsv_pairs("name_pairs.tsv")
    where = f"wordlists/data/name_pairs.tsv, common English given names, {_OWN}"
    common = _words("names_common_words.txt")
    if source == "census":
        pairs += _tsv_pairs("census_name_pairs.tsv")
        common += _words("census_names_common_words.txt")
        where += (
            "; + wordlists/data/census_name_pairs.tsv, US Census Bureau 1990 first-name files "
            "(public domain) via the MIT-licensed `names` package"
        )
    return NameLists(
        female=tuple(p[0] for p in pairs),
        male=tuple(p[1] for p in pairs),
        common_words=frozenset(common),
        source=where,
        not_names=frozenset(_words("names_not_names.txt")),
    )


_SEAT_KEYS = ("target_1", "target_2", "attribute_1", "attribute_2")


@functools.cache
def load_seat_tests() -> Mapping[str, SeatTest]:
    """All built-in word-level SEAT gender tests by name (weat6, weat6b, weat7, weat7b, weat8, weat8b)."""
    path = data_path("seat_tests.json")
    doc = json.loads(path.read_text(encoding="utf-8"))
    tests = {}
    for name, spec in doc["tests"].items():
        sets = {
            key: WordList(spec[key]["category"], tuple(spec[key]["words"]), spec["source"]) for key in _SEAT_KEYS
        }
        tests[name] = SeatTest(name=name, description=spec["description"], source=spec["source"], **sets)
    return MappingProxyType(tests)


def seat_test_names() -> tuple[str, ...]:
    """Names of the built-in SEAT tests, in order."""
    return tuple(load_seat_tests())


def _canonical_seat_name(name: str) -> str | None:
    key = str(name).strip().lower().replace("-", "").replace("_", "").replace(" ", "")
    for prefix in ("weat", "seat", "sentweat"):
        if key.startswith(prefix):
            key = key[len(prefix):]
            break
    candidate = "weat" + key
    return candidate if candidate in load_seat_tests() else None


#: Where the published sentence tests of Liang et al. (2020) are shipped (MIT; LICENSE beside them).
_SENTENCE_TEST_DIR = "sent_seat"
_SENTENCE_TEST_SOURCE = (
    "May et al. (2019) SEAT sentences as published by Liang et al. (2020), "
    "github.com/pliang279/sent_debias (MIT License, Copyright (c) 2021 Paul Liang; wordlists/data/sent_seat/LICENSE)"
)


@functools.cache
def load_seat_sentence_test(name: str) -> SeatTest:
    """The published sentences of a sentence-level SEAT gender test (``sent-weat6`` ... ``sent-weat8b``).

    The four sets hold sentences (``"This is math."``), as in the ``sent-weat*.jsonl`` files of the
    SEAT release used by Liang et al. (2020) and the debiasing survey (Meade et al. 2022); shipped
    under their MIT licence (``wordlists/data/sent_seat/LICENSE``).

    Parameters
    ----------
    name : str
        ``"weat7"``, ``"sent-weat7"``, ``"7"`` and the like (tests 6, 6b, 7, 7b, 8, 8b).

    Returns
    -------
    SeatTest
        Named ``sent-weatN``; each set's ``name`` is its category, its words are sentences.
    """
    canonical = _canonical_seat_name(name) if isinstance(name, str) else None
    if canonical is None:
        raise InvalidParameterError("name", name, tuple("sent-" + n for n in seat_test_names()))
    path = data_path(f"{_SENTENCE_TEST_DIR}/sent-{canonical}.jsonl")
    doc = json.loads(path.read_text(encoding="utf-8"))
    sets = {
        key: WordList(str(doc[raw]["category"]), tuple(str(x) for x in doc[raw]["examples"]), _SENTENCE_TEST_SOURCE)
        for key, raw in zip(_SEAT_KEYS, ("targ1", "targ2", "attr1", "attr2"))
    }
    return SeatTest(name=f"sent-{canonical}", description=f"published sentences of SEAT {canonical}",
                    source=_SENTENCE_TEST_SOURCE, **sets)


def load_seat_test(name: str) -> SeatTest:
    """One built-in word-level SEAT gender test.

    Parameters
    ----------
    name : str
        ``"weat6"``, ``"weat6b"``, ``"weat7"``, ``"weat7b"``, ``"weat8"`` or ``"weat8b"``;
        ``"seat6"``, ``"6b"`` and the like are accepted too.

    Returns
    -------
    SeatTest
        Targets and attributes with their category names (Caliskan et al. 2017; May et al. 2019).
    """
    canonical = _canonical_seat_name(name) if isinstance(name, str) else None
    if canonical is None:
        raise InvalidParameterError("name", name, seat_test_names())
    return load_seat_tests()[canonical]


@functools.cache
def load_slot_types() -> Mapping[str, tuple[str, ...]]:
    """Slot types of every built-in attribute, stereotype and SEAT word (lowercase keys)."""
    path = data_path("slot_types.tsv")
    table: dict[str, tuple[str, ...]] = {}
    for number, line in read_lines(path):
        cols = line.split("\t")
        types = tuple(t.strip() for t in cols[1].split(",")) if len(cols) == 2 else ()
        unknown = [t for t in types if t not in SLOT_TYPES]
        if not types or unknown:
            raise InputFileError(f"{path}, line {number}: expected 'word<TAB>slot type[,slot type]', got {line!r}")
        table[cols[0].strip().lower()] = types
    return MappingProxyType(table)


@functools.cache
def _name_set() -> frozenset[str]:
    return frozenset(n.lower() for n in load_names().names)


def slot_types(word: str) -> tuple[str, ...]:
    """All slot types of ``word`` ("her" -> ("object_pronoun", "possessive_determiner")).

    Case-insensitive. First names of :func:`load_names` that are not listed have slot type
    ``"name"``.

    Raises
    ------
    InvalidParameterError
        The word has no known slot type; pass it with its slot type (e.g.
        ``template_corpus({"midwife": "person_singular"})``).
    """
    key = " ".join(str(word).split()).lower()
    found = load_slot_types().get(key)
    if found:
        return found
    if key in _name_set():
        return ("name",)
    raise InvalidParameterError(
        "word", word, "a word of the built-in lists",
        "give its slot type explicitly, one of " + ", ".join(SLOT_TYPES),
    )


def slot_type(word: str) -> str:
    """The main slot type of ``word`` (first of :func:`slot_types`)."""
    return slot_types(word)[0]


@functools.cache
def builtin_words() -> tuple[str, ...]:
    """Every attribute, stereotype and SEAT word of the built-in lists, without duplicates.

    Order: attribute pairs, extra swaps, the paper's attribute and stereotype sets, SEAT words.
    """
    every: list[str] = list(load_attribute_pairs().words)
    attrs, stereos = load_paper_attributes(), load_paper_stereotypes()
    every += list(attrs.words) + list(stereos.words)
    for test in load_seat_tests().values():
        every += list(test.words)
    return tuple(dict.fromkeys(every))
