"""Synthetic biographies with a planted gender shortcut: the embedded, offline default task.

Fourteen Bias-in-Bios professions (De-Arteaga et al. 2019), seven female-dominated (dietitian,
nurse, paralegal, yoga teacher, model, interior designer, psychologist) and seven male-dominated
(rapper, DJ, surgeon, software engineer, composer, architect, pastor), after the paper's subset
(Tokpo et al. 2023 §4). The shares these choices rest on are recalled from the literature, not
computed here (comedian is about as male-dominated as architect and pastor); for real data
:func:`probekit.finetune.load_bios` computes the subset from the data. Each biography is a short
text of five to seven sentences (about 40-80 words). Gender is carried by the first name, the title
(Ms./Mrs. vs Mr.), the pronouns (she/her/hers/herself vs he/him/his/himself) and, in some
biographies, "mother"/"father". The profession is carried by cue phrases whose strength is
controlled, and in the training split the two are correlated: a classifier that cannot read the
profession from the cues can fall back on gender. Scrubbing or swapping the gender words removes
that shortcut, which is the known answer the fine-tuning study checks.

How a sentence gets its profession information
-----------------------------------------------
Five sentences (education, workplace, duties, achievement, hobby) each draw their phrase from
one of three pools:

- with probability ``cue_strength`` a phrase specific to the profession ("a degree in nutrition
  science", "spins house and techno sets late into the night");
- otherwise, with probability ``domain_cue_rate``, a phrase shared by the profession's domain
  (health: nurse, dietitian, psychologist, yoga teacher, surgeon; arts: model, DJ, rapper,
  composer; design and technology: interior designer, architect, software engineer; law and
  community: paralegal, pastor). Within a domain gender is informative, which is what makes the
  shortcut attractive;
- otherwise a generic phrase that says nothing about the profession.

A biography names its profession title ("... is a nurse based in Denver.") with probability
``title_rate``. With ``cue_strength = domain_cue_rate = title_rate = 0`` the text holds no
profession information except through gender, so a classifier can only learn the shortcut; with
``cue_strength = 1`` every cue sentence names the profession and gender is useless.
"""

from __future__ import annotations

import functools
import logging
import numbers
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

import wordlists
from probekit.errors import InvalidParameterError
from probekit.text import indefinite_article
from probekit.utils import check_positive_int, resolve_seed, spawn_generators

if TYPE_CHECKING:  # datasets is imported lazily: it is slow to import
    import datasets

__all__ = [
    "SYNTHETIC_PROFESSIONS",
    "SYNTHETIC_FEMALE_DOMINATED",
    "SYNTHETIC_MALE_DOMINATED",
    "make_synthetic_bios",
]

logger = logging.getLogger(__name__)

GENDERS = ("female", "male")

# --------------------------------------------------------------------------------------------
# Professions and their cue phrases
# --------------------------------------------------------------------------------------------

# Every phrase is free of gender words (checked by the tests against wordlists' attribute pairs
# and names) so that gender reaches the text only through the placeholders below.
CUE_SLOTS = ("education", "workplace", "duties", "achievement", "hobby")


@dataclass(frozen=True)
class _Profession:
    name: str
    title: str  # as written in a sentence ("yoga teacher", "DJ")
    stereotype: str  # "female" or "male": the gender that dominates it in Bias-in-Bios
    domain: str
    cues: Mapping[str, tuple[str, ...]]  # slot -> phrases


def _p(name, title, stereotype, domain, education, workplace, duties, achievement, hobby) -> _Profession:
    cues = dict(zip(CUE_SLOTS, (education, workplace, duties, achievement, hobby)))
    return _Profession(name, title, stereotype, domain, {k: tuple(v) for k, v in cues.items()})


