r"""Does gender survive fine-tuning? Leakage, shuffled-gender noise floors and per-class diagnostics.

**Leakage** (the downstream half of "removed or only hidden"): the gender of the test examples of a
fold predicted from the fine-tuned classifier's own representation, the pooled vector its linear
layer reads (after the projection of a projection-wrapped encoder), and separately from its output
probabilities. The predictor is the project's gender probe (:func:`probekit.intrinsic.fit_linear_probe`:
standardized features, class-balanced logistic regression, C chosen by inner cross-validation on
log loss), fitted on half of the test examples (stratified) and scored on the other half, which it
never saw (:func:`probe_leakage` says why a held-out split rather than k-fold). Reported: the
balanced accuracy (mean of the per-gender accuracies; 0.5 is chance) with a percentile bootstrap
interval resampling held-out examples within each gender (:func:`probekit.stats.bootstrap_ci`), and the MDL compression of the gender labels
(:func:`probekit.intrinsic.mdl_probe`, the online code of Voita & Titov 2020, one row per example:
``unit="occurrence"``); compression 1 means nothing is extractable. Elazar & Goldberg (2018) and
Ravfogel et al. (2020) measure leakage the same way (an attacker probe on the task model's
representation). **Scrubbed-text control**: the same probe on the same test examples with their
gender words and first names deleted (:func:`debias.scrub`): leakage that stays high there is read
from other cues in the text, leakage that falls to chance came from the gender words themselves.

**Noise floor**: what a gap metric (TPRD, FPRD, CF-TPRD, CF-FPRD and their RMS versions) reads
when gender carries no information: the gender labels of the test examples are permuted within
each true label (profession), ``n_permutations`` times with an explicit ``random_state``; a
counterfactual keeps the gender opposite to its source's. The metric is recomputed by the shared
engine on each permuted copy (:func:`probekit.finetune.fold_metrics`). ``exceeds`` says whether
the observed value is above the permutations' 95th percentile; ``p_value`` is
:math:`(1 + k)/(1 + n)` with :math:`k` permutations at least as large. CF itself
(:math:`|P(\hat y = y \mid x) - P(\hat y = y \mid x_{cf})|`) reads no gender label, so permuting
labels leaves it unchanged. Its floor is a control perturbation instead (:func:`cf_noise_floor`):
every test text with its first names replaced by other names *of the same gender*
(:func:`debias.rename`), so :math:`CF_{rn} = \frac{1}{N}\sum_i |P(\hat y = y \mid x_i) - P(\hat y = y
\mid x_{rn,i})|` is what CF reads when the words change but gender does not; the test exchanges
each example's swap and rename terms at random (they are exchangeable when the classifier reacts to
a gender swap no more than to a change of names within gender).

**Per-class diagnostics** (De-Arteaga et al. 2019, Fig. 2): each class's TPR gap (female − male,
mean over folds) against its share of women in the data, with Pearson's r (Fisher-z interval) and
Spearman's rho (:func:`probekit.stats.rank_correlation_test`).
"""

from __future__ import annotations

import logging
import math
import warnings
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.finetune._evaluate import fold_metrics, prob_column
from probekit.intrinsic import check_readers, fit_linear_probe, make_reader, mdl_probe
from probekit.stats import (
    FLOOR_METRICS,
    LEAKAGE_SOURCES,
    bootstrap_ci,
    per_class_diagnostics,
    permutation_p_value,
    summarize_leakage,
    summarize_noise_floor,
)
from probekit.utils import load_npz

logger = logging.getLogger(__name__)

__all__ = [
    "group_leakage",
    "FLOOR_METRICS",
    "LEAKAGE_SOURCES",
    "REPRESENTATIONS_FILE",
    "probe_leakage",
    "fold_leakage",
    "check_leakage_readers",
    "noise_floor",
    "cf_noise_floor",
    "true_label_probabilities",
    "permute_gender",
    "per_class_diagnostics",
    "summarize_leakage",
    "summarize_noise_floor",
    "predict_with_representations",
    "save_representations",
    "load_representations",
]

