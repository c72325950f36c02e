r"""Intrinsic tables of several checkpoints: Tokpo et al. (2023) Tables 1-2 as :class:`probekit.utils.Table` blocks.

One flat record per run (:func:`intrinsic_records`) and one builder per table; the single-run
``summary.md``, the comparison and the study report all render Tables 1-2 from these builders.

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
from typing import Any, Mapping, Sequence

import numpy as np

from probekit.report._format import DASH, fmt, fmt_ci, fmt_p, fmt_pm, interval, num
from probekit.report._tables import Block
from probekit.stats import bootstrap_ci
from probekit.utils import Table

__all__ = ["intrinsic_records", "INTRINSIC_MEASURES", "Run"]

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


def _layer_table(runs: Sequence[Run], hh: str) -> list[Block]:
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
            Table(["Model", *(f"L{layer}" for layer in layers)], table), "",
            "Layer 0 is the embedding output. Gender information hidden at the last layer can remain below it "
            "(the paper's hide-or-remove question); the figure shows gender accuracy and SEAT per layer too."]


def _table1(records: Sequence[Mapping[str, Any]], hh: str) -> list[Block]:
    """Table 1: SEAT and LPBS with intervals, and which runs have no LPBS and why."""
    level = next((r["seat_confidence_level"] for r in records if math.isfinite(r["seat_confidence_level"])), 0.95)
    lines: list[Block] = [f"{hh} Table 1: SEAT and LPBS", ""]
    rows = []
    for r in records:
        rows.append([
            r["label"], fmt(r["seat_statistic"]),
            fmt_ci(r["seat_effect_size"], r["seat_effect_size_low"], r["seat_effect_size_high"]),
            fmt_p(r["seat_p_value"]),
            fmt_ci(r["attr_lpbs"], r["attr_lpbs_low"], r["attr_lpbs_high"]) if r["lpbs_status"] == "ok" else DASH,
            fmt_ci(r["target_lpbs"], r["target_lpbs_low"], r["target_lpbs_high"]) if r["lpbs_status"] == "ok" else DASH,
        ])
    lines.append(Table(
        ["Model", "SEAT test statistic", f"SEAT effect size [{level:.0%} CI]", "SEAT p",
         f"attr-LPBS [{level:.0%} CI]", f"target-LPBS [{level:.0%} CI]"], rows))
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


def _table2(records: Sequence[Mapping[str, Any]], hh: str) -> list[Block]:
    """Table 2: the gender probe (the paper's columns, with intervals and the permutation p)."""
    lines: list[Block] = ["", f"{hh} Table 2: gender probe", ""]
    rows = []
    for r in records:
        random_ref = fmt_pm(r["random_accuracy_mean"], r["random_accuracy_std"], 2) if math.isfinite(r["random_accuracy_mean"]) else DASH
        rows.append([
            r["label"], fmt_ci(r["gender_accuracy"], r["gender_accuracy_low"], r["gender_accuracy_high"], 2),
            fmt_ci(r["stereotype_accuracy"], r["stereotype_accuracy_low"], r["stereotype_accuracy_high"], 2), random_ref,
            fmt(r["stereotype_confidence"], 2),
            fmt_p(r["randomization_p_value"]), fmt_p(r["permutation_p_value"]),
        ])
    lines.append(Table(
        ["Model", "Gender acc. [CI]", "Stereotype acc. [CI]", "Random-label acc. (mean ± sd)", "Stereotype conf.",
         "Randomization p", "Permutation p"], rows))
    lines += [
        "",
        "Stereotype accuracy: share of stereotype-word occurrences given their stereotypical gender (0.5 is fair). "
        "Randomization p: the paper's one-sample t-test of the random-relabeling accuracies against the observed "
        "one (nearly always tiny with 100 relabelings). Permutation p: the share of random relabelings at least as "
        "extreme as the observed accuracy, (1 + #) / (1 + n) — the one to believe.",
    ]
    return lines


def _table2b(records: Sequence[Mapping[str, Any]], hh: str) -> list[Block]:
    """Table 2b: the probe diagnostics present in the results (balanced, word-level, calibration, MDL)."""
    lines: list[Block] = []
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
    lines.append(Table(["Model", *(name for _, name in present)], rows))
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


def _standard_tests_table(runs: Sequence[Run], hh: str) -> list[Block]:
    """The standard SEAT gender tests (sentence level) of every run, when any was run."""
    lines: list[Block] = []
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
        lines.append(Table(["Model", *tests], rows))
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

