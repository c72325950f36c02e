"""The published SEAT sentence tests (sent-weat6 ... 8b, MIT) shipped in wordlists, and the
sentence-level SEAT of the named standard tests run on them (the template variant keeps its own name)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import wordlists
from probekit.intrinsic import (
    STANDARD_SEAT_TESTS,
    is_template_variant,
    published_sentence_seat,
    seat_sentence_sets,
    seat_word_sets,
)
from tests.conftest import REPO_ROOT

REFERENCE = REPO_ROOT.parent / "shared" / "reference" / "sent_debias_gender_tests"
# Effect sizes of the published BERT encodings (tests/unit/test_seat.py keeps the same values).
PUBLISHED_EFFECT_SIZES = {"6": 0.477, "6b": 0.108, "7": 0.253, "7b": 0.254, "8": 0.399, "8b": 0.636}


def test_shipped_sentences_are_the_published_files_with_their_licence():
    assert "MIT License" in (REPO_ROOT / "wordlists" / "data" / "sent_seat" / "LICENSE").read_text()
    assert "Paul Liang" in (REPO_ROOT / "wordlists" / "README.md").read_text()
    for name in STANDARD_SEAT_TESTS:
        sets = seat_sentence_sets(name)
        test = wordlists.load_seat_sentence_test(name)
        assert test.name == f"sent-{name}" and "MIT" in test.source
        if REFERENCE.is_dir():
            raw = json.loads((REFERENCE / f"sent-{name}.jsonl").read_text())
            for key, role in zip("XYAB", ("targ1", "targ2", "attr1", "attr2")):
                assert sets[key] == raw[role]["examples"]
    assert seat_sentence_sets("sent-weat7") == seat_sentence_sets("7") == seat_sentence_sets("weat7")
    assert is_template_variant("weat7-templates") and not is_template_variant("weat7")
    assert seat_word_sets("weat7-templates") == seat_word_sets("weat7")


@pytest.mark.parametrize("name", sorted(PUBLISHED_EFFECT_SIZES))
def test_effect_sizes_on_the_published_encodings(name, monkeypatch):
    """published_sentence_seat on the published BERT encodings of the published sentences gives the
    published effect sizes: the sentences, their sets and their order are the published ones."""
    path = REFERENCE / "sent_encs.npz"
    if not path.exists():
        pytest.skip(f"reference encodings not found at {path}")
    sets = seat_sentence_sets(name)
    table: dict[str, np.ndarray] = {}
    with np.load(path, allow_pickle=False) as data:
        for key, role in zip("XYAB", ("targ1", "targ2", "attr1", "attr2")):
            for sentence, row in zip(sets[key], data[f"{name}_{role}"]):
                assert sentence not in table or np.array_equal(table[sentence], row)
                table[sentence] = row

    def embed(encoder, sentences, **_):
        return np.stack([table[s] for s in sentences])

    monkeypatch.setattr("probekit.intrinsic._seat_variants.embed_sentences", embed)
    result = published_sentence_seat(None, f"weat{name}", n_permutations=1000, n_bootstrap=10, random_state=0,
                                     progress=False)
    assert result.effect_size == pytest.approx(PUBLISHED_EFFECT_SIZES[name], abs=5e-4)
    assert result.details["n_sentences"]["X"] == len(sets["X"]) and "published" in result.details["sentences"]
