"""The estimator base of the weight-changing debiasers (CDA, Context-debias).

scikit-learn's conventions (:class:`sklearn.base.BaseEstimator`): hyperparameters are the keyword
arguments of ``__init__`` stored unchanged under their own names and checked in ``fit``;
``get_params``/``set_params`` (and :func:`sklearn.base.clone`) come from the signature; learned
state ends with an underscore. The steps every such method shares live here once: the parameter
checks, the random source (a ``torch.Generator`` or ``seed``), the shared loop's
:class:`~probekit.training.TrainingConfig`, checkpoint directories for resume, the fitted state,
the ``debias.json`` record with provenance, :meth:`TrainedDebiaser.save`, :meth:`TrainedDebiaser.to_encoder` and one
:class:`~probekit.errors.NotFittedError`.
"""

from __future__ import annotations

import inspect
import os
from pathlib import Path
from typing import Any, ClassVar, Mapping, Sequence

import torch
from sklearn.base import BaseEstimator

from debias._checkpoint import save_debiased_checkpoint
from probekit.encoders import Encoder
from probekit.errors import NotFittedError
from probekit.training import TrainingConfig
from probekit.utils import Interval, Options, collect_provenance, declared_constraints, validate_parameters

__all__ = ["TrainedDebiaser"]


class TrainedDebiaser(BaseEstimator):
    """Base class of the debiasers that train a copy of an encoder's weights.

    Subclasses set :attr:`method` (the name written to ``debias.json``), :attr:`reference` (the
    papers), take their hyperparameters as keyword arguments of ``__init__`` (among them
    ``batch_size``, ``steps``, ``learning_rate``, ``warmup_ratio``, ``weight_decay``,
    ``max_grad_norm``, ``mixed_precision``, ``checkpoint_every`` and ``seed``), implement
    ``_check_params`` and ``fit``, and end ``fit`` with :meth:`_set_fitted`.

    Attributes (after fitting)
    --------------------------
    model_ : transformers model
        The trained model (on the training device), in eval mode.
    tokenizer_
    history_ : TrainingResult
        The training run of the shared loop.
    data_ : dict
        What the method trained on.
    base_ : dict
        ``Encoder.describe()`` of the encoder it started from.
    record_ : dict
        The content of ``debias.json``.
    """

    method: ClassVar[str] = ""
    reference: ClassVar[str] = ""
    _fit_call: ClassVar[str] = "fit(encoder, corpus)"

    #: The hyperparameters every weight-changing method shares; subclasses add theirs (merged
    #: along the bases by :func:`probekit.utils.declared_constraints`). The CLI and the study
    #: derive their checks, defaults and help from these declarations.
    _parameter_constraints: ClassVar[dict[str, list[Any]]] = {
        "steps": [Interval(int, 1, None)],
        "batch_size": [Interval(int, 1, None)],
        "learning_rate": [Interval(float, 0, 1, closed="right")],
        # two special tokens and one word: shorter inputs hold nothing to learn from
        "max_length": [Interval(int, 3, None)],
        "warmup_ratio": [Interval(float, 0, 1)],
        "weight_decay": [Interval(float, 0, None)],
        "max_grad_norm": [Interval(float, 0, None, closed="neither"), None],
        "mixed_precision": [Options("no", "bf16", "fp16"), None],
        "checkpoint_every": [Interval(int, 1, None), None],
        "seed": ["random_state"],
    }

    # -- hyperparameters ---------------------------------------------------------------------

    def _hyperparameters(self) -> dict[str, Any]:
        """The hyperparameters in the order of the ``__init__`` signature (``get_params`` sorts them)."""
        names = [p.name for p in inspect.signature(type(self).__init__).parameters.values() if p.name != "self"]
        return {name: getattr(self, name) for name in names}

    def _check_params(self) -> None:
        """Every hyperparameter against its declaration; subclasses add checks across parameters."""
        validate_parameters(self._hyperparameters(), declared_constraints(type(self)))

    # -- the steps of fit --------------------------------------------------------------------

    def _random_source(self, generator: torch.Generator | None) -> tuple[torch.Generator, bool]:
        """``generator``, or one seeded with ``seed``; and whether it was passed in."""
        if generator is not None:
            return generator, True
        return torch.Generator().manual_seed(int(self.seed)), False

    def _training_config(self, encoder: Any, **overrides: Any) -> TrainingConfig:
        """The shared loop's settings from the hyperparameters (``overrides`` replace any of them)."""
        settings = dict(
            learning_rate=self.learning_rate, max_steps=self.steps, batch_size=self.batch_size,
            warmup_ratio=self.warmup_ratio, weight_decay=self.weight_decay, max_grad_norm=self.max_grad_norm,
            mixed_precision=self.mixed_precision, device="cpu" if encoder.device.type == "cpu" else None,
            seed=self.seed, checkpoint_every=self.checkpoint_every, find_unused_parameters=True,
        )
        settings.update(overrides)
        return TrainingConfig(**settings)

    @staticmethod
    def _checkpoint_path(checkpoint_dir: str | os.PathLike | None, *parts: str) -> Path | None:
        """Where a training phase keeps its checkpoints (resume continues from them), or ``None``."""
        return None if checkpoint_dir is None else Path(checkpoint_dir).joinpath(*parts)

    @staticmethod
    def _freeze_pooler(base_model: torch.nn.Module) -> None:
        """The pooler feeds no hidden state and no masked-LM loss: it gets no gradient, so no update."""
        for name, parameter in base_model.named_parameters():
            if name.startswith("pooler."):
                parameter.requires_grad_(False)

    def _set_fitted(self, encoder: Any, *, model: Any, tokenizer: Any, history: Any, data: Mapping[str, Any],
                    generator_given: bool, **learned: Any) -> None:
        """Store the learned state (``learned``: further attributes ending in ``_``) and the record."""
        self.model_ = model.eval()
        self.tokenizer_ = tokenizer
        self.history_ = history
        self.data_ = dict(data)
        for name, value in learned.items():
            setattr(self, name, value)
        self.base_ = encoder.describe()
        self.record_ = self._record(generator_given)

    # -- the record ----------------------------------------------------------------------------

    def _record_details(self) -> dict[str, Any]:
        """Method-specific sections of ``debias.json`` (after ``training``)."""
        return {}

    def _record_wordlists(self) -> dict[str, Sequence[str]] | None:
        """Word lists the method used (hashed into the provenance), or ``None``."""
        return None

    def _seeds(self, generator_given: bool) -> dict[str, Any]:
        return {
            "seed": None if generator_given else self.seed,
            "generator": "passed in" if generator_given else f"torch.Generator seeded with seed={self.seed}",
            "base_seed": self.history_.base_seed,
        }

    def _record(self, generator_given: bool) -> dict[str, Any]:
        """The content of ``debias.json``: method, hyperparameters, data, training, base model, seeds, provenance."""
        hyperparameters = self._hyperparameters()
        seeds = self._seeds(generator_given)
        wordlists = self._record_wordlists()
        record = {
            "method": self.method,
            "reference": self.reference,
            "hyperparameters": hyperparameters,
            "data": self.data_,
            "training": self.history_.summary(),
            **self._record_details(),
            "base_model": self.base_,
            "seeds": seeds,
        }
        if wordlists is not None:
            record["wordlists"] = {k: list(v) for k, v in wordlists.items()}
        record["provenance"] = collect_provenance(
            model=self.base_, seeds=seeds, wordlists=wordlists, parameters=hyperparameters
        )
        return record

    # -- the fitted model ----------------------------------------------------------------------

    def __sklearn_is_fitted__(self) -> bool:
        return hasattr(self, "model_")

    def _check_fitted(self) -> None:
        if not hasattr(self, "model_"):
            raise NotFittedError(self, self._fit_call)

    def save(self, out: str | os.PathLike, *, overwrite: bool = False) -> Path:
        """Write the trained model, its tokenizer and ``debias.json`` to ``out`` (atomically).

        ``probekit.load_encoder(out)`` loads it unchanged (with its masked-LM head, if any).

        Parameters
        ----------
        out : path
            A new or empty directory (or a debiased checkpoint, with ``overwrite``).
        overwrite : bool

        Returns
        -------
        Path
            ``out``.
        """
        self._check_fitted()
        return save_debiased_checkpoint(self.model_, self.tokenizer_, out, self.record_, overwrite=overwrite)

    def to_encoder(self, *, name: str | None = None) -> Encoder:
        """The trained model as a :class:`probekit.Encoder` (shares its weights).

        Parameters
        ----------
        name : str, optional
            Default: ``"<method>(<base name>)"``.
        """
        self._check_fitted()
        return Encoder.from_model(self.model_, self.tokenizer_, name=name or f"{self.method}({self.base_['name_or_path']})")
