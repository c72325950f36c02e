"""The closed word classes, the small open-class lexicons and the suffix rules of the her/his
grammar of :mod:`debias._grammar` (see its docstring for what the rules do with them).

Closed classes written for probekit (prepositions, conjunctions, determiners, pronouns,
auxiliaries, particles, adverbs); small lexicons (ditransitive, causative, perception and naming
verbs; predicative adjectives; mass nouns that follow a double object); suffix rules (-ly adverbs,
-ing/-ed participles, -ous/-ful/-less adjectives). Verb lexicons list base and irregular forms;
the regular -s/-ed/-ing forms are derived (:func:`_with_forms`).
"""

from __future__ import annotations


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def _with_forms(words: frozenset[str]) -> frozenset[str]:
    """``words`` with the regular -s, -ed and -ing forms of each ("pay" -> "pays", "payed",
    "paying"; "track" -> "tracked"), so that a lexicon of verbs lists base and irregular forms only.
    """
    out = set(words)
    for w in words:
        stem = w[:-1] if w.endswith("e") else w
        out.update((w + "es" if w.endswith(("s", "sh", "ch", "x", "o")) else w + "s", stem + "ed", stem + "ing"))
        if len(w) > 2 and w[-1] not in "aeiouwxy" and w[-2] in "aeiou" and w[-3] not in "aeiou":
            out.update((w + w[-1] + "ed", w + w[-1] + "ing"))  # hit -> hitting, stop -> stopped
        if w.endswith("y") and len(w) > 2 and w[-2] not in "aeiou":
            out.update((w[:-1] + "ies", w[:-1] + "ied"))
    return frozenset(out)


def _with_s_forms(words: frozenset[str]) -> frozenset[str]:
    """``words`` with their -s forms ("consider" -> "considers", "marry" -> "marries"), not the
    participles ("her married name", "her knowing smile").
    """
    out = set(words)
    for w in words:
        if w.endswith("y") and w[-2:-1] not in ("a", "e", "o", "u"):
            out.add(w[:-1] + "ies")
        else:
            out.add(w + "es" if w.endswith(("s", "sh", "ch", "x", "o")) else w + "s")
    return frozenset(out)


