r"""Intrinsic comparison of several checkpoints: Tokpo et al. (2023) Tables 1-2 and Figures 2-4.

Input: ``(label, results)`` pairs where ``results`` is the content of a ``results.json`` written by
``probekit probe`` (``ProbeSuiteResult.to_dict()``: ``seat``, ``lpbs``, ``probe``, ``words``,
``provenance``). Every key is read with a default, so results from older or newer probekit versions
(with or without the balanced / word-level probe numbers, calibration or MDL) build the same tables
with the columns they have.

Intervals
---------
- SEAT effect size: the percentile bootstrap interval saved with the result (``effect_size_ci``).
- attr-/target-LPBS: the score is the mean over targets :math:`x` of
  :math:`\mathrm{mean}_i |ls(a_i, x) - ls(b_i, x)|` (Kurita et al. 2019), so its interval is a
  percentile bootstrap over targets of the saved per-target values
  (:func:`probekit.extrinsic.bootstrap_ci`, seed ``random_state``), computed here.
- Gender accuracy and balanced stereotype accuracy: the word-bootstrap intervals saved with the
  probe (when the result has them).
- Stereotype accuracy: beside it the mean ± sd of the accuracies under random relabelings of the
  stereotype words (the reference distribution of the paper's randomization test).
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.report._format import DASH, fmt, fmt_ci, fmt_p, fmt_pm, interval, markdown_table, num, pyplot, save_figure, wrap
from probekit.report._summary import _evidence_lines as summary_evidence_lines
from probekit.stats import bootstrap_ci
from probekit.utils import atomic_write_text, write_json

__all__ = [
    "intrinsic_records",
    "intrinsic_markdown",
    "plot_seat_lpbs",
    "plot_lpbs_attr_target",
    "plot_probe_bars",
    "plot_intrinsic_overview",
    "plot_layer_comparison",
    "write_intrinsic_comparison",
    "INTRINSIC_MEASURES",
]

Run = tuple[str, Mapping[str, Any]]

#: Intrinsic measures offered to the correlation analysis: record key -> display name.
INTRINSIC_MEASURES = {
    "seat_effect_size_abs": "|SEAT effect size|",
    "attr_lpbs": "attr-LPBS",
    "target_lpbs": "target-LPBS",
    "stereotype_accuracy": "stereotype acc.",
    "stereotype_accuracy_balanced": "balanced stereotype acc.",
    "stereotype_confidence": "stereotype conf.",
    "mdl_compression": "MDL compression",
}


def _lpbs_interval(variant: Mapping[str, Any] | None, n_bootstrap: int, confidence: float,
                   random_state: int) -> tuple[float, float]:

    per_target = (variant or {}).get("per_target") or {}
    values = np.array([num(v) for v in per_target.values()], dtype=float)
    values = values[np.isfinite(values)]
    if values.size < 2 or n_bootstrap < 1:
        return math.nan, math.nan
    ci = bootstrap_ci(np.mean, values, n_resamples=n_bootstrap, confidence=confidence, random_state=random_state)
    return ci.low, ci.high


def _mdl(results: Mapping[str, Any], probe: Mapping[str, Any]) -> Mapping[str, Any]:
    for candidate in (probe.get("mdl"), results.get("mdl")):
        if isinstance(candidate, Mapping):
            return candidate
    return {}


def intrinsic_records(
    runs: Sequence[Run], *, n_bootstrap: int = 1000, confidence: float = 0.95, random_state: int = 0
) -> list[dict[str, Any]]:
    """One flat record per run with every number the tables, figures and analysis use.

    Parameters
    ----------
    runs : sequence of (label, results) pairs
        ``results``: a ``results.json`` dict from ``probekit probe``.
    n_bootstrap, confidence, random_state
        Bootstrap over targets of the LPBS intervals (the only intervals computed here).

    Returns
    -------
    list of dict
        Keys ``label``, ``model``, ``fingerprint``, ``seat_*``, ``attr_lpbs``/``target_lpbs`` with
        ``_low``/``_high``, ``lpbs_status``, ``lpbs_reason``, the probe numbers (NaN when absent)
        and their intervals, ``mdl_*`` and the probe settings.
    """
    records = []
    for label, results in runs:
        seat = results.get("seat") or {}
        lpbs = results.get("lpbs") or {}
        probe = results.get("probe") or {}
        model = (results.get("provenance") or {}).get("model") or {}
        seat_low, seat_high = interval(seat.get("effect_size_ci"))
        record: dict[str, Any] = {
            "label": str(label),
            "model": model.get("name_or_path"),
            "fingerprint": model.get("fingerprint"),
            "has_mlm_head": model.get("has_mlm_head"),
            "seat_statistic": num(seat.get("statistic")),
            "seat_effect_size": num(seat.get("effect_size")),
            "seat_effect_size_low": seat_low,
            "seat_effect_size_high": seat_high,
            "seat_effect_size_abs": abs(num(seat.get("effect_size"))),
            "seat_p_value": num(seat.get("p_value")),
            "seat_confidence_level": num(seat.get("confidence_level")),
            "seat_exact": seat.get("exact"),
            "lpbs_status": lpbs.get("status", "missing"),
            "lpbs_reason": lpbs.get("reason") if lpbs else "no LPBS in the results",
        }
        for variant in ("attr", "target"):
            ok = lpbs.get("status") == "ok"
            low, high = (_lpbs_interval(lpbs.get(variant), n_bootstrap, confidence, random_state)
                         if ok else (math.nan, math.nan))
            record[f"{variant}_lpbs"] = num(lpbs.get(f"{variant}_lpbs")) if ok else math.nan
            record[f"{variant}_lpbs_low"], record[f"{variant}_lpbs_high"] = low, high
            record[f"{variant}_lpbs_effect_size"] = num((lpbs.get(variant) or {}).get("effect_size")) if ok else math.nan
            record[f"{variant}_lpbs_n_targets"] = len((lpbs.get(variant) or {}).get("per_target") or {}) if ok else 0
        for key in (
            "gender_accuracy", "gender_accuracy_per_word", "stereotype_accuracy", "stereotype_accuracy_female",
            "stereotype_accuracy_male", "stereotype_accuracy_balanced", "stereotype_accuracy_word",
            "stereotype_accuracy_word_balanced", "stereotype_confidence", "randomization_p_value",
            "permutation_p_value", "permutation_p_value_balanced", "random_accuracy_mean", "random_accuracy_std",
            "brier_score", "expected_calibration_error",
        ):
            record[key] = num(probe.get(key))
        record["gender_accuracy_low"], record["gender_accuracy_high"] = interval(probe.get("gender_accuracy_ci"))
        record["stereotype_accuracy_low"], record["stereotype_accuracy_high"] = interval(probe.get("stereotype_accuracy_ci"))
        record["stereotype_accuracy_balanced_low"], record["stereotype_accuracy_balanced_high"] = interval(
            probe.get("stereotype_accuracy_balanced_ci"))
        mdl = _mdl(results, probe)
        record["mdl_compression"] = num(mdl.get("compression"))
        record["mdl_online_codelength"] = num(mdl.get("online_codelength"))
        record["mdl_uniform_codelength"] = num(mdl.get("uniform_codelength"))
        record["probe_setting"] = probe.get("setting")
        record["warnings"] = [str(w) for w in (results.get("warnings") or [])]
        record["per_layer"] = list(((results.get("per_layer") or {}).get("rows")) or [])
        record["probe_classifier"] = probe.get("classifier")
        record["probe_class_weight"] = probe.get("class_weight")
        record["probe_paper_setting"] = probe.get("paper_setting")
        record["probe_C"] = probe.get("C")
        record["n_randomizations"] = probe.get("n_randomizations")
        records.append(record)
    return records


def _short_reason(reason: Any) -> str:
    """Why LPBS was skipped, without the model path (so that runs with the same reason group)."""
    text = str(reason or "skipped")
    if "masked-lm head" in text.lower() or "mlm head" in text.lower():
        return "no masked-LM head (LPBS needs one; use a checkpoint saved with it, e.g. a *ForMaskedLM model)"
    return text


def _any(records: Sequence[Mapping[str, Any]], key: str) -> bool:
    return any(math.isfinite(num(r.get(key))) for r in records)


def _probe_setting(r: Mapping[str, Any]) -> str:
    if r.get("probe_setting"):
        return str(r["probe_setting"])
    if r.get("probe_classifier") is None:
        return DASH
    if r.get("probe_paper_setting"):
        return "paper (C=1, unweighted)"
    weight = r.get("probe_class_weight") or "unweighted"
    return f"{weight}, C={fmt(r.get('probe_C'), 3) if isinstance(r.get('probe_C'), (int, float)) else r.get('probe_C')}"


def _evidence_lines(runs: Sequence[Run]) -> list[str]:
    """The single-run summary's "evidence per word set" table, when the results carry evidence."""
    if not any(run.get("evidence") for _, run in runs):
        return []
    try:
        return list(summary_evidence_lines([label for label, _ in runs], [run for _, run in runs]))
    except (KeyError, TypeError, ValueError, AttributeError):  # a layout this version does not know
        return []


