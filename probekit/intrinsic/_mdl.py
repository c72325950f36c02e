"""Minimum description length of labels given representations: the online code (Voita & Titov 2020).

Accuracy of a linear probe says whether a label is linearly readable, not how much of it the
representation holds, and it saturates: two encoders can both reach 1.0. The online codelength
measures how many bits it takes to transmit the labels when sender and receiver share the
representations and a probe family, learning as they go. Readily extractable labels cost few bits;
labels the representation knows nothing about cost as much as the uniform code.
"""

from __future__ import annotations

import logging
import math
from dataclasses import asdict, dataclass
from typing import Any, Sequence

import numpy as np

from probekit.errors import InvalidParameterError
from probekit.intrinsic._linear_probe import DEFAULT_CS, check_C, check_Cs, fit_linear_probe, make_pipeline, words_per_class
from probekit.intrinsic._readers import READERS, make_reader
from probekit.utils import (
    RandomStateLike,
    as_embedding_matrix,
    check_choice,
    check_positive_int,
    resolve_seed,
    spawn_generators,
)

logger = logging.getLogger(__name__)

#: Block ends as shares of the data: 0.1, 0.2, 0.4, 0.8, 1.6, 3.2, 6.25, 12.5, 25, 50 and 100 %
#: (the schedule of Voita & Titov 2020, §2.2.2).
DEFAULT_FRACTIONS = (0.001, 0.002, 0.004, 0.008, 0.016, 0.032, 0.0625, 0.125, 0.25, 0.5, 1.0)
UNITS = ("word", "occurrence")


