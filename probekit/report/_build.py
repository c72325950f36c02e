"""``probekit report DIR``: the study's tables, figures and analysis from its saved JSON alone.

Reads a study directory (``DIR/units/*.json``, optionally ``DIR/study.json``; see the study
layout) or a ``probekit compare`` output directory (``DIR/comparison.json`` or ``DIR/*/results.json``)
and writes ``DIR/report/``: ``report.md``, ``report.html`` (one self-contained page, figures
embedded), ``figures/*.png`` and ``tables/*.csv`` + ``report.json``. Nothing loads a model. The
report directory is built beside its final place and swapped in by renames, so a reader never sees
half a report.
"""

from __future__ import annotations

import csv
import io
import logging
import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit._version import __version__
from probekit.errors import InputFileError, InvalidParameterError
from probekit.report._analysis import (
    correlation_blocks,
    plot_correlation_heatmap,
    plot_correlation_scatter,
    rank_correlations,
)
from probekit.report._answers import answers_markdown
from probekit.report._attribute_study import (
    attribute_answers,
    attribute_extrinsic_blocks,
    attribute_records,
    attribute_study_blocks,
    study_attribute_name,
)
from probekit.report._benchmarks import (
    benchmark_blocks,
    benchmark_models,
    benchmark_tables,
    find_benchmark_runs,
    study_benchmark_run,
)
from probekit.report._diagnostics_section import diagnostics_section
from probekit.report._dose_response import (
    DOSE_RESPONSE_FIGURE,
    DOSE_RESPONSE_FILE,
    dose_response_markdown,
    plot_dose_response_matrix,
)
from probekit.report._extrinsic import EXTRINSIC_MEASURES, extrinsic_blocks, finetune_groups, plot_tprd_cf, plot_tprd_vs_cf
from probekit.report._format import slug
from probekit.report._html import blocks_html
from probekit.report._intrinsic import intrinsic_blocks
from probekit.report._intrinsic_figures import intrinsic_figures
from probekit.report._intrinsic_tables import INTRINSIC_MEASURES, intrinsic_records
from probekit.report._labels import checkpoint_method, method_rank
from probekit.report._leakage import hidden_markdown, hidden_rows, plot_hidden
from probekit.report._tables import Block, blocks_markdown, write_latex_blocks
from probekit.report._verdict import verdict_records, verdict_study_blocks
from probekit.utils import atomic_directory, dumps_json, ensure_writable_dir, read_json_file

logger = logging.getLogger(__name__)

__all__ = ["StudyResults", "load_study", "build_report", "REPORT_DIR"]

REPORT_DIR = "report"


@dataclass
class StudyResults:
    """What a results directory holds, read from its JSON files.

    Attributes
    ----------
    root : Path
    source : {"study", "compare", "probe"}
    intrinsic : list of dict
        One per (encoder, method): ``encoder``, ``method``, ``label``, ``results`` (a
        ``results.json`` dict) and ``unit_id`` (``None`` outside a study).
    finetune : list of dict
        Finished fine-tuning units (one fold each), as saved.
    manifest : dict or None
        ``study.json`` when present.
    problems : list of str
        Files that could not be used, and why.
    wall_s : float
        Sum of the units' recorded wall times.
    benchmarks : list of dict
        Benchmark runs (CrowS-Pairs, StereoSet, SEAT suite) found under the directory
        (:func:`probekit.report.find_benchmark_runs`).
    """

    root: Path
    source: str
    intrinsic: list[dict[str, Any]] = field(default_factory=list)
    finetune: list[dict[str, Any]] = field(default_factory=list)
    manifest: dict[str, Any] | None = None
    problems: list[str] = field(default_factory=list)
    wall_s: float = 0.0
    benchmarks: list[dict[str, Any]] = field(default_factory=list)
    dose_response: dict[str, Any] | None = None  # DIR/dose_response.json of a [sweep] study
    n_points: int = 0  # finished sweep points
    n_benchmark_units: int = 0  # finished benchmark units (a skipped one included)

    @property
    def planned_units(self) -> int | None:
        """Units listed in ``study.json`` (None without a manifest)."""
        units = (self.manifest or {}).get("units")
        return len(units) if isinstance(units, list) else None

    def order(self, key: str) -> list[str]:
        """Encoders or datasets in the order of ``study.json`` (first appearance), if any."""
        seen: dict[str, None] = {}
        for unit in (self.manifest or {}).get("units") or []:
            value = (unit.get("params") or {}).get(key) if isinstance(unit, Mapping) else None
            if value is not None:
                seen[str(value)] = None
        return list(seen)


