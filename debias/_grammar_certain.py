r"""Where the grammar of :mod:`debias._grammar` is certain of a "her"/"his" (punctuation or the
end after the slot, a sentence-initial "Her", a preposition, determiner or pronoun after it, a
scare-quoted noun, "will" the noun), and, where it is not, the construction rules of
:mod:`debias._grammar_constructions`. The word classes the model's features read are in
:mod:`debias._wordnet_lexicons`.
"""

from __future__ import annotations

import re

from debias import _grammar as g
from debias import _word_classes as wc
from debias._gendered_words import is_sentence_initial
from debias._grammar_constructions import (
    _AT_ONCE,
    _BRING_BACK,
    _CURRENCY_SIGNS,
    _GERUND_COMPOUND_HEADS,
    _JUDGES,
    _KNOCK,
    _LEAVE,
    _MADE_OWN,
    _MAKES,
    _NOUN_MODALS,
    _NUMBER_OBJECT_PREVIOUS,
    _NUMBER_OBJECT_VERBS,
    _PERCEPTION,
    _SECOND_PHRASE_STARTS,
    _SUPERLATIVE_LIKE,
    _THEN_ADVERBS,
    _TITLE_GIVERS,
    _TURN,
    _TURN_ONE_S_BACK,
    _span_ends,
    construction,
)
from debias._grammar_phrases import (
    _DEBUTS,
    _FINITE_PASTS,
    _NUMBERS,
    _ORDINALS,
    _SPANS,
    _SUBJECT_CONTRACTION,
    _TITLES,
    _VERBS_OBJECT_STARTS,
    _adjective,
    _adjectives,
    _aside_then_noun,
    _comparative,
    _lower_case_open,
    _names_then_noun,
    _noun_follows,
    _recipient_follows,
    _superlative,
    _word_before,
)
from debias._wordnet_lexicons import (
    _base_verb,
    _past_of_verb,
    _verb_stem_known,
    mostly_verbs,
    predicate_adjectives,
    word_classes,
)

__all__ = ["her_rule_is_certain", "his_rule_is_certain"]

# Words after which the slot's reading is a guess of the rules ("her will", "her just reward",
# "his ever loyal wife", "her and his"): the model decides these even though they are closed.
_UNCERTAIN_CLOSED = wc._words(
    "will may can must being just rather quite somewhat fairly and or ever never always also still "
    "once only even too alone again enough near nearer half won"
)
_CERTAIN_CLOSED = wc.PREPOSITIONS | wc.DETERMINERS | wc.PRONOUNS | wc.POSSESSIVES | wc.CONJUNCTIONS | wc.AUXILIARIES
# "ordered him ashore": adverbs of place that are no noun and head no noun phrase
_ADRIFT = wc._words("ashore aboard aloft astray asunder adrift aground afloat abreast")
_INLAND = wc._words("inland underground offshore upstream downstream uphill downhill upriver downriver north south east "
                    "west northward southward eastward westward northwards southwards eastwards westwards")
_MIDWAY = wc._words("midway halfway")  # "fired him midway through"; not "her halfway house"
# "thereafter", "whereby", "herein": adverbs no possessive determiner can stand before.
_PLACE_ADVERBS = frozenset(
    [stem + tail for stem in ("there", "where", "here")
     for tail in ("after", "by", "in", "of", "on", "upon", "under", "unto", "with", "fore", "from", "at", "to")]
    + ["thence", "hence", "whence", "thither", "hither"])
_PLACE_OR_DIRECTION = _PLACE_ADVERBS | _INLAND | _ADRIFT | _MIDWAY  # what _adverb_of_place reads


def her_rule_is_certain(text: str, start: int, end: int) -> bool | None:
    """The grammar's decision for "her" where it is certain, else ``None``; then the rules of
    the constructions that a model of the context learns from too few examples
    (:func:`debias._grammar_constructions.construction`).
    """
    if end == len(text) or text[end] in g._CLAUSE_PUNCTUATION:
        return True
    if _quoted_before_noun(text, start, end):
        return False
    token = g._next(text, end)
    if token.word is None:
        return _punctuation_after_her(text, start, end, token)
    if is_sentence_initial(text, start):
        return False
    if token.word[:1].isupper() and token.word[1:2].islower() and _name_and_verb_follow(text, start, token):
        return True  # "for him Hunt created an architecture"
    if token.word.isupper() and _CURRENCY_AMOUNT.match(text, end) and g._previous(text, start) in _NUMBER_OBJECT_PREVIOUS:
        return True  # "Abalos offered him US$10 million" ("paid her £5,000": punctuation after her decides above)
    if (not token.low.isalpha() or token.low in _BEFORE_SECOND_WORD or token.low == "i" or token.low.endswith(
            ("ward", "wards"))) and _object_before_word(text, token):
        return True  # "tell him I'm busy", "at him couldn't", "according to", "once more", "one way or", "northward"
    if token.low in _PLACE_OR_DIRECTION and _adverb_of_place(text, token):
        return True
    if token.compound:
        return _compound_after_her(text, start, token)
    if token.low.isdigit() and re.match(r"[–-]\d", text[token.end:token.end + 2]):
        return True  # "beat him 6–3, 6–4": a score
    if token.low == "half" and text.startswith(" of ", token.end) and _half_is_owned(*g._previous(text, start)):
        return False  # "Ah, yes -- her half of a refrigerator stood outside", "has used his half of the money"; not
        # "gave her half of", "with her half of"
    if token.low == "not" and _NEGATED_ADJECTIVE.fullmatch(g._next(text, token.end).low or "") and _noun_follows(
            text, g._next(text, token.end)):
        return False  # "to his not inconsiderable disappointment"; not "let her not look back"
    if token.low in ("next", "away") and token.word[:1].islower() and (decided := _adverb_before_noun(text, token)) is not None:
        return decided  # "sent his next letter from Cairo", "put him next door", "made his away debut"
    if token.low in _HALF_NEAR and token.word[:1].islower() and _noun_follows(text, token):
        return False  # "her half dozen of", "her nearer thigh"; not "gave her half the money", "her near the door"
    if token.low in _NOMINAL_PREPOSITIONS and _preposition_heads_noun(text, start, token, "her"):
        return False  # "we'll not see her like again", "her inside jacket pocket"
    if token.low == "opposite" and (g._previous(text, start)[0] in g._COPULAS or g._next(text, token.end).low in _COUNTERPARTS):
        return False  # "Commodus is his opposite in every way", "gifted to his opposite number"; not "sat him opposite her"
    if token.low in _CERTAIN_CLOSED and token.low not in _UNCERTAIN_CLOSED:
        if token.word[:1].isupper() and g._previous(text, start)[0] in _MAKES and _debut_follows(text, token):
            return False  # "made his All Blacks debut": a name that begins with a closed word
        return _object_before_closed_word(text, start, end, token)
    previous, adjacent = g._previous(text, start)
    if token.word[0].islower() and (token.low in _BEFORE_MODIFIERS or text.startswith(",", token.end) and _adjective_word(
            token.low) and _adjective_word(g._next(text, token.end + 1).low)) and _modifiers_before_noun(text, token):
        return False  # "beneath her hard, black armour", "her soon to be rival", "her otherwise good performance", "her
        # sometimes too active eyes"; not "lived with her entirely, only"
    if previous in _MAKES and g._is_open(token) and _debut_follows(text, token):
        return False  # "made his Test debut", "made his acting debut", "made his New York debut"; not "made him Earl"
    if _owned_noun_idiom(text, token, previous):
        return False  # "saw his love for his job", "gave his word that", "make his dream a reality"
    if token.low in _FOLLOWING_PENDING and adjacent and _following_is_a_preposition(text, token, previous):
        return True  # "come back to haunt him following his diagnosis"; not "his following of the rules"
    previous = previous if adjacent else None
    if token.word[:1].islower() and _adverb_or_verb_after_object(text, token, previous):
        return True
    if token.low.endswith("ing") and token.word[:1].islower() and g._next(text, token.end).low in _GERUND_COMPOUND_HEADS:
        return False  # "started his publishing career", "his fighting style"; no object of a gerund is "career"
    low = token.low
    if low in _IDIOM_WORDS or text.startswith(" and ", token.end):
        decided = _idiom_after_her(text, token, previous)
        if decided is not None:
            return decided
    if text.startswith(" than ", token.end) and _comparative_before_than(text, token):
        return True  # "stood beside him closer than the rest"; not "her more than 200 songs"
    if low.endswith("er") and previous in wc.OBJECT_PREDICATE_VERBS and token.word[0].islower() and _comparative(low) and not (
            _lower_case_open(g._next(text, token.end)) or _names_then_noun(text, token)):
        return True  # "made her bolder and bolder", "kept him busier"; not "made his bolder moves", "consider his later
        # Broadway work inferior"
    if low.endswith("s") and previous in wc.PREPOSITIONS and token.word[:1].islower() and _verb_before_object(text, token) and not (
            _word_before(text, start, previous) or "").endswith("ing"):
        return True  # "the search for her takes the soldiers across"; not "importing into her harbors a harvest"
    if _likeness_before(text, start, previous) and _present_verb_after_likeness(text, token):
        return True  # "a statue of him stands in the square", "a shrine dedicated to her stands"; not "a portrait of her hands"
    if token.word[:1].islower() and word_classes(low) == ("open",) and low not in _NOT_PLAIN and not low.endswith("ing") and (
            previous in _NO_GOVERNOR or previous is not None and _is_plain(previous) and (
                _word_before(text, start, previous) not in _BEFORE_A_VERB)) and not _past_before_preposition(text, token):
        return False  # "to her husband", "and her work", "was her idea": no verb governs an object here
    if previous in wc.PREPOSITIONS and token.word[:1].islower() and low.endswith("ed") and (
            wc._is_participle(low) or wc._is_adjective(low)) and _noun_follows(text, token):
        return False  # "like his barefaced kin", "to her astonished eyes"; not "with her dressed in white"
    return construction(text, start, end, token, previous)


