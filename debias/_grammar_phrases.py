r"""The shapes of the words around a "her"/"his" slot that the construction rules of
:mod:`debias._grammar_constructions` ask about (issue 27): what a possessive determiner's noun phrase
looks like after the pronoun (adjectives and their noun, an ordinal and its aside, a person noun after
modifiers, "left foot", a title), what follows an object (a second object, a recipient, an infinitive,
a predicate adjective, a phrasal verb's particle), whether the word before the pronoun is a noun, and
the word lists these read.
"""

from __future__ import annotations

import re
from functools import lru_cache

from debias import _grammar as g
from debias import _word_classes as wc
from debias._wordnet_lexicons import (
    _all_verbs,
    _american,
    _base_verb,
    _past_of_verb,
    mostly_adjectives,
    mostly_nouns,
    mostly_verbs,
    predicate_adjectives,
)

_ORDINALS = wc._words("first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth "
                       "fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth last")
_TITLES = wc.ROLES | wc._words("lieutenant colonel sergeant corporal marshal brigadier ensign cardinal priest deacon "
                               "abbot archbishop peer marquess marquis viscount count lord lady baronet ruler steward "
                               "conductor professor lecturer judge magistrate envoy viceroy chamberlain councillor alderman "
                               "vicar pastor chaplain trainer referee tutor resident commissioner inspector superintendent "
                               "administrator prefect procurator archdeacon canon dean rector provost warden registrar "
                               "organist physician surgeon painter sculptor architect composer poet historian "
                               "librarian astronomer engineer cartographer priestess abbess marchioness viscountess "
                               "deaconess prioress headmistress delegate nuncio legate controller comptroller "
                               "correspondent producer bearer spokesman spokeswoman speaker moderator heiress pope patriarch "
                               "caliph sultan tsar czar emir khan pharaoh doge shah selector censor usher proctor bursar beadle "
                               "headman chieftain burgomaster syndic reeve sheriff premier undersecretary rapporteur commandant "
                               "quartermaster paymaster postmaster headmaster")
_DEBUTS = wc._words("debut début appearance bow")  # "made his league debut": no title
_NUMBERS = wc.NUMBER_WORDS | wc._words(
    "one thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety")
_COUNTS = _NUMBERS | wc._words("many")
_SPANS = wc.TIME_NOUNS | wc._words("hour minute decade centurie century")
_POSSESSED_NOUN_VERBS = wc._words("work works face smile look looks hand hands hair dress voice eyes record name picture "
                                  "photo photos paint book books notes report plan plans answer reply music dance")
# Adjectives that head a noun phrase after a possessive ("did her best in", "held her own
# against", "lost her cool with", "released her single in"): never a predicate of an object here.
_ADJECTIVE_HEADS = wc._words("intended own cool usual utmost single last whole little young elder senior junior equal favourite "
                             "favorite dear beloved future past present first next latest double live solo fill due all good inferior "
                             "superior rival welcome better worse intimate familiar native faithful regular "
                             # nouns too in modern biographies ("sold her flat in", "lost her final to", "won her
                             # primary in", "filmed her special in", "passed her medical")
                             "flat final major classic original physical musical commercial average daily weekly "
                             "monthly local special minor primary medical domestic sweet initial collective")


def _adjective(low: str | None) -> bool:
    """An adjective of :func:`mostly_adjectives` or :func:`predicate_adjectives` that heads no noun phrase."""
    return low is not None and (low in mostly_adjectives() or low in predicate_adjectives()) and low not in _ADJECTIVE_HEADS


# a subject pronoun's contraction ("you're", "he'd"): no noun after a possessive
_SUBJECT_CONTRACTION = re.compile(r"(?:you|we|they|he|she|it|that|there)['’](?:re|ve|ll|d|s)")


def _lower_case_open(token: g._Token) -> bool:
    """A lower-case word that can continue a noun phrase: open, no -ly adverb, no subject's
    contraction ("hair", "black"; not "sexually", "he'd").
    """
    return token.word is not None and token.word[:1].islower() and g._is_open(token) and not wc._is_ly_adverb(token.low) and (
        _SUBJECT_CONTRACTION.fullmatch(token.low) is None)


