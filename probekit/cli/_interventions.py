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


def finish(args: argparse.Namespace, result: Any) -> int:
    from probekit.utils import write_json

    if args.report:
        write_json(args.report, result)
    names = result.intervention.get("name_list")
    used = "no names" if names is None else f"names {names['label']} ({names['n_female']} female, {names['n_male']} male, sha256 {names['digest'][:12]})"
    print(f"{result.intervention['intervention']}: {result.n_changed} of {result.n_texts} texts changed; {used} -> {result.output}")
    return 0
