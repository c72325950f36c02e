"""``probekit crows-pairs``: CrowS-Pairs (Nangia et al. 2020) on a masked-LM checkpoint."""

from __future__ import annotations

import argparse
import sys

from probekit.cli._declared import add_declared


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "crows-pairs",
        help="CrowS-Pairs stereotype score of a masked LM",
        description="Score CrowS-Pairs (Nangia et al. 2020) on --model (needs a masked-LM head). Writes "
        "DIR/results.json (overall.stereotype_score = percent of pairs where the more stereotyping sentence "
        "scores higher, ties in the denominator, fair = 50; stereo_score, antistereo_score; per bias type; "
        "interval and exact binomial p), DIR/pairs.csv and DIR/summary.md.",
    )
    from probekit.cli import _common

    _common.add_model_arguments(parser)
    parser.add_argument("--data", required=True, metavar="FILE",
                        help="crows_pairs_anonymized.csv (public layout), or 'crows_pairs' for the hub dataset when online")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory: new, empty, or an earlier output of this command (with --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help="replace an earlier output of this command at --out")
    parser.add_argument("--scoring", default="diff", choices=["diff", "shared"],
                        help="diff (default): the survey's code, mean log-prob of the differing tokens; "
                        "shared: Nangia et al.'s original, summed log-prob of the shared tokens")
    parser.add_argument("--bias-type", action="append", default=None, metavar="TYPE",
                        help="only this bias type (repeatable), e.g. gender")
    add_declared(parser, "--confidence-level", "probekit.intrinsic:crows_pairs", "confidence_level", help="level of the intervals")
    add_declared(parser, "--batch-tokens", "probekit.intrinsic:crows_pairs", "batch_tokens", help="tokens per forward pass (None: automatic)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    _common.declare_output(parser, "crows-pairs")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from probekit.cli._common import load_model
    from probekit.intrinsic import crows_pairs, read_crows_pairs
    from probekit.utils import ensure_writable_dir

    out = ensure_writable_dir(args.out, "--out")
    pairs = read_crows_pairs(args.data, bias_types=args.bias_type)
    encoder = load_model(args)
    result = crows_pairs(
        encoder, pairs, scoring=args.scoring, confidence_level=args.confidence_level,
        batch_tokens=args.batch_tokens, progress=not args.no_progress,
    )
    result.provenance["parameters"]["data"] = args.data
    result.save(out)
    o = result.overall
    print(
        f"CrowS-Pairs ({args.scoring}): stereotype score {o['stereotype_score']:.2f} "
        f"[{o['ci_low']:.2f}, {o['ci_high']:.2f}] p={o['p_value']:.3g} over {o['n_pairs']} pairs -> {out}",
        file=sys.stderr,
    )
    return 0