def _layer_table(runs: Sequence[Run], hh: str) -> list[str]:
    """Balanced (else plain) stereotype accuracy per hidden layer and run, with intervals."""
    with_layers = [(label, ((run.get("per_layer") or {}).get("rows")) or []) for label, run in runs]
    with_layers = [(label, rows) for label, rows in with_layers if rows]
    if not with_layers:
        return []
    balanced = any(math.isfinite(num(row.get("stereotype_accuracy_balanced"))) for _, rows in with_layers for row in rows)
    key = "stereotype_accuracy_balanced" if balanced else "stereotype_accuracy"
    layers = sorted({int(row["layer"]) for _, rows in with_layers for row in rows if row.get("layer") is not None})
    table = []
    for label, rows in with_layers:
        by_layer = {int(row["layer"]): row for row in rows if row.get("layer") is not None}
        cells = []
        for layer in layers:
            row = by_layer.get(layer) or {}
            low, high = interval(row.get(f"{key}_ci"))
            cells.append(fmt_ci(row.get(key), low, high, 2))
        table.append([label, *cells])
    name = "balanced stereotype accuracy" if balanced else "stereotype accuracy"
    return ["", f"{hh} Per layer: {name} [CI]", "",
            *markdown_table(["Model", *(f"L{layer}" for layer in layers)], table), "",
            "Layer 0 is the embedding output. Gender information hidden at the last layer can remain below it "
            "(the paper's hide-or-remove question); the figure shows gender accuracy and SEAT per layer too."]


