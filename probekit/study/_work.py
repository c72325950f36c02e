"""Executing units: encoders, shared work built once, the intrinsic suite and one fine-tune per unit.

Everything a unit needs that other units also need is *shared work*, built once under
``DIR/shared/`` and reused:

``shared/debiased/<label>-<method>-<hash>/``
    A debiased encoder the study builds: a projection directory (Sent-debias, INLP, LEACE; what
    ``probekit debias sent-debias|inlp|leace`` writes) or a checkpoint with ``debias.json`` (CDA,
    Context-debias; what ``probekit debias cda|context-debias`` writes). Both load with
    :func:`probekit.load_encoder`.
``shared/embeddings/``
    The embedding cache (:class:`probekit.embedding._cache.EmbeddingCache`: verified npz entries keyed by the
    model fingerprint and the texts): the intrinsic suite's word embeddings, which the INLP and
    LEACE fits of the same encoder reuse, and the frozen fine-tuning path's sentence embeddings of
    a dataset (every text of every setting, embedded once per encoder and dataset).
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
import inspect
import json
import logging
import os
import shutil
import time
from pathlib import Path
from typing import Any, Callable, Iterator, Sequence

import numpy as np

from debias import CDA, INLP, LEACE, ContextDebias, LinearEraser, SentDebias, apply_projection
from probekit import load_encoder, run_probe_suite
from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune import (
    apply_setting,
    counterfactual_dataset,
    datasets_bars_off,
    default_embedder,
    load_bios,
    load_jigsaw,
    make_synthetic_bios,
    run_fold,
)
from probekit.study._config import DEFAULT_MODEL, PROJECTION_METHODS, StudyConfig, finetune_config
from probekit.study._units import Unit, canonical_hash, debiased_key, needs_debiased_build, run_key
from probekit.text import Corpus, load_hf_corpus, load_text_corpus, template_corpus
from probekit.utils import collect_provenance, is_main_process, process_count_and_rank, wait_for_everyone, write_json

logger = logging.getLogger(__name__)

__all__ = ["Workspace", "run_fold_unit"]

UNITS_DIR = "units"
SHARED_DIR = "shared"
RUNS_DIR = "runs"


# ------------------------------------------------------------------------------------------ processes and locks


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


# ------------------------------------------------------------------------------------------ fine-tuning adapter


def run_fold_unit(
    encoder: Any, data: Any, fold: int, *, setting: str, folds: int, config: Any, run_dir: Path, data_name: str,
    embed: Callable[[Sequence[str]], np.ndarray] | None, progress: bool,
) -> dict[str, Any]:
    """One fold of one fine-tuning run: :func:`probekit.finetune.run_fold` with ``resume=True``.

    A finished fold (its ``fold.json``) is returned as saved; a fold interrupted during full
    fine-tuning continues from its last epoch-end checkpoint. ``embed`` (frozen path): the
    embeddings shared by every unit of the encoder and dataset (:meth:`Workspace.frozen_embedder`).
    """
    return run_fold(encoder, data, fold, setting=setting, folds=folds, config=config, out_dir=run_dir, resume=True,
                    progress=progress, data_name=data_name, embed=embed)


def setting_texts(data: Any, settings: Sequence[str]) -> list[str]:
    """Every text that fine-tuning under ``settings`` with cross-validation over ``data`` embeds:
    the pool (training and test texts), its counterfactuals (test counterfactuals; the swapped
    setting's added training examples) and, for the scrubbed setting, the scrubbed pool.
    """
    with datasets_bars_off():
        texts = list(data["text"]) + list(counterfactual_dataset(data)["text"])
        if "scrubbed" in settings:
            texts += list(apply_setting(data, "scrubbed")["text"])
    return list(dict.fromkeys(texts))


def _subsample(data: Any, maximum: int | None, seed: int) -> Any:
    """At most ``maximum`` examples, stratified on label x gender (scikit-learn), in their order."""
    if maximum is None or maximum >= len(data):
        return data
    from sklearn.model_selection import train_test_split

    strata = [f"{y}\x1f{g}" for y, g in zip(data["label"], data["gender"])]
    index = np.arange(len(data))
    try:
        keep, _ = train_test_split(index, train_size=int(maximum), stratify=strata, random_state=int(seed))
    except ValueError:  # a stratum with a single example: a plain random sample
        keep = np.random.default_rng(seed).permutation(index)[: int(maximum)]
    return data.select(np.sort(keep).tolist())


# ------------------------------------------------------------------------------------------ the workspace


class Workspace:
    """What one process needs to execute units of a study in ``out``: the configuration, the
    output directories and in-memory caches (the current encoder, datasets, the corpus), so that
    consecutive units of one (encoder, method) load it once.

    Parameters
    ----------
    config : StudyConfig
    out : path
        The study directory.
    progress : bool
        tqdm bars of the library calls.
    """

    def __init__(self, config: StudyConfig, out: str | os.PathLike, *, progress: bool = False):
        self.config = config
        self.out = Path(out)
        self.progress = progress
        self._encoder_key: tuple[str, str] | None = None
        self._encoder: Any = None
        self._base_label: str | None = None
        self._base: Any = None
        self._datasets: dict[str, Any] = {}
        self._corpus: Any = None
        self._embeddings: dict[tuple[str, str], tuple[dict[str, int], np.ndarray]] = {}

    # -- directories --------------------------------------------------------------------------

    @property
    def units_dir(self) -> Path:
        return self.out / UNITS_DIR

    @property
    def shared_dir(self) -> Path:
        return self.out / SHARED_DIR

    @property
    def cache_dir(self) -> Path:
        return self.shared_dir / "embeddings"

    def unit_path(self, unit: Unit) -> Path:
        return self.units_dir / f"{unit.id}.json"

    def _lock(self, key: str) -> contextlib.AbstractContextManager:
        return file_lock(self.shared_dir / "locks" / f"{key}.lock")

    # -- inputs -------------------------------------------------------------------------------

    def corpus(self) -> Any:
        """The corpus of the debiasing methods and the intrinsic suite (``[corpus]``)."""
        if self._corpus is None:

            spec = self.config.corpus
            if spec.get("hf_dataset"):
                self._corpus = load_hf_corpus(spec["hf_dataset"], text_column=spec["text_column"], split=spec["split"])
            elif spec.get("files"):
                parts = [load_text_corpus(p, mode=spec["mode"], encoding=spec["encoding"]) for p in spec["files"]]
                if len(parts) == 1:
                    self._corpus = parts[0]
                else:
                    sentences = tuple(s for part in parts for s in part)
                    self._corpus = Corpus(sentences=sentences, name="+".join(p.name for p in parts),
                                          source=", ".join(spec["files"]))
            else:
                frames = spec.get("frames_per_word")
                self._corpus = (template_corpus() if frames is None else
                                template_corpus(frames_per_word=int(frames), random_state=int(self.config.study["seed"])))
        return self._corpus

    def dataset(self, name: str) -> Any:
        """The dataset ``name`` in probekit.finetune's representation (loaded once per process)."""
        if name not in self._datasets:
            spec = dict(self.config.dataset(name))
            seed = int(self.config.study["seed"])
            kind = spec.pop("kind")
            spec.pop("name")
            if kind == "synthetic":

                n = spec.pop("n_examples")
                data = make_synthetic_bios(n, 14, random_state=seed, **spec)["train"]
            else:
                path, maximum = spec.pop("path"), spec.pop("max_examples", None)
                if kind == "bios":

                    data = load_bios(path, **spec)
                else:

                    data = load_jigsaw(path, **spec)
                data = _subsample(data, maximum, seed)
            self._datasets[name] = data
        return self._datasets[name]

    # -- encoders -----------------------------------------------------------------------------

    def _load(self, name_or_path: str | None, trust_remote_code: bool = False) -> Any:

        run = self.config.run
        return load_encoder(name_or_path, device=run.get("device"), dtype=run.get("dtype"), trust_remote_code=trust_remote_code)

    def base_encoder(self, label: str) -> Any:
        if self._base_label != label:
            self._base, self._base_label = None, None  # one encoder in memory at a time
            spec = self.config.encoder(label)
            model = None if spec["model"] == DEFAULT_MODEL else spec["model"]
            self._base = self._load(model, spec["trust_remote_code"])
            self._base_label = label
        return self._base

    def debiased_dir(self, label: str, method: str) -> Path:
        return self.shared_dir / "debiased" / debiased_key(self.config, label, method)

    def is_built(self, label: str, method: str) -> bool:
        directory = self.debiased_dir(label, method)
        marker = "projection.json" if method in PROJECTION_METHODS else "debias.json"
        return (directory / marker).is_file()

    def build_debiased(self, label: str, method: str) -> Path:
        """The debiased encoder of (encoder, method), built once under ``shared/debiased/``."""
        directory = self.debiased_dir(label, method)
        if self.is_built(label, method):
            return directory
        with self._lock(directory.name):
            if not self.is_built(label, method):  # another process may have built it while we waited
                started = time.perf_counter()
                logger.info("building %s of %s in %s", method, label, directory)
                if method in PROJECTION_METHODS:
                    self._fit_projection(label, method, directory)
                else:
                    self._train_debiased(label, method, directory)
                logger.info("built %s of %s in %.0f s", method, label, time.perf_counter() - started)
        wait_for_everyone()
        return directory

    def _method_options(self, method: str, function: Callable) -> dict[str, Any]:
        names = set(inspect.signature(function).parameters)
        return {k: v for k, v in self.config.methods.get(method, {}).items() if k in names}

    def _fit_projection(self, label: str, method: str, directory: Path) -> None:

        cls = {"sent-debias": SentDebias, "inlp": INLP, "leace": LEACE}[method]
        seed = int(self.config.study["seed"])
        init = self._method_options(method, cls.__init__)
        if "random_state" in inspect.signature(cls.__init__).parameters:
            init["random_state"] = seed
        eraser = cls(**init)
        fit = self._method_options(method, cls.fit_from_encoder)
        base = self.base_encoder(label)
        corpus = self.corpus()
        eraser.fit_from_encoder(base, corpus, random_state=seed, cache_dir=self.cache_dir, progress=self.progress, **fit)
        provenance = collect_provenance(
            model=base.describe(), seeds={"seed": seed},
            parameters={"command": "probekit study", "method": type(eraser).__name__, **eraser.get_params(), **fit,
                        "corpus": getattr(corpus, "name", None), "corpus_digest": getattr(corpus, "digest", None)},
        )
        if is_main_process():
            eraser.save(directory, provenance=provenance)

    def _train_debiased(self, label: str, method: str, directory: Path) -> None:

        cls = CDA if method == "cda" else ContextDebias
        options = self._method_options(method, cls.__init__)
        options["seed"] = int(self.config.study["seed"])
        debiaser = cls(**options)
        if debiaser.checkpoint_every is None:
            debiaser.checkpoint_every = 50  # a killed build resumes from its last checkpoint
        checkpoints = self.shared_dir / "work" / directory.name
        checkpoints.mkdir(parents=True, exist_ok=True)
        debiaser.fit(self.base_encoder(label), self.corpus(), checkpoint_dir=checkpoints, resume=True, progress=self.progress)
        debiaser.save(directory)
        if is_main_process():
            shutil.rmtree(checkpoints, ignore_errors=True)

    def encoder(self, label: str, method: str) -> Any:
        """The encoder of (encoder, method): the base, the one from a path, or the one built."""
        key = (label, method)
        if self._encoder_key == key:
            return self._encoder
        self._encoder, self._encoder_key = None, None
        spec = self.config.encoder(label)
        name = f"{label}+{method}" if method != "none" else label
        if method == "none":
            encoder = self.base_encoder(label)
        elif not needs_debiased_build(self.config, label, method):
            self._base, self._base_label = None, None
            encoder = self._load(spec["debiased"][method], spec["trust_remote_code"])
        elif method in PROJECTION_METHODS:

            directory = self.build_debiased(label, method)
            base = self.base_encoder(label)
            encoder = apply_projection(base, LinearEraser.load(directory, encoder=base), name=name)
        else:
            directory = self.build_debiased(label, method)
            self._base, self._base_label = None, None
            encoder = self._load(str(directory))
        self._encoder, self._encoder_key = encoder, key
        return encoder

    # -- frozen path: shared embeddings ---------------------------------------------------------

    def frozen_embedder(self, encoder: Any, dataset: str, data: Any, config: Any) -> Callable[[Sequence[str]], np.ndarray]:
        """``texts -> sentence vectors`` of the frozen path, from one embedding of every text of
        every setting (cached under ``shared/embeddings``; built by one process, the others load it).
        """
        key = (encoder.fingerprint, dataset)
        if key not in self._embeddings:
            texts = setting_texts(data, self.config.study["settings"])
            lock = f"embeddings-{canonical_hash([encoder.fingerprint, dataset, config.max_length, config.pooling, len(texts)], 16)}"
            with self._lock(lock):
                vectors = default_embedder(encoder, config, cache_dir=self.cache_dir, progress=self.progress)(texts)
            self._embeddings = {key: ({t: i for i, t in enumerate(texts)}, vectors)}  # one dataset's at a time
        rows, vectors = self._embeddings[key]
        fallback = default_embedder(encoder, config, progress=False)

        def embed(batch: Sequence[str]) -> np.ndarray:
            missing = [t for t in dict.fromkeys(batch) if t not in rows]
            if not missing:
                return vectors[[rows[t] for t in batch]]
            extra = dict(zip(missing, fallback(missing)))  # not expected: every text was embedded above
            return np.stack([vectors[rows[t]] if t in rows else extra[t] for t in batch])

        return embed

    # -- units --------------------------------------------------------------------------------

    def execute(self, unit: Unit) -> dict[str, Any]:
        """Run one unit and return its record (not written; see :meth:`write`)."""
        started = time.perf_counter()
        if unit.kind == "intrinsic":
            result, provenance = self._intrinsic(unit)
        else:
            result, provenance = self._finetune(unit)
        return {"id": unit.id, "kind": unit.kind, "params": dict(unit.params), "result": result,
                "provenance": provenance, "wall_s": time.perf_counter() - started}

    def write(self, record: dict[str, Any]) -> Path:
        """Write a unit's record atomically (one file per unit; the main process only)."""
        path = self.units_dir / f"{record['id']}.json"
        if is_main_process():
            write_json(path, record)
        wait_for_everyone()
        return path

    def _intrinsic(self, unit: Unit) -> tuple[dict[str, Any], dict[str, Any]]:

        p = unit.params
        encoder = self.encoder(p["encoder"], p["method"])
        seed = int(self.config.study["seed"])
        result = run_probe_suite(encoder, self.corpus(), random_state=seed, cache_dir=self.cache_dir,
                                 progress=self.progress, **self.config.intrinsic)
        provenance = collect_provenance(model=encoder.describe(), seeds={"seed": seed},
                                        parameters={"command": "probekit study", "unit": unit.spec})
        return result.to_dict(), provenance

    def _finetune(self, unit: Unit) -> tuple[dict[str, Any], dict[str, Any]]:

        p = unit.params
        encoder = self.encoder(p["encoder"], p["method"])
        data = self.dataset(p["dataset"])
        config = finetune_config(self.config)
        embed = self.frozen_embedder(encoder, p["dataset"], data, config) if config.frozen else None
        run_dir = self.out / RUNS_DIR / run_key(self.config, p["encoder"], p["method"], p["dataset"], p["setting"])
        entry = run_fold_unit(encoder, data, int(p["fold"]), setting=p["setting"], folds=int(self.config.study["folds"]),
                              config=config, run_dir=run_dir, data_name=p["dataset"], embed=embed, progress=self.progress)
        settings = json.loads((run_dir / "run.json").read_text(encoding="utf-8")).get("settings", {})
        settings = {k: v for k, v in settings.items() if k != "model"}
        provenance = collect_provenance(
            model=encoder.describe(), seeds={"seed": int(self.config.study["seed"])},
            parameters={"command": "probekit study", "unit": unit.spec,
                        "run_dir": f"{RUNS_DIR}/{run_dir.name}", "finetune_settings": settings},
        )
        return entry, provenance


def check_inputs(config: StudyConfig, units: Sequence[Unit]) -> None:
    """Data and encoder paths that the units need exist (before any model is loaded)."""
    needed_data = {u.params["dataset"] for u in units if u.kind == "finetune"}
    for dataset in config.datasets:
        if dataset["name"] not in needed_data or dataset["kind"] == "synthetic":
            continue
        path = str(dataset["path"])
        looks_like_hub = path.count("/") == 1 and not path.startswith((".", "/", "~")) and not Path(path).suffix
        if not Path(path).expanduser().exists() and not looks_like_hub:
            raise InputFileError(
                f"dataset {dataset['name']!r} ({dataset['kind']}): no such file or directory {path!r}; "
                f"give its location with --data-path {dataset['name']}=PATH"
            )
    needed = {u.group for u in units}
    for encoder in config.encoders:
        for method, path in encoder["debiased"].items():
            if (encoder["label"], method) in needed and not Path(path).expanduser().is_dir():
                raise InvalidParameterError(f"encoders[{encoder['label']}].debiased.{method}", path,
                                            "an existing directory (a debiased checkpoint or projection directory)")
