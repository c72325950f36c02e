"""Benchmark of the extrinsic metric engine (prints figures; asserts nothing).

1. 1,000,000 rows, 8 groups, binary task: TPR, FPR, selection rate and accuracy by group, with the
   between-group differences and ratios, by probekit's engine and by fairlearn's ``MetricFrame``
   in the same run. Prints the largest absolute difference between the two and the speed ratio
   (target: >= 100x).
2. 1,000,000 rows x 28 classes x 8 groups: the whole ``evaluate_predictions`` report on CPU
   (target: < 2 s), without and then with class probabilities (``y_prob``, 1,000,000 x 28), and how
   long the per-class probability panels take in threads and in one thread. ``--reference`` also
   times the previous run-based panels and checks the numbers are bit-for-bit the same.

fairlearn is a test-only dependency: without it part 1 prints a notice and only times probekit.

Usage: python scripts/bench_metrics.py [--rows N] [--repeats R] [--no-probabilities] [--reference] [--skip-part1]
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np

from probekit.extrinsic import (
    class_panels,
    confusion_counts,
    default_workers,
    evaluate_predictions,
    factorize,
    sorted_probability_panel,
)


def best_time(fn, repeats: int) -> tuple[float, object]:
    best, out = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t0)
    return best, out


def make_binary(n: int, n_groups: int, rng: np.random.Generator):
    groups = np.array([f"group_{k}" for k in range(n_groups)])[rng.integers(0, n_groups, n)]
    g_code = np.searchsorted(np.sort(np.unique(groups)), groups)
    y_true = (rng.random(n) < 0.3 + 0.04 * g_code).astype(np.int64)
    flip = rng.random(n) < 0.1 + 0.02 * g_code
    y_pred = np.where(flip, 1 - y_true, y_true)
    return y_true, y_pred, groups


def ours_binary(y_true, y_pred, groups):

    cc = confusion_counts(y_true, y_pred, groups)
    by_group, diff, ratio = {}, {}, {}
    for score in ("tpr", "fpr", "selection_rate", "accuracy"):
        by_group[score] = cc.rate(score)[:, 1]  # class 1 = positive
        diff[score] = float(cc.difference(score)[1])
        ratio[score] = float(cc.ratio(score)[1])
    return cc.groups, by_group, diff, ratio


def fairlearn_binary(y_true, y_pred, groups):
    from fairlearn.metrics import MetricFrame, false_positive_rate, selection_rate, true_positive_rate
    from sklearn.metrics import accuracy_score

    mf = MetricFrame(
        metrics={
            "tpr": true_positive_rate,
            "fpr": false_positive_rate,
            "selection_rate": selection_rate,
            "accuracy": accuracy_score,
        },
        y_true=y_true,
        y_pred=y_pred,
        sensitive_features=groups,
    )
    return mf.by_group, mf.difference(), mf.ratio()


def part1(n: int, repeats: int) -> None:
    rng = np.random.default_rng(0)
    y_true, y_pred, groups = make_binary(n, 8, rng)
    print(f"== Part 1: {n:,} rows, 8 groups, binary: TPR/FPR/selection rate/accuracy by group + differences + ratios")
    ours_binary(y_true, y_pred, groups)  # warm-up (imports)
    t_ours, (names, by_group, diff, ratio) = best_time(lambda: ours_binary(y_true, y_pred, groups), repeats)
    print(f"probekit engine:        {t_ours * 1e3:9.2f} ms (best of {repeats})")
    try:
        import fairlearn  # noqa: F401
    except ImportError:
        print("fairlearn is not installed (it is a test-only dependency: pip install '.[test]'); "
              "skipping the comparison and the speed ratio")
        return
    t_fl, (fl_by_group, fl_diff, fl_ratio) = best_time(lambda: fairlearn_binary(y_true, y_pred, groups), max(1, repeats // 3))
    print(f"fairlearn MetricFrame:  {t_fl * 1e3:9.2f} ms (best of {max(1, repeats // 3)})")
    max_abs = 0.0
    for score in by_group:
        theirs = fl_by_group[score].reindex(names).to_numpy(dtype=float)
        max_abs = max(max_abs, float(np.max(np.abs(theirs - by_group[score]))))
        max_abs = max(max_abs, abs(float(fl_diff[score]) - diff[score]), abs(float(fl_ratio[score]) - ratio[score]))
    identical = max_abs <= 1e-12
    print(f"max |probekit - fairlearn| over by-group rates, differences and ratios: {max_abs:.3g} "
          f"({'identical' if identical else 'NOT identical'} within 1e-12)")
    print(f"speed ratio fairlearn / probekit: {t_fl / t_ours:,.0f}x (target >= 100x)")


def part2(n: int, repeats: int, with_probabilities: bool, reference: bool) -> None:

    rng = np.random.default_rng(1)
    K, G = 28, 8
    print(f"\n== Part 2: whole evaluate_predictions report, {n:,} rows x {K} classes x {G} groups (target: < 2 s on CPU)")
    y_true = rng.integers(0, K, n)
    y_pred = np.where(rng.random(n) < 0.7, y_true, rng.integers(0, K, n))
    groups = np.array([f"group_{k}" for k in range(G)])[rng.integers(0, G, n)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        evaluate_predictions(y_true[:1000], y_pred[:1000], groups[:1000])  # warm-up (imports)
        t, report = best_time(lambda: evaluate_predictions(y_true, y_pred, groups), repeats)
    print(f"whole report WITHOUT probabilities: {t:.3f} s (best of {repeats}) "
          f"-> {len(report.metrics)} metrics, by_group {report.by_group.shape}")
    t_boot, _ = best_time(lambda: evaluate_predictions(y_true, y_pred, groups, n_bootstrap=200, random_state=0), 1)
    print(f"whole report with 200 bootstrap replicates (percentile CIs): {t_boot:.3f} s")
    if not with_probabilities:
        print(f"summary: whole report without y_prob {t:.3f} s (y_prob not timed: --no-probabilities)")
        return
    logits = rng.normal(size=(n, K))
    logits[np.arange(n), y_pred] += 3.0
    prob = np.exp(logits - logits.max(axis=1, keepdims=True))
    prob /= prob.sum(axis=1, keepdims=True)
    del logits
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_first, report_p = best_time(lambda: evaluate_predictions(y_true, y_pred, groups, y_prob=prob), 1)
        t_prob, _ = best_time(lambda: evaluate_predictions(y_true, y_pred, groups, y_prob=prob), repeats)
    print(f"whole report WITH probabilities (y_prob {n:,} x {K} float64; adds AvgGF, Borkan AUCs/AEGs, ROC AUC, "
          f"Jigsaw): {t_prob:.3f} s (best of {repeats}; first call {t_first:.3f} s) "
          f"-> {len(report_p.metrics)} metrics, by_group {report_p.by_group.shape}")

    # where the time with probabilities goes: the per-class panels (one sort per class), threaded and not

    g_codes, _ = factorize(groups, "groups")
    workers = default_workers(n, K)
    t_pan, (panels, _) = best_time(lambda: class_panels(prob, y_true, g_codes, G, range(K)), repeats)
    t_one, _ = best_time(lambda: class_panels(prob, y_true, g_codes, G, range(K), workers=1), 1)
    print(f"  of which the {K} probability panels: {t_pan:.3f} s in {workers} thread(s); {t_one:.3f} s in one thread "
          f"({t_one / K * 1e3:.0f} ms per class: bit-key sort per group, one merge, O(n) sums)")
    if reference:
        t_ref = time.perf_counter()
        ref = [sorted_probability_panel(prob[:, c], y_true == c, g_codes, G) for c in range(K)]
        t_ref = time.perf_counter() - t_ref
        same = all(np.array_equal(p[k], r[k], equal_nan=True) for p, r in zip(panels, ref) for k in r)
        print(f"  run-based reference (the previous implementation) on the same panels: {t_ref:.3f} s "
              f"-> {t_ref / t_pan:.1f}x slower; numbers {'bit-for-bit identical' if same else 'DIFFERENT'}")
    print(f"summary: whole report without y_prob {t:.3f} s, with y_prob {t_prob:.3f} s (target < 2 s)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--no-probabilities", action="store_true")
    parser.add_argument("--reference", action="store_true",
                        help="also time the run-based reference panels (the previous implementation, ~10 s) and compare")
    parser.add_argument("--skip-part1", action="store_true")
    args = parser.parse_args()
    if not args.skip_part1:
        part1(args.rows, args.repeats)
    part2(args.rows, max(1, args.repeats // 2 + 1), not args.no_probabilities, args.reference)


if __name__ == "__main__":
    main()