def _table1(records: Sequence[Mapping[str, Any]], hh: str) -> list[str]:
    """Table 1: SEAT and LPBS with intervals, and which runs have no LPBS and why."""
    level = next((r["seat_confidence_level"] for r in records if math.isfinite(r["seat_confidence_level"])), 0.95)
    lines = [f"{hh} Table 1: SEAT and LPBS", ""]
    rows = []
    for r in records:
        rows.append([
            r["label"], fmt(r["seat_statistic"]),
            fmt_ci(r["seat_effect_size"], r["seat_effect_size_low"], r["seat_effect_size_high"]),
            fmt_p(r["seat_p_value"]),
            fmt_ci(r["attr_lpbs"], r["attr_lpbs_low"], r["attr_lpbs_high"]) if r["lpbs_status"] == "ok" else DASH,
            fmt_ci(r["target_lpbs"], r["target_lpbs_low"], r["target_lpbs_high"]) if r["lpbs_status"] == "ok" else DASH,
        ])
    lines += markdown_table(
        ["Model", "SEAT test statistic", f"SEAT effect size [{level:.0%} CI]", "SEAT p",
         f"attr-LPBS [{level:.0%} CI]", f"target-LPBS [{level:.0%} CI]"], rows)
    lines.append("")
    skipped = [r for r in records if r["lpbs_status"] != "ok"]
    if skipped:
        reasons: dict[str, list[str]] = {}
        for r in skipped:
            reasons.setdefault(_short_reason(r["lpbs_reason"]), []).append(r["label"])
        lines.append("LPBS not measured (—): " + "; ".join(f"{', '.join(names)}: {reason}" for reason, names in reasons.items())
                     + ".")
        lines.append("")
    lines.append(
        "SEAT (word level, Tan & Celis 2019): X/Y = female/male stereotype words, A/B = female/male attribute "
        "words; effect size with the sample sd (ddof=1) and a percentile bootstrap interval; one-sided "
        "permutation p. LPBS (Kurita et al. 2019): mean |log-probability bias| over targets and attribute "
        "pairs (lower is fairer); interval: percentile bootstrap over targets."
    )
    return lines


def _table2(records: Sequence[Mapping[str, Any]], hh: str) -> list[str]:
    """Table 2: the gender probe (the paper's columns, with intervals and the permutation p)."""
    lines = ["", f"{hh} Table 2: gender probe", ""]
    rows = []
    for r in records:
        random_ref = fmt_pm(r["random_accuracy_mean"], r["random_accuracy_std"], 2) if math.isfinite(r["random_accuracy_mean"]) else DASH
        rows.append([
            r["label"], fmt_ci(r["gender_accuracy"], r["gender_accuracy_low"], r["gender_accuracy_high"], 2),
            fmt_ci(r["stereotype_accuracy"], r["stereotype_accuracy_low"], r["stereotype_accuracy_high"], 2), random_ref,
            fmt(r["stereotype_confidence"], 2),
            fmt_p(r["randomization_p_value"]), fmt_p(r["permutation_p_value"]),
        ])
    lines += markdown_table(
        ["Model", "Gender acc. [CI]", "Stereotype acc. [CI]", "Random-label acc. (mean ± sd)", "Stereotype conf.",
         "Randomization p", "Permutation p"], rows)
    lines += [
        "",
        "Stereotype accuracy: share of stereotype-word occurrences given their stereotypical gender (0.5 is fair). "
        "Randomization p: the paper's one-sample t-test of the random-relabeling accuracies against the observed "
        "one (nearly always tiny with 100 relabelings). Permutation p: the share of random relabelings at least as "
        "extreme as the observed accuracy, (1 + #) / (1 + n) — the one to believe.",
    ]
    return lines


