"""Tables of the field's standard benchmarks (SEAT suite, StereoSet, CrowS-Pairs) over several
checkpoints, from their saved ``results.json`` and per-example CSVs, with each debiased checkpoint
tested against its base (paired bootstrap over examples, McNemar's test over CrowS-Pairs pairs).

A benchmark run is a directory written by ``probekit crows-pairs`` / ``stereoset`` / ``seat --suite``
(``results.json`` with ``benchmark`` = ``crows_pairs``, ``stereoset_intrasentence`` or ``seat_suite``,
beside ``pairs.csv`` / ``examples.csv`` / ``tests.csv``). The base of a debiased checkpoint is the
run whose model fingerprint (or name) is the recorded base of the debiased one.
"""

from __future__ import annotations

import csv
import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.report._format import DASH, fmt, fmt_ci, fmt_p, num
from probekit.report._labels import checkpoint_label, checkpoint_method, method_rank
from probekit.report._tables import Block, blocks_markdown, table_latex, table_lines
from probekit.stats import mcnemar_exact, paired_bootstrap, stereoset_scores
from probekit.utils import Table, read_json_file

__all__ = ["BENCHMARK_FILES", "BenchmarkTable", "find_benchmark_runs", "benchmark_models", "benchmark_tables",
           "benchmark_markdown", "benchmark_blocks"]

#: The per-example CSV beside each benchmark's results.json.
BENCHMARK_FILES = {"seat_suite": "tests.csv", "stereoset_intrasentence": "examples.csv", "crows_pairs": "pairs.csv"}


class BenchmarkTable(Table):
    """A benchmark table (a :class:`probekit.utils.Table`): Markdown and LaTeX come from the same rows."""

    @property
    def header(self) -> list[str]:
        """The column headers."""
        return self.columns

    @property
    def title(self) -> str:
        """The caption."""
        return self.caption or ""

    def markdown(self, heading_level: int = 3) -> list[str]:
        """Markdown lines: the caption as a heading, the note, the table."""
        return table_lines(self, heading_level) + [""]

    def latex(self) -> str:
        """The booktabs LaTeX table (label ``tab:<key>``)."""
        return table_latex(self)


# ------------------------------------------------------------------------------------------ loading


def _read_rows(path: Path) -> list[dict[str, str]]:
    try:
        with open(path, newline="", encoding="utf-8") as handle:
            return list(csv.DictReader(handle))
    except (OSError, UnicodeDecodeError, csv.Error):
        return []


def _model_facts(directory: Path, results: Mapping[str, Any]) -> dict[str, Any]:
    """Label, identity, method and recorded base of the checkpoint a benchmark run scored."""
    provenance = results.get("provenance") or {}
    model = provenance.get("model") or {}
    checkpoint = provenance.get("checkpoint") or {}
    name = str(model.get("name_or_path") or directory.name)
    source = model.get("source_path") or name
    found = checkpoint_method(source) if source and Path(str(source)).is_dir() else None
    label = checkpoint.get("label") or (checkpoint_label(str(source)) if found else name)
    return {
        "label": str(label), "fingerprint": model.get("fingerprint"), "name": name, "source": str(source),
        "method": str(checkpoint.get("method") or (found or {}).get("method") or "none"),
        "base_fingerprint": checkpoint.get("base_fingerprint") or model.get("base_fingerprint"),
        "base_name": checkpoint.get("base_name_or_path") or model.get("base_name_or_path") or (found or {}).get("base"),
    }


def find_benchmark_runs(root: str | os.PathLike, *, max_depth: int = 3, skip: Sequence[str] = ("report",)) -> list[dict[str, Any]]:
    """Every benchmark run under ``root`` (``results.json`` with a ``benchmark`` key, at most
    ``max_depth`` directories down; directories named in ``skip`` left out).

    Returns
    -------
    list of dict
        ``benchmark``, ``directory``, ``results``, ``rows`` (the per-example CSV as dicts) and the
        model facts: ``label``, ``fingerprint``, ``name``, ``method``, ``base_fingerprint``, ``base_name``.
    """
    base = Path(root)
    runs = []
    for path in sorted(base.rglob("results.json")):
        parts = path.relative_to(base).parts
        if len(parts) - 1 > max_depth or any(p in skip or p.startswith(".") for p in parts[:-1]):
            continue
        try:
            results = read_json_file(path)
        except (OSError, UnicodeDecodeError, ValueError):
            continue
        kind = results.get("benchmark") if isinstance(results, dict) else None
        if kind not in BENCHMARK_FILES:
            continue
        runs.append({"benchmark": kind, "directory": str(path.parent), "results": results,
                     "rows": _read_rows(path.parent / BENCHMARK_FILES[kind]), **_model_facts(path.parent, results)})
    return runs


