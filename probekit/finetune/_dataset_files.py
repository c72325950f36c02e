"""Reading the table of a downstream task: a data file (CSV, TSV, JSON, JSON lines, Parquet), a folder
written by ``Dataset.save_to_disk`` or a Hugging Face Hub dataset, as a DataFrame of the needed columns.
"""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import Any, Sequence

import pandas as pd

from probekit.errors import InputFileError, InvalidParameterError
from probekit.utils import hub_offline

logger = logging.getLogger(__name__)

_READERS = (".csv", ".tsv", ".json", ".jsonl", ".parquet")
_HUB_NAME = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")


# --------------------------------------------------------------------------------------------
# Reading a table from a file, a saved dataset or the Hub
# --------------------------------------------------------------------------------------------


def _one_line(exc: BaseException) -> str:
    return f"{type(exc).__name__}: " + " ".join(str(exc).split())


def _is_saved_dataset(path: Path) -> bool:
    return path.is_dir() and any(
        (path / marker).exists() for marker in ("dataset_info.json", "state.json", "dataset_dict.json")
    )


def _columns_of_file(path: Path) -> list[str]:
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        return list(pd.read_csv(path, nrows=0, sep="\t" if suffix == ".tsv" else ",").columns)
    if suffix == ".parquet":
        import pyarrow.parquet as pq

        return list(pq.read_schema(path).names)
    return []  # JSON: the columns are known only after reading


def _read_json(path: Path) -> pd.DataFrame:
    if path.suffix.lower() == ".jsonl":
        return pd.read_json(path, lines=True, dtype=False)
    # A .json file is either one array of records or JSON lines.
    try:
        return pd.read_json(path, dtype=False)
    except ValueError:
        return pd.read_json(path, lines=True, dtype=False)


def _read_file(path: Path, columns: Sequence[str]) -> pd.DataFrame:
    """Read only ``columns`` of a data file (all of them for JSON)."""
    suffix = path.suffix.lower()
    if suffix in (".csv", ".tsv"):
        # Text columns keep their spelling; ids and scores are parsed as numbers later.
        # Only empty cells are missing: a comment reading "NA" or "null" is text.
        options = dict(usecols=list(columns), sep="\t" if suffix == ".tsv" else ",", keep_default_na=False,
                       na_values=[""], low_memory=False)
        if suffix == ".tsv":
            try:  # plain TSV has no quoting: a cell starting with '"' is text (csv.QUOTE_NONE = 3 keeps it whole)
                return pd.read_csv(path, quoting=3, **options)
            except pd.errors.ParserError:
                pass  # rows line up only when read as quoted (Excel's tab dialect)
        return pd.read_csv(path, **options)
    if suffix == ".parquet":
        return pd.read_parquet(path, columns=list(columns))
    return _read_json(path)


def _from_datasets(loaded: Any, split: str | None, origin: str, resolve_columns) -> tuple[pd.DataFrame, str]:
    import datasets

    if isinstance(loaded, (datasets.DatasetDict, dict)):
        if split is not None:
            if split not in loaded:
                raise InvalidParameterError("split", split, sorted(loaded.keys()), f"splits of {origin}")
            parts = [loaded[split]]
            origin = f"{origin} (split {split})"
        else:
            parts = [loaded[name] for name in loaded]
            origin = f"{origin} (splits {', '.join(loaded)})"
    else:
        if split is not None and loaded.split is not None and str(loaded.split) != split:
            raise InvalidParameterError("split", split, [str(loaded.split)], f"the split of {origin}")
        parts = [loaded]
    columns = resolve_columns(list(parts[0].column_names), origin)
    frames = []
    for part in parts:
        missing = [c for c in columns if c not in part.column_names]
        if missing:
            raise InputFileError(
                f"{origin}: split {part.split} has no column {missing[0]!r} (columns: {', '.join(part.column_names)})"
            )
        frames.append(part.select_columns(columns).to_pandas())
    return pd.concat(frames, ignore_index=True), origin


def _read_table(name_or_path: str | os.PathLike[str], split: str | None, resolve_columns) -> tuple[pd.DataFrame, str]:
    """A DataFrame of the needed columns and a name of where it came from.

    ``resolve_columns(available, origin)`` returns the columns to read, or raises naming the
    missing one.
    """
    path = Path(name_or_path)
    origin = str(name_or_path)
    if path.exists():
        if _is_saved_dataset(path):
            import datasets

            try:
                loaded = datasets.load_from_disk(str(path))
            except Exception as exc:
                raise InputFileError(f"{origin}: cannot read the saved dataset ({_one_line(exc)})") from exc
            return _from_datasets(loaded, split, origin, resolve_columns)
        if path.is_dir():
            raise InputFileError(
                f"{origin}: a folder that is not a saved dataset (Dataset.save_to_disk); pass a data file "
                f"({', '.join(_READERS)}) or a saved dataset folder"
            )
        if path.suffix.lower() not in _READERS:
            raise InputFileError(f"{origin}: unsupported file type {path.suffix!r}; expected one of {', '.join(_READERS)}")
        if split is not None:
            logger.info("%s: a single data file; split=%r ignored", origin, split)
        try:
            available = _columns_of_file(path)
            if available:
                columns = resolve_columns(available, origin)
                frame = _read_file(path, columns)
            else:
                frame = _read_file(path, ())
                columns = resolve_columns([str(c) for c in frame.columns], origin)
                frame = frame[columns]
        except (InputFileError, InvalidParameterError):
            raise
        except Exception as exc:
            raise InputFileError(f"{origin}: cannot read the file ({_one_line(exc)})") from exc
        return frame, origin
    if not _HUB_NAME.match(origin) or path.suffix.lower() in _READERS:
        raise InputFileError(f"{origin}: file not found")
    if hub_offline():
        raise InputFileError(
            f"{origin}: not a local file or folder, and the Hugging Face Hub is off (HF_DATASETS_OFFLINE/"
            "HF_HUB_OFFLINE); pass a local data file or a folder written by Dataset.save_to_disk"
        )
    import datasets

    try:
        loaded = datasets.load_dataset(origin, split=split)
    except Exception as exc:
        raise InputFileError(
            f"{origin}: not a local file, and loading it from the Hugging Face Hub failed ({_one_line(exc)})"
        ) from exc
    return _from_datasets(loaded, split, f"Hub dataset {origin}", resolve_columns)


def _column_resolver(wanted: dict[str, Sequence[str]]):
    """``wanted``: parameter name -> candidate columns, first present wins."""

    def resolve(available: list[str], origin: str) -> list[str]:
        chosen = []
        for parameter, candidates in wanted.items():
            found = next((c for c in candidates if c in available), None)
            if found is None:
                shown = ", ".join(repr(c) for c in candidates)
                raise InputFileError(
                    f"{origin}: no column {shown.replace(', ', ' or ')} (columns: {', '.join(map(str, available))}); "
                    f"pass {parameter}= to name it"
                )
            chosen.append(found)
        return chosen

    return resolve