def _table2b(records: Sequence[Mapping[str, Any]], hh: str) -> list[str]:
    """Table 2b: the probe diagnostics present in the results (balanced, word-level, calibration, MDL)."""
    lines: list[str] = []
    extra = [
        ("stereotype_accuracy_balanced", "Balanced stereotype acc. [CI]"),
        ("stereotype_accuracy_female", "Stereotype acc. F / M"),
        ("stereotype_accuracy_word", "Word-level acc."),
        ("stereotype_accuracy_word_balanced", "Word-level balanced acc."),
        ("permutation_p_value_balanced", "Permutation p (balanced)"),
        ("brier_score", "Brier"),
        ("expected_calibration_error", "ECE"),
        ("mdl_compression", "MDL compression"),
    ]
    present = [(key, name) for key, name in extra if _any(records, key)]
    if not present:
        return lines
    lines += ["", f"{hh} Table 2b: probe diagnostics", ""]
    rows = []
    for r in records:
        row = [r["label"]]
        for key, _ in present:
            if key == "stereotype_accuracy_balanced":
                row.append(fmt_ci(r[key], r["stereotype_accuracy_balanced_low"], r["stereotype_accuracy_balanced_high"], 2))
            elif key == "stereotype_accuracy_female":
                row.append(f"{fmt(r['stereotype_accuracy_female'], 2)} / {fmt(r['stereotype_accuracy_male'], 2)}")
            elif key.startswith("permutation"):
                row.append(fmt_p(r[key]))
            elif key == "mdl_compression":
                row.append(fmt(r[key], 2))
            else:
                row.append(fmt(r[key], 3 if key in ("brier_score", "expected_calibration_error") else 2))
        rows.append(row)
    lines += markdown_table(["Model", *(name for _, name in present)], rows)
    lines += [
        "",
        "Balanced: mean of the female and male stereotype accuracies (0.5 for a probe that only learned a "
        "default gender). Word-level: each stereotype word counted once. Brier / ECE: held-out calibration of "
        "the probe's probabilities (low: its confidence can be trusted). MDL compression: uniform code length / "
        "online code length of the gender labels (Voita & Titov 2020; higher: more gender information).",
        "",
    ]
    lines += [f"- Probe of {r['label']}: {_probe_setting(r)}." for r in records if _probe_setting(r) != DASH]
    return lines


def _thin_evidence_lines(records: Sequence[Mapping[str, Any]]) -> list[str]:
    lines: list[str] = []
    warned = [(r["label"], w) for r in records for w in r.get("warnings") or []]
    if warned:
        lines += ["", "Thin evidence (see each run's summary.md):", ""]
        lines += [f"- **Warning** ({label}): {note}" for label, note in warned]
    return lines


def _standard_tests_table(runs: Sequence[Run], hh: str) -> list[str]:
    """The standard SEAT gender tests (sentence level) of every run, when any was run."""
    lines: list[str] = []
    tests = list(dict.fromkeys(name for _, run in runs for name in ((run.get("seat") or {}).get("standard_tests") or {})))
    if tests:
        lines += ["", f"{hh} Standard SEAT gender tests (sentence level): effect size [CI] (p)", ""]
        rows = []
        for label, run in runs:
            standard = (run.get("seat") or {}).get("standard_tests") or {}
            cells = []
            for t in tests:
                s = standard.get(t)
                if not s:
                    cells.append(DASH)
                    continue
                low, high = interval(s.get("effect_size_ci"))
                cells.append(f"{fmt_ci(s.get('effect_size'), low, high, 2)} ({fmt_p(s.get('p_value'))})")
            rows.append([label, *cells])
        lines += markdown_table(["Model", *tests], rows)
    return lines


