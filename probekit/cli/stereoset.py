"""``probekit stereoset``: StereoSet intrasentence (Nadeem et al. 2021) on a masked-LM checkpoint."""

from __future__ import annotations

import argparse
import sys

from probekit.cli._declared import add_declared


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "stereoset",
        help="StereoSet intrasentence LM score, SS and ICAT of a masked LM",
        description="Score StereoSet intrasentence (Nadeem et al. 2021) on --model (needs a masked-LM head). "
        "Writes DIR/results.json (overall.lm_score, ss_score, icat and per domain, with bootstrap intervals over "
        "contexts), DIR/examples.csv and DIR/summary.md.",
    )
    from probekit.cli import _common

    _common.add_model_arguments(parser)
    parser.add_argument("--data", required=True, metavar="FILE|HUB_ID",
                        help="StereoSet dev.json (public layout), or 'McGill-NLP/stereoset' for the hub dataset "
                        "(intrasentence, validation) when online")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory: new, empty, or an earlier output of this command (with --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help="replace an earlier output of this command at --out")
    parser.add_argument("--domain", action="append", default=None, choices=["gender", "profession", "race", "religion"],
                        help="only this domain (repeatable)")
    add_declared(parser, "--n-resamples", "probekit.intrinsic:stereoset", "n_resamples", allocation=8, help="bootstrap replicates (0: no intervals)")
    add_declared(parser, "--confidence-level", "probekit.intrinsic:stereoset", "confidence_level", help="level of the intervals")
    add_declared(parser, "--seed", "probekit.intrinsic:stereoset", "random_state", help="bootstrap seed")
    add_declared(parser, "--batch-tokens", "probekit.intrinsic:stereoset", "batch_tokens", help="tokens per forward pass (None: automatic)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    _common.declare_output(parser, "stereoset")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from probekit.cli._common import load_model
    from probekit.intrinsic import read_stereoset, stereoset
    from probekit.utils import ensure_writable_dir

    out = ensure_writable_dir(args.out, "--out")
    examples = read_stereoset(args.data, domains=args.domain)
    encoder = load_model(args)
    result = stereoset(
        encoder, examples, n_resamples=args.n_resamples, confidence_level=args.confidence_level,
        random_state=args.seed, batch_tokens=args.batch_tokens, progress=not args.no_progress,
    )
    result.provenance["parameters"]["data"] = args.data
    result.save(out)
    o = result.overall
    print(f"StereoSet: LMS {o['lm_score']:.2f}  SS {o['ss_score']:.2f}  ICAT {o['icat']:.2f} "
          f"over {o['n_contexts']} contexts -> {out}", file=sys.stderr)
    return 0
