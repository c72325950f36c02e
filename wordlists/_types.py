"""Typed, immutable word lists: every list knows its name, its source and its SHA-256 digest."""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from probekit.errors import InvalidParameterError

__all__ = [
    "AttributePairs",
    "GenderedTermSets",
    "NameLists",
    "ProfessionScores",
    "SeatTest",
    "SwapMap",
    "TermSet",
    "WordList",
    "match_case",
    "words_digest",
]


def words_digest(words: Iterable[str]) -> str:
    """SHA-256 (hex) of the words joined by newlines, order kept.

    ``probekit.utils._provenance.hash_words`` is the first 16 hex digits of the same hash.
    """
    return hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()


def _as_words(value: Any, parameter: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise InvalidParameterError(parameter, value, "a sequence of words, not a single string")
    words = tuple(value)
    bad = [w for w in words if not isinstance(w, str) or not w.strip()]
    if bad:
        raise InvalidParameterError(parameter, bad[:5], "non-empty strings only")
    return words


def match_case(template: str, word: str) -> str:
    """``word`` written in the case pattern of ``template``: "HER" -> "HIS", "Her" -> "His".

    A lowercase template leaves ``word`` as stored (so proper names keep their capital).
    """
    if len(template) > 1 and template.isupper():
        return word.upper()
    if template[:1].isupper():
        return word[:1].upper() + word[1:]
    return word


@dataclass(frozen=True, eq=True)
class WordList(Sequence):
    """A named, ordered list of words with its provenance.

    Parameters
    ----------
    name : str
        Name of the list (for SEAT sets: the category, e.g. ``"MaleNames"``).
    words : sequence of str
        The words, order kept; duplicates are allowed (published lists have some).
    source : str
        Where the list comes from (paper, file path, licence).

    Attributes
    ----------
    digest : str
        SHA-256 of the words joined by newlines (see :func:`words_digest`); recorded in the
        provenance of every result computed from the list.
    """

    name: str
    words: tuple[str, ...]
    source: str = ""
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "words", _as_words(self.words, "words"))
        object.__setattr__(self, "digest", words_digest(self.words))

    def __len__(self) -> int:
        return len(self.words)

    def __getitem__(self, index):  # type: ignore[override]
        return self.words[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self.words)

    def __contains__(self, word: object) -> bool:
        return word in self.words

    def unique(self) -> tuple[str, ...]:
        """The words without duplicates, first occurrence kept."""
        return tuple(dict.fromkeys(self.words))

    def to_dict(self) -> dict[str, Any]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {"name": self.name, "words": list(self.words), "source": self.source, "digest": self.digest}


TermSet = WordList
"""Alias of :class:`WordList` (attribute and stereotype term sets)."""


@dataclass(frozen=True)
class GenderedTermSets:
    """A female and a male term set that belong together (e.g. the paper's attribute sets).

    Unpacks as ``female, male = load_paper_attributes()``.
    """

    female: WordList
    male: WordList
    name: str = ""
    source: str = ""

    def __iter__(self) -> Iterator[WordList]:
        return iter((self.female, self.male))

    @property
    def words(self) -> tuple[str, ...]:
        """All words, female then male, without duplicates."""
        return tuple(dict.fromkeys(self.female.words + self.male.words))

    @property
    def digest(self) -> str:
        """SHA-256 digest over the female and male lists' digests."""
        return words_digest([self.female.digest, self.male.digest])

    def to_dict(self) -> dict[str, Any]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {
            "name": self.name,
            "source": self.source,
            "female": self.female.to_dict(),
            "male": self.male.to_dict(),
            "digest": self.digest,
        }


