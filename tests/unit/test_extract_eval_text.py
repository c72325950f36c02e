"""``scripts/extract_eval_text.py`` on small files in the corpora's layouts, written here: the
evaluation text of issue 27 (WikiText-2, nltk_data's Brown and film reviews, GAP, CoNLL-U,
WikiSplit, CrowS-Pairs) comes back as detokenized sentences, split into halves by document.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "extract_eval_text.py"


@pytest.fixture(scope="module")
def extract():
    spec = importlib.util.spec_from_file_location("extract_eval_text", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_wikitext_is_detokenized_and_unknown_words_near_a_pronoun_are_dropped(extract, tmp_path):
    source = tmp_path / "valid.txt"
    source.write_text(
        " \n = Robert Smith = \n \n"
        " Smith ( 1900 – 1950 ) was a painter . The king made him court painter in 1920 , and his "
        " \" Blue Period \" began . A <unk> gave him a medal . In 1930 @-@ 31 his work sold well . \n"
        " \n = = Later life = = \n \n He moved to <unk> in 1940 with his wife . A <unk> saw him . \n",
        encoding="utf-8",
    )
    (title, sentences), = extract.wikitext_documents(str(source))
    assert title == "Robert Smith"
    assert sentences == [
        'The king made him court painter in 1920, and his "Blue Period" began.',
        "In 1930-31 his work sold well.",
        "He moved to Zembla in 1940 with his wife.",
    ]


def test_brown_rows_become_sentences_split_by_file(extract, tmp_path):
    corpus = tmp_path / "brown"
    corpus.mkdir()
    (corpus / "ca01").write_text(
        "\tThe/at jury/nn thanked/vbd him/ppo ,/, and/cc his/pp$ wife/nn smiled/vbd ./.\n"
        "\tNo/at pronoun/nn here/rb ./.\n", encoding="utf-8")
    (corpus / "ck01").write_text("\t``/`` Go/vb ''/'' ,/, she/pps told/vbd her/ppo ./.\n", encoding="utf-8")
    assert list(extract.NLTK_CORPORA["brown"](str(corpus), "")) == [
        ("ca01", ["The jury thanked him, and his wife smiled."])]
    assert list(extract.NLTK_CORPORA["brown-fiction"](str(corpus), "")) == [("ck01", ['"Go", she told her.'])]
    counts = extract.write_halves(extract.NLTK_CORPORA["brown"](str(corpus), ""), str(tmp_path / "out"))
    assert sum(counts.values()) == 1 and counts[extract.half_of("ca01")] == 1


def test_film_reviews_rejoin_their_quotes(extract, tmp_path):
    corpus = tmp_path / "movie_reviews" / "pos"
    corpus.mkdir(parents=True)
    (corpus / "cv000.txt").write_text('he does his " normal guy " routine , and it works .\nno pronoun .\n',
                                      encoding="utf-8")
    (document, sentences), = extract.NLTK_CORPORA["movie_reviews"](str(corpus.parent), "x/")
    assert document == "x/pos/cv000.txt"
    assert sentences == ['He does his "normal guy" routine, and it works.']


def test_gap_rows_are_snippets_one_document_each(extract, tmp_path):
    source = tmp_path / "gap-development.tsv"
    source.write_text(
        "ID\tText\tPronoun\tPronoun-offset\tA\tA-offset\tA-coref\tB\tB-offset\tB-coref\tURL\n"
        "development-1\tAnn met Bo. She gave him a book.\tShe\t12\tAnn\t0\tTRUE\tBo\t8\tFALSE\thttp://x\n"
        "development-2\tHis father, \"Al\", left.\tHis\t0\tAl\t13\tTRUE\tX\t0\tFALSE\thttp://y\n",
        encoding="utf-8",
    )
    assert list(extract.gap_documents(str(source))) == [
        ("development-1", ["Ann met Bo. She gave him a book."]), ("development-2", ['His father, "Al", left.'])]


def test_conllu_sentences_alternate_within_groups(extract, tmp_path):
    def conllu(name, *sentences):
        rows = "".join(f"# sent_id = {k}\n# text = {s}\n1\t{s.split()[0]}\t_\t_\t_\t_\t0\troot\t_\t_\n\n"
                       for k, s in enumerate(sentences))
        (tmp_path / name).write_text(rows, encoding="utf-8")
        return str(tmp_path / name)

    files = [conllu("GUM_bio_b.conllu", "Bio b saw him."), conllu("GUM_bio_a.conllu", "Bio a met his wife.", "Then left."),
             conllu("GUM_news_c.conllu", "News c told her."), conllu("GUM_bio_c.conllu", "Bio c.")]
    assert extract.conllu_sentences(files[1]) == ["Bio a met his wife.", "Then left."]
    prefix = str(tmp_path / "gum")
    counts = extract.write_alternating(extract.conllu_documents(files), prefix, "GUM_([a-z]+)_")
    assert counts == {"dev": 4, "test": 1}
    assert Path(prefix + "_dev.txt").read_text(encoding="utf-8").splitlines() == [
        "Bio a met his wife.", "Then left.", "Bio c.", "News c told her."]
    assert Path(prefix + "_test.txt").read_text(encoding="utf-8").splitlines() == ["Bio b saw him."]


def test_wikisplit_sentences_are_detokenized_row_by_row(extract, tmp_path):
    source = tmp_path / "tune.tsv"
    source.write_text(
        "He joined MGM , which gave him a part in the film '' Possessed '' .\tHe joined MGM .<::::> It gave him a part .\n"
        "Bowles ' father was a court - appointed judge .\tx\n"
        "He had to show Kae his ' cool side ' .\tx\n",
        encoding="utf-8",
    )
    assert list(extract.wikisplit_documents(str(source))) == [
        (f"{source}:0", ['He joined MGM, which gave him a part in the film "Possessed".']),
        (f"{source}:1", ["Bowles' father was a court-appointed judge."]),
        (f"{source}:2", ["He had to show Kae his 'cool side'."]),
    ]


def test_crows_pairs_rows_give_both_sentences(extract, tmp_path):
    source = tmp_path / "crows_pairs_anonymized.csv"
    source.write_text(
        ",sent_more,sent_less,stereo_antistereo,bias_type,annotations,anon_writer,anon_annotators\n"
        '0,"He gave his word. ","She gave her word.",stereo,gender,[],a0,[]\n',
        encoding="utf-8",
    )
    prefix = str(tmp_path / "crows")
    counts = extract.write_halves(extract.crows_pairs_documents(str(source)), prefix, whole=True)
    assert counts == {"all": 2}
    assert Path(prefix + "_all.txt").read_text(encoding="utf-8") == "He gave his word.\nShe gave her word.\n"
