"""Shared work: what several units need, built once under ``DIR/shared/`` and reused.

``shared/debiased/<label>-<method>-<hash>/``
    A debiased encoder the study builds with :func:`debias.build_debiased`: a projection
    directory (Sent-debias, INLP, LEACE; what ``probekit debias sent-debias|inlp|leace`` writes)
    or a checkpoint with ``debias.json`` (CDA, Context-debias; what ``probekit debias
    cda|context-debias`` writes). Both load with :func:`probekit.load_encoder`.
``shared/embeddings/``
    The embedding cache (verified npz entries keyed by the model fingerprint and the texts): the
    intrinsic suite's word embeddings, which the INLP and LEACE fits of the same encoder reuse, and
    the frozen fine-tuning path's sentence embeddings of a dataset (every text of every setting,
    embedded once per encoder and dataset by :func:`probekit.finetune.frozen_embedder`).
``shared/work/``
    Training checkpoints of a debiased encoder being built; an interrupted build resumes from them.
``shared/locks/``
    One lock file per piece of shared work (``fcntl.flock``): of several processes that need it at
    once (shards on one file system), one builds it and the others wait, then load it. A process
    killed while holding a lock releases it (the kernel drops the lock with the process).

Each piece is written atomically (a temporary name beside it, then one rename), so a piece that
exists is complete; a build killed half-way leaves only temporary names, and the next process to
need it builds it again.
"""

from __future__ import annotations

import contextlib
import logging
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from debias import build_debiased, get_method, is_debiased_dir
from probekit.finetune import datasets_bars_off, distinct_texts, frozen_embedder, frozen_text_groups
from probekit.study._attribute import study_attribute
from probekit.study._config import StudyConfig
from probekit.study._layout import StudyPaths
from probekit.study._units import canonical_hash, debiased_key
from probekit.utils import process_count_and_rank, wait_for_everyone

logger = logging.getLogger(__name__)

__all__ = ["file_lock", "SharedWork"]

#: Checkpoint interval of a debiased encoder the study trains (a killed build resumes from it).
CHECKPOINT_EVERY = 50


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """An exclusive ``fcntl.flock`` on ``path`` (created if needed), released on exit or when the
    process dies. No lock where flock is unavailable (Windows) or under ``accelerate launch``
    (the processes of one launch build together and synchronize with barriers).
    """
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        yield
        return
    if process_count_and_rank()[0] > 1:
        yield
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "a+") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


class SharedWork:
    """The shared work of one study directory, as one process sees it.

    Parameters
    ----------
    config : StudyConfig
    paths : StudyPaths
    progress : bool
        tqdm bars of the library calls.
    """

    def __init__(self, config: StudyConfig, paths: StudyPaths, *, progress: bool = False):
        self.config = config
        self.paths = paths
        self.progress = progress
        self._embedders: dict[tuple[str, str], Callable[[Sequence[str]], np.ndarray]] = {}

    def lock(self, key: str) -> contextlib.AbstractContextManager:
        return file_lock(self.paths.lock_file(key))

    # -- debiased encoders ----------------------------------------------------------------------

    def debiased_dir(self, label: str, method: str) -> Path:
        return self.paths.debiased_dir(debiased_key(self.config, label, method))

    def is_built(self, label: str, method: str) -> bool:
        return is_debiased_dir(self.debiased_dir(label, method), method)

    def build_debiased(self, label: str, method: str, base: Callable[[], Any], corpus: Callable[[], Any]) -> Path:
        """The debiased encoder of (encoder, method), built once (``base``, ``corpus``: loaders,
        called only when this process builds it).
        """
        directory = self.debiased_dir(label, method)
        if self.is_built(label, method):
            return directory
        with self.lock(directory.name):
            if not self.is_built(label, method):  # another process may have built it while we waited
                started = time.perf_counter()
                logger.info("building %s of %s in %s", method, label, directory)
                self._build(method, base(), corpus(), directory)
                logger.info("built %s of %s in %.0f s", method, label, time.perf_counter() - started)
        wait_for_everyone()
        return directory

    def _build(self, method: str, base: Any, corpus: Any, directory: Path) -> None:
        options = dict(self.config.methods.get(method, {}))
        checkpoints = None
        if get_method(method).kind == "training":
            options.setdefault("checkpoint_every", CHECKPOINT_EVERY)
            checkpoints = self.paths.work_dir(directory.name)
            checkpoints.mkdir(parents=True, exist_ok=True)
        build_debiased(method, base, corpus, directory, options=options, seed=int(self.config.study["seed"]),
                       command="probekit study", progress=self.progress, cache_dir=self.paths.cache_dir,
                       checkpoint_dir=checkpoints, resume=True, remove_checkpoints=True)

    # -- frozen fine-tuning path: shared embeddings ------------------------------------------------

    def frozen_embedder(self, encoder: Any, dataset: str, data: Any, config: Any) -> Callable[[Sequence[str]], np.ndarray]:
        """``texts -> sentence vectors`` of the frozen path, from one embedding of every text of
        every setting of the study (cached under ``shared/embeddings``; built by one process, the
        others load it). One dataset's embeddings are kept in memory at a time.
        """
        key = (encoder.fingerprint, dataset)
        if key not in self._embedders:
            with datasets_bars_off():
                texts = distinct_texts(frozen_text_groups(data, None, self.config.study["settings"],
                                                          study_attribute(self.config.intrinsic)))
            lock = f"embeddings-{canonical_hash([encoder.fingerprint, dataset, config.max_length, config.pooling, len(texts)], 16)}"
            with self.lock(lock):
                embed = frozen_embedder(encoder, config, [texts], progress=self.progress, cache_dir=self.paths.cache_dir)
            self._embedders = {key: embed}
        return self._embedders[key]
