r"""The rules of constructions too rare in the training text for the model of
:mod:`debias._pronoun_model` to learn (issue 27), each in a named function that
:func:`construction` tries in turn: gerund subjects, bare infinitives, second objects, numbers and
spans of time, ordinal, captive, colour and rank predicates, idioms ("hand and foot"), modals,
coordination ("him and his wife"), predicate adjectives that WordNet knows as no noun. Called by
:func:`debias._grammar_certain.her_rule_is_certain` where the grammar itself is not certain.
"""

from __future__ import annotations

import re

from debias import _grammar as g
from debias import _word_classes as wc
from debias._grammar_phrases import (
    _ADJECTIVE_HEADS,
    _APPOINTED_TITLES,
    _COUNTS,
    _ENDORSEMENTS,
    _FINITE_PASTS,
    _NUMBERS,
    _OBJECT_STARTS,
    _ORDINALS,
    _PEOPLE,
    _POSSESSED_NOUN_VERBS,
    _SPANS,
    _TITLES,
    _VERBS_OBJECT_STARTS,
    _adjective,
    _adjective_and_noun_follow,
    _adjectives,
    _adjectives_before_noun,
    _apposed_name,
    _aside_then_noun,
    _comparative,
    _could_be_verb,
    _described_noun,
    _head_after_modifiers,
    _infinitive_follows,
    _lower_case_open,
    _modifier_follows,
    _noun_before,
    _noun_follows,
    _noun_of,
    _number,
    _object_of_verb_follows,
    _of_phrase_follows,
    _ordinal_or_side_before_noun,
    _person_after_modifiers,
    _phrasal_verb_follows,
    _possessive_ending,
    _predicate_adjective_ends,
    _received_noun_follows,
    _recipient_after_noun_phrase,
    _recipient_follows,
    _second_object_follows,
    _second_predicate_subject,
    _subject_of_infinitive,
    _superlative,
    _title_follows,
    _word_before,
)
from debias._wordnet_lexicons import (
    _american,
    _base_verb,
    _past_of_verb,
    _verb_stem_known,
    compound_modifiers,
    mostly_adjectives,
    mostly_nouns,
    mostly_verbs,
    predicate_adjectives,
)

_GERUND_HOSTS = wc._words("with without") | wc.OBJECT_PREDICATE_VERBS | wc._with_forms(
    wc._words("remember recall imagine picture describe show depict film photograph get involve paint portray sketch discover "
              "spot catch capture record")) | wc._words("got gotten caught")
# what follows the gerund of a subject ("with him laughing.", "him walking away", "him singing in");
# not "of" ("with her interpreting of parables" is a possessive's noun)
_GERUND_ENDS = (wc.PREPOSITIONS - {"of"}) | wc.PARTICLES | wc.DETERMINERS | wc.POSSESSIVES | wc._words(
    "away back out off up down home twice")
# nouns in -ing that no verb has ("struck him with his lightning")
_ING_NOUNS = wc._words("lightning morning evening ceiling wedding sibling offspring pudding stocking herring shilling farthing "
                       "viking darling upbringing schooling")
_CLAUSE_SUBJECTS = wc._words("he she they we i")  # a clause's subject after a participle: "with him knowing he"
_OBJECT_PRONOUNS = wc._words("me him us them")  # "with him defending her"; not "without his perceiving me" (a possessive's)
_PERCEPTION = wc._with_forms(wc._words("see saw seen watch hear heard feel felt notice"))
_BARE_INFINITIVE_HOSTS = wc.STRONG_CAUSATIVES | _PERCEPTION
_SEE = wc._with_forms(wc._words("see")) | wc._words("saw seen")
_SEEN_AS = wc._words("work works record plan plans report music book books")  # what one's work is "seen as"
# a perception verb whose object is far more often a possessed noun than a bare infinitive's subject ("noticed his
# work."): the model, not the last rule of the constructions, reads "her" after it
_NOTICE = wc._with_forms(wc._words("notice"))
# verbs that take "of" ("heard him speak of"); another word before "of" is a noun ("saw his cover of the song")
_OF_VERBS = wc._words("speak talk think dream hear learn tell know approve disapprove die smell taste boast complain "
                      "despair tire write sing warn remind accuse rid conceive")
_MAKES = wc._with_forms(wc._words("make")) | wc._words("made")
_MADE_OWN = wc._words("living fortune mark way peace debut bow exit entrance escape comeback home name career bid pitch "
                      "getaway breakthrough acquaintance")
# what one makes to someone ("made his promise to the voters"), as against a bare infinitive ("made him promise to return")
_MADE_TO_SOMEONE = wc._words("promise vow pledge appeal plea confession")
# one's premises made into something ("made his garden a sanctuary"): no verb of a bare infinitive
_PREMISES = wc._words("house garden estate studio flat apartment villa castle palace mansion residence office shop gallery")
_SEEM = wc._words("sound look seem appear feel smell taste")
_ARTICLES_AND_DEMONSTRATIVES = wc._words("a an the this these those that")
_HELP = wc._with_forms(wc._words("help"))  # "helped her move": no "helped his move" as "made his move"
_TEACH = wc._with_forms(wc._words("teach taught"))
_ORDINAL_NUMBER = re.compile(r"\d+(?:st|nd|rd|th)")
_ORDINAL_ENDS = wc._words("overall place again in the race and with behind after on among at")
# "ranked him third on its list", "seeded her second"
_RANKERS = wc.OBJECT_PREDICATE_VERBS | wc._with_forms(wc._words("rank rate place seed vote list draft pick select"))
# "put him top of the table": a standing, not a garment ("put her top on")
_PLACERS = wc._with_forms(wc._words("put move lift take")) | wc._words("took taken")
_CAPTORS = wc._with_forms(wc._words("hold held take took taken keep kept"))
_MOVE = wc._with_forms(wc._words("move lift take")) | wc._words("took taken")
_SENSELESS = wc._words("unconscious senseless")
_HIGH_LOW = wc._words("high low higher lower")
_KNOCK = wc._with_forms(wc._words("knock"))
_BEAT = wc._with_forms(wc._words("beat render kick punch club batter")) | wc._words("beaten rendered struck")
_CAPTIVE = wc._words("prisoner captive hostage")
_ENABLE = wc._with_forms(wc._words("enable procure")) | wc._words("enabled procured")
_ADMISSIONS = wc._words("access admission admittance entry entrance")
_DENY = wc._with_forms(wc._words("deny refuse")) | wc._words("denied")
# what is denied to someone, not one's own ("denied him victory", "refused her bail"; not "denied his involvement")
_DENIED = wc.MASS_NOUNS | wc._words("victory bail entry passage admission burial asylum citizenship promotion tenure "
                                    "renomination nomination reelection readmission")
_BUY = wc._with_forms(wc._words("buy")) | wc._words("bought")
_BOUGHT_FOR_ONESELF = _BUY | wc._with_forms(wc._words("earn purchase"))
# a buyer who is the possessor: "she bought her freedom", "a slave who had eventually bought his freedom"
_SELF_BUYER = re.compile(r"\b(?:[Ss]he|who)\s+(?:(?:had|has|have|later|eventually|finally|then|soon)\s+)*\w+\s+$")
# second objects that the grammar's mass nouns (a feature class of the model, so fixed with its weights) leave out,
# and what makes them the owner's noun instead ("gave his selection of poems to")
_PLACES_EARNED = wc._words("selection inclusion instruction guidance tuition training")
_OWNER_AFTER_PLACE = wc._words("to with that of")
# what a ruler grants ("granted him lands in Kent", "granted him a pardon"; not "granted his request")
_GRANT = wc._with_forms(wc._words("grant"))
_PAY = wc._with_forms(wc._words("pay owe award grant")) | wc._words("paid")
_PAYMENTS = wc._words("compensation damages royalties salary pension bonus allowance stipend annuity reward wages homage")
_GRANTED = wc._words("land lands estate estates manor manors title titles asylum amnesty pardon audience licence license "
                     "leave custody citizenship permission clemency reprieve immunity dispensation sanctuary bail tenure "
                     "kingship lordship dominion sovereignty")
_AWARD = wc._with_forms(wc._words("award"))
_SELL = wc._with_forms(wc._words("sell")) | wc._words("sold")
_MORE_OF = wc._words("further more extra additional enough less")
_BRING_BACK = wc._with_forms(wc._words("bring send call lure welcome invite want win take get wave accept ask recall")) | wc._words(
    "brought sent won took got")
_TURN = wc._with_forms(wc._words("turn"))
_TURN_ONE_S_BACK = wc._words("on to upon and towards toward as")
# verbs of command and wish before an object and its participle ("ordered him shot for desertion")
_PARTICIPLE_HOSTS = wc._with_forms(wc._words("order want need prefer wish"))
# Verbs that confer a title or rank, and the titles and ranks ("created him Earl of Essex")
_TITLE_GIVERS = wc._with_forms(wc._words("create promote ordain consecrate install invest christen rechristen rename anoint"))
# offices of a realm, a collection or a will that a naming or appointing verb confers before "of"/"to": "appointed him
# keeper of the privy seal", "left him master of northern Italy", "named her executor of her will"
_ROLES_OF = wc._words("keeper protector protectress master mistress executor executrix winner guardian custodian regent "
                      "patron patroness champion heir heiress lady lord ruler overlord sovereign")
_HEIRS = wc._words("heir heiress")
_OTHER_GIVERS = wc._words("they we i you it")  # subjects whose own backing is no "his"/"her"
_GIVEN_UP = wc._words("away up back")  # "gave his money away", "gave his life up"; not "granted him power in exchange"
# verbs of a thing's course, without an object ("saw his reign end in 1066", "watched his lead shrink")
_CHANGES = wc._words("end increase decrease rise fall grow shrink fail collapse fade decline soar plummet wane improve worsen "
                     "stall falter crumble dwindle")
_TENSED_AUXILIARIES = wc._words("had has was were would could should will might must")
_HAVE_DONE = wc._words("have has had having get gets got getting")  # "had his contract terminated"
_INSIDE_NOUN_PHRASE = wc._words("to with of for from at in on the a an his her their its")  # inside "his transfer to Valencia"
_COLLECTIVE_COUNTS = wc._words("cavalry infantry foot horse militia cattle livestock sheep swine head strong men women people "
                              "children folk personnel police staff crew")  # "sent him 2000 cavalry"
_RENAMERS = wc._with_forms(wc._words("rename rechristen"))
# words after a mass second object that end its phrase: "gave him credit enough", "brought him fame abroad"
_MASS_OBJECT_ENDS = wc._words("enough abroad overseas aplenty galore instead")
# verbs of an object and its predicate noun, none with a bare infinitive after its object ("made him delay the
# confession"): "considered his election a mandate"
_JUDGES = wc._with_forms(wc._words("consider deem judge reckon vote"))
# naming verbs whose object's name is no work of the possessive's: 'called his Octet "the most perfect"'
_WORK_NAMERS = wc._with_forms(wc._words("call name declare"))
# a percentage before a noun is a share its holder owns ("sold his 40% stake"), before "of" an amount given ("40% of")
_SHARE_HELD = re.compile(r"(?:%| ?percent| per cent)[ -](?!(?:of|more|less|fewer|off|above|below|over|under|than|up|down|on|in|for|to|and|or)\b)[a-z]")
# who is caught in the act: "caught him stealing bread", "overheard her boasting about"
_CATCH_IN_ACT = wc._with_forms(wc._words("catch overhear spot")) | wc._words("caught overheard")
_ACT_OBJECT_STARTS = wc.POSSESSIVES | wc._words("a an the this that these those about at with from into")
_DEGREE_SUBJECTS = wc._words("arts art science sciences laws philosophy divinity music business education engineering letters fine")
_ROLE_GIVERS = wc.NAMING_VERBS | _TITLE_GIVERS | wc._with_forms(wc._words("acclaim hail leave")) | wc._words("left")
# who is voted best of a period: "voted him man of the match", "named her sportswoman of the year"
_AWARDEES = wc._words("man woman person player sportsman sportswoman athlete rookie personality footballer cricketer "
                      "volunteer coach manager driver rider jockey artist writer author musician entertainer newcomer "
                      "businessman businesswoman citizen scientist teacher")