#: Per fold: the test examples' pooled vectors, probabilities, genders and ids (``np.savez``, no pickle).
REPRESENTATIONS_FILE = "representations.npz"
_CF_NOTE = "CF reads no gender label: permuting gender leaves it unchanged, so it has no shuffled-gender floor"


# ------------------------------------------------------------------------------------------ leakage


def _gender_codes(genders: Any, n: int) -> np.ndarray:
    values = np.asarray(genders).astype(str).ravel()
    if values.size != n:
        raise InvalidParameterError("genders", f"{values.size} values", f"one gender per row ({n})")
    if not set(values) <= {"female", "male"}:
        raise InvalidParameterError("genders", sorted(set(values))[:5], ["female", "male"])
    return (values == "female").astype(np.int64)


def _balanced_accuracy(y: np.ndarray, correct: np.ndarray) -> float:
    # sums rather than masks: the bootstrap calls this once per resample (1,000 times per probe)
    n_female = int(np.count_nonzero(y))
    n_male = y.size - n_female
    if not n_female or not n_male:
        return math.nan
    hits_female = float(np.dot(y, correct))
    return 0.5 * (hits_female / n_female + (float(correct.sum()) - hits_female) / n_male)


def _held_out(
    X: np.ndarray, y: np.ndarray, test_size: float, C: Any, seed: int, reader: str = "linear",
) -> tuple[np.ndarray, np.ndarray, Any]:
    """(held-out rows, P(female) of each, chosen C or the reader's hyperparameters): the probe is fitted
    on a stratified part of the rows and scores the rest, which it never saw.
    """
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(y.size), test_size=test_size, stratify=y, random_state=seed)
    ids = np.arange(train.size).astype(str)  # every example its own group: inner folds by example
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        if reader != "linear":
            fitted = make_reader(reader, n_folds=3, random_state=seed).fit(X[train], y[train], ids)
            return test, fitted.predict_proba(X[test])[:, list(fitted.classes_).index(1)], dict(fitted.params_)
        probe = fit_linear_probe(X[train], y[train], ids, C=C, n_folds=3, class_weight="balanced", seed=seed)
    p = probe.model.predict_proba(X[test])[:, list(probe.model.classes_).index(1)]
    return test, p, float(probe.C)