_NOT_NOUNS = wc.MODIFIERS | wc.PARTICLES | wc._ADVERBS | wc._words("now very")


def _noun_follows(text: str, token: g._Token) -> bool:
    """A lower-case open word after ``token`` that no predicate ends on: the noun of a phrase."""
    after = g._next(text, token.end)
    return after.word is not None and after.word[:1].islower() and g._is_open(after) and not after.compound and (
        not g._predicate_ends(after)) and after.low not in _NOT_NOUNS


def _possessive_ending(text: str, token: g._Token) -> bool:
    """Whether ``token`` is a possessive: "party's", "parents'"."""
    return text.startswith(("'s", "’s"), token.end) or token.low.endswith("s") and text.startswith(("'", "’"), token.end)


_OBJECT_STARTS = wc.PRONOUNS | wc.POSSESSIVES | wc._words("a an the this these those")
# past tenses that are neither a noun nor an adjective after a possessive: "for him meant ideas"
_FINITE_PASTS = wc._words("meant went came knew told gave took brought began became ran sat stood grew wrote spoke "
                          "broke chose drove became said sprang sang rang drank swam shrank sank flew drew threw blew "
                          "ate arose woke wore tore swore froze stole forgave forbade shook undertook overtook withdrew "
                          "strove rode slew fled taught fought sought caught bought slept wept crept knelt dealt hid "
                          "met seemed appeared remained proved led")


def _word_before(text: str, start: int, previous: str) -> str | None:
    """The lower-case word before ``previous``, the word that ends just before ``start`` ("was" in
    "was awarded her", "footage" in "footage of her").
    """
    return g._previous(text, len(text[:start].rstrip()) - len(previous))[0]


def _number(token: g._Token) -> bool:
    return token.low is not None and (token.low.isdigit() or token.low in _COUNTS)


def _predicate_adjective_ends(text: str, token: g._Token, after: g._Token) -> bool:
    """Whether the adjective ``token`` ends an object's predicate: what follows ends a predicate,
    and is neither a comma before a second adjective ("her long, gaunt body") nor, after an -ed
    form, the object of a verb ("a friend of his built a network"); -ing forms are left out
    ("her persisting to act"), and so is an adjective after a preposition but "with"/"without"
    ("in her anxious though brief inquiry"; but "with him unconscious").
    """
    low = token.low
    if low.endswith("ing") and low != "missing" or low in _ADJECTIVE_HEADS or _possessive_ending(text, token) or not g._predicate_ends(after):
        return False
    if after.punct == ",":
        second = g._next(text, after.end)
        if second.low is not None and wc._is_ly_adverb(second.low):
            second = g._next(text, second.end)  # "his violent, sexually aggressive aesthetic"
        return not g._is_open(second)
    return not (low.endswith(("ed", "en", "t")) and after.low in _OBJECT_STARTS)


def _second_predicate_subject(text: str, after: g._Token) -> bool:
    """"and"/"but" before a determiner or pronoun, or "but" before a preposition, after an adjective: the adjective ended the
    first object's predicate ("left him distraught and his wife opposed", "leaving him unhurt but in
    some distress"; not "her distraught and angry husband").
    """
    if after.low not in ("and", "but"):
        return False
    second = g._next(text, after.end).low
    return second in _OBJECT_STARTS or after.low == "but" and second in wc.PREPOSITIONS


_SPAN_AFTER_ARTICLE = _SPANS | wc._words("second third few little lot while couple")


def _second_object_follows(text: str, token: g._Token) -> bool:
    """An article or a possessive after the noun ``token`` (the double object's second), not a
    span of time ("brought her flowers a week later").
    """
    after = g._next(text, token.end)
    if after.low in ("a", "an", "the"):
        following = g._next(text, after.end)
        second = g._next(text, following.end) if following.word is not None else following
        return not any((t.low or "").rstrip("s") in _SPAN_AFTER_ARTICLE | _NOT_A_VERBS_OBJECT for t in (following, second))
    return after.low in wc.POSSESSIVES and after.word[:1].islower()


