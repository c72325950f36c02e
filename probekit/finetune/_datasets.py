"""Loaders of the two downstream tasks of the study: Bias-in-Bios and Jigsaw / Civil Comments.

Both return a :class:`datasets.Dataset` in the representation shared with the synthetic
biographies (:func:`probekit.finetune.make_synthetic_bios`):

``text`` (str)
    The input text.
``label`` (:class:`datasets.ClassLabel`)
    Class id; ``dataset.features["label"].names`` gives the class names in id order.
``gender`` (str)
    ``"female"`` or ``"male"``: the protected group of the example.
``example_id`` (int)
    Row number in the source (all splits concatenated in the order read): stable under
    filtering, and the ``source`` id that pairs an example with its counterfactual.

Each loader validates the columns and values, logs the joint label x gender counts (the first
item of Fair Enough's checklist: know how many examples of each group every class has) and raises
:class:`~probekit.errors.InputFileError` with a one-line message naming the file and the column
when the input is unusable.
"""

from __future__ import annotations

import logging
import os
import re
import warnings
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune._dataset_files import _column_resolver, _read_table

if TYPE_CHECKING:  # datasets is imported lazily: it is slow to import
    import datasets

__all__ = [
    "LABHC_PROFESSIONS",
    "JIGSAW_LABELS",
    "load_bios",
    "load_jigsaw",
    "label_gender_counts",
    "format_label_gender_counts",
]

logger = logging.getLogger(__name__)

LABHC_PROFESSIONS: tuple[str, ...] = (
    "accountant", "architect", "attorney", "chiropractor", "comedian", "composer", "dentist", "dietitian", "dj",
    "filmmaker", "interior_designer", "journalist", "model", "nurse", "painter", "paralegal", "pastor",
    "personal_trainer", "photographer", "physician", "poet", "professor", "psychologist", "rapper",
    "software_engineer", "surgeon", "teacher", "yoga_teacher",
)
"""The 28 Bias-in-Bios professions in the id order of ``LabHC/bias_in_bios`` (0 = accountant)."""

JIGSAW_LABELS: tuple[str, ...] = ("non-toxic", "toxic")
"""Class names of the Jigsaw task: 0 = non-toxic (toxicity exactly 0), 1 = toxic (> 0.5)."""

GENDERS = ("female", "male")

# LabHC codes gender as 0 = male, 1 = female (dataset card: "Male | 0", "Female | 1").
_GENDER_SPELLINGS = {
    "f": "female", "female": "female", "1": "female",
    "m": "male", "male": "male", "0": "male",
}


# --------------------------------------------------------------------------------------------
# Value checks
# --------------------------------------------------------------------------------------------


def _first_rows(mask: np.ndarray, k: int = 3) -> str:
    rows = np.flatnonzero(mask)[:k]
    return ", ".join(str(int(r)) for r in rows)


def _missing(series: pd.Series) -> np.ndarray:
    """Rows with no value: NaN/None, or a blank string."""
    missing = series.isna().to_numpy(dtype=bool, copy=True)
    if not pd.api.types.is_numeric_dtype(series.dtype):
        try:
            blank = series.str.strip().eq("")
        except AttributeError:  # no strings at all
            return missing
        missing = missing | blank.fillna(False).to_numpy(dtype=bool)
    return missing


def _map_distinct(series: pd.Series, convert) -> np.ndarray:
    """``convert`` applied once per distinct value (400k rows hold a few dozen), spread to the rows."""
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    converted = np.empty(len(uniques) + 1, dtype=object)
    converted[: len(uniques)] = [convert(u) for u in uniques]
    converted[-1] = None  # code -1: missing, checked before
    return converted[codes]


def _gender_name(value: Any) -> str | None:
    """``"female"``/``"male"`` for one spelling of a gender, ``None`` if unknown."""
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, np.integer, float, np.floating)):
        return _GENDER_SPELLINGS.get(str(int(value))) if float(value).is_integer() else None
    return _GENDER_SPELLINGS.get(str(value).strip().lower())


