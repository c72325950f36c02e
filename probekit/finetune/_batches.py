"""Tokens and batches of the downstream classifier's full fine-tuning (:mod:`probekit.finetune._train`):
tokenization truncated to ``max_length`` (special tokens included), length-sorted buckets (each
batch holds texts of similar length, so padding is small) and dynamic padding (each batch is padded
to its own longest text).
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np
import torch

__all__ = ["tokenize_texts", "truncate_texts", "length_bucketed_batches", "pad_batch"]


def tokenize_texts(tokenizer: Any, texts: Sequence[str], max_length: int) -> list[dict[str, list[int]]]:
    """Token ids truncated to ``max_length`` (special tokens included) and the pooling mask
    (1 on the text's own tokens, 0 on special tokens).
    """
    encoded = tokenizer(
        list(texts), truncation=True, max_length=int(max_length), return_special_tokens_mask=True,
        return_attention_mask=False, return_token_type_ids=False,
    )
    return [
        {"input_ids": ids, "pool_mask": [1 - s for s in special]}
        for ids, special in zip(encoded["input_ids"], encoded["special_tokens_mask"])
    ]


def truncate_texts(tokenizer: Any, texts: Sequence[str], max_length: int) -> list[str]:
    """Each text cut after its last token that fits in ``max_length`` with the special tokens
    (the frozen path: the extraction engine then sees what full fine-tuning sees).
    """
    n_special = int(sum(tokenizer("a", return_special_tokens_mask=True)["special_tokens_mask"]))
    keep = int(max_length) - n_special
    encoded = tokenizer(list(texts), add_special_tokens=False, return_offsets_mapping=True, return_attention_mask=False)
    out = []
    for text, offsets in zip(texts, encoded["offset_mapping"]):
        out.append(text if len(offsets) <= keep else text[: offsets[keep - 1][1]] if keep > 0 else "")
    return out


def length_bucketed_batches(
    lengths: Sequence[int], batch_size: int, *, bucket_batches: int = 50
) -> Callable[[torch.Generator], list[list[int]]]:
    """Batch order of one epoch with length-sorted buckets, for the shared loop's ``batch_order``.

    The examples are shuffled with the epoch's generator and cut into buckets of
    ``bucket_batches * batch_size``; within a bucket they are sorted by length and cut into batches;
    the batches of all buckets are then shuffled. Batches hold texts of similar length (little
    padding) while the order stays random; the number of batches is the same every epoch.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    n = int(lengths.size)
    bucket = int(bucket_batches) * int(batch_size)

    def plan(generator: torch.Generator) -> list[list[int]]:
        order = torch.randperm(n, generator=generator).numpy()
        batches: list[list[int]] = []
        for start in range(0, n, bucket):
            part = order[start:start + bucket]
            part = part[np.argsort(lengths[part], kind="stable")]
            batches += [part[i:i + batch_size].tolist() for i in range(0, part.size, batch_size)]
        shuffle = torch.randperm(len(batches), generator=generator).tolist()
        return [batches[i] for i in shuffle]

    return plan


def pad_batch(examples: Sequence[dict[str, Any]], pad_token_id: int) -> dict[str, torch.Tensor]:
    """Dynamic padding: pad to the longest example of the batch; attention and pooling masks
    (and ``labels``, ``weights``, ``protected`` where the examples hold ``label``, ``weight``,
    ``protected``).
    """
    width = max(len(e["input_ids"]) for e in examples)
    n = len(examples)
    ids = torch.full((n, width), int(pad_token_id), dtype=torch.long)
    attention = torch.zeros((n, width), dtype=torch.long)
    pool = torch.zeros((n, width), dtype=torch.long)
    for row, example in enumerate(examples):
        k = len(example["input_ids"])
        ids[row, :k] = torch.as_tensor(example["input_ids"], dtype=torch.long)
        attention[row, :k] = 1
        pool[row, :k] = torch.as_tensor(example["pool_mask"], dtype=torch.long)
    batch = {"input_ids": ids, "attention_mask": attention, "pool_mask": pool}
    if "label" in examples[0]:
        batch["labels"] = torch.as_tensor([int(e["label"]) for e in examples], dtype=torch.long)
    if "weight" in examples[0]:
        batch["weights"] = torch.as_tensor([float(e["weight"]) for e in examples], dtype=torch.float32)
    if "protected" in examples[0]:
        batch["protected"] = torch.as_tensor([int(e["protected"]) for e in examples], dtype=torch.long)
    return batch