_SIDES = wc._words("left right")
# a parenthesis or a comma-delimited adjective between an ordinal and its noun
_ORDINAL_ASIDE = re.compile(r"\s*(?:\([^()\n]{1,60}\)|,\s*[a-z]+(?:ed|al|ive|ful|ous|ic)?,)\s+([a-z]+)\b")


def _ordinal_or_side_before_noun(text: str, token: g._Token) -> bool:
    """An ordinal before an aside and its noun ("her first (unpublished) novel", "his first,
    supervised, experience") or "left"/"right" before a noun ("set his left foot on"; not "saw
    her left alone", "watched him left-handed").
    """
    if token.low in _ORDINALS:
        if text.startswith(" ever ", token.end):
            return _lower_case_open(g._next(text, token.end + 5))  # "made his first ever attack"
        aside = _ORDINAL_ASIDE.match(text, token.end)
        if aside is not None:
            return aside.group(1) not in wc.CLOSED and not wc._is_ly_adverb(aside.group(1))
        return _names_then_noun(text, token)  # "on his first US tour", "her second FA Cup final"
    if token.low in _SIDES and token.word[:1].islower() and not token.compound:
        after = g._next(text, token.end)
        return after.word is not None and after.word[:1].islower() and not after.compound and g._is_open(after) and (
            not _adjective(after.low)) and not after.low.endswith("ing")
    return False


def _names_then_noun(text: str, token: g._Token) -> bool:
    """One to three capitalised words after ``token`` and then a lower-case noun: a noun phrase
    ("first US tour", "second FA Cup final"; not "first Lord of the Treasury").
    """
    after = g._next(text, token.end)
    for count in range(4):
        if after.word is None or not after.word[:1].isupper() or count == 3:
            return count > 0 and _lower_case_open(after) and not _adjective(after.low) and (
                not g._predicate_ends(after))
        after = g._next(text, after.end)
    return False


_PEOPLE = wc.RELATIONAL_NOUNS | wc._words(
    "girl girls boy boys kid kids baby babies neighbor neighbors neighbour neighbours pupil pupils student students "
    "disciple disciples apprentice apprentices followers supporters troops colleagues teammates lover lovers partner "
    "fiancee fiancée fiance girlfriend boyfriend cousin cousins nephew niece uncle aunt grandson granddaughter "
    "grandfather grandmother stepson stepdaughter stepfather stepmother maid servant servants bodyguard bride groom")
_QUANTIFIERS = wc._words("few several numerous countless more most very")


@lru_cache(maxsize=1)
def _adjectives() -> frozenset[str]:
    """WordNet's adjectives of both lists (:func:`mostly_adjectives`, :func:`predicate_adjectives`)."""
    return mostly_adjectives() | predicate_adjectives()  # "called her little girl" may name her


def _person_after_modifiers(text: str, token: g._Token) -> bool:
    """Adjectives, -ly adverbs, participles, compounds, commas and "and" and then a person noun
    (:data:`_PEOPLE`): the noun phrase of a determiner ("his little girl", "his estranged son",
    "his loving, down-to-earth wife"), never a second object after an object pronoun; not after a
    number or quantifier ("bore him three sons", "won him many followers").
    """
    for step in range(5):
        if token.word is None or not token.word[:1].islower():
            return False
        low = token.low
        if low in _PEOPLE:
            return step > 0 and not _possessive_ending(text, token)
        if low in _COUNTS or low.isdigit() or low in _QUANTIFIERS:
            return False  # "bore him three sons", "won him many followers"
        if not (token.compound or low in _adjectives() or wc._is_ly_adverb(low) or low.endswith("ed") or low == "and"):
            return False
        token = g._next(text, token.end)
        if token.punct == ",":
            token = g._next(text, token.end)
    return False


_NOUN_MARKERS = wc._words("the a an whose its their my our your")


