"""Tests of corpus loading, sentence splitting, the template corpus and sentence selection."""

from __future__ import annotations

import collections.abc
import hashlib
import logging
import random
import re
import warnings

import numpy as np
import pytest

import wordlists as W
from probekit.errors import InputFileError, InvalidParameterError, MissingSentencesError, ProbekitError
from probekit.text import (
    Corpus,
    WordMatcher,
    compile_word_pattern,
    indefinite_article,
    load_hf_corpus,
    load_text_corpus,
    select_sentences,
    split_sentences,
    template_corpus,
    template_frames,
)

# ------------------------------------------------------------------------------------------
# Corpus
# ------------------------------------------------------------------------------------------


def test_corpus_digest_and_sequence():
    c = Corpus(("One sentence.", "Two sentences."), name="x", source="test")
    assert c.digest == hashlib.sha256("One sentence.\nTwo sentences.".encode()).hexdigest()
    assert isinstance(c, collections.abc.Sequence)
    assert len(c) == 2 and c[1] == "Two sentences." and list(c) == list(c.sentences)
    assert Corpus(["One sentence.", "Two sentences."]).digest == c.digest
    assert Corpus(("Two sentences.", "One sentence.")).digest != c.digest
    assert c.describe() == {"name": "x", "source": "test", "n_sentences": 2, "digest": c.digest}
    with pytest.raises(InvalidParameterError):
        Corpus("not a list")
    with pytest.raises(InvalidParameterError):
        Corpus(("fine", 3))


def test_corpus_round_trip_through_text_file(tmp_path):
    c = Corpus(("First line.", "Second  line\nwrapped."))
    path = c.to_text_file(tmp_path / "c.txt")
    back = load_text_corpus(path)
    assert back.sentences == ("First line.", "Second line wrapped.")


# ------------------------------------------------------------------------------------------
# text files
# ------------------------------------------------------------------------------------------


def test_load_text_corpus_lines(tmp_path):
    path = tmp_path / "corpus.txt"
    path.write_text("  The nurse arrived.  \n\n\nShe smiled.\n   \nThe end.", "utf-8")
    c = load_text_corpus(path)
    assert c.sentences == ("The nurse arrived.", "She smiled.", "The end.")
    assert c.name == "corpus.txt" and "corpus.txt" in c.source and "lines" in c.source


def test_load_text_corpus_bom_and_crlf(tmp_path):
    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeffFirst.\r\nSecond.\r\n".encode("utf-8"))
    assert load_text_corpus(path).sentences == ("First.", "Second.")


def test_load_text_corpus_non_utf8(tmp_path):
    path = tmp_path / "latin1.txt"
    data = "The café was full.\n".encode("latin-1")
    path.write_bytes(b"First line.\n" + data)
    offset = len(b"First line.\n") + len("The caf".encode())
    with pytest.raises(InputFileError) as info:
        load_text_corpus(path)
    message = str(info.value)
    assert "latin1.txt" in message
    assert f"byte offset {offset}" in message
    assert "encoding" in message
    c = load_text_corpus(path, encoding="latin-1")
    assert c.sentences == ("First line.", "The café was full.")


def test_load_text_corpus_errors(tmp_path):
    with pytest.raises(InputFileError, match="not found"):
        load_text_corpus(tmp_path / "missing.txt")
    with pytest.raises(InputFileError, match="directory"):
        load_text_corpus(tmp_path)
    empty = tmp_path / "empty.txt"
    empty.write_text("\n  \n", "utf-8")
    with pytest.raises(InputFileError, match="no sentences"):
        load_text_corpus(empty)
    ok = tmp_path / "ok.txt"
    ok.write_text("Fine.\n", "utf-8")
    with pytest.raises(InvalidParameterError) as info:
        load_text_corpus(ok, mode="words")
    assert info.value.parameter == "mode" and "'paragraphs'" in str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        load_text_corpus(ok, encoding="no-such-codec")
    assert info.value.parameter == "encoding"


