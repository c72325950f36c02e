"""Gender swapping (debias.swap): a table of cases written by hand, the involution on generated
sentences, span bookkeeping, and the census first-name list it can use."""

from __future__ import annotations

import random
import re

import pytest

import debias
import wordlists
from debias import Span, SwapResult, describe_swap, scrub, scrub_texts, swap, swap_texts, unambiguous_words
from probekit.errors import InvalidParameterError

# (input, expected) with names="builtin" (Mary<->James, Jane<->John, Susan<->David, Rose<->Tony,
# May<->Will, Michelle<->Michael, Paula<->Paul, Maureen<->Neil; May/Will/Rose/Mark are also words).
CASES = [
    # subject pronouns, every case and position
    ("She left.", "He left."),
    ("He left.", "She left."),
    ("she left", "he left"),
    ("SHE LEFT", "HE LEFT"),
    ("Then she left.", "Then he left."),
    ("Did she?", "Did he?"),
    ("he", "she"),
    ("I think he is right, and she is wrong.", "I think she is right, and he is wrong."),
    # "her" as an object: punctuation, end, preposition, conjunction, determiner, adverb, verb
    ("I saw her.", "I saw him."),
    ("I saw him.", "I saw her."),
    ("I saw her", "I saw him"),
    ("I saw her yesterday.", "I saw him yesterday."),
    ("Give it to her!", "Give it to him!"),
    ("We told her that it rained.", "We told him that it rained."),
    ("They gave her a book.", "They gave him a book."),
    ("They gave her the book.", "They gave him the book."),
    ("Let her go.", "Let him go."),
    ("I like her too.", "I like him too."),
    ("Call her again, please", "Call him again, please"),
    ("with her and me", "with him and me"),
    ("for her, not me", "for him, not me"),
    ("I met HER", "I met HIM"),
    ("Her?", "Him?"),
    ("He asked her why.", "She asked him why."),
    ("Bring her back", "Bring him back"),
    ("about her: nothing", "about him: nothing"),
    ("They sent her to Paris.", "They sent him to Paris."),
    # "her" as a determiner
    ("Her book is red.", "His book is red."),
    ("her book", "his book"),
    ("She lost her keys.", "He lost his keys."),
    ("her own company", "his own company"),
    ("in her 30s", "in his 30s"),
    ("her well-known novel", "his well-known novel"),
    ("her new job", "his new job"),
    ("HER BOOK", "HIS BOOK"),
    ("with her friends", "with his friends"),
    # "his" as a determiner and standing alone
    ("His book is red.", "Her book is red."),
    ("his father", "her mother"),
    ("He lost his keys.", "She lost her keys."),
    ("his and her children", "her and his children"),
    ("The book is his.", "The book is hers."),
    ("His is red.", "Hers is red."),
    ("The choice was his, not mine.", "The choice was hers, not mine."),
    ("The book is hers.", "The book is his."),
    ("a friend of his", "a friend of hers"),
    ("Is it his?", "Is it hers?"),
    ("HIS.", "HERS."),
    # reflexives
    ("She hurt herself.", "He hurt himself."),
    ("He did it himself", "She did it herself"),
    ("HIMSELF", "HERSELF"),
    # contractions
    ("She's here.", "He's here."),
    ("he's", "she's"),
    ("She'll come, he'd say.", "He'll come, she'd say."),
    ("She’s here.", "He’s here."),
    ("SHE'S", "HE'S"),
    # possessives of nouns
    ("The woman's car", "The man's car"),
    ("the women's team", "the men's team"),
    ("my brother’s wife", "my sister’s husband"),
    ("the girls' school", "the boys' school"),
    # names
    ("Mary met John.", "James met Jane."),
    ("John's book", "Jane's book"),
    ("JOHN", "JANE"),
    ("Michelle and Paul", "Michael and Paula"),
    ("Dear Susan,", "Dear David,"),
    ("O'Neil met Mary.", "O'Neil met James."),
    ("Neil O'Neil", "Maureen O'Neil"),
    # names that are ordinary words: only capitalized and not sentence-initial
    ("I will go.", "I will go."),
    ("They met Will yesterday.", "They met May yesterday."),
    ("Will you come?", "Will you come?"),
    ("Yes. Will you come?", "Yes. Will you come?"),
    ("a rose garden", "a rose garden"),
    ("She gave Rose a rose.", "He gave Tony a rose."),
    ("Mark the date.", "Mark the date."),
    ("Dr. Will Smith", "Dr. May Smith"),
    ("Mark is a nurse.", "Karen is a nurse."),
    ("Will Smith left.", "May Smith left."),
    ("May God help us.", "May Goddess help us."),
    # names that are places or months
    ("She works in Austin, Texas.", "He works in Austin, Texas."),
    ("Austin Smith is here.", "Heather Smith is here."),
    ("In May 2020 she met May.", "In May 2020 he met Will."),
    ("They met Charlotte in Charlotte, NC.", "They met Charles in Charlotte, NC."),
    ("She lives in Beverly Hills.", "He lives in Beverly Hills."),
    # titles
    ("Mr. Smith", "Ms. Smith"),
    ("Mrs. Smith", "Mr. Smith"),
    ("Ms Smith", "Mr Smith"),
    ("MR SMITH", "MS SMITH"),
    ("Miss Smith arrived.", "Mister Smith arrived."),
    ("I miss you.", "I miss you."),
    ("Miss you!", "Miss you!"),
    ("10 ms later", "10 ms later"),
    ("Mister Rogers", "Miss Rogers"),
    ("Yes, sir.", "Yes, madam."),
    ("Yes, ma'am.", "Yes, sir."),
    ("Yes, ma’am.", "Yes, sir."),
    # words that merely contain a gendered word stay
    ("The shell is hard.", "The shell is hard."),
    ("The manager met Hermann.", "The manager met Hermann."),
    ("the theme of the hero", "the theme of the heroine"),
    ("heroine", "hero"),
    ("shepherds, herbs, the hemisphere, a mansion, themselves", "shepherds, herbs, the hemisphere, a mansion, themselves"),
    ("the chairman", "the chairwoman"),
    ("the mother-in-law", "the father-in-law"),
    ("Mother-in-law", "Father-in-law"),
    ("women and men", "men and women"),
    ("The King and Queen", "The Queen and King"),
    # homographs used as other words
    ("She has a Master's degree.", "He has a Master's degree."),
    ("a Master of Science", "a Master of Science"),
    ("the master arrived", "the mistress arrived"),
    ("She hosts a show.", "He hosts a show."),
    ("a host of problems", "a host of problems"),
    ("the host arrived", "the hostess arrived"),
    ("16GB RAM", "16GB RAM"),
    # punctuation and whitespace byte for byte
    ("  she\tand\nhe  ", "  he\tand\nshe  "),
    ("(she)", "(he)"),
    ('"She," he said.', '"He," she said.'),
    ("she--he", "he--she"),
    ("she\r\n", "he\r\n"),
    ("", ""),
    ("Nothing here.", "Nothing here."),
    ("«Elle» — she", "«Elle» — he"),
]


