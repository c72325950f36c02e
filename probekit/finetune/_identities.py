"""Jigsaw / Civil Comments with its identity columns: race and religion groups, and overlapping
identity subgroups for Borkan et al.'s (2019) per-subgroup AUCs.

The identity columns of the Jigsaw Unintended Bias data hold the share of annotators who saw the
identity in the comment (0..1, missing where the comment was not annotated for identities).
"""

from __future__ import annotations

import logging
import os
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Mapping

import numpy as np
import pandas as pd

import wordlists
from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune._datasets import JIGSAW_LABELS, _parse_scores, _read_table, _texts

if TYPE_CHECKING:
    import datasets

__all__ = ["JIGSAW_IDENTITY_COLUMNS", "jigsaw_subgroups", "load_jigsaw_groups"]

logger = logging.getLogger(__name__)

#: Identity columns of the Jigsaw Unintended Bias data, by attribute.
JIGSAW_IDENTITY_COLUMNS: Mapping[str, tuple[str, ...]] = MappingProxyType({
    "gender": ("female", "male", "transgender", "other_gender"),
    "race": ("black", "white", "asian", "latino", "other_race_or_ethnicity"),
    "religion": ("christian", "jewish", "muslim", "hindu", "buddhist", "atheist", "other_religion"),
    "sexual_orientation": ("heterosexual", "homosexual_gay_or_lesbian", "bisexual", "other_sexual_orientation"),
    "disability": ("physical_disability", "intellectual_or_learning_disability", "psychiatric_or_mental_illness",
                   "other_disability"),
})
_ALL_IDENTITIES = tuple(c for cols in JIGSAW_IDENTITY_COLUMNS.values() for c in cols)
IDENTITY_PREFIX = "identity_"
#: The ``gender`` of a comment that the paper's gender rule gives no single gender.
UNSPECIFIED_GENDER = "unspecified"


def _resolver(text_column: str | None, target_column: str | None):
    def resolve(available: list[str], origin: str) -> list[str]:
        chosen = []
        for parameter, candidates in (("text_column", [text_column] if text_column else ["comment_text", "text"]),
                                      ("target_column", [target_column] if target_column else ["target", "toxicity"])):
            found = next((c for c in candidates if c in available), None)
            if found is None:
                raise InputFileError(f"{origin}: no column {' or '.join(map(repr, candidates))}; pass {parameter}= to name it")
            chosen.append(found)
        return chosen + [c for c in _ALL_IDENTITIES if c in available]

    return resolve


def _groups_of(frame: pd.DataFrame, groups: tuple[str, ...], origin: str, threshold: float) -> np.ndarray:
    """The one group whose score is > threshold while every other group's is 0; None otherwise."""
    scores = np.column_stack([_parse_scores(frame[g], origin, g) for g in groups])
    above = scores > threshold
    zero = scores == 0
    single = above.sum(axis=1) == 1
    others_zero = (above | zero).all(axis=1)
    chosen = np.full(len(frame), None, dtype=object)
    rows = single & others_zero
    chosen[rows] = np.asarray(groups, dtype=object)[above[rows].argmax(axis=1)]
    return chosen


