"""The downstream study of one encoder under one data setting: folds, training, predictions, metrics.

Tokpo et al. (2023, §4): 10-fold cross-validation; in each fold the classifier (encoder + one
linear layer) is trained on the training part under one data setting (original, scrubbed,
swapped; :func:`probekit.finetune.apply_setting`) and every test example is scored on itself and on
its gender-swapped counterfactual (:func:`probekit.finetune.counterfactual_dataset`). Folds are
drawn by scikit-learn's ``StratifiedKFold(shuffle=True, random_state=seed)`` over the joint label x
gender strata, so every fold keeps the joint distribution of the pool; a fixed split (a given
test set) is the alternative.

What a run leaves in its output directory::

    run.json                         what the run is (settings, data digest, model fingerprint);
                                     a resumed run must match it
    folds/fold-NN/original.csv       one row per test example: fold, source (example id),
                                     variant, label, prediction, group (gender), text, prob_<class>
    folds/fold-NN/augmented.csv      the same rows plus one per counterfactual (same source,
                                     other group): the counterfactually augmented test set
    folds/fold-NN/representations.npz  the test examples' pooled vectors (what the linear layer
                                     reads), class probabilities, gender and id (float32, no pickle):
                                     what the fold's leakage was computed on
    folds/fold-NN/fold.json          the fold's metrics, leakage (gender read from the pooled vectors
                                     and from the probabilities) and noise floors, written last
    checkpoints/fold-NN/             epoch-end checkpoints of the fold being trained (removed
                                     when the fold is finished)
    metrics.json                     every fold's metrics, mean/std/t-interval over folds (leakage and
                                     noise floors included; per-class diagnostics), provenance
    results.md, results.png          the table (Tables 3-4 layout) and figure, from metrics.json

``probekit metrics folds/fold-00/original.csv`` recomputes TPRD, FPRD, accuracy per group and
macro-F1; ``probekit metrics folds/fold-00/augmented.csv --source-col source --prob-cols ...``
recomputes CF and the CF-* metrics (the exact command is in ``metrics.json``).

The same work as units (for a study runner, or to spread folds over processes and machines):
:func:`run_fold` trains and evaluates one fold into the run directory and returns the fold's result
dict (the content of its ``fold.json``); :func:`aggregate_folds` turns the fold dicts of a run
into its :class:`FinetuneResult`, and :func:`collect_run` does that from the files of a run
directory and writes ``metrics.json``, the table and the figure. :func:`estimate_seconds` gives
the run-time estimate that :func:`run_finetune` reports before it starts.

An interrupted run continues with ``resume=True``: finished folds are read from disk, the fold in
progress restarts from its last epoch-end checkpoint, and the predictions are those of an
uninterrupted run (the shared loop's randomness is a function of the seed and the step).
"""

from __future__ import annotations

import contextlib
import hashlib
import logging
import math
import os
import shutil
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from debias import describe_scrub, describe_swap
from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune._counterfactual import apply_setting, counterfactual_dataset, objective_inputs, renamed_dataset
from probekit.finetune._datasets import label_gender_counts
from probekit.finetune._embeddings import distinct_texts, frozen_embedder, frozen_text_groups, uncached_groups
from probekit.finetune._evaluate import fold_metrics, prob_column, summarize_folds
from probekit.finetune._leakage import (
    REPRESENTATIONS_FILE,
    fold_leakage,
    noise_floor,
    per_class_diagnostics,
    predict_with_representations,
    save_representations,
    summarize_leakage,
    summarize_noise_floor,
)
from probekit.finetune._settings import DATA_SETTINGS, SETTING_TABLE
from probekit.finetune._train import (
    FinetuneConfig,
    TrainedClassifier,
    measure_embed_seconds,
    measure_step_seconds,
    train_classifier,
)
from probekit.report import finetune_markdown, plot_finetune_figure
from probekit.utils import (
    Nullable,
    atomic_path,
    collect_provenance,
    dumps_json,
    is_main_process,
    read_json_file,
    wait_for_everyone,
    write_json,
)
from probekit.utils import check_output_dir as check_output_dir_policy

logger = logging.getLogger(__name__)

__all__ = [
    "FinetuneResult",
    "run_finetune",
    "run_fold",
    "aggregate_folds",
    "collect_run",
    "estimate_seconds",
    "stratified_folds",
    "data_digest",
    "check_output_dir",
    "fold_dir_name",
    "RUN_FILE",
]

