"""Readers for the standard third-party word-list formats, so users can load their own copies.

- line-aligned pair files: ``context_debias/{female,male}.txt`` (Kaneko & Bollegala 2021),
  ``gn_glove/{female,male}_word_file.txt`` (Zhao et al. 2018);
- SEAT tests: ``weat*.jsonl`` / ``sent-weat*.jsonl`` (May et al. 2019, as shipped with
  Sent-debias): keys ``targ1``, ``targ2``, ``attr1``, ``attr2`` each with ``category`` and
  ``examples``; and the ``word2sents*.jsonl`` maps;
- Bolukbasi et al. (2016) ``debiaswe`` JSON files: ``definitional_pairs.json``,
  ``equalize_pairs.json``, ``gender_specific_full.json``, ``professions.json``.

Every reader raises :class:`probekit.errors.InputFileError` naming the file and the problem.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Mapping

from probekit.errors import InputFileError, InvalidParameterError
from wordlists._builtin import load_attribute_pairs, load_names, load_paper_attributes
from wordlists._files import read_json, read_json_records, read_lines, read_text
from wordlists._types import AttributePairs, ProfessionScores, SeatTest, WordList

__all__ = [
    "read_word_list",
    "read_pair_files",
    "read_seat_jsonl",
    "read_seat_word_sentences",
    "read_bolukbasi_pairs",
    "read_gender_specific",
    "read_professions",
]

logger = logging.getLogger(__name__)



def read_word_list(path: str | os.PathLike[str], *, name: str | None = None) -> WordList:
    """Read a word list with one word (or multi-word term) per line.

    Blank lines and lines starting with ``#`` are skipped.

    Parameters
    ----------
    path : str or path-like
        UTF-8 text file.
    name : str, optional
        Name of the list; default the file name without extension.
    """
    p = Path(path)
    words = tuple(line for _, line in read_lines(p, what="word list"))
    if not words:
        raise InputFileError(f"word list {p} contains no words")
    return WordList(name or p.stem, words, source=str(p))


def _raw_lines(path: Path, what: str) -> list[str]:
    text = read_text(path, what=what, encoding_hint="word-list files must be UTF-8; convert the file to UTF-8")
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def read_pair_files(
    female_path: str | os.PathLike[str],
    male_path: str | os.PathLike[str],
    *,
    name: str | None = None,
) -> AttributePairs:
    """Read two line-aligned files: line i of the female file pairs with line i of the male file.

    The format of ``context_debias/female.txt`` + ``male.txt`` and of
    ``gn_glove/female_word_file.txt`` + ``male_word_file.txt``. Duplicate words are kept (the
    published lists repeat a few, e.g. "ladies"), so that the alignment is preserved.

    Raises
    ------
    InputFileError
        A file is missing or not UTF-8, the files have different numbers of lines, or a line is
        empty in one file but not in the other.
    """
    fp, mp = Path(female_path), Path(male_path)
    female_lines = _raw_lines(fp, "female pair file")
    male_lines = _raw_lines(mp, "male pair file")
    if len(female_lines) != len(male_lines):
        raise InputFileError(
            f"pair files are not aligned: {fp} has {len(female_lines)} lines but {mp} has "
            f"{len(male_lines)}; line i of one file must be the counterpart of line i of the other"
        )
    female, male = [], []
    for number, (f, m) in enumerate(zip(female_lines, male_lines), start=1):
        if not f and not m:
            continue
        if not f or not m:
            empty = fp if not f else mp
            raise InputFileError(f"pair files are not aligned: line {number} of {empty} is empty but its counterpart is not")
        female.append(f)
        male.append(m)
    if not female:
        raise InputFileError(f"pair files {fp} and {mp} contain no words")
    return AttributePairs(
        female=tuple(female), male=tuple(male), name=name or fp.parent.name or "pairs",
        source=f"{fp} + {mp}",
    )


_SEAT_FILE_KEYS = {"targ1": "target_1", "targ2": "target_2", "attr1": "attribute_1", "attr2": "attribute_2"}


def read_seat_jsonl(path: str | os.PathLike[str], *, name: str | None = None) -> SeatTest:
    """Read a SEAT test in the May et al. (2019) format (``weat6.jsonl``, ``sent-weat6.jsonl``, ...).

    The file holds one JSON object with keys ``targ1``, ``targ2``, ``attr1``, ``attr2``, each
    ``{"category": str, "examples": [str, ...]}`` (word-level files list words, sentence-level
    files list sentences). The published files spread the object over many lines; JSON Lines
    with the four keys spread over several one-line objects is accepted too.

    Parameters
    ----------
    path : str or path-like
    name : str, optional
        Test name; default the file name without extension (``"weat6"``).
    """
    p = Path(path)
    what = "SEAT test file"
    records = read_json_records(p, what=what)
    merged: dict[str, Any] = {}
    for record in records:
        if not isinstance(record, dict):
            raise InputFileError(f"{what} {p}: expected a JSON object with keys targ1, targ2, attr1, attr2, got {type(record).__name__}")
        merged.update(record)
    missing = [k for k in _SEAT_FILE_KEYS if k not in merged]
    if missing:
        raise InputFileError(f"{what} {p} lacks the key(s) {', '.join(missing)}; expected targ1, targ2, attr1, attr2")
    sets = {}
    for key, field_name in _SEAT_FILE_KEYS.items():
        entry = merged[key]
        if not isinstance(entry, dict) or "examples" not in entry:
            raise InputFileError(f"{what} {p}: {key} must be an object with 'category' and 'examples'")
        examples = entry["examples"]
        if not isinstance(examples, list) or not examples or not all(isinstance(e, str) and e.strip() for e in examples):
            raise InputFileError(f"{what} {p}: {key}.examples must be a non-empty list of strings")
        category = entry.get("category", key)
        if not isinstance(category, str):
            raise InputFileError(f"{what} {p}: {key}.category must be a string")
        sets[field_name] = WordList(category, tuple(examples), source=str(p))
    return SeatTest(name=name or p.name.split(".")[0], source=str(p), **sets)


def read_seat_word_sentences(path: str | os.PathLike[str]) -> Mapping[str, tuple[str, ...]]:
    """Read a ``word2sents*.jsonl`` file: one JSON object mapping each word to its sentences."""
    p = Path(path)
    what = "word-to-sentences file"
    merged: dict[str, tuple[str, ...]] = {}
    for record in read_json_records(p, what=what):
        if not isinstance(record, dict):
            raise InputFileError(f"{what} {p}: expected JSON objects mapping words to lists of sentences")
        for word, sents in record.items():
            if not isinstance(sents, list) or not all(isinstance(s, str) for s in sents):
                raise InputFileError(f"{what} {p}: the value for {word!r} must be a list of strings")
            merged[word] = tuple(sents)
    return merged


def _json_list(path: Path, what: str) -> list:
    data = read_json(path, what=what)
    if not isinstance(data, list):
        raise InputFileError(f"{what} {path}: expected a JSON list, got {type(data).__name__}")
    return data


_SPLIT = re.compile(r"[\s_\-]+")


def _gender_score(word: str, female: frozenset[str], male: frozenset[str]) -> int:
    tokens = [word.lower()] + [t for t in _SPLIT.split(word.lower()) if t]
    return sum((t in female) - (t in male) for t in tokens)


def read_bolukbasi_pairs(
    path: str | os.PathLike[str], *, order: str = "auto", name: str | None = None
) -> AttributePairs:
    """Read a Bolukbasi et al. (2016) pair file (``definitional_pairs.json``, ``equalize_pairs.json``).

    The file is a JSON list of two-element lists. ``definitional_pairs.json`` lists the female
    word first; ``equalize_pairs.json`` mixes both orders (mostly male first).

    Parameters
    ----------
    path : str or path-like
    order : {"auto", "female_first", "male_first"}
        How to read each pair. ``"auto"`` puts the female word first, deciding by the built-in
        attribute-pair, paper-attribute and first-name lists (compound words such as
        ``"twin_brother"`` are decided by their parts); pairs it cannot decide stay as given
        and are logged.
    name : str, optional
        Default: the file name without extension.
    """
    valid = ("auto", "female_first", "male_first")
    if order not in valid:
        raise InvalidParameterError("order", order, valid)
    p = Path(path)
    what = "pair file"
    data = _json_list(p, what)
    raw = []
    for i, item in enumerate(data):
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(w, str) and w.strip() for w in item)):
            raise InputFileError(f"{what} {p}: item {i} must be a list of two words, got {item!r}")
        raw.append((item[0], item[1]))
    if not raw:
        raise InputFileError(f"{what} {p} contains no pairs")
    if order == "male_first":
        oriented = [(b, a) for a, b in raw]
    elif order == "female_first":
        oriented = raw
    else:
        female_lex, male_lex = _gender_lexicon()
        oriented, undecided = [], []
        for a, b in raw:
            sa, sb = _gender_score(a, female_lex, male_lex), _gender_score(b, female_lex, male_lex)
            if sa > sb:
                oriented.append((a, b))
            elif sb > sa:
                oriented.append((b, a))
            else:
                oriented.append((a, b))
                undecided.append((a, b))
        if undecided:
            logger.warning("%s: could not tell which word is female in %d pair(s), kept as given: %s",
                           p, len(undecided), undecided[:10])
    return AttributePairs(
        female=tuple(a for a, _ in oriented), male=tuple(b for _, b in oriented),
        name=name or p.stem, source=str(p),
    )


def _gender_lexicon() -> tuple[frozenset[str], frozenset[str]]:

    pairs, names, paper = load_attribute_pairs(), load_names(), load_paper_attributes()
    female = {w.lower() for w in pairs.female} | {a.lower() for a, _ in pairs.extra_swaps}
    male = {w.lower() for w in pairs.male} | {b.lower() for _, b in pairs.extra_swaps}
    female |= {w.lower() for w in names.female} | {w.lower() for w in paper.female}
    male |= {w.lower() for w in names.male} | {w.lower() for w in paper.male}
    both = female & male
    return frozenset(female - both), frozenset(male - both)


def read_gender_specific(path: str | os.PathLike[str], *, name: str | None = None) -> WordList:
    """Read ``gender_specific_full.json`` (Bolukbasi et al. 2016): a JSON list of words."""
    p = Path(path)
    what = "gender-specific word file"
    data = _json_list(p, what)
    bad = [w for w in data if not isinstance(w, str) or not w.strip()]
    if bad:
        raise InputFileError(f"{what} {p}: every item must be a non-empty string, got {bad[:3]!r}")
    if not data:
        raise InputFileError(f"{what} {p} contains no words")
    return WordList(name or p.stem, tuple(data), source=str(p))


def read_professions(path: str | os.PathLike[str]) -> ProfessionScores:
    """Read ``professions.json`` (Bolukbasi et al. 2016): ``[[word, definitional, stereotypical], ...]``."""
    p = Path(path)
    what = "professions file"
    data = _json_list(p, what)
    words, definitional, stereotypical = [], [], []
    for i, item in enumerate(data):
        ok = (
            isinstance(item, list) and len(item) == 3 and isinstance(item[0], str)
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in item[1:])
        )
        if not ok:
            raise InputFileError(f"{what} {p}: item {i} must be [word, definitional score, stereotypical score], got {item!r}")
        words.append(item[0])
        definitional.append(float(item[1]))
        stereotypical.append(float(item[2]))
    if not words:
        raise InputFileError(f"{what} {p} contains no professions")
    return ProfessionScores(tuple(words), tuple(definitional), tuple(stereotypical), source=str(p))
