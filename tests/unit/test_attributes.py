"""The attribute registry: built-in gender/race/religion, registering from files in the existing
formats, ambiguity maps, digests, and the attribute hash in every provenance."""

from __future__ import annotations

import hashlib

import pytest

import wordlists
from probekit.errors import InputFileError, InvalidParameterError
from probekit.utils import collect_provenance


def test_builtin_attributes_and_groups():
    assert wordlists.attribute_names()[:3] == ("gender", "race", "religion")
    race = wordlists.get_attribute("race")
    assert race.groups == ("black", "white", "asian", "latino") and race.k == 4
    religion = wordlists.get_attribute("religion")
    assert religion.groups == ("jewish", "christian", "muslim", "hindu", "buddhist", "atheist")
    gender = wordlists.get_attribute("gender")
    assert gender.groups == ("female", "male")
    pairs = wordlists.load_attribute_pairs()
    assert set(pairs.pairs) <= set(gender.rows)
    # the survey's words are all there
    for triple in wordlists.load_survey_cda_words("religion"):
        for group, word in zip(("jewish", "christian", "muslim"), triple):
            assert word in religion.terms(group)
    for word, group in [("black", "black"), ("white", "white"), ("caucasian", "white"), ("asian", "asian")]:
        assert word in race.terms(group)
    # the WEAT names, race by race
    assert {"Darnell", "Lakisha", "Jamal"} <= set(race.terms("black"))
    assert {"Brad", "Emily", "Greg"} <= set(race.terms("white"))


def test_ambiguity_maps():
    race, religion = wordlists.get_attribute("race"), wordlists.get_attribute("religion")
    assert race.rules["black"] == ("person",) and "women" in race.person_nouns
    assert set(religion.rules["christian"]) == {"adjective_noun", "not_before_capitalized"}
    # every word in two rows of one column has a rule that resolves it
    for attribute in (race, religion):
        for word in attribute.ambiguous:
            assert attribute.rules.get(word), word
    assert "her" in wordlists.get_attribute("gender").ambiguous
    assert wordlists.get_attribute("gender").rules["her"] == ("grammar",)


def test_each_term_once_per_column_unless_resolved():
    for name in ("race", "religion"):
        attribute = wordlists.get_attribute(name)
        for g in range(attribute.k):
            column = [r[g].lower() for r in attribute.rows if r[g] is not None]
            for word in {w for w in column if column.count(w) > 1}:
                assert "adjective_noun" in attribute.rules.get(word, ()), (name, word)


def test_register_from_a_table_and_from_word_lists(tmp_path):
    table = tmp_path / "age.tsv"
    table.write_text("# my table\nyoung\told\nyoung\told\nyouth\telder\n-\tpensioner\n", encoding="utf-8")
    rules = tmp_path / "age_ambiguous.tsv"
    rules.write_text("young\tperson\n", encoding="utf-8")
    age = wordlists.register_attribute("age_test", table, ambiguity=rules, source="mine")
    try:
        assert wordlists.get_attribute("age_test") is age
        assert age.groups == ("young", "old") and age.rows[2] == (None, "pensioner")
        assert age.rules == {"young": ("person",)}
        assert "age_test" in wordlists.attribute_names()
        assert "age_test" in collect_provenance()["attributes"]
        with pytest.raises(InvalidParameterError):
            wordlists.register_attribute("age_test", table)
    finally:
        wordlists.unregister_attribute("age_test")
    # one word per line, one file per group (read_word_list's format), aligned by line
    a, b, c = (tmp_path / f"{g}.txt" for g in ("north", "south", "east"))
    a.write_text("northerner\nnortherners\n", encoding="utf-8")
    b.write_text("southerner\nsoutherners\n", encoding="utf-8")
    c.write_text("easterner\n", encoding="utf-8")
    region = wordlists.register_attribute("region_test", a, b, c)
    try:
        assert region.groups == ("north", "south", "east")
        assert region.rows[1] == ("northerners", "southerners", None)
    finally:
        wordlists.unregister_attribute("region_test")
    # a pair file of the gender format, with the groups named
    pairs = tmp_path / "pairs.tsv"
    pairs.write_text("she\the\n", encoding="utf-8")
    pair_attr = wordlists.register_attribute("pairs_test", pairs, groups=("f", "m"))
    wordlists.unregister_attribute("pairs_test")
    assert pair_attr.rows == (("she", "he"),)


def test_register_errors(tmp_path):
    bad = tmp_path / "bad.tsv"
    bad.write_text("a\tb\nonly-one\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="line 2"):
        wordlists.register_attribute("bad_test", bad)
    with pytest.raises(InvalidParameterError):
        wordlists.register_attribute("race", bad)
    rules = tmp_path / "rules.tsv"
    rules.write_text("a\tsometimes\n", encoding="utf-8")
    good = tmp_path / "good.tsv"
    good.write_text("a\tb\nx\ty\n", encoding="utf-8")
    with pytest.raises(InputFileError, match="rule"):
        wordlists.register_attribute("rules_test", good, ambiguity=rules)
    with pytest.raises(InvalidParameterError, match="attribute"):
        wordlists.get_attribute("caste")


def test_digest_covers_rows_rules_and_nouns():
    race = wordlists.get_attribute("race")
    lines = [f"attribute\t{race.name}", "\t".join(race.groups)]
    lines += ["\t".join(c if c is not None else "-" for c in row) for row in race.rows]
    lines += [f"rule\t{w}\t{','.join(r)}" for w, r in sorted(race.rules.items())]
    lines += [f"person\t{w}" for w in sorted(race.person_nouns)]
    assert race.digest == hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()
    changed = wordlists.Attribute("race", race.groups, race.rows[:-1], race.rules, race.person_nouns)
    assert changed.digest != race.digest


def test_provenance_records_every_attribute_hash():
    provenance = collect_provenance(attribute="religion")
    digests = {n: wordlists.get_attribute(n).digest[:16] for n in ("gender", "race", "religion")}
    assert {k: provenance["attributes"][k] for k in digests} == digests
    assert provenance["attribute"]["name"] == "religion"
    assert provenance["attribute"]["digest"] == wordlists.get_attribute("religion").digest
    assert collect_provenance()["attribute"] is None
