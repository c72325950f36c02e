"""Which "her" is an object and which "his" stands alone: a small rule-based grammar of the words
around the pronoun, used by :func:`debias.swap` ("her" -> "him" or "his"; "his" -> "her" or
"hers").

No tagger and no model: closed word classes written for probekit (prepositions, conjunctions,
determiners, pronouns, auxiliaries, particles, adverbs), a few small open-class lexicons
(ditransitive, causative, perception and naming verbs; predicative adjectives; mass nouns that
follow a double object), and suffix rules (-ly adverbs, -ing/-ed participles, -ous/-ful/-less
adjectives). What the rules look at, in order:

"her" is a possessive determiner ("his") when

- it starts a sentence ("Her back pain was severe.") -- a sentence-initial "Her" is never an
  object;
- a hyphenated compound follows ("her well-known novel", "her so-called friend");
- a quotation follows ("calling him her ``Nerd Lover''"), unless a verb of saying precedes
  ("told her "no"");
- a capitalized word follows ("her A levels", "her Nobel Prize"), unless a naming, saying or
  double-object verb precedes ("named her Queen", "told her Mary left");
- "and"/"or" and a *different* possessive follow ("her and his children"); the same one
  ("forsaken her and her family") is a coordinated object;
- an open-class word follows that is not read as below (nouns, adjectives, numbers, "own",
  "every", "best": "her book", "her new job", "her 30s", "did her best to");
- "just", "rather", "quite" follow before an adjective and a noun ("her just reward", "her rather
  unstable convictions"); "last" after "breathe" or a preposition ("breathed her last").

It is an object ("him") when

- punctuation or the end of the text follows ("saw her.", "for her, ...");
- a closed-class word follows: a preposition, conjunction, determiner, pronoun, auxiliary,
  particle or adverb ("told her that", "gave her a book", "let her down", "saw her again");
- a verb follows: a bare infinitive after a causative or perception verb ("made her lose",
  "let her stay", "helped her find"), or a verb that is never a noun, in its base or -s form
  ("all who know her consider", "in her eludes me", "useful to her gets crowded out");
- an elided word follows an apostrophe ("blame her 'cause she ran");
- a participle follows that is not a modifier of a noun ("found her carrying a suitcase",
  "had her buried", "get her fired", "kept her waiting", "took her shopping with me"), or a
  predicative adjective ending at a word that starts a clause or phrase ("made her famous.",
  "shot her dead because", "think her guilty you judge", "kept her awake most of the night"),
  possibly after a -ly adverb ("makes her absolutely livid");
- a -ly adverb ends the clause ("watched her helplessly.", "finds her unruly");
- a count of times or "X after X" follows ("stopped her four or five times", "night after night"),
  or "much"/"far" and a comparative ("known her much longer than");
- "back" follows after a verb of motion (any form: "hitting her back", "pays her back") or
  before a direction ("tracked her back toward"), but not after a verb of the body or a
  preposition ("injured her back in a fall", "on her back");
- a double-object verb precedes and a mass noun follows, possibly after adjectives or "more"
  ("brought her immediate recognition", "gave her more eclat than", "gave her joy for 20
  years", "wished her luck in her endeavor"), but not "offer" ("offered his sympathy") nor a
  noun followed by "to", "with" or "in" + a gerund ("gave his support to"); or a naming verb
  and a role ("elected her president");
- an adverb that can also premodify a noun ("later", "then", "back", "only", "first", -ly
  adverbs) is followed by no noun phrase ("saw her later that day", but "her later years",
  "her then husband", "her newly published book").

"his" stands alone ("hers") when punctuation (not an opening quote), the end of the text, or a
closed-class word that cannot start a noun phrase follows ("the book is his.", "a friend of his
from school", "his is red", "a saying of his later, and"); a capitalized word, a quotation, an
adjective or noun ("his back", "his later years", "his The Book of Healing", "his ``voodoo
dolls''"), "just"/"rather" before a noun phrase ("his just inheritance") and a final "being"
("has his being.") make it a determiner.

Verb lexicons list base and irregular forms; the regular -s/-ed/-ing forms are derived
(:func:`_with_forms`). Every rule was checked against the possessive "her" before nouns on the
real-text corpora of ``scripts/check_swap_real_text.py`` (the decisions it changed are all
corrections) and is pinned by a row of ``tests/unit/test_swap_real_text_cases.py``.
"""

