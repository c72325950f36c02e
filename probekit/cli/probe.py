"""``probekit probe``: the intrinsic suite (SEAT, LPBS, gender probe) on one checkpoint."""

from __future__ import annotations

import argparse

from probekit.cli._common import add_corpus_arguments, add_model_arguments, load_corpus, load_model


def add_suite_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("suite")
    group.add_argument("--layer", type=int, default=-1, help="hidden layer of the word embeddings (default -1, the last)")
    group.add_argument("--max-per-word", type=int, default=100, help="sentences per word, sampled with --seed (0: all)")
    group.add_argument("--all-wordpieces", action="store_true",
                       help="keep words of several wordpieces (the paper keeps single-wordpiece words only)")
    group.add_argument("--seat-tests", default="weat6,weat6b,weat7,weat7b,weat8,weat8b",
                       help="comma-separated standard SEAT tests at sentence level ('' for none)")
    group.add_argument("--permutations", type=int, default=100_000, help="SEAT permutation test size")
    group.add_argument("--bootstrap", type=int, default=1000, help="bootstrap replicates of the SEAT effect-size interval")
    group.add_argument("--randomizations", type=int, default=100, help="probe randomization test size")
    group.add_argument("--classifier", default="logistic", choices=["logistic", "linear_svm"], help="gender probe classifier")
    group.add_argument("--C", type=float, default=1.0, help="inverse regularization strength of the probe")
    group.add_argument("--seed", type=int, default=0, help="one seed for every random step")
    group.add_argument("--cache-dir", default=None, help="embedding cache (default: OUT/cache)")
    group.add_argument("--no-progress", action="store_true", help="no progress bars")


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "probe",
        help="SEAT, LPBS and the gender probe on one checkpoint",
        description="Extract contextual embeddings of attribute and stereotype terms, run SEAT (the paper's "
        "variant and the standard gender tests), LPBS (when the checkpoint has a masked-LM head) and the "
        "gender probe; write OUT/results.json, OUT/summary.md and OUT/probe.png.",
    )
    add_model_arguments(parser)
    add_corpus_arguments(parser)
    add_suite_arguments(parser)
    parser.add_argument("--out", default="probekit-out", help="output directory (default: probekit-out)")
    parser.set_defaults(func=run)


def suite_options(args: argparse.Namespace) -> dict:
    from probekit.errors import InvalidParameterError

    for name in ("permutations", "bootstrap", "randomizations"):
        if getattr(args, name) < 1:
            raise InvalidParameterError(f"--{name}", getattr(args, name), "a positive integer")
    if args.max_per_word < 0:
        raise InvalidParameterError("--max-per-word", args.max_per_word, "a positive integer, or 0 for all sentences")
    return dict(
        layer=args.layer,
        max_per_word=args.max_per_word or None,
        single_piece_only=not args.all_wordpieces,
        standard_tests=[t.strip() for t in args.seat_tests.split(",") if t.strip()],
        n_permutations=args.permutations,
        n_bootstrap=args.bootstrap,
        n_randomizations=args.randomizations,
        classifier=args.classifier,
        C=args.C,
        random_state=args.seed,
        progress=not args.no_progress,
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from probekit._probe_suite import run_probe_suite

    options = suite_options(args)
    corpus = load_corpus(args)
    encoder = load_model(args)
    if encoder.num_layers and not -(encoder.num_layers + 1) <= args.layer <= encoder.num_layers:
        from probekit.errors import InvalidParameterError

        raise InvalidParameterError("--layer", args.layer, f"an integer in [{-(encoder.num_layers + 1)}, {encoder.num_layers}]")
    out = Path(args.out)
    result = run_probe_suite(encoder, corpus, cache_dir=args.cache_dir or out / "cache", **options)
    result.save(out)
    print((out / "summary.md").read_text(encoding="utf-8"))
    print(f"results: {out / 'results.json'}; summary: {out / 'summary.md'}; chart: {out / 'probe.png'}")
    return 0
