"""Post-hoc linear erasers of gender: Sent-debias, INLP and LEACE, behind one estimator interface.

Each eraser learns an affine map on the hidden size, exposed as ``matrix_`` (:math:`A`, d x d)
and ``offset_`` (:math:`b`, d) with the column-vector convention :math:`x' = A x + b`, i.e. for a
batch of row vectors ``transform(H) = H @ matrix_.T + offset_`` (the :class:`torch.nn.Linear`
convention). :func:`apply_projection` attaches the map to an encoder so that every representation
it produces passes through it (:class:`probekit.encoders._projection.OutputProjection`);
:meth:`LinearEraser.save` writes a directory that :func:`probekit.load_encoder`,
``probekit probe --model DIR`` and ``probekit compare`` accept.

References
----------
Liang, Li, Zheng, Lim, Salakhutdinov, Morency (2020). Towards debiasing sentence representations. ACL.
Ravfogel, Elazar, Gonen, Twiton, Goldberg (2020). Null it out: guarding protected attributes by
iterative nullspace projection. ACL.
Belrose, Schneider-Joseph, Ravfogel, Cotterell, Raff, Biderman (2023). LEACE: perfect linear concept
erasure in closed form. NeurIPS.
"""

from __future__ import annotations

import logging
import os
import time
import warnings
from pathlib import Path
from typing import Any, ClassVar, Sequence

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin

import wordlists
from debias._swap import describe_swap, swap_texts
from probekit.embedding import attribute_embeddings, embed_sentences
from probekit.encoders import (
    OutputProjection,
    base_record,
    check_output_dir,
    read_projection_dir,
    write_projection_dir,
)
from probekit.errors import InvalidParameterError, NotFittedError
from probekit.text import select_sentences, template_corpus
from probekit.utils import collect_provenance

logger = logging.getLogger(__name__)

CLASSIFIERS = ("logistic", "linear_svm")


def _as_matrix(X: Any, parameter: str, *, dimension: int | None = None) -> np.ndarray:
    """A finite float64 (n, d) array; (n, layers, d) stacks are flattened to rows.

    :func:`sklearn.utils.check_array` does the checks (no sparse, complex, non-finite or empty
    input); its message is kept in the :class:`~probekit.errors.InvalidParameterError`.
    """
    array = _checked_array(X, parameter, ensure_2d=True)
    if array.ndim == 3:
        array = array.reshape(-1, array.shape[-1])
    if array.ndim != 2 or array.shape[0] < 1 or array.shape[1] < 1:
        raise InvalidParameterError(parameter, getattr(array, "shape", None), "a non-empty array of shape (n, d)")
    if dimension is not None and array.shape[1] != dimension:
        raise InvalidParameterError(parameter, array.shape, f"rows of dimension {dimension} (the fitted dimension)")
    return array


def _checked_array(X: Any, parameter: str, *, ensure_2d: bool) -> np.ndarray:
    """``X`` as a finite float64 array (1-D allowed unless ``ensure_2d``, 3-D allowed)."""
    from sklearn.utils import check_array

    try:
        return check_array(
            X, dtype=np.float64, accept_sparse=False, ensure_all_finite=True, ensure_2d=ensure_2d, allow_nd=True,
            input_name=parameter,
        )
    except (TypeError, ValueError) as exc:
        shape = getattr(X, "shape", None)
        raise InvalidParameterError(
            parameter, shape if shape is not None else type(X).__name__,
            "a finite numeric dense array of shape (n, d)", str(exc).splitlines()[0] if str(exc) else None,
        ) from exc


def _check_labels(y: Any, n: int, parameter: str = "y") -> np.ndarray:
    labels = np.asarray(y)
    if labels.ndim != 1 or len(labels) != n:
        raise InvalidParameterError(parameter, getattr(labels, "shape", None), f"a 1-D array of {n} labels (one per row of X)")
    if len(np.unique(labels)) < 2:
        raise InvalidParameterError(parameter, np.unique(labels).tolist(), "at least two distinct labels", "got 1 class")
    return labels


def _seed_of(random_state: Any, parameter: str = "random_state") -> int | None:
    if random_state is None:
        return None
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**31 - 1))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) and random_state >= 0:
        return int(random_state)
    raise InvalidParameterError(parameter, random_state, "a non-negative int, a numpy Generator or None")