def _resolve_base(model: dict[str, Any], models: Sequence[dict[str, Any]]) -> tuple[dict[str, Any] | None, str]:
    """The base model of a debiased one and how it was identified."""
    plain = [m for m in models if m["method"] == "none" and m is not model]
    for m in plain:
        if model["base_fingerprint"] and m["fingerprint"] == model["base_fingerprint"]:
            return m, "recorded base fingerprint"
    for m in plain:
        if model["base_name"] and str(model["base_name"]) in {m["name"], m["source"]}:
            return m, "recorded base name"
    if len(plain) == 1:
        return plain[0], "the only checkpoint that is not debiased (no recorded base matched)"
    return None, "no base found"


def study_benchmark_run(unit: Mapping[str, Any]) -> dict[str, Any] | None:
    """A study's benchmark unit (``units/<id>.json``, kind ``benchmark``) as a benchmark run, or
    None when the benchmark was skipped. The model is labelled ``"<method> (<encoder>)"``; a
    debiased model's base is the ``none`` method of the same encoder.
    """
    result = unit.get("result") or {}
    if result.get("skipped") or result.get("benchmark") not in BENCHMARK_FILES:
        return None
    params = unit.get("params") or {}
    encoder, method = str(params.get("encoder")), str(params.get("method") or "none")
    model = (result.get("provenance") or {}).get("model") or {}
    label = f"{method} ({encoder})"
    return {
        "benchmark": result["benchmark"], "directory": str(unit.get("id")), "results": result,
        "rows": list(result.get("examples") or []), "label": label, "fingerprint": model.get("fingerprint"),
        "name": label, "source": label, "method": method, "base_fingerprint": None,
        "base_name": None if method == "none" else f"none ({encoder})",
    }


