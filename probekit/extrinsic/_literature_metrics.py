"""The literature's extrinsic fairness metrics, declared as parameterizations of the generalized metrics.

One table, one row per metric (Czarnowska, Vyas & Shah 2021, Table 1): scoring function ``phi``,
comparison ``d``, combination ``kind`` (PCM/BCM/VBCM/MCM), normalization N, background and version
(group or counterfactual). Nothing here computes anything: :func:`literature_metric` hands the row to
the one engine in :mod:`probekit.extrinsic._generalized`.

Where the original paper normalized differently from the corrected definition, both rows exist:
the plain name is the original, ``*_normalized`` the corrected one (``fped`` sums over groups as
Dixon et al. 2018 did; ``fped_normalized`` divides by |T|).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from types import MappingProxyType
from typing import Any, Mapping, Sequence

from probekit.errors import InvalidParameterError
from probekit.extrinsic._generalized import result_from_encoded
from probekit.extrinsic._inputs import encode_inputs
from probekit.extrinsic._metric_spec import MetricResult, evaluated_classes

__all__ = ["LiteratureMetric", "LITERATURE_METRICS", "literature_metric"]


@dataclass(frozen=True)
class LiteratureMetric:
    """One literature metric as a parameterization of the generalized metrics."""

    name: str
    title: str
    source: str
    phi: str
    d: str
    kind: str
    normalization: str | None = None
    background: str | None = None
    version: str = "group"
    two_groups: bool = False  # defined in the literature for exactly two groups
    note: str = ""

    def to_dict(self) -> dict:
        """The table entry as a JSON-ready dict (every field)."""
        return asdict(self)


_DIXON = "Dixon et al. 2018, Measuring and mitigating unintended bias in text classification"
_HUANG = "Huang et al. 2020, Reducing sentiment bias in language models via counterfactual evaluation"
_BEUTEL = "Beutel et al. 2019, Putting fairness principles into practice"
_BORKAN = "Borkan et al. 2019, Nuanced metrics for measuring unintended bias"
_GAUT = "Gaut et al. 2020, Towards understanding gender bias in relation extraction"
_DEARTEAGA = "De-Arteaga et al. 2019, Bias in bios"
_PROST = "Prost et al. 2019, Debiasing embeddings for reduced gender bias in text classification"
_BEUTEL17 = "Beutel et al. 2017, Data decisions and theoretical implications when adversarially learning fair representations"
_STANOVSKY = "Stanovsky et al. 2019; Saunders & Byrne 2020 (accuracy difference)"
_ZHAO = "Zhao et al. 2018 / Webster et al. 2018 (F1 difference and ratio on gendered coreference)"
_RECALL = "Zhao et al. 2017 / Garimella et al. 2019 (recall / TPR difference)"
_GARG = "Garg et al. 2019, Counterfactual fairness in text classification through robustness"
_PRABHAKARAN = "Prabhakaran et al. 2019, Perturbation sensitivity analysis to detect unintended model biases"
_QIAN = "Qian et al. 2019, Reducing gender bias in word-level language models (average score difference)"
_TOKPO = "Tokpo et al. 2023, How far can it go? (counterfactual fairness CF)"

_ROWS: tuple[LiteratureMetric, ...] = (
    # ----- group fairness, prediction based
    LiteratureMetric("fped", "False Positive Equality Difference (original, N = 1)", _DIXON,
                     "fpr", "absdiff", "bcm", "none", "all",
                     note="sum over groups of |FPR(all) - FPR(group)|"),
    LiteratureMetric("fped_normalized", "False Positive Equality Difference (corrected, N = |T|)", _DIXON + "; Czarnowska et al. 2021",
                     "fpr", "absdiff", "bcm", "groups", "all"),
    LiteratureMetric("fned", "False Negative Equality Difference (original, N = 1)", _DIXON,
                     "fnr", "absdiff", "bcm", "none", "all"),
    LiteratureMetric("fned_normalized", "False Negative Equality Difference (corrected, N = |T|)", _DIXON + "; Czarnowska et al. 2021",
                     "fnr", "absdiff", "bcm", "groups", "all"),
    LiteratureMetric("fpr_ratio", "False positive rate ratio FPR(group) / FPR(rest), per group", _BEUTEL,
                     "fpr", "ratio_inv", "vbcm", None, "rest"),
    LiteratureMetric("disparity_score", "Disparity Score (original, N = |T| / 2)", _GAUT,
                     "f1", "absdiff", "pcm", "half_groups"),
    LiteratureMetric("disparity_score_normalized", "Disparity Score (corrected, N = number of pairs)", _GAUT + "; Czarnowska et al. 2021",
                     "f1", "absdiff", "pcm", "pairs"),
    LiteratureMetric("tpr_gap", "TPR gap |TPR_i - TPR_j| averaged over pairs", _DEARTEAGA + "; " + _PROST,
                     "tpr", "absdiff", "pcm", "pairs"),
    LiteratureMetric("tnr_gap", "TNR gap |TNR_i - TNR_j| averaged over pairs", _PROST,
                     "tnr", "absdiff", "pcm", "pairs"),
    LiteratureMetric("parity_gap", "Parity gap |P(yhat=c | i) - P(yhat=c | j)| averaged over pairs", _BEUTEL17,
                     "selection_rate", "absdiff", "pcm", "pairs"),
    LiteratureMetric("accuracy_difference", "Accuracy difference acc(first group) - acc(second group)", _STANOVSKY,
                     "accuracy", "diff", "pcm", "none", two_groups=True,
                     note="first minus second in group_order"),
    LiteratureMetric("tpr_difference", "TPR difference TPR(first) - TPR(second)", _RECALL,
                     "tpr", "diff", "pcm", "none", two_groups=True),
    LiteratureMetric("recall_difference", "Recall difference recall(first) - recall(second)", _RECALL,
                     "recall", "diff", "pcm", "none", two_groups=True),
    LiteratureMetric("f1_difference", "F1 difference F1(first) - F1(second)", _ZHAO,
                     "f1", "diff", "pcm", "none", two_groups=True),
    LiteratureMetric("f1_ratio", "F1 ratio F1(first) / F1(second)", _ZHAO,
                     "f1", "ratio", "pcm", "none", two_groups=True),
    # ----- group fairness, probability based
    LiteratureMetric("avg_gf", "Average Group Fairness: W1 between each group's and all scores", _HUANG,
                     "prob", "wasserstein", "bcm", "groups", "all"),
    LiteratureMetric("avg_gf_tc", "Average Group Fairness, true-class (TC) variant", _HUANG + "; Czarnowska et al. 2021",
                     "prob_tc", "wasserstein", "bcm", "groups", "all"),
    LiteratureMetric("positive_aeg", "Positive Average Equality Gap per group (gold-c examples)", _BORKAN,
                     "prob_tc", "aeg", "vbcm", None, "rest"),
    LiteratureMetric("negative_aeg", "Negative Average Equality Gap per group (examples of other classes)", _BORKAN,
                     "prob_ntc", "aeg", "vbcm", None, "rest"),
    # ----- counterfactual fairness
    LiteratureMetric("cf_gap", "Counterfactual Gap |f(x, c) - f(x', c)| averaged over pairs of variations", _GARG,
                     "mean_prob", "absdiff", "pcm", "pairs", version="counterfactual",
                     note="the template form (PCM); BCM against the unperturbed example is background='privileged'"),
    LiteratureMetric("cf_gap_tc", "Counterfactual Gap, true-class (TC) variant", _GARG + "; Czarnowska et al. 2021",
                     "mean_prob_tc", "absdiff", "pcm", "pairs", version="counterfactual"),
    LiteratureMetric("perturbation_score_sensitivity", "Perturbation Score Sensitivity per group: |f(x, y) - f(x', y)|", _PRABHAKARAN,
                     "mean_prob_true", "absdiff", "vbcm", None, "privileged", version="counterfactual",
                     note="background_group = the group label of the unperturbed examples"),
    LiteratureMetric("perturbation_score_deviation", "Perturbation Score Deviation: std of f(x', y) over groups", _PRABHAKARAN,
                     "mean_prob_true", "std", "mcm", version="counterfactual"),
    LiteratureMetric("perturbation_score_range", "Perturbation Score Range: max - min of f(x', y) over groups", _PRABHAKARAN,
                     "mean_prob_true", "range", "mcm", version="counterfactual"),
    LiteratureMetric("average_individual_fairness", "Average Individual Fairness: W1 between pairs of variations", _HUANG,
                     "prob", "wasserstein", "pcm", "pairs", version="counterfactual"),
    LiteratureMetric("average_individual_fairness_tc", "Average Individual Fairness, true-class (TC) variant", _HUANG + "; Czarnowska et al. 2021",
                     "prob_tc", "wasserstein", "pcm", "pairs", version="counterfactual"),
    LiteratureMetric("average_score_difference", "Average Score Difference: mean f(x, c) of first minus second group", _QIAN,
                     "mean_prob", "diff", "pcm", "pairs", version="counterfactual"),
    LiteratureMetric("average_score_difference_tc", "Average Score Difference, true-class (TC) variant", _QIAN + "; Czarnowska et al. 2021",
                     "mean_prob_tc", "diff", "pcm", "pairs", version="counterfactual"),
    LiteratureMetric("cf", "Counterfactual fairness CF: mean over examples of |P(yhat=y|x) - P(yhat=y|x_cf)|", _TOKPO,
                     "mean_prob_true", "absdiff", "pcm", "pairs", version="counterfactual"),
    LiteratureMetric("cf_hard", "Counterfactual fairness CF from hard predictions: |1[yhat=y|x] - 1[yhat=y|x_cf]|", _TOKPO,
                     "accuracy", "absdiff", "pcm", "pairs", version="counterfactual",
                     note="for predictions without probabilities"),
)

#: Read-only mapping from metric name to its parameterization.
LITERATURE_METRICS: Mapping[str, LiteratureMetric] = MappingProxyType({row.name: row for row in _ROWS})


def literature_metric(
    name: str,
    y_true: Any = None,
    y_pred: Any = None,
    groups: Any = None,
    *,
    y_prob: Any = None,
    source: Any = None,
    background_group: Any = None,
    labels: Sequence | None = None,
    pos_label: Any = None,
    classes: Sequence | None = None,
    group_order: Sequence | None = None,
    smoothing: float = 0.0,
    class_power: float = 1.0,
    nan_policy: str = "omit",
    prob_atol: float = 1e-3,
) -> MetricResult:
    """Compute a literature metric by name (see ``LITERATURE_METRICS`` for the table).

    Parameters are those of :func:`probekit.extrinsic.generalized_metric`; the parameterization
    (phi, d, kind, normalization, background, version) comes from the table row. Counterfactual
    metrics need ``source`` (the source-example id of each row); group metrics refuse it.
    Metrics defined for two groups (``two_groups``) compare the first with the second group of
    ``group_order`` (default: sorted order).

    Examples
    --------
    >>> r = literature_metric("fped", [0, 1, 0, 1], [1, 1, 0, 1], ["f", "f", "m", "m"])
    >>> round(r.value, 3)
    1.0
    """
    if name not in LITERATURE_METRICS:
        raise InvalidParameterError("name", name, sorted(LITERATURE_METRICS))
    row = LITERATURE_METRICS[name]
    if groups is None:
        raise InvalidParameterError("groups", None, "the group of each example")
    counterfactual = row.version == "counterfactual"
    if counterfactual and source is None:
        raise InvalidParameterError("source", None, "the source-example id of each row", detail=f"{name} is a counterfactual metric")
    if not counterfactual and source is not None:
        raise InvalidParameterError(
            "source", "an array", "None",
            detail=f"{name} is a group metric; use generalized_metric(..., source=...) for its counterfactual version",
        )
    enc = encode_inputs(
        y_true, y_pred, groups, y_prob=y_prob, source=source, labels=labels, group_order=group_order,
        prob_atol=prob_atol,
    )
    if row.two_groups and enc.n_groups != 2:
        raise InvalidParameterError(
            "groups", enc.groups.tolist()[:20], "exactly two groups", detail=f"{name} compares two groups"
        )
    eval_codes = evaluated_classes(enc, pos_label=pos_label, classes=classes)
    return result_from_encoded(
        enc, kind=row.kind, phi=row.phi, d=row.d, normalization=row.normalization, background=row.background,
        background_group=background_group, eval_codes=eval_codes, counterfactual=counterfactual,
        smoothing=smoothing, class_power=class_power, nan_policy=nan_policy, name=name,
    )