RUN_FILE = "run.json"
METRICS_FILE = "metrics.json"
TABLE_FILE = "results.md"
FIGURE_FILE = "results.png"
_FORMAT = "probekit-finetune"
_FORMAT_VERSION = 1
_REQUIRED = ("text", "label", "gender", "example_id")
#: Gender permutations per fold behind each metric's shuffled-gender noise floor.
NOISE_PERMUTATIONS = 20


# ------------------------------------------------------------------------------------------ result


@dataclass
class FinetuneResult:
    """Result of :func:`run_finetune` (the content of ``metrics.json``).

    Attributes
    ----------
    settings : dict
        Data, setting, split, folds, training hyperparameters, classes, label x gender counts, the
        interventions used (swap/scrub word and name lists with digests).
    folds : list of dict
        Per fold: ``fold``, ``n_train`` (after the setting), ``n_test``, ``metrics``,
        ``per_class``, ``warnings``, ``training``, ``files``, ``leakage``
        (:func:`probekit.finetune.fold_leakage`), ``noise_floor``
        (:func:`probekit.finetune.noise_floor`), ``seconds``.
    summary : dict
        ``metrics`` / ``per_class``: mean, std (ddof=1), 95% Student-t interval over folds;
        ``leakage``, ``noise_floor`` (where the folds have them) and ``per_class_diagnostics``
        (:func:`probekit.finetune.per_class_diagnostics`).
    provenance : dict
    """

    settings: dict[str, Any]
    folds: list[dict[str, Any]]
    summary: dict[str, Any]
    provenance: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"format": _FORMAT, "format_version": _FORMAT_VERSION, "settings": self.settings,
                "folds": self.folds, "summary": self.summary, "provenance": self.provenance}

    def to_json(self) -> str:
        return dumps_json(self.to_dict())

    def save(self, out_dir: str | os.PathLike, *, label: str | None = None) -> Path:
        """Write ``metrics.json``, then ``results.md`` and ``results.png`` built from it."""
        out = Path(out_dir)
        write_json(out / METRICS_FILE, self.to_dict())
        saved = _read_json(out / METRICS_FILE)  # tables and figures come from the saved JSON only
        labels = [label] if label else None
        with atomic_path(out / TABLE_FILE) as tmp:
            tmp.write_text(finetune_markdown([saved], labels), encoding="utf-8")
        plot_finetune_figure([saved], out / FIGURE_FILE, labels)
        return out / METRICS_FILE


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


def data_digest(dataset: Any) -> str:
    """SHA-256 (20 hex digits) over every example's id, label, gender and text, in order."""
    digest = hashlib.sha256()
    for ex_id, label, gender, text in zip(dataset["example_id"], dataset["label"], dataset["gender"], dataset["text"]):
        digest.update(f"{ex_id}\x1f{label}\x1f{gender}\x1f{text}\x1e".encode("utf-8"))
    return digest.hexdigest()[:20]


