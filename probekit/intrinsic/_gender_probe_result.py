"""The gender probe's result type and its word-level accuracies and intervals (Tokpo et al. 2023, §3)."""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.stats import bootstrap_ci

_FEMALE_LABELS = {"female", "f", "1", "woman", "women"}
_MALE_LABELS = {"male", "m", "0", "man", "men"}


@dataclass(frozen=True)
class GenderProbeResult:
    """Result of the gender probe.

    Attributes
    ----------
    gender_accuracy : float
        Accuracy on the occurrences of the held-out attribute words (high: the probe works).
    gender_accuracy_ci : list of float or None
        Percentile bootstrap interval of ``gender_accuracy``, resampling held-out *words* within
        each gender (occurrences of a word are not independent); the fitted probe is kept fixed.
    gender_accuracy_per_word : float
        Share of held-out attribute words whose occurrences are classified correctly by majority
        (ties broken by the mean predicted probability).
    brier_score, expected_calibration_error : float
        Held-out calibration of ``p_female`` on the test attribute occurrences: Brier score
        ``mean (p - y)^2`` and ECE over ``n_bins`` equal-width bins of ``p``,
        ``sum_b |B_b| / N * |mean_{B_b} y - mean_{B_b} p|`` (low: the confidence can be trusted).
    calibration_bins : list of dict
        Per non-empty bin: ``low``, ``high``, ``count``, ``mean_p``, ``share_female``.
    stereotype_accuracy : float
        The paper's stereotype accuracy: share of X_f ∪ X_m occurrences given their stereotypical
        gender (fair: 0.5). A probe that calls everything male scores the male share here.
    stereotype_accuracy_female, stereotype_accuracy_male : float
        The same on X_f and X_m alone (NaN when a group is empty).
    stereotype_accuracy_balanced : float
        Mean of the two: 0.5 for a probe that ignores the stereotype, whatever its default.
    stereotype_accuracy_ci, stereotype_accuracy_balanced_ci : list of float or None
        Bootstrap intervals of the two, resampling stereotype words within each gender.
    stereotype_accuracy_word : float
        Each stereotype word counted once, as female when the mean ``p_female`` of its occurrences
        exceeds 0.5; share of words given their stereotypical gender.
    stereotype_accuracy_word_balanced : float
        Mean of the per-gender word-level accuracies.
    stereotype_confidence : float
        ``mean_i |p_female(e_i) - 0.5|`` over the stereotype occurrences (fair: low). Only as
        meaningful as the probe's calibration.
    randomization_p_value : float
        The paper's test: ``n_randomizations`` random relabelings of X with the original group
        sizes; ``scipy.stats.ttest_1samp(random_accuracies, observed)`` p-value (two-sided).
    permutation_p_value : float
        Empirical p-value of the stereotype accuracy from the same relabelings,
        ``(1 + #{as extreme}) / (1 + n_randomizations)``.
    permutation_p_value_balanced : float
        The same for the balanced stereotype accuracy (as extreme: as far from 0.5, or for
        ``alternative="greater"`` at least as high).
    random_accuracy_mean, random_accuracy_std : float
    random_accuracies : list of float
    train_words, test_words : dict
        ``{"female": [...], "male": [...]}``; the two never share a word.
    classifier, class_weight, standardize : str, str or None, bool
        The probe's settings.
    C : float
        The inverse regularization strength used (chosen or fixed).
    C_setting : float or "cv"
        What was asked for.
    C_selection : str
        "fixed", or how C was chosen (e.g. "5-fold word-grouped CV (log loss)").
    cv_scores : dict
        Mean validation score per candidate C (empty when C was fixed).
    paper_setting : bool
        Whether the probe is the paper's exact one (:data:`PAPER_PROBE`, logistic).
    gender_accuracy_balanced : float
        Mean of the female and male held-out accuracies (what the readers' verdict uses).
    gender_accuracy_balanced_ci : list of float or None
        Its word-bootstrap interval (held-out words resampled within each gender).
    n_dropped_columns : int
        Near-constant embedding columns dropped before scaling
        (:class:`probekit.intrinsic.DegenerateColumnFilter`).
    """

    gender_accuracy: float
    gender_accuracy_per_word: float
    stereotype_accuracy: float
    stereotype_accuracy_female: float
    stereotype_accuracy_male: float
    stereotype_confidence: float
    randomization_p_value: float
    permutation_p_value: float
    random_accuracy_mean: float
    random_accuracy_std: float
    random_accuracies: list[float]
    n_randomizations: int
    randomization_unit: str
    alternative: str
    train_words: dict[str, list[str]]
    test_words: dict[str, list[str]]
    n_train: int
    n_test: int
    n_stereotype: int
    classifier: str
    C: float
    test_size: float
    random_state: int | None
    stereotype_word_p_female: dict[str, float] = field(default_factory=dict)
    stereotype_accuracy_balanced: float = math.nan
    stereotype_accuracy_word: float = math.nan
    stereotype_accuracy_word_balanced: float = math.nan
    permutation_p_value_balanced: float = math.nan
    gender_accuracy_ci: list[float] | None = None
    stereotype_accuracy_balanced_ci: list[float] | None = None
    stereotype_accuracy_ci: list[float] | None = None
    confidence_level: float = 0.95
    n_bootstrap: int = 0
    brier_score: float = math.nan
    expected_calibration_error: float = math.nan
    calibration_bins: list[dict[str, float]] = field(default_factory=list)
    n_bins: int = 10
    class_weight: str | None = None
    standardize: bool = False
    C_setting: float | str = 1.0
    C_selection: str = "fixed"
    cv_scores: dict[float, float] = field(default_factory=dict)
    paper_setting: bool = False
    gender_accuracy_balanced: float = math.nan
    gender_accuracy_balanced_ci: list[float] | None = None
    n_dropped_columns: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (every field)."""
        return asdict(self)


def _gender_labels(genders: Any, n: int, name: str) -> np.ndarray:
    values = np.asarray(genders, dtype=object).ravel()
    if values.size != n:
        raise InvalidParameterError(name, f"{values.size} labels", f"one label per embedding row ({n})")
    out = np.empty(n, dtype=np.int64)
    for i, v in enumerate(values):
        key = str(int(v)) if isinstance(v, (bool, np.bool_, int, np.integer)) else str(v).strip().lower()
        if key in _FEMALE_LABELS:
            out[i] = 1
        elif key in _MALE_LABELS:
            out[i] = 0
        else:
            raise InvalidParameterError(name, v, "'female'/'male', 'f'/'m' or 1 (female) / 0 (male)")
    return out


def _per_word_counts(words: np.ndarray, y: np.ndarray, correct: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(gender, correct occurrences, occurrences) of each distinct word, in first-seen order."""
    vocabulary = list(dict.fromkeys(words))
    codes = _index_of(words, vocabulary)
    n = np.bincount(codes, minlength=len(vocabulary)).astype(float)
    hits = np.bincount(codes, weights=correct.astype(float), minlength=len(vocabulary))
    gender = np.zeros(len(vocabulary), dtype=np.int64)
    gender[codes] = y
    return gender, hits, n