_PROFESSION_TABLE: tuple[_Profession, ...] = (
    _p(
        "architect", "architect", "male", "design",
        ["a degree in architecture", "a graduate degree in urban planning and building design",
         "a professional degree in architecture"],
        ["an architecture firm", "a city planning office", "a design-build firm specializing in sustainable buildings"],
        ["designs commercial buildings and public spaces", "drafts blueprints and oversees construction projects",
         "plans energy-efficient buildings from concept to construction"],
        ["has designed a landmark library downtown", "has won a competition for the design of a new museum",
         "has completed dozens of award-winning building projects"],
        ["sketching city skylines", "touring historic buildings", "visiting famous bridges and towers"],
    ),
    _p(
        "composer", "composer", "male", "arts",
        ["a degree in music composition", "a graduate degree from a music conservatory",
         "a diploma in orchestration and counterpoint"],
        ["a film scoring studio", "a symphony orchestra", "a music conservatory"],
        ["writes scores for films, games and orchestras", "composes chamber music and choral works",
         "arranges orchestral pieces for the concert stage"],
        ["has scored more than twenty feature films", "has had several works premiered by major orchestras",
         "has won an award for an original film score"],
        ["playing the piano", "attending classical concerts", "sketching melodies for string quartets"],
    ),
    _p(
        "dietitian", "dietitian", "female", "health",
        ["a degree in nutrition science", "a graduate degree in clinical nutrition", "a certificate in sports nutrition"],
        ["a hospital nutrition department", "a weight management clinic",
         "a community wellness center focused on healthy eating"],
        ["designs meal plans for people managing diabetes", "counsels clients on healthy eating habits",
         "analyzes diets and recommends nutritional changes"],
        ["has published guidelines on plant-based nutrition", "has helped hundreds of clients reach a healthy weight",
         "has developed a school lunch program built on fresh local produce"],
        ["experimenting with healthy recipes", "visiting farmers markets", "writing a blog about balanced meals"],
    ),
    _p(
        "dj", "DJ", "male", "arts",
        ["a diploma in audio engineering", "a certificate in electronic music production",
         "a certificate in live sound mixing"],
        ["a popular nightclub", "a local radio station", "an events company that books festival acts"],
        ["mixes electronic dance tracks at clubs and weddings", "spins house and techno sets late into the night",
         "curates playlists and beat-matches records for parties"],
        ["has played the main stage at several music festivals", "has held a weekly residency at a downtown club",
         "has released remixes on major electronic labels"],
        ["digging through crates of old records", "producing remixes", "collecting turntables and mixers"],
    ),
    _p(
        "interior_designer", "interior designer", "female", "design",
        ["a degree in interior design", "a certificate in color theory and furnishing", "a diploma in interior decoration"],
        ["a boutique design studio", "a home furnishings showroom", "a residential design firm"],
        ["selects furniture, fabrics and lighting for residential clients",
         "transforms living rooms and kitchens into inviting spaces",
         "plans color palettes and furnishings for homes and hotels"],
        ["has redesigned the interiors of several boutique hotels", "has been featured in a home decor magazine",
         "has won an award for a renovated loft interior"],
        ["browsing antique furniture markets", "decorating rooms with thrifted finds", "collecting textiles and wallpapers"],
    ),
    _p(
        "model", "model", "female", "arts",
        ["a degree in fashion merchandising", "a certificate in runway and editorial modeling", "a diploma in fashion styling"],
        ["an international modeling agency", "a fashion agency in the design district",
         "a talent agency representing runway talent"],
        ["walks the runway for major fashion labels", "poses for editorial photo shoots and advertising campaigns",
         "works with photographers and stylists on fashion campaigns"],
        ["has appeared on the covers of several fashion magazines",
         "has walked in shows during fashion weeks in Paris and Milan",
         "has fronted campaigns for well-known clothing brands"],
        ["following the latest runway trends", "collecting vintage designer clothing", "styling photo shoots for friends"],
    ),
    _p(
        "nurse", "nurse", "female", "health",
        ["a degree in nursing", "a certificate in critical care nursing", "a diploma in emergency nursing"],
        ["the cardiac ward of a regional hospital", "a busy pediatric intensive care unit", "an outpatient oncology clinic"],
        ["checks vital signs and administers medication to patients", "cares for patients recovering from surgery",
         "coordinates bedside care on night shifts"],
        ["has been recognized for compassionate bedside care",
         "has trained dozens of new staff on patient safety protocols",
         "has led a hospital initiative to reduce infection rates on the ward"],
        ["volunteering at community blood drives", "teaching first aid classes",
         "running charity walks for the local pediatric ward"],
    ),
    _p(
        "paralegal", "paralegal", "female", "law",
        ["a certificate in legal studies", "an associate degree in legal studies", "a certificate in litigation support"],
        ["a downtown law firm", "the litigation department of a corporate law office", "a public defender's office"],
        ["drafts legal documents and organizes case files for attorneys", "researches case law and prepares briefs",
         "manages discovery documents for complex lawsuits"],
        ["has supported attorneys through several high-profile trials",
         "has streamlined the firm's contract review process", "has earned a certification in electronic discovery"],
        ["reading courtroom dramas", "volunteering at a legal aid clinic", "following landmark court cases"],
    ),
    _p(
        "pastor", "pastor", "male", "law",
        ["a degree in divinity", "a degree in theology", "a graduate degree in biblical studies"],
        ["a community church", "a congregation in the suburbs", "a faith-based outreach ministry"],
        ["preaches sermons every Sunday and leads worship services",
         "provides spiritual guidance to the congregation", "officiates weddings and funerals for church members"],
        ["has served the same congregation for over a decade", "has founded a church food pantry",
         "has led mission trips abroad"],
        ["leading the church choir", "studying scripture", "organizing church picnics"],
    ),
    _p(
        "psychologist", "psychologist", "female", "health",
        ["a doctorate in clinical psychology", "a graduate degree in counseling psychology",
         "a certificate in cognitive behavioral therapy"],
        ["a private therapy practice", "a university counseling center", "a mental health clinic"],
        ["provides therapy to adults coping with anxiety and depression",
         "conducts psychological assessments for children and adults", "helps clients work through trauma and grief"],
        ["has published research on resilience and mental health",
         "has developed a therapy program for adolescents",
         "has presented at conferences on cognitive behavioral therapy"],
        ["reading about the science of the mind", "practicing mindfulness", "volunteering at a crisis hotline"],
    ),
    _p(
        "rapper", "rapper", "male", "arts",
        ["a certificate in audio production", "a certificate in the music business",
         "a diploma in music production and songwriting"],
        ["an independent hip-hop label", "a recording studio in the city", "a collective of hip-hop artists"],
        ["writes lyrics and records verses over original beats", "performs hip-hop shows in clubs and at festivals",
         "collaborates with producers on new mixtapes"],
        ["has released three mixtapes and a debut album", "has topped the streaming charts with a breakout single",
         "has toured nationally as an opening act for hip-hop headliners"],
        ["writing rhymes in a notebook", "freestyling with friends", "collecting classic hip-hop vinyl"],
    ),
    _p(
        "software_engineer", "software engineer", "male", "design",
        ["a degree in computer science", "a graduate degree in distributed systems",
         "a certificate in machine learning"],
        ["a cloud computing startup", "a large technology company", "a fintech company building payment platforms"],
        ["writes and reviews code for backend services", "designs scalable APIs and databases",
         "debugs production systems and ships new features"],
        ["has contributed to several popular open-source libraries",
         "has led the migration of a legacy system to the cloud",
         "has filed patents on data compression algorithms"],
        ["building side projects in Python and Rust", "competing in programming contests",
         "tinkering with home automation gadgets"],
    ),
    _p(
        "surgeon", "surgeon", "male", "health",
        ["a medical degree with a residency in general surgery", "a fellowship in orthopedic surgery",
         "a certificate in cardiothoracic surgery"],
        ["the surgical department of a university hospital", "a regional trauma center",
         "an orthopedic surgery practice"],
        ["performs complex operations on the heart and lungs", "repairs injured joints in the operating room",
         "operates on trauma patients around the clock"],
        ["has performed more than two thousand operations",
         "has pioneered a minimally invasive procedure for knee repair",
         "has published studies on surgical outcomes"],
        ["reading medical journals", "practicing suturing techniques on weekends",
         "mentoring medical students in the anatomy lab"],
    ),
    _p(
        "yoga_teacher", "yoga teacher", "female", "health",
        ["a certificate in vinyasa yoga", "a diploma in restorative yoga", "a certificate in ashtanga and yin yoga"],
        ["a neighborhood yoga studio", "a wellness retreat center", "a meditation and movement studio"],
        ["leads vinyasa and hatha classes for all levels",
         "guides students through breathing and meditation practices", "teaches mindful movement and alignment"],
        ["has led yoga retreats in Bali and Costa Rica",
         "has built a loyal community of students practicing mindfulness",
         "has created an online series of guided meditations"],
        ["practicing meditation at sunrise", "stretching on quiet beaches", "studying ancient yoga philosophy"],
    ),
)

