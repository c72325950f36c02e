"""``probekit compare``: the intrinsic suite on several checkpoints, laid out like Tokpo et al. (2023)
Tables 1-2 and Figures 2-4."""

from __future__ import annotations

import argparse

from probekit.cli._common import add_corpus_arguments
from probekit.cli.probe import add_suite_arguments

#: Directory name stem of the embedded default encoder's results (kept from earlier versions so that
#: their results are reused).
_DEFAULT_SLUG_NAME = "all-MiniLM-L6-v2 (default)"


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "compare",
        help="run the intrinsic suite on several checkpoints side by side",
        description="Run `probekit probe` on each checkpoint (results in OUT/<name>/, reused when already "
        "there with the same settings) and write OUT/comparison.md (Tables 1-2: SEAT, LPBS, gender probe), "
        "OUT/comparison.png, OUT/figures/*.png (Figures 2-4 style) and OUT/comparison.json. A directory "
        "written by `probekit debias` is labelled '<method> (<directory name>)'; 'default' is the embedded "
        "encoder. `probekit report OUT` turns the comparison into one HTML page.",
    )
    parser.add_argument("models", nargs="*", metavar="CKPT", help="Hugging Face ids or local directories ('default' for the embedded encoder)")
    parser.add_argument("--list", default=None, metavar="FILE", help="file with one checkpoint per line")
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--trust-remote-code", action="store_true")
    parser.add_argument("--safetensors-only", action="store_true", help="refuse pickled weights (pytorch_model.bin)")
    add_corpus_arguments(parser)
    add_suite_arguments(parser)
    parser.add_argument("--out", default="probekit-compare", help="output directory")
    parser.set_defaults(func=run)


def _slug(name: str, taken: set[str]) -> str:
    """A directory name for a model: never ".", ".." or "" (``probekit.utils.safe_name``), unique in ``taken``."""
    import os

    from probekit.utils import safe_name

    text = name
    if name.strip() in {".", "..", "./", "../"} or name.rstrip("/").endswith(("/.", "/..")):
        text = os.path.basename(os.path.abspath(name)) or "model"  # "." names the directory it stands for
    base = safe_name(text, fallback="model")
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


def run(args: argparse.Namespace) -> int:
    import json
    from pathlib import Path

    from probekit import load_encoder
    from probekit.cli._common import load_corpus, read_word_file
    from probekit.cli.probe import suite_options
    from probekit.errors import InvalidParameterError
    from probekit.intrinsic import RESULTS_FILE, run_probe_suite
    from probekit.report import checkpoint_label, load_results, write_intrinsic_comparison
    from probekit.utils import check_within, ensure_writable_dir

    models = list(args.models)
    if args.list:
        models += read_word_file(args.list, "--list")
    if len(models) < 1:
        raise InvalidParameterError("CKPT", models, "at least one checkpoint (arguments or --list FILE)")
    options = suite_options(args)
    out = ensure_writable_dir(args.out, "--out")  # before any model is loaded
    corpus = load_corpus(args)
    taken: set[str] = set()
    plan = []
    for model in models:
        slug = _slug(_DEFAULT_SLUG_NAME if model == "default" else model, taken)
        plan.append((model, slug, checkpoint_label(model)))
    labels = [label for _, _, label in plan]
    plan = [(model, slug, label if labels.count(label) == 1 else f"{label} [{slug}]") for model, slug, label in plan]
    runs = []
    for model, slug, label in plan:
        directory = check_within(out / slug, out, "--out")  # every write stays under --out
        if directory.resolve() == out.resolve():
            raise InvalidParameterError("CKPT", model, "a model whose results get their own directory under --out")
        encoder = load_encoder(None if model == "default" else model, device=args.device, dtype=args.dtype,
                               trust_remote_code=args.trust_remote_code, safetensors_only=args.safetensors_only)
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
                runs.append((label, previous))
                continue
        print(f"{label}: running the suite")
        result = run_probe_suite(encoder, corpus, cache_dir=args.cache_dir or out / "cache", **options)
        result.save(directory, label=label)
        runs.append((label, json.loads((directory / RESULTS_FILE).read_text(encoding="utf-8"))))
    paths = write_intrinsic_comparison(runs, out, sources=[f"{slug}/{RESULTS_FILE}" for _, slug, _ in plan],
                                       random_state=args.seed)
    print(Path(paths["markdown"]).read_text(encoding="utf-8"))
    figures = ", ".join(str(p) for name, p in paths.items() if name not in {"markdown", "overview", "records"})
    print(f"table: {paths['markdown']}; chart: {paths['overview']}; figures: {figures}; records: {paths['records']}")
    return 0
