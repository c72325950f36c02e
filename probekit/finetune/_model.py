r"""The downstream classifier: an encoder and one linear layer over its pooled sentence vector.

Tokpo et al. (2023, §4) fine-tune "one linear layer on top of the encoder". Here the sentence
vector is the **masked mean of the last hidden states over the sentence's own tokens** (special
tokens and padding excluded), :math:`\bar h = \frac{1}{|T|}\sum_{t \in T} h_t`, and the logits are
:math:`W \bar h + c`. Mean pooling is the default because (1) it is what
:func:`probekit.embed_sentences` computes with ``pooling="mean"``, so the ``--frozen`` path (embeddings
computed once by the extraction engine) and full fine-tuning start from the same representation;
(2) the embedded encoder (all-MiniLM-L6-v2) was trained for mean pooling, and its [CLS] state is
not a sentence representation; (3) Sent-debias is applied to sentence-level representations
(PAPERS.md §1), which the mean is. ``pooling="cls"`` (the first token's state, as BERT's sequence
classifier reads it, without BERT's pooler dense layer) is available.

Projection-wrapped encoders (Sent-debias, INLP, LEACE; :mod:`probekit.encoders._projection`): the
encoder's affine map :math:`x \mapsto A x + b` is applied to the pooled vector in every forward
pass, training included, in fp32 whatever autocast is active; the map is a fixed buffer, not
trained. Because an affine map commutes with averaging (the pooling weights sum to 1),
:math:`A \bar h + b = \frac{1}{|T|}\sum_t (A h_t + b)`: this is exactly what the extraction
engine computes with the projection hook on every token state, at the cost of one matrix product
per sentence instead of per token, and without a hook on a model that Accelerate may wrap.
"""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import torch

from probekit.errors import InvalidParameterError

logger = logging.getLogger(__name__)

__all__ = ["EncoderClassifier", "POOLINGS"]

POOLINGS = ("mean", "cls")


class EncoderClassifier(torch.nn.Module):
    """Encoder + one linear layer (see the module docstring for pooling and projections).

    Parameters
    ----------
    encoder_model : torch.nn.Module
        A transformers base encoder (``Encoder.model``); it is trained in place by full fine-tuning,
        so pass a copy when the original must stay unchanged.
    num_labels : int
        Number of classes.
    pooling : {"mean", "cls"}
    projection : OutputProjection, optional
        The encoder's output projection (``Encoder.output_projection``), applied to the pooled vector.
    head_init_seed : int
        Seed of the linear layer's initialization (a local generator; the global RNG is untouched).

    Notes
    -----
    ``forward`` takes the tokenizer's ``input_ids`` and ``attention_mask`` (and optionally
    ``token_type_ids``), ``pool_mask`` (1 on the tokens to average: the attention mask without
    special tokens; the attention mask when absent) and optional ``labels``; it returns a
    :class:`transformers.modeling_outputs.SequenceClassifierOutput` with the cross-entropy ``loss``
    when labels are given, so a Hugging Face ``Trainer`` can train it unchanged.
    """

    def __init__(
        self,
        encoder_model: Any,
        num_labels: int,
        *,
        pooling: str = "mean",
        projection: Any = None,
        head_init_seed: int = 0,
    ) -> None:
        super().__init__()
        if pooling not in POOLINGS:
            raise InvalidParameterError("pooling", pooling, POOLINGS)
        if not (isinstance(num_labels, (int, np.integer)) and num_labels >= 2):
            raise InvalidParameterError("num_labels", num_labels, "an integer >= 2")
        self.encoder = encoder_model
        self.pooling = pooling
        hidden = int(encoder_model.config.hidden_size)
        self.classifier = torch.nn.Linear(hidden, int(num_labels))
        generator = torch.Generator().manual_seed(int(head_init_seed))
        with torch.no_grad():
            # BERT's classifier initialization (normal, std = initializer_range), from a local generator
            std = float(getattr(encoder_model.config, "initializer_range", 0.02))
            weight = torch.randn(self.classifier.weight.shape, generator=generator) * std
            self.classifier.weight.copy_(weight.to(self.classifier.weight.device))
            self.classifier.bias.zero_()
        self.has_projection = projection is not None
        if projection is not None:
            if projection.dimension != hidden:
                raise InvalidParameterError(
                    "projection", f"dimension {projection.dimension}", f"a projection of the hidden size {hidden}"
                )
            # x' = A x + b as rows: H @ A.T + b; buffers move with the module, are saved, never trained
            self.register_buffer("projection_matrix_t", torch.as_tensor(projection.matrix.T.copy(), dtype=torch.float32))
            self.register_buffer("projection_offset", torch.as_tensor(projection.offset.copy(), dtype=torch.float32))
        self.config = encoder_model.config  # what Hugging Face Trainer and Accelerate look for

    def pooled(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        pool_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """The sentence vector the linear layer reads (after the projection, if any)."""
        kwargs = {"input_ids": input_ids, "attention_mask": attention_mask}
        if token_type_ids is not None:
            kwargs["token_type_ids"] = token_type_ids
        hidden = self.encoder(**kwargs).last_hidden_state
        if self.pooling == "cls":
            vector = hidden[:, 0]
        else:
            mask = attention_mask if pool_mask is None else pool_mask
            # a text with no token of its own (empty string) averages its special tokens, as the
            # extraction engine does
            empty = mask.sum(dim=1, keepdim=True) == 0
            mask = torch.where(empty, attention_mask, mask).to(hidden.dtype).unsqueeze(-1)
            vector = (hidden * mask).sum(dim=1) / mask.sum(dim=1)
        if self.has_projection:
            with torch.autocast(device_type=vector.device.type, enabled=False):
                vector = torch.addmm(self.projection_offset, vector.float(), self.projection_matrix_t)
        return vector

    def forward(
        self,
        input_ids: torch.Tensor,
        attention_mask: torch.Tensor,
        pool_mask: torch.Tensor | None = None,
        token_type_ids: torch.Tensor | None = None,
        labels: torch.Tensor | None = None,
    ) -> Any:
        from transformers.modeling_outputs import SequenceClassifierOutput

        vector = self.pooled(input_ids, attention_mask, pool_mask, token_type_ids)
        logits = self.classifier(vector)
        loss = None
        if labels is not None:
            loss = torch.nn.functional.cross_entropy(logits.float(), labels)
        return SequenceClassifierOutput(loss=loss, logits=logits)