def _adverb_or_verb_after_object(text: str, token: g._Token, previous: str | None) -> bool:
    """A lower-case ``token`` that no noun phrase of a determiner begins with: a frequency or a
    place adverb and no noun after it, "once"/"twice" and a frequency, or "include" after a
    preposition (the verb after a relative clause).
    """
    low = token.low
    if (low in _FREQUENCIES or low in _STAGES_AND_TOWNS) and not _lower_case_open(g._next(text, token.end)):
        return True  # "to call him daily and thank him", "bring him backstage after"; not "her daily routine"
    if low in _TIMES_OVER and (after := g._next(text, token.end)).low in _FREQUENCIES and not _lower_case_open(
            g._next(text, after.end)):
        return True  # "bled him twice daily during"; not "his twice daily dose"
    if (low in _NUMBERS or low.isdigit()) and text.startswith(" times", token.end) and not _lower_case_open(
            g._next(text, token.end + 6)):
        return True  # "the devil tempted him forty times in the desert"
    if low == "only" and (after := g._next(text, token.end)).low in _TIMES_OVER and not after.compound:
        return True  # "the selectors capped him only once"; not "his only once-famous song"
    if low in _DEGREE_COMPARATIVES and previous is not None and previous not in wc.CLOSED and _SENTENCE_END.match(text, token.end):
        return True  # "nobody had ever hit him harder."; not "lose his number?", "bury his liver."
    if low in _MULTIPLES and (after := g._next(text, token.end)).low in _ARTICLES_AND_POSSESSIVES and after.word[:1].islower():
        return True  # "offered him double his original fee", "paid her twice the going rate"; not "his double bass"
    if low.endswith("s") and low[:-1] in _SPANS and g._next(text, token.end).low in _SPAN_AFTER:
        return True  # "an offer made by him weeks earlier"
    return low in _INCLUDES and previous in wc.PREPOSITIONS  # "the pupils who studied under him included Jan Steen"


def _noun_after_span(text: str, span: g._Token) -> bool:
    """A noun after "every" and a span word, that the span modifies ("his every day life"; not "him every
    few days", "him every day for a year").
    """
    after = g._next(text, span.end)
    return _lower_case_open(after) and after.low not in wc.CLOSED and after.low.rstrip("s") not in _EVERY_SPAN


def _idiom_after_her(text: str, token: g._Token, previous: str | None) -> bool | None:
    """Words after "her" that an idiom or adverbial reads ("back together", "due to", "face to face",
    "kept him home", "just fine", "every few days", "first.", "overnight."), ``None`` elsewhere.
    """
    low = token.low
    if low in _IDIOM_FIRSTS and (low, g._next(text, token.end).low) in _OBJECT_IDIOMS:
        return True  # "to stick him back together", "her feelings for him due to her jealousy", "spoke to her prior to"
    if low == "back" and (previous in _BRING_BACK or previous in _TURN) and _back_is_an_adverb(text, token, previous):
        return True  # "lure him back in 2008", "turned him back at the border"; not "turned her back on", "hurt her back"
    if (previous in _KNOCK and low == "cold" or low == "just" and g._next(text, token.end).low in _AFTER_JUST) and (
            token.word[:1].islower()):
        return True  # "knocks him cold while", "they replaced him just fine"; not "her just reward"
    if low == "please" or low == "every" and (span := g._next(text, token.end)).low in _EVERY_SPAN:
        return low == "please" or not _noun_after_span(text, span)  # "don't blame him please", "handle him every few
        # days"; not "her every move", "his every day life"
    if low in _SORT and text.startswith(" of ", token.end) and g._next(text, token.end + 3).low in ("a", "an"):
        return True  # "you might give him sort of a tactful nudge"; not "her kind of music"
    if low == "back" and previous in _HAVE and g._next(text, token.end).low in _HAD_BACK_FOR:
        return True  # "unhappy to have him back for the holidays"; not "had her back to the wall"
    if low == "back" and (previous in _HAVE or previous == "with") and _BACK_TO_THE.match(text, token.end):
        return False  # "he had his back to the wall", "stood with her back to the door"
    if low == "home" and previous in _SENT_HOME and (g._predicate_ends(after := g._next(text, token.end)) or after.low == "all"):
        return True  # "Psyche kept him home all the time", "drove her home after the party"; not "sent her home video"
    if low == "face" and text.startswith(" to face", token.end):
        return True  # "talk to him face to face"; not "turned her face to the wall"
    if low == "first" and previous is not None and previous not in g._COPULAS and previous not in ("than", "as") and (
            _SENTENCE_END.match(text, token.end)):
        return True  # "goes to check on him first.", "she saw him first,"; not "the album was his first."
    if text.startswith(" and ", token.end) and token.word[:1].islower() and _modifiers_joined_before_noun(text, token, previous):
        return False  # "respected for his long and active support", "he dropped his earlier and delightful hamming"
    if low in _AT_ONCE and g._predicate_ends(g._next(text, token.end)):
        return True  # "the melody came to him overnight.", "it changed her forever"; not "her overnight success"
    return None


# verbs whose object a quoted phrase follows: 'branded him "traitor"', 'gave him "greater freedom"'
_QUOTE_OBJECT_VERBS = (wc.NAMING_VERBS | wc.DITRANSITIVES | _LEAVE) - wc._words(
    "get gets got getting gotten tell tells told telling") | wc._with_forms(wc._words("brand label dub term denounce hail")) | (
    wc._with_forms(wc._words("think deem judge pronounce"))) | wc._words("thought")  # 'thought him "idle but clear"'

# verbs whose object a quoted title names: 'wrote his "Ode to Joy"', 'released his "Greatest Hits"'
_WORKS_MADE = wc._with_forms(wc._words("compose publish record release paint direct produce premiere complete dedicate sell "
                                       "perform revise exhibit stage adapt translate finish reissue donate destroy conduct")) | (
    wc._words("wrote written sang sung sold"))