from __future__ import annotations

import re

from debias._gendered_words import is_sentence_initial
from debias._word_classes import (
    _ADJECTIVE_NOUNS,
    _ADVERBS,
    _BACK_BODY_VERBS,
    _BACK_DIRECTIONS,
    _BACK_NOUN_FOLLOWERS,
    _BACK_OBJECT_VERBS,
    _HOME_VERBS,
    CAUSATIVE_NOUNS,
    CAUSATIVES,
    CLOSED,
    DETERMINERS,
    DITRANSITIVES,
    DOUBLE_OBJECT_ADJECTIVES,
    MASS_NOUNS,
    MODIFIERS,
    NAMING_VERBS,
    NOUN_VERBS,
    NUMBER_WORDS,
    OBJECT_PREDICATE_VERBS,
    PARTICLES,
    POSSESSIVES,
    PREDICATIVE_ADJECTIVES,
    PREPOSITIONS,
    PRONOUNS,
    RELATIONAL_NOUNS,
    ROLES,
    STRONG_CAUSATIVES,
    TIME_NOUNS,
    VERBS,
    VERBS_OF_SAYING,
    VERBS_ONLY,
    _is_adjective,
    _is_ly_adverb,
    _is_participle,
    _with_forms,
    _words,
)

__all__ = ["her_is_object", "his_stands_alone"]


_CLAUSE_PUNCTUATION = frozenset(".,;:!?)]}…")
_NEXT = re.compile(
    r"[ \t\r\n]*(?:(\w+(?:['’](?:t|ll|ve|re|d|m)(?!\w))?)(-(?=\w))?|(``|[“‘«]|(?<=\s)[\"'](?=\w))|(\S))"
)
_PREVIOUS = re.compile(r"(\w+)([^\w]*)\Z")


class _Token:
    __slots__ = ("compound", "end", "low", "punct", "quote", "word")

    def __init__(self, match: re.Match[str] | None):
        if match is None:
            self.word = self.low = self.quote = self.punct = None
            self.compound = False
            self.end = -1
            return
        self.word = match.group(1)
        self.low = self.word.lower() if self.word is not None else None
        self.compound = match.group(2) is not None
        self.quote = match.group(3)
        self.punct = match.group(4)
        self.end = match.end()


_NEXT_SEEN: dict[tuple[str, int], _Token] = {}


def _plain_token(word: str, end: int) -> _Token:
    token = _Token.__new__(_Token)
    token.word, token.low, token.quote, token.punct, token.compound, token.end = word, word.lower(), None, None, False, end
    return token


def _next(text: str, end: int) -> _Token:
    """The token after ``end``; the rules and the model of one slot ask for the same few, so the
    latest are kept (a str caches its hash, and the same text object compares at once).
    """
    if text[end:end + 1] == " ":  # the fast path: one space and a plain word, as the pattern reads it
        stop = text.find(" ", end + 1)
        word = text[end + 1:stop] if stop > 0 else text[end + 1:]
        if word.isalpha():
            return _plain_token(word, end + 1 + len(word))
    key = (text, end)
    token = _NEXT_SEEN.get(key)
    if token is None:
        if len(_NEXT_SEEN) > 32:
            _NEXT_SEEN.clear()
        token = _NEXT_SEEN[key] = _Token(_NEXT.match(text, end))
    return token


def _previous(text: str, start: int) -> tuple[str | None, bool]:
    """The lowercase word before ``start`` and whether only spaces stand between (no punctuation)."""
    if start > 1 and text[start - 1] == " ":  # the fast path: one space after a plain word
        k = text.rfind(" ", 0, start - 1) + 1
        word = text[k:start - 1]
        if word.isalpha() and word.isascii():
            return word.lower(), True
    m = _PREVIOUS.search(text, max(0, start - 40), start)
    if m is None:
        return None, False
    gap = m.group(2)
    return m.group(1).lower(), not gap or gap.isspace()


def _is_open(token: _Token) -> bool:
    """Whether ``token`` can continue a noun phrase: a word (or compound) that is no function word."""
    if token.word is None:
        return token.quote is not None
    if token.compound:
        return True
    return token.low not in CLOSED and token.low not in _ADVERBS and not _is_ly_adverb(token.low)