_AWARD_PERIOD = re.compile(r" of the (?:year|match|month|season|decade|century|tournament|series|game|week|day|final)\b",
                           re.IGNORECASE)
_LEAVE = wc._words("left leave leaves leaving")
_COMMISSION = wc._with_forms(wc._words("commission"))
_APPOINT = wc._with_forms(wc._words("appoint"))
_COMMISSIONED_RANKS = wc._words("lieutenant ensign cornet captain major colonel brigadier general sergeant midshipman")
_VOTE = wc._with_forms(wc._words("vote"))
# a predicate of ruin that is a noun and a verb too, so no adjective of the lexicons ("the crash left him bankrupt",
# "declared her insolvent in 1899"; not "his bankrupt estate")
_INSOLVENT = wc._words("bankrupt insolvent")
_CURRENCY_SIGNS = frozenset("$£€¥")  # an amount after an adjective begins a noun phrase ("his new $3 billion hotel")
_PAINT = wc._with_forms(wc._words("paint dye colour color"))
_COLOURS = wc._words("red green blue black white yellow orange purple pink grey gray brown gold silver")
_MANY_MUCH = wc._words("many much few little")
_DEGREE_ADVERBS = wc._words("ever always never still once only even too also so already")
# Verbs with a number as their second object ("granted him 200 hectares", "secured him
# seventy-five per cent") and verbs with a span of time ("it took him two years", "cost her
# many months"); "one" is a second object before a number or "of" ("paid him one hundred").
_NUMBER_OBJECT_VERBS = wc.DITRANSITIVES | wc._with_forms(wc._words("secure net fine bear penalise penalize suspend ban dock deliver")) | (
    wc._words("bore borne banned"))
_TAKE_TIME = wc._with_forms(wc._words("take took taken cost"))
_NUMBER_OBJECT_PREVIOUS = {(verb, True) for verb in _NUMBER_OBJECT_VERBS}
_ONE_OBJECT = wc._words("hundred thousand million billion of more last final")
_SPEND = wc._with_forms(wc._words("spend spent"))
_ROUGHLY = wc._words("only just almost nearly about over some roughly around barely")
_UNITS = wc._words("metres meters feet foot yards miles kilometres kilometers inches paces")
_SPAN_ENDS = wc._words("ago before later earlier")  # not "after": "spent his two years after the war"


def _span_ends(text: str, token: g._Token) -> bool:
    """What ends a span of time after an object (:data:`_SPAN_ENDS`, or "into" and no number: "fired him two weeks into
    production"; not "lengthen their six weeks into ten").
    """
    return token.low in _SPAN_ENDS or token.low == "into" and not _number(g._next(text, token.end))
_ADVERBS_BEFORE_VERB = wc._words("never always still only even also just not then soon ever finally")


# "look at him run", "listen to her sing": a bare infinitive after a verb of looking or listening
# and its preposition; a noun that is also a verb only where a possessed noun is rare ("look at
# her work" stays with the model).
_LOOK_AT = re.compile(r"\b(?:look|listen|stare|gaze)(?:s|ed|ing)?\s+(?:at|to)\s+\Z", re.IGNORECASE)
# "kissed him goodnight", "bade her farewell"
_FAREWELL_VERBS = wc._with_forms(wc._words("kiss bid wish wave hug")) | wc._words("bade")
_FAREWELLS = wc._words("goodbye goodnight farewell adieu")
# "did not stop him asserting it", "prevented her leaving"
_STOP = wc._with_forms(wc._words("stop prevent"))
_STOP_ONLY = wc._with_forms(wc._words("stop")) | wc._words("stopped stopping")  # "stopped his pacing long enough"
_OBJECT_PAIR = re.compile(r"\bhim\s+or\s+\Z", re.IGNORECASE)  # the idiom only: "for them and her family"
_SAYING = wc._words("say writ argu claim insist stat complain declar announc predict suggest")  # stems before -ing


def _objects_of_verbs(text: str, start: int, token: g._Token, previous: str | None) -> bool | None:
    """An object the verb before it governs, seen on modern prose (issue 27, session 3): "him or
    her", "kissed him goodbye", "day and night", "stop him asserting", a possessive or a number
    after a perception verb's object ("saw him form his own faction", "saw him score 20 goals"),
    "remember her saying that"; and the possessive before a noun after a perception verb
    (:func:`mostly_nouns`) before a preposition or the clause's end ("saw her photograph in the
    paper"; not "saw her photograph the bird"). ``None`` where none applies.
    """
    low = token.low
    if previous == "or" and _OBJECT_PAIR.search(text, max(0, start - 12), start):
        return True  # "letting him or her walk all over you": coordinated with an object pronoun
    if low in _FAREWELLS and previous in _FAREWELL_VERBS:
        return True
    if low in ("day", "night") and text.startswith((" and night", " and day"), token.end) and previous not in _SPEND:
        return True  # "stalked him day and night"; not "spent her day and night shifts"
    if previous in _STOP and low.endswith("ing") and (_verb_stem_known(low) or wc._is_participle(low)):
        after = g._next(text, token.end)
        if previous not in _STOP_ONLY and after.low not in (None, "of") or after.quote is not None or (
                after.word is not None and after.low != "of" and not _adjective(after.low)):
            return True  # "did not stop him asserting it", 'stop him demanding "the'; not "stop her wedding."
    if previous in _PERCEPTION and low.isalpha() and low not in wc.RELATIONAL_NOUNS and low not in wc.CLOSED and (
            g._next(text, token.end).low in wc.POSSESSIVES):
        return True  # "saw him form his own faction": no noun phrase "her form" before a possessive
    if previous in _PERCEPTION and low.isalpha() and low not in wc.CLOSED and low not in wc.RELATIONAL_NOUNS and (
            low not in wc.TIME_NOUNS):
        after = g._next(text, token.end)
        if after.low is not None and (after.low.isdigit() or after.low in _NUMBERS) and (
                g._next(text, after.end).low or "time").rstrip("s") not in _SPANS | {"time"}:
            return True  # "the season saw him score 20 goals"; not "saw her son 20 years later"
    if low.endswith("ing") and previous in _GERUND_HOSTS and low[:-3] in _SAYING and (
            g._next(text, token.end).low == "that"):
        return True  # "we discover him writing that", "I remember her saying that"
    if previous in _PERCEPTION and token.word[:1].islower() and low not in wc.CLOSED and _particle_and_object_follow(text, token):
        return True  # "Bray saw him point out the contingent", "watched her pick up the phone"
    if previous in _PERCEPTION and low in mostly_nouns() and not low.endswith("ing") and g._place_follows(after := g._next(
            text, token.end)) and after.low not in _PHRASAL_PARTICLES:
        return False  # "saw her photograph in the paper", "watched her debut on television"; not "saw her photograph the bird"
    if previous in _PERCEPTION and token.word[:1].islower() and (_base_verb(low) or low in _EXITS) and g._next(text, token.end).low in (
            _PHRASAL_PARTICLES) and not _lower_case_open(g._next(text, g._next(text, token.end).end)):
        return True  # "the press conference saw him storm out after a question", "watched her walk away."
    return None


_PARTICLES_BEFORE_OBJECT = wc._words("out up off away down back over")
_PHRASAL_PARTICLES = wc._words("out off away")  # "saw him storm out"
_EXITS = wc._words("storm stomp stride march rush burst sweep flounce limp")  # nouns more than verbs in WordNet


def _particle_and_object_follow(text: str, token: g._Token) -> bool:
    """A verb's particle and an article, pronoun or possessive after ``token`` ("point out the")."""
    particle = g._next(text, token.end)
    return particle.low in _PARTICLES_BEFORE_OBJECT and g._next(text, particle.end).low in _VERBS_OBJECT_STARTS


_AT_ONCE = wc._words("overnight instantly immediately forever permanently briefly beforehand")


def _privative(low: str | None) -> bool:
    """An adjective in "-less" that the lexicons may read as a noun's ("homeless", "jobless"; not "unless")."""
    return low is not None and len(low) > 6 and low.endswith("less") and low not in _NOT_PRIVATIVE


_NOT_PRIVATIVE = wc._words("nevertheless nonetheless regardless doubtless")


def _predicates_and_pairs(text: str, start: int, token: g._Token, previous: str | None) -> bool | None:
    """A bare infinitive after "look at"/"listen to", an adjective predicate of an object
    (:func:`mostly_adjectives`: "turned him bald in an instant", "thought him strong and
    healthy."), and "his or her (own)" swapped (a determiner). ``None`` where none applies.
    """
    low = token.low
    if previous in ("at", "to") and _LOOK_AT.search(text, max(0, start - 30), start) and low not in _POSSESSED_NOUN_VERBS and (
            low not in mostly_nouns()) and (
            low not in _ADJECTIVE_HEADS) and (
            low in mostly_verbs() or low in wc.VERBS or low in wc.NOUN_VERBS):
        return True
    if previous in _VOTE and token.word[:1].islower() and _superlative(low):
        return True  # "readers voted him best actor", "voted her sexiest female of the year"; "named his best friend" is
        # the determiner, so only "vote"
    if previous in _STRIKE and low in _STRUCK_STATES and not _lower_case_open(g._next(text, token.end)):
        return True  # "Hera struck him blind and", "the god struck her dumb."; not "struck his blind spot"
    if low == "persona" and text.startswith(" non grata", token.end):
        return True  # "declared him persona non grata"; not "her stage persona"
    if (_adjective(low) or low in _INSOLVENT) and not low.endswith(("est", "ed", "ing")) and low not in _TITLES | _ORDINALS and (
            _verb_stem_known(previous) or previous in wc.NAMING_VERBS):
        after, ended = g._next(text, token.end), False
        if after.low in ("and", "or", "but"):  # "thought him strong and healthy.", "found him negligent but
            # not criminally liable"; not "her strong and silent husband"
            second = g._next(text, after.end)
            while second.low == "not" or second.low is not None and wc._is_ly_adverb(second.low):
                second = g._next(text, second.end)
            joined = second.compound
            if _adjective(second.low) or _privative(second.low) or joined:
                while second.compound:
                    second = g._next(text, second.end)  # "found him approachable and good-humoured."
                after = g._next(text, second.end)
            # "found him difficult but acknowledged his mastery": a second verb's clause
            ended = not joined and after.low != "or" and (second.low in _FINITE_PASTS or second.low is not None and _past_of_verb(
                second.low))
        if after.punct == "," and _adjectives_before_noun(text, g._next(text, after.end)):
            return None  # "lightens his intense, mobile face": adjectives before a noun
        if (ended or g._predicate_ends(after) and after.punct not in _CURRENCY_SIGNS and not _aside_then_noun(text, after, True) or (
                after.low in _AT_ONCE) or (
                _adverb_ends_predicate(text, after))) and text[token.end:token.end + 1] not in ("'", "’"):
            return True  # "turned him bald in an instant", "proved her correct.", "pushed him flat against"; not "to
            # build his new $3 billion hotel"
    if low in ("and", "or"):
        return _coordinated(text, token, previous)
    return None


def _coordinated(text: str, token: g._Token, previous: str | None) -> bool | None:
    """The pronoun before "and"/"or": one determiner of a noun phrase with a second possessive
    ("his and Lenin's assertions", "his and his party's record") or with the other gender's
    ("denies his or her (own) freedom", swapped); an object before "and"/"or" and a possessive's
    noun phrase ("met him and his wife", "him or his brother"; not "his and his wife's"). ``None``
    otherwise.
    """
    after = g._next(text, token.end)
    if after.word is None:
        return None
    noun = g._next(text, after.end)
    if after.word[:1].isupper() and text.startswith(("'s ", "’s "), after.end) and previous != "between":
        return False  # "his and Lenin's assertions"; not "between him and Stubb's whale"
    if after.low == "his" and (noun.low == "own" or token.low == "or" and g._is_open(noun)):
        return False
    if after.low == "her" and noun.word is not None and noun.word[:1].islower() and (
            g._is_open(noun) and noun.low != "own"):
        return not _possessive_ending(text, noun)
    return None