def _parse_genders(series: pd.Series, origin: str, column: str) -> np.ndarray:
    """``"female"``/``"male"`` per row from 0/1 (LabHC: 1 = female), F/M or Female/Male."""
    missing = _missing(series)
    if missing.any():
        raise InputFileError(
            f"{origin}: column {column!r} has {int(missing.sum())} missing value(s) (rows {_first_rows(missing)})"
        )
    mapped = _map_distinct(series, _gender_name)
    unknown = pd.isna(mapped)
    if unknown.any():
        bad = list(dict.fromkeys(series.to_numpy(dtype=object)[unknown].tolist()))[:3]
        raise InputFileError(
            f"{origin}: column {column!r} has unknown gender value(s) {', '.join(map(repr, bad))} (rows "
            f"{_first_rows(unknown)}); expected 0/1 (0 = male, 1 = female as in LabHC), F/M or Female/Male"
        )
    return mapped


def _normalize_profession(value: Any) -> str | int | None:
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return int(value)
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        return int(value)
    if isinstance(value, str):
        text = value.strip().lower()
        if text.isdigit():
            return int(text)
        return re.sub(r"[\s\-]+", "_", text)
    return None


def _profession_name(value: Any) -> str | None:
    key = _normalize_profession(value)
    if isinstance(key, int):
        return LABHC_PROFESSIONS[key] if 0 <= key < len(LABHC_PROFESSIONS) else None
    if key in LABHC_PROFESSIONS:
        return key
    return None


def _parse_professions(series: pd.Series, origin: str, column: str) -> np.ndarray:
    """Profession names per row from LabHC ids (0-27) or names ("nurse", "yoga teacher", "DJ")."""
    missing = _missing(series)
    if missing.any():
        raise InputFileError(
            f"{origin}: column {column!r} has {int(missing.sum())} missing value(s) (rows {_first_rows(missing)})"
        )
    mapped = _map_distinct(series, _profession_name)
    unknown = pd.isna(mapped)
    if unknown.any():
        bad = list(dict.fromkeys(series.to_numpy(dtype=object)[unknown].tolist()))[:3]
        raise InputFileError(
            f"{origin}: column {column!r} has unknown profession(s) {', '.join(map(repr, bad))} (rows "
            f"{_first_rows(unknown)}); expected LabHC ids 0-27 or the names {', '.join(LABHC_PROFESSIONS)}"
        )
    return mapped


def _parse_scores(series: pd.Series, origin: str, column: str) -> np.ndarray:
    """Floats; missing stays NaN, anything that is not a number is an error."""
    numbers = pd.to_numeric(series, errors="coerce").to_numpy(dtype=np.float64)
    bad = np.isnan(numbers) & ~_missing(series)
    if bad.any():
        shown = list(dict.fromkeys(series.to_numpy(dtype=object)[bad].tolist()))[:3]
        raise InputFileError(
            f"{origin}: column {column!r} has non-numeric value(s) {', '.join(map(repr, shown))} (rows {_first_rows(bad)})"
        )
    return numbers


def _texts(series: pd.Series, origin: str, column: str) -> tuple[np.ndarray, np.ndarray]:
    """Texts and the mask of rows that hold one (missing or blank texts are dropped, counted)."""
    keep = ~_missing(series)
    texts = series.astype(str).to_numpy(dtype=object)
    if not keep.any():
        raise InputFileError(f"{origin}: column {column!r} holds no text")
    if not keep.all():
        logger.warning("%s: %d row(s) with an empty %r dropped", origin, int((~keep).sum()), column)
    return texts, keep


def _check_both_genders(genders: np.ndarray, origin: str, column: str, what: str) -> None:
    present = set(np.unique(genders).tolist())
    if present != set(GENDERS):
        only = ", ".join(sorted(present)) or "none"
        raise InputFileError(
            f"{origin}: column {column!r} leaves one gender only ({only}) in {what}; the fairness metrics "
            "compare female and male examples"
        )