_NEGATED = ("n't", "n’t")
_ONCE_MORE = wc._words("more again")
_RIGHT_THEN = wc._words("there here now away then into through out back up down across over behind")
_HAVE = wc._words("have has had having")
_HAD_OWN = wc._words("pick say fill share wish way revenge chance day moment doubts eye turn")
_HAD_OWN_PREPOSITIONS = wc._words("of in on at about with")
_NEGATED_ADJECTIVE = re.compile(r"(?:un|in|im|ir|il|non)[a-z]+(?:able|ible|ant|ent|ful|al|ive|ous|ic)")
_BEFORE_MODIFIERS = wc._words("soon otherwise sometimes often always usually normally typically generally increasingly "
                              "recently newly previously formerly")
_SUBJECT_PRONOUNS = frozenset({"He", "She"})  # capitalised after "him": a new sentence without its stop
_EVERY_SPAN = wc._words("few other day days week weeks month months year years time night morning evening hour now so")
_SORT = wc._words("sort kind")
_AFTER_JUST = wc._words("fine now then once before after like because as")
_HAD_BACK_FOR = wc._words("for in at after")
_BACK_TO_THE = re.compile(r" to the (?:wall|door|window|camera|audience|sea|fire|crowd|room)s?\b", re.IGNORECASE)
_SENT_HOME = wc._with_forms(wc._words("send bring take keep walk drive see escort follow carry ferry fly ship")) | wc._words(
    "sent brought took taken kept drove driven saw seen flew flown")
_OBJECT_IDIOMS = {("back", "together"), ("due", "to"), ("prior", "to")}
_IDIOM_FIRSTS = {first for first, _ in _OBJECT_IDIOMS}
_IDIOM_WORDS = _IDIOM_FIRSTS | _AT_ONCE | wc._words("back cold just please every sort kind home face first")
_BEFORE_SECOND_WORD = wc._words("according once one right too instead back")  # the words whose next word decides
_GIVES = wc._with_forms(wc._words("give")) | wc._words("gave given")
_KEEPS = wc._with_forms(wc._words("keep")) | wc._words("kept")
_KEEPS_OR_LOSES = _KEEPS | wc._with_forms(wc._words("lose")) | wc._words("lost")
_KEPT_AS = wc._words("secret mystery")
_HOLDS_OR_STANDS = _KEEPS | wc._with_forms(wc._words("hold stand")) | wc._words("held stood")
_MADE_INTO = wc._words("reality success misery priority nightmare hell")
_STAGES_AND_TOWNS = wc._words("backstage offstage onstage downtown uptown midtown")  # adverbs of place, no particles
_FREQUENCIES = wc._words("daily nightly weekly monthly yearly hourly fortnightly")
_TIMES_OVER = wc._words("once twice thrice")
_INCLUDES = wc._words("include includes included")
_MULTIPLES = wc._words("double twice triple treble half")
_SPAN_AFTER = wc._words("earlier later ago afterwards afterward")
_KIN_PREFIXES = wc.RELATIONAL_NOUNS | wc._words("ex step half great grand foster god")  # "his ex-wife", "his step-son"
# comparative adverbs of degree and manner, which no noun spells ("number", "liver" and "elder" do)
_DEGREE_COMPARATIVES = wc._words("harder faster longer sooner closer further farther higher earlier tighter stronger deeper "
                                 "louder quicker slower worse")
_TOO_FAR = wc._words("far much hard long soon often little well badly closely quickly early late")
_DIRECTIONS = re.compile(r"(?:north|south|east|west|home|sea|land|sky|up|down|in|out|on|back|for|after|to)wards?")


def _object_before_word(text: str, token: g._Token) -> bool:
    """Words no possessive determiner stands before: the subject "I" or a subject's contraction
    ("tell him I'm busy", "tell him you're my husband"), "right then", "too far", a
    negated auxiliary ("the card spat back at him couldn't be argued with"), "according to",
    "once more"/"once again" (not "her once lovely face"), "one way or the other", an adverb in
    "-ward(s)" before no noun ("sent him northward to"; not "his northward journey").
    """
    word, low = token.word, token.low
    if word[0] == "I" and (word == "I" and not text.startswith(".", token.end) or word.startswith(("I'", "I’"))):
        return True
    if ("'" in low or "’" in low) and (_SUBJECT_CONTRACTION.fullmatch(low) or low.endswith(_NEGATED) and not token.compound):
        return True
    if low not in _BEFORE_SECOND_WORD and not low.endswith(("ward", "wards")):
        return False
    after = g._next(text, token.end)
    if low == "according" and after.low == "to" or low == "once" and after.low in _ONCE_MORE or low == "instead" or (
            low == "back" and text.startswith(" to health", after.end - 3)):
        return True  # "caught him instead of", "nursed him back to health"
    if low == "one" and after.low == "way" and g._next(text, after.end).low == "or":
        return True
    if low == "right" and after.low in _RIGHT_THEN or low == "too" and after.low in _TOO_FAR and not (
            _lower_case_open(g._next(text, after.end))):
        return True  # "kill him right then", "steered him right into", "pushed him too far"; not "her too long hair"
    return _DIRECTIONS.fullmatch(low) is not None and word[:1].islower() and not g._is_open(after)


def _quoted_after_her(text: str, start: int, token: g._Token) -> bool | None:
    """A quotation mark after "her": an object before a quoted function word ('labelled him "a
    supposed anarchist"') or, after a naming, double-object or "leave" verb, before a quoted
    phrase ('left him "devastated"', 'gave him "greater freedom"'); a determiner before a
    scare-quoted noun elsewhere ('wrote his "confession"'). ``None`` where none applies
    ("'cause", "'round", 'against him "which').
    """
    quoted = g._next(text, token.end)
    if _noun_after_quotation(text, token):
        return False  # 'keeping up her "are you crazy" part of the dialogue'
    if quoted.word is not None and quoted.word[:1].isupper() and _is_quotation(text, token):
        previous, adjacent = g._previous(text, start)
        if adjacent and (previous in _TITLE_PREPOSITIONS or previous in _WORKS_MADE):
            return False  # 'most famous for his "Divina Commedia".', 'she wrote her "Complaint of a Loyal Subject"'; not
            # 'said to her "Go away"'
        if adjacent and previous in _JUDGES and g._next(text, _closing_quote(text, token)[1]).low in _SECOND_PHRASE_STARTS:
            return False  # 'considered his "Principia" his greatest work'; not 'considered him "Britain's finest"''
        if adjacent and previous in wc.NAMING_VERBS:
            return not _WHAT_SUBJECT_VERB.search(text, max(0, start - 60), start)  # 'nicknamed him "Chalky"'; not 'what
            # the press dubbed his "Wedding of the Century"'
        return None
    if quoted.word is not None and quoted.word[:1].islower() and _is_quotation(text, token) and (
            _quoted_predicate(text, quoted)):
        previous, adjacent = g._previous(text, start)
        if adjacent and previous is not None and previous not in wc.CLOSED:
            return True  # 'found him "delightful in a drawing room"', 'accepted him "more out of curiosity"', 'thought
            # him "too English"': no possessive's noun begins so (a noun after the quotation is read above)
    if quoted.word is None or not quoted.word[:1].islower() or quoted.low in _UNCERTAIN_CLOSED or quoted.compound or (
            text.startswith("-", quoted.end)):
        return None  # 'use of his "a- [automatic-] machine"': no article
    if quoted.low in _CERTAIN_CLOSED:
        return False if text[quoted.end:quoted.end + 1] in _QUOTES else True  # 'gave his "all"': a quoted noun
    if not _is_quotation(text, token) or not g._is_open(quoted):
        return None
    previous, adjacent = g._previous(text, start)
    if adjacent and (previous in _MAKES and quoted.low in _MADE_OWN or previous in wc.DITRANSITIVES and previous not in (
            wc.NAMING_VERBS) and _recipient_after_quotation(text, token)):
        return False  # 'made his "comeback" in 1975', 'gave his "blessing" to the marriage': the quotation marks a noun
    return adjacent and previous in _QUOTE_OBJECT_VERBS and not _WHAT_SUBJECT_VERB.search(text, max(0, start - 60), start)


