"""Readers: the probe families that ask whether a concept can be read from representations.

A method built to defeat linear readers (INLP, LEACE, Sent-debias) is judged too kindly when only a
linear reader looks for what it removed: nonlinear readers can still recover a concept that no linear
one can (Ravfogel et al. 2022, "Kernelized concept erasure"; Belrose et al. 2023, LEACE §6 on oracle
erasure *raising* what nonlinear readers find). Three families share one estimator API
(``fit(X, y, groups)``, ``predict_log_proba``, ``predict_proba``, ``predict``):

- :class:`LinearReader` — the project's linear probe (:func:`probekit.intrinsic.fit_linear_probe`);
- :class:`MLPReader` — a multilayer perceptron (one or two hidden layers) whose width, L2 strength and
  number of epochs (early stopping) are chosen by cross-validation grouped by word;
- :class:`KernelReader` — an RBF kernel through a Nyström feature map (Williams & Seeger 2001) followed
  by the linear probe.

Every reader first drops near-constant columns (:class:`DegenerateColumnFilter`) and standardizes the
rest with statistics of its training rows; ``n_dropped_columns_`` says how many were dropped.
"""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.intrinsic._linear_probe import (
    DEFAULT_CS,
    DegenerateColumnFilter,
    _one_blas_thread,
    check_C,
    check_class_weight,
    check_Cs,
    fit_linear_probe,
    word_grouped_folds,
    words_per_class,
)
from probekit.utils import Interval, Options, as_embedding_matrix, declared_constraints, validate_parameters

#: The reader families, in the order the verdict lists them; the first is the linear one.
READERS = ("linear", "mlp", "kernel")
NONLINEAR_READERS = ("mlp", "kernel")


def _log_softmax_scores(scores: np.ndarray) -> np.ndarray:
    """Log-probabilities from decision scores: a binary model's log-odds become two columns."""
    from scipy.special import log_softmax

    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim == 1:
        scores = np.column_stack([np.zeros_like(scores), scores])
    return log_softmax(scores, axis=1)


def balanced_sample_weight(y: np.ndarray, class_weight: str | None) -> np.ndarray:
    """``n / (K * n_k)`` for a row of class k with ``"balanced"`` (scikit-learn's rule), else ones."""
    if class_weight != "balanced":
        return np.ones(y.size)
    counts = np.bincount(y)
    present = np.count_nonzero(counts)
    return y.size / (present * counts[y])


class _Reader:
    """Shared steps: labels to codes, degenerate columns dropped, standardization, prediction."""

    family = ""

    def get_params(self, deep: bool = True) -> dict[str, Any]:
        import inspect

        return {name: getattr(self, name) for name in inspect.signature(type(self).__init__).parameters if name != "self"}

    def fit(self, X: Any, y: Any, groups: Sequence[str] | None = None) -> "_Reader":
        """Fit on rows ``X`` with labels ``y``; ``groups`` (the word of each row) group the cross-validation.

        Without ``groups`` every row is its own group.
        """
        self._check_params()
        X = as_embedding_matrix(X, "X")
        values = np.asarray(y).ravel()
        if values.size != X.shape[0]:
            raise InvalidParameterError("y", f"{values.size} labels", f"one label per row of X ({X.shape[0]})")
        self.classes_, codes = np.unique(values, return_inverse=True)
        if self.classes_.size < 2:
            raise InvalidParameterError("y", f"{self.classes_.size} distinct label(s)", "at least two classes")
        groups = np.arange(X.shape[0]).astype(str) if groups is None else np.asarray([str(g) for g in groups])
        if groups.size != X.shape[0]:
            raise InvalidParameterError("groups", f"{groups.size} groups", f"one group per row of X ({X.shape[0]})")
        self.filter_ = DegenerateColumnFilter().fit(X)
        self.n_dropped_columns_ = self.filter_.n_dropped_
        self.n_features_in_ = X.shape[1]
        kept = self.filter_.transform(X)
        self.mean_ = kept.mean(axis=0)
        std = kept.std(axis=0)
        self.scale_ = np.where(std > 0, std, 1.0)
        with _one_blas_thread():
            self._fit_features((kept - self.mean_) / self.scale_, codes, groups)
        return self

    def _features(self, X: Any) -> np.ndarray:
        if not hasattr(self, "filter_"):
            raise InvalidParameterError("reader", f"an unfitted {type(self).__name__}", "a reader after fit()")
        X = as_embedding_matrix(X, "X")
        if X.shape[1] != self.n_features_in_:
            raise InvalidParameterError("X", f"width {X.shape[1]}", f"width {self.n_features_in_} (as in fit)")
        return (self.filter_.transform(X) - self.mean_) / self.scale_

    def predict_log_proba(self, X: Any) -> np.ndarray:
        """Natural-log class probabilities, columns in the order of ``classes_`` (exact in the tails)."""
        Z = self._features(X)
        with _one_blas_thread():
            return self._log_proba(Z)

    def predict_proba(self, X: Any) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: Any) -> np.ndarray:
        """The most probable class of each row."""
        return self.classes_[np.argmax(self.predict_log_proba(X), axis=1)]

    def uniform_preferred(self) -> bool:
        """Whether the uniform code is within one standard error of the chosen model's validation log
        loss (Hastie, Tibshirani & Friedman 2009, §7.10): the online code then sends the block uniformly.
        """
        scores = getattr(self, "best_fold_scores_", None)
        if scores is None or scores.size < 2:
            return scores is None
        se = float(scores.std(ddof=1) / math.sqrt(scores.size))
        return -math.log(self.classes_.size) >= float(scores.mean()) - se