def test_load_text_corpus_paragraphs(tmp_path):
    text = (
        "Dr. Smith met Mr. Jones at 3.30 p.m. on Monday. They talked about\n"
        "the results, e.g. the 2.5% increase. \"Is it real?\" she asked.\n"
        "\n"
        "J. K. Rowling lives in the U.K. today.   The end!\n"
        "\n\n"
        "A paragraph without a final period"
    )
    path = tmp_path / "doc.txt"
    path.write_text(text, "utf-8")
    c = load_text_corpus(path, mode="paragraphs")
    assert c.sentences == (
        "Dr. Smith met Mr. Jones at 3.30 p.m. on Monday.",
        "They talked about the results, e.g. the 2.5% increase.",
        "\"Is it real?\" she asked.",
        "J. K. Rowling lives in the U.K. today.",
        "The end!",
        "A paragraph without a final period",
    )


@pytest.mark.parametrize("text,expected", [
    ("It rained. We stayed inside.", ["It rained.", "We stayed inside."]),
    ("Is it true? Yes! It is.", ["Is it true?", "Yes!", "It is."]),
    ("Prof. Lee and Dr. Kim arrived.", ["Prof. Lee and Dr. Kim arrived."]),
    ("The value is 3.14 exactly. Next one.", ["The value is 3.14 exactly.", "Next one."]),
    ('He said "Stop." Then he left.', ['He said "Stop."', "Then he left."]),
    ('"Really?" she asked.', ['"Really?" she asked.']),
    ("See Fig. 3 for details. It helps.", ["See Fig. 3 for details.", "It helps."]),
    ("Apples, pears, etc. The list goes on.", ["Apples, pears, etc.", "The list goes on."]),
    ("(This is quoted.) Then more.", ["(This is quoted.)", "Then more."]),
    ("Wait... What happened?", ["Wait...", "What happened?"]),
    ("Version 2. It works.", ["Version 2.", "It works."]),
    ("I love art. It helps. The answer was no. We left.", ["I love art.", "It helps.", "The answer was no.", "We left."]),
    ("See No. 5 and p. 12 here.", ["See No. 5 and p. 12 here."]),
    ("lower case after period. still one? yes.", ["lower case after period. still one? yes."]),
    ("", []),
])
def test_split_sentences(text, expected):
    assert split_sentences(text) == expected


# ------------------------------------------------------------------------------------------
# Hugging Face datasets (local files only)
# ------------------------------------------------------------------------------------------

datasets = pytest.importorskip("datasets")


def test_load_hf_corpus_saved_dataset(tmp_path):
    ds = datasets.Dataset.from_dict({"text": ["First one.", "", None, "Second one. Third one."], "label": [0, 1, 0, 1]})
    ds.save_to_disk(str(tmp_path / "saved"))
    c = load_hf_corpus(tmp_path / "saved")
    assert c.sentences == ("First one.", "Second one. Third one.")
    assert "saved" in c.source
    c2 = load_hf_corpus(tmp_path / "saved", split_sentences=True)
    assert c2.sentences == ("First one.", "Second one.", "Third one.")
    c3 = load_hf_corpus(tmp_path / "saved", split_sentences=True, max_sentences=2)
    assert c3.sentences == ("First one.", "Second one.")
    with pytest.raises(InvalidParameterError) as info:
        load_hf_corpus(tmp_path / "saved", text_column="sentence")
    assert info.value.parameter == "text_column"
    assert "'text'" in str(info.value) and "'label'" in str(info.value) and "'sentence'" in str(info.value)
    with pytest.raises(InvalidParameterError):
        load_hf_corpus(tmp_path / "saved", max_sentences=0)


def test_load_hf_corpus_saved_dataset_dict(tmp_path):
    dd = datasets.DatasetDict({
        "train": datasets.Dataset.from_dict({"sentence": ["Train sentence."]}),
        "test": datasets.Dataset.from_dict({"sentence": ["Test sentence."]}),
    })
    dd.save_to_disk(str(tmp_path / "dd"))
    assert load_hf_corpus(tmp_path / "dd", text_column="sentence", split="test").sentences == ("Test sentence.",)
    with pytest.raises(InvalidParameterError) as info:
        load_hf_corpus(tmp_path / "dd", text_column="sentence", split="validation")
    assert info.value.parameter == "split" and "'test'" in str(info.value)


def test_load_hf_corpus_data_files(tmp_path):
    csv = tmp_path / "data.csv"
    csv.write_text('id,body\n1,"The first, with a comma."\n2,The second.\n', "utf-8")
    c = load_hf_corpus(csv, text_column="body", cache_dir=tmp_path / "cache")
    assert c.sentences == ("The first, with a comma.", "The second.")
    jsonl = tmp_path / "data.jsonl"
    jsonl.write_text('{"text": "From json."}\n{"text": "Again."}\n', "utf-8")
    assert load_hf_corpus(jsonl, cache_dir=tmp_path / "cache").sentences == ("From json.", "Again.")
    with pytest.raises(InvalidParameterError) as info:
        load_hf_corpus(csv, cache_dir=tmp_path / "cache")
    assert "'body'" in str(info.value) and "'id'" in str(info.value)


