"""The gender probe of Tokpo et al. (2023, §3): is gender still linearly readable from an encoder,
and does a probe trained on attribute words assign stereotype words their stereotypical gender?

Beside the paper's numbers the probe reports what keeps them honest on real text: a class-balanced
probe whose C is chosen by word-grouped cross-validation, the held-out calibration of its
probabilities, the balanced and word-level stereotype accuracies (a male default is not a
stereotype), and word-level bootstrap intervals.
"""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.intrinsic._gender_probe_result import (
    GenderProbeResult,
    _balanced_accuracy,
    _gender_labels,
    _index_of,
    _per_word_counts,
    _pooled_accuracy,
    word_bootstrap_ci,
)
from probekit.intrinsic._linear_probe import (
    DEFAULT_CS,
    check_C,
    check_class_weight,
    check_Cs,
    fit_linear_probe,
    probe_calibration,
)
from probekit.intrinsic._occurrences import as_occurrences
from probekit.stats import count_extreme, permutation_p_value
from probekit.utils import (
    RandomStateLike,
    as_embedding_matrix,
    check_choice,
    check_fraction,
    check_positive_int,
    check_same_width,
    resolve_seed,
    spawn_generators,
)

logger = logging.getLogger(__name__)

CLASSIFIERS = ("logistic", "linear_svm")
RANDOMIZATION_UNITS = ("occurrence", "word")
ALTERNATIVES = ("two-sided", "greater")
#: The paper's exact probe: no class weights, C = 1, raw features (Tokpo et al. 2023, §3).
PAPER_PROBE = {"C": 1.0, "class_weight": None, "standardize": False}