class LinearReader(_Reader):
    """The linear probe as a reader: logistic regression on standardized, non-degenerate columns, C
    chosen by word-grouped cross-validation (log loss) as in :func:`probekit.intrinsic.fit_linear_probe`.

    Parameters
    ----------
    C : float or "cv"
    Cs : sequence of float
    n_folds : int
    class_weight : {"balanced", None}
    max_iter : int
    random_state : int

    Attributes
    ----------
    classes_, n_dropped_columns_, model_, params_, selection_, best_fold_scores_
    """

    family = "linear"
    _parameter_constraints = {
        "C": [Interval(float, 0, None, closed="neither"), Options("cv")],
        "Cs": [tuple, list],
        "n_folds": [Interval(int, 2, None)],
        "class_weight": [Options("balanced"), None],
        "max_iter": [Interval(int, 1, None)],
        "random_state": ["random_state"],
    }

    def __init__(self, C: float | str = "cv", Cs: Sequence[float] = DEFAULT_CS, n_folds: int = 5,
                 class_weight: str | None = "balanced", max_iter: int = 1000, random_state: int = 0):
        self.C = C
        self.Cs = Cs
        self.n_folds = n_folds
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.random_state = random_state

    def _check_params(self) -> None:
        validate_parameters(self.get_params(), declared_constraints(type(self)))
        check_Cs(self.Cs)

    def _fit_features(self, Z: np.ndarray, y: np.ndarray, groups: np.ndarray) -> None:
        fitted = fit_linear_probe(Z, y, groups, C=check_C(self.C), Cs=check_Cs(self.Cs), n_folds=int(self.n_folds),
                                  class_weight=check_class_weight(self.class_weight), standardize=False,
                                  max_iter=int(self.max_iter), seed=int(self.random_state))
        self.model_ = fitted.model
        self.params_ = {"C": fitted.C}
        self.selection_ = fitted.C_selection
        self.best_fold_scores_ = None
        if fitted.fold_scores is not None:
            column = list(check_Cs(self.Cs)).index(fitted.C) if fitted.C in check_Cs(self.Cs) else 0
            self.best_fold_scores_ = np.asarray(fitted.fold_scores)[:, column]

    def _log_proba(self, Z: np.ndarray) -> np.ndarray:
        return _log_softmax_scores(self.model_.decision_function(Z))


