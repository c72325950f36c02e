"""``probekit finetune``: fine-tune an encoder + linear layer and measure extrinsic bias over folds.

Tokpo et al. (2023, §4): a classifier is trained under one training-data setting (original,
scrubbed, swapped) in every fold of a stratified cross-validation; every test example is also
scored on its gender-swapped counterfactual; TPRD, FPRD, ACC-F/M, CF and the CF-* metrics come
from the shared metric engine, per fold and as mean ± 95% t-interval over folds.
"""

from __future__ import annotations

import argparse
import functools
import sys
from typing import Iterator, Sequence

from probekit.cli._attribute import add_attribute_argument
from probekit.cli._common import add_model_arguments
from probekit.cli._declared import add_declared

DATA_CHOICES = ("synthetic", "bios", "jigsaw")


class _SettingChoices(Sequence[str]):
    """The settings table of probekit.finetune (``DATA_SETTINGS``), read when argparse first checks
    or lists a value: importing probekit.finetune loads torch, which ``probekit --help`` should not."""

    def _names(self) -> tuple[str, ...]:
        from probekit.finetune import DATA_SETTINGS

        return DATA_SETTINGS

    def __getitem__(self, index):  # type: ignore[override]
        return self._names()[index]

    def __len__(self) -> int:
        return len(self._names())

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __contains__(self, value: object) -> bool:
        return value in self._names()


SETTING_CHOICES: Sequence[str] = _SettingChoices()

#: Size of the synthetic pool by default (80 biographies per profession), with the paper's training
#: settings (4 epochs, batch 16, length 100, lr 2e-5). Full fine-tuning of the embedded encoder
#: (all-MiniLM-L6-v2, fp32) on 2 idle CPU cores trains about 25 examples/s and predicts about 100
#: texts/s (scripts/bench_finetune.py; single-thread CPU time 1.2 s per step of 16), so one setting x
#: 2 folds is 2 x 560 x 4 training examples and 2 x 1120 predictions: about 3.5 minutes (swapped,
#: with twice the training data, about 6.5). A smaller pool (560) gave too few steps to learn the
#: 14 classes at lr 2e-5 (accuracy 0.22 in a measured fold). The frozen path embeds each text once
#: (about 100 texts/s) and fits a logistic regression, so it affords a larger pool.
DEFAULT_SYNTHETIC_EXAMPLES = 1120
DEFAULT_SYNTHETIC_EXAMPLES_FROZEN = 2800