def _provenance_lines(runs: Sequence[Run], hh: str) -> list[str]:
    lines = ["", f"{hh} Runs", ""]
    for label, run in runs:
        prov = run.get("provenance") or {}
        model = prov.get("model") or {}
        seeds = (prov.get("seeds") or {}).get("random_state")
        params = prov.get("parameters") or {}
        lines.append(
            f"- {label}: model {model.get('name_or_path', DASH)}, fingerprint {model.get('fingerprint', DASH)}, "
            f"corpus {params.get('corpus', DASH)}, seed {seeds if seeds is not None else DASH}, "
            f"probekit {prov.get('probekit_version', DASH)}"
        )
    return lines


def intrinsic_markdown(
    runs: Sequence[Run],
    *,
    title: str | None = "probekit intrinsic comparison",
    heading_level: int = 1,
    records: Sequence[Mapping[str, Any]] | None = None,
    figures: Mapping[str, str] | None = None,
    provenance: bool = True,
) -> str:
    r"""Markdown Tables 1 and 2 (Tokpo et al. 2023) for several runs, plus the standard SEAT tests.

    Table 1: SEAT test statistic :math:`\sum_{x\in X} s(x,A,B) - \sum_{y\in Y} s(y,A,B)`, effect
    size :math:`(\bar s_X - \bar s_Y)/\mathrm{sd}_{X\cup Y}(s)` with its bootstrap interval,
    permutation p-value, attr-LPBS and target-LPBS with bootstrap intervals over targets ("—" and the
    reason where the checkpoint has no masked-LM head). Table 2: gender accuracy, stereotype
    accuracy (fair: 0.5), stereotype confidence :math:`\mathrm{mean}_i|p_f(e_i) - 0.5|`, the
    randomization-test and permutation p-values; a further table shows the balanced / word-level
    accuracies, calibration and MDL when the results carry them.

    Parameters
    ----------
    runs : sequence of (label, results) pairs
    title : str or None
        Heading of the document (``None``: no heading, for embedding in a larger report).
    heading_level : int
        Markdown level of ``title``; tables get the next level.
    records : sequence of dict, optional
        :func:`intrinsic_records` of ``runs`` (computed when not given).
    figures : mapping of str to str, optional
        Figure name -> relative path of a PNG to reference under the tables.
    provenance : bool
        List each run's model fingerprint, probekit version and seeds.
    """
    runs = list(runs)
    records = list(records) if records is not None else intrinsic_records(runs)
    h = "#" * heading_level
    hh = "#" * (heading_level + 1)
    lines: list[str] = []
    if title:
        lines += [f"{h} {title}", ""]
    if not runs:
        return "\n".join(lines + ["No intrinsic results.", ""])
    lines += _table1(records, hh)
    lines += _table2(records, hh)
    lines += _table2b(records, hh)
    lines += _thin_evidence_lines(records)
    lines += _standard_tests_table(runs, hh)
    evidence = _evidence_lines(runs)
    if evidence:
        lines += [line.replace("## Evidence per word set", f"{hh} Evidence per word set", 1) for line in evidence]
    layers = _layer_table(runs, hh)
    if layers:
        lines += layers
    if figures:
        lines.append("")
        for caption, path in figures.items():
            lines += [f"![{caption}]({path})", ""]
    if provenance:
        lines += _provenance_lines(runs, hh)
    return "\n".join(lines).rstrip() + "\n"


# ----------------------------------------------------------------------------------------- figures