class GenderProbe:
    """Linear gender probe with a word-disjoint split and the paper's randomization test.

    Follows Tokpo et al. (2023, §3): a linear classifier trained on the embeddings of attribute
    words to predict female (1) / male (0), evaluated on held-out attribute words and on the
    stereotype words. By default the probe is class-balanced, standardizes its features and
    chooses C by word-grouped cross-validation on the training words; ``C=1.0,
    class_weight=None, standardize=False`` (:data:`PAPER_PROBE`) is the paper's exact probe.

    Parameters
    ----------
    classifier : {"logistic", "linear_svm"}
        scikit-learn ``LogisticRegression`` (default), or ``LinearSVC`` with sigmoid-calibrated
        probabilities (``CalibratedClassifierCV`` on word-disjoint folds of the training words).
    C : float or "cv"
        Inverse regularization strength, or ``"cv"`` (default): chosen from ``Cs`` over
        ``n_folds`` folds of the training words grouped by word (scikit-learn
        ``StratifiedGroupKFold``; log loss for the logistic probe). With a fixed C = 1 on
        384-dimensional embeddings the training words are separated perfectly and every
        probability is near 0 or 1, so the "confidence" measures the regularization.
    Cs : sequence of float
        Candidates for ``C="cv"`` (default 1e-4 ... 1e2).
    n_folds : int
        Folds of the grouped cross-validation (fewer when a gender has fewer training words).
    class_weight : {"balanced", None}
        ``"balanced"`` (default): each gender weighs the same in training whatever its number of
        occurrences, so an imbalanced attribute set does not teach a default gender. ``None``: the
        paper's setting.
    standardize : bool
        Standardize features (``StandardScaler``, fitted on the training words inside the
        scikit-learn ``Pipeline``). The probe stays linear in the raw embeddings.
    test_size : float
        Share of each gender's attribute *words* held out (at least one word each).
    n_randomizations : int
        Random relabelings of the stereotype set for the randomization test.
    randomization_unit : {"word", "occurrence"}
        ``"word"`` (default): relabel the stereotype *words* X = X_f ∪ X_m into random groups of
        the original sizes, as the paper describes, every occurrence taking its word's label.
        ``"occurrence"``: relabel occurrences one by one. Occurrences of one word are correlated,
        so occurrence relabeling understates the null spread: on synthetic data without any
        association its 5% test rejected 17% of the time, the word version 4%.
    alternative : {"two-sided", "greater"}
        Of the empirical permutation p-values (the t-test is two-sided, as in the paper).
    n_bins : int
        Equal-width bins of the expected calibration error.
    n_bootstrap : int
        Bootstrap replicates of the word-level intervals (0: none).
    confidence_level : float
    max_iter : int
        Iterations of the solver.
    random_state : int, numpy.random.Generator or None
        Seed of the split, the classifier and folds, the relabelings and the bootstrap
        (independent streams). ``None`` draws a seed and records it.

    Attributes
    ----------
    classifier_ : fitted scikit-learn Pipeline
    C_ : float
        The C used.
    C_selection_ : str
    cv_folds_ : list of (train, validation) index arrays into the training rows
    cv_scores_ : dict
    train_words_, test_words_ : dict
    gender_accuracy_, gender_accuracy_per_word_ : float
    gender_accuracy_ci_ : list of float or None
    calibration_ : dict
        ``brier_score``, ``expected_calibration_error``, ``bins`` on the held-out words.
    seed_ : int or None
    """

    def __init__(
        self,
        classifier: str = "logistic",
        *,
        C: float | str = "cv",
        Cs: Sequence[float] = DEFAULT_CS,
        n_folds: int = 5,
        class_weight: str | None = "balanced",
        standardize: bool = True,
        test_size: float = 0.2,
        n_randomizations: int = 100,
        randomization_unit: str = "word",
        alternative: str = "two-sided",
        n_bins: int = 10,
        n_bootstrap: int = 1000,
        confidence_level: float = 0.95,
        max_iter: int = 1000,
        random_state: RandomStateLike = None,
    ):
        self.classifier = classifier
        self.C = C
        self.Cs = Cs
        self.n_folds = n_folds
        self.class_weight = class_weight
        self.standardize = standardize
        self.test_size = test_size
        self.n_randomizations = n_randomizations
        self.randomization_unit = randomization_unit
        self.alternative = alternative
        self.n_bins = n_bins
        self.n_bootstrap = n_bootstrap
        self.confidence_level = confidence_level
        self.max_iter = max_iter
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------

    def _check_params(self) -> None:
        check_choice(self.classifier, "classifier", CLASSIFIERS)
        check_C(self.C)
        check_Cs(self.Cs)
        check_positive_int(self.n_folds, "n_folds", minimum=2)
        self._class_weight = check_class_weight(self.class_weight)
        if not isinstance(self.standardize, (bool, np.bool_)):
            raise InvalidParameterError("standardize", self.standardize, "True or False")
        check_fraction(self.test_size, "test_size")
        check_positive_int(self.n_randomizations, "n_randomizations", minimum=2)
        check_choice(self.randomization_unit, "randomization_unit", RANDOMIZATION_UNITS)
        check_choice(self.alternative, "alternative", ALTERNATIVES)
        check_positive_int(self.n_bins, "n_bins")
        check_positive_int(self.n_bootstrap, "n_bootstrap", minimum=0)
        check_fraction(self.confidence_level, "confidence_level")
        check_positive_int(self.max_iter, "max_iter")

    def _split_words(
        self, labels: np.ndarray, y: np.ndarray, rng: np.random.Generator
    ) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
        """Word-disjoint split: ``test_size`` of each gender's words held out (at least one)."""
        train_words: dict[str, list[str]] = {}
        test_words: dict[str, list[str]] = {}
        for g, gname in ((1, "female"), (0, "male")):
            vocab = list(dict.fromkeys(labels[y == g]))
            both = set(vocab) & set(labels[y != g])
            if both:
                raise InvalidParameterError(
                    "genders", sorted(both)[:5], "each word labelled with one gender only"
                )
            if len(vocab) < 2:
                raise InvalidParameterError(
                    "genders", f"{len(vocab)} {gname} word(s)",
                    "at least 2 words of each gender (one to train on, one to test on)",
                    "a training split with one gender cannot train a gender classifier",
                )
            shuffled = [vocab[i] for i in rng.permutation(len(vocab))]
            n_test = min(len(vocab) - 1, max(1, int(round(self.test_size * len(vocab)))))
            test_words[gname] = sorted(shuffled[:n_test])
            train_words[gname] = sorted(shuffled[n_test:])
        return train_words, test_words

    def fit(self, embeddings: Any, words: Sequence[str], genders: Any) -> "GenderProbe":
        """Split the attribute words word-disjointly, train on one part, score the other.

        Parameters
        ----------
        embeddings : array of shape (n_occurrences, dim)
            Attribute-word occurrences.
        words : sequence of str
            The word of each row (the split is over words, never over occurrences).
        genders : sequence
            Gender of each row: "female"/"male", "f"/"m" or 1/0.
        """
        self._check_params()
        X, labels = as_occurrences(embeddings, words, "embeddings")
        y = _gender_labels(genders, X.shape[0], "genders")
        seed, source = resolve_seed(self.random_state)
        # Streams by position: the split, the classifier, the relabelings, the bootstrap, the balanced
        # held-out interval (last, so the first four draw what they drew before it existed).
        split_rng, clf_rng, self._rand_rng, self._boot_rng, self._balanced_rng = spawn_generators(source, 5)
        self.seed_ = seed

        train_words, test_words = self._split_words(labels, y, split_rng)
        test_set = set(test_words["female"]) | set(test_words["male"])
        is_test = np.array([w in test_set for w in labels])
        X_train, y_train, w_train = X[~is_test], y[~is_test], labels[~is_test]
        X_test, y_test, w_test = X[is_test], y[is_test], labels[is_test]
        if np.unique(y_train).size < 2:  # pragma: no cover - prevented by the per-gender split
            raise InvalidParameterError("genders", "one gender in the training split", "both genders")

        fitted = fit_linear_probe(
            X_train, y_train, w_train.astype(str), classifier=self.classifier, C=check_C(self.C),
            Cs=check_Cs(self.Cs), n_folds=int(self.n_folds), class_weight=self._class_weight,
            standardize=bool(self.standardize), max_iter=int(self.max_iter),
            seed=int(clf_rng.integers(0, 2**31 - 1)),
        )
        self.classifier_ = fitted.model
        self.C_ = fitted.C
        self.C_selection_ = fitted.C_selection
        self.cv_folds_ = fitted.cv_folds
        self.cv_scores_ = fitted.cv_scores
        self.n_dropped_columns_ = fitted.n_dropped_columns
        self.dim_ = X.shape[1]
        self.train_words_ = train_words
        self.test_words_ = test_words
        self.n_train_ = int(X_train.shape[0])
        self.n_test_ = int(X_test.shape[0])
        self._score_held_out(X_test, y_test, w_test)
        return self

    def _score_held_out(self, X_test: np.ndarray, y_test: np.ndarray, w_test: np.ndarray) -> None:
        """Accuracy (per occurrence, per word, with a word-bootstrap interval) and calibration."""
        p_test = self.predict_proba_female(X_test)
        pred = (p_test > 0.5).astype(np.int64)
        self.gender_accuracy_ = float(np.mean(pred == y_test))
        correct_words = []
        for w in dict.fromkeys(w_test):
            rows = w_test == w
            votes = pred[rows].mean()
            says_female = votes > 0.5 if votes != 0.5 else p_test[rows].mean() > 0.5
            correct_words.append(int(says_female) == int(y_test[rows][0]))
        self.gender_accuracy_per_word_ = float(np.mean(correct_words))
        gender, hits, n = _per_word_counts(w_test, y_test, pred == y_test)
        self.gender_accuracy_ci_ = word_bootstrap_ci(
            _pooled_accuracy, gender, hits, n, n_bootstrap=int(self.n_bootstrap),
            confidence=float(self.confidence_level), rng=self._boot_rng,
        )
        self.gender_accuracy_balanced_ = _balanced_accuracy(gender, hits, n)
        self.gender_accuracy_balanced_ci_ = word_bootstrap_ci(
            _balanced_accuracy, gender, hits, n, n_bootstrap=int(self.n_bootstrap),
            confidence=float(self.confidence_level), rng=self._balanced_rng,
        )
        self.calibration_ = probe_calibration(y_test, p_test, n_bins=int(self.n_bins))

    # -- prediction ---------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "classifier_"):
            raise InvalidParameterError("probe", "an unfitted GenderProbe", "a probe after fit()")

    def predict_proba_female(self, embeddings: Any) -> np.ndarray:
        """Probability of "female" for each row."""
        self._check_fitted()
        X = np.asarray(embeddings, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.dim_:
            raise InvalidParameterError(
                "embeddings", f"array of shape {X.shape}", f"a 2-D array of width {self.dim_} (as in fit)"
            )
        classes = list(self.classifier_.classes_)
        return self.classifier_.predict_proba(X)[:, classes.index(1)]

    def predict(self, embeddings: Any) -> np.ndarray:
        """1 (female) where ``p_female > 0.5``, else 0 (male)."""
        return (self.predict_proba_female(embeddings) > 0.5).astype(np.int64)

    # -- the stereotype analysis --------------------------------------------------------------

    def _relabelings(self, y: np.ndarray, labels: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
        """``n_randomizations`` random relabelings with the original group sizes (rows) and the
        labels of the units relabeled (words or occurrences).
        """
        R = int(self.n_randomizations)
        rng = self._rand_rng
        if self.randomization_unit == "occurrence":
            return rng.permuted(np.broadcast_to(y, (R, y.size)), axis=1), y
        assert labels is not None
        vocab = list(dict.fromkeys(labels))
        mixed = [w for w in vocab if np.unique(y[labels == w]).size > 1]
        if mixed:
            raise InvalidParameterError("genders", mixed[:5], "one stereotypical gender per stereotype word")
        unit_of = _index_of(labels, vocab)
        unit_labels = np.array([y[labels == w][0] for w in vocab])
        return rng.permuted(np.broadcast_to(unit_labels, (R, unit_labels.size)), axis=1)[:, unit_of], unit_labels

    def _empirical_p(self, observed: float, random: np.ndarray, centre: float) -> float:
        """``(1 + k) / (1 + R)``, ``k`` the relabelings at least as extreme (:func:`permutation_p_value`)."""
        extreme = count_extreme(random, observed, alternative=self.alternative, centre=centre, tol=1e-12)
        return permutation_p_value(extreme, random.size)

    def evaluate(self, embeddings: Any, genders: Any, words: Sequence[str] | None = None) -> GenderProbeResult:
        """Stereotype accuracies, confidence and the randomization test on stereotype occurrences.

        Parameters
        ----------
        embeddings : array of shape (n_occurrences, dim)
            Occurrences of X_f ∪ X_m (never trained on).
        genders : sequence
            Stereotypical gender of each row.
        words : sequence of str, optional
            Word of each row; needed for ``randomization_unit="word"``, the word-level accuracy,
            the balanced interval and per-word probabilities.
        """
        self._check_fitted()
        X, labels = self._stereotype_rows(embeddings, words)
        y = _gender_labels(genders, X.shape[0], "stereotype genders")
        p_f = self.predict_proba_female(X)
        pred = (p_f > 0.5).astype(np.int64)
        correct = pred == y
        observed, acc_f, acc_m, balanced = _stereotype_accuracies(correct, y)
        confidence = float(np.mean(np.abs(p_f - 0.5)))
        random_acc, perm_p, perm_p_balanced, t_p = self._randomization_test(y, labels, pred, observed, balanced)
        per_word, word_acc, word_bal, plain_ci, balanced_ci = self._word_level(labels, y, p_f, correct, balanced)
        calibration = self.calibration_
        return GenderProbeResult(
            gender_accuracy=self.gender_accuracy_,
            gender_accuracy_per_word=self.gender_accuracy_per_word_,
            stereotype_accuracy=observed,
            stereotype_accuracy_female=acc_f,
            stereotype_accuracy_male=acc_m,
            stereotype_confidence=confidence,
            randomization_p_value=t_p,
            permutation_p_value=float(perm_p),
            random_accuracy_mean=float(random_acc.mean()),
            random_accuracy_std=float(random_acc.std(ddof=1)),
            random_accuracies=[float(a) for a in random_acc],
            n_randomizations=int(self.n_randomizations),
            randomization_unit=self.randomization_unit,
            alternative=self.alternative,
            train_words={k: list(v) for k, v in self.train_words_.items()},
            test_words={k: list(v) for k, v in self.test_words_.items()},
            n_train=self.n_train_,
            n_test=self.n_test_,
            n_stereotype=int(X.shape[0]),
            classifier=self.classifier,
            C=float(self.C_),
            test_size=float(self.test_size),
            random_state=self.seed_,
            stereotype_word_p_female=per_word,
            stereotype_accuracy_balanced=float(balanced),
            stereotype_accuracy_word=word_acc,
            stereotype_accuracy_word_balanced=word_bal,
            permutation_p_value_balanced=float(perm_p_balanced),
            gender_accuracy_ci=self.gender_accuracy_ci_,
            stereotype_accuracy_balanced_ci=balanced_ci,
            stereotype_accuracy_ci=plain_ci,
            confidence_level=float(self.confidence_level),
            n_bootstrap=int(self.n_bootstrap),
            brier_score=calibration["brier_score"],
            expected_calibration_error=calibration["expected_calibration_error"],
            calibration_bins=calibration["bins"],
            n_bins=int(self.n_bins),
            class_weight=self._class_weight,
            standardize=bool(self.standardize),
            C_setting=check_C(self.C),
            C_selection=self.C_selection_,
            cv_scores=dict(self.cv_scores_),
            paper_setting=self.is_paper_setting(),
            gender_accuracy_balanced=self.gender_accuracy_balanced_,
            gender_accuracy_balanced_ci=self.gender_accuracy_balanced_ci_,
            n_dropped_columns=int(self.n_dropped_columns_),
        )

    def _stereotype_rows(self, embeddings: Any, words: Sequence[str] | None) -> tuple[np.ndarray, np.ndarray | None]:
        """The stereotype embedding matrix and the word of each row (``None`` without words)."""
        if words is None:
            if self.randomization_unit == "word":
                raise InvalidParameterError("words", None, "the word of each stereotype row",
                                            "randomization_unit='word' (the default) needs them; "
                                            "or use randomization_unit='occurrence'")
            X = as_embedding_matrix(embeddings, "stereotype embeddings")
            labels = None
        else:
            X, labels = as_occurrences(embeddings, words, "stereotype embeddings")
        check_same_width({"attribute embeddings": np.empty((1, self.dim_)), "stereotype embeddings": X})
        return X, labels

    def _randomization_test(
        self, y: np.ndarray, labels: np.ndarray | None, pred: np.ndarray, observed: float, balanced: float,
    ) -> tuple[np.ndarray, float, float, float]:
        """Accuracies under random relabelings, the permutation p-values (plain and balanced)
        and the one-sample t-test p-value of the observed accuracy against them.
        """
        from scipy import stats

        permuted, unit_labels = self._relabelings(y, labels)
        hits = permuted == pred[None, :]
        random_acc = hits.mean(axis=1)
        with np.errstate(invalid="ignore", divide="ignore"):
            random_bal = 0.5 * ((hits & (permuted == 1)).sum(axis=1) / (permuted == 1).sum(axis=1)
                                + (hits & (permuted == 0)).sum(axis=1) / (permuted == 0).sum(axis=1))
        share_female = float(unit_labels.mean())
        n_pred_f = float(pred.sum())
        expected = (n_pred_f * share_female + (pred.size - n_pred_f) * (1 - share_female)) / pred.size
        perm_p = self._empirical_p(observed, random_acc, expected)
        perm_p_balanced = self._empirical_p(balanced, random_bal, 0.5) if math.isfinite(balanced) else math.nan
        if np.ptp(random_acc) == 0:
            warnings.warn(
                "gender probe: every random relabeling gives the same accuracy (the probe predicts one "
                "gender for all stereotype occurrences); the t-test p-value is NaN", RuntimeWarning, stacklevel=3,
            )
            t_p = math.nan
        else:
            t_p = float(stats.ttest_1samp(random_acc, popmean=observed).pvalue)
        return random_acc, perm_p, perm_p_balanced, t_p

    def _word_level(
        self, labels: np.ndarray | None, y: np.ndarray, p_f: np.ndarray, correct: np.ndarray, balanced: float,
    ) -> tuple[dict[str, float], float, float, list[float] | None, list[float] | None]:
        """Per-word mean P(female), word-level accuracies (plain and balanced) and the
        word-bootstrap intervals of the occurrence accuracies (plain, balanced); empty without words.
        """
        per_word: dict[str, float] = {}
        word_acc = word_bal = math.nan
        balanced_ci = plain_ci = None
        if labels is None:
            return per_word, word_acc, word_bal, plain_ci, balanced_ci
        for w in dict.fromkeys(labels):
            per_word[w] = float(p_f[labels == w].mean())
        word_gender, word_hits, word_n = _per_word_counts(labels, y, correct)
        word_right = (np.array(list(per_word.values())) > 0.5).astype(np.int64) == word_gender
        word_acc = float(word_right.mean())
        word_bal = _balanced_accuracy(word_gender, word_right.astype(float), np.ones(word_right.size))
        plain_ci = word_bootstrap_ci(
            _pooled_accuracy, word_gender, word_hits, word_n, n_bootstrap=int(self.n_bootstrap),
            confidence=float(self.confidence_level), rng=self._boot_rng,
        )
        if math.isfinite(balanced):
            balanced_ci = word_bootstrap_ci(
                _balanced_accuracy, word_gender, word_hits, word_n, n_bootstrap=int(self.n_bootstrap),
                confidence=float(self.confidence_level), rng=self._boot_rng,
            )
        return per_word, word_acc, word_bal, plain_ci, balanced_ci

    def is_paper_setting(self) -> bool:
        """Whether this is the paper's exact probe (logistic, C = 1, no class weights, raw features)."""
        return (
            self.classifier == "logistic" and check_C(self.C) == PAPER_PROBE["C"]
            and check_class_weight(self.class_weight) is None and not self.standardize
        )


def _stereotype_accuracies(correct: np.ndarray, y: np.ndarray) -> tuple[float, float, float, float]:
    """(accuracy, female accuracy, male accuracy, balanced accuracy) of the stereotype occurrences;
    a group without occurrences gets NaN and a warning.
    """
    observed = float(correct.mean())
    acc_f = float(correct[y == 1].mean()) if np.any(y == 1) else math.nan
    acc_m = float(correct[y == 0].mean()) if np.any(y == 0) else math.nan
    if math.isnan(acc_f) or math.isnan(acc_m):
        warnings.warn(
            "gender probe: the stereotype set has no " + ("female" if math.isnan(acc_f) else "male")
            + " occurrences; that group's stereotype accuracy is NaN", RuntimeWarning, stacklevel=3,
        )
    balanced = (acc_f + acc_m) / 2.0
    return observed, acc_f, acc_m, balanced


def gender_probe(
    female_attributes: Any,
    male_attributes: Any,
    female_stereotypes: Any,
    male_stereotypes: Any,
    *,
    female_attribute_words: Sequence[str] | None = None,
    male_attribute_words: Sequence[str] | None = None,
    female_stereotype_words: Sequence[str] | None = None,
    male_stereotype_words: Sequence[str] | None = None,
    classifier: str = "logistic",
    C: float | str = "cv",
    Cs: Sequence[float] = DEFAULT_CS,
    n_folds: int = 5,
    class_weight: str | None = "balanced",
    standardize: bool = True,
    test_size: float = 0.2,
    n_randomizations: int = 100,
    randomization_unit: str = "word",
    alternative: str = "two-sided",
    n_bins: int = 10,
    n_bootstrap: int = 1000,
    confidence_level: float = 0.95,
    max_iter: int = 1000,
    random_state: RandomStateLike = None,
) -> GenderProbeResult:
    r"""Run the gender probe of Tokpo et al. (2023, §3) on per-occurrence embeddings.

    Trains :class:`GenderProbe` on the attribute-word occurrences W_f / W_m (word-disjoint
    80/20 split per gender by default) and evaluates it on the stereotype occurrences X_f / X_m.
    The default probe is class-balanced, standardized and picks C by word-grouped
    cross-validation; ``**PAPER_PROBE`` (``C=1.0, class_weight=None, standardize=False``) gives
    the paper's exact probe.

    - gender accuracy: accuracy on the held-out attribute words' occurrences (and per word, by
      majority), with a word-bootstrap interval; Brier score and expected calibration error of
      its probabilities on those words;
    - stereotype accuracy (the paper's): accuracy of predicting the stereotypical gender of the
      X_f ∪ X_m occurrences, :math:`\frac{1}{N}\sum_i [\hat g(e_i) = g_i]`;
    - balanced stereotype accuracy: :math:`\frac{1}{2}(\text{acc}_{X_f} + \text{acc}_{X_m})`, 0.5
      for a probe with a default gender and no stereotype; word-level stereotype accuracy: each
      word once, by the mean probability of its occurrences;
    - stereotype confidence: :math:`\frac{1}{N} \sum_i |p_f(e_i) - 0.5|` over X_f ∪ X_m;
    - randomization p-value (the paper's): ``n_randomizations`` random splits of the stereotype
      words X into groups of the original sizes (``randomization_unit="word"``; or of the
      occurrences), accuracy against each, ``scipy.stats.ttest_1samp(random accuracies,
      observed accuracy)``. This t-test treats the observed accuracy as a constant, so it is small
      whenever the observed accuracy differs from the random ones by more than their standard
      error, which also happens often without any association; the empirical permutation p-value
      reported beside it, ``(1 + #{as extreme}) / (1 + n_randomizations)``, is the calibrated one.

    Each embedding argument is an ``embed_words`` result (``.embeddings``, ``.words``), an
    ``(embeddings, words)`` pair, or an array with the matching ``*_words`` argument (the word of
    each row). Stereotype word labels are needed for the default ``randomization_unit="word"``.
    Works on any embeddings (original or debiased).
    """
    fa, fw = as_occurrences(female_attributes, female_attribute_words, "female_attributes")
    ma, mw = as_occurrences(male_attributes, male_attribute_words, "male_attributes")
    fs, fsw = _maybe_words(female_stereotypes, female_stereotype_words, "female_stereotypes")
    ms, msw = _maybe_words(male_stereotypes, male_stereotype_words, "male_stereotypes")
    check_same_width({"female_attributes": fa, "male_attributes": ma, "female_stereotypes": fs, "male_stereotypes": ms})
    probe = GenderProbe(
        classifier, C=C, Cs=Cs, n_folds=n_folds, class_weight=class_weight, standardize=standardize,
        test_size=test_size, n_randomizations=n_randomizations, randomization_unit=randomization_unit,
        alternative=alternative, n_bins=n_bins, n_bootstrap=n_bootstrap, confidence_level=confidence_level,
        max_iter=max_iter, random_state=random_state,
    )
    probe.fit(np.concatenate([fa, ma]), np.concatenate([fw, mw]), np.r_[np.ones(len(fa), int), np.zeros(len(ma), int)])
    st_words = None
    if fsw is not None and msw is not None:
        st_words = np.concatenate([fsw, msw])
    return probe.evaluate(
        np.concatenate([fs, ms]), np.r_[np.ones(len(fs), int), np.zeros(len(ms), int)], words=st_words
    )


def _maybe_words(value: Any, words: Any, name: str) -> tuple[np.ndarray, np.ndarray | None]:
    if words is not None or hasattr(value, "words") or isinstance(value, tuple) or isinstance(value, dict):
        return as_occurrences(value, words, name)
    return as_embedding_matrix(value, name), None
