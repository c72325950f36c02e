r"""Concept scrubbing (Belrose et al. 2023): a LEACE eraser at every layer of a BERT-family encoder,
each fitted on activations already scrubbed below it, applied inside the model.

References
----------
Belrose, Schneider-Joseph, Ravfogel, Cotterell, Raff, Biderman (2023). LEACE: perfect linear concept
erasure in closed form. NeurIPS (section 6, concept scrubbing).
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Callable

import numpy as np

from debias._leace import LEACE, METHODS
from debias._projection_base import LinearEraser
from probekit.embedding import attribute_embeddings
from probekit.encoders import LayerwiseProjection, OutputProjection
from probekit.errors import InvalidParameterError, ProbekitError
from probekit.text import template_corpus
from probekit.utils import Interval, Options

logger = logging.getLogger(__name__)


class ConceptScrubbing(LinearEraser):
    r"""Concept scrubbing (Belrose et al. 2023, sec. 6): one LEACE eraser per hidden state of a
    BERT-family encoder, applied inside the model.

    The eraser of hidden state :math:`l` (0: the embedding output, :math:`l \ge 1`: the output of
    transformer layer :math:`l`) is fitted on the activations the encoder produces with the erasers
    :math:`0..l-1` already installed, so each one removes what the layers below re-derived from the
    scrubbed input:

    .. math:: h_l' = E_l\big(f_l(h_{l-1}')\big),\quad h_0' = E_0(\mathrm{emb}(x)),

    with :math:`E_l(h) = h - P_l (h - \mu_l)` the LEACE map fitted on the :math:`h_l` of the
    attribute-word occurrences under :math:`E_0..E_{l-1}` and applied to every token. The result is a
    projection directory with one map per hidden state (:class:`probekit.encoders.LayerwiseProjection`)
    that :func:`probekit.load_encoder`, ``probe``, ``compare``, ``finetune`` and the study accept.
    The defaults follow the authors' scrubbing (shrinkage and the trace constraint on, which keep the
    hidden-state norms from growing through the stack).

    Parameters
    ----------
    method : {"leace", "orth"}, default "leace"
    shrinkage : bool, default True
    tol : float, default 0.01
    constrain_cov_trace : bool, default True
        See :class:`debias.LEACE`.
    alpha : float in [0, 1], default 1.0
        Strength of every layer's map, :math:`h + \alpha (E_l(h) - h)`, applied to the maps fitted
        at full strength (the erasers are not refitted for a weaker stack).

    Attributes
    ----------
    layer_matrices_ : ndarray of shape (L + 1, d, d)
    layer_offsets_ : ndarray of shape (L + 1, d)
        The full-strength map of each hidden state.
    ranks_ : list of int
        Rank of each layer's erasure.
    classes_ : list
    """

    _parameter_constraints = {
        "method": [Options(*METHODS)],
        "shrinkage": ["boolean"],
        "tol": [Interval(float, 0, None, closed="neither")],
        "constrain_cov_trace": ["boolean"],
        **LinearEraser._OCCURRENCE_CONSTRAINTS,  # fit_from_encoder (layer unused: every layer is scrubbed)
    }
    _fitted_attribute = "layer_matrices_"
    _state_arrays = ("layer_matrices_", "layer_offsets_")
    _state_values = ("ranks_", "classes_")

    def __init__(
        self,
        method: str = "leace",
        shrinkage: bool = True,
        tol: float = 0.01,
        constrain_cov_trace: bool = True,
        alpha: float = 1.0,
    ):
        self.method = method
        self.shrinkage = shrinkage
        self.tol = tol
        self.constrain_cov_trace = constrain_cov_trace
        self.alpha = alpha

    def _set_map(self, matrix: np.ndarray, offset: np.ndarray | None = None) -> None:
        # The directory's matrix/offset are the identity; the layer maps are state arrays.
        self.n_features_in_ = int(np.asarray(matrix).shape[1])

    def _restore_map(self, projection: OutputProjection, arrays: dict[str, np.ndarray]) -> None:
        self._set_map(projection.matrix)

    def fit(self, X: Any = None, y: Any = None) -> "ConceptScrubbing":
        """Refused: scrubbing needs the encoder (each layer is fitted on the scrubbed layers below).

        Use :meth:`fit_from_encoder`.
        """
        raise ProbekitError("ConceptScrubbing fits each layer on the encoder's own activations with the layers below "
                            "already scrubbed; use fit_from_encoder(encoder, corpus)")

    def transform(self, X: Any) -> np.ndarray:
        """Refused: the maps act inside the encoder (``debias.apply_projection`` or ``load_encoder``)."""
        raise ProbekitError("concept scrubbing acts inside the encoder, layer by layer; apply it with "
                            "debias.apply_projection(encoder, scrubber) or load its directory with probekit.load_encoder")

    def to_output_projection(self) -> LayerwiseProjection:
        """One map per hidden state at strength ``alpha`` (:class:`probekit.encoders.LayerwiseProjection`)."""
        self._check_fitted()
        alpha = self._check_alpha()
        eye = np.eye(self.dimension_)
        return LayerwiseProjection.from_layers([
            OutputProjection(matrix, offset) if alpha == 1.0 else OutputProjection(eye + alpha * (matrix - eye), alpha * offset)
            for matrix, offset in zip(self.layer_matrices_, self.layer_offsets_)
        ])

    def fit_layers(self, activations: Callable[[LayerwiseProjection | None, int], np.ndarray], y: Any,
                   n_hidden_states: int) -> "ConceptScrubbing":
        """Fit layer by layer from a function giving the activations of hidden state ``l`` with the
        erasers of the layers below installed (``None`` before the first).

        Parameters
        ----------
        activations : callable (projection or None, l) -> ndarray of shape (n, d)
        y : array of shape (n,)
            The concept label of each row (the same rows at every layer).
        n_hidden_states : int
            L + 1 (the embedding output and L transformer layers).

        Returns
        -------
        self
        """
        self._validate_declared()
        matrices, offsets, ranks = [], [], []
        identity_maps: list[OutputProjection | None] = [None] * n_hidden_states
        for layer in range(n_hidden_states):
            below = None if layer == 0 else LayerwiseProjection.from_layers(
                [OutputProjection(m, b) for m, b in zip(matrices, offsets)] + identity_maps[layer:])
            eraser = LEACE(method=self.method, shrinkage=self.shrinkage, tol=self.tol,
                           constrain_cov_trace=self.constrain_cov_trace).fit(activations(below, layer), y)
            matrices.append(eraser.matrix_)
            offsets.append(eraser.offset_)
            ranks.append(eraser.rank_)
            logger.info("concept scrubbing: hidden state %d of %d fitted (rank %d)", layer, n_hidden_states - 1, eraser.rank_)
        self.layer_matrices_, self.layer_offsets_ = np.stack(matrices), np.stack(offsets)
        self.ranks_ = ranks
        self.classes_ = eraser.classes_
        self.n_features_in_ = int(self.layer_matrices_.shape[-1])
        self._reset_record({"n_rows": int(len(np.asarray(y))), "n_hidden_states": n_hidden_states})
        return self

    def fit_from_encoder(
        self,
        encoder: Any,
        corpus: Any = None,
        *,
        layer: int = -1,
        max_per_word: int | None = 100,
        single_piece_only: bool = True,
        random_state: int = 0,
        cache_dir: str | os.PathLike | None = None,
        progress: bool = True,
    ) -> "ConceptScrubbing":
        """Scrub gender from every hidden state of ``encoder``, fitted on the paper's female and male
        attribute words in corpus sentences (selected as ``probekit probe`` selects them with the
        same ``random_state``; label 1 = female), one pass of the encoder per hidden state.

        Parameters
        ----------
        encoder : probekit.Encoder
            A BERT-family encoder without an output projection.
        corpus : Corpus or sequence of str, optional
            Default: the built-in template corpus.
        layer : int
            Ignored (every hidden state is scrubbed); accepted so the registry's options match.
        max_per_word, single_piece_only, random_state, cache_dir, progress
            As for :meth:`debias.LEACE.fit_from_encoder`.

        Returns
        -------
        self
        """
        if getattr(encoder, "output_projection", None) is not None:
            raise InvalidParameterError("encoder", encoder.name_or_path, "an encoder without an output projection")
        started = time.perf_counter()
        corpus = template_corpus() if corpus is None else corpus
        labels: dict[str, np.ndarray] = {}

        def activations(below: LayerwiseProjection | None, index: int) -> np.ndarray:
            scrubbed = encoder if below is None else encoder.with_output_projection(below, name=f"{encoder.name_or_path}+scrub<{index}")
            occurrences, female, _ = attribute_embeddings(
                scrubbed, corpus, layer=index, max_per_word=max_per_word, single_piece_only=single_piece_only,
                random_state=int(random_state), cache_dir=cache_dir if below is None else None, progress=progress,
            )
            labels.setdefault("y", np.isin(occurrences.words, female).astype(np.int64))
            labels.setdefault("words", np.asarray(occurrences.words))
            return occurrences.embeddings

        first = activations(None, 0)  # the rows and their labels (the same occurrences at every layer)
        cached = {0: first}
        self.fit_layers(lambda below, index: cached.pop(index) if index in cached else activations(below, index),
                        labels["y"], int(encoder.num_layers) + 1)
        y = labels["y"]
        self._record_encoder(encoder, {
            "data": "contextual embeddings of the paper's female/male attribute words (label 1 = female), "
                    "each hidden state with the layers below scrubbed",
            "corpus": getattr(corpus, "name", "sentences"),
            "corpus_digest": getattr(corpus, "digest", None),
            "hidden_states": list(range(int(encoder.num_layers) + 1)),
            "max_per_word": max_per_word,
            "single_piece_only": single_piece_only,
            "random_state": int(random_state),
            "n_occurrences": int(len(y)),
            "n_female": int(y.sum()),
            "n_male": int(len(y) - y.sum()),
            "seconds": round(time.perf_counter() - started, 1),
        })
        return self