def test_load_hf_corpus_offline_hub_name(monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    with pytest.raises(ProbekitError) as info:
        load_hf_corpus("someone/some-corpus-that-is-not-local")
    assert "local path" in str(info.value)
    assert "someone/some-corpus-that-is-not-local" in str(info.value)


# ------------------------------------------------------------------------------------------
# template corpus
# ------------------------------------------------------------------------------------------


def test_at_least_100_frames_per_slot_type_and_well_formed():
    for slot in W.SLOT_TYPES:
        frames = template_frames(slot)
        assert len(frames) >= 100, slot
        assert len(set(frames)) == len(frames), slot
        for frame in frames:
            assert frame.count("{w}") + frame.count("{W}") == 1, frame
            rest = re.sub(r"\{[wWaA]\}", "", frame)
            assert "{" not in rest and "}" not in rest, frame
            for art in ("{a}", "{A}"):
                if art in frame:
                    assert art + " {w}" in frame, frame
    with pytest.raises(InvalidParameterError):
        template_frames("verb")


def test_frames_contain_no_attribute_word_stereotype_word_or_name():
    vocabulary = WordMatcher(W.builtin_words(), case_sensitive=False)
    names = WordMatcher(W.load_names().names, case_sensitive=True)
    for slot in W.SLOT_TYPES:
        for frame in template_frames(slot):
            text = re.sub(r"\{[wWaA]\}", " ", frame)
            assert not vocabulary.find(text), (slot, frame, vocabulary.find(text))
            assert not names.find(text), (slot, frame, names.find(text))


@pytest.fixture(scope="module")
def templates() -> Corpus:
    return template_corpus()


def test_template_corpus_covers_every_paper_word(templates):
    attrs, stereos = W.load_paper_attributes(), W.load_paper_stereotypes()
    words = attrs.words + stereos.words
    sel = select_sentences(templates, words, on_missing="error")
    assert not sel.missing
    assert min(sel.available.values()) >= 100
    # Stereotype sentences are free of attribute words (maid is in both lists: only itself).
    stereo_sel = select_sentences(templates, stereos.words, exclude_words=attrs.words + W.load_attribute_pairs().words,
                                  on_missing="error")
    assert sum(stereo_sel.excluded.values()) == 0
    assert min(stereo_sel.available.values()) >= 100


def test_template_corpus_every_sentence_contains_exactly_its_word(templates):
    vocabulary = WordMatcher(W.builtin_words(), case_sensitive=False)
    builtin = {w.lower() for w in W.builtin_words()}
    other_names = WordMatcher([n for n in W.load_names().names if n.lower() not in builtin], case_sensitive=True)
    for sentence in templates.sentences[::3]:
        found = vocabulary.find(sentence) + other_names.find(sentence)
        assert len(found) == 1, (sentence, found)


def test_template_corpus_deterministic_and_articles(templates):
    again = template_corpus()
    assert again.digest == templates.digest and again.sentences == templates.sentences
    text = "\n".join(templates.sentences)
    assert "I met an actress on the train yesterday." in text
    assert "I met a nurse on the train yesterday." in text
    assert "I met an heir on the train yesterday." in text
    assert "I met an uncle on the train yesterday." in text
    assert "We saw a ewe on the way to the village." in text
    assert "An engineer was waiting outside when the doors opened." in text
    assert "She walked into the room and sat down." in text
    assert "I borrowed her bicycle for the afternoon." in text and "I saw her at the market yesterday." in text
    assert not re.search(r"\ba [aeiou]", text.replace("a ewe", "")), re.search(r".{30}\ba [aeiou].{30}", text)
    assert len(templates) == len(set(templates.sentences))


@pytest.mark.parametrize("word,article", [
    ("actress", "an"), ("heir", "an"), ("heiress", "an"), ("hour", "an"), ("honest", "an"), ("uncle", "an"),
    ("ewe", "a"), ("uniform", "a"), ("user", "a"), ("one-off", "a"), ("nurse", "a"), ("European", "a"),
    ("engineer", "an"), ("Umbrella", "an"), ("house", "a"),
])
def test_indefinite_article(word, article):
    assert indefinite_article(word) == article


def test_template_corpus_custom_words_and_sampling():
    c = template_corpus({"midwife": "person_singular", "quilting": ["activity", "mass_noun"]})
    n_expected = len(template_frames("person_singular")) + len(template_frames("activity")) + len(template_frames("mass_noun"))
    assert len(c) == n_expected
    assert "I met a midwife on the train yesterday." in c.sentences
    c2 = template_corpus(["nurse", "she"])
    assert len(c2) == len(template_frames("person_singular")) + len(template_frames("subject_pronoun"))
    s1 = template_corpus(["nurse", "engineer"], frames_per_word=5, random_state=3)
    s2 = template_corpus(["nurse", "engineer"], frames_per_word=5, random_state=3)
    s3 = template_corpus(["nurse", "engineer"], frames_per_word=5, random_state=4)
    assert s1.sentences == s2.sentences and len(s1) == 10
    assert s1.sentences != s3.sentences
    with pytest.raises(InvalidParameterError):
        template_corpus(["midwife"])
    with pytest.raises(InvalidParameterError):
        template_corpus({"midwife": "occupation"})
    with pytest.raises(InvalidParameterError):
        template_corpus("nurse")
    with pytest.raises(InvalidParameterError):
        template_corpus(["nurse"], frames_per_word=0)


# ------------------------------------------------------------------------------------------
# sentence selection
# ------------------------------------------------------------------------------------------


def brute_force(sentences, words, exclude, case_sensitive):
    """Per word: the distinct sentences (first occurrence) that contain it as a whole word and
    no excluded word other than itself; one regex per word and sentence. Case-sensitive matching
    also takes a capitalized first letter at the very start, unless that form is listed itself."""
    flags = 0 if case_sensitive else re.IGNORECASE
    listed = set(words) | set(exclude)

    def has(word, s):
        if re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", s, flags) is not None:
            return True
        capitalized = word[:1].upper() + word[1:]
        return (case_sensitive and capitalized != word and capitalized not in listed
                and re.match(re.escape(capitalized) + r"(?!\w)", s) is not None)

    def same(a, b):
        return a == b if case_sensitive else a.lower() == b.lower()

    selected = {w: [] for w in words}
    excluded = {w: 0 for w in words}
    seen = set()
    for s in sentences:
        if s in seen:
            continue
        targets = [w for w in words if has(w, s)]
        if not targets:
            continue
        seen.add(s)
        for w in targets:
            if any(has(x, s) and not same(x, w) for x in exclude):
                excluded[w] += 1
            else:
                selected[w].append(s)
    return selected, excluded


VOCAB = ["he", "she", "the", "nurse", "nurses", "Nurse", "NURSE", "engineer", "her", "hers", "his",
         "he's", "she-wolf", "others", "table", "theory", "Engineer", "sheet", "mother", "motherly",
         "boss", "bossy", "_he", "he1", "maid", "maids", "1he"]


def random_corpus(n, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        words = [rng.choice(VOCAB) for _ in range(rng.randint(1, 6))]
        out.append(" ".join(words) + rng.choice([".", "!", "?", ",", ""]))
    return out + out[:20]  # some exact duplicates


@pytest.mark.parametrize("case_sensitive", [False, True])
def test_select_sentences_matches_brute_force(case_sensitive):
    sentences = random_corpus(800, seed=1)
    words = ["he", "nurse", "engineer", "her", "boss", "maid", "Sheet"]
    exclude = ["she", "mother", "his", "maid"]
    sel = select_sentences(sentences, words, exclude_words=exclude, case_sensitive=case_sensitive, on_missing="ignore")
    expected, expected_excluded = brute_force(sentences, words, exclude, case_sensitive)
    for w in words:
        assert list(sel.sentences_for(w)) == expected[w], w
        assert sel.available[w] == len(expected[w])
        assert sel.excluded[w] == expected_excluded[w]
    assert set(sel.missing) == {w for w in words if not expected[w]}
    union = {s for w in words for s in expected[w]}
    assert set(sel.sentences) == union and len(sel.sentences) == len(union)
    assert [sentences[i] for i in sel.corpus_indices] == list(sel.sentences)
    assert list(sel.corpus_indices) == sorted(sel.corpus_indices)


def test_select_sentences_exclusion_and_multiword():
    corpus = ["The nurse smiled.", "She is a nurse.", "The head nurse left.", "The maid and the nurse.",
              "The maid waved.", "The maid and her friend."]
    sel = select_sentences(corpus, ["nurse", "maid", "head nurse"], exclude_words=["she", "her", "maid"])
    assert sel.sentences_for("nurse") == ("The nurse smiled.",)
    assert sel.excluded["nurse"] == 2
    # "head nurse" is the longer term: it hides "nurse" in that sentence.
    assert sel.sentences_for("head nurse") == ("The head nurse left.",)
    # maid is also an excluded word: its own sentences stay unless another excluded word occurs.
    assert sel.sentences_for("maid") == ("The maid and the nurse.", "The maid waved.")
    assert sel.excluded["maid"] == 1


def test_select_sentences_case_handling():
    corpus = ["She left.", "she left early.", "SHE LEFT!", "The shed."]
    assert len(select_sentences(corpus, ["she"]).sentences_for("she")) == 3
    sel = select_sentences(corpus, ["she"], case_sensitive=True)
    assert sel.sentences_for("she") == ("She left.", "she left early.")  # a capital at the start is the same word
    sel = select_sentences(corpus, ["She", "she"])  # case variants are one word
    assert sel.words == ("She",) and len(sel.sentences_for("She")) == 3
    sel = select_sentences(corpus, ["She", "she"], case_sensitive=True)
    assert sel.words == ("She", "she")


def test_select_sentences_cap_and_seed():
    corpus = [f"Sentence {i} about the nurse and the engineer." for i in range(50)] + \
             [f"Only the nurse, number {i}." for i in range(30)]
    full = select_sentences(corpus, ["nurse", "engineer"])
    a = select_sentences(corpus, ["nurse", "engineer"], max_per_word=7, random_state=11)
    b = select_sentences(corpus, ["nurse", "engineer"], max_per_word=7, random_state=11)
    c = select_sentences(corpus, ["nurse", "engineer"], max_per_word=7, random_state=12)
    assert a.sentences == b.sentences and dict(a.indices) == dict(b.indices)
    assert a.sentences != c.sentences
    for w in ("nurse", "engineer"):
        assert len(a.indices[w]) == 7
        assert list(a.indices[w]) == sorted(a.indices[w])
        assert set(a.sentences_for(w)) <= set(full.sentences_for(w))
        assert a.available[w] == full.available[w]
    # Independent reproduction of the draw: one default_rng, words in the order given.
    rng = np.random.default_rng(11)
    nurse_all = full.sentences_for("nurse")
    keep = np.sort(rng.choice(len(nurse_all), size=7, replace=False))
    assert a.sentences_for("nurse") == tuple(nurse_all[i] for i in keep)
    gen = select_sentences(corpus, ["nurse"], max_per_word=5, random_state=np.random.default_rng(0))
    assert len(gen.sentences) == 5
    small = select_sentences(corpus, ["engineer"], max_per_word=1000, random_state=0)
    assert small.sentences_for("engineer") == full.sentences_for("engineer")


def test_select_sentences_missing_error_warn_ignore(caplog):
    corpus = ["The nurse smiled.", "The engineer waved."]
    with pytest.raises(MissingSentencesError) as info:
        select_sentences(corpus, ["nurse", "captain", "boss"], on_missing="error")
    assert info.value.missing == ["captain", "boss"]
    assert "captain" in str(info.value) and "boss" in str(info.value)
    with caplog.at_level(logging.WARNING, logger="probekit.text._corpus"):
        with pytest.warns(UserWarning, match="captain"):
            sel = select_sentences(corpus, ["nurse", "captain"])
    assert any("captain" in r.getMessage() for r in caplog.records)
    assert sel.missing == ("captain",)
    report = sel.report()
    assert "captain" in report and "missing (1" in report and "nurse" in report
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sel = select_sentences(corpus, ["nurse", "captain"], on_missing="ignore")
    assert sel.missing == ("captain",)


def test_select_sentences_parameter_errors():
    corpus = ["The nurse smiled."]
    with pytest.raises(InvalidParameterError) as info:
        select_sentences(corpus, [])
    assert info.value.parameter == "words"
    with pytest.raises(InvalidParameterError) as info:
        select_sentences(corpus, "nurse")
    assert info.value.parameter == "words"
    with pytest.raises(InvalidParameterError) as info:
        select_sentences(corpus, ["nurse"], on_missing="raise")
    assert info.value.parameter == "on_missing"
    assert "'warn'" in str(info.value) and "'error'" in str(info.value) and "'ignore'" in str(info.value)
    with pytest.raises(InvalidParameterError) as info:
        select_sentences(corpus, ["nurse"], max_per_word=0)
    assert info.value.parameter == "max_per_word"
    with pytest.raises(InvalidParameterError) as info:
        select_sentences(corpus, ["nurse"], exclude_words="she")
    assert info.value.parameter == "exclude_words"
    with pytest.raises(InvalidParameterError) as info:
        select_sentences("corpus.txt", ["nurse"])
    assert info.value.parameter == "corpus"


def test_select_sentences_uses_one_compiled_pattern(monkeypatch):
    calls = []

    def counting(words, *, case_sensitive):
        calls.append(1)
        return compile_word_pattern(words, case_sensitive=case_sensitive)

    import probekit.text._wordmatch as wordmatch_module

    monkeypatch.setattr(wordmatch_module, "compile_word_pattern", counting)
    select_sentences(random_corpus(200, seed=3), ["he", "nurse"], exclude_words=["she"], on_missing="ignore")
    assert len(calls) == 1


def test_selection_provenance_and_dict():
    c = Corpus(("The nurse smiled.", "The boss left."), name="tiny")
    sel = select_sentences(c, ["nurse", "boss"], max_per_word=5, random_state=0)
    assert sel.parameters["corpus_digest"] == c.digest and sel.parameters["corpus_name"] == "tiny"
    assert sel.parameters["random_state"] == 0 and sel.parameters["max_per_word"] == 5
    d = sel.to_dict()
    assert d["counts"] == {"nurse": 1, "boss": 1} and d["sentences"] == list(c.sentences)
    assert sel.digest == c.digest


# ------------------------------------------------------------------------------------------
# the prefix-tree pattern behaves like a flat longest-first alternation
# ------------------------------------------------------------------------------------------


def _flat_pattern(words, case_sensitive):
    unique = sorted(set(words), key=lambda w: (-len(w), w))
    parts = [r"\s+".join(re.escape(piece) for piece in w.split()) for w in unique]
    return re.compile(r"(?<!\w)(?:" + "|".join(parts) + r")(?!\w)", 0 if case_sensitive else re.IGNORECASE)


def test_trie_pattern_equals_flat_alternation():
    rng = random.Random(7)
    for _ in range(1500):
        words = list({"".join(rng.choice("abhers") for _ in range(rng.randint(1, 4))) for _ in range(6)})
        if rng.random() < 0.3:
            words.append(words[0] + " " + words[-1])
        text = "".join(rng.choice("abhe rsAB.,'-\t") for _ in range(40))
        cs = rng.random() < 0.5
        flat = _flat_pattern(words if cs else [w.lower() for w in words], cs)
        trie = compile_word_pattern(words, case_sensitive=cs)
        assert [m.span() for m in flat.finditer(text)] == [m.span() for m in trie.finditer(text)], (words, text)


def test_cased_matching_accepts_a_capital_only_at_the_start():
    from probekit import select_sentences
    from probekit.text import WordMatcher

    corpus = ["She left early.", "Then she left.", "The Nurse arrived.", "\u201cNurse!\u201d he said.", "A rose and Rose."]
    selection = select_sentences(corpus, ["she", "nurse", "rose"], case_sensitive=True, on_missing="ignore")
    assert selection.sentences_for("she") == ("She left early.", "Then she left.")
    assert selection.sentences_for("nurse") == ("\u201cNurse!\u201d he said.",)
    matcher = WordMatcher(["rose", "Rose"], case_sensitive=True)
    assert [w for w, _, _ in matcher.find("Rose saw a rose.")] == ["Rose", "rose"]
    strict = WordMatcher(["she"], case_sensitive=True, sentence_initial_capital=False)
    assert strict.find("She left.") == []


def test_matches_whose_lowercase_differs_are_skipped_not_crashing():
    from probekit.text import WordMatcher

    for case_sensitive in (False, True):
        matcher = WordMatcher(["she", "iris"], case_sensitive=case_sensitive)
        for text in ["\u0130ris left.", "\u017fhe left.", "Then \u0130ris left."]:
            assert all(word in {"she", "iris"} for word, _, _ in matcher.find(text))
