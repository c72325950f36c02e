"""The one registry of debiasing methods, and :func:`build_debiased`, the one way to build one.

Every place that lists or builds the methods reads this table: the CLI (``probekit debias
METHOD``; its help lines), the study (its method names, option schemas and shared builds),
``scripts/compare_debiasing.py`` and the report's drift test (``probekit.report`` keeps its own
display order, checked against this table by ``tests/unit/test_registry.py``).

The table itself loads no torch: each method names its estimator class, which is imported from
:mod:`debias` on first use (:attr:`DebiasMethod.estimator`), so the CLI can build its parsers from
the registry without loading a model library.
"""

from __future__ import annotations

import importlib
import inspect
import logging
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

from probekit.errors import InvalidParameterError
from probekit.utils import collect_provenance, is_main_process

logger = logging.getLogger(__name__)

__all__ = [
    "DebiasMethod",
    "DEBIAS_METHODS",
    "PROJECTION_METHODS",
    "TRAINING_METHODS",
    "INFERENCE_METHODS",
    "METHOD_KINDS",
    "DebiasBuild",
    "get_method",
    "is_debiased_dir",
    "build_debiased",
]

#: The kinds of method: a projection fitted on an encoder's outputs (a projection directory with
#: ``projection.json``), training that changes the weights (a checkpoint with ``debias.json``), or an
#: inference-time change of the masked-LM scoring (a directory with ``self_debias.json`` naming the base).
METHOD_KINDS = ("projection", "training", "inference")
_MARKERS = {"projection": "projection.json", "training": "debias.json", "inference": "self_debias.json"}


@dataclass(frozen=True)
class DebiasMethod:
    """One debiasing method of the registry.

    Attributes
    ----------
    name : str
        The identifier used by the CLI, the study and the report (``"sent-debias"``, ...).
    class_name : str
        Name of the estimator class in :mod:`debias` (:attr:`estimator` imports it).
    kind : {"projection", "training", "inference"}
        ``"projection"``: fitted on embeddings with ``fit_from_encoder`` and saved as a projection
        directory; ``"training"``: fitted by training (``fit(encoder, corpus)``) and saved as a
        Hugging Face checkpoint; ``"inference"``: nothing learned (``fit(encoder)`` wraps it), saved
        as a directory naming the base checkpoint and the settings.
    citation : str
        The paper the method comes from.
    help : str
        One-line summary (the CLI's help line).
    """

    name: str
    class_name: str
    kind: str
    citation: str
    help: str

    @property
    def marker(self) -> str:
        """The file whose presence marks a finished output directory of this method."""
        return _MARKERS[self.kind]

    @property
    def estimator(self) -> type:
        """The estimator class (imported on first use)."""
        return getattr(importlib.import_module("debias"), self.class_name)


DEBIAS_METHODS: dict[str, DebiasMethod] = {
    method.name: method
    for method in (
        DebiasMethod(
            "sent-debias", "SentDebias", "projection", "Liang et al. 2020, Towards Debiasing Sentence Representations",
            "Sent-debias (Liang et al. 2020): remove the top-k directions of counterfactual sentence pairs",
        ),
        DebiasMethod(
            "inlp", "INLP", "projection", "Ravfogel et al. 2020, Null It Out (iterative nullspace projection)",
            "INLP (Ravfogel et al. 2020): iterative nullspace projection of gender classifiers",
        ),
        DebiasMethod(
            "leace", "LEACE", "projection", "Belrose et al. 2023, LEACE: Perfect linear concept erasure in closed form",
            "LEACE (Belrose et al. 2023): closed-form least-squares concept erasure of gender",
        ),
        DebiasMethod(
            "rlace", "RLACE", "projection", "Ravfogel et al. 2022, Linear Adversarial Concept Erasure (ICML)",
            "RLACE (Ravfogel et al. 2022): rank-k projection from a relaxed minimax game against a linear adversary",
        ),
        DebiasMethod(
            "concept-scrubbing", "ConceptScrubbing", "projection", "Belrose et al. 2023, LEACE: Perfect linear "
            "concept erasure in closed form (section 6, concept scrubbing)",
            "Concept scrubbing (Belrose et al. 2023): LEACE at every layer inside the encoder, each fitted on "
            "activations scrubbed below",
        ),
        DebiasMethod(
            "cda", "CDA", "training", "Webster et al. 2020, Measuring and Reducing Gendered Correlations "
            "in Pre-trained Models (two-sided counterfactual data augmentation)",
            "CDA: continued masked-LM training on the corpus and its gender-swapped counterfactuals",
        ),
        DebiasMethod(
            "context-debias", "ContextDebias", "training", "Kaneko & Bollegala 2021, Debiasing Pre-trained "
            "Contextualised Embeddings",
            "Context-debias (Kaneko & Bollegala 2021): stereotype embeddings orthogonal to gender directions",
        ),
        DebiasMethod(
            "dropout", "Dropout", "training", "Webster et al. 2020, Measuring and Reducing Gendered Correlations "
            "in Pre-trained Models (dropout regularization)",
            "Dropout (Webster et al. 2020): continued masked-LM training with raised dropout (hidden 0.20, attention 0.15)",
        ),
        DebiasMethod(
            "self-debias", "SelfDebias", "inference", "Schick et al. 2021, Self-Diagnosis and Self-Debiasing: A Proposal "
            "for Reducing Corpus-Based Bias in NLP (masked-LM form of Meade et al. 2022)",
            "Self-Debias (Schick et al. 2021): masked-LM scores rescaled with debiasing prefixes (decay constant 50)",
        ),
    )
}
"""Every debiasing method, in the order tables and grids list them."""

