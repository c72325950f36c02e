"""Options and the run function shared by ``probekit swap`` and ``probekit scrub``."""

from __future__ import annotations

import argparse
from typing import Any


def add_file_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="input file: .txt (one text per line), .csv, .tsv, .jsonl or .parquet")
    parser.add_argument("--out", required=True, metavar="OUT", help="output file, same format as FILE (written atomically)")
    parser.add_argument("--column", default="text", help="text column of csv/tsv/jsonl/parquet files (default: %(default)s)")
    parser.add_argument(
        "--output-column", default=None, metavar="COL",
        help="write the result to this column and keep --column as it was (default: replace --column)",
    )
    parser.add_argument("--format", default=None, choices=["txt", "csv", "tsv", "jsonl", "parquet"], help="override the format guessed from FILE's suffix")
    parser.add_argument(
        "--names", default="census", choices=["census", "builtin", "none"],
        help="first names: the built-in 289 pairs plus ~4,000 names of the 1990 US Census (census), "
        "the built-in pairs only (builtin), or none (default: %(default)s)",
    )
    parser.add_argument("--report", default=None, metavar="JSON", help="also write what was done, with the lists' digests and provenance, as JSON")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")


def check_outputs(args: argparse.Namespace) -> None:
    """``--out`` and ``--report`` can be written and differ from FILE; checked before any work."""
    from pathlib import Path

    from probekit.errors import InvalidParameterError
    from probekit.utils import check_output_file

    check_output_file(args.out, parameter="--out")
    if Path(args.out).resolve() == Path(args.file).resolve():
        raise InvalidParameterError("--out", args.out, "a file other than FILE", "the input would be overwritten")
    if args.report:
        check_output_file(args.report, parameter="--report")
        if Path(args.report).resolve() in (Path(args.out).resolve(), Path(args.file).resolve()):
            raise InvalidParameterError("--report", args.report, "a file other than FILE and --out")


def _columns(path: str, fmt: str | None) -> list[str]:
    """Column names of a csv/tsv/jsonl/parquet file (first line or schema only); ``[]`` when unknown."""
    import json
    from pathlib import Path

    kind = fmt or Path(path).suffix.lower().lstrip(".")
    try:
        if kind in ("csv", "tsv"):
            import pandas as pd

            return [str(c) for c in pd.read_csv(path, sep="\t" if kind == "tsv" else ",", nrows=0).columns]
        if kind == "jsonl":
            with open(path, encoding="utf-8") as handle:
                first = json.loads(handle.readline() or "{}")
            return [str(k) for k in first] if isinstance(first, dict) else []
        if kind == "parquet":
            import pyarrow.parquet as pq

            return list(pq.read_schema(path).names)
    except Exception:  # noqa: BLE001 - unreadable input: reported by the reader with its own message
        return []
    return []


def check_output_column(args: argparse.Namespace) -> None:
    """``--output-column`` must not name another existing column (it would be overwritten)."""
    from probekit.errors import InvalidParameterError

    if args.output_column is None or args.output_column == args.column:
        return
    if args.output_column in _columns(args.file, args.format):
        raise InvalidParameterError(
            "--output-column", args.output_column, "a new column name (or --column itself, to replace it)",
            f"{args.file} already has a column {args.output_column!r}, which would be overwritten",
        )


def finish(args: argparse.Namespace, result: Any) -> int:
    from probekit.utils import write_json

    if args.report:
        write_json(args.report, result)
    names = result.intervention.get("name_list")
    used = "no names" if names is None else f"names {names['label']} ({names['n_female']} female, {names['n_male']} male, sha256 {names['digest'][:12]})"
    print(f"{result.intervention['intervention']}: {result.n_changed} of {result.n_texts} texts changed; {used} -> {result.output}")
    return 0