_QUOTED_DEGREES = wc._words("more less most far much too so very quite rather")
_AFTER_QUOTED_PREDICATE = wc._words("and or but than as")
_QUOTED_INTENSIFIERS = wc._words("too so very quite rather far")
_COMPOUND_ADVERBS = wc._words("ill well self half over under")  # "ill-prepared", "well-meaning", "self-absorbed"


def _quoted_predicate(text: str, quoted: g._Token) -> bool:
    """A quotation that begins a predicate, a comparison or a clause, never a possessive's noun
    phrase: a degree word or -ly adverb before a preposition or "than" ("more out of curiosity",
    "more than I trust"), or an adjective or a finite past (after such a word) that no noun or
    modifier follows inside, only a preposition, a conjunction or the quotation's end ("delightful
    in a drawing room", "more interesting as"; not "divisive rhetoric", "modest little flat",
    "unified field theory").
    """
    word = quoted
    if word.compound:
        if word.low not in _COMPOUND_ADVERBS:
            return False
        while word.compound:
            word = g._next(text, word.end)  # 'found him "ill-prepared but insatiable"': the compound is one adjective
        return _quoted_predicate_ends(text, word)
    if word.low in _QUOTED_DEGREES or wc._is_ly_adverb(word.low):
        word = g._next(text, word.end)
        if word.low in wc.PREPOSITIONS or word.low in wc.PARTICLES or word.low == "than":
            return True
        if word.low is None or word.low in _SUPERLATIVE_LIKE or _superlative(word.low):
            return False  # 'gave his "very best"'
        if quoted.low in _QUOTED_INTENSIFIERS:
            return True  # 'thought him "too English, too Protestant"'
    if word.low is None or not (_adjective(word.low) or _comparative(word.low) or word.low in _FINITE_PASTS or (
            word.low.endswith("ed") and _past_of_verb(word.low))):
        return False
    return _quoted_predicate_ends(text, word)


def _quoted_predicate_ends(text: str, word: g._Token) -> bool:
    """Nothing of a noun phrase after the predicate's ``word``: the quotation's end, a preposition or
    a conjunction ("delightful in", "ill-prepared but").
    """
    after = g._next(text, word.end)
    return after.word is None or after.low in wc.PREPOSITIONS or after.low in _AFTER_QUOTED_PREDICATE


def _recipient_after_quotation(text: str, token: g._Token) -> bool:
    """"to" or "for" right after the quotation that opens at ``token``: what was given goes to someone, so the
    quoted word is the giver's own ('gave his "blessing" to the marriage'; not 'gave him "greater freedom"').
    """
    _, closed = _closing_quote(text, token)
    return closed > 0 and g._next(text, closed).low in ("to", "for")


# "what he called her": "what" is the naming's second object, so a quotation after "her" is her own
_WHAT_SUBJECT_VERB = re.compile(r"\b[Ww]hat (?:the )?\w+ \w+ $")
_TITLE_PREPOSITIONS = wc._words("of for in on by")  # before a quoted title, not a quoted speech ("to", "at", "from")
_CLOSING = {'"': '"', "“": "”", "``": "''"}
_SINGLE_CLOSING = re.compile(r"(?<=[^\s'‘’])['’](?!\w)")  # not an apostrophe inside a word ("Santa's")


def _closing_quote(text: str, token: g._Token) -> tuple[int, int]:
    """Where the quotation that opens at ``token`` closes, within 80 characters: the closing
    mark's start and end, or ``(-1, -1)``; a single quotation mark closes before no letter.
    """
    closing = _CLOSING.get(token.quote)
    if closing is not None:
        stop = text.find(closing, token.end, token.end + 80)
        return (stop, stop + len(closing)) if stop >= 0 else (-1, -1)
    if token.quote in ("'", "‘"):
        found = _SINGLE_CLOSING.search(text, token.end, token.end + 80)
        return found.span() if found else (-1, -1)
    return -1, -1


def _is_quotation(text: str, token: g._Token) -> bool:
    """A double quotation mark, or a single one that a closing mark ends ('his 'Danger Zone' tour')."""
    return token.quote in _CLOSING or _closing_quote(text, token)[0] >= 0


def _noun_after_quotation(text: str, token: g._Token) -> bool:
    """A lower-case noun right after a short quotation that opens at ``token`` ('her "are you
    crazy" part', 'his "my hands are knives" routine', "his 'Greatest Hits' album").
    """
    stop, closed = _closing_quote(text, token)
    if stop < 0 or text[token.end:stop].count(" ") > 8 or text[stop - 1] in ",;.!?":
        return False  # 'called him "Baba Ijo," mother of the church': punctuation ends the quotation's phrase
    after = g._next(text, closed)
    return _lower_case_open(after) and not g._predicate_ends(after) and after.low not in _NOT_AFTER_QUOTED


_NOT_AFTER_QUOTED = wc.MODIFIERS | wc.PARTICLES | wc._words("and or but as than very")


# the second halves of compound adjectives that are predicates ("carried him shoulder-high from")
_COMPOUND_PREDICATES = re.compile(r"(?:high|deep|free|length|wide|tight|dry|long|frozen|dead|starved|drowned|naked|asleep|"
                                  r"conscious|drunk)\b")  # "found him half-frozen on the river"


def _compound_after_her(text: str, start: int, token: g._Token) -> bool:
    """A hyphenated compound after "her": a determiner's ("her well-known novel", "her
    ex-husband") but a number after a verb of numbers ("secured him seventy-five per cent"), a
    compound title after a verb that confers it ("appointed him commander-in-chief") and a compound
    adjective that ends a predicate ("carried him shoulder-high from the pitch").
    """
    if token.low.isdigit() and (score := _SCORE_END.match(text, token.end)):
        after = g._next(text, score.end())
        return not (_lower_case_open(after) and after.low not in wc.CLOSED)  # "beat him 6-3 in the final"; not "his 2-1 win"
    if token.low in _NUMBERS and g._previous(text, start) in _NUMBER_OBJECT_PREVIOUS and not _UNIT_COMPOUND.match(text, token.end):
        return True  # "secured him seventy-five per cent"; not "sent his five-year-old daughter"
    previous, adjacent = g._previous(text, start)
    last = _COMPOUND_LAST.match(text, token.end)
    if adjacent and previous in _TITLE_GIVERS | wc.NAMING_VERBS and (token.low in _TITLES or token.word[:1].isupper() or (
            last is not None and last.group(1).lower() in _TITLES)):
        return True  # "created him cardinal-priest of", "appointed him Under-Secretary of State", "promoted him
        # major-general"
    second = _COMPOUND_PREDICATES.match(text, token.end)
    if second is not None and g._predicate_ends(g._next(text, second.end())):
        return True
    if last is not None and adjacent and (previous in _TITLE_GIVERS | wc.NAMING_VERBS or previous in _MAKES) and (
            g._next(text, last.end()).low in _TITLES) and token.low not in _KIN_PREFIXES and last.group(1).lower() != "law":
        return True  # "she made him first-choice captain", "named her long-serving secretary"; not "appointed his
        # son-in-law commander"
    if last is not None and not _lower_case_open(after := g._next(text, last.end())):
        word = last.group(1).lower()
        if word in _FAREWELL_HALVES or word == "style" and g._predicate_ends(after):
            return True  # "had bid her good-bye with", "executes him mob-style,"
        if adjacent and previous in wc.OBJECT_PREDICATE_VERBS and (word in _STRUCK or word.endswith("ed")) and (
                g._predicate_ends(after)):
            return True  # "must have left her star-struck, for", "left him grief-stricken"
        if adjacent and previous in _PERCEPTION and word.endswith("ing") and len(word) > 5:
            return True  # "glad to see her over-acting to the best of"
        if adjacent and previous in wc.DITRANSITIVES and word in wc.MASS_NOUNS and not _recipient_follows(
                text, g._plain_token(word, last.end())):
            return True  # "a drug that gives him super-strength and durability", "gave her self-confidence."
    return adjacent and previous in _MAKES and _predicate_compound(text, start)


_HANDLE_SIGNS = frozenset("@#")
_LOAN = wc._with_forms(wc._words("loan"))  # a noun more often than a verb, so in no verb list: "loan her $20"
_COSTS = wc._with_forms(wc._words("cost charge bill reimburse compensate"))