def _check_dataset(dataset: Any, name: str) -> None:
    columns = getattr(dataset, "column_names", None)
    if columns is None or not hasattr(dataset, "select"):
        raise InvalidParameterError(name, type(dataset).__name__, "a datasets.Dataset with columns " + ", ".join(_REQUIRED))
    missing = [c for c in _REQUIRED if c not in columns]
    if missing:
        raise InvalidParameterError(name, f"columns {list(columns)}", "columns " + ", ".join(_REQUIRED), f"missing {missing}")
    if len(dataset) == 0:
        raise InvalidParameterError(name, "an empty dataset", "at least one example")
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
    """The part of the settings a resumed run must share with the interrupted one."""
    keys = ("data", "data_digest", "test_data_digest", "setting", "split", "folds", "config", "model_fingerprint",
            "classes", "fold_seed")
    return {k: settings.get(k) for k in keys}


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
             data_name: str) -> _Plan:
    if not isinstance(config, FinetuneConfig):
        raise InvalidParameterError("config", type(config).__name__, "a probekit.finetune.FinetuneConfig")
    if setting not in DATA_SETTINGS:
        raise InvalidParameterError("setting", setting, DATA_SETTINGS)
    _check_dataset(data, "data")
    classes = class_names(data)
    if test_data is not None:
        _check_dataset(test_data, "test_data")
        if class_names(test_data) != classes:
            raise InvalidParameterError("test_data", class_names(test_data)[:10], f"the classes of data {classes[:10]}")
        split, n_folds = "fixed", 1
    else:
        split = "cv"
        if isinstance(folds, bool) or not isinstance(folds, (int, np.integer)) or not 2 <= folds <= len(data):
            raise InvalidParameterError("folds", folds, f"an integer from 2 to the number of examples ({len(data)})")
        n_folds = int(folds)


    settings: dict[str, Any] = {
        "data": data_name,
        "data_description": getattr(getattr(data, "info", None), "description", None),
        "data_digest": data_digest(data),
        "test_data_digest": data_digest(test_data) if test_data is not None else None,
        "n_examples": len(data),
        "n_test_examples": len(test_data) if test_data is not None else None,
        "classes": classes,
        "label_gender_counts": _counts_dict(label_gender_counts(data)),
        "setting": setting,
        "split": split,
        "folds": n_folds,
        "fold_seed": int(config.seed),
        "config": config.to_dict(),
        "model_fingerprint": encoder.fingerprint,
        "model": encoder.describe(),
        "interventions": _interventions(setting),
        "metric_aggregation": (
            "tprd/fprd: mean over classes of |female - male| per class (tprd_rms: root mean square); "
            "over folds: mean, std (ddof=1), 95% Student-t interval"
        ),
    }
    if split == "cv":
        folds_ = stratified_folds(data["label"], data["gender"], n_folds, config.seed)
        splits = [(train_idx, data.select(test_idx)) for train_idx, test_idx in folds_]
    else:
        splits = [(np.arange(len(data)), test_data)]
    return _Plan(settings=settings, classes=classes, pool=data, splits=splits, test_data=test_data)


# ------------------------------------------------------------------------------------------ one fold


def _predictions_frame(fold: int, test: Any, counterfactual: Any, probs: np.ndarray, cf_probs: np.ndarray,
                       classes: Sequence[str]) -> pd.DataFrame:
    names = np.asarray(classes, dtype=object)
    parts = []
    for variant, data, p in (("original", test, probs), ("counterfactual", counterfactual, cf_probs)):
        part = pd.DataFrame({
            "fold": fold, "source": np.asarray(data["example_id"], dtype=np.int64), "variant": variant,
            "label": names[np.asarray(data["label"], dtype=np.int64)], "prediction": names[p.argmax(axis=1)],
            "group": list(data["gender"]), "text": list(data["text"]),
        })
        for k, c in enumerate(classes):
            part[prob_column(c)] = p[:, k]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _write_csv(path: Path, frame: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)  # shortest round-trip float text: metrics recomputed from it agree


def metrics_commands(fold_dir: str, classes: Sequence[str], seed: int = 0) -> dict[str, str]:
    """The ``probekit metrics`` command lines that recompute a fold's numbers and (seed) leakage from its files."""
    probs = " ".join(f"{c}={prob_column(c)}" for c in classes)
    return {
        "original": f"probekit metrics {fold_dir}/original.csv --label-col label --pred-col prediction --group-col group "
                    f"--group-of-interest female --reference male --representations {fold_dir}/{REPRESENTATIONS_FILE} --seed {int(seed)}",
        "augmented": f"probekit metrics {fold_dir}/augmented.csv --label-col label --pred-col prediction "
                     f"--group-col group --group-of-interest female --reference male --source-col source --prob-cols {probs}",
    }


def fold_dir_name(fold: int) -> str:
    """``folds/fold-NN``: where fold ``fold`` of a run directory keeps its files."""
    return f"folds/fold-{int(fold):02d}"


