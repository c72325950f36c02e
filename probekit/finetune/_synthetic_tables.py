"""The declarative tables of the synthetic biographies (:mod:`probekit.finetune._synthetic`): the
fourteen Bias-in-Bios professions (De-Arteaga et al. 2019; the subset of Tokpo et al. 2023 §4) with
their stereotyped gender, domain and cue phrases per sentence slot, the domain and generic phrases,
the sentence frames and their fillers (cities, universities, surnames), and the pronouns and titles
of each gender.

Every phrase is free of gender words (checked by the tests against wordlists' attribute pairs and
names), so that gender reaches the text only through the placeholders of the frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

__all__ = ["SYNTHETIC_PROFESSIONS", "SYNTHETIC_FEMALE_DOMINATED", "SYNTHETIC_MALE_DOMINATED"]

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
