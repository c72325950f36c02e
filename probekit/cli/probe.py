"""``probekit probe``: the intrinsic suite (SEAT, LPBS, gender probe) on one checkpoint."""

from __future__ import annotations

import argparse
import functools

from probekit.cli._attribute import add_attribute_argument, resolve_attribute
from probekit.cli._common import add_corpus_arguments, add_model_arguments, load_corpus, load_model
from probekit.cli._declared import add_declared


def add_suite_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("suite")
    add_attribute_argument(group, help="the attribute probed: gender runs the paper's suite (SEAT, LPBS, the gender "
                           "probe); race, religion or a table of your own run the k-class probe of the attribute's group "
                           "terms (readers, MDL and the verdict with chance 1/k; terms of several wordpieces kept "
                           "unless the paper's single-wordpiece rule is asked for)")
    declared = functools.partial(add_declared, group, owner="probekit.intrinsic:run_probe_suite")
    declared("--layer", parameter="layer", help="hidden layer of the headline numbers (-1: the last)")
    group.add_argument("--layers", default=None, metavar="all|L1,L2,...",
                       help="also run the probe, the paper's SEAT and MDL at these hidden layers ('all': every layer, "
                       "0 = embedding output), from one extraction pass; adds a per-layer table and probe_layers.png")
    declared("--max-per-word", parameter="max_per_word", none_text=("0", "none"),
             help="sentences per word, sampled with --seed (0: all)")
    group.add_argument("--all-wordpieces", action="store_true", default=None,
                       help="keep words of several wordpieces (the paper keeps single-wordpiece words only; the "
                       "default for gender)")
    group.add_argument("--single-wordpiece", dest="all_wordpieces", action="store_false",
                       help="keep single-wordpiece words only (the default for gender; with another --attribute "
                       "every term is kept unless this is given)")
    group.add_argument("--seat-tests", default="weat6,weat6b,weat7,weat7b,weat8,weat8b",
                       help="comma-separated standard SEAT tests at sentence level, on the published sentences "
                       "(NAME-templates: the words in probekit's templates; '' for none)")
    declared("--permutations", parameter="n_permutations", allocation=8, help="SEAT permutation test size")
    declared("--bootstrap", parameter="n_bootstrap", allocation=8, help="bootstrap replicates of the SEAT effect-size interval")
    declared("--randomizations", parameter="n_randomizations", allocation=8, help="probe randomization test size")
    group.add_argument("--classifier", default="logistic", choices=["logistic", "linear_svm"], help="gender probe classifier")
    group.add_argument("--C", default=None,
                       help="inverse regularization strength of the probe, or 'cv' (default): chosen by "
                       "cross-validation grouped by word on the training words")
    group.add_argument("--paper-probe", action="store_true",
                       help="the paper's exact probe (C=1, no class weights, raw features) instead of the default "
                       "class-balanced, standardized probe with C chosen by word-grouped cross-validation")
    group.add_argument("--no-mdl", action="store_true", help="skip the MDL (online code) of the gender labels")
    group.add_argument("--no-lpbs", action="store_true",
                       help="with --attribute other than gender: skip LPBS with k groups (run when the checkpoint has a "
                       "masked-LM head; 2 variants x terms x targets x 5 templates x 2 masked inputs)")
    group.add_argument("--lpbs-targets", default=None, metavar="W1,W2,...",
                       help="with --attribute other than gender: the targets of LPBS with k groups (default: the paper's "
                       "female and male stereotype words)")
    group.add_argument("--readers", default=None, metavar="linear,mlp,kernel",
                       help="reader families for the 'removed or hidden?' verdict per layer (the linear one is always "
                       "included): each is trained on the probe's training words and scored on its held-out words "
                       "(balanced accuracy, word-bootstrap interval), beside its control task on word-type random labels "
                       "(selectivity) and, unless --no-mdl, the MLP family's online code. Default: the verdict from the "
                       "linear gender probe alone (no extra fit)")
    declared("--eraser-fit", parameter="eraser_fit",
             help="for a projection directory (an eraser): 'loaded' runs the readers on the eraser as saved, fitted on "
             "every attribute word, so the check is not word-disjoint (said in the output; a below-chance accuracy is "
             "that artefact); 'word-disjoint' refits the eraser on each word fold's training words (cross-fitting) and "
             "scores every reader on words neither it nor the eraser saw (INLP, LEACE, RLACE, concept scrubbing)")
    declared("--eraser-folds", parameter="eraser_folds",
             help="word folds of --eraser-fit word-disjoint (concept scrubbing: one encoder pass per hidden state and fold)")
    group.add_argument("--upper-bounds", default=None, metavar="oracle-leace,quadratic-leace",
                       help="also read every reader after a label-aware eraser (oracle LEACE, quadratic LEACE) at each "
                       "probed hidden state, word-disjoint over --eraser-folds folds: an upper bound on what an edit told "
                       "every word's label removes, not a deployable method (a table per eraser in summary.md)")
    declared("--seed", parameter="random_state", help="one seed for every random step")
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
    parser.add_argument("--out", default="probekit-out",
                        help="output directory (default: probekit-out): new, empty, an interrupted run's to resume, "
                        "or a finished output of this command with --overwrite")
    parser.add_argument("--overwrite", action="store_true",
                        help="replace a finished output of this command at --out (its embedding cache is reused)")
    from probekit.cli._outputs import declare_output

    declare_output(parser, "probe")
    parser.set_defaults(func=run)