def _run_fold(
    k: int, encoder: Any, plan: _Plan, *, config: FinetuneConfig, out: Path, resume: bool, progress: bool,
    embed: Callable | None, callback: Callable | None,
) -> dict[str, Any]:

    started = time.perf_counter()
    setting, classes = plan.settings["setting"], plan.classes
    train_idx, test = plan.splits[k]
    fold_dir = out / fold_dir_name(k)
    train = apply_setting(plan.pool.select(train_idx), setting)
    counterfactual = counterfactual_dataset(test)
    checkpoints = out / "checkpoints" / f"fold-{k:02d}"
    clf: TrainedClassifier = train_classifier(
        encoder, train["text"], train["label"], len(classes), config, checkpoint_dir=None if config.frozen else checkpoints,
        resume=resume, progress=progress, description=f"fold {k} ({setting})", embed=embed, callback=callback,
        **objective_inputs(train, setting),  # balanced: sample weights; adversarial: genders
    )
    probs, pooled = predict_with_representations(clf, test["text"])
    cf_probs = clf.predict_proba(counterfactual["text"], progress=progress)
    renamed_probs = clf.predict_proba(renamed_dataset(test)["text"], progress=progress)
    frame = _predictions_frame(k, test, counterfactual, probs, cf_probs, classes)
    metrics, per_class, messages = fold_metrics(frame, classes, fold=k)
    evaluation = _leakage_and_floor(frame, classes, metrics, (pooled, probs, renamed_probs), test, seed=int(config.seed))
    training = {key: value for key, value in clf.training.items() if key != "losses"}
    losses = clf.training.get("losses")
    if losses:
        per_epoch = max(1, math.ceil(len(train) / config.batch_size))
        training["epoch_losses"] = [float(np.mean(losses[i:i + per_epoch])) for i in range(0, len(losses), per_epoch)]
    entry = {
        "fold": k, "setting": setting, "n_train": len(train), "n_test": len(test), "metrics": metrics,
        "per_class": per_class, "warnings": messages, "training": training,
        "files": {"original": f"{fold_dir_name(k)}/original.csv", "augmented": f"{fold_dir_name(k)}/augmented.csv",
                  "representations": f"{fold_dir_name(k)}/{REPRESENTATIONS_FILE}"},
        "metrics_commands": metrics_commands(fold_dir_name(k), classes, seed=int(config.seed)),
        "leakage": evaluation["leakage"], "noise_floor": evaluation["noise_floor"],
        "seconds": time.perf_counter() - started,
    }
    if is_main_process():
        save_representations(fold_dir / REPRESENTATIONS_FILE, **evaluation["arrays"])
        _write_csv(fold_dir / "original.csv", frame[frame["variant"] == "original"])
        _write_csv(fold_dir / "augmented.csv", frame)
        write_json(fold_dir / "fold.json", entry)  # last: marks the fold as finished
        shutil.rmtree(checkpoints, ignore_errors=True)
    wait_for_everyone()
    return _jsonable(entry)  # what fold.json holds (NaN as null, numbers as JSON numbers)


def _leakage_and_floor(frame: pd.DataFrame, classes: Sequence[str], metrics: Mapping[str, float],
                       outputs: tuple[np.ndarray, np.ndarray, np.ndarray], test: Any, *, seed: int) -> dict[str, Any]:
    """Leakage of the fold (on the float32 arrays that are saved) and the noise floor of its gap
    metrics; ``outputs``: the test examples' pooled vectors, probabilities, and probabilities of
    their same-gender renamed texts.
    """
    pooled, probs, renamed_probs = outputs
    arrays = {"pooled": pooled.astype(np.float32), "probabilities": probs.astype(np.float32),
              "genders": list(test["gender"]), "source": np.asarray(test["example_id"], dtype=np.int64),
              "renamed_probabilities": renamed_probs.astype(np.float32)}
    leakage = fold_leakage(arrays["pooled"], arrays["probabilities"], arrays["genders"], random_state=seed)
    floor = noise_floor(frame, classes, observed=metrics, n_permutations=NOISE_PERMUTATIONS, random_state=seed,
                        renamed=renamed_probs)
    return {"leakage": leakage, "noise_floor": floor, "arrays": arrays}