DESCRIPTION = """\
Fine-tune an encoder with one linear layer on a classification task under one training-data
setting and evaluate its extrinsic gender bias over cross-validation folds:

  original   the training data as loaded
  scrubbed   gender words and first names deleted from the training texts
  swapped    the training data plus its gender-swapped counterfactuals (same labels)
  balanced   the data as loaded; every label x gender cell weighs the same in the loss
             (instance reweighting, Han et al. 2022)
  adversarial
             the data as loaded; a gender discriminator on the pooled vector trained through
             gradient reversal (Elazar & Goldberg 2018), strength --adversarial-lambda; with
             --frozen it acts on a trainable linear projection in front of the linear layer

--attribute race|religion|NAME measures the extrinsic side for the k groups of that attribute
instead of gender (--data synthetic: race, the synthetic group biographies with --shortcut;
--data jigsaw: race or religion from the identity columns): per fold and pooled over folds, the
k-group gap family of TPR and FPR per class (max gap, RMS gap to the overall rate, pairwise gaps
with simultaneous intervals), the k-group CF, the k-class leakage probe (chance 1/k), with
--intersect gender the attribute x gender cells, and on Jigsaw Borkan's per-subgroup AUCs. The
settings scrub and swap the attribute's terms (CDA to a random other group) and balance label x
group cells; adversarial is gender-only.

Writes OUT/folds/fold-NN/{original,augmented}.csv (predictions with class probabilities for every
test example and its counterfactual, readable by `probekit metrics`), OUT/metrics.json (every
fold, mean/std/95% t-interval, provenance), OUT/results.md (a table like the paper's Tables 3-4)
and OUT/results.png. An interrupted run continues with --resume.
"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "finetune",
        help="fine-tune and measure TPRD, FPRD, CF over folds (original, scrubbed, swapped, balanced, adversarial)",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_model_arguments(parser)
    data = parser.add_argument_group("data")
    data.add_argument("--data", default="synthetic", choices=DATA_CHOICES,
                      help="task: synthetic biographies (embedded, offline), Bias-in-Bios or Jigsaw (default: %(default)s)")
    data.add_argument("--data-path", default=None, metavar="PATH",
                      help="bios/jigsaw: a CSV/TSV/JSON(L)/parquet file, a saved datasets folder, or a hub name when online")
    data.add_argument("--test-data-path", default=None, metavar="PATH",
                      help="bios/jigsaw: a fixed test set in the same layout (one train/test split instead of folds)")
    data.add_argument("--split", default=None, help="split of a saved DatasetDict / hub dataset (default: all, concatenated)")
    data.add_argument("--professions", default="paper",
                      help="bios: 'paper' (7 most female- and 7 most male-dominated), 'all', or comma-separated names")
    data.add_argument("--n-examples", type=int, default=None,
                      help=f"synthetic: size of the pool (default {DEFAULT_SYNTHETIC_EXAMPLES}, "
                      f"{DEFAULT_SYNTHETIC_EXAMPLES_FROZEN} with --frozen)")
    data.add_argument("--fixed-split", action="store_true",
                      help="synthetic: train on the skewed training split and test on a gender-balanced test split "
                      "of --n-examples / 2 instead of cross-validation")
    data.add_argument("--train-gender-skew", type=float, default=0.85,
                      help="synthetic: P(stereotypical gender | profession) in the training data (default: %(default)s)")
    data.add_argument("--cue-strength", type=float, default=0.3,
                      help="synthetic: probability of a profession-specific phrase per cue sentence (default: %(default)s)")
    declared_data = functools.partial(add_declared, data, owner="probekit.finetune:make_synthetic_group_bios")
    declared_data("--shortcut", parameter="shortcut", default=None, metavar="race|intersection|none",
                  help="synthetic with --attribute race: the shortcut planted in the training split "
                       "(none unless asked)")
    declared_data("--shortcut-strength", parameter="strength", metavar="S",
                  help="synthetic with --attribute race: P(label 1) in the planted cells")
    attribute = parser.add_argument_group("attribute (k groups)")
    add_attribute_argument(attribute, help="the protected attribute whose groups the extrinsic metrics compare")
    attribute.add_argument("--intersect", default=None, metavar="COLUMN",
                           help="with a k-group --attribute: also the gaps of the attribute x COLUMN cells "
                                "(gender: the synthetic group biographies carry it)")
    add_declared(attribute, "--min-cell-size", owner="probekit.extrinsic:intersectional_gaps", parameter="min_cell_size",
                 metavar="N", help="intersection cells with fewer test examples are listed and left out of the gaps")
    study = parser.add_argument_group("study")
    study.add_argument("--setting", default="original", choices=SETTING_CHOICES, metavar="SETTING",
                       help="training-data setting: %(choices)s (default: %(default)s)")
    study.add_argument("--folds", type=int, default=10, help="stratified cross-validation folds (default: %(default)s, the paper's)")
    study.add_argument("--frozen", action="store_true",
                       help="keep the encoder fixed: embeddings computed once, then a logistic-regression linear layer (fast)")
    study.add_argument("--embedding-cache", default=None, metavar="DIR",
                       help="with --frozen: cache the embeddings here, so runs of the other settings reuse them")
    study.add_argument("--reader", default=None, metavar="mlp[,kernel]",
                       help="nonlinear readers that also read each fold's leakage from the pooled vectors, beside the "
                            "linear gender probe (probekit.intrinsic: mlp, kernel; default: the linear probe only)")
    training = parser.add_argument_group("training (defaults: the paper's)")
    declared = functools.partial(add_declared, training, owner="probekit.finetune:FinetuneConfig")
    declared("--epochs", parameter="epochs", help="passes over the training data")
    declared("--lr", parameter="learning_rate", help="peak AdamW learning rate")
    declared("--batch-size", parameter="batch_size", help="texts per step")
    declared("--max-length", parameter="max_length", help="tokens per text, special tokens included")
    declared("--pooling", parameter="pooling", help="sentence vector read by the linear layer")
    declared("--adversarial-lambda", parameter="adversarial_lambda", metavar="LAMBDA",
             help="adversarial setting: strength of the gradient reversal")
    declared("--adversary-lr", parameter="adversary_learning_rate", metavar="LR",
             help="adversarial setting, full fine-tuning: the discriminator's own peak learning rate")
    declared("--balanced-weight-power", parameter="balanced_weight_power", metavar="P",
             help="balanced setting: the label x gender weights raised to P in [0, 1] (1 full, 0 none)")
    declared("--seed", parameter="seed", help="seed of folds, data, initialization, batch order, dropout")
    run = parser.add_argument_group("run")
    run.add_argument("--out", required=True, metavar="DIR", help="output directory (new or empty, or the run to --resume)")
    run.add_argument("--resume", action="store_true", help="continue an interrupted run in --out")
    run.add_argument("--no-progress", action="store_true", help="no progress bars")
    from probekit.cli._outputs import declare_output

    declare_output(parser, "finetune")
    parser.set_defaults(func=run_command)


def _config(args: argparse.Namespace):
    from probekit.errors import InvalidParameterError
    from probekit.finetune import FinetuneConfig

    if args.device not in (None, "cpu") and not str(args.device).startswith(("cuda", "mps")):
        raise InvalidParameterError("--device", args.device, "cpu, cuda, cuda:N or mps")
    return FinetuneConfig(
        epochs=args.epochs, learning_rate=args.lr, batch_size=args.batch_size, max_length=args.max_length,
        pooling=args.pooling, frozen=args.frozen, seed=args.seed, device="cpu" if args.device == "cpu" else None,
        adversarial_lambda=args.adversarial_lambda, adversary_learning_rate=args.adversary_lr,
        balanced_weight_power=args.balanced_weight_power,
    )


def _load_data(args: argparse.Namespace, attribute: str = "gender"):
    """(data, test data or None) in the shared representation (with the attribute's group column)."""
    from probekit.errors import InvalidParameterError
    from probekit.finetune import load_data

    if attribute == "gender":
        for option in ("shortcut", "intersect"):
            if getattr(args, option, None) is not None:
                raise InvalidParameterError("--" + option, getattr(args, option), "no value with --attribute gender "
                                            "(it is for a k-group attribute: --attribute race)")
    if args.data == "synthetic":
        for option in ("data_path", "test_data_path", "split"):
            if getattr(args, option):
                raise InvalidParameterError("--" + option.replace("_", "-"), getattr(args, option),
                                            "no value with --data synthetic (the data is generated)")
        n = args.n_examples or (DEFAULT_SYNTHETIC_EXAMPLES_FROZEN if args.frozen else DEFAULT_SYNTHETIC_EXAMPLES)
        plan = (dict(train_gender_skew=args.train_gender_skew) if attribute == "gender" else
                dict(attribute=attribute, shortcut=args.shortcut, strength=args.shortcut_strength))
        return load_data("synthetic", n_examples=n, fixed_split=args.fixed_split, random_state=args.seed,
                         cue_strength=args.cue_strength, **plan)
    for option in ("n_examples", "fixed_split"):
        if getattr(args, option):
            raise InvalidParameterError("--" + option.replace("_", "-"), getattr(args, option), "only with --data synthetic")
    if not args.data_path:
        raise InvalidParameterError("--data-path", None, f"a file, a saved datasets folder or a hub name for --data {args.data}")
    options = {"split": args.split}
    if args.data == "bios":
        options["professions"] = args.professions if args.professions in ("paper", "all") else [
            p.strip() for p in args.professions.split(",") if p.strip()
        ]
    if attribute != "gender":
        if args.data == "bios":
            raise InvalidParameterError("--attribute", attribute, "gender with --data bios (Bias in Bios carries gender only)")
        return load_data(args.data, path=args.data_path, test_path=args.test_data_path, attribute=attribute, **options)
    return load_data(args.data, path=args.data_path, test_path=args.test_data_path, **options)


def run_command(args: argparse.Namespace) -> int:
    from pathlib import Path

    from probekit.cli._attribute import resolve_attribute
    from probekit.cli._common import check_max_length, check_resume_files, load_model
    from probekit.errors import InvalidParameterError
    from probekit.finetune import (
        FIGURE_FILE,
        METRICS_FILE,
        TABLE_FILE,
        check_group_setting,
        check_leakage_readers,
        check_output_dir,
        run_finetune,
    )
    from probekit.utils import check_output_dir as check_dir

    config = _config(args)
    attribute = resolve_attribute(args.attribute).name
    readers = check_leakage_readers(args.reader, "--reader")
    if readers and attribute != "gender":
        raise InvalidParameterError("--reader", args.reader, "no value with a k-group --attribute "
                                    "(leakage is read by the linear k-class probe)")
    check_group_setting(args.setting, attribute, "--setting")  # adversarial is gender-only: refused before anything loads
    if args.embedding_cache and not args.frozen:
        raise InvalidParameterError("--embedding-cache", args.embedding_cache, "a directory together with --frozen "
                                    "(full fine-tuning changes the encoder, so its embeddings are not reusable)")
    if not args.fixed_split and not args.test_data_path and args.folds < 2:
        raise InvalidParameterError("--folds", args.folds, "an integer >= 2 (or a fixed split: --fixed-split / --test-data-path)")
    out = check_output_dir(args.out, resume=args.resume, parameter="--out")  # before anything slow
    if args.embedding_cache:
        check_dir(args.embedding_cache, parameter="--embedding-cache", reuse=True)
    if args.resume and out.is_dir():
        state = [out / "run.json", *sorted(out.glob("folds/*/fold.json")), *sorted(out.rglob("trainer_state.json")),
                 *sorted(out.rglob("*.safetensors"))]
        check_resume_files(state, f"remove {args.out} (or that file's fold directory) and run again to start over")
    data, test = _load_data(args, attribute)
    if test is None and args.folds > len(data):
        raise InvalidParameterError("--folds", args.folds, f"at most the number of examples ({len(data)})")
    encoder = load_model(args)
    check_max_length(args.max_length, encoder)

    def say(message: str) -> None:
        print(f"probekit finetune: {message}", file=sys.stderr, flush=True)

    result = run_finetune(
        encoder, data, setting=args.setting, folds=args.folds, test_data=test, config=config, out_dir=out,
        resume=args.resume, progress=not args.no_progress, data_name=args.data, report=say,
        embedding_cache=args.embedding_cache, leakage_readers=readers, attribute=attribute, intersect=args.intersect,
        min_cell_size=args.min_cell_size,
    )
    print((Path(out) / TABLE_FILE).read_text(encoding="utf-8"))
    figure = f"; figure: {Path(out) / FIGURE_FILE}" if attribute == "gender" else ""
    print(f"metrics: {Path(out) / METRICS_FILE}; table: {Path(out) / TABLE_FILE}{figure}; predictions: {Path(out) / 'folds'}")
    n_warn = sum(len(f.get("warnings", [])) for f in result.folds)
    if n_warn and attribute != "gender":
        say(f"warning: {n_warn} undefined rate(s) or small group(s) in the folds (see each fold.json's warnings); "
            "undefined rates are NaN and left out of the gaps")
    elif n_warn:
        say(f"warning: {n_warn} undefined per-class metric cell(s) (a class without test examples of one gender "
            "in a fold); they are NaN in metrics.json and left out of the class aggregates")
    return 0
