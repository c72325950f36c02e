"""k-group counterfactuals: the survey's ternary rule branch by branch, swaps to a group and
between groups, no substring accidents (an adversarial list), round trips on real text."""

from __future__ import annotations

import glob
import itertools
import random
from pathlib import Path

import pytest

import wordlists
from debias import (
    find_group_terms,
    group_cda,
    group_counterfactuals,
    scrub_attribute,
    survey_ternary_augment,
    survey_ternary_cda,
    swap_groups,
    swap_to_group,
)
from probekit.errors import InvalidParameterError

# --------------------------------------------------------------------------------------------
# The survey's ternary rule (Meade et al. 2022, bias-bench experiments/run_mlm.py,
# ternary_counterfactual_augmentation), stated here as the test's reference:
#
#   1. words = sentence.split() (whitespace only; case-sensitive exact comparison);
#   2. per sentence draw r1 in {1, 2}, r2 in {0, 2}, r3 in {0, 1} (in that order);
#   3. the word list is the six triples, then the triples with each of . , ? ! ; : appended
#      (punctuation outer, triples inner);
#   4. for every token, for every triple in list order: a token equal to the triple's word in
#      position p becomes the triple's word in position r_p -- so the LAST matching triple wins;
#   5. a sentence with no match is dropped; otherwise the counterfactual is kept, then the original.
# --------------------------------------------------------------------------------------------

# (sentence, draws, expected) -- one case per branch.
SURVEY_RACE_CASES = [
    # r1 position, draw 1 and draw 2 (black: last triple listing it is (black, white, asian))
    ("a black man", (1, 0, 0), "a white man"),
    ("a black man", (2, 0, 0), "a asian man"),
    # r2 position, draw 0 and draw 2 (caucasian: last triple is (african, caucasian, asian))
    ("a caucasian man", (1, 0, 0), "a african man"),
    ("a caucasian man", (1, 2, 0), "a asian man"),
    # r3 position, draw 0 and draw 1 (asian: last triple is (black, white, asian))
    ("an asian man", (1, 0, 0), "an black man"),
    ("an asian man", (1, 0, 1), "an white man"),
    # last triple wins: africa is r1 of three triples, the last is (africa, europe, asia)
    ("to africa now", (1, 0, 0), "to europe now"),
    ("to africa now", (2, 0, 0), "to asia now"),
    # america: last triple listing it is (africa, america, china)
    ("in america today", (1, 2, 0), "in china today"),
    ("china and asia", (1, 0, 1), "america and europe"),
    # punctuation variants: the word followed by one of . , ? ! ; :
    ("he is black.", (2, 0, 0), "he is asian."),
    ("white, black; asian!", (2, 2, 1), "asian, asian; white!"),
    # not matched: other punctuation, capitals, substrings -- and the whitespace is normalised
    ("(black) Black blackboard", (1, 0, 0), None),
    ("a  black\tman", (1, 0, 0), "a white man"),
    ("nothing to see", (1, 0, 0), None),
]

SURVEY_RELIGION_CASES = [
    ("the jewish community", (1, 0, 0), "the christian community"),
    ("the jewish community", (2, 0, 0), "the muslim community"),
    ("christians pray", (1, 0, 0), "jews pray"),
    ("christians pray", (1, 2, 0), "muslims pray"),
    ("the quran says", (1, 0, 0), "the torah says"),
    ("the quran says", (1, 0, 1), "the bible says"),
    ("a mosque, a church.", (2, 0, 1), "a church, a synagogue."),
    ("Islam", (1, 0, 0), None),
]


@pytest.mark.parametrize(("sentence", "draws", "expected"), SURVEY_RACE_CASES)
def test_survey_ternary_rule_race(sentence, draws, expected):
    assert survey_ternary_cda(sentence, "race", draws=draws) == expected


@pytest.mark.parametrize(("sentence", "draws", "expected"), SURVEY_RELIGION_CASES)
def test_survey_ternary_rule_religion(sentence, draws, expected):
    assert survey_ternary_cda(sentence, "religion", draws=draws) == expected