# Words that end the predicate of an object ("made her famous in Europe", "kept her awake most of
# the night", "think her guilty you judge amiss", "shot her dead because"): a clause or a phrase
# begins with them, and none can follow an adjective inside a noun phrase.
_PREDICATE_FOLLOWERS = (
    PREPOSITIONS | PARTICLES | DETERMINERS
    | _words("to enough again too that most still because when while if though although whereas unless "
             "once so where i you he she we they it")
)
# Adverbs that premodify an adjective ("his rather unstable convictions") and, after an object,
# a predicate ("found her rather dull", "told her quite a story").
_DEGREE_PARTICLES = _words("rather quite somewhat fairly")
# Comparatives after "much", "far", "long" ("known her much longer than you have").
_COMPARATIVES = _words(
    "longer more less better worse earlier later sooner further farther harder too faster"
)
# "best" is a noun after a possessive ("did her best", "at her best") unless a verb of seeing or
# liking precedes ("loved her best"); "last" only after "breathe" or a preposition ("breathed his
# last", "to her last"; but "eat her last").
_BREATHE = _with_forms(_words("breathe"))
_COPULAS = _words("is was are were be been being")
_SEE_OR_LIKE = _with_forms(_words("see saw seen like love prefer want")) | _words("loved liked")
# "took her shopping", "take him fishing", "invites him fishing on the Wharfe".
_TAKE = _words("take takes took taken taking invite invites invited inviting")
# Double-object verbs whose bare noun after "her"/"his" is mostly the possessor's ("offered his
# sympathy", "offered his resignation"): left out of the mass-noun rule.
_MASS_OBJECT_VERBS = DITRANSITIVES - _words("offer offers offered offering")
# "blame her 'cause he ran": elided words after an apostrophe.
_ELIDED = re.compile(r"(?:cause|cos|til|till|em|bout|round|fore)(?!\w)", re.IGNORECASE)


def _predicate_ends(token: _Token) -> bool:
    """After a predicative adjective: punctuation, the end, or a word that begins a clause or
    phrase (:data:`_PREDICATE_FOLLOWERS`), not "and"/"but" or a noun.
    """
    if token.word is None:
        return token.quote is None
    return token.low in _PREDICATE_FOLLOWERS


def _place_follows(token: _Token) -> bool:
    """Punctuation, the end or a preposition ("took her shopping with me", "take him fishing.")."""
    return token.word is None and token.quote is None or token.low in PREPOSITIONS


def _bare_noun_blocked(text: str, after: _Token) -> bool:
    """Whether the word after a bare noun makes it the possessor's ("gave his support to",
    "offered his help in unloading", "gave his support for"), not a second object ("gave her
    joy for 20 years", "wished her luck in her new job").
    """
    if after.low in ("to", "with", "that"):
        return True
    if after.low in ("in", "for"):
        following = _next(text, after.end).low or ""
        if after.low == "in":
            return following.endswith("ing")
        return not (following.isdigit() or following in NUMBER_WORDS or following in TIME_NOUNS
                    or following in ("many", "years", "months", "decades", "life", "ever", "weeks", "days"))
    return False


def _mass_object_follows(text: str, token: _Token) -> bool:
    """A mass noun, possibly after up to two adjectives or -ly adverbs, and not followed by "to"
    ("brought him immediate recognition"; "gave his support to" is a possessive).
    """
    degree = False
    for _ in range(3):
        if token.word is None or token.compound:
            return False
        after = _next(text, token.end)
        if token.low in MASS_NOUNS:
            return not _bare_noun_blocked(text, after)
        if degree and token.low not in CLOSED and not _is_open(after):
            return True  # "caused him great distress", "won him many followers"
        if token.low in DOUBLE_OBJECT_ADJECTIVES:
            degree = True
        elif token.low in CLOSED or not (_is_adjective(token.low) or _is_ly_adverb(token.low)
                                         or token.low.endswith(("ate", "ive", "al", "ic", "ant", "ent"))):
            return False
        token = after
    return False


def _times_follow(text: str, token: _Token) -> bool:
    """A count of times: "shot him 14 times", "stopped him four or five times"."""
    for _ in range(3):
        if not (token.low is not None and (token.low in NUMBER_WORDS or token.low.isdigit())):
            return False
        token = _next(text, token.end)
        if token.low == "times":
            return True
        if token.low not in ("or", "to", "and"):
            return False
        token = _next(text, token.end)
    return False


