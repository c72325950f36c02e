"""``probekit embed``: contextual word embeddings (or sentence embeddings) of a corpus, to an npz file."""

from __future__ import annotations

import argparse

from probekit.cli._common import add_corpus_arguments, add_model_arguments, load_corpus, load_model, parse_layers, read_word_file


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "embed",
        help="extract contextual embeddings to an npz file",
        description="Embed every occurrence of the given words in a corpus (or every sentence with "
        "--sentences) and write the embeddings with their provenance to an npz file.",
    )
    add_model_arguments(parser)
    add_corpus_arguments(parser)
    what = parser.add_argument_group("what to embed")
    source = what.add_mutually_exclusive_group()
    source.add_argument("--words", default=None, help="comma-separated words")
    source.add_argument("--words-file", default=None, metavar="FILE", help="one word per line")
    source.add_argument("--sentences", action="store_true", help="embed whole sentences instead of words")
    what.add_argument("--layer", default="-1", help="hidden layer, or comma-separated layers (default -1, the last)")
    what.add_argument("--pooling", default=None, help="words: first|mean|last (default mean); sentences: mean|cls|pooler")
    what.add_argument("--max-per-word", type=int, default=None, help="cap sentences per word (sampled with --seed)")
    what.add_argument("--seed", type=int, default=0, help="random seed for the per-word cap")
    what.add_argument("--on-missing", default="warn", choices=["warn", "error", "ignore"], help="words with no sentence")
    run_group = parser.add_argument_group("run")
    run_group.add_argument("--out", required=True, help="output .npz file")
    run_group.add_argument("--cache-dir", default=None, help="reuse embeddings cached there")
    run_group.add_argument("--batch-tokens", type=int, default=None, help="padded tokens per forward pass")
    run_group.add_argument("--no-progress", action="store_true", help="no progress bar")
    from probekit.cli._outputs import declare_output

    declare_output(parser, "embed")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import numpy as np

    from probekit import embed_sentences, embed_words
    from probekit.errors import InvalidParameterError
    from probekit.text import select_sentences
    from probekit.utils import atomic_path, check_output_file, collect_provenance, dumps_json

    check_output_file(args.out, parameter="--out", suffix=".npz")  # before any work
    if args.batch_tokens is not None and args.batch_tokens < 1:
        raise InvalidParameterError("--batch-tokens", args.batch_tokens, "a positive integer (padded tokens per forward pass)")
    if args.max_per_word is not None and args.max_per_word < 1:
        raise InvalidParameterError("--max-per-word", args.max_per_word, "a positive integer")
    layer = parse_layers(args.layer)
    if not args.sentences:
        if args.words is None and args.words_file is None:
            raise InvalidParameterError("--words/--words-file/--sentences", None, "one of them")
        words = read_word_file(args.words_file, "--words-file") if args.words_file else [
            w.strip() for w in args.words.split(",") if w.strip()
        ]
        if not words:
            raise InvalidParameterError("--words", args.words, "at least one word, comma-separated")
    corpus = load_corpus(args)
    encoder = load_model(args)
    pooling = args.pooling or "mean"
    parameters = {"layer": layer, "pooling": pooling, "corpus": corpus.name, "corpus_digest": corpus.digest}
    if args.sentences:
        embeddings = embed_sentences(
            encoder, list(corpus), pooling=pooling, layer=layer,
            batch_tokens=args.batch_tokens, cache_dir=args.cache_dir, progress=not args.no_progress,
        )
        provenance = collect_provenance(model=encoder.describe(), parameters=parameters)
        arrays = {"embeddings": embeddings, "sentences": np.asarray(list(corpus), dtype=str)}
        summary = f"{len(embeddings)} sentence embeddings of width {embeddings.shape[-1]}"
    else:
        selection = select_sentences(
            corpus, words, max_per_word=args.max_per_word, random_state=args.seed,
            case_sensitive=not encoder.do_lower_case, on_missing=args.on_missing,
        )
        result = embed_words(
            encoder, list(selection.sentences), words, layer=layer, pooling=pooling,
            on_missing="ignore", batch_tokens=args.batch_tokens, cache_dir=args.cache_dir,
            progress=not args.no_progress,
        ).restrict_to(selection)
        provenance = collect_provenance(
            model=encoder.describe(), seeds={"max_per_word": args.seed}, wordlists={"words": words},
            parameters={**parameters, "max_per_word": args.max_per_word, "missing": list(selection.missing)},
        )
        arrays = {**result.to_arrays(), "sentences": np.asarray(list(selection.sentences), dtype=str)}
        summary = (
            f"{len(result)} occurrences of {len(result.vocabulary)} words in {len(selection.sentences)} sentences"
            + (f"; no sentence for: {', '.join(selection.missing)}" if selection.missing else "")
        )
    with atomic_path(args.out, suffix=".tmp.npz") as tmp:
        np.savez(tmp, **arrays, provenance=np.asarray(dumps_json(provenance)))
    print(f"{summary}; written to {args.out}")
    return 0