def _errors(values: np.ndarray, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Asymmetric error bars (2, n) from interval bounds; zero where the interval is missing."""
    below = np.where(np.isfinite(low) & np.isfinite(values), values - low, 0.0)
    above = np.where(np.isfinite(high) & np.isfinite(values), high - values, 0.0)
    return np.vstack([np.clip(below, 0, None), np.clip(above, 0, None)])


def _col(records: Sequence[Mapping[str, Any]], key: str) -> np.ndarray:
    return np.array([num(r.get(key)) for r in records], dtype=float)


def _row_height(n: int) -> float:
    return max(2.6, 0.55 * n + 1.4)


def _rows(ax: Any, records: Sequence[Mapping[str, Any]], labels: bool) -> None:
    """One row per run, the first at the top; run labels only where asked (panels are not
    axis-shared, so each one sets its own rows).
    """
    ax.set_yticks(np.arange(len(records)), [wrap(r["label"]) for r in records] if labels else [""] * len(records),
                  fontsize=8)
    ax.set_ylim(len(records) - 0.5, -0.5)


def _seat_panel(ax: Any, records: Sequence[Mapping[str, Any]]) -> None:
    y = np.arange(len(records))
    d = _col(records, "seat_effect_size")
    ax.barh(y, np.nan_to_num(d), 0.6, color="#4c72b0",
            xerr=_errors(d, _col(records, "seat_effect_size_low"), _col(records, "seat_effect_size_high")),
            capsize=3, error_kw={"elinewidth": 1})
    ax.axvline(0, color="grey", linewidth=0.8)
    _rows(ax, records, True)
    ax.set_xlabel("SEAT effect size (95% bootstrap CI)", fontsize=9)
    ax.set_title("SEAT effect size (0 = unbiased)", fontsize=10)


def _lpbs_panel(ax: Any, records: Sequence[Mapping[str, Any]], *, labels: bool = False) -> None:
    y = np.arange(len(records))
    h = 0.36
    if not any(r["lpbs_status"] == "ok" for r in records):
        ax.text(0.5, 0.5, "LPBS not measured:\nno checkpoint here has a masked-LM head", ha="center", va="center",
                transform=ax.transAxes, fontsize=9, color="#555555")
        ax.set_xticks([])
        _rows(ax, records, labels)
        ax.set_title("LPBS", fontsize=10)
        return
    for k, (variant, color) in enumerate((("attr", "#dd8452"), ("target", "#55a868"))):
        v = _col(records, f"{variant}_lpbs")
        ok = np.isfinite(v)
        ax.barh((y + (k - 0.5) * h)[ok], v[ok], h, color=color, label=f"{variant}-LPBS",
                xerr=_errors(v, _col(records, f"{variant}_lpbs_low"), _col(records, f"{variant}_lpbs_high"))[:, ok],
                capsize=3, error_kw={"elinewidth": 1})
    for i, r in enumerate(records):
        if r["lpbs_status"] != "ok":
            ax.text(0.01, i, "— not measured (no masked-LM head)" if "head" in str(r.get("lpbs_reason") or "").lower()
                    else "— not measured", transform=ax.get_yaxis_transform(), va="center", fontsize=8, color="#555555")
    _rows(ax, records, labels)
    ax.set_xlabel("LPBS (bootstrap CI over targets; lower is fairer)", fontsize=9)
    ax.set_title("LPBS", fontsize=10)
    ax.legend(fontsize=8, loc="lower right")


_PROBE_BARS = (
    ("gender_accuracy", "gender acc.", "#4c72b0"),
    ("stereotype_accuracy", "stereotype acc.", "#c44e52"),
    ("random_accuracy_mean", "stereotype acc. under random relabeling (mean ± 2 sd)", "#cccccc"),
    ("stereotype_accuracy_balanced", "balanced stereotype acc.", "#8172b3"),
    ("stereotype_confidence", "stereotype confidence", "#937860"),
)


def _probe_panel(ax: Any, records: Sequence[Mapping[str, Any]], *, labels: bool = True) -> None:
    bars = [(key, name, color) for key, name, color in _PROBE_BARS if _any(records, key)]
    y = np.arange(len(records))
    h = 0.8 / max(len(bars), 1)
    for k, (key, name, color) in enumerate(bars):
        v = _col(records, key)
        if key == "random_accuracy_mean":  # the randomization test's reference distribution
            sd = np.nan_to_num(2 * _col(records, "random_accuracy_std"))
            err = np.vstack([sd, sd])
        else:
            err = _errors(v, _col(records, f"{key}_low"), _col(records, f"{key}_high"))
        ax.barh(y + (k - (len(bars) - 1) / 2) * h, np.nan_to_num(v), h, color=color, label=name, xerr=err,
                capsize=2, error_kw={"elinewidth": 1}, hatch="//" if key == "random_accuracy_mean" else None,
                edgecolor="#888888" if key == "random_accuracy_mean" else None)
    ax.axvline(0.5, color="grey", linestyle="--", linewidth=1, label="fair stereotype acc. (0.5)")
    ax.set_xlim(0, 1.05)
    _rows(ax, records, labels)
    ax.set_xlabel("score (error bars: word-bootstrap CI where saved)", fontsize=9)
    ax.set_title("Gender probe: removed or hidden?", fontsize=10)
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)


def plot_seat_lpbs(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Figure 2 style: SEAT effect size and attr-/target-LPBS per method, side by side (same rows),
    so disagreements between the two measures are visible. PNG at ``path``.
    """
    plt = pyplot()
    fig, axes = plt.subplots(1, 2, figsize=(12, _row_height(len(records))))
    _seat_panel(axes[0], records)
    _lpbs_panel(axes[1], records)
    fig.suptitle("Do SEAT and LPBS agree? (Tokpo et al. 2023, Fig. 2 style)", fontsize=11)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_lpbs_attr_target(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Figure 3 style: attr-LPBS against target-LPBS, one point per run with both bootstrap
    intervals; the diagonal marks equal scores. Runs without LPBS are listed under the plot.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 6))
    measured = [r for r in records if r["lpbs_status"] == "ok" and math.isfinite(num(r["attr_lpbs"]))]
    colors = plt.get_cmap("tab10")
    for i, r in enumerate(measured):
        x, y = r["attr_lpbs"], r["target_lpbs"]
        ax.errorbar([x], [y], xerr=_errors(np.array([x]), np.array([r["attr_lpbs_low"]]), np.array([r["attr_lpbs_high"]])),
                    yerr=_errors(np.array([y]), np.array([r["target_lpbs_low"]]), np.array([r["target_lpbs_high"]])),
                    fmt="o", color=colors(i % 10), capsize=3, label=wrap(r["label"], 40))
    if measured:
        values = [v for r in measured for v in (r["attr_lpbs_low"], r["attr_lpbs_high"], r["target_lpbs_low"],
                                                  r["target_lpbs_high"], r["attr_lpbs"], r["target_lpbs"]) if math.isfinite(v)]
        pad = 0.08 * (max(values) - min(values)) + 1e-3
        lo, hi = min(values) - pad, max(values) + pad
        ax.plot([lo, hi], [lo, hi], color="grey", linestyle=":", linewidth=1, label="attr = target")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_aspect("equal")
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    else:
        ax.text(0.5, 0.5, "no run has LPBS\n(no masked-LM head)", ha="center", va="center", transform=ax.transAxes)
    missing = [r["label"] for r in records if r not in measured]
    if missing:
        ax.set_title("attr- vs target-LPBS (not measured: " + ", ".join(missing)[:90] + ")", fontsize=9)
    else:
        ax.set_title("attr- vs target-LPBS (95% bootstrap CI over targets)", fontsize=10)
    ax.set_xlabel("attr-LPBS")
    ax.set_ylabel("target-LPBS")
    fig.tight_layout()
    return save_figure(fig, path)