def probe_leakage(
    features: Any,
    genders: Any,
    *,
    test_size: float = 0.5,
    C: float | str = "cv",
    mdl: bool = True,
    n_bootstrap: int = 1000,
    confidence: float = 0.95,
    random_state: int = 0,
    reader: str = "linear",
) -> dict[str, Any]:
    r"""Gender of the rows predicted from ``features`` by the gender probe, scored on rows it never saw.

    The probe (:func:`probekit.intrinsic.fit_linear_probe`: standardized features, class-balanced
    logistic regression, C chosen by 3-fold inner cross-validation on log loss) is fitted on a
    stratified ``1 - test_size`` share of the rows and predicts the rest. A held-out split rather
    than k-fold out-of-fold predictions, because the interval must be honest: given the fitted probe
    the held-out rows are independent draws, so the bootstrap interval covers the probe's balanced
    accuracy (0.5 exactly when the features carry no gender), whereas the k probes of k-fold
    cross-validation are each trained on the others' test rows and the pooled accuracy varies about
    twice as much as an example bootstrap says (measured: 2 of 6 gender-free data sets of 200 rows
    gave intervals excluding 0.5).

    Parameters
    ----------
    features : array of shape (n, d)
        One row per test example (pooled vectors, or class probabilities).
    genders : sequence of {"female", "male"}
    test_size : float
        Share of the rows held out for scoring (at least 2 of each gender on each side are needed).
    C : float or "cv"
        The probe's inverse L2 strength, or chosen by inner cross-validation (default).
    mdl : bool
        Also the MDL compression of the gender labels over all rows (online code, Voita & Titov
        2020; :func:`probekit.intrinsic.mdl_probe` with ``unit="occurrence"``).
    n_bootstrap, confidence : int, float
        Percentile bootstrap of the balanced accuracy, held-out rows resampled within each gender.
    random_state : int
        Seed of the split, the probe, the bootstrap and the MDL order.
    reader : {"linear", "mlp", "kernel"}
        The probe family (:func:`probekit.intrinsic.make_reader`): ``"linear"`` (default) is the probe
        above; ``"mlp"`` and ``"kernel"`` choose their hyperparameters by the same 3-fold inner
        cross-validation (``C`` then applies to the linear probe only) and code the MDL too.

    Returns
    -------
    dict
        ``balanced_accuracy`` :math:`\tfrac12(\text{acc}_f + \text{acc}_m)` on the held-out rows
        (threshold 0.5), ``interval`` [low, high], ``accuracy``, ``n``, ``n_female``, ``n_male``,
        ``n_held_out``, ``C`` (the reader's hyperparameters for a nonlinear reader), ``reader``,
        ``mdl_compression``, ``mdl_online_bits``, ``mdl_uniform_bits``, ``confidence``, ``random_state``; with too few rows of a gender, NaN values and ``reason``.
    """
    X = np.asarray(features, dtype=np.float64)
    if X.ndim != 2:
        raise InvalidParameterError("features", f"shape {X.shape}", "a 2-D array (rows x dimensions)")
    if not 0 < test_size < 1:
        raise InvalidParameterError("test_size", test_size, "a share in (0, 1)")
    y = _gender_codes(genders, X.shape[0])
    reader = check_readers([reader], "reader")[0]
    n_female, n_male = int(y.sum()), int(y.size - y.sum())
    out: dict[str, Any] = {"n": int(y.size), "n_female": n_female, "n_male": n_male, "confidence": float(confidence),
                           "random_state": int(random_state), "reader": reader}
    smaller = min(n_female, n_male)
    if min(math.floor(smaller * test_size), smaller - math.ceil(smaller * test_size)) < 2:
        nan = math.nan
        return out | {"balanced_accuracy": nan, "interval": [nan, nan], "accuracy": nan, "n_held_out": 0, "C": nan,
                      "mdl_compression": nan, "mdl_online_bits": nan, "mdl_uniform_bits": nan,
                      "reason": "too few test examples of a gender (at least 2 per gender on each side of the split)"}
    rows, p, chosen = _held_out(X, y, float(test_size), C, int(random_state), reader)
    y_test = y[rows]
    correct = ((p >= 0.5).astype(np.int64) == y_test).astype(float)
    interval = bootstrap_ci(_balanced_accuracy, y_test, correct, strata=y_test, n_resamples=int(n_bootstrap),
                            confidence=confidence, random_state=int(random_state))
    out |= {"balanced_accuracy": _balanced_accuracy(y_test, correct), "interval": [float(interval.low), float(interval.high)],
            "accuracy": float(correct.mean()), "n_held_out": int(rows.size), "C": chosen}
    out |= _mdl(X, y, int(random_state), reader) if mdl else {}
    return out


def _mdl(X: np.ndarray, y: np.ndarray, seed: int, reader: str = "linear") -> dict[str, float]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        result = mdl_probe(X, y, unit="occurrence", n_folds=3, random_state=seed, reader=reader)
    return {"mdl_compression": float(result.compression), "mdl_online_bits": float(result.online_codelength),
            "mdl_uniform_bits": float(result.uniform_codelength)}


def _group_balanced_accuracy(y: np.ndarray, correct: np.ndarray) -> float:
    """Mean over the groups present of the share of their rows read right (chance: 1/k)."""
    counts = np.bincount(y)
    hits = np.bincount(y, weights=correct, minlength=counts.size)
    present = counts > 0
    return float(np.mean(hits[present] / counts[present])) if present.any() else math.nan


