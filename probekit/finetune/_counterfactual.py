"""The three training-data settings of the study and the counterfactual test set.

Tokpo et al. (2023, §4) fine-tune under three settings of the training data:

- ``original``: the data as loaded;
- ``scrubbed``: every training text with its gender words and first names deleted
  (:func:`debias.scrub_dataset`);
- ``swapped``: the training data plus a counterfactual of every example, gender words and names
  swapped (:func:`debias.swap_dataset`), with the same label.

Two further settings keep the training data and change the objective (the task-time
baselines): ``balanced`` weighs every label x gender cell the same (:func:`balanced_weights`;
Han, Baldwin & Cohn 2022) and ``adversarial`` trains a gender discriminator through gradient
reversal (Elazar & Goldberg 2018); :func:`objective_inputs` gives what their training needs.

Every test example is also scored on its counterfactual (for CF and the CF-* group metrics) and
on its same-gender renamed control (:func:`renamed_dataset`, for CF's noise floor).
The swapping and scrubbing themselves live in :mod:`debias` (one implementation for the whole
toolkit); this module applies them to datasets in the shared representation (``text``,
``label``, ``gender``, ``example_id``; see :mod:`probekit.finetune._datasets`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from debias import rename_dataset, scrub_dataset, swap_dataset
from probekit.errors import InvalidParameterError
from probekit.finetune._settings import DATA_SETTINGS, SETTING_TABLE

if TYPE_CHECKING:  # datasets is imported lazily: it is slow to import
    import datasets

__all__ = ["DATA_SETTINGS", "apply_setting", "counterfactual_dataset", "renamed_dataset", "balanced_weights", "objective_inputs"]

logger = logging.getLogger(__name__)


_OTHER_GENDER = {"female": "male", "male": "female"}
_REQUIRED = ("text", "label", "gender", "example_id")


def _check_dataset(dataset: Any, name: str) -> None:
    columns = getattr(dataset, "column_names", None)
    if columns is None or not hasattr(dataset, "map"):
        raise InvalidParameterError(name, type(dataset).__name__, "a datasets.Dataset with columns " + ", ".join(_REQUIRED))
    missing = [c for c in _REQUIRED if c not in columns]
    if missing:
        raise InvalidParameterError(
            name, f"a dataset with columns {list(columns)}", "a dataset with columns " + ", ".join(_REQUIRED),
            f"missing {', '.join(missing)}; load it with probekit.finetune.load_bios / load_jigsaw / make_synthetic_bios",
        )


# keep_in_memory: never write cache files beside a user's saved dataset; the transforms are pure
# functions of the texts, so nothing is lost by not caching.
_MAP_OPTIONS = {"keep_in_memory": True, "load_from_cache_file": False}


def _flip_genders(batch: dict[str, list]) -> dict[str, list]:
    genders = batch["gender"]
    unknown = [g for g in genders if g not in _OTHER_GENDER]
    if unknown:
        raise InvalidParameterError("dataset", f"gender value {unknown[0]!r}", "'female' or 'male' in the gender column")
    return {"gender": [_OTHER_GENDER[g] for g in genders]}


def _log_changed(what: str, before: Any, after: Any) -> None:
    changed = sum(a != b for a, b in zip(before["text"], after["text"]))
    logger.info("%s changed %d of %d texts", what, changed, len(before))
    if len(before) and changed == 0:
        logger.warning("%s changed none of the %d texts: do they carry gender words at all?", what, len(before))


def counterfactual_dataset(dataset: datasets.Dataset, *, batch_size: int = 1000) -> datasets.Dataset:
    r"""Every example with its gender words and first names swapped (:func:`debias.swap_dataset`).

    The counterfactual :math:`x_{cf}` of a test example :math:`x` is what CF compares against:
    :math:`CF = \frac{1}{N}\sum_i |P(\hat y = y_i \mid x_i) - P(\hat y = y_i \mid x_{cf,i})|`
    (Tokpo et al. 2023, §4).

    Parameters
    ----------
    dataset : datasets.Dataset
        Columns ``text``, ``label``, ``gender``, ``example_id`` (the shared representation).
    batch_size : int
        Texts per call of the swapper.

    Returns
    -------
    datasets.Dataset
        Same rows, columns and order: ``text`` swapped, ``label`` and ``example_id`` unchanged (so
        ``example_id`` pairs an example with its counterfactual: the ``source`` of the metric
        engine), ``gender`` flipped (the gender the swapped text carries). A text without any
        gender word is left as it is, and its gender is still flipped so that every example has
        exactly one partner; how many texts changed is logged.
    """
    _check_dataset(dataset, "dataset")

    swapped = swap_dataset(dataset, "text", batch_size=batch_size, desc="gender-swapped counterfactuals",
                           **_MAP_OPTIONS)
    _log_changed("swapping", dataset, swapped)
    return swapped.map(_flip_genders, batched=True, batch_size=batch_size, desc="flipping genders", **_MAP_OPTIONS)


def renamed_dataset(dataset: datasets.Dataset, *, batch_size: int = 1000) -> datasets.Dataset:
    r"""Every example with its first names replaced by names of the same gender (:func:`debias.rename`).

    The control of :func:`counterfactual_dataset`: the words change, gender does not. CF's noise
    floor compares :math:`|P(\hat y = y \mid x) - P(\hat y = y \mid x_{rn})|` with CF's terms
    (:func:`probekit.finetune.cf_noise_floor`). Same rows, columns and order; only ``text`` changes.
    """
    _check_dataset(dataset, "dataset")
    return rename_dataset(dataset, "text", batch_size=batch_size, desc="same-gender renamed controls", **_MAP_OPTIONS)


def _scrubbed(dataset: Any, batch_size: int) -> Any:
    """Every text with its gender words and first names deleted (:func:`debias.scrub_dataset`);
    labels, genders (the example's group, kept for the metrics) and ids unchanged.
    """
    scrubbed = scrub_dataset(dataset, "text", batch_size=batch_size, desc="scrubbing gender words", **_MAP_OPTIONS)
    _log_changed("scrubbing", dataset, scrubbed)
    return scrubbed


def apply_setting(train: datasets.Dataset, setting: str, *, batch_size: int = 1000) -> datasets.Dataset:
    """The training data of one setting of Tokpo et al. (2023, §4).

    Apply it to the training part of each fold only (after splitting), so that no counterfactual
    of a test example is trained on.

    Parameters
    ----------
    train : datasets.Dataset
        Training examples in the shared representation.
    setting : {"original", "scrubbed", "swapped", "balanced", "adversarial"}
        ``"original"``, ``"balanced"``, ``"adversarial"``: ``train`` itself (the last two change
        the objective, see :func:`objective_inputs`). ``"scrubbed"``: every text with its gender words and
        first names deleted (:func:`debias.scrub_dataset`). ``"swapped"``:
        ``train`` followed by :func:`counterfactual_dataset` of ``train`` (twice the rows; each
        counterfactual keeps its label and ``example_id``, and has the other gender).
    batch_size : int
        Texts per call of the swapper / scrubber.

    Returns
    -------
    datasets.Dataset
    """
    if setting not in DATA_SETTINGS:
        raise InvalidParameterError("setting", setting, DATA_SETTINGS)
    _check_dataset(train, "train")
    if setting not in ("scrubbed", "swapped"):
        return train
    if setting == "scrubbed":
        return _scrubbed(train, batch_size)
    import datasets

    return datasets.concatenate_datasets([train, counterfactual_dataset(train, batch_size=batch_size)])


def balanced_weights(labels: Sequence[Any], groups: Sequence[Any]) -> np.ndarray:
    r"""Instance weights under which every (label, group) cell weighs the same (balanced training).

    :math:`w_i = \frac{N}{C \, n_{y_i g_i}}`, with :math:`N` examples, :math:`C` non-empty
    (label, group) cells and :math:`n_{yg}` examples in cell :math:`(y, g)`. Every cell's total
    weight is :math:`N / C` and the mean weight is 1, so the weighted loss
    :math:`\frac{1}{N}\sum_i w_i \ell_i` is on the scale of the plain mean. This is the joint
    balancing of Han, Baldwin & Cohn (2022, "Balancing out Bias: Achieving Fairness Through
    Balanced Training", instance reweighting), here over label x gender.

    Parameters
    ----------
    labels, groups : sequence
        One label and one group (gender) per example.

    Returns
    -------
    numpy.ndarray
        float64 weights, one per example.
    """
    labels, groups = np.asarray(labels), np.asarray(groups)
    if labels.shape != groups.shape or labels.ndim != 1:
        raise InvalidParameterError("groups", f"shape {groups.shape}", f"one group per label, shape {labels.shape}")
    if labels.size == 0:
        raise InvalidParameterError("labels", "empty", "at least one example")
    cells = np.unique(np.stack([labels.astype(str), groups.astype(str)], axis=1), axis=0, return_inverse=True)[1]
    cells = np.asarray(cells).reshape(-1)
    counts = np.bincount(cells)
    return labels.size / (counts.size * counts[cells].astype(np.float64))


def objective_inputs(train: datasets.Dataset, setting: str, *, balanced_weight_power: float = 1.0,
                     group_column: str = "gender") -> dict[str, Any]:
    r"""What the training objective of ``setting`` needs beyond texts and labels, as keyword
    arguments of :func:`probekit.finetune.train_classifier`.

    ``balanced``: ``sample_weight`` (:func:`balanced_weights` over label x gender of ``train``,
    raised to ``balanced_weight_power`` p and rescaled to mean 1: :math:`w_i^p / \overline{w^p}`;
    p = 1 gives the weights unchanged, p = 0 all ones; declared on
    :class:`probekit.finetune.FinetuneConfig`);
    ``adversarial``: ``protected`` (the gender of each example, 1 = female, 0 = male, the
    discriminator's target); every other setting: nothing. ``group_column``: the column the balanced
    weights are over (``gender``, or another attribute's groups: label x group cells).
    """
    if setting not in DATA_SETTINGS:
        raise InvalidParameterError("setting", setting, DATA_SETTINGS)
    objective = SETTING_TABLE[setting].objective
    if objective == "balanced":
        weights = balanced_weights(train["label"], train[group_column])
        if balanced_weight_power != 1:  # 1: exactly the balanced weights (their mean is already 1)
            weights = weights ** float(balanced_weight_power)
            weights = weights / weights.mean()
        return {"sample_weight": weights}
    if objective == "adversarial":
        return {"protected": np.asarray([g == "female" for g in train["gender"]], dtype=np.int64)}
    return {}
