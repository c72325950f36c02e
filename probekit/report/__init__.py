"""Tables, figures and the HTML report of probekit results, built from saved JSON only.

- Intrinsic comparison of several checkpoints (Tokpo et al. 2023, Tables 1-2, Figures 2-4 style):
  :func:`write_intrinsic_comparison` from ``(label, results.json dict)`` pairs, or its parts
  :func:`intrinsic_records`, :func:`intrinsic_markdown` and the ``plot_*`` functions.
- Extrinsic tables and figures of a study (Tables 3-4, Figures 5-6 style): :func:`finetune_groups`
  summarizes fold units with probekit.finetune's fold summarizer; :func:`extrinsic_markdown`,
  :func:`plot_tprd_cf`, :func:`plot_tprd_vs_cf`; per-class diagnostics (De-Arteaga et al. 2019,
  Fig. 2: each class's TPR gap against its share of women): :func:`per_class_diagnostics`,
  :func:`diagnostics_markdown`, :func:`plot_diagnostics`.
- The analysis: :func:`rank_correlation` / :func:`rank_correlations` (Spearman and Kendall with
  p-values, bootstrap intervals and a plain-language caution when the points are too few).
- The field's standard benchmarks (SEAT suite, StereoSet, CrowS-Pairs) over several checkpoints, each
  debiased one tested against its base: :func:`find_benchmark_runs`, :func:`benchmark_tables`,
  :func:`benchmark_markdown`.
- The dose-response study (a ``[sweep]`` study's ``dose_response.json``): :func:`dose_response_markdown`
  (plain-language paragraph, correlations with cluster-bootstrap intervals, Holm/BH, power, slopes),
  :func:`plot_dose_response_matrix` (scatter matrix coloured by method).
- LaTeX (booktabs) of every table: :func:`latex_table`, :func:`write_latex_tables`.
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
from probekit.report._benchmarks import (
    BENCHMARK_FILES,
    BenchmarkTable,
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
    per_class_diagnostics,
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
from probekit.report._format import latex_escape, latex_table, markdown_tables, write_latex_tables
from probekit.report._html import markdown_to_html
from probekit.report._intrinsic import (
    INTRINSIC_MEASURES,
    intrinsic_figures,
    intrinsic_markdown,
    intrinsic_records,
    plot_intrinsic_overview,
    plot_layer_comparison,
    plot_lpbs_attr_target,
    plot_probe_bars,
    plot_seat_lpbs,
    write_intrinsic_comparison,
)
from probekit.report._labels import DEFAULT_LABEL, METHOD_ORDER, METRIC_LABELS, SETTING_ORDER, checkpoint_label, checkpoint_method
from probekit.report._leakage import (
    FLOOR_METRICS,
    FLOOR_TABLE_METRICS,
    LEAKAGE_SOURCES,
    difference_rows,
    floor_rows,
    hidden_markdown,
    hidden_rows,
    leakage_cells,
    plot_hidden,
    summarize_leakage,
    summarize_noise_floor,
)
from probekit.report._results import (
    finetune_markdown,
    finetune_records,
    load_finetune_results,
    plot_finetune_figure,
    render_finetune,
)
from probekit.report._summary import load_results, plot_layer_curves, plot_probe_chart, summary_markdown

__all__ = [
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
    "latex_escape",
    "latex_table",
    "markdown_tables",
    "write_latex_tables",
    # leakage and noise floors
    "FLOOR_METRICS",
    "FLOOR_TABLE_METRICS",
    "LEAKAGE_SOURCES",
    "summarize_leakage",
    "summarize_noise_floor",
    "leakage_cells",
    "floor_rows",
    "difference_rows",
    "hidden_rows",
    "hidden_markdown",
    "plot_hidden",
    # per-class diagnostics (De-Arteaga et al. 2019)
    "per_class_diagnostics",
    "diagnostics_class_rows",
    "diagnostics_correlation_rows",
    "diagnostics_markdown",
    "draw_diagnostics",
    "plot_diagnostics",
    # intrinsic comparison
    "write_intrinsic_comparison",
    "intrinsic_records",
    "intrinsic_markdown",
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
    "finetune_records",
    "render_finetune",
    "summary_markdown",
    "plot_probe_chart",
    "plot_layer_curves",
    "load_results",
    "METRIC_LABELS",
    "answers_markdown",
]
