"""Text interventions over files and Hugging Face datasets: one engine, thin swap/scrub wrappers.

Files: plain text (one text per line), CSV/TSV, JSON Lines and Parquet with a named text column.
The output is written atomically in the input's format; other columns, keys and line endings are
kept (blank lines of a JSON Lines file are dropped), missing values (JSON ``null``, Parquet
nulls) pass through and empty CSV cells stay empty strings.
Datasets: :meth:`datasets.Dataset.map` with ``batched=True`` and ``num_proc``.
"""

from __future__ import annotations

import csv
import functools
import io
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from debias._gendered_words import NameSpec, get_vocabulary
from debias._scrub import describe_scrub, scrub_texts
from debias._swap import describe_swap, swap_texts
from probekit.errors import InputFileError, InvalidParameterError
from probekit.utils import atomic_path, collect_provenance
from wordlists import read_text

__all__ = [
    "FILE_FORMATS",
    "FileInterventionResult",
    "intervene_file",
    "intervene_dataset",
    "swap_file",
    "scrub_file",
    "swap_dataset",
    "scrub_dataset",
]

logger = logging.getLogger(__name__)

#: Formats by file suffix.
FILE_FORMATS: dict[str, str] = {
    ".txt": "txt", ".text": "txt", ".csv": "csv", ".tsv": "tsv",
    ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet", ".pq": "parquet",
}

TextsFunction = Callable[[Sequence[str]], list[str]]


@dataclass(frozen=True)
class FileInterventionResult:
    """What :func:`swap_file` / :func:`scrub_file` did.

    Attributes
    ----------
    input, output : str
        The files read and written.
    format : str
        ``"txt"``, ``"csv"``, ``"tsv"``, ``"jsonl"`` or ``"parquet"``.
    column, output_column : str or None
        The text column read and the column written (``None`` for text files).
    n_texts, n_changed : int
        Texts processed and texts the intervention changed.
    intervention : dict
        The intervention and the word and name lists it used, with digests
        (:func:`debias.describe_swap` / :func:`debias.describe_scrub`).
    provenance : dict
        :func:`probekit.utils._provenance.collect_provenance` (toolkit version, git commit, time, ...).
    """

    input: str
    output: str
    format: str
    column: str | None
    output_column: str | None
    n_texts: int
    n_changed: int
    intervention: dict[str, Any]
    provenance: dict[str, Any] = field(repr=False)

    def to_dict(self) -> dict[str, Any]:
        """What was rewritten as a JSON-ready dict: input, output, format, columns, counts, intervention, provenance."""
        return {
            "input": self.input, "output": self.output, "format": self.format, "column": self.column,
            "output_column": self.output_column, "n_texts": self.n_texts, "n_changed": self.n_changed,
            "intervention": self.intervention, "provenance": self.provenance,
        }


# --- format detection -----------------------------------------------------------------------

def _file_format(path: Path, given: str | None, parameter: str) -> str:
    valid = sorted(set(FILE_FORMATS.values()))
    if given is not None:
        if given not in valid:
            raise InvalidParameterError("format", given, valid)
        return given
    found = FILE_FORMATS.get(path.suffix.lower())
    if found is None:
        raise InvalidParameterError(
            parameter, str(path), "a file ending in " + ", ".join(FILE_FORMATS),
            "or pass format=",
        )
    return found


# --- readers and writers, one pair per format ----------------------------------------------------
# A reader returns (texts, state); the writer gets the new texts and the state and writes the
# output to a temporary path (renamed onto the target by the caller).

def _read_source_text(path: Path) -> str:

    return read_text(path, what="input file")


def _missing_column(path: Path, column: str, columns: Sequence[str]) -> InputFileError:
    shown = ", ".join(repr(c) for c in list(columns)[:20])
    return InputFileError(f"{path}: no column {column!r} (columns: {shown})")


def _read_txt(path: Path, column: str | None) -> tuple[list[str], Any]:
    lines = _read_source_text(path).splitlines(keepends=True)
    texts, endings = [], []
    for line in lines:
        body = line.rstrip("\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029")
        texts.append(body)
        endings.append(line[len(body):])
    return texts, endings


def _write_txt(tmp: Path, texts: list[str], endings: Any, output_column: str | None) -> None:
    tmp.write_text("".join(t + e for t, e in zip(texts, endings)), encoding="utf-8", newline="")


