"""Splitting running text into sentences (rule-based: abbreviations, initialisms, quotes)."""

from __future__ import annotations

import re

# Abbreviations after which a period does not end a sentence (compared lowercase, without the
# final period).
_NON_FINAL_ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr prof st sr jr rev fr hon gen col capt cpt sgt lt cmdr adm gov sen pres
    mt approx ca cf vs v e.g i.e viz al dept univ assn bros messrs mme mlle
    jan feb apr jun jul aug sep sept oct nov dec
    """.split()
)
# Abbreviations that do not end a sentence when a number follows ("No. 5", "Fig. 3", "p. 12")
# but may end one otherwise ("The answer was no. We left.").
_BEFORE_NUMBER_ABBREVIATIONS = frozenset("no nos vol vols fig figs eq eqs ch sec art p pp".split())
# Abbreviations that often end a sentence: split after them when a capital letter follows.
_FINAL_ABBREVIATIONS = frozenset("etc inc ltd co corp a.m p.m am pm".split())

_BOUNDARY = re.compile(r"""([.!?\u2026]+)(["'\u201d\u2019)\]]*)(\s+)(?=["'\u201c\u2018(\[]*[A-Z0-9\u00c0-\u00de])""")
_INITIALISM = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")


def _token_before(text: str, end: int) -> str:
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end].lstrip("\"'\u201c\u2018([")


def split_sentences(text: str) -> list[str]:
    """Split running text into sentences with rules (no model, deterministic).

    A sentence ends at ``.``, ``!``, ``?`` or an ellipsis, optionally followed by closing quotes
    or brackets, when whitespace and then a capital letter, a digit or an opening quote follow.
    A period does not end a sentence after a known abbreviation (Dr., Mr., e.g., i.e., ...;
    "No.", "Fig.", "p." only before a number), after a single initial ("J. K. Rowling") or after a dotted initialism ("U.S.");
    decimals ("3.14") never split because no space follows the period. Lines are joined, so
    hard-wrapped text splits the same as unwrapped text.

    Parameters
    ----------
    text : str
        One paragraph (or any text).

    Returns
    -------
    list of str
        The sentences, stripped, without empty ones.
    """
    flat = " ".join(text.split())
    if not flat:
        return []
    sentences = []
    start = 0
    for m in _BOUNDARY.finditer(flat):
        terminator = m.group(1)
        if terminator == ".":
            token = _token_before(flat, m.start(1)).rstrip(".")
            low = token.lower()
            if low in _NON_FINAL_ABBREVIATIONS:
                continue
            if low in _BEFORE_NUMBER_ABBREVIATIONS and flat[m.end(3):m.end(3) + 1].isdigit():
                continue
            if low not in _FINAL_ABBREVIATIONS:
                if len(token) == 1 and token.isalpha() and token.isupper():
                    continue  # an initial: "J. K. Rowling"
                if _INITIALISM.match(token):
                    continue  # a dotted initialism: "U.S. Army"
        end = m.end(2)
        piece = flat[start:end].strip()
        if piece:
            sentences.append(piece)
        start = m.end(3)
    tail = flat[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


_split_text = split_sentences  # load_hf_corpus has a parameter called split_sentences