class KernelReader(_Reader):
    r"""An RBF-kernel reader: a Nyström map of :math:`k(x, x') = \exp(-\gamma \lVert x - x' \rVert^2)`
    (Williams & Seeger 2001; scikit-learn ``Nystroem``) on the standardized columns, then the linear
    probe on the (standardized) features with C chosen by word-grouped cross-validation.

    Parameters
    ----------
    n_components : int
        Landmark rows of the Nyström map (at most the training rows).
    gamma : float or None
        Kernel width; ``None``: :math:`1 / d` for ``d`` kept columns (unit-variance columns put the
        typical :math:`\gamma \lVert x - x' \rVert^2` near 2).
    C, Cs, n_folds, class_weight, max_iter, random_state
        As :class:`LinearReader`.
    """

    family = "kernel"
    _parameter_constraints = {
        **LinearReader._parameter_constraints,
        "n_components": [Interval(int, 1, None)],
        "gamma": [Interval(float, 0, None, closed="neither"), None],
    }

    def __init__(self, n_components: int = 300, gamma: float | None = None, C: float | str = "cv",
                 Cs: Sequence[float] = DEFAULT_CS, n_folds: int = 5, class_weight: str | None = "balanced",
                 max_iter: int = 1000, random_state: int = 0):
        self.n_components = n_components
        self.gamma = gamma
        self.C = C
        self.Cs = Cs
        self.n_folds = n_folds
        self.class_weight = class_weight
        self.max_iter = max_iter
        self.random_state = random_state

    def _check_params(self) -> None:
        validate_parameters(self.get_params(), declared_constraints(type(self)))
        check_Cs(self.Cs)

    def _fit_features(self, Z: np.ndarray, y: np.ndarray, groups: np.ndarray) -> None:
        from sklearn.kernel_approximation import Nystroem

        gamma = float(self.gamma) if self.gamma is not None else 1.0 / Z.shape[1]
        self.map_ = Nystroem(kernel="rbf", gamma=gamma, n_components=min(int(self.n_components), Z.shape[0]),
                             random_state=int(self.random_state)).fit(Z)
        linear = LinearReader(C=self.C, Cs=self.Cs, n_folds=self.n_folds, class_weight=self.class_weight,
                              max_iter=self.max_iter, random_state=self.random_state)
        self.linear_ = linear.fit(self.map_.transform(Z), y, groups)
        self.params_ = {"gamma": gamma, "n_components": int(self.map_.n_components), **linear.params_}
        self.selection_ = linear.selection_
        self.best_fold_scores_ = linear.best_fold_scores_

    def _log_proba(self, Z: np.ndarray) -> np.ndarray:
        return self.linear_._log_proba(self.linear_._features(self.map_.transform(Z)))