@dataclass(frozen=True)
class SwapMap:
    """Which words a word can be swapped with, in both directions (she <-> he, her -> his | him).

    Keys are lowercase. A word with more than one candidate is *ambiguous*: "her" is "his" as a
    determiner ("her book") and "him" as an object ("saw her"); a swapper must use the context
    (part of speech) and never map "her" to "his" blindly.

    Parameters
    ----------
    entries : sequence of (word, candidates)
        Lowercase word and its candidates in order of preference.
    """

    entries: tuple[tuple[str, tuple[str, ...]], ...]
    _map: dict[str, tuple[str, ...]] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        entries = tuple((str(k), tuple(v)) for k, v in self.entries)
        object.__setattr__(self, "entries", entries)
        object.__setattr__(self, "_map", dict(entries))

    @classmethod
    def from_pairs(cls, pairs: Iterable[tuple[str, str]]) -> SwapMap:
        """Build the map from (female, male) pairs, adding both directions.

        Keys are lowercased; candidates keep the case of the pair files (so names stay
        capitalized) and the order in which pairs are given.
        """
        table: dict[str, list[str]] = {}
        for a, b in pairs:
            for src, dst in ((a, b), (b, a)):
                cands = table.setdefault(src.lower(), [])
                if dst not in cands and dst.lower() not in (c.lower() for c in cands):
                    cands.append(dst)
        return cls(tuple(sorted((k, tuple(v)) for k, v in table.items())))

    def __len__(self) -> int:
        return len(self._map)

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self._map

    def __getitem__(self, word: str) -> tuple[str, ...]:
        return self._map[word.lower()]

    @property
    def words(self) -> tuple[str, ...]:
        """Every word that has a counterpart (lowercase)."""
        return tuple(self._map)

    @property
    def ambiguous(self) -> tuple[str, ...]:
        """Words with more than one candidate (lowercase), sorted."""
        return tuple(sorted(k for k, v in self._map.items() if len(v) > 1))

    def is_ambiguous(self, word: str) -> bool:
        """Whether ``word`` (any case) has more than one counterpart."""
        return len(self._map.get(word.lower(), ())) > 1

    def candidates(self, word: str) -> tuple[str, ...]:
        """The counterparts of ``word`` in its case pattern ("Her" -> ("His", "Him")); ``()`` if none."""
        return tuple(match_case(word, c) for c in self._map.get(word.lower(), ()))

    def to_dict(self) -> dict[str, list[str]]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {k: list(v) for k, v in self.entries}


def _check_aligned(female: tuple[str, ...], male: tuple[str, ...]) -> None:
    if len(female) != len(male):
        raise InvalidParameterError(
            "male", f"{len(male)} words", f"as many words as female ({len(female)})",
            "pairs are aligned by position",
        )


@dataclass(frozen=True)
class AttributePairs(Sequence):
    """Female/male attribute terms aligned as pairs: ``female[i]`` and ``male[i]`` are counterparts.

    Parameters
    ----------
    female, male : sequence of str
        Aligned word tuples of equal length.
    name : str
        Name of the pair list.
    source : str
        Where the pairs come from.
    extra_swaps : sequence of (female, male)
        Further counterparts used only for swapping (her/him, hers/his, ...); they make words
        with several counterparts ambiguous in :attr:`swap_map`.

    Attributes
    ----------
    digest : str
        SHA-256 over the lines ``female<TAB>male`` of the pairs (extra swaps not included).
    """

    female: tuple[str, ...]
    male: tuple[str, ...]
    name: str = "attribute_pairs"
    source: str = ""
    extra_swaps: tuple[tuple[str, str], ...] = ()
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        female = _as_words(self.female, "female")
        male = _as_words(self.male, "male")
        _check_aligned(female, male)
        extra = tuple((str(a), str(b)) for a, b in self.extra_swaps)
        object.__setattr__(self, "female", female)
        object.__setattr__(self, "male", male)
        object.__setattr__(self, "extra_swaps", extra)
        object.__setattr__(self, "digest", words_digest(f"{f}\t{m}" for f, m in zip(female, male)))

    def __len__(self) -> int:
        return len(self.female)

    def __getitem__(self, index):  # type: ignore[override]
        if isinstance(index, slice):
            return tuple(zip(self.female[index], self.male[index]))
        return (self.female[index], self.male[index])

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter(zip(self.female, self.male))

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """The aligned ``(female, male)`` pairs."""
        return tuple(zip(self.female, self.male))

    @property
    def swap_map(self) -> SwapMap:
        """Counterparts of every word, both directions, including :attr:`extra_swaps`."""
        return SwapMap.from_pairs(self.pairs + self.extra_swaps)

    @property
    def female_words(self) -> WordList:
        """The female words as a :class:`WordList`."""
        return WordList(f"{self.name}:female", tuple(dict.fromkeys(self.female)), self.source)

    @property
    def male_words(self) -> WordList:
        """The male words as a :class:`WordList`."""
        return WordList(f"{self.name}:male", tuple(dict.fromkeys(self.male)), self.source)

    @property
    def words(self) -> tuple[str, ...]:
        """All words of the pairs and the extra swaps, without duplicates."""
        every = list(self.female) + list(self.male)
        for a, b in self.extra_swaps:
            every += [a, b]
        return tuple(dict.fromkeys(every))

    def to_dict(self) -> dict[str, Any]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {
            "name": self.name,
            "source": self.source,
            "pairs": [list(p) for p in self.pairs],
            "extra_swaps": [list(p) for p in self.extra_swaps],
            "digest": self.digest,
        }