# --------------------------------------------------------------------------------------------
# Building the shared representation; counts
# --------------------------------------------------------------------------------------------


def _to_dataset(texts, labels, label_names, genders, example_ids, description: str):
    import datasets

    features = datasets.Features({
        "text": datasets.Value("string"),
        "label": datasets.ClassLabel(names=list(label_names)),
        "gender": datasets.Value("string"),
        "example_id": datasets.Value("int64"),
    })
    frame = pd.DataFrame({
        "text": pd.Series(texts, dtype=object), "label": np.asarray(labels, dtype=np.int64),
        "gender": pd.Series(genders, dtype=object), "example_id": np.asarray(example_ids, dtype=np.int64),
    })
    return datasets.Dataset.from_pandas(
        frame, preserve_index=False, info=datasets.DatasetInfo(description=description, features=features),
    )


def label_gender_counts(dataset: Any) -> pd.DataFrame:
    """Joint label x gender counts of a task dataset (Fair Enough's first check).

    Parameters
    ----------
    dataset : datasets.Dataset
        A dataset in the shared representation (``label`` as a ClassLabel, ``gender`` strings).
        A mapping or DataFrame with ``label`` and ``gender`` columns also works; then the labels
        are shown as they are.

    Returns
    -------
    pandas.DataFrame
        One row per class (every class of the ClassLabel, also one without examples), columns
        ``female``, ``male`` (counts), ``total`` and ``female_share`` = female / total (NaN for an
        empty class).
    """
    label_names = None
    features = getattr(dataset, "features", None)
    if features is not None and "label" in features and hasattr(features["label"], "names"):
        label_names = list(features["label"].names)
    try:
        if hasattr(dataset, "select_columns"):  # a datasets.Dataset: whole columns through Arrow
            table = dataset.select_columns(["label", "gender"]).to_pandas()
            labels, genders = table["label"].to_numpy(), table["gender"].to_numpy(dtype=object)
        else:
            labels = np.asarray(dataset["label"])
            genders = np.asarray(dataset["gender"], dtype=object)
    except (KeyError, TypeError, ValueError) as exc:
        raise InvalidParameterError("dataset", type(dataset).__name__, "a dataset with 'label' and 'gender' columns") from exc
    if label_names is not None:
        index = pd.Index(label_names, name="label")
        shown = np.asarray(label_names, dtype=object)[labels] if len(labels) else np.array([], dtype=object)
    else:
        shown = labels
        index = pd.Index(pd.unique(np.sort(labels)), name="label")
    table = pd.crosstab(pd.Series(shown, name="label"), pd.Series(genders, name="gender"))
    table = table.reindex(index=index, columns=list(GENDERS), fill_value=0).fillna(0).astype(np.int64)
    table.columns.name = None
    table["total"] = table["female"] + table["male"]
    with np.errstate(invalid="ignore", divide="ignore"):
        table["female_share"] = table["female"] / table["total"].where(table["total"] > 0)
    return table


def format_label_gender_counts(counts: pd.DataFrame) -> str:
    """A Markdown table of :func:`label_gender_counts` with a total row, for the CLI and logs."""
    header = "| label | female | male | total | female share |"
    lines = [header, "|---|---:|---:|---:|---:|"]

    def row(name, female, male, total):
        share = f"{female / total:.3f}" if total else "n/a"
        return f"| {name} | {int(female)} | {int(male)} | {int(total)} | {share} |"

    for name, r in counts.iterrows():
        lines.append(row(name, r["female"], r["male"], r["total"]))
    lines.append(row("**total**", counts["female"].sum(), counts["male"].sum(), counts["total"].sum()))
    return "\n".join(lines)


