"""The run-time estimate of a fine-tuning run, from a few timed training steps or embeddings."""

from __future__ import annotations

import math
from typing import Any, Sequence

from probekit.finetune._embeddings import distinct_texts, frozen_text_groups
from probekit.finetune._plan import _Plan, _prepare, datasets_bars_off
from probekit.finetune._timing import measure_embed_seconds, measure_step_seconds
from probekit.finetune._train import FinetuneConfig


def estimate_seconds(
    encoder: Any,
    data: Any,
    *,
    setting: str = "original",
    folds: int = 10,
    test_data: Any = None,
    config: FinetuneConfig | None = None,
    fold_numbers: Sequence[int] | None = None,
    attribute: str = "gender",
) -> tuple[float, str]:
    """Seconds that training and evaluating some folds should take on this machine, and why.

    Timed on a throwaway copy of the model: a few full fine-tuning steps (seconds per step times
    the steps of the folds, plus prediction at about a third of a training step per batch), or,
    with ``config.frozen``, a few embeddings (seconds per text times the distinct texts of the
    run). ``fold_numbers``: the folds to count (default all). The arguments are those of
    :func:`run_finetune` (``attribute``: a k-group run predicts each test example, its k - 1
    counterfactuals and its scrubbed text); returns ``(seconds, message)``.
    """
    config = config or FinetuneConfig()
    with datasets_bars_off():
        plan = _prepare(encoder, data, setting=setting, folds=folds, test_data=test_data, config=config, data_name="custom",
                        attribute=attribute)
        texts = distinct_texts(frozen_text_groups(plan.pool, plan.test_data, setting, attribute)) if config.frozen else None
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
    k = len(plan.settings.get("groups") or ()) or 2  # a k-group run: original, k - 1 counterfactuals, scrubbed
    n_predict = 2 * n_test if plan.settings.get("attribute", "gender") == "gender" else (k + 1) * n_test
    predict = (n_predict / config.batch_size) * seconds_per_step / 3
    total = steps * seconds_per_step + predict
    return total, (f"{len(todo)} fold(s), {steps} training steps of {config.batch_size} at about "
                   f"{seconds_per_step:.2f} s each ({config.batch_size / seconds_per_step:.1f} examples/s), "
                   f"then {n_predict} predictions: about {_duration(total)}")


def _duration(seconds: float) -> str:
    if not math.isfinite(seconds):
        return "unknown"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"