def _read_json(path: Path, problems: list[str]) -> dict[str, Any] | None:
    try:
        data = read_json_file(path)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        problems.append(f"{path.name}: unreadable ({exc})")
        logger.warning("skipping %s: %s", path, exc)
        return None
    if not isinstance(data, dict):
        problems.append(f"{path.name}: not a JSON object")
        return None
    return data


def _load_units(root: Path, result: StudyResults) -> None:
    files = sorted(p for p in (root / "units").glob("*.json") if not p.name.startswith("."))
    seen: dict[tuple[str, str], str] = {}
    for path in files:
        unit = _read_json(path, result.problems)
        if unit is None:
            continue
        kind, params = unit.get("kind"), unit.get("params") or {}
        wall = unit.get("wall_s")
        if isinstance(wall, (int, float)) and math.isfinite(wall):
            result.wall_s += float(wall)
        if not isinstance(unit.get("result"), Mapping):
            result.problems.append(f"{path.name}: no result")
            continue
        if kind == "intrinsic":
            encoder, method = str(params.get("encoder")), str(params.get("method") or "none")
            if (encoder, method) in seen:
                result.problems.append(f"{path.name}: a second intrinsic unit for {method} ({encoder}); "
                                       f"{seen[(encoder, method)]} is used")
                continue
            seen[(encoder, method)] = path.name
            result.intrinsic.append({"encoder": encoder, "method": method, "label": f"{method} ({encoder})",
                                     "results": unit["result"], "unit_id": unit.get("id")})
        elif kind == "finetune":
            result.finetune.append(unit)
        elif kind == "point":  # a sweep point: read through DIR/dose_response.json
            result.n_points += 1
        elif kind == "benchmark":
            result.n_benchmark_units += 1
            run = study_benchmark_run(unit)
            if run is not None:  # a skipped benchmark (no masked-LM head) is stated in its unit, not tabled
                result.benchmarks.append(run)
        else:
            result.problems.append(f"{path.name}: unknown kind {kind!r}")
    encoders = result.order("encoder")
    result.intrinsic.sort(key=lambda r: (encoders.index(r["encoder"]) if r["encoder"] in encoders else len(encoders),
                                         r["encoder"], method_rank(r["method"])))


def _compare_entry(label: str, results: Mapping[str, Any], source: Path | None) -> dict[str, Any]:
    model = (results.get("provenance") or {}).get("model") or {}
    found = checkpoint_method(model["source_path"]) if model.get("source_path") else None
    found = found or (checkpoint_method(model["name_or_path"]) if model.get("name_or_path") else None)
    method = found["method"] if found else "none"
    encoder = (found or {}).get("base") or model.get("base_name_or_path") or model.get("name_or_path") or label
    return {"encoder": str(encoder), "method": method, "label": label, "results": results, "unit_id": None,
            "source": str(source) if source else None}


def _load_compare(root: Path, result: StudyResults) -> None:
    manifest = root / "comparison.json"
    data = _read_json(manifest, result.problems) if manifest.is_file() else None
    used: set[Path] = set()
    for run in (data or {}).get("runs") or []:
        where = run.get("results") if isinstance(run, Mapping) else None
        if not where:
            continue
        path = (root / where) if not Path(where).is_absolute() else Path(where)
        results = _read_json(path, result.problems) if path.is_file() else None
        if results is None:
            result.problems.append(f"{where}: listed in comparison.json but not readable")
            continue
        used.add(path.resolve())
        result.intrinsic.append(_compare_entry(str(run.get("label") or path.parent.name), results, path))
    for path in sorted(root.glob("*/results.json")):
        if path.resolve() in used or path.parent.name == REPORT_DIR:
            continue
        results = _read_json(path, result.problems)
        if results is not None and not results.get("benchmark"):  # benchmark runs are read by find_benchmark_runs
            model = (results.get("provenance") or {}).get("model") or {}
            label = str(model.get("name_or_path") or path.parent.name)
            if any(r["label"] == label for r in result.intrinsic):
                label = f"{label} ({path.parent.name})"
            result.intrinsic.append(_compare_entry(label, results, path))