@pytest.mark.parametrize("text,expected", CASES)
def test_swap_table(text, expected):
    assert swap(text, names="builtin").text == expected


def test_table_is_large_enough():
    assert len(CASES) >= 80


def test_swap_texts_matches_swap_on_the_table():
    texts = [t for t, _ in CASES]
    assert swap_texts(texts, names="builtin") == [e for _, e in CASES]


def test_names_none_leaves_names_and_census_swaps_rare_names():
    assert swap("Mary met John.", names=None).text == "Mary met John."
    assert swap("Mary met John.", names="none").text == "Mary met John."
    census = wordlists.load_names("census")
    partner = census.swap_map["juanita"][0]
    assert partner in census.male
    assert swap("Juanita left.", names="census").text == f"{partner} left."
    assert swap("Juanita left.", names="builtin").text == "Juanita left."
    assert swap("Tapiwa left.", names="census").text == "Tapiwa left."  # in no list


def test_custom_name_list():
    names = wordlists.NameLists(female=("Tapiwa",), male=("Tendai",))
    assert swap("Tapiwa met Tendai.", names=names).text == "Tendai met Tapiwa."


def test_spans_record_every_change_on_the_original():
    text = "She said her brother's friend, Mr. Smith, saw her."
    result = swap(text, names="builtin")
    assert isinstance(result, SwapResult)
    assert result.text == "He said his sister's friend, Ms. Smith, saw him."
    assert result.spans == (
        Span(0, 3, "She", "He"),
        Span(9, 12, "her", "his"),
        Span(13, 20, "brother", "sister"),
        Span(31, 33, "Mr", "Ms"),
        Span(46, 49, "her", "him"),
    )
    assert result.changed
    assert not swap("nothing", names="builtin").changed
    assert result.to_dict()["spans"][0] == [0, 3, "She", "He"]