#: Methods of kind "projection" (a projection directory), in registry order.
PROJECTION_METHODS: tuple[str, ...] = tuple(m.name for m in DEBIAS_METHODS.values() if m.kind == "projection")
#: Methods of kind "training" (a new checkpoint), in registry order.
TRAINING_METHODS: tuple[str, ...] = tuple(m.name for m in DEBIAS_METHODS.values() if m.kind == "training")
#: Methods of kind "inference" (the base checkpoint scored differently), in registry order.
INFERENCE_METHODS: tuple[str, ...] = tuple(m.name for m in DEBIAS_METHODS.values() if m.kind == "inference")


def get_method(name: str, parameter: str = "method") -> DebiasMethod:
    """The registry entry of ``name``; an unknown name raises :class:`InvalidParameterError`."""
    if name not in DEBIAS_METHODS:
        raise InvalidParameterError(parameter, name, tuple(DEBIAS_METHODS))
    return DEBIAS_METHODS[name]


def is_debiased_dir(directory: str | os.PathLike, method: str) -> bool:
    """Whether ``directory`` holds a finished output of ``method`` (its marker file exists)."""
    return (Path(directory) / get_method(method).marker).is_file()


@dataclass
class DebiasBuild:
    """What :func:`build_debiased` made.

    Attributes
    ----------
    method : DebiasMethod
    estimator : object
        The fitted estimator (its learned state, e.g. ``history_`` or ``explained_variance_ratio_``).
    path : pathlib.Path
        The output directory.
    """

    method: DebiasMethod
    estimator: Any
    path: Path


