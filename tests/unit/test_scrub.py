"""Attribute scrubbing (debias.scrub): nothing of the lists left on a generated corpus (checked
with an independent tokenization), substrings untouched, placeholder, readable spacing."""

from __future__ import annotations

import random
import re

import pytest

import debias
import wordlists
from debias import ANY, ScrubResult, Span, get_vocabulary, scrub, scrub_texts
from probekit.errors import InvalidParameterError

CASES = [
    ("She is a nurse.", "is a nurse."),
    ("I saw her.", "I saw."),
    ("He said she left.", "said left."),
    ("Mr. Smith told her that Mary's brother is a nurse.", "Smith told that is a nurse."),
    ("She's a manager, and he'd know.", "a manager, and know."),
    ("(she) works here", "() works here"),
    ("Mrs Jane Doe left", "Doe left"),
    ("told her him", "told"),
    ("her, and his.", ", and."),
    ("The shell of Hermann's theme.", "The shell of Hermann's theme."),
    ("the chairman and the mother-in-law met", "the and the met"),
    ("I miss you, Miss Smith.", "I miss you, Smith."),
    ("10 ms later, Ms Smith came", "10 ms later, Smith came"),
    ("a rose for Rose", "a rose for"),
    ("Will you call Will?", "Will you call?"),
    ("She has a Master's degree.", "has a Master's degree."),
    ("the diva and the maid", "the and the"),
    ("Nothing here.", "Nothing here."),
    ("", ""),
    ("  leading and trailing she  ", "  leading and trailing"),
    ("line one she\nline two", "line one\nline two"),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_scrub_table(text, expected):
    assert scrub(text, names="builtin").text == expected


@pytest.mark.parametrize(
    "text,expected",
    [
        ("She is a nurse.", "_ is a nurse."),
        ("Mr. Smith saw her.", "_. Smith saw _."),
        ("She's Mary's friend", "_'s _'s friend"),
        ("the shell", "the shell"),
    ],
)
def test_placeholder_replaces_only_the_word(text, expected):
    assert scrub(text, placeholder="_", names="builtin").text == expected
    assert scrub_texts([text], placeholder="_", names="builtin") == [expected]


def test_scrub_texts_matches_scrub():
    texts = [t for t, _ in CASES]
    assert scrub_texts(texts, names="builtin") == [e for _, e in CASES]
    assert scrub_texts([None, "she"], names="builtin") == [None, ""]


def test_spans_list_removed_words():
    result = scrub("Mr. Smith saw her brother's dog.", names="builtin")
    assert isinstance(result, ScrubResult)
    assert result.spans == (Span(0, 3, "Mr.", ""), Span(14, 17, "her", ""), Span(18, 27, "brother's", ""))
    assert result.text == "Smith saw dog."
    with_placeholder = scrub("Mr. Smith saw her.", placeholder="[X]", names="builtin")
    assert with_placeholder.spans == (Span(0, 2, "Mr", "[X]"), Span(14, 17, "her", "[X]"))
    assert with_placeholder.text == "[X]. Smith saw [X]."


# --- generated corpus -----------------------------------------------------------------------

FILLER = (
    "the a of and to in is was for on with at by from that this it be has have had were work team "
    "project hospital school research data students years city program teacher nurse doctor lawyer "
    "writer designer award paper book clinic office health law art music often very small red"
).split()
# Words that contain a gendered word or a name without being one.
LOOKALIKES = (
    "shell shelf sheet shepherd theme themselves heroic manager mankind manual womanizer Hermann "
    "herbal hemisphere heal header hiss himalaya mrsa missile mistake motherboard kingdom queenly "
    "boyish girlie sonnet mandate german romance ladder"
).split()
PUNCTUATION = [" ", " ", " ", ", ", "; ", " (", ") ", " - ", '"', "\t", ": "]


def _scrub_words(names: str) -> list[str]:
    """Every vocabulary word matched in any context (context rules are tested in the table)."""
    vocabulary = get_vocabulary(names)
    return sorted(k for k, t in vocabulary.terms.items() if t.rule == ANY and k not in LOOKALIKES)


def _corpus(words: list[str], n: int, seed: int) -> list[str]:
    rng = random.Random(seed)
    texts = []
    for _ in range(n):
        parts = []
        for _ in range(rng.randint(1, 14)):
            r = rng.random()
            if r < 0.35:
                word = rng.choice(words)
                parts.append(rng.choice([word, word.upper(), word[:1].upper() + word[1:]]))
            elif r < 0.55:
                parts.append(rng.choice(LOOKALIKES))
            else:
                parts.append(rng.choice(FILLER))
            parts.append(rng.choice(PUNCTUATION))
        texts.append("".join(parts).strip() + rng.choice([".", "!", "", "?"]))
    return texts


def _tokens(text: str) -> list[str]:
    """Independent whole-word tokenization: runs of letters, digits, apostrophes and hyphens
    inside a word, lowercased."""
    return [t.lower() for t in re.findall(r"\w+(?:['’-]\w+)*", text)]


@pytest.mark.parametrize("names", ["builtin", "census"])
def test_no_list_word_or_name_left_on_a_generated_corpus(names):
    words = _scrub_words(names)
    single = {w for w in words if re.fullmatch(r"\w+", w)}
    compound = [w for w in words if w not in single]
    assert compound  # mother-in-law, ma'am, ...
    lookalikes = {w.lower() for w in LOOKALIKES}
    assert not lookalikes & set(get_vocabulary(names).terms)
    for text in _corpus(words, 400, seed=5):
        out = scrub(text, names=names).text
        left = set()
        for token in _tokens(out):
            # hyphens and apostrophes end a word ("she-wolf", "she's"), but "ma'am" is one word
            parts = {token, *re.split(r"['’-]", token)}
            left |= {p for p in parts if p in single}
        assert not left, (text, out, left)
        low = out.lower()
        for word in compound:
            assert not re.search(r"(?<!\w)" + re.escape(word) + r"(?!\w)", low), (text, out, word)
        # look-alikes survive, as whole words, as often as they were there
        for word in lookalikes:
            pattern = r"(?<![\w'’-])" + re.escape(word) + r"(?![\w'’-])"
            assert len(re.findall(pattern, low)) == len(re.findall(pattern, text.lower())), (text, out, word)


def test_generated_corpus_spacing_stays_readable():
    words = _scrub_words("builtin")
    rng = random.Random(7)
    for _ in range(300):
        parts = []
        for _ in range(rng.randint(1, 12)):
            parts.append(rng.choice(words) if rng.random() < 0.4 else rng.choice(FILLER))
        parts[-1] += rng.choice([".", ",", "!", ""])
        text = " ".join(parts)
        out = scrub(text, names="builtin").text
        assert "  " not in out, (text, out)
        assert not re.search(r" [.,!?;:]", out), (text, out)
        assert out == out.strip(), (text, out)
        assert [t for t in _tokens(out)] == [t for t in _tokens(text) if t not in words], (text, out)


def test_placeholder_count_equals_removed_words():
    words = _scrub_words("builtin")
    for text in _corpus(words, 200, seed=9):
        result = scrub(text, placeholder="\x00", names="builtin")
        assert result.text.count("\x00") == len(result.spans)
        rebuilt, position = [], 0
        for span in result.spans:
            rebuilt += [text[position:span.start], "\x00"]
            position = span.end
        rebuilt.append(text[position:])
        assert "".join(rebuilt) == result.text


def test_names_none_keeps_names_and_bad_arguments_fail():
    assert scrub("Mary is a nurse.", names=None).text == "Mary is a nurse."
    with pytest.raises(InvalidParameterError, match="placeholder"):
        scrub("she", placeholder=3)
    with pytest.raises(InvalidParameterError, match="texts"):
        scrub_texts("she")


def test_describe_scrub():
    described = debias.describe_scrub("_", "builtin")
    assert described["intervention"] == "scrub" and described["placeholder"] == "_"
    assert described["name_list"]["digest"] == wordlists.load_names("builtin").digest
