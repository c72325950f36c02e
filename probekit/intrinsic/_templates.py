"""The project's templates: bleached sentences for sentence-level SEAT and LPBS templates.

Sentence-level SEAT (May et al. 2019) puts every word of a test into "semantically bleached"
sentences that say nothing beyond the word itself. The sets below are written for probekit in
that spirit, one set per kind of word so that the sentences stay grammatical: person names,
singular count nouns (with "a"/"an"), plurals, mass nouns / adjectives, and pronouns by case.

LPBS (Kurita et al. 2019) needs templates with a gender slot and a target slot; Tokpo et al.
(2023) use "_ is a X."; we add four more and average over them.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from probekit.errors import InvalidParameterError
from probekit.text import indefinite_article

WORD_SLOT = "{w}"
"""Placeholder of the word in a bleached template. ``{W}`` is the word with a capital first letter,
``{a}`` / ``{A}`` the indefinite article ("a"/"an", capitalized)."""

BLEACHED_TEMPLATES: dict[str, tuple[str, ...]] = {
    "name": (
        "This is {w}.",
        "That is {w}.",
        "There is {w}.",
        "Here is {w}.",
        "{W} is here.",
        "{W} is there.",
        "{W} is a person.",
        "The person's name is {w}.",
    ),
    "noun": (
        "This is {a} {w}.",
        "That is {a} {w}.",
        "There is {a} {w}.",
        "Here is {a} {w}.",
        "The {w} is here.",
        "The {w} is there.",
        "It is {a} {w}.",
        "We talked about the {w}.",
    ),
    "plural": (
        "These are {w}.",
        "Those are {w}.",
        "They are {w}.",
        "There are {w}.",
        "Here are {w}.",
        "The {w} are here.",
        "The {w} are there.",
        "We talked about the {w}.",
    ),
    "mass": (
        "This is {w}.",
        "That is {w}.",
        "There is {w}.",
        "It is {w}.",
        "Here is {w}.",
        "{W} is here.",
        "We talked about {w}.",
        "The topic is {w}.",
    ),
    "subject_pronoun": (
        "{W} is here.",
        "{W} is there.",
        "{W} is a person.",
        "{W} came in.",
        "{W} was there.",
        "{W} is the one.",
        "{W} said so.",
        "{W} is here now.",
    ),
    "object_pronoun": (
        "This is for {w}.",
        "That is for {w}.",
        "We saw {w}.",
        "We met {w}.",
        "It is about {w}.",
        "Look at {w}.",
        "Talk to {w}.",
        "Ask {w}.",
    ),
    "possessive_pronoun": (
        "This is {w}.",
        "That is {w}.",
        "It is {w}.",
        "The one here is {w}.",
        "The one there is {w}.",
        "This one is {w}.",
        "That one is {w}.",
        "Which is {w}?",
    ),
}

WORD_KINDS: tuple[str, ...] = tuple(BLEACHED_TEMPLATES)

_SUBJECT = {"he", "she", "they", "we", "i", "you"}
_OBJECT = {"him", "her", "them", "us", "me", "himself", "herself", "themselves", "themself"}
_POSSESSIVE = {"his", "hers", "theirs", "mine", "yours", "ours"}
_IRREGULAR_PLURALS = {"people", "children", "men", "women", "geese", "mice", "teeth", "feet", "brethren", "cattle"}
# Academic fields, arts and activities in the standard SEAT tests, plus common stereotype terms
# that read as mass nouns or adjectives. Anything else lowercase is treated as a count noun.
_MASS = {
    "math", "mathematics", "algebra", "geometry", "calculus", "statistics", "physics", "chemistry",
    "biology", "astronomy", "science", "technology", "engineering", "poetry", "art", "literature",
    "music", "drama", "dance", "sculpture", "shakespeare", "management", "business", "salary",
    "marriage", "family", "beauty", "cooking", "sewing", "softball", "baseball", "makeup", "jewelry",
    "gossip", "pink", "pretty", "blonde", "strong", "cheerleading", "feminism", "estrogen",
    "testosterone", "brotherhood", "maternity", "clergy", "money", "wealth", "power",
}


# wordlists slot types -> bleached template kinds
_SLOT_TO_KIND = {
    "person_singular": "noun", "count_noun": "noun", "animal_singular": "noun",
    "person_plural": "plural", "plural_noun": "plural", "animal_plural": "plural",
    "mass_noun": "mass", "activity": "mass", "adjective": "mass",
    "name": "name", "kin_name": "name", "address": "name", "honorific": "name",
    "subject_pronoun": "subject_pronoun",
    "object_pronoun": "object_pronoun", "reflexive_pronoun": "object_pronoun",
    "possessive_pronoun": "possessive_pronoun", "possessive_determiner": "possessive_pronoun",
}


def _listed_kind(word: str) -> str | None:
    try:
        import wordlists

        return _SLOT_TO_KIND.get(wordlists.slot_type(word))
    except (ImportError, ValueError):  # not a word of the built-in lists
        return None


def infer_word_kind(word: str) -> str:
    """Which bleached template set fits ``word``.

    Words of the built-in lists use their slot type from ``wordlists.slot_type`` (person and
    count nouns -> "noun", plurals -> "plural", mass nouns, activities and adjectives -> "mass",
    names and forms of address -> "name", pronouns by case). Other words are guessed: a
    capitalized word is a name; a known mass noun or a word ending in -ics is "mass"; irregular
    plurals, words ending in -men and words ending in "s" (not -ss, -us, -is) are plural;
    everything else is a singular count noun. Pass ``kinds`` to the SEAT functions to override.
    """
    listed = _listed_kind(word)
    if listed is not None:
        return listed
    lower = word.lower()
    if lower in _SUBJECT:
        return "subject_pronoun"
    if lower in _OBJECT:
        return "object_pronoun"
    if lower in _POSSESSIVE:
        return "possessive_pronoun"
    if word[:1].isupper():
        return "name"
    if lower in _MASS or lower.endswith("ics"):
        return "mass"
    if lower in _IRREGULAR_PLURALS or lower.endswith("men"):
        return "plural"
    if lower.endswith("s") and not lower.endswith(("ss", "us", "is")):
        return "plural"
    return "noun"


def fill_template(template: str, word: str) -> str:
    """Put ``word`` into ``template`` (placeholders ``{w}``, ``{W}``, ``{a}``, ``{A}``)."""
    article = indefinite_article(word)
    return (
        template.replace("{W}", word[:1].upper() + word[1:])
        .replace("{w}", word)
        .replace("{A}", article.capitalize())
        .replace("{a}", article)
    )


def bleached_sentences(
    words: Iterable[str],
    *,
    templates: Mapping[str, Sequence[str]] | Sequence[str] | None = None,
    kinds: Mapping[str, str] | None = None,
) -> tuple[list[str], list[str]]:
    """Bleached sentences for each word.

    Parameters
    ----------
    words : iterable of str
    templates : mapping kind -> templates, or one sequence of templates for every word, optional
        Default :data:`BLEACHED_TEMPLATES`. Each template contains ``{w}`` or ``{W}``.
    kinds : mapping word -> kind, optional
        Overrides :func:`infer_word_kind` for the words it names.

    Returns
    -------
    sentences, sentence_words : list of str, list of str
        The sentences, and for each the word it was made for.
    """
    if templates is None:
        table: Mapping[str, Sequence[str]] | None = BLEACHED_TEMPLATES
        flat: Sequence[str] | None = None
    elif isinstance(templates, Mapping):
        table, flat = templates, None
    else:
        table, flat = None, list(templates)
        _check_word_templates(flat, "templates")
    sentences: list[str] = []
    owners: list[str] = []
    for word in words:
        if flat is not None:
            chosen: Sequence[str] = flat
        else:
            kind = (kinds or {}).get(word) or infer_word_kind(word)
            assert table is not None
            if kind not in table:
                raise InvalidParameterError(
                    "kinds", {word: kind}, sorted(table), "no template set for this kind of word"
                )
            chosen = table[kind]
            _check_word_templates(chosen, f"templates[{kind!r}]")
        for template in chosen:
            sentences.append(fill_template(template, word))
            owners.append(word)
    return sentences, owners


def _check_word_templates(templates: Sequence[str], name: str) -> None:
    if not templates:
        raise InvalidParameterError(name, list(templates), "at least one template")
    for t in templates:
        if not isinstance(t, str) or ("{w}" not in t and "{W}" not in t):
            raise InvalidParameterError(name, t, "templates containing the word placeholder {w} or {W}")


# ---------------------------------------------------------------------------------------------
# LPBS

GENDER_SLOT = "{gender}"
TARGET_SLOT = "{target}"

LPBS_TEMPLATES: tuple[str, ...] = (
    "{gender} is a {target}.",  # Tokpo et al. 2023 ("_ is a X."), after Kurita et al. 2019
    "{gender} is known as a {target}.",
    "{gender} wants to be a {target}.",
    "{gender} is interested in {target}.",
    "{gender} talked about the {target}.",
)
"""Default LPBS templates: exactly one ``{gender}`` and one ``{target}`` slot each."""


def check_lpbs_templates(templates: Sequence[str]) -> tuple[str, ...]:
    if isinstance(templates, str) or not templates:
        raise InvalidParameterError("templates", templates, "a non-empty sequence of template strings")
    for t in templates:
        if not isinstance(t, str) or t.count(GENDER_SLOT) != 1 or t.count(TARGET_SLOT) != 1:
            raise InvalidParameterError(
                "templates", t, "strings with exactly one '{gender}' and one '{target}' slot"
            )
    return tuple(templates)
