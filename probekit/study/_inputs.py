"""The inputs of a study's units: the corpus, the datasets, the benchmarks' data, and the check that
their files exist (and, for the benchmarks, that they read) before anything is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from debias import DEFAULT_DEBIASING_PREFIXES
from probekit.encoders import checkpoint_input_limit, read_self_debias_dir
from probekit.errors import InputFileError, InvalidParameterError, ModelLoadError
from probekit.finetune import load_data
from probekit.intrinsic import (
    check_input_lengths,
    crows_pairs_input_lengths,
    prefix_room,
    read_crows_pairs,
    read_seat_suite,
    read_stereoset,
    stereoset_input_lengths,
)
from probekit.study._attribute import study_attribute
from probekit.study._config import DEFAULT_MODEL, StudyConfig
from probekit.study._units import Unit, benchmark_data_key
from probekit.text import attribute_corpus, load_corpus, load_text_corpus

__all__ = ["StudyInputs", "load_study_corpus", "load_study_dataset", "load_benchmark_data", "check_inputs",
           "check_benchmark_lengths"]


def load_study_corpus(config: StudyConfig) -> Any:
    """The corpus of the debiasing methods and the intrinsic suite (``[corpus]``; :func:`probekit.text.load_corpus`);
    in a study of another attribute without ``files`` or ``hf_dataset``, the attribute's template corpus
    (:func:`probekit.text.attribute_corpus`, with ``frames_per_word``), the one ``probekit probe --attribute`` reads.
    """
    spec = config.corpus
    attribute = study_attribute(config.intrinsic)
    if attribute != "gender" and not spec.get("files") and not spec.get("hf_dataset"):
        return attribute_corpus(attribute, frames_per_word=spec.get("frames_per_word"), random_state=int(config.study["seed"]))
    return load_corpus(files=spec.get("files") or None, hf_dataset=spec.get("hf_dataset"), text_column=spec.get("text_column", "text"),
                       split=spec.get("split", "train"), mode=spec.get("mode", "lines"), encoding=spec.get("encoding", "utf-8"),
                       frames_per_word=spec.get("frames_per_word"), random_state=int(config.study["seed"]))


def load_study_dataset(config: StudyConfig, name: str) -> Any:
    """The dataset ``name`` of the study in probekit.finetune's representation (:func:`probekit.finetune.load_data`)."""
    spec = dict(config.dataset(name))
    kind = spec.pop("kind")
    spec.pop("name")
    attribute = study_attribute(config.intrinsic)  # k groups: the data carries a column of the attribute
    data, _ = load_data(kind, random_state=int(config.study["seed"]), **spec,
                        **({} if attribute == "gender" else {"attribute": attribute}))
    return data


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
    named = [u.params["benchmark"] for u in units if u.kind == "benchmark"]
    named += [b["name"] for u in units if u.kind == "point" for b in u.spec.get("benchmarks", ())]  # scored per point
    for name in dict.fromkeys(named):
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


#: Benchmarks whose inputs must fit the model (pseudo-perplexity skips a sentence too long, and says so).
_LENGTHS = {"crows_pairs": crows_pairs_input_lengths, "stereoset": stereoset_input_lengths}


def _self_debias_prefixes(config: StudyConfig, encoder: dict[str, Any]) -> list[str]:
    """The prefixes of the encoder's Self-Debias: from its directory, else ``[methods.self-debias]``."""
    path = encoder["debiased"].get("self-debias")
    if path is not None:
        return list(read_self_debias_dir(Path(path).expanduser())["hyperparameters"]["prefixes"])
    return list(config.methods.get("self-debias", {}).get("prefixes") or DEFAULT_DEBIASING_PREFIXES)


def check_benchmark_lengths(config: StudyConfig, units: Sequence[Unit]) -> None:
    """Every CrowS-Pairs pair and StereoSet context the units score fits their encoder's model
    (:func:`probekit.intrinsic.check_input_lengths`), checked from the checkpoint's config and
    tokenizer without its weights, before ``study.json`` or anything else is written; a unit would
    otherwise fail on it after the others ran. Hub ids are checked when their unit runs.
    """
    wanted = dict.fromkeys((u.params["encoder"], u.params["method"], u.params["benchmark"]) for u in units
                           if u.kind == "benchmark" and u.params["benchmark"] in _LENGTHS)
    limits: dict[str, Any] = {}
    lengths: dict[tuple[str, str], list[tuple[str, int]]] = {}  # each file read and tokenized once per encoder
    for label, method, benchmark in wanted:
        index, encoder = next((i, e) for i, e in enumerate(config.encoders) if e["label"] == label)
        model = encoder["model"]
        if label not in limits:
            try:
                limits[label] = checkpoint_input_limit(None if model == DEFAULT_MODEL else model,
                                                       trust_remote_code=encoder["trust_remote_code"])
            except ModelLoadError as exc:
                raise InvalidParameterError(f"encoders[{index}].model", model, "a usable checkpoint", str(exc)) from None
        if limits[label] is None:
            continue
        tokenizer, limit = limits[label]
        if method == "self-debias":  # the debiasing prefix takes room in every input
            limit -= prefix_room(tokenizer, _self_debias_prefixes(config, encoder))
        if (label, benchmark) not in lengths:
            lengths[label, benchmark] = _LENGTHS[benchmark](tokenizer, load_benchmark_data(config, benchmark))
        check_input_lengths(lengths[label, benchmark], limit, f"[benchmarks] {benchmark_data_key(benchmark)}",
                            f"the model of encoders[{index}] ({model!r}, method {method}); nothing was written")
