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

The script runs the three settings with the same folds (``probekit.finetune.run_finetune``; by
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
- *noise floor* of the absolute TPRD: the same predictions with the genders shuffled within each
  class of the test fold (10 shuffles per fold): what the mean absolute TPRD is when gender and
  errors are unrelated.

Every metric comes from the shared engine (the runs' metrics.json, ``fold_metrics``); intervals
from :func:`probekit.extrinsic.t_interval`.

Usage::

    python scripts/planted_bias_check.py                        # frozen path, 5 folds, 2800 bios
    python scripts/planted_bias_check.py --mode full --n-examples 560 --folds 3
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import warnings
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from probekit import load_encoder
from probekit.extrinsic import t_interval
from probekit.finetune import (
    DATA_SETTINGS,
    SYNTHETIC_FEMALE_DOMINATED,
    FinetuneConfig,
    fold_metrics,
    make_synthetic_bios,
    run_finetune,
)

SETTINGS = DATA_SETTINGS  # the settings table of probekit.finetune
METRICS = ("tprd", "signed_tprd", "cf")
LABELS = {"tprd": "TPRD (mean |F-M|)", "signed_tprd": "TPRD (stereotype-signed)", "cf": "CF"}


def _signed_tprd(fold: dict, female_dominated: set[str]) -> float:
    values = [(1.0 if c in female_dominated else -1.0) * v for c, v in fold["per_class"]["tprd"].items()
              if v is not None and np.isfinite(v)]
    return float(np.mean(values)) if values else float("nan")


def _noise_floor(run_dir: Path, fold: dict, classes: list[str], rng: np.random.Generator, shuffles: int) -> float:
    """Mean absolute TPRD of the fold's predictions with genders shuffled within each true class."""

    frame = pd.read_csv(run_dir / fold["files"]["augmented"], keep_default_na=False)
    frame = frame[frame["variant"] == "original"].reset_index(drop=True)
    values = []
    for _ in range(shuffles):
        shuffled = frame.copy()
        for _, rows in shuffled.groupby("label").groups.items():
            rows = np.asarray(rows)
            shuffled.loc[rows, "group"] = shuffled.loc[rng.permutation(rows), "group"].to_numpy()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            metrics, _, _ = fold_metrics(shuffled, classes)
        values.append(metrics["tprd"])
    return float(np.nanmean(values))


def _fmt(stats: dict) -> str:
    return f"{stats['mean']:+.4f} ± {stats['margin']:.4f} [{stats['low']:+.4f}, {stats['high']:+.4f}] (sd {stats['std']:.4f})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", default=None, help="checkpoint (default: the embedded all-MiniLM-L6-v2)")
    parser.add_argument("--mode", choices=("frozen", "full"), default="frozen",
                        help="frozen encoder + logistic regression (default), or full fine-tuning")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--n-examples", type=int, default=None, help="pool size (default 2800 frozen, 560 full)")
    parser.add_argument("--cue-strength", type=float, default=0.3)
    parser.add_argument("--train-gender-skew", type=float, default=0.85)
    parser.add_argument("--epochs", type=int, default=4, help="full fine-tuning only")
    parser.add_argument("--lr", type=float, default=2e-5, help="full fine-tuning only")
    parser.add_argument("--max-length", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--shuffles", type=int, default=10, help="gender shuffles per fold for the noise floor")
    parser.add_argument("--out", default=None, help="where the runs go (default: a temporary directory); "
                        "an existing one is resumed")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args()

    import logging

    logging.basicConfig(level=logging.WARNING)

    frozen = args.mode == "frozen"
    n = args.n_examples or (2800 if frozen else 560)
    out = Path(args.out) if args.out else Path(tempfile.mkdtemp(prefix="planted-bias-"))
    started = time.perf_counter()
    encoder = load_encoder(args.model, device="cpu")
    data = make_synthetic_bios(n, 14, cue_strength=args.cue_strength, train_gender_skew=args.train_gender_skew,
                               random_state=args.seed)["train"]
    config = FinetuneConfig(frozen=frozen, epochs=args.epochs, learning_rate=args.lr, max_length=args.max_length,
                            device="cpu", seed=args.seed)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"planted-bias check: {encoder.name_or_path}, "
          f"{'frozen encoder + logistic regression' if frozen else f'full fine-tuning ({args.epochs} epochs, lr {args.lr})'}; "
          f"{n} synthetic bios (14 professions, cue strength {args.cue_strength}, train gender skew "
          f"{args.train_gender_skew}), {args.folds} stratified folds, seed {args.seed}; max length {args.max_length}; "
          f"{os.cpu_count()} CPU cores, load average {load:.1f} at start; runs in {out}", flush=True)

    female = set(SYNTHETIC_FEMALE_DOMINATED)
    rng = np.random.default_rng(args.seed)
    per_fold: dict[str, dict[str, list[float]]] = {}
    rows = []
    for setting in SETTINGS:
        run_dir = out / setting
        t0 = time.perf_counter()
        result = run_finetune(
            encoder, data, setting=setting, folds=args.folds, config=config, out_dir=run_dir,
            resume=run_dir.is_dir() and any(run_dir.iterdir()), progress=not args.no_progress, data_name="synthetic",
            report=lambda line, s=setting: print(f"  [{s}] {line}", flush=True),
            embedding_cache=out / "embedding-cache" if frozen else None,
        )
        classes = result.settings["classes"]
        values = {
            "tprd": [f["metrics"]["tprd"] for f in result.folds],
            "signed_tprd": [_signed_tprd(f, female) for f in result.folds],
            "cf": [f["metrics"]["cf"] for f in result.folds],
            "accuracy": [f["metrics"]["accuracy"] for f in result.folds],
            "noise": [_noise_floor(run_dir, f, classes, rng, args.shuffles) for f in result.folds],
        }
        per_fold[setting] = values
        rows.append((setting, {k: t_interval(v) for k, v in values.items()}, time.perf_counter() - t0))

    print()
    print(f"Per setting: mean over {args.folds} folds ± half-width of the 95% t-interval [interval] (sd over folds)")
    for setting, stats, seconds in rows:
        print(f"\n{setting}  ({seconds:.0f} s)")
        print(f"  accuracy                    {_fmt(stats['accuracy'])}")
        for m in METRICS:
            print(f"  {LABELS[m]:<27} {_fmt(stats[m])}")
        print(f"  TPRD noise floor (shuffled) {_fmt(stats['noise'])}")
    for setting in SETTINGS:
        print(f"  per fold {setting:<9} TPRD " + " ".join(f"{v:.3f}" for v in per_fold[setting]["tprd"])
              + " | signed " + " ".join(f"{v:+.3f}" for v in per_fold[setting]["signed_tprd"])
              + " | CF " + " ".join(f"{v:.4f}" for v in per_fold[setting]["cf"]))

    stats = {setting: s for setting, s, _ in rows}
    checks = []
    print("\n(a) original setting: do the 95% intervals exclude 0?")
    for m in METRICS:
        s = stats["original"][m]
        ok = bool(s["low"] > 0 or s["high"] < 0)
        checks.append(ok)
        print(f"  {LABELS[m]:<27} [{s['low']:+.4f}, {s['high']:+.4f}] -> {'yes' if ok else 'NO'}")
    s, floor = stats["original"]["tprd"], stats["original"]["noise"]
    print(f"  TPRD above its noise floor? {s['mean']:.4f} vs {floor['mean']:.4f} (shuffled genders) -> "
          f"{'yes' if s['low'] > floor['high'] else 'NO'} (interval {s['low']:.4f}..{s['high']:.4f} vs "
          f"{floor['low']:.4f}..{floor['high']:.4f})")

    print("\n(b) do scrubbing and swapping reduce them by more than the fold-to-fold spread?")
    print("    reduction = mean(original) - mean(setting); spread = max(sd over folds of the two settings);"
          " paired: t-interval of the per-fold differences (same folds)")
    for setting in ("scrubbed", "swapped"):
        for m in METRICS:
            a, b = stats["original"][m], stats[setting][m]
            reduction = a["mean"] - b["mean"]
            spread = max(a["std"], b["std"])
            paired = t_interval(np.asarray(per_fold["original"][m]) - np.asarray(per_fold[setting][m]))
            ok = bool(reduction > spread)
            checks.append(ok)
            print(f"  {setting:<9} {LABELS[m]:<27} reduction {reduction:+.4f} vs spread {spread:.4f} -> "
                  f"{'yes' if ok else 'NO'}; paired difference {paired['mean']:+.4f} [{paired['low']:+.4f}, {paired['high']:+.4f}]")

    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{sum(checks)} of {len(checks)} checks hold; total {time.perf_counter() - started:.0f} s "
          f"(load average {load:.1f} at the end; a shared machine)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
