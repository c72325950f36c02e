"""Statistics shared by every part of probekit: intervals, resampling and bounds.

- :func:`t_interval`: the mean over folds with a Student-t interval.
- :func:`bootstrap_ci` (percentile or BCa, :func:`bca_interval`) and the resampling helpers
  :func:`multinomial_bootstrap_counts` and :func:`jackknife_counts`.
- Bernstein bounds (Ethayarajh 2020): :func:`bernstein_parameters`, :func:`bernstein_halfwidth`,
  :func:`bernstein_sample_size`.
- Rank correlation: :func:`spearman_rho`, :func:`kendall_tau`, :func:`rank_correlation_test` (with
  p-values, exact Spearman p for few points), :func:`min_rank_p`, :func:`average_ranks`.
- Paired tests over groups: :func:`friedman_test`, :func:`wilcoxon_test` (:class:`TestResult`).
- Paired significance of a model against its base on the same examples:
  :func:`paired_bootstrap` (:class:`PairedDifference`) and :func:`mcnemar_exact` (:class:`McNemarResult`).
- Fine-tuning runs over their folds: :func:`summarize_run` (what ``metrics.json`` and the study
  report both hold; :func:`summarize_folds`, :func:`summarize_leakage`,
  :func:`summarize_noise_floor`, :func:`per_class_diagnostics`).
- Permutation p-values: :func:`permutation_p_value` (``(1 + k) / (1 + n)``, or ``k / n`` when
  exact) and :func:`count_extreme` (``k`` for a one- or two-sided alternative).
- Dose-response studies: :func:`cluster_bootstrap_correlation` (Spearman/Kendall with an interval
  from resampling clusters, e.g. methods), :func:`dose_response_slope` (:class:`DoseResponseSlope`),
  :func:`holm_adjust` and :func:`bh_adjust` (adjusted p-values over a family of tests),
  :func:`correlation_power` and :func:`min_detectable_correlation` (Fisher z approximation).
"""

from probekit.stats._cluster_bootstrap import (
    RANK_STATISTICS,
    DoseResponseSlope,
    cluster_bootstrap_correlation,
    cluster_resamples,
    dose_response_slope,
)
from probekit.stats._folds import summarize_folds
from probekit.stats._intervals import (
    ConfidenceInterval,
    bca_interval,
    bernstein_halfwidth,
    bernstein_parameters,
    bernstein_sample_size,
    bootstrap_ci,
    jackknife_counts,
    multinomial_bootstrap_counts,
    t_interval,
)
from probekit.stats._multiple_testing import MULTIPLE_TESTING_METHODS, adjust_p_values, bh_adjust, holm_adjust
from probekit.stats._paired import McNemarResult, PairedDifference, mcnemar_exact, paired_bootstrap
from probekit.stats._permutation import count_extreme, permutation_p_value
from probekit.stats._power import CORRELATION_KINDS, correlation_power, min_detectable_correlation
from probekit.stats._ranks import (
    EXACT_SPEARMAN_MAX,
    average_ranks,
    kendall_tau,
    min_rank_p,
    pearson,
    rank_correlation_test,
    spearman_rho,
)
from probekit.stats._runs import (
    FLOOR_METRICS,
    FLOOR_TABLE_METRICS,
    LEAKAGE_SOURCES,
    fold_entries,
    per_class_diagnostics,
    summarize_leakage,
    summarize_noise_floor,
    summarize_run,
)
from probekit.stats._stereoset import stereoset_scores
from probekit.stats._tests import TestResult, friedman_test, wilcoxon_test

__all__ = [
    "ConfidenceInterval",
    "bca_interval",
    "bernstein_halfwidth",
    "bernstein_parameters",
    "bernstein_sample_size",
    "bootstrap_ci",
    "jackknife_counts",
    "multinomial_bootstrap_counts",
    "t_interval",
    "summarize_folds",
    "summarize_run",
    "fold_entries",
    "summarize_leakage",
    "summarize_noise_floor",
    "per_class_diagnostics",
    "FLOOR_METRICS",
    "FLOOR_TABLE_METRICS",
    "LEAKAGE_SOURCES",
    "EXACT_SPEARMAN_MAX",
    "average_ranks",
    "kendall_tau",
    "min_rank_p",
    "pearson",
    "rank_correlation_test",
    "spearman_rho",
    "TestResult",
    "friedman_test",
    "wilcoxon_test",
    "permutation_p_value",
    "count_extreme",
    "PairedDifference",
    "McNemarResult",
    "paired_bootstrap",
    "mcnemar_exact",
    "stereoset_scores",
    "RANK_STATISTICS",
    "cluster_bootstrap_correlation",
    "cluster_resamples",
    "DoseResponseSlope",
    "dose_response_slope",
    "MULTIPLE_TESTING_METHODS",
    "adjust_p_values",
    "holm_adjust",
    "bh_adjust",
    "CORRELATION_KINDS",
    "correlation_power",
    "min_detectable_correlation",
]
