r"""Fine-tuning with the k groups of an attribute other than gender (race, religion, a registered one).

The data carries each example's group in a column named after the attribute (the synthetic group
biographies' ``race``, :func:`probekit.finetune.load_jigsaw_groups`' ``race`` / ``religion``); its
values must be groups of :func:`wordlists.get_attribute` ``(attribute)``. The settings for k groups:

- ``original``: the data as loaded;
- ``scrubbed``: every training text without the attribute's terms (:func:`debias.scrub_attribute`);
- ``swapped``: the training data plus one counterfactual per example, its group's terms swapped with
  those of a target group drawn uniformly among the other k - 1 (:func:`debias.swap_groups`; the
  survey's "ternary" CDA draw of Meade et al. 2022 for the example's own group, k groups); same label;
- ``balanced``: every label x group cell weighs the same (:func:`probekit.finetune.balanced_weights`).

``adversarial`` is refused: its discriminator is a binary gender head.

The counterfactual test set holds every test example swapped to each of the other k - 1 groups
(:func:`group_counterfactual_dataset`), and the k-group CF is

.. math:: CF_k = \frac{1}{N}\sum_{i=1}^{N} \frac{1}{k-1} \sum_{g \ne g_i}
          \left| P(\hat y = y_i \mid x_i) - P(\hat y = y_i \mid x_i^{g_i \to g}) \right|

(:func:`group_cf`), which is Tokpo et al.'s (2023) CF for k = 2.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

import wordlists
from debias import scrub_attribute, swap_groups
from probekit.errors import InvalidParameterError

__all__ = [
    "K_GROUP_SETTINGS",
    "check_attribute_groups",
    "check_group_setting",
    "group_counterfactual_dataset",
    "group_cf",
    "group_setting",
]

#: The settings defined for k groups (``adversarial`` trains a binary gender discriminator).
K_GROUP_SETTINGS = ("original", "scrubbed", "swapped", "balanced")

# keep_in_memory: never write cache files beside a user's saved dataset (as for gender)
_MAP_OPTIONS = {"keep_in_memory": True, "load_from_cache_file": False}


def _attribute(attribute: str) -> wordlists.Attribute:
    try:
        return wordlists.get_attribute(attribute)
    except InvalidParameterError as exc:
        raise InvalidParameterError("attribute", attribute, exc.valid, "or register it: wordlists.register_attribute") from None


def check_attribute_groups(dataset: Any, name: str, attribute: str) -> tuple[str, ...]:
    """The groups of ``dataset[attribute]`` (in the attribute's order), checked: groups of the registered
    attribute, at least two of them. Raises :class:`~probekit.errors.InvalidParameterError` naming the column.
    """
    attr = _attribute(attribute)
    values = sorted({str(v) for v in dataset[attribute]})
    unknown = [v for v in values if v not in attr.groups]
    if unknown:
        raise InvalidParameterError(f"{name}[{attribute!r}]", unknown[:5], attr.groups, "values of the group column")
    if len(values) < 2:
        raise InvalidParameterError(f"{name}[{attribute!r}]", values, f"at least two groups of {attr.groups}")
    return tuple(g for g in attr.groups if g in values)


def check_group_setting(setting: str, attribute: str, parameter: str = "setting") -> None:
    """Refuse a setting that is not defined for k groups (``adversarial``), by name."""
    if attribute != "gender" and setting not in K_GROUP_SETTINGS:
        raise InvalidParameterError(parameter, setting, K_GROUP_SETTINGS,
                                    f"with attribute={attribute!r}: the adversary is a binary gender discriminator")


def _swapped_rows(dataset: Any, attribute: str, targets: Sequence[Sequence[str]]) -> Any:
    """One row per (example, target group): the text swapped from the example's group to the target."""
    import datasets

    attr = _attribute(attribute)
    columns = dataset.to_dict()
    rows: dict[str, list] = {c: [] for c in columns}
    for i, (text, own) in enumerate(zip(columns["text"], columns[attribute])):
        for target in targets[i]:
            for c in columns:
                rows[c].append(columns[c][i])
            rows["text"][-1] = swap_groups(text, attr, own, target)
            rows[attribute][-1] = target
    return datasets.Dataset.from_dict(rows, features=dataset.features)


def group_counterfactual_dataset(dataset: Any, attribute: str) -> Any:
    """Every example swapped to each of the other k - 1 groups of ``attribute``.

    Rows in example order, the targets of one example in the attribute's group order; ``text``
    swapped with :func:`debias.swap_groups` (the example's group and the target's terms exchanged),
    the attribute column set to the target, every other column (``label``, ``example_id``: the
    ``source`` that pairs a counterfactual with its example) unchanged. A text without a term of its
    group stays as it is (it still counts in CF, with a difference of 0), as for gender.
    """
    groups = _attribute(attribute).groups
    return _swapped_rows(dataset, attribute, [[g for g in groups if g != own] for own in dataset[attribute]])


def group_setting(train: Any, setting: str, attribute: str, *, random_state: int = 0) -> Any:
    """The training data of ``setting`` for the k groups of ``attribute`` (see the module docstring).

    Parameters
    ----------
    train : datasets.Dataset
        ``text``, ``label``, the attribute's column, ``example_id``.
    setting : {"original", "scrubbed", "swapped", "balanced"}
    attribute : str
    random_state : int
        Seed of the swapped setting's target draws (``numpy.random.default_rng``).
    """
    check_group_setting(setting, attribute)
    attr = _attribute(attribute)
    if setting == "scrubbed":
        return train.map(lambda batch: {"text": [scrub_attribute(t, attr) for t in batch["text"]]}, batched=True,
                         desc=f"scrubbing {attribute} terms", **_MAP_OPTIONS)
    if setting != "swapped":
        return train
    import datasets

    rng = np.random.default_rng(random_state)
    targets = []
    for own in train[attribute]:
        others = [g for g in attr.groups if g != own]
        targets.append([others[int(rng.integers(len(others)))]])
    return datasets.concatenate_datasets([train, _swapped_rows(train, attribute, targets)])


def group_cf(frame: pd.DataFrame, classes: Sequence[Any]) -> float:
    r"""CF for k groups from a counterfactually augmented predictions frame.

    .. math:: CF_k = \frac{1}{N}\sum_{i=1}^{N} \frac{1}{k-1} \sum_{g \ne g_i}
              \left| P(\hat y = y_i \mid x_i) - P(\hat y = y_i \mid x_i^{g_i \to g}) \right|

    where :math:`x_i^{g_i \to g}` is test example :math:`x_i` with its group's terms swapped to those
    of group :math:`g` (:func:`group_counterfactual_dataset`); for k = 2 this is the CF of Tokpo et al.
    (2023). ``frame``: one ``variant == "original"`` row per test example and its ``counterfactual``
    rows (sharing ``source``), ``label`` and ``prob_<class>`` columns; the inner mean is over the
    example's counterfactual rows (an example without any is left out). NaN without any.
    """
    names = [str(c) for c in classes]
    probs = frame[[f"prob_{c}" for c in classes]].to_numpy(dtype=float)
    column = pd.Index(names).get_indexer(frame["label"].astype(str))
    true_prob = pd.Series(probs[np.arange(len(frame)), column], index=frame.index)
    original = frame["variant"] == "original"
    by_source = pd.Series(true_prob[original].to_numpy(), index=frame.loc[original, "source"].to_numpy())
    cf_rows = frame[~original]
    if cf_rows.empty:
        return float("nan")
    diffs = np.abs(true_prob[~original].to_numpy() - by_source.reindex(cf_rows["source"].to_numpy()).to_numpy())
    per_example = pd.Series(diffs).groupby(cf_rows["source"].to_numpy()).mean()
    return float(per_example.mean())
