"""Tables, figures and the HTML report of probekit results, built from saved JSON only.

- Intrinsic comparison of several checkpoints (Tokpo et al. 2023, Tables 1-2, Figures 2-4 style):
  :func:`write_intrinsic_comparison` from ``(label, results.json dict)`` pairs, or its parts
  :func:`intrinsic_records`, :func:`intrinsic_markdown` and the ``plot_*`` functions.
- Extrinsic tables and figures of a study (Tables 3-4, Figures 5-6 style): :func:`finetune_groups`
  summarizes fold units with :func:`probekit.stats.summarize_run` (the function behind
  ``metrics.json``); :func:`extrinsic_markdown`,
  :func:`plot_tprd_cf`, :func:`plot_tprd_vs_cf`; per-class diagnostics (De-Arteaga et al. 2019,
  Fig. 2: each class's TPR gap against its share of women; computed by
  :func:`probekit.stats.per_class_diagnostics`): :func:`diagnostics_markdown`, :func:`plot_diagnostics`.
- The analysis: :func:`rank_correlation` / :func:`rank_correlations` (Spearman and Kendall with
  p-values, bootstrap intervals and a plain-language caution when the points are too few).
- The field's standard benchmarks (SEAT suite, StereoSet, CrowS-Pairs) over several checkpoints, each
  debiased one tested against its base: :func:`find_benchmark_runs`, :func:`benchmark_tables`,
  :func:`benchmark_markdown`.
- The dose-response study (a ``[sweep]`` study's ``dose_response.json``): :func:`dose_response_markdown`
  (plain-language paragraph, correlations with cluster-bootstrap intervals, Holm/BH, power, slopes),
  :func:`plot_dose_response_matrix` (scatter matrix coloured by method).
- LaTeX (booktabs) of every table: :func:`latex_table`, :func:`write_latex_tables`.
- Removed or hidden? The readers' verdict per layer: :func:`verdict_markdown`, across checkpoints
  :func:`verdict_comparison_markdown` (with :func:`raised_reader_flags`) and :func:`plot_verdict_layers`;
  beside it, every reader after a label-aware eraser (an upper bound): :func:`upper_bound_markdown`,
  :func:`upper_bound_runs`.
- :func:`build_report` (``probekit report DIR``): Markdown, one self-contained HTML page, PNG
  figures and CSV/JSON tables of a study directory or a ``probekit compare`` output.
"""

from probekit.report._analysis import (
    correlation_caution,
    correlation_markdown,
    plot_correlation_heatmap,
    plot_correlation_scatter,
    rank_correlation,
    rank_correlations,
)
from probekit.report._answers import answers_markdown
from probekit.report._attribute_probe import attribute_comparison_markdown, attribute_probe_markdown
from probekit.report._benchmarks import (
    BENCHMARK_FILES,
    BenchmarkTable,
    benchmark_blocks,
    benchmark_markdown,
    benchmark_models,
    benchmark_tables,
    find_benchmark_runs,
)
from probekit.report._build import REPORT_DIR, StudyResults, build_report, load_study
from probekit.report._diagnostics import (
    diagnostics_class_rows,
    diagnostics_correlation_rows,
    diagnostics_markdown,
    draw_diagnostics,
    plot_diagnostics,
)
from probekit.report._dose_response import (
    DOSE_RESPONSE_FIGURE,
    DOSE_RESPONSE_FILE,
    dose_response_markdown,
    dose_response_paragraph,
    plot_dose_response_matrix,
)
from probekit.report._extrinsic import (
    EXTRINSIC_MEASURES,
    extrinsic_markdown,
    finetune_groups,
    plot_tprd_cf,
    plot_tprd_vs_cf,
)
from probekit.report._finetune_groups import finetune_groups_blocks, finetune_groups_markdown
from probekit.report._format import latex_escape, latex_table, markdown_tables, write_latex_tables
from probekit.report._html import blocks_html, markdown_to_html
from probekit.report._intrinsic import intrinsic_blocks, intrinsic_markdown, write_intrinsic_comparison
from probekit.report._intrinsic_figures import (
    intrinsic_figures,
    plot_intrinsic_overview,
    plot_layer_comparison,
    plot_lpbs_attr_target,
    plot_probe_bars,
    plot_seat_lpbs,
)
from probekit.report._intrinsic_tables import INTRINSIC_MEASURES, intrinsic_records
from probekit.report._labels import DEFAULT_LABEL, METHOD_ORDER, METRIC_LABELS, SETTING_ORDER, checkpoint_label, checkpoint_method
from probekit.report._leakage import (
    difference_rows,
    floor_rows,
    hidden_markdown,
    hidden_rows,
    leakage_cells,
    plot_hidden,
)
from probekit.report._results import (
    finetune_markdown,
    finetune_records,
    load_finetune_results,
    plot_finetune_figure,
    render_finetune,
)
from probekit.report._summary import load_results, plot_layer_curves, plot_probe_chart, summary_markdown
from probekit.report._tables import table_csv, table_html, table_latex, table_lines, table_markdown
from probekit.report._upper_bounds import upper_bound_blocks, upper_bound_markdown, upper_bound_runs
from probekit.report._verdict import (
    VERDICT_COLORS,
    plot_verdict_layers,
    raised_reader_flags,
    verdict_blocks,
    verdict_comparison_blocks,
    verdict_comparison_markdown,
    verdict_layers,
    verdict_markdown,
    verdict_records,
    verdict_study_blocks,
)

