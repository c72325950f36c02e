"""Synthetic biographies: shape, determinism, planted skew, gender words, cue strength, and the
planted shortcut measured with an independent classifier (scikit-learn on bag-of-words)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import wordlists
from probekit.errors import InvalidParameterError
from probekit.finetune import (
    SYNTHETIC_FEMALE_DOMINATED,
    SYNTHETIC_MALE_DOMINATED,
    SYNTHETIC_PROFESSIONS,
    _synthetic_tables,
    make_synthetic_bios,
)

N_TRAIN, N_TEST = 1400, 1400
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")

# Independent reference for "gender words": the project's attribute pairs and first names, plus
# the titles and the possessive pronoun the pairs do not list.
_PAIRS = wordlists.load_attribute_pairs()
_NAMES = wordlists.load_names()
GENDER_WORDS = {
    "female": {w.lower() for w in _PAIRS.female} | {"hers", "ms"},
    "male": {w.lower() for w in _PAIRS.male} | {"mr"},
}
FIRST_NAMES = {"female": set(_NAMES.female), "male": set(_NAMES.male)}
PRONOUNS = {"female": {"she", "her", "hers", "herself"}, "male": {"he", "him", "his", "himself"}}


@pytest.fixture(scope="module")
def bios():
    return make_synthetic_bios(N_TRAIN, N_TEST, random_state=0)


def _stereotype(names):
    return np.array(["female" if n in SYNTHETIC_FEMALE_DOMINATED else "male" for n in names])


def _columns(split):
    names = np.asarray(split.features["label"].names)[np.asarray(split["label"])]
    return list(split["text"]), names, np.asarray(split["gender"])


def test_fourteen_professions_seven_per_side(bios):
    assert len(SYNTHETIC_PROFESSIONS) == 14
    assert len(SYNTHETIC_FEMALE_DOMINATED) == len(SYNTHETIC_MALE_DOMINATED) == 7
    assert set(SYNTHETIC_FEMALE_DOMINATED) | set(SYNTHETIC_MALE_DOMINATED) == set(SYNTHETIC_PROFESSIONS)
    assert {"nurse", "dietitian", "paralegal", "yoga_teacher"} <= set(SYNTHETIC_FEMALE_DOMINATED)
    assert {"surgeon", "software_engineer", "rapper", "dj"} <= set(SYNTHETIC_MALE_DOMINATED)
    # Labels follow the LabHC id order, the same order as the Bias-in-Bios loader.
    from probekit.finetune import LABHC_PROFESSIONS

    assert list(SYNTHETIC_PROFESSIONS) == [p for p in LABHC_PROFESSIONS if p in SYNTHETIC_PROFESSIONS]
    for split, n in (("train", N_TRAIN), ("test", N_TEST)):
        ds = bios[split]
        assert ds.column_names == ["text", "label", "gender", "example_id"]
        assert ds.features["label"].names == list(SYNTHETIC_PROFESSIONS)
        assert len(ds) == n
        counts = np.bincount(ds["label"], minlength=14)
        assert counts.min() == counts.max() == n // 14
    ids = list(bios["train"]["example_id"]) + list(bios["test"]["example_id"])
    assert sorted(ids) == list(range(N_TRAIN + N_TEST))


def test_same_seed_same_data_other_seed_other_data():
    a = make_synthetic_bios(140, 70, random_state=7)
    b = make_synthetic_bios(140, 70, random_state=7)
    c = make_synthetic_bios(140, 70, random_state=8)
    for split in ("train", "test"):
        assert a[split].to_dict() == b[split].to_dict()
    assert list(a["train"]["text"]) != list(c["train"]["text"])
    g1 = make_synthetic_bios(140, 70, random_state=np.random.default_rng(3))
    g2 = make_synthetic_bios(140, 70, random_state=np.random.default_rng(3))
    assert list(g1["train"]["text"]) == list(g2["train"]["text"])


@pytest.mark.parametrize("skew", [0.85, 0.7, 1.0])
def test_train_skew_is_the_requested_one(skew):
    ds = make_synthetic_bios(1400, 140, train_gender_skew=skew, random_state=1)["train"]
    _, names, genders = _columns(ds)
    stereotypical = genders == _stereotype(names)
    for p in SYNTHETIC_PROFESSIONS:
        n_p = int((names == p).sum())
        # Exactly round(skew * n_p) per profession: within one example of the requested share.
        assert abs(stereotypical[names == p].mean() - skew) <= 1.0 / n_p
    assert abs(stereotypical.mean() - skew) < 0.01


def test_per_profession_skew_mapping():
    skews = {p: 0.9 if p == "nurse" else 0.6 for p in SYNTHETIC_PROFESSIONS}
    ds = make_synthetic_bios(1400, 140, train_gender_skew=skews, random_state=2)["train"]
    _, names, genders = _columns(ds)
    assert (genders[names == "nurse"] == "female").mean() == pytest.approx(0.9, abs=0.01)
    assert (genders[names == "surgeon"] == "male").mean() == pytest.approx(0.6, abs=0.01)


def test_test_split_has_both_genders_balanced_in_every_profession(bios):
    _, names, genders = _columns(bios["test"])
    for p in SYNTHETIC_PROFESSIONS:
        f = int(((names == p) & (genders == "female")).sum())
        m = int(((names == p) & (genders == "male")).sum())
        assert f > 0 and m > 0
        assert abs(f - m) <= 1


def test_gender_words_present_and_only_of_the_own_gender(bios):
    texts, _, genders = _columns(bios["train"])
    for text, gender in zip(texts, genders):
        other = "male" if gender == "female" else "female"
        tokens = _WORD.findall(text)
        lower = {t.lower() for t in tokens}
        assert lower & PRONOUNS[gender], text
        assert any(t in FIRST_NAMES[gender] for t in tokens) or lower & {"ms", "mrs", "mr"}, text
        assert not lower & GENDER_WORDS[other], (text, lower & GENDER_WORDS[other])
        assert not set(tokens) & FIRST_NAMES[other], text


def test_phrase_tables_hold_no_gender_words_or_first_names():
    names = {n.lower() for n in _NAMES.female + _NAMES.male}
    gendered = GENDER_WORDS["female"] | GENDER_WORDS["male"] | names
    pools = [p for prof in _synthetic_tables._PROFESSION_TABLE for v in prof.cues.values() for p in v]
    pools += [p for d in _synthetic_tables._DOMAIN_CUES.values() for v in d.values() for p in v]
    pools += [p for v in _synthetic_tables._GENERIC_CUES.values() for p in v]
    pools += list(_synthetic_tables._CITIES) + list(_synthetic_tables._UNIVERSITIES)
    for phrase in pools:
        assert not {w.lower() for w in _WORD.findall(phrase)} & gendered, phrase
    # Every specific cue belongs to one profession only.
    specific = [p for prof in _synthetic_tables._PROFESSION_TABLE for v in prof.cues.values() for p in v]
    assert len(specific) == len(set(specific))


def test_lengths_are_biography_like(bios):
    lengths = np.array([len(t.split()) for t in bios["train"]["text"]])
    assert lengths.min() >= 25
    assert 40 <= np.median(lengths) <= 80
    assert np.percentile(lengths, 95) <= 90


def _cue_counts(split):
    texts, names, _ = _columns(split)
    table = {p.name: [c for v in p.cues.values() for c in v] for p in _synthetic_tables._PROFESSION_TABLE}
    return np.array([sum(t.count(c) for c in table[n]) for t, n in zip(texts, names)])


def test_cue_strength_sets_how_often_cue_phrases_appear():
    means = {}
    for strength in (0.1, 0.5, 0.9):
        data = make_synthetic_bios(700, 14, cue_strength=strength, random_state=3)
        means[strength] = _cue_counts(data["train"]).mean()
    # Five cue sentences, one of the first four skipped 70 % of the time: 4.3 per text on average.
    for strength, mean in means.items():
        assert mean == pytest.approx(4.3 * strength, abs=0.25)
    none = make_synthetic_bios(700, 14, cue_strength=0.0, random_state=3)
    assert _cue_counts(none["train"]).sum() == 0


def _bow_classifier(vocabulary=None):
    """Bag-of-words logistic regression over ``vocabulary``, or naive Bayes over every word (a
    closed-form fit: fast on the full vocabulary)."""
    from sklearn.feature_extraction.text import CountVectorizer
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import MultinomialNB
    from sklearn.pipeline import make_pipeline

    return make_pipeline(
        CountVectorizer(vocabulary=vocabulary, token_pattern=r"[A-Za-z][A-Za-z'-]*", lowercase=True),
        LogisticRegression(max_iter=1000) if vocabulary is not None else MultinomialNB(),
    )


def test_planted_shortcut_gender_words_predict_profession_only_where_skewed():
    """Gender words alone (pronouns, titles, mother/father) predict the profession group and the
    profession above chance on skewed data, and at chance on the balanced test split."""
    vocabulary = sorted(PRONOUNS["female"] | PRONOUNS["male"] | {"ms", "mrs", "mr", "mother", "father"})
    data = make_synthetic_bios(1400, 1400, random_state=4)
    held_out = make_synthetic_bios(14, 1400, test_gender_skew=0.85, random_state=5)["test"]
    train_texts, train_names, _ = _columns(data["train"])
    skewed_texts, skewed_names, _ = _columns(held_out)
    test_texts, test_names, _ = _columns(data["test"])

    group = _bow_classifier(vocabulary).fit(train_texts, _stereotype(train_names))
    assert group.score(skewed_texts, _stereotype(skewed_names)) == pytest.approx(0.85, abs=0.03)
    assert group.score(test_texts, _stereotype(test_names)) == pytest.approx(0.5, abs=0.03)

    profession = _bow_classifier(vocabulary).fit(train_texts, train_names)
    chance = 1 / 14
    assert profession.score(skewed_texts, skewed_names) > chance + 0.03  # expected 0.85 / 7 = 0.12
    assert profession.score(test_texts, test_names) == pytest.approx(chance, abs=0.025)


def test_without_cues_only_the_shortcut_is_left():
    """No cues, no domain phrases, no titles: bag-of-words over the whole text learns nothing but
    gender, which is worthless on the balanced test split; with cues it reads the profession."""
    blind = make_synthetic_bios(1400, 1400, cue_strength=0.0, domain_cue_rate=0.0, title_rate=0.0, random_state=6)
    cued = make_synthetic_bios(1400, 1400, cue_strength=0.6, random_state=6)
    scores = {}
    for name, data in (("blind", blind), ("cued", cued)):
        train_texts, train_names, _ = _columns(data["train"])
        test_texts, test_names, _ = _columns(data["test"])
        scores[name] = _bow_classifier().fit(train_texts, train_names).score(test_texts, test_names)
    assert scores["blind"] < 1 / 14 + 0.03
    assert scores["cued"] > 0.8


@pytest.mark.parametrize(
    "kwargs, parameter",
    [
        ({"cue_strength": 1.5}, "cue_strength"),
        ({"train_gender_skew": -0.1}, "train_gender_skew"),
        ({"title_rate": float("nan")}, "title_rate"),
        ({"n_train": 10}, "n_train"),
        ({"professions": ["nurse", "chef"]}, "professions"),
        ({"train_gender_skew": {"nurse": 0.9}}, "train_gender_skew"),
        ({"random_state": "seed"}, "random_state"),
    ],
)
def test_bad_parameters_name_the_parameter(kwargs, parameter):
    with pytest.raises(InvalidParameterError, match=parameter):
        make_synthetic_bios(**{"n_train": 140, "n_test": 14, **kwargs})


def test_profession_subset_keeps_label_order():
    data = make_synthetic_bios(40, 20, professions=["surgeon", "nurse"], random_state=0)
    assert data["train"].features["label"].names == ["nurse", "surgeon"]
    _, names, genders = _columns(data["test"])
    assert set(names) == {"nurse", "surgeon"}
    assert (genders == "female").sum() == 10
