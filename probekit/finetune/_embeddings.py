"""Shared frozen embeddings: every text a frozen fine-tuning run needs, embedded once.

The frozen path (``FinetuneConfig(frozen=True)``) trains a linear layer on fixed sentence
vectors. Its runs (:func:`probekit.finetune.run_finetune`, :func:`probekit.finetune.run_fold`)
and the study's fine-tuning units all embed through :func:`frozen_embedder`: the texts of every
fold and setting are listed up front (:func:`frozen_text_groups`), embedded once by the extraction
engine (cached on disk with ``cache_dir``), and later calls look rows up.
"""

from __future__ import annotations

import os
from typing import Any, Callable, Sequence

import numpy as np

from probekit.embedding import EmbeddingCache, cache_key, extraction_meta, normalize_layers
from probekit.finetune._batches import truncate_texts
from probekit.finetune._counterfactual import apply_setting, counterfactual_dataset, renamed_dataset
from probekit.finetune._groups import group_counterfactual_dataset, group_setting
from probekit.finetune._train import default_embedder

__all__ = ["frozen_embedder", "frozen_text_groups", "distinct_texts", "uncached_groups"]


def frozen_text_groups(pool: Any, test_data: Any, settings: str | Sequence[str], attribute: str = "gender") -> list[list[str]]:
    """Every text that the folds of runs under ``settings`` over ``pool`` embed, in groups.

    The groups: the pool (training and, in cross-validation, test texts), its counterfactuals
    (test counterfactuals; the swapped setting's added training data) and same-gender renamed
    controls (CF's noise floor), a fixed ``test_data`` with its counterfactuals, controls and
    scrubbed texts (leakage's control), and the scrubbed pool (cross-validation: the scrubbed test
    texts of leakage's control; scrubbed setting: its training data). Each transform is computed once
    for the whole pool; the groups of one pool are the same in every setting that needs them.

    Parameters
    ----------
    pool : datasets.Dataset
        The data folds are drawn from (or the training set of a fixed split).
    test_data : datasets.Dataset or None
        A fixed test set, or ``None`` for cross-validation.
    settings : str or sequence of str
        One setting, or every setting of a study.
    attribute : str
        ``"gender"``, or an attribute of k groups (:mod:`probekit.finetune._groups`): then the groups are
        the pool, its counterfactuals to every other group and its scrubbed texts (and a fixed test
        set's texts, counterfactuals and scrubbed texts).
    """
    settings = [settings] if isinstance(settings, str) else list(settings)
    if attribute != "gender":
        return _group_text_groups(pool, test_data, attribute)
    groups = [list(pool["text"])]
    if test_data is None or "swapped" in settings:
        groups.append(list(counterfactual_dataset(pool)["text"]))
    if test_data is None:
        groups.append(list(renamed_dataset(pool)["text"]))
    else:
        groups += [list(test_data["text"]), list(counterfactual_dataset(test_data)["text"]),
                   list(renamed_dataset(test_data)["text"]), list(apply_setting(test_data, "scrubbed")["text"])]
    if test_data is None or "scrubbed" in settings:
        groups.append(list(apply_setting(pool, "scrubbed")["text"]))
    return groups


def _group_text_groups(pool: Any, test_data: Any, attribute: str) -> list[list[str]]:
    groups = []
    for data in (pool, test_data) if test_data is not None else (pool,):
        groups += [list(data["text"]), list(group_counterfactual_dataset(data, attribute)["text"]),
                   list(group_setting(data, "scrubbed", attribute)["text"])]
    return groups


def distinct_texts(groups: Sequence[Sequence[str]]) -> list[str]:
    """The texts of ``groups`` without repeats, in first-seen order."""
    return list(dict.fromkeys(t for group in groups for t in group))


def frozen_embedder(encoder: Any, config: Any, groups: Sequence[Sequence[str]], *, progress: bool = True,
                    cache_dir: str | os.PathLike | None = None) -> Callable[[Sequence[str]], np.ndarray]:
    """``texts -> sentence vectors`` from one embedding of every group of texts.

    Each group is embedded by :func:`probekit.finetune.default_embedder` in one call (with
    ``cache_dir``, a cache entry of its own, so runs of other settings or folds reuse it); a text
    asked for later that no group held is embedded then (not expected).

    Parameters
    ----------
    encoder : probekit.Encoder
    config : FinetuneConfig
        ``max_length`` and ``pooling`` of the embeddings.
    groups : sequence of sequences of str
        E.g. :func:`frozen_text_groups`.
    progress : bool
    cache_dir : path, optional
        The extraction engine's on-disk cache.
    """
    embedder = default_embedder(encoder, config, cache_dir=cache_dir, progress=progress)
    row: dict[str, int] = {}
    parts = []
    for group in groups:
        group = list(group)
        if not group:
            continue
        vectors = embedder(group)
        keep = []
        for i, text in enumerate(group):
            if text not in row:
                row[text] = sum(len(p) for p in parts) + len(keep)
                keep.append(i)
        parts.append(vectors[keep])
    vectors = np.concatenate(parts) if parts else np.zeros((0, encoder.hidden_size), dtype=np.float32)
    fallback = default_embedder(encoder, config, progress=False)

    def embed(batch: Sequence[str]) -> np.ndarray:
        nonlocal vectors
        missing = [t for t in dict.fromkeys(batch) if t not in row]
        if missing:  # not expected: every text of every setting was embedded up front
            extra = fallback(missing)
            for t in missing:
                row[t] = len(row)
            vectors = np.concatenate([vectors, extra])
        return vectors[[row[t] for t in batch]]

    return embed


def uncached_groups(encoder: Any, config: Any, groups: Sequence[Sequence[str]],
                    cache_dir: str | os.PathLike | None) -> list[list[str]]:
    """The groups whose embeddings are not in the extraction engine's cache yet (for estimates)."""
    if cache_dir is None:
        return [list(g) for g in groups]
    cache = EmbeddingCache(cache_dir)
    layers, _ = normalize_layers(-1, encoder.num_layers)
    out = []
    for group in groups:
        cut = truncate_texts(encoder.tokenizer, list(group), config.max_length)
        key = cache_key(kind="sentences", layers=layers, pooling=config.pooling, **extraction_meta(encoder, cut))
        if not cache.path_for(key).is_file():
            out.append(list(group))
    return out
