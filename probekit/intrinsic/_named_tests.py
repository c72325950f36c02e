"""Named SEAT tests: the standard gender tests 6-8b and the paper's variant, from ``wordlists``.

A test named after a published one (``"weat7"``) means the published test: its word sets at
word level and, at sentence level, the published sentences of the ``sent-weat*`` files (May et al.
2019, as released with Liang et al. 2020). ``"weat7-templates"`` names probekit's own variant: the
same words put into probekit's bleached templates (:func:`probekit.intrinsic.sentence_seat`).
"""

from __future__ import annotations

from typing import Any

import wordlists
from probekit.errors import InvalidParameterError

STANDARD_SEAT_TESTS: tuple[str, ...] = ("weat6", "weat6b", "weat7", "weat7b", "weat8", "weat8b")
"""The standard word-level SEAT gender tests (Caliskan et al. 2017 via May et al. 2019)."""

TEMPLATE_SUFFIX = "-templates"
"""Suffix of the template variant of a standard test (``"weat7-templates"``): its words in probekit's templates."""

PAPER_TEST = "paper"
"""Tokpo et al. (2023): X, Y = female / male stereotypes, A, B = female / male attribute terms."""


def _unique(words: Any) -> list[str]:
    return list(dict.fromkeys(str(w) for w in words))


def seat_word_sets(test: Any) -> dict[str, list[str]]:
    """The four word sets ``{"X", "Y", "A", "B"}`` of a SEAT test.

    Parameters
    ----------
    test : str or wordlists.SeatTest
        ``"paper"`` (X, Y = the paper's female / male stereotypes, A, B = its female / male
        attribute terms), a standard test name (``"weat6"`` ... ``"weat8b"``, also ``"6"``,
        ``"seat7b"``), or a ``SeatTest``-like object with ``target_1``, ``target_2``,
        ``attribute_1``, ``attribute_2`` (X = target_1, Y = target_2, A = attribute_1,
        B = attribute_2). Duplicates are dropped, order kept.
    """
    if isinstance(test, str):
        test = _without_template_suffix(test)
        if test.strip().lower() == PAPER_TEST:
            female_x, male_x = wordlists.load_paper_stereotypes()
            female_a, male_a = wordlists.load_paper_attributes()
            return {"X": _unique(female_x), "Y": _unique(male_x), "A": _unique(female_a), "B": _unique(male_a)}
        try:
            test = wordlists.load_seat_test(test)
        except InvalidParameterError:
            raise InvalidParameterError(
                "test", test, (PAPER_TEST,) + tuple(wordlists.seat_test_names())
            ) from None
    try:
        sets = (test.target_1, test.target_2, test.attribute_1, test.attribute_2)
    except AttributeError:
        raise InvalidParameterError(
            "test", type(test).__name__, "a test name or an object with target_1, target_2, attribute_1, attribute_2"
        ) from None
    return {key: _unique(words) for key, words in zip("XYAB", sets)}


def seat_test_categories(test: Any) -> dict[str, str]:
    """Category names of the four sets (e.g. ``{"X": "MaleNames", ...}``)."""
    if isinstance(test, str):
        if test.strip().lower() == PAPER_TEST:
            return {"X": "FemaleStereotypes", "Y": "MaleStereotypes", "A": "FemaleAttributes", "B": "MaleAttributes"}
        test = wordlists.load_seat_test(test)
    return {key: getattr(s, "name", key) for key, s in zip("XYAB", (test.target_1, test.target_2, test.attribute_1, test.attribute_2))}


def _without_template_suffix(name: str) -> str:
    stripped = name.strip()
    return stripped[: -len(TEMPLATE_SUFFIX)] if stripped.lower().endswith(TEMPLATE_SUFFIX) else stripped


def is_template_variant(test: Any) -> bool:
    """Whether ``test`` names the template variant of a standard test (``"weat7-templates"``)."""
    return isinstance(test, str) and test.strip().lower().endswith(TEMPLATE_SUFFIX)


def seat_sentence_sets(test: str) -> dict[str, list[str]]:
    """The published sentences ``{"X", "Y", "A", "B"}`` of a standard sentence-level SEAT test.

    Parameters
    ----------
    test : str
        ``"weat6"`` ... ``"weat8b"`` (also ``"sent-weat7"``, ``"7b"``): the sentences of the
        published ``sent-weat*.jsonl`` files (:func:`wordlists.load_seat_sentence_test`, MIT),
        X = targ1, Y = targ2, A = attr1, B = attr2, order kept (duplicates kept, as published).
    """
    published = wordlists.load_seat_sentence_test(test)
    sets = (published.target_1, published.target_2, published.attribute_1, published.attribute_2)
    return {key: [str(s) for s in sentences] for key, sentences in zip("XYAB", sets)}
