"""Intrinsic bias tests: SEAT (word and sentence level), LPBS and the gender probe.

- :func:`seat_test` — SEAT/WEAT on four embedding sets, exact or Monte Carlo permutation
  p-value, effect size (ddof=1) with a bootstrap interval.
- :func:`contextual_seat` — word-level contextual SEAT (Tan & Celis 2019) on per-occurrence
  embeddings; the paper's variant uses X, Y = female/male stereotypes, A, B = female/male
  attribute terms.
- :func:`published_sentence_seat` — sentence-level SEAT (May et al. 2019) on the published sentences of
  weat6 ... weat8b (what ``probekit probe``'s standard tests run).
- :func:`sentence_seat` — sentence-level SEAT with the project's bleached templates (``"weat7-templates"``).
- :func:`seat_word_sets` — X, Y, A, B words of a named test ("paper", "weat6" ... "weat8b").
- :func:`lpbs`, :func:`attr_lpbs`, :func:`target_lpbs`, :func:`lpbs_report` — log-probability
  bias scores (Kurita et al. 2019) on a masked-LM head.
- :func:`group_lpbs`, :func:`attribute_lpbs_report` — LPBS with k groups (an attribute's groups: the
  spread across groups of each group's mean increased log probability).
- :class:`GenderProbe`, :func:`gender_probe` — the linear gender probe and randomization test of
  Tokpo et al. (2023), class-balanced with C chosen by word-grouped cross-validation by default
  (:data:`PAPER_PROBE` gives the paper's exact probe).
- :func:`mdl_probe` — the online codelength of labels given embeddings (Voita & Titov 2020), coded by
  any reader family (``reader=``).
- Readers (probe families): :class:`LinearReader`, :class:`MLPReader`, :class:`KernelReader`
  (:func:`make_reader`), each dropping near-constant columns first (:class:`DegenerateColumnFilter`);
  :func:`read_concept` (held-out balanced accuracy with a word-bootstrap interval, the control task
  and selectivity of Hewitt & Liang 2019), :func:`read_layer` and :func:`layer_verdict` ("removed",
  "linearly hidden" or "present", with the rule and flags).
- The honest erasure check behind an eraser: :func:`erasure_folds`, :func:`cross_fit_linear_eraser`,
  :func:`cross_fit_scrubbing`, :func:`read_concept_cross_fitted` (the eraser refitted on each word
  fold's training words, every reader scored on words neither saw; ``eraser_fit="word-disjoint"``).
- :func:`pseudo_perplexity` — utility: pseudo-perplexity (Salazar et al. 2020) on a held-out corpus
  (default :func:`utility_corpus`).
"""

from probekit.embedding import attribute_embeddings
from probekit.intrinsic._attribute_probe import AttributeProbeResult, run_attribute_probe
from probekit.intrinsic._crows_pairs import (
    CROWS_SCORINGS,
    CrowsPair,
    CrowsPairsResult,
    crows_outcomes,
    crows_pairs,
    crows_pairs_input_lengths,
    crows_summary,
    read_crows_pairs,
    score_crows_pairs,
)
from probekit.intrinsic._evidence import evidence_report
from probekit.intrinsic._gender_probe import PAPER_PROBE, GenderProbe, GenderProbeResult, gender_probe
from probekit.intrinsic._linear_probe import (
    DegenerateColumnFilter,
    check_class_weight,
    fit_linear_probe,
    nondegenerate_columns,
    probe_calibration,
    word_grouped_folds,
)
from probekit.intrinsic._lpbs import LpbsResult, attr_lpbs, lpbs, lpbs_report, target_lpbs
from probekit.intrinsic._lpbs_groups import (
    LPBS_SLOT_FRAMES,
    GroupLpbsResult,
    attribute_lpbs_report,
    attribute_lpbs_terms,
    group_lpbs,
)
from probekit.intrinsic._mdl import MdlResult, block_ends, mdl_probe, one_se_choice
from probekit.intrinsic._named_tests import (
    PAPER_TEST,
    STANDARD_SEAT_TESTS,
    TEMPLATE_SUFFIX,
    is_template_variant,
    seat_sentence_sets,
    seat_test_categories,
    seat_word_sets,
)
from probekit.intrinsic._pll import (
    check_input_lengths,
    input_limit,
    masked_token_log_probs,
    prefix_room,
    pseudo_log_likelihood,
    self_debias_prefix_ids,
)
from probekit.intrinsic._probe_suite import resolve_layers, run_probe_suite
from probekit.intrinsic._probe_suite_result import LAYER_CHART_FILE, RESULTS_FILE, VERDICT_CHART_FILE, ProbeSuiteResult
from probekit.intrinsic._readers import (
    NONLINEAR_READERS,
    READERS,
    KernelReader,
    LinearReader,
    MLPReader,
    check_readers,
    make_reader,
)
from probekit.intrinsic._seat import SeatResult, association_scores, seat_test, seat_test_from_scores
from probekit.intrinsic._seat_suite import (
    SEAT_ALTERNATIVES,
    SEAT_ATTRIBUTE_TESTS,
    SEAT_POOLINGS,
    SEAT_RELEASE_TESTS,
    SEAT_RELEASE_URL,
    SeatSuiteResult,
    SeatSuiteTest,
    fetch_seat_suite,
    read_seat_suite,
    read_seat_test,
    resolve_seat_suite,
    run_seat_suite,
    seat_tests_for_attribute,
)
from probekit.intrinsic._seat_variants import contextual_seat, published_sentence_seat, sentence_seat
from probekit.intrinsic._stereoset import (
    STEREOSET_DOMAINS,
    STEREOSET_HF_DATASET,
    StereoSetExample,
    StereoSetResult,
    read_stereoset,
    score_stereoset,
    stereoset,
    stereoset_input_lengths,
    stereoset_records_from_hub,
    stereoset_scores,
)
from probekit.intrinsic._templates import (
    BLEACHED_TEMPLATES,
    LPBS_TEMPLATES,
    bleached_sentences,
    infer_word_kind,
)
from probekit.intrinsic._upper_bounds import (
    UPPER_BOUND_ERASERS,
    check_upper_bounds,
    label_aware_folds,
    read_upper_bounds,
    upper_bound_note,
)
from probekit.intrinsic._utility import (
    UTILITY_WORDS,
    PseudoPerplexityResult,
    pseudo_perplexity,
    utility_corpus,
)
from probekit.intrinsic._verdict import (
    VERDICTS,
    ReaderResult,
    control_labels,
    layer_verdict,
    read_concept,
    read_layer,
    split_words,
    verdict_rule,
)
from probekit.intrinsic._verdict_erasure import (
    ERASER_FITS,
    REFITTABLE_ERASERS,
    cross_fit_encoder_erasure,
    cross_fit_linear_eraser,
    cross_fit_scrubbing,
    encoder_erasure,
    erasure_folds,
    loaded_erasure_note,
    projected_eraser,
    read_concept_cross_fitted,
    read_layer_cross_fitted,
    suite_erasure,
    word_disjoint_note,
)

