"""The linear probe shared by the gender probe and the MDL probe: standardized features, logistic
regression, and C chosen by cross-validation grouped by word.

Occurrences of one word are near-duplicates. Cross-validation that lets a word sit in both the
training and the validation folds rewards memorizing words and picks a C that is far too weak, which
is how a probe on 384-dimensional embeddings ends up with probabilities of 0 and 1 everywhere.
Grouping the folds by word (scikit-learn's ``StratifiedGroupKFold``) validates on unseen words,
which is what the probe is later asked to do.
"""

from __future__ import annotations

import contextlib
import logging
import math
import numbers
import warnings
from dataclasses import dataclass
from typing import Any, Iterator, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

from probekit.errors import InvalidParameterError

logger = logging.getLogger(__name__)

#: Grid of inverse regularization strengths searched when ``C="cv"``: 1e-4, 1e-3, ..., 1e2.
DEFAULT_CS = (1e-4, 1e-3, 1e-2, 1e-1, 1.0, 10.0, 100.0)
CLASS_WEIGHTS = ("balanced", None)
CV_SCORING = "neg_log_loss"
#: A column whose standard deviation is at most ``max(DEGENERATE_ABS_TOL, DEGENERATE_REL_TOL * median std)``
#: is dropped before scaling (see :class:`DegenerateColumnFilter`).
DEGENERATE_REL_TOL = 1e-6
DEGENERATE_ABS_TOL = 1e-12


class DegenerateColumnFilter(TransformerMixin, BaseEstimator):
    """Drop near-constant columns before any scaling (a scikit-learn transformer).

    A column is degenerate when its standard deviation over the fitted rows is at most
    ``max(abs_tol, rel_tol * median_j std_j)``. Standardizing such a column divides rounding
    residue by a tiny standard deviation: after LEACE on MiniLM's last layer, output dimensions of
    std ~1e-32 and ~4e-9 kept gender-correlated residue of ~1e-17, which a standardized logistic
    regression read with a weight norm of ~1e17 (held-out accuracy 1.00 for a concept that was
    erased). Dropping them removes the artefact and costs nothing: a column that does not vary
    carries no usable information at the data's scale.

    Parameters
    ----------
    rel_tol : float
        Tolerance relative to the median column standard deviation.
    abs_tol : float
        Absolute floor of the tolerance.

    Attributes
    ----------
    keep_ : ndarray of bool, shape (n_features,)
        Columns kept.
    n_dropped_ : int
        Columns dropped.
    """

    def __init__(self, rel_tol: float = DEGENERATE_REL_TOL, abs_tol: float = DEGENERATE_ABS_TOL):
        self.rel_tol = rel_tol
        self.abs_tol = abs_tol

    def fit(self, X: Any, y: Any = None) -> "DegenerateColumnFilter":
        """Find the columns to keep from the rows of ``X``."""
        self.keep_ = nondegenerate_columns(np.asarray(X, dtype=np.float64), rel_tol=self.rel_tol, abs_tol=self.abs_tol)
        self.n_dropped_ = int(self.keep_.size - np.count_nonzero(self.keep_))
        return self

    def transform(self, X: Any) -> np.ndarray:
        """The kept columns of ``X`` (a zero column when none is kept, so a model can still fit an intercept)."""
        X = np.asarray(X, dtype=np.float64)
        if not self.keep_.any():
            return np.zeros((X.shape[0], 1))
        return X[:, self.keep_]



def nondegenerate_columns(X: np.ndarray, *, rel_tol: float = DEGENERATE_REL_TOL, abs_tol: float = DEGENERATE_ABS_TOL) -> np.ndarray:
    r"""Boolean mask of the columns to keep: :math:`\sigma_j > \max(\text{abs\_tol}, \text{rel\_tol} \cdot
    \operatorname{median}_k \sigma_k)` (standard deviations over the rows of ``X``, ddof = 0).
    """
    std = X.std(axis=0) if X.shape[0] else np.zeros(X.shape[1])
    positive = std[std > 0]
    scale = float(np.median(positive)) if positive.size else 0.0
    return std > max(float(abs_tol), float(rel_tol) * scale)


