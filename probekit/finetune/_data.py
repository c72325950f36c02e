"""A fine-tuning dataset from options: one home for the CLI (``probekit finetune --data``) and the study (``[[datasets]]``)."""

from __future__ import annotations

import os
from typing import Any

import numpy as np
from sklearn.model_selection import train_test_split

from probekit.errors import InvalidParameterError
from probekit.finetune._datasets import load_bios, load_jigsaw
from probekit.finetune._identities import load_jigsaw_groups
from probekit.finetune._synthetic import make_synthetic_bios
from probekit.finetune._synthetic_groups import make_synthetic_group_bios

__all__ = ["DATA_KINDS", "load_data", "subsample"]

#: The kinds of data :func:`load_data` reads.
DATA_KINDS = ("synthetic", "bios", "jigsaw")


def subsample(data: Any, maximum: int | None, seed: int, group_column: str = "gender") -> Any:
    """At most ``maximum`` examples, stratified on label x gender (or ``group_column``; scikit-learn), in their order."""
    if maximum is None or maximum >= len(data):
        return data
    strata = [f"{y}\x1f{g}" for y, g in zip(data["label"], data[group_column])]
    index = np.arange(len(data))
    try:
        keep, _ = train_test_split(index, train_size=int(maximum), stratify=strata, random_state=int(seed))
    except ValueError:  # a stratum with a single example: a plain random sample
        keep = np.random.default_rng(seed).permutation(index)[: int(maximum)]
    return data.select(np.sort(keep).tolist())


def load_data(
    kind: str,
    *,
    path: str | os.PathLike | None = None,
    test_path: str | os.PathLike | None = None,
    n_examples: int | None = None,
    fixed_split: bool = False,
    max_examples: int | None = None,
    random_state: int = 0,
    attribute: str = "gender",
    **options: Any,
) -> tuple[Any, Any]:
    """The data (and a fixed test set, if any) of one kind, in the shared representation.

    Parameters
    ----------
    kind : {"synthetic", "bios", "jigsaw"}
        :func:`make_synthetic_bios` (``n_examples`` biographies; with ``fixed_split`` a test split of
        ``max(14, n_examples // 2)``, else the 14-example minimum it needs), :func:`load_bios` or
        :func:`load_jigsaw` (from ``path``; ``test_path``: a fixed test set read the same way, Bias in
        Bios with the classes of the data).
    path, test_path : path, optional
        The data of ``bios`` / ``jigsaw``.
    n_examples : int, optional
        Synthetic biographies to generate.
    fixed_split : bool
        Synthetic: also return a generated test split.
    max_examples : int, optional
        ``bios`` / ``jigsaw``: at most this many examples, a label x gender stratified subsample
        (:func:`subsample`, seeded with ``random_state``).
    random_state : int
        Seed of the generator and of the subsample.
    attribute : str
        ``"gender"``, or the k-group attribute the data must carry as a column (for
        :func:`probekit.finetune.run_finetune` ``(attribute=)``): ``synthetic`` and ``"race"`` gives
        :func:`make_synthetic_group_bios` (``n_examples`` training biographies; options ``shortcut``,
        ``strength``, ``cue_strength``; a test split as for gender); ``jigsaw`` and ``"race"`` /
        ``"religion"`` gives :func:`load_jigsaw_groups`. Other combinations are refused by name.
    **options
        Passed to the loader (``train_gender_skew``, ``cue_strength``, ``professions``, ``split``, ...).

    Returns
    -------
    (datasets.Dataset, datasets.Dataset or None)
        The data and the fixed test set (``None``: cross-validation folds are drawn from the data).
    """
    if kind not in DATA_KINDS:
        raise InvalidParameterError("kind", kind, DATA_KINDS)
    if attribute != "gender":
        return _load_groups(kind, attribute, path=path, test_path=test_path, n_examples=n_examples,
                            fixed_split=fixed_split, max_examples=max_examples, random_state=random_state, **options)
    if kind == "synthetic":
        if n_examples is None:
            raise InvalidParameterError("n_examples", None, "the number of synthetic biographies to generate")
        splits = make_synthetic_bios(n_examples, max(14, n_examples // 2) if fixed_split else 14,
                                     random_state=random_state, **options)
        return splits["train"], splits["test"] if fixed_split else None
    if kind == "bios":
        data = load_bios(path, **options)
        test = load_bios(test_path, professions=list(data.features["label"].names)) if test_path else None
    else:
        data = load_jigsaw(path, **options)
        test = load_jigsaw(test_path) if test_path else None
    return subsample(data, max_examples, random_state), test


def _load_groups(kind: str, attribute: str, *, path: Any, test_path: Any, n_examples: int | None, fixed_split: bool,
                 max_examples: int | None, random_state: int, **options: Any) -> tuple[Any, Any]:
    """:func:`load_data` for an attribute of k groups (see there)."""
    valid = {"synthetic": ("gender", "race"), "jigsaw": ("gender", "race", "religion"), "bios": ("gender",)}[kind]
    if attribute not in valid:
        raise InvalidParameterError("attribute", attribute, valid, f"the groups {kind} data carries")
    if kind == "synthetic":
        if n_examples is None:
            raise InvalidParameterError("n_examples", None, "the number of synthetic biographies to generate")
        splits = make_synthetic_group_bios(n_examples, max(16, n_examples // 2) if fixed_split else 16,
                                           random_state=random_state, **options)
        return splits["train"], splits["test"] if fixed_split else None
    data = load_jigsaw_groups(path, attribute=attribute, **options)
    test = load_jigsaw_groups(test_path, attribute=attribute) if test_path else None
    return subsample(data, max_examples, random_state, group_column=attribute), test
