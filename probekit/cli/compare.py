"""``probekit compare``: the intrinsic suite on several checkpoints, one table and one chart."""

from __future__ import annotations

import argparse

from probekit.cli._common import add_corpus_arguments
from probekit.cli.probe import add_suite_arguments, suite_options


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="run the intrinsic suite on several checkpoints side by side",
        description="Run `probekit probe` on each checkpoint (results in OUT/<name>/, reused when already "
        "there with the same settings) and write OUT/comparison.md and OUT/comparison.png.",
    )
    parser.add_argument("models", nargs="*", metavar="CKPT", help="Hugging Face ids or local directories ('default' for the embedded encoder)")
    parser.add_argument("--list", default=None, metavar="FILE", help="file with one checkpoint per line")
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--trust-remote-code", action="store_true")
    add_corpus_arguments(parser)
    add_suite_arguments(parser)
    parser.add_argument("--out", default="probekit-compare", help="output directory")
    parser.set_defaults(func=run)


def _slug(name: str, taken: set[str]) -> str:
    import re

    base = re.sub(r"[^A-Za-z0-9._-]+", "_", name.strip("/").replace("/", "__"))[-80:] or "model"
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from probekit import load_encoder
    from probekit._io import atomic_write_text
    from probekit._probe_suite import RESULTS_FILE, run_probe_suite
    from probekit._report import load_results, plot_probe_chart, summary_markdown
    from probekit.cli._common import load_corpus, read_word_file
    from probekit.errors import InvalidParameterError

    models = list(args.models)
    if args.list:
        models += read_word_file(args.list, "--list")
    if len(models) < 1:
        raise InvalidParameterError("models", models, "at least one checkpoint (arguments or --list FILE)")
    options = suite_options(args)
    corpus = load_corpus(args)
    out = Path(args.out)
    taken: set[str] = set()
    runs, labels = [], []
    for model in models:
        label = "all-MiniLM-L6-v2 (default)" if model == "default" else model
        directory = out / _slug(label, taken)
        encoder = load_encoder(None if model == "default" else model, device=args.device, dtype=args.dtype,
                               trust_remote_code=args.trust_remote_code)
        if (directory / RESULTS_FILE).is_file():
            previous = load_results(directory)
            provenance = previous.get("provenance") or {}
            recorded = provenance.get("parameters") or {}
            expected = {k: v for k, v in options.items() if k not in {"progress", "random_state"}}
            expected["standard_tests"] = list(expected["standard_tests"])
            if (
                (provenance.get("model") or {}).get("fingerprint") == encoder.fingerprint
                and (provenance.get("model") or {}).get("dtype") == encoder.describe()["dtype"]
                and (provenance.get("seeds") or {}).get("random_state") == args.seed
                and recorded.get("corpus_digest") == corpus.digest
                and all(recorded.get(k) == v for k, v in expected.items())
            ):
                print(f"{label}: reusing {directory / RESULTS_FILE}")
                runs.append(previous)
                labels.append(label)
                continue
        print(f"{label}: running the suite")
        result = run_probe_suite(encoder, corpus, cache_dir=args.cache_dir or out / "cache", **options)
        result.save(directory, label=label)
        runs.append(json.loads((directory / RESULTS_FILE).read_text(encoding="utf-8")))
        labels.append(label)
    atomic_write_text(out / "comparison.md", summary_markdown(runs, labels))
    plot_probe_chart(runs, out / "comparison.png", labels)
    print((out / "comparison.md").read_text(encoding="utf-8"))
    print(f"table: {out / 'comparison.md'}; chart: {out / 'comparison.png'}")
    return 0