# Phrases shared by every profession of a domain: they narrow the profession down to a few,
# among which gender then tells the stereotypical one.
_DOMAIN_CUES: Mapping[str, Mapping[str, tuple[str, ...]]] = {
    "health": {
        "education": ("a degree in health sciences", "a certificate in anatomy and physiology"),
        "workplace": ("a large medical center", "a health clinic"),
        "duties": ("works closely with patients", "helps people improve their health"),
        "achievement": ("has received a community award for patient care",
                        "has contributed to research on public health"),
        "hobby": ("running marathons", "reading about wellness"),
    },
    "arts": {
        "education": ("a degree in the performing arts", "a degree in media and entertainment"),
        "workplace": ("an entertainment company", "a creative agency in the arts district"),
        "duties": ("performs in front of large audiences", "works on creative projects for brands and events"),
        "achievement": ("has gained a large following on social media",
                        "has been featured in entertainment magazines"),
        "hobby": ("going to concerts", "following pop culture"),
    },
    "design": {
        "education": ("a degree in design", "a certificate in computer-aided design"),
        "workplace": ("a design and technology consultancy", "a creative studio"),
        "duties": ("works on projects from the first sketch to the final delivery",
                   "turns client requirements into detailed plans"),
        "achievement": ("has won several design awards", "has managed projects for major clients"),
        "hobby": ("sketching ideas", "visiting design exhibitions"),
    },
    "law": {
        "education": ("a degree in the humanities", "a degree in public policy"),
        "workplace": ("a nonprofit organization downtown", "an office serving the local community"),
        "duties": ("helps people through difficult times", "prepares documents and meets with members of the community"),
        "achievement": ("has been recognized for service to the community", "has mentored many young volunteers"),
        "hobby": ("volunteering at a shelter", "reading history books"),
    },
}

