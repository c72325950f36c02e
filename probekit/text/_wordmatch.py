"""Whole-word matching of word lists in sentences, shared by corpus selection and extraction.

A word matches where it is not preceded or followed by a letter, digit or underscore, so "he"
does not match inside "the" and "nurse" does not match inside "nurses". Multi-word terms match
with any run of whitespace between their parts.
"""

from __future__ import annotations

import functools
import re
from typing import Iterable, Sequence


def _units(word: str) -> tuple[str, ...]:
    """The word as matching units: one per character, one ``" "`` per run of whitespace."""
    return tuple(" " if c.isspace() else c for c in " ".join(word.split()))


def trie_alternation(words: Iterable[str]) -> str:
    """A regular expression matching exactly ``words``, factored as a prefix tree.

    Python's ``re`` tries the branches of a flat alternation one by one, so a flat pattern of a
    few hundred words costs a few hundred comparisons at every word start. Factoring common
    prefixes ("her", "herself", "hero", "heroine" -> ``her(?:self|o(?:ine)?)?``) makes matching
    roughly proportional to the length of the match instead. Optional tails are greedy, so at a
    given position the longest word is tried first and shorter ones only on backtracking (when
    the longer one is not followed by a word boundary): the same semantics as a flat
    alternation sorted longest first.
    """
    root: dict = {}
    for word in words:
        node = root
        for unit in _units(word):
            node = node.setdefault(unit, {})
        node[""] = {}

    def build(node: dict) -> str:
        children = sorted(k for k in node if k != "")
        if not children:
            return ""
        alternatives = [
            (r"\s+" if unit == " " else re.escape(unit)) + build(node[unit]) for unit in children
        ]
        body = alternatives[0] if len(alternatives) == 1 else "(?:" + "|".join(alternatives) + ")"
        if "" in node:
            body = "(?:" + body + ")?"
        return body

    return build(root)


def compile_word_pattern(words: Iterable[str], *, case_sensitive: bool) -> re.Pattern[str]:
    """One pattern for all ``words`` (a prefix tree, see :func:`trie_alternation`); where terms
    overlap the longest one that ends at a word boundary wins ("ice cream" before "ice").
    """
    unique = {normalize_word(w, case_sensitive=case_sensitive) for w in words}
    unique.discard("")
    if not unique:
        raise ValueError("compile_word_pattern needs at least one non-empty word")
    return _compiled(frozenset(unique), case_sensitive)


@functools.lru_cache(maxsize=64)
def _compiled(unique: frozenset[str], case_sensitive: bool) -> re.Pattern[str]:
    # Cached: the probe suite and repeated extractions match the same lists many times.
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(r"(?<!\w)(?:" + trie_alternation(unique) + r")(?!\w)", flags)


def normalize_word(word: str, *, case_sensitive: bool) -> str:
    """``word`` with runs of whitespace collapsed to one space, lowercased unless ``case_sensitive``."""
    collapsed = " ".join(word.split())
    return collapsed if case_sensitive else collapsed.lower()


_SENTENCE_OPENERS = " \t\n\"'“‘«([{-–—"


class WordMatcher:
    """Finds whole-word occurrences of a fixed word list.

    Parameters
    ----------
    words : sequence of str
        The words to find. With ``case_sensitive=False`` matching ignores case and each match is
        reported under the word as written in ``words``.
    case_sensitive : bool
        Match case exactly (for cased tokenizers) or not (for lowercasing tokenizers).
    sentence_initial_capital : bool, default True
        With ``case_sensitive=True``, also match a lowercase word written with a capital first
        letter at the start of the text ("She left." holds "she"), reported under the word as
        listed. Elsewhere a capital still makes a different word ("Rose" the name, not "rose").
    """

    def __init__(self, words: Sequence[str], *, case_sensitive: bool = False, sentence_initial_capital: bool = True):
        self.words = list(dict.fromkeys(words))
        self.case_sensitive = case_sensitive
        self._canonical: dict[str, str] = {}
        for w in self.words:
            self._canonical.setdefault(normalize_word(w, case_sensitive=case_sensitive), w)
        self._initial_only: dict[str, str] = {}
        if case_sensitive and sentence_initial_capital:
            for key, w in list(self._canonical.items()):
                capitalized = key[:1].upper() + key[1:]
                if capitalized != key and capitalized not in self._canonical:
                    self._initial_only.setdefault(capitalized, w)
        self._pattern = compile_word_pattern([*self.words, *self._initial_only], case_sensitive=case_sensitive)

    def finditer(self, sentence: str) -> Iterable[tuple[str, int, int]]:
        """Yield ``(word, start, end)`` for each occurrence, ``sentence[start:end]`` being the match."""
        for m in self._pattern.finditer(sentence):
            key = normalize_word(m.group(0), case_sensitive=self.case_sensitive)
            word = self._canonical.get(key)
            if word is None:
                word = self._initial_only.get(key)
                # A capitalized form away from the start is another word; a match whose lowercase
                # differs from the listed word's ("İris", "ſhe") is none of the listed words.
                if word is None or sentence[: m.start()].strip(_SENTENCE_OPENERS):
                    continue
            yield word, m.start(), m.end()

    def find(self, sentence: str) -> list[tuple[str, int, int]]:
        """Every match in ``sentence``: (word as listed, start, end), left to right."""
        return list(self.finditer(sentence))

    def contains_any(self, sentence: str) -> bool:
        """Whether ``sentence`` contains any of the words (whole-word match)."""
        if not self._initial_only:
            return self._pattern.search(sentence) is not None
        return next(iter(self.finditer(sentence)), None) is not None
