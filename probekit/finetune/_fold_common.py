"""What the folds of gender and of k-group runs share: the fold directory, training, the predictions frame."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from probekit.errors import InvalidParameterError
from probekit.finetune._counterfactual import objective_inputs
from probekit.finetune._evaluate import prob_column
from probekit.finetune._leakage import check_leakage_readers
from probekit.finetune._plan import _Plan
from probekit.finetune._train import FinetuneConfig, TrainedClassifier, train_classifier
from probekit.utils import atomic_path

__all__ = ["fold_dir_name"]


def _attribute_readers(readers: Any, attribute: str, parameter: str = "leakage_readers") -> tuple[str, ...]:
    """The nonlinear leakage readers (:func:`check_leakage_readers`); none with a k-group attribute."""
    checked = check_leakage_readers(readers, parameter)
    if checked and attribute != "gender":
        raise InvalidParameterError(parameter, list(checked), "none with a k-group attribute "
                                    f"({attribute!r}: leakage is read by the linear k-class probe)")
    return checked


def fold_dir_name(fold: int) -> str:
    """``folds/fold-NN``: where fold ``fold`` of a run directory keeps its files."""
    return f"folds/fold-{int(fold):02d}"


def _train_fold(k: int, encoder: Any, plan: _Plan, train: Any, *, config: FinetuneConfig, out: Path, resume: bool,
                progress: bool, embed: Callable | None, callback: Callable | None, group_column: str = "gender",
                ) -> TrainedClassifier:
    """The classifier of fold ``k`` trained on ``train`` (the fold's training part under the setting)."""
    setting = plan.settings["setting"]
    return train_classifier(
        encoder, train["text"], train["label"], len(plan.classes), config,
        checkpoint_dir=None if config.frozen else out / "checkpoints" / f"fold-{k:02d}",
        resume=resume, progress=progress, description=f"fold {k} ({setting})", embed=embed, callback=callback,
        # balanced: sample weights (to the config's power); adversarial: genders
        **objective_inputs(train, setting, balanced_weight_power=config.balanced_weight_power, group_column=group_column),
    )


def _training_record(clf: TrainedClassifier, n_train: int, batch_size: int) -> dict[str, Any]:
    """The classifier's training record for ``fold.json``: without the per-step losses, with their mean per epoch."""
    training = {key: value for key, value in clf.training.items() if key != "losses"}
    losses = clf.training.get("losses")
    if losses:
        per_epoch = max(1, math.ceil(n_train / batch_size))
        training["epoch_losses"] = [float(np.mean(losses[i:i + per_epoch])) for i in range(0, len(losses), per_epoch)]
    return training


def _predictions_frame(fold: int, test: Any, counterfactual: Any, probs: np.ndarray, cf_probs: np.ndarray,
                       classes: Sequence[str], group_column: str = "gender", extra: Sequence[str] = ()) -> pd.DataFrame:
    """One row per test example and per counterfactual: ``group`` is the ``group_column`` of the row's text;
    ``extra`` columns of the data are copied (a k-group run's intersect column).
    """
    names = np.asarray(classes, dtype=object)
    parts = []
    for variant, data, p in (("original", test, probs), ("counterfactual", counterfactual, cf_probs)):
        part = pd.DataFrame({
            "fold": fold, "source": np.asarray(data["example_id"], dtype=np.int64), "variant": variant,
            "label": names[np.asarray(data["label"], dtype=np.int64)], "prediction": names[p.argmax(axis=1)],
            "group": list(data[group_column]), "text": list(data["text"]),
        })
        for column in extra:
            part[column] = list(data[column])
        for k, c in enumerate(classes):
            part[prob_column(c)] = p[:, k]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _write_csv(path: Path, frame: pd.DataFrame) -> None:
    with atomic_path(path) as tmp:
        frame.to_csv(tmp, index=False)  # shortest round-trip float text: metrics recomputed from it agree