def _punctuation_after_her(text: str, start: int, end: int, token: g._Token) -> bool:
    """A mark after "her": an object's, but a quotation's own reading, and the determiner's before a
    handle, an amount that no verb gives, or an aside that a noun phrase follows ("tweeted from his
    @POTUS account", '"War and Remembrance," his $110 million adaptation', "her (unfinished) memoirs";
    not "paid her $5,000").
    """
    if text[end:end + 1] == " " and (token.punct in _HANDLE_SIGNS or token.punct in _CURRENCY_SIGNS and not (
            _amount_is_given(text, start)) or _aside_then_noun(text, token)):
        return False
    return True if token.quote is None else _quoted_after_her(text, start, token)


def _amount_is_given(text: str, start: int) -> bool:
    """A verb right before "her" that an amount can follow as a second object ("paid her $5,000",
    "offered him £2 million"), not an aside or a preposition ("'Shogun,' his $110 million epic").
    """
    previous, adjacent = g._previous(text, start)
    return adjacent and (previous in _NUMBER_OBJECT_VERBS or previous in _LOAN or previous in _COSTS)  # not "completed his
    # £2.3 million move"


_SCORE_END = re.compile(r"\d+")
# a number and a unit as one hyphenated modifier: "five-year-old", "three-volume", "ten-man"
_UNIT_COMPOUND = re.compile(r"-?(?:year|month|week|day|hour|minute|mile|metre|meter|foot|storey|story|page|volume|part|man|"
                            r"seat|acre|point|game|match|race|track|song|episode|book|issue)s?(?:-(?:old|long))?\s+[a-z]")
_COMPOUND_LAST = re.compile(r"(?:[A-Za-z]+-)*([A-Za-z]+)\b")  # from the compound's second part on
_FAREWELL_HALVES = wc._words("bye night")  # "good-bye", "good-night"
_STRUCK = wc._words("struck stricken bound born")
_COMPOUND_AFTER_PRONOUN = re.compile(r"\w+\s+([a-z]+(?:-[a-z]+)+)\b")


def _predicate_compound(text: str, start: int) -> bool:
    """A hyphenated adjective that ends in "-able"/"-ible" or in a predicate adjective of WordNet's,
    before what ends a predicate ("made him re-electable indefinitely", "made her self-sufficient.").
    """
    compound = _COMPOUND_AFTER_PRONOUN.match(text, start)
    if compound is None:
        return False
    last = compound.group(1).rsplit("-", 1)[1]
    after = g._next(text, compound.end())
    return (last.endswith(("able", "ible")) or last in predicate_adjectives()) and (
        g._predicate_ends(after) or after.low is not None and wc._is_ly_adverb(after.low))


# Words before "her" that govern no object of a plain word after it (a preposition takes "her"
# as its object only before a non-noun: "to her every day", "with her laughing"). On the
# training texts, 52 of 4,914 such slots were objects (mostly "her every day", "her one day").
# A plain word (:func:`_is_plain`) before "her" governs none either.
_NO_GOVERNOR = wc.PREPOSITIONS | wc.CONJUNCTIONS | wc.DETERMINERS | wc._words(
    "i you he she we they it is are was were be been am being")
_SENTENCE_END = re.compile(r"[.!?;:]|\Z")
_CURRENCY_AMOUNT = re.compile(r" (?:(?:[A-Z]{1,3})?[$£€¥]|DM|USD|EUR|GBP|CHF|INR|Rs\.?) ?\d")
_BEFORE_A_VERB = wc._words("to will would shall should can could may might must")  # "will supply her drugs"
_NOT_PLAIN = wc.NUMBER_WORDS | _FINITE_PASTS | wc._words(
    "one every altogether somehow somewhat anyhow worth thirteen fourteen fifteen sixteen seventeen eighteen nineteen "
    "twenty thirty forty fifty sixty seventy eighty ninety")  # a finite past is no noun: "a feud with him led the rapper"


_NOT_COMPARED = wc.NUMBER_WORDS | wc._words("average usual normal expected anticipated")


_PREPOSITIONS_NOT_OF = wc.PREPOSITIONS - wc._words("of by")


def _closed_word_is_her_noun(text: str, start: int, token: g._Token) -> bool:
    """"might" after "all her", "all" staked before punctuation or a preposition other than "of",
    "down" before "payment", or before "time" spent: the noun after the determiner "her" ("with all her
    might", "gave her all in the final", "gives her all and more", "made her down payment", "spent her
    down time fishing", "lived her all too short life"; not "gave her all of it", "gave her all she wanted",
    "made him all too aware", "put her down", "let him down time and again"); "off" and "through" before
    the nouns they modify ("had her off day", "with her through ball"; not "saw him off days later").
    """
    after = g._next(text, token.end)
    if token.low == "might":
        return g._previous(text, start)[0] in _FULL
    if token.low == "all" and after.low == "too":
        return _noun_follows(text, g._next(text, after.end))  # "lived her all too short life"; not "made him all too aware"
    if token.low == "all":
        return g._previous(text, start)[0] in _STAKE_ALL and (after.word is None and after.quote is None or (
            after.low in wc.PREPOSITIONS and after.low != "of") or after.low in ("and", "but"))
    if token.low in _MODIFYING_CLOSED:
        return _closed_word_modifies_noun(text, token, after)  # "had her off day", "her so called friends"
    if token.low != "down" or after.low not in _DOWN_NOUNS:
        return False
    previous = g._previous(text, start)[0]  # "let him down time and again": the particle, unless spent or after a preposition
    return after.low.startswith("payment") or previous in _SPEND or previous in wc.PREPOSITIONS


def _object_before_closed_word(text: str, start: int, end: int, token: g._Token) -> bool:
    """"her" before a preposition, determiner, pronoun, possessive, conjunction or auxiliary: what
    :func:`g.her_is_object` answers for these, without its other checks ("gave her a book"), except
    "mine" the noun after a verb that neither gives nor names ("opened his mine in 1880", "says her mine
    is"; not "gave her mine", "made her mine", "could scarce believe him mine").
    """
    if token.low == "mine" and token.word[:1].islower():
        previous, adjacent = g._previous(text, start)
        return adjacent and (previous in wc.DITRANSITIVES or previous in wc.OBJECT_PREDICATE_VERBS or previous in wc.NAMING_VERBS)
    if token.low in _CLOSED_AND_NOUN and token.word[:1].islower() and _closed_word_is_her_noun(text, start, token):
        return False  # "with all her might", "gave her all in the final", "made her down payment"
    return True if token.word[:1].islower() or token.word in _SUBJECT_PRONOUNS else g.her_is_object(text, start, end)


def _adverb_before_noun(text: str, token: g._Token) -> bool | None:
    """"next" before a noun that is no time or "door" is a determiner's ("sent his next letter from
    Cairo", "won his next fight"; not "saw him next week"); "next door" is an object's unless a noun
    follows ("put him next door"; not "her next door neighbour"); "away" before the nouns of a match
    is a determiner's ("made his away debut"; not "sent him away"). ``None`` elsewhere.
    """
    after = g._next(text, token.end)
    if token.low == "away":
        return False if after.low in _AWAY_NOUNS else None
    if after.low == "door" and after.punct is None and not after.compound:
        return not _noun_follows(text, after)
    if _noun_follows(text, token) and after.low not in _NEXT_ADVERBIAL:
        return False
    return None


