"""Corpora from plain-text files and from Hugging Face datasets (local files, saved datasets, the Hub)."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Sequence

import numpy as np

from probekit.errors import InputFileError, InvalidParameterError, ProbekitError
from probekit.text._corpus import Corpus
from probekit.text._sentences import _split_text, split_sentences
from probekit.text._templates import template_corpus
from probekit.utils import hub_offline
from wordlists import read_text

logger = logging.getLogger(__name__)

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


def load_corpus(
    *,
    files: Sequence[str | os.PathLike[str]] | None = None,
    hf_dataset: str | os.PathLike[str] | None = None,
    text_column: str = "text",
    split: str = "train",
    mode: str = "lines",
    encoding: str = "utf-8",
    frames_per_word: int | None = None,
    random_state: int | None = None,
) -> Corpus:
    """The corpus named by a set of options: text files, a datasets corpus, or the template corpus.

    One home for "corpus from options": the CLI (``--corpus``, ``--hf-dataset``, ...) and a study's
    ``[corpus]`` table both call it.

    Parameters
    ----------
    files : sequence of path, optional
        Plain-text files (:func:`load_text_corpus` with ``mode`` and ``encoding``); several files
        make one corpus, in order.
    hf_dataset : str or path, optional
        A Hugging Face dataset (:func:`load_hf_corpus` with ``text_column`` and ``split``).
    text_column, split, mode, encoding
        As in those loaders.
    frames_per_word : int, optional
        Without files or a dataset: the template corpus (:func:`template_corpus`) with this many
        frames per word, drawn with ``random_state`` (default: every frame).
    random_state : int, optional
        Seed of the frame sample.

    Returns
    -------
    Corpus
        Named after its file(s) or dataset; its ``source`` says how it was read.

    Raises
    ------
    InvalidParameterError
        When both ``files`` and ``hf_dataset`` are given.
    """
    if files and hf_dataset:
        raise InvalidParameterError("files/hf_dataset", [list(files), hf_dataset], "one corpus source, not both")
    if hf_dataset:
        return load_hf_corpus(hf_dataset, text_column=text_column, split=split)
    if files:
        parts = [load_text_corpus(path, mode=mode, encoding=encoding) for path in files]
        if len(parts) == 1:
            return parts[0]
        sentences = tuple(s for part in parts for s in part)
        return Corpus(sentences=sentences, name="+".join(p.name for p in parts), source=", ".join(str(f) for f in files))
    if frames_per_word is None:
        return template_corpus()
    return template_corpus(frames_per_word=int(frames_per_word), random_state=random_state)
