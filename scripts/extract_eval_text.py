"""Write evaluation text for :mod:`debias`'s her/his swap from public corpora that are not shipped:
sentences with "him", "his", "her" or "hers", one per line, split by document into a development
half (read to write rules) and a test half (measured, never read), for
``scripts/check_swap_real_text.py``. Evaluation only: nothing here is training text, and none of
it goes into the repository (Wikipedia and WikiText are CC BY-SA; the Brown, MASC, WSJ, ABC and
film-review corpora carry their own licences).

Sources (all offline once fetched):

- ``wikitext FILE``: WikiText-2's raw token files (``valid.txt``/``test.txt``, as in PyTorch's
  ``examples/word_language_model/data/wikitext-2``): Wikipedia's Good and Featured articles,
  detokenized; a sentence with ``<unk>`` within two words of a pronoun is dropped, other ``<unk>``
  become "Zembla". An article per document.
- ``mediawiki FILE``: a MediaWiki XML dump, plain or ``.bz2`` (gensim's test data holds
  ``enwiki-latest-pages-articles1.xml-p000000010p000030302-shortened.bz2``); markup removed with
  ``mwparserfromhell`` (``pip install mwparserfromhell``; needed by this option only). A page per
  document.
- ``gap FILE``: a TSV of the GAP coreference corpus (Webster et al. 2018; Apache 2.0;
  ``gap-development.tsv``, ``gap-validation.tsv``, ``gap-test.tsv`` in
  google-research-datasets/gap-coreference): Wikipedia snippets, one per line (a row per
  document; with ``--whole`` all rows in file order).
- ``conllu FILE...``: the ``# text =`` sentences of CoNLL-U files (Universal Dependencies' English
  treebanks: EWT, LinES, ParTUT, PUD; GUM's ``dep/*.conllu``), every sentence; a file per
  document. ``--alternate-within REGEX`` splits the files sorted by path into halves by
  alternation (first to the development half) within the groups that the regular expression's
  first group names (GUM's genres: ``'GUM_([a-z]+)_'``), the halves written group by group.
- ``wikisplit FILE``: a TSV of WikiSplit (Botha et al. 2018; CC BY-SA 4.0; ``tune.tsv``,
  ``validation.tsv``, ``test.tsv`` in google-research-datasets/wiki-split): the first column, a
  tokenized Wikipedia sentence, detokenized; a row per document (``--whole``: every row, in order).
- ``crows-pairs FILE``: CrowS-Pairs' ``crows_pairs_anonymized.csv`` (Nangia et al. 2020; CC BY-SA
  4.0): each pair's two crowd-written sentences, more stereotyping first; a pair per document.
- ``nltk NAME DIR``: an unzipped ``nltk_data`` corpus: ``brown`` (the non-fiction categories a-j;
  ``brown-fiction`` for k-r), ``masc`` (``masc_tagged/written``), ``conll2000``, ``treebank``
  (``tagged``), ``abc``, ``state_union``, ``movie_reviews`` (lower-cased by its makers; quotes
  rejoined). A file per document (ABC and State of the Union: 20 sentences; CoNLL-2000: 40).

Usage::

    python scripts/extract_eval_text.py wikitext valid.txt OUT_PREFIX
    python scripts/extract_eval_text.py mediawiki enwiki-...-shortened.bz2 OUT_PREFIX
    python scripts/extract_eval_text.py nltk brown nltk_data/corpora/brown OUT_PREFIX
    python scripts/extract_eval_text.py gap gap-development.tsv OUT_PREFIX --whole
    python scripts/extract_eval_text.py conllu gum/dep/*.conllu OUT_PREFIX --alternate-within 'GUM_([a-z]+)_'
    python scripts/extract_eval_text.py wikisplit wiki-split/test.tsv OUT_PREFIX --whole
    python scripts/extract_eval_text.py crows-pairs crows_pairs_anonymized.csv OUT_PREFIX --whole

writes ``OUT_PREFIX_dev.txt`` and ``OUT_PREFIX_test.txt``. Not imported by the tests.
"""

from __future__ import annotations

import argparse
import bz2
import csv
import glob
import hashlib
import os
import re
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterable, Iterator
from pathlib import Path