def _log_counts(dataset, origin: str) -> None:
    counts = label_gender_counts(dataset)
    logger.info("%s: %d examples; label x gender counts:\n%s", origin, len(dataset),
                format_label_gender_counts(counts))
    one_sided = counts.index[(counts["total"] > 0) & ((counts["female"] == 0) | (counts["male"] == 0))].tolist()
    if one_sided:
        warnings.warn(
            f"{origin}: class(es) {', '.join(map(str, one_sided))} have examples of one gender only; their "
            "group metrics (TPRD, FPRD) will be undefined (NaN)", UserWarning, stacklevel=3,
        )


# --------------------------------------------------------------------------------------------
# Bias-in-Bios
# --------------------------------------------------------------------------------------------


def _paper_subset(names: np.ndarray, genders: np.ndarray, n_each: int, origin: str, column: str) -> list[str]:
    """The ``n_each`` most female- and most male-dominated professions (female share; ties by id)."""
    present = [p for p in LABHC_PROFESSIONS if p in set(names.tolist())]
    if len(present) < 2 * n_each:
        raise InputFileError(
            f"{origin}: column {column!r} holds {len(present)} profession(s); the paper's subset needs at least "
            f"{2 * n_each} (pass professions='all' or a list)"
        )
    female = pd.Series(genders == "female").groupby(names).mean()
    order = sorted(present, key=lambda p: (float(female[p]), LABHC_PROFESSIONS.index(p)))
    chosen = set(order[:n_each]) | set(order[-n_each:])
    logger.info(
        "%s: paper subset: female-dominated %s; male-dominated %s", origin,
        ", ".join(f"{p} ({female[p]:.2f} female)" for p in reversed(order[-n_each:])),
        ", ".join(f"{p} ({female[p]:.2f} female)" for p in order[:n_each]),
    )
    return [p for p in LABHC_PROFESSIONS if p in chosen]


def _explicit_subset(professions: Any, names: np.ndarray, origin: str, column: str) -> list[str]:
    if isinstance(professions, (str, int, np.integer)):
        professions = [professions]
    try:
        requested = list(professions)
    except TypeError as exc:
        raise InvalidParameterError(
            "professions", professions, "'paper', 'all' or a list of LabHC profession names or ids"
        ) from exc
    chosen = []
    for value in requested:
        name = _profession_name(value)
        if name is None:
            raise InvalidParameterError("professions", value, LABHC_PROFESSIONS, "LabHC names or ids 0-27")
        chosen.append(name)
    if len(set(chosen)) < 2:
        raise InvalidParameterError("professions", requested, "at least two different professions")
    present = set(names.tolist())
    absent = [p for p in dict.fromkeys(chosen) if p not in present]
    if absent:
        raise InputFileError(
            f"{origin}: column {column!r} has no rows of {', '.join(map(repr, absent))} (an empty subset); "
            f"present: {', '.join(p for p in LABHC_PROFESSIONS if p in present)}"
        )
    return [p for p in LABHC_PROFESSIONS if p in set(chosen)]


