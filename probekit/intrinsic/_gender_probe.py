"""The gender probe of Tokpo et al. (2023, §3): is gender still linearly readable from an encoder,
and does a probe trained on attribute words assign stereotype words their stereotypical gender?
"""

from __future__ import annotations

import logging
import math
import warnings
from dataclasses import asdict, dataclass, field
from typing import Any, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.intrinsic._checks import (
    RandomStateLike,
    as_embedding_matrix,
    check_choice,
    check_fraction,
    check_positive_int,
    check_same_width,
    resolve_seed,
    spawn_generators,
)
from probekit.intrinsic._occurrences import as_occurrences

logger = logging.getLogger(__name__)

CLASSIFIERS = ("logistic", "linear_svm")
RANDOMIZATION_UNITS = ("occurrence", "word")
ALTERNATIVES = ("two-sided", "greater")
_FEMALE_LABELS = {"female", "f", "1", "woman", "women"}
_MALE_LABELS = {"male", "m", "0", "man", "men"}


@dataclass(frozen=True)
class GenderProbeResult:
    """Result of the gender probe.

    Attributes
    ----------
    gender_accuracy : float
        Accuracy on the occurrences of the held-out attribute words (high: the probe works).
    gender_accuracy_per_word : float
        Share of held-out attribute words whose occurrences are classified correctly by majority
        (ties broken by the mean predicted probability).
    stereotype_accuracy : float
        Accuracy of predicting the stereotypical gender of the X_f ∪ X_m occurrences (fair: 0.5).
    stereotype_accuracy_female, stereotype_accuracy_male : float
        The same on X_f and X_m alone (NaN when a group is empty).
    stereotype_confidence : float
        ``mean_i |p_female(e_i) - 0.5|`` over the stereotype occurrences (fair: low).
    randomization_p_value : float
        The paper's test: ``n_randomizations`` random relabelings of X with the original group
        sizes; ``scipy.stats.ttest_1samp(random_accuracies, observed)`` p-value (two-sided).
    permutation_p_value : float
        Empirical p-value from the same relabelings, ``(1 + #{as extreme}) / (1 + n_randomizations)``.
    random_accuracy_mean, random_accuracy_std : float
    random_accuracies : list of float
    train_words, test_words : dict
        ``{"female": [...], "male": [...]}``; the two never share a word.
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

    def to_dict(self) -> dict[str, Any]:
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


class GenderProbe:
    """Linear gender probe with a word-disjoint split and the paper's randomization test.

    Follows Tokpo et al. (2023, §3): a plain linear classifier on the raw embeddings (no feature
    standardization, so the probe sees the geometry SEAT and Sent-debias act on), trained on the
    embeddings of attribute words to predict female (1) / male (0).

    Parameters
    ----------
    classifier : {"logistic", "linear_svm"}
        scikit-learn ``LogisticRegression`` (default), or ``LinearSVC`` with sigmoid-calibrated
        probabilities (``CalibratedClassifierCV`` on word-disjoint folds of the training words).
    C : float
        Inverse regularization strength.
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
        Of the empirical permutation p-value (the t-test is two-sided, as in the paper).
    max_iter : int
        Iterations of the solver.
    random_state : int, numpy.random.Generator or None
        Seed of the split, the classifier and the relabelings (independent streams). ``None``
        draws a seed and records it.

    Attributes
    ----------
    classifier_ : fitted scikit-learn classifier
    train_words_, test_words_ : dict
    gender_accuracy_, gender_accuracy_per_word_ : float
    seed_ : int or None
    """

    def __init__(
        self,
        classifier: str = "logistic",
        *,
        C: float = 1.0,
        test_size: float = 0.2,
        n_randomizations: int = 100,
        randomization_unit: str = "word",
        alternative: str = "two-sided",
        max_iter: int = 1000,
        random_state: RandomStateLike = None,
    ):
        self.classifier = classifier
        self.C = C
        self.test_size = test_size
        self.n_randomizations = n_randomizations
        self.randomization_unit = randomization_unit
        self.alternative = alternative
        self.max_iter = max_iter
        self.random_state = random_state

    # -- fitting ------------------------------------------------------------------------------

    def _check_params(self) -> None:
        check_choice(self.classifier, "classifier", CLASSIFIERS)
        if isinstance(self.C, bool) or not isinstance(self.C, (int, float, np.floating)) or not self.C > 0:
            raise InvalidParameterError("C", self.C, "a positive number")
        check_fraction(self.test_size, "test_size")
        check_positive_int(self.n_randomizations, "n_randomizations", minimum=2)
        check_choice(self.randomization_unit, "randomization_unit", RANDOMIZATION_UNITS)
        check_choice(self.alternative, "alternative", ALTERNATIVES)
        check_positive_int(self.max_iter, "max_iter")

    def _make_classifier(self, y_train: np.ndarray, w_train: np.ndarray, seed: int) -> Any:
        if self.classifier == "logistic":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(C=float(self.C), max_iter=int(self.max_iter), random_state=seed)
        from sklearn.calibration import CalibratedClassifierCV
        from sklearn.svm import LinearSVC

        folds = self._word_folds(y_train, w_train, seed)
        return CalibratedClassifierCV(
            LinearSVC(C=float(self.C), max_iter=int(self.max_iter), random_state=seed),
            method="sigmoid", cv=folds,
        )

    @staticmethod
    def _word_folds(y: np.ndarray, words: np.ndarray, seed: int) -> list[tuple[np.ndarray, np.ndarray]]:
        """Word-disjoint calibration folds with both genders on each side."""
        rng = np.random.default_rng(seed)
        per_gender = [list(dict.fromkeys(words[y == g])) for g in (1, 0)]
        k = min(3, min(len(ws) for ws in per_gender))
        if k < 2:
            raise InvalidParameterError(
                "classifier", "linear_svm", "'logistic'",
                "calibrating the SVM needs at least 2 training words per gender",
            )
        fold_of: dict[str, int] = {}
        for ws in per_gender:
            for j, w in enumerate(rng.permutation(np.asarray(ws, dtype=object))):
                fold_of[w] = j % k
        assignment = np.array([fold_of[w] for w in words])
        return [(np.flatnonzero(assignment != f), np.flatnonzero(assignment == f)) for f in range(k)]

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
        split_rng, clf_rng, self._rand_rng = spawn_generators(source, 3)
        self.seed_ = seed

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
            shuffled = [vocab[i] for i in split_rng.permutation(len(vocab))]
            n_test = min(len(vocab) - 1, max(1, int(round(self.test_size * len(vocab)))))
            test_words[gname] = sorted(shuffled[:n_test])
            train_words[gname] = sorted(shuffled[n_test:])
        test_set = set(test_words["female"]) | set(test_words["male"])
        is_test = np.array([w in test_set for w in labels])
        X_train, y_train, w_train = X[~is_test], y[~is_test], labels[~is_test]
        X_test, y_test, w_test = X[is_test], y[is_test], labels[is_test]
        if np.unique(y_train).size < 2:  # pragma: no cover - prevented by the per-gender split
            raise InvalidParameterError("genders", "one gender in the training split", "both genders")

        clf_seed = int(clf_rng.integers(0, 2**31 - 1))
        self.classifier_ = self._make_classifier(y_train, w_train, clf_seed)
        self.classifier_.fit(X_train, y_train)
        self.dim_ = X.shape[1]
        self.train_words_ = train_words
        self.test_words_ = test_words
        self.n_train_ = int(X_train.shape[0])
        self.n_test_ = int(X_test.shape[0])

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
        return self

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

    def evaluate(self, embeddings: Any, genders: Any, words: Sequence[str] | None = None) -> GenderProbeResult:
        """Stereotype accuracy, confidence and the randomization test on stereotype occurrences.

        Parameters
        ----------
        embeddings : array of shape (n_occurrences, dim)
            Occurrences of X_f ∪ X_m (never trained on).
        genders : sequence
            Stereotypical gender of each row.
        words : sequence of str, optional
            Word of each row; needed for ``randomization_unit="word"`` and for per-word
            probabilities in the result.
        """
        self._check_fitted()
        from scipy import stats

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
        y = _gender_labels(genders, X.shape[0], "stereotype genders")
        p_f = self.predict_proba_female(X)
        pred = (p_f > 0.5).astype(np.int64)
        correct = pred == y
        observed = float(correct.mean())
        acc_f = float(correct[y == 1].mean()) if np.any(y == 1) else math.nan
        acc_m = float(correct[y == 0].mean()) if np.any(y == 0) else math.nan
        if math.isnan(acc_f) or math.isnan(acc_m):
            warnings.warn(
                "gender probe: the stereotype set has no " + ("female" if math.isnan(acc_f) else "male")
                + " occurrences; that group's stereotype accuracy is NaN", RuntimeWarning, stacklevel=2,
            )
        confidence = float(np.mean(np.abs(p_f - 0.5)))

        # Relabelings with the original group sizes.
        R = int(self.n_randomizations)
        rng = self._rand_rng
        if self.randomization_unit == "occurrence":
            unit_labels = y
            permuted = rng.permuted(np.broadcast_to(unit_labels, (R, y.size)), axis=1)
        else:
            assert labels is not None
            vocab = list(dict.fromkeys(labels))
            mixed = [w for w in vocab if np.unique(y[labels == w]).size > 1]
            if mixed:
                raise InvalidParameterError("genders", mixed[:5], "one stereotypical gender per stereotype word")
            unit_of = _index_of(labels, vocab)
            unit_labels = np.array([y[labels == w][0] for w in vocab])
            permuted = rng.permuted(np.broadcast_to(unit_labels, (R, unit_labels.size)), axis=1)[:, unit_of]
        random_acc = (permuted == pred[None, :]).mean(axis=1)
        share_female = float(unit_labels.mean())
        n_pred_f = float(pred.sum())
        expected = (n_pred_f * share_female + (pred.size - n_pred_f) * (1 - share_female)) / pred.size
        tol = 1e-12
        if self.alternative == "greater":
            extreme = int(np.count_nonzero(random_acc >= observed - tol))
        else:
            extreme = int(np.count_nonzero(np.abs(random_acc - expected) >= abs(observed - expected) - tol))
        perm_p = (1 + extreme) / (1 + R)
        if np.ptp(random_acc) == 0:
            warnings.warn(
                "gender probe: every random relabeling gives the same accuracy (the probe predicts one "
                "gender for all stereotype occurrences); the t-test p-value is NaN", RuntimeWarning, stacklevel=2,
            )
            t_p = math.nan
        else:
            t_p = float(stats.ttest_1samp(random_acc, popmean=observed).pvalue)

        per_word: dict[str, float] = {}
        if labels is not None:
            for w in dict.fromkeys(labels):
                per_word[w] = float(p_f[labels == w].mean())
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
            n_randomizations=R,
            randomization_unit=self.randomization_unit,
            alternative=self.alternative,
            train_words={k: list(v) for k, v in self.train_words_.items()},
            test_words={k: list(v) for k, v in self.test_words_.items()},
            n_train=self.n_train_,
            n_test=self.n_test_,
            n_stereotype=int(X.shape[0]),
            classifier=self.classifier,
            C=float(self.C),
            test_size=float(self.test_size),
            random_state=self.seed_,
            stereotype_word_p_female=per_word,
        )


def _index_of(labels: np.ndarray, vocab: list[str]) -> np.ndarray:
    where = {w: i for i, w in enumerate(vocab)}
    return np.array([where[w] for w in labels])


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
    C: float = 1.0,
    test_size: float = 0.2,
    n_randomizations: int = 100,
    randomization_unit: str = "word",
    alternative: str = "two-sided",
    max_iter: int = 1000,
    random_state: RandomStateLike = None,
) -> GenderProbeResult:
    """Run the gender probe of Tokpo et al. (2023, §3) on per-occurrence embeddings.

    Trains :class:`GenderProbe` on the attribute-word occurrences W_f / W_m (word-disjoint
    80/20 split per gender by default) and evaluates it on the stereotype occurrences X_f / X_m.

    - gender accuracy: accuracy on the held-out attribute words' occurrences (and per word, by
      majority);
    - stereotype accuracy: accuracy of predicting the stereotypical gender of X_f ∪ X_m;
    - stereotype confidence: :math:`\\frac{1}{N} \\sum_i |p_f(e_i) - 0.5|` over X_f ∪ X_m;
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
        classifier, C=C, test_size=test_size, n_randomizations=n_randomizations,
        randomization_unit=randomization_unit, alternative=alternative, max_iter=max_iter,
        random_state=random_state,
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
