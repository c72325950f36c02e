"""One fold of a fine-tuning run: train, predict on the test set and its counterfactual, evaluate, save."""

from __future__ import annotations

import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.finetune._counterfactual import apply_setting, counterfactual_dataset, renamed_dataset
from probekit.finetune._embeddings import frozen_embedder, frozen_text_groups
from probekit.finetune._evaluate import fold_metrics, prob_column
from probekit.finetune._fold_common import (
    _attribute_readers,
    _predictions_frame,
    _train_fold,
    _training_record,
    _write_csv,
    fold_dir_name,
)
from probekit.finetune._fold_groups import run_group_fold
from probekit.finetune._leakage import (
    REPRESENTATIONS_FILE,
    fold_leakage,
    noise_floor,
    predict_with_representations,
    save_representations,
)
from probekit.finetune._plan import RUN_FILE, _jsonable, _Plan, _prepare, _read_json, _start_run_dir, datasets_bars_off
from probekit.finetune._train import FinetuneConfig, TrainedClassifier
from probekit.utils import is_main_process, wait_for_everyone, write_json

#: Gender permutations per fold behind each metric's shuffled-gender noise floor.
NOISE_PERMUTATIONS = 20


# ------------------------------------------------------------------------------------------ one fold


def metrics_commands(fold_dir: str, classes: Sequence[str], seed: int = 0,
                     leakage_readers: Sequence[str] = ()) -> dict[str, str]:
    """The ``probekit metrics`` command lines that recompute a fold's numbers and (seed) leakage from its files;
    one more ``original_<reader>`` line per nonlinear leakage reader the fold used.
    """
    probs = " ".join(f"{c}={prob_column(c)}" for c in classes)
    original = (f"probekit metrics {fold_dir}/original.csv --label-col label --pred-col prediction --group-col group "
                f"--group-of-interest female --reference male --representations {fold_dir}/{REPRESENTATIONS_FILE} --seed {int(seed)}")
    return {
        "original": original,
        **{f"original_{reader}": f"{original} --reader {reader}" for reader in leakage_readers if reader != "linear"},
        "augmented": f"probekit metrics {fold_dir}/augmented.csv --label-col label --pred-col prediction "
                     f"--group-col group --group-of-interest female --reference male --source-col source --prob-cols {probs}",
    }