def _noun_before(text: str, start: int, previous: str) -> bool:
    """Whether ``previous``, the word before the pronoun, follows an article or a possessive
    determiner: a noun then, that governs no object ("whose leaves her priest", not "the wind
    leaves her cold", "my joining him now").
    """
    k = start - 1 - len(previous)  # the fast path: one space between the two words
    if k > 0 and text[k:start - 1].lower() == previous:
        marker, adjacent = g._previous(text, k)
    else:
        window = text[max(0, start - 80):start].lower()
        marker, adjacent = g._previous(window, window.rfind(previous))
    if not adjacent or marker not in _NOUN_MARKERS:
        return False
    return not (previous.endswith("ing") or previous in _FINITE_PASTS or _past_of_verb(previous))  # "my joining


_ASIDE_CLOSE = {"(": ")", "[": "]", "—": "—", "–": "–", "-": "-"}


def _aside_then_noun(text: str, token: g._Token, after_modifier: bool = False) -> bool:
    """An aside in brackets or dashes after "her"/"his" and a noun phrase after it: the aside sits
    inside the possessive's noun phrase ("his (unfinished) memoirs", "his [sic] house", "her — and
    Britain's — first gold"; not "the fault was his (not mine).", "with her - she"). ``after_modifier``: the
    aside follows a modifier, so a word that is mostly a verb is its noun too ("his early - and best - work").
    """
    close = _ASIDE_CLOSE.get(token.punct or "")
    if close is None or token.punct == "-" and not text.startswith(" ", token.end):
        return False
    shut = text.find(close, token.end, token.end + 60)
    after = g._next(text, shut + 1) if shut > 0 else None
    return after is not None and _lower_case_open(after) and after.low not in _CLAUSE_SUBJECTS_AFTER and (
        after_modifier or after.low not in mostly_verbs())  # not "saw him (briefly) leave"


_CLAUSE_SUBJECTS_AFTER = wc._words("i you he she we they it there")


def _apposed_name(text: str, title: g._Token) -> bool:
    """A name in apposition after a lower-case title: the title is the possessive's noun ("appointed
    his secretary, Jessica Prior, to a post", "named his former manager Ingrid Larsson as"; not
    "created him Earl of Essex", "appointed him secretary, a post he held").
    """
    if not title.word[:1].islower():
        return False
    after = g._next(text, title.end)
    comma = after.punct == ","
    if comma:
        after = g._next(text, after.end)
        if after.low == "the":
            after = g._next(text, after.end)
    if after.word is None or not (after.word[:1].isupper() and after.word[1:2].islower()) or after.low in _TITLES:
        return False
    following = g._next(text, after.end)
    return comma and following.punct == "," or (following.word or "")[:1].isupper()


def _title_follows(text: str, token: g._Token, titles: frozenset[str] = _TITLES) -> bool:
    """A title or rank (:data:`_TITLES`, or ``titles``), or up to three lower-case modifiers and a
    title, that is no possessive ("Earl of Essex", "club captain", "national team captain"; not
    "captain's").
    """
    if token.low in titles:
        return not _possessive_ending(text, token) and g._next(text, token.end).low not in _DEBUTS and not _apposed_name(text, token)
    title = token
    for _ in range(3):  # "club captain", "national team captain", "global managing editor"
        if title.word is None or not title.word[:1].islower() or not g._is_open(title) or title.low in _PEOPLE or (
                title.low == "own"):
            return False  # not "appointed his brother governor", "let him choose his own producer"
        title = g._next(text, title.end)
        if title.low in titles and title.word[:1].islower():  # not "renamed his company General Radio"
            return not _possessive_ending(text, title) and g._next(text, title.end).low not in _DEBUTS and not (
                _apposed_name(text, title))
    return False


# posts that only an appointment confers: "appointed him scientific adviser", "medical officer of health"; after
# "call" a person one phones ("to call her advisor")
_APPOINTED_TITLES = _TITLES | wc._words("adviser advisor officer consultant coordinator adjutant attaché attache aide anchor "
                                         "presenter host columnist")