def load_jigsaw_groups(
    path: str | os.PathLike[str],
    *,
    attribute: str = "race",
    split: str | None = None,
    text_column: str | None = None,
    target_column: str | None = None,
    threshold: float = 0.5,
) -> datasets.Dataset:
    """Jigsaw toxicity with the groups of one attribute (race, religion) from the identity columns.

    Toxicity as :func:`probekit.finetune.load_jigsaw` (toxic if :math:`t > 0.5`, non-toxic if
    :math:`t = 0`, other rows dropped). Group: the paper's gender rule for k groups -- group g when
    its score is above ``threshold`` and every other group's score of the attribute is 0; rows
    with no single group are dropped (counted in the description). The groups are those of
    :func:`wordlists.get_attribute` ``(attribute)`` that are identity columns (race: black, white,
    asian, latino; religion: jewish, christian, muslim, hindu, buddhist, atheist).

    Returns
    -------
    datasets.Dataset
        ``text``, ``label`` (ClassLabel ``["non-toxic", "toxic"]``), a column named after the
        attribute with the group, ``example_id``, and ``identity_<column>`` (float, NaN where not
        annotated) for every identity column of the file, for :func:`jigsaw_subgroups`. When the file
        has the ``female`` and ``male`` columns, also ``gender`` (the paper's rule: female / male when
        one score is above ``threshold`` and the other 0, ``"unspecified"`` otherwise), for
        intersections (``run_finetune(..., intersect="gender")``).
    """
    if attribute not in JIGSAW_IDENTITY_COLUMNS or attribute == "gender":
        raise InvalidParameterError("attribute", attribute, tuple(a for a in JIGSAW_IDENTITY_COLUMNS if a != "gender"),
                                    "for gender use load_jigsaw")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold < 1:
        raise InvalidParameterError("threshold", threshold, "a number in [0, 1)")
    known = wordlists.get_attribute(attribute).groups if attribute in wordlists.attribute_names() else ()
    resolve = _resolver(text_column, target_column)
    frame, origin = _read_table(path, split, resolve)
    text_col, target_col, *identity = resolve(list(frame.columns), origin)
    groups = tuple(g for g in known if g in JIGSAW_IDENTITY_COLUMNS[attribute] and g in frame.columns)
    if len(groups) < 2:
        raise InputFileError(f"{origin}: fewer than two identity columns of {attribute} among {known}")
    texts, keep = _texts(frame[text_col], origin, text_col)
    target = _parse_scores(frame[target_col], origin, target_col)
    group = _groups_of(frame, groups, origin, threshold)
    labelled = (target > threshold) | (target == 0)
    selected = labelled & keep & (group != None)  # noqa: E711  (an object array)
    counts = {"rows": len(frame), "labelled": int((labelled & keep).sum()),
              "dropped_no_single_group": int((labelled & keep & (group == None)).sum()),  # noqa: E711
              **{f"kept_{g}": int((selected & (group == g)).sum()) for g in groups}}
    summary = ", ".join(f"{k}={v}" for k, v in counts.items())
    logger.info("%s: Jigsaw %s groups (threshold %s): %s", origin, attribute, threshold, summary)
    labels = (target[selected] > threshold).astype(np.int64)
    if np.unique(labels).size < 2 or len(set(group[selected])) < 2:
        raise InputFileError(f"{origin}: fewer than two classes or two {attribute} groups after filtering; {summary}")
    data = _dataset(frame, selected, texts, labels, attribute, group, identity, (origin, summary))
    if {"female", "male"} <= set(frame.columns):  # for intersections: the paper's gender rule, else "unspecified"
        gender = _groups_of(frame, ("female", "male"), origin, threshold)[selected]
        data = data.add_column("gender", [g if g is not None else UNSPECIFIED_GENDER for g in gender])
    return data


def _dataset(frame, selected, texts, labels, attribute, group, identity, where):
    import datasets

    origin, summary = where
    columns: dict[str, Any] = {
        "text": list(texts[selected]), "label": labels.tolist(), attribute: list(group[selected]),
        "example_id": np.flatnonzero(selected).tolist(),
    }
    for c in identity:
        columns[IDENTITY_PREFIX + c] = _parse_scores(frame[c], origin, c)[selected].tolist()
    features = datasets.Features({
        "text": datasets.Value("string"), "label": datasets.ClassLabel(names=list(JIGSAW_LABELS)),
        attribute: datasets.Value("string"), "example_id": datasets.Value("int64"),
        **{IDENTITY_PREFIX + c: datasets.Value("float64") for c in identity},
    })
    info = datasets.DatasetInfo(description=f"Jigsaw toxicity with {attribute} groups from {origin}; {summary}",
                                features=features)
    return datasets.Dataset.from_dict(columns, features=features, info=info)


def jigsaw_subgroups(dataset: Any, *, threshold: float = 0.5, columns: Any = None) -> pd.DataFrame:
    """Boolean identity subgroups (score > ``threshold``) from the ``identity_*`` columns.

    Subgroups overlap (a comment can mention several identities); pass the result to
    :func:`probekit.extrinsic.borkan_table` for the per-subgroup AUCs of Borkan et al. (2019).
    Missing scores (not annotated) are not in the subgroup.
    """
    names = [c for c in dataset.column_names if c.startswith(IDENTITY_PREFIX)]
    if columns is not None:
        wanted = [IDENTITY_PREFIX + c for c in columns]
        missing = [c for c in wanted if c not in names]
        if missing:
            raise InvalidParameterError("columns", [c[len(IDENTITY_PREFIX):] for c in missing],
                                        [c[len(IDENTITY_PREFIX):] for c in names])
        names = wanted
    table = {c[len(IDENTITY_PREFIX):]: np.nan_to_num(np.asarray(dataset[c], dtype=float), nan=0.0) > threshold
             for c in names}
    return pd.DataFrame(table)