_GENERIC_CUES: Mapping[str, tuple[str, ...]] = {
    "education": ("an undergraduate degree", "a degree with honors", "a graduate degree", "a two-year diploma",
                  "a general studies degree"),
    "workplace": ("a mid-sized company", "a local organization", "a small business", "a growing company",
                  "an office near the city center"),
    "duties": ("works with a small team of colleagues", "spends a lot of time in meetings and on the phone",
               "handles a wide range of tasks every day", "works with clients from many backgrounds",
               "splits the week between the office and remote work"),
    "achievement": ("has received several awards from colleagues", "has been promoted twice in five years",
                    "has been recognized as employee of the year", "has mentored several junior colleagues",
                    "has spoken at a few regional events"),
    "hobby": ("hiking", "reading mystery novels", "traveling", "gardening", "playing tennis", "watching old movies",
              "cycling around the city", "playing board games"),
}

# --------------------------------------------------------------------------------------------
# Sentence frames. Placeholders: {S}/{s} subject pronoun (capitalized / not), {P}/{p} possessive
# determiner, {o} object pronoun, {r} reflexive, {hers} possessive pronoun, {title} Ms./Mrs./Mr.,
# {first} {last} the name, {parent} mother/father, {x} the slot's phrase, {city} {city2} {univ}
# {year} {n} fillers.
# --------------------------------------------------------------------------------------------

_OPENERS = (
    "{first} {last} lives in {city}.",
    "{first} {last} is based in {city}.",
    "{first} {last} grew up near {city} and still lives there.",
    "Originally from {city2}, {first} {last} has lived in {city} for {n} years.",
    "{title} {last} has called {city} home for {n} years.",
)
_TITLED_OPENERS = (
    "{first} {last} is {a} {profession} based in {city}.",
    "{first} {last} has worked as {a} {profession} in {city} for {n} years.",
    "{title} {last} is {a} {profession} in {city}.",
)
_FRAMES: Mapping[str, tuple[str, ...]] = {
    "education": (
        "{S} holds {x} from {univ}.",
        "{S} earned {x} at {univ} in {year}.",
        "After earning {x} from {univ}, {s} moved to {city}.",
        "{first} graduated from {univ} with {x}.",
        "{P} education includes {x} from {univ}.",
        "{S} completed {x} at {univ} before starting {p} career.",
    ),
    "workplace": (
        "{S} currently works at {x}.",
        "For the past {n} years, {s} has worked at {x}.",
        "{title} {last} joined {x} in {year}.",
        "These days {s} spends most of {p} time at {x}.",
        "{first} now works at {x}, where {s} has been since {year}.",
    ),
    "duties": (
        "{S} {x}.",
        "Day to day, {s} {x}.",
        "In {p} current role, {s} {x}.",
        "{first} {x} and enjoys the variety of the work.",
    ),
    "achievement": (
        "{S} {x}.",
        "Over the years, {s} {x}.",
        "{first} {x}, something {s} counts among {p} proudest achievements.",
        "Among other things, {title} {last} {x}.",
    ),
    "hobby": (
        "Outside of work, {s} enjoys {x}.",
        "In {p} free time, {first} loves {x}.",
        "When {s} is not working, {s} can usually be found {x}.",
        "{S} spends many weekends {x}.",
        "{S} is a proud {parent} of two who enjoys {x}.",
    ),
}
# A closing sentence with no profession information; some use the reflexive and the possessive
# pronoun so that every pronoun form occurs in the data.
_CLOSINGS = (
    "{S} describes {r} as a lifelong learner.",
    "{S} considers {r} lucky to do work {s} loves.",
    "{first} credits {p} mentors, but the drive has always been {hers}.",
    "{S} lives in {city} with {p} family and a very energetic dog.",
    "{title} {last} says the best part of the job is the people {s} meets.",
    "Friends describe {o} as calm, curious and generous.",
)

