r"""Context-debias (Kaneko & Bollegala 2021): fine-tune an encoder so that the contextual
embeddings of stereotype words are orthogonal to the gender attribute directions, while the
hidden states of attribute sentences stay close to the original model's.

For the layers :math:`\ell \in \Lambda` being debiased (first, last or all hidden states),
attribute groups :math:`g \in \{\text{female}, \text{male}\}` and their mean attribute vectors
:math:`v_{g,\ell}`,

.. math::

    L_{orth} = \operatorname*{mean}_{(t, x),\, \ell \in \Lambda}
               \sum_g \langle E_\ell(t, x; \theta),\ v_{g,\ell} \rangle^2

    L_{reg} = \operatorname*{mean}_{x \in A,\, w \in x,\, \ell}
              \lVert E_\ell(w, x; \theta) - E_\ell(w, x; \theta_{pre}) \rVert^2

    L = \alpha L_{orth} + \beta L_{reg}, \qquad \alpha = 0.2,\ \beta = 0.8

where :math:`(t, x)` runs over the occurrences of stereotype words ``t`` in sentences ``x`` that
hold no attribute word (token level; at sentence level over every token of those sentences),
:math:`A` are sentences holding attribute words, :math:`w` every token of them (padding never
counts), and :math:`\ell` in the regularizer runs over *all* hidden states, as in the paper.
Hidden state 0 is the embedding layer's output, so ``layers="first"`` debiases the embedding
layer, as in the authors' code.

Choices where the paper and its code differ, or are silent
----------------------------------------------------------
- The attribute vectors :math:`v_{g,\ell}` are the mean, over every occurrence of a female
  (male) attribute word in the training attribute sentences, of its mean-pooled wordpiece
  vectors at layer :math:`\ell`, computed **once from the frozen original model** (the paper's
  :math:`\theta_{pre}`). The authors' code groups them per gender like this but recomputes them
  from the model being trained at each epoch; the fixed target keeps the objective stationary and
  lets :func:`orthogonality_term` measure every model against the same directions.
- Sums are replaced by means (over occurrences, tokens and layers), so that the loss does not
  grow with the batch size; the squared inner product is taken per occurrence (the paper's
  formula), not of the batch mean (the authors' code).
- A multi-wordpiece word is represented by the mean of its pieces.
- The best checkpoint is the one with the lowest loss on a held-out dev split of the stereotype
  and attribute sentences (the authors' ``--evaluate_during_training``), evaluated without dropout.
- Warm-up 0 and weight decay 0, as in the authors' script.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np
import torch

from probekit.embedding import embed_words
from probekit.errors import InvalidParameterError
from probekit.text import WordMatcher
from probekit.utils import check_choice

__all__ = ["attribute_vectors", "orthogonality_term", "LAYER_CHOICES", "LEVEL_CHOICES"]

LAYER_CHOICES = ("first", "last", "all")
LEVEL_CHOICES = ("token", "sentence")
_STEREOTYPE, _ATTRIBUTE = 0, 1


# ---------------------------------------------------------------------------------------------
# data: sentences with the wordpiece positions of their words


@dataclass(frozen=True)
class _Example:
    kind: int  # _STEREOTYPE or _ATTRIBUTE
    text: str
    ids: tuple[int, ...]
    occurrences: tuple[tuple[int, ...], ...]  # wordpiece positions of each listed word


def context_debias_layers(layers: str, num_layers: int) -> tuple[int, ...]:
    """The hidden-state indices a ``layers`` choice debiases: ``first`` (0), ``last`` (``num_layers``) or ``all``."""
    if layers not in LAYER_CHOICES:
        raise InvalidParameterError("layers", layers, LAYER_CHOICES)
    if layers == "first":
        return (0,)
    if layers == "last":
        return (num_layers,)
    return tuple(range(num_layers + 1))


def _tokenize_with_words(
    tokenizer: Any, sentences: Sequence[str], words: Sequence[str], *, kind: int, max_length: int, case_sensitive: bool
) -> list[_Example]:
    """Tokenize ``sentences`` and locate every whole-word occurrence of ``words`` in wordpieces.

    Occurrences cut off by truncation are dropped; a sentence left without one is dropped.
    """
    if not sentences:
        return []  # a corpus without such sentences is reported by the caller, naming the corpus
    matcher = WordMatcher(list(words), case_sensitive=case_sensitive)
    encoded = tokenizer(
        list(sentences), truncation=True, max_length=max_length, add_special_tokens=True,
        return_offsets_mapping=True, return_special_tokens_mask=True,
    )
    examples = []
    for sentence, ids, offsets, special in zip(
        sentences, encoded["input_ids"], encoded["offset_mapping"], encoded["special_tokens_mask"]
    ):
        occurrences = []
        for _, start, end in matcher.finditer(sentence):
            pieces = tuple(
                i for i, (s, e) in enumerate(offsets) if not special[i] and e > s and s < end and e > start
            )
            if pieces:
                occurrences.append(pieces)
        if occurrences:
            examples.append(_Example(kind, sentence, tuple(ids), tuple(occurrences)))
    return examples


class ContextDebiasCollator:
    """Pads examples and builds the selections of the two loss terms.

    ``orth_pool`` (units x batch*length) averages the wordpieces of each stereotype occurrence
    (token level) or picks each non-padding token of a stereotype sentence (sentence level);
    ``reg_rows`` marks the attribute sentences.
    """

    def __init__(self, pad_id: int, level: str):
        self.pad_id = pad_id
        self.level = level

    def __call__(self, examples: list[_Example], generator: torch.Generator | None = None) -> dict[str, torch.Tensor]:
        width = max(len(e.ids) for e in examples)
        n = len(examples)
        ids = torch.full((n, width), self.pad_id, dtype=torch.long)
        attention = torch.zeros((n, width), dtype=torch.long)
        rows: list[list[tuple[int, float]]] = []
        for r, example in enumerate(examples):
            ids[r, : len(example.ids)] = torch.tensor(example.ids, dtype=torch.long)
            attention[r, : len(example.ids)] = 1
            if example.kind != _STEREOTYPE:
                continue
            if self.level == "token":
                for pieces in example.occurrences:
                    rows.append([(r * width + p, 1.0 / len(pieces)) for p in pieces])
            else:
                rows.extend([(r * width + p, 1.0)] for p in range(len(example.ids)))
        pool = torch.zeros((len(rows), n * width))
        for u, entries in enumerate(rows):
            for column, weight in entries:
                pool[u, column] = weight
        reg_rows = torch.tensor([e.kind == _ATTRIBUTE for e in examples], dtype=torch.bool)
        return {"input_ids": ids, "attention_mask": attention, "orth_pool": pool, "reg_rows": reg_rows}


# ---------------------------------------------------------------------------------------------
# the loss


def _orthogonality_sum(
    hidden_states: Sequence[torch.Tensor], orth_pool: torch.Tensor, vectors: torch.Tensor, layers: Sequence[int]
) -> torch.Tensor:
    """Sum over units and debiased layers of ``sum_g <h, v_g>^2``."""
    batch, width, hidden = hidden_states[0].shape
    pooled = torch.stack([orth_pool.to(hidden_states[layer].dtype) @ hidden_states[layer].reshape(batch * width, hidden) for layer in layers], 1)
    dots = torch.einsum("ulh,glh->ulg", pooled.float(), vectors[:, list(layers), :].float())
    return dots.pow(2).sum()


class ContextDebiasObjective(torch.nn.Module):
    """alpha * L_orth + beta * L_reg for one batch (see the module docstring).

    The frozen original model is held outside the module's registry: it is neither trained, nor
    saved in checkpoints, nor wrapped for data parallelism.
    """

    def __init__(self, model: Any, original: Any, vectors: torch.Tensor, layers: Sequence[int], alpha: float, beta: float):
        super().__init__()
        self.model = model
        object.__setattr__(self, "_original", original)
        self.register_buffer("attribute_vectors", vectors.detach().clone(), persistent=False)
        self.layers = tuple(layers)
        self.alpha = float(alpha)
        self.beta = float(beta)

    def sums(self, input_ids, attention_mask, orth_pool, reg_rows) -> tuple[torch.Tensor, int, torch.Tensor, int]:
        """The batch's summed orthogonality and regularization terms and their counts: (orth, n_orth, reg, n_reg)."""
        hidden = self.model(input_ids=input_ids, attention_mask=attention_mask, output_hidden_states=True).hidden_states
        zero = hidden[-1].sum() * 0.0  # keeps the graph when a term is absent from the batch
        n_units = int(orth_pool.shape[0])
        orth = _orthogonality_sum(hidden, orth_pool, self.attribute_vectors, self.layers) if n_units else zero
        n_reg = 0
        reg = zero
        if bool(reg_rows.any()):
            original = self._original
            if next(original.parameters()).device != input_ids.device:
                original.to(input_ids.device)
            with torch.no_grad():
                reference = original(
                    input_ids=input_ids[reg_rows], attention_mask=attention_mask[reg_rows], output_hidden_states=True
                ).hidden_states
            keep = attention_mask[reg_rows].bool()
            reg = sum(
                (h[reg_rows][keep].float() - r[keep].float()).pow(2).sum() for h, r in zip(hidden, reference)
            )
            n_reg = int(keep.sum()) * len(hidden)
        return orth, n_units * len(self.layers), reg, n_reg

    def forward(self, input_ids, attention_mask, orth_pool, reg_rows) -> dict[str, torch.Tensor]:
        """The batch loss ``alpha * L_orth + beta * L_reg`` with both mean terms."""
        orth, n_orth, reg, n_reg = self.sums(input_ids, attention_mask, orth_pool, reg_rows)
        orth = orth / max(n_orth, 1)
        reg = reg / max(n_reg, 1)
        return {"loss": self.alpha * orth + self.beta * reg, "orthogonality": orth, "regularization": reg}