@dataclass(frozen=True)
class NameLists:
    """Female and male first names, aligned so that ``female[i]`` swaps with ``male[i]``.

    Attributes
    ----------
    common_words : frozenset of str
        Names that are also ordinary English words (Will, Mark, Rose, May, ...): match them only
        when capitalized, and be careful at the start of a sentence.
    not_names : frozenset of str
        Entries that are more often ordinary words in some language or abbreviations than names
        in English text (Les, Alla, Vita, ...): never matched as names.
    digest : str
        SHA-256 over the lines ``female<TAB>male``.
    """

    female: tuple[str, ...]
    male: tuple[str, ...]
    common_words: frozenset[str] = frozenset()
    source: str = ""
    not_names: frozenset[str] = frozenset()
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        female = _as_words(self.female, "female")
        male = _as_words(self.male, "male")
        _check_aligned(female, male)
        object.__setattr__(self, "female", female)
        object.__setattr__(self, "male", male)
        object.__setattr__(self, "common_words", frozenset(self.common_words))
        object.__setattr__(self, "not_names", frozenset(self.not_names))
        object.__setattr__(self, "digest", words_digest(f"{f}\t{m}" for f, m in zip(female, male)))

    @property
    def pairs(self) -> tuple[tuple[str, str], ...]:
        """(female, male) name pairs, in list order."""
        return tuple(zip(self.female, self.male))

    @property
    def one_to_one(self) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...], tuple[str, ...]]:
        """``(pairs, unpaired_female, unpaired_male)``: a one-to-one pairing of the names.

        The lines are read in order and a line is a pair when neither of its names was on an
        earlier line (case-insensitively); a name whose partner on its first line was taken
        earlier or is one of ``not_names`` waits, and the waiting female and male names are then
        paired in order; what is left is unpaired. With lists aligned by frequency rank
        (``load_names("census")``: the built-in pairs, then the census names rank by rank) this
        pairs the i-th female with the i-th male name until the shorter list runs out.
        """
        skip = {w.lower() for w in self.not_names}
        seen: set[str] = set(skip)
        pairs: list[tuple[str, str]] = []
        waiting_f: list[str] = []
        waiting_m: list[str] = []
        for f, m in zip(self.female, self.male):
            new_f, new_m = f.lower() not in seen, m.lower() not in seen
            if new_f and new_m:
                pairs.append((f, m))
            elif new_f:
                waiting_f.append(f)
            elif new_m:
                waiting_m.append(m)
            seen.update((f.lower(), m.lower()))
        # names whose partner was taken or is a not-name: paired among themselves, in rank order
        n = min(len(waiting_f), len(waiting_m))
        pairs += zip(waiting_f[:n], waiting_m[:n])
        unpaired_f, unpaired_m = tuple(waiting_f[n:]), tuple(waiting_m[n:])
        return tuple(pairs), unpaired_f, unpaired_m

    @property
    def swap_map(self) -> SwapMap:
        """The names' :class:`SwapMap` (each name to its partner)."""
        return SwapMap.from_pairs(self.pairs)

    @property
    def female_words(self) -> WordList:
        """The female words as a :class:`WordList`."""
        return WordList("names:female", self.female, self.source)

    @property
    def male_words(self) -> WordList:
        """The male words as a :class:`WordList`."""
        return WordList("names:male", self.male, self.source)

    @property
    def names(self) -> tuple[str, ...]:
        """Every name, the female ones first."""
        return self.female + self.male

    def to_dict(self) -> dict[str, Any]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {
            "source": self.source,
            "pairs": [list(p) for p in self.pairs],
            "common_words": sorted(self.common_words),
            "not_names": sorted(self.not_names),
            "digest": self.digest,
        }