@dataclass(frozen=True)
class FittedProbe:
    """A fitted scikit-learn pipeline and how its C was chosen."""

    model: Any
    C: float
    C_selection: str
    cv_folds: list[tuple[np.ndarray, np.ndarray]]
    cv_scores: dict[float, float]
    #: Validation score of each (fold, candidate C), shape ``(n_folds, len(Cs))`` (logistic CV only).
    fold_scores: np.ndarray | None = None

    @property
    def n_dropped_columns(self) -> int:
        """Near-constant columns dropped before scaling (:class:`DegenerateColumnFilter`)."""
        return int(self.model.named_steps["drop"].n_dropped_)


def check_C(value: Any, parameter: str = "C") -> float | str:
    """A positive number, or ``"cv"``."""
    if isinstance(value, str) and value == "cv":
        return value
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not value > 0:
        raise InvalidParameterError(parameter, value, "a positive number, or 'cv' to choose it by word-grouped cross-validation")
    return float(value)


def check_Cs(values: Any, parameter: str = "Cs") -> tuple[float, ...]:
    try:
        grid = tuple(float(c) for c in values)
    except (TypeError, ValueError):
        raise InvalidParameterError(parameter, values, "a non-empty sequence of positive numbers") from None
    if not grid or any(not c > 0 for c in grid):
        raise InvalidParameterError(parameter, values, "a non-empty sequence of positive numbers")
    return grid


def check_class_weight(value: Any, parameter: str = "class_weight") -> str | None:
    """``value`` as a class weight of the probe (``"balanced"`` or ``None``; the text ``"none"`` reads as ``None``); raises ``InvalidParameterError``
    naming ``parameter`` otherwise.
    """
    if isinstance(value, str) and value.lower() == "none":
        return None
    if value not in CLASS_WEIGHTS:
        raise InvalidParameterError(parameter, value, "'balanced' (each gender weighs the same) or None (the paper's setting)")
    return value


def words_per_class(y: np.ndarray, words: np.ndarray) -> int:
    """The smallest number of distinct words among the classes present."""
    return min(np.unique(words[y == c]).size for c in np.unique(y))


def word_grouped_folds(
    y: np.ndarray, words: np.ndarray, n_splits: int, seed: int
) -> list[tuple[np.ndarray, np.ndarray]]:
    """``n_splits`` (train, validation) row-index pairs; no word is on both sides of any pair.

    scikit-learn's ``StratifiedGroupKFold`` with the words as groups: each validation fold holds
    whole words, with the classes in about the proportions of the data.
    """
    from sklearn.model_selection import StratifiedGroupKFold

    splitter = StratifiedGroupKFold(n_splits=n_splits, shuffle=True, random_state=seed)
    with warnings.catch_warnings():
        # Fewer words than folds in a class only makes the folds less stratified; that is fine here.
        warnings.filterwarnings("ignore", message=".*least populated class.*", category=UserWarning)
        folds = list(splitter.split(np.zeros((y.size, 1)), y, groups=words))
    return [(np.asarray(train), np.asarray(valid)) for train, valid in folds]


def make_pipeline(
    classifier: str, C: float, *, class_weight: str | None, standardize: bool, max_iter: int, seed: int,
    calibration_folds: list[tuple[np.ndarray, np.ndarray]] | None = None,
) -> Any:
    """Near-constant columns dropped (:class:`DegenerateColumnFilter`, step "drop"), ``StandardScaler``
    (optional) then the classifier, as one scikit-learn ``Pipeline`` (step "clf").
    """
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    if classifier == "logistic":
        from sklearn.linear_model import LogisticRegression

        clf: Any = LogisticRegression(C=C, class_weight=class_weight, max_iter=max_iter, random_state=seed)
    else:
        from sklearn.svm import LinearSVC

        clf = LinearSVC(C=C, class_weight=class_weight, max_iter=max_iter, random_state=seed)
        if calibration_folds is not None:
            from sklearn.calibration import CalibratedClassifierCV

            clf = CalibratedClassifierCV(clf, method="sigmoid", cv=calibration_folds)
    steps = [("drop", DegenerateColumnFilter())] + ([("scale", StandardScaler())] if standardize else []) + [("clf", clf)]
    return Pipeline(steps)