def group_leakage(features: Any, groups: Any, *, test_size: float = 0.5, C: float | str = "cv", mdl: bool = True,
                  n_bootstrap: int = 1000, confidence: float = 0.95, random_state: int = 0) -> dict[str, Any]:
    r"""The group of k (race, religion, ...) read from ``features`` by a k-class probe, on rows it never saw.

    :func:`probe_leakage` for k groups: the probe (:func:`probekit.intrinsic.fit_linear_probe`, multinomial
    class-balanced logistic regression, C by 3-fold inner cross-validation on log loss) is fitted on a
    stratified ``1 - test_size`` share and predicts the group of the rest (the most probable one).
    Balanced accuracy :math:`	frac1k \sum_g 	ext{recall}_g` with a percentile-bootstrap interval
    (held-out rows resampled within each group); chance is :math:`1/k`. With ``mdl``, the MDL
    compression of the k-class labels over all rows (:func:`probekit.intrinsic.mdl_probe`).

    Returns
    -------
    dict
        ``balanced_accuracy``, ``interval``, ``chance`` (1/k), ``k``, ``groups``, ``n_per_group``,
        ``accuracy``, ``n``, ``n_held_out``, ``C``, ``mdl_*``; NaN values and ``reason`` when a group
        has fewer than 2 rows on a side of the split.
    """
    X = np.asarray(features, dtype=np.float64)
    names, y = np.unique(np.asarray(groups).astype(str), return_inverse=True)
    if X.ndim != 2 or y.size != X.shape[0]:
        raise InvalidParameterError("groups", f"{y.size} values", f"one group per row of a 2-D array ({X.shape})")
    counts = np.bincount(y, minlength=names.size)
    out: dict[str, Any] = {"n": int(y.size), "k": int(names.size), "groups": names.tolist(),
                           "n_per_group": dict(zip(names.tolist(), counts.tolist())), "chance": 1.0 / max(names.size, 1),
                           "confidence": float(confidence), "random_state": int(random_state), "reader": "linear"}
    smallest = int(counts.min()) if counts.size else 0
    if names.size < 2 or min(math.floor(smallest * test_size), smallest - math.ceil(smallest * test_size)) < 2:
        nan = math.nan
        return out | {"balanced_accuracy": nan, "interval": [nan, nan], "accuracy": nan, "n_held_out": 0, "C": nan,
                      "mdl_compression": nan, "mdl_online_bits": nan, "mdl_uniform_bits": nan,
                      "reason": "too few test examples of a group (at least 2 per group on each side of the split)"}
    from sklearn.model_selection import train_test_split

    train, test = train_test_split(np.arange(y.size), test_size=test_size, stratify=y, random_state=int(random_state))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=UserWarning)
        probe = fit_linear_probe(X[train], y[train], np.arange(train.size).astype(str), C=C, n_folds=3,
                                 class_weight="balanced", seed=int(random_state))
    correct = (probe.model.predict(X[test]) == y[test]).astype(float)
    interval = bootstrap_ci(_group_balanced_accuracy, y[test], correct, strata=y[test], n_resamples=int(n_bootstrap),
                            confidence=confidence, random_state=int(random_state))
    out |= {"balanced_accuracy": _group_balanced_accuracy(y[test], correct), "accuracy": float(correct.mean()),
            "interval": [float(interval.low), float(interval.high)], "n_held_out": int(test.size), "C": float(probe.C)}
    return out | (_mdl(X, y, int(random_state)) if mdl else {})