def plot_probe_bars(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Figure 4 style: gender accuracy, stereotype accuracy (with the random-relabeling reference),
    balanced stereotype accuracy and confidence per run, with the saved intervals. PNG at ``path``.
    """
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(9, _row_height(len(records)) + 1.0))
    _probe_panel(ax, records)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_intrinsic_overview(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """SEAT effect size, LPBS and the probe bars in one figure with a shared row per run."""
    plt = pyplot()
    fig, axes = plt.subplots(1, 3, figsize=(17, _row_height(len(records)) + 1.0))
    _seat_panel(axes[0], records)
    _lpbs_panel(axes[1], records)
    _probe_panel(axes[2], records, labels=False)
    fig.tight_layout()
    return save_figure(fig, path)


def plot_layer_comparison(records: Sequence[Mapping[str, Any]], path: str | os.PathLike) -> Path:
    """Per-layer curves of several runs (``results.json["per_layer"]``, from ``probekit probe
    --layers``): gender accuracy, balanced (else plain) stereotype accuracy and SEAT effect size,
    one line per run with its bootstrap band. PNG at ``path``.
    """
    plt = pyplot()
    runs = [(r["label"], r.get("per_layer") or []) for r in records if r.get("per_layer")]
    balanced = any(math.isfinite(num(row.get("stereotype_accuracy_balanced"))) for _, rows in runs for row in rows)
    panels = (("gender_accuracy", "gender accuracy", (0, 1.05)),
              ("stereotype_accuracy_balanced" if balanced else "stereotype_accuracy",
               "balanced stereotype accuracy" if balanced else "stereotype accuracy", (0, 1.05)),
              ("seat_effect_size", "SEAT effect size", None))
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.3))
    colors = plt.get_cmap("tab10")
    for ax, (key, name, limits) in zip(axes, panels):
        for i, (label, rows) in enumerate(runs):
            x = np.array([num(row.get("layer")) for row in rows])
            y = np.array([num(row.get(key)) for row in rows])
            bounds = np.array([interval(row.get(f"{key}_ci")) for row in rows]).reshape(-1, 2)
            ax.plot(x, y, marker="o", markersize=3, color=colors(i % 10), label=wrap(label, 40))
            ax.fill_between(x, bounds[:, 0], bounds[:, 1], color=colors(i % 10), alpha=0.15, linewidth=0)
        ax.axhline(0.5 if limits else 0.0, color="grey", linestyle="--", linewidth=1)
        if limits:
            ax.set_ylim(*limits)
        ax.set_xlabel("hidden layer (0 = embeddings)", fontsize=9)
        ax.set_title(f"{name} per layer (95% bootstrap band)", fontsize=10)
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 3), fontsize=8, frameon=False)
    fig.tight_layout(rect=(0, 0.06 + 0.04 * ((len(labels) - 1) // 3), 1, 1))
    return save_figure(fig, path)


#: File names of the intrinsic figures and their captions.
INTRINSIC_FIGURES = {
    "seat_lpbs": "SEAT effect size and LPBS per method (Fig. 2 style)",
    "lpbs_attr_target": "attr- vs target-LPBS (Fig. 3 style)",
    "probe": "Gender probe per method (Fig. 4 style)",
    "probe_layers": "Gender probe and SEAT per hidden layer",
}


def intrinsic_figures(records: Sequence[Mapping[str, Any]], out_dir: str | os.PathLike, *, prefix: str = "") -> dict[str, Path]:
    """Write the Figure 2-4 style PNGs into ``out_dir`` (Figure 3 only when some run has LPBS; the
    per-layer figure when some run has per-layer results). Returns caption -> path.
    """
    out = Path(out_dir)
    paths = {INTRINSIC_FIGURES["seat_lpbs"]: plot_seat_lpbs(records, out / f"{prefix}seat_lpbs.png")}
    if any(r["lpbs_status"] == "ok" for r in records):
        paths[INTRINSIC_FIGURES["lpbs_attr_target"]] = plot_lpbs_attr_target(records, out / f"{prefix}lpbs_attr_target.png")
    paths[INTRINSIC_FIGURES["probe"]] = plot_probe_bars(records, out / f"{prefix}probe.png")
    if any(r.get("per_layer") for r in records):
        paths[INTRINSIC_FIGURES["probe_layers"]] = plot_layer_comparison(records, out / f"{prefix}probe_layers.png")
    return paths


def write_intrinsic_comparison(
    runs: Sequence[Run],
    out_dir: str | os.PathLike,
    *,
    title: str = "probekit intrinsic comparison",
    sources: Sequence[str | None] | None = None,
    n_bootstrap: int = 1000,
    random_state: int = 0,
) -> dict[str, Path]:
    """Write a comparison of several ``probekit probe`` results into ``out_dir``.

    Files: ``comparison.md`` (Tables 1, 2 and 2b, the standard SEAT tests, figure links),
    ``comparison.png`` (overview: SEAT, LPBS and the probe, one row per run),
    ``figures/seat_lpbs.png``, ``figures/lpbs_attr_target.png`` (when some run has LPBS),
    ``figures/probe.png``, ``figures/probe_layers.png`` (when some run has per-layer results) and
    ``comparison.json`` (the flat records behind the tables). Every file is
    written atomically.

    Parameters
    ----------
    runs : sequence of (label, results) pairs
        ``results``: a ``results.json`` dict (:func:`probekit.report._summary.load_results`).
    out_dir : path
    title : str
    sources : sequence of str, optional
        Where each run's ``results.json`` lies (relative to ``out_dir`` where possible); saved in
        ``comparison.json`` so that ``probekit report`` can rebuild the comparison.
    n_bootstrap, random_state
        Bootstrap of the LPBS intervals over targets.

    Returns
    -------
    dict
        ``"markdown"``, ``"overview"``, ``"records"`` and one entry per figure -> path.
    """
    runs = [(str(label), results) for label, results in runs]
    if not runs:
        raise InvalidParameterError("runs", [], "at least one (label, results) pair")
    labels = [label for label, _ in runs]
    if len(set(labels)) != len(labels):
        raise InvalidParameterError("runs", labels, "distinct labels")
    out = Path(out_dir)
    records = intrinsic_records(runs, n_bootstrap=n_bootstrap, random_state=random_state)
    if sources is not None:
        if len(sources) != len(runs):
            raise InvalidParameterError("sources", f"{len(sources)} paths", f"one per run ({len(runs)})")
        for record, source in zip(records, sources):
            record["results"] = None if source is None else str(source)
    figures = intrinsic_figures(records, out / "figures")
    paths: dict[str, Path] = {"overview": plot_intrinsic_overview(records, out / "comparison.png")}
    links = {"Overview: SEAT, LPBS and the probe per run": "comparison.png"}
    links.update({caption: f"figures/{path.name}" for caption, path in figures.items()})
    paths["markdown"] = atomic_write_text(out / "comparison.md", intrinsic_markdown(runs, title=title, records=records, figures=links))
    paths["records"] = write_json(out / "comparison.json", {"runs": records})
    paths.update({path.stem: path for path in figures.values()})
    return paths