_PRONOUN = re.compile(r"\b(him|his|her|hers)\b", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"(])")
_UNK_NEAR_PRONOUN = re.compile(
    r"<unk>(?:\W+\w+){0,2}?\W+(?:him|his|her|hers)\b|\b(?:him|his|her|hers)\b(?:\W+\w+){0,2}?\W+<unk>", re.IGNORECASE)
_NO_SPACE_BEFORE = {",", ".", ";", ":", "!", "?", ")", "]", "''", "'s", "n't", "'re", "'ve", "'ll", "'d", "'m", "%", "'", "’s"}
_NO_SPACE_AFTER = {"(", "[", "``", "$"}
_PENN_BRACKETS = {"``": '"', "''": '"', "-LRB-": "(", "-RRB-": ")", "-LCB-": "{", "-RCB-": "}"}


def half_of(document: str) -> str:
    """"dev" or "test" for a document id, by the parity of its sha256."""
    return "dev" if int(hashlib.sha256(document.encode()).hexdigest(), 16) % 2 == 0 else "test"


def with_pronoun(sentences: Iterable[str], min_length: int = 0) -> Iterator[str]:
    return (s for s in sentences if _PRONOUN.search(s) and len(s) > min_length)


def sentences_of(paragraph: str) -> list[str]:
    return _SENTENCE_END.split(" ".join(paragraph.split()))


def _alternate_quotes(text: str) -> str:
    """Token-separated straight quotes (' " ') as opening and closing marks in turn."""
    out, opening = [], True
    for part in re.split(r'( " )', " " + text + " "):
        if part == ' " ':
            out.append(' "' if opening else '" ')
            opening = not opening
        else:
            out.append(part)
    joined = re.sub(r'^ "', '"', "".join(out))
    return re.sub(r' "([,.;:])', r'"\1', joined)


def detokenize_wikitext(line: str) -> str:
    text = line.replace(" @-@ ", "-").replace(" @,@ ", ",").replace(" @.@ ", ".")
    text = re.sub(r" (['’]s|n't|'re|'ve|'ll|'d|'m)\b", r"\1", text)
    text = re.sub(r" ([,.;:!?)\]%])", r"\1", text)
    text = re.sub(r"([(\[$]) ", r"\1", text)
    return " ".join(_alternate_quotes(text).split())


def wikitext_documents(path: str) -> Iterator[tuple[str, list[str]]]:
    articles: list[tuple[str, list[str]]] = []
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        heading = re.match(r"^ = ([^=].*?) = $", line)
        if heading:
            articles.append((heading.group(1), []))
        elif articles and line.strip() and not line.startswith(" = "):
            articles[-1][1].append(line.strip())
    for title, paragraphs in articles:
        kept = []
        for paragraph in paragraphs:
            for sentence in with_pronoun(re.split(r"(?<=[.!?]) (?=[A-Z\"(])", detokenize_wikitext(paragraph))):
                if not _UNK_NEAR_PRONOUN.search(sentence):
                    kept.append(sentence.replace("<unk>", "Zembla"))
        yield title, kept


def mediawiki_documents(path: str) -> Iterator[tuple[str, list[str]]]:
    import mwparserfromhell  # an evaluation-only dependency: pip install mwparserfromhell

    opener = bz2.open if path.endswith(".bz2") else open
    with opener(path, "rb") as handle:
        root = ElementTree.parse(handle).getroot()
    namespace = root.tag.split("}")[0] + "}"
    for page in root.iter(namespace + "page"):
        title = page.find(namespace + "title").text
        wikitext = page.find(f"{namespace}revision/{namespace}text").text or ""
        if wikitext.lstrip().upper().startswith("#REDIRECT"):
            continue
        code = mwparserfromhell.parse(wikitext)
        for tag in code.filter_tags(recursive=False):
            if str(tag.tag).lower() in ("ref", "table", "gallery", "math", "timeline"):
                try:
                    code.remove(tag)
                except ValueError:
                    pass
        text = code.strip_code(normalize=True, collapse=True)
        kept = []
        for paragraph in text.split("\n"):
            paragraph = " ".join(paragraph.split())
            if len(paragraph) < 40 or paragraph.startswith(("Category:", "File:", "Image:", "thumb|")):
                continue
            kept += with_pronoun(re.split(r"(?<=[.!?])\s+(?=[A-Z\"“(])", paragraph), min_length=20)
        yield title, kept