def fold_leakage(pooled: Any, probabilities: Any, genders: Any, *, scrubbed: tuple[Any, Any] | None = None,
                 nonlinear_readers: Any = (), random_state: int = 0, **kwargs: Any) -> dict[str, Any]:
    """Leakage of one fold from the pooled vectors and from the class probabilities of its test examples.

    Returns ``{"representation": probe_leakage(pooled), "probabilities": probe_leakage(probabilities)}``
    (keyword arguments go to :func:`probe_leakage`). With ``scrubbed``, the (pooled vectors,
    probabilities) of the same test examples with their gender words and first names deleted
    (:func:`debias.scrub`), also ``"scrubbed_representation"`` and ``"scrubbed_probabilities"``:
    the same probe on the same rows, genders and split, with the hyperparameter the unscrubbed probe
    chose (its C; a nonlinear ``reader`` chooses again), balanced accuracy only, no MDL: one probe fit
    per source, so the control costs little beyond one more pass over the test set. It controls for
    the gender words themselves:
    leakage that stays high on scrubbed text comes from the encoder's reading of other cues, leakage
    that falls to chance came from the words. Each of ``nonlinear_readers`` (``"mlp"``, ``"kernel"``:
    :func:`probekit.intrinsic.make_reader`; :func:`check_leakage_readers`) also reads the pooled vectors,
    as ``"representation_<reader>"`` (balanced accuracy with interval, no MDL), beside the linear probe:
    a representation that a linear probe reads at chance may still carry gender nonlinearly.
    """
    out = {"representation": probe_leakage(pooled, genders, random_state=random_state, **kwargs),
           "probabilities": probe_leakage(probabilities, genders, random_state=random_state, **kwargs)}
    for reader in check_leakage_readers(nonlinear_readers):
        out[f"representation_{reader}"] = probe_leakage(pooled, genders, random_state=random_state,
                                                        **(kwargs | {"mdl": False, "reader": reader}))
    if scrubbed is not None:
        for source, X in (("representation", scrubbed[0]), ("probabilities", scrubbed[1])):
            chosen = out[source].get("C")
            control = kwargs | {"mdl": False} | ({"C": chosen} if isinstance(chosen, float) and math.isfinite(chosen) else {})
            out[f"scrubbed_{source}"] = probe_leakage(X, genders, random_state=random_state, **control)
    return out


def check_leakage_readers(readers: Any, parameter: str = "leakage_readers") -> tuple[str, ...]:
    """The nonlinear readers of downstream leakage from ``"mlp"``, ``"kernel"`` (a comma-separated string
    or a sequence; ``"linear"``, always read, is dropped); empty for ``None`` or an empty value.
    """
    if readers is None or (isinstance(readers, str) and not readers.strip()) or (
            not isinstance(readers, str) and not list(readers)):
        return ()
    return tuple(r for r in check_readers(readers, parameter) if r != "linear")


# ------------------------------------------------------------------------------------------ representations