@dataclass(frozen=True)
class SeatTest:
    """A word-level SEAT/WEAT test: targets X, Y and attributes A, B, each a named word set.

    The effect size is computed as d = (mean_x s(x,A,B) - mean_y s(y,A,B)) / std_w s(w,A,B)
    with s(w,A,B) = mean_a cos(w,a) - mean_b cos(w,b) (Caliskan et al. 2017; May et al. 2019).

    Attributes
    ----------
    target_1, target_2, attribute_1, attribute_2 : WordList
        The four sets; each set's ``name`` is its category ("MaleNames", "Career", ...).
    digest : str
        SHA-256 over the four sets (category names and words).
    """

    name: str
    target_1: WordList
    target_2: WordList
    attribute_1: WordList
    attribute_2: WordList
    description: str = ""
    source: str = ""
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        parts = []
        for s in self.sets:
            parts.append(s.name)
            parts.extend(s.words)
        object.__setattr__(self, "digest", words_digest(parts))

    @property
    def sets(self) -> tuple[WordList, WordList, WordList, WordList]:
        """The four word lists: targets X and Y, attributes A and B."""
        return (self.target_1, self.target_2, self.attribute_1, self.attribute_2)

    @property
    def categories(self) -> tuple[str, str, str, str]:
        """The names of the four word lists (X, Y, A, B)."""
        return tuple(s.name for s in self.sets)  # type: ignore[return-value]

    @property
    def words(self) -> tuple[str, ...]:
        """All words of the four sets without duplicates."""
        return tuple(dict.fromkeys(w for s in self.sets for w in s))

    def to_dict(self) -> dict[str, Any]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {
            "name": self.name,
            "description": self.description,
            "source": self.source,
            "target_1": {"category": self.target_1.name, "words": list(self.target_1)},
            "target_2": {"category": self.target_2.name, "words": list(self.target_2)},
            "attribute_1": {"category": self.attribute_1.name, "words": list(self.attribute_1)},
            "attribute_2": {"category": self.attribute_2.name, "words": list(self.attribute_2)},
            "digest": self.digest,
        }


@dataclass(frozen=True)
class ProfessionScores:
    """Profession words with two gender scores each (Bolukbasi et al. 2016, ``professions.json``).

    Attributes
    ----------
    words : tuple of str
    definitional : tuple of float
        How definitionally gendered the word is (actress -1.0, actor 0.8).
    stereotypical : tuple of float
        How stereotypically gendered it is. In the file's convention negative leans female and
        positive leans male.
    """

    words: tuple[str, ...]
    definitional: tuple[float, ...]
    stereotypical: tuple[float, ...]
    source: str = ""
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        n = len(self.words)
        if len(self.definitional) != n or len(self.stereotypical) != n:
            raise InvalidParameterError(
                "definitional", len(self.definitional), f"{n} scores, one per word"
            )
        object.__setattr__(
            self,
            "digest",
            words_digest(
                f"{w}\t{d!r}\t{s!r}" for w, d, s in zip(self.words, self.definitional, self.stereotypical)
            ),
        )

    def __len__(self) -> int:
        return len(self.words)

    def scores(self, word: str) -> tuple[float, float]:
        """``(definitional, stereotypical)`` of ``word``."""
        try:
            i = self.words.index(word)
        except ValueError:
            raise InvalidParameterError("word", word, "a profession of the list") from None
        return self.definitional[i], self.stereotypical[i]

    def as_mapping(self) -> Mapping[str, tuple[float, float]]:
        """{profession: (definitional, stereotypical) score}."""
        return {w: (d, s) for w, d, s in zip(self.words, self.definitional, self.stereotypical)}

    def to_dict(self) -> dict[str, Any]:
        """The list (or table) as a JSON-ready dict, with its source and digest."""
        return {
            "source": self.source,
            "professions": [[w, d, s] for w, d, s in zip(self.words, self.definitional, self.stereotypical)],
            "digest": self.digest,
        }