def _is_benchmark(path: Path) -> bool:
    try:
        return bool(read_json_file(path).get("benchmark"))
    except (OSError, UnicodeDecodeError, ValueError, AttributeError):
        return False


def load_study(directory: str | os.PathLike) -> StudyResults:
    """Read every finished result under ``directory`` (a study, a compare output or a probe run).

    Raises
    ------
    InputFileError
        When the directory holds no study units and no ``results.json``.
    """
    root = Path(directory)
    if not root.is_dir():
        raise InputFileError(f"DIR: {str(directory)!r} is not a directory")
    if (root / "units").is_dir() or (root / "study.json").is_file():
        result = StudyResults(root=root, source="study")
        if (root / "study.json").is_file():
            result.manifest = _read_json(root / "study.json", result.problems)
        if (root / "units").is_dir():
            _load_units(root, result)
        if (root / DOSE_RESPONSE_FILE).is_file():
            result.dose_response = _read_json(root / DOSE_RESPONSE_FILE, result.problems)
    elif (root / "results.json").is_file() and not _is_benchmark(root / "results.json"):
        result = StudyResults(root=root, source="probe")
        results = _read_json(root / "results.json", result.problems)
        if results is not None:
            model = (results.get("provenance") or {}).get("model") or {}
            result.intrinsic.append(_compare_entry(str(model.get("name_or_path") or root.name), results, root / "results.json"))
    else:
        result = StudyResults(root=root, source="compare")
        _load_compare(root, result)
    result.benchmarks += find_benchmark_runs(root)
    if not result.intrinsic and not result.finetune and not result.benchmarks and not result.dose_response:
        raise InputFileError(
            f"DIR: nothing to report in {str(directory)!r}: expected finished study units (DIR/units/*.json), a "
            "probekit compare output (DIR/comparison.json or DIR/*/results.json) or a probekit probe output "
            "(DIR/results.json)" + (f"; problems: {'; '.join(result.problems[:3])}" if result.problems else "")
        )
    return result


# --------------------------------------------------------------------------------------------- writing


def _csv(rows: Sequence[Mapping[str, Any]]) -> str:
    columns = list(dict.fromkeys(k for row in rows for k, v in row.items() if not isinstance(v, (list, dict, tuple))))
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=columns, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: ("" if isinstance(row.get(k), float) and math.isnan(row[k]) else row.get(k)) for k in columns})
    return buffer.getvalue()