def test_survey_draws_follow_python_random_in_the_survey_order():
    sentences = ["the black man", "no terms here", "the asian woman and the white man"]
    rng = random.Random(7)
    expected = []
    for s in sentences:
        draws = (rng.choice([1, 2]), rng.choice([0, 2]), rng.choice([0, 1]))
        new = survey_ternary_cda(s, "race", draws=draws)
        if new is not None:
            expected += [new, s]
    assert survey_ternary_augment(sentences, "race", random_state=7) == expected
    assert len(expected) == 4  # the sentence without terms is dropped


def test_survey_triples_and_bad_draws():
    assert wordlists.load_survey_cda_words("race")[0] == ("black", "caucasian", "asian")
    assert wordlists.load_survey_cda_words("religion")[-1] == ("judaism", "christianity", "islam")
    with pytest.raises(InvalidParameterError):
        survey_ternary_cda("a black man", draws=(0, 0, 0))
    with pytest.raises(InvalidParameterError):
        wordlists.load_survey_cda_words("gender")


# --------------------------------------------------------------------------------------------
# probekit's k-group swaps
# --------------------------------------------------------------------------------------------


def test_swap_to_group_and_between_groups():
    assert swap_to_group("the mosque and the synagogue", "religion", "christian") == "the church and the church"
    assert swap_groups("Jews and Muslims", "religion", "jewish", "muslim") == "Muslims and Jews"
    assert swap_groups("BLACK PEOPLE", "race", "black", "asian") == "ASIAN PEOPLE"
    assert swap_groups("an African-American family", "race", "black", "latino") == "an Hispanic-American family"
    # first names: male with male, capitalized only
    assert swap_groups("Jamel met Amanda.", "race", "black", "white") == "Harry met Nichelle."
    assert swap_groups("harry them", "race", "black", "white") == "harry them"


def test_context_rules():
    # "black"/"white" are race terms only before a person noun
    assert swap_groups("black women and black coffee", "race", "black", "asian") == "asian women and black coffee"
    # and a term is not swapped to a word that would not read back: "Asian cuisine" stays
    assert swap_groups("Asian cuisine", "race", "asian", "black") == "Asian cuisine"
    # adjective / noun: "Christian" -> "Jewish" before a content word, "Jew" otherwise
    assert swap_groups("a Christian book", "religion", "christian", "jewish") == "a Jewish book"
    assert swap_groups("a Christian who", "religion", "christian", "jewish") == "a Jew who"
    # not before a capitalized word (a name)
    assert find_group_terms("Christian Bale", "religion") == ()
    assert [t.group for t in find_group_terms("Christian values", "religion")] == ["christian"]


def test_counterfactuals_one_per_other_group():
    cf = group_counterfactuals("Muslims pray in mosques.", "religion")
    assert set(cf) == {"jewish", "christian", "hindu", "buddhist", "atheist"}
    assert cf["christian"] == "Christians pray in churches."
    assert cf["hindu"] == "Hindus pray in mosques."  # no Hindu counterpart of "mosque"
    assert group_counterfactuals("nothing here", "race") == {}
    assert group_counterfactuals("She saw her.", "gender") == {"male": "He saw him."}
    assert group_counterfactuals("He and his dog.", "gender") == {"female": "She and her dog."}


def test_group_cda_generalises_the_ternary_draws():
    texts = ["jews and christians", "no terms", "the muslims"]
    out = group_cda(texts, "religion", random_state=0)
    assert len(out) == 4 and out[1] == texts[0] and out[3] == texts[2]
    assert out[0] != texts[0] and out[2] != texts[2]
    # each group is sent to another group, never to itself
    for seed in range(30):
        new = group_cda(["jews"], "religion", random_state=seed)[0]
        assert new.lower() != "jews"
    assert group_cda(texts, "religion", keep_unchanged=True, random_state=0)[2] == "no terms"
    with pytest.raises(InvalidParameterError):
        group_cda(texts, "gender")


