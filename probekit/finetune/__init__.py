"""Downstream fine-tuning and extrinsic evaluation (Tokpo et al. 2023, §4).

Data: the synthetic biographies (the embedded, offline default), Bias-in-Bios and Jigsaw loaders,
and the three training-data settings (original, scrubbed, swapped) with the counterfactual test
set. Every dataset shares one representation, a :class:`datasets.Dataset` with the columns
``text`` (str), ``label`` (:class:`datasets.ClassLabel`; class names in
``features["label"].names``), ``gender`` (``"female"`` / ``"male"``) and ``example_id`` (int; the
``source`` id that pairs an example with its counterfactual).

Running the study: :func:`run_finetune` (every fold of one encoder x data x setting, with a
run-time estimate, resume, ``metrics.json``, table and figure), or the same work as units:
:func:`run_fold` (one fold; its result dict, also saved as ``fold.json``) and
:func:`aggregate_folds` / :func:`collect_run` (fold results -> ``metrics.json``).

Does gender survive fine-tuning? Every fold also measures leakage (:func:`fold_leakage`: the test
examples' gender read from the classifier's pooled vectors and from its output probabilities by the
gender probe, balanced accuracy with an interval and MDL compression), the shuffled-gender noise
floor of each gap metric (:func:`noise_floor`; CF's against same-gender renamed texts,
:func:`cf_noise_floor`), and the run the per-class diagnostics of
De-Arteaga et al. (2019) (:func:`per_class_diagnostics`).
"""

from probekit.finetune._aggregate import FinetuneResult, aggregate_folds, collect_run
from probekit.finetune._batches import pad_batch, tokenize_texts
from probekit.finetune._counterfactual import (
    apply_setting,
    balanced_weights,
    counterfactual_dataset,
    objective_inputs,
    renamed_dataset,
)
from probekit.finetune._data import DATA_KINDS, load_data, subsample
from probekit.finetune._datasets import (
    JIGSAW_LABELS,
    LABHC_PROFESSIONS,
    format_label_gender_counts,
    label_gender_counts,
    load_bios,
    load_jigsaw,
)
from probekit.finetune._embeddings import distinct_texts, frozen_embedder, frozen_text_groups, uncached_groups
from probekit.finetune._estimate import estimate_seconds
from probekit.finetune._evaluate import METRIC_LABELS, METRICS, fold_metrics, paper_accuracy, prob_column, summarize_folds
from probekit.finetune._evaluate_groups import (
    GROUP_GAP_SCORES,
    GROUP_METRICS,
    fold_group_metrics,
    group_gap_family,
    pooled_group_gaps,
    subgroup_aucs,
)
from probekit.finetune._fold import run_fold
from probekit.finetune._groups import (
    K_GROUP_SETTINGS,
    check_group_setting,
    group_cf,
    group_counterfactual_dataset,
    group_setting,
)
from probekit.finetune._identities import JIGSAW_IDENTITY_COLUMNS, jigsaw_subgroups, load_jigsaw_groups
from probekit.finetune._leakage import (
    FLOOR_METRICS,
    LEAKAGE_SOURCES,
    REPRESENTATIONS_FILE,
    cf_noise_floor,
    check_leakage_readers,
    fold_leakage,
    group_leakage,
    load_representations,
    noise_floor,
    per_class_diagnostics,
    permute_gender,
    predict_with_representations,
    probe_leakage,
    save_representations,
    summarize_leakage,
    summarize_noise_floor,
    true_label_probabilities,
)
from probekit.finetune._model import EncoderClassifier, GenderAdversary, GradientReversal, grad_reverse
from probekit.finetune._plan import FIGURE_FILE, METRICS_FILE, TABLE_FILE, check_output_dir, datasets_bars_off, stratified_folds
from probekit.finetune._run import run_finetune
from probekit.finetune._settings import DATA_SETTINGS, OBJECTIVES, PAPER_SETTINGS, SETTING_TABLE, DataSetting
from probekit.finetune._synthetic import make_synthetic_bios
from probekit.finetune._synthetic_groups import (
    GROUP_SHORTCUTS,
    group_shortcut_plan,
    make_synthetic_group_bios,
    simulate_shortcut_predictions,
)
from probekit.finetune._synthetic_tables import SYNTHETIC_FEMALE_DOMINATED, SYNTHETIC_MALE_DOMINATED, SYNTHETIC_PROFESSIONS
from probekit.finetune._train import (
    FinetuneConfig,
    TrainedClassifier,
    default_embedder,
    fit_adversarial_projection,
    train_classifier,
)
from probekit.report import finetune_markdown, load_finetune_results, plot_finetune_figure

__all__ = [
    "DATA_KINDS",
    "load_data",
    "subsample",
    # data
    "make_synthetic_bios",
    "SYNTHETIC_PROFESSIONS",
    "SYNTHETIC_FEMALE_DOMINATED",
    "SYNTHETIC_MALE_DOMINATED",
    "make_synthetic_group_bios",
    "group_shortcut_plan",
    "simulate_shortcut_predictions",
    "GROUP_SHORTCUTS",
    "load_bios",
    "load_jigsaw",
    "load_jigsaw_groups",
    "jigsaw_subgroups",
    "JIGSAW_IDENTITY_COLUMNS",
    "LABHC_PROFESSIONS",
    "JIGSAW_LABELS",
    "label_gender_counts",
    "format_label_gender_counts",
    # data settings
    "DATA_SETTINGS",
    "SETTING_TABLE",
    "DataSetting",
    "apply_setting",
    "counterfactual_dataset",
    "renamed_dataset",
    "OBJECTIVES",
    "balanced_weights",
    "objective_inputs",
    # task-time baselines
    "grad_reverse",
    "GradientReversal",
    "GenderAdversary",
    "fit_adversarial_projection",
    # training and evaluation
    "FinetuneConfig",
    "train_classifier",
    "TrainedClassifier",
    "run_finetune",
    "run_fold",
    "aggregate_folds",
    "collect_run",
    "estimate_seconds",
    "stratified_folds",
    "FinetuneResult",
    "fold_metrics",
    "summarize_folds",
    "METRICS",
    "METRIC_LABELS",
    "paper_accuracy",
    # leakage, noise floors, per-class diagnostics
    "probe_leakage",
    "fold_leakage",
    "check_leakage_readers",
    "predict_with_representations",
    "save_representations",
    "load_representations",
    "REPRESENTATIONS_FILE",
    "LEAKAGE_SOURCES",
    "noise_floor",
    "cf_noise_floor",
    "true_label_probabilities",
    "permute_gender",
    "FLOOR_METRICS",
    "per_class_diagnostics",
    "summarize_leakage",
    "summarize_noise_floor",
    # reports
    "load_finetune_results",
    "finetune_markdown",
    "plot_finetune_figure",
    "EncoderClassifier",
    "datasets_bars_off",
    "check_output_dir",
    "TABLE_FILE",
    "METRICS_FILE",
    "FIGURE_FILE",
    "tokenize_texts",
    "pad_batch",
    "default_embedder",
    "prob_column",
    # shared frozen embeddings
    "frozen_embedder",
    "frozen_text_groups",
    "distinct_texts",
    "uncached_groups",
    "PAPER_SETTINGS",
    # k groups of one attribute (race, religion, ...)
    "K_GROUP_SETTINGS",
    "GROUP_GAP_SCORES",
    "GROUP_METRICS",
    "group_setting",
    "check_group_setting",
    "group_counterfactual_dataset",
    "group_cf",
    "group_leakage",
    "fold_group_metrics",
    "group_gap_family",
    "pooled_group_gaps",
    "subgroup_aucs",
]