def _cv_logistic(
    X: np.ndarray, y: np.ndarray, folds: list, Cs: Sequence[float], *, class_weight: str | None, standardize: bool,
    max_iter: int, seed: int,
) -> tuple[Any, float, dict[float, float], np.ndarray]:
    """Scaler then scikit-learn's ``LogisticRegressionCV`` on the given folds (log loss, L2), refitted
    on all rows with the chosen C. The regularization path is warm-started from one C to the next,
    about twice as fast as a grid search; the scaler sees all rows' features (never a label).
    """
    from sklearn.linear_model import LogisticRegressionCV
    from sklearn.pipeline import Pipeline
    from sklearn.preprocessing import StandardScaler

    clf = LogisticRegressionCV(
        Cs=list(Cs), cv=folds, scoring=CV_SCORING, l1_ratios=(0.0,), class_weight=class_weight,
        max_iter=max_iter, random_state=seed, use_legacy_attributes=False,
    )
    model = Pipeline([("drop", DegenerateColumnFilter())] + ([("scale", StandardScaler())] if standardize else [])
                     + [("clf", clf)])
    model.fit(X, y)
    per_fold = np.asarray(clf.scores_).reshape(len(folds), -1, len(clf.Cs_))[:, 0, :]
    means = per_fold.mean(axis=0)
    return model, float(clf.C_), {float(c): float(m) for c, m in zip(clf.Cs_, means)}, per_fold


def _cv_svm_C(
    X: np.ndarray, y: np.ndarray, folds: list, Cs: Sequence[float], *, class_weight: str | None, standardize: bool,
    max_iter: int, seed: int,
) -> tuple[float, dict[float, float]]:
    """C of the linear SVM by validation accuracy, whole pipeline refitted inside each fold (``GridSearchCV``)."""
    from sklearn.model_selection import GridSearchCV

    search = GridSearchCV(
        make_pipeline("linear_svm", 1.0, class_weight=class_weight, standardize=standardize, max_iter=max_iter, seed=seed),
        {"clf__C": list(Cs)}, cv=folds, scoring="accuracy", refit=False, error_score="raise",
    )
    search.fit(X, y)
    scores = {float(c): float(s) for c, s in zip(search.cv_results_["param_clf__C"], search.cv_results_["mean_test_score"])}
    return float(search.best_params_["clf__C"]), scores


def fit_linear_probe(
    X: np.ndarray,
    y: np.ndarray,
    words: np.ndarray,
    *,
    classifier: str = "logistic",
    C: float | str = "cv",
    Cs: Sequence[float] = DEFAULT_CS,
    n_folds: int = 5,
    class_weight: str | None = "balanced",
    standardize: bool = True,
    max_iter: int = 1000,
    seed: int = 0,
) -> FittedProbe:
    """Fit the probe ``[StandardScaler ->] classifier`` on (X, y); with ``C="cv"``, choose C from ``Cs``.

    The choice maximizes the mean validation score over ``min(n_folds, words per class)``
    word-grouped folds (:func:`word_grouped_folds`): the log loss for the logistic regression
    (a proper scoring rule, so the chosen C also gives honest probabilities; scikit-learn's
    ``LogisticRegressionCV``), the accuracy for the linear SVM (no probabilities before
    calibration; ``GridSearchCV``). The linear SVM's probabilities come from sigmoid calibration
    on the same word-grouped folds.
    """
    with _one_blas_thread():
        return _fit_linear_probe(X, y, words, classifier=classifier, C=C, Cs=Cs, n_folds=n_folds,
                                 class_weight=class_weight, standardize=standardize, max_iter=max_iter, seed=seed)