def context_debias_dev_loss(objective: ContextDebiasObjective, batches: list[dict[str, torch.Tensor]], device: torch.device) -> float:
    """Alpha * mean L_orth + beta * mean L_reg over the whole dev split (exact means, not of batches)."""
    from accelerate.utils import send_to_device

    totals = np.zeros(4)
    for batch in batches:
        orth, n_orth, reg, n_reg = objective.sums(**send_to_device(batch, device))
        totals += (float(orth), n_orth, float(reg), n_reg)
    return objective.alpha * totals[0] / max(totals[1], 1) + objective.beta * totals[2] / max(totals[3], 1)


# ---------------------------------------------------------------------------------------------
# attribute vectors and the orthogonality measure


def attribute_vectors(
    encoder: Any,
    sentences: Sequence[str],
    female: Sequence[str],
    male: Sequence[str],
    *,
    chunk_size: int = 2048,
    progress: bool = False,
) -> torch.Tensor:
    r"""The per-layer mean attribute vectors :math:`v_{g,\ell}` of Context-debias.

    For each group g (female, male) and hidden state :math:`\ell` (0 = embedding output), the mean
    over every occurrence of a word of the group in ``sentences`` of its mean-pooled wordpiece
    vectors, computed by the extraction engine (:func:`probekit.embed_words`) with ``encoder``.

    Returns
    -------
    torch.Tensor, shape (2, num_layers + 1, hidden), float32
        Row 0 female, row 1 male.

    Raises
    ------
    InvalidParameterError
        No occurrence of one group's words in ``sentences``.
    """
    female_set, male_set = set(female), set(male)
    layers = list(range(encoder.num_layers + 1))
    sums = np.zeros((2, len(layers), encoder.hidden_size))
    counts = np.zeros(2)
    sentences = list(sentences)
    for start in range(0, len(sentences), chunk_size):
        found = embed_words(
            encoder, sentences[start:start + chunk_size], [*female, *male], layer=layers, pooling="mean",
            on_missing="ignore", progress=progress,
        )
        for g, group in enumerate((female_set, male_set)):
            rows = np.fromiter((w in group for w in found.words.tolist()), dtype=bool, count=len(found))
            sums[g] += found.embeddings[rows].astype(np.float64).sum(axis=0)
            counts[g] += rows.sum()
    for g, name in enumerate(("female", "male")):
        if counts[g] == 0:
            raise InvalidParameterError(
                f"{name} attribute words", f"{len(female if g == 0 else male)} words",
                "words that occur in the attribute sentences", "none of them occurs",
            )
    return torch.from_numpy(sums / counts[:, None, None]).float()