_CITIES = (
    "Denver", "Chicago", "Boston", "Seattle", "Portland", "Toronto", "Melbourne", "Dublin", "Phoenix", "Atlanta",
    "Minneapolis", "Pittsburgh", "Baltimore", "Sacramento", "Vancouver", "Edinburgh", "Manchester", "Leeds",
    "Auckland", "Ottawa", "Calgary", "Nashville", "Tucson", "Omaha", "Milwaukee", "Cincinnati", "Houston",
)
_UNIVERSITIES = (
    "the University of Michigan", "Ohio State University", "McGill University", "the University of Leeds",
    "Rutgers University", "the University of Toronto", "Boston University", "Temple University", "Purdue University",
    "the University of Arizona", "Monash University", "Northeastern University", "the University of Iowa",
    "Penn State", "the University of Edinburgh", "a state university",
)
# Common surnames; those that are also first names in wordlists are dropped at load time so that
# swapping or scrubbing names never touches a surname.
_SURNAMES = (
    "Smith", "Johnson", "Brown", "Miller", "Davis", "Garcia", "Rodriguez", "Wilson", "Anderson", "Moore", "White",
    "Harris", "Clark", "Lewis", "Robinson", "Walker", "Young", "Wright", "Torres", "Nguyen", "Hill", "Green",
    "Adams", "Baker", "Nelson", "Mitchell", "Perez", "Roberts", "Turner", "Phillips", "Campbell", "Evans",
    "Edwards", "Collins", "Sanchez", "Morris", "Rogers", "Reed", "Cook", "Bell", "Murphy", "Bailey", "Rivera",
    "Cooper", "Richardson", "Cox", "Ward", "Peterson", "Gray", "Ramirez", "Watson", "Brooks", "Sanders", "Price",
    "Bennett", "Wood", "Barnes", "Henderson", "Coleman", "Jenkins", "Perry", "Powell", "Patterson", "Hughes",
    "Flores", "Butler", "Simmons", "Foster", "Gonzales", "Bryant", "Griffin", "Diaz", "Hayes", "Kowalski",
    "Okafor", "Yamamoto", "Schmidt", "Novak", "Larsen", "Haddad", "Chen", "Patel", "Kim", "Silva",
)

_PRONOUNS: Mapping[str, Mapping[str, str]] = {
    "female": {"s": "she", "p": "her", "o": "her", "r": "herself", "hers": "hers", "parent": "mother"},
    "male": {"s": "he", "p": "his", "o": "him", "r": "himself", "hers": "his", "parent": "father"},
}
# Ms. is the common title in professional biographies; Mrs. appears too.
_TITLES: Mapping[str, tuple[tuple[str, float], ...]] = {
    "female": (("Ms.", 0.7), ("Mrs.", 0.3)),
    "male": (("Mr.", 1.0),),
}

SYNTHETIC_PROFESSIONS: tuple[str, ...] = tuple(p.name for p in _PROFESSION_TABLE)
"""The 14 professions of the synthetic biographies, in label order (the LabHC id order)."""
SYNTHETIC_FEMALE_DOMINATED: tuple[str, ...] = tuple(p.name for p in _PROFESSION_TABLE if p.stereotype == "female")
SYNTHETIC_MALE_DOMINATED: tuple[str, ...] = tuple(p.name for p in _PROFESSION_TABLE if p.stereotype == "male")
_BY_NAME = {p.name: p for p in _PROFESSION_TABLE}


