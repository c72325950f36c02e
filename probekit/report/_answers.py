"""The paper's three questions answered in plain language for one study, from its saved results.

Tokpo et al. (2023) ask (1) whether debiasing an encoder removes gender information or only hides
it, (2) whether intrinsic bias measures predict extrinsic ones, and (3) whether intrinsic debiasing
makes a downstream classifier fairer. :func:`answers_markdown` writes one short paragraph per
question at the top of the study report, each number taken from the tables below it:

1. the intrinsic gender probe of every debiased encoder beside its base, and the downstream
   leakage (the test examples' gender read from the fine-tuned classifier's representation, original
   training data): chance (0.5) inside the interval means removed, above it means still there;
2. how many intrinsic x extrinsic rank correlations have p < 1 - confidence, out of how many;
3. each method's original-data TPRD against the base's, as a paired t-interval over the shared
   folds (a difference counts only when the interval excludes 0), likewise each task-time
   intervention (scrubbed, swapped, balanced, adversarial training of the base encoder), and
   whether the base's TPRD and CF exceed their noise floors (shuffled gender; same-gender renaming).

Where a study lacks the results a question needs, its paragraph says what is missing.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, Sequence

from probekit.report._format import num
from probekit.stats import t_interval

__all__ = ["answers_markdown"]


def _original(groups: Sequence[Mapping[str, Any]], encoder: str, method: str) -> Mapping[str, Any] | None:
    """The fine-tuning group of (encoder, method) on the original training data (first dataset)."""
    for g in groups:
        if str(g["encoder"]) == encoder and str(g["method"]) == method and g["setting"] == "original":
            return g
    return None


def _hidden_sentence(record: Mapping[str, Any], base: Mapping[str, Any] | None,
                     leakage: Mapping[str, Any] | None) -> str:
    method, encoder = record["method"], record["encoder"]
    acc = num(record.get("gender_accuracy"))
    text = f"{method} ({encoder}): intrinsic gender probe accuracy {acc:.2f}"
    if base is not None:
        text += f" (base {num(base.get('gender_accuracy')):.2f})"
    stats = ((leakage or {}).get("representation") or {}).get("balanced_accuracy") or {}
    # a balanced accuracy lies in [0, 1]; its t-interval over few folds can pass 1
    mean, low, high = num(stats.get("mean")), max(num(stats.get("low")), 0.0), min(num(stats.get("high")), 1.0)
    if not math.isfinite(mean):
        return text + "; no downstream leakage measured."
    text += f"; after fine-tuning the classifier's representation reads gender at {mean:.2f} balanced accuracy"
    if math.isfinite(low) and low > 0.5:
        return text + f" ([{low:.2f}, {high:.2f}], above chance): gender is still there downstream."
    return text + f" ([{low:.2f}, {high:.2f}], chance inside): no gender found downstream."


def _question_one(records: Sequence[Mapping[str, Any]], groups: Sequence[Mapping[str, Any]]) -> list[str]:
    debiased = [r for r in records if r.get("method") not in (None, "none")]
    if not debiased:
        return ["**Removed or only hidden?** Not answered: the study has no debiased encoder with intrinsic results."]
    bases = {str(r["encoder"]): r for r in records if r.get("method") == "none"}
    sentences = []
    for record in debiased:
        group = _original(groups, str(record["encoder"]), str(record["method"]))
        leakage = (group["run"].get("summary") or {}).get("leakage") if group else None
        sentences.append(_hidden_sentence(record, bases.get(str(record["encoder"])), leakage))
    return ["**Removed or only hidden?**", ""] + [f"- {sentence}" for sentence in sentences]


def _question_two(correlations: Sequence[Mapping[str, Any]], confidence: float) -> list[str]:
    tested = [c for c in correlations if math.isfinite(num(c.get("spearman_p")))]
    if not tested:
        return ["**Does intrinsic bias predict extrinsic bias?** Not answered: too few encoder x method "
                "combinations with both intrinsic and fine-tuning results."]
    alpha = 1 - confidence
    hits = [c for c in tested if num(c["spearman_p"]) < alpha]
    largest = max(tested, key=lambda c: abs(num(c.get("spearman"))))
    n_points = max(int(c.get("n") or 0) for c in tested)
    return [f"**Does intrinsic bias predict extrinsic bias?** {len(hits)} of {len(tested)} intrinsic x extrinsic "
            f"rank correlations have p < {alpha:g} (Spearman, at most {n_points} points each); the strongest is "
            f"ρ = {num(largest.get('spearman')):.2f} ({largest.get('intrinsic_name', largest.get('intrinsic'))} vs "
            f"{largest.get('extrinsic_name', largest.get('extrinsic'))}). With so few points, read these as "
            "indications, not evidence."]


def _paired(group: Mapping[str, Any], base: Mapping[str, Any], confidence: float, metric: str = "tprd"
            ) -> dict[str, float] | None:
    """Paired t-interval over the shared folds of (group's metric - base's metric)."""
    by_fold = {f.get("fold"): num((f.get("metrics") or {}).get(metric)) for f in base["run"]["folds"]}
    diffs = [num((f.get("metrics") or {}).get(metric)) - by_fold[f.get("fold")]
             for f in group["run"]["folds"] if f.get("fold") in by_fold]
    diffs = [d for d in diffs if math.isfinite(d)]
    return t_interval(diffs, confidence) if len(diffs) >= 2 else None


def _floor_clause(summary: Mapping[str, Any], metric: str, floor_name: str) -> str:
    """", above its <floor> (0.161)" for a metric with a floor; empty without one."""
    floor = ((summary.get("noise_floor") or {}).get(metric)) or {}
    if not floor:
        return ""
    return (f", {'above' if floor.get('exceeds') else 'not above'} its {floor_name} "
            f"({num((floor.get('floor') or {}).get('mean')):.3f})")


def _verdict(paired: Mapping[str, float]) -> str:
    return ("lower, beyond fold noise" if paired["high"] < 0 else
            "higher, beyond fold noise" if paired["low"] > 0 else "no difference beyond fold noise")


def _base_sentence(encoder: str, base: Mapping[str, Any]) -> str:
    summary = base["run"]["summary"]
    metrics = summary.get("metrics") or {}
    text = (f"Base ({encoder}): TPRD {num((metrics.get('tprd') or {}).get('mean')):.3f}"
            + _floor_clause(summary, "tprd", "shuffled-gender noise floor"))
    cf = num((metrics.get("cf") or {}).get("mean"))
    if math.isfinite(cf):
        text += f"; CF {cf:.3f}" + _floor_clause(summary, "cf", "same-gender renaming floor")
    return text + "."


def _compared(groups: Sequence[Mapping[str, Any]], base: Mapping[str, Any], encoder: str, confidence: float,
              *, methods: bool) -> list[str]:
    """One sentence per debiasing method on the original data (``methods``) or per other setting
    of the base encoder: its TPRD against the base's, paired over folds.
    """
    sentences = []
    for g in groups:
        if str(g["encoder"]) != encoder or g is base:
            continue
        if methods and (g["setting"] != "original" or g["method"] == "none"):
            continue
        if not methods and (g["method"] != "none" or g["setting"] == "original"):
            continue
        paired = _paired(g, base, confidence)
        if paired is None:
            continue
        who = g["method"] if methods else f"{g['setting']} training (base encoder)"
        sentences.append(f"{who}: TPRD {paired['mean']:+.3f} [{paired['low']:+.3f}, {paired['high']:+.3f}] "
                         f"against the base ({_verdict(paired)}).")
    return sentences


def _question_three(groups: Sequence[Mapping[str, Any]], confidence: float) -> list[str]:
    bases = {str(g["encoder"]): g for g in groups if g["method"] == "none" and g["setting"] == "original"}
    if not bases:
        return ["**Does intrinsic debiasing make the classifier fairer?** Not answered: no fine-tuning of the "
                "base encoder on the original data."]
    sentences = []
    for encoder, base in bases.items():
        sentences.append(_base_sentence(encoder, base))
        sentences += _compared(groups, base, encoder, confidence, methods=True)
        sentences += _compared(groups, base, encoder, confidence, methods=False)
    return ["**Does intrinsic debiasing make the classifier fairer?**", ""] + [f"- {sentence}" for sentence in sentences]


def answers_markdown(records: Sequence[Mapping[str, Any]], groups: Sequence[Mapping[str, Any]],
                     correlations: Sequence[Mapping[str, Any]], *, confidence: float = 0.95) -> list[str]:
    """The "In short" section: one paragraph per question of Tokpo et al. (2023) (module docstring).

    Parameters
    ----------
    records : sequence of dict
        Intrinsic records (``encoder``, ``method``, ``gender_accuracy``, ...).
    groups : sequence of dict
        Fine-tuning groups (:func:`probekit.report.finetune_groups`).
    correlations : sequence of dict
        :func:`probekit.report.rank_correlations` rows.
    confidence : float
        Level of the intervals and of the significance threshold ``1 - confidence``.
    """
    if not records and not groups:
        return []
    lines = ["## In short", ""]
    for paragraph in (_question_one(records, groups), _question_two(correlations, confidence),
                      _question_three(groups, confidence)):
        lines += paragraph + [""]
    return lines