def _run_fold(
    k: int, encoder: Any, plan: _Plan, *, config: FinetuneConfig, out: Path, resume: bool, progress: bool,
    embed: Callable | None, callback: Callable | None, leakage_readers: Sequence[str] = (), noise_floor: bool = True,
) -> dict[str, Any]:
    if plan.settings.get("attribute", "gender") != "gender":
        return run_group_fold(k, encoder, plan, config=config, out=out, resume=resume, progress=progress, embed=embed,
                              callback=callback, leakage_readers=leakage_readers)
    started = time.perf_counter()
    setting, classes = plan.settings["setting"], plan.classes
    train_idx, test = plan.splits[k]
    fold_dir = out / fold_dir_name(k)
    train = apply_setting(plan.pool.select(train_idx), setting)
    counterfactual = counterfactual_dataset(test)
    checkpoints = out / "checkpoints" / f"fold-{k:02d}"
    clf: TrainedClassifier = _train_fold(k, encoder, plan, train, config=config, out=out, resume=resume,
                                         progress=progress, embed=embed, callback=callback)
    probs, pooled = predict_with_representations(clf, test["text"])
    cf_probs = clf.predict_proba(counterfactual["text"], progress=progress)
    renamed_probs = clf.predict_proba(renamed_dataset(test)["text"], progress=progress)
    scrubbed_probs, scrubbed_pooled = predict_with_representations(clf, apply_setting(test, "scrubbed")["text"])
    frame = _predictions_frame(k, test, counterfactual, probs, cf_probs, classes)
    metrics, per_class, messages = fold_metrics(frame, classes, fold=k)
    evaluation = _leakage_and_floor(frame, classes, metrics, (pooled, probs, renamed_probs, scrubbed_pooled, scrubbed_probs),
                                    test, seed=int(config.seed), leakage_readers=leakage_readers, with_floor=noise_floor)
    training = _training_record(clf, len(train), config.batch_size)
    entry = {
        "fold": k, "setting": setting, "n_train": len(train), "n_test": len(test), "metrics": metrics,
        "per_class": per_class, "warnings": messages, "training": training,
        "files": {"original": f"{fold_dir_name(k)}/original.csv", "augmented": f"{fold_dir_name(k)}/augmented.csv",
                  "representations": f"{fold_dir_name(k)}/{REPRESENTATIONS_FILE}"},
        "metrics_commands": metrics_commands(fold_dir_name(k), classes, seed=int(config.seed),
                                             leakage_readers=leakage_readers),
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
                       outputs: tuple[np.ndarray, ...], test: Any, *, seed: int,
                       leakage_readers: Sequence[str] = (), with_floor: bool = True) -> dict[str, Any]:
    """Leakage of the fold (on the float32 arrays that are saved) and the noise floor of its gap
    metrics; ``outputs``: the test examples' pooled vectors, probabilities, probabilities of
    their same-gender renamed texts, and pooled vectors and probabilities of their scrubbed texts
    (leakage's control); ``leakage_readers``: nonlinear readers that also read the pooled vectors.
    """
    pooled, probs, renamed_probs, scrubbed_pooled, scrubbed_probs = outputs
    arrays = {"pooled": pooled.astype(np.float32), "probabilities": probs.astype(np.float32),
              "genders": list(test["gender"]), "source": np.asarray(test["example_id"], dtype=np.int64),
              "renamed_probabilities": renamed_probs.astype(np.float32),
              "scrubbed_pooled": scrubbed_pooled.astype(np.float32),
              "scrubbed_probabilities": scrubbed_probs.astype(np.float32)}
    leakage = fold_leakage(arrays["pooled"], arrays["probabilities"], arrays["genders"], random_state=seed,
                           scrubbed=(arrays["scrubbed_pooled"], arrays["scrubbed_probabilities"]),
                           nonlinear_readers=leakage_readers)
    floor = (noise_floor(frame, classes, observed=metrics, n_permutations=NOISE_PERMUTATIONS, random_state=seed,
                         renamed=renamed_probs) if with_floor else None)
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
    leakage_readers: str | Sequence[str] | None = None,
    noise_floor: bool = True,
    attribute: str = "gender",
    intersect: str | None = None,
    min_cell_size: int = 30,
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
    noise_floor : bool
        Compute the shuffled-gender noise floor of the gap metrics (``fold.json``'s ``noise_floor``;
        ``None`` without it). A dose-response point leaves it out: its analysis does not read it and
        it costs about a quarter of a frozen point.
    attribute, intersect, min_cell_size
        As in :func:`run_finetune` (a k-group attribute's fold has no noise floor).
    fold : int
        Which fold, from 0 to ``folds - 1`` (0 with ``test_data``).
    out_dir : path
        The run directory: new, empty, or one holding units of the same run.
    resume : bool
        A finished fold (its ``fold.json``) is returned as saved; a fold interrupted during training
        continues from its last epoch-end checkpoint. Without ``resume`` both are refused.
    leakage_readers : str or sequence of str, optional
        Nonlinear readers (``"mlp"``, ``"kernel"``) that also read the fold's leakage from the pooled
        vectors (:func:`probekit.finetune.fold_leakage`), beside the linear gender probe.

    Returns
    -------
    dict
        The fold result, as saved in ``fold.json``: ``fold``, ``setting``, ``n_train`` (after the
        setting), ``n_test``, ``metrics`` ({name: value}, NaN saved as null), ``per_class``
        ({metric: {class: signed female - male value}}), ``warnings``, ``training``, ``files``,
        ``metrics_commands``, ``seconds``.
    """
    config = config or FinetuneConfig()
    readers = _attribute_readers(leakage_readers, attribute)  # before any work
    with datasets_bars_off():
        plan = _prepare(encoder, data, setting=setting, folds=folds, test_data=test_data, config=config,
                        data_name=data_name, attribute=attribute, intersect=intersect, min_cell_size=min_cell_size)
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
            embed = frozen_embedder(encoder, config, frozen_text_groups(plan.pool, plan.test_data, setting, attribute),
                                    progress=progress, cache_dir=embedding_cache)
        return _run_fold(int(fold), encoder, plan, config=config, out=out, resume=resume, progress=progress, embed=embed,
                         callback=callback, leakage_readers=readers, noise_floor=noise_floor)