def _join_run_dir(out_dir: str | os.PathLike, settings: Mapping[str, Any]) -> Path:
    """The run directory of one unit: new, empty, or holding the same run (its run.json)."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise InvalidParameterError("out_dir", str(out_dir), "a directory path", "a file of that name exists")
    if out.is_dir() and any(out.iterdir()) and not (out / RUN_FILE).is_file():
        raise InvalidParameterError("out_dir", str(out_dir), f"a new or empty directory, or the directory of the same run (with {RUN_FILE})",
                                    "it holds other files")
    _start_run_dir(out, settings, resume=True)
    return out


def run_fold(
    encoder: Any,
    data: Any,
    fold: int,
    *,
    setting: str = "original",
    folds: int = 10,
    test_data: Any = None,
    config: FinetuneConfig | None = None,
    out_dir: str | os.PathLike,
    resume: bool = False,
    progress: bool = True,
    data_name: str = "custom",
    callback: Callable[[int, dict[str, float]], None] | None = None,
    embedding_cache: str | os.PathLike | None = None,
    embed: Callable[[Sequence[str]], np.ndarray] | None = None,
) -> dict[str, Any]:
    """Train and evaluate ONE fold of a run (one unit of a study: model x data x setting x fold).

    The fold is the one :func:`run_finetune` would run with the same arguments (the folds are
    drawn from ``data`` and ``config.seed`` alone), and it leaves the same files:
    ``OUT/run.json`` (shared by the units of the run; a unit whose settings, data or model differ
    from it is refused), ``OUT/folds/fold-NN/original.csv``, ``augmented.csv`` and ``fold.json``.
    Units of one run may run in any order, in separate processes or on separate machines sharing
    ``OUT``; :func:`collect_run` then aggregates them into ``metrics.json``.

    Parameters
    ----------
    encoder, data, setting, folds, test_data, config, progress, data_name, callback
        As in :func:`run_finetune`.
    embedding_cache : path, optional
        Frozen path: with a cache directory the whole pool (and its counterfactual and scrubbed
        versions) is embedded once into the cache and every later unit of any fold or setting
        reads it; without one only this fold's texts are embedded.
    embed : callable, optional
        Frozen path: ``texts -> sentence vectors`` (float array, one row per text) to use instead
        of embedding here, e.g. embeddings a study shares between its units. It must give what
        :func:`probekit.finetune._train.default_embedder` gives for this encoder and config
        (texts truncated to ``config.max_length``, the configured pooling). Ignored by full
        fine-tuning.
    fold : int
        Which fold, from 0 to ``folds - 1`` (0 with ``test_data``).
    out_dir : path
        The run directory: new, empty, or one holding units of the same run.
    resume : bool
        A finished fold (its ``fold.json``) is returned as saved; a fold interrupted during training
        continues from its last epoch-end checkpoint. Without ``resume`` both are refused.

    Returns
    -------
    dict
        The fold result, as saved in ``fold.json``: ``fold``, ``setting``, ``n_train`` (after the
        setting), ``n_test``, ``metrics`` ({name: value}, NaN saved as null), ``per_class``
        ({metric: {class: signed female - male value}}), ``warnings``, ``training``, ``files``,
        ``metrics_commands``, ``seconds``.
    """
    config = config or FinetuneConfig()
    with datasets_bars_off():
        plan = _prepare(encoder, data, setting=setting, folds=folds, test_data=test_data, config=config,
                        data_name=data_name)
        n = len(plan.splits)
        if isinstance(fold, bool) or not isinstance(fold, (int, np.integer)) or not 0 <= fold < n:
            raise InvalidParameterError("fold", fold, f"an integer from 0 to {n - 1}")
        out = _join_run_dir(out_dir, plan.settings)
        fold_file = out / fold_dir_name(fold) / "fold.json"
        if fold_file.is_file():
            if resume:
                return _read_json(fold_file)
            raise InvalidParameterError("resume", False, "True to reuse the finished fold, or another out_dir",
                                        f"fold {fold} is already finished in {str(out)!r}")
        if not config.frozen:
            embed = None
        elif embed is None and embedding_cache is not None:
            embed = frozen_embedder(encoder, config, frozen_text_groups(plan.pool, plan.test_data, setting),
                                    progress=progress, cache_dir=embedding_cache)
        return _run_fold(int(fold), encoder, plan, config=config, out=out, resume=resume, progress=progress, embed=embed,
                         callback=callback)


# ------------------------------------------------------------------------------------------ aggregation


def aggregate_folds(folds: Sequence[Mapping[str, Any]], settings: Mapping[str, Any], *,
                    confidence: float = 0.95) -> FinetuneResult:
    """The run's result (the content of ``metrics.json``) from its fold results.

    Parameters
    ----------
    folds : sequence of dict
        Fold results (:func:`run_fold`'s return values or ``fold.json`` contents), one per fold of
        the run, in any order.
    settings : mapping
        The run's settings (``run.json``'s ``"settings"``; ``FinetuneResult.settings``).
    confidence : float
        Level of the Student-t intervals over folds.

    Returns
    -------
    FinetuneResult
        ``summary`` holds, for every metric and per-class cell, the mean, std (ddof=1) and
        Student-t interval over folds (:func:`probekit.finetune.summarize_folds`); folds where a
        value is undefined (NaN / null) are left out and counted in ``n_missing``.
    """
    entries = sorted((dict(f) for f in folds), key=lambda f: int(f.get("fold", -1)))
    numbers = [int(f.get("fold", -1)) for f in entries]
    expected = int(settings.get("folds", len(entries)))
    if numbers != list(range(expected)):
        raise InvalidParameterError("folds", numbers, f"one result for each fold 0..{expected - 1}")
    wrong = sorted({f.get("setting") for f in entries if f.get("setting") not in (None, settings.get("setting"))})
    if wrong:
        raise InvalidParameterError("folds", f"fold results of setting(s) {wrong}", f"results of setting {settings.get('setting')!r}")
    for entry in entries:  # null (NaN in JSON) back to NaN
        entry["metrics"] = {k: (np.nan if v is None else v) for k, v in entry["metrics"].items()}
        entry["per_class"] = {m: {c: (np.nan if v is None else v) for c, v in cells.items()}
                              for m, cells in entry.get("per_class", {}).items()}
    summary = summarize_folds(entries, confidence=confidence)
    _add_evaluation_summaries(summary, entries, settings, confidence)
    run_settings = dict(settings)
    run_settings["fold_seconds"] = float(sum(float(f.get("seconds", 0.0)) for f in entries))
    seed = int(run_settings.get("fold_seed", (run_settings.get("config") or {}).get("seed", 0)))
    interventions = run_settings.get("interventions") or {}
    provenance = collect_provenance(
        model=run_settings.get("model"), seeds={"seed": seed, "folds": seed},
        wordlists={name: info.get("digest", "n/a") if isinstance(info, Mapping) else str(info)
                   for name, info in interventions.items()},
        parameters={k: v for k, v in run_settings.items() if k not in ("label_gender_counts", "interventions", "model")},
    )
    return FinetuneResult(settings=run_settings, folds=entries, summary=summary, provenance=provenance)


def _add_evaluation_summaries(summary: dict[str, Any], entries: Sequence[Mapping[str, Any]], settings: Mapping[str, Any],
                              confidence: float) -> None:
    """Leakage and noise floors over folds (where the folds have them) and the per-class diagnostics."""
    leakage = summarize_leakage(entries, confidence=confidence)
    if leakage is not None:
        summary["leakage"] = leakage
    floor = summarize_noise_floor(entries, confidence=confidence)
    if floor is not None:
        summary["noise_floor"] = floor
    diagnostics = per_class_diagnostics(summary.get("per_class", {}).get("tprd", {}),
                                        settings.get("label_gender_counts") or {}, confidence=confidence)
    if diagnostics is not None:
        summary["per_class_diagnostics"] = diagnostics


def collect_run(out_dir: str | os.PathLike, *, save: bool = True, confidence: float = 0.95) -> FinetuneResult:
    """Aggregate the finished folds of a run directory into ``metrics.json``, the table and the figure.

    Reads ``run.json`` and every ``folds/fold-NN/fold.json`` (all folds must be finished), calls
    :func:`aggregate_folds`, and with ``save`` writes ``metrics.json``, ``results.md`` and
    ``results.png`` (atomically) and removes leftover checkpoints.
    """
    out = Path(out_dir)
    run_file = out / RUN_FILE
    if not run_file.is_file():
        raise InputFileError(f"{str(out)!r} is not a probekit finetune run directory (no {RUN_FILE})")
    try:
        settings = _read_json(run_file)["settings"]
    except (OSError, ValueError, KeyError) as exc:
        raise InputFileError(f"cannot read {str(run_file)!r}: {exc}") from None
    n = int(settings.get("folds", 0))
    missing = [k for k in range(n) if not (out / fold_dir_name(k) / "fold.json").is_file()]
    if missing:
        raise InputFileError(f"{str(out)!r}: fold(s) {missing} of {n} are not finished (no fold.json); run them first")
    entries = []
    for k in range(n):
        try:
            entries.append(_read_json(out / fold_dir_name(k) / "fold.json"))
        except (OSError, ValueError) as exc:
            raise InputFileError(f"cannot read {str(out / fold_dir_name(k) / 'fold.json')!r}: {exc}") from None
    result = aggregate_folds(entries, settings, confidence=confidence)
    if save and is_main_process():
        result.save(out)
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    return result


# ------------------------------------------------------------------------------------------ the run


def estimate_seconds(
    encoder: Any,
    data: Any,
    *,
    setting: str = "original",
    folds: int = 10,
    test_data: Any = None,
    config: FinetuneConfig | None = None,
    fold_numbers: Sequence[int] | None = None,
) -> tuple[float, str]:
    """Seconds that training and evaluating some folds should take on this machine, and why.

    Timed on a throwaway copy of the model: a few full fine-tuning steps (seconds per step times
    the steps of the folds, plus prediction at about a third of a training step per batch), or,
    with ``config.frozen``, a few embeddings (seconds per text times the distinct texts of the
    run). ``fold_numbers``: the folds to count (default all). The arguments are those of
    :func:`run_finetune`; returns ``(seconds, message)``.
    """
    config = config or FinetuneConfig()
    with datasets_bars_off():
        plan = _prepare(encoder, data, setting=setting, folds=folds, test_data=test_data, config=config, data_name="custom")
        texts = distinct_texts(frozen_text_groups(plan.pool, plan.test_data, setting)) if config.frozen else None
        return _estimate(encoder, plan, config, fold_numbers, frozen_texts=texts)


def _estimate(encoder: Any, plan: _Plan, config: FinetuneConfig, todo: Sequence[int] | None,
              frozen_texts: Sequence[str] | None = None) -> tuple[float, str]:
    """Seconds the remaining folds should take, from a few timed training steps (or embeddings)."""
    todo = list(range(len(plan.splits))) if todo is None else list(todo)
    if not todo:
        return 0.0, "every fold is already finished"
    setting = plan.settings["setting"]
    factor = 2 if setting == "swapped" else 1
    n_test = sum(len(plan.splits[k][1]) for k in todo)
    if config.frozen:
        texts = list(frozen_texts) if frozen_texts is not None else list(plan.pool["text"])
        if not texts:
            return 0.0, (f"{len(todo)} fold(s), frozen encoder: every embedding is in the cache, "
                         "then one logistic regression per fold: seconds")
        per_text = measure_embed_seconds(encoder, texts, config)
        total = len(texts) * per_text
        return total, (f"{len(todo)} fold(s), frozen encoder: embedding {len(texts)} distinct texts once at about "
                       f"{1 / per_text:.0f} texts/s, then one logistic regression per fold: about {_duration(total)}")
    sample = plan.pool.select(plan.splits[todo[0]][0][: 3 * config.batch_size])["text"]
    seconds_per_step = measure_step_seconds(encoder, sample, len(plan.classes), config)
    steps = sum(config.epochs * math.ceil(factor * len(plan.splits[k][0]) / config.batch_size) for k in todo)
    # prediction: no backward pass and 4x larger batches, about a third of a training step per batch of examples
    predict = (2 * n_test / config.batch_size) * seconds_per_step / 3
    total = steps * seconds_per_step + predict
    return total, (f"{len(todo)} fold(s), {steps} training steps of {config.batch_size} at about "
                   f"{seconds_per_step:.2f} s each ({config.batch_size / seconds_per_step:.1f} examples/s), "
                   f"then {2 * n_test} predictions: about {_duration(total)}")


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "unknown"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"


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


def run_finetune(
    encoder: Any,
    data: Any,
    *,
    setting: str = "original",
    folds: int = 10,
    test_data: Any = None,
    config: FinetuneConfig | None = None,
    out_dir: str | os.PathLike,
    resume: bool = False,
    progress: bool = True,
    data_name: str = "custom",
    report: Callable[[str], None] | None = None,
    callback: Callable[[int, dict[str, float]], None] | None = None,
    embedding_cache: str | os.PathLike | None = None,
) -> FinetuneResult:
    """Fine-tune and evaluate a classifier on every fold; write predictions, metrics, table, figure.

    Before the first fold the run time is estimated from a few timed training steps on a
    throwaway copy of the model (or, ``frozen``, from timed embeddings) and passed to ``report``.
    The same work split into units: :func:`run_fold` per fold, then :func:`collect_run`.

    Parameters
    ----------
    encoder : probekit.Encoder
        Plain, weight-debiased, or projection-wrapped (its projection is applied to the pooled
        vector in every forward pass). Its weights are copied per fold, never changed.
    data : datasets.Dataset
        The shared representation (``text``, ``label`` ClassLabel, ``gender`` female/male,
        ``example_id``): :func:`probekit.finetune.make_synthetic_bios` (a split),
        :func:`~probekit.finetune.load_bios`, :func:`~probekit.finetune.load_jigsaw`.
        Cross-validation folds are drawn from it; with ``test_data`` it is the training set.
    setting : {"original", "scrubbed", "swapped", "balanced", "adversarial"}
        Training-data setting (Tokpo et al. 2023, §4), applied to the training part of each fold,
        or task-time baseline (``balanced``: label x gender reweighting; ``adversarial``: gradient
        reversal against a gender discriminator of strength ``config.adversarial_lambda``).
    folds : int
        Number of stratified folds (default 10, the paper's); ignored with ``test_data``.
    test_data : datasets.Dataset, optional
        A fixed test set: one train/test split instead of cross-validation.
    config : FinetuneConfig, optional
        Training hyperparameters (default: the paper's; ``config.seed`` also seeds the folds).
    out_dir : path
        New or empty directory, or (``resume``) the directory of an interrupted run.
    resume : bool
    progress : bool
        tqdm bars (folds, training steps, embeddings).
    data_name : str
        Recorded in the settings (``"synthetic"``, ``"bios"``, ``"jigsaw"``, ...).
    report : callable, optional
        Receives the user-facing status lines (the run-time estimate, each finished fold);
        default: ``logging`` at INFO.
    callback : callable, optional
        Passed to the training loop (``callback(step, values)`` after every step; raising stops
        the run, which ``resume`` continues).
    embedding_cache : path, optional
        Frozen path: a directory for the extraction engine's on-disk cache. The pool, its
        counterfactuals and its scrubbed version are cached separately, so runs of the other
        settings (and resumed runs) over the same data and encoder embed nothing again.

    Returns
    -------
    FinetuneResult
    """
    config = config or FinetuneConfig()
    out = check_output_dir(out_dir, resume=resume)  # before any work
    with datasets_bars_off():
        plan = _prepare(encoder, data, setting=setting, folds=folds, test_data=test_data, config=config,
                        data_name=data_name)
        return _run(encoder, plan, config=config, out=out, resume=resume, progress=progress,
                    say=report or logger.info, callback=callback, embedding_cache=embedding_cache)


def _run(encoder: Any, plan: _Plan, *, config: FinetuneConfig, out: Path, resume: bool, progress: bool,
         say: Callable[[str], None], callback: Callable | None, embedding_cache: Any) -> FinetuneResult:
    settings = plan.settings
    _start_run_dir(out, settings, resume)
    n = len(plan.splits)
    finished: dict[int, dict[str, Any]] = {}
    for k in range(n):
        fold_file = out / fold_dir_name(k) / "fold.json"
        if resume and fold_file.is_file():
            finished[k] = _read_json(fold_file)
    todo = [k for k in range(n) if k not in finished]
    if finished:
        say(f"resuming: {len(finished)} of {n} fold(s) already finished")

    groups = None
    if config.frozen and todo:
        groups = frozen_text_groups(plan.pool, plan.test_data, settings["setting"])
    frozen_texts = distinct_texts(uncached_groups(encoder, config, groups, embedding_cache)) if groups else None
    _, message = _estimate(encoder, plan, config, todo, frozen_texts=frozen_texts)
    say(f"estimate: {message}")
    embed = (frozen_embedder(encoder, config, groups, progress=progress, cache_dir=embedding_cache)
             if groups is not None else None)

    started = time.perf_counter()
    from tqdm.auto import tqdm

    entries = dict(finished)
    with tqdm(total=n, initial=len(finished), desc=f"folds ({settings['setting']})", unit="fold",
              disable=not progress or n < 2) as bar:
        for k in todo:
            entries[k] = _run_fold(k, encoder, plan, config=config, out=out, resume=resume, progress=progress,
                                   embed=embed, callback=callback)
            m = entries[k]["metrics"]
            leak = ((entries[k].get("leakage") or {}).get("representation") or {}).get("balanced_accuracy")
            say(f"fold {k}: accuracy {_fmt(m['accuracy'])}, TPRD {_fmt(m['tprd'])}, CF {_fmt(m['cf'])}, "
                f"gender leakage {_fmt(leak)} ({entries[k]['seconds']:.0f} s)")
            bar.update(1)
    result = aggregate_folds([entries[k] for k in range(n)], settings)
    result.settings["seconds"] = time.perf_counter() - started
    if is_main_process():
        result.save(out)
        shutil.rmtree(out / "checkpoints", ignore_errors=True)
    wait_for_everyone()
    return result


def _fmt(value: Any) -> str:
    return "nan" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{float(value):.3f}"


def _counts_dict(counts: pd.DataFrame) -> dict[str, dict[str, Any]]:
    return {str(label): {"female": int(r["female"]), "male": int(r["male"]), "total": int(r["total"])}
            for label, r in counts.iterrows()}