def _pooled_accuracy(gender: np.ndarray, hits: np.ndarray, n: np.ndarray) -> float:
    return float(hits.sum() / n.sum())


def _balanced_accuracy(gender: np.ndarray, hits: np.ndarray, n: np.ndarray) -> float:
    per_gender = [hits[gender == g].sum() / n[gender == g].sum() for g in (1, 0) if np.any(gender == g)]
    return float(np.mean(per_gender)) if len(per_gender) == 2 else math.nan


def word_bootstrap_ci(
    statistic: Any, gender: np.ndarray, hits: np.ndarray, n: np.ndarray, *, n_bootstrap: int, confidence: float,
    rng: np.random.Generator,
) -> list[float] | None:
    """Percentile bootstrap interval of an accuracy, resampling words within each gender.

    Reuses :func:`probekit.extrinsic.bootstrap_ci` on one row per word (its gender as the stratum,
    its correct and total occurrences as data), so a word's occurrences move together.
    """
    if n_bootstrap == 0 or gender.size < 2:
        return None

    interval = bootstrap_ci(statistic, gender, hits, n, strata=gender, n_resamples=n_bootstrap,
                            confidence=confidence, random_state=rng)
    if not (math.isfinite(interval.low) and math.isfinite(interval.high)):
        return None
    return [float(interval.low), float(interval.high)]


def _index_of(labels: np.ndarray, vocab: list[str]) -> np.ndarray:
    where = {w: i for i, w in enumerate(vocab)}
    return np.array([where[w] for w in labels])
