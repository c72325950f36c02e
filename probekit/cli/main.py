"""Entry point of the ``probekit`` command.

Each subcommand lives in its own module of this package and exposes ``register(subparsers)``,
which adds its parser and sets ``func`` to a callable taking the parsed arguments and returning
an exit code. Heavy imports (torch, transformers) happen inside those callables so that
``probekit --help`` stays fast.
"""

from __future__ import annotations

import argparse
import importlib
import logging
import sys
from typing import Sequence

from probekit.cli._declared import ProbekitParser
from probekit.errors import InvalidParameterError, ProbekitError

# Module names under probekit.cli, in the order they appear in --help.
SUBCOMMAND_MODULES = ("info", "embed", "probe", "compare", "debias", "swap", "scrub", "seat", "crows_pairs", "stereoset", "pppl", "metrics", "finetune", "study", "report")


def build_parser() -> argparse.ArgumentParser:
    from probekit import __version__

    parser = ProbekitParser(
        prog="probekit",
        description="Probe, debias and evaluate gender bias in BERT-style encoders.",
    )
    parser.add_argument("--version", action="version", version=f"probekit {__version__}")
    parser.add_argument("-v", "--verbose", action="count", default=0, help="more log output (-vv for debug)")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in SUBCOMMAND_MODULES:
        try:
            module = importlib.import_module(f"probekit.cli.{name}")
        except ModuleNotFoundError as exc:
            if exc.name == f"probekit.cli.{name}":
                continue  # subcommand not built yet in this checkout
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)  # declared options are checked here (probekit.cli._declared)
    except InvalidParameterError as exc:
        from probekit.cli._common import cli_error_message

        command = getattr(exc, "command", None)
        print(f"probekit {command}: error: {cli_error_message(exc, command)}", file=sys.stderr)
        return 2
    level = logging.WARNING - 10 * min(args.verbose, 2)
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from probekit.cli._common import cli_error_message, output_paths
    from probekit.utils import removing_created_dirs

    try:
        with removing_created_dirs(*output_paths(args)):  # a failed call leaves no empty output directory
            return int(args.func(args) or 0)
    except ProbekitError as exc:
        print(f"probekit {args.command}: error: {cli_error_message(exc, args.command, vars(args))}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(f"probekit {args.command}: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
