"""Whole-word matching of word lists in sentences, shared by corpus selection and extraction.

A word matches where it is not preceded or followed by a letter, digit or underscore, so "he"
does not match inside "the" and "nurse" does not match inside "nurses". Multi-word terms match
with any run of whitespace between their parts.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence


def compile_word_pattern(words: Iterable[str], *, case_sensitive: bool) -> re.Pattern[str]:
    """One alternation pattern for all ``words``; longest alternatives first so that the longest
    term wins where terms overlap ("ice cream" before "ice")."""
    unique = sorted({w for w in words}, key=lambda w: (-len(w), w))
    if not unique:
        raise ValueError("compile_word_pattern needs at least one word")
    parts = [r"\s+".join(re.escape(piece) for piece in w.split()) for w in unique]
    flags = 0 if case_sensitive else re.IGNORECASE
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", flags)


def normalize_word(word: str, *, case_sensitive: bool) -> str:
    collapsed = " ".join(word.split())
    return collapsed if case_sensitive else collapsed.lower()


class WordMatcher:
    """Finds whole-word occurrences of a fixed word list.

    Parameters
    ----------
    words : sequence of str
        The words to find. With ``case_sensitive=False`` matching ignores case and each match is
        reported under the word as written in ``words``.
    case_sensitive : bool
        Match case exactly (for cased tokenizers) or not (for lowercasing tokenizers).
    """

    def __init__(self, words: Sequence[str], *, case_sensitive: bool = False):
        self.words = list(dict.fromkeys(words))
        self.case_sensitive = case_sensitive
        self._pattern = compile_word_pattern(self.words, case_sensitive=case_sensitive)
        self._canonical: dict[str, str] = {}
        for w in self.words:
            self._canonical.setdefault(normalize_word(w, case_sensitive=case_sensitive), w)

    def finditer(self, sentence: str) -> Iterable[tuple[str, int, int]]:
        """Yield ``(word, start, end)`` for each occurrence, ``sentence[start:end]`` being the match."""
        for m in self._pattern.finditer(sentence):
            key = normalize_word(m.group(0), case_sensitive=self.case_sensitive)
            yield self._canonical[key], m.start(), m.end()

    def find(self, sentence: str) -> list[tuple[str, int, int]]:
        return list(self.finditer(sentence))

    def contains_any(self, sentence: str) -> bool:
        return self._pattern.search(sentence) is not None