def _split_options(method: DebiasMethod, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Constructor keywords and (projections) ``fit_from_encoder`` keywords of ``options``."""
    cls = method.estimator
    init_names = set(inspect.signature(cls.__init__).parameters) - {"self"}
    fit_names: set[str] = set()
    if method.kind == "projection":
        fit_names = set(inspect.signature(cls.fit_from_encoder).parameters) - {"self", "encoder", "corpus", "progress"}
    unknown = sorted(set(options) - init_names - fit_names)
    if unknown:
        raise InvalidParameterError(f"options.{unknown[0]}", options[unknown[0]],
                                    "a keyword of " + ", ".join(sorted(init_names | fit_names)))
    init = {k: v for k, v in options.items() if k in init_names}
    fit = {k: v for k, v in options.items() if k in fit_names}
    return init, fit


def _seeded(cls: type, init: dict[str, Any], seed: int) -> dict[str, Any]:
    """The constructor keywords with the one seed (``random_state`` or ``seed``) where it takes one."""
    names = inspect.signature(cls.__init__).parameters
    for key in ("random_state", "seed"):
        if key in names:
            init = {**init, key: seed}
    return init


def _build_projection(method: DebiasMethod, encoder: Any, corpus: Any, out: Path, *, init: dict[str, Any],
                      fit: dict[str, Any], seed: int, command: str, overwrite: bool, progress: bool,
                      cache_dir: Any) -> tuple[Any, Path]:
    eraser = method.estimator(**_seeded(method.estimator, init, seed))
    fit = {**fit, "random_state": seed, "cache_dir": cache_dir}
    eraser.fit_from_encoder(encoder, corpus, progress=progress, **fit)
    recorded = {k: (str(v) if isinstance(v, os.PathLike) else v) for k, v in fit.items()}
    provenance = collect_provenance(
        model=encoder.describe(), seeds={"seed": seed},
        parameters={"command": command, "method": type(eraser).__name__, **eraser.get_params(), **recorded,
                    "corpus": getattr(corpus, "name", None), "corpus_digest": getattr(corpus, "digest", None)},
    )
    if is_main_process():
        out = Path(eraser.save(out, overwrite=overwrite, provenance=provenance))
    return eraser, out


def _build_training(method: DebiasMethod, encoder: Any, corpus: Any, out: Path, *, init: dict[str, Any],
                    fit_options: Mapping[str, Any], seed: int, overwrite: bool, progress: bool,
                    checkpoint_dir: Any, resume: bool, remove_checkpoints: bool) -> tuple[Any, Path]:
    debiaser = method.estimator(**_seeded(method.estimator, init, seed))
    debiaser.fit(encoder, corpus, checkpoint_dir=checkpoint_dir, resume=resume, progress=progress, **dict(fit_options))
    written = debiaser.save(out, overwrite=overwrite)  # under `accelerate launch`, the main process writes
    if checkpoint_dir is not None and remove_checkpoints and is_main_process():
        shutil.rmtree(checkpoint_dir, ignore_errors=True)
    return debiaser, Path(written) if written is not None else out


def build_debiased(
    method: str,
    encoder: Any,
    corpus: Any,
    out: str | os.PathLike,
    *,
    options: Mapping[str, Any] | None = None,
    seed: int = 0,
    fit_options: Mapping[str, Any] | None = None,
    command: str | None = None,
    overwrite: bool = False,
    progress: bool = True,
    cache_dir: str | os.PathLike | None = None,
    checkpoint_dir: str | os.PathLike | None = None,
    resume: bool = False,
    remove_checkpoints: bool = True,
) -> DebiasBuild:
    """Build a debiased encoder with ``method`` and write its directory, with provenance.

    Projections (Sent-debias, INLP, LEACE) are fitted with ``fit_from_encoder`` and saved as a
    projection directory (``projection.json`` + ``projection.safetensors``, naming the base
    checkpoint and its fingerprint; the provenance records the command, the method's parameters,
    the fit's options, the seed and the corpus digest). Training methods (CDA, Context-debias)
    are fitted on the one training loop and saved as a Hugging Face checkpoint with
    ``debias.json`` (the estimator records its own provenance). Inference-time methods
    (Self-Debias) learn nothing: the directory holds ``self_debias.json`` (settings, the base
    checkpoint and its fingerprint). Every such directory loads with :func:`probekit.load_encoder`.

    Parameters
    ----------
    method : str
        A name of :data:`DEBIAS_METHODS`.
    encoder : probekit.Encoder
        The base encoder (not changed).
    corpus : probekit.text.Corpus or None
        The sentences the method learns from (``None``: the method's default).
    out : path
        The output directory (new or empty, or ``overwrite``).
    options : mapping, optional
        Keywords of the estimator's constructor and, for projections, of its
        ``fit_from_encoder`` (e.g. ``{"k": 2, "max_sentences": 60}``); anything else raises
        :class:`probekit.errors.InvalidParameterError`.
    seed : int
        The one seed: the constructor's ``random_state`` / ``seed`` and the fit's ``random_state``.
    fit_options : mapping, optional
        Training methods: extra keywords of ``fit`` (``attributes``, ``stereotypes``).
    command : str, optional
        Recorded in a projection's provenance (default ``"debias.build_debiased"``).
    overwrite, progress : bool
    cache_dir : path, optional
        Projections: the embedding cache of the fit.
    checkpoint_dir : path, optional
        Training methods: checkpoints of the run (an interrupted build continues with ``resume``).
    resume : bool
    remove_checkpoints : bool
        Remove ``checkpoint_dir`` after a successful build.

    Returns
    -------
    DebiasBuild
    """
    entry = get_method(method)
    init, fit = _split_options(entry, dict(options or {}))
    target = Path(out)
    if entry.kind == "inference":
        estimator = entry.estimator(**init).fit(encoder)
        target = Path(estimator.save(target, overwrite=overwrite)) if is_main_process() else target
    elif entry.kind == "projection":
        estimator, target = _build_projection(entry, encoder, corpus, target, init=init, fit=fit, seed=int(seed),
                                      command=command or "debias.build_debiased", overwrite=overwrite,
                                      progress=progress, cache_dir=cache_dir)
    else:
        estimator, target = _build_training(entry, encoder, corpus, target, init=init, fit_options=fit_options or {},
                                    seed=int(seed), overwrite=overwrite, progress=progress,
                                    checkpoint_dir=checkpoint_dir, resume=resume,
                                    remove_checkpoints=remove_checkpoints)
    return DebiasBuild(method=entry, estimator=estimator, path=target)