def her_is_object(text: str, start: int, end: int) -> bool:
    """Whether the "her" at ``text[start:end]`` is an object pronoun ("him"), not a possessive
    determiner ("his"); see the module docstring for the rules.
    """
    if end == len(text) or text[end] in _CLAUSE_PUNCTUATION:
        return True  # the fast path: "saw her.", "for her, ..."
    token = _next(text, end)
    if token.word is None:
        if token.quote is not None:
            previous, adjacent = _previous(text, start)
            if token.quote in "'’" and _ELIDED.match(text, token.end):
                return True  # "don't blame her 'cause he ran"
            return adjacent and previous in VERBS_OF_SAYING
        return True  # punctuation or the end of the text ("Her?" alone is an object)
    if is_sentence_initial(text, start):
        return False
    if token.compound:
        return False
    low = token.low
    previous, adjacent = _previous(text, start)
    if not adjacent:
        previous = None
    cues = text[start:end] != "HER"  # an all-capitals text gives no case cues
    if cues and token.word[:1].isupper() and low != "i":
        return previous in NAMING_VERBS  # "named her Queen"; but "asked his Master", "gave his Nobel lecture"
    if low in CLOSED:
        return _object_before_closed(text, token, low, previous)
    if low in MODIFIERS or low in ("back", "home"):
        return _object_before_modifier(text, token, low, previous)
    after = _next(text, token.end)
    if _is_ly_adverb(low):
        if not _is_open(after):
            return True  # "watched her helplessly", "finds her unruly."
        if previous not in OBJECT_PREDICATE_VERBS:
            return False  # "her newly published book"
    if low in VERBS_ONLY:
        return True  # "all who know her consider", "in her eludes me"
    return _object_before_open(text, token, low, previous, after)


def _object_before_open(text: str, token: _Token, low: str, previous: str | None, after: _Token) -> bool:
    """:func:`her_is_object` before an open-class word (a noun, verb, adjective or participle)."""
    if previous in STRONG_CAUSATIVES and (low in VERBS or low in NOUN_VERBS) and low not in CAUSATIVE_NOUNS:
        return True
    if previous in CAUSATIVES and low not in CAUSATIVE_NOUNS and (
        low in VERBS or low in NOUN_VERBS and after.word is not None
    ):
        return True  # "heard him exclaim", "saw her laugh at"; but "heard her laugh."
    if _is_participle(low):
        if previous in OBJECT_PREDICATE_VERBS or previous in _TAKE and low.endswith("ing") and _place_follows(after):
            return True  # "found her carrying", "took her shopping"
        # "for him invented a new program" (a verb) but "for her published work" (a modifier)
        return low.endswith("ed") and (after.low in DETERMINERS or after.low in PRONOUNS or after.low in POSSESSIVES)
    if low in PREDICATIVE_ADJECTIVES and low not in _ADJECTIVE_NOUNS and previous not in PREPOSITIONS and _predicate_ends(after):
        return True  # "lifted him free", "shot him dead because", "kept him awake most of the night"
    if _times_follow(text, token):
        return True  # "shot him 14 times", "stopped him four or five times"
    if low == "every" and (after.low in TIME_NOUNS or after.low == "couple"):
        return True  # "found him every couple of blocks"; but "her every move"
    if low in TIME_NOUNS and after.low == "after" and _next(text, after.end).low == low:
        return True  # "watches her night after night"
    if low == "best" and previous in _SEE_OR_LIKE and not _is_open(after):
        return True  # "loved her best."; but "did her best to"
    if low == "one" and after.low == "of":
        return True  # "consider him one of the best"
    if previous in OBJECT_PREDICATE_VERBS or previous in NAMING_VERBS:
        if _is_adjective(low) and _predicate_ends(after):
            return True  # "made her famous.", "found her dead"
        if _is_ly_adverb(low) and after.word is not None and not after.compound:
            return _predicate_ends(_next(text, after.end))  # "made her deliriously happy", "absolutely livid."
    if low == "past":
        return after.low in DETERMINERS or after.low in POSSESSIVES
    if previous in _MASS_OBJECT_VERBS and low not in RELATIONAL_NOUNS and _mass_object_follows(text, token):
        return True
    return previous in NAMING_VERBS and low in ROLES


