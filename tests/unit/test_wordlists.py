"""Tests of the project's word lists and of the readers for third-party word-list formats."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from pathlib import Path

import pytest

import wordlists as W
from probekit.errors import InputFileError, InvalidParameterError
from probekit.text import WordMatcher
from probekit.utils import hash_words

REFERENCE = Path(__file__).parents[2].parent / "shared" / "reference"


@pytest.fixture(scope="module")
def ref() -> Path:
    if not REFERENCE.is_dir():
        pytest.skip(f"reference data not found at {REFERENCE}")
    return REFERENCE


def sha(words) -> str:
    return hashlib.sha256("\n".join(words).encode("utf-8")).hexdigest()


# ------------------------------------------------------------------------------------------
# attribute pairs and swap map
# ------------------------------------------------------------------------------------------


def test_attribute_pairs_aligned_and_unique():
    pairs = W.load_attribute_pairs()
    assert len(pairs.female) == len(pairs.male) == len(pairs) >= 100
    assert len(set(pairs.female)) == len(pairs.female)
    assert len(set(pairs.male)) == len(pairs.male)
    assert not set(pairs.female) & set(pairs.male)
    assert all(f != m for f, m in pairs.pairs)
    for pair in [("she", "he"), ("her", "his"), ("herself", "himself"), ("woman", "man"),
                 ("mother", "father"), ("queen", "king"), ("actress", "actor"), ("niece", "nephew")]:
        assert pair in pairs.pairs
    assert pairs[0] == (pairs.female[0], pairs.male[0])
    assert list(pairs) == list(pairs.pairs)


def test_attribute_pairs_file_alignment_by_line():
    # Independent read of the TSV: line i gives pair i.
    rows = [line.split("\t") for line in W.data_path("attribute_pairs.tsv").read_text("utf-8").splitlines()
            if line.strip() and not line.startswith("#")]
    pairs = W.load_attribute_pairs()
    assert [tuple(r) for r in rows] == list(pairs.pairs)


def test_swap_map_her_is_ambiguous():
    swap = W.load_attribute_pairs().swap_map
    assert swap.candidates("her") == ("his", "him")
    assert swap.is_ambiguous("her") and "her" in swap.ambiguous
    assert set(swap.candidates("his")) == {"her", "hers"}
    assert swap.candidates("him") == ("her",)
    assert swap.candidates("hers") == ("his",)
    assert swap.candidates("she") == ("he",) and not swap.is_ambiguous("she")
    assert swap.candidates("Her") == ("His", "Him")
    assert swap.candidates("HER") == ("HIS", "HIM")
    assert swap.candidates("table") == ()


def test_swap_map_symmetric_for_every_pair():
    pairs = W.load_attribute_pairs()
    swap = pairs.swap_map
    for f, m in pairs.pairs + pairs.extra_swaps:
        assert m in swap.candidates(f)
        assert f in swap.candidates(m)
    # Unambiguous words map back to themselves.
    for word in swap.words:
        if not swap.is_ambiguous(word):
            (other,) = swap.candidates(word)
            assert word in [c.lower() for c in swap.candidates(other)]


def test_paper_words_covered_by_pairs():
    pairs = W.load_attribute_pairs()
    female = set(pairs.female) | {a for a, _ in pairs.extra_swaps}
    male = set(pairs.male) | {b for _, b in pairs.extra_swaps}
    paper_f, paper_m = W.load_paper_attributes()
    unpaired_f = [w for w in paper_f if w not in female]
    unpaired_m = [w for w in paper_m if w not in male]
    assert set(unpaired_f) | set(unpaired_m) == set(W.PAPER_UNPAIRED)
    assert "him" in male and "him" not in pairs.male  # covered by the extra swaps only


# ------------------------------------------------------------------------------------------
# the paper's lists
# ------------------------------------------------------------------------------------------


def _papers_md_list(text: str, label: str, next_label: str | None) -> list[str]:
    section = text[text.index("**Word lists (paper appendix"):]
    start = section.index(label) + len(label)
    end = section.index(next_label, start) if next_label else len(section)
    body = section[start:end].split("\n\n")[0]
    return re.sub(r"\.\s*$", "", " ".join(body.split())).split()


def test_paper_lists_exactly_as_papers_md(ref):
    text = (ref / "PAPERS.md").read_text("utf-8")
    attrs, stereos = W.load_paper_attributes(), W.load_paper_stereotypes()
    assert list(attrs.female) == _papers_md_list(text, "Female attribute:", "Male attribute:")
    assert list(attrs.male) == _papers_md_list(text, "Male attribute:", "Female stereotypes:")
    assert list(stereos.female) == _papers_md_list(text, "Female stereotypes:", "Male stereotypes:")
    assert list(stereos.male) == _papers_md_list(text, "Male stereotypes:", None)


def test_paper_lists_sizes_order_and_digests():
    female, male = W.load_paper_attributes()
    sf, sm = W.load_paper_stereotypes()
    assert (len(female), len(male), len(sf), len(sm)) == (75, 116, 21, 30)
    assert (female[0], female[-1], male[0], male[-1]) == ("witches", "grandmother", "wizards", "grandfather")
    assert (sf[0], sf[-1], sm[0], sm[-1]) == ("beauty", "chairperson", "warrior", "clergy")
    for wl in (female, male, sf, sm):
        assert wl.digest == sha(wl.words)
        assert hash_words(wl.words) == wl.digest[:16]
        assert len(set(wl.words)) == len(wl.words)
    # The paper's lists are facts: their digests must never change.
    assert sha(female.words) == female.digest == W.load_paper_attributes().female.digest
    # maid is both a female attribute and a female stereotype word in the paper.
    assert "maid" in female and "maid" in sf


def test_digests_stable_across_loads_and_recomputed():
    pairs = W.load_attribute_pairs()
    assert pairs.digest == sha(f"{f}\t{m}" for f, m in pairs.pairs)
    rebuilt = W.AttributePairs(female=pairs.female, male=pairs.male)
    assert rebuilt.digest == pairs.digest
    names = W.load_names()
    assert names.digest == sha(f"{f}\t{m}" for f, m in names.pairs)
    test = W.load_seat_test("weat6")
    parts = []
    for s in test.sets:
        parts += [s.name, *s.words]
    assert test.digest == sha(parts)


# ------------------------------------------------------------------------------------------
# names
# ------------------------------------------------------------------------------------------


def test_names_aligned_unique_and_disjoint():
    names = W.load_names()
    assert len(names.female) == len(names.male) >= 250
    assert len(set(names.female)) == len(names.female)
    assert len(set(names.male)) == len(names.male)
    assert not {n.lower() for n in names.female} & {n.lower() for n in names.male}
    assert all(n[0].isupper() for n in names.names)
    assert names.common_words <= set(names.names)
    assert {"Will", "Mark", "Rose", "May"} <= names.common_words
    assert ("Danielle", "Daniel") in names.pairs and ("Paula", "Paul") in names.pairs
    assert names.swap_map.candidates("Danielle") == ("Daniel",)
    assert names.swap_map.candidates("daniel") == ("Danielle",)


def test_names_are_not_attribute_or_stereotype_words():
    names = {n.lower() for n in W.load_names().names}
    words = {w.lower() for w in W.builtin_words()}
    seat_names = set()
    for test in W.load_seat_tests().values():
        for s in test.sets:
            if s.name.endswith("Names"):
                seat_names |= {w.lower() for w in s}
    assert seat_names <= names  # SEAT names are in the name lists
    assert names & words == seat_names


# ------------------------------------------------------------------------------------------
# SEAT tests
# ------------------------------------------------------------------------------------------


def test_seat_test_names_and_aliases():
    assert W.seat_test_names() == ("weat6", "weat6b", "weat7", "weat7b", "weat8", "weat8b")
    assert W.load_seat_test("seat6b").name == "weat6b"
    assert W.load_seat_test("6B").name == "weat6b"
    assert W.load_seat_test("sent-weat7").name == "weat7"
    with pytest.raises(InvalidParameterError) as info:
        W.load_seat_test("weat9")
    assert info.value.parameter == "name" and "weat6b" in str(info.value)


def test_seat_tests_structure():
    t = W.load_seat_test("weat6")
    assert t.categories == ("MaleNames", "FemaleNames", "Career", "Family")
    assert all(len(s) == 8 for s in t.sets)
    assert W.load_seat_test("weat7").categories == ("Math", "Arts", "MaleTerms", "FemaleTerms")
    assert W.load_seat_test("weat8b").categories == ("Science", "Arts", "MaleNames", "FemaleNames")
    assert "her" in W.load_seat_test("weat8").attribute_2


@pytest.mark.parametrize("name", ["weat6", "weat6b", "weat7", "weat7b", "weat8", "weat8b"])
def test_seat_tests_agree_with_reference_jsonl(ref, name):
    published = json.loads((ref / "sent_debias_gender_tests" / f"{name}.jsonl").read_text("utf-8"))
    ours = W.load_seat_test(name)
    for key, ours_set in zip(("targ1", "targ2", "attr1", "attr2"), ours.sets):
        assert ours_set.name == published[key]["category"]
        assert sorted(ours_set.words) == sorted(published[key]["examples"])


# ------------------------------------------------------------------------------------------
# slot types
# ------------------------------------------------------------------------------------------


def test_every_builtin_word_has_valid_slot_types():
    for word in W.builtin_words():
        types = W.slot_types(word)
        assert types and set(types) <= set(W.SLOT_TYPES), word
    attrs, stereos = W.load_paper_attributes(), W.load_paper_stereotypes()
    for word in attrs.words + stereos.words:
        assert W.slot_type(word) in W.SLOT_TYPES


def test_slot_type_examples():
    assert W.slot_types("her") == ("object_pronoun", "possessive_determiner")
    assert W.slot_types("his") == ("possessive_determiner", "possessive_pronoun")
    assert W.slot_type("She") == "subject_pronoun"
    assert W.slot_type("herself") == "reflexive_pronoun"
    assert W.slot_type("nurses") == "person_plural"
    assert W.slot_type("cooking") == "activity"
    assert W.slot_type("pretty") == "adjective"
    assert W.slot_type("Danielle") == "name"  # from the name lists
    with pytest.raises(InvalidParameterError):
        W.slot_type("midwife")


# ------------------------------------------------------------------------------------------
# types
# ------------------------------------------------------------------------------------------


def test_types_are_frozen_and_validate():
    wl = W.WordList("x", ("a", "b"))
    with pytest.raises(dataclasses.FrozenInstanceError):
        wl.name = "y"  # type: ignore[misc]
    with pytest.raises(InvalidParameterError):
        W.WordList("x", "nurse")  # a single string is not a list of words
    with pytest.raises(InvalidParameterError):
        W.WordList("x", ("a", ""))
    with pytest.raises(InvalidParameterError):
        W.AttributePairs(female=("she", "her"), male=("he",))
    assert W.TermSet is W.WordList
    assert wl.to_dict()["digest"] == sha(["a", "b"])


# ------------------------------------------------------------------------------------------
# readers on the reference files
# ------------------------------------------------------------------------------------------


def _lines(path: Path) -> list[str]:
    return [line.strip() for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.mark.parametrize("folder,female,male", [
    ("context_debias", "female.txt", "male.txt"),
    ("gn_glove", "female_word_file.txt", "male_word_file.txt"),
])
def test_read_pair_files_reference(ref, folder, female, male):
    pairs = W.read_pair_files(ref / folder / female, ref / folder / male)
    assert list(pairs.female) == _lines(ref / folder / female)
    assert list(pairs.male) == _lines(ref / folder / male)
    assert len(pairs) == 222
    assert pairs[0] == ("countrywoman", "countryman")
    assert pairs.name == folder
    # The published lists repeat some words; alignment is kept, and her maps to his and him.
    assert pairs.female.count("ladies") > 1
    assert set(pairs.swap_map.candidates("her")) >= {"his", "him"}


def test_read_word_list_reference(ref):
    wl = W.read_word_list(ref / "context_debias" / "stereotype.txt")
    assert list(wl) == _lines(ref / "context_debias" / "stereotype.txt")
    assert len(wl) == 168 and wl.name == "stereotype"


@pytest.mark.parametrize("name", ["weat6", "weat6b", "weat7", "weat7b", "weat8", "weat8b"])
def test_read_seat_jsonl_reference(ref, name):
    for prefix in ("", "sent-"):
        path = ref / "sent_debias_gender_tests" / f"{prefix}{name}.jsonl"
        raw = json.loads(path.read_text("utf-8"))
        test = W.read_seat_jsonl(path)
        assert test.name == f"{prefix}{name}"
        for key, s in zip(("targ1", "targ2", "attr1", "attr2"), test.sets):
            assert s.name == raw[key]["category"]
            assert list(s.words) == raw[key]["examples"]


def test_read_seat_word_sentences_reference(ref):
    path = ref / "sent_debias_gender_tests" / "word2sents6.jsonl"
    got = W.read_seat_word_sentences(path)
    raw = json.loads(path.read_text("utf-8"))
    assert {k: list(v) for k, v in got.items()} == raw
    assert set(W.load_seat_test("weat6").words) <= set(got)


def test_read_bolukbasi_pairs_reference(ref):
    definitional = W.read_bolukbasi_pairs(ref / "debiaswe" / "definitional_pairs.json")
    raw = json.loads((ref / "debiaswe" / "definitional_pairs.json").read_text("utf-8"))
    assert [list(p) for p in definitional.pairs] == raw  # already female first
    assert W.read_bolukbasi_pairs(ref / "debiaswe" / "definitional_pairs.json", order="male_first").female == tuple(
        m for _, m in raw
    )
    equalize = W.read_bolukbasi_pairs(ref / "debiaswe" / "equalize_pairs.json")
    raw_eq = json.loads((ref / "debiaswe" / "equalize_pairs.json").read_text("utf-8"))
    assert len(equalize) == len(raw_eq) == 52
    assert {frozenset(p) for p in equalize.pairs} == {frozenset(p) for p in raw_eq}
    for expected in [("convent", "monastery"), ("wives", "husbands"), ("nun", "Catholic_priest"),
                     ("twin_sister", "twin_brother"), ("ex_girlfriend", "ex_boyfriend"), ("She", "He"),
                     ("ovarian_cancer", "prostate_cancer"), ("granny", "fella")]:
        assert expected in equalize.pairs
    with pytest.raises(InvalidParameterError):
        W.read_bolukbasi_pairs(ref / "debiaswe" / "equalize_pairs.json", order="sideways")


def test_read_gender_specific_and_professions_reference(ref):
    gs = W.read_gender_specific(ref / "debiaswe" / "gender_specific_full.json")
    assert list(gs) == json.loads((ref / "debiaswe" / "gender_specific_full.json").read_text("utf-8"))
    assert len(gs) == 1441
    prof = W.read_professions(ref / "debiaswe" / "professions.json")
    raw = json.loads((ref / "debiaswe" / "professions.json").read_text("utf-8"))
    assert len(prof) == len(raw) == 320
    assert prof.scores("actress") == (-1.0, 0.0)
    assert prof.scores("accountant") == (0.0, 0.4)
    assert prof.as_mapping() == {w: (float(d), float(s)) for w, d, s in raw}


# ------------------------------------------------------------------------------------------
# reader errors
# ------------------------------------------------------------------------------------------


def test_reader_errors_missing_and_non_utf8(tmp_path):
    missing = tmp_path / "nope.txt"
    with pytest.raises(InputFileError, match="nope.txt"):
        W.read_word_list(missing)
    bad = tmp_path / "latin.txt"
    bad.write_bytes(b"nurse\ncaf\xe9\n")
    with pytest.raises(InputFileError) as info:
        W.read_word_list(bad)
    message = str(info.value)
    assert "latin.txt" in message and "byte offset 9" in message and "UTF-8" in message
    assert isinstance(info.value, ValueError)


def test_reader_errors_pair_files(tmp_path):
    f, m = tmp_path / "female.txt", tmp_path / "male.txt"
    f.write_text("she\nher\nwoman\n", "utf-8")
    m.write_text("he\nhis\n", "utf-8")
    with pytest.raises(InputFileError) as info:
        W.read_pair_files(f, m)
    assert "female.txt" in str(info.value) and "male.txt" in str(info.value)
    assert "3 lines" in str(info.value) and "2" in str(info.value)
    m.write_text("he\n\nman\n", "utf-8")
    with pytest.raises(InputFileError, match="line 2"):
        W.read_pair_files(f, m)
    m.write_text("he\nhis\nman\n\n", "utf-8")  # trailing blank lines are fine
    assert W.read_pair_files(f, m).pairs == (("she", "he"), ("her", "his"), ("woman", "man"))


def test_reader_errors_json(tmp_path):
    bad = tmp_path / "weat.jsonl"
    bad.write_text('{"targ1": {"category": "A", "examples": ["x"]},\n "targ2": [}', "utf-8")
    with pytest.raises(InputFileError) as info:
        W.read_seat_jsonl(bad)
    assert "weat.jsonl" in str(info.value) and "line" in str(info.value)
    partial = tmp_path / "partial.jsonl"
    partial.write_text(json.dumps({"targ1": {"category": "A", "examples": ["x"]}}), "utf-8")
    with pytest.raises(InputFileError, match="targ2, attr1, attr2"):
        W.read_seat_jsonl(partial)
    # JSON Lines with the keys spread over lines is accepted.
    lines = tmp_path / "lines.jsonl"
    lines.write_text("\n".join(json.dumps({k: {"category": k.upper(), "examples": [k + "1", k + "2"]}})
                               for k in ("targ1", "targ2", "attr1", "attr2")) + "\n", "utf-8")
    test = W.read_seat_jsonl(lines)
    assert test.categories == ("TARG1", "TARG2", "ATTR1", "ATTR2") and test.attribute_2.words == ("attr21", "attr22")
    pairs = tmp_path / "pairs.json"
    pairs.write_text('[["woman", "man"], ["girl"]]', "utf-8")
    with pytest.raises(InputFileError, match="item 1"):
        W.read_bolukbasi_pairs(pairs)
    prof = tmp_path / "professions.json"
    prof.write_text('[["nurse", -0.1, "high"]]', "utf-8")
    with pytest.raises(InputFileError, match="item 0"):
        W.read_professions(prof)
    notlist = tmp_path / "gs.json"
    notlist.write_text('{"he": 1}', "utf-8")
    with pytest.raises(InputFileError, match="JSON list"):
        W.read_gender_specific(notlist)


def test_wordmatcher_finds_builtin_multiword_and_hyphenated_terms():
    matcher = WordMatcher(W.builtin_words())
    found = [w for w, _, _ in matcher.finditer("My mother-in-law met the HEIR and his ma'am.")]
    assert found == ["mother-in-law", "heir", "his", "ma'am"]