def _read_csv(path: Path, column: str | None, delimiter: str = ",", quoting: int = csv.QUOTE_MINIMAL) -> tuple[list[str], Any]:
    text = _read_source_text(path)
    limit = csv.field_size_limit()
    csv.field_size_limit(max(limit, len(text) + 1))  # long documents in one cell; restored below
    try:
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quoting=quoting,
                               quotechar=None if quoting == csv.QUOTE_NONE else '"'))
    except csv.Error as exc:
        raise InputFileError(f"{path}: not valid CSV ({exc})") from None
    finally:
        csv.field_size_limit(limit)
    if not rows:
        raise InputFileError(f"{path}: empty file, expected a header row with a column {column!r}")
    header = rows[0]
    if column not in header:
        raise _missing_column(path, str(column), header)
    index = header.index(column)
    for number, row in enumerate(rows[1:], start=2):
        if len(row) != len(header):
            raise InputFileError(f"{path}, row {number}: {len(row)} fields, the header has {len(header)}")
    terminator = "\r\n" if "\r\n" in text else "\n"
    return [row[index] for row in rows[1:]], (rows, index, delimiter, terminator, quoting)


def _write_csv(tmp: Path, texts: list[str], state: Any, output_column: str | None) -> None:
    rows, index, delimiter, terminator, quoting = state
    header = list(rows[0])
    if output_column is not None and output_column in header:
        index = header.index(output_column)
    elif output_column is not None:
        header.append(output_column)
        index = len(header) - 1
    with open(tmp, "w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle, delimiter=delimiter, lineterminator=terminator, quoting=quoting,
                            quotechar=None if quoting == csv.QUOTE_NONE else '"')
        writer.writerow(header)
        for row, new in zip(rows[1:], texts):
            row = list(row) + [""] * (len(header) - len(row))
            row[index] = new
            writer.writerow(row)


def _read_tsv(path: Path, column: str | None) -> tuple[list[str], Any]:
    # Plain TSV has no quoting (a field holds no tab or newline): a cell starting with '"' is text, kept
    # whole. Only when the rows do not line up that way is the file read as quoted (Excel's tab dialect).
    try:
        return _read_csv(path, column, delimiter="\t", quoting=csv.QUOTE_NONE)
    except InputFileError:
        return _read_csv(path, column, delimiter="\t")