# "let": no possessive after it but a body part or a guard let loose ("let her hair down", "let
# his guard down", "let his will be done"); the grammar's causative nouns read as verbs after it
# ("let him escape", "let her return").
_LET = wc._words("let lets letting")
_LET_NOUNS = wc._words("hair guard will name life own mind eyes head heart imagination anger temper house home first last "
                        "best")
# what follows the bare infinitive after "let" (never the noun of a possessive there): a
# pronoun, an article, a preposition that is no particle of "let ... down/out"
_AFTER_LET_VERB = wc.PRONOUNS | wc._words("a an the this that these those another some any no every each all") | (
    wc.PREPOSITIONS - wc._words("of out down up off over loose"))
# modals that are nouns too ("her will", "his can"), before a verb: "those who follow her will walk"
_NOUN_MODALS = wc._words("will may can must")
_BEFORE_VERB = _ADVERBS_BEFORE_VERB | wc._words("be have not")
# participles that are never attributive: "with him gone", "get her done"
_NEVER_ATTRIBUTIVE = wc._words("gone done")


def _past_form(low: str) -> bool:
    """A verb's -ed form: of a verb the lexicons know, or the -ed form of a word WordNet reads mostly as
    a noun, itself no adjective ("surfaced", "angered"; not "beloved", "deathbed", "steed").
    """
    if _past_of_verb(low):
        return True
    if not _ed_form(low) or _adjective(low):
        return False
    nouns = mostly_nouns()
    return low[:-1] in nouns or low[:-2] in nouns or low[-3] == low[-4] and low[:-3] in nouns


def _ed_form(low: str) -> bool:
    """An -ed word of six letters or more that is no noun ("caused", "surprised"; not "deathbed",
    "seabed", "steed"): before a determiner, no modifier of a noun.
    """
    return low.endswith("ed") and len(low) > 5 and not low.endswith(("bed", "eed", "sled", "shed")) and low not in mostly_nouns()


def _adverb_ends_predicate(text: str, adverb: g._Token) -> bool:
    """An -ly adverb after a predicative adjective and no noun after it ("pronounced him dead shortly after")."""
    return adverb.low is not None and wc._is_ly_adverb(adverb.low) and not _lower_case_open(g._next(text, adverb.end))
_ALIVE_DEAD = wc._words("dead alive")
_MANNERS = wc._words("kindly warmly coldly coolly politely courteously hospitably graciously")  # -ly words that are adjectives too
_DETERMINERS_OR_MUCH = wc._words("a an the this that these those his her their its my our your much many some no")
_THEN_ADVERBS = wc._words("later earlier then soon again afterwards subsequently")


def _verbs_after_object(text: str, token: g._Token, previous: str | None) -> bool | None:
    """An object before what only a verb or a predicate continues (issue 27, session 4, seen on
    the development half of Wesnoth's campaigns): a bare infinitive after "let" ("let him
    escape!", "let him face her", "let him march in"), a modal and its verb ("those who follow
    him will walk"), "gone"/"done" ("with him gone"), a past tense ("for him meant"), an adverb
    and a bare infinitive ("force him eventually change"), an adjective before "enough" ("blast
    him quick enough"), a past participle after a preposition's object ("interest in him revived
    in") or a verb of command ("ordered him shot"), an adjective that is no noun before what ends
    a predicate ("released him unharmed."). ``None`` where none applies.
    """
    low = token.low
    if not token.word[:1].islower() or not low.isalpha():
        return None
    if low in _NEVER_ATTRIBUTIVE or low in _FINITE_PASTS:
        return True
    after = g._next(text, token.end)
    if previous == "with" and low in _ALIVE_DEAD and after.word is None and after.quote is None:
        return True  # "with him dead, the succession passed"; not "with his dead comrades"
    if low in _MANNERS and not _lower_case_open(after):
        return True  # "the factor received him kindly and sold him flour"; not "her kindly manner"
    if low == "short" and after.low == "of":
        return True  # "a ravine stopped him short of the summit"; not "his short story"
    if low == "now" and after.low is not None and _past_of_verb(after.low) and not _noun_follows(text, after):
        return True  # "the captains who had served under him now offered their services"; not "his now discredited theory"
    if _ed_form(low) and after.low in _DETERMINERS_OR_MUCH and (previous in wc.PREPOSITIONS or _verb_stem_known(previous)):
        return True  # "the refusal to marry him caused much speculation": an -ed word before a determiner is no modifier
    if low == "well" and previous not in wc.PREPOSITIONS and (g._predicate_ends(after) or after.low is not None and not _noun_follows(text, after) and (
            _base_verb(after.low) or after.low in _FINITE_PASTS or _past_of_verb(after.low))):
        return True  # "those who knew him well insisted"; not "her well water", "her well known interest"
    if low in _THEN_ADVERBS and (after.low in _FINITE_PASTS or after.low is not None and _past_of_verb(after.low)):
        return True  # "the officer who arrested him later became"; not "her later years"
    if low == "only" and (after.low in _FINITE_PASTS or after.low is not None and _past_of_verb(after.low)) and (
            not _noun_follows(text, after)):
        return True  # "the legends assigned to him only appeared in 1612"; not "her only published novel"
    if previous in _LET and low not in wc.CLOSED and low not in _LET_NOUNS and low not in wc.RELATIONAL_NOUNS and (
            not _possessive_ending(text, token)) and (
            after.word is None and after.quote is None or after.low in _AFTER_LET_VERB):
        return True
    if low in _NOUN_MODALS and previous not in wc.AUXILIARIES and (after.low in _BEFORE_VERB or _base_verb(after.low)):
        return True  # not "how could her will be disregarded"
    if wc._is_ly_adverb(low) and (_verb_stem_known(previous) and _base_verb(after.low) and not after.low.endswith(("ed", "en")) or after.low is not None and (
            after.low.endswith("ed") and g._next(text, after.end).low in _OBJECT_STARTS)):
        return True  # "force him eventually change"; "the men around him slowly lifted their helmets"; not "cure his
        # cryogenically frozen wife"
    if after.low == "enough" and low not in wc.CLOSED and not low.endswith("s"):
        return True
    if (previous in wc.PREPOSITIONS or _verb_stem_known(previous)) and _past_form(low) and (
            after.word is None and after.quote is None or after.low in wc.PREPOSITIONS - {"of", "by"}) and not (
            after.punct == "," and _adjectives_before_noun(text, g._next(text, after.end))):
        return True  # "interest in him revived in the 1990s", "the children she bore him died in"; not "in her revived
        # state", "called for his withered, wrinkled sister"
    if previous in _PARTICIPLE_HOSTS and wc._is_participle(low) and not low.endswith("ing") and (
            not _noun_follows(text, token) or g._next(text, token.end).low in _TITLES):
        return True  # "ordered him shot for desertion", "wanted her removed"; not "wanted her injured leg examined"
    if low in predicate_adjectives() and (previous in ("with", "without") or previous not in _NO_VERB_BEFORE) and (
            _predicate_adjective_ends(text, token, after) or _second_predicate_subject(text, after)):
        return True  # "released him unharmed.", "reported him missing in 1998", "shows him seated at a desk"
    return None


_NO_VERB_BEFORE = wc.PREPOSITIONS | wc.CONJUNCTIONS | _DEGREE_ADVERBS  # "or his designate, will act", "with only his loyal"


_NOT_FIRST_OBJECT = _COUNTS | wc.PARTICLES | wc.MODIFIERS | _DEGREE_ADVERBS | _ROUGHLY | wc._words(
    "back away out off up down home many much")


_DIGIT_ORDINAL = re.compile(r" (?:\d{1,3}(?:,\d{3})+|\d+)(?:st|nd|rd|th)\b")


def _number_modifies_noun(text: str, end: int, token: g._Token) -> bool:
    """A number joined to a unit by a hyphen ("5,000-acre", "20-bed"), or a number, a unit of length
    and a lower-case noun ("200 metres heat", "3000 metres steeplechase"): a modifier of the
    possessive's noun.
    """
    if _DIGIT_COMPOUND.match(text, end):
        return True
    unit = g._next(text, token.end)
    return unit.low in _LENGTHS and _lower_case_open(after := g._next(text, unit.end)) and after.low not in wc.CLOSED


_DIGIT_COMPOUND = re.compile(r" \d[\d,.]*-[a-z]+(?:-[a-z]+)*\s+[a-z]")
_LENGTHS = wc._words("metres metre meters meter m km kilometres kilometers miles mile yards yard feet")


