"""What a fine-tuning run is: its settings, folds, run directory and the checks on its inputs.

The plan shared by every unit of a run (:func:`probekit.finetune.run_finetune`,
:func:`probekit.finetune.run_fold`, :func:`probekit.finetune.estimate_seconds`); the files a run
leaves are described in :mod:`probekit.finetune._run`.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from debias import describe_scrub, describe_swap
from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune._datasets import label_gender_counts
from probekit.finetune._groups import check_attribute_groups, check_group_setting
from probekit.finetune._settings import DATA_SETTINGS, SETTING_TABLE
from probekit.finetune._train import FinetuneConfig
from probekit.utils import Nullable, dumps_json, is_main_process, read_json_file, write_json
from probekit.utils import check_output_dir as check_output_dir_policy

RUN_FILE = "run.json"
METRICS_FILE = "metrics.json"
TABLE_FILE = "results.md"
FIGURE_FILE = "results.png"
_FORMAT = "probekit-finetune"
_FORMAT_VERSION = 1
_REQUIRED = ("text", "label", "gender", "example_id")


#: What a saved ``fold.json`` and ``run.json`` must hold to be used again (resume, aggregation).
_FOLD_SCHEMA = {"fold": int, "setting": str, "n_train": int, "n_test": int, "metrics": dict,
                "per_class": Nullable((dict, list)), "warnings": Nullable(list), "training": Nullable(dict),
                "leakage": Nullable(dict), "noise_floor": Nullable(dict)}
_RUN_SCHEMA = {"settings": {"folds": Nullable(int), "setting": Nullable(str)}}


def _read_json(path: Path) -> dict[str, Any]:
    """A saved record of a run, read by the one JSON reader and checked against its schema."""
    schema = {"fold.json": _FOLD_SCHEMA, "run.json": _RUN_SCHEMA}.get(path.name, {})
    return read_json_file(path, schema=schema)


# ------------------------------------------------------------------------------------------ splits


def stratified_folds(labels: Sequence[Any], genders: Sequence[Any], n_folds: int, random_state: int = 0
                     ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(train indices, test indices) of ``n_folds`` folds stratified on label x gender.

    scikit-learn's ``StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=random_state)``
    on the joint stratum of each example: every fold keeps the pool's label x gender distribution
    as far as the counts allow. A stratum with fewer examples than folds leaves some test folds
    without that (class, gender) cell; its metrics are then NaN with a warning.
    """
    from sklearn.model_selection import StratifiedKFold

    labels = np.asarray(labels)
    genders = np.asarray(genders)
    n = labels.size
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or not 2 <= n_folds <= n:
        raise InvalidParameterError("folds", n_folds, f"an integer from 2 to the number of examples ({n})")
    strata = pd.factorize(pd.Series([f"{y}\x1f{g}" for y, g in zip(labels.tolist(), genders.tolist())]))[0]
    splitter = StratifiedKFold(n_splits=int(n_folds), shuffle=True, random_state=int(random_state))
    with warnings.catch_warnings():
        # "The least populated class in y has only k members": reported per fold as NaN cells instead
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        return [(train, test) for train, test in splitter.split(np.zeros(n), strata)]


def data_digest(dataset: Any, group_column: str = "gender") -> str:
    """SHA-256 (20 hex digits) over every example's id, label, group (gender) and text, in order."""
    digest = hashlib.sha256()
    for ex_id, label, gender, text in zip(dataset["example_id"], dataset["label"], dataset[group_column], dataset["text"]):
        digest.update(f"{ex_id}\x1f{label}\x1f{gender}\x1f{text}\x1e".encode("utf-8"))
    return digest.hexdigest()[:20]


def _check_dataset(dataset: Any, name: str, attribute: str = "gender") -> None:
    columns = getattr(dataset, "column_names", None)
    required = _REQUIRED if attribute == "gender" else ("text", "label", attribute, "example_id")
    if columns is None or not hasattr(dataset, "select"):
        raise InvalidParameterError(name, type(dataset).__name__, "a datasets.Dataset with columns " + ", ".join(required))
    missing = [c for c in required if c not in columns]
    if missing and attribute != "gender" and attribute in missing:
        raise InvalidParameterError("attribute", attribute, f"an attribute whose groups the data carries in a column of "
                                    f"that name (the data's columns: {list(columns)})", f"{name} has no {attribute!r} column")
    if missing:
        raise InvalidParameterError(name, f"columns {list(columns)}", "columns " + ", ".join(required), f"missing {missing}")
    if len(dataset) == 0:
        raise InvalidParameterError(name, "an empty dataset", "at least one example")
    if attribute != "gender":
        check_attribute_groups(dataset, name, attribute)
        return
    genders = set(dataset["gender"])
    if not genders <= {"female", "male"}:
        raise InvalidParameterError(f"{name}['gender']", sorted(map(str, genders))[:5], ["female", "male"])