def _probe_C(text: str | None, paper: bool) -> float | str:
    from probekit.errors import InvalidParameterError

    if text is None:
        return 1.0 if paper else "cv"
    if paper:
        raise InvalidParameterError("--C", text, "no --C with --paper-probe", "the paper's probe has C = 1")
    if text.strip().lower() == "cv":
        return "cv"
    try:
        value = float(text)
    except ValueError:
        value = None
    if value is None or not value > 0:
        raise InvalidParameterError("--C", text, "a positive number, or 'cv'")
    return value


def _lpbs_targets(text: str | None) -> list[str] | None:
    from probekit.errors import InvalidParameterError

    if text is None:
        return None
    words = [w.strip() for w in text.split(",") if w.strip()]
    if not words:
        raise InvalidParameterError("--lpbs-targets", text, "comma-separated target words")
    return words


def suite_options(args: argparse.Namespace) -> dict:
    from probekit.errors import InvalidParameterError
    from probekit.intrinsic import PAPER_PROBE, seat_word_sets

    tests = [t.strip() for t in args.seat_tests.split(",") if t.strip()]
    for name in tests:  # an unknown test fails here, before any model loads
        try:
            seat_word_sets(name)
        except InvalidParameterError as exc:
            raise InvalidParameterError("--seat-tests", name, exc.valid) from None
    if args.layers is not None and not args.layers.strip():
        raise InvalidParameterError("--layers", args.layers, "'all' or comma-separated layer indices")
    paper = bool(args.paper_probe)
    attribute = resolve_attribute(args.attribute)
    is_gender = attribute.name == "gender"
    if is_gender and (args.no_lpbs or args.lpbs_targets is not None):
        option = "--no-lpbs" if args.no_lpbs else "--lpbs-targets"
        raise InvalidParameterError(option, "with --attribute gender", "--attribute other than gender",
                                    "gender runs the paper's LPBS on its stereotype words")
    readers = None
    if args.readers is not None:
        from probekit.intrinsic import check_readers

        readers = list(check_readers(args.readers, "--readers"))
    from probekit.intrinsic import check_upper_bounds

    bounds = list(check_upper_bounds(args.upper_bounds, "--upper-bounds"))
    return dict(  # "attribute" only when it is not gender: gender runs record the parameters they always did
        layer=args.layer,
        layers=args.layers,
        max_per_word=args.max_per_word,
        single_piece_only=is_gender if args.all_wordpieces is None else not args.all_wordpieces,
        standard_tests=tests,
        n_permutations=args.permutations,
        n_bootstrap=args.bootstrap,
        n_randomizations=args.randomizations,
        classifier=args.classifier,
        C=_probe_C(args.C, paper),
        class_weight=PAPER_PROBE["class_weight"] if paper else "balanced",
        standardize=PAPER_PROBE["standardize"] if paper else True,
        mdl=not args.no_mdl,
        readers=readers,
        eraser_fit=args.eraser_fit,
        eraser_folds=args.eraser_folds,
        random_state=args.seed,
        **({"upper_bounds": bounds} if bounds else {}),
        progress=not args.no_progress,
    ) | ({} if is_gender else {"attribute": attribute.name, "lpbs": not args.no_lpbs,
                               "lpbs_targets": _lpbs_targets(args.lpbs_targets)})


def run(args: argparse.Namespace) -> int:
    import shutil
    from pathlib import Path

    from probekit.errors import ProbekitError
    from probekit.intrinsic import (
        LAYER_CHART_FILE,
        VERDICT_CHART_FILE,
        AttributeProbeResult,
        resolve_layers,
        run_probe_suite,
    )
    from probekit.utils import ensure_writable_dir

    options = suite_options(args)
    # Before anything slow: the output (and cache) directory must be writable.
    created = not Path(args.out).exists()
    out = ensure_writable_dir(args.out, "--out")
    cache_dir = ensure_writable_dir(args.cache_dir, "--cache-dir") if args.cache_dir else out / "cache"
    # without --corpus another attribute reads its own template corpus (the run's default), not gender's
    own_corpus = args.corpus or args.hf_dataset or "attribute" not in options
    corpus = load_corpus(args) if own_corpus else None
    encoder = load_model(args)
    if encoder.num_layers:
        from probekit.utils import check_layer_index

        check_layer_index(args.layer, encoder.num_layers, "--layer")
    if options["layers"] is not None:
        resolve_layers(options["layers"], encoder.num_layers, "--layers")
    try:
        result = run_probe_suite(encoder, corpus, cache_dir=cache_dir, **options)
    except ProbekitError:
        if created and not args.cache_dir:
            shutil.rmtree(cache_dir, ignore_errors=True)  # a failed first run leaves no --out behind
        raise
    result.save(out)
    print((out / "summary.md").read_text(encoding="utf-8"))
    if isinstance(result, AttributeProbeResult):  # the k-class attribute probe draws no chart
        print(f"results: {out / 'results.json'}; summary: {out / 'summary.md'}")
        return 0
    charts = f"{out / 'probe.png'}" + (f", {out / LAYER_CHART_FILE}" if result.per_layer else "")
    if (out / VERDICT_CHART_FILE).is_file() and result.per_layer:
        charts += f", {out / VERDICT_CHART_FILE}"
    print(f"results: {out / 'results.json'}; summary: {out / 'summary.md'}; charts: {charts}")
    return 0
