"""Sentences to embed words in: text files, Hugging Face datasets and the built-in template
corpus, and the selection of the sentences that contain each word.

Tokpo et al. (2023) take every sentence of a corpus that contains a word, and for stereotype
words only sentences that contain no attribute word (an attribute word in the context leaks
gender into the stereotype word's embedding). :func:`select_sentences` does this in one pass
over the corpus with one compiled pattern.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any, Iterable, Iterator, Mapping

import numpy as np

from probekit.errors import InputFileError, InvalidParameterError, MissingSentencesError, ProbekitError
from probekit.text._wordmatch import WordMatcher, normalize_word
from probekit.utils import atomic_write_text, hub_offline
from wordlists import SLOT_TYPES, builtin_words, read_text, slot_types

__all__ = [
    "Corpus",
    "SentenceSelection",
    "load_text_corpus",
    "load_hf_corpus",
    "template_corpus",
    "template_frames",
    "select_sentences",
    "split_sentences",
    "indefinite_article",
]

logger = logging.getLogger(__name__)


def _digest(sentences: Iterable[str]) -> str:
    h = hashlib.sha256()
    first = True
    for s in sentences:
        if not first:
            h.update(b"\n")
        h.update(s.encode("utf-8"))
        first = False
    return h.hexdigest()


# --------------------------------------------------------------------------------------------
# Corpus
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus(Sequence):
    """An ordered collection of sentences with a name and a description of where it came from.

    Parameters
    ----------
    sentences : sequence of str
        The sentences (or short texts), in order.
    name : str
        Short name used in reports and provenance.
    source : str
        Where the sentences come from (file path and mode, dataset and column, template set).

    Attributes
    ----------
    digest : str
        SHA-256 (hex) of the sentences joined by newlines: two corpora with the same digest hold
        the same sentences in the same order. Recorded in the provenance of every result.
    """

    sentences: tuple[str, ...]
    name: str = "corpus"
    source: str = ""
    digest: str = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if isinstance(self.sentences, str):
            raise InvalidParameterError("sentences", self.sentences, "a sequence of sentences, not one string")
        sentences = tuple(self.sentences)
        bad = next((s for s in sentences if not isinstance(s, str)), None)
        if bad is not None:
            raise InvalidParameterError("sentences", bad, "strings only")
        object.__setattr__(self, "sentences", sentences)
        object.__setattr__(self, "digest", _digest(sentences))

    def __len__(self) -> int:
        return len(self.sentences)

    def __getitem__(self, index):  # type: ignore[override]
        return self.sentences[index]

    def __iter__(self) -> Iterator[str]:
        return iter(self.sentences)

    def describe(self) -> dict[str, Any]:
        """Name, source, size and digest, for provenance."""
        return {"name": self.name, "source": self.source, "n_sentences": len(self), "digest": self.digest}

    def to_text_file(self, path: str | os.PathLike[str]) -> Path:
        """Write one sentence per line (UTF-8, atomically); newlines inside sentences become spaces.

        :func:`load_text_corpus` reads the file back into the same sentences.
        """
        lines = (" ".join(s.split()) for s in self.sentences)
        return atomic_write_text(path, "".join(line + "\n" for line in lines if line))


def as_corpus(corpus: Any) -> Corpus:
    if isinstance(corpus, Corpus):
        return corpus
    if isinstance(corpus, (str, bytes, os.PathLike)):
        raise InvalidParameterError(
            "corpus", corpus, "a Corpus or a sequence of sentences",
            "to read a file use load_text_corpus(path) first",
        )
    try:
        return Corpus(tuple(corpus), name="sentences", source="in-memory sentences")
    except TypeError:
        raise InvalidParameterError("corpus", corpus, "a Corpus or a sequence of sentences") from None


# --------------------------------------------------------------------------------------------
# Sentence splitting
# --------------------------------------------------------------------------------------------

# Abbreviations after which a period does not end a sentence (compared lowercase, without the
# final period).
_NON_FINAL_ABBREVIATIONS = frozenset(
    """mr mrs ms mx dr prof st sr jr rev fr hon gen col capt cpt sgt lt cmdr adm gov sen pres
    mt approx ca cf vs v e.g i.e viz al dept univ assn bros messrs mme mlle
    jan feb apr jun jul aug sep sept oct nov dec
    """.split()
)
# Abbreviations that do not end a sentence when a number follows ("No. 5", "Fig. 3", "p. 12")
# but may end one otherwise ("The answer was no. We left.").
_BEFORE_NUMBER_ABBREVIATIONS = frozenset("no nos vol vols fig figs eq eqs ch sec art p pp".split())
# Abbreviations that often end a sentence: split after them when a capital letter follows.
_FINAL_ABBREVIATIONS = frozenset("etc inc ltd co corp a.m p.m am pm".split())

_BOUNDARY = re.compile(r"""([.!?\u2026]+)(["'\u201d\u2019)\]]*)(\s+)(?=["'\u201c\u2018(\[]*[A-Z0-9\u00c0-\u00de])""")
_INITIALISM = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")


def _token_before(text: str, end: int) -> str:
    start = end
    while start > 0 and not text[start - 1].isspace():
        start -= 1
    return text[start:end].lstrip("\"'\u201c\u2018([")


def split_sentences(text: str) -> list[str]:
    """Split running text into sentences with rules (no model, deterministic).

    A sentence ends at ``.``, ``!``, ``?`` or an ellipsis, optionally followed by closing quotes
    or brackets, when whitespace and then a capital letter, a digit or an opening quote follow.
    A period does not end a sentence after a known abbreviation (Dr., Mr., e.g., i.e., ...;
    "No.", "Fig.", "p." only before a number), after a single initial ("J. K. Rowling") or after a dotted initialism ("U.S.");
    decimals ("3.14") never split because no space follows the period. Lines are joined, so
    hard-wrapped text splits the same as unwrapped text.

    Parameters
    ----------
    text : str
        One paragraph (or any text).

    Returns
    -------
    list of str
        The sentences, stripped, without empty ones.
    """
    flat = " ".join(text.split())
    if not flat:
        return []
    sentences = []
    start = 0
    for m in _BOUNDARY.finditer(flat):
        terminator = m.group(1)
        if terminator == ".":
            token = _token_before(flat, m.start(1)).rstrip(".")
            low = token.lower()
            if low in _NON_FINAL_ABBREVIATIONS:
                continue
            if low in _BEFORE_NUMBER_ABBREVIATIONS and flat[m.end(3):m.end(3) + 1].isdigit():
                continue
            if low not in _FINAL_ABBREVIATIONS:
                if len(token) == 1 and token.isalpha() and token.isupper():
                    continue  # an initial: "J. K. Rowling"
                if _INITIALISM.match(token):
                    continue  # a dotted initialism: "U.S. Army"
        end = m.end(2)
        piece = flat[start:end].strip()
        if piece:
            sentences.append(piece)
        start = m.end(3)
    tail = flat[start:].strip()
    if tail:
        sentences.append(tail)
    return sentences


_split_text = split_sentences  # load_hf_corpus has a parameter called split_sentences


# --------------------------------------------------------------------------------------------
# Loading
# --------------------------------------------------------------------------------------------

_MODES = ("lines", "paragraphs")


def load_text_corpus(
    path: str | os.PathLike[str],
    *,
    mode: str = "lines",
    encoding: str = "utf-8",
    name: str | None = None,
) -> Corpus:
    """Read a plain-text corpus.

    Parameters
    ----------
    path : str or path-like
        The text file.
    mode : {"lines", "paragraphs"}
        ``"lines"``: one sentence per line. ``"paragraphs"``: paragraphs separated by blank
        lines, split into sentences by :func:`split_sentences` (wrapped lines are joined).
        Empty lines are skipped in both modes.
    encoding : str
        Text encoding of the file (default UTF-8; a byte-order mark is dropped).
    name : str, optional
        Corpus name; default the file name.

    Returns
    -------
    Corpus

    Raises
    ------
    InputFileError
        The file does not exist, is not valid text in ``encoding`` (the message names the byte
        offset and suggests the ``encoding`` parameter) or contains no sentences.
    InvalidParameterError
        Unknown ``mode`` or ``encoding``.
    """
    if mode not in _MODES:
        raise InvalidParameterError("mode", mode, _MODES)

    p = Path(path)
    text = read_text(p, encoding=encoding, what="corpus file")
    if mode == "lines":
        sentences = [line.strip() for line in text.splitlines()]
        sentences = [s for s in sentences if s]
    else:
        sentences = []
        for paragraph in re.split(r"\n[ \t\r\f\v]*\n", text.replace("\r\n", "\n").replace("\r", "\n")):
            sentences.extend(split_sentences(paragraph))
    if not sentences:
        raise InputFileError(f"corpus file {p} contains no sentences")
    logger.info("read %d sentences from %s (mode=%s)", len(sentences), p, mode)
    return Corpus(tuple(sentences), name=name or p.name, source=f"{p} (mode={mode}, encoding={encoding})")


_DATA_FILE_BUILDERS = {
    ".csv": "csv",
    ".tsv": "csv",
    ".json": "json",
    ".jsonl": "json",
    ".parquet": "parquet",
    ".txt": "text",
}


def _is_saved_dataset(path: Path) -> bool:
    return path.is_dir() and any(
        (path / marker).exists() for marker in ("dataset_info.json", "state.json", "dataset_dict.json")
    )


def _load_local_dataset(datasets: Any, path: Path, split: str, kwargs: dict[str, Any]) -> tuple[Any, str]:
    """(dataset or dataset dict, description) of a saved dataset, a data file or a data folder."""
    if _is_saved_dataset(path):
        return datasets.load_from_disk(str(path)), f"saved dataset {path}"
    if path.is_file():
        builder = _DATA_FILE_BUILDERS.get(path.suffix.lower())
        if builder is None:
            raise InvalidParameterError(
                "name_or_path", str(path), "a saved dataset folder or a data file ending in "
                + ", ".join(sorted(_DATA_FILE_BUILDERS)),
            )
        if path.suffix.lower() == ".tsv":
            kwargs["delimiter"] = "\t"
        try:
            loaded = datasets.load_dataset(builder, data_files={split: str(path)}, **kwargs)
        except Exception as exc:
            raise InputFileError(f"cannot read {path} as a {builder} data file: {exc}") from exc
        return loaded, f"data file {path} ({builder})"
    try:
        loaded = datasets.load_dataset(str(path), **kwargs)
    except Exception as exc:
        raise InputFileError(f"cannot read a dataset from the folder {path}: {exc}") from exc
    return loaded, f"data folder {path}"


def _load_hub_dataset(datasets: Any, hub_name: str, split: str, kwargs: dict[str, Any]) -> tuple[Any, str]:
    """(split, description) of a Hub dataset; raises a hint to pass a local path when offline."""
    hint = (
        f"{hub_name!r} is not a local path; to read a Hub dataset probekit needs network access. "
        "Pass a local path instead: a folder written by Dataset.save_to_disk, or a "
        ".csv/.json/.jsonl/.parquet/.txt file"
    )
    if hub_offline():
        raise ProbekitError(f"offline mode (HF_DATASETS_OFFLINE/HF_HUB_OFFLINE is set): {hint}")
    try:
        loaded = datasets.load_dataset(hub_name, split=split, **kwargs)
    except Exception as exc:
        raise ProbekitError(f"could not load the Hub dataset {hub_name!r} ({type(exc).__name__}: {exc}). {hint}") from exc
    return loaded, f"Hub dataset {hub_name}"


def _pick_split(datasets: Any, loaded: Any, split: str) -> Any:
    """The ``split`` of a dataset dict (raises listing the splits); a single dataset as is."""
    if isinstance(loaded, (datasets.DatasetDict, dict)):
        if split not in loaded:
            raise InvalidParameterError("split", split, sorted(loaded.keys()))
        return loaded[split]
    return loaded


def _read_texts(dataset: Any, text_column: str, split_sentences: bool, max_sentences: int | None) -> list[str]:
    """The non-empty texts of ``text_column`` (split into sentences if asked), at most ``max_sentences``."""
    sentences: list[str] = []
    for batch in dataset.iter(batch_size=1000):
        for value in batch[text_column]:
            if value is None:
                continue
            text = str(value)
            pieces = _split_text(text) if split_sentences else [text.strip()]
            for piece in pieces:
                if piece:
                    sentences.append(piece)
                    if max_sentences is not None and len(sentences) >= max_sentences:
                        return sentences
    return sentences


def load_hf_corpus(
    name_or_path: str | os.PathLike[str],
    *,
    text_column: str = "text",
    split: str = "train",
    max_sentences: int | None = None,
    split_sentences: bool = False,
    cache_dir: str | os.PathLike[str] | None = None,
) -> Corpus:
    """Read a corpus from a Hugging Face ``datasets`` dataset.

    Parameters
    ----------
    name_or_path : str or path-like
        A local path — a dataset saved with ``save_to_disk`` (read with ``load_from_disk``), a
        data file (``.csv``, ``.tsv``, ``.json``, ``.jsonl``, ``.parquet``, ``.txt``) or a
        folder of data files — or, when online, a dataset name on the Hugging Face Hub.
    text_column : str
        Column holding the text.
    split : str
        Split to read (for a single data file the file is read as this split).
    max_sentences : int, optional
        Stop after this many sentences (the first ones, in dataset order).
    split_sentences : bool
        Split each text into sentences with :func:`split_sentences` (for documents); by
        default each non-empty text is one sentence.
    cache_dir : str or path-like, optional
        Cache folder for ``datasets.load_dataset``.

    Returns
    -------
    Corpus

    Raises
    ------
    InvalidParameterError
        ``text_column`` is not a column (the message lists the columns), ``split`` is not a
        split (the message lists the splits), or ``max_sentences`` is not a positive integer.
    ProbekitError
        A Hub name was given while offline (pass a local path instead), or the dataset could
        not be loaded.
    """
    if max_sentences is not None and (
        isinstance(max_sentences, bool) or not isinstance(max_sentences, (int, np.integer)) or max_sentences < 1
    ):
        raise InvalidParameterError("max_sentences", max_sentences, "a positive integer or None")
    try:
        import datasets
    except ImportError as exc:  # pragma: no cover - datasets is a dependency
        raise ProbekitError("load_hf_corpus needs the `datasets` package: pip install datasets") from exc

    path = Path(name_or_path)
    kwargs: dict[str, Any] = {}
    if cache_dir is not None:
        kwargs["cache_dir"] = str(cache_dir)
    if path.exists():
        loaded, origin = _load_local_dataset(datasets, path, split, kwargs)
    else:
        loaded, origin = _load_hub_dataset(datasets, str(name_or_path), split, kwargs)
    dataset = _pick_split(datasets, loaded, split)
    columns = list(dataset.column_names)
    if text_column not in columns:
        raise InvalidParameterError("text_column", text_column, columns, f"columns of {origin}")
    sentences = _read_texts(dataset, text_column, split_sentences, max_sentences)
    if not sentences:
        raise InputFileError(f"{origin}: column {text_column!r} of split {split!r} holds no text")
    source = f"{origin}, split={split}, column={text_column}"
    if split_sentences:
        source += ", split into sentences"
    if max_sentences is not None:
        source += f", first {max_sentences} sentences"
    name = path.name if path.exists() else str(name_or_path)
    return Corpus(tuple(sentences), name=name, source=source)



# --------------------------------------------------------------------------------------------
# Template corpus
# --------------------------------------------------------------------------------------------

_PLACEHOLDERS = re.compile(r"\{(w|W|a|A)\}")

# Words spelled with a vowel letter but pronounced with a consonant sound, and the reverse.
_A_BEFORE_VOWEL_LETTER = re.compile(
    r"^(?:one(?!r)|once|uni(?!n|mp)|use|usu|uran|ure|uro|euro|eu|ewe|uga|ute|utop|ubiq|u$)", re.I
)
_AN_BEFORE_CONSONANT_LETTER = re.compile(r"^(?:hour|heir|honest|honou?r)", re.I)


def indefinite_article(word: str) -> str:
    """``"a"`` or ``"an"`` for ``word``, by its first sound as far as spelling tells it.

    A vowel letter takes "an" ("an actress", "an uncle"), except where it is spoken as a
    consonant ("a uniform", "a ewe", "a user", "a one-off"); a silent h takes "an" ("an heir",
    "an heiress", "an hour", "an honest"). Abbreviations read letter by letter ("FBI") are
    not recognized.
    """
    w = word.strip().lstrip("\"'(\u201c\u2018")
    if not w:
        return "a"
    if _AN_BEFORE_CONSONANT_LETTER.match(w):
        return "an"
    if _A_BEFORE_VOWEL_LETTER.match(w):
        return "a"
    return "an" if w[0].lower() in "aeiou" else "a"


@functools.lru_cache(maxsize=None)
def _frames(slot: str) -> tuple[str, ...]:
    path = resources.files("probekit") / "data" / "templates" / f"{slot}.txt"
    text = path.read_text(encoding="utf-8")
    frames = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            frames.append(line)
    return tuple(frames)


def template_frames(slot_type: str) -> tuple[str, ...]:
    """The built-in frames of one slot type (``{w}`` word, ``{W}`` capitalized, ``{a}``/``{A}`` article)."""
    if slot_type not in SLOT_TYPES:
        raise InvalidParameterError("slot_type", slot_type, SLOT_TYPES)
    return _frames(slot_type)


def _fill(frame: str, word: str) -> str:
    article = indefinite_article(word)

    def repl(m: re.Match[str]) -> str:
        key = m.group(1)
        if key == "w":
            return word
        if key == "W":
            return word[:1].upper() + word[1:]
        if key == "a":
            return article
        return article.capitalize()

    return _PLACEHOLDERS.sub(repl, frame)


def _resolve_words(words: Any) -> list[tuple[str, tuple[str, ...]]]:

    if words is None:
        return [(w, slot_types(w)) for w in builtin_words()]
    if isinstance(words, str):
        raise InvalidParameterError("words", words, "a list of words or a mapping word -> slot type, not one string")
    resolved: list[tuple[str, tuple[str, ...]]] = []
    if isinstance(words, Mapping):
        items = list(words.items())
    else:
        items = [(w, None) for w in words]
    if not items:
        raise InvalidParameterError("words", words, "at least one word")
    for word, given in items:
        if not isinstance(word, str) or not word.strip():
            raise InvalidParameterError("words", word, "non-empty strings")
        if given is None:
            types = slot_types(word)
        else:
            types = (given,) if isinstance(given, str) else tuple(given)
            unknown = [t for t in types if t not in SLOT_TYPES]
            if unknown or not types:
                raise InvalidParameterError(f"words[{word!r}]", given, SLOT_TYPES)
        resolved.append((word.strip(), types))
    return resolved


def template_corpus(
    words: Iterable[str] | Mapping[str, str | Sequence[str]] | None = None,
    *,
    frames_per_word: int | None = None,
    random_state: int | np.random.Generator | None = None,
    name: str = "templates",
) -> Corpus:
    """The built-in template corpus: each word placed into every natural frame of its slot type.

    The frames (``probekit/data/templates/<slot type>.txt``, at least 100 per slot type) were
    written for probekit and contain no gendered word, no first name and no stereotype or SEAT
    word, so a sentence made for a stereotype word contains no attribute word. Articles are
    chosen for the word ("an actress", "a nurse", "an heir").

    Parameters
    ----------
    words : sequence of str or mapping, optional
        The words. Default: every attribute, stereotype and SEAT word of the built-in lists
        (:func:`wordlists.builtin_words`). A sequence of words uses the built-in slot types
        (:func:`wordlists.slot_types`); a mapping gives each word's slot type(s) explicitly,
        e.g. ``{"midwife": "person_singular"}``.
    frames_per_word : int, optional
        Use this many frames per word, drawn without replacement with ``random_state``
        (default: all frames, no randomness).
    random_state : int, numpy Generator or None
        Seed for ``frames_per_word``.
    name : str
        Corpus name.

    Returns
    -------
    Corpus
        Sentences grouped by word in the order given, frames in file order; duplicates dropped.
    """
    if frames_per_word is not None and (
        isinstance(frames_per_word, bool) or not isinstance(frames_per_word, (int, np.integer)) or frames_per_word < 1
    ):
        raise InvalidParameterError("frames_per_word", frames_per_word, "a positive integer or None")
    resolved = _resolve_words(words)
    rng = np.random.default_rng(random_state) if frames_per_word is not None else None
    sentences: dict[str, None] = {}
    used_types: set[str] = set()
    for word, types in resolved:
        frames = [f for t in types for f in _frames(t)]
        used_types.update(types)
        if rng is not None and frames_per_word is not None and frames_per_word < len(frames):
            keep = np.sort(rng.choice(len(frames), size=frames_per_word, replace=False))
            frames = [frames[i] for i in keep]
        for frame in frames:
            sentences.setdefault(_fill(frame, word), None)
    n_frames = sum(len(_frames(t)) for t in SLOT_TYPES if t in used_types)
    source = (
        f"probekit built-in template corpus: {len(resolved)} words in {n_frames} frames of "
        f"{len(used_types)} slot types"
    )
    if frames_per_word is not None:
        source += f", {frames_per_word} frames per word (random_state={random_state!r})"
    return Corpus(tuple(sentences), name=name, source=source)


# --------------------------------------------------------------------------------------------
# Sentence selection
# --------------------------------------------------------------------------------------------

_ON_MISSING = ("warn", "error", "ignore")


@dataclass(frozen=True)
class SentenceSelection:
    """The sentences selected for each word by :func:`select_sentences`.

    Attributes
    ----------
    words : tuple of str
        The requested words (duplicates, and case variants when matching ignores case, removed).
    sentences : tuple of str
        The unique selected sentences, in corpus order.
    corpus_indices : tuple of int
        Position in the corpus of each selected sentence.
    indices : mapping str -> tuple of int
        For each word, the positions in :attr:`sentences` of its sentences (increasing).
    available : mapping str -> int
        For each word, how many distinct sentences contain it and passed the exclusion (before
        the cap).
    excluded : mapping str -> int
        For each word, how many distinct sentences containing it were dropped because they
        contain a word of ``exclude_words``.
    missing : tuple of str
        Words with no selected sentence.
    parameters : mapping
        ``max_per_word``, ``random_state``, ``case_sensitive``, the number and digest of the
        exclude words, and the corpus name, size and digest.
    """

    words: tuple[str, ...]
    sentences: tuple[str, ...]
    corpus_indices: tuple[int, ...]
    indices: Mapping[str, tuple[int, ...]]
    available: Mapping[str, int]
    excluded: Mapping[str, int]
    missing: tuple[str, ...]
    parameters: Mapping[str, Any]

    @property
    def counts(self) -> dict[str, int]:
        """Number of selected sentences per word."""
        return {w: len(self.indices[w]) for w in self.words}

    @property
    def digest(self) -> str:
        """SHA-256 of the selected sentences joined by newlines."""
        return _digest(self.sentences)

    def sentences_for(self, word: str) -> tuple[str, ...]:
        """The selected sentences of ``word``."""
        if word not in self.indices:
            raise InvalidParameterError("word", word, "one of the selected words")
        return tuple(self.sentences[i] for i in self.indices[word])

    def report(self, *, max_rows: int | None = None) -> str:
        """A readable summary: corpus, parameters, missing words and per-word counts."""
        p = self.parameters
        lines = [
            f"Sentence selection from corpus {p['corpus_name']!r} ({p['corpus_size']:,} sentences, "
            f"digest {p['corpus_digest'][:12]})",
            f"  words: {len(self.words)}; selected sentences: {len(self.sentences):,}; "
            f"max_per_word={p['max_per_word']}, random_state={p['random_state']}, "
            f"case_sensitive={p['case_sensitive']}, exclude_words={p['n_exclude_words']}",
        ]
        total_excluded = sum(self.excluded.values())
        if p["n_exclude_words"]:
            lines.append(f"  sentences dropped for containing an excluded word: {total_excluded:,} (word-sentence pairs)")
        if self.missing:
            lines.append(f"  missing ({len(self.missing)} words with no sentence): {', '.join(self.missing)}")
        else:
            lines.append("  missing: none")
        width = max([4] + [len(w) for w in self.words])
        lines.append(f"  {'word':<{width}}  {'available':>9}  {'excluded':>8}  {'selected':>8}")
        rows = self.words if max_rows is None else self.words[:max_rows]
        for w in rows:
            lines.append(
                f"  {w:<{width}}  {self.available[w]:>9,}  {self.excluded[w]:>8,}  {len(self.indices[w]):>8,}"
            )
        if max_rows is not None and len(self.words) > max_rows:
            lines.append(f"  ... {len(self.words) - max_rows} more words")
        return "\n".join(lines)

    def to_dict(self, *, include_sentences: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "words": list(self.words),
            "missing": list(self.missing),
            "counts": self.counts,
            "available": dict(self.available),
            "excluded": dict(self.excluded),
            "parameters": dict(self.parameters),
            "digest": self.digest,
        }
        if include_sentences:
            out["sentences"] = list(self.sentences)
            out["indices"] = {w: list(v) for w, v in self.indices.items()}
        return out


def _check_words(value: Any, parameter: str, *, allow_empty: bool) -> list[str]:
    if isinstance(value, (str, bytes)):
        raise InvalidParameterError(parameter, value, "a list of words, not a single string", f"did you mean [{value!r}]?")
    try:
        words = list(value)
    except TypeError:
        raise InvalidParameterError(parameter, value, "a list of words") from None
    if not words and not allow_empty:
        raise InvalidParameterError(parameter, value, "a non-empty list of words")
    bad = [w for w in words if not isinstance(w, str) or not w.strip()]
    if bad:
        raise InvalidParameterError(parameter, bad[:5], "non-empty strings only")
    return words


def select_sentences(
    corpus: Corpus | Sequence[str],
    words: Iterable[str],
    *,
    exclude_words: Iterable[str] | None = None,
    max_per_word: int | None = None,
    random_state: int | np.random.Generator | None = None,
    case_sensitive: bool = False,
    on_missing: str = "warn",
) -> SentenceSelection:
    """Select the sentences that contain each word as a whole word.

    One pass over the corpus with one compiled pattern for ``words`` and ``exclude_words``
    together (a prefix-tree regular expression, so it scales to millions of sentences).
    Following Tokpo et al. (2023), stereotype words are embedded only in sentences free of
    attribute words: pass the attribute words as ``exclude_words``.

    Parameters
    ----------
    corpus : Corpus or sequence of str
    words : iterable of str
        Words (or multi-word terms) to find. A word matches where it is not preceded or followed
        by a letter, digit or underscore: "he" matches in "he's" and "he-goat" but not in
        "the"; multi-word terms match across any whitespace.
    exclude_words : iterable of str, optional
        A sentence is not used for a word when it contains any of these words other than the
        word itself (so a word that is in both lists keeps its sentences unless another
        excluded word occurs in them).
    max_per_word : int, optional
        Keep at most this many sentences per word, drawn without replacement with
        ``random_state`` (``np.random.default_rng``); kept sentences stay in corpus order. Words
        are drawn for in the order given, from one generator.
    random_state : int, numpy Generator or None
        Seed of the cap; the same seed gives the same selection.
    case_sensitive : bool
        Match case exactly (for cased models); by default case is ignored.
    on_missing : {"warn", "error", "ignore"}
        What to do when a word has no sentence: log and ``warnings.warn`` (default), raise
        :class:`~probekit.errors.MissingSentencesError`, or nothing. Missing words are always
        listed in ``missing`` and in :meth:`SentenceSelection.report`.

    Returns
    -------
    SentenceSelection

    Notes
    -----
    Identical sentences are counted once (the first occurrence is kept). Where terms overlap,
    the longest one wins ("ice cream" hides "ice" in "ice cream").
    """
    _check_selection_args(on_missing, max_per_word, case_sensitive)
    word_list = _check_words(words, "words", allow_empty=False)
    excl_list = _check_words(exclude_words, "exclude_words", allow_empty=True) if exclude_words is not None else []
    corpus = as_corpus(corpus)
    try:
        rng = np.random.default_rng(random_state)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError("random_state", random_state, "an int, a numpy Generator or None", str(exc)) from None

    def key(w: str) -> str:
        return normalize_word(w, case_sensitive=bool(case_sensitive))

    canonical: dict[str, str] = {}
    for w in word_list:
        canonical.setdefault(key(w), " ".join(w.split()))
    matcher = WordMatcher(list(canonical.values()) + excl_list, case_sensitive=bool(case_sensitive))
    found_in, excluded = _scan_corpus(corpus.sentences, matcher, key, canonical, frozenset(key(w) for w in excl_list))
    chosen = _cap_per_word(found_in, max_per_word, rng)
    corpus_indices = sorted({i for idx in chosen.values() for i in idx})
    position = {ci: pos for pos, ci in enumerate(corpus_indices)}

    words_out = tuple(canonical.values())
    indices = {canonical[k]: tuple(position[i] for i in chosen[k]) for k in canonical}
    missing = tuple(w for w in words_out if not indices[w])
    parameters = {
        "max_per_word": None if max_per_word is None else int(max_per_word),
        "random_state": random_state if (random_state is None or isinstance(random_state, (int, np.integer))) else repr(random_state),
        "case_sensitive": bool(case_sensitive),
        "n_exclude_words": len(set(excl_list)),
        "exclude_words_digest": _digest(sorted(set(excl_list))) if excl_list else None,
        "corpus_name": corpus.name,
        "corpus_size": len(corpus),
        "corpus_digest": corpus.digest,
    }
    selection = SentenceSelection(
        words=words_out,
        sentences=tuple(corpus.sentences[i] for i in corpus_indices),
        corpus_indices=tuple(corpus_indices),
        indices=indices,
        available={canonical[k]: len(found_in[k]) for k in canonical},
        excluded={canonical[k]: excluded[k] for k in canonical},
        missing=missing,
        parameters=parameters,
    )
    if missing and on_missing != "ignore":
        dropped = sum(excluded[key(w)] for w in missing)
        _report_missing_words(missing, len(words_out), dropped, corpus.name, on_missing)
    return selection


def _check_selection_args(on_missing: Any, max_per_word: Any, case_sensitive: Any) -> None:
    if on_missing not in _ON_MISSING:
        raise InvalidParameterError("on_missing", on_missing, _ON_MISSING)
    if max_per_word is not None and (
        isinstance(max_per_word, bool) or not isinstance(max_per_word, (int, np.integer)) or max_per_word < 1
    ):
        raise InvalidParameterError("max_per_word", max_per_word, "a positive integer or None")
    if not isinstance(case_sensitive, (bool, np.bool_)):
        raise InvalidParameterError("case_sensitive", case_sensitive, (True, False))


def _scan_corpus(
    sentences: Sequence[str], matcher: WordMatcher, key: Any, canonical: dict[str, str], exclude_keys: frozenset[str],
) -> tuple[dict[str, list[int]], dict[str, int]]:
    """One pass over the corpus: per target key, the corpus indices of its usable sentences and
    the count of its sentences dropped for holding another excluded word. A repeated sentence
    counts once (its first occurrence).
    """
    target_keys = frozenset(canonical)
    found_in: dict[str, list[int]] = {k: [] for k in canonical}
    excluded: dict[str, int] = {k: 0 for k in canonical}
    seen: set[str] = set()
    finditer = matcher.finditer
    for i, sentence in enumerate(sentences):
        found = {key(word) for word, _, _ in finditer(sentence)}
        if not found:
            continue
        targets = found & target_keys
        if not targets or sentence in seen:
            continue
        seen.add(sentence)
        bad = found & exclude_keys
        for k in targets:
            if bad and (len(bad) > 1 or k not in bad):
                excluded[k] += 1
            else:
                found_in[k].append(i)
    return found_in, excluded


def _cap_per_word(
    found_in: dict[str, list[int]], max_per_word: int | None, rng: np.random.Generator,
) -> dict[str, list[int]]:
    """At most ``max_per_word`` sentences per word, drawn without replacement in word order (kept
    in corpus order).
    """
    chosen: dict[str, list[int]] = {}
    for k, idx in found_in.items():
        if max_per_word is not None and len(idx) > max_per_word:
            keep = np.sort(rng.choice(len(idx), size=int(max_per_word), replace=False))
            idx = [idx[j] for j in keep]
        chosen[k] = idx
    return chosen


def _report_missing_words(missing: tuple[str, ...], n_words: int, dropped: int, corpus_name: str, on_missing: str) -> None:
    """Warn about (``"warn"``) or raise for (``"error"``) words without a sentence."""
    shown = ", ".join(missing[:50]) + (f", ... ({len(missing) - 50} more)" if len(missing) > 50 else "")
    message = (
        f"{len(missing)} of {n_words} words have no sentence in corpus {corpus_name!r}: {shown}"
        + (f" ({dropped} of their sentences were dropped because they contain an excluded word)" if dropped else "")
    )
    if on_missing == "error":
        raise MissingSentencesError(
            message + "; use a larger corpus, remove these words, or pass on_missing='warn'", list(missing)
        )
    logger.warning(message)
    warnings.warn(message, UserWarning, stacklevel=3)