@functools.lru_cache(maxsize=1)
def _name_pools() -> tuple[dict[str, tuple[str, ...]], tuple[str, ...]]:
    """First names by gender (wordlists, without names that are also ordinary words) and surnames."""
    names = wordlists.load_names()
    # "Will", "Rose", "May" ... read as ordinary words: they would blur the gender signal.
    common = {w.lower() for w in names.common_words}
    first = {
        "female": tuple(n for n in names.female if n.lower() not in common),
        "male": tuple(n for n in names.male if n.lower() not in common),
    }
    all_first = {n.lower() for n in names.female + names.male}
    surnames = tuple(s for s in _SURNAMES if s.lower() not in all_first)
    return first, surnames


# --------------------------------------------------------------------------------------------
# Parameter checks
# --------------------------------------------------------------------------------------------


def _check_unit(value: Any, name: str, *, open_low: bool = False, open_high: bool = False) -> float:
    ok = isinstance(value, numbers.Real) and not isinstance(value, bool) and np.isfinite(float(value))
    if ok:
        v = float(value)
        ok = (v > 0.0 if open_low else v >= 0.0) and (v < 1.0 if open_high else v <= 1.0)
    if not ok:
        low, high = ("(0" if open_low else "[0"), ("1)" if open_high else "1]")
        raise InvalidParameterError(name, value, f"a number in {low}, {high}")
    return float(value)


def _check_professions(professions: Sequence[str] | None) -> tuple[str, ...]:
    if professions is None:
        return SYNTHETIC_PROFESSIONS
    if isinstance(professions, str):
        professions = [professions]
    chosen = list(dict.fromkeys(str(p) for p in professions))
    unknown = [p for p in chosen if p not in _BY_NAME]
    if unknown:
        raise InvalidParameterError("professions", unknown[0] if len(unknown) == 1 else unknown, SYNTHETIC_PROFESSIONS)
    if len(chosen) < 2:
        raise InvalidParameterError("professions", chosen, "at least two of " + ", ".join(SYNTHETIC_PROFESSIONS))
    # Label order is the table's order whatever order the caller listed them in.
    return tuple(p for p in SYNTHETIC_PROFESSIONS if p in chosen)


def _check_skew(skew: float | Mapping[str, float], name: str, professions: Sequence[str]) -> dict[str, float]:
    if isinstance(skew, Mapping):
        unknown = [p for p in skew if p not in professions]
        if unknown:
            raise InvalidParameterError(name, unknown, f"keys among the chosen professions {list(professions)}")
        out = {}
        for p in professions:
            if p not in skew:
                raise InvalidParameterError(name, dict(skew), f"a value for every profession (missing {p!r})")
            out[p] = _check_unit(skew[p], f"{name}[{p!r}]")
        return out
    value = _check_unit(skew, name)
    return {p: value for p in professions}


# --------------------------------------------------------------------------------------------
# Generation
# --------------------------------------------------------------------------------------------


def _pick(rng: np.random.Generator, options: Sequence[str]) -> str:
    return options[int(rng.integers(len(options)))]


def _phrase(rng: np.random.Generator, profession: _Profession, slot: str, cue_strength: float,
            domain_cue_rate: float) -> tuple[str, str]:
    """A phrase for ``slot`` and its kind: "cue", "domain" or "generic"."""
    u = rng.random()
    if u < cue_strength:
        return _pick(rng, profession.cues[slot]), "cue"
    if rng.random() < domain_cue_rate:
        return _pick(rng, _DOMAIN_CUES[profession.domain][slot]), "domain"
    return _pick(rng, _GENERIC_CUES[slot]), "generic"


def _title(rng: np.random.Generator, gender: str) -> str:
    u = rng.random()
    for title, weight in _TITLES[gender]:
        if u < weight:
            return title
        u -= weight
    return _TITLES[gender][-1][0]


def _fill(frame: str, values: Mapping[str, str]) -> str:
    text = frame.format(**values)
    return text[0].upper() + text[1:]


