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
        "encoder. `probekit report OUT` turns the comparison into one HTML page. With --benchmarks, the field's "
        "standard benchmarks run on each checkpoint too (OUT/<name>/<benchmark>/) and comparison.md gains their "
        "tables and each debiased checkpoint's significance against its base. Every table is also written as "
        "LaTeX (booktabs) to OUT/tables/comparison_NN_*.tex.",
    )
    parser.add_argument("models", nargs="*", metavar="CKPT", help="Hugging Face ids or local directories ('default' for the embedded encoder)")
    parser.add_argument("--list", default=None, metavar="FILE", help="file with one checkpoint per line")
    parser.add_argument("--device", default=None)
    parser.add_argument("--dtype", default=None, choices=["float32", "bfloat16", "float16"])
    parser.add_argument("--trust-remote-code", action="store_true")
    parser.add_argument("--safetensors-only", action="store_true", help="refuse pickled weights (pytorch_model.bin)")
    add_corpus_arguments(parser)
    add_suite_arguments(parser)
    parser.add_argument(
        "--benchmarks", default=None, metavar="NAME=PATH,...",
        help="also run these benchmarks on every checkpoint, comma-separated: crows-pairs=FILE (CrowS-Pairs CSV, "
        "public layout), stereoset=FILE (StereoSet dev.json), seat-suite=DIR (a SEAT release of *.jsonl tests). "
        "Results go to OUT/<name>/<benchmark>/ (results.json + per-example CSV; reused when the same checkpoint and "
        "file were scored); crows-pairs and stereoset are skipped, with the reason, for a checkpoint without a "
        "masked-LM head. Uses --seed, --permutations and --bootstrap (SEAT permutations, bootstrap replicates).",
    )
    parser.add_argument("--out", default="probekit-compare",
                        help="output directory: new, empty, an interrupted comparison's to resume (its finished "
                        "per-model runs are reused), or a finished one with --overwrite")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a finished comparison at --out (comparison.json; finished per-model runs are reused)")
    from probekit.cli._outputs import declare_output

    declare_output(parser, "compare")
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


#: Names accepted by --benchmarks and whether the path is a file (else a directory).
BENCHMARKS = {"crows-pairs": True, "stereoset": True, "seat-suite": False}


def parse_benchmarks(spec: str | None) -> dict[str, str]:
    """``"crows-pairs=FILE,stereoset=FILE,seat-suite=DIR"`` -> ``{name: path}``, each path checked."""
    from pathlib import Path

    from probekit.errors import InvalidParameterError

    chosen: dict[str, str] = {}
    for item in [part.strip() for part in (spec or "").split(",") if part.strip()]:
        name, _, path = item.partition("=")
        name = name.strip()
        if name not in BENCHMARKS or not path.strip():
            raise InvalidParameterError("--benchmarks", item, "NAME=PATH with NAME one of " + ", ".join(BENCHMARKS))
        path = path.strip()
        if not (Path(path).is_file() if BENCHMARKS[name] else Path(path).is_dir()):
            raise InvalidParameterError("--benchmarks", item, f"an existing {'file' if BENCHMARKS[name] else 'directory'} for {name}")
        chosen[name] = path
    return chosen