PREPOSITIONS = _words(
    "aboard about above across after against along alongside amid amidst among amongst around as at atop "
    "before behind below beneath beside besides between beyond by concerning despite down during except "
    "for from in inside into like near nearer of off on onto opposite out outside over per since than "
    "through throughout till to toward towards under underneath unlike until unto up upon via with within "
    "without versus"
)
CONJUNCTIONS = _words(
    "and or but nor so yet because although though while whilst whereas unless whether if that lest "
    "when where why how what which who whom whose whoever whatever wherever whenever whichever"
)
DETERMINERS = _words("a an the this these those some any no each another either neither such all both half")
PRONOUNS = _words(
    "i you he she it we they me him us them myself yourself himself herself itself ourselves yourselves "
    "themselves someone somebody something anyone anybody anything everyone everybody everything nobody "
    "nothing none mine yours hers ours theirs thee thou ye"
)
POSSESSIVES = _words("my your his her its our their thy")
# Auxiliaries and modals; "will" (her will), "may", "can", "must" are nouns too and handled apart.
AUXILIARIES = _words(
    "is are was were am be been has have had do does did would could should shall might isn aren wasn "
    "weren hasn haven hadn doesn didn wouldn couldn shouldn won cannot ought"
)
PARTICLES = _words(
    "to not never also too alone again anyway anymore instead else either neither together apart aside "
    "away forth ahead abroad afterwards afterward here there today tonight tomorrow yesterday already "
    "always often sometimes seldom rarely soon just even ever almost quite rather enough thus hence "
    "therefore however indeed perhaps maybe meanwhile nonetheless nevertheless otherwise somewhere "
    "anywhere everywhere nowhere elsewhere downstairs upstairs overseas indoors outdoors immediately "
    "directly forward backward backwards onward onwards somewhat outright overboard"
)
# Words that are adverbs after an object and premodifiers in a noun phrase ("saw her later" /
# "her later years"): the word after them decides.
MODIFIERS = _words(
    "later earlier then now once only first last next very more most less least much early late long "
    "still well twice further former latter straight hard"
)
# Function words after which no noun of the phrase begun by "her"/"his" can follow.
CLOSED = PREPOSITIONS | CONJUNCTIONS | DETERMINERS | PRONOUNS | POSSESSIVES | AUXILIARIES | PARTICLES | _words(
    "will may can must being"
)
# -ly words that are nouns or adjectives, not adverbs.
_LY_NOT_ADVERBS = _words(
    "family only early lovely ugly holy lonely friendly elderly likely unlikely daily weekly monthly yearly "
    "nightly hourly silly lively costly deadly curly surly comely homely manly womanly kindly worldly "
    "orderly belly ally bully jelly lily rally tally folly reply supply assembly anomaly italy july "
    "melancholy monopoly fly butterfly dragonfly firefly ghostly heavenly earthly beastly scholarly "
    "leisurely motherly fatherly sisterly brotherly courtly stately timely untimely bodily"
)
_ADVERBS = _words(
    "much well often soon little long hard fast quickly slowly badly dearly deeply greatly highly"
)
VERBS_OF_SAYING = _words(
    "tell tells told telling ask asks asked asking say says said answer answered reply replied whisper "
    "whispered shout shouted call called calling write wrote written writing warn warned warning remind "
    "reminded assure assured promise promised"
)
# Verbs that take two objects ("gave her a book", "brought him recognition").
DITRANSITIVES = _words(
    "give gives gave given giving bring brings brought bringing show shows showed shown showing tell tells "
    "told telling offer offers offered offering send sends sent sending teach teaches taught teaching buy "
    "buys bought buying owe owes owed owing lend lends lent lending hand hands handed handing pay pays paid "
    "paying award awards awarded awarding grant grants granted granting deny denies denied denying promise "
    "promises promised promising wish wishes wished wishing cost costs costing earn earns earned earning "
    "win wins won winning cause causes caused causing leave leaves left leaving allow allows allowed "
    "allowing afford affords afforded affording guarantee guaranteed assign assigned save saved saves "
    "spare spared sell sold selling ask asks asked asking feed fed serve served issue issued bestow "
    "bestowed lend gain gained gains"
)
# Verbs after which the object takes a bare infinitive ("made her lose", "let her go"): the
# causatives take any verb, perception verbs only one that is rarely a noun ("saw her face").
STRONG_CAUSATIVES = _words(
    "make makes made making let lets letting help helps helped helping have has had having bid bade"
)
CAUSATIVES = STRONG_CAUSATIVES | _words(
    "see sees saw seen seeing watch watches watched watching hear hears heard hearing feel feels felt "
    "feeling notice notices noticed noticing"
)
# Nouns after "made her", "had her", "let her" ("made her debut", "had her say", "let her hair down").
CAUSATIVE_NOUNS = _words(
    "escape debut way name home mark fortune living choice decision career bed peace exit entrance move "
    "point case bow appearance reputation money life world rounds say baby hair guard own will first last "
    "best views feelings presence acquaintance fortune start return comeback farewell will wish"
)
# Verbs that are also nouns; after a causative they are verbs ("made him look", "let her stay").
NOUN_VERBS = _words(
    "look hate pick frown laugh cry smile dance work stay feel wonder play walk run rest wait sleep dream "
    "jump whip clean shout scream yell holler cuss exclaim "
    "change move sit stand talk speak sign promise swear answer call visit travel drink study sing pay "
    "borrow lend fear doubt love kiss hug help leave fall rise jump climb drop turn return shake "
    "stop start finish quit resign retire regret suffer feel vote bow kneel"
)
# Verbs after which the object takes a participle or an adjective ("found her carrying a suitcase",
# "had her buried", "kept her waiting", "left her paralyzed").
OBJECT_PREDICATE_VERBS = CAUSATIVES | _words(
    "find finds found finding keep keeps kept keeping leave leaves left leaving get gets got gotten "
    "getting catch catches caught catching imagine imagined picture pictured want wants wanted need "
    "needed needs like liked prefer preferred spot spotted discover discovered observe observed "
    "set sets setting send sends sent sending start started render rendered declare declared "
    "pronounce pronounced consider considered considers considering think thought believe believed "
    "drive drove driven hold holds held prove proves proved proven deem deemed fix"
)
NAMING_VERBS = _words(
    "name names named naming call calls called calling dub dubs dubbed nickname nicknamed elect elects "
    "elected appoint appoints appointed crown crowned proclaim proclaimed declare declared make makes "
    "made making vote voted choose chose chosen designate designated title titled style styled consider "
    "considered christen christened baptize baptized baptise baptised label labelled labeled"
)
ROLES = _words(
    "president captain chairman chairwoman chair leader head king queen chief director governor minister "
    "secretary member ambassador bishop coach manager mayor senator editor champion player knight dame "
    "baron baroness duke duchess earl countess saint patron prince princess emperor empress regent consul "
    "general admiral commander chancellor treasurer vice deputy honorary sole joint heir"
)
# Nouns without an article after a double object ("brought him recognition").
MASS_NOUNS = _words(
    "recognition acclaim praise fame notoriety permission advice access credit support funding money cash "
    "assistance custody sanctuary asylum shelter refuge protection immunity citizenship control power "
    "authority information news instructions directions lessons trouble pleasure comfort hope strength "
    "courage confidence freedom peace joy happiness satisfaction success employment work time attention "
    "notice respect admiration sympathy encouragement inspiration comfort approval praise criticism "
    "nominations nomination awards honours honors comparisons accolades plaudits nicknames tickets "
    "gifts presents flowers food water medicine advice leave passage membership tenure priority "
    "status rights command responsibility affection security distress powers promotions followers leisure "
    "pain grief anxiety concern harm damage difficulty difficulties problems headaches popularity "
    "eclat prominence prestige acclaim renown honour honor glory credibility exposure publicity fans "
    "votes wins victories titles medals support love blood help inconvenience embarrassment luck success "
    "happiness godspeed"
)
# Adjectives that follow an object as its predicate ("made her famous", "found her dead").
PREDICATIVE_ADJECTIVES = _words(
    "happy unhappy sad angry famous rich wealthy poor sick ill pregnant alive dead free ready unable able "
    "unconscious conscious sure aware afraid ashamed guilty innocent responsible liable eligible upset proud "
    "jealous nervous curious anxious furious crazy mad insane safe comfortable uncomfortable uneasy wrong "
    "right beautiful ugly attractive young old younger older unworthy worthy fit unfit blind deaf lame "
    "homeless penniless speechless breathless helpless unhurt unharmed available unavailable capable "
    "incapable fond keen certain uncertain busy tired weak strong warm cold hungry thirsty naked wet dry "
    "clean dirty quiet silent calm awake asleep lonely popular unpopular successful unsuccessful welcome "
    "unwelcome cool hot bored interested excited grateful thankful glad pleased miserable ruined "
    "immortal invincible unable unfit nervous uneasy restless sleepless good bad false rough dear stupid "
    "clever smart boring awkward sorry drunk sober mute wild impotent insane better worse true"
)
# Predicative adjectives that are also nouns after a possessive ("nursed his cold", "her right").
_ADJECTIVE_NOUNS = _words("cold good bad right wrong dear ill young old older younger welcome true")
# Adjectives of amount and degree before a second object ("won him many followers", "caused him
# great distress"), rather than the adjectives of a possessive's noun ("her final performance").
DOUBLE_OBJECT_ADJECTIVES = _words(
    "great greater many much more wide widespread close quick considerable significant immediate instant enormous "
    "huge tremendous international national critical public full free equal additional extra little "
    "good bad serious severe lasting permanent early instant"
)
_ADJECTIVE_SUFFIXES = ("ous", "ful", "less")
NUMBER_WORDS = _words("two three four five six seven eight nine ten eleven twelve several")
# Nouns of kinship and company: "told her parents" is a possessive, not a double object.
RELATIONAL_NOUNS = _words(
    "parents children child son sons daughter daughters mother father brother brothers sister sisters "
    "husband wife family friends friend"
)
TIME_NOUNS = _words(
    "week month year night time summer winter autumn fall season weekend day morning evening afternoon "
    "monday tuesday wednesday thursday friday saturday sunday"
)
# "her back": an object after these verbs ("brought her back"), a body part elsewhere ("injured
# her back", "on her back", "behind her back", "turned her back").
_BACK_BODY_VERBS = _words(
    "injure injured injures injuring hurt hurts hurting break broke broken breaks breaking arch arched "
    "arches strain strained scratch scratched rub rubbed straighten straightened bend bent hunch hunched "
    "turn turned turns turning wrench wrenched twist twisted stretch stretched rest rested show showed "
    "cover covered burn burned massage massaged"
)
_BACK_NOUN_FOLLOWERS = _words(
    "pain pains injury injuries problem problems surgery door doors yard garden seat seats room teeth "
    "porch legs leg muscles muscle trouble wall end side"
)
_BACK_OBJECT_VERBS = _with_forms(_words(
    "bring brings brought bringing take takes took taken taking call calls called calling get gets got "
    "want wants wanted send sends sent sending win wins won welcome welcomed pull pulled hold held kiss "
    "kissed pay paid hit write wrote move moved lure lured invite invited drive drove carry carried follow "
    "followed wave waved put set fight fought talk talked ask asked give gave keep kept hold push pushed "
    "throw threw force forced hit beat track trace chase drag tow lure steer row paddle fly ship"
))
_HOME_VERBS = _with_forms(_words(
    "want wants wanted take took taken taking bring brought bringing drive drove driven driving walk walked walking send "
    "sent sending see saw seen seeing escort escorted escorting carry carried carrying follow followed "
    "welcome welcomed fly flew flown ship shipped call called get got"
))
# Words after "back" that tell where to, so that "her back" is an object ("tracked her back
# toward the head of the stream", "pushed her back into the room"), unless a verb of the body
# precedes ("injured her back in a fall").
_BACK_DIRECTIONS = _words("to toward towards into onto from home inside indoors across through")
# Base forms of verbs that are rarely nouns: an object before them ("made her lose").
VERBS = _words(
    "go come become lose leave die seem know think say tell see hear feel believe understand remember "
    "forget explain agree marry kill eat sleep sit stand give take make bring get let keep wait decide "
    "realize realise try want learn find leave move speak sing laugh cry stay smile weep fall run write "
    "read win pay buy sell fight leave resign quit retire enter join attend apply accept refuse reject "
    "admit confess promise swear obey follow reveal abandon sign divorce testify appear disappear "
    "reconsider recover relocate return reach pursue continue complete achieve avoid escape suffer "
    "lie tremble shiver faint blush scream shout whisper kiss hug hold wear carry throw choose put "
    "pass perform act live grow prepare withdraw receive overcome survive succeed cuss holler exclaim"
)
# Verbs that are never nouns: an object pronoun before them, in the base or the -s form ("all who
# know her consider her ...", "in her eludes me", "useful to her gets crowded out").
VERBS_ONLY = _with_s_forms(_words(
    "go come become seem know think believe understand remember forget explain agree marry eat get "
    "consider elude decide realize realise learn obey reconsider pursue achieve avoid tremble shiver "
    "faint blush overcome survive succeed prefer seem appear disappear happen depend belong deserve "
    "enjoy exist insist persist refuse pretend intend tend manage fail continue begin began begun "
    "relocate recover testify cuss holler exclaim"
))

