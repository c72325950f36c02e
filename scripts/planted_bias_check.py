"""Planted-bias check: does the fine-tuning study find the gender shortcut planted in the synthetic
biographies, and do scrubbing and swapping remove it?

The synthetic biographies (:func:`probekit.finetune.make_synthetic_bios`) correlate gender with
profession in the training data (``--train-gender-skew``, default 0.85: 85% of the nurses are
women, 85% of the surgeons men, ...) while the profession cues are weak (``--cue-strength``), so
a classifier can learn gender as a shortcut. Expected answer (Tokpo et al. 2023, §4):

(a) under the original training data, TPRD and CF are above 0 (their 95% t-intervals over folds
    exclude 0);
(b) scrubbing (gender words and names deleted from the training texts) and swapping (training
    data plus its gender-swapped counterfactuals) each lower TPRD and CF by more than the
    fold-to-fold spread (the larger of the two settings' standard deviations over folds).

The script runs the settings with the same folds (``probekit.finetune.run_finetune``; by
default the frozen path: embeddings of the encoder computed once, shared by the settings through
the embedding cache, and a logistic-regression linear layer; ``--mode full`` fine-tunes the whole
encoder, which takes far longer on a CPU) and prints, per setting, TPRD (the paper's aggregate:
the mean over classes of |TPR_female - TPR_male|) and CF with their t-intervals, beside two
diagnostics that the paper's aggregate needs:

- *stereotype-signed TPRD*: the mean over classes of s_c (TPR_female - TPR_male) with s_c = +1 for
  the female-dominated and -1 for the male-dominated professions. Positive when the classifier
  favours the stereotypical gender, 0 in expectation without bias. The mean absolute value is
  never below 0 and grows with sampling noise alone, so its interval excluding 0 says little on
  its own;
- *noise floors*, as every run saves them (:func:`probekit.finetune.noise_floor`): the absolute
  TPRD with the genders shuffled within each class of the test fold (what it reads when gender and
  errors are unrelated), and CF against the same-gender renaming of the test texts (what it reads
  when names change but gender does not).

(c) With the ``adversarial`` setting: is the gender of the test examples read from the
    classifier's representation (leakage, the runs' saved ``leakage``) lower than under plain
    training, as a paired t-interval over the same folds?

Every metric comes from the shared engine (the runs' metrics.json, ``fold_metrics``); intervals
from :func:`probekit.extrinsic.t_interval`.

Usage::

    python scripts/planted_bias_check.py                        # frozen path, 5 folds, 2800 bios
    python scripts/planted_bias_check.py --mode full --n-examples 560 --folds 3
    python scripts/planted_bias_check.py --mode full --settings adversarial --n-examples 700 --epochs 2 --folds 3
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np  # noqa: E402

from probekit import load_encoder
from probekit.extrinsic import t_interval
from probekit.finetune import (
    DATA_SETTINGS,
    SYNTHETIC_FEMALE_DOMINATED,
    FinetuneConfig,
    make_synthetic_bios,
    run_finetune,
)

METRICS = ("tprd", "signed_tprd", "cf")
LABELS = {"tprd": "TPRD (mean |F-M|)", "signed_tprd": "TPRD (stereotype-signed)", "cf": "CF"}


def _signed_tprd(fold: dict, female_dominated: set[str]) -> float:
    values = [(1.0 if c in female_dominated else -1.0) * v for c, v in fold["per_class"]["tprd"].items()
              if v is not None and np.isfinite(v)]
    return float(np.mean(values)) if values else float("nan")


def _number(value: object) -> float:
    return float("nan") if value is None else float(value)


def _fold_values(result, female: set[str]) -> dict[str, list[float]]:
    """Per fold: the metrics, their saved noise floors (shuffled gender for TPRD, same-gender
    renaming for CF) and the leakage from the representation and from the probabilities."""
    def floor(f: dict, metric: str) -> float:
        return _number(((f.get("noise_floor") or {}).get(metric) or {}).get("floor_mean"))

    def leakage(f: dict, source: str) -> float:
        return _number(((f.get("leakage") or {}).get(source) or {}).get("balanced_accuracy"))

    return {
        "tprd": [f["metrics"]["tprd"] for f in result.folds],
        "signed_tprd": [_signed_tprd(f, female) for f in result.folds],
        "cf": [f["metrics"]["cf"] for f in result.folds],
        "accuracy": [f["metrics"]["accuracy"] for f in result.folds],
        "tprd_floor": [floor(f, "tprd") for f in result.folds],
        "cf_floor": [floor(f, "cf") for f in result.folds],
        "leakage": [leakage(f, "representation") for f in result.folds],
        "leakage_probabilities": [leakage(f, "probabilities") for f in result.folds],
    }


def _fmt(stats: dict) -> str:
    return f"{stats['mean']:+.4f} ± {stats['margin']:.4f} [{stats['low']:+.4f}, {stats['high']:+.4f}] (sd {stats['std']:.4f})"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="checkpoint (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument("--mode", choices=("frozen", "full"), default="frozen",
                        help="frozen encoder + logistic regression (default), or full fine-tuning")
    parser.add_argument("--settings", default=",".join(DATA_SETTINGS),
                        help="comma-separated settings to run (default: all; original is always run)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--n-examples", type=int, default=None, help="pool size (default 2800 frozen, 560 full)")
    parser.add_argument("--cue-strength", type=float, default=0.3)
    parser.add_argument("--train-gender-skew", type=float, default=0.85)
    parser.add_argument("--epochs", type=int, default=4, help="full fine-tuning only")
    parser.add_argument("--lr", type=float, default=2e-5, help="full fine-tuning only")
    parser.add_argument("--adversarial-lambda", type=float, default=1.0)
    parser.add_argument("--adversary-lr", type=float, default=1e-3, help="full fine-tuning only")
    parser.add_argument("--max-length", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default=None, help="where the runs go (default: a temporary directory); "
                        "an existing one is resumed")
    parser.add_argument("--no-progress", action="store_true")
    return parser


def _run_settings(args: argparse.Namespace, settings: list[str], out: Path) -> tuple[dict, dict, dict]:
    frozen = args.mode == "frozen"
    n = args.n_examples or (2800 if frozen else 560)
    encoder = load_encoder(args.model, device="cpu")
    data = make_synthetic_bios(n, 14, cue_strength=args.cue_strength, train_gender_skew=args.train_gender_skew,
                               random_state=args.seed)["train"]
    config = FinetuneConfig(frozen=frozen, epochs=args.epochs, learning_rate=args.lr, max_length=args.max_length,
                            device="cpu", seed=args.seed, adversarial_lambda=args.adversarial_lambda,
                            adversary_learning_rate=args.adversary_lr)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"planted-bias check: {encoder.name_or_path}, "
          f"{'frozen encoder + logistic regression' if frozen else f'full fine-tuning ({args.epochs} epochs, lr {args.lr})'}; "
          f"{n} synthetic bios (14 professions, cue strength {args.cue_strength}, train gender skew "
          f"{args.train_gender_skew}), {args.folds} stratified folds, seed {args.seed}; max length {args.max_length}; "
          f"settings {', '.join(settings)}; {os.cpu_count()} CPU cores, load average {load:.1f} at start; runs in {out}",
          flush=True)
    female = set(SYNTHETIC_FEMALE_DOMINATED)
    per_fold, stats, seconds = {}, {}, {}
    for setting in settings:
        run_dir = out / setting
        t0 = time.perf_counter()
        result = run_finetune(
            encoder, data, setting=setting, folds=args.folds, config=config, out_dir=run_dir,
            resume=run_dir.is_dir() and any(run_dir.iterdir()), progress=not args.no_progress, data_name="synthetic",
            report=lambda line, s=setting: print(f"  [{s}] {line}", flush=True),
            embedding_cache=out / "embedding-cache" if frozen else None,
        )
        per_fold[setting] = _fold_values(result, female)
        stats[setting] = {k: t_interval(v) for k, v in per_fold[setting].items()}
        seconds[setting] = time.perf_counter() - t0
    return per_fold, stats, seconds


def _print_settings(per_fold: dict, stats: dict, seconds: dict, folds: int) -> None:
    print()
    print(f"Per setting: mean over {folds} folds ± half-width of the 95% t-interval [interval] (sd over folds)")
    for setting, s in stats.items():
        print(f"\n{setting}  ({seconds[setting]:.0f} s)")
        print(f"  accuracy                    {_fmt(s['accuracy'])}")
        for m in METRICS:
            print(f"  {LABELS[m]:<27} {_fmt(s[m])}")
        print(f"  TPRD floor (shuffled)       {_fmt(s['tprd_floor'])}")
        print(f"  CF floor (renamed)          {_fmt(s['cf_floor'])}")
        print(f"  leakage, representation     {_fmt(s['leakage'])}")
        print(f"  leakage, probabilities      {_fmt(s['leakage_probabilities'])}")
    for setting, values in per_fold.items():
        print(f"  per fold {setting:<11} TPRD " + " ".join(f"{v:.3f}" for v in values["tprd"])
              + " | CF " + " ".join(f"{v:.4f}" for v in values["cf"])
              + " | leakage " + " ".join(f"{v:.3f}" for v in values["leakage"]))


def _check_original(stats: dict) -> list[bool]:
    checks = []
    print("\n(a) original setting: do the 95% intervals exclude 0, and do TPRD and CF exceed their noise floors?")
    for m in METRICS:
        s = stats["original"][m]
        ok = bool(s["low"] > 0 or s["high"] < 0)
        checks.append(ok)
        print(f"  {LABELS[m]:<27} [{s['low']:+.4f}, {s['high']:+.4f}] -> {'yes' if ok else 'NO'}")
    for m, floor_name in (("tprd", "tprd_floor"), ("cf", "cf_floor")):
        s, floor = stats["original"][m], stats["original"][floor_name]
        ok = bool(s["low"] > floor["high"])
        checks.append(ok)
        print(f"  {LABELS[m]} above its floor? {s['mean']:.4f} [{s['low']:.4f}, {s['high']:.4f}] vs "
              f"{floor['mean']:.4f} [{floor['low']:.4f}, {floor['high']:.4f}] -> {'yes' if ok else 'NO'}")
    return checks


def _paired(per_fold: dict, setting: str, measure: str) -> dict:
    return t_interval(np.asarray(per_fold[setting][measure]) - np.asarray(per_fold["original"][measure]))


def _check_interventions(per_fold: dict, stats: dict) -> list[bool]:
    checks = []
    print("\n(b) do scrubbing and swapping reduce TPRD and CF by more than the fold-to-fold spread?")
    print("    reduction = mean(original) - mean(setting); spread = max(sd over folds of the two settings);"
          " paired: t-interval of the per-fold differences (setting - original, same folds)")
    for setting in [s for s in ("scrubbed", "swapped", "balanced") if s in stats]:
        for m in METRICS:
            a, b = stats["original"][m], stats[setting][m]
            reduction, spread = a["mean"] - b["mean"], max(a["std"], b["std"])
            paired = _paired(per_fold, setting, m)
            ok = bool(reduction > spread)
            if setting != "balanced":
                checks.append(ok)
            print(f"  {setting:<9} {LABELS[m]:<27} reduction {reduction:+.4f} vs spread {spread:.4f} -> "
                  f"{'yes' if ok else 'NO'}{' (not a check)' if setting == 'balanced' else ''}; "
                  f"paired difference {paired['mean']:+.4f} [{paired['low']:+.4f}, {paired['high']:+.4f}]")
    if "adversarial" in stats:
        print("\n(c) does adversarial training leave less gender in the representation than plain training?")
        for measure in ("leakage", "leakage_probabilities"):
            paired = _paired(per_fold, "adversarial", measure)
            ok = bool(paired["high"] < 0)
            if measure == "leakage":
                checks.append(ok)
            print(f"  {measure:<22} original {stats['original'][measure]['mean']:.3f}, adversarial "
                  f"{stats['adversarial'][measure]['mean']:.3f}; paired difference {paired['mean']:+.4f} "
                  f"[{paired['low']:+.4f}, {paired['high']:+.4f}] -> {'lower beyond fold noise' if ok else 'NO'}")
    return checks


def main() -> int:
    args = _parser().parse_args()
    import logging

    logging.basicConfig(level=logging.WARNING)
    settings = ["original"] + [s.strip() for s in args.settings.split(",") if s.strip() and s.strip() != "original"]
    unknown = [s for s in settings if s not in DATA_SETTINGS]
    if unknown:
        print(f"error: --settings: unknown {unknown}; valid: {', '.join(DATA_SETTINGS)}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="planted-bias-"))
    started = time.perf_counter()
    per_fold, stats, seconds = _run_settings(args, settings, out)
    _print_settings(per_fold, stats, seconds, args.folds)
    checks = _check_original(stats) + _check_interventions(per_fold, stats)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{sum(checks)} of {len(checks)} checks hold; total {time.perf_counter() - started:.0f} s "
          f"(load average {load:.1f} at the end; a shared machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
