"""The inputs of a study's units: the corpus, the datasets, the benchmarks' data, and the check that
their files exist (and, for the benchmarks, that they read) before anything is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

import numpy as np
from sklearn.model_selection import train_test_split

from probekit.errors import InputFileError, InvalidParameterError
from probekit.finetune import load_bios, load_jigsaw, make_synthetic_bios
from probekit.intrinsic import read_crows_pairs, read_seat_suite, read_stereoset
from probekit.study._config import StudyConfig
from probekit.study._units import Unit, benchmark_data_key
from probekit.text import Corpus, load_hf_corpus, load_text_corpus, template_corpus

__all__ = ["StudyInputs", "load_study_corpus", "load_study_dataset", "load_benchmark_data", "check_inputs"]


def load_study_corpus(config: StudyConfig) -> Any:
    """The corpus of the debiasing methods and the intrinsic suite (``[corpus]``)."""
    spec = config.corpus
    if spec.get("hf_dataset"):
        return load_hf_corpus(spec["hf_dataset"], text_column=spec["text_column"], split=spec["split"])
    if spec.get("files"):
        parts = [load_text_corpus(p, mode=spec["mode"], encoding=spec["encoding"]) for p in spec["files"]]
        if len(parts) == 1:
            return parts[0]
        sentences = tuple(s for part in parts for s in part)
        return Corpus(sentences=sentences, name="+".join(p.name for p in parts), source=", ".join(spec["files"]))
    frames = spec.get("frames_per_word")
    if frames is None:
        return template_corpus()
    return template_corpus(frames_per_word=int(frames), random_state=int(config.study["seed"]))


def subsample(data: Any, maximum: int | None, seed: int) -> Any:
    """At most ``maximum`` examples, stratified on label x gender (scikit-learn), in their order."""
    if maximum is None or maximum >= len(data):
        return data
    strata = [f"{y}\x1f{g}" for y, g in zip(data["label"], data["gender"])]
    index = np.arange(len(data))
    try:
        keep, _ = train_test_split(index, train_size=int(maximum), stratify=strata, random_state=int(seed))
    except ValueError:  # a stratum with a single example: a plain random sample
        keep = np.random.default_rng(seed).permutation(index)[: int(maximum)]
    return data.select(np.sort(keep).tolist())


def load_study_dataset(config: StudyConfig, name: str) -> Any:
    """The dataset ``name`` of the study in probekit.finetune's representation."""
    spec = dict(config.dataset(name))
    seed = int(config.study["seed"])
    kind = spec.pop("kind")
    spec.pop("name")
    if kind == "synthetic":
        n = spec.pop("n_examples")
        return make_synthetic_bios(n, 14, random_state=seed, **spec)["train"]
    path, maximum = spec.pop("path"), spec.pop("max_examples", None)
    data = load_bios(path, **spec) if kind == "bios" else load_jigsaw(path, **spec)
    return subsample(data, maximum, seed)


def load_benchmark_data(config: StudyConfig, benchmark: str) -> Any:
    """The data of one benchmark of ``[benchmarks]``, read and checked: CrowS-Pairs pairs, StereoSet
    contexts, SEAT suite tests, or the pseudo-perplexity corpus (``None``: the built-in held-out sample).
    """
    table = config.benchmarks
    path = table[benchmark_data_key(benchmark)]
    where = f"[benchmarks] {benchmark_data_key(benchmark)}"
    if path is not None and not Path(path).expanduser().exists():
        raise InputFileError(f"{where}: no such file or directory {path!r}")
    if benchmark == "crows_pairs":
        return read_crows_pairs(Path(path).expanduser(), bias_types=table["crows_bias_types"])
    if benchmark == "stereoset":
        return read_stereoset(Path(path).expanduser(), domains=table["stereoset_domains"])
    if benchmark == "seat_suite":
        return read_seat_suite(path, tests=table["seat_tests"])
    return None if path is None else load_text_corpus(path, mode="lines")


class StudyInputs:
    """The corpus and the datasets of a study, each loaded once per process."""

    def __init__(self, config: StudyConfig):
        self.config = config
        self._corpus: Any = None
        self._datasets: dict[str, Any] = {}
        self._benchmarks: dict[str, Any] = {}

    def corpus(self) -> Any:
        if self._corpus is None:
            self._corpus = load_study_corpus(self.config)
        return self._corpus

    def dataset(self, name: str) -> Any:
        if name not in self._datasets:
            self._datasets[name] = load_study_dataset(self.config, name)
        return self._datasets[name]

    def benchmark(self, name: str) -> Any:
        """The data of benchmark ``name`` (:func:`load_benchmark_data`), read once per process."""
        if name not in self._benchmarks:
            self._benchmarks[name] = load_benchmark_data(self.config, name)
        return self._benchmarks[name]


def check_inputs(config: StudyConfig, units: Sequence[Unit]) -> None:
    """Data and encoder paths that the units need exist (before any model is loaded); the benchmark
    files the units need exist and read as their benchmark's layout.
    """
    for name in dict.fromkeys(u.params["benchmark"] for u in units if u.kind == "benchmark"):
        load_benchmark_data(config, name)
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