# Words ending in -ing / -ed that are not participles.
_ING_NOT_PARTICIPLES = _words(
    "king ring thing spring string wing sling sing bring swing sting cling fling wedding weddings building "
    "buildings clothing feeling feelings meaning ceiling morning mornings evening evenings painting "
    "paintings writing writings drawing drawings earnings savings belongings beginning beginnings ending "
    "endings finding findings upbringing training funding housing hearing meeting meetings reading "
    "recording recordings setting teaching teachings wellbeing being offspring darling sibling siblings "
    "nothing something anything everything during bedding stocking stockings wedding lodging lodgings "
    "opening outing pudding stuffing viewing following standing"
)
_ED_NOT_PARTICIPLES = _words(
    "hundred kindred naked sacred wicked beloved crooked rugged ragged hatred bed red fed led wed shed "
    "sled need seed deed feed weed greed creed speed breed steed bleed reed heed bred sped fled"
)
_IRREGULAR_PARTICIPLES = _words(
    "taken given done seen known born sent kept held brought thrown shot hit put set made caught found "
    "left beaten bitten broken chosen driven eaten fallen forgotten forgiven frozen hidden ridden risen "
    "shaken spoken stolen sworn torn worn written sold told paid laid bound ground hung struck stuck "
    "spun won lost shut cut"
)


def _is_ly_adverb(low: str) -> bool:
    return low.endswith("ly") and len(low) > 4 and low not in _LY_NOT_ADVERBS


def _is_participle(low: str) -> bool:
    if low in _IRREGULAR_PARTICIPLES:
        return True
    if low.endswith("ing"):
        return len(low) > 5 and low not in _ING_NOT_PARTICIPLES
    if low.endswith("ed"):
        return len(low) > 4 and low not in _ED_NOT_PARTICIPLES
    return False


def _is_adjective(low: str) -> bool:
    if low in PREDICATIVE_ADJECTIVES or (len(low) > 5 and low.endswith(_ADJECTIVE_SUFFIXES)):
        return True
    if len(low) >= 7 and low.endswith("lent"):
        return True  # "made him malevolent", "violent", "insolent"
    return len(low) >= 8 and (low.endswith(("able", "ible")) or low.startswith(("un", "in", "im")) and low.endswith("ed"))