# --- generated sentences ----------------------------------------------------------------------

FILLER = ["the", "a", "of", "and", "to", "in", "is", "was", "for", "on", "with", "at", "by", "from", "that", "this", "it", "be", "has", "have", "had", "were", "work", "team", "project", "hospital", "school", "research", "data", "students", "years", "city", "program", "teacher", "nurse", "doctor", "lawyer", "writer", "designer", "focus", "interest", "award", "paper", "book", "clinic", "office", "community", "health", "law", "art", "music", "often", "always", "quickly", "very", "small", "big", "red", "green"]
PUNCTUATION = [" ", " ", " ", " ", ", ", "; ", " (", ") ", " - ", '"', "'s ", "’s ", "\t", "  ", ": "]


def _forms(word: str) -> list[str]:
    return [word, word.upper(), word[:1].upper() + word[1:]]


def _sentences(words: list[str], n: int, seed: int, names: frozenset[str] = frozenset()) -> list[tuple[str, int]]:
    """Sentences mixing filler and vocabulary words in random case, with the number of the latter.

    First names (``names``, lowercase) come capitalized or in capitals -- a lowercase "mary" in
    a text with capitals is a word, not a name -- and never right after another name with only
    spaces between (that would be a surname: "Shauna Bradley")."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        parts, count, after_name = [], 0, False
        for _ in range(rng.randint(1, 16)):
            if rng.random() < 0.4:
                word = rng.choice(words)
                is_name = word in names
                parts.append(rng.choice(_forms(word)[1:] if is_name else _forms(word)))
                count += 1
            else:
                is_name = False
                parts.append(rng.choice(FILLER))
            if is_name and after_name and not parts[-2].strip():
                parts[-2] = ", "
            after_name = is_name
            parts.append(rng.choice(PUNCTUATION))
        out.append(("".join(parts).rstrip() + rng.choice([".", "!", "?", "", "\n"]), count))
    return out


def _name_keys(names: str) -> frozenset[str]:
    terms = debias._gendered_words.get_vocabulary(names).terms
    return frozenset(k for k, t in terms.items() if t.kind == "name")


def test_filler_holds_no_vocabulary_word():
    vocabulary = set(debias._gendered_words.get_vocabulary("census").terms)
    assert not vocabulary & set(FILLER)


@pytest.mark.parametrize("names", ["builtin", "census"])
def test_involution_on_generated_sentences(names):
    words = list(unambiguous_words(names))
    assert len(words) > (300 if names == "builtin" else 1500)
    assert not {"her", "his", "him", "hers", "mr", "mrs", "ms", "gentleman", "will"} & set(words)
    for text, count in _sentences(words, 400, seed=1, names=_name_keys(names)):
        once = swap(text, names=names)
        assert len(once.spans) == count, text
        assert swap(once.text, names=names).text == text


def test_unambiguous_pairs_are_mutual():
    vocabulary = debias._gendered_words.get_vocabulary("builtin")
    for word in unambiguous_words("builtin"):
        counterpart = vocabulary.terms[word].counterpart.lower()
        assert vocabulary.terms[counterpart].counterpart.lower() == word


@pytest.mark.parametrize("seed", [2, 3])
def test_spans_rebuild_the_swapped_text(seed):
    words = list(unambiguous_words("builtin")) + ["her", "his", "him", "hers", "Mr", "Mrs", "Ms"]
    for text, _ in _sentences(words, 200, seed):
        result = swap(text, names="builtin")
        rebuilt, position = [], 0
        for span in result.spans:
            assert span.start >= position
            assert text[span.start:span.end] == span.original
            assert span.original != span.replacement
            rebuilt += [text[position:span.start], span.replacement]
            position = span.end
        rebuilt.append(text[position:])
        assert "".join(rebuilt) == result.text
        # everything outside the spans is kept byte for byte
        outside = re.sub(r"\w+", "", text)
        assert re.sub(r"\w+", "", result.text) == outside


def test_case_is_preserved():
    for text, expected in [("she", "he"), ("She", "He"), ("SHE", "HE"), ("Mary", "James"), ("MARY", "JAMES")]:
        assert swap(text, names="builtin").text == expected
    # lower-case names only with the opt-in (an uncased corpus)
    assert swap("mary", names="builtin", names_case="any").text == "james"


def test_lower_case_names_only_with_the_opt_in():
    assert swap("john and mary", names="builtin", names_case="any").text == "jane and james"
    assert swap_texts(["john and mary"], names="builtin", names_case="any") == ["jane and james"]
    # by default a lower-case name is a word, a typo or a user name, even in a text without capitals
    for text in ["john and mary", "on one side of the island was a hugh rock", "< sam> asking for advice"]:
        assert swap(text, names="census").text == text
        assert swap_texts([text], names="census") == [text]
    assert scrub("john and mary met her", names="builtin").text == "john and mary met"
    assert scrub("john and mary met her", names="builtin", names_case="any").text == "and met"
    # names that are ordinary words stay capitalized-only with the opt-in
    assert swap("i will go", names="builtin", names_case="any").text == "i will go"
    assert describe_swap("builtin", names_case="any")["names_case"] == "any"
    assert describe_swap("builtin")["names_case"] == "capitalized"
    with pytest.raises(InvalidParameterError, match="names_case"):
        swap("Mary", names_case="lower")
    with pytest.raises(InvalidParameterError, match="names_case"):
        scrub_texts(["Mary"], names_case=None)


def test_non_ascii_text_falls_back_to_case_insensitive_matching():
    # "İ" lowercases to two characters, so the fast path cannot be used for this text
    assert swap("İstanbul: She met HER mother.", names="builtin").text == "İstanbul: He met HIS father."
    assert swap("İ ſhe", names="builtin").text == "İ ſhe"  # the long s is no "s"


def test_ascii_text_is_matched_as_the_unicode_pattern_matches_it():
    # find() reads ASCII text with an re.ASCII copy of its pattern; a non-ASCII letter at the end sends the
    # same text through the Unicode pattern, which must find the same words at the same places
    vocabulary = debias.get_vocabulary("census")
    rng = random.Random(7)
    pieces = ["she", "Her", "his", "Mary", "JOHN", "mother-in-law", "ma'am", "o'", "x_", "7", "brother", "son",
              "sons", "'s", "-", "_", "'", ".", "herself", "Will", "hisher", "a1", "ok"]
    for _ in range(500):
        text = "".join(rng.choice(pieces) + rng.choice(["", " ", " ", "-", "'", "_"]) for _ in range(12))
        assert text.isascii()
        assert vocabulary.find(text) == vocabulary.find(text + " é")


def test_swap_texts_keeps_none_and_rejects_a_single_string():
    assert swap_texts(["she", None, "he"], names="builtin") == ["he", None, "she"]
    with pytest.raises(InvalidParameterError, match="texts"):
        swap_texts("she went home")
    with pytest.raises(InvalidParameterError, match="text"):
        swap(3)
    with pytest.raises(InvalidParameterError, match="names"):
        swap("she", names="everyone")


def test_describe_swap_names_the_lists_used():
    described = debias.describe_swap("census")
    assert described["intervention"] == "swap"
    assert described["name_list"]["label"] == "census"
    assert described["name_list"]["digest"] == wordlists.load_names("census").digest
    assert described["attribute_pairs"]["digest"] == wordlists.load_attribute_pairs().digest
    assert described["title_swaps"]["mr"] == "ms"
    assert debias.describe_swap(None)["name_list"] is None


# --- the census name list -----------------------------------------------------------------------

def test_census_names_extend_the_builtin_pairs():
    builtin, census = wordlists.load_names("builtin"), wordlists.load_names("census")
    assert wordlists.load_names() is builtin
    assert census.pairs[: len(builtin.pairs)] == builtin.pairs
    assert len(set(census.female)) > 3000 and len(set(census.male)) > 800
    assert "Juanita" in census.female and "Juanita" not in builtin.female
    assert "census" in census.source.lower() and "public domain" in census.source
    with pytest.raises(InvalidParameterError, match="source"):
        wordlists.load_names("everyone")


def test_census_names_leave_out_unisex_names_words_and_surnames():
    census = wordlists.load_names("census")
    female, male = {n.lower() for n in census.female}, {n.lower() for n in census.male}
    assert not female & male
    gendered = {w.lower() for w in wordlists.load_attribute_pairs().words}
    assert not (female | male) & gendered
    for left_out in ["kerry", "robin", "dana", "hope", "bill", "guy", "johnson", "williams", "april", "jesus", "al", "li"]:
        if left_out not in {n.lower() for n in wordlists.load_names("builtin").names}:
            assert left_out not in female | male, left_out


def test_census_file_states_source_and_licence():
    head = wordlists.data_path("census_name_pairs.tsv").read_text(encoding="utf-8").splitlines()[:12]
    header = " ".join(line for line in head if line.startswith("#"))
    assert "US Census Bureau" in header and "1990" in header and "public domain" in header
    assert "MIT" in header and "names" in header


def test_names_case_reaches_files_datasets_and_the_cli(tmp_path, capsys):
    from probekit.cli.main import main

    source = tmp_path / "in.txt"
    source.write_text("john and mary\nMary met her\n", encoding="utf-8")
    result = debias.swap_file(source, tmp_path / "default.txt", names="builtin")
    assert (tmp_path / "default.txt").read_text(encoding="utf-8") == "john and mary\nJames met him\n"
    assert result.intervention["names_case"] == "capitalized"
    result = debias.swap_file(source, tmp_path / "any.txt", names="builtin", names_case="any")
    assert (tmp_path / "any.txt").read_text(encoding="utf-8") == "jane and james\nJames met him\n"
    assert result.intervention["names_case"] == "any"
    debias.scrub_file(source, tmp_path / "scrubbed.txt", names="builtin", names_case="any", placeholder="_")
    assert (tmp_path / "scrubbed.txt").read_text(encoding="utf-8") == "_ and _\n_ met _\n"
    with pytest.raises(InvalidParameterError, match="names_case"):
        debias.swap_file(source, tmp_path / "bad.txt", names_case="lower")
    assert not (tmp_path / "bad.txt").exists()
    code = main(["swap", str(source), "--out", str(tmp_path / "cli.txt"), "--names", "builtin",
                 "--names-case", "any", "--no-progress"])
    assert code == 0
    assert (tmp_path / "cli.txt").read_text(encoding="utf-8") == "jane and james\nJames met him\n"
    code = main(["scrub", str(source), "--out", str(tmp_path / "cli_scrub.txt"), "--names", "builtin",
                 "--names-case", "capitalized", "--placeholder", "_", "--no-progress"])
    assert code == 0
    assert (tmp_path / "cli_scrub.txt").read_text(encoding="utf-8") == "john and mary\n_ met _\n"
    capsys.readouterr()