def _object_before_closed(text: str, token: _Token, low: str, previous: str | None) -> bool:
    if low in ("and", "or"):
        second = _next(text, token.end)
        # "her and his children" (two determiners) but "forsaken her and her family" (an object)
        return not (second.low in POSSESSIVES and second.low != "her")
    if low == "being":  # "saw her being carried"; but "of her being tired", "has her being."
        return previous not in PREPOSITIONS and _next(text, token.end).word is not None
    if low == "will":
        return _next(text, token.end).low in ("be", "not", "have", "never", "always", "soon")
    if low in ("may", "can", "must"):
        return not _is_open(_next(text, token.end))
    if low == "just":
        return _just_is_adverb(_next(text, token.end))  # "her just reward"; but "found her just sitting there"
    if low in _DEGREE_PARTICLES:
        after = _next(text, token.end)  # "her rather unstable convictions"; but "found her rather dull."
        return not (_is_open(after) and _is_open(_next(text, after.end)))
    return True


def _just_is_adverb(after: _Token) -> bool:
    """Whether "just" after "her"/"his" is an adverb (before a function word, a verb, a participle
    or an adjective), not the adjective of a noun ("her just reward").
    """
    if not _is_open(after) or after.low is None:
        return True
    return after.low in VERBS or _is_participle(after.low) or _is_adjective(after.low)


def _object_before_modifier(text: str, token: _Token, low: str, previous: str | None) -> bool:
    after = _next(text, token.end)
    if previous in _MASS_OBJECT_VERBS and _mass_object_follows(text, token):
        return True  # "gave him more eclat than he deserved"
    if low == "back":
        if previous in _BACK_BODY_VERBS or previous in PREPOSITIONS or after.low in _BACK_NOUN_FOLLOWERS:
            return False  # "injured her back", "on her back", "her back pain"
        return previous in _BACK_OBJECT_VERBS or after.low in _BACK_DIRECTIONS and previous is not None
    if low == "home":
        return previous in _HOME_VERBS and not _is_open(after)
    if low in ("last", "next") and after.low in TIME_NOUNS:
        return previous not in PREPOSITIONS
    if low == "last" and not _is_open(after):
        return previous not in _BREATHE and previous not in PREPOSITIONS  # "breathed her last"; "eat her last"
    if low in ("much", "far", "long") and after.low in _COMPARATIVES:
        return True  # "known her much longer than you have"
    if after.word is not None and _is_ly_adverb(after.low):
        return False  # "one of her more offensively arrogant sentences"
    return not _is_open(after)


_HIS_DETERMINER_MODIFIERS = _words(
    "back later earlier first last only best own very most more less early late long next former latter "
    "further much"
)
# Adverbs that stand after a standalone "his" ("a saying of his later, and"), and before a noun
# after a determiner "his" ("his later years").
_HIS_ADVERB_MODIFIERS = _words("later earlier")


def his_stands_alone(text: str, start: int, end: int) -> bool:
    """Whether the "his" at ``text[start:end]`` is a standalone possessive ("hers"), not a
    determiner ("her"); see the module docstring for the rules.
    """
    if end == len(text) or text[end] in _CLAUSE_PUNCTUATION:
        return True
    token = _next(text, end)
    if token.word is None:
        return token.quote is None  # punctuation or the end; an opening quote starts a noun phrase
    if token.compound:
        return False
    low = token.low
    if low in _HIS_ADVERB_MODIFIERS:
        return not _is_open(_next(text, token.end))
    if low in _HIS_DETERMINER_MODIFIERS:
        return False
    if text[start:end] != "HIS" and token.word[:1].isupper() and low != "i":
        return False  # "his The Book of Healing", "his Nobel Prize"
    if low in ("and", "or"):
        second = _next(text, token.end)
        return not (second.low in POSSESSIVES or second.word is not None and second.word[:1].isupper())
    if low == "being":
        after = _next(text, token.end)  # "lives and has his being."; but "a friend of his being tired"
        return after.word is not None and _is_open(after)
    if low in ("will", "may", "can", "must"):
        return not _is_open(_next(text, token.end))
    if low == "just":
        return _just_is_adverb(_next(text, token.end))  # "his just inheritance"
    if low in _DEGREE_PARTICLES:
        after = _next(text, token.end)  # "his rather unstable religious convictions"
        return not (_is_open(after) and _is_open(_next(text, after.end)))
    if low in CLOSED:
        return True
    if low in MODIFIERS:
        return not _is_open(_next(text, token.end))
    return False