_NOT_A_VERBS_OBJECT = _SPANS | wc._words("other next following previous same day whole entire")
_VERBS_OBJECT_STARTS = wc.POSSESSIVES | wc._words("a an the this these those me him us them")
# endings of nouns and adjectives that no English verb has ("narrative", "national", "teacher")
_NOT_VERB_ENDINGS = ("ive", "al", "ous", "ic", "ful", "less", "ary", "ion", "ment", "ness", "ity", "ance", "ence",
                     "ship", "hood", "ism", "ist", "er", "or")


def _could_be_verb(low: str) -> bool:
    """Whether ``low`` can be a verb's base form: a verb of the lexicons, or a word without a
    noun's or adjective's ending that WordNet's adjective lists do not hold ("design", "cross").
    """
    if low in _all_verbs():
        return True
    plural = low.endswith("s") and not low.endswith("ss")
    return not plural and not low.endswith(_NOT_VERB_ENDINGS) and low not in mostly_adjectives() and (
        low not in predicate_adjectives())


def _object_of_verb_follows(text: str, token: g._Token) -> bool:
    """An article, pronoun or possessive, or an adjective and a bare plural, after ``token`` that starts the object of ``token`` read
    as a verb ("design the first prototype"), not a span of time ("her car the other day").
    """
    after = g._next(text, token.end)
    if _adjective(after.low) and after.word[:1].islower() and _bare_plural(text, g._next(text, after.end)):
        return True  # "helped him form social attachments"
    if after.low not in _VERBS_OBJECT_STARTS or not after.word[:1].islower():
        return False
    following = g._next(text, after.end)
    second = g._next(text, following.end) if following.word is not None else following
    return not any((t.low or "").rstrip("s") in _NOT_A_VERBS_OBJECT for t in (following, second))


def _bare_plural(text: str, token: g._Token) -> bool:
    """A lower-case open word with a plural's "-s" that is no verb of the lexicons ("attachments")."""
    return token.word is not None and token.word[:1].islower() and g._is_open(token) and token.low.endswith("s") and (
        not token.low.endswith("ss")) and token.low not in _all_verbs() and not _possessive_ending(text, token)


def _infinitive_follows(text: str, token: g._Token) -> bool:
    """"to" and a verb after ``token``: a base form of the lexicons, or a word with a verb's
    ending that has no noun's ("to write", "to excavate"; not "to charity", "to the poor").
    """
    after = g._next(text, token.end)
    if after.low != "to":
        return False
    verb = g._next(text, after.end).low
    return verb is not None and (_base_verb(verb) or verb == "do" or verb.endswith(("ate", "ize", "ise", "ify")) and (
        _could_be_verb(verb)))  # "gave him work to do"


_TO_BE = wc._words("be have")
_VERB_PARTICLES = wc._words("out up off away down back over around")


def _phrasal_verb_follows(text: str, token: g._Token) -> bool:
    """A verb of the lexicons that is no noun of WordNet's and a particle after ``token``, before no noun: a bare
    infinitive's phrasal verb ("help him figure out where"; not "saw her face up close", "her pick
    up truck").
    """
    low = token.low
    if not token.word[:1].islower() or token.compound or low in mostly_nouns() or low in _POSSESSED_NOUN_VERBS or (
            low in wc.CAUSATIVE_NOUNS) or not (low in _all_verbs() or _american(low) in mostly_verbs()):
        return False
    particle = g._next(text, token.end)
    return particle.low in _VERB_PARTICLES and not _lower_case_open(g._next(text, particle.end))


def _subject_of_infinitive(text: str, token: g._Token) -> bool:
    """A verb's base form after the noun ``token``: the noun is the subject of a bare infinitive
    ("make his dream come true"; not "made him walk home", "let her hair down").
    """
    after = g._next(text, token.end)
    return after.low is not None and after.word[:1].islower() and after.low in mostly_verbs() and after.low not in wc.CLOSED