class LinearEraser(TransformerMixin, BaseEstimator):
    """Base class of the post-hoc erasers: an affine map learned by each subclass's ``fit``.

    Attributes (after fitting)
    --------------------------
    matrix_ : ndarray of shape (d, d)
        :math:`A` in :math:`x' = A x + b` (column vectors); rows: ``H @ matrix_.T + offset_``.
    offset_ : ndarray of shape (d,)
        :math:`b` (zero for the orthogonal projections of Sent-debias and INLP).
    base_model_ : dict or None
        The encoder the training data came from (:func:`probekit.encoders.base_record`),
        set by the subclasses' ``fit_from_encoder``; ``None`` after fitting on arrays.
    fitting_ : dict
        What the eraser was fitted on (data sizes, corpus, layer, seeds).
    """

    # Learned arrays and JSON-ready learned values written by save() besides matrix_/offset_.
    _state_arrays: ClassVar[tuple[str, ...]] = ()
    _state_values: ClassVar[tuple[str, ...]] = ()
    _registry: ClassVar[dict[str, type["LinearEraser"]]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        LinearEraser._registry[cls.__name__] = cls

    # -- the map -------------------------------------------------------------------------------

    def _check_fitted(self) -> None:
        if not hasattr(self, "matrix_"):
            raise NotFittedError(self, "fit() or fit_from_encoder()")

    @property
    def dimension_(self) -> int:
        """Width of the vectors the fitted map applies to."""
        self._check_fitted()
        return int(self.matrix_.shape[0])

    def transform(self, X: Any) -> np.ndarray:
        """Apply the learned map to the rows of ``X``: ``X @ matrix_.T + offset_``.

        ``X`` of shape (n, d), or (n, layers, d) (every layer mapped), or (d,).
        """
        self._check_fitted()
        array = _checked_array(X, "X", ensure_2d=False)
        if array.shape[-1:] != (self.dimension_,):
            raise InvalidParameterError(
                "X", array.shape, f"arrays whose last axis has size {self.dimension_}",
                f"X has {array.shape[-1] if array.ndim else 0} features, but {type(self).__name__} is expecting "
                f"{self.dimension_} features as input",
            )
        return array @ self.matrix_.T + self.offset_

    def to_output_projection(self) -> OutputProjection:
        """The learned map as the core's :class:`~probekit.encoders._projection.OutputProjection`."""
        self._check_fitted()
        return OutputProjection(self.matrix_, self.offset_)

    def _set_map(self, matrix: np.ndarray, offset: np.ndarray | None = None) -> None:
        self.matrix_ = np.asarray(matrix, dtype=np.float64)
        self.n_features_in_ = int(self.matrix_.shape[1])
        self.offset_ = np.zeros(self.matrix_.shape[0]) if offset is None else np.asarray(offset, dtype=np.float64)

    def _reset_record(self, fitting: dict[str, Any]) -> None:
        """After fitting on arrays: no known base encoder (fit_from_encoder records it afterwards)."""
        self.base_model_ = None
        self.fitting_ = fitting

    # -- persistence ---------------------------------------------------------------------------

    def save(
        self,
        directory: str | os.PathLike,
        *,
        encoder: Any = None,
        overwrite: bool = False,
        provenance: dict[str, Any] | None = None,
    ) -> Path:
        """Write the eraser as a projection directory (atomically: all or nothing).

        ``DIR/projection.safetensors`` holds ``matrix``, ``offset`` and the learned arrays;
        ``DIR/projection.json`` the class name, hyperparameters, learned values, the base
        checkpoint (kind, name/path, fingerprint), the fitting data and provenance. A directory
        with a base checkpoint loads as an encoder with :func:`probekit.load_encoder`.

        Parameters
        ----------
        directory : path
            Must not exist or be empty (or be a projection directory, with ``overwrite``).
        encoder : Encoder, optional
            The encoder the training data came from, when the eraser was fitted on arrays (after
            the subclass's ``fit_from_encoder`` it is already known). Must have no output projection itself.
        overwrite : bool
        provenance : dict, optional
            Default: :func:`probekit.utils._provenance.collect_provenance` with the base model.
        """
        self._check_fitted()
        check_output_dir(directory, overwrite=overwrite)
        base = self.base_model_
        if encoder is not None:
            self._check_encoder(encoder, "encoder")
            base = base_record(encoder)
        if base is not None and base.get("prior_projection_digest"):
            raise InvalidParameterError(
                "encoder", base.get("encoder_fingerprint"), "an encoder without an output projection",
                "a projection fitted on an already projected encoder cannot be saved as a directory; "
                "apply both in memory with debias.apply_projection",
            )
        if base is not None and int(base.get("hidden_size", self.dimension_)) != self.dimension_:
            raise InvalidParameterError("encoder", base.get("hidden_size"), f"an encoder of hidden size {self.dimension_}")
        method = {
            "name": type(self).__name__,
            "hyperparameters": self.get_params(deep=False),
            "attributes": {name: getattr(self, name) for name in self._state_values},
        }
        state = {name: getattr(self, name) for name in self._state_arrays}
        if provenance is None:
            provenance = collect_provenance(model=base, parameters={"method": method["name"]})
        return write_projection_dir(
            directory, self.to_output_projection(), base=base, method=method, state=state,
            fitting=self.fitting_, provenance=provenance, overwrite=overwrite,
        )

    @classmethod
    def load(cls, directory: str | os.PathLike, *, encoder: Any = None) -> "LinearEraser":
        """Read an eraser written by :meth:`save`.

        Parameters
        ----------
        directory : path
        encoder : Encoder, optional
            When given, its fingerprint must be the one the eraser was fitted on; otherwise a
            :class:`~probekit.errors.InvalidParameterError` names both fingerprints.

        Returns
        -------
        LinearEraser
            An instance of the class recorded in the file (``LinearEraser.load`` reads any;
            ``SentDebias.load`` insists on a Sent-debias file).
        """
        projection, config, arrays = read_projection_dir(directory)
        method = config.get("method") or {}
        name = method.get("name")
        target = LinearEraser._registry.get(name)
        if target is None or not issubclass(target, cls):
            raise InvalidParameterError(
                "directory", str(directory), f"a {cls.__name__} projection directory", f"it holds a {name!r} projection"
            )
        try:
            eraser = target(**(method.get("hyperparameters") or {}))
        except TypeError as exc:
            raise InvalidParameterError("directory", str(directory), f"hyperparameters that {name} accepts", str(exc)) from exc
        eraser._set_map(projection.matrix, projection.offset)
        missing = [a for a in target._state_arrays if a not in arrays]
        if missing:
            raise InvalidParameterError("directory", str(directory), f"a complete {name} file", f"missing arrays {missing}")
        for attribute in target._state_arrays:
            setattr(eraser, attribute, np.asarray(arrays[attribute]))
        for attribute in target._state_values:
            setattr(eraser, attribute, (method.get("attributes") or {}).get(attribute))
        eraser.base_model_ = config.get("base_model")
        eraser.fitting_ = config.get("fitting") or {}
        if encoder is not None:
            eraser._check_encoder(encoder, "encoder")
        return eraser

    def _check_encoder(self, encoder: Any, parameter: str) -> None:
        """The encoder must be the one the eraser was fitted on (when that is known) and of its size."""
        if int(encoder.hidden_size) != self.dimension_:
            raise InvalidParameterError(
                parameter, f"hidden size {encoder.hidden_size}", f"an encoder of hidden size {self.dimension_} (the eraser's dimension)"
            )
        base = self.base_model_
        if base is None:
            return
        expected = base.get("encoder_fingerprint") or base.get("fingerprint")
        if encoder.fingerprint != expected:
            raise InvalidParameterError(
                parameter, f"fingerprint {encoder.fingerprint}", f"the encoder this {type(self).__name__} was fitted on "
                f"(fingerprint {expected}, {base.get('name_or_path')!r})",
                "a projection fitted on one checkpoint does not apply to another",
            )

    # -- fitting from an encoder ---------------------------------------------------------------

    def _record_encoder(self, encoder: Any, fitting: dict[str, Any]) -> None:
        self.base_model_ = base_record(encoder)
        self.fitting_ = fitting


def apply_projection(encoder: Any, eraser: LinearEraser, *, name: str | None = None) -> Any:
    """A debiased encoder: ``encoder``'s model with ``eraser``'s map applied to every output.

    Returns a new :class:`probekit.Encoder` sharing the model (the user's encoder and model are
    not changed): word-in-context embeddings at every layer, sentence embeddings, the pooler
    output and what the masked-LM head reads all pass through :math:`x' = A x + b`, so both
    sides of every SEAT test, LPBS and the gender probe see the same projection. The map is a
    forward hook that exists only inside ``encoder.inference()``.

    Parameters
    ----------
    encoder : probekit.Encoder
    eraser : LinearEraser
        Fitted. When it records the encoder it was fitted on, ``encoder`` must be that one.
    name : str, optional
        ``name_or_path`` of the result (default: the encoder's name plus the method's).
    """
    if not isinstance(eraser, LinearEraser):
        raise InvalidParameterError("eraser", type(eraser).__name__, "a fitted SentDebias, INLP or LEACE")
    eraser._check_fitted()
    eraser._check_encoder(encoder, "encoder")
    label = name if name is not None else f"{encoder.name_or_path}+{type(eraser).__name__}"
    return encoder.with_output_projection(eraser.to_output_projection(), name=label)


# ============================================================================ Sent-debias


def _unit_rows(X: np.ndarray, parameter: str) -> np.ndarray:
    """Every row scaled to unit Euclidean norm; a zero row cannot be scaled and is an error."""
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    if np.any(norms == 0):
        row = int(np.flatnonzero(norms[:, 0] == 0)[0])
        raise InvalidParameterError(parameter, f"a zero vector in row {row}",
                                    "non-zero vectors (normalize=True scales each to unit length)")
    return X / norms


class SentDebias(LinearEraser):
    r"""Sent-debias (Liang et al. 2020): remove the top-k principal directions of counterfactual
    pair differences.

    For pairs :math:`(f_i, m_i)` (a sentence and its gender-swapped counterfactual), each first
    scaled to unit length (:math:`f_i \leftarrow f_i / \lVert f_i \rVert`, likewise :math:`m_i`), with
    :math:`\mu_i = (f_i + m_i)/2`, the bias subspace :math:`V \in \mathbb{R}^{k \times d}` holds
    the top-k principal directions (:class:`sklearn.decomposition.PCA`) of the 2n centred rows
    :math:`f_i - \mu_i,\; m_i - \mu_i`; the debiased representation is

    .. math:: h' = h - \sum_{j=1}^{k} \langle h, v_j \rangle v_j = (I - V^\top V) h.

    The unit scaling before the pair PCA is what Liang et al.'s code and the debiasing survey's
    public code (Meade et al. 2022) do; it keeps long vectors from dominating the directions.
    ``normalize=False`` fits on the raw vectors instead (probekit's earlier behaviour; the
    subspace then spans the raw pair differences exactly).

    Parameters
    ----------
    k : int, default 1
        Dimension of the bias subspace.
    normalize : bool, default True
        Scale every sentence vector to unit Euclidean norm before the pairs are centred (as the
        published code does). Each row (each layer's vector, for stacked layers) is scaled on its own.

    Attributes
    ----------
    subspace_ : ndarray of shape (k, d)
        Orthonormal rows :math:`v_j`.
    explained_variance_ratio_ : ndarray of shape (k,)
        Share of the centred pairs' variance along each direction.
    n_pairs_ : int
    matrix_, offset_
        :math:`I - V^\top V` and zero.
    """

    _state_arrays = ("subspace_", "explained_variance_ratio_")
    _state_values = ("n_pairs_",)

    def __init__(self, k: int = 1, normalize: bool = True):
        self.k = k
        self.normalize = normalize

    def fit(self, female: Any, male: Any) -> "SentDebias":
        """Fit on two aligned arrays: row i of each is one counterfactual pair.

        Arrays of shape (n, d), or (n, layers, d) to pool the pairs of several layers into one
        subspace. The result does not depend on which member of a pair is in which array.
        """
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 1:
            raise InvalidParameterError("k", self.k, "a positive integer")
        F = _as_matrix(female, "female")
        M = _as_matrix(male, "male")
        if F.shape != M.shape:
            raise InvalidParameterError("male", M.shape, f"an array of the shape of female {F.shape} (aligned pairs)")
        n, d = F.shape
        if self.k > min(2 * n, d):
            raise InvalidParameterError("k", self.k, f"at most min(2 * n_pairs, d) = {min(2 * n, d)}")
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise InvalidParameterError("normalize", self.normalize, "True or False")
        if self.normalize:
            F, M = _unit_rows(F, "female"), _unit_rows(M, "male")
        from sklearn.decomposition import PCA

        mean = (F + M) / 2
        centred = np.vstack([F - mean, M - mean])
        pca = PCA(n_components=int(self.k), svd_solver="full").fit(centred)
        self.subspace_ = pca.components_.astype(np.float64)
        self.explained_variance_ratio_ = pca.explained_variance_ratio_.astype(np.float64)
        self.n_pairs_ = int(n)
        self._set_map(np.eye(d) - self.subspace_.T @ self.subspace_)
        self._reset_record({"n_pairs": int(n)})
        return self

    def fit_transform(self, female: Any, male: Any) -> tuple[np.ndarray, np.ndarray]:  # type: ignore[override]
        """Fit, then return both arrays transformed."""
        self.fit(female, male)
        return self.transform(female), self.transform(male)

    def fit_from_encoder(
        self,
        encoder: Any,
        corpus: Any = None,
        *,
        layer: int | Sequence[int] = -1,
        max_sentences: int | None = 5000,
        random_state: int | np.random.Generator | None = 0,
        batch_tokens: int | None = None,
        cache_dir: str | os.PathLike | None = None,
        progress: bool = True,
    ) -> "SentDebias":
        """Fit on sentence embeddings of corpus sentences holding gender words and their
        gender-swapped counterfactuals (Liang et al. 2020, §3).

        Sentences holding a word of the attribute pairs (:func:`wordlists.load_attribute_pairs`)
        are selected in one pass, at most ``max_sentences`` of them drawn with ``random_state``;
        each is swapped with :func:`debias.swap_texts` (pairs whose swap leaves the text unchanged
        are dropped) and both are embedded with :func:`probekit.embed_sentences` (mean pooling over
        the tokens, special tokens excluded, at ``layer``; a list of layers pools the pairs of
        every layer into one subspace).

        Parameters
        ----------
        encoder : probekit.Encoder
        corpus : Corpus or sequence of str, optional
            Default: the built-in template corpus (:func:`probekit.template_corpus`).
        layer : int or sequence of int, default -1
        max_sentences : int or None, default 5000
        random_state : int, numpy Generator or None
            Seed of the sentence sample.
        batch_tokens, cache_dir, progress
            Passed to :func:`probekit.embed_sentences`.
        """
        if max_sentences is not None and (
            isinstance(max_sentences, bool) or not isinstance(max_sentences, (int, np.integer)) or max_sentences < 1
        ):
            raise InvalidParameterError("max_sentences", max_sentences, "a positive integer or None")
        started = time.perf_counter()
        corpus = template_corpus() if corpus is None else corpus
        pairs = wordlists.load_attribute_pairs()
        gender_words = list(dict.fromkeys(list(pairs.female) + list(pairs.male)))
        selection = select_sentences(
            corpus, gender_words, case_sensitive=not encoder.do_lower_case, on_missing="ignore"
        )
        originals = list(selection.sentences)
        rng = np.random.default_rng(random_state)
        if max_sentences is not None and len(originals) > max_sentences:
            keep = np.sort(rng.choice(len(originals), size=int(max_sentences), replace=False))
            originals = [originals[i] for i in keep]
        swapped = list(swap_texts(originals))
        kept = [(o, s) for o, s in zip(originals, swapped) if s != o]
        if len(kept) < 1:
            raise InvalidParameterError(
                "corpus", getattr(corpus, "name", "sentences"), "a corpus with sentences holding gender words",
                f"{len(originals)} sentences held a listed gender word, none changed when swapped",
            )
        logger.info("Sent-debias: %d counterfactual sentence pairs (of %d selected)", len(kept), len(selection.sentences))
        texts = [o for o, _ in kept] + [s for _, s in kept]
        embeddings = embed_sentences(
            encoder, texts, pooling="mean", layer=layer, batch_tokens=batch_tokens, cache_dir=cache_dir, progress=progress
        )
        first, second = embeddings[: len(kept)], embeddings[len(kept):]
        self.fit(first, second)
        self._record_encoder(encoder, {
            "data": "sentence pairs: corpus sentences holding gender words and their gender-swapped versions",
            "corpus": getattr(corpus, "name", "sentences"),
            "corpus_digest": getattr(corpus, "digest", None),
            "n_sentences_with_gender_words": len(selection.sentences),
            "n_pairs": len(kept),
            "max_sentences": max_sentences,
            "random_state": random_state if not isinstance(random_state, np.random.Generator) else "Generator",
            "layer": list(layer) if not isinstance(layer, (int, np.integer)) else int(layer),
            "pooling": "mean",
            "gender_words": "wordlists.load_attribute_pairs()",
            "swap": describe_swap(),
            "seconds": round(time.perf_counter() - started, 1),
        })
        return self


# ================================================================================= shared data


def _fit_gender_eraser_from_encoder(
    eraser: LinearEraser,
    encoder: Any,
    corpus: Any,
    *,
    layer: int,
    max_per_word: int | None,
    single_piece_only: bool,
    random_state: int,
    cache_dir: str | os.PathLike | None,
    progress: bool,
    use_groups: bool,
) -> None:
    """Fit a classifier-based eraser on the attribute-word occurrences the probe suite uses."""
    if isinstance(random_state, bool) or not isinstance(random_state, (int, np.integer)):
        raise InvalidParameterError("random_state", random_state, "an integer seed")
    started = time.perf_counter()
    corpus = template_corpus() if corpus is None else corpus
    occurrences, female, male = attribute_embeddings(
        encoder, corpus, layer=layer, max_per_word=max_per_word, single_piece_only=single_piece_only,
        random_state=int(random_state), cache_dir=cache_dir, progress=progress,
    )
    labels = np.isin(occurrences.words, female).astype(np.int64)  # 1 = female attribute word
    if len(np.unique(labels)) < 2:
        raise InvalidParameterError(
            "corpus", getattr(corpus, "name", "sentences"), "a corpus with sentences for female and male attribute words"
        )
    if use_groups:
        eraser.fit(occurrences.embeddings, labels, groups=occurrences.words)  # type: ignore[call-arg]
    else:
        eraser.fit(occurrences.embeddings, labels)
    eraser._record_encoder(encoder, {
        "data": "contextual embeddings of the paper's female/male attribute words (label 1 = female)",
        "corpus": getattr(corpus, "name", "sentences"),
        "corpus_digest": getattr(corpus, "digest", None),
        "layer": int(layer),
        "pooling": "mean over wordpieces",
        "max_per_word": max_per_word,
        "single_piece_only": single_piece_only,
        "random_state": int(random_state),
        "n_occurrences": int(len(labels)),
        "n_female": int(labels.sum()),
        "n_male": int(len(labels) - labels.sum()),
        "female_words": sorted(set(occurrences.words[labels == 1].tolist())),
        "male_words": sorted(set(occurrences.words[labels == 0].tolist())),
        "seconds": round(time.perf_counter() - started, 1),
    })


# ======================================================================================= INLP


def _orthonormal_rows(rows: np.ndarray, rtol: float = 1e-10) -> np.ndarray:
    """An orthonormal basis (as rows) of the span of ``rows``, from the SVD."""
    if rows.size == 0:
        return rows.reshape(0, rows.shape[-1])
    _, s, vt = np.linalg.svd(rows, full_matrices=False)
    return vt[s > rtol * max(s.max(), 1e-300)]


class INLP(LinearEraser):
    r"""Iterative nullspace projection (Ravfogel et al. 2020).

    Repeatedly trains a linear classifier of the concept on the current projection of the data,
    and projects the data onto the nullspace of every classifier so far:

    .. math:: P = I - B^\top B,

    where the rows of :math:`B` are an orthonormal basis (SVD) of the span of all weight rows
    :math:`W_1, \dots, W_t`. Stops when the classifier's accuracy on a held-out split is at chance
    (the majority-class rate of that split plus ``chance_tolerance``) or after ``n_iterations``.

    Parameters
    ----------
    n_iterations : int, default 35
        Maximum number of classifiers (Ravfogel et al. use 35 for word embeddings).
    classifier : {"logistic", "linear_svm"} or scikit-learn estimator, default "logistic"
        :class:`~sklearn.linear_model.LogisticRegression` or :class:`~sklearn.svm.LinearSVC`
        with ``C``; an estimator with ``coef_`` is cloned each iteration.
    C : float, default 1.0
        Inverse regularization strength of the built-in classifiers.
    test_size : float, default 0.3
        Held-out share (of groups, when ``groups`` are given to :meth:`fit`).
    chance_tolerance : float, default 0.01
    random_state : int, numpy Generator or None
        Seeds the split and the classifiers.

    Attributes
    ----------
    projection_ : ndarray of shape (d, d)
        :math:`P` (symmetric, idempotent); equal to ``matrix_``; ``offset_`` is zero.
    directions_ : ndarray of shape (r, d)
        :math:`B`: orthonormal basis of the removed space.
    accuracies_ : list of float
        Held-out accuracy of the classifier of each iteration (the last one at chance when
        ``converged_``; its direction is not removed).
    chance_ : float
        Majority-class rate of the held-out split.
    converged_ : bool
    n_iterations_ : int
        Classifiers trained.
    """

    _state_arrays = ("directions_",)
    _state_values = ("accuracies_", "chance_", "converged_", "n_iterations_", "classes_")

    def __init__(
        self,
        n_iterations: int = 35,
        classifier: Any = "logistic",
        C: float = 1.0,
        test_size: float = 0.3,
        chance_tolerance: float = 0.01,
        random_state: int | None = None,
    ):
        self.n_iterations = n_iterations
        self.classifier = classifier
        self.C = C
        self.test_size = test_size
        self.chance_tolerance = chance_tolerance
        self.random_state = random_state

    @property
    def projection_(self) -> np.ndarray:
        """The learned projection matrix (``matrix_``; kept for INLP's published attribute name)."""
        self._check_fitted()
        return self.matrix_

    def _check_params(self) -> None:
        if isinstance(self.n_iterations, bool) or not isinstance(self.n_iterations, (int, np.integer)) or self.n_iterations < 1:
            raise InvalidParameterError("n_iterations", self.n_iterations, "a positive integer")
        if isinstance(self.classifier, str):
            if self.classifier not in CLASSIFIERS:
                raise InvalidParameterError("classifier", self.classifier, CLASSIFIERS + ("a scikit-learn linear classifier",))
        elif not (hasattr(self.classifier, "fit") and hasattr(self.classifier, "get_params")):
            raise InvalidParameterError("classifier", type(self.classifier).__name__, CLASSIFIERS + ("a scikit-learn linear classifier",))
        if not isinstance(self.C, (int, float, np.floating)) or isinstance(self.C, bool) or not self.C > 0:
            raise InvalidParameterError("C", self.C, "a positive number")
        if not isinstance(self.test_size, (float, np.floating)) or not 0 < self.test_size < 1:
            raise InvalidParameterError("test_size", self.test_size, "a float in (0, 1)")
        if not isinstance(self.chance_tolerance, (int, float, np.floating)) or not 0 <= self.chance_tolerance < 1:
            raise InvalidParameterError("chance_tolerance", self.chance_tolerance, "a number in [0, 1)")

    def _new_classifier(self, seed: int) -> Any:
        from sklearn.base import clone

        if not isinstance(self.classifier, str):
            model = clone(self.classifier)
            if "random_state" in model.get_params():
                model.set_params(random_state=seed)
            return model
        if self.classifier == "logistic":
            from sklearn.linear_model import LogisticRegression

            return LogisticRegression(C=self.C, max_iter=2000, random_state=seed)
        from sklearn.svm import LinearSVC

        return LinearSVC(C=self.C, max_iter=10000, random_state=seed)

    def _split(self, X: np.ndarray, y: np.ndarray, groups: np.ndarray | None, seed: int) -> tuple[np.ndarray, np.ndarray]:
        from sklearn.model_selection import GroupShuffleSplit, StratifiedShuffleSplit

        if groups is not None:
            groups = np.asarray(groups)
            if groups.shape != y.shape:
                raise InvalidParameterError("groups", groups.shape, f"a 1-D array of {len(y)} group labels")
            if len(np.unique(groups)) < 2:
                raise InvalidParameterError("groups", np.unique(groups).tolist(), "at least two groups")
            splitter = GroupShuffleSplit(n_splits=1, test_size=self.test_size, random_state=seed)
            train, test = next(splitter.split(X, y, groups))
        else:
            splitter = StratifiedShuffleSplit(n_splits=1, test_size=self.test_size, random_state=seed)
            try:
                train, test = next(splitter.split(X, y))
            except ValueError as exc:
                raise InvalidParameterError("y", "class counts", "at least 2 rows per class for a held-out split", str(exc)) from exc
        if len(np.unique(y[train])) < 2 or len(test) == 0:
            raise InvalidParameterError(
                "groups" if groups is not None else "y", "split", "data whose training split holds every class",
                "too few groups or rows; lower test_size or add data",
            )
        return train, test

    def fit(self, X: Any, y: Any, groups: Any = None) -> "INLP":
        """Fit on rows ``X`` (n, d) with concept labels ``y`` (n,).

        Parameters
        ----------
        X : array of shape (n, d)
        y : array of shape (n,)
            Two or more classes.
        groups : array of shape (n,), optional
            Group of each row (e.g. the word of a word-in-context embedding): the held-out split
            then holds whole groups, so chance is judged on unseen words.
        """
        self._check_params()
        X = _as_matrix(X, "X")
        y = _check_labels(y, len(X))
        seeds = np.random.SeedSequence(_seed_of(self.random_state)).generate_state(self.n_iterations + 1)
        train, test = self._split(X, y, groups, int(seeds[0]))
        d = X.shape[1]
        _, counts = np.unique(y[test], return_counts=True)
        self.chance_ = float(counts.max() / len(test))
        self.classes_ = np.unique(y).tolist()
        directions = np.zeros((0, d))
        projection = np.eye(d)
        self.accuracies_ = []
        self.converged_ = False
        for iteration in range(int(self.n_iterations)):
            model = self._new_classifier(int(seeds[iteration + 1]))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", category=UserWarning)  # sklearn ConvergenceWarning is a UserWarning
                model.fit(X[train] @ projection, y[train])
            accuracy = float(model.score(X[test] @ projection, y[test]))
            self.accuracies_.append(accuracy)
            logger.info("INLP iteration %d: held-out accuracy %.4f (chance %.4f)", iteration + 1, accuracy, self.chance_)
            if accuracy <= self.chance_ + self.chance_tolerance:
                self.converged_ = True
                break
            weights = np.atleast_2d(np.asarray(model.coef_, dtype=np.float64))
            directions = _orthonormal_rows(np.vstack([directions, weights]))
            projection = np.eye(d) - directions.T @ directions
        self.n_iterations_ = len(self.accuracies_)
        if not self.converged_:
            message = (
                f"INLP stopped after n_iterations={self.n_iterations} with held-out accuracy {self.accuracies_[-1]:.3f} "
                f"above chance {self.chance_:.3f} + {self.chance_tolerance}; raise n_iterations to remove more"
            )
            logger.warning(message)
            warnings.warn(message, stacklevel=2)
        self.directions_ = directions
        self._set_map(projection)
        self._reset_record({"n_rows": int(len(X))})
        return self

    def fit_transform(self, X: Any, y: Any = None, groups: Any = None) -> np.ndarray:  # type: ignore[override]
        """``fit(X, y, groups=groups).transform(X)``: the rows of ``X`` with the learned projection applied."""
        return self.fit(X, y, groups=groups).transform(X)

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
    ) -> "INLP":
        """Fit on contextual embeddings of the paper's female and male attribute words in corpus
        sentences (label: gender), selected as ``probekit probe`` selects them with the same
        ``random_state``; the held-out split is by word. ``random_state`` seeds the sentence
        selection; the eraser's own ``random_state`` its split and classifiers.
        """
        _fit_gender_eraser_from_encoder(
            self, encoder, corpus, layer=layer, max_per_word=max_per_word, single_piece_only=single_piece_only,
            random_state=random_state, cache_dir=cache_dir, progress=progress, use_groups=True,
        )
        return self


