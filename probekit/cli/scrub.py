"""``probekit scrub FILE --out OUT``: every text of a file without gendered words and first names."""

from __future__ import annotations

import argparse

from probekit.cli._interventions import add_file_arguments, check_output_column, check_outputs, finish


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "scrub",
        help="remove gendered words and first names from the texts of a file",
        description="Write every text of FILE without gendered words and first names (debias.scrub, "
        "attribute scrubbing), deleting them or putting --placeholder in their place.",
    )
    add_file_arguments(parser)
    parser.add_argument(
        "--names-case", default="capitalized", choices=["capitalized", "any"],
        help="first names only capitalized, Mary/MARY (capitalized), or in any case, mary too: for uncased "
        "corpora (any) (default: %(default)s)",
    )
    parser.add_argument("--placeholder", default=None, metavar="X", help="replace each removed word by X (e.g. _) instead of deleting it")
    from probekit.cli._outputs import declare_output

    declare_output(parser, "scrub")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from debias import scrub_file

    check_outputs(args)  # before any work
    check_output_column(args)
    result = scrub_file(
        args.file, args.out, column=args.column, output_column=args.output_column, placeholder=args.placeholder,
        names=args.names, format=args.format, progress=not args.no_progress, names_case=args.names_case,
    )
    return finish(args, result)