def _described_noun(text: str, token: g._Token) -> bool:
    """What describes a noun after a causative or perception verb, not a bare infinitive's
    complement: an -ing participle ("saw his work bringing profit"; not "made him work hard"),
    "to be"/"to have" ("felt his work to have been done").
    """
    after = g._next(text, token.end)
    if after.low is None:
        return False
    if after.low.endswith("ing") and wc._is_participle(after.low):
        return True
    return after.low == "to" and g._next(text, after.end).low in _TO_BE


def _of_phrase_follows(text: str, token: g._Token) -> bool:
    """"of" and a name or a determiner after ``token`` ("cover of the Simpsons theme", "portrait of Lenin")."""
    after = g._next(text, token.end)
    if after.low != "of":
        return False
    following = g._next(text, after.end)
    return following.word is not None and (following.word[:1].isupper() or following.low in _VERBS_OBJECT_STARTS)


def _modifier_follows(text: str, comma: g._Token) -> bool:
    """A lower-case compound or adjective after ``comma``: a series of modifiers before a noun
    ("with his loving, down-to-earth wife").
    """
    after = g._next(text, comma.end)
    return after.word is not None and after.word[:1].islower() and (after.compound or _adjective(after.low))


_IRREGULAR_COMPARATIVES = wc._words("better worse further farther")
_IRREGULAR_SUPERLATIVES = wc._words("best worst most least")


@lru_cache(maxsize=4096)
def _comparative(low: str) -> bool:
    """An adjective's comparative in "-er" ("closer", "bigger", "happier", "better"; not "employer", "father")."""
    return low in _IRREGULAR_COMPARATIVES or _graded(low, "er")


@lru_cache(maxsize=4096)
def _superlative(low: str) -> bool:
    """An adjective's superlative ("greatest", "finest", "sexiest", "biggest", "best", "most"; not "interest", "forest")."""
    return low in _IRREGULAR_SUPERLATIVES or _graded(low, "est")


def _graded(low: str, suffix: str) -> bool:
    """Whether ``low`` is an adjective of the lexicons with ``suffix`` ("er", "est") added: as is ("great"), after a
    final "e" ("close"), with "y" turned to "i" ("happy") or with the last consonant doubled ("big").
    """
    n = len(suffix)
    if not low.endswith(suffix) or len(low) < n + 3:
        return False
    stems = (low[:-n], low[:-n + 1] if low[:-n + 1].endswith("e") else "",
             low[:-n - 1] + "y" if low.endswith("i" + suffix) else "", low[:-n - 1] if low[-n - 1] == low[-n - 2] else "")
    adjectives = _adjectives()
    return any(stem in adjectives for stem in stems if stem)


def _adjectives_before_noun(text: str, token: g._Token) -> bool:
    """A lower-case open word at ``token`` (after an -ly adverb) and another after it: a second
    adjective and its noun ("intense, mobile face", "violent, sexually aggressive aesthetic").
    """
    if token.low is not None and wc._is_ly_adverb(token.low):
        token = g._next(text, token.end)
    return _lower_case_open(token) and _lower_case_open(g._next(text, token.end))


def _adjective_and_noun_follow(text: str, token: g._Token) -> bool:
    """Adjectives or participles in "-ed" (joined by "and" or a hyphen) and then a lower-case open
    word after ``token`` ("most trusted adviser", "most loyal and long-suffering worker").
    """
    after = g._next(text, token.end)
    if after.word is None or not (_adjective(after.low) or after.low.endswith("ed")):
        return False
    noun = g._next(text, after.end)
    for _ in range(3):
        if noun.low != "and" and not noun.compound:
            break
        noun = g._next(text, g._next(text, noun.end).end if noun.low == "and" else noun.end)
    return _lower_case_open(noun)


def _recipient_follows(text: str, token: g._Token) -> bool:
    """"to" or "for" and a name or a determiner after ``token``: the recipient of a thing given or taught, so
    ``token`` is the thing and the pronoun before it its determiner ("taught his technique to
    Cornelius Drebbel", "lent her support to the campaign"; not "taught him chess to pass the time").
    """
    after = g._next(text, token.end)
    if after.low not in ("to", "for"):
        return False
    recipient = g._next(text, after.end)
    return recipient.word is not None and (recipient.word[:1].isupper() or recipient.low in _VERBS_OBJECT_STARTS)