__all__ = [
    "seat_test",
    "seat_test_from_scores",
    "association_scores",
    "contextual_seat",
    "sentence_seat",
    "published_sentence_seat",
    "seat_sentence_sets",
    "is_template_variant",
    "TEMPLATE_SUFFIX",
    "SeatResult",
    "seat_word_sets",
    "seat_test_categories",
    "STANDARD_SEAT_TESTS",
    "PAPER_TEST",
    "lpbs",
    "attr_lpbs",
    "group_lpbs",
    "GroupLpbsResult",
    "attribute_lpbs_report",
    "attribute_lpbs_terms",
    "LPBS_SLOT_FRAMES",
    "target_lpbs",
    "lpbs_report",
    "LpbsResult",
    "GenderProbe",
    "gender_probe",
    "GenderProbeResult",
    "PAPER_PROBE",
    "mdl_probe",
    "MdlResult",
    "BLEACHED_TEMPLATES",
    "LPBS_TEMPLATES",
    "bleached_sentences",
    "infer_word_kind",
    "run_probe_suite",
    "run_attribute_probe",
    "AttributeProbeResult",
    "resolve_layers",
    "attribute_embeddings",
    "RESULTS_FILE",
    "ProbeSuiteResult",
    "LAYER_CHART_FILE",
    "VERDICT_CHART_FILE",
    "word_grouped_folds",
    "probe_calibration",
    "fit_linear_probe",
    "check_class_weight",
    "one_se_choice",
    "block_ends",
    "DegenerateColumnFilter",
    "nondegenerate_columns",
    "READERS",
    "NONLINEAR_READERS",
    "LinearReader",
    "MLPReader",
    "KernelReader",
    "make_reader",
    "check_readers",
    "VERDICTS",
    "ReaderResult",
    "read_concept",
    "read_layer",
    "layer_verdict",
    "verdict_rule",
    "control_labels",
    "split_words",
    "ERASER_FITS",
    "REFITTABLE_ERASERS",
    "erasure_folds",
    "cross_fit_linear_eraser",
    "cross_fit_scrubbing",
    "cross_fit_encoder_erasure",
    "encoder_erasure",
    "read_concept_cross_fitted",
    "read_layer_cross_fitted",
    "suite_erasure",
    "UPPER_BOUND_ERASERS",
    "check_upper_bounds",
    "label_aware_folds",
    "read_upper_bounds",
    "upper_bound_note",
    "projected_eraser",
    "loaded_erasure_note",
    "word_disjoint_note",
    "evidence_report",
    "masked_token_log_probs",
    "pseudo_log_likelihood",
    "self_debias_prefix_ids",
    "check_input_lengths",
    "input_limit",
    "prefix_room",
    "crows_pairs_input_lengths",
    "stereoset_input_lengths",
    "crows_pairs",
    "read_crows_pairs",
    "score_crows_pairs",
    "crows_outcomes",
    "crows_summary",
    "CrowsPair",
    "CrowsPairsResult",
    "CROWS_SCORINGS",
    "stereoset",
    "read_stereoset",
    "STEREOSET_HF_DATASET",
    "stereoset_records_from_hub",
    "score_stereoset",
    "stereoset_scores",
    "StereoSetExample",
    "StereoSetResult",
    "STEREOSET_DOMAINS",
    "run_seat_suite",
    "SEAT_ATTRIBUTE_TESTS",
    "seat_tests_for_attribute",
    "read_seat_suite",
    "read_seat_test",
    "SeatSuiteTest",
    "SeatSuiteResult",
    "SEAT_ALTERNATIVES",
    "SEAT_POOLINGS",
    "SEAT_RELEASE_TESTS",
    "SEAT_RELEASE_URL",
    "fetch_seat_suite",
    "resolve_seat_suite",
    "pseudo_perplexity",
    "PseudoPerplexityResult",
    "utility_corpus",
    "UTILITY_WORDS",
]