def construction(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """Constructions the model sees too rarely in its training text (issue 27): a gerund subject
    ("ends with him laughing", "remember him singing in the choir"), a bare infinitive after a
    causative or perception verb that WordNet calls a verb ("had him rewrite the ending"), a
    second object after "teach" or a number ("teaching him chess", "granted him 200 hectares"),
    a predicative ordinal, captive or colour ("left him third overall", "held him prisoner",
    "painted him green"); and the determiner before an adverb and an adjective and a noun ("her
    ever loyal husband") or before a bare noun and "to"/"with" after a double-object verb ("gave
    her support to"). The first rule that applies decides; ``None`` where none applies.
    """
    if _ordinal_or_side_before_noun(text, token):
        return False  # "her first (unpublished) novel", "had his first, supervised, experience", "set his left foot"
    if token.low[:1].isdigit() and (previous not in _RANKERS and _DIGIT_ORDINAL.match(text, end) or _number_modifies_noun(
            text, end, token)):
        return False  # "gave his 1,000th performance", "sold his 5,000-acre concession", "won his 200 metres heat"; not
        # "drafted him 32nd overall", "threw him several metres across"
    if token.word[:1].islower() and token.low in mostly_adjectives() and _aside_then_noun(text, g._next(text, token.end), True):
        return False  # "met his former (and future) partner": an aside between a modifier and its noun
    if previous in wc.PREPOSITIONS and token.low.endswith("bed") and token.word[:1].islower() and not _past_of_verb(token.low):
        return False  # "on his deathbed", "from her sickbed": a bed; not "who worked under him described a culture"
    if (token.compound or token.low.endswith(("ed", "ly")) or token.low in _adjectives()) and previous not in _CALLERS and (
            _person_after_modifiers(text, token)):
        return False  # "tells his little girl", "finding his estranged son", "with his loving, down-to-earth wife"
    if previous is not None and previous not in wc.CLOSED and g._is_open(token) and _noun_before(text, start, previous):
        return False  # "the laurel whose leaves his priestess employed", "the letters her son wrote"
    for rule in _CONSTRUCTION_RULES:
        decided = rule(text, start, end, token, previous)
        if decided is not None:
            return decided
    return None


_CALLERS = wc.NAMING_VERBS | _TITLE_GIVERS


def _first_object_owned(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """A double-object verb's first object is the possessive's noun where a second object follows
    ("gives his work an appearance", "showed her students a trick").
    """
    low = token.low
    if previous in wc.DITRANSITIVES and token.word[:1].islower() and g._is_open(token) and low not in _NOT_FIRST_OBJECT and (
            not low.endswith("ing")) and (_second_object_follows(text, token) or low not in wc.MASS_NOUNS and g._next(
                text, token.end).low in _PHRASE_PREPOSITIONS and _judged_noun_phrase(text, token)):
        return False  # "gives his work an appearance", "awarded his essay on scurvy its annual prize"
    if previous in wc.DITRANSITIVES and token.word[:1].islower() and _head_after_modifiers(text, token).low in _ENDORSEMENTS and (
            _word_before(text, start, previous) not in _OTHER_GIVERS):
        return False  # "gave his full consent in 1920", "lent his wholehearted backing": one's own; not "they gave him full
        # support" (their own would be "their")
    if (previous in _JUDGES or previous in _WORK_NAMERS and token.word[:1].isupper()) and g._is_open(token) and (
            low not in _NOT_FIRST_OBJECT) and not (
            _adjective(low) or low in mostly_verbs() or low in _TITLES or low in _ORDINALS) and _judged_noun_phrase(text, token):
        return False  # "considered his election a mandate", "considered his Ryder Cup appearance the highlight of";
        # not "considered him a genius", "considered him captain material", "considered him Britain's finest"
    return None


def _counted_span(text: str, token: g._Token, after: g._Token) -> bool:
    """A number ``token`` and a span of time ``after`` that an object's clause ends with ("saw him ten
    days before he died"), not a year and its season ("ended his 2010 season before the Games").
    """
    return (after.low or "").rstrip("s") in _SPANS and _span_ends(text, g._next(text, after.end)) and not _year_before_noun(
        text, token)


def _year_before_noun(text: str, token: g._Token) -> bool:
    """A year and then a name or a singular noun: a dated thing of the possessive's ("his 1959 Les
    Paul", "won his 2004 primary", "delivered his 1911 Romanes Lecture"), not an amount given
    ("sent him 1500 men", "gave him 2000 cavalry").
    """
    low = token.low
    if len(low) != 4 or not low.isdigit() or not 1000 <= int(low) <= 2099:
        return False
    after = g._next(text, token.end)
    if after.word is None or after.low in _COLLECTIVE_COUNTS:
        return False
    return after.word[:1].isupper() or _lower_case_open(after) and not after.low.endswith("s") and after.low not in wc.CLOSED


def _office_held(text: str, token: g._Token) -> bool:
    """After "leave": a title that an office's "of"/"to" or the clause's end follows ("left him ruler of
    Aragon", "left him heir to the estate"), not a person left behind ("left his wealthy patron for a rival").
    """
    title = token
    for _ in range(4):
        after = g._next(text, title.end)
        if after.word is None or after.low in ("of", "to"):
            return after.quote is None
        if not g._is_open(after):
            return False
        title = after
    return False


def _bare_name(text: str, token: g._Token) -> bool:
    """Up to three capitalised words from ``token`` and then no lower-case noun (a name given, not
    a named thing's noun phrase: "renamed him Israel."; not "renamed his Acme works").
    """
    after = g._next(text, token.end)
    for _ in range(2):
        if after.word is None or not after.word[:1].isupper():
            break
        after = g._next(text, after.end)
    return after.word is None and after.quote is None or after.low in wc.CLOSED  # not 'renaming his Thesis "Church's Thesis"'


def _judged_noun_phrase(text: str, token: g._Token) -> bool:
    """A noun phrase from ``token`` (capitalised words, numbers, lower-case nouns, a preposition and
    what it takes; up to ten tokens) and then an article or "its" that begins a second noun phrase
    ("his etching of the bridge the finest plate", "his Carnegie Hall concert of 1955 a career high
    point", "awarded his essay on scurvy its annual prize"); not a possessive name ("him Britain's
    finest poet"), an article inside the preposition's phrase ("gave him command of the army"), or a
    span after the article ("his work the following year").
    """
    word, last = token, None
    for _ in range(10):
        if word.punct == "." and last is not None and last.low in _NUMBERED_WORKS:
            word = g._next(text, word.end)  # "his Symphony No. 2 a failure"
            continue
        if word.quote is not None and last is not None and (token.word[:1].isupper() or last.low.isdigit()):
            return True  # 'called his Octet "the most perfect chamber work"'
        if word.word is None or word.low in _SECOND_PHRASE_STARTS and (last is None or last.low not in _PHRASE_PREPOSITIONS):
            break
        if word.low not in _SECOND_PHRASE_STARTS and (_possessive_ending(text, word) or wc._is_ly_adverb(word.low) or (
                word.low in wc.CLOSED and word.low not in _PHRASE_PREPOSITIONS and not (
                    word.low in _NUMBERED_WORKS and text.startswith(".", word.end))) or last is not None and word.low.endswith("ing")):
            return False  # not "afford her opportunity of witnessing the excellencies": a gerund takes its own object
        word, last = g._next(text, word.end), word
    return last is not None and word.low in _SECOND_PHRASE_STARTS and _second_object_follows(text, last)


_SECOND_PHRASE_STARTS = wc._words("a an the its his her their")
_NUMBERED_WORKS = wc._words("no op vol nos")  # abbreviations before a work's number
_PHRASE_PREPOSITIONS = wc._words("of for on in at")


def _recipient_named(text: str, at: int) -> bool:
    """An article, a demonstrative or a capitalized word after ``at`` (the end of "to"): the
    recipient, not an infinitive ("to the voters", "to Congress"; not "to return", nor "to his
    mother", which either reading may have).
    """
    after = g._next(text, at)
    return after.word is not None and (after.low in _ARTICLES_AND_DEMONSTRATIVES or after.word[:1].isupper())


def _causative_noun(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """The grammar's lexicons after a causative ("made her debut", "loved her best"), but an
    object before an ordinal and a title ("made him first Lord of the Treasury").
    """
    low = token.low
    if not (previous in wc.CAUSATIVES and previous not in _HELP and low in wc.CAUSATIVE_NOUNS or low in ("best", "last")):
        return None
    if previous in _SPEND and low == "last" or previous in _COORDINATORS and low == "last" and g._next(text, token.end).word:
        return False  # "spent his last winter in Algiers", "won his first title in 1984 and his last in 1992": the noun is
        # the possessive's, or left out after it
    if low in _ORDINALS and (title := g._next(text, token.end)).word is not None and _title_follows(text, title):
        return True
    return g.her_is_object(text, start, end)


def _made_own(text: str, token: g._Token) -> bool:
    """The noun after "make" that the maker owns: a way, a living, a debut (:data:`_MADE_OWN`) before
    no object of its own, a promise or a vow "to" someone, or a work made "no less" so ("makes his
    living as a janitor", "made his way to", "made his promise to the voters", "makes his work no less
    impressive"; not "made him promise to return"), a noun made into something ("made his garden a
    sanctuary"; not "made him sign a contract", "made him land a Ford tri-motor").
    """
    low = token.low
    if low in _MADE_OWN:
        return g._next(text, token.end).low not in _VERBS_OBJECT_STARTS
    if low in _MADE_TO_SOMEONE and text.startswith(" to ", token.end):
        return _recipient_named(text, token.end + 3)
    if low in _PREMISES and g._next(text, token.end).low in ("a", "an"):
        return True  # "made his garden a sanctuary for birds", "made her house a meeting place"
    return text.startswith(" no ", token.end) and g._next(text, token.end + 3).low in _COMPARED


def _after_let(text: str, token: g._Token) -> bool | None:
    """After "let": a noun whose own verb follows is the subject ("let his contract expire in 1998", "let his
    membership lapse."; not "let him go see", "let her take charge"); a verb of the grammar's causative nouns
    is the object's ("let him escape", "let her return home"; not "let her hair down"). ``None`` elsewhere.
    """
    low = token.low
    if low not in _VERBS_BEFORE_INFINITIVE and token.word[:1].islower() and g._is_open(token) and (
            _intransitive_verb_follows(text, token)):
        return False
    if low in wc.CAUSATIVE_NOUNS and low not in _LET_NOUNS:
        return True
    return None


def _causatives_and_gerunds(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """Bare infinitives after a causative or perception verb (with an adverb between: "made her
    always wait"), the grammar's causative nouns ("made her debut"; after "let", a verb: "let him
    escape"), adverbs before a participle or adjective ("her hastily prepared dinner", "saw her
    quietly leaving the room") and gerund subjects ("ends with him laughing").
    """
    low = token.low
    if previous in _MAKES and _made_own(text, token):
        return False  # "makes his living as a janitor", "made his promise to the voters"
    if previous in _BARE_INFINITIVE_HOSTS and low in _ADVERBS_BEFORE_VERB:
        after = g._next(text, token.end)
        if after.low in wc._ADVERBS or after.low is not None and wc._is_ly_adverb(after.low):
            after = g._next(text, after.end)
        if after.low is not None and (after.low in mostly_verbs() or after.low in wc.VERBS):
            return True  # "let him never hereafter accuse", "made her always wait"
    if previous in _LET and (decided := _after_let(text, token)) is not None:
        return decided
    if previous in _PERCEPTION and low == "say":
        return True  # "he hears her say hi"; not "had her say"
    if low == "last" and (previous in g._COPULAS or _will_and_testament(text, token)):
        return False  # "the film would be his last,", "signed his last will and testament"; the grammar reads objects
    if (decided := _causative_noun(text, start, end, token, previous)) is not None:
        return decided
    if low in wc.MODIFIERS or wc._is_ly_adverb(low):
        decided = _adverb_before_modifier(text, token, previous)
        if decided is not None:
            return decided
    if previous == "of" and low.endswith("ing") and wc._is_participle(low) and _word_before(text, start, "of") in _DEPICTIONS and (
            g._next(text, token.end).low in _GERUND_ENDS | _OBJECT_PRONOUNS):
        return True  # "footage of him dealing the fatal blow", "a photograph of her sitting at a desk"
    if previous == "of" and _word_before(text, start, "of") in _DEPICTIONS and _participle_ends_phrase(text, token):
        return True  # "a photograph of him taken forty years earlier", "a portrait of her painted by Sargent"
    if previous in ("to", "in") and (low == "being" or low.endswith("ing") and wc._is_participle(low)) and _OUTCOME_BEFORE.search(
            text, max(0, start - 20), start) and _verbal_gerund(text, token):
        return True  # "which led to him being awarded", "would culminate in him winning the tournament"; not "led to his
        # ousting from power"
    if previous in _GERUND_HOSTS and low in _STILL and _gerund_and_no_noun_follow(text, token):
        return True  # "the film finds him still living with his parents"; not "with her still beating heart"
    if previous in _FIND and low in _FOUND_OWN and g._next(text, token.end).low not in _CALLED_ON:
        return False  # "found her calling as an actor", "found his feet", "found her voice"; not "found him calling for help"
    if low == "passing" and g._next(text, token.end).word is None:
        return False  # "with his passing, the title became extinct": a death
    if low.endswith("ing") and (previous in _GERUND_HOSTS or previous in _CATCH_IN_ACT) and low not in _ING_NOUNS and (
            _participle_after_host(text, token, previous)):
        return True
    if previous in _BARE_INFINITIVE_HOSTS and (low in _POSSESSED_NOUN_VERBS or low in mostly_nouns()) and (
            low not in _SEEM) and _described_noun(text, token):
        return False  # "sees his work bringing profit", "felt his work to have been done"
    if previous in _BARE_INFINITIVE_HOSTS and previous not in _HELP and token.word[:1].islower() and g._is_open(token) and (
            low not in _LINKING_VERBS) and low not in wc.MODIFIERS and low not in _DEGREE_ADVERBS and not wc._is_ly_adverb(low) and (
            not low.endswith("ing")) and (_past_participle_ends_phrase(text, token) or _modified_noun_then_participle(text, token) or (
                previous in _HAVE_DONE and _phrase_then_participle(text, token))):
        return False  # "had his contract terminated", "made her presence felt", "saw his unfinished novel published"; not
        # "made her feel ashamed", "makes her more obliged"
    if previous in _BARE_INFINITIVE_HOSTS and (low in mostly_nouns() or low in _POSSESSED_NOUN_VERBS or (
            previous in _PERCEPTION and low.endswith("ing") and low not in _AUXILIARY_PARTICIPLES)) and _subject_of_infinitive(
            text, token):
        return False  # "make his dream come true", "made her voice crack", "saw his ranking soar"
    if previous in _BARE_INFINITIVE_HOSTS and _phrasal_verb_follows(text, token):
        return True  # "to help him figure out where", "watched her walk away", "see him branch out"
    if previous in _BARE_INFINITIVE_HOSTS and low in _SEEM and g._next(text, token.end).low in ("like", "as"):
        return True  # "made him sound like the voice of reason", "made her look as if"
    if previous in _SEE and low in _SEEN_AS and text.startswith(" as ", token.end) and (
            g._next(text, token.end + 3).low not in _CLAUSE_SUBJECTS | wc._words("it you")):
        return False  # "critics saw his work as derivative", "many see her work as the basis of"; not "saw him work as he"
    if previous in _PERCEPTION and token.word[:1].islower() and g._is_open(token) and low not in _OF_VERBS and (
            low not in _TITLES) and low not in wc.VERBS and not low.endswith("ed") and _of_phrase_follows(text, token):
        return False  # "saw his cover of the Simpsons theme", "heard her rendition of"; not "heard him speak of"
    if previous in _BARE_INFINITIVE_HOSTS and _verb_after_noun(text, token):
        return False  # "saw his show run for 1,200 performances", "saw his work tied up in litigation": a noun and its verb
    if previous in _BARE_INFINITIVE_HOSTS and token.word[:1].islower() and g._is_open(token) and (
            low not in _PEOPLE) and _could_be_verb(low) and (_object_of_verb_follows(text, token) or (
            previous in _HELP and _name_follows(text, token))):
        return True  # "helped him design the prototype", "saw him cross the street", "help him overthrow Ark"; not "saw
        # her car the other day"
    if previous in _BARE_INFINITIVE_HOSTS and previous not in _NOTICE and (low not in wc.CAUSATIVE_NOUNS or previous in _HELP) and (
            low in _OF_VERBS or g._next(text, token.end).low != "of") and not (
            low in mostly_adjectives() and _noun_follows(text, token)) and (
            low in mostly_verbs() or _american(low) in mostly_verbs() or low in wc.VERBS or (
                previous in wc.STRONG_CAUSATIVES and low in wc.NOUN_VERBS)):
        return True
    return None


def _participle_ends_phrase(text: str, token: g._Token) -> bool:
    """A past participle that no noun follows: punctuation, a preposition, a number or an -ly adverb
    after it ("taken forty years earlier", "painted by Sargent"; not "her beloved wife").
    """
    low = token.low
    if not (token.word[:1].islower() and (wc._is_participle(low) and not low.endswith("ing") or low in _DEPICTED)):
        return False
    after = g._next(text, token.end)
    return after.word is None or after.low in wc.PREPOSITIONS or after.low in _NUMBERS or after.low[:1].isdigit() or (
        wc._is_ly_adverb(after.low))


_DEPICTED = wc._words("drawn shown sung")  # participles of depicting that the word classes lack


def _participle_after_host(text: str, token: g._Token, previous: str) -> bool:
    """An -ing word after a verb or preposition that takes a gerund's subject ("opens with him getting
    caught", "found him lying unconscious", "caught him reading Marx").
    """
    low = token.low
    after = g._next(text, token.end)
    if low == "getting" and after.low is not None and wc._is_participle(after.low) and not _noun_follows(text, after) and (
            g._next(text, after.end).low not in _OBJECT_STARTS):
        return True  # "the film opens with him getting caught"; not "with her getting dressed sisters"
    if previous == "with" and (low == "being" or wc._is_participle(low) and after.low in _CLAUSE_SUBJECTS):
        return True  # "with him being eligible for", "gets mad with him knowing he can't"
    if after.low == "as" and previous in _DESCRIBE:
        return False  # "described his conducting as precise": the way one does a thing, described
    if (wc._is_participle(low) or low in _POSTURES) and not (after.punct == "," and _modifier_follows(text, after)) and (
            after.word is None and after.quote is None or after.low in _GERUND_ENDS or wc._is_ly_adverb(after.low or "") or (
                previous == "with") and (
                after.low in _OBJECT_PRONOUNS) or low in _POSTURES and (
            after.low in predicate_adjectives() or after.low in mostly_adjectives())):
        return True  # "found him lying unconscious in the snow"
    if (wc._is_participle(low) or _verb_stem_known(low)) and after.word is not None and (
            after.word[:1].isupper() or after.low.isdigit() or after.low in wc.NUMBER_WORDS):
        return True  # "caught him reading Marx", "had him running ten kilometres"
    if previous in _WITNESSES and _doing_not_naming(low) and _object_of_doing(text, after):
        return True  # "found him embezzling funds", "remember him sketching aircraft", "left her owing more than"
    if previous in _WITNESSES and _activity_in_progress(low) and (after.low in _PHRASE_AFTER_DOING or (
            after.low is not None and wc._is_ly_adverb(after.low))):
        return True  # "remember him singing in the chapel", "found him reading by candlelight", "remember him painting
        # the church"; not "showed his painting at the Salon", "found his calling as"
    # "catches him reading his diary", "overhears her boasting about the gold", "caught him stealing bread"; not "caught
    # his reading of the text", "caught his opening night"
    return previous in _CATCH_IN_ACT and (wc._is_participle(low) or _verb_stem_known(low)) and (
        after.low in _ACT_OBJECT_STARTS or _lower_case_open(after) and after.low not in wc.TIME_NOUNS)


# who finds, shows or remembers someone in the middle of doing something ("the audit found him embezzling funds")
_WITNESSES = wc._with_forms(wc._words("find show recall remember depict portray picture imagine film photograph record "
                                      "capture spot discover sketch observe leave")) | wc._words("found shown left")
# -ing words that name an activity or a quality before a noun and that begin no WordNet compound
# (:func:`compound_modifiers`; "his surviving children", "her songwriting credits", "his ailing father")
_ING_MODIFIERS = wc._words(
    "ageing aging ailing backing being campaigning composing cycling dealing debating directing disparaging dying editing "
    "ending failing filming fundraising grieving hiking modeling modelling neighbouring offering painting parting preaching "
    "producing ranking recruiting reigning saying screenwriting songwriting storytelling surviving understanding")
# nouns no gerund takes as its object ("started his publishing career", "his fighting style")
_GERUND_COMPOUND_HEADS = wc._words("career careers debut style role partner")
# nouns an activity word modifies ("his coaching methods", "her presenting style", "his fighting days")
_ACTIVITY_HEADS = _GERUND_COMPOUND_HEADS | wc._words(
    "days years life hours skills skill technique techniques methods method habits habit ability abilities talent "
    "talents relationship partnership credits credit record records")


# -ing words for a thing made or kept, which a witness verb takes as its object ("showed his painting at the Salon")
_ING_THINGS = wc._words("painting drawing recording building carving etching engraving writing clothing bedding housing "
                        "wedding offering setting filling covering lining fitting calling")
# what follows an activity in progress: an article, a possessive, a preposition (not "of", "as": "his handling of",
# "his calling as"), an adverb of manner or time, or a question's word ("record him asking whether")
_PHRASE_AFTER_DOING = wc._words("a an the aloud alone late hard every each whether why how what where when") | (
    wc.POSSESSIVES) | (wc.PREPOSITIONS - wc._words("of as")) | wc.PARTICLES


def _verb_ing(low: str) -> bool:
    """An -ing form of a verb, not one of the modifiers or nouns in -ing (:data:`_ING_MODIFIERS`,
    :data:`_ING_NOUNS`): "singing", "embezzling"; not "surviving", "wedding".
    """
    return low.endswith("ing") and (wc._is_participle(low) or _verb_stem_known(low)) and low not in _ING_MODIFIERS and (
        low not in _ING_NOUNS)


def _activity_in_progress(low: str) -> bool:
    """An -ing form of a verb, the activity and adjective words included ("singing", "reading",
    "working"), but no thing made or kept ("painting", "recording").
    """
    return _verb_ing(low) and low not in _ING_THINGS


def _doing_not_naming(low: str) -> bool:
    """An -ing form of a verb that is no activity, quality or thing of its own ("embezzling",
    "sketching"; not "acting", nor an adjective or the first word of a WordNet compound: "driving"
    of "driving licence").
    """
    return _verb_ing(low) and low not in mostly_adjectives() and _american(low) not in compound_modifiers()


def _object_of_doing(text: str, after: g._Token) -> bool:
    """A verb's object or its amount after the -ing form: a lower-case open word that no activity
    word modifies, "more" or "less" ("embezzling funds", "owing more than"; not "presenting style").
    """
    if after.word is None or not after.word[:1].islower() or after.low in _ACTIVITY_HEADS or after.low in wc.TIME_NOUNS:
        return False
    if (after.low in wc.NUMBER_WORDS or after.low == "one") and g._next(text, after.end).low in wc.TIME_NOUNS:
        return False  # "remember his boasting one day": a time of the possessive's act
    return after.low in ("more", "less") or _lower_case_open(after)


def _verb_after_noun(text: str, token: g._Token) -> bool:
    """A word that is a noun and a verb after "her"/"his", then a verb that is no noun: a bare
    infinitive, or a participle before a preposition or particle ("saw his show run for",
    "saw his work tied up in", "heard his song played on"); an object's bare infinitive has no
    second verb after it ("saw him play football", "saw him show signs of").
    """
    low = token.low
    if not token.word[:1].islower() or low in wc.VERBS and low not in wc.NOUN_VERBS or low in wc.VERBS_ONLY or (
            low in wc.MODIFIERS) or not g._is_open(token) or wc._is_ly_adverb(low):
        return False
    after = g._next(text, token.end)
    verb = after.low
    if verb in _CHANGES and ((following := g._next(text, after.end)).word is None or following.low in wc.PREPOSITIONS):
        return True  # "saw his run end in the semi-final", "saw his vote increase in 2005": what the noun did
    if verb in _TENSED_AUXILIARIES:
        return True  # "felt his work had been undervalued": the noun is the subject of a clause
    if verb is None or not after.word[:1].islower() or verb in wc.CLOSED or _adjective(verb):
        return False
    if verb.endswith("ed") and (_past_of_verb(verb) or verb in mostly_verbs()):
        return g._next(text, after.end).low in wc.PREPOSITIONS | wc.PARTICLES
    return verb in mostly_verbs() and verb not in mostly_nouns() and not verb.endswith("s")


# nouns that a name follows in apposition: "helped his side Porto to the title", "his country France"
_APPOSED_TO_NAME = wc._words("team side club squad band party country nation state city town group crew")


def _name_follows(text: str, token: g._Token) -> bool:
    """A capitalized word right after ``token`` and then punctuation, the end or a preposition other than "to":
    a name as the object of ``token`` read as a verb ("help him overthrow Ark.", "defeat Napoleon at Waterloo";
    not "helped his team Arsenal win", "helped his side Porto to the title").
    """
    after = g._next(text, token.end)
    if token.low in _APPOSED_TO_NAME or token.punct is not None or after.word is None or not (
            after.word[:1].isupper() and after.word[1:2].islower()):
        return False
    following = g._next(text, after.end)
    return following.word is None and following.quote is None or following.low in wc.PREPOSITIONS and following.low != "to"


# verbs whose bare infinitive a past participle can complement: "made her feel ashamed", "let him go unnoticed"
_LINKING_VERBS = _SEEM | wc._words("become get go stay remain grow turn keep")


def _past_participle_ends_phrase(text: str, token: g._Token) -> bool:
    """A past participle after ``token`` with no lower-case noun after it: ``token`` is the noun of an object
    that the participle describes ("had his contract terminated in 2009"; not "helped him gain elected office").
    """
    after = g._next(text, token.end)
    return token.punct is None and after.word is not None and after.word[:1].islower() and (
        wc._is_participle(after.low)) and not after.low.endswith("ing") and not _lower_case_open(g._next(text, after.end))


def _phrase_then_participle(text: str, token: g._Token) -> bool:
    """A noun ``token``, up to five more words of its noun phrase (nouns, a preposition and what it
    takes), and a past participle that ends the phrase: what one has done to one's own ("had his
    transfer to Valencia blocked", "had his contract with the club terminated", "had his work
    permit application rejected").
    """
    word = token
    for _ in range(6):
        after = g._next(text, word.end)
        if after.word is None or after.punct is not None:
            return False
        if after.word[:1].islower() and after.low.endswith("ed") and wc._is_participle(after.low):
            return _past_participle_ends_phrase(text, word)
        if after.low in wc.CLOSED and after.low not in _INSIDE_NOUN_PHRASE:
            return False  # not "had him sign it with the club"
        word = after
    return False


def _modified_noun_then_participle(text: str, token: g._Token) -> bool:
    """An adjective or participle ``token``, a noun, and a past participle that ends the phrase: the
    object's noun phrase that the participle describes ("saw his unfinished novel published", "saw
    his collected poems published in 1920"; not "found him dead drunk").
    """
    if not (token.low in _adjectives() or token.low.endswith("ed") and wc._is_participle(token.low)) or not _noun_follows(
            text, token):
        return False
    return _past_participle_ends_phrase(text, g._next(text, token.end))


_COORDINATORS = wc._words("and but or")
_MODAL_PREPOSITIONS = wc._words("like near")  # after the modal: "will like it", "will near completion"
_RUN_OUT = wc._words("lapse")  # a verb WordNet counts more often as a noun, which a contract or a membership does
# verbs that take a bare infinitive or a verb-like object themselves ("let him go see", "let her take charge")
_VERBS_BEFORE_INFINITIVE = _BARE_INFINITIVE_HOSTS | wc._words("go come try take give get do pay keep set put dare")


def _intransitive_verb_follows(text: str, token: g._Token) -> bool:
    """A verb's base form that is no noun or adjective after ``token``, then punctuation, the end, a
    preposition, "and"/"but"/"or" or an -ly adverb: ``token`` is its subject ("contract expire in 1998",
    "contract lapse and joined").
    """
    after = g._next(text, token.end)
    if token.punct is not None or after.word is None or not after.word[:1].islower() or after.low in wc.CLOSED or (
            after.low not in mostly_verbs() and after.low not in _RUN_OUT or after.low in mostly_nouns() or _adjective(after.low) or (
                wc._is_adjective(after.low))):
        return False  # not "let him walk free", "let her lie low"
    following = g._next(text, after.end)
    return following.word is None and following.quote is None or following.low in wc.PREPOSITIONS or (
        following.low in _COORDINATORS) or wc._is_ly_adverb(following.low or "")


def _will_and_testament(text: str, token: g._Token) -> bool:
    """"will" after ``token`` as the noun of "will and testament", "will of", or before a preposition,
    punctuation or the end ("made his last will in 1820"; not the modal: "to make him last will be hard").
    """
    after = g._next(text, token.end)
    if after.low != "will" or after.punct is not None:
        return False
    following = g._next(text, after.end)
    return following.low in ("and", "of") or following.word is None and following.quote is None or (
        following.low in wc.PREPOSITIONS and following.low not in _MODAL_PREPOSITIONS)


_COMPARED = wc._words("less more longer better worse")
_POSTURES = wc._words("lying sitting standing kneeling hanging floating")
_DESCRIBE = wc._with_forms(wc._words("describe characterise characterize regard"))
_STRIKE = wc._with_forms(wc._words("strike")) | wc._words("struck stricken")
_STRUCK_STATES = wc._words("blind dumb deaf mute dead lame")  # what a blow or a god strikes someone
_DEPICTIONS = wc._words("footage video videos photo photos photograph photographs picture pictures image images film "
                        "clip clips recording recordings painting paintings portrait portraits sketch drawing cartoon "
                        "cartoons caricature statue bust effigy engraving mural illustration sculpture depiction")


# an outcome's verb before a gerund's subject: Wikipedia's "led to him being", where older prose has "his being"
_OUTCOME_BEFORE = re.compile(r"\b(?:(?:lead|leads|led|leading) to|(?:result|results|resulted|resulting|culminate|culminates|"
                             r"culminated|culminating) in) $", re.IGNORECASE)


def _verbal_gerund(text: str, token: g._Token) -> bool:
    """A gerund with a verb's complement after it: an article, a possessive, an object pronoun, a
    name, a participle after "being", or a particle ("him winning the", "him being awarded", "him
    going after her"; not "his ousting from power", "his declining health").
    """
    after = g._next(text, token.end)
    if after.word is None:
        return False
    if token.low == "being":
        return after.word[:1].islower() and (wc._is_participle(after.low) or _adjective(after.low))
    return after.low in _VERBS_OBJECT_STARTS or after.low in wc.PARTICLES or after.word[:1].isupper()


_STILL = wc._words("still now already always never even just again")


def _gerund_and_no_noun_follow(text: str, token: g._Token) -> bool:
    """An -ing participle after ``token`` and no lower-case noun after it ("still living with")."""
    after = g._next(text, token.end)
    return after.low is not None and after.low.endswith("ing") and wc._is_participle(after.low) and not (
        _lower_case_open(g._next(text, after.end)))


_FIND = wc._with_forms(wc._words("find")) | wc._words("found")
_CATCH = wc._with_forms(wc._words("catch")) | wc._words("caught")
_FOUND_OWN = wc._words("calling voice feet footing niche stride rhythm")
_CALLED_ON = wc.PRONOUNS | wc._words("for out to on up back off")
_AUXILIARY_PARTICIPLES = wc._words("being having getting")  # "not to see them being made"


_DEGREES = wc._words("very quite so too rather")
_SUPERLATIVE_LIKE = wc._words("best own first last least most worst utmost")


def _open_adjective(low: str) -> bool:
    """An adjective of the WordNet lists that is no closed-class word ("catatonic"; not "on", "about")."""
    return low not in wc.CLOSED and _adjective(low)


def _adverb_before_modifier(text: str, token: g._Token, previous: str | None) -> bool | None:
    """A modifier or -ly adverb before an adverb, participle or adjective: the determiner before a
    noun ("her more offensively arrogant remarks", "her hastily prepared dinner", "his undoubtedly best
    performance"; not "reminded him more strongly of"), the object before a gerund ("saw her quietly
    leaving the room"), before a predicate after a verb ("left him greatly contented and at peace") or
    after a degree word ("looks at him very puzzled,").
    """
    low = token.low
    after = g._next(text, token.end)
    if low == "very" and (after.low in _SUPERLATIVE_LIKE or after.low in _ORDINALS):
        return False  # "making his very first flight", "tried her very best"
    if low in _DEGREES and after.word is not None and after.word[:1].islower() and (_adjective(after.low) or after.low.endswith(
            "ed") and wc._is_participle(after.low)) and after.low not in _SUPERLATIVE_LIKE and not after.low.endswith("est") and (
            previous not in (None, "of") and g._predicate_ends(g._next(text, after.end))):
        return True  # "looks at him very puzzled, consults", "left her quite alone."; not "tried her very best."
    if after.word is None or not (low in wc.MODIFIERS and wc._is_ly_adverb(after.low) or wc._is_ly_adverb(low) and (
            wc._is_participle(after.low) or wc._is_adjective(after.low) or after.low in _SUPERLATIVE_LIKE or (
            previous not in wc.DITRANSITIVES and _open_adjective(after.low)))):
        return None
    following = g._next(text, after.end)
    while low in wc.MODIFIERS and following.word is not None and wc._is_ly_adverb(following.low):
        following = g._next(text, following.end)  # "her more offensively intellectually arrogant"
    if wc._is_ly_adverb(low) and after.low.endswith("ing") and wc._is_participle(after.low) and (
            previous in _PERCEPTION or previous in _FIND or previous in _CATCH):
        return True  # "found him apparently copying letters"; not "his rapidly growing family"
    if g._is_open(following):
        return False
    if wc._is_ly_adverb(low) and after.low.endswith("ing") and wc._is_participle(after.low) and (
            following.word is None and following.quote is None or following.low in _GERUND_ENDS):
        return True  # "saw her quietly leaving the room"
    if wc._is_ly_adverb(low) and previous in wc.OBJECT_PREDICATE_VERBS and not after.low.endswith("ing") and (
            g._predicate_ends(following) or following.low in ("and", "but", "or")):
        return True  # "a day that had left him greatly contented and at peace"
    if low in ("more", "less") and (following.word is None and following.quote is None or following.low == "than"):
        return True  # "posterity has treated him more kindly than"
    return None


_CHARGES = wc._words("charge command control custody")
_GIVE = wc._with_forms(wc._words("give grant bring offer lend afford award send")) | wc._words(
    "gave given granted brought offered lent afforded awarded sent")
_LEND = wc._with_forms(wc._words("lend")) | wc._words("lent")
_SHOW = wc._with_forms(wc._words("show")) | wc._words("shown")
_LENT_OWN = wc._words("support name voice weight backing endorsement expertise talents prestige")  # one's own to lend
_GIVEN_OWN = wc._words("approval consent blessing assent verdict")  # one's own to give
_AFTER_GIVEN_OWN = wc._words("or and") | {None}
# what is given for something to be done ("gave him leave to go", "brought him invitations to lecture")
_GIVEN_FOR = wc._words("invitations invitation instructions leave chance opportunity licence license means strength "
                       "courage authority occasion room space")
_ALLOW = wc._with_forms(wc._words("allow permit")) | wc._words("permitted")


# double-object verbs whose first object receives a quality ("cost him acute pain"), not those that
# show or tell one's own ("showed his military strength in", "told his own story")
_RECEIVED_VERBS = g._MASS_OBJECT_VERBS - wc._with_forms(wc._words("show tell teach leave")) - wc._words(
    "shown showed told taught left")


_SHELTER = wc._words("asylum sanctuary immortality")  # what a host grants a refugee, a god a mortal
_WIN = wc._with_forms(wc._words("win gain regain")) | wc._words("won")
_WON_OWN = wc._words("love trust heart favour favor confidence freedom release independence liberty spurs "
                     "seat case argument battle rights place title")
_SEND = wc._with_forms(wc._words("send")) | wc._words("sent")


def _relatives_after_number(text: str, token: g._Token) -> g._Token | None:
    """The relatives in the plural (:data:`wc.RELATIONAL_NOUNS`) after a number (not "one") and at
    most two adjectives ("eldest", "young"): one's own children sent away or given something, never
    a gift of them ("sent his two eldest sons to Eton", "gave his two sons the farm"). ``None`` elsewhere.
    """
    if not (token.low.isdigit() or token.low in _NUMBERS and token.low != "one"):
        return None
    after = g._next(text, token.end)
    for _ in range(3):
        if after.low in wc.RELATIONAL_NOUNS:
            return after if after.low.endswith("s") or after.low == "children" else None
        if after.low is None or not after.word[:1].islower() or not (after.low in _adjectives() or after.low.endswith("est")):
            return None
        after = g._next(text, after.end)
    return None


# what one sets out to win of another ("to win his affection"), unlike what a deed wins ("his charm won him affection")
_SOUGHT_OWN = wc._words("affection approval loyalty friendship")
_EARN = wc._with_forms(wc._words("earn"))
_EARNED_OWN = wc._words("success living degree place stripes reputation keep spurs")
_ASK = wc._with_forms(wc._words("ask"))  # one asks for one's own: "asked his advice", "asking her permission"
_SERVE = wc._with_forms(wc._words("serve"))
_DO = wc._with_forms(wc._words("do")) | wc._words("did done does")
_DONE_TO = wc._words("honor honour justice credit harm injustice disservice")  # "does him honour", "did her justice"
_MOST = wc._words("most least")
_MORE_LESS = wc._words("more less")


def _compared_person_follows(text: str, token: g._Token, previous: str | None) -> bool:
    """An adjective and a person (:data:`_PEOPLE`) after "more"/"less", after a verb that neither
    gives nor predicates: a comparative before a relative, never an amount ("introduced his more
    famous brother", "her less gifted sister"; not "gave him more gifted pupils", "found him more
    interesting company").
    """
    if previous in wc.DITRANSITIVES or previous in wc.OBJECT_PREDICATE_VERBS:
        return False
    adjective = g._next(text, token.end)
    return _adjective(adjective.low) and g._next(text, adjective.end).low in _PEOPLE
_AMOUNTS = wc._words("little much nothing everything dearly more less")


# double-object verbs' participles, and what makes them passive before the second object
_GIVEN = wc._words("given granted awarded offered shown sent handed promised paid lent taught told denied refused "
                   "allowed assigned bestowed afforded owed")
_PASSIVE_AUXILIARIES = wc._words("is was are were be been being get gets got")
# adverbs between a passive auxiliary and its participle ("was later appointed")
_PASSIVE_ADVERBS = wc._words("later then also soon subsequently eventually finally formally officially duly again first")


def _after_passive_auxiliary(text: str, start: int, previous: str) -> bool:
    """``previous`` (the verb before the pronoun at ``start``) follows a form of "be" or "get",
    perhaps past one adverb ("was made his heir", "was later appointed his deputy"), so the
    pronoun cannot be its object.
    """
    end = len(text[:start].rstrip()) - len(previous)
    before, _ = g._previous(text, end)
    if before is not None and (before in _PASSIVE_ADVERBS or wc._is_ly_adverb(before)):
        before, _ = g._previous(text, len(text[:end].rstrip()) - len(before))
    return before in _PASSIVE_AUXILIARIES


_MORE_FEWER = wc._words("more fewer")
_AMONG = wc._words("of in among amongst during throughout through across after before since despite into")


def _counted_noun_follows(text: str, end: int) -> bool:
    """A number above one and a noun that is no span of time after ``end`` ("200 publications"; not "once", "two years")."""
    number = g._next(text, end)
    if number.low is None or not (number.low[:1].isdigit() or number.low in _COUNTS) or number.low == "one":
        return False
    noun = g._next(text, number.end)
    return _lower_case_open(noun) and noun.low.rstrip("s") not in _SPANS and noun.low != "times"


def _second_objects(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """A second object after "teach", a number or a span of time ("teaching him chess", "granted
    him 200 hectares", "it took him two years", "met her two years ago"), "hand and foot", and a
    bare noun after a double-object verb ("earned him praise", "gave him time to write"; but "gave
    her support to the campaign").
    """
    low = token.low
    if previous in _GIVEN and g._is_open(token) and low not in _NOT_FIRST_OBJECT and not wc._is_ly_adverb(low) and (
            not low.isdigit()) and _word_before(text, start, previous) in _PASSIVE_AUXILIARIES:
        return False  # "he was awarded his blue in 1902", "she was given her first role"; the recipient is the subject
    if previous in _EARN and low in wc.MASS_NOUNS and low.endswith("s") and not low.endswith("ss"):
        return True  # "earned him comparisons to Brando", "earned her plaudits from critics": no "earned his plaudits"
    if previous in wc.DITRANSITIVES and low not in _ADMISSIONS and _recipient_after_noun_phrase(text, token):
        return False  # "owed his early success partly to the patronage of"; not "gave her money.", "gave him access to the
        # archives"
    if low in _MORE_FEWER and previous in _AMONG and text.startswith(" than ", token.end) and _counted_noun_follows(
            text, token.end + 5):
        return False  # "among his more than 200 publications"; not "looked at her more than once"
    if previous in wc.DITRANSITIVES and token.word[:1].isupper() and low not in _TITLES and (
            low not in wc.RELATIONAL_NOUNS) and _possessive_ending(text, token) and _lower_case_open(
            g._next(text, token.end + 2)):
        return True  # "having earned him Crump's support"; not "served her Majesty's government"
    if previous in _DO and low in _DONE_TO and not _possessive_ending(text, token):
        return True
    if previous in _WIN and low in _WON_OWN or previous in _EARN and low in _EARNED_OWN:
        return False  # "a gladiator who won his freedom", "has really earned his success"
    if previous in _WIN and low in _SOUGHT_OWN and _word_before(text, start, previous) == "to":
        return False  # "in a bid to gain his affection", "tried to win her approval"; not "his charm won him affection"
    if previous in _TAKE_TIME and low in _AMOUNTS and not _noun_follows(text, token):
        return True  # "would cost him little on the spot", "it cost her dearly"; not "cost her little brother his life"
    if low in _MOST and _adjective_and_noun_follow(text, token) or low in _MORE_LESS and _compared_person_follows(
            text, token, previous):
        return False  # "sent his most trusted adviser", "introduced his more famous brother"; not "loved him most dearly",
        # "gave her most of"
    if previous in _TEACH and low not in wc.RELATIONAL_NOUNS and (low.endswith(("ss", "ics")) or not low.endswith("s")):
        return not (g._is_open(token) and _recipient_follows(text, token) or _person_after_modifiers(text, token))  # "taught him chess"; not "taught his technique to Drebbel"
    if previous in wc.DITRANSITIVES and (relatives := _relatives_after_number(text, token)) is not None and (
            previous in _SEND or _object_of_verb_follows(text, relatives)):
        return False  # "sent his two sons to be educated in France", "gave his two sons the farm"; not "sent him 500
        # troops", "bore him three sons", "gave him two sons the following year"
    if previous in _NUMBER_OBJECT_VERBS and (low.isdigit() or low in _NUMBERS and low != "one"):
        return not (_SHARE_HELD.match(text, token.end) or _year_before_noun(text, token))  # "paid him 500 dollars", "sold
        # her 40% of the shares", "sent him 1500 men"; not "sold his 40% stake", "won his 2004 primary"
    if low in _ROUGHLY and previous in _NUMBER_OBJECT_VERBS and _number(g._next(text, token.end)):
        return True  # "gave him only three days to", "paid her nearly 5,000 pounds"
    if (low.isdigit() or low in _COUNTS) and _verb_stem_known(previous) and g._next(text, token.end).low in _UNITS:
        return True  # "threw him several metres across the deck"
    if low == "hand" and text.startswith(" and foot", token.end):
        return True  # "bound him hand and foot", "served her hand and foot"
    if low in _COUNTS or low.isdigit():
        after = g._next(text, token.end)
        if (previous in _NUMBER_OBJECT_VERBS or previous in _TAKE_TIME) and (
                low == "one" and after.low in _ONE_OBJECT or previous in _TAKE_TIME and (after.low or "").rstrip("s") in _SPANS):
            return True  # "pay him one hundred guldens", "gave her one of", "it took him two years"
        if previous not in _SPEND and _counted_span(text, token, after):
            return True  # "I saw him ten days before he died", "met her two years ago"
    if low.endswith("s") and low.rstrip("s") in _SPANS and previous is not None and _verb_stem_known(previous) and (
            _span_ends(text, g._next(text, token.end))):
        return True  # "he would have left her years ago", "divorced him decades later"
    if previous in _SELL and token.word[:1].islower() and g._is_open(token) and not low.endswith("s") and (
            not _adjective(low)) and g._next(text, token.end).low not in _OBJECT_STARTS:
        return False  # "sell his labour", "sold his soul"; not "sold him short", "sold him a car"
    if previous in _GRANT and _noun_of(text, token, _GRANTED) is not None:
        return True  # "granted him extensive lands in Yorkshire"
    if previous in _PAY and (payment := _noun_of(text, token, _PAYMENTS)) is not None and (
            g._next(text, payment.end).low != "to"):
        return True  # "paid him compensation of £2.3 million", "owed him royalties"; not "paid his fees"
    if (previous in wc.DITRANSITIVES or previous in _ENABLE) and low in _ADMISSIONS and g._next(text, token.end).low in (
            "to", "into"):
        return True  # "his father's connections enabled him access to", "procured him admission to the Academy"
    if previous in _DENY and low in _DENIED:
        return True  # "refused him permission to marry", "denied her access to the archives"
    if previous in _AWARD and token.word[:1].islower() and g._is_open(token) and low not in wc.RELATIONAL_NOUNS and not (
            _person_after_modifiers(text, token)) and _head_after_modifiers(text, token).low not in _TITLES:
        return True  # "awarded him honorary membership"; not "awarded his former manager $4 million"; "awarded his film the
        # prize" is decided before
    if previous in wc.DITRANSITIVES and low in _MORE_OF and g._next(text, token.end).low in wc.MASS_NOUNS:
        return True  # "refused to lend him further money"
    if (previous in _GIVE or previous in _ALLOW) and (low in wc.MASS_NOUNS or low in _GIVEN_FOR) and _infinitive_follows(
            text, token):
        return True  # "gave him time to write", "lent him money to start", "brought him invitations to lecture";
        # not "told his maid to speak", "allow her nephew to remain"
    if previous in wc.DITRANSITIVES and low in _CHARGES and g._next(text, token.end).low == "of":
        return True  # "gave him charge of the artillery"
    if (previous in _LEND or previous in _SHOW and low == "support") and low in _LENT_OWN:
        return False  # "lent his support to", "lend his name to the campaign"; not "lent him money"
    if previous in _GIVE and low in _GIVEN_OWN and g._next(text, token.end).low in _AFTER_GIVEN_OWN:
        return False  # "to which he may give his approval or rejection", "gave his consent."; not "gave him consent to"
    if previous in _RECEIVED_VERBS and _received_noun_follows(text, token):
        return True  # "cost him acute pain", "had written him enthusiastic praise", "gave him pause"
    return _mass_second_object(text, start, token, previous)


def _mass_second_object(text: str, start: int, token: g._Token, previous: str | None) -> bool | None:
    """A mass noun after a double-object verb: the second object after the grammar's verbs of
    giving and earning ("earned him praise", "earned him selection for"), the possessive's noun
    before "to"/"with", after "ask" or "serve time", or as the work bought or shown ("gave his
    support to", "asking his advice", "bought his work,"). ``None`` elsewhere.
    """
    low = token.low
    if previous in wc.DITRANSITIVES and low in _SHELTER:
        return True  # "offered him asylum at the castle", "offers her immortality": one's own asylum is no English
    if previous in _SPARE and low in _MORE_OF and _lower_case_open(g._next(text, token.end)):
        return True  # "sparing him further punishment", "saved her more trouble"
    if previous in wc.DITRANSITIVES and low in _LITTLE_MUCH and text.startswith(" to ", token.end) and (
            _base_verb(verb := g._next(text, token.end + 3).low) or verb in ("do", "be", "have")):
        return True  # "the script gives him little to do", "gave her nothing to eat"
    if (previous in _LEAVE or previous in _GIVE or previous in _ALLOW) and low in _MANY_MUCH and (
            g._next(text, token.end).low in _LEFT_FOR):
        return True  # "a post that left him little time for research", "gave her little choice"
    if previous in _GIVE and low in _POWERS_GIVEN and g._next(text, token.end).low in ("for", "over"):
        return True  # "a post that gave him responsibility for the royal apartments", "gave her control over"
    if (previous in _EARN or previous in _WIN) and low in _MORE_OF and (plural := g._next(text, token.end)).low is not None and (
            plural.low.endswith("s") and _lower_case_open(plural)):
        return True  # "the altarpiece earned him further commissions"
    if previous in _OWE and low in _OWED_OWN:
        return False  # "owed his success, he often said, to a chance meeting"; not "owed him money"
    if previous in wc.DITRANSITIVES and low in wc.MASS_NOUNS:
        after = g._next(text, token.end)
        if after.low in ("to", "with") or previous in _ASK or (previous in _SERVE and low == "time"):
            return False  # "asking his advice on", "served his time at"
        if (previous in _BUY or previous in _SHOW) and low == "work":
            return False  # "collectors bought his work,", "showed his work at the gallery": the artist's, not a job
        if _lower_case_open(after) and not _adjective(after.low) and after.low not in _THEN_ADVERBS and (
                after.low not in _MASS_OBJECT_ENDS) and not after.compound or low in _ENDORSEMENTS and (
                _word_before(text, start, previous) not in _OTHER_GIVERS) or after.low in _GIVEN_UP:
            return False  # "won his custody battle", "gave his support in 1920", "gave his money away": a compound's
            # first noun, one's own backing, a phrasal verb's object
        if previous in g._MASS_OBJECT_VERBS and previous not in _LEAVE and g._mass_object_follows(text, token):
            # the grammar's lexicon of second objects ("earned him praise", "wished her luck"; not "had to leave his
            # work,"), except after "she" and a verb of gain, where an object "her" would be another woman ("she
            # bought her freedom")
            return not (previous in _BOUGHT_FOR_ONESELF and _SELF_BUYER.search(text, max(0, start - 60), start))
    if previous in g._MASS_OBJECT_VERBS and previous not in _LEAVE and low in _PLACES_EARNED and (
            g._next(text, token.end).low not in _OWNER_AFTER_PLACE):
        return True  # "earned him selection for the national team", "gave him instruction in"; not "gave his selection
        # of poems to", "gave his training to"
    if previous in _VOTE and low == "thanks":
        return True  # "Parliament voted him thanks"
    if previous in _SWEAR and low in _FEALTY and g._next(text, token.end).low != "to":
        return True  # "the magnates swore him fealty as heir"; not "swore his allegiance to the crown"
    if (previous in _WIN or previous in _EARN or previous in _MAKES and g._next(text, token.end).low in _AMONG_IN) and (
            low in _ALLIES) and not _possessive_ending(text, token) and g._next(text, token.end).low not in _WON_BACK:
        return True  # "his manner won him friends in the dressing room", "earned her admirers"; not "won his friends over"
    if previous in _COST and _cost_is_verb(text, start, previous) and _bare_loss(text, token):
        return True  # "the defeat cost him office", "cost her dear friends"; not "cost his party the election", "cost his
        # family dearly", "the cost her family bore"
    return None


_OWE = wc._with_forms(wc._words("owe"))
_LEFT_FOR = wc._words("time room choice option leisure opportunity")
_POWERS_GIVEN = wc._words("responsibility control command authority charge jurisdiction oversight power powers")
_SWEAR = wc._words("swear swears swore sworn swearing")
_FEALTY = wc._words("fealty allegiance homage loyalty obedience")
# what one owes to a benefactor and owns ("owed his success to"), not a debt
_OWED_OWN = wc._words("success life career position freedom fame survival rise recovery education appointment release "
                      "election reputation existence start")
_ALLIES = wc._words("friends admirers allies supporters followers enemies")
_WON_BACK = wc._words("over back round around")
_AMONG_IN = wc._words("among in within across on at")  # "made him enemies among the oligarchs"
_COST = wc._words("cost costs costing")
_SPARE = wc._with_forms(wc._words("spare save"))
_LITTLE_MUCH = wc._words("little much nothing something more less enough")
# who or what pays a cost and is owned ("cost his party the election", "cost his side dearly")
_COST_BEARERS = wc._words("family side team party club company country government firm nation army life lives career "
                          "employer employers country's")


def _cost_is_verb(text: str, start: int, previous: str) -> bool:
    """"cost" before the pronoun at ``start`` is the verb, not the noun after a determiner or an
    adjective ("the cost her family bore", "a high cost her").
    """
    before = _word_before(text, start, previous)
    return before is None or before not in wc.DETERMINERS and before not in wc.POSSESSIVES and not _adjective(before)


def _bare_loss(text: str, token: g._Token) -> bool:
    """A noun phrase without a determiner from ``token`` on, no person nor payer (:data:`_PEOPLE`,
    :data:`_COST_BEARERS`) at its head and no second noun phrase after it: what a cost takes
    ("office", "dear friends", "popular support").
    """
    head = _head_after_modifiers(text, token)
    if not _lower_case_open(head) or head.compound or _possessive_ending(text, head) or head.low in _PEOPLE or (
            head.low in _COST_BEARERS):
        return False
    return g._next(text, head.end).low not in _VERBS_OBJECT_STARTS


_CALL = wc._with_forms(wc._words("call"))
_SUMMONED_TO = wc._words("in back over up")


def _summoned(text: str, token: g._Token) -> bool:
    """A lower-case noun after "call" and then "in"/"back"/"over"/"up" that ends the clause or comes
    before "and"/"to": a person summoned, not a name given ("called his secretary in and dictated",
    "called his aide back to the office"; not "called him secretary in 1990").
    """
    after = g._next(text, token.end)
    if not token.word[:1].islower() or token.punct is not None or after.low not in _SUMMONED_TO:
        return False
    following = g._next(text, after.end)
    return following.word is None and following.quote is None or following.low in ("and", "to")


def _skip_ever(text: str, token: g._Token) -> g._Token:
    """The word after ``token`` where ``token`` is "ever" ("his only ever goal", "his first ever cap"), else ``token``."""
    return g._next(text, token.end) if token.low == "ever" else token


def _predicates_of_rank(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """A rank, a captive, a standing, an ordinal or a colour as an object's predicate ("created him
    Earl of Essex", "held him prisoner", "put him top of the table", "ranked him third on",
    "painted him green"); the determiner before a degree adverb, an adjective and a noun ("her
    ever loyal husband"; not "making him ever more surly and").
    """
    low = token.low
    if previous in _CALL and low == "names" and not (g._next(text, token.end).word or "")[:1].isupper():
        return True  # "critics called him names in the press"; not "called his names John and James"
    if previous in _CALL and _summoned(text, token):
        return False  # "called his secretary in and dictated a letter"; not "called him secretary in 1990"
    if previous in _RENAMERS and token.word[:1].isupper() and token.word[1:2].islower() and _bare_name(text, token):
        return True  # "the angel renamed him Israel", "the pope renamed her Boniface when"; not "renamed his company Acme"
    if previous in _ROLE_GIVERS and low in _TITLES and _apposed_name(text, token):
        return False  # "appointed his deputy, Charlotte Wrenfield, as", "left his general, Mardonius, in Greece"
    if previous in _ROLE_GIVERS and _title_follows(text, token, _APPOINTED_TITLES if previous in _APPOINT else _TITLES) and (
            previous not in _LEAVE or _office_held(text, token)):
        return not _after_passive_auxiliary(text, start, previous)  # "created him Earl of Essex", "made him club
        # captain", "left him ruler of"; not "was made his heir", "was later appointed his deputy"
    if previous in _ROLE_GIVERS and low in _ROLES_OF and (text.startswith(" of ", token.end) and g._next(
            text, token.end + 3).low not in _DEGREE_SUBJECTS or low in _HEIRS and text.startswith(" to ", token.end)) and not (
            _after_passive_auxiliary(text, start, previous)):
        return True  # "appointed him keeper of the privy seal", "acclaimed him lord of the city", "named him executor of"
    if previous in _COMMISSION and (low in _COMMISSIONED_RANKS or low in _ORDINALS and (
            g._next(text, token.end).low in _COMMISSIONED_RANKS)) and not _after_passive_auxiliary(text, start, previous):
        return True  # "commissioned him colonel of the 61st Ohio", "commissioned her second lieutenant"
    if previous in wc.NAMING_VERBS and (low in _AWARDEES or _lower_case_open(token) and low not in _PEOPLE) and (
            _AWARD_PERIOD.match(text, token.end)):
        return True  # "the fans voted him man of the match", "named her woman of the year"
    if previous in _CAPTORS and low in _CAPTIVE:
        return True
    if low == "top" and previous in _PLACERS and text.startswith(" of ", token.end):
        return True
    if previous in _MOVE and (low == "level" and text.startswith(" with ", token.end) or low == "past" and (
            (g._next(text, token.end).word or "a")[:1].isupper() or g._next(text, token.end).low in ("the", "a", "an"))):
        return True  # "the win moved him level with", "moved her past Maureen Jenkins on the list"; not "moved his past"
    if previous in _RANKERS and low in _HIGH_LOW and g._next(text, token.end).low in ("on", "in"):
        return True  # "the party placed him high on its national list"
    if previous in _RANKERS and low == "number" and (g._next(text, token.end).low or "").isdigit():
        return True  # "VH1 ranked him number 32 on its list"
    if previous in _RANKERS and (low in _ORDINALS or _ORDINAL_NUMBER.fullmatch(low)) or previous in _PAINT and (
            low in _COLOURS):
        after = g._next(text, token.end)
        if low not in _COLOURS and (after.word is None and after.quote is None or after.low in _ORDINAL_ENDS):
            return True
        if low in _COLOURS and not g._is_open(after):
            return True
    if low == "too" and previous in wc.DITRANSITIVES and g._next(text, token.end).low in _MANY_MUCH:
        return True  # "I can't give him too many shocks at once", "it cost her too much"
    if low == "only" and (span := g._next(text, token.end)).low is not None and span.low.endswith("s") and (
            span.low.rstrip("s") in _SPANS) and _span_ends(text, g._next(text, span.end)):
        return True  # "the news reached him only weeks later"; not "his only year at Oxford"
    if low in _SENSELESS and (previous in _KNOCK or previous in _BEAT) and not _lower_case_open(g._next(text, token.end)):
        return True  # "one of the guards knocks him unconscious and"; not "explored his unconscious desires"
    if low == "only" and previous not in wc.DITRANSITIVES and _bare_noun(_skip_ever(text, g._next(text, token.end))):
        return False  # "made his only album with the band", "scored his only ever goal"; not "gave her only a glance",
        # "made her only more determined"
    if low in _DEGREE_ADVERBS:
        after = g._next(text, token.end)
        if after.low in ("more", "less"):
            after = g._next(text, after.end)
        if g._is_open(after) and g._is_open(g._next(text, after.end)):
            return False
    return None


def _bare_noun(token: g._Token) -> bool:
    """A lower-case open word that is no adjective, comparative, adverb or number, and no verb unless WordNet reads
    it mostly as a noun ("album", "debut"; not "more", "angrier", "once", "two", "play").
    """
    low = token.low
    return token.word is not None and token.word[:1].islower() and low.isalpha() and g._is_open(token) and (
        low not in wc.MODIFIERS) and not _adjective(low) and not _comparative(low) and not wc._is_ly_adverb(low) and (
        low not in wc.NUMBER_WORDS) and (not _base_verb(low) or low in mostly_nouns())


def _object_rules(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """:func:`_objects_of_verbs`, :func:`_predicates_and_pairs` and :func:`_verbs_after_object`."""
    decided = _objects_of_verbs(text, start, token, previous)
    if decided is None:
        decided = _predicates_and_pairs(text, start, token, previous)
    return decided if decided is not None else _verbs_after_object(text, token, previous)


def _favours_and_survivals(text: str, start: int, end: int, token: g._Token, previous: str | None) -> bool | None:
    """Objects before what the old reference works, the award lists and the character biographies
    put after them: the verb of a feeling "for him" ("his love for her eventually becomes an
    obsession"), a span one is survived by ("her widower survived her many years"), a good or harm
    done ("the voyage did him little good"), a place procured ("procured him rapid promotion"; not
    "procured his release from prison"), a prize of the year won ("the song won her Rap Single of
    the Year"; not "won his Player of the Year award").
    """
    low = token.low
    if previous in _FOR_SOMEONE and _word_before(text, start, previous) in _FEELINGS and _verb_of_feeling(text, token):
        return True  # "his love for her eventually becomes an obsession", "his feelings for him grow stronger"; not "his love
        # for her children grows"
    if previous in _SURVIVE and (low in _COUNTS or low.isdigit() or low == "several") and (
            span := g._next(text, token.end)).low is not None and span.low.rstrip("s") in _SPANS and (
            (after := g._next(text, span.end)).word is None or after.low in ("and", "but") or _span_ends(text, after)):
        return True  # not "survived his two years in captivity"
    if previous in _DO and low in _LITTLE_MUCH | _GREAT_NO and g._next(text, token.end).low in _DONE_TO | {"good"}:
        return True
    if previous in _PROCURE and (head := _head_after_modifiers(text, token)).low in _PROCURED and (
            g._next(text, head.end).low not in ("from", "of")):
        return True
    if (previous in _WIN or previous in _EARN) and token.word[:1].isupper() and low not in _TITLES:
        last = token
        for _ in range(3):
            after = g._next(text, last.end)
            if after.word is None or not after.word[:1].isupper():
                break
            last = after
        award = _AWARD_PERIOD.match(text, last.end)
        return True if award is not None and not _lower_case_open(g._next(text, award.end())) else None
    return None


_SURVIVE = wc._with_forms(wc._words("survive outlive"))
_FOR_SOMEONE = wc._words("for towards toward")
_FEELINGS = wc._words("love feelings feeling hatred affection admiration respect desire passion contempt sympathy dislike "
                      "fondness hostility jealousy infatuation obsession attraction devotion loyalty")


def _verb_of_feeling(text: str, token: g._Token) -> bool:
    """The verb of a feeling's clause after "for her": an -ly adverb before it, a verb's -s form or
    base form that WordNet reads mostly as a verb, or a past ("becomes", "grow", "deepened").
    """
    low = token.low
    if not token.word[:1].islower() or not low.isalpha() or low == "own":
        return False
    if wc._is_ly_adverb(low):
        token = g._next(text, token.end)
        low = token.low or ""
    after = g._next(text, token.end)
    if after.word is None or after.low in _FINITE_PASTS or after.low in wc.AUXILIARIES or _past_of_verb(after.low):
        return False  # not "respect for her work.", "his respect for her work grew"
    verbs = mostly_verbs()
    return low in verbs or low.endswith("s") and (low[:-1] in verbs or low.endswith("es") and low[:-2] in verbs) or (
        low in _FINITE_PASTS or _past_of_verb(low))
_GREAT_NO = wc._words("no great some any")
_PROCURE = wc._with_forms(wc._words("procure"))
_PROCURED = wc._words("employment promotion preferment admission access leave")

_CONSTRUCTION_RULES = (_first_object_owned, _object_rules, _causatives_and_gerunds, _second_objects, _favours_and_survivals,
                       _predicates_of_rank)
