"""Per-class diagnostics (De-Arteaga et al. 2019, Fig. 2) in the fine-tuning results and the study
report: the tables and figures hold the saved numbers, missing diagnostics are said, not invented.
Synthetic saved results only (no model is loaded)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as scipy_stats

from probekit.finetune import per_class_diagnostics as finetune_per_class_diagnostics
from probekit.report import (
    build_report,
    diagnostics_correlation_rows,
    draw_diagnostics,
    finetune_groups,
    finetune_markdown,
    markdown_to_html,
    plot_finetune_figure,
)
from probekit.report._format import pyplot
from probekit.stats import per_class_diagnostics, summarize_folds, t_interval
from tests.unit.test_report import METRICS, PNG, _is_png

#: class -> (women, men) in the training data
COUNTS = {"nurse": (90, 10), "teacher": (70, 30), "attorney": (45, 55), "surgeon": (20, 80), "engineer": (10, 90),
          "dj": (15, 85)}


def counts(table=COUNTS) -> dict:
    return {c: {"female": f, "male": m, "total": f + m} for c, (f, m) in table.items()}


def fold(k: int, slope: float, rng: np.random.Generator, table=COUNTS) -> dict:
    gaps = {c: slope * (f / (f + m) - 0.5) + float(rng.normal(0, 0.03)) for c, (f, m) in table.items()}
    metrics = {name: 0.8 for name in METRICS}
    metrics["tprd"] = float(np.mean(np.abs(list(gaps.values()))))
    return {"fold": k, "n_train": 100, "n_test": 20, "metrics": metrics, "per_class": {"tprd": gaps}, "warnings": []}


def run(setting: str, slope: float, *, seed: int = 0, saved_counts: bool = True, table=COUNTS, n_folds: int = 3) -> dict:
    """A metrics.json as probekit finetune saves it (per_class_diagnostics only with the counts)."""
    rng = np.random.default_rng(seed)
    folds = [fold(k, slope, rng, table) for k in range(n_folds)]
    summary = summarize_folds(folds)
    settings = {"data": "synthetic", "setting": setting}
    if saved_counts:
        settings["label_gender_counts"] = counts(table)
        summary["per_class_diagnostics"] = finetune_per_class_diagnostics(summary["per_class"]["tprd"], counts(table))
    return {"settings": settings, "folds": folds, "summary": summary, "provenance": {"model": {"name_or_path": "enc"}}}


def _table_rows(text: str, first: str) -> list[list[str]]:
    return [[c.strip() for c in line.strip().strip("|").split("|")] for line in text.splitlines()
            if line.startswith(f"| {first} |")]


def _section(text: str, heading: str) -> str:
    start = text.index(heading)
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else None]


# ------------------------------------------------------------------------------------------ the summary


def test_the_report_summary_is_the_finetune_summary_and_matches_scipy():
    rng = np.random.default_rng(4)
    gaps = {c: {"mean": float(rng.normal())} for c in COUNTS}
    ours = per_class_diagnostics(gaps, counts(), confidence=0.9)
    assert ours == finetune_per_class_diagnostics(gaps, counts(), confidence=0.9)
    x = [f / (f + m) for f, m in COUNTS.values()]
    y = [g["mean"] for g in gaps.values()]
    r = scipy_stats.pearsonr(x, y)
    assert ours["pearson"]["r"] == pytest.approx(r.statistic)
    expected = r.confidence_interval(0.9)  # SciPy's Fisher-z interval
    assert ours["pearson"]["interval"] == pytest.approx([expected.low, expected.high])
    assert ours["spearman"]["spearman"] == pytest.approx(scipy_stats.spearmanr(x, y).statistic)


# ------------------------------------------------------------------------------------------ results.md / results.png


def test_results_table_holds_the_saved_correlation_and_the_share_of_women():
    original, balanced = run("original", 0.4), run("balanced", 0.1, seed=1)
    text = finetune_markdown([original, balanced], ["enc", "enc"])
    section = _section(text, "## TPR gap vs share of women per class")
    rows = _table_rows(section, "enc")
    assert [r[1] for r in rows] == ["original", "balanced"]
    for row, saved in zip(rows, (original, balanced)):
        pearson = saved["summary"]["per_class_diagnostics"]["pearson"]
        low, high = pearson["interval"]
        assert row[2] == "6"
        assert row[3] == f"{pearson['r']:.3f} [{low:.3f}, {high:.3f}]"
        assert row[4] == f"{saved['summary']['per_class_diagnostics']['spearman']['spearman']:.3f}"
    per_class = _section(text, "## TPRD per class")
    header = next(line for line in per_class.splitlines() if line.startswith("| Class"))
    assert "Share of women" in header
    nurse = _table_rows(per_class, "nurse")[0]
    assert nurse[1] == "0.900"
    stats = original["summary"]["per_class"]["tprd"]["nurse"]
    assert nurse[2] == f"{stats['mean']:.3f} ± {stats['margin']:.3f}"
    assert "No per-class diagnostics" not in text


def test_runs_on_different_data_get_a_long_per_class_table():
    other = {c: (f + 5, m) for c, (f, m) in COUNTS.items()}
    runs = [run("original", 0.4), run("original", 0.4, table=other, seed=2)]
    text = finetune_markdown(runs, ["a", "b"])
    section = _section(text, "## TPR gap vs share of women per class")
    rows = _table_rows(section, "b")
    nurse = next(r for r in rows if r[2] == "nurse")
    assert nurse[3] == f"{95 / 105:.3f}"
    cell = runs[1]["summary"]["per_class"]["tprd"]["nurse"]
    assert nurse[4] == f"{cell['mean']:.3f} [{cell['low']:.3f}, {cell['high']:.3f}]"
    header = next(line for line in _section(text, "## TPRD per class").splitlines() if line.startswith("| Class"))
    assert "Share of women" not in header


def test_missing_diagnostics_are_said_not_invented():
    without = run("original", 0.4, saved_counts=False)
    text = finetune_markdown([without])
    section = _section(text, "## TPR gap vs share of women per class")
    assert "No per-class diagnostics for:" in section and "no label × gender counts saved" in section
    assert "Pearson r" not in section and "Share of women" not in text
    rows = diagnostics_correlation_rows([without], ["enc"], ["original"])
    assert rows[0]["n"] == 0 and math.isnan(rows[0]["pearson_r"]) and rows[0]["reason"]
    old = run("original", 0.4, saved_counts=False)
    for f in old["folds"]:
        f["per_class"] = {}
    old["summary"] = summarize_folds(old["folds"])
    assert "share of women" not in finetune_markdown([old]).lower()  # nothing to diagnose: no section at all


def test_the_panel_draws_the_saved_points_and_correlation(tmp_path):
    saved = run("original", 0.4)
    plt = pyplot()
    fig, ax = plt.subplots()
    assert draw_diagnostics(ax, saved, "enc original")
    points = ax.containers[0].lines[0].get_xydata()
    diag = saved["summary"]["per_class_diagnostics"]
    np.testing.assert_allclose(points, [[r["share_female"], r["tprd"]] for r in diag["classes"]])
    bars = ax.containers[0].lines[2][0].get_segments()  # the fold intervals of the per-class TPRD
    per_class = saved["summary"]["per_class"]["tprd"]
    np.testing.assert_allclose([[s[0][1], s[1][1]] for s in bars],
                               [[per_class[r["class"]]["low"], per_class[r["class"]]["high"]] for r in diag["classes"]])
    low, high = diag["pearson"]["interval"]
    assert f"r = {diag['pearson']['r']:.2f} [{low:.2f}, {high:.2f}]" in ax.get_title()
    assert f"n = {diag['n']}" in ax.get_title()
    plt.close(fig)
    fig, ax = plt.subplots()
    assert not draw_diagnostics(ax, run("original", 0.4, saved_counts=False), "old")
    assert not ax.containers and "no per-class diagnostics" in ax.texts[0].get_text()
    plt.close(fig)


def test_results_figure_is_a_png_with_the_scatter_row(tmp_path):
    saved = run("original", 0.4)
    with_row = plot_finetune_figure([saved], tmp_path / "with.png", ["enc"])
    without = plot_finetune_figure([run("original", 0.4, saved_counts=False)], tmp_path / "without.png", ["enc"])
    assert _is_png(with_row) and _is_png(without)
    import matplotlib.image as mpimg

    assert mpimg.imread(with_row).shape[0] > 1.5 * mpimg.imread(without).shape[0]  # the scatter row below


# ------------------------------------------------------------------------------------------ the study report


def write_study(root: Path, *, methods=("none", "inlp"), settings=("original", "balanced"), n_folds=2,
                saved_counts=True) -> Path:
    """A study directory whose fine-tuning units carry the run settings' label x gender counts in
    their provenance, as probekit study saves them."""
    (root / "units").mkdir(parents=True)
    listed = []
    rng = np.random.default_rng(0)
    for m, method in enumerate(methods):
        for s, setting in enumerate(settings):
            for k in range(n_folds):
                uid = f"ft-{method}-{setting}-{k}"
                params = {"encoder": "enc", "method": method, "dataset": "bios", "setting": setting, "fold": k}
                parameters = {"finetune_settings": {"label_gender_counts": counts(), "setting": setting}} if saved_counts else {}
                unit = {"id": uid, "kind": "finetune", "params": params, "wall_s": 1.0,
                        "result": fold(k, 0.4 / (1 + m + s), rng), "provenance": {"parameters": parameters}}
                (root / "units" / f"{uid}.json").write_text(json.dumps(unit))
                listed.append({"id": uid, "kind": "finetune", "params": params})
    (root / "study.json").write_text(json.dumps({"config": {}, "units": listed, "provenance": {}}))
    return root


def test_study_report_has_the_section_figure_and_saved_numbers(tmp_path):
    root = write_study(tmp_path / "study")
    out = build_report(root)
    text = (out / "report.md").read_text()
    heading = "## TPR gap vs share of women per class"
    assert text.index("## Extrinsic bias") < text.index(heading)
    section = _section(text, heading)
    figure = out / "figures" / "per_class_gap_bios.png"
    assert figure.read_bytes()[:8] == PNG and _is_png(figure)
    assert "](figures/per_class_gap_bios.png)" in section
    report = json.loads((out / "report.json").read_text())["per_class_diagnostics"]
    assert len(report["correlations"]) == 4 and len(report["classes"]) == 4 * len(COUNTS)
    units = [json.loads(p.read_text()) for p in sorted((root / "units").glob("*.json"))]
    for row in report["correlations"]:
        folds = [u["result"] for u in units if u["params"]["method"] == row["method"] and u["params"]["setting"] == row["setting"]]
        x = [f / (f + m) for f, m in COUNTS.values()]
        y = [np.mean([f["per_class"]["tprd"][c] for f in folds]) for c in COUNTS]
        assert row["pearson_r"] == pytest.approx(scipy_stats.pearsonr(x, y).statistic)  # an independent computation
        assert row["spearman"] == pytest.approx(scipy_stats.spearmanr(x, y).statistic)
        line = next(r for r in _table_rows(section, row["method"]) if r[1] == row["setting"])
        assert line[3] == f"{row['pearson_r']:.3f} [{row['pearson_low']:.3f}, {row['pearson_high']:.3f}]"
    nurse = next(r for r in report["classes"] if r["method"] == "inlp" and r["setting"] == "balanced" and r["class"] == "nurse")
    values = [u["result"]["per_class"]["tprd"]["nurse"] for u in units
              if u["params"]["method"] == "inlp" and u["params"]["setting"] == "balanced"]
    expected = t_interval(values)
    assert (nurse["share_female"], nurse["n_female"], nurse["n_male"]) == (0.9, 90, 10)
    assert nurse["tprd"] == pytest.approx(expected["mean"])
    assert [nurse["tprd_low"], nurse["tprd_high"]] == pytest.approx([expected["low"], expected["high"]])
    assert (out / "tables" / "per_class_diagnostics.csv").is_file()
    html = (out / "report.html").read_text()
    assert '<img alt="TPR gap vs share of women per class, one panel per run' in html  # embedded, not left as text
    # the extrinsic tables leave the diagnostics to this section
    assert text.count("Pearson r [interval]") == 1


def test_study_report_says_when_the_units_lack_the_counts(tmp_path):
    root = write_study(tmp_path / "study", saved_counts=False)
    out = build_report(root)
    text = (out / "report.md").read_text()
    section = _section(text, "## TPR gap vs share of women per class")
    assert "No per-class diagnostics for:" in section and section.count("no label × gender counts saved") == 4
    assert not (out / "figures" / "per_class_gap_bios.png").exists()
    saved = json.loads((out / "report.json").read_text())["per_class_diagnostics"]
    assert saved["classes"] == [] and all(r["n"] == 0 and r["pearson_r"] is None and r["reason"] for r in saved["correlations"])
    assert not (out / "tables" / "per_class_diagnostics.csv").exists()


def test_finetune_groups_carry_the_counts_and_the_diagnostics(tmp_path):
    root = write_study(tmp_path / "study", methods=("none",), settings=("original",))
    units = [json.loads(p.read_text()) for p in sorted((root / "units").glob("*.json"))]
    (group,) = finetune_groups(units)
    assert group["run"]["settings"]["label_gender_counts"] == counts()
    diag = group["run"]["summary"]["per_class_diagnostics"]
    assert diag == per_class_diagnostics(group["run"]["summary"]["per_class"]["tprd"], counts())
    assert markdown_to_html  # the HTML renderer is the one the report uses (imported from the public face)