def detokenize(tokens: list[str]) -> str:
    text, previous = "", None
    for token in tokens:
        word = _PENN_BRACKETS.get(token, token)
        if text and token not in _NO_SPACE_BEFORE and previous not in _NO_SPACE_AFTER and token.lower() not in ("'s", "n't"):
            text += " "
        text += word
        previous = token
    return text


def _brown(directory: str, fiction: bool) -> Iterator[tuple[str, list[str]]]:
    for path in sorted(glob.glob(os.path.join(directory, "c?[0-9][0-9]"))):
        name = os.path.basename(path)
        if (name[1] not in "abcdefghj") != fiction:
            continue
        rows = [[t.rsplit("/", 1)[0] for t in line.split()] for line in Path(path).read_text().splitlines()]
        yield name, [detokenize(r) for r in rows if r and any(w.lower() in ("her", "his", "him", "hers") for w in r)]


def _masc(directory: str) -> Iterator[tuple[str, list[str]]]:
    for path in sorted(glob.glob(os.path.join(directory, "written", "*.txt"))):
        rows = [[t.rsplit("_", 1)[0] for t in line.split() if "_" in t]
                for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines()]
        yield os.path.basename(path), [detokenize(r) for r in rows if any(w.lower() in ("her", "his", "him", "hers") for w in r)]


def _treebank(directory: str) -> Iterator[tuple[str, list[str]]]:
    for path in sorted(glob.glob(os.path.join(directory, "tagged", "wsj_*.pos"))):
        sentences, words = [], []
        for token in Path(path).read_text().replace("[", " ").replace("]", " ").split():
            if "/" not in token or token.startswith("======"):
                continue
            words.append(token.rsplit("/", 1)[0])
            if words[-1] in (".", "?", "!"):
                sentences.append(words)
                words = []
        if words:
            sentences.append(words)
        yield os.path.basename(path), [detokenize(s) for s in sentences if any(w.lower() in ("her", "his", "him", "hers") for w in s)]


def _conll2000(directory: str) -> Iterator[tuple[str, list[str]]]:
    for name in ("train", "test"):
        documents: dict[str, list[str]] = {}
        words, k = [], 0
        for line in Path(directory, f"{name}.txt").read_text().splitlines() + [""]:
            if line.strip():
                words.append(line.split()[0])
                continue
            if words:
                if any(w.lower() in ("her", "his", "him", "hers") for w in words):
                    documents.setdefault(f"{name}{k // 40}", []).append(detokenize(words))
                k += 1
                words = []
        yield from documents.items()