def _owned_noun_idiom(text: str, token: g._Token, previous: str | None) -> bool:
    """A noun that the pronoun owns in a fixed phrase: "love for/of" (not "love for the first
    time"), "word" after "give" (not "gave him word of the attack") and a noun that "make" turns
    into a reality, a success or a misery ("make his dream a reality"; not "made him king a year later") and
    one that "keep" keeps a secret ("tried to keep his drinking a secret"); "cool" kept or lost ("lost his cool"),
    "ground" held ("stood her ground").
    """
    if token.low == "love":
        after = g._next(text, token.end)
        return after.low in ("for", "of") and not text.startswith(" the first", after.end)
    if token.low == "word":
        return previous in _GIVES and g._next(text, token.end).low != "of"
    if token.low == "cool":
        return previous in _KEEPS_OR_LOSES  # "lost his cool with the referee", "kept her cool under pressure"
    if token.low == "ground":
        return previous in _HOLDS_OR_STANDS  # "held his ground against the critics", "stood her ground"
    if token.low in _HAD_OWN and previous in _HAVE:
        after = g._next(text, token.end)
        return after.word is None and after.quote is None or after.low in _HAD_OWN_PREPOSITIONS  # "had his pick of the
        # offers", "had his say in", "had his day in court"; not "had him pick the team", "had him turn around"
    if previous not in _MAKES and previous not in _KEEPS or not token.word[:1].islower() or not g._is_open(token):
        return False
    after = g._next(text, token.end)  # only here: the common case above needs no look ahead
    return after.low in ("a", "an") and g._next(text, after.end).low in (_MADE_INTO if previous in _MAKES else _KEPT_AS)


def _half_is_owned(previous: str | None, adjacent: bool) -> bool:
    """"half of" with no word before it, or after a verb that takes no second object ("has used
    his half of the money"; not "gave her half of").
    """
    return not adjacent or previous is not None and previous not in wc.DITRANSITIVES and (
        previous.endswith("ed") or _verb_stem_known(previous))


_BEFORE_FOLLOWING = wc._words("to for against from towards toward about after")  # "named after him following a vote"
_FOLLOWING_PENDING = wc._words("following pending")  # "suspended him pending an investigation"
_WHOLLY = wc._words("outright entirely wholly")


def _following_is_a_preposition(text: str, token: g._Token, previous: str | None) -> bool:
    """"following" after a verb's object (``previous`` the verb), before an article, a possessive, a
    name or a number: the preposition ("haunt him following his diagnosis", "arrested her following
    the raid").
    """
    after = g._next(text, token.end)
    if previous is None or previous not in _BEFORE_FOLLOWING and (previous in wc.CLOSED or not (
            _verb_stem_known(previous) or previous.endswith("ed"))):
        return False  # "recorded tribute albums to him following his death", "sacked him following"; not "on their
        # following the other gentlemen"
    return after.low in _ARTICLES_AND_POSSESSIVES or after.word is not None and (after.word[:1].isupper() or after.low.isdigit())


def _debut_follows(text: str, token: g._Token) -> bool:
    """A debut after ``token`` and up to three more open words ("Test debut", "New York debut",
    "Royal Opera House debut", "American film debut"; not "made him captain on his debut").
    """
    after = g._next(text, token.end)
    for _ in range(4):
        if after.low in _DEBUTS:
            return True
        if after.low in ("and", "or") or after.low == "as" and text.startswith(" well as ", after.end):
            # coordinated kinds of debut: "made his acting and directing debut", "acting as well as screenwriting debut"
            after = g._next(text, after.end + (len(" well as") if after.low == "as" else 0))
            if after.low in _THEN_ADVERBS:
                return False  # not "made him captain and then ..."
            continue
        if not g._is_open(after) or after.quote is not None or after.word is None:
            return False
        after = g._next(text, after.end)
    return False


# what stands or hangs somewhere: "a statue of him stands", "a portrait of her hangs"
_LIKENESSES = wc._words("statue statues bust busts portrait portraits painting paintings photograph photographs photo "
                        "photos picture pictures image images drawing drawings sketch effigy likeness memorial relief "
                        "figure figures sculpture sculptures mural murals engraving engravings monument")
_LIKENESS_VERBS = wc._words("stands hangs sits lies rests survives exists shows depicts portrays adorns "
                            "overlooks dominates")


_DEDICATED = wc._words("dedicated erected raised built consecrated")
_STILL_TODAY = wc._words("today still now also")  # "a statue of him stands today in the square"


def _likeness_before(text: str, start: int, previous: str | None) -> bool:
    """A likeness "of" the pronoun at ``start`` or a shrine "dedicated to" it ("a statue of him",
    "a shrine dedicated to her"): the subject of the verb after the pronoun.
    """
    if previous == "of":
        return _word_before(text, start, "of") in _LIKENESSES
    return previous == "to" and _word_before(text, start, "to") in _DEDICATED


def _present_verb_after_likeness(text: str, token: g._Token) -> bool:
    """What a likeness does, in the present, before a preposition, a determiner or a pronoun: the
    likeness's verb ("stands in", "hangs in the hall", "shows her with"; not "a sketch of her dogs in").
    """
    if token.low not in _LIKENESS_VERBS or not token.word[:1].islower() or token.punct is not None:
        return False
    after = g._next(text, token.end)
    return after.low in wc.PREPOSITIONS or after.low in wc.DETERMINERS or after.low in wc.PRONOUNS or after.low in _STILL_TODAY


def _comparative_before_than(text: str, token: g._Token) -> bool:
    """A comparative in "-er" and "than" after the pronoun, not before a number or a norm: the
    object's predicate ("loved him better than", "stood beside him closer than the rest"), never a
    determiner's noun phrase ("his greater than average height"); the caller has read " than ".
    """
    if not token.word[:1].islower() or token.compound or not _comparative(token.low):
        return False
    than = g._next(text, token.end)
    after = g._next(text, than.end)
    return after.low is not None and not after.low[:1].isdigit() and after.low not in _NOT_COMPARED


def _back_is_an_adverb(text: str, token: g._Token, previous: str) -> bool:
    """"back" after a verb of bringing or turning before what ends a predicate: "lure him back in
    2008", "turned him back at Calais" (a preposition after "turn"); not "turned her back on",
    "turned her back.", "wanted his back covered".
    """
    after = g._next(text, token.end)
    if previous in _TURN:
        return after.low in wc.PREPOSITIONS and after.low not in _TURN_ONE_S_BACK
    return g._predicate_ends(after)


def _past_before_preposition(text: str, token: g._Token) -> bool:
    """A verb's past in "-ed" and a preposition after it: the object's verb ("another part of her died with it")."""
    return token.low.endswith("ed") and _past_of_verb(token.low) and g._next(text, token.end).low in _PREPOSITIONS_NOT_OF


def _adverb_of_place(text: str, token: g._Token) -> bool:
    """An adverb of place or direction after "her" that heads no noun phrase: "open to him
    whereby", "stuck to her thereafter", "ordered him ashore", "fired him midway through",
    "trapped him underground for four days", "sent her north to" (not "her north wing", "her
    halfway house").
    """
    if token.low in _INLAND and token.word[:1].islower() and not token.compound:
        after = g._next(text, token.end)
        return not _lower_case_open(after) or after.low in ("every", "each")
    return token.low in _PLACE_ADVERBS or token.low in _ADRIFT or token.low in _MIDWAY and (
        g._next(text, token.end).low in wc.PREPOSITIONS)


# prepositions that also begin a clause: a name and a past after "before her" are a clause of
# "before", its subject the possessive's noun phrase ("before his Houston Astros played")
_CLAUSE_PREPOSITIONS = wc._words("before after since until till as like than once")


def _name_and_verb_follow(text: str, start: int, token: g._Token) -> bool:
    """A preposition before "her" and, after it, up to three capitalised words (a name, no title)
    and a past: the name is the next clause's subject ("for him Hunt created").
    """
    previous, adjacent = g._previous(text, start)
    if not adjacent or previous not in wc.PREPOSITIONS or previous in _CLAUSE_PREPOSITIONS or token.low in _TITLES or (
            token.low in wc.RELATIONAL_NOUNS):
        return False  # not "just before his Houston Astros played": a clause may follow "before" itself
    after = g._next(text, token.end)
    for _ in range(2):
        if after.word is None or not (after.word[:1].isupper() and after.word[1:2].islower()):
            break
        after = g._next(text, after.end)
    # a past, not "was": "in his Crawford Charters were", "in her Diary was"
    return after.low is not None and after.word[:1].islower() and (after.low in _FINITE_PASTS or after.low.endswith("ed") and (
        _past_of_verb(after.low)) and not _lower_case_open(g._next(text, after.end)))


