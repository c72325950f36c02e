"""The Context-debias estimator (Kaneko & Bollegala 2021): :class:`ContextDebias`.

It selects the stereotype and attribute sentences, holds out a dev split and trains a copy of the
encoder; the objective, its data and the attribute vectors, with the formula and the choices where
the paper and its code differ, are in :mod:`debias._context_objective`.
"""

from __future__ import annotations

import copy
import logging
from typing import Any, Callable, ClassVar, Sequence

import torch

import wordlists
from debias._context_objective import (
    _ATTRIBUTE,
    _STEREOTYPE,
    LAYER_CHOICES,
    LEVEL_CHOICES,
    ContextDebiasCollator,
    ContextDebiasObjective,
    _Example,
    _tokenize_with_words,
    attribute_vectors,
    context_debias_dev_loss,
    context_debias_layers,
    pad_token_id,
)
from debias._estimator import TrainedDebiaser
from probekit.errors import InvalidParameterError
from probekit.text import as_corpus, select_sentences, template_corpus
from probekit.training import derive_seed, train
from probekit.utils import Interval, Options

__all__ = ["ContextDebias"]

logger = logging.getLogger(__name__)


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
