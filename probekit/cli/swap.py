"""``probekit swap FILE --out OUT``: the gender-swapped counterfactual of every text of a file."""

from __future__ import annotations

import argparse

from probekit.cli._interventions import add_file_arguments, check_output_column, check_outputs, finish


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "swap",
        help="gender-swap the texts of a file (she <-> he, her -> his | him, Mary <-> John, ...)",
        description="Write the gender-swapped counterfactual of every text of FILE (debias.swap): attribute "
        "words both ways, titles, first names, case kept, her/his resolved from context.",
    )
    add_file_arguments(parser)
    parser.add_argument(
        "--names-case", default="capitalized", choices=["capitalized", "any"],
        help="first names only capitalized, Mary/MARY (capitalized), or in any case, mary too: for uncased "
        "corpora (any) (default: %(default)s)",
    )
    from probekit.cli._outputs import declare_output

    declare_output(parser, "swap")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from debias import swap_file

    check_outputs(args)  # before any work
    check_output_column(args)
    result = swap_file(
        args.file, args.out, column=args.column, output_column=args.output_column, names=args.names,
        format=args.format, progress=not args.no_progress, names_case=args.names_case,
    )
    return finish(args, result)