def test_scrub_attribute():
    assert scrub_attribute("Muslim women pray in the mosque.", "religion") == "women pray in the."
    assert scrub_attribute("Black women, white wine.", "race", placeholder="_") == "_ women, white wine."


def test_unknown_group_and_attribute():
    with pytest.raises(InvalidParameterError):
        swap_to_group("x", "race", "martian")
    with pytest.raises(InvalidParameterError):
        swap_groups("x", "race", "black", "black")
    with pytest.raises(InvalidParameterError):
        find_group_terms("x", "caste")


# --------------------------------------------------------------------------------------------
# No substring accidents: group terms inside other words stay untouched
# --------------------------------------------------------------------------------------------

ADVERSARIAL = """
blackboard blacksmith blackmail blackout blackbird blackberry BlackBerry blackjack blacklist blacken
blackened blackest blackness Blackpool Blackburn Blackstone Blackwell black-and-white black-eyed
whiteboard whitewash whitespace whiteness whiten whitening whitest whitefish whitewater whiteout
whitetail Whitehall Whitehouse Whitby Whitechapel Whitefield Whitney white-collar Whiteley
Asiana Eurasian Eurasians Asiatic Asian2 asian_food Afro-Asian
Latinate Latinx latinoamericano Latinos-only Hispaniola Africanus Afrikaans Afro-Cuban
Europeanization Europeana Euro-Asian African-ish caucasus Caucasoid
Jewishness jewel jewels jewelry jeweller Jewett jewfish Judeo-Christian anti-Jewish
Christiania Christiane Christianize christening Christianson anti-Christian
Muslimah Muslimness anti-Muslim pro-Muslim Hinduja Hindustan Hindustani Hindu-Arabic
Buddhistic atheistic atheistical Islamabad Islamist islamophobia Islamic
churchyard Churchill churchgoer churchman churchwarden Churchland mosquerade
rabbit rabbits rabbinical rabbinic priestess priesthood priestly imamate Imamura
Torahs Quranic Koranic biblical Bibleman catholicism catholicity Protestantism
Adamant Adams adamantly Pauline Paula Peterson Toddler toddlers Neill Gregory gregarious
Bradley Bradford Alana Bryan Harrys Joshua Rogers Andrews Matthews Stephenson Justine
Jonathans Brendans Geoffreys Bretton Theodore theology theorem Lamarck Maliki Tyrones
Darnelle Jeromes Tiara Tiananmen Amandine Annette Annex Jillian Carrier Sarahs Emilyn
Megane Rachelle Ellena Laurence Nancyville Katies Lionello Leroyce Torrances Deions
Lamonte Terrences Wardella Hakimi Jermaines Kareema Rasheeda Aishas Keishas Tamikas
Yvettes Yolandas Malikas Latoyas Lakishas Tanishas Shaniquas Latishas Shereens Nichelles
Alonzos Jamels Alphonses Lamars Tyrees Marcellusian Courtneys Heathers Melanies Betsys
Kristins Stephanies Ellens Colleens Emilys Megans Rachels Allisons Annes Carries Jills
Lauries Merediths
""".split()

ADVERSARIAL_LOWER_NAMES = ["we harry them", "they josh about it", "heather on the moor", "carrie on", "neil down"]


def test_adversarial_list_is_large_and_untouched():
    assert len(ADVERSARIAL) >= 150
    for word in ADVERSARIAL:
        text = f"They saw {word} people there, then {word}."
        for name in ("race", "religion"):
            attribute = wordlists.get_attribute(name)
            assert find_group_terms(text, name) == (), (word, name)
            assert scrub_attribute(text, name) == text
            for group in attribute.groups:
                assert swap_to_group(text, name, group) == text, (word, group)
    for text in ADVERSARIAL_LOWER_NAMES:
        assert swap_to_group(text, "race", "white") == text and swap_to_group(text, "race", "black") == text


# --------------------------------------------------------------------------------------------
# Round trips on real text installable offline (Debian: wordnet-base glosses, fortunes)
# --------------------------------------------------------------------------------------------


