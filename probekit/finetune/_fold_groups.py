"""One fold of a k-group run (attribute other than gender): train, predict on the test set and its
counterfactuals to every other group, evaluate the gap family, read the group back (leakage), save.

The files are those of a gender fold (:mod:`probekit.finetune._run`): ``original.csv`` and
``augmented.csv`` (``group`` is the attribute's group of the row's text; the intersect column, if any,
beside it), ``representations.npz`` (``genders`` holds the groups) and ``fold.json`` with
``attribute``, ``metrics`` (:data:`probekit.finetune.GROUP_METRICS`), ``per_class``, ``group_gaps``,
``intersection``, ``group_counts``, ``leakage`` (the k-class probe, :func:`probekit.finetune.group_leakage`,
on the pooled vectors and the probabilities, and on those of the scrubbed test texts), ``subgroup_aucs``
(Jigsaw identity subgroups, Borkan et al. 2019). No shuffled-group noise floor (``noise_floor`` null):
the gap family's intervals stand in for it.
"""

from __future__ import annotations

import math
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from probekit.finetune._evaluate_groups import fold_group_metrics, subgroup_aucs
from probekit.finetune._fold_common import _predictions_frame, _train_fold, _training_record, _write_csv, fold_dir_name
from probekit.finetune._groups import group_counterfactual_dataset, group_setting
from probekit.finetune._leakage import REPRESENTATIONS_FILE, group_leakage, predict_with_representations, save_representations
from probekit.finetune._plan import _jsonable, _Plan
from probekit.finetune._train import FinetuneConfig
from probekit.utils import is_main_process, wait_for_everyone, write_json

__all__ = ["run_group_fold"]


def _group_fold_leakage(pooled: np.ndarray, probs: np.ndarray, scrubbed: tuple[np.ndarray, np.ndarray],
                        groups: Sequence[str], seed: int) -> dict[str, Any]:
    """The k-class probe on the pooled vectors and probabilities, and (no MDL, the same C) on the scrubbed texts'."""
    out = {"representation": group_leakage(pooled, groups, random_state=seed),
           "probabilities": group_leakage(probs, groups, random_state=seed)}
    for source, X in (("representation", scrubbed[0]), ("probabilities", scrubbed[1])):
        chosen = out[source].get("C")
        C = chosen if isinstance(chosen, float) and math.isfinite(chosen) else "cv"
        out[f"scrubbed_{source}"] = group_leakage(X, groups, C=C, mdl=False, random_state=seed)
    return out


def _commands(fold_dir: str, classes: Sequence[str], seed: int) -> dict[str, str]:
    probs = " ".join(f"{c}=prob_{c}" for c in classes)
    return {"original": f"probekit metrics {fold_dir}/original.csv --label-col label --pred-col prediction --group-col group "
                        f"--gaps --seed {int(seed)}",
            "augmented": f"probekit metrics {fold_dir}/augmented.csv --label-col label --pred-col prediction "
                         f"--group-col group --source-col source --prob-cols {probs}"}


def run_group_fold(k: int, encoder: Any, plan: _Plan, *, config: FinetuneConfig, out: Path, resume: bool, progress: bool,
                   embed: Callable | None, callback: Callable | None, leakage_readers: Sequence[str] = ()) -> dict[str, Any]:
    """Fold ``k`` of a run whose ``plan.settings["attribute"]`` is not gender (see the module docstring)."""
    started = time.perf_counter()
    settings, classes = plan.settings, plan.classes
    attribute, intersect, setting = settings["attribute"], settings.get("intersect"), settings["setting"]
    train_idx, test = plan.splits[k]
    train = group_setting(plan.pool.select(train_idx), setting, attribute, random_state=int(config.seed) + k)
    clf = _train_fold(k, encoder, plan, train, config=config, out=out, resume=resume, progress=progress, embed=embed,
                      callback=callback, group_column=attribute)
    counterfactual = group_counterfactual_dataset(test, attribute)
    probs, pooled = predict_with_representations(clf, test["text"])
    cf_probs = clf.predict_proba(counterfactual["text"], progress=progress)
    scrubbed_probs, scrubbed_pooled = predict_with_representations(clf, group_setting(test, "scrubbed", attribute)["text"])
    extra = [intersect] if intersect else []
    frame = _predictions_frame(k, test, counterfactual, probs, cf_probs, classes, group_column=attribute, extra=extra)
    metrics, per_class, details, messages = fold_group_metrics(frame, classes, attribute=attribute, intersect=intersect,
                                                               min_cell_size=int(settings.get("min_cell_size", 30)),
                                                               random_state=int(config.seed), fold=k)
    groups = list(test[attribute])
    fold_dir = out / fold_dir_name(k)
    # leakage on exactly the float32 arrays that are saved (as for gender)
    arrays = {"pooled": pooled, "probabilities": probs, "scrubbed_pooled": scrubbed_pooled,
              "scrubbed_probabilities": scrubbed_probs}
    arrays = {name: np.asarray(a, dtype=np.float32) for name, a in arrays.items()}
    entry = {
        "fold": k, "setting": setting, "attribute": attribute, "n_train": len(train), "n_test": len(test),
        "metrics": metrics, "per_class": per_class, "warnings": messages,
        "training": _training_record(clf, len(train), config.batch_size), **details,
        "subgroup_aucs": subgroup_aucs(test, probs, classes),
        "files": {"original": f"{fold_dir_name(k)}/original.csv", "augmented": f"{fold_dir_name(k)}/augmented.csv",
                  "representations": f"{fold_dir_name(k)}/{REPRESENTATIONS_FILE}"},
        "metrics_commands": _commands(fold_dir_name(k), classes, int(config.seed)),
        "leakage": _group_fold_leakage(arrays["pooled"], arrays["probabilities"],
                                       (arrays["scrubbed_pooled"], arrays["scrubbed_probabilities"]), groups, int(config.seed)),
        "noise_floor": None, "seconds": time.perf_counter() - started,
    }
    if is_main_process():
        save_representations(fold_dir / REPRESENTATIONS_FILE, genders=groups,
                             source=np.asarray(test["example_id"], dtype=np.int64), **arrays)
        _write_csv(fold_dir / "original.csv", frame[frame["variant"] == "original"])
        _write_csv(fold_dir / "augmented.csv", frame)
        write_json(fold_dir / "fold.json", entry)  # last: marks the fold as finished
        shutil.rmtree(out / "checkpoints" / f"fold-{k:02d}", ignore_errors=True)
    wait_for_everyone()
    return _jsonable(entry)