def load_bios(
    name_or_path: str | os.PathLike[str],
    *,
    professions: str | Sequence[str | int] = "paper",
    split: str | None = None,
    text_column: str = "hard_text",
    label_column: str = "profession",
    gender_column: str = "gender",
    n_per_gender: int = 7,
) -> datasets.Dataset:
    r"""Load Bias-in-Bios (De-Arteaga et al. 2019) in the ``LabHC/bias_in_bios`` layout.

    Tokpo et al. (2023, §4) keep the seven most female-dominated and the seven most
    male-dominated professions: ranked by the female share
    :math:`f_c = |\{i : y_i = c, g_i = F\}| / |\{i : y_i = c\}|`, computed here from the data
    read (ties broken by the LabHC id).

    Parameters
    ----------
    name_or_path : str or path-like
        A data file (``.csv``, ``.tsv``, ``.json`` (records or lines), ``.jsonl``, ``.parquet``), a
        folder written by ``Dataset.save_to_disk`` / ``DatasetDict.save_to_disk``, or, when online,
        a Hub dataset name such as ``"LabHC/bias_in_bios"``.
    professions : "paper", "all" or sequence of str or int
        ``"paper"``: the ``n_per_gender`` most female- and most male-dominated professions;
        ``"all"``: every profession present; or explicit LabHC names (``"yoga_teacher"``, ``"yoga
        teacher"``) or ids.
    split : str, optional
        For a saved ``DatasetDict`` or a Hub dataset: the split to read (``"train"``, ``"dev"``,
        ``"test"``); by default every split, concatenated in order (cross-validation folds are
        drawn from the pool).
    text_column, label_column, gender_column : str
        Column names. Professions may be LabHC ids (0-27, see :data:`LABHC_PROFESSIONS`) or names;
        genders 0/1 (LabHC: 0 = male, 1 = female), F/M or Female/Male, any case.
    n_per_gender : int
        Professions per side in the paper's subset.

    Returns
    -------
    datasets.Dataset
        Columns ``text``, ``label`` (ClassLabel over the chosen professions in LabHC id order),
        ``gender`` (``"female"``/``"male"``) and ``example_id`` (row in the source). Rows with an
        empty text are dropped (logged).

    Raises
    ------
    InputFileError
        Missing file, missing column, unknown profession or gender value, a listed profession
        with no rows (empty subset), one gender only. The message names the file and the column.
    InvalidParameterError
        An unknown name in ``professions``, an unknown ``split``.
    """
    if isinstance(n_per_gender, bool) or not isinstance(n_per_gender, (int, np.integer)) or n_per_gender < 1:
        raise InvalidParameterError("n_per_gender", n_per_gender, "a positive integer")
    resolve = _column_resolver({"text_column": [text_column], "label_column": [label_column],
                                "gender_column": [gender_column]})
    frame, origin = _read_table(name_or_path, split, resolve)
    texts, keep = _texts(frame[text_column], origin, text_column)
    names = _parse_professions(frame[label_column], origin, label_column)
    genders = _parse_genders(frame[gender_column], origin, gender_column)
    row_ids = np.arange(len(frame))
    texts, names, genders, row_ids = texts[keep], names[keep], genders[keep], row_ids[keep]

    if isinstance(professions, str) and professions.strip().lower() in ("paper", "all"):
        if professions.strip().lower() == "paper":
            chosen = _paper_subset(names, genders, int(n_per_gender), origin, label_column)
        else:
            chosen = [p for p in LABHC_PROFESSIONS if p in set(names.tolist())]
    else:
        chosen = _explicit_subset(professions, names, origin, label_column)
    label_of = pd.Series(names).map({p: i for i, p in enumerate(chosen)}).to_numpy(dtype=np.float64)
    selected = ~np.isnan(label_of)
    _check_both_genders(genders[selected], origin, gender_column, "the chosen professions")
    labels = label_of[selected].astype(np.int64)
    description = (
        f"Bias-in-Bios from {origin}; columns text={text_column!r}, label={label_column!r}, "
        f"gender={gender_column!r}; professions={chosen}; {int(selected.sum())} of {len(frame)} rows"
    )
    dataset = _to_dataset(texts[selected], labels, chosen, genders[selected], row_ids[selected], description)
    _log_counts(dataset, origin)
    return dataset


# --------------------------------------------------------------------------------------------
# Jigsaw / Civil Comments
# --------------------------------------------------------------------------------------------


