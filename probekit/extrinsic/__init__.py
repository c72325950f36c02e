"""Extrinsic fairness metrics: one engine for every number computed from predictions.

Definitions follow Czarnowska, Vyas & Shah (2021) for the generalized metrics (PCM, BCM, VBCM, MCM
over scoring functions and comparisons), Borkan et al. (2019) for threshold-agnostic metrics,
Han, Baldwin & Cohn (2023) for aggregation and trade-offs, Ethayarajh (2020) for Bernstein bounds
and Tokpo et al. (2023) for TPRD/FPRD and counterfactual fairness.

Start with :func:`evaluate_predictions`; every literature metric is also available by name through
:func:`literature_metric` (the table ``LITERATURE_METRICS``) and every parameterization through
:func:`generalized_metric`.
"""

from probekit.extrinsic._aggregation import aggregate_disparity, generalized_mean
from probekit.extrinsic._confusion import PREDICTION_SCORES, ConfusionCounts, confusion_counts
from probekit.extrinsic._evaluation import ExtrinsicReport, evaluate_predictions
from probekit.extrinsic._generalized import bcm, generalized_metric, mcm, pcm, vbcm
from probekit.extrinsic._groups import (
    GroupGaps,
    GroupMetricFrame,
    IntersectionalGaps,
    group_gaps,
    group_metric_frame,
    intersectional_gaps,
)
from probekit.extrinsic._inputs import as_1d, encode_inputs, factorize, resolve_group
from probekit.extrinsic._literature_metrics import LITERATURE_METRICS, LiteratureMetric, literature_metric
from probekit.extrinsic._metric_spec import BACKGROUNDS, COMPARISONS, KINDS, NORMALIZATIONS, SCORES, MetricResult
from probekit.extrinsic._panel import class_panels, default_workers, probability_panel
from probekit.extrinsic._panel_reference import sorted_probability_panel
from probekit.extrinsic._significance import paired_group_test, permutation_test_gap
from probekit.extrinsic._threshold_agnostic import borkan_metrics, borkan_table, jigsaw_score
from probekit.extrinsic._tradeoff import SELECTION_CRITERIA, auc_pfc, dto, pareto_frontier, partial_auc_pfc, select_model
from probekit.extrinsic._warnings import UndefinedMetricWarning
from probekit.stats import (
    ConfidenceInterval,
    TestResult,
    bernstein_halfwidth,
    bernstein_parameters,
    bernstein_sample_size,
    bootstrap_ci,
    friedman_test,
    t_interval,
    wilcoxon_test,
)

__all__ = [
    # the report
    "evaluate_predictions",
    "ExtrinsicReport",
    # generalized metrics
    "generalized_metric",
    "pcm",
    "bcm",
    "vbcm",
    "mcm",
    "MetricResult",
    "KINDS",
    "SCORES",
    "PREDICTION_SCORES",
    "COMPARISONS",
    "NORMALIZATIONS",
    "BACKGROUNDS",
    # literature metrics
    "literature_metric",
    "LITERATURE_METRICS",
    "LiteratureMetric",
    # confusion counts
    "confusion_counts",
    "ConfusionCounts",
    # k groups and intersections
    "group_gaps",
    "GroupGaps",
    "intersectional_gaps",
    "IntersectionalGaps",
    "group_metric_frame",
    "GroupMetricFrame",
    # threshold-agnostic
    "borkan_metrics",
    "borkan_table",
    "jigsaw_score",
    # aggregation and trade-offs
    "generalized_mean",
    "aggregate_disparity",
    "dto",
    "pareto_frontier",
    "auc_pfc",
    "partial_auc_pfc",
    "select_model",
    "SELECTION_CRITERIA",
    # uncertainty and significance
    "bernstein_halfwidth",
    "bernstein_sample_size",
    "bernstein_parameters",
    "bootstrap_ci",
    "t_interval",
    "ConfidenceInterval",
    "friedman_test",
    "wilcoxon_test",
    "paired_group_test",
    "permutation_test_gap",
    "TestResult",
    # warnings
    "UndefinedMetricWarning",
    "resolve_group",
    "factorize",
    "encode_inputs",
    "as_1d",
    "sorted_probability_panel",
    "default_workers",
    "class_panels",
    "probability_panel",
]