def _reusable(directory, encoder, path: str) -> bool:
    import json

    try:
        previous = json.loads((directory / "results.json").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    provenance = previous.get("provenance") or {}
    return ((provenance.get("model") or {}).get("fingerprint") == encoder.fingerprint
            and (provenance.get("parameters") or {}).get("data", (provenance.get("parameters") or {}).get("suite")) == path)


def _score(name: str, path: str, encoder, args: argparse.Namespace):
    from probekit.intrinsic import crows_pairs, run_seat_suite, stereoset

    progress = not args.no_progress
    if name == "crows-pairs":
        result = crows_pairs(encoder, path, progress=progress)
    elif name == "stereoset":
        result = stereoset(encoder, path, n_resamples=args.bootstrap, random_state=args.seed, progress=progress)
    else:
        result = run_seat_suite(encoder, path, n_permutations=args.permutations, n_bootstrap=args.bootstrap,
                                random_state=args.seed, progress=progress)
    result.provenance.setdefault("parameters", {})["data"] = path
    return result


def run_benchmarks(encoder, model: str, label: str, directory, out, benchmarks: dict[str, str],
                   args: argparse.Namespace) -> list[str]:
    """Run each benchmark on one checkpoint into ``directory/<name>/``; returns the skip reasons."""
    from probekit.report import checkpoint_method
    from probekit.utils import check_within

    skipped = []
    found = checkpoint_method(model) if model != "default" else None
    facts = encoder.describe()
    checkpoint = {"label": label, "method": (found or {}).get("method") or "none",
                  "base_name_or_path": (found or {}).get("base") or facts.get("base_name_or_path"),
                  "base_fingerprint": facts.get("base_fingerprint")}
    for name, path in benchmarks.items():
        target = check_within(directory / name, out, "--out")
        if name != "seat-suite" and not encoder.has_mlm_head:
            skipped.append(f"{label}: {name} skipped: the checkpoint has no masked-LM head (it scores masked-token "
                           "log-probabilities); the SEAT suite runs on any encoder")
            print(skipped[-1])
            continue
        if _reusable(target, encoder, path):
            print(f"{label}: reusing {target / 'results.json'}")
            continue
        print(f"{label}: running {name}")
        result = _score(name, path, encoder, args)
        result.provenance["checkpoint"] = checkpoint
        result.save(target)
    return skipped


def _benchmark_section(out, slugs: list[str], chosen: dict[str, str], skipped: list[str], args: argparse.Namespace) -> list:
    from probekit.report import benchmark_blocks, benchmark_models, benchmark_tables, find_benchmark_runs

    kinds = {"crows-pairs": "crows_pairs", "stereoset": "stereoset_intrasentence", "seat-suite": "seat_suite"}
    wanted = {kinds[name] for name in chosen}
    runs = [r for slug in slugs for r in find_benchmark_runs(out / slug, max_depth=1) if r["benchmark"] in wanted]
    tables = benchmark_tables(runs, n_bootstrap=args.bootstrap, random_state=args.seed)
    return benchmark_blocks(tables, benchmark_models(runs), heading_level=2, skipped=skipped)


def _verdict_section(runs: list, out) -> list:
    """The readers' verdict, methods x layers, and its figure coloured by verdict (empty without verdicts)."""
    from probekit.report import plot_verdict_layers, upper_bound_runs, verdict_comparison_blocks

    runs = [*runs, *upper_bound_runs(runs)]  # label-aware erasers' rows beside the checkpoints they bound
    blocks = verdict_comparison_blocks(runs)
    if blocks:
        plot_verdict_layers(runs, out / "figures" / "verdict_layers.png")
        blocks += ["![Verdict per checkpoint and layer](figures/verdict_layers.png)", ""]
    return blocks


def _compare_attribute(args: argparse.Namespace, models: list[str], options: dict) -> int:
    """``compare --attribute race``: the k-class probe on every checkpoint, one table and the verdicts."""
    import json

    from probekit import load_encoder
    from probekit.cli._common import load_corpus
    from probekit.errors import InvalidParameterError
    from probekit.intrinsic import RESULTS_FILE, run_probe_suite
    from probekit.report import attribute_comparison_markdown, checkpoint_label
    from probekit.utils import atomic_write_text, check_within, ensure_writable_dir

    if args.benchmarks:
        raise InvalidParameterError("--benchmarks", args.benchmarks, f"none with --attribute {options['attribute']}",
                                    "run the benchmarks in a gender comparison or with `probekit crows-pairs` etc.")
    out = ensure_writable_dir(args.out, "--out")
    corpus = load_corpus(args) if args.corpus or args.hf_dataset else None  # default: the attribute's templates
    taken: set[str] = set()
    runs = []
    for model in models:
        slug, label = _slug(_DEFAULT_SLUG_NAME if model == "default" else model, taken), checkpoint_label(model)
        directory = check_within(out / slug, out, "--out")
        encoder = load_encoder(None if model == "default" else model, device=args.device, dtype=args.dtype,
                               trust_remote_code=args.trust_remote_code, safetensors_only=args.safetensors_only)
        print(f"{label}: running the {options['attribute']} probe")
        result = run_probe_suite(encoder, corpus, cache_dir=args.cache_dir or out / "cache", **options)
        result.save(directory, label=label)
        runs.append((label, json.loads((directory / RESULTS_FILE).read_text(encoding="utf-8"))))
    markdown = attribute_comparison_markdown(runs, _verdict_section(runs, out))
    atomic_write_text(out / "comparison.md", markdown)
    print(markdown)
    print(f"table: {out / 'comparison.md'}")
    return 0


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
    if "attribute" in options:
        return _compare_attribute(args, models, options)
    benchmarks = parse_benchmarks(args.benchmarks)
    out = ensure_writable_dir(args.out, "--out")  # before any model is loaded
    corpus = load_corpus(args)
    taken: set[str] = set()
    plan = []
    for model in models:
        slug = _slug(_DEFAULT_SLUG_NAME if model == "default" else model, taken)
        plan.append((model, slug, checkpoint_label(model)))
    labels = [label for _, _, label in plan]
    plan = [(model, slug, label if labels.count(label) == 1 else f"{label} [{slug}]") for model, slug, label in plan]
    runs, skipped = [], []
    for model, slug, label in plan:
        directory = check_within(out / slug, out, "--out")  # every write stays under --out
        if directory.resolve() == out.resolve():
            raise InvalidParameterError("CKPT", model, "a model whose results get their own directory under --out")
        encoder = load_encoder(None if model == "default" else model, device=args.device, dtype=args.dtype,
                               trust_remote_code=args.trust_remote_code, safetensors_only=args.safetensors_only)
        if benchmarks:
            skipped += run_benchmarks(encoder, model, label, directory, out, benchmarks, args)
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
    extra = _verdict_section(runs, out)
    extra += _benchmark_section(out, [slug for _, slug, _ in plan], benchmarks, skipped, args) if benchmarks else []
    paths = write_intrinsic_comparison(runs, out, sources=[f"{slug}/{RESULTS_FILE}" for _, slug, _ in plan],
                                       random_state=args.seed, extra_blocks=extra, latex_prefix="comparison")
    markdown = Path(paths["markdown"]).read_text(encoding="utf-8")
    latex = [p for name, p in paths.items() if name.startswith("latex-")]
    print(markdown)
    figures = ", ".join(str(p) for name, p in paths.items()
                        if name not in {"markdown", "overview", "records"} and not name.startswith("latex-"))
    print(f"LaTeX: {len(latex)} table(s) in {out / 'tables'}")
    print(f"table: {paths['markdown']}; chart: {paths['overview']}; figures: {figures}; records: {paths['records']}")
    return 0