def load_jigsaw(
    path: str | os.PathLike[str],
    *,
    split: str | None = None,
    text_column: str | None = None,
    target_column: str | None = None,
    female_column: str = "female",
    male_column: str = "male",
    threshold: float = 0.5,
) -> datasets.Dataset:
    """Load Jigsaw Unintended Bias / Civil Comments with the paper's filtering (Tokpo et al. 2023, §4).

    Toxicity: toxic (label 1) if :math:`t > 0.5`, non-toxic (label 0) if :math:`t = 0`, other rows
    dropped. Gender: female if :math:`s_F > 0.5` and :math:`s_M = 0`, male if :math:`s_M > 0.5`
    and :math:`s_F = 0`; rows with neither (including rows whose identity columns were not
    annotated, NaN) are dropped. Every count along the way is logged and kept in
    ``dataset.info.description``.

    Parameters
    ----------
    path : str or path-like
        The competition CSV (``train.csv``, ``test_public_expanded.csv``, ...), another data file
        in that layout, a saved dataset folder, or a Hub name when online.
    split : str, optional
        Split of a saved ``DatasetDict`` / Hub dataset (default: all, concatenated).
    text_column : str, optional
        Default: ``comment_text``, else ``text``.
    target_column : str, optional
        Default: ``target``, else ``toxicity``.
    female_column, male_column : str
        Identity score columns.
    threshold : float
        The 0.5 of the filters above.

    Returns
    -------
    datasets.Dataset
        Columns ``text``, ``label`` (ClassLabel ``["non-toxic", "toxic"]``), ``gender`` and
        ``example_id`` (row in the source).

    Raises
    ------
    InputFileError
        Missing file or column, non-numeric scores, nothing left after filtering, one class or one
        gender only. The message names the file and the column.
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating)) or not 0 <= threshold < 1:
        raise InvalidParameterError("threshold", threshold, "a number in [0, 1)")
    resolve = _column_resolver({
        "text_column": [text_column] if text_column else ["comment_text", "text"],
        "target_column": [target_column] if target_column else ["target", "toxicity"],
        "female_column": [female_column],
        "male_column": [male_column],
    })
    frame, origin = _read_table(path, split, resolve)
    text_col, target_col, female_col, male_col = resolve(list(frame.columns), origin)
    texts, keep = _texts(frame[text_col], origin, text_col)
    target = _parse_scores(frame[target_col], origin, target_col)
    female = _parse_scores(frame[female_col], origin, female_col)
    male = _parse_scores(frame[male_col], origin, male_col)

    toxic = target > threshold
    non_toxic = target == 0
    is_female = (female > threshold) & (male == 0)
    is_male = (male > threshold) & (female == 0)
    labelled = (toxic | non_toxic) & keep
    selected = labelled & (is_female | is_male)
    counts = {
        "rows": len(frame),
        "empty_text": int((~keep).sum()),
        "toxic": int((toxic & keep).sum()),
        "non_toxic": int((non_toxic & keep).sum()),
        "dropped_toxicity_between": int((keep & ~toxic & ~non_toxic & ~np.isnan(target)).sum()),
        "dropped_toxicity_missing": int((keep & np.isnan(target)).sum()),
        "dropped_no_gender": int((labelled & ~(is_female | is_male)).sum()),
        "kept_female": int((selected & is_female).sum()),
        "kept_male": int((selected & is_male).sum()),
    }
    counts["kept"] = counts["kept_female"] + counts["kept_male"]
    summary = ", ".join(f"{k}={v}" for k, v in counts.items())
    logger.info("%s: Jigsaw filtering (threshold %s): %s", origin, threshold, summary)
    if not selected.any():
        raise InputFileError(
            f"{origin}: no row passes the filter (column {target_col!r} > {threshold} or == 0, and one of "
            f"{female_col!r}/{male_col!r} > {threshold} with the other == 0); {summary}"
        )
    labels = toxic[selected].astype(np.int64)
    if np.unique(labels).size < 2:
        only = JIGSAW_LABELS[int(labels[0])]
        raise InputFileError(f"{origin}: column {target_col!r} leaves {only} rows only after filtering; {summary}")
    genders = np.where(is_female[selected], "female", "male").astype(object)
    _check_both_genders(genders, origin, f"{female_col}/{male_col}", "the filtered rows")
    description = (
        f"Jigsaw toxicity from {origin}; columns text={text_col!r}, target={target_col!r}, "
        f"female={female_col!r}, male={male_col!r}; filtering: {summary}"
    )
    dataset = _to_dataset(texts[selected], labels, JIGSAW_LABELS, genders, np.flatnonzero(selected), description)
    _log_counts(dataset, origin)
    return dataset
