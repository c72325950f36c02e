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
from typing import TYPE_CHECKING, Any, Mapping, Sequence

import numpy as np

import wordlists
from probekit.errors import InvalidParameterError
from probekit.finetune._synthetic_tables import (
    _BY_NAME,
    _CITIES,
    _CLOSINGS,
    _DOMAIN_CUES,
    _FRAMES,
    _GENERIC_CUES,
    _OPENERS,
    _PRONOUNS,
    _SURNAMES,
    _TITLED_OPENERS,
    _TITLES,
    _UNIVERSITIES,
    CUE_SLOTS,
    SYNTHETIC_PROFESSIONS,
    _Profession,
)
from probekit.text import indefinite_article
from probekit.utils import check_positive_int, resolve_seed, spawn_generators

if TYPE_CHECKING:  # datasets is imported lazily: it is slow to import
    import datasets

__all__ = ["make_synthetic_bios"]

logger = logging.getLogger(__name__)

GENDERS = ("female", "male")


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
