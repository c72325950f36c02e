"""``probekit pppl``: pseudo-perplexity (Salazar et al. 2020) of a masked-LM checkpoint on a held-out corpus."""

from __future__ import annotations

import argparse
import sys

from probekit.cli._declared import add_declared


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "pppl",
        help="pseudo-perplexity of a masked LM (utility beside the bias numbers)",
        description="Pseudo-perplexity (Salazar et al. 2020) of --model (needs a masked-LM head) on --corpus "
        "(one sentence per line; default: a built-in held-out sample of the template frames with neutral words). "
        "Writes DIR/results.json (overall.pppl, token counts, provenance), DIR/sentences.csv and DIR/summary.md.",
    )
    from probekit.cli import _common

    _common.add_model_arguments(parser)
    parser.add_argument("--corpus", default=None, metavar="FILE",
                        help="text file, one sentence per line (default: the built-in held-out sample)")
    parser.add_argument("--out", required=True, metavar="DIR",
                        help="output directory: new, empty, or an earlier output of this command (with --overwrite)")
    parser.add_argument("--overwrite", action="store_true", help="replace an earlier output of this command at --out")
    add_declared(parser, "--max-sentences", "probekit.intrinsic:pseudo_perplexity", "max_sentences", help="score only the first N sentences (None: all)")
    add_declared(parser, "--batch-tokens", "probekit.intrinsic:pseudo_perplexity", "batch_tokens", help="tokens per forward pass (None: automatic)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar")
    _common.declare_output(parser, "pppl")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from probekit.cli._common import load_model
    from probekit.intrinsic import pseudo_perplexity
    from probekit.text import load_text_corpus
    from probekit.utils import ensure_writable_dir

    out = ensure_writable_dir(args.out, "--out")
    corpus = load_text_corpus(args.corpus, mode="lines") if args.corpus else None  # a bad file fails before the model loads
    encoder = load_model(args)
    result = pseudo_perplexity(encoder, corpus, max_sentences=args.max_sentences, batch_tokens=args.batch_tokens,
                               progress=not args.no_progress)
    if args.corpus:
        result.provenance["parameters"]["corpus"] = args.corpus
    result.save(out)
    o = result.overall
    print(f"pseudo-perplexity {o['pppl']:.3f} over {o['n_tokens']} tokens of {o['n_sentences']} sentences -> {out}",
          file=sys.stderr)
    return 0