# ====================================================================================== LEACE


def _concept_argument(y: Any, z: Any) -> Any:
    """LEACE's concept from ``y`` (scikit-learn's name) or ``z`` (the paper's), exactly one of them."""
    if y is not None and z is not None:
        raise InvalidParameterError("z", "given together with y", "the concept as y or as z, not both")
    if y is None and z is None:
        raise InvalidParameterError("y", None, "the concept: labels (n,) or an (n, k) array")
    return y if y is not None else z


class LEACE(LinearEraser):
    r"""Least-squares concept erasure (Belrose et al. 2023), closed form.

    With :math:`\mu = E[x]`, :math:`\Sigma_{xx}` the covariance of :math:`x` and
    :math:`\Sigma_{xz}` its cross-covariance with the (one-hot, or 0/1 for two classes) concept
    :math:`z`, the whitening :math:`W = (\Sigma_{xx}^{1/2})^{+}` and :math:`P_{W\Sigma_{xz}}` the
    orthogonal projection onto the column space of :math:`W \Sigma_{xz}`:

    .. math:: x' = x - W^{+} P_{W\Sigma_{xz}} W (x - \mu).

    After erasure no linear classifier predicts :math:`z` from :math:`x'` better than a constant
    on the fitting distribution (the class-conditional means coincide), with the least change in
    mean squared distance. Covariances use the unbiased (n - 1) estimate, without shrinkage.

    Parameters
    ----------
    tol : float, default 0.01
        Singular values of :math:`W \Sigma_{xz}` at or below this are treated as zero (as in the
        authors' ``concept-erasure`` package).

    Attributes
    ----------
    mean_ : ndarray of shape (d,)
    proj_left_, proj_right_ : ndarrays of shape (d, r), (r, d)
        :math:`W^{+} U` and :math:`U^\top W` with :math:`U` an orthonormal basis of the column
        space of :math:`W\Sigma_{xz}`; the oblique projection removed is their product.
    classes_ : list
    matrix_, offset_
        :math:`I - P` and :math:`P \mu` with :math:`P = W^{+} P_{W\Sigma_{xz}} W`.
    """

    _state_arrays = ("mean_", "proj_left_", "proj_right_")
    _state_values = ("classes_", "n_samples_", "rank_")

    def __init__(self, tol: float = 0.01):
        self.tol = tol

    def fit(self, X: Any, y: Any = None, *, z: Any = None) -> "LEACE":
        """Fit on rows ``X`` (n, d) and the concept :math:`z` = ``y``: labels (n,) or a one-hot/continuous (n, k) array.

        Parameters
        ----------
        X : array of shape (n, d)
        y : array of shape (n,) or (n, k)
            The concept (the paper's :math:`z`; named ``y`` by scikit-learn's convention).
        z : array, optional
            The same concept under the paper's name (the keyword of earlier releases); give ``y``
            or ``z``, not both.
        """
        y = _concept_argument(y, z)
        if not isinstance(self.tol, (int, float, np.floating)) or isinstance(self.tol, bool) or not self.tol > 0:
            raise InvalidParameterError("tol", self.tol, "a positive number")
        X = _as_matrix(X, "X")
        n, d = X.shape
        if n < 2:
            raise InvalidParameterError("X", X.shape, "at least two rows", f"n_samples={n}")
        Z = np.asarray(y)
        if Z.ndim == 1:
            labels = _check_labels(Z, n, "y")
            classes = np.unique(labels)
            self.classes_ = classes.tolist()
            Z = (labels == classes[1]).astype(np.float64)[:, None] if len(classes) == 2 else (labels[:, None] == classes[None, :]).astype(np.float64)
        elif Z.ndim == 2 and Z.shape[0] == n:
            Z = Z.astype(np.float64)
            self.classes_ = None
        else:
            raise InvalidParameterError("y", getattr(Z, "shape", None), f"labels of shape ({n},) or an array of shape ({n}, k)")
        mean = X.mean(axis=0)
        centred = X - mean
        sigma_xx = centred.T @ centred / (n - 1)
        sigma_xz = centred.T @ (Z - Z.mean(axis=0)) / (n - 1)
        eigenvalues, eigenvectors = np.linalg.eigh((sigma_xx + sigma_xx.T) / 2)
        # Pseudo-inverse square root with torch.linalg.pinv's cutoff (eigenvalues below it are 0).
        keep = eigenvalues > eigenvalues[-1] * d * np.finfo(np.float64).eps
        eigenvalues = np.clip(eigenvalues, 0.0, None)
        root = np.where(keep, np.sqrt(eigenvalues), 0.0)
        inverse_root = np.where(keep, 1.0 / np.where(keep, root, 1.0), 0.0)
        whiten = (eigenvectors * inverse_root) @ eigenvectors.T
        unwhiten = (eigenvectors * root) @ eigenvectors.T
        u, s, _ = np.linalg.svd(whiten @ sigma_xz, full_matrices=False)
        u = u[:, s > self.tol]
        self.mean_ = mean
        self.proj_left_ = unwhiten @ u
        self.proj_right_ = u.T @ whiten
        self.n_samples_ = int(n)
        self.rank_ = int(u.shape[1])
        if self.rank_ == 0:
            logger.warning("LEACE: the concept has no linear signal above tol=%s; the eraser is the identity", self.tol)
        oblique = self.proj_left_ @ self.proj_right_
        self._set_map(np.eye(d) - oblique, oblique @ mean)
        self._reset_record({"n_rows": int(n)})
        return self

    def fit_transform(self, X: Any, y: Any = None, *, z: Any = None) -> np.ndarray:  # type: ignore[override]
        """Fit on ``X`` and the concept ``y`` (or ``z``), then erase it from ``X``."""
        return self.fit(X, y, z=z).transform(X)

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
    ) -> "LEACE":
        """Fit on contextual embeddings of the paper's female and male attribute words in corpus
        sentences (label: gender), selected as ``probekit probe`` selects them with the same
        ``random_state``.
        """
        _fit_gender_eraser_from_encoder(
            self, encoder, corpus, layer=layer, max_per_word=max_per_word, single_piece_only=single_piece_only,
            random_state=random_state, cache_dir=cache_dir, progress=progress, use_groups=False,
        )
        return self
