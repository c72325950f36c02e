"""The masked-LM head of any architecture, applied at chosen token positions only.

A masked-LM model is a base encoder followed by a per-token head: a transform (dense, activation,
layer norm: BERT's ``cls.predictions.transform``, RoBERTa's ``lm_head`` dense + gelu + layer_norm,
DistilBERT's ``vocab_transform`` + activation + ``vocab_layer_norm``, ALBERT's ``predictions``,
DeBERTa-v2's ``cls`` / ``lm_predictions``, ELECTRA's ``generator_predictions``, ModernBERT's
``head``) and the vocabulary projection (``get_output_embeddings()``). The projection onto the whole
vocabulary is the costliest part of a small model, and scoring or training needs it at a few
positions only.

Rather than a table of head attributes per class, the model's own forward is run with a hook on its
base encoder that keeps only the chosen rows of the last hidden state: whatever the class does after
its base encoder (every architecture above applies its head token by token) then runs on those rows
alone, with the class's own arithmetic. The hook exists only inside the call.
"""

from __future__ import annotations

import contextlib
from typing import Any, Iterator

import torch

from probekit.errors import MissingMLMHeadError

__all__ = ["masked_lm_logits_at", "check_mlm_head"]


def check_mlm_head(mlm_model: Any, what: str, name: str = "this checkpoint") -> None:
    """Raise :class:`MissingMLMHeadError` unless ``mlm_model`` is a masked-LM model with a vocabulary
    projection (``get_output_embeddings()``) and a base encoder distinct from itself.
    """
    getter = getattr(mlm_model, "get_output_embeddings", None)
    base = getattr(mlm_model, "base_model", None)
    if getter is None or getter() is None or base is None or base is mlm_model:
        raise MissingMLMHeadError(
            f"{what} needs a masked-LM head, and {name!r} ({type(mlm_model).__name__}) has no vocabulary projection; "
            "pass a checkpoint saved with its masked-LM head (a *ForMaskedLM model)"
        )


@contextlib.contextmanager
def _keep_rows(base: torch.nn.Module, rows: torch.Tensor, cols: torch.Tensor) -> Iterator[None]:
    """Inside the block, the base encoder's last hidden state is cut to ``hidden[rows, cols]`` (1 x n x width)."""

    def hook(module: Any, args: Any, output: Any) -> Any:
        if isinstance(output, dict):  # a transformers ModelOutput: the first field is the last hidden state
            key = next(iter(output.keys()))
            output[key] = output[key][rows, cols].unsqueeze(0)
            return output
        if isinstance(output, tuple):
            return (output[0][rows, cols].unsqueeze(0),) + tuple(output[1:])
        return output[rows, cols].unsqueeze(0)

    handle = base.register_forward_hook(hook)
    try:
        yield
    finally:
        handle.remove()


def masked_lm_logits_at(
    mlm_model: Any, input_ids: torch.Tensor, rows: torch.Tensor, cols: torch.Tensor,
    attention_mask: torch.Tensor | None = None,
) -> torch.Tensor:
    r"""Masked-LM logits of ``mlm_model`` at the positions ``(rows[k], cols[k])`` of ``input_ids``.

    Equal to ``mlm_model(input_ids).logits[rows, cols]``; the head (transform and vocabulary
    projection) is computed at those positions only (see the module docstring), so a copy with one
    masked token costs one vocabulary projection, not one per token.

    Parameters
    ----------
    mlm_model : transformers.PreTrainedModel
        A ``*ForMaskedLM`` model (any architecture whose head acts token by token).
    input_ids : Tensor (batch, length)
    rows, cols : Tensor (n,)
        Batch row and position of each wanted logit vector.
    attention_mask : Tensor (batch, length), optional

    Returns
    -------
    Tensor (n, vocab)
    """
    base = mlm_model.base_model
    kwargs = {"input_ids": input_ids}
    if attention_mask is not None:
        kwargs["attention_mask"] = attention_mask
    with _keep_rows(base, rows, cols):
        logits = mlm_model(**kwargs).logits
    if logits.shape[:-1].numel() != rows.shape[0]:
        raise MissingMLMHeadError(
            f"the head of {type(mlm_model).__name__} did not act token by token (logits of shape {tuple(logits.shape)} "
            f"for {rows.shape[0]} positions); this architecture is not supported for masked-token scoring"
        )
    return logits.reshape(rows.shape[0], -1)