def _read_jsonl(path: Path, column: str | None) -> tuple[list[Any], Any]:
    records = []
    for number, line in enumerate(_read_source_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputFileError(f"{path}, line {number}: not valid JSON ({exc.msg} at column {exc.colno})") from None
        if not isinstance(record, dict):
            raise InputFileError(f"{path}, line {number}: expected a JSON object per line")
        if column not in record:
            raise InputFileError(f"{path}, line {number}: no column {column!r} (keys: {', '.join(map(repr, list(record)[:20]))})")
        value = record[column]
        if value is not None and not isinstance(value, str):
            raise InputFileError(f"{path}, line {number}: column {column!r} holds {type(value).__name__}, expected text")
        records.append(record)
    return [r[column] for r in records], (records, column)


def _write_jsonl(tmp: Path, texts: list[Any], state: Any, output_column: str | None) -> None:
    records, column = state
    target = output_column or column
    with open(tmp, "w", encoding="utf-8", newline="\n") as handle:
        for record, new in zip(records, texts):
            record = dict(record)
            record[target] = new
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def _read_parquet(path: Path, column: str | None) -> tuple[list[Any], Any]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    if not path.is_file():
        raise InputFileError(f"input file not found: {path}")
    try:
        table = pq.read_table(path)
    except (pa.ArrowException, OSError) as exc:
        raise InputFileError(f"{path}: not a readable Parquet file ({exc})") from None
    if column not in table.column_names:
        raise _missing_column(path, str(column), table.column_names)
    values = table.column(column)
    if not (pa.types.is_string(values.type) or pa.types.is_large_string(values.type)):
        raise InputFileError(f"{path}: column {column!r} has type {values.type}, expected text")
    return values.to_pylist(), (table, column)


def _write_parquet(tmp: Path, texts: list[Any], state: Any, output_column: str | None) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table, column = state
    target = output_column or column
    array = pa.array(texts, type=table.column(column).type)
    if target in table.column_names:
        table = table.set_column(table.column_names.index(target), target, array)
    else:
        table = table.append_column(target, array)
    pq.write_table(table, tmp)


_READERS = {"txt": _read_txt, "csv": _read_csv, "tsv": _read_tsv, "jsonl": _read_jsonl, "parquet": _read_parquet}
_WRITERS = {"txt": _write_txt, "csv": _write_csv, "tsv": _write_csv, "jsonl": _write_jsonl, "parquet": _write_parquet}


# --- the engine ---------------------------------------------------------------------------------

def _apply_in_batches(function: TextsFunction, texts: list[Any], batch_size: int, progress: bool) -> list[Any]:
    from tqdm.auto import tqdm

    out: list[Any] = []
    with tqdm(total=len(texts), unit="text", disable=not progress, desc="texts") as bar:
        for begin in range(0, len(texts), batch_size):
            batch = texts[begin:begin + batch_size]
            out += function(batch)
            bar.update(len(batch))
    return out


def intervene_file(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    function: TextsFunction,
    *,
    intervention: dict[str, Any],
    column: str = "text",
    output_column: str | None = None,
    format: str | None = None,
    batch_size: int = 10_000,
    progress: bool = False,
) -> FileInterventionResult:
    """Apply ``function`` (texts -> texts) to the text column of a file; write ``out`` atomically.

    The engine behind :func:`swap_file` and :func:`scrub_file`. Everything is checked and
    computed before anything is written, so a bad file or column leaves no output behind.

    Parameters
    ----------
    path, out : path-like
        Input and output files; the format follows the input's suffix (``format=`` overrides);
        ``out`` must not end in another known format's suffix. ``out`` may equal ``path``.
    function : callable
        ``list[str] -> list[str]`` of the same length (``None`` entries must pass through).
    intervention : dict
        Its description, stored in the result.
    column : str
        The text column (csv, tsv, jsonl, parquet); ignored for text files.
    output_column : str, optional
        Write the result to this column (added if new) and keep ``column`` as it was; by default
        ``column`` is replaced. Not for text files.
    batch_size : int
        Texts per call of ``function`` (progress granularity).
    progress : bool
        Show a tqdm progress bar.
    """
    source, target = Path(path), Path(out)
    fmt = _file_format(source, format, "path")
    out_fmt = FILE_FORMATS.get(target.suffix.lower())
    if out_fmt is not None and out_fmt != fmt:
        raise InvalidParameterError("out", str(target), f"a {fmt} file like the input {source.name}", "the output keeps the input's format")
    if fmt == "txt" and output_column is not None:
        raise InvalidParameterError("output_column", output_column, "None for text files (one text per line, no columns)")
    if not isinstance(batch_size, int) or batch_size < 1:
        raise InvalidParameterError("batch_size", batch_size, "a positive integer")
    texts, state = _READERS[fmt](source, column)
    new_texts = _apply_in_batches(function, texts, batch_size, progress)
    if len(new_texts) != len(texts):
        raise RuntimeError(f"intervention returned {len(new_texts)} texts for {len(texts)}")
    with atomic_path(target) as tmp:
        _WRITERS[fmt](tmp, new_texts, state, output_column)
    n_changed = sum(a != b for a, b in zip(texts, new_texts))
    logger.info("%s: %d of %d texts changed -> %s", intervention.get("intervention"), n_changed, len(texts), target)
    lists = {"attribute_pairs": intervention["attribute_pairs"]["digest"]}
    if intervention.get("name_list"):
        lists["names"] = intervention["name_list"]["digest"]
    return FileInterventionResult(
        input=str(source), output=str(target), format=fmt,
        column=None if fmt == "txt" else column, output_column=None if fmt == "txt" else (output_column or column),
        n_texts=len(texts), n_changed=n_changed, intervention=intervention,
        provenance=collect_provenance(wordlists=lists, parameters={"input": str(source), "column": column}),
    )


def _map_batch(batch: dict[str, list[Any]], *, function: TextsFunction, column: str, output_column: str) -> dict[str, list[Any]]:
    return {output_column: function(batch[column])}


def intervene_dataset(
    dataset: Any,
    function: TextsFunction,
    *,
    column: str = "text",
    output_column: str | None = None,
    batch_size: int = 1000,
    num_proc: int | None = None,
    **map_kwargs: Any,
) -> Any:
    """Apply ``function`` to ``dataset[column]`` with ``dataset.map(batched=True, num_proc=...)``.

    The engine behind :func:`swap_dataset` and :func:`scrub_dataset`; works for a
    ``datasets.Dataset`` and a ``DatasetDict`` (every split). ``function`` must be picklable for
    ``num_proc > 1`` (a module-level function or a :func:`functools.partial` of one).
    """
    names = getattr(dataset, "column_names", None)
    if names is None:
        raise InvalidParameterError("dataset", type(dataset).__name__, "a datasets.Dataset or DatasetDict")
    columns = set(names) if isinstance(names, list) else {c for cols in names.values() for c in cols}
    if column not in columns:
        raise InvalidParameterError("column", column, sorted(columns), "the dataset's text column")
    if num_proc is not None and (not isinstance(num_proc, int) or num_proc < 1):
        raise InvalidParameterError("num_proc", num_proc, "None or a positive integer")
    mapper = functools.partial(_map_batch, function=function, column=column, output_column=output_column or column)
    return dataset.map(mapper, batched=True, batch_size=batch_size, num_proc=num_proc, **map_kwargs)


# --- thin wrappers ------------------------------------------------------------------------------

def swap_file(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    column: str = "text",
    output_column: str | None = None,
    names: NameSpec = "census",
    format: str | None = None,
    progress: bool = False,
    names_case: str = "capitalized",
) -> FileInterventionResult:
    """Gender-swap the text column of a txt/csv/tsv/jsonl/parquet file (see :func:`debias.swap`;
    ``names_case="any"`` swaps lower-case first names too, for uncased corpora).

    Examples
    --------
    >>> swap_file("bios.jsonl", "bios_swapped.jsonl", column="text")  # doctest: +SKIP
    """
    get_vocabulary(names, names_case)  # a bad `names` or `names_case` fails before the file is read
    return intervene_file(
        path, out, functools.partial(swap_texts, names=names, names_case=names_case),
        intervention=describe_swap(names, names_case=names_case),
        column=column, output_column=output_column, format=format, progress=progress,
    )


def scrub_file(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    column: str = "text",
    output_column: str | None = None,
    placeholder: str | None = None,
    names: NameSpec = "census",
    format: str | None = None,
    progress: bool = False,
    names_case: str = "capitalized",
) -> FileInterventionResult:
    """Scrub gendered words and first names from the text column of a file (see :func:`debias.scrub`)."""
    # bad arguments fail before the file is read
    scrub_texts([], placeholder=placeholder, names=names, names_case=names_case)
    description = describe_scrub(placeholder, names, names_case)
    function = functools.partial(scrub_texts, placeholder=placeholder, names=names, names_case=names_case)
    return intervene_file(
        path, out, function, intervention=description,
        column=column, output_column=output_column, format=format, progress=progress,
    )


def swap_dataset(
    dataset: Any,
    column: str = "text",
    *,
    output_column: str | None = None,
    names: NameSpec = "census",
    batch_size: int = 1000,
    num_proc: int | None = None,
    names_case: str = "capitalized",
    **map_kwargs: Any,
) -> Any:
    """Gender-swap ``dataset[column]`` (a ``datasets.Dataset`` or ``DatasetDict``) with a batched map
    (``names_case`` as in :func:`debias.swap`).

    ``output_column`` keeps the original column and adds the counterfactual beside it (for
    two-sided augmentation concatenate the original and the swapped dataset).
    """
    get_vocabulary(names, names_case)
    return intervene_dataset(
        dataset, functools.partial(swap_texts, names=names, names_case=names_case), column=column, output_column=output_column,
        batch_size=batch_size, num_proc=num_proc, **map_kwargs,
    )


def scrub_dataset(
    dataset: Any,
    column: str = "text",
    *,
    output_column: str | None = None,
    placeholder: str | None = None,
    names: NameSpec = "census",
    batch_size: int = 1000,
    num_proc: int | None = None,
    names_case: str = "capitalized",
    **map_kwargs: Any,
) -> Any:
    """Scrub gendered words and first names from ``dataset[column]`` with a batched map
    (``names_case`` as in :func:`debias.scrub`).
    """
    scrub_texts([], placeholder=placeholder, names=names, names_case=names_case)
    function = functools.partial(scrub_texts, placeholder=placeholder, names=names, names_case=names_case)
    return intervene_dataset(
        dataset, function, column=column,
        output_column=output_column, batch_size=batch_size, num_proc=num_proc, **map_kwargs,
    )