def orthogonality_term(
    encoder: Any,
    sentences: Sequence[str],
    stereotypes: Sequence[str],
    vectors: torch.Tensor,
    *,
    layers: str = "all",
    level: str = "token",
    max_length: int = 128,
    batch_size: int = 64,
) -> float:
    r"""Context-debias's :math:`L_{orth}` of ``encoder`` on ``sentences``, without dropout.

    .. math:: \operatorname*{mean}_{(t, x),\, \ell \in \Lambda} \sum_g \langle E_\ell(t, x), v_{g,\ell} \rangle^2

    over the occurrences of ``stereotypes`` in ``sentences`` (token level) or every token of the
    sentences holding one (sentence level). Use the same ``vectors`` (from the original model,
    :func:`attribute_vectors`) to compare an encoder before and after debiasing, on held-out
    sentences.
    """
    check_choice(level, "level", LEVEL_CHOICES)
    layer_ids = context_debias_layers(layers, encoder.num_layers)
    case_sensitive = not encoder.do_lower_case
    examples = _tokenize_with_words(
        encoder.tokenizer, sentences, stereotypes, kind=_STEREOTYPE, max_length=max_length, case_sensitive=case_sensitive
    )
    if not examples:
        raise InvalidParameterError("sentences", f"{len(sentences)} sentences", "sentences holding a stereotype word")
    collate = ContextDebiasCollator(pad_token_id(encoder.tokenizer), level)
    vectors = vectors.to(encoder.device)
    total, count = 0.0, 0
    with encoder.inference():
        for start in range(0, len(examples), batch_size):
            batch = collate(examples[start:start + batch_size])
            batch = {k: v.to(encoder.device) for k, v in batch.items()}
            hidden = encoder.model(
                input_ids=batch["input_ids"], attention_mask=batch["attention_mask"], output_hidden_states=True
            ).hidden_states
            total += float(_orthogonality_sum(hidden, batch["orth_pool"], vectors, layer_ids))
            count += int(batch["orth_pool"].shape[0]) * len(layer_ids)
    return total / count


def pad_token_id(tokenizer: Any) -> int:
    """The tokenizer's padding id (0 when it has none)."""
    return int(tokenizer.pad_token_id if tokenizer.pad_token_id is not None else 0)
