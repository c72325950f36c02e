"""Sent-debias (Liang et al. 2020): remove the top-k principal directions of counterfactual pairs.

References
----------
Liang, Li, Zheng, Lim, Salakhutdinov, Morency (2020). Towards debiasing sentence representations. ACL.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any, Sequence

import numpy as np

import wordlists
from debias._group_swap import swap_to_group
from debias._projection_base import LinearEraser, _as_matrix
from debias._swap import describe_swap, swap_texts
from probekit.embedding import embed_sentences
from probekit.errors import InvalidParameterError
from probekit.text import attribute_corpus, select_sentences, template_corpus
from probekit.utils import Interval

logger = logging.getLogger(__name__)


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
    alpha : float in [0, 1], default 1.0
        Strength: :math:`h - \alpha V^\top V h` (0: identity; see :class:`LinearEraser`).

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

    _parameter_constraints = {
        "k": [Interval(int, 1, None)],
        "normalize": ["boolean"],
        # fit_from_encoder
        "layer": [Interval(int, None, None), list],
        "max_sentences": [Interval(int, 1, None), None],
        "random_state": ["random_state"],
        "batch_tokens": [Interval(int, 1, None), None],
        "attribute": [str, wordlists.Attribute],
    }
    _state_arrays = ("subspace_", "explained_variance_ratio_")
    _state_values = ("n_pairs_",)

    def __init__(self, k: int = 1, normalize: bool = True, alpha: float = 1.0):
        self.k = k
        self.normalize = normalize
        self.alpha = alpha

    def fit(self, female: Any, male: Any) -> "SentDebias":
        """Fit on two aligned arrays: row i of each is one counterfactual pair.

        Arrays of shape (n, d), or (n, layers, d) to pool the pairs of several layers into one
        subspace. The result does not depend on which member of a pair is in which array.
        """
        return self.fit_groups([female, male], names=("female", "male"))

    def fit_groups(self, versions: Sequence[Any], *, names: Sequence[str] | None = None) -> "SentDebias":
        r"""Fit on k >= 2 aligned arrays: row i of each is one version of sentence i (its terms of each
        group in turn), the k-group definitional sets of Liang et al. (2020, §3) as the debiasing survey's
        code builds them for race and religion (Meade et al. 2022).

        With :math:`\mu_i = \frac{1}{k}\sum_g x_{i,g}` the subspace holds the top principal directions of
        the :math:`kn` rows :math:`x_{i,g} - \mu_i`; for k = 2 this is :meth:`fit`.

        Parameters
        ----------
        versions : sequence of k arrays of shape (n, d) or (n, layers, d)
        names : sequence of str, optional
            The groups (named in errors).
        """
        if isinstance(self.k, bool) or not isinstance(self.k, (int, np.integer)) or self.k < 1:
            raise InvalidParameterError("k", self.k, "a positive integer")
        names = list(names) if names is not None else [f"versions[{g}]" for g in range(len(versions))]
        if len(versions) < 2 or len(names) != len(versions):
            raise InvalidParameterError("versions", f"{len(versions)} array(s)", "at least two aligned arrays (one per group)")
        arrays = [_as_matrix(v, name) for v, name in zip(versions, names)]
        for array, name in zip(arrays[1:], names[1:]):
            if array.shape != arrays[0].shape:
                raise InvalidParameterError(name, array.shape, f"an array of the shape of {names[0]} {arrays[0].shape} (aligned)")
        n, d = arrays[0].shape
        if self.k > min(len(arrays) * n, d):
            raise InvalidParameterError("k", self.k, f"at most min(n_groups * n_pairs, d) = {min(len(arrays) * n, d)}")
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise InvalidParameterError("normalize", self.normalize, "True or False")
        if self.normalize:
            arrays = [_unit_rows(a, name) for a, name in zip(arrays, names)]
        from sklearn.decomposition import PCA

        mean = sum(arrays) / len(arrays)
        centred = np.vstack([a - mean for a in arrays])
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
        attribute: str | wordlists.Attribute = "gender",
    ) -> "SentDebias":
        """Fit on sentence embeddings of corpus sentences holding gender words and their
        gender-swapped counterfactuals (Liang et al. 2020, §3).

        With another ``attribute`` (``"race"``, ``"religion"``, a registered one): corpus sentences
        holding its group terms (default corpus: :func:`probekit.text.attribute_corpus`), each turned
        into one version per group (:func:`debias.swap_to_group`; a sentence is kept when its k
        versions all differ, i.e. every term has a counterpart in every group), fitted with
        :meth:`fit_groups` -- the survey's k-group definitional sets (Meade et al. 2022).

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
        attribute : str or wordlists.Attribute
            Default ``"gender"``.
        """
        if max_sentences is not None and (
            isinstance(max_sentences, bool) or not isinstance(max_sentences, (int, np.integer)) or max_sentences < 1
        ):
            raise InvalidParameterError("max_sentences", max_sentences, "a positive integer or None")
        if wordlists.get_attribute(attribute).name != "gender":
            return self._fit_groups_from_encoder(encoder, corpus, wordlists.get_attribute(attribute), layer=layer,
                                                 max_sentences=max_sentences, random_state=random_state,
                                                 batch_tokens=batch_tokens, cache_dir=cache_dir, progress=progress)
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

    def _fit_groups_from_encoder(self, encoder: Any, corpus: Any, attribute: wordlists.Attribute, *, layer: Any,
                                 max_sentences: int | None, random_state: Any, batch_tokens: int | None,
                                 cache_dir: Any, progress: bool) -> "SentDebias":
        """:meth:`fit_from_encoder` for a k-group attribute: one version of each sentence per group."""
        started = time.perf_counter()
        corpus = attribute_corpus(attribute) if corpus is None else corpus
        selection = select_sentences(corpus, list(attribute.words), case_sensitive=not encoder.do_lower_case,
                                     on_missing="ignore")
        originals = list(selection.sentences)
        rng = np.random.default_rng(random_state)
        if max_sentences is not None and len(originals) > max_sentences:
            originals = [originals[i] for i in np.sort(rng.choice(len(originals), size=int(max_sentences), replace=False))]
        sets = [[swap_to_group(text, attribute, g) for g in attribute.groups] for text in originals]
        sets = [versions for versions in sets if len(set(versions)) == attribute.k]
        if not sets:
            raise InvalidParameterError(
                "corpus", getattr(corpus, "name", "sentences"), f"a corpus with sentences holding {attribute.name} terms "
                "that have a counterpart in every group", f"{len(originals)} sentences held a listed term")
        logger.info("Sent-debias (%s): %d sentences in %d versions", attribute.name, len(sets), attribute.k)
        texts = [versions[g] for g in range(attribute.k) for versions in sets]
        embeddings = embed_sentences(encoder, texts, pooling="mean", layer=layer, batch_tokens=batch_tokens,
                                     cache_dir=cache_dir, progress=progress)
        n = len(sets)
        self.fit_groups([embeddings[g * n:(g + 1) * n] for g in range(attribute.k)], names=attribute.groups)
        self._record_encoder(encoder, {
            "data": f"sentence sets: corpus sentences holding {attribute.name} terms in one version per group",
            "attribute": attribute.name, "attribute_digest": attribute.digest, "groups": list(attribute.groups),
            "corpus": getattr(corpus, "name", "sentences"), "corpus_digest": getattr(corpus, "digest", None),
            "n_sentences_with_attribute_terms": len(selection.sentences), "n_pairs": n, "max_sentences": max_sentences,
            "random_state": random_state if not isinstance(random_state, np.random.Generator) else "Generator",
            "layer": list(layer) if not isinstance(layer, (int, np.integer)) else int(layer), "pooling": "mean",
            "swap": "debias.swap_to_group", "seconds": round(time.perf_counter() - started, 1),
        })
        return self