def predict_with_representations(classifier: Any, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
    """Class probabilities and the pooled vectors the linear layer reads, for ``texts``, from one
    pass (:meth:`TrainedClassifier.predict_with_representations`): on the full path the fine-tuned
    module's pooled vector (after the projection) and the probabilities
    :meth:`TrainedClassifier.predict_proba` gives; on the frozen path the extraction engine's
    embeddings after the adversarial projection when there is one.

    Returns
    -------
    probabilities : array (n, n_classes), float64
    pooled : array (n, hidden), float64
    """
    return classifier.predict_with_representations(texts)


# ------------------------------------------------------------------------------------------ saved representations


def save_representations(path: Any, *, pooled: np.ndarray, probabilities: np.ndarray, genders: Sequence[str],
                         source: Sequence[int], renamed_probabilities: np.ndarray | None = None,
                         scrubbed_pooled: np.ndarray | None = None,
                         scrubbed_probabilities: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Write a fold's test representations (float32 pooled vectors, probabilities, gender, example id
    and, when given, the probabilities of the same-gender renamed texts that CF's floor reads and
    the pooled vectors and probabilities of the scrubbed test texts that leakage's control reads)
    atomically as ``.npz`` (no pickle); returns the arrays as written, so leakage is computed on
    exactly what is saved.
    """
    from probekit.utils import atomic_path

    arrays = {"pooled": np.asarray(pooled, dtype=np.float32), "probabilities": np.asarray(probabilities, dtype=np.float32),
              "gender": np.asarray(list(genders), dtype=str), "source": np.asarray(source, dtype=np.int64)}
    if renamed_probabilities is not None:
        arrays["renamed_probabilities"] = np.asarray(renamed_probabilities, dtype=np.float32)
    for name, values in (("scrubbed_pooled", scrubbed_pooled), ("scrubbed_probabilities", scrubbed_probabilities)):
        if values is not None:
            arrays[name] = np.asarray(values, dtype=np.float32)
    with atomic_path(path) as tmp, open(tmp, "wb") as handle:
        np.savez_compressed(handle, **arrays)
    return arrays


def load_representations(path: Any) -> dict[str, np.ndarray]:
    """Read a file written by :func:`save_representations`."""
    return load_npz(path)  # a regular file; sizes checked before anything is allocated


# ------------------------------------------------------------------------------------------ noise floor


def permute_gender(frame: pd.DataFrame, rng: np.random.Generator) -> pd.DataFrame:
    """A copy of a predictions frame with the originals' gender permuted within each true label; each
    counterfactual row gets the gender opposite to its source's new one.
    """
    out = frame.copy()
    original = (out["variant"] == "original").to_numpy()
    groups = out["group"].to_numpy(dtype=object).copy()
    labels = out["label"].to_numpy()
    rows = np.flatnonzero(original)
    for label in pd.unique(labels[rows]):
        idx = rows[labels[rows] == label]
        groups[idx] = groups[idx][rng.permutation(idx.size)]
    new_of_source = dict(zip(out["source"].to_numpy()[rows].tolist(), groups[rows].tolist()))
    other = {"female": "male", "male": "female"}
    for i in np.flatnonzero(~original):
        groups[i] = other[new_of_source[out["source"].iat[i]]]
    out["group"] = groups
    return out


def noise_floor(
    frame: pd.DataFrame,
    classes: Sequence,
    *,
    observed: Mapping[str, float] | None = None,
    metrics: Sequence[str] = FLOOR_METRICS,
    n_permutations: int = 20,
    random_state: int = 0,
    renamed: Any = None,
) -> dict[str, Any]:
    """Shuffled-gender noise floor of each gap metric of one fold (see the module docstring).

    Parameters
    ----------
    frame : DataFrame
        The fold's predictions (original and counterfactual rows), as :func:`fold_metrics` takes them.
    classes : sequence
    observed : mapping, optional
        The fold's metrics (default: computed from ``frame``).
    metrics : sequence of str
        Metrics whose floor permutes gender (:data:`FLOOR_METRICS`; CF's is :func:`cf_noise_floor`).
    n_permutations : int
    random_state : int
    renamed : array (n, n_classes), optional
        Class probabilities of the test examples' same-gender renamed texts (:func:`debias.rename`),
        in the order of the frame's original rows: gives CF its floor (:func:`cf_noise_floor`).

    Returns
    -------
    dict
        Per metric: ``observed``, ``floor_mean``, ``floor_q95``, ``p_value``, ``exceeds``
        (observed > floor_q95), ``n_permutations``, ``random_state``; ``cf``: :func:`cf_noise_floor`
        with ``renamed``, else ``floor_mean`` None and ``note``.
    """
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 1:
        raise InvalidParameterError("n_permutations", n_permutations, "a positive integer")
    if observed is None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            observed = fold_metrics(frame, classes)[0]
    rng = np.random.default_rng(int(random_state))
    draws = {m: [] for m in metrics}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(int(n_permutations)):
            values = fold_metrics(permute_gender(frame, rng), classes)[0]
            for m in metrics:
                draws[m].append(float(values.get(m, math.nan)))
    out = {m: _floor_entry(float(observed.get(m, math.nan)), np.asarray(draws[m]), int(random_state)) for m in metrics}
    if renamed is None:
        out["cf"] = {"observed": float(observed.get("cf", math.nan)), "floor_mean": None, "note": _CF_NOTE}
    else:
        p_original, p_counterfactual, p_renamed = true_label_probabilities(frame, classes, renamed)
        out["cf"] = cf_noise_floor(p_original, p_counterfactual, p_renamed, n_permutations=n_permutations,
                                   random_state=random_state)
    return out


def true_label_probabilities(frame: pd.DataFrame, classes: Sequence, renamed: Any) -> tuple[np.ndarray, ...]:
    r""":math:`P(\hat y = y)` of each test example on its original, counterfactual and renamed text.

    ``frame`` holds the original and counterfactual rows (paired by ``source``); ``renamed`` the class
    probabilities of the renamed texts in the order of the original rows.
    """
    original = frame[frame["variant"] == "original"]
    counterfactual = frame[frame["variant"] == "counterfactual"].set_index("source").loc[original["source"].to_numpy()]
    renamed = np.asarray(renamed, dtype=np.float64)
    if renamed.shape != (len(original), len(classes)):
        raise InvalidParameterError("renamed", f"shape {renamed.shape}",
                                    f"one row of {len(classes)} class probabilities per original row ({len(original)})")
    column = {str(c): k for k, c in enumerate(classes)}
    index = np.array([column[str(y)] for y in original["label"]])
    rows = np.arange(len(original))
    probs = [original[[prob_column(c) for c in classes]].to_numpy(dtype=np.float64),
             counterfactual[[prob_column(c) for c in classes]].to_numpy(dtype=np.float64), renamed]
    return tuple(p[rows, index] for p in probs)


def cf_noise_floor(p_original: Any, p_counterfactual: Any, p_renamed: Any, *, n_permutations: int = 20,
                   random_state: int = 0) -> dict[str, Any]:
    r"""CF against its control: the same-gender renaming floor, with a within-example exchange test.

    With :math:`a_i = |p_i - p_{cf,i}|` (CF's terms: the gender-swapped text) and
    :math:`b_i = |p_i - p_{rn,i}|` (the text with its first names replaced by names of the same
    gender, :func:`debias.rename`), :math:`CF = ar a` and the floor :math:`CF_{rn} = ar b`: what
    the metric reads when words change but gender does not. If the classifier reacts to the gender
    swap no more than to the renaming, :math:`a_i` and :math:`b_i` are exchangeable within each
    example; each permutation exchanges them independently with probability 1/2 and recomputes the
    mean (``n_permutations`` times, ``random_state`` seeded). ``p_value`` is
    :math:`(1 + k)/(1 + n)` with :math:`k` permuted means at least CF; ``exceeds``: CF above their
    95th percentile. A text without a first name renames to itself (:math:`b_i = 0`): its pronoun
    and title swap, a pure change of gender, is then measured against no change at all.

    Parameters
    ----------
    p_original, p_counterfactual, p_renamed : array (n,)
        :math:`P(\hat y = y_i)` on each test example's original, gender-swapped and renamed text.

    Returns
    -------
    dict
        ``observed`` (CF), ``floor_mean`` (:math:`CF_{rn}`), ``floor_q95``, ``permutation_mean``,
        ``p_value``, ``exceeds``, ``n_permutations``, ``random_state``, ``control``.
    """
    if isinstance(n_permutations, bool) or not isinstance(n_permutations, (int, np.integer)) or n_permutations < 1:
        raise InvalidParameterError("n_permutations", n_permutations, "a positive integer")
    p = np.asarray(p_original, dtype=np.float64)
    a = np.abs(p - np.asarray(p_counterfactual, dtype=np.float64))
    b = np.abs(p - np.asarray(p_renamed, dtype=np.float64))
    if not a.shape == b.shape == p.shape or p.ndim != 1 or p.size == 0:
        raise InvalidParameterError("p_renamed", f"shape {b.shape}", f"one probability per example, shape {p.shape}")
    rng = np.random.default_rng(int(random_state))
    exchanged = rng.random((int(n_permutations), p.size)) < 0.5
    draws = np.where(exchanged, b, a).mean(axis=1)
    entry = _floor_entry(float(a.mean()), draws, int(random_state))
    entry["permutation_mean"] = entry["floor_mean"]
    entry["floor_mean"] = float(b.mean())
    entry["control"] = "same-gender renaming of first names (debias.rename); exchange test within examples"
    return entry


def _floor_entry(value: float, draws: np.ndarray, seed: int) -> dict[str, Any]:
    valid = draws[np.isfinite(draws)]
    if not math.isfinite(value) or valid.size == 0:
        return {"observed": value, "floor_mean": math.nan, "floor_q95": math.nan, "p_value": math.nan,
                "exceeds": None, "n_permutations": int(draws.size), "random_state": seed}
    q95 = float(np.quantile(valid, 0.95))
    return {"observed": value, "floor_mean": float(valid.mean()), "floor_q95": q95,
            "p_value": permutation_p_value(int(np.sum(valid >= value)), int(valid.size)),
            "exceeds": bool(value > q95), "n_permutations": int(draws.size), "random_state": seed}