@dataclass(frozen=True)
class MdlResult:
    """Online codelength of labels given embeddings.

    Attributes
    ----------
    online_codelength : float
        Bits to transmit the labels with the online code (lower: more information is extractable).
    uniform_codelength : float
        ``n * log2(K)``: bits without the representation.
    compression : float
        ``uniform_codelength / online_codelength`` (1: nothing extractable; higher: more).
    n : int
        Labelled rows (occurrences).
    n_classes : int
        ``K``, the number of distinct labels.
    n_words : int or None
        Distinct words when ``unit="word"``.
    unit : {"word", "occurrence"}
        What the data were shuffled and blocked by.
    block_ends : list of int
        ``t_1 < ... < t_S = n``: rows transmitted after each block.
    block_codelengths : list of float
        Bits of each block; the first is the uniform code ``t_1 * log2(K)``.
    block_C : list of float or None
        C of the logistic regression that coded each block (``None``: sent with the uniform code,
        the first block and any block before a probe could be trained).
    fractions : list of float
        The requested schedule.
    C : float or "cv"
        The setting: a fixed C, or "cv" (chosen per block).
    standardize, shuffled : bool
    random_state : int or None
        Seed of the order (recorded; ``None`` when a Generator was passed).
    reader : {"linear", "mlp", "kernel"}
        The probe family that coded the blocks.
    block_params : list of dict or None
        Hyperparameters of each block's reader when ``reader`` is not "linear" (``None``: uniform code).
    n_dropped_columns : int
        Near-constant columns the last block's probe dropped before scaling.
    """

    online_codelength: float
    uniform_codelength: float
    compression: float
    n: int
    n_classes: int
    n_words: int | None
    unit: str
    block_ends: list[int]
    block_codelengths: list[float]
    block_C: list[float | None]
    fractions: list[float]
    C: float | str
    standardize: bool
    shuffled: bool
    random_state: int | None
    reader: str = "linear"
    block_params: list[dict[str, Any] | None] | None = None
    n_dropped_columns: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The result as a JSON-ready dict (every field)."""
        return asdict(self)


def _check_fractions(fractions: Any) -> list[float]:
    try:
        values = [float(f) for f in fractions]
    except (TypeError, ValueError):
        raise InvalidParameterError("fractions", fractions, "an increasing sequence of shares in (0, 1] ending at 1") from None
    if (
        not values
        or any(not 0.0 < f <= 1.0 for f in values)
        or any(b <= a for a, b in zip(values, values[1:]))
        or values[-1] != 1.0
    ):
        raise InvalidParameterError("fractions", fractions, "an increasing sequence of shares in (0, 1] ending at 1")
    if len(values) < 2:
        raise InvalidParameterError("fractions", fractions, "at least two block ends (one uniform block, one coded)")
    return values


def block_ends(n: int, fractions: Sequence[float], word_ends: np.ndarray | None = None) -> list[int]:
    """Row counts ``t_1 < ... < t_S = n`` after each block.

    ``t_i = max(1, floor(f_i * n))``; with ``word_ends`` (the row count at the end of each word,
    in transmission order) each ``t_i`` moves up to the end of the word it falls in, so that no
    word is split between two blocks. Repeated ends are merged.
    """
    ends: list[int] = []
    for f in fractions:
        t = max(1, min(n, int(math.floor(f * n + 1e-9))))
        if word_ends is not None:
            t = int(word_ends[np.searchsorted(word_ends, t)])
        if not ends or t > ends[-1]:
            ends.append(t)
    if ends[-1] != n:
        ends.append(n)
    return ends


def _transmission_order(
    n: int, words: np.ndarray | None, rng: np.random.Generator | None
) -> tuple[np.ndarray, np.ndarray | None]:
    """The order rows are sent in, and with ``words`` the row count at the end of each word.

    Random (``rng``) or as given (``None``); with ``words`` all rows of a word are consecutive,
    words in random order (or in order of first appearance).
    """
    if words is None:
        return (rng.permutation(n) if rng is not None else np.arange(n)), None
    vocabulary, first, codes = np.unique(words, return_index=True, return_inverse=True)
    rank = np.empty(vocabulary.size, dtype=np.int64)
    rank[rng.permutation(vocabulary.size) if rng is not None else np.argsort(first)] = np.arange(vocabulary.size)
    order = np.argsort(rank[codes], kind="stable")
    sizes = np.bincount(rank[codes], minlength=vocabulary.size)
    return order, np.cumsum(sizes)


def one_se_choice(fold_scores: np.ndarray, Cs: Sequence[float], uniform_score: float) -> float | None:
    """The simplest candidate whose mean validation score is within one standard error of the best.

    Candidates, simplest first: the uniform code (score ``uniform_score`` on every fold, returned
    as ``None``), then the Cs from the strongest regularization (smallest C) to the weakest.
    ``fold_scores`` has shape ``(n_folds, len(Cs))`` (higher is better, e.g. minus the log loss);
    the standard error is that of the best candidate's fold scores, ``std(ddof=1) / sqrt(n_folds)``
    (the "one-standard-error rule", Hastie, Tibshirani & Friedman 2009, §7.10).
    """
    scores = np.asarray(fold_scores, dtype=float)
    order = np.argsort(np.asarray(Cs, dtype=float), kind="stable")
    means = scores.mean(axis=0)
    best = int(np.argmax(means))
    se = float(scores[:, best].std(ddof=1) / math.sqrt(scores.shape[0])) if scores.shape[0] > 1 else 0.0
    threshold = means[best] - se
    if uniform_score >= threshold:
        return None
    for j in order:
        if means[j] >= threshold:
            return float(Cs[j])
    return float(Cs[best])  # pragma: no cover - the best candidate always passes


def _block_bits(
    X_train: np.ndarray, y_train: np.ndarray, g_train: np.ndarray, X_next: np.ndarray, y_next: np.ndarray,
    n_classes: int, *, C: float | str, Cs: Sequence[float], n_folds: int, standardize: bool, max_iter: int, seed: int,
    reader: str = "linear",
) -> tuple[float, float | dict[str, Any] | None, int]:
    """``sum_j -log2 p(y_j | x_j)`` over the next block under a model trained on the rows before it,
    and the C used (``None``: uniform code).

    A model needs every class among the rows so far (no classifier gives an unseen class any
    probability) and, to choose C by grouped cross-validation, at least two words per class.
    Until then the block is sent with the uniform code, like the first block. (The add-one
    frequency code is no safer: its counts treat a word's near-duplicate occurrences as
    independent evidence and bet heavily on the class seen so far.) With ``C="cv"`` the uniform
    code is itself a candidate of the cross-validation, chosen by the one-standard-error rule
    (:func:`one_se_choice`): on a handful of words a lucky fold can favour a weakly regularized
    probe that then bets confidently on the next block; the rule sends such blocks uniformly.
    """
    from scipy.special import log_softmax

    uniform_bits = float(y_next.size * math.log2(n_classes))
    counts = np.bincount(y_train, minlength=n_classes)
    if np.count_nonzero(counts) < n_classes or (C == "cv" and words_per_class(y_train, g_train) < 2):
        return uniform_bits, None, 0
    if reader != "linear":
        return _reader_block_bits(X_train, y_train, g_train, X_next, y_next, reader=reader, n_folds=n_folds, seed=seed,
                                  uniform_bits=uniform_bits)
    fitted = fit_linear_probe(
        X_train, y_train, g_train, C=C, Cs=Cs, n_folds=n_folds, class_weight=None, standardize=standardize,
        max_iter=max_iter, seed=seed,
    )
    model, used_C = fitted.model, fitted.C
    if C == "cv" and fitted.fold_scores is not None:
        choice = one_se_choice(fitted.fold_scores, Cs, uniform_score=-math.log(n_classes))
        if choice is None:
            return uniform_bits, None, 0
        if choice != fitted.C:
            model = make_pipeline("logistic", choice, class_weight=None, standardize=standardize, max_iter=max_iter,
                                  seed=seed)
            model.fit(X_train, y_train)
            used_C = choice
    scores = model.decision_function(X_next)
    if n_classes == 2:
        # decision_function is the log-odds of class 1; log_softmax keeps tiny probabilities exact.
        scores = np.column_stack([np.zeros_like(scores), scores])
    log_p = log_softmax(scores, axis=1)
    dropped = int(model.named_steps["drop"].n_dropped_)
    return float(-log_p[np.arange(y_next.size), y_next].sum() / math.log(2.0)), used_C, dropped


def _reader_block_bits(
    X_train: np.ndarray, y_train: np.ndarray, g_train: np.ndarray, X_next: np.ndarray, y_next: np.ndarray, *,
    reader: str, n_folds: int, seed: int, uniform_bits: float,
) -> tuple[float, dict[str, Any] | None, int]:
    """The next block's bits under a reader of family ``reader`` (unweighted classes, hyperparameters by
    word-grouped cross-validation on the rows before the block), or the uniform code when that is
    within one standard error of the reader's validation log loss (``uniform_preferred`` of the fitted reader).
    """
    fitted = make_reader(reader, n_folds=n_folds, class_weight=None, random_state=seed).fit(X_train, y_train, g_train)
    if fitted.uniform_preferred():
        return uniform_bits, None, int(fitted.n_dropped_columns_)
    log_p = fitted.predict_log_proba(X_next)
    return float(-log_p[np.arange(y_next.size), y_next].sum() / math.log(2.0)), dict(fitted.params_), int(
        fitted.n_dropped_columns_)


def mdl_probe(
    embeddings: Any,
    labels: Any,
    *,
    words: Sequence[str] | None = None,
    unit: str = "word",
    fractions: Sequence[float] = DEFAULT_FRACTIONS,
    C: float | str = "cv",
    Cs: Sequence[float] = DEFAULT_CS,
    n_folds: int = 3,
    standardize: bool = True,
    shuffle: bool = True,
    max_iter: int = 1000,
    random_state: RandomStateLike = None,
    reader: str = "linear",
) -> MdlResult:
    r"""Online codelength of ``labels`` given ``embeddings`` (Voita & Titov 2020, "Information-Theoretic
    Probing with Minimum Description Length", §2.2).

    The rows are put in a random order and cut into blocks ending at
    :math:`t_1 < t_2 < \dots < t_S = n` (``fractions`` of the data). The first block is sent with
    the uniform code; every later block with a logistic-regression probe trained on all rows
    before it (blocks before both classes hold two words each also go uniform):

    .. math::

        L_{\text{online}} = t_1 \log_2 K + \sum_{i=1}^{S-1} \sum_{j=t_i+1}^{t_{i+1}}
            -\log_2 p_{\theta_i}(y_j \mid x_j),
        \qquad L_{\text{uniform}} = n \log_2 K,
        \qquad \text{compression} = L_{\text{uniform}} / L_{\text{online}}

    with :math:`\theta_i` fitted on rows :math:`1..t_i` only and :math:`K` the number of classes.
    Any learner that sees only earlier rows gives a valid code, so each block's C may be chosen
    by cross-validation on the rows before it (the default): a fixed weak regularization makes
    confident mistakes on unseen words and can cost more than the uniform code.

    Parameters
    ----------
    embeddings : array of shape (n, dim)
    labels : sequence of length n
        Any labels (e.g. 1 = female, 0 = male); at least two distinct values.
    words : sequence of str, optional
        Word of each row; required for ``unit="word"`` (also groups the cross-validation folds).
    unit : {"word", "occurrence"}
        ``"word"`` (default): words are shuffled and all occurrences of a word travel in one block,
        so a block is always coded by a probe that has never seen its words. Occurrences of one
        word are near-duplicates; split by occurrence, the probe is credited for recognising words
        it was trained on (word identity), not for reading the label off the representation: on
        MiniLM attribute words with labels drawn at random *per word*, the occurrence split still
        "compresses" them 7-28 times. ``"occurrence"``: the per-example code of the paper.
    fractions : sequence of float
        Increasing block ends in (0, 1], the last 1. With ``unit="word"`` each end moves up to the
        next word boundary (repeats merged).
    C : float or "cv"
        Inverse L2 strength of each block's logistic regression, or ``"cv"`` (default): chosen
        from ``Cs`` by log loss over ``n_folds`` word-grouped folds of the rows before the block.
    Cs : sequence of float
    n_folds : int
    standardize : bool
        Standardize features (fitted on each block's training rows) before the regression.
    shuffle : bool
        Send the rows (words) in a random order (default), or in the order given (words in order
        of first appearance), e.g. to reproduce a published split.
    max_iter : int
    random_state : int, numpy.random.Generator or None
        Seed of the order and the folds.
    reader : {"linear", "mlp", "kernel"}
        The probe family that codes the blocks (:func:`probekit.intrinsic.make_reader`): ``"linear"``
        (default) is the logistic regression above (``C``, ``Cs``, ``standardize`` apply); the others
        choose their own hyperparameters by word-grouped cross-validation on the rows before each
        block, and send the block uniformly when the uniform code is within one standard error of
        their validation log loss. Any learner that sees only earlier rows gives a valid code.

    Returns
    -------
    MdlResult
    """
    X = as_embedding_matrix(embeddings, "embeddings")
    values = np.asarray(labels, dtype=object).ravel()
    if values.size != X.shape[0]:
        raise InvalidParameterError("labels", f"{values.size} labels", f"one label per embedding row ({X.shape[0]})")
    classes, y = np.unique(values.astype(str), return_inverse=True)
    if classes.size < 2:
        raise InvalidParameterError("labels", f"{classes.size} distinct label(s)", "at least two classes")
    unit = check_choice(unit, "unit", UNITS)
    reader = check_choice(reader, "reader", READERS)
    if words is None:
        if unit == "word":
            raise InvalidParameterError("words", None, "the word of each row", "unit='word' needs them; or pass unit='occurrence'")
        groups = np.arange(X.shape[0]).astype(str)
    else:
        groups = np.asarray([str(w) for w in words], dtype=str)
        if groups.ndim != 1 or groups.size != X.shape[0]:
            raise InvalidParameterError("words", f"{groups.size} words", f"one word per embedding row ({X.shape[0]})")
    schedule = _check_fractions(fractions)
    C = check_C(C)
    Cs = check_Cs(Cs)
    n_folds = check_positive_int(n_folds, "n_folds", minimum=2)
    max_iter = check_positive_int(max_iter, "max_iter")
    seed, source = resolve_seed(random_state)
    order_rng, fold_rng = spawn_generators(source, 2)

    order, word_ends = _transmission_order(X.shape[0], groups if unit == "word" else None, order_rng if shuffle else None)
    X, y, groups = X[order], y[order], groups[order]
    n, K = X.shape[0], int(classes.size)
    ends = block_ends(n, schedule, word_ends)
    bits = [ends[0] * math.log2(K)]
    chosen: list[Any] = [None]
    dropped = 0
    for start, stop in zip(ends, ends[1:]):
        block, block_C, dropped = _block_bits(
            X[:start], y[:start], groups[:start], X[start:stop], y[start:stop], K, C=C, Cs=Cs, n_folds=n_folds,
            standardize=bool(standardize), max_iter=max_iter, seed=int(fold_rng.integers(0, 2**31 - 1)), reader=reader,
        )
        bits.append(block)
        chosen.append(block_C)
    online = float(sum(bits))
    uniform = n * math.log2(K)
    logger.debug("MDL: online %.1f bits, uniform %.1f bits over %d blocks", online, uniform, len(ends))
    return MdlResult(
        online_codelength=online,
        uniform_codelength=float(uniform),
        compression=float(uniform / online) if online > 0 else math.inf,
        n=int(n),
        n_classes=K,
        n_words=None if words is None else int(np.unique(groups).size),
        unit=unit,
        block_ends=[int(e) for e in ends],
        block_codelengths=[float(b) for b in bits],
        block_C=chosen if reader == "linear" else [None] * len(chosen),
        fractions=schedule,
        C=C,
        standardize=bool(standardize),
        shuffled=bool(shuffle),
        random_state=seed,
        reader=reader,
        block_params=None if reader == "linear" else chosen,
        n_dropped_columns=dropped,
    )