@contextlib.contextmanager
def _one_blas_thread() -> Iterator[None]:
    """One BLAS thread while fitting: the matrices are small (thousands x hundreds), so threads spin
    more than they compute. On 2 busy cores a probe fit took 18 s of CPU with BLAS threads and
    2.7 s without. The previous limits are restored on exit.
    """
    from threadpoolctl import threadpool_limits

    with threadpool_limits(limits=1, user_api="blas"):
        yield


def _fit_linear_probe(
    X: np.ndarray, y: np.ndarray, words: np.ndarray, *, classifier: str, C: float | str, Cs: Sequence[float],
    n_folds: int, class_weight: str | None, standardize: bool, max_iter: int, seed: int,
) -> FittedProbe:
    k = min(int(n_folds), words_per_class(y, words))
    folds = word_grouped_folds(y, words, k, seed) if k >= 2 else []
    if k < 2 and (C == "cv" or classifier == "linear_svm"):
        needs = "choosing C by word-grouped cross-validation" if C == "cv" else "calibrating the linear SVM"
        raise InvalidParameterError(
            "C" if C == "cv" else "classifier", C if C == "cv" else classifier,
            "a fixed C" if C == "cv" else "'logistic'", f"{needs} needs at least 2 training words per gender",
        )
    common = dict(class_weight=class_weight, standardize=standardize, max_iter=max_iter, seed=seed)
    if C == "cv" and classifier == "logistic":
        model, chosen, scores, per_fold = _cv_logistic(X, y, folds, Cs, **common)
        return FittedProbe(model=model, C=chosen, C_selection=f"{k}-fold word-grouped CV (log loss)", cv_folds=folds,
                           cv_scores=scores, fold_scores=per_fold)
    scores = {}
    chosen, how = float(C) if C != "cv" else math.nan, "fixed"
    if C == "cv":
        chosen, scores = _cv_svm_C(X, y, folds, Cs, **common)
        how = f"{k}-fold word-grouped CV (accuracy)"
    model = make_pipeline(classifier, chosen, calibration_folds=folds if classifier == "linear_svm" else None, **common)
    model.fit(X, y)
    return FittedProbe(model=model, C=chosen, C_selection=how, cv_folds=folds, cv_scores=scores)


def probe_calibration(y: np.ndarray, p: np.ndarray, *, n_bins: int = 10) -> dict[str, Any]:
    r"""Brier score and expected calibration error of probabilities ``p`` of the class ``y == 1``.

    Brier score :math:`\frac{1}{N}\sum_i (p_i - y_i)^2` (scikit-learn ``brier_score_loss``);
    ECE (Naeini et al. 2015; Guo et al. 2017) over ``n_bins`` equal-width bins of ``p`` on
    [0, 1] (a probability of exactly 1 falls in the last bin):
    :math:`\sum_b \frac{|B_b|}{N} \left|\bar y_{B_b} - \bar p_{B_b}\right|`.
    ``bins`` lists the non-empty bins: ``low``, ``high``, ``count``, ``mean_p``, ``share_positive``.
    """
    from sklearn.metrics import brier_score_loss

    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    index = np.minimum((p * n_bins).astype(np.int64), n_bins - 1)
    count = np.bincount(index, minlength=n_bins)
    sum_p = np.bincount(index, weights=p, minlength=n_bins)
    sum_y = np.bincount(index, weights=y, minlength=n_bins)
    used = count > 0
    gaps = np.abs(sum_y[used] - sum_p[used])  # = count * |mean y - mean p|
    bins = [
        {"low": b / n_bins, "high": (b + 1) / n_bins, "count": int(count[b]), "mean_p": float(sum_p[b] / count[b]),
         "share_positive": float(sum_y[b] / count[b])}
        for b in np.flatnonzero(used)
    ]
    return {
        "brier_score": float(brier_score_loss(y, p, pos_label=1.0)) if y.size else math.nan,
        "expected_calibration_error": float(gaps.sum() / y.size) if y.size else math.nan,
        "bins": bins,
    }