__all__ = [
    "attribute_comparison_markdown",
    "attribute_probe_markdown",
    "DOSE_RESPONSE_FIGURE",
    "DOSE_RESPONSE_FILE",
    "dose_response_markdown",
    "dose_response_paragraph",
    "plot_dose_response_matrix",
    # standard benchmarks and LaTeX
    "BENCHMARK_FILES",
    "BenchmarkTable",
    "find_benchmark_runs",
    "benchmark_models",
    "benchmark_tables",
    "benchmark_markdown",
    "benchmark_blocks",
    "latex_escape",
    "latex_table",
    "markdown_tables",
    "write_latex_tables",
    # tables as objects (probekit.utils.Table) rendered to every format
    "table_markdown",
    "table_lines",
    "table_latex",
    "table_html",
    "table_csv",
    "blocks_html",
    # leakage and noise floors
    "leakage_cells",
    "floor_rows",
    "difference_rows",
    "hidden_rows",
    "hidden_markdown",
    "plot_hidden",
    # per-class diagnostics (De-Arteaga et al. 2019)
    "diagnostics_class_rows",
    "diagnostics_correlation_rows",
    "diagnostics_markdown",
    "draw_diagnostics",
    "plot_diagnostics",
    # intrinsic comparison
    "write_intrinsic_comparison",
    "intrinsic_records",
    "intrinsic_markdown",
    "intrinsic_blocks",
    "intrinsic_figures",
    "plot_seat_lpbs",
    "plot_lpbs_attr_target",
    "plot_probe_bars",
    "plot_intrinsic_overview",
    "plot_layer_comparison",
    "INTRINSIC_MEASURES",
    # labels
    "checkpoint_label",
    "checkpoint_method",
    "DEFAULT_LABEL",
    "METHOD_ORDER",
    "SETTING_ORDER",
    # extrinsic
    "finetune_groups",
    "extrinsic_markdown",
    "plot_tprd_cf",
    "plot_tprd_vs_cf",
    "EXTRINSIC_MEASURES",
    # analysis
    "rank_correlation",
    "rank_correlations",
    "correlation_caution",
    "correlation_markdown",
    "plot_correlation_heatmap",
    "plot_correlation_scatter",
    # the report
    "build_report",
    "load_study",
    "StudyResults",
    "REPORT_DIR",
    "markdown_to_html",
    "plot_finetune_figure",
    "load_finetune_results",
    "finetune_markdown",
    "finetune_groups_markdown",
    "finetune_groups_blocks",
    "finetune_records",
    "render_finetune",
    "summary_markdown",
    "plot_probe_chart",
    "plot_layer_curves",
    "load_results",
    "METRIC_LABELS",
    "answers_markdown",
    # removed or hidden? (the readers' verdict)
    "verdict_layers",
    "verdict_study_blocks",
    "verdict_records",
    "verdict_markdown",
    "upper_bound_blocks",
    "upper_bound_markdown",
    "upper_bound_runs",
    "verdict_blocks",
    "verdict_comparison_markdown",
    "verdict_comparison_blocks",
    "raised_reader_flags",
    "plot_verdict_layers",
    "VERDICT_COLORS",
]
