"""Timing of the downstream classifier's training, for the run-time estimate printed before a long
run (:mod:`probekit.finetune._estimate`): seconds per optimizer step of full fine-tuning, measured
on the real training loop, and seconds per text of the frozen path's embedding, measured on the
extraction engine.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any, Sequence

import numpy as np

from probekit.embedding import default_batch_tokens
from probekit.finetune._batches import pad_batch, tokenize_texts, truncate_texts
from probekit.finetune._train import FinetuneConfig, _new_module, default_embedder
from probekit.training import train

__all__ = ["measure_step_seconds", "measure_embed_seconds"]


def measure_step_seconds(encoder: Any, texts: Sequence[str], num_labels: int, config: FinetuneConfig, *, steps: int = 2) -> float:
    """Seconds per optimizer step of full fine-tuning, for the run-time estimate printed before a long run.

    Times ``steps + 1`` steps of the real training loop (:func:`probekit.training.train`, with the
    settings full fine-tuning uses) on a throwaway copy of the model and the first texts; the
    first, warm-up step is not counted. Each step is timed from the end of the previous one
    (the loop's callback; the loss it reports has been copied to the host, so GPU work is done).
    """
    texts = list(texts)[: max(config.batch_size, 1) * (steps + 1)]
    if not texts:
        return float("nan")
    examples = tokenize_texts(encoder.tokenizer, texts, config.max_length)
    for example in examples:
        example["label"] = 0
    module = _new_module(encoder, num_labels, config)
    timing = dataclasses.replace(
        config.training_config(steps_per_epoch=1), epochs=None, max_steps=int(steps) + 1, checkpoint_every=None,
        log_every=int(steps) + 1,
    )
    ends: list[float] = []
    pad_id = encoder.tokenizer.pad_token_id
    train(
        module, examples, timing, collate_fn=lambda batch, generator: pad_batch(batch, pad_id),
        callback=lambda step, values: ends.append(time.perf_counter()), progress=False, description="timing",
    )
    del module
    return float(np.mean(np.diff(ends))) if len(ends) > 1 else float("nan")


def measure_embed_seconds(encoder: Any, texts: Sequence[str], config: FinetuneConfig) -> float:
    """Mean seconds per text that the frozen path's embedding of ``texts`` should take (for the
    run-time estimate printed before a long run).

    The extraction engine batches texts of one token length together (no padding), so a small
    sample of mixed lengths would run in many tiny batches and look far slower than the whole
    set. Instead the texts of the most common length are timed in one full batch (after a
    warm-up call), giving seconds per token, which is scaled by the tokens of all ``texts``.
    """
    texts = list(texts)
    if not texts:
        return float("nan")
    cut = truncate_texts(encoder.tokenizer, texts, config.max_length)
    lengths = np.asarray([len(ids) for ids in encoder.tokenizer(cut)["input_ids"]])
    values, counts = np.unique(lengths, return_counts=True)
    mode = int(values[np.argmax(counts)])
    per_batch = max(2, min(int(counts.max()), default_batch_tokens(encoder.device) // max(mode, 1)))
    sample = [cut[i] for i in np.flatnonzero(lengths == mode)[:per_batch]]
    embed = default_embedder(encoder, config, progress=False)
    embed(sample[:2])
    started = time.perf_counter()
    embed(sample)
    per_token = (time.perf_counter() - started) / (len(sample) * mode)
    return float(per_token * lengths.sum() / len(texts))