# what is given or caused to someone, besides the grammar's mass nouns (which are model features)
_RECEIVED = wc._words("pause aid entry entrance admission opportunity opportunities chance chances relief reassurance "
                      "solace consolation hardship misery nightmares impetus incentive latitude leeway licence license "
                      "mandate clearance lodging hospitality loans funds thanks insight insights familiarity "
                      "sadness sorrow anguish humiliation stress worry discomfort suffering heartache heartbreak "
                      "remorse shame guilt delight amusement frustration annoyance irritation dismay "
                      "disappointment agony torment despair loneliness enemies wealth riches immortality applause "
                      "kudos ovation allegiance fealty bronchitis pneumonia fever influenza malaria typhoid cholera asthma "
                      "insomnia indigestion")


# what one gives of one's own, whatever follows: "gave his support in 1920", "gave his tacit approval" (development and
# helper text: "gave/lent/offered/pledged his support" 8 times, "him support" never)
_ENDORSEMENTS = wc._words("support approval consent blessing backing endorsement assent sanction imprimatur")


def _received_noun_follows(text: str, token: g._Token) -> bool:
    """A noun of what is given or caused (a mass noun of the grammar's or :data:`_RECEIVED`), bare
    or after adjectives, and not the possessor's ("gave him pause", "cost him acute pain", "giving
    him timely opportunity"; not "gave his full support to", "gave his life.").
    """
    head = _head_after_modifiers(text, token)
    if head.word is None or head.compound or _possessive_ending(text, head):
        return False
    if head.low not in _RECEIVED and not (head is not token and head.low in wc.MASS_NOUNS and head.low not in _ENDORSEMENTS):
        return False
    return not g._bare_noun_blocked(text, g._next(text, head.end))


def _head_after_modifiers(text: str, token: g._Token) -> g._Token:
    """The first word at or after ``token`` that is no adjective or -ly adverb, nor "and" between
    two adjectives (up to four skipped: "immense and lasting sadness").
    """
    for _ in range(4):
        if token.word is None or not (token.low in wc.DOUBLE_OBJECT_ADJECTIVES or _adjective(token.low) or (
                wc._is_ly_adverb(token.low))):
            break
        token = g._next(text, token.end)
        if token.low == "and" and _adjective(g._next(text, token.end).low):
            token = g._next(text, token.end)
    return token


def _recipient_after_noun_phrase(text: str, token: g._Token) -> bool:
    """A noun phrase of up to four lower-case open words from ``token`` on, ending in no adjective
    (-ly adverbs may follow), then "to" and a name or a determiner: a recipient
    (:func:`_recipient_follows`), so the pronoun is the noun's determiner ("owed his early success
    partly to the patronage of", "offered her resignation to the board"; not "left him heir to the
    estates", "left her entirely to your mercy", "owed her more painful to").
    """
    head = None
    for _ in range(4):
        if token.word is None or not token.word[:1].islower() or token.compound or (
                token.low in wc.RELATIONAL_NOUNS or token.low in _TITLES or _possessive_ending(text, token)):
            return False
        if wc._is_ly_adverb(token.low):
            if head is None:
                return False
        elif g._is_open(token):
            head = token
        else:
            return False
        after = g._next(text, token.end)
        if after.low == "to":
            return not _adjective(head.low) and _recipient_follows(text, token)
        token = after
    return False


def _noun_of(text: str, token: g._Token, nouns: frozenset[str]) -> g._Token | None:
    """The noun of ``nouns`` at ``token`` or after one adjective, that is no possessive ("lands",
    "extensive lands", "substantial damages"; not "party's"); ``None`` otherwise.
    """
    if token.low not in nouns and _adjective(token.low):
        token = g._next(text, token.end)
    return token if token.low in nouns and not _possessive_ending(text, token) else None
