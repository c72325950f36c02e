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

Task-time baselines (the ``balanced`` and ``adversarial`` settings): ``forward`` takes optional
per-example ``weights`` (the loss is then :math:`\frac{1}{n}\sum_i w_i \ell_i` over the batch) and,
when the classifier has an adversary, the ``protected`` attribute (gender) of each example. The
adversary (:class:`GenderAdversary`, an MLP as in fairlib) reads the pooled vector through
:func:`grad_reverse`: it learns to predict gender, while the encoder below receives
:math:`-\lambda` times its gradient and so learns to hide gender from it (Ganin & Lempitsky 2015;
Elazar & Goldberg 2018). One optimizer trains all parts; the loss is task + adversary.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import numpy as np
import torch

from probekit.encoders import LayerwiseProjection, projection_applied
from probekit.errors import InvalidParameterError

logger = logging.getLogger(__name__)

__all__ = ["EncoderClassifier", "GenderAdversary", "GradientReversal", "grad_reverse", "POOLINGS"]

POOLINGS = ("mean", "cls")
ADVERSARY_HIDDEN = 300  # fairlib's default hidden size of the discriminator


class GradientReversal(torch.autograd.Function):
    r"""Identity forward, :math:`-\lambda \cdot` gradient backward (Ganin & Lempitsky 2015)."""

    @staticmethod
    def forward(ctx: Any, x: torch.Tensor, strength: float) -> torch.Tensor:
        """Identity on the way forward (remembers the strength for the backward pass)."""
        ctx.strength = float(strength)
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: torch.Tensor) -> tuple[torch.Tensor, None]:
        """The incoming gradient times ``-strength`` (the reversal); no gradient for the strength."""
        return -ctx.strength * grad, None


def grad_reverse(x: torch.Tensor, strength: float = 1.0) -> torch.Tensor:
    r"""Gradient reversal layer: :math:`f(x) = x`, :math:`\partial f / \partial x = -\lambda I`.

    A discriminator placed after it minimizes its loss while everything before it maximizes that
    loss scaled by :math:`\lambda` = ``strength`` (adversarial removal of a protected attribute;
    Ganin & Lempitsky 2015, Elazar & Goldberg 2018).
    """
    return GradientReversal.apply(x, strength)


class GenderAdversary(torch.nn.Module):
    r"""The discriminator of adversarial training: an MLP from the pooled vector to gender logits.

    Parameters
    ----------
    dimension : int
        Size of the pooled vector.
    strength : float
        :math:`\lambda` of the gradient reversal in front of it.
    hidden : int
        Width of its one hidden layer (ReLU); fairlib's default is 300.
    n_groups : int
    seed : int
        Seed of its initialization (a local generator; the global RNG is untouched).
    learning_rate : float, optional
        Its own peak learning rate in :func:`probekit.training.train` (default: the loop's): a
        discriminator initialized from scratch barely moves at an encoder's fine-tuning rate
        (2e-5), and gradient reversal against a discriminator that has not learned pushes nothing.
    """

    def __init__(self, dimension: int, strength: float, *, hidden: int = ADVERSARY_HIDDEN, n_groups: int = 2,
                 seed: int = 0, learning_rate: float | None = None) -> None:
        super().__init__()
        self.strength = float(strength)
        if learning_rate is not None:
            self.learning_rate = float(learning_rate)  # its own peak rate in the training loop's optimizer
        self.net = torch.nn.Sequential(
            torch.nn.Linear(int(dimension), int(hidden)), torch.nn.ReLU(), torch.nn.Linear(int(hidden), int(n_groups))
        )
        generator = torch.Generator().manual_seed(int(seed) + 1)
        with torch.no_grad():
            for layer in (self.net[0], self.net[2]):
                bound = 1.0 / math.sqrt(layer.in_features)  # torch's default uniform bound, drawn locally
                layer.weight.copy_(torch.rand(layer.weight.shape, generator=generator) * 2 * bound - bound)
                layer.bias.zero_()

    def forward(self, vector: torch.Tensor) -> torch.Tensor:
        """Gender logits of ``vector`` seen through the gradient reversal."""
        return self.net(grad_reverse(vector.float(), self.strength))


def classifier_loss(logits: torch.Tensor, labels: torch.Tensor, weights: torch.Tensor | None = None) -> torch.Tensor:
    r"""Cross-entropy, per-example weighted when ``weights`` are given: :math:`\frac{1}{n}\sum_i w_i \ell_i`."""
    if weights is None:
        return torch.nn.functional.cross_entropy(logits.float(), labels)
    losses = torch.nn.functional.cross_entropy(logits.float(), labels, reduction="none")
    return (losses * weights.to(losses.dtype)).mean()


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
    adversarial_lambda : float, optional
        With a value, a :class:`GenderAdversary` of this strength reads the pooled vector and
        ``forward`` adds its loss on ``protected`` (the ``adversarial`` setting).
    adversary_learning_rate : float, optional
        The adversary's own peak learning rate (:class:`GenderAdversary`).

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
        adversarial_lambda: float | None = None,
        adversary_learning_rate: float | None = None,
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
        # A layerwise (concept-scrubbing) projection acts inside the encoder: its hooks are entered
        # around every forward pass (pooled); a plain one maps the pooled vector (affine maps commute
        # with mean pooling).
        self.layerwise_projection = projection if isinstance(projection, LayerwiseProjection) else None
        if self.layerwise_projection is not None:
            projection = None
        self.has_projection = projection is not None
        if projection is not None:
            if projection.dimension != hidden:
                raise InvalidParameterError(
                    "projection", f"dimension {projection.dimension}", f"a projection of the hidden size {hidden}"
                )
            # x' = A x + b as rows: H @ A.T + b; buffers move with the module, are saved, never trained
            self.register_buffer("projection_matrix_t", torch.as_tensor(projection.matrix.T.copy(), dtype=torch.float32))
            self.register_buffer("projection_offset", torch.as_tensor(projection.offset.copy(), dtype=torch.float32))
        self.adversary = None
        if adversarial_lambda is not None:
            self.adversary = GenderAdversary(hidden, adversarial_lambda, seed=head_init_seed,
                                             learning_rate=adversary_learning_rate)
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
        with projection_applied(self.encoder, self.layerwise_projection):
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
        weights: torch.Tensor | None = None,
        protected: torch.Tensor | None = None,
    ) -> Any:
        """Logits, and with ``labels`` the loss: cross-entropy (weighted by ``weights``), plus the
        adversary's cross-entropy on ``protected`` when the classifier has an adversary (then the
        output also holds ``task_loss`` and ``adversary_loss``).
        """
        from transformers.modeling_outputs import SequenceClassifierOutput

        vector = self.pooled(input_ids, attention_mask, pool_mask, token_type_ids)
        logits = self.classifier(vector)
        if labels is None:
            return SequenceClassifierOutput(loss=None, logits=logits)
        loss = classifier_loss(logits, labels, weights)
        if self.adversary is None or protected is None:
            return SequenceClassifierOutput(loss=loss, logits=logits)
        adversary_loss = torch.nn.functional.cross_entropy(self.adversary(vector), protected)
        output = SequenceClassifierOutput(loss=loss + adversary_loss, logits=logits)
        output["task_loss"], output["adversary_loss"] = loss, adversary_loss
        return output
