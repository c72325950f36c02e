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

import copy
import logging
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Sequence

import numpy as np
import torch

import wordlists
from debias._estimator import TrainedDebiaser
from probekit.embedding import embed_words
from probekit.errors import InvalidParameterError
from probekit.text import WordMatcher, as_corpus, select_sentences, template_corpus
from probekit.training import derive_seed, train
from probekit.utils import Interval, Options, check_choice

__all__ = ["ContextDebias", "attribute_vectors", "orthogonality_term", "LAYER_CHOICES", "LEVEL_CHOICES"]

logger = logging.getLogger(__name__)

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




def _words_of(value: Any, parameter: str) -> tuple[str, ...]:
    if isinstance(value, str):
        raise InvalidParameterError(parameter, value, "a list of words, not one string")
    words = tuple(getattr(value, "words", value))
    if not words or not all(isinstance(w, str) and w.strip() for w in words):
        raise InvalidParameterError(parameter, value, "a non-empty list of words")
    return words


# ---------------------------------------------------------------------------------------------
# Context-debias


class ContextDebias(TrainedDebiaser):
    """Context-debias (Kaneko & Bollegala 2021) on any encoder, with or without a masked-LM head.

    Hyperparameters are set here; :meth:`fit` trains a copy of an encoder (the encoder passed is
    not changed); :meth:`save` writes a Hugging Face checkpoint with ``debias.json``. An encoder
    with a masked-LM head keeps it (its decoder stays tied to the debiased input embeddings), so
    LPBS runs on the result.

    Parameters
    ----------
    alpha, beta : float
        Weights of the orthogonality and regularization terms (paper: 0.2, 0.8).
    layers : {"all", "first", "last"}
        Hidden states debiased by the orthogonality term (0 = embedding output). The paper's best
        setting is "all" at token level.
    level : {"token", "sentence"}
        Orthogonality of the stereotype word's own vector, or of every token of its sentence.
    steps : int
        Optimizer steps. The defaults (100 steps of 32 sentences, ``max_per_word=20``,
        ``dev_size=64``) are sized so that the embedded default encoder is debiased on the built-in
        corpus with about 80 CPU-seconds of work, one to two minutes on one or two free CPU cores
        (``scripts/bench_debias_training.py``); the dev loss is still falling slowly at the end. A
        run on a large corpus on a GPU wants more steps and ``max_per_word=None``.
    batch_size : int
        Sentences per step (stereotype and attribute sentences drawn together).
    learning_rate : float
        AdamW learning rate (paper: 5e-5).
    max_length : int
        Longest input in tokens.
    dev_size : int or float
        Held-out sentences of each kind (stereotype, attribute) for choosing the best checkpoint:
        a count (at most a fifth of the kind) or a fraction.
    eval_every : int, optional
        Dev evaluation interval in steps (default: ten times per run, and at the end).
    max_per_word : int, optional
        Cap on the corpus sentences per attribute or stereotype word (drawn with the seed); ``None``
        keeps all. The attribute vectors are means over the attribute sentences, so a few dozen
        occurrences per word suffice, and the cap keeps rare and frequent words balanced.
    warmup_ratio, weight_decay, max_grad_norm : float
        See :class:`debias.TrainingConfig` (defaults of the authors' script: no warm-up, no decay).
    mixed_precision : {"no", "bf16", "fp16"}, optional
    checkpoint_every : int, optional
    seed : int

    Attributes
    ----------
    model_ : transformers model
        The debiased model (the masked-LM model when the encoder has a head).
    tokenizer_
    attribute_vectors_ : torch.Tensor (2, num_layers + 1, hidden)
        The female and male mean attribute vectors of the original model.
    history_ : TrainingResult
        Per-step loss and its two terms (``terms["orthogonality"]``, ``terms["regularization"]``),
        dev evaluations, the best step.
    data_ : dict
    record_ : dict
        The content of ``debias.json``.
    """

    method = "context-debias"
    reference = "Kaneko & Bollegala (2021), Debiasing pre-trained contextualised embeddings"

    def __init__(
        self,
        *,
        alpha: float = 0.2,
        beta: float = 0.8,
        layers: str = "all",
        level: str = "token",
        steps: int = 100,
        batch_size: int = 32,
        learning_rate: float = 5e-5,
        max_length: int = 128,
        dev_size: int | float = 64,
        eval_every: int | None = None,
        max_per_word: int | None = 20,
        warmup_ratio: float = 0.0,
        weight_decay: float = 0.0,
        max_grad_norm: float | None = 1.0,
        mixed_precision: str | None = None,
        checkpoint_every: int | None = None,
        seed: int = 0,
    ):
        self.alpha = alpha
        self.beta = beta
        self.layers = layers
        self.level = level
        self.steps = steps
        self.batch_size = batch_size
        self.learning_rate = learning_rate
        self.max_length = max_length
        self.dev_size = dev_size
        self.eval_every = eval_every
        self.max_per_word = max_per_word
        self.warmup_ratio = warmup_ratio
        self.weight_decay = weight_decay
        self.max_grad_norm = max_grad_norm
        self.mixed_precision = mixed_precision
        self.checkpoint_every = checkpoint_every
        self.seed = seed

    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "alpha": [Interval(float, 0, None)],
        "beta": [Interval(float, 0, None)],
        "layers": [Options(*LAYER_CHOICES)],
        "level": [Options(*LEVEL_CHOICES)],
        # sentences of each kind, or a fraction of them
        "dev_size": [Interval(int, 1, None), Interval(float, 0, 1, closed="neither")],
        "eval_every": [Interval(int, 1, None), None],
        "max_per_word": [Interval(int, 1, None), None],
    }

    def _check_params(self) -> None:
        super()._check_params()
        if self.alpha == 0 and self.beta == 0:
            raise InvalidParameterError("alpha/beta", (self.alpha, self.beta), "at least one positive weight")

    # -- data --------------------------------------------------------------------------------

    def _select(self, encoder: Any, corpus: Any, female: tuple[str, ...], male: tuple[str, ...],
                stereotypes: tuple[str, ...], generator: torch.Generator) -> tuple[list[_Example], list[_Example], dict[str, Any]]:

        corpus = template_corpus() if corpus is None else as_corpus(corpus)
        case_sensitive = not encoder.do_lower_case
        attributes = tuple(dict.fromkeys(female + male))
        # A word in both lists (the paper lists "maid" in both) stays an attribute word: its
        # sentences are kept close to the original model, not made orthogonal to gender.
        attribute_keys = {w.lower() for w in attributes}
        dropped = [w for w in stereotypes if w.lower() in attribute_keys]
        if dropped:
            logger.info("Context-debias: %s also attribute word(s); not used as stereotypes", ", ".join(dropped))
            stereotypes = tuple(w for w in stereotypes if w.lower() not in attribute_keys)
        if not stereotypes:
            raise InvalidParameterError("stereotypes", list(dropped), "at least one word that is not an attribute word")
        selection_seed = derive_seed(int(torch.randint(0, 2**62, (1,), generator=generator).item()), 0)
        common = dict(max_per_word=self.max_per_word, random_state=selection_seed % 2**32,
                      case_sensitive=case_sensitive, on_missing="ignore")
        attribute_selection = select_sentences(corpus, attributes, **common)
        stereotype_selection = select_sentences(corpus, stereotypes, exclude_words=attributes, **common)
        tokenizer = encoder.tokenizer
        stereotype_examples = _tokenize_with_words(
            tokenizer, stereotype_selection.sentences, stereotypes, kind=_STEREOTYPE,
            max_length=self.max_length, case_sensitive=case_sensitive,
        )
        attribute_examples = _tokenize_with_words(
            tokenizer, attribute_selection.sentences, attributes, kind=_ATTRIBUTE,
            max_length=self.max_length, case_sensitive=case_sensitive,
        )
        for name, examples in (("stereotype", stereotype_examples), ("attribute", attribute_examples)):
            if len(examples) < 2:
                raise InvalidParameterError(
                    "corpus", corpus.name, f"a corpus with at least 2 {name} sentences",
                    f"found {len(examples)} ({name} sentences must hold a {name} word"
                    + ("; stereotype sentences must hold no attribute word)" if name == "stereotype" else ")"),
                )
        data = {
            **corpus.describe(),
            "n_stereotype_sentences": len(stereotype_examples),
            "n_attribute_sentences": len(attribute_examples),
            "missing_stereotypes": list(stereotype_selection.missing),
            "missing_attributes": list(attribute_selection.missing),
            "stereotypes_also_attributes": dropped,
            "max_per_word": self.max_per_word,
        }
        return stereotype_examples, attribute_examples, data

    def _dev_split(self, examples: list[_Example], generator: torch.Generator) -> tuple[list[_Example], list[_Example]]:
        n = len(examples)
        if isinstance(self.dev_size, float):
            n_dev = max(1, int(round(self.dev_size * n)))
        else:
            n_dev = min(self.dev_size, max(1, n // 5))
        order = torch.randperm(n, generator=generator).tolist()
        dev = sorted(order[:n_dev])
        train_part = sorted(order[n_dev:])
        return [examples[i] for i in train_part], [examples[i] for i in dev]

    # -- fitting -----------------------------------------------------------------------------

    def fit(
        self,
        encoder: Any,
        corpus: Any = None,
        *,
        attributes: Any = None,
        stereotypes: Any = None,
        generator: torch.Generator | None = None,
        checkpoint_dir: Any = None,
        resume: bool = False,
        progress: bool = True,
        callback: Callable[[int, dict[str, float]], None] | None = None,
    ) -> "ContextDebias":
        """Debias a copy of ``encoder``.

        Parameters
        ----------
        encoder : probekit.Encoder
            Not modified; it also serves as the frozen original model.
        corpus : Corpus or sequence of str, optional
            Default: the built-in template corpus.
        attributes : GenderedTermSets or (female, male), optional
            Default: the paper's attribute sets (:func:`wordlists.load_paper_attributes`). Kaneko &
            Bollegala's files load with ``wordlists.read_pair_files(female.txt, male.txt)``.
        stereotypes : sequence of str, optional
            Default: the paper's stereotype words (:func:`wordlists.load_paper_stereotypes`), e.g.
            ``wordlists.read_word_list("stereotype.txt")`` for the authors' list.
        generator : torch.Generator, optional
            Source of every random draw (sentence caps, the dev split, the training); default ``seed``.
        checkpoint_dir, resume, progress, callback
            See :func:`debias.train`.

        Returns
        -------
        self
        """
        self._check_params()
        generator, generator_given = self._random_source(generator)
        female, male, stereotype_words = _word_lists(attributes, stereotypes)
        train_examples, dev_examples, data = self._training_data(encoder, corpus, female, male, stereotype_words, generator)
        # The attribute vectors of the frozen original model, over the training attribute sentences.
        attribute_train = [e.text for e in train_examples if e.kind == _ATTRIBUTE]
        vectors = attribute_vectors(encoder, attribute_train, female, male, progress=progress)

        trained = copy.deepcopy(encoder.mlm_model if encoder.has_mlm_head else encoder.model)
        base = trained.base_model if encoder.has_mlm_head else trained
        self._freeze_pooler(base)  # no hidden state depends on it
        original = copy.deepcopy(encoder.model).eval().requires_grad_(False)
        layer_ids = context_debias_layers(self.layers, encoder.num_layers)
        objective = ContextDebiasObjective(base, original, vectors, layer_ids, self.alpha, self.beta)

        collate = ContextDebiasCollator(pad_token_id(encoder.tokenizer), self.level)
        dev_batches = [collate(dev_examples[i:i + self.batch_size]) for i in range(0, len(dev_examples), self.batch_size)]
        history = train(
            objective, train_examples, self._training_config(encoder, eval_every=self.eval_every), collate_fn=collate,
            generator=generator, checkpoint_dir=self._checkpoint_path(checkpoint_dir), resume=resume, progress=progress,
            callback=callback,
            eval_fn=lambda module: context_debias_dev_loss(module, dev_batches, module.attribute_vectors.device),
            description="Context-debias",
        )
        original.to("cpu")
        self._set_fitted(
            encoder, model=trained, tokenizer=encoder.tokenizer, history=history, data=data,
            generator_given=generator_given, attribute_vectors_=vectors,
            wordlists_={"attributes_female": female, "attributes_male": male, "stereotypes": stereotype_words},
        )
        return self

    def _training_data(self, encoder: Any, corpus: Any, female: tuple[str, ...], male: tuple[str, ...],
                       stereotypes: tuple[str, ...], generator: torch.Generator,
                       ) -> tuple[list[_Example], list[_Example], dict[str, Any]]:
        """Training examples (stereotype then attribute sentences), dev examples (sorted by length), data record."""
        stereotype_examples, attribute_examples, data = self._select(encoder, corpus, female, male, stereotypes, generator)
        stereotype_train, stereotype_dev = self._dev_split(stereotype_examples, generator)
        attribute_train, attribute_dev = self._dev_split(attribute_examples, generator)
        data.update(
            n_train_sentences={"stereotype": len(stereotype_train), "attribute": len(attribute_train)},
            n_dev_sentences={"stereotype": len(stereotype_dev), "attribute": len(attribute_dev)},
        )
        dev_examples = sorted(stereotype_dev + attribute_dev, key=lambda e: len(e.ids))
        return stereotype_train + attribute_train, dev_examples, data

    def _record_details(self) -> dict[str, Any]:
        return {
            "attribute_vectors": "per-layer female and male mean attribute vectors of the frozen original model "
            "over the training attribute sentences",
            "mlm_head": {"kept": self.base_.get("has_mlm_head", False)},
        }

    def _record_wordlists(self) -> dict[str, Sequence[str]]:
        return self.wordlists_


def _word_lists(attributes: Any, stereotypes: Any) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Female and male attribute words and stereotype words (defaults: the paper's lists)."""
    if attributes is None:
        attributes = wordlists.load_paper_attributes()
    if stereotypes is None:
        stereotypes = wordlists.load_paper_stereotypes().words
    try:
        female_list, male_list = attributes.female, attributes.male
    except AttributeError:
        try:
            female_list, male_list = attributes
        except (TypeError, ValueError):
            raise InvalidParameterError("attributes", attributes, "GenderedTermSets, AttributePairs or (female, male)") from None
    return (
        _words_of(female_list, "attributes (female)"),
        _words_of(male_list, "attributes (male)"),
        _words_of(stereotypes, "stereotypes"),
    )