def benchmark_models(runs: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Group runs by checkpoint: ``label``, ``method``, ``runs`` (benchmark -> run), ``base`` (label or None)."""
    models: dict[str, dict[str, Any]] = {}
    for run in runs:
        key = f"{run['label']}\x00{run['fingerprint']}"  # a copy of a checkpoint (same weights) is its own row
        model = models.setdefault(key, {k: run[k] for k in ("label", "fingerprint", "name", "source", "method",
                                                             "base_fingerprint", "base_name")} | {"runs": {}})
        model["runs"].setdefault(run["benchmark"], run)
    ordered = sorted(models.values(), key=lambda m: (m["method"] != "none", method_rank(m["method"]), m["label"]))
    for model in ordered:
        base, how = _resolve_base(model, ordered) if model["method"] != "none" else (None, "")
        model["base"], model["base_how"] = (base["label"] if base else None), how
    return ordered


# ------------------------------------------------------------------------------------------- tables


def _delta(value: Any, base: Any) -> str:
    x, b = num(value), num(base)
    return f"{x - b:+.3f}" if math.isfinite(x) and math.isfinite(b) else DASH


def _seat_table(models: Sequence[dict[str, Any]]) -> BenchmarkTable | None:
    present = [m for m in models if "seat_suite" in m["runs"]]
    if not present:
        return None
    by = {m["label"]: m for m in present}
    effects = {m["label"]: {t["test"]: t for t in m["runs"]["seat_suite"]["results"].get("tests") or []} for m in present}
    tests = list(dict.fromkeys(t for m in present for t in effects[m["label"]]))
    header, columns = ["Test"], []
    for m in present:
        header.append(f"{m['label']} d")
        columns.append((m, False))
        if m.get("base") in by:
            header.append(f"{m['label']} Δ|d|")
            columns.append((m, True))

    def cell(m: dict[str, Any], delta: bool, value_of: Any) -> str:
        value = value_of(m["label"])
        if not delta:
            return fmt(value)
        base = value_of(m["base"])
        return _delta(abs(num(value)), abs(num(base)))

    rows = [[test, *(cell(m, d, lambda lab, t=test: (effects[lab].get(t) or {}).get("effect_size")) for m, d in columns)]
            for test in tests]
    mean_abs = {m["label"]: m["runs"]["seat_suite"]["results"]["overall"].get("mean_abs_effect_size") for m in present}
    rows.append(["**mean |d|**", *(fmt(mean_abs[m["label"]]) if not d else _delta(mean_abs[m["label"]], mean_abs[m["base"]])
                                    for m, d in columns)])
    return BenchmarkTable(header, rows, key="seat-suite", caption="SEAT suite: effect size per test (May et al. 2019)",
                          intro=["d: effect size (0 = no association); Δ|d|: change of |d| against the base "
                                 "(negative = less bias); the last row is the benchmark's summary, the mean |d| over tests."])


def _stereoset_table(models: Sequence[dict[str, Any]]) -> BenchmarkTable | None:
    present = [m for m in models if "stereoset_intrasentence" in m["runs"]]
    if not present:
        return None
    by = {m["label"]: m for m in present}
    rows, records = [], []
    for m in present:
        results = m["runs"]["stereoset_intrasentence"]["results"]
        base = by[m["base"]]["runs"]["stereoset_intrasentence"]["results"] if m.get("base") in by else None
        for domain, row in [("overall", results.get("overall") or {}), *(results.get("by_domain") or {}).items()]:
            ref = ((base or {}).get("overall") if domain == "overall" else ((base or {}).get("by_domain") or {}).get(domain)) or {}
            cells = [m["label"], domain, str(row.get("n_contexts", DASH))]
            for key in ("lm_score", "ss_score", "icat"):
                low, high = (row.get(f"{key}_ci") or [None, None])[:2]
                cells += [fmt_ci(row.get(key), low, high, 2), _delta(row.get(key), ref.get(key)) if ref else DASH]
            cells.append(_delta(abs(num(row.get("ss_score")) - 50), abs(num(ref.get("ss_score")) - 50)) if ref else DASH)
            rows.append(cells)
            records.append({"model": m["label"], "domain": domain, **{k: row.get(k) for k in ("lm_score", "ss_score", "icat")}})
    header = ["Model", "Domain", "Contexts", "LMS", "ΔLMS", "SS", "ΔSS", "ICAT", "ΔICAT", "Δ|SS − 50|"]
    return BenchmarkTable(header, rows, key="stereoset", align="llrllllllr",
                          caption="StereoSet intrasentence: LMS, SS and ICAT per domain (Nadeem et al. 2021)",
                          intro=["LMS: language-model score (higher = better LM); SS: stereotype score (fair = 50); "
                                 "ICAT = LMS · min(SS, 100 − SS) / 50; bootstrap intervals over contexts; Δ: against the base."],
                          records=records)


def _crows_table(models: Sequence[dict[str, Any]]) -> BenchmarkTable | None:
    present = [m for m in models if "crows_pairs" in m["runs"]]
    if not present:
        return None
    by = {m["label"]: m for m in present}
    rows = []
    for m in present:
        results = m["runs"]["crows_pairs"]["results"]
        base = by[m["base"]]["runs"]["crows_pairs"]["results"] if m.get("base") in by else None
        for bias, row in [("overall", results.get("overall") or {}), *sorted((results.get("by_bias_type") or {}).items())]:
            ref = ((base or {}).get("overall") if bias == "overall" else ((base or {}).get("by_bias_type") or {}).get(bias)) or {}
            distance = abs(num(row.get("stereotype_score")) - 50)
            rows.append([m["label"], bias, str(row.get("n_pairs", DASH)),
                         fmt_ci(row.get("stereotype_score"), row.get("ci_low"), row.get("ci_high"), 2), fmt(distance, 2),
                         _delta(distance, abs(num(ref.get("stereotype_score")) - 50)) if ref else DASH, fmt_p(row.get("p_value"))])
    header = ["Model", "Bias type", "Pairs", "Stereotype score", "|score − 50|", "Δ|score − 50|", "p (vs 50)"]
    return BenchmarkTable(header, rows, key="crows-pairs", align="llrlrrr",
                          caption="CrowS-Pairs: stereotype score per bias type (Nangia et al. 2020)",
                          intro=["Percent of pairs where the more stereotyping sentence scores higher, ties in the "
                                 "denominator (fair = 50), with its exact interval and binomial p against 50; Δ: against the base."])


def _floats(rows: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    return np.asarray([num(r.get(key)) if r.get(key) not in ("", None) else math.nan for r in rows], dtype=float)


def _joined(base_rows: Sequence[Mapping[str, Any]], rows: Sequence[Mapping[str, Any]], keys: Sequence[str]):
    """The examples scored in both runs, in one order: (base rows, other rows)."""
    index = {tuple(str(r.get(k)) for k in keys): r for r in base_rows}
    pairs = [(index[key], r) for r in rows if (key := tuple(str(r.get(k)) for k in keys)) in index]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _stereoset_measures(terms: np.ndarray, pro: np.ndarray, related: np.ndarray) -> dict[str, float]:
    """LMS, SS, ICAT macro-averaged over target terms, as the StereoSet scorer computes them."""
    lms, ss, icat = stereoset_scores(terms, pro, related)
    return {"lms": lms, "ss": ss, "icat": icat}


def _crows_score(outcomes: np.ndarray) -> float:
    scored = outcomes[np.isfinite(outcomes)]
    return 100.0 * float((scored == 1.0).mean()) if scored.size else math.nan


def _paired_tests(benchmark: str, base_run: Mapping[str, Any], run: Mapping[str, Any], settings: Mapping[str, Any]):
    """(measure, PairedDifference, McNemarResult or None) of one benchmark of a debiased model against its base."""
    out = []
    if benchmark == "crows_pairs":
        b_rows, o_rows = _joined(base_run["rows"], run["rows"], ("row", "bias_type"))
        b, o = _floats(b_rows, "outcome"), _floats(o_rows, "outcome")
        keep = np.isfinite(b) & np.isfinite(o)
        b, o = b[keep], o[keep]
        out.append(("stereotype score", paired_bootstrap(_crows_score, [b], [o], **settings), mcnemar_exact(b == 1.0, o == 1.0)))
        out.append(("|score − 50|", paired_bootstrap(lambda x: abs(_crows_score(x) - 50), [b], [o], **settings), None))
    elif benchmark == "stereoset_intrasentence":
        b_rows, o_rows = _joined(base_run["rows"], run["rows"], ("id",))
        _, terms = np.unique([str(r.get("target")) for r in b_rows], return_inverse=True)
        b_arrays = [terms, _floats(b_rows, "stereotype_preferred"), _floats(b_rows, "n_related_above_unrelated")]
        o_arrays = [terms, _floats(o_rows, "stereotype_preferred"), _floats(o_rows, "n_related_above_unrelated")]
        for name, measure in (("SS", lambda m: m["ss"]), ("|SS − 50|", lambda m: abs(m["ss"] - 50)),
                              ("LMS", lambda m: m["lms"]), ("ICAT", lambda m: m["icat"])):
            out.append((name, paired_bootstrap(lambda *a, f=measure: f(_stereoset_measures(*a)), b_arrays, o_arrays,
                                               **settings), None))
    elif benchmark == "seat_suite":
        b_rows, o_rows = _joined(base_run["results"].get("tests") or [], run["results"].get("tests") or [], ("test",))
        b, o = np.abs(_floats(b_rows, "effect_size")), np.abs(_floats(o_rows, "effect_size"))
        out.append(("mean |d| (over tests)", paired_bootstrap(lambda x: float(np.nanmean(x)) if np.isfinite(x).any() else math.nan,
                                                              [b], [o], **settings), None))
    return out


_BENCHMARK_NAMES = {"seat_suite": "SEAT suite", "stereoset_intrasentence": "StereoSet", "crows_pairs": "CrowS-Pairs"}
_UNITS = {"seat_suite": "tests", "stereoset_intrasentence": "contexts", "crows_pairs": "pairs"}


def _significance_table(models: Sequence[dict[str, Any]], *, n_bootstrap: int, confidence: float,
                        random_state: int) -> BenchmarkTable | None:
    by = {m["label"]: m for m in models}
    settings = {"n_resamples": n_bootstrap, "confidence": confidence, "random_state": random_state}
    rows, records = [], []
    for m in models:
        base = by.get(m.get("base") or "")
        if base is None:
            continue
        for benchmark in BENCHMARK_FILES:
            if benchmark not in m["runs"] or benchmark not in base["runs"]:
                continue
            for measure, diff, mcnemar in _paired_tests(benchmark, base["runs"][benchmark], m["runs"][benchmark], settings):
                significant = "yes" if diff.p_value < 1 - confidence else ("no" if math.isfinite(diff.p_value) else DASH)
                rows.append([m["label"], base["label"], _BENCHMARK_NAMES[benchmark], measure,
                             f"{diff.n} {_UNITS[benchmark]}", fmt(diff.base, 2), fmt(diff.other, 2),
                             fmt_ci(diff.difference, diff.ci_low, diff.ci_high, 2), fmt_p(diff.p_value), significant,
                             f"{mcnemar.b} / {mcnemar.c}" if mcnemar else DASH, fmt_p(mcnemar.p_value) if mcnemar else DASH])
                records.append({"model": m["label"], "base": base["label"], "base_identified_by": m["base_how"],
                                "benchmark": benchmark, "measure": measure, **diff.to_dict(),
                                **({f"mcnemar_{k}": v for k, v in mcnemar.to_dict().items()} if mcnemar else {})})
    if not rows:
        return None
    header = ["Model", "Base", "Benchmark", "Measure", "Paired on", "Base value", "Value",
              f"Difference [{confidence:.0%} CI]", "Bootstrap p", f"Significant ({1 - confidence:.2g})",
              "McNemar b / c", "McNemar p"]
    return BenchmarkTable(header, rows, key="benchmark-significance", align="llllrrrlrlrr", records=records,
                          caption="Is each debiased checkpoint different from its base?",
                          intro=[f"Paired bootstrap over the examples both runs scored ({n_bootstrap} resamples; two-sided p); "
                          "McNemar's exact test over CrowS-Pairs pairs: b = pairs stereotype-preferred under the base and not "
                          "after debiasing, c = the reverse."])


def benchmark_tables(runs: Sequence[dict[str, Any]], *, n_bootstrap: int = 1000, confidence: float = 0.95,
                     random_state: int = 0) -> list[BenchmarkTable]:
    """The benchmark tables of :func:`find_benchmark_runs`'s runs: SEAT suite, StereoSet, CrowS-Pairs
    and the significance of each debiased checkpoint against its base (tables without data left out).
    """
    models = benchmark_models(runs)
    tables = [_seat_table(models), _stereoset_table(models), _crows_table(models),
              _significance_table(models, n_bootstrap=n_bootstrap, confidence=confidence, random_state=random_state)]
    return [t for t in tables if t is not None]


def benchmark_markdown(tables: Sequence[BenchmarkTable], models: Sequence[dict[str, Any]] = (), *,
                       heading_level: int = 2, skipped: Sequence[str] = ()) -> str:
    """The Markdown of :func:`benchmark_blocks` (same arguments)."""
    return "\n".join(blocks_markdown(benchmark_blocks(tables, models, heading_level=heading_level, skipped=skipped)))


def benchmark_blocks(tables: Sequence[BenchmarkTable], models: Sequence[dict[str, Any]] = (), *,
                     heading_level: int = 2, skipped: Sequence[str] = ()) -> list[Block]:
    """The "Standard benchmarks" section as report blocks: each table (under its caption as a heading,
    with its note), the base of each debiased checkpoint and skipped runs.
    """
    lines: list[Block] = [f"{'#' * heading_level} Standard benchmarks (SEAT suite, StereoSet, CrowS-Pairs)", ""]
    bases = [f"- {m['label']}: base {m['base']} ({m['base_how']})" if m.get("base") else f"- {m['label']}: no base found"
             for m in models if m["method"] != "none"]
    if bases:
        lines += ["Debiased checkpoints and their bases:", "", *bases, ""]
    if skipped:
        lines += ["Skipped:", "", *(f"- {s}" for s in skipped), ""]
    for table in tables:
        lines += [f"{'#' * (heading_level + 1)} {table.title}", ""]
        for paragraph in table.intro:
            lines += [paragraph, ""]
        lines += [Table(table.columns, table.rows, align=table.align, key=table.key), ""]
    if not tables:
        lines += ["No benchmark results.", ""]
    return lines
