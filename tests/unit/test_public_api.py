"""The public faces: every name a package exported before the redesign is still exported, and every
name in an ``__all__`` resolves (lazy faces included)."""

from __future__ import annotations

import importlib

import pytest

#: ``__all__`` of each package face on main before the redesign (commit bb9ceb4).
PUBLIC_BEFORE_REDESIGN = {
    "probekit": (
        "Corpus", "DEFAULT_MODEL_NAME", "Encoder", "GenderProbe", "GenderProbeResult", "LpbsResult",
        "MdlResult", "PAPER_PROBE", "ProbeSuiteResult", "ProbekitError", "SeatResult", "SentenceSelection",
        "WordEmbeddings", "__version__", "attr_lpbs", "contextual_seat", "embed_sentences", "embed_words",
        "gender_probe", "load_encoder", "load_hf_corpus", "load_text_corpus", "lpbs", "lpbs_report",
        "mdl_probe", "run_probe_suite", "seat_test", "seat_word_sets", "select_sentences", "sentence_seat",
        "split_sentences", "target_lpbs", "template_corpus", "template_frames",
    ),
    "probekit.extrinsic": (
        "BACKGROUNDS", "COMPARISONS", "ConfidenceInterval", "ConfusionCounts", "ExtrinsicReport", "KINDS",
        "LITERATURE_METRICS", "LiteratureMetric", "MetricResult", "NORMALIZATIONS", "PREDICTION_SCORES",
        "SCORES", "SELECTION_CRITERIA", "TestResult", "UndefinedMetricWarning", "aggregate_disparity",
        "auc_pfc", "bcm", "bernstein_halfwidth", "bernstein_parameters", "bernstein_sample_size",
        "bootstrap_ci", "borkan_metrics", "borkan_table", "confusion_counts", "dto", "evaluate_predictions",
        "friedman_test", "generalized_mean", "generalized_metric", "jigsaw_score", "literature_metric",
        "mcm", "paired_group_test", "pareto_frontier", "partial_auc_pfc", "pcm", "permutation_test_gap",
        "select_model", "t_interval", "vbcm", "wilcoxon_test",
    ),
    "probekit.finetune": (
        "DATA_SETTINGS", "FinetuneConfig", "FinetuneResult", "JIGSAW_LABELS", "LABHC_PROFESSIONS", "METRICS",
        "METRIC_LABELS", "SYNTHETIC_FEMALE_DOMINATED", "SYNTHETIC_MALE_DOMINATED", "SYNTHETIC_PROFESSIONS",
        "TrainedClassifier", "aggregate_folds", "apply_setting", "collect_run", "counterfactual_dataset",
        "estimate_seconds", "finetune_markdown", "fold_metrics", "format_label_gender_counts",
        "label_gender_counts", "load_bios", "load_finetune_results", "load_jigsaw", "make_synthetic_bios",
        "plot_finetune_figure", "run_finetune", "run_fold", "stratified_folds", "summarize_folds",
        "train_classifier",
    ),
    "probekit.study": (
        "DATASET_KINDS", "MANIFEST_FILE", "METHODS", "SETTINGS", "StudyConfig", "StudySummary", "Unit",
        "default_config_path", "dry_run_lines", "load_config", "parse_config", "parse_shard", "plan_units",
        "run_study", "shard_units", "unit_done",
    ),
    "probekit.intrinsic": (
        "BLEACHED_TEMPLATES", "GenderProbe", "GenderProbeResult", "LPBS_TEMPLATES", "LpbsResult",
        "MdlResult", "PAPER_PROBE", "PAPER_TEST", "STANDARD_SEAT_TESTS", "SeatResult", "association_scores",
        "attr_lpbs", "bleached_sentences", "contextual_seat", "gender_probe", "infer_word_kind", "lpbs",
        "lpbs_report", "mdl_probe", "seat_test", "seat_test_categories", "seat_test_from_scores",
        "seat_word_sets", "sentence_seat", "target_lpbs",
    ),
    "probekit.report": (
        "DEFAULT_LABEL", "EXTRINSIC_MEASURES", "INTRINSIC_MEASURES", "METHOD_ORDER", "REPORT_DIR",
        "SETTING_ORDER", "StudyResults", "build_report", "checkpoint_label", "checkpoint_method",
        "correlation_caution", "correlation_markdown", "extrinsic_markdown", "finetune_groups",
        "intrinsic_figures", "intrinsic_markdown", "intrinsic_records", "load_study", "markdown_to_html",
        "plot_correlation_heatmap", "plot_correlation_scatter", "plot_intrinsic_overview",
        "plot_layer_comparison", "plot_lpbs_attr_target", "plot_probe_bars", "plot_seat_lpbs",
        "plot_tprd_cf", "plot_tprd_vs_cf", "rank_correlation", "rank_correlations",
        "write_intrinsic_comparison",
    ),
    "debias": (
        "CDA", "ContextDebias", "FileInterventionResult", "INLP", "LEACE", "LinearEraser", "ScrubResult",
        "SentDebias", "Span", "SwapResult", "TrainingConfig", "TrainingResult", "add_mlm_head",
        "apply_projection", "attribute_vectors", "describe_scrub", "describe_swap", "latest_checkpoint",
        "mask_tokens", "orthogonality_term", "read_debias_record", "scrub", "scrub_dataset", "scrub_file",
        "scrub_texts", "shuffled_batches", "swap", "swap_dataset", "swap_file", "swap_texts", "train",
    ),
    "wordlists": (
        "AttributePairs", "GenderedTermSets", "NameLists", "PAPER_UNPAIRED", "ProfessionScores",
        "SLOT_TYPES", "SeatTest", "SwapMap", "TermSet", "WordList", "builtin_words", "data_path",
        "load_attribute_pairs", "load_names", "load_paper_attributes", "load_paper_stereotypes",
        "load_seat_test", "load_seat_tests", "load_slot_types", "match_case", "read_bolukbasi_pairs",
        "read_gender_specific", "read_pair_files", "read_professions", "read_seat_jsonl",
        "read_seat_word_sentences", "read_word_list", "seat_test_names", "slot_type", "slot_types",
        "words_digest",
    ),
}


@pytest.mark.parametrize("package", sorted(PUBLIC_BEFORE_REDESIGN))
def test_public_names_kept(package):
    public = set(importlib.import_module(package).__all__)
    assert set(PUBLIC_BEFORE_REDESIGN[package]) <= public, sorted(set(PUBLIC_BEFORE_REDESIGN[package]) - public)


@pytest.mark.parametrize(
    "package",
    ["probekit", "probekit.utils", "probekit.stats", "probekit.text", "probekit.encoders", "probekit.training",
     "probekit.embedding", "probekit.extrinsic", "probekit.report", "probekit.intrinsic", "probekit.finetune",
     "probekit.study", "debias", "wordlists"],
)
def test_every_exported_name_resolves(package):
    module = importlib.import_module(package)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert not missing and len(set(module.__all__)) == len(module.__all__), missing