class MLPReader(_Reader):
    """A multilayer perceptron reader (ReLU, Adam, L2 penalty ``alpha``; scikit-learn ``MLPClassifier``
    trained epoch by epoch with ``partial_fit``).

    Capacity (``hidden_layer_sizes``), regularization (``alphas``) and the number of epochs are chosen
    together by cross-validation grouped by word: every candidate is trained on each fold's training
    words for up to ``max_epochs`` epochs, its validation log loss recorded after every epoch (a fold
    stops after ``patience`` epochs without improvement and keeps its last score); the (candidate,
    epoch) with the best mean validation log loss wins and is refitted on all rows for that many
    epochs. That epoch count is the early stopping, decided on unseen words.

    Parameters
    ----------
    hidden_layer_sizes : sequence of tuple of int
        Candidate architectures (one or two hidden layers).
    alphas : sequence of float
        Candidate L2 strengths.
    max_epochs, patience : int
    batch_size : int
        Smallest minibatch; larger data get ``ceil(n / 100)`` rows per step (about 100 steps per epoch).
    learning_rate : float
        Adam's initial step.
    n_folds : int
    class_weight : {"balanced", None}
        ``"balanced"``: sample weights ``n / (K n_k)`` in training and in the validation log loss.
    random_state : int
    """

    family = "mlp"
    _parameter_constraints = {
        "hidden_layer_sizes": [tuple, list],
        "alphas": [tuple, list],
        "max_epochs": [Interval(int, 1, None)],
        "patience": [Interval(int, 1, None)],
        "batch_size": [Interval(int, 1, None)],
        "learning_rate": [Interval(float, 0, None, closed="neither")],
        "n_folds": [Interval(int, 2, None)],
        "class_weight": [Options("balanced"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, hidden_layer_sizes: Sequence[tuple[int, ...]] = ((64,), (64, 64)),
                 alphas: Sequence[float] = (1e-3, 1e-1), max_epochs: int = 40, patience: int = 8,
                 batch_size: int = 32, learning_rate: float = 1e-2, n_folds: int = 3,
                 class_weight: str | None = "balanced", random_state: int = 0):
        self.hidden_layer_sizes = hidden_layer_sizes
        self.alphas = alphas
        self.max_epochs = max_epochs
        self.patience = patience
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.n_folds = n_folds
        self.class_weight = class_weight
        self.random_state = random_state

    def _check_params(self) -> None:
        validate_parameters(self.get_params(), declared_constraints(type(self)))
        sizes = list(self.hidden_layer_sizes)
        if not sizes or any(not 1 <= len(tuple(h)) <= 2 or any(int(u) < 1 for u in h) for h in sizes):
            raise InvalidParameterError("hidden_layer_sizes", self.hidden_layer_sizes,
                                        "a non-empty list of one- or two-layer widths, e.g. [(64,), (64, 64)]")
        check_Cs(self.alphas, "alphas")

    def _candidates(self) -> list[tuple[tuple[int, ...], float]]:
        return [(tuple(int(u) for u in h), float(a)) for h in self.hidden_layer_sizes for a in self.alphas]

    def _train(self, Z: np.ndarray, y: np.ndarray, n_classes: int, hidden: tuple[int, ...], alpha: float,
               epochs: int, validation: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[Any, np.ndarray]:
        """Train for up to ``epochs`` epochs; with ``validation`` (Z, y) the curve of minus the (weighted)
        validation log loss after each epoch, padded with its last value after an early stop.
        """
        from sklearn.neural_network import MLPClassifier

        # At least batch_size rows per step and at most ~100 steps per epoch: on 15,000 occurrences the
        # epoch costs the same arithmetic in 100 steps as in 470, without the per-step overhead.
        batch = min(y.size, max(int(self.batch_size), -(-y.size // 100)))
        model = MLPClassifier(hidden_layer_sizes=hidden, alpha=alpha, batch_size=batch,
                              learning_rate_init=float(self.learning_rate), random_state=int(self.random_state))
        weights = balanced_sample_weight(y, self.class_weight)
        classes = np.arange(n_classes)
        curve = np.full(epochs, -np.inf)
        best, since = -np.inf, 0
        for epoch in range(epochs):
            model.partial_fit(Z, y, sample_weight=weights, classes=classes)
            if validation is None:
                continue
            Zv, yv = validation
            log_p = _log_softmax_scores(_mlp_logits(model, Zv))
            wv = balanced_sample_weight(yv, self.class_weight)
            curve[epoch] = float(np.sum(wv * log_p[np.arange(yv.size), yv]) / wv.sum())
            best, since = (curve[epoch], 0) if curve[epoch] > best else (best, since + 1)
            if since >= int(self.patience):
                curve[epoch + 1:] = curve[epoch]
                break
        return model, curve

    def _fit_features(self, Z: np.ndarray, y: np.ndarray, groups: np.ndarray) -> None:
        K = self.classes_.size
        candidates = self._candidates()
        k = min(int(self.n_folds), words_per_class(y, groups))
        self.best_fold_scores_ = None
        if k < 2:
            (hidden, alpha), epochs = candidates[0], int(self.max_epochs)
            self.selection_ = "fixed (fewer than 2 words per class to cross-validate)"
        else:
            folds = word_grouped_folds(y, groups, k, int(self.random_state))
            curves = np.stack([
                np.stack([self._train(Z[tr], y[tr], K, h, a, int(self.max_epochs), (Z[va], y[va]))[1] for tr, va in folds])
                for h, a in candidates
            ])  # (candidate, fold, epoch)
            mean = curves.mean(axis=1)
            c, e = np.unravel_index(int(np.argmax(mean)), mean.shape)
            (hidden, alpha), epochs = candidates[c], int(e) + 1
            self.best_fold_scores_ = curves[c, :, e]
            self.selection_ = f"{k}-fold word-grouped CV (log loss) over {len(candidates)} candidates and epochs"
        self.model_, _ = self._train(Z, y, K, hidden, alpha, epochs)
        self.params_ = {"hidden_layer_sizes": list(hidden), "alpha": alpha, "epochs": epochs}

    def _log_proba(self, Z: np.ndarray) -> np.ndarray:
        return _log_softmax_scores(_mlp_logits(self.model_, Z))


def _mlp_logits(model: Any, Z: np.ndarray) -> np.ndarray:
    """The output layer's pre-activation of a ReLU ``MLPClassifier`` (its log-odds for two classes),
    computed from ``coefs_`` and ``intercepts_`` so that tiny probabilities keep their exact logs.
    """
    h = Z
    last = len(model.coefs_) - 1
    for i, (W, b) in enumerate(zip(model.coefs_, model.intercepts_)):
        h = h @ W + b
        if i < last:
            np.maximum(h, 0.0, out=h)
    return h[:, 0] if h.shape[1] == 1 else h


_FAMILIES = {"linear": LinearReader, "mlp": MLPReader, "kernel": KernelReader}


def make_reader(name: str, **params: Any) -> _Reader:
    """A reader of family ``name`` (``"linear"``, ``"mlp"`` or ``"kernel"``) with ``params``."""
    if name not in _FAMILIES:
        raise InvalidParameterError("reader", name, list(READERS))
    return _FAMILIES[name](**params)


def check_readers(value: Any, parameter: str = "readers") -> tuple[str, ...]:
    """``"linear,mlp"`` or a sequence of names -> a tuple in :data:`READERS` order, the linear one first."""
    names = [v.strip().lower() for v in value.split(",")] if isinstance(value, str) else [str(v) for v in value or ()]
    names = [n for n in names if n]
    unknown = [n for n in names if n not in READERS]
    if not names or unknown:
        raise InvalidParameterError(parameter, value, "a comma-separated subset of " + ",".join(READERS))
    return tuple(n for n in READERS if n in names)