def _biography(rng: np.random.Generator, profession: _Profession, gender: str, *, cue_strength: float,
               domain_cue_rate: float, title_rate: float) -> tuple[str, int]:
    """One biography and the number of its sentences that hold a profession-specific cue."""
    first_names, surnames = _name_pools()
    pron = _PRONOUNS[gender]
    city = int(rng.integers(len(_CITIES)))
    city2 = (city + 1 + int(rng.integers(len(_CITIES) - 1))) % len(_CITIES)  # another city
    values = {
        "first": _pick(rng, first_names[gender]),
        "last": _pick(rng, surnames),
        "title": _title(rng, gender),
        "S": pron["s"].capitalize(), "s": pron["s"], "P": pron["p"].capitalize(), "p": pron["p"],
        "o": pron["o"], "r": pron["r"], "hers": pron["hers"], "parent": pron["parent"],
        "city": _CITIES[city], "city2": _CITIES[city2], "univ": _pick(rng, _UNIVERSITIES),
        "year": str(int(rng.integers(1995, 2022))), "n": str(int(rng.integers(2, 21))),
        "profession": profession.title, "a": indefinite_article(profession.title),
    }
    titled = rng.random() < title_rate
    sentences = [_fill(_pick(rng, _TITLED_OPENERS if titled else _OPENERS), values)]
    n_cues = 0
    # Education, workplace, duties and achievement in a random order, then the hobby; a
    # biography skips one of the first four most of the time, for variety in length.
    middle = list(CUE_SLOTS[:4])
    rng.shuffle(middle)
    if rng.random() < 0.7:
        middle.pop(int(rng.integers(len(middle))))
    for slot in [*middle, "hobby"]:
        phrase, kind = _phrase(rng, profession, slot, cue_strength, domain_cue_rate)
        n_cues += kind == "cue"
        sentences.append(_fill(_pick(rng, _FRAMES[slot]), {**values, "x": phrase}))
    if rng.random() < 0.4:
        sentences.append(_fill(_pick(rng, _CLOSINGS), values))
    return " ".join(sentences), n_cues