def _extrinsic_rows(groups: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    rows = []
    for g in groups:
        row: dict[str, Any] = {k: g[k] for k in ("encoder", "method", "dataset", "setting")}
        row["folds"] = len(g["run"]["folds"])
        for metric, stats in g["run"]["summary"]["metrics"].items():
            for key in ("mean", "margin", "low", "high", "std", "n"):
                row[f"{metric}_{key}"] = stats.get(key)
        row |= _leakage_columns(g["run"]["summary"])
        rows.append(row)
    return rows


def _leakage_columns(summary: Mapping[str, Any]) -> dict[str, Any]:
    """Leakage and noise-floor columns of a group's extrinsic row (none for results without them)."""
    row: dict[str, Any] = {}
    for source, cells in (summary.get("leakage") or {}).items():
        for key, stats in (cells or {}).items():
            for part in ("mean", "margin", "low", "high"):
                row[f"leakage_{source}_{key}_{part}"] = (stats or {}).get(part)
    for metric, cell in (summary.get("noise_floor") or {}).items():
        row[f"{metric}_floor_mean"] = (cell.get("floor") or {}).get("mean")
        row[f"{metric}_excess_mean"] = (cell.get("excess") or {}).get("mean")
        row[f"{metric}_excess_margin"] = (cell.get("excess") or {}).get("margin")
        row[f"{metric}_exceeds_floor"] = cell.get("exceeds")
    return row


def _hidden_section(records: Sequence[Mapping[str, Any]], groups: Sequence[Mapping[str, Any]], figures_dir: Path, *,
                    confidence: float) -> tuple[list[Block], list[dict[str, Any]]]:
    """"Hidden in the encoder, back after fine-tuning?": table and figure when both sides exist."""
    rows = hidden_rows(records, groups)
    if not rows:
        return [], []
    figure = plot_hidden(rows, figures_dir / "hidden_vs_leakage.png")
    return hidden_markdown(rows, heading_level=2, figure=f"figures/{figure.name}", confidence=confidence), rows


def build_report(
    directory: str | os.PathLike,
    *,
    out: str | os.PathLike | None = None,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int = 0,
) -> Path:
    """Write the report of a study (or compare output) directory.

    Parameters
    ----------
    directory : path
        A study directory (``units/*.json``), a ``probekit compare`` output or a ``probekit probe``
        output.
    out : path, optional
        Report directory (default ``directory/report``); replaced as a whole.
    n_bootstrap : int
        Bootstrap resamples of the LPBS intervals (over targets) and of the rank-correlation
        intervals (over encoder × method points).
    confidence : float
        Level of every interval computed here.
    random_state : int
        Seed of those bootstraps (same inputs and seed: same report).

    Returns
    -------
    Path
        The report directory, holding ``report.md``, ``report.html``, ``report.json``,
        ``figures/*.png`` and ``tables/*.csv``.
    """
    if not (isinstance(n_bootstrap, int) and n_bootstrap >= 0):
        raise InvalidParameterError("n_bootstrap", n_bootstrap, "a non-negative integer")
    if not 0 < confidence < 1:
        raise InvalidParameterError("confidence", confidence, "a level in (0, 1)")
    root = Path(directory)
    target = Path(out) if out is not None else root / REPORT_DIR
    study = load_study(root)
    parameter = "--out" if out is not None else "DIR"
    if target.exists() and (not target.is_dir() or (any(target.iterdir()) and not (target / "report.json").is_file())):
        raise InvalidParameterError(parameter, str(target), "a new or empty directory, or an earlier report",
                                    "it exists and holds other files; the report directory is replaced as a whole")
    ensure_writable_dir(target.parent, parameter)
    with atomic_directory(target) as staging:  # an earlier report is replaced as a whole
        _write(study, staging, n_bootstrap=n_bootstrap, confidence=confidence, random_state=random_state,
               version=__version__, dumps_json=dumps_json)
    return target


def _scatter_measures(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """The intrinsic measures drawn against TPRD and CF: SEAT, attr-LPBS, the balanced stereotype
    accuracy (the paper's plain one when the results lack it) and the stereotype confidence.
    """
    has_balanced = any(math.isfinite(float(r.get("stereotype_accuracy_balanced") or math.nan)) for r in records)
    return ["seat_effect_size_abs", "attr_lpbs", "stereotype_accuracy_balanced" if has_balanced else "stereotype_accuracy",
            "stereotype_confidence"]


def _header_lines(study: StudyResults, title: str, *, version: str, confidence: float) -> list[str]:
    """The title, the source line (what was found, how much of the plan finished) and left-out files."""
    lines = [f"# {title}", ""]
    kinds = {"study": "study", "compare": "probekit compare output", "probe": "probekit probe output"}
    summary = (f"Source: `{study.root}` ({kinds[study.source]}): {len(study.intrinsic)} intrinsic result(s), "
               f"{len(study.finetune)} fine-tuning fold(s)")
    if study.planned_units is not None:
        finished = len(study.intrinsic) + len(study.finetune) + study.n_points + study.n_benchmark_units
        summary += f"; {finished} of {study.planned_units} planned units finished"
    if study.wall_s:
        summary += f" ({study.wall_s / 3600:.2f} h of unit wall time)" if study.wall_s >= 360 else f" ({study.wall_s:.0f} s of unit wall time)"
    lines += [summary + f". Built by probekit {version} from the saved JSON alone; every interval is "
              f"{confidence:.0%}.", ""]
    if study.problems:
        lines += ["Files left out:", "", *(f"- {p}" for p in study.problems), ""]
    return lines


def _closed(blocks: list[Block]) -> list[Block]:
    """``blocks`` without trailing blank text, then one blank line (a section that ends its own paragraph)."""
    while blocks and isinstance(blocks[-1], str) and not blocks[-1].strip():
        blocks = blocks[:-1]
    if blocks and isinstance(blocks[-1], str):
        blocks = [*blocks[:-1], blocks[-1].rstrip()]
    return [*blocks, ""]


def _intrinsic_section(study: StudyResults, figures_dir: Path, *, n_bootstrap: int, confidence: float,
                       random_state: int) -> tuple[list[Block], list[dict[str, Any]]]:
    """Tables 1-2 and Figures 2-4 of the intrinsic results; returns the blocks and the records."""
    lines: list[Block] = []
    runs = [(r["label"], r["results"]) for r in study.intrinsic]
    records = intrinsic_records(runs, n_bootstrap=n_bootstrap, confidence=confidence, random_state=random_state)
    for entry, record in zip(study.intrinsic, records):
        record["encoder"], record["method"] = entry["encoder"], entry["method"]
    if runs:
        figures = intrinsic_figures(records, figures_dir)
        links = {caption: f"figures/{path.name}" for caption, path in figures.items()}
        lines += _closed(intrinsic_blocks(runs, title="Intrinsic bias (Tables 1–2, Figures 2–4 style)", heading_level=2,
                                          records=records, figures=links))
    else:
        lines += ["## Intrinsic bias", "", "No intrinsic results yet.", ""]
    return lines, records


def _extrinsic_section(study: StudyResults, groups: Sequence[Mapping[str, Any]], figures_dir: Path, *,
                       confidence: float) -> list[Block]:
    """Tables 3-4 and Figures 5-6 of the fine-tuning groups."""
    lines: list[Block] = []
    if study.source != "study":
        lines += ["This directory compares checkpoints without fine-tuning them: the extrinsic tables (Tables 3–4) and "
                  "the rank correlation of intrinsic with extrinsic bias come from a study (`probekit study`).", ""]
    else:
        lines += ["## Extrinsic bias (Tables 3–4, Figures 5–6 style)", ""]
    if groups:
        blocks, _ = extrinsic_blocks(groups, heading_level=3)
        lines += [*blocks, ""]
        for dataset in dict.fromkeys(g["dataset"] for g in groups):
            part = [g for g in groups if g["dataset"] == dataset]
            bars = plot_tprd_cf(part, figures_dir / f"tprd_cf_{slug(dataset)}.png",
                                title=f"{dataset}: TPRD and CF per method and training data (Fig. 5 style)")
            scatter = plot_tprd_vs_cf(part, figures_dir / f"tprd_vs_cf_{slug(dataset)}.png",
                                      title=f"{dataset}: TPRD vs CF (Fig. 6 style; lower-left is fairer)")
            lines += [f"![{dataset}: TPRD and CF per method × setting (mean over folds, {confidence:.0%} t-interval, "
                      f"dots: folds)](figures/{bars.name})", "",
                      f"![{dataset}: TPRD vs CF per method × setting ({confidence:.0%} t-intervals)](figures/{scatter.name})", ""]
    elif study.source == "study":
        lines += ["No fine-tuning results yet.", ""]
    return lines


def _analysis_section(study: StudyResults, records: Sequence[Mapping[str, Any]], groups: Sequence[Mapping[str, Any]],
                      figures_dir: Path, *, n_bootstrap: int, confidence: float,
                      random_state: int) -> tuple[list[Block], list[dict[str, Any]]]:
    """Rank correlations of intrinsic with extrinsic measures, with their figures; returns the blocks and rows."""
    lines: list[Block] = []
    extrinsic_points = []
    for g in groups:
        point = {k: g[k] for k in ("encoder", "method", "dataset", "setting")}
        for metric in EXTRINSIC_MEASURES:
            point[metric] = ((g["run"]["summary"]["metrics"].get(metric)) or {}).get("mean")
        extrinsic_points.append(point)
    correlations: list[dict[str, Any]] = []
    if records and extrinsic_points:
        correlations = rank_correlations(records, extrinsic_points, intrinsic_measures=INTRINSIC_MEASURES,
                                         extrinsic_measures=EXTRINSIC_MEASURES, n_bootstrap=n_bootstrap,
                                         confidence=confidence, random_state=random_state)
        links: dict[str, str] = {}
        for dataset in dict.fromkeys(r["dataset"] for r in correlations):
            heat = plot_correlation_heatmap(correlations, figures_dir / f"correlation_{slug(dataset)}.png", dataset=dataset)
            links[f"{dataset}: Spearman ρ of each intrinsic × extrinsic measure and setting"] = f"figures/{heat.name}"
            settings = list(dict.fromkeys(r["setting"] for r in correlations if r["dataset"] == dataset))
            setting = "original" if "original" in settings else settings[0]
            scatter = plot_correlation_scatter(
                correlations, figures_dir / f"correlation_points_{slug(dataset)}_{slug(setting)}.png", dataset=dataset,
                setting=setting, intrinsic=_scatter_measures(records), extrinsic=["tprd", "cf"])
            links[f"{dataset}, {setting} training data: the points behind the correlations"] = f"figures/{scatter.name}"
        lines += [*correlation_blocks(correlations, heading_level=2, confidence=confidence, figures=links), "", ""]
    elif study.source == "study":
        lines += ["## Does intrinsic bias predict extrinsic bias?", "",
                  "Not computed: it needs intrinsic and fine-tuning results of the same encoder × method combinations "
                  f"(found {len(records)} intrinsic and {len(extrinsic_points)} fine-tuning groups).", ""]
    return lines, correlations


def _write_tables(out: Path, study: StudyResults, records: list[dict[str, Any]], groups: Sequence[Mapping[str, Any]],
                  correlations: list[dict[str, Any]], *, settings: Mapping[str, Any], version: str,
                  dumps_json: Any, hidden: Sequence[Mapping[str, Any]] = (),
                  diagnostics: Mapping[str, Any] | None = None, verdicts: Sequence[Mapping[str, Any]] = ()) -> list[str]:
    """The CSV tables and report.json; returns the "Files" section of the report."""
    tables_dir = out / "tables"
    tables_dir.mkdir()
    (tables_dir / "intrinsic.csv").write_text(_csv(records), encoding="utf-8")
    extrinsic_rows = _extrinsic_rows(groups)
    (tables_dir / "extrinsic.csv").write_text(_csv(extrinsic_rows), encoding="utf-8")
    (tables_dir / "correlations.csv").write_text(_csv(correlations), encoding="utf-8")
    if diagnostics and diagnostics.get("classes"):
        (tables_dir / "per_class_diagnostics.csv").write_text(_csv(diagnostics["classes"]), encoding="utf-8")
    (out / "report.json").write_text(dumps_json({
        "source": str(study.root), "kind": study.source, "probekit_version": version, "settings": dict(settings),
        "intrinsic": records, "extrinsic": extrinsic_rows, "correlations": correlations, "problems": study.problems,
        **({"hidden_vs_leakage": list(hidden)} if hidden else {}),
        **({"removed_or_hidden": list(verdicts)} if verdicts else {}),
        **({"dose_response": {k: v for k, v in study.dose_response.items() if k != "points"}} if study.dose_response else {}),
        **({"per_class_diagnostics": dict(diagnostics)} if diagnostics and diagnostics.get("correlations") else {}),
    }), encoding="utf-8")
    return ["## Files", "",
            "- `report.md`, `report.html` (this page, self-contained), `figures/*.png`",
            "- `tables/intrinsic.csv`, `tables/extrinsic.csv`, `tables/correlations.csv`, `report.json` "
            "(every number above, with intervals and the points behind each correlation)",
            "- `tables/report_NN_*.tex`: every table above as LaTeX (booktabs), "
            "`tables/benchmark_significance.csv` when benchmark runs were found, `tables/per_class_diagnostics.csv` "
            "when the fine-tuning runs have per-class diagnostics", ""]


def _benchmark_section(study: StudyResults, *, n_bootstrap: int, confidence: float,
                       random_state: int) -> tuple[list[Block], list[dict[str, Any]]]:
    """The standard benchmarks' tables (SEAT suite, StereoSet, CrowS-Pairs, significance against the base)."""
    if not study.benchmarks:
        return [], []
    tables = benchmark_tables(study.benchmarks, n_bootstrap=n_bootstrap, confidence=confidence, random_state=random_state)
    blocks = benchmark_blocks(tables, benchmark_models(study.benchmarks), heading_level=2)
    records = [r for t in tables if t.key == "benchmark-significance" for r in t.records]
    return [*blocks, ""], records


def _headings_named(blocks: list[Block], attribute: str | None) -> list[Block]:
    """``blocks`` with the attribute after every heading ("## Removed or hidden? (race)"); unchanged for gender."""
    if attribute is None:
        return blocks
    return [f"{b} ({attribute})" if isinstance(b, str) and b.startswith("#") else b for b in blocks]


def _write(study: StudyResults, out: Path, *, n_bootstrap: int, confidence: float, random_state: int, version: str,
           dumps_json: Any) -> None:
    figures_dir = out / "figures"
    figures_dir.mkdir()
    title = "probekit study report" if study.source == "study" else "probekit report: intrinsic comparison"
    attribute = study_attribute_name(study.intrinsic, study.manifest)  # None: the gender suite
    title += f": {attribute}" if attribute else ""
    settings = {"n_bootstrap": n_bootstrap, "confidence": confidence, "random_state": random_state}
    lines = _header_lines(study, title, version=version, confidence=confidence)
    if study.dose_response:  # the dose-response study's answer comes first
        figure = plot_dose_response_matrix(study.dose_response, figures_dir / DOSE_RESPONSE_FIGURE)
        lines += dose_response_markdown(study.dose_response, figure=f"figures/{figure.name}")
    answers_at = len(lines)
    if attribute is not None and study.intrinsic:
        records = attribute_records(study.intrinsic)
        lines += attribute_study_blocks(study.intrinsic, records, attribute, figures_dir)
    else:
        intrinsic_lines, records = _intrinsic_section(study, figures_dir, **settings)
        lines += _headings_named(intrinsic_lines, attribute)
    benchmark_lines, benchmark_records = _benchmark_section(study, **settings)
    lines += _headings_named(benchmark_lines, attribute)
    groups = [] if attribute else finetune_groups(study.finetune, encoder_order=study.order("encoder"),
                                                  dataset_order=study.order("dataset"), confidence=confidence)
    correlations: list[dict[str, Any]] = []
    diagnostics: dict[str, Any] = {}
    if attribute is not None and study.source == "study":  # k groups: the runs' own tables
        planned = {u.get("id"): i for i, u in enumerate((study.manifest or {}).get("units") or []) if isinstance(u, Mapping)}
        units = sorted(study.finetune, key=lambda u: planned.get(u.get("id"), len(planned)))  # in grid order
        lines += attribute_extrinsic_blocks(study.root, units, attribute)
    if attribute is None:
        lines += _extrinsic_section(study, groups, figures_dir, confidence=confidence)
        diagnostics_lines, diagnostics = diagnostics_section(groups, figures_dir)
        lines += diagnostics_lines
        analysis_lines, correlations = _analysis_section(study, records, groups, figures_dir, **settings)
        lines += analysis_lines
    verdicts = [(r["label"], r["results"]) for r in study.intrinsic]
    lines += _headings_named(verdict_study_blocks(verdicts), attribute)  # removed or hidden in the encoder
    hidden_lines, hidden = _hidden_section(records, groups, figures_dir, confidence=confidence) if attribute is None else ([], [])
    lines += hidden_lines
    if study.source == "study":
        lines[answers_at:answers_at] = (answers_markdown(records, groups, correlations, confidence=confidence)
                                        if attribute is None else attribute_answers(records, attribute))
    lines += _write_tables(out, study, records, groups, correlations, settings=settings, version=version,
                           dumps_json=dumps_json, hidden=hidden, diagnostics=diagnostics, verdicts=verdict_records(verdicts))
    markdown = "\n".join(blocks_markdown(lines)).rstrip() + "\n"
    markdown = re.sub(r"\n{3,}", "\n\n", markdown)
    (out / "report.md").write_text(markdown, encoding="utf-8")
    if benchmark_records:
        (out / "tables" / "benchmark_significance.csv").write_text(_csv(benchmark_records), encoding="utf-8")
    write_latex_blocks(lines, out / "tables", prefix="report")  # from the table objects, not the Markdown
    (out / "report.html").write_text(blocks_html(lines, title=title, base_dir=out), encoding="utf-8")