def _wordnet_glosses():
    for path in sorted(glob.glob("/usr/share/wordnet/data.*")):
        for line in Path(path).read_text(encoding="latin-1").splitlines():
            if "|" in line and not line.startswith("  "):
                yield line.split("|", 1)[1].strip()


def _fortunes():
    for path in sorted(glob.glob("/usr/share/games/fortunes/*")):
        if "." in Path(path).name:
            continue
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (UnicodeDecodeError, IsADirectoryError):
            continue
        yield from text.split("\n%\n")


def _round_trip(texts, name):
    attribute = wordlists.get_attribute(name)
    changed = restored = 0
    for text in texts:
        present = dict.fromkeys(t.group for t in find_group_terms(text, name))
        for source, target in itertools.product(present, attribute.groups):
            if source == target:
                continue
            swapped = swap_groups(text, name, source, target)
            if swapped != text:
                changed += 1
                restored += swap_groups(swapped, name, source, target) == text
    return changed, restored


@pytest.mark.parametrize("name", ["race", "religion"])
def test_round_trip_on_real_text(name):
    texts = list(_wordnet_glosses()) + list(_fortunes())
    if not texts:
        pytest.skip("install the Debian packages wordnet-base and fortunes for this test")
    changed, restored = _round_trip(texts, name)
    assert changed >= 300
    assert restored / changed >= 0.98, (restored, changed)


def test_a_term_inside_another_groups_term_is_not_matched():
    # "Caucasian" holds "asian", "Asian-American" holds "Asian", "Judeo-Christian" holds "Christian"
    assert [t.group for t in find_group_terms("a Caucasian man", "race")] == ["white"]
    assert swap_groups("a Caucasian man", "race", "asian", "black") == "a Caucasian man"
    assert swap_groups("Asian-American voters", "race", "asian", "black") == "African-American voters"
    assert swap_groups("Judeo-Christian values", "religion", "christian", "muslim") == "Judeo-Christian values"


def test_a_registered_attribute_swaps(tmp_path):
    table = tmp_path / "region.tsv"
    table.write_text("north\tsouth\nnortherner\tsoutherner\nnortherners\tsoutherners\n", encoding="utf-8")
    wordlists.register_attribute("region_swap_test", table)
    try:
        text = "Northerners and a southerner."
        swapped = swap_groups(text, "region_swap_test", "north", "south")
        assert swapped == "Southerners and a northerner."
        assert swap_groups(swapped, "region_swap_test", "north", "south") == text
    finally:
        wordlists.unregister_attribute("region_swap_test")


def test_a_term_whose_counterpart_is_in_several_rows_is_left_and_the_user_is_told(tmp_path, caplog):
    """bias-bench's race triples list "black" in two rows: "white" -> "black" would read back as row 0's
    "black" (whose white counterpart is "caucasian"), so "white" stays, and the first swap says so."""
    table = tmp_path / "triples.tsv"
    table.write_text("black\tcaucasian\tasian\nafrican\tcaucasian\tasian\nblack\twhite\tasian\n", encoding="utf-8")
    attribute = wordlists.register_attribute("triples_swap_test", table, groups=("r1", "r2", "r3"))
    try:
        with caplog.at_level("WARNING", logger="debias._group_swap"):
            assert swap_to_group("The white person is here.", attribute, "r1") == "The white person is here."
        assert "white -> r1 ('black' is in rows 0, 2)" in caplog.text
        for term in ("white -> r3", "african -> r2", "african -> r3"):
            assert term in caplog.text
        assert "caucasian ->" not in caplog.text and "asian -> r1" not in caplog.text  # row 0's terms all swap
        assert swap_to_group("The caucasian person.", attribute, "r1") == "The black person."
    finally:
        wordlists.unregister_attribute("triples_swap_test")
    for name in ("race", "religion"):  # the built-in attributes have no such term
        caplog.clear()
        with caplog.at_level("WARNING", logger="debias._group_swap"):
            swap_to_group("a text", wordlists.get_attribute(name), wordlists.get_attribute(name).groups[0])
        assert "never swapped" not in caplog.text