def _verb_before_object(text: str, token: g._Token) -> bool:
    """A verb's "-s" form and an article or possessive after it: the verb of the object's clause
    ("the search for her takes the soldiers across", "imposes upon her strengthens the moral").
    """
    low = token.low
    stem = low[:-2] if low.endswith(("shes", "ches", "xes", "sses", "zes")) else low[:-1]
    if not low.endswith("s") or low.endswith("ss") or stem not in mostly_verbs() or stem.endswith(("ght", "ed")):
        return False  # not "in his thoughts the conqueror" ("thought" is a past)
    return g._next(text, token.end).low in _ARTICLES_AND_POSSESSIVES


_ARTICLES_AND_POSSESSIVES = wc.POSSESSIVES | wc._words("a an the these those")  # not "that": "one of her dresses that I"


def _is_plain(word: str) -> bool:
    """A word in no class of the grammar nor WordNet's verbs and without a verb's ending: a noun,
    adjective or adverb, that governs no object ("the team her project" in a list of words).
    """
    return word.isalpha() and word_classes(word) == ("open",) and not word.endswith(("s", "en"))


def _quoted_before_noun(text: str, start: int, end: int) -> bool:
    """A pronoun in quotation marks of its own before an open word: a possessive in scare quotes
    ('obedience to "his" state', 'pressure by "his" Whitehall advisers'), never an object or a
    standalone possessive.
    """
    if text[start - 1:start] not in _QUOTES or text[end:end + 1] not in _QUOTES:
        return False
    token = g._next(text, end + 1)
    return token.word is not None and text[end + 1:end + 2] == " " and g._is_open(token) and (
        token.low not in _UNCERTAIN_CLOSED) and token.low not in wc.CLOSED


_QUOTES = frozenset("\"'“”‘’")
_HALF_NEAR = wc._words("half near nearer")
_NEXT_ADVERBIAL = wc.TIME_NOUNS | wc._words("door time")  # "saw him next week", "lived next door"

# Prepositions that are a noun or an adjective after a possessive determiner ("his like", "her
# inside pocket"), and what follows the noun "like" but never the preposition's object: the
# clause's end, an adverb of time or an auxiliary ("we shall not see his like again", "her like
# will never be seen"; not "treat her like dirt", "a house of his like mine").
_NOMINAL_PREPOSITIONS = wc._words("like inside outside")
_COUNTERPARTS = wc._words("number numbers")  # "his opposite number": a counterpart, no place
_AFTER_NOUN_LIKE = wc.AUXILIARIES | wc._words("again before never ever since")


def _preposition_heads_noun(text: str, start: int, token: g._Token, which: str) -> bool:
    """Whether "like"/"inside"/"outside" after the pronoun heads its noun phrase: "like" before
    :data:`_AFTER_NOUN_LIKE` or the clause's end; "inside"/"outside" before a lower-case open word
    (an adjective before its noun: "his inside pocket", "his outside interests"); after "her", only
    before two or after a preposition ("her inside jacket pocket", "in her inside pocket"; not
    "locked her inside jail for", "met her outside school.", "took her outside alone").
    """
    after = g._next(text, token.end)
    if token.low == "like":
        return after.word is None and after.quote is None or after.low in _AFTER_NOUN_LIKE
    if after.word is None or not after.word[:1].islower() or not g._is_open(after) or after.compound:
        return False
    if which == "his" or g._is_open(g._next(text, after.end)):
        return True
    previous, adjacent = g._previous(text, start)
    return adjacent and previous in wc.PREPOSITIONS


_CLOSED_AND_NOUN = wc._words("mine might all down off away through so as yet")
_SO_AS_MODIFIERS = {"so": "called", "as": "yet"}  # "his so called friends", "his as yet unpublished poems"
_AWAY_NOUNS = wc._words("debut goal goals game games match matches form win wins record fixture fixtures leg kit strip shirt")
# the nouns that "off" and "through" modify after a determiner ("his off day", "his through ball")
_MODIFIED_BY_PARTICLE = {"off": wc._words("day season night"), "through": wc._words("ball balls pass passes")}
_MODIFYING_CLOSED = frozenset(_MODIFIED_BY_PARTICLE) | frozenset(_SO_AS_MODIFIERS) | {"yet"}
_ALL_AFTER_STANDALONE = wc._words("along alone the together")  # "the decision was his all along"
_FULL = wc._words("all full")  # "with all his might", "in the full of his might"
_DOWN_NOUNS = wc._words("time payment payments side")  # "his down time", "her down payment"
_SPEND = wc._with_forms(wc._words("spend enjoy")) | wc._words("spent")
_STAKE_ALL = wc._with_forms(wc._words("give risk lose stake sacrifice bet")) | wc._words("gave given lost")


def _closed_word_modifies_noun(text: str, token: g._Token, after: g._Token) -> bool:
    """A closed word that modifies the noun phrase of a determiner "his"/"her", read the same after
    both: "off" and "through" before the nouns they modify ("his off day", "her through ball"), "so
    called" before a noun and "as yet" before an adjective and a noun ("his so called friends", "her as
    yet unpublished poems"; not "saw him as yet unready for office"), "yet" before an open adjective and
    a noun ("his yet unborn child").
    """
    if token.low in _MODIFIED_BY_PARTICLE:
        return after.low in _MODIFIED_BY_PARTICLE[token.low]
    if token.low in _SO_AS_MODIFIERS:
        return after.low == _SO_AS_MODIFIERS[token.low] and _noun_follows(text, after) and (
            token.low == "so" or _noun_follows(text, g._next(text, after.end)))
    return _yet_before_adjective(text, after)


def _yet_before_adjective(text: str, after: g._Token) -> bool:
    """An open adjective and a noun after "yet": the determiner's noun phrase ("his yet unborn
    child"; not "gave him yet another chance", "made him yet more famous abroad", "sent her yet One
    perfect limousine").
    """
    return after.word is not None and after.word[:1].islower() and after.low not in wc.CLOSED and after.low not in wc.MODIFIERS and (
        after.low != "one") and _adjective_word(after.low) and _noun_follows(text, after)


def _closed_word_stands_after_his(text: str, start: int, token: g._Token) -> bool | None:
    """Closed words that are also nouns or modifiers after "his": "mine", "all", "down", "away" and,
    after "all", "might" head the noun phrase ("says his mine is", "gave his all in the final", "spent
    his down time fishing", "made his away debut", "with all his might.") unless they follow a
    standalone "his" ("the decision was his all along", "the house is his down to the last brick"; "a
    friend of his might help" is decided as before), as do "off" and "through" before the nouns they
    modify ("his off day", "his through ball"), "so called" and "as yet" before a word ("his so called
    friends", "his as yet unpublished poems") and "yet" before an adjective and a noun ("his yet unborn
    child"). ``None`` where the closed word's own rule decides.
    """
    after = g._next(text, token.end)
    if token.low == "might":
        return False if g._previous(text, start)[0] in _FULL else None
    if token.low == "all":
        return after.low in _ALL_AFTER_STANDALONE
    if token.low in ("down", "away"):
        return not (g._is_open(after) and after.word[:1].islower())  # "his away debut"; not "the house is his down to"
    if token.low in _MODIFYING_CLOSED:
        return False if _closed_word_modifies_noun(text, token, after) else None  # "his off day", "his yet unborn child"
    return False


