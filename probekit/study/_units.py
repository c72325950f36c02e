"""The units of a study and their deterministic ids.

A study expands into units, in grid order::

    for encoder:                      for method:
        intrinsic(encoder, method)                              (the intrinsic suite, once)
        for benchmark of [benchmarks]:
            benchmark(encoder, method, benchmark)               (CrowS-Pairs, StereoSet, SEAT suite, PPPL)
        for dataset: for setting: for fold:
            finetune(encoder, method, dataset, setting, fold)   (one fine-tune and its evaluation)

A unit's id is readable and unique: its parameters followed by 12 hex digits of the SHA-256 of
the canonical JSON (sorted keys, no spaces) of everything its result depends on: its kind and
parameters, the encoder's model, the method's options (or the directory it is taken from), the
corpus, the dataset's options (not its location), the folds, the fine-tuning or intrinsic options
and the seed; for a benchmark unit, its options and the SHA-256 of its data (the file's, or the
directory's ``*.jsonl`` files'; not their location). The same configuration gives the same ids on every machine, and changing an option
gives new ids, so a finished unit is never mistaken for one run with other options.

Shared work (a debiased encoder, the frozen path's embeddings) has keys made the same way; a
shard is a contiguous block of the grid (:func:`shard_units`).
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from probekit.errors import InvalidParameterError
from probekit.study._attribute import study_attribute
from probekit.study._config import BENCHMARK_PATHS, PROJECTION_METHODS, StudyConfig, enabled_benchmarks
from probekit.study._sweep import sweep_points

__all__ = ["Unit", "plan_units", "plan_points", "shard_units", "parse_shard", "canonical_hash", "method_spec",
           "debiased_key", "benchmark_spec", "point_method_spec"]

KINDS = ("intrinsic", "benchmark", "finetune", "point")


def canonical_hash(value: Any, length: int = 12) -> str:
    """SHA-256 of the canonical JSON of ``value`` (sorted keys, compact), ``length`` hex digits."""
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:length]


@dataclass(frozen=True)
class Unit:
    """One unit of work.

    Attributes
    ----------
    id : str
    kind : {"intrinsic", "benchmark", "finetune"}
    params : dict
        ``encoder`` (label), ``method``, ``dataset``, ``setting``, ``fold`` (the last three
        ``None`` for intrinsic and benchmark units); ``benchmark`` for benchmark units
        (``"crows_pairs"``, ``"stereoset"``, ``"seat_suite"``, ``"pppl"``); ``attribute`` in a study
        of another attribute than gender (also in the readable part of the id).
    spec : dict
        Everything the result depends on (hashed into the id).
    """

    id: str
    kind: str
    params: dict[str, Any]
    spec: dict[str, Any] = field(repr=False)

    @property
    def group(self) -> tuple[str, str]:
        """(encoder, method): the units that share one (debiased) encoder. A sweep point of a
        projection method needs only the base encoder (its projection is fitted in the unit).
        """
        if self.kind == "point" and (is_projection(self.params["method"]) or self.spec["method"].get("sweep_steps")):
            return self.params["encoder"], "none"  # built in the unit: a fitted projection or a run's step checkpoints
        return self.params["encoder"], self.params["method"]

    def describe(self) -> dict[str, Any]:
        """The unit as saved in ``study.json``: id, kind, params."""
        return {"id": self.id, "kind": self.kind, "params": dict(self.params)}

    def label(self) -> str:
        """One line naming the unit for progress messages (kind, encoder/method and, for a fold, dataset, setting, fold)."""
        p = self.params
        of = f" ({p['attribute']})" if p.get("attribute") else ""
        if self.kind == "intrinsic":
            return f"intrinsic {p['encoder']}/{p['method']}{of}"
        if self.kind == "benchmark":
            return f"benchmark {p['benchmark']} {p['encoder']}/{p['method']}{of}"
        if self.kind == "point":
            strength = " ".join(f"{k}={v}" for k, v in p["strength"].items())
            return f"point {p['encoder']}/{p['method']}/{p['dataset']} seed {p['seed']} {strength}".rstrip()
        return f"finetune {p['encoder']}/{p['method']}/{p['dataset']}/{p['setting']}/fold {p['fold']}"


def encoder_spec(config: StudyConfig, label: str) -> dict[str, Any]:
    encoder = config.encoder(label)
    return {"model": encoder["model"], "trust_remote_code": encoder["trust_remote_code"]}


def corpus_spec(config: StudyConfig) -> dict[str, Any]:
    """The ``[corpus]`` table; in a study of another attribute than gender, with its name (the default
    corpus is then the attribute's templates, and every unit and debiased encoder depends on it).
    """
    attribute = study_attribute(config.intrinsic)
    return dict(config.corpus) if attribute == "gender" else {**config.corpus, "attribute": attribute}


def method_spec(config: StudyConfig, label: str, method: str) -> dict[str, Any]:
    """How the encoder's ``method`` version is made: taken from a directory, or built with options."""
    if method == "none":
        return {"name": "none"}
    path = config.encoder(label)["debiased"].get(method)
    if path is not None:
        return {"name": method, "path": path}
    return {"name": method, "options": dict(config.methods.get(method, {})), "corpus": corpus_spec(config),
            "seed": int(config.study["seed"])}


def debiased_key(config: StudyConfig, label: str, method: str) -> str:
    """Directory name of a debiased encoder built by the study (under ``shared/debiased/``)."""
    spec = {"encoder": encoder_spec(config, label), "method": method_spec(config, label, method)}
    return f"{label}-{method}-{canonical_hash(spec, 10)}"


def dataset_spec(config: StudyConfig, name: str) -> dict[str, Any]:
    return {k: v for k, v in config.dataset(name).items() if k != "path"}


def run_key(config: StudyConfig, label: str, method: str, dataset: str, setting: str) -> str:
    """Directory name (under ``runs/``) of the fine-tuning run of one encoder x method x dataset x
    setting, which holds its folds' predictions (``probekit finetune``'s run layout).
    """
    spec = {"encoder": encoder_spec(config, label), "method": method_spec(config, label, method),
            "dataset": dataset_spec(config, dataset), "setting": setting, "folds": config.study["folds"],
            "finetune": dict(config.finetune), "seed": config.study["seed"]}
    attribute = study_attribute(config.intrinsic)
    if attribute != "gender":  # the run of k groups (gender: the key it always had)
        spec["attribute"] = attribute
    return f"{label}-{method}-{dataset}-{setting}-{canonical_hash(spec, 10)}"


#: The ``[benchmarks]`` keys each benchmark depends on (besides its data).
_BENCHMARK_OPTIONS = {
    "crows_pairs": ("crows_scoring", "crows_bias_types", "confidence_level"),
    "stereoset": ("stereoset_domains", "stereoset_n_resamples", "confidence_level"),
    "seat_suite": ("seat_tests", "seat_alternative", "seat_n_permutations", "seat_n_bootstrap", "confidence_level"),
    "pppl": ("pppl_max_sentences",),
}
_BENCHMARK_DATA = {"crows_pairs": "crows_pairs", "stereoset": "stereoset", "seat_suite": "seat_suite", "pppl": "pppl_corpus"}


def data_digest(path: str | None) -> str | None:
    """SHA-256 of a benchmark's data: a file's bytes, or a directory's ``*.jsonl`` names and bytes;
    ``None`` for no path (the built-in corpus); ``"missing"`` when the path does not exist yet
    (the check before running reports it).
    """
    if path is None:
        return None
    target = Path(path).expanduser()
    digest = hashlib.sha256()
    if target.is_file():
        digest.update(target.read_bytes())
    elif target.is_dir():
        for file in sorted(target.glob("*.jsonl")):
            digest.update(file.name.encode("utf-8") + b"\0" + file.read_bytes() + b"\0")
    else:
        return "missing"
    return digest.hexdigest()


def benchmark_data_key(benchmark: str) -> str:
    """The ``[benchmarks]`` key naming a benchmark's data (``pppl``: ``pppl_corpus``)."""
    key = _BENCHMARK_DATA[benchmark]
    assert key in BENCHMARK_PATHS
    return key


def benchmark_spec(config: StudyConfig, benchmark: str) -> dict[str, Any]:
    """What a benchmark unit's result depends on besides the encoder: its options and its data's digest."""
    table = config.benchmarks
    return {"name": benchmark, "options": {k: table[k] for k in _BENCHMARK_OPTIONS[benchmark]},
            "data_sha256": data_digest(table[benchmark_data_key(benchmark)])}


_SAFE = re.compile(r"[^A-Za-z0-9._+-]")


def _unit_id(kind: str, params: Mapping[str, Any], spec: Mapping[str, Any]) -> str:
    parts = [kind, params["encoder"], params["method"]]
    if params.get("attribute"):  # a study of another attribute than gender
        parts.append(params["attribute"])
    if kind == "benchmark":
        parts.append(params["benchmark"])
    if kind == "finetune":
        parts += [params["dataset"], params["setting"], f"fold{params['fold']}"]
    if kind == "point":
        parts += [params["dataset"], f"s{params['seed']}"]
        parts += [f"{name.rsplit('.', 1)[-1]}{value}" for name, value in params["strength"].items()]
    readable = "-".join(_SAFE.sub("-", str(p)) for p in parts)
    return f"{readable}-{canonical_hash(spec)}"


def point_method_spec(config: StudyConfig, label: str, method: str, strength: Mapping[str, Any], seed: int) -> dict[str, Any]:
    """How a sweep point's method is made: a projection fitted with the point's options and seed, or
    (``none``, training methods) the grid's :func:`method_spec`.
    """
    steps = config.sweep["methods"].get(method, {}).get("steps")
    if steps and method not in config.encoder(label)["debiased"]:  # a training method's step axis: one run per seed
        options = {**config.methods.get(method, {}), "steps": max(steps)}
        return {"name": method, "options": dict(sorted(options.items())), "corpus": corpus_spec(config), "seed": int(seed),
                "sweep_steps": sorted(int(v) for v in steps)}
    if not is_projection(method) or method in config.encoder(label)["debiased"]:
        return method_spec(config, label, method)
    options = dict(config.methods.get(method, {}))
    options.update({name.split(".", 1)[1]: value for name, value in strength.items() if name.startswith(f"{method}.")})
    return {"name": method, "options": dict(sorted(options.items())), "corpus": corpus_spec(config), "seed": int(seed)}


def plan_points(config: StudyConfig) -> list[Unit]:
    """The point units of a ``[sweep]`` study: encoder x method x dataset x seed x strengths
    (:func:`probekit.study._sweep.sweep_points`), in that order.
    """
    units: list[Unit] = []
    sweep = config.sweep
    scored = [benchmark_spec(config, b) for b in ("crows_pairs", "stereoset") if b in enabled_benchmarks(config)]
    for encoder in config.encoders:
        label = encoder["label"]
        for method in config.study["methods"]:
            for dataset in config.datasets:
                for seed in sweep["seeds"]:
                    for strength in sweep_points(config, method):
                        params = {"encoder": label, "method": method, "dataset": dataset["name"],
                                  "setting": sweep["setting"], "seed": int(seed), "strength": strength}
                        finetune = {**config.finetune, **{k.split(".", 1)[1]: v for k, v in strength.items()
                                                          if k.startswith("finetune.")}}
                        spec = {"kind": "point", "params": params, "encoder": encoder_spec(config, label),
                                "method": point_method_spec(config, label, method, strength, seed),
                                "dataset": dataset_spec(config, dataset["name"]), "folds": int(config.study["folds"]),
                                "finetune": dict(sorted(finetune.items())), "intrinsic": dict(config.intrinsic),
                                "corpus": corpus_spec(config), "selection_seed": int(config.study["seed"])}
                        if scored:  # scored per point (masked-LM head): their data and options (absent: ids as before)
                            spec["benchmarks"] = scored
                        if sweep.get("lpbs"):  # opt-in (absent: ids as before)
                            spec["lpbs"] = True
                        units.append(Unit(_unit_id("point", params, spec), "point", params, spec))
    return units


def plan_units(config: StudyConfig) -> list[Unit]:
    """Every unit of the study, in grid order (encoder, method, [intrinsic], [benchmarks], dataset, setting, fold);
    for a study with ``[sweep]``, its points (:func:`plan_points`) instead of the grid.
    """
    if config.sweep:
        units = plan_points(config)
        assert len({u.id for u in units}) == len(units), "unit ids must be unique"
        return units
    units: list[Unit] = []
    seed = int(config.study["seed"])
    benchmarks = {name: benchmark_spec(config, name) for name in enabled_benchmarks(config)}
    attribute = study_attribute(config.intrinsic)
    for encoder in config.encoders:
        label = encoder["label"]
        for method in config.study["methods"]:
            common = {"encoder": encoder_spec(config, label), "method": method_spec(config, label, method), "seed": seed}
            if attribute != "gender":  # the benchmarks of "none" and of a directory depend on no corpus: named here
                common["attribute"] = attribute
            named = {} if attribute == "gender" else {"attribute": attribute}  # gender: the params it always had
            if config.study["intrinsic"]:
                params = {"encoder": label, "method": method, "dataset": None, "setting": None, "fold": None, **named}
                spec = {"kind": "intrinsic", "params": params, **common, "corpus": corpus_spec(config),
                        "intrinsic": dict(config.intrinsic)}
                units.append(Unit(_unit_id("intrinsic", params, spec), "intrinsic", params, spec))
            for name, bench in benchmarks.items():
                params = {"encoder": label, "method": method, "dataset": None, "setting": None, "fold": None,
                          "benchmark": name, **named}
                spec = {"kind": "benchmark", "params": params, **common, "benchmark": bench}
                units.append(Unit(_unit_id("benchmark", params, spec), "benchmark", params, spec))
            if not config.study["finetune"]:
                continue
            for dataset in config.datasets:
                for setting in config.study["settings"]:
                    for fold in range(int(config.study["folds"])):
                        params = {"encoder": label, "method": method, "dataset": dataset["name"], "setting": setting,
                                  "fold": fold, **named}
                        spec = {"kind": "finetune", "params": params, **common,
                                "dataset": dataset_spec(config, dataset["name"]), "folds": int(config.study["folds"]),
                                "finetune": dict(config.finetune)}
                        units.append(Unit(_unit_id("finetune", params, spec), "finetune", params, spec))
    ids = [u.id for u in units]
    assert len(set(ids)) == len(ids), "unit ids must be unique"
    return units


def parse_shard(text: str | None) -> tuple[int, int] | None:
    """``"i/n"`` -> (i, n) with 0 <= i < n; ``None`` -> None."""
    if text is None:
        return None
    match = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", str(text))
    if not match:
        raise InvalidParameterError("--shard", text, "i/n with 0 <= i < n, e.g. 0/4 (SLURM: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)")
    index, count = int(match.group(1)), int(match.group(2))
    if count < 1 or not 0 <= index < count:
        raise InvalidParameterError("--shard", text, "i/n with n >= 1 and 0 <= i < n")
    return index, count


def shard_units(units: Sequence[Unit], shard: tuple[int, int] | None) -> list[Unit]:
    """Shard ``i`` of ``n``: the units at grid positions ``floor(i N / n)`` to ``floor((i+1) N / n) - 1``.

    Contiguous blocks of the grid keep the units of one (encoder, method) together, so a shard
    builds or loads few debiased encoders; the shards of one ``n`` cover every unit exactly once
    and differ in size by at most one.
    """
    if shard is None:
        return list(units)
    index, count = shard
    n = len(units)
    return list(units[index * n // count:(index + 1) * n // count])


def needs_debiased_build(config: StudyConfig, label: str, method: str) -> bool:
    """Whether the (encoder, method) encoder is built by the study (not ``none``, not from a path)."""
    return method != "none" and method not in config.encoder(label)["debiased"]


def is_projection(method: str) -> bool:
    return method in PROJECTION_METHODS