def _plain(directory: str, pattern: str, per: int, id_prefix: str) -> Iterator[tuple[str, list[str]]]:
    for path in sorted(glob.glob(os.path.join(directory, pattern))):
        text = Path(path).read_text(encoding="latin-1")
        found = [s for p in re.split(r"\n\s*\n", text) for s in with_pronoun(sentences_of(p))]
        document = id_prefix + os.path.relpath(path, directory)
        for i in range(0, len(found), per):
            yield document + str(i // per), found[i:i + per]


def _movie_reviews(directory: str, id_prefix: str) -> Iterator[tuple[str, list[str]]]:
    for path in sorted(glob.glob(os.path.join(directory, "*", "*.txt"))):
        kept = []
        for line in Path(path).read_text(encoding="utf-8", errors="replace").splitlines():
            line = line.strip()
            if not re.search(r"\b(him|his|her|hers)\b", line) or line.count('"') % 2:
                continue
            line = _rejoin_quotes(line)
            line = re.sub(r" ([,.;:!?)])", r"\1", line)
            line = re.sub(r"\( ", "(", line)
            line = re.sub(r" ' s\b", "'s", line)
            line = re.sub(r" n't\b", "n't", line)
            line = re.sub(r'" ([,.;:!?])', r'"\1', line)
            kept.append(line[:1].upper() + line[1:])
        yield id_prefix + os.path.relpath(path, directory), kept


def _rejoin_quotes(text: str) -> str:
    """'" x "' -> '"x"': the space inside each pair of straight quotes removed."""
    out, inside = [], False
    for i, part in enumerate(re.split(r'(")', text)):
        if part == '"':
            if inside and out and out[-1].endswith(" "):
                out[-1] = out[-1].rstrip(" ")
            inside = not inside
        elif inside and i > 0:
            part = part.lstrip(" ")
        out.append(part)
    return "".join(out)


# name -> reader(directory, id_prefix); the id prefix matters to the last three only, whose
# documents are named by their path under the corpus directory
NLTK_CORPORA = {
    "brown": lambda d, _: _brown(d, fiction=False),
    "brown-fiction": lambda d, _: _brown(d, fiction=True),
    "masc": lambda d, _: _masc(d),
    "treebank": lambda d, _: _treebank(d),
    "conll2000": lambda d, _: _conll2000(d),
    "abc": lambda d, prefix: _plain(d, "*.txt", 20, prefix),
    "state_union": lambda d, prefix: _plain(d, "*.txt", 20, prefix),
    "movie_reviews": _movie_reviews,
}


def gap_documents(path: str) -> Iterator[tuple[str, list[str]]]:
    """The GAP corpus's snippets (the ``Text`` column), a row per document."""
    with open(path, encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle, delimiter="\t"):
            yield row["ID"], [row["Text"]]


# WikiSplit's tokens rejoined: quoted spans first (its quotes are '' or `` before, '' after), then
# contractions, a plural's possessive, lone quotes, punctuation, brackets and hyphens
_WIKISPLIT_JOINS = (
    (re.compile(r"(?:``|'') (.*?) ''"), r'"\1"'),
    (re.compile(r"(^| )' ([^']*?) '(?=[ ,.;:!?]|$)"), r"\1'\2'"),
    (re.compile(r" (n't|'s|'re|'ve|'ll|'d|'m)\b"), r"\1"),
    (re.compile(r"(\w)s ' "), r"\1s' "),
    (re.compile(r"(^| )'' (?=\w)"), r'\1"'),
    (re.compile(r"(?<=[\w.,!?)]) ''( |$)"), r'"\1'),
    (re.compile(r" ([,.;:!?%)\]])"), r"\1"),
    (re.compile(r"([(\[$]) "), r"\1"),
    (re.compile(r"(\w) - (\w)"), r"\1-\2"),
    (re.compile(r'" (.*?) "'), r'"\1"'),
)


def detokenize_wikisplit(sentence: str) -> str:
    """A WikiSplit sentence's tokens rejoined as running text (\"film , '' Possessed '' .\" ->
    'film, "Possessed".').
    """
    text = sentence.strip()
    for pattern, replacement in _WIKISPLIT_JOINS:
        text = pattern.sub(replacement, text)
    return text


def wikisplit_documents(path: str) -> Iterator[tuple[str, list[str]]]:
    """WikiSplit's unsplit sentences (the first column), detokenized, a row per document."""
    with open(path, encoding="utf-8") as handle:
        for number, row in enumerate(handle):
            yield f"{path}:{number}", [detokenize_wikisplit(row.split("\t")[0])]


def crows_pairs_documents(path: str) -> Iterator[tuple[str, list[str]]]:
    """CrowS-Pairs' sentence pairs (``sent_more``, ``sent_less``), a pair per document."""
    with open(path, encoding="utf-8", newline="") as handle:
        for number, row in enumerate(csv.DictReader(handle)):
            yield f"{path}:{number}", [row["sent_more"].strip(), row["sent_less"].strip()]


def conllu_sentences(path: str) -> list[str]:
    """The ``# text =`` lines of a CoNLL-U file: its sentences as written."""
    with open(path, encoding="utf-8") as handle:
        return [line[len("# text = "):].rstrip("\n") for line in handle if line.startswith("# text = ")]


def conllu_documents(paths: list[str]) -> Iterator[tuple[str, list[str]]]:
    """A CoNLL-U file per document, by sorted path."""
    for path in sorted(paths):
        yield path, conllu_sentences(path)


def write_alternating(documents: Iterable[tuple[str, list[str]]], prefix: str, group: str) -> dict[str, int]:
    """Write the halves by alternation within each group of document names (sorted), group by group."""
    pattern = re.compile(group)
    groups: dict[str, list[tuple[str, list[str]]]] = {}
    for name, sentences in documents:
        match = pattern.search(name)
        groups.setdefault(match.group(1) if match else "", []).append((name, sentences))
    halves: dict[str, list[str]] = {"dev": [], "test": []}
    for key in sorted(groups):
        for k, (_, sentences) in enumerate(sorted(groups[key])):
            halves["dev" if k % 2 == 0 else "test"] += sentences
    return _write(halves, prefix)


def write_halves(documents: Iterable[tuple[str, list[str]]], prefix: str, whole: bool = False) -> dict[str, int]:
    """Write the sentences of the development and test halves (or, ``whole``, of all documents)."""
    halves: dict[str, list[str]] = {"all": []} if whole else {"dev": [], "test": []}
    for document, sentences in documents:
        halves["all" if whole else half_of(document)] += sentences
    return _write(halves, prefix)


def _write(halves: dict[str, list[str]], prefix: str) -> dict[str, int]:
    """Write each half's sentences to ``PREFIX_HALF.txt``, a sentence per line; their counts."""
    for half, sentences in halves.items():
        Path(f"{prefix}_{half}.txt").write_text("\n".join(sentences) + "\n", encoding="utf-8")
    return {half: len(sentences) for half, sentences in halves.items()}


# source -> (reader of one file, help): the sources that read a single file
FILE_SOURCES = {
    "wikitext": (wikitext_documents, "a WikiText-2 raw token file"),
    "mediawiki": (mediawiki_documents, "a MediaWiki XML dump (.xml or .xml.bz2)"),
    "gap": (gap_documents, "a TSV of the GAP coreference corpus"),
    "wikisplit": (wikisplit_documents, "a TSV of WikiSplit (tokenized Wikipedia sentences)"),
    "crows-pairs": (crows_pairs_documents, "CrowS-Pairs' crows_pairs_anonymized.csv"),
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="source", required=True)
    commands = []
    for source, (_, help_text) in FILE_SOURCES.items():
        command = sub.add_parser(source, help=help_text)
        command.add_argument("file")
        commands.append(command)
    nltk = sub.add_parser("nltk", help="an unzipped nltk_data corpus")
    nltk.add_argument("name", choices=sorted(NLTK_CORPORA))
    nltk.add_argument("directory")
    nltk.add_argument("--id-prefix", default="", help="prepended to the document names of abc, state_union and "
                      "movie_reviews before they are hashed into halves (issue 27's figures: the corpus directory "
                      "under /tmp/s5/nltk/, with its trailing slash)")
    conllu = sub.add_parser("conllu", help="CoNLL-U files (a file per document)")
    conllu.add_argument("files", nargs="+")
    conllu.add_argument("--alternate-within", metavar="REGEX", help="halves by alternation of the sorted files "
                        "within the groups the expression's first group names (default: by sha256 parity)")
    for command in (*commands, nltk, conllu):
        command.add_argument("prefix", help="writes PREFIX_dev.txt and PREFIX_test.txt")
        command.add_argument("--whole", action="store_true", help="no split: writes PREFIX_all.txt")
    args = parser.parse_args(argv)
    if args.source in FILE_SOURCES:
        documents = FILE_SOURCES[args.source][0](args.file)
    elif args.source == "conllu":
        documents = conllu_documents(args.files)
        if args.alternate_within is not None and not args.whole:
            counts = write_alternating(documents, args.prefix, args.alternate_within)
            print(", ".join(f"{n} sentences to {args.prefix}_{half}.txt" for half, n in counts.items()))
            return 0
    else:
        documents = NLTK_CORPORA[args.name](args.directory, args.id_prefix)
    counts = write_halves(documents, args.prefix, args.whole)
    print(", ".join(f"{n} sentences to {args.prefix}_{half}.txt" for half, n in counts.items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