def his_rule_is_certain(text: str, start: int, end: int) -> bool | None:
    """The grammar's decision for "his" where it is certain, else ``None``."""
    if end == len(text) or text[end] in g._CLAUSE_PUNCTUATION:
        return True
    if _quoted_before_noun(text, start, end):
        return False
    token = g._next(text, end)
    if token.word is None:
        return token.quote is None and token.punct not in _HANDLE_SIGNS and token.punct not in _CURRENCY_SIGNS and not (
            _aside_then_noun(text, token))  # not "his $3 million house", "his @POTUS account", "his (unfinished) memoirs"
    if token.compound:
        return False
    low = token.low
    if low in _PLACE_ADVERBS or low in _WHOLLY and not _lower_case_open(g._next(text, token.end)):
        return True  # "the house was his thereafter", "the newspaper was his outright"; not "his outright rejection"
    if low == "opposite":
        return False  # "Commodus is his opposite in every way"
    if low == "i" and token.word == "I" or ("'" in low or "’" in low) and _SUBJECT_CONTRACTION.fullmatch(low):
        return True  # "the only film of his you'd seen", "a friend of his I met"
    if low in _NOMINAL_PREPOSITIONS and _preposition_heads_noun(text, start, token, "his"):
        return False  # "we'll not see his like again", "his inside jacket pocket", "his outside interests"
    if low in _CLOSED_AND_NOUN and token.word[:1].islower() and (
            decided := _closed_word_stands_after_his(text, start, token)) is not None:
        return decided  # "opened his mine in 1880", "with all his might"
    if low in _CERTAIN_CLOSED and low not in _UNCERTAIN_CLOSED:
        # what his_stands_alone answers for these: "a friend of his from school"
        return True if token.word[:1].islower() else g.his_stands_alone(text, start, end)
    if low in ("and", "or") and g._next(text, token.end).low in _SUBJECTS:
        return True  # "that smile of his and I feel": a clause after the standalone possessive
    if low in ("and", "or") and _standalone_pair(text, token):
        return True  # "the fault was his and his alone", "towels marked his and hers."; not "his and her children"
    if low == "once" and g._next(text, token.end).low in ("more", "again"):
        return True  # "the title was his once more"; not "his once close friend"
    if _standalone_before_past(text, start, token):
        return True  # "other attributes of his included the kithara", "a friend of hers suggests she"
    if (low.isdigit() or low in _NUMBERS) and _span_after_standalone(text, start, token):
        return True  # "the gold was his four years later"; not "was his two years' salary"
    if low not in wc.CLOSED and low not in wc.MODIFIERS and low not in _UNCERTAIN_CLOSED and low not in wc._ADVERBS and (
            not wc._is_ly_adverb(low)):
        return False  # a noun, adjective or verb after "his" heads its noun phrase: "his book", "his new job"
    if low in _HALF_NEAR and (g._is_open(after := g._next(text, token.end)) or low == "half" and after.low == "of"):
        return False  # "his half dozen of halberdiers", "his nearer thigh", "his half of a refrigerator"
    if low in _NOUN_MODALS:
        if _modal_is_noun(text, start, token):
            return False  # "the terms of his will were read", "his can of beans"
        if _base_verb(g._next(text, token.end).low):
            return True  # "a friend of his will come": a modal and its verb after a standalone possessive
    if _modifiers_before_noun(text, token):
        return False  # "his sometimes too active eyes", "beneath his hard, black body armor", "his soon to be rival"
    return None


def _span_after_standalone(text: str, start: int, number: g._Token) -> bool:
    """A copula before "his" and, after it, a number, a span of time and what ends the span ("the
    title was his two years later"): the standalone possessive and an adverbial of time.
    """
    span = g._next(text, number.end)
    return g._previous(text, start)[0] in g._COPULAS and (span.low or "").endswith("s") and (
        span.low.rstrip("s") in _SPANS) and _span_ends(text, g._next(text, span.end))


_STANDALONE_FORMS = wc._words("his hers mine yours ours theirs")


def _standalone_pair(text: str, conjunction: g._Token) -> bool:
    """A possessive after "and"/"or" and then the clause's end or "alone": two standalone
    possessives ("his and his alone", "his and hers."; not "his and her children").
    """
    second = g._next(text, conjunction.end)
    if second.low not in _STANDALONE_FORMS:
        return False  # not "(preceded by his or your)": "your" stands alone never
    after = g._next(text, second.end)
    return after.word is None and after.quote is None or after.low == "alone"


def _modifiers_before_noun(text: str, token: g._Token) -> bool:
    """Adverbs before an adjective and its noun ("his sometimes too active eyes"), a word and a
    comma before two more ("his hard, black body armor"), "soon to be" ("his soon to be
    arch-enemy"): a determiner's noun phrase; a standalone possessive is followed by the clause's
    end or a function word ("the choice was his alone and").
    """
    after = g._next(text, token.end)
    if token.low == "soon":
        return after.low == "to" and g._next(text, after.end).low == "be"
    if after.punct == ",":
        first = g._next(text, after.end)
        return _lower_case_open(first) and _lower_case_open(g._next(text, first.end))
    if not _adverb_like(token.low):
        return False
    for _ in range(2):
        if after.low is None or not _adverb_like(after.low):
            break
        after = g._next(text, after.end)
    if after.low in ("and", "or"):
        after = g._next(text, after.end)  # "his earlier and delightful hamming"; not "his alone and I"
    return _lower_case_open(after) and _lower_case_open(g._next(text, after.end))


def _modifiers_joined_before_noun(text: str, token: g._Token, previous: str | None) -> bool:
    """An adjective at ``token``, "and", a second modifier and a noun: a determiner's noun phrase.
    After a preposition any lower-case word may be the second ("for his long and active support");
    elsewhere an adjective or a comparative ("dropped his earlier and livelier style"), and not after
    a double-object verb or before a verb ("caused him immense and lasting sorrow", "she left him
    earlier and went home").
    """
    second = last = g._next(text, token.end + 4)
    while last.compound:
        last = g._next(text, last.end)  # "approachable and good-humoured.": the whole compound is the second
    if previous in wc.PREPOSITIONS and _adjective(token.low):
        return _lower_case_open(second) and _lower_case_open(g._next(text, last.end))
    return _adjective_word(token.low) and previous not in wc.DITRANSITIVES and (_adjective_word(second.low) or (
        second.low is not None and _comparative(second.low))) and _lower_case_open(g._next(text, last.end))


def _adjective_word(low: str | None) -> bool:
    """An adjective of WordNet's lists that is no -ly adverb, number or ordinal ("hard", "black"; not
    "entirely", "twelve", "first").
    """
    return low is not None and low in _adjectives() and not wc._is_ly_adverb(low) and (
        low not in wc.NUMBER_WORDS) and low not in _ORDINALS


def _adverb_like(low: str) -> bool:
    return low in wc._ADVERBS or low in wc.MODIFIERS or low in wc.PARTICLES or wc._is_ly_adverb(low)


_SUBJECTS = wc._words("i you he she we they")
_PERSONAL_OBJECTS = wc._words("me him us them")
_SUBJECTS_NOT_YOU = _SUBJECTS - {"you"}  # "get out of his lives you rascal": "you" may be a vocative


def _standalone_before_past(text: str, start: int, token: g._Token) -> bool:
    """"of his" before a past tense and the start of its object, or a present tense and a personal
    pronoun: the standalone possessive is the subject ("other attributes of his included the
    kithara", "a friend of his told me", "a friend of hers suggests she"), no determiner of a
    participle ("of his included items" is no English) or of a plural ("of his works that").
    """
    if not text.endswith(("of ", " as "), 0, start) or not token.word[0].islower():
        return False  # "a friend of his told me", "a memory as prodigious as his allowed him"
    low = token.low
    past = low in _FINITE_PASTS or low.endswith("ed") and _past_of_verb(low)
    present = not past and low.endswith("s") and not low.endswith("ss") and _verb_stem_known(low)
    if not (past or present):
        return False
    after = g._next(text, token.end).low
    return after in _VERBS_OBJECT_STARTS if past else after in _SUBJECTS_NOT_YOU or after in _PERSONAL_OBJECTS


def _modal_is_noun(text: str, start: int, token: g._Token) -> bool:
    """Whether "will"/"can"/"may"/"must" after a possessive is a noun: a finite auxiliary, a
    preposition or punctuation follows it, or an auxiliary stands before the possessive (a
    question's subject: "how could his will be ignored?").
    """
    after = g._next(text, token.end)
    if after.word is None:
        return after.quote is None
    previous, adjacent = g._previous(text, start)
    return after.low in wc.PREPOSITIONS or after.low in wc.AUXILIARIES and after.low not in ("be", "have") or (
        adjacent and previous in wc.AUXILIARIES)