def _split_plan(n: int, professions: Sequence[str], skew: Mapping[str, float], rng: np.random.Generator
                ) -> tuple[np.ndarray, np.ndarray]:
    """Labels and genders of one split: professions as equal as ``n`` allows, and in each
    profession ``round(skew * n_p)`` examples of its stereotypical gender; shuffled.
    """
    k = len(professions)
    per = np.full(k, n // k)
    per[: n % k] += 1
    labels, genders = [], []
    for label, (name, n_p) in enumerate(zip(professions, per)):
        stereo = _BY_NAME[name].stereotype
        other = "male" if stereo == "female" else "female"
        n_stereo = int(np.floor(skew[name] * n_p + 0.5))
        labels.extend([label] * int(n_p))
        genders.extend([stereo] * n_stereo + [other] * (int(n_p) - n_stereo))
    order = rng.permutation(n)
    return np.asarray(labels, dtype=np.int64)[order], np.asarray(genders, dtype=object)[order]


def make_synthetic_bios(
    n_train: int = 2800,
    n_test: int = 1400,
    *,
    cue_strength: float = 0.3,
    train_gender_skew: float | Mapping[str, float] = 0.85,
    test_gender_skew: float | Mapping[str, float] = 0.5,
    domain_cue_rate: float = 0.5,
    title_rate: float = 0.1,
    professions: Sequence[str] | None = None,
    random_state: int | np.random.Generator | None = 0,
) -> datasets.DatasetDict:
    r"""Synthetic biographies with a planted gender–profession correlation (train) and a
    gender-balanced test split.

    The study's embedded default task (Tokpo et al. 2023, §4 use Bias-in-Bios; this is its offline
    stand-in with a known answer). In each split the professions are as equal in number as ``n``
    allows; in profession :math:`c` with stereotypical gender :math:`g_c` exactly
    :math:`\mathrm{round}(s_c \, n_c)` examples are of gender :math:`g_c`, where :math:`s_c`
    is the split's skew, so :math:`P(g_c \mid c) = s_c` up to rounding. Gender alone then tells
    whether a biography belongs to a female- or a male-dominated profession with accuracy
    :math:`s` on the training split (0.85 by default) and 0.5 on the balanced test split: the
    planted shortcut. Reading the profession itself needs the cues.

    Parameters
    ----------
    n_train, n_test : int
        Number of biographies in the training and test splits (at least one per profession).
    cue_strength : float in [0, 1]
        Probability that each of the five cue sentences holds a phrase specific to the
        profession. At 0 the only profession information is the domain cues and the title; at 1
        every cue sentence names the profession's work and gender is no help.
    train_gender_skew : float in [0, 1] or mapping profession -> float
        :math:`P(\text{stereotypical gender} \mid \text{profession})` in the training split.
        The default 0.85 is of the size of Bias-in-Bios' strongest skews (about nine in ten
        nurses and dietitians are women, about nine in ten rappers and more than eight in ten
        surgeons men; De-Arteaga et al. 2019). 0.5 removes the correlation; 1 makes gender a
        perfect shortcut.
    test_gender_skew : float in [0, 1] or mapping
        The same for the test split; 0.5 (both genders equally in every profession) by default.
    domain_cue_rate : float in [0, 1]
        Probability that a sentence without a specific cue holds a cue shared by the profession's
        domain (health, arts, design and technology, law and community) instead of a generic phrase.
    title_rate : float in [0, 1]
        Probability that the opening sentence names the profession ("... is a nurse based in
        Denver."). Bias-in-Bios' ``hard_text`` drops the sentence that names it, hence a low default.
    professions : sequence of str, optional
        A subset of :data:`SYNTHETIC_PROFESSIONS` (at least two); labels follow the order of
        :data:`SYNTHETIC_PROFESSIONS`.
    random_state : int, numpy.random.Generator or None
        Seed. The same seed and parameters give the same texts; ``None`` draws a fresh seed and
        records it in the splits' ``info.description``.

    Returns
    -------
    datasets.DatasetDict
        Splits ``"train"`` and ``"test"``, each with the columns ``text`` (str), ``label``
        (:class:`datasets.ClassLabel` over the profession names), ``gender`` (``"female"`` /
        ``"male"``) and ``example_id`` (int, unique over both splits: the ``source`` id for
        counterfactual metrics).

    Raises
    ------
    InvalidParameterError
        A size below the number of professions, a probability outside [0, 1], an unknown
        profession.

    Examples
    --------
    >>> data = make_synthetic_bios(140, 70, random_state=0)
    >>> data["train"].features["label"].names[:3]
    ['architect', 'composer', 'dietitian']
    """
    chosen = _check_professions(professions)
    n_train = check_positive_int(n_train, "n_train", minimum=len(chosen))
    n_test = check_positive_int(n_test, "n_test", minimum=len(chosen))
    cue_strength = _check_unit(cue_strength, "cue_strength")
    domain_cue_rate = _check_unit(domain_cue_rate, "domain_cue_rate")
    title_rate = _check_unit(title_rate, "title_rate")
    train_skew = _check_skew(train_gender_skew, "train_gender_skew", chosen)
    test_skew = _check_skew(test_gender_skew, "test_gender_skew", chosen)
    seed, source = resolve_seed(random_state)
    plan_rng, text_rng = spawn_generators(source, 2)

    import datasets

    features = datasets.Features({
        "text": datasets.Value("string"),
        "label": datasets.ClassLabel(names=list(chosen)),
        "gender": datasets.Value("string"),
        "example_id": datasets.Value("int64"),
    })
    settings = (
        f"n_train={n_train}, n_test={n_test}, cue_strength={cue_strength}, "
        f"train_gender_skew={train_gender_skew!r}, test_gender_skew={test_gender_skew!r}, "
        f"domain_cue_rate={domain_cue_rate}, title_rate={title_rate}, seed={seed}"
    )
    splits = {}
    offset = 0
    total_cues = 0
    for split, n, skew in (("train", n_train, train_skew), ("test", n_test, test_skew)):
        labels, genders = _split_plan(n, chosen, skew, plan_rng)
        texts = []
        for label, gender in zip(labels, genders):
            text, n_cues = _biography(
                text_rng, _BY_NAME[chosen[label]], str(gender), cue_strength=cue_strength,
                domain_cue_rate=domain_cue_rate, title_rate=title_rate,
            )
            texts.append(text)
            total_cues += n_cues
        info = datasets.DatasetInfo(
            description=f"probekit synthetic biographies, split={split}; {settings}", features=features
        )
        splits[split] = datasets.Dataset.from_dict(
            {"text": texts, "label": labels.tolist(), "gender": [str(g) for g in genders],
             "example_id": list(range(offset, offset + n))},
            info=info, split=split,
        )
        offset += n
    logger.info("synthetic biographies: %s; %.2f profession cues per text", settings,
                total_cues / (n_train + n_test))
    return datasets.DatasetDict(splits)