def class_names(dataset: Any) -> list[str]:
    """Class names in label-id order (the ClassLabel's names, else the ids as text)."""
    feature = getattr(dataset, "features", {}).get("label") if hasattr(dataset, "features") else None
    if feature is not None and hasattr(feature, "names"):
        return [str(n) for n in feature.names]
    return [str(i) for i in range(int(max(dataset["label"])) + 1)]


# ------------------------------------------------------------------------------------------ output directory


def check_output_dir(out_dir: str | os.PathLike, *, resume: bool, parameter: str = "out") -> Path:
    """A new or empty directory, or (``resume``) one holding an earlier run of probekit finetune."""
    return check_output_dir_policy(
        out_dir, parameter=parameter, marker=RUN_FILE, reuse=resume,
        reuse_option="resume (--resume)", kind="an earlier run of probekit finetune",
    )


def _run_spec(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The part of the settings a resumed run must share with the interrupted one (a run saved before
    attributes were recorded is a gender run).
    """
    keys = ("data", "data_digest", "test_data_digest", "setting", "split", "folds", "config", "model_fingerprint",
            "classes", "fold_seed", "intersect", "min_cell_size")
    return {**{k: settings.get(k) for k in keys}, "attribute": settings.get("attribute", "gender")}


def _start_run_dir(out: Path, settings: Mapping[str, Any], resume: bool) -> None:
    spec = _run_spec(settings)
    run_file = out / RUN_FILE
    if resume and run_file.is_file():
        try:
            saved = _read_json(run_file)
        except (OSError, ValueError) as exc:
            raise InputFileError(f"cannot read {str(run_file)!r} to resume: {exc}") from None
        old = _run_spec(saved.get("settings", {}))
        differing = sorted(k for k in spec if _jsonable(spec[k]) != _jsonable(old.get(k)))
        if differing:
            raise InvalidParameterError(
                "resume", str(out), "the settings, data and model of the interrupted run",
                f"these differ: {', '.join(differing)}; resume with the original ones or use another directory",
            )
        return
    if is_main_process():
        write_json(run_file, {"format": _FORMAT, "format_version": _FORMAT_VERSION, "settings": dict(settings)})


def _jsonable(value: Any) -> Any:
    import json

    return json.loads(dumps_json(value))


@contextlib.contextmanager
def datasets_bars_off() -> Any:
    """No ``datasets.map`` bars for the small per-fold rewrites (swap, scrub); restored afterwards."""
    import datasets

    were_on = datasets.is_progress_bar_enabled()
    datasets.disable_progress_bars()
    try:
        yield
    finally:
        if were_on:
            datasets.enable_progress_bars()


# ------------------------------------------------------------------------------------------ the plan


@dataclass
class _Plan:
    """What every unit of a run shares: its settings, classes, pool and (train indices, test set) per fold."""

    settings: dict[str, Any]
    classes: list[str]
    pool: Any
    splits: list[tuple[np.ndarray, Any]]
    test_data: Any


def _prepare(encoder: Any, data: Any, *, setting: str, folds: int, test_data: Any, config: FinetuneConfig,
             data_name: str, attribute: str = "gender", intersect: str | None = None, min_cell_size: int = 30) -> _Plan:
    if not isinstance(config, FinetuneConfig):
        raise InvalidParameterError("config", type(config).__name__, "a probekit.finetune.FinetuneConfig")
    if setting not in DATA_SETTINGS:
        raise InvalidParameterError("setting", setting, DATA_SETTINGS)
    _check_attribute_options(data, attribute, intersect, min_cell_size)
    check_group_setting(setting, attribute)
    _check_dataset(data, "data", attribute)
    classes = class_names(data)
    if test_data is not None:
        _check_dataset(test_data, "test_data", attribute)
        if intersect is not None and intersect not in test_data.column_names:
            raise InvalidParameterError("intersect", intersect, "a column of test_data too")
        if class_names(test_data) != classes:
            raise InvalidParameterError("test_data", class_names(test_data)[:10], f"the classes of data {classes[:10]}")
        split, n_folds = "fixed", 1
    else:
        split = "cv"
        if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or not 2 <= folds <= len(data):
            raise InvalidParameterError("folds", folds, f"an integer from 2 to the number of examples ({len(data)})")
        n_folds = int(folds)

    gender = attribute == "gender"
    settings: dict[str, Any] = {
        "data": data_name,
        "data_description": getattr(getattr(data, "info", None), "description", None),
        "data_digest": data_digest(data, attribute),
        "test_data_digest": data_digest(test_data, attribute) if test_data is not None else None,
        "n_examples": len(data),
        "n_test_examples": len(test_data) if test_data is not None else None,
        "classes": classes,
        "label_gender_counts": _counts_dict(label_gender_counts(data)) if gender else None,
        "setting": setting,
        "split": split,
        "folds": n_folds,
        "fold_seed": int(config.seed),
        "config": config.to_dict(),
        "model_fingerprint": encoder.fingerprint,
        "model": encoder.describe(),
        "interventions": _interventions(setting) if gender else _group_interventions(setting, attribute),
        "metric_aggregation": _AGGREGATION if gender else _GROUP_AGGREGATION,
        "attribute": attribute,
    }
    if not gender:
        settings |= {"groups": list(check_attribute_groups(data, "data", attribute)), "intersect": intersect,
                     "min_cell_size": int(min_cell_size), "label_group_counts": _group_counts(data, attribute, classes)}
    if split == "cv":
        folds_ = stratified_folds(data["label"], data[attribute], n_folds, config.seed)
        splits = [(train_idx, data.select(test_idx)) for train_idx, test_idx in folds_]
    else:
        splits = [(np.arange(len(data)), test_data)]
    return _Plan(settings=settings, classes=classes, pool=data, splits=splits, test_data=test_data)


_AGGREGATION = ("tprd/fprd: mean over classes of |female - male| per class (tprd_rms: root mean square); "
                "over folds: mean, std (ddof=1), 95% Student-t interval")
_GROUP_AGGREGATION = ("tpr/fpr max gap and RMS gap to the overall rate: mean over the evaluated classes of the "
                      "per-class values (probekit.extrinsic.group_gaps); over folds: mean, std (ddof=1), 95% Student-t "
                      "interval; summary.group_gaps: the gap family with bootstrap intervals over the pooled "
                      "out-of-fold predictions")


def _check_attribute_options(data: Any, attribute: Any, intersect: Any, min_cell_size: Any) -> None:
    if not isinstance(attribute, str) or not attribute:
        raise InvalidParameterError("attribute", attribute, "gender, race, religion or a registered attribute's name")
    if isinstance(min_cell_size, bool) or not isinstance(min_cell_size, (int, np.integer)) or min_cell_size < 1:
        raise InvalidParameterError("min_cell_size", min_cell_size, "an integer >= 1")
    if intersect is None:
        return
    columns = list(getattr(data, "column_names", []))
    if attribute == "gender":
        raise InvalidParameterError("intersect", intersect, "None with attribute='gender' (intersect a k-group attribute "
                                    "with gender: attribute='race', intersect='gender')")
    if intersect == attribute or intersect not in columns or intersect in ("text", "label", "example_id"):
        raise InvalidParameterError("intersect", intersect, f"another group column of the data (its columns: {columns})")


def _group_counts(data: Any, attribute: str, classes: Sequence[str]) -> dict[str, dict[str, int]]:
    table = pd.crosstab(pd.Series(np.asarray(classes, dtype=object)[np.asarray(data["label"])], name="label"),
                        pd.Series(list(data[attribute]), name=attribute))
    return {str(label): {str(g): int(n) for g, n in row.items()} for label, row in table.iterrows()}


def _group_interventions(setting: str, attribute: str) -> dict[str, Any]:
    import wordlists

    attr = wordlists.get_attribute(attribute)
    swap = {"intervention": "group swap (debias.swap_groups) to each other group", "attribute": attribute,
            "groups": list(attr.groups), "digest": attr.digest[:16]}
    out: dict[str, Any] = {"counterfactual_test": swap}
    if setting == "scrubbed":
        out["training"] = {**swap, "intervention": "group scrub (debias.scrub_attribute)"}
    elif setting == "swapped":
        out["training"] = {**swap, "intervention": "k-group CDA: one swap per example to a uniformly drawn other group"}
    elif setting == "balanced":
        out["training"] = {"intervention": setting, "objective": "balanced", "attribute": attribute,
                           "description": f"every label x {attribute} cell weighs the same"}
    return out



def _interventions(setting: str) -> dict[str, Any]:

    out = {"counterfactual_test": describe_swap()}
    if setting == "scrubbed":

        out["training"] = describe_scrub()
    elif setting == "swapped":
        out["training"] = out["counterfactual_test"]
    elif SETTING_TABLE[setting].objective != "cross_entropy":  # balanced, adversarial: the loss changes
        out["training"] = {"intervention": setting, "objective": SETTING_TABLE[setting].objective,
                           "description": SETTING_TABLE[setting].training_data}
    return out



def _counts_dict(counts: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(label): {"female": int(r["female"]), "male": int(r["male"]), "total": int(r["total"])}
            for label, r in counts.iterrows()}
